#!/bin/bash
# kvm-events: a halting KVM guest: a HLT exit per halt, a wakeup per blocked halt
# SPDX-License-Identifier: GPL-2.0

# perf test -w kvmguest halt N PERIOD_US halts N times with interrupts
# enabled, each halt woken by a one-shot local APIC timer armed PERIOD_US
# before.  KVM handles each HLT in the kernel and traces one
# kvm_vcpu_wakeup per halt that blocked: "poll" when the wake came while
# it polled, "wait" when the vcpu slept.  Just before it, it traces kvm_halt_poll_ns
# when it grew or shrank the vcpu's polling window.  Which halts poll
# depends on the load of the CPU; the counts do not.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing
if ! perf list 'kvm:kvm_vcpu_wakeup' 2>/dev/null | grep -q kvm_vcpu_wakeup; then
	echo "skip: no kvm:kvm_vcpu_wakeup tracepoint"
	exit 2
fi

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# The halting guest needs an in-kernel irqchip and x2APIC: without them
# it says why and exits 2.
perf test -w kvmguest halt 1 100 > "$dir/probe" 2>&1
case $? in
0) ;;
2) echo "skip: $(head -n 1 "$dir/probe")"; exit 2 ;;
*) echo "FAIL: perf test -w kvmguest halt 1 100"; cat "$dir/probe"; exit 1 ;;
esac

# The kvm module's upper bound of the polling window, in ns.
max_poll=$(cat /sys/module/kvm/parameters/halt_poll_ns 2> /dev/null)

# record NAME N PERIOD_US: record the guest halting N times into
# $dir/NAME.data, and write its halt samples to $dir/NAME.halts, one line
# each, in time order:
#   wakeup TID poll|wait valid|invalid NS
#   pollns TID grow|shrink NEW OLD
# One CPU: on some hosts (seen on a PVM backend) a recording whose
# producer and consumer run on different CPUs gains duplicate samples.
record() {
	if ! taskset -c 0 perf kvm-events record -q --event halt -o "$dir/$1.data" -- \
			perf test -w kvmguest halt "$2" "$3" > "$dir/$1.log" 2>&1; then
		echo "FAIL: perf kvm-events record of the guest halting $2 times"
		cat "$dir/$1.log"
		exit 1
	fi
	perf script -i "$dir/$1.data" -F tid,event,trace 2> /dev/null | awk '
		# "wait time 70325 ns, polling valid"
		$2 == "kvm:kvm_vcpu_wakeup:" { print "wakeup", $1, $3, $8, $5 }
		# "vcpu 0: halt_poll_ns 20000 (grow 10000)"
		$2 == "kvm:kvm_halt_poll_ns:" {
			op = substr($7, 2); old = $8; sub(/\)$/, "", old)
			print "pollns", $1, op, $6, old
		}' > "$dir/$1.halts"
}

# count NAME WHAT [FIELD VALUE]: the lines of kind WHAT in NAME.halts,
# only those whose field FIELD is VALUE if given.
count() {
	awk -v what="$2" -v f="${3:-0}" -v v="${4:-}" '
		$1 == what && (f == 0 || $f == v) { n++ }
		END { print n + 0 }' "$dir/$1.halts"
}

# hlt_exits NAME: the HLT exits of the vmexit report (hlt on SVM, HLT
# on VMX)
hlt_exits() {
	perf kvm-events report -i "$dir/$1.data" --event vmexit 2> /dev/null |
		awk 'tolower($1) == "hlt" { print $2 }'
}

# check_halts NAME N MIN: facts that hold whatever the poll/wait split.
# Every HLT exits: N of them.  A HLT whose timer has already fired when
# KVM handles it does not block, and KVM then traces no kvm_vcpu_wakeup:
# so at most N wakeups, and at least MIN, which the caller bounds by how
# far the period is beyond what the host may take to reach the HLT.
check_halts() {
	got=$(hlt_exits "$1")
	if [ "$got" != "$2" ]; then
		echo "FAIL: $1: ${got:-no} HLT exits, expected one per halt: $2"
		err=1
	fi
	got=$(count "$1" wakeup)
	if [ "$got" -gt "$2" ] || [ "$got" -lt "$3" ]; then
		echo "FAIL: $1: $got kvm_vcpu_wakeup samples, expected $3 to $2 for $2 halts"
		err=1
	fi
	got=$(count "$1" wakeup 4 invalid)
	if [ "$got" != 0 ]; then
		echo "FAIL: $1: $got wakeups not valid; x86 has no invalid wakeup"
		err=1
	fi
	# KVM traces kvm_halt_poll_ns at the end of a halt, just before its
	# kvm_vcpu_wakeup; and the window a halt starts with is the one the
	# last change left, cut to the module's bound.  A new vcpu starts
	# with no window.
	if ! awk -v max="$max_poll" '
		BEGIN { last = 0 }
		pending && ($1 != "wakeup" || $2 != tid) { bad = NR }
		{ pending = 0 }
		$1 == "pollns" {
			cur = (max != "" && last + 0 > max + 0) ? max : last
			if ($5 != cur)
				bad = NR
			last = $4; pending = 1; tid = $2
		}
		END { if (pending) bad = NR; exit (bad != 0) }' "$dir/$1.halts"; then
		echo "FAIL: $1: kvm_halt_poll_ns samples out of order or not chained"
		cat "$dir/$1.halts"
		err=1
	fi
}

# Short halts: past the first few, whose wait grows the window, a halt
# polls unless another task wants the CPU.  On an emulated CPU, 50 us
# may all pass before KVM handles the HLT: then no halt blocks (seen
# under qemu's TCG), so only the bound of 40 holds there.
record short 40 50
check_halts short 40 0

# Long halts, longer than any polling window: every halt waits, so no
# window ever grows, and a halt lasts most of its period unless the vcpu
# thread was held off between arming the timer and the HLT.  The guest
# shares CPU 0 with perf record: under ASan on qemu's TCG that held the
# first halt off for 7 ms once, so 8 of the 10 must last half a period.
record long 10 10000
check_halts long 10 10
if [ -n "$max_poll" ] && [ "$max_poll" -lt 10000000 ]; then
	got=$(count long wakeup 3 wait)
	if [ "$got" != 10 ]; then
		echo "FAIL: long: $got of 10 halts waited"
		err=1
	fi
	got=$(count long pollns)
	if [ "$got" != 0 ]; then
		echo "FAIL: long: $got kvm_halt_poll_ns samples, expected none"
		err=1
	fi
fi
got=$(awk '$1 == "wakeup" && $5 >= 5000000 { n++ } END { print n + 0 }' "$dir/long.halts")
if [ "$got" -lt 8 ]; then
	echo "FAIL: long: $got of 10 halts lasted half their 10 ms period, expected 8 at least"
	cat "$dir/long.halts"
	err=1
fi

# -------------------------------------------------------------------
# The halt analysis: perf kvm-events report --event halt.  Everything
# below needs that analysis, and fails until it is in perf.
#
# Its keys are poll and wait for kvm_vcpu_wakeup (":invalid" appended
# when not valid), timed by the wakeup's ns; grow and shrink for
# kvm_halt_poll_ns, without time.  The expected table is derived from
# the perf script lines of the same recording.
# -------------------------------------------------------------------

# expected_halt_rows NAME: "KEY SAMPLES AVG" per key, sorted by key; AVG
# is "-" for keys without time.
expected_halt_rows() {
	awk '
		$1 == "wakeup" {
			key = $3 ($4 == "valid" ? "" : ":invalid")
			n[key]++; ns[key] += $5
		}
		$1 == "pollns" { n[$3]++ }
		END {
			for (k in n) {
				if (k in ns)
					printf "%s %d %.2fus\n", k, n[k], ns[k] / n[k] / 1000
				else
					printf "%s %d -\n", k, n[k]
			}
		}' "$dir/$1.halts" | LC_ALL=C sort
}

check_halt_report() {
	if ! perf kvm-events report -i "$dir/$1.data" --event halt > "$dir/$1.report" 2>&1; then
		echo "FAIL: $1: perf kvm-events report --event halt"
		cat "$dir/$1.report"
		err=1
		return
	fi
	expected_halt_rows "$1" > "$dir/$1.want"
	# A row: key, samples, samples%, time% or -, avg or -.
	awk 'NF == 5 && $2 ~ /^[0-9]+$/ && $3 ~ /%$/ { print $1, $2, $5 }' \
		"$dir/$1.report" | LC_ALL=C sort > "$dir/$1.got"
	if ! diff -u "$dir/$1.want" "$dir/$1.got"; then
		echo "FAIL: $1: halt report rows differ from perf script's samples"
		cat "$dir/$1.report"
		err=1
	fi
	total=$(awk '{ n += $2 } END { print n + 0 }' "$dir/$1.want")
	if ! grep -q "^Total Samples:$total," "$dir/$1.report"; then
		echo "FAIL: $1: halt report total, expected $total samples"
		cat "$dir/$1.report"
		err=1
	fi
}

check_halt_report short
check_halt_report long

exit $err
