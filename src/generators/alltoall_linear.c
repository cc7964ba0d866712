/* alltoall_linear.c: `gen alltoall-linear`: Open MPI's basic linear
 * alltoall (ompi_coll_base_alltoall_intra_basic_linear,
 * ompi/mca/coll/base/coll_base_alltoall.c). S bytes are one block: rank s
 * sends block s*N+d (S bytes) to every d != s.
 *
 * Rank r posts its N-1 receives first, from r+1, r+2, ..., r-1 (mod N),
 * then its N-1 sends in reverse order, to r-1, r-2, ..., r+1 (so that
 * messages arrive in the order the receives were posted), all started at
 * once and waited for together: no dependencies. The copy of the own block
 * is not a task (no data moves between ranks). Tag 0
 * (MCA_COLL_BASE_TAG_ALLTOALL); each channel carries one message. Tasks
 * laid out rank by rank, label "linear". 2N(N-1) tasks, no dependencies. */
#include "generators/generator_support.h"

static const char NAME[] = "alltoall-linear";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "an alltoall has no reduction", err)) return -1;
  return fs_gen_check_blocks(NAME, o, err);
}

/* Block from rank s to rank d. */
static int32_t block_of(int32_t s, int32_t d, int32_t n) { return (int32_t)((int64_t)s * n + d); }

static int add_rank(fs_program *p, const fs_generator_options *o, int32_t rank, int32_t label) {
  int32_t n = o->ranks;
  for (int32_t i = 1; i < n; i++) {
    int32_t from = (int32_t)(((int64_t)rank + i) % n);
    int32_t t = fs_gen_recv(p, rank, from, o->size, label);
    if (t < 0 || (o->flow && fs_gen_flow_range(o, t, FS_FLOW_WRITE, block_of(from, rank, n), 1)))
      return -1;
  }
  for (int32_t i = 1; i < n; i++) {
    int32_t to = (int32_t)(((int64_t)rank - i + n) % n);
    int32_t t = fs_gen_send(p, rank, to, o->size, label);
    if (t < 0 || (o->flow && fs_gen_flow_range(o, t, FS_FLOW_READ, block_of(rank, to, n), 1)))
      return -1;
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

fs_program *fs_generate_alltoall_linear(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int64_t tasks = 2 * (int64_t)n * (n - 1), dependencies = 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t label = fs_gen_label(p, "linear");
  int failed = label < 0 || begin_flow(o);
  for (int32_t rank = 0; rank < n && !failed; rank++) failed = add_rank(p, o, rank, label);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
