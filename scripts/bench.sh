#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh PERF
#
# The speed benchmark of `perf kvm-events report` (make bench).  It is not
# a test and never runs in `make check`: it takes minutes and gigabytes.
#
#  1. Generates recordings with known contents, `perf test -w kvmgen FILE
#     vmx EXITS` (4 vcpus), one per size in BENCH_PAIRS.
#  2. Times, in turns, every kvm-events report variant, upstream
#     `perf kvm stat report` and `cat FILE`: median wall time, samples/s,
#     peak RSS and peak anonymous memory.  Every kvm-events report that is
#     timed is also compared with the ground truth.
#  3. Counts instructions per sample with callgrind, ours and upstream, and
#     saves where our instructions go.
#  4. Records the bundled KVM guest with both tools and counts the events
#     that were lost.
#  5. Prints a table, also written to build/bench/results.txt.
#
# Settings, from the environment or the make command line
# (make bench BENCH_RUNS=5):
#   BENCH_PAIRS="1000000 10000000"  kvm_exit events of each generated file
#   BENCH_RUNS=3                    timed runs of each tool on each file
#   BENCH_KEEP=0                    1: keep the generated files
#   BENCH_POLL_MS=5                 memory sampling period
#   BENCH_CG_PAIRS=100000           kvm_exit events of the callgrind file
#   BENCH_GUEST_N=100000            perf test -w kvmguest N N N N (4N exits)

# The kvm-events report variants that are timed and checked.  To benchmark
# a new option, add a line.  Fields, separated by "|":
#   label | options of `perf kvm-events report -i FILE` | oracle
# The oracle is the ANALYSIS VCPU SORT arguments of expected_report (in
# tools/perf/tests/shell/lib/kvm_events.sh), or "-" for a variant that the
# ground truth cannot check: its output is then not compared.
VARIANTS=(
	"vmexit         |                    | vmexit all sample"
	"mmio           | --event mmio       | mmio all sample"
	"ioport         | --event ioport     | ioport all sample"
	"vmexit-stats   | --stats            | -"
	"vmexit-1thread | --threads 1        | vmexit all sample"
)

set -u
export LC_ALL=C		# "." in $EPOCHREALTIME and in awk's numbers

perf=$1
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
data=$out/data
pairs_list=${BENCH_PAIRS:-1000000 10000000}
runs=${BENCH_RUNS:-3}
keep=${BENCH_KEEP:-0}
poll_ms=${BENCH_POLL_MS:-5}
cg_pairs=${BENCH_CG_PAIRS:-100000}
guest_n=${BENCH_GUEST_N:-100000}

# kvmgen writes about 308 bytes per vmx exit (1M exits: 308 MB), plus,
# up to 2M exits, 88 in FILE.events (one line per sample).  A recording
# of the guest takes about 784 bytes per N with kvm-events record and 440
# with kvm stat record (no kvm_userspace_exit).
GEN_BYTES_PER_PAIR=400
GUEST_BYTES_PER_N=1300

. "$top/tools/perf/tests/shell/lib/kvm_events.sh"

bench_start=$EPOCHREALTIME
# Other work on the machine slows every tool at random: the table shows
# the load, so that a noisy run can be told from a slow one.
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$out" "$data" || exit 1
# The outputs of a previous bench would be mistaken for this one's
rm -f "$out"/expected-*.txt "$out"/output-*.txt "$out"/stderr-*.txt \
	"$out"/wrong-*.txt "$out"/stats-*.txt "$out"/*.log
results=$out/results.txt
memlog=$out/memory.tmp
# The generated files, removed on any exit unless BENCH_KEEP=1
generated=()

# rm_generated FILE: FILE and what kvmgen writes next to it
rm_generated() {
	rm -f "$1" "$1.truth" "$1.events"
}

cleanup() {
	local f

	rm -f "$memlog"
	[ "$keep" = 1 ] && return
	for f in "${generated[@]}"; do
		rm_generated "$f"
	done
	rmdir "$data" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	echo "bench: $*" >&2
	exit 1
}

for n in $pairs_list $runs $poll_ms $cg_pairs $guest_n; do
	case $n in
	'' | *[!0-9]*) die "not a positive number: '$n' (see the BENCH_* settings in $0)" ;;
	esac
	[ "$n" -gt 0 ] || die "not a positive number: '$n'"
done

# ---------------------------------------------------------------- helpers

# 1000000 -> 1M, 100000 -> 100k: the name of a size in the tables
human() {
	local n=$1

	if [ $((n % 1000000)) -eq 0 ]; then
		echo "$((n / 1000000))M"
	elif [ $((n % 1000)) -eq 0 ]; then
		echo "$((n / 1000))k"
	else
		echo "$n"
	fi
}

# $EPOCHREALTIME ("s.us") -> microseconds
usec() {
	local t=$1

	echo $(( ${t%.*} * 1000000 + 10#${t#*.} ))
}

# median of whole numbers, one an argument
median() {
	printf '%s\n' "$@" | sort -n |
	awk '{ v[NR] = $1 }
	     END { if (NR % 2) print v[(NR + 1) / 2];
		   else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# A pipe that is never written: `read -t` on it sleeps without forking a
# sleep(1) each time, which would cost more than the sampling itself.
exec {sleep_fd}<> <(:)
poll=$(printf '%d.%03d' $((poll_ms / 1000)) $((poll_ms % 1000)))

# watch_memory PID COMM
#
# Samples /proc/PID/status every BENCH_POLL_MS until PID has exited, and
# prints the peaks of VmHWM (peak RSS: file pages of the mmapped input
# count) and of RssAnon (the heap and stacks: what the report keeps).
# The kernel keeps no peak of RssAnon, hence the sampling: growth in the
# last period before exit can be missed.  Samples taken before PID has
# exec'd COMM (it is still the forked shell) are not counted.
watch_memory() {
	local pid=$1 comm=$2 st hwm=0 anon=0

	while :; do
		st=
		IFS= read -r -d '' st 2>/dev/null < "/proc/$pid/status"
		# Gone, or a zombie, whose status has no memory lines
		[[ $st =~ VmHWM:[[:space:]]*([0-9]+).*RssAnon:[[:space:]]*([0-9]+) ]] ||
			break
		if [[ $st == "Name:"$'\t'"$comm"$'\n'* ]]; then
			[ "${BASH_REMATCH[1]}" -gt "$hwm" ] && hwm=${BASH_REMATCH[1]}
			[ "${BASH_REMATCH[2]}" -gt "$anon" ] && anon=${BASH_REMATCH[2]}
		fi
		read -r -t "$poll" -u "$sleep_fd"
	done
	echo "$hwm $anon"
}

# measure OUT ERR CMD...
#
# Runs CMD with its stdout in OUT and its stderr in ERR; sets M_RC, M_US
# (wall time in microseconds) and, when WATCH is 1, M_HWM, M_ANON (peaks
# in kB).  The time is taken by this shell, which `wait` wakes as soon as
# CMD exits.  The memory watcher is a separate process, so that its
# period does not round the time; it runs in a round of its own all the
# same, as on two CPUs it would take time from a tool's second thread.
WATCH=0
measure() {
	local o=$1 e=$2 t0 t1 pid wpid comm

	shift 2
	M_HWM=0
	M_ANON=0
	t0=$EPOCHREALTIME
	"$@" > "$o" 2> "$e" &
	pid=$!
	comm=${1##*/}
	if [ "$WATCH" = 1 ]; then
		watch_memory "$pid" "${comm:0:15}" > "$memlog" &
		wpid=$!
	fi
	wait "$pid"
	M_RC=$?
	t1=$EPOCHREALTIME
	if [ "$WATCH" = 1 ]; then
		wait "$wpid"
		read -r M_HWM M_ANON < "$memlog"
	fi
	M_US=$(( $(usec "$t1") - $(usec "$t0") ))
}

# tool_cmd TOOL FILE: sets CMD to the command line of tool number TOOL.
# Tools 0 .. nvariants-1 are the kvm-events variants, then upstream, then
# cat.
tool_cmd() {
	local t=$1 f=$2 opts

	if [ "$t" -lt "$nvariants" ]; then
		read -r -a opts <<< "${var_opts[t]}"
		CMD=("$perf" kvm-events report -i "$f" "${opts[@]}")
	elif [ "$t" -eq "$nvariants" ]; then
		CMD=("$perf" kvm -i "$f" stat report --stdio)
	else
		CMD=(cat "$f")
	fi
}

# trim: strip the spaces around a field of VARIANTS
trim() {
	local s=$1

	s=${s#"${s%%[![:space:]]*}"}
	echo "${s%"${s##*[![:space:]]}"}"
}

# top_functions N [callgrind_annotate options]: the N first function lines
# of callgrind_annotate on our profile, those after its "file:function"
# header.
top_functions() {
	local n=$1

	shift
	callgrind_annotate --auto=no "$@" "$out/callgrind.out.ours" 2>/dev/null |
	awk -v n="$n" 'f && NF && !/^-/ && ++i <= n; /file:function/ { f = 1 }'
}

gb() { awk -v b="$1" 'BEGIN { printf "%.1f GB", b / 1e9 }'; }
# kB -> MB; "-" when the run was too short for any memory sample
fmt_mb() { awk -v k="$1" 'BEGIN { if (k) printf "%.1f", k / 1024; else print "-" }'; }
secs() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1e6 }'; }

# expected_report's first awk prints each key's total ns with `print`.
# mawk, Debian's awk, prints an integral number above 2^31 with OFMT
# (%.6g), so from a few thousand exits on the expected total is rounded
# (at 1M exits: 565211092.46us for the exact 565210753.21us).  gawk prints
# it in full, as POSIX asks: the oracle runs with gawk as its awk.
if ! command -v gawk > /dev/null; then
	if [ "$(id -u)" = 0 ]; then
		echo "   installing gawk for the ground-truth oracle: apt-get install -y gawk"
		apt-get install -y -qq gawk > "$out/apt-get.log" 2>&1 ||
			die "apt-get install gawk failed, see $out/apt-get.log"
	else
		die "the ground-truth oracle needs gawk; as root run: apt-get install gawk"
	fi
fi
oracle() {	# oracle TRUTH ANALYSIS VCPU SORT
	(
		awk() { gawk "$@"; }
		expected_report "$@"
	)
}

# ------------------------------------------------------------- the plan

nvariants=${#VARIANTS[@]}
var_label=()
var_opts=()
var_oracle=()
for v in "${VARIANTS[@]}"; do
	IFS='|' read -r l o c <<< "$v"
	var_label+=("$(trim "$l")")
	var_opts+=("$(trim "$o")")
	var_oracle+=("$(trim "$c")")
done
tool_label=()
for l in "${var_label[@]}"; do
	tool_label+=("kvm-events $l")
done
tool_label+=("upstream kvm stat vmexit" "cat")
ntools=${#tool_label[@]}
up=$nvariants		# the tool number of upstream
cat_tool=$((nvariants + 1))

# Disk: the files are benchmarked one after the other and each is removed
# once done, so the largest must fit; with BENCH_KEEP=1 all of them.
need=0
for n in $pairs_list; do
	b=$((n * GEN_BYTES_PER_PAIR))
	if [ "$keep" = 1 ]; then
		need=$((need + b))
	elif [ "$b" -gt "$need" ]; then
		need=$b
	fi
done
[ "$keep" = 1 ] && need=$((need + cg_pairs * GEN_BYTES_PER_PAIR))
need=$((need + guest_n * GUEST_BYTES_PER_N))
free=$(( $(df -Pk "$data" | awk 'NR == 2 { print $4 }') * 1024 ))
echo "== bench: perf kvm-events report vs perf kvm stat report vs cat"
echo "   disk: about $(gb "$need") needed in $data, $(gb "$free") free"
if [ "$need" -gt "$free" ]; then
	die "not enough free disk for BENCH_PAIRS=\"$pairs_list\" (lower BENCH_PAIRS, or free $(gb $((need - free))))"
fi
# A file larger than the free memory cannot stay in the page cache: its
# times would be the disk's.
avail=$(( $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) * 1024 ))
for n in $pairs_list; do
	if [ $((n * GEN_BYTES_PER_PAIR)) -gt "$avail" ]; then
		echo "   warning: the $(human "$n") file ($(gb $((n * GEN_BYTES_PER_PAIR)))) exceeds the available memory ($(gb "$avail")): its times include disk reads"
	fi
done

# The table rows, filled as the sections run, printed at the end
table_speed=()
table_check=()
table_cg=()
table_guest=()

# ------------------------------------------------- 1. and 2. wall clock

for pairs in $pairs_list; do
	name=$(human "$pairs")
	f=$data/bench-$pairs.data
	echo
	echo "== $name exits: perf test -w kvmgen $f vmx $pairs"
	generated+=("$f")
	"$perf" test -w kvmgen "$f" vmx "$pairs" > /dev/null ||
		die "perf test -w kvmgen failed"
	samples=$(awk '/^# samples total/ { print $4 }' "$f.truth")
	[ -n "$samples" ] || die "$f.truth has no '# samples total' line"
	size=$(stat -c %s "$f")
	# Write it out now, or the writeback of the dirty pages would run
	# during the timed runs; then read it once so that every tool,
	# the first one included, finds it in the page cache.
	sync "$f"
	cat "$f" > /dev/null

	# What each checked variant must print
	for ((t = 0; t < nvariants; t++)); do
		[ "${var_oracle[t]}" = - ] && continue
		read -r -a args <<< "${var_oracle[t]}"
		oracle "$f.truth" "${args[@]}" > "$out/expected-$name-${var_label[t]}.txt"
	done

	declare -A times=() hwm=() anon=() failed=() wrong=()
	echo "   $samples samples, $((size / 1000000)) MB; a memory round, then $runs timed rounds of $ntools tools:"
	# Round 0 watches the memory, and is not timed.
	for ((r = 0; r <= runs; r++)); do
		WATCH=$((r == 0))
		# Round-robin, and each round starts one tool later, so that
		# no tool always runs right after the same other one.
		line="   round $r:"
		[ "$r" = 0 ] && line="   memory:"
		for ((k = 0; k < ntools; k++)); do
			t=$(( (k + r) % ntools ))
			tool_cmd "$t" "$f"
			o=/dev/null
			e=/dev/null
			if [ "$t" -lt "$nvariants" ]; then
				o=$out/output-$name-${var_label[t]}.txt
				e=$out/stderr-$name-${var_label[t]}.txt
			fi
			measure "$o" "$e" "${CMD[@]}"
			[ "$r" -gt 0 ] && times[$t]+=" $M_US"
			[ "$M_HWM" -gt "${hwm[$t]:-0}" ] && hwm[$t]=$M_HWM
			[ "$M_ANON" -gt "${anon[$t]:-0}" ] && anon[$t]=$M_ANON
			[ "$M_RC" -ne 0 ] && failed[$t]="exit $M_RC"
			if [ "$t" -lt "$nvariants" ] && [ "${var_oracle[t]}" != - ] &&
			   ! cmp -s "$out/expected-$name-${var_label[t]}.txt" "$o"; then
				wrong[$t]=$(( ${wrong[$t]:-0} + 1 ))
				# keep the first wrong output for the engineer
				[ -e "$out/wrong-$name-${var_label[t]}.txt" ] ||
					cp "$o" "$out/wrong-$name-${var_label[t]}.txt"
			fi
			line+=" $(awk -v u="$M_US" 'BEGIN { printf "%.2fs", u / 1e6 }')"
		done
		echo "$line"
	done

	up_us=$(median ${times[$up]})
	cat_us=$(median ${times[$cat_tool]})
	table_speed+=("$(printf '%-5s (%s samples, %d MB)' "$name" "$samples" $((size / 1000000)))")
	for ((t = 0; t < ntools; t++)); do
		us=$(median ${times[$t]})
		vs_up="-"
		vs_cat="-"
		if [ "$t" -lt "$nvariants" ]; then
			vs_up=$(awk -v a="$up_us" -v b="$us" 'BEGIN { printf "%.2fx", a / b }')
		fi
		if [ "$t" -ne "$cat_tool" ]; then
			vs_cat=$(awk -v a="$us" -v b="$cat_us" 'BEGIN { printf "%.1fx", a / b }')
		fi
		note=${failed[$t]:-}
		table_speed+=("$(printf '%-5s %-26s %8.3f %9.2f %8s %8s %9s %7s %s' \
			"$name" "${tool_label[t]}" \
			"$(awk -v u="$us" 'BEGIN { print u / 1e6 }')" \
			"$(awk -v s="$samples" -v u="$us" 'BEGIN { print s / u }')" \
			"$(fmt_mb "${hwm[$t]:-0}")" "$(fmt_mb "${anon[$t]:-0}")" \
			"$vs_up" "$vs_cat" "$note")")
	done
	for ((t = 0; t < nvariants; t++)); do
		if [ "${var_oracle[t]}" = - ]; then
			verdict="not checked (no oracle)"
		elif [ -n "${failed[$t]:-}" ]; then
			verdict="FAIL (${failed[$t]}, see $out/stderr-$name-${var_label[t]}.txt)"
		elif [ -n "${wrong[$t]:-}" ]; then
			verdict="FAIL (${wrong[$t]} of $runs runs differ; first: diff -u $out/expected-$name-${var_label[t]}.txt $out/wrong-$name-${var_label[t]}.txt)"
		else
			verdict="PASS ($runs of $runs runs equal the ground truth)"
		fi
		table_check+=("$(printf '%-5s %-22s %s' "$name" "${var_label[t]}" "$verdict")")
	done
	unset times hwm anon failed wrong

	# Done with this file: free its disk before the next, larger one
	[ "$keep" = 1 ] || rm_generated "$f"
done

# ---------------------------------------------- 3. instructions/sample

# callgrind counts the instructions of the process itself: not the
# kernel's (page faults of the mmapped file, reads).  A second, tiny file
# gives the fixed cost (start-up, the headers, the table), so that the
# marginal cost of a sample is also shown.
echo
echo "== instructions: valgrind --tool=callgrind, $(human "$cg_pairs") and 1k exits"
cg_ir() {	# cg_ir OUTFILE CMD...: runs CMD under callgrind; prints its Ir
	local o=$1

	shift
	valgrind --tool=callgrind --callgrind-out-file="$o" "$@" \
		> /dev/null 2> "$o.log" || return 1
	awk '/^summary:/ { print $2 }' "$o"
}
cg_big=$data/cg-$cg_pairs.data
cg_tiny=$data/cg-1000.data
generated+=("$cg_big" "$cg_tiny")
if ! command -v valgrind > /dev/null || ! command -v callgrind_annotate > /dev/null; then
	table_cg+=("skipped: valgrind is not installed (as root: apt-get install valgrind)")
elif ! "$perf" test -w kvmgen "$cg_big" vmx "$cg_pairs" > /dev/null ||
     ! "$perf" test -w kvmgen "$cg_tiny" vmx 1000 > /dev/null; then
	die "perf test -w kvmgen failed"
else
	s_big=$(awk '/^# samples total/ { print $4 }' "$cg_big.truth")
	s_tiny=$(awk '/^# samples total/ { print $4 }' "$cg_tiny.truth")
	declare -A ir=()
	for who in ours upstream; do
		for size in big tiny; do
			[ $size = big ] && f=$cg_big || f=$cg_tiny
			o=$out/callgrind.out.$who
			[ $size = tiny ] && o=$data/callgrind.out.$who.tiny
			if [ $who = ours ]; then
				ir[$who.$size]=$(cg_ir "$o" "$perf" kvm-events report -i "$f")
			else
				ir[$who.$size]=$(cg_ir "$o" "$perf" kvm -i "$f" stat report --stdio)
			fi
			[ -n "${ir[$who.$size]}" ] || die "callgrind failed, see $o.log"
		done
		rm -f "$data/callgrind.out.$who.tiny" "$data/callgrind.out.$who.tiny.log"
		echo "   $who: ${ir[$who.big]} instructions for $s_big samples"
	done
	table_cg+=("$(printf '%-26s %14s %16s %17s' "" "Ir" "Ir/sample" "marginal Ir/sample")")
	for who in ours upstream; do
		[ $who = ours ] && l="kvm-events vmexit" || l="upstream kvm stat vmexit"
		table_cg+=("$(awk -v l="$l" -v b="${ir[$who.big]}" -v t="${ir[$who.tiny]}" \
			-v sb="$s_big" -v st="$s_tiny" 'BEGIN {
			printf "%-26s %14d %16.0f %17.0f", l, b, b / sb, (b - t) / (sb - st) }')")
	done
	table_cg+=("$(awk -v o="${ir[ours.big]}" -v u="${ir[upstream.big]}" \
		-v ot="${ir[ours.tiny]}" -v ut="${ir[upstream.tiny]}" 'BEGIN {
		printf "%-26s %14s %15.2fx %16.2fx", "upstream / ours", "", u / o, (u - ut) / (o - ot) }')")

	{
		echo "perf kvm-events report -i <$(human "$cg_pairs") vmx exits, $s_big samples>"
		echo "valgrind --tool=callgrind; raw profile: $out/callgrind.out.ours"
		echo
		echo "Top 15 functions, self instructions:"
		top_functions 15
		echo
		echo "Top 15 functions, inclusive instructions (process start-up frames,"
		echo "from the dynamic loader down to run_builtin, left out):"
		top_functions 25 --inclusive=yes |
			grep -v -E '\(below main\)|__libc_start_main|ld-linux|:main |handle_internal_command|run_builtin' |
			head -n 15
	} > "$out/callgrind-ours.txt"
	table_cg+=("" "Top 10 functions of kvm-events vmexit, self Ir (all: $out/callgrind-ours.txt):")
	while IFS= read -r l; do
		# "1,234 (5.6%)  ???:function [/path/perf]" -> count, %, function
		table_cg+=("$(sed -E 's/^ *([0-9,]+) \( *([0-9.]+%)\) +([^ ]*:)?([^ ]+).*/\1 \2 \4/' <<< "$l" |
			awk '{ printf "  %14s %7s  %s", $1, $2, $3 }')")
	done < <(top_functions 10)
fi
if [ "$keep" != 1 ]; then
	rm_generated "$cg_big"
	rm_generated "$cg_tiny"
fi

# ------------------------------------------------------- 4. record loss

# The bundled guest makes N port writes, N port reads, N MMIO writes and
# N MMIO reads as fast as it can.  Whatever the host, each port access
# fires kvm_pio once, each MMIO write kvm_mmio once, each MMIO read
# kvm_mmio twice (the unsatisfied read at the exit, then the read when
# userspace hands back the value), and each access plus the final halt
# kvm_userspace_exit once.  `perf kvm stat record` does not record
# kvm_userspace_exit.
#
# A lost event is one the recording lacks.  Counting them is not enough:
# on some hosts (see kvm-events-record.sh) a recording gains duplicate
# samples and drops others with no PERF_RECORD_LOST, and the two can
# cancel out.  A duplicate has the same CPU, event and timestamp (ns) as
# another sample, so lost = expected - (recorded - duplicates).
echo
echo "== record loss: perf test -w kvmguest $guest_n $guest_n $guest_n $guest_n"
guest_skip=
guest_note=
if [ ! -c /dev/kvm ]; then
	guest_skip="no /dev/kvm on this host"
elif [ "$(id -u)" != 0 ]; then
	guest_skip="recording kvm tracepoints needs root"
elif ! "$perf" list kvm:kvm_pio 2>/dev/null | grep -q kvm_pio; then
	guest_skip="no kvm:kvm_pio tracepoint (tracefs or the kvm module missing)"
fi
guest=("$perf" test -w kvmguest "$guest_n" "$guest_n" "$guest_n" "$guest_n")
if [ -z "$guest_skip" ]; then
	# The guest alone: its exit rate with nothing recording it
	measure /dev/null "$out/guest.log" "${guest[@]}"
	if [ "$M_RC" -eq 2 ]; then
		guest_skip="the guest cannot run here (see $out/guest.log)"
	elif [ "$M_RC" -ne 0 ]; then
		guest_skip="the guest failed, exit $M_RC (see $out/guest.log)"
	fi
fi

exits=$((4 * guest_n))
rate() { awk -v n="$1" -v u="$2" 'BEGIN { printf "%.0f", n * 1e6 / u }'; }
guest_row() {	# guest_row LABEL SECONDS EXITS/S PIO MMIO UEXIT KEXIT DUPS LOSTREC LOST
	printf '%-24s %7s %9s %8s %8s %9s %8s %5s %8s %7s' "$@"
}
if [ -n "$guest_skip" ]; then
	echo "   skipped: $guest_skip"
	table_guest+=("skipped: $guest_skip")
else
	table_guest+=("$(guest_row "" "s" "exits/s" kvm_pio kvm_mmio uspc_exit kvm_exit dups "LOST rec" lost)")
	table_guest+=("$(guest_row "guest alone" "$(secs "$M_US")" "$(rate "$exits" "$M_US")" \
		"" "" "" "" "" "" "")")
	table_guest+=("$(guest_row "expected" "" "" $((2 * guest_n)) $((3 * guest_n)) \
		$((4 * guest_n + 1)) "" 0 0 0)")
	for who in ours upstream; do
		g=$data/guest-$who.data
		generated+=("$g" "$g.old")
		if [ $who = ours ]; then
			l="perf kvm-events record"
			rec=("$perf" kvm-events record)
		else
			l="perf kvm stat record"
			rec=("$perf" kvm stat record)
		fi
		measure /dev/null "$out/record-$who.log" "${rec[@]}" -o "$g" -- "${guest[@]}"
		if [ "$M_RC" -ne 0 ]; then
			table_guest+=("$(printf '%-24s failed, exit %d (see %s)' "$l" "$M_RC" "$out/record-$who.log")")
			continue
		fi
		us=$M_US
		# Per event "SAMPLE events: N" under "kvm:kvm_pio stats:", and
		# the LOST and LOST_SAMPLES records of the whole file
		"$perf" report --stats -i "$g" > "$out/stats-$who.txt" 2>&1
		read -r pio mmio uexit kexit lostrec < <(awk '
			/ stats:$/ { ev = $1 }
			ev && /SAMPLE events:/ { n[ev] = $3 }
			!ev && /LOST(_SAMPLES)? events:/ { lost += $3 }
			END {
				printf "%d %d %d %d %d\n", n["kvm:kvm_pio"],
				       n["kvm:kvm_mmio"], n["kvm:kvm_userspace_exit"],
				       n["kvm:kvm_exit"], lost
			}' "$out/stats-$who.txt")
		dups=$("$perf" script -i "$g" --ns -F cpu,time,event 2>/dev/null |
			sort | uniq -c | awk '$1 > 1 { d += $1 - 1 } END { print d + 0 }')
		expected=$((2 * guest_n + 3 * guest_n))
		got=$((pio + mmio))
		if [ $who = ours ]; then
			expected=$((expected + 4 * guest_n + 1))
			got=$((got + uexit))
		else
			uexit="-"
		fi
		lost=$((expected - (got - dups)))
		table_guest+=("$(guest_row "$l" "$(secs "$us")" "$(rate "$exits" "$us")" \
			"$pio" "$mmio" "$uexit" "$kexit" "$dups" "$lostrec" "$lost")")
		echo "   $l: $lost lost of $expected, $dups duplicates, $lostrec LOST records"
		if [ $who = ours ] && [ "$kexit" -eq 0 ]; then
			guest_note="kvm_exit 0: this host's hypervisor backend fires only kvm_pio, kvm_mmio and kvm_userspace_exit."
		fi
		[ "$keep" = 1 ] || rm -f "$g" "$g.old"
	done
fi

# ------------------------------------------------------------ 5. table

total_us=$(( $(usec "$EPOCHREALTIME") - $(usec "$bench_start") ))
{
	echo "perf kvm-events benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "$(nproc) CPUs ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), kernel $(uname -r), $("$perf" version)"
	echo "Load average (1, 5, 15 min) at the start: $load_start, at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "Generated files: perf test -w kvmgen F vmx EXITS (4 vcpus); BENCH_RUNS=$runs runs of each tool, in turns"
	echo
	echo "Median wall time of the timed rounds; peak memory sampled every ${poll_ms} ms in a round of its own (RSS counts the pages of the input file a tool mmaps; anon is RssAnon);"
	echo "faster = upstream vmexit time / this time (x faster than upstream); vs cat = this time / cat's time."
	printf '%-5s %-26s %8s %9s %8s %8s %9s %7s\n' \
		exits tool "median s" "Msample/s" "RSS MB" "anon MB" "faster" "vs cat"
	printf '%s\n' "${table_speed[@]}"
	echo
	echo "Output equality (each kvm-events report vs expected_report of the .truth):"
	printf '%s\n' "${table_check[@]}"
	echo
	echo "Instructions (callgrind, user space only), $(human "$cg_pairs") exits; marginal = without the fixed cost of a 1k-exit run:"
	printf '%s\n' "${table_cg[@]}"
	echo
	echo "Record loss, bundled guest at its highest rate: perf test -w kvmguest $guest_n $guest_n $guest_n $guest_n"
	printf '%s\n' "${table_guest[@]}"
	[ -z "$guest_note" ] || echo "$guest_note"
	echo
	awk -v u="$total_us" 'BEGIN { printf "Whole bench: %dm%02ds\n", u / 60e6, (u / 1e6) % 60 }'
} | sed 's/ *$//' > "$results"
echo
cat "$results"
echo "(written to $results)"

# A wrong report fails the bench, after the table has been printed
for l in "${table_check[@]}"; do
	case $l in
	*FAIL*) exit 1 ;;
	esac
done
exit 0
