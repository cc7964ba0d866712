/* fake_flow.c: see fake_flow.h. Ranks 0 and 1; put A (task 0) 0 -> 1,
 * 1000 B over links L1 (1 GB/s) then L2 (2 GB/s); put B (task 1) 1 -> 0,
 * 500 B over L1; link 0 is the loopback (10 GB/s), unused. Both start at
 * 0 in their latency phase (rate 0), their CPU free at once. A's data phase starts at 100 ns at
 * 1 B/ns; B's at 500 ns, when L1 is shared: 0.5 B/ns each. B's 500 B end
 * at 1500 ns; A has then moved 400 + 500 B and takes its last 100 B alone
 * at 1 B/ns: it ends at 1600 ns (the makespan). The script also reports
 * L1 twice at 1500 (idle, then one flow) and L2 twice alike, as a model
 * may within one instant. */
#include "fake_flow.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/model_registry.h"
#include "model_support.h"

enum { LINK, TRANSFER };

typedef struct step {
  fs_time t;
  int kind;
  int32_t id, flows;
  double rate;
} step;

#define NS 1000
static const step script[] = {
    {0, TRANSFER, 0, 0, 0},       {0, TRANSFER, 1, 0, 0},           {100 * NS, LINK, 1, 1, 1e9},
    {100 * NS, LINK, 2, 1, 1e9},  {100 * NS, TRANSFER, 0, 0, 1e9},  {500 * NS, LINK, 1, 2, 1e9},
    {500 * NS, LINK, 2, 1, 5e8},  {500 * NS, TRANSFER, 0, 0, 5e8},  {500 * NS, TRANSFER, 1, 0, 5e8},
    {1500 * NS, LINK, 1, 0, 0},   {1500 * NS, LINK, 1, 1, 1e9},     {1500 * NS, LINK, 2, 1, 1e9},
    {1500 * NS, LINK, 2, 1, 1e9}, {1500 * NS, TRANSFER, 0, 0, 1e9}, {1500 * NS, TRANSFER, 1, 0, 0},
    {1600 * NS, LINK, 1, 0, 0},   {1600 * NS, LINK, 2, 0, 0},       {1600 * NS, TRANSFER, 0, 0, 0},
};
static const fs_time ends[] = {1600 * NS, 1500 * NS};

typedef struct fake {
  fs_flow_observer observer;
  int started; /* the script is posted at the first start of a run */
} fake;

static double fake_name(const void *model, int32_t link, char *buffer, size_t size) {
  (void)model;
  static const char *const names[] = {"__loopback__", "L1", "L2"};
  static const double bandwidths[] = {1e10, 1e9, 2e9};
  snprintf(buffer, size, "%s", names[link]);
  return bandwidths[link];
}

static int fake_reset(void *state, const fs_program *program, fs_error *err) {
  (void)program, (void)err;
  fake *f = state;
  f->started = 0;
  if (f->observer.reset) f->observer.reset(f->observer.state, 3, f, fake_name);
  return 0;
}

static void fake_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  fake *f = state;
  if (!f->started++)
    for (uint32_t i = 0; i < sizeof script / sizeof script[0]; i++)
      fs_engine_post_model_event(engine, script[i].t > now ? script[i].t : now, i);
  fs_engine_post_local(engine, task, now); /* the CPU is free at once */
  fs_engine_post_remote(engine, task, ends[task]);
}

static void fake_event(void *state, fs_engine *engine, uint32_t payload, fs_time now) {
  (void)engine;
  fake *f = state;
  const step *s = &script[payload];
  if (s->kind == LINK && f->observer.link)
    f->observer.link(f->observer.state, s->id, s->flows, s->rate, now);
  else if (s->kind == TRANSFER && f->observer.transfer)
    f->observer.transfer(f->observer.state, s->id, s->rate, now);
}

static void fake_observe(void *state, const fs_flow_observer *observer) {
  fake *f = state;
  f->observer = observer ? *observer : (fs_flow_observer){0};
}

/* Alone on its route: A's latency phase is 100 ns, B's 500, then 1 B/ns
 * (L1's bandwidth). */
static int fake_price(void *state, const fs_program *p, int32_t task, fs_time *latency,
                      fs_time *per_size) {
  (void)state;
  *latency = (task == 0 ? 100 : 500) * NS;
  *per_size = p->value[task] * NS;
  return 0;
}

static const fs_model_reports fake_reports = {.price = fake_price,
                                              .set_flow_observer = fake_observe};

void fs_fake_flow_run_new(fs_fake_flow_run *run) {
  memset(run, 0, sizeof *run);
  fs_program *p = fs_program_new(2);
  static const int32_t rank[] = {0, 1}, peer[] = {1, 0};
  static const int64_t size[] = {1000, 500};
  for (int i = 0; i < 2; i++) {
    int32_t t = fs_program_add(p, FS_PUT, rank[i]);
    fs_task_set_peer(p, t, peer[i]);
    fs_task_set_size(p, t, size[i]);
  }
  fs_test_finalize(p);
  run->program = p;
  run->state = calloc(1, sizeof(fake));
  ck_assert_ptr_nonnull(run->state);
  run->network = (fs_network_model){.name = "fake-flow",
                                    .state = run->state,
                                    .start = fake_start,
                                    .event = fake_event,
                                    .reset = fake_reset,
                                    .reports = &fake_reports};
  char text[] = "";
  fs_parameter items[16];
  fs_parameters params;
  fs_error err = {{0}};
  ck_assert_int_eq(fs_test_parameters(text, items, &params), 0);
  ck_assert_msg(fs_compute_model_create("fixed", &params, &run->compute, &err) == 0, "%s",
                err.message);
  run->engine = fs_engine_new(p, &run->network, &run->compute, &err);
  ck_assert_ptr_nonnull(run->engine);
}

void fs_fake_flow_run_program(fs_fake_flow_run *run) {
  fs_error err = {{0}};
  ck_assert_msg(fs_engine_run(run->engine, &err) == FS_RUN_OK, "%s", err.message);
}

void fs_fake_flow_run_free(fs_fake_flow_run *run) {
  fs_engine_free(run->engine);
  fs_compute_model_destroy(&run->compute);
  free(run->state);
  fs_program_free(run->program);
}
