#!/bin/bash
# kvm-events: the fast reader gives what perf's session code gives
# SPDX-License-Identifier: GPL-2.0

# The report reads the data itself, in one thread or two, and falls back
# to perf_session__process_events() (--generic-reader) for what it does
# not handle.  Every statistic must be the same either way, on each layout
# perf record writes: kvmgen's SCENARIO+MODIFIER recordings are laid out
# as perf record lays them out with the matching options (see the
# layout_modifiers of tests/kvm-events-gen/kvmgen.c), and -v must say that the
# fast reader read them, as a file, a stream or a directory, and whether it
# merged a directory's files as it read them or held all their events.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init


for scenario in vmx svm vmx-old unpaired two-vms vmx-percpu; do
	data="$dir/$scenario.data"
	if ! "$KVMGEN" "$data" "$scenario" 20000 > /dev/null 2>&1; then
		echo "FAIL: kvmgen $scenario"
		err=1
		continue
	fi
	compare_readers "$data" file
done

# The layouts of perf record's options, each in file order and in per-CPU
# rounds, as a file and as a stream
for layout in system-wide callchain dwarf data read single \
	      system-wide+callchain+read; do
	for scenario in vmx vmx-percpu; do
		for out in "" +pipe; do
			data="$dir/layout.data"
			if ! "$KVMGEN" "$data" "$scenario+$layout$out" 5000 > /dev/null 2>&1; then
				echo "FAIL: kvmgen $scenario+$layout$out"
				err=1
				continue
			fi
			kind="file"
			[ -n "$out" ] && kind="stream"
			compare_readers "$data" $kind vmexit mmio
		done
	done
done

# The shapes of make bench's rows (kvmgen's settings): rounds of 26 and
# of 30,000 samples, per-CPU runs, 64 vcpus on 64 CPUs, moving and
# pinned, the tracepoints of record --event vmexit and of its default;
# and ids a power of two apart, all in one slot of the reader's table by
# id: exact to the truth, and the same through both readers.
#
# And which way a flush of 64 CPUs' runs reached the pairing, as -v says
# it (the counts of flushes run after run, thread by thread, then through
# the merge): with vcpus pinned, each thread's samples are read in time
# order, and each flush hands its runs over one after the other; where
# vcpus move to CPUs drained earlier in a pass, a thread goes back in
# time, and each thread's stints on CPUs go in time order, thread after
# thread.  --json prints the standard deviation, whose running mean
# depends on the order of addition: its flushes go through the merge.
flushes() {
	perf kvm-events report -i "$@" --threads 1 -v 2>&1 > /dev/null |
		sed -n 's/.*several runs: //p' | tr -cs '0-9' ' '
}
for shape in vmx+round=26 vmx-percpu+round=30000 vmx-percpu+vcpus=64+round=8192 \
	     vmx-percpu+vcpus=64+cpus=pinned+round=8192 \
	     vmx+events=vmexit vmx-percpu+events=default+vcpus=16 \
	     vmx-percpu+system-wide+ids=spread; do
	data="$dir/shape.data"
	if ! "$KVMGEN" "$data" "$shape" 20000 > /dev/null 2>&1; then
		echo "FAIL: kvmgen $shape"
		err=1
		continue
	fi
	kvm_events_check table "$data" "$shape" || err=1
	compare_readers "$data" file vmexit
	# shellcheck disable=SC2046
	set -- $(flushes "$data") 0 0 0
	# shellcheck disable=SC2046
	set -- "$@" $(flushes "$data" --json) 0 0 0
	case $shape in
	*vcpus=64+cpus=pinned*) [ "$1" -gt 0 ] && [ "$2" -eq 0 ] && [ "$3" -eq 0 ] ;;
	*vcpus=64*) [ "$1" -eq 0 ] && [ "$2" -gt 0 ] && [ "$3" -eq 0 ] &&
		    [ "$7" -eq 0 ] && [ "$8" -eq 0 ] && [ "$9" -gt 0 ] ;;
	esac || {
		echo "FAIL: $shape: -v says $1 flushes run after run, $2 thread by thread," \
		     "$3 through the merge; with --json $7, $8, $9"
		err=1
	}
done

# A pipe: standard input, and a pipe-format file
data="$dir/pipe.data"
if "$KVMGEN" "$data" two-vms+pipe 20000 > /dev/null 2>&1; then
	compare_readers "$data" stream
	compare_readers "-$data" stream vmexit ioport
else
	echo "FAIL: kvmgen two-vms+pipe"
	err=1
fi

# A perf record --threads directory: the header file and one data.N per CPU
# in time order, whose files are merged as they are read; then with two
# CPUs' events in one file, as a thread that reads two CPUs' buffers
# writes them, whose events are all held and sorted at the end.  That file
# is found out of order only at its second CPU's events, and the files are
# read again: their LOST records (-m 1) must still be counted once.
data="$dir/threads.data"
if "$KVMGEN" "$data" vmx+threads+lost 20000 > /dev/null 2>&1; then
	compare_readers "$data" directory:merged
	cat "$data/data.3" >> "$data/data.2" && rm "$data/data.3"
	compare_readers "$data" directory:held vmexit
else
	echo "FAIL: kvmgen vmx+threads+lost"
	err=1
fi
rm -rf "$data"

# Larger than the reader's buffer (256 KiB): records across the buffer's end,
# read by one thread and by two.
data="$dir/large.data"
if "$KVMGEN" "$data" vmx-percpu 120000 > /dev/null 2>&1; then
	compare_readers "$data" file
else
	echo "FAIL: kvmgen $data vmx-percpu 120000"
	err=1
fi
rm -f "$data"*

# What perf record --threads writes on this host, with or without a guest
# to record: the header file's side-band records and a data.N per CPU go
# through the merge.
if [ "$(id -u)" = 0 ] && perf list 'kvm:kvm_exit' 2>/dev/null | grep -q kvm_exit; then
	if perf kvm-events record -q --threads -a -o "$dir/host.dir" -- sleep 0.3 \
		> /dev/null 2>&1; then
		compare_readers "$dir/host.dir" directory:merged vmexit
	else
		echo "FAIL: perf kvm-events record --threads -a"
		err=1
	fi
fi

exit $err
