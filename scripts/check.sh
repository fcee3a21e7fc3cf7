#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh PERF BASE
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
for p in $(grep -v '^#' patches/series | awk '{ print $1 }'); do
	# From stdin: given a file name, checkpatch takes it for a source file.
	out=$(perl "$checkpatch" --no-tree --quiet --show-types - < "patches/$p" 2>&1)
	if [ -z "$out" ]; then
		pass "checkpatch patches/$p"
	else
		echo "$out"
		fail "checkpatch patches/$p"
	fi
done

# perf test finds the shell tests in ./tools/perf/tests/shell and runs
# them with the perf under test first in PATH.
log=$(mktemp)
san_log=${SANITIZER_LOG:-}
[ -n "$san_log" ] && rm -f "$san_log".*
PATH="$(dirname "$perf"):$PATH" "$perf" test kvm-events > "$log" 2>&1
cat "$log"
p=$(grep -E -c ': Ok$' "$log")
f=$(grep -E -c ': FAILED!?' "$log")
s=$(grep -E -c ': Skip' "$log")
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
