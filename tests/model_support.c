/* model_support.c: see model_support.h. */
#include "model_support.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

void fs_test_finalize(fs_program *p) {
  fs_error err = {{0}};
  ck_assert_msg(fs_program_finalize(p, &err) == 0, "%s", err.message);
}

int fs_test_parameters(char *text, fs_parameter items[16], fs_parameters *params) {
  *params = (fs_parameters){.items = items}; /* the models' record of keys starts empty */
  for (char *token = strtok(text, " "); token; token = strtok(NULL, " ")) {
    char *equals = strchr(token, '=');
    if (!equals || params->count == 16) return -1;
    *equals = 0;
    items[params->count++] = (fs_parameter){.key = token, .value = equals + 1, .used = 0};
  }
  return 0;
}

void fs_test_simulate(fs_simulation *run, const fs_program *program, const char *network,
                      const char *compute, const char *parameters) {
  fs_test_simulate_observed(run, program, network, compute, parameters, NULL);
}

void fs_test_simulate_observed(fs_simulation *run, const fs_program *program, const char *network,
                               const char *compute, const char *parameters,
                               const fs_observer *observer) {
  char text[512];
  fs_parameter items[16];
  fs_parameters params;
  memset(run, 0, sizeof *run);
  snprintf(text, sizeof text, "%s", parameters ? parameters : "");
  ck_assert_int_eq(fs_test_parameters(text, items, &params), 0);
  ck_assert_msg(fs_network_model_create(network, &params, &run->network, &run->err) == 0, "%s",
                run->err.message);
  ck_assert_msg(fs_compute_model_create(compute, &params, &run->compute, &run->err) == 0, "%s",
                run->err.message);
  ck_assert_msg(fs_parameters_check_used(&params, &run->err) == 0, "%s", run->err.message);
  run->engine = fs_engine_new(program, &run->network, &run->compute, &run->err);
  ck_assert_ptr_nonnull(run->engine);
  if (observer) ck_assert_int_eq(fs_engine_add_observer(run->engine, observer), 0);
  run->status = fs_engine_run(run->engine, &run->err);
}

void fs_test_run_free(fs_simulation *run) {
  fs_engine_free(run->engine);
  fs_network_model_destroy(&run->network);
  fs_compute_model_destroy(&run->compute);
}

fs_time fs_test_makespan(const fs_program *p, const char *network, const char *compute,
                         const char *parameters) {
  fs_simulation run;
  fs_test_simulate(&run, p, network, compute, parameters);
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  fs_time makespan = fs_engine_makespan(run.engine);
  fs_test_run_free(&run);
  return makespan;
}
