/* histogram_svg.c: see histogram_svg.h. Plain SVG 1.1 with inline styles,
 * no script, so any browser or converter shows it. */
#include "study/histogram_svg.h"

#include <stdlib.h>
#include <string.h>

#include "study/statistics.h"

#define WIDTH 800
#define HEIGHT 460
#define LEFT 70.0
#define RIGHT 30.0
#define TOP 80.0
#define BOTTOM 70.0
#define MAX_BINS 40

/* The smallest 1, 2 or 5 x 10^k at least value (>= 1). */
static fs_time nice_width(fs_time value) {
  for (fs_time scale = 1;; scale *= 10) {
    static const int steps[] = {1, 2, 5};
    for (int i = 0; i < 3; i++)
      if (steps[i] * scale >= value) return steps[i] * scale;
    if (scale > INT64_MAX / 100) return value;
  }
}

fs_histogram_bins fs_histogram_plan(fs_time min, fs_time max, int64_t n) {
  int64_t aim = 1;
  while (aim < MAX_BINS && aim * aim < n) aim++;
  fs_time span = max - min, raw;
  if (span > 0)
    raw = span / aim + (span % aim != 0);
  else
    raw = (min < 0 ? -min : min) / 100;
  fs_histogram_bins b = {.width = nice_width(raw < 1 ? 1 : raw)};
  fs_time q = min / b.width;
  if (q * b.width > min) q--; /* floor for negative values */
  b.start = q * b.width;
  b.count = (max - b.start) / b.width + 1;
  return b;
}

typedef struct unit {
  const char *name;
  double ps;
} unit;

static unit unit_for(fs_time max) {
  if (max >= FS_S) return (unit){"s", 1e12};
  if (max >= FS_MS) return (unit){"ms", 1e9};
  if (max >= FS_US) return (unit){"us", 1e6};
  return (unit){"ns", 1e3};
}

typedef struct canvas {
  fs_output *out;
  fs_histogram_bins bins;
  unit u;
  double plot_width, plot_height;
} canvas;

static double x_of(const canvas *c, double ps) {
  return LEFT + (ps - (double)c->bins.start) / ((double)c->bins.width * (double)c->bins.count) *
                    c->plot_width;
}

static void bars(const canvas *c, const int64_t *counts, int64_t highest) {
  fs_output *out = c->out;
  double bar = c->plot_width / (double)c->bins.count;
  for (int64_t i = 0; i < c->bins.count; i++) {
    if (!counts[i]) continue;
    double h = c->plot_height * (double)counts[i] / (double)highest;
    double x = LEFT + bar * (double)i, y = TOP + c->plot_height - h;
    double from = (double)(c->bins.start + i * c->bins.width) / c->u.ps;
    double to = (double)(c->bins.start + (i + 1) * c->bins.width) / c->u.ps;
    fs_output_printf(out,
                     "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                     "fill=\"#4e79a7\" stroke=\"#ffffff\" stroke-width=\"0.5\"><title>[%.6g, "
                     "%.6g) %s: %lld seeds</title></rect>\n",
                     x, y, bar, h, from, to, c->u.name, (long long)counts[i]);
    fs_output_printf(out,
                     "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%d\" "
                     "text-anchor=\"middle\">%lld</text>\n",
                     x + bar / 2, y - 3, bar < 14 ? 7 : 10, (long long)counts[i]);
  }
}

static void axes(const canvas *c, int64_t highest, int64_t seeds) {
  fs_output *out = c->out;
  double bottom = TOP + c->plot_height, right = LEFT + c->plot_width;
  fs_output_printf(out,
                   "<g stroke=\"#000000\" stroke-width=\"1\">\n"
                   "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n"
                   "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n</g>\n",
                   LEFT, bottom, right, bottom, LEFT, TOP, LEFT, bottom);
  int64_t every = c->bins.count / 10 + 1; /* at most about 10 labels */
  for (int64_t i = 0; i <= c->bins.count; i += every) {
    double x = LEFT + c->plot_width * (double)i / (double)c->bins.count;
    double value = (double)(c->bins.start + i * c->bins.width) / c->u.ps;
    fs_output_printf(out,
                     "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000000\"/>\n"
                     "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" "
                     "text-anchor=\"middle\">%.6g</text>\n",
                     x, bottom, x, bottom + 5, x, bottom + 18, value);
  }
  fs_output_printf(out,
                   "<text x=\"%.2f\" y=\"%.2f\" font-size=\"13\" text-anchor=\"middle\">makespan "
                   "(%s)</text>\n",
                   LEFT + c->plot_width / 2, bottom + 45, c->u.name);
  for (int k = 0; k <= 2; k++) {
    int64_t value = highest * k / 2;
    if (k == 1 && (value == 0 || value == highest)) continue;
    double y = bottom - c->plot_height * (double)value / (double)highest;
    fs_output_printf(out,
                     "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000000\"/>\n"
                     "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" "
                     "text-anchor=\"end\">%lld</text>\n",
                     LEFT - 5, y, LEFT, y, LEFT - 8, y + 4, (long long)value);
  }
  fs_output_printf(out,
                   "<text transform=\"translate(18 %.2f) rotate(-90)\" font-size=\"13\" "
                   "text-anchor=\"middle\">seeds (of %lld)</text>\n",
                   TOP + c->plot_height / 2, (long long)seeds);
}

/* The median, p95 and p99 as dashed lines, named in a legend at the top right. */
static void marks(const canvas *c, const fs_summary *s) {
  const struct {
    const char *name, *color;
    double ns;
  } mark[] = {{"median", "#e15759", s->median},
              {"p95", "#f28e2b", s->p95},
              {"p99", "#59a14f", s->p99}};
  for (int i = 0; i < 3; i++) {
    double x = x_of(c, mark[i].ns * 1000.0), y = 40.0 + 13.0 * i;
    fs_output_printf(c->out,
                     "<line class=\"mark\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
                     "stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\"/>\n",
                     x, TOP, x, TOP + c->plot_height, mark[i].color);
    fs_output_printf(c->out,
                     "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" text-anchor=\"end\" fill=\"%s\">"
                     "%s %.6g %s</text>\n",
                     LEFT + c->plot_width, y, mark[i].color, mark[i].name,
                     mark[i].ns * 1000.0 / c->u.ps, c->u.name);
  }
}

int fs_histogram_svg(const fs_study_results *r, fs_output *out, fs_error *err) {
  fs_summary s;
  if (r->count < 1) {
    fs_output_abort(out);
    return fs_error_set(err, "histogram: no seeds were run");
  }
  fs_time min = r->makespan[0], max = r->makespan[0];
  for (int64_t j = 1; j < r->count; j++) {
    if (r->makespan[j] < min) min = r->makespan[j];
    if (r->makespan[j] > max) max = r->makespan[j];
  }
  canvas c = {.out = out,
              .bins = fs_histogram_plan(min, max, r->count),
              .u = unit_for(max),
              .plot_width = WIDTH - LEFT - RIGHT,
              .plot_height = HEIGHT - TOP - BOTTOM};
  int64_t *counts = calloc((size_t)c.bins.count, sizeof *counts), highest = 1;
  if (!counts || fs_summarize(r->makespan, r->count, 1, &s)) {
    free(counts);
    fs_output_abort(out);
    return fs_error_set(err, "histogram: out of memory");
  }
  for (int64_t j = 0; j < r->count; j++) counts[(r->makespan[j] - c.bins.start) / c.bins.width]++;
  for (int64_t i = 0; i < c.bins.count; i++)
    if (counts[i] > highest) highest = counts[i];
  fs_output_printf(out,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
                   "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
                   "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
                   "<text x=\"%d\" y=\"22\" font-size=\"16\" text-anchor=\"middle\">Makespan "
                   "distribution, %lld seeds (%lld bins of %.6g %s)</text>\n",
                   WIDTH, HEIGHT, WIDTH, HEIGHT, WIDTH / 2, (long long)r->count,
                   (long long)c.bins.count, (double)c.bins.width / c.u.ps, c.u.name);
  bars(&c, counts, highest);
  axes(&c, highest, r->count);
  marks(&c, &s);
  fs_output_puts(out, "</svg>\n");
  free(counts);
  return fs_output_commit(out, err);
}
