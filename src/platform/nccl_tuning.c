/* nccl_tuning.c: NCCL 2.30.7's tuning constants and formulas for its
 * seven algorithms (nccl_tuning.h), computed exactly.
 *
 * The constants (NCCL 2.30.7, src/graph/tuning.cc), latencies in ns,
 * bandwidths in MB/s:
 *   base latency [LL, LL128, Simple]: Tree 6800, 14000, 8400; Ring 6600,
 *     14000, 8400; CollNet*, NVLS* 0; PAT 8000 x 3
 *   per-hop latency, NVLink / PCI / NET: Tree 600, 1250, 4000 / 1000, 1900,
 *     4000 / 5000, 8500, 14000; Ring 600, 1900, 3400 / 1000, 2500, 5700 /
 *     2700, 4000, 14000; Simple only: CollNetDirect 3700 / 3700 / 31000,
 *     CollNetChain 2800 / 2800 / 30000, NVLS 25000 / 0 / 18000, NVLSTree
 *     25000 / 0 / 20900, PAT 4000 / 4000 / 14000
 *   NVLS efficiency: Hopper 0.85, Blackwell 0.74 (none before)
 *   llMaxBw: one node by GPU, more by host CPU (2 nodes / more)
 *   per-channel caps by GPU and 1 / 2 / more nodes: Ring LL128, Tree
 *     LL128, Tree (AllReduce), NVLSTree
 *   treeCorr: tenths, by protocol and floor(log2(bytes / 64)), 0..23
 * The formulas (per algorithm a and protocol p; k ranks, N nodes, nc the
 * graph's channels, nsteps 2(k-1) AllReduce, k-1 AllGather/ReduceScatter,
 * k Broadcast/Reduce):
 *   busBw = nc * (N <= 2 ? bwIntra : bwInter)
 *   Ring LL min(llMaxBw, busBw / 2); Ring LL128 min(0.92 busBw, nc capRingLL128)
 *   Tree (AllReduce only) X = min(0.92 busBw, nc capTree); LL min(X / 3.8,
 *     llMaxBw); LL128 min(X * (N == 1 ? 7/9 : 120/128), nc capTreeLL128);
 *     Simple X; pattern TREE x 0.85
 *   NVLS, NVLSTree (graph nc >= 2): busBw = nc min(bwIntra eff (nc-1)/nc x
 *     (AllReduce 2 : (ppn-1)/ppn), bwInter (NVLSTree on <= 2 nodes x 2),
 *     NVLSTree's cap); PAT x 0.75 (tree graph); CollNetDirect AllReduce
 *     nc bwIntra / ((ppn/nc + 1) / 2) (x 0.85 Hopper+), AllGather /
 *     ReduceScatter ppn min(bwIntra, 0.9 bwInter); CollNetChain nc bwIntra
 *   algBw = busBw * (Ring, NVLS, NVLSTree ? k / nsteps : 1/2), except
 *     AllGather/ReduceScatter by anything but Ring (no conversion)
 *   Ring latency (AllReduce, AllGather, ReduceScatter): base + (nsteps -
 *     nInter) intra + nInter inter, intra at least the net overhead (x 3 for
 *     Simple) when N > 1, nInter = 0, 2(N-1) or N-1; inter = NET's entry (the
 *     Tree row when ppn = 1) + latencyInter (x 2 for Simple)
 *   Ring latency (Broadcast, Reduce): base + hop, or base + nsteps hop when
 *     the channels' rings differ (Simple then takes Tree's hop), the hop on
 *     NET when N > 1
 *   Tree latency: base + 2((ppn - 1) intra + floor(log2 N) inter)
 *   CollNetDirect 2(min(1, ppn-1) intra + 0.4 us (ppn-1)) + inter;
 *   CollNetChain 2 (ppn-1) intra + inter; NVLS intra (+ inter on N > 1);
 *   NVLSTree intra + 2 log2 N inter; PAT 8 us + log2 N inter / 3.5 + 2.8 us k
 *   time = lat + bytes / algBw, lat x 1.4 (1.9 on Volta) for Ring Simple
 *     AllReduce on N > 1 when bytes >= 64 k commChannels (the plateau),
 *     algBw x treeCorr for Tree AllReduce when 64 <= bytes < 2^29 (and for
 *     NVLSTree AllReduce on Blackwell, x86 hosts, below 2^30).
 *   Off (NCCL's algoEnable, bandwidth 0, enqueue.cc's skips): see
 *     algorithm_off and applies below.
 *   LL128 is enabled only when the intra link is NVLink (intra path <= NVB;
 *     the inter path is taken to allow it).
 * Channels (topoGetAlgoInfo): nc = commChannels, nt = maxThreads (Simple
 * 512, or 256 when the ring's bwIntra * nc <= 12 GB/s; LL 512; LL128 640);
 * drop nc while bytes < nc nt thr and nc > 1, then halve nt while that
 * holds and nt % 128 == 0 (thr: LL 8, x k for Ring; LL128 8; Simple 64);
 * Simple adds a warp (Ring) or four (Tree); at least 3 warps; Tree and PAT
 * 640. NVLS and NVLSTree run comm->nvlsChannels x 640; CollNetDirect drops
 * channels in stages (collnet_direct_channels); CollNetChain as Ring with
 * thr 512 and 640 threads; PAT all channels (its maxThreads is never set). */
#include "platform/nccl_tuning.h"

#include <stdio.h>
#include <string.h>

#define P(protocol) ((protocol)-1) /* table index of an fs_protocol */
#define NS 1000                    /* ps */

static const int32_t base_ns[FS_NCCL_ALGORITHMS][FS_NCCL_PROTOCOLS] =
    {{6800, 14000, 8400}, {6600, 14000, 8400}, {0, 0, 0},         {0, 0, 0},
     {0, 0, 0},           {0, 0, 0},           {8000, 8000, 8000}};
/* [link][Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT] */
static const int32_t hop_ns[FS_NCCL_LINKS][FS_NCCL_ALGORITHMS][FS_NCCL_PROTOCOLS] = {
    /* NVLink */
    {{600, 1250, 4000},
     {600, 1900, 3400},
     {0, 0, 3700},
     {0, 0, 2800},
     {0, 0, 25000},
     {0, 0, 25000},
     {0, 0, 4000}},
    /* PCI */
    {{1000, 1900, 4000},
     {1000, 2500, 5700},
     {0, 0, 3700},
     {0, 0, 2800},
     {0, 0, 0},
     {0, 0, 0},
     {0, 0, 4000}},
    /* NET */
    {{5000, 8500, 14000},
     {2700, 4000, 14000},
     {0, 0, 31000},
     {0, 0, 30000},
     {0, 0, 18000},
     {0, 0, 20900},
     {0, 0, 14000}}};
static const int32_t ll_max_gpu[FS_NCCL_GPUS] = {39000, 87700, 141000, 282000};
static const int32_t ll_max_cpu[FS_NCCL_CPUS][2] = {{39000, 20400}, {22500, 19000}};
/* [gpu][1 node, 2 nodes, more] */
static const int32_t cap_ring_ll128[FS_NCCL_GPUS][3] = {{20000, 20000, 20000},
                                                        {20000, 20000, 20000},
                                                        {36700, 36700, 36700},
                                                        {40000, 40000, 40000}};
static const int32_t cap_tree_ll128[FS_NCCL_GPUS][3] = {{20000, 20000, 20000},
                                                        {20000, 20000, 20000},
                                                        {36700, 36700, 29000},
                                                        {55600, 31670, 20000}};
static const int32_t cap_tree[FS_NCCL_GPUS][3] = {{26500, 18500, 10000},
                                                  {24000, 23600, 17800},
                                                  {38700, 41400, 36000},
                                                  {70000, 42800, 24000}};
/* NVLSTree's (Volta's and Ampere's rows exist in NCCL but NVLS is off there) */
static const int32_t cap_nvls_tree[FS_NCCL_GPUS][3] = {{26500, 18500, 10000},
                                                       {24000, 23600, 17800},
                                                       {0, 57700, 45500},
                                                       {0, 96000, 80000}};
/* NVLS efficiency, hundredths (0: no NVLS) */
static const int32_t nvls_efficiency[FS_NCCL_GPUS] = {0, 0, 85, 74};
static const int8_t tree_correction[FS_NCCL_PROTOCOLS][24] =
    {{10, 10, 10, 10, 9, 8, 7, 7, 7, 7, 6, 5, 4, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 10},
     {10, 10, 10, 10, 10, 9, 8, 8, 8, 7, 6, 6, 6, 6, 6, 6, 8, 9, 9, 9, 9, 10, 10, 10},
     {9, 9, 9, 9, 9, 9, 9, 8, 7, 6, 6, 5, 5, 5, 5, 6, 7, 8, 7, 7, 8, 9, 9, 9}};
/* Typical search results per channel (MB/s), [gpu][intra, inter]. */
static const int32_t default_bandwidth[FS_NCCL_GPUS][2] = {{20000, 12000},
                                                           {20000, 24000},
                                                           {30000, 48000},
                                                           {45000, 48000}};

static const char *const collective_names[FS_NCCL_COLLECTIVES] = {"allreduce", "allgather",
                                                                  "reducescatter", "broadcast",
                                                                  "reduce"};
static const char *const algorithm_names[FS_NCCL_ALGORITHMS] =
    {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
static const char *const gpu_names[FS_NCCL_GPUS] = {"volta", "ampere", "hopper", "blackwell"};
static const char *const link_names[FS_NCCL_LINKS] = {"nvlink", "pci", "net"};
static const char *const cpu_names[FS_NCCL_CPUS] = {"intel", "amd"};

static int node_column(int32_t nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

/* ---- exact rationals ---- */

static __int128 gcd128(__int128 a, __int128 b) {
  while (b) {
    __int128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* num/den reduced; the limits (nccl_tuning.h) keep both within int64. */
static fs_nccl_rate rate_make(__int128 num, __int128 den) {
  __int128 g = gcd128(num, den);
  return (fs_nccl_rate){(int64_t)(num / g), (int64_t)(den / g)};
}

static fs_nccl_rate rate_scale(fs_nccl_rate r, int64_t num, int64_t den) {
  return rate_make((__int128)r.num * num, (__int128)r.den * den);
}

static fs_nccl_rate rate_min(fs_nccl_rate a, fs_nccl_rate b) {
  return (__int128)a.num * b.den <= (__int128)b.num * a.den ? a : b;
}

static fs_nccl_rate rate_whole(int64_t mb_per_s) { return (fs_nccl_rate){mb_per_s, 1}; }

/* A time as whole + rem / num ps (0 <= rem < num): exact, for comparing. */
typedef struct exact_time {
  __int128 whole;
  int64_t rem, num;
} exact_time;

static exact_time exact_for(fs_time latency, fs_nccl_rate rate, int64_t bytes) {
  __int128 scaled = (__int128)bytes * 1000000 * rate.den;
  return (exact_time){latency + scaled / rate.num, (int64_t)(scaled % rate.num), rate.num};
}

static int exact_less(exact_time a, exact_time b) {
  if (a.whole != b.whole) return a.whole < b.whole;
  return (__int128)a.rem * b.num < (__int128)b.rem * a.num;
}

static fs_time exact_round(exact_time t) {
  __int128 v = t.whole + ((__int128)t.rem * 2 >= t.num ? 1 : 0);
  return v > FS_TIME_LIMIT ? FS_TIME_LIMIT : (fs_time)v;
}

fs_time fs_nccl_rate_time(fs_nccl_rate rate, int64_t bytes) {
  return exact_round(exact_for(0, rate, bytes));
}

double fs_nccl_rate_gbps(fs_nccl_rate rate) { return (double)rate.num / (double)rate.den / 1000; }

/* ---- constants ---- */

fs_time fs_nccl_base_latency(fs_nccl_algorithm algorithm, int protocol) {
  return (fs_time)base_ns[algorithm][P(protocol)] * NS;
}

fs_time fs_nccl_hop_latency(fs_nccl_link link, fs_nccl_algorithm algorithm, int protocol) {
  return (fs_time)hop_ns[link][algorithm][P(protocol)] * NS;
}

fs_time fs_nccl_net_overhead(fs_nccl_cpu cpu) { return cpu == FS_NCCL_AMD ? 2 * FS_US : FS_US; }

int64_t fs_nccl_ll_max_bandwidth(fs_nccl_gpu gpu, fs_nccl_cpu cpu, int32_t nodes) {
  return nodes <= 1 ? ll_max_gpu[gpu] : ll_max_cpu[cpu][nodes == 2 ? 0 : 1];
}

int64_t fs_nccl_ring_ll128_cap(fs_nccl_gpu gpu, int32_t nodes) {
  return cap_ring_ll128[gpu][node_column(nodes)];
}

fs_nccl_rate fs_nccl_channel_rate(fs_nccl_gpu gpu, fs_nccl_cpu cpu, int32_t nodes,
                                  int64_t bandwidth, int protocol, int32_t channels) {
  fs_nccl_rate bw = rate_whole(bandwidth);
  if (protocol == FS_PROTOCOL_LL)
    return rate_min(rate_scale(bw, 1, 2),
                    rate_make(fs_nccl_ll_max_bandwidth(gpu, cpu, nodes), channels));
  if (protocol == FS_PROTOCOL_LL128)
    return rate_min(rate_scale(bw, 23, 25), rate_whole(fs_nccl_ring_ll128_cap(gpu, nodes)));
  return bw;
}

int64_t fs_nccl_default_bandwidth(fs_nccl_gpu gpu, fs_nccl_link link) {
  return default_bandwidth[gpu][link == FS_NCCL_NET];
}

/* ---- names ---- */

const char *fs_nccl_collective_name(fs_nccl_collective c) {
  return c < FS_NCCL_COLLECTIVES ? collective_names[c] : "?";
}
const char *fs_nccl_algorithm_name(fs_nccl_algorithm a) {
  return a < FS_NCCL_ALGORITHMS ? algorithm_names[a] : "?";
}
const char *fs_nccl_gpu_name(fs_nccl_gpu gpu) { return gpu < FS_NCCL_GPUS ? gpu_names[gpu] : "?"; }
const char *fs_nccl_link_name(fs_nccl_link link) {
  return link < FS_NCCL_LINKS ? link_names[link] : "?";
}
const char *fs_nccl_cpu_name(fs_nccl_cpu cpu) { return cpu < FS_NCCL_CPUS ? cpu_names[cpu] : "?"; }

static int find(const char *name, const char *const *names, int count) {
  for (int i = 0; name && i < count; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}
int fs_nccl_gpu_find(const char *name) { return find(name, gpu_names, FS_NCCL_GPUS); }
int fs_nccl_link_find(const char *name) { return find(name, link_names, FS_NCCL_LINKS); }
int fs_nccl_cpu_find(const char *name) { return find(name, cpu_names, FS_NCCL_CPUS); }

int fs_nccl_parse_bandwidth(const char *text, int64_t *mb_per_s) {
  int64_t value = 0;
  int digits = 0, decimals = -1;
  const char *s = text;
  for (; *s; s++) {
    if (*s == '.' && decimals < 0 && digits) {
      decimals = 0;
    } else if (*s >= '0' && *s <= '9' && decimals < 3) {
      value = value * 10 + (*s - '0');
      digits++;
      if (decimals >= 0) decimals++;
      if (value > FS_NCCL_MAX_BANDWIDTH) return -1;
    } else {
      break;
    }
  }
  if (!digits || decimals == 0 || (*s && strcmp(s, "GB/s") != 0)) return -1;
  for (int d = decimals < 0 ? 0 : decimals; d < 3; d++) value *= 10;
  if (value < 1 || value > FS_NCCL_MAX_BANDWIDTH) return -1;
  *mb_per_s = value;
  return 0;
}

/* ---- the model ---- */

static int32_t steps_of(const fs_nccl_call *c) {
  if (c->collective == FS_NCCL_ALLREDUCE) return 2 * (c->ranks - 1);
  if (c->collective == FS_NCCL_ALLGATHER || c->collective == FS_NCCL_REDUCESCATTER)
    return c->ranks - 1;
  return c->ranks;
}

static int ring_shaped(fs_nccl_collective c) {
  return c == FS_NCCL_ALLREDUCE || c == FS_NCCL_ALLGATHER || c == FS_NCCL_REDUCESCATTER;
}

static int32_t comm_channels(const fs_nccl_call *c) {
  if (c->comm_channels) return c->comm_channels;
  int32_t n = 2 * c->channels;
  return n > FS_NCCL_MAX_CHANNELS ? FS_NCCL_MAX_CHANNELS : n;
}

static int is_collnet(fs_nccl_algorithm a) {
  return a == FS_NCCL_COLLNET_DIRECT || a == FS_NCCL_COLLNET_CHAIN;
}
static int is_nvls(fs_nccl_algorithm a) { return a == FS_NCCL_NVLS || a == FS_NCCL_NVLS_TREE; }
static int is_gather(fs_nccl_collective c) {
  return c == FS_NCCL_ALLGATHER || c == FS_NCCL_REDUCESCATTER;
}

static int log2_floor(int32_t n) {
  int l = 0;
  while ((2 << l) <= n) l++;
  return l;
}

/* The graph an algorithm's bandwidth comes from (NCCL: PAT uses the tree's). */
static fs_nccl_graph graph_of(const fs_nccl_call *c, fs_nccl_algorithm a) {
  if (is_collnet(a)) return c->collnet_graph;
  if (is_nvls(a)) return c->nvls_graph;
  return (fs_nccl_graph){c->channels, c->bw_intra, c->bw_inter};
}

/* NCCL computes an entry (tuning.cc's loops): Broadcast and Reduce Ring
 * only; AllGather and ReduceScatter Ring, PAT, NVLS and CollNetDirect;
 * AllReduce all but PAT; NVLS, NVLSTree and PAT Simple only, PAT only
 * with one GPU per node. */
static int applies(const fs_nccl_call *c, fs_nccl_algorithm a, int p) {
  fs_nccl_collective coll = c->collective;
  if (!ring_shaped(coll) && a != FS_NCCL_RING) return 0;
  if (is_gather(coll) && a != FS_NCCL_RING && a != FS_NCCL_PAT && a != FS_NCCL_NVLS &&
      a != FS_NCCL_COLLNET_DIRECT)
    return 0;
  if (coll == FS_NCCL_ALLREDUCE && a == FS_NCCL_PAT) return 0;
  if ((is_nvls(a) || a == FS_NCCL_PAT) && p != FS_PROTOCOL_SIMPLE) return 0;
  return a != FS_NCCL_PAT || c->ranks == c->nodes;
}

/* NVLS's and NVLSTree's busBw: nc * min(bwIntra eff (nc-1)/nc (AllReduce
 * 2, else (ppn-1)/ppn), bwInter (NVLSTree on <= 2 nodes x 2), NVLSTree's
 * cap). */
static fs_nccl_rate nvls_bus(const fs_nccl_call *c, fs_nccl_algorithm a, fs_nccl_graph g) {
  int64_t nc = g.channels;
  fs_nccl_rate intra = rate_make((__int128)g.bw_intra * nvls_efficiency[c->gpu] * (nc - 1), 100);
  intra = c->collective == FS_NCCL_ALLREDUCE ? rate_scale(intra, 2, 1)
                                             : rate_scale(intra, c->ranks - c->nodes, c->ranks);
  fs_nccl_rate bus = rate_min(intra, rate_whole(nc * g.bw_inter *
                                                (a == FS_NCCL_NVLS_TREE && c->nodes <= 2 ? 2 : 1)));
  if (a == FS_NCCL_NVLS_TREE)
    bus = rate_min(bus, rate_whole(nc * cap_nvls_tree[c->gpu][node_column(c->nodes)]));
  return bus;
}

/* CollNetDirect's busBw (Simple): AllGather/ReduceScatter ppn min(bwIntra,
 * 0.9 bwInter); else nc bwIntra / ((ppn / nc + 1) / 2), x 0.85 on Hopper+. */
static fs_nccl_rate collnet_direct_bus(const fs_nccl_call *c, fs_nccl_graph g) {
  int64_t ppn = c->ranks / c->nodes, nc = g.channels;
  if (is_gather(c->collective))
    return rate_scale(rate_min(rate_whole(g.bw_intra), rate_scale(rate_whole(g.bw_inter), 9, 10)),
                      ppn, 1);
  fs_nccl_rate bus = rate_make((__int128)nc * g.bw_intra * 2 * nc, ppn + nc);
  return c->gpu >= FS_NCCL_HOPPER ? rate_scale(bus, 17, 20) : bus;
}

/* NCCL's bandwidth table entry (algBw); 0/1 where it is 0. */
static fs_nccl_rate bandwidth_of(const fs_nccl_call *c, fs_nccl_algorithm a, int p) {
  int col = node_column(c->nodes);
  fs_nccl_graph g = graph_of(c, a);
  if (g.channels < (is_nvls(a) ? 2 : 1)) return rate_whole(0);
  int64_t nc = g.channels, llmax = fs_nccl_ll_max_bandwidth(c->gpu, c->cpu, c->nodes);
  fs_nccl_rate bus = rate_whole(nc * (c->nodes <= 2 || is_collnet(a) ? g.bw_intra : g.bw_inter));
  if (is_nvls(a)) bus = nvls_bus(c, a, g);
  if (a == FS_NCCL_RING && p == FS_PROTOCOL_LL)
    bus = rate_min(rate_whole(llmax), rate_scale(bus, 1, 2));
  if (a == FS_NCCL_RING && p == FS_PROTOCOL_LL128)
    bus = rate_min(rate_scale(bus, 23, 25), rate_whole(nc * cap_ring_ll128[c->gpu][col]));
  if (a == FS_NCCL_TREE) {
    bus = rate_min(rate_scale(bus, 23, 25), rate_whole(nc * cap_tree[c->gpu][col]));
    if (p == FS_PROTOCOL_LL) bus = rate_min(rate_scale(bus, 5, 19), rate_whole(llmax));
    if (p == FS_PROTOCOL_LL128)
      bus = rate_min(c->nodes == 1 ? rate_scale(bus, 7, 9) : rate_scale(bus, 15, 16),
                     rate_whole(nc * cap_tree_ll128[c->gpu][col]));
    if (c->tree_pattern) bus = rate_scale(bus, 17, 20);
  }
  if (a == FS_NCCL_PAT) bus = rate_scale(bus, 3, 4);
  if (is_collnet(a) && p != FS_PROTOCOL_SIMPLE) return rate_whole(0);
  if (a == FS_NCCL_COLLNET_DIRECT) bus = collnet_direct_bus(c, g);
  if (bus.num == 0) return bus;
  /* AllGather/ReduceScatter by anything but Ring: no conversion */
  if (is_gather(c->collective) && a != FS_NCCL_RING) return bus;
  if (a == FS_NCCL_RING || is_nvls(a)) return rate_scale(bus, c->ranks, steps_of(c));
  return rate_scale(bus, 1, 2);
}

/* NCCL's latency table entry, ps. */
static fs_time latency_of(const fs_nccl_call *c, fs_nccl_algorithm a, int p) {
  int32_t ppn = c->ranks / c->nodes, nsteps = steps_of(c);
  fs_time intra = fs_nccl_hop_latency(c->intra, a, p);
  fs_time inter = fs_nccl_hop_latency(FS_NCCL_NET, ppn == 1 ? FS_NCCL_TREE : a, p) +
                  c->latency_inter * (p == FS_PROTOCOL_SIMPLE ? 2 : 1);
  fs_time base = fs_nccl_base_latency(a, p);
  int log2n = log2_floor(c->nodes);
  switch (a) {
    case FS_NCCL_TREE: return base + 2 * ((ppn - 1) * intra + log2n * inter);
    case FS_NCCL_COLLNET_DIRECT:
      return base + 2 * ((ppn > 1 ? intra : 0) + (fs_time)(ppn - 1) * 400 * NS) + inter;
    case FS_NCCL_COLLNET_CHAIN: return base + 2 * (fs_time)(ppn - 1) * intra + inter;
    case FS_NCCL_NVLS: return intra + (c->nodes > 1 ? inter : 0); /* no base */
    case FS_NCCL_NVLS_TREE: return base + intra + 2 * log2n * inter;
    case FS_NCCL_PAT: /* log2(N) inter / 3.5 + 2.8 us k */
      return base + ((fs_time)log2n * inter * 4 + 7) / 14 + (fs_time)c->ranks * 2800 * NS;
    default: break;
  }
  if (!ring_shaped(c->collective)) {
    fs_nccl_link link = c->nodes == 1 ? c->intra : FS_NCCL_NET;
    if (!c->distinct_rings) return base + fs_nccl_hop_latency(link, FS_NCCL_RING, p);
    fs_nccl_algorithm row = p == FS_PROTOCOL_SIMPLE ? FS_NCCL_TREE : FS_NCCL_RING;
    return base + nsteps * fs_nccl_hop_latency(link, row, p);
  }
  if (c->nodes > 1) {
    fs_time overhead = fs_nccl_net_overhead(c->cpu) * (p == FS_PROTOCOL_SIMPLE ? 3 : 1);
    if (intra < overhead) intra = overhead;
  }
  int32_t n_inter = c->nodes == 1                        ? 0
                    : c->collective == FS_NCCL_ALLREDUCE ? 2 * (c->nodes - 1)
                                                         : c->nodes - 1;
  return base + (fs_time)(nsteps - n_inter) * intra + (fs_time)n_inter * inter;
}

/* NVLS is there: NCCL searches its graph only on Hopper+ with an NVSwitch. */
static int nvls_support(const fs_nccl_call *c) {
  return c->nvls && c->nvswitch && c->gpu >= FS_NCCL_HOPPER && c->nvls_graph.channels > 0;
}
/* CollNet is there: enabled, on at least NCCL_COLLNET_NODE_THRESHOLD = 2 nodes. */
static int collnet_support(const fs_nccl_call *c) { return c->collnet && c->nodes >= 2; }

/* The algorithm is off for this machine and call (tuning.cc's algoEnable
 * and bandwidth zeroing, enqueue.cc's per-call skips). */
static int algorithm_off(const fs_nccl_call *c, fs_nccl_algorithm a) {
  int32_t ppn = c->ranks / c->nodes;
  if (is_collnet(a) && (!collnet_support(c) || ppn > 8)) return 1;
  if (a == FS_NCCL_COLLNET_DIRECT && !c->nvswitch) return 1;
  if (is_nvls(a) && (!nvls_support(c) || (c->collective != FS_NCCL_ALLREDUCE && ppn > 32)))
    return 1;
  if (a == FS_NCCL_NVLS_TREE && c->nodes == 1) return 1;
  if (a == FS_NCCL_NVLS && c->nodes > 1 && !collnet_support(c)) return 1;
  /* AllGather/ReduceScatter across nodes by NVLS or CollNetDirect: the
   * plugin's, with at most one GPU per NVLS head */
  if ((a == FS_NCCL_NVLS || a == FS_NCCL_COLLNET_DIRECT) && is_gather(c->collective) &&
      c->nodes > 1)
    return !collnet_support(c) || !nvls_support(c) || ppn > c->nvls_graph.channels;
  return 0;
}

static int enabled(const fs_nccl_call *c, fs_nccl_algorithm a, int p) {
  if (!applies(c, a, p) || algorithm_off(c, a)) return 0;
  if (p == FS_PROTOCOL_LL128 && c->intra != FS_NCCL_NVLINK) return 0;
  if (c->algorithms && !(c->algorithms & (1u << a))) return 0;
  return !c->protocols || (c->protocols & (1u << p));
}

/* floor(log2(bytes / 64)), -1 below 64 B */
static int log_size(int64_t bytes) {
  int l = -1;
  for (int64_t v = bytes >> 6; v; v >>= 1) l++;
  return l;
}

/* ps * num / den rounded to the nearest, halves up */
static fs_time scale_time(fs_time t, int64_t num, int64_t den) {
  __int128 v = ((__int128)t * num * 2 + den) / (2 * den);
  return v > FS_TIME_LIMIT ? FS_TIME_LIMIT : (fs_time)v;
}

static fs_nccl_estimate estimate_of(const fs_nccl_call *c, fs_nccl_algorithm a, int p,
                                    exact_time *exact) {
  fs_nccl_estimate e = {.applies = applies(c, a, p), .enabled = enabled(c, a, p)};
  *exact = (exact_time){0, 0, 1};
  if (!e.applies) return e;
  e.latency = e.used_latency = fs_time_clamp(latency_of(c, a, p));
  e.bandwidth = e.used_bandwidth = bandwidth_of(c, a, p);
  if (e.bandwidth.num == 0) {
    e.enabled = 0; /* NCCL's bandwidth 0 */
    return e;
  }
  int l = log_size(c->bytes);
  int ar = c->collective == FS_NCCL_ALLREDUCE;
  if (ar && a == FS_NCCL_TREE && l >= 0 && l < 23)
    e.used_bandwidth = rate_scale(e.bandwidth, tree_correction[P(p)][l], 10);
  if (ar && a == FS_NCCL_NVLS_TREE && l >= 0 && l < 24 && c->gpu >= FS_NCCL_BLACKWELL)
    e.used_bandwidth = rate_scale(e.bandwidth, tree_correction[P(p)][l], 10); /* x86 hosts */
  if (a == FS_NCCL_RING && p == FS_PROTOCOL_SIMPLE && ar && c->nodes > 1 &&
      c->bytes / ((int64_t)comm_channels(c) * c->ranks) >= 64)
    e.used_latency = c->gpu == FS_NCCL_VOLTA ? scale_time(e.latency, 19, 10)
                                             : scale_time(e.latency, 7, 5);
  *exact = exact_for(e.used_latency, e.used_bandwidth, c->bytes);
  e.time = exact_round(*exact);
  return e;
}

static int check_graph(const char *name, fs_nccl_graph g, fs_error *err) {
  if (g.channels < 0 || g.channels > FS_NCCL_MAX_GRAPH_CHANNELS)
    return fs_error_set(err, "nccl: %s graph of %d channels: expected 0 to %d", name, g.channels,
                        FS_NCCL_MAX_GRAPH_CHANNELS);
  if (g.channels && (g.bw_intra < 1 || g.bw_intra > FS_NCCL_MAX_BANDWIDTH || g.bw_inter < 1 ||
                     g.bw_inter > FS_NCCL_MAX_BANDWIDTH))
    return fs_error_set(err, "nccl: %s graph bandwidths %lld and %lld MB/s: expected 1 to %lld",
                        name, (long long)g.bw_intra, (long long)g.bw_inter,
                        (long long)FS_NCCL_MAX_BANDWIDTH);
  return 0;
}

static int check_call(const fs_nccl_call *c, fs_error *err) {
  if (c->collective >= FS_NCCL_COLLECTIVES || c->gpu >= FS_NCCL_GPUS || c->cpu >= FS_NCCL_CPUS ||
      (c->intra != FS_NCCL_NVLINK && c->intra != FS_NCCL_PCI))
    return fs_error_set(err, "nccl: unknown collective, GPU, CPU or intra link class");
  if (c->ranks < 2 || c->ranks > FS_NCCL_MAX_RANKS)
    return fs_error_set(err, "nccl: %d ranks: expected 2 to %d", c->ranks, FS_NCCL_MAX_RANKS);
  if (c->nodes < 1 || c->nodes > c->ranks || c->ranks % c->nodes)
    return fs_error_set(err, "nccl: %d nodes: expected a divisor of the %d ranks", c->nodes,
                        c->ranks);
  if (c->channels < 1 || c->channels > FS_NCCL_MAX_GRAPH_CHANNELS)
    return fs_error_set(err, "nccl: %d channels: expected 1 to %d", c->channels,
                        FS_NCCL_MAX_GRAPH_CHANNELS);
  if (c->comm_channels < 0 || c->comm_channels > FS_NCCL_MAX_CHANNELS)
    return fs_error_set(err,
                        "nccl: %d communicator channels: expected 1 to %d (0: twice the "
                        "graph's)",
                        c->comm_channels, FS_NCCL_MAX_CHANNELS);
  if (c->bw_intra < 1 || c->bw_intra > FS_NCCL_MAX_BANDWIDTH || c->bw_inter < 1 ||
      c->bw_inter > FS_NCCL_MAX_BANDWIDTH)
    return fs_error_set(err, "nccl: bandwidths %lld and %lld MB/s: expected 1 to %lld",
                        (long long)c->bw_intra, (long long)c->bw_inter,
                        (long long)FS_NCCL_MAX_BANDWIDTH);
  if (c->latency_inter < 0 || c->latency_inter > FS_NCCL_MAX_LATENCY_INTER)
    return fs_error_set(err, "nccl: inter-node latency: expected 0 to 1 s");
  if (c->bytes < 0 || c->bytes > FS_SIZE_LIMIT)
    return fs_error_set(err, "nccl: %lld bytes: expected 0 to %s", (long long)c->bytes,
                        FS_SIZE_LIMIT_TEXT);
  if (c->nvls_channels < 0 || c->nvls_channels > FS_NCCL_MAX_CHANNELS)
    return fs_error_set(err, "nccl: %d NVLS channels: expected 1 to %d (0: NCCL's default)",
                        c->nvls_channels, FS_NCCL_MAX_CHANNELS);
  return check_graph("NVLS", c->nvls_graph, err) || check_graph("CollNet", c->collnet_graph, err)
             ? -1
             : 0;
}

/* comm->nvlsChannels: NCCL's default by generation and nodes. */
static int32_t nvls_channels(const fs_nccl_call *c) {
  if (c->nvls_channels) return c->nvls_channels;
  return c->gpu < FS_NCCL_BLACKWELL ? 16 : c->nodes > 1 ? 32 : 24;
}

/* CollNetDirect's channels: drop them while the size is under nc nt heads
 * thr, in stages down to 16, 8, 4, 2, 1 (thr halved at nc = 1.5 stage). */
static int64_t collnet_direct_channels(const fs_nccl_call *c, int64_t nc, int64_t nt) {
  int64_t heads = c->collnet_graph.channels, thr = 512;
  int flag = 1;
  for (int64_t sw = 16; sw >= 1 && flag; sw /= 2)
    while ((flag = c->bytes < nc * nt * heads * thr) && nc > sw) {
      if (nc == sw + sw / 2) thr /= 2;
      nc--;
    }
  return nc;
}

/* nc and nt for the pick at this size (topoGetAlgoInfo). */
static void channels_of(const fs_nccl_call *c, fs_nccl_decision *d) {
  int a = d->algorithm, p = d->protocol;
  int64_t nc = comm_channels(c), nt = p == FS_PROTOCOL_LL128 ? 640 : 512;
  if (a == FS_NCCL_RING && p == FS_PROTOCOL_SIMPLE && c->bw_intra * c->channels <= 12000) nt = 256;
  if (is_collnet(a) || is_nvls(a)) nt = 640;
  if (a == FS_NCCL_PAT) nt = 0; /* NCCL never sets its maxThreads: no size reduces nc */
  int64_t thr = p == FS_PROTOCOL_SIMPLE ? 64 : 8;
  if (a == FS_NCCL_RING && p == FS_PROTOCOL_LL) thr *= c->ranks;
  if (is_collnet(a)) thr = 512;
  if (a == FS_NCCL_COLLNET_DIRECT) {
    nc = collnet_direct_channels(c, nc, nt);
  } else if (is_nvls(a)) {
    nc = nvls_channels(c);
    if (a == FS_NCCL_NVLS && c->nodes > 1 && comm_channels(c) < nc) nc = comm_channels(c);
  } else {
    while (nc >= 2 && c->bytes < nc * nt * thr) nc--;
  }
  if (!is_nvls(a) && a != FS_NCCL_COLLNET_DIRECT)
    while (nt % 128 == 0 && c->bytes < nc * nt * thr) nt /= 2;
  if (p == FS_PROTOCOL_SIMPLE && a == FS_NCCL_RING) nt += 32;
  if (p == FS_PROTOCOL_SIMPLE && a == FS_NCCL_TREE) nt += 128;
  if (nt < 96) nt = 96;
  if (a == FS_NCCL_TREE || a == FS_NCCL_PAT) nt = 640;
  d->channels = (int32_t)nc;
  d->threads = (int32_t)nt;
}

static void write_rule(fs_nccl_decision *d, int next_a, int next_p) {
  char *at = d->rule;
  size_t room = sizeof d->rule;
  int n = snprintf(at, room, "%s/%s %.3f us", fs_nccl_algorithm_name(d->algorithm),
                   fs_protocol_name(d->protocol), (double)d->time / FS_US);
  if (next_a >= 0 && n > 0 && (size_t)n < room)
    n += snprintf(at + n, room - (size_t)n, " < %s/%s %.3f us (next)",
                  fs_nccl_algorithm_name(next_a), fs_protocol_name(next_p),
                  (double)d->estimate[next_a][P(next_p)].time / FS_US);
  if (n > 0 && (size_t)n < room)
    snprintf(at + n, room - (size_t)n, ", the least predicted time; %d channels x %d threads",
             d->channels, d->threads);
}

int fs_nccl_decide(const fs_nccl_call *call, fs_nccl_decision *out, fs_error *err) {
  if (check_call(call, err)) return -1;
  memset(out, 0, sizeof *out);
  exact_time best = {0}, second = {0}, t = {0};
  int best_a = -1, best_p = 0, next_a = -1, next_p = 0;
  for (int a = 0; a < FS_NCCL_ALGORITHMS; a++)
    for (int p = FS_PROTOCOL_LL; p <= FS_PROTOCOL_SIMPLE; p++) {
      fs_nccl_estimate *e = &out->estimate[a][P(p)];
      *e = estimate_of(call, a, p, &t);
      if (!e->enabled) continue;
      if (best_a < 0 || exact_less(t, best)) {
        second = best, next_a = best_a, next_p = best_p;
        best = t, best_a = a, best_p = p;
      } else if (next_a < 0 || exact_less(t, second)) {
        second = t, next_a = a, next_p = p;
      }
    }
  if (best_a < 0)
    return fs_error_set(err, "nccl: no algorithm and protocol enabled for %s",
                        fs_nccl_collective_name(call->collective));
  out->algorithm = best_a;
  out->protocol = best_p;
  out->time = out->estimate[best_a][P(best_p)].time;
  channels_of(call, out);
  write_rule(out, next_a, next_p);
  return 0;
}

fs_nccl_graph fs_nccl_typical_nvls_graph(fs_nccl_gpu gpu, int32_t ppn, int32_t nodes) {
  if (gpu < FS_NCCL_HOPPER) return (fs_nccl_graph){0, 0, 0};
  int32_t heads = ppn > 32 ? 32 : ppn;
  if (gpu == FS_NCCL_HOPPER) return (fs_nccl_graph){heads, 40000, nodes > 1 ? 48000 : 60000};
  return (fs_nccl_graph){heads, 80000, nodes > 1 ? 48000 : 90000};
}

fs_nccl_call fs_nccl_typical_call(fs_nccl_collective collective, int32_t ranks, int32_t nodes,
                                  fs_nccl_gpu gpu, int64_t bytes) {
  int multi = nodes > 1;
  int64_t bw = fs_nccl_default_bandwidth(gpu, multi ? FS_NCCL_NET : FS_NCCL_NVLINK);
  int32_t ppn = nodes > 0 ? ranks / nodes : 1;
  int64_t net = fs_nccl_default_bandwidth(gpu, FS_NCCL_NET);
  return (fs_nccl_call){.collective = collective,
                        .ranks = ranks,
                        .nodes = nodes,
                        .gpu = gpu,
                        .cpu = FS_NCCL_INTEL,
                        .intra = FS_NCCL_NVLINK,
                        .channels = multi                      ? 8
                                    : gpu == FS_NCCL_BLACKWELL ? 16
                                                               : 12,
                        .bw_intra = bw,
                        .bw_inter = multi ? bw : fs_nccl_default_bandwidth(gpu, FS_NCCL_NET),
                        .bytes = bytes,
                        .nvswitch = 1,
                        .nvls = gpu >= FS_NCCL_HOPPER,
                        .nvls_graph = fs_nccl_typical_nvls_graph(gpu, ppn, nodes),
                        .collnet_graph = {ppn < 8 ? ppn : 8, net, net}};
}

void fs_nccl_estimates_text(const fs_nccl_decision *d, char *buffer, size_t size) {
  size_t used = 0;
  if (!size) return;
  buffer[0] = 0;
  for (int a = 0; a < FS_NCCL_ALGORITHMS; a++)
    for (int p = FS_PROTOCOL_LL; p <= FS_PROTOCOL_SIMPLE; p++) {
      const fs_nccl_estimate *e = &d->estimate[a][P(p)];
      if (!e->applies) continue; /* not an algorithm of the collective */
      if (a != FS_NCCL_TREE && a != FS_NCCL_RING && !e->enabled) continue;
      char time[32] = "off";
      if (e->enabled) snprintf(time, sizeof time, "%.3f us", (double)e->time / FS_US);
      int n = snprintf(buffer + used, size - used, "%s%s/%s %s", used ? ", " : "",
                       fs_nccl_algorithm_name(a), fs_protocol_name(p), time);
      if (n < 0 || (size_t)n >= size - used) {
        buffer[used] = 0; /* whole entries only */
        return;
      }
      used += (size_t)n;
    }
}
