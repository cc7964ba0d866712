/* allgather_neighbor.c: `gen allgather-neighbor`: Open MPI's neighbor
 * exchange allgather (ompi_coll_base_allgather_intra_neighborexchange,
 * ompi/mca/coll/base/coll_base_allgather.c; Chen et al., HPCAsia 2005), as
 * the tau-Lop thesis costs it (§4.5.1, eqs. 4.25-4.27). S bytes are one
 * rank's block; N must be even (Open MPI switches to the ring for odd N: use
 * allgather-ring there).
 *
 * An even rank r has neighbor[0] = r+1, neighbor[1] = r-1 and walks the
 * blocks upwards from r (offset +2 at parity 0, -2 at parity 1); an odd rank
 * has neighbor[0] = r-1, neighbor[1] = r+1, starts from r-1 and walks the
 * other way. Step 0 exchanges one block with neighbor[0] (r's own out, the
 * neighbor's in). Step i = 1 .. N/2-1 exchanges two blocks with
 * neighbor[i mod 2]: the pair received in step i-1 (step 1: the pair
 * starting at the even one of r, r-1) out, the pair starting at
 * recv_data_from[i mod 2] += offset[i mod 2] in. Pairs start at even blocks,
 * so they never wrap.
 *
 * Per rank and step, in ompi_coll_base_sendrecv's order: the recv, then the
 * send, both after (FS_AFTER_END) the rank's recv and send of the previous
 * step. All tag 0 (MCA_COLL_BASE_TAG_ALLGATHER). The initial copy of the own
 * block is not a task (no data moves between ranks). Tasks laid out step by
 * step, rank by rank; labels step1 .. step(N/2). 2N * N/2 tasks,
 * 4N(N/2 - 1) dependencies. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "allgather-neighbor";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "an allgather has no reduction", err)) return -1;
  if (o->ranks % 2)
    return fs_error_set(err,
                        "%s: --ranks must be even, not %d (Open MPI falls back to the ring "
                        "for an odd count: use allgather-ring)",
                        NAME, o->ranks);
  return fs_gen_check_blocks(NAME, o, err);
}

static int32_t wrap(int64_t block, int32_t n) { return (int32_t)(((block % n) + n) % n); }

/* Open MPI's neighbor[step mod 2] of rank. */
static int32_t neighbor(int32_t rank, int32_t step, int32_t n) {
  int up = (rank % 2 == 0) == (step % 2 == 0);
  return wrap((int64_t)rank + (up ? 1 : -1), n);
}

/* The first of the two blocks rank receives in step i >= 1:
 * recv_data_from[i mod 2] after its (i+1)/2-th update by +-2. */
static int32_t received_at(int32_t rank, int32_t i, int32_t n) {
  int64_t shift = i % 2 == 0 ? i : -((int64_t)i + 1);
  if (rank % 2) shift = -shift;
  return wrap((int64_t)rank - rank % 2 + shift, n);
}

/* The first block rank sends in step i >= 1. */
static int32_t sent_at(int32_t rank, int32_t i, int32_t n) {
  return i == 1 ? rank - rank % 2 : received_at(rank, i - 1, n);
}

static int add_step(fs_program *p, const fs_generator_options *o, int32_t step, int32_t label,
                    int32_t *last) {
  int32_t n = o->ranks, blocks = step == 0 ? 1 : 2;
  for (int32_t rank = 0; rank < n; rank++) {
    int32_t peer = neighbor(rank, step, n), *mine = last + 2 * rank;
    int32_t in = step == 0 ? peer : received_at(rank, step, n);
    int32_t out = step == 0 ? rank : sent_at(rank, step, n);
    if (fs_gen_sendrecv(p, rank, peer, peer, blocks * o->size, label, mine) ||
        fs_gen_flow_range(o, mine[0], FS_FLOW_WRITE, in, blocks) ||
        fs_gen_flow_range(o, mine[1], FS_FLOW_READ, out, blocks))
      return -1;
  }
  return 0;
}

fs_program *fs_generate_allgather_neighbor(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks, steps = n / 2;
  int64_t tasks = 2 * (int64_t)n * steps, dependencies = 4 * (int64_t)n * (steps - 1);
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t *last = malloc(2 * (size_t)n * sizeof *last);
  int failed = !last || fs_gen_flow_begin(o, FS_COLLECTIVE_ALLGATHER, 0, n, (int64_t)n * o->size);
  for (int32_t i = 0; !failed && i < 2 * n; i++) last[i] = -1;
  for (int32_t step = 0; step < steps && !failed; step++) {
    char text[24];
    int length = snprintf(text, sizeof text, "step%d", step + 1);
    int32_t label = fs_program_add_label(p, text, length); /* new: no interning search */
    failed = label < 0 || add_step(p, o, step, label, last);
  }
  free(last);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
