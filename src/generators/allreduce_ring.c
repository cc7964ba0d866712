/* allreduce_ring.c: `gen allreduce-ring`: MPICH's ring allreduce
 * (MPIR_Allreduce_intra_ring, after Baidu's ring allreduce): a ring
 * reduce-scatter, then MPIR_Allgatherv_intra_ring of the reduced blocks.
 *
 * The vector of S bytes is split as MPICH's cnts/displs: N blocks of
 * ceil(S/N) bytes, the last nonempty one holding the rest and any after it
 * empty (S = 10, N = 4: 3 3 3 1; S = 5, N = 4: 2 2 1 0).
 *
 * Reduce-scatter, step i = 0 .. N-2, rank r (MPICH's indices): receive
 * block (r-2-i) mod N from r-1 into a temporary, send block (r-1-i) mod N
 * to r+1 (the one reduced in step i-1), wait for both, reduce the
 * temporary into block (r-2-i) (a compute of that block's bytes; none for
 * an empty block: MPIR_Reduce_local returns at once for count 0). Empty
 * blocks still travel as 0-byte messages, as in MPICH. After step N-2,
 * rank r holds the reduced block r.
 *
 * Allgather, step i = 0 .. N-2, rank r: receive block (r-1-i) from r-1,
 * send block (r-i) to r+1, as one MPIC_Sendrecv; MPICH skips the half of a
 * step whose block is empty (a plain send or recv, or nothing). MPICH also
 * pipelines a block larger than MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE
 * (32 KiB) into chunks of max(smallest block, 32 KiB); this schedule sends
 * each block whole, which is MPICH's with that variable at least ceil(S/N)
 * (and MPICH's default whenever ceil(S/N) <= 32 KiB or all blocks are
 * equal).
 *
 * Per rank and step the tasks are issued recv, send, reduce; every message
 * of a step waits for what the rank's previous step ended with (its reduce,
 * or its recv and send when there was no reduce), as MPICH's blocking
 * calls do. MPICH takes a fresh tag per reduce-scatter step; here all are
 * tag 0, since the dependencies already order every channel. Labels
 * reduce-scatter<i+1> and allgather<i+1>. The counts depend on the empty
 * blocks, so a dry run of the same code counts them before the exact
 * reservation. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "allreduce-ring";

/* What a rank's next operation waits for. */
typedef struct after {
  int32_t task[2];
  int count;
} after;

typedef struct ring {
  fs_program *p; /* NULL in the counting run */
  const fs_generator_options *o;
  int64_t tasks, dependencies;
  int64_t chunk;    /* ceil(S/N): MPICH's cnts[i] before the rest */
  int32_t nonempty; /* blocks with at least one byte */
  after *after;
  int failed;
} ring;

static int64_t block_bytes(const ring *g, int32_t b) {
  int64_t left = g->o->size - b * g->chunk;
  return left <= 0 ? 0 : left < g->chunk ? left : g->chunk;
}

static int32_t modulo(int64_t a, int32_t n) { return (int32_t)(((a % n) + n) % n); }

/* A task of `bytes` doing `action` on `block`; counted only in the
 * counting run. */
static int32_t add_task(ring *g, fs_task_kind kind, int32_t rank, int32_t peer, int32_t block,
                        int64_t bytes, fs_flow_action action, int32_t label) {
  if (!g->p) return (int32_t)g->tasks++;
  int32_t t = kind == FS_COMPUTE ? fs_gen_add(g->p, kind, rank, label)
                                 : fs_gen_message(g->p, kind, rank, peer, bytes, label);
  if (t < 0) return g->failed = 1, -1;
  if (kind == FS_COMPUTE) {
    if (g->o->has_reduce_time)
      fs_task_set_time(g->p, t, g->o->reduce_time);
    else
      fs_task_set_size(g->p, t, bytes);
  }
  g->tasks++;
  g->failed |= fs_gen_flow_range(g->o, t, action, block, 1) != 0;
  return t;
}

static void depend(ring *g, int32_t task, int32_t on) {
  g->dependencies++;
  if (g->p && !g->failed) g->failed |= fs_program_depend(g->p, task, on, FS_AFTER_END) != 0;
}

static void depend_after(ring *g, int32_t task, const after *a) {
  for (int k = 0; k < a->count; k++) depend(g, task, a->task[k]);
}

static void reduce_scatter_step(ring *g, int32_t rank, int32_t i, int32_t label) {
  int32_t n = g->o->ranks, left = modulo(rank - 1, n), right = modulo(rank + 1, n);
  int32_t into = modulo((int64_t)rank - 2 - i, n), from = modulo((int64_t)rank - 1 - i, n);
  int64_t bytes = block_bytes(g, into);
  after *a = &g->after[rank];
  int32_t recv = add_task(g, FS_RECV, rank, left, into, bytes,
                          bytes > 0 ? FS_FLOW_TEMP : FS_FLOW_WRITE, label);
  int32_t send = add_task(g, FS_SEND, rank, right, from, block_bytes(g, from), FS_FLOW_READ, label);
  depend_after(g, recv, a);
  depend_after(g, send, a);
  *a = (after){{recv, send}, 2};
  if (bytes == 0) return;
  int32_t reduce = add_task(g, FS_COMPUTE, rank, -1, into, bytes, FS_FLOW_COMBINE, label);
  depend(g, reduce, recv);
  depend(g, reduce, send);
  *a = (after){{reduce, -1}, 1};
}

static void allgather_step(ring *g, int32_t rank, int32_t i, int32_t label) {
  int32_t n = g->o->ranks;
  int32_t into = modulo((int64_t)rank - 1 - i, n), from = modulo((int64_t)rank - i, n);
  after *a = &g->after[rank], next = {{-1, -1}, 0};
  if (block_bytes(g, into) > 0) {
    int32_t recv = add_task(g, FS_RECV, rank, modulo(rank - 1, n), into, block_bytes(g, into),
                            FS_FLOW_WRITE, label);
    depend_after(g, recv, a);
    next.task[next.count++] = recv;
  }
  if (block_bytes(g, from) > 0) {
    int32_t send = add_task(g, FS_SEND, rank, modulo(rank + 1, n), from, block_bytes(g, from),
                            FS_FLOW_READ, label);
    depend_after(g, send, a);
    next.task[next.count++] = send;
  }
  if (next.count) *a = next;
}

/* A new label "<prefix><i>" (new, so not searched for among the others). */
static int32_t step_label(ring *g, const char *prefix, int32_t i) {
  if (!g->p) return 0;
  char text[32];
  int length = snprintf(text, sizeof text, "%s%d", prefix, i);
  int32_t label = fs_program_add_label(g->p, text, length);
  g->failed |= label < 0;
  return label;
}

/* Both phases; in the counting run (g->p NULL) only counts. */
static void build(ring *g) {
  int32_t n = g->o->ranks;
  for (int32_t r = 0; r < n; r++) g->after[r].count = 0;
  for (int32_t i = 0; i < n - 1 && !g->failed; i++) {
    int32_t label = step_label(g, "reduce-scatter", i + 1);
    for (int32_t r = 0; r < n && !g->failed; r++) reduce_scatter_step(g, r, i, label);
  }
  for (int32_t i = 0; i < n - 1 && !g->failed; i++) {
    int32_t label = step_label(g, "allgather", i + 1);
    for (int32_t r = 0; r < n && !g->failed; r++) allgather_step(g, r, i, label);
  }
}

/* The data flow: N blocks with MPICH's sizes; the empty ones hold no data
 * (the checker skips them), and their 0-byte reduce-scatter messages are
 * plain writes, since MPICH does not reduce a count of 0. */
static int begin_flow(const ring *g) {
  const fs_generator_options *o = g->o;
  if (!o->flow) return 0;
  if (fs_gen_flow_begin(o, FS_COLLECTIVE_ALLREDUCE, 0, o->ranks, o->size)) return -1;
  for (int32_t b = 0; b < o->ranks; b++) o->flow->block_size[b] = block_bytes(g, b);
  return 0;
}

fs_program *fs_generate_allreduce_ring(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return NULL;
  int32_t n = o->ranks;
  ring g = {NULL, o, 0, 0, o->size / n + (o->size % n != 0), 0, NULL, 0};
  g.nonempty = g.chunk ? (int32_t)(o->size / g.chunk + (o->size % g.chunk != 0)) : 0;
  /* (N-1)(2N + 3 nonempty) tasks: refused before a counting run that long */
  int64_t tasks = n > 40000 ? INT64_MAX : ((int64_t)n - 1) * (2 * (int64_t)n + 3 * g.nonempty);
  if (tasks > FS_MAX_TASKS) return fs_gen_begin(NAME, n, tasks, 0, err);
  g.after = malloc((size_t)n * sizeof *g.after);
  if (!g.after) {
    fs_error_set(err, "%s: out of memory", NAME);
    return NULL;
  }
  build(&g); /* counting run: g.tasks == tasks */
  int64_t dependencies = g.dependencies;
  g.p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!g.p) return free(g.after), NULL;
  g.tasks = g.dependencies = 0;
  g.failed = begin_flow(&g) != 0;
  if (!g.failed) build(&g);
  free(g.after);
  return fs_gen_finish_options(NAME, g.p, tasks, dependencies, g.failed, o, err);
}
