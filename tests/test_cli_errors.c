/* test_cli_errors.c: issue 16 items 4 and 5 end to end: the platform
 * options are checked whatever the model and errors name what was typed;
 * "did you mean" for commands, options, models, generators, parameters and
 * noise kinds; the default model said; `help COMMAND` = `COMMAND --help`. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
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
         "hetero-hockney, lmo, taulop, lognp, log3p, flow, flow-lv08, nccl, or a models/NAME.xml "
         "file); "
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

/* ---- LogGOPSim's binary GOAL: bad input (issue 20 goal 4) ------------------ */

/* Host byte order, as txt2bin writes. */
static void put32(uint8_t *at, uint32_t v) { memcpy(at, &v, 4); }
static void put64(uint8_t *at, uint64_t v) { memcpy(at, &v, 8); }

/* One record (39 bytes, docs/FORMATS.md): count, type, peer, size, tag,
 * cpu, nic, then dependents (count, first) and start-dependents. */
static void record(uint8_t *at, uint32_t count, uint8_t type, uint32_t peer, uint64_t size,
                   uint32_t ends, uint32_t ends_at, uint32_t starts_at) {
  memset(at, 0, 39);
  put32(at, count), at[4] = type, put32(at + 5, peer), put64(at + 9, size);
  put32(at + 23, ends), put32(at + 27, ends_at), put32(at + 35, starts_at);
}

/* tests/goal/one-send.goal as txt2bin writes it (148 bytes): rank 0's
 * send at byte 58, rank 1's recv at 109, blocks from byte 46 and 97. */
static size_t one_send(uint8_t *b) {
  memset(b, 0, 148);
  put64(b, 4223), put32(b + 8, 2);
  put64(b + 14, 38), put64(b + 22, 89), put64(b + 30, 89), put64(b + 38, 140);
  put32(b + 46, 1), put32(b + 50, 1), record(b + 58, 0, 1, 1, 1, 0, 0, 0);
  put32(b + 97, 1), put32(b + 101, 1), record(b + 109, 0, 2, 0, 1, 0, 0, 0);
  return 148;
}

/* One rank: calc 10, then calc 20 requiring it (124 bytes): records at
 * bytes 42 and 81, the one dependent listed at 120. */
static size_t chain(uint8_t *b) {
  memset(b, 0, 124);
  put64(b, 4223), put32(b + 8, 1), put64(b + 14, 22), put64(b + 22, 116);
  put32(b + 30, 2), put32(b + 34, 1);
  record(b + 42, 0, 3, 0, 10, 1, 0, 1);
  record(b + 81, 1, 3, 0, 20, 0, 1, 1);
  put32(b + 120, 1);
  return 124;
}

/* `run FILE` exits 2 with "fennelsim: FILE:byte ..." + message. */
static void expect_bin(const char *path, const uint8_t *bytes, size_t length, const char *message) {
  char command[512], full[1024];
  fs_test_write_file(path, (const char *)bytes, length);
  snprintf(command, sizeof command, "run %s --model loggops", path);
  snprintf(full, sizeof full, "fennelsim: %s:%s\n", path, message);
  expect(command, 2, full);
}

START_TEST(goal_bin_valid_and_by_content) {
  char *path = fs_test_temp_path(".bin"), *other = fs_test_temp_path(".data");
  uint8_t b[160];
  fs_test_write_file(path, (const char *)b, one_send(b));
  fs_test_write_file(other, (const char *)b, one_send(b));
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(fennelsim("run %s --model loggops", i ? other : path), 0);
    ck_assert_msg(strstr(out, "finish ns  0:1500 1:5500"), "%s", out); /* one-send.goal's */
  }
  fs_test_write_file(path, (const char *)b, chain(b));
  ck_assert_int_eq(fennelsim("run %s --model loggops", path), 0);
  ck_assert_msg(strstr(out, "makespan   30 ns"), "%s", out); /* 10 then 20 on one CPU */
  /* GOAL text (or gzip) named .bin is read by content, as before */
  const char *text = "num_ranks 1\nrank 0 {\nc: calc 10\n}\n";
  fs_test_write_file(path, text, 0);
  ck_assert_int_eq(fennelsim("run %s --model loggops", path), 0);
  ck_assert_msg(strstr(out, "makespan   10 ns"), "%s", out);
  free(path), free(other);
}
END_TEST

START_TEST(goal_bin_truncated_and_foreign) {
  char *path = fs_test_temp_path(".bin");
  uint8_t b[160];
  size_t n = one_send(b);
  expect_bin(path, b, 0,
             "byte 0: expected a LogGOPSim binary schedule (txt2bin's output): the number 4223 "
             "in its first 8 bytes (got the end of the file)");
  expect_bin(path, b, 20,
             "byte 14: expected the block table entry of rank 0 (two 8-byte offsets; the header "
             "says 2 ranks) (got the end of the file)");
  expect_bin(path, b, 100,
             "byte 97: expected rank 1's operation count and count of operations without "
             "dependencies (got the end of the file)");
  expect_bin(path, b, n - 1,
             "byte 109: expected operation 0 of rank 1 (a 39-byte record) (got the end of the "
             "file)");
  b[n] = 0;
  expect_bin(path, b, n + 1,
             "byte 148: expected the end of the file after the block of rank 1, the last (got "
             "more bytes)");
  put64(b, 2342);
  expect_bin(path, b, n,
             "byte 0: expected the magic number 4223 (got 2342: a LogGOPSim run with --save-mem "
             "overwrote this schedule; run txt2bin again)");
  put64(b, __builtin_bswap64(4223));
  expect_bin(path, b, n,
             "byte 0: expected a schedule in this host's byte order (got one written on a host of "
             "the other byte order; run txt2bin on this host)");
  put64(b, 258); /* not text either: a .bin that is not txt2bin's */
  expect_bin(path, b, n,
             "byte 0: expected the magic number 4223 of a LogGOPSim binary schedule (got 258)");
  free(path);
}
END_TEST

START_TEST(goal_bin_sizes_and_counts) {
  char *path = fs_test_temp_path(".bin");
  uint8_t b[160];
  size_t n = one_send(b);
  put32(b + 8, 0);
  expect_bin(path, b, n, "byte 8: expected a rank count from 1 to 2147483647 (got 0)");
  /* 2^31-1 ranks in 148 bytes: the table cannot start the blocks where it
   * says, and nothing was allocated for the ranks */
  put32(b + 8, 0x7fffffff);
  expect_bin(path, b, n,
             "byte 14: expected 34359738358, the start of rank 0's block (right after the block "
             "table) less 8 (got 38)");
  n = one_send(b);
  put64(b + 14, 40);
  expect_bin(path, b, n,
             "byte 14: expected 38, the start of rank 0's block (right after the block table) "
             "less 8 (got 40)");
  n = one_send(b);
  put64(b + 22, 0xffffffffffffffffull);
  expect_bin(path, b, n,
             "byte 22: expected the end of rank 0's block, at least 8 bytes after its start 38 "
             "(got 18446744073709551615)");
  n = one_send(b);
  put32(b + 46, 0xffffffffu);
  expect_bin(path, b, n,
             "byte 46: expected at most 1073741823 operations in a program (got 4294967295 "
             "more)");
  n = one_send(b);
  put32(b + 46, 1000), put32(b + 50, 0);
  expect_bin(path, b, n,
             "byte 46: expected counts that fit in rank 0's block of 51 bytes (got 1000 "
             "operations, 0 without dependencies: 39008 bytes)");
  n = one_send(b);
  put64(b + 22, 93), put64(b + 30, 93);
  expect_bin(path, b, n,
             "byte 22: expected 89, the end of rank 0's block after its 0 listed dependents, less "
             "8 (got 93)");
  free(path);
}
END_TEST

START_TEST(goal_bin_fields) {
  char *path = fs_test_temp_path(".bin");
  uint8_t b[160];
  size_t n = one_send(b);
  b[62] = 4;
  expect_bin(path, b, n,
             "byte 62: expected an operation type, 1 (send), 2 (recv) or 3 (calc) (got 4)");
  n = one_send(b), put32(b + 63, 2);
  expect_bin(path, b, n, "byte 63: expected a destination rank below 2 (got 2)");
  n = one_send(b), put32(b + 63, 0xffffffffu);
  expect_bin(path, b, n, "byte 63: expected a destination rank below 2 (got 4294967295)");
  n = one_send(b), put64(b + 67, (1ull << 62) + 1);
  expect_bin(path, b, n,
             "byte 67: expected a message size of at most 4611686018427387904 B (2^62) (got "
             "4611686018427387905)");
  n = one_send(b), put32(b + 75, 0x80000000u);
  expect_bin(path, b, n,
             "byte 75: expected a tag of at most 2147483647, or 4294967295 (any tag) (got "
             "2147483648)");
  n = one_send(b), b[79] = 1;
  expect_bin(path, b, n,
             "byte 79: expected a CPU index of at most 0, the header's largest (got 1)");
  n = one_send(b), put32(b + 58, 1);
  expect_bin(path, b, n,
             "byte 54: expected an operation without dependencies (got 0, which waits for 1)");
  n = chain(b), put32(b + 38, 1); /* operation 0 waits for nothing, yet is not listed */
  expect_bin(path, b, n,
             "byte 42: expected a dependency count above 0, or operation 0 listed among those "
             "without dependencies (got 0)");
  free(path);
}
END_TEST

START_TEST(goal_bin_dependencies) {
  char *path = fs_test_temp_path(".bin");
  uint8_t b[160];
  size_t n = chain(b);
  put32(b + 120, 2);
  expect_bin(path, b, n, "byte 120: expected an operation of rank 0, below 2 (got 2)");
  n = chain(b), put32(b + 120, 0);
  expect_bin(path, b, n,
             "byte 120: expected at most 0 operations listing operation 0, its dependency count "
             "(got one more)");
  n = chain(b), put32(b + 81, 2);
  expect_bin(path, b, n,
             "byte 81: expected a dependency count of 1, the operations listing operation 1 (got "
             "2)");
  n = chain(b), put32(b + 69, 5);
  expect_bin(path, b, n, "byte 69: expected 0, where the list of its dependents starts (got 5)");
  n = chain(b), put32(b + 42 + 23, 2);
  expect_bin(path, b, n,
             "byte 22: expected 120, the end of rank 0's block after its 2 listed dependents, "
             "less 8 (got 116)");
  free(path);
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
  TCase *bin = tcase_create("goal_bin");
  tcase_add_test(bin, goal_bin_valid_and_by_content);
  tcase_add_test(bin, goal_bin_truncated_and_foreign);
  tcase_add_test(bin, goal_bin_sizes_and_counts);
  tcase_add_test(bin, goal_bin_fields);
  tcase_add_test(bin, goal_bin_dependencies);
  suite_add_tcase(s, bin);
  return s;
}

int main(void) { return fs_test_run(suite()); }
