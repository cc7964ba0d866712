/* maxmin.h: an incremental weighted max-min solver with SimGrid's LMM
 * semantics (the flow model's bandwidth sharing).
 *
 * Links are constraints of capacity c (bytes/s): SHARED means the sum of
 * w*x over the link's flows is at most c, FATPIPE means their max is. A flow
 * (variable) has a penalty p > 0 and crosses a list of links; a link listed
 * k times gets weight k when SHARED, 1 when FATPIPE. Enabled flows take part
 * in the solution; a disabled one (still in its latency phase) has x = 0
 * and slows nobody. The solution raises every x*p at one pace: the link
 * with the smallest remaining/usage ratio u (usage = sum of w/p, or their
 * max when FATPIPE) saturates first and each of its unfixed flows gets
 * x = u/p; the fixed flows leave the other links, and so on. Precision as
 * SimGrid's (1e-5): a link whose remaining capacity falls to 1e-5 of its
 * capacity, or whose usage falls to 1e-5, is full.
 *
 * Incremental: enabling or removing a flow marks its links; fs_maxmin_solve
 * re-solves only the connected components (links and the enabled flows
 * that cross them, joined through shared links) that hold a marked link,
 * and lists their flows; every other flow keeps its value. Arrays grow
 * amortized and are reused: no allocation per solve once grown. */
#ifndef FS_MAXMIN_H
#define FS_MAXMIN_H

#include <stdint.h>

#include "core/error.h"

#define FS_MAXMIN_PRECISION 1e-5

typedef struct fs_maxmin fs_maxmin;

fs_maxmin *fs_maxmin_new(void);
void fs_maxmin_free(fs_maxmin *s);
/* Drops every flow and sets `links` links: capacity[l] > 0 bytes/s,
 * fatpipe[l] nonzero for FATPIPE. 0, or -1 with err set (out of memory). */
int fs_maxmin_reset(fs_maxmin *s, int32_t links, const double *capacity, const uint8_t *fatpipe,
                    fs_error *err);
/* A disabled flow over links[0..count) (repeats allowed) with penalty
 * (> 0) and bound (<= 0: none; kept for TCP-gamma, not applied by the
 * solver, since the flow model never sets one): its id (ids of removed
 * flows are reused), or -1 when out of memory. */
int32_t fs_maxmin_add(fs_maxmin *s, const int32_t *links, int32_t count, double penalty,
                      double bound);
/* The flow enters the solution (its links are marked). */
void fs_maxmin_enable(fs_maxmin *s, int32_t flow);
/* The flow leaves (its links are marked if it was enabled); its id is free. */
void fs_maxmin_remove(fs_maxmin *s, int32_t flow);
/* Whether any link is marked since the last solve. */
int fs_maxmin_dirty(const fs_maxmin *s);
/* Re-solves the components holding a marked link; returns how many flows
 * they hold, listed by fs_maxmin_solved. */
int32_t fs_maxmin_solve(fs_maxmin *s);
/* The flows of the last solve's components (valid until the next call
 * that changes the solver), and its links. */
const int32_t *fs_maxmin_solved(const fs_maxmin *s, int32_t *count);
const int32_t *fs_maxmin_solved_links(const fs_maxmin *s, int32_t *count);
/* A flow's value x (0 while disabled). */
double fs_maxmin_value(const fs_maxmin *s, int32_t flow);
/* On link l: how many flows cross it (a flow counted once per time it is
 * listed on a SHARED link) and the sum of w*x. */
void fs_maxmin_link_load(const fs_maxmin *s, int32_t link, int32_t *flows, double *load);
/* Bytes held (reports). */
int64_t fs_maxmin_bytes(const fs_maxmin *s);

#endif
