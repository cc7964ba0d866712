/* fit_taulop.c: the tau-Lop model's o^c(m) and L^c(m, tau) tables from
 * round trips, send calls and rings (the tau-Lop thesis, chapter 7; notes
 * taulop-thesis.md §3), as taulop.c prices those experiments.
 *
 * taulop.c, for the probe's experiments (c = 0 shm, 1 net; a same-node
 * message of one segment; tau transfers at once on an instance):
 *   send_call    o^0 + L^0(m,1)            o^1(m) + L^0(m,1)
 *   one way      o^0 + 2 L^0(m,1)          o^1(m) + 2 L^0(m,1) + L^1(m,1)
 *   roundtrip    twice the one way (reply_bytes = bytes)
 *   ring of tau  o^0 + 2 L^0(m,tau)        o^1(m) + 2 L^0(m,tau) + L^1(m,tau)
 * (the ring's time is one step; its tau messages start together, so each
 * of its transfers runs among tau: every copy on the shared memory and, on
 * the net ring's two nodes, every NIC). Hence:
 *   o^0 = 2 SC^0(0) - RTT^0(0)/2: the thesis takes o = RTT(0)/2, which
 *       assumes L(0,1) = 0; the model's tables have an L(0,tau) (the
 *       synchronisation cost y(tau)), which the send call separates. Without
 *       send_call rows, the thesis' RTT^0(0)/2.
 *   L^0(m,1) = (RTT^0(m)/2 - o^0)/2 (a roundtrip between two ranks; the
 *       tau = 1 ring, a send to itself, when there is none), and
 *   L^0(m,tau) = (Ring^0_tau(m) - o^0)/2, the thesis' (7.4), at every m.
 *   o^1(m) = SC^1(m) - L^0(m,1) per size, then the step: H the size of
 *       the largest rise from the size before, relative to the send call's
 *       time (taken when above 4 times the median rise: exact data without
 *       a step gives none); O_S the median below H, O_P the rise to H
 *       (robust to the drift a segmented machine gives). The thesis uses the
 *       MPI_Ssend time for rendezvous sizes; in the model a synchronous send
 *       is a whole one-way message, so the send call is what shows o.
 *       Without send_call rows: RTT^1(0)/2, no step (the thesis' rule).
 *   L^1(m,tau) = Ring^1_tau(m) - o^1(m) - 2 L^0(m,tau): the thesis' (7.6)
 *       reads Ring^1/2, its ring timing two stages; the probe's ring row is
 *       one step. L^1(m,1) from the net roundtrip, RTT^1(m)/2 - o^1(m) -
 *       2 L^0(m,1).
 * Segments: the thesis' (7.5) gives L^0(S,tau) = (Ring - o)/(2k) above S
 * and, by linearity, L^0(m,tau) = k L^0(S,tau) = (Ring - o)/2; the model
 * pipelines segments (put j+1 while getting j) and would price that table
 * differently. The fit writes segment=0 (no segmentation): its per-size
 * table then reproduces every ring, roundtrip and send call it was fitted
 * on, whatever segmentation the machine used.
 * L^0 at a size is looked up in the fitted table as the model does it
 * (size_table.h; beyond its columns, L(m,T) tau/T), so the net table
 * absorbs any interpolation. Rows: a size needs every tau from 1 to the
 * largest ring of its channel; sizes without are left out (interpolated).
 * Values are averaged over the rows of one size (all pairs), rounded to
 * the ps. Without net rows (one node) the net table is one row of 0 and
 * net_o is 0: unused on one node. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "models/size_table.h"

#define MAX_TAU FS_SIZE_TABLE_MAX_COLUMNS

/* ---- the rows ---- */

static int is_kind(const fs_probe_row *r, fs_experiment e, fs_placement p, int32_t tau) {
  if (r->experiment != e || r->placement != p || r->stride != 0) return 0;
  switch (e) {
    case FS_EXPERIMENT_ROUNDTRIP: return r->rank_a != r->rank_b && r->reply_bytes == r->bytes;
    case FS_EXPERIMENT_RING: return r->count == tau && r->reply_bytes == r->bytes;
    default: return 1;
  }
}

/* The mean value of the rows of a kind at bytes; 0 when there is none. */
static int mean_at(const fs_probe_data *d, const fs_fit_options *o, fs_experiment e, fs_placement p,
                   int32_t tau, int64_t bytes, double *mean) {
  double sum = 0;
  int64_t n = 0;
  for (int64_t i = 0; i < d->count; i++)
    if (d->rows[i].bytes == bytes && is_kind(&d->rows[i], e, p, tau))
      sum += (double)fs_fit_value(&d->rows[i], o), n++;
  if (n) *mean = sum / (double)n;
  return n > 0;
}

static int largest_ring(const fs_probe_data *d, fs_placement p) {
  int tau = 0;
  for (int64_t i = 0; i < d->count; i++)
    if (is_kind(&d->rows[i], FS_EXPERIMENT_RING, p, d->rows[i].count) && d->rows[i].count > tau)
      tau = d->rows[i].count;
  return tau > MAX_TAU ? MAX_TAU : tau;
}

static int by_size(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The distinct sizes of the roundtrip and ring rows of placement p,
 * increasing; -1 when out of memory. */
static int64_t sizes_of(const fs_probe_data *d, fs_placement p, int64_t **out) {
  int64_t *sizes = malloc((size_t)(d->count ? d->count : 1) * sizeof *sizes), n = 0;
  if (!sizes) return -1;
  for (int64_t i = 0; i < d->count; i++) {
    const fs_probe_row *r = &d->rows[i];
    if (is_kind(r, FS_EXPERIMENT_ROUNDTRIP, p, 1) || is_kind(r, FS_EXPERIMENT_RING, p, r->count))
      sizes[n++] = r->bytes;
  }
  qsort(sizes, (size_t)n, sizeof *sizes, by_size);
  int64_t distinct = 0;
  for (int64_t i = 0; i < n; i++)
    if (distinct == 0 || sizes[distinct - 1] != sizes[i]) sizes[distinct++] = sizes[i];
  *out = sizes;
  return distinct;
}

/* ---- a channel's table ---- */

typedef struct channel_table {
  fs_size_table table; /* sizes and values owned here */
  int64_t skipped;     /* sizes without every tau */
} channel_table;

static void channel_table_free(channel_table *t) {
  free((void *)t->table.sizes);
  free((void *)t->table.values);
  t->table = (fs_size_table){0};
}

/* L(m, tau) as taulop.c's transfer_time: beyond the columns, serial. */
static double transfer(const fs_size_table *t, int64_t bytes, int32_t tau) {
  if (tau <= t->columns) return (double)fs_size_table_value(t, bytes, tau - 1);
  return (double)fs_size_table_value(t, bytes, t->columns - 1) * tau / t->columns;
}

typedef struct taulop_fit {
  const fs_probe_data *d;
  const fs_fit_options *o;
  fs_fit *fit;
  double o_shm, o_net, o_protocol; /* ps */
  int64_t threshold;               /* H; INT64_MAX: no step */
  int shm_call, net_call, has_net; /* send calls used for o; net rows exist */
  channel_table shm, net;
} taulop_fit;

static double o_net_at(const taulop_fit *f, int64_t bytes) {
  return f->o_net + (bytes >= f->threshold ? f->o_protocol : 0);
}

/* What the rows give for L^c(m, tau) (a net row's L^0 from the fitted
 * shm table); 0 when there is no row. */
static int measured_transfer(const taulop_fit *f, fs_placement c, int64_t m, int32_t tau,
                             double *l) {
  double v;
  if (tau == 1 && mean_at(f->d, f->o, FS_EXPERIMENT_ROUNDTRIP, c, 1, m, &v))
    v /= 2;
  else if (!mean_at(f->d, f->o, FS_EXPERIMENT_RING, c, tau, m, &v))
    return 0;
  if (c == FS_PLACEMENT_SHM)
    *l = (v - f->o_shm) / 2;
  else
    *l = v - o_net_at(f, m) - 2 * transfer(&f->shm.table, m, tau);
  return 1;
}

/* The table of channel c, columns tau = 1..columns. */
static int build_table(taulop_fit *f, fs_placement c, int columns, channel_table *out,
                       fs_error *err) {
  int64_t *sizes, n = sizes_of(f->d, c, &sizes);
  fs_time *values = n < 0 ? NULL : malloc((size_t)(n ? n : 1) * (size_t)columns * sizeof *values);
  if (!values) {
    if (n >= 0) free(sizes);
    return fs_error_set(err, "out of memory");
  }
  int64_t rows = 0;
  for (int64_t i = 0; i < n; i++) {
    int complete = 1;
    for (int tau = 1; tau <= columns && complete; tau++) {
      double l;
      complete = measured_transfer(f, c, sizes[i], tau, &l);
      if (complete) values[rows * columns + tau - 1] = fs_fit_round_time(l);
    }
    if (complete)
      sizes[rows++] = sizes[i];
    else
      out->skipped++;
  }
  out->table =
      (fs_size_table){.columns = columns, .rows = (int)rows, .sizes = sizes, .values = values};
  return 0;
}

/* ---- o ---- */

/* A fitted o: rounded to the ps (the tables are fitted on that value) and
 * not negative (the model refuses it). */
static double overhead(fs_fit *fit, const char *name, double ps) {
  if (ps < -0.5) fs_fit_note(fit, "%s came out negative (%.0f ps): set to 0", name, ps);
  return ps < -0.5 ? 0 : (double)fs_fit_round_time(ps);
}

static const char *source(const fs_probe_data *d) { return d->source ? d->source : "the data"; }

/* o^0 = 2 SC(0) - RTT(0)/2, or the thesis' RTT(0)/2. */
static int fit_o_shm(taulop_fit *f, fs_error *err) {
  double rtt, call;
  if (!mean_at(f->d, f->o, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_SHM, 1, 0, &rtt)) {
    if (!mean_at(f->d, f->o, FS_EXPERIMENT_RING, FS_PLACEMENT_SHM, 1, 0, &rtt))
      return fs_error_set(err,
                          "taulop: %s has no shm roundtrip or tau=1 ring rows at 0 bytes (o^0; "
                          "fennelprobe --experiments roundtrip,send_call,ring)",
                          source(f->d));
    rtt *= 2;
  }
  f->shm_call = mean_at(f->d, f->o, FS_EXPERIMENT_SEND_CALL, FS_PLACEMENT_SHM, 1, 0, &call);
  f->o_shm = overhead(f->fit, "shm_o", f->shm_call ? 2 * call - rtt / 2 : rtt / 2);
  fs_fit_note(f->fit, "%s",
              f->shm_call ? "o^0 = 2 SC^0(0) - RTT^0(0)/2"
                          : "o^0 = RTT^0(0)/2 (no shm send_call row at 0 bytes: L^0(0,1) "
                            "taken as 0)");
  return 0;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n) (n > 0), sorting a copy in scratch. */
static double median(const double *v, int64_t n, double *scratch) {
  memcpy(scratch, v, (size_t)n * sizeof *v);
  qsort(scratch, (size_t)n, sizeof *scratch, by_value);
  return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

/* The step of o^1 at sizes[k]: the largest rise of o^1 from one size to
 * the next relative to the send call there (noise grows with the time);
 * taken when above 4 times the median of those rises' magnitudes. 0: no
 * step. */
static int64_t step_at(const double *o1, const double *call, int64_t n, double *scratch) {
  if (n < 2) return 0;
  int64_t best = 1;
  for (int64_t k = 1; k < n; k++) {
    scratch[k - 1] = fabs(o1[k] - o1[k - 1]) / (call[k] > 0 ? call[k] : 1);
    if ((o1[k] - o1[k - 1]) / (call[k] > 0 ? call[k] : 1) >
        (o1[best] - o1[best - 1]) / (call[best] > 0 ? call[best] : 1))
      best = k;
  }
  double rise = (o1[best] - o1[best - 1]) / (call[best] > 0 ? call[best] : 1);
  scratch[best - 1] = 0;
  double typical = median(scratch, n - 1, scratch + n);
  return rise > 0 && rise > 4 * typical ? best : 0;
}

/* o^1(m) = SC^1(m) - L^0(m,1) per size; O_S their median below the
 * step, O_P the rise at H. */
static int fit_o_net(taulop_fit *f, fs_error *err) {
  int64_t n = 0, size = f->d->count ? f->d->count : 1;
  int64_t *sizes = malloc((size_t)size * sizeof *sizes);
  double *o1 = malloc((size_t)size * 4 * sizeof *o1), *call = o1 + size, *scratch = call + size;
  if (!sizes || !o1) {
    free(sizes), free(o1);
    return fs_error_set(err, "out of memory");
  }
  for (int64_t i = 0; i < f->d->count; i++)
    if (is_kind(&f->d->rows[i], FS_EXPERIMENT_SEND_CALL, FS_PLACEMENT_NET, 1))
      sizes[n++] = f->d->rows[i].bytes;
  qsort(sizes, (size_t)n, sizeof *sizes, by_size);
  int64_t distinct = 0;
  for (int64_t i = 0; i < n; i++)
    if (distinct == 0 || sizes[distinct - 1] != sizes[i]) sizes[distinct++] = sizes[i];
  for (int64_t i = 0; i < distinct; i++) {
    mean_at(f->d, f->o, FS_EXPERIMENT_SEND_CALL, FS_PLACEMENT_NET, 1, sizes[i], &call[i]);
    o1[i] = call[i] - transfer(&f->shm.table, sizes[i], 1);
  }
  f->net_call = distinct > 0;
  f->threshold = INT64_MAX;
  double rtt;
  if (distinct) {
    int64_t step = step_at(o1, call, distinct, scratch);
    f->o_net = median(o1, step ? step : distinct, scratch);
    if (step) f->o_protocol = o1[step] - o1[step - 1], f->threshold = sizes[step];
    f->o_net = overhead(f->fit, "net_o", f->o_net);
    f->o_protocol = overhead(f->fit, "net_o_protocol", f->o_protocol);
    fs_fit_note(f->fit, "o^1(m) = SC^1(m) - L^0(m,1) at %lld sizes: %s", (long long)distinct,
                step ? "net_o their median below net_H, net_o_protocol the rise to net_H"
                     : "no step");
  } else if (mean_at(f->d, f->o, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_NET, 1, 0, &rtt)) {
    f->o_net = overhead(f->fit, "net_o", rtt / 2);
    fs_fit_note(f->fit, "o^1 = RTT^1(0)/2 (no net send_call rows: L(0,1) taken as 0, no step)");
  } else {
    fs_fit_note(f->fit, "o^1: no net send_call rows nor a 0-byte net roundtrip: 0");
  }
  free(sizes), free(o1);
  return 0;
}

/* ---- the result ---- */

/* The model's time of a row the fit uses; 0 for a row it does not use. */
static int estimate(const taulop_fit *f, const fs_probe_row *r, fs_time *out) {
  const fs_size_table *shm = &f->shm.table, *net = &f->net.table;
  int32_t tau = r->count;
  int64_t m = r->bytes;
  double e;
  if (r->placement == FS_PLACEMENT_SHM) {
    if (is_kind(r, FS_EXPERIMENT_ROUNDTRIP, r->placement, 1))
      e = 2 * (f->o_shm + 2 * transfer(shm, m, 1));
    else if (is_kind(r, FS_EXPERIMENT_RING, r->placement, tau))
      e = f->o_shm + 2 * transfer(shm, m, tau);
    else if (f->shm_call && m == 0 && is_kind(r, FS_EXPERIMENT_SEND_CALL, r->placement, 1))
      e = f->o_shm + transfer(shm, 0, 1);
    else
      return 0;
  } else {
    double o = o_net_at(f, m);
    if (!f->has_net) return 0;
    if (is_kind(r, FS_EXPERIMENT_ROUNDTRIP, r->placement, 1))
      e = 2 * (o + 2 * transfer(shm, m, 1) + transfer(net, m, 1));
    else if (is_kind(r, FS_EXPERIMENT_RING, r->placement, tau))
      e = o + 2 * transfer(shm, m, tau) + transfer(net, m, tau);
    else if (f->net_call && is_kind(r, FS_EXPERIMENT_SEND_CALL, r->placement, 1))
      e = o + transfer(shm, m, 1);
    else
      return 0;
  }
  *out = fs_fit_round_time(e);
  return 1;
}

static int write_result(taulop_fit *f, fs_error *err) {
  fs_fit *fit = f->fit;
  char shm_heading[64], net_heading[64];
  snprintf(shm_heading, sizeof shm_heading, "L^0(m,tau) shared memory: L(m,1) .. L(m,%d)",
           f->shm.table.columns);
  snprintf(net_heading, sizeof net_heading, "L^1(m,tau) network: L(m,1) .. L(m,%d)",
           f->net.table.columns);
  char *shm = fs_fit_table_text(&f->shm.table, shm_heading);
  char *net = f->has_net ? fs_fit_table_text(&f->net.table, net_heading)
                         : strdup("# no net rows in the data: a placeholder\n0B 0ns\n");
  int failed = fs_fit_set_time(fit, "shm_o", (fs_time)f->o_shm) ||
               fs_fit_set_time(fit, "net_o", (fs_time)f->o_net) ||
               fs_fit_set_time(fit, "net_o_protocol", (fs_time)f->o_protocol) ||
               fs_fit_set_param(fit, "segment", "0");
  if (!failed && f->threshold < INT64_MAX) {
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)f->threshold);
    failed = fs_fit_set_param(fit, "net_H", text);
  }
  if (failed || fs_fit_add_table(fit, "shm_table", shm) ||
      fs_fit_add_table(fit, "net_table", net)) {
    if (failed) free(shm), free(net);
    return fs_error_set(err, "out of memory");
  }
  for (int64_t i = 0; i < f->d->count; i++) {
    fs_time e;
    if (estimate(f, &f->d->rows[i], &e) &&
        fs_fit_add_residual(fit, i, fs_fit_value(&f->d->rows[i], f->o), e))
      return fs_error_set(err, "out of memory");
  }
  fs_fit_note(fit,
              "L^0(m,tau) = (Ring^0_tau(m) - o^0)/2 (tau=1: RTT^0(m)/4 - o^0/2) at %d sizes, tau "
              "1..%d; %lld sizes without every tau left out",
              f->shm.table.rows, f->shm.table.columns, (long long)f->shm.skipped);
  if (f->has_net)
    fs_fit_note(fit,
                "L^1(m,tau) = Ring^1_tau(m) - o^1(m) - 2 L^0(m,tau) (tau=1: RTT^1(m)/2 - ...) at "
                "%d "
                "sizes, tau 1..%d; %lld sizes left out",
                f->net.table.rows, f->net.table.columns, (long long)f->net.skipped);
  fs_fit_note(fit,
              "segment=0: the tables are per size (rings above a segment priced as measured); %s",
              f->o && f->o->use_median ? "medians" : "minima");
  return 0;
}

static int has_rows(const fs_probe_data *d, fs_placement p) {
  for (int64_t i = 0; i < d->count; i++) {
    const fs_probe_row *r = &d->rows[i];
    if (is_kind(r, FS_EXPERIMENT_ROUNDTRIP, p, 1) || is_kind(r, FS_EXPERIMENT_RING, p, r->count))
      return 1;
  }
  return 0;
}

int fs_fit_taulop(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err) {
  fs_fit_init(fit, "taulop");
  taulop_fit f = {.d = d,
                  .o = o,
                  .fit = fit,
                  .threshold = INT64_MAX,
                  .has_net = has_rows(d, FS_PLACEMENT_NET)};
  int shm_columns = largest_ring(d, FS_PLACEMENT_SHM),
      net_columns = largest_ring(d, FS_PLACEMENT_NET);
  int status = fit_o_shm(&f, err) ||
               build_table(&f, FS_PLACEMENT_SHM, shm_columns ? shm_columns : 1, &f.shm, err);
  if (!status && f.shm.table.rows == 0)
    status = fs_error_set(err,
                          "taulop: %s has no size with shm rows for every tau from 1 to %d (L^0; "
                          "fennelprobe --experiments roundtrip,ring)",
                          source(d), shm_columns ? shm_columns : 1);
  if (!status && f.has_net)
    status = fit_o_net(&f, err) ||
             build_table(&f, FS_PLACEMENT_NET, net_columns ? net_columns : 1, &f.net, err);
  if (!status && f.has_net && f.net.table.rows == 0)
    status = fs_error_set(err,
                          "taulop: %s has no size with net rows for every tau from 1 to %d (L^1; "
                          "fennelprobe --experiments roundtrip,ring on 2 nodes)",
                          source(d), net_columns ? net_columns : 1);
  if (!status) status = write_result(&f, err);
  channel_table_free(&f.shm);
  channel_table_free(&f.net);
  return status ? -1 : 0;
}
