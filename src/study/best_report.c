/* best_report.c: the reports of `fennelsim best` (best.h): one size's
 * ranking or, with --sizes, the decision table (per size the winner, the
 * runner-up and the margin, and what MPICH and Open MPI would run there),
 * as text, JSON or CSV. No wall times: the output is the same on any
 * thread count. */
#include <stdio.h>
#include <string.h>

#include "study/best.h"

static const char *const library_names[FS_BEST_LIBRARIES] = {"MPICH", "Open MPI", "NCCL"};
static const char *const library_keys[FS_BEST_LIBRARIES] = {"mpich", "ompi", "nccl"};

/* text as a JSON string literal, quotes included. */
static void json_string(fs_output *out, const char *text) {
  fs_output_puts(out, "\"");
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    if (*c == '"' || *c == '\\')
      fs_output_printf(out, "\\%c", *c);
    else if (*c < 0x20)
      fs_output_printf(out, "\\u%04x", *c);
    else
      fs_output_write(out, c, 1);
  }
  fs_output_puts(out, "\"");
}

/* text as one CSV field (RFC 4180: quoted when it holds , " CR or LF). */
static void csv_field(fs_output *out, const char *text) {
  if (!strpbrk(text, ",\"\r\n")) {
    fs_output_puts(out, text);
    return;
  }
  fs_output_puts(out, "\"");
  for (const char *c = text; *c; c++) fs_output_puts(out, *c == '"' ? "\"\"" : (char[2]){*c, 0});
  fs_output_puts(out, "\"");
}

/* A cell's time as text: one run's exact makespan, else the statistic. */
static const char *time_text(char *buffer, const fs_sweep_cell *cell, const fs_best_report *r,
                             int stat) {
  if (r->seeds <= 1) return fs_format_ns(buffer, cell->makespan);
  snprintf(buffer, 32, "%.3f", cell->stats[stat]);
  return buffer;
}

static const int rank_stat[] = {FS_STAT_MEDIAN, FS_STAT_MEAN, FS_STAT_P99};

static double ratio_of(const fs_best_report *r, const fs_best_size *s, const fs_sweep_cell *c) {
  double best = fs_best_value(&s->cells[s->order[0]], r->rank_by, r->seeds);
  double value = fs_best_value(c, r->rank_by, r->seeds);
  return best > 0 ? value / best : 1.0;
}

static int shown_of(const fs_best_report *r, const fs_best_size *s) {
  return r->top == 0 || r->top > s->ranked ? s->ranked : (int)r->top;
}

/* ---- text ------------------------------------------------------------------ */

static void text_header(fs_output *out, const fs_best_report *r) {
  char size[32];
  fs_output_printf(out, "best %s: %d ranks", r->collective, (int)r->ranks);
  if (!r->table) fs_output_printf(out, ", %s", fs_format_size(size, r->sizes[0].size));
  fs_output_printf(out, ", model %s%s {%s}, compute %s\n", r->model,
                   r->model_default ? " (the default; choose with --model)" : "",
                   r->model_parameters, r->compute);
  if (r->platform[0]) fs_output_printf(out, "platform %s\n", r->platform);
  if (r->noise[0] || r->seeds > 1)
    fs_output_printf(out, "noise %s: %lld seed%s from %llu, ranked by the %s\n",
                     r->noise[0] ? r->noise : "none", (long long)r->seeds, r->seeds == 1 ? "" : "s",
                     (unsigned long long)r->seed, fs_best_rank_by_name(r->rank_by));
}

/* "simulated 31 candidates: 1 algorithm and its options, ...; 2 not
 * applicable at 6 ranks": the parts add up to the count. */
static void text_searched(fs_output *out, const fs_best_report *r, const fs_best_size *s) {
  const fs_best_candidates *c = &s->candidates;
  fs_output_printf(out, "simulated %d candidate%s: %d algorithm%s and option%s of %s", c->searched,
                   c->searched == 1 ? "" : "s", c->variants, c->variants == 1 ? "" : "s",
                   c->variants == 1 ? "" : "s", r->collective);
  if (c->family & FS_FAMILY_GPU)
    fs_output_printf(out, " (family %s: NCCL's on channels 1 to %d x LL, LL128, Simple)",
                     fs_family_name(c->family), (int)c->max_channels);
  if (c->rm_heuristic == FS_BEST_RM_NO_STAGES)
    fs_output_puts(out, " (recursive multiplying: one rank, no stages)");
  if (c->rm_heuristic == FS_BEST_RM_ADDED)
    fs_output_puts(out, c->rm_cheapest ? ", the recursive-multiplying heuristic's schedule"
                                       : " and the recursive-multiplying heuristic's schedule");
  if (c->rm_cheapest)
    fs_output_printf(out,
                     " and the %d cheapest recursive-multiplying schedules under the cost "
                     "model (c = %.4g)%s%s",
                     c->rm_cheapest, c->cost_ratio,
                     c->rm_capped ? " (capped: raise --candidates to search more)"
                                  : " (all of them)",
                     c->rm_heuristic == FS_BEST_RM_AMONG ? "; the heuristic's is one of them" : "");
  if (s->skipped)
    fs_output_printf(out, "; %d not applicable at %d ranks (--format json lists them)", s->skipped,
                     (int)r->ranks);
  fs_output_puts(out, "\n");
}

/* The algorithm column's width: 40, or the longest name shown (NCCL's
 * channels and protocols run longer). */
static int name_width(const fs_best_report *r, const fs_best_size *s) {
  int width = 40;
  for (int i = 0; i < shown_of(r, s); i++) {
    int n = (int)strlen(s->candidates.specs[s->order[i]].text);
    if (n > width) width = n;
  }
  return width;
}

static void text_ranking(fs_output *out, const fs_best_report *r, const fs_best_size *s) {
  char a[32], b[32], c[32];
  int w = name_width(r, s);
  if (r->seeds <= 1)
    fs_output_printf(out, "%-5s %-*s %16s %10s %7s\n", "rank", w, "algorithm", "makespan_ns",
                     "tasks", "ratio");
  else
    fs_output_printf(out, "%-5s %-*s %14s %14s %14s %7s\n", "rank", w, "algorithm", "median_ns",
                     "mean_ns", "p99_ns", "ratio");
  for (int i = 0; i < shown_of(r, s); i++) {
    const fs_sweep_cell *cell = &s->cells[s->order[i]];
    const char *name = s->candidates.specs[s->order[i]].text;
    if (r->seeds <= 1)
      fs_output_printf(out, "%-5d %-*s %16s %10lld %7.3f\n", i + 1, w, name,
                       time_text(a, cell, r, FS_STAT_MEDIAN), (long long)cell->tasks,
                       ratio_of(r, s, cell));
    else
      fs_output_printf(out, "%-5d %-*s %14s %14s %14s %7.3f\n", i + 1, w, name,
                       time_text(a, cell, r, FS_STAT_MEDIAN), time_text(b, cell, r, FS_STAT_MEAN),
                       time_text(c, cell, r, FS_STAT_P99), ratio_of(r, s, cell));
  }
}

/* "MPICH runs allreduce-rd: 3000 ns, 1.250 x the best" or why it cannot. */
static void text_libraries(fs_output *out, const fs_best_report *r, const fs_best_size *s) {
  char t[32];
  for (int l = 0; l < FS_BEST_LIBRARIES; l++) {
    int at = s->candidates.library[l];
    if (at < 0) continue;
    const fs_sweep_cell *cell = &s->cells[at];
    if (cell->status != FS_SWEEP_RUN) {
      fs_output_printf(out, "%s: %s\n", library_names[l], cell->reason);
      continue;
    }
    fs_output_printf(out, "%s runs %s: %s ns", library_names[l], cell->picked,
                     time_text(t, cell, r, rank_stat[r->rank_by]));
    if (s->ranked) fs_output_printf(out, ", %.3f x the best", ratio_of(r, s, cell));
    fs_output_puts(out, "\n");
  }
}

/* One library's cells of the decision table: its pick, time and how much
 * slower than the winner ("+4.10%"); "not generated" (said below the table). */
static void text_table_library(fs_output *out, const fs_best_report *r, const fs_best_size *s,
                               int l, int width) {
  int at = s->candidates.library[l];
  char t[32], slower[32] = "-";
  if (at < 0 || s->cells[at].status != FS_SWEEP_RUN) {
    fs_output_printf(out, "  %-*s %14s %9s", width, at < 0 ? "-" : "(not generated)", "-", "-");
    return;
  }
  const fs_sweep_cell *cell = &s->cells[at];
  if (s->ranked) snprintf(slower, sizeof slower, "%+.2f%%", (ratio_of(r, s, cell) - 1) * 100);
  fs_output_printf(out, "  %-*s %14s %9s", width, cell->picked,
                   time_text(t, cell, r, rank_stat[r->rank_by]), slower);
}

/* The table's name columns: 32, or the longest winner, runner-up or pick. */
static int table_width(const fs_best_report *r) {
  int width = 32;
  for (int i = 0; i < r->size_count; i++) {
    const fs_best_size *s = &r->sizes[i];
    for (int k = 0; k < s->ranked && k < 2; k++) {
      int n = (int)strlen(s->candidates.specs[s->order[k]].text);
      width = n > width ? n : width;
    }
    for (int l = 0; l < FS_BEST_LIBRARIES; l++) {
      int at = s->candidates.library[l], n = at < 0 ? 0 : (int)strlen(s->cells[at].picked);
      width = n > width ? n : width;
    }
  }
  return width;
}

static void text_table(fs_output *out, const fs_best_report *r) {
  char t[32], u[32], size[32];
  int c = table_width(r);
  fs_output_printf(out, "%-9s %-*s %14s  %-*s %14s %9s", "size", c, "winner", "time_ns", c,
                   "runner-up", "time_ns", "margin");
  for (int l = 0; l < FS_BEST_LIBRARIES; l++)
    if (fs_best_library_shown(r->family, l))
      fs_output_printf(out, "  %-*s %14s %9s", c, library_names[l], "time_ns", "slower");
  fs_output_puts(out, "\n");
  for (int i = 0; i < r->size_count; i++) {
    const fs_best_size *s = &r->sizes[i];
    fs_output_printf(out, "%-9s", fs_format_size(size, s->size));
    if (!s->ranked) {
      fs_output_printf(out, " %-*s %14s  %-*s %14s %9s", c, "(none applicable)", "-", c, "-", "-",
                       "-");
    } else {
      const fs_sweep_cell *w = &s->cells[s->order[0]];
      fs_output_printf(out, " %-*s %14s", c, s->candidates.specs[s->order[0]].text,
                       time_text(t, w, r, rank_stat[r->rank_by]));
      if (s->ranked > 1) {
        const fs_sweep_cell *second = &s->cells[s->order[1]];
        char margin[32];
        snprintf(margin, sizeof margin, "%+.2f%%", (ratio_of(r, s, second) - 1) * 100);
        fs_output_printf(out, "  %-*s %14s %9s", c, s->candidates.specs[s->order[1]].text,
                         time_text(u, second, r, rank_stat[r->rank_by]), margin);
      } else {
        fs_output_printf(out, "  %-*s %14s %9s", c, "-", "-", "-");
      }
    }
    for (int l = 0; l < FS_BEST_LIBRARIES; l++)
      if (fs_best_library_shown(r->family, l)) text_table_library(out, r, s, l, c);
    fs_output_puts(out, "\n");
  }
}

/* Below the table: what each size simulated, and the libraries' picks that
 * fennelsim does not generate. */
static void text_table_notes(fs_output *out, const fs_best_report *r) {
  char size[32];
  for (int i = 0; i < r->size_count; i++) {
    const fs_best_size *s = &r->sizes[i];
    fs_output_printf(out, "%s: ", fs_format_size(size, s->size));
    text_searched(out, r, s);
    for (int l = 0; l < FS_BEST_LIBRARIES; l++) {
      int at = s->candidates.library[l];
      if (at >= 0 && s->cells[at].status != FS_SWEEP_RUN)
        fs_output_printf(out, "%s: %s: %s\n", fs_format_size(size, s->size), library_names[l],
                         s->cells[at].reason);
    }
  }
}

static void write_text(fs_output *out, const fs_best_report *r) {
  text_header(out, r);
  if (r->table) {
    text_table(out, r);
    text_table_notes(out, r);
    return;
  }
  const fs_best_size *s = &r->sizes[0];
  text_searched(out, r, s);
  text_ranking(out, r, s);
  text_libraries(out, r, s);
}

/* ---- JSON ------------------------------------------------------------------ */

/* "time_ns": the ranked value (one run: the exact makespan). */
static void json_time(fs_output *out, const fs_best_report *r, const fs_sweep_cell *cell) {
  char t[32];
  fs_output_printf(out, "%s", time_text(t, cell, r, rank_stat[r->rank_by]));
}

static void json_pick(fs_output *out, const fs_best_report *r, const fs_best_size *s, int at) {
  if (at < 0) {
    fs_output_puts(out, "null");
    return;
  }
  fs_output_puts(out, "{\"algorithm\": ");
  json_string(out, s->candidates.specs[at].text);
  fs_output_puts(out, ", \"time_ns\": ");
  json_time(out, r, &s->cells[at]);
  fs_output_printf(out, ", \"ratio\": %.6f}", ratio_of(r, s, &s->cells[at]));
}

static void json_libraries(fs_output *out, const fs_best_report *r, const fs_best_size *s) {
  fs_output_puts(out, ", \"libraries\": [");
  int first = 1;
  for (int l = 0; l < FS_BEST_LIBRARIES; l++) {
    int at = s->candidates.library[l];
    if (at < 0) continue;
    const fs_sweep_cell *cell = &s->cells[at];
    fs_output_printf(out, "%s{\"library\": \"%s\", \"selector\": ", first ? "" : ", ",
                     library_keys[l]);
    first = 0;
    json_string(out, s->candidates.specs[at].text);
    if (cell->status != FS_SWEEP_RUN) {
      fs_output_puts(out, ", \"pick\": null, \"reason\": ");
      json_string(out, cell->reason);
      fs_output_puts(out, "}");
      continue;
    }
    fs_output_puts(out, ", \"pick\": ");
    json_string(out, cell->picked);
    fs_output_puts(out, ", \"time_ns\": ");
    json_time(out, r, cell);
    if (s->ranked) fs_output_printf(out, ", \"ratio\": %.6f", ratio_of(r, s, cell));
    fs_output_puts(out, "}");
  }
  fs_output_puts(out, "]");
}

static void json_entry(fs_output *out, const fs_best_report *r, const fs_best_size *s, int i) {
  char t[32];
  const fs_sweep_cell *cell = &s->cells[s->order[i]];
  fs_output_printf(out, "%s{\"rank\": %d, \"algorithm\": ", i ? ", " : "", i + 1);
  json_string(out, s->candidates.specs[s->order[i]].text);
  fs_output_printf(out, ", \"makespan_ns\": %s", fs_format_ns(t, cell->makespan));
  if (r->seeds > 1)
    fs_output_printf(out,
                     ", \"median_ns\": %.17g, \"mean_ns\": %.17g, \"p99_ns\": %.17g, "
                     "\"stdev_ns\": %.17g",
                     cell->stats[FS_STAT_MEDIAN], cell->stats[FS_STAT_MEAN],
                     cell->stats[FS_STAT_P99], cell->stats[FS_STAT_STDEV]);
  fs_output_printf(out, ", \"tasks\": %lld, \"ratio\": %.6f}", (long long)cell->tasks,
                   ratio_of(r, s, cell));
}

static void json_skipped(fs_output *out, const fs_best_size *s) {
  fs_output_puts(out, ", \"skipped\": [");
  int first = 1;
  for (int i = 0; i < s->candidates.searched; i++) {
    if (s->cells[i].status == FS_SWEEP_RUN) continue;
    fs_output_puts(out, first ? "{\"algorithm\": " : ", {\"algorithm\": ");
    first = 0;
    json_string(out, s->candidates.specs[i].text);
    fs_output_puts(out, ", \"reason\": ");
    json_string(out, s->cells[i].reason);
    fs_output_puts(out, "}");
  }
  fs_output_puts(out, "]");
}

static void json_size(fs_output *out, const fs_best_report *r, const fs_best_size *s) {
  const fs_best_candidates *c = &s->candidates;
  fs_output_printf(out,
                   "{\"size_bytes\": %lld, \"simulated\": %d, \"ran\": %d, \"skipped_count\": %d",
                   (long long)s->size, c->searched, s->ranked, s->skipped);
  if (c->rm_heuristic != FS_BEST_RM_NONE)
    fs_output_printf(out, ", \"cost_ratio\": %.6g, \"rm_cheapest\": %d, \"capped\": %s",
                     c->cost_ratio, c->rm_cheapest, c->rm_capped ? "true" : "false");
  fs_output_puts(out, ", \"winner\": ");
  json_pick(out, r, s, s->ranked ? s->order[0] : -1);
  fs_output_puts(out, ", \"runner_up\": ");
  json_pick(out, r, s, s->ranked > 1 ? s->order[1] : -1);
  if (s->ranked > 1)
    fs_output_printf(out, ", \"margin\": %.6f", ratio_of(r, s, &s->cells[s->order[1]]) - 1);
  else
    fs_output_puts(out, ", \"margin\": null");
  json_libraries(out, r, s);
  fs_output_puts(out, ", \"entries\": [");
  for (int i = 0; i < shown_of(r, s); i++) json_entry(out, r, s, i);
  fs_output_puts(out, "]");
  json_skipped(out, s);
  fs_output_puts(out, "}");
}

static void write_json(fs_output *out, const fs_best_report *r) {
  fs_output_printf(out, "{\"collective\": \"%s\", \"ranks\": %d, \"model\": ", r->collective,
                   (int)r->ranks);
  json_string(out, r->model);
  fs_output_printf(out, ", \"model_parameters\": {%s}, \"compute_model\": ", r->model_parameters);
  json_string(out, r->compute);
  fs_output_puts(out, ", \"platform\": ");
  if (r->platform[0])
    json_string(out, r->platform);
  else
    fs_output_puts(out, "null");
  fs_output_puts(out, ", \"noise\": ");
  if (r->noise[0])
    json_string(out, r->noise);
  else
    fs_output_puts(out, "null");
  fs_output_printf(out,
                   ", \"seeds\": %lld, \"seed\": %llu, \"rank_by\": \"%s\", \"checked\": %s, "
                   "\"family\": \"%s\", ",
                   (long long)r->seeds, (unsigned long long)r->seed,
                   fs_best_rank_by_name(r->rank_by), r->check ? "true" : "false",
                   fs_family_name(r->family));
  if (r->family & FS_FAMILY_GPU)
    fs_output_printf(out, "\"max_channels\": %d, ", (int)r->max_channels);
  fs_output_puts(out, "\"sizes\": [");
  for (int i = 0; i < r->size_count; i++) {
    if (i) fs_output_puts(out, ", ");
    json_size(out, r, &r->sizes[i]);
  }
  fs_output_puts(out, "]}\n");
}

/* ---- CSV ------------------------------------------------------------------- */

#define BEST_CSV_HEADER                                                                   \
  "size_bytes,rank,algorithm,picked,status,time_ns,ratio,tasks,median_ns,mean_ns,p99_ns," \
  "reason,collective,ranks,model,model_parameters,compute_model,platform,noise,seeds,"    \
  "rank_by\n"

/* One row: rank 0 for none (skipped, a library's). */
static void csv_row(fs_output *out, const fs_best_report *r, const fs_best_size *s, int at,
                    int rank) {
  char t[32], parameters[1100];
  const fs_sweep_cell *cell = &s->cells[at];
  int ran = cell->status == FS_SWEEP_RUN;
  fs_output_printf(out, "%lld,", (long long)s->size);
  if (rank) fs_output_printf(out, "%d", rank);
  fs_output_puts(out, ",");
  csv_field(out, s->candidates.specs[at].text);
  fs_output_puts(out, ",");
  csv_field(out, cell->picked);
  fs_output_printf(out, ",%s,", ran ? "run" : "skipped");
  if (ran) {
    fs_output_printf(out, "%s,", time_text(t, cell, r, rank_stat[r->rank_by]));
    fs_output_printf(out, s->ranked ? "%.6f," : ",", ratio_of(r, s, cell));
    fs_output_printf(out, "%lld,%s,", (long long)cell->tasks,
                     time_text(t, cell, r, FS_STAT_MEDIAN));
    fs_output_printf(out, "%s,", time_text(t, cell, r, FS_STAT_MEAN));
    fs_output_printf(out, "%s,", time_text(t, cell, r, FS_STAT_P99));
  } else {
    fs_output_puts(out, ",,,,,,");
  }
  csv_field(out, ran ? "" : cell->reason);
  fs_output_printf(out, ",%s,%d,", r->collective, (int)r->ranks);
  csv_field(out, r->model);
  snprintf(parameters, sizeof parameters, "{%s}", r->model_parameters);
  fs_output_puts(out, ",");
  csv_field(out, parameters);
  fs_output_puts(out, ",");
  csv_field(out, r->compute);
  fs_output_puts(out, ",");
  csv_field(out, r->platform);
  fs_output_puts(out, ",");
  csv_field(out, r->noise);
  fs_output_printf(out, ",%lld,%s\n", (long long)r->seeds, fs_best_rank_by_name(r->rank_by));
}

/* Per size: the ranked candidates (--top), the skipped ones, the libraries. */
static void write_csv(fs_output *out, const fs_best_report *r) {
  fs_output_puts(out, BEST_CSV_HEADER);
  for (int i = 0; i < r->size_count; i++) {
    const fs_best_size *s = &r->sizes[i];
    for (int k = 0; k < shown_of(r, s); k++) csv_row(out, r, s, s->order[k], k + 1);
    for (int k = 0; k < s->candidates.searched; k++)
      if (s->cells[k].status != FS_SWEEP_RUN) csv_row(out, r, s, k, 0);
    for (int l = 0; l < FS_BEST_LIBRARIES; l++)
      if (s->candidates.library[l] >= 0) csv_row(out, r, s, s->candidates.library[l], 0);
  }
}

int fs_best_write(fs_output *out, const fs_best_report *r) {
  if (strcmp(r->format, "json") == 0)
    write_json(out, r);
  else if (strcmp(r->format, "csv") == 0)
    write_csv(out, r);
  else
    write_text(out, r);
  return fs_output_puts(out, "");
}
