/* alltoall_pairwise_xor.c: `gen alltoall-pairwise-xor`: MPICH's pairwise
 * alltoall for a power-of-two N (MPIR_Alltoall_intra_pairwise, its
 * exclusive-or branch; alltoall-pairwise is the shift branch MPICH takes
 * otherwise, and Open MPI's pairwise), S bytes per block.
 *
 * Step i = 1 .. N-1: rank r exchanges with r XOR i, sending its block for
 * that rank and receiving that rank's block for r, as one blocking
 * MPIC_Sendrecv: per rank, the recv then the send, both requiring
 * (FS_AFTER_END) the rank's recv and send of step i-1 (step 1: nothing).
 * All tag 0 (MPIR_ALLTOALL_TAG: each ordered pair of ranks meets in one
 * step only), CPU 0, NIC 0, labels step1 .. step(N-1); the local copy of the
 * own block is not a task. 2N(N-1) tasks, 4N(N-2) dependencies (N >= 2).
 * Tasks are laid out step by step, as they run: step i of rank r at
 * 2((i-1)N + r).
 *
 * Data flow: N*N blocks of S bytes, block s*N + d from rank s to rank d;
 * in step i rank r sends block r*N + (r^i) and receives (r^i)*N + r. */
#include "generators/generator_support.h"

static const char NAME[] = "alltoall-pairwise-xor";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  if (o->ranks & (o->ranks - 1))
    return fs_error_set(err,
                        "%s needs a power of 2 --ranks (step i pairs r with r XOR i), not %d; "
                        "alltoall-pairwise (MPICH's shift form) takes any --ranks",
                        NAME, o->ranks);
  if (fs_gen_refuse_reduce_time(NAME, o, "an alltoall has no reduction", err)) return -1;
  return fs_gen_check_blocks(NAME, o, err);
}

/* Rank r's sendrecv of step i with its partner, after its pair of step i-1. */
static int add_exchange(fs_program *p, const fs_generator_options *o, int32_t r, int32_t i,
                        int32_t label) {
  int32_t n = o->ranks, partner = r ^ i;
  int32_t last[2] = {-1, -1};
  if (i > 1) last[0] = 2 * ((i - 2) * n + r), last[1] = last[0] + 1;
  if (fs_gen_sendrecv(p, r, partner, partner, o->size, label, last)) return -1;
  return fs_gen_flow_range(o, last[0], FS_FLOW_WRITE, partner * n + r, 1) ||
         fs_gen_flow_range(o, last[1], FS_FLOW_READ, r * n + partner, 1);
}

fs_program *fs_generate_alltoall_pairwise_xor(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int64_t tasks = 2 * (int64_t)n * (n - 1);
  int64_t dependencies = n > 1 && tasks <= FS_MAX_TASKS ? 4 * (int64_t)n * (n - 2) : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  /* fs_gen_begin accepted 2N(N-1) tasks, so N*N blocks fit an int32 */
  int failed = fs_gen_flow_begin(o, FS_COLLECTIVE_ALLTOALL, 0, (int32_t)((int64_t)n * n),
                                 fs_gen_alltoall_bytes(o));
  for (int32_t i = 1; i < n && !failed; i++) {
    int32_t label = fs_gen_label(p, "step%d", i);
    failed = label < 0;
    for (int32_t r = 0; r < n && !failed; r++) failed = add_exchange(p, o, r, i, label);
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
