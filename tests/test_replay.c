/* test_replay.c: lowering recorded MPI executions onto programs
 * (src/trace/replay.c), with exact simulated times derived by hand.
 *
 * Traces are built in memory with the fs_trace API. Most runs use hockney
 * with alpha = 1 us and beta = 1 ns/B (--param alpha=1us beta=1ns): a
 * message or put of s bytes takes 1 us + s ns, the sender's CPU is held
 * until it lands, and receiving takes no CPU (src/models/hockney.c). The
 * compute model is fixed with compute_time 0: a gap of d is a compute of
 * exactly d, and a reduction priced by size costs nothing. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/deadlock_report.h"
#include "core/engine.h"
#include "io/text_input.h"
#include "generators/generators.h"
#include "model_support.h"
#include "test_support.h"
#include "trace/fennel_trace_reader.h"
#include "trace/replay.h"

#define US FS_US
#define HOCKNEY "alpha=1us beta=1ns"

static const fs_replay_options as_recorded = {.compute_scale = 1, .flop_rate = 1e9};

/* A call on rank r from start to end (us), with the common fields. */
static fs_call *call(fs_trace *t, int32_t r, fs_call_kind kind, double start, double end) {
  fs_call *c = fs_trace_add_call(t, r, kind);
  ck_assert_ptr_nonnull(c);
  c->start = (fs_time)(start * US);
  c->end = (fs_time)(end * US);
  c->line = (uint32_t)t->rank[r].count;
  return c;
}

static fs_call *p2p(fs_trace *t, int32_t r, fs_call_kind kind, double start, double end,
                    int32_t peer, int32_t tag, int64_t bytes) {
  fs_call *c = call(t, r, kind, start, end);
  c->peer = peer;
  c->tag = tag;
  if (kind == FS_CALL_RECV || kind == FS_CALL_IRECV)
    c->recv_bytes = bytes;
  else
    c->bytes = bytes;
  return c;
}

static fs_call *collective(fs_trace *t, int32_t r, fs_call_kind kind, double start, double end,
                           int32_t comm, int32_t root, int64_t bytes) {
  fs_call *c = call(t, r, kind, start, end);
  c->comm = comm;
  c->root = root;
  c->bytes = bytes;
  return c;
}

static fs_replay *build(const fs_trace *t, const fs_replay_options *o) {
  fs_error err = {{0}};
  fs_replay *replay = fs_replay_build(t, o, &err);
  ck_assert_msg(replay != NULL, "%s", err.message);
  return replay;
}

static void expect_error(const fs_trace *t, const fs_replay_options *o, const char *message) {
  fs_error err = {{0}};
  fs_replay *replay = fs_replay_build(t, o, &err);
  ck_assert_ptr_null(replay);
  ck_assert_str_eq(err.message, message);
}

/* Runs the replay and checks every rank's finish time (ps). */
static void expect_finish(const fs_replay *replay, const char *model, const char *params,
                          const fs_time *expected) {
  fs_simulation run;
  fs_test_simulate(&run, replay->program, model, "fixed", params);
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  for (int32_t r = 0; r < replay->ranks; r++)
    ck_assert_msg(fs_engine_finish_times(run.engine)[r] == expected[r],
                  "rank %d: %lld ps, expected %lld", r,
                  (long long)fs_engine_finish_times(run.engine)[r], (long long)expected[r]);
  fs_test_run_free(&run);
}

static fs_trace *two_ranks(void) {
  fs_trace *t = fs_trace_new(2);
  ck_assert_ptr_nonnull(t);
  ck_assert_int_eq(fs_trace_set_file(t, 0, "dir/rank-0.fstrace"), 0);
  ck_assert_int_eq(fs_trace_set_file(t, 1, "dir/rank-1.fstrace"), 0);
  return t;
}

/* Rank 0: Init ends at 10, send of 1000 B from 30 to 35, Finalize at 50.
 * Rank 1: Init ends at 5, recv from 10 to 40, Finalize at 60 (us).
 * Replay: rank 0 computes 30-10 = 20, sends [20, 22] (1 us + 1000 ns),
 * computes 50-35 = 15: finish 37. Rank 1 computes 10-5 = 5, its recv
 * completes when the message lands at 22, computes 60-40 = 20: finish 42.
 * Recorded wall times: 50-10 = 40 and 60-5 = 55. */
static fs_trace *blocking_pair(void) {
  fs_trace *t = two_ranks();
  call(t, 0, FS_CALL_INIT, 0, 10);
  p2p(t, 0, FS_CALL_SEND, 30, 35, 1, 7, 1000);
  call(t, 0, FS_CALL_FINALIZE, 50, 51);
  call(t, 1, FS_CALL_INIT, 0, 5);
  p2p(t, 1, FS_CALL_RECV, 10, 40, 0, 7, 1000);
  call(t, 1, FS_CALL_FINALIZE, 60, 61);
  return t;
}

START_TEST(blocking_send_and_recv) {
  fs_trace *t = blocking_pair();
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){37 * US, 42 * US});
  ck_assert_int_eq(replay->recorded[0], 40 * US);
  ck_assert_int_eq(replay->recorded[1], 55 * US);
  ck_assert_int_eq(replay->messages, 1);
  ck_assert_int_eq(replay->calls, 2);
  ck_assert_int_eq(replay->computation, (20 + 15 + 5 + 20) * US);
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* --compute-scale 0.5: rank 0 computes 10, sends [10, 12], computes 7.5:
 * 19.5; rank 1 computes 2.5, receives at 12, computes 10: 22. */
START_TEST(compute_scale_halves_the_gaps) {
  fs_trace *t = blocking_pair();
  fs_replay_options half = {.compute_scale = 0.5, .flop_rate = 1e9};
  fs_replay *replay = build(t, &half);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){19500 * FS_NS, 22 * US});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* Calls the replay does not simulate (Comm_rank, a probe, a test that found
 * nothing) are computation: rank 0's "other" from 12 to 14 and iprobe from
 * 20 to 21 leave one gap 10..30 = 20, as in blocking_send_and_recv. */
START_TEST(unsimulated_calls_are_computation) {
  fs_trace *t = two_ranks();
  call(t, 0, FS_CALL_INIT, 0, 10);
  call(t, 0, FS_CALL_OTHER, 12, 14);
  fs_call *probe = p2p(t, 0, FS_CALL_IPROBE, 20, 21, 1, 7, 0);
  probe->flag = 0;
  p2p(t, 0, FS_CALL_SEND, 30, 35, 1, 7, 1000);
  call(t, 0, FS_CALL_FINALIZE, 50, 51);
  call(t, 1, FS_CALL_INIT, 0, 5);
  p2p(t, 1, FS_CALL_RECV, 10, 40, 0, 7, 1000);
  call(t, 1, FS_CALL_FINALIZE, 60, 61);
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){37 * US, 42 * US});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* Rank 0: isend (req 1) of 1000 B at 20-21, wait at 40-41, Finalize at 41.
 * Rank 1: irecv (req 1) at 0-0, wait at 1-30, Finalize at 30.
 * Rank 0 computes 20, its send holds the CPU [20, 22]; the computation
 * 21..40 = 19 may start after the isend started but needs the CPU: [22,
 * 41]; the wait joins at 41. Rank 1 posts its recv at 0, computes 1, and
 * its wait ends when the message lands: 22. */
START_TEST(nonblocking_calls_and_waits) {
  fs_trace *t = two_ranks();
  call(t, 0, FS_CALL_INIT, 0, 0);
  p2p(t, 0, FS_CALL_ISEND, 20, 21, 1, 3, 1000)->request = 1;
  call(t, 0, FS_CALL_WAIT, 40, 41)->request = 1;
  call(t, 0, FS_CALL_FINALIZE, 41, 42);
  call(t, 1, FS_CALL_INIT, 0, 0);
  p2p(t, 1, FS_CALL_IRECV, 0, 0, 0, 3, 1000)->request = 1;
  call(t, 1, FS_CALL_WAIT, 1, 30)->request = 1;
  call(t, 1, FS_CALL_FINALIZE, 30, 31);
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){41 * US, 22 * US});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* Three ranks: rank 0 posts irecvs from 1 (req 1) and 2 (req 2) and calls
 * Waitany without a recorded index, then computes 100, then Waitall. Rank
 * 1 sends 1000 B at once (lands at 2), rank 2 computes 10 first (lands at
 * 12). The waitany ends with the first message (2): the computation runs
 * [2, 102] and the waitall finds everything done: 102. Rank 0 without the
 * any-semantics would wait for 12 and finish at 112. */
START_TEST(waitany_without_index_needs_one) {
  fs_trace *t = fs_trace_new(3);
  for (int32_t r = 0; r < 3; r++) call(t, r, FS_CALL_INIT, 0, 0);
  p2p(t, 0, FS_CALL_IRECV, 0, 0, 1, 0, 1000)->request = 1;
  p2p(t, 0, FS_CALL_IRECV, 0, 0, 2, 0, 1000)->request = 2;
  int64_t both[] = {1, 2};
  fs_call *any = call(t, 0, FS_CALL_WAITANY, 0, 5);
  any->list_at = fs_trace_add_list(t, 0, both, 2);
  any->list_count = 2;
  fs_call *all = call(t, 0, FS_CALL_WAITALL, 105, 106);
  all->list_at = fs_trace_add_list(t, 0, both, 2);
  all->list_count = 2;
  call(t, 0, FS_CALL_FINALIZE, 106, 107);
  p2p(t, 1, FS_CALL_SEND, 0, 1, 0, 0, 1000);
  call(t, 1, FS_CALL_FINALIZE, 1, 2);
  p2p(t, 2, FS_CALL_SEND, 10, 11, 0, 0, 1000);
  call(t, 2, FS_CALL_FINALIZE, 11, 12);
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){102 * US, 2 * US, 12 * US});
  fs_replay_free(replay);
  /* with the index recorded (entry 1: the message from rank 2), it waits for 12 */
  t->rank[0].calls[3].index = 1;
  replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){112 * US, 2 * US, 12 * US});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* A receive from MPI_ANY_SOURCE whose status recorded rank 2 takes rank 2's
 * message even though rank 1's lands first: rank 1 sends at 0 (lands at
 * 2), rank 2 at 50 (lands at 52); rank 0's recv ends at 52, then its second
 * recv (from 1, already there) at 52. */
START_TEST(wildcard_receive_follows_its_status) {
  fs_trace *t = fs_trace_new(3);
  for (int32_t r = 0; r < 3; r++) call(t, r, FS_CALL_INIT, 0, 0);
  fs_call *any = p2p(t, 0, FS_CALL_RECV, 0, 60, FS_TRACE_ANY, FS_TRACE_ANY, 1000);
  any->source = 2;
  any->source_tag = 4;
  p2p(t, 0, FS_CALL_RECV, 60, 61, 1, 4, 1000);
  call(t, 0, FS_CALL_FINALIZE, 61, 62);
  p2p(t, 1, FS_CALL_SEND, 0, 1, 0, 4, 1000);
  call(t, 1, FS_CALL_FINALIZE, 1, 2);
  p2p(t, 2, FS_CALL_SEND, 50, 51, 0, 4, 1000);
  call(t, 2, FS_CALL_FINALIZE, 51, 52);
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){52 * US, 2 * US, 52 * US});
  fs_replay_free(replay);
  /* unrecorded, the wildcard takes the first message: rank 1's at 2, and the
   * recv from rank 1 then waits for... nothing from rank 1 is left: rank 2's
   * message is from 2, so the second recv never matches: a deadlock */
  t->rank[0].calls[1].source = FS_TRACE_UNKNOWN;
  t->rank[0].calls[1].source_tag = FS_TRACE_UNKNOWN;
  replay = build(t, &as_recorded);
  fs_simulation run;
  fs_test_simulate(&run, replay->program, "hockney", "fixed", HOCKNEY);
  ck_assert_int_eq(run.status, FS_RUN_DEADLOCK);
  fs_test_run_free(&run);
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* Tags are per communicator: a message on a duplicate of world with tag 5
 * does not match a recv on world with tag 5. Rank 1 sends on the duplicate
 * first (at 0, lands 2) then on world (at 10, lands 12); rank 0 receives on
 * world first: it waits for 12, then takes the duplicate's at 12. */
START_TEST(tags_are_per_communicator) {
  fs_trace *t = two_ranks();
  int32_t both[] = {0, 1};
  int32_t dup = fs_trace_define_comm(t, 7, both, 2);
  ck_assert_int_eq(dup, 2);
  for (int32_t r = 0; r < 2; r++) {
    call(t, r, FS_CALL_INIT, 0, 0);
    fs_call *c = collective(t, r, FS_CALL_COMM_DUP, 0, 0, FS_COMM_WORLD, FS_TRACE_UNKNOWN, 0);
    c->new_comm = dup;
  }
  p2p(t, 0, FS_CALL_RECV, 0, 20, 1, 5, 100);
  fs_call *second = p2p(t, 0, FS_CALL_RECV, 20, 20, 1, 5, 100);
  second->comm = dup;
  call(t, 0, FS_CALL_FINALIZE, 20, 21);
  fs_call *first = p2p(t, 1, FS_CALL_SEND, 0, 1, 0, 5, 100);
  first->comm = dup;
  p2p(t, 1, FS_CALL_SEND, 10, 11, 0, 5, 100);
  call(t, 1, FS_CALL_FINALIZE, 11, 12);
  fs_replay *replay = build(t, &as_recorded);
  /* the comm_dup is a barrier (dissemination on 2 ranks: a 0-byte put each
   * way, 1 us): both leave it at 1. Rank 1 sends on the duplicate [1, 2.1],
   * computes 10 - 1 = 9 [2.1, 11.1], sends on world [11.1, 12.2]; its
   * Finalize follows at once: 12.2. Rank 0's recv on world ends at 12.2, its
   * recv on the duplicate finds that message there: 12.2. */
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){12200 * FS_NS, 12200 * FS_NS});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* One collective alone replays exactly as its generated schedule runs. */
static void expect_like_generator(fs_call_kind kind, const char *generator, int32_t ranks,
                                  int32_t root, int64_t bytes, const char *algo) {
  fs_trace *t = fs_trace_new(ranks);
  for (int32_t r = 0; r < ranks; r++) {
    call(t, r, FS_CALL_INIT, 0, 0);
    collective(t, r, kind, 0, 1, FS_COMM_WORLD, root, bytes);
    call(t, r, FS_CALL_FINALIZE, 1, 2);
  }
  fs_replay_options o = as_recorded;
  o.algorithms = algo;
  fs_replay *replay = build(t, &o);
  fs_generator_options g = {.ranks = ranks, .size = bytes, .rounds = 1, .root = root};
  if (algo && strchr(algo, ':')) g.schedule = strchr(algo, ':') + 1;
  fs_error err;
  fs_program *direct = fs_generator_find(generator)->generate(&g, &err);
  ck_assert_msg(direct != NULL, "%s", err.message);
  fs_simulation a, b;
  fs_test_simulate(&a, replay->program, "hockney", "fixed", HOCKNEY);
  fs_test_simulate(&b, direct, "hockney", "fixed", HOCKNEY);
  ck_assert_int_eq(a.status, FS_RUN_OK);
  ck_assert_int_eq(b.status, FS_RUN_OK);
  for (int32_t r = 0; r < ranks; r++)
    ck_assert_msg(fs_engine_finish_times(a.engine)[r] == fs_engine_finish_times(b.engine)[r],
                  "%s rank %d: replay %lld, generator %lld", generator, r,
                  (long long)fs_engine_finish_times(a.engine)[r],
                  (long long)fs_engine_finish_times(b.engine)[r]);
  ck_assert_int_eq(replay->collectives, 1);
  fs_test_run_free(&a);
  fs_test_run_free(&b);
  fs_program_free(direct);
  fs_replay_free(replay);
  fs_trace_free(t);
}

START_TEST(collectives_replay_as_their_generators) {
  expect_like_generator(FS_CALL_ALLREDUCE, "allreduce-rd", 8, 0, 8, NULL);
  expect_like_generator(FS_CALL_ALLREDUCE, "allreduce-rd", 6, 0, 800, NULL);
  expect_like_generator(FS_CALL_ALLREDUCE, "allreduce-rm", 8, 0, 8, "allreduce=rm:a4,a2");
  expect_like_generator(FS_CALL_ALLREDUCE, "allreduce-ring", 5, 0, 1000, "allreduce=ring");
  expect_like_generator(FS_CALL_BCAST, "bcast-binomial", 7, 3, 100, NULL);
  expect_like_generator(FS_CALL_BCAST, "bcast-linear", 4, 2, 100, "bcast=bcast-linear");
  expect_like_generator(FS_CALL_REDUCE, "reduce-binomial", 6, 5, 64, NULL);
  expect_like_generator(FS_CALL_BARRIER, "barrier-dissemination", 5, 0, 0, NULL);
  expect_like_generator(FS_CALL_GATHER, "gather-binomial", 5, 1, 10, NULL);
  expect_like_generator(FS_CALL_ALLGATHER, "allgather-rd", 4, 0, 10, NULL);
  expect_like_generator(FS_CALL_ALLTOALL, "alltoall-pairwise", 4, 0, 10, NULL);
}
END_TEST

/* RD allreduce of 8 B on 4 ranks: two rounds of 8-byte puts, each 1 us +
 * 8 ns, the second after the first has landed: every rank at 2.016 us. */
START_TEST(allreduce_rd_by_hand) {
  fs_trace *t = fs_trace_new(4);
  for (int32_t r = 0; r < 4; r++) {
    call(t, r, FS_CALL_INIT, 0, 0);
    collective(t, r, FS_CALL_ALLREDUCE, 0, 1, FS_COMM_WORLD, FS_TRACE_UNKNOWN, 8);
    call(t, r, FS_CALL_FINALIZE, 1, 1);
  }
  fs_replay *replay = build(t, &as_recorded);
  fs_time done = 2016 * FS_NS;
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){done, done, done, done});
  ck_assert_str_eq(replay->algorithms, "allreduce=allreduce-rd");
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* A bcast on the sub-communicator {world 0, world 2} with root 1 (world
 * 2): world 2 puts 8 B to world 0, landing at 1.008 us; ranks 1 and 3 are
 * not in it and finish at 0. */
START_TEST(collective_on_a_subcommunicator) {
  fs_trace *t = fs_trace_new(4);
  int32_t even[] = {0, 2};
  int32_t c = fs_trace_define_comm(t, 42, even, 2);
  for (int32_t r = 0; r < 4; r++) call(t, r, FS_CALL_INIT, 0, 0);
  for (int32_t r = 0; r < 4; r += 2) collective(t, r, FS_CALL_BCAST, 0, 1, c, 1, 8);
  for (int32_t r = 0; r < 4; r++) call(t, r, FS_CALL_FINALIZE, r % 2 ? 0 : 1, 2);
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){1008 * FS_NS, 0, 1008 * FS_NS, 0});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* Gatherv to root 0 of 0, 100 and 200 B: rank 1's message lands at 1.1 us,
 * rank 2's at 1.2 us; the root has both at 1.2. Alltoallv on 2 ranks, 300
 * B one way and 500 B back (a sendrecv each): 1.3 and 1.5 us. */
START_TEST(v_collectives) {
  fs_trace *t = fs_trace_new(3);
  for (int32_t r = 0; r < 3; r++) {
    call(t, r, FS_CALL_INIT, 0, 0);
    collective(t, r, FS_CALL_GATHERV, 0, 1, FS_COMM_WORLD, 0, 100 * r);
    call(t, r, FS_CALL_FINALIZE, 1, 1);
  }
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){1200 * FS_NS, 1100 * FS_NS, 1200 * FS_NS});
  fs_replay_free(replay);
  fs_trace_free(t);

  t = fs_trace_new(2);
  int64_t counts[2][4] = {{0, 300, 0, 500}, {500, 0, 300, 0}};
  for (int32_t r = 0; r < 2; r++) {
    call(t, r, FS_CALL_INIT, 0, 0);
    fs_call *c = collective(t, r, FS_CALL_ALLTOALLV, 0, 1, FS_COMM_WORLD, FS_TRACE_UNKNOWN, 0);
    c->list_at = fs_trace_add_list(t, r, counts[r], 4);
    c->list_count = 4;
    call(t, r, FS_CALL_FINALIZE, 1, 1);
  }
  replay = build(t, &as_recorded);
  /* rank 0 sends 300 B (1.3), rank 1 sends 500 B (1.5); each ends with both */
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){1500 * FS_NS, 1500 * FS_NS});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* Scan on 4 ranks, 8 B, messages of 1.008 us, each step a sendrecv:
 * distance 1: 0->1, 1->2, 2->3; distance 2: 0->2, 1->3. Rank 0 sends twice:
 * [0, 1.008], [1.008, 2.016]. Rank 1 sends and has 0's partial at 1.008,
 * sends to 3 until 2.016. Rank 2 has 0's partial at 2.016; rank 3 has 1's
 * at 2.016. Everyone ends at 2.016. */
START_TEST(scan_doubling) {
  fs_trace *t = fs_trace_new(4);
  for (int32_t r = 0; r < 4; r++) {
    call(t, r, FS_CALL_INIT, 0, 0);
    collective(t, r, FS_CALL_SCAN, 0, 1, FS_COMM_WORLD, FS_TRACE_UNKNOWN, 8);
    call(t, r, FS_CALL_FINALIZE, 1, 1);
  }
  fs_replay *replay = build(t, &as_recorded);
  fs_time two = 2016 * FS_NS;
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){two, two, two, two});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* SimGrid-style computation: 1e6 flop at --flop-rate 2e9 is 500 us. */
START_TEST(computation_in_flops) {
  fs_trace *t = fs_trace_new(1);
  fs_call *c = call(t, 0, FS_CALL_COMPUTE, 0, 0);
  c->amount = 1e6;
  fs_replay_options o = {.compute_scale = 1, .flop_rate = 2e9};
  fs_replay *replay = build(t, &o);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){500 * US});
  ck_assert_int_eq(replay->recorded[0], -1);
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* Issue 15 item 3: computation past the time limit saturates. Three ranks
 * each compute 1e18 flop at 1e9 flop/s (1e21 ps): each compute task is
 * 2^62 ps, and the total, 3 x 2^62 before (a signed overflow), is 2^62. */
START_TEST(computation_saturates) {
  fs_trace *t = fs_trace_new(3);
  for (int32_t r = 0; r < 3; r++) call(t, r, FS_CALL_COMPUTE, 0, 0)->amount = 1e18;
  fs_replay *replay = build(t, &as_recorded);
  ck_assert_int_eq(replay->computation, FS_TRACE_TIME_LIMIT);
  for (int32_t task = 0; task < replay->program->tasks; task++)
    if (replay->program->kind[task] == FS_COMPUTE)
      ck_assert_int_eq(replay->program->value[task], FS_TRACE_TIME_LIMIT);
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* MPI_Sendrecv around a ring of 3: each rank sends 1000 B right and
 * receives from the left at once: all land at 2 us. */
START_TEST(sendrecv_ring) {
  fs_trace *t = fs_trace_new(3);
  for (int32_t r = 0; r < 3; r++) {
    call(t, r, FS_CALL_INIT, 0, 0);
    fs_call *c = p2p(t, r, FS_CALL_SENDRECV, 0, 3, (r + 1) % 3, 1, 1000);
    c->recv_peer = (r + 2) % 3;
    c->recv_tag = 1;
    c->recv_bytes = 1000;
    call(t, r, FS_CALL_FINALIZE, 3, 3);
  }
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){2 * US, 2 * US, 2 * US});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* MPI_PROC_NULL peers do nothing, and an isend to one completes at once:
 * only the gaps remain, 1 + 2 + 0 = 3 us. */
START_TEST(proc_null_does_nothing) {
  fs_trace *t = fs_trace_new(1);
  call(t, 0, FS_CALL_INIT, 0, 0);
  p2p(t, 0, FS_CALL_SEND, 1, 2, FS_TRACE_PROC_NULL, 0, 100);
  p2p(t, 0, FS_CALL_ISEND, 4, 5, FS_TRACE_PROC_NULL, 0, 100)->request = 1;
  call(t, 0, FS_CALL_WAIT, 5, 6)->request = 1;
  call(t, 0, FS_CALL_FINALIZE, 6, 6);
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){3 * US});
  ck_assert_int_eq(replay->messages, 0);
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* A deadlock report leads with the unmatched calls, named after them
 * (rank, line or call number, MPI call) with their MPI tags (not the
 * program's interned ones, 0 and 1), communicators and files; then what
 * waits. Rank 0's recv (tag 5) is on communicator 42 of both ranks; rank
 * 1's recv (tag 9) has no line, as from OTF2: its 2nd call. */
START_TEST(deadlock_names_the_calls) {
  fs_trace *t = two_ranks();
  ck_assert_int_eq(fs_trace_define_comm(t, 42, (int32_t[]){0, 1}, 2), 2);
  for (int32_t r = 0; r < 2; r++) {
    call(t, r, FS_CALL_INIT, 0, 0);
    fs_call *c = p2p(t, r, FS_CALL_RECV, 0, 1, 1 - r, r ? 9 : 5, 8);
    if (r == 0)
      c->comm = 2;
    else
      c->line = 0;
    call(t, r, FS_CALL_FINALIZE, 1, 1);
  }
  fs_replay *replay = build(t, &as_recorded);
  fs_simulation run;
  fs_test_simulate(&run, replay->program, "hockney", "fixed", HOCKNEY);
  ck_assert_int_eq(run.status, FS_RUN_DEADLOCK);
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  fs_task_describer describer = {fs_replay_describe_task, replay};
  fs_engine_report_deadlock(run.engine, out, 10, &describer);
  fclose(out);
  ck_assert_str_eq(
      text, "  recv r0.L2.MPI_Recv on rank 0 from rank 1, tag 5, communicator 42, 8B (MPI_Recv at "
            "dir/rank-0.fstrace:2): posted, no message matched it\n"
            "  recv r1.c2.MPI_Recv on rank 1 from rank 0, tag 9, MPI_COMM_WORLD, 8B (MPI_Recv, "
            "call 2 of dir/rank-1.fstrace): posted, no message matched it\n"
            "  r0.L3.MPI_Finalize (proxy, rank 0) waits for 1 more completion: r0.L2.MPI_Recv "
            "(recv, rank 0, never matched)\n"
            "  r1.L3.MPI_Finalize (proxy, rank 1) waits for 1 more completion: r1.c2.MPI_Recv "
            "(recv, rank 1, never matched)\n");
  free(text);
  fs_test_run_free(&run);
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

START_TEST(errors_name_the_call) {
  fs_trace *t = two_ranks();
  call(t, 0, FS_CALL_INIT, 0, 0);
  p2p(t, 0, FS_CALL_SEND, 0, 1, 2, 0, 8);
  expect_error(t, &as_recorded,
               "dir/rank-0.fstrace:2: rank 0, send: destination 2 is not a rank of communicator "
               "-1");
  fs_trace_free(t);

  t = two_ranks();
  call(t, 1, FS_CALL_INIT, 0, 0);
  call(t, 1, FS_CALL_WAIT, 0, 1)->request = 9;
  expect_error(t, &as_recorded,
               "dir/rank-1.fstrace:2: rank 1, wait: request 9 was not made by an earlier isend, "
               "irecv or "
               "nonblocking collective");
  fs_trace_free(t);

  t = two_ranks();
  collective(t, 0, FS_CALL_ALLREDUCE, 0, 1, FS_COMM_WORLD, 0, 8);
  collective(t, 1, FS_CALL_BCAST, 0, 1, FS_COMM_WORLD, 0, 8);
  expect_error(t, &as_recorded,
               "dir/rank-1.fstrace:1: rank 1, bcast: collective 0 of communicator -1 does not "
               "match rank 0's "
               "allreduce (line 1)");
  fs_trace_free(t);

  t = two_ranks();
  collective(t, 0, FS_CALL_BCAST, 0, 1, FS_COMM_WORLD, 0, 8);
  collective(t, 1, FS_CALL_BCAST, 0, 1, FS_COMM_WORLD, 1, 8);
  expect_error(t, &as_recorded,
               "dir/rank-1.fstrace:1: rank 1, bcast: collective 0 of communicator -1 does not "
               "match rank 0's "
               "bcast with another root (line 1)");
  fs_trace_free(t);

  t = two_ranks();
  collective(t, 0, FS_CALL_BARRIER, 0, 1, FS_COMM_WORLD, 0, 0);
  collective(t, 0, FS_CALL_BARRIER, 1, 2, FS_COMM_WORLD, 0, 0);
  collective(t, 1, FS_CALL_BARRIER, 0, 1, FS_COMM_WORLD, 0, 0);
  expect_error(t, &as_recorded,
               "dir/rank-0.fstrace:2: rank 0, barrier: rank 0 makes 2 collective calls on "
               "communicator -1, "
               "rank 1 makes 1: this one has no partner");
  fs_trace_free(t);

  t = two_ranks();
  collective(t, 0, FS_CALL_BCAST, 0, 1, FS_COMM_WORLD, 5, 8);
  collective(t, 1, FS_CALL_BCAST, 0, 1, FS_COMM_WORLD, 5, 8);
  expect_error(t, &as_recorded,
               "dir/rank-0.fstrace:1: rank 0, bcast: root 5 is not a rank of communicator -1");
  fs_trace_free(t);

  t = two_ranks();
  call(t, 0, FS_CALL_SEND, 2, 1);
  expect_error(t, &as_recorded, "dir/rank-0.fstrace:1: rank 0, send: it ends before it starts");
  fs_trace_free(t);
}
END_TEST

START_TEST(algo_option_errors) {
  fs_trace *t = blocking_pair();
  fs_replay_options o = as_recorded;
  const char *cases[][2] = {
      {"allreduce", "--algo allreduce: expected COLLECTIVE=ALGORITHM[:OPTION]"},
      {"allscan=rd",
       "--algo: unknown collective 'allscan' (expected one of barrier, bcast, reduce, allreduce, "
       "gather, scatter, allgather, alltoall)"},
      {"allreduce=nope",
       "--algo allreduce=nope: no generator allreduce-nope (see fennelsim gen --list)"},
      {"bcast=binomial:4", "--algo bcast=binomial:4: bcast-binomial takes no option"},
      {"allreduce=dissemination:1",
       "--algo allreduce=dissemination:1: expected a number of ways (2 or more)"},
      {"bcast=chain:x", "--algo bcast=chain:x: expected a segment size (8KiB)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    o.algorithms = cases[i][0];
    expect_error(t, &o, cases[i][1]);
  }
  o.algorithms = "allreduce=rm:auto,bcast=bcast-binomial,barrier=nway:3,bcast=chain:4KiB";
  fs_replay *replay = build(t, &o);
  fs_replay_free(replay);
  o.algorithms = NULL;
  o.compute_scale = -1;
  expect_error(t, &o, "replay: --compute-scale must be >= 0 and --flop-rate > 0");
  fs_trace_free(t);
}
END_TEST

/* ---- traces as the tracer writes them (times in ns) ---- */

static fs_trace *read_text(const char *const *texts, int count) {
  fs_text_input *inputs[4] = {0};
  char name[32];
  for (int r = 0; r < count; r++) {
    snprintf(name, sizeof name, "rank-%d.fstrace", r);
    inputs[r] = fs_text_input_open_memory(texts[r], strlen(texts[r]), name);
    ck_assert_ptr_nonnull(inputs[r]);
  }
  fs_error err = {{0}};
  fs_trace *t = fs_fennel_trace_read_inputs(inputs, count, &err);
  for (int r = 0; r < count; r++) fs_text_input_close(inputs[r]);
  ck_assert_msg(t != NULL, "%s", err.message);
  return t;
}

/* Persistent requests as the tracer records them: rank 0 starts a
 * persistent send (tag 5, 1000 B) 3 times, each start an isend line with a
 * new id, each waited; rank 1 receives them with ordinary recvs. Then rank
 * 1 starts two persistent receives with one Startall over [35, 36] us (two
 * irecv lines sharing its span, back to back) that rank 0's ordinary sends
 * (tags 6 and 7) match.
 * Rank 0: computes 10, sends [10, 12] (1 us + 1000 ns), the wait joins at
 * 12; computes 20 - 10 = 10 [12, 22], sends [22, 24]; computes [24, 34],
 * sends [34, 36]; computes 40 - 30 = 10 [36, 46]; sends 1000 B [46, 48]
 * and 500 B [48, 49.5]: 49.5. Rank 1's recvs end at 12, 24 and 36 (no
 * gaps); the irecvs are posted at 36 with no computation between them (the
 * Startall's lines leave no gap), the waitall ends when the 500 B land:
 * 49.5. Without the isend lines (the tracer before it wrapped
 * MPI_Start), rank 1's recvs would never match. */
START_TEST(persistent_starts_match_ordinary_calls) {
  const char *texts[2] =
      {"# fennelsim-trace 1\nrank 0 2\ninit 0 0\n"
       "isend 10000 10000 peer=1 tag=5 comm=0 bytes=1000 req=1\nwait 10000 10000 req=1\n"
       "isend 20000 20000 peer=1 tag=5 comm=0 bytes=1000 req=2\nwait 20000 20000 req=2\n"
       "isend 30000 30000 peer=1 tag=5 comm=0 bytes=1000 req=3\nwait 30000 30000 req=3\n"
       "send 40000 40000 peer=1 tag=6 comm=0 bytes=1000\nsend 40000 40000 peer=1 tag=7 comm=0 "
       "bytes=500\n"
       "finalize 40000 40000\n",
       "# fennelsim-trace 1\nrank 1 2\ninit 0 0\n"
       "recv 0 15000 peer=0 tag=5 comm=0 bytes=1000 source=0 stag=5\n"
       "recv 15000 25000 peer=0 tag=5 comm=0 bytes=1000 source=0 stag=5\n"
       "recv 25000 35000 peer=0 tag=5 comm=0 bytes=1000 source=0 stag=5\n"
       "irecv 35000 35500 peer=0 tag=6 comm=0 bytes=1000 req=1\n"
       "irecv 35500 36000 peer=0 tag=7 comm=0 bytes=500 req=2\n"
       "waitall 36000 50000 reqs=1,2 status=1:0:6,2:0:7\n"
       "finalize 50000 50000\n"};
  fs_trace *t = read_text(texts, 2);
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){49500 * FS_NS, 49500 * FS_NS});
  ck_assert_int_eq(replay->messages, 5);
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* Nonblocking collectives run as their blocking ones at the call; their
 * wait or test finds them done. Both ranks: Iallreduce of 8 B at 10 us,
 * Ibarrier at 10.5 us. Under hockney, allreduce-rd on 2 ranks is one 8-byte
 * put each way (1.008 us) and the dissemination barrier a 0-byte put each
 * way (1 us): each rank computes [0, 10], is in the allreduce [10, 11.008]
 * and the barrier [11.008, 12.008].
 * Rank 0 computes 30 - 11 = 19 [12.008, 31.008]; its waitall of both is
 * done at once; an Iallreduce on MPI_COMM_SELF (req 3) is complete at
 * once, its wait too; it computes 40 - 35 = 5: 36.008.
 * Rank 1 computes 20 - 11 = 9 [12.008, 21.008]; its wait (recorded 10 us
 * long: the allreduce's end) and test are done at once; it computes 40 - 35
 * = 5: 26.008. What the replay loses: in the recording the collective
 * overlapped the computation before the wait; here it precedes it. */
START_TEST(nonblocking_collectives_complete_at_the_call) {
  const char *texts[2] =
      {"# fennelsim-trace 1\nrank 0 2\ninit 0 0\n"
       "allreduce 10000 10500 comm=0 bytes=8 rbytes=8 req=1\nbarrier 10500 11000 comm=0 req=2\n"
       "waitall 30000 35000 reqs=1,2\n"
       "allreduce 35000 35000 comm=1 bytes=8 rbytes=8 req=3\nwait 35000 35000 req=3\n"
       "finalize 40000 40000\n",
       "# fennelsim-trace 1\nrank 1 2\ninit 0 0\n"
       "allreduce 10000 10500 comm=0 bytes=8 rbytes=8 req=1\nbarrier 10500 11000 comm=0 req=2\n"
       "wait 20000 30000 req=1\ntest 30000 35000 req=2 flag=1\n"
       "finalize 40000 40000\n"};
  fs_trace *t = read_text(texts, 2);
  fs_replay *replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){36008 * FS_NS, 26008 * FS_NS});
  ck_assert_int_eq(replay->collectives, 2);
  ck_assert_int_eq(replay->calls, 8);
  ck_assert_str_eq(replay->algorithms, "barrier=barrier-dissemination allreduce=allreduce-rd");
  fs_replay_free(replay);
  /* a waitany of the two (index recorded or not) and a waitsome are done at once too */
  t->rank[0].calls[3].kind = FS_CALL_WAITANY;
  replay = build(t, &as_recorded);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){36008 * FS_NS, 26008 * FS_NS});
  fs_replay_free(replay);
  /* members that disagree: rank 1's first collective a bcast */
  t->rank[1].calls[1].kind = FS_CALL_BCAST;
  t->rank[1].calls[1].root = 0;
  expect_error(t, &as_recorded,
               "rank-1.fstrace:4: rank 1, bcast: collective 0 of communicator -1 does not match "
               "rank 0's allreduce "
               "(line 4)");
  fs_trace_free(t);
}
END_TEST

/* ---- computation, every form of every reader (issue 15 item 2) ---- */

/* Writes each text to a temporary file and reads them with fs_trace_read
 * (the reader is chosen as the command line chooses it). */
static fs_trace *read_files(const char *const *texts, int count, const char *suffix) {
  char *paths[4] = {0};
  for (int r = 0; r < count; r++) {
    paths[r] = fs_test_temp_path(suffix);
    ck_assert_int_eq(fs_test_write_file(paths[r], texts[r], 0), 0);
  }
  fs_error err = {{0}};
  fs_trace *t = fs_trace_read((const char *const *)paths, count, &err);
  ck_assert_msg(t != NULL, "%s", err.message);
  for (int r = 0; r < count; r++) free(paths[r]);
  return t;
}

/* fennelsim's own trace, one rank (ns): Init ends at 10; the `other` call
 * at 20-30 is computation like the gap around it; `compute` states 100
 * of computation; a 1-rank barrier costs nothing; the iprobe that found
 * nothing is computation. Gaps 10..100 = 90, compute 100..200 = 100,
 * barrier 200..210, gap 210..300 = 90 (the iprobe inside): 280 ns, also
 * the finish time. (Before the fix: 180, the compute's own 100 lost.) */
START_TEST(fennel_computation_forms) {
  const char *texts[1] = {
      "# fennelsim-trace 1\nrank 0 1\ninit 0 10\nother 20 30 name=MPI_Comm_rank\n"
      "compute 100 200\nbarrier 200 210\niprobe 250 260 peer=0 tag=1 flag=0\n"
      "finalize 300 310\n"};
  fs_trace *t = read_text(texts, 1);
  fs_replay *replay = build(t, &as_recorded);
  ck_assert_int_eq(replay->computation, 280 * FS_NS);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){280 * FS_NS});
  ck_assert_int_eq(replay->recorded[0], 290 * FS_NS);
  fs_replay_free(replay);
  fs_trace_free(t);
  /* the example, and two compute lines back to back: 90 + 100 + 90 */
  const char *plain[1] = {
      "# fennelsim-trace 1\nrank 0 1\ninit 0 10\ncompute 100 200\nbarrier 200 210\n"
      "finalize 300 310\n"};
  t = read_text(plain, 1);
  replay = build(t, &as_recorded);
  ck_assert_int_eq(replay->computation, 280 * FS_NS);
  fs_replay_free(replay);
  fs_trace_free(t);
  const char *twice[1] = {
      "# fennelsim-trace 1\nrank 0 1\ninit 0 10\ncompute 10 50\ncompute 50 100\n"
      "finalize 100 110\n"};
  t = read_text(twice, 1);
  replay = build(t, &as_recorded);
  ck_assert_int_eq(replay->computation, 90 * FS_NS); /* 40 + 50, no gap */
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* liballprof (us). Rank 0: Init ends at 1000; Comm_rank at 1010-1020 and
 * the gap around it up to the Barrier at 1100 are computation (100); the
 * Barrier ends at 1105 and Finalize starts at 1200 (95). Rank 1: Init ends
 * at 500, Barrier at 1100 (600), Finalize at 1105 (0). Together 795 us.
 * The 2-rank dissemination barrier is a 0-byte put each way (1 us): rank 0
 * enters at 100, rank 1 at 600, both leave at 601; rank 0 then computes
 * 95: 696. (A barrier on a size-1 communicator would be MPI_COMM_SELF's,
 * not simulated: its time computation.) */
START_TEST(liballprof_computation_forms) {
  const char *texts[2] =
      {"# collprof 0.9 output file\nMPI_Init:-:1:2:1000\nMPI_Comm_rank:1010:0,0,2:9:1020\n"
       "MPI_Barrier:1100:0,0,2:1105\nMPI_Finalize:1200:-\n",
       "# collprof 0.9 output file\nMPI_Init:-:1:2:500\nMPI_Barrier:1100:0,1,2:1105\n"
       "MPI_Finalize:1105:-\n"};
  fs_trace *t = read_files(texts, 2, ".txt");
  ck_assert_str_eq(t->format, "liballprof");
  fs_replay *replay = build(t, &as_recorded);
  ck_assert_int_eq(replay->computation, 795 * US);
  expect_finish(replay, "hockney", HOCKNEY, (fs_time[]){696 * US, 601 * US});
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* SimGrid (no times): compute 1e6 flop (1 ms at 1e9 flop/s), sleep 1 s,
 * an allreduce's 2e6 flop (2 ms), a reduce's 3e6 flop (3 ms): 1.006 s on
 * one rank. At --flop-rate 2e9 the flops take half: 1.003 s; sleep does not
 * scale with the flop rate. (Before the fix the sleep gave 0.) */
START_TEST(simgrid_computation_forms) {
  const char *texts[1] = {
      "0 init\n0 compute 1000000\n0 sleep 1\n0 allreduce 8 2000000\n0 reduce 8 3000000\n"
      "0 finalize\n"};
  fs_trace *t = read_files(texts, 1, ".ti");
  ck_assert_str_eq(t->format, "simgrid");
  fs_replay *replay = build(t, &as_recorded);
  ck_assert_int_eq(replay->computation, 1006 * FS_MS);
  fs_replay_free(replay);
  fs_replay_options fast = {.compute_scale = 1, .flop_rate = 2e9};
  replay = build(t, &fast);
  ck_assert_int_eq(replay->computation, 1003 * FS_MS);
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

/* ---- the command line, on the recorded Sweep3D run (traces/sweep3d-2x2) ---- */

#define SWEEP3D FENNELSIM_SOURCE_ROOT "/traces/sweep3d-2x2"

/* The number after `key` in text (the first occurrence after from). */
static double number_after(const char *text, const char *key) {
  const char *at = strstr(text, key);
  ck_assert_msg(at != NULL, "no %s in %s", key, text);
  return strtod(at + strlen(key), NULL);
}

/* Issue 7's validation: under loggops with LogGOPSim's defaults, every
 * rank's simulated time is within 2% of its recorded wall time (end of
 * MPI_Init to MPI_Finalize). The exact numbers pin the replay down: the
 * recorded times come from the trace (rank 0: Init ends at
 * 1237666046950106 us, Finalize starts at 1237666089489240 us: 42539134
 * us); the simulated ones only change when the replay or the model does. */
START_TEST(sweep3d_within_two_percent_under_loggops) {
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsim("run " SWEEP3D " --model loggops --format json", &out, &err),
                   0);
  ck_assert_msg(strstr(out, "\"makespan_ns\": 42441429566,"), "%s", out);
  ck_assert_msg(strstr(out, "\"calls\": 11676, \"messages\": 5760, \"collectives\": 39"), "%s",
                out);
  ck_assert_msg(strstr(out,
                       "{\"rank\": 0, \"recorded_ns\": 42539134000, \"simulated_ns\": 42441429566"),
                "%s", out);
  const char *at = strstr(out, "\"ranks\": [{");
  ck_assert_ptr_nonnull(at);
  for (int r = 0; r < 4; r++) {
    at = strstr(at, "\"difference\": ");
    ck_assert_ptr_nonnull(at);
    double d = strtod(at + 14, NULL);
    ck_assert_msg(d > -0.02 && d < 0.02, "rank %d: %f", r, d);
    at++;
  }
  ck_assert_double_lt(number_after(out, "\"largest_difference\": -"), 0.02);
  free(out), free(err);
}
END_TEST

/* --compute-scale 0.5 halves Sweep3D's computation (159.247036 s over the
 * four ranks, from the trace's gaps) and so nearly its time. */
START_TEST(sweep3d_what_if) {
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsim("run " SWEEP3D " --model loggops --compute-scale 0.5 --algo "
                                     "allreduce=rabenseifner",
                                     &out, &err),
                   0);
  ck_assert_msg(strstr(out, "computation 79623518000 ns"), "%s", out);
  ck_assert_msg(strstr(out, "collectives as: barrier=barrier-dissemination bcast=bcast-binomial "
                            "allreduce=allreduce-rabenseifner"),
                "%s", out);
  double makespan = number_after(out, "makespan   ");
  ck_assert_msg(makespan > 21.2 && makespan < 21.8, "%s", out);
  free(out), free(err);
}
END_TEST

/* convert writes the replayed program: run as .dag it gives the same
 * times; as GOAL (two-sided algorithms only) the same as the trace with
 * those algorithms. */
START_TEST(convert_trace_to_dag_and_goal) {
  char *dag = fs_test_temp_path(".dag.gz"), *goal = fs_test_temp_path(".goal");
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "convert %s %s", SWEEP3D, dag), 0);
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, NULL, "run %s --model loggops", dag), 0);
  ck_assert_msg(strstr(out, "finish ns  0:42441429566 1:42441350024 2:42441345024 3:42441336482"),
                "%s", out);
  free(out);
  /* the default allreduce-rd is one-sided: GOAL cannot say it */
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "convert %s %s", SWEEP3D, goal), 2);
  ck_assert_msg(strstr(err, "cannot be written as GOAL") &&
                    strstr(err, "--algo allreduce=rabenseifner"),
                "%s", err);
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "convert %s %s --algo allreduce=rabenseifner",
                                      SWEEP3D, goal),
                   0);
  ck_assert_msg(strstr(err, "note: 256 reductions written as calc 0"), "%s", err);
  free(err);
  char *direct = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, NULL, "run %s --model loggops", goal), 0);
  ck_assert_int_eq(fs_test_fennelsim("run " SWEEP3D
                                     " --model loggops --algo allreduce=rabenseifner",
                                     &direct, NULL),
                   0);
  ck_assert_msg(strstr(out, "finish ns  0:42442141766 1:42442060748 2:42442057266 3:42442047248"),
                "%s", out);
  ck_assert_msg(strstr(direct,
                       "finish ns  0:42442141766 1:42442060748 2:42442057266 3:42442047248"),
                "%s", direct);
  free(out), free(direct), free(dag), free(goal);
}
END_TEST

/* Issue 15: a replayed recording converted to GOAL gives the same times
 * under the GOAL path as the replay itself, under loggops eager and
 * rendezvous, for two sets of two-sided collective algorithms (with half
 * the computation, so messages compete with it differently). The finish
 * lines are compared with each other, not with constants. */
START_TEST(converted_goal_equals_replay) {
  static const char *const algos[] = {"allreduce=rabenseifner",
                                      "allreduce=ring,bcast=scatter-allgather,barrier=nway:3"};
  static const char *const params[] = {"", "--param S=4096 --param L=1000 --param o=200 "
                                           "--param g=100 --param G=1ns"};
  char *goal = fs_test_temp_path(".goal");
  for (int a = 0; a < 2; a++) {
    char *err = NULL;
    ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "convert %s %s --algo %s --compute-scale 0.5",
                                        SWEEP3D, goal, algos[a]),
                     0);
    free(err);
    for (int m = 0; m < 2; m++) {
      char *via_goal = NULL, *direct = NULL;
      ck_assert_int_eq(fs_test_fennelsimf(&via_goal, NULL, "run %s --model loggops %s", goal,
                                          params[m]),
                       0);
      ck_assert_int_eq(fs_test_fennelsimf(&direct, NULL,
                                          "run %s --model loggops --algo %s --compute-scale 0.5 %s",
                                          SWEEP3D, algos[a], params[m]),
                       0);
      const char *g = strstr(via_goal, "finish ns"), *d = strstr(direct, "finish ns");
      ck_assert_ptr_nonnull(g);
      ck_assert_ptr_nonnull(d);
      size_t n = strcspn(g, "\n");
      ck_assert_msg(n == strcspn(d, "\n") && strncmp(g, d, n) == 0, "%s %s:\n%s\n%s", algos[a],
                    params[m], via_goal, direct);
      free(via_goal), free(direct);
    }
  }
  free(goal);
}
END_TEST

/* A SimGrid time-independent trace, all ranks in one file: rank 0 computes
 * 2e6 flop (2 ms at 1e9 flop/s), sends 1000 B to rank 1 (1 us + 1000 ns:
 * lands at 2002 us, ending rank 1's recv); then both enter a 1-byte
 * allreduce at 2002: allreduce-rd on 2 ranks is one put each way, 1.001
 * us; then each combines 1e6 flop, 1 ms as SimGrid runs it: 3003.001 us.
 * The trace has no times: nothing recorded to compare with ("-"). */
START_TEST(simgrid_trace_replays) {
  char *file = fs_test_temp_path(".ti"), *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_write_file(file,
                                      "0 init\n1 init\n0 compute 2000000\n0 send 1 0 1000\n"
                                      "1 recv 0 0 1000\n0 allreduce 1 1000000\n1 allreduce 1 "
                                      "1000000\n"
                                      "0 finalize\n1 finalize\n",
                                      0),
                   0);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "run %s --model hockney --param alpha=1us --param beta=1ns",
                                      file),
                   0);
  ck_assert_msg(strstr(out, "finish ns  0:3003001 1:3003001"), "%s%s", out, err);
  ck_assert_msg(strstr(out, "       1                    -              3003001         -"), "%s",
                out);
  ck_assert_msg(strstr(out, "replay: 4 calls simulated (1 messages, 1 collectives), computation "
                            "4000000 ns"),
                "%s", out);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, NULL,
                                      "run %s --model hockney --param alpha=1us --param beta=1ns "
                                      "--flop-rate 2e9",
                                      file),
                   0);
  ck_assert_msg(strstr(out, "finish ns  0:1503001 1:1503001"), "%s", out);
  free(out), free(file);
}
END_TEST

START_TEST(command_line_errors) {
  char *err = NULL, command[1024];
  ck_assert_int_eq(fs_test_fennelsim("run " SWEEP3D " --algo allreduce=nope", NULL, &err), 2);
  ck_assert_str_eq(err, "fennelsim: --algo allreduce=nope: no generator allreduce-nope (see "
                        "fennelsim gen --list)\n");
  free(err);
  ck_assert_int_eq(fs_test_fennelsim("run " SWEEP3D " --compute-scale -1", NULL, &err), 2);
  ck_assert_str_eq(err, "fennelsim: --compute-scale -1: expected a number >= 0\n");
  free(err);
  ck_assert_int_eq(fs_test_fennelsim("run " SWEEP3D " --flop-rate 0", NULL, &err), 2);
  ck_assert_str_eq(err, "fennelsim: --flop-rate 0: expected a number > 0\n");
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err,
                                      "run %s/schedules/allreduce-rd-8.dag --compute-scale 2",
                                      FENNELSIM_SOURCE_ROOT),
                   2);
  ck_assert_msg(strstr(err, "--algo, --compute-scale and --flop-rate apply to recorded executions, "
                            "not to "),
                "%s", err);
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err,
                                      "run %s/schedules/allreduce-rd-8.dag "
                                      "%s/schedules/spec-example.dag",
                                      FENNELSIM_SOURCE_ROOT, FENNELSIM_SOURCE_ROOT),
                   2);
  ck_assert_msg(strstr(err, "one schedule at a time"), "%s", err);
  free(err);
  /* a directory without traces; one with a rank missing */
  char *dir = fs_test_temp_path("");
  snprintf(command, sizeof command,
           "mkdir -p %s.d && cp %s/pmpi-trace-rank-0.txt %s/pmpi-trace-rank-2.txt %s.d/", dir,
           SWEEP3D, SWEEP3D, dir);
  ck_assert_int_eq(system(command), 0);
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s.d", dir), 2);
  ck_assert_msg(strstr(err, ".d: no file for rank 1 (the next one is "), "%s", err);
  free(err);
  snprintf(command, sizeof command, "mkdir -p %s.e", dir);
  ck_assert_int_eq(system(command), 0);
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s.e", dir), 2);
  ck_assert_msg(strstr(err, ".e: no trace in it (expected pmpi-trace-rank-N.txt, rank-N.fstrace.gz "
                            "or an OTF2 "
                            "archive's .otf2 anchor)"),
                "%s", err);
  free(err);
  free(dir);
}
END_TEST

/* A trace with a task of every named sort on 6 ranks: sendrecv (.send and
 * .recv), isend, irecv, waitall, waitany, a comm_split, an allreduce on the
 * two halves and a bcast on world; rank 5's calls have no lines (named
 * "r5.cN..."), and its Finalize is followed by nothing. */
static fs_trace *every_named_sort(void) {
  fs_trace *t = fs_trace_new(6);
  int32_t halves[2][3] = {{0, 1, 2}, {3, 4, 5}};
  int32_t half[2] = {fs_trace_define_comm(t, 40, halves[0], 3),
                     fs_trace_define_comm(t, 41, halves[1], 3)};
  for (int32_t r = 0; r < 6; r++) {
    ck_assert_int_eq(fs_trace_set_file(t, r, r % 2 ? "odd.fstrace" : "even.fstrace"), 0);
    call(t, r, FS_CALL_INIT, 0, 0);
    fs_call *c = p2p(t, r, FS_CALL_SENDRECV, 0, 1, (r + 1) % 6, 1, 100);
    c->recv_peer = (r + 5) % 6, c->recv_tag = 1, c->recv_bytes = 100;
    p2p(t, r, FS_CALL_IRECV, 1, 2, (r + 5) % 6, 2, 10)->request = 1;
    p2p(t, r, FS_CALL_ISEND, 2, 3, (r + 1) % 6, 2, 10)->request = 2;
    int32_t list = fs_trace_add_list(t, r, (const int64_t[]){1, 2}, 2);
    fs_call *w = call(t, r, r % 2 ? FS_CALL_WAITANY : FS_CALL_WAITALL, 3, 4);
    w->list_at = list, w->list_count = 2, w->index = r % 2 ? 0 : FS_TRACE_UNKNOWN;
    if (r % 2) call(t, r, FS_CALL_WAIT, 4, 4)->request = 2;
    call(t, r, FS_CALL_COMM_SPLIT, 4, 5)->new_comm = half[r / 3];
    collective(t, r, FS_CALL_ALLREDUCE, 5, 6, half[r / 3], FS_TRACE_UNKNOWN, 8);
    collective(t, r, FS_CALL_BCAST, 6, 7, FS_COMM_WORLD, 2, 64);
    call(t, r, FS_CALL_FINALIZE, 8, 8);
  }
  for (int64_t i = 0; i < t->rank[5].count; i++) t->rank[5].calls[i].line = 0;
  return t;
}

/* Names on demand (the CLI's run) and the releasing build give the program
 * and names of the eager build, task by task, and the same descriptions. */
START_TEST(names_on_demand_equal_eager_names) {
  fs_trace *t = every_named_sort(), *owned = every_named_sort();
  fs_replay_options later = as_recorded;
  later.names_on_demand = 1;
  fs_error err = {{0}};
  fs_replay *eager = build(t, &as_recorded), *lazy = fs_replay_build_releasing(owned, &later, &err);
  ck_assert_msg(lazy != NULL, "%s", err.message);
  for (int32_t r = 0; r < 6; r++) ck_assert_ptr_null(owned->rank[r].calls); /* released */
  const fs_program *a = eager->program;
  fs_program *b = lazy->program;
  ck_assert_int_eq(a->tasks, b->tasks);
  ck_assert_int_eq(a->dependencies, b->dependencies);
  ck_assert(a->named && !b->named && b->name_at == NULL);
  char x[24], y[24], text[2][3][160];
  for (int32_t i = 0; i < a->tasks; i++) { /* unnamed until asked */
    ck_assert_int_eq(a->kind[i], b->kind[i]);
    ck_assert_int_eq(a->rank[i], b->rank[i]);
    ck_assert_int_eq(a->peer[i], b->peer[i]);
    ck_assert_int_eq(a->value[i], b->value[i]);
    ck_assert_int_eq(a->need[i], b->need[i]);
    ck_assert_int_eq(fs_task_tag(a, i), fs_task_tag(b, i));
    ck_assert_str_eq(fs_task_name(b, i, y), (snprintf(x, sizeof x, "t%d", i), x));
  }
  for (int32_t i = 0; i <= a->tasks; i++) ck_assert_uint_eq(a->successor_at[i], b->successor_at[i]);
  for (int64_t e = 0; e < a->dependencies; e++) ck_assert_uint_eq(a->successor[e], b->successor[e]);
  ck_assert_int_eq(fs_replay_name_tasks(lazy, b), 0);
  ck_assert(b->named);
  int64_t described = 0;
  for (int32_t i = 0; i < a->tasks; i++) {
    ck_assert_str_eq(fs_task_name(a, i, x), fs_task_name(b, i, y));
    int32_t tag[2];
    int found[2];
    for (int k = 0; k < 2; k++)
      found[k] = fs_replay_describe_task(k ? lazy : eager, k ? b : a, i, &tag[k], text[k][0],
                                         sizeof text[k][0], text[k][1], sizeof text[k][1]);
    ck_assert_int_eq(found[0], found[1]);
    if (found[0] < 0) continue;
    described++;
    ck_assert_int_eq(tag[0], tag[1]);
    ck_assert_str_eq(text[0][0], text[1][0]);
    ck_assert_str_eq(text[0][1], text[1][1]);
  }
  ck_assert_int_eq(described, 6 * 4); /* 2 per sendrecv, the isend and the irecv */
  char name[24];
  int32_t seen = 0; /* a few names spelled out */
  for (int32_t i = 0; i < a->tasks; i++) {
    const char *n = fs_task_name(b, i, name);
    seen += strcmp(n, "r0.L2.MPI_Sendrecv.recv") == 0 ||
            strcmp(n, "r5.c2.MPI_Sendrecv.send") == 0 || strcmp(n, "r3.L5.MPI_Waitany") == 0 ||
            strcmp(n, "r5.c7.MPI_Comm_split") == 0 || strcmp(n, "r4.L8.MPI_Bcast") == 0 ||
            strcmp(n, "r5.c10.MPI_Finalize") == 0;
  }
  ck_assert_int_eq(seen, 6);
  fs_replay_free(eager), fs_replay_free(lazy);
  fs_trace_free(t), fs_trace_free(owned);
}
END_TEST

/* Schedules of more than 2^16 tasks are generated again for each
 * collective instead of cached: two RD allreduces of 8 B on 8192 ranks,
 * back to back, each 13 rounds of 1.008 us (allreduce_rd_by_hand): every
 * rank finishes at 26.208 us. Tasks: per rank a start, two entry and exit
 * proxies and the finalize, 6 x 8192, plus twice RD's 8192 x (1 + 2 x 13)
 * = 221,184 (rounds of a put and its wait, and a start), 491,520. */
START_TEST(large_schedules_are_generated_per_collective) {
  enum { RANKS = 8192 };
  fs_trace *t = fs_trace_new(RANKS);
  for (int32_t r = 0; r < RANKS; r++) {
    call(t, r, FS_CALL_INIT, 0, 0);
    collective(t, r, FS_CALL_ALLREDUCE, 0, 1, FS_COMM_WORLD, FS_TRACE_UNKNOWN, 8);
    collective(t, r, FS_CALL_ALLREDUCE, 1, 2, FS_COMM_WORLD, FS_TRACE_UNKNOWN, 8);
    call(t, r, FS_CALL_FINALIZE, 2, 2);
  }
  fs_error err = {{0}};
  fs_replay *replay = fs_replay_build_releasing(t, &as_recorded, &err);
  ck_assert_msg(replay != NULL, "%s", err.message);
  ck_assert_int_eq(replay->program->tasks, 491520);
  ck_assert_int_eq(replay->collectives, 2);
  fs_time *done = malloc(RANKS * sizeof *done);
  for (int32_t r = 0; r < RANKS; r++) done[r] = 26208 * FS_NS;
  expect_finish(replay, "hockney", HOCKNEY, done);
  free(done);
  fs_replay_free(replay);
  fs_trace_free(t);
}
END_TEST

static Suite *replay_suite(void) {
  Suite *s = suite_create("replay");
  TCase *c = tcase_create("replay");
  tcase_add_test(c, blocking_send_and_recv);
  tcase_add_test(c, compute_scale_halves_the_gaps);
  tcase_add_test(c, unsimulated_calls_are_computation);
  tcase_add_test(c, nonblocking_calls_and_waits);
  tcase_add_test(c, waitany_without_index_needs_one);
  tcase_add_test(c, wildcard_receive_follows_its_status);
  tcase_add_test(c, tags_are_per_communicator);
  tcase_add_test(c, collectives_replay_as_their_generators);
  tcase_add_test(c, allreduce_rd_by_hand);
  tcase_add_test(c, collective_on_a_subcommunicator);
  tcase_add_test(c, v_collectives);
  tcase_add_test(c, scan_doubling);
  tcase_add_test(c, computation_in_flops);
  tcase_add_test(c, computation_saturates);
  tcase_add_test(c, sendrecv_ring);
  tcase_add_test(c, proc_null_does_nothing);
  tcase_add_test(c, deadlock_names_the_calls);
  tcase_add_test(c, names_on_demand_equal_eager_names);
  tcase_add_test(c, large_schedules_are_generated_per_collective);
  tcase_add_test(c, errors_name_the_call);
  tcase_add_test(c, algo_option_errors);
  tcase_add_test(c, persistent_starts_match_ordinary_calls);
  tcase_add_test(c, nonblocking_collectives_complete_at_the_call);
  tcase_add_test(c, fennel_computation_forms);
  tcase_add_test(c, liballprof_computation_forms);
  tcase_add_test(c, simgrid_computation_forms);
  suite_add_tcase(s, c);
  TCase *cli = tcase_create("command_line");
  tcase_add_test(cli, sweep3d_within_two_percent_under_loggops);
  tcase_add_test(cli, sweep3d_what_if);
  tcase_add_test(cli, convert_trace_to_dag_and_goal);
  tcase_add_test(cli, converted_goal_equals_replay);
  tcase_add_test(cli, simgrid_trace_replays);
  tcase_add_test(cli, command_line_errors);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) { return fs_test_run(replay_suite()); }
