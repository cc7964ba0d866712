/* nccl.c: the `nccl` network model: each send, put or get costs what NCCL
 * 2.30.7's tuning tables (platform/nccl_tuning.h) charge one ring step on
 * one channel (docs/MODELS.md, "nccl").
 *
 * A rank is a GPU, its CPUs are NCCL channels (thread blocks). A transfer
 * of B bytes between ranks on one node uses the intra link class (NVLink
 * or PCI), between nodes NET. With protocol p (the task's, else the
 * model's default) and c the program's channels per rank:
 *   bw   per channel: bw_intra or bw_inter; LL min(bw / 2, llMaxBw / c),
 *        LL128 min(0.92 bw, the Ring LL128 cap), Simple bw
 *   hop  NCCL's per-hop latency of the link class for the `hops` algorithm
 *        (Ring: on more than one node an intra hop costs at least the net
 *        overhead, x 3 for Simple; NET takes the Tree row when every node
 *        holds one rank), as NCCL's ring latency counts them
 *   send or put at t: the channel (CPU) is busy to t + B / bw, the data
 *        lands at t + B / bw + hop (eager; receiving takes no CPU)
 *   get at t: request and data back, done at t + hop + B / bw + hop, the
 *        channel held throughout
 *   launch: no send, put or get starts before the base latency of `hops`
 *        for its protocol (or --param launch=), through `available`.
 * So a ring of k ranks passing S/k bytes per step for 2(k-1) dependent
 * steps on one node ends at base + 2(k-1)(hop + S/k / bw), NCCL's Ring
 * AllReduce time lat + S / algBw on one channel.
 *
 * The machine facts nvswitch, nvls and collnet (0 or 1; defaults an
 * NVSwitch, NVLS from Hopper on, no CollNet: as NCCL on a DGX) say which
 * of NCCL's other algorithms the machine has; they are reported and
 * checked (NVLS needs Hopper or later and an NVSwitch) but change no
 * transfer's cost: NVLS's and CollNet's reductions happen in a switch,
 * which is not a rank of the program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "models/model_registry.h"
#include "models/platform_parameters.h"
#include "platform/nccl_tuning.h"

enum { INTRA, INTER, LINK_CLASSES };

typedef struct nccl {
  fs_nccl_gpu gpu;
  fs_nccl_cpu cpu;
  fs_nccl_link intra;
  fs_nccl_algorithm hops;
  int protocol;                 /* for tasks without one */
  int64_t bw[LINK_CLASSES];     /* MB/s per channel */
  fs_time launch;               /* -1: the base latency of hops and the protocol */
  int nvswitch, nvls, collnet;  /* the machine facts (0 or 1) */
  fs_platform_parameters where; /* nodes, cores, mapping, platform */
  /* per run (reset) */
  fs_platform *platform;
  int32_t nodes, channels;
  fs_nccl_rate rate[LINK_CLASSES][FS_NCCL_PROTOCOLS];
  fs_time hop[LINK_CLASSES][FS_NCCL_PROTOCOLS];
  fs_time start[FS_NCCL_PROTOCOLS];
} nccl;

#define P(protocol) ((protocol)-1)

static int protocol_of(const nccl *m, const fs_program *p, int32_t task) {
  int protocol = fs_task_protocol(p, task);
  return protocol == FS_PROTOCOL_NONE ? m->protocol : protocol;
}

/* Between the task's rank and its peer: INTRA on one node, else INTER. */
static int link_of(const nccl *m, const fs_program *p, int32_t task) {
  return fs_platform_node_of(m->platform, fs_task_rank(p, task)) ==
                 fs_platform_node_of(m->platform, fs_task_peer(p, task))
             ? INTRA
             : INTER;
}

static int nccl_reset(void *state, const fs_program *p, fs_error *err) {
  nccl *m = state;
  fs_platform_free(m->platform);
  m->platform = fs_platform_parameters_build(&m->where, p->ranks, err);
  if (!m->platform) return -1;
  m->nodes = m->platform->used_nodes;
  m->channels = p->cpus > 0 ? p->cpus : 1;
  int one_per_node = m->nodes == p->ranks;
  for (int q = FS_PROTOCOL_LL; q <= FS_PROTOCOL_SIMPLE; q++) {
    for (int l = 0; l < LINK_CLASSES; l++)
      m->rate[l][P(q)] = fs_nccl_channel_rate(m->gpu, m->cpu, m->nodes, m->bw[l], q, m->channels);
    fs_time intra = fs_nccl_hop_latency(m->intra, m->hops, q);
    fs_time overhead = fs_nccl_net_overhead(m->cpu) * (q == FS_PROTOCOL_SIMPLE ? 3 : 1);
    if (m->hops == FS_NCCL_RING && m->nodes > 1 && intra < overhead) intra = overhead;
    m->hop[INTRA][P(q)] = intra;
    m->hop[INTER][P(q)] =
        fs_nccl_hop_latency(FS_NCCL_NET, one_per_node ? FS_NCCL_TREE : m->hops, q);
    m->start[P(q)] = m->launch >= 0 ? m->launch : fs_nccl_base_latency(m->hops, q);
  }
  return 0;
}

static fs_time nccl_available(void *state, const fs_engine *engine, int32_t task, int receiving,
                              fs_time now) {
  const nccl *m = state;
  if (receiving) return now;
  fs_time start = m->start[P(protocol_of(m, fs_engine_program(engine), task))];
  return start > now ? start : now;
}

/* The channel's time for the task's bytes, and the hop after it. */
static fs_time data_time(const nccl *m, const fs_program *p, int32_t task, fs_time *hop) {
  int l = link_of(m, p, task), q = P(protocol_of(m, p, task));
  *hop = m->hop[l][q];
  return fs_nccl_rate_time(m->rate[l][q], fs_task_value(p, task));
}

static int nccl_send(void *state, fs_engine *engine, int32_t task, fs_time now) {
  fs_time hop, busy = fs_time_add(now, data_time(state, fs_engine_program(engine), task, &hop));
  fs_engine_post_local(engine, task, busy);
  fs_engine_post_arrival(engine, task, fs_time_add(busy, hop));
  return 0;
}

static void nccl_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const fs_program *p = fs_engine_program(engine);
  fs_time hop, busy = fs_time_add(now, data_time(state, p, task, &hop));
  if (fs_task_kind_of(p, task) == FS_GET) {
    fs_engine_post_complete(engine, task, fs_time_add(busy, fs_time_mul(hop, 2)));
    return;
  }
  fs_engine_post_local(engine, task, busy);
  fs_engine_post_remote(engine, task, fs_time_add(busy, hop));
}

/* After the channel's part (the data for a send or put; nothing for a
 * get, which holds it throughout): the hop, two for a get and its data. */
static int nccl_price(void *state, const fs_program *p, int32_t task, fs_time *latency,
                      fs_time *per_size) {
  const nccl *m = state;
  if (!m->platform) return -1;
  fs_time hop, data = data_time(m, p, task, &hop);
  int get = fs_task_kind_of(p, task) == FS_GET;
  *latency = get ? fs_time_mul(hop, 2) : hop;
  *per_size = get ? data : 0;
  return 0;
}

/* MB/s as GB/s, exact: "30", "20.6". */
static void format_gbps(char buffer[32], int64_t mb_per_s) {
  int n = snprintf(buffer, 32, "%lld.%03lld", (long long)(mb_per_s / 1000),
                   (long long)(mb_per_s % 1000));
  while (n > 0 && buffer[n - 1] == '0') buffer[--n] = 0;
  if (n > 0 && buffer[n - 1] == '.') buffer[--n] = 0;
}

static void nccl_describe(const void *state, char *buffer, size_t size) {
  const nccl *m = state;
  char intra[32], inter[32], launch[48] = "\"base\"";
  format_gbps(intra, m->bw[INTRA]);
  format_gbps(inter, m->bw[INTER]);
  if (m->launch >= 0) fs_format_ns(launch, m->launch);
  int n = snprintf(buffer, size,
                   "\"gpu\": \"%s\", \"cpu\": \"%s\", \"intra\": \"%s\", \"protocol\": \"%s\", "
                   "\"hops\": \"%s\", \"bw_intra_GBps\": %s, \"bw_inter_GBps\": %s, "
                   "\"launch%s\": %s, \"nvswitch\": %d, \"nvls\": %d, \"collnet\": %d",
                   fs_nccl_gpu_name(m->gpu), fs_nccl_cpu_name(m->cpu), fs_nccl_link_name(m->intra),
                   fs_protocol_name(m->protocol), m->hops == FS_NCCL_RING ? "ring" : "tree", intra,
                   inter, m->launch >= 0 ? "_ns" : "", launch, m->nvswitch, m->nvls, m->collnet);
  if (n > 0 && (size_t)n < size && m->platform)
    snprintf(buffer + n, size - (size_t)n, ", \"nodes\": %d, \"cores\": %d, \"mapping\": \"%s\"",
             m->platform->nodes, m->platform->cores, fs_mapping_name(m->platform->mapping));
}

static void nccl_destroy(void *state) {
  nccl *m = state;
  fs_platform_free(m->platform);
  free(m);
}

/* key=NAME among names (fs_nccl_*_find); 0 or -1 with err. */
static int read_name(fs_parameters *params, const char *key, int (*find)(const char *), int *out,
                     const char *expected, fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (!p) return 0;
  int v = find(p->value);
  if (v < 0) return fs_error_set(err, "--param %s=%s: expected %s", key, p->value, expected);
  *out = v;
  return 0;
}

static int find_intra(const char *name) {
  int link = fs_nccl_link_find(name);
  return link == FS_NCCL_NET ? -1 : link;
}
static int find_hops(const char *name) {
  return !strcmp(name, "ring") ? FS_NCCL_RING : !strcmp(name, "tree") ? FS_NCCL_TREE : -1;
}
static int find_protocol(const char *name) {
  int q = fs_protocol_from_name(name, (int64_t)strlen(name));
  return q == FS_PROTOCOL_NONE ? -1 : q;
}

static int read_bandwidth(fs_parameters *params, const char *key, int64_t *out, fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (p && fs_nccl_parse_bandwidth(p->value, out))
    return fs_error_set(err,
                        "--param %s=%s: expected GB/s per channel, 0.001 to 16777.216 (at most 3 "
                        "decimals, optionally followed by GB/s)",
                        key, p->value);
  return 0;
}

/* key=0|1; 0 or -1 with err. */
static int read_switch(fs_parameters *params, const char *key, int *out, fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (!p) return 0;
  if (strcmp(p->value, "0") != 0 && strcmp(p->value, "1") != 0)
    return fs_error_set(err, "--param %s=%s: expected 0 or 1", key, p->value);
  *out = p->value[0] == '1';
  return 0;
}

/* nvswitch, nvls, collnet: NCCL's defaults on a DGX of the GPU, then the
 * parameters; NVLS needs Hopper or later and an NVSwitch. */
static int read_machine(nccl *m, fs_parameters *params, fs_error *err) {
  m->nvswitch = 1, m->collnet = 0;
  int nvls = -1;
  if (read_switch(params, "nvswitch", &m->nvswitch, err) ||
      read_switch(params, "nvls", &nvls, err) || read_switch(params, "collnet", &m->collnet, err))
    return -1;
  int possible = m->gpu >= FS_NCCL_HOPPER && m->nvswitch;
  if (nvls == 1 && !possible)
    return fs_error_set(err, "--param nvls=1: NVLS needs gpu=hopper or blackwell and nvswitch=1");
  m->nvls = nvls < 0 ? possible : nvls;
  return 0;
}

static int read_parameters(nccl *m, fs_parameters *params, fs_error *err) {
  int gpu = FS_NCCL_HOPPER, cpu = FS_NCCL_INTEL, intra = FS_NCCL_NVLINK, hops = FS_NCCL_RING;
  int protocol = FS_PROTOCOL_SIMPLE;
  if (read_name(params, "gpu", fs_nccl_gpu_find, &gpu, "volta, ampere, hopper or blackwell", err) ||
      read_name(params, "cpu", fs_nccl_cpu_find, &cpu, "intel or amd", err) ||
      read_name(params, "intra", find_intra, &intra, "nvlink or pci", err) ||
      read_name(params, "hops", find_hops, &hops, "ring or tree", err) ||
      read_name(params, "protocol", find_protocol, &protocol, "LL, LL128 or Simple", err))
    return -1;
  m->gpu = gpu, m->cpu = cpu, m->intra = intra, m->hops = hops, m->protocol = protocol;
  m->bw[INTRA] = fs_nccl_default_bandwidth(m->gpu, FS_NCCL_NVLINK);
  m->bw[INTER] = fs_nccl_default_bandwidth(m->gpu, FS_NCCL_NET);
  m->launch = -1;
  if (read_bandwidth(params, "bw_intra", &m->bw[INTRA], err) ||
      read_bandwidth(params, "bw_inter", &m->bw[INTER], err) ||
      fs_parameter_time(params, "launch", 0, &m->launch, err) || read_machine(m, params, err))
    return -1;
  return fs_platform_parameters_read(params, &m->where, err);
}

static const fs_model_reports nccl_reports = {.describe = nccl_describe, .price = nccl_price};

int fs_nccl_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  nccl d = {0};
  if (read_parameters(&d, params, err)) return -1;
  nccl *m = malloc(sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  *m = d;
  *out = (fs_network_model){.name = "nccl",
                            .state = m,
                            .start = nccl_start,
                            .send = nccl_send,
                            .available = nccl_available,
                            .reset = nccl_reset,
                            .destroy = nccl_destroy,
                            .reports = &nccl_reports};
  return 0;
}
