/* fit_hockney.c: alpha and beta of the Hockney model from round trips.
 *
 * hockney.c: a send holds its CPU until its message lands, alpha + beta*m
 * after it starts, and receiving takes no CPU. A round trip of m bytes
 * each way between two ranks (probe_data.h: a sends, b receives and sends
 * back, a receives) is therefore two messages in sequence:
 *     RTT(m) = 2 (alpha + beta m),  so  RTT(m)/2 = alpha + beta m,
 * a line in m fitted by least squares over every roundtrip row between two
 * different ranks with reply_bytes = bytes and no stride (all pairs
 * together: the model is homogeneous). alpha is rounded to the ps, beta to
 * the attosecond per byte (units.h); negative values, which only noise
 * gives, are set to 0. The residual of a row is its round trip against
 * 2 (alpha + beta m), with beta*m rounded as the model rounds it. */
#include <stdlib.h>

#include "fit/fit.h"

static int used(const fs_probe_row *r) {
  return r->experiment == FS_EXPERIMENT_ROUNDTRIP && r->rank_a != r->rank_b &&
         r->reply_bytes == r->bytes && r->stride == 0;
}

int fs_fit_hockney(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err) {
  fs_fit_init(fit, "hockney");
  double *x = malloc((size_t)(d->count ? d->count : 1) * sizeof *x);
  double *y = malloc((size_t)(d->count ? d->count : 1) * sizeof *y);
  int64_t n = 0;
  for (int64_t i = 0; x && y && i < d->count; i++)
    if (used(&d->rows[i]))
      x[n] = (double)d->rows[i].bytes, y[n++] = fs_fit_value(&d->rows[i], o) / 2.0;
  double alpha = 0, beta = 0;
  int status = !x || !y ? fs_error_set(err, "out of memory")
               : n == 0 ? fs_error_set(err,
                                       "hockney: %s has no roundtrip rows between two ranks with "
                                       "reply_bytes = bytes (fennelprobe --experiments roundtrip)",
                                       d->source ? d->source : "the data")
               : fs_fit_line(x, y, n, &alpha, &beta)
                   ? fs_error_set(err,
                                  "hockney: the roundtrip rows need 2 or more sizes (%s has one)",
                                  d->source ? d->source : "the data")
                   : 0;
  free(x);
  free(y);
  if (status) return -1;
  fs_time a = fs_fit_round_time(alpha);
  fs_per_byte b = fs_fit_round_time(beta * 1e6); /* ps per byte -> as per byte */
  if (a < 0) fs_fit_note(fit, "alpha fitted negative (%.3f ns): set to 0", alpha / 1000), a = 0;
  if (b < 0) fs_fit_note(fit, "beta fitted negative (%.6f ns/B): set to 0", beta / 1000), b = 0;
  fs_fit_note(fit, "RTT/2 = alpha + beta*m over %lld roundtrip rows (%s)", (long long)n,
              o && o->use_median ? "medians" : "minima");
  if (fs_fit_set_time(fit, "alpha", a) || fs_fit_set_per_byte(fit, "beta", b))
    return fs_error_set(err, "out of memory");
  for (int64_t i = 0; i < d->count; i++)
    if (used(&d->rows[i]) &&
        fs_fit_add_residual(fit, i, fs_fit_value(&d->rows[i], o),
                            fs_time_mul(fs_time_add(a, fs_time_for_bytes(d->rows[i].bytes, b)), 2)))
      return fs_error_set(err, "out of memory");
  return 0;
}
