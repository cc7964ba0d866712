/* goal_interleaved.h: private to goal_reader.c: a GOAL text file of
 * schedgen's regular shape read straight into the numbering position by
 * position (program.h, fs_program_interleave), with nothing to copy or
 * renumber after the read.
 *
 * The shape: `num_ranks N` (N >= 2) after blank lines, then the blocks
 * `rank R {` ... `}` of ranks 0 to N-1 in order, each holding W
 * operations (W those of rank 0, from 2 to 65535), written in schedgen's
 * lines (goal_lines.h), blank lines between; every line ends in '\n', a
 * tag other than 0 only where rank 0's block has one. For anything else,
 * or an allocation refused, NULL: the caller reads the input the usual way,
 * which gives the same program numbered as read (then
 * fs_program_interleave makes this one of it), or the error. */
#ifndef FS_GOAL_INTERLEAVED_H
#define FS_GOAL_INTERLEAVED_H

#include <stddef.h>

#include "core/program.h"

/* A finalized program read from the file fd (its `length` bytes, with
 * pread) or, fd -1, from data[0..length), on up to `threads` threads
 * (ranges of ranks of at least min_part bytes); or NULL. */
fs_program *fs_goal_read_interleaved(int fd, const char *data, size_t length, int threads,
                                     size_t min_part);

#endif
