/* probe_data.c: fennelprobe's point-to-point CSV (schema in docs/PROBE.md),
 * read strictly and written exactly:
 *
 *   # fennelprobe 1 ranks=4 nodes=1 cores=4 host=NAME date=...
 *   experiment,placement,bytes,reply_bytes,stride,block,count,rank_a,rank_b,rank_c,repetitions,min_ns,median_ns,mean_ns,ci95_ns
 *   roundtrip,shm,1024,1024,0,0,1,0,1,-1,120,2510.5,2533.0,2540.1,12.3
 *
 * The first line names the format, its version and the measuring run's rank
 * count (other KEY=VALUE words are kept for people, not read); '#' lines
 * after it and blank lines are skipped. That is the form on stdout and of
 * files written before issue 16; a file written since starts with the column
 * line (pandas reads it without options) and its metadata lines, the same
 * without "# ", are in the sidecar FILE.meta. Times are decimal nanoseconds with
 * at most 3 decimals, so picoseconds are exact both ways. Every error reads
 * "FILE:LINE:COLUMN: expected ...". */
#include "fit/probe_data.h"

#include <stdlib.h>
#include <string.h>

#include "io/atomic_file.h"
#include "io/text_input.h"

#define COLUMNS 15
#define MAX_ROWS ((int64_t)1 << 26) /* bounds memory whatever the input */
#define MAX_RANKS ((int64_t)1 << 24)
#define FS_PROBE_META_LINE_MAX 4096

static const char column_line[] =
    "experiment,placement,bytes,reply_bytes,stride,block,count,rank_a,rank_b,rank_c,repetitions,"
    "min_ns,median_ns,mean_ns,ci95_ns";

static const char *const experiment_names[FS_EXPERIMENTS] = {"roundtrip", "ssend",     "send_call",
                                                             "train",     "multicast", "one_to_two",
                                                             "ring",      "memcpy"};

const char *fs_experiment_name(fs_experiment e) {
  return e >= 0 && e < FS_EXPERIMENTS ? experiment_names[e] : "?";
}

int fs_experiment_from_name(const char *name, size_t length) {
  for (int e = 0; e < FS_EXPERIMENTS; e++)
    if (strlen(experiment_names[e]) == length && memcmp(experiment_names[e], name, length) == 0)
      return e;
  return -1;
}

fs_probe_data *fs_probe_data_new(int32_t ranks) {
  fs_probe_data *d = calloc(1, sizeof *d);
  if (d) d->ranks = ranks;
  return d;
}

void fs_probe_data_free(fs_probe_data *d) {
  if (!d) return;
  free(d->rows);
  free(d->source);
  free(d);
}

int fs_probe_data_add(fs_probe_data *d, const fs_probe_row *row) {
  if (d->count == d->capacity) {
    int64_t want = d->capacity ? d->capacity * 2 : 64;
    fs_probe_row *rows = realloc(d->rows, (size_t)want * sizeof *rows);
    if (!rows) return -1;
    d->rows = rows, d->capacity = want;
  }
  d->rows[d->count++] = *row;
  return 0;
}

/* ---- reading ---- */

typedef struct field {
  const char *text;
  size_t length, column; /* column: 1-based, for messages */
} field;

/* Splits at commas into at most COLUMNS + 1 fields; returns their count. */
static int split(const char *line, size_t length, field *fields) {
  int n = 0;
  size_t start = 0;
  for (size_t i = 0; i <= length && n <= COLUMNS; i++)
    if (i == length || line[i] == ',') {
      fields[n++] = (field){line + start, i - start, start + 1};
      start = i + 1;
    }
  return n;
}

/* A whole number in [min, max] (optional '-'), nothing else. */
static int parse_integer(const field *f, int64_t min, int64_t max, int64_t *out) {
  size_t i = 0;
  int negative = f->length > 0 && f->text[0] == '-';
  if (negative) i++;
  if (i == f->length || f->length - i > 18) return -1;
  int64_t v = 0;
  for (; i < f->length; i++) {
    if (f->text[i] < '0' || f->text[i] > '9') return -1;
    v = v * 10 + (f->text[i] - '0');
  }
  if (negative) v = -v;
  if (v < min || v > max) return -1;
  *out = v;
  return 0;
}

/* The first line: "# fennelprobe 1 ranks=P ..." */
static int read_header(fs_text_input *in, const char *line, size_t length, int32_t *ranks,
                       int sidecar, fs_error *err) {
  static const char magic[] = "# fennelprobe 1";
  static const char collectives[] = "# fennelprobe-collectives";
  if (sidecar) { /* a sidecar's first line: the same without "# " */
    char copy[FS_PROBE_META_LINE_MAX + 3] = "# ";
    if (length > FS_PROBE_META_LINE_MAX)
      return fs_text_input_error(in, 1, err,
                                 "expected \"fennelprobe 1 ranks=P ...\" (a line of "
                                 "at most %d bytes)",
                                 FS_PROBE_META_LINE_MAX);
    memcpy(copy + 2, line, length);
    if (read_header(in, copy, length + 2, ranks, 0, err) == 0) return 0;
    /* the message's column counts the "# " that is not in the sidecar */
    return fs_text_input_error(in, 1, err,
                               "expected \"fennelprobe 1 ranks=P ...\" as the "
                               "sidecar's first line (a fennelprobe point-to-point file)");
  }
  size_t n = sizeof magic - 1;
  if (length >= sizeof collectives - 1 && memcmp(line, collectives, sizeof collectives - 1) == 0)
    return fs_text_input_error(in, 1, err,
                               "expected \"# fennelprobe 1 ranks=P ...\" (this is a "
                               "collectives file: `fennelsim validate` reads it)");
  if (length < n || memcmp(line, magic, n) != 0 || (length > n && line[n] != ' '))
    return fs_text_input_error(in, 1, err,
                               "expected \"# fennelprobe 1 ranks=P ...\" as the "
                               "first line (a fennelprobe point-to-point file)");
  for (size_t at = n; at < length;) {
    while (at < length && line[at] == ' ') at++;
    size_t start = at;
    while (at < length && line[at] != ' ') at++;
    if (at - start > 6 && memcmp(line + start, "ranks=", 6) == 0) {
      field f = {line + start + 6, at - start - 6, start + 7};
      int64_t value;
      if (parse_integer(&f, 1, MAX_RANKS, &value))
        return fs_text_input_error(in, (int64_t)f.column, err,
                                   "expected ranks=P with P a whole number from 1 to %lld",
                                   (long long)MAX_RANKS);
      *ranks = (int32_t)value;
    }
  }
  if (*ranks == 0)
    return fs_text_input_error(in, (int64_t)length + 1, err, "expected ranks=P in the first line");
  return 0;
}

/* Checks that need several fields; returns the bad field's index or -1. */
static int check_row(const fs_probe_row *r, const char **expected) {
  if ((r->stride == 0) != (r->block == 0))
    return *expected = "stride and block both 0 (contiguous) or both positive", 4;
  if (r->stride > 0 && (r->block > r->stride || r->bytes % r->block != 0))
    return *expected = "block <= stride, dividing bytes (a vector of bytes/block blocks)", 5;
  if (r->median < r->min) return *expected = "median_ns >= min_ns", 12;
  if (r->mean < r->min) return *expected = "mean_ns >= min_ns", 13;
  return -1;
}

/* Parses a data line into row; returns -1, or the 0-based index of the bad
 * field (COLUMNS: a field too many) with *expected set, or `fields` when
 * the line ends too early. */
static int parse_row(const field *f, int fields, int32_t ranks, fs_probe_row *r,
                     const char **expected) {
  int64_t v[COLUMNS] = {0};
  static const char *const count_text[] = {"bytes: a whole number of bytes >= 0",
                                           "reply_bytes: a whole number of bytes >= 0",
                                           "stride: a whole number of bytes >= 0",
                                           "block: a whole number of bytes >= 0",
                                           "count: a whole number from 1 to 16777216",
                                           "rank_a: a rank of the run (0 to ranks-1)",
                                           "rank_b: a rank of the run or -1",
                                           "rank_c: a rank of the run or -1",
                                           "repetitions: a whole number >= 1"};
  const int64_t low[] = {0, 0, 0, 0, 1, 0, -1, -1, 1};
  const int64_t high[] = {FS_SIZE_LIMIT, FS_SIZE_LIMIT, FS_SIZE_LIMIT, FS_SIZE_LIMIT, MAX_RANKS,
                          ranks - 1,     ranks - 1,     ranks - 1,     INT64_MAX / 2};
  int e = fs_experiment_from_name(f[0].text, f[0].length);
  if (e < 0)
    return *expected = "an experiment: roundtrip, ssend, send_call, train, multicast, "
                       "one_to_two, ring or memcpy",
           0;
  r->experiment = (fs_experiment)e;
  if (fields < 2) return fields;
  if (f[1].length == 3 && memcmp(f[1].text, "shm", 3) == 0)
    r->placement = FS_PLACEMENT_SHM;
  else if (f[1].length == 3 && memcmp(f[1].text, "net", 3) == 0)
    r->placement = FS_PLACEMENT_NET;
  else
    return *expected = "placement shm or net", 1;
  for (int k = 2; k < 11; k++) {
    if (k >= fields) return fields;
    if (parse_integer(&f[k], low[k - 2], high[k - 2], &v[k]))
      return *expected = count_text[k - 2], k;
  }
  r->bytes = v[2], r->reply_bytes = v[3], r->stride = v[4], r->block = v[5];
  r->count = (int32_t)v[6], r->rank_a = (int32_t)v[7], r->rank_b = (int32_t)v[8];
  r->rank_c = (int32_t)v[9], r->repetitions = v[10];
  fs_time *times[] = {&r->min, &r->median, &r->mean, &r->ci95};
  for (int k = 11; k < COLUMNS; k++) {
    if (k >= fields) return fields;
    if (fs_parse_ns(f[k].text, f[k].length, times[k - 11]))
      return *expected = "a time in ns >= 0 with at most 3 decimals (\"2510.5\")", k;
  }
  if (fields > COLUMNS) return *expected = "the end of the row (15 fields)", COLUMNS;
  return check_row(r, expected);
}

static int read_rows(fs_text_input *in, fs_probe_data *d, int seen_columns, fs_error *err) {
  const char *line;
  size_t length;
  int status;
  while ((status = fs_text_input_next_line(in, &line, &length, err)) == 1) {
    if (length == 0 || line[0] == '#') continue;
    if (!seen_columns) {
      if (length != sizeof column_line - 1 || memcmp(line, column_line, length) != 0)
        return fs_text_input_error(in, 1, err, "expected the column line \"%s\"", column_line);
      seen_columns = 1;
      continue;
    }
    field f[COLUMNS + 1];
    int fields = split(line, length, f);
    fs_probe_row row = {.line = (uint32_t)fs_text_input_line_number(in)};
    const char *expected = NULL;
    int bad = parse_row(f, fields, d->ranks, &row, &expected);
    if (bad >= 0) {
      size_t column = bad < fields ? f[bad].column : f[fields - 1].column + f[fields - 1].length;
      if (bad >= fields) expected = "more fields (15)";
      return fs_text_input_error(in, (int64_t)column, err, "expected %s", expected);
    }
    if (d->count == MAX_ROWS)
      return fs_text_input_error(in, 1, err, "expected at most %lld rows", (long long)MAX_ROWS);
    if (fs_probe_data_add(d, &row))
      return fs_error_set(err, "%s: out of memory", fs_text_input_name(in));
  }
  if (status < 0) return -1;
  if (!seen_columns)
    return fs_text_error_at(err, fs_text_input_name(in), fs_text_input_line_number(in) + 1, 1,
                            "expected the column line \"%s\"", column_line);
  return 0;
}

/* The rank count from the sidecar PATH.meta of a file that starts with its
 * column line; name is the input's name in messages (data read from memory
 * or stdin has no sidecar). 0, or -1 with err set. */
static int read_sidecar(const char *csv, const char *name, int32_t *ranks, fs_error *err) {
  if (!csv || strcmp(csv, "-") == 0)
    return fs_error_set(err,
                        "%s:1:1: expected \"# fennelprobe 1 ranks=P ...\" (a file without "
                        "it has a sidecar FILE.meta, which %s has not)",
                        name, csv ? "stdin" : "data read from memory");
  char *path = malloc(strlen(csv) + 6);
  if (!path) return fs_error_set(err, "out of memory");
  sprintf(path, "%s.meta", csv);
  fs_error inner = {{0}};
  fs_text_input *in = fs_text_input_open_file(path, &inner);
  int status = -1;
  if (!in) {
    fs_error_set(err,
                 "%s:1:1: expected \"# fennelprobe 1 ranks=P ...\" or the sidecar %s "
                 "(fennelprobe and fennelsim probe -o write it): %s",
                 csv, path, inner.message);
  } else {
    const char *line;
    size_t length;
    int got = fs_text_input_next_line(in, &line, &length, err);
    if (got == 0)
      fs_error_set(err,
                   "%s:1:1: expected \"fennelprobe 1 ranks=P ...\" (the file "
                   "is empty)",
                   path);
    if (got == 1) status = read_header(in, line, length, ranks, 1, err);
    fs_text_input_close(in);
  }
  free(path);
  return status;
}

static fs_probe_data *read_input(fs_text_input *in, const char *path, fs_error *err) {
  const char *line;
  size_t length;
  int status = fs_text_input_next_line(in, &line, &length, err);
  if (status == 0)
    fs_error_set(err,
                 "%s:1:1: expected \"# fennelprobe 1 ranks=P ...\" (the file "
                 "is empty)",
                 fs_text_input_name(in));
  int32_t ranks = 0;
  /* since issue 16: the column line first, the metadata in PATH.meta */
  int columns_first = status == 1 && length == sizeof column_line - 1 &&
                      memcmp(line, column_line, length) == 0;
  if (status != 1) return NULL;
  if (columns_first ? read_sidecar(path, fs_text_input_name(in), &ranks, err)
                    : read_header(in, line, length, &ranks, 0, err))
    return NULL;
  fs_probe_data *d = fs_probe_data_new(ranks);
  if (!d || !(d->source = strdup(fs_text_input_name(in)))) {
    fs_probe_data_free(d);
    fs_error_set(err, "out of memory");
    return NULL;
  }
  if (read_rows(in, d, columns_first, err)) {
    fs_probe_data_free(d);
    return NULL;
  }
  return d;
}

fs_probe_data *fs_probe_data_read(const char *path, fs_error *err) {
  fs_text_input *in = fs_text_input_open_file(path, err);
  if (!in) return NULL;
  fs_probe_data *d = read_input(in, path, err);
  fs_text_input_close(in);
  return d;
}

fs_probe_data *fs_probe_data_read_memory(const char *data, size_t length, const char *name,
                                         fs_error *err) {
  fs_text_input *in = fs_text_input_open_memory(data, length, name);
  if (!in) return fs_error_set(err, "out of memory"), NULL;
  fs_probe_data *d = read_input(in, NULL, err);
  fs_text_input_close(in);
  return d;
}

/* ---- writing ---- */

static void write_row(fs_output *out, const fs_probe_row *r) {
  char min[32], median[32], mean[32], ci[32];
  fs_output_printf(out, "%s,%s,%lld,%lld,%lld,%lld,%d,%d,%d,%d,%lld,%s,%s,%s,%s\n",
                   fs_experiment_name(r->experiment),
                   r->placement == FS_PLACEMENT_NET ? "net" : "shm", (long long)r->bytes,
                   (long long)r->reply_bytes, (long long)r->stride, (long long)r->block,
                   (int)r->count, (int)r->rank_a, (int)r->rank_b, (int)r->rank_c,
                   (long long)r->repetitions, fs_format_ns(min, r->min),
                   fs_format_ns(median, r->median), fs_format_ns(mean, r->mean),
                   fs_format_ns(ci, r->ci95));
}

int fs_probe_data_write(const fs_probe_data *d, const char *path, fs_error *err) {
  const char *source =
      d->source && !strchr(d->source, ' ') && !strchr(d->source, '\n') ? d->source : "fennelsim";
  int to_stdout = strcmp(path, "-") == 0; /* no sidecar: the metadata as a '#' line */
  if (!to_stdout) {
    char *meta_path = malloc(strlen(path) + 6);
    if (!meta_path) return fs_error_set(err, "out of memory");
    sprintf(meta_path, "%s.meta", path);
    fs_output *meta = fs_output_open(meta_path, err);
    free(meta_path);
    if (!meta) return -1;
    fs_output_printf(meta, "fennelprobe 1 ranks=%d source=%s\n", (int)d->ranks, source);
    if (fs_output_commit(meta, err)) return -1;
  }
  fs_output *out = fs_output_open(path, err);
  if (!out) return -1;
  if (to_stdout)
    fs_output_printf(out, "# fennelprobe 1 ranks=%d source=%s\n", (int)d->ranks, source);
  fs_output_printf(out, "%s\n", column_line);
  for (int64_t i = 0; i < d->count; i++) write_row(out, &d->rows[i]);
  return fs_output_commit(out, err);
}
