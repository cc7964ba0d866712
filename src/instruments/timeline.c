/* timeline.c: the recorder instrument and its CSV writer. */
#include "instruments/timeline.h"

#include <stdlib.h>
#include <string.h>

enum { READY, START, LOCAL_END, REMOTE_END };

struct fs_timeline {
  const fs_program *program;
  fs_time *times;   /* 4 per task */
  int32_t *partner; /* per task: the send or recv it was matched with, -1 */
  fs_time *matched; /* per task: when (the same for both) */
  fs_time *receipt; /* 2 per task: a send's message taken by its receiver's CPU, from, to */
  int32_t *core;    /* per task: the core of its node it ran on (runs on cores), -1 */
};

static int has_messages(const fs_program *p) {
  for (int32_t t = 0; t < p->tasks; t++)
    if (fs_task_kind_of(p, t) == FS_SEND || fs_task_kind_of(p, t) == FS_RECV) return 1;
  return 0;
}

fs_timeline *fs_timeline_new(const fs_program *program) {
  fs_timeline *t = malloc(sizeof *t);
  if (!t) return NULL;
  t->program = program;
  t->times = malloc(((size_t)program->tasks * 4 + 1) * sizeof *t->times);
  t->core = malloc(((size_t)program->tasks + 1) * sizeof *t->core);
  t->partner = NULL, t->matched = NULL, t->receipt = NULL;
  if (t->times && has_messages(program)) {
    t->partner = malloc(((size_t)program->tasks + 1) * sizeof *t->partner);
    t->matched = malloc(((size_t)program->tasks + 1) * sizeof *t->matched);
    t->receipt = malloc(((size_t)program->tasks * 2 + 1) * sizeof *t->receipt);
  }
  if (!t->times || !t->core ||
      (has_messages(program) && (!t->partner || !t->matched || !t->receipt))) {
    fs_timeline_free(t);
    return NULL;
  }
  fs_timeline_reset(t);
  return t;
}

void fs_timeline_free(fs_timeline *timeline) {
  if (!timeline) return;
  free(timeline->times);
  free(timeline->core);
  free(timeline->partner);
  free(timeline->matched);
  free(timeline->receipt);
  free(timeline);
}

void fs_timeline_reset(fs_timeline *timeline) {
  for (int64_t i = 0; i < (int64_t)timeline->program->tasks * 4; i++) timeline->times[i] = -1;
  for (int32_t i = 0; i < timeline->program->tasks; i++) timeline->core[i] = -1;
  for (int32_t i = 0; timeline->partner && i < timeline->program->tasks; i++) {
    timeline->partner[i] = -1, timeline->matched[i] = -1;
    timeline->receipt[2 * (int64_t)i] = timeline->receipt[2 * (int64_t)i + 1] = -1;
  }
}

static void on_ready(void *state, int32_t task, fs_time t) {
  ((fs_timeline *)state)->times[(int64_t)task * 4 + READY] = t;
}
static void on_started(void *state, int32_t task, fs_time t) {
  ((fs_timeline *)state)->times[(int64_t)task * 4 + START] = t;
}
static void on_local(void *state, int32_t task, fs_time t) {
  ((fs_timeline *)state)->times[(int64_t)task * 4 + LOCAL_END] = t;
}
static void on_remote(void *state, int32_t task, fs_time t) {
  ((fs_timeline *)state)->times[(int64_t)task * 4 + REMOTE_END] = t;
}

static void on_placed(void *state, int32_t task, int32_t core, fs_time t) {
  (void)t;
  ((fs_timeline *)state)->core[task] = core;
}

static void on_matched(void *state, int32_t send, int32_t recv, fs_time t) {
  fs_timeline *timeline = state;
  timeline->partner[send] = recv, timeline->partner[recv] = send;
  timeline->matched[send] = timeline->matched[recv] = t;
}

static void on_received(void *state, int32_t send, fs_time start, fs_time end) {
  fs_timeline *timeline = state;
  timeline->receipt[2 * (int64_t)send] = start, timeline->receipt[2 * (int64_t)send + 1] = end;
}

fs_observer fs_timeline_observer(fs_timeline *timeline) {
  return (fs_observer){.state = timeline,
                       .ready = on_ready,
                       .started = on_started,
                       .local_complete = on_local,
                       .remote_complete = on_remote,
                       .placed = on_placed,
                       .matched = timeline->partner ? on_matched : NULL,
                       .received = timeline->partner ? on_received : NULL};
}

int fs_timeline_receipt(const fs_timeline *timeline, int32_t send, fs_time *start, fs_time *end) {
  if (!timeline->receipt || timeline->receipt[2 * (int64_t)send] < 0) return -1;
  *start = timeline->receipt[2 * (int64_t)send], *end = timeline->receipt[2 * (int64_t)send + 1];
  return 0;
}

int32_t fs_timeline_partner(const fs_timeline *timeline, int32_t task, fs_time *when) {
  if (!timeline->partner) return -1;
  if (when) *when = timeline->matched[task];
  return timeline->partner[task];
}

int fs_timeline_recv_occupation(const fs_timeline *timeline, int32_t recv, fs_time *from,
                                fs_time *to) {
  fs_time matched;
  int32_t send = fs_timeline_partner(timeline, recv, &matched);
  if (send < 0) return -1;
  if (fs_timeline_receipt(timeline, send, from, to) == 0) return 0;
  *from = matched, *to = timeline->times[(int64_t)recv * 4 + REMOTE_END];
  return *from >= 0 && *to >= *from ? 0 : -1;
}

const fs_program *fs_timeline_program(const fs_timeline *timeline) { return timeline->program; }

int32_t fs_timeline_core(const fs_timeline *timeline, int32_t task) { return timeline->core[task]; }

void fs_timeline_task(const fs_timeline *timeline, int32_t task, fs_time times[4]) {
  memcpy(times, timeline->times + (int64_t)task * 4, 4 * sizeof *times);
}

/* A field per RFC 4180: quoted, its quotes doubled, when it holds a ',',
 * a '"', CR or LF (labels may hold any of them). */
static int put_field(fs_output *out, const char *text) {
  if (!text[strcspn(text, ",\"\r\n")]) return fs_output_puts(out, text);
  int failed = fs_output_puts(out, "\"");
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\"");
    failed |= fs_output_write(out, p, n);
    p += n;
    if (*p == '"') failed |= fs_output_puts(out, "\"\""), p++;
  }
  return failed | fs_output_puts(out, "\"");
}

int fs_timeline_write_csv(const fs_timeline *timeline, fs_output *out, fs_error *err) {
  const fs_program *p = timeline->program;
  int failed =
      fs_output_puts(out,
                     "name,kind,rank,core,ready_ns,start_ns,local_end_ns,remote_end_ns,label\n");
  char name[24], value[32];
  for (int32_t t = 0; t < p->tasks && !failed; t++) {
    const char *label = fs_task_label(p, t);
    failed |= put_field(out, fs_task_name(p, t, name));
    failed |= fs_output_printf(out, ",%s,%d,", fs_task_kind_name(fs_task_kind_of(p, t)),
                               fs_task_rank(p, t));
    if (timeline->core[t] >= 0) failed |= fs_output_printf(out, "%d", timeline->core[t]);
    for (int k = 0; k < 4; k++) {
      fs_time v = timeline->times[(int64_t)t * 4 + k];
      failed |= fs_output_printf(out, ",%s", v < 0 ? "" : fs_format_ns(value, v));
    }
    failed |= fs_output_puts(out, ",") | put_field(out, label ? label : "") |
              fs_output_puts(out, "\n");
  }
  if (failed) {
    fs_error_set(err, "%s: write failed", fs_output_path(out)); /* before abort frees out */
    fs_output_abort(out);
    return -1;
  }
  return fs_output_commit(out, err);
}
