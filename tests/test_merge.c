/* test_merge.c: samples CSVs read back and merged (src/study/merge.c) and
 * `fennelsim merge`.
 *
 * Covers --shard parsing (good values and every error message), the strict
 * samples reader (a good file read exactly, every malformed header and row
 * rejected with its exact file:line:column message, the largest time, a
 * failed file leaving the earlier ones intact), merging (the shards of a
 * study, for several shard counts and in any reading order, give exactly
 * the arrays of the whole study and write it back byte for byte; duplicate
 * seeds refused with both places; missing seeds counted; the rank count
 * checked across files), and the command (statistics of merged shards
 * equal to those of the whole, the merged samples file, errors and the
 * --allow-missing warning). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/merge.h"
#include "study/study.h"
#include "test_support.h"

/* ---- helpers ------------------------------------------------------------ */

#define SEEDS 30
#define RANKS 3
#define BASE 7

/* A made-up study: seed BASE + i, times with picosecond digits. */
static void make_study(fs_study_results *r) {
  r->count = SEEDS;
  r->seed = malloc(SEEDS * sizeof *r->seed);
  r->makespan = malloc(SEEDS * sizeof *r->makespan);
  r->finish = malloc(SEEDS * RANKS * sizeof *r->finish);
  uint64_t state = 12345;
  for (int i = 0; i < SEEDS; i++) {
    r->seed[i] = BASE + (uint64_t)i;
    fs_time most = 0;
    for (int k = 0; k < RANKS; k++) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      fs_time t = (fs_time)(state >> 40);              /* up to 2^24 ps, some with 0 decimals */
      if (k == 1 && i % 5 == 0) t = (fs_time)i * 1000; /* whole nanoseconds */
      r->finish[i * RANKS + k] = t;
      if (t > most) most = t;
    }
    r->makespan[i] = most;
  }
}

/* The samples CSV of rows index, index + count, ... of r. Caller frees. */
static char *csv_of(const fs_study_results *r, int32_t ranks, int64_t index, int64_t count) {
  size_t row = fs_study_row_size(ranks), used = 0;
  char *text = malloc(row * ((size_t)r->count + 1) + 1);
  used += fs_study_header(text, ranks);
  for (int64_t i = index; i < r->count; i += count)
    used += fs_study_row(text + used, r->seed[i], r->makespan[i], r->finish + i * ranks, ranks);
  text[used] = 0;
  return text;
}

static int read_text(fs_merge *m, const char *text, const char *name, fs_error *err) {
  fs_text_input *in = fs_text_input_open_memory(text, strlen(text), name);
  ck_assert_ptr_nonnull(in);
  int status = fs_merge_read(m, in, err);
  fs_text_input_close(in);
  return status;
}

/* text is rejected with exactly message. */
static void bad_csv(const char *text, const char *message) {
  fs_merge *m = fs_merge_new();
  fs_error err = {{0}};
  ck_assert_msg(read_text(m, text, "t.csv", &err) == -1, "accepted: %s", text);
  ck_assert_str_eq(err.message, message);
  fs_merge_free(m);
}

#define HINT "(the samples header is seed,makespan_ns,finish_ns_0,...,finish_ns_R-1)"
#define HEADER2 "seed,makespan_ns,finish_ns_0,finish_ns_1\n"
#define TIME_HINT "nanoseconds with at most 3 decimals (e.g. 1234.567)"

static void assert_same(const fs_study_results *a, const fs_study_results *b, int32_t ranks) {
  ck_assert_int_eq(a->count, b->count);
  for (int64_t i = 0; i < a->count; i++) {
    ck_assert_uint_eq(a->seed[i], b->seed[i]);
    ck_assert_int_eq(a->makespan[i], b->makespan[i]);
    for (int32_t k = 0; k < ranks; k++)
      ck_assert_int_eq(a->finish[i * ranks + k], b->finish[i * ranks + k]);
  }
}

/* ---- shards ------------------------------------------------------------- */

static void shard_ok(const char *text, int64_t index, int64_t count) {
  int64_t i = -1, n = -1;
  fs_error err = {{0}};
  ck_assert_msg(fs_study_parse_shard(text, &i, &n, &err) == 0, "%s: %s", text, err.message);
  ck_assert_int_eq(i, index);
  ck_assert_int_eq(n, count);
}

static void shard_bad(const char *text, const char *message) {
  int64_t i = -1, n = -1;
  fs_error err = {{0}};
  ck_assert_int_eq(fs_study_parse_shard(text, &i, &n, &err), -1);
  ck_assert_str_eq(err.message, message);
  ck_assert_int_eq(i, -1);
  ck_assert_int_eq(n, -1);
}

START_TEST(shard_values) {
  shard_ok("0/1", 0, 1);
  shard_ok("0/4", 0, 4);
  shard_ok("3/4", 3, 4);
  shard_ok("999/1000", 999, 1000);
  shard_ok("999999999999999998/999999999999999999", 999999999999999998, 999999999999999999);
}
END_TEST

START_TEST(shard_errors) {
  shard_bad("4/4", "--shard 4/4: the index must be below the count (0 to 3)");
  shard_bad("1/1", "--shard 1/1: the index must be below the count (0 to 0)");
  const char *bad[] = {"1/0",
                       "",
                       "/",
                       "1",
                       "1/",
                       "/4",
                       "-1/4",
                       "+1/4",
                       "a/4",
                       "1/4/5",
                       "1 /4",
                       "1/4x",
                       "0/9223372036854775808"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char message[200];
    snprintf(message, sizeof message,
             "--shard %s: expected INDEX/COUNT, two whole numbers (e.g. 0/4)", bad[i]);
    shard_bad(bad[i], message);
  }
}
END_TEST

/* ---- reading ------------------------------------------------------------ */

START_TEST(read_good_file) {
  fs_merge *m = fs_merge_new();
  fs_error err = {{0}};
  const char *text = HEADER2 "5,1234.567,1234.567,0\n"
                             "2,7,0.5,7\r\n"
                             "18446744073709551615,4611686018427387.904,0.001,1.01";
  ck_assert_msg(read_text(m, text, "t.csv", &err) == 0, "%s", err.message);
  fs_study_results r;
  int32_t ranks = 0;
  fs_merge_gaps gaps;
  ck_assert_msg(fs_merge_results(m, &r, &ranks, &gaps, &err) == 0, "%s", err.message);
  ck_assert_int_eq(ranks, 2);
  ck_assert_int_eq(r.count, 3);
  /* seed order */
  ck_assert_uint_eq(r.seed[0], 2);
  ck_assert_uint_eq(r.seed[1], 5);
  ck_assert_uint_eq(r.seed[2], UINT64_MAX);
  ck_assert_int_eq(r.makespan[0], 7000);
  ck_assert_int_eq(r.finish[0], 500);
  ck_assert_int_eq(r.finish[1], 7000);
  ck_assert_int_eq(r.makespan[1], 1234567);
  ck_assert_int_eq(r.finish[2], 1234567);
  ck_assert_int_eq(r.finish[3], 0);
  ck_assert_int_eq(r.makespan[2], FS_TIME_LIMIT);
  ck_assert_int_eq(r.finish[4], 1);
  ck_assert_int_eq(r.finish[5], 1010);
  ck_assert_uint_eq(gaps.first_seed, 2);
  ck_assert_uint_eq(gaps.last_seed, UINT64_MAX);
  ck_assert_uint_eq(gaps.missing, UINT64_MAX - 4);
  ck_assert_uint_eq(gaps.first_missing, 3);
  fs_study_results_free(&r);
  fs_merge_free(m);
}
END_TEST

START_TEST(read_header_only) {
  fs_merge *m = fs_merge_new();
  fs_error err = {{0}};
  ck_assert_int_eq(read_text(m, "seed,makespan_ns,finish_ns_0\n", "t.csv", &err), 0);
  fs_study_results r;
  int32_t ranks = 0;
  fs_merge_gaps gaps;
  ck_assert_int_eq(fs_merge_results(m, &r, &ranks, &gaps, &err), 0);
  ck_assert_int_eq(ranks, 1);
  ck_assert_int_eq(r.count, 0);
  ck_assert_uint_eq(gaps.missing, 0);
  fs_study_results_free(&r);
  fs_merge_free(m);
}
END_TEST

START_TEST(bad_headers) {
  bad_csv("", "t.csv:1:1: expected the samples header "
              "seed,makespan_ns,finish_ns_0,...,finish_ns_R-1 (got end of file)");
  bad_csv("\n", "t.csv:1:1: expected 'seed' " HINT ", got end of line");
  bad_csv("Seed,makespan_ns,finish_ns_0\n", "t.csv:1:1: expected 'seed' " HINT ", got 'Seed'");
  bad_csv("seed\n", "t.csv:1:5: expected ',makespan_ns' " HINT ", got end of line");
  bad_csv("seed,makespan,finish_ns_0\n",
          "t.csv:1:6: expected 'makespan_ns' " HINT ", got 'makespan'");
  bad_csv("seed,makespan_ns\n", "t.csv:1:17: expected ',finish_ns_0' " HINT ", got end of line");
  bad_csv("seed,makespan_ns,\n", "t.csv:1:18: expected 'finish_ns_0' " HINT ", got end of line");
  bad_csv("seed,makespan_ns,finish_ns_0,finish_ns_2\n",
          "t.csv:1:30: expected 'finish_ns_1' " HINT ", got 'finish_ns_2'");
  bad_csv("seed,makespan_ns,finish_ns_0,\n",
          "t.csv:1:30: expected 'finish_ns_1' " HINT ", got end of line");
  bad_csv("seed,makespan_ns,finish_ns_0,finish_ns_10\n",
          "t.csv:1:30: expected 'finish_ns_1' " HINT ", got 'finish_ns_10'");
  bad_csv("seed,,finish_ns_0\n", "t.csv:1:6: expected 'makespan_ns' " HINT ", got nothing");
  bad_csv("seed,makespan_ns,finish_ns_0 \n",
          "t.csv:1:18: expected 'finish_ns_0' " HINT ", got 'finish_ns_0 '");
  bad_csv("seed,makespan_ns,\tfinish\n",
          "t.csv:1:18: expected 'finish_ns_0' " HINT ", got '?finish'");
  bad_csv("seed;makespan_ns;finish_ns_0;finish_ns_1;finish_ns_2;finish_ns_3\n",
          "t.csv:1:1: expected 'seed' " HINT ", got "
          "'seed;makespan_ns;finish_ns_0;finish_ns_1...'");
}
END_TEST

START_TEST(bad_rows) {
  bad_csv(HEADER2 "1,10,5\n",
          "t.csv:2:7: expected ',' and finish_ns_1 (the header has 4 columns), got end of line");
  bad_csv(HEADER2 "1\n",
          "t.csv:2:2: expected ',' and makespan_ns (the header has 4 columns), got end of line");
  bad_csv(HEADER2 "1,10,5,6,7\n",
          "t.csv:2:9: expected end of line (the header has 4 columns), got ',7'");
  bad_csv(HEADER2 "1,10,5,6,\n",
          "t.csv:2:9: expected end of line (the header has 4 columns), got ','");
  bad_csv(HEADER2 "x,10,5,6\n", "t.csv:2:1: expected a seed (a whole number below 2^64), got 'x'");
  bad_csv(HEADER2 "18446744073709551616,10,5,6\n",
          "t.csv:2:1: expected a seed (a whole number below 2^64), got '18446744073709551616'");
  bad_csv(HEADER2 "-1,10,5,6\n",
          "t.csv:2:1: expected a seed (a whole number below 2^64), got '-1'");
  bad_csv(HEADER2 "+1,10,5,6\n",
          "t.csv:2:1: expected a seed (a whole number below 2^64), got '+1'");
  bad_csv(HEADER2 "1,2,3,4\n\n",
          "t.csv:3:1: expected a seed (a whole number below 2^64), got end of line");
  bad_csv(HEADER2 ",10,5,6\n",
          "t.csv:2:1: expected a seed (a whole number below 2^64), got nothing");
  bad_csv(HEADER2 "1,1.2345,5,6\n", "t.csv:2:3: expected makespan_ns: " TIME_HINT ", got '1.2345'");
  bad_csv(HEADER2 "1,10,,6\n", "t.csv:2:6: expected finish_ns_0: " TIME_HINT ", got nothing");
  bad_csv(HEADER2 "1,10,5,\n", "t.csv:2:8: expected finish_ns_1: " TIME_HINT ", got end of line");
  bad_csv(HEADER2 "1,10,-5,6\n", "t.csv:2:6: expected finish_ns_0: " TIME_HINT ", got '-5'");
  bad_csv(HEADER2 "1,1.,5,6\n", "t.csv:2:3: expected makespan_ns: " TIME_HINT ", got '1.'");
  bad_csv(HEADER2 "1,.5,5,6\n", "t.csv:2:3: expected makespan_ns: " TIME_HINT ", got '.5'");
  bad_csv(HEADER2 "1,1e3,5,6\n", "t.csv:2:3: expected makespan_ns: " TIME_HINT ", got '1e3'");
  bad_csv(HEADER2 "1,10ns,5,6\n", "t.csv:2:3: expected makespan_ns: " TIME_HINT ", got '10ns'");
  bad_csv(HEADER2 "1, 10,5,6\n", "t.csv:2:3: expected makespan_ns: " TIME_HINT ", got ' 10'");
  bad_csv(HEADER2 "1,1\x01,5,6\n", "t.csv:2:3: expected makespan_ns: " TIME_HINT ", got '1?'");
  bad_csv(HEADER2 "1,4611686018427387.905,5,6\n",
          "t.csv:2:3: expected makespan_ns: " TIME_HINT ", got '4611686018427387.905'");
  bad_csv(HEADER2 "1,9223372036854776,5,6\n",
          "t.csv:2:3: expected makespan_ns: " TIME_HINT ", got '9223372036854776'");
  bad_csv(HEADER2 "1,2,3,4\n5,6,7,8.9999\n",
          "t.csv:3:7: expected finish_ns_1: " TIME_HINT ", got '8.9999'");
}
END_TEST

START_TEST(read_failure_keeps_earlier_files) {
  fs_merge *m = fs_merge_new();
  fs_error err = {{0}};
  ck_assert_int_eq(read_text(m, HEADER2 "1,2,3,4\n", "a.csv", &err), 0);
  ck_assert_int_eq(read_text(m, HEADER2 "2,2,3,4\n3,x,1,1\n", "b.csv", &err), -1);
  ck_assert_str_eq(err.message, "b.csv:3:3: expected makespan_ns: " TIME_HINT ", got 'x'");
  ck_assert_int_eq(read_text(m, "seed,makespan_ns,finish_ns_0\n", "c.csv", &err), -1);
  ck_assert_str_eq(err.message, "c.csv:1:1: 1 ranks (finish_ns_0 to finish_ns_0), but a.csv has 2");
  fs_study_results r;
  int32_t ranks;
  fs_merge_gaps gaps;
  ck_assert_int_eq(fs_merge_results(m, &r, &ranks, &gaps, &err), 0);
  ck_assert_int_eq(r.count, 1); /* b.csv's good row is not kept */
  ck_assert_uint_eq(r.seed[0], 1);
  fs_study_results_free(&r);
  fs_merge_free(m);
}
END_TEST

START_TEST(read_missing_file) {
  fs_merge *m = fs_merge_new();
  fs_error err = {{0}};
  ck_assert_int_eq(fs_merge_read_file(m, "/nonexistent/samples.csv", &err), -1);
  ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/samples.csv"));
  fs_study_results r;
  int32_t ranks;
  fs_merge_gaps gaps;
  ck_assert_int_eq(fs_merge_results(m, &r, &ranks, &gaps, &err), -1);
  ck_assert_str_eq(err.message, "no samples file read");
  fs_merge_free(m);
}
END_TEST

/* ---- merging ------------------------------------------------------------ */

START_TEST(shards_give_the_whole) {
  fs_study_results whole;
  make_study(&whole);
  char *whole_text = csv_of(&whole, RANKS, 0, 1);
  const int64_t shard_counts[] = {1, 2, 3, 7, 29, 30, 40};
  for (size_t s = 0; s < sizeof shard_counts / sizeof shard_counts[0]; s++) {
    int64_t n = shard_counts[s];
    fs_merge *m = fs_merge_new();
    fs_error err = {{0}};
    for (int64_t i = n - 1; i >= 0; i--) { /* the last shard first */
      char *text = csv_of(&whole, RANKS, i, n);
      ck_assert_msg(read_text(m, text, "shard.csv", &err) == 0, "%s", err.message);
      free(text);
    }
    fs_study_results merged;
    int32_t ranks = 0;
    fs_merge_gaps gaps;
    ck_assert_msg(fs_merge_results(m, &merged, &ranks, &gaps, &err) == 0, "%s", err.message);
    ck_assert_int_eq(ranks, RANKS);
    ck_assert_uint_eq(gaps.missing, 0);
    ck_assert_uint_eq(gaps.first_seed, BASE);
    ck_assert_uint_eq(gaps.last_seed, BASE + SEEDS - 1);
    assert_same(&merged, &whole, RANKS);
    /* written back: the single run's file, byte for byte */
    char *path = fs_test_temp_path(".csv");
    fs_output *out = fs_output_open(path, &err);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(fs_merge_write_samples(&merged, ranks, out, &err), 0);
    char *written = fs_test_read_file(path, NULL);
    ck_assert_str_eq(written, whole_text);
    free(written);
    remove(path);
    free(path);
    fs_study_results_free(&merged);
    fs_merge_free(m);
  }
  free(whole_text);
  fs_study_results_free(&whole);
}
END_TEST

START_TEST(duplicate_seeds_refused) {
  fs_merge *m = fs_merge_new();
  fs_error err = {{0}};
  ck_assert_int_eq(read_text(m, HEADER2 "1,2,3,4\n3,2,3,4\n", "a.csv", &err), 0);
  ck_assert_int_eq(read_text(m, HEADER2 "2,2,3,4\n3,9,9,9\n", "b.csv", &err), 0);
  fs_study_results r = {0};
  int32_t ranks = 0;
  fs_merge_gaps gaps;
  ck_assert_int_eq(fs_merge_results(m, &r, &ranks, &gaps, &err), -1);
  ck_assert_str_eq(err.message, "b.csv:3:1: seed 3 already read at a.csv:3");
  ck_assert_int_eq(r.count, 0);
  ck_assert_ptr_null(r.seed);
  fs_merge_free(m);
  /* within one file too */
  m = fs_merge_new();
  ck_assert_int_eq(read_text(m, HEADER2 "4,2,3,4\n1,2,3,4\n4,2,3,4\n", "a.csv", &err), 0);
  ck_assert_int_eq(fs_merge_results(m, &r, &ranks, &gaps, &err), -1);
  ck_assert_str_eq(err.message, "a.csv:4:1: seed 4 already read at a.csv:2");
  fs_merge_free(m);
}
END_TEST

START_TEST(missing_seeds_counted) {
  fs_study_results whole;
  make_study(&whole);
  fs_merge *m = fs_merge_new();
  fs_error err = {{0}};
  for (int64_t i = 0; i < 3; i += 2) { /* shards 0/3 and 2/3, not 1/3 */
    char *text = csv_of(&whole, RANKS, i, 3);
    ck_assert_int_eq(read_text(m, text, "shard.csv", &err), 0);
    free(text);
  }
  fs_study_results merged;
  int32_t ranks = 0;
  fs_merge_gaps gaps;
  ck_assert_int_eq(fs_merge_results(m, &merged, &ranks, &gaps, &err), 0);
  ck_assert_int_eq(merged.count, 20);
  ck_assert_uint_eq(gaps.missing, 10);
  ck_assert_uint_eq(gaps.first_missing, BASE + 1);
  ck_assert_uint_eq(gaps.first_seed, BASE);
  ck_assert_uint_eq(gaps.last_seed, BASE + 29);
  for (int64_t j = 0; j < merged.count; j++) {
    int64_t i = j / 2 * 3 + (j % 2) * 2; /* indices 0, 2, 3, 5, 6, ... */
    ck_assert_uint_eq(merged.seed[j], whole.seed[i]);
    ck_assert_int_eq(merged.makespan[j], whole.makespan[i]);
  }
  fs_study_results_free(&merged);
  fs_study_results_free(&whole);
  fs_merge_free(m);
}
END_TEST

/* ---- the command -------------------------------------------------------- */

/* Writes text to a fresh temporary file; caller frees the path. */
static char *temp_file(const char *text) {
  char *path = fs_test_temp_path(".csv");
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

/* The output of `fennelsim merge` with the "merged" list cut off. */
static const char *after_ranks(const char *json) {
  const char *p = strstr(json, "\"ranks\"");
  ck_assert_ptr_nonnull(p);
  return p;
}

START_TEST(command_merges_shards) {
  fs_study_results whole;
  make_study(&whole);
  char *whole_text = csv_of(&whole, RANKS, 0, 1), *whole_path = temp_file(whole_text);
  char *shard[3];
  for (int i = 0; i < 3; i++) {
    char *text = csv_of(&whole, RANKS, i, 3);
    shard[i] = temp_file(text);
    free(text);
  }
  char *merged_path = fs_test_temp_path(".csv"), *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s' --format json", whole_path), 0);
  char *single = out;
  ck_assert_str_eq(err, "");
  free(err);
  ck_assert_ptr_nonnull(strstr(single, "\"ranks\": 3, \"seeds\": 30"));
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "merge '%s' '%s' '%s' --format=json --samples '%s'", shard[2],
                                      shard[0], shard[1], merged_path),
                   0);
  ck_assert_str_eq(err, "");
  ck_assert_str_eq(after_ranks(out), after_ranks(single));
  char *merged = fs_test_read_file(merged_path, NULL);
  ck_assert_str_eq(merged, whole_text);
  free(merged);
  free(out);
  free(err);
  /* text: a line naming the files, then the statistics */
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s' '%s' '%s'", shard[0], shard[1],
                                      shard[2]),
                   0);
  char first_line[1500];
  snprintf(first_line, sizeof first_line, "merged: %s, %s, %s\n", shard[0], shard[1], shard[2]);
  ck_assert_int_eq(strncmp(out, first_line, strlen(first_line)), 0);
  free(out);
  free(err);
  /* shard 1 missing: an error, or a warning with --allow-missing */
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s' '%s'", shard[0], shard[2]), 2);
  ck_assert_str_eq(out, "");
  ck_assert_str_eq(err, "fennelsim: 10 seeds missing between 7 and 36 (the first: 8): is a shard "
                        "missing? (--allow-missing merges the 20 read)\n");
  free(out);
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s' '%s' --allow-missing --format json",
                                      shard[0], shard[2]),
                   0);
  ck_assert_str_eq(err, "fennelsim: warning: 10 seeds missing between 7 and 36 (the first: 8); "
                        "the statistics are over the 20 seeds read\n");
  ck_assert_ptr_nonnull(strstr(out, "\"ranks\": 3, \"seeds\": 20"));
  free(out);
  free(err);
  /* a shard given twice */
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s' '%s' '%s' '%s'", shard[0], shard[1],
                                      shard[2], shard[1]),
                   2);
  char message[1500];
  snprintf(message, sizeof message, "fennelsim: %s:2:1: seed 8 already read at %s:2\n", shard[1],
           shard[1]);
  ck_assert_str_eq(err, message);
  free(out);
  free(err);
  for (int i = 0; i < 3; i++) remove(shard[i]), free(shard[i]);
  remove(whole_path);
  remove(merged_path);
  free(whole_path);
  free(merged_path);
  free(whole_text);
  free(single);
  fs_study_results_free(&whole);
}
END_TEST

START_TEST(command_errors) {
  char *bad = temp_file(HEADER2 "1,2,3\n"), *empty = temp_file(HEADER2);
  char *out = NULL, *err = NULL, message[1500];
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s'", bad), 2);
  ck_assert_str_eq(out, "");
  snprintf(message, sizeof message,
           "fennelsim: %s:2:6: expected ',' and finish_ns_1 (the header "
           "has 4 columns), got end of line\n",
           bad);
  ck_assert_str_eq(err, message);
  free(out);
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s'", empty), 2);
  ck_assert_str_eq(err, "fennelsim: no samples: the files hold only a header\n");
  free(out);
  free(err);
  ck_assert_int_eq(fs_test_fennelsim("merge", &out, &err), 2);
  ck_assert_str_eq(err, "fennelsim: no samples file given (see fennelsim merge --help)\n");
  free(out);
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s' --format xml", empty), 2);
  ck_assert_str_eq(err, "fennelsim: --format xml: expected text or json\n");
  free(out);
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s' --shard 0/2", empty), 2);
  ck_assert_str_eq(err, "fennelsim: unknown option --shard (see fennelsim merge --help)\n");
  free(out);
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "merge '%s' --samples /nonexistent/x.csv", bad),
                   2);
  ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.csv"));
  free(out);
  free(err);
  ck_assert_int_eq(fs_test_fennelsim("merge --help", &out, &err), 0);
  ck_assert_int_eq(strncmp(out, "usage: fennelsim merge FILE.csv...", 34), 0);
  free(out);
  free(err);
  remove(bad);
  remove(empty);
  free(bad);
  free(empty);
}
END_TEST

/* ---- issue 15 item 6: studies with lines over 1 MiB ----------------------- */

#define BIG_RANKS 80000

/* A study of BIG_RANKS ranks: its header (about 1.3 MiB) and its rows
 * (about 15 bytes per rank: times near 10^9 ns with decimals) are longer
 * than the 1 MiB other readers allow; fennelsim writes them, so merge reads
 * them back exactly, and writes them again byte for byte. */
START_TEST(large_study_merges) {
  fs_study_results whole = {.count = 3};
  whole.seed = malloc(3 * sizeof *whole.seed);
  whole.makespan = malloc(3 * sizeof *whole.makespan);
  whole.finish = malloc(3 * (size_t)BIG_RANKS * sizeof *whole.finish);
  for (int i = 0; i < 3; i++) {
    whole.seed[i] = 1 + (uint64_t)i;
    for (int k = 0; k < BIG_RANKS; k++)
      whole.finish[i * BIG_RANKS + k] = 1000000000000 + (fs_time)k * 1001 + i;
    whole.makespan[i] = whole.finish[i * BIG_RANKS + BIG_RANKS - 1];
  }
  char *text = csv_of(&whole, BIG_RANKS, 0, 1), *path = temp_file(text);
  char *newline = strchr(text, '\n');
  ck_assert_uint_gt((size_t)(newline - text), FS_TEXT_LINE_MAX);
  ck_assert_uint_gt(strlen(newline + 1) / 3, FS_TEXT_LINE_MAX);
  fs_merge *m = fs_merge_new();
  fs_error err = {{0}};
  ck_assert_msg(fs_merge_read_file(m, path, &err) == 0, "%s", err.message);
  fs_study_results merged;
  fs_merge_gaps gaps;
  int32_t ranks = 0;
  ck_assert_int_eq(fs_merge_results(m, &merged, &ranks, &gaps, &err), 0);
  ck_assert_int_eq(ranks, BIG_RANKS);
  assert_same(&merged, &whole, BIG_RANKS);
  /* the command too, writing the merged samples back */
  char *again = fs_test_temp_path(".csv"), *out = NULL, *errors = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &errors, "merge '%s' --samples '%s' --format json",
                                      path, again),
                   0);
  ck_assert_str_eq(errors, "");
  ck_assert_ptr_nonnull(strstr(out, "\"ranks\": 80000, \"seeds\": 3"));
  char *written = fs_test_read_file(again, NULL);
  ck_assert_str_eq(written, text);
  free(written), free(out), free(errors), free(again);
  fs_study_results_free(&merged);
  fs_study_results_free(&whole);
  fs_merge_free(m);
  free(text), free(path);
}
END_TEST

/* A long header is checked column by column as it arrives: a wrong column
 * past the first MiB (finish_ns_70000 of 80000: its ',' at offset 16 + sum
 * over r < 70000 of 11 + digits(r) = 16 + 770000 + 10 + 180 + 2700 + 36000 +
 * 300000 = 1108906, so its name at column 1108908) and a line of other
 * text. */
START_TEST(long_header_checked) {
  fs_study_results none = {0};
  char *text = csv_of(&none, BIG_RANKS, 0, 1);
  char *at = strstr(text, ",finish_ns_70000,");
  ck_assert_int_eq(at - text, 1108906);
  memcpy(at + 1, "finish_xx_70000", 15);
  char *path = temp_file(text), expected[1000];
  fs_merge *m = fs_merge_new();
  fs_error err = {{0}};
  ck_assert_int_eq(fs_merge_read_file(m, path, &err), -1);
  snprintf(expected, sizeof expected,
           "%s:1:1108908: expected 'finish_ns_70000' " HINT ", got 'finish_xx_70000'", path);
  ck_assert_str_eq(err.message, expected);
  /* 3 MiB of "ab," on one line: refused at its first column */
  size_t n = (size_t)3 << 20;
  char *junk = malloc(n + 2);
  for (size_t i = 0; i < n; i++) junk[i] = "ab,"[i % 3];
  junk[n] = '\n', junk[n + 1] = 0;
  char *junk_path = temp_file(junk);
  ck_assert_int_eq(fs_merge_read_file(m, junk_path, &err), -1);
  snprintf(expected, sizeof expected, "%s:1:1: expected 'seed' " HINT ", got 'ab'", junk_path);
  ck_assert_str_eq(err.message, expected);
  fs_merge_free(m);
  free(junk), free(junk_path), free(text), free(path);
}
END_TEST

static Suite *merge_suite(void) {
  Suite *s = suite_create("merge");
  TCase *shards = tcase_create("shards");
  tcase_add_test(shards, shard_values);
  tcase_add_test(shards, shard_errors);
  suite_add_tcase(s, shards);
  TCase *reading = tcase_create("reading");
  tcase_add_test(reading, read_good_file);
  tcase_add_test(reading, read_header_only);
  tcase_add_test(reading, bad_headers);
  tcase_add_test(reading, bad_rows);
  tcase_add_test(reading, read_failure_keeps_earlier_files);
  tcase_add_test(reading, read_missing_file);
  suite_add_tcase(s, reading);
  TCase *merging = tcase_create("merging");
  tcase_add_test(merging, shards_give_the_whole);
  tcase_add_test(merging, duplicate_seeds_refused);
  tcase_add_test(merging, missing_seeds_counted);
  suite_add_tcase(s, merging);
  TCase *command = tcase_create("command");
  tcase_add_test(command, command_merges_shards);
  tcase_add_test(command, command_errors);
  tcase_add_test(command, large_study_merges);
  tcase_add_test(command, long_header_checked);
  suite_add_tcase(s, command);
  return s;
}

int main(void) { return fs_test_run(merge_suite()); }
