/* collective_patterns.h: the collectives the algorithm library has no
 * generator for (the v-variants, reduce-scatter, scan), built as small
 * two-sided programs on a communicator's ranks, for the replay.
 *
 * Each is what MPICH does for them in its simple form: linear gatherv and
 * scatterv, a ring allgatherv, pairwise alltoallv and reduce-scatter, and
 * the doubling (Hillis-Steele) scan: at distance d = 1, 2, 4... rank r
 * sends its partial result to r + d. Every rank starts with a START task,
 * and each step is a send and a recv posted together (MPI_Sendrecv), a
 * received partial result combined by a compute task of its size (priced
 * by the compute model). All are finalized programs, or NULL with err set. */
#ifndef FS_COLLECTIVE_PATTERNS_H
#define FS_COLLECTIVE_PATTERNS_H

#include <stdint.h>

#include "core/error.h"
#include "core/program.h"

/* bytes[r]: what rank r sends to (gatherv) or receives from (scatterv) the root. */
fs_program *fs_pattern_gatherv(int32_t ranks, int32_t root, const int64_t *bytes, fs_error *err);
fs_program *fs_pattern_scatterv(int32_t ranks, int32_t root, const int64_t *bytes, fs_error *err);
/* bytes[r]: rank r's block, passed around a ring. */
fs_program *fs_pattern_allgatherv(int32_t ranks, const int64_t *bytes, fs_error *err);
/* send[r][d]: bytes rank r sends to rank d (send[r] is ranks long). */
fs_program *fs_pattern_alltoallv(int32_t ranks, const int64_t *const *send, fs_error *err);
/* bytes[r]: rank r's block of the result. */
fs_program *fs_pattern_reduce_scatter(int32_t ranks, const int64_t *bytes, fs_error *err);
/* Every rank's vector of `bytes`; exclusive: MPI_Exscan. */
fs_program *fs_pattern_scan(int32_t ranks, int64_t bytes, int exclusive, fs_error *err);

#endif
