#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# series.sh BASE OUT
#
# Write our work as a patch series that `git am` applies to the base
# tree: each patch of patches/ with our own files that patches/series
# folds into it, as it would be mailed to the perf maintainers.
set -e

base=$1
out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
repo="$out.git"

rm -rf "$repo" "$out"
mkdir -p "$repo/tools"
cp -a "$base/tools/perf" "$repo/tools/perf"
cd "$repo"
git init -q
git add -A
git -c user.name=base -c user.email=base@localhost commit -q -m base

folded=""
grep -v '^#' "$top/patches/series" | while read -r patch files; do
	git am -q "$top/patches/$patch" ||
		{ echo "error: patches/$patch does not apply with git am" >&2; exit 1; }
	for f in $(cd "$top" && echo $files); do
		[ -f "$top/$f" ] || continue
		mkdir -p "$(dirname "$f")"
		cp "$top/$f" "$f"
		git add "$f"
	done
	git commit -q --amend --no-edit
done

# Every file of ours must be in some patch.
(cd "$top" && git ls-files -co --exclude-standard tools) | while read -r f; do
	git cat-file -e "HEAD:$f" 2>/dev/null ||
		{ echo "error: $f is in no patch; list it in patches/series" >&2; exit 1; }
done

git format-patch -q --binary --no-signature -o "$out" HEAD~$(grep -vc '^#' "$top/patches/series")
echo "  SERIES $out: $(ls "$out" | wc -l) patches"
