#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lay-tree.sh BASE TREE
#
# Make TREE the base tree with our patch series applied and our own files
# laid on top.  The patched tree is rebuilt from BASE only when the series
# changed; our files are copied only when they differ, so that perf's make
# rebuilds no more than what was edited.
set -e

base=$1
tree=$2
top=$(cd "$(dirname "$0")/.." && pwd)
stamp="$tree/.series-applied"

patches=$(awk '$1 == "patch" || $1 == "final" { print $2 }' "$top/patches/series")
series_sum="$base $(cd "$top/patches" && cat $patches | cksum)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$series_sum" ]; then
	echo "  PATCH  $(echo $patches | wc -w) patches onto the base tree"
	rm -rf "$tree"
	# BASE's contents, not BASE: a symlinked BASE must not become TREE.
	mkdir -p "$tree"
	cp -a "$base/." "$tree/"
	for p in $patches; do
		patch -s -p1 -d "$tree" --no-backup-if-mismatch < "$top/patches/$p" ||
			{ echo "error: patches/$p does not apply to the base tree" >&2; exit 1; }
	done
	echo "$series_sum" > "$stamp"
fi

cd "$top"
git ls-files -co --exclude-standard tools | while read -r f; do
	[ -f "$f" ] || continue
	cmp -s "$f" "$tree/$f" 2>/dev/null && continue
	mkdir -p "$tree/$(dirname "$f")"
	cp "$f" "$tree/$f"
done
