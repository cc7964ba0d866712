/* svg_timeline.h: the --svg view: a finished run (its fs_timeline) drawn as
 * a standalone SVG, one lane per rank, like the Fennel thesis's per-rank
 * timelines (Figs. 4.15-4.16, 5.26-5.31).
 *
 * What is drawn (a task never reached is not drawn):
 * - compute, sleep: a box from start to end (none when it takes no time);
 * - put: a box on the sender from start to its CPU release (the local end;
 *   the remote end when blocking), and an arrow from the sender to the
 *   target lane at the remote end (the data lands);
 * - get: a box on the initiator likewise, a dashed request arrow to the
 *   target and a data arrow back to the initiator at the remote end; the
 *   turn at the target is drawn halfway (the model does not say when it
 *   served the request);
 * - send: a box on the sender from start to its CPU release, and an arrow to
 *   the receiver at the completion of the recv it was matched with;
 * - recv: a box for its receive overhead, from the match to its completion,
 *   when that takes time (loggops' o); a message that was waiting before
 *   its recv was posted shows none.
 * An arrow leaves at the transfer's local end (where a non-blocking box
 * ends), or at its start when the local end is the arrival (hockney: the
 * sender is held until the data lands), so the transfer's duration shows.
 * A red mark ends each rank at its finish time (the end of its own
 * occupations and of the transfers delivered to it, as the engine counts
 * it). Concurrent tasks are drawn half transparent; tasks on other CPUs of
 * a rank share its lane. Start and proxy tasks take no time and are not
 * drawn. A task's label is written in its box when it fits, once for a run
 * of boxes back to back on a lane with the same label; every box has a
 * tooltip (<title>). The legend shows the kinds of box and arrow drawn.
 *
 * Scale (exact, for tests): the makespan E is the latest end of any task
 * that takes time; the tick step is the smallest 1, 2 or 5 x 10^k ps at
 * least ceil(E / 8) (E = 0: 1 ns), the axis ends at E rounded up to a
 * multiple of the step; time t is at x = 90 + 1000 t / axis_end. Lane i
 * (rank first_rank + i) has height h = 720 / lanes within [14, 40], its top
 * at y = 64 + i h; boxes span y + 0.2 h .. y + 0.8 h and a label's font is
 * min(11, 0.6 h - 2) px (none below 7 px). An arrow goes from the edge of
 * the sender's boxes facing the receiver's lane (y + 0.8 h when it lies
 * below, y + 0.2 h above) to the facing edge of the receiver's. An arrow
 * with one end at a rank outside the range drawn is cut where it crosses
 * the top or bottom edge of the lanes (keeping its slope) and drawn faint.
 * The time unit (ns, us, ms, s) is the largest in which E is at least 1.
 *
 * At most 64 lanes are drawn: a larger program needs a range of at most 64
 * ranks (the CLI's --svg-ranks A-B). Every text (title, labels, task names)
 * is XML-escaped. */
#ifndef FS_SVG_TIMELINE_H
#define FS_SVG_TIMELINE_H

#include <stdint.h>

#include "core/error.h"
#include "io/atomic_file.h"
#include "instruments/link_load.h"
#include "instruments/timeline.h"

#define FS_SVG_MAX_LANES 64

typedef struct fs_svg_options {
  int32_t first_rank, last_rank; /* inclusive; -1, -1: all ranks */
  const char *title;             /* NULL: "fennelsim timeline" */
} fs_svg_options;

/* Writes the drawing of the finished run t into out (opened before the run,
 * so that a bad path fails before any work), committed on success and
 * aborted on failure: 0, or -1 with err set. o may be NULL (all ranks). */
/* Whether the options' ranks can be drawn for p (before a run): 0, or -1
 * with err set as fs_svg_timeline_write would. */
int fs_svg_timeline_check(const fs_program *p, const fs_svg_options *o, fs_error *err);
int fs_svg_timeline_write(const fs_timeline *t, const fs_svg_options *o, fs_output *out,
                          fs_error *err);
/* The same with a flow model's rates (flows: the run's finished link load
 * with keep_rates, or NULL): under each put, get and send, on its
 * initiator's lane, a strip from y + 0.82 h to y + 0.96 h with a rect per
 * segment of constant non-zero rate, its opacity 0.15 + 0.85 rate / the
 * run's peak transfer rate (segments narrower than a pixel drawn as one,
 * at their time-weighted mean rate), and a tooltip with the rate; the
 * legend says "data rate (darker: faster)". Without rates, byte for byte
 * fs_svg_timeline_write. */
int fs_svg_timeline_write_flows(const fs_timeline *t, const fs_svg_options *o,
                                const fs_link_load *flows, fs_output *out, fs_error *err);

#endif
