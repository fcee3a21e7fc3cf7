# SPDX-License-Identifier: GPL-2.0
# Helpers of the kvm-events shell tests.

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
# the test machine, scripts/vm.sh)
skip_without_kvm_tracing() {
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
