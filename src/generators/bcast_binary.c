/* bcast_binary.c: `gen bcast-binary`: a binary-tree broadcast of S bytes
 * from --root, as Open MPI's ompi_coll_base_bcast_intra_bintree without
 * segmentation (one segment: ompi_coll_base_bcast_intra_generic).
 *
 * The tree is in heap order on relative ranks v = (rank - root) mod N: v
 * receives the whole message from (v-1)/2, then sends it to 2v+1 and then
 * 2v+2 (those < N). Open MPI's topo_build_tree(2) numbers the same levels
 * differently (children v + 2^L and v + 2^(L+1) on level L), which changes
 * which parent feeds a partial last level; heap order is the choice made
 * here (docs/algorithms/bcast.md).
 *
 * Per rank, in Open MPI's order: the recv (none on the root), then the
 * sends, posted together as isends and waited for once: each send requires
 * (FS_AFTER_END) the rank's recv only. All tag 0 (MCA_COLL_BASE_TAG_BCAST;
 * no pair of ranks exchanges two messages), CPU 0, NIC 0, no compute. A
 * message to a rank at depth d (d = floor(log2(v+1))) is labelled level<d>.
 * 2(N-1) tasks; every send but the root's (min(2, N-1) of them) has one
 * dependency. Tasks are laid out rank by rank in relative order, each
 * rank's in issue order.
 *
 * Data flow: one block, the whole message; a send reads it, a recv writes
 * it. */
#include "generators/generator_support.h"

static const char NAME[] = "bcast-binary";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_check_root(NAME, o, err)) return -1;
  return fs_gen_refuse_reduce_time(NAME, o, "a bcast has no reduction", err);
}

/* Relative rank v's recv and sends; `failed` on out of memory. */
static int add_rank(fs_program *p, const fs_generator_options *o, int32_t v,
                    const int32_t *labels) {
  int32_t n = o->ranks, rank = fs_gen_absolute(v, o->root, n), recv = -1;
  int depth = fs_gen_floor_log2((int64_t)v + 1), failed = 0;
  if (v > 0) {
    int32_t parent = fs_gen_absolute((v - 1) / 2, o->root, n);
    recv = fs_gen_recv(p, rank, parent, o->size, labels[depth - 1]);
    failed = recv < 0 || fs_gen_flow_range(o, recv, FS_FLOW_WRITE, 0, 1);
  }
  for (int64_t child = 2 * (int64_t)v + 1; child <= 2 * (int64_t)v + 2 && child < n && !failed;
       child++) {
    int32_t to = fs_gen_absolute((int32_t)child, o->root, n);
    int32_t send = fs_gen_send(p, rank, to, o->size, labels[depth]);
    failed = send < 0 || fs_gen_flow_range(o, send, FS_FLOW_READ, 0, 1) ||
             (recv >= 0 && fs_program_depend(p, send, recv, FS_AFTER_END));
  }
  return failed;
}

fs_program *fs_generate_bcast_binary(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int64_t root_sends = n - 1 < 2 ? n - 1 : 2;
  int64_t tasks = 2 * ((int64_t)n - 1), dependencies = (int64_t)n - 1 - root_sends;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int levels = fs_gen_floor_log2(n); /* the depth of relative rank N-1 */
  int failed = fs_gen_numbered_labels(p, "level", levels, labels) ||
               fs_gen_flow_begin(o, FS_COLLECTIVE_BCAST, o->root, 1, o->size);
  for (int32_t v = 0; v < n && !failed; v++) failed = add_rank(p, o, v, labels);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
