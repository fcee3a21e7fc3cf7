#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""circles.py OUT: no file of ours calls into a file that calls back into it.

OUT is perf's build folder.  For each of our C files built into perf (the
repository's tools/perf/**/*.c but kvmgen's and the BPF programs), the
symbols its object defines and those it takes from others (nm); a circle
is a file that reaches itself through what it takes.  Prints each circle
with the symbols that close it, and exits 1 if there is one.

nm does not see the calls made from the static inline functions of our
headers: they are compiled into the file that uses them.  So the headers
are read too.  A header's inline functions belong to the C file of the
same name (kvm-events-queue.h's to kvm-events-queue.c): a file that uses
one takes what the function calls, as if it made the calls itself.  A
header without such a file (kvm-events-pairing.h) is a file of its own:
a C file that uses one of its inline functions takes that from the
header, which takes what its inline functions call.  So a header whose
inline function calls into a C file that uses it closes a circle.
"""

import os
import re
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Words before a '(' that are no calls
NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "typeof", "__typeof__",
             "defined", "__attribute__", "__builtin_expect", "likely", "unlikely"}


def ours(pattern):
    files = subprocess.run(["git", "-C", top, "ls-files", "-co", "--exclude-standard", pattern],
                           check=True, capture_output=True, text=True).stdout.split()
    return [f for f in files if "kvm-events-gen" not in f and not f.endswith(".bpf.c")]


def our_objects(out):
    for src in ours("tools/perf/*.c"):
        obj = os.path.join(out, os.path.relpath(src, "tools/perf")[:-2] + ".o")
        if os.path.exists(obj):
            yield src, obj


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


def code(path):
    """The text of a C file without its comments and the contents of its
    string and character literals"""
    text = open(os.path.join(top, path)).read()
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: "" if m.group(0)[0] == "/" else m.group(0)[0] * 2, text,
                  flags=re.S)


def calls(text):
    return set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text)) - NOT_CALLS


def inline_functions(text):
    """{name: the names its body calls} of the static inline functions defined"""
    found = {}
    for m in re.finditer(r"\bstatic\s+(?:inline|__always_inline)\b[^;{(]*?(\w+)\s*\(", text):
        end = matching(text, m.end(), "(", ")")
        body = re.match(r"[^;{]*\{", text[end:])
        if body:    # not a declaration
            start = end + body.end()
            found[m.group(1)] = calls(text[start:matching(text, start, "{", "}")])
            found[m.group(1)].discard(m.group(1))
    return found


def matching(text, i, opening, closing):
    """Where the bracket opened just before @i ends"""
    depth = 1
    while depth and i < len(text):
        depth += {opening: 1, closing: -1}.get(text[i], 0)
        i += 1
    return i


def includes(path, headers):
    """Our headers that @path includes, by the quoted names perf's build resolves"""
    found = set()
    text = open(os.path.join(top, path)).read()
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        for d in (os.path.dirname(path), "tools/perf/util", "tools/perf"):
            h = os.path.normpath(os.path.join(d, name))
            if h in headers:
                found.add(h)
                break
    return found


def main():
    out = sys.argv[1]
    sources = dict(our_objects(out))
    objs = list(sources.values())
    syms = {o: symbols(o) for o in objs}
    owner = {s: o for o in objs for s in syms[o][0]}

    # Our headers, what each includes, and its inline functions
    headers = {h: code(h) for h in ours("tools/perf/*.h")}
    included = {h: includes(h, headers) for h in headers}
    inlines = {h: inline_functions(text) for h, text in headers.items()}
    # An inline function belongs to its header, or to the C file of the same name
    obj_of = {src[:-2] + ".h": o for src, o in sources.items()}
    home = {}
    for h, funcs in inlines.items():
        for name in funcs:
            if name not in owner:   # built out of line (#ifdef stubs): nm's
                home.setdefault(name, (h, obj_of.get(h, h)))

    def reach(files):
        """@files, our headers, and those they include, directly or not"""
        seen, todo = set(files), list(files)
        while todo:
            for h in included.get(todo.pop(), ()):
                if h not in seen:
                    seen.add(h)
                    todo.append(h)
        return seen

    def inline_takes(node, names, visible):
        """What @node takes through its calls @names of the inline
        functions of the headers @visible: {symbol: owner}"""
        taken, todo, seen = {}, list(names), set()
        while todo:
            name = todo.pop()
            if name in seen or name not in home or home[name][0] not in visible:
                continue
            seen.add(name)
            h, unit = home[name]
            if unit != h:
                # the C file's own: its callees are taken directly
                for c in inlines[h][name]:
                    if c in owner:
                        taken[c] = owner[c]
                    todo.append(c)
            else:
                taken[name] = h
        return taken

    takes = {}
    for src, o in sources.items():
        text = code(src)
        visible = reach(includes(src, headers))
        takes[o] = {s: owner[s] for s in syms[o][1] if s in owner}
        takes[o].update(inline_takes(o, calls(text), visible))
    for h, funcs in inlines.items():
        if not funcs or obj_of.get(h):
            continue
        visible = reach([h])
        takes[h] = {}
        for name, callees in funcs.items():
            takes[h].update({c: owner[c] for c in callees if c in owner})
            takes[h].update(inline_takes(h, callees - set(funcs), visible))
    calls_to = {n: {o for o in t.values() if o != n} for n, t in takes.items()}

    def reaches(a, b):
        seen, todo = set(), [a]
        while todo:
            for n in calls_to.get(todo.pop(), ()):
                if n == b:
                    return True
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return False

    def name(n):
        return os.path.relpath(n, out) if n in syms else os.path.relpath(n, "tools/perf")

    circles = 0
    for a in sorted(calls_to, key=name):
        for b in sorted(calls_to[a], key=name):
            if reaches(b, a):
                taken = sorted(s for s, o in takes[a].items() if o == b)
                print(f"{name(a)} -> {name(b)}: " + ", ".join(taken[:4]))
                circles += 1
    nr = sum(1 for n in takes if n not in syms)
    print(f"{len(objs)} files of ours and {nr} headers with inline functions of their own, "
          f"{circles} calls in a circle")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
