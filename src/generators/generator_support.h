/* generator_support.h: what the generators share (private to
 * src/generators): option checks, exact reservation, labelled task
 * builders and the final count check that keeps every reservation exact. */
#ifndef FS_GENERATOR_SUPPORT_H
#define FS_GENERATOR_SUPPORT_H

#include <stdarg.h>
#include <stdio.h>

#include "generators/generators.h"

/* The checks every generator makes: ranks >= 1, size >= 0, reduce time >= 0. */
static inline int fs_gen_check_common(const char *name, const fs_generator_options *o,
                                      fs_error *err) {
  if (o->ranks < 1)
    return fs_error_set(err, "%s: --ranks must be at least 1, not %d", name, o->ranks);
  if (o->size < 0)
    return fs_error_set(err, "%s: --size must not be negative, not %lld", name, (long long)o->size);
  if (o->has_reduce_time && o->reduce_time < 0)
    return fs_error_set(err, "%s: --reduce-time must not be negative", name);
  return 0;
}

/* A program of `ranks` ranks with room for exactly `tasks` tasks and
 * `dependencies` dependencies; NULL with err set when that is too many. */
/* --reduce-time given to a collective without reduction: refused, saying why. */
static inline int fs_gen_refuse_reduce_time(const char *name, const fs_generator_options *o,
                                            const char *why, fs_error *err) {
  if (!o->has_reduce_time) return 0;
  return fs_error_set(err, "%s: --reduce-time does not apply (%s)", name, why);
}

/* A message of all N blocks of --size bytes must be within the size
 * limit (units.h), which the .dag reader applies to what gen writes. */
static inline int fs_gen_check_blocks(const char *name, const fs_generator_options *o,
                                      fs_error *err) {
  if (o->size > 0 && o->ranks > FS_SIZE_LIMIT / o->size)
    return fs_error_set(err, "%s: %d blocks of --size %lld bytes are too large (the limit is %s)",
                        name, o->ranks, (long long)o->size, FS_SIZE_LIMIT_TEXT);
  return 0;
}

/* The messages of a binomial round of mask m: one per v = 0, 2m, ... with v + m < n. */
static inline int64_t fs_gen_binomial_pairs(int32_t n, int64_t m) {
  return n > m ? (n - m + 2 * m - 1) / (2 * m) : 0;
}

/* tasks is INT64_MAX when the generator stopped counting (too many). */
static inline fs_program *fs_gen_begin(const char *name, int32_t ranks, int64_t tasks,
                                       int64_t dependencies, fs_error *err) {
  if (tasks == INT64_MAX) {
    fs_error_set(err, "%s at %d ranks needs more than the %d tasks a program holds", name, ranks,
                 FS_MAX_TASKS);
    return NULL;
  }
  if (tasks > FS_MAX_TASKS) {
    fs_error_set(err, "%s at %d ranks needs %lld tasks, more than the %d a program holds", name,
                 ranks, (long long)tasks, FS_MAX_TASKS);
    return NULL;
  }
  fs_program *p = fs_program_new(ranks);
  if (!p || fs_program_reserve(p, tasks, dependencies)) {
    fs_program_free(p);
    fs_error_set(err, "%s: out of memory for %lld tasks and %lld dependencies", name,
                 (long long)tasks, (long long)dependencies);
    return NULL;
  }
  return p;
}

/* Interns a printf-formatted label; -1 when out of memory. */
static inline int32_t fs_gen_label(fs_program *p, const char *format, ...) FS_PRINTF(2, 3);
static inline int32_t fs_gen_label(fs_program *p, const char *format, ...) {
  char text[64];
  va_list ap;
  va_start(ap, format);
  int length = vsnprintf(text, sizeof text, format, ap);
  va_end(ap);
  if (length < 0 || length >= (int)sizeof text) return -1;
  return fs_program_intern_label(p, text, length);
}

/* Adds a task with a label; -1 when out of memory (or the label is -1). */
static inline int32_t fs_gen_add(fs_program *p, fs_task_kind kind, int32_t rank, int32_t label) {
  if (label < 0) return -1;
  int32_t t = fs_program_add(p, kind, rank);
  if (t >= 0 && fs_task_set_label(p, t, label)) return -1;
  return t;
}

static inline int32_t fs_gen_put(fs_program *p, int32_t rank, int32_t to, int64_t size,
                                 int32_t label) {
  int32_t t = fs_gen_add(p, FS_PUT, rank, label);
  if (t >= 0) {
    fs_task_set_peer(p, t, to);
    fs_task_set_size(p, t, size);
  }
  return t;
}

/* Two-sided messages of schedgen's patterns: tag 0 (the default, so no tag
 * array is allocated), CPU 0, NIC 0. */
static inline int32_t fs_gen_message(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer,
                                     int64_t size, int32_t label) {
  int32_t t = fs_gen_add(p, kind, rank, label);
  if (t >= 0) {
    fs_task_set_peer(p, t, peer);
    fs_task_set_size(p, t, size);
  }
  return t;
}

static inline int32_t fs_gen_send(fs_program *p, int32_t rank, int32_t to, int64_t size,
                                  int32_t label) {
  return fs_gen_message(p, FS_SEND, rank, to, size, label);
}

static inline int32_t fs_gen_recv(fs_program *p, int32_t rank, int32_t from, int64_t size,
                                  int32_t label) {
  return fs_gen_message(p, FS_RECV, rank, from, size, label);
}

/* The bytes of N*N blocks of S bytes (an alltoall's flow), or -1 (the flow
 * then fails) when that overflows. */
static inline int64_t fs_gen_alltoall_bytes(const fs_generator_options *o) {
  int64_t blocks = (int64_t)o->ranks * o->ranks;
  return o->size > 0 && blocks > INT64_MAX / o->size ? -1 : blocks * o->size;
}

/* A blocking send or recv of `rank` after its previous task last[rank]
 * (-1: none), which it then replaces: one rank's calls in program order.
 * 0, or -1 when out of memory. */
static inline int fs_gen_message_after(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer,
                                       int64_t size, int32_t label, int32_t *last) {
  int32_t t = fs_gen_message(p, kind, rank, peer, size, label);
  if (t < 0 || (last[rank] >= 0 && fs_program_depend(p, t, last[rank], FS_AFTER_END))) return -1;
  last[rank] = t;
  return 0;
}

/* A blocking sendrecv (MPI_Sendrecv): the recv from `from`, then the send
 * to `to`, each after the rank's previous recv and send (last[0], last[1];
 * -1 before the first step), which it then replaces. 0, or -1 when out of
 * memory. */
static inline int fs_gen_sendrecv(fs_program *p, int32_t rank, int32_t to, int32_t from,
                                  int64_t size, int32_t label, int32_t last[2]) {
  int32_t recv = fs_gen_recv(p, rank, from, size, label);
  int32_t send = recv < 0 ? -1 : fs_gen_send(p, rank, to, size, label);
  if (send < 0) return -1;
  for (int i = 0; i < 2 && last[0] >= 0; i++)
    if (fs_program_depend(p, recv, last[i], FS_AFTER_END) ||
        fs_program_depend(p, send, last[i], FS_AFTER_END))
      return -1;
  last[0] = recv, last[1] = send;
  return 0;
}

/* floor(log2 n) for n >= 1. */
static inline int fs_gen_floor_log2(int64_t n) {
  int k = 0;
  while (n >>= 1) k++;
  return k;
}

/* ceil(log2 n) for n >= 1: the rounds of a tree or dissemination over n ranks. */
static inline int fs_gen_ceil_log2(int64_t n) {
  int k = 0;
  while (((int64_t)1 << k) < n) k++;
  return k;
}

/* labels[i] = prefix followed by i + 1, for i < count (<= 64); -1 on failure. */
static inline int fs_gen_numbered_labels(fs_program *p, const char *prefix, int count,
                                         int32_t *labels) {
  for (int i = 0; i < count; i++)
    if ((labels[i] = fs_gen_label(p, "%s%d", prefix, i + 1)) < 0) return -1;
  return 0;
}

/* A reduce: a compute of --reduce-time, or of --size bytes for the compute
 * model to price. */
static inline int32_t fs_gen_reduce(fs_program *p, int32_t rank, int32_t label,
                                    const fs_generator_options *o) {
  int32_t t = fs_gen_add(p, FS_COMPUTE, rank, label);
  if (t >= 0) {
    if (o->has_reduce_time)
      fs_task_set_time(p, t, o->reduce_time);
    else
      fs_task_set_size(p, t, o->size);
  }
  return t;
}

/* --root must name a rank. */
static inline int fs_gen_check_root(const char *name, const fs_generator_options *o,
                                    fs_error *err) {
  if (o->root < 0 || o->root >= o->ranks)
    return fs_error_set(err, "%s: --root %d is not a rank of 0..%d", name, o->root, o->ranks - 1);
  return 0;
}

/* --root given to a collective without a root: refused. */
static inline int fs_gen_refuse_root(const char *name, const fs_generator_options *o,
                                     fs_error *err) {
  if (o->root == 0) return 0;
  return fs_error_set(err, "%s: --root does not apply (the collective has no root)", name);
}

/* Rank of relative rank v when the tree is rooted at `root`, and back. */
static inline int32_t fs_gen_absolute(int32_t v, int32_t root, int32_t n) {
  return (int32_t)(((int64_t)v + root) % n);
}
static inline int32_t fs_gen_relative(int32_t rank, int32_t root, int32_t n) {
  return (int32_t)(((int64_t)rank - root + n) % n);
}

/* The kappa-level broadcast (personalized: the scatter), in bcast_klevel.c. */
fs_program *fs_generate_klevel(const char *name, const fs_generator_options *o, int personalized,
                               fs_error *err);

/* ---- data flow (recorded only when o->flow is set; see data_flow.h) ---- */

/* Declares the collective; `failed` |= its result in the callers. */
static inline int fs_gen_flow_begin(const fs_generator_options *o, fs_collective collective,
                                    int32_t root, int32_t blocks, int64_t total_size) {
  return o->flow ? fs_data_flow_begin(o->flow, collective, root, blocks, total_size) : 0;
}

/* Task t does `action` on the cyclic block range first .. first+count-1. */
static inline int fs_gen_flow_range(const fs_generator_options *o, int32_t task,
                                    fs_flow_action action, int32_t first, int32_t count) {
  if (!o->flow) return 0;
  return task < 0 ? -1 : fs_data_flow_range(o->flow, task, action, first, count);
}

/* Task t does `action` on the listed blocks. */
static inline int fs_gen_flow_blocks(const fs_generator_options *o, int32_t task,
                                     fs_flow_action action, const int32_t *blocks, int32_t count) {
  if (!o->flow) return 0;
  return task < 0 ? -1 : fs_data_flow_set(o->flow, task, action, blocks, count);
}

/* Finalizes p, or frees it and returns NULL with err set when a builder
 * call failed (`failed`) or the built counts differ from the reserved ones
 * (a generator bug: the reservation would not have been exact). */
static inline fs_program *fs_gen_finish_flow(const char *name, fs_program *p, int64_t tasks,
                                             int64_t dependencies, int failed, int flow_failed,
                                             fs_error *err) {
  if (failed) {
    fs_error_set(err, "%s: out of memory building %lld tasks", name, (long long)tasks);
  } else if (flow_failed) {
    fs_error_set(err, "%s: could not record the data flow (out of memory or a bad block)", name);
  } else if (p->tasks != tasks || p->dependencies != dependencies) {
    fs_error_set(err,
                 "%s: internal error: built %d tasks and %lld dependencies, expected %lld and %lld",
                 name, p->tasks, (long long)p->dependencies, (long long)tasks,
                 (long long)dependencies);
  } else if (fs_program_finalize(p, err) == 0) {
    return p;
  }
  fs_program_free(p);
  return NULL;
}

/* Finalizes a rank-symmetric program (core/symmetric.h), or frees it and
 * returns NULL with err set (a builder call failed, or the finalized
 * program has other than `dependencies` dependencies: a generator bug). */
static inline fs_program *fs_gen_finish_symmetric(const char *name, fs_program *p,
                                                  int64_t dependencies, int failed, fs_error *err) {
  if (failed) {
    fs_error_set(err, "%s: out of memory building a template", name);
  } else if (fs_program_finalize(p, err) == 0) {
    if (p->dependencies == dependencies) return p;
    fs_error_set(err, "%s: internal error: %lld dependencies, expected %lld", name,
                 (long long)p->dependencies, (long long)dependencies);
  }
  fs_program_free(p);
  return NULL;
}

/* fs_gen_finish_flow without a data flow. */
static inline fs_program *fs_gen_finish(const char *name, fs_program *p, int64_t tasks,
                                        int64_t dependencies, int failed, fs_error *err) {
  return fs_gen_finish_flow(name, p, tasks, dependencies, failed, 0, err);
}

/* fs_gen_finish_flow for generators that record their data flow in o->flow. */
static inline fs_program *fs_gen_finish_options(const char *name, fs_program *p, int64_t tasks,
                                                int64_t dependencies, int failed,
                                                const fs_generator_options *o, fs_error *err) {
  return fs_gen_finish_flow(name, p, tasks, dependencies, failed, o->flow && o->flow->failed, err);
}

#endif
