/* nccl_pat.c: NCCL's PAT algorithm ("parallel aggregated trees", NCCL
 * 2.23 and later; read in 2.30.7's PatAGAlgorithm and PatRSAlgorithm) as
 * generators: `gen allgather-nccl-pat` and `reduce-scatter-nccl-pat`,
 * Simple protocol only, as NCCL runs it (one GPU per node).
 *
 * Offsets are relative: offset s of rank r is rank (r+s) mod k's block
 * (k = ranks). Allgather: rank r gets offset s from rank r + low(s) (low:
 * the lowest set bit's value), which holds it at offset s - low(s); so
 * every block travels down a binomial tree, the longest hop first. Every
 * rank runs the same rounds; in a round of distance d it receives the
 * round's offsets from r+d and sends (offset - d) of each to r-d.
 * Reduce-scatter is the mirror, data going the other way in its own round
 * order (below): a rank sends its partial of the round's offsets to r+d
 * and combines what r-d sends into offsets (s - d).
 *
 * Aggregation: with P = k rounded up to a power of two and A the
 * aggregation factor, D = P/A; a round covers A offsets at stride D. A
 * starts at 1 and doubles while the chunk holds 2*A times a channel's
 * bytes of one block (then F = A, the blocks a FIFO slot carries: one
 * message) and then three more times for the 8 FIFO slots, each doubling
 * only while A < k/2. The rounds of allgather:
 *   coarse, for c = A/2 .. 1: distance c*D, offsets (2a+1)*c*D;
 *   fine, for x in 1..D-1 in depth-first preorder of the binomial tree
 *   (the children of x are x + 2^j for 2^j < low(x), j descending; of 0,
 *   all 2^j < D): distance low(x), offsets x + a*D (a < A).
 * Reduce-scatter: fine rounds x = D-1 down to 1, then coarse c = 1 up to
 * A/2. A round's offsets are taken in groups of F (NCCL posts a FIFO
 * slot every F aggregated steps), one message a group, offsets >= k
 * skipped; allgather takes a = 0, 1, ..., reduce-scatter a in bit-reversed
 * descending order (for A = 4: 3, 1, 2, 0). These messages (peer, blocks,
 * order per peer) are NCCL's, checked against its PatAGAlgorithm and
 * PatRSAlgorithm for 2..33 ranks and larger; its steps' finer order
 * within a rank (and its FIFO slot limits) are not modelled.
 *
 * Channels and chunks as nccl_layout.h; NCCL's default chunk for PAT is
 * 512 KiB halved (down to 64 KiB) while k times the channel's bytes of one
 * block is below 32 (allgather) or 16 (reduce-scatter) chunks. The whole
 * schedule runs once per chunk-sized piece of each channel's range.
 *
 * A rank's receives on a channel form one chain, its sends another (NCCL's
 * FIFOs are always posted: a send never waits for its receiver's sends);
 * a send also waits for the receives (allgather) or reduces
 * (reduce-scatter) of the blocks it carries; a reduce-scatter receive is
 * combined by a reduce (a compute of its bytes, or --reduce-time) after it
 * and the rank's previous reduce. Local copies into the output are not
 * modelled (as for the rings). Labels step<t+1>, t the round. */
#include <stdlib.h>

#include "generators/nccl_layout.h"
#include "generators/smp_support.h"

/* NCCL's PAT chunk before shrinking: one Simple FIFO slot. */
#define PAT_CHUNK (512 * 1024)
#define PAT_MIN_CHUNK (64 * 1024)

typedef struct round {
  int64_t distance, start, stride; /* offsets start + a*stride, a < count, below k */
  int32_t count;
} round;

typedef struct pat {
  fs_collective collective; /* ALLGATHER or REDUCE_SCATTER */
  int32_t k, channels;
  int64_t total; /* a rank's block, split across channels */
  int64_t chunk[FS_NCCL_MAX_CHANNELS];
  int64_t first[FS_NCCL_MAX_CHANNELS + 1]; /* pieces before each channel */
  round *rounds;                           /* the channel's rounds while building */
  int32_t *labels;                         /* adding pass: labels by round */
  int32_t *ready;                          /* per offset: what made it available, -1: none */
  int32_t *blocks;                         /* one message's blocks */
  int32_t *offsets;                        /* one message's offsets */
} pat;

static int reduces(const pat *g) { return g->collective == FS_COLLECTIVE_REDUCE_SCATTER; }

static int64_t channel_bytes(const pat *g, int32_t c) {
  return fs_nccl_channel_bytes(g->total, g->channels, c);
}

static int64_t lowbit(int64_t x) { return x & -x; }

static int64_t pow2_up(int32_t k) {
  int64_t p = 1;
  while (p < k) p *= 2;
  return p;
}

/* The chunk of channel c: --chunk, else NCCL's shrink rule for PAT. */
static int64_t pat_chunk(const fs_generator_options *o, const pat *g, int32_t c) {
  if (o->chunk) return o->chunk;
  int64_t traffic = fs_nccl_mul(g->k, channel_bytes(g, c)), chunk = PAT_CHUNK;
  int64_t factor = reduces(g) ? 16 : 32;
  while (chunk > PAT_MIN_CHUNK && chunk * factor > traffic) chunk /= 2;
  return chunk;
}

/* The aggregation factor A of channel c and F, the blocks a message holds. */
static void aggregation(const pat *g, int32_t c, int64_t *agg, int64_t *per_message) {
  int64_t bytes = channel_bytes(g, c), a = 1;
  while (bytes > 0 && g->chunk[c] / bytes / a >= 2 && a < g->k / 2) a *= 2;
  *per_message = a;
  for (int slots = 8; slots > 1 && a < g->k / 2; slots /= 2) a *= 2;
  *agg = a;
}

/* The fine rounds below x in depth-first preorder (children x + 2^j for
 * 2^j < below, j descending); returns the next free index. */
static int64_t preorder(round *r, int64_t n, int64_t x, int64_t below, int64_t d, int64_t a) {
  for (int64_t j = below / 2; j >= 1; j /= 2) {
    r[n++] = (round){j, x + j, d, (int32_t)a};
    n = preorder(r, n, x + j, j, d, a);
  }
  return n;
}

/* Channel c's rounds in allgather order; their number. */
static int64_t allgather_rounds(const pat *g, int32_t c, round *r) {
  int64_t a, f, d, n = 0;
  aggregation(g, c, &a, &f);
  d = pow2_up(g->k) / a;
  for (int64_t s = a / 2; s >= 1; s /= 2)
    r[n++] = (round){s * d, s * d, 2 * s * d, (int32_t)(a / (2 * s))};
  return preorder(r, n, 0, d, d, a);
}

/* Reduce-scatter's order: fine rounds D-1 .. 1, then coarse 1 .. A/2. */
static int64_t pat_rounds(const pat *g, int32_t c, round *r) {
  if (!reduces(g)) return allgather_rounds(g, c, r);
  int64_t a, f, d, n = 0;
  aggregation(g, c, &a, &f);
  d = pow2_up(g->k) / a;
  for (int64_t x = d - 1; x >= 1; x--) r[n++] = (round){lowbit(x), x, d, (int32_t)a};
  for (int64_t s = 1; s < a; s *= 2)
    r[n++] = (round){s * d, s * d, 2 * s * d, (int32_t)(a / (2 * s))};
  return n;
}

/* Reduce-scatter takes a round's offsets in bit-reversed descending order
 * (NCCL's mirrorInvert): the index i of `count` (a power of two) gives the
 * a whose bits are those of count-1-i reversed. */
static int64_t mirrored(int64_t i, int64_t count) {
  int64_t a = 0;
  for (int64_t bit = 1, back = count / 2; bit < count; bit *= 2, back /= 2)
    if (!(i & bit)) a += back;
  return a;
}

static int32_t modulo(int64_t a, int32_t n) { return (int32_t)(((a % n) + n) % n); }

/* Flow block of rank x's piece `piece`. */
static int32_t block_of(const pat *g, int32_t x, int64_t piece) {
  return (int32_t)(x * g->first[g->channels] + piece);
}

/* Rank r's message of round q (index t) for piece `loop` of channel c
 * carrying the m offsets g->offsets: allgather receives them from r+d and
 * sends (offset - d) of each to r-d; reduce-scatter sends them to r+d and
 * receives (offset - d) from r-d, then reduces. chain: the rank's last
 * recv, send and reduce. */
static void message(fs_nccl_builder *b, pat *g, int32_t *chain, int32_t c, int64_t loop, int32_t r,
                    const round *q, int32_t t, int32_t m) {
  int32_t k = g->k, label = g->labels ? g->labels[t] : 0;
  int64_t piece = g->first[c] + loop, d = q->distance;
  int64_t bytes = fs_nccl_piece_bytes(channel_bytes(g, c), g->chunk[c], loop) * m;
  int rs = reduces(g);
  int64_t sent = rs ? 0 : -d, got = rs ? -d : 0; /* what is sent and received, from the offset */
  for (int32_t j = 0; j < m; j++)
    g->blocks[j] = block_of(g, modulo(r + g->offsets[j] + got, k), piece);
  int32_t recv = fs_nccl_task_blocks(b, FS_RECV, r, modulo(r + (rs ? -d : d), k), c, bytes,
                                     rs ? FS_FLOW_TEMP : FS_FLOW_WRITE, g->blocks, m, label);
  fs_nccl_depend(b, recv, chain[0]);
  chain[0] = recv;
  int32_t done = recv;
  if (rs) {
    done =
        fs_nccl_task_blocks(b, FS_COMPUTE, r, -1, c, bytes, FS_FLOW_COMBINE, g->blocks, m, label);
    fs_nccl_depend(b, done, recv);
    fs_nccl_depend(b, done, chain[2]);
    chain[2] = done;
  }
  for (int32_t j = 0; j < m; j++)
    g->blocks[j] = block_of(g, modulo(r + g->offsets[j] + sent, k), piece);
  int32_t send = fs_nccl_task_blocks(b, FS_SEND, r, modulo(r + (rs ? d : -d), k), c, bytes,
                                     FS_FLOW_READ, g->blocks, m, label);
  fs_nccl_depend(b, send, chain[1]);
  chain[1] = send;
  int32_t last = -1;
  for (int32_t j = 0; j < m; j++) { /* what the sent offsets wait for, once each */
    int32_t on = g->ready[g->offsets[j] + sent];
    if (on != last) fs_nccl_depend(b, send, on);
    last = on;
  }
  for (int32_t j = 0; j < m; j++) g->ready[g->offsets[j] + got] = done;
}

/* Rank r's messages of round q: its offsets below k in groups of
 * `per_message` positions (a group whose offsets are all >= k sends
 * nothing). */
static void round_messages(fs_nccl_builder *b, pat *g, int32_t *chain, int32_t c, int64_t loop,
                           int32_t r, const round *q, int32_t t, int64_t per_message) {
  for (int64_t group = 0; group < q->count; group += per_message) {
    int32_t m = 0;
    for (int64_t i = group; i < group + per_message && i < q->count; i++) {
      int64_t a = reduces(g) ? mirrored(i, q->count) : i, s = q->start + a * q->stride;
      if (s < g->k) g->offsets[m++] = (int32_t)s;
    }
    if (m) message(b, g, chain, c, loop, r, q, t, m);
  }
}

/* Rank r's schedule on channel c: every piece, every round. */
static void rank_schedule(fs_nccl_builder *b, pat *g, int32_t c, int32_t r, int64_t rounds,
                          int64_t per_message) {
  int32_t chain[3] = {-1, -1, -1};
  for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c] && !b->failed; loop++) {
    for (int32_t s = 0; s < g->k; s++) g->ready[s] = -1;
    for (int64_t t = 0; t < rounds; t++)
      round_messages(b, g, chain, c, loop, r, &g->rounds[t], (int32_t)t, per_message);
  }
}

static void build(fs_nccl_builder *b, void *state) {
  pat *g = state;
  int32_t k = g->k;
  if (k < 2) return;
  size_t most = (size_t)pow2_up(k); /* rounds: (D-1) + log2 A < P */
  g->rounds = malloc(most * sizeof *g->rounds);
  g->ready = malloc((size_t)k * sizeof *g->ready);
  g->blocks = malloc((size_t)k * sizeof *g->blocks);
  g->offsets = malloc((size_t)k * sizeof *g->offsets);
  g->labels = b->p ? malloc(most * sizeof *g->labels) : NULL;
  if (!g->rounds || !g->ready || !g->blocks || !g->offsets || (b->p && !g->labels)) b->failed = 1;
  int32_t labelled = 0;
  for (int32_t c = 0; c < g->channels && !b->failed; c++) {
    if (g->first[c + 1] == g->first[c]) continue; /* an empty channel */
    int64_t a, f, rounds = pat_rounds(g, c, g->rounds);
    aggregation(g, c, &a, &f);
    for (; b->p && labelled < rounds; labelled++)
      g->labels[labelled] = fs_nccl_label(b, "step", labelled + 1);
    for (int32_t r = 0; r < k && !b->failed; r++) rank_schedule(b, g, c, r, rounds, f);
  }
  free(g->rounds);
  free(g->ready);
  free(g->blocks);
  free(g->offsets);
  free(g->labels);
  g->rounds = NULL, g->ready = g->blocks = g->offsets = g->labels = NULL;
}

/* The flow: each rank's block in pieces, as the channels cut it. */
static int begin_flow(const fs_generator_options *o, void *state) {
  const pat *g = state;
  int64_t pieces = g->first[g->channels];
  if (g->k < 2 || pieces == 0)
    return fs_data_flow_begin(o->flow, g->collective, 0, g->k, g->total * g->k);
  if (fs_data_flow_begin(o->flow, g->collective, 0, (int32_t)(pieces * g->k), 0)) return -1;
  for (int32_t x = 0; x < g->k; x++)
    for (int32_t c = 0; c < g->channels; c++)
      for (int64_t loop = 0; loop < g->first[c + 1] - g->first[c]; loop++)
        o->flow->block_size[block_of(g, x, g->first[c] + loop)] =
            fs_nccl_piece_bytes(channel_bytes(g, c), g->chunk[c], loop);
  return 0;
}

/* NCCL enables PAT only with one GPU a node (nNodes == nRanks): a
 * platform that puts two ranks on a node is refused; 0 or -1 with err. */
static int one_gpu_a_node(const char *name, const fs_generator_options *o, fs_error *err) {
  if (!o->platform || o->ranks < 2) return 0;
  fs_smp_nodes nodes;
  if (fs_smp_nodes_init(&nodes, name, o, err)) return -1;
  int32_t crowded = -1;
  for (int32_t k = 0; k < nodes.count && crowded < 0; k++)
    if (fs_smp_node_size(&nodes, k) > 1) crowded = k;
  int32_t size = crowded < 0 ? 1 : fs_smp_node_size(&nodes, crowded);
  int32_t first = crowded < 0 ? 0 : fs_smp_node_members(&nodes, crowded)[0];
  fs_smp_nodes_free(&nodes);
  if (crowded < 0) return 0;
  return fs_error_set(err,
                      "%s: the platform puts %d ranks on the node of rank %d; NCCL runs PAT only "
                      "with one GPU a node (use the ring, or one core a node)",
                      name, size, first);
}

static fs_program *generate(const char *name, fs_collective collective,
                            const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(name, o, err) || fs_nccl_check(name, o, err)) return NULL;
  if (fs_nccl_protocol(o) != FS_PROTOCOL_SIMPLE) {
    fs_error_set(err, "%s: --protocol must be Simple (NCCL runs PAT only with Simple), not %s",
                 name, fs_protocol_name(o->protocol));
    return NULL;
  }
  if (collective == FS_COLLECTIVE_ALLGATHER &&
      fs_gen_refuse_reduce_time(name, o, "it has no reduction", err))
    return NULL;
  if (fs_gen_refuse_root(name, o, err) || fs_gen_check_blocks(name, o, err) ||
      one_gpu_a_node(name, o, err))
    return NULL;
  pat g = {collective, o->ranks, fs_nccl_channels(o), o->size, {0}, {0}, NULL, NULL, NULL,
           NULL,       NULL};
  for (int32_t c = 0; c < g.channels; c++) {
    g.chunk[c] = pat_chunk(o, &g, c);
    g.first[c + 1] = fs_nccl_add(g.first[c], fs_nccl_loops(channel_bytes(&g, c), 1, g.chunk[c]));
  }
  /* per piece and rank at most k-1 messages each way (and k-1 reduces) */
  int64_t estimate = g.k < 2 ? 0
                             : fs_nccl_mul(fs_nccl_mul(g.first[g.channels], g.k),
                                           (reduces(&g) ? 3 : 2) * ((int64_t)g.k - 1));
  return fs_nccl_generate(name, o, estimate, build, begin_flow, &g, err);
}

fs_program *fs_generate_allgather_nccl_pat(const fs_generator_options *o, fs_error *err) {
  return generate("allgather-nccl-pat", FS_COLLECTIVE_ALLGATHER, o, err);
}

fs_program *fs_generate_reduce_scatter_nccl_pat(const fs_generator_options *o, fs_error *err) {
  return generate("reduce-scatter-nccl-pat", FS_COLLECTIVE_REDUCE_SCATTER, o, err);
}
