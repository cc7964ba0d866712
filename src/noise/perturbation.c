/* perturbation.c: the noise as the engine's perturbation
 * (core/perturbation.h): each interval a model posts, perturbed by the
 * terms and the detour trace of noise.h, and the per-run state that takes:
 * the draws spent per rank and each task's start. */
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/perturbation.h"
#include "core/program.h"
#include "noise/noise.h"

typedef struct noisy_run {
  const fs_noise *noise;
  const fs_program *program;
  uint64_t seed;
  uint64_t *draws;  /* per used rank (slot): draws so far in this run */
  fs_time *started; /* per task: when it started */
} noisy_run;

static fs_time not_before(fs_time now, fs_time t) { return t < now ? now : t; }

/* d under rank's noise of `kind`, spending one of the rank's draws. */
static fs_time perturb(noisy_run *r, fs_noise_kind kind, int32_t rank, fs_time d) {
  if (!fs_noise_has(r->noise, kind, rank)) return d;
  uint64_t index = r->draws[fs_program_slot(r->program, rank)]++;
  return fs_noise_apply(r->noise, kind, rank, r->seed, index, d);
}

/* The end of a CPU occupation of rank from start to end: host noise (and
 * compute noise for a compute), then the detours it meets. */
static fs_time occupation_end(noisy_run *r, int32_t rank, int takes_cpu, int compute, fs_time start,
                              fs_time end, fs_time now) {
  fs_time d = perturb(r, FS_NOISE_HOST, rank, end - start);
  if (compute) d = perturb(r, FS_NOISE_COMPUTE, rank, d);
  fs_time t = fs_time_add(start, d);
  if (takes_cpu) t = fs_noise_detour_end(r->noise, rank, r->seed, start, t);
  return not_before(now, t);
}

static fs_time task_occupation_end(noisy_run *r, int32_t task, int compute, fs_time at,
                                   fs_time now) {
  const fs_program *p = r->program;
  return occupation_end(r, fs_task_rank(p, task), fs_task_takes_cpu(p, task), compute,
                        r->started[task], at, now);
}

/* The whole interval from task's start to `at` under net noise. */
static fs_time net_from_start(noisy_run *r, int32_t task, fs_time at, fs_time now) {
  fs_time start = r->started[task];
  return not_before(now, fs_time_add(start, perturb(r, FS_NOISE_NET, fs_task_rank(r->program, task),
                                                    at - start)));
}

static void reset(void *state) {
  noisy_run *r = state;
  memset(r->draws, 0, (size_t)r->program->slots * sizeof *r->draws);
}

static void start(void *state, int32_t task, fs_time now) {
  ((noisy_run *)state)->started[task] = now;
}

/* A completion with local = remote: a sleep or compute is an occupation; a
 * put/get whose sender is busy until the data lands is one, then a
 * transfer (net noise on the whole). */
static fs_time complete(void *state, int32_t task, fs_time at, fs_time now) {
  noisy_run *r = state;
  switch (fs_task_kind_of(r->program, task)) {
    case FS_START:
    case FS_PROXY: return at;
    case FS_SLEEP: return task_occupation_end(r, task, 0, at, now);
    case FS_COMPUTE: return task_occupation_end(r, task, 1, at, now);
    default: return net_from_start(r, task, task_occupation_end(r, task, 0, at, now), now);
  }
}

static fs_time local(void *state, int32_t task, fs_time at, fs_time now) {
  return task_occupation_end(state, task, 0, at, now);
}

/* A transfer's remote completion or arrival at `at`: its latency after
 * the local completion under net noise, or, when the model keeps the
 * sender busy until then (the same time), the whole interval. A message
 * that lands before the sender's CPU is free (LogGOPS with O > G: the
 * o + L of an eager send ends before o + (s-1)O) has no latency after the
 * local completion: its whole flight from the start is perturbed, apart
 * from the CPU's. */
static fs_time transfer(void *state, int32_t task, fs_time at, fs_time *local, fs_time now) {
  noisy_run *r = state;
  if (!local) return net_from_start(r, task, at, now);
  fs_time noisy_local = task_occupation_end(r, task, 0, *local, now), arrival;
  if (at == *local)
    noisy_local = arrival = net_from_start(r, task, noisy_local, now);
  else if (at < *local)
    arrival = net_from_start(r, task, at, now);
  else
    arrival = fs_time_add(noisy_local,
                          perturb(r, FS_NOISE_NET, fs_task_rank(r->program, task), at - *local));
  *local = noisy_local;
  return arrival;
}

/* The receiver's CPU time for a message: an occupation of the receiver. */
static fs_time receive(void *state, int32_t send, fs_time end, fs_time now) {
  noisy_run *r = state;
  return occupation_end(r, fs_task_peer(r->program, send), 1, 0, now, end, now);
}

static int64_t bytes(const void *state) {
  const noisy_run *r = state;
  const fs_program *p = r->program;
  return (int64_t)sizeof *r + (int64_t)(p->slots ? p->slots : 1) * (int64_t)sizeof *r->draws +
         ((int64_t)p->tasks + 1) * (int64_t)sizeof *r->started;
}

static void destroy(void *state) {
  noisy_run *r = state;
  free(r->draws);
  free(r->started);
  free(r);
}

static noisy_run *new_run(const fs_program *p) {
  noisy_run *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->program = p;
  r->draws = malloc((size_t)(p->slots ? p->slots : 1) * sizeof *r->draws);
  r->started = malloc(((size_t)p->tasks + 1) * sizeof *r->started);
  if (r->draws && r->started) return r;
  destroy(r);
  return NULL;
}

int fs_engine_set_noise(fs_engine *e, const fs_noise *noise, uint64_t seed, fs_error *err) {
  if (!fs_noise_active(noise)) {
    fs_engine_set_perturbation(e, NULL);
    return 0;
  }
  const fs_perturbation *set = fs_engine_perturbation(e);
  const fs_program *p = fs_engine_program(e);
  noisy_run *r = set && set->destroy == destroy ? set->state : new_run(p); /* kept across runs */
  if (!r) return fs_error_set(err, "out of memory for the noise state of %d tasks", p->tasks);
  r->noise = noise;
  r->seed = seed;
  fs_perturbation table = {r, reset, start, complete, local, transfer, receive, bytes, destroy};
  fs_engine_set_perturbation(e, &table);
  return 0;
}
