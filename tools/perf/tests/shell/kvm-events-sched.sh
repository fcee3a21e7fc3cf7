#!/bin/bash
# kvm-events: exits split into on and off CPU time
# SPDX-License-Identifier: GPL-2.0

# With the context switch records of perf record --switch-events, the
# report splits each event timed by a begin and an end sample of one
# thread into the time its thread ran and the time it was off CPU,
# preempted or blocked.  kvmgen's +switch models that inside exits (and
# in guest time, where it counts for no event), per thread
# (PERF_RECORD_SWITCH) and system-wide (PERF_RECORD_SWITCH_CPU_WIDE, every
# thread on every CPU), and its ground truth has the exact split of each
# event.  lib/kvm_events_check.py checks the truth against the records
# themselves, then the report's keys and totals against the truth, read
# from the file, from a pipe, in one thread and by perf's session code;
# that --key offcpu sorts by it and diff refuses it; and that without
# switch records the report has none of these fields.
# System-wide, the reader counts the idle task's switch records apart,
# as -v says.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# report_as NAME INPUT ANALYSIS [OPTION...]: report --json into $dir/NAME.json
report_as() {
	name=$1
	input=$2
	analysis=$3
	shift 3
	if ! perf kvm-events report -i "$input" --event "$analysis" --json "$@" \
			> "$dir/$name.json" 2> "$dir/$name.err"; then
		echo "FAIL: $variant $analysis $name: report $*"
		head -5 "$dir/$name.err"
		err=1
		return 1
	fi
}

# same_json NAME: $dir/NAME.json is the file's report, byte for byte
same_json() {
	if ! cmp -s "$dir/file.json" "$dir/$1.json"; then
		echo "FAIL: $variant $analysis: $1 differs from the file's report"
		diff "$dir/file.json" "$dir/$1.json" | head -10
		err=1
	fi
}

# Two VMs (6 vcpus on 4 CPUs: they wait for one another's CPUs), per
# thread and system-wide; vmx-halt, whose halt keys have no split; arm64,
# whose WFI exits block like HLT.
for variant in two-vms+switch two-vms+switch+system-wide \
	       vmx-halt+switch+system-wide arm64+switch; do
	data="$dir/sched.data"
	scenario=${variant%%+*}
	if ! "$KVMGEN" "$data" "$variant" 6000 > /dev/null ||
	   ! "$KVMGEN" "$dir/pipe.data" "$variant+pipe" 6000 > /dev/null; then
		echo "FAIL: kvmgen $variant"
		err=1
		continue
	fi
	# The truth against the switch records' bytes, .truth against .events
	kvm_events_check sched "$data" || err=1
	kvm_events_check sched "$dir/pipe.data" || err=1
	samples=$(sed -n 's/^# samples total \([0-9]*\) .*/\1/p' "$data.truth")

	analyses="vmexit mmio ioport msr hypercall"
	[ "$scenario" = arm64 ] && analyses="vmexit mmio hypercall"
	[ "$scenario" = vmx-halt ] && analyses="$analyses halt"
	for analysis in $analyses; do
		report_as file "$data" "$analysis" || continue
		kvm_events_check sched-json "$data" "$analysis" "$dir/file.json" || err=1
		# switch records are no samples: read counts the samples only
		# (halt's accounting has keys without time that are not unpaired)
		[ "$analysis" != halt ] &&
			{ kvm_events_check accounting "$data" "$samples" \
				--event "$analysis" || err=1; }
		report_as threads "$data" "$analysis" --threads 1 && same_json threads
		report_as generic "$data" "$analysis" --generic-reader &&
			same_json generic
		# the pipe format on standard input
		if ! cat "$dir/pipe.data" | perf kvm-events report -i - \
				--event "$analysis" --json \
				> "$dir/pipe.json" 2> "$dir/pipe.err"; then
			echo "FAIL: $variant $analysis: report of a pipe"
			head -5 "$dir/pipe.err"
			err=1
		else
			kvm_events_check sched-json "$data" "$analysis" "$dir/pipe.json" || err=1
		fi
	done
	# System-wide, the reader counts the idle task's switches without
	# ordering them (-v says how many): the JSON above is the same.
	idle=$(sed -n 's/^# idle_switches \([0-9]*\)$/\1/p' "$data.truth")
	if [ -n "$idle" ]; then
		said=$(perf kvm-events report -v -i "$data" 2>&1 > /dev/null |
		       sed -n 's/.* \([0-9]*\) switch records of the idle task .*/\1/p')
		if [ "$said" != "$idle" ]; then
			echo "FAIL: $variant: -v counts '$said' idle switches apart, .truth $idle"
			err=1
		fi
	fi
	# .truth against .events; --vcpu, --time, --duration, -p, --per-vcpu,
	# --per-vm: each key's split, and the totals'
	kvm_events_check sched-keys "$data" "$scenario" || err=1
done

# --key offcpu sorts the keys by their time off CPU; diff compares none.
data="$dir/sort.data"
if "$KVMGEN" "$data" two-vms+switch 6000 > /dev/null; then
	perf kvm-events report -i "$data" --key offcpu --json > "$dir/sort.json"
	if ! python3 - "$dir/sort.json" <<'EOF'
import json, sys
off = [k["offcpu_ns"] for k in json.load(open(sys.argv[1]))["keys"]]
sys.exit(not off or off[0] == 0 or off != sorted(off, reverse=True))
EOF
	then
		echo "FAIL: --key offcpu: the keys are not sorted by offcpu_ns"
		err=1
	fi
	if perf kvm-events diff --key offcpu "$data" "$data" > /dev/null 2> "$dir/diff.err" ||
	   ! grep -q "diff compares no time on or off CPU" "$dir/diff.err"; then
		echo "FAIL: diff --key offcpu was not refused:"
		cat "$dir/diff.err"
		err=1
	fi
else
	echo "FAIL: kvmgen two-vms+switch"
	err=1
fi

# Without switch records (kvmgen without +switch), no split in the report
data="$dir/plain.data"
if "$KVMGEN" "$data" two-vms+system-wide 2000 > /dev/null; then
	for analysis in vmexit mmio ioport; do
		variant=two-vms+system-wide
		report_as file "$data" "$analysis" || continue
		kvm_events_check sched-json "$data" "$analysis" "$dir/file.json" || err=1
	done
else
	echo "FAIL: kvmgen two-vms+system-wide"
	err=1
fi

exit $err
