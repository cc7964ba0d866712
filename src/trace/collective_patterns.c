/* collective_patterns.c: one-sided programs for the collectives without a
 * generator (see collective_patterns.h). A small builder keeps each rank's
 * last task; a step is a sendrecv after it, joined by a proxy that becomes
 * the rank's last task. Messages carry tag 0: the replay gives every
 * collective instance tags of its own. */
#include "trace/collective_patterns.h"

#include <stdlib.h>
#include <string.h>

typedef struct builder {
  fs_program *p;
  int32_t *last; /* per rank: the task the rank's next one follows */
  int failed;
} builder;

static int begin(builder *b, int32_t ranks, const char *name, fs_error *err) {
  b->failed = 0;
  b->p = fs_program_new(ranks);
  b->last = malloc((size_t)ranks * sizeof *b->last);
  int32_t label = b->p ? fs_program_intern_label(b->p, name, (int64_t)strlen(name)) : -1;
  for (int32_t r = 0; b->last && label >= 0 && r < ranks; r++) {
    b->last[r] = fs_program_add(b->p, FS_START, r);
    if (b->last[r] < 0 || fs_task_set_label(b->p, b->last[r], label)) break;
    if (r == ranks - 1) return 0;
  }
  free(b->last);
  fs_program_free(b->p);
  return fs_error_set(err, "%s: out of memory", name);
}

/* A task on rank after `after` (-1: none). */
static int32_t task_after(builder *b, fs_task_kind kind, int32_t rank, int32_t after) {
  int32_t t = fs_program_add(b->p, kind, rank);
  if (t < 0 || fs_task_set_label(b->p, t, 0) ||
      (after >= 0 && fs_program_depend(b->p, t, after, FS_AFTER_END))) {
    b->failed = 1;
    return -1;
  }
  return t;
}

static int32_t message(builder *b, fs_task_kind kind, int32_t rank, int32_t peer, int64_t bytes,
                       int32_t after) {
  int32_t t = task_after(b, kind, rank, after);
  if (t >= 0) {
    fs_task_set_peer(b->p, t, peer);
    fs_task_set_size(b->p, t, bytes);
  }
  return t;
}

/* One step of rank r, as MPI_Sendrecv: a send of send_bytes to `to` and a
 * recv of recv_bytes from `from` (either -1: none), both after the rank's
 * last task; with reduce, the received bytes are then combined (a compute
 * priced by size). The step's end becomes the rank's last task. */
static void step(builder *b, int32_t r, int32_t to, int64_t send_bytes, int32_t from,
                 int64_t recv_bytes, int reduce) {
  int32_t after = b->last[r], join = task_after(b, FS_PROXY, r, -1);
  int32_t recv = from >= 0 ? message(b, FS_RECV, r, from, recv_bytes, after) : -1;
  int32_t send = to >= 0 ? message(b, FS_SEND, r, to, send_bytes, after) : -1;
  if (join < 0) return;
  if (reduce && recv >= 0) {
    int32_t c = task_after(b, FS_COMPUTE, r, recv);
    if (c >= 0) fs_task_set_size(b->p, c, recv_bytes);
    recv = c;
  }
  if ((recv >= 0 && fs_program_depend(b->p, join, recv, FS_AFTER_END)) ||
      (send >= 0 && fs_program_depend(b->p, join, send, FS_AFTER_END)) ||
      (recv < 0 && send < 0 && fs_program_depend(b->p, join, after, FS_AFTER_END)))
    b->failed = 1;
  b->last[r] = join;
}

static fs_program *finish(builder *b, const char *name, fs_error *err) {
  free(b->last);
  fs_error local;
  if (!b->failed && fs_program_finalize(b->p, &local) == 0) return b->p;
  fs_program_free(b->p);
  fs_error_set(err, "%s: out of memory", name);
  return NULL;
}

fs_program *fs_pattern_gatherv(int32_t ranks, int32_t root, const int64_t *bytes, fs_error *err) {
  builder b;
  if (begin(&b, ranks, "gatherv-linear", err)) return NULL;
  int32_t start = b.last[root], join = task_after(&b, FS_PROXY, root, start);
  for (int32_t r = 0; r < ranks; r++) {
    if (r == root) continue;
    step(&b, r, root, bytes[r], -1, 0, 0);
    int32_t recv = message(&b, FS_RECV, root, r, bytes[r], start); /* all posted at once */
    if (recv >= 0 && join >= 0 && fs_program_depend(b.p, join, recv, FS_AFTER_END)) b.failed = 1;
  }
  return finish(&b, "gatherv-linear", err);
}

fs_program *fs_pattern_scatterv(int32_t ranks, int32_t root, const int64_t *bytes, fs_error *err) {
  builder b;
  if (begin(&b, ranks, "scatterv-linear", err)) return NULL;
  int32_t start = b.last[root], join = task_after(&b, FS_PROXY, root, start);
  for (int32_t i = 1; i < ranks; i++) { /* the root's sends, in rank order after it */
    int32_t to = (root + i) % ranks;
    int32_t send = message(&b, FS_SEND, root, to, bytes[to], start);
    if (send >= 0 && join >= 0 && fs_program_depend(b.p, join, send, FS_AFTER_END)) b.failed = 1;
    step(&b, to, -1, 0, root, bytes[to], 0);
  }
  return finish(&b, "scatterv-linear", err);
}

fs_program *fs_pattern_allgatherv(int32_t ranks, const int64_t *bytes, fs_error *err) {
  builder b;
  if (begin(&b, ranks, "allgatherv-ring", err)) return NULL;
  for (int32_t k = 0; k < ranks - 1;
       k++) /* step k: r passes on block r - k, gets block r - 1 - k */
    for (int32_t r = 0; r < ranks; r++)
      step(&b, r, (r + 1) % ranks, bytes[((r - k) % ranks + ranks) % ranks],
           (r - 1 + ranks) % ranks, bytes[((r - 1 - k) % ranks + 2 * ranks) % ranks], 0);
  return finish(&b, "allgatherv-ring", err);
}

fs_program *fs_pattern_alltoallv(int32_t ranks, const int64_t *const *send, fs_error *err) {
  builder b;
  if (begin(&b, ranks, "alltoallv-pairwise", err)) return NULL;
  for (int32_t k = 1; k < ranks; k++)
    for (int32_t r = 0; r < ranks; r++) {
      int32_t to = (r + k) % ranks, from = (r - k + ranks) % ranks;
      step(&b, r, to, send[r][to], from, send[from][r], 0);
    }
  return finish(&b, "alltoallv-pairwise", err);
}

fs_program *fs_pattern_reduce_scatter(int32_t ranks, const int64_t *bytes, fs_error *err) {
  builder b;
  if (begin(&b, ranks, "reduce-scatter-pairwise", err)) return NULL;
  for (int32_t k = 1; k < ranks; k++)
    for (int32_t r = 0; r < ranks; r++) {
      int32_t to = (r + k) % ranks, from = (r - k + ranks) % ranks;
      step(&b, r, to, bytes[to], from, bytes[r], 1);
    }
  return finish(&b, "reduce-scatter-pairwise", err);
}

fs_program *fs_pattern_scan(int32_t ranks, int64_t bytes, int exclusive, fs_error *err) {
  const char *name = exclusive ? "exscan-doubling" : "scan-doubling";
  builder b;
  if (begin(&b, ranks, name, err)) return NULL;
  for (int64_t d = 1; d < ranks; d *= 2)
    for (int32_t r = 0; r < ranks; r++)
      step(&b, r, r + d < ranks ? (int32_t)(r + d) : -1, bytes, r - d >= 0 ? (int32_t)(r - d) : -1,
           bytes, 1);
  return finish(&b, name, err);
}
