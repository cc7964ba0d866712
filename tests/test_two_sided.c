/* test_two_sided.c: send/recv in the engine, MPI matching, and the loggops
 * model against LogGOPSim's published outputs (defaults L=2500, o=1500,
 * g=1000, G=6, O=0 ns, S=65535 B), each derived by hand below from the
 * model's rules (src/models/loggops.c):
 *   send at t: CPU to t+o+(s-1)O, NIC to t+g+(s-1)G, message at t+o+L;
 *   receipt at t: CPU to t+o+max((s-1)O,(s-1)G), NIC to t+g+(s-1)G.
 * With 1024 B: (s-1)G = 6138, so a send holds its CPU 1500 and its NIC
 * 7138; a receipt holds the CPU 1500+6138 = 7638. Programs are built by
 * hand here, in the shape of LogGOPSim's schedgen patterns. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/deadlock_report.h"
#include "core/engine.h"
#include "instruments/timeline.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000
#define DEFAULTS ""
#define RENDEZVOUS_PARAMS "L=1000ns o=200ns g=100ns G=1ns S=256"

static int32_t op(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer, int64_t size,
                  int32_t tag) {
  int32_t t = fs_program_add(p, kind, rank);
  ck_assert_int_ge(t, 0);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, size);
  if (tag) ck_assert_int_eq(fs_task_set_tag(p, t, tag), 0);
  return t;
}
static int32_t send(fs_program *p, int32_t rank, int32_t to, int64_t size) {
  return op(p, FS_SEND, rank, to, size, 0);
}
static int32_t recv(fs_program *p, int32_t rank, int32_t from, int64_t size) {
  return op(p, FS_RECV, rank, from, size, 0);
}
static void requires(fs_program *p, int32_t task, int32_t on) {
  ck_assert_int_eq(fs_program_depend(p, task, on, FS_AFTER_END), 0);
}
static void expect_finish(const fs_program *p, const char *model, const char *params,
                          const fs_time *expected_ns) {
  fs_simulation run;
  fs_test_simulate(&run, p, model, "fixed", params);
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  for (int32_t r = 0; r < p->ranks; r++)
    ck_assert_msg(fs_engine_finish_times(run.engine)[r] == expected_ns[r] * NS,
                  "rank %d: %lld ps, expected %lld ns", r,
                  (long long)fs_engine_finish_times(run.engine)[r], (long long)expected_ns[r]);
  fs_test_run_free(&run);
}

/* One 1-byte send: rank 0's CPU is busy o = 1500; the message lands at
 * o+L = 4000 and rank 1 receives it until 4000+o = 5500. */
START_TEST(one_send) {
  fs_program *p = fs_program_new(2);
  send(p, 0, 1, 1);
  recv(p, 1, 0, 1);
  fs_test_finalize(p);
  const fs_time expected[] = {1500, 5500};
  expect_finish(p, "loggops", DEFAULTS, expected);
  fs_program_free(p);
}
END_TEST

/* A 0-byte message costs no (s-1)G: 5500 again (LogGOPSim says 5494). */
START_TEST(empty_message) {
  fs_program *p = fs_program_new(2);
  send(p, 0, 1, 0);
  recv(p, 1, 0, 0);
  fs_test_finalize(p);
  const fs_time expected[] = {1500, 5500};
  expect_finish(p, "loggops", DEFAULTS, expected);
  fs_program_free(p);
}
END_TEST

/* binomialtreebcast, 4 ranks, 1024 B: the root sends to 1, then to 2 (no
 * dependency between them); rank 1 forwards to 3 after its recv.
 *  0: send to 1 at 0 (CPU 1500, NIC 7138); send to 2 waits for the NIC:
 *     7138, CPU to 8638.                                        -> 8638
 *  1: message at 4000, CPU to 11638; send to 3 at 11638 -> 13138 -> 13138
 *  2: message at 7138+4000 = 11138, CPU to 18776                 -> 18776
 *  3: message at 11638+4000 = 15638, CPU to 23276               -> 23276 */
static fs_program *binomial_bcast_4(int64_t size) {
  fs_program *p = fs_program_new(4);
  send(p, 0, 1, size);
  send(p, 0, 2, size);
  int32_t r1 = recv(p, 1, 0, size);
  int32_t s13 = send(p, 1, 3, size);
  requires(p, s13, r1);
  recv(p, 2, 0, size);
  recv(p, 3, 1, size);
  fs_test_finalize(p);
  return p;
}

START_TEST(binomial_bcast_eager) {
  fs_program *p = binomial_bcast_4(1024);
  const fs_time expected[] = {8638, 13138, 18776, 23276};
  expect_finish(p, "loggops", DEFAULTS, expected);
  fs_program_free(p);
}
END_TEST

/* The same with L=1000 o=200 g=100 G=1 S=256: 1024 B is rendezvous; a
 * send holds its CPU 200 and its NIC 100+1023 = 1123, a receipt the CPU
 * 200+1023 = 1223 and the NIC 1123; a rendezvous send completes when its
 * message is matched, at the start of its receipt.
 *  0: send to 1 at 0, CPU to 200; send to 2 at NIC 1123, CPU to 1323;
 *     message to 1 lands 1200, matched at 1200 (recv posted);
 *     message to 2 lands 1123+1200 = 2323, matched then   -> 0: 2323
 *  1: receives [1200, 2423]; sends to 3 at 2423 (CPU to 2623); that
 *     message lands 3623 and is matched then            -> 1: 3623
 *  2: receives [2323, 3546]                              -> 2: 3546
 *  3: receives [3623, 4846]                              -> 3: 4846 */
START_TEST(binomial_bcast_rendezvous) {
  fs_program *p = binomial_bcast_4(1024);
  const fs_time expected[] = {2323, 3623, 3546, 4846};
  expect_finish(p, "loggops", RENDEZVOUS_PARAMS, expected);
  fs_program_free(p);
}
END_TEST

/* binomialtreereduce, 8 ranks, 1024 B, to rank 0: 4..7 send to r-4 at 0
 * (-> 1500); 2, 3 receive from 6, 7 (lands 4000, CPU to 11638) and send to
 * r-2 (-> 13138); 1 receives from 5 (to 11638) and from 3 (sent 11638,
 * lands 15638, CPU to 23276), then sends to 0 (-> 24776); 0 receives from 4
 * (to 11638), from 2 (lands 15638, to 23276) and from 1 (sent 23276, lands
 * 27276, to 34914). */
START_TEST(binomial_reduce_eager) {
  fs_program *p = fs_program_new(8);
  for (int32_t r = 4; r < 8; r++) send(p, r, r - 4, 1024);
  for (int32_t r = 2; r < 4; r++) {
    int32_t in = recv(p, r, r + 4, 1024);
    requires(p, send(p, r, r - 2, 1024), in);
  }
  int32_t a = recv(p, 1, 5, 1024), b = recv(p, 1, 3, 1024);
  requires(p, b, a);
  requires(p, send(p, 1, 0, 1024), b);
  int32_t c = recv(p, 0, 4, 1024), d = recv(p, 0, 2, 1024), e = recv(p, 0, 1, 1024);
  requires(p, d, c);
  requires(p, e, d);
  fs_test_finalize(p);
  const fs_time expected[] = {34914, 24776, 13138, 13138, 1500, 1500, 1500, 1500};
  expect_finish(p, "loggops", DEFAULTS, expected);
  fs_program_free(p);
}
END_TEST

/* Dissemination barrier, 8 B: one hop is o + L + o + 7G = 5542; round k+1
 * starts when round k's recv completes: 3 rounds on 8 ranks = 16626. */
START_TEST(dissemination) {
  const int32_t n = 8;
  fs_program *p = fs_program_new(n);
  int32_t previous[8];
  for (int32_t k = 0, distance = 1; distance < n; k++, distance *= 2) {
    for (int32_t r = 0; r < n; r++) {
      int32_t s = send(p, r, (r + distance) % n, 8);
      int32_t v = recv(p, r, (r - distance + n) % n, 8);
      if (k > 0) requires(p, s, previous[r]), requires(p, v, previous[r]);
      previous[r] = v;
    }
  }
  fs_test_finalize(p);
  const fs_time expected[] = {16626, 16626, 16626, 16626, 16626, 16626, 16626, 16626};
  expect_finish(p, "loggops", DEFAULTS, expected);
  fs_program_free(p);
}
END_TEST

/* Matching is MPI's: the first posted recv whose source and tag accept
 * the message. Rank 0 sends tag 7, then tag 5, to rank 2; rank 1 sends it
 * tag 5. Rank 2 posts recv(any source, tag 5), recv(0, any tag),
 * recv(any, any). Under hockney (alpha 1000, beta 0) rank 1's message and
 * rank 0's first land at 1000, rank 0's second at 2000 (it blocked until
 * its first landed):
 *   0's tag 7 (1000): the first recv wants tag 5; the second takes it;
 *   1's tag 5 (1000): the first recv takes it;
 *   0's tag 5 (2000): the third.
 * So the recvs complete at 1000, 1000 and 2000. */
START_TEST(mpi_matching) {
  fs_program *p = fs_program_new(3);
  op(p, FS_SEND, 0, 2, 8, 7);
  op(p, FS_SEND, 0, 2, 8, 5);
  op(p, FS_SEND, 1, 2, 8, 5);
  int32_t recvs[3] = {op(p, FS_RECV, 2, FS_ANY_SOURCE, 8, 5), op(p, FS_RECV, 2, 0, 8, FS_ANY_TAG),
                      op(p, FS_RECV, 2, FS_ANY_SOURCE, 8, FS_ANY_TAG)};
  fs_test_finalize(p);
  fs_simulation run;
  fs_test_simulate(&run, p, "hockney", "fixed", "alpha=1us beta=0");
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  fs_timeline *timeline = fs_timeline_new(p);
  fs_observer observer = fs_timeline_observer(timeline);
  fs_engine_add_observer(run.engine, &observer);
  ck_assert_int_eq(fs_engine_run(run.engine, &run.err), FS_RUN_OK);
  const fs_time expected[3] = {1000 * NS, 1000 * NS, 2000 * NS};
  /* tag 5 from anyone takes rank 1's message; "from 0" the first of 0's
   * (tag 7); the wildcard 0's second, when it arrives */
  const int32_t partner[3] = {2, 0, 1};
  for (int i = 0; i < 3; i++) {
    fs_time times[4], when;
    fs_timeline_task(timeline, recvs[i], times);
    ck_assert_int_eq(times[3], expected[i]);
    ck_assert_int_eq(fs_timeline_partner(timeline, recvs[i], &when), partner[i]);
    ck_assert_int_eq(fs_timeline_partner(timeline, partner[i], NULL), recvs[i]);
    ck_assert_int_eq(when, expected[i]);
  }
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Unmatched: a recv whose message never comes, and a message nobody
 * receives: status deadlock, and the report names both (the cause, in
 * program order), then the task that waits. */
START_TEST(unmatched_is_reported) {
  fs_program *p = fs_program_new(3);
  op(p, FS_SEND, 0, 1, 8, 3);
  int32_t lonely = op(p, FS_RECV, 2, 0, 8, 4);
  int32_t after = fs_program_add(p, FS_COMPUTE, 2);
  fs_task_set_time(p, after, 5 * NS);
  requires(p, after, lonely);
  fs_test_finalize(p);
  fs_simulation run;
  fs_test_simulate(&run, p, "loggops", "fixed", DEFAULTS);
  ck_assert_int_eq(run.status, FS_RUN_DEADLOCK);
  ck_assert_int_eq(fs_engine_unmatched(run.engine), 2);
  ck_assert_int_eq(fs_engine_stuck_tasks(run.engine), 1);
  char *path = fs_test_temp_path(".txt");
  FILE *out = fopen(path, "w");
  fs_engine_report_stuck(run.engine, out, 10);
  fclose(out);
  char *text = fs_test_read_file(path, NULL);
  ck_assert_str_eq(text,
                   "  send t0 on rank 0 to rank 1, tag 3, 8B: arrived, no recv matched it\n"
                   "  recv t1 on rank 2 from rank 0, tag 4, 8B: posted, no message matched it\n"
                   "  t2 (compute, rank 2) waits for 1 more completion: t1 (recv, rank 2, never "
                   "matched)\n");
  free(text);
  free(path);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* irequires: a calc on CPU 1 that depends on the start of a send on CPU 0
 * starts at 0 with it: finish max(1500, 100) = 1500. With requires it
 * starts when the eager send completes (its CPU is free at 1500): 1600. */
START_TEST(irequires_and_cpus) {
  for (int on_start = 0; on_start < 2; on_start++) {
    fs_program *p = fs_program_new(2);
    int32_t s = send(p, 0, 1, 8);
    int32_t c = fs_program_add(p, FS_COMPUTE, 0);
    fs_task_set_time(p, c, 100 * NS);
    ck_assert_int_eq(fs_task_set_cpu(p, c, 1), 0);
    ck_assert_int_eq(fs_program_depend(p, c, s, on_start ? FS_AFTER_START : FS_AFTER_END), 0);
    recv(p, 1, 0, 8);
    fs_test_finalize(p);
    ck_assert_int_eq(p->cpus, 2);
    const fs_time expected[] = {on_start ? 1500 : 1600, 5542};
    expect_finish(p, "loggops", DEFAULTS, expected);
    fs_program_free(p);
  }
}
END_TEST

/* A rendezvous send (100000 B > S) completes when its message is matched.
 * Rank 1 computes 50 us first. The message lands at o+L = 4000, but its
 * receipt needs rank 1's CPU, busy until 50000. At 50000 the message
 * (placed when its send was issued, at 0, before the compute started)
 * takes the CPU first: receipt [50000, 50000+1500+99999*6 = 651494], no
 * recv posted yet, so it is unexpected. The recv, released by the compute
 * and waiting then, is posted at 50000 too (a recv takes no CPU time),
 * takes the message: the send completes at 50000, the recv when the
 * receipt ends. Rank 0 finishes at 50000, rank 1 at 651494: LogGOPSim
 * gives the same for this program in GOAL (tests/goal/rendezvous-late.goal
 * in test_loggopsim). Before issue 15 the recv waited for the receipt's end and
 * rank 0 finished at 651494, which LogGOPSim does not. */
START_TEST(rendezvous_waits_for_the_recv) {
  fs_program *p = fs_program_new(2);
  send(p, 0, 1, 100000);
  int32_t c = fs_program_add(p, FS_COMPUTE, 1);
  fs_task_set_time(p, c, 50000 * NS);
  int32_t v = recv(p, 1, 0, 100000);
  requires(p, v, c);
  fs_test_finalize(p);
  const fs_time expected[] = {50000, 651494};
  expect_finish(p, "loggops", DEFAULTS, expected);
  fs_program_free(p);
}
END_TEST

/* Under hockney and pipelined, send/recv are eager and receiving takes no
 * CPU: hockney 100 B, alpha 1000, beta 0.5 -> both finish at 1050;
 * pipelined alpha_r 100, alpha_p 500, beta 0.5 -> sender 100, receiver 650. */
START_TEST(send_recv_other_models) {
  fs_program *p = fs_program_new(2);
  send(p, 0, 1, 100);
  recv(p, 1, 0, 100);
  fs_test_finalize(p);
  const fs_time hockney[] = {1050, 1050}, pipelined[] = {100, 650};
  expect_finish(p, "hockney", "alpha=1us beta=0.5ns", hockney);
  expect_finish(p, "pipelined", "alpha_p=500ns alpha_r=100ns beta=0.5ns", pipelined);
  fs_program_free(p);
}
END_TEST

/* One-sided under loggops: put 1024 B: local o = 1500, remote
 * o + L + (s-1)G = 1500+2500+6138 = 10138; get: local o, remote
 * o + 2L + (s-1)G = 1500+5000+6138 = 12638 at the initiator. */
START_TEST(loggops_put_get) {
  fs_program *p = fs_program_new(2);
  op(p, FS_PUT, 0, 1, 1024, 0);
  fs_test_finalize(p);
  const fs_time put[] = {1500, 10138};
  expect_finish(p, "loggops", DEFAULTS, put);
  fs_program_free(p);
  p = fs_program_new(2);
  op(p, FS_GET, 0, 1, 1024, 0);
  fs_test_finalize(p);
  const fs_time get[] = {12638, 0};
  expect_finish(p, "loggops", DEFAULTS, get);
  fs_program_free(p);
}
END_TEST

static Suite *two_sided_suite(void) {
  Suite *s = suite_create("two_sided");
  TCase *c = tcase_create("loggops");
  tcase_add_test(c, one_send);
  tcase_add_test(c, empty_message);
  tcase_add_test(c, binomial_bcast_eager);
  tcase_add_test(c, binomial_bcast_rendezvous);
  tcase_add_test(c, binomial_reduce_eager);
  tcase_add_test(c, dissemination);
  tcase_add_test(c, mpi_matching);
  tcase_add_test(c, unmatched_is_reported);
  tcase_add_test(c, irequires_and_cpus);
  tcase_add_test(c, rendezvous_waits_for_the_recv);
  tcase_add_test(c, send_recv_other_models);
  tcase_add_test(c, loggops_put_get);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(two_sided_suite()); }
