/* run_study.h: `fennelsim run --seeds N`, the Monte-Carlo study (run_study.c). */
#ifndef FS_RUN_STUDY_H
#define FS_RUN_STUDY_H

#include <stdint.h>

#include "core/program.h"
#include "models/model_registry.h"
#include "noise/noise.h"

typedef struct fs_study_setup {
  const char *input, *model, *compute, *format;
  int model_default;           /* --model omitted (the text report says so) */
  const fs_parameters *params; /* checked by the caller; each worker copies them */
  const fs_program *program;
  const fs_noise *noise; /* prepared for the program's ranks, or NULL */
  int64_t seeds;
  uint64_t base_seed;
  int threads;
  int64_t shard_index, shard_count; /* 0, 1 without --shard */
  const char *samples, *histogram;  /* or NULL */
  int bandwidth;                    /* --bandwidth: its distribution too (one process) */
  /* with --bandwidth, filled by the study: each seed's achieved bandwidths
   * (GB/s) by seed index, every index written by the thread that runs it */
  double *aggregate_gbps, *mean_gbps;
} fs_study_setup;

/* Runs the study and prints its report; the exit status. Under mpirun,
 * every process calls it and process 0 reports. */
int fs_run_study(const fs_study_setup *setup, int *argc, char ***argv);

#endif
