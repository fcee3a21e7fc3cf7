#!/bin/bash
# kvm-events: record --use-bpf of the known arm64 guest: a plain recording's counts
# SPDX-License-Identifier: GPL-2.0

# The bundled arm64 guest recorded plainly and with --use-bpf --event all
# at once (kvm_events_check.py guest-arm64-bpf): its own counts exact in
# every analysis, every event whole, exact percentiles, and the plain
# recording's keys and counts.  Not the times: the programs of every
# analysis lengthen the plain recording's (the x86 test compares them).
# About 40 s in the arm64 test machine.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_arm64_kvm_tracing
skip_without_python3
skip_without_bpf

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
counts="9 7 5 3"

# shellcheck disable=SC2086
if ! perf kvm-events record -q --event all -o "$dir/plain.data" -- \
		perf kvm-events record -q --use-bpf --event all -o "$dir/bpf.data" -- \
		perf test -w kvmguest $counts > "$dir/record.log" 2>&1; then
	echo "FAIL: perf kvm-events record --use-bpf --event all of the arm64 guest"
	cat "$dir/record.log"
	exit 1
fi
# shellcheck disable=SC2086
kvm_events_check guest-arm64-bpf "$dir/bpf.data" "$dir/plain.data" $counts || err=1

exit $err
