/* bcast_split_binary.c: `gen bcast-split-binary`: Open MPI's split binary
 * tree broadcast (ompi_coll_base_bcast_intra_split_bintree), unsegmented as
 * the 4.1/5.0 fixed rules call it (segsize 0), from --root.
 *
 * The S bytes are split into half 0 (ceil(S/2) bytes) and half 1 (the
 * rest). Relative ranks v = (rank - root) mod N form topo_build_tree(2): v
 * on level L has children v + 2^L and v + 2^(L+1), so the subtree of v = 1
 * holds the odd ranks, that of v = 2 the even ones.
 * - Phase 1: the root sends half 0 to 1 and half 1 to 2 (blocking sends,
 *   the second after the first); every other rank receives its subtree's
 *   half from its parent and forwards it to its children with blocking
 *   sends, in order.
 * - Phase 2: odd v pairs with v+1. With N odd every non-root rank does one
 *   sendrecv with its pair (its half out, the other half in: the irecv and
 *   the send both after the rank's last phase-1 call); with N even, v = N-1
 *   has no pair: the root sends it half 1 and it receives that.
 * When a half is empty (S < 2) Open MPI runs the chain broadcast instead
 * (ompi_coll_base_bcast_intra_chain, fanout 1, unsegmented): v receives
 * from v-1 and isends to v+1. N = 1: nothing.
 *
 * Tag 0 (MCA_COLL_BASE_TAG_BCAST), CPU 0, NIC 0, no compute. Labels:
 * level<d> (phase 1, d the receiver's depth), exchange (phase 2), chain.
 * 4(N-1) tasks, 3N-4 dependencies (N >= 2; the chain: 2(N-1) and N-2).
 * Phase 1 is laid out rank by rank in relative order, then phase 2. Data
 * flow: blocks 0 and 1, the halves (one block in the chain). */
#include <stdlib.h>

#include "generators/generator_support.h"
#include "generators/ompi_trees.h"

static const char NAME[] = "bcast-split-binary";

typedef struct split {
  const fs_generator_options *o;
  fs_program *p;
  int64_t half[2];
  int32_t *last; /* per relative rank: its latest phase-1 task (-1: none) */
  int32_t exchange;
  int failed;
} split;

/* A message of half h between relative ranks, after `after` (-1: none). */
static int32_t add(split *s, fs_task_kind kind, int32_t v, int32_t peer, int h, int32_t label,
                   int32_t after) {
  int32_t n = s->o->ranks, root = s->o->root;
  int32_t t = fs_gen_message(s->p, kind, fs_gen_absolute(v, root, n),
                             fs_gen_absolute(peer, root, n), s->half[h], label);
  fs_flow_action action = kind == FS_SEND ? FS_FLOW_READ : FS_FLOW_WRITE;
  if (t < 0 || fs_gen_flow_range(s->o, t, action, h, 1) ||
      (after >= 0 && fs_program_depend(s->p, t, after, FS_AFTER_END)))
    s->failed = 1;
  return t;
}

/* Phase 1 for relative rank v: its recv, then its blocking sends. */
static void add_tree_rank(split *s, int32_t v, const int32_t *labels) {
  int h = v == 0 ? 0 : (v + 1) % 2; /* odd v: half 0 */
  int32_t child[2], last = -1;
  if (v > 0) {
    int32_t parent = v < 3 ? 0 : v; /* the parent is found by the tree's rule */
    if (v >= 3) {
      int32_t delta = 1;
      while (2 * (int64_t)delta - 1 <= v) delta *= 2; /* 2^L of v's level */
      parent = v - delta / 2 < delta - 1 ? v - delta / 2 : v - delta;
    }
    last = add(s, FS_RECV, v, parent, h, labels[fs_ompi_bintree_depth(v) - 1], -1);
  }
  int count = fs_ompi_bintree_children(v, s->o->ranks, child);
  for (int i = 0; i < count && !s->failed; i++)
    last = add(s, FS_SEND, v, child[i], v == 0 ? i : h, labels[fs_ompi_bintree_depth(child[i]) - 1],
               last);
  s->last[v] = last;
}

/* Phase 2: pairs (v, v+1) for odd v, and with N even the root to N-1. */
static void add_exchange(split *s) {
  int32_t n = s->o->ranks;
  for (int32_t v = 1; v < n && !s->failed; v += 2) {
    if (v + 1 == n) { /* N even: the root sends half 1 to v = N-1 */
      add(s, FS_SEND, 0, v, 1, s->exchange, s->last[0]);
      add(s, FS_RECV, v, 0, 1, s->exchange, s->last[v]);
      continue;
    }
    for (int32_t side = 0; side < 2; side++) { /* v (half 0), then v+1 (half 1) */
      int32_t me = v + side, pair = v + 1 - side;
      add(s, FS_RECV, me, pair, 1 - side, s->exchange, s->last[me]);
      add(s, FS_SEND, me, pair, side, s->exchange, s->last[me]);
    }
  }
}

/* Open MPI's fallback when a half is empty: the unsegmented chain. */
static int add_chain(split *s) {
  int32_t label = fs_gen_label(s->p, "chain"), n = s->o->ranks;
  s->half[0] = s->o->size;
  for (int32_t v = 0; v < n && label >= 0 && !s->failed; v++) {
    int32_t recv = v > 0 ? add(s, FS_RECV, v, v - 1, 0, label, -1) : -1;
    if (v + 1 < n) add(s, FS_SEND, v, v + 1, 0, label, recv);
  }
  return label < 0 || s->failed;
}

fs_program *fs_generate_bcast_split_binary(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err) ||
      fs_gen_refuse_reduce_time(NAME, o, "a bcast has no reduction", err))
    return NULL;
  int32_t n = o->ranks;
  int chain = o->size < 2;
  int64_t tasks = n < 2 ? 0 : chain ? 2 * ((int64_t)n - 1) : 4 * ((int64_t)n - 1);
  int64_t dependencies = n < 2 ? 0 : chain ? (int64_t)n - 2 : 3 * (int64_t)n - 4;
  split s = {o, NULL, {(o->size + 1) / 2, o->size / 2}, malloc((size_t)n * sizeof(int32_t)), -1, 0};
  if (!s.last) {
    fs_error_set(err, "%s: out of memory", NAME);
    return NULL;
  }
  if (!(s.p = fs_gen_begin(NAME, n, tasks, dependencies, err))) return free(s.last), NULL;
  int32_t labels[32];
  int failed = fs_gen_flow_begin(o, FS_COLLECTIVE_BCAST, o->root, chain ? 1 : 2, o->size);
  if (!failed && chain) {
    failed = n > 1 && add_chain(&s);
  } else if (!failed && n > 1) {
    failed = fs_gen_numbered_labels(s.p, "level", fs_ompi_bintree_depth(n - 1), labels) ||
             (s.exchange = fs_gen_label(s.p, "exchange")) < 0;
    for (int32_t v = 0; v < n && !failed && !s.failed; v++) add_tree_rank(&s, v, labels);
    if (!failed && !s.failed) add_exchange(&s);
  }
  free(s.last);
  return fs_gen_finish_options(NAME, s.p, tasks, dependencies, failed || s.failed, o, err);
}
