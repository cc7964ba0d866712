/* merge.c: samples CSVs read back strictly and merged in seed order (the
 * shards of one study), shard specifications, and the samples writer used
 * for merged results. See merge.h. */
#include "study/merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_HINT "seed,makespan_ns,finish_ns_0,...,finish_ns_R-1"

struct fs_merge {
  int32_t ranks; /* 0 until a header was read */
  int64_t count, capacity;
  uint64_t *seed;
  fs_time *makespan, *finish; /* finish: count x ranks */
  int32_t *file;              /* which file each row came from (for messages) */
  int64_t *line;
  char **names; /* files read, in order */
  int32_t files;
};

/* ---- shards ---------------------------------------------------------------- */

int fs_study_parse_shard(const char *text, int64_t *index, int64_t *count, fs_error *err) {
  const char *slash = strchr(text, '/');
  int64_t i, n;
  if (!slash || fs_parse_count(text, (size_t)(slash - text), 0, INT64_MAX, &i) ||
      fs_parse_count(slash + 1, strlen(slash + 1), 1, INT64_MAX, &n))
    return fs_error_set(err, "--shard %s: expected INDEX/COUNT, two whole numbers (e.g. 0/4)",
                        text);
  if (i >= n)
    return fs_error_set(err, "--shard %s: the index must be below the count (0 to %lld)", text,
                        (long long)(n - 1));
  *index = i;
  *count = n;
  return 0;
}

/* ---- reading ----------------------------------------------------------------- */

typedef struct reader {
  fs_merge *m;
  fs_text_input *in;
  const char *line;
  size_t length;
  fs_error *err;
} reader;

/* "FILE:LINE:COLUMN: message", the column being that of `where`. */
#define fail(r, where, ...) \
  fs_text_input_error((r)->in, (where) - (r)->line + 1, (r)->err, __VA_ARGS__)

/* A field of the line quoted for a message. */
static const char *show(const reader *r, const char *text, size_t length,
                        char buffer[FS_TEXT_QUOTED_SIZE]) {
  return fs_text_quoted(text, length, r->line + r->length, buffer);
}

/* Length of the field starting at text (up to ',' or the end of the line). */
static size_t field_length(const reader *r, const char *text) {
  const char *end = r->line + r->length, *p = text;
  while (p < end && *p != ',') p++;
  return (size_t)(p - text);
}

/* The name of column f of a row: seed, makespan_ns, finish_ns_K. */
static const char *column_name(int64_t f, char buffer[32]) {
  if (f == 0) return "seed";
  if (f == 1) return "makespan_ns";
  /* by hand, not snprintf: a header names every rank, up to 2^31 of them */
  char digits[24];
  int n = 0;
  for (uint64_t rank = (uint64_t)(f - 2); n == 0 || rank > 0; rank /= 10)
    digits[n++] = (char)('0' + rank % 10);
  memcpy(buffer, "finish_ns_", 10);
  for (int k = 0; k < n; k++) buffer[10 + k] = digits[n - 1 - k];
  buffer[10 + n] = 0;
  return buffer;
}

/* seed,makespan_ns,finish_ns_0,...: sets the rank count (or checks it). */
static int read_header(reader *r) {
  fs_merge *m = r->m;
  char buffer[64], text[32];
  const char *p = r->line, *end = r->line + r->length;
  int32_t ranks = 0;
  for (int64_t column = 0;; column++) {
    const char *name = column_name(column, text);
    size_t length = field_length(r, p);
    if (length != strlen(name) || memcmp(p, name, length) != 0)
      return fail(r, p, "expected '%s' (the samples header is " HEADER_HINT "), got %s", name,
                  show(r, p, length, buffer));
    if (column >= 2) ranks++;
    p += length;
    if (p == end) {
      if (column >= 2) break;
      return fail(r, p, "expected ',%s' (the samples header is " HEADER_HINT "), got end of line",
                  column == 0 ? "makespan_ns" : "finish_ns_0");
    }
    if (ranks == INT32_MAX) return fail(r, p, "too many ranks");
    p++; /* the ',' */
  }
  if (m->ranks && ranks != m->ranks)
    return fail(r, r->line, "%d ranks (finish_ns_0 to finish_ns_%d), but %s has %d", (int)ranks,
                (int)ranks - 1, m->names[0], (int)m->ranks);
  m->ranks = ranks;
  return 0;
}

/* The start of a header longer than FS_TEXT_LINE_MAX (a study of some
 * 60000 ranks or more), checked before the reader's buffer grows for more:
 * each complete column must be the one the header has there. */
static int check_header_start(void *arg, const char *partial, size_t length, fs_error *err) {
  reader *r = arg;
  char text[32];
  const char *p = partial, *end = partial + length;
  for (int64_t column = 0;; column++) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    if (!comma) return 0; /* the rest is still arriving */
    const char *name = column_name(column, text);
    if ((size_t)(comma - p) != strlen(name) || memcmp(p, name, strlen(name)) != 0) {
      char shown[64];
      r->line = partial, r->length = length;
      return fs_text_error_at(err, fs_text_input_name(r->in), fs_text_input_line_number(r->in) + 1,
                              p - partial + 1,
                              "expected '%s' (the samples header is " HEADER_HINT "), got %s", name,
                              show(r, p, (size_t)(comma - p), shown));
    }
    p = comma + 1;
  }
}

/* Whole number without sign: 0, or -1 when it is not one or overflows. */
static int parse_seed(const char *text, size_t length, uint64_t *out) {
  uint64_t v = 0;
  if (length == 0) return -1;
  for (size_t i = 0; i < length; i++) {
    if (text[i] < '0' || text[i] > '9') return -1;
    unsigned digit = (unsigned)(text[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return -1;
    v = v * 10 + digit;
  }
  *out = v;
  return 0;
}

static int grow(fs_merge *m) {
  if (m->count < m->capacity) return 0;
  /* a row holds a time per rank: start small, a 70000-rank row is 560 KB */
  int64_t capacity = m->capacity ? m->capacity * 2 : 4;
  if ((uint64_t)capacity > SIZE_MAX / sizeof(fs_time) / (uint64_t)m->ranks) return -1;
  uint64_t *seed = realloc(m->seed, (size_t)capacity * sizeof *seed);
  if (seed) m->seed = seed;
  fs_time *makespan = realloc(m->makespan, (size_t)capacity * sizeof *makespan);
  if (makespan) m->makespan = makespan;
  fs_time *finish = realloc(m->finish, (size_t)capacity * (size_t)m->ranks * sizeof *finish);
  if (finish) m->finish = finish;
  int32_t *file = realloc(m->file, (size_t)capacity * sizeof *file);
  if (file) m->file = file;
  int64_t *line = realloc(m->line, (size_t)capacity * sizeof *line);
  if (line) m->line = line;
  if (!seed || !makespan || !finish || !file || !line) return -1;
  m->capacity = capacity;
  return 0;
}

/* One row: seed, makespan, then a finish time per rank. */
static int read_row(reader *r) {
  fs_merge *m = r->m;
  char buffer[64], name[32];
  const char *p = r->line, *end = r->line + r->length;
  int64_t fields = 2 + (int64_t)m->ranks;
  if (grow(m)) return fail(r, p, "out of memory for %lld rows", (long long)m->count + 1);
  for (int64_t f = 0; f < fields; f++) {
    if (f > 0) {
      if (p == end)
        return fail(r, p, "expected ',' and %s (the header has %lld columns), got end of line",
                    column_name(f, name), (long long)fields);
      p++; /* the ',' */
    }
    size_t length = field_length(r, p);
    if (f == 0) {
      if (parse_seed(p, length, &m->seed[m->count]))
        return fail(r, p, "expected a seed (a whole number below 2^64), got %s",
                    show(r, p, length, buffer));
    } else {
      fs_time *t = f == 1 ? &m->makespan[m->count] : &m->finish[m->count * m->ranks + (f - 2)];
      if (fs_parse_ns(p, length, t))
        return fail(r, p,
                    "expected %s: nanoseconds with at most 3 decimals (e.g. 1234.567), "
                    "got %s",
                    column_name(f, name), show(r, p, length, buffer));
    }
    p += length;
  }
  if (p != end)
    return fail(r, p, "expected end of line (the header has %lld columns), got %s",
                (long long)fields, show(r, p, field_length(r, p + 1) + 1, buffer));
  m->file[m->count] = m->files - 1;
  m->line[m->count] = fs_text_input_line_number(r->in);
  m->count++;
  return 0;
}

fs_merge *fs_merge_new(void) { return calloc(1, sizeof(fs_merge)); }

int fs_merge_read(fs_merge *m, fs_text_input *in, fs_error *err) {
  reader r = {.m = m, .in = in, .err = err};
  char **names = realloc(m->names, ((size_t)m->files + 1) * sizeof *names);
  if (!names) return fs_error_set(err, "out of memory");
  m->names = names;
  if (!(names[m->files] = strdup(fs_text_input_name(in))))
    return fs_error_set(err, "out of memory");
  m->files++;
  int64_t first_row = m->count;
  /* lines as long as fennelsim writes them: a column per rank */
  fs_text_input_set_line_max(in, FS_MERGE_LINE_MAX, check_header_start, &r);
  int status = fs_text_input_next_line(in, &r.line, &r.length, err);
  if (status == 0)
    fs_error_set(err, "%s:1:1: expected the samples header " HEADER_HINT " (got end of file)",
                 fs_text_input_name(in));
  int failed = status <= 0 || read_header(&r);
  if (!failed) fs_text_input_set_line_max(in, fs_study_row_size(m->ranks), NULL, NULL);
  while (!failed && (status = fs_text_input_next_line(in, &r.line, &r.length, err)) > 0)
    failed = read_row(&r) != 0;
  if (status < 0) failed = 1;
  if (failed) {
    m->count = first_row; /* a file is read whole or not at all */
    if (m->files == 1) m->ranks = 0;
    return -1;
  }
  return 0;
}

int fs_merge_read_file(fs_merge *m, const char *path, fs_error *err) {
  fs_text_input *in = fs_text_input_open_file(path, err);
  if (!in) return -1;
  int status = fs_merge_read(m, in, err);
  fs_text_input_close(in);
  return status;
}

/* ---- merging ----------------------------------------------------------------- */

typedef struct row_key {
  uint64_t seed;
  int64_t row; /* in reading order */
} row_key;

static int compare_keys(const void *a, const void *b) {
  const row_key *x = a, *y = b;
  if (x->seed != y->seed) return x->seed < y->seed ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

int fs_merge_results(fs_merge *m, fs_study_results *out, int32_t *ranks, fs_merge_gaps *gaps,
                     fs_error *err) {
  if (m->files == 0 || m->ranks == 0) return fs_error_set(err, "no samples file read");
  size_t n = (size_t)m->count, r = (size_t)m->ranks;
  row_key *keys = malloc((n ? n : 1) * sizeof *keys);
  fs_study_results results = {
      .count = m->count,
      .seed = malloc((n ? n : 1) * sizeof(uint64_t)),
      .makespan = malloc((n ? n : 1) * sizeof(fs_time)),
      .finish = malloc((n ? n * r : 1) * sizeof(fs_time)),
  };
  if (!keys || !results.seed || !results.makespan || !results.finish) {
    free(keys);
    fs_study_results_free(&results);
    return fs_error_set(err, "out of memory for %lld samples", (long long)m->count);
  }
  for (size_t i = 0; i < n; i++) keys[i] = (row_key){m->seed[i], (int64_t)i};
  qsort(keys, n, sizeof *keys, compare_keys);
  *gaps =
      (fs_merge_gaps){.first_seed = n ? keys[0].seed : 0, .last_seed = n ? keys[n - 1].seed : 0};
  for (size_t i = 1; i < n; i++) {
    if (keys[i].seed == keys[i - 1].seed) {
      int64_t now = keys[i].row, before = keys[i - 1].row;
      fs_text_error_at(err, m->names[m->file[now]], m->line[now], 1,
                       "seed %llu already read at %s:%lld", (unsigned long long)keys[i].seed,
                       m->names[m->file[before]], (long long)m->line[before]);
      free(keys);
      fs_study_results_free(&results);
      return -1;
    }
    uint64_t gap = keys[i].seed - keys[i - 1].seed - 1;
    if (gap && !gaps->missing) gaps->first_missing = keys[i - 1].seed + 1;
    gaps->missing += gap;
  }
  for (size_t i = 0; i < n; i++) {
    size_t from = (size_t)keys[i].row;
    results.seed[i] = m->seed[from];
    results.makespan[i] = m->makespan[from];
    memcpy(results.finish + i * r, m->finish + from * r, r * sizeof(fs_time));
  }
  free(keys);
  *out = results;
  *ranks = m->ranks;
  return 0;
}

void fs_merge_free(fs_merge *m) {
  if (!m) return;
  for (int32_t i = 0; i < m->files; i++) free(m->names[i]);
  free(m->names);
  free(m->seed);
  free(m->makespan);
  free(m->finish);
  free(m->file);
  free(m->line);
  free(m);
}

/* ---- writing ----------------------------------------------------------------- */

int fs_merge_write_samples(const fs_study_results *results, int32_t ranks, fs_output *out,
                           fs_error *err) {
  char *text = malloc(fs_study_row_size(ranks));
  if (!text) {
    fs_output_abort(out);
    return fs_error_set(err, "out of memory");
  }
  fs_output_write(out, text, fs_study_header(text, ranks));
  for (int64_t i = 0; i < results->count; i++)
    fs_output_write(out, text,
                    fs_study_row(text, results->seed[i], results->makespan[i],
                                 results->finish + i * ranks, ranks));
  free(text);
  return fs_output_commit(out, err);
}
