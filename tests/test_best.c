/* test_best.c: the schedule search behind `fennelsim best allreduce`
 * (src/cli/best_command.c, fs_rm_enumerate in src/generators/rm_schedule.c;
 * Fennel thesis §5.4.4): the candidate space and its cap, then the command
 * end to end: exact makespans of the ranking under pipelined and hockney,
 * JSON structure, --top, and exit status 2 for bad input. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/rm_schedule.h"
#include "io/atomic_file.h"
#include "study/best.h"
#include "test_support.h"

static char *out, *err;

/* ---- the candidate space -------------------------------------------------- */

static int in(const fs_rm_candidates *c, const char *text) {
  char buf[160];
  for (int i = 0; i < c->count; i++) {
    fs_rm_schedule_format(&c->items[i], buf, sizeof buf);
    if (strcmp(buf, text) == 0) return 1;
  }
  return 0;
}

/* 16 with room for all: every ordered factorization (H(16) = 8); the
 * merges with 1 <= R < K1 and two core stages or more (R = 1: 3,5 and 5,3;
 * R = 2: 7,2; R = 4: 6,2: 4); collapses to the two nearest 7-smooth counts
 * n' below 16 per M (n' = N - T + T/M): M = 2 reaches 15 (c2m2, H(15) = 3)
 * and 14 (c4m2, 3); M = 3 reaches 14 (c3m3, 3) and 12 (c6m3, H(12) = 8).
 * 8 + 4 + 17 = 29, sorted by the cost model, each listed once. */
START_TEST(enumerate_sixteen_exhaustive) {
  fs_rm_candidates c;
  fs_error e = {{0}};
  ck_assert_int_eq(fs_rm_enumerate(16, 5, 1000, &c, &e), 0);
  ck_assert_int_eq(c.capped, 0);
  ck_assert_int_eq(c.considered, c.count);
  const char *expected[] = {"a16",
                            "a2,a8",
                            "a8,a2",
                            "a4,a4",
                            "a2,a2,a4",
                            "a2,a4,a2",
                            "a4,a2,a2",
                            "a2,a2,a2,a2",
                            "m1g5a3,n1g3a5",
                            "m1g3a5,n1g5a3",
                            "m2g2a7,n2g7a2",
                            "m4g2a6,n4g6a2",
                            "c2m2,a3,a5,e2m2",
                            "c2m2,a15,e2m2",
                            "c4m2,a2,a7,e4m2",
                            "c3m3,a2,a7,e3m3",
                            "c6m3,a3,a4,e6m3",
                            "c6m3,a12,e6m3"};
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
    ck_assert_msg(in(&c, expected[i]), "%s missing", expected[i]);
  ck_assert(!in(&c, "m2g7a2,n2g2a7")); /* R >= K1 */
  ck_assert(!in(&c, "m4g6a2,n4g2a6"));
  char buf[160];
  for (int i = 0; i < c.count; i++) {
    if (i) ck_assert(c.cost[i - 1] <= c.cost[i]);
    fs_rm_schedule_format(&c.items[i], buf, sizeof buf);
    ck_assert_double_eq(c.cost[i], fs_rm_schedule_cost(&c.items[i], 5));
    for (int j = 0; j < i; j++) {
      char other[160];
      fs_rm_schedule_format(&c.items[j], other, sizeof other);
      ck_assert_str_ne(buf, other);
    }
  }
  /* c = 5: a4,a4 = 2c + 6 = 16 is the cheapest */
  fs_rm_schedule_format(&c.items[0], buf, sizeof buf);
  ck_assert_str_eq(buf, "a4,a4");
  ck_assert_int_eq(c.count, 29);
  fs_rm_candidates_free(&c);
}
END_TEST

/* A cap keeps the cheapest: the first equals the exhaustive best
 * (fs_rm_best, same cost model) and the list is marked capped. */
START_TEST(enumerate_capped_keeps_the_cheapest) {
  fs_rm_candidates c;
  fs_rm_schedule best;
  fs_error e = {{0}};
  for (int32_t n = 2; n <= 300; n += 7) {
    ck_assert_int_eq(fs_rm_enumerate(n, 2.911, 5, &c, &e), 0);
    ck_assert_int_eq(fs_rm_best(n, 2.911, &best, &e), 0);
    ck_assert(c.count >= 1 && c.count <= 5);
    ck_assert_double_eq(c.cost[0], fs_rm_schedule_cost(&best, 2.911));
    for (int i = 0; i < c.count; i++) {
      int64_t covered = 0;
      ck_assert_int_eq(fs_rm_schedule_ranks(&c.items[i], &covered, &e), 0);
      ck_assert_int_eq(covered, n);
    }
    fs_rm_candidates_free(&c);
  }
  ck_assert_int_eq(fs_rm_enumerate(720, 2.911, 10, &c, &e), 0);
  ck_assert_int_eq(c.count, 10);
  ck_assert_int_eq(c.capped, 1);
  fs_rm_candidates_free(&c);
  ck_assert_int_eq(fs_rm_enumerate(0, 2.911, 10, &c, &e), -1);
  ck_assert_str_eq(e.message, "rm candidates: ranks must be in [1, 65536], not 0");
  ck_assert_int_eq(fs_rm_enumerate(8, 2.911, 0, &c, &e), -1);
  ck_assert_str_eq(e.message, "rm candidates: limit must be in [1, 1000000], not 0");
}
END_TEST

/* ---- candidates, ranking and reports, from hand-filled cells ------------ */

/* Every collective: the variants first, in fs_algorithm_variants' order;
 * allreduce then adds recursive multiplying's schedules: at 16 ranks with
 * c = 5 the heuristic's is one of the 29 enumerated (as the command's
 * search below), so 29 of them follow the variants. */
START_TEST(candidates_follow_the_variants) {
  fs_error e = {{0}};
  fs_algorithm_spec variants[256];
  for (int c = FS_COLLECTIVE_BARRIER; c <= FS_COLLECTIVE_LAST; c++) {
    fs_best_candidates b;
    ck_assert_int_eq(fs_best_candidates_build((fs_collective)c, FS_FAMILY_MPI, 0, 16, 5, 1000, &b,
                                              &e),
                     0);
    int n = fs_algorithm_variants((fs_collective)c, FS_FAMILY_MPI, 0, variants, 256);
    ck_assert_int_ge(n, c == FS_COLLECTIVE_REDUCE_SCATTER ? 0 : 1); /* NCCL's only */
    ck_assert_int_eq(b.variants, n);
    for (int i = 0; i < n; i++) ck_assert_str_eq(b.specs[i].text, variants[i].text);
    if (c == FS_COLLECTIVE_ALLREDUCE) {
      ck_assert_int_eq(b.searched, n + 29);
      ck_assert_int_eq(b.rm_cheapest, 29);
      ck_assert_int_eq(b.rm_heuristic, FS_BEST_RM_AMONG);
      ck_assert_str_eq(b.specs[n].text, "allreduce-rm:schedule=a4,a4"); /* the heuristic's */
    } else {
      ck_assert_int_eq(b.searched, n);
      ck_assert_int_eq(b.rm_heuristic, FS_BEST_RM_NONE);
    }
    for (int l = 0; l < FS_BEST_LIBRARIES; l++)
      if (b.library[l] >= 0) ck_assert_int_ge(b.library[l], b.searched);
    fs_best_candidates_free(&b);
  }
  /* one rank: no stages, the variants alone */
  fs_best_candidates b;
  ck_assert_int_eq(fs_best_candidates_build(FS_COLLECTIVE_ALLREDUCE, FS_FAMILY_MPI, 0, 1, 0, 300,
                                            &b, &e),
                   0);
  ck_assert_int_eq(b.rm_heuristic, FS_BEST_RM_NO_STAGES);
  ck_assert_int_eq(b.searched, b.variants);
  fs_best_candidates_free(&b);
}
END_TEST

/* A size filled by hand: candidates named, cells by makespan in ns (< 0:
 * skipped); with seeds, stats[] from p50 and p99 (the mean between). The
 * last `libraries` names are the libraries' cells, `picked` their picks
 * (NULL: not generated). */
static void fill(fs_best_size *s, int64_t size, const char *const *names, const double *ns, int n,
                 int libraries, const char *const *picked) {
  fs_error e = {{0}};
  *s = (fs_best_size){.size = size};
  s->candidates = (fs_best_candidates){.family = FS_FAMILY_MPI, .library = {-1, -1, -1}};
  s->candidates.specs = calloc((size_t)n, sizeof *s->candidates.specs);
  s->cells = calloc((size_t)n, sizeof *s->cells);
  ck_assert(s->candidates.specs && s->cells);
  for (int i = 0; i < n; i++) {
    const char *colon = strchr(names[i], ':');
    char name[64];
    snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - names[i]) : (int)strlen(names[i]),
             names[i]);
    if (fs_generator_find(name))
      ck_assert_int_eq(fs_algorithm_spec_parse(&s->candidates.specs[i], names[i], &e), 0);
    snprintf(s->candidates.specs[i].text, sizeof s->candidates.specs[i].text, "%s", names[i]);
    fs_sweep_cell *c = &s->cells[i];
    c->algorithm = i;
    if (ns[i] < 0) {
      c->status = FS_SWEEP_SKIPPED;
      snprintf(c->reason, sizeof c->reason, "%s needs a power of two", names[i]);
    } else {
      c->makespan = (fs_time)(ns[i] * 1000);
      c->tasks = 10 + i;
      for (int k = 0; k < FS_STAT_COUNT; k++) c->stats[k] = ns[i];
    }
  }
  s->candidates.count = n;
  s->candidates.searched = s->candidates.variants = n - libraries;
  for (int l = 0; l < libraries; l++) {
    int at = n - libraries + l;
    s->candidates.library[l] = at;
    if (picked[l])
      snprintf(s->cells[at].picked, sizeof s->cells[at].picked, "%s", picked[l]);
    else {
      s->cells[at].status = FS_SWEEP_SKIPPED;
      snprintf(s->cells[at].reason, sizeof s->cells[at].reason,
               "Open MPI picks bcast split_binary_tree, which fennelsim does not generate");
    }
  }
  ck_assert_int_eq(fs_best_rank(s, FS_BEST_MEDIAN, 1, &e), 0);
}

/* The report into a string (written to a temporary file). */
static char *report(const fs_best_report *r) {
  char *path = fs_test_temp_path(".out");
  fs_error e = {{0}};
  fs_output *o = fs_output_open(path, &e);
  ck_assert_ptr_nonnull(o);
  ck_assert_int_eq(fs_best_write(o, r), 0);
  ck_assert_int_eq(fs_output_commit(o, &e), 0);
  char *text = fs_test_read_file(path, NULL);
  ck_assert_ptr_nonnull(text);
  free(path);
  return text;
}

static fs_best_report report_of(const fs_best_size *sizes, int count, const char *format) {
  return (fs_best_report){.collective = "bcast",
                          .model = "hockney",
                          .compute = "fixed",
                          .model_parameters = "\"alpha_ns\": 1000, \"beta_ns_per_byte\": 0",
                          .platform = "",
                          .noise = "",
                          .ranks = 8,
                          .seeds = 1,
                          .seed = 1,
                          .family = FS_FAMILY_MPI,
                          .format = format,
                          .table = count > 1,
                          .sizes = sizes,
                          .size_count = count};
}

/* Ties keep the candidate order; skipped candidates are not ranked but
 * counted (text) and listed with their reason (JSON, CSV); a library's
 * pick is timed against the winner, and one fennelsim does not generate
 * says so. */
START_TEST(ranking_ties_skips_and_libraries) {
  const char *names[] = {"bcast-linear", "bcast-binomial", "bcast-binary",
                         "bcast-chain",  "bcast-mpich",    "bcast-ompi"};
  const double ns[] = {7000, 3000, 3000, -1, 3000, 0};
  const char *picked[] = {"bcast-binomial", NULL};
  fs_best_size s;
  fill(&s, 8, names, ns, 6, 2, picked);
  ck_assert_int_eq(s.ranked, 3);
  ck_assert_int_eq(s.skipped, 1);
  ck_assert_int_eq(s.order[0], 1); /* binomial before binary: the tie keeps the order */
  ck_assert_int_eq(s.order[1], 2);
  ck_assert_int_eq(s.order[2], 0);
  fs_best_report r = report_of(&s, 1, "text");
  char *text = report(&r);
  ck_assert_str_eq(text,
                   "best bcast: 8 ranks, 8B, model hockney {\"alpha_ns\": 1000, "
                   "\"beta_ns_per_byte\": 0}, compute fixed\n"
                   "simulated 4 candidates: 4 algorithms and options of bcast; 1 not applicable "
                   "at 8 ranks (--format json lists them)\n"
                   "rank  algorithm                                     makespan_ns      tasks   "
                   "ratio\n"
                   "1     bcast-binomial                                       3000         11   "
                   "1.000\n"
                   "2     bcast-binary                                         3000         12   "
                   "1.000\n"
                   "3     bcast-linear                                         7000         10   "
                   "2.333\n"
                   "MPICH runs bcast-binomial: 3000 ns, 1.000 x the best\n"
                   "Open MPI: Open MPI picks bcast split_binary_tree, which fennelsim does not "
                   "generate\n");
  free(text);
  r.format = "json";
  text = report(&r);
  fs_test_contains(text, "\"sizes\": [{\"size_bytes\": 8, \"simulated\": 4, \"ran\": 3, "
                         "\"skipped_count\": 1, \"winner\": {\"algorithm\": \"bcast-binomial\", "
                         "\"time_ns\": 3000, \"ratio\": 1.000000}, \"runner_up\": {\"algorithm\": "
                         "\"bcast-binary\", \"time_ns\": 3000, \"ratio\": 1.000000}, \"margin\": "
                         "0.000000, \"libraries\": [{\"library\": \"mpich\", \"selector\": "
                         "\"bcast-mpich\", \"pick\": \"bcast-binomial\", \"time_ns\": 3000, "
                         "\"ratio\": 1.000000}, {\"library\": \"ompi\", \"selector\": "
                         "\"bcast-ompi\", \"pick\": null, \"reason\": \"Open MPI picks bcast "
                         "split_binary_tree, which fennelsim does not generate\"}], \"entries\": "
                         "[{\"rank\": 1, \"algorithm\": \"bcast-binomial\", \"makespan_ns\": "
                         "3000, \"tasks\": 11, \"ratio\": 1.000000}, ");
  fs_test_contains(text, "\"skipped\": [{\"algorithm\": \"bcast-chain\", \"reason\": "
                         "\"bcast-chain needs a power of two\"}]}]}\n");
  free(text);
  r.format = "csv";
  text = report(&r);
  fs_test_contains(text, "size_bytes,rank,algorithm,picked,status,time_ns,ratio,tasks,median_ns,"
                         "mean_ns,p99_ns,reason,collective,ranks,model,model_parameters,"
                         "compute_model,platform,noise,seeds,rank_by\n"
                         "8,1,bcast-binomial,,run,3000,1.000000,11,3000,3000,3000,,bcast,8,"
                         "hockney,\"{\"\"alpha_ns\"\": 1000, \"\"beta_ns_per_byte\"\": 0}\","
                         "fixed,,,1,median\n");
  fs_test_contains(text, "\n8,,bcast-chain,,skipped,,,,,,,bcast-chain needs a power of two,bcast,");
  fs_test_contains(text, "\n8,,bcast-mpich,bcast-binomial,run,3000,1.000000,14,3000,");
  fs_test_contains(text, "\n8,,bcast-ompi,,skipped,,,,,,,\"Open MPI picks bcast split_binary_tree, "
                         "which fennelsim does not generate\",bcast,");
  ck_assert_int_eq(fs_test_occurrences(text, "\n"), 1 + 3 + 1 + 2);
  free(text);
  fs_best_size_free(&s);
}
END_TEST

/* With seeds the chosen statistic ranks: A has the better median (100 ns
 * against 200) and mean, B the better p99 (250 against 500). */
START_TEST(noise_ranks_by_the_statistic) {
  const char *names[] = {"barrier-linear", "barrier-dissemination"};
  const double ns[] = {100, 200};
  fs_best_size s;
  fs_error e = {{0}};
  fill(&s, 0, names, ns, 2, 0, NULL);
  s.cells[0].stats[FS_STAT_P99] = 500, s.cells[0].stats[FS_STAT_MEAN] = 200;
  s.cells[1].stats[FS_STAT_P99] = 250, s.cells[1].stats[FS_STAT_MEAN] = 210;
  ck_assert_int_eq(fs_best_rank(&s, FS_BEST_MEDIAN, 10, &e), 0);
  ck_assert_int_eq(s.order[0], 0);
  ck_assert_int_eq(fs_best_rank(&s, FS_BEST_MEAN, 10, &e), 0);
  ck_assert_int_eq(s.order[0], 0);
  ck_assert_int_eq(fs_best_rank(&s, FS_BEST_P99, 10, &e), 0);
  ck_assert_int_eq(s.order[0], 1);
  ck_assert_int_eq(s.order[1], 0);
  fs_best_report r = report_of(&s, 1, "text");
  r.collective = "barrier", r.seeds = 10, r.seed = 3, r.rank_by = FS_BEST_P99;
  r.noise = "net=lognormal:sigma=0.2";
  char *text = report(&r);
  fs_test_contains(text, "\nnoise net=lognormal:sigma=0.2: 10 seeds from 3, ranked by the p99\n");
  fs_test_contains(text, "\nrank  algorithm                                     median_ns        "
                         "mean_ns         p99_ns   ratio\n"
                         "1     barrier-dissemination                           200.000        "
                         "210.000        250.000   1.000\n"
                         "2     barrier-linear                                  100.000        "
                         "200.000        500.000   2.000\n");
  free(text);
  r.format = "json";
  text = report(&r);
  fs_test_contains(text, "\"seeds\": 10, \"seed\": 3, \"rank_by\": \"p99\"");
  fs_test_contains(text, "\"winner\": {\"algorithm\": \"barrier-dissemination\", \"time_ns\": "
                         "250.000, \"ratio\": 1.000000}");
  fs_test_contains(text, "\"margin\": 1.000000");
  free(text);
  fs_best_size_free(&s);
}
END_TEST

/* --sizes: a row per size with the winner, the runner-up and the margin,
 * and each library's pick, its time and how much slower it is. At 8 B
 * binomial (3 us) beats linear (7 us, +133.33%); at 1 MiB linear (10 us)
 * beats binomial (12 us, +20%); MPICH runs binomial at both (+0.00%, then
 * +20.00%); Open MPI's pick at 1 MiB is not generated: said below. */
START_TEST(decision_table) {
  const char *names[] = {"bcast-linear", "bcast-binomial", "bcast-mpich", "bcast-ompi"};
  const double small[] = {7000, 3000, 3000, 7000}, large[] = {10000, 12000, 12000, 0};
  const char *picks_small[] = {"bcast-binomial", "bcast-linear"};
  const char *picks_large[] = {"bcast-binomial", NULL};
  fs_best_size s[2];
  fill(&s[0], 8, names, small, 4, 2, picks_small);
  fill(&s[1], 1 << 20, names, large, 4, 2, picks_large);
  fs_best_report r = report_of(s, 2, "text");
  char *text = report(&r);
  char row[512];
  snprintf(row, sizeof row, "\n%-9s %-32s %14s  %-32s %14s %9s  %-32s %14s %9s  %-32s %14s %9s\n",
           "8B", "bcast-binomial", "3000", "bcast-linear", "7000", "+133.33%", "bcast-binomial",
           "3000", "+0.00%", "bcast-linear", "7000", "+133.33%");
  fs_test_contains(text, row);
  snprintf(row, sizeof row, "\n%-9s %-32s %14s  %-32s %14s %9s  %-32s %14s %9s  %-32s %14s %9s\n",
           "1MiB", "bcast-linear", "10000", "bcast-binomial", "12000", "+20.00%", "bcast-binomial",
           "12000", "+20.00%", "(not generated)", "-", "-");
  fs_test_contains(text, row);
  fs_test_contains(text, "best bcast: 8 ranks, model hockney {");
  fs_test_contains(text, "\n1MiB: Open MPI: Open MPI picks bcast split_binary_tree, which "
                         "fennelsim does not generate\n");
  free(text);
  r.format = "json";
  text = report(&r);
  fs_test_contains(text, "{\"size_bytes\": 1048576, \"simulated\": 2, \"ran\": 2, "
                         "\"skipped_count\": 0, \"winner\": {\"algorithm\": \"bcast-linear\", "
                         "\"time_ns\": 10000, \"ratio\": 1.000000}, \"runner_up\": "
                         "{\"algorithm\": \"bcast-binomial\", \"time_ns\": 12000, \"ratio\": "
                         "1.200000}, \"margin\": 0.200000, \"libraries\": [{\"library\": "
                         "\"mpich\", \"selector\": \"bcast-mpich\", \"pick\": \"bcast-binomial\", "
                         "\"time_ns\": 12000, \"ratio\": 1.200000}, {\"library\": \"ompi\", ");
  free(text);
  fs_best_size_free(&s[0]);
  fs_best_size_free(&s[1]);
}
END_TEST

/* ---- the command ---------------------------------------------------------- */

#define PIPELINED(ap) "--model pipelined --param alpha_p=" ap " --param alpha_r=1us --param beta=0"
#define HOCKNEY(beta) "--model hockney --param alpha=1us --param beta=" beta

/* The winner's time in the JSON of one size: "winner": {..., "time_ns": T. */
static void winner_time(const char *json, const char *time) {
  char want[128];
  snprintf(want, sizeof want, "\"time_ns\": %s, \"ratio\": 1.000000}, \"runner_up\"", time);
  const char *w = strstr(json, "\"winner\": {");
  ck_assert_ptr_nonnull(w);
  ck_assert_msg(strncmp(strstr(w, "\"time_ns\""), want, strlen(want)) == 0, "winner %s in %s", time,
                w);
}

/* 16 ranks, alpha_p 5 us, alpha_r 1 us, beta 0, free reduces: a4,a4 takes
 * 2 (5 + 3) = 16 us (eq. 5.7); RD 4 (5 + 1) = 24 us; a16 5 + 15 = 20 us.
 * A new candidate ties a4,a4 and so wins by order: 3-way dissemination,
 * two rounds of three sends (CPU 1 us each, the last landing 3 + 5 = 8 us
 * after the round began): 16 us. */
START_TEST(best_sixteen_json) {
  ck_assert_int_eq(fennelsim("best allreduce --ranks 16 " PIPELINED("5us") " --format json"), 0);
  fs_test_contains(out, "{\"collective\": \"allreduce\", \"ranks\": 16, \"model\": \"pipelined\", "
                        "\"model_parameters\": {\"alpha_p_ns\": 5000, \"alpha_r_ns\": 1000, "
                        "\"beta_ns_per_byte\": 0}, \"compute_model\": \"fixed\", ");
  fs_test_contains(out, "\"cost_ratio\": 5, \"rm_cheapest\": 29, \"capped\": false");
  winner_time(out, "16000");
  fs_test_contains(out, "\"algorithm\": \"allreduce-rm:schedule=a4,a4\", \"makespan_ns\": 16000, ");
  fs_test_contains(out,
                   "\"algorithm\": \"allreduce-dissemination:ways=3\", \"makespan_ns\": 16000, ");
  fs_test_contains(out, "\"algorithm\": \"allreduce-rd\", \"makespan_ns\": 24000, ");
  fs_test_contains(out, "\"algorithm\": \"allreduce-rm:schedule=a16\", \"makespan_ns\": 20000, ");
  ck_assert_int_eq(fennelsim("best allreduce --ranks 16 " PIPELINED("5us") " --format json "
                                                                           "--top 3"),
                   0);
  ck_assert_int_eq(fs_test_occurrences(out, "{\"rank\": "), 3);
}
END_TEST

/* Without --model the text report says the default (pipelined) was used. */
START_TEST(best_default_model_said) {
  ck_assert_int_eq(fennelsim("best allreduce --ranks 4"), 0);
  fs_test_contains(out, "best allreduce: 4 ranks, 8B, model pipelined (the default; choose with "
                        "--model) {\"table\": \"archer\"");
  ck_assert_int_eq(fennelsim("best allreduce --ranks 4 --model pipelined"), 0);
  fs_test_contains(out, "best allreduce: 4 ranks, 8B, model pipelined {\"table\": \"archer\"");
}
END_TEST

/* Under hockney a put blocks its CPU until it lands, so a stage of factor
 * k costs (k-1)(alpha + beta S): RD takes 3 * 1 us for 8 ranks, beta 0,
 * and a8 7 us. The pre-filter uses c = 0. */
START_TEST(best_hockney_rd_and_a8) {
  ck_assert_int_eq(fennelsim("best allreduce --ranks 8 " HOCKNEY("0") " --format json"), 0);
  fs_test_contains(out, "\"cost_ratio\": 0,");
  winner_time(out, "3000");
  fs_test_contains(out, "\"algorithm\": \"allreduce-rd\", \"makespan_ns\": 3000, ");
  fs_test_contains(out, "\"algorithm\": \"allreduce-rm:schedule=a8\", \"makespan_ns\": 7000, ");
}
END_TEST

/* Barrier at 4 ranks under hockney (alpha 1 us, beta 0): dissemination is
 * 2 rounds of one send each, 2 us; linear is 1 us to reach rank 0, then
 * its 3 answers one after the other on its CPU, 4 us; 3-way n-way is one
 * round of 3 sends, 3 us. Nothing beats 2 rounds of one message. */
START_TEST(best_barrier_four) {
  ck_assert_int_eq(fennelsim("best barrier --ranks 4 " HOCKNEY("0") " --format json"), 0);
  winner_time(out, "2000");
  fs_test_contains(out, "\"algorithm\": \"barrier-dissemination\", \"makespan_ns\": 2000, ");
  fs_test_contains(out, "\"algorithm\": \"barrier-linear\", \"makespan_ns\": 4000, ");
  fs_test_contains(out, "\"algorithm\": \"barrier-nway:ways=3\", \"makespan_ns\": 3000, ");
}
END_TEST

/* Bcast at 2 ranks (alpha 1 us, beta 1 ns/B, 1 KiB): a tree or a line is
 * one message, 1000 + 1024 = 2024 ns, and no schedule does better (the
 * whole vector must reach rank 1, the sender busy until it lands). */
START_TEST(best_bcast_two) {
  ck_assert_int_eq(fennelsim("best bcast --ranks 2 --size 1KiB " HOCKNEY("1ns") " --format json"),
                   0);
  winner_time(out, "2024");
  fs_test_contains(out, "\"algorithm\": \"bcast-binomial\", \"makespan_ns\": 2024, ");
  fs_test_contains(out, "\"algorithm\": \"bcast-linear\", \"makespan_ns\": 2024, ");
}
END_TEST

/* The decision boundary of rd and Rabenseifner at 4 ranks under hockney
 * (alpha 1 us, beta 1 ns/B): rd 2 (alpha + beta S), Rabenseifner
 * 4 alpha + 1.5 beta S (halves and quarters out, then back); they cross at
 * S = 4 alpha / beta = 4000 B. 1 KiB: rd 4048, Rabenseifner 5536; 64 KiB:
 * rd 133072, Rabenseifner 102304, and rd no longer wins. */
START_TEST(best_decision_boundary) {
  ck_assert_int_eq(fennelsim("best allreduce --ranks 4 --sizes 1KiB,64KiB " HOCKNEY(
                       "1ns") " --format json"),
                   0);
  const char *large = strstr(out, "{\"size_bytes\": 65536");
  ck_assert_ptr_nonnull(large);
  fs_test_contains(out, "\"algorithm\": \"allreduce-rd\", \"makespan_ns\": 4048, ");
  fs_test_contains(out, "\"algorithm\": \"allreduce-rabenseifner\", \"makespan_ns\": 5536, ");
  fs_test_contains(large, "\"algorithm\": \"allreduce-rd\", \"makespan_ns\": 133072, ");
  fs_test_contains(large, "\"algorithm\": \"allreduce-rabenseifner\", \"makespan_ns\": 102304, ");
  winner_time(out, "4048");
  ck_assert(strstr(large, "\"winner\": {\"algorithm\": \"allreduce-rd\"") == NULL);
  /* the text table: a row per size */
  ck_assert_int_eq(fennelsim("best allreduce --ranks 4 --sizes '1KiB..64KiB*64' " HOCKNEY("1ns")),
                   0);
  fs_test_contains(out, "\n1KiB      ");
  fs_test_contains(out, "\n64KiB     ");
}
END_TEST

/* The issue's example: 48 ranks, 1 MiB, hockney (defaults alpha 1260 ns,
 * beta 0.098039216 ns/B): the ring and elimination (the issue's 319766 and
 * 317100 ns, rounded) are candidates now; the winner is at least as fast as
 * elimination. The ring: 2 x 47 steps, each limited by its largest block,
 * ceil(1048576 / 48) = 21846 B: 1260 + 21846 x 0.098039216 = 3401.765 ns
 * (to the ps), x 94 = 319765.91 ns. */
START_TEST(best_issue_example) {
  ck_assert_int_eq(fennelsim("best allreduce --ranks 48 --size 1MiB --model hockney --format "
                             "json"),
                   0);
  fs_test_contains(out, "\"algorithm\": \"allreduce-ring\", \"makespan_ns\": 319765.91,");
  fs_test_contains(out, "\"algorithm\": \"allreduce-elimination\", \"makespan_ns\": 317099.606,");
  const char *w = strstr(out, "\"winner\": {");
  ck_assert_ptr_nonnull(w);
  ck_assert(strtod(strstr(w, "\"time_ns\": ") + 11, NULL) <= 317099.606);
}
END_TEST

/* Skipped candidates: allgather at 6 ranks has no recursive doubling (a
 * power of two); JSON lists it with the reason, the text counts it. */
START_TEST(best_skipped_listed) {
  ck_assert_int_eq(fennelsim("best allgather --ranks 6 " HOCKNEY("0") " --format json"), 0);
  fs_test_contains(out, "\"skipped\": [{\"algorithm\": \"allgather-rd\", \"reason\": ");
  ck_assert_int_eq(fennelsim("best allgather --ranks 6 " HOCKNEY("0")), 0);
  fs_test_contains(out, " not applicable at 6 ranks (--format json lists them)\n");
  ck_assert_int_eq(fennelsim("best allgather --ranks 6 " HOCKNEY("0") " --format csv"), 0);
  fs_test_contains(out, "\n8,,allgather-rd,,skipped,,,,,,,");
}
END_TEST

/* The same output on 1 and 2 threads, with noise and seeds too. */
START_TEST(best_thread_independent) {
  const char *runs[] = {"best allreduce --ranks 12 --sizes 8B,1MiB --format json",
                        "best bcast --ranks 9 --noise net=lognormal:sigma=0.3 --seeds 8 "
                        "--rank-by p99 --format json"};
  for (int k = 0; k < 2; k++) {
    ck_assert_int_eq(fennelsim("%s --threads 1", runs[k]), 0);
    char *one = strdup(out);
    ck_assert_int_eq(fennelsim("%s --threads 2", runs[k]), 0);
    ck_assert_str_eq(one, out);
    free(one);
  }
  fs_test_contains(out, "\"seeds\": 8, \"seed\": 1, \"rank_by\": \"p99\"");
  fs_test_contains(out, "\"p99_ns\": ");
}
END_TEST

/* Issue 16 item 11 still holds: the sentence's parts add up. 16 ranks
 * (alpha_p 5 us, alpha_r 1 us): the heuristic's schedule is one of the 29
 * enumerated; 720 ranks, 20 candidates: it is not among the 20 cheapest,
 * so it is added; capped says so. */
START_TEST(best_counts_add_up) {
  ck_assert_int_eq(fennelsim("best allreduce --ranks 16 " PIPELINED("5us") " --top 1"), 0);
  fs_test_contains(out, " and the 29 cheapest recursive-multiplying schedules under the cost "
                        "model (c = 5) (all of them); the heuristic's is one of them");
  ck_assert_int_eq(fennelsim("best allreduce --ranks 720 --candidates 20 --top 1"), 0);
  fs_test_contains(out, ", the recursive-multiplying heuristic's schedule and the 20 cheapest "
                        "recursive-multiplying schedules under the cost model (c = 2.316) "
                        "(capped: raise --candidates to search more)");
}
END_TEST

START_TEST(best_bad_input_exits_2) {
  const struct {
    const char *arguments, *message;
  } cases[] = {
      {"best", "no collective named"},
      {"best allreduce", "--ranks is required"},
      {"best bcasts --ranks 4", "best bcasts: expected a collective: bcast, reduce"},
      {"best bcast --ranks 4 --size 8B --sizes 1B,2B", "--size and --sizes: give one or the other"},
      {"best bcast --ranks 4 --sizes 8B..1KiB", "--sizes 8B..1KiB: '8B..1KiB': expected a range"},
      {"best bcast --ranks 4 --sizes 8B,,1KiB", "--sizes 8B,,1KiB: an empty item"},
      {"best bcast --ranks 4 --rank-by p50", "--rank-by p50: expected median, mean or p99"},
      {"best bcast --ranks 4 --rank-by p99", "--rank-by p99 needs --seeds N"},
      {"best bcast --ranks 8 --nodes 1 --cores 4", "--nodes 1 --cores 4: expected at most"},
      {"best allreduce allreduce --ranks 4", "one collective at a time"},
      {"best allreduce --ranks 0", "--ranks 0: expected a whole number from 1 to 4096"},
      {"best allreduce --ranks 5000", "--ranks 5000: expected a whole number from 1 to 4096"},
      {"best allreduce --ranks 4 --model nosuch", "unknown network model 'nosuch'"},
      {"best allreduce --ranks 4 --compute nosuch", "unknown compute model 'nosuch'"},
      {"best allreduce --ranks 4 --param alfa=1", "--param alfa: no parameter"},
      {"best allreduce --ranks 4 --param alpha_p", "--param alpha_p: expected KEY=VALUE"},
      {"best allreduce --ranks 4 --format xml", "--format xml: expected text, json or csv"},
      {"best allreduce --ranks 4 --candidates 0", "--candidates 0: expected a whole number"},
      {"best allreduce --ranks 4 --top -1", "--top -1: expected a whole number"},
      {"best allreduce --ranks 4 --size 3parsecs", "--size 3parsecs"},
      {"best allreduce --ranks 4 --bogus", "unknown option --bogus (see fennelsim best --help)"},
      {"best allreduce --ranks", "--ranks needs a value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_msg(fennelsim("%s", cases[i].arguments) == 2, "fennelsim %s", cases[i].arguments);
    fs_test_contains(err, "fennelsim best: ");
    fs_test_contains(err, cases[i].message);
  }
  ck_assert_int_eq(fennelsim("best --help"), 0);
  fs_test_contains(out, "usage: fennelsim best COLLECTIVE --ranks N");
}
END_TEST

static Suite *best_suite(void) {
  Suite *s = suite_create("best");
  TCase *space = tcase_create("candidates");
  tcase_add_test(space, enumerate_sixteen_exhaustive);
  tcase_add_test(space, enumerate_capped_keeps_the_cheapest);
  suite_add_tcase(s, space);
  TCase *table = tcase_create("report");
  tcase_add_test(table, candidates_follow_the_variants);
  tcase_add_test(table, ranking_ties_skips_and_libraries);
  tcase_add_test(table, noise_ranks_by_the_statistic);
  tcase_add_test(table, decision_table);
  suite_add_tcase(s, table);
  TCase *command = tcase_create("command");
  tcase_set_timeout(command, 120);
  tcase_add_test(command, best_sixteen_json);
  tcase_add_test(command, best_default_model_said);
  tcase_add_test(command, best_hockney_rd_and_a8);
  tcase_add_test(command, best_barrier_four);
  tcase_add_test(command, best_bcast_two);
  tcase_add_test(command, best_decision_boundary);
  tcase_add_test(command, best_issue_example);
  tcase_add_test(command, best_skipped_listed);
  tcase_add_test(command, best_thread_independent);
  tcase_add_test(command, best_counts_add_up);
  tcase_add_test(command, best_bad_input_exits_2);
  suite_add_tcase(s, command);
  return s;
}

int main(void) {
  int status = fs_test_run(best_suite());
  free(out);
  free(err);
  return status;
}
