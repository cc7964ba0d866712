#!/usr/bin/env python3
"""tools/bench/synthetic_trace.py: writes a synthetic recorded run in
fennelsim's trace format (docs/TRACES.md) for the replay benchmark: a 2-D
halo exchange on a P = X x Y torus, ITERATIONS times: 4 irecv, 4 isend of
BYTES, a waitall, 50 us of computation, and every 10th iteration an 8-byte
allreduce. Times are made up (the replay only needs the gaps).

Usage: synthetic_trace.py DIR X Y ITERATIONS [BYTES]"""
import gzip
import os
import sys


def rank_lines(rank, x, y, iterations, size):
    world = x * y
    i, j = rank % x, rank // x
    neighbors = [((i + 1) % x) + j * x, ((i - 1) % x) + j * x, i + ((j + 1) % y) * x, i + ((j - 1) % y) * x]
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
        if it % 10 == 9:
            yield "allreduce %d %d comm=0 bytes=8 rbytes=8\n" % (t, t + 3000)
            t += 3000
    yield "finalize %d %d\n" % (t, t + 1000)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    directory, x, y, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    size = int(sys.argv[5]) if len(sys.argv) > 5 else 4096
    os.makedirs(directory, exist_ok=True)
    for rank in range(x * y):
        with gzip.open(os.path.join(directory, "rank-%d.fstrace.gz" % rank), "wt", compresslevel=1) as out:
            out.writelines(rank_lines(rank, x, y, iterations, size))


if __name__ == "__main__":
    main()
