# SPDX-License-Identifier: GPL-2.0
"""--key rip and sym: the guest code sites of the exits

kvm_events_check.py kallsyms and sites on generated recordings, and
the real guests' loops with their own maps.
"""

import bisect

from kvm_events_truth import fail, key_stats, perf, read_events, report


def read_kallsyms(path):
    """[(start, name or None)], one per start, in order: the first line's
    symbol of each start, named where it is a function (type t, T, w, W)"""
    syms = {}
    for line in open(path):
        addr, kind, name = line.split("\t")[0].split()
        syms.setdefault(int(addr, 16), name if kind in "tTwW" else None)
    return sorted(syms.items())


def site_name(rip, syms, mode):
    """--key rip or sym's name of RIP: in the symbol that starts last at or
    before it, if a function's and not the last symbol; else hex"""
    starts = [start for start, _ in syms]
    i = bisect.bisect_right(starts, rip)
    if i == 0 or i == len(syms) or syms[i - 1][1] is None:
        return f"0x{rip:x}"
    start, name = syms[i - 1]
    return name if mode == "sym" else f"{name}+0x{rip - start:x}"


def cmd_kallsyms(data, out):
    """A made-up guest kallsyms over .events' rips: functions 64 KiB apart,
    none over the lowest and highest 256 KiB (their rips stay hex), one
    data symbol that ends a function early, an alias, a module's function,
    and _etext at the end."""
    rips = [s.rip for s in read_events(data) if s.rip]
    lo, hi = (min(rips) | 0xffff) + 1 + 0x30000, max(rips) & ~0xffff
    hi -= 0x40000
    with open(out, "w") as f:
        for n, start in enumerate(range(lo, hi, 0x10000)):
            f.write(f"{start:016x} {'Tt'[n % 2]} guest_fn_{n}\n")
            if n == 3:
                f.write(f"{start:016x} T guest_fn_{n}_alias\n")
                f.write(f"{start + 0x8000:016x} d guest_data_{n}\n")
            if n == 5:
                f.write(f"{start + 0x4000:016x} t guest_mod_fn\t[guest_mod]\n")
        f.write(f"{hi:016x} T _etext\n")


def cmd_sites(data, analysis, mode, kallsyms=None):
    """--key rip or sym of ANALYSIS against .events: every site's samples,
    timed samples, total, min and max, exactly"""
    syms = read_kallsyms(kallsyms) if kallsyms else []
    want = {}
    for s in read_events(data):
        if s.analysis == analysis:
            want.setdefault(site_name(s.rip, syms, mode), []).append(s)
    args = ["--event", analysis, "--key", mode]
    if kallsyms:
        args += ["--guest-kallsyms", kallsyms]
    got = {k["key"]: k for k in report(data, args)["keys"]}
    case = f"{data} {' '.join(args)}"
    if sorted(got) != sorted(want):
        fail(case, f"sites {sorted(set(got) ^ set(want))[:5]} differ")
        return
    for name, samples in want.items():
        st = key_stats(samples)
        for field in ("samples", "timed", "total_ns", "min_ns", "max_ns"):
            if st.get(field) != got[name].get(field):
                fail(case, f"{name}: {field} {got[name].get(field)}, expected {st.get(field)}")


def check_loop_sites(data, tables, loops):
    """--key sym with the guest's own map of its loops (perf test -w
    kvmguest map): in each analysis of TABLES, each loop makes exactly its
    exits; in vmexit, each loop of LOOPS at least its own, and every exit
    is in one of them"""
    kallsyms = data + ".map"
    with open(kallsyms, "w") as f:
        f.write(perf(["test", "-w", "kvmguest", "map"]))
    for analysis, want in tables.items():
        got = {k["key"]: k["samples"] for k in report(data, [
            "--event", analysis, "--key", "sym", "--guest-kallsyms", kallsyms])["keys"]}
        want = {k: v for k, v in want.items() if v}
        if got != want:
            fail(f"{data} {analysis} --key sym", f"sites {got}, expected {want}")
    got = {k["key"]: k["samples"] for k in report(data, [
        "--key", "sym", "--guest-kallsyms", kallsyms])["keys"]}
    if set(got) - set(loops) or any(got.get(k, 0) < v for k, v in loops.items()):
        fail(f"{data} vmexit --key sym", f"sites {got}, expected at least {loops}")


def check_guest_sites(data, n):
    """The x86 guest's loops: its port, MMIO, MSR and hypercall loops
    exactly, and in vmexit its CPUID loop and final halt too"""
    check_loop_sites(data, {
        "ioport": {"pio_out_loop": n["out"], "pio_in_loop": n["in"]},
        "mmio": {"mmio_write_loop": n["write"], "mmio_read_loop": n["read"]},
        "msr": {"rdmsr_loop": n["rdmsr"], "wrmsr_loop": n["wrmsr"]},
        "hypercall": {"hypercall_loop": n["hc"]}},
        {"pio_out_loop": n["out"], "pio_in_loop": n["in"], "cpuid_loop": n["cpuid"],
         "mmio_write_loop": n["write"], "mmio_read_loop": n["read"],
         "rdmsr_loop": n["rdmsr"], "wrmsr_loop": n["wrmsr"],
         "hypercall_loop": n["hc"], "guest_halt": 1})


def check_guest_arm64_sites(data, n):
    """The arm64 guest's loops: its MMIO accesses and calls exactly, and
    in vmexit its set-up and system register loop too"""
    check_loop_sites(data, {
        "mmio": {"mmio_write_loop": n["write"], "mmio_read_loop": n["read"],
                 "guest_done": 1},
        "hypercall": {"hvc_loop": n["hvc"]}},
        {"guest_setup": 1, "mmio_write_loop": n["write"], "mmio_read_loop": n["read"],
         "hvc_loop": n["hvc"], "sysreg_loop": n["sysreg"], "guest_done": 1})
