/* goal_bin_reader.h: reads LogGOPSim's binary GOAL schedules (the .bin
 * files its txt2bin writes, in the writing host's byte order) into the
 * program the same schedule gives as GOAL text (goal_reader.h): one task
 * per operation, rank-major, in the order of the file; send, recv and calc
 * with their peers, sizes, tags, CPUs and NICs; requires and irequires as
 * FS_AFTER_END and FS_AFTER_START dependencies, each task's successors in
 * the order txt2bin recorded them. Tasks are unnamed ("t<id>"): the file
 * keeps no labels.
 *
 * The layout and the limits enforced are in docs/FORMATS.md ("LogGOPSim
 * binary schedules"). In short: the magic number 4223, the rank count, the
 * largest CPU and NIC index, a table of where each rank's block starts and
 * ends, then per rank the operation count, the operations without
 * dependencies, one 39-byte record per operation and the list of the
 * operations that depend on each. Blocks must lie back to back in rank
 * order and end at the end of the file, as txt2bin writes them, so that
 * everything allocated is bounded by the file's size.
 *
 * Errors read "FILE:byte N: expected ... (got ...)", N the offset of the
 * field at fault. One sequential pass (a pipe works too): memory is the
 * program, 8 bytes per rank and 12 per operation of the largest block. */
#ifndef FS_GOAL_BIN_READER_H
#define FS_GOAL_BIN_READER_H

#include <stddef.h>
#include <stdint.h>

#include "core/program.h"

#define FS_GOAL_BIN_MAGIC 4223u       /* a schedule txt2bin wrote */
#define FS_GOAL_BIN_INVALIDATED 2342u /* LogGOPSim --save-mem overwrote it */

/* A finalized program, or NULL with err set. path "-" is stdin. */
fs_program *fs_goal_bin_read_file(const char *path, fs_error *err);
/* The same from data[0..length); display_name names it in errors. */
fs_program *fs_goal_bin_read_memory(const uint8_t *data, size_t length, const char *display_name,
                                    fs_error *err);
/* Whether the first bytes of a file (length of them) start like a binary
 * schedule: the magic number, invalidated or not, in either byte order. */
int fs_goal_bin_recognize(const uint8_t *start, size_t length);

#endif
