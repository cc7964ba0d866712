/* alltoall_scattered.c: `gen alltoall-scattered`: MPICH's scattered
 * alltoall (MPIR_Alltoall_intra_scattered), S bytes per block, windows of
 * --ways peers (MPIR_CVAR_ALLTOALL_THROTTLE; default 32, MPICH's default).
 *
 * Window k covers the offsets k*w .. min((k+1)*w, N) - 1: rank r posts a
 * recv from (r + offset) mod N for each, then a send to (r - offset) mod N
 * for each, in increasing offset, and waits for all of them before the next
 * window. Offset 0 is the rank itself: MPICH sends that block to itself
 * through the window; here it is a local copy, not a task (as in the other
 * alltoalls), so window 0 has w-1 peers (none when w = 1). With w >= N it
 * is one window: Open MPI's basic linear alltoall (alltoall-linear) op for
 * op.
 *
 * The waitall: a window's first recv requires (FS_AFTER_END) every task of
 * the rank's previous non-empty window; the window's other tasks require
 * the start of that recv (FS_AFTER_START, GOAL's irequires), so they are
 * all posted together the moment the previous window is complete, with
 * 2c + 2c' - 1 dependencies per window of c' peers after one of c instead
 * of (2c)(2c'). The first window has none. All tag 0 (MPIR_ALLTOALL_TAG:
 * each ordered pair of ranks meets once), CPU 0, NIC 0, labels window1 ..
 * windowK (K = ceil(N/w); window1 absent when w = 1). Tasks laid out window
 * by window, rank by rank. 2N(N-1) tasks.
 *
 * Data flow: N*N blocks of S bytes, block s*N + d from rank s to rank d. */
#include "generators/generator_support.h"

static const char NAME[] = "alltoall-scattered";

static int32_t window_of(const fs_generator_options *o) { return o->ways ? o->ways : 32; }

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "an alltoall has no reduction", err)) return -1;
  if (o->ways < 0)
    return fs_error_set(err, "%s: --ways must be at least 1 (peers per window), not %d", NAME,
                        o->ways);
  return fs_gen_check_blocks(NAME, o, err);
}

/* Peers of window k (offsets k*w .. min((k+1)w, N) - 1, without offset 0). */
static int32_t peers_of(int64_t k, int32_t w, int32_t n) {
  int64_t first = k * w, end = first + w < n ? first + w : n;
  return (int32_t)(end - first - (k == 0));
}

/* Dependencies per rank: each non-empty window after the first non-empty one. */
static int64_t dependencies_per_rank(int32_t n, int32_t w) {
  int64_t total = 0;
  int32_t previous = 0;
  for (int64_t k = 0; k * w < n; k++) {
    int32_t c = peers_of(k, w, n);
    if (c == 0) continue;
    if (previous > 0) total += 2 * (int64_t)previous + 2 * (int64_t)c - 1;
    previous = c;
  }
  return total;
}

/* Rank r's window k (c peers), after its previous window's `previous`
 * tasks starting at `after` (previous 0: none). */
static int add_window(fs_program *p, const fs_generator_options *o, int32_t r, int64_t k, int32_t c,
                      int32_t label, int32_t after, int32_t previous) {
  int32_t n = o->ranks, w = window_of(o), first = p->tasks;
  int64_t offset0 = k == 0 ? 1 : k * w;
  for (int32_t i = 0; i < 2 * c; i++) {
    int64_t offset = offset0 + (i < c ? i : i - c);
    int32_t from = (int32_t)((r + offset) % n), to = (int32_t)((r - offset % n + n) % n);
    int32_t t = fs_gen_message(p, i < c ? FS_RECV : FS_SEND, r, i < c ? from : to, o->size, label);
    if (t < 0) return -1;
    for (int32_t j = 0; i == 0 && j < previous; j++)
      if (fs_program_depend(p, t, after + j, FS_AFTER_END)) return -1;
    if (i > 0 && previous > 0 && fs_program_depend(p, t, first, FS_AFTER_START)) return -1;
    if (i < c ? fs_gen_flow_range(o, t, FS_FLOW_WRITE, from * n + r, 1)
              : fs_gen_flow_range(o, t, FS_FLOW_READ, r * n + to, 1))
      return -1;
  }
  return 0;
}

fs_program *fs_generate_alltoall_scattered(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks, w = window_of(o);
  int64_t tasks = 2 * (int64_t)n * (n - 1);
  int64_t dependencies = tasks <= FS_MAX_TASKS ? n * dependencies_per_rank(n, w) : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  /* fs_gen_begin accepted 2N(N-1) tasks, so N*N blocks fit an int32 */
  int failed = fs_gen_flow_begin(o, FS_COLLECTIVE_ALLTOALL, 0, (int32_t)((int64_t)n * n),
                                 fs_gen_alltoall_bytes(o));
  int32_t base = 0, previous = 0; /* the previous non-empty window's tasks and peers */
  for (int64_t k = 0; k * w < n && !failed; k++) {
    int32_t c = peers_of(k, w, n), first = p->tasks;
    if (c == 0) continue;
    int32_t label = fs_gen_label(p, "window%lld", (long long)k + 1);
    failed = label < 0;
    for (int32_t r = 0; r < n && !failed; r++)
      failed = add_window(p, o, r, k, c, label, base + 2 * previous * r, 2 * previous);
    base = first, previous = c;
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
