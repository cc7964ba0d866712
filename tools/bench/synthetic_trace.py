#!/usr/bin/env python3
"""tools/bench/synthetic_trace.py: writes a synthetic recorded run for the
replay benchmark: a 2-D halo exchange on a P = X x Y torus, ITERATIONS
times: 4 irecv, 4 isend of BYTES, a waitall, 50 us of computation, and
every EVERY-th iteration (default 10) an 8-byte allreduce.

--format fennel (default) writes fennelsim's trace format (docs/TRACES.md),
one DIR/rank-N.fstrace.gz per rank, with made-up times (the replay only
needs the gaps). --format simgrid writes SimGrid's time-independent format
into one file, DIR/trace.ti (the computation as `sleep 0.00005`), so that
2^20 ranks are one file instead of 2^20.

Usage: synthetic_trace.py [--format fennel|simgrid] [--allreduce-every EVERY]
                          DIR X Y ITERATIONS [BYTES]"""
import gzip
import os
import sys


def neighbors_of(rank, x, y):
    i, j = rank % x, rank // x
    return [((i + 1) % x) + j * x, ((i - 1) % x) + j * x, i + ((j + 1) % y) * x, i + ((j - 1) % y) * x]


def rank_lines(rank, x, y, iterations, size, every):
    world = x * y
    neighbors = neighbors_of(rank, x, y)
    yield "# fennelsim-trace 1\nrank %d %d\nhost synthetic\nclock_offset_ns 0\n" % (rank, world)
    t = 0
    yield "init %d %d\n" % (t, t + 1000)
    t += 1000
    request = 0
    for it in range(iterations):
        made = []
        for k, peer in enumerate(neighbors):
            request += 1
            made.append(request)
            yield "irecv %d %d peer=%d tag=%d comm=0 bytes=%d req=%d\n" % (t, t + 100, peer, k ^ 1, size, request)
            t += 200
        for k, peer in enumerate(neighbors):
            request += 1
            made.append(request)
            yield "isend %d %d peer=%d tag=%d comm=0 bytes=%d req=%d\n" % (t, t + 100, peer, k, size, request)
            t += 200
        yield "waitall %d %d reqs=%s\n" % (t, t + 5000, ",".join(map(str, made)))
        t += 5000 + 50000
        if it % every == every - 1:
            yield "allreduce %d %d comm=0 bytes=8 rbytes=8\n" % (t, t + 3000)
            t += 3000
    yield "finalize %d %d\n" % (t, t + 1000)


def simgrid_lines(rank, x, y, iterations, size, every):
    neighbors = neighbors_of(rank, x, y)
    lines = ["%d init\n" % rank]
    for it in range(iterations):
        lines.extend("%d irecv %d %d %d\n" % (rank, peer, k ^ 1, size) for k, peer in enumerate(neighbors))
        lines.extend("%d isend %d %d %d\n" % (rank, peer, k, size) for k, peer in enumerate(neighbors))
        lines.append("%d waitall\n%d sleep 0.00005\n" % (rank, rank))
        if it % every == every - 1:
            lines.append("%d allreduce 8 0\n" % rank)
    lines.append("%d finalize\n" % rank)
    return "".join(lines)


def main():
    args, form, every = sys.argv[1:], "fennel", 10
    while args and args[0].startswith("--"):
        if len(args) < 2 or args[0] not in ("--format", "--allreduce-every"):
            sys.exit(__doc__)
        if args[0] == "--format":
            form = args[1]
        else:
            every = int(args[1])
        args = args[2:]
    if len(args) < 4 or form not in ("fennel", "simgrid") or every < 1:
        sys.exit(__doc__)
    directory, x, y, iterations = args[0], int(args[1]), int(args[2]), int(args[3])
    size = int(args[4]) if len(args) > 4 else 4096
    os.makedirs(directory, exist_ok=True)
    if form == "simgrid":
        with open(os.path.join(directory, "trace.ti"), "w") as out:
            for rank in range(x * y):
                out.write(simgrid_lines(rank, x, y, iterations, size, every))
        return
    for rank in range(x * y):
        with gzip.open(os.path.join(directory, "rank-%d.fstrace.gz" % rank), "wt", compresslevel=1) as out:
            out.writelines(rank_lines(rank, x, y, iterations, size, every))


if __name__ == "__main__":
    main()
