/* barrier_tree.c: `gen barrier-tree`: Open MPI's tree barrier
 * (ompi_coll_base_barrier_intra_tree in coll_base_barrier.c), with S-byte
 * messages (Open MPI's are empty: --size 0).
 *
 * With D = the smallest power of two >= N, a binomial tree in hypercube
 * order: rank r's parent is r - lowbit(r), its children are r + 2^j for
 * 2^j < lowbit(r) (every 2^j < D for rank 0) and r + 2^j < N.
 * - fan-in: for 2^j = 1, 2, 4, ... < D, rank r receives from each child
 *   r + 2^j in that order, then sends to its parent (rank 0 only receives);
 * - fan-out: for 2^j = D/2, ..., 2, 1, rank r receives from its parent,
 *   then sends to each child r + 2^j in that (descending) order.
 * Every call is blocking, so each of a rank's tasks requires (FS_AFTER_END)
 * the one before it. All tag 0 (MCA_COLL_BASE_TAG_BARRIER): a channel
 * carries one message each way per phase, ordered by those dependencies.
 * CPU 0, NIC 0, labels fan-in, fan-out; tasks laid out phase by phase,
 * rank by rank. 4(N-1) tasks, 3N-4 dependencies (N >= 2; N = 1 has none).
 *
 * Data flow: a barrier (FS_COLLECTIVE_BARRIER); the messages carry no data
 * of the collective, only the knowledge of who has entered. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "barrier-tree";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  return fs_gen_refuse_reduce_time(NAME, o, "a barrier has no reduction", err);
}

/* Rank r's exchange with partner r ^ jump, when Open MPI's loop makes one:
 * in the fan-in it receives from a higher partner and sends to a lower
 * one, in the fan-out the reverse. */
static int add_step(fs_program *p, const fs_generator_options *o, int32_t r, int64_t jump,
                    int fan_in, int32_t label, int32_t *last) {
  int64_t partner = r ^ jump;
  if ((partner & (jump - 1)) != 0 || partner >= o->ranks) return 0;
  int receives = (partner > r) == fan_in;
  return fs_gen_message_after(p, receives ? FS_RECV : FS_SEND, r, (int32_t)partner, o->size, label,
                              last);
}

static int add_phases(fs_program *p, const fs_generator_options *o, int32_t *last) {
  int32_t n = o->ranks, in = fs_gen_label(p, "fan-in"), out = fs_gen_label(p, "fan-out");
  int64_t depth = (int64_t)1 << fs_gen_ceil_log2(n);
  if (in < 0 || out < 0) return -1;
  for (int32_t r = 0; r < n; r++)
    for (int64_t jump = 1; jump < depth; jump <<= 1)
      if (add_step(p, o, r, jump, 1, in, last)) return -1;
  for (int32_t r = 0; r < n; r++)
    for (int64_t jump = depth >> 1; jump > 0; jump >>= 1)
      if (add_step(p, o, r, jump, 0, out, last)) return -1;
  return 0;
}

fs_program *fs_generate_barrier_tree(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int64_t tasks = 4 * ((int64_t)n - 1), dependencies = n > 1 ? 3 * (int64_t)n - 4 : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t *last = malloc((size_t)n * sizeof *last);
  int failed = !last || fs_gen_flow_begin(o, FS_COLLECTIVE_BARRIER, 0, 1, 0);
  for (int32_t r = 0; r < n && last; r++) last[r] = -1;
  if (!failed) failed = add_phases(p, o, last);
  free(last);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
