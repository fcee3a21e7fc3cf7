#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh PERF
#
# The speed benchmark of `perf kvm-events report` (make bench).  Timing
# only: the tests prove the numbers.  It takes minutes and gigabytes, and
# never runs in `make check`.
#
# Each input is read, in turns, by `perf kvm-events report` (the reader -v
# names is shown), by the same with --threads 1 and with --generic-reader
# (perf's session code), by upstream `perf kvm stat report`, by `cat`, and
# by the report and upstream under `taskset -c 0`: a KVM host's cores are
# busy running its VMs.  The table gives the median wall time of
# BENCH_RUNS runs, the ratios to upstream (on one CPU, to upstream's on
# one CPU), each the median of the runs' own ratios to the upstream run
# of their turn, and to cat, the wall time per sample of the file, and, from
# one more run, peak RSS and peak anonymous memory.  The table goes to
# standard output, to build/bench.txt (the last run's, overwritten) and
# to build/bench/results.txt, beside the bench's other files.
#
# Inputs, all laid out as perf record lays them out (see kvmgen's
# layout_modifiers): kvmgen's vmx (perf kvm-events record -p) at each size
# of BENCH_PAIRS, in time order and in per-CPU rounds; vmx+system-wide
# (-a); vmx+threads (--threads, a directory); vmx+pipe, on standard input;
# vmx+switch and vmx+switch+system-wide, with the context switch records
# of record --sched (the second part holds back what the first decides);
# the shapes of other recordings (kvmgen's settings, at each size of
# BENCH_SHAPE_PAIRS): rounds of 26, 10,000 and 100,000 samples (perf
# record's passes over its ring buffers at moderate rates and for a busy
# VM), in time order and in per-CPU runs; 6 vcpus in rounds of 8,192;
# 64 vcpus on 64 CPUs, moving on wakeups and pinned; the tracepoints of
# record --event vmexit (no sample but the analysis') and of its default
# (18% mmio and pio); two VMs' vcpus in one file; and an AMD host's
# (svm: its exit codes and its kernel's formats);
# the browser's refresh of 10,000 keys (report --tui, in tmux);
# and, where this host can run the bundled guest, a recording of it at its
# highest rate (big rounds) and one of it halting (rounds of about 10).
# Last, the guest's slowdown under each recorder, under perf kvm-events
# live --use-bpf, which pairs in the kernel and records nothing, and under
# record --use-bpf, which pairs there and writes the events of --min-time
# whole; and the bytes each kind of recording writes per exit.
#
# Then the soak of live's Prometheus exporter (scripts/soak.sh, whose
# header says what it asserts): BENCH_SOAK_LIFETIMES guest lifetimes, 3
# at a time, under live -b and live, scraped every second by Prometheus
# on this host; its table gives live's RSS after the warm-up and at the
# end, its growth, the scrapes, the slowest scrape and the least up.  It
# runs in the test machine, on any host: the soak needs vm.sh -p's port
# forward.  The machine's TCG is one host core, whatever the host has;
# in it live and the guests are not pinned (soak.sh says why).
#
# Where this host has no hardware KVM (kvm_intel's or kvm_amd's
# /dev/kvm, as make check asks), the guest's recordings and slowdown
# come from the test machine (scripts/vm.sh: Debian's 6.12 kernel's KVM on
# qemu's emulated SVM CPU; bench.sh PERF --guest DIR and --slowdown DIR
# are those parts), and are labelled so.  The recordings are read here, on
# the real CPU.  The slowdown is timed in a machine whose clock counts
# the instructions it runs (vm.sh -i), so that the time is the work done:
# under plain TCG, a recorder's time varied from 8.5 to 13 s between runs.
#
# Settings (make bench BENCH_RUNS=5):
#   BENCH_PAIRS="1000000 10000000"  kvm_exit events of the generated files
#   BENCH_SHAPE_PAIRS=1000000       the same, of the shapes' files
#   BENCH_RUNS=3                    timed runs of each reader
#   BENCH_GUEST_N=100000            perf test -w kvmguest N N N N, recorded
#   BENCH_HALT_N=200000             perf test -w kvmguest halt N 20, recorded
#   BENCH_SLOWDOWN_N=20000          the same, timed under each recorder in
#                                   the test machine (BENCH_GUEST_N on KVM),
#                                   BENCH_RUNS times after a first round
#   BENCH_GUEST=0                   leave out the guest's recordings and
#                                   slowdown (the generated inputs only)
#   BENCH_SOAK_LIFETIMES=100        the soak's guest lifetimes (0: no soak)

set -u
export LC_ALL=C

perf=$(realpath "$1")
# the generator, built beside perf by make perf
kvmgen=$(dirname "$perf")/kvmgen
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
pairs_list=${BENCH_PAIRS:-1000000 10000000}
shape_pairs_list=${BENCH_SHAPE_PAIRS:-1000000}
runs=${BENCH_RUNS:-3}
guest_n=${BENCH_GUEST_N:-100000}
halt_n=${BENCH_HALT_N:-200000}
slowdown_n=${BENCH_SLOWDOWN_N:-20000}
results=$out/results.txt

# A pipe never written: `read -t` on it sleeps without forking sleep(1)
exec {sleep_fd}<> <(:)

# peak_memory PID: the peaks of VmHWM and RssAnon (kB) of PID until it exits
peak_memory() {
	local pid=$1 st hwm=0 anon=0

	# read -d '' fails at the end of the file it read whole; a zombie's
	# status has no VmHWM.
	while { st=; IFS= read -r -d '' st 2>/dev/null < "/proc/$pid/status"; true; } &&
	      [[ $st =~ VmHWM ]]; do
		if [[ $st =~ VmHWM:[[:space:]]*([0-9]+).*RssAnon:[[:space:]]*([0-9]+) ]]; then
			[ "${BASH_REMATCH[1]}" -gt $hwm ] && hwm=${BASH_REMATCH[1]}
			[ "${BASH_REMATCH[2]}" -gt $anon ] && anon=${BASH_REMATCH[2]}
		fi
		read -r -t 0.005 -u "$sleep_fd"
	done
	echo "$((hwm / 1024)) $((anon / 1024))"
}

# run INPUT CMD...: CMD with INPUT on stdin; prints its wall time in s
run() {
	local input=$1 start
	shift
	start=$EPOCHREALTIME
	# upstream perf kvm stat report cannot read a pipe
	"$@" < "$input" > /dev/null 2>&1 || { printf nan; return; }
	awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'
}

median() {
	tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# paired_ratio UPSTREAM TIMES: the median of upstream's time over the
# reader's, run by run, as "N.Nx", or "-".  The host this was tuned on (a
# VM on a shared machine) ran everything up to 1.5 times slower for
# seconds at a time: the two runs of a turn, a second apart, share such
# a phase, where the medians of each reader's runs apart may not.
paired_ratio() {
	local ratio

	ratio=$(awk -v u="$1" -v t="$2" 'BEGIN {
		n = split(u, up, " "); split(t, own, " ")
		for (i = 1; i <= n; i++)
			if (up[i] ~ /^[0-9.]+$/ && own[i] ~ /^[0-9.]+$/ && own[i] > 0)
				print up[i] / own[i]
	}' | median)
	if [ -n "$ratio" ]; then
		awk -v r="$ratio" 'BEGIN { printf "%.1fx", r }'
	else
		echo -
	fi
}

# bench_input LABEL FILE: every reader of FILE, in turns; the last two
# on one CPU, as on a host whose other cores run its VMs
bench_input() {
	local label=$1 file=$2 input=/dev/null path=$2 size reader i t up samples
	local -a names=(kvm-events "threads 1" generic upstream cat "1 CPU" "upstr 1 CPU")
	local -a times=("" "" "" "" "" "" "") ratios

	# A pipe recording is read as perf reads a pipe: on standard input.
	if [[ $label == *pipe* ]]; then
		input=$file
		path=-
	fi
	local -a cmds=(
		"$perf kvm-events report -i $path"
		"$perf kvm-events report -i $path --threads 1"
		"$perf kvm-events report -i $path --generic-reader"
		"$perf kvm -i $path stat report"
		"cat $file"
		"taskset -c 0 $perf kvm-events report -i $path"
		"taskset -c 0 $perf kvm -i $path stat report"
	)
	[ -d "$file" ] && cmds[4]="cat $file/data $file/data.0 $file/data.1 $file/data.2 $file/data.3"
	size=$(du -sm "$file" | cut -f1)
	reader=$($perf kvm-events report -v -i $path < "$input" 2>&1 >/dev/null |
		 sed -n -e "s/.*read by \(kvm-events' own reader\|perf's session code\)\(, as a\|:\) *//p" \
			-e "s/.* files \(merged\) in time order/, \1/p" \
			-e "s/.*not in time order: all its events are \(held\).*/, \1/p" \
			-e "s/.*read in \(two parts\) at once.*/, in \1/p" \
			-e "s/.*read in one part: \(.*\)/, one part: \1/p" | tr -d '\n')
	# every sample of the file, for the time per sample
	samples=$($perf kvm-events report -i $path --json < "$input" 2>/dev/null |
		  sed -n 's/.*"read": \([0-9]*\).*/\1/p')
	for ((r = 0; r < runs; r++)); do
		for i in "${!cmds[@]}"; do
			# shellcheck disable=SC2086
			t=$(run "$input" ${cmds[$i]})
			times[i]="${times[i]} $t"
		done
	done
	for i in "${!cmds[@]}"; do
		up=3
		[ $i -ge 5 ] && up=6
		ratios[i]=$(paired_ratio "${times[up]}" "${times[i]}")
	done
	for i in "${!cmds[@]}"; do
		times[i]=$(echo ${times[i]} | median)
	done
	for i in "${!cmds[@]}"; do
		t=${times[i]}
		# shellcheck disable=SC2086
		${cmds[$i]} < "$input" > /dev/null 2>&1 &
		read -r rss anon < <(peak_memory $!)
		wait
		printf "%-40s %7s %-11s %8.3f %8s %8s %8s %7s %7s %s\n" "$label" "${size}M" \
			"${names[i]}" "$t" \
			"${ratios[i]}" \
			"$(awk -v a="$t" -v c="${times[4]}" 'BEGIN { if (c > 0) printf "%.2f", a / c; else print "-" }')" \
			"$(awk -v a="$t" -v n="$samples" 'BEGIN { if (n > 0) printf "%.0f", a * 1e9 / n; else print "-" }')" \
			"$rss" "$anon" "$([ $i = 0 ] && echo "$reader")"
	done
}

# record_guest DIR: the bundled guest recorded into DIR/guest.data at its
# highest rate, and halting every 20 us into DIR/halts.data.  There the
# recorder, on a CPU of its own, finds a few samples at each pass over
# its ring buffers, so that its rounds hold about 10 samples, as at
# moderate rates.  The same with --sched into DIR/halts-sched.data: the
# vcpu thread blocks in each halt, two switch records an exit.
record_guest() {
	"$perf" kvm-events record -q --event all -o "$1/guest.data" -- \
		"$perf" test -w kvmguest $guest_n $guest_n $guest_n $guest_n > /dev/null 2>&1 &&
	taskset -c 0 "$perf" kvm-events record -q -o "$1/halts.data" -- \
		taskset -c 1 "$perf" test -w kvmguest halt $halt_n 20 > /dev/null 2>&1 &&
	taskset -c 0 "$perf" kvm-events record --sched -q -o "$1/halts-sched.data" -- \
		taskset -c 1 "$perf" test -w kvmguest halt $halt_n 20 > /dev/null 2>&1
}

# bench_guest LABEL: the recordings of record_guest, read
bench_guest() {
	local f

	for f in guest halts halts-sched; do
		[ -s "$out/$f.data" ] || continue
		bench_input "$f${1:+, $1}" "$out/$f.data"
		rm -f "$out/$f.data"
	done
}

# guest_time N RECORDER...: perf test -w kvmguest N N N N under RECORDER
# (none: alone); prints the guest's wall time in s from its start, not the
# recorder's own start-up
guest_time() {
	local n=$1 file=$out/guest.time

	shift
	# shellcheck disable=SC2016
	"$@" bash -c 's=$EPOCHREALTIME; "$@" > /dev/null 2>&1
		echo "$s $EPOCHREALTIME" > "$0"' "$file" \
		"$perf" test -w kvmguest "$n" "$n" "$n" "$n" > /dev/null 2>&1 < /dev/null
	awk '{ printf "%.3f", $2 - $1 }' "$file"
	rm -f "$file" "$out/r.data" "$out/r.data.old"
}

# guest_slowdown N: the guest's own time alone and under each recorder, in
# turns, after a first round that warms the caches up; the median of $runs
# runs, and its ratio to alone and to perf kvm stat record's
guest_slowdown() {
	local n=$1 r i t
	local -a recs=("" "$perf kvm-events record -q -o $out/r.data --"
		       "$perf kvm-events record -q --event all -o $out/r.data --"
		       "$perf kvm stat record -q -o $out/r.data --"
		       "$perf kvm-events live --use-bpf -d 3600 --event ioport --"
		       "$perf kvm-events live --use-bpf -d 3600 --event userspace --"
		       "$perf kvm-events record --sched -q -o $out/r.data --"
		       "$perf kvm-events record --sched -a -q -o $out/r.data --"
		       "$perf kvm-events record --use-bpf -q -o $out/r.data --"
		       "$perf kvm-events record --use-bpf --min-time 10us -q -o $out/r.data --")
	local -a times=("" "" "" "" "" "" "" "" "" "")

	echo "The guest's slowdown: perf test -w kvmguest $n $n $n $n, its own wall time"
	for ((r = 0; r <= runs; r++)); do
		for i in "${!recs[@]}"; do
			# shellcheck disable=SC2086
			t=$(guest_time "$n" ${recs[$i]})
			[ $r -gt 0 ] && times[i]="${times[i]} $t"
		done
	done
	printf "%-52s %8s %8s %10s\n" recorder "time s" "x alone" "x kvm stat"
	for i in "${!recs[@]}"; do
		times[i]=$(echo ${times[i]} | median)
	done
	for i in "${!recs[@]}"; do
		printf "%-52s %8.3f %7.2fx %9.2fx\n" "$(echo "${recs[$i]:-alone}" |
			sed -e "s|$perf|perf|g" -e "s# -q\| --$\| -o $out/r.data##g")" "${times[i]}" \
			"$(awk -v a="${times[i]}" -v b="${times[0]}" 'BEGIN { print a / b }')" \
			"$(awk -v a="${times[i]}" -v b="${times[3]}" 'BEGIN { print a / b }')"
	done
}

# bytes_per_exit N: the bytes of a recording of the guest per exit it
# made, plainly and with --use-bpf, with and without --min-time
bytes_per_exit() {
	local n=$1 exits opts
	local -a runs=("" "--use-bpf" "--use-bpf --min-time 10us")

	"$perf" kvm-events record -q -o "$out/b.data" -- \
		"$perf" test -w kvmguest "$n" "$n" "$n" "$n" > /dev/null 2>&1 < /dev/null
	exits=$("$perf" kvm-events report -i "$out/b.data" --json |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["totals"]["samples"])')
	echo "Bytes written per exit ($exits exits), perf kvm-events record:"
	for opts in "${runs[@]}"; do
		# shellcheck disable=SC2086
		"$perf" kvm-events record -q $opts -o "$out/b.data" -- \
			"$perf" test -w kvmguest "$n" "$n" "$n" "$n" > /dev/null 2>&1 < /dev/null
		printf "%-40s %10d bytes %8.1f per exit\n" "${opts:-(plain)}" \
			"$(stat -c %s "$out/b.data")" \
			"$(awk -v b="$(stat -c %s "$out/b.data")" -v n="$exits" 'BEGIN { print b / n }')"
	done
	rm -f "$out"/b.data*
}

# In the test machine: the recordings into DIR; the slowdown, in the
# machine whose clock counts instructions.
if [ "${2:-}" = --guest ]; then
	out=$3
	record_guest "$out" || echo "error: the guest's recordings failed" >&2
	exit 0
elif [ "${2:-}" = --slowdown ]; then
	out=$3
	guest_slowdown "$slowdown_n"
	echo
	bytes_per_exit "$slowdown_n"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out" || exit 1
trap 'rm -rf "$out"/*.data* "$out"/*.pipe "$out"/*.dir' EXIT

# browser_refresh FILE [taskset -c 0]: what the slowest refresh of report
# --tui --key rip over FILE cost, as perf -v says it: "X ms with N keys"
browser_refresh() {
	local f=$1 sock=$out/tmux.sock line
	shift
	tmux -S "$sock" new-session -d -x 200 -y 50 \
		"$* $perf kvm-events -v report --tui --key rip -i $f 2> $out/browser.log"
	for _ in $(seq 100); do
		tmux -S "$sock" capture-pane -p 2> /dev/null | grep -q '^q quit' && break
		sleep 0.1
	done
	tmux -S "$sock" send-keys q
	for _ in $(seq 100); do
		line=$(sed -n 's/.*the slowest \(.*\)$/\1/p' "$out/browser.log" 2> /dev/null)
		[ -n "$line" ] && break
		sleep 0.1
	done
	tmux -S "$sock" kill-server 2> /dev/null
	rm -f "$sock" "$out/browser.log"
	echo "${line:-not measured}"
}

# The browser's refresh with 10,000 keys (kvmgen vmx 10200 with --key
# rip): merged, sorted and drawn, where tmux can run it
bench_browser() {
	local f=$out/browser.data
	command -v tmux > /dev/null || { echo "browser: no tmux, not measured"; return; }
	"$kvmgen" "$f" vmx 10200 > /dev/null 2>&1 || return
	echo "browser (report --tui --key rip, one refresh; target under 50 ms):" \
		"$(browser_refresh "$f"); on 1 CPU: $(browser_refresh "$f" taskset -c 0)"
	# kvmgen's ground truth and event list beside it too
	rm -f "$f"*
}

header() {
	echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%F), perf $($perf version | cut -d' ' -f3)"
	echo "x upstream: how many times faster than perf kvm stat report, the median of each run's ratio to upstream's run of its turn; x cat: wall time over cat's"
	echo "ns/smp: wall time over the file's samples; 1 CPU: under taskset -c 0, x upstream against upstream's on 1 CPU"
	printf "%-40s %7s %-11s %8s %8s %8s %8s %7s %7s %s\n" input size reader "time s" "x upstr" "x cat" "ns/smp" "RSS MB" "anon MB" "path"
}

# bench_generated INPUT EXITS: kvmgen's INPUT (SCENARIO[+MODIFIER...]),
# written, read by each reader, removed
bench_generated() {
	local f=$out/generated.data

	"$kvmgen" "$f" "$1" "$2" > /dev/null 2>&1 ||
		{ echo "error: $kvmgen $f $1 $2" >&2; exit 1; }
	bench_input "$1 $2" "$f"
	rm -rf "$f"*
}

{
header
for pairs in $pairs_list; do
	bench_generated vmx "$pairs"
	bench_generated vmx-percpu "$pairs"
done
for modifier in system-wide threads pipe switch switch+system-wide; do
	bench_generated "vmx+$modifier" "${pairs_list%% *}"
done
for pairs in $shape_pairs_list; do
	for shape in vmx+round=26 vmx+round=10000 vmx+round=100000 \
		     vmx-percpu+round=26 vmx-percpu+round=100000 \
		     vmx-percpu+vcpus=6+round=8192 vmx-percpu+vcpus=64+round=10000 \
		     vmx-percpu+vcpus=64+cpus=pinned+round=10000 \
		     vmx+events=vmexit vmx+events=default two-vms svm; do
		bench_generated "$shape" "$pairs"
	done
done
bench_browser

if [ "${BENCH_GUEST:-1}" = 0 ]; then
	echo "BENCH_GUEST=0: no recording of the guest, no slowdown"
elif "$top/scripts/hardware-kvm.sh"; then
	record_guest "$out" && bench_guest
	echo
	guest_slowdown "$guest_n"
else
	"$top/scripts/vm.sh" -w "$out" -- "$0" "$perf" --guest "$out" > "$out/vm.log" 2>&1
	bench_guest "emulated SVM"
	echo
	echo "In the test machine (scripts/vm.sh), emulated SVM, whose clock counts the"
	echo "instructions it runs (vm.sh -i): a time there is the work emulated, 1 ns an"
	echo "instruction, whatever else this host runs.  Emulation bends the ratios to"
	echo "alone up (each exit costs the emulator more than the guest's own code; a"
	echo "real VMX host gave 1.88x under record and 1.40x under kvm stat record).  The"
	echo "ratios between the recorders are the fair figure."
	"$top/scripts/vm.sh" -i -w "$out" -- "$0" "$perf" --slowdown "$out" > "$out/vm.log" 2>&1
	grep -v -E 'reboot: Power down|^test machine: up$' "$out/vm.log"
fi

soak_lifetimes=${BENCH_SOAK_LIFETIMES:-100}
echo
if [ "$soak_lifetimes" = 0 ]; then
	echo "BENCH_SOAK_LIFETIMES=0: no soak of live's metrics"
else
	echo "The soak of live's metrics under Prometheus (scripts/soak.sh -n $soak_lifetimes -c 3):"
	"$top/scripts/soak.sh" -n "$soak_lifetimes" -c 3 "$perf" | sed 1d
fi
} | tee "$results" "$top/build/bench.txt"
