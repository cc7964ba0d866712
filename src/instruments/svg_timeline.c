/* svg_timeline.c: see svg_timeline.h. Plain SVG 1.1, styled by one CSS
 * block, no script, so browsers and rsvg-convert show the same picture. */
#include "instruments/svg_timeline.h"

#include <stdio.h>
#include <string.h>

#define LEFT 90.0
#define PLOT_WIDTH 1000.0
#define RIGHT 30.0
#define TOP 64.0
#define AREA 720.0 /* lanes share this height, within the bounds below */
#define MIN_LANE 14.0
#define MAX_LANE 40.0
#define TICKS 8 /* at most this many steps on the axis */

enum {
  COMPUTE,
  SLEEP,
  PUT,
  GET,
  SEND,
  RECV,   /* boxes */
  FINISH, /* a mark */
  PUT_ARROW,
  GET_REQUEST,
  GET_DATA,
  MESSAGE,
  RATE, /* a flow model's transfer rates */
  ITEMS
};

static const char *const class_name[ITEMS] = {"compute",     "sleep",    "put",     "get",
                                              "send",        "recv",     "finish",  "put-arrow",
                                              "get-request", "get-data", "message", "rate"};

typedef struct unit {
  const char *name;
  fs_time ps;
} unit;

typedef struct canvas {
  const fs_timeline *timeline;
  const fs_program *p;
  fs_output *out;
  int32_t first, last; /* ranks drawn */
  double lane;         /* lane height */
  fs_time makespan, step, axis_end;
  unit u;
  unsigned drawn; /* 1 << item for each item drawn, for the legend */
  int arrows;     /* the pass: boxes first, then the arrows over them */
  const fs_link_load *flows;
  double peak_rate; /* of any transfer, for the rate strips' opacity */
  /* per lane, the label and end of the last box: a run of boxes back to
   * back with the same label is labelled once */
  int32_t last_label[FS_SVG_MAX_LANES];
  fs_time last_end[FS_SVG_MAX_LANES];
} canvas;

/* ---- scale ---------------------------------------------------------------- */

/* The smallest 1, 2 or 5 x 10^k at least value (>= 1): for any value up
 * to the time limit (2^62 ps / TICKS), at most 10^18, so that the axis end
 * (< 2^62 + 10^18) and one step past it stay far below 2^63. */
static fs_time nice_step(fs_time value) {
  for (fs_time scale = 1;; scale *= 10) {
    static const int steps[] = {1, 2, 5};
    for (int i = 0; i < 3; i++)
      if (steps[i] * scale >= value) return steps[i] * scale;
    if (scale > INT64_MAX / 50) return value; /* 5 * 10 * scale would overflow */
  }
}

static unit unit_for(fs_time makespan) {
  if (makespan >= FS_S) return (unit){"s", FS_S};
  if (makespan >= FS_MS) return (unit){"ms", FS_MS};
  if (makespan >= FS_US) return (unit){"us", FS_US};
  return (unit){"ns", FS_NS};
}

/* The latest end of any task that takes time. */
static fs_time latest_end(const fs_timeline *timeline) {
  const fs_program *p = fs_timeline_program(timeline);
  fs_time end = 0, times[4];
  for (int32_t t = 0; t < p->tasks; t++) {
    if (fs_task_kind_of(p, t) < FS_SLEEP) continue;
    fs_timeline_task(timeline, t, times);
    if (times[2] > end) end = times[2];
    if (times[3] > end) end = times[3];
  }
  return end;
}

static void plan_scale(canvas *c) {
  c->makespan = fs_time_clamp(latest_end(c->timeline)); /* engine times never pass the limit */
  c->step = c->makespan ? nice_step(c->makespan / TICKS + (c->makespan % TICKS != 0)) : FS_NS;
  c->axis_end = c->makespan ? (c->makespan + c->step - 1) / c->step * c->step : c->step;
  c->u = unit_for(c->makespan);
  int32_t lanes = c->last - c->first + 1;
  double h = AREA / lanes;
  c->lane = h < MIN_LANE ? MIN_LANE : h > MAX_LANE ? MAX_LANE : h;
}

static double x_of(const canvas *c, fs_time t) {
  return LEFT + PLOT_WIDTH * (double)t / (double)c->axis_end;
}
static double x_of_half(const canvas *c, fs_time a, fs_time b) { /* halfway between */
  return LEFT + PLOT_WIDTH * ((double)a + (double)b) / 2 / (double)c->axis_end;
}
static double plot_bottom(const canvas *c) { return TOP + c->lane * (c->last - c->first + 1); }
static int visible(const canvas *c, int32_t rank) { return rank >= c->first && rank <= c->last; }
/* Where an arrow between rank and other touches rank's lane: the edge of
 * its boxes that faces the other lane (the centre when both are the same).
 * Ranks outside the range drawn get the lanes they would have. */
static double y_end(const canvas *c, int32_t rank, int32_t other) {
  double top = TOP + c->lane * (rank - c->first);
  return top + c->lane * (other > rank ? 0.8 : other < rank ? 0.2 : 0.5);
}

/* ---- text ----------------------------------------------------------------- */

static void escaped(fs_output *out, const char *text) {
  for (const unsigned char *s = (const unsigned char *)text; *s; s++) {
    switch (*s) {
      case '&': fs_output_puts(out, "&amp;"); break;
      case '<': fs_output_puts(out, "&lt;"); break;
      case '>': fs_output_puts(out, "&gt;"); break;
      case '"': fs_output_puts(out, "&quot;"); break;
      case '\'': fs_output_puts(out, "&apos;"); break;
      default: /* XML 1.0 allows no other control characters */
        fs_output_write(out, *s < 0x20 && *s != '\t' && *s != '\n' ? "?" : (const char *)s, 1);
    }
  }
}

/* <line class="NAME SUFFIX" .../>: arrows, marks, the grid and the axis. */
static void line(fs_output *out, const char *name, const char *suffix, double x1, double y1,
                 double x2, double y2) {
  fs_output_printf(out, "<line class=\"%s%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
                   name, suffix, x1, y1, x2, y2);
}

/* "t12 put round2, rank 0 to 1: 0-1000 ns, lands 1000 ns" */
static void tooltip(const canvas *c, int32_t t, fs_time from, fs_time to, fs_time lands) {
  const fs_program *p = c->p;
  char name[24], a[32], b[32];
  const char *label = fs_task_label(p, t);
  fs_output_puts(c->out, "<title>");
  escaped(c->out, fs_task_name(p, t, name));
  fs_output_printf(c->out, " %s", fs_task_kind_name(fs_task_kind_of(p, t)));
  if (label) fs_output_puts(c->out, " "), escaped(c->out, label);
  fs_output_printf(c->out, ", rank %d", fs_task_rank(p, t));
  int incoming = fs_task_kind_of(p, t) == FS_GET || fs_task_kind_of(p, t) == FS_RECV;
  if (fs_task_kind_of(p, t) >= FS_PUT && fs_task_peer(p, t) >= 0)
    fs_output_printf(c->out, " %s %d", incoming ? "from" : "to", fs_task_peer(p, t));
  fs_output_printf(c->out, ": %s-%s ns", fs_format_ns(a, from), fs_format_ns(b, to));
  if (lands >= 0) fs_output_printf(c->out, ", lands %s ns", fs_format_ns(a, lands));
  fs_output_puts(c->out, "</title>");
}

/* ---- tasks ---------------------------------------------------------------- */

static void box(canvas *c, int item, int32_t t, int32_t rank, fs_time from, fs_time to,
                fs_time lands) {
  if (c->arrows || to <= from || !visible(c, rank)) return;
  const fs_program *p = c->p;
  double x = x_of(c, from), width = x_of(c, to) - x;
  double y = TOP + c->lane * (rank - c->first) + 0.2 * c->lane, height = 0.6 * c->lane;
  int concurrent = (fs_task_flags(p, t) & FS_CONCURRENT) != 0;
  fs_output_printf(c->out,
                   "<rect class=\"%s%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">",
                   class_name[item], concurrent ? " concurrent" : "", x, y, width, height);
  tooltip(c, t, from, to, lands);
  fs_output_puts(c->out, "</rect>\n");
  c->drawn |= 1u << item;
  int32_t lane = rank - c->first, index = item != RECV ? fs_task_label_index(p, t) : -1;
  int repeated = index == c->last_label[lane] && from == c->last_end[lane];
  c->last_label[lane] = index, c->last_end[lane] = to;
  const char *label = index >= 0 && !repeated ? fs_task_label(p, t) : NULL;
  double font = height - 2 < 11 ? height - 2 : 11;
  if (!label || font < 7 || 0.6 * font * (double)strlen(label) + 4 > width) return;
  fs_output_printf(c->out, "<text class=\"label\" x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\">",
                   x + width / 2, y + height / 2 + 0.35 * font, font);
  escaped(c->out, label);
  fs_output_puts(c->out, "</text>\n");
}

/* An arrow with one end at a rank not drawn is cut at the edge of the
 * lanes, keeping its slope; one going out has no head. */
static void arrow(canvas *c, int item, int32_t from_rank, double from_x, int32_t to_rank,
                  double to_x) {
  int from_in = visible(c, from_rank), to_in = visible(c, to_rank);
  if (!c->arrows || (!from_in && !to_in)) return;
  double y1 = y_end(c, from_rank, to_rank), y2 = y_end(c, to_rank, from_rank);
  if (!from_in || !to_in) {
    double edge = (from_in ? to_rank : from_rank) < c->first ? TOP : plot_bottom(c);
    double cut = (edge - y1) / (y2 - y1); /* where the line crosses the edge */
    if (from_in)
      to_x = from_x + cut * (to_x - from_x), y2 = edge;
    else
      from_x = from_x + cut * (to_x - from_x), y1 = edge;
  }
  line(c->out, class_name[item], from_in ? to_in ? "" : " leaves" : " enters", from_x, y1, to_x,
       y2);
  c->drawn |= 1u << item;
}

/* Where a transfer's arrow leaves: the end of the CPU box, or its start
 * when the box ends at the arrival (the sender held until the data lands). */
static fs_time departure(const fs_time times[4], fs_time arrival) {
  return times[2] == arrival ? times[1] : times[2];
}

static void one_sided(canvas *c, int32_t t, const fs_time times[4]) {
  const fs_program *p = c->p;
  int get = fs_task_kind_of(p, t) == FS_GET;
  fs_time release = (fs_task_flags(p, t) & FS_BLOCKING) ? times[3] : times[2];
  box(c, get ? GET : PUT, t, fs_task_rank(p, t), times[1], release, times[3]);
  if (times[3] < 0) return;
  fs_time leaves = departure(times, times[3]);
  if (!get) {
    arrow(c, PUT_ARROW, fs_task_rank(p, t), x_of(c, leaves), fs_task_peer(p, t), x_of(c, times[3]));
    return;
  }
  double turn = x_of_half(c, leaves, times[3]);
  arrow(c, GET_REQUEST, fs_task_rank(p, t), x_of(c, leaves), fs_task_peer(p, t), turn);
  arrow(c, GET_DATA, fs_task_peer(p, t), turn, fs_task_rank(p, t), x_of(c, times[3]));
}

static void two_sided(canvas *c, int32_t t, const fs_time times[4]) {
  const fs_program *p = c->p;
  fs_time other[4] = {-1, -1, -1, -1};
  int32_t partner = fs_timeline_partner(c->timeline, t, NULL);
  if (partner >= 0) fs_timeline_task(c->timeline, partner, other);
  fs_time from, to;
  if (fs_task_kind_of(p, t) == FS_RECV) {
    if (fs_timeline_recv_occupation(c->timeline, t, &from, &to) == 0)
      box(c, RECV, t, fs_task_rank(p, t), from, to, -1);
    return;
  }
  /* it lands at the end of its receipt: the recv's completion, or before
   * the recv was posted for a message taken early */
  fs_time lands = other[3];
  if (other[3] >= 0 && fs_timeline_recv_occupation(c->timeline, partner, &from, &to) == 0)
    lands = to;
  box(c, SEND, t, fs_task_rank(p, t), times[1], times[2], lands);
  if (lands < 0) return;
  arrow(c, MESSAGE, fs_task_rank(p, t), x_of(c, departure(times, lands)), fs_task_rank(p, partner),
        x_of(c, lands));
}

static void tasks(canvas *c) {
  const fs_program *p = c->p;
  fs_time times[4];
  for (int32_t t = 0; t < p->tasks; t++) {
    fs_timeline_task(c->timeline, t, times);
    if (times[1] < 0) continue; /* never started */
    switch (fs_task_kind_of(p, t)) {
      case FS_COMPUTE: box(c, COMPUTE, t, fs_task_rank(p, t), times[1], times[3], -1); break;
      case FS_SLEEP: box(c, SLEEP, t, fs_task_rank(p, t), times[1], times[3], -1); break;
      case FS_PUT:
      case FS_GET: one_sided(c, t, times); break;
      case FS_SEND:
      case FS_RECV: two_sided(c, t, times); break;
      default: break; /* start, proxy: no time */
    }
  }
}

/* ---- rates (a flow model's) ------------------------------------------------ */

static int is_transfer(const fs_program *p, int32_t t) {
  return fs_task_kind_of(p, t) == FS_PUT || fs_task_kind_of(p, t) == FS_GET ||
         fs_task_kind_of(p, t) == FS_SEND;
}

/* A piece of a strip: [from, to] of transfer t at `rate` B/s, the mean
 * of several segments when `mean`. */
static void rate_rect(canvas *c, int32_t t, fs_time from, fs_time to, double rate, int mean) {
  char name[24], a[32], b[32];
  double x = x_of(c, from);
  fs_output_printf(c->out,
                   "<rect class=\"rate\" fill=\"#1f4e79\" fill-opacity=\"%.2f\" x=\"%.2f\" "
                   "y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>",
                   0.15 + 0.85 * rate / c->peak_rate, x,
                   TOP + c->lane * (fs_task_rank(c->p, t) - c->first) + 0.82 * c->lane,
                   x_of(c, to) - x, 0.14 * c->lane);
  escaped(c->out, fs_task_name(c->p, t, name));
  fs_output_printf(c->out, " %s: %.6g B/s%s, %s-%s ns</title></rect>\n",
                   fs_task_kind_name(fs_task_kind_of(c->p, t)), rate, mean ? " (mean)" : "",
                   fs_format_ns(a, from), fs_format_ns(b, to));
  c->drawn |= 1u << RATE;
}

/* One transfer's strip: a rect per segment of non-zero rate; segments
 * narrower than a pixel are drawn together, at their time-weighted mean
 * rate, so that a transfer never has more rects than pixels. */
static void rate_strip(canvas *c, int32_t t) {
  const fs_flow_change *ch;
  int64_t count = fs_link_load_rates(c->flows, t, &ch);
  fs_time from = -1, to = -1;
  double bytes = 0; /* rate x ps since from */
  int pieces = 0;
  for (int64_t i = 0; i + 1 < count; i++) {
    fs_time a = ch[i].t, b = ch[i + 1].t;
    if (b <= a) continue;
    if (ch[i].rate <= 0) { /* a gap ends the piece */
      if (from >= 0) rate_rect(c, t, from, to, bytes / (double)(to - from), pieces > 1);
      from = -1;
      continue;
    }
    if (from < 0) from = a, bytes = 0, pieces = 0;
    bytes += ch[i].rate * (double)(b - a), pieces++, to = b;
    if (x_of(c, to) - x_of(c, from) >= 1.0) {
      rate_rect(c, t, from, to, pieces > 1 ? bytes / (double)(to - from) : ch[i].rate, pieces > 1);
      from = -1;
    }
  }
  if (from >= 0) rate_rect(c, t, from, to, bytes / (double)(to - from), pieces > 1);
}

/* The strips of the transfers on the lanes drawn. */
static void rates(canvas *c) {
  const fs_program *p = c->p;
  const fs_flow_change *ch;
  for (int32_t t = 0; t < p->tasks; t++)
    for (int64_t i = 0, n = is_transfer(p, t) ? fs_link_load_rates(c->flows, t, &ch) : 0; i < n;
         i++)
      if (ch[i].rate > c->peak_rate) c->peak_rate = ch[i].rate;
  if (c->peak_rate <= 0) return;
  for (int32_t t = 0; t < p->tasks; t++)
    if (is_transfer(p, t) && visible(c, fs_task_rank(p, t))) rate_strip(c, t);
}

/* Each rank's finish time as the engine counts it: the end of its own
 * occupations, and the arrival of what is delivered to it (a put's data at
 * its target; a get's, a recv's, a rendezvous send's completion at home). */
static void finish_marks(canvas *c) {
  const fs_program *p = c->p;
  fs_time finish[FS_SVG_MAX_LANES], times[4];
  for (int i = 0; i < FS_SVG_MAX_LANES; i++) finish[i] = -1;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (fs_task_kind_of(p, t) < FS_SLEEP) continue;
    fs_timeline_task(c->timeline, t, times);
    int32_t home = fs_task_rank(p, t),
            delivered = fs_task_kind_of(p, t) == FS_PUT ? fs_task_peer(p, t) : home;
    if (visible(c, home) && times[2] > finish[home - c->first]) finish[home - c->first] = times[2];
    if (visible(c, delivered) && times[3] > finish[delivered - c->first])
      finish[delivered - c->first] = times[3];
  }
  for (int32_t i = 0; i <= c->last - c->first; i++) {
    if (finish[i] <= 0) continue;
    double x = x_of(c, finish[i]), y = TOP + c->lane * i;
    line(c->out, "finish", "", x, y + 0.1 * c->lane, x, y + 0.9 * c->lane);
    c->drawn |= 1u << FINISH;
  }
}

/* ---- frame ---------------------------------------------------------------- */

static const char STYLE[] =
    "<style>\n"
    "text{font-family:sans-serif;fill:#222222}\n"
    ".title{font-size:16px;font-weight:bold}\n"
    ".subtitle,.axis{font-size:12px}\n"
    ".tick{font-size:11px;text-anchor:middle}\n"
    ".rank{text-anchor:end}\n"
    ".label{text-anchor:middle;fill:#111111}\n"
    ".grid{stroke:#dddddd;stroke-width:1}\n"
    ".axis-line{stroke:#222222;stroke-width:1}\n"
    ".lane{fill:#f4f4f4}\n"
    "rect.compute,rect.sleep,rect.put,rect.get,rect.send,rect.recv{stroke-width:0.75}\n"
    ".compute{fill:#ffbe7d;stroke:#c46a12}\n"
    ".sleep{fill:#d7d7d7;stroke:#8c8c8c}\n"
    ".put{fill:#a0cbe8;stroke:#2b5d8a}\n"
    ".get{fill:#8cd17d;stroke:#3b7a35}\n"
    ".send{fill:#d4a6c8;stroke:#7a4a73}\n"
    ".recv{fill:#fabfd2;stroke:#b3476a}\n"
    ".concurrent{fill-opacity:0.45}\n"
    "line.finish{stroke:#d62728;stroke-width:2.5}\n"
    "line.put-arrow{stroke:#2b5d8a;marker-end:url(#head-put)}\n"
    "line.get-request{stroke:#3b7a35;stroke-dasharray:4,3;marker-end:url(#head-get)}\n"
    "line.get-data{stroke:#3b7a35;marker-end:url(#head-get)}\n"
    "line.message{stroke:#7a4a73;marker-end:url(#head-message)}\n"
    "line.put-arrow,line.get-request,line.get-data,line.message{stroke-opacity:0.8}\n"
    "line.leaves,line.enters{stroke-opacity:0.35}\n"
    "line.leaves{marker-end:none}\n"
    "</style>\n";

static void marker(fs_output *out, const char *id, const char *colour) {
  fs_output_printf(out,
                   "<marker id=\"head-%s\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
                   "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
                   "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker>\n",
                   id, colour);
}

static double legend_height(void) { return 2 * 22.0; }
static double width_total(void) { return LEFT + PLOT_WIDTH + RIGHT; }
static double height_total(const canvas *c) { return plot_bottom(c) + 56 + legend_height() + 8; }

static void header(const canvas *c, const char *title) {
  fs_output *out = c->out;
  fs_output_printf(out,
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
                   "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
                   width_total(), height_total(c), width_total(), height_total(c));
  fs_output_puts(out, STYLE);
  fs_output_puts(out, "<defs>\n");
  marker(out, "put", "#2b5d8a");
  marker(out, "get", "#3b7a35");
  marker(out, "message", "#7a4a73");
  fs_output_puts(out, "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
  fs_output_printf(out, "<text class=\"title\" x=\"%.0f\" y=\"24\">", LEFT);
  escaped(out, title ? title : "fennelsim timeline");
  char a[48];
  snprintf(a, sizeof a, "%.6g", (double)c->makespan / (double)c->u.ps);
  fs_output_printf(out, "</text>\n<text class=\"subtitle\" x=\"%.0f\" y=\"44\">", LEFT);
  if (c->first == 0 && c->last == c->p->ranks - 1)
    fs_output_printf(out, "%d rank%s", c->p->ranks, c->p->ranks == 1 ? "" : "s");
  else
    fs_output_printf(out, "ranks %d-%d of %d (faint arrows: to or from the others)", c->first,
                     c->last, c->p->ranks);
  fs_output_printf(out, ", makespan %s %s</text>\n", a, c->u.name);
}

/* Zebra lanes with their names, then the grid at each tick. */
static void lanes(const canvas *c) {
  fs_output *out = c->out;
  double font = c->lane * 0.7 < 12 ? c->lane * 0.7 : 12;
  for (int32_t r = c->first; r <= c->last; r++) {
    double y = TOP + c->lane * (r - c->first);
    if ((r - c->first) % 2 == 0)
      fs_output_printf(out,
                       "<rect class=\"lane\" x=\"%.0f\" y=\"%.2f\" width=\"%.0f\" "
                       "height=\"%.2f\"/>\n",
                       LEFT, y, PLOT_WIDTH, c->lane);
    fs_output_printf(out,
                     "<text class=\"rank\" x=\"%.0f\" y=\"%.2f\" font-size=\"%.1f\">"
                     "rank %d</text>\n",
                     LEFT - 6, y + c->lane / 2 + 0.35 * font, font, r);
  }
  for (fs_time t = 0; t <= c->axis_end; t += c->step)
    line(out, "grid", "", x_of(c, t), TOP, x_of(c, t), plot_bottom(c));
}

static void axis(const canvas *c) {
  fs_output *out = c->out;
  double bottom = plot_bottom(c);
  line(out, "axis-line", "", LEFT, bottom, LEFT + PLOT_WIDTH, bottom);
  for (fs_time t = 0; t <= c->axis_end; t += c->step) {
    line(out, "axis-line", "", x_of(c, t), bottom, x_of(c, t), bottom + 5);
    fs_output_printf(out, "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\">%.6g</text>\n", x_of(c, t),
                     bottom + 17, (double)t / (double)c->u.ps);
  }
  fs_output_printf(out,
                   "<text class=\"axis\" x=\"%.0f\" y=\"%.2f\" text-anchor=\"middle\">"
                   "time (%s)</text>\n",
                   LEFT + PLOT_WIDTH / 2, bottom + 36, c->u.name);
}

/* The items drawn, boxes on the first row and arrows on the second. */
static void legend(const canvas *c) {
  static const char *const meaning[ITEMS] = {"compute",
                                             "sleep",
                                             "put (CPU)",
                                             "get (CPU)",
                                             "send (CPU)",
                                             "receive overhead",
                                             "rank finishes",
                                             "put: data lands at the target",
                                             "get: request",
                                             "get: data back",
                                             "message: until received",
                                             "data rate (darker: faster)"};
  fs_output *out = c->out;
  double y = plot_bottom(c) + 56, x = LEFT;
  fs_output_puts(out, "<g class=\"legend\">\n");
  for (int item = 0, row = 0; item < ITEMS; item++) {
    if (!(c->drawn & (1u << item))) continue;
    if (item >= PUT_ARROW && !row++) y += 22, x = LEFT;
    if (item < FINISH)
      fs_output_printf(out,
                       "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"22\" "
                       "height=\"12\"/>\n",
                       class_name[item], x, y - 10);
    else if (item == FINISH)
      line(out, "finish", "", x + 11, y - 12, x + 11, y + 3);
    else if (item == RATE)
      fs_output_printf(out,
                       "<rect class=\"rate\" fill=\"#1f4e79\" x=\"%.2f\" y=\"%.2f\" "
                       "width=\"26\" height=\"6\"/>\n",
                       x, y - 7);
    else
      line(out, class_name[item], "", x, y - 4, x + 26, y - 4);
    fs_output_printf(out, "<text class=\"axis\" x=\"%.2f\" y=\"%.2f\">%s</text>\n", x + 32, y,
                     meaning[item]);
    x += item < PUT_ARROW ? 145 : 250;
  }

  fs_output_puts(out, "</g>\n");
}

/* ---- entry ---------------------------------------------------------------- */

static int choose_ranks(const fs_program *p, const fs_svg_options *o, canvas *c, fs_error *err) {
  if (!o || (o->first_rank == -1 && o->last_rank == -1)) {
    if (p->ranks > FS_SVG_MAX_LANES)
      return fs_error_set(err,
                          "svg: %d ranks are too many lanes to draw legibly (at most %d); "
                          "choose at most %d ranks with --svg-ranks A-B",
                          p->ranks, FS_SVG_MAX_LANES, FS_SVG_MAX_LANES);
    c->first = 0, c->last = p->ranks - 1;
    return 0;
  }
  if (o->first_rank < 0 || o->last_rank < o->first_rank || o->last_rank >= p->ranks)
    return fs_error_set(err, "svg: rank range %d-%d is not within the program's ranks 0-%d",
                        o->first_rank, o->last_rank, p->ranks - 1);
  if (o->last_rank - o->first_rank + 1 > FS_SVG_MAX_LANES)
    return fs_error_set(err, "svg: rank range %d-%d has %d ranks; at most %d can be drawn",
                        o->first_rank, o->last_rank, o->last_rank - o->first_rank + 1,
                        FS_SVG_MAX_LANES);
  c->first = o->first_rank, c->last = o->last_rank;
  return 0;
}

int fs_svg_timeline_check(const fs_program *p, const fs_svg_options *o, fs_error *err) {
  canvas c;
  memset(&c, 0, sizeof c);
  return choose_ranks(p, o, &c, err);
}

int fs_svg_timeline_write(const fs_timeline *t, const fs_svg_options *o, fs_output *out,
                          fs_error *err) {
  return fs_svg_timeline_write_flows(t, o, NULL, out, err);
}

int fs_svg_timeline_write_flows(const fs_timeline *t, const fs_svg_options *o,
                                const fs_link_load *flows, fs_output *out, fs_error *err) {
  canvas c = {.timeline = t, .p = fs_timeline_program(t), .out = out, .flows = flows};
  if (choose_ranks(c.p, o, &c, err)) {
    fs_output_abort(out);
    return -1;
  }
  plan_scale(&c);
  for (int i = 0; i < FS_SVG_MAX_LANES; i++) c.last_label[i] = -1, c.last_end[i] = -1;
  header(&c, o ? o->title : NULL);
  lanes(&c);
  tasks(&c);
  if (c.flows) rates(&c);
  finish_marks(&c);
  c.arrows = 1;
  tasks(&c);
  axis(&c);
  legend(&c);
  fs_output_puts(out, "</svg>\n");
  return fs_output_commit(out, err);
}
