#!/usr/bin/env python3
"""twosided_timelines.py: the two-sided engine gives, task for task, the
timelines it gave before it was tuned for speed (issue 20, goal 2: matching,
arrivals and receipts at one-sided speed, exact results unchanged).

Every case is a two-sided schedule run by `fennelsim run --timeline`: the
LogGOPSim GOAL files of tests/goal (157 of LogGOPSim's schedgen patterns at
7, 16 and 33 ranks, and the hand-written cases), and generated patterns at
several rank counts and sizes, under loggops (eager, and rendezvous with
S=0: every message waits for its match), hockney (a model that moves the
data after the match) and pipelined. The SHA-256 of each run's timeline CSV
(every task's kind, rank, ready, start and end times) and its exit status
must equal the line of tests/twosided_timelines.expected, which the engine
before the change wrote (fennelsim at fff49a5); a changed timeline names
its case. `--update` rewrites the file (only for a deliberate change of
results, never to make this test pass).

usage: twosided_timelines.py FENNELSIM SOURCE_ROOT [--update]
"""
import glob
import hashlib
import os
import subprocess
import sys
import tempfile

MODELS = {
    "loggops": ["--model", "loggops"],
    "loggops-rendezvous": ["--model", "loggops", "--param", "S=0"],
    "hockney": ["--model", "hockney"],
    "pipelined": ["--model", "pipelined"],
}

GENERATED = [  # (generator, ranks, size)
    ("barrier-dissemination-schedgen", 64, "8B"),
    ("barrier-dissemination-schedgen", 100, "8B"),
    ("barrier-dissemination", 37, "0B"),
    ("barrier-nway", 29, "8B"),
    ("barrier-linear", 17, "8B"),
    ("barrier-rd", 23, "8B"),
    ("barrier-double-ring", 9, "8B"),
    ("barrier-tree", 21, "8B"),
    ("bcast-binomial", 40, "100KB"),
    ("bcast-chain", 12, "64KiB"),
    ("bcast-scatter-allgather", 19, "4KiB"),
    ("reduce-rabenseifner", 24, "16KiB"),
    ("allreduce-ring", 13, "1KiB"),
    ("allreduce-rabenseifner", 32, "100KB"),
    ("allreduce-elimination", 27, "8B"),
    ("allgather-bruck", 22, "512B"),
    ("alltoall-linear", 16, "8B"),
    ("alltoall-pairwise", 15, "70000B"),
    ("alltoall-scattered", 40, "8B"),
    ("scatter-linear-nb", 18, "2KiB"),
    ("gather-linear-sync", 14, "8B"),
]


def run(fennelsim, schedule, model, work):
    timeline = os.path.join(work, "timeline.csv")
    if os.path.exists(timeline):
        os.remove(timeline)
    done = subprocess.run([fennelsim, "run", schedule, "--timeline", timeline] + MODELS[model],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    digest = hashlib.sha256()
    if os.path.exists(timeline):
        with open(timeline, "rb") as f:
            digest.update(f.read())
    return "%d %s" % (done.returncode, digest.hexdigest())


def cases(fennelsim, root, work):
    """Yields (name, schedule file, model)."""
    goals = sorted(glob.glob(os.path.join(root, "tests", "goal", "*.goal")))
    goals += sorted(glob.glob(os.path.join(root, "tests", "goal", "matrix", "*.goal.gz")))
    for path in goals:
        name = os.path.relpath(path, root)
        for model in ("loggops", "loggops-rendezvous"):
            yield name, path, model
    for generator, ranks, size in GENERATED:
        path = os.path.join(work, "%s-%d-%s.dag" % (generator, ranks, size))
        subprocess.run([fennelsim, "gen", generator, "--ranks", str(ranks), "--size", size,
                        "-o", path], check=True)
        for model in MODELS:
            yield "gen %s %d %s" % (generator, ranks, size), path, model


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--update"):
        sys.exit(__doc__)
    fennelsim, root = sys.argv[1], sys.argv[2]
    expected_path = os.path.join(root, "tests", "twosided_timelines.expected")
    expected = {}
    if os.path.exists(expected_path):
        with open(expected_path) as f:
            for line in f:
                key, _, value = line.rstrip("\n").rpartition(" | ")
                expected[key] = value
    got, failures = {}, []
    with tempfile.TemporaryDirectory() as work:
        for name, path, model in cases(fennelsim, root, work):
            key = "%s | %s" % (name, model)
            got[key] = run(fennelsim, path, model, work)
            if expected.get(key) != got[key]:
                failures.append("%s: expected %s, got %s" % (key, expected.get(key), got[key]))
    if len(sys.argv) == 4:
        with open(expected_path, "w") as f:
            f.writelines("%s | %s\n" % item for item in got.items())
        print("wrote %d cases to %s" % (len(got), expected_path))
        return
    stale = sorted(set(expected) - set(got))
    failures += ["%s: expected, not run" % key for key in stale]
    if len(got) < 400:
        failures.append("only %d cases ran" % len(got))
    for failure in failures:
        print("FAIL", failure)
    print("%d cases, %d failures" % (len(got), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
