/* statistics.h: the repetitions of one measurement and when to stop them
 * (MPIBlib's rule: at least min_reps, at most max_reps, and in between
 * until the half-width of the mean's 95% Student-t confidence interval is
 * within `ci` of the mean), their summary, and the CSV's time format. Pure
 * C, without MPI, so that the Check suite tests it. Times in picoseconds. */
#ifndef FENNELPROBE_STATISTICS_H
#define FENNELPROBE_STATISTICS_H

#include <stdint.h>

typedef struct stopping_rule {
  double ci; /* relative half-width, 0.025 */
  int64_t min_reps, max_reps;
} stopping_rule;

typedef struct samples {
  int64_t *values;         /* picoseconds */
  int64_t count, capacity; /* capacity: max_reps, allocated once */
} samples;

typedef struct summary {
  int64_t repetitions;
  int64_t min, median, mean, ci95; /* picoseconds; ci95: the half-width */
} summary;

/* -1 when out of memory. */
int samples_init(samples *s, int64_t capacity);
void samples_free(samples *s);
void samples_clear(samples *s);
/* Ignored once full (the stopping rule has said stop by then). */
void samples_add(samples *s, int64_t value);

/* The 0.975 quantile of Student's t with `freedom` degrees (>= 1). */
double student_t_975(int64_t freedom);
/* The half-width of the mean's 95% confidence interval, ps (0 below 2 samples). */
double confidence_half_width(const samples *s);
/* 1 when the repetitions may stop. */
int stopping_rule_met(const samples *s, const stopping_rule *rule);
/* Sorts the samples in place. */
void samples_summarize(samples *s, summary *out);

/* Picoseconds as nanoseconds with 1 to 3 decimals: "2533.0", "2510.5",
 * "12.345", "-0.001". buffer >= 32 bytes. */
char *format_ps_as_ns(char *buffer, int64_t ps);

#endif
