# SPDX-License-Identifier: GPL-2.0
"""perf kvm-events diff against the ground truth of its two recordings

kvm_events_check.py diff: rates, average and p99 times of every key, as
a table, --json and --csv.
"""

import csv
import io
import json
import re

from kvm_events_truth import BOUND, COLUMNS, EXACT_MAX, fail, key_stats, perf, read_events
from kvm_events_report import SORT_KEYS


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
