/* goal_read.c (bench): reads one schedule file (GOAL or .dag) as
 * `fennelsim run` does and prints one row: bytes of the file, tasks,
 * dependencies, parse seconds (wall and CPU), GB/s (bytes / wall seconds),
 * GB per CPU second (the figure to compare on a busy machine), the calling
 * thread's own CPU seconds (main_cpu_s: the critical path, which bounds the
 * wall time on an idle machine when the other threads' work overlaps it)
 * and peak RSS. Used by tools/bench/goal.
 * --threads N reads a GOAL file on at most N threads (default: one per core);
 * --interleaved reads it as `fennelsim run` does when no output lists tasks
 * (fs_goal_read_input_interleaved).
 * usage: bench_goal_read FILE [--header] [--threads N] [--interleaved] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "formats/goal_reader.h"
#include "formats/schedule_reader.h"

static double seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_goal_read FILE [--header] [--threads N] [--interleaved]\n");
    return 2;
  }
  struct stat info;
  if (stat(argv[1], &info) != 0) {
    fprintf(stderr, "bench: cannot stat %s\n", argv[1]);
    return 2;
  }
  int header = 0, threads = 0, interleave = 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--header") == 0) header = 1;
    if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
    if (strcmp(argv[i], "--interleaved") == 0) interleave = 1;
  }
  if (header)
    printf("%14s %11s %12s %8s %8s %10s %7s %9s %9s\n", "bytes", "tasks", "dependencies", "wall_s",
           "cpu_s", "main_cpu_s", "GB/s", "GB/cpu_s", "peak_MiB");
  fs_error err;
  double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
  double main_cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
  fs_program *p = NULL;
  if (threads > 0) { /* the GOAL reader alone, on at most `threads` threads */
    fs_text_input *in = fs_text_input_open_file(argv[1], &err);
    p = in ? fs_goal_read_input_threads(in, threads, FS_GOAL_PART_MIN, interleave, &err) : NULL;
    if (in) fs_text_input_close(in);
  } else {
    p = fs_schedule_read_showing(argv[1], NULL, interleave ? FS_READ_INTERLEAVED : 0, &err);
  }
  wall = seconds(CLOCK_MONOTONIC) - wall;
  cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
  main_cpu = seconds(CLOCK_THREAD_CPUTIME_ID) - main_cpu;
  if (!p) {
    fprintf(stderr, "%s\n", err.message);
    return 2;
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("%14lld %11d %12lld %8.3f %8.3f %10.3f %7.3f %9.3f %9.1f\n", (long long)info.st_size,
         p->tasks, (long long)p->dependencies, wall, cpu, main_cpu,
         (double)info.st_size / wall * 1e-9, (double)info.st_size / cpu * 1e-9,
         (double)usage.ru_maxrss / 1024);
  fs_program_free(p);
  return 0;
}
