/* statistics.c: see statistics.h. Sums are exact (128-bit integers over
 * picoseconds) and quantiles take whole-percent positions, so each
 * statistic is (nearly always) one rounding of an exact value. */
#include "study/statistics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RANKS_SHOWN 16
#define BLOCK_CELLS ((int64_t)1 << 15) /* finish times gathered at once (256 KiB) */

typedef __int128 wide;

static int compare_times(const void *a, const void *b) {
  fs_time x = *(const fs_time *)a, y = *(const fs_time *)b;
  return (x > y) - (x < y);
}

double fs_quantile_sorted(const fs_time *x, int64_t n, int percent) {
  if (n <= 0) return NAN;
  wide position = (wide)percent * (n - 1); /* in hundredths */
  int64_t k = (int64_t)(position / 100);
  int fraction = (int)(position % 100);
  if (fraction == 0) return (double)x[k] / 1000.0;
  wide hundredths = (wide)x[k] * 100 + ((wide)x[k + 1] - x[k]) * fraction;
  return (double)hundredths / 100000.0;
}

/* floor(a / b) for b > 0. */
static wide floor_divide(wide a, wide b) {
  wide q = a / b;
  return q * b > a ? q - 1 : q;
}

/* Sample stdev from deviations d = x - q around q = floor(mean): the sum of
 * d is the remainder r (0 <= r < n), so (n - 1) var = sum d^2 - r^2 / n. */
static double sample_stdev(const fs_time *values, int64_t n, int64_t stride, wide sum) {
  if (n < 2) return 0;
  wide q = floor_divide(sum, n), r = sum - q * n;
  unsigned __int128 squares = 0;
  long double spill = 0; /* past 2^128 ps^2 (ranges of hours over many seeds) */
  for (int64_t i = 0; i < n; i++) {
    wide d = (wide)values[i * stride] - q;
    unsigned __int128 square = (unsigned __int128)(d < 0 ? -d : d);
    square *= square;
    if (squares > ~(unsigned __int128)0 - square) {
      spill += (long double)squares;
      squares = 0;
    }
    squares += square;
  }
  double total = (double)(spill + (long double)squares);
  double variance = (total - (double)r * (double)r / (double)n) / (double)(n - 1);
  return sqrt(variance > 0 ? variance : 0) / 1000.0;
}

static void set_nan(fs_summary *s) {
  s->min = s->p25 = s->median = s->mean = s->p75 = s->p95 = s->p99 = s->max = s->stdev = NAN;
}

int fs_summarize(const fs_time *values, int64_t count, int64_t stride, fs_summary *out) {
  set_nan(out);
  if (count <= 0) return 0;
  fs_time *sorted = malloc((size_t)count * sizeof *sorted);
  if (!sorted) return -1;
  wide sum = 0;
  for (int64_t i = 0; i < count; i++) {
    sorted[i] = values[i * stride];
    sum += sorted[i];
  }
  qsort(sorted, (size_t)count, sizeof *sorted, compare_times);
  out->min = (double)sorted[0] / 1000.0;
  out->max = (double)sorted[count - 1] / 1000.0;
  out->p25 = fs_quantile_sorted(sorted, count, 25);
  out->median = fs_quantile_sorted(sorted, count, 50);
  out->p75 = fs_quantile_sorted(sorted, count, 75);
  out->p95 = fs_quantile_sorted(sorted, count, 95);
  out->p99 = fs_quantile_sorted(sorted, count, 99);
  out->mean = (double)sum / ((double)count * 1000.0);
  out->stdev = sample_stdev(values, count, stride, sum);
  free(sorted);
  return 0;
}

/* --- text --- */

typedef struct unit {
  const char *name;
  double ns;
} unit;

static unit unit_for(double ns) {
  if (ns >= 1e9) return (unit){"s", 1e9};
  if (ns >= 1e6) return (unit){"ms", 1e6};
  if (ns >= 1e3) return (unit){"us", 1e3};
  return (unit){"ns", 1};
}

static void text_row(FILE *out, const char *label, const fs_summary *s, unit u) {
  const double v[] = {s->min, s->p25, s->median, s->mean, s->p75, s->p95, s->p99, s->max, s->stdev};
  fprintf(out, "%-10s", label);
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) fprintf(out, " %10.6g", v[i] / u.ns);
  fputc('\n', out);
}

static int out_of_memory(fs_error *err, int64_t count) {
  return fs_error_set(err, "out of memory for the statistics of %lld seeds", (long long)count);
}

int fs_study_report_text(FILE *out, const fs_study_results *r, int32_t ranks, uint64_t base_seed,
                         fs_error *err) {
  fs_summary s;
  if (fs_summarize(r->makespan, r->count, 1, &s)) return out_of_memory(err, r->count);
  unit u = unit_for(s.max);
  fprintf(out, "seeds      %lld (base seed %llu), times in %s\n", (long long)r->count,
          (unsigned long long)base_seed, u.name);
  fprintf(out, "%-10s", "");
  static const char *const names[] = {"min", "p25", "median", "mean", "p75",
                                      "p95", "p99", "max",    "stdev"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) fprintf(out, " %10s", names[i]);
  fputc('\n', out);
  text_row(out, "makespan", &s, u);
  for (int32_t rank = 0; rank < ranks && rank < RANKS_SHOWN; rank++) {
    char label[24];
    snprintf(label, sizeof label, "rank %d", rank);
    if (fs_summarize(r->finish + rank, r->count, ranks, &s)) return out_of_memory(err, r->count);
    text_row(out, label, &s, u);
  }
  if (ranks > RANKS_SHOWN)
    fprintf(out, "...        (ranks %d..%d in --format json)\n", RANKS_SHOWN, ranks - 1);
  return 0;
}

/* --- JSON --- */

/* The shortest of %.15g, %.16g, %.17g that reads back exactly; null for NaN. */
static void json_number(FILE *out, double value) {
  if (isnan(value) || isinf(value)) {
    fputs("null", out);
    return;
  }
  char text[40];
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(text, sizeof text, "%.*g", digits, value);
    if (strtod(text, NULL) == value) break;
  }
  fputs(text, out);
}

void fs_summary_json(FILE *out, const fs_summary *s) {
  const double v[] = {s->min, s->p25, s->median, s->mean, s->p75, s->p95, s->p99, s->max, s->stdev};
  static const char *const names[] = {"min", "p25", "median", "mean", "p75",
                                      "p95", "p99", "max",    "stdev"};
  fputc('{', out);
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    fprintf(out, "%s\"%s\": ", i ? ", " : "", names[i]);
    json_number(out, v[i]);
  }
  fputc('}', out);
}

/* The finish times of ranks first..first+width-1 over the seeds, one rank
 * after another (column[k * count + j]: seed j of rank first + k): read
 * row by row, so a rank's column is not gathered at a stride of the whole
 * row (8 bytes x ranks, a cache and TLB miss per seed at 2^20 ranks). */
static void gather_columns(const fs_study_results *r, int32_t ranks, int32_t first, int32_t width,
                           fs_time *column) {
  int64_t n = r->count;
  for (int64_t j = 0; j < n; j++) {
    const fs_time *row = r->finish + j * ranks + first;
    for (int32_t k = 0; k < width; k++) column[k * n + j] = row[k];
  }
}

int fs_study_report_json(FILE *out, const fs_study_results *r, int32_t ranks, uint64_t base_seed,
                         fs_error *err) {
  fs_summary s;
  if (fs_summarize(r->makespan, r->count, 1, &s)) return out_of_memory(err, r->count);
  fprintf(out, "\"seeds\": %lld, \"base_seed\": %llu, \"makespan_ns\": ", (long long)r->count,
          (unsigned long long)base_seed);
  fs_summary_json(out, &s);
  fputs(", \"finish_ns\": [", out);
  int64_t n = r->count, block = n > 0 && n < BLOCK_CELLS ? BLOCK_CELLS / n : 1;
  fs_time *column = malloc((size_t)(block * (n > 0 ? n : 1)) * sizeof *column);
  if (!column) return out_of_memory(err, n);
  for (int64_t first = 0; first < ranks; first += block) {
    int32_t width = (int32_t)(ranks - first < block ? ranks - first : block);
    gather_columns(r, ranks, (int32_t)first, width, column);
    for (int32_t k = 0; k < width; k++) {
      if (fs_summarize(column + k * n, n, 1, &s)) {
        free(column);
        return out_of_memory(err, n);
      }
      if (first + k) fputs(", ", out);
      fs_summary_json(out, &s);
    }
  }
  free(column);
  fputc(']', out);
  return 0;
}
