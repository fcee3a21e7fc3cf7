#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh PERF BASE TREE
#
# checkpatch (from the base tree) on our files and on each patch of the
# series, then `perf test kvm-events`, which runs the C suite and the
# shell tests.  Ends with a "N passed, N failed, N skipped" line.
#
# With SANITIZER_LOG set (the log_path of ASAN_OPTIONS and UBSAN_OPTIONS),
# each sanitizer report that any perf process of the run wrote there is
# printed and counted as a failure.
set -u

perf=$1
base=$2
tree=$3
top=$(cd "$(dirname "$0")/.." && pwd)
checkpatch="$base/scripts/checkpatch.pl"
passed=0
failed=0
skipped=0

pass() { passed=$((passed + 1)); echo "  ok    $*"; }
fail() { failed=$((failed + 1)); echo "  FAIL  $*"; }

cd "$top"
for f in $(git ls-files -co --exclude-standard 'tools/*.c' 'tools/*.h' 'tools/*.sh'); do
	ignore=""
	# perf test reads a shell test's description from line 2, where
	# checkpatch wants the SPDX tag; perf's own shell tests do the same.
	case $f in
	tools/perf/tests/shell/*/*) ;;
	tools/perf/tests/shell/*.sh) ignore="--ignore SPDX_LICENSE_TAG" ;;
	esac
	out=$(perl "$checkpatch" --no-tree --quiet --show-types $ignore -f "$f" 2>&1)
	if [ -z "$out" ]; then
		pass "checkpatch $f"
	else
		echo "$out"
		fail "checkpatch $f"
	fi
done
# The series as it would be mailed (scripts/series.py checks that it
# covers every file and ends in the laid tree), each patch through
# checkpatch with the two checks series-check.sh explains it leaves out,
# and the patches of upstream files that make applies.
series=$(mktemp -d)
if python3 scripts/series.py "$base" "$tree" "$series/s" > /dev/null; then
	pass "the series covers every file and ends in the laid tree"
	for p in "$series"/s/*.patch patches/*.patch; do
		out=$(perl "$checkpatch" --no-tree --quiet --show-types \
			--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG - < "$p" 2>&1)
		if [ -z "$out" ]; then
			pass "checkpatch $(basename "$p")"
		else
			echo "$out"
			fail "checkpatch $(basename "$p")"
		fi
	done
else
	fail "scripts/series.py: the series cannot be made"
fi
rm -rf "$series"

# perf test finds the shell tests in ./tools/perf/tests/shell and runs
# them with the perf under test first in PATH.
log=$(mktemp)
san_log=${SANITIZER_LOG:-}
[ -n "$san_log" ] && rm -f "$san_log".*
export PATH="$(dirname "$perf"):$PATH"

# The guest tests need a real kernel's KVM.  On a host without /dev/kvm
# the host skips them, and they run in the test machine instead
# (scripts/vm-check.sh), so that they never count as skipped here.
guest_tests=""
[ -c /dev/kvm ] || guest_tests=$(scripts/vm-check.sh --list "$perf")
skip_list=$(echo $guest_tests | tr ' ' ',')
# With them, the test of the series' fix of perf record's ring buffer
# reader (fix-11), which kvm-events' recordings depend on.
"$perf" test ${skip_list:+--skip "$skip_list"} kvm-events perf_mmap__push 2>&1 |
	grep -v ': Skip (user override)$' > "$log"
cat "$log"
# All of them on Debian's 6.12 kernel, and on 6.1, whose kvm tracepoints
# differ, the known guest's exits in every analysis.  Under the
# sanitizers, ASan's perf is several times slower on the emulated CPU
# (all seven took over 28 minutes): there, on 6.12, the four whose real
# recordings go through every analysis, reader and recorder, not the
# readers' many layouts, the cut recordings nor live's timing, which the
# plain check, run first in CI, has just run.
vm_check() {
	local vm_log status
	vm_log=$(mktemp)
	scripts/vm-check.sh "$perf" "$@" > "$vm_log" 2>&1
	status=$?
	cat "$vm_log"
	sed "s/: \(Ok\|FAILED!*\|Skip.*\)$/ (on $1): \1/" "$vm_log" |
		grep -E ': (Ok|FAILED!?|Skip)' >> "$log"
	[ $status = 0 ] || [ "$(grep -E -c ': FAILED!?' "$vm_log")" -gt 0 ] ||
		fail "the guest tests in the test machine on $1 (scripts/vm-check.sh: exit $status)"
	rm -f "$vm_log"
}
if [ -n "$guest_tests" ]; then
	if [ -z "$san_log" ]; then
		vm_check 6.12
		vm_check 6.1 "known guest"
	else
		vm_check 6.12 "known guest" "halting KVM guest" "live --use-bpf counts" \
			"recorded KVM guest"
	fi
fi
p=$(grep -E -c ': Ok$' "$log")
f=$(grep -E -c ': FAILED!?' "$log")
s=$(grep -E -c ': Skip' "$log")
# A failure says why only with -v: run each failed test again, verbosely.
# The test machine's tests ran with -v already.
for t in $(sed -n 's/^ *\([0-9][0-9.]*\): .*: FAILED!*$/\1/p' "$log"); do
	case " $guest_tests " in *" ${t%%.*} "*) continue ;; esac
	echo "--- perf test -v ${t%%.*}, again:"
	"$perf" test -v "${t%%.*}" 2>&1 | tail -40
done
rm -f "$log"
if [ "$p" -eq 0 ]; then
	fail "perf test kvm-events ran no test"
fi
passed=$((passed + p))
failed=$((failed + f))
skipped=$((skipped + s))
if [ -n "$san_log" ]; then
	shown=0
	for r in "$san_log".*; do
		[ -f "$r" ] || continue
		# the first few in full; the others are often the same bug
		[ $shown -lt 3 ] && cat "$r"
		shown=$((shown + 1))
		fail "sanitizer report $r"
	done
fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
