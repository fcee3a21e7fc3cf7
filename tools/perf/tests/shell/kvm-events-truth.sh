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

# run SCENARIO ANALYSES VCPUS: check each analysis, for all vcpus and for
# each vcpu of VCPUS, sorted by samples and by time.  arm64 and riscv64
# record no vcpu id: their reports are checked for all vcpus only.
run() {
	scenario=$1

	if ! perf test -w kvmgen "$dir/$scenario.data" "$scenario" > /dev/null; then
		echo "FAIL: perf test -w kvmgen $scenario"
		err=1
		return
	fi
	for analysis in $2; do
		for vcpu in all $3; do
			for sort in sample time; do
				check "$scenario" "$analysis" "$vcpu" "$sort"
			done
		done
	done
}

for scenario in vmx svm vmx-old unpaired; do
	run "$scenario" "vmexit mmio ioport" 1
done
run arm64 "vmexit hypercall mmio" ""
run s390 "vmexit hypercall" 1
run ppc64le "vmexit hypercall" 1
run riscv64 vmexit ""
run loongarch64 vmexit 1
run pvm vmexit 1
run vmx-nested vmexit 1
run vmx-halt "vmexit halt" 1

exit $err
