/* reduce_rabenseifner.c: `gen reduce-rabenseifner`: Rabenseifner's reduce
 * exactly as MPICH's MPIR_Reduce_intra_reduce_scatter_gather
 * (src/mpi/coll/reduce/reduce_intra_reduce_scatter_gather.c): a
 * reduce-scatter by recursive halving, then a binomial gather to the root;
 * any N, any --root, S bytes = the whole vector.
 *
 * With pof2 = 2^floor(log2 N) and rem = N - pof2, MPICH's bytes as elements:
 * - collapse: among ranks 0 .. 2rem-1, each odd rank sends its whole
 *   vector to rank - 1 and drops out; the even rank receives it into a
 *   temporary and reduces all S bytes. Survivors get newrank = rank/2 (even
 *   ranks < 2rem) or rank - rem; newrank v is real rank 2v (v < rem) or
 *   v + rem.
 * - reduce-scatter: the vector is cut into pof2 blocks (cnts: S/pof2, the
 *   first S%pof2 one byte larger; fs_data_flow_begin's default). For mask =
 *   1, 2, ..., pof2/2 each survivor sendrecvs with newrank ^ mask: the lower
 *   newrank keeps the lower half of its window, sends the upper half and
 *   receives the lower, the other the reverse; then it reduces the half it
 *   kept (a compute of those bytes). MPICH's send_idx/recv_idx/last_idx are
 *   transcribed as they are, so newrank v ends with block bitreverse(v).
 * - newroot: when the root is an odd rank < 2rem (it dropped out), rank 0
 *   sends it its block (cnts[0] bytes) and leaves; the root takes newrank 0
 *   (send_idx 0, last_idx 2). newroot = 0 then, else the root's newrank.
 * - gather: for mask = pof2/2 down to 1, a survivor whose partner
 *   (newrank ^ mask) lies in newroot's subtree of size 2*mask sends it the
 *   blocks it holds and leaves; the others receive the partner's blocks
 *   into their buffer (no reduce).
 * MPICH asserts count >= pof2; here S < pof2 is allowed (some blocks, and
 * messages, are 0 bytes).
 *
 * Every MPICH call is blocking, so each rank's tasks form a chain: a
 * sendrecv is its recv then its send (MPIC_Sendrecv posts the irecv first),
 * both requiring the rank's previous task; a reduce requires both halves of
 * its sendrecv (the collapse reduce: its recv); a gather send or recv and
 * the newroot messages require the rank's previous task. All tag 0
 * (MPIR_REDUCE_TAG), CPU 0, NIC 0. Labels: collapse, reduce-scatter<k>,
 * newroot, gather<k> (k = 1 .. log2 pof2). Tasks are laid out stage by
 * stage, ranks in order within a stage.
 *
 * Counts, L = log2 pof2, swap = 1 when the root is an odd rank < 2rem:
 * tasks 3 rem + 3 pof2 L + 2 swap + 2 (pof2 - 1); dependencies rem +
 * (4 pof2 L - 2 (pof2 - rem) when L > 0) + 2 swap + 2 (pof2 - 1). */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "reduce-rabenseifner";

/* MPICH's per-rank variables: newrank (-1: out of the algorithm or done)
 * and the block indices; last is the rank's latest task (-1: none). */
typedef struct rank_state {
  int32_t newrank, send_idx, recv_idx, last_idx, last;
} rank_state;

typedef struct schedule {
  const fs_generator_options *o;
  fs_program *p;
  int32_t n, pof2, rem, steps, newroot;
  int swap; /* the root is an odd rank < 2rem */
  rank_state *rank;
} schedule;

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  return fs_gen_check_root(NAME, o, err);
}

/* The real rank of newrank v (MPICH's dst computation). */
static int32_t real_rank(const schedule *s, int32_t v) { return v < s->rem ? 2 * v : v + s->rem; }

/* Bytes of blocks first .. end-1 (MPICH's sum of cnts). */
static int64_t block_bytes(const schedule *s, int32_t first, int32_t end) {
  int64_t size = s->o->size, larger = size % s->pof2;
  int64_t extra = (end < larger ? end : larger) - first;
  return (end - first) * (size / s->pof2) + (extra > 0 ? extra : 0);
}

/* A send or recv of blocks first .. end-1 by rank to peer, after `after`
 * (-1: nothing), with its data-flow action; the task, or -1. */
static int32_t add_message(schedule *s, fs_task_kind kind, int32_t rank, int32_t peer,
                           int32_t first, int32_t end, int32_t label, fs_flow_action action,
                           int32_t after) {
  int32_t t = fs_gen_message(s->p, kind, rank, peer, block_bytes(s, first, end), label);
  if (t < 0 || (after >= 0 && fs_program_depend(s->p, t, after, FS_AFTER_END)) ||
      fs_gen_flow_range(s->o, t, action, first, end - first))
    return -1;
  return t;
}

/* The reduce of blocks first .. end-1 on rank after `recv` and, when not
 * -1, `send`; the task, or -1. */
static int32_t add_reduce(schedule *s, int32_t rank, int32_t first, int32_t end, int32_t label,
                          int32_t recv, int32_t send) {
  int32_t t = fs_gen_add(s->p, FS_COMPUTE, rank, label);
  if (t < 0) return -1;
  if (s->o->has_reduce_time)
    fs_task_set_time(s->p, t, s->o->reduce_time);
  else
    fs_task_set_size(s->p, t, block_bytes(s, first, end));
  if (fs_program_depend(s->p, t, recv, FS_AFTER_END) ||
      (send >= 0 && fs_program_depend(s->p, t, send, FS_AFTER_END)) ||
      fs_gen_flow_range(s->o, t, FS_FLOW_COMBINE, first, end - first))
    return -1;
  return t;
}

/* The first 2rem ranks: odd ones send everything to rank - 1 and drop out. */
static int collapse(schedule *s, int32_t label) {
  for (int32_t r = 0; r < 2 * s->rem; r += 2) {
    int32_t send = add_message(s, FS_SEND, r + 1, r, 0, s->pof2, label, FS_FLOW_READ, -1);
    int32_t recv = add_message(s, FS_RECV, r, r + 1, 0, s->pof2, label, FS_FLOW_TEMP, -1);
    if (send < 0 || recv < 0) return -1;
    s->rank[r + 1].last = send;
    if ((s->rank[r].last = add_reduce(s, r, 0, s->pof2, label, recv, -1)) < 0) return -1;
  }
  return 0;
}

/* One recursive-halving round of distance mask among the survivors. */
static int reduce_scatter_round(schedule *s, int32_t mask, int32_t label) {
  int32_t half = s->pof2 / (mask * 2);
  for (int32_t r = 0; r < s->n; r++) {
    rank_state *st = &s->rank[r];
    if (st->newrank < 0) continue;
    int32_t newdst = st->newrank ^ mask, send_end, recv_end;
    if (st->newrank < newdst) {
      st->send_idx = st->recv_idx + half;
      send_end = st->last_idx, recv_end = st->send_idx;
    } else {
      st->recv_idx = st->send_idx + half;
      send_end = st->recv_idx, recv_end = st->last_idx;
    }
    int32_t dst = real_rank(s, newdst), before = st->last;
    int32_t recv =
        add_message(s, FS_RECV, r, dst, st->recv_idx, recv_end, label, FS_FLOW_TEMP, before);
    int32_t send =
        add_message(s, FS_SEND, r, dst, st->send_idx, send_end, label, FS_FLOW_READ, before);
    if (recv < 0 || send < 0) return -1;
    if ((st->last = add_reduce(s, r, st->recv_idx, recv_end, label, recv, send)) < 0) return -1;
    st->send_idx = st->recv_idx;
    if (mask * 2 < s->pof2) st->last_idx = st->recv_idx + s->pof2 / (mask * 2);
  }
  return 0;
}

/* The root dropped out in the collapse: rank 0 hands it block 0 and the
 * role of newrank 0. */
static int move_root(schedule *s, int32_t label) {
  rank_state *zero = &s->rank[0], *root = &s->rank[s->o->root];
  int32_t send = add_message(s, FS_SEND, 0, s->o->root, 0, 1, label, FS_FLOW_READ, zero->last);
  int32_t recv = add_message(s, FS_RECV, s->o->root, 0, 0, 1, label, FS_FLOW_WRITE, root->last);
  if (send < 0 || recv < 0) return -1;
  zero->last = send, zero->newrank = -1;
  root->last = recv, root->newrank = 0, root->send_idx = 0, root->last_idx = 2;
  return 0;
}

/* One binomial gather round of distance mask = 2^j. */
static int gather_round(schedule *s, int j, int32_t label) {
  int32_t mask = (int32_t)1 << j, half = s->pof2 / (mask * 2);
  int32_t newroot_tree = s->newroot >> j << j;
  for (int32_t r = 0; r < s->n; r++) {
    rank_state *st = &s->rank[r];
    if (st->newrank < 0) continue;
    int32_t newdst = st->newrank ^ mask, send_end, recv_first, recv_end;
    int32_t dst = newdst == 0 && s->swap ? s->o->root : real_rank(s, newdst);
    if (st->newrank < newdst) {
      if (mask != s->pof2 / 2) st->last_idx += half;
      recv_first = st->recv_idx = st->send_idx + half;
      send_end = recv_first, recv_end = st->last_idx;
    } else {
      recv_first = st->recv_idx = st->send_idx - half;
      send_end = st->last_idx, recv_end = st->send_idx;
    }
    int32_t t;
    if ((newdst >> j << j) == newroot_tree) {
      t = add_message(s, FS_SEND, r, dst, st->send_idx, send_end, label, FS_FLOW_READ, st->last);
      st->newrank = -1;
    } else {
      t = add_message(s, FS_RECV, r, dst, recv_first, recv_end, label, FS_FLOW_WRITE, st->last);
      if (st->newrank > newdst) st->send_idx = st->recv_idx;
    }
    if ((st->last = t) < 0) return -1;
  }
  return 0;
}

/* The stages in order; -1 when a builder call failed. */
static int build(schedule *s) {
  int32_t labels[32], gather[32], collapse_label = fs_gen_label(s->p, "collapse");
  int32_t newroot_label = fs_gen_label(s->p, "newroot");
  if (collapse_label < 0 || newroot_label < 0 ||
      fs_gen_numbered_labels(s->p, "reduce-scatter", s->steps, labels) ||
      fs_gen_numbered_labels(s->p, "gather", s->steps, gather) || collapse(s, collapse_label))
    return -1;
  for (int k = 0; k < s->steps; k++)
    if (reduce_scatter_round(s, (int32_t)1 << k, labels[k])) return -1;
  if (s->swap && move_root(s, newroot_label)) return -1;
  for (int k = 0; k < s->steps; k++)
    if (gather_round(s, s->steps - 1 - k, gather[k])) return -1;
  return 0;
}

static void plan(schedule *s, const fs_generator_options *o) {
  s->o = o;
  s->n = o->ranks;
  s->steps = fs_gen_floor_log2(s->n);
  s->pof2 = (int32_t)1 << s->steps;
  s->rem = s->n - s->pof2;
  int32_t root = o->root;
  s->swap = root < 2 * s->rem && root % 2 != 0;
  s->newroot = root < 2 * s->rem ? (s->swap ? 0 : root / 2) : root - s->rem;
}

static void start_ranks(schedule *s) {
  for (int32_t r = 0; r < s->n; r++) {
    rank_state *st = &s->rank[r];
    st->newrank = r < 2 * s->rem ? (r % 2 ? -1 : r / 2) : r - s->rem;
    st->send_idx = st->recv_idx = 0;
    st->last_idx = s->pof2;
    st->last = -1;
  }
}

fs_program *fs_generate_reduce_rabenseifner(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  schedule s;
  plan(&s, o);
  int64_t pof2 = s.pof2, rem = s.rem, steps = s.steps;
  int64_t tasks = 3 * rem + 3 * pof2 * steps + 2 * s.swap + 2 * (pof2 - 1);
  int64_t dependencies =
      rem + (steps > 0 ? 4 * pof2 * steps - 2 * (pof2 - rem) : 0) + 2 * s.swap + 2 * (pof2 - 1);
  s.p = fs_gen_begin(NAME, s.n, tasks, dependencies, err);
  if (!s.p) return NULL;
  s.rank = malloc((size_t)s.n * sizeof *s.rank);
  int failed = !s.rank || fs_gen_flow_begin(o, FS_COLLECTIVE_REDUCE, o->root, s.pof2, o->size);
  if (!failed) {
    start_ranks(&s);
    failed = build(&s);
  }
  free(s.rank);
  return fs_gen_finish_options(NAME, s.p, tasks, dependencies, failed, o, err);
}
