#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""series.py BASE TREE OUT

Write the work as the patch series the perf maintainers would review:
OUT/*.patch, which `git am` applies to BASE in order, and OUT.git, the
repository they were made in, one commit per patch.

patches/series lists, in order:

  patch NAME   a patch of upstream files in patches/, applied to the base
               tree and mailed as it is (the reader fixes);
  final NAME   a patch of upstream files in patches/ that lay-tree.sh
               applies, but that is not mailed: the steps take its changes
               (registrations, Build lines) as they need them;
  step NAME    patches/steps/NAME: a commit message, a line '---', then
               what the patch brings:
                 add FILE...            files of ours, whole;
                 upstream FILE...       upstream files the final patches
                                        change, as they end up;
                 line FILE TEXT         the line of FILE that contains TEXT
                                        comes with this patch, not before;
                 block FILE START | END the lines from the one containing
                                        START up to the one containing END,
                                        which stays; a comment opener ("/*")
                                        just above either goes with it.
                 was FILE TEXT          the line of FILE that contains TEXT
                 was FILE START | END   (or the block) is this patch's
                                        change of what an earlier patch
                                        brought: before it, the lines were
                                        those of the '|' lines that follow,
                                        each '|' and then the line as it was.

Each patch's state of a file is its final state (TREE, the laid tree)
without the lines that later steps claim, and with what later steps
changed (was) as it was.  The script checks that every
file of ours and every upstream file the final patches change is brought
by one step, that each claim matches exactly one place, that the last
state is TREE, that no patch adds more than MAX_LINES lines, and that no
patch file, as mailed (its message, context and binary data too), is
longer than MAX_PATCH_LINES lines.
"""

import os
import re
import shutil
import subprocess
import sys

# "No patch over about 1,000 lines"
MAX_LINES = 1050
# ...and none that takes more than this to read, whole
MAX_PATCH_LINES = 1200
SIGN_OFF = "Signed-off-by: perf kvm-events <kvm-events@localhost>"

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg):
    sys.exit(f"error: {msg}")


def git(repo, *args, **kw):
    return subprocess.run(["git", "-C", repo, "-c", "user.name=perf kvm-events",
                           "-c", "user.email=kvm-events@localhost", *args],
                          check=True, capture_output=True, text=True, **kw).stdout


class Step:
    def __init__(self, name):
        self.name = name
        text = open(os.path.join(top, "patches", "steps", name)).read()
        msg, sep, directives = text.partition("\n---\n")
        if not sep:
            die(f"patches/steps/{name}: no '---' line before its directives")
        self.message = msg.strip() + "\n\n" + SIGN_OFF + "\n"
        self.adds, self.upstream, self.claims = [], [], []
        for n, line in enumerate(directives.splitlines(), 1):
            where = f"patches/steps/{name}: directive {n}"
            if line.startswith("|"):
                if not self.claims or self.claims[-1][3] is None:
                    die(f"{where}: a '|' line that follows no 'was'")
                self.claims[-1][3].append(line[1:] + "\n")
                continue
            word, _, rest = line.strip().partition(" ")
            if not word or word.startswith("#"):
                continue
            if word == "add":
                self.adds += rest.split()
            elif word == "upstream":
                self.upstream += rest.split()
            elif word in ("line", "block", "was"):
                path, _, text = rest.partition(" ")
                was = [] if word == "was" else None
                start, bar, end = text.partition(" | ")
                if word == "block" and not bar:
                    die(f"{where}: block FILE START | END")
                if word == "line" or not bar:
                    start, end = text, None
                self.claims.append((path, start, end, was))
            else:
                die(f"{where}: unknown directive '{word}'")


def read_series():
    entries = []
    for line in open(os.path.join(top, "patches", "series")):
        line = line.split("#", 1)[0].split()
        if line:
            entries.append((line[0], line[1]))
    return entries


def find(lines, text, path, start=0):
    hits = [i for i in range(start, len(lines)) if text in lines[i]]
    if not hits:
        die(f"{path}: no line contains '{text}'")
    return hits


def claimed_lines(lines, path, claims):
    """The indexes of @lines that @claims take, checking each matches once
    (a line that is the text alone, a heading, is the one where others
    contain it too); and, by the index of its first line, what each 'was'
    claim had there before."""
    taken, was = set(), {}
    for _, start, end, old in claims:
        hits = find(lines, start, path)
        alone = [i for i in hits if lines[i].strip() == start.strip()]
        if len(hits) > 1 and len(alone) == 1:
            hits = alone
        if end is None:
            if len(hits) != 1:
                die(f"{path}: {len(hits)} lines contain '{start}', claim one")
            taken.add(hits[0])
            if old is not None:
                was[hits[0]] = old
            continue
        if len(hits) != 1:
            die(f"{path}: {len(hits)} lines contain '{start}', start a block at one")
        first, stop = hits[0], find(lines, end, path, hits[0] + 1)[0]
        if first and lines[first - 1].strip() == "/*":
            first -= 1
        if lines[stop - 1].strip() == "/*":
            stop -= 1
        taken.update(range(first, stop))
        if old is not None:
            was[first] = old
    return taken, was


def undo(text, path, claims):
    """@text (bytes) without what @claims take, with what their 'was' gave"""
    if not claims:
        return text
    lines = text.decode().splitlines(keepends=True)
    taken, was = claimed_lines(lines, path, claims)
    return "".join("".join(was.get(i, [])) + ("" if i in taken else l)
                   for i, l in enumerate(lines)).encode()


def state(path, final, later_steps):
    """@final (bytes) as it was before @later_steps, a list of each later
    step's claims.  The newest steps that change what an earlier one
    brought ('was') are undone one by one, so that the claims of older
    steps find the lines those give back; the rest at once."""
    text, pending = final, []
    for claims in reversed(later_steps):
        claims = [c for c in claims if c[0] == path]
        if not pending and any(c[3] is not None for c in claims):
            text = undo(text, path, claims)
        else:
            pending += claims
    return undo(text, path, pending)


def main():
    base, tree, out = sys.argv[1:4]
    repo = out + ".git"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(repo)
    shutil.copytree(os.path.join(base, "tools"), os.path.join(repo, "tools"), symlinks=True)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")

    entries = read_series()
    steps = [Step(name) for kind, name in entries if kind == "step"]
    for kind, name in entries:
        if kind == "patch":
            git(repo, "am", "-q", os.path.join(top, "patches", name))

    ours = subprocess.run(["git", "-C", top, "ls-files", "-co", "--exclude-standard", "tools"],
                          check=True, capture_output=True, text=True).stdout.split()
    upstream = set()
    for kind, name in entries:
        if kind == "final":
            diff = open(os.path.join(top, "patches", name)).read()
            upstream.update(re.findall(r"^\+\+\+ b/(\S+)", diff, re.M))
    brought = {}
    for step in steps:
        for path in step.adds + step.upstream:
            if path in brought:
                die(f"{path}: brought by {brought[path]} and {step.name}")
            brought[path] = step.name
    for path in ours + sorted(upstream):
        if path not in brought:
            die(f"{path}: brought by no step of patches/series")

    finals = {p: open(os.path.join(tree, p), "rb").read() for p in brought}
    for k, step in enumerate(steps):
        later = [s.claims for s in steps[k + 1:]]
        for s in steps[:k + 1]:
            for path in s.adds + s.upstream:
                dest = os.path.join(repo, path)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "wb") as f:
                    f.write(state(path, finals[path], later))
                shutil.copymode(os.path.join(tree, path), dest)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-F", "-", input=step.message)
        added = git(repo, "diff", "--numstat", "HEAD~1", "HEAD")
        nr = sum(int(a) for a, _, _ in (l.split("\t") for l in added.splitlines()) if a != "-")
        if nr > MAX_LINES:
            die(f"patches/steps/{step.name} adds {nr} lines, more than {MAX_LINES}")

    for path, text in finals.items():
        if open(os.path.join(repo, path), "rb").read() != text:
            die(f"{path}: the series ends otherwise than the laid tree")
    nr = sum(1 for kind, _ in entries if kind in ("patch", "step"))
    git(repo, "format-patch", "-q", "--binary", "--no-signature", "-o", os.path.abspath(out),
        f"HEAD~{nr}")
    names = [f"patches/{name}" if kind == "patch" else f"patches/steps/{name}"
             for kind, name in entries if kind in ("patch", "step")]
    for name, patch in zip(names, sorted(f for f in os.listdir(out) if f.endswith(".patch"))):
        with open(os.path.join(out, patch)) as f:
            length = sum(1 for _ in f)
        if length > MAX_PATCH_LINES:
            die(f"{name} makes {patch}, {length} lines long, more than {MAX_PATCH_LINES}")
    print(f"  SERIES {out}: {nr} patches")


if __name__ == "__main__":
    main()
