#!/bin/bash
# kvm-events: hostile recordings found by fuzzing end the report cleanly
# SPDX-License-Identifier: GPL-2.0

# Each *.fuzz file in kvm-events-fuzz/ is a recording on which `perf
# kvm-events report` once crashed or hung (scripts/fuzz.sh finds them).
# With each analysis, the report must end within the time limit with an
# exit of its own, a report or an error, and not by a signal.
#
# kvm-events-fuzz/OPEN names the inputs whose bug is not fixed yet, with
# where the fix belongs.  They are run too: while one of them still fails,
# the test is skipped and says which; one that passes is reported as
# fixed, to be taken off the list.  A failure of any other input is a
# failure of the test.  Under make check SANITIZE=1, the sanitizer reports of the known
# bugs are kept apart, so that only new ones fail the run.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

inputs="$(cd "$(dirname "$0")" && pwd)/kvm-events-fuzz"
# Seconds before an input counts as a hang: a report of these small files
# takes milliseconds, and a sanitized perf on a loaded machine many times
# more.
limit=5
[ -n "${ASAN_OPTIONS:-}" ] && limit=30
dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
open_failing=0

# run_report FILE OPTIONS...: the report's exit status, 124 past the
# limit; the sanitizers (make check SANITIZE=1) get $asan_options and
# $ubsan_options.
# In a subshell, whose stderr takes the shell's notes of a crash.
run_report() {
	file=$1
	shift
	return "$( (ASAN_OPTIONS=$asan_options UBSAN_OPTIONS=$ubsan_options \
		timeout -k 2 "$limit" perf kvm-events report -i "$file" "$@" \
		> /dev/null 2> "$dir/err"; echo $?) 2> /dev/null)"
}

# Each analysis, with options that take both readers (the fast one, in
# one thread or two, and --generic-reader) and every output: the sets
# that scripts/fuzz.sh fuzzes.
option_sets=(
	"--event vmexit --stats --histogram --top 3 --split-idle"
	"--event mmio --key p99 --threads 2 --per-vcpu --json"
	"--event ioport --vcpu 1 --generic-reader --csv"
	"--event userspace --per-vm"
	"--event msr --duration 1 --fields samples,p50,max"
	"--event hypercall --key name --threads 1"
	"--event halt --per-vcpu --top 3 --threads 1"
)

# check_input FILE: 0 when every analysis ends cleanly; else prints why
check_input() {
	file=$1
	for opts in "${option_sets[@]}"; do
		run_report "$file" $opts
		rc=$?
		if [ $rc -eq 124 ]; then
			echo "$(basename "$file"): report $opts: still running after ${limit}s"
			return 1
		fi
		if [ $rc -ge 128 ]; then
			echo "$(basename "$file"): report $opts: killed by signal $((rc - 128))"
			tail -n 20 "$dir/err"
			return 1
		fi
	done
	return 0
}

# Only a perf built with the sanitizers sees some of the known bugs.
sanitized=0
ldd "$(command -v perf)" 2> /dev/null | grep -q -e libasan -e libubsan && sanitized=1

nr=0
for f in "$inputs"/*.fuzz; do
	[ -f "$f" ] || continue
	nr=$((nr + 1))
	name=$(basename "$f")
	asan_options=${ASAN_OPTIONS:-}
	ubsan_options=${UBSAN_OPTIONS:-}
	shows=$(awk -v n="$name" '$1 == n { print $2 }' "$inputs/OPEN")
	if [ -z "$shows" ]; then
		check_input "$f" || err=1
		continue
	fi
	# A known bug: its sanitizer reports are expected, keep them apart.
	asan_options="${asan_options:+$asan_options:}log_path=$dir/open"
	ubsan_options="${ubsan_options:+$ubsan_options:}log_path=$dir/open"
	if check_input "$f" > "$dir/why"; then
		if [ "$shows" = any ] || [ $sanitized -eq 1 ]; then
			echo "fixed: $name passes now, take it off kvm-events-fuzz/OPEN"
		fi
	else
		open_failing=$((open_failing + 1))
		echo "known bug, not fixed yet: $(head -n 1 "$dir/why")"
		awk -v n="$name" -F '\t' '$1 == n { print "    " $3 }' "$inputs/OPEN"
	fi
done

if [ $nr -eq 0 ]; then
	echo "FAIL: no input in $inputs"
	exit 1
fi
if [ $err -ne 0 ]; then
	exit 1
fi
if [ $open_failing -ne 0 ]; then
	echo "skip: $open_failing of $nr inputs still fail, by bugs not fixed yet"
	exit 2
fi
exit 0
