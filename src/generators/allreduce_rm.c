/* allreduce_rm.c: `gen allreduce-rm`: recursive multiplying (Fennel thesis
 * §5.4, Algs. 2-6), one-sided like the thesis's DMAPP
 * prototype: every message is a put into a temporary of its target.
 *
 * The schedule is --schedule TEXT in the notation of rm_schedule.h
 * ("a4,a2", "c6m2,a2,a2,e6m2", "m1g2a3,n1g3a2", "auto", "auto:C"), or
 * --factors k1,...,ks as shorthand for "ak1,...,aks".
 *
 * aK (mask m = product of the earlier factors, base B = K*m): working id w
 *   puts to block + (w + (idx+1)*m) mod B for idx = 0..K-2 (the staggered
 *   order), all after its current value, then reduces after its own puts'
 *   local completion and the K-1 puts it receives.
 * cTmM: working ids < T form groups of M; the leader (id = M-1 mod M)
 *   receives from the M-1 others and reduces, they go idle. Leaders become
 *   ids 0..T/M-1, ids >= T follow (rank - (T/M)(M-1) at the outer level).
 * eTmM: each leader of the matching collapse puts the result to its M-1
 *   idle members (their buffers, not temporaries).
 * mRgGaK (first stage): ids 0..R-1 are the remainder, the core is id - R.
 *   The core runs an aK stage; remainder i also puts its value to all K
 *   members of first-stage group (i mod G).
 * nRgGaK (last stage): the core runs an aK stage (groups: residue classes
 *   mod G); core id w also puts its value to every remainder i with
 *   i mod G = w mod G, after its core puts. Remainder i combines the K
 *   partials itself.
 *
 * Where the thesis is silent (data flow, the remainders' order):
 * - Remainder i ends up with the sum of its K partials, not its buffer plus
 *   them (one partial already holds its own value). So one partial, from
 *   the sender whose value carries i's contribution, overwrites its buffer
 *   (FS_FLOW_PUT_WRITE) and the other K-1 are combined into it. That sender
 *   is the core id w_i = (i mod G') + floor(g*K1/G')*G' (g = i mod G; G'
 *   the last stage's groups): the member of i's last-stage residue class in
 *   the block of i's first-stage group.
 * - For that overwrite to come after every read of i's buffer, remainder
 *   i's K1 first-stage puts form a chain (each after the previous one's
 *   local completion, when its buffer has been read: no effect on time, the
 *   rank's CPU serialises them anyway) that
 *   ends at member (i mod G') mod K1 of its group, whose value w_i's depends
 *   on. The chain starts right after that member (staggered).
 *
 * Time under pipelined (beta = 0, free reduces): a plain schedule costs
 * exactly the sum of its stage costs alpha_p + (K-1) alpha_r (eq. 5.7);
 * merges and collapses never cost more than rm_schedule.c's stage sum, and
 * less when the slowest rank before the last stage is not one with the
 * most remainders (docs/algorithms/rm.md).
 *
 * Tasks: the N starts, then stage by stage: (merge: remainder puts,) core
 * puts rank by rank and idx by idx, (last stage: remainder puts,) core
 * reduces, (last stage: remainder reduces). With factors 2,...,2 the DAG is
 * allreduce-rd's, task for task; with MPICH's c{2rem}m2,a2...,e{2rem}m2
 * too. */
#include <stdlib.h>
#include <string.h>

#include "generators/generator_support.h"
#include "generators/rm_schedule.h"

static const char NAME[] = "allreduce-rm";

/* ---- the schedule --------------------------------------------------------- */

static int check_factors(const fs_generator_options *o, fs_error *err) {
  if (o->factor_count < 0 || o->factor_count > 64)
    return fs_error_set(err, "%s: at most 64 factors, not %d", NAME, o->factor_count);
  int64_t product = 1;
  for (int i = 0; i < o->factor_count; i++) {
    if (o->factors[i] < 2)
      return fs_error_set(err, "%s: factor %d is %d; each factor must be at least 2", NAME, i + 1,
                          o->factors[i]);
    product *= o->factors[i];
    if (product > o->ranks) break; /* already wrong; stops before any overflow */
  }
  if (product > o->ranks)
    return fs_error_set(err, "%s: the factors multiply to more than --ranks %d", NAME, o->ranks);
  if (product < o->ranks)
    return fs_error_set(err, "%s: the factors multiply to %lld, not --ranks %d", NAME,
                        (long long)product, o->ranks);
  return 0;
}

/* "auto" (c from Table 4.1 at --size, as `--model pipelined` prices it) or
 * "auto:C": the sorted heuristic (Alg. 7, fs_rm_auto); "auto-unsorted[:C]"
 * the unsorted one. `after` points past the word. */
static int auto_schedule(const fs_generator_options *o, const char *text, const char *after,
                         int sorted, fs_rm_schedule *s, fs_error *err) {
  double c = fs_rm_archer_ratio(o->size);
  if (*after == ':') {
    char *end;
    c = strtod(after + 1, &end);
    if (end == after + 1 || *end || !(c >= 0 && c <= 1e6))
      return fs_error_set(err,
                          "%s: --schedule %s: expected auto[-unsorted] or "
                          "auto[-unsorted]:C with a ratio C = alpha_p/alpha_r from 0 to 1e6",
                          NAME, text);
  }
  return sorted ? fs_rm_auto(o->ranks, c, s, err) : fs_rm_auto_unsorted(o->ranks, c, s, err);
}

static int stage_misfit(const fs_rm_schedule *s, int i, int32_t ranks, fs_error *err,
                        const char *format, long long a, long long b) {
  char stage[96], what[160];
  fs_rm_schedule one = {.count = 1};
  one.stages[0] = s->stages[i];
  fs_rm_schedule_format(&one, stage, sizeof stage);
  snprintf(what, sizeof what, format, a, b);
  return fs_error_set(err, "%s: the schedule does not fit --ranks %d: stage %d (%s): %s", NAME,
                      ranks, i + 1, stage, what);
}

/* A well-formed schedule (fs_rm_schedule_ranks passed) against N: names
 * the first stage that cannot apply to the ranks it gets. */
static int check_fit(const fs_rm_schedule *s, int32_t ranks, fs_error *err) {
  int64_t n = ranks;
  int first = 0, last = s->count - 1;
  for (; first < last && s->stages[first].kind == FS_RM_COLLAPSE; first++, last--) {
    const fs_rm_stage *c = &s->stages[first];
    if (c->t > n)
      return stage_misfit(s, first, ranks, err, "T = %lld exceeds the %lld ranks it applies to",
                          c->t, n);
    n -= c->t - c->t / c->m;
  }
  if (first <= last && s->stages[first].kind == FS_RM_MERGE) {
    const fs_rm_stage *m = &s->stages[first];
    int64_t covered = m->r + (int64_t)m->g * m->k;
    if (covered != n)
      return stage_misfit(s, first, ranks, err, "R + G*K = %lld, not the %lld ranks it applies to",
                          covered, n);
    return 0; /* the core's factors were checked against G*K */
  }
  int64_t level = n;
  for (int i = first; i <= last; i++) {
    if (n % s->stages[i].k != 0)
      return stage_misfit(s, i, ranks, err, "%lld does not divide the %lld ranks left",
                          s->stages[i].k, n);
    n /= s->stages[i].k;
  }
  if (n != 1)
    return stage_misfit(s, last, ranks, err,
                        "the factors multiply to %lld, not the %lld ranks "
                        "they apply to",
                        level / n, level);
  return 0;
}

static int schedule_of(const fs_generator_options *o, fs_rm_schedule *s, fs_error *err) {
  if (o->schedule && o->factor_count)
    return fs_error_set(err, "%s: give --factors or --schedule, not both", NAME);
  if (!o->schedule) {
    if (o->factor_count == 0 && o->ranks > 1)
      return fs_error_set(err,
                          "%s needs --schedule (a4,a2 | auto | ...) or --factors k1,k2,... "
                          "whose product is --ranks %d",
                          NAME, o->ranks);
    if (check_factors(o, err)) return -1;
    *s = (fs_rm_schedule){.count = o->factor_count};
    for (int i = 0; i < o->factor_count; i++)
      s->stages[i] = (fs_rm_stage){.kind = FS_RM_FACTOR, .k = o->factors[i]};
    return 0;
  }
  const char *text = o->schedule;
  if (strncmp(text, "auto-unsorted", 13) == 0 && (!text[13] || text[13] == ':'))
    return auto_schedule(o, text, text + 13, 0, s, err);
  if (strncmp(text, "auto", 4) == 0 && (!text[4] || text[4] == ':'))
    return auto_schedule(o, text, text + 4, 1, s, err);
  fs_error why = {{0}};
  int64_t covered = 0;
  if (fs_rm_schedule_parse(o->schedule, s, &why) || fs_rm_schedule_ranks(s, &covered, &why))
    return fs_error_set(err, "%s: --schedule %s: %s", NAME, o->schedule, why.message);
  return check_fit(s, o->ranks, err);
}

/* ---- counts ---------------------------------------------------------------- */

/* Tasks and dependencies of the whole program (exact; see each builder). */
static void count_program(const fs_rm_schedule *s, int32_t ranks, int64_t *tasks,
                          int64_t *dependencies) {
  int64_t n = ranks, t = ranks, d = 0, remainder = 0, collapsed[FS_RM_MAX_STAGES];
  int depth = 0;
  for (int i = 0; i < s->count; i++) {
    const fs_rm_stage *st = &s->stages[i];
    int64_t k = st->k, leaders = st->m ? st->t / st->m : 0;
    switch (st->kind) {
      case FS_RM_FACTOR: t += n * k, d += 3 * n * (k - 1); break;
      case FS_RM_COLLAPSE:
        t += st->t, d += 2 * st->t - leaders;
        collapsed[depth++] = n;
        n -= st->t - leaders;
        break;
      case FS_RM_EXPAND: t += st->t - leaders, d += st->t - leaders, n = collapsed[--depth]; break;
      case FS_RM_MERGE:
        remainder = st->r, n -= st->r;
        t += (remainder + n) * k, d += 2 * remainder * k + 3 * n * (k - 1);
        break;
      case FS_RM_UNMERGE:
        t += n * k + remainder * (k + 1), d += 3 * n * (k - 1) + 3 * remainder * k;
        n += remainder;
        break;
    }
  }
  *tasks = t, *dependencies = d;
}

/* ---- building ---------------------------------------------------------------- */

typedef struct builder {
  fs_program *p;
  const fs_generator_options *o;
  int32_t *value; /* per rank: the task holding its current value */
  int failed;
} builder;

typedef struct exchange {
  const int32_t *core; /* working id -> rank */
  int32_t n, factor, mask, base, label;
} exchange;

static int32_t target_of(const exchange *x, int32_t w, int32_t idx) {
  int32_t block = w / x->base * x->base;
  return block + (int32_t)(((int64_t)(w - block) + (int64_t)(idx + 1) * x->mask) % x->base);
}
static int32_t source_of(const exchange *x, int32_t w, int32_t idx) {
  int32_t block = w / x->base * x->base;
  return block +
         (int32_t)(((int64_t)(w - block) - (int64_t)(idx + 1) * x->mask + x->base) % x->base);
}

static int32_t add_put(builder *b, int32_t from, int32_t to, int32_t label, fs_flow_action action,
                       int32_t after, int point) {
  int32_t put = fs_gen_put(b->p, from, to, b->o->size, label);
  b->failed |= put < 0 || fs_program_depend(b->p, put, after, point);
  b->failed |= fs_gen_flow_range(b->o, put, action, 0, 1);
  return put;
}

static int32_t add_reduce(builder *b, int32_t rank, int32_t label) {
  int32_t reduce = fs_gen_reduce(b->p, rank, label, b->o);
  b->failed |= reduce < 0 || fs_gen_flow_range(b->o, reduce, FS_FLOW_COMBINE, 0, 1);
  return reduce;
}

static void depend(builder *b, int32_t task, int32_t on, int point) {
  b->failed |= task < 0 || fs_program_depend(b->p, task, on, point);
}

/* The core puts of an aK stage; returns the first one's id (rank w's idx-th
 * is first + w*(K-1) + idx). */
static int32_t core_puts(builder *b, const exchange *x) {
  int32_t first = b->p->tasks;
  for (int32_t w = 0; w < x->n; w++)
    for (int32_t idx = 0; idx < x->factor - 1; idx++)
      add_put(b, x->core[w], x->core[target_of(x, w, idx)], x->label, FS_FLOW_PUT_TEMP,
              b->value[x->core[w]], FS_AFTER_END);
  return first;
}

/* Core reduce of w: after its puts' local completion, then the incoming. */
static int32_t core_reduce(builder *b, const exchange *x, int32_t first_put, int32_t w) {
  int32_t reduce = add_reduce(b, x->core[w], x->label);
  for (int32_t idx = 0; idx < x->factor - 1; idx++)
    depend(b, reduce, first_put + w * (x->factor - 1) + idx, FS_AFTER_LOCAL);
  for (int32_t idx = 0; idx < x->factor - 1; idx++)
    depend(b, reduce, first_put + source_of(x, w, idx) * (x->factor - 1) + idx, FS_AFTER_END);
  return reduce;
}

static void factor_stage(builder *b, const exchange *x) {
  int32_t first_put = core_puts(b, x), first_reduce = b->p->tasks;
  for (int32_t w = 0; w < x->n; w++) core_reduce(b, x, first_put, w);
  for (int32_t w = 0; w < x->n && !b->failed; w++) b->value[x->core[w]] = first_reduce + w;
}

/* cTmM on the working ids `ids` (n of them): the new ids into next. */
static int32_t collapse(builder *b, const fs_rm_stage *st, const int32_t *ids, int32_t n,
                        int32_t *next, int32_t label) {
  int32_t leaders = st->t / st->m, first_put = b->p->tasks;
  for (int32_t q = 0; q < leaders; q++)
    for (int32_t o = 0; o < st->m - 1; o++)
      add_put(b, ids[q * st->m + o], ids[q * st->m + st->m - 1], label, FS_FLOW_PUT_TEMP,
              b->value[ids[q * st->m + o]], FS_AFTER_END);
  for (int32_t q = 0; q < leaders; q++) {
    int32_t leader = ids[q * st->m + st->m - 1], reduce = add_reduce(b, leader, label);
    depend(b, reduce, b->value[leader], FS_AFTER_END);
    for (int32_t o = 0; o < st->m - 1; o++)
      depend(b, reduce, first_put + q * (st->m - 1) + o, FS_AFTER_END);
    if (!b->failed) b->value[leader] = reduce;
    next[q] = leader;
  }
  for (int32_t j = st->t; j < n; j++) next[leaders + j - st->t] = ids[j];
  return leaders + n - st->t;
}

/* eTmM: leaders put the result into their idle members' buffers. */
static void expand(builder *b, const fs_rm_stage *st, const int32_t *ids, int32_t label) {
  for (int32_t q = 0; q < st->t / st->m; q++) {
    int32_t leader = ids[q * st->m + st->m - 1];
    for (int32_t o = 0; o < st->m - 1; o++) {
      int32_t put = add_put(b, leader, ids[q * st->m + o], label, FS_FLOW_PUT_WRITE,
                            b->value[leader], FS_AFTER_END);
      if (!b->failed) b->value[ids[q * st->m + o]] = put;
    }
  }
}

/* The merge's shape: remainder ranks, first-stage groups G and factor K1,
 * last-stage groups G'. */
typedef struct merge_shape {
  const int32_t *remainder;
  int32_t r, groups, first_factor, last_groups;
} merge_shape;

/* The core id whose pre-last-stage value carries remainder i's value. */
static int32_t carrier_of(const merge_shape *m, int32_t i) {
  int64_t group_first = (int64_t)(i % m->groups) * m->first_factor;
  return (int32_t)(i % m->last_groups + group_first / m->last_groups * m->last_groups);
}

/* mRgGaK: remainder puts (chained), then the core's aK stage whose reduces
 * also wait for the remainder puts into their group. */
static void merge_stage(builder *b, const exchange *x, const merge_shape *m) {
  int32_t k = x->factor, first_remainder_put = b->p->tasks;
  for (int32_t i = 0; i < m->r; i++) {
    int32_t rank = m->remainder[i], group_first = i % m->groups * k;
    int32_t last = i % m->last_groups % k, after = b->value[rank];
    for (int32_t j = 0; j < k; j++) {
      int32_t member = group_first + (last + 1 + j) % k;
      after = add_put(b, rank, x->core[member], x->label, FS_FLOW_PUT_TEMP, after,
                      j ? FS_AFTER_LOCAL : FS_AFTER_END);
    }
  }
  int32_t first_put = core_puts(b, x), first_reduce = b->p->tasks;
  for (int32_t w = 0; w < x->n; w++) {
    int32_t reduce = core_reduce(b, x, first_put, w), group = w / k, member = w % k;
    for (int32_t i = group; i < m->r; i += m->groups) {
      int32_t j = (member - (i % m->last_groups % k) - 1 + 2 * k) % k; /* w's place in i's chain */
      depend(b, reduce, first_remainder_put + i * k + j, FS_AFTER_END);
    }
  }
  for (int32_t w = 0; w < x->n && !b->failed; w++) b->value[x->core[w]] = first_reduce + w;
}

/* nRgGaK: the core's aK stage; each core id then puts to its remainders
 * (i = w mod G', w mod G' + G', ...); its reduce waits for those puts too.
 * Remainder i combines the K partials: the carrier's overwrites. */
static void unmerge_stage(builder *b, const exchange *x, const merge_shape *m) {
  int32_t first_put = core_puts(b, x), first_remainder_put = b->p->tasks;
  /* remainder puts, core id by core id; the j-th sender to i is w = i mod G' + j*G' */
  for (int32_t w = 0; w < x->n; w++)
    for (int32_t i = w % m->last_groups; i < m->r; i += m->last_groups)
      add_put(b, x->core[w], m->remainder[i], x->label,
              w == carrier_of(m, i) ? FS_FLOW_PUT_WRITE : FS_FLOW_PUT_TEMP, b->value[x->core[w]],
              FS_AFTER_END);
  /* the id of w's put to remainder i: puts before w's, then i's place among w's */
  int32_t *sent_before = calloc((size_t)x->n + 1, sizeof *sent_before);
  if (!sent_before) {
    b->failed = 1;
    return;
  }
  for (int32_t w = 0; w < x->n; w++) {
    int32_t residue = w % m->last_groups;
    int32_t mine = residue < m->r ? (m->r - 1 - residue) / m->last_groups + 1 : 0;
    sent_before[w + 1] = sent_before[w] + mine;
  }
  int32_t first_reduce = b->p->tasks;
  for (int32_t w = 0; w < x->n; w++) {
    int32_t reduce = core_reduce(b, x, first_put, w);
    for (int32_t put = sent_before[w]; put < sent_before[w + 1]; put++)
      depend(b, reduce, first_remainder_put + put, FS_AFTER_LOCAL);
  }
  for (int32_t i = 0; i < m->r; i++) {
    int32_t reduce = add_reduce(b, m->remainder[i], x->label);
    for (int32_t w = i % m->last_groups; w < x->n; w += m->last_groups)
      depend(b, reduce, first_remainder_put + sent_before[w] + i / m->last_groups, FS_AFTER_END);
    if (!b->failed) b->value[m->remainder[i]] = reduce;
  }
  free(sent_before);
  for (int32_t w = 0; w < x->n && !b->failed; w++) b->value[x->core[w]] = first_reduce + w;
}

/* Working-id lists per nesting level (level 0: all ranks). */
typedef struct levels {
  int32_t *ids[FS_RM_MAX_STAGES + 1];
  int32_t count[FS_RM_MAX_STAGES + 1];
  const fs_rm_stage *collapse[FS_RM_MAX_STAGES + 1];
  int depth;
} levels;

static void build(builder *b, const fs_rm_schedule *s, levels *l) {
  int32_t mask = 1;
  merge_shape m = {0};
  const int32_t *core = l->ids[0];
  int32_t n = b->p->ranks;
  for (int i = 0; i < s->count && !b->failed; i++) {
    const fs_rm_stage *st = &s->stages[i];
    int32_t label = fs_gen_label(b->p, "stage%d", i + 1);
    exchange x = {core, n, st->k, mask, st->k * mask, label};
    switch (st->kind) {
      case FS_RM_COLLAPSE:
        l->collapse[l->depth] = st;
        n = collapse(b, st, l->ids[l->depth], l->count[l->depth], l->ids[l->depth + 1], label);
        l->count[++l->depth] = n;
        core = l->ids[l->depth];
        break;
      case FS_RM_EXPAND:
        l->depth--;
        expand(b, l->collapse[l->depth], l->ids[l->depth], label);
        core = l->ids[l->depth], n = l->count[l->depth];
        break;
      case FS_RM_MERGE:
        m = (merge_shape){core, st->r, st->g, st->k, 0};
        for (int j = i + 1; j < s->count; j++)
          if (s->stages[j].kind == FS_RM_UNMERGE) {
            m.last_groups = s->stages[j].g;
            break;
          }
        core += st->r, n -= st->r;
        x.core = core, x.n = n;
        merge_stage(b, &x, &m);
        mask *= st->k;
        break;
      case FS_RM_UNMERGE:
        unmerge_stage(b, &x, &m);
        core -= m.r, n += m.r;
        break;
      case FS_RM_FACTOR:
        factor_stage(b, &x);
        mask *= st->k;
        break;
    }
  }
}

fs_program *fs_generate_allreduce_rm(const fs_generator_options *o, fs_error *err) {
  fs_rm_schedule s;
  if (fs_gen_check_common(NAME, o, err) || schedule_of(o, &s, err)) return NULL;
  int64_t tasks, dependencies;
  count_program(&s, o->ranks, &tasks, &dependencies);
  fs_program *p = fs_gen_begin(NAME, o->ranks, tasks, dependencies, err);
  if (!p) return NULL;
  builder b = {p, o, malloc((size_t)o->ranks * sizeof(int32_t)), 0};
  levels l = {.depth = 0};
  int collapses = 0;
  for (int i = 0; i < s.count; i++) collapses += s.stages[i].kind == FS_RM_COLLAPSE;
  for (int d = 0; d <= collapses; d++)
    b.failed |= !(l.ids[d] = malloc((size_t)o->ranks * sizeof(int32_t)));
  b.failed |= !b.value || fs_gen_flow_begin(o, FS_COLLECTIVE_ALLREDUCE, 0, 1, o->size);
  int32_t start = fs_gen_label(p, "start");
  for (int32_t rank = 0; rank < o->ranks && !b.failed; rank++) {
    b.failed |= fs_gen_add(p, FS_START, rank, start) < 0;
    b.value[rank] = rank, l.ids[0][rank] = rank;
  }
  l.count[0] = o->ranks;
  if (!b.failed) build(&b, &s, &l);
  for (int d = 0; d <= collapses; d++) free(l.ids[d]);
  free(b.value);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, b.failed, o, err);
}
