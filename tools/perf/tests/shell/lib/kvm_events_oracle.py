# SPDX-License-Identifier: GPL-2.0
"""The kvm-events report options, checked against a generated recording.

kvmgen writes FILE.events beside FILE: one line per sample of each analysis,
"analysis vcpu pid key time_ns duration_ns|- rip".  This oracle derives what
every report option must print from those lines alone, runs
`perf kvm-events report --json` (and --csv, --top, --histogram as text), and
compares.  Exact values must be equal; percentiles of keys with more than
1024 timed samples must be within the documented 0.4%.
"""

import csv
import io
import json
import math
import subprocess
import sys

EXACT_MAX = 1024
BOUND = 0.004

failures = []


def fail(case, what):
    failures.append(f"{case}: {what}")


# Samples that have no time, and yet are not unpaired
NO_TIME_KEYS = {("halt", "grow"), ("halt", "shrink")}


class Sample:
    def __init__(self, line):
        f = line.split()
        # vcpu "?": the recording has no vcpu ids (arm64, riscv64).  Names
        # after a slash (hypercall keys of other arches) are dropped, as
        # strip_names() drops the report's.
        self.analysis, self.pid = f[0], int(f[2])
        self.vcpu = None if f[1] == "?" else int(f[1])
        self.key = f[3].partition("/")[0]
        self.time = int(f[4])
        self.duration = None if f[5] == "-" else int(f[5])
        self.rip = int(f[6], 16)


def percentile(values, pct):
    rank = max(1, min(len(values), math.ceil(pct / 100 * len(values))))
    return values[rank - 1]


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
        for pct, name in ((50, "p50_ns"), (90, "p90_ns"), (99, "p99_ns"), (99.9, "p99.9_ns")):
            st[name] = percentile(durations, pct)
    return st


def report(data, args, json_out=True):
    cmd = ["perf", "kvm-events", "report", "-i", data] + args + (["--json"] if json_out else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout) if json_out else out.stdout


def compare_key(case, name, got, want):
    for field, value in want.items():
        if field.startswith("p") and field.endswith("_ns"):
            continue
        if field in ("avg_ns", "stddev_ns"):
            if abs(got.get(field, -1) - value) > 1e-3 + 1e-9 * value:
                fail(case, f"{name} {field} {got.get(field)} != {value}")
        elif got.get(field) != value:
            fail(case, f"{name} {field} {got.get(field)} != {value}")
    if not want["timed"]:
        return
    exact = want["timed"] <= EXACT_MAX
    if got.get("percentiles_exact") != exact:
        fail(case, f"{name} percentiles_exact {got.get('percentiles_exact')} != {exact}")
    for field in ("p50_ns", "p90_ns", "p99_ns", "p99.9_ns"):
        value = want[field]
        if exact and got.get(field) != value:
            fail(case, f"{name} {field} {got.get(field)} != {value}")
        if not exact and abs(got.get(field, -1) - value) > BOUND * value:
            fail(case, f"{name} {field} {got.get(field)} not within 0.4% of {value}")


# Names the report adds to these keys, after a slash
KEY_NAMES = {"0x830:W": "X2APIC_ICR", "0x6e0:W": "TSC_DEADLINE", "0xc0000080:R": "EFER",
             "5": "KICK_CPU", "10": "SEND_IPI", "11": "SCHED_YIELD"}


def strip_names(case, got):
    """Checks the names of well-known keys, then drops every name."""
    for k in got["keys"]:
        key, _, name = k["key"].partition("/")
        if key in KEY_NAMES and name != KEY_NAMES[key]:
            fail(case, f"{k['key']}: expected the name {KEY_NAMES[key]}")
        k["key"] = key
    return got


def check(case, data, args, selected, everything, group_of=None):
    """Run the report with args; selected are the samples it must keep."""
    got = strip_names(case, report(data, args))
    groups = {}
    for s in selected:
        groups.setdefault((group_of(s) if group_of else 0, s.key), []).append(s)
    got_keys = {(k["group"], k["key"]): k for k in got["keys"]}
    if set(got_keys) != set(groups):
        fail(case, f"keys {sorted(got_keys)} != {sorted(groups)}")
        return got
    for gk, samples in groups.items():
        compare_key(case, gk, got_keys[gk], key_stats(samples))
    t = got["totals"]
    untimed = sum(1 for s in selected
                  if s.duration is None and (s.analysis, s.key) not in NO_TIME_KEYS)
    want = {"samples": len(selected), "filtered": len(everything) - len(selected),
            "total_ns": sum(s.duration or 0 for s in selected)}
    for field, value in want.items():
        if t[field] != value:
            fail(case, f"totals.{field} {t[field]} != {value}")
    if t["no_end"] + t["no_begin"] != untimed:
        fail(case, f"no_end + no_begin {t['no_end'] + t['no_begin']} != {untimed}")
    if t["read"] != t["samples"] + t["paired_ends"] + t["filtered"] + t["other"]:
        fail(case, f"buckets do not add up to read {t['read']}")
    return got


def sort_value(sort, st):
    return {"sample": st["samples"], "time": st["total_ns"],
            "mean": st["total_ns"] // st["timed"] if st["timed"] else 0,
            "min": st.get("min_ns", 0), "max": st.get("max_ns", 0),
            "p99": st.get("p99_ns", 0)}[sort]


def check_sort(case, data, analysis, samples):
    by_key = {}
    for s in samples:
        by_key.setdefault(s.key, []).append(s)
    stats = {k: key_stats(v) for k, v in by_key.items()}
    for sort in ("sample", "time", "mean", "min", "max", "p99", "name"):
        got = [k["key"].partition("/")[0]
               for k in report(data, ["--event", analysis, "--key", sort])["keys"]]
        if sort == "name":
            want = sorted(stats)
        else:
            want = sorted(stats, key=lambda k: (-sort_value(sort, stats[k]),
                                                -stats[k]["samples"], k))
        # p99 past the exact range is within the bound only: compare sets there.
        if sort == "p99" and any(st["timed"] > EXACT_MAX for st in stats.values()):
            want, got = sorted(want), sorted(got)
        if got != want:
            fail(f"{case} --key {sort}", f"order {got} != {want}")


def check_top(case, data, analysis, samples, n):
    text = report(data, ["--event", analysis, "--top", str(n)], json_out=False)
    rows = text.split("Slowest")[1].strip().splitlines()[4:4 + n]
    got = [(r.split()[3].partition("/")[0], r.split()[4], int(r.split()[5], 16)) for r in rows]
    timed = sorted((s for s in samples if s.duration is not None),
                   key=lambda s: (-s.duration, s.time))[:n]
    want = [(s.key, f"{s.duration / 1000:.2f}us", s.rip) for s in timed]
    if got != want:
        fail(f"{case} --top {n}", f"{got} != {want}")


def check_histogram(case, data, analysis, samples):
    text = report(data, ["--event", analysis, "--histogram"], json_out=False)
    got, key = {}, None
    for line in text.splitlines():
        if line.endswith(" (us):"):
            key = line[:-len(" (us):")].partition("/")[0]
        elif key and line.startswith("["):
            lo = int(line[1:line.index(",")])
            got[(key, lo)] = int(line.split(")")[1].split()[0])
    want = {}
    for s in samples:
        if s.duration is None:
            continue
        us = s.duration // 1000
        lo = 0 if us == 0 else 1 << (us.bit_length() - 1)
        want[(s.key, lo)] = want.get((s.key, lo), 0) + 1
    got = {k: v for k, v in got.items() if v}
    if got != want:
        fail(f"{case} --histogram", f"{sorted(got.items())} != {sorted(want.items())}")


def check_csv(case, data, analysis):
    js = report(data, ["--event", analysis])
    text = report(data, ["--event", analysis, "--csv"], json_out=False)
    rows = list(csv.DictReader(io.StringIO(
        "\n".join(line for line in text.splitlines() if not line.startswith("#")))))
    if [r["key"] for r in rows] != [k["key"] for k in js["keys"]]:
        fail(f"{case} --csv", "keys differ from --json")
    for r, k in zip(rows, js["keys"]):
        for field in ("samples", "timed", "total_ns", "min_ns", "max_ns", "p50_ns", "p99.9_ns"):
            if field in k and int(r[field]) != k[field]:
                fail(f"{case} --csv", f"{k['key']} {field} {r[field]} != {k[field]}")


def main():
    data, scenario = sys.argv[1], sys.argv[2]
    with open(data + ".events") as f:
        events = [Sample(line) for line in f if not line.startswith("#")]
    analyses = sorted({s.analysis for s in events})
    for analysis in analyses:
        everything = [s for s in events if s.analysis == analysis]
        case = f"{scenario} {analysis}"
        base = ["--event", analysis]
        times = sorted(s.time for s in everything)
        start, end = times[len(times) // 4], times[3 * len(times) // 4]
        window = f"{start // 10**9}.{start % 10**9:09d},{end // 10**9}.{end % 10**9:09d}"

        check(case, data, base + ["--stats"], everything, everything)
        has_vcpu = all(s.vcpu is not None for s in everything)
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
            check(case + " --per-vcpu", data, base + ["--per-vcpu"], everything,
                  everything, group_of=lambda s: s.vcpu)
        check(case + " --per-vm", data, base + ["--per-vm"], everything, everything,
              group_of=lambda s: s.pid)
        check_sort(case, data, analysis, everything)
        check_top(case, data, analysis, everything, 5)
        check_histogram(case, data, analysis, everything)
        check_csv(case, data, analysis)
    for line in failures:
        print("FAIL:", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
