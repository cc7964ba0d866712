/* test_cores.c: concurrent tasks on the cores of a platform (docs/MODELS.md, "Concurrent tasks on cores",
 * issue 15 item 12). With a platform, a concurrent task takes a free core
 * of its rank's node and waits when none is free; a rank's busy CPU holds
 * one too; a node's freed cores go to its waiters by (ready time, task id).
 * Each expected time is derived in the comment above its assertion; the
 * timeline shows the core (0-based, the lowest free one) each task ran on. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "instruments/timeline.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000 /* picoseconds */

static int32_t add(fs_program *p, fs_task_kind kind, int32_t rank, int32_t after) {
  int32_t t = fs_program_add(p, kind, rank);
  ck_assert_int_ge(t, 0);
  if (after >= 0) ck_assert_int_eq(fs_program_depend(p, t, after, 0), 0);
  return t;
}

/* A compute of `time` ns after `after` (-1: none), concurrent or not. */
static int32_t compute(fs_program *p, int32_t rank, fs_time time, int concurrent, int32_t after) {
  int32_t t = add(p, FS_COMPUTE, rank, after);
  fs_task_set_time(p, t, time * NS);
  if (concurrent) fs_task_set_flag(p, t, FS_CONCURRENT);
  return t;
}

typedef struct cores_run {
  fs_simulation sim;
  fs_timeline *timeline;
} cores_run;

/* Runs p under model with rank r on node nodes[r] of `cores` cores (nodes
 * NULL: no platform), recording a timeline. */
static void run_on(cores_run *run, const fs_program *p, const char *model, const char *params,
                   const int32_t *nodes, int64_t cores) {
  char text[256];
  fs_parameter items[16];
  fs_parameters parameters;
  memset(run, 0, sizeof *run);
  snprintf(text, sizeof text, "%s", params);
  ck_assert_int_eq(fs_test_parameters(text, items, &parameters), 0);
  ck_assert_int_eq(fs_network_model_create(model, &parameters, &run->sim.network, &run->sim.err),
                   0);
  ck_assert_int_eq(fs_compute_model_create("fixed", &parameters, &run->sim.compute, &run->sim.err),
                   0);
  run->sim.engine = fs_engine_new(p, &run->sim.network, &run->sim.compute, &run->sim.err);
  ck_assert_ptr_nonnull(run->sim.engine);
  if (nodes) ck_assert_int_eq(fs_engine_set_cores(run->sim.engine, nodes, cores, &run->sim.err), 0);
  run->timeline = fs_timeline_new(p);
  fs_observer observer = fs_timeline_observer(run->timeline);
  ck_assert_int_eq(fs_engine_add_observer(run->sim.engine, &observer), 0);
  run->sim.status = fs_engine_run(run->sim.engine, &run->sim.err);
  ck_assert_msg(run->sim.status == FS_RUN_OK, "run failed: %s", run->sim.err.message);
}

static void run_free(cores_run *run) {
  fs_timeline_free(run->timeline);
  fs_test_run_free(&run->sim);
}

/* Task `task` was ready at `ready`, ran on `core` from `start` to `end` (ns;
 * local = remote end). */
static void expect(const cores_run *run, int32_t task, int32_t core, fs_time ready, fs_time start,
                   fs_time end) {
  fs_time t[4];
  fs_timeline_task(run->timeline, task, t);
  int32_t got = fs_timeline_core(run->timeline, task);
  ck_assert_msg(got == core && t[0] == ready * NS && t[1] == start * NS && t[2] == end * NS &&
                    t[3] == end * NS,
                "task %d: core %d ready %lld start %lld end %lld/%lld ps; expected core %d, %lld "
                "%lld %lld ns",
                task, got, (long long)t[0], (long long)t[1], (long long)t[2], (long long)t[3], core,
                (long long)ready, (long long)start, (long long)end);
}

static const int32_t ONE_NODE[4] = {0, 0, 0, 0};

/* Fennel's concurrency test: computes a (100 ns) and b (10 ns), both
 * concurrent, after one start. One core: a takes core 0 at 0 (first by
 * task position), b waits for it: 100..110, makespan 110. Two cores: b
 * takes core 1 at 0: 0..10, makespan 100; a third core stays unused. */
START_TEST(one_core_serializes_two_overlap) {
  fs_program *p = fs_program_new(1);
  int32_t s = add(p, FS_START, 0, -1);
  int32_t a = compute(p, 0, 100, 1, s), b = compute(p, 0, 10, 1, s);
  fs_test_finalize(p);
  cores_run run;
  run_on(&run, p, "hockney", "", ONE_NODE, 1);
  expect(&run, a, 0, 0, 0, 100);
  expect(&run, b, 0, 0, 100, 110);
  ck_assert_int_eq(fs_engine_makespan(run.sim.engine), 110 * NS);
  ck_assert_int_eq(fs_timeline_core(run.timeline, s), -1); /* a start takes no core */
  run_free(&run);
  for (int64_t cores = 2; cores <= 3; cores++) {
    run_on(&run, p, "hockney", "", ONE_NODE, cores);
    expect(&run, a, 0, 0, 0, 100);
    expect(&run, b, 1, 0, 0, 10);
    ck_assert_int_eq(fs_engine_makespan(run.sim.engine), 100 * NS);
    run_free(&run);
  }
  /* without a platform a concurrent task takes no CPU and no core */
  run_on(&run, p, "hockney", "", NULL, 0);
  expect(&run, b, -1, 0, 0, 10);
  ck_assert_int_eq(fs_engine_makespan(run.sim.engine), 100 * NS);
  run_free(&run);
  fs_program_free(p);
}
END_TEST

/* The cores' state in fs_engine_bytes: the program above (3 tasks, 2 of
 * them concurrent) on one node of 2 cores against no platform (the same
 * events, so the same queue): pools 2 x 40 and the ring 2 x 4 (one node,
 * plus one) = 88; pool_of 4 (per slot) and held_core 4 (per CPU); per task
 * plus one (4) task_core 4 + ready_at 8 = 48; the waiters' heap, the CPU
 * and the 2 concurrent tasks, 3 x 16 + 1 = 49; the free cores' heap,
 * min(3, 2 cores) x 4 + 1 = 9. In all 202. */
START_TEST(cores_bytes_exact) {
  fs_program *p = fs_program_new(1);
  int32_t s = add(p, FS_START, 0, -1);
  compute(p, 0, 100, 1, s);
  compute(p, 0, 10, 1, s);
  fs_test_finalize(p);
  cores_run bare, cores;
  run_on(&bare, p, "hockney", "", NULL, 0);
  run_on(&cores, p, "hockney", "", ONE_NODE, 2);
  ck_assert_int_eq(fs_engine_bytes(cores.sim.engine) - fs_engine_bytes(bare.sim.engine), 202);
  run_free(&bare);
  run_free(&cores);
  fs_program_free(p);
}
END_TEST

/* Ranks 0 and 1 on one node of 2 cores: rank 0's concurrent a0 (100 ns)
 * and b0 (50 ns), rank 1's concurrent a1 (30 ns), all ready at 0. By task
 * position a0 takes core 0 (0..100), b0 core 1 (0..50); a1 waits for b0's
 * core: 50..80 on core 1. On two nodes a1 has its own node: core 0, 0..30. */
START_TEST(ranks_of_a_node_compete) {
  fs_program *p = fs_program_new(2);
  int32_t s0 = add(p, FS_START, 0, -1), s1 = add(p, FS_START, 1, -1);
  int32_t a0 = compute(p, 0, 100, 1, s0), b0 = compute(p, 0, 50, 1, s0);
  int32_t a1 = compute(p, 1, 30, 1, s1);
  fs_test_finalize(p);
  cores_run run;
  run_on(&run, p, "hockney", "", ONE_NODE, 2);
  expect(&run, a0, 0, 0, 0, 100);
  expect(&run, b0, 1, 0, 0, 50);
  expect(&run, a1, 1, 0, 50, 80);
  ck_assert_int_eq(fs_engine_finish_times(run.sim.engine)[1], 80 * NS);
  run_free(&run);
  const int32_t two_nodes[2] = {0, 1};
  run_on(&run, p, "hockney", "", two_nodes, 2);
  expect(&run, a1, 0, 0, 0, 30);
  run_free(&run);
  fs_program_free(p);
}
END_TEST

/* A rank's own (non-concurrent) work holds a core of its node while it
 * runs, as Fennel's non-concurrent tasks run on process 0. One core: the
 * concurrent c (100 ns, position 1) and the rank's n (10 ns, position 2)
 * are both ready at 0: c first (0..100), n waits (100..110). With n first
 * in the program: n 0..10, then c 10..110. Two cores: they overlap (c on
 * 0, n on 1), makespan 100. */
START_TEST(own_work_takes_a_core) {
  for (int n_first = 0; n_first < 2; n_first++) {
    fs_program *p = fs_program_new(1);
    int32_t s = add(p, FS_START, 0, -1), c, n;
    if (n_first)
      n = compute(p, 0, 10, 0, s), c = compute(p, 0, 100, 1, s);
    else
      c = compute(p, 0, 100, 1, s), n = compute(p, 0, 10, 0, s);
    fs_test_finalize(p);
    cores_run run;
    run_on(&run, p, "hockney", "", ONE_NODE, 1);
    expect(&run, c, 0, 0, n_first ? 10 : 0, n_first ? 110 : 100);
    expect(&run, n, 0, 0, n_first ? 0 : 100, n_first ? 10 : 110);
    ck_assert_int_eq(fs_engine_makespan(run.sim.engine), 110 * NS);
    run_free(&run);
    run_on(&run, p, "hockney", "", ONE_NODE, 2);
    expect(&run, c, n_first ? 1 : 0, 0, 0, 100);
    expect(&run, n, n_first ? 0 : 1, 0, 0, 10);
    ck_assert_int_eq(fs_engine_makespan(run.sim.engine), 100 * NS);
    run_free(&run);
    fs_program_free(p);
  }
}
END_TEST

/* Ranks 0 and 1 on one node of 2 cores, all ready at 0: rank 0's
 * concurrent x (100 ns, position 2) and its own y (20 ns, 3), rank 1's own
 * z (10 ns, 4). x takes core 0 (0..100), y core 1 (0..20); rank 1's z
 * waits for a core although its CPU is idle: core 1 at 20, 20..30. */
START_TEST(other_ranks_work_waits_for_a_core) {
  fs_program *p = fs_program_new(2);
  int32_t s0 = add(p, FS_START, 0, -1), s1 = add(p, FS_START, 1, -1);
  int32_t x = compute(p, 0, 100, 1, s0), y = compute(p, 0, 20, 0, s0);
  int32_t z = compute(p, 1, 10, 0, s1);
  fs_test_finalize(p);
  cores_run run;
  run_on(&run, p, "hockney", "", ONE_NODE, 2);
  expect(&run, x, 0, 0, 0, 100);
  expect(&run, y, 1, 0, 0, 20);
  expect(&run, z, 1, 0, 20, 30);
  ck_assert_int_eq(fs_engine_finish_times(run.sim.engine)[1], 30 * NS);
  run_free(&run);
  /* a core per rank and one more: nobody waits */
  run_on(&run, p, "hockney", "", ONE_NODE, 3);
  expect(&run, z, 2, 0, 0, 10);
  run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Waiters for one core are served by ready time, then program position.
 * Rank 0 alone on node 0 (1 core), ranks 1 and 2 on node 1 (2 cores).
 * x (concurrent, 100 ns) holds node 0's core 0..100. On rank 1, q (10 ns)
 * then p (10 ns) run 0..10 and 10..20 (q is earlier in the program); z
 * (concurrent, 7 ns, after q) is ready at 10, y (concurrent, 5 ns, after p,
 * earlier in the program than z) at 20: z goes first, 100..107, then y
 * 107..112. */
START_TEST(waiters_by_ready_time_then_position) {
  fs_program *p = fs_program_new(2);
  int32_t s0 = add(p, FS_START, 0, -1), s1 = add(p, FS_START, 1, -1);
  int32_t x = compute(p, 0, 100, 1, s0);
  int32_t q = compute(p, 1, 10, 0, s1), pp = compute(p, 1, 10, 0, s1);
  int32_t y = compute(p, 0, 5, 1, pp), z = compute(p, 0, 7, 1, q);
  fs_test_finalize(p);
  cores_run run;
  const int32_t nodes[2] = {0, 1};
  run_on(&run, p, "hockney", "", nodes, 1);
  expect(&run, x, 0, 0, 0, 100);
  expect(&run, q, 0, 0, 0, 10);
  expect(&run, pp, 0, 0, 10, 20);
  expect(&run, z, 0, 10, 100, 107);
  expect(&run, y, 0, 20, 107, 112);
  run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Two waiters ready at the same time are served by program position, not
 * by the order they became ready. Ranks 0, 1, 2 on nodes 0, 1, 2 of one
 * core. x (concurrent, 100 ns) holds node 0's core 0..100. m1 (rank 1)
 * and m2 (rank 2), 10 ns each, run 0..10 on their nodes; m1's completion is handled first (it started first), so w_hi (after m1)
 * becomes ready before w_lo (after m2), both at 10; w_lo is earlier in the
 * program: w_lo 100..105, then w_hi 105..112. */
START_TEST(same_ready_time_by_position) {
  fs_program *p = fs_program_new(3);
  int32_t s0 = add(p, FS_START, 0, -1), s1 = add(p, FS_START, 1, -1), s2 = add(p, FS_START, 2, -1);
  int32_t x = compute(p, 0, 100, 1, s0);
  int32_t w_lo = fs_program_add(p, FS_COMPUTE, 0), w_hi = fs_program_add(p, FS_COMPUTE, 0);
  int32_t m1 = compute(p, 1, 10, 0, s1), m2 = compute(p, 2, 10, 0, s2);
  fs_task_set_time(p, w_lo, 5 * NS), fs_task_set_time(p, w_hi, 7 * NS);
  fs_task_set_flag(p, w_lo, FS_CONCURRENT), fs_task_set_flag(p, w_hi, FS_CONCURRENT);
  ck_assert_int_eq(fs_program_depend(p, w_lo, m2, 0), 0);
  ck_assert_int_eq(fs_program_depend(p, w_hi, m1, 0), 0);
  fs_test_finalize(p);
  cores_run run;
  const int32_t nodes[3] = {0, 1, 2};
  /* node 0 with 2 cores: x on core 0; at 10 one core is free for both
   * waiters: w_lo 10..15, then w_hi 15..22, both on core 1 */
  run_on(&run, p, "hockney", "", nodes, 2);
  expect(&run, w_lo, 1, 10, 10, 15);
  expect(&run, w_hi, 1, 10, 15, 22);
  run_free(&run);
  run_on(&run, p, "hockney", "", nodes, 1);
  expect(&run, x, 0, 0, 0, 100);
  expect(&run, w_lo, 0, 10, 100, 105);
  expect(&run, w_hi, 0, 10, 105, 112);
  run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Eight waiters for one core: rank 0 alone on node 0 (1 core), where x
 * (concurrent, 1000 ns) holds the core 0..1000; w_k (concurrent, 1 ns,
 * k = 0..7 in program order) waits for m_k on rank k+1 (node k+1), a
 * compute of r_k = (5k mod 8) x 10 ns: r = 0 50 20 70 40 10 60 30. At
 * 1000 they are served by ready time: w0 w5 w2 w7 w4 w1 w6 w3, one after
 * another, w0 1000..1001 to w3 1007..1008. */
START_TEST(many_waiters_by_ready_time) {
  fs_program *p = fs_program_new(9);
  int32_t start[9], w[8];
  for (int32_t r = 0; r < 9; r++) start[r] = add(p, FS_START, r, -1);
  int32_t x = compute(p, 0, 1000, 1, start[0]);
  for (int32_t k = 0; k < 8; k++) w[k] = fs_program_add(p, FS_COMPUTE, 0);
  for (int32_t k = 0; k < 8; k++) {
    int32_t m = compute(p, k + 1, (5 * k % 8) * 10, 0, start[k + 1]);
    fs_task_set_time(p, w[k], 1 * NS);
    fs_task_set_flag(p, w[k], FS_CONCURRENT);
    ck_assert_int_eq(fs_program_depend(p, w[k], m, 0), 0);
  }
  fs_test_finalize(p);
  const int32_t nodes[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  cores_run run;
  run_on(&run, p, "hockney", "", nodes, 1);
  expect(&run, x, 0, 0, 0, 1000);
  const int order[8] = {0, 5, 2, 7, 4, 1, 6, 3};
  for (int i = 0; i < 8; i++) {
    int k = order[i];
    expect(&run, w[k], 0, (5 * k % 8) * 10, 1000 + i, 1001 + i);
  }
  run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Concurrent puts of rank 0 to rank 1 (its own node). Hockney (alpha 1 us,
 * beta 0) keeps the sender busy until arrival: on one core the second put
 * starts when the first lands, 1000..2000; on two both run 0..1000.
 * Pipelined (alpha_r 100 ns, alpha_p 500 ns, beta 0) frees the sender
 * after alpha_r: on one core the second starts at 100 and lands at 700;
 * on two both land at 600. */
START_TEST(concurrent_puts_take_cores) {
  fs_program *p = fs_program_new(2);
  int32_t s = add(p, FS_START, 0, -1), put[2];
  for (int i = 0; i < 2; i++) {
    put[i] = add(p, FS_PUT, 0, s);
    fs_task_set_peer(p, put[i], 1);
    fs_task_set_size(p, put[i], 8);
    fs_task_set_flag(p, put[i], FS_CONCURRENT);
  }
  fs_test_finalize(p);
  const int32_t nodes[2] = {0, 1};
  cores_run run;
  run_on(&run, p, "hockney", "alpha=1us beta=0", nodes, 1);
  expect(&run, put[0], 0, 0, 0, 1000);
  expect(&run, put[1], 0, 0, 1000, 2000);
  run_free(&run);
  run_on(&run, p, "hockney", "alpha=1us beta=0", nodes, 2);
  expect(&run, put[1], 1, 0, 0, 1000);
  run_free(&run);
  for (int cores = 1; cores <= 2; cores++) {
    run_on(&run, p, "pipelined", "alpha_p=500ns alpha_r=100ns beta=0", nodes, cores);
    fs_time t[4];
    fs_timeline_task(run.timeline, put[1], t);
    ck_assert_int_eq(t[1], (cores == 1 ? 100 : 0) * NS);
    ck_assert_int_eq(t[2], (cores == 1 ? 200 : 100) * NS);
    ck_assert_int_eq(t[3], (cores == 1 ? 700 : 600) * NS);
    ck_assert_int_eq(fs_timeline_core(run.timeline, put[1]), cores - 1);
    run_free(&run);
  }
  fs_program_free(p);
}
END_TEST

/* The ring of CPUs to serve in an instant (shared with the cores' grants):
 * a start that readies two ranks' tasks while a round is serving others
 * must not overwrite a CPU still to serve. a (rank 0) and d (rank 3) are
 * ready at 0; starting a readies b (rank 1) and c (rank 2), after a's
 * start; all four run 0..10. Before the fix d was lost: "the network
 * model left 1 transfers unfinished". */
START_TEST(dispatch_keeps_every_cpu) {
  fs_program *p = fs_program_new(4);
  int32_t a = compute(p, 0, 10, 0, -1), d = compute(p, 3, 10, 0, -1);
  int32_t b = compute(p, 1, 10, 0, -1), c = compute(p, 2, 10, 0, -1);
  ck_assert_int_eq(fs_program_depend(p, b, a, FS_AFTER_START), 0);
  ck_assert_int_eq(fs_program_depend(p, c, a, FS_AFTER_START), 0);
  fs_test_finalize(p);
  cores_run run;
  run_on(&run, p, "hockney", "", NULL, 0);
  expect(&run, a, -1, 0, 0, 10);
  expect(&run, d, -1, 0, 0, 10);
  expect(&run, b, -1, 0, 0, 10);
  expect(&run, c, -1, 0, 0, 10);
  run_free(&run);
  fs_program_free(p);
}
END_TEST

/* ---- the command line: every model, the timeline, a study, errors ---- */

static char *out, *err;

static char *temp_text(const char *suffix, const char *text) {
  char *path = fs_test_temp_path(suffix);
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

#define PAIR_DAG                                  \
  "fennel-dag 1\nranks 1\ns start 0\n"            \
  "a compute 0 time=100ns concurrent=1 after=s\n" \
  "b compute 0 time=10ns concurrent=1 after=s\n"

/* The pair of concurrent computes under every network model (the engine's
 * cores are shared): 110 ns on one core, 100 ns on two, 100 without a
 * platform. */
START_TEST(every_model) {
  char *dag = temp_text(".dag", PAIR_DAG);
  char *pairs = temp_text(".pairs", "ranks 1\ndefault alpha=1us beta=0\n");
  char *lmo = temp_text(".pairs", "ranks 1\ndefault C=1us t=0 L=1us invbeta=0\n");
  char *mw = temp_text(".table", "16KiB 29us 420us\n"), *net = temp_text(".table", "16KiB 131us\n");
  char models[7][512];
  snprintf(models[0], sizeof models[0], "hockney");
  snprintf(models[1], sizeof models[1], "pipelined");
  snprintf(models[2], sizeof models[2], "loggops");
  snprintf(models[3], sizeof models[3],
           "taulop --param shm_table=models/metropolis-shm.table "
           "--param net_table=models/metropolis-net.table");
  snprintf(models[4], sizeof models[4], "hetero-hockney --param file=%s", pairs);
  snprintf(models[5], sizeof models[5], "lmo --param file=%s", lmo);
  snprintf(models[6], sizeof models[6],
           "lognp --param mw_table=%s --param net_table=%s --param strides=1KiB", mw, net);
  for (int m = 0; m < 7; m++) {
    ck_assert_msg(fennelsim("run %s --model %s --cores 1", dag, models[m]) == 0, "%s: %s",
                  models[m], err);
    fs_test_contains(out, "makespan   110 ns");
    ck_assert_int_eq(fennelsim("run %s --model %s --nodes 1 --cores 2", dag, models[m]), 0);
    fs_test_contains(out, "makespan   100 ns");
    ck_assert_int_eq(fennelsim("run %s --model %s", dag, models[m]), 0);
    fs_test_contains(out, "makespan   100 ns");
  }
  free(dag), free(pairs), free(lmo), free(mw), free(net);
}
END_TEST

/* The timeline's core column: on one core a and b both ran on core 0, b
 * after a; the start took none (empty); on two, a on 0 and b on 1 (also
 * in the Chrome trace's args). A study (--seeds) runs on the cores too:
 * every sample 110 ns. */
START_TEST(timeline_core_column) {
  char *dag = temp_text(".dag", PAIR_DAG), *csv = fs_test_temp_path(".csv");
  ck_assert_int_eq(fennelsim("run %s --model hockney --cores 1 --timeline %s", dag, csv), 0);
  char *text = fs_test_read_file(csv, NULL);
  ck_assert_str_eq(text, "name,kind,rank,core,ready_ns,start_ns,local_end_ns,remote_end_ns,label\n"
                         "s,start,0,,0,0,0,0,\n"
                         "a,compute,0,0,0,0,100,100,\n"
                         "b,compute,0,0,0,100,110,110,\n");
  free(text);
  ck_assert_int_eq(fennelsim("run %s --model hockney --cores 2 --timeline %s", dag, csv), 0);
  text = fs_test_read_file(csv, NULL);
  ck_assert_str_eq(text, "name,kind,rank,core,ready_ns,start_ns,local_end_ns,remote_end_ns,label\n"
                         "s,start,0,,0,0,0,0,\n"
                         "a,compute,0,0,0,0,100,100,\n"
                         "b,compute,0,1,0,0,10,10,\n");
  free(text);
  ck_assert_int_eq(fennelsim("run %s --model hockney --cores 1 --seeds 3 --format json", dag), 0);
  fs_test_contains(out, "\"makespan_ns\": {\"min\": 110, ");
  fs_test_contains(out, "\"max\": 110, \"stdev\": 0}");
  /* the Chrome trace names the core in each slice's args */
  ck_assert_int_eq(fennelsim("run %s --model hockney --cores 2 --chrome %s", dag, csv), 0);
  text = fs_test_read_file(csv, NULL);
  fs_test_contains(text, "\"args\":{\"task\":1,\"task_name\":\"a\",\"core\":0}}");
  fs_test_contains(text, "\"args\":{\"task\":2,\"task_name\":\"b\",\"core\":1}}");
  free(text);
  /* the command of docs/MODELS.md, from the source tree */
  ck_assert_int_eq(fennelsim("run schedules/concurrent-pair.dag --model hockney --cores 1 "
                             "--timeline %s",
                             csv),
                   0);
  fs_test_contains(out, "makespan   110 ns");
  text = fs_test_read_file(csv, NULL);
  fs_test_contains(text, "b,compute,0,0,0,100,110,110,\n");
  free(text);
  free(dag), free(csv);
}
END_TEST

/* A platform that cannot hold the ranks is bad input: exit 2 with the
 * platform's message, with concurrent tasks or without (issue 16 item 4:
 * the options are checked whether or not anything reads them). */
START_TEST(platform_errors) {
  char *dag = temp_text(".dag", "fennel-dag 1\nranks 2\ns start 0\nt start 1\n"
                                "a compute 0 time=1ns concurrent=1 after=s\n");
  ck_assert_int_eq(fennelsim("run %s --model hockney --nodes 1 --cores 1", dag), 2);
  ck_assert_str_eq(err, "fennelsim: --nodes 1 --cores 1: expected at most 1 ranks on 1 nodes x 1 "
                        "cores (got 2)\n");
  ck_assert_ptr_null(strstr(out ? out : "", "makespan"));
  ck_assert_int_eq(fennelsim("run %s --model hockney --nodes 1 --cores 1 --seeds 2", dag), 2);
  fs_test_contains(err,
                   "fennelsim: --nodes 1 --cores 1: expected at most 1 ranks on 1 nodes x 1 cores "
                   "(got 2)\n");
  char *plain = temp_text(".dag", "fennel-dag 1\nranks 2\ns start 0\nt start 1\n"
                                  "a compute 0 time=1ns after=s\n");
  ck_assert_int_eq(fennelsim("run %s --model hockney --nodes 1 --cores 1", plain), 2);
  ck_assert_str_eq(err, "fennelsim: --nodes 1 --cores 1: expected at most 1 ranks on 1 nodes x 1 "
                        "cores (got 2)\n");
  /* one that holds them is only noted: hockney does not read it */
  ck_assert_int_eq(fennelsim("run %s --model hockney --nodes 1 --cores 2", plain), 0);
  fs_test_contains(out, "makespan   1 ns");
  ck_assert_str_eq(err, "fennelsim: note: hockney ignores the platform (--nodes 1 --cores 2); "
                        "models that use it: taulop, and the compute model gamma (concurrent=1 "
                        "tasks use it under every model)\n");
  free(dag), free(plain);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cores");
  TCase *c = tcase_create("cores");
  tcase_add_test(c, one_core_serializes_two_overlap);
  tcase_add_test(c, cores_bytes_exact);
  tcase_add_test(c, ranks_of_a_node_compete);
  tcase_add_test(c, own_work_takes_a_core);
  tcase_add_test(c, other_ranks_work_waits_for_a_core);
  tcase_add_test(c, waiters_by_ready_time_then_position);
  tcase_add_test(c, same_ready_time_by_position);
  tcase_add_test(c, many_waiters_by_ready_time);
  tcase_add_test(c, concurrent_puts_take_cores);
  tcase_add_test(c, dispatch_keeps_every_cpu);
  tcase_add_test(c, every_model);
  tcase_add_test(c, timeline_core_column);
  tcase_add_test(c, platform_errors);
  suite_add_tcase(s, c);
  int status = fs_test_run(s);
  free(out), free(err);
  return status;
}
