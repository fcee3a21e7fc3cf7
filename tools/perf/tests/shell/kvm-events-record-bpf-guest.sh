#!/bin/bash
# kvm-events: record --use-bpf of a known guest: a plain recording's counts, slow events whole
# SPDX-License-Identifier: GPL-2.0

# record --use-bpf pairs in the kernel and writes the counts, and the
# events of at least --min-time whole, into bpf-output events.  Three
# runs of the bundled guest (kvm_events_check.py guest-bpf...):
# - with --use-bpf alone, --event all: the guest's own counts exact in
#   every analysis, every event whole, exact percentiles;
# - recorded plainly and with --use-bpf at once, of vmexit and halt,
#   --min-time 1s so that nothing written whole lengthens the plain
#   recording's times: the plain recording's keys, counts and medians
#   (the programs of every analysis at once would lengthen them more);
# - 200 port writes with --min-time the median port write of the first
#   run: the counts exact, and as events whole exactly those the kernel
#   counted at least that long, some and not all.
# About 60 s in the x86 test machine.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing
skip_without_python3
skip_without_bpf

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
counts="7 5 4 3 6 9 8 11"

# record NAME COMMAND...: COMMAND, a recording, or fail
record() {
	local name=$1
	shift
	if ! "$@" > "$dir/$name.log" 2>&1; then
		echo "FAIL: $*"
		cat "$dir/$name.log"
		exit 1
	fi
}

# shellcheck disable=SC2086
record whole perf kvm-events record -q --use-bpf --event all -o "$dir/bpf.data" -- \
	perf test -w kvmguest $counts
# shellcheck disable=SC2086
kvm_events_check guest-bpf-whole "$dir/bpf.data" $counts || err=1

# shellcheck disable=SC2086
record both perf kvm-events record -q --event vmexit,halt -o "$dir/plain.data" -- \
	perf kvm-events record -q --use-bpf --min-time 1s --event vmexit,halt \
	-o "$dir/counts.data" -- perf test -w kvmguest $counts
kvm_events_check guest-bpf "$dir/counts.data" "$dir/plain.data" 1000000000 vmexit,halt || err=1

median=$(perf kvm-events report -i "$dir/bpf.data" --event ioport --json |
	python3 -c 'import json, sys
print(next(k["p50_ns"] for k in json.load(sys.stdin)["keys"] if k["key"] == "0x500:POUT"))')
record slow perf kvm-events record -q --use-bpf --min-time "${median}ns" --event ioport \
	-o "$dir/slow.data" -- perf test -w kvmguest 200 0 0 0
kvm_events_check bpf-min-time "$dir/slow.data" ioport "$median" 0x500:POUT=200 || err=1

# upstream's readers read the file without an error
for cmd in script report; do
	if ! upstream perf $cmd -i "$dir/bpf.data" > "$dir/$cmd.out" 2> "$dir/$cmd.err"; then
		echo "FAIL: perf $cmd of a record --use-bpf recording"
		cat "$dir/$cmd.err"
		err=1
	fi
done

exit $err
