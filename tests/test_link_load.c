/* test_link_load.c: the link load (--link-load, --link-csv) and the
 * transfer rates of a flow model, on a fake flow model whose rates the
 * test chooses (fake_flow.h), against values derived by hand. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "instruments/critical_path.h"
#include "instruments/link_load.h"
#include "instruments/timeline.h"
#include "fake_flow.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000

static fs_link_load *observe(fs_fake_flow_run *run, int keep_intervals, int keep_rates) {
  fs_link_load *load = fs_link_load_new(keep_intervals, keep_rates);
  ck_assert_ptr_nonnull(load);
  fs_error err = {{0}};
  ck_assert_int_eq(fs_link_load_attach(load, &run->network, &err), 0);
  fs_fake_flow_run_program(run);
  ck_assert_int_eq(fs_engine_makespan(run->engine), 1600 * NS);
  ck_assert_int_eq(fs_link_load_finish(load, fs_engine_makespan(run->engine), &err), 0);
  return load;
}

static void expect_link(const fs_link_load *load, int32_t k, const char *name, double bytes,
                        fs_time busy, int32_t peak, double mean, double utilization, double rate) {
  fs_link_stats s;
  fs_link_load_get(load, k, &s);
  ck_assert_str_eq(s.link, name);
  ck_assert_double_eq(s.bytes, bytes);
  ck_assert_int_eq(s.busy, busy);
  ck_assert_int_eq(s.peak_flows, peak);
  ck_assert_double_eq(s.mean_flows, mean);
  ck_assert_double_eq(s.utilization, utilization);
  ck_assert_double_eq(s.peak_rate, rate);
}

/* The two puts of fake_flow.c (A: 1000 B over L1 then L2 from 100 ns, B:
 * 500 B over L1 from 500 ns; L1 1 GB/s, L2 2 GB/s; makespan 1600 ns):
 * - L1 carries A alone at 1 B/ns over [100, 500] (400 B), A and B at
 *   0.5 B/ns each over [500, 1500] (1000 B), A alone over [1500, 1600]
 *   (100 B): 1500 B, busy 1500 ns, peak 2 flows, mean flows over the busy
 *   time (1*400 + 2*1000 + 1*100) / 1500 = 5/3, utilization 1500 B /
 *   (1 B/ns * 1600 ns) = 0.9375, peak rate 1e9 B/s.
 * - L2 carries A only: 400 + 0.5*1000 + 100 = 1000 B, busy 1500 ns, peak
 *   1, mean 1, utilization 1000 / (2 * 1600) = 0.3125, peak 1e9 B/s.
 * The loopback (link 0) carries nothing and is not listed. */
START_TEST(two_puts_share_a_link) {
  fs_fake_flow_run run;
  fs_fake_flow_run_new(&run);
  fs_link_load *load = observe(&run, 0, 0);
  ck_assert_int_eq(fs_link_load_count(load), 2);
  expect_link(load, 0, "L1", 1500, 1500 * NS, 2, 2500.0 / 1500.0, 0.9375, 1e9);
  expect_link(load, 1, "L2", 1000, 1500 * NS, 1, 1, 0.3125, 1e9);
  const fs_flow_change *changes;
  ck_assert_int_eq(fs_link_load_changes(load, 0, &changes), 0); /* not kept */
  ck_assert_int_eq(fs_link_load_rates(load, 2, &changes), 0);
  ck_assert(fs_link_load_has_rates(load));
  fs_link_load_free(load);
  fs_fake_flow_run_free(&run);
}
END_TEST

/* The changes kept: the model reports L1 twice at 1500 (idle, then one
 * flow: the last wins) and L2 twice alike (merged); each transfer starts
 * at rate 0 (its latency phase: no change) and ends at 0 at delivery. */
START_TEST(changes_kept) {
  fs_fake_flow_run run;
  fs_fake_flow_run_new(&run);
  fs_link_load *load = observe(&run, 1, 1);
  const fs_flow_change *c;
  ck_assert_int_eq(fs_link_load_changes(load, 0, &c), 4);
  const fs_flow_change l1[] = {{100 * NS, 1e9, 1},
                               {500 * NS, 1e9, 2},
                               {1500 * NS, 1e9, 1},
                               {1600 * NS, 0, 0}};
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(c[i].t, l1[i].t);
    ck_assert_double_eq(c[i].rate, l1[i].rate);
    ck_assert_int_eq(c[i].flows, l1[i].flows);
  }
  ck_assert_int_eq(fs_link_load_changes(load, 1, &c), 4);
  ck_assert_double_eq(c[1].rate, 5e8);
  ck_assert_int_eq(c[2].t, 1500 * NS);
  /* put A is task 0, B task 1 (fake_flow.c) */
  ck_assert_int_eq(fs_link_load_rates(load, 0, &c), 4);
  const fs_flow_change a[] = {{100 * NS, 1e9, 0},
                              {500 * NS, 5e8, 0},
                              {1500 * NS, 1e9, 0},
                              {1600 * NS, 0, 0}};
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(c[i].t, a[i].t);
    ck_assert_double_eq(c[i].rate, a[i].rate);
  }
  ck_assert_int_eq(fs_link_load_rates(load, 1, &c), 2);
  ck_assert_int_eq(c[0].t, 500 * NS);
  ck_assert_double_eq(c[0].rate, 5e8);
  ck_assert_int_eq(c[1].t, 1500 * NS);
  ck_assert_double_eq(c[1].rate, 0);
  ck_assert_int_eq(fs_link_load_rates(load, 7, &c), 0);
  fs_link_load_free(load);
  fs_fake_flow_run_free(&run);
}
END_TEST

static char *text_of(const fs_link_load *load, int rows, int json) {
  char *buffer = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&buffer, &size);
  if (json)
    fs_link_load_report_json(out, load);
  else
    fs_link_load_report_text(out, load, rows);
  fclose(out);
  return buffer;
}

/* The reports of the same run: text with the most bytes first (L1 1500,
 * L2 1000), JSON and CSV in index order; the CSV's rows tile [0, 1600]
 * per link, utilization = rate / bandwidth. */
START_TEST(reports) {
  fs_fake_flow_run run;
  fs_fake_flow_run_new(&run);
  fs_link_load *load = observe(&run, 1, 0);
  char *text = text_of(load, 1, 0);
  ck_assert_str_eq(text,
                   "links      2 of 3 carried flows, most bytes first; busy = time with a flow, "
                   "mean flows over the busy time, utilization = bytes / (bandwidth * 1600 ns)\n"
                   "  link                          bytes        busy ns  peak mean flows "
                   "utilization     peak B/s\n"
                   "  L1                             1500           1500     2     1.6667      "
                   "0.9375        1e+09\n"
                   "  ... 1 more (all of them: --format json, or --link-csv FILE.csv)\n");
  free(text);
  text = text_of(load, 16, 0);
  ck_assert_ptr_nonnull(strstr(text, "1e+09\n  L2       "));
  free(text);
  text = text_of(load, 0, 1);
  ck_assert_str_eq(text,
                   "\"link_load\": [{\"link\": \"L1\", \"id\": 1, \"bandwidth_Bps\": 1000000000, "
                   "\"bytes\": 1500, \"busy_ns\": 1500, \"peak_flows\": 2, \"mean_busy_flows\": "
                   "1.6666666666666667, \"utilization\": 0.9375, \"peak_rate_Bps\": 1000000000}, "
                   "{\"link\": \"L2\", \"id\": 2, \"bandwidth_Bps\": 2000000000, \"bytes\": 1000, "
                   "\"busy_ns\": 1500, \"peak_flows\": 1, \"mean_busy_flows\": 1, "
                   "\"utilization\": 0.3125, \"peak_rate_Bps\": 1000000000}]");
  free(text);
  char *path = fs_test_temp_path(".csv");
  fs_error err = {{0}};
  fs_output *out = fs_output_open(path, &err);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(fs_link_load_write_csv(load, out, &err), 0);
  text = fs_test_read_file(path, NULL);
  ck_assert_str_eq(text, "link,start_ns,end_ns,flows,rate_Bps,utilization\n"
                         "L1,0,100,0,0,0\n"
                         "L1,100,500,1,1000000000,1\n"
                         "L1,500,1500,2,1000000000,1\n"
                         "L1,1500,1600,1,1000000000,1\n"
                         "L2,0,100,0,0,0\n"
                         "L2,100,500,1,1000000000,0.5\n"
                         "L2,500,1500,1,500000000,0.25\n"
                         "L2,1500,1600,1,1000000000,0.5\n");
  free(text);
  remove(path);
  free(path);
  fs_link_load_free(load);
  fs_fake_flow_run_free(&run);
}
END_TEST

/* A model without links is refused; an unused load reports nothing; a
 * failed write fails the CSV. */
START_TEST(errors) {
  fs_program *p = fs_program_new(2);
  int32_t t = fs_program_add(p, FS_PUT, 0);
  fs_task_set_peer(p, t, 1);
  fs_task_set_size(p, t, 10);
  fs_test_finalize(p);
  fs_simulation run;
  fs_test_simulate(&run, p, "hockney", "fixed", "alpha=1us beta=1ns");
  fs_link_load *load = fs_link_load_new(1, 1);
  fs_error err = {{0}};
  ck_assert_int_eq(fs_link_load_attach(load, &run.network, &err), -1);
  ck_assert_str_eq(err.message, "--link-load needs a flow model (flow, flow-lv08): hockney has no "
                                "links");
  ck_assert_int_eq(fs_link_load_attach(load, NULL, &err), -1);
  ck_assert_str_eq(err.message, "--link-load needs a flow model (flow, flow-lv08): no model has no "
                                "links");
  ck_assert_int_eq(fs_link_load_finish(load, 0, &err), 0);
  char *text = text_of(load, 10, 0);
  ck_assert_str_eq(text, "links      no link carried a flow\n");
  free(text);
  text = text_of(load, 10, 1);
  ck_assert_str_eq(text, "\"link_load\": []");
  free(text);
  ck_assert(!fs_link_load_has_rates(load));
  fs_output *full = fs_output_open("/dev/full", &err);
  ck_assert_ptr_nonnull(full);
  ck_assert_int_eq(fs_link_load_write_csv(load, full, &err), -1);
  ck_assert_msg(strncmp(err.message, "/dev/full: ", 11) == 0, "%s", err.message);
  fs_link_load_free(load);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* A second run starts afresh (each model reset), with the same result. */
START_TEST(second_run_afresh) {
  fs_fake_flow_run run;
  fs_fake_flow_run_new(&run);
  fs_link_load *load = observe(&run, 1, 1);
  fs_fake_flow_run_program(&run);
  fs_error err = {{0}};
  ck_assert_int_eq(fs_link_load_finish(load, fs_engine_makespan(run.engine), &err), 0);
  expect_link(load, 0, "L1", 1500, 1500 * NS, 2, 2500.0 / 1500.0, 0.9375, 1e9);
  const fs_flow_change *c;
  ck_assert_int_eq(fs_link_load_rates(load, 0, &c), 4);
  fs_link_load_free(load);
  fs_fake_flow_run_free(&run);
}
END_TEST

/* The critical path under the fake flow model: A (t0) ends last, at 1600
 * ns, its CPU free at once: all of it is network time. Priced alone on its
 * route (fake_flow.c): latency 100, bandwidth 1000 B at 1 B/ns = 1000; the
 * rest, 500 ns, is sharing (over [500, 1500] A moved 500 B instead of
 * 1000: 500 ns lost to B), shown as contention with the flow model's note. */
START_TEST(critical_path_sharing) {
  fs_fake_flow_run run;
  fs_fake_flow_run_new(&run);
  fs_timeline *timeline = fs_timeline_new(run.program);
  fs_observer observer = fs_timeline_observer(timeline);
  ck_assert_int_eq(fs_engine_add_observer(run.engine, &observer), 0);
  fs_fake_flow_run_program(&run);
  fs_error err = {{0}};
  fs_critical_path *cp = fs_critical_path_compute(timeline, &run.network, &err);
  ck_assert_ptr_nonnull(cp);
  ck_assert_int_eq(cp->part[FS_PATH_LATENCY], 100 * NS);
  ck_assert_int_eq(cp->part[FS_PATH_BANDWIDTH], 1000 * NS);
  ck_assert_int_eq(cp->part[FS_PATH_CONTENTION], 500 * NS);
  ck_assert_int_eq(cp->part[FS_PATH_CPU] + cp->part[FS_PATH_WAITING] + cp->part[FS_PATH_NETWORK],
                   0);
  char *buffer = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&buffer, &size);
  fs_critical_path_report_text(out, cp, 4);
  fclose(out);
  ck_assert_str_eq(buffer,
                   "critical path  1600 ns in 1 steps\n"
                   "  waiting     0 ns (0.00%)\n"
                   "  cpu         0 ns (0.00%)\n"
                   "  latency     100 ns (6.25%)\n"
                   "  bandwidth   1000 ns (62.50%)\n"
                   "  contention  500 ns (31.25%)\n"
                   "  (a flow model: bandwidth is a transfer's size at the rate it would get "
                   "alone on its route; contention is sharing, the time lost to other flows)\n"
                   "  t0 put rank 0: ready 0 start 0 end 1600 ns; latency 100 bandwidth 1000 "
                   "contention 500\n");
  free(buffer);
  fs_critical_path_free(cp);
  fs_timeline_free(timeline);
  fs_fake_flow_run_free(&run);
}
END_TEST

int main(void) {
  Suite *s = suite_create("link_load");
  TCase *c = tcase_create("load");
  tcase_add_test(c, two_puts_share_a_link);
  tcase_add_test(c, changes_kept);
  tcase_add_test(c, reports);
  tcase_add_test(c, errors);
  tcase_add_test(c, second_run_afresh);
  tcase_add_test(c, critical_path_sharing);
  suite_add_tcase(s, c);
  return fs_test_run(s);
}
