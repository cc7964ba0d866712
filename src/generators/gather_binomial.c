/* gather_binomial.c: `gen gather-binomial`: MPICH's binomial gather
 * (MPIR_Gather_intra_binomial; Open MPI's ompi_coll_base_gather_intra_
 * binomial is the same tree), root 0, S bytes per rank's block.
 *
 * Round i = 0 .. R-1 (R = ceil(log2 N)), mask m = 2^i: every rank v that is
 * a multiple of 2m receives from v + m, when that is a rank, the blocks of
 * its subtree (ranks v+m .. min(v + 2m, N) - 1: min(m, N - v - m) blocks,
 * that many times S bytes); a rank u with lowbit(u) = m sends what it holds
 * (its own block and those it received) to u - m, and is done. Per rank, in
 * MPICH's order: the recvs by increasing mask, then the send (none on the
 * root). The send requires (FS_AFTER_END) every recv of its rank. All tag 0
 * (MPIR_GATHER_TAG: no pair of ranks exchanges two messages), CPU 0, NIC 0,
 * no compute; the root's local copy is not modelled. 2(N-1) tasks, N-1-R
 * dependencies.
 *
 * Tasks are laid out round by round, as they run: round i (label
 * round<i+1>) holds, for v = 0, 2m, 4m, ... with v + m < N, v + m's send
 * followed by v's recv. So the recv of rank u in round j is at base[j] +
 * 2(u >> (j+1)) + 1. */
#include "generator_support.h"

static const char NAME[] = "gather-binomial";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a gather has no reduction", err)) return -1;
  return fs_gen_check_blocks(NAME, o, err);
}

fs_program *fs_generate_gather_binomial(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int rounds = fs_gen_ceil_log2(n);
  int64_t tasks = 2 * ((int64_t)n - 1), dependencies = (int64_t)n - 1 - rounds;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int64_t base[32]; /* the first task of each round */
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels);
  int64_t at = 0;
  for (int i = 0; i < rounds; i++) {
    base[i] = at;
    at += 2 * fs_gen_binomial_pairs(n, (int64_t)1 << i);
  }
  for (int i = 0; i < rounds && !failed; i++) {
    int64_t m = (int64_t)1 << i;
    for (int64_t v = 0; v + m < n && !failed; v += 2 * m) {
      int64_t u = v + m, blocks = m < n - u ? m : n - u;
      int32_t send = fs_gen_send(p, (int32_t)u, (int32_t)v, blocks * o->size, labels[i]);
      failed = send < 0;
      for (int j = 0; j < i && !failed; j++) /* u's recvs, from u + 2^j */
        if (u + ((int64_t)1 << j) < n)
          failed = fs_program_depend(p, send, (int32_t)(base[j] + 2 * (u >> (j + 1)) + 1),
                                     FS_AFTER_END) != 0;
      failed = failed || fs_gen_recv(p, (int32_t)v, (int32_t)u, blocks * o->size, labels[i]) < 0;
    }
  }
  return fs_gen_finish(NAME, p, tasks, dependencies, failed, err);
}
