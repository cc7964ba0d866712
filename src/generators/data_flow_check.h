/* data_flow_check.h: proves from a generated program and its recorded data
 * flow (src/generators/data_flow.h) that the schedule computes its
 * collective, whatever order the engine runs concurrent tasks in:
 *
 * - every dependency points to an earlier task; sends and recvs match MPI
 *   style (per sender, receiver and tag, in program order), with equal
 *   sizes and block lists, and the sends (recvs) of one channel are ordered
 *   by dependencies, so the matching cannot depend on timing;
 * - each message's size is the sum of its blocks' sizes (when the flow
 *   gives block sizes);
 * - each access to a rank's buffer block is ordered by dependencies after
 *   the previous write of that block and, for a write, after every read
 *   since (no race: every topological order computes the same values);
 *   a read of a block that holds no data yet is an error;
 * - a combine adds disjoint contributions (nothing is combined twice) and
 *   uses each temporary once;
 * - at the end, the buffers hold what the collective promises: all
 *   contributions (reductions; for reduce-scatter on the blocks of the
 *   rank), the root's data (broadcast), block b from rank b (gathers; m
 *   pieces a rank when the flow has m*N blocks), each (source, destination)
 *   block where it belongs (alltoall); for a barrier, every rank's last
 *   tasks come after every rank's first task.
 * Blocks of 0 bytes (an uneven split) carry no data and are not checked.
 * A flow with data_ranks D below the program's ranks has D data ranks; the
 * others (switches) start with no data, owe no result and hold scratch:
 * what they send must have been received (and combined) first, and the
 * data ranks' results must still be complete.
 *
 * Contributions are sets of ranks: exact bitsets up to 64 ranks, beyond
 * that a count and a sum of 64-bit hashes (a duplicate or a missing
 * contribution escapes with probability about 2^-64). */
#ifndef FS_DATA_FLOW_CHECK_H
#define FS_DATA_FLOW_CHECK_H

#include <stddef.h>

#include "core/program.h"
#include "generators/data_flow.h"
#include "generators/generators.h"

/* NULL when p computes flow's collective; otherwise why not, in why. */
const char *fs_check_data_flow(const fs_program *p, const fs_data_flow *flow, char *why,
                               size_t why_size);

/* Generates `name` with options o (its flow pointer is replaced) and checks
 * it; NULL, or why it fails ("allreduce-ring at 7 ranks: ..."). The program
 * must generate (a generator error is reported as the failure). */
const char *fs_check_generator_flow(const char *name, const fs_generator_options *o, char *why,
                                    size_t why_size);

#endif
