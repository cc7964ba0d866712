/* gather_linear.c: `gen gather-linear`: Open MPI's linear gather
 * (ompi_coll_base_gather_intra_basic_linear in coll_base_gather.c), any
 * --root, S bytes per rank's block.
 *
 * Every rank but the root sends its block (S bytes, MCA_COLL_BASE_TAG_GATHER)
 * to the root once; the root receives block r from rank r for r = 0, 1,
 * ..., N-1 in rank order, skipping itself (its own block is a local copy,
 * not modelled). Open MPI's recvs are blocking, so each recv requires the
 * previous one.
 *
 * Tasks (tag 0, CPU 0, NIC 0, label "gather"), laid out as they run: r's
 * send, then the root's recv. 2(N-1) tasks, N-2 dependencies (N >= 2).
 * Data flow: N blocks of S bytes. */
#include "generators/generator_support.h"

static const char NAME[] = "gather-linear";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_check_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a gather has no reduction", err)) return -1;
  return fs_gen_check_blocks(NAME, o, err);
}

fs_program *fs_generate_gather_linear(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks, root = o->root;
  int64_t tasks = 2 * ((int64_t)n - 1), dependencies = n > 1 ? (int64_t)n - 2 : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t label = fs_gen_label(p, "gather");
  int failed = label < 0 || fs_gen_flow_begin(o, FS_COLLECTIVE_GATHER, root, n, n * o->size);
  int32_t previous = -1;
  for (int32_t r = 0; r < n && !failed; r++) {
    if (r == root) continue;
    int32_t send = fs_gen_send(p, r, root, o->size, label);
    int32_t recv = send < 0 ? -1 : fs_gen_recv(p, root, r, o->size, label);
    failed = recv < 0 || (previous >= 0 && fs_program_depend(p, recv, previous, FS_AFTER_END)) ||
             fs_gen_flow_range(o, send, FS_FLOW_READ, r, 1) ||
             fs_gen_flow_range(o, recv, FS_FLOW_WRITE, r, 1);
    previous = recv;
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
