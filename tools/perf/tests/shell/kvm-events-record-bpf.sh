#!/bin/bash
# kvm-events: record --use-bpf writes the kernel's counts, and says what is wrong
# SPDX-License-Identifier: GPL-2.0

# No guest here (a guest's counts are kvm-events-record-bpf-guest.sh's):
# a recording of nothing holds the kernel's last dump, which report
# reads, also after a SIGKILL; and each misuse is an error that says
# what was wrong.  About 15 s, 11.5 of them waiting for the first dump.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_bpf
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

fail() {
	echo "FAIL: $1"
	[ -f "${2:-}" ] && cat "$2"
	err=1
}

if ! perf kvm-events record -q --use-bpf --min-time 2ms --event ioport,mmio \
		-o "$dir/none.data" -- sleep 0.2 > "$dir/log" 2>&1; then
	fail "record --use-bpf -- sleep 0.2" "$dir/log"
fi
perf kvm-events report -i "$dir/none.data" --event mmio > "$dir/report" 2>&1 ||
	fail "report of a record --use-bpf recording" "$dir/report"
footer="Counted in the kernel (record --use-bpf); events recorded whole:0,"
footer="$footer those of at least 2000.00us; percentiles from the kernel's histograms,"
footer="$footer within 1/128 of the value."
grep -q -x -F "$footer" "$dir/report" ||
	fail "report: the footer of a record --use-bpf recording" "$dir/report"
perf kvm-events report -i "$dir/none.data" --event ioport --json > "$dir/json" 2>&1
python3 -c 'import json, sys
got = json.load(open(sys.argv[1]))["totals"]["kernel"]
want = {"min_time_ns": 2000000, "kept": 0, "recorded": 0, "lost_records": 0,
        "exact_percentiles": False}
sys.exit(got != want and print(f"{got} != {want}"))' "$dir/json" ||
	fail "report --json: totals.kernel" "$dir/json"

# Killed (SIGKILL) after its first dump, 10 s after the program was
# attached, a recording keeps the counts of that dump, though perf record
# could not name its events.  Killed once report reads the dump, from
# 10 s on: the program's load takes longer on a busy host.
perf kvm-events record -q --use-bpf --event mmio -a -o "$dir/killed.data" > "$dir/log" 2>&1 &
pid=$!
sleep 10
for _ in $(seq 40); do
	perf kvm-events report -i "$dir/killed.data" --event mmio > /dev/null 2>&1 && break
	sleep 0.5
done
kill -9 $pid
wait $pid 2> /dev/null
perf kvm-events report -i "$dir/killed.data" --event mmio > "$dir/report" 2>&1 ||
	fail "report of a killed record --use-bpf recording" "$dir/report"
grep -q "^Counted in the kernel (record --use-bpf); events recorded whole:0;" "$dir/report" ||
	fail "report: no counts of the killed recording's dump" "$dir/report"

# diff reads it as any recording
perf kvm-events diff --event mmio "$dir/none.data" "$dir/none.data" > "$dir/diff" 2>&1 ||
	fail "diff of two record --use-bpf recordings" "$dir/diff"

# expect_error WANT COMMAND...: COMMAND fails, not by a signal (129 is
# perf's usage error, after an option's own line), WANT its first line
expect_error() {
	local want=$1 rc
	shift
	"$@" > "$dir/out" 2> "$dir/err"
	rc=$?
	if [ $rc -eq 0 ] || { [ $rc -gt 128 ] && [ $rc -ne 129 ]; } ||
	   [ "$(head -n 1 "$dir/err")" != "$want" ]; then
		fail "$*: exit $rc, expected an error: $want" "$dir/err"
	fi
}

msg="$dir/none.data: recorded with --use-bpf for other analyses than vmexit;"
expect_error "$msg record with: perf kvm-events record --use-bpf --event vmexit" \
	perf kvm-events report -i "$dir/none.data" --event vmexit
msg="$dir/none.data: --time: not for a recording made with --use-bpf,"
expect_error "$msg which holds the kernel's counts of its whole span" \
	perf kvm-events report -i "$dir/none.data" --event mmio --time 1,2
expect_error "perf kvm-events record: --min-time: only with --use-bpf" \
	perf kvm-events record --min-time 10us -o "$dir/x.data" -- true
expect_error "perf kvm-events record: --min-time 10xs: expected a whole number of ns, us, ms or s" \
	perf kvm-events record --use-bpf --min-time 10xs -o "$dir/x.data" -- true
expect_error "perf kvm-events record: --use-bpf: writes a file, not a pipe (-o -), for now" \
	perf kvm-events record --use-bpf -o - -- true
msg="perf kvm-events record: --sched: not yet with --use-bpf,"
expect_error "$msg whose program splits no time" \
	perf kvm-events record --use-bpf --sched -o "$dir/x.data" -- true

exit $err
