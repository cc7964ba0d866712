/* statistics.c: see statistics.h. The quantiles of Student's t are a table
 * up to 30 degrees of freedom (the default minimum is 30 repetitions) and
 * the Cornish-Fisher expansion beyond, which is within 1e-4 there. */
#include "statistics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int samples_init(samples *s, int64_t capacity) {
  s->count = 0;
  s->capacity = capacity;
  s->values = malloc((size_t)(capacity > 0 ? capacity : 1) * sizeof *s->values);
  return s->values ? 0 : -1;
}

void samples_free(samples *s) {
  free(s->values);
  s->values = NULL;
  s->count = s->capacity = 0;
}

void samples_clear(samples *s) { s->count = 0; }

void samples_add(samples *s, int64_t value) {
  if (s->count < s->capacity) s->values[s->count++] = value;
}

static const double t_table[31] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                   2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                   2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                   2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

double student_t_975(int64_t freedom) {
  if (freedom < 1) freedom = 1;
  if (freedom <= 30) return t_table[freedom];
  const double z = 1.959963985, d = (double)freedom;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * d * d * d);
}

static double mean_of(const samples *s) {
  double sum = 0;
  for (int64_t i = 0; i < s->count; i++) sum += (double)s->values[i];
  return s->count ? sum / (double)s->count : 0;
}

double confidence_half_width(const samples *s) {
  if (s->count < 2) return 0;
  double mean = mean_of(s), squares = 0;
  for (int64_t i = 0; i < s->count; i++) {
    double d = (double)s->values[i] - mean;
    squares += d * d;
  }
  double deviation = sqrt(squares / (double)(s->count - 1));
  return student_t_975(s->count - 1) * deviation / sqrt((double)s->count);
}

int stopping_rule_met(const samples *s, const stopping_rule *rule) {
  if (s->count >= rule->max_reps) return 1;
  if (s->count < rule->min_reps) return 0;
  return confidence_half_width(s) <= rule->ci * fabs(mean_of(s));
}

static int compare_int64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* (a + b) / 2 rounded half up, without overflow */
static int64_t midpoint(int64_t a, int64_t b) { return a + (b - a + 1) / 2; }

void samples_summarize(samples *s, summary *out) {
  *out = (summary){.repetitions = s->count};
  if (s->count == 0) return;
  qsort(s->values, (size_t)s->count, sizeof *s->values, compare_int64);
  int64_t n = s->count, sum = 0;
  for (int64_t i = 0; i < n; i++) sum += s->values[i];
  out->min = s->values[0];
  out->median = n % 2 ? s->values[n / 2] : midpoint(s->values[n / 2 - 1], s->values[n / 2]);
  /* rounded to the nearest picosecond, halves up */
  out->mean = sum >= 0 ? (sum + n / 2) / n : -((-sum + n / 2) / n);
  out->ci95 = llround(confidence_half_width(s));
}

char *format_ps_as_ns(char *buffer, int64_t ps) {
  uint64_t magnitude = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;
  unsigned fraction = (unsigned)(magnitude % 1000);
  int decimals = fraction % 100 == 0 ? 1 : fraction % 10 == 0 ? 2 : 3;
  unsigned shown = decimals == 1 ? fraction / 100 : decimals == 2 ? fraction / 10 : fraction;
  snprintf(buffer, 32, "%s%llu.%0*u", ps < 0 ? "-" : "", (unsigned long long)(magnitude / 1000),
           decimals, shown);
  return buffer;
}
