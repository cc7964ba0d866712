/* reduce_smp.c: `gen reduce-smp`: MPICH's SMP-aware reduce
 * (MPIR_Reduce_intra_smp, src/mpi/coll/reduce/reduce_intra_smp.c; the op
 * is commutative, which MPICH requires there) on the platform's mapping, to
 * --root, in MPICH's order:
 *
 * 1. on every node but the root's, a binomial reduce to the leader
 *    (MPIR_Reduce on node_comm, root 0: MPIR_Reduce_intra_binomial),
 *    labels node-reduce<j>;
 * 2. a binomial reduce among the leaders to the root's node's leader
 *    (MPIR_Reduce on node_roots_comm), labels leaders<j>: that leader adds
 *    only its own value, its node has not reduced yet;
 * 3. on the root's node, a binomial reduce to the root itself (MPIR_Reduce
 *    on node_comm rooted at the root's local rank), in which the leader
 *    contributes the leaders' result; labels root-node<j>.
 *
 * So the root's node reduces last, directly to the root: there is no
 * separate leader-to-root message (a root that is not the leader gets the
 * leaders' result through the tree of step 3). Messages S bytes, reduces S
 * bytes (or --reduce-time). Without a platform every rank is its own node:
 * MPICH's binomial reduce to the root. Nodes, groups, exact reservation and
 * dependencies: smp_support.h. */
#include "generators/smp_support.h"

static const char NAME[] = "reduce-smp";

typedef struct reduce_labels {
  int32_t node_reduce[FS_SMP_MAX_ROUNDS], leaders[FS_SMP_MAX_ROUNDS], root_node[FS_SMP_MAX_ROUNDS];
} reduce_labels;

static void add_rank(fs_smp_builder *b, const fs_smp_nodes *n, const reduce_labels *l, int32_t root,
                     int32_t rank) {
  int32_t k = n->node[rank], i = n->local[rank], q = fs_smp_node_size(n, k), last = -1;
  int32_t root_node = n->node[root];
  const int32_t *node = fs_smp_node_members(n, k);
  if (k != root_node && q > 1)
    last = fs_smp_binomial_reduce(b, node, q, 0, i, last, l->node_reduce);
  if (i == 0 && n->count > 1)
    last = fs_smp_binomial_reduce(b, n->leader, n->count, root_node, k, last, l->leaders);
  if (k == root_node && q > 1)
    fs_smp_binomial_reduce(b, node, q, n->local[root], i, last, l->root_node);
}

static void build(fs_smp_builder *b, const fs_smp_nodes *n) {
  int32_t root = b->o->root;
  reduce_labels l = {{0}, {0}, {0}};
  fs_smp_round_labels(b, "node-reduce", n->largest, l.node_reduce);
  fs_smp_round_labels(b, "leaders", n->count, l.leaders);
  fs_smp_round_labels(b, "root-node", fs_smp_node_size(n, n->node[root]), l.root_node);
  for (int32_t rank = 0; rank < n->ranks && b->tasks <= FS_MAX_TASKS; rank++)
    add_rank(b, n, &l, root, rank);
}

fs_program *fs_generate_reduce_smp(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err)) return NULL;
  return fs_smp_generate(NAME, o, FS_COLLECTIVE_REDUCE, build, err);
}
