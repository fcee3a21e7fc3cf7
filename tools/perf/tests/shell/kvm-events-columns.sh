#!/bin/bash
# kvm-events: table columns line up with keys longer than 20
# SPDX-License-Identifier: GPL-2.0

# The key column is as wide as the longest key, at least the original
# layout's 20: every row of every table (the default one, --stats,
# --fields, --per-vcpu, --per-vm, --split-idle and --top's) is as wide as
# its header and each cell ends where its header does.  The recordings
# have keys past 20 characters: the x86 MSR names
# (0x4b564d00:W/KVM_WALL_CLOCK_NEW), nested exits (L2:EXTERNAL_INTERRUPT)
# and riscv's LOAD_GUEST_PAGE_FAULT.  kvm-events-truth.sh checks the
# default table byte for byte.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

for run in "vmx msr" "vmx-nested vmexit" "riscv64 vmexit" "two-vms vmexit"; do
	set -- $run
	data="$dir/$1.data"
	if ! "$KVMGEN" "$data" "$1" > /dev/null; then
		echo "FAIL: kvmgen $1"
		err=1
		continue
	fi
	for opts in "" "--stats" "--fields avg,samples,max" "--per-vcpu" "--per-vm" \
		    "--split-idle" "--top 8" "--per-vcpu --top 3 --stats"; do
		# shellcheck disable=SC2086 # the options are words
		kvm_events_check columns "$data" "$2" $opts || err=1
	done
done

exit $err
