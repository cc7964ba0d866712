/* bcast_scatter_rd_allgather.c: `gen bcast-scatter-rd-allgather`: a
 * broadcast of S bytes from --root by a binomial scatter and a
 * recursive-doubling allgather, as MPICH's
 * MPIR_Bcast_intra_scatter_recursive_doubling_allgather (src/mpi/coll/bcast/
 * bcast_intra_scatter_recursive_doubling_allgather.c; its scatter is
 * MPII_Scatter_for_bcast) and Open MPI's
 * ompi_coll_base_bcast_intra_scatter_allgather, which follows it call for
 * call. Any N: both carry the non-power-of-two fix-up (MPICH selects the
 * algorithm for powers of two only).
 *
 * Chunks of ss = ceil(S/N) bytes, chunk j for relative rank j = (rank -
 * root) mod N (the last ones short or empty), as bcast-scatter-allgather:
 * - Scatter, masks m = 2^(R-1) .. 1: relative rank u (a multiple of 2m)
 *   sends to v = u + m the chunks v .. v+m-1 (< N) when they hold bytes
 *   (v*ss < S); blocking calls, each after the rank's previous one.
 * - Allgather, steps m = 1, 2, 4, ... < N: v exchanges with v^m (when that
 *   is a rank; MPIC_Sendrecv: the irecv, then the send, both after the
 *   rank's previous calls) the chunks of its m-aligned subtree for those of
 *   the partner's (clipped to N; 0-byte messages are sent). Where the
 *   partner subtree is cut short by N (its root + m > N), the c = N - root - m
 *   ranks of the subtree that had a partner pass the partner subtree's
 *   chunks on by recursive halving: for t = m/2 .. 1, v sends to v^t when v
 *   < r + c <= v^t and receives from v^t when v^t < r + c <= v (r = v
 *   rounded down to 2t), each a blocking call.
 * S = 0 or N = 1: nothing (MPICH returns). Open MPI switches to the linear
 * broadcast when the element count is below N; not reproduced here (bytes
 * are elements). Tag 0, CPU 0, NIC 0, no compute; labels scatter<r+1>,
 * allgather<i+1> (step m = 2^i with its fix-up). Counted by a dry run of
 * the same walk. Laid out as they run: the scatter round by round, then
 * each step's exchanges and fix-up rounds. Data flow: K = ceil(S/ss)
 * blocks, the non-empty chunks with their sizes; a message carries the
 * non-empty chunks of its range. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "bcast-scatter-rd-allgather";

typedef struct plan {
  const fs_generator_options *o;
  fs_program *p; /* NULL: count only */
  int64_t tasks, dependencies;
  int32_t n, nonempty; /* K */
  int64_t chunk;       /* ss */
  int32_t *last;       /* per relative rank: its latest two tasks (-1: none) */
  int failed;
} plan;

/* Bytes of chunks first .. first+count-1. */
static int64_t chunk_bytes(const plan *b, int64_t first, int64_t count) {
  int64_t start = first * b->chunk, end = (first + count) * b->chunk;
  if (end > b->o->size) end = b->o->size;
  return end > start ? end - start : 0;
}

static void depend(plan *b, int32_t t, int32_t on) {
  if (t < 0 || on < 0) return;
  if (!b->p)
    b->dependencies++;
  else if (fs_program_depend(b->p, t, on, FS_AFTER_END))
    b->failed = 1;
}

/* A send or recv of chunks first .. first+count-1 (clipped to N) between
 * relative ranks, after v's latest calls; `pair`: keep the latest one too
 * (the two halves of a sendrecv). */
static int32_t add(plan *b, fs_task_kind kind, int32_t v, int32_t peer, int64_t first,
                   int64_t count, int32_t label, int pair) {
  if (first + count > b->n) count = b->n - first;
  int32_t *last = &b->last[2 * v], t;
  if (!b->p) {
    t = (int32_t)b->tasks++;
  } else {
    t = fs_gen_message(b->p, kind, fs_gen_absolute(v, b->o->root, b->n),
                       fs_gen_absolute(peer, b->o->root, b->n), chunk_bytes(b, first, count),
                       label);
    int64_t end = first + count < b->nonempty ? first + count : b->nonempty;
    int32_t blocks = end > first ? (int32_t)(end - first) : 0;
    fs_flow_action action = kind == FS_SEND ? FS_FLOW_READ : FS_FLOW_WRITE;
    if (t < 0 || fs_gen_flow_range(b->o, t, action, blocks ? (int32_t)first : 0, blocks))
      b->failed = 1;
  }
  depend(b, t, last[0]), depend(b, t, last[1]);
  if (!pair) last[0] = t, last[1] = -1;
  return t;
}

static void add_scatter(plan *b, const int32_t *labels, int rounds) {
  for (int r = 0; r < rounds && !b->failed; r++) {
    int64_t m = (int64_t)1 << (rounds - 1 - r);
    for (int64_t u = 0; u + m < b->nonempty; u += 2 * m) {
      int32_t v = (int32_t)(u + m);
      add(b, FS_SEND, (int32_t)u, v, v, m, labels[r], 0);
      add(b, FS_RECV, v, (int32_t)u, v, m, labels[r], 0);
    }
  }
}

/* Step m: the exchanges, then the fix-up rounds t = m/2 .. 1. */
static void add_step(plan *b, int64_t m, int32_t label) {
  for (int32_t v = 0; v < b->n && !b->failed; v++) {
    int64_t partner = v ^ m, mine = v & ~(m - 1), theirs = partner & ~(m - 1);
    if (partner >= b->n) continue;
    int32_t *last = &b->last[2 * v];
    int32_t recv = add(b, FS_RECV, v, (int32_t)partner, theirs, m, label, 1);
    int32_t send = add(b, FS_SEND, v, (int32_t)partner, mine, m, label, 1);
    last[0] = recv, last[1] = send;
  }
  for (int64_t t = m / 2; t > 0 && !b->failed; t /= 2)
    for (int32_t v = 0; v < b->n; v++) {
      int64_t mine = v & ~(m - 1), theirs = (v ^ m) & ~(m - 1), c = b->n - mine - m;
      if (theirs + m <= b->n || c <= 0) continue;
      int64_t peer = v ^ t, top = (v & ~(2 * t - 1)) + c;
      if (peer > v && v < top && peer >= top)
        add(b, FS_SEND, v, (int32_t)peer, mine + m, c, label, 0);
      else if (peer < v && peer < top && v >= top)
        add(b, FS_RECV, v, (int32_t)peer, mine + m, c, label, 0);
    }
}

static void add_all(plan *b, const int32_t *scatter, const int32_t *allgather) {
  int rounds = fs_gen_ceil_log2(b->n);
  for (int32_t i = 0; i < 2 * b->n; i++) b->last[i] = -1;
  add_scatter(b, scatter, rounds);
  for (int i = 0; i < rounds && !b->failed; i++) add_step(b, (int64_t)1 << i, allgather[i]);
}

/* Block j = non-empty chunk j (one block of 0 bytes when S = 0). */
static int begin_flow(const plan *b) {
  int32_t blocks = b->nonempty > 0 ? b->nonempty : 1;
  if (fs_gen_flow_begin(b->o, FS_COLLECTIVE_BCAST, b->o->root, blocks, b->o->size)) return -1;
  if (b->o->flow)
    for (int32_t j = 0; j < blocks; j++) b->o->flow->block_size[j] = chunk_bytes(b, j, 1);
  return 0;
}

fs_program *fs_generate_bcast_scatter_rd_allgather(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err) ||
      fs_gen_refuse_reduce_time(NAME, o, "a bcast has no reduction", err))
    return NULL;
  int32_t n = o->ranks;
  plan b = {o, NULL, 0, 0, n, 0, o->size > 0 ? (o->size - 1) / n + 1 : 0, NULL, 0};
  if (o->size > 0) b.nonempty = (int32_t)((o->size - 1) / b.chunk + 1);
  int empty = n == 1 || o->size == 0; /* MPICH: nothing to do */
  if (!(b.last = malloc((size_t)n * 2 * sizeof *b.last))) {
    fs_error_set(err, "%s: out of memory", NAME);
    return NULL;
  }
  int32_t scatter[32], allgather[32];
  for (int i = 0; i < 32; i++) scatter[i] = allgather[i] = -1;
  if (!empty) add_all(&b, scatter, allgather); /* the dry run: counts only */
  int64_t tasks = b.tasks, dependencies = b.dependencies;
  int rounds = fs_gen_ceil_log2(n);
  fs_program *p = b.p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (p) {
    int failed = begin_flow(&b);
    if (!empty && !failed) {
      failed = fs_gen_numbered_labels(p, "scatter", rounds, scatter) ||
               fs_gen_numbered_labels(p, "allgather", rounds, allgather);
      if (!failed) add_all(&b, scatter, allgather);
    }
    p = fs_gen_finish_options(NAME, p, tasks, dependencies, failed || b.failed, o, err);
  }
  free(b.last);
  return p;
}
