/* pipelined.c: the pipelining latency-bandwidth model (Fennel thesis §4.3,
 * eqs. 4.4-4.6). A put holds its CPU for alpha_r (local completion) and
 * arrives alpha_p + beta*size later:
 *     local = t + alpha_r,  remote = t + alpha_r + alpha_p + beta*size,
 * so b puts issued back to back finish at alpha_p + b*alpha_r (+ beta*size).
 * A get is the request out and the data back: remote = t + alpha_r +
 * 2*alpha_p + beta*size. alpha_p and alpha_r may depend on the message size
 * through a table interpolated linearly between rows (clamped below the first
 * row, extended along the last segment above the last); the default is the
 * ARCHER fit of the thesis's Table 4.1. Remote completion is never earlier
 * than local completion (the table's fitted alpha_p turns negative above
 * 32 KB). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "formats/text_input.h"
#include "model_registry.h"

typedef struct latency_row {
  int64_t size;
  fs_time alpha_p, alpha_r;
} latency_row;

typedef struct pipelined {
  fs_time alpha_p, alpha_r; /* used when rows == 0 */
  fs_per_byte beta;
  latency_row *table;
  int rows;
  char table_name[256];
} pipelined;

/* Table 4.1: ARCHER, dmapp_put_flag_nbi, minimum per multicast width. */
static const latency_row archer_table[] = {
    {8, 880 * FS_NS, 380 * FS_NS},          {64, 890 * FS_NS, 380 * FS_NS},
    {128, 910 * FS_NS, 380 * FS_NS},        {512, 960 * FS_NS, 460 * FS_NS},
    {2048, 960 * FS_NS, 790 * FS_NS},       {8192, 860 * FS_NS, 2170 * FS_NS},
    {32768, 680 * FS_NS, 7750 * FS_NS},     {131072, -120 * FS_NS, 30100 * FS_NS},
    {524288, -1700 * FS_NS, 119300 * FS_NS},
};

static fs_time interpolate(fs_time a, fs_time b, int64_t s0, int64_t s1, int64_t s) {
  __int128 numerator = (__int128)(b - a) * (s - s0), denominator = s1 - s0;
  __int128 q = (numerator < 0 ? numerator - denominator / 2 : numerator + denominator / 2) / denominator;
  return a + (fs_time)q;
}

static void latencies(const pipelined *m, int64_t size, fs_time *alpha_p, fs_time *alpha_r) {
  if (m->rows == 0) {
    *alpha_p = m->alpha_p, *alpha_r = m->alpha_r;
    return;
  }
  const latency_row *t = m->table;
  if (m->rows == 1 || size <= t[0].size) {
    *alpha_p = t[0].alpha_p, *alpha_r = t[0].alpha_r;
    return;
  }
  int i = 1;
  while (i < m->rows - 1 && size > t[i].size) i++;
  *alpha_p = interpolate(t[i - 1].alpha_p, t[i].alpha_p, t[i - 1].size, t[i].size, size);
  *alpha_r = interpolate(t[i - 1].alpha_r, t[i].alpha_r, t[i - 1].size, t[i].size, size);
  if (*alpha_r < 0) *alpha_r = 0;
}

static void pipelined_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const pipelined *m = state;
  const fs_program *p = fs_engine_program(engine);
  int64_t size = p->value[task];
  fs_time alpha_p, alpha_r;
  latencies(m, size, &alpha_p, &alpha_r);
  fs_time local = now + alpha_r;
  fs_time flight = (p->kind[task] == FS_GET ? 2 * alpha_p : alpha_p) + fs_time_for_bytes(size, m->beta);
  fs_time remote = local + flight;
  if (remote <= local) {
    fs_engine_post_complete(engine, task, local);
  } else {
    fs_engine_post_local(engine, task, local);
    fs_engine_post_remote(engine, task, remote);
  }
}

static void pipelined_describe(const void *state, char *buffer, size_t size) {
  const pipelined *m = state;
  char a[32], b[32], beta[48];
  fs_format_ns_per_byte(beta, m->beta);
  if (m->rows)
    snprintf(buffer, size, "\"table\": \"%s\", \"table_rows\": %d, \"beta_ns_per_byte\": %s",
             m->table_name, m->rows, beta);
  else
    snprintf(buffer, size, "\"alpha_p_ns\": %s, \"alpha_r_ns\": %s, \"beta_ns_per_byte\": %s",
             fs_format_ns(a, m->alpha_p), fs_format_ns(b, m->alpha_r), beta);
}

static void pipelined_destroy(void *state) {
  pipelined *m = state;
  if (m->table != archer_table) free(m->table);
  free(m);
}

/* Skips blanks; returns the next whitespace-separated token of the line. */
static size_t next_token(const char *line, size_t length, size_t *at) {
  while (*at < length && (line[*at] == ' ' || line[*at] == '\t')) (*at)++;
  size_t start = *at;
  while (*at < length && line[*at] != ' ' && line[*at] != '\t' && line[*at] != '#') (*at)++;
  return *at - start;
}

/* Table file: one row per line, "SIZE ALPHA_P ALPHA_R" with units, sizes
 * strictly increasing; '#' starts a comment. */
static int read_table(pipelined *m, const char *path, fs_error *err) {
  fs_text_input *in = fs_text_input_open_file(path, err);
  if (!in) return -1;
  const char *line;
  size_t length;
  int status, capacity = 0;
  while ((status = fs_text_input_next_line(in, &line, &length, err)) == 1) {
    size_t at = 0, column[4], n[4];
    for (int k = 0; k < 4; k++) n[k] = next_token(line, length, &at), column[k] = at - n[k];
    if (n[0] == 0) continue; /* blank or comment */
    latency_row row;
    long long number = (long long)fs_text_input_line_number(in);
    const char *expected = NULL;
    int bad = 0;
    if (fs_parse_size(line + column[0], n[0], &row.size))
      expected = "a message size (\"8B\", \"2KiB\")", bad = 0;
    else if (n[1] == 0 || fs_parse_time(line + column[1], n[1], 1, &row.alpha_p))
      expected = "alpha_p, a time with a unit", bad = 1;
    else if (n[2] == 0 || fs_parse_time(line + column[2], n[2], 1, &row.alpha_r))
      expected = "alpha_r, a time with a unit", bad = 2;
    else if (n[3] != 0)
      expected = "the end of the row", bad = 3;
    else if (m->rows > 0 && row.size <= m->table[m->rows - 1].size)
      expected = "a size larger than the previous row's", bad = 0;
    if (expected) {
      fs_error_set(err, "%s:%lld:%zu: expected %s", path, number, column[bad] + 1, expected);
      fs_text_input_close(in);
      return -1;
    }
    if (m->rows == capacity) {
      capacity = capacity ? capacity * 2 : 16;
      latency_row *bigger = realloc(m->table, (size_t)capacity * sizeof *bigger);
      if (!bigger) {
        fs_text_input_close(in);
        return fs_error_set(err, "out of memory reading %s", path);
      }
      m->table = bigger;
    }
    m->table[m->rows++] = row;
  }
  fs_text_input_close(in);
  if (status < 0) return -1;
  if (m->rows == 0) return fs_error_set(err, "%s: the latency table has no rows", path);
  return 0;
}

int fs_pipelined_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  pipelined *m = calloc(1, sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  fs_parameter *table = fs_parameter_take(params, "table");
  int has_alpha = fs_parameter_take(params, "alpha_p") || fs_parameter_take(params, "alpha_r");
  m->alpha_p = 880 * FS_NS;
  m->alpha_r = 380 * FS_NS;
  if (fs_parameter_time(params, "alpha_p", 1, &m->alpha_p, err) ||
      fs_parameter_time(params, "alpha_r", 0, &m->alpha_r, err) ||
      fs_parameter_per_byte(params, "beta", &m->beta, err))
    goto fail;
  if (table && has_alpha) {
    fs_error_set(err, "--param table= and alpha_p/alpha_r exclude each other");
    goto fail;
  }
  if ((!table && !has_alpha) || (table && strcmp(table->value, "archer") == 0)) {
    m->table = (latency_row *)archer_table;
    m->rows = (int)(sizeof archer_table / sizeof archer_table[0]);
    snprintf(m->table_name, sizeof m->table_name, "archer");
  } else if (table && strcmp(table->value, "none") != 0) {
    snprintf(m->table_name, sizeof m->table_name, "%s", table->value);
    if (read_table(m, table->value, err)) goto fail;
  }
  *out = (fs_network_model){.name = "pipelined", .state = m, .start = pipelined_start,
                            .describe = pipelined_describe, .destroy = pipelined_destroy};
  return 0;
fail:
  pipelined_destroy(m);
  return -1;
}
