# SPDX-License-Identifier: GPL-2.0
"""A real arm64 kernel's recording of the arm64 guest

kvm_events_check.py guest-arm64 and halt-arm64: its MMIO accesses,
calls and sysreg reads exact, only IRQ exits bounded, and each exit's
time the one perf script gives.
"""

import re

from kvm_events_truth import fail, perf, report
from kvm_events_accounting import cmd_once
from kvm_events_guest import check_bpf_whole, check_guest_exits, check_guest_tables, same_keys
from kvm_events_sites import check_guest_arm64_sites


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


def cmd_guest_arm64_bpf(data, plain, counts):
    """DATA, record --use-bpf --event all of the arm64 guest, and PLAIN, a
    plain recording of the same run: its own counts exact, every event
    whole, exact percentiles, and PLAIN's keys in every analysis"""
    n = dict(zip(("write", "read", "hvc", "sysreg"), counts))
    check_guest_exits(data, guest_arm64_vmexits(n), ARM64_HOST_EXITS)
    check_guest_tables(data, guest_arm64_tables(n))
    for analysis in ("vmexit", "mmio", "hypercall", "userspace", "halt"):
        same_keys(data, plain, analysis, check_bpf_whole(data, analysis), False)


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
