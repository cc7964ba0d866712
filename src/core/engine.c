/* engine.c: the event loop. One pass over a queue of timed events; ranks
 * keep a list of waiting tasks; a dispatch round at the end of each instant
 * gives every idle rank its next task. No allocation once a run has begun,
 * except the event queue's buckets growing to their high-water mark. */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#include "event_queue.h"

/* Event payload: task id (or model payload) << 2 | kind. */
enum { EVENT_COMPLETE = 0, EVENT_LOCAL = 1, EVENT_REMOTE = 2, EVENT_MODEL = 3 };

typedef struct rank_state {
  fs_time tail_time;  /* ready time of the last task queued */
  int32_t head, tail; /* waiting tasks, linked through waiting_next */
  int32_t segment_before; /* last waiting task readied before tail_time, -1: none */
  uint8_t busy, dispatch_pending;
} rank_state;

struct fs_engine {
  const fs_program *program;
  fs_network_model *network;
  fs_compute_model *compute;
  fs_observer observers[FS_MAX_OBSERVERS];
  int observer_count;
  fs_event_queue queue;
  int32_t *remaining;    /* per task: completions still needed; <= 0 once ready */
  int32_t *waiting_next; /* per task: next in its rank's waiting list */
  rank_state *ranks;
  fs_time *finish;       /* per rank: latest CPU end or data delivery */
  int32_t *dispatch;     /* ranks to serve at the end of this instant */
  int32_t dispatch_count;
  fs_time now;
  int64_t events;
  int64_t completed;
  int64_t stuck;
  int failed;            /* a post was refused (memory, or a time in the past) */
};

fs_engine *fs_engine_new(const fs_program *program, fs_network_model *network,
                         fs_compute_model *compute, fs_error *err) {
  if (!program->finalized) {
    fs_error_set(err, "internal error: program is not finalized");
    return NULL;
  }
  fs_engine *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->program = program;
  e->network = network;
  e->compute = compute;
  fs_event_queue_init(&e->queue);
  size_t tasks = (size_t)program->tasks + 1, ranks = (size_t)program->ranks;
  e->remaining = malloc(tasks * sizeof *e->remaining);
  e->waiting_next = malloc(tasks * sizeof *e->waiting_next);
  e->ranks = malloc(ranks * sizeof *e->ranks);
  e->finish = malloc(ranks * sizeof *e->finish);
  e->dispatch = malloc(ranks * sizeof *e->dispatch);
  if (!e->remaining || !e->waiting_next || !e->ranks || !e->finish || !e->dispatch) {
    fs_engine_free(e);
    fs_error_set(err, "out of memory for the run state of %d tasks", program->tasks);
    return NULL;
  }
  return e;
}

void fs_engine_free(fs_engine *e) {
  if (!e) return;
  fs_event_queue_free(&e->queue);
  free(e->remaining);
  free(e->waiting_next);
  free(e->ranks);
  free(e->finish);
  free(e->dispatch);
  free(e);
}

int fs_engine_add_observer(fs_engine *e, const fs_observer *observer) {
  if (e->observer_count == FS_MAX_OBSERVERS) return -1;
  e->observers[e->observer_count++] = *observer;
  return 0;
}

const fs_program *fs_engine_program(const fs_engine *e) { return e->program; }
fs_time fs_engine_makespan(const fs_engine *e) {
  fs_time makespan = 0;
  for (int32_t r = 0; r < e->program->ranks; r++)
    if (e->finish[r] > makespan) makespan = e->finish[r];
  return makespan;
}
int64_t fs_engine_events(const fs_engine *e) { return e->events; }
int64_t fs_engine_stuck_tasks(const fs_engine *e) { return e->stuck; }

const fs_time *fs_engine_finish_times(const fs_engine *e) { return e->finish; }

int64_t fs_engine_bytes(const fs_engine *e) {
  return (int64_t)e->program->tasks * 8 + (int64_t)e->program->ranks * (int64_t)(sizeof(rank_state) + sizeof(fs_time) + 4);
}

/* ---- posting events ---- */

static void post(fs_engine *e, fs_time at, uint64_t payload) {
  if (at < e->now || fs_event_queue_push(&e->queue, at, payload)) e->failed = 1;
}

void fs_engine_post_complete(fs_engine *e, int32_t task, fs_time at) {
  post(e, at, (uint64_t)task << 2 | EVENT_COMPLETE);
}
void fs_engine_post_local(fs_engine *e, int32_t task, fs_time at) {
  post(e, at, (uint64_t)task << 2 | EVENT_LOCAL);
}
void fs_engine_post_remote(fs_engine *e, int32_t task, fs_time at) {
  post(e, at, (uint64_t)task << 2 | EVENT_REMOTE);
}
void fs_engine_post_model_event(fs_engine *e, fs_time at, uint32_t payload) {
  post(e, at, (uint64_t)payload << 2 | EVENT_MODEL);
}

/* ---- ranks: waiting lists and dispatch ---- */

static void request_dispatch(fs_engine *e, int32_t r) {
  rank_state *rank = &e->ranks[r];
  if (!rank->dispatch_pending && !rank->busy && rank->head >= 0) {
    rank->dispatch_pending = 1;
    e->dispatch[e->dispatch_count++] = r;
  }
}

/* Keeps each rank's list sorted by (ready time, task id). Tasks arrive in
 * time order, so a task goes at the tail unless another of the same ready
 * time with a larger id is already there: then it is placed within that
 * last same-time segment. */
static void enqueue_waiting(fs_engine *e, int32_t r, int32_t task) {
  rank_state *rank = &e->ranks[r];
  int32_t *next = e->waiting_next;
  next[task] = -1;
  if (rank->head < 0) {
    rank->head = rank->tail = task;
    rank->segment_before = -1;
    rank->tail_time = e->now;
    return;
  }
  if (e->now > rank->tail_time) {
    rank->segment_before = rank->tail;
    rank->tail_time = e->now;
  } else if (task < rank->tail) {
    int32_t previous = rank->segment_before;
    int32_t current = previous < 0 ? rank->head : next[previous];
    while (current < task) previous = current, current = next[current];
    next[task] = current;
    if (previous < 0)
      rank->head = task;
    else
      next[previous] = task;
    return;
  }
  next[rank->tail] = task;
  rank->tail = task;
}

static int32_t dequeue_waiting(fs_engine *e, int32_t r) {
  rank_state *rank = &e->ranks[r];
  int32_t task = rank->head;
  rank->head = e->waiting_next[task];
  if (rank->head < 0) rank->tail = -1;
  if (rank->segment_before == task) rank->segment_before = -1;
  return task;
}

/* ---- tasks ---- */

static void notify(fs_engine *e, int which, int32_t task) {
  for (int i = 0; i < e->observer_count; i++) {
    fs_observer *o = &e->observers[i];
    void (*callback)(void *, int32_t, fs_time) =
        which == 0 ? o->ready : which == 1 ? o->started : which == 2 ? o->local_complete
                                                                      : o->remote_complete;
    if (callback) callback(o->state, task, e->now);
  }
}

static void start_task(fs_engine *e, int32_t task) {
  const fs_program *p = e->program;
  if (e->observer_count) notify(e, 1, task);
  switch (p->kind[task]) {
    case FS_START: /* value: the skew */
    case FS_SLEEP:
      fs_engine_post_complete(e, task, e->now + p->value[task]);
      break;
    case FS_PROXY:
      fs_engine_post_complete(e, task, e->now);
      break;
    case FS_COMPUTE:
      fs_engine_post_complete(e, task,
                              e->now + e->compute->duration(e->compute->state, p, task));
      break;
    default: /* put, get */
      e->network->start(e->network->state, e, task, e->now);
      break;
  }
}

static void make_ready(fs_engine *e, int32_t task) {
  if (e->observer_count) notify(e, 0, task);
  if (fs_task_takes_cpu(e->program, task)) {
    int32_t r = e->program->rank[task];
    enqueue_waiting(e, r, task);
    request_dispatch(e, r);
  } else {
    start_task(e, task);
  }
}

/* Counts one completion for each successor in successor[from..to). */
static void release(fs_engine *e, int64_t from, int64_t to) {
  const uint32_t *successor = e->program->successor;
  int32_t *remaining = e->remaining;
  for (int64_t i = from; i < to; i++) {
    int32_t s = FS_EDGE_TASK(successor[i]);
    if (--remaining[s] == 0) make_ready(e, s);
  }
}

static void free_cpu(fs_engine *e, int32_t r) {
  e->ranks[r].busy = 0;
  request_dispatch(e, r);
}

static void extend_finish(fs_engine *e, int32_t r) {
  if (e->finish[r] < e->now) e->finish[r] = e->now;
}

/* Where a transfer's data lands: a put at its peer, a get back home. */
static int32_t delivered_at(const fs_program *p, int32_t task) {
  return p->kind[task] == FS_PUT ? p->peer[task] : p->rank[task];
}

/* First successor index past the local-completion edges. */
static int64_t local_edges_end(const fs_program *p, int32_t task) {
  int64_t i = p->successor_at[task], end = p->successor_at[task + 1];
  while (i < end && (p->successor[i] & FS_EDGE_LOCAL)) i++;
  return i;
}

static void handle(fs_engine *e, uint64_t payload) {
  const fs_program *p = e->program;
  int32_t task = (int32_t)(payload >> 2);
  switch (payload & 3) {
    case EVENT_COMPLETE: /* local and remote at once */
      if (e->observer_count) notify(e, 2, task), notify(e, 3, task);
      if (p->kind[task] >= FS_SLEEP) { /* start and proxy do not count */
        extend_finish(e, p->rank[task]);
        extend_finish(e, delivered_at(p, task));
        if (fs_task_takes_cpu(p, task)) free_cpu(e, p->rank[task]);
      }
      e->completed++;
      release(e, p->successor_at[task], p->successor_at[task + 1]);
      break;
    case EVENT_LOCAL: /* put and get only; a blocking one keeps its CPU */
      if (e->observer_count) notify(e, 2, task);
      extend_finish(e, p->rank[task]);
      if (fs_task_takes_cpu(p, task) && !(p->flags[task] & FS_BLOCKING)) free_cpu(e, p->rank[task]);
      release(e, p->successor_at[task], local_edges_end(p, task));
      break;
    case EVENT_REMOTE:
      if (e->observer_count) notify(e, 3, task);
      extend_finish(e, delivered_at(p, task));
      if (fs_task_takes_cpu(p, task) && (p->flags[task] & FS_BLOCKING)) free_cpu(e, p->rank[task]);
      e->completed++;
      release(e, local_edges_end(p, task), p->successor_at[task + 1]);
      break;
    default:
      if (e->network->event) e->network->event(e->network->state, e, (uint32_t)(payload >> 2), e->now);
      break;
  }
}

/* Every idle rank with waiting work starts its first task, all at `now`. */
static void dispatch_round(fs_engine *e) {
  int32_t count = e->dispatch_count;
  e->dispatch_count = 0;
  for (int32_t i = 0; i < count; i++) {
    int32_t r = e->dispatch[i];
    rank_state *rank = &e->ranks[r];
    rank->dispatch_pending = 0;
    if (rank->busy || rank->head < 0) continue;
    rank->busy = 1;
    start_task(e, dequeue_waiting(e, r));
  }
}

static void reset(fs_engine *e) {
  const fs_program *p = e->program;
  fs_event_queue_clear(&e->queue);
  if (p->tasks) memcpy(e->remaining, p->need, (size_t)p->tasks * sizeof *e->remaining);
  for (int32_t r = 0; r < p->ranks; r++) {
    e->ranks[r] = (rank_state){.tail_time = 0, .head = -1, .tail = -1, .segment_before = -1};
    e->finish[r] = 0;
  }
  e->dispatch_count = 0;
  e->now = 0;
  e->events = e->completed = e->stuck = 0;
  e->failed = 0;
  if (e->network->reset) e->network->reset(e->network->state);
}

int fs_engine_run(fs_engine *e, fs_error *err) {
  const fs_program *p = e->program;
  reset(e);
  for (int32_t t = 0; t < p->tasks; t++)
    if (p->need[t] == 0) make_ready(e, t);
  for (;;) {
    /* the instant ends when no event of this time is left */
    if (e->dispatch_count && !fs_event_queue_has_current(&e->queue)) {
      dispatch_round(e);
      continue;
    }
    fs_event event;
    int popped = fs_event_queue_pop(&e->queue, &event);
    if (popped <= 0 || e->failed) {
      if (popped < 0) e->failed = 1;
      break;
    }
    e->now = event.time;
    e->events++;
    handle(e, event.payload);
  }
  if (e->failed)
    return fs_error_set(err, "simulation failed at %lld ps: out of memory, or the network model "
                        "posted a completion in the past", (long long)e->now);
  for (int32_t t = 0; t < p->tasks; t++)
    if (e->remaining[t] > 0) e->stuck++;
  if (e->completed + e->stuck != p->tasks)
    return fs_error_set(err, "simulation failed: the network model left %lld transfers unfinished",
                        (long long)(p->tasks - e->completed - e->stuck));
  if (e->stuck) {
    fs_error_set(err, "deadlock: %lld of %d tasks can never become ready", (long long)e->stuck,
                 p->tasks);
    return FS_RUN_DEADLOCK;
  }
  return FS_RUN_OK;
}

/* ---- deadlock report ---- */

#define WAITS_SHOWN 8

void fs_engine_report_stuck(const fs_engine *e, FILE *out, int limit) {
  const fs_program *p = e->program;
  int32_t *slot = malloc((size_t)p->tasks * sizeof *slot);
  int32_t *shown = calloc((size_t)limit, sizeof *shown);
  int32_t *waits = calloc((size_t)limit * WAITS_SHOWN, sizeof *waits);
  int32_t *wait_count = calloc((size_t)limit, sizeof *wait_count);
  if (!slot || !shown || !waits || !wait_count) {
    fprintf(out, "(out of memory for the deadlock report)\n");
    goto done;
  }
  int count = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    slot[t] = -1;
    if (e->remaining[t] > 0 && count < limit) shown[count] = t, slot[t] = count++;
  }
  /* a dependency still pending is one that itself never became ready */
  for (int32_t u = 0; u < p->tasks; u++) {
    if (e->remaining[u] <= 0) continue;
    for (int64_t i = p->successor_at[u]; i < p->successor_at[u + 1]; i++) {
      int32_t v = FS_EDGE_TASK(p->successor[i]);
      if (slot[v] >= 0 && wait_count[slot[v]] < WAITS_SHOWN)
        waits[slot[v] * WAITS_SHOWN + wait_count[slot[v]]++] = u;
    }
  }
  char name[24], other[24];
  for (int k = 0; k < count; k++) {
    int32_t t = shown[k];
    fprintf(out, "  %s (%s, rank %d) waits for %d more completion%s:", fs_task_name(p, t, name),
            fs_task_kind_name(p->kind[t]), p->rank[t], e->remaining[t],
            e->remaining[t] == 1 ? "" : "s");
    for (int w = 0; w < wait_count[k]; w++) {
      int32_t u = waits[k * WAITS_SHOWN + w];
      fprintf(out, " %s (%s, rank %d, never ready)", fs_task_name(p, u, other),
              fs_task_kind_name(p->kind[u]), p->rank[u]);
    }
    fprintf(out, "\n");
  }
  if (e->stuck > count) fprintf(out, "  ... and %lld more\n", (long long)(e->stuck - count));
done:
  free(slot);
  free(shown);
  free(waits);
  free(wait_count);
}
