/* best.h: the search of `fennelsim best COLLECTIVE` apart from running it:
 * the candidates (every algorithm of the collective with the option values
 * worth trying, fs_algorithm_variants; for allreduce also recursive
 * multiplying's schedules, rm_schedule.h), then the libraries' selectors
 * as extra cells (MPICH's and Open MPI's in the mpi family, NCCL's in the
 * gpu family: fs_family, algorithm_spec.h); the ranking of one size's simulated cells; the
 * decision table over sizes; and the reports (text, JSON, CSV). The command
 * (src/cli/best_command.c) runs the cells with fs_sweep_run, one sweep per
 * size (recursive multiplying's candidates depend on the size).
 *
 * The ranking is by the makespan (one run) or by the chosen statistic of
 * the seeds' makespans, ties in candidate order, so it depends on neither
 * the thread count nor the order cells finished in. */
#ifndef FS_BEST_H
#define FS_BEST_H

#include <stdint.h>

#include "core/error.h"
#include "generators/algorithm_spec.h"
#include "generators/mpi_selection.h"
#include "io/atomic_file.h"
#include "study/sweep.h"

typedef enum fs_best_rank_by { FS_BEST_MEDIAN, FS_BEST_MEAN, FS_BEST_P99 } fs_best_rank_by;

/* "median", "mean", "p99" (-1 otherwise). */
int fs_best_rank_by_find(const char *name);
const char *fs_best_rank_by_name(fs_best_rank_by by);

/* Where allreduce's heuristic recursive-multiplying schedule came from. */
enum { FS_BEST_RM_NONE, FS_BEST_RM_ADDED, FS_BEST_RM_AMONG, FS_BEST_RM_NO_STAGES };

/* The libraries whose pick best reports beside the winner. */
enum { FS_BEST_MPICH, FS_BEST_OMPI, FS_BEST_NCCL, FS_BEST_LIBRARIES };

typedef struct fs_best_candidates {
  fs_algorithm_spec *specs; /* the candidates [0, searched), then the selectors */
  int count, searched;
  int variants;     /* specs[0, variants): fs_algorithm_variants' */
  int rm_cheapest;  /* allreduce: enumerated schedules among the candidates */
  int rm_heuristic; /* FS_BEST_RM_* */
  int rm_capped;    /* the enumeration was cut at the limit */
  double cost_ratio;
  fs_family family;
  int32_t max_channels;           /* NCCL's generators: channels tried up to this */
  int library[FS_BEST_LIBRARIES]; /* index of "<c>-mpich", "-ompi", "-nccl" in specs; -1: none */
} fs_best_candidates;

/* The candidates of collective c at `ranks` in family: the variants (NCCL's
 * channels up to max_channels), then (allreduce, mpi family) the
 * heuristic's rm schedule and the rm_limit cheapest under the cost model
 * with c = cost_ratio, each once; then the family's libraries' selectors
 * when they are registered. 0, or -1 with err set. */
int fs_best_candidates_build(fs_collective c, fs_family family, int32_t max_channels, int32_t ranks,
                             double cost_ratio, int rm_limit, fs_best_candidates *out,
                             fs_error *err);
/* Whether the report shows library l's pick (a column of the table) in family. */
int fs_best_library_shown(fs_family family, int l);
void fs_best_candidates_free(fs_best_candidates *c);

/* One size's search: its candidates, their cells (cells[i] is specs[i]'s)
 * and, once ranked, the run candidates best first. */
typedef struct fs_best_size {
  int64_t size;
  fs_best_candidates candidates;
  fs_sweep_cell *cells; /* owned (malloc'd) */
  int32_t *order;       /* candidates that ran, best first */
  int ranked, skipped;  /* ran, and skipped (not applicable), among the candidates */
} fs_best_size;

/* The value a cell is ranked by, in ns (one run: its makespan). */
double fs_best_value(const fs_sweep_cell *cell, fs_best_rank_by by, int64_t seeds);
/* Sorts the candidates that ran into s->order. 0, or -1 (out of memory). */
int fs_best_rank(fs_best_size *s, fs_best_rank_by by, int64_t seeds, fs_error *err);
void fs_best_size_free(fs_best_size *s);

/* What the report says besides the sizes. */
typedef struct fs_best_report {
  const char *collective, *model, *compute;
  const char *model_parameters; /* the network model's JSON members */
  const char *platform;         /* "4 nodes x 12 cores, seq", a file, or "" */
  const char *noise;            /* the noise spec (fs_noise_spec), or "" */
  int model_default;            /* no --model given */
  int32_t ranks;
  int64_t seeds; /* 1: one run per cell */
  uint64_t seed; /* the first seed */
  fs_best_rank_by rank_by;
  int64_t top;      /* entries per size (0: all) */
  int table;        /* --sizes: the decision table (else one size's ranking) */
  int check;        /* the data-flow checker proved every schedule */
  fs_family family; /* the candidates' (and the libraries shown) */
  int32_t max_channels;
  const char *format; /* "text", "json", "csv" */
  const fs_best_size *sizes;
  int size_count;
} fs_best_report;

/* Writes the report to out (not committed). 0, or -1 once a write failed. */
int fs_best_write(fs_output *out, const fs_best_report *r);

#endif
