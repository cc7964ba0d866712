/* progress.h: a progress bar on a terminal for long runs and long reads
 * (`what [=====     ]  50% 500/1000`), redrawn in place at most 10 times a
 * second from the first half second on, and erased when done. The CLI
 * enables it only when stderr is a terminal; otherwise it is NULL and every
 * call is a test of the pointer. */
#ifndef FS_PROGRESS_H
#define FS_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct fs_progress fs_progress;

/* total: the count at the end (0 or less: unknown, only the count is
 * shown). NULL when not enabled (or out of memory): all calls accept NULL. */
fs_progress *fs_progress_new(const char *what, int64_t total, int enabled, FILE *out);
/* A bar that also shows the rate and the time left, for a run counted in
 * `unit`s (a study's seeds): `412/1000 seeds [=========>      ]  41%  183
 * seeds/s  ETA 0:03` (30 columns), from the first tenth of a second on; its
 * caller updates it rarely, so every update looks at the clock. */
fs_progress *fs_progress_new_rated(const char *unit, int64_t total, int enabled, FILE *out);
/* done units so far. Cheap: reads the clock once every 4096 calls. */
void fs_progress_update(fs_progress *p, int64_t done);
/* For callers whose updates are rare (a reader's chunks): look at the
 * clock every `updates` updates instead of every 4096. */
void fs_progress_check_every(fs_progress *p, int updates);
/* Erases the line (when anything was drawn) and frees p. */
void fs_progress_done(fs_progress *p);

#endif
