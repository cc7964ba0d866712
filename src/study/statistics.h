/* statistics.h: the distribution of a study's makespans and finish times,
 * and its reports.
 *
 * Every statistic is in nanoseconds, a double computed from the exact
 * integer picoseconds:
 * - quantiles by Hyndman & Fan's type 7 (numpy's default, R's default):
 *   over the sorted values x[0..n), the p-quantile is x[k] + f (x[k+1] - x[k])
 *   where k + f = p (n - 1), k whole, 0 <= f < 1; p is a whole percent, so
 *   k and f are exact, and the value is the exact rational rounded once
 *   (for times below about 90 s; beyond, within an ulp);
 * - the mean: the exact 128-bit integer sum divided by n (rounded once
 *   while the sum is below 2^53 ps, about 2.5 hours);
 * - stdev: the sample standard deviation (n - 1 in the denominator; 0 for
 *   n = 1), from exact integer sums of squared deviations from floor(mean);
 * so none of them depends on the order of the values. With no values every
 * statistic is NaN (null in JSON). */
#ifndef FS_STATISTICS_H
#define FS_STATISTICS_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/units.h"
#include "study/study.h"

typedef struct fs_summary {
  double min, p25, median, mean, p75, p95, p99, max, stdev; /* ns */
} fs_summary;

/* The statistics of values[0], values[stride], ... (count of them).
 * 0, or -1 when out of memory (a sorted copy is made); *out is then NaN. */
int fs_summarize(const fs_time *values, int64_t count, int64_t stride, fs_summary *out);
/* The type-7 quantile of sorted values, percent in [0, 100], in ns. */
double fs_quantile_sorted(const fs_time *sorted, int64_t count, int percent);

/* The text summary: a header line, then a table (makespan, then the finish
 * time of ranks 0..15 and "..." beyond) in one unit fit for the makespans.
 * 0, or -1 with err set when out of memory. */
int fs_study_report_text(FILE *out, const fs_study_results *r, int32_t ranks, uint64_t base_seed,
                         fs_error *err);
/* The JSON members of a study, without braces or a leading comma, so that
 * the CLI can write its own members (input, model...) first:
 *   "seeds": N, "base_seed": B, "makespan_ns": {"min": .., "p25": .., "median": ..,
 *   "mean": .., "p75": .., "p95": .., "p99": .., "max": .., "stdev": ..},
 *   "finish_ns": [{...} per rank]
 * Numbers are the shortest decimal that reads back as the same double. */
int fs_study_report_json(FILE *out, const fs_study_results *r, int32_t ranks, uint64_t base_seed,
                         fs_error *err);
/* One summary as a JSON object (the form used above). */
void fs_summary_json(FILE *out, const fs_summary *s);

#endif
