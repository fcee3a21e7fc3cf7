# SPDX-License-Identifier: GPL-2.0
"""The VMs' names: against kvmgen's +names truth, and real VMs'

kvm_events_check.py names FILE: FILE was written with +names; its .truth
has one "# vm_name {JSON}" line per VM, the vms[] entry the report's JSON
must have.  Every output that shows a VM must show that name, and --vm
must take the VMs its patterns match, with their samples' exact numbers.

kvm_events_check.py names-real, names-live: real qemu VMs that a test
started, recorded, and under live --vm.

kvm_events_check.py names-none FILE [WARNING]: FILE has no names, or
names that cannot be trusted (+names=corrupt|cut, WARNING the one line
the report must print about it): the VMs are shown by pid, as before.
"""

import csv
import io
import json
import re
import subprocess

from kvm_events_truth import check, fail, read_comms, read_events, report


def read_vm_names(data):
    """The .truth's "# vm_name {JSON}" lines, by pid"""
    names = {}
    with open(data + ".truth") as f:
        for line in f:
            if line.startswith("# vm_name "):
                vm = json.loads(line[len("# vm_name "):])
                names[vm["pid"]] = vm
    return names


def printable(name):
    """A name as text lines show it: control characters as '?'"""
    return "".join("?" if ord(c) < 0x20 or ord(c) == 0x7f else c for c in name)


def vm_titles(data, args):
    out = report(data, ["--per-vm"] + args, json_out=False)
    return [line for line in out.splitlines() if line.startswith("Analyze events for ")]


def check_text(data, names, comms):
    want = [f"Analyze events for VM {printable(names[p]['vm'])} (pid {p}, {comms[p]}):"
            for p in sorted(names)]
    got = sorted(vm_titles(data, []))
    if got != sorted(want):
        fail("--per-vm", f"titles {got} != {sorted(want)}")


def check_json_keys(data, names, args):
    for k in report(data, args)["keys"]:
        vm = names[k["pid"] if "pid" in k else k["group"]]
        if (k.get("vm"), k.get("vm_uuid")) != (vm["vm"], vm["vm_uuid"]):
            fail(" ".join(args), f"{k['key']}: vm {k.get('vm')!r}, vm_uuid "
                 f"{k.get('vm_uuid')!r} != {vm['vm']!r}, {vm['vm_uuid']!r}")


def check_csv(data, names):
    out = report(data, ["--per-vm", "--csv"], json_out=False)
    rows = list(csv.reader(io.StringIO("\n".join(
        line for line in out.split("\n") if not line.startswith("#")))))
    head, rows = rows[0], [r for r in rows[1:] if r]
    if head[-2:] != ["vm", "vm_uuid"]:
        fail("--csv", f"last columns {head[-2:]} != ['vm', 'vm_uuid']")
        return
    group = head.index("group")
    for r in rows:
        if r[0] != "key":
            continue
        vm = names[int(r[group])]
        if r[-2:] != [vm["vm"], vm["vm_uuid"] or ""]:
            fail("--csv", f"row {r}: vm, vm_uuid != {vm['vm']!r}, {vm['vm_uuid']!r}")


def check_vm_filter(data, names, events):
    """--vm by name, uuid, glob (name and cgroup), pid and list, each
    taking its VMs' samples and no other; and a pattern that takes none"""
    first, second = sorted(names)
    uuid = names[first]["vm_uuid"]
    cases = [(names[first]["vm"], {first}), (uuid.upper(), {first}), ("db*", {second}),
             ("*x2d2*", {second}), (str(second), {second}),
             (f"{names[first]['vm']},{second}", {first, second})]
    for pattern, pids in cases:
        got = check(f"--vm {pattern}", data, ["--vm", pattern],
                    [s for s in events if s.pid in pids], events)
        if got["filters"].get("vm") != pattern:
            fail(f"--vm {pattern}", f"filters.vm {got['filters'].get('vm')!r}")
        got = check(f"--vm {pattern} --per-vm", data, ["--vm", pattern, "--per-vm"],
                    [s for s in events if s.pid in pids], events, group_of=lambda s: s.pid)
    out = report(data, ["--vm", f"nomatch*,{first}"], json_out=False)
    footer = [line for line in out.splitlines() if line.startswith("--vm:")]
    if footer != ["--vm: no VM matches nomatch*."]:
        fail("--vm nomatch*", f"footer lines {footer}")


def check_diff(data, names):
    """diff --vm: the VM it took on each side, by pid and name"""
    first = sorted(names)[0]
    name = names[first]["vm"]
    got = json.loads(subprocess.run(
        ["perf", "kvm-events", "diff", "--json", "--vm", name, data, data],
        capture_output=True, text=True, check=True).stdout)
    want = [{"pid": first, "vm": name}]
    if got.get("vm") != name or got["old"].get("vms") != want or got["new"].get("vms") != want:
        fail("diff --vm", f"vm {got.get('vm')!r}, old.vms {got['old'].get('vms')}, "
             f"new.vms {got['new'].get('vms')} != {want}")


def cmd_names(data):
    names = read_vm_names(data)
    comms = read_comms(data)
    events = [s for s in read_events(data) if s.analysis == "vmexit"]
    if len(names) != 2 or set(names) != set(comms):
        fail(data, f"the truth names {sorted(names)}, not the 2 VMs {sorted(comms)}")
        return
    got = report(data, [])
    if got["vms"] != [names[p] for p in sorted(names)]:
        fail("vms[]", f"{got['vms']} != {[names[p] for p in sorted(names)]}")
    check("--per-vm", data, ["--per-vm"], events, events, group_of=lambda s: s.pid)
    check_text(data, names, comms)
    check_json_keys(data, names, ["--per-vm"])
    check_json_keys(data, names, ["--per-vcpu"])
    check_csv(data, names)
    check_vm_filter(data, names, events)
    check_diff(data, names)


def cmd_names_none(data, warning=None):
    comms = read_comms(data)
    events = [s for s in read_events(data) if s.analysis == "vmexit"]
    out = subprocess.run(["perf", "kvm-events", "report", "-i", data, "--per-vm", "--json"],
                         capture_output=True, text=True, check=True)
    errs = [line for line in out.stderr.splitlines() if line]
    if errs != ([warning] if warning else []):
        fail(data, f"stderr {errs} != {[warning] if warning else []}")
    got = check("no names --per-vm", data, ["--per-vm"], events, events,
                group_of=lambda s: s.pid)
    if got["vms"] != [] or any(k["vm"] is not None for k in got["keys"]):
        fail(data, f"names where none are: vms {got['vms']}")
    want = [f"Analyze events for VM pid {p} ({comms[p]}):" for p in sorted(comms)]
    if sorted(vm_titles(data, [])) != want:
        fail(data, f"titles {vm_titles(data, [])} != {want}")
    pid = sorted(comms)[0]
    check(f"no names --vm {pid}", data, ["--vm", str(pid)],
          [s for s in events if s.pid == pid], events)


def read_started(path):
    """The VMs a test started: "pid name uuid" lines, the name with '+'
    for its spaces"""
    with open(path) as f:
        return {int(w[0]): (w[1].replace("+", " "), w[2]) for w in (line.split() for line in f)}


def key_sums(keys):
    """Keys summed by name: samples, timed, total_ns, min_ns and max_ns"""
    sums = {}
    for k in keys:
        s = sums.setdefault(k["key"], [0, 0, 0, None, None])
        s[0] += k["samples"]
        s[1] += k["timed"]
        s[2] += k["total_ns"]
        if k["timed"]:
            s[3] = k["min_ns"] if s[3] is None else min(s[3], k["min_ns"])
            s[4] = k["max_ns"] if s[4] is None else max(s[4], k["max_ns"])
    return sums


def check_real_filter(data, per_vm, pattern, pids):
    """--vm PATTERN: the same keys as the --per-vm rows of the VMs @pids"""
    got = report(data, ["--vm", pattern])
    want = key_sums(k for k in per_vm["keys"] if k["group"] in pids)
    if not want:
        fail(f"--vm {pattern}", f"the VMs {sorted(pids)} made no exit")
    if key_sums(got["keys"]) != want:
        fail(f"--vm {pattern}", f"keys {key_sums(got['keys'])} != --per-vm's {want}")
    return got


def cmd_names_real(data, started_path, later, later_started_path):
    """A recording of real qemu VMs that the test started (STARTED: "pid
    name uuid"), one of them twice under its name; LATER, a second
    recording of that name only."""
    started = read_started(started_path)
    got = report(data, ["--per-vm"])
    vms = {v["pid"]: v for v in got["vms"]}
    for pid, (name, uuid) in started.items():
        want = {"pid": pid, "comm": "qemu-system-x86", "vm": name, "vm_uuid": uuid,
                "vm_source": "qemu"}
        have = {f: vms.get(pid, {}).get(f) for f in want}
        if have != want:
            fail("vms[]", f"pid {pid}: {have} != {want}")
    titles = vm_titles(data, [])
    for pid, (name, _) in started.items():
        title = f"Analyze events for VM {printable(name)} (pid {pid}, qemu-system-x86):"
        if title not in titles:
            fail("--per-vm", f"no title {title!r} in {titles}")
    for k in got["keys"]:
        if k["group"] in started and k["vm"] != started[k["group"]][0]:
            fail("--per-vm", f"{k['group']} {k['key']}: vm {k['vm']!r}")
    # A VM started again has its name and uuid, and a pid of its own.
    by_name, by_uuid = {}, {}
    for pid, (name, uuid) in started.items():
        by_name.setdefault(name, set()).add(pid)
        by_uuid.setdefault(uuid, set()).add(pid)
        check_real_filter(data, got, str(pid), {pid})
    for uuid, pids in by_uuid.items():
        check_real_filter(data, got, uuid.upper(), pids)
    for name, pids in by_name.items():
        # --vm's list is comma separated: a ',' of a name is matched by '?'
        check_real_filter(data, got, name.replace(",", "?"), pids)
        check_real_filter(data, got, name[:2] + "*", pids)
    out = report(data, ["--vm", "nomatch"], json_out=False)
    if [line for line in out.splitlines() if line.startswith("--vm:")] != \
            ["--vm: no VM matches nomatch."]:
        fail("--vm nomatch", "no footer line '--vm: no VM matches nomatch.'")
    check_real_diff(data, started, later, read_started(later_started_path))


def check_real_diff(data, started, later, later_started):
    """diff --vm NAME: the VM restarted, by its name in both recordings"""
    name = next(iter(later_started.values()))[0]
    got = json.loads(subprocess.run(
        ["perf", "kvm-events", "diff", "--json", "--vm", name, data, later],
        capture_output=True, text=True, check=True).stdout)
    for side, pids in (("old", started), ("new", later_started)):
        want = [{"pid": p, "vm": name} for p in sorted(pids) if pids[p][0] == name]
        if sorted(got[side]["vms"], key=lambda v: v["pid"]) != want:
            fail(f"diff --vm {name}", f"{side}.vms {got[side]['vms']} != {want}")
    old = key_sums(report(data, ["--vm", name])["keys"])
    new = key_sums(report(later, ["--vm", name])["keys"])
    for k in got["keys"]:
        for side, sums in (("old", old), ("new", new)):
            samples = (k[side] or {}).get("samples", 0)
            if samples != sums.get(k["key"], [0])[0]:
                fail(f"diff --vm {name}", f"{k['key']} {side} samples {samples} "
                     f"!= {sums.get(k['key'], [0])[0]}")


LABEL_RE = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def read_exits(path):
    """A metrics page's kvm_events_exits_total series: [(labels, value)]"""
    series = []
    with open(path) as f:
        for line in f:
            if line.startswith("kvm_events_exits_total{"):
                labels, _, value = line.rpartition("} ")
                series.append(({k: v.replace('\\"', '"').replace("\\n", "\n")
                                .replace("\\\\", "\\") for k, v in LABEL_RE.findall(labels)},
                               int(value)))
    return series


def cmd_names_live(prom, out, data, name, uuid):
    """live --vm NAME --metrics-by vm over real VMs, with DATA recorded
    beside it: each series is that VM's, by name and uuid and not pid,
    with the exits per key that report --vm NAME finds in DATA; live's
    tables are that VM's, by name."""
    want = {k: s[0] for k, s in key_sums(report(data, ["--vm", name])["keys"]).items()}
    got = {}
    for labels, value in read_exits(prom):
        if (labels.get("vm"), labels.get("vm_uuid"), "pid" in labels) != (name, uuid, False):
            fail(prom, f"a series of another VM, or by pid: {labels}")
        got[labels.get("key")] = got.get(labels.get("key"), 0) + value
    if not want or got != want:
        fail(prom, f"exits {got} != report --vm {name}'s {want}")
    # Before the VM's first exit, the one table is of --vm's VMs, "VM web1,"
    with open(out) as f:
        titles = [line.rstrip("\n") for line in f if line.startswith("Analyze events for VM")]
    named = [t for t in titles if t.startswith(f"Analyze events for VM {name} (pid ")]
    if not named or any(t not in named and not t.startswith(f"Analyze events for VM {name}, ")
                        for t in titles):
        fail(out, f"live's tables are of {sorted(set(titles))}, not of VM {name} alone")
