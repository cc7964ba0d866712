/* bcast_scatter_allgather.c: `gen bcast-scatter-allgather`: van de Geijn's
 * broadcast of S bytes from --root, as MPICH's
 * MPIR_Bcast_intra_scatter_ring_allgather (src/mpi/coll/bcast/
 * bcast_intra_scatter_ring_allgather.c) with its binomial scatter
 * MPII_Scatter_for_bcast (bcast_utils.c).
 *
 * The message is cut into N chunks of ss = ceil(S/N) bytes: chunk j is bytes
 * [j*ss, min(S, (j+1)*ss)), possibly empty; chunk j belongs to relative rank
 * j = (rank - root) mod N.
 * - Scatter, rounds of mask m = 2^(R-1) .. 1 (R = ceil(log2 N)): relative
 *   rank u, a multiple of 2m, sends to v = u + m the chunks of v's subtree,
 *   bytes [v*ss, min(S, (v+m)*ss)). As in MPICH, a message with no bytes is
 *   neither sent nor received (v*ss >= S): ranks whose chunk is empty take
 *   no part in the scatter. Per rank: the recv, then the sends by decreasing
 *   mask, each a blocking call after the previous one (FS_AFTER_END).
 * - Ring allgather, steps i = 0 .. N-2, one MPIC_Sendrecv each: relative
 *   rank v receives chunk (v-i-1) mod N from v-1 and sends chunk (v-i) mod N
 *   to v+1, 0-byte chunks included (MPICH sends them). Both halves of step
 *   i require the end of both halves of step i-1; step 0 requires the rank's
 *   last scatter call.
 * When S is 0 (or N is 1) MPICH returns at once: the program is empty. All
 * tag 0 (MPIR_BCAST_TAG), CPU 0, NIC 0, no compute; labels scatter<r+1>
 * (round r) and allgather<i+1>. With K = ceil(S/ss) non-empty chunks, 2(K-1)
 * scatter tasks and 2N(N-1) ring tasks; dependencies: K-2 in the scatter
 * chains, 2K for step 0, 4N(N-2) for the later steps (K >= 2; when K is 1
 * neither scatter tasks nor step 0 dependencies). Tasks are laid out as they
 * run: the scatter round by round (the send, then its recv), then the ring
 * step by step (per rank, MPICH's irecv, then isend).
 *
 * Data flow: K blocks, the non-empty chunks with their real sizes (one
 * block of 0 bytes when S is 0: then nothing is sent, and the check cannot
 * pass for N > 1). A scatter message carries chunks v .. min(v+m, K)-1, a
 * ring message its chunk, or no block when the chunk is empty: no rank
 * holds an empty chunk it could forward. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "bcast-scatter-allgather";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_check_root(NAME, o, err)) return -1;
  return fs_gen_refuse_reduce_time(NAME, o, "a bcast has no reduction", err);
}

typedef struct plan {
  const fs_generator_options *o;
  fs_program *p;
  int32_t n;
  int64_t chunk;    /* ss = ceil(S/N) */
  int32_t nonempty; /* K: chunks 0 .. K-1 hold bytes */
  int32_t *last;    /* per relative rank: its latest send or recv, or -1 */
  int32_t *recv;    /* per relative rank: its ring recv of the previous step */
} plan;

/* Bytes of chunks first .. first+count-1 (relative ranks, no wrap). */
static int64_t chunk_bytes(const plan *b, int64_t first, int64_t count) {
  int64_t end = (first + count) * b->chunk, size = b->o->size;
  int64_t start = first * b->chunk;
  if (end > size) end = size;
  return end > start ? end - start : 0;
}

/* A send or recv between relative ranks of chunks first .. first+count-1
 * (no wrap), after the end of the `afters` tasks in `after` (-1: none). */
static int32_t add_message(plan *b, fs_task_kind kind, int32_t v, int32_t peer, int32_t first,
                           int32_t count, int32_t label, const int32_t *after, int afters) {
  int32_t n = b->n, root = b->o->root;
  int32_t t = fs_gen_message(b->p, kind, fs_gen_absolute(v, root, n),
                             fs_gen_absolute(peer, root, n), chunk_bytes(b, first, count), label);
  for (int i = 0; i < afters && t >= 0; i++)
    if (after[i] >= 0 && fs_program_depend(b->p, t, after[i], FS_AFTER_END)) return -1;
  return t;
}

/* Records that t reads (a send) or writes (a recv) the non-empty chunks
 * among first .. first+count-1: none for a 0-byte message. */
static int record(const plan *b, int32_t t, int32_t first, int32_t count) {
  fs_flow_action action = b->p->kind[t] == FS_SEND ? FS_FLOW_READ : FS_FLOW_WRITE;
  int32_t end = first + count < b->nonempty ? first + count : b->nonempty;
  if (end > first) return fs_gen_flow_range(b->o, t, action, first, end - first);
  return fs_gen_flow_blocks(b->o, t, action, &first, 0);
}

/* The binomial scatter, round by round; b->last gets each rank's last call. */
static int add_scatter(plan *b) {
  int rounds = fs_gen_ceil_log2(b->n);
  int32_t labels[32];
  if (fs_gen_numbered_labels(b->p, "scatter", rounds, labels)) return -1;
  for (int r = 0; r < rounds; r++) {
    int32_t m = (int32_t)1 << (rounds - 1 - r);
    for (int64_t u = 0; u + m < b->nonempty; u += 2 * (int64_t)m) {
      int32_t v = (int32_t)(u + m), count = m < b->n - v ? m : b->n - v;
      int32_t send = add_message(b, FS_SEND, (int32_t)u, v, v, count, labels[r], &b->last[u], 1);
      int32_t recv = add_message(b, FS_RECV, v, (int32_t)u, v, count, labels[r], NULL, 0);
      if (send < 0 || recv < 0 || record(b, send, v, count) || record(b, recv, v, count)) return -1;
      b->last[u] = send;
      b->last[v] = recv;
    }
  }
  return 0;
}

/* Ring step i of every rank: recv chunk v-i-1 from v-1, send chunk v-i to
 * v+1, both after the rank's step i-1 (b->last: its send, b->recv: its recv). */
static int add_ring_step(plan *b, int32_t i, int32_t label) {
  int32_t n = b->n;
  for (int32_t v = 0; v < n; v++) {
    int32_t after[2] = {b->recv[v], b->last[v]};
    int32_t left = (v - 1 + n) % n, right = (v + 1) % n;
    int32_t had = (int32_t)(((int64_t)v - i - 1 + 2 * (int64_t)n) % n);
    int32_t recv = add_message(b, FS_RECV, v, left, had, 1, label, after, 2);
    int32_t send = add_message(b, FS_SEND, v, right, (had + 1) % n, 1, label, after, 2);
    /* the send is recorded first: the first record of all (rank 0's send
     * of chunk 0 when the scatter is empty) must name a block, as
     * fs_data_flow_set allocates its block list only for a non-empty one */
    if (recv < 0 || send < 0 || record(b, send, (had + 1) % n, 1) || record(b, recv, had, 1))
      return -1;
    b->recv[v] = recv;
    b->last[v] = send;
  }
  return 0;
}

static int add_ring(plan *b) {
  for (int32_t v = 0; v < b->n; v++) b->recv[v] = -1;
  for (int32_t i = 0; i < b->n - 1; i++) {
    char text[32];
    int length = snprintf(text, sizeof text, "allgather%d", i + 1);
    int32_t label = fs_program_add_label(b->p, text, length);
    if (label < 0 || add_ring_step(b, i, label)) return -1;
  }
  return 0;
}

/* Block j = non-empty chunk j, with its real size (one block when S = 0). */
static int begin_flow(const plan *b) {
  int32_t blocks = b->nonempty > 0 ? b->nonempty : 1;
  if (fs_gen_flow_begin(b->o, FS_COLLECTIVE_BCAST, b->o->root, blocks, b->o->size)) return -1;
  if (b->o->flow)
    for (int32_t j = 0; j < blocks; j++) b->o->flow->block_size[j] = chunk_bytes(b, j, 1);
  return 0;
}

fs_program *fs_generate_bcast_scatter_allgather(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  plan b = {o, NULL, n, o->size > 0 ? (o->size - 1) / n + 1 : 0, 0, NULL, NULL};
  int empty = n == 1 || o->size == 0; /* MPICH: nothing to do */
  if (o->size > 0) b.nonempty = (int32_t)((o->size - 1) / b.chunk + 1);
  int64_t k = b.nonempty;
  int64_t tasks = empty ? 0 : 2 * (k - 1) + 2 * (int64_t)n * (n - 1);
  /* beyond FS_MAX_TASKS fs_gen_begin refuses, and 4N(N-2) could overflow */
  int64_t dependencies =
      empty || tasks > FS_MAX_TASKS ? 0 : (k >= 2 ? 3 * k - 2 : 0) + 4 * (int64_t)n * (n - 2);
  if (!(b.p = fs_gen_begin(NAME, n, tasks, dependencies, err))) return NULL;
  int failed = begin_flow(&b);
  if (!empty && !failed) {
    b.last = malloc((size_t)n * sizeof *b.last);
    b.recv = malloc((size_t)n * sizeof *b.recv);
    failed = !b.last || !b.recv;
    for (int32_t v = 0; v < n && !failed; v++) b.last[v] = -1;
    failed = failed || add_scatter(&b) || add_ring(&b);
  }
  free(b.last);
  free(b.recv);
  return fs_gen_finish_options(NAME, b.p, tasks, dependencies, failed, o, err);
}
