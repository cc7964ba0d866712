/* bandwidth.c: bytes, busy times and achieved bandwidths of a finished run,
 * per transfer, rank and link (bandwidth.h says what each one means). */
#include "instruments/bandwidth.h"

#include <stdlib.h>

#include "instruments/report.h"

enum { READY, START, LOCAL_END, REMOTE_END };

/* An interval of a rank's CPU or of a link, for the unions. */
typedef struct interval {
  int64_t key; /* rank, or source * ranks + target */
  fs_time from, to;
} interval;

static int by_key_then_time(const void *a, const void *b) {
  const interval *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->from < y->from ? -1 : x->from > y->from;
}

double fs_bandwidth_gbps(int64_t bytes, fs_time duration) {
  return duration > 0 ? (double)bytes * (double)FS_NS / (double)duration : 0;
}

/* Fills *x when task is a delivered transfer. */
static int as_transfer(const fs_timeline *t, int32_t task, fs_bandwidth_transfer *x) {
  const fs_program *p = fs_timeline_program(t);
  fs_time times[4];
  fs_timeline_task(t, task, times);
  *x = (fs_bandwidth_transfer){.task = task,
                               .source = fs_task_rank(p, task),
                               .target = fs_task_peer(p, task),
                               .bytes = fs_task_value(p, task),
                               .start = times[START],
                               .delivered = times[REMOTE_END]};
  switch (fs_task_kind_of(p, task)) {
    case FS_PUT: break;
    case FS_GET: x->source = fs_task_peer(p, task), x->target = fs_task_rank(p, task); break;
    case FS_SEND: {
      int32_t recv = fs_timeline_partner(t, task, NULL);
      if (recv < 0) return 0;
      fs_time recv_times[4];
      fs_timeline_task(t, recv, recv_times);
      x->target = fs_task_rank(p, recv), x->delivered = recv_times[REMOTE_END];
      break;
    }
    default: return 0;
  }
  return x->start >= 0 && x->delivered >= x->start;
}

/* When a task held its CPU: compute and sleep to their end, a transfer to
 * its local end, a recv while its message was taken
 * (fs_timeline_recv_occupation). */
static int cpu_interval(const fs_timeline *t, int32_t task, interval *out) {
  const fs_program *p = fs_timeline_program(t);
  if (!fs_task_takes_cpu(p, task)) return 0;
  fs_time times[4];
  fs_timeline_task(t, task, times);
  fs_time from = times[START],
          to = fs_task_kind_of(p, task) == FS_COMPUTE || fs_task_kind_of(p, task) == FS_SLEEP
                   ? times[REMOTE_END]
                   : times[LOCAL_END];
  if (fs_task_kind_of(p, task) == FS_RECV && fs_timeline_recv_occupation(t, task, &from, &to))
    return 0;
  *out = (interval){.key = fs_task_rank(p, task), .from = from, .to = to};
  return from >= 0 && to > from;
}

typedef void (*union_callback)(void *state, int64_t key, fs_time busy);

/* Sorts intervals by key and time and calls back with each key's union. */
static void unions(interval *v, int64_t n, union_callback each, void *state) {
  qsort(v, (size_t)n, sizeof *v, by_key_then_time);
  for (int64_t i = 0; i < n;) {
    int64_t j = i;
    fs_time busy = 0, from = v[i].from, to = v[i].to;
    for (; j < n && v[j].key == v[i].key; j++) {
      if (v[j].from > to)
        busy += to - from, from = v[j].from, to = v[j].to;
      else if (v[j].to > to)
        to = v[j].to;
    }
    busy += to - from;
    each(state, v[i].key, busy);
    i = j;
  }
}

static void rank_busy(void *state, int64_t key, fs_time busy) {
  ((fs_bandwidth *)state)->ranks[key].busy = busy;
}

static void link_busy(void *state, int64_t key, fs_time busy) {
  fs_bandwidth *b = state;
  int32_t ranks = b->program->ranks;
  b->links[b->link_count++] = (fs_bandwidth_link){.source = (int32_t)(key / ranks),
                                                  .target = (int32_t)(key % ranks),
                                                  .busy = busy};
}

static int by_bytes(const void *a, const void *b) {
  const fs_bandwidth_link *x = a, *y = b;
  if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
  if (x->source != y->source) return x->source < y->source ? -1 : 1;
  return x->target < y->target ? -1 : x->target > y->target;
}

static int by_link(const void *a, const void *b) {
  const fs_bandwidth_link *x = a, *y = b;
  if (x->source != y->source) return x->source < y->source ? -1 : 1;
  return x->target < y->target ? -1 : x->target > y->target;
}

/* Links: the union of their transfers' intervals, then their bytes. */
static int compute_links(fs_bandwidth *b, interval *v) {
  int32_t ranks = b->program->ranks;
  for (int64_t i = 0; i < b->transfer_count; i++) {
    const fs_bandwidth_transfer *x = &b->transfers[i];
    v[i] = (interval){.key = (int64_t)x->source * ranks + x->target,
                      .from = x->start,
                      .to = x->delivered};
  }
  b->links = malloc(((size_t)b->transfer_count + 1) * sizeof *b->links);
  if (!b->links) return -1;
  unions(v, b->transfer_count, link_busy, b);
  for (int64_t i = 0; i < b->transfer_count; i++) { /* links are sorted by (source, target) */
    const fs_bandwidth_transfer *x = &b->transfers[i];
    fs_bandwidth_link key = {.source = x->source, .target = x->target};
    fs_bandwidth_link *l = bsearch(&key, b->links, (size_t)b->link_count, sizeof key, by_link);
    l->bytes = fs_bytes_add(l->bytes, x->bytes), l->messages++;
  }
  qsort(b->links, (size_t)b->link_count, sizeof *b->links, by_bytes);
  return 0;
}

static void compute_totals(fs_bandwidth *b) {
  double sum = 0;
  int64_t timed = 0;
  for (int64_t i = 0; i < b->transfer_count; i++) {
    const fs_bandwidth_transfer *x = &b->transfers[i];
    fs_time duration = x->delivered - x->start;
    b->bytes = fs_bytes_add(b->bytes, x->bytes), b->messages++;
    b->duration_sum = fs_time_add(b->duration_sum, duration);
    b->ranks[x->source].sent = fs_bytes_add(b->ranks[x->source].sent, x->bytes);
    b->ranks[x->target].received = fs_bytes_add(b->ranks[x->target].received, x->bytes);
    if (duration > 0) sum += fs_bandwidth_gbps(x->bytes, duration), timed++;
  }
  b->instant = b->transfer_count - timed;
  b->mean_gbps = timed ? sum / (double)timed : 0;
  b->aggregate_gbps = fs_bandwidth_gbps(b->bytes, b->makespan);
  b->fennel_gbps = fs_bandwidth_gbps(b->bytes, b->duration_sum);
}

fs_bandwidth *fs_bandwidth_compute(const fs_timeline *t, fs_error *err) {
  const fs_program *p = fs_timeline_program(t);
  fs_bandwidth *b = calloc(1, sizeof *b);
  interval *v = malloc(((size_t)p->tasks + 1) * sizeof *v);
  if (b) {
    b->program = p;
    b->transfers = malloc(((size_t)p->tasks + 1) * sizeof *b->transfers);
    b->ranks = calloc((size_t)p->ranks, sizeof *b->ranks);
  }
  if (!b || !v || !b->transfers || !b->ranks) goto out_of_memory;
  int64_t busy = 0;
  for (int32_t task = 0; task < p->tasks; task++) {
    fs_time times[4];
    fs_timeline_task(t, task, times);
    for (int k = LOCAL_END; k <= REMOTE_END; k++)
      if (times[k] > b->makespan) b->makespan = times[k];
    if (as_transfer(t, task, &b->transfers[b->transfer_count])) b->transfer_count++;
    if (cpu_interval(t, task, &v[busy])) busy++;
  }
  unions(v, busy, rank_busy, b);
  compute_totals(b);
  if (compute_links(b, v)) goto out_of_memory;
  free(v);
  return b;
out_of_memory:
  free(v);
  fs_bandwidth_free(b);
  fs_error_set(err, "out of memory for the bandwidth of %d tasks", p->tasks);
  return NULL;
}

void fs_bandwidth_free(fs_bandwidth *b) {
  if (!b) return;
  free(b->transfers);
  free(b->ranks);
  free(b->links);
  free(b);
}

void fs_bandwidth_report_text(FILE *out, const fs_bandwidth *b, int max_rows) {
  char a[32], c[32];
  fprintf(out,
          "bandwidth  %lld transfers, %lld bytes in %s ns: aggregate %.6g GB/s, "
          "mean per transfer %.6g GB/s, Fennel's (bytes / sum of durations) %.6g GB/s\n",
          (long long)b->messages, (long long)b->bytes, fs_format_ns(a, b->makespan),
          b->aggregate_gbps, b->mean_gbps, b->fennel_gbps);
  if (b->instant)
    fprintf(out, "  %lld transfers took no time (left out of the mean)\n", (long long)b->instant);
  int32_t ranks = b->program->ranks;
  fprintf(out, "  rank      sent_bytes  received_bytes  busy_ns\n");
  for (int32_t r = 0; r < ranks && r < max_rows; r++)
    fprintf(out, "  %-8d  %10lld  %14lld  %s\n", r, (long long)b->ranks[r].sent,
            (long long)b->ranks[r].received, fs_format_ns(a, b->ranks[r].busy));
  if (ranks > max_rows) fprintf(out, "  (%d more ranks)\n", ranks - max_rows);
  fprintf(out, "  link      bytes       messages  busy_ns  GB/s_while_busy\n");
  for (int64_t i = 0; i < b->link_count && i < max_rows; i++) {
    const fs_bandwidth_link *l = &b->links[i];
    snprintf(c, sizeof c, "%d->%d", l->source, l->target);
    fprintf(out, "  %-8s  %10lld  %8lld  %s  %.6g\n", c, (long long)l->bytes,
            (long long)l->messages, fs_format_ns(a, l->busy), fs_bandwidth_gbps(l->bytes, l->busy));
  }
  if (b->link_count > max_rows)
    fprintf(out, "  (%lld more links)\n", (long long)(b->link_count - max_rows));
}

void fs_bandwidth_report_json(FILE *out, const fs_bandwidth *b) {
  char a[32], c[32], name[24];
  const fs_program *p = b->program;
  fprintf(out,
          "\"bandwidth\": {\"bytes\": %lld, \"messages\": %lld, \"makespan_ns\": %s, "
          "\"aggregate_gbps\": %.6g, \"mean_gbps\": %.6g, \"fennel_gbps\": %.6g, "
          "\"duration_sum_ns\": %s, \"instant_transfers\": %lld, \"ranks\": [",
          (long long)b->bytes, (long long)b->messages, fs_format_ns(a, b->makespan),
          b->aggregate_gbps, b->mean_gbps, b->fennel_gbps, fs_format_ns(c, b->duration_sum),
          (long long)b->instant);
  for (int32_t r = 0; r < p->ranks; r++)
    fprintf(out,
            "%s{\"rank\": %d, \"sent_bytes\": %lld, \"received_bytes\": %lld, \"busy_ns\": %s}",
            r ? ", " : "", r, (long long)b->ranks[r].sent, (long long)b->ranks[r].received,
            fs_format_ns(a, b->ranks[r].busy));
  fprintf(out, "], \"links\": [");
  for (int64_t i = 0; i < b->link_count; i++) {
    const fs_bandwidth_link *l = &b->links[i];
    fprintf(out,
            "%s{\"source\": %d, \"target\": %d, \"bytes\": %lld, \"messages\": %lld, "
            "\"busy_ns\": %s}",
            i ? ", " : "", l->source, l->target, (long long)l->bytes, (long long)l->messages,
            fs_format_ns(a, l->busy));
  }
  fprintf(out, "], \"transfers\": [");
  for (int64_t i = 0; i < b->transfer_count; i++) {
    const fs_bandwidth_transfer *x = &b->transfers[i];
    fprintf(out, "%s{\"task\": ", i ? ", " : "");
    fs_json_string(out, fs_task_name(p, x->task, name));
    fprintf(out,
            ", \"kind\": \"%s\", \"source\": %d, \"target\": %d, \"bytes\": %lld, "
            "\"start_ns\": %s, \"delivered_ns\": %s, \"gbps\": ",
            fs_task_kind_name(fs_task_kind_of(p, x->task)), x->source, x->target,
            (long long)x->bytes, fs_format_ns(a, x->start), fs_format_ns(c, x->delivered));
    if (x->delivered > x->start)
      fprintf(out, "%.6g}", fs_bandwidth_gbps(x->bytes, x->delivered - x->start));
    else
      fprintf(out, "null}");
  }
  fprintf(out, "]}");
}
