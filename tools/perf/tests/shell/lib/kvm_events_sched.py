# SPDX-License-Identifier: GPL-2.0
"""Time on and off CPU: recordings with context switch records

kvm_events_check.py sched, sched-keys and sched-json on kvmgen's +switch
recordings, and sched-real on a real one, against perf script.
"""

import json
import re
import struct

from kvm_events_truth import (check, check_truth_table, fail, perf, read_comms, read_events,
                              read_truth, report, vcpu_of)
from kvm_events_accounting import file_records


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
