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

# skip_without_kvm_tracing: exit 2 (skip) with a reason when this host
# cannot record kvm tracepoints.
skip_without_kvm_tracing() {
	if [ ! -c /dev/kvm ]; then
		echo "skip: no /dev/kvm on this host"
		exit 2
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "skip: recording kvm tracepoints needs root"
		exit 2
	fi
	if ! perf list 'kvm:kvm_pio' 2>/dev/null | grep -q kvm_pio; then
		echo "skip: no kvm:kvm_pio tracepoint (tracefs or the kvm module missing)"
		exit 2
	fi
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
