/* sweep.h: a grid of collective runs, generated and simulated in memory:
 * algorithms x rank counts x sizes x models x platforms, each cell one
 * schedule run once (or under N seeds with noise: its distribution).
 * `fennelsim sweep` and `fennelsim best` are built on it.
 *
 * Cells run in parallel over threads; each cell's result is stored at its
 * own index, so the results do not depend on the thread count or the
 * order cells finished in. A generator that refuses a cell's parameters
 * (a power-of-two algorithm at 48 ranks) makes the cell SKIPPED with its
 * reason; any other failure (out of memory, a deadlock, a schedule the
 * data-flow check rejects) fails the sweep, naming the cell. */
#ifndef FS_SWEEP_H
#define FS_SWEEP_H

#include <stdint.h>

#include "core/error.h"
#include "core/units.h"
#include "generators/algorithm_spec.h"
#include "models/parameters.h"
#include "noise/noise.h"

typedef struct fs_sweep_model {
  const char *network;  /* network model name ("pipelined") */
  const char *compute;  /* compute model name ("fixed") */
  fs_parameters params; /* both models' parameters (read-only: each thread copies them) */
  char label[128];      /* how tables and plots name it: "pipelined", "hockney alpha=1us" */
} fs_sweep_model;

/* One platform setting: ranks on M nodes of Q cores, or a platform file.
 * Given as model parameters (nodes=, cores=, mapping=, platform=, as the
 * command line's --nodes/--cores/--mapping/--platform make them); with
 * cores set and nodes not, a cell of R ranks has ceil(R / Q) nodes. */
typedef struct fs_sweep_platform {
  const char *nodes, *cores, *mapping, *file; /* NULL: not given */
  char label[64];                             /* "seq", "rr", "16x4 rr", "fat-tree.xml" */
} fs_sweep_platform;

typedef struct fs_sweep_grid {
  const fs_algorithm_spec *algorithms;
  int algorithm_count;
  const int32_t *ranks;
  int rank_count;
  const int64_t *sizes; /* --size, in each collective's meaning */
  int size_count;
  const fs_sweep_model *models;
  int model_count;
  const fs_sweep_platform *platforms; /* NULL and 0: one rank per node */
  int platform_count;
  const fs_noise *noise; /* NULL: none */
  int64_t seeds;         /* runs per cell (1: a single run) */
  uint64_t base_seed;    /* seed index i runs base_seed + i, as in a study */
  int check;             /* prove each generated schedule with the data-flow checker */
  int threads;           /* 0: all online cores */
  int progress;          /* a progress bar on stderr */
} fs_sweep_grid;

typedef enum fs_sweep_status { FS_SWEEP_RUN = 0, FS_SWEEP_SKIPPED = 1 } fs_sweep_status;

/* The statistics of a cell's makespans, in ns (seeds 1: all equal, stdev 0). */
enum {
  FS_STAT_MIN,
  FS_STAT_P25,
  FS_STAT_MEDIAN,
  FS_STAT_MEAN,
  FS_STAT_P75,
  FS_STAT_P95,
  FS_STAT_P99,
  FS_STAT_MAX,
  FS_STAT_STDEV,
  FS_STAT_COUNT
};

typedef struct fs_sweep_cell {
  int32_t algorithm, ranks, size, model, platform; /* indices into the grid's lists */
  fs_sweep_status status;
  char reason[256];                   /* SKIPPED: why (the generator's words) */
  char picked[FS_ALGORITHM_TEXT_MAX]; /* a selector's pick ("allreduce-rabenseifner"), else "" */
  int64_t tasks;
  fs_time makespan; /* seeds 1: the run's makespan; else the median */
  double stats[FS_STAT_COUNT];
  double wall; /* seconds to generate, check and simulate the cell
                                         (the only field that differs between runs) */
} fs_sweep_cell;

typedef struct fs_sweep_results {
  fs_sweep_cell *cells; /* cell ((((a * R + r) * S + s) * M + m) * P + p), P >= 1 */
  int64_t count;
} fs_sweep_results;

/* The index of a cell in the results. */
int64_t fs_sweep_index(const fs_sweep_grid *grid, int32_t algorithm, int32_t ranks, int32_t size,
                       int32_t model, int32_t platform);

/* Runs every cell. 0 with *out filled, or -1 with err set (the failure of
 * the lowest cell index among those that failed, named "allreduce-ring,
 * 64 ranks, 1KiB, pipelined: ...") and *out empty. */
int fs_sweep_run(const fs_sweep_grid *grid, fs_sweep_results *out, fs_error *err);
void fs_sweep_results_free(fs_sweep_results *results);

#endif
