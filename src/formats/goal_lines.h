/* goal_lines.h: private to the GOAL text readers: the lines schedgen writes,
 * read in place without a copy, a table or a call per token. Both the
 * reader's fast path (goal_reader.c) and the interleaved read
 * (goal_interleaved.c) take exactly these; anything else (another
 * layout, a value out of range) is left to the full parser, which gives
 * the same program and every message. The lines, '\n' ending each:
 *   lK: send Nb to P[ tag T]      lK: recv Nb from P[ tag T]      lK: calc N
 *   lA requires lB
 * The caller guarantees GOAL_LINE_SLACK readable bytes from a line's start
 * (the longest such line is about 70 bytes). Header-only: inlined in the
 * readers' loops. */
#ifndef FS_GOAL_LINES_H
#define FS_GOAL_LINES_H

#include <stdint.h>
#include <string.h>

#include "core/program.h"
#include "core/units.h"
#include "io/text_input.h"

#define GOAL_LINE_SLACK 128                      /* readable bytes after a line start */
#define GOAL_MAX_CALC_NS (FS_TIME_LIMIT / FS_NS) /* whole ns within the time limit */

/* An operation as read: what its task's fields become. */
typedef struct goal_line_task {
  uint8_t kind, flags;
  int32_t peer, tag;
  int64_t value;
} goal_line_task;

/* At most `most` decimal digits at s into *value; the end, or NULL. */
static inline const char *goal_line_digits(const char *s, int most, uint64_t *value) {
  uint64_t v = 0;
  int n = 0;
  for (; (unsigned)(s[n] - '0') < 10; n++) {
    if (n == most) return NULL;
    v = v * 10 + (unsigned)(s[n] - '0');
  }
  *value = v;
  return n ? s + n : NULL;
}

/* "lK" with K canonical (no leading 0) in [1, n]: the end, or NULL. */
static inline const char *goal_line_label(const char *s, int64_t n, uint64_t *k) {
  if (s[0] != 'l' || s[1] == '0') return NULL;
  s = goal_line_digits(s + 1, 10, k);
  return s && *k >= 1 && *k <= (uint64_t)n ? s : NULL;
}

/* `send Nb to P[ tag T]\n`, `recv Nb from P[ tag T]\n` or `calc N\n` after
 * "lK: ", peers in [0, ranks): the next line's start, or NULL. */
static inline const char *goal_line_operation(const char *s, int32_t ranks, goal_line_task *t) {
  uint64_t size, peer, tag = 0;
  int send = memcmp(s, "send ", 5) == 0;
  if (memcmp(s, "calc ", 5) == 0) {
    if (!(s = goal_line_digits(s + 5, 18, &size)) || size > (uint64_t)GOAL_MAX_CALC_NS ||
        *s != '\n')
      return NULL;
    *t = (goal_line_task){FS_COMPUTE, FS_HAS_TIME, -1, 0, (int64_t)size * FS_NS};
    return s + 1;
  }
  if (!send && memcmp(s, "recv ", 5) != 0) return NULL;
  if (!(s = goal_line_digits(s + 5, 18, &size)) || size > (uint64_t)FS_SIZE_LIMIT) return NULL;
  if (send ? memcmp(s, "b to ", 5) != 0 : memcmp(s, "b from ", 7) != 0) return NULL;
  if (!(s = goal_line_digits(s + (send ? 5 : 7), 10, &peer)) || peer >= (uint64_t)ranks)
    return NULL;
  if (memcmp(s, " tag ", 5) == 0 && (!(s = goal_line_digits(s + 5, 10, &tag)) || tag > INT32_MAX))
    return NULL;
  if (*s != '\n') return NULL;
  *t = (goal_line_task){send ? FS_SEND : FS_RECV, FS_HAS_SIZE, (int32_t)peer, (int32_t)tag,
                        (int64_t)size};
  return s + 1;
}

/* ` requires lB\n` after "lA", B in [1, n]: the next line's start, or NULL. */
static inline const char *goal_line_requires(const char *s, int64_t n, uint64_t *on) {
  if (memcmp(s, " requires ", 10) != 0 || !(s = goal_line_label(s + 10, n, on)) || *s != '\n')
    return NULL;
  return s + 1;
}

/* The start of the first line in data[from, to) that reads `rank R {`
 * (R a number, in *rank), or `to`: where the readers cut a file into parts. */
static inline size_t goal_line_next_block(const char *data, size_t from, size_t to, int32_t *rank) {
  const char *at = data + from, *end = data + to;
  while (at < end && (at = memchr(at, '\n', (size_t)(end - at))) != NULL) {
    at++;
    if (end - at < 7 || memcmp(at, "rank ", 5) != 0) continue;
    uint64_t value;
    size_t digits = fs_text_digits(at + 5, (size_t)(end - at - 5), &value);
    const char *after = at + 5 + digits;
    while (after < end && *after == ' ') after++;
    if (digits && value <= INT32_MAX && after < end && *after == '{') {
      *rank = (int32_t)value;
      return (size_t)(at - data);
    }
  }
  return to;
}

#endif
