/* goal_reader.h: reads LogGOPSim's GOAL text schedules into a program.
 *
 * The grammar is the one LogGOPSim's txt2bin accepts (docs/FORMATS.md):
 *
 *   num_ranks N
 *   rank R {                     the '{' on the same line; R = 0, 1, ... in order
 *     [LABEL:] send SIZEb to PEER [tag T|-1] [cpu C] [nic N]
 *     [LABEL:] recv SIZEb from PEER|-1 [tag T|-1] [cpu C] [nic N]
 *     [LABEL:] calc TIME [cpu C]
 *     LABEL requires LABEL       the first waits for the second to complete
 *     LABEL irequires LABEL      the first waits for the second to start
 *   }
 *
 * Statements end at the end of their line; the optional clauses come in the
 * order shown; blanks (spaces, tabs) between tokens, even none inside a
 * statement ("8 b", "l1:send"), as txt2bin allows. LABEL is
 * [a-zA-Z][a-zA-Z0-9_]*; a word that is a keyword (send, recv, calc, rank,
 * num_ranks) where a statement starts is the keyword. `//` comments run to
 * the end of the line and block comments (slash-star to star-slash) may
 * span lines, both only where a statement may start (also after
 * `num_ranks N`, `{` and `}`).
 * Blank lines and CRLF line ends are fine; the input may be gzip-compressed.
 *
 * Mapping, one task per operation in file order (rank-major):
 *   send -> FS_SEND (peer, size in bytes, tag, cpu, nic)
 *   recv -> FS_RECV (peer -1 = FS_ANY_SOURCE, tag -1 = FS_ANY_TAG)
 *   calc -> FS_COMPUTE taking TIME nanoseconds, on cpu
 *   a requires b  -> a depends on b (FS_AFTER_END)
 *   a irequires b -> a depends on b's start (FS_AFTER_START)
 * A labelled operation is named "rR.LABEL" (fs_task_name), unlabelled ones
 * keep the default "t<id>". While every label is "lK", K the operation's
 * place in its block from 1 (schedgen's), the names are implied
 * (p->names_implied), not stored. The '.' (not ':') keeps the names writable as
 * .dag, whose after= uses ':' for :local and :start. A send's tag -1 is
 * kept as FS_ANY_TAG (txt2bin accepts it; LogGOPSim then matches it with
 * any tag); neither the .dag nor the GOAL writer takes such a program.
 *
 * Labels are per rank and must be defined above their use. A label defined
 * twice in a block keeps its first operation, as txt2bin's table does; the
 * later operation is created, but unnamed and unreachable by label.
 *
 * Stricter than txt2bin, which misreads these: a statement outside
 * a rank block, `rank` or `num_ranks` inside one, a second `num_ranks`, `}`
 * outside a block, anything but comments after the last block, numbers out
 * of range (ranks in [0, num_ranks), tags up to 2^31-1, cpu and nic up to
 * 255, sizes up to 2^63-1 bytes, calc times up to 2^63-1 ps), a comment
 * left open at the end of the file, a missing block, more than FS_MAX_TASKS
 * operations or FS_MAX_DEPENDENCIES dependencies. Every error reads
 * "FILE:LINE:COLUMN: expected ... (got ...)".
 *
 * One streaming pass: memory is the program plus the label table of one
 * block (cleared at each '}'); nothing is allocated per line. */
#ifndef FS_GOAL_READER_H
#define FS_GOAL_READER_H

#include <stddef.h>

#include "core/program.h"
#include "io/text_input.h"

/* A finalized program, or NULL with err set. path "-" is stdin. */
fs_program *fs_goal_read_file(const char *path, fs_error *err);
/* The same from data[0..length) (plain text); display_name names it in errors. */
fs_program *fs_goal_read_memory(const char *data, size_t length, const char *display_name,
                                fs_error *err);
/* The same from an open input, which the caller still closes. A mapped
 * file or memory block is read by up to FS_GOAL_THREADS_MAX threads (one
 * per core), in parts of at least FS_GOAL_PART_MIN bytes cut before lines
 * `rank R {`: the program and the first error (in file order) are the
 * ones one thread gives. */
fs_program *fs_goal_read_input(fs_text_input *in, fs_error *err);
#define FS_GOAL_THREADS_MAX 8
#define FS_GOAL_PART_MIN ((size_t)16 << 20)
/* The same, but a mapped file or memory block of schedgen's regular shape
 * (every rank W operations, goal_interleaved.h) comes numbered position by
 * position, as fs_program_interleave would make it, with nothing renumbered
 * after the read. For a caller whose outputs do not list tasks in their
 * order: p->interleaved tells which numbering it got. */
fs_program *fs_goal_read_input_interleaved(fs_text_input *in, fs_error *err);
/* Either, on up to `threads` threads in parts of at least min_part bytes
 * (tests cut small inputs into many parts). */
fs_program *fs_goal_read_input_threads(fs_text_input *in, int threads, size_t min_part,
                                       int interleave, fs_error *err);

#endif
