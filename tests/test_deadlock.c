/* test_deadlock.c: the deadlock report of `fennelsim run` (issue 16 item
 * 9): it leads with the cause, each send and recv that found no partner
 * (peer, tag, communicator and call for a replayed trace, size), then the
 * tasks that wait and what each waits for. Exact text, three sources: a
 * .dag, a GOAL file and a SimGrid trace. Under loggops (S 65535 B) the
 * 8-byte sends are eager: each completes, and its message waits at the
 * receiver for a recv of its tag that never comes. Also: generated names
 * ("t<id>", not stored) and kept names side by side, in the report and in
 * --timeline. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static char *out, *err;

/* A send with tag 1 and a recv for tag 2: both unmatched; c waits for the
 * recv. Tasks s, r, c: c is the one never ready. */
START_TEST(dag_tag_mismatch) {
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fs_test_write_file(dag,
                                      "fennel-dag 1\nranks 2\n"
                                      "s send 0 to=1 size=8B tag=1\n"
                                      "r recv 1 from=0 size=8B tag=2\n"
                                      "c compute 1 time=1us after=r\n",
                                      0),
                   0);
  ck_assert_int_eq(fennelsim("run %s --model loggops%s", dag, ""), 1);
  char expected[1024];
  snprintf(expected, sizeof expected,
           "fennelsim: %s: deadlock: 1 of 3 tasks can never become ready; 2 receives or messages "
           "found no partner\n"
           "  send s on rank 0 to rank 1, tag 1, 8B: arrived, no recv matched it\n"
           "  recv r on rank 1 from rank 0, tag 2, 8B: posted, no message matched it\n"
           "  c (compute, rank 1) waits for 1 more completion: r (recv, rank 1, never matched)\n",
           dag);
  ck_assert_str_eq(err, expected);
  remove(dag);
  free(dag);
}
END_TEST

/* tests/goal/unmatched.goal: rank 0 sends tag 5, rank 1 waits for tag 6;
 * rank 0's l2 and l3 require each other. The unmatched pair comes first. */
START_TEST(goal_unmatched_recv) {
  const char *goal = FENNELSIM_SOURCE_ROOT "/tests/goal/unmatched.goal";
  ck_assert_int_eq(fennelsim("run %s --model loggops%s", goal, ""), 1);
  char expected[1024];
  snprintf(expected, sizeof expected,
           "fennelsim: %s: deadlock: 3 of 5 tasks can never become ready; 2 receives or messages "
           "found no partner\n"
           "  send r0.l1 on rank 0 to rank 1, tag 5, 8B: arrived, no recv matched it\n"
           "  recv r1.l1 on rank 1 from rank 0, tag 6, 8B: posted, no message matched it\n"
           "  r0.l2 (compute, rank 0) waits for 1 more completion: r0.l3 (compute, rank 0, never "
           "ready)\n"
           "  r0.l3 (compute, rank 0) waits for 1 more completion: r0.l2 (compute, rank 0, never "
           "ready)\n"
           "  r1.l2 (compute, rank 1) waits for 1 more completion: r1.l1 (recv, rank 1, never "
           "matched)\n",
           goal);
  ck_assert_str_eq(err, expected);
}
END_TEST

/* A SimGrid trace (RANK send PEER TAG SIZE): rank 0 sends tag 7, rank 1
 * receives tag 8. The tasks are named after their calls (rank, line, MPI
 * call); the report gives the MPI tags, the communicator and the file and
 * line of each call. Rank 1's MPI_Finalize waits for its recv. */
START_TEST(trace_tag_mismatch) {
  char *rank0 = fs_test_temp_path("-r0.ti"), *rank1 = fs_test_temp_path("-r1.ti");
  ck_assert_int_eq(fs_test_write_file(rank0, "0 init\n0 send 1 7 8\n0 finalize\n", 0), 0);
  ck_assert_int_eq(fs_test_write_file(rank1, "1 init\n1 recv 0 8 8\n1 finalize\n", 0), 0);
  ck_assert_int_eq(fennelsim("run %s %s --model loggops", rank0, rank1), 1);
  char expected[2048];
  snprintf(expected, sizeof expected,
           "fennelsim: %s: deadlock: 1 of 6 tasks can never become ready; 2 receives or messages "
           "found no partner\n"
           "  send r0.L2.MPI_Send on rank 0 to rank 1, tag 7, MPI_COMM_WORLD, 8B (MPI_Send at "
           "%s:2): arrived, no recv matched it\n"
           "  recv r1.L2.MPI_Recv on rank 1 from rank 0, tag 8, MPI_COMM_WORLD, 8B (MPI_Recv at "
           "%s:2): posted, no message matched it\n"
           "  r1.L3.MPI_Finalize (proxy, rank 1) waits for 1 more completion: r1.L2.MPI_Recv "
           "(recv, "
           "rank 1, never matched)\n",
           rank0, rank0, rank1);
  ck_assert_str_eq(err, expected);
  remove(rank0), remove(rank1);
  free(rank0), free(rank1);
}
END_TEST

/* Generated names are not stored (task i named "t<i>"); the others are.
 * Task 1 is "r", so "t1" is free for task 3. t0's tag-1 message finds no
 * recv; t2 waits for r, and task 3 ("t1") for t2. */
#define MIXED_NAMES                 \
  "fennel-dag 1\nranks 2\n"         \
  "t0 send 0 to=1 size=8B tag=1\n"  \
  "r recv 1 from=0 size=8B tag=2\n" \
  "t2 compute 1 time=1us after=r\n" \
  "t1 compute 0 time=1us after=t2\n"

START_TEST(dag_generated_names) {
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fs_test_write_file(dag, MIXED_NAMES, 0), 0);
  ck_assert_int_eq(fennelsim("run %s --model loggops%s", dag, ""), 1);
  char expected[1024];
  snprintf(expected, sizeof expected,
           "fennelsim: %s: deadlock: 2 of 4 tasks can never become ready; 2 receives or messages "
           "found no partner\n"
           "  send t0 on rank 0 to rank 1, tag 1, 8B: arrived, no recv matched it\n"
           "  recv r on rank 1 from rank 0, tag 2, 8B: posted, no message matched it\n"
           "  t2 (compute, rank 1) waits for 1 more completion: r (recv, rank 1, never matched)\n"
           "  t1 (compute, rank 0) waits for 1 more completion: t2 (compute, rank 1, never "
           "ready)\n",
           dag);
  ck_assert_str_eq(err, expected);
  remove(dag);
  free(dag);
}
END_TEST

/* The first field of each --timeline row is the task's name as the file
 * gives it: t0, x, t2 (generated), t5 on task 3 (kept: task 5 does not
 * exist), t4 (generated, after t5). */
START_TEST(timeline_generated_names) {
  char *dag = fs_test_temp_path(".dag"), *csv = fs_test_temp_path(".csv");
  ck_assert_int_eq(fs_test_write_file(dag,
                                      "fennel-dag 1\nranks 2\n"
                                      "t0 start 0\n"
                                      "x put 0 to=1 size=8B after=t0\n"
                                      "t2 compute 1 time=1us after=x\n"
                                      "t5 proxy 1 after=t2,x:local\n"
                                      "t4 proxy 0 after=t5\n",
                                      0),
                   0);
  ck_assert_int_eq(fennelsim("run %s --model hockney --timeline %s", dag, csv), 0);
  size_t length;
  char *text = fs_test_read_file(csv, &length);
  const char *names[] = {"name,", "t0,", "x,", "t2,", "t5,", "t4,"};
  const char *line = text;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    ck_assert_msg(strncmp(line, names[i], strlen(names[i])) == 0, "row %zu: %.20s", i, line);
    line = strchr(line, '\n') + 1;
  }
  ck_assert_str_eq(line, "");
  free(text);
  remove(dag), remove(csv);
  free(dag), free(csv);
}
END_TEST

int main(void) {
  Suite *s = suite_create("deadlock");
  TCase *c = tcase_create("report");
  tcase_add_test(c, dag_tag_mismatch);
  tcase_add_test(c, goal_unmatched_recv);
  tcase_add_test(c, trace_tag_mismatch);
  tcase_add_test(c, dag_generated_names);
  tcase_add_test(c, timeline_generated_names);
  suite_add_tcase(s, c);
  int status = fs_test_run(s);
  free(out), free(err);
  return status;
}
