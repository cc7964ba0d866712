/* allreduce_recdoub.c: `gen allreduce-recdoub`: a two-sided allreduce by
 * recursive halving then recursive doubling, the pattern of LogGOPSim's
 * schedgen `allreduce_recdoub`, op for op. N must be a power of 2 (schedgen
 * pairs rank r with r XOR 2^i, which leaves the ranks otherwise).
 *
 * Per rank, k = log2 N halving steps i = 0..k-1 (partner r XOR 2^i), then k
 * doubling steps (partner r XOR 2^(k-1-i)); each step is a send then a recv
 * with that partner. The size halves before each halving step (integer
 * division: S/2, S/4, ..., so 0 B once 2^i > S) and the doubling steps start
 * from the last halving size and double after each step, exactly as
 * schedgen computes them. Every send but the first requires (FS_AFTER_END)
 * the previous step's recv; recvs require nothing, so all of a rank's recvs
 * are posted at once, in program order, which is what matches them (all tag
 * 0, and the first and last steps share a partner). No compute (schedgen
 * prices no reduction; --reduce-time is refused).
 *
 * It is kept as schedgen's pattern, the reference for LogGOPSim's numbers,
 * not as a correct allreduce: a send waits for the previous recv only, so
 * the sends of one channel (rank r to r XOR 2^i, in halving and doubling)
 * and a recv's combine with the blocks a later send reads are ordered by
 * timing, not by dependencies. Its data flow records no collective
 * (FS_COLLECTIVE_NONE); allreduce-rabenseifner is MPICH's correct
 * reduce-scatter by recursive halving plus allgather by recursive doubling. */
#include "generators/generator_support.h"

static const char NAME[] = "allreduce-recdoub";

typedef struct recdoub_rank {
  int32_t rank, last_recv; /* last_recv: -1 before the first step */
  int64_t size;
} recdoub_rank;

static int add_step(fs_program *p, recdoub_rank *s, int32_t partner, int32_t label) {
  int32_t send = fs_gen_send(p, s->rank, partner, s->size, label);
  if (send < 0 || (s->last_recv >= 0 && fs_program_depend(p, send, s->last_recv, FS_AFTER_END)))
    return -1;
  s->last_recv = fs_gen_recv(p, s->rank, partner, s->size, label);
  return s->last_recv < 0;
}

static int add_rank(fs_program *p, int32_t rank, int k, int64_t size, const int32_t *halving,
                    const int32_t *doubling) {
  recdoub_rank s = {rank, -1, size};
  int failed = 0;
  for (int i = 0; i < k && !failed; i++) {
    s.size /= 2;
    failed = add_step(p, &s, rank ^ ((int32_t)1 << i), halving[i]);
  }
  for (int i = 0; i < k && !failed; i++) {
    failed = add_step(p, &s, rank ^ ((int32_t)1 << (k - 1 - i)), doubling[i]);
    s.size *= 2;
  }
  return failed;
}

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (o->ranks & (o->ranks - 1))
    return fs_error_set(err,
                        "%s needs a power of 2 --ranks (as schedgen's allreduce_recdoub), "
                        "not %d",
                        NAME, o->ranks);
  if (fs_gen_refuse_reduce_time(NAME, o, "schedgen's allreduce_recdoub has no reduce computation",
                                err))
    return -1;
  return 0;
}

fs_program *fs_generate_allreduce_recdoub(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int k = fs_gen_floor_log2(n);
  int64_t tasks = 4 * (int64_t)k * n, dependencies = k > 0 ? (2 * (int64_t)k - 1) * n : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t halving[32], doubling[32];
  int failed = fs_gen_numbered_labels(p, "halving", k, halving) ||
               fs_gen_numbered_labels(p, "doubling", k, doubling) ||
               fs_gen_flow_begin(o, FS_COLLECTIVE_NONE, 0, 1, o->size);
  for (int32_t rank = 0; rank < n && !failed; rank++)
    failed = add_rank(p, rank, k, o->size, halving, doubling);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
