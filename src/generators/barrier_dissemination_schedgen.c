/* barrier_dissemination_schedgen.c: `gen barrier-dissemination-schedgen`:
 * the dissemination pattern of LogGOPSim's schedgen `dissemination`, op for
 * op, kept as the reference for LogGOPSim's published numbers.
 *
 * Round k = 0 .. ceil(log2 N)-1, distance 2^k: rank r sends S bytes (8 B by
 * default) to (r + 2^k) mod N, then receives from (r - 2^k) mod N. The send
 * of round k > 0 requires (FS_AFTER_END) the recv of round k-1 and nothing
 * else; recvs require nothing, so all are posted at once. All tag 0, CPU 0,
 * NIC 0. Under LogGOPS every round costs one hop, o+L+(S-1)G+o.
 *
 * It is not a correct barrier: a round's send waits only for the previous
 * round's recv, so what a rank knows travels along one chain of messages
 * instead of accumulating (at 6 ranks, rank 0 can leave before rank 1
 * enters). barrier-dissemination is MPICH's correct form. The data flow
 * records no collective (FS_COLLECTIVE_NONE). */
#include "generators/generator_support.h"

static const char NAME[] = "barrier-dissemination-schedgen";

static int add_rank(fs_program *p, int32_t rank, int32_t n, int rounds, int64_t size,
                    const int32_t *labels) {
  int32_t recv = -1;
  for (int k = 0; k < rounds; k++) {
    int64_t distance = (int64_t)1 << k;
    int32_t to = (int32_t)((rank + distance) % n), from = (int32_t)((rank - distance % n + n) % n);
    int32_t send = fs_gen_send(p, rank, to, size, labels[k]);
    if (send < 0 || (recv >= 0 && fs_program_depend(p, send, recv, FS_AFTER_END))) return -1;
    if ((recv = fs_gen_recv(p, rank, from, size, labels[k])) < 0) return -1;
  }
  return 0;
}

fs_program *fs_generate_barrier_dissemination_schedgen(const fs_generator_options *o,
                                                       fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return NULL;
  int32_t n = o->ranks;
  int rounds = fs_gen_ceil_log2(n);
  int64_t tasks = 2 * (int64_t)rounds * n;
  int64_t dependencies = rounds > 0 ? (int64_t)(rounds - 1) * n : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels) |
               fs_gen_flow_begin(o, FS_COLLECTIVE_NONE, 0, 1, o->size);
  for (int32_t rank = 0; rank < n && !failed; rank++)
    failed = add_rank(p, rank, n, rounds, o->size, labels);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
