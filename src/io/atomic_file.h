/* atomic_file.h: buffered output files that appear whole or not at all.
 *
 * A regular file is written under a temporary name in the same directory
 * (PATH.tmp.PID) and renamed over PATH on commit, so an interrupted run never
 * leaves a truncated result. A path ending in ".gz" is gzip-compressed.
 * "-" is stdout, and an existing non-regular file (/dev/null, a FIFO) is
 * written in place, without a temporary file. A symbolic link PATH is
 * written through: the file it points to is replaced (the temporary file
 * is made next to it) and the link kept. A replaced file keeps its mode
 * (permission bits). SIGINT and SIGTERM remove the temporary files not yet
 * committed, then end the process as the signal would have. Writes are
 * buffered; the first error is kept and reported by commit, so callers may
 * check there only. */
#ifndef FS_ATOMIC_FILE_H
#define FS_ATOMIC_FILE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct fs_output fs_output;

/* NULL with err set when the temporary file cannot be created. */
fs_output *fs_output_open(const char *path, fs_error *err);
/* 0, or -1 once any write has failed (the error is reported by commit). */
int fs_output_write(fs_output *out, const void *data, size_t length);
int fs_output_puts(fs_output *out, const char *text);
int fs_output_printf(fs_output *out, const char *format, ...) FS_PRINTF(2, 3);
int fs_output_vprintf(fs_output *out, const char *format, va_list args) FS_PRINTF(2, 0);
/* Flushes, closes and renames into place; frees out in every case. Returns
 * 0, or -1 with err set ("PATH: ...") and the temporary file removed. */
int fs_output_commit(fs_output *out, fs_error *err);
/* Closes, removes the temporary file (PATH itself is untouched) and frees. */
void fs_output_abort(fs_output *out);
/* A progress hook for long writes: writers call fs_output_progress with
 * the items written so far (a .dag's tasks, a GOAL file's ranks); the CLI
 * sets a hook that draws a bar on a terminal. Without one, a no-op. */
typedef void (*fs_output_progress_fn)(void *arg, int64_t done);
void fs_output_set_progress(fs_output *out, fs_output_progress_fn fn, void *arg);
void fs_output_progress(fs_output *out, int64_t done);
/* The path given to open. */
const char *fs_output_path(const fs_output *out);
/* 1 when both paths name the same existing regular file (same device and
 * inode, links followed): an output that would replace an input. */
int fs_same_regular_file(const char *a, const char *b);

#endif
