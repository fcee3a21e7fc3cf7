# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers of the kvm-events shell tests.

# test_init: each test's start, after its skips and its
#   dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
# sets err=0, the status the test exits with, and an EXIT trap that
# removes $dir.  A test that starts more than files (a workload, a tmux
# server, Prometheus) defines test_cleanup to end them: the trap calls it
# first, so also when the test exits early.  The test makes dir itself:
# the build's shellcheck does not read this file, and would take a dir
# set only here for one never set.
# shellcheck disable=SC2034
test_init() {
	err=0
	trap test_exit EXIT
}

# test_exit: the EXIT trap; the shell's exit status stays the test's
test_exit() {
	if declare -F test_cleanup > /dev/null; then
		test_cleanup
	fi
	rm -rf "$dir"
}

# need_kvmgen: sets KVMGEN to the generator of the recordings, or exits
# 2 (skip) saying why.  kvmgen is a helper program, not a part of perf:
# $KVMGEN if set, else the kvmgen beside the perf found first in PATH
# (make perf builds it into perf's output folder; ./perf is a link there).
need_kvmgen() {
	if [ -z "${KVMGEN:-}" ]; then
		KVMGEN=$(command -v perf) &&
			KVMGEN="$(dirname "$(readlink -f "$KVMGEN")")/kvmgen"
	fi
	if [ -z "${KVMGEN:-}" ] || [ ! -x "$KVMGEN" ]; then
		echo "skip: no kvmgen at ${KVMGEN:-?}:" \
			"'make perf' builds it beside perf, or set KVMGEN"
		exit 2
	fi
}

# kvm_events_check COMMAND ARGS...: the one oracle, the generator's
# ground truth against the reports (see lib/kvm_events_check.py)
kvm_events_check() {
	python3 "$(dirname "$0")/lib/kvm_events_check.py" "$@"
}

# upstream COMMAND...: COMMAND, which runs upstream's perf kvm, the tests'
# oracle.  Under make check SANITIZE=1 its leaks, which are upstream's
# (its threads and event tables, left allocated at exit), are not looked
# for; its memory errors are.
upstream() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@"
}

# need_tui DIR: the browser's tests drive it in a tmux server of their
# own, its socket in DIR; exit 2 (skip) where tmux is missing or perf was
# built without libslang.  tm ARGS...: that server's tmux.
need_tui() {
	TUI_SOCKET="$1/tmux.sock"
	if ! command -v tmux > /dev/null; then
		echo "skip: no tmux to drive the browser: apt-get install tmux"
		exit 2
	fi
	if perf kvm-events report --tui 2>&1 | grep -q "without libslang"; then
		echo "skip: this perf was built without libslang (libslang2-dev)"
		exit 2
	fi
}

tm() {
	tmux -S "$TUI_SOCKET" "$@"
}

# tui_start DIR COMMAND...: COMMAND in a new window of the tmux server,
# TUI_WIDTH x TUI_HEIGHT (default 160x40), with its stderr in DIR/stderr,
# its exit status in DIR/status, and stty -a before and after it in
# DIR/stty.before and DIR/stty.after
tui_start() {
	local d=$1
	shift
	# Each start has a server on a socket of its own: a client of the old
	# socket may reach the server kill-server just ended, as it exits.
	tm kill-server 2> /dev/null
	TUI_STARTS=$((${TUI_STARTS:-0} + 1))
	TUI_SOCKET="$d/tmux.$TUI_STARTS.sock"
	rm -f "$d/status" "$d/stty.after" "$d/stderr"
	local cmd="stty -a > $d/stty.before; $* 2> $d/stderr; echo \$? > $d/status;"
	tm new-session -d -x "${TUI_WIDTH:-160}" -y "${TUI_HEIGHT:-40}" \
		"${cmd}stty -a > $d/stty.after; sleep 600"
}

# tui_quit DIR WHAT [KEY]: q (or KEY), then until the command ends (10 s);
# says FAIL and returns 1 if it exited non-zero or left the terminal changed
tui_quit() {
	tm send-keys "${3:-q}"
	for _ in $(seq 100); do
		[ -s "$1/stty.after" ] && break
		sleep 0.1
	done
	if [ "$(cat "$1/status" 2> /dev/null)" != 0 ]; then
		echo "FAIL: $2 exited $(cat "$1/status" 2> /dev/null)"
		cat "$1/stderr"
		return 1
	fi
	if ! diff "$1/stty.before" "$1/stty.after" > /dev/null; then
		echo "FAIL: $2: q left the terminal changed"
		return 1
	fi
}

# tui_until SECONDS COMMAND...: until COMMAND succeeds on a new capture
# of the screen, in $TUI_SCREEN: slang draws a screen line by line, so
# one capture may hold half of a redraw.  Returns 1 if never.
tui_until() {
	local tries=$(($1 * 10))
	shift
	while :; do
		TUI_SCREEN=$(tm capture-pane -p 2> /dev/null)
		"$@" && return 0
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# tui_shows PATTERN: the screen in $TUI_SCREEN shows an extended regex
tui_shows() {
	echo "$TUI_SCREEN" | grep -Eq -- "$1"
}

# tui_wait PATTERN [SECONDS]: until the screen shows PATTERN (default 20 s)
tui_wait() {
	tui_until "${2:-20}" tui_shows "$1"
}

# tui_settled FILE: until FILE, where tmux pipe-pane copies what reaches
# the terminal, has stopped growing for half a second (10 s at most)
tui_settled() {
	local size last=-1 tries=20
	while [ "$tries" -gt 0 ]; do
		size=$(wc -c 2> /dev/null < "$1" || echo 0)
		[ "$size" -gt 0 ] && [ "$size" = "$last" ] && return 0
		last=$size
		sleep 0.5
		tries=$((tries - 1))
	done
	return 1
}

# tui_rows: the table's rows on the screen: the lines under the title,
# the summary and the columns' names, down to the first blank one
tui_rows() {
	echo "$TUI_SCREEN" | sed -n '4,$p' | sed 's/[[:space:]]*[◆▒]*$//' |
		awk 'NF == 0 { exit } { print }'
}

# skip_without_prometheus: exit 2 (skip) without Prometheus, node_exporter
# and promtool (make check installs them)
skip_without_prometheus() {
	local tool
	for tool in prometheus prometheus-node-exporter promtool; do
		if ! command -v "$tool" > /dev/null; then
			echo "skip: no $tool: apt-get install prometheus prometheus-node-exporter"
			exit 2
		fi
	done
}

# free_port: a loopback port nobody listens on now
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# prometheus_start DIR PERF_PORT: node_exporter reading the textfiles of
# DIR/textfile, and Prometheus scraping it (job node) and PERF_PORT (job
# perf) every second, on free loopback ports, with their data in DIR;
# prometheus_stop ends both.
prometheus_start() {
	mkdir -p "$1/textfile"
	NODE_PORT=$(free_port)
	prometheus-node-exporter --web.listen-address="127.0.0.1:$NODE_PORT" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$1/textfile" > "$1/node.log" 2>&1 &
	PROMETHEUS_PIDS=$!
	printf '%s\n' "global:" "  scrape_interval: 1s" "scrape_configs:" \
		"  - job_name: node" "    static_configs:" \
		"      - targets: [\"127.0.0.1:$NODE_PORT\"]" \
		"  - job_name: perf" "    static_configs:" \
		"      - targets: [\"127.0.0.1:$2\"]" > "$1/prometheus.yml"
	prometheus_run "$1"
}

# prometheus_run DIR: Prometheus alone, scraping as DIR/prometheus.yml
# (the test's) says, on a free loopback port, with its data in DIR;
# prometheus_stop ends it.
prometheus_run() {
	mkdir -p "$1/tsdb"
	PROMETHEUS_PORT=$(free_port)
	prometheus --config.file="$1/prometheus.yml" --storage.tsdb.path="$1/tsdb" \
		--web.listen-address="127.0.0.1:$PROMETHEUS_PORT" > "$1/prometheus.log" 2>&1 &
	PROMETHEUS_PIDS="${PROMETHEUS_PIDS:-} $!"
}

prometheus_stop() {
	# shellcheck disable=SC2086
	if [ -n "${PROMETHEUS_PIDS:-}" ]; then
		kill $PROMETHEUS_PIDS 2> /dev/null
		wait $PROMETHEUS_PIDS 2> /dev/null
	fi
	PROMETHEUS_PIDS=""
}

# prometheus_query PROMQL: the result's vector through the HTTP API, one
# line per series: its labels as JSON, its value
prometheus_query() {
	python3 -c '
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
try:
    got = json.load(urllib.request.urlopen(url, timeout=5))
except Exception:
    sys.exit(1)
for r in got["data"]["result"]:
    print(json.dumps(r["metric"], sort_keys=True), r["value"][1])' "$PROMETHEUS_PORT" "$1"
}

# live --use-bpf: root, a perf built with its BPF skeletons, kvm tracepoints
skip_without_bpf() {
	if [ "$(id -u)" != 0 ]; then
		echo "skip: loading BPF programs needs root"
		exit 2
	fi
	if perf kvm-events live --use-bpf -- true 2>&1 | grep -q "without BPF skeletons"; then
		echo "skip: this perf was built without BPF skeletons"
		exit 2
	fi
	if [ ! -d /sys/kernel/tracing/events/kvm ] &&
	   [ ! -d /sys/kernel/debug/tracing/events/kvm ]; then
		echo "skip: no kvm tracepoints (tracefs or the kvm module missing)"
		exit 2
	fi
}

# kvm_tracing_or_skip TRACEPOINT: exit 2 (skip) with a reason when this
# host cannot record kvm tracepoints: no /dev/kvm, not root, or no
# TRACEPOINT (tracefs or the kvm module missing).
kvm_tracing_or_skip() {
	if [ ! -c /dev/kvm ]; then
		echo "skip: no /dev/kvm on this host"
		exit 2
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "skip: recording kvm tracepoints needs root"
		exit 2
	fi
	if ! perf list "$1" 2>/dev/null | grep -q "${1#kvm:}"; then
		echo "skip: no $1 tracepoint (tracefs or the kvm module missing)"
		exit 2
	fi
}

# skip_without_kvm_tracing: the x86 guest tests' (make check runs them in
# the test machine, scripts/vm.sh): the hardware's KVM, kvm_intel's or
# kvm_amd's; kvm_pvm's runs guests without it, and exits otherwise
skip_without_kvm_tracing() {
	if [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; then
		echo "skip: no kvm_intel or kvm_amd on this host"
		exit 2
	fi
	kvm_tracing_or_skip kvm:kvm_pio
}

# records_once DIR RUNS GUEST_ARG...: record the bundled guest RUNS times
# with the default ring buffer, into DIR; each recording must hold each
# sample once.  Returns 1 if one did not, exits 1 if one failed.
records_once() {
	local dir=$1 runs=$2 i bad=0
	shift 2
	for i in $(seq "$runs"); do
		if ! perf kvm-events record -q -o "$dir/run$i.data" -- \
				perf test -w kvmguest "$@" > "$dir/record.log" 2>&1; then
			echo "FAIL: run $i: perf kvm-events record of the guest"
			cat "$dir/record.log"
			exit 1
		fi
		kvm_events_check once "$dir/run$i.data" || bad=1
	done
	return $bad
}

# skip_without_arm64_kvm_tracing: the arm64 guest's tests; on any other
# host they skip, and make check runs them in the arm64 test machine
# (scripts/vm.sh -a arm64).
skip_without_arm64_kvm_tracing() {
	if [ "$(uname -m)" != aarch64 ]; then
		echo "skip: the arm64 guest needs an arm64 host"
		exit 2
	fi
	kvm_tracing_or_skip kvm:kvm_exit
}

# skip_without_kvm_tracepoints: exit 2 (skip) with a reason when this
# host cannot open kvm tracepoints, which need no /dev/kvm: on a host
# without one they are there, and never fire.
skip_without_kvm_tracepoints() {
	if [ "$(id -u)" != 0 ]; then
		echo "skip: opening kvm tracepoints needs root"
		exit 2
	fi
	if ! perf list 'kvm:kvm_exit' 2>/dev/null | grep -q kvm_exit; then
		echo "skip: no kvm:kvm_exit tracepoint (tracefs or the kvm module missing)"
		exit 2
	fi
}

# skip_without_python3: exit 2 (skip) where the oracle cannot run.
skip_without_python3() {
	if ! command -v python3 > /dev/null; then
		echo "skip: python3 is needed for the oracle and to parse JSON"
		exit 2
	fi
}

# compare_readers INPUT KIND [ANALYSIS...]: every analysis of INPUT read
# by --generic-reader and by the fast reader in one and two threads must
# be the same, and -v must say which reader ran and how.  INPUT is a path,
# or "-FILE" for FILE on standard input; KIND is file, stream,
# directory:merged or directory:held.  Sets err=1 on a difference; $dir is
# the test's folder.
# shellcheck disable=SC2034
compare_readers() {
	input=$1
	kind=${2%%:*}
	not=""
	case $2 in
	*:merged) how="its [0-9]* files merged in time order" ;;
	*:held) how="is not in time order: all its events are held and sorted"
		not="merged in time order" ;;
	*) how="" ;;
	esac
	shift 2
	analyses=${*:-vmexit mmio ioport userspace msr hypercall}

	if [ "${input#-}" != "$input" ]; then
		file=${input#-}
		input=-
	else
		file=/dev/null
	fi
	for analysis in $analyses; do
		opts="--event $analysis --json"
		perf kvm-events report -v -i "$input" $opts --generic-reader \
			< "$file" > "$dir/generic" 2> "$dir/generic.err" ||
			{ echo "FAIL: $input: --generic-reader $opts"; err=1; continue; }
		if ! grep -q "read by perf's session code: --generic-reader" \
			"$dir/generic.err"; then
			echo "FAIL: $input: -v does not say --generic-reader ran"
			err=1
		fi
		for threads in 1 2; do
			perf kvm-events report -v -i "$input" $opts --threads $threads \
				< "$file" > "$dir/fast" 2> "$dir/fast.err" ||
				{ echo "FAIL: $input: --threads $threads $opts"; err=1; continue; }
			if ! grep -q "read by kvm-events' own reader, as a $kind$" \
				"$dir/fast.err"; then
				echo "FAIL: $input: not read by the fast reader as a $kind:"
				grep "read by" "$dir/fast.err"
				err=1
			fi
			if [ -n "$how" ] && ! grep -q "$how" "$dir/fast.err"; then
				echo "FAIL: $input: -v does not say: $how"
				err=1
			fi
			if [ -n "$not" ] && grep -q "$not" "$dir/fast.err"; then
				echo "FAIL: $input: -v says: $not"
				err=1
			fi
			if ! diff -u "$dir/generic" "$dir/fast" > "$dir/diff"; then
				echo "FAIL: $input: --threads $threads $opts" \
					"differs from --generic-reader"
				head -40 "$dir/diff"
				err=1
			fi
		done
	done
}

