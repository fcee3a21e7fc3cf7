# SPDX-License-Identifier: GPL-2.0
"""The JSON of report and diff against the man page's fields

kvm_events_check.py schema: every field documented, with its type.
"""

import json
import os
import re

from kvm_events_truth import fail, perf, read_events, report


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
    """BPF: $KVM_EVENTS_SCHEMA_BPF, a record --use-bpf recording, if set"""
    bpf = os.environ.get("KVM_EVENTS_SCHEMA_BPF")
    schemas = read_schema(doc)
    if sorted(schemas) != ["Diff", "Report"]:
        fail(doc, f"JSON AND CSV OUTPUT has the sections {sorted(schemas)}")
        return
    pid = str(read_events(data)[0].pid)
    reports = [report(data, args) for args in (
        ["--stats"], ["--top", "3", "--histogram", "--event", "mmio"],
        ["--per-vcpu", "--top", "3", "--histogram", "--vcpu", "0-3", "-p", pid,
         "--duration", "1", "--time", "0,", "--vm", "web*"])]
    if sched is not None:
        reports += [report(sched, args) for args in (["--top", "20"], ["--event", "halt"])]
    report_fields = schemas["Report"]
    if bpf:
        reports.append(report(bpf, ["--event", "ioport"]))
    else:
        # no record --use-bpf recording here: without root or skeletons
        report_fields = {k: v for k, v in report_fields.items()
                         if not k.startswith("totals.kernel")}
    check_schema("report --json", report_fields, reports)
    # p99_9_ns is reached by name, as jq '.keys[0].p99_9_ns' does.
    if not isinstance(reports[0]["keys"][0]["p99_9_ns"], int):
        fail("report --json", "keys[0].p99_9_ns is no integer")
    diffs = [json.loads(perf(["kvm-events", "diff", "--json", a, b]))
             for a, b in ((data, old), (data, new))]
    diffs.append(json.loads(perf(["kvm-events", "diff", "--json", "--vm", "web1", data, new])))
    check_schema("diff --json", schemas["Diff"], diffs)
