/* size_table.c: reading and interpolating size-indexed parameter tables. */
#include "models/size_table.h"

#include <stdlib.h>

/* a + (b - a) * (s - s0) / (s1 - s0), rounded to nearest (halves away from
 * 0), saturated at the time limits (an extrapolation may run past them). */
static fs_time interpolate(fs_time a, fs_time b, int64_t s0, int64_t s1, int64_t s) {
  __int128 numerator = ((__int128)b - a) * ((__int128)s - s0), denominator = (__int128)s1 - s0;
  __int128 q =
      (numerator < 0 ? numerator - denominator / 2 : numerator + denominator / 2) / denominator;
  __int128 v = a + q;
  return v > FS_TIME_LIMIT ? FS_TIME_LIMIT : v < -FS_TIME_LIMIT ? -FS_TIME_LIMIT : (fs_time)v;
}

/* The row segment [i-1, i] holding size (or the last one); 0: below the first row. */
static int segment_of(const fs_size_table *t, int64_t size) {
  if (t->rows == 1 || size <= t->sizes[0]) return 0;
  int low = 1, high = t->rows - 1; /* first i with size <= sizes[i], or the last */
  while (low < high) {
    int middle = (low + high) / 2;
    if (size <= t->sizes[middle])
      high = middle;
    else
      low = middle + 1;
  }
  return low;
}

fs_time fs_size_table_value(const fs_size_table *t, int64_t size, int k) {
  int c = t->columns, i = segment_of(t, size);
  if (i == 0) return t->values[k];
  return interpolate(t->values[(i - 1) * c + k], t->values[i * c + k], t->sizes[i - 1], t->sizes[i],
                     size);
}

void fs_size_table_lookup(const fs_size_table *t, int64_t size, fs_time *values) {
  for (int k = 0; k < t->columns; k++) values[k] = fs_size_table_value(t, size, k);
}

void fs_size_table_free(fs_size_table *t) {
  if (t && t->owned) {
    free((void *)t->sizes);
    free((void *)t->values);
  }
  if (t) *t = (fs_size_table){0};
}

/* Skips blanks; returns the length of the next token (stops at '#'). */
static size_t next_token(const char *line, size_t length, size_t *at) {
  while (*at < length && (line[*at] == ' ' || line[*at] == '\t')) (*at)++;
  size_t start = *at;
  while (*at < length && line[*at] != ' ' && line[*at] != '\t' && line[*at] != '#') (*at)++;
  return *at - start;
}

typedef struct growing_table {
  int64_t *sizes;
  fs_time *values;
  int rows, capacity;
} growing_table;

static int add_row(growing_table *g, int columns, int64_t size, const fs_time *values) {
  if (g->rows == g->capacity) {
    int want = g->capacity ? g->capacity * 2 : 16;
    int64_t *sizes = realloc(g->sizes, (size_t)want * sizeof *sizes);
    if (sizes) g->sizes = sizes;
    fs_time *bigger = sizes ? realloc(g->values, (size_t)want * columns * sizeof *bigger) : NULL;
    if (!bigger) return -1;
    g->values = bigger;
    g->capacity = want;
  }
  g->sizes[g->rows] = size;
  for (int k = 0; k < columns; k++) g->values[(size_t)g->rows * columns + k] = values[k];
  g->rows++;
  return 0;
}

/* Parses one non-blank line into size and values; returns the 0-based
 * column of the first error and sets *expected, or -1 when fine. */
static long parse_row(const char *line, size_t length, int columns, const char *const *column_names,
                      const growing_table *g, int64_t *size, fs_time *values,
                      const char **expected) {
  size_t at = 0, n = next_token(line, length, &at), start = at - n;
  int status = fs_parse_size(line + start, n, size);
  if (status == FS_PAST_LIMIT)
    return *expected = "a message size up to " FS_SIZE_LIMIT_TEXT, (long)start;
  if (status) return *expected = "a message size (\"8B\", \"2KiB\")", (long)start;
  if (g->rows > 0 && *size <= g->sizes[g->rows - 1])
    return *expected = "a size larger than the previous row's", (long)start;
  for (int k = 0; k < columns; k++) {
    n = next_token(line, length, &at), start = at - n;
    status = n == 0 ? -1 : fs_parse_time(line + start, n, 1, &values[k]);
    if (status == FS_PAST_LIMIT)
      return *expected = "a time within the limit of +-" FS_TIME_LIMIT_TEXT, (long)start;
    if (status)
      return *expected = column_names ? column_names[k] : "a time with a unit", (long)start;
  }
  n = next_token(line, length, &at);
  if (n != 0) return *expected = "the end of the row", (long)(at - n);
  return -1;
}

int fs_size_table_read(fs_text_input *in, int columns, const char *const *column_names,
                       fs_size_table *out, fs_error *err) {
  growing_table g = {0};
  const char *line;
  size_t length;
  int status;
  *out = (fs_size_table){0};
  if (columns < 0 || columns > FS_SIZE_TABLE_MAX_COLUMNS)
    return fs_error_set(err, "bad table shape");
  while ((status = fs_text_input_next_line(in, &line, &length, err)) == 1) {
    size_t at = 0;
    if (next_token(line, length, &at) == 0) continue; /* blank or comment */
    if (columns == 0) { /* the first row says how many values a row has */
      while (next_token(line, length, &at) != 0) columns++;
      if (columns < 1 || columns > FS_SIZE_TABLE_MAX_COLUMNS) {
        status = fs_text_input_error(in, 1, err, "expected a size and 1 to %d values",
                                     FS_SIZE_TABLE_MAX_COLUMNS);
        break;
      }
    }
    int64_t size;
    fs_time values[FS_SIZE_TABLE_MAX_COLUMNS];
    const char *expected = NULL;
    long column = parse_row(line, length, columns, column_names, &g, &size, values, &expected);
    if (column < 0 && g.rows == FS_SIZE_TABLE_MAX_ROWS)
      expected = "no more rows (limit reached)", column = 0;
    if (column >= 0) {
      status = fs_text_input_error(in, column + 1, err, "expected %s", expected);
      break;
    }
    if (add_row(&g, columns, size, values)) {
      status = fs_error_set(err, "%s: out of memory", fs_text_input_name(in));
      break;
    }
  }
  if (status == 0 && g.rows == 0)
    status = fs_error_set(err, "%s: the table has no rows", fs_text_input_name(in));
  if (status < 0) {
    free(g.sizes);
    free(g.values);
    return -1;
  }
  *out = (fs_size_table){.columns = columns,
                         .rows = g.rows,
                         .sizes = g.sizes,
                         .values = g.values,
                         .owned = 1};
  return 0;
}
