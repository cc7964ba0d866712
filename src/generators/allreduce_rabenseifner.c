/* allreduce_rabenseifner.c: `gen allreduce-rabenseifner`: Rabenseifner's
 * allreduce as MPICH runs it (MPIR_Allreduce_intra_reduce_scatter_allgather;
 * Fennel thesis §5.2.2, eq. 5.4): a reduce-scatter by recursive halving,
 * then an allgather by recursive doubling, among pof2 = 2^floor(log2 N)
 * ranks, with MPICH's collapse and expand of the first 2*rem ranks
 * (rem = N - pof2).
 *
 * Collapse: even r < 2*rem sends its vector to r+1, which receives it into
 * a temporary and reduces it (S bytes); the odd one takes newrank r/2, a
 * rank r >= 2*rem newrank r - rem. The vector is split into pof2 blocks as
 * MPICH's cnts (S/pof2, the remainder on the first blocks).
 *
 * Reduce-scatter, mask = 1, 2, .., pof2/2: newrank q exchanges with
 * q ^ mask (rank 2*dst+1 below rem, else dst + rem) as one MPIC_Sendrecv:
 * the lower q keeps the lower half of its current range and sends the
 * upper, the higher q the reverse; it receives the kept half into a
 * temporary and reduces it (a compute of those bytes). MPICH's send_idx,
 * recv_idx and last_idx are followed exactly. Allgather, mask = pof2/2,
 * .., 1: the reverse exchanges, each receiving into the buffer. Expand:
 * odd r < 2*rem sends the result to r-1.
 *
 * MPICH asserts count >= pof2 (it runs recursive doubling below that);
 * here S < pof2 runs the same schedule with empty blocks (0-byte messages).
 *
 * Per rank and step: recv, send, reduce. Each step's messages wait for what
 * the rank's previous step ended with (its reduce in the reduce-scatter,
 * its recv and send in the allgather); the reduce waits for both halves of
 * its Sendrecv; the expand's recv waits for the rank's collapse send (it
 * overwrites what that send read). All tag 0 (MPIR_ALLREDUCE_TAG; the
 * dependencies order every channel). With L = log2(pof2):
 * 5 L pof2 + 5 rem tasks and 8 L pof2 - 4 pof2 + 6 rem dependencies (none
 * at N = 1). Labels collapse, reduce-scatter<k>, allgather<k>, expand. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "allreduce-rabenseifner";

/* MPICH's indices of one newrank, and what its next step waits for. */
typedef struct halving {
  int32_t send_idx, recv_idx, last_idx;
  int32_t after[2];
  int after_count;
} halving;

typedef struct rabenseifner {
  fs_program *p;
  const fs_generator_options *o;
  int32_t pof2, rem;
  halving *h;        /* per newrank */
  int32_t *collapse; /* per pair i < rem: even rank 2i's collapse send */
  int failed;
} rabenseifner;

static int32_t real_rank(const rabenseifner *g, int32_t q) {
  return q < g->rem ? 2 * q + 1 : q + g->rem;
}

/* Bytes of blocks [first, end): MPICH's cnts are S/pof2 plus one on the
 * first S % pof2 blocks. */
static int64_t bytes_of(const rabenseifner *g, int32_t first, int32_t end) {
  int64_t each = g->o->size / g->pof2, extra = g->o->size % g->pof2;
  int64_t before_end = end * each + (end < extra ? end : extra);
  int64_t before_first = first * each + (first < extra ? first : extra);
  return before_end - before_first;
}

static void depend(rabenseifner *g, int32_t task, int32_t on) {
  if (!g->failed) g->failed = fs_program_depend(g->p, task, on, FS_AFTER_END) != 0;
}

static void depend_after(rabenseifner *g, int32_t task, const halving *h) {
  for (int k = 0; k < h->after_count; k++) depend(g, task, h->after[k]);
}

/* A send or recv of blocks [first, end) with its data-flow action. */
static int32_t message(rabenseifner *g, fs_task_kind kind, int32_t rank, int32_t peer,
                       int32_t first, int32_t end, fs_flow_action action, int32_t label) {
  int32_t t = fs_gen_message(g->p, kind, rank, peer, bytes_of(g, first, end), label);
  g->failed |= t < 0 || fs_gen_flow_range(g->o, t, action, first, end - first) != 0;
  return t;
}

/* A reduce of blocks [first, end): --reduce-time, or a compute of their bytes. */
static int32_t reduce(rabenseifner *g, int32_t rank, int32_t first, int32_t end, int32_t label) {
  int32_t t = fs_gen_add(g->p, FS_COMPUTE, rank, label);
  if (t >= 0 && g->o->has_reduce_time)
    fs_task_set_time(g->p, t, g->o->reduce_time);
  else if (t >= 0)
    fs_task_set_size(g->p, t, bytes_of(g, first, end));
  g->failed |= t < 0 || fs_gen_flow_range(g->o, t, FS_FLOW_COMBINE, first, end - first) != 0;
  return t;
}

static void add_collapse(rabenseifner *g) {
  int32_t label = fs_gen_label(g->p, "collapse");
  for (int32_t i = 0; i < g->rem && !g->failed; i++) {
    g->collapse[i] = message(g, FS_SEND, 2 * i, 2 * i + 1, 0, g->pof2, FS_FLOW_READ, label);
    int32_t recv = message(g, FS_RECV, 2 * i + 1, 2 * i, 0, g->pof2, FS_FLOW_TEMP, label);
    int32_t sum = reduce(g, 2 * i + 1, 0, g->pof2, label);
    depend(g, sum, recv);
    g->h[i].after[0] = sum;
    g->h[i].after_count = 1;
  }
}

/* One Sendrecv of newrank q with its partner: blocks [send_from, send_end)
 * out, [recv_from, recv_end) in; a reduce of those when `reducing`. */
static void exchange(rabenseifner *g, int32_t q, int32_t partner, int32_t send_from,
                     int32_t send_end, int32_t recv_from, int32_t recv_end, int reducing,
                     int32_t label) {
  int32_t rank = real_rank(g, q), peer = real_rank(g, partner);
  halving *h = &g->h[q];
  int32_t recv = message(g, FS_RECV, rank, peer, recv_from, recv_end,
                         reducing ? FS_FLOW_TEMP : FS_FLOW_WRITE, label);
  int32_t send = message(g, FS_SEND, rank, peer, send_from, send_end, FS_FLOW_READ, label);
  if (g->failed) return;
  depend_after(g, recv, h);
  depend_after(g, send, h);
  h->after[0] = recv, h->after[1] = send, h->after_count = 2;
  if (!reducing) return;
  int32_t sum = reduce(g, rank, recv_from, recv_end, label);
  depend(g, sum, recv);
  depend(g, sum, send);
  h->after[0] = sum, h->after_count = 1;
}

/* Recursive halving step `mask` (MPICH's first loop). */
static void reduce_scatter_step(rabenseifner *g, int32_t mask, int32_t label) {
  int32_t half = g->pof2 / (mask * 2);
  for (int32_t q = 0; q < g->pof2 && !g->failed; q++) {
    halving *h = &g->h[q];
    int32_t partner = q ^ mask;
    if (q < partner) {
      h->send_idx = h->recv_idx + half;
      exchange(g, q, partner, h->send_idx, h->last_idx, h->recv_idx, h->send_idx, 1, label);
    } else {
      h->recv_idx = h->send_idx + half;
      exchange(g, q, partner, h->send_idx, h->recv_idx, h->recv_idx, h->last_idx, 1, label);
    }
    h->send_idx = h->recv_idx;
    if (mask * 2 < g->pof2) h->last_idx = h->recv_idx + g->pof2 / (mask * 2);
  }
}

/* Recursive doubling step `mask` (MPICH's second loop). */
static void allgather_step(rabenseifner *g, int32_t mask, int32_t label) {
  int32_t half = g->pof2 / (mask * 2);
  for (int32_t q = 0; q < g->pof2 && !g->failed; q++) {
    halving *h = &g->h[q];
    int32_t partner = q ^ mask;
    if (q < partner) {
      if (mask != g->pof2 / 2) h->last_idx += half;
      h->recv_idx = h->send_idx + half;
      exchange(g, q, partner, h->send_idx, h->recv_idx, h->recv_idx, h->last_idx, 0, label);
    } else {
      h->recv_idx = h->send_idx - half;
      exchange(g, q, partner, h->send_idx, h->last_idx, h->recv_idx, h->send_idx, 0, label);
      h->send_idx = h->recv_idx;
    }
  }
}

static void add_expand(rabenseifner *g) {
  int32_t label = fs_gen_label(g->p, "expand");
  for (int32_t i = 0; i < g->rem && !g->failed; i++) {
    int32_t send = message(g, FS_SEND, 2 * i + 1, 2 * i, 0, g->pof2, FS_FLOW_READ, label);
    int32_t recv = message(g, FS_RECV, 2 * i, 2 * i + 1, 0, g->pof2, FS_FLOW_WRITE, label);
    if (g->failed) return;
    depend_after(g, send, &g->h[i]);
    depend(g, recv, g->collapse[i]);
  }
}

fs_program *fs_generate_allreduce_rabenseifner(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return NULL;
  int32_t n = o->ranks, pof2 = (int32_t)1 << fs_gen_floor_log2(n), steps = fs_gen_floor_log2(n);
  int32_t rem = n - pof2;
  int64_t tasks = 5 * (int64_t)steps * pof2 + 5 * (int64_t)rem;
  int64_t dependencies = steps ? (8 * (int64_t)steps - 4) * pof2 + 6 * (int64_t)rem : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  rabenseifner g = {p,
                    o,
                    pof2,
                    rem,
                    calloc((size_t)pof2, sizeof(halving)),
                    malloc((size_t)(rem + 1) * sizeof(int32_t)),
                    0};
  g.failed = !g.h || !g.collapse;
  g.failed |= fs_gen_flow_begin(o, FS_COLLECTIVE_ALLREDUCE, 0, pof2, o->size) != 0;
  for (int32_t q = 0; q < pof2 && !g.failed; q++) g.h[q].last_idx = pof2;
  if (rem > 0 && !g.failed) add_collapse(&g);
  for (int32_t k = 0; k < steps && !g.failed; k++)
    reduce_scatter_step(&g, (int32_t)1 << k, fs_gen_label(p, "reduce-scatter%d", k + 1));
  for (int32_t k = 0; k < steps && !g.failed; k++)
    allgather_step(&g, (int32_t)1 << (steps - 1 - k), fs_gen_label(p, "allgather%d", k + 1));
  if (rem > 0 && !g.failed) add_expand(&g);
  free(g.h), free(g.collapse);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, g.failed, o, err);
}
