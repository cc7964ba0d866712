/* reduce_tree.c: `gen reduce-chain`, `gen reduce-binary` and `gen
 * reduce-in-order-binary`: Open MPI's tree reduces, all driven by
 * ompi_coll_base_reduce_generic (coll_base_reduce.c) on one of its trees,
 * for a commutative op (a non-commutative one changes buffers, not calls).
 *
 * - reduce-chain: ompi_coll_base_reduce_intra_chain with one chain (the
 *   4.1/5.0 fixed rules pass fanout 0, which topo_build_chain forces to 1):
 *   relative rank v = (rank - root) mod N receives from v+1 and sends to
 *   v-1. --segment bytes per segment; 0 (Open MPI's fixed rules) or >= S:
 *   one segment.
 * - reduce-binary: ompi_coll_base_reduce_intra_binary, topo_build_tree(2)
 *   on relative ranks (v on level L has children v + 2^L, v + 2^(L+1)),
 *   unsegmented.
 * - reduce-in-order-binary: ompi_coll_base_reduce_intra_in_order_binary,
 *   topo_build_in_order_bintree rooted at rank N-1 (absolute ranks), then
 *   N-1 sends the result to --root when the root is another rank.
 *
 * Per rank, the calls of the generic loop, with k segments and c children
 * (listed as tree_next): for segment s = 0 .. k and child i, the irecv of
 * segment s from child i (s < k), then the wait for the request before it
 * (child i-1's of segment s, or for i = 0 the last child's of segment s-1),
 * then the reduce of what that request brought, and after the last child's
 * reduce of a segment its blocking send to the parent. So each recv
 * requires (FS_AFTER_END) the rank's latest reduce or send before it was
 * posted and the start (FS_AFTER_START) of its previous recv from the same
 * child; each reduce its recv and the rank's previous reduce or send; each
 * send its reduce. Leaves send their k segments with blocking sends (max
 * outstanding requests 0), each after the previous. Open MPI receives the
 * first child's segment straight into the accumulator and reduces its own
 * data into it; here every recv is a temporary reduced into the rank's
 * buffer: the same c reduces of the segment's bytes per segment. A reduce is
 * a compute of the segment's bytes, or of --reduce-time per segment. Tag 0
 * (MCA_COLL_BASE_TAG_REDUCE), CPU 0, NIC 0.
 *
 * Labels: segment<s+1> (chain), level<d> for the trees (d the depth of the
 * child whose data a message or reduce carries), `result` for the in-order
 * tree's forward to the root. The tasks are counted by a dry run of the same
 * walk, so the reservation is exact. Data flow: k blocks (the segments); a
 * send reads its segment, a recv keeps it (FS_FLOW_TEMP), a reduce combines
 * it; the forward writes the root's buffer. */
#include <stdlib.h>

#include "generators/generator_support.h"
#include "generators/ompi_trees.h"

enum shape { CHAIN, BINARY, IN_ORDER };

typedef struct walk {
  const char *name;
  const fs_generator_options *o;
  fs_program *p; /* NULL: only count */
  int64_t tasks, dependencies;
  int failed;
  enum shape shape;
  int64_t segment, segments;
  int32_t *child, *depth, *size; /* child[2r], child[2r+1] by absolute rank (-1: none) */
  int32_t *labels, *seg_labels, result_label;
} walk;

static int64_t segment_size(const walk *w, int64_t s) {
  return s < w->segments - 1 ? w->segment : w->o->size - (w->segments - 1) * w->segment;
}

/* The label of a task of segment s carrying the data of `from`. */
static int32_t label_of(const walk *w, int64_t s, int32_t from) {
  if (!w->p) return -1; /* the dry run has no labels yet */
  return w->shape == CHAIN ? w->seg_labels[s] : w->labels[w->depth[from] - 1];
}

static int32_t add_task(walk *w, fs_task_kind kind, int32_t rank, int32_t peer, int64_t s,
                        int32_t label) {
  if (!w->p) return (int32_t)w->tasks++;
  int32_t t = kind == FS_COMPUTE
                  ? fs_gen_add(w->p, kind, rank, label)
                  : fs_gen_message(w->p, kind, rank, peer, segment_size(w, s), label);
  if (t < 0) return w->failed = 1, -1;
  if (kind == FS_COMPUTE) {
    if (w->o->has_reduce_time)
      fs_task_set_time(w->p, t, w->o->reduce_time);
    else
      fs_task_set_size(w->p, t, segment_size(w, s));
  }
  fs_flow_action action = kind == FS_SEND      ? FS_FLOW_READ
                          : kind == FS_COMPUTE ? FS_FLOW_COMBINE
                                               : FS_FLOW_TEMP;
  if (fs_gen_flow_range(w->o, t, action, (int32_t)s, 1)) w->failed = 1;
  return t;
}

static void depend(walk *w, int32_t task, int32_t on, int point) {
  if (task < 0 || on < 0) return;
  if (!w->p)
    w->dependencies++;
  else if (fs_program_depend(w->p, task, on, point))
    w->failed = 1;
}

/* A leaf's blocking sends of every segment; returns the last. */
static int32_t add_leaf(walk *w, int32_t rank, int32_t parent) {
  int32_t last = -1;
  for (int64_t s = 0; s < w->segments && !w->failed; s++) {
    int32_t send = add_task(w, FS_SEND, rank, parent, s, label_of(w, s, rank));
    depend(w, send, last, FS_AFTER_END);
    last = send;
  }
  return last;
}

/* The generic loop of a rank with c children; returns its last task. */
static int32_t add_inner(walk *w, int32_t rank, int32_t parent, const int32_t *child, int c) {
  int32_t last = -1, pending = -1, previous[2] = {-1, -1}, pending_from = -1;
  for (int64_t s = 0; s <= w->segments && !w->failed; s++)
    for (int i = 0; i < c; i++) {
      int32_t recv = -1;
      if (s < w->segments) {
        recv = add_task(w, FS_RECV, rank, child[i], s, label_of(w, s, child[i]));
        depend(w, recv, last, FS_AFTER_END);
        depend(w, recv, previous[i], FS_AFTER_START);
        previous[i] = recv;
      }
      if (pending >= 0 && (i > 0 || s > 0)) { /* the wait, then the reduce */
        int64_t of = i > 0 ? s : s - 1;
        int32_t reduce = add_task(w, FS_COMPUTE, rank, -1, of, label_of(w, of, pending_from));
        depend(w, reduce, pending, FS_AFTER_END);
        depend(w, reduce, last, FS_AFTER_END);
        last = reduce;
        if (i == 0 && parent >= 0) {
          int32_t send = add_task(w, FS_SEND, rank, parent, of, label_of(w, of, rank));
          depend(w, send, reduce, FS_AFTER_END);
          last = send;
        }
        if (i == 0 && s == w->segments) return last;
      }
      pending = recv, pending_from = child[i];
    }
  return last;
}

/* parent[], child[2r..2r+1], depth[] by absolute rank for w->shape. */
static int build_tree(walk *w, int32_t *parent) {
  int32_t n = w->o->ranks, root = w->o->root;
  if (w->shape == IN_ORDER) {
    fs_ompi_in_order_tree(n, w->child, w->depth, w->size);
  } else {
    for (int32_t v = 0; v < n; v++) {
      int32_t rank = fs_gen_absolute(v, root, n), c[2] = {-1, -1};
      if (w->shape == CHAIN) {
        if (v + 1 < n) c[0] = v + 1;
        w->depth[rank] = v;
      } else {
        fs_ompi_bintree_children(v, n, c);
        w->depth[rank] = fs_ompi_bintree_depth(v);
      }
      for (int i = 0; i < 2; i++)
        w->child[2 * rank + i] = c[i] < 0 ? -1 : fs_gen_absolute(c[i], root, n);
    }
  }
  for (int32_t r = 0; r < n; r++) parent[r] = -1;
  for (int32_t r = 0; r < n; r++)
    for (int i = 0; i < 2; i++)
      if (w->child[2 * r + i] >= 0) parent[w->child[2 * r + i]] = r;
  return 0;
}

/* Every rank's calls (relative order, or absolute for the in-order tree),
 * then the in-order tree's forward of the result to the root. */
static void add_all(walk *w, const int32_t *parent) {
  int32_t n = w->o->ranks, root = w->o->root, top = w->shape == IN_ORDER ? n - 1 : root;
  int32_t last_top = -1, last_root = -1;
  for (int32_t i = 0; i < n && !w->failed; i++) {
    int32_t rank = w->shape == IN_ORDER ? i : fs_gen_absolute(i, root, n), last = -1;
    const int32_t *child = &w->child[2 * rank];
    int c = (child[0] >= 0) + (child[1] >= 0);
    if (c > 0)
      last = add_inner(w, rank, parent[rank], child, c);
    else if (parent[rank] >= 0)
      last = add_leaf(w, rank, parent[rank]);
    if (rank == top) last_top = last;
    if (rank == root) last_root = last;
  }
  if (top == root || w->failed) return;
  int32_t send = add_task(w, FS_SEND, top, root, 0, w->result_label);
  int32_t recv = add_task(w, FS_RECV, root, top, 0, w->result_label);
  depend(w, send, last_top, FS_AFTER_END);
  depend(w, recv, last_root, FS_AFTER_END);
  if (w->p && !w->failed && w->o->flow)
    w->failed = fs_data_flow_range(w->o->flow, recv, FS_FLOW_WRITE, 0, 1) != 0;
}

/* Labels: segment<i> (chain) or level<d>, and `result`. */
static int add_labels(walk *w) {
  if (w->shape == CHAIN) {
    if (!(w->seg_labels = malloc((size_t)w->segments * sizeof *w->seg_labels))) return -1;
    for (int64_t s = 0; s < w->segments; s++) {
      char text[32];
      int length = snprintf(text, sizeof text, "segment%lld", (long long)s + 1);
      if ((w->seg_labels[s] = fs_program_add_label(w->p, text, length)) < 0) return -1;
    }
    return 0;
  }
  int deepest = 0;
  for (int32_t r = 0; r < w->o->ranks; r++)
    if (w->depth[r] > deepest) deepest = w->depth[r];
  if (!(w->labels = malloc((size_t)(deepest + 1) * sizeof *w->labels))) return -1;
  if (fs_gen_numbered_labels(w->p, "level", deepest, w->labels)) return -1;
  return (w->result_label = fs_gen_label(w->p, "result")) < 0 ? -1 : 0;
}

static int begin_flow(const walk *w) {
  if (fs_gen_flow_begin(w->o, FS_COLLECTIVE_REDUCE, w->o->root, (int32_t)w->segments, w->o->size))
    return -1;
  if (w->o->flow)
    for (int64_t s = 0; s < w->segments; s++) w->o->flow->block_size[s] = segment_size(w, s);
  return 0;
}

static int check_options(const walk *w, fs_error *err) {
  if (fs_gen_check_common(w->name, w->o, err) || fs_gen_check_root(w->name, w->o, err)) return -1;
  if (w->o->segment < 0)
    return fs_error_set(err, "%s: --segment must not be negative, not %lld", w->name,
                        (long long)w->o->segment);
  return 0;
}

static fs_program *generate(const char *name, enum shape shape, const fs_generator_options *o,
                            fs_error *err) {
  walk w = {name, o, NULL, 0, 0, 0, shape, o->size, 1, NULL, NULL, NULL, NULL, NULL, -1};
  if (check_options(&w, err)) return NULL;
  if (shape == CHAIN && o->segment > 0 && o->segment < o->size) {
    w.segment = o->segment;
    w.segments = (o->size - 1) / o->segment + 1;
  }
  int32_t n = o->ranks;
  if (n > 1 && w.segments > FS_MAX_TASKS) {
    fs_error_set(err, "%s: %lld segments of %lld bytes are too many", name, (long long)w.segments,
                 (long long)w.segment);
    return NULL;
  }
  int32_t *parent = malloc((size_t)n * sizeof *parent);
  w.child = malloc((size_t)n * 2 * sizeof *w.child);
  w.depth = malloc((size_t)n * sizeof *w.depth);
  w.size = malloc((size_t)n * sizeof *w.size);
  fs_program *p = NULL;
  if (!parent || !w.child || !w.depth || !w.size || build_tree(&w, parent)) {
    fs_error_set(err, "%s: out of memory", name);
  } else {
    add_all(&w, parent); /* the dry run: counts only */
    int64_t tasks = w.tasks, dependencies = w.dependencies;
    if ((p = w.p = fs_gen_begin(name, n, tasks, dependencies, err))) {
      w.failed = add_labels(&w) || begin_flow(&w);
      if (!w.failed) add_all(&w, parent);
      p = fs_gen_finish_options(name, p, tasks, dependencies, w.failed, o, err);
    }
  }
  free(parent), free(w.child), free(w.depth), free(w.size), free(w.labels), free(w.seg_labels);
  return p;
}

fs_program *fs_generate_reduce_chain(const fs_generator_options *o, fs_error *err) {
  return generate("reduce-chain", CHAIN, o, err);
}

fs_program *fs_generate_reduce_binary(const fs_generator_options *o, fs_error *err) {
  return generate("reduce-binary", BINARY, o, err);
}

fs_program *fs_generate_reduce_in_order_binary(const fs_generator_options *o, fs_error *err) {
  return generate("reduce-in-order-binary", IN_ORDER, o, err);
}
