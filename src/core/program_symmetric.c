/* program_symmetric.c: rank-symmetric programs (symmetric.h): building a template,
 * finalizing it (successor edges, needs, checks), the successors of one
 * task, and the explicit copy of the whole program.
 *
 * Sections: building; finalizing; reading a task; successors; materializing. */
#include <stdlib.h>
#include <string.h>

#include "core/program.h"

/* ---- building ---- */

static fs_divider divider_of(uint32_t d) {
  uint32_t l = 0;
  while (((uint64_t)1 << l) < d) l++;
  uint64_t top = (uint64_t)1 << (31 + l);
  return (fs_divider){(top + d - 1) / d, 31 + l};
}

fs_program *fs_program_new_symmetric(int32_t ranks, int32_t width, int32_t blocks) {
  if (ranks < 1 || width < 1 || blocks < 1 || (int64_t)ranks * width * blocks > FS_MAX_TASKS)
    return NULL;
  fs_program *p = fs_program_new(ranks);
  fs_symmetric *s = calloc(1, sizeof *s);
  int32_t count = width * blocks;
  fs_template_task *task = s ? calloc((size_t)count + 1, sizeof *task) : NULL;
  if (!p || !task) {
    free(task);
    free(s);
    fs_program_free(p);
    return NULL;
  }
  *s = (fs_symmetric){.ranks = ranks,
                      .width = width,
                      .blocks = blocks,
                      .count = count,
                      .task = task,
                      .rank_mask = ranks - 1,
                      .per_block = divider_of((uint32_t)ranks * (uint32_t)width),
                      .per_rank = divider_of((uint32_t)width)};
  for (int32_t k = 0; k <= count; k++) task[k] = (fs_template_task){.kind = FS_START, .label = -1};
  p->symmetric = s;
  p->tasks = p->capacity = ranks * width * blocks; /* fs_program_add refuses: full */
  return p;
}

fs_template_task *fs_template_at(fs_program *p, int32_t k) {
  fs_symmetric *s = p->symmetric;
  return s && !p->finalized && k >= 0 && k < s->count ? &s->task[k] : NULL;
}

/* Is c a valid argument of rule over `ranks` ranks? */
static int rule_fits(int rule, int32_t c, int32_t ranks) {
  if (rule == FS_RULE_NONE) return c == 0;
  if (rule == FS_RULE_XOR) return (ranks & (ranks - 1)) == 0 && c >= 0 && c < ranks;
  return rule == FS_RULE_ADD && c >= 0 && c < ranks;
}

int fs_template_depend(fs_program *p, int32_t k, int32_t on, int rule, int32_t c, int point) {
  fs_symmetric *s = p->symmetric;
  if (!s || p->finalized || k < 0 || k >= s->count || on < 0 || on >= s->count) return -1;
  if (point < FS_AFTER_END || point > FS_AFTER_START || !rule_fits(rule, c, s->ranks)) return -1;
  if (fs_grow(&s->edge, &s->edge_capacity, (int64_t)s->edges + 1, sizeof *s->edge, 16)) return -1;
  uint32_t flag = point == FS_AFTER_LOCAL   ? FS_EDGE_LOCAL
                  : point == FS_AFTER_START ? FS_EDGE_START
                                            : 0;
  s->edge[s->edges++] =
      (fs_template_edge){.task = on, .to = k, .arg = c, .point = flag, .rule = (uint8_t)rule};
  return 0;
}

/* ---- finalizing ---- */

/* An edge's group in a successor list: start, local, then completion. */
static int edge_group(uint32_t point) {
  return point == FS_EDGE_START ? 0 : point == FS_EDGE_LOCAL ? 1 : 2;
}

/* Successor order, where it does not depend on the rank: by the task they
 * follow, group, the successor's block, rule, then its place in the block;
 * the original order last (a stable sort). */
static int edge_before(const fs_symmetric *s, const fs_template_edge *a,
                       const fs_template_edge *b) {
  int32_t ga = edge_group(a->point), gb = edge_group(b->point);
  int32_t ba = a->to / s->width, bb = b->to / s->width;
  if (a->task != b->task) return a->task < b->task;
  if (ga != gb) return ga < gb;
  if (ba != bb) return ba < bb;
  if (a->rule != b->rule) return a->rule < b->rule;
  if (a->arg != b->arg) return a->arg < b->arg;
  return a->to % s->width < b->to % s->width;
}

static void sort_edges(fs_symmetric *s) { /* insertion sort: templates are small */
  for (int32_t i = 1; i < s->edges; i++) {
    fs_template_edge item = s->edge[i];
    int32_t j = i;
    for (; j > 0 && edge_before(s, &item, &s->edge[j - 1]); j--) s->edge[j] = s->edge[j - 1];
    s->edge[j] = item;
  }
}

/* Turns each dependency into its successor edge (the inverse rule). */
static void invert_edges(fs_symmetric *s) {
  for (int32_t i = 0; i < s->edges; i++) {
    fs_template_edge *e = &s->edge[i];
    if (e->rule == FS_RULE_ADD && e->arg) e->arg = s->ranks - e->arg;
  }
}

/* Marks the template tasks whose successors in one group and block follow
 * different rules: their order depends on the rank, fs_symmetric_successors
 * sorts them. */
static void mark_sorted(fs_symmetric *s) {
  for (int32_t i = 1; i < s->edges; i++) {
    const fs_template_edge *a = &s->edge[i - 1], *b = &s->edge[i];
    if (a->task == b->task && edge_group(a->point) == edge_group(b->point) &&
        a->to / s->width == b->to / s->width && (a->rule != b->rule || a->arg != b->arg))
      s->task[a->task].sort = 1;
  }
}

static int check_task(const fs_program *p, int32_t k, const int32_t *degree, fs_error *err) {
  const fs_template_task *t = &p->symmetric->task[k];
  int kind = t->kind, transfer = kind >= FS_PUT && kind < FS_TASK_KINDS;
  if (kind >= FS_TASK_KINDS) return fs_error_set(err, "template task %d: kind %d", k, kind);
  if (transfer ? (t->peer_rule == FS_RULE_NONE && kind != FS_RECV) ||
                     !rule_fits(t->peer_rule, t->peer, p->ranks)
               : t->peer_rule != FS_RULE_NONE)
    return fs_error_set(err, "template task %d: its peer rule does not fit %d ranks", k, p->ranks);
  if ((t->flags & FS_HAS_ANY) && (t->need < 1 || t->need > degree[k]))
    return fs_error_set(err, "template task %d: any=%d but it has %d dependencies", k, t->need,
                        degree[k]);
  return 0;
}

/* Needs, checks, successor edges, task ids; then the program's counts. */
int fs_symmetric_finalize(fs_program *p, fs_error *err) {
  fs_symmetric *s = p->symmetric;
  int32_t *degree = calloc((size_t)s->count + 1, sizeof *degree);
  if (!degree) return fs_error_set(err, "out of memory finalizing a template");
  for (int32_t i = 0; i < s->edges; i++) degree[s->edge[i].to]++;
  int64_t starts = 0;
  p->cpus = p->nics = 1;
  for (int32_t k = 0; k < s->count; k++) {
    fs_template_task *t = &s->task[k];
    if (check_task(p, k, degree, err)) return free(degree), -1;
    if (!(t->flags & FS_HAS_ANY)) t->need = degree[k];
    t->first = (k / s->width) * s->ranks * s->width + k % s->width;
    if (t->cpu + 1 > p->cpus) p->cpus = t->cpu + 1;
    if (t->nic + 1 > p->nics) p->nics = t->nic + 1;
  }
  free(degree);
  invert_edges(s);
  sort_edges(s);
  mark_sorted(s);
  for (int32_t i = 0, k = 0; k <= s->count; k++) {
    s->task[k].edge_at = (uint32_t)i;
    while (i < s->edges && s->edge[i].task == k) starts += s->edge[i++].point == FS_EDGE_START;
    if (k < s->count && i - (int32_t)s->task[k].edge_at > FS_TEMPLATE_MAX_EDGES)
      return fs_error_set(err, "template task %d: more than %d successors", k,
                          FS_TEMPLATE_MAX_EDGES);
  }
  p->dependencies = (int64_t)s->edges * s->ranks;
  p->start_dependencies = starts * s->ranks;
  p->slots = p->ranks;
  return 0;
}

/* ---- reading a task (program.h's accessors) ---- */

int fs_symmetric_kind(const fs_program *p, int32_t t) { return fs_template_of(p, t)->kind; }
int fs_symmetric_flags(const fs_program *p, int32_t t) { return fs_template_of(p, t)->flags; }
int32_t fs_symmetric_rank(const fs_program *p, int32_t t) {
  int32_t rank;
  fs_symmetric_split(p->symmetric, t, &rank);
  return rank;
}
int32_t fs_symmetric_peer_of(const fs_program *p, int32_t t) {
  return fs_symmetric_peer(p->symmetric, t);
}
int64_t fs_symmetric_value(const fs_program *p, int32_t t) { return fs_template_of(p, t)->value; }
int32_t fs_symmetric_need(const fs_program *p, int32_t t) { return fs_template_of(p, t)->need; }

/* ---- successors ---- */

/* Within each group, by successor id (stable). */
static void sort_successors(uint32_t *list, int32_t n) {
  for (int32_t i = 1; i < n; i++) {
    uint32_t item = list[i];
    int32_t j = i, group = edge_group(item & (FS_EDGE_LOCAL | FS_EDGE_START));
    for (; j > 0; j--) {
      uint32_t other = list[j - 1];
      if (edge_group(other & (FS_EDGE_LOCAL | FS_EDGE_START)) != group ||
          FS_EDGE_TASK(other) <= FS_EDGE_TASK(item))
        break;
      list[j] = other;
    }
    list[j] = item;
  }
}

int32_t fs_symmetric_successors(const fs_symmetric *s, int32_t t,
                                uint32_t buffer[FS_TEMPLATE_MAX_EDGES]) {
  int32_t r;
  const fs_template_task *k = fs_symmetric_split(s, t, &r);
  const fs_template_edge *e = s->edge + k->edge_at, *end = s->edge + k[1].edge_at;
  int32_t n = 0;
  for (; e < end; e++) {
    int32_t to = fs_rank_rule_apply(s, e->rule, e->arg, r);
    buffer[n++] = (uint32_t)(s->task[e->to].first + to * s->width) | e->point;
  }
  if (k->sort) sort_successors(buffer, n);
  return n;
}

/* ---- materializing ---- */

/* Task t's fields, as the template gives them, onto task t of q. */
static int copy_task(fs_program *q, const fs_program *p, int32_t t) {
  const fs_template_task *k = fs_template_of(p, t);
  int32_t id = fs_program_add(q, (fs_task_kind)k->kind, fs_task_rank(p, t));
  if (id != t) return -1;
  q->flags[t] = k->flags;
  q->value[t] = k->value;
  q->peer[t] = fs_task_peer(p, t);
  if (k->flags & FS_HAS_ANY) q->need[t] = k->need;
  return (k->tag && fs_task_set_tag(q, t, k->tag)) ||
                 (k->label >= 0 && fs_task_set_label(q, t, k->label)) ||
                 (k->cpu && fs_task_set_cpu(q, t, k->cpu)) ||
                 (k->nic && fs_task_set_nic(q, t, k->nic))
             ? -1
             : 0;
}

static int copy_successors(fs_program *q, const fs_program *p) {
  uint32_t *at = malloc(((size_t)p->tasks + 1) * sizeof *at);
  uint32_t *out = malloc((size_t)(p->dependencies ? p->dependencies : 1) * sizeof *out);
  if (!at || !out) {
    free(at);
    free(out);
    return -1;
  }
  uint32_t n = 0, count, buffer[FS_TEMPLATE_MAX_EDGES];
  for (int32_t t = 0; t < p->tasks; t++) {
    at[t] = n;
    const uint32_t *list = fs_task_successors(p, t, buffer, &count);
    memcpy(out + n, list, count * sizeof *out);
    n += count;
  }
  at[p->tasks] = n;
  return fs_program_set_successors(q, at, out, p->dependencies, p->start_dependencies);
}

fs_program *fs_program_materialize(const fs_program *p, fs_error *err) {
  int64_t bytes = (int64_t)p->tasks * 30 + p->dependencies * 4;
  if (bytes > fs_memory_limit()) {
    fs_error_too_large(err, "the explicit copy of a rank-symmetric program", bytes,
                       fs_memory_limit());
    return NULL;
  }
  fs_program *q = fs_program_new(p->ranks);
  int failed = !q || fs_program_reserve(q, p->tasks, 0);
  for (int32_t i = 0; !failed && i < p->label_count; i++)
    failed = fs_program_add_label(q, p->labels[i], (int64_t)strlen(p->labels[i])) != i;
  for (int32_t t = 0; !failed && t < p->tasks; t++) failed = copy_task(q, p, t);
  if (failed || copy_successors(q, p)) {
    fs_program_free(q);
    fs_error_out_of_memory(err, "the explicit copy of a rank-symmetric program", bytes);
    return NULL;
  }
  if (fs_program_finalize(q, err)) {
    fs_program_free(q);
    return NULL;
  }
  return q;
}
