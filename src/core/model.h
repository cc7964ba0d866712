/* model.h: the two pluggable cost models, as structs of function pointers.
 *
 * The engine asks the network model to carry out each put, get and send
 * (and each receipt of a message), and the compute model how long each
 * compute task takes. A network model answers by posting the transfer's
 * completions to the engine (fs_engine_post_*, engine.h), now or later: a
 * contention model keeps its own state and events
 * (fs_engine_post_model_event) and posts completions when it knows them.
 *
 * A model is two tables. fs_network_model holds what the engine calls: seven
 * callbacks (start, send, receive, available, event, reset, matched), each
 * documented below with when the engine calls it and what it must post,
 * and name, state, destroy. fs_model_reports, optional, holds what reports
 * and instruments may ask besides (describe, price, set_load_observer);
 * they ask through the fs_*_model_describe/price/observe helpers below,
 * which answer for a model without one. A new model fills start (and send
 * for two-sided programs), leaves the other callbacks NULL until it needs
 * them, and adds a reports table to show its parameters (docs/MODELS.md,
 * "How to write a model"). All times are absolute picoseconds (units.h),
 * never before `now`. */
#ifndef FS_MODEL_H
#define FS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/program.h"
#include "core/units.h"

typedef struct fs_engine fs_engine;

/* Watches a contention model's channel instances (taulop's shared memories
 * and NICs, gamma's nodes): tau, the jobs active on each, over time. */
typedef void (*fs_instance_namer)(const void *model, int32_t instance, char *buffer, size_t size);
typedef struct fs_load_observer {
  void *state;
  /* At each model reset: `instances` instances, all at tau 0 from time 0;
   * name(model, i, ...) writes instance i's name ("net node 3") until the
   * model's next reset. */
  void (*reset)(void *state, int32_t instances, const void *model, fs_instance_namer name);
  /* instance's tau became `tau` at t (jobs joined or left) */
  void (*changed)(void *state, int32_t instance, int32_t tau, fs_time t);
} fs_load_observer;

/* Watches a flow model's links and transfers (--link-load, the rates in
 * --svg and --chrome): every change of a link's flows or carried rate, and
 * of a transfer's rate. Rates are bytes/s, as doubles (the flow model's
 * max-min solution, before rounding its dates to picoseconds). */
typedef double (*fs_link_namer)(const void *model, int32_t link, char *buffer, size_t size);
typedef struct fs_flow_observer {
  void *state;
  /* At each model reset: `links` links, all idle from time 0; name(model,
   * l, ...) writes link l's name and returns its raw bandwidth (B/s),
   * until the model's next reset. */
  void (*reset)(void *state, int32_t links, const void *model, fs_link_namer name);
  /* From t on, link carries `flows` flows in their data phase at `rate`
   * bytes/s in all (each flow counted once per time it crosses the link). */
  void (*link)(void *state, int32_t link, int32_t flows, double rate, fs_time t);
  /* From t on, transfer `task` (put, get or send) moves `rate` bytes/s; 0
   * in its latency phase and once its data is delivered. */
  void (*transfer)(void *state, int32_t task, double rate, fs_time t);
} fs_flow_observer;

/* What reports and instruments may ask of a model besides running it;
 * never called by the engine. One static table per model, shared by its
 * instances (state is the instance's). Each member may be NULL, and so
 * may the table. */
typedef struct fs_model_reports {
  /* The parameters as JSON object members: "\"alpha_ns\": 1000, ...".
   * NULL: the reports show an empty object {}. */
  void (*describe)(const void *state, char *buffer, size_t size);
  /* Network models (the critical path): the network time of put, get or
   * send `task` alone, after its CPU part (all of it when the CPU is held
   * until delivery): latency (size-independent), per_size
   * (size-dependent). 0, or -1 when the model cannot say. NULL: the
   * critical path keeps network time in one part, unpriced. Compute
   * models leave it NULL. */
  int (*price)(void *state, const fs_program *p, int32_t task, fs_time *latency, fs_time *per_size);
  /* Contention models: reports tau to observer (copied; NULL: stop) from
   * the next reset on. NULL: the model has no channel instances
   * (--channel-load refuses it). */
  void (*set_load_observer)(void *state, const fs_load_observer *observer);
  /* Flow models: reports links and transfers to observer (copied; NULL:
   * stop) from the next reset on. NULL: the model has no links
   * (--link-load refuses it). */
  void (*set_flow_observer)(void *state, const fs_flow_observer *observer);
} fs_model_reports;

typedef struct fs_network_model {
  const char *name; /* as the reports print it: "hockney" */
  void *state;      /* passed to every callback */

  /* 1. Required. A put or get starts at `now` (its CPU is taken unless the
   * task is concurrent; available said yes). Must post exactly one
   * completion pair for task, now or from a later event: either
   * fs_engine_post_complete(at) (done at both ends at once), or
   * fs_engine_post_local(at) (the initiator's CPU is free) and
   * fs_engine_post_remote(at) (the data is delivered). */
  void (*start)(void *state, fs_engine *engine, int32_t task, fs_time now);
  /* 2. A send starts at `now` on its CPU. Must post fs_engine_post_local
   * (the CPU is free; an eager send completes then) and
   * fs_engine_post_arrival (its message reaches the receiver's rank), once
   * each; returns 1 for a rendezvous send (it completes when its message
   * is matched) or 0 for an eager one. NULL: the model has no two-sided
   * communication; a program with a send fails to run ("the network model
   * has no two-sided send/recv"). */
  int (*send)(void *state, fs_engine *engine, int32_t task, fs_time now);
  /* 3. After its arrival, the receiver's CPU takes the message of send
   * `task` at `now` (the message is matched now): returns how long the
   * CPU is held; the engine posts the end. NULL: receiving takes no CPU,
   * the message is matched when it arrives. */
  fs_time (*receive)(void *state, fs_engine *engine, int32_t task, fs_time now);
  /* 4. Asked just before start or send (receiving == 0) or receive
   * (receiving == 1) of `task`, when its CPU is free: the earliest time,
   * >= now, at which the model's resources other than the CPU (a NIC
   * gap) allow it. Later than now: the engine asks again then, and the
   * CPU goes on with its other work meanwhile. May be asked several times
   * for one task: no side effects. Concurrent tasks (no CPU) are not
   * asked. NULL: always now. */
  fs_time (*available)(void *state, const fs_engine *engine, int32_t task, int receiving,
                       fs_time now);
  /* 5. One of the model's own events comes due: `payload` as posted with
   * fs_engine_post_model_event(at, payload), at `now` = at. NULL: the
   * model posts none. */
  void (*event)(void *state, fs_engine *engine, uint32_t payload, fs_time now);
  /* 6. Before each run of program (the engine runs a program once per
   * fs_engine_run; a study runs it many times): size and clear the run
   * state. 0, or -1 with err set when it cannot (out of memory, or a
   * program its parameters do not fit: the run is then rejected with
   * err's message). NULL: the model keeps no run state. */
  int (*reset)(void *state, const fs_program *program, fs_error *err);
  /* 7. The message of rendezvous send `task` is matched with a recv at
   * `now` (both sides are posted). NULL: the send completes now, the recv
   * when the message is received. Set: the model moves the data from now
   * on and posts fs_engine_post_remote(task, at) once, when it is
   * delivered: the send and its recv complete then (the flow model's
   * rendezvous, as SMPI's). */
  void (*matched)(void *state, fs_engine *engine, int32_t task, fs_time now);

  /* Frees state (NULL: nothing to free); fs_network_model_destroy calls it. */
  void (*destroy)(void *state);
  /* The registry's, not the model's: what this instance was read from (a
   * model file), freed with it by fs_network_model_destroy; NULL for a
   * model built from parameters (a constructor leaves it NULL). Ownership
   * beside destroy, not a report: per instance, so not in the shared
   * reports table. */
  void *source;
  /* Optional (may be NULL): what reports and instruments may ask. */
  const fs_model_reports *reports;
} fs_network_model;

typedef struct fs_compute_model {
  const char *name;
  void *state;
  /* How long a compute task occupies its CPU. Required unless start is
   * set. */
  fs_time (*duration)(void *state, const fs_program *program, int32_t task);
  /* Optional, for models whose costs change while a task runs (contention):
   * the model carries the task out and posts its completion
   * (fs_engine_post_complete), possibly from its own events
   * (fs_engine_post_compute_event, handed to event); duration is then not
   * used. */
  void (*start)(void *state, fs_engine *engine, int32_t task, fs_time now);
  void (*event)(void *state, fs_engine *engine, uint32_t payload, fs_time now);
  /* As the network model's reset, called after it. */
  int (*reset)(void *state, const fs_program *program, fs_error *err);
  void (*destroy)(void *state);
  /* Optional: describe and set_load_observer (price is the network's). */
  const fs_model_reports *reports;
} fs_compute_model;

/* The reports' side, for callers: each answers for a model with no
 * reports table or a NULL member. describe writes "" when the model
 * shows no parameters. */
static inline void fs_network_model_describe(const fs_network_model *m, char *buffer, size_t size) {
  if (m->reports && m->reports->describe)
    m->reports->describe(m->state, buffer, size);
  else if (size)
    buffer[0] = 0;
}
static inline void fs_compute_model_describe(const fs_compute_model *m, char *buffer, size_t size) {
  if (m->reports && m->reports->describe)
    m->reports->describe(m->state, buffer, size);
  else if (size)
    buffer[0] = 0;
}
/* Whether m (may be NULL) can price transfers at all. */
static inline int fs_network_model_can_price(const fs_network_model *m) {
  return m && m->reports && m->reports->price;
}
/* price's answer, or -1 when m cannot price (m may be NULL). */
static inline int fs_network_model_price(const fs_network_model *m, const fs_program *p,
                                         int32_t task, fs_time *latency, fs_time *per_size) {
  if (!fs_network_model_can_price(m)) return -1;
  return m->reports->price(m->state, p, task, latency, per_size);
}
/* set_load_observer's: 1 when the model took observer, 0 when it has no
 * channel instances (m may be NULL). */
static inline int fs_network_model_observe(fs_network_model *m, const fs_load_observer *observer) {
  if (!m || !m->reports || !m->reports->set_load_observer) return 0;
  m->reports->set_load_observer(m->state, observer);
  return 1;
}
/* set_flow_observer's: 1 when the model took observer, 0 when it has no
 * links (m may be NULL). */
static inline int fs_network_model_observe_flows(fs_network_model *m,
                                                 const fs_flow_observer *observer) {
  if (!m || !m->reports || !m->reports->set_flow_observer) return 0;
  m->reports->set_flow_observer(m->state, observer);
  return 1;
}
static inline int fs_compute_model_observe(fs_compute_model *m, const fs_load_observer *observer) {
  if (!m || !m->reports || !m->reports->set_load_observer) return 0;
  m->reports->set_load_observer(m->state, observer);
  return 1;
}

#endif
