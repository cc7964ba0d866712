/* test_channel_load.c: tau over time on the channel instances of taulop
 * and gamma, against hand-derived schedules. Tables (ns, m in bytes), as in
 * test_taulop.c:
 *   shared memory: L0(m,1) = m, L0(m,2) = 1.5 m, L0(m,3) = 2 m, L0(m,4) = 3 m
 *   network:       L1(m,tau) = 10 tau m, or fast: L1(m,tau) = tau m / 10 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "generators/generators.h"
#include "instruments/channel_load.h"
#include "instruments/timeline.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000

static char *shm_table, *net_table, *fast_net_table, *gamma_table;
static char params[1024];

static void write_tables(void) {
  shm_table = fs_test_temp_path(".shm");
  net_table = fs_test_temp_path(".net");
  fast_net_table = fs_test_temp_path(".fast");
  gamma_table = fs_test_temp_path(".gamma");
  fs_test_write_file(shm_table, "0B 0ns 0ns 0ns 0ns\n1000B 1000ns 1500ns 2000ns 3000ns\n", 0);
  fs_test_write_file(net_table, "0B 0ns 0ns 0ns 0ns\n1000B 10us 20us 30us 40us\n", 0);
  fs_test_write_file(fast_net_table, "0B 0ns 0ns 0ns 0ns\n1000B 100ns 200ns 300ns 400ns\n", 0);
  fs_test_write_file(gamma_table, "0B 0ns 0ns\n1000B 1000ns 2000ns\n", 0);
}

static int32_t transfer(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer,
                        int64_t size) {
  int32_t t = fs_program_add(p, kind, rank);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, size);
  return t;
}

/* Runs once without the observer (fs_test_simulate), then again with it:
 * the makespans must agree. The caller frees load and run. */
static fs_channel_load *observe(const fs_program *p, const char *compute, fs_simulation *run) {
  fs_test_simulate(run, p, "taulop", compute, params);
  ck_assert_msg(run->status == FS_RUN_OK, "%s", run->err.message);
  fs_time unobserved = fs_engine_makespan(run->engine);
  fs_channel_load *load = fs_channel_load_new();
  ck_assert_ptr_nonnull(load);
  ck_assert_int_eq(fs_channel_load_attach(load, &run->network, &run->compute, &run->err), 0);
  ck_assert_msg(fs_engine_run(run->engine, &run->err) == FS_RUN_OK, "%s", run->err.message);
  ck_assert_int_eq(fs_engine_makespan(run->engine), unobserved);
  ck_assert_int_eq(fs_channel_load_finish(load, fs_engine_makespan(run->engine), &run->err), 0);
  return load;
}

static void expect_channel(const fs_channel_load *load, int32_t k, const char *name, fs_time first,
                           int32_t max_tau, const fs_time *time_at) {
  fs_channel_stats s;
  fs_channel_load_get(load, k, &s);
  ck_assert_str_eq(s.instance, name);
  ck_assert_int_eq(s.first, first);
  ck_assert_int_eq(s.max_tau, max_tau);
  for (int32_t tau = 0; tau <= max_tau; tau++) ck_assert_int_eq(s.time_at_tau[tau], time_at[tau]);
}

/* Two messages from node 0 to node 1 (nodes=2 cores=2, sequential: ranks
 * 0, 1 on node 0, 2, 3 on node 1), m = 1000 and 2000 B, o1 = 100:
 * - shm node 0: both copies to the NIC from 100 at tau 2: L0(1000,2) =
 *   1500 ends the first at 1600; the second has done 1500/3000 = 1/2 and
 *   needs 1/2 L0(2000,1) = 1000 more: ends at 2600.
 * - net node 1: the first crosses alone from 1600 (L1(1000,1) = 10000);
 *   at 2600 it has done 1/10 and the second joins: 9/10 L1(1000,2) = 18000
 *   more, ends at 20600; the second has then done 18000/40000 = 0.45 and
 *   needs 0.55 L1(2000,1) = 11000 more: ends at 31600.
 * - shm node 1: from the NIC, 1000 alone [20600, 21600] and 2000 alone
 *   [31600, 33600]: the makespan.
 * Time at tau 0, 1, 2 over [0, 33600]:
 *   shm node 0: 31100, 1000, 1500   (sum tau*t 4000, busy 2500)
 *   shm node 1: 30600, 3000         (3000, 3000)
 *   net node 1:  3600, 12000, 18000 (48000, 30000)
 * net node 0 never has a job. */
static fs_program *two_messages(void) {
  fs_program *p = fs_program_new(4);
  transfer(p, FS_SEND, 0, 2, 1000);
  transfer(p, FS_SEND, 1, 3, 2000);
  transfer(p, FS_RECV, 2, 0, 1000);
  transfer(p, FS_RECV, 3, 1, 2000);
  fs_test_finalize(p);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s nodes=2 cores=2 mapping=seq net_o=100ns", shm_table,
           net_table);
  return p;
}

START_TEST(two_messages_into_one_nic) {
  fs_program *p = two_messages();
  fs_simulation run;
  fs_channel_load *load = observe(p, "fixed", &run);
  ck_assert_int_eq(fs_engine_makespan(run.engine), 33600 * NS);
  ck_assert_int_eq(fs_engine_finish_times(run.engine)[2], 21600 * NS);
  ck_assert_int_eq(fs_channel_load_count(load), 3);
  expect_channel(load, 0, "shm node 0", 100 * NS, 2, (fs_time[]){31100 * NS, 1000 * NS, 1500 * NS});
  expect_channel(load, 1, "shm node 1", 20600 * NS, 1, (fs_time[]){30600 * NS, 3000 * NS});
  expect_channel(load, 2, "net node 1", 1600 * NS, 2,
                 (fs_time[]){3600 * NS, 12000 * NS, 18000 * NS});
  fs_channel_stats s;
  fs_channel_load_get(load, 2, &s);
  ck_assert_int_eq(s.busy, 30000 * NS);
  ck_assert_double_eq(s.mean_tau, 48000.0 / 33600.0);
  ck_assert_double_eq(s.mean_busy_tau, 1.6);
  ck_assert_double_eq(s.mean_tau_since_first, 48000.0 / 32000.0);
  fs_channel_load_get(load, 0, &s);
  ck_assert_int_eq(s.busy, 2500 * NS);
  ck_assert_double_eq(s.mean_tau, 4000.0 / 33600.0);
  ck_assert_double_eq(s.mean_busy_tau, 1.6);
  ck_assert_double_eq(s.mean_tau_since_first, 4000.0 / 33500.0);
  fs_channel_load_get(load, 1, &s);
  ck_assert_double_eq(s.mean_busy_tau, 1.0);
  fs_channel_load_free(load);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Reports of the same run: text busiest first (by sum tau*t: net node 1
 * 48000, shm node 0 4000, shm node 1 3000), JSON and CSV in order. Means
 * since the first job: 4000/33500, 3000/13000, 48000/32000. */
START_TEST(reports) {
  fs_program *p = two_messages();
  fs_simulation run;
  fs_channel_load *load = observe(p, "fixed", &run);
  char *buffer = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&buffer, &size);
  fs_channel_load_report_text(out, load, 2);
  fclose(out);
  ck_assert_str_eq(
      buffer,
      "channels   3 used; tau = active jobs; mean over [0, 33600 ns], busy mean over tau >= 1\n"
      "  instance           max      mean busy mean        busy ns  ns at tau 0, 1, ...\n"
      "  net node 1           2    1.4286    1.6000          30000  3600 12000 18000\n"
      "  shm node 0           2    0.1190    1.6000           2500  31100 1000 1500\n"
      "  ... 1 more (all of them: --channel-csv FILE.csv)\n");
  free(buffer);
  out = open_memstream(&buffer, &size);
  fs_channel_load_report_json(out, load);
  fclose(out);
  ck_assert_str_eq(
      buffer,
      "\"channel_load\": ["
      "{\"instance\": \"shm node 0\", \"max_tau\": 2, \"mean_tau\": 0.11904761904761904, "
      "\"mean_busy_tau\": 1.6, \"mean_tau_since_first\": 0.11940298507462686, \"first_ns\": 100, "
      "\"busy_ns\": 2500, \"time_at_tau_ns\": [31100, 1000, 1500]}, "
      "{\"instance\": \"shm node 1\", \"max_tau\": 1, \"mean_tau\": 0.08928571428571429, "
      "\"mean_busy_tau\": 1, \"mean_tau_since_first\": 0.23076923076923078, \"first_ns\": 20600, "
      "\"busy_ns\": 3000, \"time_at_tau_ns\": [30600, 3000]}, "
      "{\"instance\": \"net node 1\", \"max_tau\": 2, \"mean_tau\": 1.4285714285714286, "
      "\"mean_busy_tau\": 1.6, \"mean_tau_since_first\": 1.5, \"first_ns\": 1600, "
      "\"busy_ns\": 30000, \"time_at_tau_ns\": [3600, 12000, 18000]}]");
  free(buffer);
  char *path = fs_test_temp_path(".csv");
  fs_output *csv = fs_output_open(path, &run.err);
  ck_assert_ptr_nonnull(csv);
  ck_assert_int_eq(fs_channel_load_write_csv(load, csv, &run.err), 0);
  char *text = fs_test_read_file(path, NULL);
  ck_assert_str_eq(text, "instance,tau,time_ns\n"
                         "shm node 0,0,31100\nshm node 0,1,1000\nshm node 0,2,1500\n"
                         "shm node 1,0,30600\nshm node 1,1,3000\n"
                         "net node 1,0,3600\nnet node 1,1,12000\nnet node 1,2,18000\n");
  free(text);
  free(path);
  /* max_rows 0: only the header and the count */
  out = open_memstream(&buffer, &size);
  fs_channel_load_report_text(out, load, 0);
  fclose(out);
  ck_assert_ptr_nonnull(strstr(buffer, "  ... 3 more (all of them: --channel-csv FILE.csv)\n"));
  free(buffer);
  fs_channel_load_free(load);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Ring allgather, P = 8 on 2 nodes of 4, m = 100 B, fast network (L1(100,
 * tau) = 10 tau ns), no o, one segment.
 * Sequential: only 3 -> 4 enters node 1's NIC and 7 -> 0 node 0's. Rank
 * 3's CPU is held through each copy to the NIC (L0 >= 100 ns), so its next
 * message reaches the NIC at least 100 ns after the previous one, which
 * crossed alone in 10: tau never exceeds 1 on a NIC.
 * Round-robin: even ranks on node 0, odd on node 1, every message crosses.
 * Step 1: all 8 sends start at 0, the copies end together (4 per node, tau
 * 4) and all cross together: tau 4 on both NICs; every later step starts
 * when every rank has its previous block, in lockstep: max tau 4. */
START_TEST(ring_allgather_round_robin_loads_the_nics) {
  fs_generator_options o = {.ranks = 8, .size = 100, .rounds = 1};
  fs_error err;
  fs_program *p = fs_generator_find("allgather-ring")->generate(&o, &err);
  ck_assert_ptr_nonnull(p);
  const char *mappings[2] = {"seq", "rr"};
  int32_t expected[2] = {1, 4};
  for (int k = 0; k < 2; k++) {
    snprintf(params, sizeof params,
             "shm_table=%s net_table=%s nodes=2 cores=4 segment=0B mapping=%s", shm_table,
             fast_net_table, mappings[k]);
    fs_simulation run;
    fs_channel_load *load = observe(p, "fixed", &run);
    int nics = 0;
    for (int32_t c = 0; c < fs_channel_load_count(load); c++) {
      fs_channel_stats s;
      fs_channel_load_get(load, c, &s);
      if (strncmp(s.instance, "net node ", 9)) continue;
      nics++;
      ck_assert_msg(s.max_tau == expected[k], "%s %s: max tau %d", mappings[k], s.instance,
                    s.max_tau);
    }
    ck_assert_int_eq(nics, 2);
    fs_channel_load_free(load);
    fs_test_run_free(&run);
  }
  fs_program_free(p);
}
END_TEST

/* The gamma compute model's nodes: reduces of 100 and 300 B on one node
 * (gamma(m,1) = m, gamma(m,2) = 2m ns) at tau 2 until 200, the second alone
 * until 400; then a compute with time= 50 ns, not shared: makespan 450.
 * gamma node 0: 50 at tau 0, 200 at tau 1, 200 at tau 2: sum tau*t = 600,
 * mean 600/450 = 4/3 over the run, 600/400 = 1.5 while busy. The network
 * model's instances saw no job. */
START_TEST(gamma_nodes) {
  fs_program *p = fs_program_new(2);
  int32_t a = fs_program_add(p, FS_COMPUTE, 0), b = fs_program_add(p, FS_COMPUTE, 1);
  int32_t c = fs_program_add(p, FS_COMPUTE, 1);
  fs_task_set_size(p, a, 100);
  fs_task_set_size(p, b, 300);
  fs_task_set_time(p, c, 50 * NS);
  ck_assert_int_eq(fs_program_depend(p, c, b, FS_AFTER_END), 0);
  fs_test_finalize(p);
  snprintf(params, sizeof params, "shm_table=%s net_table=%s gamma_table=%s nodes=1 cores=2",
           shm_table, net_table, gamma_table);
  fs_simulation run;
  fs_channel_load *load = observe(p, "gamma", &run);
  ck_assert_int_eq(fs_engine_makespan(run.engine), 450 * NS);
  ck_assert_int_eq(fs_channel_load_count(load), 1);
  expect_channel(load, 0, "gamma node 0", 0, 2, (fs_time[]){50 * NS, 200 * NS, 200 * NS});
  fs_channel_stats s;
  fs_channel_load_get(load, 0, &s);
  ck_assert_double_eq(s.mean_tau, 600.0 / 450.0);
  ck_assert_double_eq(s.mean_busy_tau, 1.5);
  ck_assert_double_eq(s.mean_tau_since_first, 600.0 / 450.0);
  fs_channel_load_free(load);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Off costs nothing: with and without the observer (attached, then
 * detached) every task's four times are identical, and a detached load
 * records nothing more; a second observed run starts afresh. */
static void record(fs_simulation *run, const fs_timeline *timeline, fs_time *times) {
  ck_assert_int_eq(fs_engine_run(run->engine, &run->err), FS_RUN_OK);
  for (int32_t t = 0; t < fs_timeline_program(timeline)->tasks; t++)
    fs_timeline_task(timeline, t, times + 4 * t);
}

START_TEST(zero_cost_when_off) {
  fs_generator_options o = {.ranks = 16, .size = 3000, .rounds = 1};
  fs_error err;
  fs_program *p = fs_generator_find("allgather-rd")->generate(&o, &err);
  ck_assert_ptr_nonnull(p);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s nodes=4 cores=4 mapping=rr segment=1000B "
           "net_o=7ns",
           shm_table, net_table);
  fs_simulation run;
  fs_test_simulate(&run, p, "taulop", "fixed", params);
  ck_assert_int_eq(run.status, FS_RUN_OK);
  fs_time *off = malloc((size_t)p->tasks * 4 * sizeof *off);
  fs_time *on = malloc((size_t)p->tasks * 4 * sizeof *on);
  fs_timeline *timeline = fs_timeline_new(p);
  fs_observer observer = fs_timeline_observer(timeline);
  ck_assert_int_eq(fs_engine_add_observer(run.engine, &observer), 0);
  fs_channel_load *load = fs_channel_load_new();
  ck_assert_int_eq(fs_channel_load_attach(load, &run.network, &run.compute, &err), 0);
  record(&run, timeline, on);
  ck_assert_int_eq(fs_channel_load_finish(load, fs_engine_makespan(run.engine), &err), 0);
  int32_t used = fs_channel_load_count(load);
  ck_assert_int_eq(used, 8); /* every shared memory and NIC */
  fs_channel_stats first;
  fs_channel_load_get(load, 0, &first);
  fs_time first_busy = first.busy;
  ck_assert_int_eq(fs_network_model_observe(&run.network, NULL), 1);
  record(&run, timeline, off);
  ck_assert_mem_eq(on, off, (size_t)p->tasks * 4 * sizeof *on);
  ck_assert_int_eq(fs_channel_load_count(load), used); /* nothing more, nothing reset */
  /* attached again: the next run starts afresh and gives the same load */
  ck_assert_int_eq(fs_channel_load_attach(load, &run.network, &run.compute, &err), 0);
  ck_assert_int_eq(fs_engine_run(run.engine, &err), FS_RUN_OK);
  ck_assert_int_eq(fs_channel_load_finish(load, fs_engine_makespan(run.engine), &err), 0);
  ck_assert_int_eq(fs_channel_load_count(load), used);
  fs_channel_load_get(load, 0, &first);
  ck_assert_int_eq(first.busy, first_busy);
  free(on), free(off);
  fs_timeline_free(timeline);
  fs_channel_load_free(load);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Models without channel instances; an unused load; a failed commit. */
START_TEST(errors) {
  fs_program *p = fs_program_new(2);
  transfer(p, FS_PUT, 0, 1, 10);
  fs_test_finalize(p);
  fs_simulation run;
  fs_test_simulate(&run, p, "hockney", "fixed", "alpha=1us beta=1ns");
  fs_channel_load *load = fs_channel_load_new();
  fs_error err = {{0}};
  ck_assert_int_eq(fs_channel_load_attach(load, &run.network, &run.compute, &err), -1);
  ck_assert_str_eq(err.message, "--channel-load needs a model with channel instances (taulop, or "
                                "--compute gamma): hockney and fixed have none");
  ck_assert_int_eq(fs_channel_load_attach(load, NULL, NULL, &err), -1);
  ck_assert_str_eq(err.message, "--channel-load needs a model with channel instances (taulop, or "
                                "--compute gamma): no model and no compute model have none");
  ck_assert_int_eq(fs_channel_load_finish(load, 0, &err), 0);
  char *buffer = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&buffer, &size);
  fs_channel_load_report_text(out, load, 10);
  fs_channel_load_report_json(out, load);
  fclose(out);
  ck_assert_str_eq(buffer, "channels   no channel instance was used\n\"channel_load\": []");
  free(buffer);
  fs_output *full = fs_output_open("/dev/full", &err);
  ck_assert_ptr_nonnull(full);
  ck_assert_int_eq(fs_channel_load_write_csv(load, full, &err), -1);
  ck_assert_msg(strncmp(err.message, "/dev/full: ", 11) == 0, "%s", err.message);
  fs_channel_load_free(load);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

static Suite *channel_load_suite(void) {
  Suite *s = suite_create("channel_load");
  TCase *c = tcase_create("load");
  tcase_add_test(c, two_messages_into_one_nic);
  tcase_add_test(c, reports);
  tcase_add_test(c, ring_allgather_round_robin_loads_the_nics);
  tcase_add_test(c, gamma_nodes);
  tcase_add_test(c, zero_cost_when_off);
  tcase_add_test(c, errors);
  suite_add_tcase(s, c);
  return s;
}

int main(void) {
  write_tables();
  int status = fs_test_run(channel_load_suite());
  free(shm_table), free(net_table), free(fast_net_table), free(gamma_table);
  return status;
}
