/* histogram_svg.h: the makespan distribution of a study as a standalone SVG
 * histogram: bars with their counts, an x axis in a time unit fit for the
 * makespans, a y axis in seeds, the median, p95 and p99 as marked lines, a
 * title.
 *
 * Bins: aim for ceil(sqrt(n)) bins, at most 40; the width is the smallest
 * 1, 2 or 5 x 10^k ps at least (max - min) / aim (ceil), or |min| / 100 when
 * all values are equal (and at least 1 ps); the first bin starts
 * at min rounded down to a multiple of the width, and there are
 * (max - start) / width + 1 of them, each [start + i w, start + (i+1) w).
 * A bar (a <rect class="bar">) is drawn for each non-empty bin. */
#ifndef FS_HISTOGRAM_SVG_H
#define FS_HISTOGRAM_SVG_H

#include <stdint.h>

#include "core/error.h"
#include "io/atomic_file.h"
#include "study/study.h"

typedef struct fs_histogram_bins {
  fs_time start, width;
  int64_t count; /* bins */
} fs_histogram_bins;

/* The bins for values within [min, max] (n of them), as described above. */
fs_histogram_bins fs_histogram_plan(fs_time min, fs_time max, int64_t n);

/* Writes the makespan histogram into out (opened before the study, so that a
 * bad path fails before any work), committed on success and aborted on
 * failure: 0, or -1 with err set. */
int fs_histogram_svg(const fs_study_results *r, fs_output *out, fs_error *err);

#endif
