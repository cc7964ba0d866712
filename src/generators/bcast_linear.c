/* bcast_linear.c: `gen bcast-linear`: the linear broadcast of Open MPI's
 * ompi_coll_base_bcast_intra_basic_linear (root 0; MPICH has no linear
 * bcast): the root sends S bytes to ranks 1, 2, ..., N-1 in that order, and
 * every other rank receives S bytes from the root.
 *
 * Ops: rank 0: N-1 sends (to 1 .. N-1, in rank order); rank v > 0: one recv
 * from 0. All tag 0, CPU 0, NIC 0, label "bcast", no compute, no
 * dependencies (the root's sends read its own buffer; Open MPI posts them
 * all as isends and waits once). 2(N-1) tasks, 0 dependencies. Tasks are
 * laid out as they run: the root's send to v, then v's recv, for v = 1 ..
 * N-1. */
#include "generator_support.h"

static const char NAME[] = "bcast-linear";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a bcast has no reduction", err)) return -1;
  return 0;
}

fs_program *fs_generate_bcast_linear(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int64_t tasks = 2 * ((int64_t)n - 1), dependencies = 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t label = fs_gen_label(p, "bcast");
  int failed = 0;
  for (int32_t v = 1; v < n && !failed; v++)
    failed = fs_gen_send(p, 0, v, o->size, label) < 0 || fs_gen_recv(p, v, 0, o->size, label) < 0;
  return fs_gen_finish(NAME, p, tasks, dependencies, failed, err);
}
