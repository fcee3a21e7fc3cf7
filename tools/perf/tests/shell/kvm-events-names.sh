#!/bin/bash
# kvm-events: the VMs' names a recording carries, in every output and --vm
# SPDX-License-Identifier: GPL-2.0

# kvmgen's +names writes HEADER_KVM_VMS as perf kvm-events record does,
# for two VMs, one of whose names has a space, quotes, a comma, a
# backslash, a newline and UTF-8; the truth has each VM's vms[] entry.
# The reports must show those names, and --vm take exactly their VMs.  A
# recording without names, and ones whose names are cut short or
# corrupt, report by pid, the latter with one warning naming the file.
# Costs about 3 s.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

"$KVMGEN" "$dir/names.data" two-vms+names 2000 > /dev/null || exit 1
kvm_events_check names "$dir/names.data" || err=1

"$KVMGEN" "$dir/plain.data" two-vms 2000 > /dev/null || exit 1
kvm_events_check names-none "$dir/plain.data" || err=1

for how in corrupt cut; do
	"$KVMGEN" "$dir/$how.data" "two-vms+names=$how" 2000 > /dev/null || exit 1
	warning="its VMs' names are cut short or corrupt: the VMs are shown by pid"
	kvm_events_check names-none "$dir/$how.data" "$dir/$how.data: $warning" || err=1
done

# Upstream's readers still read the file: perf script sees every sample.
samples=$(perf script -i "$dir/names.data" 2> /dev/null | wc -l)
want=$(perf script -i "$dir/plain.data" 2> /dev/null | wc -l)
if [ "$samples" -ne "$want" ] || [ "$samples" -eq 0 ]; then
	echo "FAIL: perf script of the named recording: $samples samples, not $want"
	err=1
fi
exit $err
