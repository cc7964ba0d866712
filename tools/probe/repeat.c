/* repeat.c: the repetition loop every measurement shares. The measuring
 * rank (rank 0 of the experiment's communicator) keeps the samples and
 * decides after each repetition whether to go on; a broadcast carries the
 * decision, outside the timed span, so all ranks of the experiment run the
 * same number of repetitions. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "probe.h"

int64_t probe_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

unsigned char probe_pattern(int world_rank) { return (unsigned char)(1 + world_rank % 251); }

void probe_fail(const char *format, ...) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  va_list args;
  va_start(args, format);
  fprintf(stderr, "fennelprobe: rank %d: ", rank);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1); /* MPI_Abort does not return; this tells the compiler */
}

void probe_repeat(probe *p, MPI_Comm comm, repetition run, void *context, summary *out) {
  int me;
  MPI_Comm_rank(comm, &me);
  samples_clear(&p->samples);
  for (int64_t i = 0;; i++) {
    int64_t sample = run(context);
    int more = 1;
    if (me == 0 && i >= p->options->warmup) {
      samples_add(&p->samples, sample);
      more = !stopping_rule_met(&p->samples, &p->options->rule);
    }
    MPI_Bcast(&more, 1, MPI_INT, 0, comm);
    if (!more) break;
  }
  *out = (summary){0};
  if (me == 0) samples_summarize(&p->samples, out);
}
