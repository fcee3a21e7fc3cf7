#!/bin/bash
# kvm-events: diff compares two recordings key by key
# SPDX-License-Identifier: GPL-2.0

# Samples per second, average and p99 times of every key of two generated
# recordings, checked by lib/kvm_events_diff_oracle.py against their
# .events files; keys only one recording has are shown as new or gone.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
trap 'rm -rf "$dir"' EXIT
oracle="$(dirname "$0")/lib/kvm_events_diff_oracle.py"
err=0

perf test -w kvmgen "$dir/old.data" vmx 1000 > /dev/null || exit 1
perf test -w kvmgen "$dir/new.data" vmx 3000 > /dev/null || exit 1
perf test -w kvmgen "$dir/svm.data" svm 1000 > /dev/null || exit 1
for analysis in vmexit mmio ioport; do
	python3 "$oracle" "$dir/old.data" "$dir/new.data" $analysis || err=1
done
# Every VMX key is gone and every SVM one new.
python3 "$oracle" "$dir/old.data" "$dir/svm.data" vmexit || err=1
perf kvm-events diff "$dir/old.data" "$dir/svm.data" | grep -q ' HLT .* gone ' ||
	{ echo "FAIL: HLT is not shown as gone"; err=1; }
perf kvm-events diff "$dir/old.data" "$dir/svm.data" | grep -q ' hlt .* new ' ||
	{ echo "FAIL: hlt is not shown as new"; err=1; }

exit $err
