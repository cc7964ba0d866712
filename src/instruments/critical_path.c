/* critical_path.c: walks a finished run's timeline back from the makespan
 * (critical_path.h says how) and splits each step's time into parts. */
#include "instruments/critical_path.h"

#include <stdlib.h>

#include "instruments/report.h"

enum { READY, START, LOCAL_END, REMOTE_END };

static const char *const part_names[FS_PATH_PARTS] = {"waiting",   "cpu",        "latency",
                                                      "bandwidth", "contention", "network"};
static const char *const via_names[] = {"end", "local", "start", "message"};

const char *fs_path_part_name(int part) { return part_names[part]; }

/* Predecessors (CSR), each with the point it is waited for in its top bits,
 * as in the program's successor array. */
typedef struct walk {
  const fs_timeline *timeline;
  const fs_program *program;
  const fs_network_model *network;
  uint32_t *before_at, *before;
  fs_critical_path *cp;
  int64_t capacity;
} walk;

static int build_predecessors(walk *w) {
  const fs_program *p = w->program;
  w->before_at = calloc((size_t)p->tasks + 2, sizeof *w->before_at);
  w->before = malloc(((size_t)p->dependencies + 1) * sizeof *w->before);
  if (!w->before_at || !w->before) return -1;
  uint32_t buffer[FS_TEMPLATE_MAX_EDGES], n;
  for (int32_t a = 0; a < p->tasks; a++) {
    const uint32_t *successor = fs_task_successors(p, a, buffer, &n);
    for (uint32_t i = 0; i < n; i++) w->before_at[FS_EDGE_TASK(successor[i]) + 2]++;
  }
  for (int32_t t = 0; t < p->tasks; t++) w->before_at[t + 2] += w->before_at[t + 1];
  for (int32_t a = 0; a < p->tasks; a++) {
    const uint32_t *successor = fs_task_successors(p, a, buffer, &n);
    for (uint32_t i = 0; i < n; i++) {
      uint32_t e = successor[i];
      w->before[w->before_at[FS_EDGE_TASK(e) + 1]++] = (uint32_t)a | (e & ~0x3fffffffu);
    }
  }
  return 0; /* before[before_at[t] .. before_at[t+1]) */
}

static fs_time time_at(const walk *w, int32_t task, int via) {
  fs_time times[4];
  fs_timeline_task(w->timeline, task, times);
  return times[via == FS_VIA_START ? START : via == FS_VIA_LOCAL ? LOCAL_END : REMOTE_END];
}

/* The dependency that made task ready at `ready`: the latest point reached
 * (ties: the lowest id); -1 when none. */
static int32_t deciding(const walk *w, int32_t task, fs_time ready, int *via, fs_time *at) {
  int32_t best = -1;
  for (uint32_t i = w->before_at[task]; i < w->before_at[task + 1]; i++) {
    uint32_t e = w->before[i];
    int32_t d = FS_EDGE_TASK(e);
    int point = e & FS_EDGE_LOCAL ? FS_VIA_LOCAL : e & FS_EDGE_START ? FS_VIA_START : FS_VIA_END;
    fs_time t = time_at(w, d, point);
    if (t < 0 || t > ready) continue;
    if (best < 0 || t > *at || (t == *at && d < best)) best = d, *via = point, *at = t;
  }
  return best;
}

/* The network time n of a transfer: priced alone as latency + size part,
 * the rest contention; unpriced, one "network" part. */
static void split_network(walk *w, fs_path_step *s, fs_time n) {
  fs_time latency, per_size;
  if (fs_network_model_price(w->network, w->program, s->task, &latency, &per_size)) {
    s->part[FS_PATH_NETWORK] += n;
    return;
  }
  if (latency < 0) latency = 0;
  if (per_size < 0) per_size = 0;
  fs_time l = latency < n ? latency : n, b = per_size < n - l ? per_size : n - l;
  s->part[FS_PATH_LATENCY] += l, s->part[FS_PATH_BANDWIDTH] += b;
  s->part[FS_PATH_CONTENTION] += n - l - b;
  fs_time priced = fs_time_add(latency, per_size); /* each may be the limit: saturate */
  if (priced > n) {
    w->cp->overpriced = fs_time_add(w->cp->overpriced, priced - n);
    w->cp->overpriced_steps++;
  }
}

/* A put, get or send from its start to `end`: the CPU part while the CPU
 * was held before the data was delivered (at `delivered`), then the
 * network. A transfer that holds its CPU until delivery (hockney) has no
 * CPU part of its own beyond what the model does not price. */
static void split_transfer(walk *w, fs_path_step *s, fs_time local, fs_time delivered) {
  fs_time span = s->end - s->start;
  if (local < delivered) {
    fs_time cpu = (local < s->end ? local : s->end) - s->start;
    if (cpu < 0) cpu = 0;
    s->part[FS_PATH_CPU] += cpu;
    if (span > cpu) split_network(w, s, span - cpu);
    return;
  }
  fs_time latency, per_size;
  if (!fs_network_model_price(w->network, w->program, s->task, &latency, &per_size)) {
    fs_time alone = fs_time_add(latency > 0 ? latency : 0, per_size > 0 ? per_size : 0);
    fs_time cpu = span > alone ? span - alone : 0;
    s->part[FS_PATH_CPU] += cpu, span -= cpu;
  }
  if (span > 0) split_network(w, s, span);
}

/* When a send's data was delivered: its match (the message was taken by
 * its receiver), else its completion. */
static fs_time send_delivered(const walk *w, int32_t send, fs_time end) {
  fs_time matched;
  return fs_timeline_partner(w->timeline, send, &matched) >= 0 && matched >= 0 ? matched : end;
}

static int append(walk *w, const fs_path_step *s) {
  fs_critical_path *cp = w->cp;
  if (cp->step_count == w->capacity) {
    int64_t want = w->capacity ? 2 * w->capacity : 64;
    fs_path_step *bigger = realloc(cp->steps, (size_t)want * sizeof *bigger);
    if (!bigger) return -1;
    cp->steps = bigger, w->capacity = want;
  }
  cp->steps[cp->step_count++] = *s;
  for (int k = 0; k < FS_PATH_PARTS; k++) cp->part[k] = fs_time_add(cp->part[k], s->part[k]);
  return 0;
}

/* One step: what task did from its start to `end`; returns the task the
 * walk goes on with at *next_end (the recv's message), or -1 to go on with
 * its dependencies. */
static int32_t account(walk *w, fs_path_step *s, fs_time *next_end) {
  const fs_program *p = w->program;
  fs_time times[4];
  fs_timeline_task(w->timeline, s->task, times);
  s->ready = times[READY], s->start = times[START];
  int kind = fs_task_kind_of(p, s->task);
  if (kind == FS_RECV) {
    fs_time matched;
    int32_t send = fs_timeline_partner(w->timeline, s->task, &matched);
    if (send >= 0 && matched > s->start && matched <= s->end) {
      s->part[FS_PATH_CPU] = s->end - matched; /* receiving */
      s->ready = s->start = matched;
      *next_end = matched;
      return send;
    }
  }
  fs_time span = s->end - s->start;
  s->part[FS_PATH_WAITING] = s->start - s->ready;
  if (s->via == FS_VIA_START || span <= 0) return -1;
  if (kind == FS_PUT || kind == FS_GET)
    split_transfer(w, s, times[LOCAL_END], times[REMOTE_END]);
  else if (kind == FS_SEND)
    split_transfer(w, s, times[LOCAL_END], send_delivered(w, s->task, times[REMOTE_END]));
  else
    s->part[kind == FS_START ? FS_PATH_WAITING : FS_PATH_CPU] += span; /* a start's skew */
  return -1;
}

static int walk_back(walk *w, int32_t task) {
  fs_path_step s = {.task = task, .via = FS_VIA_END, .end = w->cp->makespan};
  for (int64_t guard = 0; guard <= 2 * (int64_t)w->program->tasks + 2; guard++) {
    fs_time next_end = 0;
    int32_t send = account(w, &s, &next_end);
    int kind = fs_task_kind_of(w->program, s.task);
    int shown = !(kind == FS_PROXY || kind == FS_START) || s.end > s.ready;
    if (shown && append(w, &s)) return -1;
    if (send >= 0) {
      s = (fs_path_step){.task = send, .via = FS_VIA_MESSAGE, .end = next_end};
      continue;
    }
    int via = FS_VIA_END;
    fs_time at = 0;
    int32_t d = deciding(w, s.task, s.ready, &via, &at);
    if (d < 0 || at < s.ready) { /* nothing explains the gap: counted as waiting */
      fs_path_step gap = {.task = s.task,
                          .via = s.via,
                          .ready = d < 0 ? 0 : at,
                          .start = s.ready,
                          .end = s.ready};
      gap.part[FS_PATH_WAITING] = s.ready - gap.ready;
      if (gap.part[FS_PATH_WAITING] > 0 && append(w, &gap)) return -1;
    }
    if (d < 0) return 0;
    s = (fs_path_step){.task = d, .via = via, .end = at};
  }
  return 0;
}

static void reverse(fs_path_step *v, int64_t n) {
  for (int64_t i = 0, j = n - 1; i < j; i++, j--) {
    fs_path_step t = v[i];
    v[i] = v[j], v[j] = t;
  }
}

fs_critical_path *fs_critical_path_compute(const fs_timeline *t, const fs_network_model *network,
                                           fs_error *err) {
  const fs_program *p = fs_timeline_program(t);
  walk w = {.timeline = t, .program = p, .network = network};
  fs_critical_path *cp = w.cp = calloc(1, sizeof *cp);
  if (!cp || build_predecessors(&w)) goto out_of_memory;
  cp->program = p;
  cp->priced = fs_network_model_can_price(network);
  cp->flows = network && network->reports && network->reports->set_flow_observer;
  int32_t last = -1;
  for (int32_t task = 0; task < p->tasks; task++) {
    fs_time end = time_at(&w, task, FS_VIA_END);
    if (end > cp->makespan || (last < 0 && end >= 0)) cp->makespan = end, last = task;
  }
  if (last >= 0 && walk_back(&w, last)) goto out_of_memory;
  reverse(cp->steps, cp->step_count);
  free(w.before_at);
  free(w.before);
  return cp;
out_of_memory:
  free(w.before_at);
  free(w.before);
  fs_critical_path_free(cp);
  fs_error_set(err, "out of memory for the critical path of %d tasks", p->tasks);
  return NULL;
}

void fs_critical_path_free(fs_critical_path *cp) {
  if (!cp) return;
  free(cp->steps);
  free(cp);
}

static double share(fs_time part, fs_time whole) {
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static void step_text(FILE *out, const fs_critical_path *cp, const fs_path_step *s) {
  const fs_program *p = cp->program;
  char name[24], a[32], b[32], c[32];
  fprintf(out, "  %s %s rank %d", fs_task_name(p, s->task, name),
          fs_task_kind_name(fs_task_kind_of(p, s->task)), fs_task_rank(p, s->task));
  if (s->via != FS_VIA_END) fprintf(out, " (%s)", via_names[s->via]);
  fprintf(out, ": ready %s start %s end %s ns;", fs_format_ns(a, s->ready),
          fs_format_ns(b, s->start), fs_format_ns(c, s->end));
  for (int k = 0; k < FS_PATH_PARTS; k++)
    if (s->part[k]) fprintf(out, " %s %s", part_names[k], fs_format_ns(a, s->part[k]));
  fprintf(out, "\n");
}

void fs_critical_path_report_text(FILE *out, const fs_critical_path *cp, int max_steps) {
  char a[32];
  fprintf(out, "critical path  %s ns in %lld steps\n", fs_format_ns(a, cp->makespan),
          (long long)cp->step_count);
  for (int k = 0; k < FS_PATH_PARTS; k++) {
    if (k == FS_PATH_NETWORK && !cp->part[k] && cp->priced) continue;
    if (k >= FS_PATH_LATENCY && k <= FS_PATH_CONTENTION && !cp->priced) continue;
    fprintf(out, "  %-11s %s ns (%.2f%%)\n", part_names[k], fs_format_ns(a, cp->part[k]),
            share(cp->part[k], cp->makespan));
  }
  if (cp->priced && cp->flows)
    fprintf(out, "  (a flow model: bandwidth is a transfer's size at the rate it would get alone "
                 "on its route; contention is sharing, the time lost to other flows)\n");
  if (cp->overpriced_steps)
    fprintf(out, "  (%lld steps took %s ns less than the model's price: counted as 0 contention)\n",
            (long long)cp->overpriced_steps, fs_format_ns(a, cp->overpriced));
  int64_t first = max_steps >= 0 && cp->step_count > max_steps ? cp->step_count - max_steps : 0;
  if (first) fprintf(out, "  (%lld earlier steps not shown)\n", (long long)first);
  for (int64_t i = first; i < cp->step_count; i++) step_text(out, cp, &cp->steps[i]);
}

void fs_critical_path_report_json(FILE *out, const fs_critical_path *cp) {
  static const int order[] = {FS_PATH_CPU,        FS_PATH_LATENCY, FS_PATH_BANDWIDTH,
                              FS_PATH_CONTENTION, FS_PATH_WAITING, FS_PATH_NETWORK};
  const fs_program *p = cp->program;
  char a[32], b[32], c[32], name[24];
  fprintf(out, "\"critical_path\": {\"makespan_ns\": %s", fs_format_ns(a, cp->makespan));
  for (int i = 0; i < FS_PATH_PARTS; i++)
    fprintf(out, ", \"%s_ns\": %s", part_names[order[i]], fs_format_ns(a, cp->part[order[i]]));
  fprintf(out, ", \"priced\": %s, \"overpriced_ns\": %s, \"overpriced_steps\": %lld, \"steps\": [",
          cp->priced ? "true" : "false", fs_format_ns(a, cp->overpriced),
          (long long)cp->overpriced_steps);
  for (int64_t i = 0; i < cp->step_count; i++) {
    const fs_path_step *s = &cp->steps[i];
    fprintf(out, "%s{\"task\": ", i ? ", " : "");
    fs_json_string(out, fs_task_name(p, s->task, name));
    fprintf(out,
            ", \"kind\": \"%s\", \"rank\": %d, \"via\": \"%s\", \"ready_ns\": %s, "
            "\"start_ns\": %s, \"end_ns\": %s",
            fs_task_kind_name(fs_task_kind_of(p, s->task)), fs_task_rank(p, s->task),
            via_names[s->via], fs_format_ns(a, s->ready), fs_format_ns(b, s->start),
            fs_format_ns(c, s->end));
    for (int k = 0; k < FS_PATH_PARTS; k++)
      fprintf(out, ", \"%s_ns\": %s", part_names[order[k]], fs_format_ns(a, s->part[order[k]]));
    fprintf(out, "}");
  }
  fprintf(out, "]}");
}
