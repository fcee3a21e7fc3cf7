#!/bin/bash
# kvm-events: every sample read is accounted for, and the buckets add up
# SPDX-License-Identifier: GPL-2.0

# Every kvm sample read ends in one bucket: counted in a key, the end of a
# counted sample, filtered, or other; counted samples are timed or have no
# end or no begin.  The samples read must be those perf script sees, for
# every analysis and filter.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
trap 'rm -rf "$dir"' EXIT
err=0

check() {
	data=$1
	shift
	perf kvm-events report -i "$data" --json "$@" > "$dir/report.json" ||
		{ echo "FAIL: $data $*: report failed"; err=1; return; }
	python3 - "$dir/report.json" "$(cat "$data.script-count")" "$data $*" <<'PY' || err=1
import json, sys
r = json.load(open(sys.argv[1]))
script, case = int(sys.argv[2]), sys.argv[3]
t = r["totals"]
checks = {
    "read == perf script samples": t["read"] == script,
    "read == sum of events_read": t["read"] == sum(r["events_read"].values()),
    "read == samples + paired_ends + filtered + other + no_memory":
        t["read"] == t["samples"] + t["paired_ends"] + t["filtered"] + t["other"] + t["no_memory"],
    "samples == sum over keys": t["samples"] == sum(k["samples"] for k in r["keys"]),
    "untimed == no_end + no_begin":
        sum(k["samples"] - k["timed"] for k in r["keys"]) == t["no_end"] + t["no_begin"],
    "total_ns == sum over keys": t["total_ns"] == sum(k["total_ns"] for k in r["keys"]),
}
bad = [name for name, ok in checks.items() if not ok]
for name in bad:
    print(f"FAIL: {case}: {name}: {t}")
sys.exit(1 if bad else 0)
PY
}

for scenario in vmx svm vmx-old unpaired two-vms; do
	data="$dir/$scenario.data"
	perf test -w kvmgen "$data" "$scenario" > /dev/null ||
		{ echo "FAIL: perf test -w kvmgen $scenario"; err=1; continue; }
	perf script -i "$data" -F event 2> /dev/null | grep -c 'kvm:' > "$data.script-count"
	for analysis in vmexit mmio ioport userspace msr hypercall; do
		check "$data" --event $analysis
		check "$data" --event $analysis --vcpu 1 --duration 10
		check "$data" --event $analysis --time 25%-75% --generic-reader
	done
done

# -v says the same in the table's footer.
perf kvm-events report -v -i "$dir/vmx.data" 2> /dev/null |
	grep -q "^Samples read:$(cat "$dir/vmx.data.script-count") = counted in a key 1000 + " ||
	{ echo "FAIL: -v does not print the buckets"; err=1; }

exit $err
