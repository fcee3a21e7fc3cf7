#!/bin/bash
# kvm-events: live shows the bundled guest's accesses and stops cleanly
# SPDX-License-Identifier: GPL-2.0

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
trap 'rm -rf "$dir"' EXIT
err=0

# Until the command ends; the last table holds every access.
if ! taskset -c 0 timeout 60 perf kvm-events live -d 1 --event ioport -- \
		perf test -w kvmguest 7 5 4 3 > "$dir/live" 2>&1; then
	echo "FAIL: perf kvm-events live -- perf test -w kvmguest"
	cat "$dir/live"
	err=1
fi
sed -n '/^Since the start:/,$p' "$dir/live" > "$dir/total"
for want in "0x500:POUT 7" "0x501:PIN 5"; do
	set -- $want
	got=$(awk -v key="$1" '$1 == key { print $2 }' "$dir/total")
	[ "$got" = "$2" ] || { echo "FAIL: live: $1 has ${got:-no} samples, expected $2"; err=1; }
done
grep -q "^Total Samples:12," "$dir/total" || { echo "FAIL: live: total"; err=1; }

# A SIGINT stops the recorder, then the last table comes and live exits 0.
timeout --preserve-status -s INT 2 perf kvm-events live -a -d 1 --event ioport > "$dir/sigint" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q "^Since the start:" "$dir/sigint"; then
	echo "FAIL: live after SIGINT: exit $rc"
	cat "$dir/sigint"
	err=1
fi

exit $err
