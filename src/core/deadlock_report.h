/* deadlock_report.h: after a deadlock (fs_engine_run returned
 * FS_RUN_DEADLOCK), what the run left waiting, for the user. */
#ifndef FS_DEADLOCK_REPORT_H
#define FS_DEADLOCK_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/engine.h"
#include "core/program.h"

/* After a deadlock: first the cause, each send and recv that found no
 * partner (up to limit, in program order: its peer, tag, size, and what
 * the describer adds), then the tasks that never became ready (up to
 * limit), each with the dependencies it still waits for. Built only
 * after the run, from its final state. */
void fs_engine_report_stuck(const fs_engine *e, FILE *out, int limit);
/* What the source of a program knows of its sends and recvs (a replayed
 * trace: the MPI tag, communicator and call). describe puts the tag as
 * the source gave it (FS_ANY_TAG: any) into *tag, the communicator
 * ("MPI_COMM_WORLD") into communicator and the call that made the task
 * ("MPI_Isend at FILE:17") into call (either may be left ""); it returns
 * 0, or -1 when it knows nothing of the task (the program's tag is shown). */
typedef struct fs_task_describer {
  int (*describe)(const void *state, const fs_program *p, int32_t task, int32_t *tag,
                  char *communicator, size_t communicator_size, char *call, size_t call_size);
  const void *state;
} fs_task_describer;
void fs_engine_report_deadlock(const fs_engine *e, FILE *out, int limit,
                               const fs_task_describer *describer);

#endif
