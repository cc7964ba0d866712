#!/usr/bin/env python3
"""tests/simgrid/fake_fennelsim.py: a stand-in for fennelsim that checks the
differential test's own plumbing (meson test simgrid_flow_diff_selftest).

As fennelsim: `fake_fennelsim.py run S.dag --platform S.xml ... --model M
--timeline FILE` regenerates the scenario named in the .dag's "# scenario
seed N" comment, runs the SimGrid reference on it (FAKE_REFERENCE) and writes
a fennelsim timeline CSV whose puts end at SimGrid's times, rounded to the
picosecond and multiplied by 1 + FAKE_PERTURB.

`fake_fennelsim.py --self-test REFERENCE`: tests/simgrid/flow_diff.py with this
fake must pass one scenario of each kind under both models, and must fail
(two scenarios, `flow`) once the ends are off by 3e-5 (relative), more than
the tolerance.
"""

import os
import re
import subprocess
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import flow_diff  # noqa: E402
import flow_scenarios  # noqa: E402


def fake_run(argv):
    if argv[1:] == ["--help"]:
        print("  flow: SimGrid's times, as flow_diff.py reads them\n  flow-lv08: the same")
        return 0
    dag = argv[1]
    opts = dict(zip(argv[2::2], argv[3::2]))
    text = open(dag).read()
    seed = int(re.search(r"# scenario seed (\d+)", text).group(1))
    ranks = int(re.search(r"^ranks (\d+)", text, re.M).group(1))
    sc = flow_scenarios.scenario(seed, one_core_per_flow=ranks > len(flow_scenarios.scenario(seed).hosts))
    xml, flows, _ = sc.write(dag[:-4] + ".fake")
    cmd = flow_diff.reference_cmd(os.environ["FAKE_REFERENCE"], xml, flows, opts["--model"])
    ends, crash = flow_diff.run_reference(cmd, len(sc.flows))
    if ends is None:
        sys.exit("fake: SimGrid crashed")
    scale = 1 + Fraction(os.environ.get("FAKE_PERTURB", "0"))
    with open(opts["--timeline"], "w") as out:
        out.write("name,kind,rank,core,ready_ns,start_ns,local_end_ns,remote_end_ns,label\n")
        for i, end in enumerate(ends):
            ps = round(Fraction(end) * scale * 10**12)
            ns = "%d.%03d" % divmod(ps, 1000)
            out.write("s%d,start,0,,0,0,0,0,\nf%d,put,0,0,0,0,%s,%s,\n" % (i, i, ns, ns))
    return 0


def self_test(reference):
    env = dict(os.environ, FAKE_REFERENCE=reference)
    base = [sys.executable, os.path.join(HERE, "flow_diff.py"), "--fennelsim", os.path.abspath(__file__),
            "--reference", reference]
    good = subprocess.run(base + ["--count", str(len(flow_scenarios.KINDS))], env=env, capture_output=True,
                          text=True)
    print(good.stdout)
    bad = subprocess.run(base + ["--count", "2", "--models", "flow"], env=dict(env, FAKE_PERTURB="3e-5"),
                         capture_output=True, text=True)
    print(bad.stdout[-1500:])
    if good.returncode != 0 or "scenarios compared" not in good.stdout:
        print("self-test: the exact fake did not pass")
        return 1
    if bad.returncode != 1 or "FAILED: seeds" not in bad.stdout or "replay:" not in bad.stdout:
        print("self-test: ends off by 3e-5 were not caught")
        return 1
    print("self-test passed: exact ends agree, ends off by 3e-5 fail with seeds and a replay command")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--self-test":
        sys.exit(self_test(sys.argv[2]))
    if len(sys.argv) == 2 and sys.argv[1] == "--skip":
        sys.exit(flow_diff.skip())
    sys.exit(fake_run(sys.argv[1:]))
