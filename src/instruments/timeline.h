/* timeline.h: the recorder instrument (Fennel's "recorder"): the ready,
 * start, local-completion and remote-completion time of every task, written
 * as CSV, one row per task in program order. 32 bytes per task while on;
 * nothing when off. */
#ifndef FS_TIMELINE_H
#define FS_TIMELINE_H

#include "core/engine.h"
#include "formats/atomic_file.h"

typedef struct fs_timeline fs_timeline;

fs_timeline *fs_timeline_new(const fs_program *program);
void fs_timeline_free(fs_timeline *timeline);
/* Clears the times (a task not reached keeps empty fields). */
void fs_timeline_reset(fs_timeline *timeline);
fs_observer fs_timeline_observer(fs_timeline *timeline);
/* Columns: name,kind,rank,ready_ns,start_ns,local_end_ns,remote_end_ns,label.
 * Into an output opened before the run (so a bad path fails before any
 * work), committed on success and aborted on failure. */
int fs_timeline_write_csv(const fs_timeline *timeline, fs_output *out, fs_error *err);
/* The recorded times of one task (-1 where not reached), for tests. */
void fs_timeline_task(const fs_timeline *timeline, int32_t task, fs_time times[4]);

#endif
