/* fit_lognp.c: the log_3 P model's o_mw(s), l_mw(s, d) and o_net(s)
 * tables (Cameron, Ge, Sun), as
 * lognp.c prices the probe's experiments.
 *
 * lognp.c: a message of s bytes with stride d holds its sender's CPU for
 * (o_mw + l_mw)/2 (rounded down), then o_net, then the receiver's half:
 *   send_call              (o_mw(s) + l_mw(s,d)) / 2
 *   roundtrip, any pair    2 (o_mw(s) + l_mw(s,d) + o_net(s))
 * and a send to itself costs what a remote one does. So:
 *   o_mw(s)    = 2 SC(s), the send call of a contiguous message (its
 *                sender's half, the paper's hop 0);
 *   o_net(s)   = RTT_01(s)/2 - o_mw(s), from the remote roundtrips (net
 *                rows; shm rows on one node);
 *   l_mw(s, d) = (RTT_00(s,d) - RTT_00(s))/2, strided against contiguous
 *                send-to-self roundtrips (the remote pair's when there are
 *                none).
 * The paper decomposes the send to itself instead, T_00 = o_mw + T_mem with
 * a measured memory copy, so o_mw = T_00(s) - T_mem(s) and l_mw =
 * T_00(s,d) - o_mw - T_mem; lognp.c gives a send to itself its o_net like
 * any other, so that split would not fit the model: it is used only when
 * the data has no send_call rows (then o_net = T_01 - o_mw, as the paper).
 * o_mw = 2 SC is exact to 1 ps: the model halves o_mw + l_mw downwards, so
 * an odd o_mw comes back 1 ps low (and o_net 1 ps high; their sum, all a
 * roundtrip sees, is exact).
 * Tables, as lognp.c reads them: mw_table rows "SIZE O_MW L_MW(d1) ..
 * L_MW(dk)" with strides=d1,..,dk, net_table rows "SIZE O_NET", one row
 * per size with o_mw and o_net; a stride's l_mw at a size it was not
 * measured at is linear between the sizes it was, from 0 at 0 bytes
 * (nothing to pack) and the last value beyond. Values are averaged over the
 * rows of one size, rounded to the ps; negative ones (noise) become 0, as
 * the model would take them. */
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "models/size_table.h"

#define MAX_STRIDES (FS_SIZE_TABLE_MAX_COLUMNS - 1)

typedef enum pair_kind { SELF, REMOTE } pair_kind;

typedef struct lognp_fit {
  const fs_probe_data *d;
  const fs_fit_options *o;
  fs_fit *fit;
  fs_placement remote; /* the placement of T_01's rows */
  pair_kind strided;   /* whose strided roundtrips give l_mw */
  int paper;           /* no send_call rows: T_00 - T_mem */
  int64_t strides[MAX_STRIDES];
  int stride_count;
  int64_t clamped;
  fs_size_table mw, net; /* sizes and values owned here */
} lognp_fit;

static const char *source(const fs_probe_data *d) { return d->source ? d->source : "the data"; }

static int is_roundtrip(const fs_probe_row *r, pair_kind kind, fs_placement p, int64_t stride) {
  return r->experiment == FS_EXPERIMENT_ROUNDTRIP && r->reply_bytes == r->bytes &&
         r->stride == stride &&
         (kind == SELF ? r->rank_a == r->rank_b : r->rank_a != r->rank_b && r->placement == p);
}

static int is_call(const fs_probe_row *r, fs_placement p) {
  return r->experiment == FS_EXPERIMENT_SEND_CALL && r->stride == 0 && r->placement == p;
}

/* The row's part in the fit; SELF roundtrips have any placement. */
typedef enum role { UNUSED, CALL, REMOTE_TRIP, SELF_TRIP, STRIDED_TRIP, MEMCPY } role;

static role role_of(const lognp_fit *f, const fs_probe_row *r) {
  if (!f->paper && is_call(r, f->remote)) return CALL;
  if (is_roundtrip(r, REMOTE, f->remote, 0)) return REMOTE_TRIP;
  if ((f->paper || f->strided == SELF) && is_roundtrip(r, SELF, f->remote, 0)) return SELF_TRIP;
  if (r->stride > 0 && is_roundtrip(r, f->strided, f->remote, r->stride)) return STRIDED_TRIP;
  if (f->paper && r->experiment == FS_EXPERIMENT_MEMCPY && r->stride == 0) return MEMCPY;
  return UNUSED;
}

/* The mean value of the rows of a role at (bytes, stride); 0 when none. */
static int mean_at(const lognp_fit *f, role want, int64_t bytes, int64_t stride, double *mean) {
  double sum = 0;
  int64_t n = 0;
  for (int64_t i = 0; i < f->d->count; i++) {
    const fs_probe_row *r = &f->d->rows[i];
    if (r->bytes == bytes && r->stride == stride && role_of(f, r) == want)
      sum += (double)fs_fit_value(r, f->o), n++;
  }
  if (n) *mean = sum / (double)n;
  return n > 0;
}

static int ascending(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t distinct(int64_t *v, int64_t n) {
  qsort(v, (size_t)n, sizeof *v, ascending);
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    if (k == 0 || v[k - 1] != v[i]) v[k++] = v[i];
  return k;
}

/* Which rows the fit reads; an error when a part is missing. */
static int choose_rows(lognp_fit *f, fs_error *err) {
  int net = 0, shm = 0, calls[2] = {0, 0}, self_strided = 0;
  for (int64_t i = 0; i < f->d->count; i++) {
    const fs_probe_row *r = &f->d->rows[i];
    net |= is_roundtrip(r, REMOTE, FS_PLACEMENT_NET, 0);
    shm |= is_roundtrip(r, REMOTE, FS_PLACEMENT_SHM, 0);
    if (r->experiment == FS_EXPERIMENT_SEND_CALL && r->stride == 0) calls[r->placement] = 1;
    self_strided |= r->stride > 0 && is_roundtrip(r, SELF, FS_PLACEMENT_SHM, r->stride);
  }
  if (!net && !shm)
    return fs_error_set(err,
                        "lognp: %s has no contiguous roundtrip rows between two ranks with "
                        "reply_bytes = bytes (T_01; fennelprobe --experiments roundtrip)",
                        source(f->d));
  f->remote = net ? FS_PLACEMENT_NET : FS_PLACEMENT_SHM;
  f->paper = !calls[f->remote];
  f->strided = self_strided ? SELF : REMOTE;
  int64_t *strides = malloc((size_t)(f->d->count ? f->d->count : 1) * sizeof *strides), n = 0;
  if (!strides) return fs_error_set(err, "out of memory");
  for (int64_t i = 0; i < f->d->count; i++)
    if (role_of(f, &f->d->rows[i]) == STRIDED_TRIP) strides[n++] = f->d->rows[i].stride;
  n = distinct(strides, n);
  f->stride_count = n > MAX_STRIDES ? MAX_STRIDES : (int)n;
  memcpy(f->strides, strides, (size_t)f->stride_count * sizeof *strides);
  free(strides);
  if (n > MAX_STRIDES)
    fs_fit_note(f->fit, "%lld strides measured: the first %d kept (the model's limit)",
                (long long)n, MAX_STRIDES);
  fs_fit_note(f->fit, "T_01 from %s roundtrips; %s",
              f->remote == FS_PLACEMENT_NET ? "net" : "shm (no net)",
              f->paper ? "no send_call rows: o_mw = T_00 - T_mem (the paper's split)"
                       : "o_mw = 2 SC (the model's sender half)");
  return 0;
}

/* ---- the tables ---- */

static fs_time not_negative(lognp_fit *f, double ps) {
  if (ps < -0.5) f->clamped++;
  return ps < -0.5 ? 0 : fs_fit_round_time(ps);
}

/* o_mw and o_net at size s; 0 when a row is missing. */
static int overheads_at(lognp_fit *f, int64_t s, fs_time *o_mw, fs_time *o_net) {
  double remote, call, self, copy;
  if (!mean_at(f, REMOTE_TRIP, s, 0, &remote)) return 0;
  if (!f->paper) {
    if (!mean_at(f, CALL, s, 0, &call)) return 0;
    *o_mw = not_negative(f, 2 * call);
  } else {
    if (!mean_at(f, SELF_TRIP, s, 0, &self) || !mean_at(f, MEMCPY, s, 0, &copy)) return 0;
    *o_mw = not_negative(f, self / 2 - copy);
  }
  *o_net = not_negative(f, remote / 2 - (double)*o_mw);
  return 1;
}

/* l_mw(s, d) measured at s; 0 when a row is missing. */
static int latency_at(lognp_fit *f, int64_t s, int64_t d, fs_time o_mw, double *l) {
  double strided, plain, copy;
  if (!mean_at(f, STRIDED_TRIP, s, d, &strided)) return 0;
  if (f->paper) { /* T_00(s,d) - o_mw - T_mem */
    if (!mean_at(f, MEMCPY, s, 0, &copy)) return 0;
    *l = strided / 2 - (double)o_mw - copy;
    return 1;
  }
  if (!mean_at(f, f->strided == SELF ? SELF_TRIP : REMOTE_TRIP, s, 0, &plain)) return 0;
  *l = (strided - plain) / 2;
  return 1;
}

/* Fills column k of the mw table where l_mw was not measured (known[i]
 * says where it was): linear between measured sizes, from 0 at 0 bytes,
 * the last value beyond. */
static void fill_column(fs_size_table *t, fs_time *values, int k, const char *known) {
  int c = t->columns, previous = -1;
  for (int i = 0; i < t->rows; i++) {
    if (known[i]) {
      previous = i;
      continue;
    }
    int next = i + 1;
    while (next < t->rows && !known[next]) next++;
    int64_t s0 = previous >= 0 ? t->sizes[previous] : 0, s1 = next < t->rows ? t->sizes[next] : 0;
    fs_time v0 = previous >= 0 ? values[(size_t)previous * c + k] : 0;
    if (next == t->rows) {
      values[(size_t)i * c + k] = v0;
    } else {
      fs_time v1 = values[(size_t)next * c + k];
      double share = s1 > s0 ? (double)(t->sizes[i] - s0) / (double)(s1 - s0) : 0;
      values[(size_t)i * c + k] = fs_fit_round_time((double)v0 + share * (double)(v1 - v0));
    }
  }
}

static int build_tables(lognp_fit *f, fs_error *err) {
  int64_t *sizes = malloc((size_t)(f->d->count ? f->d->count : 1) * sizeof *sizes), n = 0;
  int c = 1 + f->stride_count;
  fs_time *mw = sizes ? malloc((size_t)(f->d->count ? f->d->count : 1) * (size_t)c * sizeof *mw)
                      : NULL;
  fs_time *net = mw ? malloc((size_t)(f->d->count ? f->d->count : 1) * sizeof *net) : NULL;
  char *known = net ? malloc((size_t)(f->d->count ? f->d->count : 1) * (size_t)c) : NULL;
  int64_t *net_sizes = known ? malloc((size_t)(f->d->count ? f->d->count : 1) * sizeof *net_sizes)
                             : NULL;
  if (!net_sizes) {
    free(sizes), free(mw), free(net), free(known);
    return fs_error_set(err, "out of memory");
  }
  for (int64_t i = 0; i < f->d->count; i++)
    if (role_of(f, &f->d->rows[i]) == REMOTE_TRIP) sizes[n++] = f->d->rows[i].bytes;
  n = distinct(sizes, n);
  int rows = 0;
  for (int64_t i = 0; i < n; i++) {
    fs_time o_mw, o_net;
    if (!overheads_at(f, sizes[i], &o_mw, &o_net)) continue;
    sizes[rows] = net_sizes[rows] = sizes[i];
    mw[(size_t)rows * c] = o_mw, net[rows] = o_net;
    for (int k = 0; k < f->stride_count; k++) {
      double l;
      known[(size_t)rows * c + k] = (char)latency_at(f, sizes[i], f->strides[k], o_mw, &l);
      mw[(size_t)rows * c + 1 + k] = known[(size_t)rows * c + k] ? not_negative(f, l) : 0;
    }
    rows++;
  }
  f->mw = (fs_size_table){.columns = c, .rows = rows, .sizes = sizes, .values = mw};
  f->net = (fs_size_table){.columns = 1, .rows = rows, .sizes = net_sizes, .values = net};
  char *column = malloc((size_t)(rows ? rows : 1));
  for (int k = 0; column && k < f->stride_count; k++) {
    for (int i = 0; i < rows; i++) column[i] = known[(size_t)i * c + k];
    fill_column(&f->mw, mw, 1 + k, column);
  }
  free(known);
  if (!column) return fs_error_set(err, "out of memory");
  free(column);
  if (rows == 0)
    return fs_error_set(err,
                        "lognp: %s has no size with both a %s roundtrip and %s (fennelprobe "
                        "--experiments roundtrip,send_call,memcpy)",
                        source(f->d), f->remote == FS_PLACEMENT_NET ? "net" : "shm",
                        f->paper ? "a send-to-self roundtrip and a memcpy" : "a send_call");
  return 0;
}

/* ---- the result ---- */

static fs_time positive(fs_time t) { return t < 0 ? 0 : t; }

/* o_mw + l_mw as lognp.c (the row's stride is one of the columns). */
static fs_time middleware(const lognp_fit *f, int64_t s, int64_t d) {
  fs_time l = 0;
  for (int k = 0; d > 0 && k < f->stride_count; k++)
    if (f->strides[k] == d) l = fs_size_table_value(&f->mw, s, 1 + k);
  return fs_time_add(positive(fs_size_table_value(&f->mw, s, 0)), positive(l));
}

/* The model's time of a row the fit uses; 0 for the others (memcpy: the
 * compute model's). */
static int estimate(const lognp_fit *f, const fs_probe_row *r, fs_time *out) {
  role what = role_of(f, r);
  if (what == UNUSED || what == MEMCPY) return 0;
  fs_time both = middleware(f, r->bytes, r->stride);
  *out =
      what == CALL
          ? both / 2
          : fs_time_mul(fs_time_add(both, positive(fs_size_table_value(&f->net, r->bytes, 0))), 2);
  return 1;
}

static int write_result(lognp_fit *f, fs_error *err) {
  fs_fit *fit = f->fit;
  char heading[64], list[MAX_STRIDES * 24] = "";
  size_t used = 0;
  for (int k = 0; k < f->stride_count; k++)
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%lld", k ? "," : "",
                             (long long)f->strides[k]);
  snprintf(heading, sizeof heading, "size o_mw%s", f->stride_count ? " l_mw(strides)" : "");
  char *mw = fs_fit_table_text(&f->mw, heading), *net = fs_fit_table_text(&f->net, "size o_net");
  if (f->stride_count && fs_fit_set_param(fit, "strides", list)) {
    free(mw), free(net);
    return fs_error_set(err, "lognp: the strides do not fit a parameter (%s)", list);
  }
  if (fs_fit_add_table(fit, "mw_table", mw)) {
    free(net);
    return fs_error_set(err, "out of memory");
  }
  if (fs_fit_add_table(fit, "net_table", net)) return fs_error_set(err, "out of memory");
  for (int64_t i = 0; i < f->d->count; i++) {
    fs_time e;
    if (estimate(f, &f->d->rows[i], &e) &&
        fs_fit_add_residual(fit, i, fs_fit_value(&f->d->rows[i], f->o), e))
      return fs_error_set(err, "out of memory");
  }
  fs_fit_note(fit,
              "o_net = RTT_01/2 - o_mw at %d sizes; l_mw = (RTT(s,d) - RTT(s))/2 of %s roundtrips "
              "at "
              "%d strides%s%s",
              f->mw.rows, f->strided == SELF ? "send-to-self" : "the remote pair's",
              f->stride_count, f->stride_count ? " " : "", list);
  if (f->clamped)
    fs_fit_note(fit, "%lld negative values set to 0 (as the model takes them)",
                (long long)f->clamped);
  fs_fit_note(fit, "%s; o_mw to 1 ps (the model halves it downwards)",
              f->o && f->o->use_median ? "medians" : "minima");
  return 0;
}

int fs_fit_lognp(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err) {
  fs_fit_init(fit, "lognp");
  lognp_fit f = {.d = d, .o = o, .fit = fit};
  int status = choose_rows(&f, err) || build_tables(&f, err) || write_result(&f, err);
  free((void *)f.mw.sizes), free((void *)f.mw.values);
  free((void *)f.net.sizes), free((void *)f.net.values);
  return status ? -1 : 0;
}
