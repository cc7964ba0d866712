/* sweep_plot.c: see sweep_plot.h. Plain SVG 1.1 with inline attributes, no
 * script, so browsers and rsvg-convert show the same picture.
 *
 * Layout (exact, for tests): panels of 360 x 370 px, at most 4 to a row,
 * the rank counts of one (platform, model) filling rows of their own, in
 * the order platform, model, rank count; the first panel's plot area has
 * its top left corner at (86, 70) and is 260 x 190 px, and each next
 * column or row moves it by 360 px or 370 px. Size s (s < 1 counts as 1)
 * lies at x = left + 260 (log2 s - lo) / (hi - lo), lo and hi the
 * exponents of the powers of two at or around the grid's smallest and
 * largest size (hi = lo + 1 when they are one). A time v (ns) lies at
 * y = top + 190 (1 - (log10 v - log10 a) / (log10 b - log10 a)), a and b
 * the values 1, 2 or 5 x 10^k at or around the panel's smallest and
 * largest time drawn (b the next such value when a = b); times below 1 ps
 * count as 1 ps. Ticks: sizes at every power of two, labelled at the
 * multiples of 1, 2, 5, 10 or 20 (the smallest giving at most 6 steps);
 * times at every 1-2-5 value when b / a <= 1000, else at decades. A tie
 * for a size's win rings every tied point and names the first algorithm
 * of the grid's order with "+N". Numbers are written by
 * hand (no printf of a double), so the bytes do not depend on the locale. */
#include "study/sweep_plot.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "generators/data_flow.h"

#define MARGIN 20.0
#define HEADER 50.0
#define PANEL_W 360.0
#define PANEL_H 370.0
#define PAD_LEFT 66.0 /* from the panel's edge to its plot area */
#define PAD_TOP 20.0
#define PLOT_W 260.0
#define PLOT_H 190.0
#define MAX_COLUMNS 4
#define LEGEND_W 280.0
#define LEGEND_ROW 18.0
#define WINNER_CHARS 22 /* of a winner's name under the axis (the legend has it whole) */
#define MIN_NS 0.001    /* 1 ps: log scales need a positive time */

/* Okabe-Ito's colour-blind safe palette (its yellow swapped for Tol's olive). */
static const char *const colours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                      "#e69f00", "#56b4e9", "#000000", "#999933"};
#define COLOURS 8
#define SHAPES 6 /* circle, square, triangle, diamond, triangle down, cross */

typedef struct plot {
  FILE *out;
  const fs_sweep_grid *grid;
  const fs_sweep_results *results;
  int statistic, platforms, columns;
  int x_lo, x_hi; /* exponents of two */
  size_t strip;   /* bytes of the common "collective-" prefix left out under the axis */
} plot;

typedef struct nice { /* m x 10^k, m in {1, 2, 5} */
  int m, k;
} nice;

typedef struct panel {
  int32_t ranks, model, platform;
  double left, top; /* of the plot area */
  nice lo, hi;      /* the time axis */
  int any;          /* a cell ran */
} panel;

/* ---- numbers and text ---------------------------------------------------- */

/* v with `places` decimals (0..3), rounded to nearest: "12.35", "-0.50". */
static const char *fixed(char buffer[40], double v, int places) {
  static const int64_t scale[] = {1, 10, 100, 1000};
  double scaled = v * (double)scale[places];
  if (!(fabs(scaled) < 9e15)) scaled = 0; /* not reached for coordinates */
  int64_t n = llround(scaled), whole = llabs(n) / scale[places], part = llabs(n) % scale[places];
  int at = 0;
  if (n < 0) buffer[at++] = '-';
  at += snprintf(buffer + at, 24, "%lld", (long long)whole);
  if (places) snprintf(buffer + at, (size_t)(40 - at), ".%0*lld", places, (long long)part);
  return buffer;
}

static void escaped(FILE *out, const char *text, size_t limit) {
  size_t n = strlen(text);
  int cut = n > limit;
  if (cut) /* never inside a UTF-8 sequence */
    for (n = limit - 3; n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80; n--) {}
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)text[i];
    switch (c) {
      case '&': fputs("&amp;", out); break;
      case '<': fputs("&lt;", out); break;
      case '>': fputs("&gt;", out); break;
      case '"': fputs("&quot;", out); break;
      case '\'': fputs("&apos;", out); break;
      default: fputc(c < 0x20 && c != '\t' && c != '\n' ? '?' : c, out); /* XML 1.0 */
    }
  }
  if (cut) fputs("...", out);
}

static double nice_value(nice v) { return v.m * pow(10.0, v.k); }
static nice nice_next(nice v) {
  return v.m == 5 ? (nice){1, v.k + 1} : (nice){v.m == 1 ? 2 : 5, v.k};
}
static nice nice_previous(nice v) {
  return v.m == 1 ? (nice){5, v.k - 1} : (nice){v.m == 5 ? 2 : 1, v.k};
}

/* The largest 1-2-5 value at most v (v > 0). */
static nice nice_floor(double v) {
  nice n = {1, (int)floor(log10(v))};
  while (nice_value(n) > v) n = nice_previous(n);
  while (nice_value(nice_next(n)) <= v) n = nice_next(n);
  return n;
}
static nice nice_ceil(double v) {
  nice n = nice_floor(v);
  return nice_value(n) < v ? nice_next(n) : n;
}

/* "500ns", "2us", "10ms", "1s" (the unit by the decade, never a fraction). */
static void time_label(FILE *out, nice v) {
  static const char *const units[] = {"ps", "ns", "us", "ms", "s"};
  int u = v.k >= 9 ? 4 : v.k >= 6 ? 3 : v.k >= 3 ? 2 : v.k >= 0 ? 1 : 0;
  int64_t n = v.m;
  for (int i = 0; i < v.k - (u - 1) * 3; i++) n *= 10;
  fprintf(out, "%lld%s", (long long)n, units[u]);
}

/* ---- cells and scales ----------------------------------------------------- */

static const fs_sweep_cell *cell_at(const plot *p, int32_t a, int32_t r, int32_t s, int32_t m,
                                    int32_t pl) {
  const fs_sweep_grid *g = p->grid;
  int64_t i =
      ((((int64_t)a * g->rank_count + r) * g->size_count + s) * g->model_count + m) * p->platforms +
      pl;
  return i < p->results->count ? &p->results->cells[i] : NULL;
}

static int ran(const fs_sweep_cell *c) { return c && c->status == FS_SWEEP_RUN; }

static double clamp_ns(double v) { return v > MIN_NS ? v : MIN_NS; }
/* The value drawn: the statistic, or the makespan of a single run. */
static double value_of(const plot *p, const fs_sweep_cell *c) {
  if (p->grid->seeds <= 1) return clamp_ns((double)c->makespan / (double)FS_NS);
  return clamp_ns(c->stats[p->statistic]);
}
static int with_bars(const plot *p) { return p->grid->seeds > 1; }

static int floor_log2(int64_t v) {
  int e = 0;
  while (v > 1) v >>= 1, e++;
  return e;
}
static int ceil_log2(int64_t v) {
  int e = floor_log2(v);
  return (int64_t)1 << e < v ? e + 1 : e;
}

static void plan_sizes(plot *p) {
  int64_t lo = INT64_MAX, hi = 1;
  for (int s = 0; s < p->grid->size_count; s++) {
    int64_t v = p->grid->sizes[s] < 1 ? 1 : p->grid->sizes[s];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  p->x_lo = floor_log2(lo);
  p->x_hi = ceil_log2(hi);
  if (p->x_hi == p->x_lo) p->x_hi++;
}

static double x_of(const plot *p, const panel *q, int64_t size) {
  double e = log2((double)(size < 1 ? 1 : size));
  return q->left + PLOT_W * (e - p->x_lo) / (p->x_hi - p->x_lo);
}
static double y_of(const panel *q, double ns) {
  double a = log10(nice_value(q->lo)), b = log10(nice_value(q->hi));
  return q->top + PLOT_H * (1 - (log10(clamp_ns(ns)) - a) / (b - a));
}

/* The time axis of a panel: every value drawn (with the bars) inside. */
static void plan_times(const plot *p, panel *q) {
  double lo = INFINITY, hi = 0;
  for (int32_t a = 0; a < p->grid->algorithm_count; a++)
    for (int32_t s = 0; s < p->grid->size_count; s++) {
      const fs_sweep_cell *c = cell_at(p, a, q->ranks, s, q->model, q->platform);
      if (!ran(c)) continue;
      double v[3] = {value_of(p, c), value_of(p, c), value_of(p, c)};
      if (with_bars(p))
        v[1] = clamp_ns(c->stats[FS_STAT_P25]), v[2] = clamp_ns(c->stats[FS_STAT_P75]);
      for (int i = 0; i < 3; i++) {
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
      }
      q->any = 1;
    }
  if (!q->any) lo = hi = 1;
  q->lo = nice_floor(lo);
  q->hi = nice_ceil(hi);
  if (q->hi.m == q->lo.m && q->hi.k == q->lo.k) q->hi = nice_next(q->hi);
}

/* fprintf for SVG: %N a double with 2 decimals (locale-free), %s, %d. */
static void svg(FILE *out, const char *format, ...) {
  va_list args;
  va_start(args, format);
  char buffer[40];
  for (const char *f = format; *f; f++) {
    if (*f != '%') {
      fputc(*f, out);
      continue;
    }
    switch (*++f) {
      case 'N': fputs(fixed(buffer, va_arg(args, double), 2), out); break;
      case 's': fputs(va_arg(args, const char *), out); break;
      case 'd': fprintf(out, "%d", va_arg(args, int)); break;
      default: fputc(*f, out); /* "%%" */
    }
  }
  va_end(args);
}

/* ---- marks ---------------------------------------------------------------- */

/* Algorithm a's marker at (x, y): colour a mod 8, shape (a + 5 (a / 8))
 * mod 6, so the first 24 algorithms differ in colour or shape. */
static void marker(FILE *out, int32_t a, double x, double y) {
  const char *c = colours[a % COLOURS];
  double r = 3.6, t = 4.4; /* circle and square; triangles and diamond */
  switch ((a % COLOURS + 5 * (a / COLOURS)) % SHAPES) {
    case 0: svg(out, "<circle cx=\"%N\" cy=\"%N\" r=\"%N\" fill=\"%s\"/>", x, y, r, c); break;
    case 1:
      svg(out, "<rect x=\"%N\" y=\"%N\" width=\"%N\" height=\"%N\" fill=\"%s\"/>", x - r, y - r,
          2 * r, 2 * r, c);
      break;
    case 2:
      svg(out, "<path d=\"M%N %NL%N %NL%N %NZ\" fill=\"%s\"/>", x, y - t, x + t, y + 0.8 * t, x - t,
          y + 0.8 * t, c);
      break;
    case 3:
      svg(out, "<path d=\"M%N %NL%N %NL%N %NL%N %NZ\" fill=\"%s\"/>", x, y - t, x + t, y, x, y + t,
          x - t, y, c);
      break;
    case 4:
      svg(out, "<path d=\"M%N %NL%N %NL%N %NZ\" fill=\"%s\"/>", x, y + t, x + t, y - 0.8 * t, x - t,
          y - 0.8 * t, c);
      break;
    default:
      svg(out, "<path d=\"M%N %NL%N %NM%N %NL%N %N\" stroke=\"%s\" stroke-width=\"2\"/>", x - r,
          y - r, x + r, y + r, x - r, y + r, x + r, y - r, c);
  }
}

/* Algorithm a's line: solid for the first 8, then dashed, then dotted, so
 * two algorithms of one colour differ in their lines too. */
static const char *dashes(int32_t a) {
  static const char *const styles[] = {"", " stroke-dasharray=\"6,3\"",
                                       " stroke-dasharray=\"2,2\""};
  return styles[(a / COLOURS) % 3];
}

/* "allreduce-ring, 64 ranks, 1KiB, hockney: 1234.5 ns" (+ the pick, the bar). */
static void tooltip(const plot *p, const panel *q, int32_t a, int32_t s, const fs_sweep_cell *c) {
  FILE *out = p->out;
  char size[32], ns[40];
  fputs("<title>", out);
  escaped(out, p->grid->algorithms[a].text, SIZE_MAX);
  if (c->picked[0]) fputs(" (", out), escaped(out, c->picked, SIZE_MAX), fputs(")", out);
  fprintf(out, ", %d ranks, %s, ", (int)p->grid->ranks[q->ranks],
          fs_format_size(size, p->grid->sizes[s]));
  escaped(out, p->grid->models[q->model].label, SIZE_MAX);
  if (p->grid->platform_count > 0)
    fputs(", ", out), escaped(out, p->grid->platforms[q->platform].label, SIZE_MAX);
  if (!with_bars(p)) {
    fprintf(out, ": %s ns</title>", fs_format_ns(ns, c->makespan));
    return;
  }
  fprintf(out, ": %s ns", fixed(ns, c->stats[p->statistic], 3));
  fprintf(out, " (p25 %s", fixed(ns, c->stats[FS_STAT_P25], 3));
  fprintf(out, ", p75 %s ns)</title>", fixed(ns, c->stats[FS_STAT_P75], 3));
}

/* Algorithm a in panel q: its line (broken at skipped cells), bars, points. */
static void series(const plot *p, const panel *q, int32_t a) {
  FILE *out = p->out;
  int drawn = 0, previous = 0;
  for (int32_t s = 0; s < p->grid->size_count; s++) {
    const fs_sweep_cell *c = cell_at(p, a, q->ranks, s, q->model, q->platform);
    if (!ran(c)) {
      previous = 0;
      continue;
    }
    if (!drawn++)
      svg(out, "<path class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s d=\"",
          colours[a % COLOURS], dashes(a));
    svg(out, "%s%N %N", previous ? "L" : "M", x_of(p, q, p->grid->sizes[s]),
        y_of(q, value_of(p, c)));
    previous = 1;
  }
  if (!drawn) return;
  fputs("\"/>\n", out);
  for (int32_t s = 0; s < p->grid->size_count; s++) {
    const fs_sweep_cell *c = cell_at(p, a, q->ranks, s, q->model, q->platform);
    if (!ran(c)) continue;
    double x = x_of(p, q, p->grid->sizes[s]);
    if (with_bars(p)) {
      double y1 = y_of(q, c->stats[FS_STAT_P25]), y2 = y_of(q, c->stats[FS_STAT_P75]);
      svg(out, "<path class=\"bar\" stroke=\"%s\" d=\"M%N %NV%NM%N %NH%NM%N %NH%N\"/>\n",
          colours[a % COLOURS], x, y1, y2, x - 3, y1, x + 3, x - 3, y2, x + 3);
    }
    fputs("<g class=\"point\">", out);
    tooltip(p, q, a, s, c);
    marker(out, a, x, y_of(q, value_of(p, c)));
    fputs("</g>\n", out);
  }
}

/* Each size's winner (the least value; every tie ringed) and its name under
 * the axis, rotated, in its colour ("ring +2": two others tie with it). */
static void winners(const plot *p, const panel *q) {
  FILE *out = p->out;
  double bottom = q->top + PLOT_H;
  for (int32_t s = 0; s < p->grid->size_count; s++) {
    int32_t first = -1, ties = 0;
    double best = INFINITY;
    for (int32_t a = 0; a < p->grid->algorithm_count; a++) {
      const fs_sweep_cell *c = cell_at(p, a, q->ranks, s, q->model, q->platform);
      if (ran(c) && value_of(p, c) < best) best = value_of(p, c), first = a;
    }
    if (first < 0) continue;
    double x = x_of(p, q, p->grid->sizes[s]);
    for (int32_t a = first; a < p->grid->algorithm_count; a++) {
      const fs_sweep_cell *c = cell_at(p, a, q->ranks, s, q->model, q->platform);
      if (!ran(c) || value_of(p, c) != best) continue;
      ties += a != first;
      svg(out,
          "<circle class=\"winner\" cx=\"%N\" cy=\"%N\" r=\"7.5\" fill=\"none\" stroke=\"#000000\" "
          "stroke-width=\"1.5\"/>\n",
          x, y_of(q, best));
    }
    svg(out,
        "<text class=\"winner-name\" transform=\"translate(%N %N) rotate(-90)\" font-size=\"9\" "
        "text-anchor=\"end\" fill=\"%s\">",
        x + 3, bottom + 26, colours[first % COLOURS]);
    escaped(out, p->grid->algorithms[first].text + p->strip, WINNER_CHARS);
    if (ties) fprintf(out, " +%d", (int)ties);
    fputs("</text>\n", out);
  }
}

/* The size axis: a tick at every power of two, a label at the multiples of
 * the smallest step of 1, 2, 5, 10 or 20 giving at most 6 steps (so 1KiB
 * and 1MiB are labelled when the step is 5 or 10). */
static void size_axis(const plot *p, const panel *q) {
  FILE *out = p->out;
  int span = p->x_hi - p->x_lo, step = 20;
  static const int steps[] = {1, 2, 5, 10, 20};
  for (int i = 4; i >= 0; i--)
    if (span <= 6 * steps[i]) step = steps[i];
  double bottom = q->top + PLOT_H;
  for (int e = p->x_lo; e <= p->x_hi; e++) {
    double x = q->left + PLOT_W * (e - p->x_lo) / span;
    int labelled = e % step == 0;
    svg(out, "<line x1=\"%N\" y1=\"%N\" x2=\"%N\" y2=\"%N\" stroke=\"#000000\"/>\n", x, bottom, x,
        bottom + (labelled ? 5 : 3));
    if (!labelled) continue;
    char size[32];
    svg(out,
        "<text class=\"size-tick\" x=\"%N\" y=\"%N\" font-size=\"10\" "
        "text-anchor=\"middle\">%s</text>\n",
        x, bottom + 16, fs_format_size(size, (int64_t)1 << e));
  }
}

/* The time axis: 1-2-5 ticks (decades when it spans more than three), with
 * light grid lines across the plot. */
static void time_axis(const plot *p, const panel *q) {
  FILE *out = p->out;
  int decades = nice_value(q->hi) / nice_value(q->lo) > 1000.5;
  for (nice v = q->lo; v.k < q->hi.k || (v.k == q->hi.k && v.m <= q->hi.m); v = nice_next(v)) {
    if (decades && v.m != 1) continue;
    double y = y_of(q, nice_value(v));
    svg(out,
        "<line x1=\"%N\" y1=\"%N\" x2=\"%N\" y2=\"%N\" stroke=\"#dddddd\"/>\n"
        "<text class=\"time-tick\" x=\"%N\" y=\"%N\" font-size=\"10\" text-anchor=\"end\">",
        q->left, y, q->left + PLOT_W, y, q->left - 5, y + 3.5);
    time_label(out, v);
    fputs("</text>\n", out);
  }
  svg(out,
      "<text transform=\"translate(%N %N) rotate(-90)\" font-size=\"11\" "
      "text-anchor=\"middle\">makespan</text>\n"
      "<text x=\"%N\" y=\"%N\" font-size=\"9\" text-anchor=\"end\">winner</text>\n",
      q->left - 52, q->top + PLOT_H / 2, q->left - 5, q->top + PLOT_H + 34);
}

static void panel_title(const plot *p, const panel *q) {
  FILE *out = p->out;
  svg(out, "<text class=\"panel-title\" x=\"%N\" y=\"%N\" font-size=\"12\" text-anchor=\"middle\">",
      q->left + PLOT_W / 2, q->top - 7);
  fprintf(out, "%d ranks", (int)p->grid->ranks[q->ranks]);
  if (p->grid->model_count > 1)
    fputs(", ", out), escaped(out, p->grid->models[q->model].label, SIZE_MAX);
  if (p->grid->platform_count > 1)
    fputs(", ", out), escaped(out, p->grid->platforms[q->platform].label, SIZE_MAX);
  fputs("</text>\n", out);
}

static void draw_panel(const plot *p, panel *q) {
  FILE *out = p->out;
  plan_times(p, q);
  fputs("<g class=\"panel\">\n", out);
  panel_title(p, q);
  if (q->any) time_axis(p, q);
  size_axis(p, q);
  svg(out,
      "<rect x=\"%N\" y=\"%N\" width=\"%N\" height=\"%N\" fill=\"none\" stroke=\"#000000\"/>\n",
      q->left, q->top, PLOT_W, PLOT_H);
  if (!q->any)
    svg(out,
        "<text x=\"%N\" y=\"%N\" font-size=\"11\" text-anchor=\"middle\">every cell "
        "skipped</text>\n",
        q->left + PLOT_W / 2, q->top + PLOT_H / 2);
  for (int32_t a = 0; a < p->grid->algorithm_count; a++) series(p, q, a);
  winners(p, q);
  fputs("</g>\n", out);
}

/* ---- the figure ----------------------------------------------------------- */

static int rows_per_group(const plot *p) {
  return (p->grid->rank_count + p->columns - 1) / p->columns;
}
static double figure_width(const plot *p) {
  double panels = p->columns * PANEL_W;
  return 2 * MARGIN + (panels > LEGEND_W ? panels : LEGEND_W);
}
static int legend_columns(const plot *p) {
  int n = (int)((figure_width(p) - 2 * MARGIN) / LEGEND_W);
  return n < 1 ? 1 : n;
}

static void legend(const plot *p, double top) {
  FILE *out = p->out;
  int columns = legend_columns(p);
  for (int32_t a = 0; a < p->grid->algorithm_count; a++) {
    double x = MARGIN + (a % columns) * LEGEND_W, y = top + (a / columns) * LEGEND_ROW;
    svg(out,
        "<g class=\"legend-entry\"><line x1=\"%N\" y1=\"%N\" x2=\"%N\" y2=\"%N\" stroke=\"%s\" "
        "stroke-width=\"1.5\"%s/>",
        x, y, x + 22, y, colours[a % COLOURS], dashes(a));
    marker(out, a, x + 11, y);
    svg(out, "<text x=\"%N\" y=\"%N\" font-size=\"11\">", x + 30, y + 4);
    escaped(out, p->grid->algorithms[a].text, SIZE_MAX);
    fputs("</text></g>\n", out);
  }
}

static void header(const plot *p, double width, double height) {
  static const char *const names[] = {"min", "p25", "median", "mean", "p75", "p95", "p99", "max"};
  FILE *out = p->out;
  const fs_generator *g = p->grid->algorithms[0].generator;
  int same = g != NULL;
  for (int32_t a = 1; a < p->grid->algorithm_count && same; a++)
    same = p->grid->algorithms[a].generator &&
           p->grid->algorithms[a].generator->collective == g->collective;
  svg(out,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%N\" height=\"%N\" "
      "viewBox=\"0 0 %N %N\" font-family=\"sans-serif\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
      "<text x=\"%N\" y=\"22\" font-size=\"16\" text-anchor=\"middle\">%s%smakespan against "
      "size</text>\n<text x=\"%N\" y=\"40\" font-size=\"11\" text-anchor=\"middle\">",
      width, height, width, height, width / 2, same ? fs_collective_name(g->collective) : "",
      same ? ": " : "", width / 2);
  if (with_bars(p))
    fprintf(out, "%s of %lld seeds, bars p25..p75", names[p->statistic], (long long)p->grid->seeds);
  else
    fputs("one run per cell", out);
  fputs("; the winner of each size ringed and named under the axis; skipped cells left "
        "out</text>\n",
        out);
}

/* The part of every algorithm's name up to its first '-' ("allreduce-"),
 * when they share it: under the axis only the rest is written. */
static size_t common_prefix(const fs_sweep_grid *g) {
  const char *first = g->algorithms[0].text, *dash = strchr(first, '-');
  if (!dash) return 0;
  size_t n = (size_t)(dash - first) + 1;
  for (int32_t a = 0; a < g->algorithm_count; a++)
    if (strncmp(g->algorithms[a].text, first, n) != 0 || !g->algorithms[a].text[n]) return 0;
  return n;
}

static void draw(plot *p) {
  const fs_sweep_grid *g = p->grid;
  int groups = g->model_count * p->platforms, rows = groups * rows_per_group(p);
  double width = figure_width(p), legend_top = HEADER + rows * PANEL_H + 10;
  int legend_rows = (g->algorithm_count + legend_columns(p) - 1) / legend_columns(p);
  header(p, width, legend_top + legend_rows * LEGEND_ROW + 10);
  for (int32_t pl = 0; pl < p->platforms; pl++)
    for (int32_t m = 0; m < g->model_count; m++)
      for (int32_t r = 0; r < g->rank_count; r++) {
        int row = (pl * g->model_count + m) * rows_per_group(p) + r / p->columns;
        panel q = {.ranks = r,
                   .model = m,
                   .platform = pl,
                   .left = MARGIN + (r % p->columns) * PANEL_W + PAD_LEFT,
                   .top = HEADER + row * PANEL_H + PAD_TOP};
        draw_panel(p, &q);
      }
  legend(p, legend_top);
  fputs("</svg>\n", p->out);
}

static int any_ran(const fs_sweep_results *r) {
  for (int64_t i = 0; i < r->count; i++)
    if (r->cells[i].status == FS_SWEEP_RUN) return 1;
  return 0;
}

int fs_sweep_plot_write(FILE *out, const fs_sweep_grid *grid, const fs_sweep_results *results,
                        int statistic, fs_error *err) {
  if (statistic < 0 || statistic >= FS_STAT_STDEV)
    return fs_error_set(err, "sweep plot: statistic %d is not one to rank by (min .. max)",
                        statistic);
  int platforms = grid->platform_count > 0 ? grid->platform_count : 1;
  int64_t cells = (int64_t)grid->algorithm_count * grid->rank_count * grid->size_count *
                  grid->model_count * platforms;
  if (cells <= 0 || results->count != cells)
    return fs_error_set(err, "sweep plot: %lld results for a grid of %lld cells",
                        (long long)results->count, (long long)cells);
  if (!any_ran(results))
    return fs_error_set(err, "sweep plot: nothing to plot (every cell was skipped)");
  plot p = {.out = out,
            .grid = grid,
            .results = results,
            .statistic = statistic,
            .platforms = platforms,
            .columns = grid->rank_count < MAX_COLUMNS ? grid->rank_count : MAX_COLUMNS,
            .strip = common_prefix(grid)};
  plan_sizes(&p);
  draw(&p);
  if (fflush(out) != 0 || ferror(out)) return fs_error_set(err, "sweep plot: cannot write the SVG");
  return 0;
}
