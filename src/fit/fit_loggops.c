/* fit_loggops.c: L, o, g, G, O and S of the LogGOPS model from send calls,
 * synchronous sends, round trips and trains.
 *
 * loggops.c (e(s, X) = (s-1) X for s > 1, else 0): a send of s bytes at t
 * holds its CPU to t + o + e(s,O) and its NIC to t + g + e(s,G), and its
 * message reaches the receiver at t + o + L; receiving holds the
 * receiver's CPU o + X(s), X(s) = max(e(s,O), e(s,G)), and its NIC
 * g + e(s,G). An eager send (s <= S) returns when its CPU is free, a
 * rendezvous send when its message is matched (then also its CPU). With
 * the probe's experiments as probe_simulation.c builds them:
 *   send_call(s) = o + e(s,O)                          s <= S
 *                = max(o + e(s,O), o + L)              s > S
 *   ssend(s)     = max(o + e(s,O), o + L)
 *   roundtrip(s) = 2 (2o + L + X(s))  (each message: o + L to arrive,
 *                  o + X(s) to be received; the same for s > S, as the
 *                  model adds no handshake: there is no step at S here)
 *   train(n, s)  = (n-1) D(s) + 4o + 2L + X(s),  D(s) = max(o + X(s), g + e(s,G))
 *                  (the receiver takes one message per D(s), which is never
 *                  faster than the sender's max(o + e(s,O), g + e(s,G)); then
 *                  the 0-byte reply: o + L + o).
 *   multicast(b, s) = (b-1) P(s) + o + L + e(s,G),  P(s) = max(o + e(s,O), g + e(s,G))
 *                  (b puts one after the other, each when the CPU and the
 *                  NIC are free; the last one lands o + L + e(s,G) later).
 * Estimation, in this order:
 *   S: the largest size up to which every send_call is clearly shorter
 *      than the ssend of the same size and ranks (below 90% of it: a measured
 *      rendezvous send_call comes within a few percent of its ssend); any S
 *      up to the next measured size fits as well (said in the notes).
 *      Without ssend rows, the largest send_call size. Sizes where
 *      e(s,O) >= L look rendezvous either way (the model times them alike).
 *   o, O: the line send_call(s) = o + O e(s,1) over the eager sizes; O = 0
 *      when they span less than 1 KiB (a few ns of timer step over 8 bytes
 *      would make O, and X(s) with it, nanoseconds per byte).
 *   g, G: per size, the line over n of the trains: slope D(s); then the
 *      line D(s) = g + G e(s,1). Exact when g > o and G >= O. When the
 *      line's g comes out as o, the trains show the receiver's o + X(s)
 *      (g <= o): then the multicasts, per size the line over b (slope
 *      P(s)), give g and G from the sizes where P(s) exceeds the CPU's
 *      o + e(s,O) (there the NIC's g + e(s,G) sets the pace; with the
 *      default sizes, wherever (s-1)(G-O) > o - g). Without such sizes no
 *      experiment shows g: any g up to o times them all the same (only
 *      CPUs or concurrent tasks sharing a NIC would show it), and the fit
 *      takes g = o, G = max(O, G) (said in the notes).
 *   L: roundtrip(s)/2 - 2o - X(s) at the smallest roundtrip size, the
 *      mean over its rows.
 * Rows: send_call, ssend, train, roundtrip (a != b, reply_bytes = bytes),
 * multicast when there are any, no stride, every placement (the model is
 * homogeneous). Negative fitted
 * values (noise) are set to 0. Residuals: each used row against the
 * formulas above with the fitted values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"

typedef struct loggops_fit {
  fs_time L, o, g;
  fs_per_byte G, O;
  int64_t S;
  int no_eager;          /* even the smallest send_call waits like its ssend */
  int64_t smallest_send; /* its size */
} loggops_fit;

typedef struct rows {
  int64_t *send_call, *ssend, *train, *roundtrip, *multicast;
  int64_t send_calls, ssends, trains, roundtrips, multicasts;
} rows;

static fs_time extra(int64_t size, fs_per_byte per_byte) {
  return size > 1 ? fs_time_for_bytes(size - 1, per_byte) : 0;
}

static double extra_bytes(int64_t size) { return size > 1 ? (double)(size - 1) : 0; }

static fs_time receive_extra(const loggops_fit *m, int64_t s) {
  fs_time by_o = extra(s, m->O), by_g = extra(s, m->G);
  return by_o > by_g ? by_o : by_g;
}

static fs_time later(fs_time a, fs_time b) { return a > b ? a : b; }

/* What the model gives for a used row. */
static fs_time estimate(const loggops_fit *m, const fs_probe_row *r) {
  int64_t s = r->bytes;
  fs_time call = fs_time_add(m->o, extra(s, m->O)), matched = fs_time_add(m->o, m->L);
  fs_time x = receive_extra(m, s), trip = fs_time_add(fs_time_add(fs_time_mul(m->o, 2), m->L), x);
  switch (r->experiment) {
    case FS_EXPERIMENT_SEND_CALL: return s <= m->S ? call : later(call, matched);
    case FS_EXPERIMENT_SSEND: return later(call, matched);
    case FS_EXPERIMENT_ROUNDTRIP: return fs_time_mul(trip, 2);
    case FS_EXPERIMENT_MULTICAST: /* (count-1) puts' gaps, then the last one's o + L + e(s,G) */
      return fs_time_add(fs_time_mul(later(call, fs_time_add(m->g, extra(s, m->G))), r->count - 1),
                         fs_time_add(matched, extra(s, m->G)));
    default: /* (count-1) gaps, then 4o + 2L + x */
      return fs_time_add(fs_time_mul(later(fs_time_add(m->o, x), fs_time_add(m->g, extra(s, m->G))),
                                     r->count - 1),
                         fs_time_add(fs_time_add(fs_time_mul(m->o, 4), fs_time_mul(m->L, 2)), x));
  }
}

static int plain(const fs_probe_row *r) { return r->stride == 0 && r->rank_a != r->rank_b; }

static int collect(const fs_probe_data *d, rows *k) {
  size_t n = (size_t)(d->count ? d->count : 1);
  k->send_call = malloc(n * sizeof(int64_t)), k->ssend = malloc(n * sizeof(int64_t));
  k->train = malloc(n * sizeof(int64_t)), k->roundtrip = malloc(n * sizeof(int64_t));
  k->multicast = malloc(n * sizeof(int64_t));
  if (!k->send_call || !k->ssend || !k->train || !k->roundtrip || !k->multicast) return -1;
  for (int64_t i = 0; i < d->count; i++) {
    const fs_probe_row *r = &d->rows[i];
    if (!plain(r)) continue;
    if (r->experiment == FS_EXPERIMENT_SEND_CALL)
      k->send_call[k->send_calls++] = i;
    else if (r->experiment == FS_EXPERIMENT_SSEND)
      k->ssend[k->ssends++] = i;
    else if (r->experiment == FS_EXPERIMENT_TRAIN)
      k->train[k->trains++] = i;
    else if (r->experiment == FS_EXPERIMENT_MULTICAST)
      k->multicast[k->multicasts++] = i;
    else if (r->experiment == FS_EXPERIMENT_ROUNDTRIP && r->reply_bytes == r->bytes)
      k->roundtrip[k->roundtrips++] = i;
  }
  return 0;
}

static void release(rows *k) {
  free(k->send_call), free(k->ssend), free(k->train), free(k->roundtrip), free(k->multicast);
}

/* Is the send_call row i clearly shorter than its ssend? (1 without one) */
static int eager(const fs_probe_data *d, const fs_fit_options *o, const rows *k, int64_t i) {
  const fs_probe_row *r = &d->rows[i];
  for (int64_t j = 0; j < k->ssends; j++) {
    const fs_probe_row *s = &d->rows[k->ssend[j]];
    if (s->bytes == r->bytes && s->rank_a == r->rank_a && s->rank_b == r->rank_b)
      return (double)fs_fit_value(r, o) < 0.9 * (double)fs_fit_value(s, o);
  }
  return 1;
}

static void fit_threshold(const fs_probe_data *d, const fs_fit_options *o, const rows *k,
                          loggops_fit *m, fs_fit *fit) {
  int64_t first_rendezvous = INT64_MAX, largest = 0;
  for (int64_t j = 0; j < k->send_calls; j++) {
    const fs_probe_row *r = &d->rows[k->send_call[j]];
    if (r->bytes > largest) largest = r->bytes;
    if (!eager(d, o, k, k->send_call[j]) && r->bytes < first_rendezvous)
      first_rendezvous = r->bytes;
  }
  m->S = 0;
  int64_t smallest = INT64_MAX;
  for (int64_t j = 0; j < k->send_calls; j++) {
    int64_t s = d->rows[k->send_call[j]].bytes;
    if (s < first_rendezvous && s > m->S) m->S = s;
    if (s < smallest) smallest = s;
  }
  m->no_eager = first_rendezvous <= smallest, m->smallest_send = smallest;
  if (!k->ssends)
    fs_fit_note(fit, "S: no ssend rows; taken as the largest send_call size, %lldB",
                (long long)m->S);
  else if (first_rendezvous == INT64_MAX)
    fs_fit_note(fit, "S: every send_call up to %lldB was eager: S >= %lldB", (long long)largest,
                (long long)largest);
  else
    fs_fit_note(fit,
                "S: send_call eager up to %lldB, rendezvous from %lldB: any S from %lld to %lld "
                "times these sizes alike (no size between was probed); taken as %lld",
                (long long)m->S, (long long)first_rendezvous, (long long)m->S,
                (long long)first_rendezvous - 1, (long long)m->S);
}

/* y = a + b x over the rows picked; -1 when fewer than 2 x values. */
static int line_of(const fs_probe_data *d, const fs_fit_options *o, const int64_t *picked,
                   int64_t n, double *a, double *b) {
  double *x = malloc((size_t)(n ? n : 1) * sizeof *x), *y = malloc((size_t)(n ? n : 1) * sizeof *y);
  int status = -1;
  if (x && y) {
    for (int64_t j = 0; j < n; j++)
      x[j] = extra_bytes(d->rows[picked[j]].bytes),
      y[j] = (double)fs_fit_value(&d->rows[picked[j]], o);
    status = fs_fit_line(x, y, n, a, b);
  }
  free(x), free(y);
  return status;
}

/* Eager sizes spanning less than this show the timer's steps, not a
 * per-byte cost: O is then taken as 0 (o the line's intercept). */
#define FIT_O_SPAN 1024

static int fit_overhead(const fs_probe_data *d, const fs_fit_options *o, const rows *k,
                        loggops_fit *m, fs_fit *fit, fs_error *err) {
  int64_t *picked = malloc((size_t)(k->send_calls ? k->send_calls : 1) * sizeof *picked), n = 0;
  int64_t smallest = INT64_MAX, largest = 0;
  if (!picked) return fs_error_set(err, "out of memory");
  if (m->no_eager) {
    free(picked);
    return fs_error_set(err,
                        "loggops: no send_call is clearly shorter than its ssend (below 90%%), "
                        "even at %lldB: the data shows no eager send, which o and O are fitted "
                        "from",
                        (long long)m->smallest_send);
  }
  for (int64_t j = 0; j < k->send_calls; j++) {
    int64_t s = d->rows[k->send_call[j]].bytes;
    if (s > m->S) continue;
    picked[n++] = k->send_call[j];
    if (s < smallest) smallest = s;
    if (s > largest) largest = s;
  }
  double a, b;
  int status = line_of(d, o, picked, n, &a, &b);
  free(picked);
  if (status)
    return fs_error_set(err,
                        "loggops: o and O need eager send_call rows at 2 or more sizes above "
                        "1 byte or at 0/1 and another (%lld found)",
                        (long long)n);
  if (largest - smallest < FIT_O_SPAN) {
    fs_fit_note(fit,
                "O: the eager send_call sizes span %lldB (%lldB..%lldB), under %dB: O taken as 0",
                (long long)(largest - smallest), (long long)smallest, (long long)largest,
                FIT_O_SPAN);
    b = 0;
  }
  m->o = fs_fit_round_time(a), m->O = fs_fit_round_time(b * 1e6);
  return 0;
}

/* Per size of the rows picked, the slope of the time over count: the
 * time one more message (train) or put (multicast) adds. */
static int gaps_by_size(const fs_probe_data *d, const fs_fit_options *o, const int64_t *picked,
                        int64_t n, double *sizes, double *gaps, int64_t *count, fs_error *err) {
  double *x = malloc((size_t)(n ? n : 1) * sizeof *x), *y = malloc((size_t)(n ? n : 1) * sizeof *y);
  char *done = calloc((size_t)(n ? n : 1), 1);
  *count = 0;
  if (!x || !y || !done) return free(x), free(y), free(done), fs_error_set(err, "out of memory");
  for (int64_t j = 0; j < n; j++) {
    if (done[j]) continue;
    int64_t points = 0, s = d->rows[picked[j]].bytes;
    for (int64_t i = j; i < n; i++)
      if (d->rows[picked[i]].bytes == s) {
        done[i] = 1;
        x[points] = d->rows[picked[i]].count,
        y[points++] = (double)fs_fit_value(&d->rows[picked[i]], o);
      }
    double intercept, slope;
    if (fs_fit_line(x, y, points, &intercept, &slope) == 0)
      sizes[*count] = (double)s, gaps[(*count)++] = slope;
  }
  free(x), free(y), free(done);
  return 0;
}

/* A gap clearly longer than the CPU's (2% and 1 ns: noise is not a NIC). */
static int longer(double gap, double cpu) { return gap > 1.02 * cpu + 1000; }

/* g and G from the multicasts' put gaps where they exceed the CPU's
 * o + e(s,O): 0 when 2 or more sizes show it, 1 when not (m unchanged),
 * -1 with err set when out of memory. */
static int gap_from_puts(const fs_probe_data *d, const fs_fit_options *o, const rows *k,
                         loggops_fit *m, fs_fit *fit, fs_error *err) {
  int64_t n = k->multicasts, count = 0, used = 0;
  double *sizes = malloc((size_t)(n ? n : 1) * sizeof *sizes),
         *gaps = malloc((size_t)(n ? n : 1) * sizeof *gaps);
  int status = sizes && gaps ? gaps_by_size(d, o, k->multicast, n, sizes, gaps, &count, err)
                             : fs_error_set(err, "out of memory");
  double smallest = 0, largest = 0;
  for (int64_t i = 0; i < count && !status; i++) {
    int64_t s = (int64_t)sizes[i];
    if (!longer(gaps[i], (double)fs_time_add(m->o, extra(s, m->O)))) continue;
    if (!used || sizes[i] < smallest) smallest = sizes[i];
    if (!used || sizes[i] > largest) largest = sizes[i];
    sizes[used] = extra_bytes(s), gaps[used++] = gaps[i];
  }
  double a, b;
  if (status || fs_fit_line(sizes, gaps, used, &a, &b)) {
    free(sizes), free(gaps);
    return status ? -1 : 1;
  }
  free(sizes), free(gaps);
  m->g = fs_fit_round_time(a), m->G = fs_fit_round_time(b * 1e6);
  fs_fit_note(fit,
              "g, G: the trains show the receiver's o + (s-1)max(O,G), not g (g <= o); fitted "
              "from the multicasts' put gaps at %lld sizes (%.0fB..%.0fB) where the NIC's g + "
              "(s-1)G "
              "exceeds the CPU's o + (s-1)O",
              (long long)used, smallest, largest);
  return 0;
}

/* D(s) per size from the trains, then g and G (from the multicasts when
 * the trains show o instead). */
static int fit_gap(const fs_probe_data *d, const fs_fit_options *o, const rows *k, loggops_fit *m,
                   fs_fit *fit, fs_error *err) {
  int64_t n = k->trains, count = 0;
  double *sizes = malloc((size_t)(n ? n : 1) * sizeof *sizes),
         *gaps = malloc((size_t)(n ? n : 1) * sizeof *gaps);
  int status = sizes && gaps ? gaps_by_size(d, o, k->train, n, sizes, gaps, &count, err)
                             : fs_error_set(err, "out of memory");
  for (int64_t i = 0; i < count; i++) sizes[i] = extra_bytes((int64_t)sizes[i]);
  double a = 0, b = 0;
  if (!status && fs_fit_line(sizes, gaps, count, &a, &b))
    status = fs_error_set(err,
                          "loggops: g and G need train rows of 2 or more lengths at 2 or more "
                          "sizes (%lld sizes found)",
                          (long long)count);
  free(sizes), free(gaps);
  if (status) return status;
  m->g = fs_fit_round_time(a), m->G = fs_fit_round_time(b * 1e6);
  if (longer((double)m->g, (double)m->o)) return 0; /* the trains show g > o */
  status = gap_from_puts(d, o, k, m, fit, err);
  if (status <= 0) return status;
  fs_fit_note(fit,
              "g: no experiment shows it (the trains show the receiver's o + (s-1)max(O,G), and "
              "no multicast's put gap exceeds o + (s-1)O): any g up to o = %lldps fits; taken as o",
              (long long)m->o);
  return 0;
}

static void fit_latency(const fs_probe_data *d, const fs_fit_options *o, const rows *k,
                        loggops_fit *m) {
  int64_t smallest = INT64_MAX, n = 0;
  double sum = 0;
  for (int64_t j = 0; j < k->roundtrips; j++)
    if (d->rows[k->roundtrip[j]].bytes < smallest) smallest = d->rows[k->roundtrip[j]].bytes;
  for (int64_t j = 0; j < k->roundtrips; j++) {
    const fs_probe_row *r = &d->rows[k->roundtrip[j]];
    if (r->bytes != smallest) continue;
    sum += (double)fs_fit_value(r, o) / 2 - 2.0 * (double)m->o - (double)receive_extra(m, r->bytes);
    n++;
  }
  m->L = fs_fit_round_time(sum / (double)n);
}

static void clamp(fs_fit *fit, const char *name, int64_t *value) {
  if (*value >= 0) return;
  fs_fit_note(fit, "%s fitted negative: set to 0", name);
  *value = 0;
}

static int missing(const fs_probe_data *d, const rows *k, fs_error *err) {
  char list[200] = "";
  if (!k->send_calls) strcat(list, ", send_call (o, O)");
  if (!k->trains) strcat(list, ", train (g, G)");
  if (!k->roundtrips) strcat(list, ", roundtrip between two ranks with reply_bytes = bytes (L)");
  if (!list[0]) return 0;
  return fs_error_set(err,
                      "loggops: %s has no rows of %s (fennelprobe --experiments "
                      "send_call,ssend,train,roundtrip)",
                      d->source ? d->source : "the data", list + 2);
}

static int write_fit(const fs_probe_data *d, const fs_fit_options *o, const rows *k,
                     const loggops_fit *m, fs_fit *fit) {
  char size[32];
  snprintf(size, sizeof size, "%lld", (long long)m->S);
  if (fs_fit_set_time(fit, "L", m->L) || fs_fit_set_time(fit, "o", m->o) ||
      fs_fit_set_time(fit, "g", m->g) || fs_fit_set_per_byte(fit, "G", m->G) ||
      fs_fit_set_per_byte(fit, "O", m->O) || fs_fit_set_param(fit, "S", size))
    return -1;
  const int64_t *lists[] = {k->send_call, k->ssend, k->roundtrip, k->train, k->multicast};
  const int64_t counts[] = {k->send_calls, k->ssends, k->roundtrips, k->trains, k->multicasts};
  for (int l = 0; l < 5; l++)
    for (int64_t j = 0; j < counts[l]; j++) {
      const fs_probe_row *r = &d->rows[lists[l][j]];
      if (fs_fit_add_residual(fit, lists[l][j], fs_fit_value(r, o), estimate(m, r))) return -1;
    }
  fs_fit_note(fit,
              "%lld send_call, %lld ssend, %lld roundtrip, %lld train, %lld multicast rows (%s)",
              (long long)k->send_calls, (long long)k->ssends, (long long)k->roundtrips,
              (long long)k->trains, (long long)k->multicasts,
              o && o->use_median ? "medians" : "minima");
  return 0;
}

int fs_fit_loggops(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err) {
  fs_fit_init(fit, "loggops");
  rows k = {0};
  loggops_fit m = {0};
  int status = collect(d, &k) ? fs_error_set(err, "out of memory") : missing(d, &k, err);
  if (!status) {
    fit_threshold(d, o, &k, &m, fit);
    status = fit_overhead(d, o, &k, &m, fit, err) || fit_gap(d, o, &k, &m, fit, err) ? -1 : 0;
  }
  if (!status) {
    clamp(fit, "o", &m.o), clamp(fit, "O", &m.O), clamp(fit, "g", &m.g), clamp(fit, "G", &m.G);
    fit_latency(d, o, &k, &m);
    clamp(fit, "L", &m.L);
    if (write_fit(d, o, &k, &m, fit)) status = fs_error_set(err, "out of memory");
  }
  release(&k);
  return status;
}
