#!/bin/bash
# kvm-events: every report option equals the per-sample ground truth
# SPDX-License-Identifier: GPL-2.0

# --stats, --vcpu ranges, --duration, --time, -p, --per-vcpu, --per-vm,
# every --key, --top, --histogram, --json and --csv, checked by
# lib/kvm_events_check.py against the .events file of generated
# recordings.  The 20000-exit recording has keys past 1024 timed samples,
# whose percentiles come from the histogram.  The other architectures',
# nested, PVM and halt recordings are checked too; on arm64 and riscv64,
# which record no vcpu id, without the --vcpu and --per-vcpu cases.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen

skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

for run in "vmx" "svm" "vmx-old" "unpaired" "two-vms" "vmx 20000" \
	   "arm64" "s390" "ppc64le" "riscv64" "loongarch64" "pvm" \
	   "vmx-nested" "vmx-halt"; do
	set -- $run
	data="$dir/$1-${2:-default}.data"
	if ! "$KVMGEN" "$data" "$@" > /dev/null; then
		echo "FAIL: kvmgen $run"
		err=1
		continue
	fi
	kvm_events_check options "$data" "$run" || err=1
done

exit $err
