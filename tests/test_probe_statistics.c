/* test_probe_statistics.c: fennelprobe's repetition statistics (the
 * stopping rule, the summary, the CSV's time format), which hold no MPI and
 * are compiled in here from tools/probe/statistics.c. Values derived by hand;
 * times in picoseconds. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "../tools/probe/statistics.c"
#include "test_support.h"

static samples filled(const int64_t *values, int count, int64_t capacity) {
  samples s;
  ck_assert_int_eq(samples_init(&s, capacity), 0);
  for (int i = 0; i < count; i++) samples_add(&s, values[i]);
  return s;
}

/* The table's ends (1 and 30 degrees) and the expansion beyond it against
 * the exact quantiles: t(31) = 2.0395, t(60) = 2.0003, t(120) = 1.9799,
 * t(1000) = 1.9623; the expansion is within 1e-4 of each. */
START_TEST(student_t) {
  ck_assert_double_eq(student_t_975(1), 12.706);
  ck_assert_double_eq(student_t_975(0), 12.706); /* clamped to 1 */
  ck_assert_double_eq(student_t_975(29), 2.045);
  ck_assert_double_eq(student_t_975(30), 2.042);
  ck_assert_double_eq_tol(student_t_975(31), 2.0395, 1e-4);
  ck_assert_double_eq_tol(student_t_975(60), 2.0003, 1e-4);
  ck_assert_double_eq_tol(student_t_975(120), 1.9799, 1e-4);
  ck_assert_double_eq_tol(student_t_975(1000), 1.9623, 1e-4);
}
END_TEST

/* {1000, 2000, 3000}: mean 2000, sample deviation sqrt((1e6 + 0 + 1e6) / 2)
 * = 1000, half-width t(2) * 1000 / sqrt(3) = 4.303 * 577.350 = 2484.339.
 * Fewer than 2 samples: 0. */
START_TEST(half_width) {
  const int64_t values[] = {1000, 2000, 3000};
  samples s = filled(values, 3, 10);
  ck_assert_double_eq_tol(confidence_half_width(&s), 4303.0 / sqrt(3.0), 1e-9);
  ck_assert_double_eq_tol(confidence_half_width(&s), 2484.339, 1e-3);
  s.count = 1;
  ck_assert_double_eq(confidence_half_width(&s), 0);
  samples_free(&s);
}
END_TEST

/* min 3, max 5, ci 2.5%: below 3 samples go on; 3 equal samples have a
 * half-width of 0 and stop; {1000, 2000, 3000} has 2484.3 > 0.025 * 2000 =
 * 50 and goes on, and at 5 samples stops whatever the spread. {99, 101}
 * with min 2: half-width t(1) * sqrt(2) / sqrt(2) = 12.706, within 12.71
 * (ci 0.1271 of the mean 100), not within 12.7 (ci 0.127). */
START_TEST(stopping) {
  stopping_rule rule = {.ci = 0.025, .min_reps = 3, .max_reps = 5};
  const int64_t equal[] = {700, 700, 700}, spread[] = {1000, 2000, 3000, 1000, 3000};
  samples s = filled(equal, 2, 5);
  ck_assert_int_eq(stopping_rule_met(&s, &rule), 0);
  samples_add(&s, 700);
  ck_assert_int_eq(stopping_rule_met(&s, &rule), 1);
  samples_free(&s);
  s = filled(spread, 3, 5);
  ck_assert_int_eq(stopping_rule_met(&s, &rule), 0);
  samples_add(&s, spread[3]);
  ck_assert_int_eq(stopping_rule_met(&s, &rule), 0);
  samples_add(&s, spread[4]);
  ck_assert_int_eq(stopping_rule_met(&s, &rule), 1);
  samples_free(&s);
  const int64_t pair[] = {99, 101};
  stopping_rule loose = {.ci = 0.1271, .min_reps = 2, .max_reps = 100};
  s = filled(pair, 2, 5);
  ck_assert_int_eq(stopping_rule_met(&s, &loose), 1);
  loose.ci = 0.127;
  ck_assert_int_eq(stopping_rule_met(&s, &loose), 0);
  samples_free(&s);
}
END_TEST

/* {5000, 1000, 3000, 2000}: sorted 1000 2000 3000 5000, min 1000, median
 * (2000 + 3000) / 2 = 2500, mean 11000 / 4 = 2750; deviations -1750 -750
 * 250 2250, squares sum 8.75e6, s = sqrt(8.75e6 / 3) = 1707.825, half-width
 * t(3) * s / 2 = 3.182 * 853.913 = 2717.150 -> 2717. Odd count {7, 3, 5}:
 * median 5, mean 5. Halves round up: median of {2, 3} is 2.5 -> 3, mean of
 * {1, 2} 1.5 -> 2, of {1, 1, 2} 1.333 -> 1. */
START_TEST(summary_of_samples) {
  const int64_t values[] = {5000, 1000, 3000, 2000};
  samples s = filled(values, 4, 4);
  summary out;
  samples_summarize(&s, &out);
  ck_assert_int_eq(out.repetitions, 4);
  ck_assert_int_eq(out.min, 1000);
  ck_assert_int_eq(out.median, 2500);
  ck_assert_int_eq(out.mean, 2750);
  ck_assert_int_eq(out.ci95, 2717);
  samples_clear(&s);
  const int64_t odd[] = {7, 3, 5};
  for (int i = 0; i < 3; i++) samples_add(&s, odd[i]);
  samples_summarize(&s, &out);
  ck_assert_int_eq(out.median, 5);
  ck_assert_int_eq(out.mean, 5);
  ck_assert_int_eq(out.min, 3);
  samples_clear(&s);
  samples_add(&s, 3);
  samples_add(&s, 2);
  samples_summarize(&s, &out);
  ck_assert_int_eq(out.median, 3);
  samples_clear(&s);
  samples_add(&s, 1);
  samples_add(&s, 2);
  samples_summarize(&s, &out);
  ck_assert_int_eq(out.mean, 2);
  samples_add(&s, 1);
  samples_summarize(&s, &out);
  ck_assert_int_eq(out.mean, 1);
  samples_clear(&s);
  samples_summarize(&s, &out);
  ck_assert_int_eq(out.repetitions, 0);
  ck_assert_int_eq(out.min, 0);
  samples_free(&s);
}
END_TEST

/* A full buffer keeps its first values: the stopping rule stops at
 * max_reps, which is the capacity. */
START_TEST(capacity) {
  const int64_t values[] = {10, 20, 30};
  samples s = filled(values, 3, 2);
  ck_assert_int_eq(s.count, 2);
  ck_assert_int_eq(s.values[1], 20);
  samples_free(&s);
}
END_TEST

/* ps as ns: at least one decimal, at most three, no trailing zeros beyond
 * the first decimal. */
START_TEST(time_format) {
  char buffer[32];
  ck_assert_str_eq(format_ps_as_ns(buffer, 2533000), "2533.0");
  ck_assert_str_eq(format_ps_as_ns(buffer, 2510500), "2510.5");
  ck_assert_str_eq(format_ps_as_ns(buffer, 12340), "12.34");
  ck_assert_str_eq(format_ps_as_ns(buffer, 12345), "12.345");
  ck_assert_str_eq(format_ps_as_ns(buffer, 12305), "12.305");
  ck_assert_str_eq(format_ps_as_ns(buffer, 0), "0.0");
  ck_assert_str_eq(format_ps_as_ns(buffer, 5), "0.005");
  ck_assert_str_eq(format_ps_as_ns(buffer, 999), "0.999");
  ck_assert_str_eq(format_ps_as_ns(buffer, -1), "-0.001");
  ck_assert_str_eq(format_ps_as_ns(buffer, INT64_MAX), "9223372036854775.807");
  ck_assert_str_eq(format_ps_as_ns(buffer, INT64_MIN), "-9223372036854775.808");
}
END_TEST

int main(void) {
  Suite *suite = suite_create("probe_statistics");
  TCase *c = tcase_create("statistics");
  tcase_add_test(c, student_t);
  tcase_add_test(c, half_width);
  tcase_add_test(c, stopping);
  tcase_add_test(c, summary_of_samples);
  tcase_add_test(c, capacity);
  tcase_add_test(c, time_format);
  suite_add_tcase(suite, c);
  return fs_test_run(suite);
}
