#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-check.sh PERF [KERNEL [TEST...]]: run the guest tests (or those
#   perf tests of them) in the test machine
# vm-check.sh --list PERF: their perf test numbers
#
# The guest tests are the shell tests that call skip_without_kvm_tracing:
# they need a real kernel's KVM.  On a host without /dev/kvm, make check
# runs them here, in scripts/vm.sh's machine (Debian's KERNEL series, 6.12
# by default, on an emulated SVM CPU), one after another and verbosely,
# over the same checkout and perf.  Prints perf test's output and how
# long the machine took; exits 0 when every test passed, 1 when one
# failed or none ran, and 3 when the machine cannot run.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)

# guest_tests PERF: the numbers perf test gives the guest tests
guest_tests() {
	local t desc
	for t in $(grep -l '^skip_without_kvm_tracing$' "$top"/tools/perf/tests/shell/*.sh); do
		desc=$(sed -n '2s/^# //p' "$t")
		"$1" test list 2> /dev/null |
			awk -v d="$desc" 'substr($0, index($0, ":") + 2) == d { print $1 + 0 }'
	done
}

if [ "${1:-}" = --list ]; then
	guest_tests "$2" | tr '\n' ' '
	exit 0
fi
perf=$1
kernel=${2:-6.12}
shift $(($# < 2 ? $# : 2))
if [ $# -gt 0 ]; then
	tests=("$@")
else
	read -r -a tests <<< "$(guest_tests "$perf" | tr '\n' ' ')"
fi
[ ${#tests[@]} -gt 0 ] || { echo "vm-check: no guest test found" >&2; exit 1; }

PATH="$(dirname "$perf"):$PATH"
export PATH
writable=()
[ -n "${SANITIZER_LOG:-}" ] && writable=(-w "$(dirname "$SANITIZER_LOG")")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
echo "--- the guest tests (${tests[*]}), in the test machine on Debian's $kernel kernel:"
(cd "$top" && "$top/scripts/vm.sh" -k "$kernel" -t 1800 "${writable[@]}" -- \
	"$perf" test -S -v "${tests[@]}") > "$log" 2>&1
status=$?
cat "$log"
echo "--- the test machine took $(($(date +%s) - start)) s"
[ $status = 3 ] && exit 3
ran=$(grep -E -c ': (Ok|FAILED!?|Skip)' "$log")
ok=$(grep -E -c ': Ok$' "$log")
if [ "$ran" -eq 0 ]; then
	echo "vm-check: the test machine ran no guest test (exit $status)" >&2
	exit 1
fi
[ "$ok" -eq "$ran" ]
