/* nccl_tests_report.h: `fennelsim sweep ... --report nccl-tests`: the
 * sweep's cells as the tables nccl-tests (NVIDIA, version 2.19.6) prints,
 * so that a simulated table can be put beside a measured one line by line.
 *
 * One table per (platform, model, rank count, algorithm), in that order,
 * titled by a `#` line; a row per size: nccl-tests' size and count (the
 * sweep's --size converted: allreduce, bcast and reduce print S and S/w;
 * allgather, gather, scatter and alltoall, whose --size is a per-rank or
 * per-pair block, print k*S and S/w, w the element size), type, redop,
 * root, then time (us), algbw and busbw (GB/s) and #wrong, out-of-place
 * and in-place. A simulation has no in-place difference and checks no
 * data: both halves carry the same numbers, #wrong is N/A. The footer is
 * the mean busbw over the rows, both halves counted as nccl-tests does. */
#ifndef FS_NCCL_TESTS_REPORT_H
#define FS_NCCL_TESTS_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "io/atomic_file.h"
#include "study/best.h"
#include "study/sweep.h"

/* nccl-tests' element types (-d): the bytes of type name, or -1. */
int fs_nccl_tests_type_bytes(const char *name);

/* Refuses a grid the report cannot show (exit 2): a collective without a
 * bus bandwidth factor (barrier, pingpong), a size that is not a whole
 * number of element_bytes elements, an MSCCL file that cannot be read.
 * Fills kinds[a] (g->algorithm_count entries) with what algorithm a
 * computes. 0, or -1 with err set. */
int fs_nccl_tests_check(const fs_sweep_grid *g, const char *type, int element_bytes,
                        fs_collective *kinds, fs_error *err);

/* nccl-tests' number formatter: value in `width` characters as %.2f, else
 * %.1f, else %.0f, else %.1e (width >= 7) or %.0e, cut to width. */
void fs_nccl_tests_number(char *text, double value, int width);

/* Writes the tables (the grid passed fs_nccl_tests_check, which filled
 * kinds: what each algorithm computes, an MSCCL file's coll=); a failed write
 * is kept by out and reported by fs_output_commit. */
void fs_nccl_tests_write(fs_output *out, const fs_sweep_grid *g, const fs_sweep_results *r,
                         const char *type, int element_bytes, fs_best_rank_by rank_by,
                         const fs_collective *kinds);

#endif
