/* timeline.h: the recorder instrument (Fennel's "recorder"): the ready,
 * start, local-completion and remote-completion time of every task, written
 * as CSV, one row per task in program order, and which send matched which
 * recv. 32 bytes per task while on (44 with two-sided tasks); nothing when
 * off. The drawn and traced views (--svg, --chrome, --critical-path,
 * --bandwidth) are all made from it after the run. */
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
/* The recorded times of one task (-1 where not reached): ready, start,
 * local end, remote end. */
void fs_timeline_task(const fs_timeline *timeline, int32_t task, fs_time times[4]);
/* The recv a send was matched with (or the send of a recv), -1 when not
 * matched (or not two-sided); *when (if not NULL) the time of the match. */
int32_t fs_timeline_partner(const fs_timeline *timeline, int32_t task, fs_time *when);
const fs_program *fs_timeline_program(const fs_timeline *timeline);

#endif
