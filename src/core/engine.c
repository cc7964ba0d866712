/* engine.c: the engine's setup, results and event posting; its steps and
 * event loop are engine_steps.h, compiled once per kind of program
 * (engine_explicit.c, engine_symmetric.c). One pass over a queue of timed events; every
 * CPU keeps lists of waiting tasks (and, at a receiver, waiting messages)
 * in the order they were released (engine.h); a dispatch round at the end
 * of each instant gives every idle CPU its next one, CPUs in that order.
 * Two-sided messages are matched in per-rank FIFO queues linked through
 * the task arrays. No allocation once a run has begun, except the event
 * queue's buckets growing to their high-water mark and, for a
 * rank-symmetric program, the window's block buffers (engine_window.c:
 * the task state of its live blocks only). A perturbation of the
 * models' intervals (the noise: core/perturbation.h) is called through a
 * table; the deadlock report is deadlock_report.c. */
#include "core/engine.h"

#include <stdlib.h>
#include <string.h>

#include "core/engine_state.h"

static int has_two_sided(const fs_program *p) {
  const fs_symmetric *s = p->symmetric;
  for (int32_t k = 0; s && k < s->count; k++) /* a template: its tasks are every rank's */
    if (s->task[k].kind == FS_SEND || s->task[k].kind == FS_RECV) return 1;
  for (int32_t t = 0; !s && t < p->tasks; t++)
    if (fs_task_kind_of(p, t) == FS_SEND || fs_task_kind_of(p, t) == FS_RECV) return 1;
  return 0;
}

/* The bytes of the arrays fs_engine_new allocates for program: per task
 * (one more, unused: the arrays are never empty) its task_state and the
 * two-sided flags, or, for a rank-symmetric program, `buffers` blocks' of
 * them (engine_window.c) and the blocks' index; per used rank (slot) its
 * CPUs' cpu_state and dispatch entries, finish, and the match queues. */
static int64_t run_state_bytes(const fs_program *p, int two_sided, int64_t buffers) {
  int64_t tasks = (int64_t)p->tasks + 1, slots = p->slots, cpus = slots * p->cpus;
  int64_t per_task = (int64_t)sizeof(task_state) + (two_sided ? 1 : 0);
  int64_t bytes = cpus * (int64_t)(sizeof(cpu_state) + sizeof(dispatch_entry)) +
                  slots * (int64_t)sizeof(fs_time);
  if (p->symmetric)
    bytes += buffers * (int64_t)p->ranks * p->symmetric->width * per_task +
             p->symmetric->blocks * (int64_t)(sizeof(window_block) + sizeof(task_state *));
  else
    bytes += tasks * per_task;
  if (two_sided) bytes += slots * (int64_t)sizeof(match_queues);
  return bytes;
}

/* Those bytes, into *need before any is allocated; -1 with err set past
 * the memory limit. */
static int run_state_too_large(const fs_program *program, int64_t *need, fs_error *err) {
  *need =
      run_state_bytes(program, has_two_sided(program), 1); /* a window holds one block or more */
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
  int two_sided = has_two_sided(program), symmetric = program->symmetric != NULL;
  if (!symmetric) e->task = calloc(tasks, sizeof *e->task); /* fresh: mapped ahead, below */
  e->window.two_sided = (uint8_t)(symmetric && two_sided);
  e->cpus = malloc(cpus * sizeof *e->cpus);
  e->finish = malloc(ranks * sizeof *e->finish);
  e->dispatch = malloc(cpus * sizeof *e->dispatch);
  e->dispatch_capacity = (int32_t)cpus;
  if (two_sided) {
    if (!symmetric) e->two_sided = calloc(tasks, 1);
    e->queues = malloc(ranks * sizeof *e->queues);
  }
  if ((!symmetric && !e->task) || !e->cpus || !e->finish || !e->dispatch ||
      (two_sided && ((!symmetric && !e->two_sided) || !e->queues))) {
    fs_engine_free(e);
    fs_error_out_of_memory(err, "the run state", need);
    return NULL;
  }
  /* huge pages: a fault per 2 MiB (error.h); the task records' first
   * touches are also taken ahead by a thread (engine_populate.c) */
  if (!symmetric) fs_memory_huge_pages(e->task, tasks * sizeof *e->task);
  if (e->two_sided) fs_memory_huge_pages(e->two_sided, tasks);
  fs_memory_huge_pages(e->cpus, cpus * sizeof *e->cpus);
  fs_memory_huge_pages(e->dispatch, cpus * sizeof *e->dispatch);
  fs_memory_huge_pages(e->finish, ranks * sizeof *e->finish);
  if (e->queues) fs_memory_huge_pages(e->queues, ranks * sizeof *e->queues);
  e->fresh = !symmetric;
  if (!symmetric) fs_engine_populate_start(e, (int64_t)tasks);
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
  fs_engine_populate_stop(e);
  fs_event_queue_free(&e->queue);
  free(e->task);
  free(e->two_sided);
  fs_window_free(e);
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
int32_t fs_engine_window_buffers(const fs_engine *e) { return e->window.buffers; }
int64_t fs_engine_stuck_tasks(const fs_engine *e) { return e->stuck; }
int64_t fs_engine_unmatched(const fs_engine *e) { return e->unmatched; }
int32_t fs_engine_remaining(const fs_engine *e, int32_t task) {
  const fs_program *p = e->program;
  return p->symmetric ? fs_window_remaining(e, task)
                      : fs_task_need(p, task) - e->task[task].remaining; /* counted up */
}

/* Task t's state and flags, in the arrays or the window (a task in a
 * match queue: its block is live). */
static const task_state *state_of(const fs_engine *e, int32_t t) {
  return e->program->symmetric ? window_task(e, t) : &e->task[t];
}
static uint8_t flags_of(const fs_engine *e, int32_t t) {
  return e->program->symmetric ? *window_flags(e, t) : e->two_sided[t];
}

void fs_engine_visit_unmatched(const fs_engine *e, fs_unmatched_visitor visit, void *state) {
  for (int32_t r = 0; e->queues && r < e->program->slots; r++) {
    for (int32_t t = e->queues[r].posted_head; t >= 0; t = state_of(e, t)->next) visit(state, t, 0);
    for (int32_t t = e->queues[r].unexpected_head; t >= 0; t = state_of(e, t)->next)
      visit(state, t, !(flags_of(e, t) & RENDEZVOUS));
  }
}

const fs_time *fs_engine_finish_times(const fs_engine *e) { return e->finish; }

int64_t fs_engine_bytes(const fs_engine *e) {
  const fs_perturbation *n = e->perturbation;
  int two_sided = e->two_sided != NULL || e->window.two_sided;
  return run_state_bytes(e->program, two_sided, e->window.buffers) + e->core_bytes +
         fs_event_queue_bytes(&e->queue) + (n && n->bytes ? n->bytes(n->state) : 0);
}

/* ---- perturbation: each interval a model posts (core/perturbation.h) ---- */

FS_COLD void fs_engine_flush_local(fs_engine *e) {
  if (e->pending < 0) return;
  int32_t task = e->pending;
  e->pending = -1;
  const fs_perturbation *n = e->perturbation;
  fs_engine_post_event(e, n->local(n->state, task, e->pending_at, e->now),
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
  fs_engine_post_event(e, local, (uint64_t)task << EVENT_BITS | EVENT_LOCAL);
  return arrival;
}

void fs_engine_post_complete(fs_engine *e, int32_t task, fs_time at) {
  const fs_perturbation *n = e->perturbation;
  if (n) at = n->complete(n->state, task, at, e->now);
  fs_engine_post_event(e, at, (uint64_t)task << EVENT_BITS | EVENT_COMPLETE);
}
/* With a perturbation, a local completion is held until the remote part is
 * known (hockney posts both at once, and the noise treats them as one). */
FS_COLD static void hold_local(fs_engine *e, int32_t task, fs_time at) {
  fs_engine_flush_local(e);
  e->pending = task;
  e->pending_at = at;
}

void fs_engine_post_local(fs_engine *e, int32_t task, fs_time at) {
  if (e->perturbation) {
    hold_local(e, task, at);
    return;
  }
  fs_engine_post_event(e, at, (uint64_t)task << EVENT_BITS | EVENT_LOCAL);
}
void fs_engine_post_remote(fs_engine *e, int32_t task, fs_time at) {
  if (e->perturbation) at = perturbed_transfer(e, task, at);
  fs_engine_post_event(e, at, (uint64_t)task << EVENT_BITS | EVENT_REMOTE);
}
void fs_engine_post_model_event(fs_engine *e, fs_time at, uint32_t payload) {
  fs_engine_post_event(e, at, (uint64_t)payload << EVENT_BITS | EVENT_MODEL);
}
void fs_engine_post_compute_event(fs_engine *e, fs_time at, uint32_t payload) {
  fs_engine_post_event(e, at, (uint64_t)payload << EVENT_BITS | EVENT_COMPUTE);
}
void fs_engine_post_arrival(fs_engine *e, int32_t task, fs_time at) {
  if (e->perturbation) at = perturbed_transfer(e, task, at);
  fs_engine_post_event(e, at, (uint64_t)task << EVENT_BITS | EVENT_ARRIVAL);
}

void fs_engine_fail(fs_engine *e, const char *why) { fs_engine_fail_run(e, why); }

int fs_engine_run(fs_engine *e, fs_error *err) {
  return e->program->symmetric ? fs_engine_run_symmetric(e, err) : fs_engine_run_explicit(e, err);
}
