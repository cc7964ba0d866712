/* engine.c: the event loop. One pass over a queue of timed events; every
 * CPU keeps lists of waiting tasks (and, at a receiver, waiting messages)
 * in the order they were released (engine.h); a dispatch round at the end
 * of each instant gives every idle CPU its next one, CPUs in that order.
 * Two-sided messages are matched in per-rank FIFO queues linked through
 * the task arrays. No allocation once a run has begun, except the event
 * queue's buckets growing to their high-water mark. A perturbation of the
 * models' intervals (the noise: core/perturbation.h) is called through a
 * table; the deadlock report is deadlock_report.c. */
#include "core/engine.h"

#include <stdlib.h>
#include <string.h>

#include "core/event_queue.h"

/* Event payload: task id (or model payload) << EVENT_BITS | kind. */
enum {
  EVENT_COMPLETE, /* local and remote completion at once */
  EVENT_LOCAL,    /* the CPU part ends */
  EVENT_REMOTE,   /* data delivered; a recv or a rendezvous send completes */
  EVENT_MODEL,    /* the network model's own event */
  EVENT_ARRIVAL,  /* a send's message reaches its receiver */
  EVENT_RECEIVED, /* the receiver's CPU is done with a message */
  EVENT_RETRY,    /* a task or message waited for the model's resources */
  EVENT_COMPUTE,  /* the compute model's own event */
};
#define EVENT_BITS 3
_Static_assert(EVENT_COMPUTE + 1 == 1 << EVENT_BITS, "handle() has a case for every kind");

/* Per-task flags of two-sided tasks. RECEIVED_INTO: the message was
 * matched during its receipt; the recv it completes at the receipt's end
 * is in task[send].next. RECEIVING: its receipt has not ended. */
enum { MESSAGE = 1, RENDEZVOUS = 2, MATCHED = 4, RECEIVED_INTO = 8, RECEIVING = 16, DEFERRED = 32 };

/* A CPU's waiting work, each list by place (waiting_key), linked through
 * task_state.next: tasks and messages that take the CPU; and recvs, which
 * are posted in no time when the CPU is free, or when it is taken: those
 * waiting then (up to `due`) are posted at that instant too. */
typedef struct cpu_state {
  uint64_t tail_key, recv_tail_key; /* the keys of the lists' last entries */
  int32_t head, tail;
  int32_t recv_head, recv_tail, due;
  uint8_t busy, dispatch_pending;
} cpu_state;

/* One waiter for a core: a concurrent task (cpu -1), or a CPU whose next
 * entry is task `id`; served by (time, id): ready time, program position. */
typedef struct core_waiter {
  fs_time time;
  int32_t id, cpu;
} core_waiter;

/* The cores of one node holding ranks (fs_engine_set_cores): how many are
 * held, and who waits for one, in a min-heap at waiters[waiters_at..].
 * Core ids 0..fresh-1 were handed out; the free ones among them wait in a
 * min-heap at released[released_at..], so a task takes the lowest free id. */
typedef struct core_pool {
  int64_t released_at, waiters_at;
  int32_t held, fresh, released_count, waiter_count;
  uint8_t dispatch_pending;
} core_pool;

/* A CPU to serve, with its next entry's key while a round runs. */
typedef struct dispatch_entry {
  uint64_t key;
  int32_t cpu;
} dispatch_entry;

/* The engine's state of one task, together: a step that reads one field
 * mostly reads the others (12 bytes, as three arrays took). */
typedef struct task_state {
  int32_t remaining; /* completions still needed; <= 0 once ready */
  int32_t next;      /* next in a CPU's waiting list or a match queue */
  uint32_t place;    /* its place while it waits for a CPU; once started, the place
                      * of its message and the tasks it releases */
} task_state;

/* FIFO queues of one rank: posted receives and unexpected messages (send
 * ids), linked through task_state.next. */
typedef struct match_queues {
  int32_t posted_head, posted_tail;
  int32_t unexpected_head, unexpected_tail;
} match_queues;

struct fs_engine {
  const fs_program *program;
  fs_network_model *network;
  fs_compute_model *compute;
  fs_observer observers[FS_MAX_OBSERVERS];
  int observer_count;
  fs_event_queue queue;
  task_state *task;         /* per task (one cache line for what one step reads) */
  uint32_t next_place;      /* handed out in order: the ranks' first tasks, then one per start
                          * and per match; at most ranks + 2 x FS_MAX_TASKS < 2^32 */
  uint8_t *two_sided;       /* per task: MESSAGE, RENDEZVOUS... (above); NULL without sends */
  cpu_state *cpus;          /* slot (program.h) * program->cpus + cpu */
  match_queues *queues;     /* per slot; NULL without sends and receives */
  fs_time *finish;          /* per slot: latest CPU end or data delivery */
  dispatch_entry *dispatch; /* CPUs to serve at the end of this instant */
  int32_t dispatch_count;
  int32_t dispatch_head;     /* in a round without a heap: the next to serve */
  int32_t dispatch_capacity; /* CPUs */
  int32_t side_count;        /* the side heap's entries, at the array's end (list_dispatch) */
  int in_round, as_heap;
  fs_time now;
  int64_t events;
  int64_t completed;
  int64_t stuck;
  int64_t unmatched;
  int failed;           /* a post was refused (memory, or a time in the past) */
  const char *failure;  /* why, when not that */
  fs_error model_error; /* what a model said when it could not reset */
  /* a perturbation (fs_engine_set_perturbation): &perturbation_table, or
   * NULL, and then pending is unused */
  fs_perturbation *perturbation;
  fs_perturbation perturbation_table;
  int32_t pending;    /* a local completion held until the model's call returns, or -1 */
  fs_time pending_at; /* its time as the model posted it */
  /* cores (fs_engine_set_cores); all NULL unless concurrent tasks run on a platform */
  core_pool *pools; /* per node holding ranks */
  int32_t *pool_of; /* per slot (program.h) */
  int32_t pool_count, cores;
  int32_t *released;    /* the pools' heaps of free core ids */
  int32_t *held_core;   /* per CPU: the core it holds, -1 */
  core_waiter *waiters; /* the pools' heaps of waiters */
  int32_t *task_core;   /* per task: the core a concurrent task holds, -1 */
  fs_time *ready_at;    /* per task (or message): when it joined its CPU's list */
  int32_t *pool_ring;   /* pools to serve at the end of this instant */
  int64_t core_bytes;   /* what the arrays above take */
  int32_t ring_head, ring_count;
};

static int has_two_sided(const fs_program *p) {
  for (int32_t t = 0; t < p->tasks; t++)
    if (fs_task_kind_of(p, t) == FS_SEND || fs_task_kind_of(p, t) == FS_RECV) return 1;
  return 0;
}

/* The bytes of the arrays fs_engine_new allocates for program: per task
 * (one more, unused: the arrays are never empty) its task_state and the
 * two-sided flags; per used rank (slot) its CPUs'
 * cpu_state and dispatch entries, finish, and the match queues. */
static int64_t run_state_bytes(const fs_program *p, int two_sided) {
  int64_t tasks = (int64_t)p->tasks + 1, slots = p->slots, cpus = slots * p->cpus;
  int64_t bytes = tasks * (int64_t)sizeof(task_state) +
                  cpus * (int64_t)(sizeof(cpu_state) + sizeof(dispatch_entry)) +
                  slots * (int64_t)sizeof(fs_time);
  if (two_sided) bytes += tasks * (int64_t)sizeof(uint8_t) + slots * (int64_t)sizeof(match_queues);
  return bytes;
}

/* Those bytes, into *need before any is allocated; -1 with err set past
 * the memory limit. */
static int run_state_too_large(const fs_program *program, int64_t *need, fs_error *err) {
  *need = run_state_bytes(program, has_two_sided(program));
  if (*need <= fs_memory_limit()) return 0;
  char what[96];
  snprintf(what, sizeof what, "the run state of %d tasks on %d ranks", program->tasks,
           program->slots);
  return fs_error_too_large(err, what, *need, fs_memory_limit());
}

fs_engine *fs_engine_new(const fs_program *program, fs_network_model *network,
                         fs_compute_model *compute, fs_error *err) {
  if (!program->finalized) {
    fs_error_set(err, "internal error: program is not finalized");
    return NULL;
  }
  int64_t need;
  if (run_state_too_large(program, &need, err)) return NULL;
  fs_engine *e = calloc(1, sizeof *e);
  if (!e) return fs_error_out_of_memory(err, "the run state", need), NULL;
  e->program = program;
  e->network = network;
  e->compute = compute;
  fs_event_queue_init(&e->queue);
  size_t tasks = (size_t)program->tasks + 1, ranks = (size_t)program->slots; /* used ranks */
  size_t cpus = ranks * (size_t)program->cpus;
  e->task = malloc(tasks * sizeof *e->task);
  e->cpus = malloc(cpus * sizeof *e->cpus);
  e->finish = malloc(ranks * sizeof *e->finish);
  e->dispatch = malloc(cpus * sizeof *e->dispatch);
  e->dispatch_capacity = (int32_t)cpus;
  int two_sided = has_two_sided(program);
  if (two_sided) {
    e->two_sided = malloc(tasks);
    e->queues = malloc(ranks * sizeof *e->queues);
  }
  if (!e->task || !e->cpus || !e->finish || !e->dispatch ||
      (two_sided && (!e->two_sided || !e->queues))) {
    fs_engine_free(e);
    fs_error_out_of_memory(err, "the run state", need);
    return NULL;
  }
  return e;
}

static void free_cores(fs_engine *e) {
  free(e->pools), free(e->pool_of), free(e->released), free(e->held_core);
  free(e->waiters), free(e->task_core), free(e->ready_at), free(e->pool_ring);
  e->core_bytes = 0;
  e->pools = NULL, e->pool_of = e->released = e->held_core = NULL, e->waiters = NULL;
  e->task_core = e->pool_ring = NULL, e->ready_at = NULL;
}

void fs_engine_free(fs_engine *e) {
  if (!e) return;
  fs_event_queue_free(&e->queue);
  free(e->task);
  free(e->two_sided);
  free(e->cpus);
  free(e->queues);
  free(e->finish);
  free(e->dispatch);
  fs_engine_set_perturbation(e, NULL);
  free_cores(e);
  free(e);
}

void fs_engine_set_perturbation(fs_engine *e, const fs_perturbation *perturbation) {
  const fs_perturbation *old = e->perturbation;
  if (old && old->destroy && (!perturbation || perturbation->state != old->state))
    old->destroy(old->state);
  if (perturbation) e->perturbation_table = *perturbation;
  e->perturbation = perturbation ? &e->perturbation_table : NULL;
}

const fs_perturbation *fs_engine_perturbation(const fs_engine *e) { return e->perturbation; }

/* Does task hold a core of its node while it runs (when cores are in use)? */
static int holds_core(const fs_program *p, int32_t t) {
  return fs_task_kind_of(p, t) >= FS_SLEEP && (fs_task_flags(p, t) & FS_CONCURRENT);
}

static int compare_int32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The index of node in the sorted distinct nodes[0..count). */
static int32_t node_index(const int32_t *nodes, int32_t count, int32_t node) {
  int32_t lo = 0, hi = count - 1;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (nodes[mid] < node)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The pools' heaps: at most its CPUs and concurrent tasks wait for a core
 * of a node, and at most min(cores, that) are held or free at once. */
static int size_heaps(fs_engine *e) {
  const fs_program *p = e->program;
  int64_t *room = calloc((size_t)e->pool_count, sizeof *room), total = 0, held = 0;
  if (!room) return -1;
  for (int32_t r = 0; r < p->slots; r++) room[e->pool_of[r]] += p->cpus;
  for (int32_t t = 0; t < p->tasks; t++)
    if (holds_core(p, t)) room[e->pool_of[fs_program_slot(p, fs_task_rank(p, t))]]++;
  for (int32_t i = 0; i < e->pool_count; i++) {
    e->pools[i].waiters_at = total, e->pools[i].released_at = held;
    total += room[i];
    held += room[i] < e->cores ? room[i] : e->cores;
  }
  free(room);
  e->waiters = malloc((size_t)total * sizeof *e->waiters + 1);
  e->released = malloc((size_t)held * sizeof *e->released + 1);
  e->core_bytes +=
      total * (int64_t)sizeof *e->waiters + 1 + held * (int64_t)sizeof *e->released + 1;
  return e->waiters && e->released ? 0 : -1;
}

int fs_engine_set_cores(fs_engine *e, const int32_t *node_of_slot, int64_t cores, fs_error *err) {
  const fs_program *p = e->program;
  free_cores(e);
  int any = 0;
  for (int32_t t = 0; t < p->tasks && !any; t++) any = holds_core(p, t);
  if (!any || p->slots == 0) return 0;
  if (cores < 1 || cores > INT32_MAX)
    return fs_error_set(err, "internal error: %lld cores per node", (long long)cores);
  size_t ranks = (size_t)p->slots, cpus = ranks * (size_t)p->cpus, tasks = (size_t)p->tasks + 1;
  int32_t *nodes = malloc(ranks * sizeof *nodes), count = 0;
  if (nodes) {
    memcpy(nodes, node_of_slot, ranks * sizeof *nodes);
    qsort(nodes, ranks, sizeof *nodes, compare_int32);
    for (size_t i = 0; i < ranks; i++)
      if (i == 0 || nodes[i] != nodes[count - 1]) nodes[count++] = nodes[i];
  }
  e->pool_count = count, e->cores = (int32_t)cores;
  e->pools = calloc((size_t)count + 1, sizeof *e->pools);
  e->pool_of = malloc(ranks * sizeof *e->pool_of);
  e->held_core = malloc(cpus * sizeof *e->held_core);
  e->task_core = malloc(tasks * sizeof *e->task_core);
  e->ready_at = malloc(tasks * sizeof *e->ready_at);
  e->pool_ring = malloc(((size_t)count + 1) * sizeof *e->pool_ring);
  e->core_bytes = ((int64_t)count + 1) * (int64_t)(sizeof *e->pools + sizeof *e->pool_ring) +
                  (int64_t)ranks * (int64_t)sizeof *e->pool_of +
                  (int64_t)cpus * (int64_t)sizeof *e->held_core +
                  (int64_t)tasks * (int64_t)(sizeof *e->task_core + sizeof *e->ready_at);
  int failed = !nodes || !e->pools || !e->pool_of || !e->held_core || !e->task_core ||
               !e->ready_at || !e->pool_ring;
  for (size_t r = 0; !failed && r < ranks; r++)
    e->pool_of[r] = node_index(nodes, count, node_of_slot[r]);
  free(nodes);
  if (failed || size_heaps(e)) {
    free_cores(e);
    return fs_error_set(err, "out of memory for the cores of %d ranks", p->slots);
  }
  return 0;
}

int fs_engine_add_observer(fs_engine *e, const fs_observer *observer) {
  if (e->observer_count == FS_MAX_OBSERVERS) return -1;
  e->observers[e->observer_count++] = *observer;
  return 0;
}

const fs_program *fs_engine_program(const fs_engine *e) { return e->program; }
fs_time fs_engine_makespan(const fs_engine *e) {
  fs_time makespan = 0;
  for (int32_t r = 0; r < e->program->slots; r++)
    if (e->finish[r] > makespan) makespan = e->finish[r];
  return makespan;
}
fs_time fs_engine_finish(const fs_engine *e, int32_t rank) {
  int32_t slot = fs_program_slot(e->program, rank);
  return slot >= 0 ? e->finish[slot] : 0;
}
int64_t fs_engine_events(const fs_engine *e) { return e->events; }
int64_t fs_engine_stuck_tasks(const fs_engine *e) { return e->stuck; }
int64_t fs_engine_unmatched(const fs_engine *e) { return e->unmatched; }
int32_t fs_engine_remaining(const fs_engine *e, int32_t task) { return e->task[task].remaining; }

void fs_engine_visit_unmatched(const fs_engine *e, fs_unmatched_visitor visit, void *state) {
  for (int32_t r = 0; e->queues && r < e->program->slots; r++) {
    for (int32_t t = e->queues[r].posted_head; t >= 0; t = e->task[t].next) visit(state, t, 0);
    for (int32_t t = e->queues[r].unexpected_head; t >= 0; t = e->task[t].next)
      visit(state, t, !(e->two_sided[t] & RENDEZVOUS));
  }
}

const fs_time *fs_engine_finish_times(const fs_engine *e) { return e->finish; }

int64_t fs_engine_bytes(const fs_engine *e) {
  const fs_perturbation *n = e->perturbation;
  return run_state_bytes(e->program, e->two_sided != NULL) + e->core_bytes +
         fs_event_queue_bytes(&e->queue) + (n && n->bytes ? n->bytes(n->state) : 0);
}

/* ---- posting events ---- */

/* Times past the limit are held at it (units.h): a model's saturated sum
 * lands there, never beyond. */
static void post(fs_engine *e, fs_time at, uint64_t payload) {
  if (at > FS_TIME_LIMIT) at = FS_TIME_LIMIT;
  if (at < e->now || fs_event_queue_push(&e->queue, at, payload)) e->failed = 1;
}

/* ---- perturbation: each interval a model posts (core/perturbation.h) ---- */

FS_COLD static void flush_pending_local(fs_engine *e) {
  if (e->pending < 0) return;
  int32_t task = e->pending;
  e->pending = -1;
  const fs_perturbation *n = e->perturbation;
  post(e, n->local(n->state, task, e->pending_at, e->now),
       (uint64_t)task << EVENT_BITS | EVENT_LOCAL);
}

/* A transfer's remote completion or arrival at `at`, with the local
 * completion held for the same task, if any (perturbed as one with it;
 * posted first). */
FS_COLD static fs_time perturbed_transfer(fs_engine *e, int32_t task, fs_time at) {
  const fs_perturbation *n = e->perturbation;
  if (e->pending != task) /* no local completion seen in this call */
    return n->transfer(n->state, task, at, NULL, e->now);
  fs_time local = e->pending_at;
  e->pending = -1;
  fs_time arrival = n->transfer(n->state, task, at, &local, e->now);
  post(e, local, (uint64_t)task << EVENT_BITS | EVENT_LOCAL);
  return arrival;
}

void fs_engine_post_complete(fs_engine *e, int32_t task, fs_time at) {
  const fs_perturbation *n = e->perturbation;
  if (n) at = n->complete(n->state, task, at, e->now);
  post(e, at, (uint64_t)task << EVENT_BITS | EVENT_COMPLETE);
}
/* With a perturbation, a local completion is held until the remote part is
 * known (hockney posts both at once, and the noise treats them as one). */
FS_COLD static void hold_local(fs_engine *e, int32_t task, fs_time at) {
  flush_pending_local(e);
  e->pending = task;
  e->pending_at = at;
}

void fs_engine_post_local(fs_engine *e, int32_t task, fs_time at) {
  if (e->perturbation) {
    hold_local(e, task, at);
    return;
  }
  post(e, at, (uint64_t)task << EVENT_BITS | EVENT_LOCAL);
}
void fs_engine_post_remote(fs_engine *e, int32_t task, fs_time at) {
  if (e->perturbation) at = perturbed_transfer(e, task, at);
  post(e, at, (uint64_t)task << EVENT_BITS | EVENT_REMOTE);
}
/* The engine's own remote completions (a match, a receipt): not perturbed. */
static void post_remote_now(fs_engine *e, int32_t task) {
  post(e, e->now, (uint64_t)task << EVENT_BITS | EVENT_REMOTE);
}
void fs_engine_post_model_event(fs_engine *e, fs_time at, uint32_t payload) {
  post(e, at, (uint64_t)payload << EVENT_BITS | EVENT_MODEL);
}
void fs_engine_post_compute_event(fs_engine *e, fs_time at, uint32_t payload) {
  post(e, at, (uint64_t)payload << EVENT_BITS | EVENT_COMPUTE);
}
void fs_engine_post_arrival(fs_engine *e, int32_t task, fs_time at) {
  if (e->perturbation) at = perturbed_transfer(e, task, at);
  post(e, at, (uint64_t)task << EVENT_BITS | EVENT_ARRIVAL);
}

/* ---- prefetching ----
 * A run of many ranks is memory-bound: each instant touches every rank, so
 * most reads of a task's fields miss the cache. The events of this instant
 * are known in advance (the queue's current bucket): the loop fetches the
 * fields of the event PREFETCH_FAR steps ahead, and what those fields point
 * to (CPU, successors, the recv a receipt completes) PREFETCH_NEAR steps
 * ahead, once they have arrived. Hints only: no result depends on them.
 * The event loop prefetches in two-sided runs only: one-sided runs keep
 * their instructions (their steps read few fields). */
enum { PREFETCH_FAR = 16, PREFETCH_NEAR = 8 };

/* What waiting_key reads. */
static inline void prefetch_key(const fs_engine *e, int32_t t) {
  if (e->program->kind) __builtin_prefetch(&e->program->kind[t]); /* (a template: none) */
  __builtin_prefetch(&e->task[t]);
}

static inline void prefetch_fields(const fs_engine *e, int32_t t) {
  const fs_program *p = e->program;
  if (p->kind) { /* (a rank-symmetric program's fields are its template) */
    __builtin_prefetch(&p->kind[t]);
    __builtin_prefetch(&p->flags[t]);
    __builtin_prefetch(&p->rank[t]);
    __builtin_prefetch(&p->peer[t]);
    __builtin_prefetch(&p->value[t]);
    __builtin_prefetch(&p->successor_at[t]);
  }
  __builtin_prefetch(&e->task[t], 1);
  if (e->two_sided) __builtin_prefetch(&e->two_sided[t], 1);
}

static inline void prefetch_far(const fs_engine *e) {
  const fs_event *ahead = fs_event_queue_peek(&e->queue, PREFETCH_FAR);
  if (ahead && (ahead->payload & ((1 << EVENT_BITS) - 1)) <= EVENT_RECEIVED)
    prefetch_fields(e, (int32_t)(ahead->payload >> EVENT_BITS));
}

/* The rank's CPU (its first) and finish time, and the task's successors. */
static inline void prefetch_near(const fs_engine *e) {
  const fs_program *p = e->program;
  const fs_event *ahead = fs_event_queue_peek(&e->queue, PREFETCH_NEAR);
  if (!ahead) return;
  int32_t t = (int32_t)(ahead->payload >> EVENT_BITS);
  int kind = (int)(ahead->payload & ((1 << EVENT_BITS) - 1));
  if (kind == EVENT_MODEL || kind == EVENT_COMPUTE || kind == EVENT_RETRY) return;
  int32_t rank = kind >= EVENT_ARRIVAL ? fs_task_peer(p, t) : fs_task_rank(p, t);
  if (!p->slot_rank && rank >= 0) {
    __builtin_prefetch(&e->cpus[(int64_t)rank * p->cpus], 1);
    __builtin_prefetch(&e->finish[rank], 1);
    if (e->queues) __builtin_prefetch(&e->queues[rank], 1);
  }
  if (kind != EVENT_ARRIVAL && kind != EVENT_RECEIVED) {
    if (p->successor) __builtin_prefetch(&p->successor[p->successor_at[t]]);
  } else if (kind == EVENT_RECEIVED && (e->two_sided[t] & RECEIVED_INTO)) {
    prefetch_fields(e, e->task[t].next);
  }
}

/* In a dispatch round the CPUs are mostly served in the order they were
 * listed: the state of the CPU listed PREFETCH_FAR places on from entry i,
 * and what its next entries' keys read (all) or what starting them reads
 * (all fields) PREFETCH_NEAR places on. */
static inline void prefetch_dispatch(const fs_engine *e, int32_t i, int all) {
  if (i + PREFETCH_FAR < e->dispatch_count)
    __builtin_prefetch(&e->cpus[e->dispatch[i + PREFETCH_FAR].cpu]);
  if (i + PREFETCH_NEAR >= e->dispatch_count) return;
  const cpu_state *cpu = &e->cpus[e->dispatch[i + PREFETCH_NEAR].cpu];
  int32_t task = cpu->head, recv = cpu->recv_head;
  if (task >= 0) all ? prefetch_fields(e, task) : prefetch_key(e, task);
  if (recv >= 0) all ? prefetch_fields(e, recv) : prefetch_key(e, recv);
}

/* ---- CPUs: waiting lists and dispatch ---- */

static int32_t cpu_of(const fs_engine *e, int32_t rank, int32_t task) {
  return fs_program_slot(e->program, rank) * e->program->cpus + fs_task_cpu(e->program, task);
}

/* A waiting entry's order: its place; within one place (the tasks one
 * start releases), sends, then recvs, then the rest, each first released
 * first (LogGOPSim sorts each batch of newly ready operations by type). */
static uint64_t waiting_key(const fs_engine *e, int32_t task) {
  fs_task_kind kind = fs_task_kind_of(e->program, task);
  return (uint64_t)e->task[task].place << 2 | (kind == FS_SEND ? 0u : kind == FS_RECV ? 1u : 2u);
}

/* A recv that is posted without taking its CPU. */
static int posted_free(const fs_program *p, int32_t task) {
  return fs_task_kind_of(p, task) == FS_RECV && !(fs_task_flags(p, task) & FS_BLOCKING);
}

/* What a CPU can do now: its first task if it is free, its first recv if
 * it is free or that recv is due; -1 if nothing. */
static int32_t cpu_next(const fs_engine *e, int32_t c) {
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
static void list_dispatch(fs_engine *e, int32_t c, int32_t next) {
  e->cpus[c].dispatch_pending = 1;
  if (!e->in_round) {
    e->dispatch[e->dispatch_count++].cpu = c;
    return;
  }
  dispatch_entry item = {waiting_key(e, next), c};
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

static inline void request_dispatch(fs_engine *e, int32_t c) {
  const cpu_state *cpu = &e->cpus[c];
  if (cpu->dispatch_pending || (cpu->busy && cpu->due < 0)) return;
  int32_t next = cpu_next(e, c);
  if (next >= 0) list_dispatch(e, c, next);
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
    prefetch_dispatch(e, i, 0);
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
  task_state *state = e->task;
  uint64_t key = waiting_key(e, task);
  state[task].next = -1;
  if (*head < 0 || key >= *tail_key) {
    if (*head < 0)
      *head = task;
    else
      state[*tail].next = task;
    *tail = task;
    *tail_key = key;
    return;
  }
  int32_t previous = -1, current = *head;
  while (waiting_key(e, current) <= key) previous = current, current = state[current].next;
  state[task].next = current;
  if (previous < 0)
    *head = task;
  else
    state[previous].next = task;
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
  int32_t next = e->task[task].next;
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
  task_state *state = e->task;
  uint32_t place = state[task].place;
  for (uint32_t i = from; i < to; i++) {
    int32_t s = FS_EDGE_TASK(successor[i]);
    if (--state[s].remaining == 0) make_ready(e, s, place);
  }
}

static void fail_run(fs_engine *e, const char *why) {
  e->failed = 1;
  if (!e->failure) e->failure = why;
}

void fs_engine_fail(fs_engine *e, const char *why) { fail_run(e, why); }

static void start_send(fs_engine *e, int32_t task);
static void post_recv(fs_engine *e, int32_t task);

static void start_task(fs_engine *e, int32_t task) {
  const fs_program *p = e->program;
  if (e->observer_count) notify(e, TASK_STARTED, task);
  if (e->perturbation) e->perturbation->start(e->perturbation->state, task, e->now);
  e->task[task].place = e->next_place++; /* what it releases comes after all placed before */
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
  if (e->perturbation) flush_pending_local(e);
}

static void make_ready(fs_engine *e, int32_t task, uint32_t place) {
  if (e->observer_count) notify(e, TASK_READY, task);
  e->task[task].place = place;
  if (fs_task_takes_cpu(e->program, task))
    wait_for_cpu(e, cpu_of(e, fs_task_rank(e->program, task), task), task);
  else if (e->pools && holds_core(e->program, task))
    wait_for_core(e, task);
  else
    start_task(e, task);
}

static void free_cpu(fs_engine *e, int32_t c) {
  e->cpus[c].busy = 0;
  e->cpus[c].due = -1; /* all its recvs can go now */
  if (e->pools) release_cpu_core(e, c);
  request_dispatch(e, c);
}

static void extend_finish(fs_engine *e, int32_t rank) {
  int32_t r = fs_program_slot(e->program, rank);
  if (e->finish[r] < e->now) e->finish[r] = e->now;
}

/* Where a transfer's data lands: a put at its peer; a get, a send (its
 * completion) and a recv at home. */
static int32_t delivered_at(const fs_program *p, int32_t task) {
  return fs_task_kind_of(p, task) == FS_PUT ? fs_task_peer(p, task) : fs_task_rank(p, task);
}

/* ---- two-sided: sends, messages, receives, matching ---- */

static void start_send(fs_engine *e, int32_t task) {
  if (!e->network->send) {
    fail_run(e, "the network model has no two-sided send/recv");
    return;
  }
  int rendezvous = e->network->send(e->network->state, e, task, e->now);
  e->two_sided[task] = (uint8_t)(MESSAGE | (rendezvous ? RENDEZVOUS : 0));
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
  task_state *state = e->task;
  int32_t previous = -1;
  for (int32_t t = *head; t >= 0; previous = t, t = state[t].next) {
    if (!(other_is_send ? accepts(p, t, other) : accepts(p, other, t))) continue;
    if (previous < 0)
      *head = state[t].next;
    else
      state[previous].next = state[t].next;
    if (*tail == t) *tail = previous;
    return t;
  }
  return -1;
}

static void append(fs_engine *e, int32_t *head, int32_t *tail, int32_t t) {
  e->task[t].next = -1;
  if (*tail >= 0)
    e->task[*tail].next = t;
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
  e->two_sided[send] |= MATCHED;
  if (!(e->two_sided[send] & RENDEZVOUS)) return 0;
  e->task[send].place = e->next_place++;
  if (e->network->matched) {
    e->two_sided[send] |= DEFERRED;
    e->task[send].next = recv; /* the send is in no list now */
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
    e->task[recv].place = e->next_place++;
  } else {
    append(e, &q->unexpected_head, &q->unexpected_tail, send);
  }
  if (!e->network->receive) {
    if (recv >= 0 && !deferred) post_remote_now(e, recv);
    return;
  }
  fs_time hold = e->network->receive(e->network->state, e, send, e->now);
  fs_time end = fs_time_add(e->now, hold);
  if (e->perturbation) end = e->perturbation->receive(e->perturbation->state, send, end, e->now);
  if (e->observer_count) notify_received(e, send, end);
  e->two_sided[send] |= RECEIVING;
  if (recv >= 0 && !deferred) {
    e->two_sided[send] |= RECEIVED_INTO;
    e->task[send].next = recv; /* the send is in no list now */
  }
  post(e, end, (uint64_t)send << EVENT_BITS | EVENT_RECEIVED);
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
  if (e->two_sided[send] & RECEIVING) {
    e->two_sided[send] |= RECEIVED_INTO;
    e->task[send].next = recv;
  } else {
    handle_remote(e, recv);
  }
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
  if (fs_task_kind_of(p, task) == FS_SEND && !(e->two_sided[task] & RENDEZVOUS)) {
    if (e->observer_count) notify(e, TASK_REMOTE_COMPLETE, task); /* an eager send is done */
    e->completed++;
    release(e, task, EDGES_LOCAL | EDGES_END);
    return;
  }
  release(e, task, EDGES_LOCAL);
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
}

/* The CPU a message of `send` uses at its receiver. */
static int32_t receiving_cpu(const fs_engine *e, int32_t send) {
  return cpu_of(e, fs_task_peer(e->program, send), send);
}

static void handle(fs_engine *e, uint64_t payload) {
  const fs_program *p = e->program;
  int32_t task = (int32_t)(payload >> EVENT_BITS);
  switch (payload & ((1 << EVENT_BITS) - 1)) {
    case EVENT_COMPLETE: handle_complete(e, task); break;
    case EVENT_LOCAL: handle_local(e, task); break;
    case EVENT_REMOTE:
      handle_remote(e, task);
      if (e->two_sided && (e->two_sided[task] & DEFERRED)) /* set on sends only */
        handle_remote(e, e->task[task].next);              /* its recv, matched earlier */
      break;
    case EVENT_ARRIVAL:
      if (e->network->receive)
        wait_for_cpu(e, receiving_cpu(e, task), task);
      else
        receive_message(e, task);
      break;
    case EVENT_RECEIVED:
      extend_finish(e, fs_task_peer(p, task));
      e->two_sided[task] &= (uint8_t)~RECEIVING;
      free_cpu(e, receiving_cpu(e, task));
      if (e->two_sided[task] & RECEIVED_INTO) handle_remote(e, e->task[task].next);
      break;
    case EVENT_RETRY: {
      int message = fs_task_kind_of(p, task) == FS_SEND && (e->two_sided[task] & MESSAGE);
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
      if (e->perturbation) flush_pending_local(e);
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
    if (!e->as_heap) prefetch_dispatch(e, e->dispatch_head, 1);
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
    int message = fs_task_kind_of(p, task) == FS_SEND && (e->two_sided[task] & MESSAGE);
    if (e->network->available && fs_task_kind_of(p, task) >= FS_PUT &&
        fs_task_kind_of(p, task) <= FS_SEND) {
      fs_time at = e->network->available(e->network->state, e, task, message, e->now);
      if (at > e->now) {
        post(e, at, (uint64_t)task << EVENT_BITS | EVENT_RETRY);
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
  for (int32_t t = 0; t < p->tasks; t++) e->task[t].remaining = fs_task_need(p, t);
  for (int64_t c = 0; c < (int64_t)p->slots * p->cpus; c++)
    e->cpus[c] = (cpu_state){.head = -1, .tail = -1, .recv_head = -1, .recv_tail = -1, .due = -1};
  for (int32_t r = 0; r < p->slots; r++) {
    e->finish[r] = 0;
    if (e->queues) e->queues[r] = (match_queues){-1, -1, -1, -1};
  }
  if (e->two_sided) memset(e->two_sided, 0, (size_t)p->tasks);
  if (e->pools) reset_cores(e);
  e->dispatch_count = 0;
  e->next_place = (uint32_t)p->ranks; /* below: the tasks ready at the outset, by rank */
  e->now = 0;
  e->events = e->completed = e->stuck = e->unmatched = 0;
  e->failed = 0;
  e->failure = NULL;
  e->pending = -1;
  if (e->perturbation) e->perturbation->reset(e->perturbation->state);
  if (e->network->reset && e->network->reset(e->network->state, p, &e->model_error))
    fail_run(e, e->model_error.message);
  else if (e->compute->reset && e->compute->reset(e->compute->state, p, &e->model_error))
    fail_run(e, e->model_error.message);
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

int fs_engine_run(fs_engine *e, fs_error *err) {
  const fs_program *p = e->program;
  reset(e);
  if (e->failed) {
    fs_error_set(err, "%s", e->failure);
    return FS_RUN_REJECTED;
  }
  for (int32_t t = 0; t < p->tasks && !e->failed; t++)
    if (fs_task_need(p, t) == 0) make_ready(e, t, (uint32_t)fs_task_rank(p, t));
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
    if (e->two_sided) prefetch_far(e), prefetch_near(e);
    handle(e, event.payload);
  }
  if (e->failed)
    return fs_error_set(err, "simulation failed at %lld ps: %s", (long long)e->now,
                        e->failure ? e->failure
                                   : "out of memory, or the network model posted a completion in "
                                     "the past");
  for (int32_t t = 0; t < p->tasks; t++)
    if (e->task[t].remaining > 0) e->stuck++;
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
