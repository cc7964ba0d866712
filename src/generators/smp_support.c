/* smp_support.c: the nodes and leaders of a mapping and MPICH's binomial
 * trees and recursive doubling over a group of ranks, shared by the
 * SMP-aware generators (see smp_support.h). */
#include "generators/smp_support.h"

#include <stdlib.h>
#include <string.h>

int32_t fs_smp_task(fs_smp_builder *b, fs_task_kind kind, int32_t rank, int32_t peer, int32_t label,
                    fs_flow_action action, int32_t after) {
  int32_t id = (int32_t)b->tasks++;
  if (after >= 0) b->dependencies++;
  if (!b->p || b->failed) return id;
  int32_t t = kind == FS_COMPUTE ? fs_gen_reduce(b->p, rank, label, b->o)
                                 : fs_gen_message(b->p, kind, rank, peer, b->o->size, label);
  if (t != id || (after >= 0 && fs_program_depend(b->p, t, after, FS_AFTER_END))) b->failed = 1;
  fs_gen_flow_range(b->o, t, action, 0, 1); /* a failure shows in o->flow->failed */
  return id;
}

int32_t fs_smp_depend(fs_smp_builder *b, int32_t task, int32_t on) {
  b->dependencies++;
  if (b->p && !b->failed && fs_program_depend(b->p, task, on, FS_AFTER_END)) b->failed = 1;
  return task;
}

void fs_smp_nodes_free(fs_smp_nodes *n) {
  free(n->node);
  free(n->local);
  free(n->first);
  free(n->member);
  free(n->leader);
}

int fs_smp_nodes_init(fs_smp_nodes *n, const char *name, const fs_generator_options *o,
                      fs_error *err) {
  const fs_platform *platform = o->platform;
  int32_t ranks = o->ranks;
  memset(n, 0, sizeof *n);
  if (platform && (platform->mapping == FS_MAPPING_NONE || platform->ranks != ranks))
    return fs_error_set(err, "%s: the platform maps %d ranks, not --ranks %d", name,
                        platform->mapping != FS_MAPPING_NONE ? platform->ranks : 0, ranks);
  size_t r = (size_t)ranks;
  n->ranks = ranks;
  n->node = malloc(r * sizeof *n->node);
  n->local = malloc(r * sizeof *n->local);
  n->first = calloc(r + 2, sizeof *n->first);
  n->member = malloc(r * sizeof *n->member);
  n->leader = malloc(r * sizeof *n->leader);
  /* platform node -> node index, in the order of their first ranks: per
   * node the ranks use, however many nodes the platform has */
  fs_index_map index;
  if (!n->node || !n->local || !n->first || !n->member || !n->leader) {
    fs_smp_nodes_free(n);
    return fs_error_set(err, "%s: out of memory for the nodes of %d ranks", name, ranks);
  }
  if (fs_index_map_init(&index, ranks, "the nodes of the ranks", err)) {
    fs_smp_nodes_free(n);
    return -1;
  }
  for (int32_t rank = 0; rank < ranks; rank++) {
    int32_t id = platform ? fs_platform_node_of(platform, rank) : rank;
    int32_t known = index.count, k = fs_index_map_add(&index, id);
    if (index.count > known) n->leader[k] = rank;
    n->node[rank] = k;
    n->local[rank] = n->first[k + 1]++; /* counts the node's ranks so far */
  }
  n->count = index.count;
  for (int32_t k = 0; k < n->count; k++) {
    if (n->first[k + 1] > n->largest) n->largest = n->first[k + 1];
    n->first[k + 1] += n->first[k];
  }
  for (int32_t rank = 0; rank < ranks; rank++)
    n->member[n->first[n->node[rank]] + n->local[rank]] = rank;
  fs_index_map_free(&index);
  return 0;
}

int32_t fs_smp_node_size(const fs_smp_nodes *n, int32_t k) { return n->first[k + 1] - n->first[k]; }

const int32_t *fs_smp_node_members(const fs_smp_nodes *n, int32_t k) {
  return n->member + n->first[k];
}

void fs_smp_round_labels(fs_smp_builder *b, const char *prefix, int32_t size,
                         int32_t labels[FS_SMP_MAX_ROUNDS]) {
  if (b->p && !b->failed && fs_gen_numbered_labels(b->p, prefix, fs_gen_ceil_log2(size), labels))
    b->failed = 1;
}

int32_t fs_smp_label(fs_smp_builder *b, const char *text) {
  if (!b->p || b->failed) return 0;
  int32_t label = fs_gen_label(b->p, "%s", text);
  if (label < 0) b->failed = 1;
  return label;
}

int32_t fs_smp_binomial_bcast(fs_smp_builder *b, const int32_t *g, int32_t n, int32_t root,
                              int32_t i, int32_t after, const int32_t *labels) {
  int rounds = fs_gen_ceil_log2(n);
  int32_t v = fs_gen_relative(i, root, n), value = after;
  int64_t mask = (int64_t)1 << rounds;
  if (v > 0) {
    mask = v & -v;
    value = fs_smp_task(b, FS_RECV, g[i], g[fs_gen_absolute(v - (int32_t)mask, root, n)],
                        labels[rounds - 1 - fs_gen_floor_log2(mask)], FS_FLOW_WRITE, after);
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n)
      fs_smp_task(b, FS_SEND, g[i], g[fs_gen_absolute(v + (int32_t)mask, root, n)],
                  labels[rounds - 1 - fs_gen_floor_log2(mask)], FS_FLOW_READ, value);
  return value;
}

int32_t fs_smp_binomial_reduce(fs_smp_builder *b, const int32_t *g, int32_t n, int32_t root,
                               int32_t i, int32_t after, const int32_t *labels) {
  int32_t v = fs_gen_relative(i, root, n), last = after;
  for (int64_t mask = 1, round = 0; mask < n; mask <<= 1, round++) {
    if (v & mask)
      return fs_smp_task(b, FS_SEND, g[i], g[fs_gen_absolute(v & ~(int32_t)mask, root, n)],
                         labels[round], FS_FLOW_READ, last);
    if (v + mask < n) {
      int32_t recv = fs_smp_task(b, FS_RECV, g[i], g[fs_gen_absolute(v | (int32_t)mask, root, n)],
                                 labels[round], FS_FLOW_TEMP, last);
      last = fs_smp_task(b, FS_COMPUTE, g[i], -1, labels[round], FS_FLOW_COMBINE, recv);
    }
  }
  return last;
}

int32_t fs_smp_recursive_doubling(fs_smp_builder *b, const int32_t *g, int32_t n, int32_t i,
                                  int32_t after, int32_t collapse, const int32_t *rounds,
                                  int32_t expand) {
  int32_t pof2 = (int32_t)1 << fs_gen_floor_log2(n), rem = n - pof2, last = after;
  if (i < 2 * rem && i % 2 == 0) {
    int32_t send = fs_smp_task(b, FS_SEND, g[i], g[i + 1], collapse, FS_FLOW_READ, last);
    return fs_smp_task(b, FS_RECV, g[i], g[i + 1], expand, FS_FLOW_WRITE, send);
  }
  if (i < 2 * rem) {
    int32_t recv = fs_smp_task(b, FS_RECV, g[i], g[i - 1], collapse, FS_FLOW_TEMP, last);
    last = fs_smp_task(b, FS_COMPUTE, g[i], -1, collapse, FS_FLOW_COMBINE, recv);
  }
  int32_t active = i < 2 * rem ? i / 2 : i - rem;
  for (int32_t mask = 1, round = 0; mask < pof2; mask <<= 1, round++) {
    int32_t partner = active ^ mask;
    int32_t peer = g[partner < rem ? 2 * partner + 1 : partner + rem];
    int32_t recv = fs_smp_task(b, FS_RECV, g[i], peer, rounds[round], FS_FLOW_TEMP, last);
    int32_t send = fs_smp_task(b, FS_SEND, g[i], peer, rounds[round], FS_FLOW_READ, last);
    last = fs_smp_depend(b,
                         fs_smp_task(b, FS_COMPUTE, g[i], -1, rounds[round], FS_FLOW_COMBINE, recv),
                         send);
  }
  if (i < 2 * rem) last = fs_smp_task(b, FS_SEND, g[i], g[i - 1], expand, FS_FLOW_READ, last);
  return last;
}

fs_program *fs_smp_generate(const char *name, const fs_generator_options *o,
                            fs_collective collective,
                            void (*build)(fs_smp_builder *b, const fs_smp_nodes *n),
                            fs_error *err) {
  fs_smp_nodes n;
  if (fs_smp_nodes_init(&n, name, o, err)) return NULL;
  fs_smp_builder count = {.o = o};
  build(&count, &n);
  fs_program *p = fs_gen_begin(name, o->ranks, count.tasks, count.dependencies, err);
  if (!p) {
    fs_smp_nodes_free(&n);
    return NULL;
  }
  fs_smp_builder b = {.p = p, .o = o};
  b.failed |= fs_gen_flow_begin(o, collective, o->root, 1, o->size);
  build(&b, &n);
  fs_smp_nodes_free(&n);
  return fs_gen_finish_options(name, p, count.tasks, count.dependencies, b.failed, o, err);
}
