#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh --deps
#	Install AFL++ and llvm-symbolizer from Debian: as root with apt-get,
#	otherwise print the exact apt-get line and fail.
#
# fuzz.sh FUZZPERF PERF DIR [SECONDS [SANPERF]]
#	Coverage-guided fuzzing of `perf kvm-events report` with AFL++.
#	FUZZPERF is perf built with afl-clang-fast and ASan, PERF the normal
#	build, beside which make perf puts kvmgen, which makes the seeds.  FUZZ_MODE says what is fuzzed:
#	  file   a perf.data file (-i FILE), the default
#	  pipe   a file in pipe format (-i FILE)
#	  stdin  the pipe format on standard input (-i -)
#	  dir    a perf record --threads directory: its data.0 is fuzzed,
#	         beside the header file and data.1-3 of a generated one
#	On standard input, --generic-reader is not fuzzed: perf's session
#	code parses a stream's tracing data in the process itself, where no
#	child can read it first, and libtraceevent 1.7.1 crashes on some.
#
#	The time (default 300 s) is split over seven rounds, one per analysis,
#	each with other report options, so that both readers (the fast one,
#	in one thread or two, and --generic-reader) and every output are
#	fuzzed.  Each round starts from the seeds and from what the rounds
#	before it found, and runs one afl-fuzz per core.  Then every crash
#	and hang is run again for its report, and all inputs are grouped by
#	where they fail.
#	With SANPERF (perf built with ASan and UBSan by gcc), every input the
#	fuzzers kept is also run through it, which finds undefined behaviour
#	that the fuzzing build does not check.
#
#	Everything goes to DIR: seeds/, out-EVENT/ (afl-fuzz's folders) and
#	found/, where each failing input NAME.data has NAME.cmd, the report
#	command, and NAME.report, its sanitizer report.  Ends with the
#	executions run and the crashes and hangs found.
#
#	Environment: FUZZ_JOBS (afl-fuzz per round, default the number of
#	cores), FUZZ_TIMEOUT (ms one report may take before it counts as a
#	hang, default 1000), FUZZ_HANG_SECONDS (how long a hang must last
#	when run again, default 10).
set -u

PKGS="afl++ llvm-14"

deps() {
	"$(dirname "$0")/deps.sh" $PKGS
}

if [ "${1:-}" = --deps ]; then
	deps
	exit
fi
if [ $# -lt 3 ]; then
	echo "usage: $0 --deps | FUZZPERF PERF DIR [SECONDS [SANPERF]]" >&2
	exit 2
fi
deps || exit 1

fperf=$1
perf=$2
dir=$3
seconds=${4:-300}
sperf=${5:-}
kvmgen=$(dirname "$(readlink -f "$perf")")/kvmgen
mode=${FUZZ_MODE:-file}
case $mode in
file|pipe|stdin|dir) ;;
*) echo "error: FUZZ_MODE=$mode: expected file, pipe, stdin or dir" >&2; exit 2 ;;
esac
jobs=${FUZZ_JOBS:-$(nproc)}
timeout=${FUZZ_TIMEOUT:-1000}
hang_seconds=${FUZZ_HANG_SECONDS:-10}

# One round per analysis: its name, then the report's options.  The same
# sets as tools/perf/tests/shell/kvm-events-fuzz-inputs.sh runs.
rounds=(
	"vmexit --event vmexit --stats --histogram --top 3 --split-idle"
	"mmio --event mmio --key p99 --threads 2 --per-vcpu --json"
	"ioport --event ioport --vcpu 1 --generic-reader --csv"
	"userspace --event userspace --per-vm"
	"msr --event msr --duration 1 --fields samples,p50,max"
	"hypercall --event hypercall --key name --threads 1"
	"halt --event halt --per-vcpu --top 3 --threads 1"
)
per_round=$((seconds / ${#rounds[@]}))
[ "$per_round" -ge 10 ] || per_round=10

# afl-fuzz wants ASan to abort and not to symbolize.  No leak checks and
# no allocation stacks while fuzzing: the stacks halve the speed, and each
# failing input is run again with them.  An allocation of more than 1 GiB
# fails as malloc may: a hostile size in the file otherwise has ASan
# poison gigabytes of shadow, which takes seconds and looks like a hang.
common_asan="detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=1024"
fuzz_asan="$common_asan:abort_on_error=1:symbolize=0:malloc_context_size=0"
# handle_abort: a hang is stopped with SIGABRT, and ASan shows its stack.
show_asan="$common_asan:abort_on_error=1:symbolize=1:handle_abort=1"
# The suppressions of make check SANITIZE=1: UB in upstream code.
ubsan="print_stacktrace=1:halt_on_error=1:abort_on_error=1"
ubsan="$ubsan:suppressions=$(cd "$(dirname "$0")" && pwd)/ubsan.supp"
[ -x /usr/lib/llvm-14/bin/llvm-symbolizer ] &&
	export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
# AFL_FAST_CAL: 3 runs of each seed rather than 8 before fuzzing.
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_FAST_CAL=1
# A piped core_pattern makes afl-fuzz refuse to start; that is the host's
# setting, not ours to change.
case $(cat /proc/sys/kernel/core_pattern 2> /dev/null) in
"|"*) export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 ;;
esac

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
start=$(date +%s)

# Seeds: small generated recordings of every scenario, in the mode's
# layout, and a recording of the bundled KVM guest where this host can
# make one.  A directory's seeds are the data.N files of one generated
# directory, the template that each afl-fuzz copies.
rm -rf "$dir/seeds" "$dir"/tmpl*
mkdir -p "$dir/seeds"
case $mode in
pipe|stdin) modifier=+pipe ;;
*) modifier="" ;;
esac
if [ "$mode" = dir ]; then
	"$kvmgen" "$dir/tmpl" vmx+threads 8 > /dev/null ||
		{ echo "error: $kvmgen vmx+threads failed" >&2; exit 1; }
	rm -f "$dir"/tmpl.*
	for f in "$dir"/tmpl/data.*; do
		cp "$f" "$dir/seeds/$(basename "$f")"
	done
fi
for s in vmx svm vmx-old unpaired arm64 s390 ppc64le riscv64 loongarch64 pvm \
	 vmx-nested vmx-halt; do
	[ "$mode" = dir ] && break
	"$kvmgen" "$dir/seeds/$s.data" "$s$modifier" 8 > /dev/null ||
		{ echo "error: $kvmgen $s$modifier failed" >&2; exit 1; }
	# the ground truth files beside it are no seeds
	rm -f "$dir/seeds/$s.data."*
done
if [ "$mode" = file ] && "$(dirname "$0")/hardware-kvm.sh" &&
   "$perf" kvm-events record -q --event all -o "$dir/seeds/guest.data" -- \
	"$perf" test -w kvmguest 5 3 4 2 > "$dir/record.log" 2>&1; then
	rm -f "$dir/seeds/guest.data.old"
else
	rm -f "$dir/seeds/guest.data"*
	echo "  FUZZ   no recording of the KVM guest here, or not in this mode: generated seeds only"
fi

# report "RUNNER... PERF" OPTIONS INPUT: the report of INPUT as this mode
# reads it; the words of the first argument are the command
report() {
	local p=$1 o=$2 input=$3

	case $mode in
	file|pipe)
		$p kvm-events report $o -i "$input" ;;
	stdin)
		$p kvm-events report $o -i - < "$input" ;;
	dir)
		rm -rf "$dir/tmpl-run"
		cp -r "$dir/tmpl" "$dir/tmpl-run"
		cp "$input" "$dir/tmpl-run/data.0"
		$p kvm-events report $o -i "$dir/tmpl-run" ;;
	esac
}

rm -rf "$dir"/out-* "$dir"/in-*
[ "$mode" = stdin ] && rounds=("${rounds[@]/ --generic-reader/}")
for round in "${rounds[@]}"; do
	event=${round%% *}
	opts=${round#* }
	out="$dir/out-$event"
	in="$dir/in-$event"
	mkdir -p "$in"
	cp "$dir"/seeds/* "$in"/
	# What the rounds before found, new coverage beyond their seeds, is a
	# seed of this one.  Not their whole queues: those hold their seeds
	# too, and would grow from round to round.
	n=0
	for f in "$dir"/out-*/*/queue/id:*src:*+cov*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		cp "$f" "$in/prev-$n"
	done
	nr_seeds=$(ls "$in" | wc -l)
	echo "  FUZZ   perf kvm-events report $opts: ${per_round}s," \
		"$jobs afl-fuzz, $nr_seeds seeds"
	pids=""
	for i in $(seq 1 "$jobs"); do
		if [ "$i" = 1 ]; then
			role="-M main"
		else
			role="-S sec$i"
		fi
		case $mode in
		file|pipe) target=(-- "$fperf" kvm-events report $opts -i @@) ;;
		stdin) target=(-- "$fperf" kvm-events report $opts -i -) ;;
		dir)
			# afl-fuzz writes each input to this job's data.0
			rm -rf "$dir/tmpl-$i"
			cp -r "$dir/tmpl" "$dir/tmpl-$i"
			target=(-f "$dir/tmpl-$i/data.0" -- "$fperf" kvm-events report $opts -i "$dir/tmpl-$i") ;;
		esac
		ASAN_OPTIONS=$fuzz_asan afl-fuzz $role -i "$in" -o "$out" \
			-t "$timeout" -V "$per_round" "${target[@]}" \
			< /dev/null > "$dir/afl-$event-$i.log" 2>&1 &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do
		wait "$p" || rc=1
	done
	if [ $rc -ne 0 ] || ! ls "$out"/*/fuzzer_stats > /dev/null 2>&1; then
		echo "error: afl-fuzz failed, see $dir/afl-$event-*.log:" >&2
		tail -n 15 "$dir/afl-$event-1.log" >&2
		exit 1
	fi
done
fuzzed=$(date +%s)

# signature REPORT: the kind of failure, where it happened, and the first
# frame in perf's own code when that is not the same.
signature() {
	awk '
	function frame(line,   s) {
		if (match(line, / in [^ ]+ [^ ]+/)) {
			s = substr(line, RSTART + 4, RLENGTH - 4)
			sub(/ .*\//, " ", s)
			sub(/:[0-9]+$/, "", s)
			gsub(/[()]/, "", s)
			return s
		}
		if (match(line, /\([^)]*\+0x[0-9a-f]+\)/)) {
			s = substr(line, RSTART + 1, RLENGTH - 2)
			sub(/.*\//, "", s)
			return s
		}
		return "?"
	}
	/runtime error:/ && !kind {
		kind = $0
		sub(/^[^ ]* runtime error: /, "", kind)
		sub(/:.*/, "", kind)
		gsub(/0x[0-9a-f]+/, "0x...", kind)
		kind = "UB " kind
		where = $1
		sub(/:[0-9]+:$/, "", where)
		next
	}
	/ERROR: AddressSanitizer: / && !kind {
		s = $0
		sub(/.*AddressSanitizer: /, "", s)
		split(s, w, " ")
		kind = w[1]
		next
	}
	# frames of the sanitizers themselves say nothing of where it happened
	/^ *#[0-9]+ .*(__asan|__sanitizer|__interceptor|__ubsan|StrstrCheck)/ {
		next
	}
	kind && /^ *#[0-9]+ / && !top {
		top = frame($0)
		if (where == "")
			where = top
	}
	kind && /^ *#[0-9]+ .* in .*(tools\/perf\/|util\/|builtin-|lib\/)[^ ]*\.c:/ && !ours {
		ours = frame($0)
	}
	END {
		if (!kind)
			exit
		if (hang)
			kind = "hang"
		if (where == "")
			print kind ", no stack"
		else if (ours == "" || index(where, ours) == 1)
			print kind " in " where
		else
			print kind " in " where ", from " ours
	}' hang="$2" "$1"
}

# keep INPUT KIND PERF: copies afl-fuzz's INPUT of the round $event, found
# as KIND (crash, hang, san), into DIR/found and runs it again with PERF.
keep() {
	local inst id name

	inst=$(basename "$(dirname "$(dirname "$1")")")
	id=$(basename "$1" | cut -d, -f1 | cut -d: -f2)
	name="$event-$inst-$2-$id"
	cp "$1" "$dir/found/$name.data"
	run_again "$3" "$opts" "$name"
}

# run_again PERF OPTIONS NAME: the report of DIR/found/NAME.data
run_again() {
	runner=$1
	opts=$2
	name=$3
	echo "FUZZ_MODE=$mode perf kvm-events report $opts of $name.data" > "$dir/found/$name.cmd"
	# in a subshell, whose stderr takes the shell's "Aborted" notes
	rc=$( (export ASAN_OPTIONS=$show_asan UBSAN_OPTIONS=$ubsan; \
		report "timeout -s ABRT -k 5 $hang_seconds $runner" "$opts" \
		"$dir/found/$name.data" \
		> /dev/null 2> "$dir/found/$name.report"; echo $?) 2> /dev/null)
	echo "exit $rc" >> "$dir/found/$name.report"
	hang=""
	[ "$rc" = 124 ] && hang=1
	sig=$(signature "$dir/found/$name.report" "$hang")
	[ -n "$sig" ] || sig="no failure when run again (exit $rc)"
	echo "$sig" > "$dir/found/$name.sig"
	# ASan of clang may fail to unwind what ASan of gcc can
	case $sig in
	*", no stack")
		[ -n "$sperf" ] && [ "$runner" != "$sperf" ] &&
			run_again "$sperf" "$opts" "$name" ;;
	esac
}

rm -rf "$dir/found"
mkdir -p "$dir/found"
for round in "${rounds[@]}"; do
	event=${round%% *}
	opts=${round#* }
	for f in "$dir/out-$event"/*/crashes/id:* "$dir/out-$event"/*/hangs/id:*; do
		[ -f "$f" ] || continue
		kind=$(basename "$(dirname "$f")")
		keep "$f" "${kind%s}" "$fperf"
	done
done

# What the fuzzing build does not check: undefined behaviour.
if [ -n "$sperf" ]; then
	echo "  FUZZ   every kept input through $sperf (ASan, UBSan)"
	for round in "${rounds[@]}"; do
		event=${round%% *}
		opts=${round#* }
		for f in "$dir/out-$event"/*/queue/id:*; do
			[ -f "$f" ] || continue
			rc=$( (export ASAN_OPTIONS=$common_asan:abort_on_error=1 \
				UBSAN_OPTIONS=$ubsan; \
				report "timeout -s KILL $hang_seconds $sperf" "$opts" "$f" \
				> /dev/null 2> "$dir/replay.err"; echo $?) 2> /dev/null)
			[ "$rc" -ge 128 ] && [ "$rc" -ne 137 ] || continue
			sig=$(signature "$dir/replay.err" "")
			# one input for each new failure
			grep -q -x -F "$sig" "$dir"/found/*.sig 2> /dev/null && continue
			keep "$f" san "$sperf"
		done
	done
	rm -f "$dir/replay.err"
fi

sum_stat() {
	# sum_stat NAME: NAME added up over every afl-fuzz of every round
	cat "$dir"/out-*/*/fuzzer_stats 2> /dev/null |
		awk -v k="$1" '$1 == k { n += $3 } END { print n + 0 }'
}

execs=$(sum_stat execs_done)
crashes=$(sum_stat saved_crashes)
hangs=$(sum_stat saved_hangs)
echo
echo "Inputs kept as crashes or hangs, grouped by where they fail when run again:"
for s in "$dir"/found/*.sig; do
	[ -f "$s" ] || continue
	echo "$(cat "$s")	found/$(basename "$s" .sig).data"
done | sort | awk -F'\t' '
	function show() { printf "%5d  %s\n       e.g. %s\n", n, last, eg }
	$1 != last { if (n) show(); last = $1; eg = $2; n = 0 }
	{ n++ }
	END { if (n) show() }'
echo
echo "Inputs and reports in $dir/found; $(($(date +%s) - fuzzed))s to run them again."
echo "fuzz ($mode): $execs executions in $((fuzzed - start))s ($seconds s asked)," \
	"$crashes crashes, $hangs hangs"
