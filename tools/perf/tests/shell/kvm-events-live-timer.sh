#!/bin/bash
# kvm-events: live refreshes on its timer, events or not, and stops cleanly
# SPDX-License-Identifier: GPL-2.0

# No kvm event needs to fire: live opens the kvm tracepoints, and a host
# without /dev/kvm has them too.  What is checked is the timer: one
# refresh a --delay, each labelled with the length it measured.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracepoints

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

fail() {
	echo "FAIL: $1"
	shift
	for f in "$@"; do
		cat "$f"
	done
	err=1
}

# labels FILE: the seconds of each "Last N.NNs:" label, one a line
labels() {
	sed -n 's/^Last \([0-9.]*\)s:$/\1/p' "$1"
}

# within FILE LINE LOW HIGH: is the LINE-th label from LOW to HIGH seconds?
within() {
	labels "$1" | sed -n "$2p" | awk -v lo="$3" -v hi="$4" \
		'NF == 1 && $1 >= lo && $1 <= hi { ok = 1 } END { exit !ok }'
}

# count FILE REGEX: how many lines match
count() {
	grep -c -- "$2" "$1"
}

# 3.3 s of a workload: refreshes at 1, 2 and 3 s, each of 1 s, then the
# final one, of the last 0.3 s, and the totals of the run.
perf kvm-events live -d 1 -- sleep 3.3 > "$dir/sleep" 2> "$dir/sleep.err"
rc=$?
[ $rc -eq 0 ] || fail "live -d 1 -- sleep 3.3: exit $rc" "$dir/sleep.err"
[ "$(count "$dir/sleep" '^perf kvm-events live, refresh [0-9]*:$')" = 4 ] ||
	fail "live -- sleep 3.3: not 4 refreshes" "$dir/sleep"
[ "$(labels "$dir/sleep" | wc -l)" = 4 ] ||
	fail "live -- sleep 3.3: not 4 interval labels" "$dir/sleep"
for i in 1 2 3; do
	within "$dir/sleep" $i 0.90 1.10 ||
		fail "live -- sleep 3.3: interval $i is not 1.00 +- 0.10 s" "$dir/sleep"
done
within "$dir/sleep" 4 0.20 0.40 ||
	fail "live -- sleep 3.3: the last interval is not 0.30 +- 0.10 s" "$dir/sleep"
[ "$(count "$dir/sleep" '^Since the start:')" = 4 ] ||
	fail "live -- sleep 3.3: not 4 tables since the start" "$dir/sleep"
[ "$(count "$dir/sleep" '^Samples:0 in the last interval\.$')" = 4 ] ||
	fail "live -- sleep 3.3: an interval holds samples of no kvm event" "$dir/sleep"
[ -s "$dir/sleep.err" ] && fail "live -- sleep 3.3: wrote to stderr" "$dir/sleep.err"

# -d 2 over 2.5 s: one refresh of 2 s, then the final one of 0.5 s
perf kvm-events live -d 2 -- sleep 2.5 > "$dir/d2" 2>&1
within "$dir/d2" 1 1.90 2.10 && within "$dir/d2" 2 0.40 0.60 &&
	[ "$(labels "$dir/d2" | wc -l)" = 2 ] ||
	fail "live -d 2 -- sleep 2.5: not a 2 s and a 0.5 s interval" "$dir/d2"

# The workload's exit status is live's.
perf kvm-events live -- sh -c 'sleep 0.2; exit 3' > /dev/null 2>&1
rc=$?
[ $rc -eq 3 ] || fail "live -- sh -c 'exit 3': exit $rc"

# wait_refreshes FILE N: until live has printed its N-th refresh (at
# most 30 s).  The signals below go at a refresh live has printed, not at
# a time guessed from its start: setting up -a, which reads every
# process' name first, takes long under the sanitizers.
wait_refreshes() {
	local tries=600

	while [ "$(labels "$1" | wc -l)" -lt "$2" ] && [ $tries -gt 0 ]; do
		sleep 0.05
		tries=$((tries - 1))
	done
}

# SIGINT ends -a: the refreshes so far, then the final one, exit 0.  Sent
# just after the second refresh, the last interval is what is left of
# that second: well under a second.
perf kvm-events live -a -d 1 > "$dir/int" 2>&1 &
pid=$!
wait_refreshes "$dir/int" 2
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "live -a stopped by SIGINT: exit $rc" "$dir/int"
[ "$(labels "$dir/int" | wc -l)" = 3 ] && within "$dir/int" 3 0.00 0.60 &&
	[ "$(count "$dir/int" '^Since the start:')" = 3 ] ||
	fail "live -a stopped by SIGINT after 2 refreshes: not those and a final one" "$dir/int"

# SIGTERM to live alone, with a workload still running: it stops the
# workload, refreshes a last time and exits 0, well before the workload's end.
perf kvm-events live -d 1 -- sleep 30 > "$dir/term" 2>&1 &
pid=$!
wait_refreshes "$dir/term" 1
kill -TERM $pid
start=$(date +%s)
wait $pid
rc=$?
[ $rc -eq 0 ] && [ $(($(date +%s) - start)) -le 2 ] ||
	fail "live -- sleep 30 stopped by SIGTERM: exit $rc" "$dir/term"
[ "$(labels "$dir/term" | wc -l)" = 2 ] ||
	fail "live -- sleep 30 stopped by SIGTERM after a refresh: not 2 refreshes" "$dir/term"

# One line naming what is wrong, a non-zero exit, no table.
expect_live_error() {
	local want=$1
	shift
	perf kvm-events live "$@" > "$dir/bad.out" 2> "$dir/bad.err"
	rc=$?
	if [ $rc -eq 0 ] || [ $rc -gt 128 ] || [ -s "$dir/bad.out" ] ||
	   [ "$(cat "$dir/bad.err")" != "$want" ]; then
		fail "live $*: exit $rc, expected the error: $want" "$dir/bad.out" "$dir/bad.err"
	fi
}
expect_live_error "perf kvm-events live: -p 99999999: no such process" -p 99999999
expect_live_error "perf kvm-events live: cannot run $dir/none: No such file or directory" \
	-- "$dir/none"

exit $err
