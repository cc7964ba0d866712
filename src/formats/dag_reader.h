/* dag_reader.h: reads the .dag text format (docs/FORMATS.md) into a program.
 *
 * One streaming pass; the input may be gzip-compressed. Task names are kept
 * (fs_task_name), labels interned. On any error, NULL is returned and
 * err->message reads "FILE:LINE:COLUMN: expected ... (got ...)", with the
 * 1-based column of the offending token; nothing is half-built.
 *
 * Two-sided tasks and resources (beyond the basic task kinds):
 *   NAME send RANK to=R size=S [tag=T]          T in [0, 2^31), default 0
 *   NAME recv RANK from=R|any size=S [tag=T|any] "-1" is accepted for any
 *   cpu=C  (0..255) on sleep, compute, put, get, send and recv: which of the
 *          rank's CPUs the task occupies (default 0)
 *   nic=N  (0..255) on put, get, send and recv (default 0)
 *   stride=D  (a size) on put, get, send and recv: the data layout, 0
 *          (default) contiguous, else a vector with stride D bytes
 *   after=NAME:start  depends on NAME's start (GOAL's irequires), beside
 *          NAME (its completion) and NAME:local (its local completion)
 * to= and from= are required on send and recv; size defaults to 0 bytes. */
#ifndef FS_DAG_READER_H
#define FS_DAG_READER_H

#include <stddef.h>

#include "core/program.h"
#include "io/text_input.h"

/* A finalized program, or NULL with err set. path "-" is stdin. */
fs_program *fs_dag_read_file(const char *path, fs_error *err);
/* The same from data[0..length) (plain text); display_name names it in errors. */
fs_program *fs_dag_read_memory(const char *data, size_t length, const char *display_name,
                               fs_error *err);
/* The same from an open input, which the caller still closes. */
fs_program *fs_dag_read_input(fs_text_input *in, fs_error *err);

#endif
