#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh PERF
#
# Record the bundled KVM guest with perf kvm-events record and print its
# reports; then the original design's example invocations on a generated
# recording with known contents.
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

if [ -c /dev/kvm ] &&
   taskset -c 0 "$perf" kvm-events record -q --event all -o "$dir/guest.data" -- \
	"$perf" test -w kvmguest 50 30 40 20 > "$dir/record.log" 2>&1; then
	echo "== The bundled KVM guest: 50 port writes, 30 port reads,"
	echo "== 40 MMIO writes and 20 MMIO reads, recorded with"
	echo "\$ perf kvm-events record --event all -o $dir/guest.data -- perf test -w kvmguest 50 30 40 20"
	report -i "$dir/guest.data" --event ioport
	report -i "$dir/guest.data" --event mmio
	report -i "$dir/guest.data" --event userspace --stats
	report -i "$dir/guest.data" --event vmexit
	if taskset -c 0 "$perf" kvm-events record -q -o "$dir/halt.data" -- \
		"$perf" test -w kvmguest halt 40 50 >> "$dir/record.log" 2>&1; then
		echo
		echo "== The guest halting 40 times, woken 50us later each time:"
		echo "\$ perf kvm-events record -o $dir/halt.data -- perf test -w kvmguest halt 40 50"
		report -i "$dir/halt.data" --event halt --stats
	fi
else
	echo "== No KVM guest could be recorded here (see $dir/record.log):"
	echo "== what follows is a generated recording only, not a real guest."
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
