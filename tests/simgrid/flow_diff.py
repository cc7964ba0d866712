#!/usr/bin/env python3
"""tests/simgrid/flow_diff.py: the differential test of fennelsim's flow models
against SimGrid 3.32 itself (meson test simgrid_flow_diff).

Each scenario (tests/simgrid/flow_scenarios.py: a random SimGrid platform and
random flows, a pure function of its seed) runs twice per model:
  - SimGrid, through tests/simgrid/flow_reference, with
    --cfg=network/optim:Full --cfg=network/model:CM02|LV08
    --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0;
  - fennelsim run SCENARIO.dag --platform SCENARIO.xml --model
    flow|flow-lv08 --timeline FILE (the default sequential mapping: rank r on
    host r div C): each flow a concurrent=1 put from a rank of its own on
    its source host (the host's k-th flow on its k-th rank) to the
    destination host's first rank, made ready at its start by a start task
    with skew=; the flow's end is the put's remote_end_ns. Each host has C
    cores, as many as the busiest host sends flows, so no put waits for a CPU
    or a core (SimGrid's network ignores cores). --one-core: one core and one
    rank per host, every flow a concurrent put of that rank; --plain-puts:
    puts without concurrent=1 (each still on its own rank).
Every flow's end must agree within |a - b| <= 1e-5 |b| + 1e-9 s: SimGrid's
solver treats a link as saturated within maxmin/precision = 1e-5 of its
capacity, and merges events within surf/precision = 1e-9 s; fennelsim rounds
to the picosecond. The largest relative and absolute differences are printed.
A SimGrid crash on a scenario (3.32 has an assertion that some zero-latency
flows trip) skips that scenario with its seed; more than 5% skipped fails.

Usage:
  flow_diff.py --fennelsim BIN --reference BIN [--count N] [--first SEED]
               [--scenario SEED] [--models flow,flow-lv08] [--keep DIR] [--one-core]
               [--plain-puts]
  flow_diff.py --skip     (SimGrid was not found: exit 77, meson's "skipped",
                           or 1 when CI=true, where SimGrid must be installed)
Exit 0 all agree, 1 a mismatch or an error (seed and a replay command printed).
"""

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flow_scenarios  # noqa: E402

REL, ABS = 1e-5, 1e-9
SIMGRID_MODEL = {"flow": "CM02", "flow-lv08": "LV08"}
FIRST_SEED = 1800


def reference_cmd(ref, xml, flows, model):
    return [ref, xml, flows, "--cfg=network/optim:Full", "--cfg=network/model:" + SIMGRID_MODEL[model],
            "--cfg=network/crosstraffic:0", "--cfg=network/TCP-gamma:0"]


def fennelsim_cmd(fennelsim, xml, dag, model, timeline):
    return [fennelsim, "run", dag, "--platform", xml, "--model", model, "--timeline", timeline]


def run_reference(cmd, count):
    """Ends in seconds by flow index, or None when SimGrid itself crashed."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode < 0 or r.returncode == 134:
        return None, r.stderr.strip().splitlines()[-1:] or ["signal %d" % -r.returncode]
    if r.returncode != 0:
        raise RuntimeError("reference failed (%d): %s" % (r.returncode, r.stderr.strip()[-2000:]))
    ends = [None] * count
    for line in r.stdout.splitlines():
        i, end = line.split()
        ends[int(i)] = float(end)
    if None in ends:
        raise RuntimeError("reference printed %d of %d ends" % (count - ends.count(None), count))
    return ends, None


def run_fennelsim(cmd, timeline, count):
    """Each put f<i>'s remote end in seconds (exact ns decimal -> double)."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("fennelsim failed (%d): %s" % (r.returncode, r.stderr.strip()[-2000:]))
    ends = [None] * count
    with open(timeline, newline="") as f:
        for row in csv.DictReader(f):
            name = row["name"]
            if row["kind"] == "put" and name.startswith("f"):
                if row["remote_end_ns"] == "":
                    raise RuntimeError("fennelsim: put %s never ended" % name)
                ends[int(name[1:])] = float(Fraction(row["remote_end_ns"]) / 10**9)
    if None in ends:
        raise RuntimeError("fennelsim's timeline has %d of %d puts" % (count - ends.count(None), count))
    return ends


class Stats:
    def __init__(self):
        self.rel = self.abs = self.share = 0.0
        self.where_rel = self.where_abs = self.where_share = None
        self.flows = self.compared = self.skipped = 0
        self.kinds = {}

    def add(self, a, b, where):
        d = abs(a - b)
        rel = d / abs(b) if b != 0 else (0.0 if d == 0 else float("inf"))
        if rel > self.rel:
            self.rel, self.where_rel = rel, where
        if d > self.abs:
            self.abs, self.where_abs = d, where
        share = d / (REL * abs(b) + ABS)
        if share > self.share:
            self.share, self.where_share = share, where
        self.flows += 1
        return d <= REL * abs(b) + ABS


def replay_command(args, seed):
    here = os.path.relpath(os.path.abspath(__file__))
    extra = (" --one-core" if args.one_core else "") + (" --plain-puts" if args.plain_puts else "")
    return ("python3 %s --fennelsim %s --reference %s --scenario %d --models %s --keep /tmp/flow-diff-%d%s"
            % (here, args.fennelsim, args.reference, seed, ",".join(args.models), seed, extra))


def check_scenario(args, seed, work, stats):
    """Runs one scenario under every model; returns the mismatch lines."""
    sc = flow_scenarios.scenario(seed, one_core_per_flow=not args.one_core)
    prefix = os.path.join(work, "s%d" % seed)
    xml, flows, dag = sc.write(prefix, concurrent=not args.plain_puts)
    bad = []
    for model in args.models:
        rcmd = reference_cmd(args.reference, xml, flows, model)
        ref, crash = run_reference(rcmd, len(sc.flows))
        if ref is None:
            print("seed %d (%s): SimGrid itself crashed under %s, scenario skipped: %s"
                  % (seed, sc.kind, model, crash[0][-200:]))
            stats.skipped += 1
            return bad
        timeline = prefix + "." + model + ".csv"
        fcmd = fennelsim_cmd(args.fennelsim, xml, dag, model, timeline)
        got = run_fennelsim(fcmd, timeline, len(sc.flows))
        for i, (a, b) in enumerate(zip(got, ref)):
            if not stats.add(a, b, (seed, model, i)):
                src, dst, size, start = sc.flows[i]
                bad.append("seed %d (%s) %s flow %d (%s -> %s, %d B, start %s s): fennelsim %.17g, SimGrid %.17g"
                           % (seed, sc.kind, model, i, src, dst, size, flow_scenarios.seconds(start), a, b))
        if bad and args.keep:
            print("  reference: " + " ".join(rcmd) + "\n  fennelsim: " + " ".join(fcmd))
    stats.compared += 1
    stats.kinds[sc.kind] = stats.kinds.get(sc.kind, 0) + 1
    return bad


def skip():
    if os.environ.get("CI") == "true":
        print("SimGrid (libsimgrid-dev) was not found, and CI must run this test: tools/setup.sh installs it")
        return 1
    print("SimGrid (libsimgrid-dev) was not found: the differential test is skipped")
    return 77


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--skip", action="store_true")
    p.add_argument("--fennelsim")
    p.add_argument("--reference")
    p.add_argument("--count", type=int, default=64)
    p.add_argument("--first", type=int, default=FIRST_SEED)
    p.add_argument("--scenario", type=int)
    p.add_argument("--models", default="flow,flow-lv08")
    p.add_argument("--keep")
    p.add_argument("--one-core", action="store_true")
    p.add_argument("--plain-puts", action="store_true")
    args = p.parse_args()
    if args.skip:
        return skip()
    if not args.fennelsim or not args.reference:
        p.error("--fennelsim and --reference are required")
    args.models = args.models.split(",")
    seeds = [args.scenario] if args.scenario is not None else list(range(args.first, args.first + args.count))
    work = args.keep or tempfile.mkdtemp(prefix="flow-diff-")
    os.makedirs(work, exist_ok=True)
    print("seeds %d..%d (%d scenarios), models %s, tolerance |a-b| <= %g|b| + %g s"
          % (seeds[0], seeds[-1], len(seeds), ",".join(args.models), REL, ABS))
    stats, failures, started = Stats(), [], time.time()
    try:
        for seed in seeds:
            try:
                bad = check_scenario(args, seed, work, stats)
            except (RuntimeError, OSError, ValueError) as e:
                bad = ["seed %d: %s" % (seed, e)]
            if bad:
                failures.append(seed)
                print("\n".join(bad[:10]) + ("\n  ... %d more" % (len(bad) - 10) if len(bad) > 10 else ""))
                print("  replay: " + replay_command(args, seed))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("%d scenarios compared (%s), %d skipped, %d flow ends in %.1f s"
          % (stats.compared, ", ".join("%s %d" % kv for kv in sorted(stats.kinds.items())), stats.skipped,
             stats.flows, time.time() - started))
    print("largest relative difference %.3g (seed %s), largest absolute difference %.3g s (seed %s)"
          % (stats.rel, stats.where_rel, stats.abs, stats.where_abs))
    print("largest |a-b| / (%g|b| + %g) %.3g (seed %s)" % (REL, ABS, stats.share, stats.where_share))
    if failures:
        print("FAILED: seeds %s" % " ".join(map(str, failures)))
        return 1
    if stats.skipped * 20 > len(seeds):
        print("FAILED: SimGrid crashed on more than 5% of the scenarios")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
