# SPDX-License-Identifier: GPL-2.0
"""The report's tables and options against the ground truth

kvm_events_check.py table and options: every analysis as a table, and
with each option that selects, groups or sorts its events, --top,
--histogram, --csv and the span.
"""

import csv
import io

from kvm_events_truth import (COLUMNS, EXACT_MAX, KEY_NAMES, NO_TIME_KEYS, check,
                              check_truth_table, fail, key_stats, read_comms, read_events,
                              read_truth, report, untimed_of, vcpu_of)


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
    """--top's JSON objects for these samples, of VMs without names"""
    return [{"time_ns": s.time, "vcpu": s.vcpu, "pid": s.pid, "tid": s.tid, "key": s.key,
             "vm": None, "vm_uuid": None, "duration_ns": s.duration,
             "rip": f"{s.rip:#x}" if s.rip else None}
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
# ...and last, a key's or top event's VM as its owner named it
CSV_VM = ["vm", "vm_uuid"]
CSV_FLOATS = ("samples_pct", "time_pct", "avg_ns", "stddev_ns")


def csv_cell(field, cell):
    """A CSV cell as the JSON value it stands for"""
    if cell == "":
        return None
    if field == "idle":
        return cell == "1"
    if field in ("key", "rip", "comm") + tuple(CSV_VM):
        return cell
    return float(cell) if field in CSV_FLOATS else int(cell)


def csv_rows(case, text):
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    header = CSV_KEY + CSV_VCPU + CSV_BUCKET + CSV_TOP + CSV_VM
    if lines[0].split(",") != ["record"] + header:
        fail(case, f"header {lines[0]} != record,{','.join(header)}")
    rows = {"key": [], "bucket": [], "top": []}
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        fields = {"key": CSV_KEY + CSV_VCPU + CSV_VM,
                  "bucket": ["group", "key"] + CSV_VCPU + CSV_BUCKET + CSV_VM,
                  "top": CSV_TOP_ROW + CSV_VM}.get(r["record"])
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
    want = [json_as_csv(k, CSV_KEY + CSV_VCPU + CSV_VM) for k in js["keys"]]
    for got, k in zip(rows["key"], want):
        for field in CSV_FLOATS:
            if got[field] is not None and k[field] is not None and \
               abs(got[field] - k[field]) < 1e-9:
                got[field] = k[field]
    if rows["key"] != want:
        fail(case, f"keys {rows['key']} != the JSON's {want}")
    want = [dict(json_as_csv(k, ["group", "key"] + CSV_VCPU + CSV_VM), **b)
            for k in js["keys"] for b in k["histogram"]]
    if rows["bucket"] != want:
        fail(case, f"buckets {rows['bucket']} != the JSON's {want}")
    want = [json_as_csv(o, CSV_TOP_ROW + CSV_VM) for o in js["top"]]
    if rows["top"] != want:
        fail(case, f"top {rows['top']} != the JSON's {want}")
    comments = dict(w.split("=", 1) for line in text.splitlines() if line.startswith("#")
                    for w in line[1:].split())
    span = {f: int(v) if v else None for f, v in comments.items() if f in js["span"]}
    if comments.get("schema_version") != str(js["schema_version"]) or span != js["span"] or \
       comments.get("schema_minor") != str(js["schema_minor"]):
        fail(case, f"comments {comments} != the JSON's schema_version, schema_minor and span")


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
