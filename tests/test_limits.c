/* test_limits.c: hostile inputs at the limits of the whole program (docs/MODELS.md,
 * "Limits"): times and sizes near 2^63 are either refused by their reader
 * (exit status 2, FILE:LINE:COLUMN or the option, and the limit) or
 * simulated with every time saturated at FS_TIME_LIMIT = 2^62 ps =
 * 4611686018427387.904 ns; no input reaches a signed overflow (the
 * sanitizer build runs this suite). */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "fit/fit.h"
#include "test_support.h"

#define LIMIT_NS "4611686018427387.904"
#define SATURATED "makespan   4.61169e+06 s (" LIMIT_NS " ns)\n"
#define NOTE                                                                              \
  "fennelsim: note: simulated time reached the limit, 4611686018427387.904ns (2^62 ps); " \
  "times past it are held at it\n"

/* A temporary file holding text; the caller frees the path. */
static char *temp_file(const char *suffix, const char *text) {
  char *path = fs_test_temp_path(suffix);
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

/* stderr is exactly "fennelsim: " + the message built from format. */
static void assert_error(const char *err, const char *format, ...) {
  char want[2048];
  va_list args;
  va_start(args, format);
  vsnprintf(want, sizeof want, format, args);
  va_end(args);
  ck_assert_str_eq(err, want);
}

/* A put, a get, a send and its recv, of the largest size (2^62 B), and a
 * compute of the longest time (2^62 ps) after the send. */
static const char *const LARGEST = "fennel-dag 1\nranks 2\n"
                                   "t0 put 0 to=1 size=4611686018427387904B\n"
                                   "t1 get 1 from=0 size=4611686018427387904B after=t0\n"
                                   "t2 send 0 to=1 size=4611686018427387904B after=t0\n"
                                   "t3 recv 1 from=0 size=4611686018427387904B after=t1\n"
                                   "t4 compute 0 time=4611686018427387904ps after=t2\n";

/* Every network model with its largest parameters (2^62 ps, 2^62 as/B)
 * and the largest sizes: every rank's finish is the limit (each transfer
 * alone costs at least 2^62 B * 1 ps/B... or its parameters' 2^62 ps, so
 * each sum saturates), exit status 0, and a note on stderr. */
START_TEST(every_model_saturates) {
  const char *max_time = "4611686018427387904ps", *max_per_byte = "4611.686018427387904ns";
  char pair[512], lmo[512], table[256];
  snprintf(pair, sizeof pair, "ranks 2\ndefault alpha=%s beta=%s\n", max_time, max_per_byte);
  snprintf(lmo, sizeof lmo,
           "ranks 2\nrank 0 C=%s t=%s\nrank 1 C=%s t=%s\nlink 0 1 L=%s invbeta=%s\n", max_time,
           max_per_byte, max_time, max_per_byte, max_time, max_per_byte);
  snprintf(table, sizeof table, "0B %s %s\n4611686018427387904B %s 0ps\n", max_time, max_time,
           max_time);
  char *dag = temp_file(".dag", LARGEST), *pair_file = temp_file(".txt", pair);
  char *lmo_file = temp_file(".txt", lmo), *table_file = temp_file(".table", table);
  char one_column[256];
  snprintf(one_column, sizeof one_column, "0B %s\n1B %s\n", max_time, max_time);
  char *column_file = temp_file(".table", one_column);
  char models[9][768];
  snprintf(models[0], sizeof models[0], "hockney --param alpha=%s --param beta=%s", max_time,
           max_per_byte);
  snprintf(models[1], sizeof models[1], "hockney"); /* 2^62 B at 10.2 GB/s: 4.5e20 ps */
  snprintf(models[2], sizeof models[2],
           "pipelined --param alpha_p=%s --param alpha_r=%s "
           "--param beta=%s",
           max_time, max_time, max_per_byte);
  snprintf(models[3], sizeof models[3], "pipelined --param table=%s", table_file);
  snprintf(models[4], sizeof models[4],
           "loggops --param L=%s --param o=%s --param g=%s "
           "--param G=%s --param O=%s --param S=4611686018427387904B",
           max_time, max_time, max_time, max_per_byte, max_per_byte);
  snprintf(models[5], sizeof models[5], "hetero-hockney --param file=%s", pair_file);
  snprintf(models[6], sizeof models[6], "lmo --param file=%s", lmo_file);
  snprintf(models[7], sizeof models[7], "lognp --param mw_table=%s --param net_table=%s",
           column_file, column_file);
  snprintf(models[8], sizeof models[8],
           "taulop --param shm_table=%s --param net_table=%s "
           "--param nodes=2 --param shm_o=%s --param net_o=%s --param net_o_protocol=%s",
           table_file, table_file, max_time, max_time, max_time);
  for (int i = 0; i < 9; i++) {
    char *out = NULL, *err = NULL;
    ck_assert_msg(fs_test_fennelsimf(&out, &err, "run %s --model %s", dag, models[i]) == 0,
                  "%s: %s", models[i], err);
    ck_assert_msg(strstr(out, SATURATED) != NULL, "%s: %s", models[i], out);
    ck_assert_msg(strstr(out, "finish ns  0:" LIMIT_NS " 1:" LIMIT_NS "\n") != NULL, "%s: %s",
                  models[i], out);
    ck_assert_str_eq(err, NOTE);
    free(out), free(err);
  }
  /* the gamma compute model with the same table: a compute of 2^62 B */
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --compute gamma --param gamma_table=%s",
                                      dag, table_file),
                   0);
  ck_assert_ptr_nonnull(strstr(out, SATURATED));
  free(out), free(err);
  remove(dag), remove(pair_file), remove(lmo_file), remove(table_file), remove(column_file);
  free(dag), free(pair_file), free(lmo_file), free(table_file), free(column_file);
}
END_TEST

/* One put of 2^62 B, defaults: LogGOPS frees the CPU after o = 1500 ns,
 * the data lands after o + L + (2^62 - 1) * 6 ps: saturated. Hockney holds
 * the sender until the data lands: both ranks at the limit. */
START_TEST(put_of_the_largest_size) {
  char *dag = temp_file(".dag", "fennel-dag 1\nranks 2\nt0 put 0 to=1 size=4611686018427387904B\n");
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model loggops", dag), 0);
  ck_assert_ptr_nonnull(strstr(out, "finish ns  0:1500 1:" LIMIT_NS "\n"));
  ck_assert_str_eq(err, NOTE);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model hockney", dag), 0);
  ck_assert_ptr_nonnull(strstr(out, "finish ns  0:" LIMIT_NS " 1:" LIMIT_NS "\n"));
  free(out), free(err);
  remove(dag), free(dag);
}
END_TEST

/* Sizes past 2^62 B: refused where they are read, exit status 2. */
START_TEST(sizes_past_the_limit) {
  char *dag = temp_file(".dag", "fennel-dag 1\nranks 2\nt0 put 0 to=1 size=9223372036854775807B\n");
  char *goal = temp_file(".goal", "num_ranks 2\nrank 0 {\nsend 4611686018427387905b to 1\n}\n"
                                  "rank 1 {\nrecv 8b from 0\n}\n");
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s", dag), 2);
  assert_error(err,
               "fennelsim: %s:3:20: expected a size up to 4611686018427387904 B (2^62) "
               "(got '9223372036854775807B')\n",
               dag);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s", goal), 2);
  assert_error(err,
               "fennelsim: %s:3:6: expected a message size in bytes, from 0 to "
               "4611686018427387904 (2^62, the limit) (got '4611686018427387905b')\n",
               goal);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "gen bcast-binomial --ranks 4 --size 9223372036854775807B"),
                   2);
  ck_assert_str_eq(err, "fennelsim gen: --size 9223372036854775807B: expected a size up to "
                        "4611686018427387904 B (2^62)\n");
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model loggops --param S=8388608TiB",
                                      dag),
                   2);
  ck_assert_str_eq(err, "fennelsim: --param S=8388608TiB: expected a size in bytes up to "
                        "4611686018427387904 B (2^62) (the rendezvous threshold)\n");
  free(out), free(err);
  /* generated messages of several blocks: 3 x 2^61 B is past the limit
   * (it used to be written, and read back by no reader); allgather-rd's
   * last round on 4 ranks is 2 x --size: 2^62 B is the largest */
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "gen scatter-linear --ranks 3 --size 2305843009213693952B"),
                   2);
  ck_assert_str_eq(err,
                   "fennelsim gen: scatter-linear: 3 blocks of --size 2305843009213693952 bytes "
                   "are too large (the limit is 4611686018427387904 B (2^62))\n");
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "gen allgather-rd --ranks 4 --size 2305843009213693953B"),
                   2);
  ck_assert_str_eq(err, "fennelsim gen: allgather-rd: the last round's message, 4/2 x --size "
                        "2305843009213693953 bytes, is too large (the limit is "
                        "4611686018427387904 B (2^62))\n");
  free(out), free(err);
  char *generated = fs_test_temp_path(".dag");
  ck_assert_int_eq(
      fs_test_fennelsimf(&out, &err, "gen allgather-rd --ranks 4 --size 2305843009213693952B -o %s",
                         generated),
      0);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model loggops", generated), 0);
  ck_assert_ptr_nonnull(strstr(out, SATURATED));
  free(out), free(err);
  remove(generated), free(generated);
  remove(dag), remove(goal), free(dag), free(goal);
}
END_TEST

/* Compute times: 2^62 ps is read, one ps more is refused; a chain of two
 * computes of 2^62 ps (GOAL: 4611686018427387 ns each, 2^62 ps rounded
 * down to whole ns) ends at the limit. */
START_TEST(compute_times) {
  char *dag = temp_file(".dag", "fennel-dag 1\nranks 1\nt0 compute 0 time=4611686018427387904ps\n"
                                "t1 compute 0 time=4611686018427387904ps after=t0\n");
  char *past =
      temp_file(".dag", "fennel-dag 1\nranks 1\nt0 compute 0 time=4611686018427387905ps\n");
  char *goal = temp_file(".goal", "num_ranks 1\nrank 0 {\na: calc 4611686018427387\n"
                                  "b: calc 4611686018427387\nb requires a\n}\n");
  char *goal_past = temp_file(".goal", "num_ranks 1\nrank 0 {\ncalc 4611686018427388\n}\n");
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s", dag), 0);
  ck_assert_ptr_nonnull(strstr(out, SATURATED));
  ck_assert_str_eq(err, NOTE);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model loggops", goal), 0);
  ck_assert_ptr_nonnull(strstr(out, SATURATED));
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s", past), 2);
  assert_error(err,
               "fennelsim: %s:3:19: expected a time up to 4611686018427387.904ns (2^62 ps) "
               "(got '4611686018427387905ps')\n",
               past);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s", goal_past), 2);
  assert_error(err,
               "fennelsim: %s:3:6: expected a calc time in ns, from 0 to 4611686018427387 "
               "(the limit, 2^62 ps) (got '4611686018427388')\n",
               goal_past);
  free(out), free(err);
  remove(dag), remove(past), remove(goal), remove(goal_past);
  free(dag), free(past), free(goal), free(goal_past);
}
END_TEST

/* Model parameters, table rows and rank-pair values past the limits. */
START_TEST(parameters_past_the_limit) {
  char *dag = temp_file(".dag", "fennel-dag 1\nranks 2\nt0 put 0 to=1 size=8B\n");
  char *table = temp_file(".table", "8B 1us 4611686018427387905ps\n");
  char *sizes = temp_file(".table", "4611686018427387905B 1us 1us\n");
  char *pairs = temp_file(".txt", "ranks 2\ndefault alpha=1us beta=4.611687s\n");
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "run %s --model hockney --param alpha=4611686018427387905ps",
                                      dag),
                   2);
  ck_assert_str_eq(err, "fennelsim: --param alpha=4611686018427387905ps: expected a time within "
                        "the limit of 4611686018427387.904ns (2^62 ps)\n");
  free(out), free(err);
  ck_assert_int_eq(
      fs_test_fennelsimf(&out, &err,
                         "run %s --model pipelined --param alpha_p=-9223372036854775808ps", dag),
      2);
  ck_assert_str_eq(err, "fennelsim: --param alpha_p=-9223372036854775808ps: expected a time within "
                        "the limit of +-4611686018427387.904ns (2^62 ps)\n");
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model hockney --param beta=0.2B/s",
                                      dag),
                   2);
  ck_assert_str_eq(err, "fennelsim: --param beta=0.2B/s: expected a time per byte up to "
                        "4611.686018427387904ns per byte (2^62 as)\n");
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model pipelined --param table=%s", dag,
                                      table),
                   2);
  assert_error(err,
               "fennelsim: %s:1:8: expected a time within the limit of "
               "+-4611686018427387.904ns (2^62 ps)\n",
               table);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model pipelined --param table=%s", dag,
                                      sizes),
                   2);
  assert_error(err,
               "fennelsim: %s:1:1: expected a message size up to 4611686018427387904 B "
               "(2^62)\n",
               sizes);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model hetero-hockney --param file=%s",
                                      dag, pairs),
                   2);
  assert_error(err,
               "fennelsim: %s:2:24: expected a value for beta up to 4611.686018427387904ns "
               "per byte (2^62 as)\n",
               pairs);
  free(out), free(err);
  remove(dag), remove(table), remove(sizes), remove(pairs);
  free(dag), free(table), free(sizes), free(pairs);
}
END_TEST

/* taulop copies a same-node message in segments, each one simulated: a
 * message of more than 2^24 segments fails the run with a clear message
 * (2^62 B in the default 8 KiB segments is 2^49). A negative table value
 * costs nothing (it used to post a completion in the past). */
START_TEST(taulop_segments_and_negative_costs) {
  char *dag = temp_file(".dag", "fennel-dag 1\nranks 2\nt0 put 0 to=1 size=4611686018427387904B\n");
  char *table = temp_file(".table", "0B 1us 1us\n1KiB -4611686018427387904ps "
                                    "-4611686018427387904ps\n");
  char *small = temp_file(".dag", "fennel-dag 1\nranks 2\nt0 put 0 to=1 size=2KiB\n"
                                  "t1 put 1 to=0 size=2KiB\n");
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "run %s --model taulop --param shm_table=%s --param "
                                      "net_table=%s",
                                      dag, table, table),
                   1);
  ck_assert_str_eq(err, "fennelsim: simulation failed at 0 ps: taulop simulates at most 16777216 "
                        "segments of a same-node message (raise --param segment=)\n");
  free(out), free(err);
  /* 2 KiB on one node, alone then both at once: the table extrapolates
   * below 0 there, which costs nothing; only o (0) remains */
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "run %s --model taulop --param shm_table=%s --param "
                                      "net_table=%s",
                                      small, table, table),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "finish ns  0:0 1:0\n"));
  free(out), free(err);
  remove(dag), remove(table), remove(small), free(dag), free(table), free(small);
}
END_TEST

/* The SVG timeline of a saturated run: its axis reaches the limit with
 * steps of 10^18 ps (the smallest 1, 2, 5 x 10^k above 2^62 / 8), no
 * overflow on the way. */
START_TEST(svg_axis_at_the_limit) {
  char *dag = temp_file(".dag", "fennel-dag 1\nranks 1\nt0 compute 0 time=4611686018427387904ps\n");
  char *svg = fs_test_temp_path(".svg");
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --svg %s", dag, svg), 0);
  char *text = fs_test_read_file(svg, NULL);
  ck_assert_ptr_nonnull(text);
  /* ticks in s: 0, 1e6, ... 5e6 (axis end 5 * 10^18 ps) */
  ck_assert_ptr_nonnull(strstr(text, ">5e+06</text>"));
  ck_assert_ptr_null(strstr(text, ">6e+06</text>"));
  free(text), free(out), free(err);
  remove(dag), remove(svg), free(dag), free(svg);
}
END_TEST

/* The bandwidth view's byte totals: the put, the get and the send of
 * 2^62 B each are 3 * 2^62 B > 2^63 - 1, held at 2^63 - 1 (they used to
 * overflow); their durations' sum saturates like every time. */
START_TEST(bandwidth_totals_saturate) {
  char *dag = temp_file(".dag", LARGEST);
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model hockney --bandwidth", dag), 0);
  ck_assert_ptr_nonnull(
      strstr(out, "bandwidth  3 transfers, 9223372036854775807 bytes in " LIMIT_NS " ns"));
  ck_assert_ptr_nonnull(strstr(out, "  0->1      9223372036854775807         3  " LIMIT_NS));
  free(out), free(err);
  remove(dag), free(dag);
}
END_TEST

/* The critical path of a put priced at alpha = 2^62 ps and 2^62 B *
 * 2^62 as/B: the price's latency + size part (2^63 ps) saturates instead
 * of overflowing; the path is the put alone, the whole of it latency
 * (the latency fills the span first). */
START_TEST(critical_path_at_the_limit) {
  char *dag = temp_file(".dag", LARGEST);
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "run %s --model hockney --param alpha=4611686018427387904ps "
                                      "--param beta=4611.686018427387904ns --critical-path",
                                      dag),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "critical path  " LIMIT_NS " ns in 1 steps\n"));
  ck_assert_ptr_nonnull(strstr(out, "  latency     " LIMIT_NS " ns (100.00%)\n"));
  free(out), free(err);
  remove(dag), free(dag);
}
END_TEST

/* A fit's rounding saturates at the limit, so that what it writes reads
 * back: 1e300 ps -> 2^62 ps, -1e300 -> -2^62, NaN -> 0. */
START_TEST(fit_rounding_saturates) {
  ck_assert_int_eq(fs_fit_round_time(1e300), FS_TIME_LIMIT);
  ck_assert_int_eq(fs_fit_round_time(-1e300), -FS_TIME_LIMIT);
  ck_assert_int_eq(fs_fit_round_time(4611686018427387904.0), FS_TIME_LIMIT);
  ck_assert_int_eq(fs_fit_round_time(1500.5), 1501);
  ck_assert_int_eq(fs_fit_round_time(0.0 / 0.0), 0);
}
END_TEST

/* Fits of probe data at the limits: roundtrips of up to 10^18 - 1 B (the
 * probe reader's largest) taking 2^62 ps. The fitted models' estimates of
 * those rows (2 * (alpha + beta * m) and the like) saturate instead of
 * overflowing, what a fit writes reads back, and a run with it saturates. */
START_TEST(fits_at_the_limit) {
  char *csv = temp_file(
      ".csv",
      "# fennelprobe 1 ranks=2 nodes=1 cores=2 host=h date=2026-11-26T09:04:05Z\n"
      "# node 0 host=h ranks=0-1\n"
      "experiment,placement,bytes,reply_bytes,stride,block,count,rank_a,rank_b,rank_c,repetitions,"
      "min_ns,median_ns,mean_ns,ci95_ns\n"
      "roundtrip,shm,0,0,0,0,1,0,1,-1,5,2000.0,2000.0,2000.0,0.0\n"
      "roundtrip,shm,8,8,0,0,1,0,1,-1,5,2000.0,2000.0,2000.0,0.0\n"
      "roundtrip,shm,999999999999999999,999999999999999999,0,0,1,0,1,-1,5,4611686018427387.904,"
      "4611686018427387.904,4611686018427387.904,0.0\n");
  char *dag = temp_file(".dag", "fennel-dag 1\nranks 2\nt0 put 0 to=1 size=999999999999999999B\n");
  const char *models[] = {"hockney", "hetero-hockney", "lmo"};
  for (int i = 0; i < 3; i++) {
    char *fitted = fs_test_temp_path(".xml"), *out = NULL, *err = NULL;
    ck_assert_msg(fs_test_fennelsimf(&out, &err, "fit %s --model %s -o %s", csv, models[i],
                                     fitted) == 0,
                  "%s: %s", models[i], err);
    free(out), free(err);
    ck_assert_msg(fs_test_fennelsimf(&out, &err, "run %s --model %s", dag, fitted) == 0, "%s: %s",
                  models[i], err);
    free(out), free(err);
    remove(fitted), free(fitted);
  }
  remove(csv), remove(dag), free(csv), free(dag);
}
END_TEST

/* A noise detour that ends past the limit is refused at its line. */
START_TEST(detour_past_the_limit) {
  char *dag = temp_file(".dag", "fennel-dag 1\nranks 1\nt0 compute 0 time=1us\n");
  char *detours = temp_file(".txt", "0ns 1ns\n1ps 4611686018427387904ps\n");
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --noise-trace %s", dag, detours), 2);
  assert_error(err,
               "fennelsim: %s:2:5: expected a detour ending by the limit, "
               "4611686018427387.904ns (2^62 ps)\n",
               detours);
  free(out), free(err);
  remove(dag), remove(detours), free(dag), free(detours);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("limits");
  TCase *limits = tcase_create("limits");
  tcase_add_test(limits, every_model_saturates);
  tcase_add_test(limits, put_of_the_largest_size);
  tcase_add_test(limits, sizes_past_the_limit);
  tcase_add_test(limits, compute_times);
  tcase_add_test(limits, parameters_past_the_limit);
  tcase_add_test(limits, taulop_segments_and_negative_costs);
  tcase_add_test(limits, svg_axis_at_the_limit);
  tcase_add_test(limits, bandwidth_totals_saturate);
  tcase_add_test(limits, critical_path_at_the_limit);
  tcase_add_test(limits, fit_rounding_saturates);
  tcase_add_test(limits, detour_past_the_limit);
  tcase_add_test(limits, fits_at_the_limit);
  suite_add_tcase(s, limits);
  return s;
}

int main(void) { return fs_test_run(suite()); }
