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

#include <stdlib.h>
#include <string.h>

#include "generator_support.h"

#define SMP_MAX_ROUNDS 32

/* The builder: counts while p is NULL, else adds; ids are the same in both
 * passes, so a count pass followed by a build pass reserves exactly. */
typedef struct smp_builder {
  fs_program *p;
  const fs_generator_options *o;
  int64_t tasks, dependencies;
  int failed;
} smp_builder;

/* Adds a task (a send/recv of S bytes to/from peer, or a reduce) doing
 * `action` on block 0 after `after` (-1: nothing); returns its id. */
static inline int32_t smp_task(smp_builder *b, fs_task_kind kind, int32_t rank, int32_t peer,
                               int32_t label, fs_flow_action action, int32_t after) {
  int32_t id = (int32_t)b->tasks++;
  if (after >= 0) b->dependencies++;
  if (!b->p || b->failed) return id;
  int32_t t = kind == FS_COMPUTE ? fs_gen_reduce(b->p, rank, label, b->o)
                                 : fs_gen_message(b->p, kind, rank, peer, b->o->size, label);
  if (t != id || (after >= 0 && fs_program_depend(b->p, t, after, FS_AFTER_END))) b->failed = 1;
  fs_gen_flow_range(b->o, t, action, 0, 1); /* a failure shows in o->flow->failed */
  return id;
}

static inline int32_t smp_depend(smp_builder *b, int32_t task, int32_t on) {
  b->dependencies++;
  if (b->p && !b->failed && fs_program_depend(b->p, task, on, FS_AFTER_END)) b->failed = 1;
  return task;
}

/* The nodes of a mapping. */
typedef struct smp_nodes {
  int32_t ranks, count;  /* count: nodes holding ranks */
  int32_t *node;         /* rank -> node index (leader order) */
  int32_t *local;        /* rank -> local rank */
  int32_t *first;        /* node index -> its ranks are member[first[k] .. first[k+1]) */
  int32_t *member;       /* the ranks of each node in rank order, nodes in leader order */
  int32_t *leader;       /* node index -> its leader */
  int32_t largest;       /* ranks on the fullest node */
} smp_nodes;

static inline void smp_nodes_free(smp_nodes *n) {
  free(n->node);
  free(n->local);
  free(n->first);
  free(n->member);
  free(n->leader);
}

/* Reads the mapping; -1 with err set when it does not fit the options or
 * memory runs out. */
static inline int smp_nodes_init(smp_nodes *n, const char *name, const fs_generator_options *o,
                                 fs_error *err) {
  const fs_platform *platform = o->platform;
  int32_t ranks = o->ranks;
  memset(n, 0, sizeof *n);
  if (platform && (!platform->node || platform->ranks != ranks))
    return fs_error_set(err, "%s: the platform maps %d ranks, not --ranks %d", name,
                        platform->node ? platform->ranks : 0, ranks);
  int32_t ids = platform ? platform->nodes : ranks;
  size_t r = (size_t)ranks;
  n->ranks = ranks;
  n->node = malloc(r * sizeof *n->node);
  n->local = malloc(r * sizeof *n->local);
  n->first = calloc(r + 2, sizeof *n->first);
  n->member = malloc(r * sizeof *n->member);
  n->leader = malloc(r * sizeof *n->leader);
  int32_t *index = malloc((size_t)ids * sizeof *index); /* platform node -> node index */
  if (!n->node || !n->local || !n->first || !n->member || !n->leader || !index) {
    free(index);
    smp_nodes_free(n);
    return fs_error_set(err, "%s: out of memory for the nodes of %d ranks", name, ranks);
  }
  for (int32_t i = 0; i < ids; i++) index[i] = -1;
  for (int32_t rank = 0; rank < ranks; rank++) {
    int32_t id = platform ? fs_platform_node_of(platform, rank) : rank;
    if (index[id] < 0) n->leader[n->count] = rank, index[id] = n->count++;
    n->node[rank] = index[id];
    n->local[rank] = n->first[index[id] + 1]++; /* counts the node's ranks so far */
  }
  for (int32_t k = 0; k < n->count; k++) {
    if (n->first[k + 1] > n->largest) n->largest = n->first[k + 1];
    n->first[k + 1] += n->first[k];
  }
  for (int32_t rank = 0; rank < ranks; rank++)
    n->member[n->first[n->node[rank]] + n->local[rank]] = rank;
  free(index);
  return 0;
}

static inline int32_t smp_node_size(const smp_nodes *n, int32_t k) {
  return n->first[k + 1] - n->first[k];
}
static inline const int32_t *smp_node_members(const smp_nodes *n, int32_t k) {
  return n->member + n->first[k];
}

/* Labels "<prefix><i+1>" for the rounds of a tree on up to `size` members;
 * nothing while counting. */
static inline void smp_round_labels(smp_builder *b, const char *prefix, int32_t size,
                                    int32_t labels[SMP_MAX_ROUNDS]) {
  if (b->p && !b->failed && fs_gen_numbered_labels(b->p, prefix, fs_gen_ceil_log2(size), labels))
    b->failed = 1;
}

static inline int32_t smp_label(smp_builder *b, const char *text) {
  if (!b->p || b->failed) return 0;
  int32_t label = fs_gen_label(b->p, "%s", text);
  if (label < 0) b->failed = 1;
  return label;
}

/* Member i of group g (n members) in MPICH's binomial broadcast from member
 * root: the recv from v - lowbit(v) (v = i - root mod n) after `after`, then
 * the sends to v + m, m = lowbit(v)/2, ..., 1 (the root: from the highest
 * power of 2 below n), each after the recv. Round labels in time order: a
 * message of mask m is in round ceil(log2 n) - log2 m. Returns the task
 * holding the data: the recv, or `after` for the root. */
static inline int32_t smp_binomial_bcast(smp_builder *b, const int32_t *g, int32_t n,
                                         int32_t root, int32_t i, int32_t after,
                                         const int32_t *labels) {
  int rounds = fs_gen_ceil_log2(n);
  int32_t v = fs_gen_relative(i, root, n), value = after;
  int64_t mask = (int64_t)1 << rounds;
  if (v > 0) {
    mask = v & -v;
    value = smp_task(b, FS_RECV, g[i], g[fs_gen_absolute(v - (int32_t)mask, root, n)],
                     labels[rounds - 1 - fs_gen_floor_log2(mask)], FS_FLOW_WRITE, after);
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n)
      smp_task(b, FS_SEND, g[i], g[fs_gen_absolute(v + (int32_t)mask, root, n)],
               labels[rounds - 1 - fs_gen_floor_log2(mask)], FS_FLOW_READ, value);
  return value;
}

/* Member i of group g in MPICH's binomial reduce to member root: for mask
 * m = 1, 2, ...: while bit m of v is clear, the recv (TEMP) from v | m when
 * it is a member, after the rank's previous task, and the reduce of it;
 * at the first set bit, the send to v & ~m, and done. Labels: round
 * log2 m + 1. Returns the member's last task (the send, or the root's last
 * reduce, or `after`). */
static inline int32_t smp_binomial_reduce(smp_builder *b, const int32_t *g, int32_t n,
                                          int32_t root, int32_t i, int32_t after,
                                          const int32_t *labels) {
  int32_t v = fs_gen_relative(i, root, n), last = after;
  for (int64_t mask = 1, round = 0; mask < n; mask <<= 1, round++) {
    if (v & mask)
      return smp_task(b, FS_SEND, g[i], g[fs_gen_absolute(v & ~(int32_t)mask, root, n)],
                      labels[round], FS_FLOW_READ, last);
    if (v + mask < n) {
      int32_t recv = smp_task(b, FS_RECV, g[i], g[fs_gen_absolute(v | (int32_t)mask, root, n)],
                              labels[round], FS_FLOW_TEMP, last);
      last = smp_task(b, FS_COMPUTE, g[i], -1, labels[round], FS_FLOW_COMBINE, recv);
    }
  }
  return last;
}

/* Member i of group g in MPICH's recursive-doubling allreduce (pof2 = the
 * largest power of 2 <= n, rem = n - pof2): even i < 2 rem sends to i+1 and
 * later receives the result from it; odd i < 2 rem receives and reduces
 * (collapse) and finally sends the result to i-1 (expand); the pof2 active
 * members (new rank i/2 or i - rem) exchange with new rank ^ mask for mask
 * = 1, 2, ..., pof2/2, as MPIC_Sendrecv (recv, then send, both after the
 * previous step) and reduce after both. Labels: collapse, rounds[j],
 * expand. Returns the member's last task. */
static inline int32_t smp_recursive_doubling(smp_builder *b, const int32_t *g, int32_t n,
                                             int32_t i, int32_t after, int32_t collapse,
                                             const int32_t *rounds, int32_t expand) {
  int32_t pof2 = (int32_t)1 << fs_gen_floor_log2(n), rem = n - pof2, last = after;
  if (i < 2 * rem && i % 2 == 0) {
    int32_t send = smp_task(b, FS_SEND, g[i], g[i + 1], collapse, FS_FLOW_READ, last);
    return smp_task(b, FS_RECV, g[i], g[i + 1], expand, FS_FLOW_WRITE, send);
  }
  if (i < 2 * rem) {
    int32_t recv = smp_task(b, FS_RECV, g[i], g[i - 1], collapse, FS_FLOW_TEMP, last);
    last = smp_task(b, FS_COMPUTE, g[i], -1, collapse, FS_FLOW_COMBINE, recv);
  }
  int32_t active = i < 2 * rem ? i / 2 : i - rem;
  for (int32_t mask = 1, round = 0; mask < pof2; mask <<= 1, round++) {
    int32_t partner = active ^ mask;
    int32_t peer = g[partner < rem ? 2 * partner + 1 : partner + rem];
    int32_t recv = smp_task(b, FS_RECV, g[i], peer, rounds[round], FS_FLOW_TEMP, last);
    int32_t send = smp_task(b, FS_SEND, g[i], peer, rounds[round], FS_FLOW_READ, last);
    last = smp_depend(b, smp_task(b, FS_COMPUTE, g[i], -1, rounds[round], FS_FLOW_COMBINE, recv),
                      send);
  }
  if (i < 2 * rem) last = smp_task(b, FS_SEND, g[i], g[i - 1], expand, FS_FLOW_READ, last);
  return last;
}

#endif
