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
"""

import bisect
import csv
import io
import json
import math
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

EXACT_MAX = 1024
BOUND = 0.004

failures = []


def fail(case, what):
    failures.append(f"{case}: {what}")


# Record types, of perf_event.h and perf's event.h
PERF_RECORD_HEADER_TRACING_DATA = 66

# Samples that have no time, and yet are not unpaired
NO_TIME_KEYS = {("halt", "grow"), ("halt", "shrink")}

COLUMNS = {"vmexit": "VM-EXIT", "mmio": "MMIO Access", "ioport": "IO Port Access",
           "msr": "MSR Access", "hypercall": "Hypercall", "halt": "Halt",
           "userspace": "Userspace Exit"}


class Sample:
    def __init__(self, line):
        f = line.split()
        # vcpu "?": the recording has no vcpu ids (arm64, riscv64).
        self.analysis, self.pid = f[0], int(f[2])
        self.vcpu = None if f[1] == "?" else int(f[1])
        self.full_key = f[3]
        # Names after a slash (hypercall keys of other arches) are
        # dropped, as strip_names() drops the report's.
        self.key = f[3].partition("/")[0]
        self.time = int(f[4])
        self.duration = None if f[5] == "-" else int(f[5])
        self.rip = int(f[6], 16)
        self.tid = int(f[7])
        # kvmgen +switch: "offcpu preempted blocked", "- - -" where the
        # event is not split (untimed, or a halt)
        self.sched = len(f) > 8
        self.offcpu = self.preempted = self.blocked = None
        if self.sched and f[8] != "-":
            self.offcpu, self.preempted, self.blocked = (int(w) for w in f[8:11])


def read_events(data):
    with open(data + ".events") as f:
        return [Sample(line) for line in f if not line.startswith("#")]


def read_truth(data, sched=False):
    """The .truth: its header fields by name, and its table by key; with
    sched, each key's oncpu, offcpu, preempted, blocked and switched too
    (None for a key that is not split)."""
    header, table = {}, {}
    with open(data + ".truth") as f:
        for line in f:
            words = line.split()
            if line.startswith("#"):
                # "# samples total N tp N ...", "# orphan_entries N ... lost N"
                for i in range(1, len(words) - 1):
                    if words[i + 1].isdigit():
                        header.setdefault(words[i], int(words[i + 1]))
                continue
            cell = tuple(int(w) for w in words[3:6])
            if sched:
                cell += tuple(None if w == "-" else int(w) for w in words[6:11])
            table[(words[0], words[1], words[2])] = cell
    return header, table


def read_comms(data):
    """Each VM's comm, by pid: the .truth's "# vm pid P comm C" lines."""
    comms = {}
    with open(data + ".truth") as f:
        for line in f:
            words = line.split()
            if words[:3] == ["#", "vm", "pid"]:
                comms[int(words[3])] = words[5]
    return comms


def check_truth_table(data, events):
    """.truth's table must be .events summed per analysis, vcpu and key,
    the split of +switch recordings included."""
    sched = any(s.sched for s in events)
    _, table = read_truth(data, sched)
    two_vms = len({s.pid for s in events}) > 1
    sums = {}
    for s in events:
        vcpu = "?" if s.vcpu is None else (f"{s.pid}/{s.vcpu}" if two_vms else str(s.vcpu))
        cell = sums.setdefault((s.analysis, vcpu, s.full_key),
                               [0, 0, 0] + ([0, 0, 0, 0, 0] if sched else []))
        cell[0] += 1
        if s.duration is not None:
            cell[1] += 1
            cell[2] += s.duration
        if sched and s.analysis == "halt":
            cell[3:] = [None] * 5
        elif sched and s.duration is not None:
            cell[3] += s.duration - s.offcpu
            cell[4] += s.offcpu
            cell[5] += s.preempted
            cell[6] += s.blocked
            cell[7] += s.offcpu > 0
    sums = {k: tuple(v) for k, v in sums.items()}
    if sums != table:
        diff = sorted(set(sums.items()) ^ set(table.items()))[:5]
        fail(data, f".truth is not the sum of .events: {diff}")


def percentile(values, pct):
    rank = max(1, min(len(values), math.ceil(pct / 100 * len(values))))
    return values[rank - 1]


PERCENTILE_FIELDS = ((50, "p50_ns"), (90, "p90_ns"), (99, "p99_ns"), (99.9, "p99_9_ns"))
PERCENTILE_NAMES = tuple(name for _, name in PERCENTILE_FIELDS)
# The split of a recording with context switch records (kvmgen +switch):
# per key and in the totals, sums over the timed events; per key, their
# percentiles too, defined as those of the total times
SCHED_PARTS = ("oncpu", "offcpu", "preempted", "blocked")
SCHED_SUMS = tuple(f"{p}_ns" for p in SCHED_PARTS) + ("switched",)
SCHED_PERCENTILES = tuple(f"{p}_{name}" for p in SCHED_PARTS for _, name in PERCENTILE_FIELDS)
SCHED_KEY_FIELDS = SCHED_SUMS + SCHED_PERCENTILES
SCHED_TOTALS = SCHED_SUMS + ("switch_records",)


def sched_parts(s):
    """A timed event's oncpu, offcpu, preempted and blocked ns"""
    return (s.duration - s.offcpu, s.offcpu, s.preempted, s.blocked)


def sched_stats(samples):
    """The split fields of a key: None for keys that are not split (halt)"""
    timed = [s for s in samples if s.duration is not None]
    if samples[0].analysis == "halt":
        return dict.fromkeys(SCHED_KEY_FIELDS)
    if any(s.offcpu is None for s in timed):
        raise ValueError(f"{samples[0].full_key}: a timed event without its split")
    st = dict.fromkeys(SCHED_SUMS, 0)
    if not timed:
        # sums of nothing; its percentiles, as p50_ns's, are not checked
        return st
    for i, part in enumerate(SCHED_PARTS):
        values = sorted(sched_parts(s)[i] for s in timed)
        st[f"{part}_ns"] = sum(values)
        for pct, name in PERCENTILE_FIELDS:
            st[f"{part}_{name}"] = percentile(values, pct)
    st["switched"] = sum(1 for s in timed if s.offcpu > 0)
    return st


def key_stats(samples):
    durations = sorted(s.duration for s in samples if s.duration is not None)
    st = {"samples": len(samples), "timed": len(durations),
          "total_ns": sum(durations)}
    if durations:
        n = len(durations)
        mean = st["total_ns"] / n
        st["min_ns"], st["max_ns"] = durations[0], durations[-1]
        st["avg_ns"] = mean
        st["stddev_ns"] = (math.sqrt(sum((d - mean) ** 2 for d in durations) / (n - 1))
                           if n > 1 else 0.0)
        for pct, name in PERCENTILE_FIELDS:
            st[name] = percentile(durations, pct)
    if samples and samples[0].sched:
        st.update(sched_stats(samples))
    return st


def perf(args):
    out = subprocess.run(["perf"] + args, capture_output=True, text=True, check=False)
    if out.returncode:
        raise RuntimeError(f"perf {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def report(data, args, json_out=True):
    out = perf(["kvm-events", "report", "-i", data] + args + (["--json"] if json_out else []))
    return json.loads(out) if json_out else out


def compare_key(case, name, got, want):
    if "switched" not in want:
        # no context switch records: no split
        for field in SCHED_KEY_FIELDS:
            if field in got:
                fail(case, f"{name} has {field} without context switch records")
    for field, value in want.items():
        if field in PERCENTILE_NAMES or field in SCHED_PERCENTILES:
            continue
        if field in ("avg_ns", "stddev_ns"):
            # printed with 3 decimals
            if abs(got.get(field, -1) - value) > 1e-3 + 1e-9 * value:
                fail(case, f"{name} {field} {got.get(field)} != {value}")
        elif got.get(field) != value:
            fail(case, f"{name} {field} {got.get(field)} != {value}")
    if not want["timed"]:
        return
    exact = want["timed"] <= EXACT_MAX
    if got.get("percentiles_exact") != exact:
        fail(case, f"{name} percentiles_exact {got.get('percentiles_exact')} != {exact}")
    for field in ("p50_ns", "p90_ns", "p99_ns", "p99_9_ns") + SCHED_PERCENTILES:
        if field not in want:
            continue
        value = want[field]
        if field not in got:
            fail(case, f"{name} has no {field}")
        elif value is None or got[field] is None:
            if got[field] != value:
                fail(case, f"{name} {field} {got[field]} != {value}")
        elif exact and got.get(field) != value:
            fail(case, f"{name} {field} {got.get(field)} != {value}")
        elif not exact and abs(got.get(field, -1) - value) > BOUND * value:
            fail(case, f"{name} {field} {got.get(field)} not within 0.4% of {value}")


# Names the report adds to these keys, after a slash
KEY_NAMES = {"0x830:W": "X2APIC_ICR", "0x6e0:W": "IA32_TSC_DEADLINE", "0xc0000080:R": "EFER",
             "5": "KICK_CPU", "10": "SEND_IPI", "11": "SCHED_YIELD"}


def strip_names(case, got):
    """Checks the names of well-known keys, then drops every name."""
    for k in got["keys"]:
        key, _, name = k["key"].partition("/")
        if key in KEY_NAMES and name != KEY_NAMES[key]:
            fail(case, f"{k['key']}: expected the name {KEY_NAMES[key]}")
        k["key"] = key
    return got


def untimed_of(samples):
    return sum(1 for s in samples
               if s.duration is None and (s.analysis, s.key) not in NO_TIME_KEYS)


def vcpu_of(comms):
    """--per-vcpu's group: the VM's pid and comm, and the vcpu id."""
    return lambda s: (s.pid, comms[s.pid], s.vcpu)


def got_group(k, per_vcpu):
    if not per_vcpu:
        return k["group"]
    if k["group"] != k["vcpu"]:
        fail("--per-vcpu", f"{k['key']}: group {k['group']} != vcpu {k['vcpu']}")
    return (k["pid"], k["comm"], k["vcpu"])


def check_sched_totals(case, data, t, selected, everything):
    """The totals' split: the sums over the selected timed events, and the
    switch records of the file; none of it without switch records"""
    if not everything or not everything[0].sched:
        for field in SCHED_TOTALS:
            if field in t:
                fail(case, f"totals.{field} without context switch records")
        return
    header, _ = read_truth(data)
    # halt: no event is split, nor are the totals
    want = dict.fromkeys(SCHED_SUMS, None if everything[0].analysis == "halt" else 0)
    for s in selected:
        if s.duration is None or s.offcpu is None:
            continue
        for part, value in zip(SCHED_PARTS, sched_parts(s)):
            want[f"{part}_ns"] += value
        want["switched"] += s.offcpu > 0
    want["switch_records"] = header["switch_records"]
    for field, value in want.items():
        if t.get(field, "absent") != value:
            fail(case, f"totals.{field} {t.get(field, 'absent')} != {value}")


def check(case, data, args, selected, everything, group_of=None, got=None):
    """Run the report with args, or take its JSON got; selected are the
    samples it must keep."""
    got = strip_names(case, got if got is not None else report(data, args))
    groups = {}
    for s in selected:
        groups.setdefault((group_of(s) if group_of else 0, s.key), []).append(s)
    per_vcpu = "--per-vcpu" in args
    got_keys = {(got_group(k, per_vcpu), k["key"]): k for k in got["keys"]}
    if len(got_keys) != len(got["keys"]):
        fail(case, "two keys of the same group have the same name")
    if set(got_keys) != set(groups):
        fail(case, f"keys {sorted(got_keys)} != {sorted(groups)}")
        return got
    for gk, samples in groups.items():
        compare_key(case, gk, got_keys[gk], key_stats(samples))
    t = got["totals"]
    want = {"samples": len(selected), "filtered": len(everything) - len(selected),
            "total_ns": sum(s.duration or 0 for s in selected)}
    for field, value in want.items():
        if t[field] != value:
            fail(case, f"totals.{field} {t[field]} != {value}")
    if t["no_end"] + t["no_begin"] != untimed_of(selected):
        fail(case, f"no_end + no_begin {t['no_end'] + t['no_begin']} != {untimed_of(selected)}")
    if t["read"] != t["samples"] + t["paired_ends"] + t["filtered"] + t["other"]:
        fail(case, f"buckets do not add up to read {t['read']}")
    check_sched_totals(case, data, t, selected, everything)
    return got


def expected_table(analysis, vcpu, sort, selected, filtered):
    """The report's table for these samples, as the RFC lays it out."""
    keys = {}
    for s in selected:
        k = keys.setdefault(s.full_key, [0, 0, 0])
        k[0] += 1
        if s.duration is not None:
            k[1] += 1
            k[2] += s.duration
    if sort == "time":
        order = sorted(keys, key=lambda k: (-keys[k][2], k.encode()))
    else:
        order = sorted(keys, key=lambda k: (-keys[k][0], k.encode()))
    keyed = sum(v[0] for v in keys.values())
    total = sum(v[2] for v in keys.values())
    untimed = untimed_of(selected)
    head = ("Analyze events for all VCPUs:" if vcpu == "all"
            else f"Analyze events for VCPU {vcpu}:")
    # The key column fits the longest key, and is at least 20 wide.
    width = max([20] + [len(k) for k in keys])
    out = [f"\n\n{head}\n\n",
           "%*s %10s %13s %13s %15s\n\n" % (width, COLUMNS[analysis], "Samples", "Samples%",
                                             "Time%", "Avg time")]
    for k in order:
        smp, paired, ns = keys[k]
        out.append("%*s %10d %12.2f%%" % (width, k, smp, smp * 100 / keyed if keyed else 0))
        if paired == 0:
            out.append(" %13s %14s\n" % ("-", "-"))
        else:
            out.append(" %12.2f%% %12.2fus\n" % (ns * 100 / total if total else 0,
                                                 ns / paired / 1000))
    out.append("\nTotal Samples:%d, Total events handled time:%.2fus.\n" % (keyed, total / 1000))
    if untimed:
        out.append("Samples without time:%d (no end event:%d, no begin event:0).\n"
                   % (untimed, untimed))
    if filtered:
        out.append("Filtered out:%d samples.\n" % filtered)
    return "".join(out)


def check_table(case, data, analysis, vcpu, sort, everything):
    args = ["--event", analysis, "--key", sort]
    selected = everything
    if vcpu != "all":
        args += ["--vcpu", str(vcpu)]
        selected = [s for s in everything if s.vcpu == vcpu]
    want = expected_table(analysis, vcpu, sort, selected, len(everything) - len(selected))
    got = report(data, args, json_out=False)
    if got != want:
        fail(f"{case} table {' '.join(args)}",
             "differs from the ground truth:\n--- expected\n" + want + "--- got\n" + got)


# --key: every name and the statistic it sorts by, all descending but the name
SORT_KEYS = {"samples": "samples", "samples%": "samples", "time%": "time", "total": "time",
             "min": "min", "max": "max", "avg": "mean", "stddev": "stddev", "p50": "p50",
             "p90": "p90", "p99": "p99", "p99.9": "p99.9", "name": "name",
             "sample": "samples", "time": "time", "mean": "mean", "max_t": "max",
             "min_t": "min", "mean_t": "mean", "ev_name": "name"}
# Several keys: each breaks the ties of the one before
SORT_LISTS = ("p99,samples", "time,samples", "min_t,samples%", "max,ev_name", "avg,total",
              "stddev,sample", "p50,p90,samples")
PERCENTILES = ("p50", "p90", "p99", "p99.9")


def sort_value(stat, st):
    """A key's statistic as the report sorts by it: 0 where it has no time."""
    if stat == "samples":
        return st["samples"]
    if stat == "time":
        return st["total_ns"]
    if stat == "mean":
        return st["total_ns"] / st["timed"] if st["timed"] else 0
    if not st["timed"]:
        return 0
    # min_ns, ..., p99_9_ns: a name the checker does not know is its own bug
    return st[stat.replace(".", "_") + "_ns"]


def sort_order(stats, names):
    """The keys sorted by each of @names in turn, then by name."""
    def order(k):
        out = []
        for name in names.split(","):
            if SORT_KEYS[name] == "name":
                break
            out.append(-sort_value(SORT_KEYS[name], stats[k]))
        return out + [k.encode()]
    return sorted(stats, key=order)


def check_sort(case, data, analysis, samples, every_name):
    by_key = {}
    for s in samples:
        by_key.setdefault(s.key, []).append(s)
    stats = {k: key_stats(v) for k, v in by_key.items()}
    inexact = any(st["timed"] > EXACT_MAX for st in stats.values())
    names = list(SORT_KEYS) if every_name else ["sample", "time", "mean", "min", "max",
                                                "stddev", "p50", "p90", "p99", "p99.9",
                                                "name"]
    for sort in names + list(SORT_LISTS):
        got = [k["key"].partition("/")[0]
               for k in report(data, ["--event", analysis, "--key", sort])["keys"]]
        want = sort_order(stats, sort)
        # Percentiles past the exact range are within the bound only: compare sets there.
        if inexact and any(SORT_KEYS[n] in PERCENTILES for n in sort.split(",")):
            want, got = sorted(want), sorted(got)
        if got != want:
            fail(f"{case} --key {sort}", f"order {got} != {want}")


def slowest(samples, n):
    """--top's n events: the timed ones, slowest first, the earliest first
    among equals, then those cut off from their begin or end, by time."""
    timed = sorted((s for s in samples if s.duration is not None),
                   key=lambda s: (-s.duration, s.time))
    return (timed + sorted((s for s in samples if s.duration is None and
                            (s.analysis, s.key) not in NO_TIME_KEYS),
                           key=lambda s: s.time))[:n]


def top_of(samples):
    """--top's JSON objects for these samples"""
    return [{"time_ns": s.time, "vcpu": s.vcpu, "pid": s.pid, "tid": s.tid, "key": s.key,
             "duration_ns": s.duration, "rip": f"{s.rip:#x}" if s.rip else None}
            for s in samples]


def time_cell(ns):
    """A time as the tables print it: in us, or ms or s past 12 digits."""
    for unit, div in (("us", 1e3), ("ms", 1e6), ("s", 1e9)):
        digits = "%.2f" % (ns / div)
        if len(digits) <= 12:
            break
    return digits + unit


def check_top(case, data, analysis, samples, n):
    """The slowest events, with their time, vcpu, pid, tid and guest rip
    as .events has them, then one footer, after every table.  Those cut
    off from their begin or end come after the timed ones, by time."""
    case = f"{case} --top {n}"
    text = report(data, ["--event", analysis, "--top", str(n)], json_out=False)
    timed = slowest(samples, n)
    head, _, top = text.partition("\nSlowest ")
    lines = top.splitlines()
    if not lines or lines[0] != f"{len(timed)} events:":
        fail(case, f"'Slowest {lines[0] if lines else ''}' != 'Slowest {len(timed)} events:'")
        return
    rows, footer = lines[4:4 + len(timed)], lines[4 + len(timed):]
    got = [tuple(r.split()) for r in rows]
    want = [(f"{s.time // 10**9}.{s.time % 10**9 // 1000:06d}",
             "?" if s.vcpu is None else str(s.vcpu), str(s.pid), str(s.tid),
             s.key, "-" if s.duration is None else time_cell(s.duration),
             f"0x{s.rip:x}") for s in timed]
    got = [g[:4] + (g[4].partition("/")[0],) + g[5:] for g in got]
    if got != want:
        fail(case, f"{got} != {want}")
    if "Total Samples:" in head or "Samples without time:" in head:
        fail(case, "the footer begins before the slowest events")
    if footer[:1] != [""] or not footer[1:2] or not footer[1].startswith("Total Samples:"):
        fail(case, f"no footer right after the slowest events: {footer[:2]}")
    # JSON: every column of the text, exact
    got = report(data, ["--event", analysis, "--top", str(n)]).get("top")
    if got is not None:
        for o in got:
            o["key"] = o["key"].partition("/")[0]
    want = top_of(timed)
    if got != want:
        fail(f"{case} --json", f"{got} != {want}")


def log2_bucket(ns):
    """The bucket's lower bound: 0 for 0 ns, else the power of two at or below"""
    return 0 if ns == 0 else 1 << (ns.bit_length() - 1)


def histograms_of(samples):
    """Per key, the buckets from the first non-empty one to the last, as JSON has them"""
    counts = {}
    for s in samples:
        if s.duration is not None:
            cell = counts.setdefault(s.key, {})
            low = log2_bucket(s.duration)
            cell[low] = cell.get(low, 0) + 1
    want = {}
    for key, cell in counts.items():
        lows = sorted(cell)
        low, buckets = lows[0], []
        while low <= lows[-1]:
            high = 1 if low == 0 else 2 * low
            buckets.append({"low_ns": low, "high_ns": high if high < 1 << 63 else None,
                            "count": cell.get(low, 0)})
            low = high
        want[key] = buckets
    return want


def check_histogram(case, data, analysis, samples):
    text = report(data, ["--event", analysis, "--histogram"], json_out=False)
    got, key = {}, None
    for line in text.splitlines():
        if line.endswith(" (ns):"):
            key = line[:-len(" (ns):")].partition("/")[0]
            got[key] = []
        elif key and line.startswith("["):
            low, high = line[1:line.index(")")].split(", ")
            got[key].append({"low_ns": int(low), "high_ns": None if high == "..." else int(high),
                             "count": int(line.split(")")[1].split()[0])})
    want = histograms_of(samples)
    if got != want:
        fail(f"{case} --histogram", f"{sorted(got.items())} != {sorted(want.items())}")
    js = report(data, ["--event", analysis, "--histogram"])
    got = {k["key"].partition("/")[0]: k.get("histogram") for k in js["keys"]}
    want = {k["key"].partition("/")[0]: want.get(k["key"].partition("/")[0], [])
            for k in js["keys"]}
    if got != want:
        fail(f"{case} --histogram --json", f"{sorted(got.items())} != {sorted(want.items())}")


# The CSV's columns: record, then those of a key, a --per-vcpu key's vcpu
# (pid and vcpu also a top event's), a bucket and a top event
CSV_KEY = ["group", "key", "samples", "timed", "samples_pct", "time_pct", "total_ns",
           "min_ns", "max_ns", "avg_ns", "stddev_ns", "p50_ns", "p90_ns", "p99_ns",
           "p99_9_ns", "idle"]
CSV_VCPU = ["pid", "comm", "vcpu"]
CSV_BUCKET = ["low_ns", "high_ns", "count"]
CSV_TOP = ["time_ns", "tid", "duration_ns", "rip"]
CSV_TOP_ROW = ["key", "pid", "vcpu"] + CSV_TOP
CSV_FLOATS = ("samples_pct", "time_pct", "avg_ns", "stddev_ns")


def csv_cell(field, cell):
    """A CSV cell as the JSON value it stands for"""
    if cell == "":
        return None
    if field == "idle":
        return cell == "1"
    if field in ("key", "rip", "comm"):
        return cell
    return float(cell) if field in CSV_FLOATS else int(cell)


def csv_rows(case, text):
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    header = CSV_KEY + CSV_VCPU + CSV_BUCKET + CSV_TOP
    if lines[0].split(",") != ["record"] + header:
        fail(case, f"header {lines[0]} != record,{','.join(header)}")
    rows = {"key": [], "bucket": [], "top": []}
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        fields = {"key": CSV_KEY + CSV_VCPU, "bucket": ["group", "key"] + CSV_VCPU + CSV_BUCKET,
                  "top": CSV_TOP_ROW}.get(r["record"])
        if fields is None:
            fail(case, f"a row of record {r['record']}")
            continue
        for field in header:
            if field not in fields and r[field] != "":
                fail(case, f"{r['record']} row fills {field}")
        rows[r["record"]].append({f: csv_cell(f, r[f]) for f in fields})
    return rows


def json_as_csv(obj, fields):
    """A JSON object as its CSV row: only those fields, absent ones None"""
    return {f: obj.get(f) for f in fields}


def check_csv(case, data, analysis, group=()):
    args = ["--event", analysis, "--top", "5", "--histogram", *group]
    js = report(data, args)
    text = report(data, args + ["--csv"], json_out=False)
    case = " ".join([case, *group, "--csv"])
    rows = csv_rows(case, text)
    want = [json_as_csv(k, CSV_KEY + CSV_VCPU) for k in js["keys"]]
    for got, k in zip(rows["key"], want):
        for field in CSV_FLOATS:
            if got[field] is not None and k[field] is not None and \
               abs(got[field] - k[field]) < 1e-9:
                got[field] = k[field]
    if rows["key"] != want:
        fail(case, f"keys {rows['key']} != the JSON's {want}")
    want = [dict(json_as_csv(k, ["group", "key"] + CSV_VCPU), **b) for k in js["keys"]
            for b in k["histogram"]]
    if rows["bucket"] != want:
        fail(case, f"buckets {rows['bucket']} != the JSON's {want}")
    want = [json_as_csv(o, CSV_TOP_ROW) for o in js["top"]]
    if rows["top"] != want:
        fail(case, f"top {rows['top']} != the JSON's {want}")
    comments = dict(w.split("=", 1) for line in text.splitlines() if line.startswith("#")
                    for w in line[1:].split())
    span = {f: int(v) if v else None for f, v in comments.items() if f in js["span"]}
    if comments.get("schema_version") != str(js["schema_version"]) or span != js["span"]:
        fail(case, f"comments {comments} != the JSON's schema_version and span")


def check_span(case, data, samples):
    """span: the first and last kvm samples, and the header's times"""
    js = report(data, ["--event", samples[0].analysis])
    header, _ = read_truth(data)
    times = [s.time for s in samples]
    if js["span"]["first_sample_ns"] > min(times) or \
       js["span"]["last_sample_ns"] < max(times):
        fail(case, f"span {js['span']} does not hold the samples {min(times)}-{max(times)}")
    if "header_first" in header and \
       (js["span"]["header_first_sample_ns"], js["span"]["header_last_sample_ns"]) != \
       (header["header_first"], header["header_last"]):
        fail(case, f"span {js['span']} != the header's {header['header_first']}-"
             f"{header['header_last']}")


def titles(text):
    return [line for line in text.splitlines() if line.startswith("Analyze events for ")]


def check_per_vcpu(case, data, analysis, everything, comms):
    """One table per (VM, vcpu id), titled with both; --csv has them too."""
    base = ["--event", analysis, "--per-vcpu"]
    check(case + " --per-vcpu", data, base, everything, everything,
          group_of=vcpu_of(comms))
    pairs = sorted({(s.pid, s.vcpu) for s in everything})
    want = [f"Analyze events for VM pid {pid} ({comms[pid]}) VCPU {vcpu}:"
            for pid, vcpu in pairs]
    got = titles(report(data, base, json_out=False))
    if got != want:
        fail(case + " --per-vcpu", f"titles {got} != {want}")
    text = report(data, base + ["--csv"], json_out=False)
    rows = csv_rows(case + " --per-vcpu --csv", text)["key"]
    got = sorted((r["pid"], r["comm"], r["vcpu"], r["key"].partition("/")[0]) for r in rows)
    want = sorted({(s.pid, comms[s.pid], s.vcpu, s.key) for s in everything})
    if got != want:
        fail(case + " --per-vcpu --csv", f"pid,comm,vcpu,key {got[:4]}... != {want[:4]}...")
    # Its buckets and top events, as the JSON has them
    check_csv(case, data, analysis, ["--per-vcpu"])


def check_vm_vcpu(case, data, analysis, everything, pid, vcpu):
    """-p and --vcpu: that vcpu id of that VM alone, and the title says so."""
    args = ["--event", analysis, "-p", str(pid), "--vcpu", str(vcpu)]
    check(f"{case} -p {pid} --vcpu {vcpu}", data, args,
          [s for s in everything if s.pid == pid and s.vcpu == vcpu], everything)
    got = titles(report(data, args, json_out=False))
    want = [f"Analyze events for VM pid {pid}, VCPU {vcpu}:"]
    if got != want:
        fail(f"{case} -p {pid} --vcpu {vcpu}", f"title {got} != {want}")


def cmd_report(data, scenario, tables):
    events = read_events(data)
    comms = read_comms(data)
    if not events:
        fail(scenario, f"{data}.events has no sample")
    if tables:
        check_truth_table(data, events)
    # vmx has exits under 1us: the histogram's nanosecond buckets are tested.
    if scenario == "vmx" and not any(s.duration is not None and s.duration < 1000
                                     for s in events):
        fail(scenario, "no sample under 1us")
    for analysis in sorted({s.analysis for s in events}):
        everything = [s for s in events if s.analysis == analysis]
        case = f"{scenario} {analysis}"
        base = ["--event", analysis]
        times = sorted(s.time for s in everything)
        start, end = times[len(times) // 4], times[3 * len(times) // 4]
        window = f"{start // 10**9}.{start % 10**9:09d},{end // 10**9}.{end % 10**9:09d}"
        # arm64 and riscv64 record no vcpu id: no --vcpu, no --per-vcpu.
        has_vcpu = all(s.vcpu is not None for s in everything)

        # The table's keys are those of .events, but where the report
        # adds a name (x86 MSRs and hypercalls): those the JSON checks.
        named = analysis == "msr" or any(s.key in KEY_NAMES for s in everything)
        if tables:
            for vcpu in ("all", 1) if has_vcpu else ("all",):
                for sort in ("sample", "time") if not named else ():
                    check_table(case, data, analysis, vcpu, sort, everything)
            continue
        check(case, data, base + ["--stats"], everything, everything)
        if has_vcpu:
            check(case + " --vcpu 1", data, base + ["--vcpu", "1"],
                  [s for s in everything if s.vcpu == 1], everything)
            check(case + " --vcpu 0,2-3", data, base + ["--vcpu", "0,2-3"],
                  [s for s in everything if s.vcpu in (0, 2, 3)], everything)
        check(case + " --duration 50", data, base + ["--duration", "50"],
              [s for s in everything if s.duration is not None and s.duration >= 50000],
              everything)
        check(case + " --time " + window, data, base + ["--time", window],
              [s for s in everything if start <= s.time <= end], everything)
        pid = everything[0].pid
        check(case + f" -p {pid}", data, base + ["-p", str(pid)],
              [s for s in everything if s.pid == pid], everything)
        if has_vcpu:
            check_per_vcpu(case, data, analysis, everything, comms)
        if has_vcpu and len(comms) > 1:
            for p in sorted(comms):
                check_vm_vcpu(case, data, analysis, everything, p, 1)
        check(case + " --per-vm", data, base + ["--per-vm"], everything, everything,
              group_of=lambda s: s.pid)
        check_sort(case, data, analysis, everything, analysis == "vmexit")
        check_top(case, data, analysis, everything, 5)
        if untimed_of(everything):
            check_top(case, data, analysis, everything, len(everything))
        check_histogram(case, data, analysis, everything)
        check_csv(case, data, analysis)
        check_span(case, data, everything)


# The headers of the time columns: the last of a table stands out by one.
TIME_HEADERS = {"Total time", "Min time", "Max time", "Avg time", "Stddev",
                "p50", "p90", "p99", "p99.9"}


def ends(line, sep):
    """Where each cell of a line ends: cells are split by runs of sep."""
    return [m.end() for m in re.finditer(r"\S+(?: \S+)*" if sep == "  " else r"\S+", line)]


def text_tables(text):
    """(header, rows) of each table: after its title line and a blank line,
    the header, a blank line, then the rows up to the next blank line."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not re.match(r"(Analyze events for .*|Idle: .*|Slowest \d+ events):$", line):
            continue
        rows = []
        for row in lines[i + 4:]:
            if not row:
                break
            rows.append(row)
        yield lines[i + 2], rows


def cmd_columns(data, analysis, args):
    """Every row as wide as its header, every cell ending where its header
    ends (the original layout's last header, Avg time, one further), and
    the key column as wide as the longest key, at least 20: of all the
    tables of the report, which line up with each other, or of --top's."""
    case = f"{data} --event {analysis} {' '.join(args)}"
    text = report(data, ["--event", analysis] + args, json_out=False)
    tables = list(text_tables(text))
    if not tables or not all(rows for _, rows in tables):
        fail(case, "no table with rows:\n" + text)
        return
    keys = max([20] + [len(r.split()[0]) for header, rows in tables
                       if header.split()[0] != "Time" for r in rows])
    for header, rows in tables:
        want = ends(header, "  ")
        top = header.split()[0] == "Time"
        if top:
            # Time, VCPU, PID and TID come first: 16, 10, 8 and 8 wide
            col, width = 4, 46 + max([20] + [len(r.split()[4]) for r in rows])
        else:
            col, width = 0, keys
        if want[col] != width:
            fail(case, f"key column ends at {want[col]}, not {width}:\n{header}")
        if not top and header.split("  ")[-1].strip() in TIME_HEADERS:
            want[-1] -= 1
        for row in rows:
            if len(row) != want[-1] or ends(row, " ") != want:
                fail(case, f"row not in line with the header:\n{header}\n{row}")
                break


def seconds(path):
    """The recording's span, from perf script's first and last sample."""
    times = [float(t.rstrip(":")) for t in perf(["script", "-i", path, "-F", "time"]).split()]
    return times[-1] - times[0]


def in_window(s, window):
    return window is None or window[0] <= s.time <= window[1]


def diff_side(path, analysis, secs, window):
    keys = {}
    for s in read_events(path):
        if s.analysis == analysis and in_window(s, window):
            keys.setdefault(s.key, []).append(s)
    side = {}
    for key, samples in keys.items():
        st = key_stats(samples)
        side[key] = {"samples": st["samples"],
                     "Samples/s": st["samples"] / secs,
                     "Time/s": st["total_ns"] / 1000 / secs,
                     "Avg time": st["total_ns"] / st["timed"] / 1000 if st["timed"] else None,
                     "exact": st["timed"] <= EXACT_MAX}
        for name, field in (("Min time", "min_ns"), ("Max time", "max_ns"),
                            ("Stddev", "stddev_ns"), ("p50", "p50_ns"), ("p90", "p90_ns"),
                            ("p99", "p99_ns"), ("p99.9", "p99_9_ns")):
            side[key][name] = st[field] / 1000 if st["timed"] else None
    return side


def expected_change(old, new):
    if old is None and new is None:
        return "-"
    if old is None:
        return "new"
    if new is None:
        return "gone"
    if old == 0:
        return "0.00%" if new == 0 else "-"
    return "%+.2f%%" % ((new - old) * 100 / old)


# diff's column of each --key statistic
DIFF_COLUMNS = {"samples": "Samples/s", "time": "Time/s", "mean": "Avg time",
                "min": "Min time", "max": "Max time", "stddev": "Stddev", "p50": "p50",
                "p90": "p90", "p99": "p99", "p99.9": "p99.9"}
DIFF_ALWAYS = ("Samples/s", "Avg time", "p99")
DIFF_GROUP = 38         # " %13s %13s %9s": a statistic's old, new and change


def diff_columns(sort):
    cols = []
    for name in sort.split(","):
        col = DIFF_COLUMNS.get(SORT_KEYS[name])
        if col and col not in cols:
            cols.append(col)
    return cols + [c for c in DIFF_ALWAYS if c not in cols]


def diff_tables(lines, start, analysis):
    """The header, then rows up to a blank line: ([statistics], [labels], rows)."""
    head, labels = lines[start], lines[start + 1]
    # The key column ends with the analysis's name, right-aligned.
    w = labels.index(COLUMNS[analysis]) + len(COLUMNS[analysis])
    # The last change column has no header on the first line.
    n = (len(head) - w + 10) // DIFF_GROUP
    cols = [head[w + DIFF_GROUP * j:w + DIFF_GROUP * j + 14].strip() for j in range(n)]
    names = [labels[w + DIFF_GROUP * j:w + DIFF_GROUP * j + 28].split() for j in range(n)]
    rows = []
    for line in lines[start + 3:]:
        if not line.strip():
            break
        rows.append(line.split())
    return cols, names, rows


def diff_cell_ok(what, g, w, side):
    value = float(g.rstrip("us"))
    if what in ("Samples/s", "Time/s"):
        # the span is known to the microsecond only
        return abs(value - w) <= 1e-4 * w + 0.01
    if what in PERCENTILE_COLUMNS and not side["exact"]:
        return abs(value - w) <= BOUND * w + 0.005
    if what == "Stddev":
        return abs(value - w) <= 0.0051
    return g == "%.2f%s" % (w, "" if what == "Samples/s" else "us")


PERCENTILE_COLUMNS = ("p50", "p90", "p99", "p99.9")


def diff_change_value(o, n, what):
    """new - old, where a side without the value counts as 0"""
    return ((n[what] if n and n[what] is not None else 0) -
            (o[what] if o and o[what] is not None else 0))


def diff_in_order(o_keys, n_keys, sort, a, b):
    """May row @a come before row @b?  Near ties of inexact values pass."""
    for name in sort.split(","):
        what = DIFF_COLUMNS.get(SORT_KEYS[name])
        if not what:
            break
        da = abs(diff_change_value(o_keys.get(a), n_keys.get(a), what))
        db = abs(diff_change_value(o_keys.get(b), n_keys.get(b), what))
        if da == db:
            continue
        exact = what not in ("Samples/s", "Time/s", "Stddev") and all(
            s is None or s["exact"] for s in (o_keys.get(a), n_keys.get(a),
                                              o_keys.get(b), n_keys.get(b)))
        if not exact and abs(da - db) <= 1e-3 * max(da, db) + 0.01:
            return True
        return da > db
    return a.encode() < b.encode()


def check_diff_rows(case, rows, cols, o_keys, n_keys):
    for row in rows:
        key = row[0].partition("/")[0]
        o, n = o_keys.get(key), n_keys.get(key)
        for i, what in enumerate(cols):
            ow = o[what] if o else None
            nw = n[what] if n else None
            cells = row[1 + 3 * i:4 + 3 * i]
            for g, w, side in ((cells[0], ow, o), (cells[1], nw, n)):
                if w is None:
                    if g != "-":
                        fail(case, f"{key} {what}: {g}, expected -")
                elif not diff_cell_ok(what, g, w, side):
                    fail(case, f"{key} {what}: {g}, expected {w:.4f}")
            # the change is exact where both values are
            if what not in ("Samples/s", "Time/s", "Stddev") and \
               all(s is None or s["exact"] for s in (o, n)):
                want = expected_change(ow, nw)
                if cells[2] != want:
                    fail(case, f"{key} {what} change: {cells[2]}, expected {want}")
            elif o is None or n is None:
                if cells[2] != expected_change(ow, nw):
                    fail(case, f"{key} {what} change: {cells[2]}, expected "
                         f"{expected_change(ow, nw)}")


def diff_change(old, new):
    """The JSON's change in percent: None where the table shows no number"""
    if old is None or new is None or (old == 0 and new != 0):
        return None
    return 0.0 if old == 0 else (new - old) * 100 / old


def close(got, want, rel):
    if got is None or want is None:
        return got is None and want is None
    return abs(got - want) <= rel * abs(want) + 1e-6


def check_diff_json(case, old, new, analysis, o_keys, n_keys, o_s, n_s, opts):
    args = ["kvm-events", "diff", "--event", analysis] + opts + [old, new]
    js = json.loads(perf(args + ["--json"]))
    case += " --json"
    if js["schema_version"] != 1 or js["analysis"] != analysis:
        fail(case, f"schema_version {js['schema_version']}, analysis {js['analysis']}")
    for side, path, secs in (("old", old, o_s), ("new", new, n_s)):
        if js[side]["input"] != path or not close(js[side]["seconds"], secs, 1e-5):
            fail(case, f"{side} {js[side]}, expected {path} over {secs:.6f}s")
    got_keys = [k["key"].partition("/")[0] for k in js["keys"]]
    if sorted(got_keys) != sorted(set(o_keys) | set(n_keys)):
        fail(case, f"keys {got_keys}")
        return
    for k, name in zip(js["keys"], got_keys):
        sides = []
        for side, truth in (("old", o_keys.get(name)), ("new", n_keys.get(name))):
            got = k[side]
            sides.append(truth)
            if truth is None:
                if got is not None:
                    fail(case, f"{name} {side}: {got}, expected null")
                continue
            p99 = truth["p99"] * 1000 if truth["p99"] is not None else None
            avg = truth["Avg time"] * 1000 if truth["Avg time"] is not None else None
            ok = (got is not None and got["samples"] == truth["samples"] and
                  close(got["samples_per_s"], truth["Samples/s"], 1e-4) and
                  close(got["avg_ns"], avg, 1e-9) and
                  close(got["p99_ns"], p99, 0 if truth["exact"] else BOUND))
            if not ok:
                fail(case, f"{name} {side}: {got}, expected {truth}")
        o, n = sides
        if all(t is None or t["exact"] for t in sides):
            for field, what in (("avg_change_pct", "Avg time"), ("p99_change_pct", "p99")):
                want = diff_change(o and o[what], n and n[what])
                if not close(k[field], want, 1e-6):
                    fail(case, f"{name} {field} {k[field]}, expected {want}")
    rows = list(csv.DictReader(io.StringIO("\n".join(
        line for line in perf(args + ["--csv"]).splitlines() if not line.startswith("#")))))
    for r, k in zip(rows, js["keys"]):
        flat = {"key": k["key"]}
        for side in ("old", "new"):
            for field in ("samples", "samples_per_s", "avg_ns", "p99_ns"):
                flat[f"{side}_{field}"] = k[side][field] if k[side] else None
        for field in ("samples_per_s_change_pct", "avg_change_pct", "p99_change_pct",
                      "time_per_s_change_ns"):
            flat[field] = k[field]
        cells = {f: (None if v == "" else v if f == "key" else float(v)) for f, v in r.items()}
        if cells != flat:
            fail(case.replace("--json", "--csv"), f"{cells} != the JSON's {flat}")
    if len(rows) != len(js["keys"]):
        fail(case.replace("--json", "--csv"), f"{len(rows)} rows, {len(js['keys'])} keys")


def idle_exits(path):
    with open(path + ".truth") as f:
        for line in f:
            if line.startswith("# idle exits:"):
                return set(line.split()[3:])
    return set()


def cmd_diff(old, new, analysis, args):
    """diff [--key K] [--time START,END] [--split-idle]: each option is in @args."""
    case = f"diff --event {analysis} {' '.join(args)}"
    sort = args[args.index("--key") + 1] if "--key" in args else "time"
    window = None
    if "--time" in args:
        start, end = args[args.index("--time") + 1].split(",")
        window = tuple(int(t.partition(".")[0]) * 10**9 + int(t.partition(".")[2].ljust(9, "0"))
                       for t in (start, end))
    split_idle = "--split-idle" in args
    out = perf(["kvm-events", "diff", "--event", analysis] + args + [old, new])
    lines = out.splitlines()
    title = [i for i, line in enumerate(lines) if line.startswith("Compare ")]
    spans = re.match(r"^Compare (.*) \(([0-9.]+)s\) with (.*) \(([0-9.]+)s\):$",
                     lines[title[0]]) if title else None
    if not spans:
        fail(case, "no 'Compare OLD (Ns) with NEW (Ns):' line")
        return
    secs = []
    for path, got in ((old, spans.group(2)), (new, spans.group(4))):
        times = [float(t.rstrip(":")) * 1e9
                 for t in perf(["script", "-i", path, "-F", "time"]).split()]
        first, last = times[0], times[-1]
        if window:
            first, last = max(first, window[0]), min(last, window[1])
        want = max(last - first, 0) / 1e9
        secs.append(want)
        # perf script prints microseconds
        if abs(float(got) - want) > 2e-6:
            fail(case, f"{path} span {got}s, expected {want:.6f}s")
    o_keys = diff_side(old, analysis, secs[0], window)
    n_keys = diff_side(new, analysis, secs[1], window)
    check_diff_json(case, old, new, analysis, o_keys, n_keys, secs[0], secs[1], args)

    # Compare, blank, two header lines, blank, rows, blank
    cols, labels, rows = diff_tables(lines, title[0] + 2, analysis)
    tables = [rows]
    rest = title[0] + 6 + len(rows)
    if rest < len(lines) and lines[rest].startswith("Idle:"):
        # Idle:, blank, two header lines, blank, rows, blank
        cols2, _, idle_rows = diff_tables(lines, rest + 2, analysis)
        if cols2 != cols:
            fail(case, f"idle table columns {cols2} != {cols}")
        tables.append(idle_rows)
        rest += 6 + len(idle_rows)
    if cols != diff_columns(sort):
        fail(case, f"columns {cols} != {diff_columns(sort)}")
    for label in labels:
        if label != [old[-13:], new[-13:]]:
            fail(case, f"header names the sides {label}, not {old[-13:]} and {new[-13:]}")
    sorted_by = [DIFF_COLUMNS.get(SORT_KEYS[n]) for n in sort.split(",")]
    sorted_by = sorted_by[:sorted_by.index(None)] if None in sorted_by else sorted_by
    want = "Sorted by" + "".join(f"{', then' if i else ''} the largest change of {c}"
                                 for i, c in enumerate(sorted_by))
    want += (", then" if sorted_by else "") + " name."
    if rest >= len(lines) or lines[rest] != want:
        fail(case, f"the last line is not '{want}'")

    idle = idle_exits(old) | idle_exits(new)
    got_keys = [row[0].partition("/")[0] for table in tables for row in table]
    if sorted(got_keys) != sorted(set(o_keys) | set(n_keys)):
        fail(case, f"keys {sorted(got_keys)} != {sorted(set(o_keys) | set(n_keys))}")
        return
    want_idle = set(got_keys) & idle if split_idle else set()
    got_idle = {row[0] for row in tables[1]} if len(tables) == 2 else set()
    if got_idle != want_idle:
        fail(case, f"idle table {sorted(got_idle)}, expected {sorted(want_idle)}")
    for table in tables:
        check_diff_rows(case, table, cols, o_keys, n_keys)
        keys = [row[0].partition("/")[0] for row in table]
        for a, b in zip(keys, keys[1:]):
            if not diff_in_order(o_keys, n_keys, sort, a, b):
                fail(case, f"{a} before {b}: not in the order of --key {sort}")


def cmd_accounting(data, script_samples, args):
    case = f"{data} {' '.join(args)}"
    r = report(data, args)
    header, _ = read_truth(data)
    t = r["totals"]
    checks = {
        "read == perf script samples": t["read"] == script_samples,
        "read == the truth's samples total": t["read"] == header.get("total"),
        "read == sum of events_read + other_events":
            t["read"] == sum(r["events_read"].values()) + t["other_events"],
        "read == samples + paired_ends + filtered + other + no_memory":
            t["read"] == t["samples"] + t["paired_ends"] + t["filtered"] + t["other"] +
            t["no_memory"],
        "samples == sum over keys": t["samples"] == sum(k["samples"] for k in r["keys"]),
        "untimed == no_end + no_begin":
            sum(k["samples"] - k["timed"] for k in r["keys"]) == t["no_end"] + t["no_begin"],
        "total_ns == sum over keys": t["total_ns"] == sum(k["total_ns"] for k in r["keys"]),
    }
    for name, ok in checks.items():
        if not ok:
            fail(case, f"{name}: {t}")


# The guest's pages that its first accesses fault in: its code (GPA
# 0x1000) and page 0, where it reads the counts of its loops.
GUEST_FIRST_TOUCH = 2
# Exits that the host causes, whatever the guest does; in a guest that
# runs for a few ms, fewer than its own exits.
HOST_EXITS = {"svm": ("interrupt", "nmi", "smi"),
              "vmx": ("EXTERNAL_INTERRUPT", "NMI_WINDOW", "PREEMPTION_TIMER")}


def guest_vmexits(vendor, n):
    """{key: (min, max)} of the bundled guest's exits"""
    mmio = n["write"] + n["read"]
    if vendor == "svm":
        return {"io": (n["out"] + n["in"],) * 2, "cpuid": (n["cpuid"],) * 2,
                "msr": (n["rdmsr"] + n["wrmsr"],) * 2, "hypercall": (n["hc"],) * 2,
                "hlt": (1, 1), "npf": (mmio, mmio + GUEST_FIRST_TOUCH)}
    # VMX, from KVM's code, as no VMX host was at hand: the first access
    # to an MMIO page is an EPT violation, which KVM answers with a
    # misconfigured entry, so later ones are misconfigs; the first VMMCALL
    # is a #UD, after which KVM has made it a VMCALL.
    return {"IO_INSTRUCTION": (n["out"] + n["in"],) * 2, "CPUID": (n["cpuid"],) * 2,
            "MSR_READ": (n["rdmsr"],) * 2, "MSR_WRITE": (n["wrmsr"],) * 2,
            "HLT": (1, 1), "EPT_VIOLATION": (0, 2 + GUEST_FIRST_TOUCH),
            "EPT_MISCONFIG": (max(mmio - 2, 0), mmio), "EXCEPTION_NMI": (0, 1),
            "VMCALL": (max(n["hc"] - 1, 0), n["hc"])}


def guest_tables(n):
    """{analysis: {key prefix: samples}} of the bundled guest, exact"""
    return {
        "mmio": {"0x80000:W": n["write"], "0x80010:R": n["read"]},
        "ioport": {"0x500:POUT": n["out"], "0x501:PIN": n["in"]},
        "msr": {"0x8b:R": n["rdmsr"], "0x8b:W": n["wrmsr"]},
        "hypercall": {"1": n["hc"]},
        "userspace": {"IO": n["out"] + n["in"], "MMIO": n["write"] + n["read"], "HLT": 1},
    }


def check_guest_exits(data, want, host_exits):
    """vmexit of DATA: each of WANT's keys within its (min, max), and no
    other key but HOST_EXITS, fewer than the guest's own"""
    exits = {k["key"]: k["samples"] for k in report(data, ["--event", "vmexit"])["keys"]}
    for key, (low, high) in want.items():
        got = exits.pop(key, 0)
        if not low <= got <= high:
            fail(f"{data} vmexit", f"{key}: {got} exits, expected "
                 f"{low if low == high else f'{low} to {high}'}")
    for key, got in exits.items():
        if key not in host_exits:
            fail(f"{data} vmexit", f"{key}: {got} exits the guest does not make")
    guest_exits = sum(low for low, _ in want.values())
    if sum(exits.values()) > guest_exits:
        fail(f"{data} vmexit", f"{exits}: more of the host's exits than the guest's "
             f"{guest_exits}")


def check_guest_tables(data, tables):
    for analysis, want in tables.items():
        got = {key_prefix(k["key"]): k["samples"] for k in
               report(data, ["--event", analysis])["keys"]}
        want = {k: v for k, v in want.items() if v}
        if got != want:
            fail(f"{data} {analysis}", f"keys {got}, expected {want}")


# The arm64 guest (tools/perf/tests/workloads/kvmguest-arm64.c): its
# MMIO addresses, and the exits the host causes, whatever the guest does.
ARM64_MMIO_WRITE, ARM64_MMIO_READ, ARM64_DONE = "0x20000000", "0x20000010", "0x20000020"
ARM64_HOST_EXITS = ("IRQ",)


def guest_arm64_vmexits(n):
    """{key: (min, max)} of the arm64 guest's exits: its accesses and the
    final store, its calls and sysreg reads, and the first fetch of its
    only page; it touches no other RAM"""
    mmio = n["write"] + n["read"] + 1
    return {"DABT_LOW": (mmio, mmio), "HVC64": (n["hvc"],) * 2,
            "SYS64": (n["sysreg"],) * 2, "IABT_LOW": (1, 1)}


def guest_arm64_tables(n):
    """{analysis: {key prefix: samples}} of the arm64 guest, exact"""
    return {
        "mmio": {f"{ARM64_MMIO_WRITE}:W": n["write"], f"{ARM64_MMIO_READ}:R": n["read"],
                 f"{ARM64_DONE}:W": 1},
        "hypercall": {"0x84000000": n["hvc"]},
        "userspace": {"MMIO": n["write"] + n["read"] + 1},
    }


def script_exit_times(data):
    """{exit: [exits, timed, total ns]} from perf script: each kvm_exit
    timed up to the next kvm_entry of its thread.  On arm64 both carry
    the guest's PC and cpumode, so perf script shows them only with
    --guest-code."""
    out = perf(["script", "-i", data, "--guest-code", "--ns", "-F", "tid,time,event,trace"])
    exits = {}
    pending = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+(\d+)\.(\d{9}):\s+kvm:(kvm_exit|kvm_entry):\s*(.*)", line)
        if not m:
            continue
        tid, time = m[1], int(m[2]) * 10**9 + int(m[3])
        if m[4] == "kvm_exit":
            name = re.search(r"\((\w+)\)", m[5]) if m[5].startswith("TRAP") else None
            key = name[1] if name else m[5].split(":")[0]
            exits.setdefault(key, [0, 0, 0])[0] += 1
            pending[tid] = (key, time)
        elif tid in pending:
            key, start = pending.pop(tid)
            exits[key][1] += 1
            exits[key][2] += time - start
    return exits


def check_guest_arm64_sites(data, n):
    """--key sym with the arm64 guest's map (perf test -w kvmguest map):
    its MMIO accesses and calls in their loops, exactly; in vmexit, each
    loop at least its own exits, and every exit in the guest's code"""
    kallsyms = data + ".map"
    with open(kallsyms, "w") as f:
        f.write(perf(["test", "-w", "kvmguest", "map"]))
    tables = {"mmio": {"mmio_write_loop": n["write"], "mmio_read_loop": n["read"],
                       "guest_done": 1},
              "hypercall": {"hvc_loop": n["hvc"]}}
    for analysis, want in tables.items():
        got = {k["key"]: k["samples"] for k in report(data, [
            "--event", analysis, "--key", "sym", "--guest-kallsyms", kallsyms])["keys"]}
        want = {k: v for k, v in want.items() if v}
        if got != want:
            fail(f"{data} {analysis} --key sym", f"sites {got}, expected {want}")
    got = {k["key"]: k["samples"] for k in report(data, [
        "--key", "sym", "--guest-kallsyms", kallsyms])["keys"]}
    loops = {"guest_setup": 1, "mmio_write_loop": n["write"], "mmio_read_loop": n["read"],
             "hvc_loop": n["hvc"], "sysreg_loop": n["sysreg"], "guest_done": 1}
    if set(got) - set(loops) or any(got.get(k, 0) < v for k, v in loops.items()):
        fail(f"{data} vmexit --key sym", f"sites {got}, expected at least {loops}")


def cmd_guest_arm64(data, counts):
    cmd_once(data, [])
    n = dict(zip(("write", "read", "hvc", "sysreg"), counts))
    check_guest_exits(data, guest_arm64_vmexits(n), ARM64_HOST_EXITS)
    check_guest_tables(data, guest_arm64_tables(n))
    check_guest_arm64_sites(data, n)
    # The times, from the events themselves: perf kvm stat, the oracle of
    # the x86 guest, gives other times on arm64 recordings.
    got = {k["key"]: [k["samples"], k["timed"], k["total_ns"]] for k in
           report(data, ["--event", "vmexit"])["keys"]}
    want = script_exit_times(data)
    if got != want:
        fail(f"{data} vmexit", f"[exits, timed, ns] {got}, perf script's {want}")


def cmd_halt_arm64(data, halts):
    """the arm64 guest's halt form: a WFI exit per halt that trapped, and
    a halt that did not only when its timer fired first, an IRQ exit; the
    GIC setup's three writes and the final store, the first fetch; a
    wakeup per WFI exit"""
    cmd_once(data, [])
    exits = {k["key"]: k["samples"] for k in report(data, ["--event", "vmexit"])["keys"]}
    wfi, irq = exits.pop("WFI", 0), exits.pop("IRQ", 0)
    if not wfi <= halts <= wfi + irq:
        fail(f"{data} vmexit", f"{wfi} WFI and {irq} IRQ exits for {halts} halts")
    if exits != {"DABT_LOW": 4, "IABT_LOW": 1}:
        fail(f"{data} vmexit", f"{exits}, expected DABT_LOW 4 and IABT_LOW 1 besides")
    # grow and shrink: changes of KVM's polling window, no wakeups
    wakeups = sum(k["samples"] for k in report(data, ["--event", "halt"])["keys"]
                  if k["key"].split(":")[0] in ("poll", "wait"))
    if wakeups != wfi:
        fail(f"{data} halt", f"{wakeups} wakeups for {wfi} WFI exits")
    check_guest_tables(data, {"userspace": {"MMIO": 1}})


def key_prefix(key):
    """a key without the name after its number: 0x8b:R/IA32_UCODE_REV, 1 KVM_HC_..."""
    return re.split(r"[/ ]", key, maxsplit=1)[0]


def read_kallsyms(path):
    """[(start, name or None)], one per start, in order: the first line's
    symbol of each start, named where it is a function (type t, T, w, W)"""
    syms = {}
    for line in open(path):
        addr, kind, name = line.split("\t")[0].split()
        syms.setdefault(int(addr, 16), name if kind in "tTwW" else None)
    return sorted(syms.items())


def site_name(rip, syms, mode):
    """--key rip or sym's name of RIP: in the symbol that starts last at or
    before it, if a function's and not the last symbol; else hex"""
    starts = [start for start, _ in syms]
    i = bisect.bisect_right(starts, rip)
    if i == 0 or i == len(syms) or syms[i - 1][1] is None:
        return f"0x{rip:x}"
    start, name = syms[i - 1]
    return name if mode == "sym" else f"{name}+0x{rip - start:x}"


def cmd_kallsyms(data, out):
    """A made-up guest kallsyms over .events' rips: functions 64 KiB apart,
    none over the lowest and highest 256 KiB (their rips stay hex), one
    data symbol that ends a function early, an alias, a module's function,
    and _etext at the end."""
    rips = [s.rip for s in read_events(data) if s.rip]
    lo, hi = (min(rips) | 0xffff) + 1 + 0x30000, max(rips) & ~0xffff
    hi -= 0x40000
    with open(out, "w") as f:
        for n, start in enumerate(range(lo, hi, 0x10000)):
            f.write(f"{start:016x} {'Tt'[n % 2]} guest_fn_{n}\n")
            if n == 3:
                f.write(f"{start:016x} T guest_fn_{n}_alias\n")
                f.write(f"{start + 0x8000:016x} d guest_data_{n}\n")
            if n == 5:
                f.write(f"{start + 0x4000:016x} t guest_mod_fn\t[guest_mod]\n")
        f.write(f"{hi:016x} T _etext\n")


def cmd_sites(data, analysis, mode, kallsyms=None):
    """--key rip or sym of ANALYSIS against .events: every site's samples,
    timed samples, total, min and max, exactly"""
    syms = read_kallsyms(kallsyms) if kallsyms else []
    want = {}
    for s in read_events(data):
        if s.analysis == analysis:
            want.setdefault(site_name(s.rip, syms, mode), []).append(s)
    args = ["--event", analysis, "--key", mode]
    if kallsyms:
        args += ["--guest-kallsyms", kallsyms]
    got = {k["key"]: k for k in report(data, args)["keys"]}
    case = f"{data} {' '.join(args)}"
    if sorted(got) != sorted(want):
        fail(case, f"sites {sorted(set(got) ^ set(want))[:5]} differ")
        return
    for name, samples in want.items():
        st = key_stats(samples)
        for field in ("samples", "timed", "total_ns", "min_ns", "max_ns"):
            if st.get(field) != got[name].get(field):
                fail(case, f"{name}: {field} {got[name].get(field)}, expected {st.get(field)}")


def check_guest_sites(data, counts):
    """--key sym with the guest's own map of its loops (perf test -w
    kvmguest map): each loop makes its exits of each analysis, exactly; in
    vmexit, each loop at least its own, and every exit is in a loop"""
    n = counts
    kallsyms = data + ".map"
    with open(kallsyms, "w") as f:
        f.write(perf(["test", "-w", "kvmguest", "map"]))
    tables = {"ioport": {"pio_out_loop": n["out"], "pio_in_loop": n["in"]},
              "mmio": {"mmio_write_loop": n["write"], "mmio_read_loop": n["read"]},
              "msr": {"rdmsr_loop": n["rdmsr"], "wrmsr_loop": n["wrmsr"]},
              "hypercall": {"hypercall_loop": n["hc"]}}
    for analysis, want in tables.items():
        got = {k["key"]: k["samples"] for k in report(data, [
            "--event", analysis, "--key", "sym", "--guest-kallsyms", kallsyms])["keys"]}
        want = {k: v for k, v in want.items() if v}
        if got != want:
            fail(f"{data} {analysis} --key sym", f"sites {got}, expected {want}")
    got = {k["key"]: k["samples"] for k in report(data, [
        "--key", "sym", "--guest-kallsyms", kallsyms])["keys"]}
    loops = {"pio_out_loop": n["out"], "pio_in_loop": n["in"], "cpuid_loop": n["cpuid"],
             "mmio_write_loop": n["write"], "mmio_read_loop": n["read"],
             "rdmsr_loop": n["rdmsr"], "wrmsr_loop": n["wrmsr"],
             "hypercall_loop": n["hc"], "guest_halt": 1}
    if set(got) - set(loops) or any(got.get(k, 0) < v for k, v in loops.items()):
        fail(f"{data} vmexit --key sym", f"sites {got}, expected at least {loops}")


def cmd_guest(data, counts):
    cmd_once(data, [])
    n = dict(zip(("out", "in", "write", "read", "cpuid", "rdmsr", "wrmsr", "hc"), counts))
    exits = [k["key"] for k in report(data, ["--event", "vmexit"])["keys"]]
    vendor = "svm" if "npf" in exits or "io" in exits else "vmx"
    check_guest_exits(data, guest_vmexits(vendor, n), HOST_EXITS[vendor])
    check_guest_tables(data, guest_tables(n))
    check_guest_sites(data, n)


def file_records(data):
    """(offset, type, bytes) of each record in FILE's data section, or in
    the stream of a file perf wrote to a pipe"""
    raw = open(data, "rb").read()
    if struct.unpack_from("<Q", raw, 8)[0] == 16:
        off, end = 16, len(raw)
    else:
        off, size = struct.unpack_from("<QQ", raw, 40)
        end = off + size
    while off + 8 <= end:
        rtype, _, rsize = struct.unpack_from("<IHH", raw, off)
        if rsize < 8:
            break
        yield off, rtype, raw[off:off + rsize]
        off += rsize
        # a pipe's tracing data follows its record, out of its size
        if rtype == PERF_RECORD_HEADER_TRACING_DATA:
            off += struct.unpack_from("<I", raw, off - rsize + 8)[0]


def file_lost(data):
    """(number, sum of lost) of the PERF_RECORD_LOST in FILE's data section"""
    chunks = lost = 0
    for _, rtype, rec in file_records(data):
        if rtype == 2:
            chunks += 1
            lost += struct.unpack_from("<Q", rec, 16)[0]
    return chunks, lost


PERF_RECORD_SAMPLE = 9
PERF_RECORD_SWITCH = 14
PERF_RECORD_SWITCH_CPU_WIDE = 15
SWITCH_OUT = 1 << 13
SWITCH_OUT_PREEMPT = 1 << 14


def switch_records(data, wide):
    """The switch records of FILE, from their bytes: (time, pid, tid, cpu,
    out, preempt, next_prev) in file order; and each kvm sample's (time,
    pid, tid, cpu).  kvmgen's +switch trailers: pid/tid, time, id, cpu
    (per thread) or pid/tid, time, cpu, identifier (system-wide, whose
    samples begin with the identifier, then ip, pid/tid, time)."""
    records, samples = [], []
    for _, rtype, rec in file_records(data):
        misc = struct.unpack_from("<H", rec, 4)[0]
        if rtype == PERF_RECORD_SAMPLE:
            off = 8 + (16 if wide else 8)
            pid, tid, time = struct.unpack_from("<IIQ", rec, off)
            cpu_off = off + 16 + (0 if wide else 8)
            samples.append((time, pid, tid, struct.unpack_from("<I", rec, cpu_off)[0]))
        elif rtype in (PERF_RECORD_SWITCH, PERF_RECORD_SWITCH_CPU_WIDE):
            if (rtype == PERF_RECORD_SWITCH_CPU_WIDE) != wide:
                fail(data, f"a switch record of type {rtype} in a {'system-wide' if wide else 'per-thread'} file")
                continue
            body = 16 if wide else 8
            if len(rec) != body + 32:
                fail(data, f"a switch record of {len(rec)} bytes, not {body + 32}")
                continue
            next_prev = struct.unpack_from("<II", rec, 8) if wide else None
            pid, tid, time, _, cpu = struct.unpack_from("<IIQQI", rec, body)
            records.append((time, pid, tid, cpu, bool(misc & SWITCH_OUT),
                            bool(misc & SWITCH_OUT_PREEMPT), next_prev))
    return records, samples


def cmd_sched(data):
    """A +switch recording: its switch records are as perf record writes
    them, consistent and realistic, and .events' split of each event is
    what they give, recomputed from the records' bytes."""
    header, _ = read_truth(data)
    wide = open(data + ".truth").read().find(" cpu-wide\n") >= 0
    records, samples = switch_records(data, wide)
    if len(records) != header.get("switch_records"):
        fail(data, f"{len(records)} switch records, .truth says {header.get('switch_records')}")
    idle = sum(1 for r in records if not r[2])
    if wide and idle != header.get("idle_switches"):
        fail(data, f"{idle} switch records of the idle task, .truth says {header.get('idle_switches')}")
    times = [r[0] for r in records] + [smp[0] for smp in samples]
    if len(set(times)) != len(times):
        fail(data, "two records at the same time")
    events = read_events(data)
    vcpu_tids = {s.tid for s in events}
    # Each thread's records alternate out and in; its off periods
    offs, state = {}, {}
    for time, pid, tid, cpu, out, preempt, _ in records:
        if not wide and tid not in vcpu_tids:
            fail(data, f"a per-thread recording has a switch of {pid}/{tid}")
        if preempt and not out:
            fail(data, f"{time}: PREEMPT on a switch-in")
        # the idle task, pid 0, is one per cpu
        task = (tid, cpu) if not tid else tid
        if state.get(task, (None,))[0] == out:
            fail(data, f"{time}: {tid} switched {'out' if out else 'in'} twice")
        if out:
            state[task] = (True, time, preempt)
        else:
            if state.get(task, (None,))[0]:
                offs.setdefault(task, []).append((state[task][1], time, state[task][2]))
            state[task] = (False,)
    # System-wide: a cpu's switch-out names the thread its switch-in is of
    if wide:
        last = {}
        for time, pid, tid, cpu, out, _, next_prev in records:
            if out:
                last[cpu] = ((pid, tid), next_prev)
            elif cpu not in last or last.pop(cpu) != (next_prev, (pid, tid)):
                fail(data, f"{time}: cpu {cpu}'s switch-in of {tid} does not follow its switch-out")
    # A vcpu thread runs at each of its samples: none is in an off period,
    # and, system-wide, the thread on the sample's cpu is its own.
    curr, merged = {}, sorted([(r[0], 0, r) for r in records] + [(smp[0], 1, smp) for smp in samples])
    for _, is_sample, r in merged:
        if not is_sample:
            if not r[4]:
                curr[r[3]] = r[2]
            continue
        time, _, tid, cpu = r
        for out, back, _ in offs.get(tid, []):
            if out <= time <= back:
                fail(data, f"{time}: a sample of {tid} while it is off cpu ({out}, {back})")
        if wide and curr.get(cpu, tid) != tid:
            fail(data, f"{time}: a sample of {tid} on cpu {cpu}, where {curr[cpu]} runs")
    # The split of each timed event
    split = 0
    for s in events:
        if s.duration is None or s.analysis == "halt":
            if s.offcpu is not None:
                fail(data, f"{s.analysis} {s.full_key} at {s.time}: split, and should not be")
            continue
        begin = s.time - s.duration if (s.analysis, s.full_key[-2:]) == ("mmio", ":R") else s.time
        end = begin + s.duration
        off = pre = 0
        for out, back, preempt in offs.get(s.tid, []):
            part = max(0, min(back, end) - max(out, begin))
            off += part
            pre += part if preempt else 0
        if (off, pre, off - pre) != (s.offcpu, s.preempted, s.blocked):
            fail(data, f"{s.analysis} {s.full_key} at {s.time}: split {s.offcpu} {s.preempted} "
                 f"{s.blocked}, the records give {off} {pre} {off - pre}")
        split += off > 0
    # Enough of each kind for the test to mean something
    kinds = {(p, sum(1 for o in v if o[2] == p)) for v in offs.values() for p in (True, False)}
    if not split or not all(any(n for q, n in kinds if q == p) for p in (True, False)):
        fail(data, "no event split, or no preempted or no blocked period")


def cmd_sched_keys(data, scenario):
    """.truth is .events summed, the split included; and every analysis'
    keys and totals, their split included, with the options that select
    events (--vcpu, --duration, --time, -p) or group them (--per-vcpu,
    --per-vm)"""
    events = read_events(data)
    comms = read_comms(data)
    check_truth_table(data, events)
    for analysis in sorted({s.analysis for s in events}):
        everything = [s for s in events if s.analysis == analysis]
        case = f"{scenario} {analysis}"
        base = ["--event", analysis]
        times = sorted(s.time for s in everything)
        start, end = times[len(times) // 4], times[3 * len(times) // 4]
        window = f"{start // 10**9}.{start % 10**9:09d},{end // 10**9}.{end % 10**9:09d}"
        has_vcpu = all(s.vcpu is not None for s in everything)
        check(case, data, base, everything, everything)
        if has_vcpu:
            check(case + " --vcpu 0,2-3", data, base + ["--vcpu", "0,2-3"],
                  [s for s in everything if s.vcpu in (0, 2, 3)], everything)
            check(case + " --per-vcpu", data, base + ["--per-vcpu"], everything, everything,
                  group_of=vcpu_of(comms))
        check(case + " --duration 50", data, base + ["--duration", "50"],
              [s for s in everything if s.duration is not None and s.duration >= 50000],
              everything)
        check(case + " --time " + window, data, base + ["--time", window],
              [s for s in everything if start <= s.time <= end], everything)
        pid = everything[-1].pid
        check(case + f" -p {pid}", data, base + ["-p", str(pid)],
              [s for s in everything if s.pid == pid], everything)
        check(case + " --per-vm", data, base + ["--per-vm"], everything, everything,
              group_of=lambda s: s.pid)


def cmd_sched_json(data, analysis, path):
    """A report --event ANALYSIS --json of FILE, read in some other way
    (as a pipe, in one thread...), saved in PATH: its keys and totals,
    the split included, are those of FILE's truth."""
    everything = [s for s in read_events(data) if s.analysis == analysis]
    with open(path) as f:
        got = json.load(f)
    check(f"{path} {analysis}", data, [], everything, everything, got=got)


SCRIPT_LINE = re.compile(r"^\s*(\d+)\s+(\d+)\.(\d{9}):\s+(\S+)(.*)$")


def script_split(data):
    """Each vmexit of a real recording from perf script, the oracle: its
    thread, begin, duration, time off CPU and preempted, from kvm_exit to
    kvm_entry with the thread's switch records between"""
    out = perf(["script", "-i", data, "--show-switch-events", "--ns", "-F", "tid,time,event"])
    exits, threads = [], {}
    for line in out.splitlines():
        m = SCRIPT_LINE.match(line)
        if not m:
            continue
        tid, time, event, rest = int(m[1]), int(m[2]) * 10**9 + int(m[3]), m[4], m[5]
        t = threads.setdefault(tid, {"begin": None, "out": None})
        if event.startswith("PERF_RECORD_SWITCH"):
            if rest.split()[0] == "OUT":
                if t["begin"] is not None and t["out"] is None:
                    t["out"], t["preempt"] = time, rest.split()[1:2] == ["preempt"]
            else:
                off_cpu_until(t, time)
            continue
        if event not in ("kvm:kvm_exit:", "kvm:kvm_entry:"):
            continue
        off_cpu_until(t, time)
        if event == "kvm:kvm_exit:":
            t.update(begin=time, off=0, preempted=0)
        elif t["begin"] is not None:
            exits.append((tid, t["begin"], time - t["begin"], t["off"], t["preempted"]))
            t["begin"] = None
    return exits


def off_cpu_until(t, time):
    """A thread back on CPU at @time: its time off CPU within its exit"""
    if t["out"] is None:
        return
    ns = time - max(t["out"], t["begin"]) if t["begin"] is not None else 0
    t["off"] += max(ns, 0)
    t["preempted"] += max(ns, 0) if t["preempt"] else 0
    t["out"] = None


def cmd_sched_real(data, want):
    """A real recording with --sched: the vmexit report's time on and off
    CPU, in total, per key and per --top event, must be perf script's to
    the ns, in every reader; the guest must have been @want (preempted or
    blocked) inside some exits"""
    exits = script_split(data)
    total = sum(e[2] for e in exits)
    off = sum(e[3] for e in exits)
    preempted = sum(e[4] for e in exits)
    truth = {"total_ns": total, "oncpu_ns": total - off, "offcpu_ns": off,
             "preempted_ns": preempted, "blocked_ns": off - preempted,
             "switched": sum(1 for e in exits if e[3])}
    if not truth[want + "_ns"]:
        fail(data, f"the guest was never {want} inside an exit: {truth}")
    by_begin = {(e[0], e[1]): e for e in exits}
    for reader in ([], ["--generic-reader"], ["--threads", "1"], ["--threads", "2"]):
        case = f"{data} {' '.join(reader)}"
        r = report(data, reader + ["--top", "20"])
        got = {f: r["totals"].get(f) for f in truth}
        if got != truth:
            fail(case, f"totals {got}, perf script gives {truth}")
        for k in r["keys"]:
            if k["timed"] and (k["oncpu_ns"] + k["offcpu_ns"] != k["total_ns"] or
                               k["preempted_ns"] + k["blocked_ns"] != k["offcpu_ns"]):
                fail(case, f"{k['key']}: the parts do not add up: {k}")
        for o in r["top"]:
            e = by_begin.get((o["tid"], o["time_ns"]))
            if not e or (e[2], e[3]) != (o["duration_ns"], o["offcpu_ns"]):
                fail(case, f"top event {o}: perf script's exit is {e}")


def cmd_once(data, want):
    """Each sample in FILE once: a sample the same byte for byte as an
    earlier one (the same time, cpu, tid and raw data) is one that perf
    record wrote twice, where the recording's clock moves on between
    events (the x86 test machine boots with tsc=reliable for that).  WANT lists the copies expected, as FIRST:COPY
    file offsets in hex; by default none."""
    first = {}
    copies = []
    for off, rtype, rec in file_records(data):
        if rtype != 9:
            continue
        if rec in first:
            copies.append(f"{first[rec]:#x}:{off:#x}")
        else:
            first[rec] = off
    if copies != want:
        fail(data, f"samples written twice (first:copy): {' '.join(copies) or 'none'}, "
             f"expected {' '.join(want) or 'none'}")


def cmd_accounting_real(data, script_samples, with_lost=False):
    cmd_once(data, [])
    lost = file_lost(data) if with_lost else (0, 0)
    if with_lost and not lost[0]:
        fail(data, "no PERF_RECORD_LOST: the recording lost nothing")
    for analysis in ("vmexit", "mmio", "ioport", "userspace", "msr", "hypercall", "halt"):
        for reader in ([], ["--generic-reader"], ["--threads", "1"]):
            args = ["--event", analysis] + reader
            t = report(data, args)["totals"]
            parts = (t["samples"] + t["paired_ends"] + t["filtered"] + t["other"] +
                     t["no_memory"])
            if t["read"] != script_samples or parts != t["read"]:
                fail(f"{data} {' '.join(args)}", f"read {t['read']}, in buckets {parts}, "
                     f"perf script shows {script_samples}: {t}")
            if (t["lost_chunks"], t["lost_events"]) != lost:
                fail(f"{data} {' '.join(args)}", f"lost {t['lost_events']} in "
                     f"{t['lost_chunks']} chunks, the file's PERF_RECORD_LOST {lost[1]} "
                     f"in {lost[0]}")


def cmd_lost(data, args):
    case = f"{data} {' '.join(args)}"
    header, _ = read_truth(data)
    lost = header.get("lost", 0)
    if not lost:
        fail(case, "no loss in the ground truth")
        return
    # kvmgen's +lost drops 7 events per PERF_RECORD_LOST
    chunks = lost // 7
    t = report(data, args)["totals"]
    for field, want in (("lost_events", lost), ("perf_record_lost", lost),
                        ("perf_record_lost_samples", lost), ("lost_chunks", chunks)):
        if t[field] != want:
            fail(case, f"totals.{field} {t[field]} != {want}")
    text = report(data, args, json_out=False)
    if f"\nLost events:{lost}, in {chunks} chunks.\n" not in text:
        fail(case, f"the footer does not say 'Lost events:{lost}, in {chunks} chunks.'")


# --heatmap: the SVG's cells against the samples of .events
HEATMAP_COLUMNS = 120
HEATMAP_PANELS = 12
HEATMAP_MIN_WIDTH = 1000
SVG = "{http://www.w3.org/2000/svg}"


def heatmap_filter(samples, args):
    """The samples the report keeps with args: --vcpu, -p, --time, --duration"""
    opts = dict(zip(args[::2], args[1::2]))
    if "--vcpu" in opts:
        ids = set()
        for part in opts["--vcpu"].split(","):
            low, _, high = part.partition("-")
            ids.update(range(int(low), int(high or low) + 1))
        samples = [s for s in samples if s.vcpu in ids]
    if "-p" in opts:
        samples = [s for s in samples if s.pid == int(opts["-p"])]
    if "--time" in opts:
        start, end = (round(float(t) * 10**9) for t in opts["--time"].split(","))
        samples = [s for s in samples if start <= s.time <= end]
    if "--duration" in opts:
        least = int(opts["--duration"]) * 1000
        samples = [s for s in samples if s.duration is not None and s.duration >= least]
    return samples


def heatmap_width(first, last, times, header):
    """Columns divide the header's span, or start 1us wide; both double to fit"""
    width = (last - first) // HEATMAP_COLUMNS + 1 if header else HEATMAP_MIN_WIDTH
    while any(max(0, t - first) // width >= HEATMAP_COLUMNS for t in times):
        width *= 2
    return width


def heatmap_panels(root):
    panels = []
    for g in root.iter(SVG + "g"):
        if g.get("class") != "panel":
            continue
        cells = {}
        for r in g.iter(SVG + "rect"):
            if r.get("class") == "cell":
                cell = (int(r.get("data-col")), int(r.get("data-bucket")))
                if cell in cells or not r.get("fill", "").startswith("#"):
                    fail("--heatmap", f"{g.get('data-key')}: cell {cell} twice, or no colour")
                cells[cell] = int(r.get("data-count"))
        panels.append((g.get("data-key").partition("/")[0], int(g.get("data-samples")),
                       int(g.get("data-timed")), cells))
    return panels


def heatmap_expected(samples, origin, width):
    keys = {}
    for s in samples:
        key = keys.setdefault(s.key, [0, 0, {}])
        key[0] += 1
        if s.duration is None:
            continue
        key[1] += 1
        cell = (max(0, s.time - origin) // width, min(63, s.duration.bit_length()))
        key[2][cell] = key[2].get(cell, 0) + 1
    return sorted(((k, v[0], v[1], v[2]) for k, v in keys.items()),
                  key=lambda p: (-p[1], p[0]))


def is_pipe(data):
    """A pipe's header is 16 bytes, a file's 104: perf_pipe_file_header"""
    with open(data, "rb") as f:
        return int.from_bytes(f.read(16)[8:], "little") == 16


def cmd_heatmap(data, analysis, svg, args):
    """perf kvm-events report --heatmap SVG: every timed sample in its cell"""
    case = f"{data} --heatmap {' '.join(args)}"
    perf(["kvm-events", "report", "-i", data, "--event", analysis, "--heatmap", svg] + args)
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        fail(case, f"{svg} is not XML: {e}")
        return
    samples = heatmap_filter([s for s in read_events(data) if s.analysis == analysis], args)
    header, _ = read_truth(data)
    origin, width = int(root.get("data-origin")), int(root.get("data-width"))
    columns = int(root.get("data-columns"))
    times = [s.time for s in samples if s.duration is not None]
    # A pipe has no header times: column 0 is the first sample read.
    pipe = is_pipe(data)
    if pipe and not header["header_first"] <= origin <= min(times):
        fail(case, f"origin {origin} is not the first sample's, "
             f"{header['header_first']}..{min(times)}")
    first = origin if pipe else header["header_first"]
    want_width = heatmap_width(first, header["header_last"], times, not pipe)
    if (origin, width) != (first, want_width):
        fail(case, f"origin, width {origin}, {width} != {first}, {want_width}")
    last_col = max((max(0, t - origin) // width for t in times), default=0)
    if not last_col < columns <= HEATMAP_COLUMNS or \
       (not pipe and columns != (header["header_last"] - origin) // width + 1):
        fail(case, f"{columns} columns drawn, the last sample in column {last_col}")
    want = heatmap_expected(samples, origin, width)
    got = heatmap_panels(root)
    if [p[:3] for p in got] != [p[:3] for p in want[:HEATMAP_PANELS]]:
        fail(case, f"panels {[p[:3] for p in got]} != {[p[:3] for p in want[:HEATMAP_PANELS]]}")
    for g, w in zip(got, want):
        if g[3] != w[3]:
            diff = sorted(set(g[3].items()) ^ set(w[3].items()))[:6]
            fail(case, f"{g[0]}: cells differ: {diff}")
        if sum(g[3].values()) != w[2]:
            fail(case, f"{g[0]}: the cells hold {sum(g[3].values())} events, not {w[2]}")
    left = want[HEATMAP_PANELS:]
    left_out = (len(left), sum(p[1] for p in left), sum(p[2] for p in left))
    got_left = tuple(int(root.get(f"data-left-out-{f}")) for f in ("keys", "samples", "timed"))
    if got_left != left_out:
        fail(case, f"left out (keys, samples, timed) {got_left} != {left_out}")
    note = "".join(t.text or "" for t in root.iter(SVG + "text") if t.get("class") == "left-out")
    if left and f"{left_out[0]} keys left out: {left_out[1]} samples" not in note:
        fail(case, f"the note '{note}' does not say what was left out")


def png_pixels(path):
    """Width, height and the distinct pixels of an 8-bit RGB(A) PNG"""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(blob):
        size = int.from_bytes(blob[pos:pos + 4], "big")
        kind, body = blob[pos + 4:pos + 8], blob[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            ihdr = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + size
    width, height = int.from_bytes(ihdr[:4], "big"), int.from_bytes(ihdr[4:8], "big")
    depth, colour = ihdr[8], ihdr[9]
    if depth != 8 or colour not in (2, 6):
        raise ValueError(f"bit depth {depth}, colour type {colour}: not 8-bit RGB(A)")
    bpp = 3 if colour == 2 else 4
    raw, stride, prev, pixels = zlib.decompress(idat), width * bpp, bytearray(width * bpp), set()
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride if kind else 0):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        pixels.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return width, height, pixels


def visible_fills(svg, width, height):
    """The colours of the legend and of the cells wholly in the window"""
    fills = set()
    for node in ET.parse(svg).getroot():
        dx, dy = 0.0, 0.0
        m = re.match(r"translate\(([\d.]+),([\d.]+)\)", node.get("transform", ""))
        if m:
            dx, dy = float(m.group(1)), float(m.group(2))
        for r in node.iter(SVG + "rect"):
            if r.get("class") not in ("cell", "legend"):
                continue
            x, y = dx + float(r.get("x")), dy + float(r.get("y"))
            if x + float(r.get("width")) <= width and y + float(r.get("height")) <= height:
                fills.add(bytes.fromhex(r.get("fill")[1:]))
    return fills


def cmd_screenshot(png, svg, width, height):
    """A browser's screenshot of the SVG: its size, and the colours drawn"""
    try:
        got_w, got_h, pixels = png_pixels(png)
    except (OSError, ValueError, TypeError, zlib.error) as e:
        fail(png, f"not a PNG that can be read: {e}")
        return
    if (got_w, got_h) != (width, height):
        fail(png, f"{got_w}x{got_h}, not {width}x{height}")
    # Solid fills come out exactly: every colour in view must be there.
    want = visible_fills(svg, width, height)
    missing = sorted(f.hex() for f in want - pixels)
    if len(want) < 2 or missing:
        fail(png, f"{len(want)} colours in view, not drawn: {missing[:8]}")


JSON_TYPES = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}
FIELD_RE = re.compile(r"^(\S+):: (" + "|".join(JSON_TYPES) + r")( or null)?[,.]")


def read_schema(doc):
    """The man page's JSON AND CSV OUTPUT: {"Report": {path: field}, "Diff": ...}"""
    with open(doc) as f:
        lines = f.read().split("\nJSON AND CSV OUTPUT\n", 1)[1].split("\nEXAMPLES\n")[0]
    schemas, fields, field = {}, None, None
    lines = lines.splitlines()
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and lines[i + 1].startswith("~~~"):
            # CSV's subsection has no field list of its own.
            fields = schemas.setdefault(line.split()[0], {}) if line.endswith(" JSON") else None
            continue
        m = FIELD_RE.match(line)
        if fields is not None and m:
            field = fields[m.group(1)] = {"type": m.group(2), "null": bool(m.group(3)),
                                          "text": line}
        elif field and line.startswith("\t"):
            field["text"] += " " + line.strip()
        elif not line.startswith("~~~"):
            field = None
    for fields in schemas.values():
        for f in fields.values():
            f["always"] = " Only " not in f["text"]
    return schemas


def documented(fields, path):
    """The documented field of a path; <name> in the man page stands for any name"""
    if path in fields:
        return fields[path]
    parent, _, _ = path.rpartition(".")
    for name, f in fields.items():
        wild = name.startswith(parent + ".<") and name.endswith(">")
        if wild and "." not in name[len(parent) + 1:]:
            return f
    return None


def walk(value, path, objects):
    """Every object of a JSON value, by its path: objects[path] = [dict, ...]"""
    if isinstance(value, dict):
        objects.setdefault(path, []).append(value)
        for name, v in value.items():
            walk(v, f"{path}.{name}" if path else name, objects)
    elif isinstance(value, list):
        for v in value:
            walk(v, path + "[]", objects)


def check_schema(case, fields, outputs):
    """outputs: JSON objects; their fields must be those documented, typed as said"""
    seen = set()
    for out in outputs:
        objects = {}
        walk(out, "", objects)
        for parent, instances in objects.items():
            for obj in instances:
                for name, value in obj.items():
                    path = f"{parent}.{name}" if parent else name
                    if not re.fullmatch(r"[a-z0-9_]+", name):
                        fail(case, f"{path}: not a jq identifier")
                    f = documented(fields, path)
                    if f is None:
                        fail(case, f"{path}: not documented")
                        continue
                    seen.add(id(f))
                    if not (JSON_TYPES[f["type"]](value) or (value is None and f["null"])):
                        fail(case, f"{path}: {value!r} is no {f['type']}"
                             f"{' or null' if f['null'] else ''}")
        for path, f in fields.items():
            parent, _, name = path.rpartition(".")
            if f["always"] and not name.startswith("<"):
                for obj in objects.get(parent, []):
                    if name not in obj:
                        fail(case, f"{path}: missing from an object of {parent or 'the top'}")
    for path, f in fields.items():
        if id(f) not in seen:
            fail(case, f"{path}: documented, never seen")


def cmd_schema(doc, data, old, new, sched=None):
    schemas = read_schema(doc)
    if sorted(schemas) != ["Diff", "Report"]:
        fail(doc, f"JSON AND CSV OUTPUT has the sections {sorted(schemas)}")
        return
    pid = str(read_events(data)[0].pid)
    reports = [report(data, args) for args in (
        ["--stats"], ["--top", "3", "--histogram", "--event", "mmio"],
        ["--per-vcpu", "--top", "3", "--histogram", "--vcpu", "0-3", "-p", pid,
         "--duration", "1", "--time", "0,"])]
    if sched is not None:
        reports += [report(sched, args) for args in (["--top", "20"], ["--event", "halt"])]
    check_schema("report --json", schemas["Report"], reports)
    # p99_9_ns is reached by name, as jq '.keys[0].p99_9_ns' does.
    if not isinstance(reports[0]["keys"][0]["p99_9_ns"], int):
        fail("report --json", "keys[0].p99_9_ns is no integer")
    diffs = [json.loads(perf(["kvm-events", "diff", "--json", a, b]))
             for a, b in ((data, old), (data, new))]
    check_schema("diff --json", schemas["Diff"], diffs)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd in ("table", "options"):
        cmd_report(args[0], args[1], cmd == "table")
    elif cmd == "schema":
        cmd_schema(*args[:5])
    elif cmd == "columns":
        cmd_columns(args[0], args[1], args[2:])
    elif cmd == "diff":
        cmd_diff(args[0], args[1], args[2], args[3:])
    elif cmd == "accounting":
        cmd_accounting(args[0], int(args[1]), args[2:])
    elif cmd == "lost":
        cmd_lost(args[0], args[1:])
    elif cmd == "guest":
        cmd_guest(args[0], [int(a) for a in args[1:9]])
    elif cmd == "keys":
        check_guest_tables(args[0], {args[1]: {k: int(v) for k, v in
                                               (a.rsplit("=", 1) for a in args[2:])}})
    elif cmd == "halt-arm64":
        cmd_halt_arm64(args[0], int(args[1]))
    elif cmd == "guest-arm64":
        cmd_guest_arm64(args[0], [int(a) for a in args[1:5]])
    elif cmd == "accounting-real":
        cmd_accounting_real(args[0], int(args[1]), args[2:3] == ["lost"])
    elif cmd == "sched":
        cmd_sched(args[0])
    elif cmd == "sched-keys":
        cmd_sched_keys(args[0], args[1])
    elif cmd == "sched-json":
        cmd_sched_json(*args[:3])
    elif cmd == "sched-real":
        cmd_sched_real(args[0], args[1])
    elif cmd == "once":
        cmd_once(args[0], args[1:])
    elif cmd == "kallsyms":
        cmd_kallsyms(args[0], args[1])
    elif cmd == "sites":
        cmd_sites(*args[:4])
    elif cmd == "heatmap":
        cmd_heatmap(args[0], args[1], args[2], args[3:])
    elif cmd == "screenshot":
        cmd_screenshot(args[0], args[1], int(args[2]), int(args[3]))
    else:
        print(f"FAIL: kvm_events_check.py: unknown command {cmd}")
        return 1
    for line in failures:
        print("FAIL:", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
