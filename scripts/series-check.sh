#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# series-check.sh BASE SERIES TREE OUT PERF_MAKE_ARGS
#
# That the series bisects: applies SERIES (written by series.py, with its
# repository SERIES.git) to a copy of BASE in TREE one patch at a time,
# builds perf after each into OUT (incrementally: only the first build is
# a full one), and runs checkpatch on each patch.  Stops at the first
# patch that does not build or that checkpatch complains about.
#
# checkpatch runs without two checks: FILE_PATH_CHANGES, as tools/perf/
# is all the perf maintainers' already, and SPDX_LICENSE_TAG, as perf's
# shell tests keep their description on line 2, before the tag, like
# perf's own; `make check` checks each file's tag in file mode.
set -e

base=$1
series=$2
tree=$3
out=$4
make_args=$5
repo="$series.git"
checkpatch="$base/scripts/checkpatch.pl"

nr=$(ls "$series"/*.patch | wc -l)
rm -rf "$tree" "$out"
mkdir -p "$tree" "$out"
cp -a "$base/." "$tree/"

i=0
for commit in $(git -C "$repo" rev-list --reverse "HEAD~$nr..HEAD"); do
	i=$((i + 1))
	patch=$(ls "$series"/*.patch | sed -n "${i}p")
	subject=$(git -C "$repo" log -1 --format=%s "$commit")
	git -C "$repo" diff --name-only --no-renames "$commit~1" "$commit" | while read -r f; do
		if git -C "$repo" cat-file -e "$commit:$f" 2>/dev/null; then
			mkdir -p "$(dirname "$tree/$f")"
			git -C "$repo" show "$commit:$f" > "$tree/$f"
			# The shell tests are run by their mode.
			if [ "$(git -C "$repo" ls-tree "$commit" "$f" | cut -c1-6)" = 100755 ]; then
				chmod +x "$tree/$f"
			fi
		else
			rm -f "$tree/$f"
		fi
	done
	# shellcheck disable=SC2086
	if ! make -s -C "$tree/tools/perf" O="$out" $make_args > "$out/build.log" 2>&1; then
		grep -E -B2 -A4 'error|Error' "$out/build.log" | head -40
		echo "error: patch $i does not build: $subject" >&2
		exit 1
	fi
	msg=$(perl "$checkpatch" --no-tree --quiet --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG - < "$patch" 2>&1) || true
	if [ -n "$msg" ]; then
		echo "$msg"
		echo "error: checkpatch on patch $i: $subject" >&2
		exit 1
	fi
	echo "  ok    $i/$nr $subject"
done
echo "  SERIES every prefix of the $nr patches builds, and checkpatch is clean"
