/* nccl_ring.c: NCCL 2.30.7's ring collectives as generators (`gen
 * allreduce-nccl-ring`, allgather-, reduce-scatter-, bcast- and
 * reduce-nccl-ring), laid out per channel and chunk as its kernels run
 * them (NCCL's device/{all_reduce,all_gather,reduce_scatter,broadcast,
 * reduce}.h, runRing). Ring order is rank order: position i is rank i.
 *
 * Allreduce: each channel's range (nccl_layout.h) is processed in loops of
 * k chunks (k = ranks) of at most --chunk bytes. In a loop, at step s
 * (0 <= s <= 2k-3) position i sends chunk (i-1-s) mod k to i+1 and
 * receives chunk (i-2-s) mod k from i-1; after each receive of steps
 * 0..k-2 (the reduce-scatter half) it reduces the chunk with its own (a
 * compute of the chunk's bytes) before forwarding it at step s+1. Position
 * i's tasks per loop and step: recv s, send s, [reduce s]: 2(k-1) sends,
 * 2(k-1) recvs, k-1 reduces.
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
 * Within a channel a rank's ring steps run in order, the loops too, as a
 * channel's thread block executes them: a step's recv and send both wait
 * for the end of the rank's previous step on that channel (its reduce, or
 * its recv and send), as a sendrecv: NCCL's receive buffers are always
 * posted, so a rendezvous send never waits for its receiver's own send.
 * Broadcast and reduce: a rank's sends form one chain (each also after the
 * piece it forwards arrived, or was reduced), its receives another. NCCL's
 * finer pipelining of slices within a step is not modelled. Messages are tagged
 * with their channel; a reduce is a compute of its chunk's bytes (or
 * --reduce-time). Labels step<s+1> (ring steps) and hop<h+1> (broadcast
 * and reduce: the message from ring position h to h+1, positions counted
 * from where the data starts). */
#include <stdlib.h>

#include "generators/nccl_layout.h"

typedef struct ring {
  fs_collective collective; /* ALLREDUCE, ALLGATHER, REDUCE_SCATTER, BCAST or REDUCE */
  int32_t k, channels, root;
  int32_t slices; /* slices of a chunk (nccl_layout.h) */
  int64_t total;  /* bytes split across channels: the vector, or one rank's block */
  int64_t chunk;
  int64_t first[FS_NCCL_MAX_CHANNELS + 1]; /* pieces (loops) before each channel */
  int32_t *labels;                         /* adding pass: the step labels */
  int32_t window;                          /* slices a sender may run ahead, 0: no limit */
  int32_t *credit;                         /* [r * window + n % window]: the credit recv of
                                              rank r's n-th slice on the channel */
  int64_t *sent, *received;                /* ring loops: per rank, slices on the channel */
  int32_t *last;                           /* [2r], [2r+1]: the last credit send and recv of
                                              the connection from rank r (as sender) */
} ring;

static int32_t modulo(int64_t a, int32_t n) { return (int32_t)(((a % n) + n) % n); }

static int rooted(fs_collective c) { return c == FS_COLLECTIVE_BCAST || c == FS_COLLECTIVE_REDUCE; }

/* Allgather and reduce-scatter: --size is a rank's block. */
static int by_rank(fs_collective c) {
  return c == FS_COLLECTIVE_ALLGATHER || c == FS_COLLECTIVE_REDUCE_SCATTER;
}

/* Flow blocks a piece (loop) holds: the slices of k chunks, or of one
 * piece of each rank's block, or (broadcast, reduce) the piece. */
static int32_t blocks_per_piece(const ring *g) {
  return rooted(g->collective) ? 1 : g->k * g->slices;
}

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
    /* with a credit's send and recv a slice */
    case FS_COLLECTIVE_ALLREDUCE: return 9 * ((int64_t)g->k - 1);
    case FS_COLLECTIVE_ALLGATHER: return 4 * ((int64_t)g->k - 1);
    case FS_COLLECTIVE_REDUCE_SCATTER: return 5 * ((int64_t)g->k - 1);
    case FS_COLLECTIVE_BCAST: return 4; /* at most: a recv, a send, a credit's send and recv */
    default: return 5;                  /* reduce: recv, reduce, send, a credit's send and recv */
  }
}

/* Counts the loops of every channel into g->first; the task estimate. */
static int64_t lay_out(ring *g) {
  g->first[0] = 0;
  for (int32_t c = 0; c < g->channels; c++)
    g->first[c + 1] =
        fs_nccl_add(g->first[c], fs_nccl_loops(channel_bytes(g, c), chunks_per_loop(g), g->chunk));
  int64_t per_rank = fs_nccl_mul(g->first[g->channels], g->k);
  return g->k < 2 ? 0 : fs_nccl_mul(fs_nccl_mul(per_rank, tasks_per_loop(g)), g->slices);
}

/* Flow block of chunk x (a chunk of allreduce, else a rank's block) of
 * piece `piece`. */
static int32_t block_of(const ring *g, int64_t piece, int32_t x, int32_t j) {
  int64_t chunk = piece;
  if (g->collective == FS_COLLECTIVE_ALLREDUCE) chunk = piece * g->k + x;
  if (by_rank(g->collective)) chunk = x * g->first[g->channels] + piece;
  return (int32_t)(chunk * g->slices + j);
}

/* The bytes of slice j of chunk x of loop `loop` on channel c. */
static int64_t bytes_of(const ring *g, int32_t c, int64_t loop, int32_t x, int32_t j) {
  int64_t bytes = g->collective == FS_COLLECTIVE_ALLREDUCE
                      ? fs_nccl_ring_chunk_bytes(channel_bytes(g, c), g->k, g->chunk, loop, x)
                      : fs_nccl_piece_bytes(channel_bytes(g, c), g->chunk, loop);
  return fs_nccl_slice_bytes(bytes, g->chunk, g->slices, j);
}

/* What a rank's next task on the channel waits for: slot[3r] and
 * slot[3r+1] (-1: nothing). */
static void depend_on(fs_nccl_builder *b, int32_t t, const int32_t *slot, int32_t r) {
  fs_nccl_depend(b, t, slot[3 * r]);
  fs_nccl_depend(b, t, slot[3 * r + 1]);
}

/* The send of slice j of step s (chunk i-offset-s to i+1) by position i,
 * after the rank's previous operation (slot[3i], slot[3i+1]). */
static int32_t ring_send(fs_nccl_builder *b, const ring *g, int32_t *slot, int32_t c, int64_t loop,
                         int32_t s, int32_t j, int32_t i) {
  int32_t k = g->k, offset = g->collective == FS_COLLECTIVE_ALLGATHER ? 0 : 1;
  int32_t out = modulo((int64_t)i - offset - s, k), label = g->labels ? g->labels[s] : 0;
  int64_t piece = g->first[c] + loop;
  int32_t send = fs_nccl_task(b, FS_SEND, i, modulo(i + 1, k), c, bytes_of(g, c, loop, out, j),
                              FS_FLOW_READ, block_of(g, piece, out, j), label);
  depend_on(b, send, slot, i);
  int64_t n = g->sent[i]++;
  if (g->window && n >= g->window)
    fs_nccl_depend(b, send, g->credit[(int64_t)i * g->window + n % g->window]);
  slot[3 * i] = send, slot[3 * i + 1] = -1;
  return send;
}

/* Position i's operation on slice j of the chunk it receives at step s of
 * loop `loop` on channel c, as a channel's thread block runs it (NCCL's
 * recvReduceSend and kin, one slice at a time): the recv of the slice
 * (chunk i-1-offset-s from i-1), in the reduce half a reduce of it with the
 * rank's own, then (but in the last step) the send of what it holds now,
 * the same slice of step s+1. The recv waits only for the rank's previous
 * recv on the channel (NCCL's FIFO is always posted: a receive is never
 * posted after a send, so rendezvous sends run); the reduce, or the send
 * when there is none, for the recv and the rank's previous operation. */
static void ring_op(fs_nccl_builder *b, const ring *g, int32_t *slot, int32_t c, int64_t loop,
                    int32_t s, int32_t j, int32_t i) {
  int32_t k = g->k, offset = g->collective == FS_COLLECTIVE_ALLGATHER ? 0 : 1;
  int reduce = g->collective != FS_COLLECTIVE_ALLGATHER && s < k - 1;
  int64_t piece = g->first[c] + loop;
  int32_t in = modulo((int64_t)i - 1 - offset - s, k), label = g->labels ? g->labels[s] : 0;
  int64_t bytes = bytes_of(g, c, loop, in, j);
  int32_t block = block_of(g, piece, in, j);
  int32_t recv = fs_nccl_task(b, FS_RECV, i, modulo(i - 1, k), c, bytes,
                              reduce ? FS_FLOW_TEMP : FS_FLOW_WRITE, block, label);
  fs_nccl_depend(b, recv, slot[3 * i + 2]);
  slot[3 * i + 2] = recv;
  if (reduce) {
    int32_t sum = fs_nccl_task(b, FS_COMPUTE, i, -1, c, bytes, FS_FLOW_COMBINE, block, label);
    fs_nccl_depend(b, sum, recv);
    depend_on(b, sum, slot, i);
    slot[3 * i] = sum, slot[3 * i + 1] = -1;
  } else {
    slot[3 * i + 1] = recv; /* the operation ends with it (a recv before it, with it) */
  }
  if (s + 1 < ring_steps(g)) ring_send(b, g, slot, c, loop, s + 1, j, i);
  /* the slot is free once the operation ends: its credit, if a send waits for it */
  int64_t n = g->received[i]++, total = (g->first[c + 1] - g->first[c]) * ring_steps(g) * g->slices;
  if (g->window && n + g->window < total)
    g->credit[(int64_t)modulo(i - 1, k) * g->window + n % g->window] =
        fs_nccl_credit(b, i, modulo(i - 1, k), c, slot[3 * i], slot[3 * i + 1],
                       g->last + 2 * modulo(i - 1, k));
}

/* Hop h of piece `loop` on channel c: ring position h (counted from where
 * the data starts) sends to h+1, which receives (and reduces). A rank's
 * slot[3r] is its last receive (or reduce), slot[3r+1] its last send: a
 * send waits for both (the piece it forwards, the channel's previous
 * send), a receive for the previous receive only (always posted). */
static void chain_hop(fs_nccl_builder *b, const ring *g, int32_t *slot, int32_t c, int64_t loop,
                      int32_t h) {
  int32_t k = g->k, start = g->collective == FS_COLLECTIVE_BCAST ? g->root : g->root + 1;
  int32_t from = modulo((int64_t)start + h, k), to = modulo((int64_t)start + h + 1, k);
  int32_t block = block_of(g, g->first[c] + loop, 0, 0), label = g->labels ? g->labels[h] : 0;
  int64_t bytes = bytes_of(g, c, loop, 0, 0);
  int reduce = g->collective == FS_COLLECTIVE_REDUCE;
  int32_t send = fs_nccl_task(b, FS_SEND, from, to, c, bytes, FS_FLOW_READ, block, label);
  depend_on(b, send, slot, from);
  if (g->window && loop >= g->window)
    fs_nccl_depend(b, send, g->credit[(int64_t)from * g->window + loop % g->window]);
  slot[3 * from + 1] = send;
  int32_t recv = fs_nccl_task(b, FS_RECV, to, from, c, bytes, reduce ? FS_FLOW_TEMP : FS_FLOW_WRITE,
                              block, label);
  fs_nccl_depend(b, recv, slot[3 * to]);
  slot[3 * to] = recv;
  if (!reduce) return;
  int32_t sum = fs_nccl_task(b, FS_COMPUTE, to, -1, c, bytes, FS_FLOW_COMBINE, block, label);
  fs_nccl_depend(b, sum, recv);
  slot[3 * to] = sum;
}

/* The credits of piece `loop` on channel c once every rank consumed it
 * (forwarded it, or received or reduced it at the end of the chain), when
 * a later piece's send waits for them (piece loop + window exists). */
static void chain_credits(fs_nccl_builder *b, const ring *g, const int32_t *slot, int32_t c,
                          int64_t loop) {
  int32_t k = g->k, start = g->collective == FS_COLLECTIVE_BCAST ? g->root : g->root + 1;
  if (!g->window || loop + g->window >= g->first[c + 1] - g->first[c]) return;
  for (int32_t h = 0; h < k - 1; h++) {
    int32_t from = modulo((int64_t)start + h, k), to = modulo((int64_t)start + h + 1, k);
    int32_t consumed = h + 1 < k - 1 ? slot[3 * to + 1] : slot[3 * to];
    g->credit[(int64_t)from * g->window + loop % g->window] =
        fs_nccl_credit(b, to, from, c, consumed, -1, g->last + 2 * from);
  }
}

static void build(fs_nccl_builder *b, void *state) {
  ring *g = state;
  int32_t k = g->k;
  if (k < 2) return;
  int chain = rooted(g->collective);
  int32_t steps = chain ? k - 1 : ring_steps(g);
  int32_t *slot = malloc(3 * (size_t)k * sizeof *slot);
  g->labels = b->p ? malloc((size_t)steps * sizeof *g->labels) : NULL;
  g->credit = g->window ? malloc((size_t)k * (size_t)g->window * sizeof *g->credit) : NULL;
  g->sent = malloc((size_t)k * sizeof *g->sent);
  g->received = malloc((size_t)k * sizeof *g->received);
  g->last = malloc(2 * (size_t)k * sizeof *g->last);
  if (!slot || (b->p && !g->labels) || (g->window && !g->credit) || !g->sent || !g->received ||
      !g->last) {
    b->failed = 1;
  } else if (b->p) {
    for (int32_t s = 0; s < steps; s++)
      g->labels[s] = fs_nccl_label(b, chain ? "hop" : "step", s + 1);
  }
  for (int32_t c = 0; c < g->channels && !b->failed; c++) {
    for (int32_t r = 0; r < 3 * k; r++) slot[r] = -1;
    for (int32_t r = 0; r < k; r++) g->sent[r] = g->received[r] = 0;
    for (int32_t r = 0; r < 2 * k; r++) g->last[r] = -1;
    for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c] && !b->failed; loop++)
      if (chain) {
        for (int32_t h = 0; h < steps; h++) chain_hop(b, g, slot, c, loop, h);
        chain_credits(b, g, slot, c, loop);
      } else {
        for (int32_t j = 0; j < g->slices; j++) /* the sends of step 0 */
          for (int32_t i = 0; i < k; i++) ring_send(b, g, slot, c, loop, 0, j, i);
        for (int32_t s = 0; s < steps; s++)
          for (int32_t j = 0; j < g->slices; j++)
            for (int32_t i = 0; i < k; i++) ring_op(b, g, slot, c, loop, s, j, i);
      }
  }
  free(slot);
  free(g->labels);
  free(g->credit), free(g->sent), free(g->received), free(g->last);
  g->labels = NULL, g->credit = NULL, g->sent = g->received = NULL, g->last = NULL;
}

/* The flow: every chunk (or piece of a rank's block) a block of its bytes. */
static int begin_flow(const fs_generator_options *o, void *state) {
  const ring *g = state;
  int64_t pieces = g->first[g->channels];
  int32_t root = rooted(g->collective) ? g->root : 0;
  if (g->k < 2 || pieces == 0) /* no tasks: one block, or one a rank */
    return fs_data_flow_begin(o->flow, g->collective, root, by_rank(g->collective) ? g->k : 1,
                              by_rank(g->collective) ? g->total * g->k : g->total);
  int64_t blocks = pieces * blocks_per_piece(g); /* < the tasks: fits */
  if (fs_data_flow_begin(o->flow, g->collective, root, (int32_t)blocks, 0)) return -1;
  for (int32_t c = 0; c < g->channels; c++)
    for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c]; loop++)
      for (int32_t x = 0; x < blocks_per_piece(g) / g->slices; x++)
        for (int32_t j = 0; j < g->slices; j++)
          o->flow->block_size[block_of(g, g->first[c] + loop, x, j)] = bytes_of(g, c, loop, x, j);
  return 0;
}

static fs_program *generate(const char *name, fs_collective collective,
                            const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(name, o, err) || fs_nccl_check(name, o, err)) return NULL;
  int reduces = collective != FS_COLLECTIVE_ALLGATHER && collective != FS_COLLECTIVE_BCAST;
  if (!reduces && fs_gen_refuse_reduce_time(name, o, "it has no reduction", err)) return NULL;
  if (rooted(collective) ? fs_gen_check_root(name, o, err) : fs_gen_refuse_root(name, o, err))
    return NULL;
  if (by_rank(collective) && fs_gen_check_blocks(name, o, err)) return NULL;
  /* FIFO slots a chunk takes: NCCL's chunkSteps */
  int32_t slots = !rooted(collective) && fs_nccl_protocol(o) == FS_PROTOCOL_SIMPLE ? 4 : 1;
  if (fs_nccl_check_slices(name, o, slots, err)) return NULL;
  ring g = {.collective = collective,
            .k = o->ranks,
            .channels = fs_nccl_channels(o),
            .root = o->root,
            .total = o->size};
  g.chunk = fs_nccl_chunk(o, !rooted(collective));
  g.slices = fs_nccl_slices(o, !rooted(collective));
  g.window = fs_nccl_window(o, slots / g.slices);
  if (g.window && !rooted(collective) && g.window <= g.slices) {
    fs_error_set(err, "%s: --fifo %d: a ring's FIFO must hold more than a chunk (%d slot%s) here",
                 name, o->fifo, slots, slots == 1 ? "" : "s");
    return NULL;
  }
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
