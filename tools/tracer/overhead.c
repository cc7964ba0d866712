/* overhead.c: the tracer's cost per MPI call (docs/TRACES.md). Each rank
 * times CALLS MPI_Iprobe calls that find nothing (the cheapest traced call,
 * so the tracer's share shows), best of 5; run it with and without
 * LD_PRELOAD=libfenneltrace.so and compare:
 *   mpirun -n 2 tracer_overhead [CALLS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, flag;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long calls = argc > 1 ? atol(argv[1]) : 100000;
  double best = 1e300;
  for (int repeat = 0; repeat < 5; repeat++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = now_ns();
    for (long i = 0; i < calls; i++)
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    double per_call = (now_ns() - start) / (double)calls;
    if (per_call < best) best = per_call;
  }
  if (rank == 0) printf("%.1f ns per MPI_Iprobe (best of 5 x %ld calls)\n", best, calls);
  MPI_Finalize();
  return 0;
}
