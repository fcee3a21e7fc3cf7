#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh ARCH PERF OUTDIR: the Debian package perf-kvm-events of the perf
# binary PERF (ARCH: amd64, or arm64 for make perf-arm64's), in OUTDIR,
# checked by lintian.  make deb and make deb-arm64 run it.
#
# The package is what make install lays out with prefix=/usr and the
# units in /lib/systemd/system (bookworm's place for a package's units),
# into OUTDIR/ARCH/root (its binary stripped), with what Debian's policy
# adds: the man page compressed, the copyright file, the changelog, the
# md5sums, and the maintainer scripts of packaging/debian (systemd is
# told of the units; they are not enabled).  dpkg-shlibdeps gives the
# Depends from the binary, dpkg-deb builds it (root-owned, xz).
#
# Its version is perf's and our commit's: PERF_VERSION+gitN.SHA, N the
# number of commits up to SHA so that a later commit's package is newer
# to dpkg (6.12.118+git327.5dc056551fb8); +dirty when a tracked file was
# changed.  It prints the package's path on its last line.
set -eu

arch=$1
perf=$2
mkdir -p "$3" && out=$(cd "$3" && pwd) || exit 1
top=$(cd "$(dirname "$0")/.." && pwd)
pkg=$top/packaging/debian

"$top/scripts/deps.sh" --packaging || exit 1
case $arch in
amd64) cross="" ;;
arm64) cross=aarch64-linux-gnu- ;;
*) echo "deb.sh: ARCH is amd64 or arm64, not '$arch'" >&2; exit 2 ;;
esac

perf=$(readlink -f "$perf")
perf_version=$(sed -n 's/^#define PERF_VERSION "\(.*\)"/\1/p' "$(dirname "$perf")/PERF-VERSION-FILE")
[ -n "$perf_version" ] || { echo "deb.sh: no PERF-VERSION-FILE beside $perf" >&2; exit 1; }
commit=$(git -C "$top" rev-parse --short=12 HEAD)
count=$(git -C "$top" rev-list --count HEAD)
dirty=""
git -C "$top" status --porcelain --untracked-files=no | grep -q . && dirty=+dirty
version=$perf_version+git$count.$commit$dirty
maintainer=${DEB_MAINTAINER:-$(git -C "$top" log -1 --format='%an <%ae>')}
# The commit's date, for the changelog and the files' times
epoch=$(git -C "$top" log -1 --format=%ct)
export SOURCE_DATE_EPOCH=$epoch

work=$out/$arch
root=$work/root
rm -rf "$work" && mkdir -p "$root" || exit 1
make -C "$top" --no-print-directory install DESTDIR="$root" prefix=/usr \
	unitdir=/lib/systemd/system INSTALL_PERF="$perf" OBJCOPY="${cross}objcopy" \
	> "$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }

doc=$root/usr/share/doc/perf-kvm-events
gzip -9n "$root/usr/share/man/man1/perf-kvm-events.1"
subst() {
	sed -e "s|@VERSION@|$version|g" -e "s|@ARCH@|$arch|g" \
		-e "s|@MAINTAINER@|$maintainer|g" -e "s|@PERF_VERSION@|$perf_version|g" \
		-e "s|@COMMIT@|${commit}${dirty:+ (with changes)}|g" \
		-e "s|@DATE@|$(date -R -u -d "@$epoch")|g" "$@"
}
subst "$pkg/copyright.in" > "$doc/copyright"
subst "$pkg/changelog.in" | gzip -9n > "$doc/changelog.gz"

# dpkg-shlibdeps reads debian/control of a source folder
mkdir -p "$work/src/debian" "$root/DEBIAN"
printf 'Source: perf-kvm-events\n\nPackage: perf-kvm-events\nArchitecture: %s\n' \
	"$arch" > "$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-architecture -a"$arch" -c \
	dpkg-shlibdeps -O "-e$root/usr/bin/perf-kvm-events" 2> "$work/shlibdeps.log" |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { cat "$work/shlibdeps.log"; echo "deb.sh: dpkg-shlibdeps gave no Depends" >&2; exit 1; }

cp "$pkg/conffiles" "$root/DEBIAN/"
install -m 755 "$pkg/postinst" "$pkg/prerm" "$pkg/postrm" "$root/DEBIAN/"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
subst "$pkg/control.in" | sed -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" \
	> "$root/DEBIAN/control"
# md5sums, for dpkg --verify and debsums: every file but the conffile
(cd "$root" && find . -type f ! -path ./DEBIAN/\* ! -path ./etc/\* -printf '%P\0' |
	LC_ALL=C sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
find "$root" -newermt "@$epoch" -exec touch -h -d "@$epoch" {} +

deb=$out/perf-kvm-events_${version}_$arch.deb
rm -f "$out"/perf-kvm-events_*_"$arch".deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" > /dev/null || exit 1

# lintian: no error; its warnings are printed.  A warning accepted goes,
# with why, into packaging/debian/lintian-accepted (none is, today).
if ! lintian --fail-on error --suppress-tags-from-file "$pkg/lintian-accepted" \
	"$deb" > "$work/lintian.log" 2>&1; then
	cat "$work/lintian.log"
	echo "deb.sh: lintian found errors in $deb" >&2
	exit 1
fi
sed 's/^/  lintian: /' "$work/lintian.log"
echo "  DEB    $deb (Depends: $depends)"
echo "$deb"
