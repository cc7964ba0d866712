/* text_input.h: streamed line reader for text formats (.dag, traces, GOAL).
 *
 * Reads a file, stdin ("-") or a memory block in large chunks and hands out
 * one line at a time, pointing into its own buffer (valid until the next
 * call). Files starting with the gzip magic are decompressed transparently
 * (zlib). Lines end at '\n'; a '\r' before it and a last line without '\n'
 * are handled. A line longer than FS_TEXT_LINE_MAX bytes (or the reader's
 * own limit, fs_text_input_set_line_max) or holding a NUL byte is an error,
 * so memory stays bounded whatever the input. */
#ifndef FS_TEXT_INPUT_H
#define FS_TEXT_INPUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

#define FS_TEXT_LINE_MAX ((size_t)1 << 20) /* bytes, without the line end */

typedef struct fs_text_input fs_text_input;

/* Opens path ("-" is stdin). NULL with err set when it cannot be opened. */
fs_text_input *fs_text_input_open_file(const char *path, fs_error *err);
/* Reads data[0..length) (not copied: it must outlive the reader); display_name
 * names it in messages. NULL only when out of memory. */
fs_text_input *fs_text_input_open_memory(const char *data, size_t length, const char *display_name);
/* 1 and the next line (without its end) in *line, *length; 0 at the end of
 * the input; -1 with err set as "NAME:LINE: ..." on an I/O error, corrupt
 * gzip data, a NUL byte or an overlong line. After -1, it keeps failing. */
int fs_text_input_next_line(fs_text_input *in, const char **line, size_t *length, fs_error *err);
/* The next fs_text_input_next_line returns the line last returned again
 * (same text, same line number): a reader that looked at a line to pick a
 * format hands it to the reader of that format. Once per line returned. */
void fs_text_input_unread(fs_text_input *in);
/* Number of the line last returned (1-based; 0 before the first). */
int64_t fs_text_input_line_number(const fs_text_input *in);
const char *fs_text_input_name(const fs_text_input *in);
/* Sets err to "NAME:LINE:COLUMN: message" for the line last returned
 * (column 1-based) and returns -1: how every reader reports bad input (a
 * reader's fail() is a one-line macro turning its own column into this). */
int fs_text_input_error(const fs_text_input *in, int64_t column, fs_error *err, const char *format,
                        ...) FS_PRINTF(4, 5);
/* The same with a va_list, for a wrapper that adds to the message. */
int fs_text_input_verror(const fs_text_input *in, int64_t column, fs_error *err, const char *format,
                         va_list args) FS_PRINTF(4, 0);
/* "NAME:LINE:COLUMN: message" into err for a place a reader kept (a line
 * already left behind); line < 0 leaves out LINE and COLUMN (an input
 * without lines), column < 0 COLUMN (a whole row). The message is cut at
 * 767 bytes. Returns -1. fs_text_input_error is this for the line last read. */
int fs_text_error_at(fs_error *err, const char *name, int64_t line, int64_t column,
                     const char *format, ...) FS_PRINTF(5, 6);
int fs_text_verror_at(fs_error *err, const char *name, int64_t line, int64_t column,
                      const char *format, va_list args) FS_PRINTF(5, 0);
void fs_text_input_close(fs_text_input *in);
/* Input text quoted in a message: its first 40 bytes, "..." when longer,
 * control bytes shown as '?' (no terminal escape reaches the user). */
#define FS_TEXT_SHOWN_SIZE 44
const char *fs_text_shown(const char *text, size_t length, char buffer[FS_TEXT_SHOWN_SIZE]);
/* A token of a line quoted for a message, how every reader names what it
 * got: 'TEXT' with TEXT as fs_text_shown shows it; an empty token is "end
 * of line" when it starts at line_end, else "nothing" (line_end NULL: a
 * reader that says "nothing" at the end too). Which bytes form the token
 * is the reader's own rule. */
#define FS_TEXT_QUOTED_SIZE (FS_TEXT_SHOWN_SIZE + 2)
const char *fs_text_quoted(const char *text, size_t length, const char *line_end,
                           char buffer[FS_TEXT_QUOTED_SIZE]);
/* The decimal digits at the start of text[0..length) as a 64-bit unsigned
 * value into *value: how many digits, 0 (value untouched) when there are
 * none or they overflow 64 bits. What may come around them is the
 * reader's own rule. */
size_t fs_text_digits(const char *text, size_t length, uint64_t *value);
/* Checks the start of a line longer than FS_TEXT_LINE_MAX before its buffer
 * grows: 0 to read on, -1 with err set to fail the input. */
typedef int (*fs_text_input_check)(void *arg, const char *partial, size_t length, fs_error *err);
/* Lines of up to max bytes (at least FS_TEXT_LINE_MAX) from now on, for a
 * format whose lines grow with what they describe (a samples file, a
 * column per rank). The buffer grows only as a long line arrives, and
 * check (if not NULL) sees the line so far each time it would grow, so
 * input of the wrong shape fails early. */
void fs_text_input_set_line_max(fs_text_input *in, size_t max, fs_text_input_check check,
                                void *arg);
/* The whole input as one block, for a reader that scans memory rather
 * than lines: 1 with data[0..*length) when the input is a memory block or
 * an uncompressed regular file (mapped read-only, unmapped at close) from
 * which nothing was taken but blank lines and one line given back by
 * fs_text_input_unread (the block starts at the top again); 0 when the
 * input must be read by lines (gzip, stdin, a pipe, lines already taken).
 * After 1 the input yields no more lines. The block is what the lines
 * would be: the reader applies their rules (FS_TEXT_LINE_MAX, no NUL, a
 * '\r' before a line end dropped). */
int fs_text_input_block(fs_text_input *in, const char **data, size_t *length);
/* For a reader that reads a file in parts itself (pread): 1 with its
 * descriptor and size when fs_text_input_block would map it (an
 * uncompressed regular file, nothing taken), 0 otherwise. The input is
 * left as it was: fs_text_input_block still gives the whole block. */
int fs_text_input_plain_file(fs_text_input *in, int *fd, size_t *size);
/* For a reader of the block: bytes [0, done) are read (progress bar) and
 * no longer needed (their pages leave the process, so a mapped file does
 * not stay resident). */
void fs_text_input_block_done(fs_text_input *in, size_t done);
/* For threads reading parts of the block: the pages of bytes [from, to)
 * are no longer needed (dropped from the process, not unmapped; they come
 * back from the file if read again). Safe beside other threads reading
 * other bytes; no progress. */
void fs_text_input_block_release(fs_text_input *in, size_t from, size_t to);
/* Draws a progress bar on out while a file is read (bytes of the file,
 * compressed or not, against its size); nothing for memory input or stdin. */
void fs_text_input_show_progress(fs_text_input *in, FILE *out);

#endif
