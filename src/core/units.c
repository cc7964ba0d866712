/* units.c: exact parsing and formatting of times, sizes and times per byte.
 * Numbers are read as a decimal mantissa and a count of fraction digits and
 * scaled in 128-bit integers, so "0.4ns" is exactly 400 ps, never 399.99. */
#include "core/units.h"

#include <stdio.h>
#include <string.h>

typedef __int128 wide;

typedef struct named_scale {
  const char *name;
  int64_t scale;
} named_scale;

typedef struct decimal {
  wide mantissa; /* all digits, without the point */
  int fraction;  /* digits after the point */
  int negative;
  int huge;    /* more than 19 digits before the point: past every limit */
  size_t used; /* characters consumed */
} decimal;

static wide power10(int n) {
  wide p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

/* Reads [-]digits[.digits]; at most 19 significant digits so that scaling
 * cannot overflow (leading zeros are not counted). A longer whole part is
 * read to its end and marked huge; a longer fraction is invalid. */
static int read_decimal(const char *s, size_t n, decimal *d) {
  size_t i = 0;
  int digits = 0, seen = 0, point = 0;
  memset(d, 0, sizeof *d);
  if (i < n && (s[i] == '-' || s[i] == '+')) d->negative = s[i++] == '-';
  for (; i < n; i++) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      seen = 1;
      if (d->huge) continue;
      if ((digits > 0 || c != '0' || point) && ++digits > 19) {
        if (point) return -1;
        d->huge = 1;
        continue;
      }
      d->mantissa = d->mantissa * 10 + (c - '0');
      if (point) d->fraction++;
    } else if (c == '.' && !point) {
      point = 1;
    } else {
      break;
    }
  }
  if (!seen) return -1;
  d->used = i;
  return 0;
}

/* numerator / denominator rounded to nearest, halves away from zero. */
static wide divide_rounded(wide numerator, wide denominator) {
  int negative = (numerator < 0) != (denominator < 0);
  if (numerator < 0) numerator = -numerator;
  if (denominator < 0) denominator = -denominator;
  wide q = (numerator + denominator / 2) / denominator;
  return negative ? -q : q;
}

static int unit_is(const char *s, size_t n, const char *unit) {
  size_t k = strlen(unit);
  return n == k && memcmp(s, unit, k) == 0;
}

/* Scale of a time unit in picoseconds; 0 when unknown. Empty means ns. */
static int64_t time_unit(const char *s, size_t n) {
  if (n == 0 || unit_is(s, n, "ns")) return FS_NS;
  if (unit_is(s, n, "ps")) return FS_PS;
  if (unit_is(s, n, "us")) return FS_US;
  if (unit_is(s, n, "ms")) return FS_MS;
  if (unit_is(s, n, "s")) return FS_S;
  return 0;
}

/* Scale of a size unit in bytes; 0 when unknown. Empty means bytes. */
static int64_t size_unit(const char *s, size_t n) {
  static const named_scale units[] = {
      {"B", 1},
      {"KB", 1000},
      {"MB", 1000000},
      {"GB", 1000000000},
      {"TB", 1000000000000},
      {"KiB", 1 << 10},
      {"MiB", 1 << 20},
      {"GiB", (int64_t)1 << 30},
      {"TiB", (int64_t)1 << 40},
  };
  if (n == 0) return 1;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (unit_is(s, n, units[i].name)) return units[i].scale;
  return 0;
}

static int within(wide v, int64_t limit) { return v >= -(wide)limit && v <= limit; }

int fs_parse_time(const char *text, size_t length, int allow_negative, fs_time *out) {
  decimal d;
  if (read_decimal(text, length, &d) != 0) return -1;
  int64_t scale = time_unit(text + d.used, length - d.used);
  if (scale == 0 || (d.negative && !allow_negative)) return -1;
  if (d.huge) return FS_PAST_LIMIT;
  wide v = divide_rounded(d.mantissa * scale, power10(d.fraction));
  if (d.negative) v = -v;
  if (!within(v, FS_TIME_LIMIT)) return FS_PAST_LIMIT;
  *out = (fs_time)v;
  return 0;
}

int fs_parse_size(const char *text, size_t length, int64_t *out) {
  decimal d;
  if (read_decimal(text, length, &d) != 0 || d.negative) return -1;
  int64_t scale = size_unit(text + d.used, length - d.used);
  if (scale == 0) return -1;
  wide numerator = d.mantissa * scale, denominator = power10(d.fraction);
  if (d.huge) return FS_PAST_LIMIT;
  if (numerator % denominator != 0) return -1; /* not whole bytes */
  wide v = numerator / denominator;
  if (!within(v, FS_SIZE_LIMIT)) return FS_PAST_LIMIT;
  *out = (int64_t)v;
  return 0;
}

int fs_parse_per_byte(const char *text, size_t length, fs_per_byte *out) {
  decimal d;
  if (read_decimal(text, length, &d) != 0 || d.negative) return -1;
  if (d.huge) return time_unit(text + d.used, length - d.used) ? FS_PAST_LIMIT : -1;
  const char *unit = text + d.used;
  size_t unit_length = length - d.used;
  wide v;
  if (unit_length >= 2 && memcmp(unit + unit_length - 2, "/s", 2) == 0) {
    int64_t scale = size_unit(unit, unit_length - 2);
    if (scale == 0 || unit_length == 2 || d.mantissa == 0) return -1;
    /* bandwidth m/10^f * scale bytes per second -> 10^18 as / that */
    v = divide_rounded((wide)1000000000000000000 * power10(d.fraction), d.mantissa * scale);
    if (v == 0) return -1; /* faster than 1 byte per attosecond: not representable */
  } else {
    int64_t scale = time_unit(unit, unit_length);
    if (scale == 0) return -1;
    v = divide_rounded(d.mantissa * scale * 1000000, power10(d.fraction));
  }
  if (!within(v, FS_PER_BYTE_LIMIT)) return FS_PAST_LIMIT;
  *out = (fs_per_byte)v;
  return 0;
}

int fs_parse_count(const char *text, size_t length, int64_t min, int64_t max, int64_t *out) {
  int64_t v = 0;
  if (length == 0 || length > 18) return -1;
  for (size_t i = 0; i < length; i++) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  if (v < min || v > max) return -1;
  *out = v;
  return 0;
}

fs_time fs_time_for_bytes(int64_t size, fs_per_byte per_byte) {
  /* whole picoseconds per byte (the common case): no 128-bit division */
  if (per_byte >= 0 && size >= 0 && per_byte % 1000000 == 0) {
    int64_t ps = per_byte / 1000000;
    if (ps == 0 || size <= FS_TIME_LIMIT / ps) return size * ps;
  }
  wide v = divide_rounded((wide)size * per_byte, 1000000);
  if (v > FS_TIME_LIMIT) return FS_TIME_LIMIT;
  if (v < -FS_TIME_LIMIT) return -FS_TIME_LIMIT;
  return (fs_time)v;
}

/* value / 10^digits in decimal, trailing zeros of the fraction trimmed,
 * then suffix: exact for every int64 (the magnitude is taken unsigned). */
static char *format_fixed(char *buffer, size_t size, int64_t value, int digits,
                          const char *suffix) {
  uint64_t scale = 1;
  for (int i = 0; i < digits; i++) scale *= 10;
  uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
  uint64_t whole = magnitude / scale, fraction = magnitude % scale;
  const char *sign = value < 0 ? "-" : "";
  if (fraction == 0) {
    snprintf(buffer, size, "%s%llu%s", sign, (unsigned long long)whole, suffix);
  } else {
    int width = digits;
    while (fraction % 10 == 0) fraction /= 10, width--;
    snprintf(buffer, size, "%s%llu.%0*llu%s", sign, (unsigned long long)whole, width,
             (unsigned long long)fraction, suffix);
  }
  return buffer;
}

char *fs_format_ns(char *buffer, fs_time t) { return format_fixed(buffer, 32, t, 3, ""); }

int fs_parse_ns(const char *text, size_t length, fs_time *out) {
  size_t i = 0;
  int64_t whole = 0, fraction = 0;
  for (; i < length && text[i] >= '0' && text[i] <= '9'; i++) {
    int digit = text[i] - '0';
    if (whole > (INT64_MAX / FS_NS - digit) / 10) return FS_PAST_LIMIT;
    whole = whole * 10 + digit;
  }
  if (i == 0) return -1;
  if (i < length) {
    if (text[i] != '.' || length - i < 2 || length - i > 4) return -1;
    int64_t scale = FS_NS / 10;
    for (i++; i < length; i++, scale /= 10) {
      if (text[i] < '0' || text[i] > '9') return -1;
      fraction += (text[i] - '0') * scale;
    }
  }
  if (whole > (INT64_MAX - fraction) / FS_NS) return FS_PAST_LIMIT;
  if (whole * FS_NS + fraction > FS_TIME_LIMIT) return FS_PAST_LIMIT;
  *out = whole * FS_NS + fraction;
  return 0;
}

char *fs_format_per_byte(char *buffer, fs_per_byte per_byte) {
  return format_fixed(buffer, 40, per_byte, 6, "ps"); /* attoseconds as picoseconds */
}

char *fs_format_ns_per_byte(char *buffer, fs_per_byte per_byte) {
  return format_fixed(buffer, 48, per_byte, 9, "");
}

/* value in the first (largest) unit in which it is whole; else, or for 0,
 * in the base unit `base`. */
/* "<value><unit>" without printf (formatting runs once per task written). */
static char *integer_and_unit(char *buffer, int64_t value, const char *unit) {
  char digits[24];
  int n = sizeof digits;
  uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
  do digits[--n] = (char)('0' + magnitude % 10), magnitude /= 10;
  while (magnitude);
  if (value < 0) digits[--n] = '-';
  size_t length = sizeof digits - (size_t)n, unit_length = strlen(unit);
  memcpy(buffer, digits + n, length);
  memcpy(buffer + length, unit, unit_length + 1);
  return buffer;
}

static char *format_in_unit(char *buffer, int64_t value, const named_scale *units, size_t count,
                            const char *base) {
  for (size_t i = 0; i < count; i++)
    if (value != 0 && value % units[i].scale == 0)
      return integer_and_unit(buffer, value / units[i].scale, units[i].name);
  return integer_and_unit(buffer, value, base);
}

char *fs_format_time(char *buffer, fs_time t) {
  static const named_scale units[] = {{"s", FS_S}, {"ms", FS_MS}, {"us", FS_US}, {"ns", FS_NS}};
  if (t == 0) return strcpy(buffer, "0ns");
  return format_in_unit(buffer, t, units, sizeof units / sizeof units[0], "ps");
}

char *fs_format_size(char *buffer, int64_t size) {
  static const named_scale units[] = {{"TiB", (int64_t)1 << 40}, {"TB", 1000000000000},
                                      {"GiB", (int64_t)1 << 30}, {"GB", 1000000000},
                                      {"MiB", 1 << 20},          {"MB", 1000000},
                                      {"KiB", 1 << 10},          {"KB", 1000}};
  return format_in_unit(buffer, size, units, sizeof units / sizeof units[0], "B");
}
