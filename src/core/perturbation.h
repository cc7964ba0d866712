/* perturbation.h: what the engine asks of a layer that changes the
 * intervals the models post (noise/perturbation.c: the noise), as a struct
 * of function pointers like the models' (model.h). Without one
 * (fs_engine_set_perturbation with NULL) the engine calls nothing and
 * every completion lands where the model put it.
 *
 * The engine calls these in its deterministic event order, so a layer
 * that draws random numbers in them gets the same draws every run. Every
 * time returned is at or after `now`. */
#ifndef FS_PERTURBATION_H
#define FS_PERTURBATION_H

#include <stdint.h>

#include "core/units.h"

typedef struct fs_perturbation {
  void *state;
  /* A run begins (fs_engine_run). */
  void (*reset)(void *state);
  /* task starts at now: its intervals are measured from here. */
  void (*start)(void *state, int32_t task, fs_time now);
  /* The completion of task posted for `at` with local = remote (a sleep,
   * a compute, a put/get whose sender is busy until the data lands). */
  fs_time (*complete)(void *state, int32_t task, fs_time at, fs_time now);
  /* The local completion of task posted for `at`, with no remote part
   * posted in the same model call. */
  fs_time (*local)(void *state, int32_t task, fs_time at, fs_time now);
  /* The remote completion or the arrival of task's data posted for `at`.
   * *local: the local completion posted for it in the same model call,
   * changed into its perturbed time; NULL when there was none. */
  fs_time (*transfer)(void *state, int32_t task, fs_time at, fs_time *local, fs_time now);
  /* The receiver's CPU takes the message of send from now until end. */
  fs_time (*receive)(void *state, int32_t send, fs_time end, fs_time now);
  /* The bytes its state holds (fs_engine_bytes). */
  int64_t (*bytes)(const void *state);
  /* Frees the state (the engine owns it once it is set). */
  void (*destroy)(void *state);
} fs_perturbation;

#endif
