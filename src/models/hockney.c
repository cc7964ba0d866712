/* hockney.c: the latency-bandwidth model, T = alpha + beta * size.
 * The sender's CPU is held until the data arrives (CPU and NIC are one unit,
 * as in the Fennel thesis §4.2 and its LB model). A get is a request (alpha)
 * and the data back (alpha + beta * size), the initiator blocked through both.
 * A send is eager: the sender is busy until its message lands, and receiving
 * it takes no CPU. */
#include <stdio.h>
#include <stdlib.h>

#include "core/engine.h"
#include "models/model_registry.h"

typedef struct hockney {
  fs_time alpha;
  fs_per_byte beta;
} hockney;

static void hockney_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const hockney *m = state;
  const fs_program *p = fs_engine_program(engine);
  fs_time cost = fs_time_add(m->alpha, fs_time_for_bytes(fs_task_value(p, task), m->beta));
  if (fs_task_kind_of(p, task) == FS_GET) cost = fs_time_add(cost, m->alpha);
  fs_engine_post_complete(engine, task, fs_time_add(now, cost));
}

static int hockney_send(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const hockney *m = state;
  const fs_program *p = fs_engine_program(engine);
  fs_time arrival =
      fs_time_add(now, fs_time_add(m->alpha, fs_time_for_bytes(fs_task_value(p, task), m->beta)));
  fs_engine_post_local(engine, task, arrival);
  fs_engine_post_arrival(engine, task, arrival);
  return 0;
}

/* Alone, all of a transfer is network time: alpha (twice for a get's
 * request and reply) and beta * size. */
static int hockney_price(void *state, const fs_program *p, int32_t task, fs_time *latency,
                         fs_time *per_size) {
  const hockney *m = state;
  *latency = fs_task_kind_of(p, task) == FS_GET ? fs_time_mul(m->alpha, 2) : m->alpha;
  *per_size = fs_time_for_bytes(fs_task_value(p, task), m->beta);
  return 0;
}

static void hockney_describe(const void *state, char *buffer, size_t size) {
  const hockney *m = state;
  char alpha[32], beta[48];
  snprintf(buffer, size, "\"alpha_ns\": %s, \"beta_ns_per_byte\": %s",
           fs_format_ns(alpha, m->alpha), fs_format_ns_per_byte(beta, m->beta));
}

static const fs_model_reports hockney_reports = {.describe = hockney_describe,
                                                 .price = hockney_price};

int fs_hockney_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  hockney defaults = {.alpha = 1260 * FS_NS, .beta = 0};
  if (fs_parse_per_byte("10.2GB/s", 8, &defaults.beta)) return -1;
  if (fs_parameter_time(params, "alpha", 0, &defaults.alpha, err) ||
      fs_parameter_per_byte(params, "beta", &defaults.beta, err))
    return -1;
  hockney *m = malloc(sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  *m = defaults;
  *out = (fs_network_model){.name = "hockney",
                            .state = m,
                            .start = hockney_start,
                            .send = hockney_send,
                            .destroy = free,
                            .reports = &hockney_reports};
  return 0;
}
