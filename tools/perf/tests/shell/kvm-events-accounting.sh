#!/bin/bash
# kvm-events: every sample read is accounted for, and the buckets add up
# SPDX-License-Identifier: GPL-2.0

# Every kvm sample read ends in one bucket: counted in a key, the end of a
# counted sample, filtered, or other; counted samples are timed or have no
# end or no begin.  The samples read must be those perf script sees, for
# every analysis and filter, and those the generator wrote.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen

skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# check DATA OPTION...: the buckets of the report's totals, and its
# samples read against perf script's and the ground truth's
check() {
	data=$1
	shift
	kvm_events_check accounting "$data" "$(cat "$data.script-count")" "$@" || err=1
}

for scenario in vmx svm vmx-old unpaired two-vms; do
	data="$dir/$scenario.data"
	"$KVMGEN" "$data" "$scenario" > /dev/null ||
		{ echo "FAIL: kvmgen $scenario"; err=1; continue; }
	perf script -i "$data" -F event 2> /dev/null | grep -c 'kvm:' > "$data.script-count"
	for analysis in vmexit mmio ioport userspace msr hypercall; do
		check "$data" --event $analysis
		check "$data" --event $analysis --vcpu 1 --duration 10
		check "$data" --event $analysis --time 25%-75% --generic-reader
	done
done

# -v says the same in the table's footer.
perf kvm-events report -v -i "$dir/vmx.data" 2> /dev/null |
	grep -q "^Samples read:$(cat "$dir/vmx.data.script-count") = counted in a key 1000 + " ||
	{ echo "FAIL: -v does not print the buckets"; err=1; }

exit $err
