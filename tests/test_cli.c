/* test_cli.c: the fennelsim command end to end: gen, run (text, JSON,
 * timeline), convert, gzip, stdin, and the exit status and message of each
 * usage or input error. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_support.h"

static char *out, *err;

/* The .dag format's example (schedules/spec-example.dag) under hockney, alpha 1 us, beta 0: p0 blocks rank 0
 * [0,1000]; c1 [1000,1010]; q1 blocks rank 1 [1010,2010]; c0 [2010,2020].
 * Finish: rank 0 2020, rank 1 2010. */
START_TEST(run_spec_example_json) {
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model hockney --param alpha=1us "
                             "--param beta=0 --format json"),
                   0);
  fs_test_contains(out, "\"makespan_ns\": 2020, \"finish_ns\": [2020, 2010]");
  fs_test_contains(out, "\"model\": \"hockney\", \"model_parameters\": {\"alpha_ns\": 1000, "
                        "\"beta_ns_per_byte\": 0}");
  fs_test_contains(out, "\"tasks\": 6, \"dependencies\": 6");
  fs_test_contains(out, "\"events\": 6");
  fs_test_contains(out, "\"wall_s\": ");
}
END_TEST

START_TEST(run_text_summary) {
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model=hockney --param alpha=1us "
                             "--param beta=0"),
                   0);
  fs_test_contains(out, "makespan   2.02 us (2020 ns)");
  fs_test_contains(out, "finish ns  0:2020 1:2010");
  fs_test_contains(out, "events     6 in ");
}
END_TEST

/* gen then run: RD on 8 ranks, pipelined (alpha_p 500, alpha_r 100,
 * beta 0.4 ns/B, 8 B), reduce priced by the default fixed model at 0:
 * 3 rounds of 603.2 ns = 1809.6 ns. */
START_TEST(gen_then_run) {
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen allreduce-rd --ranks 8 --size 8B -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("run %s --model pipelined --param alpha_p=500ns --param alpha_r=100ns "
                             "--param beta=0.4ns --format json",
                             dag),
                   0);
  fs_test_contains(out, "\"makespan_ns\": 1809.6");
  fs_test_contains(out, "\"ranks\": 8");
  /* gzip output: the gzip magic, and the same result */
  char *gz = fs_test_temp_path(".dag.gz");
  ck_assert_int_eq(fennelsim("gen allreduce-rd --ranks 8 --size 8B -o %s", gz), 0);
  size_t length;
  char *bytes = fs_test_read_file(gz, &length);
  ck_assert(length > 2 && (unsigned char)bytes[0] == 0x1f && (unsigned char)bytes[1] == 0x8b);
  free(bytes);
  ck_assert_int_eq(fennelsim("run %s --param alpha_p=500ns --param alpha_r=100ns --param "
                             "beta=0.4ns "
                             "--format json",
                             gz),
                   0);
  fs_test_contains(out, "\"makespan_ns\": 1809.6");
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
  fs_test_contains(out, "size=1KiB");
  ck_assert_int_eq(fennelsim("gen --list"), 0);
  fs_test_contains(out, "pingpong");
  fs_test_contains(out, "multicast");
  fs_test_contains(out, "allreduce-rd");
  fs_test_contains(out, "allreduce-rm");
  ck_assert_int_eq(fennelsim("gen allreduce-rm --ranks 6 --factors 3,2"), 0);
  fs_test_contains(out, "ranks 6");
}
END_TEST

/* --schedule: Fig. 5.13's merge for 7 ranks, the heuristic (auto, auto:C),
 * then run: m1g2a3,n1g3a2 under alpha_p 500, alpha_r 100, beta 0 takes
 * (500 + 3*100) + (500 + 2*100) = 1500 ns (eq. 5.11). auto:5 for 16 is
 * a4,a4 (sorted factors 6,5,7,4,...): 2 (500 + 300) = 1600 ns. */
START_TEST(gen_allreduce_rm_schedules) {
  char *dag = fs_test_temp_path(".dag");
  const struct {
    const char *arguments;
    const char *makespan;
  } cases[] = {
      {"--ranks 7 --schedule m1g2a3,n1g3a2", "\"makespan_ns\": 1500,"},
      {"--ranks 16 --schedule auto:5", "\"makespan_ns\": 1600,"},
      {"--ranks 7 --schedule=c6m2,a2,a2,e6m2", "\"makespan_ns\": 2400,"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(fennelsim("gen allreduce-rm %s -o %s", cases[i].arguments, dag), 0);
    ck_assert_int_eq(fennelsim("run %s --model pipelined --param alpha_p=500ns --param "
                               "alpha_r=100ns --param beta=0 --format json",
                               dag),
                     0);
    fs_test_contains(out, cases[i].makespan);
  }
  ck_assert_int_eq(fennelsim("gen allreduce-rm --ranks 300 --schedule auto"), 0);
  fs_test_contains(out, "ranks 300");
  free(dag);
}
END_TEST

/* best: listed in the help; a small ranking in JSON. */
START_TEST(best_command) {
  ck_assert_int_eq(fennelsim("help"), 0);
  fs_test_contains(out, "  best allreduce --ranks N");
  ck_assert_int_eq(fennelsim("best allreduce --ranks 4 --model pipelined --param alpha_p=500ns "
                             "--param alpha_r=100ns --param beta=0 --format json --top 1"),
                   0);
  /* one round of 3 messages: alpha_p + 3 alpha_r = 800 ns, by a4 and by the
   * 2- and 3-way disseminations; ties go to the first candidate */
  fs_test_contains(out, "\"entries\": [{\"rank\": 1, \"algorithm\": "
                        "\"allreduce-dissemination:ways=2\", \"makespan_ns\": 800, \"tasks\": 36, "
                        "\"ratio\": 1.000000}]");
  fs_test_contains(out, "\"skipped\": []");
}
END_TEST

START_TEST(stdin_input) {
  ck_assert_int_eq(fennelsim("run - --model hockney --param alpha=1us --param beta=0 "
                             "--format json < schedules/spec-example.dag"),
                   0);
  fs_test_contains(out, "\"makespan_ns\": 2020");
}
END_TEST

/* The timeline of the spec example under hockney (times above). */
START_TEST(timeline_csv) {
  char *csv = fs_test_temp_path(".csv");
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model hockney --param alpha=1us "
                             "--param beta=0 --timeline %s",
                             csv),
                   0);
  char *text = fs_test_read_file(csv, NULL);
  ck_assert_str_eq(text, "name,kind,rank,core,ready_ns,start_ns,local_end_ns,remote_end_ns,label\n"
                         "s0,start,0,,0,0,0,0,\n"
                         "s1,start,1,,0,0,0,0,\n"
                         "p0,put,0,,0,0,1000,1000,\n"
                         "c1,compute,1,,1000,1000,1010,1010,\n"
                         "q1,put,1,,1010,1010,2010,2010,\n"
                         "c0,compute,0,,2010,2010,2020,2020,\n");
  free(text);
  /* into a directory that does not exist: an error, no file */
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --timeline /nonexistent/dir/t.csv"),
                   2);
  fs_test_contains(err, "/nonexistent/dir/t.csv");
  free(csv);
}
END_TEST

START_TEST(bad_input_exits_2_with_position) {
  char *dag = fs_test_temp_path(".dag");
  fs_test_write_file(dag, "fennel-dag 1\nranks 2\na start 0\nb put 0 to=5 after=a\n", 0);
  ck_assert_int_eq(fennelsim("run %s", dag), 2);
  char where[512];
  snprintf(where, sizeof where, "%s:4:", dag);
  fs_test_contains(err, where);
  ck_assert_int_eq(fennelsim("run /nonexistent.dag"), 2);
  fs_test_contains(err, "/nonexistent.dag");
  ck_assert_int_eq(fennelsim("convert /nonexistent.dag %s", dag), 2);
  free(dag);
}
END_TEST

START_TEST(usage_errors_exit_2) {
  const struct {
    const char *arguments, *message;
  } cases[] = {
      {"", "usage: fennelsim"},
      {"frobnicate", "unknown command 'frobnicate'"},
      {"run", "no schedule given"},
      {"run schedules/spec-example.dag schedules/concurrent-pair.dag", "one schedule at a time"},
      {"run schedules/spec-example.dag --model nosuch", "unknown network model 'nosuch'"},
      {"run schedules/spec-example.dag --compute nosuch", "unknown compute model 'nosuch'"},
      {"run schedules/spec-example.dag --param alfa=1", "--param alfa: no parameter"},
      {"run schedules/spec-example.dag --param alpha", "expected KEY=VALUE"},
      {"run schedules/spec-example.dag --format xml", "--format xml: expected text, json or csv"},
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
      {"gen allreduce-rm --ranks 8 --schedule auto:fast",
       "expected auto[-unsorted] or auto[-unsorted]:C"},
      {"gen allreduce-rd --ranks 8 --schedule a4,a2", "--schedule does not apply to allreduce-rd"},
      {"best allreduce --ranks 0", "fennelsim best: --ranks 0"},
      {"best gathr --ranks 4", "gathr"},
      {"gen pingpong --rounds 0", "--rounds 0"},
      {"gen allreduce-rd --ranks 4 --reduce-time soon", "--reduce-time soon"},
      {"convert onlyone", "usage: fennelsim convert"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_msg(fennelsim("%s", cases[i].arguments) == 2, "fennelsim %s", cases[i].arguments);
    fs_test_contains(err, cases[i].message);
  }
}
END_TEST

START_TEST(help_and_version) {
  ck_assert_int_eq(fennelsim("--help"), 0);
  fs_test_contains(out, "usage: fennelsim");
  ck_assert_int_eq(fennelsim("run --help"), 0);
  fs_test_contains(out, "--timeline");
  ck_assert_int_eq(fennelsim("gen --help"), 0);
  fs_test_contains(out, "--factors");
  ck_assert_int_eq(fennelsim("--version"), 0);
  fs_test_contains(out, "fennelsim ");
}
END_TEST

/* LogGOPSim's published outputs from hand-written GOAL files (tests/goal/),
 * under loggops with its defaults; the derivations are in
 * tests/test_two_sided.c, which builds the same programs in memory. */
START_TEST(goal_golden_outputs) {
  const struct {
    const char *file, *params, *finish;
  } cases[] = {
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
                               cases[i].params),
                     0);
    fs_test_contains(out, cases[i].finish);
  }
}
END_TEST

/* The generators give the same numbers, through GOAL text and through .dag. */
START_TEST(goal_generators_round_trip) {
  char *goal = fs_test_temp_path(".goal"), *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --size 1KiB -o %s", goal), 0);
  ck_assert_int_eq(fennelsim("run %s --model loggops --format json", goal), 0);
  fs_test_contains(out, "\"finish_ns\": [8638, 13138, 18776, 23276]");
  ck_assert_int_eq(fennelsim("convert %s %s", goal, dag), 0);
  ck_assert_int_eq(fennelsim("run %s --model loggops --format json", dag), 0);
  fs_test_contains(out, "\"finish_ns\": [8638, 13138, 18776, 23276]");
  /* 3 rounds of o + L + 7G + o = 5542 */
  ck_assert_int_eq(fennelsim("gen barrier-dissemination --ranks 8 --size 8B -o %s", goal), 0);
  ck_assert_int_eq(fennelsim("run %s --model loggops --format json", goal), 0);
  fs_test_contains(out, "\"makespan_ns\": 16626");
  /* the hand-written recdoub file is what the generator writes */
  ck_assert_int_eq(fennelsim("gen allreduce-recdoub --ranks 8 --size 8B --format goal"), 0);
  char *hand =
      fs_test_read_file(FENNELSIM_SOURCE_ROOT "/tests/goal/allreduce-recdoub-8.goal", NULL);
  const char *body = strstr(hand, "num_ranks");
  ck_assert_str_eq(out, body);
  free(hand), free(goal), free(dag);
}
END_TEST

/* Unmatched messages and a requires cycle: status 1 and a report. */
START_TEST(goal_deadlock_report) {
  ck_assert_int_eq(fennelsim("run tests/goal/unmatched.goal --model loggops"), 1);
  fs_test_contains(err,
                   "deadlock: 3 of 5 tasks can never become ready; 2 receives or messages found no "
                   "partner");
  fs_test_contains(err,
                   "r0.l2 (compute, rank 0) waits for 1 more completion: r0.l3 (compute, rank 0, "
                   "never ready)");
  fs_test_contains(err, "r1.l2 (compute, rank 1) waits for 1 more completion: r1.l1 (recv, rank 1, "
                        "never "
                        "matched)");
  fs_test_contains(err,
                   "recv r1.l1 on rank 1 from rank 0, tag 6, 8B: posted, no message matched it");
  fs_test_contains(err, "send r0.l1 on rank 0 to rank 1, tag 5, 8B: arrived, no recv matched it");
  fs_test_contains(out, "finish ns  0:1500 1:5542");
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
                             "'%s' run - --model loggops --format json",
                             FENNELSIM_BINARY),
                   0);
  fs_test_contains(out, "\"makespan_ns\": 88024, \"finish_ns\": [88024, 88024,");
  ck_assert_ptr_null(strstr(out, "88023"));
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 131072 --size 8B | "
                             "'%s' run - --model loggops --format json",
                             FENNELSIM_BINARY),
                   0);
  fs_test_contains(out, "\"makespan_ns\": 94214");
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
                                 models[m], mappings[k]),
                       0);
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
                             "--param net_table=models/metropolis-net.table",
                             dag),
                   2);
  fs_test_contains(err,
                   "models/platform-4x8-seq.xml:18: expected at most 32 ranks on 4 nodes x 8 cores "
                   "(got 40)");
  ck_assert_int_eq(fennelsim("run %s --mapping diagonal --nodes 4 --cores 8 --model taulop "
                             "--param shm_table=models/metropolis-shm.table "
                             "--param net_table=models/metropolis-net.table",
                             dag),
                   2);
  fs_test_contains(err, "--mapping diagonal: expected seq or rr");
  free(dag);
}
END_TEST

/* ---- issue 15 item 7: output that cannot be written --------------------- */

#define NO_SPACE "fennelsim: cannot write the output: No space left on device\n"

/* fennelsim ARGUMENTS with stdout redirected by stdout_to (">/dev/full",
 * ">&-") and stderr into err; the exit status. */
static int fennelsim_stdout(const char *stdout_to, const char *arguments) {
  char *err_path = fs_test_temp_path(".err");
  char command[4096];
  /* the redirections first: a command may end with a # comment */
  snprintf(command, sizeof command, "cd '%s' && '%s' </dev/null %s 2>'%s' %s",
           FENNELSIM_SOURCE_ROOT, FENNELSIM_BINARY, stdout_to, err_path, arguments);
  int status = system(command);
  free(err);
  err = fs_test_read_file(err_path, NULL);
  remove(err_path);
  free(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Every command's report goes to stdout; /dev/full fails each write, so
 * each command exits 1 with one message, whatever it printed. */
START_TEST(unwritable_output_exits_1) {
  char *dag = fs_test_temp_path(".dag"), *samples = fs_test_temp_path(".csv");
  char *probe = fs_test_temp_path(".csv"), *measured = fs_test_temp_path(".csv");
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --size 1KiB -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("run %s --seeds 3 --samples %s", dag, samples), 0);
  ck_assert_int_eq(fennelsim("probe --model hockney -o %s", probe), 0);
  ck_assert_int_eq(fs_test_write_file(measured,
                                      "# fennelprobe-collectives 1 ranks=4 nodes=2 cores=2 host=h\n"
                                      "collective,algorithm,ranks,bytes,repetitions,min_ns,"
                                      "median_ns,mean_ns,ci95_ns\n"
                                      "bcast,binomial,4,1000,10,5000,5100,5200,10\n",
                                      0),
                   0);
  const char *commands[] = {"run %s",
                            "run %s --format json",
                            "run %s --seeds 4",
                            "run traces/sweep3d-2x2 #%s",
                            "best allreduce --ranks 4 --model hockney #%s",
                            "gen bcast-binomial --ranks 4 #%s",
                            "convert %s -",
                            "merge %s",
                            "probe --model hockney #%s",
                            "fit %s --model hockney",
                            "validate %s --model hockney",
                            "--help #%s",
                            "run --help #%s",
                            "version #%s"};
  const char *inputs[] = {dag,     dag, dag,   dag,      dag, dag, dag,
                          samples, dag, probe, measured, dag, dag, dag};
  for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
    char line[1024];
    snprintf(line, sizeof line, commands[k], inputs[k]);
    ck_assert_msg(fennelsim_stdout(">/dev/full", line) == 1, "%s: exit status not 1", line);
    /* gen and convert write through an output file "-": its own message */
    const char *expected =
        strncmp(line, "gen", 3) == 0 ? "fennelsim gen: -: write failed: No space left on device\n"
        : strncmp(line, "best", 4) == 0
            ? "fennelsim best: -: write failed: No space left on device\n"
        : strncmp(line, "convert", 7) == 0
            ? "fennelsim convert: -: write failed: No space left on device\n"
        : strncmp(line, "probe", 5) == 0 ? "fennelsim: -: write failed: No space left on device\n"
        : strncmp(line, "validate", 8) == 0
            ? "fennelsim validate: cannot write the output: No space left on device\n"
            : NO_SPACE;
    ck_assert_msg(strstr(err, expected) != NULL, "%s: stderr is\n%s", line, err);
  }
  /* stdout closed: fine for gen -o FILE, which prints nothing; not for run */
  char line[1024];
  snprintf(line, sizeof line, "gen bcast-binomial --ranks 4 -o %s", dag);
  ck_assert_int_eq(fennelsim_stdout(">&-", line), 0);
  ck_assert_str_eq(err, "");
  snprintf(line, sizeof line, "run %s", dag);
  ck_assert_int_eq(fennelsim_stdout(">&-", line), 1);
  ck_assert_str_eq(err, "fennelsim: cannot write the output: Bad file descriptor\n");
  free(dag), free(samples), free(probe), free(measured);
}
END_TEST

/* --seeds 2 --shard 2/3 takes seed indices 2, 5, ...: none below 2. */
START_TEST(empty_shard_refused) {
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --seeds 2 --shard 2/3"), 2);
  ck_assert_str_eq(err, "fennelsim: --shard 2/3: no seed of --seeds 2 falls in this shard (its "
                        "index must be below 2)\n");
  ck_assert_str_eq(out, "");
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --seeds 3 --shard 2/3"), 0);
  fs_test_contains(out, "seeds      1 (base seed 1)");
}
END_TEST

/* ---- issue 15 item 8: outputs that would replace inputs, modes, links --- */

static char *file_text(const char *path) { return fs_test_read_file(path, NULL); }

START_TEST(output_replacing_input_refused) {
  char *dag = fs_test_temp_path(".dag"), *trace = fs_test_temp_path(".txt");
  char *csv = fs_test_temp_path(".csv");
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --size 1KiB -o %s", dag), 0);
  ck_assert_int_eq(fs_test_write_file(trace, "100 10\n5000 10\n", 0), 0);
  char *before = file_text(dag);
  const char *lines[][2] = {
      {"run %1$s --seeds 2 --samples %1$s", "--samples %1$s"},
      {"run %1$s --seeds 2 --histogram=%1$s", "--histogram %1$s"},
      {"run %1$s --timeline %1$s", "--timeline %1$s"},
      {"run %1$s --chrome %1$s", "--chrome %1$s"},
      {"run %1$s --svg %1$s", "--svg %1$s"},
      {"convert %1$s %1$s", "the output %1$s"},
      {"gen bcast-binomial --ranks 4 --schedule %1$s -o %1$s", "-o %1$s"},
  };
  for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
    char line[1024], expected[2048], name[1024];
    snprintf(line, sizeof line, lines[k][0], dag);
    snprintf(name, sizeof name, lines[k][1], dag);
    snprintf(expected, sizeof expected,
             "%s: the same file as the input %s: writing it would "
             "replace that file (choose another output path)\n",
             name, dag);
    ck_assert_msg(fennelsim("%s", line) == 2, "%s: exit status not 2", line);
    ck_assert_msg(strstr(err, expected) != NULL, "%s: stderr is\n%s", line, err);
    char *now = file_text(dag);
    ck_assert_str_eq(now, before);
    free(now);
  }
  /* an input named inside another option's value: --noise-trace, then --samples */
  ck_assert_int_eq(fennelsim("run %s --noise-trace %s --seeds 2 --samples %s", dag, trace, trace),
                   2);
  char expected[2048];
  snprintf(expected, sizeof expected,
           "fennelsim: --samples %s: the same file as the input %s: "
           "writing it would replace that file (choose another output path)\n",
           trace, trace);
  ck_assert_str_eq(err, expected);
  char *kept = file_text(trace);
  ck_assert_str_eq(kept, "100 10\n5000 10\n");
  free(kept);
  ck_assert_int_eq(fennelsim("run %s --model pipelined --param table=%s --timeline %s", dag, csv,
                             csv),
                   2); /* csv does not exist: only the table's own error */
  ck_assert_int_eq(fennelsim("run %s --seeds 2 --samples %s", dag, csv), 0);
  ck_assert_int_eq(fennelsim("merge %s --samples %s", csv, csv), 2);
  fs_test_contains(err, "fennelsim: --samples ");
  ck_assert_int_eq(fennelsim("fit %s --model hockney -o %s", csv, csv), 2);
  fs_test_contains(err, "-o ");
  ck_assert_int_eq(fennelsim("run %s --timeline %s.t --chrome %s.t", dag, csv, csv), 2);
  fs_test_contains(err, "also the output of --timeline: each output needs its own file\n");
  /* the same device file twice is fine */
  ck_assert_int_eq(fennelsim("run %s --timeline /dev/null --chrome /dev/null", dag), 0);
  free(before), free(dag), free(trace), free(csv);
}
END_TEST

/* A replaced output keeps its mode; a symbolic link is written through
 * (its target replaced, the link kept). */
START_TEST(output_keeps_mode_and_link) {
  char *dag = fs_test_temp_path(".dag"), *csv = fs_test_temp_path(".csv");
  char *link = fs_test_temp_path(".link.csv");
  ck_assert_int_eq(fs_test_write_file(csv, "old\n", 0), 0);
  ck_assert_int_eq(chmod(csv, 0640), 0);
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --size 1KiB -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("run %s --timeline %s", dag, csv), 0);
  struct stat status;
  ck_assert_int_eq(stat(csv, &status), 0);
  ck_assert_int_eq(status.st_mode & 07777, 0640);
  /* through a relative link in the same directory */
  const char *base = strrchr(csv, '/') + 1;
  ck_assert_int_eq(symlink(base, link), 0);
  ck_assert_int_eq(fennelsim("run %s --chrome %s", dag, link), 0);
  ck_assert_int_eq(lstat(link, &status), 0);
  ck_assert(S_ISLNK(status.st_mode));
  ck_assert_int_eq(stat(csv, &status), 0);
  ck_assert_int_eq(status.st_mode & 07777, 0640);
  char *text = file_text(csv);
  ck_assert_int_eq(text[0], '{'); /* the Chrome trace, in the link's target */
  free(text);
  /* a dangling link: its target is created */
  ck_assert_int_eq(unlink(csv), 0);
  ck_assert_int_eq(fennelsim("run %s --timeline %s", dag, link), 0);
  ck_assert_int_eq(lstat(link, &status), 0);
  ck_assert(S_ISLNK(status.st_mode));
  text = file_text(csv);
  fs_test_contains(text, "name,kind,rank,");
  free(text), free(dag), free(csv), free(link);
}
END_TEST

/* The names in directory dir that start with prefix. */
static int count_prefixed(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
  if (d) closedir(d);
  return n;
}

/* Starts `fennelsim run DAG --OPTION OUT`, waits for its temporary file
 * (OUT.tmp.PID, made before the run starts), sends the signal and returns
 * the wait status. */
static int interrupt_run(const char *dag, const char *option, const char *output,
                         int signal_number) {
  char dir[1024], prefix[1024];
  snprintf(dir, sizeof dir, "%s", output);
  *strrchr(dir, '/') = 0;
  snprintf(prefix, sizeof prefix, "%s.tmp.", strrchr(output, '/') + 1);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    execl(FENNELSIM_BINARY, "fennelsim", "run", dag, option, output, (char *)NULL);
    _exit(127);
  }
  for (int k = 0; k < 60000 && count_prefixed(dir, prefix) == 0; k++) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  ck_assert_int_eq(count_prefixed(dir, prefix), 1);
  kill(pid, signal_number);
  int status;
  waitpid(pid, &status, 0);
  return status;
}

/* allreduce-ring at 300 ranks: about 180000 tasks, seconds of run with a
 * timeline; SIGINT and SIGTERM in the middle leave no temporary file, and
 * the process ends by the signal. */
START_TEST(signal_removes_temporary_files) {
  char *dag = fs_test_temp_path(".dag"), *csv = fs_test_temp_path(".csv");
  char *json = fs_test_temp_path(".json");
  ck_assert_int_eq(fennelsim("gen allreduce-ring --ranks 300 --size 1MiB -o %s", dag), 0);
  char dir[1024], prefix[1024];
  snprintf(dir, sizeof dir, "%s", csv);
  *strrchr(dir, '/') = 0;
  int status = interrupt_run(dag, "--timeline", csv, SIGINT);
  ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
  status = interrupt_run(dag, "--chrome", json, SIGTERM);
  ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  snprintf(prefix, sizeof prefix, "%s", strrchr(csv, '/') + 1);
  ck_assert_int_eq(count_prefixed(dir, prefix), 0);
  snprintf(prefix, sizeof prefix, "%s", strrchr(json, '/') + 1);
  ck_assert_int_eq(count_prefixed(dir, prefix), 0);
  remove(dag);
  free(dag), free(csv), free(json);
}
END_TEST

/* ---- issue 15 item 10: options given twice ------------------------------ */

START_TEST(repeated_options_refused) {
  const char *lines[][2] = {
      {"run schedules/spec-example.dag --model hockney --model loggops",
       "fennelsim: --model given twice (hockney, then loggops): give it once\n"},
      {"run schedules/spec-example.dag --format json --format=text",
       "fennelsim: --format given twice (json, then text): give it once\n"},
      {"run schedules/spec-example.dag --param alpha=1us --param beta=0 --param alpha=2us "
       "--model hockney",
       "fennelsim: --param alpha=2us: alpha is already set (to 1us): give each key once\n"},
      {"run schedules/spec-example.dag --nodes 2 --cores 1 --param nodes=2",
       "fennelsim: --param nodes=2: nodes is already set (to 2): give each key once\n"},
      {"run traces/sweep3d-2x2 --algo allreduce=rd --algo bcast=binomial",
       "fennelsim: --algo given twice (allreduce=rd, then bcast=binomial): list every "
       "collective in one --algo C=A,C=A\n"},
      {"gen bcast-binomial --ranks 4 -o a.dag --output b.dag",
       "fennelsim gen: -o given twice (a.dag, then b.dag): give it once\n"},
      {"gen bcast-binomial --ranks 4 --ranks 8",
       "fennelsim gen: --ranks given twice (4, then 8): give it once\n"},
      {"best allreduce --ranks 4 --ranks 8 --model hockney",
       "fennelsim best: --ranks given twice (4, then 8): give it once\n"},
      {"probe --model hockney --ranks 4 --ranks 8",
       "fennelsim: --ranks given twice (4, then 8): give it once\n"},
      {"merge x.csv --format json --format text",
       "fennelsim: --format given twice (json, then text): give it once\n"},
  };
  for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
    ck_assert_msg(fennelsim("%s", lines[k][0]) == 2, "%s: exit status not 2", lines[k][0]);
    ck_assert_str_eq(err, lines[k][1]);
  }
  /* repeatable: --param with different keys, --noise of different kinds */
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model hockney --param alpha=1us "
                             "--param beta=0 --noise host=constant:value=1 "
                             "--noise net=constant:value=1"),
                   0);
}
END_TEST

/* ---- issue 15 item 9: output other tools read ----------------------------- */

/* Labels with ',' and '"' are quoted per RFC 4180 (quotes doubled), so
 * each row keeps the header's 8 columns. Times under pipelined's default
 * archer table: an 8-byte put, 380 ns local, 1260 ns remote. */
START_TEST(timeline_csv_quotes_labels) {
  char *dag = fs_test_temp_path(".dag"), *csv = fs_test_temp_path(".csv");
  ck_assert_int_eq(fs_test_write_file(dag,
                                      "fennel-dag 1\nranks 2\ns0 start 0 label=x,y,z\n"
                                      "p0 put 0 to=1 size=8B after=s0 label=say\"hi\"\n",
                                      0),
                   0);
  ck_assert_int_eq(fennelsim("run %s --timeline %s", dag, csv), 0);
  char *text = file_text(csv);
  ck_assert_str_eq(text, "name,kind,rank,core,ready_ns,start_ns,local_end_ns,remote_end_ns,label\n"
                         "s0,start,0,,0,0,0,0,\"x,y,z\"\n"
                         "p0,put,0,,0,0,380,1260,\"say\"\"hi\"\"\"\n");
  free(text), free(dag), free(csv);
}
END_TEST

/* Terminal escapes in a detour trace or an empirical sample file are shown
 * as '?' in the message, as every other reader does. */
START_TEST(noise_messages_sanitized) {
  char *trace = fs_test_temp_path(".txt"), *samples = fs_test_temp_path(".txt");
  char expected[2048];
  ck_assert_int_eq(fs_test_write_file(trace, "\033[31m 5\n", 0), 0);
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --noise-trace %s", trace), 2);
  snprintf(expected, sizeof expected,
           "fennelsim: %s:1:1: expected a start time in ns (got \"?[31m\")\n", trace);
  ck_assert_str_eq(err, expected);
  ck_assert_int_eq(fs_test_write_file(samples, "1\n\033[2Jx\n", 0), 0);
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --noise host=empirical:file=%s",
                             samples),
                   2);
  snprintf(expected, sizeof expected,
           "fennelsim: --noise host=empirical:file=%s: %s:2:1: empirical: expected a finite "
           "number, not '?[2Jx'\n",
           samples, samples);
  ck_assert_str_eq(err, expected);
  free(trace), free(samples);
}
END_TEST

/* ---- issue 15 item 11: messages that mislead ------------------------------ */

/* Found by fuzz_dag_reader (fuzz/corpus/dag/recvs-on-two-cpus.dag): three
 * recvs, two of them from any source on two CPUs of rank 2, and a put. No
 * send exists, so every recv stays posted: a deadlock (exit 1) naming the
 * three, under every model. The engine before LogGOPSim's order lost a
 * CPU's recv here and said "the network model left 1 transfers
 * unfinished" instead. */
START_TEST(recvs_on_two_cpus_deadlock) {
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fs_test_write_file(dag,
                                      "fennel-dag 1\nranks 3\nr recv 1 from=0 size=8B nic=1\n"
                                      "ra recv 2 from=any after=r:start\n"
                                      "rm recv 2 from=any cpu=3\np put 1 to=1\n",
                                      0),
                   0);
  const char *models[] = {"hockney", "pipelined", "loggops"};
  for (int m = 0; m < 3; m++) {
    ck_assert_int_eq(fennelsim("run %s --model %s", dag, models[m]), 1);
    fs_test_contains(
        err, "deadlock: 0 of 4 tasks can never become ready; 3 receives or messages found no "
             "partner\n"
             "  recv r on rank 1 from rank 0, tag 0, 8B: posted, no message matched it\n"
             "  recv ra on rank 2 from any rank, tag 0, 0B: posted, no message matched it\n"
             "  recv rm on rank 2 from any rank, tag 0, 0B: posted, no message matched it\n");
  }
  free(dag);
}
END_TEST

/* allreduce-ring stops counting its tasks past 40000 ranks (INT64_MAX
 * inside): the message says "more than", not the sentinel. probe --ranks
 * is bounded by what it can finish: 2048 ranks. */
START_TEST(task_count_and_probe_limits) {
  ck_assert_int_eq(fennelsim("gen allreduce-ring --ranks 50000 -o /dev/null"), 2);
  ck_assert_str_eq(err, "fennelsim gen: allreduce-ring at 50000 ranks needs more than the "
                        "1073741823 tasks a program holds\n");
  ck_assert_int_eq(fennelsim("gen allreduce-ring --ranks 30000 -o /dev/null"), 2);
  ck_assert_str_eq(err, "fennelsim gen: allreduce-ring at 30000 ranks needs 1800659976 tasks, "
                        "more than the 1073741823 a program holds\n");
  ck_assert_int_eq(fennelsim("probe --model hockney --ranks 100000"), 2);
  ck_assert_str_eq(err, "fennelsim: 100000 ranks (--ranks): the probe takes 2 to 2048 (its cost "
                        "grows as P^2.4: some 15 s at 1024 ranks)\n");
  ck_assert_int_eq(fennelsim("probe --model hockney --nodes 64 --cores 64"), 2);
  ck_assert_str_eq(err, "fennelsim: 4096 ranks (--nodes x --cores): the probe takes 2 to 2048 (its "
                        "cost grows as P^2.4: some 15 s at 1024 ranks)\n");
  ck_assert_str_eq(out, "");
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
  TCase *o = tcase_create("outputs");
  tcase_set_timeout(o, 120);
  tcase_add_test(o, unwritable_output_exits_1);
  tcase_add_test(o, empty_shard_refused);
  tcase_add_test(o, output_replacing_input_refused);
  tcase_add_test(o, output_keeps_mode_and_link);
  tcase_add_test(o, signal_removes_temporary_files);
  tcase_add_test(o, repeated_options_refused);
  tcase_add_test(o, timeline_csv_quotes_labels);
  tcase_add_test(o, noise_messages_sanitized);
  tcase_add_test(o, task_count_and_probe_limits);
  tcase_add_test(o, recvs_on_two_cpus_deadlock);
  suite_add_tcase(s, o);
  return s;
}

int main(void) {
  int status = fs_test_run(cli_suite());
  free(out);
  free(err);
  return status;
}
