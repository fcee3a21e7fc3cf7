#!/bin/bash
# kvm-events: live's metrics of the guest, through node_exporter and over HTTP, exactly
# SPDX-License-Identifier: GPL-2.0

# live over the bundled guest, with --metrics-file in node_exporter's
# textfile folder and --metrics-listen.  The guest writes port 0x500 7
# times and reads 0x501 5 times: once it has exited, live's own /metrics
# and node_exporter's (which reads the textfile) hold exactly those
# counts, and promtool check metrics passes on both.  Prometheus' server
# is not run here: under the emulated CPU a run with it did not end in
# 14 minutes; kvm-events-prometheus.sh runs it on the host, over a
# generated recording.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing
skip_without_python3
skip_without_prometheus

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
node=""
test_cleanup() {
	[ -n "$node" ] && kill "$node" && wait "$node"
}

# scrape PORT FILE: the /metrics of PORT into FILE; a server that does
# not listen yet, on a loaded emulated CPU, is asked again for 10 s
scrape() {
	python3 -c 'import sys, time, urllib.request
for attempt in range(10):
    try:
        page = urllib.request.urlopen(sys.argv[1], timeout=30).read().decode()
        break
    except OSError as e:
        if attempt == 9:
            sys.exit("%s: %s" % (sys.argv[1], e))
        time.sleep(1)
sys.stdout.write(page)' "http://127.0.0.1:$1/metrics" > "$2"
}

# check FILE WHAT: the guest's exits in FILE, and promtool's lint
check() {
	local got
	for want in "0x500:POUT 7" "0x501:PIN 5"; do
		set -- "$1" "$2" $want
		got=$(grep "^kvm_events_exits_total{.*key=\"$3\"" "$1" | awk '{ print $NF }')
		if [ "$got" != "$4" ]; then
			echo "FAIL: $2: $3 has ${got:-no} exits, expected $4"
			err=1
		fi
	done
	if ! promtool check metrics < "$1" > "$dir/promtool.out" 2>&1; then
		echo "FAIL: $2: promtool check metrics"
		cat "$dir/promtool.out"
		err=1
	fi
}

mkdir -p "$dir/textfile"
NODE_PORT=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$NODE_PORT" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$dir/textfile" > "$dir/node.log" 2>&1 &
node=$!
perf_port=$(free_port)
# The guest, whose process then stays 20 s more (live forgets a VM
# process once it exits), in which live's /metrics has the last counts
timeout 300 perf kvm-events live --stdio -d 1 --event ioport \
	--metrics-file "$dir/textfile/kvm.prom" --metrics-listen "127.0.0.1:$perf_port" \
	-- sh -c "KVMGUEST_LINGER=20 perf test -w kvmguest 7 5 4 3 > $dir/guest.out" \
	> "$dir/live.out" 2>&1 &
live=$!
for _ in $(seq 240); do
	grep -q 'the guest ended' "$dir/guest.out" 2> /dev/null && break
	sleep 0.5
done
sleep 3
if ! scrape "$perf_port" "$dir/live.prom"; then
	echo "FAIL: live's /metrics; live said:"
	tail -5 "$dir/live.out"
	err=1
fi
check "$dir/live.prom" "live --metrics-listen"
scrape "$NODE_PORT" "$dir/node.prom" || { echo "FAIL: node_exporter's /metrics"; err=1; }
check "$dir/node.prom" "node_exporter of live --metrics-file"
kill -INT $live 2> /dev/null
wait $live
[ $err = 0 ] && echo "the guest's exits exactly, in live's /metrics and node_exporter's" &&
	grep '^kvm_events_exits_total' "$dir/node.prom"
exit $err
