/* nccl_nvls.c: NCCL 2.30.7's NVLS allreduce ("NVLink SHARP", Hopper and
 * later: the NVSwitch reduces and multicasts) as a generator, `gen
 * allreduce-nccl-nvls`, on one node, with the node's NVSwitch as a rank of
 * the schedule (NCCL's device/all_reduce.h, runWorkColl for NCCL_ALGO_NVLS,
 * one node, buffers not registered; transport/nvls.cc).
 *
 * The N GPUs are ranks 0..N-1 and the switch is rank N: it holds no data
 * and is owed none (fs_data_flow.data_ranks = N); it receives, reduces and
 * forwards. Every GPU is a head: head h owns chunk h of each loop. Each
 * channel's range (nccl_layout.h) is processed in loops of N chunks of at
 * most --chunk bytes (NCCL: 128 KiB, cut to 64, 32 or 16 KiB when nBytes <
 * 64, 8 or 2 x channels x N x the chunk; the last loop's rest r in chunks
 * of ceil(r/N) rounded up to 16 KiB, the last heads' shorter or empty). In
 * NCCL a loop is: every GPU copies its N chunks into its part of the
 * multicast buffer (scatter, local); head h's multimem.ld_reduce makes the
 * switch read chunk h from every GPU and return the sum to h; h's
 * multimem.st sends it to the switch, which writes it to every GPU
 * (multicast); every GPU copies the N results out (gather, local). As
 * messages, per loop:
 *   1. every GPU g -> switch: its N chunks (the switch's reads of g's
 *      buffer, one message: they cross g's link together);
 *   2. the switch reduces the N contributions of the N chunks (a compute of
 *      the loop's bytes, or --reduce-time);
 *   3. switch -> head h: chunk h's sum (the ld_reduce's return);
 *   4. head h -> switch: chunk h's sum (the multimem.st);
 *   5. switch -> every GPU g: the N sums, once all N stores arrived (the
 *      multicast: g's link carries one copy of each).
 * The local copies (scatter, gather) move nothing over NVLink and are not
 * modelled. The switch has one CPU per channel and GPU port (c*N + g: its
 * messages to or from GPU g on channel c), so that its ports work in
 * parallel, as the switch's per-GPU links do; a GPU's channel c is its CPU
 * c, as in the other NCCL generators. Messages 1 and 3 use tag 2c (NCCL's
 * reduce connection), 4 and 5 tag 2c+1 (its broadcast connection). Each
 * stream of messages keeps loop order (a task waits for its stream's task
 * of the previous loop), so that loops pipeline as NCCL's FIFO lets them;
 * NCCL's warps and slots within a loop are not modelled. Labels "reduce"
 * (1-3) and "multicast" (4, 5).
 *
 * With a platform (--nodes/--cores, --platform), the N GPUs must be one
 * node: NCCL runs NVLS across nodes only with CollNet, a combination
 * fennelsim does not generate (CollNet alone: nccl_collnet.c). A SimGrid
 * platform has a node per host, a GPU each: its NVSwitch domains are not
 * known here, so NVLS is generated without it.
 * The switch rank N is the next rank: on a SimGrid platform mapped in
 * order at run time, the host after the GPUs (h100-nvswitch-node.xml's
 * nvswitch; docs/ALGORITHMS.md). */
#include <stdlib.h>

#include "generators/nccl_layout.h"
#include "generators/smp_support.h"

#define NAME "allreduce-nccl-nvls"
#define NVLS_CHUNK (128 * 1024) /* NCCL_NVLS_CHUNKSIZE's default */
#define NVLS_LAST_ALIGN 16384   /* the last loop's chunks: multiples of 16 KiB */
#define NVLS_MAX_PORTS 256      /* channels x GPUs: the switch's CPUs */
#define NVLS_MAX_GPUS 32        /* NCCL_MAX_NVLS_ARITY: GPUs on one NVLS switch */

typedef struct nvls {
  int32_t n, channels; /* GPUs; the switch is rank n */
  int64_t total, chunk;
  int64_t first[FS_NCCL_MAX_CHANNELS + 1]; /* loops before each channel */
  int32_t label_reduce, label_multicast;
  int32_t *blocks; /* the loop's n blocks */
  int32_t *slot;   /* per GPU, each stream's last task (STREAMS a GPU) */
} nvls;

/* NCCL's chunk for nBytes over `ops` = channels x heads concurrent ops. */
static int64_t default_chunk(int64_t bytes, int64_t ops) {
  int64_t c = NVLS_CHUNK;
  if (bytes < 64 * ops * c && c > 65536) c = 65536;
  if (bytes < 8 * ops * c && c > 32768) c = 32768;
  if (bytes < 2 * ops * c && c > 16384) c = 16384;
  return c;
}

static int64_t channel_bytes(const nvls *g, int32_t c) {
  return fs_nccl_channel_bytes(g->total, g->channels, c);
}

/* Bytes of head h's chunk in loop `loop` of channel c. */
static int64_t chunk_bytes(const nvls *g, int32_t c, int64_t loop, int32_t h) {
  return fs_nccl_head_chunk_bytes(channel_bytes(g, c), g->n, g->chunk, loop, h, NVLS_LAST_ALIGN);
}

static int64_t loop_bytes(const nvls *g, int32_t c, int64_t loop) {
  return fs_nccl_loop_bytes(channel_bytes(g, c), g->n, g->chunk, loop, NVLS_LAST_ALIGN);
}

static int32_t block_of(const nvls *g, int32_t c, int64_t loop, int32_t h) {
  return (int32_t)((g->first[c] + loop) * g->n + h);
}

/* The streams whose order a slot keeps, per GPU. */
enum { TO_SWITCH, AT_SWITCH, RETURN, RETURNED, STORE, STORED, MULTICAST, MULTICAST_IN, STREAMS };

/* The task of stream s of GPU g: waits for the stream's previous one. */
static void chain(fs_nccl_builder *b, int32_t *slot, int32_t g, int s, int32_t t) {
  fs_nccl_depend(b, t, slot[g * STREAMS + s]);
  slot[g * STREAMS + s] = t;
}

static void one_loop(fs_nccl_builder *b, nvls *g, int32_t c, int64_t loop) {
  int32_t n = g->n, sw = n, *slot = g->slot, *at = g->blocks;
  int32_t up = 2 * c, down = 2 * c + 1, lr = g->label_reduce, lm = g->label_multicast;
  int64_t all = loop_bytes(g, c, loop);
  for (int32_t h = 0; h < n; h++) at[h] = block_of(g, c, loop, h);
  int32_t received[NVLS_MAX_GPUS], sum;
  for (int32_t x = 0; x < n; x++) { /* 1: every GPU's chunks to the switch */
    chain(b, slot, x, TO_SWITCH,
          fs_nccl_task_on(b, FS_SEND, x, sw, c, up, all, FS_FLOW_READ, at, n, lr));
    received[x] = fs_nccl_task_on(b, FS_RECV, sw, x, c * n + x, up, all,
                                  x ? FS_FLOW_TEMP : FS_FLOW_WRITE, at, n, lr);
    chain(b, slot, x, AT_SWITCH, received[x]);
  }
  sum = fs_nccl_task_on(b, FS_COMPUTE, sw, -1, c * n, 0, all, FS_FLOW_COMBINE, at, n, lr); /* 2 */
  for (int32_t x = 0; x < n; x++) fs_nccl_depend(b, sum, received[x]);
  for (int32_t h = 0; h < n; h++) { /* 3, 4: ld_reduce's return, multimem.st */
    int64_t bytes = chunk_bytes(g, c, loop, h);
    int32_t to =
        fs_nccl_task_on(b, FS_SEND, sw, h, c * n + h, up, bytes, FS_FLOW_READ, at + h, 1, lr);
    fs_nccl_depend(b, to, sum);
    chain(b, slot, h, RETURN, to);
    int32_t back = fs_nccl_task_on(b, FS_RECV, h, sw, c, up, bytes, FS_FLOW_WRITE, at + h, 1, lr);
    chain(b, slot, h, RETURNED, back);
    int32_t store = fs_nccl_task_on(b, FS_SEND, h, sw, c, down, bytes, FS_FLOW_READ, at + h, 1, lm);
    fs_nccl_depend(b, store, back);
    chain(b, slot, h, STORE, store);
    int32_t stored =
        fs_nccl_task_on(b, FS_RECV, sw, h, c * n + h, down, bytes, FS_FLOW_WRITE, at + h, 1, lm);
    fs_nccl_depend(b, stored, to); /* it overwrites what the return read */
    chain(b, slot, h, STORED, stored);
    received[h] = stored;
  }
  for (int32_t x = 0; x < n; x++) { /* 5: the multicast */
    int32_t out = fs_nccl_task_on(b, FS_SEND, sw, x, c * n + x, down, all, FS_FLOW_READ, at, n, lm);
    for (int32_t h = 0; h < n; h++) fs_nccl_depend(b, out, received[h]);
    chain(b, slot, x, MULTICAST, out);
    chain(b, slot, x, MULTICAST_IN,
          fs_nccl_task_on(b, FS_RECV, x, sw, c, down, all, FS_FLOW_WRITE, at, n, lm));
  }
}

static void build(fs_nccl_builder *b, void *state) {
  nvls *g = state;
  g->label_reduce = fs_nccl_label(b, "reduce", -1);
  g->label_multicast = fs_nccl_label(b, "multicast", -1);
  for (int32_t c = 0; c < g->channels && !b->failed; c++) {
    for (int32_t i = 0; i < g->n * STREAMS; i++) g->slot[i] = -1;
    for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c] && !b->failed; loop++)
      one_loop(b, g, c, loop);
  }
}

/* The flow: chunk h of every loop a block; the switch holds no data. */
static int begin_flow(const fs_generator_options *o, void *state) {
  const nvls *g = state;
  int64_t loops = g->first[g->channels];
  if (loops == 0) {
    if (fs_data_flow_begin(o->flow, FS_COLLECTIVE_ALLREDUCE, 0, 1, g->total)) return -1;
  } else {
    if (fs_data_flow_begin(o->flow, FS_COLLECTIVE_ALLREDUCE, 0, (int32_t)(loops * g->n), 0))
      return -1;
    for (int32_t c = 0; c < g->channels; c++)
      for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c]; loop++)
        for (int32_t h = 0; h < g->n; h++)
          o->flow->block_size[block_of(g, c, loop, h)] = chunk_bytes(g, c, loop, h);
  }
  o->flow->data_ranks = g->n;
  return 0;
}

/* The GPUs must be one node of the platform, if there is one. */
static int check_one_node(const fs_generator_options *o, fs_error *err) {
  if (!o->platform) return 0;
  fs_smp_nodes nodes;
  if (fs_smp_nodes_init(&nodes, NAME, o, err)) return -1;
  int32_t count = nodes.count;
  fs_smp_nodes_free(&nodes);
  if (count != 1)
    return fs_error_set(err,
                        "%s: NVLS reduces in one node's NVSwitch, but the platform puts the %d "
                        "ranks on %d nodes (NCCL runs NVLS across nodes only with CollNet, "
                        "a combination fennelsim does not generate; a SimGrid platform of a host "
                        "per GPU is for run: generate without it)",
                        NAME, o->ranks, count);
  return 0;
}

static int check(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_nccl_check(NAME, o, err) ||
      fs_gen_refuse_root(NAME, o, err))
    return -1;
  if (fs_nccl_simple_only(NAME, "NVLS", o, err)) return -1;
  if (o->ranks < 2 || o->ranks > NVLS_MAX_GPUS)
    return fs_error_set(err, "%s: --ranks (GPUs on the NVSwitch) must be from 2 to %d, not %d",
                        NAME, NVLS_MAX_GPUS, o->ranks);
  if ((int64_t)fs_nccl_channels(o) * o->ranks > NVLS_MAX_PORTS)
    return fs_error_set(err,
                        "%s: --channels x --ranks must be at most %d (the switch's ports, one "
                        "CPU each), not %d x %d",
                        NAME, NVLS_MAX_PORTS, fs_nccl_channels(o), o->ranks);
  return check_one_node(o, err);
}

fs_program *fs_generate_allreduce_nccl_nvls(const fs_generator_options *o, fs_error *err) {
  if (check(o, err)) return NULL;
  nvls g = {o->ranks, fs_nccl_channels(o), o->size, 0, {0}, 0, 0, NULL, NULL};
  g.chunk = o->chunk ? o->chunk : default_chunk(o->size, (int64_t)g.channels * g.n);
  g.first[0] = 0;
  for (int32_t c = 0; c < g.channels; c++)
    g.first[c + 1] = fs_nccl_add(g.first[c], fs_nccl_loops(channel_bytes(&g, c), g.n, g.chunk));
  int64_t estimate = fs_nccl_mul(g.first[g.channels], 8 * (int64_t)g.n + 1);
  fs_generator_options wide = *o; /* the GPUs and the switch */
  wide.ranks = o->ranks + 1;
  g.blocks = malloc((size_t)g.n * sizeof *g.blocks);
  g.slot = malloc((size_t)g.n * STREAMS * sizeof *g.slot);
  fs_program *p = NULL;
  if (!g.blocks || !g.slot)
    fs_error_set(err, "%s: out of memory", NAME);
  else
    p = fs_nccl_generate(NAME, &wide, estimate, build, begin_flow, &g, err);
  free(g.blocks), free(g.slot);
  return p;
}
