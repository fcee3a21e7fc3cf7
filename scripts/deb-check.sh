#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check.sh [-k 6.12|6.1]: make check's test of the package on a clean
# Debian 12 machine.  Each check prints "@pass WHAT" or "@fail WHAT"
# (scripts/check.sh counts them); it exits non-zero when one failed.
#
#  1. make deb builds the package (scripts/deb.sh: dpkg-shlibdeps' Depends,
#     lintian without error).
#  2. A clean Debian 12 root (scripts/deb-root.sh: debootstrap
#     --variant=minbase, cached in build/vm/deb-root) is put, read only,
#     under an overlay of this run's; in it, by chroot, apt-get installs
#     Debian's linux-perf and man-db, then our package (./perf-kvm-events_*.deb):
#     it must lay out exactly the documented files (those of make install
#     with prefix=/usr, the units in /lib/systemd/system, plus the
#     copyright and changelog), and leave every file of linux-perf as that
#     package has it (dpkg --verify), sharing none.
#  3. That root boots as the x86 test machine's (scripts/vm.sh -r), on
#     Debian's 6.12 kernel's KVM, where scripts/deb-check-vm.sh checks
#     Debian's perf kvm-events on the bundled guest, --version, the man
#     page and the exporter's unit's command.
#  4. apt-get purge perf-kvm-events leaves the root's files as they were
#     before it was installed, and no file named after it.
#
# apt's downloads are kept in build/vm/deb-root/archives for the next run.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.12
[ "${1:-}" = -k ] && kernel=$2
cache=$top/build/vm/deb-root
failed=0
pass() { echo "@pass $*"; }
fail() { echo "@fail $*"; failed=1; }

cd "$top" || exit 1
deb=$(make --no-print-directory deb 2>&1 | tee "$top/build/deb-check-make.log" | tail -n 1)
if [ ! -f "$deb" ]; then
	cat "$top/build/deb-check-make.log"
	fail "make deb"
	exit 1
fi
pass "make deb: $(basename "$deb"), lintian without error ($(grep -c ': W: ' "$top/build/deb/amd64/lintian.log") warnings)"
version=$(dpkg-deb -f "$deb" Version)
perf_version=${version%%+git*}
commit=${version#*+git*.}
commit=${commit%+dirty}
git status --porcelain --untracked-files=no | grep -q . && commit=$commit-dirty

scripts/deb-root.sh "$cache" || { fail "the clean Debian 12 root (scripts/deb-root.sh)"; exit 1; }

work=$(mktemp -d "$top/build/vm/deb-check.XXXXXX")
root=$work/root
mounts=""
cleanup() {
	local m
	for m in $mounts; do
		umount "$m" 2> /dev/null || umount -l "$m"
	done
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/upper" "$work/ovl-work" "$root" "$work/share"
mount -t overlay overlay -o "lowerdir=$cache/root,upperdir=$work/upper,workdir=$work/ovl-work" \
	"$root" || { fail "an overlay over the clean root"; exit 1; }
mounts="$root"
# chroot ROOT's apt-get, with the cached downloads, /proc and /dev
chroot_mounts() {
	mount -t proc proc "$root/proc" && mounts="$root/proc $mounts" &&
	mount --bind /dev "$root/dev" && mounts="$root/dev $mounts" &&
	mount --bind "$cache/archives" "$root/var/cache/apt/archives" &&
	mounts="$root/var/cache/apt/archives $mounts"
}
chroot_umounts() {
	local m
	for m in $mounts; do
		[ "$m" = "$root" ] && continue
		umount "$m"
	done
	mounts=$root
}
in_root() {
	chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
# files: the root's files and links, but those that apt, dpkg and man-db
# keep of their own (their state, caches and logs) and the mounts
files() {
	(cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp \
		-o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache \
		-o -path ./var/log -o -path ./sys -o -path ./run \) -prune -o \
		\( -type f -o -type l \) -print) | LC_ALL=C sort
}

chroot_mounts || { fail "the chroot's mounts"; exit 1; }
if in_root apt-get install -y -q --no-install-recommends linux-perf man-db \
	> "$work/apt-perf.log" 2>&1; then
	pass "apt-get install linux-perf man-db in the clean root ($(in_root dpkg-query -W -f '${Version}' linux-perf))"
else
	tail -20 "$work/apt-perf.log"
	fail "apt-get install linux-perf man-db in the clean root"
	exit 1
fi
# packages: the root's installed packages
packages() { in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }' | LC_ALL=C sort; }
# canon: the paths of dpkg -L on standard input that are no folders, as
# files() gives them (through the merged /usr's links: /lib is usr/lib)
canon() {
	local f d
	while read -r f; do
		[ -d "$root$f" ] && continue
		d=$(readlink -f "$root$(dirname "$f")")
		echo ".${d#"$root"}/$(basename "$f")"
	done | LC_ALL=C sort
}
files > "$work/before"
packages > "$work/packages-before"
cp "$deb" "$root/tmp/"
if in_root apt-get install -y -q --no-install-recommends "/tmp/$(basename "$deb")" \
	> "$work/apt-deb.log" 2>&1; then
	pass "apt-get install ./$(basename "$deb") beside linux-perf"
else
	tail -20 "$work/apt-deb.log"
	fail "apt-get install ./$(basename "$deb") beside linux-perf"
	exit 1
fi
rm -f "$root/tmp/$(basename "$deb")"
files > "$work/installed"

# Exactly the documented files; all that the install added are those of
# the packages it installed (ours, and the libraries of its Depends that
# linux-perf did not bring), and it removed none
LC_ALL=C sort > "$work/want" <<-EOF2
	./etc/default/perf-kvm-events-exporter
	./usr/bin/perf-kvm-events
	./usr/lib/perf-kvm-events/perf-kvm-events-exporter
	./usr/lib/systemd/system/perf-kvm-events-exporter.service
	./usr/lib/systemd/system/perf-kvm-events-textfile.service
	./usr/share/doc/perf-kvm-events/changelog.gz
	./usr/share/doc/perf-kvm-events/copyright
	./usr/share/doc/perf-kvm-events/kvm-events-design.txt
	./usr/share/man/man1/perf-kvm-events.1.gz
EOF2
in_root dpkg-query -L perf-kvm-events | canon > "$work/ours"
new_pkgs=$(packages | LC_ALL=C comm -13 "$work/packages-before" -)
for p in $new_pkgs; do
	in_root dpkg-query -L "$p"
done | canon > "$work/new-files"
if cmp -s "$work/ours" "$work/want" &&
   LC_ALL=C comm -13 "$work/before" "$work/installed" | cmp -s - "$work/new-files" &&
   LC_ALL=C comm -23 "$work/before" "$work/installed" | cmp -s - /dev/null; then
	pass "the package installs exactly the $(wc -l < "$work/want") documented files" \
		"(and its Depends' $(echo $new_pkgs | wc -w) packages theirs), removes none"
else
	diff "$work/want" "$work/ours"
	LC_ALL=C comm -13 "$work/before" "$work/installed" | diff - "$work/new-files"
	fail "the package installs exactly the documented files"
fi
in_root dpkg-query -L linux-perf | canon > "$work/theirs"
shared=$(LC_ALL=C comm -12 "$work/theirs" "$work/ours")
if out=$(in_root dpkg --verify linux-perf 2>&1) && [ -z "$out" ] && [ -z "$shared" ]; then
	pass "linux-perf's $(wc -l < "$work/theirs") files unchanged (dpkg --verify), none shared with ours"
else
	echo "$out"; echo "shared: $shared"
	fail "linux-perf's files unchanged and not shared"
fi
chroot_umounts

# The machine, with the root as it is now
cp scripts/deb-check-vm.sh "$work/share/"
(cd / && "$top/scripts/vm.sh" -k "$kernel" -r "$root" -w "$work/share" -t 900 -- \
	bash "$work/share/deb-check-vm.sh" "$perf_version" "$commit") > "$work/vm.log" 2>&1
status=$?
cat "$work/vm.log"
grep -q '^@fail ' "$work/vm.log" && failed=1
if [ $status != 0 ] || ! grep -q '^@pass ' "$work/vm.log"; then
	fail "the clean root's test machine (scripts/vm.sh -r: exit $status)"
fi

# purge: the root's files as before the package
chroot_mounts || { fail "the chroot's mounts"; exit 1; }
if in_root apt-get purge -y -q --autoremove perf-kvm-events > "$work/apt-purge.log" 2>&1; then
	files > "$work/purged"
	left=$(find "$root" -xdev -name '*perf-kvm-events*' | sed "s|^$root||")
	if cmp -s "$work/before" "$work/purged" && [ -z "$left" ]; then
		pass "apt-get purge --autoremove perf-kvm-events leaves the root's files as before, none of ours"
	else
		diff "$work/before" "$work/purged"
		echo "$left"
		fail "apt-get purge perf-kvm-events leaves no file of ours"
	fi
else
	tail -20 "$work/apt-purge.log"
	fail "apt-get purge perf-kvm-events"
fi
chroot_umounts
exit $failed
