/* msccl_export.h: a generated schedule written as an MSCCL algorithm
 * (`fennelsim gen ALGO ... -o FILE.xml`; docs/FORMATS.md, "Writing MSCCL
 * XML"). A program alone has no buffers, so the data-flow record of its
 * generator (data_flow.h) says which blocks each message carries; a flow
 * block is an MSCCL chunk (alltoall: block s*N+d is chunk d of rank s's
 * input and chunk s of rank d's output).
 *
 * What maps to what (out of place: inplace="0" outofplace="1"):
 *   send (reads blocks)             step s
 *   recv (writes blocks)            step r
 *   recv into a temporary + the     step rrc (receive, reduce with the
 *   compute that combines it        chunk's current value, store)
 *   recv that combines on arrival   step rrc
 *   a block a rank holds and keeps  step cpy from the input to its
 *   without a reduction (allgather  output chunk, first in the rank's
 *   own block, broadcast root)      first tb (others wait: depid)
 *   a result block no task writes   step cpy from the input (there too)
 * A rank's CPU is an MSCCL channel; its tasks on one CPU form one thread
 * block (tb) when they send to one peer and receive from one peer, else
 * one tb per peer of that CPU (send and recv that peer). A tb's steps run
 * in a topological order of the program's dependencies and messages, by
 * level (longest path), sends first within a level; a dependency on a
 * task of another tb of the rank is a depid/deps (its target hasdep="1"),
 * several are carried by nop steps before the step. A block's value is
 * read from the input chunk until a task has written it, then from its
 * place: the output chunk where the collective puts that block on that
 * rank, else scratch chunk b.
 *
 * Refused, naming the task and why (exit 2 in the CLI): puts, gets,
 * sleeps, starts, proxies and computes of a time (no MSCCL step does
 * them), any-source or any-tag receives, any=K, dependencies on a start or
 * across ranks, a message that is not whole blocks or whose blocks are
 * not consecutive chunks of one buffer, more than 71 chunks in a message,
 * a combine of several messages, sender and receiver on different CPUs,
 * messages matched by tags in another order than their channel's FIFO,
 * mixed protocols, blocks of unequal sizes (MSCCL's chunks are equal), a
 * collective MSCCL lacks (barrier, none) or a root other than 0 (the XML
 * names none), and MSCCL's limits: 64 channels, 256 tbs per GPU and 256
 * steps per tb, 2^20 chunks, 4096 GPUs, 2^27 (rank, block) pairs. */
#ifndef FS_MSCCL_EXPORT_H
#define FS_MSCCL_EXPORT_H

#include "core/error.h"
#include "core/program.h"
#include "formats/msccl_reader.h"
#include "generators/data_flow.h"
#include "io/atomic_file.h"

#define FS_MSCCL_EXPORT_MAX_PAIRS (INT64_C(1) << 27) /* ranks x blocks */

/* The algorithm (free with fs_msccl_free) of the finalized explicit
 * program p whose data flow is flow, named name; NULL with err set
 * ("task 12 (recv on rank 3): ...") when MSCCL cannot express it. */
fs_msccl *fs_msccl_from_program(const fs_program *p, const fs_data_flow *flow, const char *name,
                                fs_error *err);

/* Writes p as MSCCL XML into out (which the caller commits or aborts),
 * after reading the text back with our reader as a check; 0 or -1 with
 * err set. */
int fs_msccl_write_program(const fs_program *p, const fs_data_flow *flow, const char *name,
                           fs_output *out, fs_error *err);

/* Writes m's XML into out; 0 or -1 with err set (out of memory). */
int fs_msccl_write_algorithm(const fs_msccl *m, fs_output *out, fs_error *err);

#endif
