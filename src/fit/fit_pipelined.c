/* fit_pipelined.c: alpha_p, alpha_r and beta of the pipelined model from
 * b-wide put multicasts (Fennel thesis §4.3, Table 4.1).
 *
 * pipelined.c: a put holds its CPU for alpha_r(m) and lands alpha_p(m) +
 * beta m after that (never before its CPU part ends). A multicast of width
 * b (probe_data.h: b puts one after the other, then a flush) issues put k
 * at (k-1) alpha_r and the last one lands last:
 *     T(b, m) = b alpha_r(m) + max(alpha_p(m) + beta m, 0).
 * Per size m, a least-squares line over the widths b gives alpha_r(m) (the
 * slope) and I(m) = alpha_p(m) + beta m (the intercept); a line over the
 * sizes through I(m) gives the constant alpha_p and beta. The model file
 * gets beta and the per-size table (rows "SIZE alpha_p(m) alpha_r(m)" with
 * alpha_p(m) = I(m) - beta m, so that each measured size is met exactly);
 * the constant fit is in the notes (for --param alpha_p= alpha_r= beta=;
 * its alpha_r is the median over sizes: with noise, the b flights of a
 * large message end later the more there are, which the slope takes in).
 * A size with fewer than 2 widths is skipped. Rows: multicast, no stride
 * (every placement: the model has one set of parameters). Residuals: each
 * row against b alpha_r(m) + max(alpha_p(m) + beta m, 0) from the table,
 * alpha_r below 0 counted as 0 as the model does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"

typedef struct keyed_row {
  int64_t bytes, row;
} keyed_row;

typedef struct size_fit {
  int64_t bytes;
  fs_time intercept, alpha_r;
} size_fit;

static int by_size(const void *a, const void *b) {
  const keyed_row *x = a, *y = b;
  if (x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

/* The per-size lines; *count of them. */
static int fit_sizes(const fs_probe_data *d, const fs_fit_options *o, const keyed_row *rows,
                     int64_t n, size_fit *sizes, int64_t *count, fs_fit *fit, fs_error *err) {
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  if (!x || !y) return free(x), free(y), fs_error_set(err, "out of memory");
  *count = 0;
  for (int64_t start = 0, end; start < n; start = end) {
    for (end = start; end < n && rows[end].bytes == rows[start].bytes; end++) {
      x[end - start] = d->rows[rows[end].row].count;
      y[end - start] = (double)fs_fit_value(&d->rows[rows[end].row], o);
    }
    double intercept, slope;
    if (fs_fit_line(x, y, end - start, &intercept, &slope)) {
      fs_fit_note(fit, "size %lldB skipped: multicasts of one width only",
                  (long long)rows[start].bytes);
      continue;
    }
    sizes[(*count)++] =
        (size_fit){rows[start].bytes, fs_fit_round_time(intercept), fs_fit_round_time(slope)};
  }
  free(x), free(y);
  return 0;
}

static int by_time(const void *a, const void *b) {
  fs_time x = *(const fs_time *)a, y = *(const fs_time *)b;
  return (x > y) - (x < y);
}

/* The median of the per-size alpha_r (large sizes carry the noise of their
 * flights into the slope: the median keeps the small ones' value). */
static fs_time median_alpha_r(const size_fit *sizes, int64_t count) {
  fs_time *v = malloc((size_t)count * sizeof *v);
  if (!v) return sizes[0].alpha_r;
  for (int64_t k = 0; k < count; k++) v[k] = sizes[k].alpha_r;
  qsort(v, (size_t)count, sizeof *v, by_time);
  fs_time m = count % 2 ? v[count / 2]
                        : v[count / 2 - 1] + (v[count / 2] - v[count / 2 - 1] + 1) / 2;
  free(v);
  return m;
}

/* beta and the constant alpha_p from the intercepts; the notes say it all. */
static fs_per_byte fit_beta(const size_fit *sizes, int64_t count, fs_fit *fit) {
  double *x = malloc((size_t)count * sizeof *x), *y = malloc((size_t)count * sizeof *y);
  double alpha_p = 0, beta = 0;
  for (int64_t k = 0; x && y && k < count; k++)
    x[k] = (double)sizes[k].bytes, y[k] = (double)sizes[k].intercept;
  int fitted = x && y && fs_fit_line(x, y, count, &alpha_p, &beta) == 0;
  free(x), free(y);
  if (!fitted) alpha_p = (double)sizes[0].intercept, beta = 0;
  fs_per_byte b = fs_fit_round_time(beta * 1e6);
  if (b < 0) fs_fit_note(fit, "beta fitted negative (%.6f ns/B): set to 0", beta / 1000), b = 0;
  char p[32], r[32], per_byte[48];
  fs_fit_note(fit,
              "constant fit (--param table=none): alpha_p=%sns alpha_r=%sns beta=%s (alpha_r: "
              "the median over sizes)",
              fs_format_ns(p, fs_fit_round_time(alpha_p)),
              fs_format_ns(r, median_alpha_r(sizes, count)), fs_format_per_byte(per_byte, b));
  return b;
}

static char *table_text(const size_fit *sizes, int64_t count, fs_per_byte beta) {
  size_t size = 64 + (size_t)count * 96, used = 0;
  char *text = malloc(size);
  if (!text) return NULL;
  used += (size_t)snprintf(text, size, "# SIZE alpha_p alpha_r (the model adds beta*SIZE)\n");
  for (int64_t k = 0; k < count; k++) {
    char s[32], p[32], r[32];
    fs_time alpha_p = fs_time_add(sizes[k].intercept, -fs_time_for_bytes(sizes[k].bytes, beta));
    used += (size_t)snprintf(text + used, size - used, "%s %sns %sns\n",
                             fs_format_size(s, sizes[k].bytes), fs_format_ns(p, alpha_p),
                             fs_format_ns(r, sizes[k].alpha_r));
  }
  return text;
}

static int residuals(const fs_probe_data *d, const fs_fit_options *o, const keyed_row *rows,
                     int64_t n, const size_fit *sizes, int64_t count, fs_fit *fit) {
  for (int64_t i = 0, k = 0; i < n; i++) {
    while (k < count && sizes[k].bytes < rows[i].bytes) k++;
    if (k == count || sizes[k].bytes != rows[i].bytes) continue; /* a skipped size */
    const fs_probe_row *r = &d->rows[rows[i].row];
    fs_time alpha_r = sizes[k].alpha_r < 0 ? 0 : sizes[k].alpha_r;
    fs_time flight = sizes[k].intercept; /* the table's alpha_p(m) + beta m */
    if (fs_fit_add_residual(fit, rows[i].row, fs_fit_value(r, o),
                            fs_time_add(fs_time_mul(alpha_r, r->count), flight > 0 ? flight : 0)))
      return -1;
  }
  return 0;
}

int fs_fit_pipelined(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err) {
  fs_fit_init(fit, "pipelined");
  keyed_row *rows = malloc((size_t)(d->count ? d->count : 1) * sizeof *rows);
  size_fit *sizes = malloc((size_t)(d->count ? d->count : 1) * sizeof *sizes);
  int64_t n = 0, count = 0;
  int status = !rows || !sizes ? fs_error_set(err, "out of memory") : 0;
  for (int64_t i = 0; !status && i < d->count; i++)
    if (d->rows[i].experiment == FS_EXPERIMENT_MULTICAST && d->rows[i].stride == 0)
      rows[n++] = (keyed_row){d->rows[i].bytes, i};
  if (!status) qsort(rows, (size_t)n, sizeof *rows, by_size);
  if (!status) status = fit_sizes(d, o, rows, n, sizes, &count, fit, err);
  if (!status && count == 0)
    status = fs_error_set(err,
                          "pipelined: %s has no multicast rows of 2 or more widths at one size "
                          "(fennelprobe --experiments multicast, on 3 or more ranks)",
                          d->source ? d->source : "the data");
  if (!status) {
    fs_per_byte beta = fit_beta(sizes, count, fit);
    fs_fit_note(fit,
                "T(b,m) = b*alpha_r(m) + alpha_p(m) + beta*m over %lld multicast rows at %lld "
                "sizes (%s)",
                (long long)n, (long long)count, o && o->use_median ? "medians" : "minima");
    char *text = table_text(sizes, count, beta);
    if (fs_fit_set_per_byte(fit, "beta", beta) || !text || fs_fit_add_table(fit, "table", text) ||
        residuals(d, o, rows, n, sizes, count, fit))
      status = fs_error_set(err, "out of memory");
  }
  free(rows);
  free(sizes);
  return status;
}
