/* engine_steps.h: the engine's steps, from a task's release to the end of
 * a run: the CPUs' waiting lists and dispatch, the cores, the tasks, the
 * two-sided matching, the events and the event loop (engine.h states the
 * rules). Included by engine_explicit.c and engine_symmetric.c, which
 * define FS_PROGRAM_EXPLICIT or FS_PROGRAM_SYMMETRIC (program.h's
 * accessors read that kind of program only) and FS_ENGINE_RUN, the name
 * of the run: the steps are compiled once for each kind, so an explicit
 * program's reads stay plain array reads (engine.c picks one per run).
 *
 * Sections: CPUs: waiting lists and dispatch; cores of a
 * platform; tasks; two-sided; events; the run. */
#ifndef FS_ENGINE_RUN
#error "define FS_ENGINE_RUN and FS_PROGRAM_EXPLICIT or FS_PROGRAM_SYMMETRIC first"
#endif

#include <stdlib.h>
#include <string.h>

#include "core/engine_state.h"

/* Where a task's state is: an explicit program's arrays, or a
 * rank-symmetric program's window (engine_window.c), whose blocks live
 * from their first task touched (TOUCH: a completion counted for it) until
 * their tasks ran and their messages settled (DONE, SETTLE). */
#if defined(FS_PROGRAM_SYMMETRIC)
#define TASK(e, t) (*window_task(e, t))
#define TOUCH(e, t) (*window_touch(e, t))
#define FLAGS(e, t) (*window_flags(e, t))
#define HAS_TWO_SIDED(e) ((e)->window.two_sided)
#define DONE(e, t, n) window_done(e, t, n)
#define COUNT(e, t) (--TOUCH(e, t).remaining == 0) /* its last completion needed */
#else
#define TASK(e, t) ((e)->task[t])
#define TOUCH(e, t) ((e)->task[t])
#define FLAGS(e, t) ((e)->two_sided[t])
#define HAS_TWO_SIDED(e) ((e)->two_sided != NULL)
#define DONE(e, t, n) ((void)0)
#define COUNT(e, t) (++(e)->task[t].remaining == fs_task_need((e)->program, t)) /* up from 0 */
#endif

/* The message of `send` took its last step, clearing `clear`: settled
 * once matched, received, and its deferred completion done (the window's
 * count only). */
static FS_INLINE void settle(fs_engine *e, int32_t send, int clear) {
#if defined(FS_PROGRAM_SYMMETRIC)
  uint8_t *flags = window_flags(e, send);
  *flags &= (uint8_t)~clear;
  if ((*flags & (MATCHED | RECEIVING | DEFERRED | SETTLED)) != MATCHED) return;
  *flags |= SETTLED;
  window_done(e, send, 1);
#else
  (void)e, (void)send, (void)clear;
#endif
}

/* The engine's own remote completions (a match, a receipt): not perturbed. */
static void post_remote_now(fs_engine *e, int32_t task) {
  fs_engine_post_event(e, e->now, (uint64_t)task << EVENT_BITS | EVENT_REMOTE);
}

/* ---- CPUs: waiting lists and dispatch ---- */

static FS_INLINE int32_t cpu_of(const fs_engine *e, int32_t rank, int32_t task) {
  return fs_program_slot(e->program, rank) * e->program->cpus + fs_task_cpu(e->program, task);
}

/* A waiting entry's order: its place; within one place (the tasks one
 * start releases), sends, then recvs, then the rest, each first released
 * first (LogGOPSim sorts each batch of newly ready operations by type). */
static FS_INLINE uint64_t waiting_key(const fs_engine *e, int32_t task) {
  fs_task_kind kind = fs_task_kind_of(e->program, task);
  return (uint64_t)TASK(e, task).place << 2 | (kind == FS_SEND ? 0u : kind == FS_RECV ? 1u : 2u);
}

/* A recv that is posted without taking its CPU. */
static FS_INLINE int posted_free(const fs_program *p, int32_t task) {
  return fs_task_kind_of(p, task) == FS_RECV && !(fs_task_flags(p, task) & FS_BLOCKING);
}

/* What a CPU can do now: its first task if it is free, its first recv if
 * it is free or that recv is due; -1 if nothing. */
static FS_INLINE int32_t cpu_next(const fs_engine *e, int32_t c) {
  const cpu_state *cpu = &e->cpus[c];
  if (cpu->recv_head < 0) return cpu->busy ? -1 : cpu->head;
  int32_t task = cpu->busy ? -1 : cpu->head;
  int32_t recv = cpu->busy && cpu->due < 0 ? -1 : cpu->recv_head;
  if (task < 0) return recv;
  return recv >= 0 && waiting_key(e, recv) < waiting_key(e, task) ? recv : task;
}

/* The CPUs to serve at the end of an instant are served in the order of
 * their next entry's key (ties by CPU): all starts at one instant happen
 * in place order, so the places they hand out keep that order too (as
 * LogGOPSim's queue does). A CPU's key cannot change while the round runs
 * (what it releases is placed after everything waiting). Requests mostly
 * come in key order: the round serves them as a queue while they do; a
 * request made during the round that comes before the queue's last entry
 * goes to a side heap (a CPU that posts its recvs after its send), and the
 * round serves the smaller of the queue's head and the heap's top. When
 * the requests listed before the round are out of order, all of them go
 * into one binary heap. */
static int entry_before(const dispatch_entry *a, const dispatch_entry *b) {
  return a->key < b->key || (a->key == b->key && a->cpu < b->cpu);
}

static void sift_up(fs_engine *e, int32_t i) {
  dispatch_entry *heap = e->dispatch, item = heap[i];
  for (; i > 0 && entry_before(&item, &heap[(i - 1) / 2]); i = (i - 1) / 2)
    heap[i] = heap[(i - 1) / 2];
  heap[i] = item;
}

static void sift_down(fs_engine *e, int32_t i) {
  dispatch_entry *heap = e->dispatch, item = heap[i];
  int32_t n = e->dispatch_count;
  for (int32_t child; (child = 2 * i + 1) < n; i = child) {
    if (child + 1 < n && entry_before(&heap[child + 1], &heap[child])) child++;
    if (!entry_before(&heap[child], &item)) break;
    heap[i] = heap[child];
  }
  heap[i] = item;
}

/* The side heap: entry i at dispatch[capacity - 1 - i], growing down
 * towards the queue (the CPUs pending at once are at most capacity). */
static dispatch_entry *side_at(fs_engine *e, int32_t i) {
  return &e->dispatch[e->dispatch_capacity - 1 - i];
}

static void side_push(fs_engine *e, dispatch_entry item) {
  int32_t i = e->side_count++;
  for (; i > 0 && entry_before(&item, side_at(e, (i - 1) / 2)); i = (i - 1) / 2)
    *side_at(e, i) = *side_at(e, (i - 1) / 2);
  *side_at(e, i) = item;
}

static int32_t side_pop(fs_engine *e) {
  int32_t first = side_at(e, 0)->cpu, n = --e->side_count, i = 0;
  dispatch_entry item = *side_at(e, n);
  for (int32_t child; (child = 2 * i + 1) < n; i = child) {
    if (child + 1 < n && entry_before(side_at(e, child + 1), side_at(e, child))) child++;
    if (!entry_before(side_at(e, child), &item)) break;
    *side_at(e, i) = *side_at(e, child);
  }
  if (n) *side_at(e, i) = item;
  return first;
}

/* The entries not yet served, moved to the front of the array. */
static void compact_dispatch(fs_engine *e) {
  int32_t n = e->dispatch_count - e->dispatch_head;
  memmove(e->dispatch, e->dispatch + e->dispatch_head, (size_t)n * sizeof *e->dispatch);
  e->dispatch_head = 0;
  e->dispatch_count = n;
}

static void make_heap(fs_engine *e) {
  compact_dispatch(e);
  e->as_heap = 1;
  for (int32_t i = e->dispatch_count / 2 - 1; i >= 0; i--) sift_down(e, i);
}

/* Outside a round the keys may still change (a message placed early
 * arrives): requests are only listed, and the round keys them. */
static void list_dispatch(fs_engine *e, int32_t c) {
  e->cpus[c].dispatch_pending = 1;
  if (!e->in_round) {
    e->dispatch[e->dispatch_count++].cpu = c;
    return;
  }
  dispatch_entry item = {waiting_key(e, cpu_next(e, c)), c};
  if (e->as_heap) {
    e->dispatch[e->dispatch_count] = item;
    sift_up(e, e->dispatch_count++);
    return;
  }
  if (e->dispatch_count + e->side_count == e->dispatch_capacity) compact_dispatch(e);
  if (e->dispatch_count > e->dispatch_head &&
      entry_before(&item, &e->dispatch[e->dispatch_count - 1]))
    side_push(e, item);
  else
    e->dispatch[e->dispatch_count++] = item;
}

/* Lists a CPU that can do something now (cpu_next would not be -1:
 * without comparing keys, which only a round needs). */
static inline void request_dispatch(fs_engine *e, int32_t c) {
  const cpu_state *cpu = &e->cpus[c];
  if (cpu->dispatch_pending || (cpu->busy && cpu->due < 0)) return;
  if (cpu->recv_head >= 0 || (!cpu->busy && cpu->head >= 0)) list_dispatch(e, c);
}

static int32_t next_dispatch(fs_engine *e) {
  int32_t first;
  if (e->as_heap) {
    first = e->dispatch[0].cpu;
    e->dispatch[0] = e->dispatch[--e->dispatch_count];
    if (e->dispatch_count) sift_down(e, 0);
  } else if (e->side_count && (e->dispatch_head == e->dispatch_count ||
                               entry_before(side_at(e, 0), &e->dispatch[e->dispatch_head]))) {
    first = side_pop(e);
  } else {
    first = e->dispatch[e->dispatch_head++].cpu;
  }
  e->cpus[first].dispatch_pending = 0;
  return first;
}

/* Keys the CPUs listed for this round; a heap unless they are in order. */
static void begin_round(fs_engine *e) {
  int sorted = 1;
  e->in_round = 1;
  e->as_heap = 0;
  e->dispatch_head = e->side_count = 0;
  if (e->dispatch_count == 1) return; /* served at once: no key needed */
  for (int32_t i = 0; i < e->dispatch_count; i++) {
    dispatch_entry *entry = &e->dispatch[i];
    entry->key = waiting_key(e, cpu_next(e, entry->cpu));
    if (i > 0 && entry_before(entry, entry - 1)) sorted = 0;
  }
  if (!sorted) make_heap(e);
}

/* Keeps a list sorted by waiting_key, equal keys first come first.
 * Entries mostly come in order and go at the tail; a message or a task
 * placed before entries already waiting is walked in from the head. */
static void insert_waiting(fs_engine *e, int32_t *head, int32_t *tail, uint64_t *tail_key,
                           int32_t task) {
  uint64_t key = waiting_key(e, task);
  TASK(e, task).next = -1;
  if (*head < 0 || key >= *tail_key) {
    if (*head < 0)
      *head = task;
    else
      TASK(e, *tail).next = task;
    *tail = task;
    *tail_key = key;
    return;
  }
  int32_t previous = -1, current = *head;
  while (waiting_key(e, current) <= key) previous = current, current = TASK(e, current).next;
  TASK(e, task).next = current;
  if (previous < 0)
    *head = task;
  else
    TASK(e, previous).next = task;
}

static void wait_for_cpu(fs_engine *e, int32_t c, int32_t task) {
  cpu_state *cpu = &e->cpus[c];
  if (e->ready_at) e->ready_at[task] = e->now;
  if (posted_free(e->program, task))
    insert_waiting(e, &cpu->recv_head, &cpu->recv_tail, &cpu->recv_tail_key, task);
  else
    insert_waiting(e, &cpu->head, &cpu->tail, &cpu->tail_key, task);
  request_dispatch(e, c);
}

/* Takes `task`, the first of one of the CPU's lists. */
static void dequeue_waiting(fs_engine *e, int32_t c, int32_t task) {
  cpu_state *cpu = &e->cpus[c];
  int32_t next = TASK(e, task).next;
  if (task == cpu->head) {
    cpu->head = next;
    if (next < 0) cpu->tail = -1;
    return;
  }
  cpu->recv_head = next;
  if (next < 0) cpu->recv_tail = -1;
  if (cpu->due == task) cpu->due = -1;
}

/* ---- cores of a platform (fs_engine_set_cores) ---- */

static int waiter_before(core_waiter a, core_waiter b) {
  return a.time < b.time || (a.time == b.time && a.id < b.id);
}

static void push_waiter(fs_engine *e, core_pool *n, core_waiter w) {
  core_waiter *heap = e->waiters + n->waiters_at;
  int32_t i = n->waiter_count++;
  for (; i > 0 && waiter_before(w, heap[(i - 1) / 2]); i = (i - 1) / 2) heap[i] = heap[(i - 1) / 2];
  heap[i] = w;
}

static core_waiter pop_waiter(fs_engine *e, core_pool *n) {
  core_waiter *heap = e->waiters + n->waiters_at, first = heap[0];
  int32_t count = --n->waiter_count, i = 0;
  core_waiter last = heap[count];
  for (int32_t child; (child = 2 * i + 1) < count; i = child) {
    if (child + 1 < count && waiter_before(heap[child + 1], heap[child])) child++;
    if (!waiter_before(heap[child], last)) break;
    heap[i] = heap[child];
  }
  heap[i] = last;
  return first;
}

static void request_pool(fs_engine *e, int32_t pool) {
  core_pool *n = &e->pools[pool];
  if (n->dispatch_pending || !n->waiter_count) return;
  n->dispatch_pending = 1;
  e->pool_ring[(e->ring_head + e->ring_count++) % e->pool_count] = pool;
}

/* The lowest free core id of a pool with one free. */
static int32_t take_core(fs_engine *e, int32_t pool) {
  core_pool *n = &e->pools[pool];
  n->held++;
  if (!n->released_count) return n->fresh++;
  int32_t *heap = e->released + n->released_at, count = --n->released_count;
  int32_t core = heap[0], last = heap[count], i = 0;
  for (int32_t child; (child = 2 * i + 1) < count; i = child) {
    if (child + 1 < count && heap[child + 1] < heap[child]) child++;
    if (heap[child] >= last) break;
    heap[i] = heap[child];
  }
  heap[i] = last;
  return core;
}

static void give_core(fs_engine *e, int32_t pool, int32_t core) {
  core_pool *n = &e->pools[pool];
  int32_t *heap = e->released + n->released_at, i = n->released_count++;
  for (; i > 0 && heap[(i - 1) / 2] > core; i = (i - 1) / 2) heap[i] = heap[(i - 1) / 2];
  heap[i] = core;
  n->held--;
  request_pool(e, pool);
}

/* A CPU with work and no core asks its node for one. */
static void want_core(fs_engine *e, int32_t c, int32_t next) {
  int32_t pool = e->pool_of[c / e->program->cpus];
  core_pool *n = &e->pools[pool];
  e->cpus[c].busy = 2; /* not dispatched again until its core comes */
  push_waiter(e, n, (core_waiter){e->ready_at[next], next, c});
  request_pool(e, pool);
}

/* A concurrent task waits for a core of its rank's node. */
static void wait_for_core(fs_engine *e, int32_t task) {
  int32_t pool = e->pool_of[fs_program_slot(e->program, fs_task_rank(e->program, task))];
  core_pool *n = &e->pools[pool];
  push_waiter(e, n, (core_waiter){e->now, task, -1});
  request_pool(e, pool);
}

/* A CPU left idle gives its core back. */
static void release_cpu_core(fs_engine *e, int32_t c) {
  if (e->held_core[c] < 0) return;
  give_core(e, e->pool_of[c / e->program->cpus], e->held_core[c]);
  e->held_core[c] = -1;
}

/* A concurrent task's core is free again (when its CPU would be). */
static void release_task_core(fs_engine *e, int32_t task) {
  const fs_program *p = e->program;
  if (!holds_core(p, task) || e->task_core[task] < 0) return;
  give_core(e, e->pool_of[fs_program_slot(p, fs_task_rank(p, task))], e->task_core[task]);
  e->task_core[task] = -1;
}

/* ---- tasks ---- */

/* What notify tells the observers of a task (fs_observer's callbacks). */
typedef enum task_news {
  TASK_READY,
  TASK_STARTED,
  TASK_LOCAL_COMPLETE,
  TASK_REMOTE_COMPLETE
} task_news;

static void notify(fs_engine *e, task_news news, int32_t task) {
  for (int i = 0; i < e->observer_count; i++) {
    fs_observer *o = &e->observers[i];
    void (*callback)(void *, int32_t, fs_time) = news == TASK_READY            ? o->ready
                                                 : news == TASK_STARTED        ? o->started
                                                 : news == TASK_LOCAL_COMPLETE ? o->local_complete
                                                                               : o->remote_complete;
    if (callback) callback(o->state, task, e->now);
  }
}

static void notify_match(fs_engine *e, int32_t send, int32_t recv) {
  for (int i = 0; i < e->observer_count; i++)
    if (e->observers[i].matched) e->observers[i].matched(e->observers[i].state, send, recv, e->now);
}

static void notify_received(fs_engine *e, int32_t send, fs_time end) {
  for (int i = 0; i < e->observer_count; i++)
    if (e->observers[i].received)
      e->observers[i].received(e->observers[i].state, send, e->now, end);
}

static void notify_placed(fs_engine *e, int32_t task, int32_t core) {
  for (int i = 0; i < e->observer_count; i++)
    if (e->observers[i].placed) e->observers[i].placed(e->observers[i].state, task, core, e->now);
}

static void make_ready(fs_engine *e, int32_t task, uint32_t place);

/* Which of a task's successor edges a completion releases (program.h:
 * start edges, then local-completion edges, then completion edges). */
enum { EDGES_START = 1, EDGES_LOCAL = 2, EDGES_END = 4 };

/* Counts one completion of `task` for each of its successors in `which`;
 * those it makes ready take the task's place. */
static FS_INLINE void release(fs_engine *e, int32_t task, int which) {
  const fs_program *p = e->program;
  uint32_t buffer[FS_TEMPLATE_MAX_EDGES], n, starts = 0;
  const uint32_t *successor = fs_task_successors(p, task, buffer, &n);
  if (p->start_dependencies)
    while (starts < n && (successor[starts] & FS_EDGE_START)) starts++;
  uint32_t from = which & EDGES_START ? 0 : starts, to = which == EDGES_START ? starts : n;
  if (which == EDGES_LOCAL || which == EDGES_END) { /* the local edges' end */
    uint32_t locals = starts;
    while (locals < n && (successor[locals] & FS_EDGE_LOCAL)) locals++;
    *(which == EDGES_LOCAL ? &to : &from) = locals;
  }
  if (from >= to) return; /* (an eager send mostly: its place's line is not read) */
  uint32_t place = TASK(e, task).place;
  for (uint32_t i = from; i < to; i++) {
    int32_t s = FS_EDGE_TASK(successor[i]);
    if (COUNT(e, s)) make_ready(e, s, place);
  }
}

static void start_send(fs_engine *e, int32_t task);
static void post_recv(fs_engine *e, int32_t task);

static void start_task(fs_engine *e, int32_t task) {
  const fs_program *p = e->program;
  if (e->observer_count) notify(e, TASK_STARTED, task);
  if (e->perturbation) e->perturbation->start(e->perturbation->state, task, e->now);
  TASK(e, task).place = e->next_place++; /* what it releases comes after all placed before */
  if (p->start_dependencies) release(e, task, EDGES_START);
  switch (fs_task_kind_of(p, task)) {
    case FS_START: /* value: the skew */
    case FS_SLEEP:
      fs_engine_post_complete(e, task, fs_time_add(e->now, fs_task_value(p, task)));
      break;
    case FS_PROXY: fs_engine_post_complete(e, task, e->now); break;
    case FS_COMPUTE:
      if (e->compute->start)
        e->compute->start(e->compute->state, e, task, e->now);
      else
        fs_engine_post_complete(e, task,
                                fs_time_add(e->now,
                                            e->compute->duration(e->compute->state, p, task)));
      break;
    case FS_SEND: start_send(e, task); break;
    case FS_RECV: post_recv(e, task); break;
    default: /* put, get */ e->network->start(e->network->state, e, task, e->now); break;
  }
  if (e->perturbation) fs_engine_flush_local(e);
}

static void make_ready(fs_engine *e, int32_t task, uint32_t place) {
  if (e->observer_count) notify(e, TASK_READY, task);
  TASK(e, task).place = place;
  if (fs_task_takes_cpu(e->program, task))
    wait_for_cpu(e, cpu_of(e, fs_task_rank(e->program, task), task), task);
  else if (e->pools && holds_core(e->program, task))
    wait_for_core(e, task);
  else
    start_task(e, task);
}

static FS_INLINE void free_cpu(fs_engine *e, int32_t c) {
  e->cpus[c].busy = 0;
  e->cpus[c].due = -1; /* all its recvs can go now */
  if (e->pools) release_cpu_core(e, c);
  request_dispatch(e, c);
}

static FS_INLINE void extend_finish(fs_engine *e, int32_t rank) {
  int32_t r = fs_program_slot(e->program, rank);
  if (e->finish[r] < e->now) e->finish[r] = e->now;
}

/* Where a transfer's data lands: a put at its peer; a get, a send (its
 * completion) and a recv at home. */
static FS_INLINE int32_t delivered_at(const fs_program *p, int32_t task) {
  return fs_task_kind_of(p, task) == FS_PUT ? fs_task_peer(p, task) : fs_task_rank(p, task);
}

/* ---- two-sided: sends, messages, receives, matching ---- */

static void start_send(fs_engine *e, int32_t task) {
  if (!e->network->send) {
    fs_engine_fail_run(e, "the network model has no two-sided send/recv");
    return;
  }
  int rendezvous = e->network->send(e->network->state, e, task, e->now);
  FLAGS(e, task) = (uint8_t)(MESSAGE | (rendezvous ? RENDEZVOUS : 0));
}

/* Does recv `r` accept the message of send `s`? */
static int accepts(const fs_program *p, int32_t r, int32_t s) {
  int32_t source = fs_task_peer(p, r), tag = fs_task_tag(p, r), sent_tag = fs_task_tag(p, s);
  return (source == FS_ANY_SOURCE || source == fs_task_rank(p, s)) &&
         (tag == FS_ANY_TAG || sent_tag == FS_ANY_TAG || tag == sent_tag);
}

/* Removes and returns the first entry of the FIFO list head..tail that
 * matches `other`, or -1: the list holds recvs when other_is_send (an entry
 * matches when it accepts other), else sends (other accepts the entry). */
static int32_t take_first(fs_engine *e, int32_t *head, int32_t *tail, int32_t other,
                          int other_is_send) {
  const fs_program *p = e->program;
  int32_t previous = -1;
  for (int32_t t = *head; t >= 0; previous = t, t = TASK(e, t).next) {
    if (!(other_is_send ? accepts(p, t, other) : accepts(p, other, t))) continue;
    if (previous < 0)
      *head = TASK(e, t).next;
    else
      TASK(e, previous).next = TASK(e, t).next;
    if (*tail == t) *tail = previous;
    return t;
  }
  return -1;
}

static void append(fs_engine *e, int32_t *head, int32_t *tail, int32_t t) {
  TASK(e, t).next = -1;
  if (*tail >= 0)
    TASK(e, *tail).next = t;
  else
    *head = t;
  *tail = t;
}

static void handle_remote(fs_engine *e, int32_t task);

/* A matched rendezvous send completes now, in this step: what it releases
 * is placed now, and a recv it releases is posted now if its CPU is free.
 * Unless the model moves its data after the match (its `matched`): then
 * the send and recv complete together when the model posts the send's
 * remote completion (DEFERRED, the recv in task[send].next); returns 1. */
static int matched(fs_engine *e, int32_t send, int32_t recv) {
  if (e->observer_count) notify_match(e, send, recv);
  FLAGS(e, send) |= MATCHED;
  if (!(FLAGS(e, send) & RENDEZVOUS)) return 0;
  TASK(e, send).place = e->next_place++;
  if (e->network->matched) {
    FLAGS(e, send) |= DEFERRED;
    TASK(e, send).next = recv; /* the send is in no list now */
    e->network->matched(e->network->state, e, send, e->now);
    return 1;
  }
  handle_remote(e, send);
  return 0;
}

/* The message of `send` is received now: by the receiver's CPU, which the
 * model holds for a while, or (models without a receive cost) by no CPU.
 * A recv it matches completes when the receipt ends, with the same event,
 * but what the recv releases is placed now, when the receipt starts: it
 * goes before messages sent during the receipt (as in LogGOPSim, and in an
 * MPI program, whose code after MPI_Wait runs before later messages are
 * progressed). */
static void receive_message(fs_engine *e, int32_t send) {
  const fs_program *p = e->program;
  match_queues *q = &e->queues[fs_program_slot(p, fs_task_peer(p, send))];
  int32_t recv = take_first(e, &q->posted_head, &q->posted_tail, send, 1);
  int deferred = 0;
  if (recv >= 0) {
    deferred = matched(e, send, recv);
    TASK(e, recv).place = e->next_place++;
  } else {
    append(e, &q->unexpected_head, &q->unexpected_tail, send);
  }
  if (!e->network->receive) {
    if (recv >= 0 && !deferred) post_remote_now(e, recv);
    settle(e, send, 0);
    return;
  }
  fs_time hold = e->network->receive(e->network->state, e, send, e->now);
  fs_time end = fs_time_add(e->now, hold);
  if (e->perturbation) end = e->perturbation->receive(e->perturbation->state, send, end, e->now);
  if (e->observer_count) notify_received(e, send, end);
  FLAGS(e, send) |= RECEIVING;
  if (recv >= 0 && !deferred) {
    FLAGS(e, send) |= RECEIVED_INTO;
    TASK(e, send).next = recv; /* the send is in no list now */
  }
  fs_engine_post_event(e, end, (uint64_t)send << EVENT_BITS | EVENT_RECEIVED);
}

static void handle_local(fs_engine *e, int32_t task);

/* A recv is posted in no time: it takes the first unexpected message it
 * accepts and completes now, or when that message's receipt ends; or it
 * waits in the posted queue. */
static void post_recv(fs_engine *e, int32_t recv) {
  const fs_program *p = e->program;
  match_queues *q = &e->queues[fs_program_slot(p, fs_task_rank(p, recv))];
  handle_local(e, recv); /* posted: its CPU is free again, now */
  int32_t send = take_first(e, &q->unexpected_head, &q->unexpected_tail, recv, 0);
  if (send < 0) {
    append(e, &q->posted_head, &q->posted_tail, recv);
    return;
  }
  if (matched(e, send, recv)) return; /* the model completes both later */
  if (FLAGS(e, send) & RECEIVING) {
    FLAGS(e, send) |= RECEIVED_INTO;
    TASK(e, send).next = recv;
  } else {
    handle_remote(e, recv);
  }
  settle(e, send, 0);
}

/* ---- events ---- */

static void handle_local(fs_engine *e, int32_t task) {
  const fs_program *p = e->program;
  if (e->observer_count) notify(e, TASK_LOCAL_COMPLETE, task);
  extend_finish(e, fs_task_rank(p, task));
  if (fs_task_takes_cpu(p, task) && !(fs_task_flags(p, task) & FS_BLOCKING) &&
      !posted_free(p, task))
    free_cpu(e, cpu_of(e, fs_task_rank(p, task), task));
  else if (e->pools && !(fs_task_flags(p, task) & FS_BLOCKING))
    release_task_core(e, task);
  if (fs_task_kind_of(p, task) == FS_SEND && !(FLAGS(e, task) & RENDEZVOUS)) {
    if (e->observer_count) notify(e, TASK_REMOTE_COMPLETE, task); /* an eager send is done */
    e->completed++;
    release(e, task, EDGES_LOCAL | EDGES_END);
    DONE(e, task, 2); /* its local part and its completion */
    return;
  }
  release(e, task, EDGES_LOCAL);
  DONE(e, task, fs_task_kind_of(p, task) >= FS_PUT);
}

static void handle_remote(fs_engine *e, int32_t task) {
  const fs_program *p = e->program;
  if (e->observer_count) notify(e, TASK_REMOTE_COMPLETE, task);
  extend_finish(e, delivered_at(p, task));
  if (fs_task_takes_cpu(p, task) && (fs_task_flags(p, task) & FS_BLOCKING))
    free_cpu(e, cpu_of(e, fs_task_rank(p, task), task));
  else if (e->pools && (fs_task_flags(p, task) & FS_BLOCKING))
    release_task_core(e, task);
  e->completed++;
  release(e, task, EDGES_END);
  DONE(e, task, 1);
}

static void handle_complete(fs_engine *e, int32_t task) {
  const fs_program *p = e->program;
  if (e->observer_count)
    notify(e, TASK_LOCAL_COMPLETE, task), notify(e, TASK_REMOTE_COMPLETE, task);
  if (fs_task_kind_of(p, task) >= FS_SLEEP) { /* start and proxy do not count */
    extend_finish(e, fs_task_rank(p, task));
    extend_finish(e, delivered_at(p, task));
    if (fs_task_takes_cpu(p, task))
      free_cpu(e, cpu_of(e, fs_task_rank(p, task), task));
    else if (e->pools)
      release_task_core(e, task);
  }
  e->completed++;
  release(e, task, EDGES_LOCAL | EDGES_END);
  DONE(e, task, 1 + (fs_task_kind_of(p, task) >= FS_PUT));
}

/* The CPU a message of `send` uses at its receiver. */
static FS_INLINE int32_t receiving_cpu(const fs_engine *e, int32_t send) {
  return cpu_of(e, fs_task_peer(e->program, send), send);
}

static void handle(fs_engine *e, uint64_t payload) {
  const fs_program *p = e->program;
  int32_t task = (int32_t)(payload >> EVENT_BITS);
  switch (payload & ((1 << EVENT_BITS) - 1)) {
    case EVENT_COMPLETE: handle_complete(e, task); break;
    case EVENT_LOCAL: handle_local(e, task); break;
    case EVENT_REMOTE: {
      int deferred = HAS_TWO_SIDED(e) && (FLAGS(e, task) & DEFERRED); /* set on sends only */
      handle_remote(e, task);
      if (deferred) {
        handle_remote(e, TASK(e, task).next); /* its recv, matched earlier */
        settle(e, task, DEFERRED);
      }
      break;
    }
    case EVENT_ARRIVAL:
      if (e->network->receive)
        wait_for_cpu(e, receiving_cpu(e, task), task);
      else
        receive_message(e, task);
      break;
    case EVENT_RECEIVED:
      extend_finish(e, fs_task_peer(p, task));
      FLAGS(e, task) &= (uint8_t)~RECEIVING;
      free_cpu(e, receiving_cpu(e, task));
      if (FLAGS(e, task) & RECEIVED_INTO) handle_remote(e, TASK(e, task).next);
      settle(e, task, 0);
      break;
    case EVENT_RETRY: {
      int message = fs_task_kind_of(p, task) == FS_SEND && (FLAGS(e, task) & MESSAGE);
      wait_for_cpu(e, message ? receiving_cpu(e, task) : cpu_of(e, fs_task_rank(p, task), task),
                   task);
      break;
    }
    case EVENT_COMPUTE:
      if (e->compute->event)
        e->compute->event(e->compute->state, e, (uint32_t)(payload >> EVENT_BITS), e->now);
      break;
    case EVENT_MODEL:
      if (e->network->event)
        e->network->event(e->network->state, e, (uint32_t)(payload >> EVENT_BITS), e->now);
      if (e->perturbation) fs_engine_flush_local(e);
      break;
  } /* no default: the eight kinds are every value of EVENT_BITS bits */
}

/* A node's free cores go to its waiters, first by (ready time, task id):
 * concurrent tasks start; a CPU (keyed by its next entry) keeps its core
 * and is dispatched in this instant. */
static void serve_pool(fs_engine *e, int32_t pool) {
  core_pool *n = &e->pools[pool];
  n->dispatch_pending = 0;
  while (n->held < e->cores && n->waiter_count) {
    core_waiter w = pop_waiter(e, n);
    int32_t c = w.cpu, task = w.id;
    if (c >= 0) {
      e->held_core[c] = take_core(e, pool);
      e->cpus[c].busy = 0;
      request_dispatch(e, c);
    } else {
      e->task_core[task] = take_core(e, pool);
      if (e->observer_count) notify_placed(e, task, e->task_core[task]);
      start_task(e, task);
    }
  }
}

/* Every idle CPU with waiting work starts its first entry, all at `now`,
 * the first placed first (with cores in use, once it holds a core of its
 * node; it gives the core back when it ends idle), then the nodes hand out
 * their free cores. An entry the model cannot start yet (a NIC gap) comes
 * back when it can; the CPU goes on with its next. */
static void dispatch_round(fs_engine *e) {
  const fs_program *p = e->program;
  begin_round(e);
  while (e->dispatch_count > e->dispatch_head || e->side_count) {
    int32_t c = next_dispatch(e);
    cpu_state *cpu = &e->cpus[c];
    int32_t task = cpu_next(e, c);
    if (e->pools && e->held_core[c] < 0 && !posted_free(p, task)) {
      want_core(e, c, task);
      continue;
    }
    dequeue_waiting(e, c, task);
    if (posted_free(p, task)) {
      start_task(e, task);
      request_dispatch(e, c);
      continue;
    }
    int message = fs_task_kind_of(p, task) == FS_SEND && (FLAGS(e, task) & MESSAGE);
    if (e->network->available && fs_task_kind_of(p, task) >= FS_PUT &&
        fs_task_kind_of(p, task) <= FS_SEND) {
      fs_time at = e->network->available(e->network->state, e, task, message, e->now);
      if (at > e->now) {
        fs_engine_post_event(e, at, (uint64_t)task << EVENT_BITS | EVENT_RETRY);
        request_dispatch(e, c);
        if (e->pools && !cpu->busy && !cpu->dispatch_pending) release_cpu_core(e, c);
        continue;
      }
    }
    cpu->busy = 1;
    cpu->due = cpu->recv_tail; /* the recvs waiting now are posted now too */
    if (message) {
      receive_message(e, task);
    } else {
      if (e->pools && e->observer_count) notify_placed(e, task, e->held_core[c]);
      start_task(e, task);
    }
    request_dispatch(e, c);
  }
  e->in_round = 0;
  e->dispatch_count = e->dispatch_head = 0;
  while (e->ring_count) {
    int32_t pool = e->pool_ring[e->ring_head];
    e->ring_head = (e->ring_head + 1) % e->pool_count;
    e->ring_count--;
    serve_pool(e, pool);
  }
}

/* ---- the run ---- */

static void reset_cores(fs_engine *e) {
  const fs_program *p = e->program;
  for (int32_t i = 0; i < e->pool_count; i++) {
    core_pool *n = &e->pools[i];
    n->held = n->fresh = n->released_count = n->waiter_count = 0;
    n->dispatch_pending = 0;
  }
  for (int64_t c = 0; c < (int64_t)p->slots * p->cpus; c++) e->held_core[c] = -1;
  for (int32_t t = 0; t < p->tasks; t++) e->task_core[t] = -1;
  e->ring_head = e->ring_count = 0;
}

static void reset(fs_engine *e) {
  const fs_program *p = e->program;
  fs_event_queue_clear(&e->queue);
#if !defined(FS_PROGRAM_SYMMETRIC) /* a block's counts are set when it goes live */
  for (int32_t t = 0; t < p->tasks && !e->fresh; t++) e->task[t].remaining = 0; /* counted up */
#endif
  for (int64_t c = 0; c < (int64_t)p->slots * p->cpus; c++)
    e->cpus[c] = (cpu_state){.head = -1, .tail = -1, .recv_head = -1, .recv_tail = -1, .due = -1};
  for (int32_t r = 0; r < p->slots; r++) {
    e->finish[r] = 0;
    if (e->queues) e->queues[r] = (match_queues){-1, -1, -1, -1};
  }
#if !defined(FS_PROGRAM_SYMMETRIC) /* a block's flags are cleared when it goes live */
  if (e->two_sided && !e->fresh) memset(e->two_sided, 0, (size_t)p->tasks);
  e->fresh = 0; /* calloc's zeroes: the first run writes nothing before it needs to */
#endif
  if (e->pools) reset_cores(e);
  e->dispatch_count = 0;
  e->next_place = (uint32_t)p->ranks; /* below: the tasks ready at the outset, by rank */
  e->now = 0;
  e->events = e->completed = e->stuck = e->unmatched = 0;
  e->failed = 0;
  e->failure = NULL;
  e->pending = -1;
#if defined(FS_PROGRAM_SYMMETRIC) /* after the failure above is cleared */
  if (fs_window_reset(e)) fs_engine_fail_run(e, "out of memory for the window of blocks");
#endif
  if (e->perturbation) e->perturbation->reset(e->perturbation->state);
  if (e->network->reset && e->network->reset(e->network->state, p, &e->model_error))
    fs_engine_fail_run(e, e->model_error.message);
  else if (e->compute->reset && e->compute->reset(e->compute->state, p, &e->model_error))
    fs_engine_fail_run(e, e->model_error.message);
}

/* The tasks that need no completion are ready, in id order, placed by
 * rank. A rank-symmetric program's are its template's, rank by rank in the
 * blocks that have them: their blocks go live now. */
static void ready_at_outset(fs_engine *e) {
  const fs_program *p = e->program;
#if defined(FS_PROGRAM_SYMMETRIC)
  const fs_symmetric *s = p->symmetric;
  for (int32_t b = 0; b < s->blocks && !e->failed; b++) {
    const fs_template_task *k = &s->task[b * s->width];
    int32_t any = 0;
    for (int32_t j = 0; j < s->width; j++) any |= k[j].need == 0;
    for (int32_t r = 0, t = k->first; any && r < s->ranks && !e->failed; r++)
      for (int32_t j = 0; j < s->width; j++, t++)
        if (k[j].need == 0 && !e->failed && window_touch(e, t) != &e->window.dead)
          make_ready(e, t, (uint32_t)r);
  }
#else
  for (int32_t t = 0; t < p->tasks && !e->failed; t++)
    if (fs_task_need(p, t) == 0) make_ready(e, t, (uint32_t)fs_task_rank(p, t));
#endif
}

/* What is left in the match queues: tasks, and those that never completed
 * (the posted recvs and the rendezvous sends). */
typedef struct unmatched_count {
  int64_t tasks, unfinished;
} unmatched_count;

static void count_unmatched(void *state, int32_t task, int completed) {
  unmatched_count *count = state;
  (void)task;
  count->tasks++;
  count->unfinished += !completed;
}

int FS_ENGINE_RUN(fs_engine *e, fs_error *err) {
  const fs_program *p = e->program;
  reset(e);
  if (e->failed) {
    fs_error_set(err, "%s", e->failure);
    return FS_RUN_REJECTED;
  }
  ready_at_outset(e);
  for (;;) {
    /* the instant ends when no event of this time is left */
    if ((e->dispatch_count || e->ring_count) && !fs_event_queue_has_current(&e->queue)) {
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
    return fs_error_set(err, "simulation failed at %lld ps: %s", (long long)e->now,
                        e->failure ? e->failure
                                   : "out of memory, or the network model posted a completion in "
                                     "the past");
#if defined(FS_PROGRAM_SYMMETRIC)
  e->stuck = fs_window_stuck(e);
#else
  for (int32_t t = 0; t < p->tasks; t++)
    if (e->task[t].remaining < fs_task_need(p, t)) e->stuck++;
#endif
  unmatched_count left = {0, 0};
  fs_engine_visit_unmatched(e, count_unmatched, &left);
  int64_t unfinished = left.unfinished; /* recvs and rendezvous sends left waiting */
  e->unmatched = left.tasks;
  if (e->completed + e->stuck + unfinished != p->tasks)
    return fs_error_set(err, "simulation failed: the network model left %lld transfers unfinished",
                        (long long)(p->tasks - e->completed - e->stuck - unfinished));
  if (e->stuck || e->unmatched) {
    fs_error_set(err,
                 "deadlock: %lld of %d tasks can never become ready; %lld receives or "
                 "messages found no partner",
                 (long long)e->stuck, p->tasks, (long long)e->unmatched);
    return FS_RUN_DEADLOCK;
  }
  return FS_RUN_OK;
}
