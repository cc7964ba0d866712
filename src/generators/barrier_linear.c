/* barrier_linear.c: `gen barrier-linear`: Open MPI's basic linear barrier
 * (ompi_coll_base_barrier_intra_basic_linear,
 * ompi/mca/coll/base/coll_base_barrier.c).
 *
 * Every rank r > 0 sends a message to rank 0, then (its blocking send done)
 * receives one from rank 0. Rank 0 posts N-1 receives, waits for all, then
 * sends to 1, 2, ..., N-1 with blocking sends, one after the other. Open MPI's
 * messages are empty; here they carry --size bytes (S = 0 is Open MPI's
 * barrier; the CLI's default 8 B matches barrier-dissemination, so barrier
 * patterns compare at equal message size). Open MPI's root receives from
 * MPI_ANY_SOURCE; here the i-th receive names rank i: the messages are
 * identical and all posted at once, so only the matching order changes, and
 * it no longer depends on timing.
 *
 * Dependencies (FS_AFTER_END): a rank r > 0's recv after its send; rank 0's
 * first send after all its recvs, each later send after the previous one.
 * Tag 0 (MCA_COLL_BASE_TAG_BARRIER). Labels "gather" (to rank 0) and
 * "release" (from rank 0); tasks laid out rank by rank. 4(N-1) tasks,
 * 3N-4 dependencies (none for N = 1).
 *
 * Data flow: a barrier (FS_COLLECTIVE_BARRIER); the messages carry no data
 * of the collective, only the knowledge of who has entered. */
#include "generators/generator_support.h"

static const char NAME[] = "barrier-linear";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  return fs_gen_refuse_reduce_time(NAME, o, "a barrier has no reduction", err);
}

static int add_root(fs_program *p, int32_t n, int64_t size, int32_t gather, int32_t release) {
  int32_t first = p->tasks;
  for (int32_t from = 1; from < n; from++)
    if (fs_gen_recv(p, 0, from, size, gather) < 0) return -1;
  int32_t previous = -1;
  for (int32_t to = 1; to < n; to++) {
    int32_t send = fs_gen_send(p, 0, to, size, release);
    if (send < 0) return -1;
    if (previous >= 0 && fs_program_depend(p, send, previous, FS_AFTER_END)) return -1;
    for (int32_t recv = first; previous < 0 && recv < first + n - 1; recv++)
      if (fs_program_depend(p, send, recv, FS_AFTER_END)) return -1;
    previous = send;
  }
  return 0;
}

fs_program *fs_generate_barrier_linear(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int64_t tasks = 4 * ((int64_t)n - 1), dependencies = n > 1 ? 3 * (int64_t)n - 4 : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t gather = fs_gen_label(p, "gather"), release = fs_gen_label(p, "release");
  int failed = gather < 0 || release < 0 || fs_gen_flow_begin(o, FS_COLLECTIVE_BARRIER, 0, 1, 0) ||
               add_root(p, n, o->size, gather, release);
  for (int32_t rank = 1; rank < n && !failed; rank++) {
    int32_t send = fs_gen_send(p, rank, 0, o->size, gather);
    int32_t recv = send < 0 ? -1 : fs_gen_recv(p, rank, 0, o->size, release);
    failed = recv < 0 || fs_program_depend(p, recv, send, FS_AFTER_END);
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
