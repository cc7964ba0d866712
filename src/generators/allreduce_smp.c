/* allreduce_smp.c: `gen allreduce-smp`: MPICH's SMP-aware allreduce
 * (MPIR_Allreduce_intra_smp, src/mpi/coll/allreduce/allreduce_intra_smp.c)
 * on the platform's mapping, with the algorithms MPICH picks for short
 * messages inside it:
 *
 * 1. on each node of two or more ranks, a binomial reduce to the leader
 *    (MPIR_Reduce on node_comm, root 0: MPIR_Reduce_intra_binomial),
 *    labels node-reduce<j>;
 * 2. among the leaders, an in-place allreduce by recursive doubling
 *    (MPIR_Allreduce_intra_recursive_doubling on node_roots_comm), with
 *    MPICH's collapse/expand when the node count is not a power of 2:
 *    labels collapse, leaders<j>, expand;
 * 3. on each node, a binomial broadcast from the leader (MPIR_Bcast on
 *    node_comm, root 0: MPIR_Bcast_intra_binomial), labels node-bcast<j>.
 *
 * Every message is S bytes, every reduce a compute of S bytes (or
 * --reduce-time). Without a platform every rank is its own node: plain
 * recursive doubling, the messages of allreduce-rd. Nodes, groups, the
 * two-pass exact reservation and the dependencies: smp_support.h. */
#include "generators/smp_support.h"

static const char NAME[] = "allreduce-smp";

typedef struct allreduce_labels {
  int32_t node_reduce[FS_SMP_MAX_ROUNDS], node_bcast[FS_SMP_MAX_ROUNDS], leaders[FS_SMP_MAX_ROUNDS];
  int32_t collapse, expand;
} allreduce_labels;

static void add_rank(fs_smp_builder *b, const fs_smp_nodes *n, const allreduce_labels *l,
                     int32_t rank) {
  int32_t k = n->node[rank], i = n->local[rank], q = fs_smp_node_size(n, k), last = -1;
  const int32_t *node = fs_smp_node_members(n, k);
  if (q > 1) last = fs_smp_binomial_reduce(b, node, q, 0, i, last, l->node_reduce);
  if (i == 0 && n->count > 1)
    last = fs_smp_recursive_doubling(b, n->leader, n->count, k, last, l->collapse, l->leaders,
                                     l->expand);
  if (q > 1) fs_smp_binomial_bcast(b, node, q, 0, i, last, l->node_bcast);
}

static void build(fs_smp_builder *b, const fs_smp_nodes *n) {
  allreduce_labels l = {{0}, {0}, {0}, 0, 0};
  fs_smp_round_labels(b, "node-reduce", n->largest, l.node_reduce);
  int uneven = n->count & (n->count - 1); /* not a power of 2: collapse and expand */
  if (uneven) l.collapse = fs_smp_label(b, "collapse");
  fs_smp_round_labels(b, "leaders", n->count, l.leaders);
  if (uneven) l.expand = fs_smp_label(b, "expand");
  fs_smp_round_labels(b, "node-bcast", n->largest, l.node_bcast);
  for (int32_t rank = 0; rank < n->ranks && b->tasks <= FS_MAX_TASKS; rank++)
    add_rank(b, n, &l, rank);
}

fs_program *fs_generate_allreduce_smp(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_refuse_root(NAME, o, err)) return NULL;
  return fs_smp_generate(NAME, o, FS_COLLECTIVE_ALLREDUCE, build, err);
}
