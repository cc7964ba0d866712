/* nccl_tree.c: `gen allreduce-nccl-tree`: NCCL 2.30.7's tree allreduce
 * (NCCL's device/all_reduce.h, runTreeSplit) on its double binary tree across
 * nodes (nccl_trees.h) and a chain of GPUs within each node
 * (NCCL's graph/connect.cc: ncclTopoPreset, connectTrees).
 *
 * Nodes come from the platform (--nodes M --cores Q: Q GPUs a node, or
 * --platform; smp_support.h's nodes: a node's ranks in rank order, nodes in
 * the order of their lowest rank); without one, each rank is a node. In a
 * node with GPUs g0, g1, ..., g(q-1) (its ranks in rank order; NCCL's tree
 * search may order them otherwise), g_j's parent is g_(j-1) and its first
 * child g_(j+1). The links to other nodes follow NCCL's default
 * BALANCED_TREE pattern: g0 talks to the parent node and to child 1, g1 to
 * child 0 (one GPU: g0 to all three). A node that is child 0 of its parent
 * sends up to the parent's g1, child 1 to its g0. A rank's children, in
 * NCCL's order: its chain child, then the node child it links.
 *
 * Channel c of C uses tree 0 when c < ceil(C/2), else tree 1. Each
 * channel's range (nccl_layout.h) is cut into pieces of at most --chunk
 * bytes (Simple 512 KiB); per piece, every rank receives from each child
 * (a temporary), reduces them into its own piece (one compute of the
 * piece's bytes, or --reduce-time) and sends it up; the root, after its
 * reduce, and every other rank, after receiving the result from its
 * parent, send it to each child. Per rank and channel the up-pass tasks
 * form one chain and the down-pass tasks another (a rank's down recv of a
 * piece also waits for its up send of it): the reduce of piece j+1 can
 * overlap the broadcast of piece j, as NCCL's split thread groups allow.
 * Labels up and down. */
#include <stdlib.h>

#include "generators/nccl_layout.h"
#include "generators/nccl_trees.h"
#include "generators/smp_support.h"

static const char NAME[] = "allreduce-nccl-tree";

typedef struct links {
  int32_t up;
  int32_t down[3];
  int count;
} links;

typedef struct tree {
  fs_smp_nodes nodes;
  int32_t k, channels;
  int64_t total, chunk;
  int64_t first[FS_NCCL_MAX_CHANNELS + 1]; /* pieces before each channel */
  links *links;                            /* [tree * k + rank] */
  int32_t *up_last, *down_last;            /* per rank, on the current channel */
  int32_t window;                          /* pieces a sender may run ahead, 0: no limit */
  int32_t *credit;      /* [(2 rank + down) window + n % window]: the credit recv of piece n
                          of the connection up from rank, or down to it */
  int32_t *credit_last; /* [2 (2 rank + down)], +1: its last credit send and recv */
} tree;

/* The rank of node u a child node of type `type` sends up to: g1 for
 * child 0 (g0 when the node has one GPU), g0 for child 1. */
static int32_t uplink(const fs_smp_nodes *n, int32_t u, int type) {
  const int32_t *m = fs_smp_node_members(n, u);
  return type == 0 && fs_smp_node_size(n, u) > 1 ? m[1] : m[0];
}

static void rank_links(const fs_smp_nodes *n, int which, int32_t rank, links *l) {
  int32_t k = n->node[rank], j = n->local[rank], q = fs_smp_node_size(n, k);
  const int32_t *m = fs_smp_node_members(n, k);
  fs_nccl_tree_node t;
  fs_nccl_dtree(n->count, k, which, &t);
  l->count = 0;
  l->up = j > 0 ? m[j - 1] : t.up >= 0 ? uplink(n, t.up, t.child_type) : -1;
  if (j + 1 < q) l->down[l->count++] = m[j + 1];
  if (j == (q > 1 ? 1 : 0) && t.down[0] >= 0)
    l->down[l->count++] = fs_smp_node_members(n, t.down[0])[0];
  if (j == 0 && t.down[1] >= 0) l->down[l->count++] = fs_smp_node_members(n, t.down[1])[0];
}

/* The credit recv piece n's send on the connection up from `rank` (down:
 * down to it) waits for; -1 for none. */
static int32_t credit_of(const tree *g, int32_t rank, int down, int64_t n) {
  if (!g->window || n < g->window) return -1;
  return g->credit[(2 * (int64_t)rank + down) * g->window + n % g->window];
}

static void up_pass(fs_nccl_builder *b, tree *g, const links *l, int32_t r, int32_t c, int64_t n,
                    int64_t bytes, int32_t block, int32_t label) {
  int32_t recv[3];
  for (int d = 0; d < l->count; d++) {
    recv[d] = fs_nccl_task(b, FS_RECV, r, l->down[d], c, bytes, FS_FLOW_TEMP, block, label);
    fs_nccl_depend(b, recv[d], g->up_last[r]);
  }
  if (l->count) {
    int32_t reduce = fs_nccl_task(b, FS_COMPUTE, r, -1, c, bytes, FS_FLOW_COMBINE, block, label);
    for (int d = 0; d < l->count; d++) fs_nccl_depend(b, reduce, recv[d]);
    g->up_last[r] = reduce;
  }
  if (l->up >= 0) {
    int32_t send = fs_nccl_task(b, FS_SEND, r, l->up, c, bytes, FS_FLOW_READ, block, label);
    fs_nccl_depend(b, send, g->up_last[r]);
    fs_nccl_depend(b, send, credit_of(g, r, 0, n));
    g->up_last[r] = send;
  }
}

static void down_pass(fs_nccl_builder *b, tree *g, const links *l, int32_t r, int32_t c, int64_t n,
                      int64_t bytes, int32_t block, int32_t label) {
  int32_t previous = g->down_last[r];
  if (l->up >= 0) {
    int32_t recv = fs_nccl_task(b, FS_RECV, r, l->up, c, bytes, FS_FLOW_WRITE, block, label);
    fs_nccl_depend(b, recv, g->up_last[r]); /* its send up read the piece */
    fs_nccl_depend(b, recv, previous);
    previous = g->down_last[r] = recv;
  }
  for (int d = 0; d < l->count; d++) {
    int32_t send = fs_nccl_task(b, FS_SEND, r, l->down[d], c, bytes, FS_FLOW_READ, block, label);
    if (l->up < 0 && d == 0) fs_nccl_depend(b, send, g->up_last[r]); /* the root's reduce */
    fs_nccl_depend(b, send, previous);
    fs_nccl_depend(b, send, credit_of(g, l->down[d], 1, n));
    previous = g->down_last[r] = send;
  }
}

/* The credits of piece n once consumed, when a send of piece n + window
 * waits for them: up, from a parent to each child after the parent's up
 * pass of the piece (its send up, or the root's reduce); down, from a child
 * to its parent after the child's down pass (its last send down, or its
 * recv). */
static void credits(fs_nccl_builder *b, tree *g, const links *l, int32_t c, int64_t n,
                    int64_t pieces) {
  if (!g->window || n + g->window >= pieces) return;
  for (int32_t r = 0; r < g->k; r++)
    for (int d = 0; d < l[r].count; d++) {
      int32_t child = l[r].down[d];
      for (int down = 0; down < 2; down++) {
        int64_t at = 2 * (int64_t)child + down;
        int32_t receiver = down ? child : r, sender = down ? r : child;
        int32_t after = down ? g->down_last[child] : g->up_last[r];
        g->credit[at * g->window + n % g->window] =
            fs_nccl_credit(b, receiver, sender, c, after, -1, g->credit_last + 2 * at);
      }
    }
}

static void build(fs_nccl_builder *b, void *state) {
  tree *g = state;
  if (g->k < 2) return;
  int32_t up = fs_nccl_label(b, "up", -1), down = fs_nccl_label(b, "down", -1);
  for (int32_t c = 0; c < g->channels && !b->failed; c++) {
    const links *l = g->links + (int64_t)fs_nccl_tree_of_channel(c, g->channels) * g->k;
    int64_t bytes_c = fs_nccl_channel_bytes(g->total, g->channels, c);
    for (int32_t r = 0; r < g->k; r++) g->up_last[r] = g->down_last[r] = -1;
    for (int32_t r = 0; r < 4 * g->k; r++) g->credit_last[r] = -1;
    for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c] && !b->failed; loop++) {
      int64_t bytes = fs_nccl_piece_bytes(bytes_c, g->chunk, loop);
      int32_t block = (int32_t)(g->first[c] + loop);
      for (int32_t r = 0; r < g->k; r++) up_pass(b, g, &l[r], r, c, loop, bytes, block, up);
      for (int32_t r = 0; r < g->k; r++) down_pass(b, g, &l[r], r, c, loop, bytes, block, down);
      credits(b, g, l, c, loop, g->first[c + 1] - g->first[c]);
    }
  }
}

static int begin_flow(const fs_generator_options *o, void *state) {
  const tree *g = state;
  int64_t pieces = g->first[g->channels];
  if (g->k < 2 || pieces == 0)
    return fs_data_flow_begin(o->flow, FS_COLLECTIVE_ALLREDUCE, 0, 1, o->size);
  if (fs_data_flow_begin(o->flow, FS_COLLECTIVE_ALLREDUCE, 0, (int32_t)pieces, 0)) return -1;
  for (int32_t c = 0; c < g->channels; c++)
    for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c]; loop++)
      o->flow->block_size[g->first[c] + loop] =
          fs_nccl_piece_bytes(fs_nccl_channel_bytes(g->total, g->channels, c), g->chunk, loop);
  return 0;
}

static void release(tree *g) {
  fs_smp_nodes_free(&g->nodes);
  free(g->links), free(g->up_last), free(g->down_last);
  free(g->credit), free(g->credit_last);
}

/* The pieces of every channel at g->chunk, into g->first. */
static void lay_out(tree *g) {
  g->first[0] = 0;
  for (int32_t c = 0; c < g->channels; c++)
    g->first[c + 1] =
        fs_nccl_add(g->first[c],
                    fs_nccl_loops(fs_nccl_channel_bytes(g->total, g->channels, c), 1, g->chunk));
}

/* NCCL's Tree/LL128 chunk for small sizes (enqueue.cc): with the line
 * chunk w = 614400 B (576000 B of data), s = 1 + floor(log2 nodes) + 0.1 ppn,
 * w halves while B / (C w) < 64 s / ppn and w > 128 KiB, then while
 * B / (C w) < 16 s / ppn and w > 32 KiB (an integer quotient against
 * floats, as NCCL computes it); the data chunk is 120/128 of w. */
static int64_t ll128_tree_chunk(int64_t bytes, int32_t channels, int32_t ranks, int32_t nodes) {
  int64_t w = FS_NCCL_LL128_CHUNK / 120 * 128;
  float ppn = (float)ranks / (float)nodes;
  float steps = (float)(1 + fs_gen_floor_log2(nodes) + 0.1 * ppn);
  while ((float)(bytes / (channels * w)) < steps * 64 / ppn && w > 131072) w /= 2;
  while ((float)(bytes / (channels * w)) < steps * 16 / ppn && w > 32768) w /= 2;
  return w * 120 / 128;
}

fs_program *fs_generate_allreduce_nccl_tree(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_nccl_check(NAME, o, err) ||
      fs_gen_refuse_root(NAME, o, err))
    return NULL;
  tree g = {.k = o->ranks, .channels = fs_nccl_channels(o), .total = o->size};
  int shrinks = !o->chunk && fs_nccl_protocol(o) == FS_PROTOCOL_LL128;
  g.chunk = shrinks ? FS_NCCL_LL128_CHUNK / 32 : fs_nccl_chunk(o, 0); /* the least it shrinks to */
  lay_out(&g);
  /* a rank's tasks a piece: at most 3 recvs, a reduce and a send up, a recv and 3 sends down,
   * and 8 of credits (up and down, a send and a recv, with its parent and up to 3 children) */
  int64_t estimate = g.k < 2 ? 0 : fs_nccl_mul(fs_nccl_mul(g.first[g.channels], g.k), 17);
  if (estimate > FS_MAX_TASKS) return fs_gen_begin(NAME, g.k, estimate, 0, err);
  if (fs_smp_nodes_init(&g.nodes, NAME, o, err)) return NULL;
  if (shrinks) {
    g.chunk = ll128_tree_chunk(g.total, g.channels, g.k, g.nodes.count);
    lay_out(&g);
  }
  size_t k = (size_t)g.k;
  g.links = malloc(2 * k * sizeof *g.links);
  g.up_last = malloc(k * sizeof *g.up_last), g.down_last = malloc(k * sizeof *g.down_last);
  g.window = fs_nccl_window(o, 1);
  g.credit = malloc(2 * k * ((size_t)g.window + 1) * sizeof *g.credit);
  g.credit_last = malloc(4 * k * sizeof *g.credit_last);
  if (!g.links || !g.up_last || !g.down_last || !g.credit || !g.credit_last) {
    release(&g);
    fs_error_set(err, "%s: out of memory for the trees of %d ranks", NAME, g.k);
    return NULL;
  }
  for (int which = 0; which < 2; which++)
    for (int32_t r = 0; r < g.k; r++) rank_links(&g.nodes, which, r, &g.links[which * k + r]);
  fs_program *p = fs_nccl_generate(NAME, o, estimate, build, begin_flow, &g, err);
  release(&g);
  return p;
}
