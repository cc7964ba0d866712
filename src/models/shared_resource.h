/* shared_resource.h: jobs that share resource instances, tau-Lop style.
 *
 * A job of m bytes among tau active jobs on its instance takes cost(m, tau)
 * (a channel's L(m, tau), a node's gamma(m, tau)). Each job keeps a progress
 * fraction f, advancing at df/dt = 1/cost(m, tau(t)); when a job joins or
 * leaves, every job there is rescheduled at t + (1-f) cost(m, tau_new)
 * (the tau-Lop thesis's rule A2). One event is pending per
 * instance, for its first job to end; it is posted through the owner's
 * function (the network or the compute model's own events) with a payload
 * below bit 31, which the owner may use for its own events. */
#ifndef FS_SHARED_RESOURCE_H
#define FS_SHARED_RESOURCE_H

#include <stdint.h>

#include "core/engine.h"

#define FS_SHARED_MAX_INSTANCES (1 << 24)

typedef struct fs_shared_resource fs_shared_resource;

typedef struct fs_shared_callbacks {
  void *owner;
  /* cost(m, tau) of instance's jobs, in picoseconds */
  double (*cost)(void *owner, int32_t instance, int64_t bytes, int32_t tau);
  /* posts an event of the owner's at `at` carrying payload */
  void (*post)(void *owner, fs_engine *engine, fs_time at, uint32_t payload);
  /* a job ended at now (already off its instance) */
  void (*done)(void *owner, fs_engine *engine, int32_t job_owner, int job_tag, fs_time now);
} fs_shared_callbacks;

fs_shared_resource *fs_shared_resource_new(const fs_shared_callbacks *callbacks);
void fs_shared_resource_free(fs_shared_resource *r);
/* Before a run: `instances` instances, all idle, no jobs. -1 with err set. */
int fs_shared_resource_reset(fs_shared_resource *r, int32_t instances, fs_error *err);
/* A job of `bytes` joins `instance` now; job_owner and job_tag come back in
 * done(). Fails the run (fs_engine_fail) when out of memory; outside a run
 * (engine NULL: a resource the owner drives itself) the job is dropped. */
void fs_shared_resource_begin(fs_shared_resource *r, fs_engine *e, int32_t instance, int64_t bytes,
                              int32_t job_owner, int job_tag, fs_time now);
/* Handles an event posted by this resource (a payload below bit 31). */
void fs_shared_resource_event(fs_shared_resource *r, fs_engine *e, uint32_t payload, fs_time now);
/* Reports each instance's tau to observer (copied; NULL: none) from the
 * next reset on, naming instances with name(callbacks.owner, ...). */
void fs_shared_resource_set_observer(fs_shared_resource *r, const fs_load_observer *observer,
                                     fs_instance_namer name);

#endif
