#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-check.sh [-a ARCH] PERF [KERNEL [TEST...]]: run the guest tests (or
#   those perf tests of them) in the test machine
# vm-check.sh [-a ARCH] --list PERF: the perf test numbers that PERF, run
#   on this host, gives them
#
# The guest tests are the shell tests that need a real kernel's KVM; on
# x86 (ARCH x86_64, the default) those with a line
# skip_without_kvm_tracing, on arm64 (ARCH arm64) those with a line
# skip_without_arm64_kvm_tracing.  On a host without /dev/kvm, make check
# runs the x86 ones here, in scripts/vm.sh's machine (Debian's KERNEL
# series, 6.12 by default, on an emulated SVM CPU), one after another and
# verbosely, over the same checkout and perf; -a arm64 runs the arm64 ones
# in vm.sh's arm64 machine, with PERF the arm64 perf (make perf-arm64).
# That perf cannot run here to number its tests, so they are named to it
# by their descriptions.  Prints perf test's output and how long the
# machine took; exits 0 when every test passed, 1 when one failed or none
# ran, and 3 when the machine cannot run.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)

arch=x86_64
list=""
while [ $# -gt 0 ]; do
	case $1 in
	-a) arch=${2:-}; shift 2 || exit 2 ;;
	--list) list=1; shift ;;
	*) break ;;
	esac
done
case $arch in
x86_64 | x86 | amd64) arch=x86_64 marker=skip_without_kvm_tracing ;;
arm64 | aarch64) arch=arm64 marker=skip_without_arm64_kvm_tracing ;;
*) echo "vm-check: -a takes x86_64 or arm64, not '$arch'" >&2; exit 2 ;;
esac

# guest_descs: the descriptions of the guest tests, one a line
guest_descs() {
	local t
	for t in $(grep -l "^$marker\$" "$top"/tools/perf/tests/shell/*.sh); do
		sed -n '2s/^# //p' "$t"
	done
}

# guest_tests PERF: the numbers perf test gives the guest tests
guest_tests() {
	local desc
	guest_descs | while read -r desc; do
		"$1" test list 2> /dev/null |
			awk -v d="$desc" 'substr($0, index($0, ":") + 2) == d { print $1 + 0 }'
	done
}

if [ -n "$list" ]; then
	guest_tests "$1" | tr '\n' ' '
	exit 0
fi
perf=$1
kernel=${2:-6.12}
shift $(($# < 2 ? $# : 2))
if [ $# -gt 0 ]; then
	tests=("$@")
elif [ $arch = arm64 ]; then
	# perf test takes a part of a description as well as a number.
	mapfile -t tests < <(guest_descs)
else
	read -r -a tests <<< "$(guest_tests "$perf" | tr '\n' ' ')"
fi
[ ${#tests[@]} -gt 0 ] || { echo "vm-check: no guest test found" >&2; exit 1; }

PATH="$(dirname "$perf"):$PATH"
export PATH
writable=()
[ -n "${SANITIZER_LOG:-}" ] && writable=(-w "$(dirname "$SANITIZER_LOG")")
# What the tests leave for the host to check (kvm-events-guest-arm64.sh)
[ -n "${KVM_EVENTS_KEEP:-}" ] && writable=(-w "$KVM_EVENTS_KEEP")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
if [ $arch = arm64 ]; then
	echo "--- the arm64 guest tests, in the arm64 test machine on Debian's $kernel kernel:"
	printf '  %s\n' "${tests[@]}"
else
	echo "--- the guest tests (${tests[*]}), in the test machine on Debian's $kernel kernel:"
fi
(cd "$top" && "$top/scripts/vm.sh" -a $arch -k "$kernel" -t 1800 "${writable[@]}" -- \
	"$perf" test -S -v "${tests[@]}") 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo "--- the test machine took $(($(date +%s) - start)) s"
[ $status = 3 ] && exit 3
ran=$(grep -E -c ': (Ok|FAILED!?|Skip)' "$log")
ok=$(grep -E -c ': Ok$' "$log")
if [ "$ran" -eq 0 ]; then
	echo "vm-check: the test machine ran no guest test (exit $status)" >&2
	exit 1
fi
[ "$ok" -eq "$ran" ]
