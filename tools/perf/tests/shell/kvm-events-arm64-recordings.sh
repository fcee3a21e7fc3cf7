#!/bin/bash
# kvm-events: real arm64 recordings in which perf record wrote a sample twice
# SPDX-License-Identifier: GPL-2.0

# Recorded by Debian's arm64 perf record (6.1, before the series' fix-11,
# default ring buffer) in an emulated EL2 host on Debian's kernels (see
# kvm-events-recordings/README).  The guest made 1200 MMIO writes at
# 0x10000000, 700 reads at 0x10000008, 300 PSCI_VERSION calls and a last
# write at 0x10001000.  In each file the last sample before the first
# FINISHED_ROUND is written again right after it: the checker finds that
# copy and only it, and the report counts what the file holds, the copy
# included, as it must.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
recordings=$(dirname "$0")/kvm-events-recordings

# unpack NAME: sets data to the recording NAME, decompressed into $dir
unpack() {
	data=$dir/$1.data
	xz -dc "$recordings/$1.data.xz" > "$data" || exit 1
}

# 6.1: the copy is a kvm_mmio write: an access more than the guest made
unpack arm64-vhe-6.1-dup-kvm_mmio
kvm_events_check once "$data" 0x412c8:0x41330 || err=1
kvm_events_check keys "$data" mmio 0x10000000:W=1201 0x10000008:R=700 0x10001000:W=1 || err=1
kvm_events_check keys "$data" userspace MMIO=1901 || err=1

# 6.12: the copy is a kvm_entry, which ends no exit: every count is the guest's
unpack arm64-vhe-6.12-dup-kvm_entry
kvm_events_check once "$data" 0x41370:0x413c8 || err=1
kvm_events_check keys "$data" mmio 0x10000000:W=1200 0x10000008:R=700 0x10001000:W=1 || err=1
kvm_events_check keys "$data" vmexit DABT_LOW=1902 HVC64=300 IABT_LOW=1 IRQ=13 || err=1
exit $err
