/* study_mpi.c: a Monte-Carlo study split across MPI processes, gathered in
 * seed order on process 0 (see study_mpi.h). Compiled into the fennelsim
 * executable only; without FS_HAVE_MPI every function is a one-process
 * stub. */
#include "study/study_mpi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int take_over(fs_study_results *local, fs_study_results *all) {
  *all = (fs_study_results){0};
  if (!local) return -1;
  *all = *local;
  *local = (fs_study_results){0};
  return 0;
}

#ifndef FS_HAVE_MPI

int fs_study_mpi_active(void) { return 0; }

int fs_study_mpi_begin(int *argc, char ***argv, int *rank, int *size) {
  (void)argc, (void)argv;
  *rank = 0;
  *size = 1;
  return 0;
}

int fs_study_mpi_gather(fs_study_results *local, int32_t ranks, fs_study_results *all,
                        fs_error *err) {
  (void)ranks, (void)err;
  return take_over(local, all);
}

void fs_study_mpi_end(void) {}

#else

#include <mpi.h>

/* mpirun (Open MPI), hydra (MPICH) and srun (Slurm, PMI or PMIx) say so in
 * the environment of the processes they start. */
static int launched_by_mpi(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL ||
         getenv("PMIX_RANK") != NULL;
}

static int mpi_running(void) {
  int started = 0, finished = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&finished);
  return started && !finished;
}

int fs_study_mpi_active(void) { return launched_by_mpi(); }

int fs_study_mpi_begin(int *argc, char ***argv, int *rank, int *size) {
  *rank = 0;
  *size = 1;
  if (!launched_by_mpi()) return 0;
  if (!mpi_running()) {
    int provided; /* the study's threads never call MPI: funneled is enough */
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 0;
}

void fs_study_mpi_end(void) {
  if (mpi_running()) MPI_Finalize();
}

/* On process 0: the total, once the counts are checked to be those of an
 * interleaved split of it, and every count of values to fit MPI's int. */
static int check_counts(const int64_t *counts, int size, int32_t ranks, int64_t *total,
                        fs_error *err) {
  *total = 0;
  for (int k = 0; k < size; k++) *total += counts[k];
  for (int k = 0; k < size; k++)
    if (counts[k] != fs_study_count(*total, k, size))
      return fs_error_set(err,
                          "MPI process %d ran %lld seeds, not %lld of %lld: the processes "
                          "did not split the same study",
                          k, (long long)counts[k], (long long)fs_study_count(*total, k, size),
                          (long long)*total);
  if (ranks < 1 || *total > INT_MAX / ranks)
    return fs_error_set(err,
                        "%lld seeds x %d ranks: too many values for one MPI gather "
                        "(at most %d)",
                        (long long)*total, (int)ranks, INT_MAX);
  return 0;
}

/* Receive sizes and offsets for `per_seed` values per seed. */
static void set_counts(const int64_t *counts, int size, int per_seed, int *sizes,
                       int *displacements) {
  int offset = 0;
  for (int k = 0; k < size; k++) {
    sizes[k] = (int)counts[k] * per_seed;
    displacements[k] = offset;
    offset += sizes[k];
  }
}

/* Process 0's buffers: received in process order, then put in seed order. */
typedef struct gathered {
  int64_t *counts;
  int *sizes, *displacements;
  uint64_t *seed;
  fs_time *makespan, *finish;
} gathered;

static void gathered_free(gathered *g) {
  free(g->counts);
  free(g->sizes);
  free(g->displacements);
  free(g->seed);
  free(g->makespan);
  free(g->finish);
}

static int gathered_alloc(gathered *g, int64_t total, int size, int32_t ranks,
                          fs_study_results *all, fs_error *err) {
  size_t n = total ? (size_t)total : 1, values = n * (size_t)ranks;
  g->sizes = malloc((size_t)size * sizeof *g->sizes);
  g->displacements = malloc((size_t)size * sizeof *g->displacements);
  g->seed = malloc(n * sizeof *g->seed);
  g->makespan = malloc(n * sizeof *g->makespan);
  g->finish = malloc(values * sizeof *g->finish);
  all->seed = malloc(n * sizeof *all->seed);
  all->makespan = malloc(n * sizeof *all->makespan);
  all->finish = malloc(values * sizeof *all->finish);
  if (g->sizes && g->displacements && g->seed && g->makespan && g->finish && all->seed &&
      all->makespan && all->finish)
    return 0;
  return fs_error_set(err, "out of memory gathering %lld samples", (long long)total);
}

/* Process k's j-th sample is the study's sample k + j*size. */
static void put_in_seed_order(const gathered *g, int size, int32_t ranks, fs_study_results *all) {
  int64_t first = 0; /* process k's first sample in the receive buffers */
  for (int k = 0; k < size; first += g->counts[k], k++)
    for (int64_t j = 0; j < g->counts[k]; j++) {
      int64_t from = first + j, to = k + j * size;
      all->seed[to] = g->seed[from];
      all->makespan[to] = g->makespan[from];
      memcpy(all->finish + to * ranks, g->finish + from * ranks, (size_t)ranks * sizeof(fs_time));
    }
}

int fs_study_mpi_gather(fs_study_results *local, int32_t ranks, fs_study_results *all,
                        fs_error *err) {
  if (!mpi_running()) return take_over(local, all);
  *all = (fs_study_results){0};
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* everyone learns of a failure, so no process waits in a gather that
   * never comes */
  int failed = local == NULL, failures = 0;
  MPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (failures) { /* process 0 says so; each failed process said why */
    if (local) fs_study_results_free(local);
    if (rank != 0) return -1;
    return fs_error_set(err, "the study failed on %d of %d MPI processes", failures, size);
  }
  gathered g = {0};
  int64_t count = local->count, total = 0;
  int ok = 1;
  if (rank == 0) ok = (g.counts = malloc((size_t)size * sizeof *g.counts)) != NULL;
  MPI_Gather(&count, 1, MPI_INT64_T, g.counts, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (!ok) fs_error_set(err, "out of memory gathering the samples");
    ok = ok && check_counts(g.counts, size, ranks, &total, err) == 0 &&
         gathered_alloc(&g, total, size, ranks, all, err) == 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) {
    if (rank != 0) fs_error_set(err, "MPI process 0 could not gather the samples");
    gathered_free(&g);
    fs_study_results_free(local);
    fs_study_results_free(all);
    return -1;
  }
  int n = (int)count;
  if (rank == 0) set_counts(g.counts, size, 1, g.sizes, g.displacements);
  MPI_Gatherv(local->seed, n, MPI_UINT64_T, g.seed, g.sizes, g.displacements, MPI_UINT64_T, 0,
              MPI_COMM_WORLD);
  MPI_Gatherv(local->makespan, n, MPI_INT64_T, g.makespan, g.sizes, g.displacements, MPI_INT64_T, 0,
              MPI_COMM_WORLD);
  if (rank == 0) set_counts(g.counts, size, ranks, g.sizes, g.displacements);
  MPI_Gatherv(local->finish, n * ranks, MPI_INT64_T, g.finish, g.sizes, g.displacements,
              MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    put_in_seed_order(&g, size, ranks, all);
    all->count = total;
  }
  gathered_free(&g);
  fs_study_results_free(local);
  return 0;
}

#endif
