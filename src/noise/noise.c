/* noise.c: the noise layer's terms, per-rank overrides and detour traces
 * (see noise.h). The engine's perturbation (perturbation.c) calls
 * fs_noise_apply for each interval a model gives it and
 * fs_noise_detour_end for each CPU occupation. */
#include "noise/noise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "core/suggest.h"
#include "io/text_input.h"
#include "noise/distribution.h"
#include "noise/random.h"

#define MAX_TERMS 256
/* Times beyond this (about 53 days) saturate: no arithmetic can overflow. */
#define FS_NOISE_TIME_LIMIT FS_TIME_LIMIT
/* Random streams: rank r draws from stream r; the detour offsets from
 * stream DETOUR_STREAM + r, so they never meet a term's draws. */
#define DETOUR_STREAM ((uint64_t)1 << 40)

/* The longest distribution a term takes, in characters with the NUL. */
enum { TERM_SPEC_MAX = 160 };

typedef struct noise_term {
  fs_distribution distribution;
  int additive;
  fs_noise_kind kind;
  int32_t first_rank, last_rank;                 /* -1, -1: every rank (the general term) */
  char text[TERM_SPEC_MAX + sizeof ",mode=add"]; /* the spec as given, mode last */
} noise_term;

typedef struct detour {
  fs_time start, duration;
} detour;

struct fs_noise {
  noise_term terms[MAX_TERMS];
  int term_count;
  int general[FS_NOISE_KINDS]; /* index of the general term of each kind, -1 */
  /* after fs_noise_prepare: the per-rank terms' ranges cut the ranks into
   * segments, segment i from segment_first[i] to the next one's first rank
   * (the last: to the last rank), with term segment_term[i][kind] (-1:
   * none); ranks before the first segment take the general terms */
  int32_t segments;
  int32_t segment_first[2 * MAX_TERMS + 1];
  int16_t segment_term[2 * MAX_TERMS + 1][FS_NOISE_KINDS];
  detour *detours;      /* sorted, disjoint */
  fs_time *busy_before; /* per detour: the detour time before it */
  int64_t detour_count;
  fs_time period, free_per_period;
  char trace_path[256];
};

fs_noise *fs_noise_new(void) {
  fs_noise *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  for (int k = 0; k < FS_NOISE_KINDS; k++) n->general[k] = -1;
  return n;
}

void fs_noise_free(fs_noise *n) {
  if (!n) return;
  for (int i = 0; i < n->term_count; i++) fs_distribution_free(&n->terms[i].distribution);
  free(n->detours);
  free(n->busy_before);
  free(n);
}

static const char *const kind_names[FS_NOISE_KINDS] = {"host", "net", "compute"};

/* "KIND=DIST[,mode=add|mul]" into a term. */
static int parse_term(const char *option, const char *spec, noise_term *term, fs_error *err) {
  const char *equals = strchr(spec, '=');
  size_t name_length = equals ? (size_t)(equals - spec) : 0;
  int kind = -1;
  for (int k = 0; k < FS_NOISE_KINDS && equals; k++)
    if (strlen(kind_names[k]) == name_length && strncmp(spec, kind_names[k], name_length) == 0)
      kind = k;
  if (kind < 0) {
    char typed[64] = "", mean[100];
    snprintf(typed, sizeof typed, "%.*s", equals ? (int)(name_length < 63 ? name_length : 63) : 0,
             spec);
    fs_suggest_text(mean, sizeof mean, typed, kind_names, FS_NOISE_KINDS);
    return fs_error_set(err, "%s %s: expected host=DIST, net=DIST or compute=DIST%s%s", option,
                        spec, mean[0] ? "; " : "", mean);
  }
  char text[TERM_SPEC_MAX];
  if (strlen(equals + 1) >= sizeof text)
    return fs_error_set(err, "%s %s: the distribution is too long", option, spec);
  strcpy(text, equals + 1);
  /* mode=add|mul is the layer's, not the distribution's: take it out */
  term->additive = 0;
  char *mode = strstr(text, "mode=");
  if (mode && (mode == text || mode[-1] == ',' || mode[-1] == ':')) {
    char *value = mode + 5, *end = value + strcspn(value, ",");
    size_t length = (size_t)(end - value);
    if (length == 3 && strncmp(value, "add", 3) == 0)
      term->additive = 1;
    else if (!(length == 3 && strncmp(value, "mul", 3) == 0))
      return fs_error_set(err, "%s %s: mode must be add or mul", option, spec);
    if (*end)
      end++; /* the comma after it */
    else if (mode > text)
      mode--; /* the separator before it */
    memmove(mode, end, strlen(end) + 1);
  }
  fs_error inner = {{0}};
  if (fs_distribution_parse(text, &term->distribution, &inner))
    return fs_error_set(err, "%s %s: %s", option, spec, inner.message);
  term->kind = (fs_noise_kind)kind;
  snprintf(term->text, sizeof term->text, "%s%s", text, term->additive ? ",mode=add" : "");
  return 0;
}

static int add_term(fs_noise *n, const char *option, const char *spec, int32_t first, int32_t last,
                    fs_error *err) {
  if (n->term_count == MAX_TERMS)
    return fs_error_set(err, "%s %s: more than %d noise terms", option, spec, MAX_TERMS);
  noise_term *term = &n->terms[n->term_count];
  memset(term, 0, sizeof *term);
  if (parse_term(option, spec, term, err)) return -1;
  term->first_rank = first, term->last_rank = last;
  if (first < 0) {
    if (n->general[term->kind] >= 0) {
      fs_distribution_free(&term->distribution);
      return fs_error_set(err, "%s %s: %s noise is already set", option, spec,
                          kind_names[term->kind]);
    }
    n->general[term->kind] = n->term_count;
  }
  n->term_count++;
  return 0;
}

int fs_noise_add(fs_noise *n, const char *spec, fs_error *err) {
  return add_term(n, "--noise", spec, -1, -1, err);
}

int fs_noise_add_rank(fs_noise *n, const char *spec, fs_error *err) {
  const char *colon = strchr(spec, ':');
  int64_t first, last;
  const char *dash = colon ? memchr(spec, '-', (size_t)(colon - spec)) : NULL;
  int bad = !colon;
  if (!bad && dash) {
    bad = fs_parse_count(spec, (size_t)(dash - spec), 0, INT32_MAX - 1, &first) ||
          fs_parse_count(dash + 1, (size_t)(colon - dash - 1), 0, INT32_MAX - 1, &last) ||
          last < first;
  } else if (!bad) {
    bad = fs_parse_count(spec, (size_t)(colon - spec), 0, INT32_MAX - 1, &first);
    last = first;
  }
  if (bad)
    return fs_error_set(err, "--noise-rank %s: expected RANK:KIND=DIST or FIRST-LAST:KIND=DIST",
                        spec);
  return add_term(n, "--noise-rank", colon + 1, (int32_t)first, (int32_t)last, err);
}

static int compare_detours(const void *a, const void *b) {
  const detour *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* One "start duration" line into d; -1 with err set ("FILE:LINE:COLUMN: ..."). */
static int parse_detour(fs_text_input *in, const char *line, size_t length, detour *d,
                        fs_error *err) {
  const char *field[2];
  size_t field_length[2];
  size_t at = 0;
  for (int f = 0; f < 2; f++) {
    while (at < length && (line[at] == ' ' || line[at] == '\t')) at++;
    field[f] = line + at;
    while (at < length && line[at] != ' ' && line[at] != '\t') at++;
    field_length[f] = (size_t)(line + at - field[f]);
    fs_time *value = f == 0 ? &d->start : &d->duration;
    char shown[FS_TEXT_SHOWN_SIZE];
    if (!field_length[f] || fs_parse_time(field[f], field_length[f], 0, value))
      return fs_text_input_error(in, field[f] - line + 1, err, "expected %s in ns (got \"%s\")",
                                 f == 0 ? "a start time" : "a duration",
                                 fs_text_shown(field[f], field_length[f], shown));
  }
  if (d->duration > FS_TIME_LIMIT - d->start)
    return fs_text_input_error(in, field[1] - line + 1, err,
                               "expected a detour ending by the limit, %s", FS_TIME_LIMIT_TEXT);
  while (at < length && (line[at] == ' ' || line[at] == '\t')) at++;
  if (at < length)
    return fs_text_input_error(in, (int64_t)at + 1, err,
                               "expected the end of the line after the duration");
  return 0;
}

/* Sorts the detours, merges overlaps, and finds the period. */
static int finish_trace(fs_noise *n, const char *path, fs_error *err) {
  qsort(n->detours, (size_t)n->detour_count, sizeof *n->detours, compare_detours);
  int64_t kept = 0;
  for (int64_t i = 0; i < n->detour_count; i++) {
    detour d = n->detours[i];
    if (d.duration == 0) continue;
    if (kept && n->detours[kept - 1].start + n->detours[kept - 1].duration >= d.start) {
      detour *last = &n->detours[kept - 1];
      fs_time end = d.start + d.duration;
      if (end > last->start + last->duration) last->duration = end - last->start;
    } else {
      n->detours[kept++] = d;
    }
  }
  n->detour_count = kept;
  n->busy_before = malloc((size_t)(kept + 1) * sizeof *n->busy_before);
  if (!n->busy_before) return fs_error_set(err, "%s: out of memory for the trace", path);
  fs_time busy = 0;
  for (int64_t i = 0; i < kept; i++) {
    n->busy_before[i] = busy;
    busy += n->detours[i].duration;
  }
  n->busy_before[kept] = busy;
  n->period = kept ? n->detours[kept - 1].start + n->detours[kept - 1].duration : 0;
  n->free_per_period = n->period - busy;
  if (kept && n->free_per_period <= 0)
    return fs_error_set(err, "%s: the detours leave no time for the CPU", path);
  return 0;
}

int fs_noise_read_trace_input(fs_noise *n, fs_text_input *in, fs_error *err) {
  if (n->detours) return fs_error_set(err, "--noise-trace: one trace at a time");
  const char *path = fs_text_input_name(in);
  int64_t capacity = 0;
  const char *line;
  size_t length;
  int status, failed = 0;
  while (!failed && (status = fs_text_input_next_line(in, &line, &length, err)) == 1) {
    size_t first = 0; /* lines are not NUL-terminated */
    while (first < length && (line[first] == ' ' || line[first] == '\t')) first++;
    if (first == length || line[first] == '#') continue;
    if (n->detour_count == capacity) {
      capacity = capacity ? 2 * capacity : 256;
      detour *grown = realloc(n->detours, (size_t)capacity * sizeof *grown);
      if (!grown) {
        failed = fs_error_set(err, "%s: out of memory for the trace", path);
        break;
      }
      n->detours = grown;
    }
    failed = parse_detour(in, line, length, &n->detours[n->detour_count], err);
    if (!failed && (n->detours[n->detour_count].start > ((fs_time)1 << 60) ||
                    n->detours[n->detour_count].duration > ((fs_time)1 << 60)))
      failed = fs_text_input_error(in, 1, err, "a time beyond 2^60 ps (13 days)");
    n->detour_count += !failed;
  }
  if (!failed && status < 0) failed = 1;
  if (!failed && n->detour_count == 0) failed = fs_error_set(err, "%s: no detours", path);
  if (!failed) failed = finish_trace(n, path, err);
  snprintf(n->trace_path, sizeof n->trace_path, "%s", path);
  if (failed) {
    free(n->detours), free(n->busy_before);
    n->detours = NULL, n->busy_before = NULL, n->detour_count = 0;
  }
  return failed ? -1 : 0;
}

int fs_noise_read_trace(fs_noise *n, const char *path, fs_error *err) {
  if (n->detours) return fs_error_set(err, "--noise-trace: one trace at a time");
  fs_text_input *in = fs_text_input_open_file(path, err);
  if (!in) return -1;
  int status = fs_noise_read_trace_input(n, in, err);
  fs_text_input_close(in);
  return status;
}

static int ascending(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Segments where the per-rank terms begin and end: no per-rank memory. */
int fs_noise_prepare(fs_noise *n, int32_t ranks, fs_error *err) {
  for (int i = 0; i < n->term_count; i++)
    if (n->terms[i].last_rank >= ranks)
      return fs_error_set(err, "--noise-rank %d: the program has ranks 0..%d",
                          n->terms[i].last_rank, ranks - 1);
  int64_t cut[2 * MAX_TERMS];
  int cuts = 0;
  for (int i = 0; i < n->term_count; i++)
    if (n->terms[i].first_rank >= 0)
      cut[cuts++] = n->terms[i].first_rank, cut[cuts++] = (int64_t)n->terms[i].last_rank + 1;
  qsort(cut, (size_t)cuts, sizeof *cut, ascending);
  n->segments = 0;
  for (int c = 0; c < cuts; c++) {
    if (cut[c] >= ranks || (n->segments && n->segment_first[n->segments - 1] == cut[c])) continue;
    int32_t first = (int32_t)cut[c];
    int16_t *term = n->segment_term[n->segments];
    for (int k = 0; k < FS_NOISE_KINDS; k++) term[k] = (int16_t)n->general[k];
    for (int i = 0; i < n->term_count; i++) /* later terms win */
      if (n->terms[i].first_rank >= 0 && n->terms[i].first_rank <= first &&
          first <= n->terms[i].last_rank)
        term[n->terms[i].kind] = (int16_t)i;
    n->segment_first[n->segments++] = first;
  }
  return 0;
}

int fs_noise_active(const fs_noise *n) { return n && (n->term_count > 0 || n->detour_count > 0); }
int fs_noise_has_trace(const fs_noise *n) { return n->detour_count > 0; }

/* The last segment starting at or before rank, or -1 (binary search). */
static int segment_of(const fs_noise *n, int32_t rank) {
  int low = 0, high = n->segments;
  while (low < high) {
    int middle = low + (high - low) / 2;
    if (n->segment_first[middle] <= rank)
      low = middle + 1;
    else
      high = middle;
  }
  return low - 1;
}

static const noise_term *term_of(const fs_noise *n, fs_noise_kind kind, int32_t rank) {
  int segment = n->segments ? segment_of(n, rank) : -1;
  int index = segment >= 0 ? n->segment_term[segment][kind] : n->general[kind];
  return index >= 0 ? &n->terms[index] : NULL;
}

int fs_noise_has(const fs_noise *n, fs_noise_kind kind, int32_t rank) {
  return term_of(n, kind, rank) != NULL;
}

fs_time fs_noise_apply(const fs_noise *n, fs_noise_kind kind, int32_t rank, uint64_t seed,
                       uint64_t index, fs_time d) {
  const noise_term *term = term_of(n, kind, rank);
  if (!term) return d;
  double x = fs_distribution_draw(&term->distribution, seed, (uint64_t)rank, index);
  double value = term->additive ? (double)d + x * 1000.0 /* ns to ps */ : (double)d * x;
  if (!(value > 0)) return 0; /* also NaN */
  if (value >= (double)FS_NOISE_TIME_LIMIT) return FS_NOISE_TIME_LIMIT;
  return (fs_time)llround(value);
}

/* The first detour starting at or after x (binary search). */
static int64_t first_detour_from(const fs_noise *n, fs_time x) {
  int64_t low = 0, high = n->detour_count;
  while (low < high) {
    int64_t middle = low + (high - low) / 2;
    if (n->detours[middle].start < x)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

/* The free time of the trace in [0, x) of one period (x within it). */
static fs_time free_before(const fs_noise *n, fs_time x) {
  int64_t i = first_detour_from(n, x);
  fs_time busy = n->busy_before[i];
  if (i > 0) {
    fs_time end = n->detours[i - 1].start + n->detours[i - 1].duration;
    if (end > x) busy -= end - x;
  }
  return x - busy;
}

/* The position within a period at which `amount` of free time has passed
 * since position 0: the first detour whose start has that much free time
 * before it is the one the CPU has not met yet. */
static fs_time position_after_free(const fs_noise *n, fs_time amount) {
  int64_t low = 0, high = n->detour_count;
  while (low < high) {
    int64_t middle = low + (high - low) / 2;
    if (n->detours[middle].start - n->busy_before[middle] < amount)
      low = middle + 1;
    else
      high = middle;
  }
  return amount + n->busy_before[low];
}

fs_time fs_noise_detour_end(const fs_noise *n, int32_t rank, uint64_t seed, fs_time start,
                            fs_time end) {
  if (!n->detour_count || end <= start) return end; /* no occupation, nothing to stretch */
  fs_time period = n->period, free = n->free_per_period;
  /* the rank's clock in trace time: start + offset */
  double u = fs_random_uniform(seed, DETOUR_STREAM + (uint64_t)rank, 0);
  fs_time offset = (fs_time)(u * (double)period);
  if (offset >= period) offset = period - 1;
  fs_time x = start + offset, cycle = x / period, within = x - cycle * period;
  /* free time the occupation needs, counted from the start of its cycle;
   * a start inside a detour waits for its end */
  fs_time needed = free_before(n, within) + (end - start);
  fs_time cycles = (needed - 1) / free; /* whole periods before the one it ends in */
  fs_time last = position_after_free(n, needed - cycles * free);
  if (cycles > (FS_NOISE_TIME_LIMIT - start) / period) return FS_NOISE_TIME_LIMIT;
  fs_time stretched = cycles * period + last - within;
  return stretched > FS_NOISE_TIME_LIMIT - start ? FS_NOISE_TIME_LIMIT : start + stretched;
}

/* text with JSON's quotes and backslashes escaped (paths of empirical
 * distributions and traces), truncated to fit. */
static void json_escaped(char *out, size_t size, const char *text) {
  size_t used = 0;
  for (; *text && used + 3 < size; text++) {
    if (*text == '"' || *text == '\\') out[used++] = '\\';
    out[used++] = (unsigned char)*text < 0x20 ? '?' : *text;
  }
  out[used] = 0;
}

void fs_noise_describe(const fs_noise *n, char *buffer, size_t size) {
  size_t used = 0;
  char text[2 * sizeof n->trace_path + 8];
  buffer[0] = 0;
  for (int i = 0; i < n->term_count && used < size; i++) {
    const noise_term *t = &n->terms[i];
    int w;
    json_escaped(text, sizeof text, t->text);
    if (t->first_rank < 0)
      w = snprintf(buffer + used, size - used, "%s\"%s\": \"%s\"", used ? ", " : "",
                   kind_names[t->kind], text);
    else if (t->first_rank == t->last_rank) /* keyed as --noise-rank R:KIND was typed */
      w = snprintf(buffer + used, size - used, "%s\"%d:%s\": \"%s\"", used ? ", " : "",
                   t->first_rank, kind_names[t->kind], text);
    else
      w = snprintf(buffer + used, size - used, "%s\"%d-%d:%s\": \"%s\"", used ? ", " : "",
                   t->first_rank, t->last_rank, kind_names[t->kind], text);
    used += w > 0 ? (size_t)w : 0;
  }
  if (n->detour_count && used < size) {
    json_escaped(text, sizeof text, n->trace_path);
    snprintf(buffer + used, size - used, "%s\"trace\": \"%s\", \"detours\": %lld", used ? ", " : "",
             text, (long long)n->detour_count);
  }
}

void fs_noise_spec(const fs_noise *n, char *buffer, size_t size) {
  size_t used = 0;
  buffer[0] = 0;
  for (int i = 0; i < n->term_count && used < size; i++) {
    const noise_term *t = &n->terms[i];
    int w;
    if (t->first_rank < 0)
      w = snprintf(buffer + used, size - used, "%s%s=%s", used ? " " : "", kind_names[t->kind],
                   t->text);
    else if (t->first_rank == t->last_rank)
      w = snprintf(buffer + used, size - used, "%s%d:%s=%s", used ? " " : "", t->first_rank,
                   kind_names[t->kind], t->text);
    else
      w = snprintf(buffer + used, size - used, "%s%d-%d:%s=%s", used ? " " : "", t->first_rank,
                   t->last_rank, kind_names[t->kind], t->text);
    used += w > 0 ? (size_t)w : 0;
  }
  if (n->detour_count && used < size)
    snprintf(buffer + used, size - used, "%strace=%s", used ? " " : "", n->trace_path);
}
