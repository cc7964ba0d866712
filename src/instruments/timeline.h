/* timeline.h: the recorder instrument (Fennel's "recorder"): the ready,
 * start, local-completion and remote-completion time of every task, written
 * as CSV, one row per task in program order, and which send matched which
 * recv, when a receiver's CPU took each message, and on which core of its
 * node each task ran (runs on cores: concurrent tasks on a platform). 36
 * bytes per task while on (64 with two-sided tasks); nothing when
 * off. The drawn and traced views (--svg, --chrome, --critical-path,
 * --bandwidth) are all made from it after the run. */
#ifndef FS_TIMELINE_H
#define FS_TIMELINE_H

#include "core/engine.h"
#include "io/atomic_file.h"

typedef struct fs_timeline fs_timeline;

fs_timeline *fs_timeline_new(const fs_program *program);
void fs_timeline_free(fs_timeline *timeline);
/* Clears the times (a task not reached keeps empty fields). */
void fs_timeline_reset(fs_timeline *timeline);
fs_observer fs_timeline_observer(fs_timeline *timeline);
/* Columns: name,kind,rank,core,ready_ns,start_ns,local_end_ns,remote_end_ns,label
 * (core: the task's core of its rank's node, 0-based, in runs on cores
 * (fs_engine_set_cores); else empty).
 * Into an output opened before the run (so a bad path fails before any
 * work), committed on success and aborted on failure. */
int fs_timeline_write_csv(const fs_timeline *timeline, fs_output *out, fs_error *err);
/* The recorded times of one task (-1 where not reached): ready, start,
 * local end, remote end. */
void fs_timeline_task(const fs_timeline *timeline, int32_t task, fs_time times[4]);
/* The recv a send was matched with (or the send of a recv), -1 when not
 * matched (or not two-sided); *when (if not NULL) the time of the match. */
int32_t fs_timeline_partner(const fs_timeline *timeline, int32_t task, fs_time *when);
/* When the receiver's CPU took send's message (models with a receive cost:
 * loggops, lmo, ...): 0 with *start, *end; -1 when it took none. Under
 * such a model a message that arrives before its recv is posted is taken
 * then, and its recv completes at once when posted. */
int fs_timeline_receipt(const fs_timeline *timeline, int32_t send, fs_time *start, fs_time *end);
/* When a recv held its CPU: its message's receipt when the model has one
 * (an early message's comes before the recv was posted), else from its
 * match to its completion. 0 with *from <= *to; -1 when never matched. */
int fs_timeline_recv_occupation(const fs_timeline *timeline, int32_t recv, fs_time *from,
                                fs_time *to);
const fs_program *fs_timeline_program(const fs_timeline *timeline);
/* The core of its node a task ran on (runs on cores), or -1. */
int32_t fs_timeline_core(const fs_timeline *timeline, int32_t task);

#endif
