/* smp_support.h: what the SMP-aware generators (allreduce_smp.c,
 * bcast_smp.c, reduce_smp.c) share: the nodes of the platform's mapping as
 * MPICH sees them, and MPICH's binomial trees and recursive doubling on a
 * group of ranks, built by a two-pass builder that first counts the tasks and
 * dependencies (so the reservation is exact for any mapping) and then adds
 * them.
 *
 * Nodes (MPICH's MPIR_Find_local_and_external): the ranks of a node, in rank
 * order, form its node_comm (local rank = position); its lowest rank is the
 * leader (local rank 0) and the leaders, in rank order, form node_roots_comm
 * (a node's index is its leader's position there). A NULL platform puts
 * every rank on its own node. Only nodes that hold ranks count.
 *
 * Groups: MPICH's binomial bcast (MPIR_Bcast_intra_binomial) and reduce
 * (MPIR_Reduce_intra_binomial, commutative op: rooted at the root itself)
 * and recursive doubling (MPIR_Allreduce_intra_recursive_doubling, with its
 * collapse of the first 2*rem ranks and the expand after) run on a group:
 * an array of ranks, a member's position being its rank in the sub-
 * communicator. Each function adds one member's tasks, in MPICH's issue
 * order; the generators lay out tasks rank by rank, so every dependency (all
 * within a rank) points to an earlier task. One tag (0) as MPICH's
 * MPIR_*_TAG: no channel carries two messages of one collective.
 *
 * One block of S bytes (the whole vector): sends READ it, recvs WRITE it
 * (broadcasts, expand) or keep it as TEMP for a reduce compute of S bytes
 * (--reduce-time) that COMBINEs it. */
#ifndef FS_SMP_SUPPORT_H
#define FS_SMP_SUPPORT_H

#include "generators/generator_support.h"

#define FS_SMP_MAX_ROUNDS 32

/* The builder: counts while p is NULL, else adds; ids are the same in both
 * passes, so a count pass followed by a build pass reserves exactly. */
typedef struct fs_smp_builder {
  fs_program *p;
  const fs_generator_options *o;
  int64_t tasks, dependencies;
  int failed;
} fs_smp_builder;

/* Adds a task (a send/recv of S bytes to/from peer, or a reduce) doing
 * `action` on block 0 after `after` (-1: nothing); returns its id. */
int32_t fs_smp_task(fs_smp_builder *b, fs_task_kind kind, int32_t rank, int32_t peer, int32_t label,
                    fs_flow_action action, int32_t after);

int32_t fs_smp_depend(fs_smp_builder *b, int32_t task, int32_t on);

/* The nodes of a mapping. */
typedef struct fs_smp_nodes {
  int32_t ranks, count; /* count: nodes holding ranks */
  int32_t *node;        /* rank -> node index (leader order) */
  int32_t *local;       /* rank -> local rank */
  int32_t *first;       /* node index -> its ranks are member[first[k] .. first[k+1]) */
  int32_t *member;      /* the ranks of each node in rank order, nodes in leader order */
  int32_t *leader;      /* node index -> its leader */
  int32_t largest;      /* ranks on the fullest node */
} fs_smp_nodes;

void fs_smp_nodes_free(fs_smp_nodes *n);

/* Reads the mapping; -1 with err set when it does not fit the options or
 * memory runs out. */
int fs_smp_nodes_init(fs_smp_nodes *n, const char *name, const fs_generator_options *o,
                      fs_error *err);

int32_t fs_smp_node_size(const fs_smp_nodes *n, int32_t k);
const int32_t *fs_smp_node_members(const fs_smp_nodes *n, int32_t k);

/* Labels "<prefix><i+1>" for the rounds of a tree on up to `size` members;
 * nothing while counting. */
void fs_smp_round_labels(fs_smp_builder *b, const char *prefix, int32_t size,
                         int32_t labels[FS_SMP_MAX_ROUNDS]);

int32_t fs_smp_label(fs_smp_builder *b, const char *text);

/* Member i of group g (n members) in MPICH's binomial broadcast from member
 * root: the recv from v - lowbit(v) (v = i - root mod n) after `after`, then
 * the sends to v + m, m = lowbit(v)/2, ..., 1 (the root: from the highest
 * power of 2 below n), each after the recv. Round labels in time order: a
 * message of mask m is in round ceil(log2 n) - log2 m. Returns the task
 * holding the data: the recv, or `after` for the root. */
int32_t fs_smp_binomial_bcast(fs_smp_builder *b, const int32_t *g, int32_t n, int32_t root,
                              int32_t i, int32_t after, const int32_t *labels);

/* Member i of group g in MPICH's binomial reduce to member root: for mask
 * m = 1, 2, ...: while bit m of v is clear, the recv (TEMP) from v | m when
 * it is a member, after the rank's previous task, and the reduce of it;
 * at the first set bit, the send to v & ~m, and done. Labels: round
 * log2 m + 1. Returns the member's last task (the send, or the root's last
 * reduce, or `after`). */
int32_t fs_smp_binomial_reduce(fs_smp_builder *b, const int32_t *g, int32_t n, int32_t root,
                               int32_t i, int32_t after, const int32_t *labels);

/* Member i of group g in MPICH's recursive-doubling allreduce (pof2 = the
 * largest power of 2 <= n, rem = n - pof2): even i < 2 rem sends to i+1 and
 * later receives the result from it; odd i < 2 rem receives and reduces
 * (collapse) and finally sends the result to i-1 (expand); the pof2 active
 * members (new rank i/2 or i - rem) exchange with new rank ^ mask for mask
 * = 1, 2, ..., pof2/2, as MPIC_Sendrecv (recv, then send, both after the
 * previous step) and reduce after both. Labels: collapse, rounds[j],
 * expand. Returns the member's last task. */
int32_t fs_smp_recursive_doubling(fs_smp_builder *b, const int32_t *g, int32_t n, int32_t i,
                                  int32_t after, int32_t collapse, const int32_t *rounds,
                                  int32_t expand);

/* Runs `build` twice over the mapping's nodes, counting then adding, so
 * the program is reserved exactly; declares the data flow as `collective`
 * over one block of S bytes. The program, or NULL with err set. */
fs_program *fs_smp_generate(const char *name, const fs_generator_options *o,
                            fs_collective collective,
                            void (*build)(fs_smp_builder *b, const fs_smp_nodes *n), fs_error *err);

#endif
