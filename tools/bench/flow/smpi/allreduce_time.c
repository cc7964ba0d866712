/* allreduce_time.c: the SMPI peer reference of tools/bench/flow (part b and
 * the README's worked example). Every rank calls MPI_Allreduce once, first
 * thing after MPI_Init, on SIZE bytes (SIZE/4 ints, MPI_SUM), timed with
 * MPI_Wtime; rank 0 prints the makespan: the latest end minus the earliest
 * start, as fennelsim counts a schedule whose ranks all start at 0.
 * Buffers come from SMPI_SHARED_MALLOC under smpicc (one copy for all ranks:
 * the values are garbage, the timing is not, and 4096 ranks fit in memory).
 * usage: smpirun ... allreduce_time SIZE_BYTES */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef SMPI_SHARED_MALLOC
#define BUFFER_ALLOC(n) SMPI_SHARED_MALLOC(n)
#define BUFFER_FREE(p) SMPI_SHARED_FREE(p)
#else
#define BUFFER_ALLOC(n) calloc(1, n)
#define BUFFER_FREE(p) free(p)
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long bytes = argc > 1 ? atol(argv[1]) : 1024;
  int count = (int)(bytes / 4);
  int *in = BUFFER_ALLOC((size_t)count * 4), *out = BUFFER_ALLOC((size_t)count * 4);
  double t0 = MPI_Wtime();
  MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  double t1 = MPI_Wtime(), first, last;
  MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("ranks %d bytes %ld start %.9e end %.9e makespan_s %.12e\n", size, bytes, first, last,
           last - first);
  BUFFER_FREE(in);
  BUFFER_FREE(out);
  MPI_Finalize();
  return 0;
}
