# SPDX-License-Identifier: GPL-2.0
"""The layout of the report's tables

kvm_events_check.py columns: every row in line with its header, and
the key column as wide as the longest key.
"""

import re

from kvm_events_truth import fail, report


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
