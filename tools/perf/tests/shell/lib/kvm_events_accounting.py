# SPDX-License-Identifier: GPL-2.0
"""A report's totals against what was recorded

Every sample read is in one bucket of the totals, every loss is counted
once, and, read from the file's own records, perf record wrote each
sample once.
"""

import struct

from kvm_events_truth import fail, read_truth, report


def cmd_accounting(data, script_samples, args):
    case = f"{data} {' '.join(args)}"
    r = report(data, args)
    header, _ = read_truth(data)
    t = r["totals"]
    checks = {
        "read == perf script samples": t["read"] == script_samples,
        "read == the truth's samples total": t["read"] == header.get("total"),
        "read == sum of events_read + other_events":
            t["read"] == sum(r["events_read"].values()) + t["other_events"],
        "read == samples + paired_ends + filtered + other + no_memory":
            t["read"] == t["samples"] + t["paired_ends"] + t["filtered"] + t["other"] +
            t["no_memory"],
        "samples == sum over keys": t["samples"] == sum(k["samples"] for k in r["keys"]),
        "untimed == no_end + no_begin":
            sum(k["samples"] - k["timed"] for k in r["keys"]) == t["no_end"] + t["no_begin"],
        "total_ns == sum over keys": t["total_ns"] == sum(k["total_ns"] for k in r["keys"]),
    }
    for name, ok in checks.items():
        if not ok:
            fail(case, f"{name}: {t}")


# Record types, of perf_event.h and perf's event.h
PERF_RECORD_HEADER_TRACING_DATA = 66


def file_records(data):
    """(offset, type, bytes) of each record in FILE's data section, or in
    the stream of a file perf wrote to a pipe"""
    raw = open(data, "rb").read()
    if struct.unpack_from("<Q", raw, 8)[0] == 16:
        off, end = 16, len(raw)
    else:
        off, size = struct.unpack_from("<QQ", raw, 40)
        end = off + size
    while off + 8 <= end:
        rtype, _, rsize = struct.unpack_from("<IHH", raw, off)
        if rsize < 8:
            break
        yield off, rtype, raw[off:off + rsize]
        off += rsize
        # a pipe's tracing data follows its record, out of its size
        if rtype == PERF_RECORD_HEADER_TRACING_DATA:
            off += struct.unpack_from("<I", raw, off - rsize + 8)[0]


def file_lost(data):
    """(number, sum of lost) of the PERF_RECORD_LOST in FILE's data section"""
    chunks = lost = 0
    for _, rtype, rec in file_records(data):
        if rtype == 2:
            chunks += 1
            lost += struct.unpack_from("<Q", rec, 16)[0]
    return chunks, lost


def cmd_once(data, want):
    """Each sample in FILE once: a sample the same byte for byte as an
    earlier one (the same time, cpu, tid and raw data) is one that perf
    record wrote twice, where the recording's clock moves on between
    events (the x86 test machine boots with tsc=reliable for that).  WANT lists the copies expected, as FIRST:COPY
    file offsets in hex; by default none."""
    first = {}
    copies = []
    for off, rtype, rec in file_records(data):
        if rtype != 9:
            continue
        if rec in first:
            copies.append(f"{first[rec]:#x}:{off:#x}")
        else:
            first[rec] = off
    if copies != want:
        fail(data, f"samples written twice (first:copy): {' '.join(copies) or 'none'}, "
             f"expected {' '.join(want) or 'none'}")


def cmd_accounting_real(data, script_samples, with_lost=False):
    cmd_once(data, [])
    lost = file_lost(data) if with_lost else (0, 0)
    if with_lost and not lost[0]:
        fail(data, "no PERF_RECORD_LOST: the recording lost nothing")
    for analysis in ("vmexit", "mmio", "ioport", "userspace", "msr", "hypercall", "halt"):
        for reader in ([], ["--generic-reader"], ["--threads", "1"]):
            args = ["--event", analysis] + reader
            t = report(data, args)["totals"]
            parts = (t["samples"] + t["paired_ends"] + t["filtered"] + t["other"] +
                     t["no_memory"])
            if t["read"] != script_samples or parts != t["read"]:
                fail(f"{data} {' '.join(args)}", f"read {t['read']}, in buckets {parts}, "
                     f"perf script shows {script_samples}: {t}")
            if (t["lost_chunks"], t["lost_events"]) != lost:
                fail(f"{data} {' '.join(args)}", f"lost {t['lost_events']} in "
                     f"{t['lost_chunks']} chunks, the file's PERF_RECORD_LOST {lost[1]} "
                     f"in {lost[0]}")


def cmd_lost(data, args):
    case = f"{data} {' '.join(args)}"
    header, _ = read_truth(data)
    lost = header.get("lost", 0)
    if not lost:
        fail(case, "no loss in the ground truth")
        return
    # kvmgen's +lost drops 7 events per PERF_RECORD_LOST
    chunks = lost // 7
    t = report(data, args)["totals"]
    for field, want in (("lost_events", lost), ("perf_record_lost", lost),
                        ("perf_record_lost_samples", lost), ("lost_chunks", chunks)):
        if t[field] != want:
            fail(case, f"totals.{field} {t[field]} != {want}")
    text = report(data, args, json_out=False)
    if f"\nLost events:{lost}, in {chunks} chunks.\n" not in text:
        fail(case, f"the footer does not say 'Lost events:{lost}, in {chunks} chunks.'")
