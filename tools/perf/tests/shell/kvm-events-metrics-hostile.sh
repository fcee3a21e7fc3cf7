#!/bin/bash
# kvm-events: the metrics server serves its scraper through hostile clients
# SPDX-License-Identifier: GPL-2.0

# report --metrics-listen serves a generated recording; a scraper of its
# own source address (127.0.0.200) gets its page every 0.2 s while, one
# after the other (lib/kvm_events_http.py): 50 slowloris clients from
# 127.0.0.2..51, each closed by the 5 s deadline; 1,000 connections at
# once from 127.0.0.2, of which perf holds 16 at most; 1 MiB of headers
# (a 4xx or a close); a garbage request line, the other methods (405,
# Allow: GET, HEAD), other paths (404), HEAD (GET's headers, no body);
# clients that reset or half-close mid-request (no SIGPIPE); and, of a
# page of 3 MB, 100 pipelined GETs never read (dropped by the deadline,
# which holds for writing too).  Each scrape
# answers in under 1 s, its body the quiet page, byte for byte.  perf
# lives, its page the same at the end, and promtool passes it.  Then
# live -a, where kvm tracepoints can be opened: the requests, the resets
# and the headers.  About 30 s.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3
if ! command -v promtool > /dev/null; then
	echo "skip: no promtool: apt-get install prometheus"
	exit 2
fi

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
pids=""
test_cleanup() {
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2> /dev/null && wait $pids 2> /dev/null
}
http="$(dirname "$0")/lib/kvm_events_http.py"

if ! "$KVMGEN" "$dir/two.data" two-vms > /dev/null; then
	echo "FAIL: kvmgen two-vms"
	exit 1
fi

# scrape PORT FILE: the page, by a quiet client; returns 1 if none
scrape() {
	python3 -c 'import sys, urllib.request
sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=5).read())' \
		"http://127.0.0.1:$1/metrics" > "$2" 2> /dev/null
}

# serving PORT PID: until PORT answers (10 s); returns 1 if PID exited
serving() {
	for _ in $(seq 100); do
		kill -0 "$2" 2> /dev/null || return 1
		scrape "$1" /dev/null && return 0
		sleep 0.1
	done
	return 1
}

port=$(free_port)
perf kvm-events report -i "$dir/two.data" --stdio --metrics-listen "$port" \
	> /dev/null 2> "$dir/report.err" &
perf_pid=$!
pids="$pids $perf_pid"
if ! serving "$port" "$perf_pid"; then
	echo "FAIL: report --metrics-listen $port does not serve"
	cat "$dir/report.err"
	exit 1
fi
scrape "$port" "$dir/quiet.prom"
echo "The quiet page: $(wc -c < "$dir/quiet.prom") bytes," \
	"$(grep -vc '^#' "$dir/quiet.prom") samples"
if ! promtool check metrics < "$dir/quiet.prom" > "$dir/promtool.out" 2>&1; then
	echo "FAIL: promtool check metrics on the page"
	cat "$dir/promtool.out"
	err=1
fi

start=$(date +%s%N)
if ! python3 "$http" "$port" "$perf_pid" "$dir/quiet.prom" \
		slowloris flood headers requests resets; then
	err=1
fi
echo "report: the hostile clients took $((($(date +%s%N) - start) / 1000000)) ms"

if ! kill -0 "$perf_pid" 2> /dev/null; then
	wait "$perf_pid"
	echo "FAIL: report --metrics-listen exited, status $?"
	cat "$dir/report.err"
	exit 1
fi
if ! scrape "$port" "$dir/end.prom" || ! cmp -s "$dir/quiet.prom" "$dir/end.prom"; then
	echo "FAIL: the page at the end is not the quiet page"
	err=1
fi
kill -INT "$perf_pid"
wait "$perf_pid"
status=$?
pids=""
if [ $status != 0 ]; then
	echo "FAIL: report --metrics-listen exited $status on SIGINT"
	cat "$dir/report.err"
	err=1
fi

# A page of 3 MB, more than the sockets' buffers hold: a client that
# never reads its answer holds perf's writing up, until the deadline
if ! "$KVMGEN" "$dir/big.data" vmx+vcpus=64 20000 > /dev/null; then
	echo "FAIL: kvmgen vmx+vcpus=64"
	exit 1
fi
port=$(free_port)
perf kvm-events report -i "$dir/big.data" --stdio --metrics-by vcpu \
	--metrics-listen "$port" > /dev/null 2> "$dir/big.err" &
perf_pid=$!
pids="$perf_pid"
if ! serving "$port" "$perf_pid"; then
	echo "FAIL: report --metrics-by vcpu --metrics-listen $port does not serve"
	cat "$dir/big.err"
	exit 1
fi
scrape "$port" "$dir/big.prom"
echo "The page of 64 vcpus: $(wc -c < "$dir/big.prom") bytes"
if ! python3 "$http" "$port" "$perf_pid" "$dir/big.prom" nonreader; then
	err=1
fi
if ! scrape "$port" "$dir/end.prom" || ! cmp -s "$dir/big.prom" "$dir/end.prom"; then
	echo "FAIL: the page of 64 vcpus at the end is not the quiet page"
	err=1
fi
kill -INT "$perf_pid"
wait "$perf_pid"
pids=""

# live -a over whatever the host runs: its page may change, so only its form
if [ "$(id -u)" != 0 ] || ! perf list 'kvm:kvm_exit' 2> /dev/null | grep -q kvm_exit; then
	echo "live: skipped, no kvm:kvm_exit tracepoint to open (root, the kvm module)"
	exit $err
fi
port=$(free_port)
perf kvm-events live --stdio -a -d 1 --metrics-listen "127.0.0.1:$port" \
	> /dev/null 2> "$dir/live.err" &
live_pid=$!
pids="$live_pid"
if ! serving "$port" "$live_pid"; then
	echo "FAIL: live --metrics-listen 127.0.0.1:$port does not serve"
	cat "$dir/live.err"
	exit 1
fi
# Before its first refresh, live's page is empty
for _ in $(seq 30); do
	scrape "$port" "$dir/live.prom" && [ -s "$dir/live.prom" ] && break
	sleep 0.1
done
echo "live:"
if ! python3 "$http" --any-body "$port" "$live_pid" "$dir/live.prom" \
		requests resets headers; then
	err=1
fi
if ! kill -0 "$live_pid" 2> /dev/null; then
	echo "FAIL: live --metrics-listen exited"
	cat "$dir/live.err"
	err=1
fi
exit $err
