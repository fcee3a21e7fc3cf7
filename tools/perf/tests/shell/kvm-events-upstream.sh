#!/bin/bash
# kvm-events: reports agree with perf kvm stat key by key
# SPDX-License-Identifier: GPL-2.0

# perf kvm stat is the oracle: on the same generated recordings, every key
# must have the same samples and the same average time in both reports.
# perf kvm stat counts an exit only when its entry was recorded, so only
# the scenarios where every sample is paired are compared.  It names exit
# reasons it does not know UNKNOWN, where kvm-events shows their number.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

if ! upstream perf kvm stat report -h 2>&1 | grep -q -- '--event'; then
	echo "skip: this perf has no perf kvm stat for this architecture"
	exit 2
fi

# name samples avg: the rows of a report, sorted
rows() {
	awk -v unknown="$1" '
		$2 ~ /^[0-9]+$/ && $3 ~ /%$/ {
			name = $1
			if (unknown && name ~ /^0x[0-9a-f]+$/)
				name = "UNKNOWN"
			print name, $2, (NF > 7 ? $7 : $5)
		}' | LC_ALL=C sort
}

for scenario in vmx svm vmx-old; do
	data="$dir/$scenario.data"
	"$KVMGEN" "$data" "$scenario" > /dev/null || {
		echo "FAIL: kvmgen $scenario"
		err=1
		continue
	}
	for analysis in vmexit mmio ioport; do
		for vcpu in "" "--vcpu 1"; do
			unknown=0
			[ "$analysis" = vmexit ] && unknown=1
			perf kvm-events report -i "$data" --event $analysis $vcpu |
				rows $unknown > "$dir/ours"
			upstream perf kvm -i "$data" stat report --stdio \
				--event $analysis $vcpu 2>&1 | rows 0 > "$dir/upstream"
			if [ ! -s "$dir/ours" ] || ! diff -u "$dir/upstream" "$dir/ours"; then
				echo "FAIL: $scenario --event $analysis $vcpu: reports differ"
				err=1
			fi
		done
	done
done

exit $err
