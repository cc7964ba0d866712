/* test_cli_errors.c: issue 16 items 4 and 5 end to end: the platform
 * options are checked whatever the model and errors name what was typed;
 * "did you mean" for commands, options, models, generators, parameters and
 * noise kinds; the default model said; `help COMMAND` = `COMMAND --help`. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static char *out, *err;

/* `fennelsim ARGUMENTS` exits with status and prints exactly message on stderr. */
static void expect(const char *arguments, int status, const char *message) {
  int got = fennelsim("%s", arguments);
  ck_assert_msg(got == status, "fennelsim %s: exit %d, expected %d (stderr: %s)", arguments, got,
                status, err);
  ck_assert_msg(strcmp(err, message) == 0, "fennelsim %s:\nstderr: %s\nexpected: %s", arguments,
                err, message);
}

#define DAG "schedules/allreduce-rd-8.dag"
#define TAULOP "--model metropolis-taulop"
#define MAPPING_ROUND                                                                              \
  "--mapping round: expected seq or rr (sequential or round-robin; an explicit mapping goes in a " \
  "--platform file)\n"
#define NODES_0 "--nodes 0: expected a whole number from 1 to 16777216\n"
#define CORES_X "--cores x: expected a whole number from 1 to 16777216\n"
#define EXCLUSIVE "--platform replaces --nodes, --cores and --mapping: give one or the other\n"

/* ---- item 4: the platform options, whatever the model --------------------- */

START_TEST(values_checked_under_every_model) {
  /* hockney reads no platform, taulop (as a model file) does: the same
   * message, naming the option as typed, not --param nodes= or the file */
  const char *models[] = {"--model hockney", TAULOP, ""};
  for (int m = 0; m < 3; m++) {
    char command[512];
    snprintf(command, sizeof command, "run " DAG " %s --mapping round", models[m]);
    expect(command, 2, "fennelsim: " MAPPING_ROUND);
    snprintf(command, sizeof command, "run " DAG " %s --nodes 0", models[m]);
    expect(command, 2, "fennelsim: " NODES_0);
    snprintf(command, sizeof command, "run " DAG " %s --cores x", models[m]);
    expect(command, 2, "fennelsim: " CORES_X);
    snprintf(command, sizeof command,
             "run " DAG " %s --platform models/platform-4x8-seq.xml "
             "--nodes 2",
             models[m]);
    expect(command, 2, "fennelsim: " EXCLUSIVE);
    /* 8 ranks on 2 nodes of 2 cores: the platform cannot hold the program */
    snprintf(command, sizeof command, "run " DAG " %s --nodes 2 --cores 2", models[m]);
    expect(command, 2,
           "fennelsim: --nodes 2 --cores 2: expected at most 4 ranks on 2 nodes x 2 "
           "cores (got 8)\n");
  }
  /* --param nodes= typed as a parameter keeps its own name */
  expect("run " DAG " --model taulop --param shm_table=models/metropolis-shm.table "
         "--param net_table=models/metropolis-net.table --param nodes=0",
         2, "fennelsim: --param nodes=0: expected a whole number from 1 to 16777216\n");
}
END_TEST

START_TEST(platform_file_always_parsed) {
  char *broken = fs_test_temp_path(".xml"), *malformed = fs_test_temp_path(".xml");
  fs_test_write_file(broken, "<platform nodes=\"2\" cores=\"4\">\n  <bogus/>\n</platform>\n", 0);
  fs_test_write_file(malformed, "<platform nodes=\"2\" cores=2>\n</platform>\n", 0);
  char command[1024], message[1024], prefix[1024];
  const char *models[] = {"--model hockney", TAULOP, "--model loggops"};
  for (int m = 0; m < 3; m++) {
    snprintf(command, sizeof command, "run " DAG " %s --platform %s", models[m], broken);
    snprintf(message, sizeof message,
             "fennelsim: %s:2: expected <level>, <channel> or <mapping> "
             "(got <bogus>)\n",
             broken);
    expect(command, 2, message);
    /* libxml2 words its part of the message itself: the prefix is ours */
    snprintf(command, sizeof command, "run " DAG " %s --platform %s", models[m], malformed);
    ck_assert_int_eq(fennelsim("%s", command), 2);
    snprintf(prefix, sizeof prefix,
             "fennelsim: %s:1:27: expected well-formed XML (libxml2: ", malformed);
    ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "%s", err);
  }
  /* the same file, the same message from gen, probe and validate */
  snprintf(command, sizeof command, "gen bcast-smp --ranks 8 --platform %s", broken);
  snprintf(message, sizeof message,
           "fennelsim gen: %s:2: expected <level>, <channel> or "
           "<mapping> (got <bogus>)\n",
           broken);
  expect(command, 2, message);
  snprintf(command, sizeof command, "probe --model hockney --platform %s", broken);
  snprintf(message, sizeof message,
           "fennelsim: %s:2: expected <level>, <channel> or <mapping> "
           "(got <bogus>)\n",
           broken);
  expect(command, 2, message);
  snprintf(command, sizeof command, "validate /nonexistent.csv --model hockney --platform %s",
           broken);
  snprintf(message, sizeof message,
           "fennelsim validate: %s:2: expected <level>, <channel> or "
           "<mapping> (got <bogus>)\n",
           broken);
  expect(command, 2, message);
  free(broken), free(malformed);
}
END_TEST

START_TEST(same_checks_in_every_command) {
  expect("gen bcast-smp --ranks 8 --nodes 2 --cores 4 --mapping round", 2,
         "fennelsim gen: " MAPPING_ROUND);
  expect("gen bcast-smp --ranks 8 --nodes 0 --cores 4", 2, "fennelsim gen: " NODES_0);
  expect("gen bcast-smp --ranks 8 --nodes 2 --cores x", 2, "fennelsim gen: " CORES_X);
  expect("probe --model hockney --mapping round", 2, "fennelsim: " MAPPING_ROUND);
  expect("probe " TAULOP " --nodes 0", 2, "fennelsim: " NODES_0);
  expect("probe --model hockney --platform models/platform-4x8-seq.xml --cores 2", 2,
         "fennelsim: " EXCLUSIVE);
  /* validate checks its options before reading the measurements */
  expect("validate /nonexistent.csv " TAULOP " --nodes 0 --cores 2", 2,
         "fennelsim validate: " NODES_0);
  expect("validate /nonexistent.csv --model hockney --nodes 2 --cores 2 --mapping round", 2,
         "fennelsim validate: " MAPPING_ROUND);
}
END_TEST

START_TEST(note_when_the_model_ignores_the_platform) {
  expect("run " DAG " --model hockney --platform models/platform-4x8-seq.xml", 0,
         "fennelsim: note: hockney ignores the platform (--platform models/platform-4x8-seq.xml); "
         "models that use it: taulop, and the compute model gamma (concurrent=1 tasks use it "
         "under every model)\n");
  ck_assert_ptr_nonnull(strstr(out, "makespan"));
  expect("run " DAG " --model loggops --nodes 2 --cores 4 --mapping rr", 0,
         "fennelsim: note: loggops ignores the platform (--nodes 2 --cores 4 --mapping rr); "
         "models that use it: taulop, and the compute model gamma (concurrent=1 tasks use it "
         "under every model)\n");
  /* --chrome groups ranks by node: no note */
  char *chrome = fs_test_temp_path(".json");
  char command[512];
  snprintf(command, sizeof command, "run " DAG " --model hockney --nodes 2 --chrome %s", chrome);
  expect(command, 0, "");
  free(chrome);
  /* taulop reads it: no note */
  expect("run " DAG " " TAULOP " --nodes 2", 0, "");
  /* the compute model gamma reads it: no note */
  expect("run " DAG
         " --model hockney --compute gamma --param gamma_table=models/metropolis-shm.table "
         "--nodes 2",
         0, "");
  /* concurrent=1 tasks take the platform's cores under every model: no
   * note, and one core serializes the 100 ns and 10 ns computes: 110 ns */
  expect("run schedules/concurrent-pair.dag --model hockney --cores 1 --format json", 0, "");
  ck_assert_ptr_nonnull(strstr(out, "\"makespan_ns\": 110,"));
}
END_TEST

/* ---- item 5: did you mean --------------------------------------------------- */

START_TEST(unknown_commands) {
  expect("rnu", 2, "fennelsim: unknown command 'rnu'; did you mean run? (see fennelsim --help)\n");
  expect("valdate x", 2,
         "fennelsim: unknown command 'valdate'; did you mean validate? (see "
         "fennelsim --help)\n");
  expect("frobnicate", 2,
         "fennelsim: unknown command 'frobnicate'; the commands: gen, run, best, sweep, "
         "convert, merge, probe, fit, validate, help, version (see fennelsim "
         "--help)\n");
}
END_TEST

START_TEST(unknown_options_of_every_command) {
  static const struct {
    const char *arguments, *message;
  } cases[] = {
      {"run " DAG " --modle hockney",
       "fennelsim: unknown option --modle (see fennelsim run --help); did you mean --model?\n"},
      {"run " DAG " --svgranks=0-3",
       "fennelsim: unknown option --svgranks=0-3 (see fennelsim run --help); did you mean "
       "--svg-ranks?\n"},
      {"run " DAG " --frobnicate",
       "fennelsim: unknown option --frobnicate (see fennelsim run --help)\n"},
      {"gen allreduce-rd --rank 4",
       "fennelsim gen: unknown option --rank (see fennelsim gen --help); did you mean --ranks?\n"},
      {"best allreduce --rank 4", "fennelsim best: unknown option --rank (see fennelsim best "
                                  "--help); did you mean --ranks?\n"},
      {"convert --compute-scal 2 a.dag b.dag",
       "fennelsim convert: unknown option --compute-scal (see fennelsim convert --help); did you "
       "mean --compute-scale?\n"},
      {"merge --fromat json a.csv",
       "fennelsim: unknown option --fromat (see fennelsim merge --help); did you mean --format?\n"},
      {"probe --modle hockney",
       "fennelsim: unknown option --modle (see fennelsim probe --help); did you mean --model?\n"},
      {"fit a.csv --modle hockney",
       "fennelsim: unknown option --modle (see fennelsim fit --help); did you mean --model?\n"},
      {"validate a.csv --meadian",
       "fennelsim validate: unknown option --meadian (see fennelsim validate --help); did you "
       "mean --median?\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    expect(cases[i].arguments, 2, cases[i].message);
}
END_TEST

START_TEST(unknown_names) {
  expect("run " DAG " --model hocknye", 2,
         "fennelsim: unknown network model 'hocknye' (known: hockney, pipelined, loggops, "
         "hetero-hockney, lmo, taulop, lognp, log3p, flow, flow-lv08, or a models/NAME.xml file); "
         "did you mean "
         "hockney?\n");
  expect("run " DAG " --compute gama", 2,
         "fennelsim: unknown compute model 'gama' (known: fixed, rate, gamma); did you mean "
         "gamma?\n");
  expect("gen allreduce-rdd --ranks 4", 2,
         "fennelsim gen: unknown generator 'allreduce-rdd' (see fennelsim gen --list); did you "
         "mean allreduce-rd?\n");
  /* the keys of the models in use, network and compute */
  expect("run " DAG " --model hockney --param alpa=1us", 2,
         "fennelsim: --param alpa: no parameter of that name: hockney takes alpha, beta; fixed "
         "takes compute_time; did you mean alpha?\n");
  expect("run " DAG " --model pipelined --param alpha_x=1us --param table=none", 2,
         "fennelsim: --param alpha_x: no parameter of that name: pipelined takes table, alpha_p, "
         "alpha_r, beta; fixed takes compute_time; did you mean alpha_p or alpha_r?\n");
  expect("run " DAG " --model hockney --compute rate --param gama=1ns", 2,
         "fennelsim: --param gama: no parameter of that name: hockney takes alpha, beta; rate "
         "takes gamma; did you mean gamma?\n");
  expect("run " DAG " --noise nett=lognormal:sigma=0.1", 2,
         "fennelsim: --noise nett=lognormal:sigma=0.1: expected host=DIST, net=DIST or "
         "compute=DIST; did you mean net?\n");
  expect("run " DAG " --noise net=lognorml:sigma=0.1", 2,
         "fennelsim: --noise net=lognorml:sigma=0.1: unknown distribution 'lognorml' (known: "
         "constant, normal, lognormal, gamma, exponential, uniform, beta-prime, empirical); did "
         "you mean lognormal?\n");
}
END_TEST

START_TEST(default_model_said) {
  ck_assert_int_eq(fennelsim("run " DAG), 0);
  ck_assert_ptr_nonnull(strstr(out, "\nmodel      pipelined (the default; choose with --model) {"));
  ck_assert_int_eq(fennelsim("run " DAG " --model pipelined"), 0);
  ck_assert_ptr_nonnull(strstr(out, "\nmodel      pipelined {"));
  /* a study's report too */
  ck_assert_int_eq(fennelsim("run " DAG " --seeds 2 --noise net=lognormal:sigma=0.1"), 0);
  ck_assert_ptr_nonnull(strstr(out, "\nmodel      pipelined (the default; choose with --model) {"));
  /* JSON is unchanged: "model" names it either way */
  ck_assert_int_eq(fennelsim("run " DAG " --format json"), 0);
  ck_assert_ptr_nonnull(strstr(out, "\"model\": \"pipelined\""));
  ck_assert_ptr_null(strstr(out, "default"));
}
END_TEST

START_TEST(help_command_equals_command_help) {
  static const char *const commands[] = {"gen",   "run",   "best", "convert",
                                         "merge", "probe", "fit",  "validate"};
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    ck_assert_int_eq(fennelsim("%s --help", commands[i]), 0);
    char *expected = strdup(out);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(fennelsim("help %s", commands[i]), 0);
    ck_assert_msg(strcmp(out, expected) == 0, "help %s differs from %s --help", commands[i],
                  commands[i]);
    ck_assert_str_eq(err, "");
    ck_assert_msg(strlen(out) > 40, "%s --help printed too little", commands[i]);
    free(expected);
  }
  ck_assert_int_eq(fennelsim("--help"), 0);
  char *expected = strdup(out);
  ck_assert_int_eq(fennelsim("help"), 0);
  ck_assert_str_eq(out, expected);
  free(expected);
  expect("help rnu", 2,
         "fennelsim: unknown command 'rnu'; did you mean run? (see fennelsim "
         "--help)\n");
  expect("help nosuch", 2,
         "fennelsim: unknown command 'nosuch'; the commands: gen, run, best, sweep, "
         "convert, merge, probe, fit, validate, help, version (see fennelsim "
         "--help)\n");
  expect("help run gen", 2, "fennelsim: help takes one command (got run and gen)\n");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("cli_errors");
  TCase *platform = tcase_create("platform");
  tcase_add_test(platform, values_checked_under_every_model);
  tcase_add_test(platform, platform_file_always_parsed);
  tcase_add_test(platform, same_checks_in_every_command);
  tcase_add_test(platform, note_when_the_model_ignores_the_platform);
  suite_add_tcase(s, platform);
  TCase *mean = tcase_create("did_you_mean");
  tcase_add_test(mean, unknown_commands);
  tcase_add_test(mean, unknown_options_of_every_command);
  tcase_add_test(mean, unknown_names);
  tcase_add_test(mean, default_model_said);
  tcase_add_test(mean, help_command_equals_command_help);
  suite_add_tcase(s, mean);
  return s;
}

int main(void) { return fs_test_run(suite()); }
