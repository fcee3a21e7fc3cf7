#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Make sure the Debian packages the build and the tests need are installed.
# As root, install what is missing; otherwise print the exact apt-get line.

# deps.sh [PACKAGE...]: those packages instead of the build's
# deps.sh --optional: what only some tests use, and skip without:
#   chromium   kvm-events-heatmap-browser.sh draws the --heatmap SVG with
#              it; about 350 MB, so make perf does not install it
# clang compiles the BPF programs (live --use-bpf) with the tree's libbpf
# and bpftool; without it perf still builds, and --use-bpf says why not.
OPTIONAL="chromium"
[ "${1:-}" = --optional ] && set -- $OPTIONAL
PKGS=${*:-gcc make flex bison pkg-config libtraceevent-dev libelf-dev zlib1g-dev xz-utils perl python3 clang}

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "error: missing packages; as root run: apt-get install -y$missing" >&2
	exit 1
fi
echo "  DEPS   installing:$missing"
apt-get update -qq >/dev/null || { echo "error: apt-get update failed" >&2; exit 1; }
apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
	{ echo "error: apt-get install -y$missing failed" >&2; exit 1; }
