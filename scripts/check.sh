#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check.sh PERF BASE TREE
#
# With ARM64_PERF set (make perf-arm64's perf), the arm64 guest tests run
# in the arm64 test machine too.
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

# No file of ours calls into one that calls back into it (issue 28): the
# tables of analyses and architectures hold their entries, whose shared
# helpers are inline in the headers; the engine reaches the heatmap and
# the second part's deferral only through the pointers they register.
if out=$(python3 scripts/circles.py "$(dirname "$(readlink -f "$perf")")"); then
	pass "no circles between our files: $(echo "$out" | tail -1)"
else
	echo "$out"
	fail "circles between our files (scripts/circles.py)"
fi

# perf test finds the shell tests in ./tools/perf/tests/shell and runs
# them with the perf under test first in PATH.
log=$(mktemp)
san_log=${SANITIZER_LOG:-}
[ -n "$san_log" ] && rm -f "$san_log".*
export PATH="$(dirname "$perf"):$PATH"

# The guest tests need a real kernel's hardware KVM, kvm_intel's or
# kvm_amd's.  On a host without it (no /dev/kvm, or the /dev/kvm of
# kvm_pvm, which runs guests without the CPU's virtualization, and whose
# exits the guest tests do not describe) the host skips them, and they
# run in the test machine instead (scripts/vm-check.sh), so that they
# never count as skipped here.
guest_tests=""
if [ ! -c /dev/kvm ] || { [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; }; then
	guest_tests=$(scripts/vm-check.sh --list "$perf")
fi
# The arm64 guest's tests skip on any other host: they run in the arm64
# test machine below instead.
arm64_tests=""
[ "$(uname -m)" = aarch64 ] || arm64_tests=$(scripts/vm-check.sh -a arm64 --list "$perf")
skip_list=$(echo $guest_tests $arm64_tests | tr ' ' ',')
# With them, the test of the series' fix of perf record's ring buffer
# reader (fix-11), which kvm-events' recordings depend on.
# -v: a failure's output is printed with it, the first time it fails
# (perf test prints nothing more of a test that passes).
"$perf" test -v ${skip_list:+--skip "$skip_list"} kvm-events perf_mmap__push 2>&1 |
	grep -v -E ': (Skip \(user override\)|Running \([0-9]+ active\))$' > "$log"
cat "$log"
# All of them on Debian's 6.12 kernel, and on 6.1, whose kvm tracepoints
# differ, the known guest's exits in every analysis.  Under the
# sanitizers, ASan's perf is several times slower on the emulated CPU
# (all seven took over 28 minutes): there, on 6.12, the four whose real
# recordings go through every analysis, reader and recorder, not the
# readers' many layouts, the cut recordings nor live's timing, which the
# plain check, run first in CI, has just run.
# vm_check LABEL [-a ARCH] PERF KERNEL [TEST...]: the guest tests in the
# test machine, their results labelled "(on LABEL)"
vm_check() {
	local label=$1 vm_log status
	shift
	vm_log=$(mktemp)
	scripts/vm-check.sh "$@" > "$vm_log" 2>&1
	status=$?
	cat "$vm_log"
	sed "s/: \(Ok\|FAILED!*\|Skip.*\)$/ (on $label): \1/" "$vm_log" |
		grep -E ': (Ok|FAILED!?|Skip)' >> "$log"
	[ $status = 0 ] || [ "$(grep -E -c ': FAILED!?' "$vm_log")" -gt 0 ] ||
		fail "the guest tests in the test machine on $label (scripts/vm-check.sh: exit $status)"
	rm -f "$vm_log"
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
		pass "the $n reports of the arm64 perf on $2 are this perf's"
	else
		fail "the reports of the arm64 perf on $2 are this perf's: ${bad:-none to compare}"
	fi
}

if [ -n "$guest_tests" ]; then
	if [ -z "$san_log" ]; then
		vm_check 6.12 "$perf" 6.12
		vm_check 6.1 "$perf" 6.1 "known guest"
	else
		vm_check 6.12 "$perf" 6.12 "known guest" "halting KVM guest" \
			"live --use-bpf counts" "recorded KVM guest"
	fi
fi
# The arm64 guest tests, with the arm64 perf (ARM64_PERF, make
# perf-arm64), in the arm64 test machine on Debian's 6.12 kernel, in VHE
# and nVHE mode, and on 6.1; then this perf must report their recordings
# as the arm64 perf did.
if [ -n "${ARM64_PERF:-}" ]; then
	for kernel in 6.12 6.12-nvhe 6.1; do
		keep=$(mktemp -d "$top/build/arm64-keep.XXXXXX")
		KVM_EVENTS_KEEP=$keep vm_check "arm64 $kernel" -a arm64 "$ARM64_PERF" $kernel
		same_reports "$keep" "arm64 $kernel"
		rm -rf "$keep"
	done
fi
p=$(grep -E -c ': Ok$' "$log")
f=$(grep -E -c ': FAILED!?' "$log")
s=$(grep -E -c ': Skip' "$log")
# Each failed test once more, verbosely: whether it fails again or only
# failed once.  The test machine's tests are not run again.
for t in $(sed -n 's/^ *\([0-9][0-9.]*\): .*: FAILED!*$/\1/p' "$log"); do
	case " $guest_tests $arm64_tests " in *" ${t%%.*} "*) continue ;; esac
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
