#!/bin/bash
# kvm-events: the fast reader gives what perf's session code gives
# SPDX-License-Identifier: GPL-2.0

# The report reads the data section itself, in one thread or two, and
# falls back to perf_session__process_events() (--generic-reader) for what
# it does not handle.  Every statistic must be the same either way: on the
# generated recordings, on one written in per-CPU rounds as perf record
# writes them, and on a real recording from several CPUs.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
trap 'rm -rf "$dir"' EXIT
err=0

compare_readers() {
	data=$1

	for analysis in vmexit mmio ioport userspace msr hypercall; do
		opts="--event $analysis --json"
		perf kvm-events report -i "$data" $opts --generic-reader > "$dir/generic" ||
			{ echo "FAIL: $data: --generic-reader $opts"; err=1; continue; }
		for threads in 1 2; do
			perf kvm-events report -i "$data" $opts --threads $threads > "$dir/fast" ||
				{ echo "FAIL: $data: --threads $threads $opts"; err=1; continue; }
			if ! diff -u "$dir/generic" "$dir/fast" > "$dir/diff"; then
				echo "FAIL: $data: --threads $threads $opts differs from --generic-reader"
				head -40 "$dir/diff"
				err=1
			fi
		done
	done
}

for scenario in vmx svm vmx-old unpaired two-vms vmx-percpu; do
	data="$dir/$scenario.data"
	if ! perf test -w kvmgen "$data" "$scenario" 20000 > /dev/null 2>&1; then
		[ "$scenario" = vmx-percpu ] && continue
		echo "FAIL: perf test -w kvmgen $scenario"
		err=1
		continue
	fi
	compare_readers "$data"
done

# Larger than one window the reader maps (32 MiB): records across a
# window's end, and with two threads, the windows mapped ahead by a third.
data="$dir/large.data"
if perf test -w kvmgen "$data" vmx-percpu 120000 > /dev/null 2>&1; then
	compare_readers "$data"
else
	echo "FAIL: perf test -w kvmgen $data vmx-percpu 120000"
	err=1
fi
rm -f "$data"*

# A real recording, its events spread over the CPUs' buffers
if [ -c /dev/kvm ] && [ "$(id -u)" = 0 ] &&
   perf list 'kvm:kvm_pio' 2>/dev/null | grep -q kvm_pio &&
   perf kvm-events record -q -a -o "$dir/guest.data" -- \
	perf test -w kvmguest 300 300 300 300 > /dev/null 2>&1; then
	compare_readers "$dir/guest.data"
fi

exit $err
