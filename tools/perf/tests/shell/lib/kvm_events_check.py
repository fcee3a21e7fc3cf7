# SPDX-License-Identifier: GPL-2.0
"""The one oracle of the kvm-events shell tests: kvmgen's ground truth.

kvmgen writes, beside each recording FILE, FILE.events (one line per
sample of each analysis: "analysis vcpu pid key time_ns duration_ns|- rip
tid") and FILE.truth (comment lines with the samples of each tracepoint,
the losses and each VM's pid and comm, then "analysis vcpu key samples
paired total_ns" per key).  A recording with context switch records
(kvmgen's +switch) has each timed event's split too: .events lines end
with "offcpu preempted blocked", .truth lines with "oncpu offcpu
preempted blocked switched", and the reports' keys and totals must have
these sums and their percentiles; without switch records, none of them.  Every
expected value below is derived from those two files alone, never from
another perf output, and compared with `perf kvm-events report --json`
(and the table, --csv, --top and --histogram where those are what is
tested).  Values are exact; only the percentiles of keys with more than
1024 timed samples, which come from a histogram, are within the
documented 0.4%.

  kvm_events_check.py table FILE NAME
        .truth is .events summed; every analysis of FILE as a table, for
        all vcpus and for vcpu 1, sorted by samples and by time
  kvm_events_check.py options FILE NAME
        every analysis of FILE with --stats, --vcpu, --duration, --time,
        -p, --per-vcpu, --per-vm, every --key, --top and --histogram (as
        text and JSON), --csv (the same numbers as the JSON), the span;
        with two VMs, -p with --vcpu, and --per-vcpu's (pid, vcpu) tables
  kvm_events_check.py columns FILE ANALYSIS [REPORT OPTION...]
        every table of the report has rows as wide as its header, cells
        that end where their header ends, and a key column as wide as the
        longest key, at least 20
  kvm_events_check.py diff OLD NEW ANALYSIS
        perf kvm-events diff: rates, average and p99 times of every key,
        as a table, --json and --csv
  kvm_events_check.py schema DOC FILE OLD NEW [SCHED]
        the fields of report --json on FILE and diff --json of FILE with
        OLD and NEW are those DOC (the man page) documents, with its types
  kvm_events_check.py names FILE
        a +names recording: its VMs' names in the JSON's vms[] and keys,
        the --per-vm titles and CSV, --vm by name, uuid, glob, pid and
        list with its VMs' exact numbers, and diff --vm
  kvm_events_check.py names-real FILE STARTED LATER LATER_STARTED
        real qemu VMs the test started ("pid name uuid" lines, '+' for a
        space): their names in vms[] and --per-vm, --vm by name, uuid,
        glob and pid equal to their --per-vm rows, and diff --vm of the
        VM restarted in LATER
  kvm_events_check.py names-live PROM OUT FILE NAME UUID
        live --vm NAME --metrics-by vm over real VMs, FILE recorded beside
        it: PROM's series are NAME's, by name and uuid, with the exits
        per key of report --vm NAME of FILE; OUT's tables are NAME's
  kvm_events_check.py names-none FILE [WARNING]
        no names (or untrusted ones, the report saying WARNING once):
        the VMs by pid, as before names
  kvm_events_check.py guest-bpf FILE PLAIN MIN_NS ANALYSES
        record --use-bpf --min-time MIN_NS of the bundled guest: each of
        ANALYSES (a comma separated list) has the keys, samples and
        medians of PLAIN, the same run recorded plainly
  kvm_events_check.py guest-bpf-whole FILE COUNTS...
        record --use-bpf of the bundled guest: its own counts exact, every
        event whole and read, exact percentiles
  kvm_events_check.py guest-arm64-bpf FILE PLAIN COUNTS...
        record --use-bpf of the arm64 guest: its own counts exact, every
        event whole, exact percentiles, and PLAIN's keys in every analysis
  kvm_events_check.py bpf-min-time FILE ANALYSIS MIN_NS KEY=SAMPLES...
        record --use-bpf --min-time: the exact counts, and as events
        whole exactly those the kernel counted at least MIN_NS long
  kvm_events_check.py accounting FILE SCRIPT_SAMPLES [REPORT OPTION...]
        the buckets of the totals: every kvm sample read is in one
  kvm_events_check.py heatmap FILE ANALYSIS SVG [REPORT OPTION...]
        report --heatmap SVG: the busiest keys' panels in order, each
        timed sample in its (time column, log2 bucket) cell, the keys
        left out; filters: --vcpu, -p, --time, --duration
  kvm_events_check.py screenshot PNG SVG WIDTH HEIGHT
        a browser's screenshot of the SVG: its size, and every colour of
        the legend and of the cells in view drawn
  kvm_events_check.py lost FILE [REPORT OPTION...]
        lost events counted once, as many as the truth's 'lost'
  kvm_events_check.py kallsyms FILE OUT
        writes OUT, a made-up guest kallsyms over FILE's rips
  kvm_events_check.py sites FILE ANALYSIS rip|sym [KALLSYMS]
        --key rip or sym: each guest code site's numbers, from .events'
        rips and the symbols of KALLSYMS
  kvm_events_check.py guest FILE OUT IN WRITE READ CPUID RDMSR WRMSR HC
        a real kernel's recording of perf test -w kvmguest with these
        counts: the guest's own counts are the truth, exact in every
        analysis; only the exits a host causes (interrupts, nested page
        faults on first touch) are bounded instead; and no sample twice
        (with the guest's map of its loops, --key sym's sites, exact)
  kvm_events_check.py guest-arm64 FILE WRITE READ HVC SYSREG
        the same for the arm64 guest: its MMIO accesses, PSCI_VERSION
        calls and trapped sysreg reads, exact; only IRQ exits bounded;
        and each exit's time the span to its kvm_entry in perf script;
        with the guest's map of its loops, --key sym
  kvm_events_check.py halt-arm64 FILE HALTS
        the arm64 guest's halt form: a WFI exit and a wakeup per halt
        that trapped, the others IRQ exits, and its setup's exits
  kvm_events_check.py accounting-real FILE SCRIPT_SAMPLES [lost]
        a recording perf record wrote: in every analysis and reader, every
        sample that perf script shows is read and in one bucket; with
        lost, the file must have PERF_RECORD_LOST records, and the events
        lost are the sum of theirs, in as many chunks
  kvm_events_check.py keys FILE ANALYSIS KEY=SAMPLES...
        a real recording whose truth is known: the report's keys (their
        numbers, without the names after them) and samples are these
  kvm_events_check.py sched FILE
        a kvmgen +switch recording: its switch records are laid out and
        ordered as perf record --switch-events writes them, each thread's
        alternate, no vcpu sample falls in its thread's off periods, and
        .events' split of each event is the one the records give
  kvm_events_check.py sched-keys FILE NAME
        .truth is .events summed, the split included; every analysis'
        keys and totals with the options that select or group events
  kvm_events_check.py sched-json FILE ANALYSIS JSON
        JSON, a report --event ANALYSIS --json of FILE read some other
        way (a pipe, --threads 1): its keys and totals are the truth's,
        the on and off CPU split included (absent without switch records)
  kvm_events_check.py sched-real FILE preempted|blocked
        a real recording with --sched: the vmexit report's split of the
        exits' time, in total, per key and per --top event, in every
        reader, is the one perf script's view of the same records gives,
        and the guest was preempted (or blocked) inside some exit
  kvm_events_check.py once FILE [FIRST:COPY...]
        perf record wrote each sample of FILE once: no sample the same,
        byte for byte, as an earlier one; or exactly these copies, at
        these file offsets (hex)

Exit status 0 when all is equal, 1 with a "FAIL: " line per difference.

The checks are in the modules beside this file, kvm_events_*.py, one
per fact checked: kvm_events_truth.py reads the ground truth and
compares a report's keys and totals with it, the others check what
their commands say.  This file only runs the command asked.
"""

import os
import sys

# The modules are found beside this file, from any working folder, and
# written to no __pycache__: the test machine's tree is read only, and in
# a work tree they would be files that git does not know.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kvm_events_accounting as accounting  # noqa: E402
import kvm_events_columns as columns  # noqa: E402
import kvm_events_diff as diff  # noqa: E402
import kvm_events_guest as guest  # noqa: E402
import kvm_events_guest_arm64 as guest_arm64  # noqa: E402
import kvm_events_heatmap as heatmap  # noqa: E402
import kvm_events_names as names  # noqa: E402
import kvm_events_report as report  # noqa: E402
import kvm_events_sched as sched  # noqa: E402
import kvm_events_schema as schema  # noqa: E402
import kvm_events_sites as sites  # noqa: E402
import kvm_events_truth as truth  # noqa: E402


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd in ("table", "options"):
        report.cmd_report(args[0], args[1], cmd == "table")
    elif cmd == "schema":
        schema.cmd_schema(*args[:5])
    elif cmd == "names":
        names.cmd_names(args[0])
    elif cmd == "names-real":
        names.cmd_names_real(*args[:4])
    elif cmd == "names-live":
        names.cmd_names_live(*args[:5])
    elif cmd == "names-none":
        names.cmd_names_none(*args[:2])
    elif cmd == "columns":
        columns.cmd_columns(args[0], args[1], args[2:])
    elif cmd == "diff":
        diff.cmd_diff(args[0], args[1], args[2], args[3:])
    elif cmd == "accounting":
        accounting.cmd_accounting(args[0], int(args[1]), args[2:])
    elif cmd == "lost":
        accounting.cmd_lost(args[0], args[1:])
    elif cmd == "guest":
        guest.cmd_guest(args[0], [int(a) for a in args[1:9]])
    elif cmd == "guest-bpf":
        guest.cmd_guest_bpf(args[0], args[1], int(args[2]), args[3].split(","))
    elif cmd == "guest-bpf-whole":
        guest.cmd_guest_bpf_whole(args[0], [int(a) for a in args[1:9]])
    elif cmd == "bpf-min-time":
        guest.cmd_bpf_min_time(args[0], args[1], int(args[2]),
                               {k: int(v) for k, v in (a.rsplit("=", 1) for a in args[3:])})
    elif cmd == "keys":
        guest.check_guest_tables(args[0], {args[1]: {k: int(v) for k, v in
                                                     (a.rsplit("=", 1) for a in args[2:])}})
    elif cmd == "halt-arm64":
        guest_arm64.cmd_halt_arm64(args[0], int(args[1]))
    elif cmd == "guest-arm64-bpf":
        guest_arm64.cmd_guest_arm64_bpf(args[0], args[1], [int(a) for a in args[2:6]])
    elif cmd == "guest-arm64":
        guest_arm64.cmd_guest_arm64(args[0], [int(a) for a in args[1:5]])
    elif cmd == "accounting-real":
        accounting.cmd_accounting_real(args[0], int(args[1]), args[2:3] == ["lost"])
    elif cmd == "sched":
        sched.cmd_sched(args[0])
    elif cmd == "sched-keys":
        sched.cmd_sched_keys(args[0], args[1])
    elif cmd == "sched-json":
        sched.cmd_sched_json(*args[:3])
    elif cmd == "sched-real":
        sched.cmd_sched_real(args[0], args[1])
    elif cmd == "once":
        accounting.cmd_once(args[0], args[1:])
    elif cmd == "kallsyms":
        sites.cmd_kallsyms(args[0], args[1])
    elif cmd == "sites":
        sites.cmd_sites(*args[:4])
    elif cmd == "heatmap":
        heatmap.cmd_heatmap(args[0], args[1], args[2], args[3:])
    elif cmd == "screenshot":
        heatmap.cmd_screenshot(args[0], args[1], int(args[2]), int(args[3]))
    else:
        print(f"FAIL: kvm_events_check.py: unknown command {cmd}")
        return 1
    for line in truth.failures:
        print("FAIL:", line)
    return 1 if truth.failures else 0


if __name__ == "__main__":
    sys.exit(main())
