/* goal_writer.h: writes a program as LogGOPSim GOAL text, in the form its
 * txt2bin reads and schedgen writes:
 *
 *   num_ranks N
 *
 *   rank 0 {
 *   l1: send 8b to 1 tag 0
 *   l2: recv 8b from -1 tag -1 cpu 1 nic 1
 *   l3: calc 100
 *   l3 requires l2
 *   l3 irequires l1
 *   }
 *
 * Ranks in order; within a rank one op line per task in task-id order,
 * labelled l1, l2, ..., then one line per dependency, grouped by the
 * dependent task in label order and, within it, by the predecessor's label
 * (`requires`: the predecessor's completion, `irequires`: its start). `cpu`
 * and `nic` are written only when not 0; `-1` is any source / any tag.
 * Names, labels and the order the dependencies were added in are not kept.
 *
 * Refused, naming the task, before anything is written: kinds other than
 * send, recv and compute (start, proxy, sleep, put, get have no GOAL op); a
 * compute without an exact whole-ns time= (calc counts ns); concurrent=1,
 * any=K, a nic on a compute; a negative size, a send tag below 0 or a recv
 * tag below -1; dependencies across ranks or on a local completion. */
#ifndef FS_GOAL_WRITER_H
#define FS_GOAL_WRITER_H

#include "core/program.h"
#include "io/atomic_file.h"

/* Writes a finalized program to path atomically (gzip for ".gz", "-" is
 * stdout). Returns 0 or -1 with err ("PATH: ..."), leaving PATH untouched. */
int fs_goal_write(const fs_program *p, const char *path, fs_error *err);
/* The same into an open output, which the caller commits or aborts. Returns
 * -1 with err for a program GOAL cannot express (nothing written) or when
 * out of memory; a write failure stops the writing and is reported by
 * fs_output_commit. */
int fs_goal_write_output(const fs_program *p, fs_output *out, fs_error *err);

#endif
