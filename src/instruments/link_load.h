/* link_load.h: how loaded a flow model's links were (--link-load,
 * --link-csv), and the rates of its transfers over time (for --svg and
 * --chrome). Per link that ever carried a flow: bytes carried (the
 * integral of its rate), busy time (at least one flow), peak and mean
 * number of flows (the mean over the busy time), mean utilization (bytes /
 * (bandwidth * makespan)) and peak rate; optionally every interval of
 * constant load, and every transfer's rate changes.
 *
 * It observes the model (fs_flow_observer), not the engine: off, the cost
 * is the model's NULL check. On: 4 bytes per link, about 100 bytes per
 * used link, and 24 bytes per change kept (links' with keep_intervals,
 * transfers' with keep_rates). Each model reset starts it afresh: it
 * describes the last run. */
#ifndef FS_LINK_LOAD_H
#define FS_LINK_LOAD_H

#include <stdio.h>

#include "core/model.h"
#include "io/atomic_file.h"

typedef struct fs_link_load fs_link_load;

typedef struct fs_link_stats {
  const char *link; /* its name, as the model gives it */
  int32_t id;       /* the model's link index */
  double bandwidth; /* raw, B/s, as the model gives it */
  double bytes;     /* the integral of its rate over the run */
  fs_time busy;     /* time with at least one flow */
  int32_t peak_flows;
  double mean_flows;  /* time-weighted over the busy time */
  double utilization; /* bytes / (bandwidth * makespan) */
  double peak_rate;   /* B/s */
} fs_link_stats;

/* From t on (until the next change), `flows` flows at `rate` B/s: a link's
 * load (flows) or a transfer's rate (flows 0). Changes at one time are
 * collapsed into the last one, and equal neighbours merged. */
typedef struct fs_flow_change {
  fs_time t;
  double rate;
  int32_t flows;
} fs_flow_change;

/* keep_intervals: keep every link's changes (the CSV, --chrome's
 * counters); keep_rates: every transfer's (--svg, --chrome). */
fs_link_load *fs_link_load_new(int keep_intervals, int keep_rates);
/* Once no model will run again with it attached. */
void fs_link_load_free(fs_link_load *load);
/* Watches network's links (may be NULL) from its next reset on. -1 with
 * err set when the model has no links: "--link-load needs a flow model
 * (flow, flow-lv08): hockney has no links". */
int fs_link_load_attach(fs_link_load *load, fs_network_model *network, fs_error *err);
/* After the run: closes every link's last state at end (the makespan). -1
 * with err set when the observer ran out of memory during the run. */
int fs_link_load_finish(fs_link_load *load, fs_time end, fs_error *err);

/* The links that ever carried a flow, in index order; their statistics
 * once finished. */
int32_t fs_link_load_count(const fs_link_load *load);
void fs_link_load_get(const fs_link_load *load, int32_t k, fs_link_stats *out);
/* Once finished, with keep_intervals: link k's changes, in time order,
 * the first after 0 (flows 0 until then), the last at most the makespan.
 * Returns how many (0 without keep_intervals). */
int64_t fs_link_load_changes(const fs_link_load *load, int32_t k, const fs_flow_change **out);
/* Once finished, with keep_rates: transfer task's rate changes in time
 * order (0 before the first; the model reports 0 at delivery). Returns
 * how many (0: none reported). */
int64_t fs_link_load_rates(const fs_link_load *load, int32_t task, const fs_flow_change **out);
/* Whether any transfer's rate was reported (a flow model ran). */
int fs_link_load_has_rates(const fs_link_load *load);

/* The max_rows links with the most bytes (then in index order), a line
 * for the others; "no link carried a flow" when none did. */
void fs_link_load_report_text(FILE *out, const fs_link_load *load, int max_rows);
/* The member "link_load": [{"link": ..., "bytes": ..., ...}, ...] for the
 * run's JSON object: no comma around it. */
void fs_link_load_report_json(FILE *out, const fs_link_load *load);
/* Rows link,start_ns,end_ns,flows,rate_Bps,utilization: per used link in
 * index order, its intervals of constant load tiling [0, makespan]. Needs
 * keep_intervals. Into an output opened before the run; committed, or
 * aborted on a write error. */
int fs_link_load_write_csv(const fs_link_load *load, fs_output *out, fs_error *err);

#endif
