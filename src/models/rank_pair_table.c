/* rank_pair_table.c: reading, resolving and averaging rank-pair parameter
 * files (format in rank_pair_table.h). Link lines are collected as raw
 * entries, then sorted by (pair, line order) and folded value by value, so
 * the last line that sets a value wins and `default` may come anywhere. */
#include "rank_pair_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LINK_TIME, LINK_PER_BYTE, RANK_TIME, RANK_PER_BYTE, SLOTS };
#define LINK_SLOTS (1u << LINK_TIME | 1u << LINK_PER_BYTE)
#define RANK_SLOTS (1u << RANK_TIME | 1u << RANK_PER_BYTE)

typedef struct values {
  unsigned set; /* bit per slot */
  int64_t v[SLOTS];
} values;

typedef struct raw_link {
  int64_t pair, order;
  values values;
} raw_link;

typedef struct reader {
  fs_text_input *in;
  const fs_rank_pair_keys *keys;
  int32_t ranks; /* 0 until the `ranks` line */
  values defaults;
  values *rank; /* [ranks] */
  raw_link *raw;
  int64_t raw_count, raw_capacity;
  char expected[200];
} reader;

static const char *slot_name(const fs_rank_pair_keys *k, int slot) {
  const char *names[SLOTS] = {k->link_time, k->link_per_byte, k->rank_time, k->rank_per_byte};
  return names[slot];
}

/* Skips blanks; returns the length of the next token (stops at '#'). */
static size_t next_token(const char *line, size_t length, size_t *at) {
  while (*at < length && (line[*at] == ' ' || line[*at] == '\t')) (*at)++;
  size_t start = *at;
  while (*at < length && line[*at] != ' ' && line[*at] != '\t' && line[*at] != '#') (*at)++;
  return *at - start;
}

static int token_is(const char *token, size_t n, const char *word) {
  return strlen(word) == n && memcmp(token, word, n) == 0;
}

/* Sets r->expected; returns the 0-based column, for `return fail(...)`. */
static long fail(reader *r, size_t column, const char *format, const char *a, const char *b) {
  snprintf(r->expected, sizeof r->expected, format, a, b);
  return (long)column;
}

static long fail_keys(reader *r, size_t column, unsigned allowed) {
  char list[120] = "";
  for (int s = 0; s < SLOTS; s++)
    if (allowed & 1u << s) {
      if (list[0]) strcat(list, ", ");
      strncat(list, slot_name(r->keys, s), 40);
    }
  return fail(r, column, "KEY=VALUE with KEY one of %s%s", list, "");
}

/* Reads one KEY=VALUE token into v. Returns -1 when fine, else a column. */
static long read_value(reader *r, const char *token, size_t n, size_t start, unsigned allowed,
                       values *v) {
  const char *equals = memchr(token, '=', n);
  if (!equals) return fail_keys(r, start, allowed);
  size_t key_length = (size_t)(equals - token), value_start = key_length + 1;
  for (int s = 0; s < SLOTS; s++) {
    if (!(allowed & 1u << s) || !token_is(token, key_length, slot_name(r->keys, s))) continue;
    if (v->set & 1u << s) return fail(r, start, "%s once per line%s", slot_name(r->keys, s), "");
    int bad = s == LINK_TIME || s == RANK_TIME
                  ? fs_parse_time(token + value_start, n - value_start, 0, &v->v[s])
                  : fs_parse_per_byte(token + value_start, n - value_start, &v->v[s]);
    if (bad && (s == LINK_TIME || s == RANK_TIME))
      return fail(r, start + value_start, "a non-negative time with a unit (ps, ns, us, ms, s) for %s%s",
                  slot_name(r->keys, s), "");
    if (bad)
      return fail(r, start + value_start, "a time per byte (\"0.4ns\") or a bandwidth (\"10GB/s\") for %s%s",
                  slot_name(r->keys, s), "");
    v->set |= 1u << s;
    return -1;
  }
  return fail_keys(r, start, allowed);
}

/* Reads the KEY=VALUE tokens (and `directed` when directed != NULL) to the
 * end of the line; at least one value. */
static long read_values(reader *r, const char *line, size_t length, size_t *at, unsigned allowed,
                        values *v, int *directed) {
  size_t n;
  *v = (values){0};
  while ((n = next_token(line, length, at)) != 0) {
    size_t start = *at - n;
    if (directed && token_is(line + start, n, "directed")) {
      *directed = 1;
      continue;
    }
    long column = read_value(r, line + start, n, start, allowed, v);
    if (column >= 0) return column;
  }
  if (!v->set) return fail_keys(r, *at, allowed);
  return -1;
}

static long read_rank_index(reader *r, const char *line, size_t length, size_t *at, int64_t *out) {
  size_t n = next_token(line, length, at), start = *at - n;
  if (fs_parse_count(line + start, n, 0, r->ranks - 1, out) == 0) return -1;
  char top[24];
  snprintf(top, sizeof top, "%d", (int)r->ranks - 1);
  return fail(r, start, "a rank from 0 to %s%s", top, "");
}

static void merge(values *into, const values *from) {
  for (int s = 0; s < SLOTS; s++)
    if (from->set & 1u << s) into->v[s] = from->v[s];
  into->set |= from->set;
}

static int add_raw(reader *r, int64_t i, int64_t j, const values *v) {
  if (r->raw_count == r->raw_capacity) {
    int64_t want = r->raw_capacity ? r->raw_capacity * 2 : 64;
    raw_link *bigger = realloc(r->raw, (size_t)want * sizeof *bigger);
    if (!bigger) return -1;
    r->raw = bigger, r->raw_capacity = want;
  }
  r->raw[r->raw_count] = (raw_link){.pair = i * r->ranks + j, .order = r->raw_count, .values = *v};
  r->raw_count++;
  return 0;
}

static long read_ranks_line(reader *r, const char *line, size_t length, size_t *at) {
  size_t n = next_token(line, length, at), start = *at - n;
  int64_t ranks;
  if (fs_parse_count(line + start, n, 1, FS_RANK_PAIR_MAX_RANKS, &ranks))
    return fail(r, start, "a rank count from 1 to 16777216%s%s", "", "");
  n = next_token(line, length, at);
  if (n) return fail(r, *at - n, "the end of the line%s%s", "", "");
  r->ranks = (int32_t)ranks;
  r->rank = calloc((size_t)ranks, sizeof *r->rank);
  return r->rank ? -1 : -2;
}

static long read_link_line(reader *r, const char *line, size_t length, size_t *at) {
  int64_t i, j;
  long column = read_rank_index(r, line, length, at, &i);
  size_t second = *at;
  while (second < length && (line[second] == ' ' || line[second] == '\t')) second++;
  if (column < 0) column = read_rank_index(r, line, length, at, &j);
  if (column >= 0) return column;
  if (i == j) return fail(r, second, "a second rank other than the first%s%s", "", "");
  values v;
  int directed = 0;
  column = read_values(r, line, length, at, LINK_SLOTS, &v, &directed);
  if (column >= 0) return column;
  if (add_raw(r, i, j, &v) || (!directed && add_raw(r, j, i, &v))) return -2;
  return -1;
}

/* Returns -1 when fine, -2 when out of memory, else the error column. */
static long read_line(reader *r, const char *line, size_t length) {
  size_t at = 0, n = next_token(line, length, &at), start = at - n;
  const char *word = line + start;
  if (n == 0) return -1; /* blank or comment */
  int is_ranks = token_is(word, n, "ranks");
  if (!r->ranks && !is_ranks) return fail(r, start, "`ranks N` before anything else%s%s", "", "");
  if (is_ranks && r->ranks) return fail(r, start, "a single `ranks` line%s%s", "", "");
  if (is_ranks) return read_ranks_line(r, line, length, &at);
  unsigned rank_slots = r->keys->rank_time ? RANK_SLOTS : 0;
  values v;
  if (token_is(word, n, "default")) {
    long column = read_values(r, line, length, &at, LINK_SLOTS | rank_slots, &v, NULL);
    if (column < 0) merge(&r->defaults, &v);
    return column;
  }
  if (rank_slots && token_is(word, n, "rank")) {
    int64_t i;
    long column = read_rank_index(r, line, length, &at, &i);
    if (column < 0) column = read_values(r, line, length, &at, rank_slots, &v, NULL);
    if (column < 0) merge(&r->rank[i], &v);
    return column;
  }
  if (token_is(word, n, "link")) return read_link_line(r, line, length, &at);
  return fail(r, start, rank_slots ? "`default`, `rank` or `link`%s%s" : "`default` or `link`%s%s", "", "");
}

static int by_pair_then_order(const void *a, const void *b) {
  const raw_link *x = a, *y = b;
  if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static int missing_default(reader *r, fs_error *err, int slot, const char *what) {
  return fs_error_set(err, "%s: expected `default %s=...`: not every %s sets %s",
                      fs_text_input_name(r->in), slot_name(r->keys, slot), what,
                      slot_name(r->keys, slot));
}

/* Folds the raw entries into resolved links (in place) and fills the
 * per-rank arrays; fails when a value is unset and has no default. */
static int resolve(reader *r, fs_rank_pair_table *t, fs_error *err) {
  if (r->keys->link_time_defaults_to_zero && !(r->defaults.set & 1u << LINK_TIME))
    r->defaults.v[LINK_TIME] = 0, r->defaults.set |= 1u << LINK_TIME;
  if (r->raw_count > 0) qsort(r->raw, (size_t)r->raw_count, sizeof *r->raw, by_pair_then_order);
  int64_t links = 0, complete[2] = {0, 0};
  for (int64_t k = 0; k < r->raw_count; k++) {
    if (k > 0 && r->raw[k].pair == r->raw[k - 1].pair) {
      merge(&r->raw[links - 1].values, &r->raw[k].values);
      continue;
    }
    r->raw[links++] = r->raw[k];
  }
  int64_t pairs = (int64_t)r->ranks * (r->ranks - 1);
  t->link = malloc((size_t)(links ? links : 1) * sizeof *t->link);
  if (!t->link) return fs_error_set(err, "%s: out of memory", fs_text_input_name(r->in));
  for (int64_t k = 0; k < links; k++) {
    values v = r->defaults;
    merge(&v, &r->raw[k].values);
    for (int s = LINK_TIME; s <= LINK_PER_BYTE; s++) complete[s] += (r->raw[k].values.set >> s) & 1;
    t->link[k] = (fs_rank_pair_link){r->raw[k].pair, v.v[LINK_TIME], v.v[LINK_PER_BYTE]};
  }
  t->links = links;
  for (int s = LINK_TIME; s <= LINK_PER_BYTE; s++)
    if (complete[s] < pairs && !(r->defaults.set & 1u << s)) return missing_default(r, err, s, "link");
  t->link_time = r->defaults.v[LINK_TIME];
  t->link_per_byte = r->defaults.v[LINK_PER_BYTE];
  if (!r->keys->rank_time) return 0;
  t->rank_time = malloc((size_t)r->ranks * sizeof *t->rank_time);
  t->rank_per_byte = malloc((size_t)r->ranks * sizeof *t->rank_per_byte);
  if (!t->rank_time || !t->rank_per_byte) return fs_error_set(err, "%s: out of memory", fs_text_input_name(r->in));
  for (int32_t i = 0; i < r->ranks; i++) {
    for (int s = RANK_TIME; s <= RANK_PER_BYTE; s++)
      if (!(r->rank[i].set & 1u << s) && !(r->defaults.set & 1u << s)) return missing_default(r, err, s, "rank");
    values v = r->defaults;
    merge(&v, &r->rank[i]);
    t->rank_time[i] = v.v[RANK_TIME];
    t->rank_per_byte[i] = v.v[RANK_PER_BYTE];
  }
  return 0;
}

static int read_lines(reader *r, fs_error *err) {
  const char *line;
  size_t length;
  int status;
  while ((status = fs_text_input_next_line(r->in, &line, &length, err)) == 1) {
    long column = read_line(r, line, length);
    if (column == -2) return fs_error_set(err, "%s: out of memory", fs_text_input_name(r->in));
    if (column >= 0)
      return fs_error_set(err, "%s:%lld:%ld: expected %s", fs_text_input_name(r->in),
                          (long long)fs_text_input_line_number(r->in), column + 1, r->expected);
  }
  if (status == 0 && !r->ranks)
    return fs_error_set(err, "%s: expected a `ranks N` line (the file has none)", fs_text_input_name(r->in));
  return status;
}

int fs_rank_pair_table_read(fs_text_input *in, const fs_rank_pair_keys *keys,
                            fs_rank_pair_table *out, fs_error *err) {
  reader r = {.in = in, .keys = keys};
  *out = (fs_rank_pair_table){0};
  int status = read_lines(&r, err);
  if (status == 0) {
    out->ranks = r.ranks;
    status = resolve(&r, out, err);
  }
  free(r.raw);
  free(r.rank);
  if (status < 0) fs_rank_pair_table_free(out);
  return status < 0 ? -1 : 0;
}

void fs_rank_pair_table_free(fs_rank_pair_table *t) {
  free(t->link);
  free(t->rank_time);
  free(t->rank_per_byte);
  *t = (fs_rank_pair_table){0};
}

void fs_rank_pair_table_link(const fs_rank_pair_table *t, int32_t i, int32_t j, fs_time *time,
                             fs_per_byte *per_byte) {
  int64_t pair = (int64_t)i * t->ranks + j, low = 0, high = t->links;
  while (low < high) {
    int64_t middle = low + (high - low) / 2;
    if (t->link[middle].pair < pair) low = middle + 1;
    else high = middle;
  }
  int found = low < t->links && t->link[low].pair == pair;
  *time = found ? t->link[low].time : t->link_time;
  *per_byte = found ? t->link[low].per_byte : t->link_per_byte;
}

/* sum / count, rounded to nearest (values are non-negative) */
static int64_t mean(__int128 sum, int64_t count) { return (int64_t)((sum + count / 2) / count); }

void fs_rank_pair_table_average(fs_rank_pair_table *t) {
  int64_t pairs = (int64_t)t->ranks * (t->ranks - 1);
  if (pairs > 0) {
    __int128 time = (__int128)t->link_time * (pairs - t->links);
    __int128 per_byte = (__int128)t->link_per_byte * (pairs - t->links);
    for (int64_t k = 0; k < t->links; k++) time += t->link[k].time, per_byte += t->link[k].per_byte;
    t->link_time = mean(time, pairs);
    t->link_per_byte = mean(per_byte, pairs);
    t->links = 0;
  }
  if (!t->rank_time) return;
  __int128 time = 0, per_byte = 0;
  for (int32_t i = 0; i < t->ranks; i++) time += t->rank_time[i], per_byte += t->rank_per_byte[i];
  for (int32_t i = 0; i < t->ranks; i++) {
    t->rank_time[i] = mean(time, t->ranks);
    t->rank_per_byte[i] = mean(per_byte, t->ranks);
  }
}

int fs_rank_pair_model_load(fs_parameters *params, const char *model_name,
                            fs_rank_pair_model *m, fs_error *err) {
  fs_parameter *file = fs_parameter_take(params, "file");
  fs_parameter *average = fs_parameter_take(params, "average");
  if (!file)
    return fs_error_set(err, "--model %s: expected --param file=PATH (a rank-pair parameter file)",
                        model_name);
  if (average && strcmp(average->value, "0") != 0 && strcmp(average->value, "1") != 0)
    return fs_error_set(err, "--param average=%s: expected 0 or 1", average->value);
  m->average = average && strcmp(average->value, "1") == 0;
  fs_text_input *in = fs_text_input_open_file(file->value, err);
  if (!in) return -1;
  int status = fs_rank_pair_table_read(in, &m->keys, &m->table, err);
  fs_text_input_close(in);
  if (status) return -1;
  m->path = strdup(file->value);
  if (!m->path) {
    fs_rank_pair_table_free(&m->table);
    return fs_error_set(err, "out of memory");
  }
  if (m->average) fs_rank_pair_table_average(&m->table);
  return 0;
}

void fs_rank_pair_model_free(fs_rank_pair_model *m) {
  fs_rank_pair_table_free(&m->table);
  free(m->path);
  m->path = NULL;
}

int fs_rank_pair_model_check_ranks(const fs_rank_pair_model *m, int32_t program_ranks,
                                   fs_error *err) {
  if (program_ranks == m->table.ranks) return 0;
  return fs_error_set(err, "the parameter file describes %d ranks, the program has %d",
                      m->table.ranks, program_ranks);
}

/* text as a JSON string body: quotes, backslashes and controls escaped */
static void json_escape(char *out, size_t size, const char *text) {
  size_t at = 0;
  for (; *text && at + 7 < size; text++) {
    unsigned char c = (unsigned char)*text;
    if (c == '"' || c == '\\') out[at++] = '\\', out[at++] = (char)c;
    else if (c < 0x20) at += (size_t)snprintf(out + at, size - at, "\\u%04x", c);
    else out[at++] = (char)c;
  }
  out[at] = 0;
}

void fs_rank_pair_model_describe(const fs_rank_pair_model *m, char *buffer, size_t size) {
  char path[600], time[32], per_byte[48];
  json_escape(path, sizeof path, m->path);
  int used = snprintf(buffer, size, "\"file\": \"%s\", \"ranks\": %d, \"average\": %d", path,
                      (int)m->table.ranks, m->average);
  if (!m->average || used < 0 || (size_t)used >= size) return;
  const fs_rank_pair_keys *k = &m->keys;
  const fs_rank_pair_table *t = &m->table;
  used += snprintf(buffer + used, size - (size_t)used, ", \"%s_ns\": %s, \"%s_ns_per_byte\": %s",
                   k->link_time, fs_format_ns(time, t->link_time), k->link_per_byte,
                   fs_format_ns_per_byte(per_byte, t->link_per_byte));
  if (!t->rank_time || (size_t)used >= size) return;
  snprintf(buffer + used, size - (size_t)used, ", \"%s_ns\": %s, \"%s_ns_per_byte\": %s",
           k->rank_time, fs_format_ns(time, t->rank_time[0]), k->rank_per_byte,
           fs_format_ns_per_byte(per_byte, t->rank_per_byte[0]));
}
