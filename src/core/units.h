/* units.h: simulated time and sizes, exact, and their limits.
 * Time is an int64 count of picoseconds, kept within +-2^62 (about 53
 * days; FS_TIME_LIMIT below), far enough from the int64 range for
 * saturating arithmetic to stay cheap. A time
 * per byte (beta, gamma) is an int64 count of attoseconds per byte, so that
 * 0.4 ns/B or 10 GB/s are exact; a product with a size is rounded to the
 * nearest picosecond (halves away from zero). */
#ifndef FS_UNITS_H
#define FS_UNITS_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t fs_time;     /* picoseconds */
typedef int64_t fs_per_byte; /* attoseconds per byte */

#define FS_TIME_MAX INT64_MAX
/* The limits of the whole program (docs/MODELS.md, "Limits"): every time, instant
 * or duration, lies in [-FS_TIME_LIMIT, FS_TIME_LIMIT] (2^62 ps, about 53.4
 * days) and every size in [0, FS_SIZE_LIMIT] (2^62 B). Readers reject
 * values past them; time arithmetic saturates at them, so that no input
 * reaches a signed overflow: a run whose times reach the limit ends there. */
#define FS_TIME_LIMIT ((fs_time)1 << 62)
#define FS_SIZE_LIMIT ((int64_t)1 << 62)
#define FS_PER_BYTE_LIMIT ((fs_per_byte)1 << 62) /* attoseconds per byte */
#define FS_TIME_LIMIT_TEXT "4611686018427387.904ns (2^62 ps)"
#define FS_SIZE_LIMIT_TEXT "4611686018427387904 B (2^62)"
#define FS_PER_BYTE_LIMIT_TEXT "4611.686018427387904ns per byte (2^62 as)"
#define FS_PS ((fs_time)1)
#define FS_NS ((fs_time)1000)
#define FS_US ((fs_time)1000000)
#define FS_MS ((fs_time)1000000000)
#define FS_S ((fs_time)1000000000000)

/* Each parser reads exactly text[0..length) and returns 0, -1 when the
 * text is not a valid value, or FS_PAST_LIMIT when it is one past the
 * limits above (nothing is written then).
 * Time: decimal number and unit ps|ns|us|ms|s; a bare number means ns;
 * rounded to the nearest picosecond; negative values are allowed only where
 * allow_negative is set (model parameters fitted by regression can be). */
int fs_parse_time(const char *text, size_t length, int allow_negative, fs_time *out);
/* Size: whole bytes; units B, KB, MB, GB (10^3...), KiB, MiB, GiB (2^10...);
 * a bare number means bytes; fractions allowed when the result is whole. */
int fs_parse_size(const char *text, size_t length, int64_t *out);
/* Time per byte: a time as above ("0.4ns" per byte) or a bandwidth
 * "10GB/s", "1.5GiB/s", "800MB/s" (the inverse, rounded to the nearest as). */
int fs_parse_per_byte(const char *text, size_t length, fs_per_byte *out);
/* What fs_format_ns writes for a time >= 0: DIGITS[.D[D[D]]] nanoseconds
 * without unit, exactly in picoseconds; FS_PAST_LIMIT past the time limit. */
int fs_parse_ns(const char *text, size_t length, fs_time *out);
/* Whole number without unit (counts: ranks, rounds, any=). */
int fs_parse_count(const char *text, size_t length, int64_t min, int64_t max, int64_t *out);

#define FS_PAST_LIMIT (-2)

/* a within the time limits. */
static inline fs_time fs_time_clamp(fs_time a) {
  return a > FS_TIME_LIMIT ? FS_TIME_LIMIT : a < -FS_TIME_LIMIT ? -FS_TIME_LIMIT : a;
}
/* a + b and a * k, saturated at the time limits (never an overflow). */
static inline fs_time fs_time_add(fs_time a, fs_time b) {
  fs_time sum;
  if (__builtin_add_overflow(a, b, &sum)) return a > 0 ? FS_TIME_LIMIT : -FS_TIME_LIMIT;
  return fs_time_clamp(sum);
}
static inline fs_time fs_time_mul(fs_time a, int64_t k) {
  fs_time product;
  if (__builtin_mul_overflow(a, k, &product))
    return (a > 0) == (k > 0) ? FS_TIME_LIMIT : -FS_TIME_LIMIT;
  return fs_time_clamp(product);
}

/* A total of sizes (bytes sent in a run: it may pass FS_SIZE_LIMIT),
 * saturated at INT64_MAX. */
static inline int64_t fs_bytes_add(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? (a > 0 ? INT64_MAX : INT64_MIN) : sum;
}

/* size * per_byte, in picoseconds, rounded to nearest (halves away from 0),
 * saturated at the time limits. */
fs_time fs_time_for_bytes(int64_t size, fs_per_byte per_byte);

/* Canonical text that fs_parse_time reads back exactly: the largest unit in
 * which the value is whole ("1500ns", "3us", "7ps"). buffer >= 32 bytes. */
char *fs_format_time(char *buffer, fs_time t);
/* Exact decimal nanoseconds without unit, for reports: "1234.567", "5500". */
char *fs_format_ns(char *buffer, fs_time t);
/* Canonical size: "8B", "4KiB", "3MB" (largest unit in which it is whole). */
char *fs_format_size(char *buffer, int64_t size);
/* Exact decimal nanoseconds per byte, for reports: "0.4", "0.098039216".
 * buffer >= 48 bytes. */
char *fs_format_ns_per_byte(char *buffer, fs_per_byte per_byte);
/* Canonical time per byte, read back exactly by fs_parse_per_byte. */
char *fs_format_per_byte(char *buffer, fs_per_byte per_byte);

#endif
