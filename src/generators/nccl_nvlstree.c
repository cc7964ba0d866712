/* nccl_nvlstree.c: NCCL 2.30.7's NVLSTree allreduce as a generator, `gen
 * allreduce-nccl-nvlstree` (NCCL's device/all_reduce.h, runWorkColl for
 * NCCL_ALGO_NVLS_TREE, buffers not registered; graph/connect.cc,
 * connectNvls; enqueue.cc, calcCollChunking; transport/nvls.cc,
 * ncclNvlsTuning; read at tag v2.30.7-1): NVLS inside each node, NCCL's
 * double binary tree (nccl_trees.h) between nodes, each node's NVSwitch a
 * rank of the schedule.
 *
 * Nodes come from the platform (--nodes M --cores Q, or --platform;
 * smp_support.h: a node's GPUs in rank order, nodes in the order of their
 * lowest rank); without one each rank is a node (one GPU: a shape NCCL
 * does not run, as it finds no NVSwitch, kept so that the schedule can be
 * generated without a platform; a platform must give every node 2 GPUs or
 * more). The K GPUs are ranks
 * 0..K-1 and node u's NVSwitch is rank K+u: the switches hold no data and
 * are owed none (fs_data_flow.data_ranks = K). A node's heads are its
 * first H GPUs, H the smallest node's GPU count (NCCL: one head per NIC of
 * its NVLS graph, the same count on every node; here a NIC per GPU, as on
 * a DGX H100); head h owns chunk h of each loop in every node, and the
 * heads h of all nodes form head h's tree (NCCL's nvlsHeads[h][node]).
 * Channel c uses tree c mod 2 (connectNvls: treeUp[c % 2]). A channel's
 * range (nccl_layout.h) is processed in loops of H chunks (NCCL: chunk
 * min(128 KiB, 64 KiB on 4 or more nodes), cut to 64 KiB when nBytes <
 * 4 x channels x H x chunk, to 32 KiB when nBytes < channels x H x chunk;
 * the last loop's rest r in chunks of ceil(r/H) rounded up to 16 B, the
 * last heads' shorter or empty). Per loop, channel and node:
 *   1. every GPU -> its switch: its H chunks (scatter; the switch's reads);
 *   2. the switch reduces them (a compute of the loop's bytes);
 *   3. switch -> head h: chunk h's node sum (the ld_reduce's return);
 *   4. head h: receives chunk h's partial sums from its children in the
 *      tree (the heads h of the child nodes), reduces them into the node
 *      sum (a compute of the chunk), sends it to its parent;
 *   5. head h, from its parent (the root: after its reduce): the result,
 *      stored to its switch (multimem.st) and sent to its children, in
 *      NCCL's treeDown order (switch first);
 *   6. switch -> every GPU: the H results, once all H stores are in (the
 *      multicast).
 * GPUs past the H heads only take part in 1 and 6. A GPU's channel c is
 * its CPU c (all its tasks of the channel one at a time, as in the other
 * NCCL generators; NCCL's scatter, gather, reduce and broadcast warps are
 * not modelled apart); a switch has one CPU per channel and port (c*P + j
 * for its messages with the node's GPU j, P the largest node's GPUs).
 * Tags: 2c for the reduce direction (1, 3, up the tree), 2c+1 for the
 * broadcast one (down the tree, 5, 6). Each stream of tasks keeps loop
 * order; NCCL's FIFO slots (8 per connection) are not modelled, nor are
 * its local copies into and out of the multicast buffers, nor the NIC and
 * proxy: a head's network messages are its own sends. Labels "reduce"
 * (1-4) and "broadcast" (5, 6). */
#include <stdlib.h>

#include "generators/nccl_layout.h"
#include "generators/nccl_trees.h"
#include "generators/smp_support.h"

#define NAME "allreduce-nccl-nvlstree"
#define TREE_CHUNK (128 * 1024)     /* NCCL_NVLS_CHUNKSIZE's default */
#define TREE_CHUNK_MANY (64 * 1024) /* nvlsTreeMaxChunkSize on 4 or more nodes */
#define LAST_ALIGN 16               /* the last loop's chunks: multiples of 16 B */
#define NVLS_MAX_PORTS 256          /* channels x GPUs a node: a switch's CPUs */
#define NVLS_MAX_GPUS 32            /* NCCL_MAX_NVLS_ARITY */

typedef struct nvlstree {
  fs_smp_nodes nodes;
  int32_t k, heads, ports, channels; /* GPUs; heads a node; a switch's ports */
  int64_t total, chunk;
  int64_t first[FS_NCCL_MAX_CHANNELS + 1]; /* loops before each channel */
  int32_t label_reduce, label_bcast;
  int32_t *blocks;   /* the loop's heads blocks */
  int32_t *slot;     /* per GPU, each stream's last task */
  int32_t *returned; /* per GPU: this loop's chunk from its switch (heads) */
  int32_t *up;       /* per GPU: this loop's last up-pass task (heads) */
  int32_t *stored;   /* per node and head: the switch's recv of the store */
} nvlstree;

/* The streams whose order a slot keeps, per GPU (the switch's on its port
 * to the GPU: AT_SWITCH, RETURN, STORED, MULTICAST). */
enum {
  TO_SWITCH,
  AT_SWITCH,
  RETURN,
  RETURNED,
  CHILD_IN,
  REDUCE,
  UP_OUT,
  DOWN_IN,
  STORE,
  STORED,
  CHILD_OUT,
  MULTICAST,
  MULTICAST_IN,
  STREAMS
};

/* NCCL's NVLSTree chunk for nBytes over `ops` = channels x heads. */
static int64_t default_chunk(int64_t bytes, int64_t ops, int32_t nodes) {
  int64_t c = nodes >= 4 ? TREE_CHUNK_MANY : TREE_CHUNK;
  if (bytes < 4 * ops * c && c > 65536) c = 65536;
  if (bytes < ops * c && c > 32768) c = 32768;
  return c;
}

static int64_t channel_bytes(const nvlstree *g, int32_t c) {
  return fs_nccl_channel_bytes(g->total, g->channels, c);
}

/* Bytes of head h's chunk in loop `loop` of channel c. */
static int64_t chunk_bytes(const nvlstree *g, int32_t c, int64_t loop, int32_t h) {
  return fs_nccl_head_chunk_bytes(channel_bytes(g, c), g->heads, g->chunk, loop, h, LAST_ALIGN);
}

static int64_t loop_bytes(const nvlstree *g, int32_t c, int64_t loop) {
  return fs_nccl_loop_bytes(channel_bytes(g, c), g->heads, g->chunk, loop, LAST_ALIGN);
}

static int32_t block_of(const nvlstree *g, int32_t c, int64_t loop, int32_t h) {
  return (int32_t)((g->first[c] + loop) * g->heads + h);
}

/* Task t of stream s of rank r: waits for the stream's previous one. */
static int32_t chain(fs_nccl_builder *b, nvlstree *g, int32_t r, int s, int32_t t) {
  fs_nccl_depend(b, t, g->slot[(int64_t)r * STREAMS + s]);
  g->slot[(int64_t)r * STREAMS + s] = t;
  return t;
}

/* Head h of node u's links in channel c's tree: parent and child heads. */
static void tree_links(const nvlstree *g, int32_t c, int32_t u, int32_t h, int32_t *parent,
                       int32_t child[2]) {
  fs_nccl_tree_node t;
  fs_nccl_dtree(g->nodes.count, u, c % 2, &t);
  *parent = t.up >= 0 ? fs_smp_node_members(&g->nodes, t.up)[h] : -1;
  for (int d = 0; d < 2; d++)
    child[d] = t.down[d] >= 0 ? fs_smp_node_members(&g->nodes, t.down[d])[h] : -1;
}

/* Steps 1-3 in node u: the scatter, the switch's reduce, the returns. */
static void node_reduce(fs_nccl_builder *b, nvlstree *g, int32_t c, int64_t loop, int32_t u) {
  const int32_t *m = fs_smp_node_members(&g->nodes, u);
  int32_t size = fs_smp_node_size(&g->nodes, u), sw = g->k + u, *at = g->blocks, H = g->heads;
  int32_t port = c * g->ports, up = 2 * c, lr = g->label_reduce;
  int64_t all = loop_bytes(g, c, loop);
  int32_t sum = -1, received[NVLS_MAX_GPUS] = {-1};
  for (int32_t j = 0; j < size; j++) {
    chain(b, g, m[j], TO_SWITCH,
          fs_nccl_task_on(b, FS_SEND, m[j], sw, c, up, all, FS_FLOW_READ, at, H, lr));
    received[j] = chain(b, g, m[j], AT_SWITCH,
                        fs_nccl_task_on(b, FS_RECV, sw, m[j], port + j, up, all,
                                        j ? FS_FLOW_TEMP : FS_FLOW_WRITE, at, H, lr));
  }
  sum = received[0]; /* a GPU alone: nothing to reduce */
  if (size > 1) {
    sum = fs_nccl_task_on(b, FS_COMPUTE, sw, -1, port, 0, all, FS_FLOW_COMBINE, at, H, lr);
    for (int32_t j = 0; j < size; j++) fs_nccl_depend(b, sum, received[j]);
  }
  for (int32_t h = 0; h < H; h++) {
    int64_t bytes = chunk_bytes(g, c, loop, h);
    int32_t to =
        fs_nccl_task_on(b, FS_SEND, sw, m[h], port + h, up, bytes, FS_FLOW_READ, at + h, 1, lr);
    fs_nccl_depend(b, to, sum);
    chain(b, g, m[h], RETURN, to);
    g->stored[(int64_t)u * H + h] = to; /* until the store: what the store must follow */
    g->returned[m[h]] =
        chain(b, g, m[h], RETURNED,
              fs_nccl_task_on(b, FS_RECV, m[h], sw, c, up, bytes, FS_FLOW_WRITE, at + h, 1, lr));
  }
}

/* Step 4 for head h of node u: its children's partial sums, its reduce,
 * its send up. */
static void head_up(fs_nccl_builder *b, nvlstree *g, int32_t c, int64_t loop, int32_t u,
                    int32_t h) {
  int32_t r = fs_smp_node_members(&g->nodes, u)[h], parent, child[2], in[2], n = 0;
  int32_t *at = g->blocks + h, lr = g->label_reduce;
  int64_t bytes = chunk_bytes(g, c, loop, h);
  tree_links(g, c, u, h, &parent, child);
  g->up[r] = g->returned[r];
  for (int d = 0; d < 2; d++)
    if (child[d] >= 0)
      in[n++] =
          chain(b, g, r, CHILD_IN,
                fs_nccl_task_on(b, FS_RECV, r, child[d], c, 2 * c, bytes, FS_FLOW_TEMP, at, 1, lr));
  if (n) {
    int32_t reduce = fs_nccl_task_on(b, FS_COMPUTE, r, -1, c, 0, bytes, FS_FLOW_COMBINE, at, 1, lr);
    fs_nccl_depend(b, reduce, g->returned[r]);
    for (int d = 0; d < n; d++) fs_nccl_depend(b, reduce, in[d]);
    g->up[r] = chain(b, g, r, REDUCE, reduce);
  }
  if (parent >= 0) {
    int32_t send = fs_nccl_task_on(b, FS_SEND, r, parent, c, 2 * c, bytes, FS_FLOW_READ, at, 1, lr);
    fs_nccl_depend(b, send, g->up[r]);
    g->up[r] = chain(b, g, r, UP_OUT, send);
  }
}

/* Step 5 for head h of node u: the result from its parent (the root: its
 * own reduce), stored to the switch and sent to its children. */
static void head_down(fs_nccl_builder *b, nvlstree *g, int32_t c, int64_t loop, int32_t u,
                      int32_t h) {
  int32_t r = fs_smp_node_members(&g->nodes, u)[h], parent, child[2], sw = g->k + u;
  int32_t *at = g->blocks + h, down = 2 * c + 1, lb = g->label_bcast;
  int64_t bytes = chunk_bytes(g, c, loop, h);
  tree_links(g, c, u, h, &parent, child);
  int32_t result = g->up[r];
  if (parent >= 0) {
    result = fs_nccl_task_on(b, FS_RECV, r, parent, c, down, bytes, FS_FLOW_WRITE, at, 1, lb);
    fs_nccl_depend(b, result, g->up[r]); /* its send up read the chunk */
    chain(b, g, r, DOWN_IN, result);
  }
  int32_t store = fs_nccl_task_on(b, FS_SEND, r, sw, c, down, bytes, FS_FLOW_READ, at, 1, lb);
  fs_nccl_depend(b, store, result);
  chain(b, g, r, STORE, store);
  int64_t at_switch = (int64_t)u * g->heads + h;
  int32_t stored =
      fs_nccl_task_on(b, FS_RECV, sw, r, c * g->ports + h, down, bytes, FS_FLOW_WRITE, at, 1, lb);
  fs_nccl_depend(b, stored, g->stored[at_switch]); /* it overwrites what the return read */
  g->stored[at_switch] = chain(b, g, r, STORED, stored);
  for (int d = 0; d < 2; d++)
    if (child[d] >= 0) {
      int32_t send =
          fs_nccl_task_on(b, FS_SEND, r, child[d], c, down, bytes, FS_FLOW_READ, at, 1, lb);
      fs_nccl_depend(b, send, result);
      chain(b, g, r, CHILD_OUT, send);
    }
}

/* Step 6 in node u: the multicast of the H results to every GPU. */
static void node_multicast(fs_nccl_builder *b, nvlstree *g, int32_t c, int64_t loop, int32_t u) {
  const int32_t *m = fs_smp_node_members(&g->nodes, u);
  int32_t size = fs_smp_node_size(&g->nodes, u), sw = g->k + u, H = g->heads;
  int32_t down = 2 * c + 1, lb = g->label_bcast;
  int64_t all = loop_bytes(g, c, loop);
  for (int32_t j = 0; j < size; j++) {
    int32_t out = fs_nccl_task_on(b, FS_SEND, sw, m[j], c * g->ports + j, down, all, FS_FLOW_READ,
                                  g->blocks, H, lb);
    for (int32_t h = 0; h < H; h++) fs_nccl_depend(b, out, g->stored[(int64_t)u * H + h]);
    chain(b, g, m[j], MULTICAST, out);
    int32_t in =
        fs_nccl_task_on(b, FS_RECV, m[j], sw, c, down, all, FS_FLOW_WRITE, g->blocks, H, lb);
    fs_nccl_depend(b, in, g->slot[(int64_t)m[j] * STREAMS + CHILD_OUT]); /* they read its chunk */
    chain(b, g, m[j], MULTICAST_IN, in);
  }
}

static void one_loop(fs_nccl_builder *b, nvlstree *g, int32_t c, int64_t loop) {
  int32_t nodes = g->nodes.count;
  for (int32_t h = 0; h < g->heads; h++) g->blocks[h] = block_of(g, c, loop, h);
  for (int32_t u = 0; u < nodes; u++) node_reduce(b, g, c, loop, u);
  for (int32_t u = 0; u < nodes; u++)
    for (int32_t h = 0; h < g->heads; h++) head_up(b, g, c, loop, u, h);
  for (int32_t u = 0; u < nodes; u++)
    for (int32_t h = 0; h < g->heads; h++) head_down(b, g, c, loop, u, h);
  for (int32_t u = 0; u < nodes; u++) node_multicast(b, g, c, loop, u);
}

static void build(fs_nccl_builder *b, void *state) {
  nvlstree *g = state;
  int64_t slots = (int64_t)g->k * STREAMS;
  g->label_reduce = fs_nccl_label(b, "reduce", -1);
  g->label_bcast = fs_nccl_label(b, "broadcast", -1);
  for (int32_t c = 0; c < g->channels && !b->failed; c++) {
    for (int64_t i = 0; i < slots; i++) g->slot[i] = -1;
    for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c] && !b->failed; loop++)
      one_loop(b, g, c, loop);
  }
}

/* The flow: chunk h of every loop a block; the switches hold no data. */
static int begin_flow(const fs_generator_options *o, void *state) {
  const nvlstree *g = state;
  int64_t loops = g->first[g->channels];
  if (loops == 0) {
    if (fs_data_flow_begin(o->flow, FS_COLLECTIVE_ALLREDUCE, 0, 1, g->total)) return -1;
  } else {
    if (fs_data_flow_begin(o->flow, FS_COLLECTIVE_ALLREDUCE, 0, (int32_t)(loops * g->heads), 0))
      return -1;
    for (int32_t c = 0; c < g->channels; c++)
      for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c]; loop++)
        for (int32_t h = 0; h < g->heads; h++)
          o->flow->block_size[block_of(g, c, loop, h)] = chunk_bytes(g, c, loop, h);
  }
  o->flow->data_ranks = g->k;
  return 0;
}

static int check(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_nccl_check(NAME, o, err) ||
      fs_gen_refuse_root(NAME, o, err))
    return -1;
  return fs_nccl_simple_only(NAME, "NVLSTree", o, err);
}

static int64_t heads_min(const fs_smp_nodes *n) {
  int32_t least = n->largest;
  for (int32_t u = 0; u < n->count; u++)
    if (fs_smp_node_size(n, u) < least) least = fs_smp_node_size(n, u);
  return least;
}

/* The nodes: at least 2, at most 32 GPUs each, channels x GPUs <= 256. */
static int check_nodes(const nvlstree *g, const fs_generator_options *o, fs_error *err) {
  if (g->nodes.count < 2)
    return fs_error_set(err,
                        "%s: the %d ranks are on one node: NVLSTree runs NVLS in each node and a "
                        "tree between nodes; on one node use allreduce-nccl-nvls",
                        NAME, o->ranks);
  if ((int64_t)g->k + g->nodes.count > INT32_MAX)
    return fs_error_set(err, "%s: %d GPUs and %d switches are more ranks than a program holds",
                        NAME, g->k, g->nodes.count);
  if (o->platform && heads_min(&g->nodes) < 2)
    return fs_error_set(err,
                        "%s: the platform puts a single GPU on a node: NVLS needs an NVSwitch "
                        "of 2 or more GPUs in every node",
                        NAME);
  if (g->nodes.largest > NVLS_MAX_GPUS)
    return fs_error_set(err,
                        "%s: a node of %d GPUs: NCCL's NVLS takes at most %d GPUs on a "
                        "switch (NCCL_MAX_NVLS_ARITY)",
                        NAME, g->nodes.largest, NVLS_MAX_GPUS);
  if ((int64_t)g->channels * g->nodes.largest > NVLS_MAX_PORTS)
    return fs_error_set(err,
                        "%s: --channels x GPUs a node must be at most %d (a switch's ports, one "
                        "CPU each), not %d x %d",
                        NAME, NVLS_MAX_PORTS, g->channels, g->nodes.largest);
  return 0;
}

static void release(nvlstree *g) {
  fs_smp_nodes_free(&g->nodes);
  free(g->blocks), free(g->slot), free(g->returned), free(g->up), free(g->stored);
}

fs_program *fs_generate_allreduce_nccl_nvlstree(const fs_generator_options *o, fs_error *err) {
  if (check(o, err)) return NULL;
  nvlstree g = {.k = o->ranks, .channels = fs_nccl_channels(o), .total = o->size};
  if (fs_smp_nodes_init(&g.nodes, NAME, o, err)) return NULL;
  if (check_nodes(&g, o, err)) {
    fs_smp_nodes_free(&g.nodes);
    return NULL;
  }
  g.heads = (int32_t)heads_min(&g.nodes), g.ports = g.nodes.largest;
  g.chunk = o->chunk ? o->chunk
                     : default_chunk(o->size, (int64_t)g.channels * g.heads, g.nodes.count);
  for (int32_t c = 0; c < g.channels; c++)
    g.first[c + 1] = fs_nccl_add(g.first[c], fs_nccl_loops(channel_bytes(&g, c), g.heads, g.chunk));
  /* a loop: per node 2 tasks per GPU and a reduce (scatter), 4 per head (return, store),
   * 2 per GPU (multicast); per head at most 7 of the tree (2 recvs, a reduce, a send up,
   * a recv down, 2 sends down) */
  int64_t estimate =
      fs_nccl_mul(g.first[g.channels], fs_nccl_add(fs_nccl_mul(g.k, 15), g.nodes.count));
  size_t ranks = (size_t)g.k + (size_t)g.nodes.count;
  g.blocks = malloc((size_t)g.heads * sizeof *g.blocks);
  g.slot = malloc((size_t)g.k * STREAMS * sizeof *g.slot);
  g.returned = malloc((size_t)g.k * sizeof *g.returned);
  g.up = malloc((size_t)g.k * sizeof *g.up);
  g.stored = malloc((size_t)g.nodes.count * (size_t)g.heads * sizeof *g.stored);
  fs_program *p = NULL;
  if (!g.blocks || !g.slot || !g.returned || !g.up || !g.stored) {
    fs_error_set(err, "%s: out of memory for %d GPUs on %d nodes", NAME, g.k, g.nodes.count);
  } else {
    fs_generator_options wide = *o; /* the GPUs and the switches */
    wide.ranks = (int32_t)ranks;
    p = fs_nccl_generate(NAME, &wide, estimate, build, begin_flow, &g, err);
  }
  release(&g);
  return p;
}
