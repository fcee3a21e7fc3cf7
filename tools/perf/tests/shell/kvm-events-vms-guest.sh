#!/bin/bash
# kvm-events: real qemu VMs by the names their owners gave them
# SPDX-License-Identifier: GPL-2.0

# Debian's qemu-system-x86 under this kernel's KVM, as a host runs it:
# two VMs at once, with names and uuids (one name with a doubled comma,
# which qemu reads as one, a space and quotes), SeaBIOS finding nothing
# to boot; then the first is stopped and started again, under a new pid.
# record -a names them all from /proc, in the recording; the report must
# show each pid's name and uuid, and --vm by name, uuid, glob and pid
# must give the exits of exactly that VM's --per-vm rows.  A second
# recording of the restarted VM alone: diff --vm matches it by name.
# Then live and live --use-bpf, --vm web1, over both VMs started after
# them: their metrics are web1's, labelled by its name, with the exits
# that record -a, run beside them, gives.  Costs about 90 s in the
# emulated test machine, most of it SeaBIOS.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing
skip_without_python3
if ! command -v qemu-system-x86_64 > /dev/null; then
	echo "skip: no qemu-system-x86_64: apt-get install qemu-system-x86"
	exit 2
fi

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
uuid1=6b1c2a7e-0f43-4d55-9c1a-3e2f8d5b7a90
uuid2=0c9e8d7f-1a2b-4c3d-8e4f-5a6b7c8d9e0f

# vm NAME_OPTION UUID TAG: a VM in the background, as a host's owner
# starts it; SeaBIOS writes its log to $dir/TAG.log (its debug port)
vm() {
	qemu-system-x86_64 -accel kvm -name "$1" -uuid "$2" -m 32 -nodefaults \
		-no-user-config -display none -serial none -monitor none \
		-debugcon "file:$dir/$3.log" -global isa-debugcon.iobase=0x402 &
}

# running TAG...: once each VM's SeaBIOS has logged, 2 s more of its
# exits; the emulated CPU, shared with other tests, may take long to
# start one
running() {
	local tag

	for tag in "$@"; do
		for _ in $(seq 600); do
			[ -s "$dir/$tag.log" ] && break
			sleep 0.2
		done
	done
	sleep 2
}

# stop PID...: the VMs end as a host stops them, and are waited for
stop() {
	kill "$@"
	wait "$@" 2> /dev/null
}

# The VMs of the first recording, each line "pid name uuid" of
# kvm_events_check names-real.  The name "db,2" is -name's "db,,2".
run_vms() {
	local web db

	vm guest=web1,debug-threads=on $uuid1 web1
	web=$!
	vm 'guest=db,,2' $uuid2 db
	db=$!
	printf '%s web1 %s\n%s db,2 %s\n' $web $uuid1 $db $uuid2 > "$dir/started"
	running web1 db
	stop $web
	vm guest=web1 $uuid1 web1-again
	web=$!
	echo "$web web1 $uuid1" >> "$dir/started"
	running web1-again
	stop $web $db
}

# The restarted VM alone, for diff
run_later() {
	vm web1 $uuid1 later
	echo "$! web1 $uuid1" > "$dir/later-started"
	running later
	stop $!
}

export -f vm running stop run_vms run_later
export dir uuid1 uuid2
for run in run_vms run_later; do
	if ! perf kvm-events record -q -a -o "$dir/$run.data" -- bash -c $run \
			> "$dir/record.log" 2>&1; then
		echo "FAIL: perf kvm-events record -a of $run"
		cat "$dir/record.log"
		exit 1
	fi
done
kvm_events_check names-real "$dir/run_vms.data" "$dir/started" \
	"$dir/run_later.data" "$dir/later-started" || err=1

# Both VMs start after live (live -a, whose first refresh says it
# watches), which takes web1 alone by its name; record -a beside it
# records the same events, whose report --vm web1 the metrics must equal,
# key by key.  run_live NAME: the two VMs, their logs NAME-*.log.
run_live() {
	local web db

	vm guest=web1 $uuid1 "$1-web1"
	web=$!
	vm 'guest=db,,2' $uuid2 "$1-db"
	db=$!
	running "$1-web1" "$1-db"
	stop $web $db
}

# live_beside OUT [OPTION...]: live -a --vm web1 (with OPTIONs) into
# OUT.out and OUT.prom, over run_live, stopped by SIGINT at its end
live_beside() {
	local out=$1 live

	shift
	perf kvm-events live --stdio -a -d 1 --vm web1 --metrics-by vm \
		--metrics-file "$out.prom" "$@" > "$out.out" 2>&1 &
	live=$!
	for _ in $(seq 240); do
		grep -q ', refresh 1:$' "$out.out" && break
		sleep 0.5
	done
	run_live "$(basename "$out")"
	kill -INT $live
	wait $live
}

# live_vm NAME [OPTION...]: live_beside under record -a, and the checks
live_vm() {
	local name=$1

	shift
	if ! perf kvm-events record -q -a -o "$dir/$name.data" -- \
			bash -c 'live_beside "$@"' live_beside "$dir/$name" "$@" \
			> "$dir/$name.log" 2>&1; then
		echo "FAIL: perf kvm-events live $* --vm web1, recorded"
		tail -5 "$dir/$name.log" "$dir/$name.out"
		err=1
		return
	fi
	kvm_events_check names-live "$dir/$name.prom" "$dir/$name.out" "$dir/$name.data" \
		web1 $uuid1 || err=1
	if command -v promtool > /dev/null && ! promtool check metrics < "$dir/$name.prom"; then
		echo "FAIL: live $*: promtool check metrics"
		err=1
	fi
}

export -f run_live live_beside
live_vm live
live_vm live-bpf --use-bpf
exit $err
