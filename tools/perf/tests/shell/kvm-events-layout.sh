#!/bin/bash
# kvm-events: generated recordings are laid out as perf record lays them out
# SPDX-License-Identifier: GPL-2.0

# kvmgen writes the attributes perf record gives the kvm tracepoints.
# Its default layout must be that of 'perf record -R -c 1 -e ... -p
# PID', as perf kvm stat record lays its samples out, with their period
# (perf kvm-events record leaves it out, and the guest tests read what
# it writes for real), and +system-wide that of the same with -a (which
# adds perf's dummy:u tracking event, and so PERF_SAMPLE_IDENTIFIER):
# every event line of 'perf report --header-only' the same but for the
# ids and the tracepoint number, which are the host's.  The tracepoints
# need not fire: the attributes are set up when the recording starts.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen

if [ "$(id -u)" != 0 ] || ! perf list 'kvm:kvm_exit' 2>/dev/null | grep -q kvm_exit; then
	echo "skip: recording kvm tracepoints needs root and the kvm tracepoints in tracefs"
	exit 2
fi

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# event_lines FILE: one line per event, without its ids and config
event_lines() {
	perf report --header-only -i "$1" 2>/dev/null |
		sed -n 's/^# event : //p' |
		sed -e 's/id = { [0-9, ]* }, //' -e 's/config = [^,]*, //' |
		LC_ALL=C sort
}

compare_layout() {
	real=$1
	modifier=$2

	if ! "$KVMGEN" "$dir/gen.data" "vmx$modifier" 100 > /dev/null 2>&1; then
		echo "FAIL: kvmgen vmx$modifier"
		err=1
		return
	fi
	event_lines "$real" > "$dir/real.events"
	event_lines "$dir/gen.data" > "$dir/gen.events"
	if [ ! -s "$dir/gen.events" ]; then
		echo "FAIL: vmx$modifier: no event lines"
		err=1
		return
	fi
	# Every generated event as the real recording has it
	if ! LC_ALL=C comm -23 "$dir/gen.events" "$dir/real.events" > "$dir/extra" ||
	   [ -s "$dir/extra" ]; then
		echo "FAIL: vmx$modifier: events that perf record lays out otherwise:"
		cat "$dir/extra"
		echo "perf record's:"
		cat "$dir/real.events"
		err=1
	fi
}

# The tracepoints of record --event all, in its order: the first one
# carries the side-band bits.
if ! perf kvm-events record -q --event all -a -o "$dir/order.data" -- true > /dev/null 2>&1; then
	echo "FAIL: perf kvm-events record --event all -a"
	exit 1
fi
events=$(perf evlist -i "$dir/order.data" 2> /dev/null | sed -n 's/^\(kvm:.*\)/-e \1/p')

sleep 10 &
target=$!
# shellcheck disable=SC2086
if perf record -q -R -c 1 $events -p $target -o "$dir/real-p.data" -- sleep 0.1 \
	> /dev/null 2>&1; then
	compare_layout "$dir/real-p.data" ""
else
	echo "FAIL: perf record -p"
	err=1
fi
kill $target 2> /dev/null
# shellcheck disable=SC2086
if perf record -q -R -c 1 $events -a -o "$dir/real-a.data" -- sleep 0.1 \
	> /dev/null 2>&1; then
	compare_layout "$dir/real-a.data" +system-wide
else
	echo "FAIL: perf record -a"
	err=1
fi

exit $err
