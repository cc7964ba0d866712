/* model_support.h: finalizing a hand-built program, building models from
 * "key=value key=value" text in tests, and running a finalized program to
 * completion. */
#ifndef FS_MODEL_SUPPORT_H
#define FS_MODEL_SUPPORT_H

#include "core/engine.h"
#include "models/model_registry.h"

typedef struct fs_simulation {
  fs_network_model network;
  fs_compute_model compute;
  fs_engine *engine;
  int status;
  fs_error err;
} fs_simulation;

/* Finalizes p; ck_asserts that it succeeded (the error shown). */
void fs_test_finalize(fs_program *p);
/* Parses "k=v k=v" (modified in place) into params (at most 16). */
int fs_test_parameters(char *text, fs_parameter items[16], fs_parameters *params);
/* Builds both models and an engine, runs once; ck_asserts that the models
 * were built. The caller inspects run->status and calls fs_test_run_free. */
void fs_test_simulate(fs_simulation *run, const fs_program *program, const char *network,
                      const char *compute, const char *parameters);
/* fs_test_simulate with observer (NULL: none) attached before the run. */
void fs_test_simulate_observed(fs_simulation *run, const fs_program *program, const char *network,
                               const char *compute, const char *parameters,
                               const fs_observer *observer);
void fs_test_run_free(fs_simulation *run);
/* The makespan of p under the models; ck_asserts that the run completed. */
fs_time fs_test_makespan(const fs_program *p, const char *network, const char *compute,
                         const char *parameters);

#endif
