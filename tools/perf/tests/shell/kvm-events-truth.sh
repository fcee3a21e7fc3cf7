#!/bin/bash
# kvm-events: reports equal the ground truth of generated recordings
# SPDX-License-Identifier: GPL-2.0

# The table of each analysis, for all vcpus and for vcpu 1, sorted by
# samples and by time, must be the one lib/kvm_events_check.py derives
# from the generator's ground truth, which must itself agree: .truth is
# .events summed per key.  arm64 and riscv64 record no vcpu id: their
# reports are checked for all vcpus only.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

for scenario in vmx svm vmx-old unpaired arm64 s390 ppc64le riscv64 \
		loongarch64 pvm vmx-nested vmx-halt; do
	data="$dir/$scenario.data"
	if ! "$KVMGEN" "$data" "$scenario" > /dev/null; then
		echo "FAIL: kvmgen $scenario"
		err=1
		continue
	fi
	kvm_events_check table "$data" "$scenario" || err=1
done

exit $err
