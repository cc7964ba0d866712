/* channel_load.c: the channel load observer and its reports (see the
 * header). Each model is a source; an instance gets a channel record at
 * its first job, so unused instances cost one slot. */
#include "instruments/channel_load.h"

#include <stdlib.h>
#include <string.h>

#include "instruments/report.h"

enum { NETWORK, COMPUTE, SOURCES };

typedef struct channel {
  int32_t instance, tau, max_tau, capacity; /* capacity of time_at */
  fs_time since, first;                     /* since: when tau last changed */
  fs_time *time_at;                         /* per tau, closed intervals only until finished */
  double integral;                          /* sum of tau * time, once finished */
  char name[32];
} channel;

typedef struct source {
  fs_channel_load *load;
  int32_t instances;
  int32_t *slot; /* per instance: its channel, or -1 */
  channel *channels;
  int32_t count, capacity;
  const void *model;
  fs_instance_namer name;
  int failed; /* out of memory during the run */
} source;

struct fs_channel_load {
  source sources[SOURCES];
  fs_time end;
};

fs_channel_load *fs_channel_load_new(void) {
  fs_channel_load *load = calloc(1, sizeof *load);
  if (!load) return NULL;
  for (int k = 0; k < SOURCES; k++) load->sources[k].load = load;
  return load;
}

void fs_channel_load_free(fs_channel_load *load) {
  if (!load) return;
  for (int k = 0; k < SOURCES; k++) {
    source *s = &load->sources[k];
    for (int32_t c = 0; c < s->capacity; c++) free(s->channels[c].time_at);
    free(s->channels);
    free(s->slot);
  }
  free(load);
}

static void on_reset(void *state, int32_t instances, const void *model, fs_instance_namer name) {
  source *s = state;
  s->failed = 0;
  s->load->end = 0;
  s->count = 0;
  s->model = model, s->name = name;
  if (instances > s->instances || !s->slot) {
    free(s->slot);
    s->slot = malloc((size_t)(instances > 0 ? instances : 1) * sizeof *s->slot);
    if (!s->slot) {
      s->instances = 0;
      s->failed = 1;
      return;
    }
  }
  s->instances = instances;
  for (int32_t i = 0; i < instances; i++) s->slot[i] = -1;
}

/* The channel record of an instance at its first job: tau 0 since 0. */
static channel *open_channel(source *s, int32_t instance, fs_time t) {
  if (s->count == s->capacity) {
    int32_t want = s->capacity ? s->capacity * 2 : 64;
    channel *bigger = realloc(s->channels, (size_t)want * sizeof *bigger);
    if (!bigger) return NULL;
    for (int32_t c = s->capacity; c < want; c++) bigger[c] = (channel){.time_at = NULL};
    s->channels = bigger;
    s->capacity = want;
  }
  channel *c = &s->channels[s->count];
  if (!c->time_at) {
    c->time_at = malloc(8 * sizeof *c->time_at);
    if (!c->time_at) return NULL;
    c->capacity = 8;
  }
  c->instance = instance, c->tau = 0, c->max_tau = 0, c->since = 0, c->first = t;
  c->time_at[0] = 0;
  c->integral = 0;
  if (s->name)
    s->name(s->model, instance, c->name, sizeof c->name);
  else
    snprintf(c->name, sizeof c->name, "instance %d", instance);
  s->slot[instance] = s->count++;
  return c;
}

/* A new highest tau: the histogram grows, zeroed up to it. */
static int reach(channel *c, int32_t tau) {
  if (tau >= c->capacity) {
    int32_t want = c->capacity * 2 > tau ? c->capacity * 2 : tau + 1;
    fs_time *bigger = realloc(c->time_at, (size_t)want * sizeof *bigger);
    if (!bigger) return -1;
    c->time_at = bigger;
    c->capacity = want;
  }
  for (int32_t k = c->max_tau + 1; k <= tau; k++) c->time_at[k] = 0;
  c->max_tau = tau;
  return 0;
}

static void on_changed(void *state, int32_t instance, int32_t tau, fs_time t) {
  source *s = state;
  if (s->failed || instance < 0 || instance >= s->instances) return;
  channel *c = s->slot[instance] >= 0 ? &s->channels[s->slot[instance]]
                                      : open_channel(s, instance, t);
  if (!c || (tau > c->max_tau && reach(c, tau))) {
    s->failed = 1;
    return;
  }
  c->time_at[c->tau] += t - c->since;
  c->tau = tau, c->since = t;
}

int fs_channel_load_attach(fs_channel_load *load, fs_network_model *network,
                           fs_compute_model *compute, fs_error *err) {
  fs_load_observer network_observer = {.state = &load->sources[NETWORK],
                                       .reset = on_reset,
                                       .changed = on_changed};
  fs_load_observer compute_observer = network_observer;
  compute_observer.state = &load->sources[COMPUTE];
  int attached = fs_network_model_observe(network, &network_observer);
  attached += fs_compute_model_observe(compute, &compute_observer);
  if (attached) return 0;
  return fs_error_set(err,
                      "--channel-load needs a model with channel instances (taulop, or "
                      "--compute gamma): %s and %s have none",
                      network ? network->name : "no model",
                      compute ? compute->name : "no compute model");
}

static int by_instance(const void *a, const void *b) {
  const channel *x = a, *y = b;
  return (x->instance > y->instance) - (x->instance < y->instance);
}

int fs_channel_load_finish(fs_channel_load *load, fs_time end, fs_error *err) {
  if (load->sources[NETWORK].failed || load->sources[COMPUTE].failed)
    return fs_error_set(err, "out of memory for the channel load");
  load->end = end;
  for (int k = 0; k < SOURCES; k++) {
    source *s = &load->sources[k];
    if (s->count) qsort(s->channels, (size_t)s->count, sizeof *s->channels, by_instance);
    for (int32_t i = 0; i < s->count; i++) {
      channel *c = &s->channels[i];
      s->slot[c->instance] = i;
      if (end > c->since) c->time_at[c->tau] += end - c->since, c->since = end;
      c->integral = 0;
      for (int32_t tau = 1; tau <= c->max_tau; tau++)
        c->integral += (double)tau * (double)c->time_at[tau];
    }
  }
  return 0;
}

int32_t fs_channel_load_count(const fs_channel_load *load) {
  return load->sources[NETWORK].count + load->sources[COMPUTE].count;
}

static const channel *channel_at(const fs_channel_load *load, int32_t k) {
  const source *network = &load->sources[NETWORK];
  return k < network->count ? &network->channels[k]
                            : &load->sources[COMPUTE].channels[k - network->count];
}

static double ratio(double value, fs_time span) { return span > 0 ? value / (double)span : 0; }

static void stats_of(const fs_channel_load *load, const channel *c, fs_channel_stats *out) {
  fs_time busy = 0;
  for (int32_t tau = 1; tau <= c->max_tau; tau++) busy += c->time_at[tau];
  *out = (fs_channel_stats){.instance = c->name,
                            .max_tau = c->max_tau,
                            .first = c->first,
                            .busy = busy,
                            .mean_tau = ratio(c->integral, load->end),
                            .mean_tau_since_first = ratio(c->integral, load->end - c->first),
                            .mean_busy_tau = ratio(c->integral, busy),
                            .time_at_tau = c->time_at};
}

void fs_channel_load_get(const fs_channel_load *load, int32_t k, fs_channel_stats *out) {
  stats_of(load, channel_at(load, k), out);
}

/* The shortest of %.15g, %.16g, %.17g that reads back exactly. */
static char *format_double(char *buffer, size_t size, double value) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buffer, size, "%.*g", digits, value);
    if (strtod(buffer, NULL) == value) break;
  }
  return buffer;
}

typedef struct ranked {
  double integral;
  int32_t k;
} ranked;

/* Busiest first: the larger integral, then the earlier in order. */
static int busier(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->integral != y->integral) return x->integral < y->integral ? 1 : -1;
  return (x->k > y->k) - (x->k < y->k);
}

/* The instance after `after` busiest first (after.k -1: the busiest), by a
 * scan: the order when no memory is left for sorting them. */
static ranked next_busiest(const fs_channel_load *load, int32_t count, ranked after) {
  ranked best = {0, -1};
  for (int32_t k = 0; k < count; k++) {
    ranked r = {channel_at(load, k)->integral, k};
    if (after.k >= 0 && busier(&r, &after) <= 0) continue;
    if (best.k < 0 || busier(&r, &best) < 0) best = r;
  }
  return best;
}

static void text_row(FILE *out, const fs_channel_load *load, const channel *c) {
  fs_channel_stats s;
  char exact[32];
  stats_of(load, c, &s);
  fprintf(out, "  %-16s %5d %9.4f %9.4f %14s ", s.instance, s.max_tau, s.mean_tau, s.mean_busy_tau,
          fs_format_ns(exact, s.busy));
  for (int32_t tau = 0; tau <= s.max_tau; tau++)
    fprintf(out, " %s", fs_format_ns(exact, s.time_at_tau[tau]));
  fprintf(out, "\n");
}

void fs_channel_load_report_text(FILE *out, const fs_channel_load *load, int max_rows) {
  int32_t count = fs_channel_load_count(load);
  char exact[32];
  if (!count) {
    fprintf(out, "channels   no channel instance was used\n");
    return;
  }
  fprintf(out,
          "channels   %d used; tau = active jobs; mean over [0, %s ns], busy mean over "
          "tau >= 1\n",
          count, fs_format_ns(exact, load->end));
  fprintf(out, "  %-16s %5s %9s %9s %14s  %s\n", "instance", "max", "mean", "busy mean", "busy ns",
          "ns at tau 0, 1, ...");
  ranked *order = malloc((size_t)count * sizeof *order);
  int32_t shown = max_rows < 0 ? 0 : (count < max_rows ? count : max_rows);
  if (order) { /* else scanned for each row */
    for (int32_t k = 0; k < count; k++) order[k] = (ranked){channel_at(load, k)->integral, k};
    qsort(order, (size_t)count, sizeof *order, busier);
  }
  ranked at = {0, -1};
  for (int32_t k = 0; k < shown; k++) {
    at = order ? order[k] : next_busiest(load, count, at);
    text_row(out, load, channel_at(load, at.k));
  }
  if (shown < count)
    fprintf(out, "  ... %d more (all of them: --channel-csv FILE.csv)\n", count - shown);
  free(order);
}

void fs_channel_load_report_json(FILE *out, const fs_channel_load *load) {
  char exact[32], number[3][40];
  fprintf(out, "\"channel_load\": [");
  for (int32_t k = 0; k < fs_channel_load_count(load); k++) {
    fs_channel_stats s;
    fs_channel_load_get(load, k, &s);
    fprintf(out, "%s{\"instance\": ", k ? ", " : "");
    fs_json_string(out, s.instance);
    fprintf(out,
            ", \"max_tau\": %d, \"mean_tau\": %s, \"mean_busy_tau\": %s, "
            "\"mean_tau_since_first\": %s, \"first_ns\": %s, ",
            s.max_tau, format_double(number[0], sizeof number[0], s.mean_tau),
            format_double(number[1], sizeof number[1], s.mean_busy_tau),
            format_double(number[2], sizeof number[2], s.mean_tau_since_first),
            fs_format_ns(exact, s.first));
    fprintf(out, "\"busy_ns\": %s, \"time_at_tau_ns\": [", fs_format_ns(exact, s.busy));
    for (int32_t tau = 0; tau <= s.max_tau; tau++)
      fprintf(out, "%s%s", tau ? ", " : "", fs_format_ns(exact, s.time_at_tau[tau]));
    fprintf(out, "]}");
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

int fs_channel_load_write_csv(const fs_channel_load *load, fs_output *out, fs_error *err) {
  int failed = fs_output_puts(out, "instance,tau,time_ns\n");
  char exact[32];
  for (int32_t k = 0; k < fs_channel_load_count(load) && !failed; k++) {
    const channel *c = channel_at(load, k);
    for (int32_t tau = 0; tau <= c->max_tau; tau++) {
      failed |= csv_field(out, c->name);
      failed |= fs_output_printf(out, ",%d,%s\n", tau, fs_format_ns(exact, c->time_at[tau]));
    }
  }
  if (failed) { /* the error names the path before abort frees it */
    fs_error_set(err, "%s: write failed", fs_output_path(out));
    fs_output_abort(out);
    return -1;
  }
  return fs_output_commit(out, err);
}
