/* scatter_linear_nb.c: `gen scatter-linear-nb`: Open MPI's non-blocking
 * linear scatter (ompi_coll_base_scatter_intra_linear_nb in
 * coll_base_scatter.c) with its tuned default blocking-send ratio 0 (every
 * send an isend), any --root, S bytes per rank's block.
 *
 * The root isends block r (S bytes, MCA_COLL_BASE_TAG_SCATTER) to rank r
 * for r = 0, 1, ..., N-1 in rank order, skipping itself (its own block is a
 * local copy, not a task), then waits for all of them; every other rank
 * receives its block once. The isends do not wait for one another: no
 * dependencies, where scatter-linear's blocking sends each require
 * (FS_AFTER_END) the previous one. Both issue the sends in the same order
 * on the root's CPU, so they differ only where a send's completion comes
 * after its CPU time: a rendezvous send (loggops above its S) completes
 * when matched, and the blocking one holds the next send back until then.
 *
 * Tasks (tag 0, CPU 0, NIC 0, label "scatter"), laid out as they run: the
 * root's send to r, then r's recv. 2(N-1) tasks, no dependencies.
 * Data flow: N blocks of S bytes. */
#include "generators/generator_support.h"

static const char NAME[] = "scatter-linear-nb";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_check_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a scatter has no reduction", err)) return -1;
  return fs_gen_check_blocks(NAME, o, err);
}

fs_program *fs_generate_scatter_linear_nb(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks, root = o->root;
  int64_t tasks = 2 * ((int64_t)n - 1), dependencies = 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t label = fs_gen_label(p, "scatter");
  int failed = label < 0 || fs_gen_flow_begin(o, FS_COLLECTIVE_SCATTER, root, n, n * o->size);
  for (int32_t r = 0; r < n && !failed; r++) {
    if (r == root) continue;
    int32_t send = fs_gen_send(p, root, r, o->size, label);
    int32_t recv = send < 0 ? -1 : fs_gen_recv(p, r, root, o->size, label);
    failed = recv < 0 || fs_gen_flow_range(o, send, FS_FLOW_READ, r, 1) ||
             fs_gen_flow_range(o, recv, FS_FLOW_WRITE, r, 1);
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
