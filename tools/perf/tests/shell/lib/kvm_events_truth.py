# SPDX-License-Identifier: GPL-2.0
"""kvmgen's ground truth, and a report's keys and totals against it

Reads FILE.events and FILE.truth (see kvm_events_check.py), derives each
key's statistics from them, runs perf kvm-events report, and compares
its JSON keys and totals: what every other check builds on.  fail()
records a difference; kvm_events_check.py prints them all at the end.
"""

import json
import math
import subprocess


EXACT_MAX = 1024
BOUND = 0.004

failures = []


def fail(case, what):
    failures.append(f"{case}: {what}")


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
