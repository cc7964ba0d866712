/* test_study.c: the Monte-Carlo driver (results independent of the thread
 * count, shards, streamed samples CSV, errors, progress bar), the
 * statistics (type-7 quantiles, exact mean, sample stdev, by hand) and the
 * SVG histogram; and a study over the real engine, where every seed gives
 * the deterministic makespan. */
#include <check.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model_support.h"
#include "study/histogram_svg.h"
#include "study/statistics.h"
#include "study/study.h"
#include "test_support.h"

/* --- a fake worker: makespan = seed * 1001 ps, finish[r] = seed * 10 + r --- */

typedef struct fake {
  int32_t ranks;
  uint64_t fail_seed;  /* 0: none */
  int fail_new;        /* worker_new fails */
  int sleep_us;        /* per seed, so that threads interleave */
  const char *watch;   /* samples path the worker checks while running */
  uint64_t watch_seed; /* at this seed, the earlier rows must be in the file */
  int watched;         /* set when they were */
  atomic_int workers;
} fake;

struct fs_study_worker {
  fake *f;
};

static fs_study_worker *fake_new(void *arg, fs_error *err) {
  fake *f = arg;
  if (f->fail_new) {
    fs_error_set(err, "no worker today");
    return NULL;
  }
  fs_study_worker *w = malloc(sizeof *w);
  w->f = f;
  atomic_fetch_add(&f->workers, 1);
  return w;
}

static void sleep_microseconds(long us) {
  struct timespec t = {us / 1000000, us % 1000000 * 1000};
  while (nanosleep(&t, &t) != 0) continue;
}

static int lines_in(const char *path) {
  char *text = fs_test_read_file(path, NULL);
  int n = 0;
  for (char *c = text; c && *c; c++) n += *c == '\n';
  free(text);
  return n;
}

/* Waits (up to 5 s) until the rows of every earlier seed are in the file. */
static void watch_samples(fake *f, uint64_t seed) {
  for (int i = 0; i < 500; i++) {
    if (lines_in(f->watch) == 1 + (int)(seed - 1)) {
      f->watched = 1;
      return;
    }
    sleep_microseconds(10000);
  }
}

static int fake_run(fs_study_worker *w, uint64_t seed, fs_time *makespan, fs_time *finish,
                    fs_error *err) {
  fake *f = w->f;
  if (f->sleep_us && seed % 3 == 0) sleep_microseconds(f->sleep_us);
  if (f->watch && seed == f->watch_seed) watch_samples(f, seed);
  if (seed == f->fail_seed) return fs_error_set(err, "boom at %llu", (unsigned long long)seed);
  *makespan = (fs_time)seed * 1001;
  for (int32_t r = 0; r < f->ranks; r++) finish[r] = (fs_time)seed * 10 + r;
  return 0;
}

static void fake_free(fs_study_worker *w) { free(w); }

static fs_study_callbacks fake_callbacks(fake *f) {
  return (fs_study_callbacks){fake_new, fake_run, fake_free, f};
}

static fs_study_options options(int64_t seeds, int threads, int32_t ranks) {
  return (fs_study_options){.seeds = seeds,
                            .base_seed = 1,
                            .threads = threads,
                            .ranks = ranks,
                            .first = 0,
                            .step = 1};
}

START_TEST(count_case) {
  ck_assert_int_eq(fs_study_count(10, 0, 1), 10);
  ck_assert_int_eq(fs_study_count(10, 3, 4), 2); /* 3, 7 */
  ck_assert_int_eq(fs_study_count(10, 9, 4), 1);
  ck_assert_int_eq(fs_study_count(10, 10, 1), 0);
  ck_assert_int_eq(fs_study_count(0, 0, 1), 0);
  ck_assert_int_eq(fs_study_count(1000, 2, 3), 333); /* 2, 5, ..., 998 */
}
END_TEST

/* Any thread count, any shard: the same arrays, byte for byte. */
START_TEST(thread_count_does_not_matter) {
  static const int threads[] = {1, 2, 3, 8};
  static const int64_t shard[][2] = {{0, 1}, {1, 3}, {2, 3}, {5, 7}};
  for (size_t k = 0; k < sizeof shard / sizeof shard[0]; k++) {
    fs_study_results reference = {0};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
      fake f = {.ranks = 3, .sleep_us = 200};
      fs_study_callbacks c = fake_callbacks(&f);
      fs_study_options o = options(101, threads[t], 3);
      o.base_seed = 1000;
      o.first = shard[k][0];
      o.step = shard[k][1];
      fs_study_results r;
      fs_error err = {{0}};
      ck_assert_msg(fs_study_run(&o, &c, &r, &err) == 0, "%s", err.message);
      int64_t count = fs_study_count(101, shard[k][0], shard[k][1]);
      ck_assert_int_eq(r.count, count);
      ck_assert_int_le(atomic_load(&f.workers), threads[t]);
      for (int64_t j = 0; j < count; j++) {
        uint64_t seed = 1000 + (uint64_t)(shard[k][0] + j * shard[k][1]);
        ck_assert_uint_eq(r.seed[j], seed);
        ck_assert_int_eq(r.makespan[j], (fs_time)seed * 1001);
        for (int32_t rank = 0; rank < 3; rank++)
          ck_assert_int_eq(r.finish[j * 3 + rank], (fs_time)seed * 10 + rank);
      }
      if (t == 0) {
        reference = r;
        continue;
      }
      ck_assert(memcmp(r.seed, reference.seed, (size_t)count * sizeof *r.seed) == 0);
      ck_assert(memcmp(r.makespan, reference.makespan, (size_t)count * sizeof *r.makespan) == 0);
      ck_assert(memcmp(r.finish, reference.finish, (size_t)count * 3 * sizeof *r.finish) == 0);
      fs_study_results_free(&r);
      ck_assert_ptr_null(r.seed);
    }
    fs_study_results_free(&reference);
  }
}
END_TEST

START_TEST(all_cores_and_no_seeds) {
  fake f = {.ranks = 2};
  fs_study_callbacks c = fake_callbacks(&f);
  fs_study_options o = options(40, 0, 2); /* sysconf */
  fs_study_results r;
  fs_error err = {{0}};
  ck_assert_msg(fs_study_run(&o, &c, &r, &err) == 0, "%s", err.message);
  ck_assert_int_eq(r.count, 40);
  ck_assert_int_eq(r.makespan[39], 40 * 1001);
  fs_study_results_free(&r);
  /* nothing to run: no worker is built; a shard past the end is empty */
  o.seeds = 0;
  ck_assert_int_eq(fs_study_run(&o, &c, &r, &err), 0);
  ck_assert_int_eq(r.count, 0);
  fs_study_results_free(&r);
  o.seeds = 3;
  o.first = 5;
  o.step = 8;
  ck_assert_int_eq(fs_study_run(&o, &c, &r, &err), 0);
  ck_assert_int_eq(r.count, 0);
  fs_study_results_free(&r);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  ck_assert_int_eq(atomic_load(&f.workers), cores < 40 ? cores : 40);
}
END_TEST

START_TEST(bad_options) {
  fake f = {.ranks = 1};
  fs_study_callbacks c = fake_callbacks(&f);
  fs_study_results r;
  fs_error err = {{0}};
  fs_study_options o = options(-1, 1, 1);
  ck_assert_int_eq(fs_study_run(&o, &c, &r, &err), -1);
  ck_assert_str_eq(err.message, "seeds: expected a count >= 0, not -1");
  o = options(5, 1, 1);
  o.step = 0;
  ck_assert_int_eq(fs_study_run(&o, &c, &r, &err), -1);
  ck_assert_str_eq(err.message, "seed shard: first 0, step 0: expected first >= 0, step >= 1");
  o = options(5, 1, 1);
  o.samples = "out.csv.gz";
  ck_assert_int_eq(fs_study_run(&o, &c, &r, &err), -1);
  ck_assert_str_eq(err.message, "out.csv.gz: samples are written uncompressed (an interrupted "
                                "study keeps its rows): name a .csv file");
  o.samples = "/nonexistent-directory/samples.csv";
  ck_assert_int_eq(fs_study_run(&o, &c, &r, &err), -1);
  ck_assert_str_eq(err.message,
                   "/nonexistent-directory/samples.csv: cannot create: No such file or directory");
  ck_assert_int_eq(r.count, 0);
  ck_assert_int_eq(atomic_load(&f.workers), 0);
}
END_TEST

START_TEST(samples_csv_exact) {
  char *path = fs_test_temp_path(".csv");
  fake f = {.ranks = 2};
  fs_study_callbacks c = fake_callbacks(&f);
  fs_study_options o = options(3, 2, 2);
  o.base_seed = 10;
  o.samples = path;
  fs_study_results r;
  fs_error err = {{0}};
  ck_assert_msg(fs_study_run(&o, &c, &r, &err) == 0, "%s", err.message);
  char *text = fs_test_read_file(path, NULL);
  ck_assert_str_eq(text, "seed,makespan_ns,finish_ns_0,finish_ns_1\n"
                         "10,10.01,0.1,0.101\n"
                         "11,11.011,0.11,0.111\n"
                         "12,12.012,0.12,0.121\n");
  free(text);
  fs_study_results_free(&r);
  /* a shard's rows are its own seeds, in order */
  o.seeds = 7;
  o.first = 1;
  o.step = 3;
  o.threads = 3;
  ck_assert_msg(fs_study_run(&o, &c, &r, &err) == 0, "%s", err.message);
  text = fs_test_read_file(path, NULL);
  ck_assert_str_eq(text, "seed,makespan_ns,finish_ns_0,finish_ns_1\n"
                         "11,11.011,0.11,0.111\n"
                         "14,14.014,0.14,0.141\n");
  free(text);
  fs_study_results_free(&r);
  free(path);
}
END_TEST

/* The row formatter is fs_format_ns, without printf. */
START_TEST(row_format) {
  static const fs_time values[] = {0,       1,  10,    999,       1000,      1001, 1234567,
                                   5500000, -1, -1500, INT64_MAX, INT64_MIN, 120,  100100};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    char row[fs_study_row_size(1)], expected[96], a[32], b[32];
    fs_time finish[1] = {values[i]};
    size_t n = fs_study_row(row, UINT64_MAX, values[i], finish, 1);
    snprintf(expected, sizeof expected, "18446744073709551615,%s,%s\n", fs_format_ns(a, values[i]),
             fs_format_ns(b, values[i]));
    ck_assert_str_eq(row, expected);
    ck_assert_uint_eq(n, strlen(expected));
    ck_assert_uint_le(n + 1, fs_study_row_size(1));
  }
  char header[fs_study_row_size(12)];
  fs_study_header(header, 12);
  ck_assert_str_eq(header, "seed,makespan_ns,finish_ns_0,finish_ns_1,finish_ns_2,finish_ns_3,"
                           "finish_ns_4,finish_ns_5,finish_ns_6,finish_ns_7,finish_ns_8,"
                           "finish_ns_9,finish_ns_10,finish_ns_11\n");
}
END_TEST

/* Rows reach the file while the study runs: at seed 20, rows 1..19 are there. */
START_TEST(samples_streamed) {
  char *path = fs_test_temp_path(".csv");
  fake f = {.ranks = 1, .watch = path, .watch_seed = 20};
  fs_study_callbacks c = fake_callbacks(&f);
  fs_study_options o = options(40, 1, 1);
  o.samples = path;
  fs_study_results r;
  fs_error err = {{0}};
  ck_assert_msg(fs_study_run(&o, &c, &r, &err) == 0, "%s", err.message);
  ck_assert_int_eq(f.watched, 1);
  ck_assert_int_eq(lines_in(path), 41);
  fs_study_results_free(&r);
  free(path);
}
END_TEST

/* A failing seed stops the study; its message names the seed; the samples
 * keep exactly the rows before it. */
START_TEST(worker_error) {
  static const int threads[] = {1, 2, 3, 8};
  for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
    char *path = fs_test_temp_path(".csv");
    fake f = {.ranks = 1, .fail_seed = 17, .sleep_us = 100};
    fs_study_callbacks c = fake_callbacks(&f);
    fs_study_options o = options(200, threads[t], 1);
    o.samples = path;
    fs_study_results r;
    fs_error err = {{0}};
    ck_assert_int_eq(fs_study_run(&o, &c, &r, &err), -1);
    ck_assert_str_eq(err.message, "seed 17: boom at 17");
    ck_assert_int_eq(r.count, 0);
    ck_assert_ptr_null(r.makespan);
    char *text = fs_test_read_file(path, NULL), expected[2048] = "seed,makespan_ns,finish_ns_0\n";
    for (int s = 1; s < 17; s++) {
      char a[32], b[32];
      size_t n = strlen(expected);
      snprintf(expected + n, sizeof expected - n, "%d,%s,%s\n", s, fs_format_ns(a, s * 1001),
               fs_format_ns(b, s * 10));
    }
    ck_assert_str_eq(text, expected);
    ck_assert_ptr_nonnull(strstr(text, "\n10,10.01,0.1\n"));
    ck_assert_str_eq(text + strlen(text) - 15, "16,16.016,0.16\n");
    free(text);
    free(path);
  }
  fake f = {.ranks = 1, .fail_new = 1};
  fs_study_callbacks c = fake_callbacks(&f);
  fs_study_options o = options(10, 3, 1);
  fs_study_results r;
  fs_error err = {{0}};
  ck_assert_int_eq(fs_study_run(&o, &c, &r, &err), -1);
  ck_assert_str_eq(err.message, "no worker today");
}
END_TEST

static char *capture_stderr(void (*body)(void)) {
  char *path = fs_test_temp_path(".err");
  fflush(stderr);
  int saved = dup(2);
  FILE *file = fopen(path, "w");
  dup2(fileno(file), 2);
  body();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  fclose(file);
  char *text = fs_test_read_file(path, NULL);
  free(path);
  return text;
}

static void slow_study(void) {
  fake f = {.ranks = 1, .sleep_us = 15000}; /* a third of 60 seeds: 0.3 s */
  fs_study_callbacks c = fake_callbacks(&f);
  fs_study_options o = options(60, 1, 1);
  o.progress = 1;
  fs_study_results r;
  fs_error err = {{0}};
  ck_assert_int_eq(fs_study_run(&o, &c, &r, &err), 0);
  fs_study_results_free(&r);
}

START_TEST(progress_bar) {
  char *text = capture_stderr(slow_study);
  ck_assert_ptr_nonnull(strstr(text, "/60 seeds ["));
  ck_assert_ptr_nonnull(strstr(text, " seeds/s  ETA "));
  size_t n = strlen(text);
  ck_assert_uint_ge(n, 5);
  ck_assert_str_eq(text + n - 4, "\r\033[K"); /* cleared at the end */
  free(text);
}
END_TEST

/* --- statistics, by hand --- */

static void summarize(const fs_time *values, int64_t count, int64_t stride, fs_summary *s) {
  ck_assert_int_eq(fs_summarize(values, count, stride, s), 0);
}

START_TEST(summary_one) {
  fs_time v[] = {5000};
  fs_summary s;
  summarize(v, 1, 1, &s);
  ck_assert(s.min == 5 && s.p25 == 5 && s.median == 5 && s.mean == 5 && s.p75 == 5 && s.p95 == 5 &&
            s.p99 == 5 && s.max == 5 && s.stdev == 0);
}
END_TEST

START_TEST(summary_two) {
  fs_time v[] = {4000, 1000};
  fs_summary s;
  summarize(v, 2, 1, &s);
  ck_assert(s.min == 1.0);
  ck_assert(s.p25 == 1.75); /* 1 + 0.25 (4 - 1) */
  ck_assert(s.median == 2.5);
  ck_assert(s.mean == 2.5);
  ck_assert(s.p75 == 3.25);
  ck_assert(s.p95 == 3.85); /* 1 + 0.95 * 3 */
  ck_assert(s.p99 == 3.97);
  ck_assert(s.max == 4.0);
  ck_assert_double_eq_tol(s.stdev, sqrt(4.5), 1e-15); /* deviations 1.5, 1.5 over n-1 = 1 */
}
END_TEST

START_TEST(summary_four_with_stride) {
  /* 4, 1, 3, 2 ns at even places; odd places are another rank's */
  fs_time v[] = {4000, -7, 1000, -7, 3000, -7, 2000, -7};
  fs_summary s;
  summarize(v, 4, 2, &s);
  ck_assert(s.min == 1.0);
  ck_assert(s.p25 == 1.75);   /* position 0.75 */
  ck_assert(s.median == 2.5); /* position 1.5 */
  ck_assert(s.p75 == 3.25);   /* position 2.25 */
  ck_assert(s.p95 == 3.85);   /* position 2.85 */
  ck_assert(s.p99 == 3.97);   /* position 2.97 */
  ck_assert(s.max == 4.0);
  ck_assert(s.mean == 2.5);
  ck_assert_double_eq_tol(s.stdev, sqrt(5.0 / 3.0), 1e-15); /* (2.25+0.25+0.25+2.25)/3 */
  summarize(v + 1, 4, 2, &s);
  ck_assert(s.min == -0.007 && s.max == -0.007 && s.mean == -0.007 && s.stdev == 0);
}
END_TEST

START_TEST(summary_picoseconds) {
  fs_time v[] = {1000001, 3, 1, 4, 2};
  fs_summary s;
  summarize(v, 5, 1, &s);
  ck_assert(s.min == 0.001);
  ck_assert(s.p25 == 0.002); /* position 1 */
  ck_assert(s.median == 0.003);
  ck_assert(s.p75 == 0.004);     /* position 3 */
  ck_assert(s.p95 == 800.0016);  /* 4 + 0.8 * 999997 = 800001.6 ps */
  ck_assert(s.p99 == 960.00112); /* 4 + 0.96 * 999997 = 960001.12 ps */
  ck_assert(s.max == 1000.001);
  ck_assert(s.mean == 200.0022); /* 1000011 / 5 ps */
  /* by two passes in long double: sum (x - mean)^2 / 4 */
  long double mean = 200002.2L, squares = 0;
  for (int i = 0; i < 5; i++) squares += ((long double)v[i] - mean) * ((long double)v[i] - mean);
  ck_assert_double_eq_tol(s.stdev, (double)(sqrtl(squares / 4) / 1000), 1e-12);
}
END_TEST

/* Sums that do not fit 64 bits, in any order, give the same exact mean. */
START_TEST(summary_large) {
  fs_time v[] = {3000000000000000000, 3000000000000000000, 3000000000000000000,
                 3000000000000000000};
  fs_summary s;
  summarize(v, 4, 1, &s);
  ck_assert(s.mean == 3e15 && s.median == 3e15 && s.stdev == 0);
  fs_time w[] = {INT64_MAX, INT64_MAX - 2, INT64_MAX - 1};
  summarize(w, 3, 1, &s);
  ck_assert(s.mean == (double)(INT64_MAX - 1) / 1000.0);
  ck_assert(s.stdev == 0.001); /* deviations -1, 0, 1 ps: sqrt(2 / 2) */
}
END_TEST

START_TEST(summary_empty) {
  fs_summary s;
  summarize(NULL, 0, 1, &s);
  ck_assert(isnan(s.min) && isnan(s.median) && isnan(s.mean) && isnan(s.stdev));
}
END_TEST

/* Like numpy.percentile(x, p) (linear): checked over 1..n for several n. */
START_TEST(quantile_type7) {
  fs_time x[11];
  for (int i = 0; i < 11; i++) x[i] = (i + 1) * 1000; /* 1..11 ns */
  ck_assert(fs_quantile_sorted(x, 11, 0) == 1);
  ck_assert(fs_quantile_sorted(x, 11, 10) == 2);
  ck_assert(fs_quantile_sorted(x, 11, 25) == 3.5);
  ck_assert(fs_quantile_sorted(x, 11, 95) == 10.5);
  ck_assert(fs_quantile_sorted(x, 11, 99) == 10.9);
  ck_assert(fs_quantile_sorted(x, 11, 100) == 11);
  ck_assert(fs_quantile_sorted(x, 3, 25) == 1.5);
  ck_assert(fs_quantile_sorted(x, 3, 99) == 2.98);
  ck_assert(isnan(fs_quantile_sorted(x, 0, 50)));
}
END_TEST

static fs_study_results fixed_results(int64_t count, int32_t ranks) {
  fs_study_results r = {.count = count};
  r.seed = malloc((size_t)count * sizeof *r.seed);
  r.makespan = malloc((size_t)count * sizeof *r.makespan);
  r.finish = malloc((size_t)(count * ranks) * sizeof *r.finish);
  for (int64_t j = 0; j < count; j++) {
    r.seed[j] = (uint64_t)j + 1;
    r.makespan[j] = (j + 1) * 1000;
    for (int32_t k = 0; k < ranks; k++) r.finish[j * ranks + k] = (j + 1) * 1000 - k;
  }
  return r;
}

static char *report_text(const fs_study_results *r, int32_t ranks, int json) {
  char *buffer = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&buffer, &size);
  fs_error err = {{0}};
  int status = json ? fs_study_report_json(out, r, ranks, 1, &err)
                    : fs_study_report_text(out, r, ranks, 1, &err);
  ck_assert_int_eq(status, 0);
  fclose(out);
  return buffer;
}

START_TEST(report_json) {
  fs_study_results r = fixed_results(2, 2); /* makespans 1, 2 ns; finish 1, 2 and 0.999, 1.999 */
  char *text = report_text(&r, 2, 1);
  ck_assert_str_eq(text,
                   "\"seeds\": 2, \"base_seed\": 1, \"makespan_ns\": {\"min\": 1, \"p25\": 1.25, "
                   "\"median\": 1.5, \"mean\": 1.5, \"p75\": 1.75, \"p95\": 1.95, \"p99\": 1.99, "
                   "\"max\": 2, \"stdev\": 0.7071067811865476}, \"finish_ns\": [{\"min\": 1, "
                   "\"p25\": 1.25, \"median\": 1.5, \"mean\": 1.5, \"p75\": 1.75, \"p95\": 1.95, "
                   "\"p99\": 1.99, \"max\": 2, \"stdev\": 0.7071067811865476}, {\"min\": 0.999, "
                   "\"p25\": 1.249, \"median\": 1.499, \"mean\": 1.499, \"p75\": 1.749, \"p95\": "
                   "1.949, \"p99\": 1.989, \"max\": 1.999, \"stdev\": 0.7071067811865476}]");
  free(text);
  fs_study_results_free(&r);
  fs_study_results empty = {0};
  text = report_text(&empty, 1, 1);
  ck_assert_ptr_nonnull(
      strstr(text, "\"seeds\": 0, \"base_seed\": 1, \"makespan_ns\": {\"min\": null"));
  free(text);
}
END_TEST

/* The JSON report gathers the finish times a block of ranks at a time:
 * its text equals, byte for byte, each rank's summary taken at the row's
 * stride (the report before the blocks), for seed counts that cut the
 * ranks into one, several and uneven blocks (2^15 finish times a block). */
START_TEST(report_json_blocks) {
  static const int64_t counts[] = {1, 3, 7, 100, 40000};
  static const int32_t ranks_of[] = {5000, 5000, 4682, 1000, 3};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    int64_t count = counts[c];
    int32_t ranks = ranks_of[c];
    fs_study_results r = fixed_results(count, ranks);
    uint64_t x = 0x9e3779b97f4a7c15u * (c + 1); /* xorshift: varied picoseconds */
    for (int64_t i = 0; i < count * ranks; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      r.finish[i] = (fs_time)(x % 5000000) - 1000;
    }
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    fs_summary s;
    summarize(r.makespan, r.count, 1, &s);
    fprintf(out, "\"seeds\": %lld, \"base_seed\": 1, \"makespan_ns\": ", (long long)count);
    fs_summary_json(out, &s);
    fputs(", \"finish_ns\": [", out);
    for (int32_t rank = 0; rank < ranks; rank++) {
      summarize(r.finish + rank, r.count, ranks, &s);
      fputs(rank ? ", " : "", out);
      fs_summary_json(out, &s);
    }
    fputc(']', out);
    fclose(out);
    char *text = report_text(&r, ranks, 1);
    ck_assert_msg(strcmp(text, buffer) == 0, "%lld seeds x %d ranks", (long long)count, ranks);
    free(text);
    free(buffer);
    fs_study_results_free(&r);
  }
}
END_TEST

START_TEST(report_text_case) {
  fs_study_results r = fixed_results(4, 2); /* 1..4 ns; rank 1: 1 ps less */
  char *text = report_text(&r, 2, 0);
  ck_assert_str_eq(text,
                   "seeds      4 (base seed 1), times in ns\n"
                   "                  min        p25     median       mean        p75        p95"
                   "        p99        max      stdev\n"
                   "makespan            1       1.75        2.5        2.5       3.25       3.85"
                   "       3.97          4    1.29099\n"
                   "rank 0              1       1.75        2.5        2.5       3.25       3.85"
                   "       3.97          4    1.29099\n"
                   "rank 1          0.999      1.749      2.499      2.499      3.249      3.849"
                   "      3.969      3.999    1.29099\n");
  free(text);
  fs_study_results_free(&r);
  /* 16 ranks shown; microseconds when the makespans reach them */
  r = fixed_results(3, 20);
  r.makespan[2] = 1500 * FS_NS;
  text = report_text(&r, 20, 0);
  ck_assert_ptr_nonnull(strstr(text, "seeds      3 (base seed 1), times in us\n"));
  ck_assert_ptr_nonnull(
      strstr(text, "\nmakespan        0.001     0.0015      0.002      0.501      0.751     1.3502"
                   "    1.47004        1.5    0.86516\n"));
  ck_assert_ptr_nonnull(strstr(text, "\nrank 15 "));
  ck_assert_ptr_null(strstr(text, "\nrank 16 "));
  ck_assert_ptr_nonnull(strstr(text, "\n...        (ranks 16..19 in --format json)\n"));
  free(text);
  fs_study_results_free(&r);
}
END_TEST

/* --- histogram --- */

START_TEST(histogram_plan) {
  fs_histogram_bins b = fs_histogram_plan(1000, 100000, 100); /* aim 10, 9900 -> 10000 */
  ck_assert_int_eq(b.start, 0);
  ck_assert_int_eq(b.width, 10000);
  ck_assert_int_eq(b.count, 11);
  b = fs_histogram_plan(5000, 5000, 10); /* equal: width |min| / 100 = 50 */
  ck_assert_int_eq(b.start, 5000);
  ck_assert_int_eq(b.width, 50);
  ck_assert_int_eq(b.count, 1);
  b = fs_histogram_plan(1234567, 1334567, 1000000); /* aim 40: 2500 -> 5000 */
  ck_assert_int_eq(b.width, 5000);
  ck_assert_int_eq(b.start, 1230000);
  ck_assert_int_eq(b.count, 21);
  b = fs_histogram_plan(-30, 70, 4); /* aim 2: 50 */
  ck_assert_int_eq(b.start, -50);
  ck_assert_int_eq(b.width, 50);
  ck_assert_int_eq(b.count, 3);
}
END_TEST

static int occurrences(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

static char *histogram(const fs_study_results *r) {
  char *path = fs_test_temp_path(".svg");
  fs_error err = {{0}};
  fs_output *out = fs_output_open(path, &err);
  ck_assert_ptr_nonnull(out);
  ck_assert_msg(fs_histogram_svg(r, out, &err) == 0, "%s", err.message);
  char *text = fs_test_read_file(path, NULL);
  free(path);
  return text;
}

static void assert_well_formed(const char *text) {
  ck_assert_uint_eq(strncmp(text, "<svg", 4), 0);
  ck_assert_str_eq(text + strlen(text) - 7, "</svg>\n");
  xmlDocPtr doc = xmlReadMemory(text, (int)strlen(text), "histogram.svg", NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  ck_assert_ptr_nonnull(doc);
  ck_assert_str_eq((const char *)xmlDocGetRootElement(doc)->name, "svg");
  xmlFreeDoc(doc);
}

START_TEST(histogram_svg) {
  fs_study_results r = fixed_results(100, 1); /* 1..100 ns: 11 bins of 10 ns, none empty */
  char *text = histogram(&r);
  assert_well_formed(text);
  ck_assert_int_eq(occurrences(text, "<rect class=\"bar\""), 11);
  ck_assert_int_eq(occurrences(text, "class=\"mark\""), 3);
  ck_assert_ptr_nonnull(strstr(text, "makespan (ns)"));
  ck_assert_ptr_nonnull(strstr(text, ">median 50.5 ns</text>"));
  ck_assert_ptr_nonnull(strstr(text, ">p95 95.05 ns</text>"));
  ck_assert_ptr_nonnull(strstr(text, ">p99 99.01 ns</text>"));
  ck_assert_ptr_nonnull(strstr(text, "Makespan distribution, 100 seeds (11 bins of 10 ns)"));
  ck_assert_ptr_nonnull(strstr(text, "<title>[0, 10) ns: 9 seeds</title>"));
  ck_assert_ptr_nonnull(strstr(text, "<title>[100, 110) ns: 1 seeds</title>"));
  free(text);
  /* one empty bin in the middle is not drawn */
  for (int j = 39; j < 49; j++) r.makespan[j] = 39000; /* [40, 50) ns now empty */
  text = histogram(&r);
  assert_well_formed(text);
  ck_assert_int_eq(occurrences(text, "<rect class=\"bar\""), 10);
  free(text);
  fs_study_results_free(&r);
  /* all equal: one bar */
  r = fixed_results(5, 1);
  for (int j = 0; j < 5; j++) r.makespan[j] = 2 * FS_MS;
  text = histogram(&r);
  assert_well_formed(text);
  ck_assert_int_eq(occurrences(text, "<rect class=\"bar\""), 1);
  ck_assert_ptr_nonnull(strstr(text, "makespan (ms)"));
  free(text);
  fs_study_results_free(&r);
}
END_TEST

START_TEST(histogram_empty) {
  char *path = fs_test_temp_path(".svg");
  fs_error err = {{0}};
  fs_output *out = fs_output_open(path, &err);
  fs_study_results r = {0};
  ck_assert_int_eq(fs_histogram_svg(&r, out, &err), -1);
  ck_assert_str_eq(err.message, "histogram: no seeds were run");
  ck_assert_int_ne(access(path, F_OK), 0); /* aborted: nothing written */
  free(path);
}
END_TEST

/* --- the real engine --- */

typedef struct engine_setup {
  const fs_program *program;
  const char *parameters;
} engine_setup;

typedef struct engine_worker {
  fs_network_model network;
  fs_compute_model compute;
  fs_engine *engine;
} engine_worker;

static void engine_free(fs_study_worker *opaque);

static fs_study_worker *engine_new(void *arg, fs_error *err) {
  const engine_setup *setup = arg;
  char text[256];
  fs_parameter items[16];
  fs_parameters params;
  snprintf(text, sizeof text, "%s", setup->parameters);
  engine_worker *w = calloc(1, sizeof *w);
  if (!w || fs_test_parameters(text, items, &params) ||
      fs_network_model_create("hockney", &params, &w->network, err) ||
      fs_compute_model_create("fixed", &params, &w->compute, err) ||
      !(w->engine = fs_engine_new(setup->program, &w->network, &w->compute, err))) {
    if (w) engine_free((fs_study_worker *)w);
    return NULL;
  }
  return (fs_study_worker *)w;
}

static int engine_run(fs_study_worker *opaque, uint64_t seed, fs_time *makespan, fs_time *finish,
                      fs_error *err) {
  (void)seed; /* no noise yet: every seed is the deterministic run */
  engine_worker *w = (engine_worker *)opaque;
  if (fs_engine_run(w->engine, err) != FS_RUN_OK) return -1;
  *makespan = fs_engine_makespan(w->engine);
  memcpy(finish, fs_engine_finish_times(w->engine),
         (size_t)fs_engine_program(w->engine)->ranks * sizeof *finish);
  return 0;
}

static void engine_free(fs_study_worker *opaque) {
  engine_worker *w = (engine_worker *)opaque;
  fs_engine_free(w->engine);
  fs_network_model_destroy(&w->network);
  fs_compute_model_destroy(&w->compute);
  free(w);
}

/* rank 0 computes 3 us then puts 1000 B to rank 1, which computes 2 us after it */
static fs_program *tiny_program(void) {
  fs_program *p = fs_program_new(2);
  int32_t work = fs_program_add(p, FS_COMPUTE, 0);
  fs_task_set_time(p, work, 3 * FS_US);
  int32_t put = fs_program_add(p, FS_PUT, 0);
  fs_task_set_peer(p, put, 1);
  fs_task_set_size(p, put, 1000);
  int32_t after = fs_program_add(p, FS_COMPUTE, 1);
  fs_task_set_time(p, after, 2 * FS_US);
  ck_assert_int_eq(fs_program_depend(p, put, work, 0), 0);
  ck_assert_int_eq(fs_program_depend(p, after, put, 0), 0);
  fs_error err;
  ck_assert_msg(fs_program_finalize(p, &err) == 0, "%s", err.message);
  return p;
}

START_TEST(real_engine) {
  static const char parameters[] = "alpha=1us beta=1GB/s";
  fs_program *p = tiny_program();
  fs_simulation once;
  fs_test_simulate(&once, p, "hockney", "fixed", parameters);
  ck_assert_int_eq(once.status, FS_RUN_OK);
  fs_time makespan = fs_engine_makespan(once.engine);
  fs_time finish[2];
  memcpy(finish, fs_engine_finish_times(once.engine), sizeof finish);
  fs_test_run_free(&once);
  ck_assert_int_eq(makespan, 7 * FS_US); /* 3 + (1 + 1000 B / 1 GB/s) + 2 */
  engine_setup setup = {p, parameters};
  fs_study_callbacks c = {engine_new, engine_run, engine_free, &setup};
  fs_study_options o = options(50, 2, 2);
  o.base_seed = 77;
  fs_study_results r;
  fs_error err = {{0}};
  ck_assert_msg(fs_study_run(&o, &c, &r, &err) == 0, "%s", err.message);
  ck_assert_int_eq(r.count, 50);
  fs_summary s;
  summarize(r.makespan, r.count, 1, &s);
  double ns = (double)makespan / 1000.0;
  ck_assert(s.min == ns && s.p25 == ns && s.median == ns && s.mean == ns && s.p75 == ns &&
            s.p95 == ns && s.p99 == ns && s.max == ns && s.stdev == 0);
  for (int32_t rank = 0; rank < 2; rank++) {
    summarize(r.finish + rank, r.count, 2, &s);
    ns = (double)finish[rank] / 1000.0;
    ck_assert(s.min == ns && s.median == ns && s.mean == ns && s.p99 == ns && s.max == ns &&
              s.stdev == 0);
  }
  fs_study_results_free(&r);
  fs_program_free(p);
}
END_TEST

static Suite *study_suite(void) {
  Suite *s = suite_create("study");
  TCase *driver = tcase_create("driver");
  tcase_add_test(driver, count_case);
  tcase_add_test(driver, thread_count_does_not_matter);
  tcase_add_test(driver, all_cores_and_no_seeds);
  tcase_add_test(driver, bad_options);
  tcase_add_test(driver, samples_csv_exact);
  tcase_add_test(driver, row_format);
  tcase_add_test(driver, samples_streamed);
  tcase_add_test(driver, worker_error);
  tcase_add_test(driver, progress_bar);
  tcase_add_test(driver, real_engine);
  suite_add_tcase(s, driver);
  TCase *statistics = tcase_create("statistics");
  tcase_add_test(statistics, summary_one);
  tcase_add_test(statistics, summary_two);
  tcase_add_test(statistics, summary_four_with_stride);
  tcase_add_test(statistics, summary_picoseconds);
  tcase_add_test(statistics, summary_large);
  tcase_add_test(statistics, summary_empty);
  tcase_add_test(statistics, quantile_type7);
  tcase_add_test(statistics, report_json);
  tcase_add_test(statistics, report_json_blocks);
  tcase_add_test(statistics, report_text_case);
  suite_add_tcase(s, statistics);
  TCase *svg = tcase_create("histogram");
  tcase_add_test(svg, histogram_plan);
  tcase_add_test(svg, histogram_svg);
  tcase_add_test(svg, histogram_empty);
  suite_add_tcase(s, svg);
  return s;
}

int main(void) { return fs_test_run(study_suite()); }
