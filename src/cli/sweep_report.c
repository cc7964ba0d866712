/* sweep_report.c: see sweep_report.h. */
#include "cli/sweep_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "generators/data_flow.h"
#include "noise/noise.h"

static const char *const stat_names[FS_STAT_COUNT] = {"min", "p25", "median", "mean", "p75",
                                                      "p95", "p99", "max",    "stdev"};

typedef struct report_state {
  const fs_sweep_grid *g;
  const fs_sweep_results *r;
  const fs_sweep_report *report;
  int64_t seeds;
  int32_t platforms;
  uint8_t *winner; /* per cell */
  int picked;      /* some cell has a selector's pick */
  int width_algorithm, width_model, width_platform, width_picked; /* text columns */
  int64_t rows;                                                   /* written so far */
} report_state;

/* Whether cell a ranks before b (both run): exact for one run. */
static int better(const report_state *s, const fs_sweep_cell *a, const fs_sweep_cell *b) {
  if (s->seeds <= 1) return a->makespan < b->makespan;
  return fs_best_value(a, s->report->rank_by, s->seeds) <
         fs_best_value(b, s->report->rank_by, s->seeds);
}

static int same(const report_state *s, const fs_sweep_cell *a, const fs_sweep_cell *b) {
  return !better(s, a, b) && !better(s, b, a);
}

static fs_collective collective_of(const fs_sweep_grid *g, int32_t a) {
  return g->algorithms[a].generator->collective;
}

/* Marks the winners of group (r, z, m, p) among collective c's algorithms:
 * every cell equal to the best. */
static void mark_group(report_state *s, fs_collective c, int32_t r, int32_t z, int32_t m,
                       int32_t p) {
  const fs_sweep_cell *best = NULL;
  for (int32_t a = 0; a < s->g->algorithm_count; a++) {
    const fs_sweep_cell *cell = &s->r->cells[fs_sweep_index(s->g, a, r, z, m, p)];
    if (collective_of(s->g, a) == c && cell->status == FS_SWEEP_RUN &&
        (!best || better(s, cell, best)))
      best = cell;
  }
  for (int32_t a = 0; best && a < s->g->algorithm_count; a++) {
    int64_t i = fs_sweep_index(s->g, a, r, z, m, p);
    if (collective_of(s->g, a) == c)
      s->winner[i] = s->r->cells[i].status == FS_SWEEP_RUN && same(s, &s->r->cells[i], best);
  }
}

/* Marks every group's winners, per collective. */
static void mark_winners(report_state *s) {
  const fs_sweep_grid *g = s->g;
  for (int c = FS_COLLECTIVE_NONE; c <= FS_COLLECTIVE_LAST; c++)
    for (int32_t p = 0; p < s->platforms; p++)
      for (int32_t m = 0; m < g->model_count; m++)
        for (int32_t r = 0; r < g->rank_count; r++)
          for (int32_t z = 0; z < g->size_count; z++) mark_group(s, (fs_collective)c, r, z, m, p);
}

/* Calls row(s, cell index) in report order: platform, model, ranks, size, algorithm. */
static int each_row(report_state *s, int (*row)(report_state *, fs_output *, int64_t),
                    fs_output *out) {
  const fs_sweep_grid *g = s->g;
  for (int32_t p = 0; p < s->platforms; p++)
    for (int32_t m = 0; m < g->model_count; m++)
      for (int32_t r = 0; r < g->rank_count; r++)
        for (int32_t z = 0; z < g->size_count; z++)
          for (int32_t a = 0; a < g->algorithm_count; a++)
            if (row(s, out, fs_sweep_index(g, a, r, z, m, p))) return -1;
  return 0;
}

static const char *platform_of(const report_state *s, const fs_sweep_cell *c) {
  return s->g->platform_count > 0 ? s->g->platforms[c->platform].label : "";
}

/* ---- text ---------------------------------------------------------------- */

/* A time in ns with a unit fit for it: "319.766 us". */
static char *human_time(char *buffer, size_t size, double ns) {
  static const char *const units[] = {"ns", "us", "ms", "s"};
  int u = 0;
  while (u < 3 && fabs(ns) >= 1000) ns /= 1000, u++;
  snprintf(buffer, size, "%.6g %s", ns, units[u]);
  return buffer;
}

static void text_widths(report_state *s) {
  const fs_sweep_grid *g = s->g;
  s->width_algorithm = 9, s->width_model = 5, s->width_platform = 8, s->width_picked = 6;
  for (int32_t a = 0; a < g->algorithm_count; a++)
    if ((int)strlen(g->algorithms[a].text) > s->width_algorithm)
      s->width_algorithm = (int)strlen(g->algorithms[a].text);
  for (int32_t m = 0; m < g->model_count; m++)
    if ((int)strlen(g->models[m].label) > s->width_model)
      s->width_model = (int)strlen(g->models[m].label);
  for (int32_t p = 0; p < g->platform_count; p++)
    if ((int)strlen(g->platforms[p].label) > s->width_platform)
      s->width_platform = (int)strlen(g->platforms[p].label);
  for (int64_t i = 0; i < s->r->count; i++)
    if ((int)strlen(s->r->cells[i].picked) > s->width_picked)
      s->width_picked = (int)strlen(s->r->cells[i].picked);
}

static int text_row(report_state *s, fs_output *out, int64_t i) {
  const fs_sweep_cell *c = &s->r->cells[i];
  const fs_sweep_grid *g = s->g;
  char size[32], time[48];
  int failed = fs_output_printf(out, "%8d  %-8s  %-*s  ", g->ranks[c->ranks],
                                fs_format_size(size, g->sizes[c->size]), s->width_model,
                                g->models[c->model].label) < 0;
  if (g->platform_count > 0)
    failed |= fs_output_printf(out, "%-*s  ", s->width_platform, platform_of(s, c)) < 0;
  failed |= fs_output_printf(out, "%-*s  ", s->width_algorithm, g->algorithms[c->algorithm].text) <
            0;
  if (s->picked) failed |= fs_output_printf(out, "%-*s  ", s->width_picked, c->picked) < 0;
  if (c->status == FS_SWEEP_SKIPPED)
    return failed | (fs_output_printf(out, "skipped: %s\n", c->reason) < 0);
  human_time(time, sizeof time, fs_best_value(c, s->report->rank_by, s->seeds));
  failed |= fs_output_printf(out, "%c %-14s %10lld", s->winner[i] ? '*' : ' ', time,
                             (long long)c->tasks) < 0;
  if (s->report->wall) failed |= fs_output_printf(out, "  %9.4f", c->wall) < 0;
  return failed | (fs_output_puts(out, "\n") < 0);
}

static int write_text(report_state *s, fs_output *out) {
  const fs_sweep_grid *g = s->g;
  int64_t skipped = 0;
  for (int64_t i = 0; i < s->r->count; i++) skipped += s->r->cells[i].status == FS_SWEEP_SKIPPED;
  text_widths(s);
  int failed = fs_output_printf(out,
                                "sweep: %d algorithms x %d rank counts x %d sizes x %d models x "
                                "%d platforms = %lld cells (%lld skipped), %lld run%s per cell%s\n",
                                g->algorithm_count, g->rank_count, g->size_count, g->model_count,
                                s->platforms, (long long)s->r->count, (long long)skipped,
                                (long long)s->seeds, s->seeds == 1 ? "" : "s",
                                g->check ? ", each schedule proven by the data-flow check" : "") <
               0;
  const char *value = s->seeds <= 1 ? "makespan" : fs_best_rank_by_name(s->report->rank_by);
  failed |= fs_output_printf(out, "%8s  %-8s  %-*s  ", "ranks", "size", s->width_model, "model") <
            0;
  if (g->platform_count > 0)
    failed |= fs_output_printf(out, "%-*s  ", s->width_platform, "platform") < 0;
  failed |= fs_output_printf(out, "%-*s  ", s->width_algorithm, "algorithm") < 0;
  if (s->picked) failed |= fs_output_printf(out, "%-*s  ", s->width_picked, "picked") < 0;
  failed |= fs_output_printf(out, "  %-14s %10s%s\n", value, "tasks",
                             s->report->wall ? "     wall_s" : "") < 0;
  failed |= each_row(s, text_row, out);
  return failed |
         (fs_output_puts(out, "* the winner of its collective, ranks, size, model and platform\n") <
          0);
}

/* ---- CSV ----------------------------------------------------------------- */

/* The shortest of %.15g, %.16g, %.17g that reads back exactly. */
static char *exact_double(char *text, size_t size, double value) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(text, size, "%.*g", digits, value);
    if (strtod(text, NULL) == value) break;
  }
  return text;
}

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static int csv_field(fs_output *out, const char *text) {
  if (!strpbrk(text, ",\"\n\r")) return fs_output_puts(out, text);
  int failed = fs_output_puts(out, "\"") < 0;
  for (const char *c = text; *c; c++)
    failed |= fs_output_write(out, c, 1) < 0 || (*c == '"' && fs_output_write(out, c, 1) < 0);
  return (failed | (fs_output_puts(out, "\"") < 0)) ? -1 : 0;
}

static int csv_row(report_state *s, fs_output *out, int64_t i) {
  const fs_sweep_cell *c = &s->r->cells[i];
  const fs_sweep_grid *g = s->g;
  const fs_algorithm_spec *spec = &g->algorithms[c->algorithm];
  char size[32], number[48];
  int failed = fs_output_printf(out, "%s,", fs_collective_name(spec->generator->collective)) < 0;
  failed |= csv_field(out, spec->text) < 0 || fs_output_puts(out, ",") < 0;
  failed |= csv_field(out, c->picked) < 0;
  failed |= fs_output_printf(out, ",%d,%s,", g->ranks[c->ranks],
                             fs_format_size(size, g->sizes[c->size])) < 0;
  failed |= csv_field(out, g->models[c->model].label) < 0 || fs_output_puts(out, ",") < 0;
  failed |= csv_field(out, platform_of(s, c)) < 0;
  int run = c->status == FS_SWEEP_RUN;
  failed |= fs_output_printf(out, ",%s,%s", run ? "run" : "skipped",
                             run ? fs_format_ns(number, c->makespan) : "") < 0;
  for (int k = 0; s->seeds > 1 && k < FS_STAT_COUNT; k++)
    failed |= fs_output_printf(out, ",%s",
                               run ? exact_double(number, sizeof number, c->stats[k]) : "") < 0;
  if (run)
    failed |= fs_output_printf(out, ",%lld", (long long)c->tasks) < 0;
  else
    failed |= fs_output_puts(out, ",") < 0;
  if (s->report->wall) failed |= fs_output_printf(out, ",%.6f", c->wall) < 0;
  failed |= fs_output_printf(out, ",%d,", s->winner[i]) < 0;
  failed |= csv_field(out, run ? "" : c->reason) < 0;
  return failed | (fs_output_puts(out, "\n") < 0);
}

static int write_csv(report_state *s, fs_output *out) {
  int failed = fs_output_puts(out, "collective,algorithm,picked,ranks,size,model,platform,status,"
                                   "makespan_ns") < 0;
  for (int k = 0; s->seeds > 1 && k < FS_STAT_COUNT; k++)
    failed |= fs_output_printf(out, ",%s_ns", stat_names[k]) < 0;
  failed |= fs_output_printf(out, ",tasks%s,winner,reason\n", s->report->wall ? ",wall_s" : "") < 0;
  return failed | each_row(s, csv_row, out);
}

/* ---- JSON ---------------------------------------------------------------- */

static int json_string(fs_output *out, const char *text) {
  int failed = fs_output_puts(out, "\"") < 0;
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    if (*c == '"' || *c == '\\')
      failed |= fs_output_printf(out, "\\%c", *c) < 0;
    else if (*c < 0x20)
      failed |= fs_output_printf(out, "\\u%04x", *c) < 0;
    else
      failed |= fs_output_write(out, c, 1) < 0;
  }
  return (failed | (fs_output_puts(out, "\"") < 0)) ? -1 : 0;
}

static int json_row(report_state *s, fs_output *out, int64_t i) {
  const fs_sweep_cell *c = &s->r->cells[i];
  const fs_sweep_grid *g = s->g;
  const fs_algorithm_spec *spec = &g->algorithms[c->algorithm];
  char size[32], number[48];
  int failed =
      fs_output_printf(out,
                       "%s\n    {\"collective\": \"%s\", \"algorithm\": ", s->rows++ ? "," : "",
                       fs_collective_name(spec->generator->collective)) < 0;
  failed |= json_string(out, spec->text) < 0 || fs_output_puts(out, ", \"picked\": ") < 0;
  failed |= json_string(out, c->picked) < 0;
  failed |= fs_output_printf(out,
                             ", \"ranks\": %d, \"size\": \"%s\", \"size_bytes\": %lld, \"model\": ",
                             g->ranks[c->ranks], fs_format_size(size, g->sizes[c->size]),
                             (long long)g->sizes[c->size]) < 0;
  failed |= json_string(out, g->models[c->model].label) < 0 ||
            fs_output_puts(out, ", \"platform\": ") < 0;
  failed |= json_string(out, platform_of(s, c)) < 0;
  if (c->status == FS_SWEEP_SKIPPED) {
    failed |= fs_output_puts(out, ", \"status\": \"skipped\", \"reason\": ") < 0;
    return failed | (json_string(out, c->reason) < 0) | (fs_output_puts(out, "}") < 0);
  }
  failed |= fs_output_printf(out, ", \"status\": \"run\", \"makespan_ns\": %s",
                             fs_format_ns(number, c->makespan)) < 0;
  if (s->seeds > 1) {
    failed |= fs_output_puts(out, ", \"makespan_statistics_ns\": {") < 0;
    for (int k = 0; k < FS_STAT_COUNT; k++)
      failed |= fs_output_printf(out, "%s\"%s\": %s", k ? ", " : "", stat_names[k],
                                 exact_double(number, sizeof number, c->stats[k])) < 0;
    failed |= fs_output_puts(out, "}") < 0;
  }
  failed |= fs_output_printf(out, ", \"tasks\": %lld", (long long)c->tasks) < 0;
  if (s->report->wall) failed |= fs_output_printf(out, ", \"wall_s\": %.6f", c->wall) < 0;
  return failed | (fs_output_printf(out, ", \"winner\": %s}", s->winner[i] ? "true" : "false") < 0);
}

static int write_json(report_state *s, fs_output *out) {
  char noise[1024] = "";
  if (s->g->noise) fs_noise_spec(s->g->noise, noise, sizeof noise);
  int failed =
      fs_output_printf(out,
                       "{\"seeds\": %lld, \"base_seed\": %llu, \"rank_by\": \"%s\", "
                       "\"check\": %s, \"noise\": ",
                       (long long)s->seeds, (unsigned long long)s->g->base_seed,
                       s->seeds <= 1 ? "makespan" : fs_best_rank_by_name(s->report->rank_by),
                       s->g->check ? "true" : "false") < 0;
  failed |= json_string(out, noise) < 0 || fs_output_puts(out, ", \"cells\": [") < 0;
  failed |= each_row(s, json_row, out);
  return failed | (fs_output_puts(out, "\n]}\n") < 0);
}

int fs_sweep_report_write(fs_output *out, const fs_sweep_grid *g, const fs_sweep_results *r,
                          const fs_sweep_report *report) {
  report_state s = {.g = g,
                    .r = r,
                    .report = report,
                    .seeds = g->seeds > 1 ? g->seeds : 1,
                    .platforms = g->platform_count > 0 ? g->platform_count : 1,
                    .winner = calloc((size_t)(r->count ? r->count : 1), 1)};
  if (!s.winner) return -1;
  for (int64_t i = 0; i < r->count; i++) s.picked |= r->cells[i].picked[0] != 0;
  mark_winners(&s);
  if (strcmp(report->format, "json") == 0)
    write_json(&s, out);
  else if (strcmp(report->format, "csv") == 0)
    write_csv(&s, out);
  else
    write_text(&s, out);
  free(s.winner); /* a failed write is the output's to report, at commit */
  return 0;
}
