#!/bin/bash
# kvm-events: Prometheus scrapes the metrics, by node_exporter's textfile and over HTTP
# SPDX-License-Identifier: GPL-2.0

# The real thing, on loopback ports, with its data in the test's folder:
# node_exporter reads report --metrics-file's textfile, Prometheus scrapes
# node_exporter and report --metrics-listen.  Queried through Prometheus'
# HTTP API, the exit counts per key and VM equal the report's (--per-vm
# --json) on both ways out, and histogram_quantile(0.99) lies in the
# bucket of the report's p99 (le = 2^b - 1 ns).  promtool check metrics
# passes on both outputs, and on a named VM's labels.  Then the bad cases: a metrics file in a
# missing folder, a port in use, the series cap, and a scraper that never
# sends its request while live refreshes on time.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3
skip_without_prometheus

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
pids=""
test_cleanup() {
	prometheus_stop
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2> /dev/null && wait $pids 2> /dev/null
}
data="$dir/two.data"
mkdir -p "$dir/textfile"

if ! "$KVMGEN" "$data" two-vms > /dev/null; then
	echo "FAIL: kvmgen two-vms"
	exit 1
fi
# metrics_file [REPORT OPTIONS]: the textfile of the recording
metrics_file() {
	if ! perf kvm-events report -i "$data" --stdio "$@" \
			--metrics-file "$dir/textfile/kvm.prom" \
			> /dev/null 2> "$dir/report.err"; then
		echo "FAIL: report --metrics-file $*"
		cat "$dir/report.err"
		exit 1
	fi
}

# The textfile of the first half, then of all: the counters grow, as a
# host's do, and rate() has something to say.
metrics_file --time 0%-50%
perf kvm-events report -i "$data" --per-vm --json > "$dir/report.json"

perf_port=$(free_port)
perf kvm-events report -i "$data" --stdio --metrics-listen "127.0.0.1:$perf_port" \
	> /dev/null 2> "$dir/listen.err" &
pids="$pids $!"
prometheus_start "$dir" "$perf_port"

# Until both jobs' series are in, 60 s at most
for _ in $(seq 120); do
	n=$(prometheus_query 'count by (job) (kvm_events_exits_total)' 2> /dev/null | wc -l)
	[ "$n" = 2 ] && break
	sleep 0.5
done
if [ "$n" != 2 ]; then
	echo "FAIL: Prometheus has not scraped both ways out"
	tail -5 "$dir/prometheus.log" "$dir/node.log" "$dir/listen.err"
	exit 1
fi
sleep 3
metrics_file
total=$(python3 -c 'import json, sys
print(sum(k["samples"] for k in json.load(sys.stdin)["keys"]))' < "$dir/report.json")
for _ in $(seq 60); do
	got=$(prometheus_query 'sum(kvm_events_exits_total{job="node"})' | awk '{ print $NF }')
	[ "$got" = "$total" ] && break
	sleep 0.5
done
sleep 2

for job in node perf; do
	prometheus_query "kvm_events_exits_total{job=\"$job\"}" > "$dir/$job.exits"
	bucket="kvm_events_exit_duration_seconds_bucket{job=\"$job\"}"
	prometheus_query "histogram_quantile(0.99, $bucket)" > "$dir/$job.p99"
	if ! python3 - "$dir/report.json" "$dir/$job.exits" "$dir/$job.p99" "$job" <<'EOF'; then
import json, math, sys
report = json.load(open(sys.argv[1]))
want = {(str(k["group"]), k["key"]): k for k in report["keys"]}

def series(path):
    got = {}
    for line in open(path):
        labels, value = line.rsplit(" ", 1)
        labels = json.loads(labels)
        got[(labels["pid"], labels["key"])] = float(value)
    return got

bad = 0
exits = series(sys.argv[2])
if {k: int(v) for k, v in exits.items()} != {k: v["samples"] for k, v in want.items()}:
    print("FAIL: %s: kvm_events_exits_total differs from the report:" % sys.argv[4])
    print(sorted(exits.items()))
    bad = 1
for k, q in series(sys.argv[3]).items():
    p99 = want[k]["p99_ns"]
    # The bucket of the report's p99: (2^(b-1) - 1, 2^b - 1] ns, the first from 0
    b = max(8, math.ceil(math.log2(p99 + 1)))
    low = 0 if b == 8 else (2 ** (b - 1) - 1) / 1e9
    high = (2 ** b - 1) / 1e9
    if not (low <= q <= high):
        print("FAIL: %s: %s: histogram_quantile(0.99) %g s, the report's p99 %d ns: not in [%g, %g]"
              % (sys.argv[4], k, q, p99, low, high))
        bad = 1
sys.exit(bad)
EOF
		err=1
	fi
done
if [ $err = 0 ]; then
	echo "Prometheus agrees with the report: $(wc -l < "$dir/node.exits") series each way out"
	echo "Exits per second per key, and p99 per key, over the last minute:"
	prometheus_query 'sum by (key) (rate(kvm_events_exits_total{job="node"}[1m]))'
	prometheus_query 'histogram_quantile(0.99,
		sum by (le, key) (rate(kvm_events_exit_duration_seconds_bucket{job="node"}[1m])))'
fi

# promtool lints both outputs
python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
	"http://127.0.0.1:$perf_port/metrics" > "$dir/listen.prom"
for f in "$dir/textfile/kvm.prom" "$dir/listen.prom"; do
	if [ ! -s "$f" ] || ! promtool check metrics < "$f" > "$dir/promtool.out" 2>&1; then
		echo "FAIL: promtool check metrics $(basename "$f")"
		cat "$dir/promtool.out"
		err=1
	fi
done

# A named VM's labels: vm and vm_uuid, of a name with a space, quotes, a
# comma, a backslash, a newline and UTF-8, escaped; and an unnamed
# process's pid and comm.  The C case checks the exact text and writes
# its page here, for promtool to lint.  0.1 s.
if ! KVM_EVENTS_TEST_METRICS="$dir/named.prom" \
		perf test "metrics label a named VM" > "$dir/named.out" 2>&1 ||
		! grep -q ': Ok$' "$dir/named.out" || [ ! -s "$dir/named.prom" ] ||
		! promtool check metrics < "$dir/named.prom" > "$dir/promtool.out" 2>&1; then
	echo "FAIL: the named VM's metrics"
	cat "$dir/named.out" "$dir/promtool.out"
	err=1
fi
want='kvm_events_exits_total{analysis="vmexit",key="0x1",'
want+='vm="web \"1\", a\\b\nnext été",vm_uuid="0f0e0d0c-0b0a-0908-0706-050403020100"} 7'
if ! grep -qxF "$want" "$dir/named.prom"; then
	echo "FAIL: the named VM's series is not: $want"
	grep '^kvm_events_exits_total' "$dir/named.prom"
	err=1
fi

# The bad cases: each one line, exit 1, before any event
check_error() {
	local want=$1
	shift
	if "$@" > "$dir/out" 2>&1 || [ "$(tail -1 "$dir/out")" != "$want" ]; then
		echo "FAIL: $*: expected '$want', got:"
		cat "$dir/out"
		err=1
	fi
}
no_folder="cannot write in its folder: No such file or directory"
check_error "perf kvm-events report: --metrics-file $dir/none/kvm.prom: $no_folder" \
	perf kvm-events report -i "$data" --stdio --metrics-file "$dir/none/kvm.prom"
check_error "perf kvm-events live: --metrics-listen 127.0.0.1:$NODE_PORT: the port is in use" \
	perf kvm-events live --stdio -d 1 --metrics-listen "127.0.0.1:$NODE_PORT" -- true
bad_address="expected [ADDRESS:]PORT, an IPv4 address or an IPv6 one in brackets,"
bad_address="$bad_address and a port from 1 to 65535"
check_error "perf kvm-events live: --metrics-listen 127.0.0.1:x: $bad_address" \
	perf kvm-events live --stdio -d 1 --metrics-listen "127.0.0.1:x" -- true

# The cap: the 3 busiest keys, and the others counted
perf kvm-events report -i "$data" --stdio --metrics-by key --metrics-max-series 3 \
	--metrics-file "$dir/cap.prom" > /dev/null
keys=$(python3 -c 'import json, sys; print(len({k["key"] for k in json.load(sys.stdin)["keys"]}))' \
	< "$dir/report.json")
series=$(grep -c '^kvm_events_exits_total{' "$dir/cap.prom")
dropped=$(sed -n 's/^kvm_events_dropped_series{analysis="vmexit"} //p' "$dir/cap.prom")
if [ "$series" != 3 ] || [ "$dropped" != $((keys - 3)) ]; then
	echo "FAIL: --metrics-max-series 3: $series series, $dropped dropped of $keys keys"
	err=1
fi

# A scraper that connects and never sends: live still refreshes every second.
live_port=$(free_port)
start=$(date +%s%N)
perf kvm-events live --stdio -d 1 --metrics-listen "127.0.0.1:$live_port" -- sleep 4 \
	> "$dir/live.out" 2>&1 &
live=$!
sleep 0.5
python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
time.sleep(8)' \
	"$live_port" 2> /dev/null &
pids="$pids $!"
wait $live
took=$(( ($(date +%s%N) - start) / 1000000 ))
refreshes=$(grep -c '^perf kvm-events live, refresh' "$dir/live.out")
if [ "$refreshes" -lt 4 ] || [ "$took" -gt 7000 ]; then
	echo "FAIL: with a stalled scraper, live made $refreshes refreshes in $took ms"
	cat "$dir/live.out"
	err=1
fi
exit $err
