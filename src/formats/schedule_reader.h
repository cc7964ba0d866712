/* schedule_reader.h: reads a schedule in the format its name says: GOAL for
 * *.goal and *.goal.gz, fennelsim's .dag for *.dag and *.dag.gz; stdin
 * ("-") and other names by content: the first line that is not blank is
 * the .dag header 'fennel-dag 1' or a '#' comment (.dag), or 'num_ranks N'
 * or a '//' or block comment (GOAL); gzip by its magic bytes, always.
 * LogGOPSim's binary GOAL (goal_bin_reader.h) for a regular file that
 * starts with its magic number, and for *.bin unless it starts like text
 * or gzip (then by content, as above). */
#ifndef FS_SCHEDULE_READER_H
#define FS_SCHEDULE_READER_H

#include <stdio.h>

#include "core/program.h"
#include "io/text_input.h"

int fs_schedule_is_goal(const char *path);
fs_program *fs_schedule_read(const char *path, fs_error *err);
/* The same from an open input named path (by its name, else its content). */
fs_program *fs_schedule_read_input(fs_text_input *in, const char *path, fs_error *err);
/* How a read may go. FS_READ_INTERLEAVED: a GOAL file of schedgen's
 * regular shape may come numbered position by position
 * (fs_goal_read_input_interleaved; p->interleaved says so), for a caller
 * that lists no tasks in their order. */
enum { FS_READ_INTERLEAVED = 1 };
/* The same with a progress bar on `progress` (NULL: none) while reading,
 * and `flags` (0 or FS_READ_INTERLEAVED). */
fs_program *fs_schedule_read_showing(const char *path, FILE *progress, int flags, fs_error *err);

#endif
