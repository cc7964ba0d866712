/* test_engine.c: the event engine's rules on small hand-built programs:
 * CPU occupation, waiting ranks and tie-breaking, any=K, concurrent tasks,
 * local and remote completion, skew, finish times, deadlock reports, rerun,
 * failing models and models with their own events. Each expected time is
 * derived in the comment above its assertion. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/deadlock_report.h"
#include "core/engine.h"
#include "instruments/timeline.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000 /* picoseconds */

static int32_t add(fs_program *p, fs_task_kind kind, int32_t rank) {
  int32_t t = fs_program_add(p, kind, rank);
  ck_assert_int_ge(t, 0);
  return t;
}

static int32_t compute(fs_program *p, int32_t rank, fs_time time) {
  int32_t t = add(p, FS_COMPUTE, rank);
  fs_task_set_time(p, t, time);
  return t;
}

static int32_t put(fs_program *p, int32_t rank, int32_t to, int64_t size) {
  int32_t t = add(p, FS_PUT, rank);
  fs_task_set_peer(p, t, to);
  fs_task_set_size(p, t, size);
  return t;
}

static void depend(fs_program *p, int32_t task, int32_t on, int local) {
  ck_assert_int_eq(fs_program_depend(p, task, on, local), 0);
}

/* Runs with a timeline attached; returns it (caller frees) */
static fs_timeline *simulate_recorded(fs_simulation *run, const fs_program *p, const char *model,
                                      const char *params) {
  fs_timeline *timeline = fs_timeline_new(p);
  fs_observer observer = fs_timeline_observer(timeline);
  fs_test_simulate_observed(run, p, model, "fixed", params, &observer);
  ck_assert_msg(run->status == FS_RUN_OK, "run failed: %s", run->err.message);
  return timeline;
}

static void assert_task(const fs_timeline *timeline, int32_t task, fs_time ready, fs_time start,
                        fs_time local, fs_time remote) {
  fs_time t[4];
  fs_timeline_task(timeline, task, t);
  ck_assert_msg(t[0] == ready && t[1] == start && t[2] == local && t[3] == remote,
                "task %d: got ready %lld start %lld local %lld remote %lld, expected %lld %lld "
                "%lld %lld",
                task, (long long)t[0], (long long)t[1], (long long)t[2], (long long)t[3],
                (long long)ready, (long long)start, (long long)local, (long long)remote);
}

#define PIPELINED "alpha_p=500ns alpha_r=100ns beta=0"

/* Fennel's concurrency test: computes of 100 and 10 from one start take
 * 110 on one CPU, and 100 when the second is concurrent. */
START_TEST(cpu_is_shared_unless_concurrent) {
  for (int concurrent = 0; concurrent < 2; concurrent++) {
    fs_program *p = fs_program_new(1);
    int32_t s = add(p, FS_START, 0);
    int32_t a = compute(p, 0, 100 * NS), b = compute(p, 0, 10 * NS);
    depend(p, a, s, 0);
    depend(p, b, s, 0);
    if (concurrent) fs_task_set_flag(p, b, FS_CONCURRENT);
    fs_test_finalize(p);
    fs_simulation run;
    fs_timeline *tl = simulate_recorded(&run, p, "hockney", "");
    ck_assert_int_eq(run.status, FS_RUN_OK);
    ck_assert_int_eq(fs_engine_makespan(run.engine), (concurrent ? 100 : 110) * NS);
    /* b is ready at 0; on the shared CPU it starts when a ends at 100 */
    assert_task(tl, b, 0, concurrent ? 0 : 100 * NS, concurrent ? 10 * NS : 110 * NS,
                concurrent ? 10 * NS : 110 * NS);
    fs_timeline_free(tl);
    fs_test_run_free(&run);
    fs_program_free(p);
  }
}
END_TEST

/* Fennel's any test: computes of 100, 10 and 20 (three ranks) feed a proxy
 * with any=2: it completes at the second completion, 20; a compute of 5
 * after it ends at 25. The 100 still completes (makespan 100). */
START_TEST(any_fires_at_kth_completion) {
  fs_program *p = fs_program_new(4);
  int32_t c[3] = {compute(p, 0, 100 * NS), compute(p, 1, 10 * NS), compute(p, 2, 20 * NS)};
  int32_t proxy = add(p, FS_PROXY, 3);
  for (int i = 0; i < 3; i++) depend(p, proxy, c[i], 0);
  fs_task_set_any(p, proxy, 2);
  int32_t after = compute(p, 3, 5 * NS);
  depend(p, after, proxy, 0);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *tl = simulate_recorded(&run, p, "hockney", "");
  ck_assert_int_eq(run.status, FS_RUN_OK);
  assert_task(tl, proxy, 20 * NS, 20 * NS, 20 * NS, 20 * NS);
  assert_task(tl, after, 20 * NS, 20 * NS, 25 * NS, 25 * NS);
  ck_assert_int_eq(fs_engine_finish_times(run.engine)[3], 25 * NS);
  ck_assert_int_eq(fs_engine_makespan(run.engine), 100 * NS);
  fs_timeline_free(tl);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* any=1 over the same inputs fires at 10: never before its first input. */
START_TEST(any_one_fires_at_first_completion) {
  fs_program *p = fs_program_new(2);
  int32_t a = compute(p, 0, 30 * NS), b = compute(p, 1, 10 * NS);
  int32_t proxy = add(p, FS_PROXY, 1);
  depend(p, proxy, a, 0);
  depend(p, proxy, b, 0);
  fs_task_set_any(p, proxy, 1);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *tl = simulate_recorded(&run, p, "hockney", "");
  assert_task(tl, proxy, 10 * NS, 10 * NS, 10 * NS, 10 * NS);
  fs_timeline_free(tl);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Work waiting for a CPU is served in the order it was released, a
 * task's successors being placed when it starts (docs/MODELS.md, "What a free CPU serves first", as LogGOPSim's
 * queue): A (id 3) is reached through a proxy, B (id 4) directly from
 * start s1. s0 and s1 start first (in rank order), then the proxy: B is
 * placed by s1 before A by the proxy, so B runs first: B [0,5], A [5,15],
 * although A comes first in the program. LogGOPSim agrees on the GOAL
 * form of this program, proxy and starts as calc 0 on three CPUs of one
 * rank (tests/goal/release-order-proxy.goal in test_loggopsim); before issue 15
 * A ran first. */
START_TEST(ties_go_by_release_order) {
  fs_program *p = fs_program_new(2);
  int32_t s0 = add(p, FS_START, 0), s1 = add(p, FS_START, 1);
  int32_t proxy = add(p, FS_PROXY, 0);
  depend(p, proxy, s0, 0);
  int32_t a = compute(p, 1, 10 * NS), b = compute(p, 1, 5 * NS);
  depend(p, a, proxy, 0);
  depend(p, b, s1, 0);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *tl = simulate_recorded(&run, p, "hockney", "");
  assert_task(tl, b, 0, 0, 5 * NS, 5 * NS);
  assert_task(tl, a, 0, 5 * NS, 15 * NS, 15 * NS);
  fs_timeline_free(tl);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* A busy rank serves its waiting tasks in the order they were released,
 * not by ready time: x [0,10] holds rank 0; `early` (id 3) is ready at 4
 * and `late` (id 4) at 3, but both were placed when their predecessors
 * started, at4 (rank 1) before at3 (rank 2): early runs first, [10,11],
 * then late [11,13]. LogGOPSim agrees on the GOAL form (the three ranks as
 * three CPUs of one rank: tests/goal/release-order-cpus.goal in
 * test_loggopsim); before issue 15 late ran first. */
START_TEST(waiting_tasks_go_by_release_order) {
  fs_program *p = fs_program_new(3);
  int32_t x = compute(p, 0, 10 * NS);
  int32_t at4 = compute(p, 1, 4 * NS), at3 = compute(p, 2, 3 * NS);
  int32_t early = compute(p, 0, 1 * NS);
  depend(p, early, at4, 0);
  int32_t late = compute(p, 0, 2 * NS);
  depend(p, late, at3, 0);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *tl = simulate_recorded(&run, p, "hockney", "");
  assert_task(tl, x, 0, 0, 10 * NS, 10 * NS);
  assert_task(tl, early, 4 * NS, 10 * NS, 11 * NS, 11 * NS);
  assert_task(tl, late, 3 * NS, 11 * NS, 13 * NS, 13 * NS);
  fs_timeline_free(tl);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Pipelined put, alpha_r 100, alpha_p 500: local at 100, remote at 600.
 * c0 depends on the local completion: [100,110]; c1 on the remote: [600,610]. */
START_TEST(local_and_remote_dependencies) {
  fs_program *p = fs_program_new(2);
  int32_t s = add(p, FS_START, 0);
  int32_t pt = put(p, 0, 1, 8);
  depend(p, pt, s, 0);
  int32_t c0 = compute(p, 0, 10 * NS), c1 = compute(p, 1, 10 * NS);
  depend(p, c0, pt, 1);
  depend(p, c1, pt, 0);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *tl = simulate_recorded(&run, p, "pipelined", PIPELINED);
  assert_task(tl, pt, 0, 0, 100 * NS, 600 * NS);
  assert_task(tl, c0, 100 * NS, 100 * NS, 110 * NS, 110 * NS);
  assert_task(tl, c1, 600 * NS, 600 * NS, 610 * NS, 610 * NS);
  ck_assert_int_eq(fs_engine_finish_times(run.engine)[0], 110 * NS);
  ck_assert_int_eq(fs_engine_finish_times(run.engine)[1], 610 * NS);
  fs_timeline_free(tl);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* A blocking put holds its CPU until remote completion (600): the next
 * compute on rank 0, ready at 0, starts at 600. Without blocking, at 100.
 * A concurrent put takes no CPU: the compute starts at 0. */
START_TEST(blocking_and_concurrent_puts) {
  for (int mode = 0; mode < 3; mode++) {
    fs_program *p = fs_program_new(2);
    int32_t pt = put(p, 0, 1, 8);
    if (mode == 1) fs_task_set_flag(p, pt, FS_BLOCKING);
    if (mode == 2) fs_task_set_flag(p, pt, FS_CONCURRENT);
    int32_t c = compute(p, 0, 10 * NS);
    fs_test_finalize(p);
    fs_simulation run;
    fs_timeline *tl = simulate_recorded(&run, p, "pipelined", PIPELINED);
    fs_time expected_start = mode == 0 ? 100 * NS : mode == 1 ? 600 * NS : 0;
    assert_task(tl, c, 0, expected_start, expected_start + 10 * NS, expected_start + 10 * NS);
    /* rank 1 finishes when the data lands */
    ck_assert_int_eq(fs_engine_finish_times(run.engine)[1], 600 * NS);
    fs_timeline_free(tl);
    fs_test_run_free(&run);
    fs_program_free(p);
  }
}
END_TEST

/* start skew=50 delays its successors; sleep occupies the CPU like compute:
 * sleep [50,80], compute [80,90]. Start and proxy tasks do not count in the
 * finish time: a rank with only a skewed start finishes at 0. */
START_TEST(skew_and_sleep) {
  fs_program *p = fs_program_new(2);
  int32_t s = add(p, FS_START, 0);
  fs_task_set_time(p, s, 50 * NS);
  int32_t z = add(p, FS_SLEEP, 0);
  fs_task_set_time(p, z, 30 * NS);
  depend(p, z, s, 0);
  int32_t c = compute(p, 0, 10 * NS);
  depend(p, c, s, 0);
  int32_t other = add(p, FS_START, 1);
  fs_task_set_time(p, other, 70 * NS);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *tl = simulate_recorded(&run, p, "hockney", "");
  assert_task(tl, s, 0, 0, 50 * NS, 50 * NS);
  assert_task(tl, z, 50 * NS, 50 * NS, 80 * NS, 80 * NS);
  assert_task(tl, c, 50 * NS, 80 * NS, 90 * NS, 90 * NS);
  ck_assert_int_eq(fs_engine_finish_times(run.engine)[1], 0);
  ck_assert_int_eq(fs_engine_makespan(run.engine), 90 * NS);
  fs_timeline_free(tl);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Gets: under pipelined, local = t + alpha_r = 100 and remote = t +
 * alpha_r + 2 alpha_p + beta*size = 100 + 1000 + 0.5*100 = 1150, delivered
 * at the initiator (rank 0); the target rank 1 does nothing (finish 0).
 * Under hockney (alpha 1000, beta 0.5ns): 2*1000 + 50 = 2050, blocking. */
START_TEST(gets) {
  for (int hockney = 0; hockney < 2; hockney++) {
    fs_program *p = fs_program_new(2);
    int32_t g = add(p, FS_GET, 0);
    fs_task_set_peer(p, g, 1);
    fs_task_set_size(p, g, 100);
    fs_test_finalize(p);
    fs_simulation run;
    fs_timeline *tl =
        hockney ? simulate_recorded(&run, p, "hockney", "alpha=1us beta=0.5ns")
                : simulate_recorded(&run, p, "pipelined", "alpha_p=500ns alpha_r=100ns beta=0.5ns");
    if (hockney)
      assert_task(tl, g, 0, 0, 2050 * NS, 2050 * NS);
    else
      assert_task(tl, g, 0, 0, 100 * NS, 1150 * NS);
    ck_assert_int_eq(fs_engine_finish_times(run.engine)[0], hockney ? 2050 * NS : 1150 * NS);
    ck_assert_int_eq(fs_engine_finish_times(run.engine)[1], 0);
    fs_timeline_free(tl);
    fs_test_run_free(&run);
    fs_program_free(p);
  }
}
END_TEST

/* A cycle (a needs b, b needs a) can never start: status deadlock, both
 * tasks listed with what they wait for; the independent task still runs. */
START_TEST(deadlock_is_reported) {
  fs_program *p = fs_program_new(2);
  int32_t fine = compute(p, 1, 7 * NS);
  int32_t a = compute(p, 0, 1 * NS), b = compute(p, 0, 1 * NS);
  depend(p, a, b, 0);
  depend(p, b, a, 0);
  int32_t after = compute(p, 1, 1 * NS);
  depend(p, after, a, 0);
  depend(p, after, fine, 0);
  fs_test_finalize(p);
  fs_simulation run;
  fs_test_simulate(&run, p, "hockney", "fixed", "");
  ck_assert_int_eq(run.status, FS_RUN_DEADLOCK);
  ck_assert_int_eq(fs_engine_stuck_tasks(run.engine), 3);
  ck_assert_ptr_nonnull(strstr(run.err.message, "deadlock: 3 of 4 tasks"));
  ck_assert_int_eq(fs_engine_finish_times(run.engine)[1], 7 * NS);
  char *path = fs_test_temp_path(".txt");
  FILE *out = fopen(path, "w");
  fs_engine_report_stuck(run.engine, out, 2);
  fclose(out);
  char *text = fs_test_read_file(path, NULL);
  ck_assert_str_eq(
      text,
      "  t1 (compute, rank 0) waits for 1 more completion: t2 (compute, rank 0, never ready)\n"
      "  t2 (compute, rank 0) waits for 1 more completion: t1 (compute, rank 0, never ready)\n"
      "  ... and 1 more\n");
  free(text);
  free(path);
  (void)after;
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* A second run on the same engine gives the same times and event count. */
START_TEST(rerun_is_identical) {
  fs_program *p = fs_program_new(3);
  int32_t a = put(p, 0, 1, 64), b = put(p, 0, 2, 64);
  int32_t c = compute(p, 1, 5 * NS);
  depend(p, c, a, 0);
  (void)b;
  fs_test_finalize(p);
  fs_simulation run;
  fs_test_simulate(&run, p, "pipelined", "fixed", PIPELINED);
  fs_time first[3];
  memcpy(first, fs_engine_finish_times(run.engine), sizeof first);
  int64_t events = fs_engine_events(run.engine);
  ck_assert_int_eq(fs_engine_run(run.engine, &run.err), FS_RUN_OK);
  ck_assert_int_eq(memcmp(first, fs_engine_finish_times(run.engine), sizeof first), 0);
  ck_assert_int_eq(events, fs_engine_events(run.engine));
  /* b issues at 100 (after a's alpha_r): arrives 700 at rank 2 */
  ck_assert_int_eq(first[2], 700 * NS);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

START_TEST(empty_program) {
  fs_program *p = fs_program_new(3);
  fs_test_finalize(p);
  fs_simulation run;
  fs_test_simulate(&run, p, "hockney", "fixed", "");
  ck_assert_int_eq(run.status, FS_RUN_OK);
  ck_assert_int_eq(fs_engine_makespan(run.engine), 0);
  ck_assert_int_eq(fs_engine_events(run.engine), 0);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* A model with its own events: each put posts a model event 7 ns later,
 * and from it the put's completion 3 ns after that: the put takes 10 ns. */
static void delayed_start(void *state, fs_engine *e, int32_t task, fs_time now) {
  (void)state;
  fs_engine_post_model_event(e, now + 7 * NS, (uint32_t)task);
}
static void delayed_event(void *state, fs_engine *e, uint32_t payload, fs_time now) {
  (void)state;
  fs_engine_post_complete(e, (int32_t)payload, now + 3 * NS);
}
/* Broken models: one completes in the past, one never completes. */
static void past_start(void *state, fs_engine *e, int32_t task, fs_time now) {
  (void)state;
  fs_engine_post_complete(e, task, now - 1);
}
static void silent_start(void *state, fs_engine *e, int32_t task, fs_time now) {
  (void)state, (void)e, (void)task, (void)now;
}

START_TEST(models_with_own_events_and_broken_models) {
  fs_program *p = fs_program_new(2);
  int32_t s = compute(p, 0, 5 * NS);
  int32_t pt = put(p, 0, 1, 8);
  depend(p, pt, s, 0);
  fs_test_finalize(p);
  fs_compute_model compute_model;
  fs_error err;
  ck_assert_int_eq(fs_compute_model_create("fixed", NULL, &compute_model, &err), 0);
  for (int variant = 0; variant < 3; variant++) {
    fs_network_model model = {.name = "test"};
    model.start = variant == 0 ? delayed_start : variant == 1 ? past_start : silent_start;
    model.event = delayed_event;
    fs_engine *e = fs_engine_new(p, &model, &compute_model, &err);
    int status = fs_engine_run(e, &err);
    if (variant == 0) {
      ck_assert_int_eq(status, FS_RUN_OK);
      ck_assert_int_eq(fs_engine_finish_times(e)[1], 15 * NS);
    } else {
      ck_assert_int_eq(status, FS_RUN_FAILED);
      ck_assert_ptr_nonnull(strstr(err.message, variant == 1 ? "in the past" : "unfinished"));
    }
    fs_engine_free(e);
  }
  fs_compute_model_destroy(&compute_model);
  fs_program_free(p);
}
END_TEST

/* Proxies and starts chain in zero time, in any depth. */
START_TEST(long_zero_time_chain) {
  fs_program *p = fs_program_new(1);
  int32_t previous = add(p, FS_START, 0);
  for (int i = 0; i < 100000; i++) {
    int32_t next = add(p, FS_PROXY, 0);
    depend(p, next, previous, 0);
    previous = next;
  }
  int32_t c = compute(p, 0, 3 * NS);
  depend(p, c, previous, 0);
  fs_test_finalize(p);
  fs_simulation run;
  fs_test_simulate(&run, p, "hockney", "fixed", "");
  ck_assert_int_eq(fs_engine_makespan(run.engine), 3 * NS);
  ck_assert_int_eq(fs_engine_events(run.engine), 100002);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

static Suite *engine_suite(void) {
  Suite *s = suite_create("engine");
  TCase *c = tcase_create("rules");
  tcase_add_test(c, cpu_is_shared_unless_concurrent);
  tcase_add_test(c, any_fires_at_kth_completion);
  tcase_add_test(c, any_one_fires_at_first_completion);
  tcase_add_test(c, ties_go_by_release_order);
  tcase_add_test(c, waiting_tasks_go_by_release_order);
  tcase_add_test(c, local_and_remote_dependencies);
  tcase_add_test(c, blocking_and_concurrent_puts);
  tcase_add_test(c, skew_and_sleep);
  tcase_add_test(c, gets);
  tcase_add_test(c, deadlock_is_reported);
  tcase_add_test(c, rerun_is_identical);
  tcase_add_test(c, empty_program);
  tcase_add_test(c, models_with_own_events_and_broken_models);
  tcase_add_test(c, long_zero_time_chain);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(engine_suite()); }
