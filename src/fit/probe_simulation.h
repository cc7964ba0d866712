/* probe_simulation.h: the experiments of fennelprobe (probe_data.h),
 * simulated: each row's experiment is built as a small program and run
 * under a model, so that `fennelsim fit` can be tested in a closed loop
 * (simulate under known parameters, fit, compare) and users can see what
 * a model predicts for their probe's measurements.
 *
 * A plan lists the rows to produce (experiment, placement, sizes, ranks);
 * fs_probe_plan_default gives the one fennelprobe runs by default on
 * `ranks` processes of `nodes` nodes. Without noise, every row's min,
 * median and mean are the simulated time (repetitions 1). With noise,
 * each row is simulated `repetitions` times with seeds seed, seed+1, ...
 * and its statistics are those of the samples. */
#ifndef FS_PROBE_SIMULATION_H
#define FS_PROBE_SIMULATION_H

#include "core/engine.h"
#include "fit/probe_data.h"
#include "noise/noise.h"
#include "platform/platform.h"

typedef struct fs_probe_plan {
  fs_probe_row *rows; /* the fields that say what to measure; statistics ignored */
  int64_t count, capacity;
} fs_probe_plan;

/* The default plan on `ranks` processes (>= 2), `cores` per node (ranks
 * placed sequentially: 0..cores-1 on node 0, ...): roundtrips at sizes 0,
 * 1 B .. 4 MiB (powers of 2) between ranks 0 and 1 (shm when cores > 1)
 * and 0 and `cores` (net, when there are 2 nodes), and between every pair
 * for the heterogeneous models; send_call, ssend, train (count 1..16),
 * multicast (count 1..ranks-1), one_to_two over every triplet, ring (tau
 * 1..cores shm, 1..cores net), memcpy, send-to-self, strided sizes.
 * -1 when out of memory. */
int fs_probe_plan_default(fs_probe_plan *plan, int32_t ranks, int32_t cores);
void fs_probe_plan_free(fs_probe_plan *plan);
int fs_probe_plan_add(fs_probe_plan *plan, const fs_probe_row *row);

typedef struct fs_probe_simulation {
  fs_network_model *network; /* built by the caller (model registry) */
  fs_compute_model *compute;
  const fs_noise *noise; /* NULL: none; else prepared for `ranks` (fs_noise_prepare) */
  uint64_t seed;
  int64_t repetitions; /* with noise; >= 1 */
  int32_t ranks;       /* processes of the simulated machine */
} fs_probe_simulation;

/* Simulates every row of the plan; NULL with err set. */
fs_probe_data *fs_probe_simulate(const fs_probe_simulation *s, const fs_probe_plan *plan,
                                 fs_error *err);

#endif
