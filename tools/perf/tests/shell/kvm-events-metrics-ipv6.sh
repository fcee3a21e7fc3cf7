#!/bin/bash
# kvm-events: the metrics server listens where told, IPv4 and IPv6
# SPDX-License-Identifier: GPL-2.0

# report --metrics-listen: PORT alone serves 127.0.0.1 and nothing else
# (not 127.0.0.2, not ::1); [::1]:PORT serves ::1 and not 127.0.0.1;
# [::]:PORT serves ::1 and 127.0.0.1 (dual-stack); each the same page,
# byte for byte.  Malformed IPv6 specs are one line and exit 1.  The
# IPv6 part skips, saying so, on a host without an IPv6 loopback.  2 s.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
pids=""
test_cleanup() {
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2> /dev/null && wait $pids 2> /dev/null
}
data="$dir/two.data"
if ! "$KVMGEN" "$data" two-vms > /dev/null; then
	echo "FAIL: kvmgen two-vms"
	exit 1
fi

# fetch HOST PORT FILE: GET /metrics from HOST into FILE; prints what
# happened: 200, another status, or the connection's error
fetch() {
	python3 - "$@" <<'EOF'
import socket, sys
host, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fam = socket.AF_INET6 if ":" in host else socket.AF_INET
try:
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect((host, port))
    s.sendall(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
    got = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        got += b
except OSError as e:
    print(e.strerror or str(e))
    sys.exit(0)
head, _, body = got.partition(b"\r\n\r\n")
open(out, "wb").write(body)
print(head.split(b"\r\n")[0].split(b" ")[1].decode() if head else "no answer")
EOF
}

# serve SPEC: report serving SPEC, until it answers on HOST (10 s)
serve() {
	perf kvm-events report -i "$data" --stdio --metrics-listen "$1" \
		> /dev/null 2> "$dir/serve.err" &
	pid=$!
	pids="$pids $pid"
	for _ in $(seq 100); do
		[ "$(fetch "$2" "$port" /dev/null)" = 200 ] && return 0
		kill -0 $pid 2> /dev/null || break
		sleep 0.1
	done
	echo "FAIL: --metrics-listen $1 does not serve on $2"
	cat "$dir/serve.err"
	exit 1
}

# expect SPEC HOST WANT: a GET from HOST gets WANT (200: the page)
expect() {
	local got
	got=$(fetch "$2" "$port" "$dir/body")
	echo "--metrics-listen $1, from $2: $got"
	if [ "$3" = 200 ] && [ "$got" = 200 ]; then
		if ! cmp -s "$dir/body" "$dir/page"; then
			echo "FAIL: --metrics-listen $1, from $2: not the page"
			err=1
		fi
	elif [ "$got" != "$3" ]; then
		echo "FAIL: --metrics-listen $1, from $2: expected $3"
		err=1
	fi
}

stop() {
	kill -INT $pid
	wait $pid
	pids=""
}

refused="Connection refused"
port=$(free_port)
serve "$port" 127.0.0.1
fetch 127.0.0.1 "$port" "$dir/page" > /dev/null
expect "$port" 127.0.0.1 200
expect "$port" 127.0.0.2 "$refused"
ipv6=0
if grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2> /dev/null; then
	ipv6=1
	expect "$port" ::1 "$refused"
fi
stop

if [ $ipv6 = 0 ]; then
	echo "IPv6: skipped, the host has no IPv6 loopback (::1 in /proc/net/if_inet6)"
	exit $err
fi
port=$(free_port)
serve "[::1]:$port" ::1
expect "[::1]:$port" ::1 200
expect "[::1]:$port" 127.0.0.1 "$refused"
stop

port=$(free_port)
serve "[::]:$port" ::1
expect "[::]:$port" ::1 200
expect "[::]:$port" 127.0.0.1 200
expect "[::]:$port" 127.0.0.2 200
stop

# Malformed: one line, exit 1
for spec in "[::1]" "[::1:$port" "[::1]:" "[::1]:0" "[::1]:65536" "[fe80::zz]:$port"; do
	perf kvm-events report -i "$data" --stdio --metrics-listen "$spec" \
		> /dev/null 2> "$dir/bad.err" &
	pid=$!
	for _ in $(seq 50); do
		kill -0 $pid 2> /dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2> /dev/null; then
		kill -INT $pid
		wait $pid
		echo "FAIL: --metrics-listen $spec was taken, and served"
		err=1
		continue
	fi
	wait $pid
	status=$?
	echo "--metrics-listen $spec: exit $status: $(cat "$dir/bad.err")"
	if [ $status != 1 ] || [ "$(wc -l < "$dir/bad.err")" != 1 ]; then
		echo "FAIL: --metrics-listen $spec: expected one line and exit 1"
		err=1
	fi
done
exit $err
