#!/bin/bash
# kvm-events: diff compares two recordings key by key
# SPDX-License-Identifier: GPL-2.0

# Samples per second, average and p99 times of every key of two generated
# recordings, as a table, --json and --csv, and the column of each --key,
# checked by lib/kvm_events_check.py against their .events files; keys only
# one recording has are shown as new or gone.  The rows must come in the
# order of --key, each side must be named by its file, --time must keep the
# samples of its window and count the rates over it, and --split-idle must
# move the idle exits apart.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen

skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

"$KVMGEN" "$dir/old.data" vmx 1000 > /dev/null || exit 1
"$KVMGEN" "$dir/new.data" vmx 3000 > /dev/null || exit 1
"$KVMGEN" "$dir/svm.data" svm 1000 > /dev/null || exit 1
for analysis in vmexit mmio ioport; do
	kvm_events_check diff "$dir/old.data" "$dir/new.data" $analysis || err=1
done
for key in samples avg min_t max p50 p90 p99 p99.9 stddev name time% \
	   p99,samples min,samples% total,name; do
	kvm_events_check diff "$dir/old.data" "$dir/new.data" vmexit --key $key || err=1
done
kvm_events_check diff "$dir/old.data" "$dir/new.data" ioport --key avg,samples || err=1
kvm_events_check diff "$dir/old.data" "$dir/new.data" vmexit --split-idle || err=1
kvm_events_check diff "$dir/old.data" "$dir/svm.data" vmexit --split-idle --key max || err=1
# A window of the old recording: the new one starts at the same time.
window=$(awk '!/^#/ { t[n++] = $5 } END {
	printf "%d.%09d,%d.%09d", t[int(n / 4)] / 1e9, t[int(n / 4)] % 1e9,
	       t[int(3 * n / 4)] / 1e9, t[int(3 * n / 4)] % 1e9 }' "$dir/old.data.events")
kvm_events_check diff "$dir/old.data" "$dir/new.data" vmexit --time "$window" || err=1
kvm_events_check diff "$dir/old.data" "$dir/new.data" ioport --time "$window" --key p99 ||
	err=1
# Every VMX key is gone and every SVM one new.
kvm_events_check diff "$dir/old.data" "$dir/svm.data" vmexit || err=1
perf kvm-events diff "$dir/old.data" "$dir/svm.data" | grep -q ' HLT .* gone ' ||
	{ echo "FAIL: HLT is not shown as gone"; err=1; }
perf kvm-events diff "$dir/old.data" "$dir/svm.data" | grep -q ' hlt .* new ' ||
	{ echo "FAIL: hlt is not shown as new"; err=1; }

# A pipe recording has no sample times in its header: its span comes from
# its samples, and the same events as a file give no change at all.
"$KVMGEN" "$dir/old.pipe" vmx+pipe 1000 > /dev/null || exit 1
perf kvm-events diff "$dir/old.pipe" "$dir/old.data" > "$dir/pipe.diff" || err=1
title="^Compare $dir/old.pipe (0\.[0-9]*s) with $dir/old.data (0\.[0-9]*s):"
unchanged='+0.00%  .* +0.00%  .* +0.00%'
if ! grep -q "$title" "$dir/pipe.diff" ||
   grep -q -e new -e gone "$dir/pipe.diff" ||
   [ "$(grep -c '%' "$dir/pipe.diff")" != "$(grep -c "$unchanged" "$dir/pipe.diff")" ]; then
	echo "FAIL: a pipe recording and the same events in a file differ:"
	cat "$dir/pipe.diff"
	err=1
fi
perf kvm-events report -i "$dir/old.pipe" --time 10%-90% > /dev/null 2> "$dir/time.err" &&
	{ echo "FAIL: --time in percents of a pipe recording: exit 0"; err=1; }
grep -q "old.pipe has no first and last sample times" "$dir/time.err" ||
	{ echo "FAIL: --time in percents of a pipe recording:"; cat "$dir/time.err"; err=1; }

# Exit reasons of two architectures: refused
"$KVMGEN" "$dir/arm64.data" arm64 1000 > /dev/null || exit 1
refused="was recorded on x86, .* on arm64: their exits cannot be compared"
if perf kvm-events diff "$dir/old.data" "$dir/arm64.data" > /dev/null 2> "$dir/arch.err" ||
   ! grep -q "$refused" "$dir/arch.err"; then
	echo "FAIL: diff of x86 and arm64 recordings:"
	cat "$dir/arch.err"
	err=1
fi

exit $err
