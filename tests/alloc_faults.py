#!/usr/bin/env python3
"""alloc_faults.py: the out-of-memory sweep (docs/INTERNALS.md, "Out-of-memory
testing"). Needs fennelsim built with -Dalloc_faults=true. For each command
below it counts the allocation calls of a clean run and their call sites
(FENNELSIM_COUNT_ALLOC=sites), then runs it again with the N-th call failing
(FENNELSIM_FAIL_ALLOC=N) for each N that is one of the first PER_SITE calls
from its site (--every: every N from 1 to the count; a loop's later calls
from one site take the error path its first ones took, and each run costs
an AddressSanitizer process), and asserts for every N run: no signal, no
sanitizer report (leaks included, when built with ASan), exit status 2 with
one line "fennelsim...: ... out of memory ..." on stderr (or the C library's
words for ENOMEM after a file name), and nothing partial left in the output
directory: outputs are written to a temporary name and renamed when
complete, so a file left is one the clean run wrote, byte for byte (one
written before the failure), except a study's streamed --samples and its
sidecar, which keep the rows of the seeds done (docs/NOISE.md): those may be
a prefix of the clean run's. A run may also survive its failed allocation
(a report that falls back to another order, say): exit status 0 is
accepted when its stdout (wall times aside) and its files are the clean
run's. The inputs are tiny so that the sweep stays fast.

usage: alloc_faults.py FENNELSIM SOURCE_ROOT [--only NAME] [--jobs J] [--every] [--list]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

OUT_OF_MEMORY_STATUS = 2  # docs/USAGE.md, exit status
STREAMED = ("s.csv", "s.csv.meta")  # may be left with the rows done
WALL = re.compile(r'[0-9.e+-]+( s\b| events/s)|"(wall_s|load_s|events_per_s)": [0-9.e+-]+')
COUNT_LINE = re.compile(r"^fennelsim: alloc_faults: (\d+) allocation calls$", re.M)
SITE_LINE = re.compile(r"^fennelsim: alloc_faults: site (\d+) (-?\d+)$", re.M)
PER_SITE = 3  # the calls failed per call site (without --every)
# The message, or the C library's for ENOMEM after a file's name ("FILE:
# cannot create: Cannot allocate memory", where a temporary name failed).
OUT_OF_MEMORY = re.compile(r"out of memory|: Cannot allocate memory$")
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer")

# Two ranks of fennelsim's trace format: a send, a receive and an allreduce.
TRACE = {
    "rank-0.fstrace": "# fennelsim-trace 1\nrank 0 2\ninit 0 100\n"
                      "send 200 300 peer=1 tag=1 comm=0 bytes=8\n"
                      "allreduce 400 500 comm=0 bytes=8 rbytes=8\nfinalize 600 700\n",
    "rank-1.fstrace": "# fennelsim-trace 1\nrank 1 2\ninit 0 100\n"
                      "recv 200 300 peer=0 tag=1 comm=0 bytes=8\n"
                      "allreduce 400 500 comm=0 bytes=8 rbytes=8\nfinalize 600 700\n",
}
# SimGrid's time-independent trace, both ranks in one file.
SIMGRID = ("0 init\n1 init\n0 send 1 0 8\n1 recv 0 0 8\n0 compute 1000\n"
           "0 bcast 16\n1 bcast 16\n0 finalize\n1 finalize\n")
EMPIRICAL = "# samples\n0.9\n1.0\n1.2\n"
# Generated task names ("t<id>", not stored) beside kept ones (stored, indexed).
NAMED_DAG = ("fennel-dag 1\nranks 2\nt0 start 0\nx put 0 to=1 size=8B after=t0\n"
             "t2 compute 1 time=1ns after=x\nt5 proxy 1 after=x:local,t2\nt4 proxy 0 after=t5\n")
# A platform of its own, with an explicit mapping (models/ has computed ones).
PLATFORM = ('<platform nodes="2" cores="2">\n  <channel name="shm" level="0"/>\n'
            '  <channel name="net" level="1"/>\n  <mapping kind="explicit">0 1 0 1</mapping>\n</platform>\n')


NAMED_GOAL = ("num_ranks 2\n\nrank 0 {\nl1: send 8b to 1 tag 0\nl2: calc 100\nl2 requires l1\n}\n\n"
              "rank 1 {\nl1: recv 8b from 0 tag 0\nfinal: calc 50\nfinal requires l1\n}\n")


PROTO_DAG = ("fennel-dag 1\nranks 2\na send 0 to=1 size=8B proto=LL128 cpu=1 tag=1\n"
             "b recv 1 from=0 size=8B tag=1 cpu=1 proto=LL128\n")


def commands():
    """(name, arguments, outputs): {in} is the inputs' directory, {out} the
    directory each run writes to (empty before it, emptied after it)."""
    return [
        ("gen-allreduce-rd", ["gen", "allreduce-rd", "--ranks", "4", "--size", "8B", "-o", "{out}/a.dag"]),
        ("gen-bcast-binomial-goal", ["gen", "bcast-binomial", "--ranks", "4", "--size", "1KiB",
                                     "-o", "{out}/b.goal"]),
        ("gen-allreduce-rm-gz", ["gen", "allreduce-rm", "--ranks", "4", "--factors", "2,2",
                                 "-o", "{out}/rm.dag.gz"]),
        ("gen-allreduce-smp", ["gen", "allreduce-smp", "--ranks", "4", "--nodes", "2", "--cores", "2",
                               "--size", "1KiB", "-o", "{out}/smp.dag"]),
        ("gen-allreduce-ompi", ["gen", "allreduce-ompi", "--ranks", "5", "--size", "1KiB",
                                "-o", "{out}/o.dag"]),
        # NCCL's generators (issue 21): channels as CPUs, protocols, the trees
        ("gen-allreduce-nccl-ring", ["gen", "allreduce-nccl-ring", "--ranks", "3", "--size", "1KiB",
                                     "--channels", "2", "--chunk", "128B", "--protocol", "LL",
                                     "-o", "{out}/nr.dag"]),
        ("gen-allreduce-nccl-tree-goal", ["gen", "allreduce-nccl-tree", "--ranks", "4", "--nodes",
                                          "2", "--cores", "2", "--size", "1KiB", "--channels", "2",
                                          "--reduce-time", "1ns", "-o", "{out}/nt.goal"]),
        ("gen-reduce-scatter-nccl-ring", ["gen", "reduce-scatter-nccl-ring", "--ranks", "3",
                                          "--size", "100B", "-o", "{out}/rs.dag"]),
        ("gen-allgather-nccl-pat", ["gen", "allgather-nccl-pat", "--ranks", "5", "--size", "100B",
                                    "--channels", "2", "--chunk", "32B", "-o", "{out}/pat.dag"]),
        # NCCL's own choice (nccl_selection.c): the nodes, the pick, the tree it generates
        ("gen-allreduce-nccl", ["gen", "allreduce-nccl", "--ranks", "4", "--nodes", "2", "--cores",
                                "2", "--size", "1KiB", "-o", "{out}/ns.dag"]),
        # NCCL's pick of NVLS on one node: the selector generates allreduce-nccl-nvls
        ("gen-allreduce-nccl-nvls", ["gen", "allreduce-nccl", "--ranks", "8", "--nodes", "1",
                                     "--cores", "8", "--size", "2MiB", "--gpu", "hopper",
                                     "--collnet", "0", "-o", "{out}/nv.dag"]),
        # NVLS itself (nccl_nvls.c): the switch rank, the last loop's chunks, the flow
        ("gen-nccl-nvls", ["gen", "allreduce-nccl-nvls", "--ranks", "3", "--size", "5000B",
                           "--channels", "2", "--chunk", "1000B", "--reduce-time", "1ns",
                           "-o", "{out}/nvls.dag"]),
        # NVLSTree (nccl_nvlstree.c): the nodes, a switch rank each, the trees, the flow
        ("gen-nccl-nvlstree", ["gen", "allreduce-nccl-nvlstree", "--ranks", "6", "--nodes", "3",
                               "--cores", "2", "--size", "5000B", "--channels", "2",
                               "--chunk", "1000B", "--reduce-time", "1ns",
                               "-o", "{out}/nvlstree.dag"]),
        # CollNet (nccl_collnet.c): the rails' reducers, the nodes, empty pieces, the flow
        ("gen-nccl-collnet-direct", ["gen", "allreduce-nccl-collnet-direct", "--ranks", "4",
                                     "--nodes", "2", "--cores", "2", "--size", "5000B",
                                     "--channels", "2", "--chunk", "1000B", "--reduce-time",
                                     "1ns", "-o", "{out}/cd.dag"]),
        ("gen-nccl-collnet-chain", ["gen", "allreduce-nccl-collnet-chain", "--ranks", "6",
                                    "--nodes", "2", "--cores", "3", "--size", "5000B",
                                    "--channels", "2", "--chunk", "1000B", "-o", "{out}/cc.dag"]),
        # NCCL's pick of CollNetDirect with --collnet 1: the selector generates it
        ("gen-allreduce-nccl-collnet", ["gen", "allreduce-nccl", "--ranks", "16", "--nodes", "2",
                                        "--cores", "8", "--size", "1MiB", "--collnet", "1",
                                        "--nvls", "0", "-o", "{out}/ncd.dag"]),
        ("sweep-nccl-selector-machine", ["sweep", "allreduce-nccl:gpu=blackwell:nvls=0:collnet=1",
                                         "--ranks", "4", "--nodes", "2", "--cores", "2",
                                         "--size", "1KiB", "--model", "nccl",
                                         "--threads", "1", "-o", "{out}/nm.txt"]),
        ("sweep-nccl-selector-msccl", ["sweep", "allgather-nccl",
                                       "msccl:schedule={in}/msccl-allgather-ring-4.xml",
                                       "--ranks", "4", "--size", "1KiB", "--model", "nccl",
                                       "--nodes", "2", "--cores", "2", "--threads", "1",
                                       "--report", "nccl-tests", "-o", "{out}/ns.txt"]),
        ("convert-dag-proto", ["convert", "{in}/proto.dag", "{out}/p.dag"]),
        ("convert-dag-gz", ["convert", "{in}/rd.dag", "{out}/rd.dag.gz"]),
        ("run-dag-hockney", ["run", "{in}/rd.dag", "--model", "hockney"]),
        ("run-dag-nccl", ["run", "{in}/rd.dag", "--model", "nccl", "--nodes", "2",
                          "--critical-path", "--format", "json"]),
        ("run-dag-named", ["run", "{in}/named.dag", "--model", "hockney", "--timeline", "{out}/t.csv"]),
        ("run-goal-loggops", ["run", "{in}/b.goal", "--model", "loggops", "--format", "json"]),
        # equal rank blocks: renumbered before the run (fs_program_interleave;
        # out of memory there, the run goes on as read)
        ("run-goal-interleaved", ["run", "{in}/ring.goal", "--model", "loggops", "--format",
                                  "json"]),
        # labels that leave schedgen's lK pattern mid-file: the names read
        # so far are stored when the pattern breaks (goal_reader.c)
        ("run-goal-named", ["run", "{in}/named.goal", "--model", "loggops", "--timeline",
                            "{out}/t.csv"]),
        ("run-goal-bin-loggops", ["run", "{in}/b.bin", "--model", "loggops", "--format", "json"]),
        ("run-trace-replay", ["run", "{in}/trace", "--model", "hockney"]),
        ("run-simgrid-replay", ["run", "{in}/simgrid.txt", "--model", "loggops"]),
        ("run-trace-replay-named", ["run", "{in}/trace", "--model", "hockney", "--timeline",
                                    "{out}/t.csv"]),
        ("convert-trace-dag", ["convert", "{in}/trace", "{out}/r.dag"]),
        ("run-model-xml-platform", ["run", "{in}/rd.dag", "--model", "{in}/metropolis-taulop.xml",
                                    "--platform", "{in}/platform.xml", "--channel-load",
                                    "--channel-csv", "{out}/channels.csv"]),
        ("run-instruments", ["run", "{in}/rd.dag", "--model", "pipelined", "--timeline", "{out}/t.csv",
                             "--critical-path", "--bandwidth", "--format", "json"]),
        ("run-study", ["run", "{in}/rd.dag", "--model", "hockney", "--noise",
                       "net=empirical:file={in}/noise.txt", "--noise", "host=lognormal:sigma=0.1",
                       "--seeds", "3", "--threads", "1", "--samples", "{out}/s.csv",
                       "--histogram", "{out}/h.svg", "--bandwidth"]),
        ("sweep", ["sweep", "allreduce-rd", "bcast-binomial", "--ranks", "3", "--size", "8B",
                   "--model", "hockney", "--model", "pipelined:beta=0.4ns", "--cores", "2",
                   "--mapping", "seq,rr", "--check", "--seeds", "2", "--noise",
                   "net=lognormal:sigma=0.1", "--threads", "2", "--format", "json",
                   "-o", "{out}/sweep.json"]),
        ("sweep-plot", ["sweep", "allreduce-mpich", "allreduce-ring", "--ranks", "4",
                        "--size", "8B,1KiB", "--model", "hockney", "--threads", "1",
                        "--plot", "{out}/sweep.svg"]),
        ("sweep-nccl-tests", ["sweep", "allreduce-ring", "allgather-ring", "--ranks", "4",
                              "--size", "8B,1KiB", "--model", "hockney", "--threads", "1",
                              "--report", "nccl-tests", "-o", "{out}/nccl.txt"]),
        ("best", ["best", "allreduce", "--ranks", "4", "--model", "hockney", "--threads", "1",
                  "--candidates", "2", "--format", "json", "-o", "{out}/best.json"]),
        ("best-sizes", ["best", "gather", "--ranks", "3", "--sizes", "0,8B",
                        "--model", "hockney", "--threads", "1", "--seeds", "2",
                        "--noise", "net=lognormal:sigma=0.1", "--rank-by", "p99"]),
        # issue 21: best in the gpu family (NCCL's generators, its pick beside)
        ("best-nccl", ["best", "allgather", "--ranks", "2", "--nodes", "1", "--cores", "2",
                       "--size", "1KiB", "--model", "nccl", "--max-channels", "1",
                       "--threads", "1"]),
        # issue 21: an MSCCL XML schedule read, checked and lowered
        ("gen-msccl", ["gen", "msccl", "--schedule", "{in}/msccl-allgather-ring-4.xml",
                       "--size", "8B", "-o", "{out}/m.dag"]),
        # issue 21: a generated schedule written as MSCCL XML (data flow, tbs, read back);
        # a size whose NCCL slices are equal, as MSCCL's chunks must be
        ("gen-msccl-xml", ["gen", "allreduce-nccl-ring", "--ranks", "3", "--size", "6MiB",
                           "--channels", "2", "-o", "{out}/ring.xml"]),
    ]


def make_inputs(fennelsim, root, directory):
    """The inputs, in directory: made by a clean fennelsim or written here."""
    def write(name, text):
        with open(os.path.join(directory, name), "w") as f:
            f.write(text)
    os.mkdir(os.path.join(directory, "trace"))
    for name, text in TRACE.items():
        write(os.path.join("trace", name), text)
    write("simgrid.txt", SIMGRID)
    write("noise.txt", EMPIRICAL)
    write("platform.xml", PLATFORM)
    write("named.dag", NAMED_DAG)
    write("named.goal", NAMED_GOAL)
    write("proto.dag", PROTO_DAG)
    for name in ["metropolis-taulop.xml", "metropolis-shm.table", "metropolis-net.table"]:
        shutil.copy(os.path.join(root, "models", name), directory)
    shutil.copy(os.path.join(root, "schedules", "msccl-allgather-ring-4.xml"), directory)
    for args in [["gen", "allreduce-rd", "--ranks", "4", "--size", "8B", "-o", "rd.dag"],
                 ["gen", "bcast-binomial", "--ranks", "4", "--size", "1KiB", "-o", "b.goal"],
                 ["gen", "allgather-ring", "--ranks", "4", "--size", "1KiB", "-o", "ring.goal"]]:
        subprocess.run([fennelsim] + args, cwd=directory, check=True, env=clean_env())
    # LogGOPSim's binary GOAL of the same schedule (tests/goal_bin_writer.py)
    sys.path.insert(0, os.path.join(root, "tests"))
    from goal_bin_writer import to_bin
    with open(os.path.join(directory, "b.goal")) as f:
        binary = to_bin(f.read())
    with open(os.path.join(directory, "b.bin"), "wb") as f:
        f.write(binary)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("FENNELSIM_FAIL_ALLOC", "FENNELSIM_COUNT_ALLOC", "FENNELSIM_PATH")}
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    env.update(extra)
    return env


def run_once(fennelsim, inputs, args, **env):
    """One run in a fresh output directory: (status, stdout without wall
    times, stderr, {file left: its bytes})."""
    out = tempfile.mkdtemp(prefix="oom-out-")
    try:
        argv = [fennelsim] + [a.replace("{in}", inputs).replace("{out}", out) for a in args]
        p = subprocess.run(argv, cwd=out, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, errors="replace", env=clean_env(**env), timeout=120)
        left = {}
        for name in os.listdir(out):
            with open(os.path.join(out, name), "rb") as f:
                left[name] = f.read()
        return p.returncode, WALL.sub("T", p.stdout.replace(out, "OUT")), p.stderr, left
    finally:
        shutil.rmtree(out, ignore_errors=True)


def partial(left, clean):
    """The files left that the clean run did not write as they are."""
    return sorted(name for name, data in left.items()
                  if name not in clean or not (data == clean[name] or
                                               name in STREAMED and clean[name].startswith(data)))


def verdict(run, clean):
    """What is wrong with a run whose allocation failed; None when it is clean."""
    status, stdout, stderr, left = run
    if status == 0 and not SANITIZER.search(stderr):
        if stdout != clean[1] or left != clean[3]:
            return "exit status 0 with another output than the clean run's"
        return None
    if status < 0:
        return "killed by signal %d" % -status
    if SANITIZER.search(stderr):
        return "sanitizer report"
    if status != OUT_OF_MEMORY_STATUS:
        return "exit status %d (expected %d)" % (status, OUT_OF_MEMORY_STATUS)
    lines = [l for l in stderr.splitlines() if not COUNT_LINE.match(l) and not SITE_LINE.match(l)]
    if len(lines) != 1 or not lines[0].startswith("fennelsim") or not OUT_OF_MEMORY.search(lines[0]):
        return "stderr is not one 'fennelsim...: ... out of memory' line"
    if partial(left, clean[3]):
        return "left behind: " + ", ".join(partial(left, clean[3]))
    return None


def chosen_calls(stderr, count, every):
    """The N to fail: every one, or the first PER_SITE of each call site
    (with threads the order of calls may change between runs: then a chosen
    N may meet another site, which is still a failure to survive)."""
    if every:
        return list(range(1, count + 1))
    seen, chosen = {}, []
    for n, site in SITE_LINE.findall(stderr):
        seen[site] = seen.get(site, 0) + 1
        if seen[site] <= PER_SITE:
            chosen.append(int(n))
    recorded = len(SITE_LINE.findall(stderr))
    return chosen + list(range(recorded + 1, count + 1))  # past the record: all


def sweep(fennelsim, inputs, name, args, jobs, every):
    clean = run_once(fennelsim, inputs, args, FENNELSIM_COUNT_ALLOC="sites")
    status, _, stderr, _ = clean
    found = COUNT_LINE.search(stderr)
    if status != 0 or not found:
        print("%s: the clean run failed (status %d):\n%s" % (name, status, stderr))
        return 0, 1
    count = int(found.group(1))
    calls = chosen_calls(stderr, count, every)
    failures = survived = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = pool.map(lambda n: (n, run_once(fennelsim, inputs, args, FENNELSIM_FAIL_ALLOC=str(n))),
                        calls)
        for n, run in runs:
            status, stderr = run[0], run[2]
            wrong = verdict(run, clean)
            survived += status == 0 and not wrong
            if wrong:
                failures += 1
                print("FAIL %s N=%d (status %d): %s\n%s" % (name, n, status, wrong, stderr[-4000:]))
    print("%-26s %5d of %5d allocation calls failed in turn: %d wrong, %d survived" %
          (name, len(calls), count, failures, survived), flush=True)
    return len(calls), failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fennelsim")
    parser.add_argument("root")
    parser.add_argument("--only", help="the commands whose name contains this")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true", help="print the commands and stop")
    parser.add_argument("--every", action="store_true",
                        help="fail every allocation call, not the first %d of each site" % PER_SITE)
    o = parser.parse_args()
    chosen = [c for c in commands() if not o.only or o.only in c[0]]
    if o.list:
        for name, args in chosen:
            print(name, " ".join(args))
        return 0
    fennelsim = os.path.abspath(o.fennelsim)
    inputs = tempfile.mkdtemp(prefix="oom-in-")
    try:
        make_inputs(fennelsim, o.root, inputs)
        total = failed = 0
        for name, args in chosen:
            count, failures = sweep(fennelsim, inputs, name, args, o.jobs, o.every)
            total, failed = total + count, failed + failures
    finally:
        shutil.rmtree(inputs, ignore_errors=True)
    print("%d commands, %d allocation calls failed in turn, %d wrong" % (len(chosen), total, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
