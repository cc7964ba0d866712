#!/usr/bin/env python3
"""goal_bin_writer.py: writes LogGOPSim's binary GOAL (.bin) from GOAL text,
following the layout of docs/FORMATS.md ("LogGOPSim binary schedules"), so
that the tests can give fennelsim a .bin without LogGOPSim installed.

It reads the subset of GOAL that fennelsim's own generators and the test
schedules use: `num_ranks N`, `rank R {` ... `}` blocks in rank order,
`[LABEL:] send|recv SIZEb to|from PEER [tag T] [cpu C] [nic N]`,
`[LABEL:] calc TIME [cpu C]`, `LABEL requires|irequires LABEL`, `//` and
block comments. PEER and T may be -1 (any), written as
4294967295. Dependencies are stored as txt2bin stores them: on the
operation waited for, in the order of the text.

usage: goal_bin_writer.py IN.goal OUT.bin [--byte-order little|big|native]
"""
import io
import re
import struct
import sys

MAGIC = 4223
ANY = 0xFFFFFFFF
TYPES = {"send": 1, "recv": 2, "calc": 3}
RECORD = "IBIQIBBIIII"  # after '=', '<' or '>': 39 bytes, no padding
OPERATION = re.compile(
    r"(?:(\w+)\s*:\s*)?(send|recv)\s*(\d+)\s*b\s*(?:to|from)\s*(-1|\d+)"
    r"(?:\s*tag\s*(-1|\d+))?(?:\s*cpu\s*(\d+))?(?:\s*nic\s*(\d+))?$")
CALC = re.compile(r"(?:(\w+)\s*:\s*)?calc\s*(\d+)(?:\s*cpu\s*(\d+))?$")
DEPENDENCY = re.compile(r"(\w+)\s+(requires|irequires)\s+(\w+)$")


class Node:
    def __init__(self, kind, peer, size, tag, cpu, nic):
        self.kind, self.peer, self.size, self.tag, self.cpu, self.nic = kind, peer, size, tag, cpu, nic
        self.count = 0     # operations this one waits for
        self.ends = []     # operations waiting for this one to complete
        self.starts = []   # operations waiting for this one to start


def number(text):
    return ANY if text == "-1" else int(text)


def statements(lines):
    """The statements of the lines, comments and blank lines left out."""
    in_comment = False
    for line in lines:
        kept = ""
        while line:
            if in_comment:
                end = line.find("*/")
                in_comment, line = end < 0, "" if end < 0 else line[end + 2:]
                continue
            starts = [k for k in (line.find("//"), line.find("/*")) if k >= 0]
            if not starts:
                kept, line = kept + line, ""
                continue
            k = min(starts)
            kept += line[:k] + " "
            in_comment, line = line.startswith("/*", k), "" if line.startswith("//", k) else line[k + 2:]
        kept = kept.strip()
        if kept:
            yield kept


def blocks(lines):
    """The rank count, then each rank's [Node], in order."""
    ranks, nodes, labels, done = None, None, None, 0
    for line in statements(lines):
        m = re.match(r"num_ranks\s+(\d+)$", line)
        if m:
            ranks = int(m.group(1))
            yield ranks
            continue
        m = re.match(r"rank\s+(\d+)\s*\{$", line)
        if m:
            assert int(m.group(1)) == done, "ranks in order"
            nodes, labels = [], {}
            continue
        if line == "}":
            yield nodes
            done += 1
            continue
        node, label = None, None
        m = OPERATION.match(line)
        if m:
            label = m.group(1)
            node = Node(TYPES[m.group(2)], number(m.group(4)), int(m.group(3)),
                        number(m.group(5) or "0"), int(m.group(6) or 0), int(m.group(7) or 0))
        m = None if node else CALC.match(line)
        if m:
            label = m.group(1)
            node = Node(3, 0, int(m.group(2)), 0, int(m.group(3) or 0), 0)
        if node:
            nodes.append(node)
            if label:
                labels.setdefault(label, len(nodes) - 1)  # txt2bin keeps the first
            continue
        m = DEPENDENCY.match(line)
        assert m, "not in the subset: " + line
        waiting, on = nodes[labels[m.group(1)]], nodes[labels[m.group(3)]]
        (on.ends if m.group(2) == "requires" else on.starts).append(labels[m.group(1)])
        waiting.count += 1
    assert ranks == done, "one block per rank"


def block_bytes(nodes, order):
    roots = [i for i, n in enumerate(nodes) if n.count == 0]
    out = [struct.pack(order + "II", len(nodes), len(roots))]
    out += [struct.pack(order + "I", i) for i in roots]
    record, listed = struct.Struct(order + RECORD), 0
    for n in nodes:
        ends_at = listed
        listed += len(n.ends)
        out.append(record.pack(n.count, n.kind, n.peer, n.size, n.tag, n.cpu, n.nic,
                               len(n.ends), ends_at, len(n.starts), listed))
        listed += len(n.starts)
    for n in nodes:
        out += [struct.pack(order + "I", i) for i in n.ends + n.starts]
    return b"".join(out)


def write(lines, out, order="="):
    """Writes the .bin of GOAL text lines to the seekable binary file out,
    one block at a time, in the byte order given ('=' native, '<' little,
    '>' big endian)."""
    ranks, table, at, max_cpu, max_nic = None, [], 0, 0, 0
    for item in blocks(lines):
        if ranks is None:
            ranks, at = item, 4 + 2 + 16 * item  # offsets count from byte 8
            out.write(bytes(8 + at))  # the header and table, filled in below
            continue
        body = block_bytes(item, order)
        out.write(body)
        table.append(struct.pack(order + "QQ", at, at + len(body)))
        at += len(body)
        max_cpu = max([max_cpu] + [n.cpu for n in item])
        max_nic = max([max_nic] + [n.nic for n in item])
    out.seek(0)
    out.write(struct.pack(order + "QIBB", MAGIC, ranks, max_cpu, max_nic) + b"".join(table))


def to_bin(text, order="="):
    """The .bin bytes of a GOAL text."""
    out = io.BytesIO()
    write(text.splitlines(), out, order)
    return out.getvalue()


def main(argv):
    orders = {"native": "=", "little": "<", "big": ">"}
    if len(argv) not in (3, 5) or (len(argv) == 5 and (argv[3] != "--byte-order" or argv[4] not in orders)):
        sys.exit(__doc__.strip().splitlines()[-1])
    with open(argv[1]) as f, open(argv[2], "wb") as out:
        write(f, out, orders[argv[4]] if len(argv) == 5 else "=")


if __name__ == "__main__":
    main(sys.argv)
