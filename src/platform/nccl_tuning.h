/* nccl_tuning.h: NCCL 2.30.7's cost model (its src/graph/tuning.cc) and its
 * choice of algorithm, protocol and channel count for one collective call
 * (its src/enqueue.cc, topoGetAlgoInfo), as data: the constants per GPU
 * generation and link class, the latency and bandwidth NCCL predicts for
 * every (algorithm, protocol), the time for a size, and the pick with the
 * rule that made it.
 *
 * All seven algorithms are modelled: Tree, Ring, CollNetDirect,
 * CollNetChain, NVLS, NVLSTree and PAT, each where NCCL enables it (the
 * call's machine facts: an NVSwitch, NVLS multicast, a CollNet plugin, one
 * GPU per node). Tuner plugins are not; NCCL_ALGO/NCCL_PROTO are the call's
 * masks.
 *
 * Exact arithmetic. NCCL computes in single-precision floats; this module
 * computes the same formulas exactly: bandwidths are rationals in MB/s
 * (bytes per microsecond; every NCCL constant is a whole number of them),
 * latencies whole picoseconds (every NCCL latency is whole nanoseconds; the
 * ring plateau factor 1.4 or 1.9 keeps them whole unless latency_inter is
 * not a multiple of 10 ps, when it is rounded to the nearest ps, halves
 * up; so is PAT's inter-node latency / 3.5). A time is latency + bytes / bandwidth rounded to the nearest ps
 * (halves up); the choice compares the exact (unrounded) times, so a
 * crossover falls where the real-number formulas cross. NCCL's floats can
 * move a pick within about 1e-7 of a crossover.
 *
 * Used by the `nccl` network model (per-transfer costs) and by generators
 * that reproduce NCCL's pick (fs_nccl_decide). */
#ifndef FS_NCCL_TUNING_H
#define FS_NCCL_TUNING_H

#include <stdint.h>

#include "core/error.h"
#include "core/program.h"
#include "core/units.h"

typedef enum fs_nccl_collective {
  FS_NCCL_ALLREDUCE,
  FS_NCCL_ALLGATHER,
  FS_NCCL_REDUCESCATTER,
  FS_NCCL_BROADCAST,
  FS_NCCL_REDUCE,
  FS_NCCL_COLLECTIVES
} fs_nccl_collective;

/* In NCCL's scan order (its NCCL_ALGO_* numbers): ties go to the earlier one. */
typedef enum fs_nccl_algorithm {
  FS_NCCL_TREE,
  FS_NCCL_RING,
  FS_NCCL_COLLNET_DIRECT,
  FS_NCCL_COLLNET_CHAIN,
  FS_NCCL_NVLS,
  FS_NCCL_NVLS_TREE,
  FS_NCCL_PAT,
  FS_NCCL_ALGORITHMS
} fs_nccl_algorithm;

/* Protocols are core/program.h's fs_protocol (LL, LL128, Simple: NCCL's
 * scan order); tables are indexed by protocol - 1. */
#define FS_NCCL_PROTOCOLS 3

typedef enum fs_nccl_gpu {
  FS_NCCL_VOLTA, /* sm70 */
  FS_NCCL_AMPERE,
  FS_NCCL_HOPPER,
  FS_NCCL_BLACKWELL,
  FS_NCCL_GPUS
} fs_nccl_gpu;

/* The per-hop latency tables' link classes (NCCL's NCCL_HW_*). */
typedef enum fs_nccl_link { FS_NCCL_NVLINK, FS_NCCL_PCI, FS_NCCL_NET, FS_NCCL_LINKS } fs_nccl_link;

/* The host CPU: multi-node LL bandwidth caps and the net overhead. */
typedef enum fs_nccl_cpu { FS_NCCL_INTEL, FS_NCCL_AMD, FS_NCCL_CPUS } fs_nccl_cpu;

/* Limits of every input (fs_nccl_decide refuses values past them). */
#define FS_NCCL_MAX_RANKS (1 << 20)
#define FS_NCCL_MAX_GRAPH_CHANNELS 32 /* nc_graph; the communicator has at most 64 */
#define FS_NCCL_MAX_CHANNELS 64
#define FS_NCCL_MAX_BANDWIDTH ((int64_t)1 << 24) /* MB/s per channel (16777 GB/s) */
#define FS_NCCL_MAX_LATENCY_INTER FS_S

/* A bandwidth num/den MB/s (bytes per microsecond), num, den >= 1, reduced. */
typedef struct fs_nccl_rate {
  int64_t num, den;
} fs_nccl_rate;

/* The time bytes take at rate: bytes * 1e6 * den / num ps, rounded to the
 * nearest (halves up), saturated at FS_TIME_LIMIT. */
fs_time fs_nccl_rate_time(fs_nccl_rate rate, int64_t bytes);
/* The rate in GB/s, for reports. */
double fs_nccl_rate_gbps(fs_nccl_rate rate);

/* The constants (sources in nccl_tuning.c): the base latency of an
 * algorithm and protocol, the latency of one hop over a link class, ps. */
fs_time fs_nccl_base_latency(fs_nccl_algorithm algorithm, int protocol);
fs_time fs_nccl_hop_latency(fs_nccl_link link, fs_nccl_algorithm algorithm, int protocol);
/* The net overhead (Intel 1 us, AMD 2 us), ps. */
fs_time fs_nccl_net_overhead(fs_nccl_cpu cpu);
/* llMaxBw, MB/s: on one node by GPU, on 2 or more nodes by host CPU. */
int64_t fs_nccl_ll_max_bandwidth(fs_nccl_gpu gpu, fs_nccl_cpu cpu, int32_t nodes);
/* The per-channel cap of Ring/LL128, MB/s (by GPU and 1, 2 or > 2 nodes). */
int64_t fs_nccl_ring_ll128_cap(fs_nccl_gpu gpu, int32_t nodes);
/* The bandwidth of one ring channel of `bandwidth` MB/s over protocol, as
 * NCCL's Ring formula gives it per channel when `channels` channels run:
 * LL min(bw / 2, llMaxBw / channels), LL128 min(0.92 bw, the LL128 cap),
 * Simple bw. */
fs_nccl_rate fs_nccl_channel_rate(fs_nccl_gpu gpu, fs_nccl_cpu cpu, int32_t nodes,
                                  int64_t bandwidth, int protocol, int32_t channels);
/* The search's per-channel bandwidths NCCL reaches on a typical machine of
 * each generation, MB/s (docs/MODELS.md, "nccl": only Hopper's are backed
 * by logs): intra (a ring over NVLink inside a node) and inter (a 400 Gb/s
 * NIC per GPU on Hopper and Blackwell). */
int64_t fs_nccl_default_bandwidth(fs_nccl_gpu gpu, fs_nccl_link link);

/* Names: "allreduce"..., "Tree", "Ring", "CollNetDirect", "CollNetChain",
 * "NVLS", "NVLSTree", "PAT" (NCCL's), "volta"..., "nvlink"/"pci"/"net",
 * "intel"/"amd"; the find functions return -1 for an unknown name. */
const char *fs_nccl_collective_name(fs_nccl_collective collective);
const char *fs_nccl_algorithm_name(fs_nccl_algorithm algorithm);
const char *fs_nccl_gpu_name(fs_nccl_gpu gpu);
const char *fs_nccl_link_name(fs_nccl_link link);
const char *fs_nccl_cpu_name(fs_nccl_cpu cpu);
int fs_nccl_gpu_find(const char *name);
int fs_nccl_link_find(const char *name);
int fs_nccl_cpu_find(const char *name);
/* A bandwidth "30", "20.6", "31.67GB/s" (GB/s, at most 3 decimals) into
 * MB/s, 1 to FS_NCCL_MAX_BANDWIDTH; 0 or -1. */
int fs_nccl_parse_bandwidth(const char *text, int64_t *mb_per_s);

/* A graph of NCCL's topology search beyond the ring/tree one: its channels
 * (for NVLS and CollNetDirect, the heads) and per-channel bandwidths, MB/s.
 * channels 0: NCCL found none (the algorithm is off). */
typedef struct fs_nccl_graph {
  int32_t channels;           /* 0 .. FS_NCCL_MAX_GRAPH_CHANNELS */
  int64_t bw_intra, bw_inter; /* 1 .. FS_NCCL_MAX_BANDWIDTH when channels > 0 */
} fs_nccl_graph;

/* One collective call and the machine, as NCCL's tuning sees them. */
typedef struct fs_nccl_call {
  fs_nccl_collective collective;
  int32_t ranks; /* k, 2 .. FS_NCCL_MAX_RANKS */
  int32_t nodes; /* N, 1 .. k, dividing k (ppn = k / N GPUs per node) */
  fs_nccl_gpu gpu;
  fs_nccl_cpu cpu;
  fs_nccl_link intra;         /* the graphs' typeIntra: FS_NCCL_NVLINK or FS_NCCL_PCI */
  int32_t channels;           /* nc_graph, 1 .. 32 */
  int32_t comm_channels;      /* the communicator's; 0: 2 * channels (at most 64) */
  int64_t bw_intra, bw_inter; /* per channel, MB/s (30 GB/s: 30000) */
  fs_time latency_inter;      /* the net plugin's latency (0 for IB and sockets) */
  int tree_pattern;           /* 1: the tree graph's pattern is TREE (bandwidth x 0.85) */
  int distinct_rings;         /* broadcast, reduce: the channels' rings differ */
  unsigned algorithms;        /* bits 1 << fs_nccl_algorithm allowed (NCCL_ALGO); 0: all */
  unsigned protocols;         /* bits 1 << fs_protocol allowed (NCCL_PROTO); 0: all */
  int64_t bytes;              /* nBytes, as nccl-tests' "size", 0 .. FS_SIZE_LIMIT */
  /* The machine facts of the other algorithms (0: absent, as NCCL without them):
   * nvswitch: the node's GPUs hang off an NVSwitch (NVLS and CollNetDirect need it);
   * nvls: NVLink SHARP multicast is available and NCCL_NVLS_ENABLE is not 0 (NCCL
   *   uses it on Hopper or later with an NVSwitch, given a graph of >= 2 channels);
   * collnet: NCCL_COLLNET_ENABLE=1 with a CollNet (SHARP) plugin that also does
   *   allgather and reduce-scatter; NCCL uses it on 2 or more nodes of <= 8 GPUs;
   * PAT needs none: NCCL enables it (Simple, allgather and reduce-scatter) when
   *   each node has one GPU (NCCL_PAT_ENABLE's default). */
  int nvswitch, nvls, collnet;
  fs_nccl_graph nvls_graph;    /* NVLS's and NVLSTree's graph; its channels are the heads */
  fs_nccl_graph collnet_graph; /* CollNetDirect's and CollNetChain's (NCCL searches the two
                                  separately; here they share one) */
  int32_t nvls_channels;       /* the channels NVLS runs on (comm->nvlsChannels), 0 .. 64;
                                  0: NCCL's default (Hopper 16, Blackwell 24 on one node,
                                  32 on more) */
} fs_nccl_call;

/* NCCL's prediction for one (algorithm, protocol). */
typedef struct fs_nccl_estimate {
  int applies;            /* NCCL computes an entry: an algorithm and protocol of the collective */
  int enabled;            /* 0: NCCL gives it bandwidth 0, or the masks exclude it */
  fs_time latency;        /* NCCL's latency table entry, ps */
  fs_nccl_rate bandwidth; /* NCCL's algBw table entry */
  fs_time used_latency;   /* for this size: x 1.4 (1.9 on Volta) on the ring plateau */
  fs_nccl_rate used_bandwidth; /* for this size: x treeCorr for Tree AllReduce */
  fs_time time;                /* used_latency + bytes / used_bandwidth, ps */
} fs_nccl_estimate;

/* NCCL's pick: the least time over the enabled estimates, scanning Tree,
 * Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT and LL, LL128,
 * Simple with a strict "<", then the channels and threads it runs that
 * size on. */
typedef struct fs_nccl_decision {
  fs_nccl_algorithm algorithm;
  int protocol; /* an fs_protocol */
  int32_t channels, threads;
  fs_time time; /* the pick's predicted time, ps */
  fs_nccl_estimate estimate[FS_NCCL_ALGORITHMS][FS_NCCL_PROTOCOLS]; /* [a][protocol - 1] */
  char rule[256]; /* why: "Ring/LL128 129.248 us < Ring/Simple 137.629 us (next); ..." */
} fs_nccl_decision;

/* 0 with *out filled, or -1 with err: an input past its limit, or no
 * (algorithm, protocol) enabled. */
int fs_nccl_decide(const fs_nccl_call *call, fs_nccl_decision *out, fs_error *err);

/* A call on a typical machine of the generation (the graphs as
 * fs_nccl_default_bandwidth): on one node the ring graph over NVLink
 * (Volta and Ampere 12 x 20 GB/s, Hopper 12 x 30, Blackwell 16 x 45), on
 * more 8 channels of the NIC's bandwidth inside and between nodes (Volta
 * 12, Ampere 24, Hopper and Blackwell 48 GB/s); Intel hosts, no masks;
 * an NVSwitch, NVLS where the generation has it (Hopper, Blackwell) with
 * the NVLS graph fs_nccl_typical_nvls_graph gives, CollNet off (its graph,
 * for a caller that turns it on: min(ppn, 8) heads of the NIC's bandwidth
 * both ways, unverified).
 * Hopper's ring graphs are NCCL's for 1 x 8 and 2 x 8 H100 (the worked
 * examples of docs/MODELS.md); the others are unverified. */
fs_nccl_call fs_nccl_typical_call(fs_nccl_collective collective, int32_t ranks, int32_t nodes,
                                  fs_nccl_gpu gpu, int64_t bytes);
/* The NVLS graph NCCL's search gives on ppn GPUs per node of the
 * generation, derived by hand from its search (unverified): channels =
 * ppn (at most 32); Hopper bwIntra 40 GB/s, bwInter 60 on one node and 48
 * on more; Blackwell 80 and 90 / 48; none (channels 0) before Hopper. */
fs_nccl_graph fs_nccl_typical_nvls_graph(fs_nccl_gpu gpu, int32_t ppn, int32_t nodes);
/* Every estimate's time in scan order, for reports: "Tree/LL 442.960 us,
 * ..., Ring/Simple 137.556 us, NVLS/Simple 58.6 us" (Tree and Ring: "off"
 * for a disabled one, Tree left out where only Ring applies; the others
 * only where enabled); whole entries only when size is short. */
void fs_nccl_estimates_text(const fs_nccl_decision *d, char *buffer, size_t size);

#endif
