/* rank_pair_table.c: reading, resolving and averaging rank-pair parameter
 * files (format in rank_pair_table.h). Link lines are collected as raw
 * entries, then sorted by (pair, line order) and folded value by value, so
 * the last line that sets a value wins and `default` may come anywhere.
 * A `matrix` block first folds the entries so far (each pair once, sorted),
 * then writes its values into them in place or appends the pairs they lack,
 * so the entries never exceed the pairs named plus one block. */
#include "models/rank_pair_table.h"

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
  int64_t raw_count, raw_capacity, next_order;
  /* the pending `matrix`/`vector` block: slot -1 when none */
  int block_slot, block_is_matrix;
  int32_t block_rows, block_row;
  int64_t block_line, block_prefix; /* raw[0, block_prefix): folded before it */
  size_t block_column;
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

/* A number without a unit: the file's values come from measurements in
 * any unit, so only 0 (the same in all) may omit it (README). */
static int bare_nonzero(const char *text, size_t n) {
  if (n == 0 || !((text[n - 1] >= '0' && text[n - 1] <= '9') || text[n - 1] == '.')) return 0;
  for (size_t i = 0; i < n; i++)
    if (text[i] >= '1' && text[i] <= '9') return 1;
  return 0;
}

/* Parses the value of slot s. Returns -1 when fine, else column. */
static long parse_slot(reader *r, int s, const char *text, size_t n, size_t column, int64_t *out) {
  int is_time = s == LINK_TIME || s == RANK_TIME;
  if (bare_nonzero(text, n))
    return fail(r, column,
                is_time ? "a time with a unit for %s (ps, ns, us, ms, s), not a bare number%s"
                        : "a time per byte (\"0.4ns\") or a bandwidth (\"10GB/s\") for %s, "
                          "not a bare number%s",
                slot_name(r->keys, s), "");
  int status = is_time ? fs_parse_time(text, n, 0, out) : fs_parse_per_byte(text, n, out);
  if (status == 0) return -1;
  if (status == FS_PAST_LIMIT)
    return fail(r, column, "a value for %s up to %s", slot_name(r->keys, s),
                is_time ? FS_TIME_LIMIT_TEXT : FS_PER_BYTE_LIMIT_TEXT);
  if (is_time)
    return fail(r, column, "a non-negative time with a unit (ps, ns, us, ms, s) for %s%s",
                slot_name(r->keys, s), "");
  return fail(r, column, "a time per byte (\"0.4ns\") or a bandwidth (\"10GB/s\") for %s%s",
              slot_name(r->keys, s), "");
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
    long column =
        parse_slot(r, s, token + value_start, n - value_start, start + value_start, &v->v[s]);
    if (column >= 0) return column;
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
  r->raw[r->raw_count] =
      (raw_link){.pair = i * r->ranks + j, .order = r->next_order++, .values = *v};
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

static int by_pair_then_order(const void *a, const void *b) {
  const raw_link *x = a, *y = b;
  if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts the raw entries and folds each pair's into one, in line order (a
 * folded entry keeps its last order, below every later line's). */
static void fold_raw(reader *r) {
  if (r->raw_count > 0) qsort(r->raw, (size_t)r->raw_count, sizeof *r->raw, by_pair_then_order);
  int64_t folded = 0;
  for (int64_t k = 0; k < r->raw_count; k++) {
    if (folded > 0 && r->raw[k].pair == r->raw[folded - 1].pair) {
      merge(&r->raw[folded - 1].values, &r->raw[k].values);
      r->raw[folded - 1].order = r->raw[k].order;
      continue;
    }
    r->raw[folded++] = r->raw[k];
  }
  r->raw_count = folded;
}

/* `matrix KEY` or `vector KEY`: checks the key and opens the block. */
static long read_block_line(reader *r, const char *line, size_t length, size_t *at, size_t word,
                            int is_matrix) {
  size_t n = next_token(line, length, at), start = *at - n;
  int wanted[2] = {is_matrix ? LINK_TIME : RANK_TIME, is_matrix ? LINK_PER_BYTE : RANK_PER_BYTE};
  int other[2] = {is_matrix ? RANK_TIME : LINK_TIME, is_matrix ? RANK_PER_BYTE : LINK_PER_BYTE};
  int slot = -1;
  for (int k = 0; k < 2; k++)
    if (token_is(line + start, n, slot_name(r->keys, wanted[k]))) slot = wanted[k];
  char keys[100];
  snprintf(keys, sizeof keys, "%s or %s", slot_name(r->keys, wanted[0]),
           slot_name(r->keys, wanted[1]));
  if (slot < 0) {
    for (int k = 0; k < 2; k++) {
      const char *name = slot_name(r->keys, other[k]);
      if (name && token_is(line + start, n, name))
        return fail(r, start,
                    is_matrix ? "a per-pair key after `matrix` (%s; %s is per-rank: `vector`)"
                              : "a per-rank key after `vector` (%s; %s is per-pair: `matrix`)",
                    keys, name);
    }
    return fail(r, start,
                is_matrix ? "a per-pair key after `matrix`: %s%s"
                          : "a per-rank key after `vector`: %s%s",
                keys, "");
  }
  if (is_matrix && r->ranks > FS_RANK_PAIR_MAX_MATRIX_RANKS) {
    char ranks[24];
    snprintf(ranks, sizeof ranks, "%d", (int)r->ranks);
    return fail(r, word,
                "`link` lines: a `matrix` block needs N^2 entries and takes at most "
                "%s ranks (the file has %s)",
                FS_RANK_PAIR_MAX_MATRIX_RANKS_TEXT, ranks);
  }
  size_t end = next_token(line, length, at);
  if (end) return fail(r, *at - end, "the end of the line%s%s", "", "");
  if (is_matrix) {
    fold_raw(r);
    /* folded, the entries are distinct pairs: the block adds the rest */
    int64_t want = (int64_t)r->ranks * (r->ranks - 1);
    if (want > r->raw_capacity) {
      raw_link *bigger = realloc(r->raw, (size_t)want * sizeof *bigger);
      if (!bigger) return -2;
      r->raw = bigger, r->raw_capacity = want;
    }
    r->block_prefix = r->raw_count;
  }
  r->block_slot = slot, r->block_is_matrix = is_matrix;
  r->block_rows = is_matrix ? r->ranks : 1, r->block_row = 0;
  r->block_line = fs_text_input_line_number(r->in), r->block_column = word;
  return -1;
}

/* Sets value v of the pair i->j, inside a matrix block. */
static void set_matrix_value(reader *r, int64_t i, int64_t j, int64_t v) {
  int64_t pair = i * r->ranks + j, low = 0, high = r->block_prefix;
  while (low < high) {
    int64_t middle = low + (high - low) / 2;
    if (r->raw[middle].pair < pair)
      low = middle + 1;
    else
      high = middle;
  }
  unsigned bit = 1u << r->block_slot;
  if (low < r->block_prefix && r->raw[low].pair == pair) {
    r->raw[low].values.v[r->block_slot] = v;
    r->raw[low].values.set |= bit;
    return;
  }
  values single = {.set = bit};
  single.v[r->block_slot] = v;
  r->raw[r->raw_count++] = (raw_link){.pair = pair, .order = r->next_order++, .values = single};
}

/* One row of the pending block: N values (a matrix's diagonal unread). */
static long read_block_row(reader *r, const char *line, size_t length) {
  size_t at = 0, n;
  int32_t row = r->block_row;
  char what[96], count[24];
  if (r->block_is_matrix)
    snprintf(what, sizeof what, "row %d of `matrix %.40s`", (int)row,
             slot_name(r->keys, r->block_slot));
  else
    snprintf(what, sizeof what, "the line of `vector %.40s`", slot_name(r->keys, r->block_slot));
  snprintf(count, sizeof count, "%d", (int)r->ranks);
  for (int32_t k = 0; k < r->ranks; k++) {
    n = next_token(line, length, &at);
    size_t start = at - n;
    if (n == 0) return fail(r, at, "%s values in %s", count, what);
    if (r->block_is_matrix && k == row) continue;
    int64_t v;
    long column = parse_slot(r, r->block_slot, line + start, n, start, &v);
    if (column >= 0) return column;
    if (!r->block_is_matrix) {
      r->rank[k].v[r->block_slot] = v;
      r->rank[k].set |= 1u << r->block_slot;
    } else {
      set_matrix_value(r, row, k, v);
    }
  }
  n = next_token(line, length, &at);
  if (n) return fail(r, at - n, "the end of the line: %s values in %s", count, what);
  if (++r->block_row < r->block_rows) return -1;
  if (r->block_is_matrix && r->raw_count > r->block_prefix)
    qsort(r->raw, (size_t)r->raw_count, sizeof *r->raw, by_pair_then_order);
  r->block_slot = -1;
  return -1;
}

/* Returns -1 when fine, -2 when out of memory, else the error column. */
static long read_line(reader *r, const char *line, size_t length) {
  size_t at = 0, n = next_token(line, length, &at), start = at - n;
  const char *word = line + start;
  if (n == 0) return -1; /* blank or comment */
  if (r->block_slot >= 0) return read_block_row(r, line, length);
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
  if (token_is(word, n, "matrix")) return read_block_line(r, line, length, &at, start, 1);
  if (rank_slots && token_is(word, n, "vector"))
    return read_block_line(r, line, length, &at, start, 0);
  return fail(r, start,
              rank_slots ? "`default`, `rank`, `link`, `matrix` or `vector`%s%s"
                         : "`default`, `link` or `matrix`%s%s",
              "", "");
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
  fold_raw(r);
  int64_t links = r->raw_count, complete[2] = {0, 0};
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
    if (complete[s] < pairs && !(r->defaults.set & 1u << s))
      return missing_default(r, err, s, "link");
  t->link_time = r->defaults.v[LINK_TIME];
  t->link_per_byte = r->defaults.v[LINK_PER_BYTE];
  if (!r->keys->rank_time) return 0;
  t->rank_time = malloc((size_t)r->ranks * sizeof *t->rank_time);
  t->rank_per_byte = malloc((size_t)r->ranks * sizeof *t->rank_per_byte);
  if (!t->rank_time || !t->rank_per_byte)
    return fs_error_set(err, "%s: out of memory", fs_text_input_name(r->in));
  for (int32_t i = 0; i < r->ranks; i++) {
    for (int s = RANK_TIME; s <= RANK_PER_BYTE; s++)
      if (!(r->rank[i].set & 1u << s) && !(r->defaults.set & 1u << s))
        return missing_default(r, err, s, "rank");
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
    if (column >= 0) return fs_text_input_error(r->in, column + 1, err, "expected %s", r->expected);
  }
  if (status == 0 && !r->ranks)
    return fs_error_set(err, "%s: expected a `ranks N` line (the file has none)",
                        fs_text_input_name(r->in));
  if (status == 0 && r->block_slot >= 0)
    return fs_error_set(err, "%s:%lld:%zu: expected %d %s after `%s %s`, the file ends after %d",
                        fs_text_input_name(r->in), (long long)r->block_line, r->block_column + 1,
                        (int)r->block_rows, r->block_is_matrix ? "rows" : "row",
                        r->block_is_matrix ? "matrix" : "vector", slot_name(r->keys, r->block_slot),
                        (int)r->block_row);
  return status;
}

int fs_rank_pair_table_read(fs_text_input *in, const fs_rank_pair_keys *keys,
                            fs_rank_pair_table *out, fs_error *err) {
  reader r = {.in = in, .keys = keys, .block_slot = -1};
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
    if (t->link[middle].pair < pair)
      low = middle + 1;
    else
      high = middle;
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

int fs_rank_pair_model_load(fs_parameters *params, const char *model_name, fs_rank_pair_model *m,
                            fs_error *err) {
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
    if (c == '"' || c == '\\')
      out[at++] = '\\', out[at++] = (char)c;
    else if (c < 0x20)
      at += (size_t)snprintf(out + at, size - at, "\\u%04x", c);
    else
      out[at++] = (char)c;
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
