# SPDX-License-Identifier: GPL-2.0
"""A real kernel's recording of the bundled guest, perf test -w kvmguest

kvm_events_check.py guest: the guest's own counts are exact in every
analysis; only the exits that the host causes are bounded.
"""

import re

from kvm_events_truth import fail, report
from kvm_events_accounting import cmd_once
from kvm_events_sites import check_guest_sites


# The guest's pages that its first accesses fault in: its code (GPA
# 0x1000) and page 0, where it reads the counts of its loops.
GUEST_FIRST_TOUCH = 2
# Exits that the host causes, whatever the guest does; in a guest that
# runs for a few ms, fewer than its own exits.
HOST_EXITS = {"svm": ("interrupt", "nmi", "smi"),
              "vmx": ("EXTERNAL_INTERRUPT", "NMI_WINDOW", "PREEMPTION_TIMER")}


def guest_vmexits(vendor, n):
    """{key: (min, max)} of the bundled guest's exits"""
    mmio = n["write"] + n["read"]
    if vendor == "svm":
        return {"io": (n["out"] + n["in"],) * 2, "cpuid": (n["cpuid"],) * 2,
                "msr": (n["rdmsr"] + n["wrmsr"],) * 2, "hypercall": (n["hc"],) * 2,
                "hlt": (1, 1), "npf": (mmio, mmio + GUEST_FIRST_TOUCH)}
    # VMX, from KVM's code, as no VMX host was at hand: the first access
    # to an MMIO page is an EPT violation, which KVM answers with a
    # misconfigured entry, so later ones are misconfigs; the first VMMCALL
    # is a #UD, after which KVM has made it a VMCALL.
    return {"IO_INSTRUCTION": (n["out"] + n["in"],) * 2, "CPUID": (n["cpuid"],) * 2,
            "MSR_READ": (n["rdmsr"],) * 2, "MSR_WRITE": (n["wrmsr"],) * 2,
            "HLT": (1, 1), "EPT_VIOLATION": (0, 2 + GUEST_FIRST_TOUCH),
            "EPT_MISCONFIG": (max(mmio - 2, 0), mmio), "EXCEPTION_NMI": (0, 1),
            "VMCALL": (max(n["hc"] - 1, 0), n["hc"])}


def guest_tables(n):
    """{analysis: {key prefix: samples}} of the bundled guest, exact"""
    return {
        "mmio": {"0x80000:W": n["write"], "0x80010:R": n["read"]},
        "ioport": {"0x500:POUT": n["out"], "0x501:PIN": n["in"]},
        "msr": {"0x8b:R": n["rdmsr"], "0x8b:W": n["wrmsr"]},
        "hypercall": {"1": n["hc"]},
        "userspace": {"IO": n["out"] + n["in"], "MMIO": n["write"] + n["read"], "HLT": 1},
    }


def check_guest_exits(data, want, host_exits):
    """vmexit of DATA: each of WANT's keys within its (min, max), and no
    other key but HOST_EXITS, fewer than the guest's own"""
    exits = {k["key"]: k["samples"] for k in report(data, ["--event", "vmexit"])["keys"]}
    for key, (low, high) in want.items():
        got = exits.pop(key, 0)
        if not low <= got <= high:
            fail(f"{data} vmexit", f"{key}: {got} exits, expected "
                 f"{low if low == high else f'{low} to {high}'}")
    for key, got in exits.items():
        if key not in host_exits:
            fail(f"{data} vmexit", f"{key}: {got} exits the guest does not make")
    guest_exits = sum(low for low, _ in want.values())
    if sum(exits.values()) > guest_exits:
        fail(f"{data} vmexit", f"{exits}: more of the host's exits than the guest's "
             f"{guest_exits}")


def check_guest_tables(data, tables):
    for analysis, want in tables.items():
        got = {key_prefix(k["key"]): k["samples"] for k in
               report(data, ["--event", analysis])["keys"]}
        want = {k: v for k, v in want.items() if v}
        if got != want:
            fail(f"{data} {analysis}", f"keys {got}, expected {want}")


def key_prefix(key):
    """a key without the name after its number: 0x8b:R/IA32_UCODE_REV, 1 KVM_HC_..."""
    return re.split(r"[/ ]", key, maxsplit=1)[0]


def cmd_guest(data, counts):
    cmd_once(data, [])
    n = dict(zip(("out", "in", "write", "read", "cpuid", "rdmsr", "wrmsr", "hc"), counts))
    exits = [k["key"] for k in report(data, ["--event", "vmexit"])["keys"]]
    vendor = "svm" if "npf" in exits or "io" in exits else "vmx"
    check_guest_exits(data, guest_vmexits(vendor, n), HOST_EXITS[vendor])
    check_guest_tables(data, guest_tables(n))
    check_guest_sites(data, n)
