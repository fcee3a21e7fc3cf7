#!/bin/bash
# kvm-events: JSON output holds the fields the man page documents
# SPDX-License-Identifier: GPL-2.0

# The fields of report's and diff's JSON, with every option that adds
# some, must be those of the man page's "JSON AND CSV OUTPUT", with their
# types: each one found documented, each one documented found.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen

skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

"$KVMGEN" "$dir/old.data" vmx+names 1000 > /dev/null || exit 1
"$KVMGEN" "$dir/new.data" vmx+names 3000 > /dev/null || exit 1
"$KVMGEN" "$dir/svm.data" svm 1000 > /dev/null || exit 1
doc="$(dirname "$0")/../../Documentation/perf-kvm-events.txt"
"$KVMGEN" "$dir/sched.data" vmx-halt+switch+system-wide 1000 > /dev/null || exit 1
# A record --use-bpf recording, of no guest, has totals.kernel: where this
# host can load BPF programs (root, skeletons), the checker reads it too.
if [ "$(id -u)" = 0 ] && perf kvm-events record -q --use-bpf --event ioport \
		-o "$dir/bpf.data" -- true > /dev/null 2>&1; then
	export KVM_EVENTS_SCHEMA_BPF=$dir/bpf.data
fi
kvm_events_check schema "$doc" "$dir/old.data" "$dir/svm.data" "$dir/new.data" "$dir/sched.data"
