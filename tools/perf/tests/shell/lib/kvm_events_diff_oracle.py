# SPDX-License-Identifier: GPL-2.0
"""perf kvm-events diff, checked against two generated recordings.

For each key of either recording: samples per second of recording, the
average time and the p99, from the .events files alone; the recording's
length from perf script's first and last sample times.
"""

import math
import subprocess
import sys


def events(path, analysis):
    keys = {}
    with open(path + ".events") as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.split()
            if fields[0] != analysis:
                continue
            keys.setdefault(fields[3], []).append(None if fields[5] == "-" else int(fields[5]))
    return keys


def seconds(path):
    out = subprocess.run(["perf", "script", "-i", path, "-F", "time"],
                         capture_output=True, text=True, check=True).stdout.split()
    times = [float(t.rstrip(":")) for t in out]
    return times[-1] - times[0]


def stats(durations, secs):
    timed = sorted(d for d in durations if d is not None)
    rate = len(durations) / secs
    if not timed:
        return rate, None, None
    rank = max(1, math.ceil(0.99 * len(timed)))
    return rate, sum(timed) / len(timed) / 1000, timed[rank - 1] / 1000


def near(got, want, tolerance):
    return abs(float(got.rstrip("us%")) - want) <= tolerance


def main():
    old, new, analysis = sys.argv[1], sys.argv[2], sys.argv[3]
    out = subprocess.run(["perf", "kvm-events", "diff", "--event", analysis, old, new],
                         capture_output=True, text=True, check=True).stdout
    rows = {line.split()[0].partition("/")[0]: line.split()
            for line in out.splitlines()[6:] if line.strip() and not line.startswith("Sorted")}
    o_keys, n_keys = events(old, analysis), events(new, analysis)
    o_s, n_s = seconds(old), seconds(new)
    failures = []
    if set(rows) != set(o_keys) | set(n_keys):
        failures.append(f"keys {sorted(rows)} != {sorted(set(o_keys) | set(n_keys))}")
    for key, row in rows.items():
        want = []
        for side, keys, secs in (("old", o_keys, o_s), ("new", n_keys, n_s)):
            want.append(stats(keys[key], secs) if key in keys else None)
        cells = {"rate": (row[1], row[2]), "avg": (row[4], row[5]), "p99": (row[7], row[8])}
        for i, (name, idx) in enumerate((("rate", 0), ("avg", 1), ("p99", 2))):
            for side in (0, 1):
                w = want[side][idx] if want[side] else None
                g = cells[name][side]
                # Rates rest on perf script's microsecond times.
                tol = 1e-4 * w + 0.01 if name == "rate" and w else 0.005
                if w is None and g != "-":
                    failures.append(f"{key} {name}: {g}, expected -")
                elif w is not None and not near(g, w, tol):
                    failures.append(f"{key} {name}: {g}, expected {w:.4f}")
    for line in failures:
        print(f"FAIL: diff --event {analysis}: {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
