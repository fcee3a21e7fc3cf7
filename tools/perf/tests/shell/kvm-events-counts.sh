#!/bin/bash
# kvm-events: lost events counted once, unknown vcpus apart, --top as asked
# SPDX-License-Identifier: GPL-2.0

# - perf record reports each lost event twice, as PERF_RECORD_LOST when the
#   ring buffer overflows and as PERF_RECORD_LOST_SAMPLES when it ends:
#   kvmgen's +lost writes both, and the report must count the losses once,
#   from a file, a pipe, with either reader.  The ground truth is the
#   'lost' of the .truth header.
# - A vcpu whose id no event recorded (arm64) is its own group, never vcpu
#   0: null in JSON, an empty cell in CSV.
# - --top N grows its list as events come: a large N costs nothing up
#   front, and lists every timed event when there are fewer.
# - Out of memory, the samples left out are counted, shown and make the
#   exit status non-zero.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# json_check FILE PYTHON-EXPRESSION WHAT: the expression over r, the JSON
json_check() {
	py="import json, sys; r = json.load(open(sys.argv[1]))"
	if ! python3 -c "$py; sys.exit(0 if ($2) else 1)" "$1"; then
		echo "FAIL: $3"
		head -c 2000 "$1"
		err=1
	fi
}

# Lost events: those of the .truth, in its 'lost', checked by
# lib/kvm_events_check.py in the JSON totals and the table's footer
for modifier in lost lost+pipe; do
	data="$dir/lost.data"
	"$KVMGEN" "$data" "vmx+$modifier" 20000 > /dev/null || { err=1; continue; }
	for reader in "" --generic-reader; do
		kvm_events_check lost "$data" $reader || err=1
	done
done

# Unknown vcpus: arm64 records no vcpu id
data="$dir/arm64.data"
"$KVMGEN" "$data" arm64 2000 > /dev/null || exit 1
perf kvm-events report -i "$data" --per-vcpu --json > "$dir/vcpu.json" || err=1
json_check "$dir/vcpu.json" \
	"r['keys'] and all(k['group'] is None and k['vcpu'] is None for k in r['keys'])" \
	"arm64 --per-vcpu --json: a group of unknown vcpus is not null"
perf kvm-events report -i "$data" --per-vcpu --histogram --csv > "$dir/vcpu.csv" || err=1
# The group is the second column of the key and bucket rows.
if grep -v '^#' "$dir/vcpu.csv" | sed 1d | grep -q -v '^\(key\|bucket\),,'; then
	echo "FAIL: arm64 --per-vcpu --csv: a group of unknown vcpus is not empty"
	head -5 "$dir/vcpu.csv"
	err=1
fi
perf kvm-events report -i "$data" --per-vcpu > "$dir/vcpu.txt" || err=1
title="Analyze events for VM pid 4242 (qemu-system-aar) threads without a known VCPU id:"
if ! grep -qxF "$title" "$dir/vcpu.txt"; then
	echo "FAIL: arm64 --per-vcpu: no title for the unknown vcpus"
	err=1
fi

# --top larger than the events, and as large as a u32
data="$dir/vmx.data"
"$KVMGEN" "$data" vmx 2000 > /dev/null || exit 1
for n in 100000 4294967295; do
	perf kvm-events report -i "$data" --top $n --json > "$dir/top.json" || err=1
	json_check "$dir/top.json" \
		"len(r['top']) == sum(k['timed'] for k in r['keys']) + \
		 r['totals']['no_end'] + r['totals']['no_begin']" \
		"--top $n does not list every timed or unpaired event"
done

# Out of memory: only without the sanitizers, which need the address
# space.  Where the limit bites depends on the allocator; whatever it
# hits, the report must say so, naming the file, and never die silently.
# The limits are above the address space perf needs to start at all (its
# shared libraries': about 27 MB with libmicrohttpd's GnuTLS), found
# first, so that each is the report's own memory running out.
if ! ldd "$(command -v perf)" 2> /dev/null | grep -q -e libasan -e libubsan; then
	data="$dir/big.data"
	"$KVMGEN" "$data" two-vms 200000 > /dev/null || exit 1
	start=10000
	while [ $start -lt 200000 ] &&
			! sh -c "ulimit -v $start; exec perf version" > /dev/null 2>&1; do
		start=$((start + 1000))
	done
	for limit in $((start + 20000)) $((start + 10000)) $((start + 5000)) $start; do
		(ulimit -v $limit; perf kvm-events report -i "$data" --per-vm --stats --json \
			> "$dir/oom.json" 2> "$dir/oom.err")
		rc=$?
		if [ $rc -gt 128 ]; then
			echo "FAIL: ulimit -v $limit: killed by signal $((rc - 128))"
			err=1
		elif [ $rc -ne 0 ] && ! grep -q "^$data: " "$dir/oom.err"; then
			echo "FAIL: ulimit -v $limit: exit $rc without an error naming the file:"
			cat "$dir/oom.err"
			err=1
		elif grep -q "out of memory: [0-9]* samples left out" "$dir/oom.err"; then
			[ $rc -ne 0 ] || { echo "FAIL: samples left out, and exit 0"; err=1; }
			sum="r['totals']['samples'] + r['totals']['paired_ends']"
			sum="$sum + r['totals']['filtered'] + r['totals']['other']"
			sum="$sum + r['totals']['no_memory']"
			json_check "$dir/oom.json" \
				"r['totals']['no_memory'] > 0 and r['totals']['read'] == $sum" \
				"out of memory: the samples left out are not in the totals"
		fi
	done
fi

exit $err
