/* fit.c: what every fitter shares (fit.h): the result's parameters,
 * tables and residuals, least squares, the registry of fitters, the model
 * file and the reports.
 *
 * A caller (fennelsim fit, tests) calls fs_fit_init with the model's name,
 * then the fitter, then fs_fit_free whatever happened; a fitter may call
 * fs_fit_init again on the still empty fit (to set its kind). */
#include "fit/fit.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/atomic_file.h"

/* ---- registry ---- */

static const struct {
  const char *name;
  fs_fitter fitter;
} fitters[] = {
    {"hockney", fs_fit_hockney},     {"hetero-hockney", fs_fit_hetero_hockney},
    {"pipelined", fs_fit_pipelined}, {"loggops", fs_fit_loggops},
    {"taulop", fs_fit_taulop},       {"lognp", fs_fit_lognp},
    {"log3p", fs_fit_lognp},         {"lmo", fs_fit_lmo},
};

fs_fitter fs_fitter_find(const char *model) {
  for (size_t i = 0; i < sizeof fitters / sizeof fitters[0]; i++)
    if (strcmp(model, fitters[i].name) == 0) return fitters[i].fitter;
  return NULL;
}

const char *fs_fitter_names(void) {
  return "hockney, hetero-hockney, pipelined, loggops, taulop, lognp (also log3p), lmo";
}

/* ---- the result ---- */

void fs_fit_init(fs_fit *fit, const char *kind) {
  memset(fit, 0, sizeof *fit);
  snprintf(fit->kind, sizeof fit->kind, "%s", kind);
  fit->max_mu = fit->mean_mu = 1;
}

void fs_fit_free(fs_fit *fit) {
  for (int i = 0; i < fit->table_count; i++) free(fit->tables[i].rows);
  free(fit->residuals);
  fit->table_count = 0, fit->residuals = NULL;
  fit->residual_count = fit->residual_capacity = 0;
}

int fs_fit_set_param(fs_fit *fit, const char *name, const char *value) {
  if (strlen(name) >= sizeof fit->params[0].name || strlen(value) >= sizeof fit->params[0].value)
    return -1;
  int i = 0;
  while (i < fit->param_count && strcmp(fit->params[i].name, name) != 0) i++;
  if (i == FS_FIT_MAX_PARAMS) return -1;
  if (i == fit->param_count) fit->param_count++;
  snprintf(fit->params[i].name, sizeof fit->params[i].name, "%s", name);
  snprintf(fit->params[i].value, sizeof fit->params[i].value, "%s", value);
  return 0;
}

int fs_fit_set_time(fs_fit *fit, const char *name, fs_time value) {
  char number[32], text[40];
  snprintf(text, sizeof text, "%sns", fs_format_ns(number, value));
  return fs_fit_set_param(fit, name, text);
}

int fs_fit_set_per_byte(fs_fit *fit, const char *name, fs_per_byte value) {
  char text[48];
  return fs_fit_set_param(fit, name, fs_format_per_byte(text, value));
}

char *fs_fit_table_text(const fs_size_table *t, const char *heading) {
  size_t size = 128 + strlen(heading) + (size_t)t->rows * (size_t)(32 + 40 * t->columns), used = 0;
  char *text = malloc(size), number[32]; /* 40: " %sns" */
  if (!text) return NULL;
  used += (size_t)snprintf(text, size, "# %s, fitted by fennelsim fit\n", heading);
  for (int i = 0; i < t->rows; i++) {
    used += (size_t)snprintf(text + used, size - used, "%lldB", (long long)t->sizes[i]);
    for (int k = 0; k < t->columns; k++)
      used += (size_t)snprintf(text + used, size - used, " %sns",
                               fs_format_ns(number, t->values[(size_t)i * t->columns + k]));
    used += (size_t)snprintf(text + used, size - used, "\n");
  }
  return text;
}

int fs_fit_add_table(fs_fit *fit, const char *name, char *rows) {
  if (!rows || fit->table_count == FS_FIT_MAX_TABLES ||
      strlen(name) >= sizeof fit->tables[0].name) {
    free(rows);
    return -1;
  }
  fs_fit_table *t = &fit->tables[fit->table_count++];
  snprintf(t->name, sizeof t->name, "%s", name);
  t->rows = rows;
  return 0;
}

static double proportional_error(fs_time measured, fs_time estimated) {
  if (measured == estimated) return 1;
  fs_time low = measured < estimated ? measured : estimated;
  fs_time high = measured < estimated ? estimated : measured;
  return low <= 0 ? INFINITY : (double)high / (double)low;
}

int fs_fit_add_residual(fs_fit *fit, int64_t row, fs_time measured, fs_time estimated) {
  if (fit->residual_count == fit->residual_capacity) {
    int64_t want = fit->residual_capacity ? 2 * fit->residual_capacity : 64;
    fs_fit_residual *r = realloc(fit->residuals, (size_t)want * sizeof *r);
    if (!r) return -1;
    fit->residuals = r, fit->residual_capacity = want;
  }
  double mu = proportional_error(measured, estimated);
  fit->residuals[fit->residual_count++] = (fs_fit_residual){row, measured, estimated, mu};
  int64_t n = fit->residual_count;
  if (n == 1 || mu > fit->max_mu) fit->max_mu = mu;
  fit->mean_mu = n == 1 ? mu : fit->mean_mu + (mu - fit->mean_mu) / (double)n;
  return 0;
}

void fs_fit_note(fs_fit *fit, const char *format, ...) {
  size_t used = strlen(fit->notes);
  if (used + 2 >= sizeof fit->notes) return;
  va_list args;
  va_start(args, format);
  vsnprintf(fit->notes + used, sizeof fit->notes - used - 1, format, args);
  va_end(args);
  used = strlen(fit->notes);
  fit->notes[used] = '\n', fit->notes[used + 1] = 0;
}

fs_time fs_fit_value(const fs_probe_row *row, const fs_fit_options *options) {
  return options && options->use_median ? row->median : row->min;
}

/* Centred sums in long double: exact data gives the exact line to far
 * below a picosecond. */
int fs_fit_line(const double *x, const double *y, int64_t n, double *a, double *b) {
  if (n < 2) return -1;
  long double mx = 0, my = 0;
  for (int64_t i = 0; i < n; i++) mx += x[i], my += y[i];
  mx /= n, my /= n;
  long double sxx = 0, sxy = 0;
  for (int64_t i = 0; i < n; i++) {
    long double dx = x[i] - mx;
    sxx += dx * dx, sxy += dx * (y[i] - my);
  }
  if (sxx == 0) return -1;
  long double slope = sxy / sxx;
  *b = (double)slope;
  *a = (double)(my - slope * mx);
  return 0;
}

fs_time fs_fit_round_time(double ps) {
  if (!(ps == ps)) return 0;
  if (ps >= (double)FS_TIME_LIMIT) return FS_TIME_LIMIT; /* what the models read back */
  if (ps <= -(double)FS_TIME_LIMIT) return -FS_TIME_LIMIT;
  return (fs_time)llround(ps);
}

/* ---- the model file ---- */

/* Tables that a model reads only from a file named by the parameter (not
 * from a model file's inline <table>): written next to the model file and
 * named by an absolute path. */
static const struct {
  const char *kind, *table;
} file_only_tables[] = {
    {"hetero-hockney", "file"},
    {"lmo", "file"},
    {"lognp", "mw_table"},
    {"lognp", "net_table"},
};

static int file_only(const char *kind, const char *table) {
  for (size_t i = 0; i < sizeof file_only_tables / sizeof file_only_tables[0]; i++)
    if (strcmp(kind, file_only_tables[i].kind) == 0 &&
        strcmp(table, file_only_tables[i].table) == 0)
      return 1;
  return 0;
}

/* The side file of table `name` for model file `path`, absolute (the
 * model may be run from another directory): "DIR/BASE.NAME.txt". */
static int side_path(const char *path, const char *name, char *out, size_t size, fs_error *err) {
  char directory[PATH_MAX] = "";
  if (path[0] != '/' && !getcwd(directory, sizeof directory))
    return fs_error_set(err, "%s: cannot find the current directory", path);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t length = strlen(base);
  if (length > 4 && strcmp(base + length - 4, ".xml") == 0) length -= 4;
  int n = snprintf(out, size, "%s%s%.*s.%s.txt", directory, directory[0] ? "/" : "",
                   (int)(base - path + length), path, name);
  if (n < 0 || (size_t)n >= size) return fs_error_set(err, "%s: path too long", path);
  return 0;
}

static int write_side_file(const char *path, const char *rows, fs_error *err) {
  fs_output *out = fs_output_open(path, err);
  if (!out) return -1;
  fs_output_puts(out, rows);
  return fs_output_commit(out, err);
}

/* XML attribute text: & < > " escaped. */
static void put_escaped(fs_output *out, const char *text) {
  for (; *text; text++) {
    switch (*text) {
      case '&': fs_output_puts(out, "&amp;"); break;
      case '<': fs_output_puts(out, "&lt;"); break;
      case '>': fs_output_puts(out, "&gt;"); break;
      case '"': fs_output_puts(out, "&quot;"); break;
      default: fs_output_write(out, text, 1);
    }
  }
}

/* A comment line: no "--" inside an XML comment. */
static void put_comment(fs_output *out, const char *text, size_t length) {
  fs_output_puts(out, "<!-- ");
  for (size_t i = 0; i < length; i++)
    fs_output_write(out, text[i] == '-' && i + 1 < length && text[i + 1] == '-' ? "=" : text + i,
                    1);
  fs_output_puts(out, " -->\n");
}

static void put_table(fs_output *out, const fs_fit_table *t) {
  fs_output_printf(out, "  <table name=\"%s\"><![CDATA[\n", t->name);
  for (const char *at = t->rows; *at; at++) {
    if (strncmp(at, "]]>", 3) == 0)
      fs_output_puts(out, "]]]]><![CDATA[>"), at += 2;
    else
      fs_output_write(out, at, 1);
  }
  size_t n = strlen(t->rows);
  fs_output_puts(out, n && t->rows[n - 1] != '\n' ? "\n  ]]></table>\n" : "  ]]></table>\n");
}

int fs_fit_write_xml(const fs_fit *fit, const char *path, fs_error *err) {
  if (!fit->kind[0]) return fs_error_set(err, "the fit names no model");
  char sides[FS_FIT_MAX_TABLES][PATH_MAX + 80];
  for (int i = 0; i < fit->table_count; i++) {
    if (!file_only(fit->kind, fit->tables[i].name)) continue;
    if (strcmp(path, "-") == 0)
      return fs_error_set(err, "model %s reads %s= from a file: -o needs a file name, not -",
                          fit->kind, fit->tables[i].name);
    if (side_path(path, fit->tables[i].name, sides[i], sizeof sides[i], err) ||
        write_side_file(sides[i], fit->tables[i].rows, err))
      return -1;
  }
  fs_output *out = fs_output_open(path, err);
  if (!out) return -1;
  char line[160];
  int n = snprintf(line, sizeof line,
                   "fitted by fennelsim fit: max mu %.6g, mean mu %.6g over %lld "
                   "rows",
                   fit->max_mu, fit->mean_mu, (long long)fit->residual_count);
  put_comment(out, line, (size_t)n);
  for (const char *at = fit->notes; *at;) {
    const char *end = strchr(at, '\n');
    size_t length = end ? (size_t)(end - at) : strlen(at);
    put_comment(out, at, length);
    at += length + (end != NULL);
  }
  fs_output_puts(out, "<model kind=\"");
  put_escaped(out, fit->kind);
  fs_output_puts(out, "\">\n");
  for (int i = 0; i < fit->param_count; i++) {
    fs_output_printf(out, "  <param name=\"%s\" value=\"", fit->params[i].name);
    put_escaped(out, fit->params[i].value);
    fs_output_puts(out, "\"/>\n");
  }
  for (int i = 0; i < fit->table_count; i++) {
    if (!file_only(fit->kind, fit->tables[i].name)) {
      put_table(out, &fit->tables[i]);
      continue;
    }
    fs_output_printf(out, "  <param name=\"%s\" value=\"", fit->tables[i].name);
    put_escaped(out, sides[i]);
    fs_output_puts(out, "\"/>\n");
  }
  fs_output_puts(out, "</model>\n");
  return fs_output_commit(out, err);
}

/* ---- reports ---- */

static void row_text(char *buffer, size_t size, const fs_probe_row *r) {
  int n = snprintf(buffer, size, "%s %s %lldB", fs_experiment_name(r->experiment),
                   r->placement == FS_PLACEMENT_NET ? "net" : "shm", (long long)r->bytes);
  if (n < 0 || (size_t)n >= size) return;
  if (r->reply_bytes != r->bytes && r->experiment != FS_EXPERIMENT_MEMCPY)
    n += snprintf(buffer + n, size - (size_t)n, "/%lldB", (long long)r->reply_bytes);
  if (r->stride && (size_t)n < size)
    n += snprintf(buffer + n, size - (size_t)n, " stride %lld", (long long)r->stride);
  if (r->count != 1 && (size_t)n < size)
    n += snprintf(buffer + n, size - (size_t)n, " x%d", r->count);
  if ((size_t)n < size) n += snprintf(buffer + n, size - (size_t)n, " ranks %d", r->rank_a);
  if (r->rank_b >= 0 && (size_t)n < size)
    n += snprintf(buffer + n, size - (size_t)n, ",%d", r->rank_b);
  if (r->rank_c >= 0 && (size_t)n < size) snprintf(buffer + n, size - (size_t)n, ",%d", r->rank_c);
}

void fs_fit_report_text(FILE *out, const fs_fit *fit, const fs_probe_data *data) {
  fprintf(out, "model:      %s\n", fit->kind);
  fprintf(out, "data:       %s (%lld rows, %d ranks)\n", data->source ? data->source : "-",
          (long long)data->count, (int)data->ranks);
  fprintf(out, "parameters:\n");
  for (int i = 0; i < fit->param_count; i++)
    fprintf(out, "  %-16s %s\n", fit->params[i].name, fit->params[i].value);
  for (int i = 0; i < fit->table_count; i++) {
    fprintf(out, "table %s:\n", fit->tables[i].name);
    for (const char *at = fit->tables[i].rows; *at;) {
      const char *end = strchr(at, '\n');
      int length = end ? (int)(end - at) : (int)strlen(at);
      fprintf(out, "  %.*s\n", length, at);
      at += length + (end != NULL);
    }
  }
  if (fit->notes[0]) fprintf(out, "notes:\n");
  for (const char *at = fit->notes; *at;) {
    const char *end = strchr(at, '\n');
    int length = end ? (int)(end - at) : (int)strlen(at);
    fprintf(out, "  %.*s\n", length, at);
    at += length + (end != NULL);
  }
  fprintf(out, "residuals (%lld rows):\n  %6s  %-44s %16s %16s %10s\n",
          (long long)fit->residual_count, "line", "row", "measured_ns", "estimated_ns", "mu");
  for (int64_t i = 0; i < fit->residual_count; i++) {
    const fs_fit_residual *r = &fit->residuals[i];
    const fs_probe_row *row = &data->rows[r->row];
    char what[160], measured[32], estimated[32];
    row_text(what, sizeof what, row);
    fprintf(out, "  %6u  %-44s %16s %16s %10.6f\n", (unsigned)row->line, what,
            fs_format_ns(measured, r->measured), fs_format_ns(estimated, r->estimated), r->mu);
  }
  fprintf(out, "max mu:     %.6f\nmean mu:    %.6f\n", fit->max_mu, fit->mean_mu);
}

static void json_string(FILE *out, const char *text, size_t length) {
  fputc('"', out);
  for (size_t i = 0; i < length; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c == '\n')
      fputs("\\n", out);
    else if (c < 0x20)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

static void json_number(FILE *out, double v) {
  if (isfinite(v))
    fprintf(out, "%.17g", v);
  else
    fputs("null", out);
}

static void json_residual(FILE *out, const fs_fit_residual *r, const fs_probe_row *row) {
  char measured[32], estimated[32];
  fprintf(out,
          "{\"line\": %u, \"experiment\": \"%s\", \"placement\": \"%s\", \"bytes\": %lld, "
          "\"reply_bytes\": %lld, \"stride\": %lld, \"count\": %d, \"rank_a\": %d, \"rank_b\": %d, "
          "\"rank_c\": %d, \"measured_ns\": %s, \"estimated_ns\": %s, \"mu\": ",
          (unsigned)row->line, fs_experiment_name(row->experiment),
          row->placement == FS_PLACEMENT_NET ? "net" : "shm", (long long)row->bytes,
          (long long)row->reply_bytes, (long long)row->stride, row->count, row->rank_a, row->rank_b,
          row->rank_c, fs_format_ns(measured, r->measured), fs_format_ns(estimated, r->estimated));
  json_number(out, r->mu);
  fputc('}', out);
}

void fs_fit_report_json(FILE *out, const fs_fit *fit, const fs_probe_data *data) {
  fputs("{\"model\": ", out);
  json_string(out, fit->kind, strlen(fit->kind));
  fputs(", \"data\": ", out);
  const char *source = data->source ? data->source : "-";
  json_string(out, source, strlen(source));
  fprintf(out, ", \"rows\": %lld, \"ranks\": %d, \"parameters\": {", (long long)data->count,
          (int)data->ranks);
  for (int i = 0; i < fit->param_count; i++) {
    fputs(i ? ", " : "", out);
    json_string(out, fit->params[i].name, strlen(fit->params[i].name));
    fputs(": ", out);
    json_string(out, fit->params[i].value, strlen(fit->params[i].value));
  }
  fputs("}, \"tables\": {", out);
  for (int i = 0; i < fit->table_count; i++) {
    fputs(i ? ", " : "", out);
    json_string(out, fit->tables[i].name, strlen(fit->tables[i].name));
    fputs(": ", out);
    json_string(out, fit->tables[i].rows, strlen(fit->tables[i].rows));
  }
  fputs("}, \"notes\": [", out);
  int first = 1;
  for (const char *at = fit->notes; *at; first = 0) {
    const char *end = strchr(at, '\n');
    size_t length = end ? (size_t)(end - at) : strlen(at);
    fputs(first ? "" : ", ", out);
    json_string(out, at, length);
    at += length + (end != NULL);
  }
  fputs("], \"residuals\": [", out);
  for (int64_t i = 0; i < fit->residual_count; i++) {
    fputs(i ? ", " : "", out);
    json_residual(out, &fit->residuals[i], &data->rows[fit->residuals[i].row]);
  }
  fputs("], \"max_mu\": ", out);
  json_number(out, fit->max_mu);
  fputs(", \"mean_mu\": ", out);
  json_number(out, fit->mean_mu);
  fputs("}\n", out);
}
