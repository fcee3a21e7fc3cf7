#!/bin/bash
# kvm-events: live --use-bpf refreshes, ends with its workload or a SIGINT
# SPDX-License-Identifier: GPL-2.0

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_bpf

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

fail() {
	echo "FAIL: $1"
	[ -f "${2:-}" ] && cat "$2"
	err=1
}

# No guest here: refreshes, then the table at the end, with no sample.
perf kvm-events live --use-bpf -d 1 --event ioport -- sleep 2.5 > "$dir/sleep" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "live --use-bpf -- sleep 2.5: exit $rc" "$dir/sleep"
n=$(grep -c "^perf kvm-events live --use-bpf, refresh [0-9]*:$" "$dir/sleep")
[ "$n" -eq 2 ] || fail "live --use-bpf -d 1 -- sleep 2.5: $n refreshes, expected 2" "$dir/sleep"
sed -n '/^perf kvm-events live --use-bpf, at the end:/,$p' "$dir/sleep" > "$dir/end"
grep -q "^No ioport samples; kvm events read: none.$" "$dir/end" ||
	fail "live --use-bpf: the table at the end" "$dir/sleep"

# The workload's exit status is live's.
perf kvm-events live -b -d 5 --event mmio -- sh -c 'exit 3' > "$dir/exit3" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "live -b -- sh -c 'exit 3': exit $rc, expected 3" "$dir/exit3"

# A SIGINT stops it cleanly, with the table at the end: sent after its
# first refresh, however long the program took to load.
perf kvm-events live -b -a -d 1 --event userspace > "$dir/sigint" 2>&1 &
pid=$!
for _ in $(seq 200); do
	grep -q "^perf kvm-events live --use-bpf, refresh 1:$" "$dir/sigint" && break
	sleep 0.05
done
kill -INT $pid
wait $pid
rc=$?
if [ $rc -ne 0 ] || ! grep -q "^perf kvm-events live --use-bpf, at the end:" "$dir/sigint"; then
	fail "live --use-bpf after SIGINT: exit $rc" "$dir/sigint"
fi

# Bad input: one line naming the option, a non-zero exit.
check_error() {
	local want=$1
	shift
	if perf kvm-events live "$@" > "$dir/out" 2>&1; then
		fail "live $*: exit 0"
	elif ! grep -qF -- "$want" "$dir/out"; then
		fail "live $*: no '$want'" "$dir/out"
	fi
}
check_error "--bpf-map-entries 0: expected a number from 1 to 16777216" \
	--use-bpf --bpf-map-entries 0 -- true
check_error "-p 12x: not a list of process ids" --use-bpf -p 12x
check_error "-a, -p and a command exclude each other" --use-bpf -p 1 -- true
check_error "--duration: not with --use-bpf" --use-bpf --duration 5 -- true
check_error "--bpf-map-entries: only with --use-bpf" --bpf-map-entries 8 -- true

exit $err
