#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# series-check.sh BASE SERIES TREE OUT PERF_MAKE_ARGS KVMGEN_FLAGS
#
# That the series bisects: applies SERIES (written by series.py, with its
# repository SERIES.git) to a copy of BASE in TREE one patch at a time,
# builds perf after each into OUT (incrementally: only the first build is
# a full one), and runs checkpatch on each patch.  Stops at the first
# patch that does not build or that checkpatch complains about.
#
# kvmgen, the tests' generator, comes in parts that link only once the
# last is in.  From the first patch whose shell tests run it, each patch
# must link it too (with KVMGEN_FLAGS and the tree's headers, as make
# builds it).
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
kvmgen_flags=$6
repo="$series.git"
checkpatch="$base/scripts/checkpatch.pl"
kvmgen_src="$tree/tools/perf/tests/kvm-events-gen"

# tests_run_kvmgen: whether the tree's shell tests run kvmgen
tests_run_kvmgen() {
	grep -qs kvmgen "$tree"/tools/perf/tests/shell/*.sh \
		"$tree"/tools/perf/tests/shell/lib/*
}

# build_kvmgen: the tree's kvmgen into OUT, if it links
build_kvmgen() {
	# shellcheck disable=SC2086
	gcc $kvmgen_flags -I"$tree/tools/include" -I"$tree/tools/include/uapi" \
		-I"$tree/tools/perf" -I"$tree/tools/lib/perf/include" \
		-o "$out/kvmgen" "$kvmgen_src"/*.c > "$out/kvmgen.log" 2>&1
}

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
	if tests_run_kvmgen && ! build_kvmgen; then
		grep -E 'error|undefined' "$out/kvmgen.log" | head -20
		echo "error: patch $i: its tests run kvmgen, which does not build: $subject" >&2
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
echo "  SERIES every prefix of the $nr patches builds, kvmgen too where tests run it, and checkpatch is clean"
