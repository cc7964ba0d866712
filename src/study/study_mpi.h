/* study_mpi.h: a Monte-Carlo study split across MPI processes.
 *
 * Under `mpirun -n K fennelsim run ... --seeds N`, process k runs the seed
 * indices k, k+K, k+2K, ... (fs_study_options first = k, step = K); then
 * fs_study_mpi_gather hands process 0 every sample in seed order, so that it
 * prints exactly what one process running all N seeds would print.
 *
 * MPI is started only when the process was launched by an MPI launcher
 * (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK in the environment) and only
 * for a study: a plain `fennelsim run` never touches MPI (singleton
 * initialisation is slow and noisy in containers). Built without MPI
 * (meson -Dmpi=disabled), these functions are stubs: never active, one
 * process of rank 0. This file is linked into the fennelsim executable only,
 * never into the library or the tests. */
#ifndef FS_STUDY_MPI_H
#define FS_STUDY_MPI_H

#include <stdint.h>

#include "core/error.h"
#include "study/study.h"

/* 1 when built with MPI and launched by an MPI launcher, else 0. */
int fs_study_mpi_active(void);
/* When active, initialises MPI (may rewrite argc, argv) and gives this
 * process's rank and the number of processes; else *rank = 0, *size = 1 and
 * MPI is not touched. Returns 0 (MPI aborts the job itself on failure). */
int fs_study_mpi_begin(int *argc, char ***argv, int *rank, int *size);
/* Collective: every process calls it after its own fs_study_run, with local
 * its results (seed indices rank, rank+size, ... of the study), or NULL when
 * its run failed. On process 0, *all then holds every sample in seed order;
 * on the others, *all is empty (count 0). local is freed (emptied) in every
 * case. Returns 0, or -1 on every process when any process failed: then
 * on process 0 err says how many (each failed process has reported its own
 * error) and elsewhere err is left untouched. Not active: *all takes over
 * *local (-1, err untouched, when local is NULL). */
int fs_study_mpi_gather(fs_study_results *local, int32_t ranks, fs_study_results *all,
                        fs_error *err);
/* Finalises MPI if fs_study_mpi_begin initialised it. */
void fs_study_mpi_end(void);

#endif
