/* rm_schedule.h: recursive-multiplying (RM) AllReduce schedules (Fennel
 * thesis §5.4): the stage notation, the rank count a schedule covers, the
 * cost model in units of alpha_r, the Lambert-W optima and the schedule
 * heuristic (Alg. 7) with an exhaustive "best" search.
 *
 * Stages (comma-separated in text, e.g. "c6m2,a2,a2,e6m2", "m1g2a3,n1g3a2"):
 *   aK      factor-K all-to-all stage                      cost c + K - 1
 *   cTmM    collapse: ranks < T fold in groups of M         cost c + 1
 *   eTmM    expand, the mirror of cTmM                      cost c + M - 1
 *   mRgGaK  merge: R remainders, G groups, first factor K   cost c + K
 *   nRgGaK  inverse merge, last factor K                    cost c + K - 1 + ceil(R/G)
 * where c = alpha_p/alpha_r. A merge needs R + G*K = N (its rank count). */
#ifndef FS_RM_SCHEDULE_H
#define FS_RM_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define FS_RM_MAX_STAGES 64

typedef enum fs_rm_stage_kind {
  FS_RM_FACTOR,   /* aK */
  FS_RM_COLLAPSE, /* cTmM */
  FS_RM_EXPAND,   /* eTmM */
  FS_RM_MERGE,    /* mRgGaK */
  FS_RM_UNMERGE,  /* nRgGaK */
} fs_rm_stage_kind;

typedef struct fs_rm_stage {
  fs_rm_stage_kind kind;
  int32_t k;    /* factor (a, m, n) */
  int32_t t, m; /* threshold and base (c, e) */
  int32_t r, g; /* remainders and groups (m, n) */
} fs_rm_stage;

typedef struct fs_rm_schedule {
  int count;
  fs_rm_stage stages[FS_RM_MAX_STAGES];
} fs_rm_schedule;

/* Parses comma-separated stages. Every number is decimal without sign, at
 * most 1e9; K >= 2, M >= 2, T, R, G >= 1. On error returns -1 with
 * "rm schedule: column C: expected ..." and leaves *out untouched. */
int fs_rm_schedule_parse(const char *text, fs_rm_schedule *out, fs_error *err);

/* Canonical text ("" for no stages) into buf, snprintf-style: returns the
 * length the full text needs; writes at most size bytes, NUL-terminated. */
size_t fs_rm_schedule_format(const fs_rm_schedule *s, char *buf, size_t size);

/* The rank count N the schedule covers. Structure, outside in: collapse
 * cTmM ... eTmM pairs (same T, M), then optionally one merge mRgGaK ...
 * nRgG'aK' (same R), then factor stages. The core size P is the product of
 * every factor (merge and inverse-merge K included); a merge needs
 * G*K = G'*K' = P (so R + G*K = N = R + P); a collapse needs T % M == 0
 * and T/M <= inner count, and gives N = inner + T - T/M (the active count is
 * T/M + N - T). No stages covers 1 rank. Returns 0, or -1 with err. */
int fs_rm_schedule_ranks(const fs_rm_schedule *s, int64_t *ranks, fs_error *err);

/* Sum of the stage costs above, in units of alpha_r: evaluated as
 * (stage count)*c + (integer part), so equal schedules cost exactly the same. */
double fs_rm_schedule_cost(const fs_rm_schedule *s, double c);

/* Lambert W, principal branch (x >= -1/e) and lower branch (-1/e <= x < 0);
 * NaN outside. Halley iteration from the branch-point series
 * -1 +- p - p^2/3 (p = sqrt(2(ex+1))) when x < -0.25, else log1p(x)*3/4
 * (W0) or ln(-x) - ln(-ln(-x)) (W-1), stopped once a step is below 2 ulp of
 * w. Accuracy (tested): |w e^w - x| <= 4(1+|w|) eps |x| on both branches
 * over their whole domains, and W(w e^w) = w to 1e-14 for w = 10, -2, -10
 * (1e-12 at +-700). Near -1/e, W is ill-conditioned (W' unbounded), so a
 * small residual there bounds w only to about sqrt(eps). */
double fs_lambert_w0(double x);
double fs_lambert_wm1(double x);

/* Eq. 5.8: b_opt = e^{W0((c-1)/e) + 1} - 1, the root of c = (b+1)ln(b+1) - b. */
double fs_rm_b_opt(double c);
/* Eq. 5.9: b_upper = -((c+1)/ln2) W_{-1}(-(ln2/(c+1)) 2^{(c-1)/(c+1)}) - 1,
 * the b > 1 where RM's cost equals RD's: log_{b+1} 2 = (c+1)/(c+b). */
double fs_rm_b_upper(double c);
/* floor(b_upper) + 1, the heuristic's default largest factor. */
int32_t fs_rm_upper(double c);

/* Alg. 7. sorted != 0: candidate factors 2..upper ordered by (c + d - 1)/ln d
 * ascending (ties: smaller d first); sorted == 0: upper..2. For count = N,
 * N-1, ...: greedily take each candidate d while count % (product*d) == 0;
 * the first count reached this way wins, with merge = N - count. Result:
 * factor stages, or for merge > 0 "mRgGaK1, a..., nRgG'aKs" (R = merge).
 * Fails when upper < 2, ranks < 1 or > 1e9, or a merged core has fewer than
 * two factors. */
int fs_rm_heuristic(int32_t ranks, double c, int32_t upper, int sorted, fs_rm_schedule *out,
                    fs_error *err);

/* Exhaustive search (the thesis notes' search space): every ordered factor
 * list of N, and every single merge R + M = N, 1 <= R < K1, over ordered
 * factor lists (K1, ..., Ks), s >= 2, of M. The cheapest under
 * fs_rm_schedule_cost wins; ties keep the first found (plain factorizations
 * first, then R ascending, factor lists in lexicographic order).
 * ranks in [1, 65536] (branch and bound: 1024 takes ~1 ms, 65536 ~5 s). */
int fs_rm_best(int32_t ranks, double c, fs_rm_schedule *out, fs_error *err);

/* c = alpha_p/alpha_r of the thesis's Table 4.1 (ARCHER; the default table
 * of `--model pipelined`) at a message of `size` bytes, interpolated as
 * that model does: linearly between rows, clamped below the first row,
 * extended along the last segment. 0 where alpha_p or alpha_r is not
 * positive (above ~100 KiB: no pipelining). 8 B: 0.88/0.38 = 2.316. */
double fs_rm_archer_ratio(int64_t size);

/* fs_rm_upper(c) clamped to [2, 4096] (2 for c <= 0, where b_upper = 1). */
int32_t fs_rm_upper_clamped(double c);

/* `--schedule auto`: the sorted heuristic with upper fs_rm_upper_clamped(c);
 * where it fails (a merge over a single core factor, e.g. N = 3 at
 * upper 2) the single stage aN. ranks in [1, 1e9]. */
int fs_rm_auto(int32_t ranks, double c, fs_rm_schedule *out, fs_error *err);
/* The same with the unsorted heuristic (candidates upper..2): `auto-unsorted`. */
int fs_rm_auto_unsorted(int32_t ranks, double c, fs_rm_schedule *out, fs_error *err);

/* Candidates for `fennelsim best`: the `limit` cheapest under
 * fs_rm_schedule_cost(., c) (ties: first enumerated) of
 *   1. every ordered factor list of N (plain schedules);
 *   2. every merge as fs_rm_best searches them (1 <= R < K1, s >= 2);
 *   3. collapse/expand around the nearest factorable counts: for M = 2, 3
 *      the two largest counts n' < N with all prime factors <= 7 that a
 *      cTmM reaches (n' = N - T + T/M), each with every ordered factor list.
 * Branch and bound keeps this fast: a partial list is dropped once it
 * cannot beat the limit-th cheapest. Sorted by cost, then enumeration
 * order. `considered` counts the complete schedules that reached the
 * ranking; `capped` says some schedule was left out (dropped from a full
 * ranking or cut by the bound); when 0 the list is the whole space.
 * ranks in [1, 65536], limit in [1, 1e6]. */
typedef struct fs_rm_candidates {
  fs_rm_schedule *items;
  double *cost;
  int count, limit, capped;
  int64_t considered;
} fs_rm_candidates;
int fs_rm_enumerate(int32_t ranks, double c, int limit, fs_rm_candidates *out, fs_error *err);
void fs_rm_candidates_free(fs_rm_candidates *candidates);

#endif
