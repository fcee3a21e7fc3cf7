#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# base-tree.sh DEST [KSRC]
#
# Put the pristine part of a 6.12 kernel tree that perf needs into DEST:
# what tools/perf/MANIFEST lists, the top-level Makefile and checkpatch.
# Without KSRC the tree comes from Debian's linux-source-6.12 package; with
# KSRC it is copied from the user's tree, which is never written to.
set -e

dest=$1
ksrc=$2
extra="Makefile scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch"

rm -rf "$dest" "$dest.tmp"
mkdir -p "$dest.tmp"

if [ -n "$ksrc" ]; then
	[ -f "$ksrc/tools/perf/MANIFEST" ] ||
		{ echo "error: KSRC=$ksrc: no tools/perf/MANIFEST, not a kernel tree" >&2; exit 1; }
	(cd "$ksrc" && tar -cf - $(cat tools/perf/MANIFEST) $extra) | tar -xf - -C "$dest.tmp"
	version=KSRC
else
	dl="$dest.dl"
	mkdir -p "$dl"
	if ! ls "$dl"/linux-source-6.12_*.deb >/dev/null 2>&1; then
		echo "  FETCH  linux-source-6.12"
		(cd "$dl" && apt-get download linux-source-6.12 >/dev/null 2>&1) ||
		(apt-get update -qq >/dev/null 2>&1 && cd "$dl" && apt-get download linux-source-6.12 >/dev/null) ||
			{ echo "error: apt-get download linux-source-6.12 failed; set KSRC=/path/to/linux-6.12" >&2; exit 1; }
	fi
	deb=$(ls "$dl"/linux-source-6.12_*.deb | tail -n 1)
	echo "  EXTRACT $(basename "$deb")"
	top=linux-source-6.12
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/src/linux-source-6.12.tar.xz > "$dl/src.tar.xz"
	xz -dc "$dl/src.tar.xz" | tar -xf - -C "$dest.tmp" "$top/tools/perf/MANIFEST"
	xz -dc "$dl/src.tar.xz" | tar -xf - -C "$dest.tmp" --wildcards \
		--no-wildcards-match-slash \
		$(sed "s|^|$top/|" "$dest.tmp/$top/tools/perf/MANIFEST") \
		$(for f in $extra; do echo "$top/$f"; done)
	rm -f "$dl/src.tar.xz"
	mv "$dest.tmp/$top"/* "$dest.tmp/"
	rmdir "$dest.tmp/$top"
	version=$(dpkg-deb -f "$deb" Version)
fi
# Not a git tree: PERF-VERSION-GEN takes the version from this file.
kv=$(awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 }
	/^SUBLEVEL =/ { s = $3 } END { print v "." p "." s }' "$dest.tmp/Makefile")
echo "#define PERF_VERSION \"$kv\"" > "$dest.tmp/PERF-VERSION-FILE"
echo "$version" > "$dest.tmp/.base-version"
mv "$dest.tmp" "$dest"
