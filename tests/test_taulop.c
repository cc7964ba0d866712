/* test_taulop.c: the tau-Lop model against the thesis's formulas (its
 * rule A2 included), with tables chosen so every value is exact:
 *   shared memory: L0(m,1) = m, L0(m,2) = 1.5 m, L0(m,3) = 2 m, L0(m,4) = 3 m
 *   network:       L1(m,tau) = 10 tau m          (ns, m in bytes)
 * or zero where a test isolates one channel. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "generators/generators.h"
#include "instruments/timeline.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000

static char *shm_table, *net_table, *zero_table;

static void write_tables(void) {
  shm_table = fs_test_temp_path(".shm");
  net_table = fs_test_temp_path(".net");
  zero_table = fs_test_temp_path(".zero");
  fs_test_write_file(shm_table,
                     "# size L(m,1) L(m,2) L(m,3) L(m,4)\n"
                     "0B 0ns 0ns 0ns 0ns\n1000B 1000ns 1500ns 2000ns 3000ns\n",
                     0);
  fs_test_write_file(net_table, "0B 0ns 0ns 0ns 0ns\n1000B 10us 20us 30us 40us\n", 0);
  fs_test_write_file(zero_table, "0B 0ns\n1000B 0ns\n", 0);
}

static int32_t transfer(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer,
                        int64_t size) {
  int32_t t = fs_program_add(p, kind, rank);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, size);
  return t;
}

/* Runs with a timeline; returns the times of every task (caller frees). */
static fs_time *simulate(const fs_program *p, const char *params, fs_simulation *run) {
  fs_test_simulate(run, p, "taulop", "fixed", params);
  ck_assert_msg(run->status == FS_RUN_OK, "%s", run->err.message);
  fs_timeline *timeline = fs_timeline_new(p);
  fs_observer observer = fs_timeline_observer(timeline);
  fs_engine_add_observer(run->engine, &observer);
  ck_assert_msg(fs_engine_run(run->engine, &run->err) == FS_RUN_OK, "%s", run->err.message);
  fs_time *times = malloc((size_t)p->tasks * 4 * sizeof *times);
  for (int32_t t = 0; t < p->tasks; t++) fs_timeline_task(timeline, t, times + 4 * t);
  fs_timeline_free(timeline);
  return times;
}

static char params[1024];

/* Rule A2: transfers of m1 = 100 < m2 = 300 B starting together on one
 * channel instance (the NIC of node 2; shared memory costs nothing here)
 * end at L1(100,2) = 2000 ns and L1(100,2) + L1(200,1) = 2000 + 2000 =
 * 4000 ns: at 2000 the second has done 2000/L1(300,2) = 1/3 and needs
 * 2/3 L1(300,1) = 2000 more. */
START_TEST(progress_fractions_give_rule_a2) {
  fs_program *p = fs_program_new(3);
  int32_t a = transfer(p, FS_PUT, 0, 2, 100), b = transfer(p, FS_PUT, 1, 2, 300);
  fs_test_finalize(p);
  snprintf(params, sizeof params, "shm_table=%s net_table=%s nodes=3 cores=1", zero_table,
           net_table);
  fs_simulation run;
  fs_time *t = simulate(p, params, &run);
  ck_assert_int_eq(t[4 * a + 3], 2000 * NS);
  ck_assert_int_eq(t[4 * b + 3], 4000 * NS);
  ck_assert_int_eq(fs_engine_finish_times(run.engine)[2], 4000 * NS);
  free(t);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Segmented shared-memory p2p (eq. 3.2), S = 1000 B, m = 4000 B, o = 50:
 * put 1 alone [50, 1050]; puts 2..4 each beside the get of the previous
 * segment at L0(S,2) = 1500: [1050, 2550], [2550, 4050], [4050, 5550]; the
 * last get alone [5550, 6550]. Total o + 2 L0(S,1) + (k-1) L0(S,2) = 50 +
 * 2000 + 4500 = 6550; the sender is free after its last put, 5550. */
START_TEST(segmented_shared_memory_p2p) {
  fs_program *p = fs_program_new(2);
  int32_t a = transfer(p, FS_PUT, 0, 1, 4000);
  fs_test_finalize(p);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s nodes=1 cores=2 segment=1000B shm_o=50ns", shm_table,
           net_table);
  fs_simulation run;
  fs_time *t = simulate(p, params, &run);
  ck_assert_int_eq(t[4 * a + 2], 5550 * NS);
  ck_assert_int_eq(t[4 * a + 3], 6550 * NS);
  free(t);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Two concurrent network messages from node 0 to node 1 (ranks 0, 1 on
 * node 0; 2, 3 on node 1; sequential mapping), m = 1000 B, o1 = 100:
 * o1 + 2 L0(m,2) + L1(m,2) = 100 + 1500 + 20000 + 1500 = 23100 for both
 * (thesis §3.5, Fig. 3.11). Two-sided here: the recvs complete then. */
START_TEST(two_concurrent_network_messages) {
  fs_program *p = fs_program_new(4);
  int32_t s0 = transfer(p, FS_SEND, 0, 2, 1000), s1 = transfer(p, FS_SEND, 1, 3, 1000);
  int32_t r2 = transfer(p, FS_RECV, 2, 0, 1000), r3 = transfer(p, FS_RECV, 3, 1, 1000);
  fs_test_finalize(p);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s nodes=2 cores=2 mapping=seq net_o=100ns", shm_table,
           net_table);
  fs_simulation run;
  fs_time *t = simulate(p, params, &run);
  ck_assert_int_eq(t[4 * r2 + 3], 23100 * NS);
  ck_assert_int_eq(t[4 * r3 + 3], 23100 * NS);
  /* each sender is free once its copy to the NIC ends: 100 + 1500 */
  ck_assert_int_eq(t[4 * s0 + 2], 1600 * NS);
  ck_assert_int_eq(t[4 * s1 + 2], 1600 * NS);
  free(t);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* The same program round-robin: 0, 2 on node 0 and 1, 3 on node 1, so both
 * messages stay in a node, one per node: o0 + 2 L0(m,1) = 0 + 2000. */
START_TEST(mapping_changes_the_channel) {
  fs_program *p = fs_program_new(4);
  transfer(p, FS_SEND, 0, 2, 1000);
  transfer(p, FS_SEND, 1, 3, 1000);
  transfer(p, FS_RECV, 2, 0, 1000);
  fs_test_finalize(p);
  snprintf(params, sizeof params, "shm_table=%s net_table=%s nodes=2 cores=2 mapping=rr segment=0B",
           shm_table, net_table);
  fs_simulation run;
  fs_test_simulate(&run, p, "taulop", "fixed", params);
  ck_assert_int_eq(run.status, FS_RUN_DEADLOCK); /* rank 3 posts no recv: its message waits */
  ck_assert_int_eq(fs_engine_finish_times(run.engine)[2], 2000 * NS);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* The hierarchical formula of the thesis (eq. 5.17): recursive-doubling
 * allgather, P = 16 on M = 4 nodes of Q = 4, sequential mapping: two
 * shared-memory stages (2 exchanges per node, tau 4) and two network
 * stages (4 messages into each NIC, tau 4) cost 2 o0 + 2 o1 + 30 L0(m,4) +
 * 12 L1(m,4). m = 100 B, o0 = 7, o1 = 11: 14 + 22 + 30*300 + 12*4000 =
 * 57036 ns. Round-robin makes the first stages cross nodes one message per
 * NIC and the last ones stay inside nodes: cheaper here (thesis §5.3). */
START_TEST(recursive_doubling_hierarchical_formula) {
  fs_generator_options o = {.ranks = 16, .size = 100, .rounds = 1};
  fs_error err;
  fs_program *p = fs_generator_find("allgather-rd")->generate(&o, &err);
  ck_assert_ptr_nonnull(p);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s segment=0B shm_o=7ns net_o=11ns "
           "nodes=4 cores=4 mapping=seq",
           shm_table, net_table);
  fs_simulation run;
  fs_test_simulate(&run, p, "taulop", "fixed", params);
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  ck_assert_int_eq(fs_engine_makespan(run.engine), 57036 * NS);
  fs_time sequential = fs_engine_makespan(run.engine);
  fs_test_run_free(&run);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s segment=0B shm_o=7ns net_o=11ns "
           "nodes=4 cores=4 mapping=rr",
           shm_table, net_table);
  fs_test_simulate(&run, p, "taulop", "fixed", params);
  ck_assert_int_lt(fs_engine_makespan(run.engine), sequential);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Ring allgather, P = 32 on 4 nodes of 8, 64 KiB (the thesis's Fig. 6.4
 * setting, where round-robin measured about six times slower): under
 * taulop with these tables round-robin is several times slower (under
 * hockney the mapping changes nothing: tests/test_cli.c). */
START_TEST(ring_allgather_mapping) {
  fs_generator_options o = {.ranks = 32, .size = 65536, .rounds = 1};
  fs_error err;
  fs_program *p = fs_generator_find("allgather-ring")->generate(&o, &err);
  ck_assert_ptr_nonnull(p);
  fs_time taulop[2];
  const char *mappings[2] = {"seq", "rr"};
  for (int k = 0; k < 2; k++) {
    fs_simulation run;
    snprintf(params, sizeof params, "shm_table=%s net_table=%s nodes=4 cores=8 mapping=%s",
             shm_table, net_table, mappings[k]);
    fs_test_simulate(&run, p, "taulop", "fixed", params);
    ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
    taulop[k] = fs_engine_makespan(run.engine);
    fs_test_run_free(&run);
  }
  ck_assert_msg(taulop[1] > 4 * taulop[0], "rr %lld, seq %lld", (long long)taulop[1],
                (long long)taulop[0]);
  fs_program_free(p);
}
END_TEST

/* The gamma compute model: reduces of 100 and 300 B on one node, with
 * gamma(m,1) = m and gamma(m,2) = 2m ns, end at gamma(100,2) = 200 and
 * 200 + gamma(200,1) = 400 (the same progress rule as transfers); on two
 * nodes each runs alone: 100 and 300; a compute with time= is not shared. */
START_TEST(gamma_reductions_share_a_node) {
  char *gamma = fs_test_temp_path(".gamma");
  fs_test_write_file(gamma, "0B 0ns 0ns\n1000B 1000ns 2000ns\n", 0);
  for (int nodes = 1; nodes <= 2; nodes++) {
    fs_program *p = fs_program_new(2);
    int32_t a = fs_program_add(p, FS_COMPUTE, 0), b = fs_program_add(p, FS_COMPUTE, 1);
    int32_t c = fs_program_add(p, FS_COMPUTE, 1);
    fs_task_set_size(p, a, 100);
    fs_task_set_size(p, b, 300);
    fs_task_set_time(p, c, 50 * NS);
    ck_assert_int_eq(fs_program_depend(p, c, b, FS_AFTER_END), 0);
    fs_test_finalize(p);
    char text[1024];
    snprintf(text, sizeof text, "shm_table=%s net_table=%s gamma_table=%s nodes=%d cores=%d",
             shm_table, net_table, gamma, nodes, 3 - nodes);
    fs_simulation run;
    fs_test_simulate(&run, p, "taulop", "gamma", text);
    ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
    const fs_time *finish = fs_engine_finish_times(run.engine);
    ck_assert_int_eq(finish[0], (nodes == 1 ? 200 : 100) * NS);
    ck_assert_int_eq(finish[1], (nodes == 1 ? 450 : 350) * NS);
    fs_test_run_free(&run);
    fs_program_free(p);
  }
  /* without a table */
  char text[64] = "nodes=1";
  fs_parameter items[16];
  fs_parameters list;
  fs_test_parameters(text, items, &list);
  fs_compute_model model;
  fs_error err;
  ck_assert_int_ne(fs_compute_model_create("gamma", &list, &model, &err), 0);
  ck_assert_ptr_nonnull(strstr(err.message, "needs --param gamma_table=FILE"));
  free(gamma);
}
END_TEST

static void expect_error(const char *parameters, const char *message) {
  char text[1024];
  fs_parameter items[16];
  fs_parameters list;
  snprintf(text, sizeof text, "%s", parameters);
  ck_assert_int_eq(fs_test_parameters(text, items, &list), 0);
  fs_network_model model = {0};
  fs_error err = {{0}};
  ck_assert_int_ne(fs_network_model_create("taulop", &list, &model, &err), 0);
  ck_assert_msg(strstr(err.message, message), "'%s' lacks '%s'", err.message, message);
}

START_TEST(parameter_errors) {
  expect_error("", "taulop needs --param shm_table=FILE and --param net_table=FILE");
  snprintf(params, sizeof params, "shm_table=%s net_table=/nonexistent/net", shm_table);
  expect_error(params, "/nonexistent/net");
  snprintf(params, sizeof params, "shm_table=%s net_table=%s platform=x.xml nodes=2", shm_table,
           net_table);
  expect_error(params, "exclude each other");
  snprintf(params, sizeof params, "shm_table=%s net_table=%s nodes=0", shm_table, net_table);
  expect_error(params, "--param nodes=0");
  snprintf(params, sizeof params, "shm_table=%s net_table=%s segment=big", shm_table, net_table);
  expect_error(params, "--param segment=big");
  /* more ranks than cores: the run fails, saying so */
  fs_program *p = fs_program_new(5);
  transfer(p, FS_PUT, 0, 1, 10);
  fs_test_finalize(p);
  snprintf(params, sizeof params, "shm_table=%s net_table=%s nodes=2 cores=2", shm_table,
           net_table);
  fs_simulation run;
  fs_test_simulate(&run, p, "taulop", "fixed", params);
  ck_assert_int_eq(run.status, FS_RUN_REJECTED);
  ck_assert_msg(strstr(run.err.message, "--nodes"), "%s", run.err.message);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

static Suite *taulop_suite(void) {
  Suite *s = suite_create("taulop");
  TCase *c = tcase_create("formulas");
  tcase_add_test(c, progress_fractions_give_rule_a2);
  tcase_add_test(c, segmented_shared_memory_p2p);
  tcase_add_test(c, two_concurrent_network_messages);
  tcase_add_test(c, mapping_changes_the_channel);
  tcase_add_test(c, recursive_doubling_hierarchical_formula);
  tcase_add_test(c, ring_allgather_mapping);
  tcase_add_test(c, gamma_reductions_share_a_node);
  tcase_add_test(c, parameter_errors);
  suite_add_tcase(s, c);
  return s;
}

int main(void) {
  write_tables();
  int status = fs_test_run(taulop_suite());
  free(shm_table), free(net_table), free(zero_table);
  return status;
}
