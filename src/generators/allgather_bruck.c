/* allgather_bruck.c: `gen allgather-bruck`: MPICH's Bruck allgather
 * (MPIR_Allgather_intra_brucks, src/mpi/coll/allgather/allgather_intra_brucks.c;
 * Bruck et al., IEEE TPDS 1997) for any N; the tau-Lop thesis costs it in
 * §4.5.3 (eqs. 4.35-4.37). S bytes are one rank's block.
 *
 * Rank r works in a temporary buffer whose slot j holds block (r + j) mod N
 * (its own block in slot 0). Step k = 0 .. floor(log2 N) - 1, distance
 * 2^k: one MPIC_Sendrecv of the first 2^k slots (blocks r .. r + 2^k - 1)
 * to (r - 2^k) mod N, receiving the next 2^k (blocks r + 2^k ..) from
 * (r + 2^k) mod N. When N is not a power of two a last step at distance
 * pof2 = 2^floor(log2 N) moves the first N - pof2 slots. So step k carries
 * min(2^k, N - 2^k) blocks; K = ceil(log2 N) steps in all.
 *
 * The local copies (own block into the temporary buffer, and the final
 * rotation of the N blocks into the receive buffer, tau-Lop's c(Pm,P)) are
 * not tasks: they move no data between ranks, block ids are global so the
 * data flow does not change, and the network models have no price for a
 * memory copy (allgather-ring leaves out its initial copy the same way).
 *
 * Per rank and step, in MPIC_Sendrecv's order: the recv, then the send; both
 * require (FS_AFTER_END) the rank's recv and send of the previous step (the
 * sendrecv waits for both). All tag 0 (MPIR_ALLGATHER_TAG): every channel is
 * ordered by those dependencies. Tasks laid out step by step, rank by rank;
 * labels step1 .. stepK. 2NK tasks, 4N(K-1) dependencies. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "allgather-bruck";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "an allgather has no reduction", err)) return -1;
  return fs_gen_check_blocks(NAME, o, err);
}

/* Step k of every rank: distance d, `blocks` blocks. */
static int add_step(fs_program *p, const fs_generator_options *o, int64_t d, int32_t blocks,
                    int32_t label, int32_t *last) {
  int32_t n = o->ranks;
  for (int32_t rank = 0; rank < n; rank++) {
    int32_t to = (int32_t)((rank - d + n) % n), from = (int32_t)((rank + d) % n);
    int32_t *mine = last + 2 * rank;
    if (fs_gen_sendrecv(p, rank, to, from, blocks * o->size, label, mine) ||
        fs_gen_flow_range(o, mine[0], FS_FLOW_WRITE, from, blocks) ||
        fs_gen_flow_range(o, mine[1], FS_FLOW_READ, rank, blocks))
      return -1;
  }
  return 0;
}

fs_program *fs_generate_allgather_bruck(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int steps = fs_gen_ceil_log2(n);
  int64_t tasks = 2 * (int64_t)n * steps, dependencies = steps ? 4 * (int64_t)n * (steps - 1) : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int32_t *last = malloc(2 * (size_t)n * sizeof *last);
  int failed = !last || fs_gen_numbered_labels(p, "step", steps, labels);
  failed |= fs_gen_flow_begin(o, FS_COLLECTIVE_ALLGATHER, 0, n, (int64_t)n * o->size);
  for (int32_t i = 0; !failed && i < 2 * n; i++) last[i] = -1;
  for (int k = 0; k < steps && !failed; k++) {
    int64_t d = (int64_t)1 << k;
    failed = add_step(p, o, d, (int32_t)(d < n - d ? d : n - d), labels[k], last);
  }
  free(last);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
