/* validate.c: see validate.h. Reads the collective measurements, names
 * each row's candidate algorithms, generates and simulates them, and
 * gathers the errors per row, per algorithm and the skipped candidates. */
#include "fit/validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/engine.h"

#define HEADER "collective,algorithm,ranks,bytes,repetitions,min_ns,median_ns,mean_ns,ci95_ns"
#define MAGIC "# fennelprobe-collectives"
#define MAX_RANKS (1 << 20)
#define MAX_BYTES ((int64_t)1 << 40)

int fs_validate_collective_from_name(const char *name, size_t length) {
  for (int c = FS_COLLECTIVE_BARRIER; c <= FS_COLLECTIVE_ALLTOALL; c++) {
    const char *known = fs_collective_name((fs_collective)c);
    if (strlen(known) == length && memcmp(known, name, length) == 0) return c;
  }
  return -1;
}

/* ---- algorithms ------------------------------------------------------------ */

/* The generator of collective c called name ("rd" or "allreduce-rd"). */
static const fs_generator *generator_of(fs_collective c, const char *name) {
  const char *prefix = fs_collective_name(c);
  size_t n = strlen(prefix);
  char full[320];
  if (strlen(name) > 256) return NULL;
  snprintf(full, sizeof full, "%s-%s", prefix, name);
  const fs_generator *g = fs_generator_find(full);
  if (!g && strncmp(name, prefix, n) == 0 && name[n] == '-') g = fs_generator_find(name);
  return g && g->collective == c ? g : NULL; /* reduce-scatter-* is not a reduce */
}

/* Sets the option of a (":OPTION" of --algo); 0 or -1 with err. */
static int algorithm_option(fs_validate_algorithm *a, const char *shown, const char *option,
                            fs_error *err) {
  const fs_generator *g = a->generator;
  int64_t number;
  if (g->options & FS_GEN_SCHEDULE) {
    if (strlen(option) >= sizeof a->schedule)
      return fs_error_set(err, "%s: schedule too long (at most %d bytes)", shown,
                          (int)sizeof a->schedule - 1);
    strcpy(a->schedule, option);
  } else if (g->options & FS_GEN_WAYS) {
    if (fs_parse_count(option, strlen(option), 1, 1 << 20, &number))
      return fs_error_set(err, "%s: expected a number of ways (1 or more) after ':'", shown);
    a->ways = (int32_t)number;
  } else if (g->options & FS_GEN_SEGMENT) {
    if (fs_parse_size(option, strlen(option), &number) || number < 1)
      return fs_error_set(err, "%s: expected a segment size (8KiB) after ':'", shown);
    a->segment = number;
  } else {
    return fs_error_set(err, "%s: %s takes no option", shown, g->name);
  }
  return 0;
}

int fs_validate_algorithm_parse(fs_collective c, const char *text, size_t length,
                                fs_validate_algorithm *out, fs_error *err) {
  char item[256];
  if (length >= sizeof item) return fs_error_set(err, "algorithm '%.40s...' is too long", text);
  memcpy(item, text, length);
  item[length] = 0;
  char shown[256];
  memcpy(shown, item, length + 1);
  char *option = strchr(item, ':');
  if (option) *option++ = 0;
  *out = (fs_validate_algorithm){.generator = generator_of(c, item)};
  if (!out->generator)
    return fs_error_set(err,
                        "unknown algorithm '%s' for %s (expected one of the %s-* "
                        "generators of fennelsim gen --list, with or without '%s-')",
                        shown, fs_collective_name(c), fs_collective_name(c), fs_collective_name(c));
  if (option && !*option) return fs_error_set(err, "%s: expected an option after ':'", shown);
  if (option && algorithm_option(out, shown, option, err)) return -1;
  if (strcmp(out->generator->name, "allreduce-rm") == 0 && !out->schedule[0])
    strcpy(out->schedule, "auto"); /* Alg. 7's schedule: rm needs one (the others default) */
  if (out->schedule[0])
    snprintf(out->name, sizeof out->name, "%s:%s", out->generator->name, out->schedule);
  else if (option)
    snprintf(out->name, sizeof out->name, "%s:%s", out->generator->name, option);
  else
    snprintf(out->name, sizeof out->name, "%s", out->generator->name);
  return 0;
}

/* Whether the item continues the schedule of the collective's last
 * algorithm (rm:a4,a2: "a2" names no generator). */
static int continues_schedule(const fs_validate_algorithms *a, int c, const char *item,
                              size_t length) {
  if (c < 0 || a->count[c] == 0) return 0;
  const fs_validate_algorithm *last = &a->items[c][a->count[c] - 1];
  if (!(last->generator->options & FS_GEN_SCHEDULE)) return 0;
  char name[256];
  if (length >= sizeof name) return 0;
  memcpy(name, item, length);
  name[length] = 0;
  char *colon = strchr(name, ':');
  if (colon) *colon = 0;
  return generator_of((fs_collective)c, name) == NULL;
}

static int append_schedule(fs_validate_algorithm *last, const char *item, size_t length,
                           fs_error *err) {
  size_t have = strlen(last->schedule);
  if (have + 1 + length >= sizeof last->schedule)
    return fs_error_set(err, "--algo: %s's schedule is too long (at most %d bytes)",
                        last->generator->name, (int)sizeof last->schedule - 1);
  last->schedule[have] = ',';
  memcpy(last->schedule + have + 1, item, length);
  last->schedule[have + 1 + length] = 0;
  char name[sizeof last->name];
  snprintf(name, sizeof name, "%s:%s", last->generator->name, last->schedule);
  memcpy(last->name, name, sizeof name);
  return 0;
}

int fs_validate_algorithms_add(fs_validate_algorithms *a, const char *text, fs_error *err) {
  int c = -1;
  while (*text) {
    size_t length = strcspn(text, ",");
    const char *item = text, *equals = memchr(text, '=', length);
    int comma = text[length] == ',';
    text += length + comma;
    if (length == 0 || (comma && !*text))
      return fs_error_set(err, "--algo: empty item (two commas, or one at an end)");
    if (equals) {
      c = fs_validate_collective_from_name(item, (size_t)(equals - item));
      if (c < 0)
        return fs_error_set(err,
                            "--algo: unknown collective '%.*s' (expected one of barrier, "
                            "bcast, reduce, allreduce, gather, scatter, allgather, alltoall)",
                            (int)(equals - item), item);
      length -= (size_t)(equals + 1 - item);
      item = equals + 1;
    } else if (c < 0) {
      return fs_error_set(err, "--algo %.*s: expected COLLECTIVE=ALGORITHM[,ALGORITHM...]",
                          (int)length, item);
    } else if (continues_schedule(a, c, item, length)) {
      if (append_schedule(&a->items[c][a->count[c] - 1], item, length, err)) return -1;
      continue;
    }
    if (a->count[c] == FS_VALIDATE_MAX_CHOICES)
      return fs_error_set(err, "--algo: at most %d algorithms per collective",
                          FS_VALIDATE_MAX_CHOICES);
    fs_validate_algorithm *slot = &a->items[c][a->count[c]];
    if (fs_validate_algorithm_parse((fs_collective)c, item, length, slot, err)) {
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s", err->message);
      return fs_error_set(err, "--algo: %s", why);
    }
    a->count[c]++;
  }
  return 0;
}

/* ---- reading --------------------------------------------------------------- */

typedef struct reader {
  fs_collective_data *d;
  fs_text_input *in;
  const char *line;
  size_t length;
  fs_error *err;
} reader;

/* "FILE:LINE:COLUMN: message", the column being that of `where`. */
#define fail(r, where, ...) \
  fs_text_input_error((r)->in, (where) - (r)->line + 1, (r)->err, __VA_ARGS__)

/* A field quoted for a message; "nothing" when empty, also at the end. */
static const char *show(const char *text, size_t length, char buffer[FS_TEXT_QUOTED_SIZE]) {
  return fs_text_quoted(text, length, NULL, buffer);
}

static size_t field_length(const reader *r, const char *text) {
  const char *end = r->line + r->length, *p = text;
  while (p < end && *p != ',') p++;
  return (size_t)(p - text);
}

/* "# fennelprobe-collectives 1 ranks=4 nodes=1 cores=4 host=NAME ...":
 * version 1; ranks, nodes and cores kept, other keys ignored. */
static int read_magic(reader *r) {
  const char *p = r->line + strlen(MAGIC), *end = r->line + r->length;
  char buffer[64];
  int version_seen = 0;
  while (p < end) {
    while (p < end && *p == ' ') p++;
    const char *word = p;
    while (p < end && *p != ' ') p++;
    size_t n = (size_t)(p - word);
    if (n == 0) break;
    if (!version_seen) {
      if (n != 1 || *word != '1')
        return fail(r, word, "expected version 1 of the collectives CSV, got %s",
                    show(word, n, buffer));
      version_seen = 1;
      continue;
    }
    const char *equals = memchr(word, '=', n);
    int32_t *slot = NULL;
    if (equals && equals - word == 5 && memcmp(word, "ranks", 5) == 0) slot = &r->d->ranks;
    if (equals && equals - word == 5 && memcmp(word, "nodes", 5) == 0) slot = &r->d->nodes;
    if (equals && equals - word == 5 && memcmp(word, "cores", 5) == 0) slot = &r->d->cores;
    int64_t count;
    if (!slot) continue;
    if (fs_parse_count(equals + 1, (size_t)(p - equals - 1), 1, MAX_RANKS, &count))
      return fail(r, equals + 1, "expected %.5s= a whole number from 1 to %d, got %s", word,
                  MAX_RANKS, show(equals + 1, (size_t)(p - equals - 1), buffer));
    *slot = (int32_t)count;
  }
  if (!version_seen)
    return fail(r, end, "expected version 1 of the collectives CSV, got end of line");
  return 0;
}

static int read_header(reader *r) {
  char buffer[64];
  if (r->length == strlen(HEADER) && memcmp(r->line, HEADER, r->length) == 0) return 0;
  size_t same = 0;
  while (same < r->length && same < strlen(HEADER) && r->line[same] == HEADER[same]) same++;
  const char *hint = r->length >= 11 && memcmp(r->line, "experiment,", 11) == 0
                         ? " (this is point-to-point data, for fennelsim fit)"
                         : "";
  return fail(r, r->line + same, "expected the header '" HEADER "', got %s%s",
              show(r->line + same, r->length - same, buffer), hint);
}

static const char *const column_names[] = {"collective", "algorithm",   "ranks",
                                           "bytes",      "repetitions", "min_ns",
                                           "median_ns",  "mean_ns",     "ci95_ns"};
#define COLUMNS ((int)(sizeof column_names / sizeof column_names[0]))

/* One field of a row into row; 0 or -1 with the error at p. */
static int read_field(reader *r, int column, const char *p, size_t length, fs_collective_row *row) {
  char buffer[64];
  int64_t number;
  switch (column) {
    case 0: {
      int c = fs_validate_collective_from_name(p, length);
      if (c < 0)
        return fail(r, p,
                    "expected a collective (barrier, bcast, reduce, allreduce, gather, "
                    "scatter, allgather, alltoall), got %s",
                    show(p, length, buffer));
      row->collective = (fs_collective)c;
      return 0;
    }
    case 1:
      if (length == 0) return 0;
      if (fs_validate_algorithm_parse(row->collective, p, length, &row->algorithm, r->err)) {
        char why[sizeof r->err->message];
        snprintf(why, sizeof why, "%s", r->err->message);
        return fail(r, p, "%s", why);
      }
      return 0;
    case 2:
      if (fs_parse_count(p, length, 1, MAX_RANKS, &number))
        return fail(r, p, "expected ranks: a whole number from 1 to %d, got %s", MAX_RANKS,
                    show(p, length, buffer));
      row->ranks = (int32_t)number;
      return 0;
    case 3:
      if (fs_parse_count(p, length, 0, MAX_BYTES, &row->bytes))
        return fail(r, p, "expected bytes: a whole number from 0 to %lld, got %s",
                    (long long)MAX_BYTES, show(p, length, buffer));
      return 0;
    case 4:
      if (fs_parse_count(p, length, 1, INT64_MAX, &row->repetitions))
        return fail(r, p, "expected repetitions: a whole number from 1, got %s",
                    show(p, length, buffer));
      return 0;
    default: {
      fs_time *t = column == 5   ? &row->min
                   : column == 6 ? &row->median
                   : column == 7 ? &row->mean
                                 : &row->ci95;
      if (fs_parse_ns(p, length, t))
        return fail(r, p,
                    "expected %s: nanoseconds with at most 3 decimals (e.g. 1234.567), "
                    "got %s",
                    column_names[column], show(p, length, buffer));
      if (column == 5 && row->min == 0)
        return fail(r, p, "expected min_ns above 0 (errors are relative to it), got %s",
                    show(p, length, buffer));
      if ((column == 6 || column == 7) && *t < row->min)
        return fail(r, p, "expected %s >= min_ns, got %s", column_names[column],
                    show(p, length, buffer));
      return 0;
    }
  }
}

static int read_row(reader *r) {
  fs_collective_data *d = r->d;
  if (d->count == d->capacity) {
    int64_t capacity = d->capacity ? d->capacity * 2 : 64;
    fs_collective_row *rows = realloc(d->rows, (size_t)capacity * sizeof *rows);
    if (!rows) return fail(r, r->line, "out of memory for %lld rows", (long long)capacity);
    d->rows = rows, d->capacity = capacity;
  }
  fs_collective_row *row = &d->rows[d->count];
  *row = (fs_collective_row){.line = fs_text_input_line_number(r->in)};
  const char *p = r->line, *end = r->line + r->length;
  char buffer[64];
  for (int column = 0; column < COLUMNS; column++) {
    if (column > 0) {
      if (p == end)
        return fail(r, p, "expected ',' and %s (the header has %d columns), got end of line",
                    column_names[column], COLUMNS);
      p++;
    }
    size_t length = field_length(r, p);
    if (read_field(r, column, p, length, row)) return -1;
    p += length;
  }
  if (p != end)
    return fail(r, p, "expected end of line (the header has %d columns), got %s", COLUMNS,
                show(p, (size_t)(end - p), buffer));
  d->count++;
  return 0;
}

fs_collective_data *fs_collective_data_read_input(fs_text_input *in, fs_error *err) {
  fs_collective_data *d = calloc(1, sizeof *d);
  if (!d || !(d->source = strdup(fs_text_input_name(in)))) {
    free(d);
    fs_error_set(err, "out of memory");
    return NULL;
  }
  reader r = {.d = d, .in = in, .err = err};
  int header_seen = 0, status;
  while ((status = fs_text_input_next_line(in, &r.line, &r.length, err)) == 1) {
    int first = fs_text_input_line_number(in) == 1;
    if (first && r.length >= strlen(MAGIC) && memcmp(r.line, MAGIC, strlen(MAGIC)) == 0 &&
        (r.length == strlen(MAGIC) || r.line[strlen(MAGIC)] == ' ')) {
      if (read_magic(&r)) break;
    } else if (r.length == 0 || r.line[0] == '#') {
      continue;
    } else if (!header_seen) {
      if (read_header(&r)) break;
      header_seen = 1;
    } else if (read_row(&r)) {
      break;
    }
  }
  if (status == 0 && !header_seen)
    status = fs_error_set(err, "%s: expected the header '" HEADER "', got end of file", d->source);
  else if (status == 0 && d->count == 0)
    status = fs_error_set(err, "%s: no measurements (expected rows after the header)", d->source);
  if (status != 0) {
    fs_collective_data_free(d);
    return NULL;
  }
  return d;
}

/* Since issue 16 fennelprobe writes the first line into the sidecar
 * PATH.meta (without "# ") and starts the CSV with its header, for pandas:
 * ranks, nodes and cores from there when the CSV has no such line. */
static int read_sidecar(fs_collective_data *d, const char *path, fs_error *err) {
  char *meta = malloc(strlen(path) + 6);
  if (!meta) return fs_error_set(err, "out of memory");
  sprintf(meta, "%s.meta", path);
  fs_error ignored;
  fs_text_input *in = access(meta, F_OK) == 0 ? fs_text_input_open_file(meta, &ignored) : NULL;
  free(meta);
  if (!in) return 0; /* no sidecar: ranks, nodes and cores stay absent */
  reader r = {.d = d, .in = in, .err = err};
  const char *line;
  size_t length;
  char copy[4096 + sizeof MAGIC];
  int status = fs_text_input_next_line(in, &line, &length, err) < 0 ? -1 : 0;
  size_t n = strlen(MAGIC) - 2; /* the magic without "# " */
  if (status == 0 && length >= n && length < sizeof copy - 2 && memcmp(line, &MAGIC[2], n) == 0 &&
      (length == n || line[n] == ' ')) {
    memcpy(copy, "# ", 2);
    memcpy(copy + 2, line, length);
    r.line = copy, r.length = length + 2;
    status = read_magic(&r);
  }
  fs_text_input_close(in);
  return status;
}

fs_collective_data *fs_collective_data_read(const char *path, fs_error *err) {
  fs_text_input *in = fs_text_input_open_file(path, err);
  if (!in) return NULL;
  fs_collective_data *d = fs_collective_data_read_input(in, err);
  fs_text_input_close(in);
  if (d && d->ranks == 0 && strcmp(path, "-") != 0 && read_sidecar(d, path, err)) {
    fs_collective_data_free(d);
    return NULL;
  }
  return d;
}

void fs_collective_data_free(fs_collective_data *d) {
  if (!d) return;
  free(d->rows);
  free(d->source);
  free(d);
}

/* ---- predicting ------------------------------------------------------------ */

double fs_validate_error(fs_time measured, fs_time predicted) {
  return ((double)predicted - (double)measured) / (double)measured;
}

double fs_validate_mu(fs_time measured, fs_time predicted) {
  fs_time high = measured > predicted ? measured : predicted;
  fs_time low = measured > predicted ? predicted : measured;
  if (high == low) return 1;
  return low <= 0 ? INFINITY : (double)high / (double)low;
}

/* Room for one more item of size bytes in *items; 0 or -1. */
static int reserve(void **items, int64_t *capacity, int64_t count, size_t size) {
  if (count < *capacity) return 0;
  int64_t grown = *capacity ? *capacity * 2 : 32;
  void *more = realloc(*items, (size_t)grown * size);
  if (!more) return -1;
  *items = more, *capacity = grown;
  return 0;
}

typedef struct predictor {
  const fs_collective_data *data;
  const fs_validate_setup *setup;
  fs_validation *out;
  fs_error *err;
} predictor;

static int row_error(const predictor *p, const fs_collective_row *row, int status,
                     const char *format, ...) FS_PRINTF(4, 5);
static int row_error(const predictor *p, const fs_collective_row *row, int status,
                     const char *format, ...) {
  va_list args;
  va_start(args, format);
  fs_text_verror_at(p->err, p->data->source, (int64_t)row->line, -1, format,
                    args); /* a whole row */
  va_end(args);
  return status;
}

/* The generated schedule of the row under a, or NULL with why set (the
 * generator or the platform rejected it); *platform_failed tells which. */
static fs_program *generate(const predictor *p, const fs_collective_row *row,
                            const fs_validate_algorithm *a, int *platform_failed, fs_error *why) {
  fs_generator_options o = {.ranks = row->ranks,
                            .size = row->bytes,
                            .rounds = 1,
                            .schedule = a->schedule[0] ? a->schedule : NULL,
                            .ways = a->ways,
                            .segment = a->segment};
  fs_platform *platform = NULL;
  *platform_failed = 0;
  if (p->setup->platform && (a->generator->options & FS_GEN_PLATFORM)) {
    platform = fs_platform_parameters_build(p->setup->platform, row->ranks, why);
    if (!platform) return *platform_failed = 1, NULL;
    o.platform = platform;
  }
  fs_program *program = a->generator->generate(&o, why);
  fs_platform_free(platform);
  return program;
}

/* Simulates program into *makespan; FS_VALIDATE_* with err set. */
static int simulate(const predictor *p, const fs_collective_row *row, const char *name,
                    const fs_program *program, fs_time *makespan) {
  fs_error why = {{0}};
  fs_engine *engine = fs_engine_new(program, p->setup->network, p->setup->compute, &why);
  if (!engine) return row_error(p, row, FS_VALIDATE_FAILED, "%s: %s", name, why.message);
  int run = fs_engine_run(engine, &why), status;
  if (run == FS_RUN_OK)
    *makespan = fs_engine_makespan(engine), status = FS_VALIDATE_OK;
  else if (run == FS_RUN_REJECTED)
    status = row_error(p, row, FS_VALIDATE_BAD_INPUT, "%s: %s", name, why.message);
  else if (run == FS_RUN_DEADLOCK)
    status = row_error(p, row, FS_VALIDATE_FAILED, "%s deadlocked on %d ranks (a generator bug)",
                       name, (int)row->ranks);
  else
    status = row_error(p, row, FS_VALIDATE_FAILED, "%s: %s", name, why.message);
  fs_engine_free(engine);
  return status;
}

/* Notes that a rejected the row (once per collective and algorithm). */
static int add_skip(const predictor *p, const fs_collective_row *row, const char *name,
                    const char *reason) {
  fs_validation *v = p->out;
  for (int64_t i = 0; i < v->skip_count; i++)
    if (v->skips[i].collective == row->collective && strcmp(v->skips[i].algorithm, name) == 0)
      return v->skips[i].rows++, 0;
  if (reserve((void **)&v->skips, &v->skip_capacity, v->skip_count, sizeof *v->skips))
    return fs_error_set(p->err, "out of memory");
  fs_validate_skip *s = &v->skips[v->skip_count++];
  *s = (fs_validate_skip){.collective = row->collective, .rows = 1, .first_line = row->line};
  snprintf(s->algorithm, sizeof s->algorithm, "%s", name);
  snprintf(s->reason, sizeof s->reason, "%.500s", reason);
  return 0;
}

static int add_entry(const predictor *p, int64_t index, const fs_validate_algorithm *a,
                     fs_time predicted) {
  fs_validation *v = p->out;
  const fs_collective_row *row = &p->data->rows[index];
  if (reserve((void **)&v->entries, &v->entry_capacity, v->entry_count, sizeof *v->entries))
    return fs_error_set(p->err, "out of memory");
  fs_time measured = p->setup->use_median ? row->median : row->min;
  fs_validate_entry *e = &v->entries[v->entry_count++];
  *e = (fs_validate_entry){.row = index,
                           .measured = measured,
                           .predicted = predicted,
                           .error = fs_validate_error(measured, predicted),
                           .mu = fs_validate_mu(measured, predicted),
                           .named = row->algorithm.generator != NULL};
  snprintf(e->algorithm, sizeof e->algorithm, "%s", a->name);
  return 0;
}

/* Predicts the row under a: 0 (an entry or a skip), or FS_VALIDATE_*. */
static int predict(const predictor *p, int64_t index, const fs_validate_algorithm *a) {
  const fs_collective_row *row = &p->data->rows[index];
  int named = row->algorithm.generator != NULL, platform_failed;
  fs_error why = {{0}};
  fs_program *program = generate(p, row, a, &platform_failed, &why);
  if (!program && (named || platform_failed))
    return row_error(p, row, FS_VALIDATE_BAD_INPUT, "%s on %d ranks, %lld B: %s", a->name,
                     (int)row->ranks, (long long)row->bytes, why.message);
  if (!program) return add_skip(p, row, a->name, why.message) ? FS_VALIDATE_FAILED : 0;
  fs_time makespan = 0;
  int status = simulate(p, row, a->name, program, &makespan);
  int extra = program->ranks > row->ranks; /* a switch's or reducers' ranks */
  fs_program_free(program);
  if (status == FS_VALIDATE_BAD_INPUT && extra) /* the platform has no place for them */
    return add_skip(p, row, a->name, p->err->message) ? FS_VALIDATE_FAILED : 0;
  if (status != FS_VALIDATE_OK) return status;
  return add_entry(p, index, a, makespan) ? FS_VALIDATE_FAILED : 0;
}

/* Every generator of collective c in family but the reference patterns
 * that do not compute it (FS_GEN_NOT_CORRECT: schedgen's allreduce_recdoub
 * and dissemination barrier; --algo names them) and the libraries'
 * selectors (FS_GEN_SELECTOR: they run one of the others), as candidates. */
static int every_generator(fs_collective c, fs_family family, fs_validate_algorithm *list,
                           int *count) {
  int n;
  const fs_generator *all = fs_generator_list(&n);
  size_t k = strlen(fs_collective_name(c));
  *count = 0;
  for (int i = 0; i < n && *count < FS_VALIDATE_MAX_CHOICES; i++) {
    if (strncmp(all[i].name, fs_collective_name(c), k) != 0 || all[i].name[k] != '-' ||
        all[i].collective != c)
      continue;
    if ((all[i].traits & (FS_GEN_NOT_CORRECT | FS_GEN_SELECTOR)) ||
        !fs_family_holds(family, &all[i]))
      continue;
    fs_error unused;
    if (fs_validate_algorithm_parse(c, all[i].name, strlen(all[i].name), &list[*count], &unused))
      return -1;
    (*count)++;
  }
  return 0;
}

/* Marks the closest of the row's entries [first, end) as its best match. */
static void mark_best(fs_validation *v, int64_t first, int64_t end) {
  int64_t best = -1;
  for (int64_t i = first; i < end; i++)
    if (best < 0 || fabs(v->entries[i].error) < fabs(v->entries[best].error)) best = i;
  if (best >= 0) v->entries[best].best = 1;
}

static int summarize(const fs_collective_data *data, fs_validation *v, fs_error *err) {
  for (int64_t i = 0; i < v->entry_count; i++) {
    const fs_validate_entry *e = &v->entries[i];
    fs_collective c = data->rows[e->row].collective;
    int64_t s = 0;
    while (s < v->summary_count && (v->summaries[s].collective != c ||
                                    strcmp(v->summaries[s].algorithm, e->algorithm) != 0))
      s++;
    if (s == v->summary_count) {
      if (reserve((void **)&v->summaries, &v->summary_capacity, v->summary_count,
                  sizeof *v->summaries))
        return fs_error_set(err, "out of memory");
      v->summaries[s] = (fs_validate_summary){.collective = c};
      snprintf(v->summaries[s].algorithm, sizeof v->summaries[s].algorithm, "%s", e->algorithm);
      v->summary_count++;
    }
    fs_validate_summary *sum = &v->summaries[s];
    double magnitude = fabs(e->error);
    sum->mean_abs_error += magnitude; /* a sum until the end */
    if (magnitude > sum->max_abs_error) sum->max_abs_error = magnitude;
    if (e->mu > sum->max_mu) sum->max_mu = e->mu;
    sum->rows++;
    sum->best += e->best;
  }
  for (int64_t s = 0; s < v->summary_count; s++)
    v->summaries[s].mean_abs_error /= (double)v->summaries[s].rows;
  return 0;
}

/* The candidates of row: its own algorithm, else --algo's list for its
 * collective, else every generator of the collective. */
static const fs_validate_algorithm *candidates_of(const fs_collective_row *row,
                                                  const fs_validate_setup *setup,
                                                  const fs_validate_algorithm *every,
                                                  const int *every_count, int *count) {
  const fs_validate_algorithms *listed = setup->algorithms;
  if (row->algorithm.generator) return *count = 1, &row->algorithm;
  if (listed && listed->count[row->collective])
    return *count = listed->count[row->collective], listed->items[row->collective];
  *count = every_count[row->collective];
  return every + row->collective * FS_VALIDATE_MAX_CHOICES;
}

int fs_validate(const fs_collective_data *data, const fs_validate_setup *setup, fs_validation *out,
                fs_error *err) {
  *out = (fs_validation){0};
  err->message[0] = 0;
  predictor p = {.data = data, .setup = setup, .out = out, .err = err};
  fs_validate_algorithm *every =
      malloc(FS_VALIDATE_COLLECTIVES * FS_VALIDATE_MAX_CHOICES * sizeof *every);
  int every_count[FS_VALIDATE_COLLECTIVES] = {0};
  if (!every) return fs_error_set(err, "out of memory"), FS_VALIDATE_FAILED;
  int status = FS_VALIDATE_OK;
  for (int c = FS_COLLECTIVE_BARRIER; c < FS_VALIDATE_COLLECTIVES && status == FS_VALIDATE_OK; c++)
    if (every_generator((fs_collective)c, setup->family ? setup->family : FS_FAMILY_MPI,
                        every + c * FS_VALIDATE_MAX_CHOICES, &every_count[c]))
      status = FS_VALIDATE_FAILED, fs_error_set(err, "a generator name is too long");
  for (int64_t i = 0; i < data->count && status == FS_VALIDATE_OK; i++) {
    const fs_collective_row *row = &data->rows[i];
    int count;
    const fs_validate_algorithm *list = candidates_of(row, setup, every, every_count, &count);
    int64_t first = out->entry_count;
    for (int k = 0; k < count && status == FS_VALIDATE_OK; k++) status = predict(&p, i, &list[k]);
    if (out->entry_count == first) out->unpredicted++;
    if (!row->algorithm.generator) mark_best(out, first, out->entry_count);
  }
  free(every);
  if (status == FS_VALIDATE_OK && summarize(data, out, err)) status = FS_VALIDATE_FAILED;
  return status;
}

void fs_validation_free(fs_validation *v) {
  free(v->entries);
  free(v->summaries);
  free(v->skips);
  *v = (fs_validation){0};
}
