/* allreduce_elimination.c: `gen allreduce-elimination`: the allreduce of
 * Rabenseifner & Traff, "More Efficient Reduction Algorithms for
 * Non-Power-of-Two Number of Processors in Message-Passing Parallel Systems"
 * (EuroPVM/MPI 2004; Fennel thesis §5.2.2), in
 * its non-overlapping form: the ranks above the largest power of two pof2
 * are eliminated first, then the pof2 survivors run Rabenseifner's
 * reduce-scatter (recursive vector halving, distance doubling) and
 * allgather (vector doubling, distance halving), and the eliminated ranks
 * get the result back. Two-sided, any N >= 1.
 *
 * The vector is split into pof2 blocks (--size S = the whole vector).
 * r = N - pof2 ranks go: t = min(r, pof2 - r) by 3-2 steps on the triples
 * (3i, 3i+1, 3i+2), the other u = r - t by 2-1 steps on the pairs
 * (3t+2j, 3t+2j+1) (3t + 2u <= N: only as many triples as the ranks allow).
 *
 * - 3-2 step (the paper's protocol, p0 p1 p2 = 3i, 3i+1, 3i+2):
 *   eliminate1: p2 sends its upper half to p1 and receives p1's lower half;
 *   each reduces its half. eliminate2: p2 sends the lower partial sum to p0,
 *   p0 sends its own upper half to p1; p0 and p1 reduce. Now p0 holds the
 *   lower half and p1 the upper half of the sum of the three, each once: the
 *   state a pair has after its first halving exchange, so p0 and p1 join
 *   the butterfly as virtual ranks 2i and 2i+1 from its second round on.
 * - 2-1 step: p1 = 3t+2j+1 sends its whole vector to p0 = 3t+2j, which
 *   reduces it (MPICH's collapse) and joins with its whole vector.
 * - butterfly on virtual ranks v (triples first, then the whole-vector
 *   holders in rank order): reduce-scatter<k>, mask 2^(k-1): exchange with
 *   v ^ mask the half of the current range the partner keeps (v & mask: the
 *   upper half), reduce the kept half; round 1 only for the whole-vector
 *   holders. allgather<k> in reverse: exchange the ranges (written).
 * - expand: for a triple the last allgather round becomes the 3-2 step
 *   mirrored: expand1: p0 sends its (lower) result half to p2, p1 its upper
 *   half to p0; expand2: p2 and p1 exchange the halves they lack. For a pair
 *   p0 sends the whole result to p1.
 *
 * Per rank the steps run in sequence as MPI code would: every send and recv
 * of a step requires (FS_AFTER_END) the rank's previous step (its sends and
 * its last reduce or recv); a reduce (a compute of the bytes reduced, or
 * --reduce-time) requires its recv. Tag 0 throughout (every channel's
 * messages are ordered by these chains). Block sizes are S/pof2, the
 * remainder on the first blocks; every message is the sum of its blocks. */
#include <stdlib.h>
#include <string.h>

#include "generators/generator_support.h"

static const char NAME[] = "allreduce-elimination";

enum { FRONTIER_MAX = 4 };

typedef struct elimination {
  const fs_generator_options *o;
  fs_program *p; /* NULL while counting */
  int32_t ranks, pof2, triples, pairs;
  int64_t tasks, dependencies, next_id;
  int failed;
  int32_t label;
  /* per rank: the tasks the next step waits for, and this step's */
  int32_t (*frontier)[FRONTIER_MAX], (*step)[FRONTIER_MAX];
  int8_t *frontier_count, *step_count;
} elimination;

/* Bytes of blocks first .. first+count-1 of the pof2 blocks of S bytes. */
static int64_t block_bytes(const elimination *e, int32_t first, int32_t count) {
  int64_t base = e->o->size / e->pof2, extra = e->o->size % e->pof2;
  int64_t below = extra - first;
  if (below < 0) below = 0;
  if (below > count) below = count;
  return base * count + below;
}

/* The rank behind virtual rank v of the butterfly. */
static int32_t real_rank(const elimination *e, int32_t v) {
  if (v < 2 * e->triples) return 3 * (v / 2) + v % 2;
  int32_t k = v - 2 * e->triples;
  return k < e->pairs ? 3 * e->triples + 2 * k : 3 * e->triples + e->pairs + k;
}

static void remember(elimination *e, int32_t rank, int32_t task) {
  if (e->step_count[rank] < FRONTIER_MAX)
    e->step[rank][e->step_count[rank]++] = task;
  else
    e->failed = 1;
}

/* A task on rank after the rank's previous step (or after `after` alone
 * when it is >= 0: a reduce after its recv). */
static int32_t add_task(elimination *e, fs_task_kind kind, int32_t rank, int32_t after) {
  int needs = after >= 0 ? 1 : e->frontier_count[rank];
  e->tasks++;
  e->dependencies += needs;
  if (!e->p) return (int32_t)e->next_id++;
  int32_t t = fs_gen_add(e->p, kind, rank, e->label);
  if (t < 0) {
    e->failed = 1;
    return -1;
  }
  if (after >= 0) {
    e->failed |= fs_program_depend(e->p, t, after, FS_AFTER_END) != 0;
  } else {
    for (int i = 0; i < needs; i++)
      e->failed |= fs_program_depend(e->p, t, e->frontier[rank][i], FS_AFTER_END) != 0;
  }
  return t;
}

static void flow(elimination *e, int32_t task, fs_flow_action action, int32_t first,
                 int32_t count) {
  if (e->p) e->failed |= fs_gen_flow_range(e->o, task, action, first, count) != 0;
}

static void send(elimination *e, int32_t rank, int32_t to, int32_t first, int32_t count) {
  int32_t t = add_task(e, FS_SEND, rank, -1);
  if (e->p && t >= 0) {
    fs_task_set_peer(e->p, t, to);
    fs_task_set_size(e->p, t, block_bytes(e, first, count));
  }
  flow(e, t, FS_FLOW_READ, first, count);
  remember(e, rank, t);
}

/* A recv written into the buffer, or (reduce) kept and combined by a
 * reduce of the same blocks. */
static void recv(elimination *e, int32_t rank, int32_t from, int32_t first, int32_t count,
                 int reduce) {
  int32_t t = add_task(e, FS_RECV, rank, -1);
  int64_t bytes = block_bytes(e, first, count);
  if (e->p && t >= 0) {
    fs_task_set_peer(e->p, t, from);
    fs_task_set_size(e->p, t, bytes);
  }
  flow(e, t, reduce ? FS_FLOW_TEMP : FS_FLOW_WRITE, first, count);
  if (!reduce) {
    remember(e, rank, t);
    return;
  }
  int32_t c = add_task(e, FS_COMPUTE, rank, t);
  if (e->p && c >= 0) {
    if (e->o->has_reduce_time)
      fs_task_set_time(e->p, c, e->o->reduce_time);
    else
      fs_task_set_size(e->p, c, bytes);
  }
  flow(e, c, FS_FLOW_COMBINE, first, count);
  remember(e, rank, c);
}

/* Starts a step labelled like printf(format, number). */
static void begin_step(elimination *e, const char *format, int number) {
  if (e->p && (e->label = fs_gen_label(e->p, format, number)) < 0) e->failed = 1;
}

/* The step's tasks become what each rank's next step waits for. */
static void end_step(elimination *e) {
  for (int32_t r = 0; r < e->ranks; r++) {
    if (e->step_count[r] == 0) continue;
    for (int i = 0; i < e->step_count[r]; i++) e->frontier[r][i] = e->step[r][i];
    e->frontier_count[r] = e->step_count[r];
    e->step_count[r] = 0;
  }
}

/* Virtual ranks v and v ^ mask exchange halves of their range [first,
 * first + 2*half): the one with the mask bit keeps the upper half. */
static void halving_exchange(elimination *e, int32_t v, int32_t mask, int32_t first, int32_t half) {
  int32_t rank = real_rank(e, v), peer = real_rank(e, v ^ mask);
  int32_t keep = (v & mask) ? first + half : first, give = (v & mask) ? first : first + half;
  send(e, rank, peer, give, half);
  recv(e, rank, peer, keep, half, 1);
}

/* The range virtual rank v holds after the reduce-scatter rounds with
 * masks below `mask` (all of them: mask = pof2). */
static void range_of(const elimination *e, int32_t v, int32_t mask, int32_t *first,
                     int32_t *count) {
  *first = 0;
  *count = e->pof2;
  for (int32_t m = 1; m < mask; m <<= 1) {
    *count /= 2;
    if (v & m) *first += *count;
  }
}

static void eliminate(elimination *e) {
  int32_t half = e->pof2 / 2;
  begin_step(e, "eliminate%d", 1);
  for (int32_t j = 0; j < e->pairs; j++) {
    int32_t low = 3 * e->triples + 2 * j;
    send(e, low + 1, low, 0, e->pof2);
    recv(e, low, low + 1, 0, e->pof2, 1);
  }
  for (int32_t i = 0; i < e->triples; i++) {
    int32_t p1 = 3 * i + 1, p2 = 3 * i + 2;
    send(e, p1, p2, 0, half);
    recv(e, p1, p2, half, half, 1);
    send(e, p2, p1, half, half);
    recv(e, p2, p1, 0, half, 1);
  }
  end_step(e);
  begin_step(e, "eliminate%d", 2);
  for (int32_t i = 0; i < e->triples; i++) {
    int32_t p0 = 3 * i, p1 = p0 + 1, p2 = p0 + 2;
    send(e, p0, p1, half, half);
    recv(e, p0, p2, 0, half, 1);
    recv(e, p1, p0, half, half, 1);
    send(e, p2, p0, 0, half);
  }
  end_step(e);
}

static void butterfly(elimination *e, int rounds) {
  for (int k = 1; k <= rounds; k++) {
    int32_t mask = (int32_t)1 << (k - 1), first, count;
    begin_step(e, "reduce-scatter%d", k);
    for (int32_t v = k == 1 ? 2 * e->triples : 0; v < e->pof2; v++) {
      range_of(e, v, mask, &first, &count);
      halving_exchange(e, v, mask, first, count / 2);
    }
    end_step(e);
  }
  for (int k = rounds; k >= 1; k--) {
    int32_t mask = (int32_t)1 << (k - 1), first, count, peer_first, peer_count;
    begin_step(e, "allgather%d", k);
    for (int32_t v = k == 1 ? 2 * e->triples : 0; v < e->pof2; v++) {
      range_of(e, v, mask * 2, &first, &count);
      range_of(e, v ^ mask, mask * 2, &peer_first, &peer_count);
      send(e, real_rank(e, v), real_rank(e, v ^ mask), first, count);
      recv(e, real_rank(e, v), real_rank(e, v ^ mask), peer_first, peer_count, 0);
    }
    end_step(e);
  }
}

static void expand(elimination *e) {
  int32_t half = e->pof2 / 2;
  begin_step(e, "expand%d", 1);
  for (int32_t i = 0; i < e->triples; i++) {
    int32_t p0 = 3 * i, p1 = p0 + 1, p2 = p0 + 2;
    send(e, p0, p2, 0, half);
    recv(e, p0, p1, half, half, 0);
    send(e, p1, p0, half, half);
    recv(e, p2, p0, 0, half, 0);
  }
  for (int32_t j = 0; j < e->pairs; j++) {
    int32_t low = 3 * e->triples + 2 * j;
    send(e, low, low + 1, 0, e->pof2);
    recv(e, low + 1, low, 0, e->pof2, 0);
  }
  end_step(e);
  begin_step(e, "expand%d", 2);
  for (int32_t i = 0; i < e->triples; i++) {
    int32_t p1 = 3 * i + 1, p2 = p1 + 1;
    send(e, p1, p2, half, half);
    recv(e, p1, p2, 0, half, 0);
    send(e, p2, p1, 0, half);
    recv(e, p2, p1, half, half, 0);
  }
  end_step(e);
}

/* Builds (or with e->p NULL counts) the whole schedule. */
static void build(elimination *e) {
  int rounds = fs_gen_floor_log2(e->pof2);
  memset(e->frontier_count, 0, (size_t)e->ranks);
  memset(e->step_count, 0, (size_t)e->ranks);
  if (e->triples + e->pairs > 0) eliminate(e);
  butterfly(e, rounds);
  if (e->triples + e->pairs > 0) expand(e);
}

fs_program *fs_generate_allreduce_elimination(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_refuse_root(NAME, o, err)) return NULL;
  elimination e;
  memset(&e, 0, sizeof e);
  e.o = o;
  e.ranks = o->ranks;
  e.pof2 = (int32_t)1 << fs_gen_floor_log2(o->ranks);
  int32_t excess = e.ranks - e.pof2;
  e.triples = excess < e.pof2 - excess ? excess : e.pof2 - excess;
  e.pairs = excess - e.triples;
  e.frontier = malloc((size_t)e.ranks * sizeof *e.frontier);
  e.step = malloc((size_t)e.ranks * sizeof *e.step);
  e.frontier_count = malloc((size_t)e.ranks);
  e.step_count = malloc((size_t)e.ranks);
  fs_program *p = NULL;
  if (!e.frontier || !e.step || !e.frontier_count || !e.step_count) {
    fs_error_set(err, "%s: out of memory", NAME);
  } else {
    build(&e); /* count */
    int64_t tasks = e.tasks, dependencies = e.dependencies;
    p = fs_gen_begin(NAME, e.ranks, tasks, dependencies, err);
    if (p) {
      e.p = p;
      int failed = fs_gen_flow_begin(o, FS_COLLECTIVE_ALLREDUCE, 0, e.pof2, o->size) != 0;
      e.failed = 0;
      if (!failed) build(&e);
      p = fs_gen_finish_options(NAME, p, tasks, dependencies, failed || e.failed, o, err);
    }
  }
  free(e.frontier);
  free(e.step);
  free(e.frontier_count);
  free(e.step_count);
  return p;
}
