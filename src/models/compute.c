/* compute.c: the compute models. A compute task with time= always takes that
 * time. Otherwise `fixed` charges compute_time per task (default 0) and
 * `rate` charges gamma per byte of its size= (default 0). */
#include <stdio.h>
#include <stdlib.h>

#include "models/model_registry.h"

typedef struct compute_parameters {
  fs_time compute_time;
  fs_per_byte gamma;
} compute_parameters;

static fs_time fixed_duration(void *state, const fs_program *p, int32_t task) {
  const compute_parameters *m = state;
  return (fs_task_flags(p, task) & FS_HAS_TIME) ? fs_task_value(p, task) : m->compute_time;
}

static fs_time rate_duration(void *state, const fs_program *p, int32_t task) {
  const compute_parameters *m = state;
  if (fs_task_flags(p, task) & FS_HAS_TIME) return fs_task_value(p, task);
  return (fs_task_flags(p, task) & FS_HAS_SIZE)
             ? fs_time_for_bytes(fs_task_value(p, task), m->gamma)
             : 0;
}

static void fixed_describe(const void *state, char *buffer, size_t size) {
  char t[32];
  snprintf(buffer, size, "\"compute_time_ns\": %s",
           fs_format_ns(t, ((const compute_parameters *)state)->compute_time));
}

static void rate_describe(const void *state, char *buffer, size_t size) {
  char g[48];
  snprintf(buffer, size, "\"gamma_ns_per_byte\": %s",
           fs_format_ns_per_byte(g, ((const compute_parameters *)state)->gamma));
}

static const fs_model_reports fixed_reports = {.describe = fixed_describe};
static const fs_model_reports rate_reports = {.describe = rate_describe};

int fs_fixed_compute_create(fs_parameters *params, fs_compute_model *out, fs_error *err) {
  compute_parameters m = {0, 0};
  if (fs_parameter_time(params, "compute_time", 0, &m.compute_time, err)) return -1;
  compute_parameters *state = malloc(sizeof *state);
  if (!state) return fs_error_set(err, "out of memory");
  *state = m;
  *out = (fs_compute_model){.name = "fixed",
                            .state = state,
                            .duration = fixed_duration,
                            .destroy = free,
                            .reports = &fixed_reports};
  return 0;
}

int fs_rate_compute_create(fs_parameters *params, fs_compute_model *out, fs_error *err) {
  compute_parameters m = {0, 0};
  if (fs_parameter_per_byte(params, "gamma", &m.gamma, err)) return -1;
  compute_parameters *state = malloc(sizeof *state);
  if (!state) return fs_error_set(err, "out of memory");
  *state = m;
  *out = (fs_compute_model){.name = "rate",
                            .state = state,
                            .duration = rate_duration,
                            .destroy = free,
                            .reports = &rate_reports};
  return 0;
}
