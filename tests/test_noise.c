/* test_noise.c: the noise layer (src/noise/noise.c) inside the engine: a
 * zero-variance noise gives exactly the deterministic times, constant
 * factors and offsets give hand-derived times under each model, a
 * straggler delays exactly its dependants, detours stretch occupations, and
 * runs depend only on the seed. */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "formats/dag_reader.h"
#include "generators/generators.h"
#include "model_support.h"
#include "noise/noise.h"
#include "noise/random.h"
#include "test_support.h"

#define NS 1000

static fs_program *generate(const char *name, int32_t ranks, int64_t size) {
  fs_generator_options o;
  memset(&o, 0, sizeof o);
  o.ranks = ranks, o.size = size, o.rounds = 1;
  fs_error err = {{0}};
  fs_program *p = fs_generator_find(name)->generate(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  return p;
}

/* A noise of the given --noise specs ("" separated by ';'). */
static fs_noise *noise_of(const char *specs, int32_t ranks) {
  fs_noise *n = fs_noise_new();
  char text[512];
  snprintf(text, sizeof text, "%s", specs);
  fs_error err = {{0}};
  for (char *spec = strtok(text, ";"); spec; spec = strtok(NULL, ";")) {
    int status = strchr(spec, ':') < strchr(spec, '=') && isdigit((unsigned char)spec[0])
                     ? fs_noise_add_rank(n, spec, &err)
                     : fs_noise_add(n, spec, &err);
    ck_assert_msg(status == 0, "%s: %s", spec, err.message);
  }
  ck_assert_msg(fs_noise_prepare(n, ranks, &err) == 0, "%s", err.message);
  return n;
}

/* The makespan (and finish times into finish, when not NULL) of p under
 * the models with the noise and seed. */
static fs_time run_noisy(const fs_program *p, const char *network, const char *parameters,
                         const fs_noise *noise, uint64_t seed, fs_time *finish) {
  fs_simulation run;
  fs_test_simulate(&run, p, network, "fixed", parameters);
  ck_assert_int_eq(fs_engine_set_noise(run.engine, noise, seed, &run.err), 0);
  int status = fs_engine_run(run.engine, &run.err);
  ck_assert_msg(status == FS_RUN_OK, "%s", run.err.message);
  fs_time makespan = fs_engine_makespan(run.engine);
  if (finish) memcpy(finish, fs_engine_finish_times(run.engine), (size_t)p->ranks * sizeof *finish);
  fs_test_run_free(&run);
  return makespan;
}

/* Zero-variance noise (factor 1, offset 0, sigma 0) gives exactly the
 * deterministic run, under every model and for one- and two-sided
 * schedules. */
START_TEST(zero_variance_is_deterministic) {
  const char *programs[3] = {"allreduce-rd", "allreduce-ring", "bcast-binomial"};
  const char *models[3][2] = {{"hockney", ""}, {"pipelined", ""}, {"loggops", ""}};
  const char *noises[3] = {"host=constant:value=1;net=constant:value=1",
                           "net=lognormal:mu=0,sigma=0;compute=constant:value=1",
                           "host=constant:value=0,mode=add;net=normal:mu=0,sigma=0,mode=add"};
  for (int g = 0; g < 3; g++) {
    fs_program *p = generate(programs[g], 12, 4096);
    for (int m = 0; m < 3; m++) {
      fs_time plain[12], noisy[12];
      fs_time expected = run_noisy(p, models[m][0], models[m][1], NULL, 1, plain);
      for (int k = 0; k < 3; k++) {
        fs_noise *n = noise_of(noises[k], 12);
        ck_assert_int_eq(run_noisy(p, models[m][0], models[m][1], n, 42, noisy), expected);
        ck_assert(memcmp(plain, noisy, sizeof plain) == 0);
        fs_noise_free(n);
      }
    }
    fs_program_free(p);
  }
}
END_TEST

/* Ping-pong under hockney (alpha 1 us, beta 1 ns/B, 1000 B: each message
 * 2 us, the sender busy until it lands): host noise x2 doubles the CPU part,
 * which is the whole message: 2 x 2 x 2 us = 8 us; net noise x3 on top of
 * it: 3 x 2 x 2 x 2 us = 24 us. Additive host noise of 500 ns: 2 x 2.5 us. */
START_TEST(constant_noise_under_hockney) {
  fs_program *p = generate("pingpong", 2, 1000);
  const char *params = "alpha=1us beta=1ns";
  ck_assert_int_eq(run_noisy(p, "hockney", params, NULL, 1, NULL), 4000 * NS);
  fs_noise *n = noise_of("host=constant:value=2", 2);
  ck_assert_int_eq(run_noisy(p, "hockney", params, n, 1, NULL), 8000 * NS);
  fs_noise_free(n);
  n = noise_of("host=constant:value=2;net=constant:value=3", 2);
  ck_assert_int_eq(run_noisy(p, "hockney", params, n, 1, NULL), 24000 * NS);
  fs_noise_free(n);
  n = noise_of("host=constant:value=500,mode=add", 2);
  ck_assert_int_eq(run_noisy(p, "hockney", params, n, 1, NULL), 5000 * NS);
  fs_noise_free(n);
  fs_program_free(p);
}
END_TEST

/* Ping-pong under pipelined (alpha_r 100 ns, alpha_p 1 us, beta 0): the CPU
 * part alpha_r, the latency alpha_p after it. net x2: each message
 * 100 + 2000 = 2100 ns, 4200 ns in all; host x3 and net +50 ns: each
 * 300 + 1050 = 1350 ns, 2700 ns. */
START_TEST(constant_noise_under_pipelined) {
  fs_program *p = generate("pingpong", 2, 8);
  const char *params = "alpha_r=100ns alpha_p=1us beta=0";
  ck_assert_int_eq(run_noisy(p, "pipelined", params, NULL, 1, NULL), 2200 * NS);
  fs_noise *n = noise_of("net=constant:value=2", 2);
  ck_assert_int_eq(run_noisy(p, "pipelined", params, n, 1, NULL), 4200 * NS);
  fs_noise_free(n);
  n = noise_of("host=constant:value=3;net=constant:value=50,mode=add", 2);
  ck_assert_int_eq(run_noisy(p, "pipelined", params, n, 1, NULL), 2700 * NS);
  fs_noise_free(n);
  fs_program_free(p);
}
END_TEST

/* An eager send that lands before its sender's CPU is free: LogGOPS with
 * L 3 us, o 1 us, O 10 ns/B, g = G = 0, 1001 bytes. The send's CPU part is
 * o + 1000 O = 11 us, its message lands at o + L = 4 us, and the receive
 * then takes o + max(1000 O, 1000 G) = 11 us: finishes 11 and 15 us.
 * net x2 doubles the flight from the start (4 -> 8 us; it used to be taken
 * after the local completion, 11 + 2 x (4 - 11) us, before the start):
 * 11 and 8 + 11 = 19 us. host x2 doubles both CPU parts and not the
 * flight: 22 and 4 + 22 = 26 us. Lognormal host noise on two 4 MiB
 * self-messages (O 0.01 ns/B: 41.9 us of CPU against L 3 us) used to post
 * an arrival in the past and fail the run. */
START_TEST(arrival_before_the_sender_is_free) {
  const char *text = "fennel-dag 1\nranks 2\ns0 start 0\ns1 start 1\n"
                     "a send 0 to=1 size=1001B tag=1 after=s0\n"
                     "b recv 1 from=0 size=1001B tag=1 after=s1\n";
  fs_error err = {{0}};
  fs_program *p = fs_dag_read_memory(text, strlen(text), "early.dag", &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  const char *params = "L=3us o=1us g=0 G=0 O=10ns S=65536";
  fs_time finish[2];
  ck_assert_int_eq(run_noisy(p, "loggops", params, NULL, 1, finish), 15000 * NS);
  ck_assert_int_eq(finish[0], 11000 * NS);
  fs_noise *n = noise_of("net=constant:value=2", 2);
  ck_assert_int_eq(run_noisy(p, "loggops", params, n, 1, finish), 19000 * NS);
  ck_assert_int_eq(finish[0], 11000 * NS);
  fs_noise_free(n);
  n = noise_of("host=constant:value=2", 2);
  ck_assert_int_eq(run_noisy(p, "loggops", params, n, 1, finish), 26000 * NS);
  ck_assert_int_eq(finish[0], 22000 * NS);
  fs_noise_free(n);
  fs_program_free(p);

  text = "fennel-dag 1\nranks 1\ns0 start 0\n"
         "a send 0 to=0 size=4MiB tag=1 after=s0\nb recv 0 from=0 size=4MiB tag=1 after=s0\n"
         "c send 0 to=0 size=4MiB tag=2 after=s0\nd recv 0 from=0 size=4MiB tag=2 after=s0\n";
  p = fs_dag_read_memory(text, strlen(text), "self.dag", &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  n = noise_of("host=lognormal:sigma=0.05", 1);
  for (uint64_t seed = 1; seed <= 64; seed++)
    ck_assert_int_gt(run_noisy(p, "loggops", "L=3us o=1us g=2us G=0.5ns O=0.01ns S=65536", n, seed,
                               NULL),
                     0);
  fs_noise_free(n);
  fs_program_free(p);
}
END_TEST

/* A straggler: slowing rank 1's CPU x10 in a binomial broadcast over 8
 * ranks (root 0) delays rank 1 (its sends take 10 x 2 us under hockney)
 * and every rank it feeds, directly or not, and no other rank; a leaf's
 * straggling changes nothing (its receive takes no CPU under hockney). */
START_TEST(straggler_delays_its_dependants) {
  fs_program *p = generate("bcast-binomial", 8, 1000);
  const char *params = "alpha=1us beta=1ns";
  fs_time plain[8], noisy[8];
  run_noisy(p, "hockney", params, NULL, 1, plain);
  fs_noise *n = noise_of("1:host=constant:value=10", 8);
  run_noisy(p, "hockney", params, n, 1, noisy);
  fs_noise_free(n);
  /* who waits for rank 4, directly or not: the ranks whose finish changed */
  int changed = 0;
  for (int r = 0; r < 8; r++) changed |= (noisy[r] != plain[r]) << r;
  const fs_program *q = p;
  int downstream = 1 << 1;
  for (int32_t t = 0; t < q->tasks; t++) /* sends in issue order: parents first */
    if (q->kind[t] == FS_SEND && (downstream >> q->rank[t] & 1)) downstream |= 1 << q->peer[t];
  ck_assert_int_eq(changed, downstream);
  ck_assert_int_gt(__builtin_popcount((unsigned)downstream), 2); /* 1 feeds more than one rank */
  /* rank 1 receives at 2 us (rank 0's first send, unchanged), then its own
   * sends take ten times as long */
  ck_assert_int_eq(noisy[1] - 2000 * NS, 10 * (plain[1] - 2000 * NS));
  n = noise_of("7:host=constant:value=10", 8); /* a leaf */
  run_noisy(p, "hockney", params, n, 1, noisy);
  fs_noise_free(n);
  ck_assert(memcmp(plain, noisy, sizeof plain) == 0);
  fs_program_free(p);
}
END_TEST

/* The same seed gives the same run; another seed another; the thread or
 * the order of runs plays no part (a run on a fresh engine equals one on an
 * engine that ran other seeds first). */
START_TEST(runs_depend_only_on_the_seed) {
  fs_program *p = generate("allreduce-rd", 16, 64);
  fs_noise *n = noise_of("net=lognormal:mu=0,sigma=0.5;host=gamma:shape=4,scale=0.25", 16);
  fs_time a = run_noisy(p, "pipelined", "", n, 7, NULL);
  fs_time b = run_noisy(p, "pipelined", "", n, 7, NULL);
  fs_time c = run_noisy(p, "pipelined", "", n, 8, NULL);
  ck_assert_int_eq(a, b);
  ck_assert_int_ne(a, c);
  fs_simulation run;
  fs_test_simulate(&run, p, "pipelined", "fixed", "");
  for (uint64_t seed = 1; seed <= 8; seed++) {
    ck_assert_int_eq(fs_engine_set_noise(run.engine, n, seed, &run.err), 0);
    ck_assert_int_eq(fs_engine_run(run.engine, &run.err), FS_RUN_OK);
  }
  ck_assert_int_eq(fs_engine_makespan(run.engine), c); /* seed 8 again */
  fs_test_run_free(&run);
  fs_noise_free(n);
  fs_program_free(p);
}
END_TEST

/* Detours: a trace with one detour [50, 80) ns in a period of 80 ns (so
 * 50 ns of free time per period). A 100 ns compute starting at 0 on rank
 * r, whose clock is shifted by its offset u*80 (u from the seed's detour
 * stream), needs 100 ns of free time. Checked against a direct walk of the
 * repeating trace. */
static fs_time walk_trace(fs_time offset, fs_time start, fs_time length) {
  fs_time t = start, left = length; /* step 1 ps at a time: slow but plain */
  while (left > 0) {
    fs_time x = (t + offset) % (80 * NS);
    if (x >= 50 * NS) {
      t += 80 * NS - x;
      continue;
    } /* inside the detour */
    fs_time step = 50 * NS - x < left ? 50 * NS - x : left;
    t += step, left -= step;
  }
  return t;
}

START_TEST(detours_stretch_occupations) {
  char *trace = fs_test_temp_path(".trace");
  ck_assert_int_eq(fs_test_write_file(trace, "# start duration (ns)\n50\t30\n", 0), 0);
  fs_noise *n = fs_noise_new();
  fs_error err = {{0}};
  ck_assert_msg(fs_noise_read_trace(n, trace, &err) == 0, "%s", err.message);
  ck_assert_int_eq(fs_noise_prepare(n, 4, &err), 0);
  for (uint64_t seed = 1; seed <= 20; seed++)
    for (int32_t rank = 0; rank < 4; rank++) {
      double u = fs_random_uniform(seed, ((uint64_t)1 << 40) + (uint64_t)rank, 0);
      fs_time offset = (fs_time)(u * (double)(80 * NS));
      for (fs_time start = 0; start < 200 * NS; start += 7 * NS)
        for (fs_time length = 1; length < 400 * NS; length += 37 * NS + 11)
          ck_assert_int_eq(fs_noise_detour_end(n, rank, seed, start, start + length),
                           walk_trace(offset, start, length));
    }
  /* in the engine: a 100 ns compute on rank 0 ends where the walk says */
  fs_program *p = fs_program_new(1);
  int32_t t = fs_program_add(p, FS_COMPUTE, 0);
  fs_task_set_time(p, t, 100 * NS);
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  double u = fs_random_uniform(3, (uint64_t)1 << 40, 0);
  ck_assert_int_eq(run_noisy(p, "hockney", "", n, 3, NULL),
                   walk_trace((fs_time)(u * (double)(80 * NS)), 0, 100 * NS));
  fs_program_free(p);
  fs_noise_free(n);
  remove(trace);
  free(trace);
}
END_TEST

START_TEST(noise_errors) {
  static const struct {
    int rank;
    const char *spec, *message;
  } cases[] = {
      {0, "disk=lognormal:sigma=1",
       "--noise disk=lognormal:sigma=1: expected host=DIST, net=DIST "
       "or compute=DIST"},
      {0, "net=lognormal:sigma=-1", "--noise net=lognormal:sigma=-1: "},
      {0, "net=lognormal:sigma=1,mode=sub",
       "--noise net=lognormal:sigma=1,mode=sub: mode must be "
       "add or mul"},
      {1, "x:net=constant:value=1",
       "--noise-rank x:net=constant:value=1: expected RANK:KIND=DIST "
       "or FIRST-LAST:KIND=DIST"},
      {1, "5-2:net=constant:value=1", "--noise-rank 5-2:net=constant:value=1: expected "},
      {1, "3", "--noise-rank 3: expected RANK:KIND=DIST"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fs_noise *n = fs_noise_new();
    fs_error err = {{0}};
    int status = cases[i].rank ? fs_noise_add_rank(n, cases[i].spec, &err)
                               : fs_noise_add(n, cases[i].spec, &err);
    ck_assert_int_eq(status, -1);
    ck_assert_msg(strncmp(err.message, cases[i].message, strlen(cases[i].message)) == 0, "%s: %s",
                  cases[i].spec, err.message);
    fs_noise_free(n);
  }
  /* the same kind twice; a rank beyond the program */
  fs_noise *n = fs_noise_new();
  fs_error err = {{0}};
  ck_assert_int_eq(fs_noise_add(n, "net=constant:value=1", &err), 0);
  ck_assert_int_eq(fs_noise_add(n, "net=constant:value=2", &err), -1);
  ck_assert_str_eq(err.message, "--noise net=constant:value=2: net noise is already set");
  ck_assert_int_eq(fs_noise_add_rank(n, "7:host=constant:value=2", &err), 0);
  ck_assert_int_eq(fs_noise_prepare(n, 4, &err), -1);
  ck_assert_str_eq(err.message, "--noise-rank 7: the program has ranks 0..3");
  fs_noise_free(n);
  /* trace files */
  static const struct {
    const char *text, *message;
  } traces[] = {
      {"10 5\nabc 3\n", ":2:1: expected a start time in ns (got \"abc\")"},
      {"10\n", ":1:3: expected a duration in ns (got \"\")"},
      {"10 5 7\n", ":1:6: expected the end of the line after the duration"},
      {"# nothing\n", ": no detours"},
      {"0 10\n", ": the detours leave no time for the CPU"},
  };
  for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
    char *path = fs_test_temp_path(".trace");
    fs_test_write_file(path, traces[i].text, 0);
    n = fs_noise_new();
    ck_assert_int_eq(fs_noise_read_trace(n, path, &err), -1);
    char want[256];
    snprintf(want, sizeof want, "%s%s", path, traces[i].message);
    ck_assert_str_eq(err.message, want);
    fs_noise_free(n);
    remove(path);
    free(path);
  }
}
END_TEST

/* The description of a noise, as reports print it. */
START_TEST(noise_description) {
  fs_noise *n = noise_of("net=lognormal:mu=0,sigma=0.2;host=exponential:mean=50,mode=add;"
                         "3:compute=constant:value=2",
                         4);
  char text[512];
  fs_noise_describe(n, text, sizeof text);
  ck_assert_str_eq(text, "\"net\": \"lognormal:mu=0,sigma=0.2\", \"host\": "
                         "\"exponential:mean=50,mode=add\", \"3:compute\": "
                         "\"constant:value=2\"");
  /* issue 16 item 10: keys and the sidecar's spec read as the options typed them */
  fs_noise_spec(n, text, sizeof text);
  ck_assert_str_eq(text, "net=lognormal:mu=0,sigma=0.2 host=exponential:mean=50,mode=add "
                         "3:compute=constant:value=2");
  ck_assert(fs_noise_active(n));
  fs_noise_free(n);
  n = fs_noise_new();
  ck_assert(!fs_noise_active(n));
  fs_noise_free(n);
}
END_TEST

/* The command line: a study prints the same distribution on every rerun and
 * for any thread count; a noisy single run shows its noise and seed; bad
 * noise options exit 2 with their message. */
START_TEST(cli_study) {
  char *dag = fs_test_temp_path(".dag");
  char *a = NULL, *b = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(NULL, NULL, "gen allreduce-rd --ranks 16 -o %s", dag), 0);
  const char *study = "run %s --model pipelined --noise net=lognormal:sigma=0.2 --seeds 50 "
                      "--format json --threads %d";
  ck_assert_int_eq(fs_test_fennelsimf(&a, NULL, study, dag, 1), 0);
  ck_assert_int_eq(fs_test_fennelsimf(&b, NULL, study, dag, 3), 0);
  ck_assert_str_eq(a, b);
  ck_assert_ptr_nonnull(strstr(a, "\"seeds\": 50, \"base_seed\": 1, \"makespan_ns\": {\"min\": "));
  free(a), free(b);
  ck_assert_int_eq(fs_test_fennelsimf(&a, NULL,
                                      "run %s --model pipelined --noise host=constant:value=2",
                                      dag),
                   0);
  ck_assert_ptr_nonnull(strstr(a, "noise      {\"host\": \"constant:value=2\"} seed 1\n"));
  free(a);
  static const struct {
    const char *options, *message;
  } bad[] = {
      {"--noise net=lognormal:sigma=-1", "fennelsim: --noise net=lognormal:sigma=-1: "},
      {"--threads 2", "fennelsim: --threads, --samples, --histogram and --shard need --seeds N"},
      {"--seeds 0", "fennelsim: --seeds 0: "},
      {"--noise-rank 99:host=constant:value=2", "fennelsim: --noise-rank 99: the program has "
                                                "ranks 0..15"},
      {"--seeds 2 --timeline x.csv", "fennelsim: --timeline, --svg, --chrome, --critical-path, "
                                     "--channel-load and --link-load show one run: not with "
                                     "--seeds"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s %s", dag, bad[i].options), 2);
    ck_assert_msg(strncmp(err, bad[i].message, strlen(bad[i].message)) == 0, "%s", err);
    free(err);
  }
  remove(dag);
  free(dag);
}
END_TEST

int main(void) {
  Suite *s = suite_create("noise");
  TCase *tc = tcase_create("engine");
  tcase_add_test(tc, zero_variance_is_deterministic);
  tcase_add_test(tc, constant_noise_under_hockney);
  tcase_add_test(tc, constant_noise_under_pipelined);
  tcase_add_test(tc, arrival_before_the_sender_is_free);
  tcase_add_test(tc, straggler_delays_its_dependants);
  tcase_add_test(tc, runs_depend_only_on_the_seed);
  tcase_add_test(tc, detours_stretch_occupations);
  tcase_add_test(tc, noise_errors);
  tcase_add_test(tc, noise_description);
  tcase_add_test(tc, cli_study);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return fs_test_run(s);
}
