#!/bin/bash
# kvm-events: exits keyed by the guest code that makes them
# SPDX-License-Identifier: GPL-2.0

# --key rip keys each analysis' events by the guest rip of their exit,
# --key sym by the guest function it is in, named from a made-up
# kallsyms (--guest-kallsyms): unknown rips stay hex.  Each site's
# numbers must be the ground truth's, from kvmgen's rips.  A file that
# is no kallsyms, and the options that do not go together, are errors.
# The known guest's sites on a real kernel: kvm-events-guest-exits.sh.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"
need_kvmgen
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init

for scenario in vmx svm two-vms arm64; do
	data=$dir/$scenario.data
	if ! "$KVMGEN" "$data" "$scenario" > /dev/null; then
		echo "FAIL: kvmgen $scenario"
		err=1
		continue
	fi
	kvm_events_check kallsyms "$data" "$dir/kallsyms" || err=1
	for analysis in vmexit mmio ioport; do
		[ $scenario = arm64 ] && [ $analysis = ioport ] && continue
		kvm_events_check sites "$data" $analysis rip || err=1
		kvm_events_check sites "$data" $analysis rip "$dir/kallsyms" || err=1
		kvm_events_check sites "$data" $analysis sym "$dir/kallsyms" || err=1
	done
done

# error CASE MESSAGE REPORT OPTION...: a first line naming what is wrong,
# exit status 1, or perf's usage error (129) where an option is wrong
error() {
	local case=$1 want=$2 out status

	shift 2
	out=$(perf kvm-events "$@" 2>&1 > /dev/null)
	status=$?
	if { [ $status != 1 ] && [ $status != 129 ]; } ||
	   [[ $(echo "$out" | head -n 1) != *"$want"* ]]; then
		echo "FAIL: $case: exit $status, '$out', expected '$want'"
		err=1
	fi
}

data=$dir/vmx.data
printf '0000000000001000 T good\nffffffff81000000 T also good\n' > "$dir/bad"
error "a name with a space" "$dir/bad:2: not a kallsyms or System.map line" \
	report -i "$data" --key sym --guest-kallsyms "$dir/bad"
printf '0000000000000000 T a\n0000000000000000 t b\n' > "$dir/zero"
error "kptr_restrict's zeros" "every address is 0: read the guest's /proc/kallsyms as root" \
	report -i "$data" --key rip --guest-kallsyms "$dir/zero"
: > "$dir/empty"
error "an empty file" "$dir/empty: empty" report -i "$data" --key sym --guest-kallsyms "$dir/empty"
error "no such file" "$dir/none: cannot open the guest's symbols" \
	report -i "$data" --key sym --guest-kallsyms "$dir/none"
error "sym without symbols" "--key sym: needs --guest-kallsyms FILE" report -i "$data" --key sym
error "rip and sym" "--key rip,sym: rip and sym are two ways to key sites" \
	report -i "$data" --key rip,sym
error "live -b" "--key rip and sym: not with --use-bpf" live --use-bpf --key rip -- true

exit $err
