/* link_load.c: the flow observer behind --link-load, --link-csv and the
 * rates of --svg and --chrome (see the header). A link gets a record at
 * its first flow, so unused links cost one slot; changes are logged in
 * arrival order and sorted by link or task (stably) once finished. */
#include "instruments/link_load.h"

#include <stdlib.h>
#include <string.h>

#include "instruments/report.h"

typedef struct link_record {
  int32_t id, flows, peak_flows;
  double rate, peak_rate, bandwidth;
  fs_time since, busy;
  double rate_time; /* sum rate * ps */
  double flow_time; /* sum flows * ps */
  char *name;
} link_record;

/* A logged change: `who` is a link or a task. */
typedef struct logged {
  fs_time t;
  double rate;
  int32_t flows, who;
} logged;

/* Changes of links or of transfers: logged during the run, then grouped
 * by who into `sorted` (first[who] .. first[who + 1]). */
typedef struct change_log {
  int keep;
  logged *items;
  int64_t count, capacity;
  fs_flow_change *sorted;
  int64_t *first;
  int32_t whos; /* entries of first, minus one */
} change_log;

struct fs_link_load {
  int32_t links;
  int32_t *slot; /* per link: its record, or -1 */
  link_record *used;
  int32_t count, capacity;
  const void *model;
  fs_link_namer name;
  change_log link_changes, rate_changes;
  int reported_rates; /* a transfer's rate was reported */
  int failed;         /* out of memory during the run */
  fs_time end;
};

fs_link_load *fs_link_load_new(int keep_intervals, int keep_rates) {
  fs_link_load *load = calloc(1, sizeof *load);
  if (!load) return NULL;
  load->link_changes.keep = keep_intervals;
  load->rate_changes.keep = keep_rates;
  return load;
}

static void log_clear(change_log *log) {
  free(log->sorted), free(log->first);
  log->sorted = NULL, log->first = NULL;
  log->count = 0, log->whos = 0;
}

static void clear_records(fs_link_load *load) {
  for (int32_t k = 0; k < load->count; k++) free(load->used[k].name);
  load->count = 0;
}

void fs_link_load_free(fs_link_load *load) {
  if (!load) return;
  clear_records(load);
  free(load->used);
  free(load->slot);
  log_clear(&load->link_changes), log_clear(&load->rate_changes);
  free(load->link_changes.items), free(load->rate_changes.items);
  free(load);
}

static void on_reset(void *state, int32_t links, const void *model, fs_link_namer name) {
  fs_link_load *load = state;
  load->failed = 0, load->end = 0, load->reported_rates = 0;
  clear_records(load);
  log_clear(&load->link_changes), log_clear(&load->rate_changes);
  load->model = model, load->name = name;
  if (links > load->links || !load->slot) {
    free(load->slot);
    load->slot = malloc((size_t)(links > 0 ? links : 1) * sizeof *load->slot);
    if (!load->slot) {
      load->links = 0;
      load->failed = 1;
      return;
    }
  }
  load->links = links;
  for (int32_t l = 0; l < links; l++) load->slot[l] = -1;
}

static int append(change_log *log, fs_time t, double rate, int32_t flows, int32_t who) {
  if (log->count == log->capacity) {
    int64_t want = log->capacity ? log->capacity * 2 : 256;
    logged *bigger = realloc(log->items, (size_t)want * sizeof *bigger);
    if (!bigger) return -1;
    log->items = bigger, log->capacity = want;
  }
  log->items[log->count++] = (logged){t, rate, flows, who};
  return 0;
}

/* The record of a link at its first flow: idle since 0. */
static link_record *open_link(fs_link_load *load, int32_t link) {
  if (load->count == load->capacity) {
    int32_t want = load->capacity ? load->capacity * 2 : 64;
    link_record *bigger = realloc(load->used, (size_t)want * sizeof *bigger);
    if (!bigger) return NULL;
    load->used = bigger, load->capacity = want;
  }
  char name[256];
  double bandwidth = 0;
  if (load->name)
    bandwidth = load->name(load->model, link, name, sizeof name);
  else
    snprintf(name, sizeof name, "link %d", link);
  char *copy = malloc(strlen(name) + 1);
  if (!copy) return NULL;
  strcpy(copy, name);
  link_record *r = &load->used[load->count];
  *r = (link_record){.id = link, .bandwidth = bandwidth, .name = copy};
  load->slot[link] = load->count++;
  return r;
}

/* Closes r's state at t: its busy time and integrals grow. */
static void advance(link_record *r, fs_time t) {
  if (t <= r->since) return;
  fs_time dt = t - r->since;
  if (r->flows > 0) r->busy += dt;
  r->rate_time += r->rate * (double)dt;
  r->flow_time += (double)r->flows * (double)dt;
  r->since = t;
}

static void on_link(void *state, int32_t link, int32_t flows, double rate, fs_time t) {
  fs_link_load *load = state;
  if (load->failed || link < 0 || link >= load->links) return;
  link_record *r = NULL;
  if (load->slot[link] >= 0)
    r = &load->used[load->slot[link]];
  else if (flows <= 0 && rate <= 0)
    return; /* idle, and idle before */
  else if (!(r = open_link(load, link))) {
    load->failed = 1;
    return;
  }
  advance(r, t);
  r->flows = flows, r->rate = rate;
  if (flows > r->peak_flows) r->peak_flows = flows;
  if (rate > r->peak_rate) r->peak_rate = rate;
  if (load->link_changes.keep && append(&load->link_changes, t, rate, flows, link))
    load->failed = 1;
}

static void on_transfer(void *state, int32_t task, double rate, fs_time t) {
  fs_link_load *load = state;
  if (load->failed || task < 0) return;
  load->reported_rates = 1;
  if (load->rate_changes.keep && append(&load->rate_changes, t, rate, 0, task)) load->failed = 1;
}

int fs_link_load_attach(fs_link_load *load, fs_network_model *network, fs_error *err) {
  fs_flow_observer observer = {.state = load,
                               .reset = on_reset,
                               .link = on_link,
                               .transfer = on_transfer};
  if (fs_network_model_observe_flows(network, &observer)) return 0;
  return fs_error_set(err, "--link-load needs a flow model (flow, flow-lv08): %s has no links",
                      network ? network->name : "no model");
}

/* Same state: the change adds nothing. */
static int same(const fs_flow_change *a, double rate, int32_t flows) {
  return a->rate == rate && a->flows == flows;
}

/* Groups the log by who (a stable counting sort), then per who collapses
 * the changes of one time into the last and drops those that change
 * nothing (the state before the first is 0 flows at rate 0). */
static int group(change_log *log) {
  if (log->first) return 0; /* grouped by an earlier finish */
  int32_t whos = 0;
  for (int64_t i = 0; i < log->count; i++)
    if (log->items[i].who >= whos) whos = log->items[i].who + 1;
  log->whos = whos;
  log->first = calloc((size_t)whos + 2, sizeof *log->first);
  log->sorted = malloc(((size_t)log->count + 1) * sizeof *log->sorted);
  if (!log->first || !log->sorted) return -1;
  for (int64_t i = 0; i < log->count; i++) log->first[log->items[i].who + 1]++;
  for (int32_t w = 0; w < whos; w++) log->first[w + 1] += log->first[w];
  for (int64_t i = 0; i < log->count; i++) { /* first[w] runs ahead, shifted back below */
    const logged *c = &log->items[i];
    log->sorted[log->first[c->who]++] = (fs_flow_change){c->t, c->rate, c->flows};
  }
  for (int32_t w = whos; w > 0; w--) log->first[w] = log->first[w - 1];
  log->first[0] = 0;
  int64_t write = 0;
  for (int32_t w = 0; w < whos; w++) {
    int64_t from = log->first[w], to = log->first[w + 1], start = write;
    log->first[w] = start;
    for (int64_t i = from; i < to; i++) {
      fs_flow_change c = log->sorted[i];
      if (write > start && log->sorted[write - 1].t == c.t) write--; /* the last wins */
      const fs_flow_change idle = {0, 0, 0};
      const fs_flow_change *before = write > start ? &log->sorted[write - 1] : &idle;
      if (!same(before, c.rate, c.flows)) log->sorted[write++] = c;
    }
  }
  log->first[whos] = write;
  free(log->items);
  log->items = NULL, log->count = 0, log->capacity = 0;
  return 0;
}

static int by_id(const void *a, const void *b) {
  const link_record *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

int fs_link_load_finish(fs_link_load *load, fs_time end, fs_error *err) {
  if (!load->failed && ((load->link_changes.keep && group(&load->link_changes)) ||
                        (load->rate_changes.keep && group(&load->rate_changes))))
    load->failed = 1;
  if (load->failed) return fs_error_set(err, "out of memory for the link load");
  load->end = end;
  if (load->count) qsort(load->used, (size_t)load->count, sizeof *load->used, by_id);
  for (int32_t k = 0; k < load->count; k++) {
    load->slot[load->used[k].id] = k;
    advance(&load->used[k], end);
  }
  return 0;
}

int32_t fs_link_load_count(const fs_link_load *load) { return load->count; }

static double ratio(double value, double span) { return span > 0 ? value / span : 0; }

static void stats_of(const fs_link_load *load, const link_record *r, fs_link_stats *out) {
  double bytes = r->rate_time / (double)FS_S;
  *out =
      (fs_link_stats){.link = r->name,
                      .id = r->id,
                      .bandwidth = r->bandwidth,
                      .bytes = bytes,
                      .busy = r->busy,
                      .peak_flows = r->peak_flows,
                      .mean_flows = ratio(r->flow_time, (double)r->busy),
                      .utilization = ratio(bytes * (double)FS_S, r->bandwidth * (double)load->end),
                      .peak_rate = r->peak_rate};
}

void fs_link_load_get(const fs_link_load *load, int32_t k, fs_link_stats *out) {
  stats_of(load, &load->used[k], out);
}

static int64_t changes_of(const change_log *log, int32_t who, const fs_flow_change **out) {
  *out = NULL;
  if (!log->first || who < 0 || who >= log->whos) return 0;
  *out = log->sorted + log->first[who];
  return log->first[who + 1] - log->first[who];
}

int64_t fs_link_load_changes(const fs_link_load *load, int32_t k, const fs_flow_change **out) {
  return changes_of(&load->link_changes, load->used[k].id, out);
}

int64_t fs_link_load_rates(const fs_link_load *load, int32_t task, const fs_flow_change **out) {
  return changes_of(&load->rate_changes, task, out);
}

int fs_link_load_has_rates(const fs_link_load *load) { return load->reported_rates; }

/* The shortest of %.15g, %.16g, %.17g that reads back exactly. */
static char *format_double(char *buffer, size_t size, double value) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buffer, size, "%.*g", digits, value);
    if (strtod(buffer, NULL) == value) break;
  }
  return buffer;
}

/* More bytes first, then the lower index. */
static int more_bytes(const link_record *x, const link_record *y) {
  if (x->rate_time != y->rate_time) return x->rate_time > y->rate_time;
  return x->id < y->id;
}

/* The used link ranked `rank` (0: the most bytes), by a scan from the one
 * ranked before it: no memory needed, O(count) per row shown. */
static int32_t next_ranked(const fs_link_load *load, int32_t after) {
  int32_t best = -1;
  for (int32_t k = 0; k < load->count; k++) {
    if (after >= 0 && !more_bytes(&load->used[after], &load->used[k])) continue;
    if (best < 0 || more_bytes(&load->used[k], &load->used[best])) best = k;
  }
  return best;
}

void fs_link_load_report_text(FILE *out, const fs_link_load *load, int max_rows) {
  char exact[32];
  if (!load->count) {
    fprintf(out, "links      no link carried a flow\n");
    return;
  }
  fprintf(out,
          "links      %d of %d carried flows, most bytes first; busy = time with a flow, mean "
          "flows over the busy time, utilization = bytes / (bandwidth * %s ns)\n",
          load->count, load->links, fs_format_ns(exact, load->end));
  fprintf(out, "  %-20s %14s %14s %5s %10s %11s %12s\n", "link", "bytes", "busy ns", "peak",
          "mean flows", "utilization", "peak B/s");
  int32_t shown = max_rows < 0 ? 0 : (load->count < max_rows ? load->count : max_rows);
  for (int32_t row = 0, k = -1; row < shown; row++) {
    fs_link_stats s;
    k = next_ranked(load, k);
    stats_of(load, &load->used[k], &s);
    fprintf(out, "  %-20s %14.0f %14s %5d %10.4f %11.4f %12.6g\n", s.link, s.bytes,
            fs_format_ns(exact, s.busy), s.peak_flows, s.mean_flows, s.utilization, s.peak_rate);
  }
  if (shown < load->count)
    fprintf(out, "  ... %d more (all of them: --format json, or --link-csv FILE.csv)\n",
            load->count - shown);
}

void fs_link_load_report_json(FILE *out, const fs_link_load *load) {
  char exact[32], number[5][40];
  fprintf(out, "\"link_load\": [");
  for (int32_t k = 0; k < load->count; k++) {
    fs_link_stats s;
    fs_link_load_get(load, k, &s);
    fprintf(out, "%s{\"link\": ", k ? ", " : "");
    fs_json_string(out, s.link);
    fprintf(out,
            ", \"id\": %d, \"bandwidth_Bps\": %s, \"bytes\": %s, \"busy_ns\": %s, "
            "\"peak_flows\": %d, \"mean_busy_flows\": %s, \"utilization\": %s, "
            "\"peak_rate_Bps\": %s}",
            s.id, format_double(number[0], sizeof number[0], s.bandwidth),
            format_double(number[1], sizeof number[1], s.bytes), fs_format_ns(exact, s.busy),
            s.peak_flows, format_double(number[2], sizeof number[2], s.mean_flows),
            format_double(number[3], sizeof number[3], s.utilization),
            format_double(number[4], sizeof number[4], s.peak_rate));
  }
  fprintf(out, "]");
}

/* A CSV field: quoted when it holds a comma, quote or line break. */
static int csv_field(fs_output *out, const char *text) {
  if (!strpbrk(text, ",\"\r\n")) return fs_output_puts(out, text);
  int failed = fs_output_puts(out, "\"");
  for (const char *c = text; *c; c++)
    failed |= *c == '"' ? fs_output_puts(out, "\"\"") : fs_output_write(out, c, 1);
  return failed | fs_output_puts(out, "\"");
}

/* One row: [from, to] at state c of link r. */
static int csv_row(fs_output *out, const link_record *r, fs_time from, fs_time to,
                   const fs_flow_change *c) {
  char start[32], end[32], rate[40], utilization[40];
  int failed = csv_field(out, r->name);
  return failed | fs_output_printf(out, ",%s,%s,%d,%s,%s\n", fs_format_ns(start, from),
                                   fs_format_ns(end, to), c->flows,
                                   format_double(rate, sizeof rate, c->rate),
                                   format_double(utilization, sizeof utilization,
                                                 ratio(c->rate, r->bandwidth)));
}

/* Link k's intervals, tiling [0, end]. */
static int csv_link(const fs_link_load *load, int32_t k, fs_output *out) {
  const fs_flow_change *changes;
  int64_t count = fs_link_load_changes(load, k, &changes);
  fs_flow_change state = {0, 0, 0};
  int failed = 0;
  for (int64_t i = 0; i < count && changes[i].t < load->end && !failed; i++) {
    if (changes[i].t > state.t)
      failed = csv_row(out, &load->used[k], state.t, changes[i].t, &state);
    state = changes[i];
  }
  if (load->end > state.t && !failed)
    failed = csv_row(out, &load->used[k], state.t, load->end, &state);
  return failed;
}

int fs_link_load_write_csv(const fs_link_load *load, fs_output *out, fs_error *err) {
  int failed = fs_output_puts(out, "link,start_ns,end_ns,flows,rate_Bps,utilization\n");
  for (int32_t k = 0; k < load->count && !failed; k++) failed = csv_link(load, k, out);
  if (failed) { /* the error names the path before abort frees it */
    fs_error_set(err, "%s: write failed", fs_output_path(out));
    fs_output_abort(out);
    return -1;
  }
  return fs_output_commit(out, err);
}
