#!/bin/bash
# kvm-events: record takes the tracepoints of the analyses asked for
# SPDX-License-Identifier: GPL-2.0

# By default record takes what vmexit, mmio and ioport read, as perf kvm
# stat record does; --event adds the other analyses'.  And no sample
# period: it is always 1, and costs the guest 8 bytes a sample.  A report of
# an analysis whose events were not recorded says so, and how to record
# them.  The tracepoints need not fire: the recording's attributes show
# what was asked for.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

events=/sys/kernel/tracing/events/kvm
if [ "$(id -u)" != 0 ] || [ ! -d $events/kvm_exit ]; then
	echo "skip: recording kvm tracepoints needs root and the x86 kvm tracepoints in tracefs"
	exit 2
fi

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# expected TRACEPOINT...: those of them this host has, sorted
expected() {
	for tp in "$@"; do
		[ -d "$events/$tp" ] && echo "kvm:$tp"
	done | LC_ALL=C sort
}

# check_record OPTIONS EXPECTED...
check_record() {
	opts=$1
	shift
	# shellcheck disable=SC2086
	if ! perf kvm-events record -q -a $opts -o "$dir/rec.data" -- sleep 0.1 \
		> /dev/null 2>&1; then
		echo "FAIL: perf kvm-events record $opts"
		err=1
		return
	fi
	perf evlist -i "$dir/rec.data" 2> /dev/null | grep '^kvm:' | LC_ALL=C sort > "$dir/got"
	expected "$@" > "$dir/want"
	if ! cmp -s "$dir/got" "$dir/want"; then
		echo "FAIL: record ${opts:-(default)} took:"
		cat "$dir/got"
		echo "expected:"
		cat "$dir/want"
		err=1
	fi
}

check_record "" kvm_exit kvm_entry kvm_mmio kvm_pio kvm_nested_vmexit \
	kvm_nested_vmexit_inject
cp "$dir/rec.data" "$dir/default.data"
check_record "--event userspace" kvm_exit kvm_entry kvm_userspace_exit kvm_fpu
cp "$dir/rec.data" "$dir/userspace.data"
check_record "--event=mmio,ioport" kvm_exit kvm_entry kvm_mmio kvm_pio
check_record "--event all" kvm_exit kvm_entry kvm_mmio kvm_pio kvm_msr \
	kvm_hypercall kvm_nested_vmexit kvm_nested_vmexit_inject kvm_vcpu_wakeup \
	kvm_halt_poll_ns kvm_userspace_exit kvm_fpu

# What each sample holds: what pairing needs, and the IP that perf record
# always adds; no period
types=$(perf evlist -v -i "$dir/default.data" 2> /dev/null |
	sed -n 's/^kvm:[a-z_0-9]*: .*sample_type: \([A-Z|]*\),.*/\1/p' | sort -u)
if [ "$types" != "IP|TID|TIME|CPU|RAW|IDENTIFIER" ]; then
	echo "FAIL: the default recording's samples hold: $types"
	err=1
fi

# Reports of what was not recorded
missing_line() {
	perf kvm-events report -i "$1" --event "$2" 2>&1 > /dev/null | grep "recorded without"
}
want="$dir/default.data: recorded without kvm_userspace_exit, which --event userspace reads;"
want="$want where the host has them, record with: perf kvm-events record --event userspace"
got=$(missing_line "$dir/default.data" userspace)
if [ "$got" != "$want" ]; then
	echo "FAIL: report --event userspace of a default recording said: $got"
	err=1
fi
want="$dir/userspace.data: recorded without kvm_mmio, which --event mmio reads;"
want="$want where the host has them, record with: perf kvm-events record --event mmio"
got=$(missing_line "$dir/userspace.data" mmio)
if [ "$got" != "$want" ]; then
	echo "FAIL: report --event mmio of a userspace recording said: $got"
	err=1
fi
if [ -n "$(missing_line "$dir/default.data" mmio)" ]; then
	echo "FAIL: report --event mmio of a default recording says events are missing"
	err=1
fi

# A recording killed with SIGKILL: its header says no data and has no
# features.  Its data runs to the end of the file and its tracepoints get
# this host's formats: the report reads it, with perf's warnings, and
# knows the kvm tracepoints.
perf kvm-events record -q -a -o "$dir/killed.data" -- sleep 30 > /dev/null 2>&1 &
sleep 2
pkill -KILL -f "kvm-events record -q -a -o $dir/killed.data"
wait 2> /dev/null
perf kvm-events report -i "$dir/killed.data" > "$dir/killed.out" 2> "$dir/killed.err"
rc=$?
nodata="has no tracing data: the tracepoint formats of this host are used"
if [ $rc -ne 0 ] || ! grep -q "$nodata" "$dir/killed.err" ||
   ! grep -q "^No vmexit samples; kvm events read: " "$dir/killed.out"; then
	echo "FAIL: a killed recording (exit $rc):"
	cat "$dir/killed.err" "$dir/killed.out"
	err=1
fi

exit $err
