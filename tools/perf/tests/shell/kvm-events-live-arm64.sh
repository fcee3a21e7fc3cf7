#!/bin/bash
# kvm-events: live, live --use-bpf and record count the arm64 guest exactly
# SPDX-License-Identifier: GPL-2.0

# The arm64 guest's 9 MMIO writes and 7 reads (and its final store), seen
# by live at its end, by live --use-bpf, and by ten recordings with the
# default ring buffer, none of which may hold a sample twice (perf record
# did so under emulation before the series' fix-11).

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_arm64_kvm_tracing
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# final_rows FILE: "key samples" of live's last table since the start
final_rows() {
	awk '/^Since the start:|^perf kvm-events live --use-bpf, at the end:/ { n++ }
	     { line[n] = line[n] $0 "\n" } END { printf "%s", line[n] }' "$1" |
		awk '$2 ~ /^[0-9]+$/ { print $1, $2 }' | LC_ALL=C sort
}

want="0x20000000:W 9
0x20000010:R 7
0x20000020:W 1"
for bpf in "" --use-bpf; do
	# shellcheck disable=SC2086
	if ! timeout 120 perf kvm-events live $bpf -d 60 --event mmio -- \
			perf test -w kvmguest 9 7 0 0 > "$dir/live" 2>&1; then
		echo "FAIL: perf kvm-events live $bpf --event mmio -- perf test -w kvmguest 9 7"
		cat "$dir/live"
		err=1
		continue
	fi
	if [ "$(final_rows "$dir/live")" != "$want" ]; then
		echo "FAIL: live $bpf: not the guest's accesses:"
		cat "$dir/live"
		err=1
	fi
done

records_once "$dir" 10 300 200 0 0 || err=1
exit $err
