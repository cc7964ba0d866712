/* nccl_ring.c: NCCL 2.30.7's ring collectives as generators (`gen
 * allreduce-nccl-ring`, allgather-, reduce-scatter-, bcast- and
 * reduce-nccl-ring), laid out per channel and chunk as its kernels run
 * them (src/device/{all_reduce,all_gather,reduce_scatter,broadcast,
 * reduce}.h, runRing). Ring order is rank order: position i is rank i.
 *
 * Allreduce: each channel's range (nccl_layout.h) is processed in loops of
 * k chunks (k = ranks) of at most --chunk bytes. In a loop, at step s
 * (0 <= s <= 2k-3) position i sends chunk (i-1-s) mod k to i+1 and
 * receives chunk (i-2-s) mod k from i-1; after each receive of steps
 * 0..k-2 (the reduce-scatter half) it reduces the chunk with its own (a
 * compute of the chunk's bytes) before forwarding it at step s+1. Position
 * i's tasks per loop: send 0; then recv s, [reduce s,] send s+1 for
 * s = 0..2k-4; then recv 2k-3: 2(k-1) sends, 2(k-1) recvs, k-1 reduces.
 * Allgather (k-1 steps, the blocks by rank, --size S per rank): at step s
 * position i sends rank (i-s)'s piece and receives rank (i-1-s)'s, no
 * reduce. Reduce-scatter (k-1 steps, S per rank): at step s position i
 * sends its partial of rank (i-1-s)'s block and receives rank (i-2-s)'s,
 * reducing after every receive (the last one is its own block). For these
 * two a channel's range lies within each rank's block and a loop moves one
 * piece of at most --chunk bytes of each rank's block.
 *
 * Broadcast and reduce (--root R): the channel's range in pieces of at most
 * --chunk bytes (Simple: 512 KiB) flows along the ring, pipelined over the
 * pieces: broadcast from the root to the rank before it (the root sends,
 * the others receive, then forward); reduce from the rank after the root
 * (it sends, the others receive, reduce, forward; the root receives and
 * reduces last).
 *
 * Within a channel every rank's tasks form one chain (each waits for the
 * rank's previous task on that channel), the steps of one loop and the
 * loops in order, as a channel's thread block executes them; NCCL's finer
 * pipelining of slices within a step is not modelled. Messages are tagged
 * with their channel; a reduce is a compute of its chunk's bytes (or
 * --reduce-time). Labels step<s+1> (ring steps) and hop<h+1> (broadcast
 * and reduce: the message from ring position h to h+1, positions counted
 * from where the data starts). */
#include <stdlib.h>

#include "generators/nccl_layout.h"

typedef struct ring {
  fs_collective collective; /* ALLREDUCE, ALLGATHER, REDUCE_SCATTER, BCAST or REDUCE */
  int32_t k, channels, root;
  int64_t total; /* bytes split across channels: the vector, or one rank's block */
  int64_t chunk;
  int64_t first[FS_NCCL_MAX_CHANNELS + 1]; /* pieces (loops) before each channel */
  int32_t *labels;                         /* adding pass: the step labels */
} ring;

static int32_t modulo(int64_t a, int32_t n) { return (int32_t)(((a % n) + n) % n); }

static int64_t channel_bytes(const ring *g, int32_t c) {
  return fs_nccl_channel_bytes(g->total, g->channels, c);
}

/* A loop of allreduce moves k chunks; the others one piece. */
static int64_t chunks_per_loop(const ring *g) {
  return g->collective == FS_COLLECTIVE_ALLREDUCE ? g->k : 1;
}

static int32_t ring_steps(const ring *g) {
  return g->collective == FS_COLLECTIVE_ALLREDUCE ? 2 * (g->k - 1) : g->k - 1;
}

/* Tasks of one rank in one loop. */
static int64_t tasks_per_loop(const ring *g) {
  switch (g->collective) {
    case FS_COLLECTIVE_ALLREDUCE: return 5 * ((int64_t)g->k - 1);
    case FS_COLLECTIVE_ALLGATHER: return 2 * ((int64_t)g->k - 1);
    case FS_COLLECTIVE_REDUCE_SCATTER: return 3 * ((int64_t)g->k - 1);
    case FS_COLLECTIVE_BCAST: return 2; /* at most: a recv and a send */
    default: return 3;                  /* reduce: recv, reduce, send */
  }
}

/* Counts the loops of every channel into g->first; the task estimate. */
static int64_t lay_out(ring *g) {
  g->first[0] = 0;
  for (int32_t c = 0; c < g->channels; c++)
    g->first[c + 1] =
        fs_nccl_add(g->first[c], fs_nccl_loops(channel_bytes(g, c), chunks_per_loop(g), g->chunk));
  return g->k < 2 ? 0 : fs_nccl_mul(fs_nccl_mul(g->first[g->channels], g->k), tasks_per_loop(g));
}

/* Flow block of chunk x (a chunk of allreduce, else a rank's block) of
 * piece `piece`. */
static int32_t block_of(const ring *g, int64_t piece, int32_t x) {
  int64_t pieces = g->first[g->channels];
  if (g->collective == FS_COLLECTIVE_ALLREDUCE) return (int32_t)(piece * g->k + x);
  if (g->collective == FS_COLLECTIVE_ALLGATHER || g->collective == FS_COLLECTIVE_REDUCE_SCATTER)
    return (int32_t)(x * pieces + piece);
  return (int32_t)piece;
}

static int64_t bytes_of(const ring *g, int32_t c, int64_t loop, int32_t x) {
  if (g->collective == FS_COLLECTIVE_ALLREDUCE)
    return fs_nccl_ring_chunk_bytes(channel_bytes(g, c), g->k, g->chunk, loop, x);
  return fs_nccl_piece_bytes(channel_bytes(g, c), g->chunk, loop);
}

/* The ranks' last task on the current channel. */
typedef struct chain {
  int32_t *last;
} chain;

static int32_t add(fs_nccl_builder *b, int32_t *last, fs_task_kind kind, int32_t rank, int32_t peer,
                   int32_t c, int64_t bytes, fs_flow_action action, int32_t block, int32_t label) {
  int32_t t = fs_nccl_task(b, kind, rank, peer, c, bytes, action, block, label);
  fs_nccl_depend(b, t, last[rank]);
  last[rank] = t;
  return t;
}

/* Position i's part of ring step s of loop `loop` on channel c: the recv
 * of step s-1 (and its reduce), then the send of step s. */
static void ring_step(fs_nccl_builder *b, const ring *g, int32_t *last, int32_t c, int64_t loop,
                      int32_t s, int32_t i) {
  int32_t k = g->k, steps = ring_steps(g),
          offset = g->collective == FS_COLLECTIVE_ALLGATHER ? 0 : 1;
  int32_t reduces = g->collective == FS_COLLECTIVE_ALLGATHER ? 0 : k - 1;
  int64_t piece = g->first[c] + loop;
  int32_t label = g->labels ? g->labels[s > 0 ? s - 1 : 0] : 0;
  if (s > 0) {
    int32_t x = modulo((int64_t)i - 1 - offset - (s - 1), k);
    int64_t bytes = bytes_of(g, c, loop, x);
    int reduce = s - 1 < reduces;
    add(b, last, FS_RECV, i, modulo(i - 1, k), c, bytes, reduce ? FS_FLOW_TEMP : FS_FLOW_WRITE,
        block_of(g, piece, x), label);
    if (reduce)
      add(b, last, FS_COMPUTE, i, -1, c, bytes, FS_FLOW_COMBINE, block_of(g, piece, x), label);
  }
  if (s < steps) {
    int32_t x = modulo((int64_t)i - offset - s, k);
    label = g->labels ? g->labels[s] : 0;
    add(b, last, FS_SEND, i, modulo(i + 1, k), c, bytes_of(g, c, loop, x), FS_FLOW_READ,
        block_of(g, piece, x), label);
  }
}

/* Hop h of piece `loop` on channel c: ring position h (counted from where
 * the data starts) sends to h+1, which receives (and reduces). */
static void chain_hop(fs_nccl_builder *b, const ring *g, int32_t *last, int32_t c, int64_t loop,
                      int32_t h) {
  int32_t k = g->k, start = g->collective == FS_COLLECTIVE_BCAST ? g->root : g->root + 1;
  int32_t from = modulo((int64_t)start + h, k), to = modulo((int64_t)start + h + 1, k);
  int32_t block = block_of(g, g->first[c] + loop, 0), label = g->labels ? g->labels[h] : 0;
  int64_t bytes = bytes_of(g, c, loop, 0);
  int reduce = g->collective == FS_COLLECTIVE_REDUCE;
  add(b, last, FS_SEND, from, to, c, bytes, FS_FLOW_READ, block, label);
  add(b, last, FS_RECV, to, from, c, bytes, reduce ? FS_FLOW_TEMP : FS_FLOW_WRITE, block, label);
  if (reduce) add(b, last, FS_COMPUTE, to, -1, c, bytes, FS_FLOW_COMBINE, block, label);
}

static void build(fs_nccl_builder *b, void *state) {
  ring *g = state;
  int32_t k = g->k;
  if (k < 2) return;
  int rooted = g->collective == FS_COLLECTIVE_BCAST || g->collective == FS_COLLECTIVE_REDUCE;
  int32_t steps = rooted ? k - 1 : ring_steps(g);
  int32_t *last = malloc((size_t)k * sizeof *last);
  g->labels = b->p ? malloc((size_t)steps * sizeof *g->labels) : NULL;
  if (!last || (b->p && !g->labels)) {
    b->failed = 1;
  } else if (b->p) {
    for (int32_t s = 0; s < steps; s++)
      g->labels[s] = fs_nccl_label(b, rooted ? "hop" : "step", s + 1);
  }
  for (int32_t c = 0; c < g->channels && !b->failed; c++) {
    for (int32_t r = 0; r < k; r++) last[r] = -1;
    for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c] && !b->failed; loop++)
      for (int32_t s = 0; s <= steps - rooted; s++)
        if (rooted)
          chain_hop(b, g, last, c, loop, s);
        else
          for (int32_t i = 0; i < k; i++) ring_step(b, g, last, c, loop, s, i);
  }
  free(last);
  free(g->labels);
  g->labels = NULL;
}

/* The flow: every chunk (or piece of a rank's block) a block of its bytes. */
static int begin_flow(const fs_generator_options *o, void *state) {
  const ring *g = state;
  int64_t pieces = g->first[g->channels];
  int blocks_by_rank = g->collective == FS_COLLECTIVE_ALLGATHER ||
                       g->collective == FS_COLLECTIVE_REDUCE_SCATTER;
  int32_t root =
      g->collective == FS_COLLECTIVE_BCAST || g->collective == FS_COLLECTIVE_REDUCE ? g->root : 0;
  if (g->k < 2 || pieces == 0) /* no tasks: one block, or one a rank */
    return fs_data_flow_begin(o->flow, g->collective, root, blocks_by_rank ? g->k : 1,
                              blocks_by_rank ? g->total * g->k : g->total);
  int64_t blocks = pieces * (blocks_by_rank || g->collective == FS_COLLECTIVE_ALLREDUCE ? g->k : 1);
  if (fs_data_flow_begin(o->flow, g->collective, root, (int32_t)blocks, 0)) return -1;
  for (int32_t c = 0; c < g->channels; c++)
    for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c]; loop++)
      for (int32_t x = 0;
           x < (g->collective == FS_COLLECTIVE_BCAST || g->collective == FS_COLLECTIVE_REDUCE
                    ? 1
                    : g->k);
           x++)
        o->flow->block_size[block_of(g, g->first[c] + loop, x)] = bytes_of(g, c, loop, x);
  return 0;
}

static fs_program *generate(const char *name, fs_collective collective,
                            const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(name, o, err) || fs_nccl_check(name, o, err)) return NULL;
  int reduces = collective != FS_COLLECTIVE_ALLGATHER && collective != FS_COLLECTIVE_BCAST;
  if (!reduces && fs_gen_refuse_reduce_time(name, o, "it has no reduction", err)) return NULL;
  int rooted = collective == FS_COLLECTIVE_BCAST || collective == FS_COLLECTIVE_REDUCE;
  if (rooted ? fs_gen_check_root(name, o, err) : fs_gen_refuse_root(name, o, err)) return NULL;
  int by_rank = collective == FS_COLLECTIVE_ALLGATHER || collective == FS_COLLECTIVE_REDUCE_SCATTER;
  if (by_rank && fs_gen_check_blocks(name, o, err)) return NULL;
  ring g = {collective, o->ranks, fs_nccl_channels(o), o->root, o->size, 0, {0}, NULL};
  g.chunk = fs_nccl_chunk(o, !rooted);
  int64_t estimate = lay_out(&g);
  return fs_nccl_generate(name, o, estimate, build, begin_flow, &g, err);
}

fs_program *fs_generate_allreduce_nccl_ring(const fs_generator_options *o, fs_error *err) {
  return generate("allreduce-nccl-ring", FS_COLLECTIVE_ALLREDUCE, o, err);
}

fs_program *fs_generate_allgather_nccl_ring(const fs_generator_options *o, fs_error *err) {
  return generate("allgather-nccl-ring", FS_COLLECTIVE_ALLGATHER, o, err);
}

fs_program *fs_generate_reduce_scatter_nccl_ring(const fs_generator_options *o, fs_error *err) {
  return generate("reduce-scatter-nccl-ring", FS_COLLECTIVE_REDUCE_SCATTER, o, err);
}

fs_program *fs_generate_bcast_nccl_ring(const fs_generator_options *o, fs_error *err) {
  return generate("bcast-nccl-ring", FS_COLLECTIVE_BCAST, o, err);
}

fs_program *fs_generate_reduce_nccl_ring(const fs_generator_options *o, fs_error *err) {
  return generate("reduce-nccl-ring", FS_COLLECTIVE_REDUCE, o, err);
}
