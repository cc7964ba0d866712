/* model.h: the two pluggable cost models, as structs of function pointers.
 *
 * The engine asks the network model to carry out each put and get, and the
 * compute model how long each compute task takes. A network model answers by
 * posting the transfer's completions to the engine (fs_engine_post_*), now
 * or later: a contention model keeps its own state and events
 * (fs_engine_post_model_event) and posts completions when it knows them. */
#ifndef FS_MODEL_H
#define FS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "program.h"
#include "units.h"

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

typedef struct fs_network_model {
  const char *name;
  void *state;
  /* A put or get begins at `now` on its rank (its CPU is taken unless the
   * task is concurrent). Must eventually post exactly one completion pair:
   * fs_engine_post_complete, or fs_engine_post_local and _remote. */
  void (*start)(void *state, fs_engine *engine, int32_t task, fs_time now);
  /* Two-sided communication (NULL when the model has none). A send starts
   * at now: the model posts the CPU release (fs_engine_post_local) and the
   * message's arrival at the receiver (fs_engine_post_arrival), and returns
   * 1 for a rendezvous send (it completes when its message is matched) or 0
   * for an eager one (it completes when it releases the CPU). */
  int (*send)(void *state, fs_engine *engine, int32_t task, fs_time now);
  /* The receiver's CPU takes the message of send `task` at now: returns how
   * long the CPU is held (the message is matched at now). NULL: receiving
   * takes no CPU, the message is matched when it arrives. */
  fs_time (*receive)(void *state, fs_engine *engine, int32_t task, fs_time now);
  /* Earliest time, >= now, at which the model's resources other than the
   * CPU (a NIC gap) let a put/get/send start (receiving == 0) or the
   * message of send `task` be received (receiving == 1). NULL: now. */
  fs_time (*available)(void *state, const fs_engine *engine, int32_t task, int receiving,
                       fs_time now);
  /* One of the model's own events (may be NULL when it posts none). */
  void (*event)(void *state, fs_engine *engine, uint32_t payload, fs_time now);
  /* Sizes and clears the run state for a program before each run (may be
   * NULL when stateless); -1 with err set when it cannot (out of memory, or
   * a program the model's parameters do not fit). */
  int (*reset)(void *state, const fs_program *program, fs_error *err);
  /* Parameters as JSON object members: "\"alpha_ns\": 1000, ..." */
  void (*describe)(const void *state, char *buffer, size_t size);
  void (*destroy)(void *state);
  /* Optional (the critical path): the network time of put, get or send
   * `task` alone, after its CPU part (all of it when the CPU is held until
   * delivery): latency (size-independent), per_size (size-dependent).
   * 0, or -1 when the model cannot say. */
  int (*price)(void *state, const fs_program *p, int32_t task, fs_time *latency, fs_time *per_size);
  /* What the model was read from (a model file), freed with it by
   * fs_network_model_destroy; NULL for a model built from parameters. */
  void *source;
  /* Contention models: reports tau to observer (copied; NULL: stop) from
   * the next reset on. NULL when the model has no channel instances. */
  void (*set_load_observer)(void *state, const fs_load_observer *observer);
} fs_network_model;

typedef struct fs_compute_model {
  const char *name;
  void *state;
  /* How long a compute task occupies its CPU. */
  fs_time (*duration)(void *state, const fs_program *program, int32_t task);
  /* Optional, for models whose costs change while a task runs (contention):
   * the model carries the task out and posts its completion
   * (fs_engine_post_complete), possibly from its own events
   * (fs_engine_post_compute_event); duration is then not used. */
  void (*start)(void *state, fs_engine *engine, int32_t task, fs_time now);
  void (*event)(void *state, fs_engine *engine, uint32_t payload, fs_time now);
  int (*reset)(void *state, const fs_program *program, fs_error *err);
  void (*describe)(const void *state, char *buffer, size_t size);
  void (*destroy)(void *state);
  /* As the network model's (NULL when the model shares nothing). */
  void (*set_load_observer)(void *state, const fs_load_observer *observer);
} fs_compute_model;

#endif
