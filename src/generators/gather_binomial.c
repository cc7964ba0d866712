/* gather_binomial.c: `gen gather-binomial`: MPICH's binomial gather
 * (MPIR_Gather_intra_binomial; Open MPI's ompi_coll_base_gather_intra_
 * binomial is the same tree), to --root, S bytes per rank's block. As in
 * MPICH the tree is over relative ranks v = (rank - root) mod N, and the
 * subtree of v holds the blocks of ranks v, v+1, ... (relative), so with a
 * root other than 0 a message carries a cyclic range of absolute blocks (the
 * root receives each in one message, as MPICH does with a struct type when
 * the range wraps).
 *
 * Round i = 0 .. R-1 (R = ceil(log2 N)), mask m = 2^i: every relative rank
 * v that is a multiple of 2m receives from v + m, when that is a rank, the
 * blocks of its subtree (v+m .. min(v + 2m, N) - 1: min(m, N - v - m)
 * blocks, that many times S bytes); a rank u with lowbit(u) = m sends what
 * it holds (its own block and those it received) to u - m, and is done. Per
 * rank, in MPICH's order: the recvs by increasing mask, then the send (none
 * on the root). The send requires (FS_AFTER_END) every recv of its rank. All
 * tag 0 (MPIR_GATHER_TAG: no pair of ranks exchanges two messages), CPU 0,
 * NIC 0, no compute; the root's local copy is not modelled. 2(N-1) tasks,
 * N-1-R dependencies.
 *
 * Tasks are laid out round by round, as they run: round i (label
 * round<i+1>) holds, for v = 0, 2m, 4m, ... with v + m < N, v + m's send
 * followed by v's recv. So the recv of relative rank u in round j is at
 * base[j] + 2(u >> (j+1)) + 1.
 *
 * Data flow: N blocks of S bytes, block r from rank r; a send reads, and
 * its recv writes, the blocks of the sender's subtree. */
#include "generators/generator_support.h"

static const char NAME[] = "gather-binomial";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err)) return -1;
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
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels) |
               fs_gen_flow_begin(o, FS_COLLECTIVE_GATHER, o->root, n, n * o->size);
  int64_t at = 0;
  for (int i = 0; i < rounds; i++) {
    base[i] = at;
    at += 2 * fs_gen_binomial_pairs(n, (int64_t)1 << i);
  }
  for (int i = 0; i < rounds && !failed; i++) {
    int64_t m = (int64_t)1 << i;
    for (int64_t v = 0; v + m < n && !failed; v += 2 * m) {
      int64_t u = v + m, blocks = m < n - u ? m : n - u;
      int32_t from = fs_gen_absolute((int32_t)u, o->root, n),
              to = fs_gen_absolute((int32_t)v, o->root, n);
      int32_t send = fs_gen_send(p, from, to, blocks * o->size, labels[i]);
      failed = send < 0 || fs_gen_flow_range(o, send, FS_FLOW_READ, from, (int32_t)blocks);
      for (int j = 0; j < i && !failed; j++) /* u's recvs, from u + 2^j */
        if (u + ((int64_t)1 << j) < n)
          failed = fs_program_depend(p, send, (int32_t)(base[j] + 2 * (u >> (j + 1)) + 1),
                                     FS_AFTER_END) != 0;
      int32_t recv = failed ? -1 : fs_gen_recv(p, to, from, blocks * o->size, labels[i]);
      failed = failed || recv < 0 ||
               fs_gen_flow_range(o, recv, FS_FLOW_WRITE, from, (int32_t)blocks);
    }
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
