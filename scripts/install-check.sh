#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-check.sh: make check's test of make install and make uninstall,
# on this host, into a folder of its own.  Each check prints "@pass WHAT"
# or "@fail WHAT" (scripts/check.sh counts them); it exits non-zero when
# one failed.
#
#  - make install DESTDIR=D lays out exactly the documented files (the
#    Makefile's list), with their modes, for the default prefix and for
#    prefix=/usr;
#  - the installed perf-kvm-events says the perf version and our commit,
#    runs as Debian's perf would run it (argv[0] perf-kvm-events), and
#    has no path into the build tree outside the BPF objects embedded in
#    it (their BTF line info names their sources; nothing opens those);
#  - the wrapper and the units name the installed paths, and
#    systemd-analyze verify passes on the units;
#  - make uninstall DESTDIR=D removes all it installed, and only that.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "$top/build/install-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
pass() { echo "@pass $*"; }
fail() { echo "@fail $*"; failed=1; }
cd "$top" || exit 1

commit=$(git rev-parse --short=12 HEAD)
git status --porcelain --untracked-files=no | grep -q . && commit=$commit-dirty
perf_version=$(./perf version | sed 's/^perf version //')

# layout D: "mode path" of each file and link under D
layout() { (cd "$1" && find . ! -type d -printf '%m %p\n' | LC_ALL=C sort -k2); }

# The documented files (the Makefile's header), for the default prefix
d=$work/local
mkdir -p "$d/keep/etc" && echo "not ours" > "$d/keep/etc/other"
make --no-print-directory install DESTDIR="$d/keep" > "$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "make install DESTDIR=..."; exit 1; }
LC_ALL=C sort -k2 > "$work/want" <<-EOF2
	644 ./etc/default/perf-kvm-events-exporter
	644 ./etc/other
	755 ./usr/local/bin/perf-kvm-events
	755 ./usr/local/lib/perf-kvm-events/perf-kvm-events-exporter
	644 ./usr/local/lib/systemd/system/perf-kvm-events-exporter.service
	644 ./usr/local/lib/systemd/system/perf-kvm-events-textfile.service
	644 ./usr/local/share/doc/perf-kvm-events/kvm-events-design.txt
	644 ./usr/local/share/man/man1/perf-kvm-events.1
EOF2
if layout "$d/keep" | cmp -s - "$work/want"; then
	pass "make install DESTDIR=... lays out exactly the 7 documented files"
else
	layout "$d/keep" | diff "$work/want" -
	fail "make install DESTDIR=... lays out exactly the documented files"
fi

bin=$d/keep/usr/local/bin/perf-kvm-events
got=$("$bin" --version 2>&1)
if [ "$got" = "perf kvm-events version $perf_version, commit $commit" ]; then
	pass "the installed perf-kvm-events --version: $got"
else
	echo "got: $got"
	fail "the installed perf-kvm-events --version says perf's version and commit $commit"
fi
# As Debian's perf runs it: perf-kvm-events on PATH, argv[0] its name
got=$(cd "$work" && PATH=$(dirname "$bin"):$PATH perf-kvm-events report -i /dev/null 2>&1 | head -1)
usage=$(PATH=$(dirname "$bin"):$PATH perf-kvm-events 2>&1 | grep -c 'perf kvm-events')
if [ "$usage" -ge 4 ]; then
	pass "perf-kvm-events runs its builtin kvm-events"
else
	echo "$got"
	fail "perf-kvm-events runs its builtin kvm-events"
fi

# Paths into the build tree: only inside the embedded BPF objects
# (ELF, e_machine EM_BPF, 247), whose BTF names their sources
if python3 - "$bin" "$top" <<-'EOF2'
	import re, sys
	data = open(sys.argv[1], "rb").read()
	bpf = []
	for m in re.finditer(rb"\x7fELF\x02\x01\x01", data):
	    if int.from_bytes(data[m.start() + 18:m.start() + 20], "little") == 247:
	        shoff = int.from_bytes(data[m.start() + 40:m.start() + 48], "little")
	        shnum = int.from_bytes(data[m.start() + 60:m.start() + 62], "little")
	        bpf.append((m.start(), m.start() + shoff + 64 * shnum))
	bad = [m.start() for m in re.finditer(re.escape(sys.argv[2].encode()), data)
	       if not any(s <= m.start() < e for s, e in bpf)]
	n = sum(1 for _ in re.finditer(re.escape(sys.argv[2].encode()), data))
	print(f"{n} in {len(bpf)} BPF objects, {len(bad)} elsewhere")
	sys.exit(1 if bad or not bpf else 0)
	EOF2
then
	pass "no build-tree path in perf-kvm-events but the BPF objects' BTF"
else
	fail "no build-tree path in perf-kvm-events but the BPF objects' BTF"
fi
if grep -q "^perf=/usr/local/bin/perf-kvm-events$" \
	"$d/keep/usr/local/lib/perf-kvm-events/perf-kvm-events-exporter" &&
   grep -q "^ExecStart=/usr/local/lib/perf-kvm-events/perf-kvm-events-exporter listen$" \
	"$d/keep/usr/local/lib/systemd/system/perf-kvm-events-exporter.service" &&
   ! grep -r -q '@[a-z]*dir@' "$d/keep"; then
	pass "the wrapper and the units name the installed paths"
else
	fail "the wrapper and the units name the installed paths"
fi

make --no-print-directory uninstall DESTDIR="$d/keep" > "$work/uninstall.log" 2>&1
if [ "$(layout "$d/keep")" = "644 ./etc/other" ] &&
   [ ! -e "$d/keep/usr/local/share/doc/perf-kvm-events" ] &&
   [ ! -e "$d/keep/usr/local/lib/perf-kvm-events" ]; then
	pass "make uninstall DESTDIR=... removes the 7 files and our 2 folders, and nothing else"
else
	layout "$d/keep"
	fail "make uninstall removes what make install installed"
fi

# prefix=/usr, the units in /lib/systemd/system (the package's layout):
# systemd-analyze verify, in a root with the host's systemd units, the
# page on its man path
d=$work/usr
make --no-print-directory install DESTDIR="$d" prefix=/usr unitdir=/lib/systemd/system \
	> "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "make install prefix=/usr"; }
mkdir -p "$d/usr/lib/systemd"
cp -a /usr/lib/systemd/system "$d/usr/lib/systemd/"
if out=$(MANPATH=$d/usr/share/man systemd-analyze verify --root="$d" \
	/lib/systemd/system/perf-kvm-events-exporter.service \
	/lib/systemd/system/perf-kvm-events-textfile.service 2>&1) && [ -z "$out" ]; then
	pass "systemd-analyze verify of the two units"
else
	echo "$out"
	fail "systemd-analyze verify of the two units"
fi
exit $failed
