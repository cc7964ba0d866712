#!/usr/bin/env python3
"""study_outputs.py: Monte-Carlo studies print, byte for byte, what they
printed before issue 20 made the 2^20-rank study cheaper (goal 5), on one
thread and on two.

Every case is `fennelsim run SCHEDULE --seeds N` with noise: generated
schedules (one-sided and two-sided, up to 1024 ranks) and one whose tasks
are on 3 of its 40 ranks, under pipelined,
hockney and loggops, with net, host and compute noise, per-rank terms and a
detour trace. Each case runs twice, with --threads 1 and --threads 2, and
both runs must give the line of tests/study_outputs.expected, which
fennelsim at 767370a wrote: the SHA-256 of the text report alone (its
result table keeps the 16 ranks it shows), of the text report with
--samples, of the JSON report (every rank's distribution), of the samples
CSV with its sidecar, and the exit statuses. A changed output names its case. `--update` rewrites
the file (only for a deliberate change of results, never to make this test
pass).

usage: study_outputs.py FENNELSIM [--update]
"""
import hashlib
import os
import subprocess
import sys
import tempfile

SCHEDULES = [  # (generator, ranks, size)
    ("allreduce-rd", 16, "8B"),
    ("allreduce-rd", 1024, "8B"),
    ("barrier-dissemination", 37, "0B"),
    ("bcast-binomial", 40, "100KB"),
    ("allreduce-ring", 13, "1KiB"),
    ("alltoall-pairwise", 15, "70000B"),
]

MODELS = {
    "pipelined": ["--model", "pipelined"],
    "hockney": ["--model", "hockney"],
    "loggops": ["--model", "loggops"],
}

NOISES = {
    "net-lognormal": ["--noise", "net=lognormal:sigma=0.2"],
    "host-gamma-rank": ["--noise", "host=gamma:shape=4,scale=0.25",
                        "--noise-rank", "3:host=constant:value=10"],
    "all-kinds-trace": ["--noise", "net=lognormal:sigma=0.5", "--noise",
                        "host=constant:value=1.5,mode=add", "--noise",
                        "compute=lognormal:sigma=0.1", "--noise-trace", "os.trace"],
}

SEEDS = "7"


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def run_case(fennelsim, schedule, model, noise, threads, work):
    base = [fennelsim, "run", schedule] + MODELS[model] + NOISES[noise] + [
        "--seeds", SEEDS, "--seed", "11", "--threads", str(threads)]
    sums = []
    for extra in ([], ["--samples", "samples.csv"], ["--format", "json"]):
        done = subprocess.run(base + extra, cwd=work, capture_output=True)
        sums.append("%d:%s" % (done.returncode, hashlib.sha256(done.stdout).hexdigest()[:16]))
    sums.append(digest(os.path.join(work, "samples.csv")))
    sums.append(digest(os.path.join(work, "samples.csv.meta")))
    return " ".join(sums)


def cases(fennelsim, work):
    with open(os.path.join(work, "os.trace"), "w") as f:
        f.write("# start duration (ns)\n100 20\n700 5\n1500 40\n")
    with open(os.path.join(work, "sparse.dag"), "w") as f:  # 3 of 40 ranks have tasks
        f.write("fennel-dag 1\nranks 40\nt0 start 0\nt1 start 7\nt2 start 30\n"
                "t3 put 0 to=30 size=8B after=t0\nt4 put 30 to=7 size=8B after=t2,t3\n"
                "t5 put 7 to=0 size=8B after=t1,t4\n")
    for generator, ranks, size in SCHEDULES + [(None, 40, None)]:
        schedule = "%s-%d.dag" % (generator, ranks) if generator else "sparse.dag"
        if generator:
            subprocess.run([fennelsim, "gen", generator, "--ranks", str(ranks), "--size", size,
                            "-o", schedule], cwd=work, check=True)
        for model in MODELS:
            for noise in NOISES:
                yield "%s | %s | %s" % (schedule, model, noise), schedule, model, noise


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--update"):
        sys.exit(__doc__)
    fennelsim = os.path.abspath(sys.argv[1])
    expected_path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "study_outputs.expected")
    update = len(sys.argv) == 3
    expected = {}
    if not update:
        with open(expected_path) as f:
            for line in f:
                name, _, value = line.rstrip("\n").rpartition(" = ")
                expected[name] = value
    lines, failures = [], 0
    with tempfile.TemporaryDirectory() as work:
        for name, schedule, model, noise in cases(fennelsim, work):
            one = run_case(fennelsim, schedule, model, noise, 1, work)
            two = run_case(fennelsim, schedule, model, noise, 2, work)
            lines.append("%s = %s" % (name, one))
            if update:
                if one != two:
                    failures += 1
                    print("threads change the output: %s" % name)
                continue
            for threads, got in ((1, one), (2, two)):
                if got != expected.get(name):
                    failures += 1
                    print("changed: %s (--threads %d): %s, expected %s"
                          % (name, threads, got, expected.get(name)))
    if update and not failures:
        with open(expected_path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
    if not update and len(lines) != len(expected):
        failures += 1
        print("%d cases run, %d expected" % (len(lines), len(expected)))
    print("%d cases, %d failures" % (len(lines), failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
