/* nccl_selection.h: which algorithm, protocol and channel count NCCL 2.30.7
 * runs for one collective call, by its own tuning model
 * (platform/nccl_tuning.h, fs_nccl_decide), as a generator spec that
 * reproduces it: "allreduce-nccl-tree:channels=16:protocol=LL128".
 *
 * The call NCCL's tuning sees is built from the generator options: k =
 * --ranks; nBytes = nccl-tests' "size" (--size for allreduce, bcast and
 * reduce; k * --size for allgather and reduce-scatter, whose --size is the
 * per-rank block); N = the nodes of the platform (--nodes M --cores Q or
 * --platform; without one each rank is a node, as allreduce-nccl-tree
 * takes it), which must hold k / N ranks each; the machine is a typical
 * Hopper one (fs_nccl_typical_call: 1 x 8 H100 12 x 30 GB/s on one node,
 * 8 x 48 GB/s with a 400 Gb/s NIC per GPU on several; Intel hosts).
 *
 * The selectors are generators ("allreduce-nccl", "allgather-nccl",
 * "reduce-scatter-nccl", "bcast-nccl", "reduce-nccl"; trait
 * FS_GEN_SELECTOR): generating one generates the picked generator with
 * the picked protocol and channels, NCCL's default chunk and the same
 * platform, root and reduce time. */
#ifndef FS_NCCL_SELECTION_H
#define FS_NCCL_SELECTION_H

#include <stddef.h>

#include "core/error.h"
#include "generators/generators.h"

/* "NCCL 2.30.7 (tuning model, Hopper; Ring and Tree)". */
const char *fs_nccl_selection_version(void);

/* NCCL's pick for collective c under options o: 0 with spec ("NAME:
 * channels=C:protocol=P", at most spec_size bytes), algorithm ("Ring/LL128
 * on 24 channels"), rule (the call and why: "16 ranks on 2 nodes, nBytes
 * 1048576: Tree/LL128 60.404 us < ... (next), ...") and detail (every
 * estimate: "Tree/LL 132.7 us, ...") filled, or -1 with err (a collective
 * NCCL's tuning does not cover, uneven nodes, a call past the model's
 * limits). */
int fs_nccl_select(fs_collective c, const fs_generator_options *o, char *spec, size_t spec_size,
                   char *algorithm, size_t algorithm_size, char *rule, size_t rule_size,
                   char *detail, size_t detail_size, fs_error *err);

/* The generate() of the five selectors in the registry. */
fs_program *fs_generate_allreduce_nccl(const fs_generator_options *o, fs_error *err);
fs_program *fs_generate_allgather_nccl(const fs_generator_options *o, fs_error *err);
fs_program *fs_generate_reduce_scatter_nccl(const fs_generator_options *o, fs_error *err);
fs_program *fs_generate_bcast_nccl(const fs_generator_options *o, fs_error *err);
fs_program *fs_generate_reduce_nccl(const fs_generator_options *o, fs_error *err);

#endif
