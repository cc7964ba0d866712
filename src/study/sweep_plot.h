/* sweep_plot.h: the figure of a sweep as SVG: makespan against size per
 * algorithm, one panel per rank count (and per model and platform when the
 * grid has several), log-log axes with ticks at powers of two (sizes as
 * 8B, 1KiB, 1MiB; times as ns, us, ms, s), one colour and marker per
 * algorithm with a legend, the winner of each size marked, skipped cells
 * left out. With seeds > 1 each point is the chosen statistic and a bar
 * spans p25..p75. Deterministic: the same results give the same bytes. */
#ifndef FS_SWEEP_PLOT_H
#define FS_SWEEP_PLOT_H

#include <stdio.h>

#include "core/error.h"
#include "study/sweep.h"

/* Writes the SVG to out, ranking by statistic (FS_STAT_MEDIAN, MEAN, P99,
 * ...; seeds 1: the makespan). 0, or -1 with err set (nothing to plot:
 * every cell skipped; a write error). */
int fs_sweep_plot_write(FILE *out, const fs_sweep_grid *grid, const fs_sweep_results *results,
                        int statistic, fs_error *err);

#endif
