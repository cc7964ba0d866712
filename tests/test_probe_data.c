/* test_probe_data.c: fennelprobe's point-to-point CSV (src/fit/probe_data.c):
 * exact picoseconds from decimal nanoseconds, a write/read round trip,
 * and every reader error with its exact FILE:LINE:COLUMN message. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fit/probe_data.h"
#include "test_support.h"

#define HEADER "# fennelprobe 1 ranks=4 nodes=1 cores=4 host=example date=2026-01-01\n"
#define COLUMNS                                                                                 \
  "experiment,placement,bytes,reply_bytes,stride,block,count,rank_a,rank_b,rank_c,repetitions," \
  "min_ns,median_ns,mean_ns,ci95_ns\n"

static fs_probe_data *read_text(const char *text, fs_error *err) {
  return fs_probe_data_read_memory(text, strlen(text), "p2p.csv", err);
}

static void expect_error(const char *text, const char *message) {
  fs_error err = {{0}};
  fs_probe_data *d = read_text(text, &err);
  ck_assert_msg(d == NULL, "accepted: %s", text);
  ck_assert_str_eq(err.message, message);
}

/* The schema's example row: 2510.5 ns = 2510500 ps exactly; comments and
 * blank lines are skipped; the row keeps its line for messages. */
START_TEST(example_row) {
  fs_error err;
  fs_probe_data *d =
      read_text(HEADER "# a comment\n" COLUMNS "\n"
                       "roundtrip,shm,1024,1024,0,0,1,0,1,-1,120,2510.5,2533.0,2540.1,12.3\n"
                       "ring,net,16,16,16,8,2,0,2,-1,30,0.001,7,7.25,0\n",
                &err);
  ck_assert_msg(d != NULL, "%s", err.message);
  ck_assert_int_eq(d->ranks, 4);
  ck_assert_int_eq(d->count, 2);
  ck_assert_str_eq(d->source, "p2p.csv");
  const fs_probe_row *r = &d->rows[0];
  ck_assert_int_eq(r->experiment, FS_EXPERIMENT_ROUNDTRIP);
  ck_assert_int_eq(r->placement, FS_PLACEMENT_SHM);
  ck_assert_int_eq(r->bytes, 1024);
  ck_assert_int_eq(r->reply_bytes, 1024);
  ck_assert_int_eq(r->rank_a, 0);
  ck_assert_int_eq(r->rank_b, 1);
  ck_assert_int_eq(r->rank_c, -1);
  ck_assert_int_eq(r->repetitions, 120);
  ck_assert_int_eq(r->min, 2510500);
  ck_assert_int_eq(r->median, 2533000);
  ck_assert_int_eq(r->mean, 2540100);
  ck_assert_int_eq(r->ci95, 12300);
  ck_assert_int_eq(r->line, 5);
  r = &d->rows[1];
  ck_assert_int_eq(r->experiment, FS_EXPERIMENT_RING);
  ck_assert_int_eq(r->placement, FS_PLACEMENT_NET);
  ck_assert_int_eq(r->stride, 16);
  ck_assert_int_eq(r->block, 8);
  ck_assert_int_eq(r->count, 2);
  ck_assert_int_eq(r->min, 1);
  ck_assert_int_eq(r->median, 7000);
  ck_assert_int_eq(r->mean, 7250);
  fs_probe_data_free(d);
}
END_TEST

/* Written and read back: the same rows; times with 3 decimals at most. */
START_TEST(write_read_round_trip) {
  fs_probe_data *d = fs_probe_data_new(3);
  for (int e = 0; e < FS_EXPERIMENTS; e++) {
    fs_probe_row r = {.experiment = (fs_experiment)e,
                      .placement = (fs_placement)(e % 2),
                      .bytes = 8 << e,
                      .reply_bytes = e,
                      .count = e + 1,
                      .rank_a = 2,
                      .rank_b = -1,
                      .rank_c = e == FS_EXPERIMENT_ONE_TO_TWO ? 1 : -1,
                      .repetitions = 30,
                      .min = 1234567 + e,
                      .median = 1234600,
                      .mean = 2000000,
                      .ci95 = 999};
    ck_assert_int_eq(fs_probe_data_add(d, &r), 0);
  }
  char *path = fs_test_temp_path(".csv");
  fs_error err;
  ck_assert_msg(fs_probe_data_write(d, path, &err) == 0, "%s", err.message);
  char *text = fs_test_read_file(path, NULL);
  /* since issue 16: plain CSV, the first line in the sidecar PATH.meta */
  ck_assert_int_eq(strncmp(text,
                           COLUMNS "roundtrip,shm,8,0,0,0,1,2,-1,-1,30,1234.567,1234.6,2000,"
                                   "0.999\n",
                           strlen(COLUMNS) + 62),
                   0);
  char meta[1024];
  snprintf(meta, sizeof meta, "%s.meta", path);
  char *sidecar = fs_test_read_file(meta, NULL);
  ck_assert_str_eq(sidecar, "fennelprobe 1 ranks=3 source=fennelsim\n");
  free(sidecar);
  fs_probe_data *back = fs_probe_data_read(path, &err);
  ck_assert_msg(back != NULL, "%s", err.message);
  ck_assert_int_eq(back->count, d->count);
  for (int64_t i = 0; i < d->count; i++) {
    d->rows[i].line = (uint32_t)(i + 2);
    ck_assert(memcmp(&d->rows[i], &back->rows[i], sizeof d->rows[i]) == 0);
  }
  /* a malformed sidecar is named */
  ck_assert_int_eq(fs_test_write_file(meta, "fennelprobe 2 ranks=3\n", 0), 0);
  fs_probe_data *bad = fs_probe_data_read(path, &err);
  ck_assert_ptr_null(bad);
  char message[1200];
  snprintf(message, sizeof message,
           "%s:1:1: expected \"fennelprobe 1 ranks=P ...\" as the "
           "sidecar's first line (a fennelprobe point-to-point file)",
           meta);
  ck_assert_str_eq(err.message, message);
  remove(meta);
  remove(path);
  free(text);
  free(path);
  fs_probe_data_free(d);
  fs_probe_data_free(back);
}
END_TEST

START_TEST(names) {
  ck_assert_str_eq(fs_experiment_name(FS_EXPERIMENT_ONE_TO_TWO), "one_to_two");
  ck_assert_str_eq(fs_experiment_name(FS_EXPERIMENTS), "?");
  ck_assert_int_eq(fs_experiment_from_name("memcpy", 6), FS_EXPERIMENT_MEMCPY);
  ck_assert_int_eq(fs_experiment_from_name("memcpyx", 6), FS_EXPERIMENT_MEMCPY);
  ck_assert_int_eq(fs_experiment_from_name("ring", 3), -1);
}
END_TEST

START_TEST(header_errors) {
  expect_error("", "p2p.csv:1:1: expected \"# fennelprobe 1 ranks=P ...\" (the file is empty)");
  expect_error("experiment,placement\n",
               "p2p.csv:1:1: expected \"# fennelprobe 1 ranks=P ...\" as the first line (a "
               "fennelprobe point-to-point file)");
  expect_error("# fennelprobe 12 ranks=4\n",
               "p2p.csv:1:1: expected \"# fennelprobe 1 ranks=P ...\" as the first line (a "
               "fennelprobe point-to-point file)");
  expect_error("# fennelprobe-collectives 1 ranks=4\n",
               "p2p.csv:1:1: expected \"# fennelprobe 1 ranks=P ...\" (this is a collectives "
               "file: `fennelsim validate` reads it)");
  expect_error("# fennelprobe 1 nodes=1\n", "p2p.csv:1:24: expected ranks=P in the first line");
  expect_error("# fennelprobe 1 ranks=0\n",
               "p2p.csv:1:23: expected ranks=P with P a whole number from 1 to 16777216");
  expect_error(HEADER,
               "p2p.csv:2:1: expected the column line \""
               "experiment,placement,bytes,"
               "reply_bytes,stride,block,count,rank_a,rank_b,rank_c,repetitions,min_ns,median_ns,"
               "mean_ns,ci95_ns\"");
  /* The column line first, read from memory: no sidecar, and the message
   * names the input as given (it said "data:1:1" before; a fuzz finding). */
  expect_error(COLUMNS, "p2p.csv:1:1: expected \"# fennelprobe 1 ranks=P ...\" (a file without "
                        "it has a sidecar FILE.meta, which data read from memory has not)");
  expect_error(HEADER "experiment,placement\n",
               "p2p.csv:2:1: expected the column line \""
               "experiment,placement,bytes,reply_bytes,stride,block,count,rank_a,rank_b,rank_c,"
               "repetitions,min_ns,median_ns,mean_ns,ci95_ns\"");
}
END_TEST

/* Each field's error names its column (1-based). */
START_TEST(row_errors) {
  expect_error(HEADER COLUMNS "pingpong,shm,8,8,0,0,1,0,1,-1,1,1,1,1,0\n",
               "p2p.csv:3:1: expected an experiment: roundtrip, ssend, send_call, train, "
               "multicast, one_to_two, ring or memcpy");
  expect_error(HEADER COLUMNS "roundtrip,smp,8,8,0,0,1,0,1,-1,1,1,1,1,0\n",
               "p2p.csv:3:11: expected placement shm or net");
  expect_error(HEADER COLUMNS "roundtrip,shm,-8,8,0,0,1,0,1,-1,1,1,1,1,0\n",
               "p2p.csv:3:15: expected bytes: a whole number of bytes >= 0");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,0,0,1,-1,1,1,1,1,0\n",
               "p2p.csv:3:23: expected count: a whole number from 1 to 16777216");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,4,1,-1,1,1,1,1,0\n",
               "p2p.csv:3:25: expected rank_a: a rank of the run (0 to ranks-1)");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,0,-2,-1,1,1,1,1,0\n",
               "p2p.csv:3:27: expected rank_b: a rank of the run or -1");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,0,1,-1,0,1,1,1,0\n",
               "p2p.csv:3:32: expected repetitions: a whole number >= 1");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,0,1,-1,1,1.2345,2,2,0\n",
               "p2p.csv:3:34: expected a time in ns >= 0 with at most 3 decimals (\"2510.5\")");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,0,1,-1,1,1,-2,2,0\n",
               "p2p.csv:3:36: expected a time in ns >= 0 with at most 3 decimals (\"2510.5\")");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,0,1,-1,1,1,1,1us,0\n",
               "p2p.csv:3:38: expected a time in ns >= 0 with at most 3 decimals (\"2510.5\")");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,0,1,-1,1,1,1,1,0,7\n",
               "p2p.csv:3:42: expected the end of the row (15 fields)");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,0,1,-1,1,1,1\n",
               "p2p.csv:3:37: expected more fields (15)");
  expect_error(HEADER COLUMNS "roundtrip,shm,8\n", "p2p.csv:3:16: expected more fields (15)");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,16,0,1,0,1,-1,1,1,1,1,0\n",
               "p2p.csv:3:19: expected stride and block both 0 (contiguous) or both positive");
  expect_error(HEADER COLUMNS "roundtrip,shm,12,12,16,8,1,0,1,-1,1,1,1,1,0\n",
               "p2p.csv:3:24: expected block <= stride, dividing bytes (a vector of bytes/block "
               "blocks)");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,0,1,-1,1,2,1,3,0\n",
               "p2p.csv:3:36: expected median_ns >= min_ns");
  expect_error(HEADER COLUMNS "roundtrip,shm,8,8,0,0,1,0,1,-1,1,2,3,1,0\n",
               "p2p.csv:3:38: expected mean_ns >= min_ns");
}
END_TEST

START_TEST(missing_file) {
  fs_error err;
  ck_assert_ptr_null(fs_probe_data_read("/nonexistent/p2p.csv", &err));
  ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/p2p.csv"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("probe_data");
  TCase *c = tcase_create("probe_data");
  tcase_add_test(c, example_row);
  tcase_add_test(c, write_read_round_trip);
  tcase_add_test(c, names);
  tcase_add_test(c, header_errors);
  tcase_add_test(c, row_errors);
  tcase_add_test(c, missing_file);
  suite_add_tcase(s, c);
  return fs_test_run(s);
}
