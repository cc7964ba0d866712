/* test_sweep.c: `fennelsim sweep` and the grid under it (study/sweep.h):
 * exact hockney makespans of small cells derived by hand, skipped cells
 * with the generator's reason, results independent of the thread count,
 * seeds' statistics equal to `run --seeds`'s, the lowest failing cell, and
 * the command line: the rows, the winner, the error cases (exit 2), and
 * --report nccl-tests' tables, exact to the character. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "generators/algorithm_spec.h"
#include "models/model_registry.h"
#include "noise/noise.h"
#include "study/statistics.h"
#include "study/sweep.h"
#include "test_support.h"

static char *out, *err;

/* hockney with alpha 1 us and beta 1 ns/B: a message of S bytes takes
 * 1000 + S ns, sender and receiver busy all of it. */
static fs_parameter hockney_items[2] = {{.key = "alpha", .value = "1us"},
                                        {.key = "beta", .value = "1ns"}};

static fs_sweep_model hockney_model(void) {
  fs_sweep_model m = {.network = "hockney", .compute = "fixed"};
  m.params = (fs_parameters){.items = hockney_items, .count = 2};
  snprintf(m.label, sizeof m.label, "hockney");
  return m;
}

static void spec(fs_algorithm_spec *s, const char *text) {
  fs_error e = {{0}};
  ck_assert_msg(fs_algorithm_spec_parse(s, text, &e) == 0, "%s", e.message);
}

/* ---- exact cells ----------------------------------------------------------- */

/* allreduce-rd: log2 P rounds, in each every rank exchanges the whole
 * vector with its partner (send and recv of S bytes at once under hockney:
 * 1000 + S ns; the reduce is a compute of time 0 under fixed). P = 4:
 * 2 (1000 + S); P = 8: 3 (1000 + S). S = 100 B: 2200 and 3300 ns; S = 1000 B:
 * 4000 and 6000 ns. bcast-linear: the root sends P - 1 messages one after
 * the other: (P - 1)(1000 + S): P = 4, S = 100: 3300 ns; P = 8: 7700 ns;
 * S = 1000: 6000 and 14000 ns. */
START_TEST(exact_hockney_cells) {
  fs_algorithm_spec algorithms[2];
  spec(&algorithms[0], "allreduce-rd");
  spec(&algorithms[1], "bcast-linear");
  const int32_t ranks[2] = {4, 8};
  const int64_t sizes[2] = {100, 1000};
  fs_sweep_model model = hockney_model();
  fs_sweep_grid g = {.algorithms = algorithms,
                     .algorithm_count = 2,
                     .ranks = ranks,
                     .rank_count = 2,
                     .sizes = sizes,
                     .size_count = 2,
                     .models = &model,
                     .model_count = 1,
                     .seeds = 1,
                     .threads = 2,
                     .check = 1};
  fs_sweep_results r;
  fs_error e = {{0}};
  ck_assert_msg(fs_sweep_run(&g, &r, &e) == 0, "%s", e.message);
  ck_assert_int_eq(r.count, 8);
  const fs_time expect[2][2][2] = {{{2200000, 4000000}, {3300000, 6000000}},
                                   {{3300000, 6000000}, {7700000, 14000000}}};
  for (int a = 0; a < 2; a++)
    for (int k = 0; k < 2; k++)
      for (int z = 0; z < 2; z++) {
        const fs_sweep_cell *c = &r.cells[fs_sweep_index(&g, a, k, z, 0, 0)];
        ck_assert_int_eq(c->status, FS_SWEEP_RUN);
        ck_assert_int_eq(c->algorithm, a);
        ck_assert_int_eq(c->ranks, k);
        ck_assert_int_eq(c->size, z);
        ck_assert_int_eq(c->makespan, expect[a][k][z]);
        ck_assert(c->stats[FS_STAT_MEDIAN] == (double)expect[a][k][z] / 1000.0);
        ck_assert(c->stats[FS_STAT_STDEV] == 0);
        ck_assert_int_gt(c->tasks, 0);
      }
  fs_sweep_results_free(&r);
}
END_TEST

/* A generator's refusal skips the cell with its words; the others run. */
START_TEST(skipped_cells) {
  fs_algorithm_spec algorithms[2];
  spec(&algorithms[0], "alltoall-pairwise-xor");
  spec(&algorithms[1], "allreduce-rm:factors=2,2");
  const int32_t ranks[2] = {4, 6};
  const int64_t sizes[1] = {8};
  fs_sweep_model model = hockney_model();
  fs_sweep_grid g = {.algorithms = algorithms,
                     .algorithm_count = 2,
                     .ranks = ranks,
                     .rank_count = 2,
                     .sizes = sizes,
                     .size_count = 1,
                     .models = &model,
                     .model_count = 1,
                     .seeds = 1,
                     .threads = 1};
  fs_sweep_results r;
  fs_error e = {{0}};
  ck_assert_msg(fs_sweep_run(&g, &r, &e) == 0, "%s", e.message);
  const fs_sweep_cell *run = &r.cells[fs_sweep_index(&g, 0, 0, 0, 0, 0)];
  const fs_sweep_cell *xor6 = &r.cells[fs_sweep_index(&g, 0, 1, 0, 0, 0)];
  const fs_sweep_cell *rm6 = &r.cells[fs_sweep_index(&g, 1, 1, 0, 0, 0)];
  ck_assert_int_eq(run->status, FS_SWEEP_RUN);
  ck_assert_int_eq(xor6->status, FS_SWEEP_SKIPPED);
  fs_test_contains(xor6->reason, "needs a power of 2");
  ck_assert_int_eq(rm6->status, FS_SWEEP_SKIPPED);
  fs_test_contains(rm6->reason, "multiply to 4, not --ranks 6");
  fs_sweep_results_free(&r);
}
END_TEST

/* Every field but wall is the same on 1 and 3 threads (jobs of unequal
 * sizes finish in other orders), with two models and two platforms. */
/* A selector's cell names the library's pick and costs what the pick
 * does. MPICH allreduce at 4 ranks: recursive doubling up to 8 B (2 rounds
 * of 1000 + 8 ns: 2016 ns), Rabenseifner above when the count (S / 8)
 * reaches pof2 = 4: at 64 B its cell equals allreduce-rabenseifner's. */
START_TEST(selectors_record_their_pick) {
  fs_algorithm_spec algorithms[2];
  spec(&algorithms[0], "allreduce-mpich");
  spec(&algorithms[1], "allreduce-rabenseifner");
  const int32_t ranks[1] = {4};
  const int64_t sizes[2] = {8, 64};
  fs_sweep_model model = hockney_model();
  fs_sweep_grid g = {.algorithms = algorithms,
                     .algorithm_count = 2,
                     .ranks = ranks,
                     .rank_count = 1,
                     .sizes = sizes,
                     .size_count = 2,
                     .models = &model,
                     .model_count = 1,
                     .seeds = 1,
                     .threads = 2};
  fs_sweep_results r;
  fs_error e = {{0}};
  ck_assert_msg(fs_sweep_run(&g, &r, &e) == 0, "%s", e.message);
  const fs_sweep_cell *small = &r.cells[fs_sweep_index(&g, 0, 0, 0, 0, 0)];
  const fs_sweep_cell *large = &r.cells[fs_sweep_index(&g, 0, 0, 1, 0, 0)];
  const fs_sweep_cell *direct = &r.cells[fs_sweep_index(&g, 1, 0, 1, 0, 0)];
  ck_assert_str_eq(small->picked, "allreduce-rd");
  ck_assert_int_eq(small->makespan, 2016 * FS_NS);
  ck_assert_str_eq(large->picked, "allreduce-rabenseifner");
  ck_assert_int_eq(large->makespan, direct->makespan);
  ck_assert_int_eq(large->tasks, direct->tasks);
  ck_assert_str_eq(direct->picked, ""); /* not a selector */
  fs_sweep_results_free(&r);
}
END_TEST

START_TEST(thread_count_independent) {
  int count = fs_algorithm_variants(FS_COLLECTIVE_ALLREDUCE, FS_FAMILY_MPI, 0, NULL, 0);
  fs_algorithm_spec *algorithms = malloc((size_t)count * sizeof *algorithms);
  fs_algorithm_variants(FS_COLLECTIVE_ALLREDUCE, FS_FAMILY_MPI, 0, algorithms, count);
  const int32_t ranks[3] = {5, 8, 16};
  const int64_t sizes[2] = {8, 65536};
  fs_sweep_model models[2] = {hockney_model(), {.network = "pipelined", .compute = "fixed"}};
  snprintf(models[1].label, sizeof models[1].label, "pipelined");
  fs_sweep_platform platforms[2] = {{.cores = "4", .mapping = "seq", .label = "4 cores seq"},
                                    {.cores = "4", .mapping = "rr", .label = "4 cores rr"}};
  fs_sweep_results r[2];
  for (int t = 0; t < 2; t++) {
    fs_sweep_grid g = {.algorithms = algorithms,
                       .algorithm_count = count,
                       .ranks = ranks,
                       .rank_count = 3,
                       .sizes = sizes,
                       .size_count = 2,
                       .models = models,
                       .model_count = 2,
                       .platforms = platforms,
                       .platform_count = 2,
                       .seeds = 1,
                       .threads = t ? 3 : 1};
    fs_error e = {{0}};
    ck_assert_msg(fs_sweep_run(&g, &r[t], &e) == 0, "%s", e.message);
    for (int64_t i = 0; i < r[t].count; i++) r[t].cells[i].wall = 0;
  }
  ck_assert_int_eq(r[0].count, (int64_t)count * 3 * 2 * 2 * 2);
  ck_assert(memcmp(r[0].cells, r[1].cells, (size_t)r[0].count * sizeof *r[0].cells) == 0);
  fs_sweep_results_free(&r[0]);
  fs_sweep_results_free(&r[1]);
  free(algorithms);
}
END_TEST

static int compare_times(const void *a, const void *b) {
  fs_time x = *(const fs_time *)a, y = *(const fs_time *)b;
  return (x > y) - (x < y);
}

/* Seeds: the statistics of the makespans of seeds 7..7+N-1, run here on
 * an engine of our own, summarized as a study summarizes them. */
START_TEST(seeds_statistics) {
  fs_algorithm_spec algorithm;
  spec(&algorithm, "allreduce-ring");
  const int32_t ranks[1] = {4};
  const int64_t sizes[1] = {1024};
  fs_sweep_model model = hockney_model();
  fs_noise *noise = fs_noise_new();
  fs_error e = {{0}};
  ck_assert(fs_noise_add(noise, "net=lognormal:mu=0,sigma=0.2", &e) == 0);
  ck_assert(fs_noise_prepare(noise, 4, &e) == 0);
  fs_sweep_grid g = {.algorithms = &algorithm,
                     .algorithm_count = 1,
                     .ranks = ranks,
                     .rank_count = 1,
                     .sizes = sizes,
                     .size_count = 1,
                     .models = &model,
                     .model_count = 1,
                     .noise = noise,
                     .seeds = 9,
                     .base_seed = 7,
                     .threads = 2};
  fs_sweep_results r;
  ck_assert_msg(fs_sweep_run(&g, &r, &e) == 0, "%s", e.message);
  fs_generator_options o = {.ranks = 4, .size = 1024, .rounds = 1};
  fs_program *p = algorithm.generator->generate(&o, &e);
  fs_parameter items[2] = {hockney_items[0], hockney_items[1]};
  fs_parameters params = {.items = items, .count = 2};
  fs_network_model network;
  fs_compute_model compute;
  ck_assert(fs_network_model_create("hockney", &params, &network, &e) == 0);
  ck_assert(fs_compute_model_create("fixed", &params, &compute, &e) == 0);
  fs_engine *engine = fs_engine_new(p, &network, &compute, &e);
  fs_time makespans[9];
  for (int i = 0; i < 9; i++) {
    ck_assert(fs_engine_set_noise(engine, noise, 7 + (uint64_t)i, &e) == 0);
    ck_assert_int_eq(fs_engine_run(engine, &e), FS_RUN_OK);
    makespans[i] = fs_engine_makespan(engine);
  }
  fs_summary s;
  ck_assert(fs_summarize(makespans, 9, 1, &s) == 0);
  const double v[FS_STAT_COUNT] = {s.min, s.p25, s.median, s.mean, s.p75,
                                   s.p95, s.p99, s.max,    s.stdev};
  for (int k = 0; k < FS_STAT_COUNT; k++) ck_assert(r.cells[0].stats[k] == v[k]);
  ck_assert(r.cells[0].stats[FS_STAT_STDEV] > 0); /* the noise did something */
  qsort(makespans, 9, sizeof *makespans, compare_times);
  ck_assert_int_eq(r.cells[0].makespan, makespans[4]); /* 9 seeds: the median is a value */
  fs_engine_free(engine);
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&compute);
  fs_program_free(p);
  fs_noise_free(noise);
  fs_sweep_results_free(&r);
}
END_TEST

/* Two schedules the check cannot prove (schedgen's patterns record no flow):
 * the failure named is the lowest cell's, on any thread count. */
START_TEST(lowest_failure) {
  fs_algorithm_spec algorithms[3];
  spec(&algorithms[0], "allreduce-rd");
  spec(&algorithms[1], "allreduce-recdoub");
  spec(&algorithms[2], "barrier-dissemination-schedgen");
  const int32_t ranks[2] = {4, 64};
  const int64_t sizes[1] = {8};
  fs_sweep_model model = hockney_model();
  for (int threads = 1; threads <= 3; threads += 2) {
    fs_sweep_grid g = {.algorithms = algorithms,
                       .algorithm_count = 3,
                       .ranks = ranks,
                       .rank_count = 2,
                       .sizes = sizes,
                       .size_count = 1,
                       .models = &model,
                       .model_count = 1,
                       .seeds = 1,
                       .check = 1,
                       .threads = threads};
    fs_sweep_results r;
    fs_error e = {{0}};
    ck_assert_int_eq(fs_sweep_run(&g, &r, &e), -1);
    ck_assert_ptr_null(r.cells);
    fs_test_contains(e.message,
                     "allreduce-recdoub, 4 ranks, 8B: the generator records no data flow");
  }
}
END_TEST

/* ---- the command ----------------------------------------------------------- */

#define HOCKNEY "--model hockney:alpha=1us,beta=1ns"

/* The rows of exact_hockney_cells' P = 4, S = 100 B, in report order
 * (ranks, size, then algorithm); the model's label holds commas: quoted.
 * Each collective has its own winner. allreduce-ring at P = 4: a
 * reduce-scatter of P - 1 steps, then an allgather of P - 1 steps, each a
 * block of S / P = 25 B: 6 (1000 + 25) = 6150 ns. */
START_TEST(cli_csv_rows) {
  ck_assert_int_eq(fennelsim("sweep allreduce-rd allreduce-ring bcast-linear --ranks 4 --size "
                             "100B " HOCKNEY " --format csv --no-wall --check"),
                   0);
  ck_assert_str_eq(out,
                   "collective,algorithm,picked,ranks,size,model,platform,status,makespan_ns,"
                   "tasks,winner,reason\n"
                   "allreduce,allreduce-rd,,4,100B,\"hockney:alpha=1us,beta=1ns\",,run,2200,20,1,\n"
                   "allreduce,allreduce-ring,,4,100B,\"hockney:alpha=1us,beta=1ns\",,run,6150,60,0,"
                   "\n"
                   "bcast,bcast-linear,,4,100B,\"hockney:alpha=1us,beta=1ns\",,run,3300,6,1,\n");
}
END_TEST

/* The text table marks the winner (allreduce-rd at 4 ranks, 8 B: 2 (1000 + 8)
 * ns); a skipped cell says why. */
START_TEST(cli_text_winner_and_skipped) {
  ck_assert_int_eq(fennelsim("sweep allreduce-rd allreduce-rm:factors=2,2 --ranks 4,6 " HOCKNEY
                             " --no-wall"),
                   0);
  fs_test_contains(out, "= 4 cells (1 skipped)");
  fs_test_contains(out, "allreduce-rd              * 2.016 us");
  fs_test_contains(out, "allreduce-rm:factors=2,2  skipped: allreduce-rm: the factors multiply to "
                        "4, not --ranks 6");
}
END_TEST

/* --threads 1 and 2 write the same bytes (without the wall seconds). */
START_TEST(cli_threads_equal) {
  const char *grid = "sweep allreduce bcast --ranks 2..17+5 --size 8B..64KiB*32 --model hockney "
                     "--model pipelined --cores 4 --mapping seq,rr --format json --no-wall";
  ck_assert_int_eq(fennelsim("%s --threads 1", grid), 0);
  char *one = strdup(out);
  ck_assert_int_eq(fennelsim("%s --threads 2", grid), 0);
  ck_assert_str_eq(one, out);
  ck_assert_int_eq(fs_test_occurrences(out, "\"platform\": \"4 cores rr\""),
                   fs_test_occurrences(out, "\"platform\": \"4 cores seq\""));
  free(one);
}
END_TEST

/* The seeds' statistics are those `run --seeds` reports for the cell. */
START_TEST(cli_seeds_as_run) {
  char *dag = fs_test_temp_path(".dag");
  const char *noise = "--seeds 7 --seed 3 --noise net=lognormal:mu=0,sigma=0.3";
  ck_assert_int_eq(fennelsim("gen allreduce-ring --ranks 4 --size 1KiB -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("run %s --model hockney %s --format json", dag, noise), 0);
  const char *at = strstr(out, "\"makespan_ns\": {");
  ck_assert_ptr_nonnull(at);
  char run[512];
  snprintf(run, sizeof run, "%.*s", (int)(strchr(at, '}') - at - 15), at + 15);
  ck_assert_int_eq(fennelsim("sweep allreduce-ring --ranks 4 --size 1KiB --model hockney %s "
                             "--format json --no-wall",
                             noise),
                   0);
  fs_test_contains(out, run);
  remove(dag);
  free(dag);
}
END_TEST

/* Bad input: exit 2, the option named. */
START_TEST(cli_errors) {
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 8..4*2"), 2);
  fs_test_contains(err, "--ranks 8..4*2: '8..4*2': expected LOW..HIGH*FACTOR");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 4..64*1"), 2);
  fs_test_contains(err, "--ranks 4..64*1");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 0"), 2);
  fs_test_contains(err, "expected a rank count from 1 to 16777216");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 1..5000+1"), 2);
  fs_test_contains(err, "more than 4096 rank counts");
  ck_assert_int_eq(fennelsim("sweep allreduce-rnig --ranks 4"), 2);
  fs_test_contains(err, "allreduce-rnig");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 4 --size 8B --size 16B"), 2);
  fs_test_contains(err, "--size given twice (8B, then 16B)");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 4 --size 8X"), 2);
  fs_test_contains(err, "--size 8X");
  ck_assert_int_eq(fennelsim("sweep allreduce"), 2);
  fs_test_contains(err, "--ranks is required");
  ck_assert_int_eq(fennelsim("sweep --ranks 4"), 2);
  fs_test_contains(err, "no algorithm named");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 4 --format xml"), 2);
  fs_test_contains(err, "--format xml: expected text, csv or json");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 4 --rank-by p50"), 2);
  fs_test_contains(err, "--rank-by p50: expected median, mean or p99");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 4 --model hockney:alpah=1us"), 2);
  fs_test_contains(err, "alpah");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 4 --mapping seq,diagonal"), 2);
  fs_test_contains(err, "--mapping seq,diagonal: 'diagonal': expected seq or rr");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 1..4096+1 --size 1B..1GiB*2 --model hockney "
                             "--model pipelined"),
                   2);
  fs_test_contains(err, "cells (");
  fs_test_contains(err, "at most 1000000");
  ck_assert_int_eq(fennelsim("sweep allreduce --ranks 4 --frobnicate"), 2);
  fs_test_contains(err, "unknown option --frobnicate");
}
END_TEST

/* ---- --report nccl-tests --------------------------------------------------- */

/* nccl-tests 2.19.6's three header lines (their trailing blanks included). */
#define NCCL_HEADER                                                                             \
  "#\n"                                                                                         \
  "#                                                              out-of-place                " \
  "       in-place          \n"                                                                 \
  "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "  \
  "time   algbw   busbw  #wrong \n"                                                             \
  "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             "  \
  "(us)  (GB/s)  (GB/s)         \n"

/* hockney alpha 1 us, beta 0.01 ns/B (100 GB/s), 4 ranks.
 * allreduce-ring: 2 (P - 1) = 6 steps of a block S / 4: S = 1KiB: 6 (1000 +
 * 2.56) = 6015.36 ns; S = 1MiB: 6 (1000 + 2621.44) = 21728.64 ns. nccl-tests'
 * size is S, count S / 4 floats; algbw = S / 1e9 / t: 1024 / 6015.36 =
 * 0.17023 -> 0.17, 1048576 / 21728.64 = 48.2578 -> 48.26; busbw x 2 (P - 1) / P
 * = 1.5: 0.25535 -> 0.26, 72.3867 -> 72.39; average 36.32101 (%g: 36.321).
 * allgather-ring: P - 1 = 3 steps of the per-rank block S: 1KiB: 3 (1000 +
 * 10.24) = 3030.72 ns; 1MiB: 3 (1000 + 10485.76) = 34457.28 ns; size = 4 S
 * (4096, 4194304), count S / 4; algbw 4096 / 3030.72 = 1.35149 -> 1.35,
 * 4194304 / 34457.28 = 121.7248 -> 121.72; busbw x (P - 1) / P = 0.75: 1.01362
 * -> 1.01, 91.2936 -> 91.29; average 46.15359 (46.1536).
 * bcast-linear:root=1 at 1KiB: the root sends 3 blocks one after the other,
 * 3 (1000 + 10.24) = 3030.72 ns; size 1024, redop none, root 1; algbw = busbw =
 * 1024 / 3030.72 = 0.33787 -> 0.34. */
START_TEST(cli_nccl_tests_tables) {
  ck_assert_int_eq(fennelsim("sweep allreduce-ring allgather-ring --ranks 4 --size 1KiB,1MiB "
                             "--model hockney:alpha=1us,beta=0.01ns --report nccl-tests"),
                   0);
  ck_assert_str_eq(
      out,
      "# fennelsim sweep: allreduce-ring, 4 ranks, model "
      "hockney:alpha=1us,beta=0.01ns\n" NCCL_HEADER
      "        1024           256     float     sum      -1     6.02    0.17    0.26    N/A     "
      "6.02    0.17    0.26    N/A\n"
      "     1048576        262144     float     sum      -1    21.73   48.26   72.39    N/A    "
      "21.73   48.26   72.39    N/A\n"
      "# Avg bus bandwidth    : 36.321 \n"
      "#\n"
      "# fennelsim sweep: allgather-ring, 4 ranks, model "
      "hockney:alpha=1us,beta=0.01ns\n" NCCL_HEADER
      "        4096           256     float    none      -1     3.03    1.35    1.01    N/A     "
      "3.03    1.35    1.01    N/A\n"
      "     4194304        262144     float    none      -1    34.46  121.72   91.29    N/A    "
      "34.46  121.72   91.29    N/A\n"
      "# Avg bus bandwidth    : 46.1536 \n"
      "#\n");
  ck_assert_int_eq(fennelsim("sweep bcast-linear:root=1 --ranks 4 --size 1KiB "
                             "--model hockney:alpha=1us,beta=0.01ns --report nccl-tests"),
                   0);
  fs_test_contains(out, "        1024           256     float    none       1     3.03    0.34    "
                        "0.34    N/A     3.03    0.34    0.34    N/A\n"
                        "# Avg bus bandwidth    : 0.337874 \n");
}
END_TEST

/* The formatter's widths (time 7, bandwidths 6): %.2f, else %.1f, else %.0f,
 * else exponent. allgather-ring, 4 ranks, 1MiB blocks (size 4194304), alpha 0
 * unless given, 3 steps of alpha + 1048576 beta:
 * - beta 1 ps: 3 x 1048576 ps = 3.145728 us -> 3.15; algbw 4194304 / 3145.728
 *   = 1333.33 -> %.2f is 7 wide -> 1333.3; busbw 1000.00 -> 1000.0;
 * - beta 0.001 ps (1000 as): a step 1048.576 ps -> 1049 ps, 3147 ps: 0.003147
 *   us -> 0.00; algbw 1332794.4 -> even %.0f is 7 wide -> 1e+06; busbw
 *   999595.8 -> %.0f 999596;
 * - alpha 1 us, beta 10 ns: 3 (1 + 10485.76) us = 31460.28 us -> 31460.3;
 * - alpha 1 us, beta 10 us: 3 (1 + 10485760) us = 31457283 us >= 10^7 ->
 *   3.1e+07; algbw 0.000133 -> 0.00. */
START_TEST(cli_nccl_tests_number_widths) {
  ck_assert_int_eq(fennelsim(
                       "sweep allgather-ring --ranks 4 --size 1MiB "
                       "--model hockney:alpha=0,beta=1ps --model hockney:alpha=0,beta=0.001ps "
                       "--model hockney:alpha=1us,beta=10ns "
                       "--model hockney:alpha=1us,beta=10us --report nccl-tests"),
                   0);
  const char *prefix = "     4194304        262144     float    none      -1  ";
  const char *rows[4] = {"   3.15  1333.3  1000.0    N/A     3.15  1333.3  1000.0    N/A\n",
                         "   0.00   1e+06  999596    N/A     0.00   1e+06  999596    N/A\n",
                         "31460.3    0.13    0.10    N/A  31460.3    0.13    0.10    N/A\n",
                         "3.1e+07    0.00    0.00    N/A  3.1e+07    0.00    0.00    N/A\n"};
  for (int i = 0; i < 4; i++) {
    char line[256];
    snprintf(line, sizeof line, "%s%s", prefix, rows[i]);
    fs_test_contains(out, line);
  }
  fs_test_contains(out, "# Avg bus bandwidth    : 999596 \n");
}
END_TEST

/* What the report cannot show: exit 2, saying why; a skipped cell. */
START_TEST(cli_nccl_tests_errors) {
  ck_assert_int_eq(fennelsim("sweep barrier --ranks 4 --report nccl-tests"), 2);
  fs_test_contains(err, "--report nccl-tests: barrier-dissemination computes barrier, which has "
                        "no bus bandwidth factor in nccl-tests");
  ck_assert_int_eq(fennelsim("sweep allreduce-ring --ranks 4 --size 6B --report nccl-tests"), 2);
  fs_test_contains(err, "--size 6B is not a whole number of float elements (4 bytes each)");
  ck_assert_int_eq(fennelsim("sweep allreduce-ring --ranks 4 --report nccl-test"), 2);
  fs_test_contains(err, "--report nccl-test: expected nccl-tests");
  ck_assert_int_eq(fennelsim("sweep allreduce-ring --ranks 4 --report nccl-tests --format csv"), 2);
  fs_test_contains(err, "--report nccl-tests and --format csv: give one of them");
  ck_assert_int_eq(fennelsim("sweep allreduce-ring --ranks 4 --datatype half"), 2);
  fs_test_contains(err, "--datatype half: only --report nccl-tests reads it");
  ck_assert_int_eq(fennelsim("sweep allreduce-ring --ranks 4 --report nccl-tests --datatype fp16"),
                   2);
  fs_test_contains(err, "--datatype fp16: expected int8");
  /* 6 B of half: 3 elements; 8 B is the default size */
  ck_assert_int_eq(
      fennelsim("sweep allreduce-ring --ranks 4 --size 6B --report nccl-tests --datatype half"), 0);
  fs_test_contains(out, "\n           6             3      half     sum      -1  ");
  /* a skipped size is a comment line in its place; no row: no mean */
  ck_assert_int_eq(fennelsim("sweep allreduce-rm:factors=2,2 --ranks 6 --size 8B --report "
                             "nccl-tests"),
                   0);
  fs_test_contains(out, "(GB/s)         \n"
                        "#          8  skipped: allreduce-rm: the factors multiply to 4, not "
                        "--ranks 6\n"
                        "# Avg bus bandwidth    : N/A \n#\n");
}
END_TEST

static Suite *sweep_suite(void) {
  Suite *s = suite_create("sweep");
  TCase *grid = tcase_create("grid");
  tcase_add_test(grid, exact_hockney_cells);
  tcase_add_test(grid, skipped_cells);
  tcase_add_test(grid, selectors_record_their_pick);
  tcase_add_test(grid, thread_count_independent);
  tcase_add_test(grid, seeds_statistics);
  tcase_add_test(grid, lowest_failure);
  suite_add_tcase(s, grid);
  TCase *cli = tcase_create("cli");
  tcase_add_test(cli, cli_csv_rows);
  tcase_add_test(cli, cli_text_winner_and_skipped);
  tcase_add_test(cli, cli_threads_equal);
  tcase_add_test(cli, cli_seeds_as_run);
  tcase_add_test(cli, cli_errors);
  tcase_add_test(cli, cli_nccl_tests_tables);
  tcase_add_test(cli, cli_nccl_tests_number_widths);
  tcase_add_test(cli, cli_nccl_tests_errors);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) {
  int status = fs_test_run(sweep_suite());
  free(out);
  free(err);
  return status;
}
