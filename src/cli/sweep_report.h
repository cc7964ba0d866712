/* sweep_report.h: the report of `fennelsim sweep`: a row per cell in the
 * order platform, model, rank count, size, algorithm (the grid's orders),
 * as a text table, CSV or JSON, the winner of each (collective, ranks,
 * size, model, platform) marked: the lowest makespan (one run per cell) or the lowest
 * chosen statistic (seeds), every tied cell a winner. Everything but the
 * wall-clock seconds is the same on any thread count. */
#ifndef FS_SWEEP_REPORT_H
#define FS_SWEEP_REPORT_H

#include "io/atomic_file.h"
#include "study/best.h"
#include "study/sweep.h"

typedef struct fs_sweep_report {
  const char *format; /* "text", "csv", "json" */
  fs_best_rank_by rank_by;
  int wall; /* write the wall-clock seconds */
} fs_sweep_report;

/* Writes the report to out (not committed): 0, or -1 when out of memory.
 * A failed write is kept by out and reported by fs_output_commit. */
int fs_sweep_report_write(fs_output *out, const fs_sweep_grid *g, const fs_sweep_results *r,
                          const fs_sweep_report *report);

#endif
