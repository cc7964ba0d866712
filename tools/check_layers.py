#!/usr/bin/env python3
"""check_layers.py: fails (exit 1) when an #include of src/ makes a cycle
between folders or between files (a .c and its .h are one file here; a
header without a .c is transparent), or
goes up the layer order below. --graph prints the folder include graph.
Usage: check_layers.py [--src DIR] [--graph] [--expect FILE]
--expect (the self-test): exit 0 only when the check fails (1) and prints
exactly FILE's text."""
import os
import re
import sys

# Bottom up; a folder may include only folders on lower levels.
LAYERS = [["core"], ["io"], ["formats", "platform", "noise"],
          ["models", "generators", "instruments"], ["trace", "study", "fit"], ["cli"]]
# Edges between folders of one level that are allowed (none today).
SAME_LEVEL = set()
# Known include edges tolerated until removed (none: keep it empty).
KNOWN = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def edges(src):
    """(including file, included file), paths relative to src."""
    out, bad = [], []
    for root, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(root, name), src)
            with open(os.path.join(src, path), encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    target = os.path.normpath(inc if "/" in inc else
                                              os.path.join(os.path.dirname(path), inc))
                    if os.path.isfile(os.path.join(src, target)):
                        out.append((path, target))
                    else:
                        bad.append("%s: cannot resolve \"%s\"" % (path, inc))
    return sorted(set(out)), bad


def cycles(graph):
    """One shortest cycle through each strongly connected part, as a path."""
    found, seen = [], set()
    for start in sorted(graph):
        if start in seen:
            continue
        prev, queue = {start: None}, [start]
        for node in queue:
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    path = [node]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    path = path[::-1] + [start]
                    seen.update(path)
                    found.append(path)
                    queue = []
                    break
                if nxt not in prev:
                    prev[nxt] = node
                    queue.append(nxt)
    return found


def folder(path):
    return path.split("/")[0]


def unit(path):
    return os.path.splitext(path)[0]


def contracted(units, compiled):
    """The unit graph with header-only units (no .c: an internal header such
    as trace/replay_lowering.h) made transparent: A -> H -> B becomes A -> B.
    A .c that includes a header which includes the .c's own header is no
    cycle; two .c files that need each other's headers are."""
    out = {}
    for a in units:
        if a not in compiled:
            continue
        stack, seen = list(units[a]), set()
        while stack:
            b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            if b in compiled:
                if b != a:
                    out.setdefault(a, set()).add(b)
            else:
                stack.extend(units.get(b, ()))
    return out


def main(argv):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    if "--src" in argv:
        src = argv[argv.index("--src") + 1]
    found, problems = edges(src)
    known = [e for e in found if e in KNOWN]
    found = [e for e in found if e not in KNOWN]
    level = {f: i for i, names in enumerate(LAYERS) for f in names}
    counts, files, units, plain = {}, {}, {}, {}
    compiled = {unit(a) for a, _ in found if a.endswith(".c")}
    for a, b in found:
        plain.setdefault(a, set()).add(b)
        fa, fb = folder(a), folder(b)
        if unit(a) != unit(b):
            units.setdefault(unit(a), set()).add(unit(b))
        if fa == fb:
            continue
        counts[(fa, fb)] = counts.get((fa, fb), 0) + 1
        files.setdefault(fa, set()).add(fb)
        for f in (fa, fb):
            if f not in level:
                problems.append("src/%s is not in the layer order (LAYERS)" % f)
        if fa in level and fb in level:
            if level[fb] > level[fa] or (level[fb] == level[fa] and (fa, fb) not in SAME_LEVEL):
                problems.append("layer order: %s -> %s (%s includes %s)" % (fa, fb, a, b))
    for path in cycles(files):
        problems.append("folder cycle: " + " -> ".join(path))
    for path in cycles(contracted(units, compiled)) + cycles(plain):
        problems.append("file cycle: " + " -> ".join(path))
    if "--graph" in argv:
        for (a, b), n in sorted(counts.items(), key=lambda e: (level.get(e[0][0], 99), e[0])):
            print("%s -> %s %d" % (a, b, n))
    for a, b in known:
        print("known (allowlisted): %s -> %s" % (a, b))
    for p in sorted(set(problems)):
        print(p)
    return 1 if problems else 0


def expect(argv):
    """Runs the check on --src, printing to a buffer, and compares."""
    import contextlib
    import io
    want = open(argv[argv.index("--expect") + 1], encoding="utf-8").read()
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = main(argv)
    print(buffer.getvalue(), end="")
    if status != 1 or buffer.getvalue() != want:
        print("expected exit 1 and:\n" + want, end="")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(expect(sys.argv[1:]) if "--expect" in sys.argv else main(sys.argv[1:]))
