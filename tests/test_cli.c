/* test_cli.c: the fennelsim command end to end: gen, run (text, JSON,
 * timeline), convert, gzip, stdin, and the exit status and message of each
 * usage or input error. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static char *out, *err;

static int fennelsim(const char *format, ...) __attribute__((format(printf, 1, 2)));

static int fennelsim(const char *format, ...) {
  char arguments[4096];
  va_list ap;
  va_start(ap, format);
  vsnprintf(arguments, sizeof arguments, format, ap);
  va_end(ap);
  free(out);
  free(err);
  return fs_test_fennelsim(arguments, &out, &err);
}

static void contains(const char *text, const char *part) {
  ck_assert_msg(text && strstr(text, part), "expected '%s' in:\n%s", part, text ? text : "(null)");
}

/* SPEC §4's example under hockney, alpha 1 us, beta 0: p0 blocks rank 0
 * [0,1000]; c1 [1000,1010]; q1 blocks rank 1 [1010,2010]; c0 [2010,2020].
 * Finish: rank 0 2020, rank 1 2010. */
START_TEST(run_spec_example_json) {
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model hockney --param alpha=1us "
                             "--param beta=0 --format json"), 0);
  contains(out, "\"makespan_ns\": 2020, \"finish_ns\": [2020, 2010]");
  contains(out, "\"model\": \"hockney\", \"model_parameters\": {\"alpha_ns\": 1000, "
                "\"beta_ns_per_byte\": 0}");
  contains(out, "\"tasks\": 6, \"dependencies\": 6");
  contains(out, "\"events\": 6");
  contains(out, "\"wall_s\": ");
}
END_TEST

START_TEST(run_text_summary) {
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model=hockney --param alpha=1us "
                             "--param beta=0"), 0);
  contains(out, "makespan   2.02 us (2020 ns)");
  contains(out, "finish ns  0:2020 1:2010");
  contains(out, "events     6 in ");
}
END_TEST

/* gen then run: RD on 8 ranks, pipelined (alpha_p 500, alpha_r 100,
 * beta 0.4 ns/B, 8 B), reduce priced by the default fixed model at 0:
 * 3 rounds of 603.2 ns = 1809.6 ns. */
START_TEST(gen_then_run) {
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen allreduce-rd --ranks 8 --size 8B -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("run %s --model pipelined --param alpha_p=500ns --param alpha_r=100ns "
                             "--param beta=0.4ns --format json", dag), 0);
  contains(out, "\"makespan_ns\": 1809.6");
  contains(out, "\"ranks\": 8");
  /* gzip output: the gzip magic, and the same result */
  char *gz = fs_test_temp_path(".dag.gz");
  ck_assert_int_eq(fennelsim("gen allreduce-rd --ranks 8 --size 8B -o %s", gz), 0);
  size_t length;
  char *bytes = fs_test_read_file(gz, &length);
  ck_assert(length > 2 && (unsigned char)bytes[0] == 0x1f && (unsigned char)bytes[1] == 0x8b);
  free(bytes);
  ck_assert_int_eq(fennelsim("run %s --param alpha_p=500ns --param alpha_r=100ns --param beta=0.4ns "
                             "--format json", gz), 0);
  contains(out, "\"makespan_ns\": 1809.6");
  /* convert back to text: identical to the direct output */
  char *back = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("convert %s %s", gz, back), 0);
  char *a = fs_test_read_file(dag, NULL), *b = fs_test_read_file(back, NULL);
  ck_assert_str_eq(a, b);
  free(a), free(b), free(dag), free(gz), free(back);
}
END_TEST

START_TEST(gen_to_stdout_and_list) {
  ck_assert_int_eq(fennelsim("gen pingpong --rounds 2 --size 1KiB"), 0);
  ck_assert(strncmp(out, "fennel-dag 1\nranks 2\n", 21) == 0);
  contains(out, "size=1KiB");
  ck_assert_int_eq(fennelsim("gen --list"), 0);
  contains(out, "pingpong");
  contains(out, "multicast");
  contains(out, "allreduce-rd");
  contains(out, "allreduce-rm");
  ck_assert_int_eq(fennelsim("gen allreduce-rm --ranks 6 --factors 3,2"), 0);
  contains(out, "ranks 6");
}
END_TEST

/* --schedule: Fig. 5.13's merge for 7 ranks, the heuristic (auto, auto:C),
 * then run: m1g2a3,n1g3a2 under alpha_p 500, alpha_r 100, beta 0 takes
 * (500 + 3*100) + (500 + 2*100) = 1500 ns (eq. 5.11). auto:5 for 16 is
 * a4,a4 (sorted factors 6,5,7,4,...): 2 (500 + 300) = 1600 ns. */
START_TEST(gen_allreduce_rm_schedules) {
  char *dag = fs_test_temp_path(".dag");
  const struct { const char *arguments; const char *makespan; } cases[] = {
      {"--ranks 7 --schedule m1g2a3,n1g3a2", "\"makespan_ns\": 1500,"},
      {"--ranks 16 --schedule auto:5", "\"makespan_ns\": 1600,"},
      {"--ranks 7 --schedule=c6m2,a2,a2,e6m2", "\"makespan_ns\": 2400,"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(fennelsim("gen allreduce-rm %s -o %s", cases[i].arguments, dag), 0);
    ck_assert_int_eq(fennelsim("run %s --model pipelined --param alpha_p=500ns --param "
                               "alpha_r=100ns --param beta=0 --format json", dag), 0);
    contains(out, cases[i].makespan);
  }
  ck_assert_int_eq(fennelsim("gen allreduce-rm --ranks 300 --schedule auto"), 0);
  contains(out, "ranks 300");
  free(dag);
}
END_TEST

/* best: listed in the help; a small ranking in JSON. */
START_TEST(best_command) {
  ck_assert_int_eq(fennelsim("help"), 0);
  contains(out, "  best allreduce --ranks N");
  ck_assert_int_eq(fennelsim("best allreduce --ranks 4 --model pipelined --param alpha_p=500ns "
                             "--param alpha_r=100ns --param beta=0 --format json --top 1"), 0);
  contains(out, "\"entries\": [{\"schedule\": \"a4\", \"makespan_ns\": 800, \"messages\": 12, "
                "\"ratio\": 1.000000}]}\n");
}
END_TEST

START_TEST(stdin_input) {
  ck_assert_int_eq(fennelsim("run - --model hockney --param alpha=1us --param beta=0 "
                             "--format json < schedules/spec-example.dag"), 0);
  contains(out, "\"makespan_ns\": 2020");
}
END_TEST

/* The timeline of the spec example under hockney (times above). */
START_TEST(timeline_csv) {
  char *csv = fs_test_temp_path(".csv");
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model hockney --param alpha=1us "
                             "--param beta=0 --timeline %s", csv), 0);
  char *text = fs_test_read_file(csv, NULL);
  ck_assert_str_eq(text,
                   "name,kind,rank,core,ready_ns,start_ns,local_end_ns,remote_end_ns,label\n"
                   "s0,start,0,,0,0,0,0,\n"
                   "s1,start,1,,0,0,0,0,\n"
                   "p0,put,0,,0,0,1000,1000,\n"
                   "c1,compute,1,,1000,1000,1010,1010,\n"
                   "q1,put,1,,1010,1010,2010,2010,\n"
                   "c0,compute,0,,2010,2010,2020,2020,\n");
  free(text);
  /* into a directory that does not exist: an error, no file */
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --timeline /nonexistent/dir/t.csv"), 2);
  contains(err, "/nonexistent/dir/t.csv");
  free(csv);
}
END_TEST

START_TEST(bad_input_exits_2_with_position) {
  char *dag = fs_test_temp_path(".dag");
  fs_test_write_file(dag, "fennel-dag 1\nranks 2\na start 0\nb put 0 to=5 after=a\n", 0);
  ck_assert_int_eq(fennelsim("run %s", dag), 2);
  char where[512];
  snprintf(where, sizeof where, "%s:4:", dag);
  contains(err, where);
  ck_assert_int_eq(fennelsim("run /nonexistent.dag"), 2);
  contains(err, "/nonexistent.dag");
  ck_assert_int_eq(fennelsim("convert /nonexistent.dag %s", dag), 2);
  free(dag);
}
END_TEST

START_TEST(usage_errors_exit_2) {
  const struct { const char *arguments, *message; } cases[] = {
      {"", "usage: fennelsim"},
      {"frobnicate", "unknown command 'frobnicate'"},
      {"run", "no schedule given"},
      {"run a.dag b.dag", "one schedule at a time"},
      {"run schedules/spec-example.dag --model nosuch", "unknown network model 'nosuch'"},
      {"run schedules/spec-example.dag --compute nosuch", "unknown compute model 'nosuch'"},
      {"run schedules/spec-example.dag --param alfa=1", "--param alfa: no parameter"},
      {"run schedules/spec-example.dag --param alpha", "expected KEY=VALUE"},
      {"run schedules/spec-example.dag --format xml", "--format xml: expected text or json"},
      {"run schedules/spec-example.dag --bogus", "unknown option --bogus"},
      {"run schedules/spec-example.dag --model", "--model needs a value"},
      {"gen", "no generator named"},
      {"gen nosuch --ranks 4", "unknown generator 'nosuch'"},
      {"gen allreduce-rd", "--ranks is required"},
      {"gen allreduce-rd --ranks 0", "--ranks 0: expected a whole number"},
      {"gen allreduce-rd --ranks 4 --size 3parsecs", "--size 3parsecs"},
      {"gen allreduce-rm --ranks 8 --factors 4,3", "the factors multiply to"},
      {"gen allreduce-rm --ranks 8 --factors 4,", "trailing comma"},
      {"gen allreduce-rm --ranks 8 --factors 4,x", "--factors 4,x"},
      {"gen allreduce-rm --ranks 8 --factors 4,2 --schedule a4,a2", "give --factors or --schedule, "
                                                                   "not both"},
      {"gen allreduce-rm --ranks 8 --schedule a4,a4", "stage 2 (a4): 4 does not divide the 2 "
                                                      "ranks left"},
      {"gen allreduce-rm --ranks 8 --schedule m1g2a3,n1g3a2", "stage 1 (m1g2a3): R + G*K = 7, "
                                                              "not the 8 ranks"},
      {"gen allreduce-rm --ranks 8 --schedule a4,x2", "rm schedule: column 4: expected a stage"},
      {"gen allreduce-rm --ranks 8 --schedule auto:fast", "expected auto[-unsorted] or auto[-unsorted]:C"},
      {"gen allreduce-rd --ranks 8 --schedule a4,a2", "--schedule does not apply to allreduce-rd"},
      {"best allreduce --ranks 0", "fennelsim best: --ranks 0"},
      {"best gather --ranks 4", "only allreduce is searched"},
      {"gen pingpong --rounds 0", "--rounds 0"},
      {"gen allreduce-rd --ranks 4 --reduce-time soon", "--reduce-time soon"},
      {"convert onlyone", "usage: fennelsim convert"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_msg(fennelsim("%s", cases[i].arguments) == 2, "fennelsim %s", cases[i].arguments);
    contains(err, cases[i].message);
  }
}
END_TEST

START_TEST(help_and_version) {
  ck_assert_int_eq(fennelsim("--help"), 0);
  contains(out, "usage: fennelsim");
  ck_assert_int_eq(fennelsim("run --help"), 0);
  contains(out, "--timeline");
  ck_assert_int_eq(fennelsim("gen --help"), 0);
  contains(out, "--factors");
  ck_assert_int_eq(fennelsim("--version"), 0);
  contains(out, "fennelsim ");
}
END_TEST

/* LogGOPSim's published outputs from hand-written GOAL files (tests/goal/),
 * under loggops with its defaults; the derivations are in
 * tests/test_two_sided.c, which builds the same programs in memory. */
START_TEST(goal_golden_outputs) {
  const struct { const char *file, *params, *finish; } cases[] = {
      {"one-send.goal", "", "\"finish_ns\": [1500, 5500]"},
      {"bcast-binomial-4.goal", "", "\"finish_ns\": [8638, 13138, 18776, 23276]"},
      {"bcast-binomial-4.goal",
       "--param L=1000ns --param o=200ns --param g=100ns --param G=1ns --param S=256",
       "\"finish_ns\": [2323, 3623, 3546, 4846]"},
      {"reduce-binomial-8.goal", "",
       "\"finish_ns\": [34914, 24776, 13138, 13138, 1500, 1500, 1500, 1500]"},
      {"allreduce-recdoub-8.goal", "",
       "\"finish_ns\": [33048, 33048, 33048, 33048, 33048, 33048, 33048, 33048]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(fennelsim("run tests/goal/%s --model loggops %s --format json", cases[i].file,
                               cases[i].params), 0);
    contains(out, cases[i].finish);
  }
}
END_TEST

/* The generators give the same numbers, through GOAL text and through .dag. */
START_TEST(goal_generators_round_trip) {
  char *goal = fs_test_temp_path(".goal"), *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --size 1KiB -o %s", goal), 0);
  ck_assert_int_eq(fennelsim("run %s --model loggops --format json", goal), 0);
  contains(out, "\"finish_ns\": [8638, 13138, 18776, 23276]");
  ck_assert_int_eq(fennelsim("convert %s %s", goal, dag), 0);
  ck_assert_int_eq(fennelsim("run %s --model loggops --format json", dag), 0);
  contains(out, "\"finish_ns\": [8638, 13138, 18776, 23276]");
  /* 3 rounds of o + L + 7G + o = 5542 */
  ck_assert_int_eq(fennelsim("gen barrier-dissemination --ranks 8 --size 8B -o %s", goal), 0);
  ck_assert_int_eq(fennelsim("run %s --model loggops --format json", goal), 0);
  contains(out, "\"makespan_ns\": 16626");
  /* the hand-written recdoub file is what the generator writes */
  ck_assert_int_eq(fennelsim("gen allreduce-recdoub --ranks 8 --size 8B --format goal"), 0);
  char *hand = fs_test_read_file(FENNELSIM_SOURCE_ROOT "/tests/goal/allreduce-recdoub-8.goal", NULL);
  const char *body = strstr(hand, "num_ranks");
  ck_assert_str_eq(out, body);
  free(hand), free(goal), free(dag);
}
END_TEST

/* Unmatched messages and a requires cycle: status 1 and a report. */
START_TEST(goal_deadlock_report) {
  ck_assert_int_eq(fennelsim("run tests/goal/unmatched.goal --model loggops"), 1);
  contains(err, "deadlock: 3 of 5 tasks can never become ready; 2 receives or messages found no "
                "partner");
  contains(err, "r0.l2 (compute, rank 0) waits for 1 more completion: r0.l3 (compute, rank 0, "
                "never ready)");
  contains(err, "r1.l2 (compute, rank 1) waits for 1 more completion: r1.l1 (recv, rank 1, never "
                "matched)");
  contains(err, "rank 1: recv r1.l1 from 0 tag 6 was posted; no message matched it");
  contains(err, "rank 1: the message of send r0.l1 from rank 0 tag 5 arrived; no recv matched it");
  contains(out, "finish ns  0:1500 1:5542");
}
END_TEST

/* Where LogGOPSim is wrong, fennelsim keeps program order. allreduce-recdoub
 * on 256 ranks has 17 operations ready at once on every rank (16 recvs and
 * the first send), which LogGOPSim's unstable sort reorders, then deadlocks.
 * fennelsim: each round is o + L + o + (s-1)G = 5500 + 6(s-1) for s >= 1
 * and 5500 for s = 0 (no negative (s-1)G); halving sends 4, 2, 1, 0, 0, 0,
 * 0, 0 bytes (5518 + 5506 + 5500 + 5 * 5500 = 44024) and doubling keeps 0
 * bytes (8 * 5500 = 44000): 88024 on every rank. The binomial broadcast at
 * 2^17 ranks gives the stable-sort LogGOPSim's 94214 (17 hops of 5542). */
START_TEST(goal_ordering_beyond_16_ready_ops) {
  ck_assert_int_eq(fennelsim("gen allreduce-recdoub --ranks 256 --size 8B | "
                             "'%s' run - --model loggops --format json", FENNELSIM_BINARY), 0);
  contains(out, "\"makespan_ns\": 88024, \"finish_ns\": [88024, 88024,");
  ck_assert_ptr_null(strstr(out, "88023"));
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 131072 --size 8B | "
                             "'%s' run - --model loggops --format json", FENNELSIM_BINARY), 0);
  contains(out, "\"makespan_ns\": 94214");
}
END_TEST

/* A platform changes nothing for models without one: the ring allgather
 * on 4 nodes of 8 under hockney, sequential or round-robin, gives the same
 * makespan; under taulop (the shipped illustrative Metropolis tables)
 * round-robin is several times slower. */
START_TEST(platform_mapping) {
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen allgather-ring --ranks 32 --size 64KiB -o %s", dag), 0);
  char *runs[2][2];
  const char *models[2] = {"--model hockney",
                           "--model taulop --param shm_table=models/metropolis-shm.table "
                           "--param net_table=models/metropolis-net.table"};
  const char *mappings[2] = {"seq", "rr"};
  for (int m = 0; m < 2; m++)
    for (int k = 0; k < 2; k++) {
      ck_assert_int_eq(fennelsim("run %s %s --nodes 4 --cores 8 --mapping %s --format json", dag,
                                 models[m], mappings[k]), 0);
      char *at = strstr(out, "\"makespan_ns\": ");
      ck_assert_ptr_nonnull(at);
      runs[m][k] = strndup(at, (size_t)(strchr(at, ',') - at));
    }
  ck_assert_str_eq(runs[0][0], runs[0][1]);
  double sequential = atof(runs[1][0] + 15), round_robin = atof(runs[1][1] + 15);
  ck_assert_msg(round_robin > 4 * sequential, "%s vs %s", runs[1][1], runs[1][0]);
  for (int m = 0; m < 2; m++) free(runs[m][0]), free(runs[m][1]);
  /* a platform that does not fit the program is bad input: exit 2, file:line */
  ck_assert_int_eq(fennelsim("gen allgather-ring --ranks 40 -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("run %s --platform models/platform-4x8-seq.xml --model taulop "
                             "--param shm_table=models/metropolis-shm.table "
                             "--param net_table=models/metropolis-net.table", dag), 2);
  contains(err, "models/platform-4x8-seq.xml:18: expected at most 32 ranks on 4 nodes x 8 cores "
                "(got 40)");
  ck_assert_int_eq(fennelsim("run %s --mapping diagonal --nodes 4 --cores 8 --model taulop "
                             "--param shm_table=models/metropolis-shm.table "
                             "--param net_table=models/metropolis-net.table", dag), 2);
  contains(err, "--mapping diagonal: expected seq or rr");
  free(dag);
}
END_TEST

static Suite *cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *c = tcase_create("commands");
  tcase_add_test(c, run_spec_example_json);
  tcase_add_test(c, run_text_summary);
  tcase_add_test(c, gen_then_run);
  tcase_add_test(c, gen_to_stdout_and_list);
  tcase_add_test(c, gen_allreduce_rm_schedules);
  tcase_add_test(c, best_command);
  tcase_add_test(c, stdin_input);
  tcase_add_test(c, timeline_csv);
  tcase_add_test(c, bad_input_exits_2_with_position);
  tcase_add_test(c, usage_errors_exit_2);
  tcase_add_test(c, help_and_version);
  tcase_add_test(c, goal_golden_outputs);
  tcase_add_test(c, goal_generators_round_trip);
  tcase_add_test(c, goal_deadlock_report);
  tcase_add_test(c, goal_ordering_beyond_16_ready_ops);
  tcase_add_test(c, platform_mapping);
  suite_add_tcase(s, c);
  return s;
}

int main(void) {
  int status = fs_test_run(cli_suite());
  free(out);
  free(err);
  return status;
}
