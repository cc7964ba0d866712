/* channel_load.h: how loaded a contention model's channel instances were
 * (taulop's shared memory and NIC of each node, gamma's nodes): per
 * instance, tau (its active jobs) over the run: the maximum, time-weighted
 * means, and the time spent at each tau.
 *
 * It observes the models (fs_load_observer), not the engine: off, the cost
 * is a NULL check where a model changes tau. On: 4 bytes per instance, and
 * per instance ever used about 100 bytes plus 8 per tau level reached.
 * Each model reset (each run) starts it afresh: it describes the last run. */
#ifndef FS_CHANNEL_LOAD_H
#define FS_CHANNEL_LOAD_H

#include <stdio.h>

#include "core/model.h"
#include "io/atomic_file.h"

typedef struct fs_channel_load fs_channel_load;

typedef struct fs_channel_stats {
  const char *instance; /* "net node 3" */
  int32_t max_tau;
  fs_time first;               /* when its first job began */
  fs_time busy;                /* time at tau >= 1 */
  double mean_tau;             /* time-weighted over [0, end] */
  double mean_tau_since_first; /* over [first, end] */
  double mean_busy_tau;        /* over the busy time */
  const fs_time *time_at_tau;  /* [0..max_tau], summing to end */
} fs_channel_stats;

fs_channel_load *fs_channel_load_new(void);
/* Once no model will run again with it attached. */
void fs_channel_load_free(fs_channel_load *load);
/* Watches the instances of network and compute (either may be NULL or
 * have none) from their next reset on. -1 with err set when neither has
 * channel instances. */
int fs_channel_load_attach(fs_channel_load *load, fs_network_model *network,
                           fs_compute_model *compute, fs_error *err);
/* After the run: closes every instance's last tau at end (the makespan).
 * -1 with err set when the observer ran out of memory during the run. */
int fs_channel_load_finish(fs_channel_load *load, fs_time end, fs_error *err);

/* The instances that ever had a job, the network model's in index order,
 * then the compute model's; their statistics once finished. */
int32_t fs_channel_load_count(const fs_channel_load *load);
void fs_channel_load_get(const fs_channel_load *load, int32_t k, fs_channel_stats *out);

/* The busiest max_rows instances (by mean tau, then in order), a line for
 * the others; "no channel instance was used" when none was. */
void fs_channel_load_report_text(FILE *out, const fs_channel_load *load, int max_rows);
/* The member "channel_load": [{"instance": ..., "max_tau": ..., ...}, ...]
 * for the run's JSON object: no comma around it. */
void fs_channel_load_report_json(FILE *out, const fs_channel_load *load);
/* Rows instance,tau,time_ns: every used instance, tau 0..max_tau. Into an
 * output opened before the run; committed, or aborted on a write error. */
int fs_channel_load_write_csv(const fs_channel_load *load, fs_output *out, fs_error *err);

#endif
