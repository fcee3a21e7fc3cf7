#!/bin/bash
# kvm-events: the readers agree on a real guest's recordings of every layout
# SPDX-License-Identifier: GPL-2.0

# What perf record writes for a real kernel's KVM, as users record it: -a
# into a file, a pipe, a --threads directory, with one guest and with two
# guests (two VMs) at once, fast (exits in a tight loop) and slow
# (halts).  Each is read by --generic-reader and by the fast reader in
# one and two threads: every analysis must be the same, and -v must say
# that the fast reader read it, as what (compare_readers).

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
guest="perf test -w kvmguest 300 300 300 300 30 30 30 30"
two_guests="$guest & $guest & wait"

# record NAME KIND WORKLOAD RECORD-OPTION...: record WORKLOAD, then
# compare the readers on it
record() {
	local name=$1 kind=$2 workload=$3 out
	shift 3
	out=$dir/$name
	[ "$kind" = stream ] && out=-
	if ! perf kvm-events record -q --event all "$@" -o "$out" -- sh -c "$workload" \
			> "$dir/$name.out" 2> "$dir/$name.log"; then
		echo "FAIL: perf kvm-events record $* -- $workload"
		cat "$dir/$name.log"
		err=1
		return
	fi
	[ "$kind" = stream ] && mv "$dir/$name.out" "$dir/$name"
	compare_readers "$dir/$name" "$kind" vmexit mmio ioport userspace msr hypercall halt
}

record guest-a.data file "$guest" -a
record guest.pipe stream "$guest"
record guest.dir directory:merged "$guest" --threads
record two.data file "$two_guests"
record two.dir directory:merged "$two_guests" --threads
record halts.data file "perf test -w kvmguest halt 20 2000" -a

exit $err
