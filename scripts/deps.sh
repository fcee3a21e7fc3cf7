#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Make sure the Debian packages the build and the tests need are installed.
# As root, install what is missing; otherwise print the exact apt-get line.

# deps.sh [PACKAGE...]: those packages instead of the build's
# deps.sh --optional: what only some tests use, and skip without:
#   chromium   kvm-events-heatmap-browser.sh draws the --heatmap SVG with
#              it; about 350 MB, so make perf does not install it
# deps.sh --arm64: what make perf-arm64 cross-builds with: the arm64 gcc
#   and libc, and the arm64 builds of the libraries perf links
# A package named PKG:arm64 is the arm64 build of PKG, installed beside the
# host's: dpkg is told of the foreign architecture first, and the archive
# is asked again for its arm64 lists.
# libslang2-dev gives --tui its terminal.
# deps.sh --check: what make check's tests use, and skip without: tmux
#   drives the browser; Prometheus and node_exporter scrape the metrics
# clang compiles the BPF programs (live --use-bpf) with the tree's libbpf
# and bpftool; without it perf still builds, and --use-bpf says why not.
# deps.sh --packaging: what make install, make deb and make check's test
#   of the package use: asciidoctor makes the man page, dpkg-dev
#   (dpkg-shlibdeps) and lintian the package, binutils' objcopy writes
#   our commit into the installed perf, debootstrap the clean Debian root
#   the package is installed into
OPTIONAL="chromium"
PACKAGING="asciidoctor dpkg-dev lintian binutils debootstrap"
CHECK="tmux prometheus prometheus-node-exporter"
ARM64="gcc-aarch64-linux-gnu libc6-dev-arm64-cross libelf-dev:arm64
	libtraceevent-dev:arm64 zlib1g-dev:arm64"
[ "${1:-}" = --optional ] && set -- $OPTIONAL
[ "${1:-}" = --check ] && set -- $CHECK
[ "${1:-}" = --arm64 ] && set -- $ARM64
[ "${1:-}" = --packaging ] && set -- $PACKAGING
PKGS=${*:-gcc make flex bison pkg-config libtraceevent-dev libelf-dev zlib1g-dev libslang2-dev libmicrohttpd-dev libgnutls28-dev libyaml-dev xz-utils perl python3 clang}

# missing_packages: those of PKGS that are not installed, into $missing
missing_packages() {
	missing=""
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
}

missing_packages
[ -z "$missing" ] && exit 0
# make check's lanes may ask at once (the test machines run side by
# side), and apt-get takes one install at a time: the others wait, then
# find what the first installed.
if [ "$(id -u)" = 0 ] && command -v flock > /dev/null; then
	exec 9> /tmp/kvm-events-deps.lock && flock 9
	missing_packages
	[ -z "$missing" ] && exit 0
fi

add_arch=""
case $missing in
*:arm64*)
	dpkg --print-foreign-architectures | grep -qx arm64 || add_arch=arm64
	;;
esac

if [ "$(id -u)" != 0 ]; then
	if [ -n "$add_arch" ]; then
		echo "error: missing packages; as root run: dpkg --add-architecture arm64 &&" \
			"apt-get update && apt-get install -y$missing" >&2
	else
		echo "error: missing packages; as root run: apt-get install -y$missing" >&2
	fi
	exit 1
fi
echo "  DEPS   installing:$missing"
if [ -n "$add_arch" ]; then
	dpkg --add-architecture "$add_arch" ||
		{ echo "error: dpkg --add-architecture $add_arch failed" >&2; exit 1; }
fi
apt-get update -qq >/dev/null || { echo "error: apt-get update failed" >&2; exit 1; }
apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
	{ echo "error: apt-get install -y$missing failed" >&2; exit 1; }
