/* reduce_binomial.c: `gen reduce-binomial`: a two-sided binomial-tree
 * reduce, the pattern of LogGOPSim's schedgen `binomialtreereduce` op for op
 * (the messages of bcast-binomial, reversed), rooted at --root through the
 * relative ranks v = (rank - root) mod N of MPICH's MPIR_Reduce_intra_
 * binomial (schedgen has no root: root 0 is its output unchanged).
 *
 * Relative rank v > 0 sends S bytes once, to v - 2^h (h = floor(log2 v)),
 * after receiving from v + 2^r for every r > h with v + 2^r < N (the root
 * receives from 1, 2, 4, ...). The send requires (FS_AFTER_END) each of those
 * recvs; all tag 0, CPU 0, NIC 0, and no compute: schedgen prices no
 * reduction, so neither does this (--reduce-time is refused).
 *
 * Order: schedgen writes a rank's send first and its recvs after it (the
 * send requires labels defined later). Here the recvs come first, in
 * schedgen's order, then the send, so every dependency points to an earlier
 * task; the DAG, and so every time, is the same (the recvs are all posted at
 * once either way). schedgen also repeats the send's requires line for the
 * last recv in rounds without a new recv; the duplicates are not kept.
 * Labels name the step in time order: the leaves (h = K-1, K =
 * ceil(log2 N)) send in round1, relative rank 1 in roundK.
 *
 * Data flow: one block of S bytes; a send reads it, a recv combines its
 * message into it on arrival (FS_FLOW_RECV_COMBINE: the reduce folded into
 * the receive, as schedgen has no compute tasks). */
#include "generators/generator_support.h"

static const char NAME[] = "reduce-binomial";

typedef struct tree {
  int32_t n, root, rounds;
} tree;

static int32_t absolute(const tree *t, int64_t v) {
  return fs_gen_absolute((int32_t)v, t->root, t->n);
}

static int add_rank(fs_program *p, const tree *t, int32_t v, const fs_generator_options *o,
                    const int32_t *labels) {
  int h = v > 0 ? fs_gen_floor_log2(v) : -1, failed = 0;
  int32_t first_recv = p->tasks, recvs = 0, rank = absolute(t, v);
  for (int r = h + 1; !failed && (int64_t)v + ((int64_t)1 << r) < t->n; r++, recvs++) {
    int32_t recv = fs_gen_recv(p, rank, absolute(t, v + ((int64_t)1 << r)), o->size,
                               labels[t->rounds - 1 - r]);
    failed = recv < 0 || fs_gen_flow_range(o, recv, FS_FLOW_RECV_COMBINE, 0, 1);
  }
  if (v == 0 || failed) return failed;
  int32_t send =
      fs_gen_send(p, rank, absolute(t, v - ((int32_t)1 << h)), o->size, labels[t->rounds - 1 - h]);
  failed = send < 0 || fs_gen_flow_range(o, send, FS_FLOW_READ, 0, 1);
  for (int32_t i = 0; i < recvs && !failed; i++)
    failed = fs_program_depend(p, send, first_recv + i, FS_AFTER_END);
  return failed;
}

fs_program *fs_generate_reduce_binomial(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err)) return NULL;
  if (fs_gen_refuse_reduce_time(NAME, o, "schedgen's binomialtreereduce has no reduce computation",
                                err))
    return NULL;
  tree t = {o->ranks, o->root, fs_gen_ceil_log2(o->ranks)};
  /* every rank but the root sends once; the root's recvs have no send to gate */
  int64_t tasks = 2 * ((int64_t)t.n - 1), dependencies = (int64_t)t.n - 1 - t.rounds;
  fs_program *p = fs_gen_begin(NAME, t.n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int failed = fs_gen_numbered_labels(p, "round", t.rounds, labels) |
               fs_gen_flow_begin(o, FS_COLLECTIVE_REDUCE, t.root, 1, o->size);
  for (int32_t v = 0; v < t.n && !failed; v++) failed = add_rank(p, &t, v, o, labels);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
