/* engine.c (bench): generates a schedule in memory at a given rank count
 * (default allreduce-rd, 8 B), runs it under a model (default pipelined) and
 * prints one table row: tasks, events, generation and simulation seconds,
 * events/s, peak RSS, bytes per task, and the simulation's CPU seconds
 * (sim_cpu_s, before the makespan, which stays last). One process per size, so each
 * row's peak RSS is its own (tools/bench/engine, tools/bench/goal).
 * usage: bench_engine RANKS [--header] [--pattern NAME] [--model NAME]
 *                           [--size BYTES] [--schedule TEXT] [--param KEY=VALUE]...
 *                           [--symmetric] [--interleave] [--runs K]
 * (a pattern that takes a --schedule gets "auto" unless one is given;
 * --symmetric: a rank-symmetric program where the generator builds one,
 * core/symmetric.h, as the sweep runs them; --interleave: the program
 * renumbered position by position, as `fennelsim run` does a GOAL file's
 * (fs_program_interleave; its time counts as generation); --runs K: the program is run K
 * times by one engine, reset between runs, and each run prints a line
 * "run I: sim_cpu_s S, events/s E" before the row, which is the first run's:
 * the later runs find the run state mapped and warm, so cold and warm
 * differ by the first touches of fresh memory)
 * bench_engine --touch MIB: only allocates MIB MiB and writes a byte to
 * every 4 KiB of it, and prints the seconds: what this machine charges for
 * fresh memory, a floor under any row whose peak is that large (on a
 * virtual machine it can be seconds per GB). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/engine.h"
#include "generators/generators.h"
#include "models/model_registry.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The process's CPU seconds: sim_cpu_s, the simulation's, is what a shared
 * machine's load disturbs least (wall seconds wait for the other jobs). */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The calling thread's: the run's own, without a helper thread's. */
static double thread_cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_seconds(struct timeval t) { return (double)t.tv_sec + t.tv_usec * 1e-6; }

static int touch_memory(const char *mib) {
  size_t bytes = (size_t)strtoull(mib, NULL, 10) << 20;
  double t0 = now();
  char *block = malloc(bytes ? bytes : 1);
  if (!block) {
    fprintf(stderr, "bench: out of memory: %s MiB\n", mib);
    return 1;
  }
  for (size_t i = 0; i < bytes; i += 4096) block[i] = 1;
  double t1 = now();
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("touch %zu MiB: %.2f s wall, %.2f s user, %.2f s sys, %.2f s/GiB\n", bytes >> 20, t1 - t0,
         cpu_seconds(usage.ru_utime), cpu_seconds(usage.ru_stime),
         bytes ? (t1 - t0) * 1073741824.0 / (double)bytes : 0.0);
  free(block);
  return 0;
}

/* One run of --runs: its simulation CPU seconds (of them in the kernel:
 * mostly first touches of fresh pages), page faults and events per CPU
 * second; thread_cpu is the main thread's (the engine may map memory on
 * another); `before` is getrusage's before the run. */
static void report_run(int run, double cpu, double thread_cpu, const struct rusage *before,
                       const fs_engine *engine) {
  struct rusage after;
  getrusage(RUSAGE_SELF, &after);
  char makespan[32];
  printf("run %d: sim_cpu_s %.3f (sys %.3f, main thread %.3f), page faults %ld, events/s %.3g, "
         "makespan %s ns\n",
         run, cpu, cpu_seconds(after.ru_stime) - cpu_seconds(before->ru_stime), thread_cpu,
         after.ru_minflt - before->ru_minflt, (double)fs_engine_events(engine) / cpu,
         fs_format_ns(makespan, fs_engine_makespan(engine)));
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--touch") == 0) return touch_memory(argv[2]);
  if (argc < 2) {
    fprintf(stderr, "usage: bench_engine RANKS [--header] [--pattern NAME] [--model NAME]\n");
    return 2;
  }
  const char *pattern = "allreduce-rd", *model = "pipelined", *schedule = NULL;
  int header = 0, symmetric = 0, runs = 1, interleave = 0;
  int64_t size = 8;
  fs_parameter items[32];
  fs_parameters params = {.items = items};
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--header") == 0)
      header = 1;
    else if (strcmp(argv[i], "--symmetric") == 0)
      symmetric = 1;
    else if (strcmp(argv[i], "--interleave") == 0)
      interleave = 1;
    else if (strcmp(argv[i], "--pattern") == 0 && i + 1 < argc)
      pattern = argv[++i];
    else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
      model = argv[++i];
    else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 1)
      runs = atoi(argv[++i]);
    else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
      size = atoll(argv[++i]);
    else if (strcmp(argv[i], "--schedule") == 0 && i + 1 < argc)
      schedule = argv[++i];
    else if (strcmp(argv[i], "--param") == 0 && i + 1 < argc && params.count < 32) {
      char *pair = argv[++i], *equals = strchr(pair, '=');
      if (!equals) {
        fprintf(stderr, "bench: --param %s: expected KEY=VALUE\n", pair);
        return 2;
      }
      *equals = 0;
      items[params.count++] = (fs_parameter){.key = pair, .value = equals + 1};
    } else {
      fprintf(stderr, "bench: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  const fs_generator *generator = fs_generator_find(pattern);
  if (!generator) {
    fprintf(stderr, "bench: unknown pattern %s\n", pattern);
    return 2;
  }
  if (header)
    printf("%9s %11s %11s %6s %6s %7s %10s %9s %11s %11s %9s %12s\n", "ranks", "tasks", "events",
           "gen_s", "sim_s", "total_s", "events/s", "peak_MiB", "peak_B/task", "held_B/task",
           "sim_cpu_s", "makespan_ns");
  fs_error err = {{0}};
  fs_generator_options options = {.ranks = atoi(argv[1]),
                                  .size = size,
                                  .rounds = 1,
                                  .symmetric = symmetric};
  if (generator->options & FS_GEN_SCHEDULE) options.schedule = schedule ? schedule : "auto";
  double t0 = now();
  fs_program *program = generator->generate(&options, &err);
  if (!program) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  if (interleave && fs_program_interleave(program) != 1) {
    fprintf(stderr, "bench: %s is not %d ranks of equal task counts\n", pattern, program->ranks);
    return 1;
  }
  double t1 = now(), cpu1 = cpu_now(), thread1 = thread_cpu_now();
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  fs_network_model network;
  fs_compute_model compute;
  if (fs_network_model_create(model, &params, &network, &err) ||
      fs_compute_model_create("fixed", &params, &compute, &err)) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  fs_engine *engine = fs_engine_new(program, &network, &compute, &err);
  if (!engine || fs_engine_run(engine, &err) != FS_RUN_OK) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  double t2 = now(), cpu2 = cpu_now();
  if (runs > 1) report_run(1, cpu2 - cpu1, thread_cpu_now() - thread1, &usage, engine);
  for (int run = 2; run <= runs; run++) {
    double before = cpu_now(), thread_before = thread_cpu_now();
    getrusage(RUSAGE_SELF, &usage);
    if (fs_engine_run(engine, &err) != FS_RUN_OK) {
      fprintf(stderr, "bench: run %d: %s\n", run, err.message);
      return 1;
    }
    report_run(run, cpu_now() - before, thread_cpu_now() - thread_before, &usage, engine);
  }
  getrusage(RUSAGE_SELF, &usage);
  double peak = (double)usage.ru_maxrss * 1024.0;
  char makespan[32];
  /* held: what the program and the run state account for, without the
   * allocator's and the process's own overhead that peak RSS includes */
  double held = (double)(fs_program_bytes(program) + fs_engine_bytes(engine));
  printf("%9d %11d %11lld %6.2f %6.2f %7.2f %10.3g %9.1f %11.1f %11.1f %9.2f %12s\n",
         program->ranks, program->tasks, (long long)fs_engine_events(engine), t1 - t0, t2 - t1,
         t2 - t0, (double)fs_engine_events(engine) / (t2 - t1), peak / 1048576.0,
         peak / program->tasks, held / program->tasks, cpu2 - cpu1,
         fs_format_ns(makespan, fs_engine_makespan(engine)));
  fs_engine_free(engine);
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&compute);
  fs_program_free(program);
  return 0;
}
