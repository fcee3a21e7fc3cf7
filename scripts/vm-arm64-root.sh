#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-arm64-root.sh DIR: make DIR/root the arm64 userland of vm.sh's arm64
# test machine, unless it is there already for the same package list
#
# The arm64 machine cannot run the host's x86 binaries, so it cannot take
# the host's root as the x86 machine does.  Its root is instead a few of
# Debian's arm64 packages, fetched with apt-get download and
# unpacked with dpkg-deb -x: a shell and the tools the shell tests call,
# python3 for their checker, and the libraries the arm64 perf links.  No
# package is installed and no maintainer script runs, so what only those
# scripts need (dpkg, debconf, perl) is left out, and what they would have
# made (the awk alternative, the merged /usr) is made here.
#
# The dependencies are resolved with apt-cache, Depends and Pre-Depends
# only, the first of each set of alternatives.  DIR/packages lists the
# packages asked for: the root is made again only when that list changes.
# Exits 3, saying why, when the root cannot be made.
set -u

dir=$1

# bash, dash (sh), coreutils ... util-linux (unshare, taskset, setpriv), mount
# (umount), libc-bin (getconf, ldd): what the tests run.  libelf1,
# libtraceevent1 and zlib1g: what perf links besides libc.
WANT="bash dash coreutils grep sed mawk findutils diffutils procps util-linux
	mount libc-bin python3-minimal libpython3.11-stdlib
	libelf1 libtraceevent1 zlib1g"
# Needed only by maintainer scripts, which are not run.
SKIP="dpkg debconf cdebconf debconf-2.0 perl-base install-info
	init-system-helpers usrmerge usr-is-merged"

cannot() {
	echo "test machine: cannot make the arm64 root: $*" >&2
	exit 3
}

want=$(echo $WANT)
if [ -f "$dir/packages" ] && [ "$(cat "$dir/packages")" = "$want" ] &&
   [ -x "$dir/root/usr/bin/bash" ]; then
	exit 0
fi

# resolve PKG...: the arm64 PKGs and their dependencies, one a line, as
# apt names them: PKG:arm64, or PKG alone for an arch-all package.
resolve() {
	local queue="" seen=" " p
	for p in "$@"; do
		queue="$queue $p:arm64"
	done
	while [ -n "$queue" ]; do
		for p in $queue; do
			seen="$seen${p%:arm64} "
			echo "$p"
		done
		# "  Depends: libc6:arm64", " |Depends: <debconf:arm64>" and
		# then the providers of that virtual package, indented.  A
		# line with | has the next line as its alternative.
		queue=$(apt-cache depends --no-recommends --no-suggests \
			--no-conflicts --no-breaks --no-replaces --no-enhances \
			$queue 2> /dev/null | awk '
			/^ [ |](Pre)?Depends: / {
				first = !group
				group = ($1 ~ /^\|/)
				virt = 0
				if (first && $2 ~ /^</)
					virt = 1
				else if (first)
					print $2
				next
			}
			/^    / { if (virt) print $1; virt = 0; next }
			/^[^ ]/ { group = 0; virt = 0 }' | sort -u |
			while read -r p; do
				case "$seen $SKIP " in
				*" ${p%:arm64} "*) ;;
				*) echo "$p" ;;
				esac
			done)
		queue=$(echo $queue)
	done
}

echo "  VM     making the arm64 root in $dir" >&2
list=$(resolve $WANT | sort -u)
[ -n "$list" ] || cannot "apt-cache resolved no package (run apt-get update)"

# Made beside DIR and then put in its place, so that a root cut short
# is never taken for a whole one.
new=$dir.new
rm -rf "$new" && mkdir -p "$new/debs" "$new/root" || cannot "no $new"
(cd "$new/debs" && apt-get download -q $list > /dev/null 2>&1) ||
	cannot "apt-get download failed:" $list
for deb in "$new"/debs/*.deb; do
	dpkg-deb -x "$deb" "$new/root" || cannot "dpkg-deb -x $deb failed"
done
rm -rf "$new/debs"

# The merged /usr that bookworm's installer makes: /bin/bash and
# /usr/bin/bash are the same, as on the host.
r=$new/root
for d in bin sbin lib; do
	[ -d "$r/$d" ] && [ ! -L "$r/$d" ] || continue
	mkdir -p "$r/usr/$d"
	cp -a "$r/$d/." "$r/usr/$d/" && rm -rf "${r:?}/$d" || cannot "merging /$d"
	ln -s "usr/$d" "$r/$d"
done
for d in bin sbin lib; do
	[ -e "$r/$d" ] || ln -s "usr/$d" "$r/$d"
done
# What update-alternatives and base-files would make.
ln -sf mawk "$r/usr/bin/awk"
[ -e "$r/usr/bin/sh" ] || ln -s dash "$r/usr/bin/sh"
mkdir -p "$r"/{proc,sys,dev,tmp,host,run,mnt,etc} && chmod 1777 "$r/tmp"
echo 'root:x:0:0:root:/root:/bin/bash' > "$r/etc/passwd"
echo 'root:x:0:' > "$r/etc/group"
echo "$want" > "$new/packages"
rm -rf "$dir" && mv "$new" "$dir" || cannot "no $dir"
