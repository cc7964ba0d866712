/* barrier_double_ring.c: `gen barrier-double-ring`: Open MPI's double-ring
 * barrier (ompi_coll_base_barrier_intra_doublering in coll_base_barrier.c),
 * with S-byte messages (Open MPI's are empty: --size 0).
 *
 * A token goes twice around the ring 0 -> 1 -> ... -> N-1 -> 0. Rank 0
 * sends to 1, receives from N-1, sends to 1 again, receives from N-1 again;
 * every other rank r receives from r-1 and sends to r+1 (mod N), twice. All
 * calls are blocking, so each of a rank's four tasks requires
 * (FS_AFTER_END) the one before it. When rank 0 receives the first token
 * every rank has entered; the second round releases them. (Open MPI's
 * second-round sends are synchronous; with the receives posted they
 * complete on matching, which the eager sends of hockney and pipelined
 * reach no later: the mode is not modelled.)
 *
 * All tag 0 (MCA_COLL_BASE_TAG_BARRIER): the two messages of a channel are
 * ordered by those dependencies. CPU 0, NIC 0, labels ring1, ring2; tasks
 * laid out as they run (per ring: rank 0's send, then each rank's recv and
 * send, then rank 0's recv). 4N tasks, 3N dependencies (N >= 2; N = 1 has
 * no tasks).
 *
 * Data flow: a barrier (FS_COLLECTIVE_BARRIER); the messages carry no data
 * of the collective, only the knowledge of who has entered. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "barrier-double-ring";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  return fs_gen_refuse_reduce_time(NAME, o, "a barrier has no reduction", err);
}

/* One trip of the token around the ring. */
static int add_ring(fs_program *p, int32_t n, int64_t size, int32_t label, int32_t *last) {
  if (label < 0 || fs_gen_message_after(p, FS_SEND, 0, 1, size, label, last)) return -1;
  for (int32_t r = 1; r < n; r++)
    if (fs_gen_message_after(p, FS_RECV, r, r - 1, size, label, last) ||
        fs_gen_message_after(p, FS_SEND, r, (r + 1) % n, size, label, last))
      return -1;
  return fs_gen_message_after(p, FS_RECV, 0, n - 1, size, label, last);
}

fs_program *fs_generate_barrier_double_ring(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int64_t tasks = n > 1 ? 4 * (int64_t)n : 0, dependencies = n > 1 ? 3 * (int64_t)n : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t *last = n > 1 ? malloc((size_t)n * sizeof *last) : NULL;
  int failed = (n > 1 && !last) || fs_gen_flow_begin(o, FS_COLLECTIVE_BARRIER, 0, 1, 0);
  for (int32_t r = 0; r < n && last; r++) last[r] = -1;
  if (n > 1 && !failed)
    failed = add_ring(p, n, o->size, fs_gen_label(p, "ring1"), last) ||
             add_ring(p, n, o->size, fs_gen_label(p, "ring2"), last);
  free(last);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
