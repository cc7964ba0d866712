/* probe_simulation.c: fennelprobe's experiments (probe_data.h) as small
 * programs run under a model, and the plan fennelprobe runs by default
 * (tools/probe/experiments.c: the same rows in the same order).
 *
 * Every program has all the machine's ranks (the experiment's ranks do
 * the work, the others nothing), so that a contention model places them as
 * the plan says and a per-rank parameter file fits. MPI calls become tasks
 * as follows (a blocking call is a dependency of what follows it on its
 * rank; nonblocking calls take their rank's CPU one after the other, in
 * program order, as their overheads would); all tasks are ready at time 0:
 *   roundtrip a != b  a: send(bytes) -> recv(reply);  b: recv -> send(reply)
 *   roundtrip a == b  send+recv to itself (bytes), then send+recv (reply)
 *   ssend, send_call  b: recv (posted first); a: send
 *   train             a: count sends -> recv(0);  b: count recvs -> send(0)
 *   multicast         a: count non-blocking puts to ranks a+1 .. a+count
 *                     (the multicast generator itself when a is 0 and the
 *                     targets are all the other ranks)
 *   one_to_two        a: send to b, send to c -> recv from b, recv from c;
 *                     b, c: recv -> send(reply)
 *   ring              members m_0 .. m_{k-1}: each a send to m_{i+1} and a
 *                     recv from m_{i-1}; shm: k = count, m_i = a + i; net:
 *                     k = 2 count, m_{2i} = a + i, m_{2i+1} = b + i
 *   memcpy            a compute task of size bytes on a (the compute model
 *                     prices it: rate's gamma per byte)
 * Strided rows set stride= on their sends and recvs (log_n P's l_mw).
 * The pingpong generator is not used: it is puts, not MPI_Send/MPI_Recv.
 *
 * A row's time, from 0: the latest completion (local or remote) of rank
 * a's tasks (for a multicast, its puts' remote completions: the flush;
 * for a send, its return: local and, if rendezvous, matched); ssend: its send's
 * match or completion, whichever is later (a synchronous send returns once
 * its receive has started); ring: the mean over members of each member's
 * latest completion, rounded to the nearest ps. Statistics as fennelprobe:
 * the median of an even count is the midpoint rounded half up, the mean
 * rounded to the nearest ps, ci95 the Student-t half-width. */
#include "fit/probe_simulation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"

/* ---- the plan ---- */

#define LARGEST_SIZE ((int64_t)4 << 20)
#define ALL_PAIRS_UP_TO 16 /* fennelprobe's --pairs default */
#define STRIDE_BLOCK 8
#define STRIDE_STEP 16
#define ONE_TO_TWO_LARGEST ((int64_t)64 << 10)
#define MAX_PLAN_ROWS ((int64_t)1 << 24)

enum size_filter { ALL_SIZES, POSITIVE_SIZES, ONE_TO_TWO_SIZES, STRIDED_SIZES };

int fs_probe_plan_add(fs_probe_plan *plan, const fs_probe_row *row) {
  if (plan->count == plan->capacity) {
    if (plan->capacity >= MAX_PLAN_ROWS) return -1;
    int64_t want = plan->capacity ? plan->capacity * 2 : 256;
    fs_probe_row *rows = realloc(plan->rows, (size_t)want * sizeof *rows);
    if (!rows) return -1;
    plan->rows = rows, plan->capacity = want;
  }
  plan->rows[plan->count++] = *row;
  return 0;
}

void fs_probe_plan_free(fs_probe_plan *plan) {
  free(plan->rows);
  *plan = (fs_probe_plan){0};
}

static int size_fits(int64_t size, int filter) {
  switch (filter) {
    case POSITIVE_SIZES: return size > 0;
    case ONE_TO_TWO_SIZES: return size > 0 && size <= ONE_TO_TWO_LARGEST;
    case STRIDED_SIZES: return size >= 2 * STRIDE_BLOCK && size % STRIDE_BLOCK == 0;
    default: return 1;
  }
}

/* The prototype at sizes 0, 1, 2, 4 .. 4 MiB that the filter keeps;
 * reply_same: reply_bytes = bytes. */
static int sweep(fs_probe_plan *plan, fs_probe_row prototype, int reply_same, int filter) {
  for (int64_t size = 0; size <= LARGEST_SIZE; size = size ? 2 * size : 1) {
    if (!size_fits(size, filter)) continue;
    fs_probe_row r = prototype;
    r.bytes = size;
    if (reply_same) r.reply_bytes = size;
    if (fs_probe_plan_add(plan, &r)) return -1;
  }
  return 0;
}

typedef struct machine {
  int32_t ranks, cores;
} machine;

static int32_t node_of(const machine *m, int32_t rank) { return rank / m->cores; }

static fs_placement placement_of(const machine *m, const int32_t *ranks, int count) {
  for (int i = 1; i < count; i++)
    if (node_of(m, ranks[i]) != node_of(m, ranks[0])) return FS_PLACEMENT_NET;
  return FS_PLACEMENT_SHM;
}

static fs_probe_row pair_row(const machine *m, fs_experiment e, int32_t a, int32_t b) {
  int32_t ranks[2] = {a, b};
  return (fs_probe_row){.experiment = e,
                        .placement = placement_of(m, ranks, 2),
                        .count = 1,
                        .rank_a = a,
                        .rank_b = b,
                        .rank_c = -1};
}

static int roundtrip_pair(fs_probe_plan *plan, const machine *m, int32_t a, int32_t b) {
  fs_probe_row r = pair_row(m, FS_EXPERIMENT_ROUNDTRIP, a, b);
  return sweep(plan, r, 1, ALL_SIZES) || sweep(plan, r, 0, POSITIVE_SIZES);
}

static int strided_roundtrip(fs_probe_plan *plan, const machine *m, int32_t a, int32_t b) {
  fs_probe_row r = pair_row(m, FS_EXPERIMENT_ROUNDTRIP, a, b);
  r.stride = STRIDE_STEP, r.block = STRIDE_BLOCK;
  return sweep(plan, r, 1, STRIDED_SIZES);
}

static int roundtrip_rows(fs_probe_plan *plan, const machine *m, int32_t shm, int32_t net) {
  int failed = sweep(plan, pair_row(m, FS_EXPERIMENT_ROUNDTRIP, 0, 0), 1, ALL_SIZES);
  if (m->ranks <= ALL_PAIRS_UP_TO) {
    for (int32_t a = 0; a < m->ranks && !failed; a++)
      for (int32_t b = a + 1; b < m->ranks && !failed; b++) failed = roundtrip_pair(plan, m, a, b);
  } else {
    if (shm >= 0 && !failed) failed = roundtrip_pair(plan, m, 0, shm);
    if (net >= 0 && !failed) failed = roundtrip_pair(plan, m, 0, net);
  }
  failed = failed || strided_roundtrip(plan, m, 0, 0);
  if (shm >= 0 && !failed) failed = strided_roundtrip(plan, m, 0, shm);
  if (net >= 0 && !failed) failed = strided_roundtrip(plan, m, 0, net);
  return failed ? -1 : 0;
}

static int paired_rows(fs_probe_plan *plan, const machine *m, int32_t shm, int32_t net) {
  static const fs_experiment paired[] = {FS_EXPERIMENT_SSEND, FS_EXPERIMENT_SEND_CALL,
                                         FS_EXPERIMENT_TRAIN};
  static const int32_t train_lengths[] = {1, 2, 4, 8, 16};
  int32_t partners[2] = {shm, net};
  for (int e = 0; e < 3; e++)
    for (int i = 0; i < 2; i++) {
      if (partners[i] < 0) continue;
      fs_probe_row r = pair_row(m, paired[e], 0, partners[i]);
      for (int k = 0; k < (paired[e] == FS_EXPERIMENT_TRAIN ? 5 : 1); k++) {
        if (paired[e] == FS_EXPERIMENT_TRAIN) r.count = train_lengths[k];
        if (sweep(plan, r, 0, ALL_SIZES)) return -1;
      }
    }
  return 0;
}

static int multicast_rows(fs_probe_plan *plan, const machine *m) {
  for (int32_t width = 1; width < m->ranks; width++) {
    int32_t ranks[2] = {0, width}; /* the farthest target decides the placement */
    fs_probe_row r = {.experiment = FS_EXPERIMENT_MULTICAST,
                      .placement = placement_of(m, ranks, 2),
                      .count = width,
                      .rank_a = 0,
                      .rank_b = -1,
                      .rank_c = -1};
    if (sweep(plan, r, 0, ALL_SIZES)) return -1;
  }
  return 0;
}

static int one_to_two(fs_probe_plan *plan, const machine *m, int32_t a, int32_t b, int32_t c) {
  int32_t ranks[3] = {a, b, c};
  fs_probe_row r = {.experiment = FS_EXPERIMENT_ONE_TO_TWO,
                    .placement = placement_of(m, ranks, 3),
                    .count = 1,
                    .rank_a = a,
                    .rank_b = b,
                    .rank_c = c};
  return sweep(plan, r, 0, ONE_TO_TWO_SIZES);
}

static int one_to_two_rows(fs_probe_plan *plan, const machine *m) {
  int32_t last = m->ranks <= ALL_PAIRS_UP_TO ? m->ranks : 3;
  for (int32_t i = 0; i < last; i++)
    for (int32_t j = i + 1; j < last; j++)
      for (int32_t k = j + 1; k < last; k++) /* each member of the triplet as the root */
        if (one_to_two(plan, m, i, j, k) || one_to_two(plan, m, j, i, k) ||
            one_to_two(plan, m, k, i, j))
          return -1;
  return 0;
}

static int ring_rows(fs_probe_plan *plan, const machine *m) {
  int32_t on_first = m->ranks < m->cores ? m->ranks : m->cores;
  for (int32_t tau = 1; tau <= on_first; tau++) {
    fs_probe_row r = {.experiment = FS_EXPERIMENT_RING,
                      .placement = FS_PLACEMENT_SHM,
                      .count = tau,
                      .rank_a = 0,
                      .rank_b = tau > 1 ? 1 : 0,
                      .rank_c = -1};
    if (sweep(plan, r, 1, ALL_SIZES)) return -1;
  }
  int32_t on_second = m->ranks - m->cores < m->cores ? m->ranks - m->cores : m->cores;
  for (int32_t tau = 1; tau <= on_second; tau++) {
    fs_probe_row r = {.experiment = FS_EXPERIMENT_RING,
                      .placement = FS_PLACEMENT_NET,
                      .count = tau,
                      .rank_a = 0,
                      .rank_b = m->cores,
                      .rank_c = -1};
    if (sweep(plan, r, 1, ALL_SIZES)) return -1;
  }
  return 0;
}

int fs_probe_plan_default(fs_probe_plan *plan, int32_t ranks, int32_t cores) {
  *plan = (fs_probe_plan){0};
  if (ranks < 2 || cores < 1) return -1;
  machine m = {ranks, cores};
  int32_t shm = cores > 1 ? 1 : -1, net = ranks > cores ? cores : -1;
  fs_probe_row copy = {.experiment = FS_EXPERIMENT_MEMCPY,
                       .count = 1,
                       .rank_a = 0,
                       .rank_b = -1,
                       .rank_c = -1};
  int failed = sweep(plan, copy, 0, ALL_SIZES) || roundtrip_rows(plan, &m, shm, net) ||
               paired_rows(plan, &m, shm, net) || multicast_rows(plan, &m) ||
               (ranks >= 3 && one_to_two_rows(plan, &m)) || ring_rows(plan, &m);
  if (failed) fs_probe_plan_free(plan);
  return failed ? -1 : 0;
}

/* ---- one row as a program ---- */

typedef struct builder {
  fs_program *p;
  int failed;
} builder;

static int32_t task(builder *b, fs_task_kind kind, int32_t rank, int32_t peer, int64_t bytes,
                    int64_t stride) {
  int32_t t = b->failed ? -1 : fs_program_add(b->p, kind, rank);
  if (t < 0) return b->failed = 1, -1;
  fs_task_set_peer(b->p, t, peer);
  fs_task_set_size(b->p, t, bytes);
  if (stride && fs_task_set_stride(b->p, t, stride)) b->failed = 1;
  return t;
}

static void after(builder *b, int32_t t, int32_t on) {
  if (!b->failed && fs_program_depend(b->p, t, on, FS_AFTER_END)) b->failed = 1;
}

static void build_roundtrip(builder *b, const fs_probe_row *r) {
  int32_t a = r->rank_a, peer = r->rank_b;
  int64_t d = r->stride;
  if (a == peer) {
    int32_t s1 = task(b, FS_SEND, a, a, r->bytes, d), r1 = task(b, FS_RECV, a, a, r->bytes, d);
    int32_t s2 = task(b, FS_SEND, a, a, r->reply_bytes, d);
    int32_t r2 = task(b, FS_RECV, a, a, r->reply_bytes, d);
    after(b, s2, s1), after(b, s2, r1), after(b, r2, s1), after(b, r2, r1);
    return;
  }
  int32_t s1 = task(b, FS_SEND, a, peer, r->bytes, d),
          r2 = task(b, FS_RECV, a, peer, r->reply_bytes, d);
  int32_t r1 = task(b, FS_RECV, peer, a, r->bytes, d),
          s2 = task(b, FS_SEND, peer, a, r->reply_bytes, d);
  after(b, r2, s1), after(b, s2, r1);
}

/* ssend, send_call; returns the send */
static int32_t build_posted_send(builder *b, const fs_probe_row *r) {
  task(b, FS_RECV, r->rank_b, r->rank_a, r->bytes, r->stride);
  return task(b, FS_SEND, r->rank_a, r->rank_b, r->bytes, r->stride);
}

static void build_train(builder *b, const fs_probe_row *r) {
  int32_t a = r->rank_a, peer = r->rank_b, previous = -1;
  int32_t reply = task(b, FS_RECV, a, peer, 0, 0);
  for (int32_t k = 0; k < r->count; k++)
    after(b, reply, task(b, FS_SEND, a, peer, r->bytes, r->stride));
  for (int32_t k = 0; k < r->count; k++) {
    int32_t t = task(b, FS_RECV, peer, a, r->bytes, r->stride);
    if (previous >= 0) after(b, t, previous);
    previous = t;
  }
  after(b, task(b, FS_SEND, peer, a, 0, 0), previous);
}

static void build_multicast(builder *b, const fs_probe_row *r, int32_t ranks) {
  for (int32_t k = 1; k <= r->count; k++)
    task(b, FS_PUT, r->rank_a, (r->rank_a + k) % ranks, r->bytes, r->stride);
}

static void build_one_to_two(builder *b, const fs_probe_row *r) {
  int32_t a = r->rank_a, peers[2] = {r->rank_b, r->rank_c}, sends[2], replies[2];
  for (int i = 0; i < 2; i++) sends[i] = task(b, FS_SEND, a, peers[i], r->bytes, r->stride);
  for (int i = 0; i < 2; i++) {
    replies[i] = task(b, FS_RECV, a, peers[i], r->reply_bytes, 0);
    after(b, replies[i], sends[0]), after(b, replies[i], sends[1]);
  }
  for (int i = 0; i < 2; i++) {
    int32_t received = task(b, FS_RECV, peers[i], a, r->bytes, r->stride);
    after(b, task(b, FS_SEND, peers[i], a, r->reply_bytes, 0), received);
  }
}

static int32_t ring_members(const fs_probe_row *r) {
  return r->placement == FS_PLACEMENT_NET ? 2 * r->count : r->count;
}

static int32_t ring_member(const fs_probe_row *r, int32_t i) {
  if (r->placement == FS_PLACEMENT_NET) return i % 2 ? r->rank_b + i / 2 : r->rank_a + i / 2;
  return r->rank_a + i;
}

static void build_ring(builder *b, const fs_probe_row *r) {
  int32_t k = ring_members(r);
  for (int32_t i = 0; i < k; i++) {
    int32_t me = ring_member(r, i);
    task(b, FS_SEND, me, ring_member(r, (i + 1) % k), r->bytes, r->stride);
    task(b, FS_RECV, me, ring_member(r, (i + k - 1) % k), r->bytes, r->stride);
  }
}

static void build_memcpy(builder *b, const fs_probe_row *r) {
  int32_t t = b->failed ? -1 : fs_program_add(b->p, FS_COMPUTE, r->rank_a);
  if (t < 0)
    b->failed = 1;
  else
    fs_task_set_size(b->p, t, r->bytes);
}

/* The row's ranks exist and fit the experiment; else the message. */
static int check_row(const fs_probe_row *r, int32_t ranks, int64_t index, fs_error *err) {
  const char *bad = NULL;
  int32_t needs_b = r->experiment != FS_EXPERIMENT_MEMCPY &&
                    r->experiment != FS_EXPERIMENT_MULTICAST;
  if (r->rank_a < 0 || r->rank_a >= ranks)
    bad = "rank_a is not a rank of the machine";
  else if (needs_b && (r->rank_b < 0 || r->rank_b >= ranks))
    bad = "rank_b is not a rank of the machine";
  else if (r->bytes < 0 || r->reply_bytes < 0 || r->stride < 0)
    bad = "negative sizes";
  else if (r->count < 1)
    bad = "count < 1";
  else if (r->experiment != FS_EXPERIMENT_ROUNDTRIP && r->experiment != FS_EXPERIMENT_RING &&
           needs_b && r->rank_a == r->rank_b)
    bad = "rank_a and rank_b must differ";
  else if (r->experiment == FS_EXPERIMENT_ONE_TO_TWO &&
           (r->rank_c < 0 || r->rank_c >= ranks || r->rank_c == r->rank_a ||
            r->rank_c == r->rank_b))
    bad = "rank_c must be a third rank";
  else if (r->experiment == FS_EXPERIMENT_MULTICAST && r->count >= ranks)
    bad = "the multicast is wider than the other ranks";
  else if (r->experiment == FS_EXPERIMENT_TRAIN && r->count > 1 << 20)
    bad = "the train is too long";
  else if (r->experiment == FS_EXPERIMENT_RING) {
    int32_t k = ring_members(r);
    for (int32_t i = 0; i < k && !bad; i++)
      if (ring_member(r, i) >= ranks) bad = "the ring's members are not ranks of the machine";
    if (r->placement == FS_PLACEMENT_NET && r->rank_b < r->rank_a + r->count &&
        r->rank_a < r->rank_b + r->count)
      bad = "the net ring's halves overlap (rank_b must be rank_a + count or beyond)";
  }
  if (!bad) return 0;
  return fs_error_set(err, "plan row %lld (%s %lldB, ranks %d,%d,%d, count %d): %s",
                      (long long)index + 1, fs_experiment_name(r->experiment), (long long)r->bytes,
                      r->rank_a, r->rank_b, r->rank_c, r->count, bad);
}

/* The program of the row; *timed is its ssend's send (else -1). */
static fs_program *build(const fs_probe_row *r, int32_t ranks, int32_t *timed, fs_error *err) {
  *timed = -1;
  if (r->experiment == FS_EXPERIMENT_MULTICAST && r->rank_a == 0 && r->count == ranks - 1 &&
      r->stride == 0) {
    fs_generator_options o = {.ranks = ranks, .size = r->bytes, .rounds = 1};
    return fs_generate_multicast(&o, err);
  }
  builder b = {fs_program_new(ranks), 0};
  if (!b.p) return fs_error_set(err, "out of memory"), NULL;
  switch (r->experiment) {
    case FS_EXPERIMENT_ROUNDTRIP: build_roundtrip(&b, r); break;
    case FS_EXPERIMENT_SSEND: *timed = build_posted_send(&b, r); break;
    case FS_EXPERIMENT_SEND_CALL: build_posted_send(&b, r); break;
    case FS_EXPERIMENT_TRAIN: build_train(&b, r); break;
    case FS_EXPERIMENT_MULTICAST: build_multicast(&b, r, ranks); break;
    case FS_EXPERIMENT_ONE_TO_TWO: build_one_to_two(&b, r); break;
    case FS_EXPERIMENT_RING: build_ring(&b, r); break;
    default: build_memcpy(&b, r); break;
  }
  if (b.failed) {
    fs_program_free(b.p);
    return fs_error_set(err, "out of memory"), NULL;
  }
  if (fs_program_finalize(b.p, err)) {
    fs_program_free(b.p);
    return NULL;
  }
  return b.p;
}

/* ---- timing a run ---- */

typedef struct stopwatch {
  fs_time *end, *matched; /* per task; -1: not yet */
  int32_t tasks;
} stopwatch;

static void on_complete(void *state, int32_t t, fs_time at) {
  stopwatch *c = state;
  if (at > c->end[t]) c->end[t] = at;
}

static void on_match(void *state, int32_t send, int32_t recv, fs_time at) {
  (void)recv;
  stopwatch *c = state;
  c->matched[send] = at;
}

static void stopwatch_reset(stopwatch *c) {
  for (int32_t t = 0; t < c->tasks; t++) c->end[t] = c->matched[t] = -1;
}

static fs_time latest_on(const stopwatch *c, const fs_program *p, int32_t rank) {
  fs_time latest = 0;
  for (int32_t t = 0; t < c->tasks; t++)
    if (p->rank[t] == rank && c->end[t] > latest) latest = c->end[t];
  return latest;
}

static fs_time row_time(const stopwatch *c, const fs_program *p, const fs_probe_row *r,
                        int32_t timed) {
  if (timed >= 0) return c->end[timed] > c->matched[timed] ? c->end[timed] : c->matched[timed];
  if (r->experiment != FS_EXPERIMENT_RING) return latest_on(c, p, r->rank_a);
  int32_t k = ring_members(r);
  fs_time total = 0;
  for (int32_t i = 0; i < k; i++) total += latest_on(c, p, ring_member(r, i));
  return (total + k / 2) / k;
}

/* ---- statistics (as fennelprobe's) ---- */

static const double t_table[31] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                   2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                   2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                   2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

/* Student's t, 0.975 quantile: a table, then Cornish-Fisher. */
static double student_t_975(int64_t freedom) {
  if (freedom <= 30) return t_table[freedom < 1 ? 1 : freedom];
  const double z = 1.959963985, d = (double)freedom;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * d * d * d);
}

static int compare_times(const void *a, const void *b) {
  fs_time x = *(const fs_time *)a, y = *(const fs_time *)b;
  return (x > y) - (x < y);
}

static void summarize(fs_time *values, int64_t n, fs_probe_row *r) {
  qsort(values, (size_t)n, sizeof *values, compare_times);
  fs_time sum = 0;
  for (int64_t i = 0; i < n; i++) sum += values[i];
  double mean = (double)sum / (double)n, squares = 0;
  for (int64_t i = 0; i < n; i++)
    squares += ((double)values[i] - mean) * ((double)values[i] - mean);
  r->repetitions = n;
  r->min = values[0];
  r->median = n % 2 ? values[n / 2]
                    : values[n / 2 - 1] + (values[n / 2] - values[n / 2 - 1] + 1) / 2;
  r->mean = (sum + n / 2) / n;
  r->ci95 =
      n < 2 ? 0 : llround(student_t_975(n - 1) * sqrt(squares / (double)(n - 1)) / sqrt((double)n));
}

/* ---- the whole plan ---- */

static int simulate_row(const fs_probe_simulation *s, const fs_probe_row *r, int64_t index,
                        fs_time *samples, fs_probe_row *out, fs_error *err) {
  int32_t timed;
  fs_program *p = build(r, s->ranks, &timed, err);
  if (!p) return -1;
  stopwatch c = {malloc((size_t)p->tasks * sizeof *c.end),
                 malloc((size_t)p->tasks * sizeof *c.matched), p->tasks};
  fs_engine *e = c.end && c.matched ? fs_engine_new(p, s->network, s->compute, err) : NULL;
  fs_observer observer = {.state = &c,
                          .local_complete = on_complete,
                          .remote_complete = on_complete,
                          .matched = on_match};
  int status = e ? 0 : -1;
  if (e && fs_engine_add_observer(e, &observer)) status = fs_error_set(err, "too many observers");
  if (!c.end || !c.matched) fs_error_set(err, "out of memory");
  int64_t runs = s->noise ? s->repetitions : 1;
  for (int64_t k = 0; k < runs && status == 0; k++) {
    stopwatch_reset(&c);
    if (s->noise && fs_engine_set_noise(e, s->noise, s->seed + (uint64_t)k, err)) status = -1;
    int run = status ? FS_RUN_FAILED : fs_engine_run(e, err);
    if (run != FS_RUN_OK) {
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s",
               run == FS_RUN_DEADLOCK ? "the program deadlocked" : err->message);
      status = fs_error_set(err, "simulating row %lld (%s %lldB, ranks %d,%d,%d): %s",
                            (long long)index + 1, fs_experiment_name(r->experiment),
                            (long long)r->bytes, r->rank_a, r->rank_b, r->rank_c, why);
    } else {
      samples[k] = row_time(&c, p, r, timed);
    }
  }
  if (status == 0) {
    *out = *r;
    summarize(samples, runs, out);
    out->line = 0;
  }
  fs_engine_free(e);
  free(c.end);
  free(c.matched);
  fs_program_free(p);
  return status;
}

fs_probe_data *fs_probe_simulate(const fs_probe_simulation *s, const fs_probe_plan *plan,
                                 fs_error *err) {
  if (s->ranks < 1 || (s->noise && s->repetitions < 1))
    return fs_error_set(err, "a probe simulation needs ranks >= 1 and repetitions >= 1"), NULL;
  for (int64_t i = 0; i < plan->count; i++)
    if (check_row(&plan->rows[i], s->ranks, i, err)) return NULL;
  fs_probe_data *d = fs_probe_data_new(s->ranks);
  fs_time *samples = malloc((size_t)(s->noise ? s->repetitions : 1) * sizeof *samples);
  if (!d || !samples || !(d->source = strdup("simulation"))) {
    fs_probe_data_free(d);
    free(samples);
    return fs_error_set(err, "out of memory"), NULL;
  }
  for (int64_t i = 0; i < plan->count; i++) {
    fs_probe_row row;
    if (simulate_row(s, &plan->rows[i], i, samples, &row, err) ||
        (fs_probe_data_add(d, &row) && fs_error_set(err, "out of memory"))) {
      fs_probe_data_free(d);
      free(samples);
      return NULL;
    }
  }
  free(samples);
  return d;
}
