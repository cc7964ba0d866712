/* msccl_flow.h: proves that an MSCCL schedule (formats/msccl_reader.h)
 * computes the collective its coll= names, by running it on symbolic
 * chunk contents: every chunk holds which ranks' input chunk it carries
 * (gathers) or the set of ranks summed into it (reductions).
 *
 * The steps run in a topological order of the same graph the lowering
 * builds (a tb's steps in order, depid/deps, each receive after the send
 * it matches). Any order gives the same result because two accesses to a
 * chunk of one GPU, one of them a write, must be ordered by that graph
 * (vector clocks over the tbs); otherwise the schedule has a race and is
 * refused, naming both steps. A read of a chunk that holds nothing, a
 * reduction of a rank's contribution twice and a wrong final output are
 * refused naming the GPU and the chunk ("gpu 2 output chunk 3: expected
 * the sum of all 4 ranks' chunk 3, has ranks 0,1,3").
 *
 * Expected results (root 0 where the collective has one: the XML does not
 * name it), with C = nchunksperloop, k = ngpus:
 *   allreduce      every output chunk j: all ranks' input chunk j
 *   reduce         rank 0's output chunk j: all ranks' input chunk j
 *   broadcast      every output chunk j: rank 0's input chunk j
 *   allgather      output chunk r*c+j (c = C/k): rank r's input chunk j
 *   gather         rank 0's output chunk r*c+j: rank r's input chunk j
 *   reducescatter  rank r's output chunk j: all ranks' input chunk r*c+j
 *   scatter        rank r's output chunk j: rank 0's input chunk r*c+j
 *   alltoall       rank r's output chunk s*c+j: rank s's input chunk r*c+j
 * In-place schedules (outofplace="0") alias input and output as NCCL
 * does: the same buffer, or the rank's block of the larger one (allgather,
 * gather: input = output block r; reducescatter, scatter: output = input
 * block r). alltoallv, send, recv and custom are not checked.
 *
 * Limits: 64 GPUs (contributions are exact bitsets), 1024 tbs in all,
 * 2^24 clock entries and reads kept at once, 2^22 chunks in all GPUs'
 * buffers; beyond them the schedule is reported as not checked. */
#ifndef FS_MSCCL_FLOW_H
#define FS_MSCCL_FLOW_H

#include <stddef.h>

#include "formats/msccl_reader.h"

enum {
  FS_MSCCL_FLOW_OK = 0,        /* computes its collective */
  FS_MSCCL_FLOW_WRONG = 1,     /* does not: why says where */
  FS_MSCCL_FLOW_UNCHECKED = 2, /* not checked: why says why (a collective without a
                                  fixed result, or past the limits) */
  FS_MSCCL_FLOW_FAILED = -1,   /* out of memory: why says so */
};

#define FS_MSCCL_FLOW_MAX_GPUS 64
#define FS_MSCCL_FLOW_MAX_TBS 1024

/* One of the FS_MSCCL_FLOW_* results, with the reason in why (empty when OK). */
int fs_msccl_check_flow(const fs_msccl *m, char *why, size_t why_size);

#endif
