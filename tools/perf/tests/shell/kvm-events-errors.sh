#!/bin/bash
# kvm-events: bad input and options give a clear error
# SPDX-License-Identifier: GPL-2.0

# Each case must exit non-zero without crashing, and its error must name
# what was wrong: the file or the option, with the expected text.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

# expect_error WHAT TEXT CMD...: CMD fails (not by a signal), and its
# stderr holds TEXT.  129 is perf's usage error, 255 an exit(-1).
expect_error() {
	what=$1
	text=$2
	shift 2
	"$@" > "$dir/out" 2> "$dir/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "FAIL: $what: exit 0"
		err=1
	elif [ $rc -gt 128 ] && [ $rc -le 192 ] && [ $rc -ne 129 ]; then
		echo "FAIL: $what: killed by signal $((rc - 128))"
		err=1
	elif ! grep -q -F -- "$text" "$dir/err"; then
		echo "FAIL: $what: stderr lacks '$text':"
		cat "$dir/err"
		err=1
	fi
}

"$KVMGEN" "$dir/good.data" vmx > /dev/null || exit 1
: > "$dir/empty.data"
head -c 4096 /dev/zero | tr '\0' 'x' > "$dir/garbage.data"
head -c 65536 "$dir/good.data" > "$dir/cut.data"

msg="perf kvm-events record: --event bogus: expected a comma separated list of vmexit,"
msg="$msg mmio, ioport, userspace, msr, hypercall, halt, or all"
expect_error "record --event bogus" "$msg" \
	perf kvm-events record --event bogus -o "$dir/bad.data" -- true
expect_error "missing file" "$dir/none.data: No such file or directory" \
	perf kvm-events report -i "$dir/none.data"
expect_error "empty file" "$dir/empty.data: empty file" \
	perf kvm-events report -i "$dir/empty.data"
expect_error "garbage file" "$dir/garbage.data: not a perf.data file" \
	perf kvm-events report -i "$dir/garbage.data"
expect_error "file cut short" "$dir/cut.data: not a perf.data file" \
	perf kvm-events report -i "$dir/cut.data"
expect_error "unknown --event" "--event foo: unknown, expected one of vmexit, mmio, ioport" \
	perf kvm-events report -i "$dir/good.data" --event foo
keys="samples,samples%,time%,total,min,max,avg,stddev,p50,p90,p99,p99.9,name"
keys="$keys,sample,time,mean,max_t,min_t,mean_t,ev_name"
list="expected a comma separated list of $keys"
expect_error "unknown --key" "perf kvm-events report: --key foo: unknown key 'foo', $list" \
	perf kvm-events report -i "$dir/good.data" --key foo
expect_error "unknown second --key" \
	"perf kvm-events report: --key p99,bogus: unknown key 'bogus', $list" \
	perf kvm-events report -i "$dir/good.data" --key p99,bogus
expect_error "empty --key" "perf kvm-events report: --key ',': no key, $list" \
	perf kvm-events report -i "$dir/good.data" --key ,
expect_error "too many --key" "perf kvm-events report: --key $keys: more than 8 keys" \
	perf kvm-events report -i "$dir/good.data" --key "$keys"
expect_error "diff --key" "perf kvm-events diff: --key foo: unknown key 'foo', $list" \
	perf kvm-events diff --key foo "$dir/good.data" "$dir/good.data"
two="Error: perf kvm-events diff: expected two recordings, <old file> <new file>"
expect_error "diff of one file" "$two; got 1 argument" \
	perf kvm-events diff "$dir/good.data"
expect_error "diff of three files" "$two; got 3 arguments" \
	perf kvm-events diff "$dir/good.data" "$dir/good.data" "$dir/good.data"
unexpected="unexpected argument 'good.data'; the recording is read with -i"
expect_error "report with an argument" "Error: perf kvm-events report: $unexpected" \
	perf kvm-events report good.data
expect_error "diff --time" \
	"perf kvm-events diff: --time 5-x: expected start,end in seconds or percents" \
	perf kvm-events diff --time 5-x "$dir/good.data" "$dir/good.data"
expect_error "unknown --fields" "--fields samples,bogus: unknown field 'bogus'" \
	perf kvm-events report -i "$dir/good.data" --fields samples,bogus
expect_error "bad --duration" "--duration 1x: expected microseconds from 0 to" \
	perf kvm-events report -i "$dir/good.data" --duration 1x
expect_error "bad --time" "--time nonsense: expected start,end" \
	perf kvm-events report -i "$dir/good.data" --time nonsense
expect_error "reversed --vcpu range" "--vcpu 3-1: expected vcpu ids (up to 4294967294) and ranges" \
	perf kvm-events report -i "$dir/good.data" --vcpu 3-1
expect_error "--vcpu past 2^32-1" \
	"--vcpu 4294967296: expected vcpu ids (up to 4294967294) and ranges" \
	perf kvm-events report -i "$dir/good.data" --vcpu 4294967296
expect_error "--vcpu ending in a comma" \
	"--vcpu 1,: expected vcpu ids (up to 4294967294) and ranges" \
	perf kvm-events report -i "$dir/good.data" --vcpu 1,
expect_error "two groupings" "--per-vcpu and --per-vm: choose one" \
	perf kvm-events report -i "$dir/good.data" --per-vcpu --per-vm
expect_error "two formats" "--json and --csv: choose one" \
	perf kvm-events report -i "$dir/good.data" --json --csv
expect_error "negative --top" "--top -1: expected a number from 0 to 4294967295" \
	perf kvm-events report -i "$dir/good.data" --top -1
expect_error "bad --vcpu" \
	"--vcpu one: expected vcpu ids (up to 4294967294) and ranges, like 0,2-5" \
	perf kvm-events report -i "$dir/good.data" --vcpu one
expect_error "negative --vcpu" \
	"--vcpu -5: expected vcpu ids (up to 4294967294) and ranges, like 0,2-5" \
	perf kvm-events report -i "$dir/good.data" --vcpu -5
expect_error "bad --pid" "--pid x: expected a list of process ids" \
	perf kvm-events report -i "$dir/good.data" --pid x
expect_error "--top past 2^32-1" \
	"--top 4294967296: expected a number from 0 to 4294967295" \
	perf kvm-events report -i "$dir/good.data" --top 4294967296
expect_error "--vcpu of no vcpu id" "--vcpu 4294967295: expected vcpu ids (up to 4294967294)" \
	perf kvm-events report -i "$dir/good.data" --vcpu 4294967295
for d in 1e20 inf nan -1 1.8446744073709553e16; do
	expect_error "--duration $d" \
		"--duration $d: expected microseconds from 0 to 18446744073709551" \
		perf kvm-events report -i "$dir/good.data" --duration $d
done
for p in "" -1 "1,,2" "1," ",1" 99999999999; do
	expect_error "-p '$p'" "--pid $p: expected a list of process ids" \
		perf kvm-events report -i "$dir/good.data" -p "$p"
done
expect_error "--threads 0" "--threads 0: expected 1 or 2" \
	perf kvm-events report -i "$dir/good.data" --threads 0
expect_error "empty --fields" "--fields '': no field, expected any of" \
	perf kvm-events report -i "$dir/good.data" --fields ""
fields=samples,samples,samples,samples,samples,samples,samples,samples
fields=$fields,samples,samples,samples,samples,samples,samples,samples,samples,samples
expect_error "17 --fields" "more than 16 fields" \
	perf kvm-events report -i "$dir/good.data" --fields "$fields"
for d in 0 4294967296 x; do
	expect_error "live -d $d" \
		"perf kvm-events live: --delay $d: expected a number from 1 to 86400" \
		perf kvm-events live -d $d -- true
done
# A --threads directory with a data.N file lost, and one cut short: both
# named, and what is whole reported.
"$KVMGEN" "$dir/threads" vmx+threads 2000 > /dev/null || exit 1
rm "$dir/threads/data.1"
head -c 5000 "$dir/threads/data.2" > "$dir/cut.2" && mv "$dir/cut.2" "$dir/threads/data.2"
missing="^$dir/threads/data.1: missing: the events of its thread are not in the report$"
ends="^$dir/threads/data.2: the data ends in a record cut after [0-9]* bytes$"
if ! perf kvm-events report -i "$dir/threads" > /dev/null 2> "$dir/threads.err" ||
   ! grep -q "$missing" "$dir/threads.err" ||
   ! grep -q "$ends" "$dir/threads.err"; then
	echo "FAIL: a --threads directory without data.1 and with data.2 cut:"
	cat "$dir/threads.err"
	err=1
fi
# ... and with 4 bytes of a record after data.0's last: perf's directory
# reader mapped the data again and again (found by make fuzz FUZZ_MODE=dir)
printf 'abcd' >> "$dir/threads/data.0"
timeout 20 perf kvm-events report -i "$dir/threads" --generic-reader \
	> /dev/null 2> "$dir/threads.err"
rc=$?
if [ $rc -eq 124 ] || [ $rc -gt 128 ] ||
   ! grep -q "data.0: the data ends in a record cut at" "$dir/threads.err"; then
	echo "FAIL: --generic-reader of a data.0 that ends in a cut record: exit $rc"
	cat "$dir/threads.err"
	err=1
fi
expect_error "unknown subcommand" "unknown command 'bogus'" \
	perf kvm-events bogus

if perf record -q -e cpu-clock -o "$dir/nokvm.data" -- true 2> /dev/null; then
	expect_error "no kvm tracepoints" "$dir/nokvm.data: no kvm tracepoints recorded" \
		perf kvm-events report -i "$dir/nokvm.data"
	perf record -q -e cpu-clock -o - -- true > "$dir/nokvm.pipe" 2> /dev/null
	expect_error "no kvm tracepoints in a pipe" "-: no kvm tracepoints recorded" \
		sh -c "perf kvm-events report -i - < '$dir/nokvm.pipe'"
fi

# Recording faults, where kvm tracepoints can be recorded: a command that
# does not exist fails with perf record's message naming it; Ctrl-C
# (SIGINT) ends a recording with a file that reports.
if [ "$(id -u)" = 0 ] && perf list 'kvm:kvm_pio' 2> /dev/null | grep -q kvm_pio; then
	expect_error "record of a command that does not exist" \
		"for the '$dir/none' workload: No such file or directory" \
		perf kvm-events record -o "$dir/none.data" -- "$dir/none"
	timeout -s INT 1 perf kvm-events record -q -o "$dir/int.data" -- sleep 30
	if [ $? -ne 124 ]; then
		echo "FAIL: record stopped by SIGINT did not run until the signal"
		err=1
	elif ! perf kvm-events report -i "$dir/int.data" 2>&1 |
		grep -q -F "No vmexit samples; kvm events read: none."; then
		echo "FAIL: the recording stopped by SIGINT does not report"
		err=1
	fi
	# live: its errors on the target, and the workload's exit status
	expect_error "live -p of no process" "perf kvm-events live: -p 999999: no such process" \
		perf kvm-events live -p 999999
	expect_error "live -C of no CPU" \
		"perf kvm-events live: -C 99: not CPUs online on this host" \
		perf kvm-events live -C 99 -- true
	expect_error "live of a command that does not exist" \
		"perf kvm-events live: cannot run $dir/none: No such file or directory" \
		perf kvm-events live -- "$dir/none"
	perf kvm-events live -- sh -c 'exit 3' > /dev/null 2>&1
	rc=$?
	[ $rc -eq 3 ] || { echo "FAIL: live -- sh -c 'exit 3' exits $rc"; err=1; }
	expect_error "live -o" "Error: unknown switch \`o'" \
		perf kvm-events live -o "$dir/live.data" -- true
fi

# Recording (and live) where tracefs has no kvm events (no kvm module),
# and as a user who cannot mount the missing tracefs: each in a mount
# namespace of its own, which leaves the host's mounts alone.
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null && command -v setpriv > /dev/null &&
   id nobody > /dev/null 2>&1 && [ -d /sys/kernel/tracing/events/kvm ] &&
   unshare -m true 2> /dev/null; then
	msg="perf kvm-events record: no kvm tracepoints in /sys/kernel/tracing/events;"
	msg="$msg load the kvm module"
	expect_error "record without the kvm module" "$msg" \
		unshare -m sh -c "mount -t tmpfs none /sys/kernel/tracing/events &&
			exec perf kvm-events record -o '$dir/none.data' -- true"
	expect_error "live without the kvm module" \
		"perf kvm-events live: no kvm tracepoints in /sys/kernel/tracing/events; load" \
		unshare -m sh -c "mount -t tmpfs none /sys/kernel/tracing/events &&
			exec perf kvm-events live -- true"
	msg="perf kvm-events record: tracefs is not mounted on /sys/kernel/tracing;"
	msg="$msg as root run: mount -t tracefs nodev /sys/kernel/tracing"
	expect_error "record without tracefs" "$msg" \
		unshare -m sh -c "umount /sys/kernel/tracing 2> /dev/null;
			umount /sys/kernel/debug 2> /dev/null;
			exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
			perf kvm-events record -o '$dir/none.data' -- true"
fi

# Recording and live as a user who may not read tracefs
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && id nobody > /dev/null 2>&1 &&
   ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -r /sys/kernel/tracing/events; then
	expect_error "record without access to tracefs" \
		"perf kvm-events record: no permission to read /sys/kernel/tracing; run as root" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		perf kvm-events record -o "$dir/none.data" -- true
	expect_error "live without access to tracefs" \
		"perf kvm-events live: no permission to read /sys/kernel/tracing; run as root" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups perf kvm-events live -- true
fi

# Print formats that crash libtraceevent 1.7.1 (a division by zero, an
# unknown field in __print_symbolic, a bad token in a ternary, a stray
# character) never reach it: perf warns, naming the event and what is
# wrong, and reads the recording with the event's fields, from a file and
# from standard input, with either reader.
fuzz="$(cd "$(dirname "$0")" && pwd)/kvm-events-fuzz"
not_read="its print format is not read"
no_operator="is not an operator of print formats"
# expect_format_warning WHAT TEXT CMD...: CMD reports (exit 0, a table),
# and its stderr holds TEXT.
expect_format_warning() {
	what=$1
	text=$2
	shift 2
	"$@" > "$dir/out" 2> "$dir/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: $what: exit $rc"
		cat "$dir/err"
		err=1
	elif ! grep -q -x -F -- "$text" "$dir/err"; then
		echo "FAIL: $what: stderr lacks the line '$text':"
		cat "$dir/err"
		err=1
	elif ! grep -q "^Analyze events for all VCPUs:" "$dir/out"; then
		echo "FAIL: $what: no report"
		err=1
	fi
}
for reader in "" --generic-reader; do
	for f in "print-division-by-zero:/ 0 divides by what may fold to 0" \
		 "print-symbolic-unknown-field:REC->nofield is not a field" \
		 "print-ternary-bad-token:{ follows the last operand of a ternary"; do
		expect_format_warning "${f%%:*}.fuzz ${reader:-}" \
			"trace event kvm:kvm_exit: $not_read: ${f#*:}" \
			perf kvm-events report $reader -i "$fuzz/${f%%:*}.fuzz"
	done
	pipe="$fuzz/pipe-print-symbolic-bad-token.fuzz"
	expect_format_warning "$pipe on standard input ${reader:-}" \
		"trace event kvm:kvm_nested_vmexit_inject: $not_read: \` $no_operator" \
		sh -c "perf kvm-events report $reader -i - < '$pipe'"
done

# A SIGTERM ends a report that waits on its input, by that signal.
mkfifo "$dir/fifo"
perf kvm-events report -i - < "$dir/fifo" > /dev/null 2>&1 &
pid=$!
exec 3> "$dir/fifo"
sleep 0.3
kill -TERM $pid
wait $pid
rc=$?
exec 3>&-
if [ $rc -ne 143 ]; then
	echo "FAIL: perf kvm-events report after a SIGTERM: exit $rc, not 143"
	err=1
fi

exit $err
