/* nccl_collnet.c: NCCL 2.30.7's CollNet allreduce (in-network reduction
 * through a CollNet/SHARP plugin) as two generators, `gen
 * allreduce-nccl-collnet-direct` and `allreduce-nccl-collnet-chain`, with
 * the network's reducers as ranks of the schedule (NCCL 2.30.7, tag
 * v2.30.7-1: device/all_reduce.h, runWorkColl for NCCL_ALGO_COLLNET_DIRECT
 * and NCCL_ALGO_COLLNET_CHAIN, Simple, buffers not registered;
 * graph/connect.cc, connectCollNet and ncclTopoPreset; enqueue.cc,
 * calcCollChunking; transport/coll_net.cc).
 *
 * N nodes of G GPUs (--nodes N --cores G or --platform, nodes of equal
 * size, 2 <= N, G <= 8: NCCL runs CollNet on 2 nodes or more and on at most
 * NCCL_MAX_DIRECT_ARITY + 1 = 8 GPUs a node; without a platform each rank
 * is a node). The GPUs are ranks 0..NG-1; rail h (the NICs of every node's
 * local GPU h) has its in-network reducer at rank NG+h (NCCL itself counts
 * the CollNet root as one extra rank; fennelsim gives each rail its own,
 * as SHARP reduces in the rail's switches, and so that each has a CPU per
 * channel and node). The reducers hold no data and are owed none
 * (fs_data_flow.data_ranks = NG). A reducer takes the N nodes' messages of
 * a chunk on its ports (CPU c*N + n for node n on channel c), reduces them
 * (one compute of the chunk's bytes on CPU c*N, or --reduce-time), and
 * sends the sum back on the same ports.
 *
 * Channels do not take contiguous ranges here (CollNet's work is not split
 * by nccl_layout.h's rule): the vector is processed in loops, loop l and
 * channel c taking the l*C + c-th piece of P bytes; every channel runs
 * every loop, a piece past the end being a step of 0 bytes, as in NCCL.
 *
 * CollNetChain (P = chunk): channel c's chain in each node starts at local
 * GPU c mod G (assumed: NCCL's search takes a GPU next to a NIC, a NIC per
 * GPU) and goes on in local order, cyclically. Per piece, up the chain:
 * the last GPU sends its piece to the previous one, which receives, reduces
 * (one compute of the piece) and sends on; the first sends to rail c mod
 * G's reducer (tag 2c, NCCL's connection 1). The reducer returns the sum
 * to each node's first GPU, which receives it and sends it down the chain
 * (tag 2c+1, connection 0). Default chunk (calcCollChunking): 256 KiB,
 * halved while nBytes / (C chunk) < 64 G and chunk > 128 KiB, then while
 * < 8 G and chunk > 64 KiB, then while < G and chunk > 32 KiB.
 *
 * CollNetDirect (P = G chunks): every GPU is a head (a NIC per GPU: NCCL's
 * heads are the first GPUs of its CollNet graph's channels); head h owns
 * chunk h of each piece. Per piece and node: every GPU j sends its chunk h
 * to head h for each h != j, in the order h = j+1, j+2, ... mod G (NCCL's
 * scatter with its shift = j), tag 2c; head h receives them, reduces them
 * with its own chunk (one compute; none when G = 1) and sends the result to
 * rail h's reducer (tag 2c); the reducer returns the sum (tag 2c+1); head h
 * receives it and sends it to every other GPU of its node in the same order
 * (NCCL's bcast group, tag 2c+1), whose gather receives it. Default chunk:
 * 512 KiB, halved while nBytes / (C G chunk) < 64 d and chunk > 128 KiB,
 * then while < 8 d and > 64 KiB, then while < 8 d and > 32 KiB (d = 2, or
 * 1 when G = 1: NCCL's collnetDirect.depth).
 *
 * A GPU's channel c is its CPU c, as in the other NCCL generators; each
 * stream of tasks (a GPU's up and down chains, the scatter sends, a head's
 * reduce, its broadcast, the gather receives, a reducer port's receives and
 * sends) keeps loop order. Not modelled: NCCL's FIFO slots (a sender never
 * waits for a free one), the proxy's copies between GPU and host buffers
 * and its grouping of up to 8 channels' steps into one Iallreduce (each
 * channel's piece is its own in-network reduction here), the plugin's
 * aggregation tree (one reducer a rail), registered buffers. Simple only,
 * as NCCL runs CollNet. Labels "up" and "down". */
#include <stdlib.h>

#include "generators/nccl_layout.h"
#include "generators/smp_support.h"

#define DIRECT_NAME "allreduce-nccl-collnet-direct"
#define CHAIN_NAME "allreduce-nccl-collnet-chain"
#define MAX_LOCAL 8   /* NCCL_MAX_DIRECT_ARITY + 1: GPUs a node */
#define MAX_PORTS 256 /* channels x nodes: a reducer's CPUs */
#define SIMPLE_STEP (512 * 1024)

/* The streams whose order a slot keeps, per GPU (chain: UP, DOWN). */
enum { UP, DOWN, SCATTER, GATHER, GPU_STREAMS };
/* per reducer port */
enum { PORT_IN, PORT_OUT, PORT_STREAMS };

typedef struct collnet {
  const char *name;
  int direct;
  fs_smp_nodes nodes;
  int32_t n, g, k, channels; /* nodes, GPUs a node, GPUs; reducer of rail h: rank k + h */
  int64_t total, chunk, loops;
  int32_t label_up, label_down;
  int32_t *slot;    /* [rank * GPU_STREAMS + s], then [k GPU_STREAMS + (h n + node) 2 + s] */
  int32_t *scatter; /* [rank * g + h]: this piece's scatter send of chunk h */
} collnet;

static int32_t member(const collnet *g, int32_t node, int32_t local) {
  return fs_smp_node_members(&g->nodes, node)[local];
}

/* The bytes of part `index` (of `part` bytes) of the vector. */
static int64_t part_bytes(const collnet *g, int64_t index, int64_t part) {
  int64_t at = fs_nccl_mul(index, part);
  if (at >= g->total) return 0;
  return g->total - at < part ? g->total - at : part;
}

/* A task on CPU cpu with tag tag (0: none stored), on one flow block. */
static int32_t add(fs_nccl_builder *b, fs_task_kind kind, int32_t rank, int32_t peer, int cpu,
                   int32_t tag, int64_t bytes, fs_flow_action action, int32_t block,
                   int32_t label) {
  int32_t t = fs_nccl_task(b, kind, rank, peer, 0, bytes, action, block, label);
  if (!b->p || b->failed) return t;
  if ((cpu && fs_task_set_cpu(b->p, t, cpu)) || (tag && fs_task_set_tag(b->p, t, tag)))
    b->failed = 1;
  return t;
}

/* t waits for the stream's previous task and becomes its last. */
static int32_t chain(fs_nccl_builder *b, int32_t *slot, int32_t t) {
  fs_nccl_depend(b, t, *slot);
  return *slot = t;
}

static int32_t *gpu_slot(collnet *g, int32_t rank, int s) {
  return g->slot + (int64_t)rank * GPU_STREAMS + s;
}
static int32_t *port_slot(collnet *g, int32_t rail, int32_t node, int s) {
  return g->slot + (int64_t)g->k * GPU_STREAMS + ((int64_t)rail * g->n + node) * PORT_STREAMS + s;
}

/* Rail `rail`'s reducer on channel c: receives from[node] (sent), reduces,
 * returns the sum to to[node]; the returns' ids into back[node]. */
static void reduce_in_network(fs_nccl_builder *b, collnet *g, int32_t c, int32_t rail,
                              const int32_t *from, int64_t bytes, int32_t block, int32_t *back) {
  int32_t sw = g->k + rail, up = 2 * c, down = 2 * c + 1, recv[MAX_PORTS];
  for (int32_t x = 0; x < g->n; x++) {
    fs_flow_action action = x ? FS_FLOW_TEMP : FS_FLOW_WRITE;
    recv[x] = add(b, FS_RECV, sw, from[x], c * g->n + x, up, bytes, action, block, g->label_up);
    chain(b, port_slot(g, rail, x, PORT_IN), recv[x]);
  }
  int32_t sum = add(b, FS_COMPUTE, sw, -1, c * g->n, 0, bytes, FS_FLOW_COMBINE, block, g->label_up);
  for (int32_t x = 0; x < g->n; x++) fs_nccl_depend(b, sum, recv[x]);
  for (int32_t x = 0; x < g->n; x++) {
    int32_t out =
        add(b, FS_SEND, sw, from[x], c * g->n + x, down, bytes, FS_FLOW_READ, block, g->label_down);
    fs_nccl_depend(b, out, sum);
    chain(b, port_slot(g, rail, x, PORT_OUT), out);
    back[x] = out;
  }
}

/* ---- CollNetChain ---------------------------------------------------- */

/* The up pass of node `node`'s chain (GPUs m[(first + i) mod G]); the
 * first GPU's send to the reducer. */
static int32_t chain_up(fs_nccl_builder *b, collnet *g, int32_t c, int32_t node, int64_t bytes,
                        int32_t block) {
  int32_t first = c % g->g, up = 2 * c, send = -1;
  for (int32_t i = g->g - 1; i >= 0; i--) {
    int32_t r = member(g, node, (first + i) % g->g), *slot = gpu_slot(g, r, UP);
    if (i + 1 < g->g) {
      int32_t from = member(g, node, (first + i + 1) % g->g);
      chain(b, slot, add(b, FS_RECV, r, from, c, up, bytes, FS_FLOW_TEMP, block, g->label_up));
      chain(b, slot, add(b, FS_COMPUTE, r, -1, c, 0, bytes, FS_FLOW_COMBINE, block, g->label_up));
    }
    int32_t to = i ? member(g, node, (first + i - 1) % g->g) : g->k + first;
    send = chain(b, slot, add(b, FS_SEND, r, to, c, up, bytes, FS_FLOW_READ, block, g->label_up));
  }
  return send;
}

static void chain_down(fs_nccl_builder *b, collnet *g, int32_t c, int32_t node, int64_t bytes,
                       int32_t block) {
  int32_t first = c % g->g, down = 2 * c + 1;
  for (int32_t i = 0; i < g->g; i++) {
    int32_t r = member(g, node, (first + i) % g->g), *slot = gpu_slot(g, r, DOWN);
    int32_t from = i ? member(g, node, (first + i - 1) % g->g) : g->k + first;
    int32_t recv = add(b, FS_RECV, r, from, c, down, bytes, FS_FLOW_WRITE, block, g->label_down);
    fs_nccl_depend(b, recv, *gpu_slot(g, r, UP)); /* its send up read the piece */
    chain(b, slot, recv);
    if (i + 1 < g->g) {
      int32_t to = member(g, node, (first + i + 1) % g->g);
      chain(b, slot, add(b, FS_SEND, r, to, c, down, bytes, FS_FLOW_READ, block, g->label_down));
    }
  }
}

static void chain_piece(fs_nccl_builder *b, collnet *g, int32_t c, int64_t loop) {
  int64_t index = loop * g->channels + c, bytes = part_bytes(g, index, g->chunk);
  int32_t block = (int32_t)index, from[MAX_PORTS], back[MAX_PORTS];
  for (int32_t x = 0; x < g->n; x++) {
    chain_up(b, g, c, x, bytes, block);
    from[x] = member(g, x, c % g->g);
  }
  reduce_in_network(b, g, c, c % g->g, from, bytes, block, back);
  for (int32_t x = 0; x < g->n; x++) chain_down(b, g, c, x, bytes, block);
}

/* ---- CollNetDirect --------------------------------------------------- */

static int64_t direct_bytes(const collnet *g, int64_t index, int32_t h) {
  return part_bytes(g, index * g->g + h, g->chunk);
}

/* Node `node`'s scatter and its heads' reduces and sends to the network. */
static void direct_up(fs_nccl_builder *b, collnet *g, int32_t c, int32_t node, int64_t index) {
  int32_t G = g->g, up = 2 * c, base = (int32_t)(index * G), lu = g->label_up;
  for (int32_t j = 0; j < G; j++) {
    int32_t r = member(g, node, j);
    for (int32_t i = 1; i < G; i++) {
      int32_t h = (j + i) % G, to = member(g, node, h);
      int32_t s =
          add(b, FS_SEND, r, to, c, up, direct_bytes(g, index, h), FS_FLOW_READ, base + h, lu);
      g->scatter[(int64_t)r * G + h] = chain(b, gpu_slot(g, r, SCATTER), s);
    }
  }
  for (int32_t h = 0; h < G; h++) {
    int32_t r = member(g, node, h), *slot = gpu_slot(g, r, UP);
    int64_t bytes = direct_bytes(g, index, h);
    int32_t recv[MAX_LOCAL];
    for (int32_t i = 1; i < G; i++) {
      int32_t from = member(g, node, (h + G - i) % G);
      recv[i] = chain(b, slot, add(b, FS_RECV, r, from, c, up, bytes, FS_FLOW_TEMP, base + h, lu));
    }
    if (G > 1) {
      int32_t sum = add(b, FS_COMPUTE, r, -1, c, 0, bytes, FS_FLOW_COMBINE, base + h, lu);
      for (int32_t i = 1; i < G; i++) fs_nccl_depend(b, sum, recv[i]); /* combines each */
      *slot = sum;
    }
    chain(b, slot, add(b, FS_SEND, r, g->k + h, c, up, bytes, FS_FLOW_READ, base + h, lu));
  }
}

/* Node `node`'s heads' receives from the network and broadcasts, and its
 * GPUs' gathers. */
static void direct_down(fs_nccl_builder *b, collnet *g, int32_t c, int32_t node, int64_t index) {
  int32_t G = g->g, down = 2 * c + 1, base = (int32_t)(index * G), ld = g->label_down;
  for (int32_t h = 0; h < G; h++) {
    int32_t r = member(g, node, h), *slot = gpu_slot(g, r, DOWN);
    int64_t bytes = direct_bytes(g, index, h);
    int32_t recv = add(b, FS_RECV, r, g->k + h, c, down, bytes, FS_FLOW_WRITE, base + h, ld);
    fs_nccl_depend(b, recv, *gpu_slot(g, r, UP)); /* its send to the network read it */
    chain(b, slot, recv);
    for (int32_t i = 1; i < G; i++) {
      int32_t to = member(g, node, (h + i) % G);
      chain(b, slot, add(b, FS_SEND, r, to, c, down, bytes, FS_FLOW_READ, base + h, ld));
    }
  }
  for (int32_t j = 0; j < G; j++) {
    int32_t r = member(g, node, j);
    for (int32_t i = 1; i < G; i++) {
      int32_t h = (j + G - i) % G, from = member(g, node, h);
      int32_t recv =
          add(b, FS_RECV, r, from, c, down, direct_bytes(g, index, h), FS_FLOW_WRITE, base + h, ld);
      fs_nccl_depend(b, recv, g->scatter[(int64_t)r * G + h]); /* it read its input chunk h */
      chain(b, gpu_slot(g, r, GATHER), recv);
    }
  }
}

static void direct_piece(fs_nccl_builder *b, collnet *g, int32_t c, int64_t loop) {
  int64_t index = loop * g->channels + c;
  int32_t from[MAX_PORTS], back[MAX_PORTS];
  for (int32_t x = 0; x < g->n; x++) direct_up(b, g, c, x, index);
  for (int32_t h = 0; h < g->g; h++) {
    for (int32_t x = 0; x < g->n; x++) from[x] = member(g, x, h);
    reduce_in_network(b, g, c, h, from, direct_bytes(g, index, h), (int32_t)(index * g->g + h),
                      back);
  }
  for (int32_t x = 0; x < g->n; x++) direct_down(b, g, c, x, index);
}

/* ---- both ------------------------------------------------------------ */

static void build(fs_nccl_builder *b, void *state) {
  collnet *g = state;
  int64_t slots = (int64_t)g->k * GPU_STREAMS + (int64_t)g->g * g->n * PORT_STREAMS;
  g->label_up = fs_nccl_label(b, "up", -1);
  g->label_down = fs_nccl_label(b, "down", -1);
  for (int32_t c = 0; c < g->channels && !b->failed; c++) {
    for (int64_t i = 0; i < slots; i++) g->slot[i] = -1;
    for (int64_t loop = 0; loop < g->loops && !b->failed; loop++)
      (g->direct ? direct_piece : chain_piece)(b, g, c, loop);
  }
}

/* The flow: a block per piece (chain) or per piece and head (direct). */
static int begin_flow(const fs_generator_options *o, void *state) {
  const collnet *g = state;
  int64_t per = g->direct ? g->g : 1, blocks = g->loops * g->channels * per;
  if (blocks == 0) {
    if (fs_data_flow_begin(o->flow, FS_COLLECTIVE_ALLREDUCE, 0, 1, g->total)) return -1;
  } else {
    if (fs_data_flow_begin(o->flow, FS_COLLECTIVE_ALLREDUCE, 0, (int32_t)blocks, 0)) return -1;
    for (int64_t i = 0; i < blocks; i++) o->flow->block_size[i] = part_bytes(g, i, g->chunk);
  }
  o->flow->data_ranks = g->k;
  return 0;
}

/* NCCL's chunk (calcCollChunking) for CollNetDirect (`per` = the heads)
 * or CollNetChain (`per` = 1), nBytes over C channels. */
static int64_t default_chunk(const collnet *g) {
  int64_t bytes = g->total, per = g->direct ? g->g : 1;
  int64_t depth = g->direct ? (g->g > 1 ? 2 : 1) : g->g, c = g->direct ? SIMPLE_STEP : 262144;
  int64_t lanes = (int64_t)g->channels * per;
  while (bytes / (lanes * c) < depth * 64 && c > 131072) c /= 2;
  while (bytes / (lanes * c) < depth * 8 && c > 65536) c /= 2;
  while (bytes / (lanes * c) < (g->direct ? depth * 8 : depth) && c > 32768) c /= 2;
  return c;
}

/* The nodes: at least 2, equal, of at most 8 GPUs. */
static int check_nodes(collnet *g, const fs_generator_options *o, fs_error *err) {
  if (fs_smp_nodes_init(&g->nodes, g->name, o, err)) {
    g->nodes = (fs_smp_nodes){0}; /* freed by it: not again by generate */
    return -1;
  }
  g->n = g->nodes.count, g->g = fs_smp_node_size(&g->nodes, 0);
  for (int32_t x = 1; x < g->n; x++)
    if (fs_smp_node_size(&g->nodes, x) != g->g)
      return fs_error_set(err,
                          "%s: the platform puts the %d ranks on %d nodes unevenly (NCCL's "
                          "CollNet takes nodes of equal GPU counts)",
                          g->name, o->ranks, g->n);
  if (g->n < 2)
    return fs_error_set(err,
                        "%s: CollNet reduces across nodes: it needs at least 2 nodes "
                        "(NCCL_COLLNET_NODE_THRESHOLD), not %d",
                        g->name, g->n);
  if (g->g > MAX_LOCAL)
    return fs_error_set(err,
                        "%s: NCCL runs CollNet with at most %d GPUs a node "
                        "(NCCL_MAX_DIRECT_ARITY + 1), not %d",
                        g->name, MAX_LOCAL, g->g);
  if ((int64_t)g->channels * g->n > MAX_PORTS)
    return fs_error_set(err,
                        "%s: --channels x nodes must be at most %d (a reducer's ports, one CPU "
                        "each), not %d x %d",
                        g->name, MAX_PORTS, g->channels, g->n);
  return 0;
}

static int check(const char *name, const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(name, o, err) || fs_nccl_check(name, o, err) ||
      fs_gen_refuse_root(name, o, err))
    return -1;
  return fs_nccl_simple_only(name, "CollNet", o, err);
}

static fs_program *generate(const char *name, int direct, const fs_generator_options *o,
                            fs_error *err) {
  if (check(name, o, err)) return NULL;
  collnet g = {.name = name,
               .direct = direct,
               .k = o->ranks,
               .channels = fs_nccl_channels(o),
               .total = o->size};
  fs_program *p = NULL;
  if (check_nodes(&g, o, err)) goto done;
  g.chunk = o->chunk ? o->chunk : default_chunk(&g);
  g.loops = fs_nccl_loops(g.total, (int64_t)g.channels * (direct ? g.g : 1), g.chunk);
  int64_t per_piece = direct ? 4 * (int64_t)g.k * g.g + g.k + g.g : 5 * (int64_t)g.k + 1;
  int64_t estimate = fs_nccl_mul(fs_nccl_mul(g.loops, g.channels), per_piece);
  if (estimate > FS_MAX_TASKS) {
    p = fs_gen_begin(name, o->ranks, estimate, 0, err);
    goto done;
  }
  fs_generator_options wide = *o; /* the GPUs and the rails' reducers */
  wide.ranks = o->ranks + g.g;
  g.slot = malloc(((size_t)g.k * GPU_STREAMS + (size_t)g.g * g.n * PORT_STREAMS) * sizeof *g.slot);
  g.scatter = malloc((size_t)g.k * g.g * sizeof *g.scatter);
  if (!g.slot || !g.scatter)
    fs_error_set(err, "%s: out of memory for the streams of %d ranks", name, g.k);
  else
    p = fs_nccl_generate(name, &wide, estimate, build, begin_flow, &g, err);
done:
  fs_smp_nodes_free(&g.nodes);
  free(g.slot), free(g.scatter);
  return p;
}

fs_program *fs_generate_allreduce_nccl_collnet_direct(const fs_generator_options *o,
                                                      fs_error *err) {
  return generate(DIRECT_NAME, 1, o, err);
}

fs_program *fs_generate_allreduce_nccl_collnet_chain(const fs_generator_options *o, fs_error *err) {
  return generate(CHAIN_NAME, 0, o, err);
}
