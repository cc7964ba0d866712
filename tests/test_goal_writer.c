/* test_goal_writer.c: writing programs as LogGOPSim GOAL text: the exact
 * text of small programs (rank grouping, labels, cpu/nic, wildcards,
 * requires/irequires order), every refusal with its message and no file
 * left behind, gzip, and `fennelsim gen/convert` choosing the format. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/program.h"
#include "formats/goal_writer.h"
#include "generators/generators.h"
#include "model_support.h"
#include "test_support.h"

/* ---- helpers ---------------------------------------------------------- */

static int32_t message(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer, int64_t size,
                       int32_t tag) {
  int32_t t = fs_program_add(p, kind, rank);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, size);
  if (tag != 0) ck_assert_int_eq(fs_task_set_tag(p, t, tag), 0);
  return t;
}

static int32_t calc(fs_program *p, int32_t rank, fs_time time) {
  int32_t t = fs_program_add(p, FS_COMPUTE, rank);
  fs_task_set_time(p, t, time);
  return t;
}

/* The GOAL text of p (written to a temporary file), to free. */
static char *goal_text(const fs_program *p) {
  char *path = fs_test_temp_path(".goal");
  fs_error err;
  ck_assert_msg(fs_goal_write(p, path, &err) == 0, "%s", err.message);
  char *text = fs_test_read_file(path, NULL);
  remove(path);
  free(path);
  return text;
}

/* Expects the writer to refuse p with a message holding `part`, leaving no
 * file behind. */
static void assert_refused(const fs_program *p, const char *part) {
  char *path = fs_test_temp_path(".goal");
  fs_error err = {{0}};
  ck_assert_int_eq(fs_goal_write(p, path, &err), -1);
  ck_assert_msg(strstr(err.message, part), "expected '%s' in: %s", part, err.message);
  ck_assert_msg(strncmp(err.message, path, strlen(path)) == 0, "no path in: %s", err.message);
  ck_assert_int_eq(access(path, F_OK), -1);
  free(path);
}

static char *gunzip_file(const char *path) {
  gzFile gz = gzopen(path, "rb");
  ck_assert_ptr_nonnull(gz);
  size_t capacity = 1 << 16, used = 0;
  char *text = malloc(capacity);
  int n;
  while ((n = gzread(gz, text + used, (unsigned)(capacity - used - 1))) > 0) {
    used += (size_t)n;
    if (capacity - used < 2) text = realloc(text, capacity *= 2);
  }
  gzclose(gz);
  text[used] = 0;
  return text;
}

/* ---- exact text ------------------------------------------------------- */

/* Tasks added with the ranks interleaved and dependencies out of order:
 * the output groups by rank, labels in task order, dependencies grouped by
 * dependent and sorted by predecessor. */
START_TEST(exact_text) {
  fs_program *p = fs_program_new(2);
  int32_t any = message(p, FS_RECV, 1, FS_ANY_SOURCE, 8, FS_ANY_TAG);
  ck_assert_int_eq(fs_task_set_cpu(p, any, 1), 0);
  ck_assert_int_eq(fs_task_set_nic(p, any, 1), 0);
  int32_t send = message(p, FS_SEND, 0, 1, 8, 5);
  int32_t work = calc(p, 0, 100 * FS_NS);
  ck_assert_int_eq(fs_task_set_cpu(p, work, 1), 0);
  int32_t back = message(p, FS_SEND, 1, 0, 0, 0);
  ck_assert_int_eq(fs_task_set_nic(p, back, 2), 0);
  int32_t recv = message(p, FS_RECV, 0, 1, 0, 0);
  int32_t last = calc(p, 0, 0);
  fs_program_depend(p, last, recv, FS_AFTER_END);
  fs_program_depend(p, last, work, FS_AFTER_END);
  fs_program_depend(p, work, send, FS_AFTER_START);
  fs_program_depend(p, back, any, FS_AFTER_END);
  fs_program_depend(p, last, send, FS_AFTER_START);
  fs_test_finalize(p);
  char *text = goal_text(p);
  ck_assert_str_eq(text, "num_ranks 2\n"
                         "\n"
                         "rank 0 {\n"
                         "l1: send 8b to 1 tag 5\n"
                         "l2: calc 100 cpu 1\n"
                         "l3: recv 0b from 1 tag 0\n"
                         "l4: calc 0\n"
                         "l2 irequires l1\n"
                         "l4 irequires l1\n"
                         "l4 requires l2\n"
                         "l4 requires l3\n"
                         "}\n"
                         "\n"
                         "rank 1 {\n"
                         "l1: recv 8b from -1 tag -1 cpu 1 nic 1\n"
                         "l2: send 0b to 0 tag 0 nic 2\n"
                         "l2 requires l1\n"
                         "}\n");
  free(text);
  fs_program_free(p);
}
END_TEST

/* A rank without tasks is an empty block; large values are written whole. */
START_TEST(empty_rank_and_large_values) {
  fs_program *p = fs_program_new(3);
  message(p, FS_SEND, 0, 2, (int64_t)1 << 40, 2147483647);
  message(p, FS_RECV, 2, 0, (int64_t)1 << 40, 2147483647);
  calc(p, 2, 9000000000000 * FS_NS);
  fs_test_finalize(p);
  char *text = goal_text(p);
  ck_assert_str_eq(text, "num_ranks 3\n\nrank 0 {\nl1: send 1099511627776b to 2 tag 2147483647\n}\n"
                         "\nrank 1 {\n}\n\nrank 2 {\nl1: recv 1099511627776b from 0 tag "
                         "2147483647\nl2: calc 9000000000000\n}\n");
  free(text);
  fs_program_free(p);
}
END_TEST

/* schedgen -p binomialtreebcast -s 4 -d 1024, as fennelsim writes it. */
static const char bcast4[] = "num_ranks 4\n"
                             "\n"
                             "rank 0 {\n"
                             "l1: send 1024b to 1 tag 0\n"
                             "l2: send 1024b to 2 tag 0\n"
                             "}\n"
                             "\n"
                             "rank 1 {\n"
                             "l1: recv 1024b from 0 tag 0\n"
                             "l2: send 1024b to 3 tag 0\n"
                             "l2 requires l1\n"
                             "}\n"
                             "\n"
                             "rank 2 {\n"
                             "l1: recv 1024b from 0 tag 0\n"
                             "}\n"
                             "\n"
                             "rank 3 {\n"
                             "l1: recv 1024b from 1 tag 0\n"
                             "}\n";

START_TEST(generated_bcast) {
  fs_generator_options o = {.ranks = 4, .size = 1024, .rounds = 1};
  fs_error err;
  fs_program *p = fs_generator_find("bcast-binomial")->generate(&o, &err);
  ck_assert_ptr_nonnull(p);
  char *text = goal_text(p);
  ck_assert_str_eq(text, bcast4);
  free(text);
  fs_program_free(p);
}
END_TEST

START_TEST(gzip) {
  fs_generator_options o = {.ranks = 4, .size = 1024, .rounds = 1};
  fs_error err;
  fs_program *p = fs_generator_find("bcast-binomial")->generate(&o, &err);
  char *path = fs_test_temp_path(".goal.gz");
  ck_assert_int_eq(fs_goal_write(p, path, &err), 0);
  char *raw = fs_test_read_file(path, NULL);
  ck_assert(raw[0] == '\x1f' && raw[1] == '\x8b');
  char *text = gunzip_file(path);
  ck_assert_str_eq(text, bcast4);
  free(raw), free(text), remove(path), free(path);
  fs_program_free(p);
}
END_TEST

START_TEST(unwritable_path) {
  fs_program *p = fs_program_new(1);
  calc(p, 0, FS_NS);
  fs_test_finalize(p);
  fs_error err;
  ck_assert_int_eq(fs_goal_write(p, "/nonexistent-fennelsim-dir/x.goal", &err), -1);
  ck_assert(strstr(err.message, "/nonexistent-fennelsim-dir/x.goal"));
  fs_program_free(p);
}
END_TEST

/* ---- refusals ----------------------------------------------------------- */

START_TEST(refuses_kinds) {
  const fs_task_kind kinds[] = {FS_START, FS_PROXY, FS_SLEEP, FS_PUT, FS_GET};
  const char *names[] = {"(start on rank 1)", "(proxy on rank 1)", "(sleep on rank 1)",
                         "(put on rank 1)", "(get on rank 1)"};
  for (int i = 0; i < 5; i++) {
    fs_program *p = fs_program_new(2);
    calc(p, 0, FS_NS);
    int32_t t = fs_program_add(p, kinds[i], 1);
    if (kinds[i] == FS_PUT || kinds[i] == FS_GET) fs_task_set_peer(p, t, 0);
    fs_test_finalize(p);
    assert_refused(p, "task t1 ");
    assert_refused(p, names[i]);
    assert_refused(p, "GOAL has only send, recv and calc");
    fs_program_free(p);
  }
}
END_TEST

/* One program per refusal: build(p) adds the offending tasks. */
enum refusal {
  SIZED_COMPUTE,
  FRACTIONAL_NS,
  NEGATIVE_TIME,
  CONCURRENT,
  ANY_K,
  SEND_ANY_TAG,
  RECV_TAG,
  NEGATIVE_SIZE,
  CALC_NIC,
  CROSS_RANK,
  LOCAL_DEPENDENCY,
  REFUSALS
};

static fs_program *refused_program(enum refusal r) {
  fs_program *p = fs_program_new(2);
  int32_t a = message(p, FS_SEND, 0, 1, 8, 0), b = message(p, FS_RECV, 1, 0, 8, 0);
  int32_t c = calc(p, 0, FS_NS);
  switch (r) {
    case SIZED_COMPUTE: fs_task_set_size(p, c, 64); break;
    case FRACTIONAL_NS: fs_task_set_time(p, c, 1500 * FS_PS); break;
    case NEGATIVE_TIME: fs_task_set_time(p, c, -FS_NS); break;
    case CONCURRENT: fs_task_set_flag(p, c, FS_CONCURRENT); break;
    case ANY_K:
      fs_program_depend(p, c, a, FS_AFTER_END);
      fs_program_depend(p, c, a, FS_AFTER_START);
      fs_task_set_any(p, c, 1);
      break;
    case SEND_ANY_TAG: fs_task_set_tag(p, a, FS_ANY_TAG); break;
    case RECV_TAG: fs_task_set_tag(p, b, -2); break;
    case NEGATIVE_SIZE: fs_task_set_size(p, b, -8); break;
    case CALC_NIC: fs_task_set_nic(p, c, 1); break;
    case CROSS_RANK: fs_program_depend(p, b, a, FS_AFTER_END); break;
    case LOCAL_DEPENDENCY: fs_program_depend(p, c, a, FS_AFTER_LOCAL); break;
    default: break;
  }
  fs_test_finalize(p);
  return p;
}

START_TEST(refusals) { /* looped over enum refusal */
  const char *expected[REFUSALS] = {
      "task t2 (compute on rank 0) cannot be written as GOAL: calc needs a time=",
      "task t2 (compute on rank 0) cannot be written as GOAL: calc takes a whole, non-negative "
      "number of ns",
      "calc takes a whole, non-negative number of ns",
      "task t2 (compute on rank 0) cannot be written as GOAL: GOAL has no concurrent tasks",
      "task t2 (compute on rank 0) cannot be written as GOAL: GOAL has no any=K",
      "task t0 (send on rank 0) cannot be written as GOAL: a send needs a tag of 0 or more",
      "task t1 (recv on rank 1) cannot be written as GOAL: a recv tag is -1 (any) or 0 or more",
      "task t1 (recv on rank 1) cannot be written as GOAL: its size is negative",
      "task t2 (compute on rank 0) cannot be written as GOAL: calc takes no nic",
      "task t1 (rank 1) depends on task t0 (rank 0): GOAL dependencies stay within a rank",
      "task t2 depends on the local completion of task t0: GOAL has only requires (completion) "
      "and irequires (start)",
  };
  fs_program *p = refused_program((enum refusal)_i);
  assert_refused(p, expected[_i]);
  fs_program_free(p);
}
END_TEST

START_TEST(not_finalized) {
  fs_program *p = fs_program_new(1);
  calc(p, 0, FS_NS);
  fs_error err;
  fs_output *out = fs_output_open("/dev/null", &err);
  ck_assert_int_eq(fs_goal_write_output(p, out, &err), -1);
  ck_assert(strstr(err.message, "not finalized"));
  fs_output_abort(out);
  fs_program_free(p);
}
END_TEST

/* ---- the CLI -------------------------------------------------------------- */

static char *out, *err;

START_TEST(cli_format) {
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --size 1KiB --format goal"), 0);
  ck_assert_str_eq(out, bcast4);
  char *goal = fs_test_temp_path(".goal"), *gz = fs_test_temp_path(".goal.gz"),
       *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --size 1KiB -o %s", goal), 0);
  char *text = fs_test_read_file(goal, NULL);
  ck_assert_str_eq(text, bcast4);
  free(text);
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --size 1KiB -o %s", gz), 0);
  text = gunzip_file(gz);
  ck_assert_str_eq(text, bcast4);
  free(text);
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --size 1KiB --format dag -o %s", goal),
                   0);
  text = fs_test_read_file(goal, NULL);
  ck_assert(strncmp(text, "fennel-dag 1\nranks 4\n", 21) == 0);
  free(text);
  ck_assert_int_eq(fennelsim("gen barrier-dissemination-schedgen --ranks 2 -o %s --format=goal",
                             dag),
                   0);
  text = fs_test_read_file(dag, NULL);
  ck_assert_str_eq(text, "num_ranks 2\n\nrank 0 {\nl1: send 8b to 1 tag 0\nl2: recv 8b from 1 "
                         "tag 0\n}\n\nrank 1 {\nl1: send 8b to 0 tag 0\nl2: recv 8b from 0 tag "
                         "0\n}\n");
  free(text);
  remove(goal), remove(gz), remove(dag);
  free(goal), free(gz), free(dag);
}
END_TEST

START_TEST(cli_errors) {
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --format xml"), 2);
  ck_assert(strstr(err, "--format xml: expected dag, goal or msccl"));
  char *goal = fs_test_temp_path(".goal");
  ck_assert_int_eq(fennelsim("gen allreduce-rd --ranks 4 -o %s", goal), 2);
  ck_assert(
      strstr(err, "fennelsim gen: allreduce-rd uses puts, which GOAL (")); /* test_cli_help.c */
  ck_assert_int_eq(access(goal, F_OK), -1);
  ck_assert_int_eq(fennelsim("gen allreduce-recdoub --ranks 6 --format goal"), 2);
  ck_assert(strstr(err, "power of 2"));
  free(goal);
}
END_TEST

START_TEST(cli_convert) {
  char *dag = fs_test_temp_path(".dag"), *goal = fs_test_temp_path(".goal");
  ck_assert_int_eq(fs_test_write_file(dag,
                                      "fennel-dag 1\nranks 1\nc compute 0 time=5ns\n"
                                      "d compute 0 time=2us after=c\n",
                                      0),
                   0);
  ck_assert_int_eq(fennelsim("convert %s %s", dag, goal), 0);
  char *text = fs_test_read_file(goal, NULL);
  ck_assert_str_eq(text, "num_ranks 1\n\nrank 0 {\nl1: calc 5\nl2: calc 2000\nl2 requires l1\n}\n");
  free(text);
  remove(dag), remove(goal), free(dag), free(goal);
}
END_TEST

static Suite *goal_writer_suite(void) {
  Suite *s = suite_create("goal_writer");
  TCase *tc = tcase_create("writer");
  tcase_add_test(tc, exact_text);
  tcase_add_test(tc, empty_rank_and_large_values);
  tcase_add_test(tc, generated_bcast);
  tcase_add_test(tc, gzip);
  tcase_add_test(tc, unwritable_path);
  tcase_add_test(tc, refuses_kinds);
  tcase_add_loop_test(tc, refusals, 0, REFUSALS);
  tcase_add_test(tc, not_finalized);
  suite_add_tcase(s, tc);
  TCase *cli = tcase_create("cli");
  tcase_add_test(cli, cli_format);
  tcase_add_test(cli, cli_errors);
  tcase_add_test(cli, cli_convert);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) {
  int status = fs_test_run(goal_writer_suite());
  free(out), free(err);
  return status;
}
