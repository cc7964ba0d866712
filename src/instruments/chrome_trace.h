/* chrome_trace.h: `--chrome FILE`, a finished timeline as Chrome trace-event
 * JSON (the JSON Object Format), for Perfetto (ui.perfetto.dev) and
 * chrome://tracing. One process per node, one thread per rank (and an extra
 * lane per rank only where its occupations overlap: several CPUs,
 * concurrent tasks), a complete event per CPU occupation, an instant per
 * zero-length task, and a flow arrow per message. Layout and choices:
 * docs/views/chrome.md. */
#ifndef FS_CHROME_TRACE_H
#define FS_CHROME_TRACE_H

#include <stdint.h>

#include "instruments/link_load.h"
#include "instruments/timeline.h"

/* node_of_rank: the node of each rank (NULL: each rank its own node).
 * Writes into out (opened before the run) and commits it, or aborts it and
 * returns -1 with err set. */
int fs_chrome_trace_write(const fs_timeline *t, const int32_t *node_of_rank, fs_output *out,
                          fs_error *err);
/* The same with a flow model's rates (flows: the run's finished link load
 * with keep_intervals and keep_rates, or NULL): each put, get and send
 * gets its rate changes in its args ("rates": [{"from_us", "Bps"}, ...]),
 * and a process "links" (sorted after the nodes) a counter track per link
 * that carried a flow (its rate in B/s). Without rates, byte for byte
 * fs_chrome_trace_write. */
int fs_chrome_trace_write_flows(const fs_timeline *t, const int32_t *node_of_rank,
                                const fs_link_load *flows, fs_output *out, fs_error *err);

#endif
