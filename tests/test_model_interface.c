/* test_model_interface.c: a model written against core/model.h alone, with
 * the engine's six callbacks and no reports table (reports == NULL), runs a
 * program; the reports and instruments that would ask it for describe,
 * price or set_load_observer say what they cannot know instead. Times
 * derived by hand below. */
#define _GNU_SOURCE /* open_memstream is POSIX 2008 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "instruments/channel_load.h"
#include "instruments/critical_path.h"
#include "instruments/report.h"
#include "instruments/timeline.h"
#include "models/model_registry.h"
#include "test_support.h"

#define NS 1000

/* "six": a put, get or send holds its CPU 100 ns and its NIC 400 ns; a
 * put/get is delivered 1000 ns after its start, from the model's own event;
 * a message arrives after 1000 ns and takes 50 ns of the receiver's CPU. */
typedef struct six {
  fs_time *nic_free; /* per rank: when its NIC may start the next transfer */
  int32_t ranks;
  int resets;
} six;

static void six_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  six *m = state;
  m->nic_free[fs_engine_program(engine)->rank[task]] = now + 400 * NS;
  fs_engine_post_local(engine, task, now + 100 * NS);
  fs_engine_post_model_event(engine, now + 1000 * NS, (uint32_t)task);
}

static void six_event(void *state, fs_engine *engine, uint32_t payload, fs_time now) {
  (void)state;
  fs_engine_post_remote(engine, (int32_t)payload, now);
}

static int six_send(void *state, fs_engine *engine, int32_t task, fs_time now) {
  six *m = state;
  m->nic_free[fs_engine_program(engine)->rank[task]] = now + 400 * NS;
  fs_engine_post_local(engine, task, now + 100 * NS);
  fs_engine_post_arrival(engine, task, now + 1000 * NS);
  return 0; /* eager */
}

static fs_time six_receive(void *state, fs_engine *engine, int32_t task, fs_time now) {
  (void)state, (void)engine, (void)task, (void)now;
  return 50 * NS;
}

static fs_time six_available(void *state, const fs_engine *engine, int32_t task, int receiving,
                             fs_time now) {
  const six *m = state;
  if (receiving) return now;
  fs_time free_at = m->nic_free[fs_engine_program(engine)->rank[task]];
  return free_at > now ? free_at : now;
}

static int six_reset(void *state, const fs_program *program, fs_error *err) {
  six *m = state;
  free(m->nic_free);
  m->nic_free = calloc((size_t)program->ranks, sizeof *m->nic_free);
  if (!m->nic_free) return fs_error_set(err, "out of memory");
  m->ranks = program->ranks, m->resets++;
  return 0;
}

static void six_destroy(void *state) {
  six *m = state;
  free(m->nic_free);
  free(m);
}

static fs_network_model six_model(void) {
  six *m = calloc(1, sizeof *m);
  ck_assert_ptr_nonnull(m);
  return (fs_network_model){.name = "six",
                            .state = m,
                            .start = six_start,
                            .send = six_send,
                            .receive = six_receive,
                            .available = six_available,
                            .event = six_event,
                            .reset = six_reset,
                            .destroy = six_destroy};
}

/* "bare": a compute model with a duration and nothing else. */
static fs_time bare_duration(void *state, const fs_program *p, int32_t task) {
  (void)state;
  return p->value[task];
}

static int32_t transfer(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer) {
  int32_t t = fs_program_add(p, kind, rank);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, 8);
  return t;
}

/* Rank 0 puts t0 and t1 to rank 1; rank 1 sends t2 to rank 0's recv t3,
 * both after t1. By hand: t0 starts at 0 (CPU to 100, NIC to 400,
 * delivered 1000); t1 waits for the NIC: starts 400 (CPU to 500, delivered
 * 1400); t2 and t3 are ready at 1400: t2 holds rank 1's CPU to 1500 (an
 * eager send completes then), its message arrives at 2400 and rank 0's CPU
 * receives it into the posted t3 to 2450. Finish: rank 0 2450, rank 1
 * 1500. Events: t0 local 100, t1's retry 400, t1 local 500, t0's model
 * event and remote 1000, t1's 1400 (two), t2 local 1500, arrival 2400,
 * receipt's end 2450: 10. */
static fs_program *two_puts_then_a_message(void) {
  fs_program *p = fs_program_new(2);
  transfer(p, FS_PUT, 0, 1);
  int32_t t1 = transfer(p, FS_PUT, 0, 1);
  int32_t t2 = transfer(p, FS_SEND, 1, 0);
  int32_t t3 = transfer(p, FS_RECV, 0, 1);
  fs_program_depend(p, t2, t1, FS_AFTER_END);
  fs_program_depend(p, t3, t1, FS_AFTER_END);
  fs_error err;
  ck_assert_msg(fs_program_finalize(p, &err) == 0, "%s", err.message);
  return p;
}

typedef struct fixture {
  fs_program *program;
  fs_network_model network;
  fs_compute_model compute;
  fs_engine *engine;
  fs_timeline *timeline;
} fixture;

static void run(fixture *f) {
  fs_error err;
  f->program = two_puts_then_a_message();
  f->network = six_model();
  f->compute = (fs_compute_model){.name = "bare", .duration = bare_duration};
  f->engine = fs_engine_new(f->program, &f->network, &f->compute, &err);
  ck_assert_msg(f->engine != NULL, "%s", err.message);
  f->timeline = fs_timeline_new(f->program);
  ck_assert_ptr_nonnull(f->timeline);
  fs_observer observer = fs_timeline_observer(f->timeline);
  ck_assert_int_eq(fs_engine_add_observer(f->engine, &observer), 0);
  ck_assert_msg(fs_engine_run(f->engine, &err) == FS_RUN_OK, "%s", err.message);
}

static void release(fixture *f) {
  fs_timeline_free(f->timeline);
  fs_engine_free(f->engine);
  fs_network_model_destroy(&f->network);
  fs_compute_model_destroy(&f->compute);
  fs_program_free(f->program);
}

START_TEST(six_callbacks_run_a_program) {
  fixture f;
  run(&f);
  ck_assert_ptr_null(f.network.reports);
  ck_assert_int_eq(fs_engine_makespan(f.engine), 2450 * NS);
  ck_assert_int_eq(fs_engine_finish(f.engine, 0), 2450 * NS);
  ck_assert_int_eq(fs_engine_finish(f.engine, 1), 1500 * NS);
  ck_assert_int_eq(fs_engine_events(f.engine), 10);
  fs_time t[4]; /* ready, started, local, remote */
  fs_timeline_task(f.timeline, 1, t);
  ck_assert_int_eq(t[1], 400 * NS);
  ck_assert_int_eq(t[3], 1400 * NS);
  fs_time from, to;
  ck_assert_int_eq(fs_timeline_receipt(f.timeline, 2, &from, &to), 0);
  ck_assert_int_eq(from, 2400 * NS);
  ck_assert_int_eq(to, 2450 * NS);
  ck_assert_int_eq(((const six *)f.network.state)->resets, 1);
  ck_assert_int_eq(fs_engine_run(f.engine, &(fs_error){0}), FS_RUN_OK); /* reset, same run */
  ck_assert_int_eq(((const six *)f.network.state)->resets, 2);
  ck_assert_int_eq(fs_engine_makespan(f.engine), 2450 * NS);
  release(&f);
}
END_TEST

static char *captured(void (*write)(FILE *, const fs_run_summary *), const fs_run_summary *s) {
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  ck_assert_ptr_nonnull(out);
  write(out, s);
  fclose(out);
  return text;
}

/* Without describe the reports show each model's parameters as {}. */
START_TEST(reports_show_no_parameters) {
  fixture f;
  run(&f);
  fs_run_summary s = {.input = "by-hand",
                      .program = f.program,
                      .engine = f.engine,
                      .network = &f.network,
                      .compute = &f.compute};
  char *text = captured(fs_report_text, &s);
  ck_assert_str_eq(text, "input      by-hand (2 ranks, 4 tasks, 2 dependencies)\n"
                         "model      six {}\n"
                         "compute    bare {}\n"
                         "makespan   2.45 us (2450 ns)\n"
                         "finish ns  0:2450 1:1500\n"
                         "events     10 in 0.000 s (0 events/s); program loaded in 0.000 s\n");
  free(text);
  text = captured(fs_report_json, &s);
  ck_assert_str_eq(text,
                   "{\"input\": \"by-hand\", \"model\": \"six\", \"model_parameters\": {}, "
                   "\"compute_model\": \"bare\", \"compute_parameters\": {}, \"ranks\": 2, "
                   "\"tasks\": 4, \"dependencies\": 2, \"makespan_ns\": 2450, \"finish_ns\": "
                   "[2450, 1500], \"events\": 10, \"wall_s\": 0.000000, \"load_s\": 0.000000, "
                   "\"events_per_s\": 0}\n");
  free(text);
  text = captured(fs_report_csv, &s);
  ck_assert_str_eq(text, FS_REPORT_CSV_HEADER
                   "\n"
                   "by-hand,six,{},bare,{},,,2,4,2,2450,10,0.000000,0.000000\n");
  free(text);
  release(&f);
}
END_TEST

/* Without price the critical path keeps network time in one part and says
 * it is unpriced ("priced": false; no latency, bandwidth or contention
 * lines). By hand: t1 is ready at 0 and waits for the CPU (t0, to 100) and
 * the NIC (to 400), holds the CPU 100 and is delivered 900 later, at 1400;
 * t2 then holds rank 1's CPU 100 and its message lands 900 later, at 2400;
 * t3 takes it in 50 of rank 0's CPU: waiting 400, cpu 250, network 1800. */
START_TEST(critical_path_cannot_price) {
  fixture f;
  run(&f);
  fs_error err;
  fs_critical_path *cp = fs_critical_path_compute(f.timeline, &f.network, &err);
  ck_assert_ptr_nonnull(cp);
  ck_assert_int_eq(cp->priced, 0);
  ck_assert_int_eq(cp->makespan, 2450 * NS);
  ck_assert_int_eq(cp->part[FS_PATH_LATENCY], 0);
  ck_assert_int_eq(cp->part[FS_PATH_BANDWIDTH], 0);
  ck_assert_int_eq(cp->part[FS_PATH_CONTENTION], 0);
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  fs_critical_path_report_text(out, cp, 3);
  fprintf(out, "|");
  fs_critical_path_report_json(out, cp);
  fclose(out);
  ck_assert_str_eq(
      text, "critical path  2450 ns in 3 steps\n"
            "  waiting     400 ns (16.33%)\n"
            "  cpu         250 ns (10.20%)\n"
            "  network     1800 ns (73.47%)\n"
            "  t1 put rank 0: ready 0 start 400 end 1400 ns; waiting 400 cpu 100 network 900\n"
            "  t2 send rank 1 (message): ready 1400 start 1400 end 2400 ns; cpu 100 network 900\n"
            "  t3 recv rank 0: ready 2400 start 2400 end 2450 ns; cpu 50\n"
            "|\"critical_path\": {\"makespan_ns\": 2450, \"cpu_ns\": 250, \"latency_ns\": 0, "
            "\"bandwidth_ns\": 0, \"contention_ns\": 0, \"waiting_ns\": 400, \"network_ns\": 1800, "
            "\"priced\": false, \"overpriced_ns\": 0, \"overpriced_steps\": 0, \"steps\": ["
            "{\"task\": \"t1\", \"kind\": \"put\", \"rank\": 0, \"via\": \"end\", \"ready_ns\": 0, "
            "\"start_ns\": 400, \"end_ns\": 1400, \"cpu_ns\": 100, \"latency_ns\": 0, "
            "\"bandwidth_ns\": 0, \"contention_ns\": 0, \"waiting_ns\": 400, \"network_ns\": 900}, "
            "{\"task\": \"t2\", \"kind\": \"send\", \"rank\": 1, \"via\": \"message\", "
            "\"ready_ns\": 1400, \"start_ns\": 1400, \"end_ns\": 2400, \"cpu_ns\": 100, "
            "\"latency_ns\": 0, \"bandwidth_ns\": 0, \"contention_ns\": 0, \"waiting_ns\": 0, "
            "\"network_ns\": 900}, "
            "{\"task\": \"t3\", \"kind\": \"recv\", \"rank\": 0, \"via\": \"end\", "
            "\"ready_ns\": 2400, \"start_ns\": 2400, \"end_ns\": 2450, \"cpu_ns\": 50, "
            "\"latency_ns\": 0, \"bandwidth_ns\": 0, \"contention_ns\": 0, \"waiting_ns\": 0, "
            "\"network_ns\": 0}]}");
  free(text);
  fs_critical_path_free(cp);
  release(&f);
}
END_TEST

/* Without set_load_observer --channel-load refuses both models. */
START_TEST(channel_load_refuses) {
  fixture f;
  run(&f);
  fs_channel_load *load = fs_channel_load_new();
  ck_assert_ptr_nonnull(load);
  fs_error err;
  ck_assert_int_eq(fs_channel_load_attach(load, &f.network, &f.compute, &err), -1);
  ck_assert_str_eq(err.message, "--channel-load needs a model with channel instances (taulop, or "
                                "--compute gamma): six and bare have none");
  ck_assert_int_eq(fs_network_model_observe(&f.network, NULL), 0);
  ck_assert_int_eq(fs_compute_model_observe(&f.compute, NULL), 0);
  fs_channel_load_free(load);
  release(&f);
}
END_TEST

static Suite *model_interface_suite(void) {
  Suite *s = suite_create("model interface");
  TCase *c = tcase_create("six callbacks, no reports");
  tcase_add_test(c, six_callbacks_run_a_program);
  tcase_add_test(c, reports_show_no_parameters);
  tcase_add_test(c, critical_path_cannot_price);
  tcase_add_test(c, channel_load_refuses);
  suite_add_tcase(s, c);
  c = tcase_create("registry");
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(model_interface_suite()); }
