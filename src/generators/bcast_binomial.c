/* bcast_binomial.c: `gen bcast-binomial`: a two-sided binomial-tree
 * broadcast, the pattern of LogGOPSim's schedgen `binomialtreebcast` op for
 * op, rooted at --root through the relative ranks v = (rank - root) mod N
 * of MPICH's MPIR_Bcast_intra_binomial (schedgen has no root: root 0 is its
 * output unchanged).
 *
 * Round r = 0, 1, ...: every v < 2^r sends S bytes to v + 2^r when that is
 * a rank, and v in [2^r, 2^(r+1)) receives from v - 2^r. Per rank, in
 * schedgen's order: the recv (round floor(log2 v); none on the root), then
 * the sends in round order (the root to 1, 2, 4, ...; with 4 ranks 1
 * forwards to 3). Every send requires (FS_AFTER_END) the rank's recv. All
 * tag 0, CPU 0, NIC 0, no compute. schedgen repeats a send's requires line
 * in later rounds where the rank sends nothing new; the duplicate changes no
 * time and is not kept. Tasks are added by relative rank, each rank's in its
 * GOAL order, so every dependency points to an earlier task.
 *
 * Data flow: one block of S bytes; sends read it, recvs write it. */
#include "generators/generator_support.h"

static const char NAME[] = "bcast-binomial";

typedef struct tree {
  int32_t n, root;
} tree;

static int32_t absolute(const tree *t, int64_t v) {
  return fs_gen_absolute((int32_t)v, t->root, t->n);
}

static int add_rank(fs_program *p, const tree *t, int32_t v, const fs_generator_options *o,
                    const int32_t *labels) {
  int32_t recv = -1, rank = absolute(t, v);
  int r = 0, failed = 0;
  if (v > 0) {
    int h = fs_gen_floor_log2(v);
    recv = fs_gen_recv(p, rank, absolute(t, v - ((int32_t)1 << h)), o->size, labels[h]);
    failed = recv < 0 || fs_gen_flow_range(o, recv, FS_FLOW_WRITE, 0, 1);
    r = h + 1; /* v < 2^r from here on: it sends in every later round that has a target */
  }
  for (; !failed && (int64_t)v + ((int64_t)1 << r) < t->n; r++) {
    int32_t send = fs_gen_send(p, rank, absolute(t, v + ((int64_t)1 << r)), o->size, labels[r]);
    failed = send < 0 || (recv >= 0 && fs_program_depend(p, send, recv, FS_AFTER_END)) ||
             fs_gen_flow_range(o, send, FS_FLOW_READ, 0, 1);
  }
  return failed;
}

fs_program *fs_generate_bcast_binomial(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err)) return NULL;
  tree t = {o->ranks, o->root};
  int rounds = fs_gen_ceil_log2(t.n);
  /* every rank but the root receives once; the root's sends need no recv */
  int64_t tasks = 2 * ((int64_t)t.n - 1), dependencies = (int64_t)t.n - 1 - rounds;
  fs_program *p = fs_gen_begin(NAME, t.n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels) |
               fs_gen_flow_begin(o, FS_COLLECTIVE_BCAST, t.root, 1, o->size);
  for (int32_t v = 0; v < t.n && !failed; v++) failed = add_rank(p, &t, v, o, labels);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
