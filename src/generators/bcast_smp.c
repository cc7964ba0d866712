/* bcast_smp.c: `gen bcast-smp`: MPICH's SMP-aware broadcast
 * (MPIR_Bcast_intra_smp, src/mpi/coll/bcast/bcast_intra_smp.c), its
 * short-message branch, on the platform's mapping, from --root:
 *
 * 1. when the root is not its node's leader, it sends the S bytes to the
 *    leader (label to-leader);
 * 2. a binomial broadcast among the leaders from the root's node's leader
 *    (MPIR_Bcast on node_roots_comm: MPIR_Bcast_intra_binomial), labels
 *    leaders<j>;
 * 3. on every node of two or more ranks, a binomial broadcast from the
 *    leader (MPIR_Bcast on node_comm, root 0), labels node-bcast<j>. As in
 *    MPICH's code this includes the root's node: a root that is not the
 *    leader receives the data once more there.
 *
 * MPICH's other branches (medium messages on a power-of-2 communicator: the
 * root's node broadcasts from the root first; long ones: scatter + ring
 * allgather, bcast-scatter-allgather) are not this generator. Without a
 * platform every rank is its own node: MPICH's binomial broadcast from the
 * root. Nodes, groups, exact reservation and dependencies: smp_support.h. */
#include "generators/smp_support.h"

static const char NAME[] = "bcast-smp";

typedef struct bcast_labels {
  int32_t to_leader, leaders[FS_SMP_MAX_ROUNDS], node_bcast[FS_SMP_MAX_ROUNDS];
} bcast_labels;

static void add_rank(fs_smp_builder *b, const fs_smp_nodes *n, const bcast_labels *l, int32_t root,
                     int32_t rank) {
  int32_t k = n->node[rank], i = n->local[rank], q = fs_smp_node_size(n, k), last = -1;
  int32_t root_node = n->node[root];
  const int32_t *node = fs_smp_node_members(n, k);
  if (rank == root && i > 0)
    last = fs_smp_task(b, FS_SEND, rank, n->leader[k], l->to_leader, FS_FLOW_READ, -1);
  if (i == 0 && k == root_node && rank != root)
    last = fs_smp_task(b, FS_RECV, rank, root, l->to_leader, FS_FLOW_WRITE, -1);
  if (i == 0 && n->count > 1)
    last = fs_smp_binomial_bcast(b, n->leader, n->count, root_node, k, last, l->leaders);
  if (q > 1) fs_smp_binomial_bcast(b, node, q, 0, i, last, l->node_bcast);
}

static void build(fs_smp_builder *b, const fs_smp_nodes *n) {
  int32_t root = b->o->root;
  bcast_labels l = {0, {0}, {0}};
  if (n->local[root] > 0) l.to_leader = fs_smp_label(b, "to-leader");
  fs_smp_round_labels(b, "leaders", n->count, l.leaders);
  fs_smp_round_labels(b, "node-bcast", n->largest, l.node_bcast);
  for (int32_t rank = 0; rank < n->ranks && b->tasks <= FS_MAX_TASKS; rank++)
    add_rank(b, n, &l, root, rank);
}

fs_program *fs_generate_bcast_smp(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err) ||
      fs_gen_refuse_reduce_time(NAME, o, "a broadcast has no reduction", err))
    return NULL;
  return fs_smp_generate(NAME, o, FS_COLLECTIVE_BCAST, build, err);
}
