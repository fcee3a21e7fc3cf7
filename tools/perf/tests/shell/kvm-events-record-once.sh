#!/bin/bash
# kvm-events: perf record writes each sample of a KVM guest once, run after run
# SPDX-License-Identifier: GPL-2.0

# perf record's ring buffer reader pushed again what the kernel wrote
# while it read (fixed by the series' fix-11): a recording then held a
# sample twice, and the report counted an access more than the guest
# made.  Under emulation the window is wide.  Record the guest many
# times with the default buffer, the recorder free to run on any CPU,
# and look for a sample written twice in each file.

set -u
. "$(dirname "$0")/lib/kvm_events.sh"

skip_without_kvm_tracing
skip_without_python3

dir=$(mktemp -d /tmp/perf-test-kvm-events.XXXXXXXXXX)
test_init
runs=10

records_once "$dir" $runs 300 200 150 100 || err=1
[ $err = 0 ] && echo "$runs recordings, each sample once"
exit $err
