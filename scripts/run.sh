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

report() {
	echo
	echo "\$ perf kvm-events report $*"
	"$perf" kvm-events report "$@"
}

if [ -c /dev/kvm ] &&
   taskset -c 0 "$perf" kvm-events record -q -o "$dir/guest.data" -- \
	"$perf" test -w kvmguest 50 30 40 20 > "$dir/record.log" 2>&1; then
	echo "== The bundled KVM guest: 50 port writes, 30 port reads,"
	echo "== 40 MMIO writes and 20 MMIO reads, recorded with"
	echo "\$ perf kvm-events record -o $dir/guest.data -- perf test -w kvmguest 50 30 40 20"
	report -i "$dir/guest.data" --event ioport
	report -i "$dir/guest.data" --event mmio
	report -i "$dir/guest.data" --event userspace --stats
	report -i "$dir/guest.data" --event vmexit
else
	echo "== No KVM guest could be recorded here (see $dir/record.log):"
	echo "== what follows is a generated recording only, not a real guest."
fi

echo
echo "== A generated recording (perf test -w kvmgen), 4 vcpus on VMX:"
"$perf" test -w kvmgen "$dir/gen.data" vmx || exit 1
report -i "$dir/gen.data"
report -i "$dir/gen.data" --event mmio
report -i "$dir/gen.data" --event mmio --vcpu 1
report -i "$dir/gen.data" --key time
