#!/bin/bash
# kvm-events: reports equal the ground truth of generated recordings
# SPDX-License-Identifier: GPL-2.0

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
trap 'rm -rf "$dir"' EXIT
err=0

check() {
	scenario=$1
	analysis=$2
	vcpu=$3
	sort=$4
	data="$dir/$scenario.data"
	opts="--event $analysis --key $sort"

	[ "$vcpu" = all ] || opts="$opts --vcpu $vcpu"
	expected_report "$data.truth" "$analysis" "$vcpu" "$sort" > "$dir/expected"
	if ! perf kvm-events report -i "$data" $opts > "$dir/actual" 2>"$dir/stderr"; then
		echo "FAIL: $scenario: report $opts exited non-zero"
		cat "$dir/stderr"
		err=1
	elif ! diff -u "$dir/expected" "$dir/actual"; then
		echo "FAIL: $scenario: report $opts differs from the ground truth"
		err=1
	fi
}

for scenario in vmx svm vmx-old unpaired; do
	if ! perf test -w kvmgen "$dir/$scenario.data" "$scenario" > /dev/null; then
		echo "FAIL: perf test -w kvmgen $scenario"
		err=1
		continue
	fi
	for analysis in vmexit mmio ioport; do
		for vcpu in all 1; do
			for sort in sample time; do
				check "$scenario" "$analysis" "$vcpu" "$sort"
			done
		done
	done
done

exit $err
