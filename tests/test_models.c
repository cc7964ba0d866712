/* test_models.c: the hockney, pipelined, fixed and rate models, alone and
 * on the generated schedules, against times derived by hand from the Fennel
 * thesis's formulas (eqs. 4.4-4.6, 5.2, 5.6, 5.7). Times in picoseconds. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "generators/generators.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000

static fs_program *generate(const char *name, int32_t ranks, int64_t size, fs_time reduce) {
  fs_generator_options o = {.ranks = ranks, .size = size, .rounds = 1};
  if (reduce >= 0) o.reduce_time = reduce, o.has_reduce_time = 1;
  fs_error err;
  fs_program *p = fs_generator_find(name)->generate(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  return p;
}

/* Ping-pong under hockney, alpha 1 us, beta 0.5 ns/B, 100 B: each message
 * costs 1000 + 50 = 1050 ns and blocks until arrival; 2 rounds are four
 * messages in sequence: 4 * 1050 = 4200 ns. 5 rounds: 10500 ns. */
START_TEST(pingpong_hockney) {
  fs_generator_options o = {.ranks = 2, .size = 100, .rounds = 2};
  fs_error err;
  fs_program *p = fs_generate_pingpong(&o, &err);
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=0.5ns"), 4200 * NS);
  fs_program_free(p);
  o.rounds = 5;
  p = fs_generate_pingpong(&o, &err);
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=0.5ns"), 10500 * NS);
  fs_program_free(p);
}
END_TEST

/* Multicast of width b = N-1 under pipelined (eq. 4.6 plus beta): the last
 * of b back-to-back puts lands at alpha_p + b*alpha_r + beta*size.
 * alpha_p 500, alpha_r 100, beta 0.4 ns/B, 8 B: b=7 -> 500+700+3.2 = 1203.2 ns;
 * b=1 -> 603.2 ns; b=31 -> 3603.2 ns. The root is free after b*alpha_r. */
START_TEST(multicast_pipelined) {
  const int32_t widths[] = {1, 7, 31};
  for (int i = 0; i < 3; i++) {
    fs_program *p = generate("multicast", widths[i] + 1, 8, -1);
    fs_simulation run;
    fs_test_simulate(&run, p, "pipelined", "fixed", "alpha_p=500ns alpha_r=100ns beta=0.4ns");
    fs_time expected = 500 * NS + widths[i] * 100 * NS + 3200;
    ck_assert_int_eq(fs_engine_makespan(run.engine), expected);
    ck_assert_int_eq(fs_engine_finish_times(run.engine)[0], widths[i] * 100 * NS);
    /* rank k receives the k-th put: alpha_p + k*alpha_r + beta*size */
    for (int32_t k = 1; k <= widths[i]; k++)
      ck_assert_int_eq(fs_engine_finish_times(run.engine)[k], 500 * NS + k * 100 * NS + 3200);
    fs_test_run_free(&run);
    fs_program_free(p);
  }
}
END_TEST

/* With the default ARCHER table (8 B: alpha_p 0.88, alpha_r 0.38 us) and
 * beta 0, a multicast to 7: 880 + 7*380 = 3540 ns. */
START_TEST(multicast_archer_default) {
  fs_program *p = generate("multicast", 8, 8, -1);
  ck_assert_int_eq(fs_test_makespan(p, "pipelined", "fixed", ""), 3540 * NS);
  fs_program_free(p);
}
END_TEST

/* Recursive doubling for N = 2^k under pipelined: every round is a put
 * (alpha_r on the CPU), the partner's put landing alpha_p + beta*size after
 * its issue, then the reduce: log2 N * (alpha_r + alpha_p + beta*size +
 * reduce) (eq. 5.6 plus beta and the reduce). The thesis §5.6 parameters
 * (alpha_p 500, alpha_r 100, beta 0.4, 8 B, compute 10 ns) give 613.2 ns
 * per round: N=8 -> 1839.6 ns, Fennel's own result for Fig. 5.26. */
START_TEST(allreduce_rd_powers_of_two) {
  for (int k = 0; k <= 10; k++) {
    fs_program *p = generate("allreduce-rd", 1 << k, 8, 10 * NS);
    fs_time expected = k * (100 * NS + 500 * NS + 3200 + 10 * NS);
    ck_assert_int_eq(fs_test_makespan(p, "pipelined", "fixed",
                                      "alpha_p=500ns alpha_r=100ns beta=0.4ns"),
                     expected);
    fs_program_free(p);
  }
}
END_TEST

/* Under hockney a round is alpha + beta*size (the put blocks until it
 * lands) + reduce: N=16, alpha 1 us, beta 1 ns/B, 64 B, reduce 5 ns:
 * 4 * (1000 + 64 + 5) = 4276 ns (eq. 5.2 with gamma*n = 5 ns). */
START_TEST(allreduce_rd_hockney) {
  fs_program *p = generate("allreduce-rd", 16, 64, 5 * NS);
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=1ns"), 4276 * NS);
  fs_program_free(p);
}
END_TEST

/* N=6 (pof2 4, rem 2) under pipelined, alpha_p 500, alpha_r 100, beta 0.4,
 * 8 B, reduce 10; one message = 603.2 ns from issue to arrival.
 *  collapse: ranks 0,2 put to 1,3 at 0, landing 603.2; 1,3 reduce to 613.2.
 *  ranks 4,5 (new ranks 2,3) exchange at 0: land 603.2, reduce to 613.2.
 *  round 1, ranks 1<->3: put at 613.2, land 1216.4, reduce to 1226.4.
 *  round 2, 1<->4 and 3<->5: 4 puts at 613.2 (lands at 1 at 1216.4);
 *    1 puts at 1226.4, its CPU free at 1326.4, lands at 4 at 1829.6;
 *    1 reduces [1326.4, 1336.4]; 4 reduces [1829.6, 1839.6].
 *  expand: 1 puts to 0 at 1336.4, landing 1939.6; CPU free at 1436.4.
 * finish: 0,2: 1939.6; 1,3: 1436.4; 4,5: 1839.6. */
START_TEST(allreduce_rd_six_ranks) {
  fs_program *p = generate("allreduce-rd", 6, 8, 10 * NS);
  fs_simulation run;
  fs_test_simulate(&run, p, "pipelined", "fixed", "alpha_p=500ns alpha_r=100ns beta=0.4ns");
  const fs_time expected[6] = {1939600, 1436400, 1939600, 1436400, 1839600, 1839600};
  for (int r = 0; r < 6; r++) ck_assert_int_eq(fs_engine_finish_times(run.engine)[r], expected[r]);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Recursive multiplying: a stage of factor k is k-1 puts back to back,
 * the last landing at (k-1)*alpha_r + alpha_p + beta*size, then the reduce
 * (eq. 5.7 per stage). alpha_p 500, alpha_r 100, beta 0.4, 8 B, reduce 10:
 *  a8:      500 + 700 + 3.2 + 10 = 1213.2 ns (thesis Fig. 5.27 vs RD's 1839.6)
 *  a4,a2:   (500+300+3.2+10) + (500+100+3.2+10) = 813.2 + 613.2 = 1426.4
 *  a2,a4:   613.2 + 813.2 = 1426.4
 *  a3,a2:   713.2 + 613.2 = 1326.4
 *  a5,a3,a2: 913.2 + 713.2 + 613.2 = 2239.6 */
START_TEST(allreduce_rm_stages) {
  const struct {
    int32_t factors[4];
    int count;
    fs_time expected;
  } cases[] = {
      {{8}, 1, 1213200},    {{4, 2}, 2, 1426400},    {{2, 4}, 2, 1426400},
      {{3, 2}, 2, 1326400}, {{5, 3, 2}, 3, 2239600},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fs_generator_options o = {.size = 8, .rounds = 1, .reduce_time = 10 * NS, .has_reduce_time = 1};
    o.ranks = 1;
    for (int f = 0; f < cases[i].count; f++)
      o.factors[f] = cases[i].factors[f], o.ranks *= cases[i].factors[f];
    o.factor_count = cases[i].count;
    fs_error err;
    fs_program *p = fs_generate_allreduce_rm(&o, &err);
    ck_assert_msg(p != NULL, "%s", err.message);
    ck_assert_int_eq(fs_test_makespan(p, "pipelined", "fixed",
                                      "alpha_p=500ns alpha_r=100ns beta=0.4ns"),
                     cases[i].expected);
    fs_program_free(p);
  }
}
END_TEST

/* The thesis's Table 5.3 schedules under its minimum model (ARCHER 8 B:
 * alpha_p 0.88, alpha_r 0.38 us; the default table), one 8-byte element,
 * reduce 0. A stage of factor k costs 0.88 + (k-1)*0.38 us; these are the
 * model predictions of the Fennel thesis's extraction:
 *  a4 2.02 | a6 2.78 | a2,a4 3.28 | a3,a4 3.66 | a4,a4 4.04 | a4,a6 4.80 |
 *  a8,a4 5.56 | a8,a6 6.32 | a8,a8 7.08 | a8,a3,a4 7.20 | a8,a4,a4 7.58.
 * Recursive doubling for powers of two: log2 N * 1.26 us: 4 -> 2.52,
 * 8 -> 3.78, 16 -> 5.04, 32 -> 6.30, 64 -> 7.56, 128 -> 8.82.
 * For N = 6 the notes' stage sum (eq. 5.3: 4 stages, 5.04) overestimates
 * the DAG, where ranks 4 and 5 run round 1 during the collapse. Step by
 * step: collapse lands at 1.26; ranks 1,3 exchange 1.26 -> 2.52; rank 1
 * puts to 4 at 2.52 (rank 4's put to 1 landed at 2.52 already), its reduce
 * waits only for its own put's local end 2.90; expand put at 2.90 lands at
 * rank 0 at 4.16 us. */
START_TEST(thesis_table_5_3_predictions) {
  const struct {
    int32_t factors[3];
    int count;
    fs_time expected;
  } rm[] = {
      {{4}, 1, 2020},    {{6}, 1, 2780},       {{2, 4}, 2, 3280},    {{3, 4}, 2, 3660},
      {{4, 4}, 2, 4040}, {{4, 6}, 2, 4800},    {{8, 4}, 2, 5560},    {{8, 6}, 2, 6320},
      {{8, 8}, 2, 7080}, {{8, 3, 4}, 3, 7200}, {{8, 4, 4}, 3, 7580},
  };
  for (size_t i = 0; i < sizeof rm / sizeof rm[0]; i++) {
    fs_generator_options o = {.size = 8, .rounds = 1, .ranks = 1};
    for (int f = 0; f < rm[i].count; f++)
      o.factors[f] = rm[i].factors[f], o.ranks *= rm[i].factors[f];
    o.factor_count = rm[i].count;
    fs_error err;
    fs_program *p = fs_generate_allreduce_rm(&o, &err);
    ck_assert_int_eq(fs_test_makespan(p, "pipelined", "fixed", ""), rm[i].expected * NS);
    fs_program_free(p);
  }
  for (int k = 2; k <= 7; k++) {
    fs_program *p = generate("allreduce-rd", 1 << k, 8, -1);
    ck_assert_int_eq(fs_test_makespan(p, "pipelined", "fixed", ""), k * 1260 * NS);
    fs_program_free(p);
  }
  fs_program *p = generate("allreduce-rd", 6, 8, -1);
  ck_assert_int_eq(fs_test_makespan(p, "pipelined", "fixed", ""), 4160 * NS);
  fs_program_free(p);
}
END_TEST

/* The ARCHER table interpolates linearly between rows (a single put,
 * multicast width 1: makespan = alpha_r + alpha_p(size)):
 *  96 B: between 64 (890, 380) and 128 (910, 380): alpha_p = 900 -> 1280 ns
 *  1280 B: between 512 (960, 460) and 2048 (960, 790): alpha_r = 460 +
 *    330*768/1536 = 625 -> 1585 ns
 *  0 B: clamped to the 8 B row: 1260 ns
 *  1 MiB: extended along the last segment: alpha_r = 119300 + 89200 *
 *    524288/393216 = 238233.333 ns -> 238233333 ps; alpha_p = -1700 -
 *    1580*524288/393216 < 0, so remote = local = 238233333 ps. */
START_TEST(archer_table_interpolation) {
  const struct {
    int64_t size;
    fs_time expected;
  } cases[] = {
      {96, 1280 * NS}, {1280, 1585 * NS}, {0, 1260 * NS}, {1 << 20, 238233333}, {8, 1260 * NS},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fs_program *p = generate("multicast", 2, cases[i].size, -1);
    ck_assert_int_eq(fs_test_makespan(p, "pipelined", "fixed", ""), cases[i].expected);
    fs_program_free(p);
  }
}
END_TEST

/* A table file of two rows: 0 B (100, 10) and 1000 B (300, 110), beta 0.
 * 500 B: alpha_p 200, alpha_r 60: a put lands at 260 ns. */
START_TEST(table_file) {
  char *path = fs_test_temp_path(".table");
  fs_test_write_file(path, "# size alpha_p alpha_r\n0B 100ns 10ns\n\n1000B 0.3us 110  # comment\n",
                     0);
  fs_program *p = generate("multicast", 2, 500, -1);
  char params[300];
  snprintf(params, sizeof params, "table=%s", path);
  ck_assert_int_eq(fs_test_makespan(p, "pipelined", "fixed", params), 260 * NS);
  fs_program_free(p);
  free(path);
}
END_TEST

static void expect_model_error(const char *model, const char *compute, const char *params,
                               const char *message) {
  char text[512];
  fs_parameter items[16];
  fs_parameters parameters;
  snprintf(text, sizeof text, "%s", params);
  ck_assert_int_eq(fs_test_parameters(text, items, &parameters), 0);
  fs_network_model n = {0};
  fs_compute_model c = {0};
  fs_error err = {{0}};
  int failed = fs_network_model_create(model, &parameters, &n, &err) ||
               fs_compute_model_create(compute, &parameters, &c, &err) ||
               fs_parameters_check_used(&parameters, &err);
  ck_assert_msg(failed, "expected failure for %s %s %s", model, compute, params);
  ck_assert_msg(strstr(err.message, message) != NULL, "'%s' lacks '%s'", err.message, message);
  fs_network_model_destroy(&n);
  fs_compute_model_destroy(&c);
}

START_TEST(parameter_errors) {
  expect_model_error("nosuch", "fixed", "", "unknown network model 'nosuch'");
  expect_model_error("hockney", "nosuch", "", "unknown compute model 'nosuch'");
  expect_model_error("hockney", "fixed", "alpha=fast", "--param alpha=fast: expected");
  expect_model_error("hockney", "fixed", "alpha=-1ns", "non-negative");
  expect_model_error("hockney", "fixed", "beta=1parsec", "--param beta=1parsec");
  expect_model_error("hockney", "fixed", "alfa=1ns", "--param alfa: no parameter");
  expect_model_error("hockney", "fixed", "alpha_p=1ns", "--param alpha_p: no parameter");
  expect_model_error("pipelined", "fixed", "table=archer alpha_p=1ns", "exclude each other");
  expect_model_error("pipelined", "fixed", "alpha_r=-5ns", "non-negative");
  expect_model_error("pipelined", "fixed", "table=/nonexistent/table", "/nonexistent/table");
  expect_model_error("pipelined", "rate", "gamma=x", "--param gamma=x");
  expect_model_error("pipelined", "fixed", "compute_time=-1ns", "non-negative");
}
END_TEST

START_TEST(table_file_errors) {
  const struct {
    const char *text;
    const char *message;
  } cases[] = {
      {"8B 1ns\n", ":1:7: expected alpha_r"},
      {"8X 1ns 1ns\n", ":1:1: expected a message size"},
      {"8B 1ns 1ns\n  8B 2ns 2ns\n", ":2:3: expected a size larger"},
      {"8B 1ns 1ns 1ns\n", ":1:12: expected the end of the row"},
      {"8B soon 1ns\n", ":1:4: expected alpha_p"},
      {"# nothing\n", "has no rows"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *path = fs_test_temp_path(".table");
    fs_test_write_file(path, cases[i].text, 0);
    char params[300];
    snprintf(params, sizeof params, "table=%s", path);
    expect_model_error("pipelined", "fixed", params, cases[i].message);
    free(path);
  }
}
END_TEST

/* Compute models: a compute with time= takes it under both; otherwise
 * fixed charges compute_time (25 ns) and rate charges gamma*size
 * (0.25 ns/B * 8 B = 2 ns). A reduce of RD at N=2 (one round, 8 B):
 *  fixed: 600 (alpha_r + alpha_p) + 25 = 625 ns; rate: 600 + 2 = 602 ns;
 *  --reduce-time 7ns under rate: 607 ns. */
START_TEST(compute_models) {
  fs_program *p = generate("allreduce-rd", 2, 8, -1);
  const char *base = "alpha_p=500ns alpha_r=100ns";
  char params[200];
  snprintf(params, sizeof params, "%s compute_time=25ns", base);
  ck_assert_int_eq(fs_test_makespan(p, "pipelined", "fixed", params), 625 * NS);
  snprintf(params, sizeof params, "%s gamma=0.25ns", base);
  ck_assert_int_eq(fs_test_makespan(p, "pipelined", "rate", params), 602 * NS);
  ck_assert_int_eq(fs_test_makespan(p, "pipelined", "rate", base), 600 * NS);
  fs_program_free(p);
  p = generate("allreduce-rd", 2, 8, 7 * NS);
  ck_assert_int_eq(fs_test_makespan(p, "pipelined", "rate", params), 607 * NS);
  fs_program_free(p);
}
END_TEST

/* Bandwidth form of beta: 1 GB/s = 1 ns/B: a 1000 B hockney put with
 * alpha 0 takes 1000 ns. 3 GB/s rounds to 333333333 as/B: 1000 B ->
 * 333333.333 ps -> 333333 ps. */
START_TEST(bandwidth_parameters) {
  fs_program *p = generate("multicast", 2, 1000, -1);
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=0 beta=1GB/s"), 1000 * NS);
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=0 beta=3GB/s"), 333333);
  fs_program_free(p);
}
END_TEST

START_TEST(describe_parameters) {
  const struct {
    const char *model, *compute, *params, *network_text, *compute_text;
  } cases[] = {
      {"hockney", "fixed", "alpha=2us beta=0.4ns", "\"alpha_ns\": 2000, \"beta_ns_per_byte\": 0.4",
       "\"compute_time_ns\": 0"},
      {"pipelined", "rate", "alpha_p=0.5us alpha_r=100ns gamma=1.5ps",
       "\"alpha_p_ns\": 500, \"alpha_r_ns\": 100, \"beta_ns_per_byte\": 0",
       "\"gamma_ns_per_byte\": 0.0015"},
      {"pipelined", "fixed", "",
       "\"table\": \"archer\", \"table_rows\": 9, \"beta_ns_per_byte\": 0",
       "\"compute_time_ns\": 0"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fs_program *p = generate("multicast", 2, 8, -1);
    fs_simulation run;
    fs_test_simulate(&run, p, cases[i].model, cases[i].compute, cases[i].params);
    char text[512];
    fs_network_model_describe(&run.network, text, sizeof text);
    ck_assert_str_eq(text, cases[i].network_text);
    fs_compute_model_describe(&run.compute, text, sizeof text);
    ck_assert_str_eq(text, cases[i].compute_text);
    fs_test_run_free(&run);
    fs_program_free(p);
  }
}
END_TEST

static Suite *models_suite(void) {
  Suite *s = suite_create("models");
  TCase *c = tcase_create("formulas");
  tcase_add_test(c, pingpong_hockney);
  tcase_add_test(c, multicast_pipelined);
  tcase_add_test(c, multicast_archer_default);
  tcase_add_test(c, allreduce_rd_powers_of_two);
  tcase_add_test(c, allreduce_rd_hockney);
  tcase_add_test(c, allreduce_rd_six_ranks);
  tcase_add_test(c, allreduce_rm_stages);
  tcase_add_test(c, thesis_table_5_3_predictions);
  tcase_add_test(c, archer_table_interpolation);
  tcase_add_test(c, table_file);
  tcase_add_test(c, parameter_errors);
  tcase_add_test(c, table_file_errors);
  tcase_add_test(c, compute_models);
  tcase_add_test(c, bandwidth_parameters);
  tcase_add_test(c, describe_parameters);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(models_suite()); }
