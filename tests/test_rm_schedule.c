/* test_rm_schedule.c: recursive-multiplying schedules
 * (src/generators/rm_schedule.c; Fennel thesis §5.4, notes §3.2-3.4).
 *
 * Covers the stage notation (parse with positioned errors, canonical
 * format, truncation), the rank count with its structural rules (R + G*K = N,
 * collapse T % M == 0 and active count T/M + N - T), the cost model in units
 * of alpha_r, Lambert W on both branches, b_opt/b_upper against the printed
 * values, and Table 5.2: the heuristic (Alg. 7) and the exhaustive best
 * search, with c = 2.911 (the ratio the thesis's Chapter 5 implies). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "generators/rm_schedule.h"
#include "test_support.h"

#define C_THESIS 2.911 /* b_opt = 3.258, upper = 12 (notes §3.2) */

/* ---- helpers ------------------------------------------------------------ */

static fs_rm_schedule parse_ok(const char *text) {
  fs_rm_schedule s;
  fs_error err = {{0}};
  ck_assert_msg(fs_rm_schedule_parse(text, &s, &err) == 0, "parse(\"%s\"): %s", text,
                err.message);
  return s;
}

static void parse_bad(const char *text, const char *message) {
  fs_rm_schedule s;
  s.count = -7;
  fs_error err = {{0}};
  ck_assert_int_eq(fs_rm_schedule_parse(text, &s, &err), -1);
  ck_assert_str_eq(err.message, message);
  ck_assert_int_eq(s.count, -7); /* untouched */
}

static const char *format(const fs_rm_schedule *s, char *buf, size_t size) {
  size_t n = fs_rm_schedule_format(s, buf, size);
  ck_assert_uint_eq(n, strlen(buf));
  return buf;
}

static int64_t ranks_ok(const char *text) {
  fs_rm_schedule s = parse_ok(text);
  fs_error err = {{0}};
  int64_t n = -1;
  ck_assert_msg(fs_rm_schedule_ranks(&s, &n, &err) == 0, "ranks(\"%s\"): %s", text, err.message);
  return n;
}

static void ranks_bad(const char *text, const char *message) {
  fs_rm_schedule s = parse_ok(text);
  fs_error err = {{0}};
  int64_t n = -1;
  ck_assert_int_eq(fs_rm_schedule_ranks(&s, &n, &err), -1);
  ck_assert_str_eq(err.message, message);
}

static double cost_of(const char *text, double c) {
  fs_rm_schedule s = parse_ok(text);
  return fs_rm_schedule_cost(&s, c);
}

/* |v - printed| within half a unit of the printed last digit. */
static void printed(double v, double expected, double unit) {
  ck_assert_msg(fabs(v - expected) <= unit / 2, "%.6f is not %g to the printed digits", v,
                expected);
}

/* ---- parse and format --------------------------------------------------- */

START_TEST(parse_and_format_round_trip) {
  const char *texts[] = {"a4,a2", "c6m2,a2,a2,e6m2", "m1g2a3,n1g3a2", "a1024",
                         "m3g8a5,a4,n3g20a2", "c1000000000m2,e1000000000m2"};
  char buf[128];
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    fs_rm_schedule s = parse_ok(texts[i]);
    ck_assert_str_eq(format(&s, buf, sizeof buf), texts[i]);
  }
  fs_rm_schedule s = parse_ok("c6m2,a2,a2,e6m2");
  ck_assert_int_eq(s.count, 4);
  ck_assert_int_eq(s.stages[0].kind, FS_RM_COLLAPSE);
  ck_assert_int_eq(s.stages[0].t, 6);
  ck_assert_int_eq(s.stages[0].m, 2);
  ck_assert_int_eq(s.stages[1].kind, FS_RM_FACTOR);
  ck_assert_int_eq(s.stages[1].k, 2);
  ck_assert_int_eq(s.stages[3].kind, FS_RM_EXPAND);
  s = parse_ok("m1g2a3,n1g3a2");
  ck_assert_int_eq(s.stages[0].kind, FS_RM_MERGE);
  ck_assert_int_eq(s.stages[0].r, 1);
  ck_assert_int_eq(s.stages[0].g, 2);
  ck_assert_int_eq(s.stages[0].k, 3);
  ck_assert_int_eq(s.stages[1].kind, FS_RM_UNMERGE);
  ck_assert_int_eq(s.stages[1].g, 3);
  /* leading zeros are read and dropped by the canonical form */
  s = parse_ok("a04");
  ck_assert_str_eq(format(&s, buf, sizeof buf), "a4");
}
END_TEST

START_TEST(format_truncates_like_snprintf) {
  fs_rm_schedule s = parse_ok("m1g2a3,n1g3a2");
  char buf[8];
  memset(buf, 'x', sizeof buf);
  ck_assert_uint_eq(fs_rm_schedule_format(&s, buf, 5), 13);
  ck_assert_str_eq(buf, "m1g2");
  ck_assert_uint_eq(fs_rm_schedule_format(&s, buf, 7), 13); /* "m1g2a3" + NUL, no comma */
  ck_assert_str_eq(buf, "m1g2a3");
  ck_assert_uint_eq(fs_rm_schedule_format(&s, buf, 8), 13);
  ck_assert_str_eq(buf, "m1g2a3,");
  ck_assert_uint_eq(fs_rm_schedule_format(&s, NULL, 0), 13);
  fs_rm_schedule empty = {0};
  ck_assert_uint_eq(fs_rm_schedule_format(&empty, buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(parse_errors_name_column_and_expectation) {
  parse_bad("", "rm schedule: column 1: expected a stage (aK, cTmM, eTmM, mRgGaK or nRgGaK), "
                "found the end");
  parse_bad("x4", "rm schedule: column 1: expected a stage (aK, cTmM, eTmM, mRgGaK or nRgGaK), "
                  "found 'x'");
  parse_bad("a4,", "rm schedule: column 4: expected a stage (aK, cTmM, eTmM, mRgGaK or nRgGaK), "
                   "found the end");
  parse_bad("a4;a2", "rm schedule: column 3: expected ',' or the end, found ';'");
  parse_bad("a4, a2", "rm schedule: column 4: expected a stage (aK, cTmM, eTmM, mRgGaK or "
                      "nRgGaK), found ' '");
  parse_bad("a1", "rm schedule: column 2: expected a number of at least 2 after 'a', found '1'");
  parse_bad("a", "rm schedule: column 2: expected a number after 'a', found the end");
  parse_bad("c6m", "rm schedule: column 4: expected a number after 'm', found the end");
  parse_bad("c6m1", "rm schedule: column 4: expected a number of at least 2 after 'm', found '1'");
  parse_bad("c6a2", "rm schedule: column 3: expected 'm', found 'a'");
  parse_bad("m1a3", "rm schedule: column 3: expected 'g', found 'a'");
  parse_bad("m0g2a3", "rm schedule: column 2: expected a number of at least 1 after 'm', "
                      "found '0'");
  parse_bad("a2,n1g0a2", "rm schedule: column 7: expected a number of at least 1 after 'g', "
                         "found '0'");
  parse_bad("a1000000001", "rm schedule: column 2: expected a number of at most 1000000000, "
                           "found '1'");
  parse_bad("a-2", "rm schedule: column 2: expected a number after 'a', found '-'");
  /* 65 stages: one more than FS_RM_MAX_STAGES; stage 65 starts at column 193 */
  char text[256] = "";
  for (int i = 0; i < 65; i++) strcat(text, i ? ",a2" : "a2");
  parse_bad(text, "rm schedule: column 193: more than 64 stages");
  text[strlen(text) - 3] = '\0';
  ck_assert_int_eq(parse_ok(text).count, 64);
}
END_TEST

/* ---- ranks -------------------------------------------------------------- */

START_TEST(ranks_of_valid_schedules) {
  ck_assert_int_eq(ranks_ok("a4,a2"), 8);
  ck_assert_int_eq(ranks_ok("a7"), 7);
  /* MPICH RD for 7 = (c{2 rem}m2, a2 x 2, e{2 rem}m2), rem = 3: active 6/2 + 7 - 6 = 4 = 2*2 */
  ck_assert_int_eq(ranks_ok("c6m2,a2,a2,e6m2"), 7);
  /* Fig. 5.13: R + G*K = 1 + 2*3 = 7 = 1 + 3*2 */
  ck_assert_int_eq(ranks_ok("m1g2a3,n1g3a2"), 7);
  /* Table 5.2, N = 43 best (5,4,2)+3: core 40 = 8*5 = 20*2 */
  ck_assert_int_eq(ranks_ok("m3g8a5,a4,n3g20a2"), 43);
  /* collapse around a merge: inner 7, N = 7 + 4 - 4/2 = 9 */
  ck_assert_int_eq(ranks_ok("c4m2,m1g2a3,n1g3a2,e4m2"), 9);
  /* nested collapses: a2 covers 2; c2m2 gives 2 + 2 - 1 = 3; c4m2 gives 3 + 4 - 2 = 5 */
  ck_assert_int_eq(ranks_ok("c4m2,c2m2,a2,e2m2,e4m2"), 5);
  /* collapse with nothing inside: T/M = 1 leader, N = 1 + 2 - 1 = 2 */
  ck_assert_int_eq(ranks_ok("c2m2,e2m2"), 2);
  /* M = 3: T = 9 folds into 3 leaders; 3 + N - 9 = 4 active => N = 10 */
  ck_assert_int_eq(ranks_ok("c9m3,a4,e9m3"), 10);
  fs_rm_schedule empty = {0};
  int64_t n = -1;
  ck_assert_int_eq(fs_rm_schedule_ranks(&empty, &n, NULL), 0);
  ck_assert_int_eq(n, 1);
}
END_TEST

START_TEST(ranks_rejects_broken_structure) {
  ranks_bad("m1g3a3,n1g3a2", "rm schedule: stage 1 (m1g3a3): R + G*K = 1 + 3*3 must equal "
                             "N = R + 6 (the core's size)");
  ranks_bad("m1g2a3,n1g2a2", "rm schedule: stage 2 (n1g2a2): R + G*K = 1 + 2*2 must equal "
                             "N = R + 6 (the core's size)");
  ranks_bad("m1g3a2,n2g2a3", "rm schedule: stage 2 (n2g2a3): the inverse merge must have the "
                             "merge's R");
  ranks_bad("m1g2a3,a2", "rm schedule: stage 1 (m1g2a3): a merge needs an inverse merge "
                         "(nRgGaK) to close it");
  ranks_bad("m1g1a2", "rm schedule: stage 1 (m1g1a2): a merge needs an inverse merge (nRgGaK) "
                      "to close it");
  ranks_bad("a2,n1g1a2", "rm schedule: stage 2 (n1g1a2): an inverse merge needs a merge "
                         "(mRgGaK) to open it");
  ranks_bad("c5m2,a2,e5m2", "rm schedule: stage 1 (c5m2): T must be divisible by M");
  ranks_bad("c6m2,a2,e6m2", "rm schedule: stage 1 (c6m2): T/M = 3 leaders exceed the 2 ranks "
                            "the inner stages cover");
  ranks_bad("c6m2,a2,a2,e6m3", "rm schedule: stage 4 (e6m3): the expand must have the "
                               "collapse's T and M");
  ranks_bad("c6m2,a2,a2", "rm schedule: stage 1 (c6m2): a collapse needs an expand (eTmM) to "
                          "close it");
  ranks_bad("a2,a2,e2m2", "rm schedule: stage 3 (e2m2): an expand needs a collapse (cTmM) to "
                          "open it");
  ranks_bad("a2,m1g1a2,a2", "rm schedule: stage 2 (m1g1a2): collapse/expand must enclose "
                            "everything and merge/inverse merge everything but collapses; this "
                            "stage is out of place");
  ranks_bad("m1g2a2,c2m2,e2m2,n1g2a2", "rm schedule: stage 2 (c2m2): collapse/expand must "
                                       "enclose everything and merge/inverse merge everything "
                                       "but collapses; this stage is out of place");
  ranks_bad("a1000,a1000,a1001", "rm schedule: stage 3 (a1001): the schedule covers more than "
                                 "1e9 ranks");
}
END_TEST

/* ---- cost --------------------------------------------------------------- */

START_TEST(cost_model_in_units_of_alpha_r) {
  const double c = 2.5;
  ck_assert_double_eq(cost_of("a4,a2", c), (c + 3) + (c + 1));
  /* collapse c+1, two a2 stages c+1 each, expand c+M-1 = c+1 */
  ck_assert_double_eq(cost_of("c6m2,a2,a2,e6m2", c), 4 * c + 4);
  ck_assert_double_eq(cost_of("c9m3,a4,e9m3", c), (c + 1) + (c + 3) + (c + 2));
  /* merge c+K1 = c+3; inverse merge c+Ks-1+ceil(R/G') = c+1+ceil(1/3) = c+2 */
  ck_assert_double_eq(cost_of("m1g2a3,n1g3a2", c), 2 * c + 5);
  /* ceil(R/G') when G' divides R: c+4-1+6/3 = c+5; otherwise c+4-1+ceil(7/3) = c+6 */
  ck_assert_double_eq(cost_of("m6g4a3,n6g3a4", c), (c + 3) + (c + 5));
  ck_assert_double_eq(cost_of("m7g4a3,n7g3a4", c), (c + 3) + (c + 6));
  fs_rm_schedule empty = {0};
  ck_assert_double_eq(fs_rm_schedule_cost(&empty, c), 0);
}
END_TEST

/* ---- Lambert W and the optima ------------------------------------------- */

START_TEST(lambert_w_known_values) {
  const double ln2 = 0.6931471805599453, e = 2.718281828459045;
  ck_assert_double_eq_tol(fs_lambert_w0(1), 0.5671432904097838, 2e-16); /* omega */
  ck_assert_double_eq_tol(fs_lambert_w0(e), 1, 2e-16);
  ck_assert_double_eq_tol(fs_lambert_w0(10), 1.7455280027406994, 4e-16);
  ck_assert_double_eq_tol(fs_lambert_w0(-ln2 / 2), -ln2, 1e-15);    /* -ln2 e^{-ln2} = -ln2/2 */
  ck_assert_double_eq_tol(fs_lambert_wm1(-ln2 / 2), -2 * ln2, 1e-15); /* -2ln2 / 4 = -ln2/2 */
  ck_assert_double_eq_tol(fs_lambert_wm1(-0.1), -3.577152063957297, 1e-15);
  /* x = w e^w for chosen w: W(x) returns w (x carries one rounding, amplified
   * by |dW/dx| = |w/(x(1+w))|) */
  ck_assert_double_eq_tol(fs_lambert_wm1(-2 * exp(-2)), -2, 1e-14);
  ck_assert_double_eq_tol(fs_lambert_wm1(-10 * exp(-10)), -10, 1e-14);
  ck_assert_double_eq_tol(fs_lambert_wm1(-700 * exp(-700)), -700, 1e-12);
  ck_assert_double_eq_tol(fs_lambert_w0(10 * exp(10)), 10, 1e-14);
  ck_assert_double_eq_tol(fs_lambert_w0(700 * exp(700)), 700, 1e-12);
  ck_assert_double_eq(fs_lambert_w0(0), 0);
  ck_assert_double_eq(fs_lambert_w0(-1 / e), -1);
  ck_assert_double_eq(fs_lambert_wm1(-1 / e), -1);
  ck_assert(isnan(fs_lambert_w0(-0.5)));
  ck_assert(isnan(fs_lambert_wm1(-0.5)));
  ck_assert(isnan(fs_lambert_wm1(0)));
  ck_assert(isnan(fs_lambert_wm1(1)));
  ck_assert(isnan(fs_lambert_w0(NAN)));
}
END_TEST

/* |w e^w - x| <= 4(1+|w|) eps |x| over each branch's domain (a w within
 * about 2 ulp, and exp's error on it), and the branch's range (W0 >= -1,
 * W-1 <= -1). */
START_TEST(lambert_w_residuals) {
  for (double x = -0.3678794411714423; x < 1e300; x = x < 0 ? x * 0.9 + 1e-3 : x * 1.7 + 1e-9) {
    double w = fs_lambert_w0(x);
    ck_assert_msg(w >= -1 && fabs(w * exp(w) - x) <= 4 * (1 + fabs(w)) * DBL_EPSILON * fabs(x),
                  "W0(%g) = %.17g", x, w);
  }
  for (double x = -0.3678794411714423; x < 0; x *= 0.8) {
    double w = fs_lambert_wm1(x);
    ck_assert_msg(w <= -1 && fabs(w * exp(w) - x) <= 4 * (1 + fabs(w)) * DBL_EPSILON * fabs(x),
                  "W-1(%g) = %.17g", x, w);
    if (x > -1e-300) break;
  }
}
END_TEST

START_TEST(b_opt_and_b_upper_match_the_thesis) {
  printed(fs_rm_b_opt(0.88 / 0.38), 2.83, 0.01); /* Table 4.1's ratio, c = 2.316 */
  printed(fs_rm_b_upper(0.88 / 0.38), 8.41, 0.01);
  printed(fs_rm_b_opt(C_THESIS), 3.258, 0.001); /* Fig. 5.6's minimum */
  printed(fs_rm_b_upper(C_THESIS), 11.21, 0.01);
  ck_assert_int_eq(fs_rm_upper(C_THESIS), 12); /* "upper = 12" */
  printed(fs_rm_b_opt(5), 4.57, 0.01);
  printed(fs_rm_b_upper(5), 22.2, 0.1);
  /* defining equations: c = (b+1)ln(b+1) - b; log_{b+1} 2 = (c+1)/(c+b) */
  for (double c = 1.5; c < 40; c *= 1.3) {
    double b = fs_rm_b_opt(c), u = fs_rm_b_upper(c);
    ck_assert_double_eq_tol((b + 1) * log(b + 1) - b, c, 1e-12 * c);
    ck_assert_double_eq_tol(log(2) / log(u + 1), (c + 1) / (c + u), 1e-12);
    ck_assert(u > b && b > 1);
  }
  ck_assert_double_eq_tol(fs_rm_b_opt(1), 1.718281828459045, 1e-15); /* W0(0) = 0: e - 1 */
}
END_TEST

/* ---- Table 5.2 ---------------------------------------------------------- */

typedef struct table_row {
  int32_t n;
  const char *heuristic; /* the table's "(divisors) + merge" in stage notation */
  double efficiency;     /* percent, as printed */
  const char *best;      /* the table's "Best" */
  const char *found;     /* what fs_rm_best returns (same cost; see ties below) */
} table_row;

/* Costs at c: (11) = c+10; (3,3)+2 = (c+3)+(c+2+ceil(2/3)) = 2c+6: 11.822/12.911 = 91.6 %.
 * Ties: (5,4)+2 and (4,5)+2 both cost 2c+9, (5,6)+3 and (6,5)+3 both 2c+11,
 * (5,4,2)+3 and (4,2,5)+3 both 3c+10 (c+4, c+1, c+4+ceil(3/8)); the thesis
 * lists (5,4)+2 but (5,6)+3, so no one order reproduces its choices. The
 * search keeps the first in its order (row "found", exact) and the test
 * checks the table's "Best" has exactly the same cost. */
static const table_row TABLE_5_2[] = {
    {11, "a11", 91.6, "m2g3a3,n2g3a3", "m2g3a3,n2g3a3"},
    {19, "m1g3a6,n1g6a3", 93.3, "m3g4a4,n3g4a4", "m3g4a4,n3g4a4"},
    {22, "a11,a2", 88.1, "m2g4a5,n2g5a4", "m2g5a4,n2g4a5"},
    {23, "m1g2a11,n1g11a2", 78.7, "m3g4a5,n3g5a4", "m3g5a4,n3g4a5"},
    {29, "m1g7a4,n1g4a7", 94.1, "m4g5a5,n4g5a5", "m4g5a5,n4g5a5"},
    {33, "a3,a11", 94.4, "m3g6a5,n3g5a6", "m3g6a5,n3g5a6"},
    {34, "m1g11a3,n1g3a11", 84.9, "m4g5a6,n4g6a5", "m4g6a5,n4g5a6"},
    {41, "m1g10a4,a5,n1g20a2", 95.1, "m5g6a6,n5g6a6", "m5g6a6,n5g6a6"},
    {43, "m1g7a6,n1g6a7", 99.5, "m3g8a5,a4,n3g20a2", "m3g10a4,a2,n3g8a5"},
    /* The thesis prints 95.5 for N = 44; (4,11) costs 2c+13 = 18.822 and
     * (5,4,2)+4 costs (c+5)+(c+3)+(c+1+ceil(4/20)) = 3c+10 = 18.733, so
     * 99.5 % -- the printed 95.5 is a typo (digits swapped). */
    {44, "a4,a11", 99.5, "m4g8a5,a4,n4g20a2", "m4g8a5,a2,n4g10a4"},
};

START_TEST(heuristic_reproduces_table_5_2) {
  const table_row *row = &TABLE_5_2[_i];
  fs_rm_schedule s;
  fs_error err = {{0}};
  char buf[128];
  ck_assert_int_eq(fs_rm_heuristic(row->n, C_THESIS, fs_rm_upper(C_THESIS), 1, &s, &err), 0);
  ck_assert_str_eq(format(&s, buf, sizeof buf), row->heuristic);
  int64_t n = 0;
  ck_assert_int_eq(fs_rm_schedule_ranks(&s, &n, &err), 0);
  ck_assert_int_eq(n, row->n);
}
END_TEST

START_TEST(best_reproduces_table_5_2) {
  const table_row *row = &TABLE_5_2[_i];
  fs_rm_schedule best, listed = parse_ok(row->best), heuristic = parse_ok(row->heuristic);
  fs_error err = {{0}};
  char buf[128];
  ck_assert_int_eq(fs_rm_best(row->n, C_THESIS, &best, &err), 0);
  ck_assert_str_eq(format(&best, buf, sizeof buf), row->found);
  int64_t n = 0;
  ck_assert_int_eq(fs_rm_schedule_ranks(&best, &n, &err), 0);
  ck_assert_int_eq(n, row->n);
  ck_assert_int_eq(fs_rm_schedule_ranks(&listed, &n, &err), 0);
  ck_assert_int_eq(n, row->n);
  double t_best = fs_rm_schedule_cost(&best, C_THESIS);
  ck_assert_double_eq(t_best, fs_rm_schedule_cost(&listed, C_THESIS));
  double percent = 100 * t_best / fs_rm_schedule_cost(&heuristic, C_THESIS);
  ck_assert_msg(fabs(percent - row->efficiency) <= 0.05, "N=%d: %.3f %% not %.1f %%",
                (int)row->n, percent, row->efficiency);
}
END_TEST

START_TEST(heuristic_orders_and_edges) {
  fs_rm_schedule s;
  fs_error err = {{0}};
  char buf[128];
  /* sorted order for c = 2.911 is 4,5,6,3,7,...,12,2 (key (c+d-1)/ln d) */
  ck_assert_int_eq(fs_rm_heuristic(8, C_THESIS, 12, 1, &s, &err), 0);
  ck_assert_str_eq(format(&s, buf, sizeof buf), "a4,a2");
  ck_assert_int_eq(fs_rm_heuristic(16, C_THESIS, 12, 1, &s, &err), 0);
  ck_assert_str_eq(format(&s, buf, sizeof buf), "a4,a4");
  ck_assert_int_eq(fs_rm_heuristic(18, C_THESIS, 12, 1, &s, &err), 0);
  ck_assert_str_eq(format(&s, buf, sizeof buf), "a6,a3"); /* 4,5 fail; 6 then 3 */
  /* unsorted: 12..2 */
  ck_assert_int_eq(fs_rm_heuristic(8, C_THESIS, 12, 0, &s, &err), 0);
  ck_assert_str_eq(format(&s, buf, sizeof buf), "a8");
  ck_assert_int_eq(fs_rm_heuristic(19, C_THESIS, 12, 0, &s, &err), 0);
  ck_assert_str_eq(format(&s, buf, sizeof buf), "m1g2a9,n1g9a2"); /* 18 = 9*2 */
  ck_assert_int_eq(fs_rm_heuristic(1, C_THESIS, 12, 1, &s, &err), 0);
  ck_assert_int_eq(s.count, 0);
  /* upper = 2 is RD with merging: 7 -> 4 = (2,2)+3 */
  ck_assert_int_eq(fs_rm_heuristic(7, C_THESIS, 2, 1, &s, &err), 0);
  ck_assert_str_eq(format(&s, buf, sizeof buf), "m3g2a2,n3g2a2");
  /* 3 -> (2)+1: one core factor cannot carry a merge */
  ck_assert_int_eq(fs_rm_heuristic(3, C_THESIS, 2, 1, &s, &err), -1);
  ck_assert_str_eq(err.message, "rm schedule: merging 1 remainders needs at least two core "
                                "factors, not 1");
  ck_assert_int_eq(fs_rm_heuristic(8, C_THESIS, 1, 1, &s, &err), -1);
  ck_assert_str_eq(err.message, "rm heuristic: upper must be in [2, 4096], not 1");
  ck_assert_int_eq(fs_rm_heuristic(0, C_THESIS, 12, 1, &s, &err), -1);
  ck_assert_str_eq(err.message, "rm heuristic: ranks must be in [1, 1e9], not 0");
}
END_TEST

START_TEST(best_edges_and_consistency) {
  fs_rm_schedule s, h;
  fs_error err = {{0}};
  char buf[128];
  ck_assert_int_eq(fs_rm_best(1, C_THESIS, &s, &err), 0);
  ck_assert_int_eq(s.count, 0);
  ck_assert_int_eq(fs_rm_best(2, C_THESIS, &s, &err), 0);
  ck_assert_str_eq(format(&s, buf, sizeof buf), "a2");
  /* 16: (4,4) = 2c+6 = 11.822 beats (16) = c+15 and (2,2,2,2) = 4c+4 = 15.644 */
  ck_assert_int_eq(fs_rm_best(16, C_THESIS, &s, &err), 0);
  ck_assert_str_eq(format(&s, buf, sizeof buf), "a4,a4");
  /* the best never costs more than the heuristic (same search space up to R < K1) */
  for (int32_t n = 2; n <= 200; n++) {
    ck_assert_int_eq(fs_rm_best(n, C_THESIS, &s, &err), 0);
    int64_t covered = 0;
    ck_assert_int_eq(fs_rm_schedule_ranks(&s, &covered, &err), 0);
    ck_assert_int_eq(covered, n);
    if (fs_rm_heuristic(n, C_THESIS, 12, 1, &h, &err) == 0 && h.count > 0 &&
        (h.stages[0].kind != FS_RM_MERGE || h.stages[0].r < h.stages[0].k))
      ck_assert(fs_rm_schedule_cost(&s, C_THESIS) <= fs_rm_schedule_cost(&h, C_THESIS));
  }
  ck_assert_int_eq(fs_rm_best(65537, C_THESIS, &s, &err), -1);
  ck_assert_str_eq(err.message, "rm best: ranks must be in [1, 65536], not 65537");
}
END_TEST

static Suite *rm_schedule_suite(void) {
  Suite *s = suite_create("rm_schedule");
  TCase *notation = tcase_create("notation");
  tcase_add_test(notation, parse_and_format_round_trip);
  tcase_add_test(notation, format_truncates_like_snprintf);
  tcase_add_test(notation, parse_errors_name_column_and_expectation);
  tcase_add_test(notation, ranks_of_valid_schedules);
  tcase_add_test(notation, ranks_rejects_broken_structure);
  tcase_add_test(notation, cost_model_in_units_of_alpha_r);
  suite_add_tcase(s, notation);
  TCase *lambert = tcase_create("lambert");
  tcase_add_test(lambert, lambert_w_known_values);
  tcase_add_test(lambert, lambert_w_residuals);
  tcase_add_test(lambert, b_opt_and_b_upper_match_the_thesis);
  suite_add_tcase(s, lambert);
  TCase *table = tcase_create("table_5_2");
  int rows = (int)(sizeof TABLE_5_2 / sizeof TABLE_5_2[0]);
  tcase_add_loop_test(table, heuristic_reproduces_table_5_2, 0, rows);
  tcase_add_loop_test(table, best_reproduces_table_5_2, 0, rows);
  tcase_add_test(table, heuristic_orders_and_edges);
  tcase_add_test(table, best_edges_and_consistency);
  suite_add_tcase(s, table);
  return s;
}

int main(void) { return fs_test_run(rm_schedule_suite()); }
