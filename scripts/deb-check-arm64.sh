#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check-arm64.sh: make check's test of the arm64 package.  Each check
# prints "@pass WHAT" or "@fail WHAT"; it exits non-zero when one failed.
#
# make deb-arm64 builds it from make perf-arm64's perf (lintian without
# error), with the same 9 files as the amd64 one.  The arm64 test
# machine's root is no dpkg system (scripts/vm-arm64-root.sh unpacks
# packages, runs no maintainer script), so the package is unpacked with
# dpkg-deb -x, not installed by apt: its perf-kvm-events runs there, from
# the unpacked folder, says the perf version and the commit, and records
# and reports the bundled arm64 guest (9 MMIO writes, 7 reads, 5
# PSCI_VERSION calls, 3 trapped OSLSR_EL1 reads, then its final store),
# exactly in the mmio and hypercall analyses.  The arm64 perf has no
# metrics server (make perf-arm64: NO_LIBMICROHTTPD=1), so of the two
# units only the textfile one works on it.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
failed=0
pass() { echo "@pass $*"; }
fail() { echo "@fail $*"; failed=1; }
cd "$top" || exit 1

deb=$(make --no-print-directory deb-arm64 2>&1 | tee "$top/build/deb-check-arm64-make.log" | tail -n 1)
if [ ! -f "$deb" ]; then
	cat "$top/build/deb-check-arm64-make.log"
	fail "make deb-arm64"
	exit 1
fi
pass "make deb-arm64: $(basename "$deb"), lintian without error"
version=$(dpkg-deb -f "$deb" Version)
commit=${version#*+git*.}
commit=${commit%+dirty}
git status --porcelain --untracked-files=no | grep -q . && commit=$commit-dirty

got=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | LC_ALL=C sort | tr '\n' ' ')
want="./etc/default/perf-kvm-events-exporter ./lib/systemd/system/perf-kvm-events-exporter.service ./lib/systemd/system/perf-kvm-events-textfile.service ./usr/bin/perf-kvm-events ./usr/lib/perf-kvm-events/perf-kvm-events-exporter ./usr/share/doc/perf-kvm-events/changelog.gz ./usr/share/doc/perf-kvm-events/copyright ./usr/share/doc/perf-kvm-events/kvm-events-design.txt ./usr/share/man/man1/perf-kvm-events.1.gz "
if [ "$got" = "$want" ]; then
	pass "the arm64 package holds the 9 documented files"
else
	echo "got: $got"
	fail "the arm64 package holds the 9 documented files"
fi

work=$(mktemp -d "$top/build/deb-check-arm64.XXXXXX")
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$deb" "$work/root" || { fail "dpkg-deb -x $deb"; exit 1; }
mkdir -p "$work/link" && ln -s ../root/usr/bin/perf-kvm-events "$work/link/perf"
cat > "$work/run.sh" <<-EOF2
	#!/bin/bash
	# in the arm64 machine: perf-kvm-events of the unpacked package
	export PATH=$work/root/usr/bin:\$PATH
	echo "version: \$(perf-kvm-events --version 2>&1)"
	perf-kvm-events record -q --event all -o /tmp/guest.data -- \\
		$work/link/perf test -w kvmguest 9 7 5 3 > /tmp/record.log 2>&1 ||
		{ echo "record failed:"; cat /tmp/record.log; }
	for e in mmio hypercall; do
		perf-kvm-events report -i /tmp/guest.data --event \$e 2>&1 |
			awk -v e=\$e '\$2 ~ /^[0-9]+\$/ && \$3 ~ /%\$/ {
				k = \$1; sub(/\\/.*/, "", k); print "row:", e, k, \$2 }'
	done
EOF2
(cd "$top" && scripts/vm.sh -a arm64 -t 600 -- bash "$work/run.sh") > "$work/vm.log" 2>&1
status=$?
want="perf kvm-events version $(dpkg-deb -f "$deb" Version | sed 's/+git.*//'), commit $commit"
if grep -q -x -F "version: $want" "$work/vm.log"; then
	pass "the arm64 package's perf-kvm-events --version in the arm64 machine: $want"
else
	cat "$work/vm.log"
	fail "the arm64 package's perf-kvm-events --version (scripts/vm.sh: exit $status)"
fi
got=$(sed -n 's/^row: //p' "$work/vm.log" | tr '\n' ' ')
want="mmio 0x20000000:W 9 mmio 0x20000010:R 7 mmio 0x20000020:W 1 hypercall 0x84000000 5 "
if [ "$got" = "$want" ]; then
	pass "the arm64 package's record and report of the arm64 guest: $got"
else
	cat "$work/vm.log"
	fail "the arm64 package's record and report of the arm64 guest: ${got:-nothing}"
fi
exit $failed
