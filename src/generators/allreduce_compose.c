/* allreduce_compose.c: allreduces made of a reduce to rank 0 followed by a
 * broadcast from rank 0, in one program:
 * - `gen allreduce-linear`: Open MPI's ompi_coll_base_allreduce_intra_
 *   basic_linear: reduce-linear (the root receives and reduces from N-1 down
 *   to 1), then bcast-linear (rank 0 isends to 1 .. N-1).
 * - `gen allreduce-reduce-bcast`: Open MPI's
 *   ompi_coll_base_allreduce_intra_nonoverlapping (a reduce to 0, then a
 *   broadcast from 0), with --schedule REDUCE+BCAST naming the two
 *   generators (default reduce-binomial+bcast-binomial; a selector such as
 *   reduce-ompi picks what the library would).
 *
 * Both parts are generated with root 0 and the options they read
 * (--segment, --ways, the platform to the part that reads them; --reduce-time
 * to the reduce; an option neither reads is refused). Their tasks are copied
 * (reduce first, labels prefixed reduce- and bcast-), and on every rank each
 * task of the broadcast without a dependency on its rank requires
 * (FS_AFTER_END) every task of the reduce that no task of its rank waits for:
 * a rank starts its broadcast when its reduce has returned, as the blocking
 * calls do. Data flow: the two parts' records, with blocks refined to the
 * common cuts of both parts' block boundaries (identical partitions are kept
 * as they are), checked as an allreduce. */
#include <stdlib.h>
#include <string.h>

#include "generators/generator_support.h"

typedef struct part {
  const fs_generator *g;
  fs_program *p;
  fs_data_flow flow;
  int32_t *first, *count; /* block b -> the combined blocks first .. first+count-1 */
  int32_t *label;         /* sub-label -> combined label */
} part;

typedef struct compose {
  const char *name;
  const fs_generator_options *o;
  part part[2]; /* reduce, bcast */
  fs_program *p;
  int32_t blocks;
  int64_t *block_size;
  int32_t *scratch;
} compose;

static const char *const ROLE[2] = {"reduce", "bcast"};

/* The part's options; refuses options neither part reads. */
static int part_options(compose *c, int i, fs_generator_options *po, fs_error *err) {
  const fs_generator_options *o = c->o;
  unsigned reads = c->part[0].g->options | c->part[1].g->options, own = c->part[i].g->options;
  if (o->segment && !(reads & FS_GEN_SEGMENT))
    return fs_error_set(err, "%s: --segment does not apply to %s+%s", c->name, c->part[0].g->name,
                        c->part[1].g->name);
  if (o->ways && !(reads & FS_GEN_WAYS))
    return fs_error_set(err, "%s: --ways does not apply to %s+%s", c->name, c->part[0].g->name,
                        c->part[1].g->name);
  if (o->has_reduce_time && !(c->part[0].g->options & FS_GEN_REDUCE_TIME))
    return fs_error_set(err, "%s: --reduce-time does not apply (%s has no reduce computation)",
                        c->name, c->part[0].g->name);
  *po = *o;
  po->root = 0, po->schedule = NULL;
  if (!(own & FS_GEN_SEGMENT)) po->segment = 0;
  if (!(own & FS_GEN_WAYS)) po->ways = 0;
  if (!(own & FS_GEN_PLATFORM)) po->platform = NULL;
  if (i == 1) po->has_reduce_time = 0, po->reduce_time = 0;
  po->flow = o->flow ? &c->part[i].flow : NULL;
  return 0;
}

/* Looks the two generators up from "REDUCE+BCAST". */
static int find_parts(compose *c, const char *schedule, fs_error *err) {
  const char *plus = strchr(schedule, '+');
  if (!plus || strchr(plus + 1, '+'))
    return fs_error_set(err, "%s: --schedule %s: expected REDUCE+BCAST, two generator names",
                        c->name, schedule);
  char names[2][64];
  size_t length[2] = {(size_t)(plus - schedule), strlen(plus + 1)};
  const char *text[2] = {schedule, plus + 1};
  fs_collective want[2] = {FS_COLLECTIVE_REDUCE, FS_COLLECTIVE_BCAST};
  for (int i = 0; i < 2; i++) {
    if (length[i] >= sizeof names[i]) length[i] = sizeof names[i] - 1;
    memcpy(names[i], text[i], length[i]);
    names[i][length[i]] = 0;
    const fs_generator *g = fs_generator_find(names[i]);
    if (!g || g->collective != want[i] || (g->traits & FS_GEN_NOT_CORRECT) ||
        !(g->traits & (FS_GEN_TWO_SIDED | FS_GEN_SELECTOR)))
      return fs_error_set(err, "%s: --schedule %s: %s is not a two-sided %s generator (gen --list)",
                          c->name, schedule, names[i], ROLE[i]);
    c->part[i].g = g;
  }
  return 0;
}

static int generate_parts(compose *c, fs_error *err) {
  for (int i = 0; i < 2; i++) {
    fs_generator_options po;
    if (part_options(c, i, &po, err)) return -1;
    fs_error inner = {{0}};
    if (!(c->part[i].p = c->part[i].g->generate(&po, &inner)))
      return fs_error_set(err, "%s: %s", c->name, inner.message);
    if (c->o->flow && (c->part[i].flow.failed || !c->part[i].flow.block_size))
      return fs_error_set(err, "%s: %s records no usable data flow", c->name, c->part[i].g->name);
  }
  return 0;
}

static int compare_offsets(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int32_t find_offset(const int64_t *cuts, int32_t count, int64_t offset) {
  const int64_t *at = bsearch(&offset, cuts, (size_t)count, sizeof *cuts, compare_offsets);
  return (int32_t)(at - cuts);
}

/* The combined blocks: both partitions when equal, else their common cuts
 * (a block of 0 bytes then maps to none; S = 0: one empty block). */
static int refine(compose *c) {
  const fs_data_flow *f[2] = {&c->part[0].flow, &c->part[1].flow};
  int32_t total = f[0]->blocks + f[1]->blocks;
  int same = f[0]->blocks == f[1]->blocks &&
             memcmp(f[0]->block_size, f[1]->block_size, (size_t)f[0]->blocks * 8) == 0;
  int64_t *cuts = malloc(((size_t)total + 1) * sizeof *cuts);
  for (int i = 0; i < 2 && cuts; i++) {
    c->part[i].first = malloc((size_t)f[i]->blocks * sizeof(int32_t));
    c->part[i].count = malloc((size_t)f[i]->blocks * sizeof(int32_t));
    if (!c->part[i].first || !c->part[i].count) return free(cuts), -1;
  }
  if (!cuts) return -1;
  int32_t n = 0;
  for (int i = 0; i < 2; i++) {
    int64_t at = 0;
    for (int32_t b = 0; b < f[i]->blocks; b++) cuts[n++] = at, at += f[i]->block_size[b];
  }
  cuts[n++] = c->o->size;
  qsort(cuts, (size_t)n, sizeof *cuts, compare_offsets);
  int32_t unique = 0;
  for (int32_t k = 0; k < n; k++)
    if (unique == 0 || cuts[k] != cuts[unique - 1]) cuts[unique++] = cuts[k];
  c->blocks = same ? f[0]->blocks : unique > 1 ? unique - 1 : 1;
  if (!(c->block_size = malloc((size_t)c->blocks * sizeof *c->block_size)) ||
      !(c->scratch = malloc((size_t)c->blocks * sizeof *c->scratch)))
    return free(cuts), -1;
  for (int32_t j = 0; j < c->blocks; j++)
    c->block_size[j] = same ? f[0]->block_size[j] : unique > 1 ? cuts[j + 1] - cuts[j] : 0;
  for (int i = 0; i < 2; i++) {
    int64_t at = 0;
    for (int32_t b = 0; b < f[i]->blocks; b++) {
      int64_t length = f[i]->block_size[b];
      int32_t first = same ? b : find_offset(cuts, unique, at);
      c->part[i].first[b] = first < c->blocks ? first : 0;
      c->part[i].count[b] = same || unique == 1 ? 1
                            : length > 0        ? find_offset(cuts, unique, at + length) - first
                                                : 0;
      at += length;
    }
  }
  free(cuts);
  return 0;
}

/* Task t of part i records its blocks, mapped, for the copy `to`. */
static int copy_flow(compose *c, int i, int32_t t, int32_t to) {
  const fs_data_flow *f = &c->part[i].flow;
  fs_flow_action action = fs_data_flow_action(f, t);
  if (action == FS_FLOW_NONE) return 0;
  int32_t used = 0;
  for (int32_t k = 0; k < f->block_count[t]; k++) {
    int32_t b = f->block[f->block_at[t] + k];
    for (int32_t j = 0; j < c->part[i].count[b]; j++) c->scratch[used++] = c->part[i].first[b] + j;
  }
  return fs_data_flow_set(c->o->flow, to, action, c->scratch, used);
}

/* sinks[r]: rank r's reduce tasks no task of its rank waits for; sources[r]:
 * its bcast tasks without a dependency. Returns the joining dependencies. */
static int64_t count_joins(const compose *c, int64_t *sinks, int64_t *sources) {
  const fs_program *a = c->part[0].p, *b = c->part[1].p;
  for (int32_t r = 0; r < c->o->ranks; r++) sinks[r] = sources[r] = 0;
  for (int32_t t = 0; t < a->tasks; t++)
    sinks[a->rank[t]] += a->successor_at[t + 1] == a->successor_at[t];
  for (int32_t t = 0; t < b->tasks; t++) sources[b->rank[t]] += b->need[t] == 0;
  int64_t joins = 0;
  for (int32_t r = 0; r < c->o->ranks; r++) joins += sinks[r] * sources[r];
  return joins;
}

/* Task t of part i into c->p, as task `to`; labels prefixed with the role. */
static int copy_task(compose *c, int i, int32_t t) {
  const fs_program *s = c->part[i].p;
  int32_t to = fs_program_add(c->p, (fs_task_kind)s->kind[t], s->rank[t]);
  if (to < 0) return -1;
  c->p->peer[to] = s->peer[t];
  c->p->value[to] = s->value[t];
  c->p->flags[to] = s->flags[t];
  if (s->flags[t] & FS_HAS_ANY) c->p->need[to] = s->need[t];
  if ((fs_task_tag(s, t) && fs_task_set_tag(c->p, to, fs_task_tag(s, t))) ||
      (fs_task_cpu(s, t) && fs_task_set_cpu(c->p, to, fs_task_cpu(s, t))) ||
      (fs_task_nic(s, t) && fs_task_set_nic(c->p, to, fs_task_nic(s, t))) ||
      (fs_task_protocol(s, t) && fs_task_set_protocol(c->p, to, fs_task_protocol(s, t))) ||
      (fs_task_stride(s, t) && fs_task_set_stride(c->p, to, fs_task_stride(s, t))))
    return -1;
  int32_t sub = s->label ? s->label[t] : -1;
  if (sub >= 0) {
    if (c->part[i].label[sub] < 0 &&
        (c->part[i].label[sub] = fs_gen_label(c->p, "%s-%s", ROLE[i], s->labels[sub])) < 0)
      return -1;
    if (fs_task_set_label(c->p, to, c->part[i].label[sub])) return -1;
  }
  return c->o->flow ? copy_flow(c, i, t, to) : 0;
}

/* Part i's tasks from `base` on, with their dependencies. */
static int copy_part(compose *c, int i, int32_t base) {
  const fs_program *s = c->part[i].p;
  if (!(c->part[i].label = malloc(((size_t)s->label_count + 1) * sizeof(int32_t)))) return -1;
  for (int32_t l = 0; l < s->label_count; l++) c->part[i].label[l] = -1;
  for (int32_t t = 0; t < s->tasks; t++)
    if (copy_task(c, i, t)) return -1;
  for (int32_t t = 0; t < s->tasks; t++)
    for (uint32_t e = s->successor_at[t]; e < s->successor_at[t + 1]; e++) {
      uint32_t edge = s->successor[e];
      int point = edge & FS_EDGE_START   ? FS_AFTER_START
                  : edge & FS_EDGE_LOCAL ? FS_AFTER_LOCAL
                                         : FS_AFTER_END;
      if (fs_program_depend(c->p, base + FS_EDGE_TASK(edge), base + t, point)) return -1;
    }
  return 0;
}

/* Each source of the broadcast after each sink of the reduce, per rank
 * (sinks listed per rank first: sink[at[r] .. at[r+1]-1]). */
static int join(compose *c, const int64_t *sinks, const int64_t *sources) {
  const fs_program *a = c->part[0].p, *b = c->part[1].p;
  int32_t n = c->o->ranks;
  int64_t *at = malloc(((size_t)n + 1) * sizeof *at);
  int32_t *sink = malloc(((size_t)a->tasks + 1) * sizeof *sink);
  int failed = !at || !sink;
  for (int32_t r = 0; r <= n && !failed; r++) at[r] = r ? at[r - 1] + sinks[r - 1] : 0;
  for (int32_t u = 0, r; u < a->tasks && !failed; u++)
    if (a->successor_at[u + 1] == a->successor_at[u]) r = a->rank[u], sink[at[r]++] = u;
  for (int32_t r = n; r > 0 && !failed; r--) at[r] = at[r - 1];
  if (!failed) at[0] = 0;
  for (int32_t t = 0; t < b->tasks && !failed; t++) {
    int32_t r = b->rank[t];
    if (b->need[t] != 0 || sources[r] == 0) continue;
    for (int64_t k = at[r]; k < at[r + 1] && !failed; k++)
      failed = fs_program_depend(c->p, a->tasks + t, sink[k], FS_AFTER_END) != 0;
  }
  free(at), free(sink);
  return failed ? -1 : 0;
}

static void release(compose *c) {
  for (int i = 0; i < 2; i++) {
    fs_program_free(c->part[i].p);
    fs_data_flow_free(&c->part[i].flow);
    free(c->part[i].first), free(c->part[i].count), free(c->part[i].label);
  }
  free(c->block_size), free(c->scratch);
}

/* Builds c->p from the two parts; the program, or NULL with err set. */
static fs_program *combine(compose *c, fs_error *err) {
  int32_t n = c->o->ranks;
  const fs_program *a = c->part[0].p, *b = c->part[1].p;
  int64_t *sinks = malloc(((size_t)n + 1) * sizeof *sinks);
  int64_t *sources = malloc(((size_t)n + 1) * sizeof *sources);
  if (!sinks || !sources || (c->o->flow && refine(c))) {
    free(sinks), free(sources);
    fs_error_set(err, "%s: out of memory", c->name);
    return NULL;
  }
  int64_t tasks = (int64_t)a->tasks + b->tasks;
  int64_t dependencies = a->dependencies + b->dependencies + count_joins(c, sinks, sources);
  c->p = fs_gen_begin(c->name, n, tasks, dependencies, err);
  int failed = 0;
  if (c->p) {
    if (c->o->flow) {
      failed = fs_data_flow_begin(c->o->flow, FS_COLLECTIVE_ALLREDUCE, 0, c->blocks, c->o->size);
      for (int32_t j = 0; j < c->blocks && !failed; j++)
        c->o->flow->block_size[j] = c->block_size[j];
    }
    failed = failed || copy_part(c, 0, 0) || copy_part(c, 1, a->tasks) || join(c, sinks, sources);
  }
  free(sinks), free(sources);
  return c->p ? fs_gen_finish_options(c->name, c->p, tasks, dependencies, failed, c->o, err) : NULL;
}

static fs_program *generate(const char *name, const char *schedule, const fs_generator_options *o,
                            fs_error *err) {
  compose c;
  memset(&c, 0, sizeof c);
  c.name = name, c.o = o;
  for (int i = 0; i < 2; i++) fs_data_flow_init(&c.part[i].flow);
  fs_program *p = NULL;
  if (!fs_gen_check_common(name, o, err) && !fs_gen_refuse_root(name, o, err) &&
      !find_parts(&c, schedule, err) && !generate_parts(&c, err))
    p = combine(&c, err);
  release(&c);
  return p;
}

fs_program *fs_generate_allreduce_linear(const fs_generator_options *o, fs_error *err) {
  return generate("allreduce-linear", "reduce-linear+bcast-linear", o, err);
}

fs_program *fs_generate_allreduce_reduce_bcast(const fs_generator_options *o, fs_error *err) {
  const char *schedule = o->schedule && o->schedule[0] ? o->schedule : NULL;
  if (schedule && strcmp(schedule, "auto") == 0) schedule = NULL; /* as for allreduce-rm */
  return generate("allreduce-reduce-bcast", schedule ? schedule : "reduce-binomial+bcast-binomial",
                  o, err);
}
