#!/bin/bash
# kvm-events: report --heatmap, each timed sample in its time and latency cell
# SPDX-License-Identifier: GPL-2.0

# lib/kvm_events_check.py recomputes every panel from kvmgen's .events:
# per key, the timed samples per (time column, log2 ns bucket), exactly;
# the busiest keys first, those past the 12th counted as left out; the
# columns dividing the header's span, or doubling from 1us in a pipe,
# which has none; the report's filters applied.  An SVG that cannot be
# written is a one-line error naming it, and a non-zero exit.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

data="$dir/vmx.data"
"$KVMGEN" "$data" vmx 2000 > /dev/null || exit 1
pid=$(awk '$1 != "#" { print $3; exit }' "$data.events")
for filter in "" "--vcpu 1" "--vcpu 0,2-3" "-p $pid" "--duration 5" \
	      "--time 1234.5,1234.6"; do
	# shellcheck disable=SC2086 # the filter is words
	kvm_events_check heatmap "$data" vmexit "$dir/vmx.svg" $filter || err=1
done

# More keys than panels: those left out are counted
data="$dir/nested.data"
"$KVMGEN" "$data" vmx-nested 20000 > /dev/null || exit 1
kvm_events_check heatmap "$data" vmexit "$dir/nested.svg" || err=1

# A pipe: no span in its header
data="$dir/pipe.data"
"$KVMGEN" "$data" vmx+pipe 2000 > /dev/null || exit 1
kvm_events_check heatmap "$data" vmexit "$dir/pipe.svg" || err=1

# An SVG that cannot be created, or written
for svg in "$dir/no/such/dir/x.svg" /dev/full; do
	perf kvm-events report -i "$dir/vmx.data" --heatmap "$svg" > /dev/null 2> "$dir/err"
	rc=$?
	case $svg in
	/dev/full) why="No space left on device" ;;
	*) why="No such file or directory" ;;
	esac
	want="perf kvm-events report: --heatmap $svg: $why"
	if [ $rc -eq 0 ] || [ "$(cat "$dir/err")" != "$want" ]; then
		echo "FAIL: --heatmap $svg: exit $rc, not the one line '$want':"
		cat "$dir/err"
		err=1
	fi
done

exit $err
