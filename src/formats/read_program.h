/* read_program.h: what the schedule readers (dag_reader, goal_reader) share
 * around their own parsing: running a reader over a file ("-": stdin) or a
 * memory block, and handing over the finalized program at the end of a read.
 * The readers include this file; it includes neither of them, so
 * schedule_reader, which picks a reader, sits above both. */
#ifndef FS_READ_PROGRAM_H
#define FS_READ_PROGRAM_H

#include <stddef.h>

#include "core/program.h"
#include "io/text_input.h"

/* A reader: parses in to a finalized program, or NULL with err set. */
typedef fs_program *(*fs_program_reader)(fs_text_input *in, fs_error *err);

/* The end of a read: finalizes *program and hands it over (*program becomes
 * NULL), or NULL with err "NAME: why". */
fs_program *fs_read_program_finalize(fs_program **program, const char *name, fs_error *err);
/* Opens path ("-": stdin), runs read over it, closes it. */
fs_program *fs_read_program_file(fs_program_reader read, const char *path, fs_error *err);
/* The same over a memory block, named display_name in errors. */
fs_program *fs_read_program_memory(fs_program_reader read, const char *data, size_t length,
                                   const char *display_name, fs_error *err);

#endif
