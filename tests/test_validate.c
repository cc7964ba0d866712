/* test_validate.c: `fennelsim validate` (src/fit/validate.c,
 * src/cli/validate_command.c): the collective CSV reader and every message
 * it gives, --algo lists, the error and mu arithmetic, predictions derived
 * by hand under hockney, the per-algorithm summaries and best matches, the
 * skipped candidates, and the command's text, JSON and CSV outputs and
 * exit statuses. Times in picoseconds. */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/validate.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000
#define COLUMNS "collective,algorithm,ranks,bytes,repetitions,min_ns,median_ns,mean_ns,ci95_ns"
#define HEADER COLUMNS "\n"

static fs_collective_data *read_text(const char *text, fs_error *err) {
  fs_text_input *in = fs_text_input_open_memory(text, strlen(text), "m.csv");
  ck_assert_ptr_nonnull(in);
  fs_collective_data *d = fs_collective_data_read_input(in, err);
  fs_text_input_close(in);
  return d;
}

/* The reader's message for text (which must fail). */
static void read_fails(const char *text, const char *message) {
  fs_error err = {{0}};
  fs_collective_data *d = read_text(text, &err);
  ck_assert_msg(d == NULL, "read: %s", text);
  ck_assert_str_eq(err.message, message);
}

/* ---- reading ---------------------------------------------------------------- */

START_TEST(read_good_file) {
  fs_error err = {{0}};
  fs_collective_data *d =
      read_text("# fennelprobe-collectives 1 ranks=4 nodes=2 cores=2 host=x date=y\n"
                "# a comment\n" HEADER "allreduce,,4,8,200,5123.0,5300.1,5350.25,20.5\n"
                "\n"
                "# another comment\n"
                "bcast,binomial,4,1000,10,5000,5100.001,5200,0\n"
                "allreduce,rm:a4,4,8,1,1,1,1,0\n"
                "barrier,barrier-nway:3,8,0,1,7.5,7.5,7.5,0\n",
                &err);
  ck_assert_msg(d != NULL, "%s", err.message);
  ck_assert_str_eq(d->source, "m.csv");
  ck_assert_int_eq(d->ranks, 4);
  ck_assert_int_eq(d->nodes, 2);
  ck_assert_int_eq(d->cores, 2);
  ck_assert_int_eq(d->count, 4);
  const fs_collective_row *r = &d->rows[0];
  ck_assert_int_eq(r->collective, FS_COLLECTIVE_ALLREDUCE);
  ck_assert_ptr_null(r->algorithm.generator);
  ck_assert_int_eq(r->ranks, 4);
  ck_assert_int_eq(r->bytes, 8);
  ck_assert_int_eq(r->repetitions, 200);
  ck_assert_int_eq(r->min, 5123000);
  ck_assert_int_eq(r->median, 5300100);
  ck_assert_int_eq(r->mean, 5350250);
  ck_assert_int_eq(r->ci95, 20500);
  ck_assert_int_eq(r->line, 4);
  r = &d->rows[1];
  ck_assert_int_eq(r->collective, FS_COLLECTIVE_BCAST);
  ck_assert_str_eq(r->algorithm.generator->name, "bcast-binomial");
  ck_assert_str_eq(r->algorithm.name, "bcast-binomial");
  ck_assert_int_eq(r->median, 5100001);
  ck_assert_int_eq(r->line, 7);
  ck_assert_str_eq(d->rows[2].algorithm.name, "allreduce-rm:a4");
  ck_assert_str_eq(d->rows[2].algorithm.schedule, "a4");
  ck_assert_str_eq(d->rows[3].algorithm.name, "barrier-nway:3");
  ck_assert_int_eq(d->rows[3].algorithm.ways, 3);
  ck_assert_int_eq(d->rows[3].min, 7500);
  fs_collective_data_free(d);
  /* without the first line: nothing known about the machine */
  d = read_text(HEADER "gather,,2,1,1,1,1,1,0", &err);
  ck_assert_msg(d != NULL, "%s", err.message);
  ck_assert_int_eq(d->ranks + d->nodes + d->cores, 0);
  ck_assert_int_eq(d->rows[0].collective, FS_COLLECTIVE_GATHER);
  fs_collective_data_free(d);
}
END_TEST

START_TEST(read_errors) {
  read_fails("", "m.csv: expected the header '" COLUMNS "', got end of file");
}
END_TEST

START_TEST(read_header_errors) {
  read_fails("# fennelprobe-collectives 2 ranks=4\n" HEADER,
             "m.csv:1:27: expected version 1 of the collectives CSV, got '2'");
  read_fails("# fennelprobe-collectives\n" HEADER,
             "m.csv:1:26: expected version 1 of the collectives CSV, got end of line");
  read_fails("# fennelprobe-collectives 1 nodes=0\n" HEADER,
             "m.csv:1:35: expected nodes= a whole number from 1 to 1048576, got '0'");
  read_fails("# fennelprobe-collectives 1 cores=x\n" HEADER,
             "m.csv:1:35: expected cores= a whole number from 1 to 1048576, got 'x'");
  read_fails("collective,algorithm,ranks\nbcast,,2",
             "m.csv:1:27: expected the header '" COLUMNS "', got nothing");
  read_fails("experiment,placement,bytes\n", "m.csv:1:1: expected the header '" COLUMNS
                                             "', got 'experiment,placement,bytes' (this is "
                                             "point-to-point data, for fennelsim fit)");
  read_fails("# only comments\n", "m.csv: expected the header '" COLUMNS "', got end of file");
  read_fails(HEADER "# no rows\n", "m.csv: no measurements (expected rows after the header)");
}
END_TEST

START_TEST(read_row_errors) {
  read_fails(HEADER "bcst,,4,8,1,1,1,1,0\n",
             "m.csv:2:1: expected a collective (barrier, bcast, reduce, allreduce, gather, "
             "scatter, allgather, alltoall), got 'bcst'");
  read_fails(HEADER "bcast,rd,4,8,1,1,1,1,0\n",
             "m.csv:2:7: unknown algorithm 'rd' for bcast (expected one of the bcast-* generators "
             "of fennelsim gen --list, with or without 'bcast-')");
  read_fails(HEADER "allreduce,rm:,4,8,1,1,1,1,0\n",
             "m.csv:2:11: rm:: expected an option after ':'");
  read_fails(HEADER "bcast,binomial:3,4,8,1,1,1,1,0\n",
             "m.csv:2:7: binomial:3: bcast-binomial takes no option");
  read_fails(HEADER "barrier,nway:x,4,8,1,1,1,1,0\n",
             "m.csv:2:9: nway:x: expected a number of ways (1 or more) after ':'");
  read_fails(HEADER "bcast,chain:0B,4,8,1,1,1,1,0\n",
             "m.csv:2:7: chain:0B: expected a segment size (8KiB) after ':'");
  read_fails(HEADER "bcast,,0,8,1,1,1,1,0\n",
             "m.csv:2:8: expected ranks: a whole number from 1 to 1048576, got '0'");
  read_fails(HEADER "bcast,,4,8B,1,1,1,1,0\n",
             "m.csv:2:10: expected bytes: a whole number from 0 to 1099511627776, got '8B'");
  read_fails(HEADER "bcast,,4,8,0,1,1,1,0\n",
             "m.csv:2:12: expected repetitions: a whole number from 1, got '0'");
  read_fails(HEADER "bcast,,4,8,1,1.2345,1,1,0\n",
             "m.csv:2:14: expected min_ns: nanoseconds with at most 3 decimals (e.g. 1234.567), "
             "got '1.2345'");
  read_fails(HEADER "bcast,,4,8,1,0.000,1,1,0\n",
             "m.csv:2:14: expected min_ns above 0 (errors are relative to it), got '0.000'");
  read_fails(HEADER "bcast,,4,8,1,2,1,2,0\n", "m.csv:2:16: expected median_ns >= min_ns, got '1'");
  read_fails(HEADER "bcast,,4,8,1,2,2,1.999,0\n",
             "m.csv:2:18: expected mean_ns >= min_ns, got '1.999'");
  read_fails(HEADER "bcast,,4,8,1,2,2,2,-1\n",
             "m.csv:2:20: expected ci95_ns: nanoseconds with at most 3 decimals (e.g. 1234.567), "
             "got '-1'");
  read_fails(HEADER "bcast,,4,8,1,2,2,2\n",
             "m.csv:2:19: expected ',' and ci95_ns (the header has 9 columns), got end of line");
  read_fails(HEADER "bcast,,4,8,1,2,2,2,0,7\n",
             "m.csv:2:21: expected end of line (the header has 9 columns), got ',7'");
  read_fails(HEADER "bcast\n",
             "m.csv:2:6: expected ',' and algorithm (the header has 9 columns), got end of line");
}
END_TEST

START_TEST(read_missing_file) {
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_collective_data_read("/nonexistent/coll.csv", &err));
  ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/coll.csv"));
}
END_TEST

/* ---- --algo -------------------------------------------------------------------- */

START_TEST(algorithm_lists) {
  fs_validate_algorithms a = {0};
  fs_error err = {{0}};
  ck_assert_int_eq(fs_validate_algorithms_add(&a, "allreduce=rd,allreduce-ring,bcast=binomial",
                                              &err),
                   0);
  ck_assert_int_eq(a.count[FS_COLLECTIVE_ALLREDUCE], 2);
  ck_assert_str_eq(a.items[FS_COLLECTIVE_ALLREDUCE][0].name, "allreduce-rd");
  ck_assert_str_eq(a.items[FS_COLLECTIVE_ALLREDUCE][1].name, "allreduce-ring");
  ck_assert_int_eq(a.count[FS_COLLECTIVE_BCAST], 1);
  ck_assert_str_eq(a.items[FS_COLLECTIVE_BCAST][0].name, "bcast-binomial");
  /* rm's schedule keeps its commas; a repeated --algo appends; rm alone is auto */
  ck_assert_int_eq(fs_validate_algorithms_add(&a, "allreduce=rm:a2,a2,recdoub,rm", &err), 0);
  ck_assert_int_eq(a.count[FS_COLLECTIVE_ALLREDUCE], 5);
  ck_assert_str_eq(a.items[FS_COLLECTIVE_ALLREDUCE][2].name, "allreduce-rm:a2,a2");
  ck_assert_str_eq(a.items[FS_COLLECTIVE_ALLREDUCE][2].schedule, "a2,a2");
  ck_assert_str_eq(a.items[FS_COLLECTIVE_ALLREDUCE][3].name, "allreduce-recdoub");
  ck_assert_str_eq(a.items[FS_COLLECTIVE_ALLREDUCE][4].name, "allreduce-rm:auto");
  ck_assert_int_eq(fs_validate_algorithms_add(&a, "bcast=chain:64KiB,barrier=nway:4", &err), 0);
  ck_assert_int_eq(a.items[FS_COLLECTIVE_BCAST][1].segment, 65536);
  ck_assert_str_eq(a.items[FS_COLLECTIVE_BCAST][1].name, "bcast-chain:64KiB");
  ck_assert_int_eq(a.items[FS_COLLECTIVE_BARRIER][0].ways, 4);
}
END_TEST

static void algo_fails(const char *text, const char *message) {
  fs_validate_algorithms a = {0};
  fs_error err = {{0}};
  ck_assert_int_eq(fs_validate_algorithms_add(&a, text, &err), -1);
  ck_assert_str_eq(err.message, message);
}

START_TEST(algorithm_list_errors) {
  algo_fails("rd", "--algo rd: expected COLLECTIVE=ALGORITHM[,ALGORITHM...]");
  algo_fails("allreduc=rd",
             "--algo: unknown collective 'allreduc' (expected one of barrier, bcast, reduce, "
             "allreduce, gather, scatter, allgather, alltoall)");
  algo_fails("allreduce=rd,,ring", "--algo: empty item (two commas, or one at an end)");
  algo_fails("allreduce=rd,", "--algo: empty item (two commas, or one at an end)");
  algo_fails("allreduce=binomial",
             "--algo: unknown algorithm 'binomial' for allreduce (expected one of the allreduce-* "
             "generators of fennelsim gen --list, with or without 'allreduce-')");
  algo_fails("allreduce=ring,fan:2", "--algo: fan:2: allreduce-fan takes no option");
  char many[1024] = "allreduce=rd";
  for (int i = 0; i < FS_VALIDATE_MAX_CHOICES; i++) strcat(many, ",rd");
  algo_fails(many, "--algo: at most 32 algorithms per collective");
}
END_TEST

/* ---- arithmetic ------------------------------------------------------------- */

/* error = (p - m) / m; mu = max / min. 5000 measured, 4000 predicted:
 * -1000/5000 = -0.2, 5000/4000 = 1.25; 4000 measured, 5000 predicted:
 * +0.25 and 1.25 again (mu is symmetric, the error is not). */
START_TEST(error_and_mu) {
  ck_assert_double_eq(fs_validate_error(5000, 4000), -0.2);
  ck_assert_double_eq(fs_validate_mu(5000, 4000), 1.25);
  ck_assert_double_eq(fs_validate_error(4000, 5000), 0.25);
  ck_assert_double_eq(fs_validate_mu(4000, 5000), 1.25);
  ck_assert_double_eq(fs_validate_error(3000, 3000), 0);
  ck_assert_double_eq(fs_validate_mu(3000, 3000), 1);
  ck_assert_double_eq(fs_validate_error(3000, 0), -1);
  ck_assert(isinf(fs_validate_mu(3000, 0)));
  ck_assert_double_eq(fs_validate_error(8000 * NS, 4000 * NS), -0.5);
  ck_assert_double_eq(fs_validate_mu(8000 * NS, 4000 * NS), 2);
}
END_TEST

/* ---- predictions -------------------------------------------------------------- */

typedef struct validation_run {
  fs_collective_data *data;
  fs_validation v;
  fs_network_model network;
  fs_compute_model compute;
  fs_platform_parameters platform;
  fs_validate_algorithms algorithms;
  fs_error err;
  int status;
} validation_run;

/* Validates csv under model with params ("k=v ..."; nodes=/cores= give the
 * generators' platform too) and --algo text (or NULL). */
static void validate(validation_run *r, const char *csv, const char *model, const char *params,
                     const char *algo, int use_median) {
  char text[512];
  fs_parameter items[16];
  fs_parameters parameters;
  memset(r, 0, sizeof *r);
  r->data = read_text(csv, &r->err);
  ck_assert_msg(r->data != NULL, "%s", r->err.message);
  snprintf(text, sizeof text, "%s", params);
  ck_assert_int_eq(fs_test_parameters(text, items, &parameters), 0);
  ck_assert_msg(fs_network_model_create(model, &parameters, &r->network, &r->err) == 0, "%s",
                r->err.message);
  ck_assert_msg(fs_compute_model_create("fixed", &parameters, &r->compute, &r->err) == 0, "%s",
                r->err.message);
  int has_platform = strstr(params, "nodes=") != NULL;
  ck_assert_int_eq(fs_platform_parameters_read(&parameters, &r->platform, &r->err), 0);
  ck_assert_msg(fs_parameters_check_used(&parameters, &r->err) == 0, "%s", r->err.message);
  if (algo) ck_assert_int_eq(fs_validate_algorithms_add(&r->algorithms, algo, &r->err), 0);
  fs_validate_setup setup = {.network = &r->network,
                             .compute = &r->compute,
                             .platform = has_platform ? &r->platform : NULL,
                             .algorithms = &r->algorithms,
                             .use_median = use_median};
  r->status = fs_validate(r->data, &setup, &r->v, &r->err);
}

static void validation_free(validation_run *r) {
  fs_validation_free(&r->v);
  fs_collective_data_free(r->data);
  fs_network_model_destroy(&r->network);
  fs_compute_model_destroy(&r->compute);
}

static const fs_validate_entry *entry_of(const validation_run *r, int64_t row,
                                         const char *algorithm) {
  for (int64_t i = 0; i < r->v.entry_count; i++)
    if (r->v.entries[i].row == row && strcmp(r->v.entries[i].algorithm, algorithm) == 0)
      return &r->v.entries[i];
  ck_abort_msg("no entry for row %lld, %s", (long long)row, algorithm);
  return NULL;
}

#define HOCKNEY "alpha=1us beta=1ns"

/* Under hockney alpha 1 us, beta 1 ns/B a two-sided message of m bytes
 * keeps its sender until it lands, 1000 + m ns later, and costs the
 * receiver nothing; a put costs the same.
 *   bcast-binomial, 4 ranks, 1000 B: 0 sends to 2 (2 us), then to 1 while
 *     2 sends to 3: 2 rounds x 2 us = 4000 ns.
 *   bcast-linear: 0 sends to 1, 2, 3 in turn: 3 x 2 us = 6000 ns.
 *   allreduce-ring, 4 ranks, 8 B: 2(N-1) = 6 steps of 8/4 = 2 B: 6 x 1002 = 6012 ns.
 *   allreduce-recdoub, 8 B: halving 4 B, 2 B, doubling 2 B, 4 B:
 *     1004 + 1002 + 1002 + 1004 = 4012 ns.
 *   allreduce-rd (puts), 8 B: log2 4 = 2 rounds of 1008 = 2016 ns.
 *   barrier-dissemination, 6 ranks: ceil(log2 6) = 3 rounds of 1 us = 3000 ns.
 *   barrier-linear, 6 ranks: 5 messages land on 0 at 1 us, 0 answers the
 *     5 in turn: 1000 + 5 x 1000 = 6000 ns. */
START_TEST(hockney_predictions) {
  validation_run r;
  validate(&r,
           HEADER "bcast,binomial,4,1000,10,5000,5100,5200,0\n"
                  "bcast,linear,4,1000,10,5000,5100,5200,0\n"
                  "allreduce,ring,4,8,1,6012,6012,6012,0\n"
                  "allreduce,recdoub,4,8,1,5015,8024,8024,0\n"
                  "allreduce,rd,4,8,1,1008,1008,1008,0\n"
                  "barrier,dissemination,6,0,1,3000,3000,3000,0\n"
                  "barrier,linear,6,0,1,3000,3000,3000,0\n",
           "hockney", HOCKNEY, NULL, 0);
  ck_assert_msg(r.status == FS_VALIDATE_OK, "%s", r.err.message);
  ck_assert_int_eq(r.v.entry_count, 7);
  const fs_time expected[] = {4000 * NS, 6000 * NS, 6012 * NS, 4012 * NS,
                              2016 * NS, 3000 * NS, 6000 * NS};
  for (int64_t i = 0; i < 7; i++) {
    const fs_validate_entry *e = &r.v.entries[i];
    ck_assert_int_eq(e->row, i);
    ck_assert_int_eq(e->predicted, expected[i]);
    ck_assert_int_eq(e->measured, r.data->rows[i].min);
    ck_assert(e->named);
    ck_assert(!e->best); /* named rows have no best match */
  }
  /* bcast-binomial: (4000 - 5000)/5000 = -0.2, mu 1.25; bcast-linear +0.2, 1.2;
   * ring exact: 0 and 1; recdoub (4012 - 5015)/5015 = -0.2, mu 1.25;
   * rd: +1 (twice the measured), mu 2; barrier-linear +1, mu 2. */
  ck_assert_str_eq(r.v.entries[0].algorithm, "bcast-binomial");
  ck_assert_double_eq(r.v.entries[0].error, -0.2);
  ck_assert_double_eq(r.v.entries[0].mu, 1.25);
  ck_assert_double_eq(r.v.entries[1].error, 0.2);
  ck_assert_double_eq(r.v.entries[1].mu, 1.2);
  ck_assert_double_eq(r.v.entries[2].error, 0);
  ck_assert_double_eq(r.v.entries[2].mu, 1);
  ck_assert_double_eq(r.v.entries[3].error, -0.2);
  ck_assert_double_eq(r.v.entries[3].mu, 1.25);
  ck_assert_double_eq(r.v.entries[4].error, 1);
  ck_assert_double_eq(r.v.entries[4].mu, 2);
  ck_assert_double_eq(r.v.entries[6].error, 1);
  ck_assert_int_eq(r.v.skip_count, 0);
  ck_assert_int_eq(r.v.unpredicted, 0);
  validation_free(&r);
  /* --median: recdoub against 8024: (4012 - 8024)/8024 = -0.5, mu 2 */
  validate(&r, HEADER "allreduce,recdoub,4,8,1,5015,8024,8024,0\n", "hockney", HOCKNEY, NULL, 1);
  ck_assert_int_eq(r.status, FS_VALIDATE_OK);
  ck_assert_int_eq(r.v.entries[0].measured, 8024 * NS);
  ck_assert_double_eq(r.v.entries[0].error, -0.5);
  ck_assert_double_eq(r.v.entries[0].mu, 2);
  validation_free(&r);
}
END_TEST

/* Rows naming no algorithm: the --algo list, the closest one marked.
 * bcast 4 ranks 1000 B measured 4500: linear 6000 is +1/3, binomial 4000
 * is -1/9: binomial is the best match. Measured 5000: +0.2 and -0.2, a tie,
 * won by the first listed (linear). Summaries per algorithm: binomial over
 * the two rows: |-1/9| and |-0.2|, mean 0.155..., max 0.2, max mu 1.25. */
START_TEST(best_match_and_summary) {
  validation_run r;
  validate(&r,
           HEADER "bcast,,4,1000,1,4500,4500,4500,0\n"
                  "bcast,,4,1000,1,5000,5000,5000,0\n",
           "hockney", HOCKNEY, "bcast=linear,binomial", 0);
  ck_assert_msg(r.status == FS_VALIDATE_OK, "%s", r.err.message);
  ck_assert_int_eq(r.v.entry_count, 4);
  const fs_validate_entry *linear = entry_of(&r, 0, "bcast-linear");
  const fs_validate_entry *binomial = entry_of(&r, 0, "bcast-binomial");
  ck_assert_int_eq(linear->predicted, 6000 * NS);
  ck_assert_int_eq(binomial->predicted, 4000 * NS);
  ck_assert_double_eq_tol(linear->error, 1.0 / 3, 1e-15);
  ck_assert_double_eq_tol(binomial->error, -1.0 / 9, 1e-15);
  ck_assert(!linear->best && binomial->best && !binomial->named);
  ck_assert(entry_of(&r, 1, "bcast-linear")->best);
  ck_assert(!entry_of(&r, 1, "bcast-binomial")->best);
  ck_assert_int_eq(r.v.summary_count, 2);
  const fs_validate_summary *s = &r.v.summaries[1];
  ck_assert_str_eq(s->algorithm, "bcast-binomial");
  ck_assert_int_eq(s->collective, FS_COLLECTIVE_BCAST);
  ck_assert_int_eq(s->rows, 2);
  ck_assert_int_eq(s->best, 1);
  ck_assert_double_eq_tol(s->mean_abs_error, (1.0 / 9 + 0.2) / 2, 1e-15);
  ck_assert_double_eq(s->max_abs_error, 0.2);
  ck_assert_double_eq(s->max_mu, 1.25);
  s = &r.v.summaries[0];
  ck_assert_str_eq(s->algorithm, "bcast-linear");
  ck_assert_int_eq(s->best, 1);
  ck_assert_double_eq_tol(s->max_abs_error, 1.0 / 3, 1e-15);
  ck_assert_double_eq_tol(s->max_mu, 6.0 / 4.5, 1e-15);
  validation_free(&r);
}
END_TEST

/* Without --algo every generator of the collective is a candidate but
 * schedgen's reference patterns (allreduce-recdoub,
 * barrier-dissemination-schedgen: not correct collectives); those that
 * reject the row are skipped, once each with their first reason (here
 * none: every other allreduce takes 6 ranks).
 * allreduce, 6 ranks, 12 B: ring takes 10 steps of 2 B, 10 x 1002 = 10020 ns. */
START_TEST(every_generator_and_skips) {
  validation_run r;
  validate(&r,
           HEADER "allreduce,,6,12,1,10020,10020,10020,0\n"
                  "allreduce,,6,12,1,10020,10020,10020,0\n"
                  "barrier,,4,0,1,2000,2000,2000,0\n",
           "hockney", HOCKNEY, NULL, 0);
  ck_assert_msg(r.status == FS_VALIDATE_OK, "%s", r.err.message);
  const fs_validate_entry *ring = entry_of(&r, 0, "allreduce-ring");
  ck_assert_int_eq(ring->predicted, 10020 * NS);
  ck_assert(ring->best); /* exact */
  ck_assert_ptr_nonnull(entry_of(&r, 0, "allreduce-rm:auto"));
  for (int64_t i = 0; i < r.v.entry_count; i++) {
    ck_assert_str_ne(r.v.entries[i].algorithm, "allreduce-recdoub");
    ck_assert_str_ne(r.v.entries[i].algorithm, "barrier-dissemination-schedgen");
  }
  ck_assert_ptr_nonnull(entry_of(&r, 2, "barrier-linear"));
  ck_assert_int_eq(r.v.skip_count, 0);
  validation_free(&r);
  /* a list none of whose algorithms applies: the row stays unpredicted */
  validate(&r, HEADER "allreduce,,6,12,1,1,1,1,0\n", "hockney", HOCKNEY, "allreduce=recdoub", 0);
  ck_assert_int_eq(r.status, FS_VALIDATE_OK);
  ck_assert_int_eq(r.v.entry_count, 0);
  ck_assert_int_eq(r.v.unpredicted, 1);
  ck_assert_int_eq(r.v.skip_count, 1);
  validation_free(&r);
}
END_TEST

/* The platform reaches SMP-aware generators: allreduce-smp on 2 nodes x 2
 * cores (seq), 8 B: reduce to the node leader, exchange between the two
 * leaders, broadcast in the node: 3 puts of 1008 ns = 3024 ns. Without a
 * platform each rank is its own node: recursive doubling, 2 x 1008. */
START_TEST(platform_reaches_generators) {
  validation_run r;
  validate(&r, HEADER "allreduce,smp,4,8,1,3024,3024,3024,0\n", "hockney",
           HOCKNEY " nodes=2 cores=2", NULL, 0);
  ck_assert_msg(r.status == FS_VALIDATE_OK, "%s", r.err.message);
  ck_assert_int_eq(r.v.entries[0].predicted, 3024 * NS);
  validation_free(&r);
  validate(&r, HEADER "allreduce,smp,4,8,1,3024,3024,3024,0\n", "hockney", HOCKNEY, NULL, 0);
  ck_assert_int_eq(r.v.entries[0].predicted, 2016 * NS);
  validation_free(&r);
}
END_TEST

START_TEST(prediction_errors) {
  validation_run r;
  /* a row's own algorithm rejecting it is bad input */
  validate(&r, HEADER "allreduce,recdoub,6,8,1,1,1,1,0\n", "hockney", HOCKNEY, NULL, 0);
  ck_assert_int_eq(r.status, FS_VALIDATE_BAD_INPUT);
  ck_assert_str_eq(r.err.message,
                   "m.csv:2: allreduce-recdoub on 6 ranks, 8 B: allreduce-recdoub "
                   "needs a power of 2 --ranks (as schedgen's allreduce_recdoub), not 6");
  validation_free(&r);
  /* a platform that cannot hold the row's ranks */
  validate(&r, HEADER "bcast,smp,4,8,1,1,1,1,0\n", "hockney", HOCKNEY " nodes=1 cores=2", NULL, 0);
  ck_assert_int_eq(r.status, FS_VALIDATE_BAD_INPUT);
  ck_assert_msg(strncmp(r.err.message, "m.csv:2: bcast-smp on 4 ranks, 8 B: ", 36) == 0, "%s",
                r.err.message);
  validation_free(&r);
  /* a model that rejects the schedule: a parameter file for 2 ranks */
  char *pairs = fs_test_temp_path(".pairs");
  ck_assert_int_eq(fs_test_write_file(pairs, "ranks 2\nlink 0 1 alpha=1us beta=1ns\n", 0), 0);
  char params[300];
  snprintf(params, sizeof params, "file=%s", pairs);
  validate(&r, HEADER "bcast,linear,3,8,1,1,1,1,0\n", "hetero-hockney", params, NULL, 0);
  ck_assert_int_eq(r.status, FS_VALIDATE_BAD_INPUT);
  ck_assert_msg(strncmp(r.err.message, "m.csv:2: bcast-linear: ", 23) == 0 &&
                    strstr(r.err.message,
                           "the parameter file describes 2 ranks, the program has 3"),
                "%s", r.err.message);
  validation_free(&r);
  remove(pairs);
  free(pairs);
}
END_TEST

/* ---- the command ------------------------------------------------------------- */

static char *out, *err;

static char *write_csv(const char *text) {
  char *path = fs_test_temp_path(".csv");
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

#define MEASURED                                                        \
  "# fennelprobe-collectives 1 ranks=4 nodes=2 cores=2 host=h\n" HEADER \
  "bcast,binomial,4,1000,10,5000,5100,5200,10\n"                        \
  "allreduce,,4,8,200,3024,3100,3200,20\n"

START_TEST(command_text) {
  char *csv = write_csv(MEASURED);
  ck_assert_int_eq(fennelsim("validate %s --model hockney --param alpha=1us --param beta=1ns "
                             "--algo allreduce=rd,smp",
                             csv),
                   0);
  fs_test_contains(out, "model      hockney {\"alpha_ns\": 1000, \"beta_ns_per_byte\": 1}\n");
  fs_test_contains(out, "measured minima\n");
  fs_test_contains(out, "platform   2 nodes x 2 cores, seq (from ");
  /* the header's platform reaches allreduce-smp: 3024 ns, exact */
  fs_test_contains(out,
                   "bcast           4         1000  bcast-binomial                           5000"
                   "           4000   -20.00%   1.2500\n");
  fs_test_contains(out,
                   "allreduce       4            8  allreduce-rd                             3024"
                   "           2016   -33.33%   1.5000\n");
  fs_test_contains(out,
                   "allreduce       4            8  allreduce-smp                            3024"
                   "           3024    +0.00%   1.0000  best\n");
  fs_test_contains(out, "bcast      bcast-binomial                      1      0          20.00%"
                        "         20.00%   1.2500\n");
  fs_test_contains(out,
                   "best match (rows naming no algorithm):\n"
                   "  allreduce, 4 ranks, 8 B (line 4): allreduce-smp, error +0.00%, mu 1.0000\n");
  /* --median, and the platform given: 1 node of 4 cores makes smp a node-local tree */
  ck_assert_int_eq(fennelsim("validate %s --model hockney --param alpha=1us --param beta=1ns "
                             "--algo allreduce=rd --median --nodes 1 --cores 4",
                             csv),
                   0);
  fs_test_contains(out, "measured medians\n");
  fs_test_contains(out, "platform   1 nodes x 4 cores, seq\n");
  fs_test_contains(out, "bcast-binomial                           5100           4000   -21.57%");
  ck_assert_ptr_null(strstr(out, "allreduce-smp"));
  ck_assert_int_eq(fennelsim("validate --help"), 0);
  ck_assert_int_eq(strncmp(out, "usage: fennelsim validate MEASURED.csv --model M", 47), 0);
  remove(csv);
  free(csv);
}
END_TEST

START_TEST(command_json_and_table) {
  char *csv = write_csv(MEASURED "barrier,,6,0,1,3000,3000,3000,0\n");
  char *table = fs_test_temp_path(".csv");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --param alpha=1us --param beta=1ns "
                             "--algo allreduce=rd --algo barrier=dissemination,recdoub "
                             "--format json -o %s",
                             csv, table),
                   2);
  fs_test_contains(err, "fennelsim validate: --algo: unknown algorithm 'recdoub' for barrier");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --param alpha=1us --param beta=1ns "
                             "--algo allreduce=rd --algo barrier=dissemination,linear "
                             "--format json -o %s",
                             csv, table),
                   0);
  fs_test_contains(out,
                   "\"rows\": 3, \"measured\": \"min\", \"model\": \"hockney\", "
                   "\"model_parameters\": "
                   "{\"alpha_ns\": 1000, \"beta_ns_per_byte\": 1}, \"compute_model\": \"fixed\"");
  /* 6 ranks do not fit the header's 2 x 2: no platform */
  fs_test_contains(out, "\"platform\": null");
  fs_test_contains(out,
                   "{\"collective\": \"bcast\", \"ranks\": 4, \"bytes\": 1000, \"line\": 3, "
                   "\"algorithm\": \"bcast-binomial\", \"named\": true, \"measured_ns\": 5000, "
                   "\"predicted_ns\": 4000, \"error\": -0.2, \"mu\": 1.25, \"best\": false}");
  fs_test_contains(out,
                   "{\"collective\": \"barrier\", \"ranks\": 6, \"bytes\": 0, \"line\": 5, "
                   "\"algorithm\": \"barrier-linear\", \"named\": false, \"measured_ns\": 3000, "
                   "\"predicted_ns\": 6000, \"error\": 1, \"mu\": 2, \"best\": false}");
  fs_test_contains(out,
                   "\"summary\": [{\"collective\": \"bcast\", \"algorithm\": \"bcast-binomial\", "
                   "\"rows\": 1, \"best\": 0, \"mean_abs_error\": 0.2, \"max_abs_error\": 0.2, "
                   "\"max_mu\": 1.25}");
  fs_test_contains(out, "\"best_match\": [{\"collective\": \"allreduce\"");
  fs_test_contains(out,
                   "\"algorithm\": \"barrier-dissemination\", \"named\": false, \"measured_ns\": "
                   "3000, \"predicted_ns\": 3000, \"error\": 0, \"mu\": 1, \"best\": true}]");
  fs_test_contains(out, "\"skipped\": [], \"unpredicted\": 0}\n");
  char *written = fs_test_read_file(table, NULL);
  ck_assert_str_eq(written,
                   "collective,ranks,bytes,algorithm,named,measured_ns,predicted_ns,error,mu,best\n"
                   "bcast,4,1000,bcast-binomial,1,5000,4000,-0.2,1.25,0\n"
                   "allreduce,4,8,allreduce-rd,0,3024,2016,-0.333333,1.5,1\n"
                   "barrier,6,0,barrier-dissemination,0,3000,3000,0,1,1\n"
                   "barrier,6,0,barrier-linear,0,3000,6000,1,2,0\n");
  free(written);
  remove(table);
  free(table);
  remove(csv);
  free(csv);
}
END_TEST

START_TEST(command_skips_and_errors) {
  char *csv = write_csv(HEADER "allreduce,,6,12,1,10020,10020,10020,0\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --param alpha=1us --param beta=1ns "
                             "--algo allreduce=recdoub,ring",
                             csv),
                   0);
  fs_test_contains(out,
                   "allreduce       6           12  allreduce-ring                          10020"
                   "          10020    +0.00%   1.0000  best\n");
  fs_test_contains(out,
                   "skipped (the algorithm does not apply):\n  allreduce-recdoub: 1 row, the first "
                   "on line 2: allreduce-recdoub needs a power of 2 --ranks");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --algo allreduce=recdoub", csv), 2);
  ck_assert_str_eq(err, "fennelsim validate: no row could be predicted: allreduce-recdoub needs a "
                        "power of 2 --ranks (as schedgen's allreduce_recdoub), not 6 (line 2)\n");
  ck_assert_int_eq(fennelsim("validate %s", csv), 2);
  ck_assert_str_eq(err, "fennelsim validate: --model is required (the model to validate)\n");
  ck_assert_int_eq(fennelsim("validate --model hockney"), 2);
  ck_assert_str_eq(err,
                   "fennelsim validate: no measurements given (see fennelsim validate --help)\n");
  ck_assert_int_eq(fennelsim("validate %s %s --model hockney", csv, csv), 2);
  fs_test_contains(err, "fennelsim validate: one measurements file at a time (got ");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --format xml", csv), 2);
  ck_assert_str_eq(err, "fennelsim validate: --format xml: expected text or json\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --frobnicate", csv), 2);
  ck_assert_str_eq(err, "fennelsim validate: unknown option --frobnicate (see fennelsim validate "
                        "--help)\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --nodes 2", csv), 2);
  ck_assert_str_eq(err, "fennelsim validate: --nodes and --cores go together\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --mapping rr", csv), 2);
  ck_assert_str_eq(err, "fennelsim validate: --mapping needs --nodes and --cores\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --platform p.xml --nodes 2 --cores 3",
                             csv),
                   2);
  ck_assert_str_eq(err, "fennelsim validate: --platform replaces --nodes, --cores and --mapping: "
                        "give one or the other\n");
  ck_assert_int_eq(fennelsim("validate %s --model nosuch", csv), 2);
  fs_test_contains(err, "fennelsim validate: unknown network model 'nosuch'");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --param gamma=1", csv), 2);
  ck_assert_str_eq(err, "fennelsim validate: --param gamma: no parameter of that name: hockney "
                        "takes alpha, beta; fixed takes compute_time\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --param alpha=fast", csv), 2);
  ck_assert_str_eq(err, "fennelsim validate: --param alpha=fast: expected a non-negative time "
                        "with a unit (ps, ns, us, ms, s)\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --algo rd", csv), 2);
  ck_assert_str_eq(err,
                   "fennelsim validate: --algo rd: expected COLLECTIVE=ALGORITHM[,ALGORITHM...]\n");
  ck_assert_int_eq(fennelsim("validate /nonexistent/m.csv --model hockney"), 2);
  fs_test_contains(err, "/nonexistent/m.csv");
  /* a prediction of 0 (a barrier of one rank): error -100%, mu inf (null in JSON) */
  char *one = write_csv(HEADER "barrier,linear,1,0,1,50,50,50,0\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney", one), 0);
  fs_test_contains(out, "barrier-linear                             50              0  -100.00%    "
                        "  inf\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --format json", one), 0);
  fs_test_contains(out, "\"predicted_ns\": 0, \"error\": -1, \"mu\": null");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --format json -o -", one), 0);
  fs_test_contains(out, "\"unpredicted\": 0}\ncollective,ranks,bytes,algorithm,named,measured_ns,"
                        "predicted_ns,error,mu,best\nbarrier,1,0,barrier-linear,1,50,0,-1,inf,0\n");
  remove(one);
  free(one);
  char *bad = write_csv(HEADER "allreduce,,6,12,1,10020,10020\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney", bad), 2);
  ck_assert_msg(strstr(err, ":2:30: expected ',' and mean_ns (the header has 9 columns), got end "
                            "of line\n"),
                "%s", err);
  ck_assert_int_eq(fennelsim("validate %s --model hockney -o /nonexistent/dir/t.csv", csv), 1);
  fs_test_contains(err, "fennelsim validate: /nonexistent/dir/t.csv");
  ck_assert_str_eq(out, ""); /* the table's path is tried before any prediction */
  remove(bad);
  free(bad);
  remove(csv);
  free(csv);
  free(out);
  free(err);
  out = err = NULL;
}
END_TEST

static Suite *validate_suite(void) {
  Suite *s = suite_create("validate");
  TCase *reading = tcase_create("reading");
  tcase_add_test(reading, read_good_file);
  tcase_add_test(reading, read_errors);
  tcase_add_test(reading, read_header_errors);
  tcase_add_test(reading, read_row_errors);
  tcase_add_test(reading, read_missing_file);
  tcase_add_test(reading, algorithm_lists);
  tcase_add_test(reading, algorithm_list_errors);
  suite_add_tcase(s, reading);
  TCase *predicting = tcase_create("predicting");
  tcase_add_test(predicting, error_and_mu);
  tcase_add_test(predicting, hockney_predictions);
  tcase_add_test(predicting, best_match_and_summary);
  tcase_add_test(predicting, every_generator_and_skips);
  tcase_add_test(predicting, platform_reaches_generators);
  tcase_add_test(predicting, prediction_errors);
  suite_add_tcase(s, predicting);
  TCase *command = tcase_create("command");
  tcase_add_test(command, command_text);
  tcase_add_test(command, command_json_and_table);
  tcase_add_test(command, command_skips_and_errors);
  suite_add_tcase(s, command);
  return s;
}

int main(void) { return fs_test_run(validate_suite()); }
