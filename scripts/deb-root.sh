#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-root.sh DIR: make DIR/root a clean Debian 12 root, unless it is
# there already: debootstrap --variant=minbase bookworm from this
# machine's apt mirror (its /etc/apt/sources.list.d/debian.sources, or
# sources.list), with the same sources, and apt's lists.  Nothing else is
# installed in it: scripts/deb-check.sh installs the package and Debian's
# linux-perf into a copy of it, with apt-get.  Downloaded packages are
# kept in DIR/archives, outside the root, for the next run.
#
# Made beside DIR/root and then put in its place, so that a root cut
# short is never taken for a whole one.  Exits 3, saying why, when the
# root cannot be made.
set -u

mkdir -p "$1" && dir=$(cd "$1" && pwd) || exit 3
[ -x "$dir/root/usr/bin/apt-get" ] && [ -f "$dir/root/.deb-root-done" ] && exit 0

cannot() {
	echo "deb-root: cannot make the clean Debian 12 root: $*" >&2
	exit 3
}

"$(dirname "$0")/deps.sh" debootstrap || cannot "no debootstrap"
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
	sources=/etc/apt/sources.list.d/debian.sources
	mirror=$(awk '/^URIs:/ { print $2; exit }' "$sources")
elif [ -f /etc/apt/sources.list ]; then
	sources=/etc/apt/sources.list
	mirror=$(awk '$1 == "deb" { print $2; exit }' "$sources")
else
	cannot "no apt sources on this machine"
fi
[ -n "$mirror" ] || cannot "no mirror in $sources"

echo "  ROOT   debootstrap --variant=minbase bookworm $dir/root ($mirror)" >&2
new=$dir/root.new
rm -rf "$new" && mkdir -p "$new" "$dir/archives/partial" || cannot "no $new"
debootstrap --variant=minbase --cache-dir="$dir/archives" bookworm "$new" "$mirror" \
	> "$dir/debootstrap.log" 2>&1 ||
	{ tail -20 "$dir/debootstrap.log"; cannot "debootstrap failed (see $dir/debootstrap.log)"; }
rm -f "$new/etc/apt/sources.list"
cp "$sources" "$new/etc/apt/sources.list.d/" || cannot "cannot copy $sources"
mkdir -p "$new/usr/share/keyrings"
cp /usr/share/keyrings/debian-archive-keyring.gpg "$new/usr/share/keyrings/" 2> /dev/null
chroot "$new" apt-get update -qq > "$dir/apt-update.log" 2>&1 ||
	{ cat "$dir/apt-update.log"; cannot "apt-get update in the root failed"; }
chroot "$new" apt-get clean
touch "$new/.deb-root-done"
rm -rf "$dir/root" && mv "$new" "$dir/root" || cannot "no $dir/root"
