/* bcast_binomial.c: `gen bcast-binomial`: a two-sided binomial-tree
 * broadcast from rank 0, the pattern of LogGOPSim's schedgen
 * `binomialtreebcast` (root 0), op for op.
 *
 * Round r = 0, 1, ...: every rank v < 2^r sends S bytes to v + 2^r when that
 * is a rank, and rank v in [2^r, 2^(r+1)) receives from v - 2^r. Per rank,
 * in schedgen's order: the recv (round floor(log2 v); none on the root),
 * then the sends in round order (the root to 1, 2, 4, ...; with 4 ranks rank
 * 1 forwards to 3). Every send requires (FS_AFTER_END) the rank's recv. All
 * tag 0, CPU 0, NIC 0, no compute. schedgen repeats a send's requires line in
 * later rounds where the rank sends nothing new; the duplicate changes no
 * time and is not kept. Tasks are added rank by rank, each rank's in its
 * GOAL order, so every dependency points to an earlier task. */
#include "generator_support.h"

static const char NAME[] = "bcast-binomial";

static int add_rank(fs_program *p, int32_t v, int32_t n, int64_t size, const int32_t *labels) {
  int32_t recv = -1;
  int r = 0, failed = 0;
  if (v > 0) {
    int h = fs_gen_floor_log2(v);
    recv = fs_gen_recv(p, v, v - ((int32_t)1 << h), size, labels[h]);
    failed = recv < 0;
    r = h + 1; /* v < 2^r from here on: it sends in every later round that has a target */
  }
  for (; !failed && (int64_t)v + ((int64_t)1 << r) < n; r++) {
    int32_t send = fs_gen_send(p, v, v + ((int32_t)1 << r), size, labels[r]);
    failed = send < 0 || (recv >= 0 && fs_program_depend(p, send, recv, FS_AFTER_END));
  }
  return failed;
}

fs_program *fs_generate_bcast_binomial(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return NULL;
  int32_t n = o->ranks;
  int rounds = fs_gen_ceil_log2(n);
  /* every rank but the root receives once; the root's sends need no recv */
  int64_t tasks = 2 * ((int64_t)n - 1), dependencies = (int64_t)n - 1 - rounds;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels);
  for (int32_t v = 0; v < n && !failed; v++) failed = add_rank(p, v, n, o->size, labels);
  return fs_gen_finish(NAME, p, tasks, dependencies, failed, err);
}
