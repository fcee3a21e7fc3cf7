#!/bin/bash
# kvm-events: each exit of a known arm64 guest on a real kernel, in every analysis
# SPDX-License-Identifier: GPL-2.0

# The bundled guest on arm64 (tools/perf/tests/workloads/kvmguest-arm64.c)
# with every count distinct: 9 MMIO writes, 7 MMIO reads, 5 PSCI_VERSION
# calls and 3 trapped OSLSR_EL1 reads, then its final MMIO store.  Its own
# counts are the truth in the vmexit, mmio, hypercall and userspace
# reports (kvm_events_check.py guest-arm64); only the host's IRQ exits are
# bounded.  perf kvm stat's report of the same recording agrees on each
# exit's number.  The halt form halts 20 times, each woken by the virtual
# timer: a WFI exit and a wakeup per halt that trapped, and a halt that
# did not trap only when its timer fired first, which was an IRQ exit.
# --key sym, with the guest's map of its loops, puts each exit in its loop.
#
# With KVM_EVENTS_KEEP set to a folder, the recordings and this perf's
# own reports of them, as text and JSON, are left there: make check
# reports them again with the x86 perf, which must print the same.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_arm64_kvm_tracing
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
counts="9 7 5 3"

# record NAME ARGS...: perf kvm-events record --event all of the guest
record() {
	local name=$1

	shift
	if ! perf kvm-events record -q --event all -o "$dir/$name.data" -- \
			perf test -w kvmguest "$@" > "$dir/record.log" 2>&1; then
		echo "FAIL: perf kvm-events record --event all -- perf test -w kvmguest $*"
		cat "$dir/record.log"
		exit 1
	fi
}

# shellcheck disable=SC2086
record guest $counts
# shellcheck disable=SC2086
kvm_events_check guest-arm64 "$dir/guest.data" $counts || err=1

# rows: "name samples" of a report's table, sorted
rows() {
	awk '$2 ~ /^[0-9]+$/ && $3 ~ /%$/ { print $1, $2 }' | LC_ALL=C sort
}

# perf kvm stat agrees on the number of each exit.  Not on the times: on
# a recording of more than kvm_exit and kvm_entry its arm64 times are not
# the exit-to-entry spans; the checker takes those from perf script.
perf kvm-events report -i "$dir/guest.data" --event vmexit | rows > "$dir/ours"
upstream perf kvm -i "$dir/guest.data" stat report --stdio --event vmexit 2>&1 |
	rows > "$dir/upstream"
if [ "$(wc -l < "$dir/ours")" -lt 4 ] || ! cmp -s "$dir/ours" "$dir/upstream"; then
	echo "FAIL: --event vmexit: perf kvm stat differs (ours, then theirs):"
	cat "$dir/ours" "$dir/upstream"
	err=1
fi

halts=20
record halts halt $halts 1000
kvm_events_check halt-arm64 "$dir/halts.data" $halts || err=1

# name.analysis.txt and .json: this perf's reports, from within the folder
if [ -n "${KVM_EVENTS_KEEP:-}" ]; then
	cd "$KVM_EVENTS_KEEP" || exit 1
	for name in guest halts; do
		cp "$dir/$name.data" $name.data || err=1
		for analysis in vmexit mmio hypercall userspace halt; do
			perf kvm-events report -i $name.data --event $analysis \
				> $name.$analysis.txt || err=1
			perf kvm-events report -i $name.data --event $analysis --json \
				> $name.$analysis.json || err=1
		done
	done
fi
exit $err
