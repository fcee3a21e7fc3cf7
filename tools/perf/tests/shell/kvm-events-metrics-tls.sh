#!/bin/bash
# kvm-events: Prometheus scrapes the metrics over TLS with basic auth
# SPDX-License-Identifier: GPL-2.0

# --metrics-web-config, exporter-toolkit's web config: the test makes a
# CA, a server certificate (IP:127.0.0.1, DNS:localhost), a client
# certificate of that CA and one of another CA, and a bcrypt hash; the
# config names its files relative to its own folder, and perf runs
# elsewhere.  A real Prometheus scrapes report --metrics-listen with
# scheme https, the CA and basic auth: up is 1 and the exits it sums are
# the report's; a job with a wrong password is down on a 401.  curl: the
# right password gets the page, byte for byte the plain server's (its
# scheme named Basic or basic); a wrong one, an unknown user and none get
# a 401 with WWW-Authenticate: Basic realm="perf kvm-events", never the
# page; plain http to the TLS port gets no page.  Hostile clients over
# TLS, while a scraper with the password gets the page in under 2 s each
# 0.2 s: the other methods and paths, clients that reset mid-answer, 40
# stalled handshakes (closed by the 5 s deadline), 16 clients sending
# wrong passwords for 3 s; and an unknown user is answered as slowly as a
# known one's wrong password.
# With RequireAndVerifyClientCert, the CA's client certificate gets the
# page, none and the other CA's do not.  Then the bad configs: each one
# line naming the key or the file, a non-zero exit, before serving: an
# unknown key at the top and in tls_server_config, a missing certificate,
# a key that is not one, another certificate's key, a plain and an MD5
# password, bad YAML, RequireAnyClientCert, client_ca_file without
# client_auth_type and the reverse, a missing config, and the web config
# without --metrics-listen.  About 30 s.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3
skip_without_prometheus
for tool in openssl curl; do
	if ! command -v $tool > /dev/null; then
		echo "skip: no $tool: apt-get install $tool"
		exit 2
	fi
done
if ! python3 -W ignore -c 'import crypt, sys
sys.exit(not crypt.crypt("x", crypt.mksalt(crypt.METHOD_BLOWFISH)).startswith("$2"))' \
		2> /dev/null; then
	echo "skip: python3's crypt module makes no bcrypt hash here"
	exit 2
fi

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
pids=""
test_cleanup() {
	prometheus_stop
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2> /dev/null && wait $pids 2> /dev/null
}
data="$dir/two.data"
web="$dir/web"
mkdir -p "$web"

if ! "$KVMGEN" "$data" two-vms > /dev/null; then
	echo "FAIL: kvmgen two-vms"
	exit 1
fi
perf kvm-events report -i "$data" --per-vm --json > "$dir/report.json"
total=$(python3 -c 'import json, sys
print(sum(k["samples"] for k in json.load(sys.stdin)["keys"]))' < "$dir/report.json")

# The certificates: P-256 keys, a day long
# cert NAME CA SAN: NAME.key and NAME.pem, signed by CA (none: self-signed)
cert() {
	local name=$1 ca=$2 san=$3
	if [ "$ca" = none ]; then
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout "$web/$name.key" -out "$web/$name.pem" -days 1 \
			-subj "/CN=perf test $name" 2> /dev/null
		return
	fi
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$web/$name.key" -out "$web/$name.csr" \
		-subj "/CN=perf test $name" 2> /dev/null &&
	printf '%s\n' "$san" > "$web/$name.ext" &&
	openssl x509 -req -in "$web/$name.csr" -CA "$web/$ca.pem" -CAkey "$web/$ca.key" \
		-CAcreateserial -out "$web/$name.pem" -days 1 -extfile "$web/$name.ext" 2> /dev/null
}
if ! cert ca none "" || ! cert other-ca none "" ||
		! cert server ca "subjectAltName=IP:127.0.0.1,DNS:localhost" ||
		! cert client ca "extendedKeyUsage=clientAuth" ||
		! cert stranger other-ca "extendedKeyUsage=clientAuth"; then
	echo "FAIL: openssl could not make the certificates"
	exit 1
fi

user=prom
password='s3cret: pass'
hash=$(python3 -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH)))' "$password")
printf '%s\n' "# perf kvm-events --metrics-web-config" \
	"tls_server_config:" "  cert_file: server.pem" "  key_file: server.key" \
	"basic_auth_users:" "  $user: $hash" > "$web/web.yml"
printf '%s\n' "tls_server_config:" "  cert_file: server.pem" "  key_file: server.key" \
	"  client_ca_file: ca.pem" "  client_auth_type: RequireAndVerifyClientCert" \
	> "$web/mtls.yml"
echo "The hash: ${hash:0:7}... (${#hash} characters)"

# listen NAME PORT [OPTIONS]: report serving the recording from another
# folder (/), its stderr in $dir/NAME.err, its pid in $pid; until PORT
# accepts a connection (10 s)
listen() {
	local name=$1 port=$2
	shift 2
	(cd / && exec perf kvm-events report -i "$data" --stdio \
		--metrics-listen "127.0.0.1:$port" "$@") > /dev/null 2> "$dir/$name.err" &
	pid=$!
	pids="$pids $pid"
	for _ in $(seq 100); do
		kill -0 $pid 2> /dev/null || break
		if python3 -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)' "$port" 2> /dev/null; then
			return 0
		fi
		sleep 0.1
	done
	echo "FAIL: report --metrics-listen 127.0.0.1:$port $* does not serve"
	cat "$dir/$name.err"
	exit 1
}

plain_port=$(free_port)
listen plain "$plain_port"
curl -sS -o "$dir/plain.prom" "http://127.0.0.1:$plain_port/metrics"
tls_port=$(free_port)
listen tls "$tls_port" --metrics-web-config "$web/web.yml"
tls_pid=$pid
mtls_port=$(free_port)
listen mtls "$mtls_port" --metrics-web-config "$web/mtls.yml"
mtls_pid=$pid

# fetch NAME URL [CURL OPTIONS]: the status in $code, the body in
# $dir/NAME.body, the headers in $dir/NAME.head, curl's error in $dir/NAME.curl
fetch() {
	local name=$1 url=$2
	shift 2
	code=$(curl -sS --max-time 5 -D "$dir/$name.head" -o "$dir/$name.body" \
		-w '%{http_code}' "$@" "$url" 2> "$dir/$name.curl")
	[ -f "$dir/$name.body" ] || : > "$dir/$name.body"
	touch "$dir/$name.head"
}

# page NAME: the body of NAME is the plain server's page
page() {
	cmp -s "$dir/$1.body" "$dir/plain.prom"
}

# no_page NAME WHAT: the body of NAME holds no metric; says FAIL if it does
no_page() {
	if grep -q kvm_events_ "$dir/$1.body"; then
		echo "FAIL: $2 got the page"
		err=1
	fi
}

url="https://127.0.0.1:$tls_port/metrics"
fetch right "$url" --cacert "$web/ca.pem" -u "$user:$password"
echo "https, the right password: $code, $(wc -c < "$dir/right.body") bytes"
if [ "$code" != 200 ] || ! page right; then
	echo "FAIL: https with the right password: $code, not the plain server's page"
	cat "$dir/right.curl"
	err=1
fi
fetch localhost "https://localhost:$tls_port/metrics?x=1" --cacert "$web/ca.pem" \
	-u "$user:$password" --resolve "localhost:$tls_port:127.0.0.1"
if [ "$code" != 200 ] || ! page localhost; then
	echo "FAIL: https://localhost:$tls_port/metrics?x=1 (the DNS name): $code"
	cat "$dir/localhost.curl"
	err=1
fi
# The scheme's name is case-insensitive (RFC 9110, 11.1)
basic=$(printf '%s' "$user:$password" | base64)
fetch lower "$url" --cacert "$web/ca.pem" -H "Authorization: basic $basic"
echo "https, the right password, as 'basic': $code"
if [ "$code" != 200 ] || ! page lower; then
	echo "FAIL: Authorization: basic (lower case) with the right password: $code, not the page"
	err=1
fi
realm='WWW-Authenticate: Basic realm="perf kvm-events"'
for how in wrong unknown none; do
	case $how in
	wrong) auth=(-u "$user:not $password") ;;
	unknown) auth=(-u "nobody:$password") ;;
	none) auth=() ;;
	esac
	fetch "$how" "$url" --cacert "$web/ca.pem" "${auth[@]}"
	got=$(tr -d '\r' < "$dir/$how.head" | grep -i '^WWW-Authenticate:')
	echo "https, $how password: $code, $got"
	if [ "$code" != 401 ] || [ "$got" != "$realm" ]; then
		echo "FAIL: https, $how password: $code, '$got': expected 401 and '$realm'"
		err=1
	fi
	no_page "$how" "https, $how password"
done
fetch http "http://127.0.0.1:$tls_port/metrics" -u "$user:$password"
echo "plain http to the TLS port: $code, $(head -1 "$dir/http.curl")"
if [ "$code" = 200 ]; then
	echo "FAIL: plain http to the TLS port answered 200"
	err=1
fi
no_page http "plain http to the TLS port"
fetch noca "$url" -u "$user:$password"
if [ "$code" = 200 ]; then
	echo "FAIL: curl trusted the server's certificate without its CA"
	err=1
fi

# Hostile clients over TLS (lib/kvm_events_http.py), while a scraper with
# the password scrapes every 0.2 s, each scrape the page in under 2 s (a
# handshake each; a loaded host takes a second over some):
# the requests, clients that reset mid-answer, 40 stalled handshakes,
# 8 clients sending wrong passwords, and an unknown user's timing.
if ! python3 "$(dirname "$0")/lib/kvm_events_http.py" --ca "$web/ca.pem" \
		--auth "$user:$password" --limit 2 "$tls_port" "$tls_pid" "$dir/plain.prom" \
		requests resets handshakes users passwords; then
	err=1
fi
fetch after "$url" --cacert "$web/ca.pem" -u "$user:$password"
if ! kill -0 "$tls_pid" 2> /dev/null || [ "$code" != 200 ] || ! page after; then
	echo "FAIL: after the hostile clients, the TLS server is gone or serves no page ($code)"
	cat "$dir/tls.err"
	err=1
fi

# RequireAndVerifyClientCert
url="https://127.0.0.1:$mtls_port/metrics"
fetch client "$url" --cacert "$web/ca.pem" --cert "$web/client.pem" --key "$web/client.key"
echo "client certificate of the CA: $code"
if [ "$code" != 200 ] || ! page client; then
	echo "FAIL: the CA's client certificate: $code, not the page"
	cat "$dir/client.curl"
	err=1
fi
fetch nocert "$url" --cacert "$web/ca.pem"
echo "no client certificate: $code, $(head -1 "$dir/nocert.curl")"
no_page nocert "a client without a certificate"
fetch stranger "$url" --cacert "$web/ca.pem" --cert "$web/stranger.pem" \
	--key "$web/stranger.key"
echo "client certificate of another CA: $code, $(head -1 "$dir/stranger.curl")"
no_page stranger "a client certificate of another CA"
if ! kill -0 "$mtls_pid" 2> /dev/null; then
	echo "FAIL: the mTLS server exited"
	cat "$dir/mtls.err"
	err=1
fi

# Prometheus: job perf with the password, job wrong without it; each of
# wrong's scrapes costs perf a bcrypt, which a loaded host may take more
# than a second over
declare -A interval=([perf]=1s [wrong]=3s)
{
	printf '%s\n' "global:" "  scrape_interval: 1s" "scrape_configs:"
	for job in perf wrong; do
		pw=$password
		[ $job = wrong ] && pw="not $password"
		printf '%s\n' "  - job_name: $job" "    scheme: https" \
			"    scrape_interval: ${interval[$job]}" \
			"    scrape_timeout: ${interval[$job]}" \
			"    tls_config:" "      ca_file: $web/ca.pem" \
			"    basic_auth:" "      username: $user" "      password: '$pw'" \
			"    static_configs:" "      - targets: [\"127.0.0.1:$tls_port\"]"
	done
} > "$dir/prometheus.yml"
prometheus_run "$dir"
start=$(date +%s%N)
for _ in $(seq 60); do
	got=$(prometheus_query 'sum(kvm_events_exits_total{job="perf"})' 2> /dev/null |
		awk '{ print $NF }')
	up=$(prometheus_query 'up' 2> /dev/null | sort | awk '{ printf "%s ", $NF }')
	[ "$got" = "$total" ] && [ "$up" = "1 0 " ] && break
	sleep 0.5
done
echo "Prometheus, after $((($(date +%s%N) - start) / 1000000)) ms: up (perf, wrong): $up;" \
	"the exits: $got, the report's: $total"
if [ "$up" != "1 0 " ] || [ "$got" != "$total" ]; then
	echo "FAIL: Prometheus: up $up, sum(kvm_events_exits_total) $got; expected 1 0, $total"
	tail -5 "$dir/prometheus.log"
	err=1
fi
python3 -c 'import json, sys, urllib.request
url = "http://127.0.0.1:%s/api/v1/targets" % sys.argv[1]
for t in json.load(urllib.request.urlopen(url, timeout=5))["data"]["activeTargets"]:
    print(t["labels"]["job"], t["health"], t["lastError"])' "$PROMETHEUS_PORT" \
	| sort > "$dir/targets"
cat "$dir/targets"
if ! grep -q '^wrong down .*401' "$dir/targets"; then
	echo "FAIL: Prometheus' job with the wrong password is not down on a 401"
	err=1
fi
prometheus_stop

# The bad configs: one line naming WHAT, a non-zero exit, before serving
# bad NAME WHAT [OPTIONS]: report with --metrics-web-config $web/NAME.yml
# (or OPTIONS, when given)
bad() {
	local name=$1 what=$2 port status
	shift 2
	port=$(free_port)
	if [ $# = 0 ]; then
		set -- --metrics-listen "127.0.0.1:$port" --metrics-web-config "$web/$name.yml"
	fi
	(cd / && exec timeout 10 perf kvm-events report -i "$data" --stdio "$@") \
		> "$dir/bad.out" 2> "$dir/bad.err"
	status=$?
	echo "$name: exit $status: $(head -1 "$dir/bad.err")"
	if [ $status = 0 ] || [ $status = 124 ] || [ "$(wc -l < "$dir/bad.err")" != 1 ] ||
			! grep -qF -- "$what" "$dir/bad.err"; then
		echo "FAIL: $name: expected one line naming '$what' and a non-zero exit," \
			"before serving; got $status:"
		cat "$dir/bad.err"
		err=1
	fi
}
{ cat "$web/web.yml"; printf '%s\n' "http_server_config:" "  http2: false"; } \
	> "$web/unknown-key.yml"
bad unknown-key http_server_config
sed 's/^  key_file: server.key$/&\n  min_version: TLS12/' "$web/web.yml" \
	> "$web/unknown-tls-key.yml"
bad unknown-tls-key min_version
sed 's/cert_file: server.pem/cert_file: missing.pem/' "$web/web.yml" > "$web/missing-cert.yml"
bad missing-cert missing.pem
echo "not a key" > "$web/garbage.key"
sed 's/key_file: server.key/key_file: garbage.key/' "$web/web.yml" > "$web/garbage-key.yml"
bad garbage-key garbage.key
sed 's/key_file: server.key/key_file: client.key/' "$web/web.yml" > "$web/other-key.yml"
bad other-key client.key
sed '/client_auth_type/d' "$web/mtls.yml" > "$web/ca-alone.yml"
bad ca-alone client_auth_type
sed '/client_ca_file/d' "$web/mtls.yml" > "$web/type-alone.yml"
bad type-alone client_ca_file
sed "s/^  $user: .*/  $user: not-a-hash/" "$web/web.yml" > "$web/plain-password.yml"
bad plain-password plain-password.yml
# An MD5-crypt hash, of a password the file does not say
{ grep -v "^  $user:" "$web/web.yml"; echo "  $user: \$1\$saltsalt\$qjXMvbEw8oaL.CzflDugX/"; } \
	> "$web/md5-hash.yml"
bad md5-hash md5-hash.yml
printf '%s\n' "tls_server_config: [cert_file: server.pem" "  key_file: {" > "$web/bad-yaml.yml"
bad bad-yaml bad-yaml.yml
sed 's/RequireAndVerifyClientCert/RequireAnyClientCert/' "$web/mtls.yml" > "$web/any-cert.yml"
bad any-cert client_auth_type
bad no-such-config no-such-config.yml
bad without-listen --metrics-listen --metrics-web-config "$web/web.yml"
exit $err
