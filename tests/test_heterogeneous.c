/* test_heterogeneous.c: the rank-pair parameter file and the models built
 * on it, hetero-hockney and lmo (src/models/hetero_hockney.c, lmo.c),
 * against times derived by hand below from their formulas:
 *   hetero-hockney: i->j of M bytes takes alpha_ij + beta_ij*M, the sender
 *     busy until arrival; a get by i from j: alpha_ij + alpha_ji + beta_ji*M;
 *   lmo: sender CPU C_i + M*t_i, wire L_ij + M*invbeta_ij, receiver
 *     C_j + M*t_j. Times in ns unless said. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/engine.h"
#include "io/text_input.h"
#include "models/rank_pair_table.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000

static int32_t op(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer, int64_t size) {
  int32_t t = fs_program_add(p, kind, rank);
  ck_assert_int_ge(t, 0);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, size);
  return t;
}
static void requires(fs_program *p, int32_t task, int32_t on) {
  ck_assert_int_eq(fs_program_depend(p, task, on, FS_AFTER_END), 0);
}
/* A temporary parameter file holding text; returns "file=PATH extra". */
static char *params_for(const char *text, const char *extra) {
  char *path = fs_test_temp_path(".pairs");
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  char *params = malloc(strlen(path) + 200);
  sprintf(params, "file=%s%s%s", path, extra ? " " : "", extra ? extra : "");
  free(path);
  return params;
}

/* Runs p under model with the file text; checks each rank's finish (ns). */
static void expect_finish(const fs_program *p, const char *model, const char *text,
                          const char *extra, const fs_time *expected_ns) {
  char *params = params_for(text, extra);
  fs_simulation run;
  fs_test_simulate(&run, p, model, "fixed", params);
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  for (int32_t r = 0; r < p->ranks; r++)
    ck_assert_msg(fs_engine_finish_times(run.engine)[r] == expected_ns[r] * NS,
                  "%s rank %d: %lld ps, expected %lld ns", model, r,
                  (long long)fs_engine_finish_times(run.engine)[r], (long long)expected_ns[r]);
  fs_test_run_free(&run);
  free(params);
}

#define ASYMMETRIC                                         \
  "ranks 2\n"                                              \
  "link 0 1 alpha=1us beta=1ns directed  # fast way out\n" \
  "link 1 0 alpha=3us beta=2GB/s directed\n"

/* Ping-pong of 100 B with send/recv over asymmetric links:
 * 0->1: 1000 + 100*1 = 1100; 1 replies at 1100: 3000 + 100*0.5 = 3050,
 * landing at 4150; both senders are busy until their message lands. */
START_TEST(hockney_pingpong_asymmetric) {
  fs_program *p = fs_program_new(2);
  int32_t s0 = op(p, FS_SEND, 0, 1, 100);
  int32_t r1 = op(p, FS_RECV, 1, 0, 100);
  requires(p, op(p, FS_SEND, 1, 0, 100), r1);
  requires(p, op(p, FS_RECV, 0, 1, 100), s0);
  fs_test_finalize(p);
  const fs_time expected[] = {4150, 4150};
  expect_finish(p, "hetero-hockney", ASYMMETRIC, NULL, expected);
  fs_program_free(p);
}
END_TEST

/* The same with puts: 1 puts back after 0's put lands: 1100 + 3050.
 * A get of 100 B by 0 from 1: request alpha_01 = 1000, data alpha_10 +
 * beta_10*100 = 3050: 4050. */
START_TEST(hockney_put_and_get) {
  fs_program *p = fs_program_new(2);
  requires(p, op(p, FS_PUT, 1, 0, 100), op(p, FS_PUT, 0, 1, 100));
  fs_test_finalize(p);
  const fs_time expected[] = {4150, 4150};
  expect_finish(p, "hetero-hockney", ASYMMETRIC, NULL, expected);
  fs_program_free(p);
  p = fs_program_new(2);
  op(p, FS_GET, 0, 1, 100);
  fs_test_finalize(p);
  const fs_time get[] = {4050, 0};
  expect_finish(p, "hetero-hockney", ASYMMETRIC, NULL, get);
  fs_program_free(p);
}
END_TEST

/* Linear scatter of 1000 B from root 0 to 1, 2, 3 (puts back to back):
 * sequential formula sum_i (alpha_0i + beta_0i*M) = (1000 + 1000) +
 * (2000 + 500) + (500 + 2000) = 7000; ranks 1..3 get their data at 2000,
 * 4500, 7000. The default covers the links the scatter does not use. */
START_TEST(hockney_linear_scatter) {
  fs_program *p = fs_program_new(4);
  for (int32_t i = 1; i < 4; i++) op(p, FS_PUT, 0, i, 1000);
  fs_test_finalize(p);
  const char *text = "ranks 4\ndefault alpha=10us beta=0\n"
                     "link 0 1 alpha=1us beta=1ns\nlink 0 2 alpha=2us beta=0.5ns\n"
                     "link 0 3 alpha=500ns beta=2ns\n";
  const fs_time expected[] = {7000, 2000, 4500, 7000};
  expect_finish(p, "hetero-hockney", text, NULL, expected);
  fs_program_free(p);
}
END_TEST

/* Binomial scatter on 4 ranks, M = 1000 B: 0 puts 2M to 2,
 * then M to 1; 2 forwards M to 3 once its data lands:
 * T = alpha_02 + 2M*beta_02 + max(alpha_01 + M*beta_01, alpha_23 + M*beta_23).
 * alpha_02 1us, beta_02 1ns: 3000. Then 0->1 (5us, 1ns) = 6000 against
 * 2->3 (1us, 1ns) = 2000: 9000; with alpha_23 = 7us, 2->3 = 8000: 11000. */
START_TEST(hockney_binomial_max) {
  fs_program *p = fs_program_new(4);
  int32_t to2 = op(p, FS_PUT, 0, 2, 2000);
  op(p, FS_PUT, 0, 1, 1000);
  requires(p, op(p, FS_PUT, 2, 3, 1000), to2);
  fs_test_finalize(p);
  const char *base = "ranks 4\ndefault alpha=1us beta=1ns\nlink 0 1 alpha=5us\n";
  char text[200];
  char *params = params_for(base, NULL);
  ck_assert_int_eq(fs_test_makespan(p, "hetero-hockney", "fixed", params), 9000 * NS);
  free(params);
  snprintf(text, sizeof text, "%slink 2 3 alpha=7us\n", base);
  params = params_for(text, NULL);
  ck_assert_int_eq(fs_test_makespan(p, "hetero-hockney", "fixed", params), 11000 * NS);
  free(params);
  fs_program_free(p);
}
END_TEST

#define LMO_PAIR           \
  "ranks 2\n"              \
  "rank 0 C=1us t=1ns\n"   \
  "rank 1 C=2us t=0.5ns\n" \
  "link 0 1 L=3us invbeta=4GB/s\n"

/* LMO p2p of 1000 B, send/recv: sender CPU 1000 + 1000 = 2000; wire
 * 3000 + 250 = 3250; receiver CPU 2000 + 500 = 2500:
 * C_0 + L_01 + C_1 + M(t_0 + invbeta_01 + t_1) = 6000 + 1750 = 7750. */
START_TEST(lmo_point_to_point) {
  fs_program *p = fs_program_new(2);
  op(p, FS_SEND, 0, 1, 1000);
  op(p, FS_RECV, 1, 0, 1000);
  fs_test_finalize(p);
  const fs_time expected[] = {2000, 7750};
  expect_finish(p, "lmo", LMO_PAIR, NULL, expected);
  fs_program_free(p);
}
END_TEST

/* Without L the file is the original LMO: 7750 - 3000 = 4750. */
START_TEST(lmo_original) {
  fs_program *p = fs_program_new(2);
  op(p, FS_SEND, 0, 1, 1000);
  op(p, FS_RECV, 1, 0, 1000);
  fs_test_finalize(p);
  const fs_time expected[] = {2000, 4750};
  expect_finish(p, "lmo",
                "ranks 2\nrank 0 C=1us t=1ns\nrank 1 C=2us t=0.5ns\n"
                "default invbeta=0.25ns\n",
                NULL, expected);
  fs_program_free(p);
}
END_TEST

/* Receiving holds the receiver's CPU: 1 and 2 send 0 B to 0 at 0 (C 1us,
 * L 1us): both land at 2000; 0 receives them one after the other,
 * [2000, 3000] and [3000, 4000]. */
START_TEST(lmo_receiver_cpu) {
  fs_program *p = fs_program_new(3);
  op(p, FS_SEND, 1, 0, 0);
  op(p, FS_SEND, 2, 0, 0);
  op(p, FS_RECV, 0, 1, 0);
  op(p, FS_RECV, 0, 2, 0);
  fs_test_finalize(p);
  const fs_time expected[] = {4000, 1000, 1000};
  expect_finish(p, "lmo", "ranks 3\ndefault C=1us t=0 L=1us invbeta=0\n", NULL, expected);
  fs_program_free(p);
}
END_TEST

/* One put under LMO is heterogeneous Hockney with alpha_01 = C_0 + L_01 +
 * C_1 = 6us and beta_01 = t_0 + invbeta_01 + t_1 = 1.75ns: both land at
 * 7750; LMO frees the sender at C_0 + M*t_0 = 2000, Hockney at 7750.
 * A get of 1000 B by 0 from 1 under LMO: request 1000 + 3000 + 2000, reply
 * 2000 + 500 + 3000 + 250 + 1000 + 1000: 6000 + 7750 = 13750. */
START_TEST(lmo_reduces_to_hockney) {
  fs_program *p = fs_program_new(2);
  op(p, FS_PUT, 0, 1, 1000);
  fs_test_finalize(p);
  const fs_time lmo[] = {2000, 7750}, hockney[] = {7750, 7750};
  expect_finish(p, "lmo", LMO_PAIR, NULL, lmo);
  expect_finish(p, "hetero-hockney", "ranks 2\nlink 0 1 alpha=6us beta=1.75ns\n", NULL, hockney);
  fs_program_free(p);
  p = fs_program_new(2);
  op(p, FS_GET, 0, 1, 1000);
  fs_test_finalize(p);
  const fs_time get[] = {13750, 0};
  expect_finish(p, "lmo", LMO_PAIR, NULL, get);
  fs_program_free(p);
}
END_TEST

/* Averaging over the 6 ordered pairs of 3 ranks:
 *   alpha: 01 = 10 = 1us, 02 = 2us (directed), 20 = 12 = 21 = 4us (default):
 *     16us / 6 = 2666.6667 -> 2666.667 ns;
 *   beta: 12 = 21 = 2ns, the rest 1ns: 8ns / 6 -> 1.333333 ns/B (as).
 * A 1000 B put costs 2666667 + 1333333 ps = 4000 ns on every link; the
 * scatter 0 -> 1, 2 takes 8000, as homogeneous hockney with those values. */
START_TEST(average_is_homogeneous) {
  fs_program *p = fs_program_new(3);
  op(p, FS_PUT, 0, 1, 1000);
  op(p, FS_PUT, 0, 2, 1000);
  fs_test_finalize(p);
  const char *text = "ranks 3\ndefault alpha=4us beta=1ns\nlink 0 1 alpha=1us\n"
                     "link 0 2 alpha=2us directed\nlink 1 2 beta=2ns\n";
  char *params = params_for(text, "average=1");
  ck_assert_int_eq(fs_test_makespan(p, "hetero-hockney", "fixed", params), 8000 * NS);
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=2666.667ns beta=1.333333ns"),
                   8000 * NS);
  fs_simulation run;
  fs_test_simulate(&run, p, "hetero-hockney", "fixed", params);
  char description[1000];
  fs_network_model_describe(&run.network, description, sizeof description);
  ck_assert_msg(strstr(description, "\"ranks\": 3, \"average\": 1, \"alpha_ns\": 2666.667, "
                                    "\"beta_ns_per_byte\": 1.333333") != NULL,
                "%s", description);
  fs_test_run_free(&run);
  free(params);
  /* not averaged: 0->1 is 2000, 0->2 is 3000 */
  params = params_for(text, "average=0");
  ck_assert_int_eq(fs_test_makespan(p, "hetero-hockney", "fixed", params), 5000 * NS);
  free(params);
  fs_program_free(p);
}
END_TEST

/* The files above in matrix form (`matrix KEY`: row i = from rank i,
 * column j = to rank j; the diagonal is not read) give the same times. */
START_TEST(matrix_form_hockney) {
  fs_program *p = fs_program_new(3);
  op(p, FS_PUT, 0, 1, 1000);
  op(p, FS_PUT, 0, 2, 1000);
  fs_test_finalize(p);
  const char *text =
      "ranks 3\nmatrix alpha  # from \\ to\n"
      "0    1us 2us\n1us  0   4us\n# a comment between rows\n4us  4us 0\n"
      "\nmatrix beta\n- 1ns 1GB/s\n1ns - 2ns\n1000MB/s 0.5GB/s -  # per byte or bandwidth\n";
  char *params = params_for(text, "average=1");
  ck_assert_int_eq(fs_test_makespan(p, "hetero-hockney", "fixed", params), 8000 * NS);
  free(params);
  params = params_for(text, "average=0");
  ck_assert_int_eq(fs_test_makespan(p, "hetero-hockney", "fixed", params), 5000 * NS);
  free(params);
  fs_program_free(p);
  /* the linear scatter; the link line before the matrix loses to it, the
   * one after wins (and only for beta of 0->3) */
  p = fs_program_new(4);
  for (int32_t i = 1; i < 4; i++) op(p, FS_PUT, 0, i, 1000);
  fs_test_finalize(p);
  const char *scatter = "ranks 4\nlink 0 1 alpha=9us beta=9ns\nmatrix alpha\n"
                        "0 1us 2us 500ns\n10us 0 10us 10us\n10us 10us 0 10us\n10us 10us 10us 0\n"
                        "matrix beta\n0 1ns 0.5ns 9ns\n0 0 0 0\n0 0 0 0\n0 0 0 0\n"
                        "link 0 3 beta=2ns directed\n";
  const fs_time expected[] = {7000, 2000, 4500, 7000};
  expect_finish(p, "hetero-hockney", scatter, NULL, expected);
  fs_program_free(p);
}
END_TEST

/* LMO_PAIR with `vector` for the per-rank keys and `matrix` for the pair's. */
START_TEST(vector_form_lmo) {
  fs_program *p = fs_program_new(2);
  op(p, FS_SEND, 0, 1, 1000);
  op(p, FS_RECV, 1, 0, 1000);
  fs_test_finalize(p);
  const fs_time expected[] = {2000, 7750}, averaged[] = {2250, 7750};
  const char *text = "ranks 2\nvector C\n1us 2us\nvector t\n1ns 0.5ns\n"
                     "matrix L\n0 3us\n3us 0\nmatrix invbeta\n0 4GB/s\n0.25ns 0\n";
  expect_finish(p, "lmo", text, NULL, expected);
  expect_finish(p, "lmo", text, "average=1", averaged);
  /* a later rank line wins over the vector, value by value */
  const char *later = "ranks 2\nvector C\n5us 2us\nvector t\n1ns 0.5ns\nrank 0 C=1us\n"
                      "default L=3us\nmatrix invbeta\n0 4GB/s\n0.25ns 0\n";
  expect_finish(p, "lmo", later, NULL, expected);
  fs_program_free(p);
}
END_TEST

/* Every pair of a 5-rank table read straight: `link` lines before a
 * matrix lose to it, lines after it win value by value; pairs a matrix
 * block sets but no line names are appended in order. */
START_TEST(matrix_table_values) {
  const char *text = "ranks 5\ndefault alpha=1ms beta=1ms\nlink 1 3 alpha=7ns beta=7ns\n"
                     "link 4 0 beta=8ns directed\nmatrix alpha\n"
                     "0 1ns 2ns 3ns 4ns\n10ns 0 12ns 13ns 14ns\n20ns 21ns 0 23ns 24ns\n"
                     "30ns 31ns 32ns 0 34ns\n40ns 41ns 42ns 43ns 0\n"
                     "link 2 4 alpha=99ns directed\nlink 0 1 beta=5ns\n";
  const fs_rank_pair_keys keys = {"alpha", "beta", NULL, NULL, 0};
  fs_text_input *in = fs_text_input_open_memory(text, strlen(text), "mem");
  fs_rank_pair_table t;
  fs_error err;
  ck_assert_msg(fs_rank_pair_table_read(in, &keys, &t, &err) == 0, "%s", err.message);
  fs_text_input_close(in);
  ck_assert_int_eq(t.links, 20);
  for (int32_t i = 0; i < 5; i++)
    for (int32_t j = 0; j < 5; j++) {
      if (i == j) continue;
      fs_time time;
      fs_per_byte per_byte;
      fs_rank_pair_table_link(&t, i, j, &time, &per_byte);
      fs_time alpha = i == 2 && j == 4 ? 99 : (i == 0 ? 0 : 10 * i) + j;
      if (i == 0) alpha = j;
      ck_assert_msg(time == alpha * NS, "%d->%d: %lld", i, j, (long long)time);
      fs_per_byte beta = (i == 1 && j == 3) || (i == 3 && j == 1)   ? 7
                         : i == 4 && j == 0                         ? 8
                         : (i == 0 && j == 1) || (i == 1 && j == 0) ? 5
                                                                    : 1000000;
      fs_per_byte beta_ps;
      ck_assert_int_eq(fs_parse_per_byte("1ns", 3, &beta_ps), 0);
      ck_assert_msg(per_byte == beta * beta_ps, "%d->%d: %lld", i, j, (long long)per_byte);
    }
  fs_rank_pair_table_free(&t);
}
END_TEST

/* LMO averaging: C 1us and 2us -> 1.5us; t 1ns and 0.5ns -> 0.75ns; the
 * one pair in both directions: L 3us, invbeta 0.25ns. p2p of 1000 B:
 * 1500 + 3000 + 1500 + 1000 * (0.75 + 0.25 + 0.75) = 7750; the sender is
 * free at 1500 + 750 = 2250. */
START_TEST(lmo_average) {
  fs_program *p = fs_program_new(2);
  op(p, FS_SEND, 0, 1, 1000);
  op(p, FS_RECV, 1, 0, 1000);
  fs_test_finalize(p);
  const fs_time expected[] = {2250, 7750};
  expect_finish(p, "lmo", LMO_PAIR, "average=1", expected);
  fs_program_free(p);
}
END_TEST

/* The file is read through fs_text_input: gzip works too. */
START_TEST(gzip_file) {
  char *path = fs_test_temp_path(".pairs.gz");
  gzFile gz = gzopen(path, "wb");
  ck_assert_ptr_nonnull(gz);
  ck_assert_int_gt(gzputs(gz, ASYMMETRIC), 0);
  ck_assert_int_eq(gzclose(gz), Z_OK);
  fs_program *p = fs_program_new(2);
  op(p, FS_PUT, 0, 1, 100);
  fs_test_finalize(p);
  char params[400];
  snprintf(params, sizeof params, "file=%s", path);
  ck_assert_int_eq(fs_test_makespan(p, "hetero-hockney", "fixed", params), 1100 * NS);
  fs_program_free(p);
  free(path);
}
END_TEST

/* A program whose rank count differs from the file's fails the run. */
START_TEST(rank_count_mismatch) {
  fs_program *p = fs_program_new(3);
  op(p, FS_PUT, 0, 1, 100);
  fs_test_finalize(p);
  char *params = params_for(ASYMMETRIC, NULL);
  fs_simulation run;
  fs_test_simulate(&run, p, "hetero-hockney", "fixed", params);
  ck_assert_int_eq(run.status, FS_RUN_REJECTED);
  ck_assert_msg(strstr(run.err.message, "the parameter file describes 2 ranks, the program has 3"),
                "%s", run.err.message);
  fs_test_run_free(&run);
  free(params);
  fs_program_free(p);
}
END_TEST

/* The error of building model with params, or "" when it builds. */
static void model_error(const char *model, const char *params, char *message, size_t size) {
  char text[512];
  fs_parameter items[16];
  fs_parameters parameters;
  snprintf(text, sizeof text, "%s", params);
  ck_assert_int_eq(fs_test_parameters(text, items, &parameters), 0);
  fs_network_model n = {0};
  fs_error err = {{0}};
  if (fs_network_model_create(model, &parameters, &n, &err) == 0) err.message[0] = 0;
  snprintf(message, size, "%s", err.message);
  fs_network_model_destroy(&n);
}

/* Each message starts with "PATH" followed by the given text. */
START_TEST(file_errors) {
  const struct {
    const char *model, *text, *message;
  } cases[] = {
      {"hetero-hockney", "link 0 1 alpha=1us\n", ":1:1: expected `ranks N` before anything else"},
      {"hetero-hockney", "ranks 0\n", ":1:7: expected a rank count from 1 to 16777216"},
      {"hetero-hockney", "ranks 16777217\n", ":1:7: expected a rank count from 1 to 16777216"},
      {"hetero-hockney", "ranks 2 3\n", ":1:9: expected the end of the line"},
      {"hetero-hockney", "ranks 2\n\nranks 2\n", ":3:1: expected a single `ranks` line"},
      {"hetero-hockney", "ranks 2\nlink 0 2 alpha=1us\n", ":2:8: expected a rank from 0 to 1"},
      {"hetero-hockney", "ranks 2\nlink x 1 alpha=1us\n", ":2:6: expected a rank from 0 to 1"},
      {"hetero-hockney", "ranks 2\nlink 1  1 alpha=1us\n",
       ":2:9: expected a second rank other than the first"},
      {"hetero-hockney", "ranks 2\nlink 0 1 alpha=fast\n",
       ":2:16: expected a non-negative time with a unit (ps, ns, us, ms, s) for alpha"},
      {"hetero-hockney", "ranks 2\nlink 0 1 alpha=-1us\n", ":2:16: expected a non-negative time"},
      {"hetero-hockney", "ranks 2\nlink 0 1 beta=1parsec\n",
       ":2:15: expected a time per byte (\"0.4ns\") or a bandwidth (\"10GB/s\") for beta"},
      {"hetero-hockney", "ranks 2\nlink 0 1 gamma=1ns\n",
       ":2:10: expected KEY=VALUE with KEY one of alpha, beta"},
      {"hetero-hockney", "ranks 2\nlink 0 1 directed=1\n",
       ":2:10: expected KEY=VALUE with KEY one of alpha, beta"},
      {"hetero-hockney", "ranks 2\nlink 0 1  # nothing\n",
       ":2:11: expected KEY=VALUE with KEY one of alpha, beta"},
      {"hetero-hockney", "ranks 2\nlink 0 1 alpha=1us alpha=2us\n",
       ":2:20: expected alpha once per line"},
      {"hetero-hockney", "ranks 2\nrank 0 C=1us\n", ":2:1: expected `default`, `link` or `matrix`"},
      {"hetero-hockney", "ranks 2\ndefault C=1us\n",
       ":2:9: expected KEY=VALUE with KEY one of alpha, beta"},
      {"lmo", "ranks 2\nfrob\n", ":2:1: expected `default`, `rank`, `link`, `matrix` or `vector`"},
      {"lmo", "ranks 2\nrank 0 L=1us\n", ":2:8: expected KEY=VALUE with KEY one of C, t"},
      {"lmo", "ranks 2\nrank 2 C=1us\n", ":2:6: expected a rank from 0 to 1"},
      {"lmo", "ranks 2\ndefault x=1\n",
       ":2:9: expected KEY=VALUE with KEY one of L, invbeta, C, t"},
      {"hetero-hockney", "ranks 2\ndefault beta=1ns\nlink 0 1 alpha=1us directed\n",
       ": expected `default alpha=...`: not every link sets alpha"},
      {"hetero-hockney", "ranks 2\nlink 0 1 alpha=1us\n",
       ": expected `default beta=...`: not every link sets beta"},
      {"lmo", "ranks 2\ndefault invbeta=1ns t=0\nrank 0 C=1us\n",
       ": expected `default C=...`: not every rank sets C"},
      {"lmo", "ranks 2\ndefault C=1us t=0\n",
       ": expected `default invbeta=...`: not every link sets invbeta"},
      {"lmo", "# nothing\n", ": expected a `ranks N` line (the file has none)"},
      /* matrix and vector blocks */
      {"hetero-hockney", "ranks 2\nmatrix alpha\n0 1us\n1us\n",
       ":4:4: expected 2 values in row 1 of `matrix alpha`"},
      {"hetero-hockney", "ranks 2\nmatrix alpha\n0 1us # 2us\n1us  # 0\n",
       ":4:6: expected 2 values in row 1 of `matrix alpha`"},
      {"hetero-hockney", "ranks 2\nmatrix alpha\n0 1us 2us\n",
       ":3:7: expected the end of the line: 2 values in row 0 of `matrix alpha`"},
      {"hetero-hockney", "ranks 2\nmatrix beta\n0 fast\n",
       ":3:3: expected a time per byte (\"0.4ns\") or a bandwidth (\"10GB/s\") for beta"},
      {"hetero-hockney", "ranks 2\nmatrix alpha\n0 1us\n-1us 0\n",
       ":4:1: expected a non-negative time with a unit (ps, ns, us, ms, s) for alpha"},
      {"hetero-hockney", "ranks 3\n# c\nmatrix alpha\n0 1us 1us\n\n",
       ":3:1: expected 3 rows after `matrix alpha`, the file ends after 1"},
      {"hetero-hockney", "ranks 2\n  matrix beta\n",
       ":2:3: expected 2 rows after `matrix beta`, the file ends after 0"},
      {"hetero-hockney", "ranks 2\nmatrix gamma\n",
       ":2:8: expected a per-pair key after `matrix`: alpha or beta"},
      {"hetero-hockney", "ranks 2\nmatrix\n",
       ":2:7: expected a per-pair key after `matrix`: alpha or beta"},
      {"hetero-hockney", "ranks 2\nmatrix alpha beta\n", ":2:14: expected the end of the line"},
      {"hetero-hockney", "ranks 2\nvector alpha\n", ":2:1: expected `default`, `link` or `matrix`"},
      {"hetero-hockney", "ranks 4097\nmatrix alpha\n",
       ":2:1: expected `link` lines: a `matrix` block needs N^2 entries and takes at most 4096 "
       "ranks (the file has 4097)"},
      {"lmo", "ranks 2\nmatrix C\n",
       ":2:8: expected a per-pair key after `matrix` (L or invbeta; C is per-rank: `vector`)"},
      {"lmo", "ranks 2\nvector invbeta\n",
       ":2:8: expected a per-rank key after `vector` (C or t; invbeta is per-pair: `matrix`)"},
      {"lmo", "ranks 2\nvector x\n", ":2:8: expected a per-rank key after `vector`: C or t"},
      {"lmo", "ranks 3\nvector t\n1ns 2ns\n", ":3:8: expected 3 values in the line of `vector t`"},
      {"lmo", "ranks 2\nvector t\n1ns 2ns 3ns\n",
       ":3:9: expected the end of the line: 2 values in the line of `vector t`"},
      {"lmo", "ranks 2\nvector C\n1us x\n",
       ":3:5: expected a non-negative time with a unit (ps, ns, us, ms, s) for C"},
      {"lmo", "ranks 2\nvector C\n",
       ":2:1: expected 1 row after `vector C`, the file ends after 0"},
      {"lmo", "ranks 2\nvector C\n1us 1us\nmatrix L\n0 1us\n",
       ":4:1: expected 2 rows after `matrix L`, the file ends after 1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *path = fs_test_temp_path(".pairs");
    ck_assert_int_eq(fs_test_write_file(path, cases[i].text, 0), 0);
    char params[300], message[1024], expected[600];
    snprintf(params, sizeof params, "file=%s", path);
    snprintf(expected, sizeof expected, "%s%s", path, cases[i].message);
    model_error(cases[i].model, params, message, sizeof message);
    ck_assert_msg(strncmp(message, expected, strlen(expected)) == 0, "case %d: '%s', expected '%s'",
                  (int)i, message, expected);
    free(path);
  }
}
END_TEST

START_TEST(parameter_errors) {
  char message[1024];
  model_error("hetero-hockney", "", message, sizeof message);
  ck_assert_str_eq(message, "--model hetero-hockney: expected --param file=PATH (a rank-pair "
                            "parameter file)");
  model_error("lmo", "file=/nonexistent/pairs", message, sizeof message);
  ck_assert_msg(strstr(message, "/nonexistent/pairs") != NULL, "%s", message);
  char *params = params_for(ASYMMETRIC, "average=2");
  model_error("hetero-hockney", params, message, sizeof message);
  ck_assert_str_eq(message, "--param average=2: expected 0 or 1");
  free(params);
}
END_TEST

/* describe names the file, the rank count and the averaging. */
START_TEST(describe) {
  char *params = params_for(LMO_PAIR, NULL);
  fs_simulation run;
  fs_program *p = fs_program_new(2);
  fs_test_finalize(p);
  fs_test_simulate(&run, p, "lmo", "fixed", params);
  char description[1000], expected[600];
  fs_network_model_describe(&run.network, description, sizeof description);
  snprintf(expected, sizeof expected, "\"file\": \"%s\", \"ranks\": 2, \"average\": 0", params + 5);
  ck_assert_str_eq(description, expected);
  fs_test_run_free(&run);
  fs_program_free(p);
  free(params);
}
END_TEST

/* The LMO estimation experiments of Lastovetsky et al., simulated with
 * C = 10, 20, 30 us, t = 1, 2, 3 ns/B, 1/beta_01 = 4, 1/beta_02 = 5,
 * 1/beta_12 = 6 ns/B (original LMO: L = 0), M = 1000 B.
 *  - empty roundtrip i <-> j: T_ij(0) = 2(C_i + C_j): 60, 80, 100 us, and
 *    the triplet estimate C_0 = (T_01 + T_02 - T_12)/4 = 10 us exactly;
 *  - roundtrip with M one way: T_ij(M) = 2(C_i + C_j) + M(t_i + 1/b_ij + t_j):
 *    T_01(M) = 60 + 7 = 67 us, T_02(M) = 80 + 9 = 89 us;
 *  - one-to-two 0 <-[M/0] {1, 2}: the slides' formula 2(2 C_0 + M t_0) +
 *    max_x (2 C_x + M(1/b_0x + t_x)) = 42 + max(46, 68) = 110 us; the event
 *    simulation gives 100 us: 0 sends [0,11] and [11,22]; 1 receives at
 *    15..37 and replies [37,57], received by 0 at 57..67; 2 receives at
 *    27..60 and replies [60,90], received by 0 at 90..100. The root's first
 *    receive hides in the wait, C_0 = 10 us below the formula, as the notes
 *    warn (§4.1 item 2): the estimator of t_i must be fed the formula's
 *    model, or measured times. */
#define LMO_TRIPLET                                                          \
  "ranks 3\nrank 0 C=10us t=1ns\nrank 1 C=20us t=2ns\nrank 2 C=30us t=3ns\n" \
  "link 0 1 invbeta=4ns\nlink 0 2 invbeta=5ns\nlink 1 2 invbeta=6ns\n"

static fs_time roundtrip(int32_t i, int32_t j, int64_t size) {
  fs_program *p = fs_program_new(3);
  int32_t there = op(p, FS_SEND, i, j, size), back = op(p, FS_RECV, i, j, 0);
  int32_t in = op(p, FS_RECV, j, i, size), reply = op(p, FS_SEND, j, i, 0);
  requires(p, reply, in);
  requires(p, back, there);
  fs_test_finalize(p);
  char *params = params_for(LMO_TRIPLET, NULL);
  fs_time t = fs_test_makespan(p, "lmo", "fixed", params);
  free(params);
  fs_program_free(p);
  return t;
}

START_TEST(lmo_estimation_experiments) {
  fs_time t01 = roundtrip(0, 1, 0), t02 = roundtrip(0, 2, 0), t12 = roundtrip(1, 2, 0);
  ck_assert_int_eq(t01, 60000 * NS);
  ck_assert_int_eq(t02, 80000 * NS);
  ck_assert_int_eq(t12, 100000 * NS);
  ck_assert_int_eq((t01 + t02 - t12) / 4, 10000 * NS);
  fs_time m01 = roundtrip(0, 1, 1000), m02 = roundtrip(0, 2, 1000);
  ck_assert_int_eq(m01, 67000 * NS);
  ck_assert_int_eq(m02, 89000 * NS);
  /* 1/beta_01 recovered: (T_01(M) - 2(C_0 + C_1))/M - (t_0 + t_1) = 7 - 3 = 4 ns/B */
  ck_assert_int_eq((m01 - 60000 * NS) / 1000 - 3 * NS, 4 * NS);
  fs_program *p = fs_program_new(3);
  int32_t to1 = op(p, FS_SEND, 0, 1, 1000), to2 = op(p, FS_SEND, 0, 2, 1000);
  op(p, FS_RECV, 0, 1, 0);
  op(p, FS_RECV, 0, 2, 0);
  for (int32_t x = 1; x <= 2; x++) {
    int32_t in = op(p, FS_RECV, x, 0, 1000);
    requires(p, op(p, FS_SEND, x, 0, 0), in);
  }
  (void)to1, (void)to2;
  fs_test_finalize(p);
  char *params = params_for(LMO_TRIPLET, NULL);
  ck_assert_int_eq(fs_test_makespan(p, "lmo", "fixed", params), 100000 * NS);
  free(params);
  fs_program_free(p);
}
END_TEST

static Suite *heterogeneous_suite(void) {
  Suite *s = suite_create("heterogeneous");
  TCase *c = tcase_create("core");
  tcase_add_test(c, hockney_pingpong_asymmetric);
  tcase_add_test(c, lmo_estimation_experiments);
  tcase_add_test(c, hockney_put_and_get);
  tcase_add_test(c, hockney_linear_scatter);
  tcase_add_test(c, hockney_binomial_max);
  tcase_add_test(c, lmo_point_to_point);
  tcase_add_test(c, lmo_original);
  tcase_add_test(c, lmo_receiver_cpu);
  tcase_add_test(c, lmo_reduces_to_hockney);
  tcase_add_test(c, average_is_homogeneous);
  tcase_add_test(c, lmo_average);
  tcase_add_test(c, matrix_form_hockney);
  tcase_add_test(c, vector_form_lmo);
  tcase_add_test(c, matrix_table_values);
  tcase_add_test(c, gzip_file);
  tcase_add_test(c, rank_count_mismatch);
  tcase_add_test(c, file_errors);
  tcase_add_test(c, parameter_errors);
  tcase_add_test(c, describe);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(heterogeneous_suite()); }
