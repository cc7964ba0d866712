/* alltoall_bruck.c: `gen alltoall-bruck`: Bruck's alltoall (Bruck et al.,
 * IEEE TPDS 1997) as MPICH's MPIR_Alltoall_intra_brucks
 * (src/mpi/coll/alltoall/alltoall_intra_brucks.c) and Open MPI's
 * ompi_coll_base_alltoall_intra_bruck (ompi/mca/coll/base/
 * coll_base_alltoall.c) run it, for any N. S bytes are one block: block
 * s*N+d goes from rank s to rank d.
 *
 * After the first local rotation, rank r holds at slot i the block destined
 * to (r + i) mod N. Step k = 0 .. ceil(log2 N) - 1, distance D = 2^k: one
 * sendrecv of the slots i in 1 .. N-1 whose bit k is set, to (r + D) mod N,
 * received into the same slots from (r - D) mod N. A block keeps its slot
 * while it travels and has moved by the bits of i below k+1 so far: before
 * step k, slot i of rank r holds the block from s = r - (i mod D) to
 * s + i, id s*N + (s + i) mod N; after the last step, the block from r - i
 * to r. The rotations (and MPICH's packing into a temporary buffer) are
 * local copies, not tasks: no data moves between ranks, block ids are
 * global, and the network models have no price for a memory copy.
 *
 * Per rank and step, in MPIC_Sendrecv's order: the recv, then the send, both
 * after (FS_AFTER_END) the rank's recv and send of the previous step. All
 * tag 0 (MPIR_ALLTOALL_TAG). Tasks laid out step by step, rank by rank;
 * labels step1 .. stepK. 2NK tasks, 4N(K-1) dependencies, K = ceil(log2 N). */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "alltoall-bruck";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "an alltoall has no reduction", err)) return -1;
  return fs_gen_check_blocks(NAME, o, err);
}

/* Slots 1 .. n-1 with bit k set: the blocks of every message of step k. */
static int32_t step_blocks(int32_t n, int64_t d) {
  int32_t count = 0;
  for (int64_t i = d; i < n; i += 2 * d) count += (int32_t)(i + d <= n ? d : n - i);
  return count;
}

/* The ids of the blocks rank `holder` sends in step k (distance d), before
 * the step: slot i holds the block from s = holder - (i mod d) to s + i. */
static void sent_blocks(int32_t holder, int32_t n, int64_t d, int32_t *blocks) {
  int32_t count = 0;
  for (int64_t i = d; i < n; i++) {
    if (!(i & d)) continue;
    int64_t s = ((holder - i % d) % n + n) % n;
    blocks[count++] = (int32_t)(s * n + (s + i) % n);
  }
}

/* Step of distance d for every rank; `blocks` is scratch for n ids. */
static int add_step(fs_program *p, const fs_generator_options *o, int64_t d, int32_t label,
                    int32_t *last, int32_t *blocks) {
  int32_t n = o->ranks, count = step_blocks(n, d);
  for (int32_t rank = 0; rank < n; rank++) {
    int32_t to = (int32_t)((rank + d) % n), from = (int32_t)((rank - d + n) % n);
    int32_t *mine = last + 2 * rank;
    if (fs_gen_sendrecv(p, rank, to, from, count * o->size, label, mine)) return -1;
    if (!o->flow) continue;
    sent_blocks(from, n, d, blocks); /* the recv takes what `from` sends */
    if (fs_gen_flow_blocks(o, mine[0], FS_FLOW_WRITE, blocks, count)) return -1;
    sent_blocks(rank, n, d, blocks);
    if (fs_gen_flow_blocks(o, mine[1], FS_FLOW_READ, blocks, count)) return -1;
  }
  return 0;
}

/* The alltoall's N*N blocks of S bytes; -1 when they do not fit the record. */
static int begin_flow(const fs_generator_options *o) {
  int64_t n = o->ranks, blocks = n * n;
  int ok = blocks <= INT32_MAX && (o->size == 0 || blocks <= INT64_MAX / o->size);
  return fs_gen_flow_begin(o, FS_COLLECTIVE_ALLTOALL, 0, ok ? (int32_t)blocks : -1,
                           ok ? blocks * o->size : 0);
}

fs_program *fs_generate_alltoall_bruck(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int steps = fs_gen_ceil_log2(n);
  int64_t tasks = 2 * (int64_t)n * steps, dependencies = steps ? 4 * (int64_t)n * (steps - 1) : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int32_t *last = malloc(2 * (size_t)n * sizeof *last);
  int32_t *blocks = o->flow ? malloc((size_t)n * sizeof *blocks) : NULL;
  int failed = !last || (o->flow && !blocks) || fs_gen_numbered_labels(p, "step", steps, labels) ||
               begin_flow(o);
  for (int32_t i = 0; !failed && i < 2 * n; i++) last[i] = -1;
  for (int k = 0; k < steps && !failed; k++)
    failed = add_step(p, o, (int64_t)1 << k, labels[k], last, blocks);
  free(last);
  free(blocks);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
