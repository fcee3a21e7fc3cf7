#!/bin/bash
# kvm-events: live's --vm takes a VM that starts after it, by its name
# SPDX-License-Identifier: GPL-2.0

# No guest runs: a made-up VMM (sh, as qemu-system-x86_64 with -name
# guest=web1) starts once live has printed its first refresh, and live is
# to take it at the scan of a later one.  Until then each refresh's
# footer says, once, that --vm 'web*' matches no VM; after, none does.
# The same with --use-bpf where this perf has BPF skeletons.  About 5 s
# each, 10 s in all.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracepoints

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
vmm=""
test_cleanup() {
	[ -n "$vmm" ] && wait "$vmm" 2> /dev/null
}

# refreshes FILE: the number of each refresh, and how many footer lines
# of --vm it has, one refresh a line: "N COUNT"
refreshes() {
	awk '/^perf kvm-events live.*, refresh [0-9]+:$/ {
		if (n) print n, c; n = $NF + 0; c = 0 }
	     /^--vm: no VM matches web\*\.$/ { c++ }
	     END { if (n) print n, c }' "$1"
}

# live_with_vm NAME [OPTIONS]: live for 3.5 s, the VMM started in a new
# process once live's first refresh is out: after live's first scan,
# however long live took to start (a BPF program's load, on a busy host)
live_with_vm() {
	local name=$1 live
	shift
	perf kvm-events live --stdio -d 1 --vm 'web*' "$@" -- sleep 3.5 > "$dir/$name" 2>&1 &
	live=$!
	for _ in $(seq 200); do
		grep -q "^perf kvm-events live.*, refresh 1:$" "$dir/$name" && break
		sleep 0.05
	done
	# It ends by itself, after live.
	bash -c 'exec -a qemu-system-x86_64 sh -c "sleep 4; :" -name guest=web1' &
	vmm=$!
	if ! wait "$live"; then
		echo "FAIL: live ($name) --vm 'web*'"
		cat "$dir/$name"
		err=1
	fi
	wait "$vmm" 2> /dev/null
	vmm=""
	refreshes "$dir/$name" > "$dir/$name.per"
	# The first refresh says it once; the third and later, after the
	# VMM's start and the scan that sees it, do not.
	if [ "$(sed -n 1p "$dir/$name.per")" != "1 1" ] ||
	   [ "$(awk '$1 >= 3 && $2 != 0' "$dir/$name.per" | wc -l)" != 0 ] ||
	   [ "$(awk '$1 >= 3' "$dir/$name.per" | wc -l)" = 0 ]; then
		echo "FAIL: live ($name) --vm 'web*': refreshes and their --vm lines:"
		cat "$dir/$name.per"
		err=1
	fi
}

live_with_vm tracepoints
if [ "$err" = 0 ] && ! perf kvm-events live --use-bpf -- true 2>&1 |
		grep -q "without BPF skeletons"; then
	live_with_vm bpf --use-bpf
fi
exit $err
