#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""circles.py OUT: no file of ours calls into a file that calls back into it.

OUT is perf's build folder.  For each of our C files built into perf (the
repository's tools/perf/**/*.c but kvmgen's and the BPF programs), the
symbols its object defines and those it takes from others (nm); a circle
is a file that reaches itself through what it takes.  Prints each circle
with the symbols that close it, and exits 1 if there is one.
"""

import os
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def our_objects(out):
    files = subprocess.run(["git", "-C", top, "ls-files", "tools/perf/*.c"],
                           check=True, capture_output=True, text=True).stdout.split()
    for src in files:
        if "kvm-events-gen" in src or src.endswith(".bpf.c"):
            continue
        obj = os.path.join(out, os.path.relpath(src, "tools/perf")[:-2] + ".o")
        if os.path.exists(obj):
            yield obj


def symbols(obj):
    defined, taken = set(), set()
    for line in subprocess.run(["nm", obj], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDRB":
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            taken.add(f[1])
    return defined, taken


def main():
    objs = list(our_objects(sys.argv[1]))
    syms = {o: symbols(o) for o in objs}
    owner = {s: o for o in objs for s in syms[o][0]}
    calls = {o: {owner[s] for s in syms[o][1] if owner.get(s, o) != o} for o in objs}

    def reaches(a, b):
        seen, todo = set(), [a]
        while todo:
            for n in calls[todo.pop()]:
                if n == b:
                    return True
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return False

    circles = 0
    for a in objs:
        for b in sorted(calls[a]):
            if reaches(b, a):
                taken = sorted(s for s in syms[a][1] if owner.get(s) == b)
                print(f"{os.path.relpath(a, sys.argv[1])} -> {os.path.relpath(b, sys.argv[1])}: "
                      + ", ".join(taken[:4]))
                circles += 1
    print(f"{len(objs)} files of ours, {circles} calls in a circle")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
