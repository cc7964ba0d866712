/* fit_lmo.c: the extended LMO model's per-rank C_i, t_i and per-pair L_ij,
 * 1/beta_ij from round trips and one-to-two experiments (Lastovetsky,
 * Rychkov, O'Flynn), as
 * lmo.c prices them.
 *
 * lmo.c: a message i->j of M bytes is C_i + M t_i on i's CPU, L_ij +
 * M/beta_ij on the wire, C_j + M t_j on j's CPU, so a round trip i -> j of
 * M bytes and R back is, with links taken as symmetric (the slides' L_ij =
 * L_ji, beta_ij = beta_ji):
 *     RT_ij(M/R) = 2 a_ij + (M + R) s_ij,  a_ij = C_i + L_ij + C_j,
 *                                          s_ij = t_i + 1/beta_ij + t_j.
 * Per pair: a_ij = RT_ij(0/0)/2 (the empty round trip), s_ij by least
 * squares through that intercept over the pair's other round trips.
 * The slides' C_i = (T_ij(0) + T_ik(0) - T_jk(0))/4 over triplets holds
 * for the original LMO only: with L_ij it gives C_i + (L_ij + L_ik -
 * L_jk)/2. The one-to-two experiment separates them: root i sends M to b,
 * then to c (its CPU busy C_i + M t_i for each), each replies R; when c's
 * reply arrives last and after i has received b's (ρ = C_i + R t_i), the
 * model gives
 *     T_ibc(M) = RT_ic(M/R) + C_i + M t_i,
 * the slides' T = 2 C_i + M t_i + max_x T_ix with the first send's wire
 * overlapping the second send (lmo.c's nonblocking sends). So C_i + M t_i
 * = T_ibc(M) - RT_ic(M/R) (RT from the pair's fit) over the rows with T >
 * RT_ib(M/R) + ρ (exactly those where c's reply is last, not queued behind
 * b's; ρ from a first pass over T > RT_ib), and C_i, t_i by least squares
 * in M over them: the slides' average over the triplets holding i. Then
 * L_ij = a_ij - C_i - C_j and 1/beta_ij = s_ij - t_i - t_j.
 * A rank without two sizes of such rows takes the slides' triplet C_i
 * (averaged over its triplets of empty round trips; 0 beyond 1024 ranks
 * with round trips, where that search is too long) and t_i = 0, noted.
 * Negative values (noise) are set to 0 and counted. The `default` line:
 * C and t the fitted ranks' means, L and 1/beta those of a send to itself
 * (lmo.c prices it with the default link) from the send-to-self round
 * trips, else the pairs' means. Written as
 * the rank-pair file lmo.c reads (rank_pair_table.h), as table "file". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"

#define MAX_TRIPLET_RANKS 1024

typedef struct pair {
  int64_t key; /* low * ranks + high */
  double a, s; /* ps, ps per byte */
  fs_time latency;
  fs_per_byte invbeta;
} pair;

typedef struct rank_values {
  int32_t rank; /* one with round trips */
  double c, t;  /* ps, ps per byte */
  int from_one_to_two;
  fs_time time;
  fs_per_byte per_byte;
} rank_values;

typedef struct lmo_fit {
  const fs_probe_data *d;
  const fs_fit_options *o;
  fs_fit *fit;
  pair *pairs;
  int64_t pair_count;
  rank_values *ranks; /* the ranks of the pairs, increasing (not every rank: the
                          header may name millions) */
  int64_t rank_count;
  int64_t clamped, fallback_ranks;
  int has_self; /* send-to-self rows gave the default link */
  fs_time self_latency;
  fs_per_byte self_invbeta;
} lmo_fit;

static const char *source(const fs_probe_data *d) { return d->source ? d->source : "the data"; }

static int is_roundtrip(const fs_probe_row *r, int32_t ranks) {
  return r->experiment == FS_EXPERIMENT_ROUNDTRIP && r->rank_a != r->rank_b && r->stride == 0 &&
         r->rank_a >= 0 && r->rank_b >= 0 && r->rank_a < ranks && r->rank_b < ranks;
}

static int is_one_to_two(const fs_probe_row *r, int32_t ranks) {
  return r->experiment == FS_EXPERIMENT_ONE_TO_TWO && r->stride == 0 && r->rank_a >= 0 &&
         r->rank_b >= 0 && r->rank_c >= 0 && r->rank_a < ranks && r->rank_b < ranks &&
         r->rank_c < ranks && r->rank_a != r->rank_b && r->rank_a != r->rank_c &&
         r->rank_b != r->rank_c;
}

static int64_t key_of(int32_t i, int32_t j, int32_t ranks) {
  return i < j ? (int64_t)i * ranks + j : (int64_t)j * ranks + i;
}

static int by_key(const void *a, const void *b) {
  int64_t x = ((const pair *)a)->key, y = ((const pair *)b)->key;
  return (x > y) - (x < y);
}

static pair *find(const lmo_fit *f, int32_t i, int32_t j) {
  pair wanted = {.key = key_of(i, j, f->d->ranks)};
  return bsearch(&wanted, f->pairs, (size_t)f->pair_count, sizeof *f->pairs, by_key);
}

static int by_rank(const void *a, const void *b) {
  int32_t x = ((const rank_values *)a)->rank, y = ((const rank_values *)b)->rank;
  return (x > y) - (x < y);
}

/* The rank's values, or NULL when it has no round trips. */
static rank_values *member(const lmo_fit *f, int32_t rank) {
  rank_values wanted = {.rank = rank};
  return bsearch(&wanted, f->ranks, (size_t)f->rank_count, sizeof *f->ranks, by_rank);
}

/* ---- pairs: a_ij, s_ij ---- */

static int collect_pairs(lmo_fit *f, fs_error *err) {
  const fs_probe_data *d = f->d;
  f->pairs = malloc((size_t)(d->count ? d->count : 1) * sizeof *f->pairs);
  if (!f->pairs) return fs_error_set(err, "out of memory");
  for (int64_t i = 0; i < d->count; i++)
    if (is_roundtrip(&d->rows[i], d->ranks))
      f->pairs[f->pair_count++] =
          (pair){.key = key_of(d->rows[i].rank_a, d->rows[i].rank_b, d->ranks)};
  qsort(f->pairs, (size_t)f->pair_count, sizeof *f->pairs, by_key);
  int64_t n = 0;
  for (int64_t i = 0; i < f->pair_count; i++)
    if (n == 0 || f->pairs[n - 1].key != f->pairs[i].key) f->pairs[n++] = f->pairs[i];
  f->pair_count = n;
  if (n == 0)
    return fs_error_set(err,
                        "lmo: %s has no roundtrip rows between two ranks (fennelprobe "
                        "--experiments "
                        "roundtrip --pairs all)",
                        source(d));
  return 0;
}

/* a = RT(0/0)/2; s = sum x (y - 2a) / sum x^2 over the other round trips,
 * x = M + R. */
static int fit_pairs(lmo_fit *f, fs_error *err) {
  const fs_probe_data *d = f->d;
  double *empty = calloc((size_t)f->pair_count, sizeof *empty),
         *xy = calloc((size_t)f->pair_count, sizeof *xy),
         *xx = calloc((size_t)f->pair_count, sizeof *xx);
  int64_t *empties = calloc((size_t)f->pair_count, sizeof *empties);
  if (!empty || !xy || !xx || !empties) {
    free(empty), free(xy), free(xx), free(empties);
    return fs_error_set(err, "out of memory");
  }
  for (int64_t i = 0; i < d->count; i++) {
    const fs_probe_row *r = &d->rows[i];
    if (!is_roundtrip(r, d->ranks) || r->bytes + r->reply_bytes != 0) continue;
    int64_t k = find(f, r->rank_a, r->rank_b) - f->pairs;
    empty[k] += (double)fs_fit_value(r, f->o), empties[k]++;
  }
  for (int64_t k = 0; k < f->pair_count; k++)
    f->pairs[k].a = empties[k] ? empty[k] / (double)empties[k] / 2 : 0;
  for (int64_t i = 0; i < d->count; i++) {
    const fs_probe_row *r = &d->rows[i];
    if (!is_roundtrip(r, d->ranks) || r->bytes + r->reply_bytes == 0) continue;
    int64_t k = find(f, r->rank_a, r->rank_b) - f->pairs;
    double x = (double)(r->bytes + r->reply_bytes);
    xy[k] += x * ((double)fs_fit_value(r, f->o) - 2 * f->pairs[k].a), xx[k] += x * x;
  }
  int status = 0;
  for (int64_t k = 0; k < f->pair_count && !status; k++) {
    pair *p = &f->pairs[k];
    if (!empties[k] || xx[k] == 0)
      status =
          fs_error_set(err,
                       "lmo: the roundtrip rows of ranks %lld and %lld need an empty one (0/0) "
                       "and a non-empty one",
                       (long long)(p->key / d->ranks), (long long)(p->key % d->ranks));
    else
      p->s = xy[k] / xx[k];
  }
  free(empty), free(xy), free(xx), free(empties);
  return status;
}

/* RT_ij(M/R) by the pair's fit. */
static double round_trip(const lmo_fit *f, int32_t i, int32_t j, int64_t m, int64_t r) {
  const pair *p = find(f, i, j);
  return p ? 2 * p->a + (double)(m + r) * p->s : NAN;
}

/* ---- ranks: C_i, t_i ---- */

/* The one-to-two row gives C_i + M t_i when its second target's reply came
 * last and was not queued: T > RT_ib + rho (rho taken as 0 in the first
 * pass, which has no C_i yet). */
static int usable(const lmo_fit *f, const fs_probe_row *r, const rank_values *root, int first_pass,
                  double *sample) {
  double to_b = round_trip(f, r->rank_a, r->rank_b, r->bytes, r->reply_bytes);
  double to_c = round_trip(f, r->rank_a, r->rank_c, r->bytes, r->reply_bytes);
  double t = (double)fs_fit_value(r, f->o),
         rho = first_pass ? 0 : root->c + (double)r->reply_bytes * root->t;
  if (isnan(to_b) || isnan(to_c) || !(t > to_b + rho)) return 0;
  *sample = t - to_c;
  return 1;
}

/* Least squares of C_i + M t_i over the usable rows of rows[0..count)
 * (the one-to-two rows rooted at the rank); 0 when fewer than two sizes. */
static int fit_rank(const lmo_fit *f, const int64_t *rows, int64_t count, int first_pass,
                    rank_values *v, double *x, double *y) {
  int64_t n = 0;
  for (int64_t i = 0; i < count; i++) {
    const fs_probe_row *r = &f->d->rows[rows[i]];
    double sample;
    if (usable(f, r, v, first_pass, &sample)) x[n] = (double)r->bytes, y[n++] = sample;
  }
  double c, t;
  if (fs_fit_line(x, y, n, &c, &t)) return 0;
  v->c = c, v->t = t;
  return 1;
}

/* The slides' C_i: (T_ij(0) + T_ik(0) - T_jk(0))/4 averaged over the
 * triplets of fitted pairs (2 T(0) = 4 a); over the ranks with round trips,
 * up to MAX_TRIPLET_RANKS of them (the search is cubic). */
static int triplet_overhead(const lmo_fit *f, int32_t i, double *c) {
  double sum = 0;
  int64_t n = 0;
  if (f->rank_count > MAX_TRIPLET_RANKS) return 0;
  for (int64_t x = 0; x < f->rank_count; x++) {
    int32_t j = f->ranks[x].rank;
    if (j == i) continue;
    for (int64_t y = x + 1; y < f->rank_count; y++) {
      int32_t k = f->ranks[y].rank;
      if (k == i) continue;
      const pair *ij = find(f, i, j), *ik = find(f, i, k), *jk = find(f, j, k);
      if (ij && ik && jk) sum += (ij->a + ik->a - jk->a) / 2, n++;
    }
  }
  if (n) *c = sum / (double)n;
  return n > 0;
}

typedef struct keyed_row {
  int32_t root;
  int64_t row;
} keyed_row;

static int by_root(const void *a, const void *b) {
  const keyed_row *x = a, *y = b;
  if (x->root != y->root) return x->root < y->root ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

static int fit_ranks(lmo_fit *f, fs_error *err) {
  int32_t n = f->d->ranks;
  size_t rows = (size_t)(f->d->count ? f->d->count : 1);
  f->ranks = calloc((size_t)(2 * f->pair_count), sizeof *f->ranks);
  double *x = malloc(rows * sizeof *x), *y = malloc(rows * sizeof *y);
  keyed_row *roots = malloc(rows * sizeof *roots);
  int64_t *group = malloc(rows * sizeof *group);
  if (!f->ranks || !x || !y || !roots || !group) {
    free(x), free(y), free(roots), free(group);
    return fs_error_set(err, "out of memory");
  }
  for (int64_t k = 0; k < f->pair_count; k++) /* ranks with round trips */
    f->ranks[2 * k].rank = (int32_t)(f->pairs[k].key / n),
                 f->ranks[2 * k + 1].rank = (int32_t)(f->pairs[k].key % n);
  qsort(f->ranks, (size_t)(2 * f->pair_count), sizeof *f->ranks, by_rank);
  for (int64_t k = 0; k < 2 * f->pair_count; k++)
    if (f->rank_count == 0 || f->ranks[f->rank_count - 1].rank != f->ranks[k].rank)
      f->ranks[f->rank_count++] = f->ranks[k];
  int64_t count = 0, at = 0;
  for (int64_t i = 0; i < f->d->count; i++)
    if (is_one_to_two(&f->d->rows[i], n)) roots[count++] = (keyed_row){f->d->rows[i].rank_a, i};
  qsort(roots, (size_t)count, sizeof *roots, by_root);
  for (int64_t k = 0; k < f->rank_count; k++) { /* both by rank: one pass */
    rank_values *v = &f->ranks[k];
    int64_t members = 0;
    while (at < count && roots[at].root < v->rank) at++;
    while (at < count && roots[at].root == v->rank) group[members++] = roots[at++].row;
    if (fit_rank(f, group, members, 1, v, x, y)) {
      v->from_one_to_two = 1;
      fit_rank(f, group, members, 0, v, x, y); /* again without the rows queued behind b's reply */
    } else {
      if (!triplet_overhead(f, v->rank, &v->c)) v->c = 0;
      v->t = 0, f->fallback_ranks++;
    }
  }
  free(x), free(y), free(roots), free(group);
  return 0;
}

/* ---- the result ---- */

static fs_time time_value(lmo_fit *f, double ps) {
  if (ps < -0.5) f->clamped++;
  return ps < -0.5 ? 0 : fs_fit_round_time(ps);
}

static fs_per_byte per_byte_value(lmo_fit *f, double ps_per_byte) {
  return (fs_per_byte)time_value(f, ps_per_byte * 1e6);
}

/* lmo.c's processing time with the rounded values. */
static fs_time processing_of(const lmo_fit *f, int32_t rank, int64_t bytes) {
  const rank_values *v = member(f, rank);
  return fs_time_add(v->time, fs_time_for_bytes(bytes, v->per_byte));
}

static void round_values(lmo_fit *f) {
  for (int64_t k = 0; k < f->rank_count; k++) {
    rank_values *v = &f->ranks[k];
    v->time = time_value(f, v->c), v->per_byte = per_byte_value(f, v->t);
  }
  for (int64_t k = 0; k < f->pair_count; k++) {
    pair *p = &f->pairs[k];
    int32_t i = (int32_t)(p->key / f->d->ranks), j = (int32_t)(p->key % f->d->ranks);
    const rank_values *u = member(f, i), *v = member(f, j);
    p->latency = time_value(f, p->a - (double)u->time - (double)v->time);
    p->invbeta = per_byte_value(f, p->s - ((double)u->per_byte + (double)v->per_byte) / 1e6);
  }
}

/* The default link, which lmo.c gives a send to itself (the file has no
 * link i i): from the send-to-self round trips, RT_ii(M/R) - 2 (2 C_i) -
 * 2 (M + R) t_i = 2 L + (M + R)/beta, as the pairs; without them, the
 * pairs' means. */
static void fit_self(lmo_fit *f) {
  const fs_probe_data *d = f->d;
  double empty = 0, xy = 0, xx = 0;
  int64_t empties = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int64_t i = 0; i < d->count; i++) {
      const fs_probe_row *r = &d->rows[i];
      int32_t a = r->rank_a;
      if (r->experiment != FS_EXPERIMENT_ROUNDTRIP || a != r->rank_b || r->stride != 0 ||
          !member(f, a) || (r->bytes + r->reply_bytes == 0) == pass)
        continue;
      double rest =
          (double)fs_fit_value(r, f->o) -
          2 * (double)(processing_of(f, a, r->bytes) + processing_of(f, a, r->reply_bytes));
      double x = (double)(r->bytes + r->reply_bytes);
      if (pass == 0)
        empty += rest / 2, empties++;
      else
        xy += x * (rest - 2 * empty), xx += x * x;
    }
  if (!empties) return;
  empty /= (double)empties;
  f->has_self = 1;
  f->self_latency = time_value(f, empty);
  f->self_invbeta = xx > 0 ? per_byte_value(f, xy / xx) : 0;
}

/* "ranks N\ndefault ...\nrank i C= t=\nlink i j L= invbeta=\n" */
static char *rank_pair_file(const lmo_fit *f) {
  int32_t n = f->d->ranks;
  size_t size = 320 + (size_t)(f->rank_count + f->pair_count) * 192, used = 0; /* a line < 192 */
  char *text = malloc(size), a[32], b[48];
  if (!text) return NULL;
  __int128 time_sum = 0, per_byte_sum = 0, latency_sum = 0, invbeta_sum = 0;
  int64_t ranks = f->rank_count;
  for (int64_t k = 0; k < ranks; k++)
    time_sum += f->ranks[k].time, per_byte_sum += f->ranks[k].per_byte;
  for (int64_t k = 0; k < f->pair_count; k++)
    latency_sum += f->pairs[k].latency, invbeta_sum += f->pairs[k].invbeta;
  int64_t pairs = f->pair_count ? f->pair_count : 1, rank_count = ranks ? ranks : 1;
  if (f->has_self) latency_sum = f->self_latency, invbeta_sum = f->self_invbeta, pairs = 1;
  used += (size_t)snprintf(text, size, "ranks %d\ndefault C=%sns ", (int)n,
                           fs_format_ns(a, (fs_time)((time_sum + rank_count / 2) / rank_count)));
  used += (size_t)snprintf(text + used, size - used, "t=%s ",
                           fs_format_per_byte(b, (fs_per_byte)((per_byte_sum + rank_count / 2) /
                                                               rank_count)));
  used += (size_t)snprintf(text + used, size - used, "L=%sns ",
                           fs_format_ns(a, (fs_time)((latency_sum + pairs / 2) / pairs)));
  used += (size_t)snprintf(text + used, size - used, "invbeta=%s\n",
                           fs_format_per_byte(b, (fs_per_byte)((invbeta_sum + pairs / 2) / pairs)));
  for (int64_t k = 0; k < ranks; k++)
    used += (size_t)snprintf(text + used, size - used, "rank %d C=%sns t=%s\n",
                             (int)f->ranks[k].rank, fs_format_ns(a, f->ranks[k].time),
                             fs_format_per_byte(b, f->ranks[k].per_byte));
  for (int64_t k = 0; k < f->pair_count; k++)
    used += (size_t)snprintf(text + used, size - used, "link %d %d L=%sns invbeta=%s\n",
                             (int)(f->pairs[k].key / n), (int)(f->pairs[k].key % n),
                             fs_format_ns(a, f->pairs[k].latency),
                             fs_format_per_byte(b, f->pairs[k].invbeta));
  return text;
}

/* lmo.c's times, with its roundings (one per product); i == j: the
 * default link. */
static fs_time message(const lmo_fit *f, int32_t i, int32_t j, int64_t bytes) {
  const pair *p = i == j ? NULL : find(f, i, j);
  fs_time latency = p ? p->latency : f->self_latency;
  fs_per_byte invbeta = p ? p->invbeta : f->self_invbeta;
  fs_time wire = fs_time_add(latency, fs_time_for_bytes(bytes, invbeta));
  return fs_time_add(fs_time_add(processing_of(f, i, bytes), wire), processing_of(f, j, bytes));
}

/* The model's time of a row the fit uses; 0 for the others. A one-to-two
 * row: the replies are received in the order they arrive, each taking
 * rho of the root's CPU. */
static int estimate(const lmo_fit *f, const fs_probe_row *r, fs_time *out) {
  int32_t i = r->rank_a, b = r->rank_b, c = r->rank_c;
  int self = r->experiment == FS_EXPERIMENT_ROUNDTRIP && i == b && r->stride == 0 && f->has_self &&
             member(f, i);
  if (is_roundtrip(r, f->d->ranks) || self) {
    *out = fs_time_add(message(f, i, b, r->bytes), message(f, b, i, r->reply_bytes));
    return 1;
  }
  if (!is_one_to_two(r, f->d->ranks) || !find(f, i, b) || !find(f, i, c)) return 0;
  fs_time send = processing_of(f, i, r->bytes), rho = processing_of(f, i, r->reply_bytes);
  fs_time from_b =
      fs_time_add(fs_time_add(message(f, i, b, r->bytes), message(f, b, i, r->reply_bytes)), -rho);
  fs_time from_c = fs_time_add(fs_time_add(fs_time_add(send, message(f, i, c, r->bytes)),
                                           message(f, c, i, r->reply_bytes)),
                               -rho);
  fs_time first = from_b < from_c ? from_b : from_c, last = from_b < from_c ? from_c : from_b;
  fs_time then = fs_time_add(first, rho);
  *out = fs_time_add(last > then ? last : then, rho);
  return 1;
}

static int write_result(lmo_fit *f, fs_error *err) {
  round_values(f);
  fit_self(f);
  char *text = rank_pair_file(f);
  if (!text || fs_fit_add_table(f->fit, "file", text)) return fs_error_set(err, "out of memory");
  int64_t from_one_to_two = 0;
  for (int64_t k = 0; k < f->rank_count; k++) from_one_to_two += f->ranks[k].from_one_to_two;
  for (int64_t i = 0; i < f->d->count; i++) {
    fs_time e;
    if (estimate(f, &f->d->rows[i], &e) &&
        fs_fit_add_residual(f->fit, i, fs_fit_value(&f->d->rows[i], f->o), e))
      return fs_error_set(err, "out of memory");
  }
  fs_fit_note(f->fit,
              "a_ij = RT_ij(0)/2 and s_ij (least squares through it) for %lld pairs; C_i + M t_i = "
              "T_ibc(M) - RT_ic(M) over one-to-two rows for %lld ranks (%s)",
              (long long)f->pair_count, (long long)from_one_to_two,
              f->o && f->o->use_median ? "medians" : "minima");
  if (f->fallback_ranks)
    fs_fit_note(f->fit,
                "%lld ranks without two sizes of usable one-to-two rows: C_i from the "
                "empty-roundtrip "
                "triplets (L folded into C), t_i = 0",
                (long long)f->fallback_ranks);
  fs_fit_note(f->fit, "%s",
              f->has_self ? "the default link (a send to itself; pairs without rows) from "
                            "the send-to-self round trips"
                          : "the default link: the pairs' means (no send-to-self rows)");
  if (f->clamped) fs_fit_note(f->fit, "%lld negative values set to 0", (long long)f->clamped);
  return 0;
}

int fs_fit_lmo(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err) {
  fs_fit_init(fit, "lmo");
  lmo_fit f = {.d = d, .o = o, .fit = fit};
  int status = d->ranks < 1 ? fs_error_set(err, "lmo: %s names no ranks", source(d))
                            : collect_pairs(&f, err) || fit_pairs(&f, err) || fit_ranks(&f, err) ||
                                  write_result(&f, err);
  free(f.pairs);
  free(f.ranks);
  return status ? -1 : 0;
}
