/* gamma_compute.c: the `gamma` compute model of tau-Lop (seed 000, §3.3):
 * combining two vectors of m bytes costs gamma(m, tau) while tau such
 * operations run on the same node, since their operands come through the
 * node's memory. A compute task with size=m is a job on its node, shared
 * with progress fractions like tau-Lop's transfers (shared_resource.h); a
 * compute with time= takes that time, and one with neither takes none.
 * gamma(m, tau) comes from a table (gamma_table=FILE, rows SIZE gamma(m,1)
 * ... gamma(m,T); beyond T, gamma(m,T) * tau / T); the platform from
 * --nodes/--cores/--mapping or --platform, as for taulop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "models/model_registry.h"
#include "models/platform_parameters.h"
#include "models/shared_resource.h"
#include "models/size_table.h"

typedef struct gamma_model {
  struct {
    int64_t bytes;
    int32_t tau;
    double cost;
  } last; /* the last cost asked */
  fs_size_table table;
  char table_name[256];
  fs_platform_parameters where;
  fs_platform *platform;
  fs_shared_resource *nodes;
} gamma_model;

static double gamma_cost(void *owner, int32_t node, int64_t bytes, int32_t tau) {
  gamma_model *m = owner;
  (void)node;
  if (m->last.bytes == bytes && m->last.tau == tau) return m->last.cost;
  const fs_size_table *t = &m->table;
  m->last.bytes = bytes, m->last.tau = tau;
  m->last.cost = tau <= t->columns
                     ? (double)fs_size_table_value(t, bytes, tau - 1)
                     : (double)fs_size_table_value(t, bytes, t->columns - 1) * tau / t->columns;
  return m->last.cost;
}

static void gamma_done(void *owner, fs_engine *e, int32_t task, int tag, fs_time now) {
  (void)owner, (void)tag;
  fs_engine_post_complete(e, task, now);
}

static void gamma_start(void *state, fs_engine *e, int32_t task, fs_time now) {
  gamma_model *m = state;
  const fs_program *p = fs_engine_program(e);
  if (fs_task_flags(p, task) & FS_HAS_TIME)
    fs_engine_post_complete(e, task, fs_time_add(now, fs_task_value(p, task)));
  else if (fs_task_flags(p, task) & FS_HAS_SIZE)
    fs_shared_resource_begin(m->nodes, e, fs_platform_node_of(m->platform, fs_task_rank(p, task)),
                             fs_task_value(p, task), task, 0, now);
  else
    fs_engine_post_complete(e, task, now);
}

static void gamma_event(void *state, fs_engine *e, uint32_t payload, fs_time now) {
  fs_shared_resource_event(((gamma_model *)state)->nodes, e, payload, now);
}

/* A fixed duration for readers that ask (the engine uses start). */
static fs_time gamma_duration(void *state, const fs_program *p, int32_t task) {
  (void)state;
  return (fs_task_flags(p, task) & FS_HAS_TIME) ? fs_task_value(p, task) : 0;
}

static int gamma_reset(void *state, const fs_program *p, fs_error *err) {
  gamma_model *m = state;
  fs_platform_free(m->platform);
  m->platform = fs_platform_parameters_build(&m->where, p->ranks, err);
  if (!m->platform) return -1;
  m->last.tau = 0;                                                         /* nothing cached */
  return fs_shared_resource_reset(m->nodes, m->platform->used_nodes, err); /* nodes in use */
}

static void gamma_describe(const void *state, char *buffer, size_t size) {
  const gamma_model *m = state;
  snprintf(buffer, size, "\"gamma_table\": \"%s\", \"gamma_columns\": %d", m->table_name,
           m->table.columns);
}

/* Its nodes for a load observer: "gamma node 3". */
static void instance_name(const void *state, int32_t node, char *buffer, size_t size) {
  (void)state;
  snprintf(buffer, size, "gamma node %d", node);
}

static void gamma_set_load_observer(void *state, const fs_load_observer *observer) {
  fs_shared_resource_set_observer(((gamma_model *)state)->nodes, observer, instance_name);
}

static void gamma_destroy(void *state) {
  gamma_model *m = state;
  fs_size_table_free(&m->table);
  fs_platform_free(m->platform);
  fs_shared_resource_free(m->nodes);
  free(m);
}

static int read_table(gamma_model *m, const fs_parameter *param, fs_error *err) {
  fs_text_input *in = fs_parameter_open_text(param, err);
  if (!in) return -1;
  int status = fs_size_table_read(in, 0, NULL, &m->table, err);
  fs_text_input_close(in);
  snprintf(m->table_name, sizeof m->table_name, "%s", param->value);
  return status;
}

static void post_compute_event(void *owner, fs_engine *e, fs_time at, uint32_t payload) {
  (void)owner;
  fs_engine_post_compute_event(e, at, payload);
}

static const fs_model_reports gamma_reports = {.describe = gamma_describe,
                                               .set_load_observer = gamma_set_load_observer};

int fs_gamma_compute_create(fs_parameters *params, fs_compute_model *out, fs_error *err) {
  gamma_model *m = calloc(1, sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  fs_shared_callbacks callbacks = {.owner = m,
                                   .cost = gamma_cost,
                                   .post = post_compute_event,
                                   .done = gamma_done};
  m->nodes = fs_shared_resource_new(&callbacks);
  fs_parameter *table = fs_parameter_take(params, "gamma_table");
  int failed = !m->nodes || fs_platform_parameters_read(params, &m->where, err);
  if (!failed && !table)
    failed = fs_error_set(err, "the gamma compute model needs --param gamma_table=FILE "
                               "(rows: SIZE gamma(m,1) ... gamma(m,T))") != 0;
  if (!failed) failed = read_table(m, table, err) != 0;
  if (failed) {
    gamma_destroy(m);
    return -1;
  }
  *out = (fs_compute_model){.name = "gamma",
                            .state = m,
                            .duration = gamma_duration,
                            .start = gamma_start,
                            .event = gamma_event,
                            .reset = gamma_reset,
                            .destroy = gamma_destroy,
                            .reports = &gamma_reports};
  return 0;
}
