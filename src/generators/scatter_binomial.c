/* scatter_binomial.c: `gen scatter-binomial`: MPICH's binomial scatter
 * (MPIR_Scatter_intra_binomial; Open MPI's ompi_coll_base_scatter_intra_
 * binomial is the same tree), from --root, S bytes per rank's block. As in
 * MPICH the tree is over relative ranks v = (rank - root) mod N, and the
 * subtree of v holds the blocks of ranks v, v+1, ... (relative), so with a
 * root other than 0 a message carries a cyclic range of absolute blocks.
 *
 * Relative rank v > 0 receives once, from v - lowbit(v), the blocks of its
 * subtree (v .. min(v + lowbit(v), N) - 1: k blocks, k*S bytes), then sends
 * to v + m for m = lowbit(v)/2, /4, ..., 1 (the root: m = 2^(R-1), ..., 1,
 * R = ceil(log2 N)) when v + m < N, the subtree of v + m: min(m, N - v - m)
 * blocks. Per rank, in MPICH's order: the recv, then the sends, largest
 * subtree first. Every send requires (FS_AFTER_END) the rank's recv (the
 * root's sends require nothing). All tag 0 (MPIR_SCATTER_TAG: no pair of
 * ranks exchanges two messages), CPU 0, NIC 0, no compute; the root's local
 * copy is not modelled. 2(N-1) tasks, N-1-R dependencies.
 *
 * Tasks are laid out round by round, as they run: round i = 0 .. R-1 (label
 * round<i+1>) has mask m = 2^(R-1-i) and, for v = 0, 2m, 4m, ... with
 * v + m < N, v's send to v + m followed by v + m's recv. So relative rank
 * v's recv (round R-1-j for lowbit(v) = 2^j) is at base[R-1-j] +
 * 2(v >> (j+1)) + 1.
 *
 * Data flow: N blocks of S bytes, block r for rank r; a message reads, and
 * its recv writes, the blocks of the subtree it feeds. */
#include "generators/generator_support.h"

static const char NAME[] = "scatter-binomial";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a scatter has no reduction", err)) return -1;
  return fs_gen_check_blocks(NAME, o, err);
}

/* v's send to v + m (relative) of `blocks` blocks, then v + m's recv. */
static int add_message(fs_program *p, const fs_generator_options *o, int64_t v, int64_t m,
                       int64_t blocks, int32_t label) {
  int32_t n = o->ranks, from = fs_gen_absolute((int32_t)v, o->root, n),
          to = fs_gen_absolute((int32_t)(v + m), o->root, n);
  int32_t send = fs_gen_send(p, from, to, blocks * o->size, label);
  int32_t recv = fs_gen_recv(p, to, from, blocks * o->size, label);
  return send < 0 || recv < 0 || fs_gen_flow_range(o, send, FS_FLOW_READ, to, (int32_t)blocks) ||
         fs_gen_flow_range(o, recv, FS_FLOW_WRITE, to, (int32_t)blocks);
}

fs_program *fs_generate_scatter_binomial(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int rounds = fs_gen_ceil_log2(n);
  int64_t tasks = 2 * ((int64_t)n - 1), dependencies = (int64_t)n - 1 - rounds;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int64_t base[32]; /* the first task of each round */
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels) |
               fs_gen_flow_begin(o, FS_COLLECTIVE_SCATTER, o->root, n, n * o->size);
  int64_t at = 0;
  for (int i = 0; i < rounds; i++) {
    base[i] = at;
    at += 2 * fs_gen_binomial_pairs(n, (int64_t)1 << (rounds - 1 - i));
  }
  for (int i = 0; i < rounds && !failed; i++) {
    int64_t m = (int64_t)1 << (rounds - 1 - i);
    for (int64_t v = 0; v + m < n && !failed; v += 2 * m) {
      int32_t send = p->tasks;
      failed = add_message(p, o, v, m, m < n - v - m ? m : n - v - m, labels[i]);
      if (!failed && v > 0) {
        int j = fs_gen_floor_log2(v & -v);
        int32_t recv = (int32_t)(base[rounds - 1 - j] + 2 * (v >> (j + 1)) + 1);
        failed = fs_program_depend(p, send, recv, FS_AFTER_END) != 0;
      }
    }
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
