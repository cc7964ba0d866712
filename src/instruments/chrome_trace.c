/* chrome_trace.c: the Chrome trace-event writer (see chrome_trace.h and
 * docs/views/chrome.md).
 *
 * Perfetto binds a flow event to the slice on top of its thread's stack
 * when the event is processed, and processes events by time, at one time
 * complete events first (longest first), then the rest in file order. So
 * at each time this file lists: the complete events; then the flow events
 * bound to a complete event that starts there (its only slice starting
 * there, hence on top); then units of an instant followed by the flow
 * events bound to it (each instant is on top when its flows come). Zero
 * length marks are instants, never zero-length complete events, which would
 * be sorted before the flows and land on top of a slice's flows. */
#include "instruments/chrome_trace.h"

#include <stdlib.h>
#include <string.h>

enum { READY, START, LOCAL_END, REMOTE_END };
enum { SLICE, INSTANT, ARRIVAL, FLOW_START, FLOW_END };
enum { GROUP_SLICES, GROUP_BOUND_FLOWS, GROUP_POINTS };

typedef struct trace_event {
  fs_time ts, duration;
  int32_t task;   /* the task drawn, or the sender of a message */
  int32_t key;    /* orders the events of one time and group */
  int32_t rank;   /* the thread's rank */
  int32_t anchor; /* the task whose slice lane a flow event uses, -1: lane 0 */
  int64_t tid;
  uint8_t type, group, sub;
} trace_event;

typedef struct trace {
  const fs_timeline *timeline;
  const fs_program *program;
  const int32_t *node_of_rank;
  const fs_link_load *flows; /* NULL: no flow model's rates */
  fs_output *out;
  trace_event *events;
  int64_t count;
  int32_t *lane;  /* per task: the lane of its slice, -1 */
  int32_t *lanes; /* per rank: how many lanes */
  int32_t most_lanes;
} trace;

/* ---- what is drawn ---- */

/* The CPU time of a task: 1 with [*from, *to] (a point when equal), or 0
 * when the task takes none or did not finish. A recv's is its message's
 * receipt (fs_timeline_recv_occupation). */
static int occupation(const trace *t, int32_t task, fs_time *from, fs_time *to) {
  const fs_program *p = t->program;
  fs_time times[4];
  fs_timeline_task(t->timeline, task, times);
  int kind = fs_task_kind_of(p, task);
  *from = times[START];
  if (kind == FS_START || kind == FS_PROXY) return 0;
  if (kind == FS_RECV) {
    if (fs_timeline_recv_occupation(t->timeline, task, from, to)) return 0;
  } else {
    int held = (kind == FS_PUT || kind == FS_GET) && (fs_task_flags(p, task) & FS_BLOCKING);
    *to = times[held ? REMOTE_END : LOCAL_END];
  }
  return *from >= 0 && *to >= *from;
}

static trace_event *add(trace *t, int type, int group, fs_time ts, int32_t task, int32_t rank) {
  trace_event *e = &t->events[t->count++];
  memset(e, 0, sizeof *e);
  e->type = (uint8_t)type, e->group = (uint8_t)group, e->ts = ts;
  e->task = task, e->key = task, e->rank = rank, e->anchor = -1;
  return e;
}

/* The task's own slice or instant; returns whether it is a slice. */
static int add_task(trace *t, int32_t task, fs_time from, fs_time to) {
  int32_t rank = fs_task_rank(t->program, task);
  if (to > from) {
    add(t, SLICE, GROUP_SLICES, from, task, rank)->duration = to - from;
    return 1;
  }
  add(t, INSTANT, GROUP_POINTS, from, task, rank);
  return 0;
}

/* The flow start of a message sent by task, on its slice or after its
 * instant. */
static void add_flow_start(trace *t, int32_t task, fs_time from, int is_slice) {
  trace_event *e = add(t, FLOW_START, is_slice ? GROUP_BOUND_FLOWS : GROUP_POINTS, from, task,
                       fs_task_rank(t->program, task));
  if (is_slice)
    e->anchor = task;
  else
    e->sub = 1;
}

/* A one-sided transfer lands: a mark on the receiving rank and the flow's
 * end bound to it. */
static void add_arrival(trace *t, int32_t task, int32_t at_rank, fs_time when) {
  add(t, ARRIVAL, GROUP_POINTS, when, task, at_rank)->sub = 2;
  add(t, FLOW_END, GROUP_POINTS, when, task, at_rank)->sub = 3;
}

static void collect(trace *t) {
  const fs_program *p = t->program;
  for (int32_t task = 0; task < p->tasks; task++) {
    fs_time from, to, times[4];
    if (!occupation(t, task, &from, &to)) continue;
    int is_slice = add_task(t, task, from, to);
    int kind = fs_task_kind_of(p, task);
    fs_timeline_task(t->timeline, task, times);
    if ((kind == FS_PUT || kind == FS_GET) && times[REMOTE_END] >= 0) {
      add_flow_start(t, task, from, is_slice);
      add_arrival(t, task, kind == FS_PUT ? fs_task_peer(p, task) : fs_task_rank(p, task),
                  times[REMOTE_END]);
    } else if (kind == FS_SEND) {
      int32_t recv = fs_timeline_partner(t->timeline, task, NULL);
      fs_time recv_from, recv_to;
      if (recv < 0 || !occupation(t, recv, &recv_from, &recv_to)) continue;
      add_flow_start(t, task, from, is_slice);
      /* on the recv's slice at its start, or after the recv's instant */
      int on_slice = recv_to > recv_from;
      trace_event *e = add(t, FLOW_END, on_slice ? GROUP_BOUND_FLOWS : GROUP_POINTS, recv_from,
                           task, fs_task_rank(p, recv));
      e->key = recv;
      if (on_slice)
        e->anchor = recv;
      else
        e->sub = 1;
    }
  }
}

/* ---- lanes: a rank's slices that overlap go to further threads ---- */

typedef struct slice_ref {
  fs_time from, to;
  int32_t rank, task;
} slice_ref;

static int by_rank_then_time(const void *a, const void *b) {
  const slice_ref *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  if (x->to != y->to) return x->to < y->to ? -1 : 1;
  return (x->task > y->task) - (x->task < y->task);
}

/* Greedy: each slice, by start, takes the first lane free by then. */
static int assign_lanes(trace *t) {
  int64_t slices = 0;
  for (int64_t i = 0; i < t->count; i++) slices += t->events[i].type == SLICE;
  slice_ref *order = malloc((size_t)(slices + 1) * sizeof *order);
  fs_time *lane_end = malloc(sizeof *lane_end);
  int32_t capacity = 1;
  if (!order || !lane_end) {
    free(order), free(lane_end);
    return -1;
  }
  slices = 0;
  for (int64_t i = 0; i < t->count; i++) {
    const trace_event *e = &t->events[i];
    if (e->type == SLICE)
      order[slices++] = (slice_ref){e->ts, e->ts + e->duration, e->rank, e->task};
  }
  qsort(order, (size_t)slices, sizeof *order, by_rank_then_time);
  int32_t rank = -1, used = 0;
  for (int64_t i = 0; i < slices; i++) {
    const slice_ref *e = &order[i];
    if (e->rank != rank) rank = e->rank, used = 0;
    int32_t lane = 0;
    while (lane < used && lane_end[lane] > e->from) lane++;
    if (lane == capacity) {
      fs_time *grown = realloc(lane_end, (size_t)capacity * 2 * sizeof *lane_end);
      if (!grown) {
        free(order), free(lane_end);
        return -1;
      }
      lane_end = grown, capacity *= 2;
    }
    if (lane == used) used++;
    lane_end[lane] = e->to;
    t->lane[e->task] = lane;
    if (t->lanes[rank] < used) t->lanes[rank] = used;
    if (t->most_lanes < used) t->most_lanes = used;
  }
  free(order), free(lane_end);
  return 0;
}

static int64_t thread_id(const trace *t, int32_t rank, int32_t lane) {
  return (int64_t)lane * t->program->ranks + rank + 1;
}

static int64_t process_id(const trace *t, int32_t rank) {
  return (t->node_of_rank ? (int64_t)t->node_of_rank[rank] : rank) + 1;
}

static void resolve_threads(trace *t) {
  for (int64_t i = 0; i < t->count; i++) {
    trace_event *e = &t->events[i];
    int32_t of = e->type == SLICE ? e->task : e->anchor;
    e->tid = thread_id(t, e->rank, of >= 0 ? t->lane[of] : 0);
  }
}

static int by_time(const void *a, const void *b) {
  const trace_event *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->group != y->group) return x->group < y->group ? -1 : 1;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->sub > y->sub) - (x->sub < y->sub);
}

/* ---- writing ---- */

/* Exact decimal microseconds: 1358039 ps is "1.358039", 5000000 is "5". */
static const char *format_us(char buffer[32], fs_time ps) {
  long long whole = (long long)(ps / FS_US), fraction = (long long)(ps % FS_US);
  if (!fraction) {
    snprintf(buffer, 32, "%lld", whole);
    return buffer;
  }
  int n = snprintf(buffer, 32, "%lld.%06lld", whole, fraction);
  while (buffer[n - 1] == '0') buffer[--n] = '\0';
  return buffer;
}

/* Length of the valid UTF-8 sequence at s (0: invalid). */
static int utf8_length(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
  if (!n || s[0] > 0xf4) return 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
  if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
  return n;
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD. */
static void write_string(fs_output *out, const char *text) {
  fs_output_puts(out, "\"");
  for (const unsigned char *c = (const unsigned char *)text; *c;) {
    int n = utf8_length(c);
    if (*c == '"' || *c == '\\')
      fs_output_printf(out, "\\%c", *c);
    else if (*c < 0x20)
      fs_output_printf(out, "\\u%04x", *c);
    else if (n)
      fs_output_write(out, c, (size_t)n);
    else
      fs_output_puts(out, "\\ufffd");
    c += n ? n : 1;
  }
  fs_output_puts(out, "\"");
}

static const char *task_title(const fs_program *p, int32_t task) {
  const char *label = fs_task_label(p, task);
  return label ? label : fs_task_kind_name(fs_task_kind_of(p, task));
}

/* The shortest of %.15g, %.16g, %.17g that reads back exactly. */
static const char *format_double(char buffer[40], double value) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buffer, 40, "%.*g", digits, value);
    if (strtod(buffer, NULL) == value) break;
  }
  return buffer;
}

/* A transfer's rate changes under a flow model, as an args member. */
static void write_rates(const trace *t, int32_t task) {
  const fs_flow_change *c;
  int64_t count = t->flows ? fs_link_load_rates(t->flows, task, &c) : 0;
  if (!count) return;
  fs_output_puts(t->out, ",\"rates\":[");
  for (int64_t i = 0; i < count; i++) {
    char ts[32], rate[40];
    fs_output_printf(t->out, "%s{\"from_us\":%s,\"Bps\":%s}", i ? "," : "", format_us(ts, c[i].t),
                     format_double(rate, c[i].rate));
  }
  fs_output_puts(t->out, "]");
}

/* args: the task id (and name, when the program keeps names), its size,
 * the rank at the other end (peer >= 0), and the core of its node it ran
 * on (runs on cores; not for an arrival). */
static void write_args(const trace *t, int32_t task, int32_t peer, int with_core) {
  const fs_program *p = t->program;
  fs_output_printf(t->out, ",\"args\":{\"task\":%d", task);
  if (p->named) { /* read from a file: its own name too */
    char buffer[24];
    fs_output_puts(t->out, ",\"task_name\":");
    write_string(t->out, fs_task_name(p, task, buffer));
  }
  if (fs_task_flags(p, task) & FS_HAS_SIZE)
    fs_output_printf(t->out, ",\"size\":%lld", (long long)fs_task_value(p, task));
  if (peer >= 0) fs_output_printf(t->out, ",\"peer\":%d", peer);
  int32_t core = with_core ? fs_timeline_core(t->timeline, task) : -1;
  if (core >= 0) fs_output_printf(t->out, ",\"core\":%d", core);
  if (with_core) write_rates(t, task);
  fs_output_puts(t->out, "}");
}

/* The rank at the other end of a task: a recv's actual source. */
static int32_t peer_of(const trace *t, int32_t task) {
  const fs_program *p = t->program;
  if (fs_task_kind_of(p, task) != FS_RECV) return fs_task_peer(p, task);
  int32_t send = fs_timeline_partner(t->timeline, task, NULL);
  return send >= 0 ? fs_task_rank(p, send) : fs_task_peer(p, task);
}

static void write_head(const trace *t, const trace_event *e, const char *name, const char *category,
                       const char *phase) {
  char ts[32];
  fs_output_puts(t->out, ",\n{\"name\":");
  write_string(t->out, name);
  fs_output_printf(t->out, ",\"cat\":\"%s\",\"ph\":\"%s\"", category, phase);
  if (e->type == FLOW_START || e->type == FLOW_END)
    fs_output_printf(t->out, "%s,\"id\":%d", e->type == FLOW_END ? ",\"bp\":\"e\"" : "", e->task);
  if (e->type == INSTANT || e->type == ARRIVAL) fs_output_puts(t->out, ",\"s\":\"t\"");
  fs_output_printf(t->out, ",\"pid\":%lld,\"tid\":%lld,\"ts\":%s",
                   (long long)process_id(t, e->rank), (long long)e->tid, format_us(ts, e->ts));
}

static void write_event(const trace *t, const trace_event *e) {
  const fs_program *p = t->program;
  const char *kind = fs_task_kind_name(fs_task_kind_of(p, e->task));
  char duration[32];
  switch (e->type) {
    case SLICE:
      write_head(t, e, task_title(p, e->task), kind, "X");
      fs_output_printf(t->out, ",\"dur\":%s", format_us(duration, e->duration));
      write_args(t, e->task, peer_of(t, e->task), 1);
      break;
    case INSTANT:
      write_head(t, e, task_title(p, e->task), kind, "i");
      write_args(t, e->task, peer_of(t, e->task), 1);
      break;
    case ARRIVAL: /* args: where the data comes from */
      write_head(t, e, task_title(p, e->task), "arrival", "i");
      write_args(t, e->task,
                 fs_task_kind_of(p, e->task) == FS_PUT ? fs_task_rank(p, e->task)
                                                       : fs_task_peer(p, e->task),
                 0);
      break;
    default: write_head(t, e, kind, "message", e->type == FLOW_START ? "s" : "f"); break;
  }
  fs_output_puts(t->out, "}");
}

typedef struct node_rank {
  int32_t node, rank;
} node_rank;

static int by_node(const void *a, const void *b) {
  const node_rank *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Metadata: per node its name and order (on the thread of its first rank,
 * so that no other thread is made), per lane its name and order. */
static int write_metadata(const trace *t) {
  int32_t ranks = t->program->ranks;
  node_rank *pairs = malloc(((size_t)ranks + 1) * sizeof *pairs);
  if (!pairs) return -1;
  for (int32_t r = 0; r < ranks; r++) pairs[r] = (node_rank){(int32_t)(process_id(t, r) - 1), r};
  qsort(pairs, (size_t)ranks, sizeof *pairs, by_node);
  const char *separator = "\n";
  for (int32_t i = 0; i < ranks; i++) {
    if (i > 0 && pairs[i].node == pairs[i - 1].node) continue;
    long long pid = (long long)pairs[i].node + 1, tid = (long long)thread_id(t, pairs[i].rank, 0);
    fs_output_printf(t->out,
                     "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,"
                     "\"args\":{\"name\":\"node %d\"}},\n"
                     "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,"
                     "\"args\":{\"sort_index\":%d}}",
                     separator, pid, tid, pairs[i].node, pid, tid, pairs[i].node);
    separator = ",\n";
  }
  free(pairs);
  for (int32_t r = 0; r < ranks; r++)
    for (int32_t lane = 0; lane < t->lanes[r]; lane++) {
      long long pid = (long long)process_id(t, r), tid = (long long)thread_id(t, r, lane);
      fs_output_printf(t->out,
                       ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,"
                       "\"args\":{\"name\":\"rank %d",
                       pid, tid, r);
      if (lane > 0) fs_output_printf(t->out, " lane %d", lane);
      fs_output_printf(t->out,
                       "\"}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%lld,"
                       "\"tid\":%lld,\"args\":{\"sort_index\":%lld}}",
                       pid, tid, (long long)r * t->most_lanes + lane);
    }
  return 0;
}

/* A process "links" after the nodes, and per link that carried a flow a
 * counter of its rate at each change (from 0 at time 0). Its thread id
 * is one no rank lane uses. */
static void write_link_counters(const trace *t) {
  int32_t links = t->flows ? fs_link_load_count(t->flows) : 0;
  if (!links) return;
  int64_t last_node = 0;
  for (int32_t r = 0; r < t->program->ranks; r++)
    if (process_id(t, r) > last_node) last_node = process_id(t, r);
  long long pid = (long long)last_node + 1;
  long long tid = (long long)t->most_lanes * t->program->ranks + 1;
  fs_output_printf(t->out,
                   ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,"
                   "\"args\":{\"name\":\"links\"}},\n"
                   "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,"
                   "\"args\":{\"sort_index\":%lld}}",
                   pid, tid, pid, tid, pid - 1);
  for (int32_t k = 0; k < links; k++) {
    fs_link_stats s;
    const fs_flow_change *c;
    fs_link_load_get(t->flows, k, &s);
    int64_t count = fs_link_load_changes(t->flows, k, &c); /* 0: not kept */
    for (int64_t i = count ? -1 : 0; i < count; i++) {
      if (i < 0 && c[0].t == 0) continue; /* the start is a change */
      char ts[32], rate[40];
      fs_output_puts(t->out, ",\n{\"name\":");
      write_string(t->out, s.link);
      fs_output_printf(t->out,
                       ",\"ph\":\"C\",\"pid\":%lld,\"tid\":%lld,\"ts\":%s,\"args\":{\"B/s\":%s}}",
                       pid, tid, format_us(ts, i < 0 ? 0 : c[i].t),
                       format_double(rate, i < 0 ? 0 : c[i].rate));
    }
  }
}

static int check_nodes(const fs_program *p, const int32_t *node_of_rank, fs_error *err) {
  for (int32_t r = 0; node_of_rank && r < p->ranks; r++)
    if (node_of_rank[r] < 0 || node_of_rank[r] == INT32_MAX)
      return fs_error_set(err, "chrome trace: rank %d is on node %d (nodes are 0 or more)", r,
                          node_of_rank[r]);
  return 0;
}

static int build(trace *t) {
  const fs_program *p = t->program;
  t->events = malloc(((size_t)p->tasks * 4 + 1) * sizeof *t->events);
  t->lane = malloc(((size_t)p->tasks + 1) * sizeof *t->lane);
  t->lanes = malloc(((size_t)p->ranks + 1) * sizeof *t->lanes);
  if (!t->events || !t->lane || !t->lanes) return -1;
  for (int32_t i = 0; i < p->tasks; i++) t->lane[i] = -1;
  for (int32_t r = 0; r < p->ranks; r++) t->lanes[r] = 1; /* every rank has a thread */
  t->most_lanes = 1;
  collect(t);
  if (assign_lanes(t)) return -1;
  resolve_threads(t);
  qsort(t->events, (size_t)t->count, sizeof *t->events, by_time);
  return 0;
}

int fs_chrome_trace_write(const fs_timeline *timeline, const int32_t *node_of_rank, fs_output *out,
                          fs_error *err) {
  return fs_chrome_trace_write_flows(timeline, node_of_rank, NULL, out, err);
}

int fs_chrome_trace_write_flows(const fs_timeline *timeline, const int32_t *node_of_rank,
                                const fs_link_load *flows, fs_output *out, fs_error *err) {
  trace t = {.timeline = timeline,
             .program = fs_timeline_program(timeline),
             .node_of_rank = node_of_rank,
             .flows = flows,
             .out = out};
  int failed = check_nodes(t.program, node_of_rank, err);
  if (!failed && build(&t)) failed = fs_error_set(err, "chrome trace: out of memory");
  if (!failed) {
    fs_output_puts(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    if (write_metadata(&t)) failed = fs_error_set(err, "chrome trace: out of memory");
  }
  for (int64_t i = 0; i < t.count && !failed; i++) write_event(&t, &t.events[i]);
  if (!failed) write_link_counters(&t);
  free(t.events), free(t.lane), free(t.lanes);
  if (failed) {
    fs_output_abort(out);
    return -1;
  }
  if (fs_output_puts(out, "\n]}\n")) {
    fs_error_set(err, "%s: write failed", fs_output_path(out));
    fs_output_abort(out);
    return -1;
  }
  return fs_output_commit(out, err);
}
