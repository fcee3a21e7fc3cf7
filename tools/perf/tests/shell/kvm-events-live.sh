#!/bin/bash
# kvm-events: live shows the bundled guest's accesses, each in its interval
# SPDX-License-Identifier: GPL-2.0

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# Until the command ends; the last table holds every access.
if ! taskset -c 0 timeout 60 perf kvm-events live -d 1 --event ioport -- \
		perf test -w kvmguest 7 5 4 3 > "$dir/live" 2>&1; then
	echo "FAIL: perf kvm-events live -- perf test -w kvmguest"
	cat "$dir/live"
	err=1
fi
# The totals of the whole run: those after the last "Since the start:"
awk '/^Since the start:/ { n++ } { line[n] = line[n] $0 "\n" }
     END { printf "%s", line[n] }' "$dir/live" > "$dir/total"
for want in "0x500:POUT 7" "0x501:PIN 5"; do
	set -- $want
	got=$(awk -v key="$1" '$1 == key { print $2 }' "$dir/total")
	[ "$got" = "$2" ] || { echo "FAIL: live: $1 has ${got:-no} samples, expected $2"; err=1; }
done
grep -q "^Total Samples:12," "$dir/total" || { echo "FAIL: live: total"; err=1; }

# per_interval FILE AWK-CONDITION: for each interval table, the samples
# of its rows whose key ($1) meets the condition, one interval a line:
# "LENGTH SAMPLES"
per_interval() {
	awk '/^Last [0-9.]*s:$/ { len = substr($2, 1, length($2) - 2); n = 0; in_table = 1; next }
	     /^Since the start:/ { if (in_table) print len, n; in_table = 0; next }
	     in_table && ('"$2"') { n += $2 }' "$1"
}

# Three bursts of port writes, 1, 2 and 4, two seconds apart: each
# interval holds one burst whole, or nothing.
taskset -c 0 timeout 60 perf kvm-events live -d 1 --event ioport -- sh -c '
	perf test -w kvmguest 1 0 0 0 && sleep 2 &&
	perf test -w kvmguest 2 0 0 0 && sleep 2 &&
	perf test -w kvmguest 4 0 0 0' > "$dir/bursts" 2>&1
rc=$?
per_interval "$dir/bursts" '$1 == "0x500:POUT"' > "$dir/bursts.per"
got=$(awk '$2 { printf "%s%s", sep, $2; sep = " " }' "$dir/bursts.per")
if [ $rc -ne 0 ] || [ "$got" != "1 2 4" ] || [ "$(wc -l < "$dir/bursts.per")" -lt 5 ]; then
	echo "FAIL: live over bursts of 1, 2 and 4 port writes: exit $rc, intervals hold: $got"
	cat "$dir/bursts"
	err=1
fi

# The guest halting 30 times, every 100 ms: each interval of a second
# holds its share of the halts, not all of them; together, all 30.  A
# second holds at most 12 (ten, and the edges); at least 4, not 8: on
# an emulated CPU whose host runs other machines, a second of the
# guest's halts once held 7 (make check beside make check SANITIZE=1).
perf test -w kvmguest halt 1 100 > "$dir/probe" 2>&1
if [ $? -eq 0 ]; then
	taskset -c 0 timeout 60 perf kvm-events live -d 1 --event halt -- \
		perf test -w kvmguest halt 30 100000 > "$dir/halt" 2>&1
	rc=$?
	per_interval "$dir/halt" '$1 ~ /^(poll|wait)/' > "$dir/halt.per"
	total=$(awk '{ n += $2 } END { print n }' "$dir/halt.per")
	full=$(awk '$1 >= 0.9 && $1 <= 1.1' "$dir/halt.per" | wc -l)
	bad=$(awk '$1 >= 0.9 && $1 <= 1.1 && ($2 < 4 || $2 > 12)' "$dir/halt.per" | wc -l)
	if [ $rc -ne 0 ] || [ "$total" != 30 ] || [ "$full" -lt 2 ] || [ "$bad" != 0 ]; then
		echo "FAIL: live over 30 halts of 100 ms: exit $rc, $total halts," \
			"$full intervals of 1 s, $bad not of 4 to 12 halts"
		cat "$dir/halt"
		err=1
	fi
fi

exit $err
