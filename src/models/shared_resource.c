/* shared_resource.c: progress-fraction sharing of resource instances (see
 * the header). Jobs live in a pool with a free list; each instance links
 * its active jobs. */
#include "models/shared_resource.h"

#include <stdlib.h>

#define GENERATION_SHIFT 24
#define GENERATIONS 127 /* 7 bits: payloads stay below bit 31 */

typedef struct job {
  int32_t owner, next; /* the caller's id; next active on the instance, or free */
  int64_t bytes;
  double progress; /* fraction done */
  double cost;     /* cost(bytes, tau) at the current tau, ps */
  fs_time end;     /* when it ends at the current tau */
  int tag;
} job;

typedef struct instance {
  int32_t head, tau;
  fs_time last;     /* when its jobs' progress was last brought up to date */
  fs_time next_end; /* of its first job to end; -1 when no event is pending */
  uint32_t generation;
} instance;

struct fs_shared_resource {
  fs_shared_callbacks callbacks;
  instance *instances;
  int32_t instance_count;
  job *jobs;
  int32_t job_count, job_capacity, free_job;
  fs_load_observer observer; /* changed is NULL when none */
  fs_instance_namer name;
};

fs_shared_resource *fs_shared_resource_new(const fs_shared_callbacks *callbacks) {
  fs_shared_resource *r = calloc(1, sizeof *r);
  if (r) r->callbacks = *callbacks, r->free_job = -1;
  return r;
}

void fs_shared_resource_free(fs_shared_resource *r) {
  if (!r) return;
  free(r->instances);
  free(r->jobs);
  free(r);
}

int fs_shared_resource_reset(fs_shared_resource *r, int32_t instances, fs_error *err) {
  if (instances > FS_SHARED_MAX_INSTANCES)
    return fs_error_set(err, "at most %d shared resource instances", FS_SHARED_MAX_INSTANCES);
  if (instances > r->instance_count || !r->instances) {
    free(r->instances);
    r->instances = malloc((size_t)(instances > 0 ? instances : 1) * sizeof *r->instances);
    if (!r->instances) return fs_error_set(err, "out of memory for %d instances", instances);
  }
  r->instance_count = instances;
  for (int32_t i = 0; i < instances; i++)
    r->instances[i] = (instance){.head = -1, .tau = 0, .last = 0, .next_end = -1, .generation = 0};
  r->job_count = 0;
  r->free_job = -1;
  if (r->observer.reset)
    r->observer.reset(r->observer.state, instances, r->callbacks.owner, r->name);
  return 0;
}

void fs_shared_resource_set_observer(fs_shared_resource *r, const fs_load_observer *observer,
                                     fs_instance_namer name) {
  r->observer = observer ? *observer : (fs_load_observer){0};
  r->name = name;
}

/* Brings the progress of an instance's jobs up to now at the old tau. */
static void advance(fs_shared_resource *r, instance *in, fs_time now) {
  for (int32_t x = in->head; x >= 0; x = r->jobs[x].next) {
    job *j = &r->jobs[x];
    j->progress = j->cost > 0 ? j->progress + (double)(now - in->last) / j->cost : 1.0;
  }
  in->last = now;
}

/* Recomputes when each job ends at the current tau; posts one event, for
 * the first, when that time changed. */
static void reschedule(fs_shared_resource *r, fs_engine *e, int32_t index, fs_time now) {
  instance *in = &r->instances[index];
  fs_time first = -1;
  for (int32_t x = in->head; x >= 0; x = r->jobs[x].next) {
    job *j = &r->jobs[x];
    double left = 1.0 - j->progress;
    j->cost = r->callbacks.cost(r->callbacks.owner, index, j->bytes, in->tau);
    if (!(j->cost > 0)) j->cost = 0; /* a negative table value costs nothing, never time back */
    double rest = (left > 0 ? left : 0) * j->cost + 0.5; /* nearest ps, saturated */
    j->end = fs_time_add(now, rest < (double)FS_TIME_LIMIT ? (fs_time)rest : FS_TIME_LIMIT);
    if (first < 0 || j->end < first) first = j->end;
  }
  if (first == in->next_end) return; /* its event stands (or none is needed) */
  in->next_end = first;
  in->generation = in->generation == GENERATIONS ? 1 : in->generation + 1;
  if (first >= 0)
    r->callbacks.post(r->callbacks.owner, e, first,
                      (uint32_t)index | in->generation << GENERATION_SHIFT);
}

static int32_t new_job(fs_shared_resource *r) {
  if (r->free_job >= 0) {
    int32_t x = r->free_job;
    r->free_job = r->jobs[x].next;
    return x;
  }
  if (r->job_count == r->job_capacity) {
    int32_t want = r->job_capacity ? r->job_capacity * 2 : 1024;
    job *bigger = realloc(r->jobs, (size_t)want * sizeof *bigger);
    if (!bigger) return -1;
    r->jobs = bigger;
    r->job_capacity = want;
  }
  return r->job_count++;
}

void fs_shared_resource_begin(fs_shared_resource *r, fs_engine *e, int32_t index, int64_t bytes,
                              int32_t job_owner, int job_tag, fs_time now) {
  int32_t x = new_job(r);
  if (x < 0) {
    if (e) fs_engine_fail(e, "out of memory for the jobs of a shared resource");
    return;
  }
  instance *in = &r->instances[index];
  advance(r, in, now);
  r->jobs[x] = (job){.owner = job_owner,
                     .next = in->head,
                     .bytes = bytes,
                     .progress = 0,
                     .cost = 0,
                     .end = -1,
                     .tag = job_tag};
  in->head = x;
  in->tau++;
  if (r->observer.changed) r->observer.changed(r->observer.state, index, in->tau, now);
  reschedule(r, e, index, now);
}

/* The first jobs of an instance end: off the instance (the others speed
 * up), then each is handed back to its owner. */
void fs_shared_resource_event(fs_shared_resource *r, fs_engine *e, uint32_t payload, fs_time now) {
  int32_t index = (int32_t)(payload & (FS_SHARED_MAX_INSTANCES - 1));
  instance *in = &r->instances[index];
  if (payload >> GENERATION_SHIFT != in->generation || now != in->next_end) return; /* superseded */
  advance(r, in, now);
  int32_t ended = -1, *link = &in->head;
  while (*link >= 0) {
    job *j = &r->jobs[*link];
    if (j->end > now) {
      link = &j->next;
      continue;
    }
    int32_t x = *link;
    *link = j->next;
    j->next = ended;
    ended = x;
    in->tau--;
  }
  in->next_end = -1;
  if (r->observer.changed) r->observer.changed(r->observer.state, index, in->tau, now);
  reschedule(r, e, index, now);
  while (ended >= 0) {
    job *j = &r->jobs[ended];
    int32_t owner = j->owner, following = j->next;
    int tag = j->tag;
    j->next = r->free_job;
    r->free_job = ended;
    r->callbacks.done(r->callbacks.owner, e, owner, tag, now);
    ended = following;
  }
}
