#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [--host] PERF BASE TREE
#
# checkpatch (from the base tree) on our files and on each patch of the
# series, then `perf test kvm-events`, which runs the C suite and the
# shell tests, and the guest tests in the test machines.  Ends with a
# table of where the time went and a "N passed, N failed, N skipped" line.
#
# --host: the host's tests and checkpatch only, for the edit loop (make
# check-host); the guest tests are left out, and say so.
#
# With ARM64_PERF set (make perf-arm64's perf), the arm64 guest tests run
# in the arm64 test machine too.  With CHECK_TIMES set, a file of
# "SECONDS LABEL" lines (make's builds), those rows head the time table.
#
# The test machines each take one core (TCG, thread=single), and the
# host's tests mostly one: so they run side by side, in lanes, each
# lane's output kept in a log of its own and printed whole when the lane
# ends.
#
# With SANITIZER_LOG set (the log_path of ASAN_OPTIONS and UBSAN_OPTIONS),
# each sanitizer report that any perf process of the run wrote there is
# printed and counted as a failure.
set -u

host_only=""
if [ "${1:-}" = --host ]; then
	host_only=1
	shift
fi
perf=$1
base=$2
tree=$3
top=$(cd "$(dirname "$0")/.." && pwd)
checkpatch="$base/scripts/checkpatch.pl"
passed=0
failed=0
skipped=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# "SECONDS LABEL" rows of the time table, in order
times=$work/times
[ -n "${CHECK_TIMES:-}" ] && [ -f "$CHECK_TIMES" ] && cp "$CHECK_TIMES" "$times"
touch "$times"
check_start=$EPOCHSECONDS

pass() { passed=$((passed + 1)); echo "  ok    $*"; }
fail() { failed=$((failed + 1)); echo "  FAIL  $*"; }
took() { echo "$(($EPOCHSECONDS - $2)) $1" >> "$times"; }

# stamp: each line of the input after the second it came in
stamp() {
	local line
	while IFS= read -r line; do
		printf '%s %s\n' "$EPOCHSECONDS" "$line"
	done
}

# unstamp: a stamped log as it was printed, line by line
unstamp() { sed -u 's/^[0-9]* //' "$@"; }

# A perf test result line, "NN: description : Ok" (or FAILED, Skip)
result_re=': (Ok|FAILED!?|Skip.*)$'

cd "$top"
export PATH="$(dirname "$perf"):$PATH"
san_log=${SANITIZER_LOG:-}
[ -n "$san_log" ] && rm -f "$san_log".*

# checkpatch_files IGNORE FILE...: checkpatch in file mode on each FILE,
# in one run (--terse: each complaint on a line that starts with its
# file's name), a result for each
checkpatch_files() {
	local ignore=$1 out f rest

	shift
	[ $# -gt 0 ] || return 0
	out=$(perl "$checkpatch" --no-tree --quiet --show-types --terse $ignore -f "$@" 2>&1 |
		grep -v '^total: ')
	rest=$out
	for f; do
		if echo "$out" | grep -q -F "$f:"; then
			echo "$out" | grep -F "$f:"
			fail "checkpatch $f"
			rest=$(echo "$rest" | grep -v -F "$f:")
		else
			pass "checkpatch $f"
		fi
	done
	if [ -n "$rest" ]; then
		echo "$rest"
		fail "checkpatch: what it said of no file above"
	fi
}

# style: checkpatch on every file and patch of ours, the series, and no
# circle between our files
style() {
	local out series p

	# perf test reads a shell test's description from line 2, where
	# checkpatch wants the SPDX tag; perf's own shell tests do the same.
	checkpatch_files "" $(git ls-files -co --exclude-standard 'tools/*.c' 'tools/*.h' \
		'tools/*.sh' | grep -v -E '^tools/perf/tests/shell/[^/]*\.sh$')
	checkpatch_files "--ignore SPDX_LICENSE_TAG" \
		$(git ls-files -co --exclude-standard 'tools/perf/tests/shell/*.sh' |
		  grep -E '^tools/perf/tests/shell/[^/]*\.sh$')
	# The series as it would be mailed (scripts/series.py checks that it
	# covers every file and ends in the laid tree), each patch through
	# checkpatch with the two checks series-check.sh explains it leaves
	# out, and the patches of upstream files that make applies.
	series=$work/series
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

	# No file of ours calls into one that calls back into it (issue 28):
	# the tables of analyses and architectures hold their entries, whose
	# shared helpers are inline in the headers; the engine reaches the
	# heatmap and the second part's deferral only through the pointers
	# they register.
	if out=$(python3 scripts/circles.py "$(dirname "$(readlink -f "$perf")")"); then
		pass "no circles between our files: $(echo "$out" | tail -1)"
	else
		echo "$out"
		fail "circles between our files (scripts/circles.py)"
	fi
}

# The guest tests need a real kernel's hardware KVM, kvm_intel's or
# kvm_amd's.  On a host without it (no /dev/kvm, or the /dev/kvm of
# kvm_pvm, which runs guests without the CPU's virtualization, and whose
# exits the guest tests do not describe) the host skips them, and they
# run in the test machine instead (scripts/vm-check.sh), so that they
# never count as skipped here.
guest_tests=""
scripts/hardware-kvm.sh || guest_tests=$(scripts/vm-check.sh --list "$perf")
# The arm64 guest's tests skip on any other host: they run in the arm64
# test machine instead.
arm64_tests=""
[ "$(uname -m)" = aarch64 ] || arm64_tests=$(scripts/vm-check.sh -a arm64 --list "$perf")
skip_list=$(echo $guest_tests $arm64_tests | tr ' ' ',')

# vm_check LANE LABEL [-a ARCH] PERF KERNEL [TEST...]: the guest tests in
# the test machine, into the lane's stamped log; their results are
# labelled "(on LABEL)" when counted
vm_check() {
	local lane=$1 label=$2 status
	shift 2
	echo "@machine $label" | stamp >> "$work/$lane.log"
	scripts/vm-check.sh "$@" 2>&1 | stamp >> "$work/$lane.log"
	status=${PIPESTATUS[0]}
	echo "@machine-end $label $status" | stamp >> "$work/$lane.log"
}

# same_reports DIR LABEL: the reports the arm64 perf left in DIR, of the
# recordings it made there, are what this perf prints of them, byte for byte
same_reports() {
	local dir=$1 r name analysis json n=0 bad=""
	for r in "$dir"/*.txt "$dir"/*.json; do
		[ -f "$r" ] || continue
		name=$(basename "$r")
		analysis=${name#*.}
		analysis=${analysis%.*}
		json=""
		case $r in *.json) json=--json ;; esac
		# shellcheck disable=SC2086
		(cd "$dir" && "$perf" kvm-events report -i "${name%%.*}.data" \
			--event "$analysis" $json 2>&1) | cmp -s - "$r" || bad="$bad $name"
		n=$((n + 1))
	done
	if [ $n -gt 0 ] && [ -z "$bad" ]; then
		echo "@pass the $n reports of the arm64 perf on $2 are this perf's"
	else
		echo "@fail the reports of the arm64 perf on $2 are this perf's: ${bad:-none to compare}"
	fi
}

# The real qemu VMs' test runs in the second lane, the shorter, on 6.1
qemu_vms_test="real qemu VMs by the names their owners gave them"

# first_lane_x86_tests: the numbers of the x86 guest tests but that one
first_lane_x86_tests() {
	local skip
	skip=$("$perf" test list 2> /dev/null |
		awk -v d="$qemu_vms_test" 'substr($0, index($0, ":") + 2) == "kvm-events: " d { print $1 + 0 }')
	scripts/vm-check.sh --list "$perf" | tr ' ' '\n' | grep -v -x -e "${skip:-none}" | tr '\n' ' '
}

# The test machines run in two lanes of about the same length.  The
# first: on Debian's 6.12 kernel, all the x86 guest tests.  Under the
# sanitizers, ASan's perf is slower on the emulated CPU: there, the four
# whose real recordings go through every analysis, reader and recorder
# (305 s in a clean clone's check), not the readers' many layouts, the
# cut recordings nor live's timing, which the plain check, run first in
# CI, has just run.
x86_lane() {
	if [ -z "$san_log" ]; then
		# shellcheck disable=SC2046
		vm_check vm1 "x86 6.12" "$perf" 6.12 $(first_lane_x86_tests)
	else
		vm_check vm1 "x86 6.12" "$perf" 6.12 "known guest" "halting KVM guest" \
			"live --use-bpf counts" "recorded KVM guest"
	fi
}

# The second: the arm64 perf's build, where make leaves it to this lane
# (ARM64_BUILD), so that it overlaps the host's tests; then the arm64
# guest tests, with the arm64 perf (ARM64_PERF), in the arm64 test
# machine on Debian's 6.12 kernel, in VHE and nVHE mode, and on 6.1, after
# each of which this perf must report their recordings as the arm64 perf
# did; last, on Debian's 6.1 x86 kernel, whose kvm tracepoints differ, the
# known guest's exits in every analysis, and real qemu VMs' names (about
# 45 s, SeaBIOS under KVM under the emulated CPU).  In a clean clone's
# make check, x86 6.12 took 696 s; the arm64 perf's build and machines 508 s, and 6.1
# 67 s, which the first lane had run before.
second_lane() {
	local kernel keep start=$EPOCHSECONDS

	if [ -n "${ARM64_BUILD:-}" ]; then
		if $ARM64_BUILD > "$work/arm64-build.log" 2>&1; then
			took "build: the arm64 perf (beside the host's tests)" $start
		else
			cat "$work/arm64-build.log"
			echo "@fail make perf-arm64" | stamp >> "$work/vm2.log"
			ARM64_PERF=""
		fi
	fi
	for kernel in ${ARM64_PERF:+6.12 6.12-nvhe 6.1}; do
		keep=$(mktemp -d "$top/build/arm64-keep.XXXXXX")
		KVM_EVENTS_KEEP=$keep vm_check vm2 "arm64 $kernel" -a arm64 \
			"$ARM64_PERF" $kernel
		same_reports "$keep" "arm64 $kernel" | stamp >> "$work/vm2.log"
		rm -rf "$keep"
	done
	if [ -n "$guest_tests" ] && [ -z "$san_log" ]; then
		vm_check vm2 "x86 6.1" "$perf" 6.1 "known guest" "$qemu_vms_test"
	fi
	[ -z "$san_log" ] && packaging_checks vm2
}

# packaging_checks LANE: make install's layout and make uninstall
# (scripts/install-check.sh, on the host), then the package on a clean
# Debian 12 root booted as the x86 6.12 test machine's
# (scripts/deb-check.sh: make deb, apt-get, the guest's counts through
# Debian's perf, the man page, the exporter's /metrics, purge); with the
# arm64 perf, its package in the arm64 machine (deb-check-arm64.sh).
# Their @pass and @fail lines are counted with the lane's.
packaging_checks() {
	local lane=$1 script start label status

	for script in install-check deb-check ${ARM64_PERF:+deb-check-arm64}; do
		start=$EPOCHSECONDS
		scripts/$script.sh 2>&1 | stamp >> "$work/$lane.log"
		status=${PIPESTATUS[0]}
		[ "$status" = 0 ] ||
			echo "@fail scripts/$script.sh ended with exit $status" |
			stamp >> "$work/$lane.log"
		case $script in
		install-check) label="make install and uninstall (install-check.sh)" ;;
		deb-check) label="the package in a clean Debian 12 root (deb-check.sh)" ;;
		*) label="the arm64 package in the arm64 machine (deb-check-arm64.sh)" ;;
		esac
		took "$label" $start
	done
}

# soak LANE: scripts/soak.sh's short form, 30 guest lifetimes 3 at a time
# in a test machine of its own on Debian's 6.1 kernel, under live -b and
# live, each scraped every second by Prometheus on this host; its output
# and one result into the lane's log.  It runs alone, after the lanes
# (about 100 s more): the machine's TCG is one host thread, and beside
# the other machines on two cores a scrape took up to 1.07 s, past the
# 1 s scrape timeout that every scrape being up depends on; alone, 0.06
# to 0.3 s at most.  -s 0.5 bounds the slowest scrape here; the 0.1 s
# target is make bench's.  A soak that cannot run (exit 3: no Prometheus,
# no test machine) fails: make check installs both.
soak() {
	local start=$EPOCHSECONDS status

	scripts/soak.sh -n 30 -c 3 -k 6.1 -s 0.5 -t 600 "$perf" > "$work/soak.log" 2>&1
	status=$?
	stamp < "$work/soak.log" >> "$work/$1.log"
	if [ $status = 0 ]; then
		echo "@pass the soak of live's metrics under Prometheus, 30 guest lifetimes (on x86 6.1)"
	else
		echo "@fail the soak of live's metrics under Prometheus, 30 guest lifetimes (on x86 6.1): exit $status"
	fi | stamp >> "$work/$1.log"
	took "soak: live's metrics under Prometheus (x86 6.1)" $start
}

# The host's tests: those of kvm-events, with the test of the series' fix
# of perf record's ring buffer reader (fix-11), which kvm-events'
# recordings depend on; those that need a test machine left out.  The
# slowest start first (the two-part reader's large files, the fast reader
# against the session code, every option against the ground truth, the
# accounting), so that two workers end at about the same time.
host_tests() {
	"$perf" test list 2> /dev/null |
		awk -v skip=",$skip_list," '
		/^ *[0-9]+: / && /(kvm-events|perf_mmap__push)/ {
			n = $1 + 0
			if (index(skip, "," n ","))
				next
			first = /(read in two parts|session code gives|per-sample ground truth|accounted for)/
			print (first ? 0 : 1), n
		}' | sort -k1,1n -s | cut -d' ' -f2
}

# What each perf test run prints that says nothing of the test: its
# progress, and, where RLIMIT_MEMLOCK cannot be raised, that BPF maps may
# fail to be made (the BPF tests say so themselves when they do)
perf_test_noise=": Running \([0-9]+ active\)$|^Couldn't bump rlimit\(MEMLOCK\)"

# host_worker N: the next host test from the queue, until it is empty,
# each printed whole when it ends.  -v: a failure's output is printed
# with it, the first time it fails (perf test prints nothing more of a
# test that passes).
host_worker() {
	local log=$work/host$1.log t out

	while :; do
		t=$(flock "$work/queue" sh -c 'head -n 1 "$0" && sed -i 1d "$0"' "$work/queue")
		[ -n "$t" ] || break
		out=$(echo @start | stamp
		      "$perf" test -v "$t" 2>&1 |
			grep --line-buffered -v -E "$perf_test_noise" | stamp)
		echo "$out" >> "$log"
		{
			flock 9
			echo "$out" | grep -v ' @start$' | unstamp
		} 9> "$work/print.lock"
	done
}

# host_lane: checkpatch, then the host's tests, in two workers where the
# host's tests have the machine to themselves or nearly (make check-host,
# or the sanitized check, whose one test machine runs four tests), else
# in one beside the two lanes of test machines
host_lane() {
	local start=$EPOCHSECONDS workers=2

	style
	took "checkpatch, the series and circles" $start
	start=$EPOCHSECONDS
	host_tests > "$work/queue"
	[ -z "$host_only" ] && [ -z "$san_log" ] && workers=1
	for n in $(seq $workers); do
		: > "$work/host$n.log"
		host_worker $n &
	done
	wait $(jobs -p | tail -n $workers)
	took "host tests ($(cat "$work"/host[0-9].log | grep -c ' @start$') perf tests, $workers at a time)" $start
}

lanes=""
if [ -z "$host_only" ]; then
	if [ -n "$guest_tests" ]; then
		x86_lane &
		lanes="$lanes vm1"
	fi
	if [ -n "${ARM64_PERF:-}" ] || { [ -n "$guest_tests" ] && [ -z "$san_log" ]; }; then
		touch "$work/vm2.log"
		second_lane &
		lanes="$lanes vm2"
	fi
fi
host_lane
echo
[ -n "$lanes" ] && echo "--- waiting for the test machines (lanes:$lanes)"
wait
if [ -z "$host_only" ] && [ -n "$guest_tests" ] && [ -z "$san_log" ]; then
	echo "--- the soak of live's metrics, alone"
	touch "$work/vm3.log"
	soak vm3
	lanes="$lanes vm3"
fi

# Each machine's output, and its rows of the time table: getting ready
# (the kernel and root fetched or cached, the initramfs) and booting up
# to the command, the tests, and the shutdown after the last result.
for lane in $lanes; do
	unstamp "$work/$lane.log" | grep -v -E '^@(machine|pass|fail)'
	awk -v times="$times" -v re="$result_re" '
	function row(what, secs) { printf "%d test machine %s: %s\n", secs, label, what >> times }
	$2 == "@machine" { label = substr($0, index($0, "@machine ") + 9); t0 = $1; up = 0; last = 0; next }
	$2 == "@machine-end" {
		if (!up) up = last ? last : $1
		if (!last) last = up
		row("getting ready and booting", up - t0)
		row("tests", last - up)
		row("shutdown", $1 - last)
		next
	}
	$0 ~ /test machine: up$/ { up = $1; next }
	$0 ~ re { last = $1 }' "$work/$lane.log"
done

# Every result, the machines' labelled "(on LABEL)", into one list
results=$work/results
unstamp "$work"/host[0-9].log | grep -E "$result_re" > "$results"
for lane in $lanes; do
	awk -v re="$result_re" '
	$2 == "@machine" { label = substr($0, index($0, "@machine ") + 9); next }
	$2 == "@machine-end" {
		if ($NF != 0 && !failed)
			print "@fail the guest tests in the test machine on " label \
				" (scripts/vm-check.sh: exit " $NF ")"
		failed = 0
		next
	}
	{ line = substr($0, index($0, " ") + 1) }
	line ~ re {
		if (line ~ /: FAILED!?$/)
			failed = 1
		sub(/: (Ok|FAILED!?|Skip.*)$/, " (on " label ")&", line)
		print line
	}
	line ~ /^@(pass|fail) / { print line }' "$work/$lane.log" > "$work/$lane.results"
	grep -E "$result_re" "$work/$lane.results" >> "$results"
	while read -r verdict what; do
		case $verdict in
		@pass) pass "$what" ;;
		@fail) fail "$what" ;;
		esac
	done < <(grep -E '^@(pass|fail) ' "$work/$lane.results")
done

p=$(grep -E -c ': Ok$' "$results")
f=$(grep -E -c ': FAILED!?$' "$results")
s=$(grep -E -c ': Skip' "$results")
# Each failed host test once more, verbosely: whether it fails again or
# only failed once.  The test machine's tests are not run again.
for t in $(unstamp "$work"/host[0-9].log | sed -n 's/^ *\([0-9][0-9.]*\): .*: FAILED!*$/\1/p'); do
	echo "--- perf test -v ${t%%.*}, again:"
	"$perf" test -v "${t%%.*}" 2>&1 | tail -40
done
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
if [ -n "$host_only" ]; then
	echo "  (the guest tests were left out: make check runs them," \
		"in the test machines where this host has no hardware KVM)"
fi

# slowest: the ten slowest tests of every log, each timed from the result
# before it (or its machine's start) to its own
slowest() {
	local log
	for log in "$work"/host[0-9].log ${lanes:+$(printf "$work/%s.log " $lanes)}; do
		awk -v re="$result_re" '
		$2 == "@start" { prev = $1; where = "host"; next }
		$2 == "@machine" { where = substr($0, index($0, "@machine ") + 9); next }
		$0 ~ /test machine: up$/ { prev = $1; next }
		{ line = substr($0, index($0, " ") + 1) }
		line ~ re {
			sub(/ *: (Ok|FAILED!?|Skip.*)$/, "", line)
			sub(/^ */, "", line)
			printf "%d\t%s\t%s\n", $1 - prev, where, line
			prev = $1
		}' "$log"
	done | sort -t "	" -k1,1nr | head -10
}

echo
echo "Where the time went (wall seconds; the lanes ran side by side):"
awk '{ s = $1; $1 = ""; printf "  %-60s %5d\n", substr($0, 2), s }' "$times"
printf '  %-60s %5d\n' "check.sh in all, wall" $(($EPOCHSECONDS - check_start))
# and with the builds make ran before check.sh
before=0
[ -n "${CHECK_TIMES:-}" ] && [ -f "$CHECK_TIMES" ] &&
	before=$(awk '{ s += $1 } END { print s + 0 }' "$CHECK_TIMES")
printf '  %-60s %5d\n' "in all, with the builds before check.sh" \
	$((before + EPOCHSECONDS - check_start))
echo "The slowest ten tests (seconds, where, test):"
slowest | awk -F '\t' '{ printf "  %5d  %-14s %s\n", $1, $2, $3 }'

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
