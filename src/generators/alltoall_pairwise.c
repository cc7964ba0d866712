/* alltoall_pairwise.c: `gen alltoall-pairwise`: the pairwise-exchange
 * alltoall of Open MPI (ompi_coll_base_alltoall_intra_pairwise) and of
 * MPICH (MPIR_Alltoall_intra_pairwise, which pairs by XOR instead when N is
 * a power of 2; this is the shift form for every N), S bytes per block.
 *
 * Step s = 1 .. N-1: rank r sends its block for (r+s) mod N, S bytes, to
 * that rank and receives S bytes from (r-s+N) mod N, as one blocking
 * sendrecv. Per rank, step by step: the recv, then the send (as MPICH's
 * MPIC_Sendrecv posts them). Both require (FS_AFTER_END) the rank's recv
 * and send of step s-1 (step 1: nothing): a step starts when the previous
 * sendrecv has returned. Tag s (so messages match by step), label step<s>;
 * CPU 0, NIC 0, no compute; the local copy of the own block is not
 * modelled. 2N(N-1) tasks, 4N(N-2) dependencies (N >= 2). Tasks are laid out
 * step by step, as they run: step s of rank r at 2((s-1)N + r).
 *
 * Data flow: N*N blocks of S bytes, block i*N + j from rank i to rank j;
 * in step s rank r sends block r*N + (r+s) mod N and receives block
 * ((r-s) mod N)*N + r. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "alltoall-pairwise";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "an alltoall has no reduction", err)) return -1;
  return 0;
}

/* A send or recv of step s, tagged s, after the rank's pair of step s-1
 * (tasks previous and previous+1; none when previous < 0), carrying block
 * `block` (the send reads it, the recv writes it). */
static int add_message(fs_program *p, const fs_generator_options *o, fs_task_kind kind,
                       int32_t rank, int32_t peer, int32_t step, int32_t label, int32_t previous,
                       int32_t block) {
  int32_t t = fs_gen_message(p, kind, rank, peer, o->size, label);
  return t < 0 || fs_task_set_tag(p, t, step) ||
         (previous >= 0 && (fs_program_depend(p, t, previous, FS_AFTER_END) ||
                            fs_program_depend(p, t, previous + 1, FS_AFTER_END))) ||
         fs_gen_flow_range(o, t, kind == FS_SEND ? FS_FLOW_READ : FS_FLOW_WRITE, block, 1);
}

fs_program *fs_generate_alltoall_pairwise(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  /* tasks < 2^63 for every int32 n; the dependencies are counted only when
   fs_gen_begin will accept the tasks, so they cannot overflow either */
  int64_t tasks = 2 * (int64_t)n * (n - 1);
  int64_t dependencies = n > 1 && tasks <= FS_MAX_TASKS ? 4 * (int64_t)n * (n - 2) : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  /* fs_gen_begin accepted 2N(N-1) tasks, so N*N blocks fit an int32 */
  int failed = fs_gen_flow_begin(o, FS_COLLECTIVE_ALLTOALL, 0, (int32_t)((int64_t)n * n),
                                 fs_gen_alltoall_bytes(o));
  for (int32_t s = 1; s < n && !failed; s++) {
    char text[24];
    int length = snprintf(text, sizeof text, "step%d", s);
    int32_t label = fs_program_add_label(p, text, length);
    failed = label < 0;
    for (int32_t r = 0; r < n && !failed; r++) {
      int32_t previous = s > 1 ? (int32_t)(2 * ((int64_t)(s - 2) * n + r)) : -1;
      int32_t from = (int32_t)(((int64_t)r - s + n) % n), to = (int32_t)(((int64_t)r + s) % n);
      failed = add_message(p, o, FS_RECV, r, from, s, label, previous, from * n + r) ||
               add_message(p, o, FS_SEND, r, to, s, label, previous, r * n + to);
    }
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
