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
 * one of the GPU generation gpu= (fs_nccl_typical_call; Hopper by default:
 * 1 x 8 H100 12 x 30 GB/s on one node, 8 x 48 GB/s with a 400 Gb/s NIC
 * per GPU on several; Intel hosts; an NVSwitch), NVLS as nvls= says
 * (default: on from Hopper) and CollNet as collnet= says (default off).
 *
 * NCCL's pick is over all its algorithms. fennelsim generates Ring, Tree
 * (allreduce) and PAT (allgather-nccl-pat, reduce-scatter-nccl-pat, found
 * by name in the registry), NVLS on one node (allreduce-nccl-nvls) and
 * NVLSTree (allreduce-nccl-nvlstree), their NVSwitches as extra ranks;
 * CollNet and NVLS across nodes have no schedule here. When NCCL picks one
 * of those, the selector generates NCCL's best among the generatable ones
 * and says so in `note`.
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

/* "NCCL 2.30.7 (tuning model)". */
const char *fs_nccl_selection_version(void);

/* What a selector generates and why. */
typedef struct fs_nccl_selection {
  char spec[192];     /* "NAME:channels=C:protocol=P" (the keys the generator reads) */
  char algorithm[96]; /* "Ring/LL128 on 24 channels" */
  char rule[320];     /* the call and why: "16 ranks on 2 nodes of hopper GPUs, nBytes
                         1048576: Tree/LL128 60.405 us < ... (next), ..." */
  char detail[512];   /* every estimate of NCCL's full pick: "Tree/LL 132.746 us, ..." */
  char note[256];     /* "" or, when NCCL's pick has no schedule here: "NCCL would run
                         NVLS/Simple here (predicted 86.681 us), ...; generating its next
                         choice Ring/LL128 (129.248 us)" */
} fs_nccl_selection;

/* NCCL's pick for collective c under options o: 0 with out filled, or -1
 * with err (a collective NCCL's tuning does not cover, uneven nodes, a
 * call past the model's limits, a pick whose generator is not built in). */
int fs_nccl_select(fs_collective c, const fs_generator_options *o, fs_nccl_selection *out,
                   fs_error *err);

/* The generate() of the five selectors in the registry. */
fs_program *fs_generate_allreduce_nccl(const fs_generator_options *o, fs_error *err);
fs_program *fs_generate_allgather_nccl(const fs_generator_options *o, fs_error *err);
fs_program *fs_generate_reduce_scatter_nccl(const fs_generator_options *o, fs_error *err);
fs_program *fs_generate_bcast_nccl(const fs_generator_options *o, fs_error *err);
fs_program *fs_generate_reduce_nccl(const fs_generator_options *o, fs_error *err);

#endif
