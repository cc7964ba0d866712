/* simulate.h: what the fuzz targets of the program readers share: a
 * program read from hostile input is also simulated, under a model picked
 * by a byte of the input with its defaults, so that values at the limits
 * (2^62 B sizes, 2^62 ps times) reach the engine's and the models'
 * arithmetic. A run may deadlock (an unmatched recv); it must not fail
 * (a completion posted in the past), and no time may pass the limit.
 * Header-only: each target is one translation unit. */
#ifndef FUZZ_SIMULATE_H
#define FUZZ_SIMULATE_H

#include <stdlib.h>

#include "core/engine.h"
#include "models/model_registry.h"

/* Small programs only: a fuzz run must stay fast and its memory bounded. */
#define FUZZ_SIMULATE_MAX_RANKS 4096
#define FUZZ_SIMULATE_MAX_TASKS 100000

static void fuzz_simulate(const fs_program *p, unsigned pick) {
  static const char *const networks[] = {"hockney", "pipelined", "loggops"};
  if (p->ranks > FUZZ_SIMULATE_MAX_RANKS || p->tasks > FUZZ_SIMULATE_MAX_TASKS) return;
  fs_parameters params = {0};
  fs_network_model network = {0};
  fs_compute_model compute = {0};
  fs_error err;
  if (fs_network_model_create(networks[pick % 3], &params, &network, &err) ||
      fs_compute_model_create("fixed", &params, &compute, &err))
    abort();
  fs_engine *engine = fs_engine_new(p, &network, &compute, &err);
  if (engine) {
    int status = fs_engine_run(engine, &err);
    if (status == FS_RUN_FAILED) abort();
    if (status != FS_RUN_REJECTED && fs_engine_makespan(engine) > FS_TIME_LIMIT) abort();
    fs_engine_free(engine);
  }
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&compute);
}

#endif
