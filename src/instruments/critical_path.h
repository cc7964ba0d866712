/* critical_path.h: the chain of tasks and waits that made the makespan
 * (--critical-path), made from a finished run's timeline.
 *
 * The walk starts at the task whose end is the makespan (ties: the lowest
 * id) and goes back: a task ended when its work did; it started when its
 * CPU was free (ready -> start: waiting for a busy rank); it was ready when
 * the dependency that decided it reached the point it waited for (its end,
 * local end or start; ties: the lowest id). A recv that waited for its
 * message leads to the matched send instead. Each step's time is split:
 *   waiting     ready -> start (a busy rank or NIC; a start task's skew);
 *   cpu         compute, sleep, a transfer's CPU part, receiving a message;
 *   latency, bandwidth
 *               a transfer's network time, as the model prices it alone
 *               (fs_model_reports.price);
 *   contention  the network time beyond that price (under a flow model,
 *               which prices a transfer alone on its route: sharing, the
 *               time lost to other flows on its links);
 *   network     the network time of a transfer the model cannot price
 *               (or all of it when no model is given).
 * The parts add up to the makespan exactly. */
#ifndef FS_CRITICAL_PATH_H
#define FS_CRITICAL_PATH_H

#include <stdio.h>

#include "core/model.h"
#include "instruments/timeline.h"

enum fs_path_part {
  FS_PATH_WAITING,
  FS_PATH_CPU,
  FS_PATH_LATENCY,
  FS_PATH_BANDWIDTH,
  FS_PATH_CONTENTION,
  FS_PATH_NETWORK,
  FS_PATH_PARTS
};

/* How the walk reached a step: the task's end, local end or start was what
 * the next step waited for, or its message was (a send's). */
enum fs_path_via { FS_VIA_END, FS_VIA_LOCAL, FS_VIA_START, FS_VIA_MESSAGE };

typedef struct fs_path_step {
  int32_t task;
  int via;                   /* fs_path_via */
  fs_time ready, start, end; /* end: the point the next step waited for */
  fs_time part[FS_PATH_PARTS];
} fs_path_step;

typedef struct fs_critical_path {
  const fs_program *program;
  fs_time makespan;
  fs_time part[FS_PATH_PARTS]; /* sums over the steps; they add up to the makespan */
  int priced;                  /* a network model was given */
  int flows;                   /* it is a flow model: contention is sharing */
  /* Network time the model priced above what a transfer took (the model
   * overlaps costs the price adds up): shown as 0 contention, counted here. */
  fs_time overpriced;
  int64_t overpriced_steps;
  fs_path_step *steps; /* earliest first */
  int64_t step_count;
} fs_critical_path;

/* network may be NULL (or have no price): the network time is then one
 * "network" part. NULL with err set when out of memory. */
fs_critical_path *fs_critical_path_compute(const fs_timeline *t, const fs_network_model *network,
                                           fs_error *err);
void fs_critical_path_free(fs_critical_path *cp);
/* A text section: the parts with their share of the makespan, then the
 * chain, earliest first, its last max_steps steps. */
void fs_critical_path_report_text(FILE *out, const fs_critical_path *cp, int max_steps);
/* One JSON member, without a leading comma: "critical_path": {...}. */
void fs_critical_path_report_json(FILE *out, const fs_critical_path *cp);
const char *fs_path_part_name(int part);

#endif
