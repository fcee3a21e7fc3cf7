#!/bin/bash
# kvm-events: a recorded KVM guest shows exactly its port and MMIO accesses
# SPDX-License-Identifier: GPL-2.0

# The bundled guest (perf test -w kvmguest OUT IN WRITE READ) writes port
# 0x500 OUT times, reads port 0x501 IN times, writes GPA 0x80000 WRITE
# times and reads GPA 0x80010 READ times, then halts; each of these exits
# to the VMM.  Where the host emits no kvm_entry the accesses have no
# time, but they are all counted.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# samples_of FILE KEY: the Samples column of KEY's row
samples_of() {
	awk -v key="$2" '$1 == key { print $2 }' "$1"
}

expect_samples() {
	report=$1
	key=$2
	want=$3
	got=$(samples_of "$report" "$key")
	if [ "$got" != "$want" ]; then
		echo "FAIL: $key: ${got:-no row} samples, expected $want"
		cat "$report"
		err=1
	fi
}

# One CPU: on some hosts (seen on a PVM backend) a recording whose
# producer and consumer run on different CPUs gains duplicate samples
# and drops others without any PERF_RECORD_LOST.
if ! taskset -c 0 perf kvm-events record -q --event all -o "$dir/guest.data" -- \
		perf test -w kvmguest 7 5 4 3 > "$dir/record.log" 2>&1; then
	echo "FAIL: perf kvm-events record of the guest"
	cat "$dir/record.log"
	exit 1
fi

perf kvm-events report -i "$dir/guest.data" --event ioport > "$dir/ioport" || err=1
expect_samples "$dir/ioport" 0x500:POUT 7
expect_samples "$dir/ioport" 0x501:PIN 5
grep -q "^Total Samples:12," "$dir/ioport" || { echo "FAIL: ioport total"; err=1; }

perf kvm-events report -i "$dir/guest.data" --event mmio > "$dir/mmio" || err=1
expect_samples "$dir/mmio" 0x80000:W 4
expect_samples "$dir/mmio" 0x80010:R 3
grep -q "^Total Samples:7," "$dir/mmio" || { echo "FAIL: mmio total"; err=1; }

# Time in the VMM: each access and the final HLT returns to userspace;
# every return but the last comes back into KVM_RUN and has a time.
perf kvm-events report -i "$dir/guest.data" --event userspace > "$dir/userspace" || err=1
expect_samples "$dir/userspace" IO 12
expect_samples "$dir/userspace" MMIO 7
expect_samples "$dir/userspace" HLT 1
grep -q "^Samples without time:1 (no end event:1, no begin event:0)\.$" "$dir/userspace" ||
	{ echo "FAIL: userspace: only the HLT exit may lack a time"; cat "$dir/userspace"; err=1; }

# Recorded by perf kvm stat record or perf record -e 'kvm:*': the same keys.
upstream taskset -c 0 perf kvm stat record -q -o "$dir/stat.data" -- \
	perf test -w kvmguest 7 5 4 3 > /dev/null 2>&1 || err=1
taskset -c 0 perf record -q -e 'kvm:*' -o "$dir/all.data" -- \
	perf test -w kvmguest 7 5 4 3 > /dev/null 2>&1 || err=1
for data in "$dir/stat.data" "$dir/all.data"; do
	perf kvm-events report -i "$data" --event ioport > "$dir/other" || err=1
	expect_samples "$dir/other" 0x500:POUT 7
	expect_samples "$dir/other" 0x501:PIN 5
	perf kvm-events report -i "$data" --event mmio > "$dir/other" || err=1
	expect_samples "$dir/other" 0x80000:W 4
	expect_samples "$dir/other" 0x80010:R 3
done

# Through a pipe: the same keys and samples as from the file.  This is
# another run of the guest, so the times differ.
if ! taskset -c 0 perf kvm-events record -q -o - -- perf test -w kvmguest 7 5 4 3 2> /dev/null |
     perf kvm-events report -i - --event ioport > "$dir/pipe-ioport"; then
	echo "FAIL: perf kvm-events record -o - | perf kvm-events report -i -"
	err=1
fi
expect_samples "$dir/pipe-ioport" 0x500:POUT 7
expect_samples "$dir/pipe-ioport" 0x501:PIN 5
grep -q "^Total Samples:12," "$dir/pipe-ioport" || { echo "FAIL: pipe: ioport total"; err=1; }

exit $err
