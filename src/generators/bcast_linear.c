/* bcast_linear.c: `gen bcast-linear`: the linear broadcast of Open MPI's
 * ompi_coll_base_bcast_intra_basic_linear (MPICH has no linear bcast):
 * --root sends S bytes to every other rank, and each of them receives S
 * bytes from the root. Open MPI's loop runs over absolute ranks 0 .. N-1,
 * skipping the root, so the order of the sends is by absolute rank whatever
 * the root (not relative ranks; with root 0 both are 1, 2, ..., N-1).
 *
 * Ops: the root: N-1 sends, in that order; every other rank: one recv from
 * the root. All tag 0, CPU 0, NIC 0, label "bcast", no compute, no
 * dependencies (the sends read the root's own buffer; Open MPI posts them
 * all as isends and waits once). 2(N-1) tasks, 0 dependencies. Tasks are
 * laid out as they run: the root's send to v, then v's recv.
 *
 * Data flow: one block of S bytes; sends read it, recvs write it. */
#include "generators/generator_support.h"

static const char NAME[] = "bcast-linear";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a bcast has no reduction", err)) return -1;
  return 0;
}

fs_program *fs_generate_bcast_linear(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks, root = o->root;
  int64_t tasks = 2 * ((int64_t)n - 1), dependencies = 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t label = fs_gen_label(p, "bcast");
  int failed = label < 0 || fs_gen_flow_begin(o, FS_COLLECTIVE_BCAST, root, 1, o->size);
  for (int32_t v = 0; v < n && !failed; v++) {
    if (v == root) continue;
    int32_t send = fs_gen_send(p, root, v, o->size, label);
    int32_t recv = fs_gen_recv(p, v, root, o->size, label);
    failed = send < 0 || recv < 0 || fs_gen_flow_range(o, send, FS_FLOW_READ, 0, 1) ||
             fs_gen_flow_range(o, recv, FS_FLOW_WRITE, 0, 1);
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
