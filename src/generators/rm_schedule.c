/* rm_schedule.c: recursive-multiplying schedules (Fennel thesis §5.4).
 *
 * Cost model (units of alpha_r, c = alpha_p/alpha_r; Fennel thesis ch. 5):
 *   factor aK: c+K-1   merge mRgGaK: c+K   inverse merge nRgGaK: c+K-1+ceil(R/G)
 *   collapse cTmM: c+1   expand eTmM: c+M-1
 * Optimum factor (Eq. 5.8):   b_opt   = e^{W0((c-1)/e)+1} - 1
 * Break-even with RD (5.9):   b_upper = -((c+1)/ln2) W_{-1}(-(ln2/(c+1)) 2^{(c-1)/(c+1)}) - 1
 * Lambert W by Halley's iteration on f(w) = w e^w - x:
 *   w' = w - f / (e^w (w+1) - (w+2) f / (2w+2)). */
#include "generators/rm_schedule.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NUMBER 1000000000L
#define RM_E 2.718281828459045235360287471352662498
#define RM_LN2 0.693147180559945309417232121458176568

/* ---- parsing ------------------------------------------------------------ */

typedef struct cursor {
  const char *text;
  size_t pos;
} cursor;

static int expected(const cursor *cur, fs_error *err, const char *what) {
  char c = cur->text[cur->pos];
  if (c == '\0')
    return fs_error_set(err, "rm schedule: column %zu: expected %s, found the end", cur->pos + 1,
                        what);
  return fs_error_set(err, "rm schedule: column %zu: expected %s, found '%c'", cur->pos + 1, what,
                      c);
}

/* Reads `letter` then a decimal number >= minimum. */
static int read_field(cursor *cur, char letter, int32_t minimum, int32_t *value, fs_error *err) {
  char what[64];
  if (cur->text[cur->pos] != letter) {
    snprintf(what, sizeof what, "'%c'", letter);
    return expected(cur, err, what);
  }
  cur->pos++;
  size_t start = cur->pos;
  long v = 0;
  while (cur->text[cur->pos] >= '0' && cur->text[cur->pos] <= '9') {
    v = v * 10 + (cur->text[cur->pos] - '0');
    if (v > MAX_NUMBER) {
      cur->pos = start;
      return expected(cur, err, "a number of at most 1000000000");
    }
    cur->pos++;
  }
  if (cur->pos == start) {
    snprintf(what, sizeof what, "a number after '%c'", letter);
    return expected(cur, err, what);
  }
  if (v < minimum) {
    cur->pos = start;
    snprintf(what, sizeof what, "a number of at least %d after '%c'", (int)minimum, letter);
    return expected(cur, err, what);
  }
  *value = (int32_t)v;
  return 0;
}

static int read_stage(cursor *cur, fs_rm_stage *st, fs_error *err) {
  memset(st, 0, sizeof *st);
  switch (cur->text[cur->pos]) {
    case 'a': st->kind = FS_RM_FACTOR; return read_field(cur, 'a', 2, &st->k, err);
    case 'c':
    case 'e':
      st->kind = cur->text[cur->pos] == 'c' ? FS_RM_COLLAPSE : FS_RM_EXPAND;
      if (read_field(cur, cur->text[cur->pos], 1, &st->t, err)) return -1;
      return read_field(cur, 'm', 2, &st->m, err);
    case 'm':
    case 'n':
      st->kind = cur->text[cur->pos] == 'm' ? FS_RM_MERGE : FS_RM_UNMERGE;
      if (read_field(cur, cur->text[cur->pos], 1, &st->r, err)) return -1;
      if (read_field(cur, 'g', 1, &st->g, err)) return -1;
      return read_field(cur, 'a', 2, &st->k, err);
    default: return expected(cur, err, "a stage (aK, cTmM, eTmM, mRgGaK or nRgGaK)");
  }
}

int fs_rm_schedule_parse(const char *text, fs_rm_schedule *out, fs_error *err) {
  fs_rm_schedule s = {0};
  cursor cur = {text, 0};
  for (;;) {
    if (s.count == FS_RM_MAX_STAGES)
      return fs_error_set(err, "rm schedule: column %zu: more than %d stages", cur.pos + 1,
                          FS_RM_MAX_STAGES);
    if (read_stage(&cur, &s.stages[s.count], err)) return -1;
    s.count++;
    if (text[cur.pos] == '\0') break;
    if (text[cur.pos] != ',') return expected(&cur, err, "',' or the end");
    cur.pos++;
  }
  *out = s;
  return 0;
}

/* ---- formatting --------------------------------------------------------- */

static int format_stage(const fs_rm_stage *st, char *buf, size_t size) {
  switch (st->kind) {
    case FS_RM_FACTOR: return snprintf(buf, size, "a%d", (int)st->k);
    case FS_RM_COLLAPSE: return snprintf(buf, size, "c%dm%d", (int)st->t, (int)st->m);
    case FS_RM_EXPAND: return snprintf(buf, size, "e%dm%d", (int)st->t, (int)st->m);
    case FS_RM_MERGE: return snprintf(buf, size, "m%dg%da%d", (int)st->r, (int)st->g, (int)st->k);
    case FS_RM_UNMERGE: return snprintf(buf, size, "n%dg%da%d", (int)st->r, (int)st->g, (int)st->k);
  }
  return snprintf(buf, size, "?");
}

size_t fs_rm_schedule_format(const fs_rm_schedule *s, char *buf, size_t size) {
  size_t length = 0;
  if (size > 0) buf[0] = '\0';
  for (int i = 0; i < s->count; i++) {
    char one[64];
    int n = format_stage(&s->stages[i], one, sizeof one);
    if (i > 0) {
      if (length + 1 < size) memcpy(buf + length, ",", 2);
      length++;
    }
    if (length < size) snprintf(buf + length, size - length, "%s", one);
    length += (size_t)n;
  }
  return length;
}

/* ---- rank count --------------------------------------------------------- */

static int stage_error(const fs_rm_schedule *s, int i, fs_error *err, const char *what) {
  char one[64];
  format_stage(&s->stages[i], one, sizeof one);
  return fs_error_set(err, "rm schedule: stage %d (%s): %s", i + 1, one, what);
}

/* Product of the factors in stages [first, last], which must all be aK (or
 * the merge pair at the ends when merged != 0). */
static int core_size(const fs_rm_schedule *s, int first, int last, int64_t *product,
                     fs_error *err) {
  int64_t p = 1;
  for (int i = first; i <= last; i++) {
    const fs_rm_stage *st = &s->stages[i];
    if (st->kind != FS_RM_FACTOR)
      return stage_error(s, i, err,
                         "collapse/expand must enclose everything and merge/inverse merge "
                         "everything but collapses; this stage is out of place");
    p *= st->k;
    if (p > MAX_NUMBER) return stage_error(s, i, err, "the schedule covers more than 1e9 ranks");
  }
  *product = p;
  return 0;
}

static int merge_ranks(const fs_rm_schedule *s, int first, int last, int64_t *ranks,
                       fs_error *err) {
  const fs_rm_stage *m = &s->stages[first], *n = &s->stages[last];
  if (first == last || n->kind != FS_RM_UNMERGE)
    return stage_error(s, first, err, "a merge needs an inverse merge (nRgGaK) to close it");
  if (n->r != m->r) return stage_error(s, last, err, "the inverse merge must have the merge's R");
  int64_t p = 0;
  if (core_size(s, first + 1, last - 1, &p, err)) return -1;
  p *= (int64_t)m->k * n->k;
  if (p > MAX_NUMBER) return stage_error(s, first, err, "the schedule covers more than 1e9 ranks");
  char what[160];
  if ((int64_t)m->g * m->k != p || (int64_t)n->g * n->k != p) {
    int bad = (int64_t)m->g * m->k != p ? first : last;
    const fs_rm_stage *st = &s->stages[bad];
    snprintf(what, sizeof what, "R + G*K = %d + %d*%d must equal N = R + %lld (the core's size)",
             (int)st->r, (int)st->g, (int)st->k, (long long)p);
    return stage_error(s, bad, err, what);
  }
  *ranks = m->r + p;
  return 0;
}

static int inner_ranks(const fs_rm_schedule *s, int first, int last, int64_t *ranks,
                       fs_error *err) {
  if (first > last) {
    *ranks = 1;
    return 0;
  }
  if (s->stages[first].kind == FS_RM_MERGE) return merge_ranks(s, first, last, ranks, err);
  if (s->stages[last].kind == FS_RM_UNMERGE)
    return stage_error(s, last, err, "an inverse merge needs a merge (mRgGaK) to open it");
  return core_size(s, first, last, ranks, err);
}

/* Collapse pairs from the outside in, then the inner part; N from inside out. */
static int collapse_ranks(const fs_rm_schedule *s, int first, int last, int64_t *ranks,
                          fs_error *err) {
  const fs_rm_stage *c = &s->stages[first], *e = &s->stages[last];
  if (first == last || e->kind != FS_RM_EXPAND)
    return stage_error(s, first, err, "a collapse needs an expand (eTmM) to close it");
  if (e->t != c->t || e->m != c->m)
    return stage_error(s, last, err, "the expand must have the collapse's T and M");
  if (c->t % c->m != 0) return stage_error(s, first, err, "T must be divisible by M");
  int64_t inner = 0;
  if (first + 1 <= last - 1 && s->stages[first + 1].kind == FS_RM_COLLAPSE) {
    if (collapse_ranks(s, first + 1, last - 1, &inner, err)) return -1;
  } else if (inner_ranks(s, first + 1, last - 1, &inner, err)) {
    return -1;
  }
  if (inner < c->t / c->m) {
    char what[160];
    snprintf(what, sizeof what, "T/M = %d leaders exceed the %lld ranks the inner stages cover",
             (int)(c->t / c->m), (long long)inner);
    return stage_error(s, first, err, what);
  }
  *ranks = inner + c->t - c->t / c->m;
  if (*ranks > MAX_NUMBER)
    return stage_error(s, first, err, "the schedule covers more than 1e9 ranks");
  return 0;
}

int fs_rm_schedule_ranks(const fs_rm_schedule *s, int64_t *ranks, fs_error *err) {
  int last = s->count - 1;
  if (s->count > 0 && s->stages[0].kind == FS_RM_COLLAPSE)
    return collapse_ranks(s, 0, last, ranks, err);
  if (s->count > 0 && s->stages[last].kind == FS_RM_EXPAND)
    return stage_error(s, last, err, "an expand needs a collapse (cTmM) to open it");
  return inner_ranks(s, 0, last, ranks, err);
}

/* ---- cost --------------------------------------------------------------- */

static int64_t stage_units(const fs_rm_stage *st) {
  switch (st->kind) {
    case FS_RM_FACTOR: return st->k - 1;
    case FS_RM_COLLAPSE: return 1;
    case FS_RM_EXPAND: return st->m - 1;
    case FS_RM_MERGE: return st->k;
    case FS_RM_UNMERGE: return st->k - 1 + (st->r + st->g - 1) / st->g;
  }
  return 0;
}

double fs_rm_schedule_cost(const fs_rm_schedule *s, double c) {
  int64_t units = 0;
  for (int i = 0; i < s->count; i++) units += stage_units(&s->stages[i]);
  return s->count * c + (double)units;
}

/* ---- Lambert W ---------------------------------------------------------- */

static double halley(double x, double w) {
  for (int i = 0; i < 64; i++) {
    double ew = exp(w), f = w * ew - x;
    double step = f / (ew * (w + 1) - (w + 2) * f / (2 * w + 2));
    if (!isfinite(step)) break;
    w -= step;
    if (fabs(step) <= 2 * DBL_EPSILON * fabs(w)) break;
  }
  return w;
}

/* p = sqrt(2(ex+1)); W = -1 +- p - p^2/3 + ... near the branch point. */
static double branch_p(double x) { return sqrt(fmax(0.0, 2 * (RM_E * x + 1))); }

double fs_lambert_w0(double x) {
  if (!(x >= -1 / RM_E)) return NAN;
  if (x == -1 / RM_E) return -1;
  if (x == 0) return 0;
  double w;
  if (x < -0.25) {
    double p = branch_p(x);
    w = -1 + p - p * p / 3;
  } else if (x < RM_E) {
    w = log1p(x) * 0.75; /* below W for x > 0, above for x < 0; Halley fixes it */
  } else {
    w = log(x) - log(log(x));
  }
  return halley(x, w);
}

double fs_lambert_wm1(double x) {
  if (!(x >= -1 / RM_E && x < 0)) return NAN;
  if (x == -1 / RM_E) return -1;
  double w;
  if (x < -0.25) {
    double p = branch_p(x);
    w = -1 - p - p * p / 3;
  } else {
    double l = log(-x);
    w = l - log(-l);
  }
  return halley(x, w);
}

double fs_rm_b_opt(double c) { return exp(fs_lambert_w0((c - 1) / RM_E) + 1) - 1; }

double fs_rm_b_upper(double c) {
  double x = -(RM_LN2 / (c + 1)) * pow(2.0, (c - 1) / (c + 1));
  return -((c + 1) / RM_LN2) * fs_lambert_wm1(x) - 1;
}

int32_t fs_rm_upper(double c) { return (int32_t)floor(fs_rm_b_upper(c)) + 1; }

/* ---- heuristic (Alg. 7) -------------------------------------------------- */

static void factor_stage(fs_rm_stage *st, int32_t k) {
  memset(st, 0, sizeof *st);
  st->kind = FS_RM_FACTOR;
  st->k = k;
}

/* "(factors) + merge" as stages; merge > 0 needs at least two factors. */
static int build_schedule(const int32_t *factors, int n, int32_t merge, fs_rm_schedule *out,
                          fs_error *err) {
  if (merge > 0 && n < 2)
    return fs_error_set(err,
                        "rm schedule: merging %d remainders needs at least two core factors, "
                        "not %d",
                        (int)merge, n);
  if (n > FS_RM_MAX_STAGES)
    return fs_error_set(err, "rm schedule: more than %d stages", FS_RM_MAX_STAGES);
  int32_t core = 1;
  for (int i = 0; i < n; i++) core *= factors[i];
  fs_rm_schedule s = {0};
  s.count = n;
  for (int i = 0; i < n; i++) factor_stage(&s.stages[i], factors[i]);
  if (merge > 0) {
    fs_rm_stage *first = &s.stages[0], *last = &s.stages[n - 1];
    first->kind = FS_RM_MERGE;
    first->r = merge;
    first->g = core / first->k;
    last->kind = FS_RM_UNMERGE;
    last->r = merge;
    last->g = core / last->k;
  }
  *out = s;
  return 0;
}

static double sort_key(double c, int32_t d) { return (c + d - 1) / log((double)d); }

/* Candidates 2..upper: by sort_key ascending (insertion sort, stable, so ties
 * keep the smaller d), or upper..2. */
static int candidates(double c, int32_t upper, int sorted, int32_t *out) {
  int n = 0;
  for (int32_t d = sorted ? 2 : upper; sorted ? d <= upper : d >= 2; d += sorted ? 1 : -1) {
    int i = n++;
    while (sorted && i > 0 && sort_key(c, out[i - 1]) > sort_key(c, d)) {
      out[i] = out[i - 1];
      i--;
    }
    out[i] = d;
  }
  return n;
}

/* Greedy factoring of count; returns the factor count, or -1 if it fails. */
static int greedy(int32_t count, const int32_t *cand, int ncand, int32_t *factors) {
  int64_t product = 1;
  int n = 0;
  for (int i = 0; i < ncand; i++)
    while (count % (product * cand[i]) == 0 && n < 64) {
      factors[n++] = cand[i];
      product *= cand[i];
    }
  return product == count ? n : -1;
}

int fs_rm_heuristic(int32_t ranks, double c, int32_t upper, int sorted, fs_rm_schedule *out,
                    fs_error *err) {
  if (ranks < 1 || ranks > MAX_NUMBER)
    return fs_error_set(err, "rm heuristic: ranks must be in [1, 1e9], not %d", (int)ranks);
  if (upper < 2 || upper > 4096)
    return fs_error_set(err, "rm heuristic: upper must be in [2, 4096], not %d", (int)upper);
  int32_t cand[4096], factors[64];
  int ncand = candidates(c, upper, sorted, cand);
  for (int32_t count = ranks;; count--) {
    int n = greedy(count, cand, ncand, factors);
    if (n >= 0) return build_schedule(factors, n, ranks - count, out, err);
  }
}

/* ---- exhaustive best ---------------------------------------------------- */

typedef struct search {
  double c;
  int32_t merge; /* R; 0 for plain factorizations */
  int32_t factors[64];
  int depth;
  double best_cost;
  int32_t best[64];
  int best_n;
  int32_t best_merge;
} search;

/* Cost of a finished factor list under the model (merge at the ends). */
static double list_cost(const search *s, int32_t core) {
  int64_t units = 0;
  for (int i = 0; i < s->depth; i++) units += s->factors[i] - 1;
  if (s->merge > 0) {
    int32_t g_last = core / s->factors[s->depth - 1];
    units += 1 + (s->merge + g_last - 1) / g_last;
  }
  return s->depth * s->c + (double)units;
}

/* Lower bound on any completion: each further stage costs at least c + 1. */
static void extend(search *s, int32_t left, int32_t core, double partial) {
  if (partial >= s->best_cost) return;
  if (left == 1) {
    if (s->merge > 0 && s->depth < 2) return;
    double cost = list_cost(s, core);
    if (cost < s->best_cost) {
      s->best_cost = cost;
      memcpy(s->best, s->factors, sizeof s->best);
      s->best_n = s->depth;
      s->best_merge = s->merge;
    }
    return;
  }
  for (int32_t k = 2; k <= left; k++) {
    if (left % k != 0) continue;
    if (s->depth == 0 && s->merge > 0 && s->merge >= k) continue; /* R < K1 */
    s->factors[s->depth++] = k;
    extend(s, left / k, core, partial + s->c + k - 1);
    s->depth--;
  }
}

int fs_rm_best(int32_t ranks, double c, fs_rm_schedule *out, fs_error *err) {
  if (ranks < 1 || ranks > 65536)
    return fs_error_set(err, "rm best: ranks must be in [1, 65536], not %d", (int)ranks);
  search s = {.c = c, .best_cost = INFINITY};
  extend(&s, ranks, ranks, 0);
  for (int32_t r = 1; r < ranks; r++) {
    s.merge = r;
    extend(&s, ranks - r, ranks - r, 0);
  }
  return build_schedule(s.best, s.best_n, s.best_merge, out, err);
}

/* ---- defaults for `--schedule auto` ------------------------------------- */

/* Table 4.1: size (B), alpha_p (ns), alpha_r (ns); pipelined.c's default. */
static const double TABLE_4_1[][3] = {
    {8, 880, 380},      {64, 890, 380},        {128, 910, 380},
    {512, 960, 460},    {2048, 960, 790},      {8192, 860, 2170},
    {32768, 680, 7750}, {131072, -120, 30100}, {524288, -1700, 119300},
};

double fs_rm_archer_ratio(int64_t size) {
  const int rows = (int)(sizeof TABLE_4_1 / sizeof TABLE_4_1[0]);
  double alpha_p = TABLE_4_1[0][1], alpha_r = TABLE_4_1[0][2];
  if (size > TABLE_4_1[0][0]) {
    int i = 1;
    while (i < rows - 1 && size > TABLE_4_1[i][0]) i++;
    const double *a = TABLE_4_1[i - 1], *b = TABLE_4_1[i];
    double f = ((double)size - a[0]) / (b[0] - a[0]);
    alpha_p = a[1] + f * (b[1] - a[1]), alpha_r = a[2] + f * (b[2] - a[2]);
  }
  return alpha_p > 0 && alpha_r > 0 ? alpha_p / alpha_r : 0;
}

int32_t fs_rm_upper_clamped(double c) {
  if (!(c > 0)) return 2;
  double u = floor(fs_rm_b_upper(c)) + 1;
  return !(u >= 2) ? 2 : u > 4096 ? 4096 : (int32_t)u;
}

static int heuristic_or_one_stage(int32_t ranks, double c, int sorted, fs_rm_schedule *out,
                                  fs_error *err) {
  if (ranks < 1 || ranks > MAX_NUMBER)
    return fs_error_set(err, "rm heuristic: ranks must be in [1, 1e9], not %d", (int)ranks);
  if (fs_rm_heuristic(ranks, c, fs_rm_upper_clamped(c), sorted, out, NULL) == 0) return 0;
  *out = (fs_rm_schedule){.count = 1};
  factor_stage(&out->stages[0], ranks);
  return 0;
}

int fs_rm_auto(int32_t ranks, double c, fs_rm_schedule *out, fs_error *err) {
  return heuristic_or_one_stage(ranks, c, 1, out, err);
}

int fs_rm_auto_unsorted(int32_t ranks, double c, fs_rm_schedule *out, fs_error *err) {
  return heuristic_or_one_stage(ranks, c, 0, out, err);
}

/* ---- candidates for `best` ------------------------------------------------ */

typedef struct ranking {
  fs_rm_candidates *out;
  int64_t *order; /* enumeration order of each kept item (ties) */
  int64_t next;
  double c;
  fs_rm_stage prefix, suffix; /* collapse/expand around the factors, or kind = -1 */
  int32_t merge;
  double extra; /* the wrapper's least cost beyond the factors */
  int32_t factors[64];
  int depth;
} ranking;

static int worse(const ranking *r, int i, int j) { /* item i ranks after item j */
  const double *cost = r->out->cost;
  return cost[i] > cost[j] || (cost[i] == cost[j] && r->order[i] > r->order[j]);
}

static void swap_items(ranking *r, int i, int j) {
  fs_rm_schedule s = r->out->items[i];
  r->out->items[i] = r->out->items[j], r->out->items[j] = s;
  double c = r->out->cost[i];
  r->out->cost[i] = r->out->cost[j], r->out->cost[j] = c;
  int64_t o = r->order[i];
  r->order[i] = r->order[j], r->order[j] = o;
}

/* Max-heap on (cost, order): the root is the one to drop first. */
static void sift_down(ranking *r, int i) {
  for (;;) {
    int worst = i, left = 2 * i + 1, right = left + 1;
    if (left < r->out->count && worse(r, left, worst)) worst = left;
    if (right < r->out->count && worse(r, right, worst)) worst = right;
    if (worst == i) return;
    swap_items(r, i, worst);
    i = worst;
  }
}

static void offer(ranking *r, const fs_rm_schedule *s) {
  fs_rm_candidates *out = r->out;
  double cost = fs_rm_schedule_cost(s, r->c);
  int64_t order = r->next++;
  out->considered++;
  if (out->count == out->limit) {
    out->capped = 1;
    if (cost >= out->cost[0]) return;
    out->items[0] = *s, out->cost[0] = cost, r->order[0] = order;
    sift_down(r, 0);
    return;
  }
  int i = out->count++;
  out->items[i] = *s, out->cost[i] = cost, r->order[i] = order;
  while (i > 0 && worse(r, i, (i - 1) / 2)) {
    swap_items(r, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}

/* The current factor list inside its wrapper, offered. */
static void offer_list(ranking *r) {
  fs_rm_schedule s;
  if (build_schedule(r->factors, r->depth, r->merge, &s, NULL)) return;
  if (r->prefix.kind == FS_RM_COLLAPSE) {
    if (s.count + 2 > FS_RM_MAX_STAGES) return;
    memmove(&s.stages[1], &s.stages[0], (size_t)s.count * sizeof s.stages[0]);
    s.stages[0] = r->prefix, s.stages[s.count + 1] = r->suffix;
    s.count += 2;
  }
  offer(r, &s);
}

static void factor_lists(ranking *r, int32_t left, double partial) {
  fs_rm_candidates *out = r->out;
  double bound = partial + r->extra + (left > 1 ? r->c + 1 : 0);
  if (out->count == out->limit && bound >= out->cost[0]) {
    out->capped = 1;
    return;
  }
  if (left == 1) {
    if (r->merge == 0 || r->depth >= 2) offer_list(r);
    return;
  }
  if (r->depth == 64) return;
  for (int32_t k = 2; k <= left; k++) {
    if (left % k != 0 || (r->depth == 0 && r->merge > 0 && r->merge >= k)) continue;
    r->factors[r->depth++] = k;
    factor_lists(r, left / k, partial + r->c + k - 1);
    r->depth--;
  }
}

static int smooth(int32_t n) { /* every prime factor <= 7 */
  for (int32_t p = 2; p <= 7; p++)
    while (n % p == 0) n /= p;
  return n == 1;
}

static void collapses(ranking *r, int32_t ranks) {
  for (int32_t m = 2; m <= 3; m++) {
    int found = 0;
    for (int32_t inner = ranks - 1; inner >= 2 && found < 2; inner--) {
      int64_t folded = ranks - inner; /* T - T/M = T(M-1)/M */
      if (folded % (m - 1) != 0) continue;
      int64_t t = folded / (m - 1) * m;
      if (t > ranks || t / m > inner || !smooth(inner)) continue;
      found++;
      r->prefix = (fs_rm_stage){.kind = FS_RM_COLLAPSE, .t = (int32_t)t, .m = m};
      r->suffix = (fs_rm_stage){.kind = FS_RM_EXPAND, .t = (int32_t)t, .m = m};
      r->extra = 2 * r->c + m; /* (c + 1) + (c + M - 1) */
      factor_lists(r, inner, 0);
    }
  }
}

int fs_rm_enumerate(int32_t ranks, double c, int limit, fs_rm_candidates *out, fs_error *err) {
  *out = (fs_rm_candidates){0};
  if (ranks < 1 || ranks > 65536)
    return fs_error_set(err, "rm candidates: ranks must be in [1, 65536], not %d", (int)ranks);
  if (limit < 1 || limit > 1000000)
    return fs_error_set(err, "rm candidates: limit must be in [1, 1000000], not %d", limit);
  ranking r = {.out = out, .c = c};
  out->limit = limit;
  out->items = malloc((size_t)limit * sizeof *out->items);
  out->cost = malloc((size_t)limit * sizeof *out->cost);
  r.order = malloc((size_t)limit * sizeof *r.order);
  if (!out->items || !out->cost || !r.order) {
    free(r.order);
    fs_rm_candidates_free(out);
    return fs_error_set(err, "rm candidates: out of memory for %d schedules", limit);
  }
  r.prefix.kind = r.suffix.kind = FS_RM_FACTOR; /* no wrapper */
  factor_lists(&r, ranks, 0);
  r.extra = 2; /* merge c+K1, inverse >= c+Ks */
  for (r.merge = 1; r.merge < ranks; r.merge++) factor_lists(&r, ranks - r.merge, 0);
  r.merge = 0;
  collapses(&r, ranks);
  /* heap -> ascending (cost, order) */
  int kept = out->count;
  for (int n = kept; n > 1; n--) {
    swap_items(&r, 0, n - 1);
    out->count--;
    sift_down(&r, 0);
  }
  out->count = kept;
  free(r.order);
  return 0;
}

void fs_rm_candidates_free(fs_rm_candidates *candidates) {
  free(candidates->items);
  free(candidates->cost);
  *candidates = (fs_rm_candidates){0};
}
