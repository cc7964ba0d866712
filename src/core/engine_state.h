/* engine_state.h: the engine's state, shared by engine.c (setting up,
 * posting events, results) and its steps (engine_steps.h, compiled twice:
 * engine_explicit.c and engine_symmetric.c, one for each kind of program,
 * program.h). Private to src/core. */
#ifndef FS_ENGINE_STATE_H
#define FS_ENGINE_STATE_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/engine.h"
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
/* In a rank-symmetric program's window: the message was counted settled. */
enum { SETTLED = 64 };

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
  int32_t remaining; /* completions still needed, <= 0 once ready; in an explicit
                      * program the completions counted instead, from zero (the
                      * records start as calloc's zeroes: engine_populate.c) */
  int32_t next;      /* next in a CPU's waiting list or a match queue */
  uint32_t place;    /* its place while it waits for a CPU; once started, the place
                      * of its message and the tasks it releases */
} task_state;

/* A block of a rank-symmetric program (core/symmetric.h: its P x width
 * tasks, rank by rank) in the engine's window: its tasks' task_state and
 * two-sided flags exist only while it is live (engine_window.c). */
typedef struct window_block {
  task_state *task; /* its tasks' state, or NULL; flags = (uint8_t *)(task + P width) */
  int64_t left;     /* tasks not yet complete and messages not yet settled */
  uint8_t phase;    /* BLOCK_UNBORN, BLOCK_LIVE, BLOCK_DEAD */
} window_block;

enum { BLOCK_UNBORN, BLOCK_LIVE, BLOCK_DEAD };

/* The window of a run of a rank-symmetric program: the blocks, the buffers
 * of dead blocks kept for the next ones (touched memory costs no page
 * faults), and how many buffers were allocated at most. */
typedef struct task_window {
  window_block *block;
  task_state **spare;
  int32_t blocks, spare_count, buffers, live, live_peak;
  uint32_t block_tasks; /* P x width */
  fs_divider per_block; /* the program's (symmetric.h), here: one load less per access */
  uint8_t two_sided;    /* the program has sends or recvs: flags after each buffer's states */
  int64_t buffer_bytes; /* one buffer's */
  task_state dead;      /* what a dead block's task reads as (an any=K task released late) */
} task_window;

/* FIFO queues of one rank: posted receives and unexpected messages (send
 * ids), linked through task_state.next. */
typedef struct match_queues {
  int32_t posted_head, posted_tail;
  int32_t unexpected_head, unexpected_tail;
} match_queues;

/* The thread mapping an explicit program's task records ahead of its
 * first run (engine_populate.c). */
typedef struct engine_populate {
  pthread_t thread;
  atomic_int stop;
  int running;
  int64_t tasks;
} engine_populate;

struct fs_engine {
  const fs_program *program;
  fs_network_model *network;
  fs_compute_model *compute;
  fs_observer observers[FS_MAX_OBSERVERS];
  int observer_count;
  fs_event_queue queue;
  task_state *task;         /* per task (one cache line for what one step reads); NULL for
                             * a rank-symmetric program, whose state is in `window` */
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
  task_window window; /* rank-symmetric programs only */
  uint8_t fresh;      /* task and two_sided are calloc's zeroes, no run reset them yet */
  engine_populate populate;
};

/* Times past the limit are held at it (units.h): a model's saturated sum
 * lands there, never beyond. */
static inline void fs_engine_post_event(fs_engine *e, fs_time at, uint64_t payload) {
  if (at > FS_TIME_LIMIT) at = FS_TIME_LIMIT;
  if (at < e->now || fs_event_queue_push(&e->queue, at, payload)) e->failed = 1;
}

/* Ends the run as failed; the first reason is kept. */
static inline void fs_engine_fail_run(fs_engine *e, const char *why) {
  e->failed = 1;
  if (!e->failure) e->failure = why;
}

/* Does task hold a core of its node while it runs (when cores are in use)? */
static inline int holds_core(const fs_program *p, int32_t t) {
  return fs_task_kind_of(p, t) >= FS_SLEEP && (fs_task_flags(p, t) & FS_CONCURRENT);
}

/* ---- the window (rank-symmetric programs; engine_window.c) ---- */

/* Block of task t, and its index in the block. */
static inline window_block *window_block_of(const fs_engine *e, int32_t t, uint32_t *index) {
  uint32_t b = fs_divide(&e->window.per_block, (uint32_t)t);
  *index = (uint32_t)t - b * e->window.block_tasks;
  return &e->window.block[b];
}

/* Task t's state; its block is live. */
static inline task_state *window_task(const fs_engine *e, int32_t t) {
  uint32_t i;
  return &window_block_of(e, t, &i)->task[i];
}

/* Task t's two-sided flags; its block is live. */
static inline uint8_t *window_flags(const fs_engine *e, int32_t t) {
  uint32_t i;
  window_block *b = window_block_of(e, t, &i);
  return (uint8_t *)(b->task + e->window.block_tasks) + i;
}

/* Brings a block to life: its buffer, its tasks' remaining counts from the
 * template, flags cleared; NULL (the run failed) without memory. */
task_state *fs_window_open(fs_engine *e, window_block *b);
/* A block's last task completed or message settled: its buffer is spare. */
void fs_window_close(fs_engine *e, window_block *b);

/* Task t's state, bringing its block to life when t is the first of it
 * touched; a dead block's task (only an any=K task released after it ran)
 * reads as `dead`, already ready. */
static inline task_state *window_touch(fs_engine *e, int32_t t) {
  uint32_t i;
  window_block *b = window_block_of(e, t, &i);
  if (FS_UNLIKELY(!b->task)) {
    if (b->phase == BLOCK_DEAD || !fs_window_open(e, b)) {
      e->window.dead.remaining = INT32_MIN / 2; /* never counted down to 0 */
      return &e->window.dead;
    }
  }
  return &b->task[i];
}

/* n of the things task t's block waits for are done (engine_window.c):
 * a task's local part or completion, a message settled. */
static inline void window_done(fs_engine *e, int32_t t, int n) {
  uint32_t i;
  window_block *b = window_block_of(e, t, &i);
  if ((b->left -= n) == 0) fs_window_close(e, b);
}

/* Sets up the window for a run (all blocks unborn, buffers spare); frees it. */
int fs_window_reset(fs_engine *e);
void fs_window_free(fs_engine *e);
/* Tasks that never became ready, and task t's remaining count. */
int64_t fs_window_stuck(const fs_engine *e);
int32_t fs_window_remaining(const fs_engine *e, int32_t t);

/* Starts mapping the task records and flags of `tasks` tasks on a
 * thread (not for few tasks; nothing if no thread can start); stops it. */
void fs_engine_populate_start(fs_engine *e, int64_t tasks);
void fs_engine_populate_stop(fs_engine *e);

/* Posts the local completion held for the perturbation, if any (engine.c). */
void fs_engine_flush_local(fs_engine *e);

/* fs_engine_run for each kind of program (engine_steps.h). */
int fs_engine_run_explicit(fs_engine *e, fs_error *err);
int fs_engine_run_symmetric(fs_engine *e, fs_error *err);

#endif
