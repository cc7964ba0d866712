/* fit_hetero_hockney.c: per-pair alpha_ij and beta_ij of the heterogeneous
 * Hockney model from the round trips of every pair.
 *
 * hetero_hockney.c: a message i->j of m bytes holds the sender's CPU until
 * it lands, alpha_ij + beta_ij m after it starts; receiving takes no CPU.
 * A round trip between i and j (i sends m, j sends m back) is
 *     RTT_ij(m) = alpha_ij + beta_ij m + alpha_ji + beta_ji m,
 * so a round trip sees only the sum of the two directions: the fit takes
 * the link as symmetric (alpha_ij = alpha_ji, beta_ij = beta_ji) and fits
 * RTT_ij(m)/2 = alpha_ij + beta_ij m per unordered pair by least squares
 * over its sizes (rows: roundtrip, a != b, reply_bytes = bytes, no stride;
 * either order of a and b). A pair without rows takes the `default` line:
 * the mean of the fitted pairs. Written as the rank-pair file the model
 * reads (rank_pair_table.h: `ranks N`, `default`, one `link i j` line per
 * pair), as table "file". Rounding and residuals as fit_hockney.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"

static int used(const fs_probe_row *r) {
  return r->experiment == FS_EXPERIMENT_ROUNDTRIP && r->rank_a != r->rank_b &&
         r->reply_bytes == r->bytes && r->stride == 0;
}

static int64_t pair_of(const fs_probe_row *r, int32_t ranks) {
  int32_t low = r->rank_a < r->rank_b ? r->rank_a : r->rank_b;
  int32_t high = r->rank_a < r->rank_b ? r->rank_b : r->rank_a;
  return (int64_t)low * ranks + high;
}

typedef struct fitted_pair {
  int64_t pair;
  fs_time alpha;
  fs_per_byte beta;
} fitted_pair;

typedef struct keyed_row {
  int64_t pair, row;
} keyed_row;

static int by_pair(const void *a, const void *b) {
  const keyed_row *x = a, *y = b;
  if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

/* The line of rows[0..n) (one pair); -1 with err when it has one size. */
static int fit_pair(const fs_probe_data *d, const fs_fit_options *o, const int64_t *rows, int64_t n,
                    double *x, double *y, fitted_pair *out, fs_error *err) {
  for (int64_t k = 0; k < n; k++)
    x[k] = (double)d->rows[rows[k]].bytes, y[k] = fs_fit_value(&d->rows[rows[k]], o) / 2.0;
  double alpha, beta;
  const fs_probe_row *first = &d->rows[rows[0]];
  if (fs_fit_line(x, y, n, &alpha, &beta))
    return fs_error_set(err,
                        "hetero-hockney: the roundtrip rows of ranks %d and %d need 2 or more "
                        "sizes (line %u has the only one)",
                        first->rank_a, first->rank_b, first->line);
  out->pair = pair_of(first, d->ranks);
  out->alpha = fs_fit_round_time(alpha);
  out->beta = fs_fit_round_time(beta * 1e6);
  if (out->alpha < 0) out->alpha = 0;
  if (out->beta < 0) out->beta = 0;
  return 0;
}

/* "ranks N\ndefault ...\nlink i j ...\n" */
static char *pair_file(const fs_probe_data *d, const fitted_pair *pairs, int64_t n, fs_time alpha,
                       fs_per_byte beta) {
  size_t size = 128 + (size_t)n * 128, used_bytes = 0;
  char *text = malloc(size), a[32], b[48];
  if (!text) return NULL;
  used_bytes += (size_t)snprintf(text, size, "ranks %d\ndefault alpha=%sns beta=%s\n",
                                 (int)d->ranks, fs_format_ns(a, alpha),
                                 fs_format_per_byte(b, beta));
  for (int64_t k = 0; k < n; k++)
    used_bytes +=
        (size_t)snprintf(text + used_bytes, size - used_bytes, "link %d %d alpha=%sns beta=%s\n",
                         (int)(pairs[k].pair / d->ranks), (int)(pairs[k].pair % d->ranks),
                         fs_format_ns(a, pairs[k].alpha), fs_format_per_byte(b, pairs[k].beta));
  return text;
}

static int fit_pairs(const fs_probe_data *d, const fs_fit_options *o, int64_t *rows, int64_t n,
                     fs_fit *fit, fs_error *err) {
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  fitted_pair *pairs = malloc((size_t)n * sizeof *pairs);
  int64_t count = 0, status = !x || !y || !pairs ? fs_error_set(err, "out of memory") : 0;
  __int128 alpha_sum = 0, beta_sum = 0;
  for (int64_t start = 0, end; start < n && !status; start = end) {
    for (end = start + 1; end < n && pair_of(&d->rows[rows[end]], d->ranks) ==
                                         pair_of(&d->rows[rows[start]], d->ranks);
         end++) {}
    status = fit_pair(d, o, rows + start, end - start, x, y, &pairs[count], err);
    if (!status) alpha_sum += pairs[count].alpha, beta_sum += pairs[count].beta, count++;
  }
  fs_time alpha = count ? (fs_time)((alpha_sum + count / 2) / count) : 0;
  fs_per_byte beta = count ? (fs_per_byte)((beta_sum + count / 2) / count) : 0;
  char *text = status ? NULL : pair_file(d, pairs, count, alpha, beta);
  if (!status && (!text || fs_fit_add_table(fit, "file", text)))
    status = fs_error_set(err, "out of memory");
  for (int64_t k = 0; k < n && !status; k++) {
    const fs_probe_row *r = &d->rows[rows[k]];
    int64_t p = pair_of(r, d->ranks), at = 0;
    while (pairs[at].pair != p) at++;
    if (fs_fit_add_residual(fit, rows[k], fs_fit_value(r, o),
                            2 * (pairs[at].alpha + fs_time_for_bytes(r->bytes, pairs[at].beta))))
      status = fs_error_set(err, "out of memory");
  }
  if (!status)
    fs_fit_note(fit,
                "RTT_ij/2 = alpha_ij + beta_ij*m per pair: %lld pairs from %lld roundtrip rows "
                "(%s); "
                "links taken as symmetric",
                (long long)count, (long long)n, o && o->use_median ? "medians" : "minima");
  free(x), free(y), free(pairs);
  return status ? -1 : 0;
}

int fs_fit_hetero_hockney(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit,
                          fs_error *err) {
  fs_fit_init(fit, "hetero-hockney");
  int64_t *rows = malloc((size_t)(d->count ? d->count : 1) * sizeof *rows), n = 0;
  if (!rows) return fs_error_set(err, "out of memory");
  for (int64_t i = 0; i < d->count; i++)
    if (used(&d->rows[i])) rows[n++] = i;
  if (n == 0) {
    free(rows);
    return fs_error_set(err,
                        "hetero-hockney: %s has no roundtrip rows between two ranks with "
                        "reply_bytes = bytes (fennelprobe --experiments roundtrip --pairs all)",
                        d->source ? d->source : "the data");
  }
  keyed_row *keyed = malloc((size_t)n * sizeof *keyed);
  if (!keyed) {
    free(rows);
    return fs_error_set(err, "out of memory");
  }
  for (int64_t k = 0; k < n; k++)
    keyed[k] = (keyed_row){pair_of(&d->rows[rows[k]], d->ranks), rows[k]};
  qsort(keyed, (size_t)n, sizeof *keyed, by_pair);
  for (int64_t k = 0; k < n; k++) rows[k] = keyed[k].row;
  free(keyed);
  int status = fit_pairs(d, o, rows, n, fit, err);
  free(rows);
  return status;
}
