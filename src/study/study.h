/* study.h: Monte-Carlo studies: the same program run under N seeds over T
 * threads, each thread with its own worker (models and engine) over the
 * shared read-only program.
 *
 * Seed index i (0 <= i < seeds) runs with seed base_seed + i (mod 2^64). A
 * study runs the indices first, first + step, ... below seeds (a shard;
 * 0 and 1 for all of them). Threads take chunks of indices from an atomic
 * counter and store each result at its place, so the results do not depend
 * on the thread count or the scheduling.
 *
 * Samples CSV: header `seed,makespan_ns,finish_ns_0,...,finish_ns_{R-1}`,
 * then one row per seed in seed order, times in exact decimal nanoseconds
 * (fs_format_ns: "1234.567"). The file is written in place, not through a
 * temporary file: rows are written (write(2), no user-space buffering left
 * behind) as soon as every earlier seed of the study has finished, so a study
 * interrupted by Ctrl-C or failing at some seed leaves the header and every
 * row of the finished prefix. "-" is stdout; compressed (.gz) samples are
 * refused, since an interrupted gzip stream would be unreadable. */
#ifndef FS_STUDY_H
#define FS_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/units.h"

typedef struct fs_study_worker fs_study_worker; /* opaque, one per thread */

typedef struct fs_study_callbacks {
  /* Per thread, called in that thread: builds its own models and engine over
   * the shared read-only program. NULL with err set on failure. */
  fs_study_worker *(*worker_new)(void *arg, fs_error *err);
  /* Runs seed `seed`: fills makespan and finish[ranks]; 0, or -1 with err set. */
  int (*run)(fs_study_worker *w, uint64_t seed, fs_time *makespan, fs_time *finish, fs_error *err);
  void (*worker_free)(fs_study_worker *w);
  void *arg;
} fs_study_callbacks;

typedef struct fs_study_options {
  int64_t seeds;      /* N */
  uint64_t base_seed; /* --seed, default 1; seed index i runs seed base + i */
  int threads;        /* 0: all online cores (sysconf) */
  int32_t ranks;
  int64_t first, step; /* run seed indices first, first+step, ... (shards, MPI ranks); 0, 1 */
  const char *samples; /* --samples FILE.csv or NULL: rows streamed in seed order */
  int progress;        /* draw a progress bar on stderr (the CLI: when isatty(2)) */
} fs_study_options;

/* The runs of a study in seed order: result j is seed[j]; finish is
 * count x ranks, row j at finish + j * ranks. */
typedef struct fs_study_results {
  int64_t count;
  uint64_t *seed;
  fs_time *makespan;
  fs_time *finish;
} fs_study_results;

/* Runs the study. 0 with *out filled, or -1 with err set ("seed 17: ..."
 * when a run failed: the failure of the lowest seed index among those that
 * failed; the other threads finish their current seed and stop) and *out
 * empty. */
int fs_study_run(const fs_study_options *o, const fs_study_callbacks *c, fs_study_results *out,
                 fs_error *err);
void fs_study_results_free(fs_study_results *r);

/* The number of seed indices first, first + step, ... below seeds. */
int64_t fs_study_count(int64_t seeds, int64_t first, int64_t step);

/* Samples CSV text for whole results (merge, MPI roots): the header, and one
 * row. buffer must hold fs_study_row_size(ranks) bytes; returns the length. */
size_t fs_study_row_size(int32_t ranks);
size_t fs_study_header(char *buffer, int32_t ranks);
size_t fs_study_row(char *buffer, uint64_t seed, fs_time makespan, const fs_time *finish,
                    int32_t ranks);

#endif
