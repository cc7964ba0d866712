#!/usr/bin/env python3
"""gpu_platforms.py: writes the SimGrid platform files of GPU machines that
fennelsim ships in models/ (docs/MODELS.md, "GPU platforms"):

  h100-nvswitch-node.xml     one 8-GPU H100 SXM node: every GPU a host with
                             its NVLink link to the NVSwitch, and the switch a
                             host after them (NVLS's switch rank); one Full zone
  h100-4x8-rail-fat-tree.xml 4 such nodes (32 GPUs) and a rail-optimized
                             2-level fat tree: every GPU's own 400 Gb/s NIC to
                             its rail's leaf switch, leaves to 4 spines;
                             explicit routes in one Full zone

Usage: gpu_platforms.py DIRECTORY   (writes both files there; the shipped
files are its output, so edit this script, not them, and run it again).
"""
import os
import sys

NODES, GPUS, SPINES = 4, 8, 4
NVLINK_BW, NVLINK_LAT = "370.8GBps", "300ns"
NIC_BW, NIC_LAT = "50GBps", "500ns"
SPINE_BW, SPINE_LAT = "50GBps", "130ns"

HEAD = """<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
"""

SOURCES = """     NVLink: an H100 SXM GPU has 18 NVLink 4 links (NVIDIA H100 Tensor Core
     GPU datasheet: 900 GB/s total = 18 x 25 GB/s per direction); NCCL 2.30.7
     counts 20.6 GB/s of usable bandwidth per H100 link (its topology's
     per-link speed for sm90), so a GPU's link to the NVSwitch carries
     18 x 20.6 = 370.8 GB/s per direction (SPLITDUPLEX). The DGX/HGX H100's
     four NVSwitch chips are one non-blocking switch here (the cluster's
     router). Latency 300 ns per link, 600 ns GPU to GPU: assumed, NCCL
     2.30.7's per-hop NVLink latency for its LL protocol (0.6 us, from its
     tuning tables) split over the hop's two links."""

NIC_SOURCES = """     NICs: one ConnectX-7 400 Gb/s InfiniBand NDR port per GPU, as on a DGX H100
     (its compute fabric: 8 single-port 400 Gb/s NICs), 400/8 = 50 GB/s per
     direction, the rate NCCL counts for a 400 Gb/s NIC. Rail-optimized, as
     NVIDIA's DGX SuperPOD reference architecture wires it: GPU g of every
     node goes to leaf switch g (rail g). Each leaf has one 50 GB/s link to
     each of the 4 spines: 4 NICs down, 4 links up, full bisection (1:1).
     Latencies (assumed): 500 ns for a GPU's NIC link (NIC and cable, so
     about 1 us GPU to GPU through one leaf, the order of an InfiniBand
     RDMA write's small-message latency), 130 ns per leaf-spine link (a
     switch's port-to-port latency, as in fat-tree.xml).
     Routes: inside a node over NVLink (nvlink-N-G up, then down); between
     nodes on one rail through the rail's leaf (nic up, nic down); between
     nodes and rails up to spine S = the destination's node (d-mod-k):
     nic-N-G up, leaf-G-spine-S up, leaf-G'-spine-S down, nic-N'-G' down.
     NCCL's PXN (moving data over NVLink to the GPU on the destination's
     rail first) is a schedule's choice, not a route. Host speeds are
     placeholders (the flow model ignores them)."""


def node_file():
    lines = [HEAD + f"""<!-- h100-nvswitch-node.xml: one 8-GPU H100 SXM node (DGX/HGX H100), every
     GPU a host (gpu-0 ... gpu-7) with its own link to the NVSwitch, and the
     NVSwitch itself a host (nvswitch, after the GPUs: rank 8 of a program
     mapped in order, the switch rank of allreduce-nccl-nvls), in one Full
     zone. A route GPU to GPU is nvswitch_link_I_UP, nvswitch_link_J_DOWN;
     GPU to switch nvswitch_link_I_UP, switch to GPU nvswitch_link_J_DOWN.
{SOURCES}
     Written by tools/gpu_platforms.py. -->
<platform version="4.1">
  <zone id="h100-node" routing="Full">"""]
    for g in range(GPUS):
        lines.append(f'    <host id="gpu-{g}" speed="1Gf" core="1"/>')
    lines.append('    <host id="nvswitch" speed="1Gf" core="1"/>')
    for g in range(GPUS):
        lines.append(f'    <link id="nvswitch_link_{g}" bandwidth="{NVLINK_BW}" '
                     f'latency="{NVLINK_LAT}" sharing_policy="SPLITDUPLEX"/>')
    hosts = [f"gpu-{g}" for g in range(GPUS)] + ["nvswitch"]
    for src in range(GPUS + 1):
        for dst in range(GPUS + 1):
            if src == dst:
                continue
            lines.append(f'    <route src="{hosts[src]}" dst="{hosts[dst]}" symmetrical="NO">')
            if src < GPUS:
                lines.append(f'      <link_ctn id="nvswitch_link_{src}" direction="UP"/>')
            if dst < GPUS:
                lines.append(f'      <link_ctn id="nvswitch_link_{dst}" direction="DOWN"/>')
            lines.append('    </route>')
    lines.append("  </zone>\n</platform>\n")
    return "\n".join(lines)


def route_links(src, dst):
    """The links of the route src -> dst, as (name, direction)."""
    ns, gs = divmod(src, GPUS)
    nd, gd = divmod(dst, GPUS)
    if ns == nd:
        return [(f"nvlink-{ns}-{gs}", "UP"), (f"nvlink-{nd}-{gd}", "DOWN")]
    if gs == gd:
        return [(f"nic-{ns}-{gs}", "UP"), (f"nic-{nd}-{gd}", "DOWN")]
    spine = nd % SPINES
    return [(f"nic-{ns}-{gs}", "UP"), (f"leaf-{gs}-spine-{spine}", "UP"),
            (f"leaf-{gd}-spine-{spine}", "DOWN"), (f"nic-{nd}-{gd}", "DOWN")]


def fat_tree_file():
    hosts = NODES * GPUS
    lines = [HEAD + f"""<!-- h100-4x8-rail-fat-tree.xml: {NODES} H100 SXM nodes of {GPUS} GPUs ({hosts} hosts,
     gpu-R = GPU R mod {GPUS} of node R div {GPUS}), NVSwitch inside each node and a
     rail-optimized 2-level fat tree between them ({GPUS} leaf switches, {SPINES} spines), in
     one Full zone with every route written out (both directions).
{SOURCES}
{NIC_SOURCES}
     Written by tools/gpu_platforms.py. -->
<platform version="4.1">
  <zone id="h100-cluster" routing="Full">"""]
    for h in range(hosts):
        lines.append(f'    <host id="gpu-{h}" speed="1Gf" core="1"/>')
    for n in range(NODES):
        for g in range(GPUS):
            lines.append(f'    <link id="nvlink-{n}-{g}" bandwidth="{NVLINK_BW}" '
                         f'latency="{NVLINK_LAT}" sharing_policy="SPLITDUPLEX"/>')
    for n in range(NODES):
        for g in range(GPUS):
            lines.append(f'    <link id="nic-{n}-{g}" bandwidth="{NIC_BW}" latency="{NIC_LAT}" '
                         'sharing_policy="SPLITDUPLEX"/>')
    for g in range(GPUS):
        for s in range(SPINES):
            lines.append(f'    <link id="leaf-{g}-spine-{s}" bandwidth="{SPINE_BW}" '
                         f'latency="{SPINE_LAT}" sharing_policy="SPLITDUPLEX"/>')
    for src in range(hosts):
        for dst in range(hosts):
            if src == dst:
                continue
            lines.append(f'    <route src="gpu-{src}" dst="gpu-{dst}" symmetrical="NO">')
            for name, direction in route_links(src, dst):
                lines.append(f'      <link_ctn id="{name}" direction="{direction}"/>')
            lines.append('    </route>')
    lines.append("  </zone>\n</platform>\n")
    return "\n".join(lines)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, text in (("h100-nvswitch-node.xml", node_file()),
                       ("h100-4x8-rail-fat-tree.xml", fat_tree_file())):
        with open(os.path.join(sys.argv[1], name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
