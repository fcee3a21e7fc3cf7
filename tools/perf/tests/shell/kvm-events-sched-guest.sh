#!/bin/bash
# kvm-events: a real guest's exits split into time on and off CPU
# SPDX-License-Identifier: GPL-2.0

# The known guest shares its CPU with a CPU hog, so that the host
# preempts its vcpu thread, inside exits too; then it halts every 20 us,
# its vcpu thread blocking in its HLT exits, recorded with -a.  Each
# recording's vmexit report, by every reader, must split the exits' time
# as perf script's own view of the same records does, to the ns
# (kvm_events_check.py sched-real): in total, per key and per --top
# event.  So must a recording written to a pipe.  With -a, --top names
# what ran instead.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
hog=""
test_cleanup() {
	[ -n "$hog" ] && kill "$hog"
}
counts="70 50 40 30 60 90 80 110"

taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
# shellcheck disable=SC2086
if ! taskset -c 0 perf kvm-events record --sched -q --event all -o "$dir/hog.data" -- \
		perf test -w kvmguest $counts > "$dir/record.log" 2>&1; then
	echo "FAIL: perf kvm-events record --sched of the guest beside a CPU hog"
	cat "$dir/record.log"
	exit 1
fi
# shellcheck disable=SC2086
kvm_events_check guest "$dir/hog.data" $counts || err=1
kvm_events_check sched-real "$dir/hog.data" preempted || err=1

# shellcheck disable=SC2086
if ! taskset -c 0 perf kvm-events record --sched -q -o - -- \
		perf test -w kvmguest $counts > "$dir/pipe.data" 2> "$dir/record.log"; then
	echo "FAIL: perf kvm-events record --sched -o - of the guest"
	cat "$dir/record.log"
	exit 1
fi
kill "$hog"
hog=""
kvm_events_check sched-real "$dir/pipe.data" preempted || err=1

if ! taskset -c 0 perf kvm-events record --sched -a -q -o "$dir/halts.data" -- \
		taskset -c 1 perf test -w kvmguest halt 100 20 > "$dir/record.log" 2>&1; then
	echo "FAIL: perf kvm-events record --sched -a of the halting guest"
	cat "$dir/record.log"
	exit 1
fi
kvm_events_check sched-real "$dir/halts.data" blocked || err=1
# Every event, not the 5 slowest: under emulation, the slowest may be
# exits that never left the CPU, and those name no task.
if ! perf kvm-events report -i "$dir/halts.data" --top 1000000 --json | python3 -c '
import json, sys
off_cpu = [e for e in json.load(sys.stdin)["top"] if e["offcpu_ns"]]
sys.exit(not off_cpu or any(e["next_tid"] is None for e in off_cpu))'; then
	echo "FAIL: --top of a recording with -a names no task that ran instead of an exit off CPU"
	err=1
fi
# The report of it that Documentation/kvm-events-design.txt shows: the
# columns, what ran instead, the footer
perf kvm-events report -i "$dir/halts.data" --top 2 \
	--fields samples,avg,offcpu,preempted,blocked,offcpu.p99 > "$dir/design.out"
for want in "Off CPU%" "Preempt%" "Blocked%" "Off CPU p99" "Ran instead" \
	    "Context switches:"; do
	if ! grep -q "$want" "$dir/design.out"; then
		echo "FAIL: kvm-events-design.txt's report has no '$want':"
		cat "$dir/design.out"
		err=1
	fi
done

# Without switches: the columns asked for are left out, and it is said.
perf kvm-events record -q -o "$dir/plain.data" -- perf test -w kvmguest 1 1 1 1 1 1 1 1 \
	> "$dir/record.log" 2>&1
perf kvm-events report -i "$dir/plain.data" --fields samples,offcpu > "$dir/out" 2> "$dir/err"
if ! grep -q "no context switches recorded" "$dir/err" || grep -q "Off CPU" "$dir/out"; then
	echo "FAIL: --fields offcpu without switches:"
	cat "$dir/err" "$dir/out"
	err=1
fi
exit $err
