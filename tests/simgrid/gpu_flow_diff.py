#!/usr/bin/env python3
"""tests/simgrid/gpu_flow_diff.py: fennelsim's flow models against SimGrid
3.32 itself on the GPU platforms shipped in models/ (issue 21), as
flow_diff.py does on random platforms (meson test simgrid_gpu_flow_diff).

For each platform given and each seed 0..COUNT-1: 1 to 24 flows, each from
a source host of its own (one rank, one core per host, as the files
declare), destinations drawn with some hot ones (shared NICs and NVLink
links), sizes log-uniform over 1 B to 100 MB, starts at 0 or on a grid.
SimGrid (flow_reference, CM02 or LV08, network/optim:Full, no crosstraffic,
TCP-gamma 0) and `fennelsim run --platform FILE --model flow|flow-lv08` must
agree on every end within flow_diff.py's tolerance (1e-5 relative + 1e-9 s).

Usage: gpu_flow_diff.py --fennelsim BIN --reference BIN [--count N] PLATFORM.xml...
Exit 0 all agree, 1 a mismatch or an error.
"""
import argparse
import os
import random
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flow_diff  # noqa: E402
import flow_scenarios  # noqa: E402


def hosts_of(xml):
    """Host names in document order (a cluster's in radical order)."""
    names = re.findall(r'<host id="([^"]+)"', xml)
    cluster = re.search(r'<cluster [^>]*prefix="([^"]*)" suffix="([^"]*)" radical="0-(\d+)"', xml)
    if cluster:
        names += ["%s%d%s" % (cluster.group(1), i, cluster.group(2))
                  for i in range(int(cluster.group(3)) + 1)]
    return names


def flows_of(rng, hosts):
    count = rng.randint(1, min(24, len(hosts)))
    sources = rng.sample(hosts, count)
    hot = rng.sample(hosts, 2)
    grid = rng.choice([0, 10**6, 10**7])
    flows = []
    for src in sources:
        dst = rng.choice(hot) if rng.random() < 0.6 else rng.choice(hosts)
        if dst == src:
            dst = hosts[(hosts.index(src) + 1) % len(hosts)]
        size = int(round(10 ** rng.uniform(0, 8)))
        flows.append((src, dst, size, grid * rng.randint(0, 5)))
    return flows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fennelsim", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--count", type=int, default=8)
    p.add_argument("platforms", nargs="+")
    args = p.parse_args()
    stats = flow_diff.Stats()
    bad = []
    with tempfile.TemporaryDirectory() as work:
        for platform in args.platforms:
            with open(platform) as f:
                xml = f.read()
            hosts = hosts_of(xml)
            for seed in range(args.count):
                flows = flows_of(random.Random(seed), hosts)
                sc = flow_scenarios.Scenario(seed, os.path.basename(platform), xml, hosts, flows, 1)
                prefix = os.path.join(work, "g%d" % seed)
                xml_path, flows_path, dag = sc.write(prefix)
                for model in ("flow", "flow-lv08"):
                    ref, crash = flow_diff.run_reference(
                        flow_diff.reference_cmd(args.reference, xml_path, flows_path, model),
                        len(flows))
                    if ref is None:
                        bad.append("%s seed %d: SimGrid crashed: %s" % (platform, seed, crash))
                        continue
                    timeline = prefix + "." + model + ".csv"
                    got = flow_diff.run_fennelsim(
                        flow_diff.fennelsim_cmd(args.fennelsim, xml_path, dag, model, timeline),
                        timeline, len(flows))
                    for i, (a, b) in enumerate(zip(got, ref)):
                        if not stats.add(a, b, (seed, model, i)):
                            bad.append("%s seed %d %s flow %d %s: fennelsim %.17g, SimGrid %.17g"
                                       % (platform, seed, model, i, flows[i], a, b))
    for line in bad[:10]:
        print(line)
    print("gpu_flow_diff: %d flows on %d platforms, %d differ; largest relative difference %.3g"
          % (stats.flows, len(args.platforms), len(bad), stats.rel))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
