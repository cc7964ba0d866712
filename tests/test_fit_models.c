/* test_fit_models.c: the taulop, lognp (log3p) and lmo fitters
 * (src/fit/fit_{taulop,lognp,lmo}.c). Hand-built rows whose times are
 * derived from each model's formulas (in the comments) pin the estimation
 * down; closed loops simulate the default probe plan under known
 * parameters, fit, and get them back (exactly without noise, within a
 * stated error with noise); every error path has its exact message; and
 * through the command line, the fitted model file reproduces the probe. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "fit/probe_simulation.h"
#include "model_support.h"
#include "noise/noise.h"
#include "test_support.h"

#define NS 1000 /* ps */

/* ---- hand-built data ---- */

static fs_probe_data *data(int32_t ranks) {
  fs_probe_data *d = fs_probe_data_new(ranks);
  ck_assert_ptr_nonnull(d);
  d->source = strdup("p2p.csv");
  return d;
}

/* A row measured at `ns` (min and median). */
static void add(fs_probe_data *d, fs_experiment e, fs_placement p, int64_t bytes, int64_t reply,
                int32_t count, int32_t a, int32_t b, int32_t c, double ns) {
  fs_probe_row r = {.experiment = e,
                    .placement = p,
                    .bytes = bytes,
                    .reply_bytes = reply,
                    .count = count,
                    .rank_a = a,
                    .rank_b = b,
                    .rank_c = c,
                    .repetitions = 1,
                    .min = llround(ns * NS),
                    .median = llround(ns * NS),
                    .mean = llround(ns * NS),
                    .line = (uint32_t)d->count + 3};
  ck_assert_int_eq(fs_probe_data_add(d, &r), 0);
}

static void add_strided(fs_probe_data *d, int32_t a, int32_t b, int64_t bytes, int64_t stride,
                        double ns) {
  add(d, FS_EXPERIMENT_ROUNDTRIP, a == b ? FS_PLACEMENT_SHM : FS_PLACEMENT_NET, bytes, bytes, 1, a,
      b, -1, ns);
  d->rows[d->count - 1].stride = stride;
  d->rows[d->count - 1].block = 8;
}

static fs_fit fit_data(fs_fitter fitter, const fs_probe_data *d, int use_median) {
  fs_fit fit;
  fs_error err;
  fs_fit_options o = {use_median};
  fs_fit_init(&fit, "");
  ck_assert_msg(fitter(d, &o, &fit, &err) == 0, "%s", err.message);
  return fit;
}

static const char *param(const fs_fit *fit, const char *name) {
  for (int i = 0; i < fit->param_count; i++)
    if (strcmp(fit->params[i].name, name) == 0) return fit->params[i].value;
  ck_abort_msg("no parameter %s", name);
  return NULL;
}

static const char *table(const fs_fit *fit, const char *name) {
  for (int i = 0; i < fit->table_count; i++)
    if (strcmp(fit->tables[i].name, name) == 0) return fit->tables[i].rows;
  ck_abort_msg("no table %s", name);
  return NULL;
}

static void expect_exact(const fs_fit *fit, int64_t residuals) {
  ck_assert_int_eq(fit->residual_count, residuals);
  for (int64_t i = 0; i < fit->residual_count; i++)
    ck_assert_msg(fit->residuals[i].mu == 1, "residual %lld (row %lld): %lld against %lld",
                  (long long)i, (long long)fit->residuals[i].row,
                  (long long)fit->residuals[i].measured, (long long)fit->residuals[i].estimated);
  ck_assert(fit->max_mu == 1 && fit->mean_mu == 1);
}

static void expect_error(fs_fitter fitter, const fs_probe_data *d, const char *message) {
  fs_fit fit;
  fs_error err;
  fs_fit_init(&fit, "");
  ck_assert_int_eq(fitter(d, NULL, &fit, &err), -1);
  ck_assert_str_eq(err.message, message);
  fs_fit_free(&fit);
}

/* ---- taulop ---- */

/* taulop on 2 nodes, shm pair 0,1, net pair 0,2, o^0 = 100 ns, o^1 = 2 us
 * below H = 2048 B and 2 + 5 = 7 us from it, and (ns)
 *   m      L^0(m,1) L^0(m,2)  L^1(m,1) L^1(m,2)
 *   0      1000     1500      10000    20000
 *   1024   1200     1800      11000    22000
 *   2048   1400     2100      12000    24000
 * The model's times:
 *   send_call shm 0: o0 + L0(0,1) = 1100
 *   roundtrip shm 2 (o0 + 2 L0(m,1)): 4200, 5000, 5800
 *   ring shm tau 2, o0 + 2 L0(m,2): 3100, 3700, 4300
 *   send_call net o1(m) + L0(m,1): 3000, 3200, 7000 + 1400 = 8400
 *   roundtrip net 2 (o1 + 2 L0(m,1) + L1(m,1)): 2 (2000 + 2000 + 10000) =
 *     28000, 2 (2000 + 2400 + 11000) = 30800, 2 (7000 + 2800 + 12000) = 43600
 *   ring net tau 2, o1 + 2 L0(m,2) + L1(m,2): 25000, 27600, 35200
 * Back: o0 = 2 x 1100 - 4200/2 = 100; L0(m,1) = (RTT/2 - 100)/2, L0(m,2)
 * = (ring - 100)/2; o1(m) = SC - L0(m,1) = 2000, 2000, 7000: the rise
 * 5000 at 2048 is the only one, net_o the median below (2000); L1 =
 * RTT/2 - o1 - 2 L0(m,1) and ring - o1 - 2 L0(m,2). 16 rows, all exact. */
static fs_probe_data *taulop_rows(void) {
  static const double shm_trip[] = {4200, 5000, 5800}, shm_ring[] = {3100, 3700, 4300};
  static const double net_call[] = {3000, 3200, 8400}, net_trip[] = {28000, 30800, 43600};
  static const double net_ring[] = {25000, 27600, 35200};
  fs_probe_data *d = data(4);
  add(d, FS_EXPERIMENT_SEND_CALL, FS_PLACEMENT_SHM, 0, 0, 1, 0, 1, -1, 1100);
  for (int k = 0; k < 3; k++) {
    int64_t m = k * 1024;
    add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_SHM, m, m, 1, 0, 1, -1, shm_trip[k]);
    add(d, FS_EXPERIMENT_RING, FS_PLACEMENT_SHM, m, m, 2, 0, 1, -1, shm_ring[k]);
    add(d, FS_EXPERIMENT_SEND_CALL, FS_PLACEMENT_NET, m, 0, 1, 0, 2, -1, net_call[k]);
    add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_NET, m, m, 1, 0, 2, -1, net_trip[k]);
    add(d, FS_EXPERIMENT_RING, FS_PLACEMENT_NET, m, m, 2, 0, 2, -1, net_ring[k]);
  }
  return d;
}

START_TEST(taulop_by_hand) {
  fs_probe_data *d = taulop_rows();
  fs_fit fit = fit_data(fs_fit_taulop, d, 0);
  ck_assert_str_eq(fit.kind, "taulop");
  ck_assert_str_eq(param(&fit, "shm_o"), "100ns");
  ck_assert_str_eq(param(&fit, "net_o"), "2000ns");
  ck_assert_str_eq(param(&fit, "net_o_protocol"), "5000ns");
  ck_assert_str_eq(param(&fit, "net_H"), "2048");
  ck_assert_str_eq(param(&fit, "segment"), "0");
  ck_assert_str_eq(table(&fit, "shm_table"),
                   "# L^0(m,tau) shared memory: L(m,1) .. L(m,2), fitted by fennelsim fit\n"
                   "0B 1000ns 1500ns\n1024B 1200ns 1800ns\n2048B 1400ns 2100ns\n");
  ck_assert_str_eq(table(&fit, "net_table"),
                   "# L^1(m,tau) network: L(m,1) .. L(m,2), fitted by fennelsim fit\n"
                   "0B 10000ns 20000ns\n1024B 11000ns 22000ns\n2048B 12000ns 24000ns\n");
  expect_exact(&fit, 16);
  ck_assert_ptr_nonnull(strstr(fit.notes, "o^0 = 2 SC^0(0) - RTT^0(0)/2\n"));
  fs_fit_free(&fit);
  fs_probe_data_free(d);
}
END_TEST

/* Without send calls, the thesis' rules: o^0 = RTT^0(0)/2 = 2100, so
 * L^0(0,1) = (2100 - 2100)/2 = 0 and L^0(0,2) = (3100 - 2100)/2 = 500;
 * o^1 = RTT^1(0)/2 = 14000, no step; L^1(0,1) = 14000 - 14000 - 0 = 0.
 * The ring rows are still exact; the medians are fitted here (the same
 * values). Without net rows: a placeholder net table, net_o 0. */
START_TEST(taulop_thesis_rules) {
  fs_probe_data *d = taulop_rows();
  int64_t kept = 0;
  for (int64_t i = 0; i < d->count; i++)
    if (d->rows[i].experiment != FS_EXPERIMENT_SEND_CALL) d->rows[kept++] = d->rows[i];
  d->count = kept;
  fs_fit fit = fit_data(fs_fit_taulop, d, 1);
  ck_assert_str_eq(param(&fit, "shm_o"), "2100ns");
  ck_assert_str_eq(param(&fit, "net_o"), "14000ns");
  ck_assert_str_eq(param(&fit, "net_o_protocol"), "0ns");
  ck_assert_int_eq(fit.param_count, 4); /* no net_H */
  ck_assert_ptr_nonnull(strstr(table(&fit, "shm_table"), "\n0B 0ns 500ns\n"));
  ck_assert_ptr_nonnull(strstr(table(&fit, "net_table"), "\n0B 0ns "));
  ck_assert_ptr_nonnull(
      strstr(fit.notes,
             "o^0 = RTT^0(0)/2 (no shm send_call row at 0 bytes: L^0(0,1) taken as 0)\n"));
  ck_assert_ptr_nonnull(
      strstr(fit.notes, "o^1 = RTT^1(0)/2 (no net send_call rows: L(0,1) taken as 0, no step)\n"));
  ck_assert_int_eq(fit.residual_count, 12);
  fs_fit_free(&fit);
  kept = 0;
  for (int64_t i = 0; i < d->count; i++)
    if (d->rows[i].placement == FS_PLACEMENT_SHM) d->rows[kept++] = d->rows[i];
  d->count = kept;
  fit = fit_data(fs_fit_taulop, d, 0);
  ck_assert_str_eq(param(&fit, "net_o"), "0ns");
  ck_assert_str_eq(table(&fit, "net_table"), "# no net rows in the data: a placeholder\n0B 0ns\n");
  expect_exact(&fit, 6);
  fs_fit_free(&fit);
  fs_probe_data_free(d);
}
END_TEST

/* A negative o (noise): 0, noted; the tables are fitted on 0. */
START_TEST(taulop_negative_overhead) {
  fs_probe_data *d = taulop_rows();
  d->rows[0].min = 1000 * NS; /* SC^0(0): o^0 = 2000 - 2100 = -100 ns */
  fs_fit fit = fit_data(fs_fit_taulop, d, 0);
  ck_assert_str_eq(param(&fit, "shm_o"), "0ns");
  ck_assert_ptr_nonnull(strstr(fit.notes, "shm_o came out negative (-100000 ps): set to 0\n"));
  ck_assert_ptr_nonnull(
      strstr(table(&fit, "shm_table"), "\n0B 1050ns 1550ns\n")); /* (2100 - 0)/2 */
  fs_fit_free(&fit);
  fs_probe_data_free(d);
}
END_TEST

START_TEST(taulop_errors) {
  fs_probe_data *d = data(4);
  add(d, FS_EXPERIMENT_MEMCPY, FS_PLACEMENT_SHM, 8, 0, 1, 0, -1, -1, 10);
  expect_error(fs_fit_taulop, d,
               "taulop: p2p.csv has no shm roundtrip or tau=1 ring rows at 0 bytes (o^0; "
               "fennelprobe --experiments roundtrip,send_call,ring)");
  add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_SHM, 0, 0, 1, 0, 1, -1, 4200);
  add(d, FS_EXPERIMENT_RING, FS_PLACEMENT_SHM, 8, 8, 2, 0, 1, -1, 3100);
  expect_error(fs_fit_taulop, d,
               "taulop: p2p.csv has no size with shm rows for every tau from 1 to 2 (L^0; "
               "fennelprobe --experiments roundtrip,ring)");
  add(d, FS_EXPERIMENT_RING, FS_PLACEMENT_SHM, 0, 0, 2, 0, 1, -1, 3100);
  add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_NET, 0, 0, 1, 0, 2, -1, 28000);
  add(d, FS_EXPERIMENT_RING, FS_PLACEMENT_NET, 8, 8, 3, 0, 3, -1, 28000);
  expect_error(fs_fit_taulop, d,
               "taulop: p2p.csv has no size with net rows for every tau from 1 to 3 (L^1; "
               "fennelprobe --experiments roundtrip,ring on 2 nodes)");
  fs_probe_data_free(d);
}
END_TEST

/* ---- lognp ---- */

/* lognp with stride column 16, net pair 0,2 (ns):
 *   s      o_mw   o_net  l_mw(s,16)
 *   0      10000  5000   -
 *   1024   12000  6000   3000
 *   2048   14000  7000   (not measured)
 *   4096   18000  9000   9000
 * The model: send_call (o_mw)/2: 5000, 6000, 7000, 9000; every contiguous
 * roundtrip 2 (o_mw + o_net): 30000, 36000, 42000, 54000 (a send to itself
 * too); strided self roundtrips 2 (o_mw + l_mw + o_net): 1024: 2 (12000 +
 * 3000 + 6000) = 42000; 4096: 2 (18000 + 9000 + 9000) = 72000.
 * Back: o_mw = 2 SC, o_net = RTT/2 - o_mw, l_mw = (42000 - 36000)/2 =
 * 3000 and (72000 - 54000)/2 = 9000; at 2048 linear between them: 3000 +
 * 6000 x 1024/3072 = 5000; at 0, from 0 at 0 bytes: 0. 14 rows. */
static fs_probe_data *lognp_rows(void) {
  static const double call[] = {5000, 6000, 7000, 9000}, trip[] = {30000, 36000, 42000, 54000};
  static const int64_t sizes[] = {0, 1024, 2048, 4096};
  fs_probe_data *d = data(4);
  for (int k = 0; k < 4; k++) {
    add(d, FS_EXPERIMENT_SEND_CALL, FS_PLACEMENT_NET, sizes[k], 0, 1, 0, 2, -1, call[k]);
    add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_NET, sizes[k], sizes[k], 1, 0, 2, -1, trip[k]);
    add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_SHM, sizes[k], sizes[k], 1, 0, 0, -1, trip[k]);
  }
  add_strided(d, 0, 0, 1024, 16, 42000);
  add_strided(d, 0, 0, 4096, 16, 72000);
  return d;
}

START_TEST(lognp_by_hand) {
  fs_probe_data *d = lognp_rows();
  fs_fit fit = fit_data(fs_fit_lognp, d, 0);
  ck_assert_str_eq(fit.kind, "lognp");
  ck_assert_str_eq(param(&fit, "strides"), "16");
  ck_assert_str_eq(table(&fit, "mw_table"), "# size o_mw l_mw(strides), fitted by fennelsim fit\n"
                                            "0B 10000ns 0ns\n1024B 12000ns 3000ns\n2048B 14000ns "
                                            "5000ns\n4096B 18000ns 9000ns\n");
  ck_assert_str_eq(table(&fit, "net_table"),
                   "# size o_net, fitted by fennelsim fit\n"
                   "0B 5000ns\n1024B 6000ns\n2048B 7000ns\n4096B 9000ns\n");
  expect_exact(&fit, 14);
  ck_assert_ptr_nonnull(
      strstr(fit.notes, "T_01 from net roundtrips; o_mw = 2 SC (the model's sender half)\n"));
  fs_fit_free(&fit);
  fs_probe_data_free(d);
}
END_TEST

/* Without send calls, the paper's split at 1024 B: T_mem = 1000 ns, the
 * send to itself T_00 = o_mw + T_mem = 13000 (RTT 26000), remote T_01 =
 * o_mw + o_net = 18000 (RTT 36000), strided T_00(s,16) = o_mw + l_mw +
 * T_mem = 16000 (RTT 32000): o_mw = 13000 - 1000 = 12000, o_net = 18000 -
 * 12000 = 6000, l_mw = 16000 - 12000 - 1000 = 3000. lognp.c prices the
 * send to itself as a remote one (36000 against 26000): its mu shows it.
 * On one node, T_01 comes from shm rows. */
START_TEST(lognp_paper_split) {
  fs_probe_data *d = data(4);
  add(d, FS_EXPERIMENT_MEMCPY, FS_PLACEMENT_SHM, 1024, 0, 1, 0, -1, -1, 1000);
  add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_SHM, 1024, 1024, 1, 0, 0, -1, 26000);
  add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_SHM, 1024, 1024, 1, 0, 1, -1, 36000);
  add_strided(d, 0, 0, 1024, 16, 32000);
  fs_fit fit = fit_data(fs_fit_lognp, d, 0);
  ck_assert_str_eq(table(&fit, "mw_table"), "# size o_mw l_mw(strides), fitted by fennelsim fit\n"
                                            "1024B 12000ns 3000ns\n");
  ck_assert_str_eq(table(&fit, "net_table"),
                   "# size o_net, fitted by fennelsim fit\n1024B 6000ns\n");
  ck_assert_ptr_nonnull(strstr(fit.notes,
                               "T_01 from shm (no net) roundtrips; no send_call rows: o_mw = "
                               "T_00 - T_mem (the paper's split)\n"));
  ck_assert_int_eq(fit.residual_count, 3);
  ck_assert_double_eq_tol(fit.max_mu, 36000.0 / 26000.0, 1e-12);
  fs_fit_free(&fit);
  fs_probe_data_free(d);
}
END_TEST

START_TEST(lognp_errors) {
  fs_probe_data *d = data(4);
  add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_SHM, 8, 8, 1, 0, 0, -1, 100);
  expect_error(fs_fit_lognp, d,
               "lognp: p2p.csv has no contiguous roundtrip rows between two ranks with "
               "reply_bytes = bytes (T_01; fennelprobe --experiments roundtrip)");
  add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_NET, 8, 8, 1, 0, 2, -1, 100);
  expect_error(fs_fit_lognp, d,
               "lognp: p2p.csv has no size with both a net roundtrip and a send-to-self "
               "roundtrip and a memcpy (fennelprobe --experiments roundtrip,send_call,memcpy)");
  add(d, FS_EXPERIMENT_SEND_CALL, FS_PLACEMENT_NET, 16, 0, 1, 0, 2, -1, 10);
  expect_error(fs_fit_lognp, d,
               "lognp: p2p.csv has no size with both a net roundtrip and a send_call "
               "(fennelprobe --experiments roundtrip,send_call,memcpy)");
  add(d, FS_EXPERIMENT_SEND_CALL, FS_PLACEMENT_NET, 8, 0, 1, 0, 2, -1, 10);
  for (int k = 0; k < 12; k++) add_strided(d, 0, 0, 8, 100000 + k, 200);
  expect_error(fs_fit_lognp, d,
               "lognp: the strides do not fit a parameter (100000,100001,100002,100003,"
               "100004,100005,100006,100007,100008,100009,100010,100011)");
  fs_probe_data_free(d);
}
END_TEST

/* ---- lmo ---- */

/* lmo on 3 ranks: C = 1, 2, 3 us, t = 1, 2, 3 ps/B; L01 = 10 us, L02 =
 * 20 us, L12 = 30 us, 1/beta = 10, 20, 30 ps/B. So a_ij = C_i + L_ij +
 * C_j = 13000, 24000, 35000 ns and s_ij = t_i + 1/beta_ij + t_j = 13, 24,
 * 35 ps/B:
 *   empty roundtrips 2 a: 26000, 48000, 70000; M/0 of 1000 B, 2 a + 1000 s:
 *   26013, 48024, 70035 (and 2000 B: 26026, 48048, 70070).
 *   one_to_two i -> b, c (b < c) of M, replies 0 B: c's reply comes last,
 *   so RT_ic(M/0) + C_i + M t_i:
 *     root 0 (1, 2): 48024 + 1001 = 49025; M 2000: 48048 + 1002 = 49050
 *     root 1 (0, 2): 70035 + 2002 = 72037; 70070 + 2004 = 72074
 *     root 2 (0, 1): 70035 + 3003 = 73038; 70070 + 3006 = 73076
 *   (each above RT_ib + C_i: 26013 + 1000, 26013 + 2000, 48024 + 3000).
 * Back: C_i + M t_i = T - RT_ic over M 1000, 2000: the line through
 * (1000, 1001) and (2000, 1002) is C_0 = 1000, t_0 = 0.001 ns/B; then L_ij
 * = a - C_i - C_j, 1/beta = s - t_i - t_j. The default is the means: C 2
 * us, t 2 ps, L 20 us, 1/beta 20 ps. 9 + 6 rows, all exact. */
static fs_probe_data *lmo_rows(int one_to_two) {
  static const int32_t pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  static const double a[] = {13000, 24000, 35000}, s[] = {13, 24, 35};
  static const int32_t roots[3][3] = {{0, 1, 2}, {1, 0, 2}, {2, 0, 1}};
  static const double c[] = {1000, 2000, 3000}, t[] = {0.001, 0.002, 0.003};
  static const int c_pair[] = {1, 2, 2}; /* the pair (root, c) */
  fs_probe_data *d = data(3);
  for (int k = 0; k < 3; k++) {
    fs_placement p = k == 0 ? FS_PLACEMENT_SHM : FS_PLACEMENT_NET;
    add(d, FS_EXPERIMENT_ROUNDTRIP, p, 0, 0, 1, pairs[k][0], pairs[k][1], -1, 2 * a[k]);
    for (int64_t m = 1000; m <= 2000; m += 1000)
      add(d, FS_EXPERIMENT_ROUNDTRIP, p, m, 0, 1, pairs[k][0], pairs[k][1], -1,
          2 * a[k] + (double)m * s[k] / 1000);
  }
  for (int r = 0; r < 3 && one_to_two; r++)
    for (int64_t m = 1000; m <= 2000; m += 1000) {
      int q = c_pair[r];
      add(d, FS_EXPERIMENT_ONE_TO_TWO, FS_PLACEMENT_NET, m, 0, 1, roots[r][0], roots[r][1],
          roots[r][2], 2 * a[q] + (double)m * s[q] / 1000 + c[r] + (double)m * t[r]);
    }
  return d;
}

START_TEST(lmo_by_hand) {
  fs_probe_data *d = lmo_rows(1);
  fs_fit fit = fit_data(fs_fit_lmo, d, 0);
  ck_assert_str_eq(fit.kind, "lmo");
  ck_assert_int_eq(fit.param_count, 0);
  ck_assert_str_eq(table(&fit, "file"),
                   "ranks 3\ndefault C=2000ns t=2ps L=20000ns invbeta=20ps\n"
                   "rank 0 C=1000ns t=1ps\nrank 1 C=2000ns t=2ps\nrank 2 C=3000ns t=3ps\n"
                   "link 0 1 L=10000ns invbeta=10ps\nlink 0 2 L=20000ns invbeta=20ps\n"
                   "link 1 2 L=30000ns invbeta=30ps\n");
  expect_exact(&fit, 15);
  ck_assert_ptr_nonnull(
      strstr(fit.notes, "the default link: the pairs' means (no send-to-self rows)\n"));
  fs_fit_free(&fit);
  d->ranks = 1 << 24; /* a header's largest: only the ranks with rows are kept */
  fit = fit_data(fs_fit_lmo, d, 0);
  ck_assert_str_eq(table(&fit, "file"),
                   "ranks 16777216\ndefault C=2000ns t=2ps L=20000ns invbeta=20ps\n"
                   "rank 0 C=1000ns t=1ps\nrank 1 C=2000ns t=2ps\nrank 2 C=3000ns t=3ps\n"
                   "link 0 1 L=10000ns invbeta=10ps\nlink 0 2 L=20000ns invbeta=20ps\n"
                   "link 1 2 L=30000ns invbeta=30ps\n");
  fs_fit_free(&fit);
  fs_probe_data_free(d);
}
END_TEST

/* Without one_to_two rows, the slides' triplets: C_i = (T_ij(0) + T_ik(0)
 * - T_jk(0))/4 = (a_ij + a_ik - a_jk)/2: C_0 = (13000 + 24000 - 35000)/2 =
 * 1000, C_1 = (13000 + 35000 - 24000)/2 = 12000, C_2 = (24000 + 35000 -
 * 13000)/2 = 23000 (C_i + (L_ij + L_ik - L_jk)/2: the L fold into C),
 * t_i = 0, so L = 0 and 1/beta = s: 13, 24, 35 ps/B. The round trips are
 * still exact. A one_to_two row where b's reply is last (T = RT_ib) is not
 * used either. */
START_TEST(lmo_triplets) {
  fs_probe_data *d = lmo_rows(0);
  add(d, FS_EXPERIMENT_ONE_TO_TWO, FS_PLACEMENT_NET, 1000, 0, 1, 0, 2, 1, 48024);
  fs_fit fit = fit_data(fs_fit_lmo, d, 0);
  ck_assert_str_eq(table(&fit, "file"),
                   "ranks 3\ndefault C=12000ns t=0ps L=0ns invbeta=24ps\n"
                   "rank 0 C=1000ns t=0ps\nrank 1 C=12000ns t=0ps\nrank 2 C=23000ns t=0ps\n"
                   "link 0 1 L=0ns invbeta=13ps\nlink 0 2 L=0ns invbeta=24ps\nlink 1 2 L=0ns "
                   "invbeta=35ps\n");
  ck_assert_ptr_nonnull(strstr(fit.notes,
                               "3 ranks without two sizes of usable one-to-two rows: C_i from the "
                               "empty-roundtrip triplets (L folded into C), t_i = 0\n"));
  ck_assert_int_eq(fit.residual_count, 10);
  for (int64_t i = 0; i < 9; i++) ck_assert(fit.residuals[i].mu == 1);
  fs_fit_free(&fit);
  fs_probe_data_free(d);
}
END_TEST

START_TEST(lmo_errors) {
  fs_probe_data *d = data(3);
  add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_SHM, 0, 0, 1, 1, 1, -1, 100);
  expect_error(fs_fit_lmo, d,
               "lmo: p2p.csv has no roundtrip rows between two ranks (fennelprobe "
               "--experiments roundtrip --pairs all)");
  add(d, FS_EXPERIMENT_ROUNDTRIP, FS_PLACEMENT_SHM, 8, 0, 1, 2, 1, -1, 100);
  expect_error(fs_fit_lmo, d,
               "lmo: the roundtrip rows of ranks 1 and 2 need an empty one (0/0) and a "
               "non-empty one");
  d->ranks = 0;
  expect_error(fs_fit_lmo, d, "lmo: p2p.csv names no ranks");
  fs_probe_data_free(d);
}
END_TEST

/* ---- closed loops on the default plan ---- */

typedef struct probe_run {
  fs_network_model network;
  fs_compute_model compute;
  fs_noise *noise;
  fs_probe_data *data;
  fs_error err;
} probe_run;

/* The default plan of 4 ranks, 2 per node, under model "k=v ..." (with
 * noise: `repetitions` runs per row). */
static void probe(probe_run *run, const char *model, const char *params, const char *noise,
                  int64_t repetitions) {
  char text[1024], none[] = "";
  fs_parameter items[16], compute_items[16];
  fs_parameters p, c;
  memset(run, 0, sizeof *run);
  snprintf(text, sizeof text, "%s", params);
  ck_assert_int_eq(fs_test_parameters(text, items, &p), 0);
  ck_assert_int_eq(fs_test_parameters(none, compute_items, &c), 0);
  ck_assert_msg(fs_network_model_create(model, &p, &run->network, &run->err) == 0, "%s",
                run->err.message);
  ck_assert_msg(fs_compute_model_create("fixed", &c, &run->compute, &run->err) == 0, "%s",
                run->err.message);
  if (noise) {
    run->noise = fs_noise_new();
    ck_assert(fs_noise_add(run->noise, noise, &run->err) == 0);
    ck_assert(fs_noise_prepare(run->noise, 4, &run->err) == 0);
  }
  fs_probe_plan plan;
  ck_assert_int_eq(fs_probe_plan_default(&plan, 4, 2), 0);
  fs_probe_simulation s = {.network = &run->network,
                           .compute = &run->compute,
                           .noise = run->noise,
                           .seed = 1,
                           .repetitions = repetitions,
                           .ranks = 4};
  run->data = fs_probe_simulate(&s, &plan, &run->err);
  ck_assert_msg(run->data != NULL, "%s", run->err.message);
  fs_probe_plan_free(&plan);
}

static void probe_free(probe_run *run) {
  fs_probe_data_free(run->data);
  fs_network_model_destroy(&run->network);
  fs_compute_model_destroy(&run->compute);
  fs_noise_free(run->noise);
}

/* A file holding text; the caller frees the path. */
static char *file_with(const char *suffix, const char *text) {
  char *path = fs_test_temp_path(suffix);
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

/* The value of row `size` column k (0: the size) in a table's text. */
static double table_value(const char *rows, int64_t size, int k) {
  char start[40];
  snprintf(start, sizeof start, "\n%lldB ", (long long)size);
  const char *at = strstr(rows, start);
  ck_assert_msg(at != NULL, "no row %lld", (long long)size);
  at += strlen(start);
  for (int i = 1; i < k; i++) at = strchr(at, ' ') + 1;
  int64_t v;
  const char *end = strpbrk(at, " \n");
  ck_assert(fs_parse_time(at, (size_t)(end - at), 1, &v) == 0);
  return (double)v;
}

/* tau-Lop truth, 2 columns (tau 1, 2), linear between the rows at 0 and
 * 1 MiB: L^0(m,1) = 1 us + 100 us m/MiB, L^0(m,2) = 1.5 us + 149.5 us
 * m/MiB; L^1 = 10 us + 1000 us m/MiB, 20 us + 2000 us m/MiB; o^0 100 ns,
 * o^1 2 us, O_P 5 us from 128 KiB (the model's default H). The model
 * rounds each interpolated value to the ps, half away from 0, as llround. */
#define SHM_TRUTH "0B 1us 1.5us\n1MiB 101us 151us\n"
#define NET_TRUTH "0B 10us 20us\n1MiB 1010us 2020us\n"

static double shm_truth(int64_t m, int tau) {
  return tau == 1 ? 1e6 + m * 100e6 / 1048576 : 1.5e6 + m * 149.5e6 / 1048576;
}
static double net_truth(int64_t m, int tau) {
  return tau == 1 ? 1e7 + m * 1e9 / 1048576 : 2e7 + m * 2e9 / 1048576;
}

static void taulop_probe(probe_run *run, const char *segment, const char *noise, char **shm,
                         char **net) {
  char params[1024];
  *shm = file_with(".table", SHM_TRUTH), *net = file_with(".table", NET_TRUTH);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s shm_o=100ns net_o=2us net_o_protocol=5us "
           "nodes=2 cores=2%s",
           *shm, *net, segment);
  probe(run, "taulop", params, noise, 30);
}

/* Without segmentation (the fit's own form): every parameter back and every
 * table row at the truth's value (the model's interpolation rounded to the
 * ps at each measured size: the same rounding), every used row exact. */
START_TEST(taulop_closed_loop) {
  probe_run run;
  char *shm, *net;
  taulop_probe(&run, " segment=0", NULL, &shm, &net);
  fs_fit fit = fit_data(fs_fit_taulop, run.data, 0);
  ck_assert_str_eq(param(&fit, "shm_o"), "100ns");
  ck_assert_str_eq(param(&fit, "net_o"), "2000ns");
  ck_assert_str_eq(param(&fit, "net_o_protocol"), "5000ns");
  ck_assert_str_eq(param(&fit, "net_H"), "131072");
  for (int64_t m = 0; m <= (int64_t)4 << 20; m = m ? 2 * m : 1)
    for (int tau = 1; tau <= 2; tau++) {
      ck_assert_double_eq(table_value(table(&fit, "shm_table"), m, tau),
                          llround(shm_truth(m, tau)));
      ck_assert_double_eq(table_value(table(&fit, "net_table"), m, tau),
                          llround(net_truth(m, tau)));
    }
  /* 24 sizes x (shm: 6 roundtrip pairs... only the shm pairs 0-1, 2-3) */
  ck_assert(fit.max_mu == 1 && fit.mean_mu == 1);
  ck_assert_int_gt(fit.residual_count, 200);
  fs_fit_free(&fit);
  probe_free(&run);
  free(shm), free(net);
}
END_TEST

/* With the model's default 8 KiB segments: the o's, H and the shm rows up
 * to a segment come back exactly; above it the shm table holds the rings'
 * (Ring - o)/2 (the thesis' (7.5) with linearity), which the fit prices
 * unsegmented: every ring and roundtrip is still right, to 2 ps (a
 * segmented ring need not be o + an even count of ps: the table's whole ps
 * round the half), only the net send calls above a segment are not (they
 * see the true unsegmented L^0(m,1)). */
START_TEST(taulop_segmented_closed_loop) {
  probe_run run;
  char *shm, *net;
  taulop_probe(&run, "", NULL, &shm, &net);
  fs_fit fit = fit_data(fs_fit_taulop, run.data, 0);
  ck_assert_str_eq(param(&fit, "shm_o"), "100ns");
  ck_assert_str_eq(param(&fit, "net_o"), "2000ns");
  ck_assert_str_eq(param(&fit, "net_H"), "131072");
  for (int64_t m = 0; m <= 8192; m = m ? 2 * m : 1)
    for (int tau = 1; tau <= 2; tau++)
      ck_assert_double_eq(table_value(table(&fit, "shm_table"), m, tau),
                          llround(shm_truth(m, tau)));
  int64_t inexact = 0;
  for (int64_t i = 0; i < fit.residual_count; i++) {
    const fs_probe_row *r = &run.data->rows[fit.residuals[i].row];
    if (llabs(fit.residuals[i].measured - fit.residuals[i].estimated) <= 2) continue;
    inexact++;
    ck_assert_msg(r->experiment == FS_EXPERIMENT_SEND_CALL && r->placement == FS_PLACEMENT_NET &&
                      r->bytes > 8192,
                  "%s %lld B count %d ranks %d,%d: %lld against %lld",
                  fs_experiment_name(r->experiment), (long long)r->bytes, r->count, r->rank_a,
                  r->rank_b, (long long)fit.residuals[i].measured,
                  (long long)fit.residuals[i].estimated);
  }
  ck_assert_int_eq(inexact, 9); /* 16 KiB .. 4 MiB */
  fs_fit_free(&fit);
  probe_free(&run);
  free(shm), free(net);
}
END_TEST

/* Noise on every transfer (lognormal, sigma 0.05), 30 repetitions, the
 * medians: H found, o^1 and O_P within 5%, every table value within 5%,
 * the rows within mu 1.05. o^0 = 2 SC - RTT/2 is a difference of noisy
 * microsecond times: within 50 ns of its 100. */
START_TEST(taulop_noisy) {
  probe_run run;
  char *shm, *net;
  taulop_probe(&run, " segment=0", "net=lognormal:sigma=0.05", &shm, &net);
  fs_fit fit = fit_data(fs_fit_taulop, run.data, 1);
  int64_t value;
  const char *text = param(&fit, "shm_o");
  ck_assert(fs_parse_time(text, strlen(text), 1, &value) == 0 && llabs(value - 100 * NS) < 50 * NS);
  text = param(&fit, "net_o");
  ck_assert(fs_parse_time(text, strlen(text), 1, &value) == 0 && fabs(value / 2e6 - 1) < 0.05);
  text = param(&fit, "net_o_protocol");
  ck_assert(fs_parse_time(text, strlen(text), 1, &value) == 0 && fabs(value / 5e6 - 1) < 0.05);
  ck_assert_str_eq(param(&fit, "net_H"), "131072");
  for (int64_t m = 0; m <= (int64_t)4 << 20; m = m ? 2 * m : 1)
    for (int tau = 1; tau <= 2; tau++) {
      ck_assert_double_lt(fabs(table_value(table(&fit, "shm_table"), m, tau) / shm_truth(m, tau) -
                               1),
                          0.05);
      ck_assert_double_lt(fabs(table_value(table(&fit, "net_table"), m, tau) / net_truth(m, tau) -
                               1),
                          0.05);
    }
  ck_assert_double_lt(fit.max_mu, 1.05);
  fs_fit_free(&fit);
  probe_free(&run);
  free(shm), free(net);
}
END_TEST

/* log_3 P truth, one stride column (16 B, the plan's), linear from 0 to
 * 1 MiB: o_mw = 10 us + 2 ps/B, l_mw(s,16) = 3 ps/B, o_net = 5 us + 1 ps/B
 * (even o_mw at every size: halved exactly). */
#define MW_TRUTH "0B 10us 0ns\n1MiB 12.097152us 3.145728us\n"
#define ONET_TRUTH "0B 5us\n1MiB 6.048576us\n"

static void lognp_probe(probe_run *run, const char *noise, char **mw, char **net) {
  char params[1024];
  *mw = file_with(".table", MW_TRUTH), *net = file_with(".table", ONET_TRUTH);
  snprintf(params, sizeof params, "mw_table=%s net_table=%s strides=16", *mw, *net);
  probe(run, "lognp", params, noise, 30);
}

START_TEST(lognp_closed_loop) {
  probe_run run;
  char *mw, *net;
  lognp_probe(&run, NULL, &mw, &net);
  fs_fit fit = fit_data(fs_fit_lognp, run.data, 0);
  ck_assert_str_eq(param(&fit, "strides"), "16");
  for (int64_t s = 0; s <= (int64_t)4 << 20; s = s ? 2 * s : 1) {
    ck_assert_double_eq(table_value(table(&fit, "mw_table"), s, 1), 1e7 + 2.0 * s);
    ck_assert_double_eq(table_value(table(&fit, "mw_table"), s, 2), 3.0 * s);
    ck_assert_double_eq(table_value(table(&fit, "net_table"), s, 1), 5e6 + 1.0 * s);
  }
  /* send calls 24, net pairs 4 x 24, self 24, strided self 19 */
  expect_exact(&fit, 24 + 96 + 24 + 19);
  fs_fit_free(&fit);
  probe_free(&run);
  free(mw), free(net);
}
END_TEST

/* Noisy medians (as taulop_noisy): o_mw + o_net within 5% at every size,
 * l_mw within 5% of its value plus 0.5 us (a difference of two round
 * trips of 30 us and more), rows within mu 1.05. */
START_TEST(lognp_noisy) {
  probe_run run;
  char *mw, *net;
  lognp_probe(&run, "net=lognormal:sigma=0.05", &mw, &net);
  fs_fit fit = fit_data(fs_fit_lognp, run.data, 1);
  for (int64_t s = 0; s <= (int64_t)4 << 20; s = s ? 2 * s : 1) {
    double both =
        table_value(table(&fit, "mw_table"), s, 1) + table_value(table(&fit, "net_table"), s, 1);
    ck_assert_double_lt(fabs(both / (1.5e7 + 3.0 * s) - 1), 0.05);
    ck_assert_double_lt(fabs(table_value(table(&fit, "mw_table"), s, 2) - 3.0 * s),
                        0.05 * 3.0 * s + 5e5);
  }
  ck_assert_double_lt(fit.max_mu, 1.05);
  fs_fit_free(&fit);
  probe_free(&run);
  free(mw), free(net);
}
END_TEST

/* LMO truth on 4 ranks: C_i = 1..4 us, t_i = 1..4 ps/B, L_ij = 10..60 us
 * and 1/beta_ij = 10..60 ps/B (pairs 01, 02, 03, 12, 13, 23), a send to
 * itself 500 ns and 2 ps/B (the default link). */
#define LMO_TRUTH                                                                  \
  "ranks 4\ndefault L=500ns invbeta=2ps\nrank 0 C=1us t=1ps\nrank 1 C=2us t=2ps\n" \
  "rank 2 C=3us t=3ps\nrank 3 C=4us t=4ps\nlink 0 1 L=10us invbeta=10ps\n"         \
  "link 0 2 L=20us invbeta=20ps\nlink 0 3 L=30us invbeta=30ps\n"                   \
  "link 1 2 L=40us invbeta=40ps\nlink 1 3 L=50us invbeta=50ps\n"                   \
  "link 2 3 L=60us invbeta=60ps\n"
#define LMO_FITTED                                                     \
  "ranks 4\ndefault C=2500ns t=2.5ps L=500ns invbeta=2ps\n"            \
  "rank 0 C=1000ns t=1ps\nrank 1 C=2000ns t=2ps\n"                     \
  "rank 2 C=3000ns t=3ps\nrank 3 C=4000ns t=4ps\n"                     \
  "link 0 1 L=10000ns invbeta=10ps\nlink 0 2 L=20000ns invbeta=20ps\n" \
  "link 0 3 L=30000ns invbeta=30ps\nlink 1 2 L=40000ns invbeta=40ps\n" \
  "link 1 3 L=50000ns invbeta=50ps\nlink 2 3 L=60000ns invbeta=60ps\n"

START_TEST(lmo_closed_loop) {
  probe_run run;
  char *file = file_with(".txt", LMO_TRUTH), params[512];
  snprintf(params, sizeof params, "file=%s", file);
  probe(&run, "lmo", params, NULL, 1);
  fs_fit fit = fit_data(fs_fit_lmo, run.data, 0);
  ck_assert_str_eq(table(&fit, "file"), LMO_FITTED);
  /* pairs: 6 x 47 roundtrips; self 24; one_to_two 12 x 17 */
  expect_exact(&fit, 6 * 47 + 24 + 12 * 17);
  ck_assert_ptr_nonnull(
      strstr(fit.notes, "for 6 pairs; C_i + M t_i = T_ibc(M) - RT_ic(M) over one-to-two rows "
                        "for 4 ranks (minima)\n"));
  fs_fit_free(&fit);
  probe_free(&run);
  free(file);
}
END_TEST

/* Noisy medians: C_i within 2 us (it is a difference of one-to-two and
 * round-trip times of 50-140 us, whose medians over 30 draws of sigma
 * 0.05 carry about 1 us each), L_ij within 4 us (a_ij - C_i - C_j),
 * 1/beta_ij within 4 ps/B of its 10-60 (s_ij - t_i - t_j); t_i itself is
 * not asserted: M t_i is at most 262 ns at the one-to-two's largest 64
 * KiB, below that noise (the fit sets negative ones to 0), so its errors
 * of a few ps/B go into 1/beta. Rows within mu 1.05. */
START_TEST(lmo_noisy) {
  probe_run run;
  char *file = file_with(".txt", LMO_TRUTH), params[512];
  snprintf(params, sizeof params, "file=%s", file);
  probe(&run, "lmo", params, "net=lognormal:sigma=0.05", 30);
  fs_fit fit = fit_data(fs_fit_lmo, run.data, 1);
  const char *text = table(&fit, "file");
  for (int i = 0; i < 4; i++) {
    char start[32];
    snprintf(start, sizeof start, "rank %d C=", i);
    const char *at = strstr(text, start) + strlen(start);
    int64_t c, t;
    const char *space = strchr(at, ' '), *end = strchr(space, '\n');
    ck_assert(fs_parse_time(at, (size_t)(space - at), 1, &c) == 0);
    ck_assert(fs_parse_per_byte(space + 3, (size_t)(end - space - 3), &t) == 0);
    ck_assert_double_lt(fabs((double)c - (i + 1) * 1e6), 2e6);
    ck_assert_int_ge(t, 0);
  }
  static const char *const links[] = {"0 1", "0 2", "0 3", "1 2", "1 3", "2 3"};
  for (int k = 0; k < 6; k++) {
    char start[32];
    snprintf(start, sizeof start, "link %s L=", links[k]);
    const char *at = strstr(text, start) + strlen(start);
    int64_t l, invbeta;
    const char *space = strchr(at, ' '), *end = strchr(space, '\n');
    ck_assert(fs_parse_time(at, (size_t)(space - at), 1, &l) == 0);
    ck_assert(fs_parse_per_byte(space + 9, (size_t)(end - space - 9), &invbeta) == 0);
    ck_assert_double_lt(fabs((double)l - (k + 1) * 1e7), 4e6);
    ck_assert_double_lt(fabs((double)invbeta - (k + 1) * 1e7), 4e6);
  }
  ck_assert_double_lt(fit.max_mu, 1.05);
  fs_fit_free(&fit);
  probe_free(&run);
  free(file);
}
END_TEST

/* ---- the command line: probe, fit -o, probe the fitted model ---- */

/* fennelsim probe under `model`, fit -o, probe under the model file: the
 * same rows (the header lines aside). */
static void round_trip_cli(const char *model, const char *fitter) {
  char *first = fs_test_temp_path(".csv"), *second = fs_test_temp_path(".csv"),
       *xml = fs_test_temp_path(".xml");
  char *out = NULL, *err = NULL;
  ck_assert_msg(fs_test_fennelsimf(NULL, &err, "probe --model %s --nodes 2 --cores 2 -o %s", model,
                                   first) == 0,
                "%s", err);
  free(err);
  ck_assert_msg(fs_test_fennelsimf(&out, &err, "fit %s --model %s -o %s", first, fitter, xml) == 0,
                "%s", err);
  ck_assert_ptr_nonnull(strstr(out, "max mu:     1.000000\nmean mu:    1.000000\n"));
  free(out), free(err);
  ck_assert_msg(fs_test_fennelsimf(NULL, &err, "probe --model %s --nodes 2 --cores 2 -o %s", xml,
                                   second) == 0,
                "%s", err);
  free(err);
  char *a = fs_test_read_file(first, NULL), *b = fs_test_read_file(second, NULL);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_str_eq(strchr(a, '\n'), strchr(b, '\n'));
  free(a), free(b), free(first), free(second), free(xml);
}

START_TEST(cli_taulop) {
  char *shm = file_with(".table", SHM_TRUTH), *net = file_with(".table", NET_TRUTH), model[1024];
  snprintf(model, sizeof model,
           "taulop --param shm_table=%s --param net_table=%s --param shm_o=100ns "
           "--param net_o=2us --param net_o_protocol=5us --param segment=0",
           shm, net);
  round_trip_cli(model, "taulop");
  free(shm), free(net);
}
END_TEST

START_TEST(cli_lognp) {
  char *mw = file_with(".table", MW_TRUTH), *net = file_with(".table", ONET_TRUTH), model[1024];
  snprintf(model, sizeof model, "lognp --param mw_table=%s --param net_table=%s --param strides=16",
           mw, net);
  round_trip_cli(model, "log3p");
  free(mw), free(net);
}
END_TEST

START_TEST(cli_lmo) {
  char *file = file_with(".txt", LMO_TRUTH), model[1024];
  snprintf(model, sizeof model, "lmo --param file=%s", file);
  round_trip_cli(model, "lmo");
  free(file);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("fit_models");
  TCase *hand = tcase_create("by_hand");
  tcase_add_test(hand, taulop_by_hand);
  tcase_add_test(hand, taulop_thesis_rules);
  tcase_add_test(hand, taulop_negative_overhead);
  tcase_add_test(hand, taulop_errors);
  tcase_add_test(hand, lognp_by_hand);
  tcase_add_test(hand, lognp_paper_split);
  tcase_add_test(hand, lognp_errors);
  tcase_add_test(hand, lmo_by_hand);
  tcase_add_test(hand, lmo_triplets);
  tcase_add_test(hand, lmo_errors);
  suite_add_tcase(s, hand);
  TCase *loops = tcase_create("closed_loops");
  tcase_set_timeout(loops, 120);
  tcase_add_test(loops, taulop_closed_loop);
  tcase_add_test(loops, taulop_segmented_closed_loop);
  tcase_add_test(loops, taulop_noisy);
  tcase_add_test(loops, lognp_closed_loop);
  tcase_add_test(loops, lognp_noisy);
  tcase_add_test(loops, lmo_closed_loop);
  tcase_add_test(loops, lmo_noisy);
  suite_add_tcase(s, loops);
  TCase *cli = tcase_create("command_line");
  tcase_set_timeout(cli, 120);
  tcase_add_test(cli, cli_taulop);
  tcase_add_test(cli, cli_lognp);
  tcase_add_test(cli, cli_lmo);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) { return fs_test_run(suite()); }
