/* bandwidth.h: what the transfers of a finished run achieved (--bandwidth),
 * made from its timeline after the run.
 *
 * A transfer is a put, a get or a matched send. Its data moves from its
 * source rank to its target (a get's data from its peer to its rank) and
 * takes from the transfer's start to its delivery (a put's or get's remote
 * end; a send's: the remote end of the recv it was matched with). Its
 * achieved bandwidth is bytes / (delivery - start), in bytes per ns = GB/s.
 * Fennel's BandwidthInstrument gives one number, sum of bytes / sum of
 * durations over puts; `fennel_gbps` is that over all transfers.
 * A rank is busy while one of its CPUs is occupied (the union of its tasks'
 * CPU intervals); a link source->target while one of its transfers is in
 * flight (the union of their start..delivery intervals). */
#ifndef FS_BANDWIDTH_H
#define FS_BANDWIDTH_H

#include <stdio.h>

#include "instruments/timeline.h"

typedef struct fs_bandwidth_transfer {
  int32_t task, source, target;
  int64_t bytes;
  fs_time start, delivered;
} fs_bandwidth_transfer;

typedef struct fs_bandwidth_rank {
  int64_t sent, received; /* bytes as a transfer's source, as its target */
  fs_time busy;
} fs_bandwidth_rank;

typedef struct fs_bandwidth_link {
  int32_t source, target;
  int64_t bytes, messages;
  fs_time busy;
} fs_bandwidth_link;

typedef struct fs_bandwidth {
  const fs_program *program;
  fs_time makespan;
  int64_t bytes, messages;
  fs_time duration_sum;             /* of the transfers' start..delivery */
  double aggregate_gbps;            /* bytes / makespan */
  double mean_gbps;                 /* mean of the transfers' bandwidths (those that took time) */
  double fennel_gbps;               /* bytes / duration_sum */
  int64_t instant;                  /* transfers that took no time (no bandwidth of their own) */
  fs_bandwidth_transfer *transfers; /* in program order */
  int64_t transfer_count;
  fs_bandwidth_rank *ranks; /* program->ranks */
  fs_bandwidth_link *links; /* by bytes, most first (ties: source, target) */
  int64_t link_count;
} fs_bandwidth;

/* NULL with err set when out of memory. */
fs_bandwidth *fs_bandwidth_compute(const fs_timeline *t, fs_error *err);
void fs_bandwidth_free(fs_bandwidth *b);
/* A text section: totals, ranks (up to max_rows) and the links with the
 * most bytes (up to max_rows). */
void fs_bandwidth_report_text(FILE *out, const fs_bandwidth *b, int max_rows);
/* One JSON member, without a leading comma: "bandwidth": {...}. */
void fs_bandwidth_report_json(FILE *out, const fs_bandwidth *b);
/* bytes / duration in GB/s (bytes per ns); 0 when the duration is not positive. */
double fs_bandwidth_gbps(int64_t bytes, fs_time duration);

#endif
