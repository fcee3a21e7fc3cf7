#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh PERF
#
# Record the bundled KVM guest, and two named qemu VMs, with perf
# kvm-events record and print their reports, on this host where it has
# the hardware's KVM
# (scripts/hardware-kvm.sh), or else in the test machine, as make check
# does (scripts/vm.sh; run.sh PERF --guest is that part alone); then the
# original design's example invocations on a generated recording with
# known contents.
set -u

perf=$1
dir=$(cd "$(dirname "$0")/.." && pwd)/build/run
mkdir -p "$dir"
export PATH="$(dirname "$perf"):$PATH"
# the generator, built beside perf by make perf
kvmgen=$(dirname "$(readlink -f "$perf")")/kvmgen

report() {
	echo
	echo "\$ perf kvm-events report $*"
	"$perf" kvm-events report "$@"
}

# guest: record the bundled guest and print its reports
guest() {
	taskset -c 0 "$perf" kvm-events record -q --event all -o "$dir/guest.data" -- \
		"$perf" test -w kvmguest 50 30 40 20 10 10 10 10 > "$dir/record.log" 2>&1 ||
		return 1
	echo "== The bundled KVM guest: 50 port writes, 30 port reads, 40 MMIO writes,"
	echo "== 20 MMIO reads, 10 CPUIDs, RDMSRs, WRMSRs and hypercalls, recorded with"
	echo "\$ perf kvm-events record --event all -o $dir/guest.data -- perf test -w kvmguest 50 30 40 20 10 10 10 10"
	report -i "$dir/guest.data" --event vmexit
	report -i "$dir/guest.data" --event ioport
	report -i "$dir/guest.data" --event mmio
	report -i "$dir/guest.data" --event msr
	report -i "$dir/guest.data" --event hypercall
	report -i "$dir/guest.data" --event userspace --stats
	if taskset -c 0 "$perf" kvm-events record -q --event halt -o "$dir/halt.data" -- \
		"$perf" test -w kvmguest halt 40 1000 >> "$dir/record.log" 2>&1; then
		echo
		echo "== The guest halting 40 times, woken 1 ms later each time:"
		echo "\$ perf kvm-events record --event halt -o $dir/halt.data -- perf test -w kvmguest halt 40 1000"
		report -i "$dir/halt.data" --event halt --stats
	fi
}

# qemu_vms: two real qemu VMs under this kernel's KVM, named by their
# -name as their owners name them, recorded host-wide and reported per VM
# (SeaBIOS, finding nothing to boot, makes their exits)
qemu_vms() {
	command -v qemu-system-x86_64 > /dev/null || return 0
	"$perf" kvm-events record -q -a -o "$dir/vms.data" -- bash -c '
		for vm in web1 db1; do
			qemu-system-x86_64 -accel kvm -name guest=$vm -m 32 -nodefaults \
				-no-user-config -display none &
		done
		sleep 6
		kill $(jobs -p)
		wait' >> "$dir/record.log" 2>&1 || return 1
	echo
	echo "== Two qemu VMs, started with -name guest=web1 and -name guest=db1, recorded with"
	echo "\$ perf kvm-events record -a -o $dir/vms.data -- <the two VMs for 6 s>"
	report -i "$dir/vms.data" --per-vm
	report -i "$dir/vms.data" --vm web1 --event ioport
}

if [ "${2:-}" = --guest ]; then
	guest && qemu_vms
	exit
fi
if "$(dirname "$0")/hardware-kvm.sh"; then
	{ guest && qemu_vms; } ||
		echo "== The bundled KVM guest could not be recorded (see $dir/record.log)."
elif "$(dirname "$0")/vm.sh" -w "$dir" -- "$0" "$perf" --guest > "$dir/vm.log" 2>&1; then
	echo "== No hardware KVM here: recorded in the test machine (scripts/vm.sh), Debian's"
	echo "== 6.12 kernel's KVM on qemu's emulated SVM CPU, so times are an emulated"
	echo "== CPU's, tens of times a real one's."
	grep -v -E 'reboot: Power down|^test machine: up$' "$dir/vm.log"
else
	echo "== No KVM guest could be recorded here nor in the test machine"
	echo "== (see $dir/vm.log): what follows is a generated recording only."
fi

echo
echo "== A generated recording (kvmgen), 4 vcpus on VMX:"
"$kvmgen" "$dir/gen.data" vmx || exit 1
report -i "$dir/gen.data"
report -i "$dir/gen.data" --event mmio
report -i "$dir/gen.data" --event mmio --vcpu 1
report -i "$dir/gen.data" --key time

echo
echo "== Generated recordings of other architectures, nested and halt:"
for scenario in arm64 s390 ppc64le riscv64 loongarch64 pvm vmx-nested vmx-halt; do
	"$kvmgen" "$dir/$scenario.data" "$scenario" || exit 1
	echo
	echo "== $scenario"
	report -i "$dir/$scenario.data" --key time
done
report -i "$dir/ppc64le.data" --event hypercall
report -i "$dir/vmx-halt.data" --event halt
