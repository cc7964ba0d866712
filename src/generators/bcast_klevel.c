/* bcast_klevel.c: `gen bcast-klevel`, and the schedule `gen scatter-klevel`
 * shares (scatter_klevel.c): the SMP-clusters thesis's kappa-level
 * broadcast and personalized broadcast (Schmollinger 2003, §3.2.3;
 * the SMP-clusters thesis), two-sided, from --root.
 *
 * The machine is the platform's tree (src/platform/platform.h): level 0
 * inside a node, levels 1 .. kappa = top_level above; a level-l group
 * (sub-machine) holds alpha(l) groups of level l-1. Phase 1, levels kappa
 * down to 1 (label level<l>): the holder of each level-l group (at first
 * the root, for the whole machine) sends to one representative in each
 * other level-(l-1) group of it, in cyclic order after its own. Phase 2
 * (label local): the holder of each node sends to every other rank of the
 * node, in cyclic order of their place on the node after its own. The
 * thesis does phase 2 in shared memory (write once, every thread reads:
 * 2 s_0 + 2M/g_local); here it is one local message per other core.
 *
 * The representative of a group is the rank with the root's offset (the
 * thesis leaves it open): on the node at the root's node's offset within
 * the group, at the root's place among that node's ranks. Under a partial
 * mapping (fewer ranks than cores), when that rank does not exist, it is
 * the first rank of the group (by node, then rank); empty groups are
 * skipped. Without a platform every rank is its own node under one level:
 * the root sends to every other rank directly (the thesis's direct 1-level
 * broadcast, in rank order after the root).
 *
 * Broadcast: every message is the whole --size S (1 block). Scatter
 * (--size S = one rank's block, root holds blocks 0..N-1): a representative
 * receives the blocks of every rank of its group (S * ranks, the thesis's
 * M * prod alpha(k)) and forwards sub-parts; phase 2 sends each rank its
 * block. Each send requires (FS_AFTER_END) its rank's one recv; tag 0 (no
 * two messages share a channel). 2(N-1) tasks. */
#include <stdlib.h>
#include <string.h>

#include "generators/generator_support.h"

typedef struct klevel_shape {
  int32_t ranks, nodes, kappa;
  int32_t group_nodes[FS_PLATFORM_MAX_LEVELS + 2]; /* per level 0 .. kappa */
  int32_t *node_of;                                /* rank -> node */
  int32_t *place;                                  /* rank -> its index among its node's ranks */
  int32_t *by_node;                                /* ranks sorted by node, then rank */
  int32_t *node_start; /* by_node[node_start[n] .. node_start[n+1]) are node n's */
} klevel_shape;

typedef struct klevel_message {
  int32_t from, to, level;      /* level 0: phase 2 */
  int32_t first_node, end_node; /* the receiver's group (scatter blocks) */
} klevel_message;

static void shape_free(klevel_shape *s) {
  free(s->node_of);
  free(s->place);
  free(s->by_node);
  free(s->node_start);
}

/* The nodes the plan walks: the platform's, cut after the last node a
 * rank is on, rounded up to a whole group of the largest listed level
 * below the whole machine. Nodes past it hold no rank and the groups that
 * follow none, so the messages are those of the whole platform, without
 * arrays per node of a platform far larger than its ranks. */
static int32_t capped_nodes(const fs_platform *pf) {
  int64_t group = 1;
  for (int32_t l = 0; l < pf->levels; l++)
    if (pf->level[l].group_nodes < pf->nodes) group = pf->level[l].group_nodes;
  int64_t nodes = (pf->used_nodes + group - 1) / group * group;
  return (int32_t)(nodes < pf->nodes ? nodes : pf->nodes);
}

static int shape_of(const char *name, const fs_generator_options *o, klevel_shape *s,
                    fs_error *err) {
  const fs_platform *pf = o->platform;
  memset(s, 0, sizeof *s);
  s->ranks = o->ranks;
  if (pf && (pf->mapping == FS_MAPPING_NONE || pf->ranks != o->ranks))
    return fs_error_set(err, "%s: the platform maps %d ranks, not --ranks %d", name,
                        pf->mapping != FS_MAPPING_NONE ? pf->ranks : 0, o->ranks);
  s->nodes = pf ? capped_nodes(pf) : o->ranks;
  s->kappa = pf ? pf->top_level : 1;
  s->group_nodes[0] = 1;
  for (int32_t l = 1; l <= s->kappa; l++) /* a group of the whole machine: the capped nodes */
    s->group_nodes[l] = pf && l <= pf->levels && pf->level[l - 1].group_nodes < pf->nodes
                            ? pf->level[l - 1].group_nodes
                            : s->nodes;
  s->node_of = malloc((size_t)s->ranks * sizeof *s->node_of);
  s->place = malloc((size_t)s->ranks * sizeof *s->place);
  s->by_node = malloc((size_t)s->ranks * sizeof *s->by_node);
  s->node_start = calloc((size_t)s->nodes + 1, sizeof *s->node_start);
  if (!s->node_of || !s->place || !s->by_node || !s->node_start) {
    shape_free(s);
    return fs_error_set(err, "%s: out of memory", name);
  }
  for (int32_t r = 0; r < s->ranks; r++) {
    s->node_of[r] = pf ? fs_platform_node_of(pf, r) : r;
    s->node_start[s->node_of[r] + 1]++;
  }
  for (int32_t n = 0; n < s->nodes; n++) s->node_start[n + 1] += s->node_start[n];
  int32_t *cursor = calloc((size_t)s->nodes, sizeof *cursor);
  if (!cursor) {
    shape_free(s);
    return fs_error_set(err, "%s: out of memory", name);
  }
  for (int32_t r = 0; r < s->ranks; r++) { /* counting sort: by node, then rank */
    int32_t n = s->node_of[r];
    s->place[r] = cursor[n]++;
    s->by_node[s->node_start[n] + s->place[r]] = r;
  }
  free(cursor);
  return 0;
}

/* The representative of the group of nodes [first, first + count). */
static int32_t representative(const klevel_shape *s, int32_t root, int32_t first, int32_t count) {
  int32_t node = first + s->node_of[root] % count, place = s->place[root];
  if (s->node_start[node] + place < s->node_start[node + 1])
    return s->by_node[s->node_start[node] + place];
  int32_t begin = s->node_start[first], end = s->node_start[first + count];
  return begin < end ? s->by_node[begin] : -1;
}

/* The messages in issue order; returns their count. holder[] has one slot
 * per node (the holder of each group of the current level, by group). */
static int32_t plan(const klevel_shape *s, int32_t root, klevel_message *out, int32_t *holder,
                    int32_t *below) {
  int32_t count = 0;
  holder[0] = root;
  for (int32_t l = s->kappa; l >= 1; l--) {
    int32_t size = s->group_nodes[l], sub = s->group_nodes[l - 1], fanout = size / sub;
    int32_t groups = s->nodes / size;
    for (int32_t g = 0; g < groups * fanout; g++) below[g] = -1;
    for (int32_t g = 0; g < groups; g++) {
      int32_t h = holder[g];
      if (h < 0) continue;
      int32_t own = s->node_of[h] / sub - g * fanout;
      below[g * fanout + own] = h;
      for (int32_t i = 1; i < fanout; i++) {
        int32_t j = g * fanout + (own + i) % fanout;
        int32_t rep = representative(s, root, j * sub, sub);
        if (rep < 0) continue;
        below[j] = rep;
        out[count++] = (klevel_message){h, rep, l, j * sub, (j + 1) * sub};
      }
    }
    memcpy(holder, below, (size_t)(groups * fanout) * sizeof *holder);
  }
  for (int32_t n = 0; n < s->nodes; n++) { /* phase 2 */
    int32_t h = holder[n], begin = s->node_start[n], on_node = s->node_start[n + 1] - begin;
    if (h < 0) continue;
    for (int32_t i = 1; i < on_node; i++) {
      int32_t to = s->by_node[begin + (s->place[h] + i) % on_node];
      out[count++] = (klevel_message){h, to, 0, n, n + 1};
    }
  }
  return count;
}

/* Adds message m: the send after its sender's recv (recv_of[from], or -1
 * for the root), then the recv. */
static int add_message(fs_program *p, const fs_generator_options *o, const klevel_shape *s,
                       const klevel_message *m, int personalized, int32_t label, int32_t *recv_of) {
  int32_t blocks = 1, first = 0;
  if (personalized) {
    first = s->node_start[m->first_node];
    blocks = s->node_start[m->end_node] - first;
    if (m->level == 0) blocks = 1;
  }
  int64_t size = blocks * o->size;
  int32_t send = fs_gen_send(p, m->from, m->to, size, label);
  int32_t recv = fs_gen_recv(p, m->to, m->from, size, label);
  if (send < 0 || recv < 0) return -1;
  recv_of[m->to] = recv;
  if (recv_of[m->from] >= 0 && fs_program_depend(p, send, recv_of[m->from], FS_AFTER_END))
    return -1;
  if (!o->flow) return 0;
  if (!personalized)
    return fs_gen_flow_range(o, send, FS_FLOW_READ, 0, 1) |
           fs_gen_flow_range(o, recv, FS_FLOW_WRITE, 0, 1);
  const int32_t *list = m->level == 0 ? &m->to : s->by_node + first;
  return fs_gen_flow_blocks(o, send, FS_FLOW_READ, list, blocks) |
         fs_gen_flow_blocks(o, recv, FS_FLOW_WRITE, list, blocks);
}

static fs_program *build(const char *name, const fs_generator_options *o, const klevel_shape *s,
                         int personalized, const klevel_message *messages, int32_t count,
                         int32_t *recv_of, fs_error *err) {
  int64_t dependencies = 0;
  for (int32_t i = 0; i < count; i++) dependencies += messages[i].from != o->root;
  fs_program *p = fs_gen_begin(name, s->ranks, 2 * (int64_t)count, dependencies, err);
  if (!p) return NULL;
  int32_t labels[FS_PLATFORM_MAX_LEVELS + 2];
  int failed = (labels[0] = fs_gen_label(p, "local")) < 0;
  for (int32_t l = 1; l <= s->kappa && !failed; l++)
    failed = (labels[l] = fs_gen_label(p, "level%d", l)) < 0;
  if (!failed)
    failed = fs_gen_flow_begin(o, personalized ? FS_COLLECTIVE_SCATTER : FS_COLLECTIVE_BCAST,
                               o->root, personalized ? s->ranks : 1,
                               personalized ? o->size * s->ranks : o->size) != 0;
  for (int32_t r = 0; r < s->ranks; r++) recv_of[r] = -1;
  for (int32_t i = 0; i < count && !failed; i++)
    failed = add_message(p, o, s, &messages[i], personalized, labels[messages[i].level], recv_of) !=
             0;
  return fs_gen_finish_options(name, p, 2 * (int64_t)count, dependencies, failed, o, err);
}

fs_program *fs_generate_klevel(const char *name, const fs_generator_options *o, int personalized,
                               fs_error *err) {
  if (fs_gen_check_common(name, o, err) || fs_gen_check_root(name, o, err)) return NULL;
  if (fs_gen_refuse_reduce_time(name, o, "no reduction", err)) return NULL;
  if (personalized && fs_gen_check_blocks(name, o, err)) return NULL;
  klevel_shape s;
  if (shape_of(name, o, &s, err)) return NULL;
  klevel_message *messages = malloc((size_t)s.ranks * sizeof *messages);
  int32_t *holder = malloc((size_t)s.nodes * sizeof *holder);
  int32_t *below = malloc((size_t)s.nodes * sizeof *below);
  int32_t *recv_of = malloc((size_t)s.ranks * sizeof *recv_of);
  fs_program *p = NULL;
  if (!messages || !holder || !below || !recv_of) {
    fs_error_set(err, "%s: out of memory", name);
  } else {
    int32_t count = plan(&s, o->root, messages, holder, below);
    p = build(name, o, &s, personalized, messages, count, recv_of, err);
  }
  free(messages);
  free(holder);
  free(below);
  free(recv_of);
  shape_free(&s);
  return p;
}

fs_program *fs_generate_bcast_klevel(const fs_generator_options *o, fs_error *err) {
  return fs_generate_klevel("bcast-klevel", o, 0, err);
}
