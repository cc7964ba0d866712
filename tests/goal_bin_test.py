#!/usr/bin/env python3
"""goal_bin_test.py: LogGOPSim's binary GOAL (.bin) gives what its GOAL text
gives. Each schedule is converted by tests/goal_bin_writer.py (which writes
the bytes LogGOPSim's txt2bin writes: tools/goal_bin_check.sh compares the
two), then `fennelsim run --model loggops` runs the text and the .bin: the
summaries (makespan, per-rank finish times, ranks, tasks, dependencies,
events) and the timelines (every task's kind, rank, ready, start and end
times; names aside, as a .bin keeps no labels) must be equal. Two makespans
are derived by hand (below), and a .bin under another name is found by its
magic number.

LogGOPSim's defaults (L 2500, o 1500, g 1000, G 6 ns/B, eager below S 65535):
a message of s bytes takes o + (s-1)G + L + o from the send's start to the
receive's end.
- pingpong.goal, two round trips of 1000 B, each leg waiting for the one
  before: 4 x (1500 + 999 x 6 + 2500 + 1500) = 4 x 11494 = 45976 ns.
- the dissemination barrier (8 B) takes ceil(log2 P) rounds of
  1500 + 7 x 6 + 2500 + 1500 = 5542 ns (the next send waits for the
  receive): 3 x 5542 = 16626 ns at 8 ranks, 4 x 5542 = 22168 at 13.

usage: goal_bin_test.py FENNELSIM SOURCE_ROOT
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

VARYING = ("input", "wall_s", "load_s", "events_per_s")


def run(fennelsim, schedule, directory):
    """(summary without the input's name and wall times, timeline rows
    without the task names, exit status, the deadlock report's first line
    without the input's name: a cycle or an unmatched message)."""
    timeline = os.path.join(directory, "timeline.csv")
    out = subprocess.run([fennelsim, "run", schedule, "--model", "loggops", "--format", "json",
                          "--timeline", timeline], capture_output=True, text=True)
    assert out.returncode in (0, 1), f"{schedule}: exit {out.returncode}: {out.stderr}"
    summary = {k: v for k, v in json.loads(out.stdout).items() if k not in VARYING}
    with open(timeline) as f:
        rows = [line.split(",", 1)[1] for line in f.read().splitlines()]
    return summary, rows, out.returncode, out.stderr.replace(schedule, "INPUT").split("\n")[0]


def check(fennelsim, root, goal, makespan, directory):
    from goal_bin_writer import to_bin
    name = os.path.basename(goal)
    binary = os.path.join(directory, name[:-len(".goal")] + ".bin")
    with open(goal) as f, open(binary, "wb") as out:
        out.write(to_bin(f.read()))
    text_result, bin_result = run(fennelsim, goal, directory), run(fennelsim, binary, directory)
    assert text_result == bin_result, f"{name}: text {text_result}\n.bin {bin_result}"
    summary, rows, status, report = bin_result
    assert status == 0 or "deadlock" in report, f"{name}: {report}"
    assert summary["tasks"] > 0 and len(rows) == summary["tasks"] + 1, name
    if makespan is not None:
        assert summary["makespan_ns"] == makespan, f"{name}: {summary['makespan_ns']} != {makespan}"
    return binary, bin_result


def main(fennelsim, root):
    sys.path.insert(0, os.path.join(root, "tests"))
    directory = tempfile.mkdtemp(prefix="goal-bin-")
    try:
        schedules = [(os.path.join(root, "tests", "goal_bin", "pingpong.goal"), 45976),
                     (os.path.join(root, "tests", "goal_bin", "features.goal"), None)]
        for ranks, makespan in [(8, 16626), (13, 22168)]:
            goal = os.path.join(directory, f"barrier-{ranks}.goal")
            subprocess.run([fennelsim, "gen", "barrier-dissemination-schedgen", "--ranks", str(ranks),
                            "--size", "8B", "-o", goal], check=True)
            schedules.append((goal, makespan))
        schedules += [(g, None) for g in sorted(glob.glob(os.path.join(root, "tests", "goal", "*.goal")))]
        for goal, makespan in schedules:
            binary, result = check(fennelsim, root, goal, makespan, directory)
            print(f"ok {os.path.basename(goal)}: makespan {result[0]['makespan_ns']} ns, exit {result[2]}")
        # by content: the magic number, whatever the name
        binary, result = check(fennelsim, root, schedules[0][0], schedules[0][1], directory)
        other = os.path.join(directory, "schedule.data")
        shutil.copy(binary, other)
        assert run(fennelsim, other, directory) == result, "by content"
        print("ok found by its magic number")
    finally:
        shutil.rmtree(directory)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: goal_bin_test.py FENNELSIM SOURCE_ROOT")
    main(sys.argv[1], sys.argv[2])
