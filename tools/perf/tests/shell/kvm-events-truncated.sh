#!/bin/bash
# kvm-events: recordings cut at every record end a report cleanly
# SPDX-License-Identifier: GPL-2.0

# A perf.data file keeps its tracepoint formats after the data, so a file
# cut before their end is one perf cannot read: the report must say so in
# a line that names the file, and exit non-zero, not by a signal.  Cut
# after them, in the features that follow, the report is right but must
# warn that the file was cut short.  A pipe keeps the formats first: cut
# at any record boundary or inside a record, the report must give the
# samples that arrived whole, every one of them read.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# walk FILE: the offset and type of each record of a pipe-mode recording,
# then the end of the last whole one.  A tracing data record is followed
# by as many bytes of tracing data as it says.
walk() {
	python3 -c '
import struct, sys
data = open(sys.argv[1], "rb").read()
off = 16
while off + 8 <= len(data):
    rtype, misc, size = struct.unpack_from("<IHH", data, off)
    if size < 8 or off + size > len(data):
        break
    extra = struct.unpack_from("<I", data, off + 8)[0] if rtype == 66 else 0
    print(off, rtype)
    off += size + extra
print(off, "end")
' "$1"
}

# A file cut every 997 bytes, from inside the header to inside the
# features after the data.
"$KVMGEN" "$dir/vmx.data" vmx 20 > /dev/null || exit 1
size=$(stat -c %s "$dir/vmx.data")
cut=0
while [ "$cut" -lt "$size" ]; do
	head -c "$cut" "$dir/vmx.data" > "$dir/cut.data"
	perf kvm-events report -i "$dir/cut.data" > "$dir/out" 2> "$dir/err"
	rc=$?
	if [ $rc -gt 128 ]; then
		echo "FAIL: file cut at $cut of $size bytes: killed by signal $((rc - 128))"
		err=1
	elif [ $rc -ne 0 ] && ! grep -q -F "$dir/cut.data: " "$dir/err"; then
		echo "FAIL: file cut at $cut: the error does not name the file:"
		cat "$dir/err"
		err=1
	elif [ $rc -eq 0 ] &&
	     ! grep -q -F "$dir/cut.data: cut short: the file ends at byte $cut," "$dir/err"; then
		echo "FAIL: file cut at $cut: reported without saying it was cut short"
		err=1
	elif [ $rc -eq 0 ] &&
	     ! perf kvm-events report -i "$dir/vmx.data" | cmp -s - "$dir/out"; then
		echo "FAIL: file cut at $cut, after its data and formats: the report differs"
		err=1
	fi
	cut=$((cut + 997))
done

# The pipe: a real recording of the bundled guest.
skip_without_kvm_tracing
if ! taskset -c 0 perf kvm-events record -q -o - -- \
	perf test -w kvmguest 7 5 4 3 > "$dir/guest.pipe" 2> /dev/null; then
	echo "FAIL: perf kvm-events record -o - of the bundled guest"
	exit 1
fi
walk "$dir/guest.pipe" > "$dir/records"

# Each cut: at a record's start (the records before it whole) and 5 bytes
# into it (cut inside).  "read" counts the kvm samples the report took.
samples=0
while read -r offset type; do
	for cut in "$offset" $((offset + 5)); do
		head -c "$cut" "$dir/guest.pipe" |
			perf kvm-events report -i - --json > "$dir/json" 2> "$dir/err"
		rc=$?
		if [ $rc -gt 128 ]; then
			echo "FAIL: pipe cut at $cut: killed by signal $((rc - 128))"
			err=1
		elif [ $samples -gt 0 ] && ! grep -q "\"read\": $samples," "$dir/json"; then
			echo "FAIL: pipe cut at $cut: expected $samples kvm samples read:"
			grep -o '"totals": {[^}]*}' "$dir/json"
			cat "$dir/err"
			err=1
		fi
	done
	# PERF_RECORD_SAMPLE: every sample of this recording is a kvm one.
	[ "$type" = 9 ] && samples=$((samples + 1))
done < "$dir/records"

if [ $samples -lt 12 ]; then
	echo "FAIL: only $samples samples in the recording of the guest"
	err=1
fi
exit $err
