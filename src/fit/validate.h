/* validate.h: measured collective times against a model's predictions, for
 * `fennelsim validate MEASURED.csv --model M`: the table the seeds' papers
 * report (predicted vs measured, error per algorithm and size).
 *
 * The measurements are fennelprobe --collectives' CSV (docs/PROBE.md):
 *   # fennelprobe-collectives 1 ranks=4 nodes=1 cores=4 host=NAME
 *   collective,algorithm,ranks,bytes,repetitions,min_ns,median_ns,mean_ns,ci95_ns
 *   allreduce,,4,8,200,5123.0,5300.1,5350.2,20.5
 * The first line is optional; '#' lines are comments. algorithm is empty
 * (the MPI library chose) or a generator of `fennelsim gen --list`, named
 * in full ("allreduce-rd") or without its collective ("rd"), with
 * --algo's ":OPTION" (rm:auto, nway:3, chain:64KiB).
 *
 * Each row is predicted by generating its schedule (root 0) with every
 * candidate algorithm and simulating it: the candidate is the row's own
 * algorithm when it names one, else the --algo list for its collective,
 * else every generator of the collective that accepts the row's ranks and
 * size. error = (predicted - measured) / measured and mu = max / min of
 * the two (tau-Lop's proportional error). */
#ifndef FS_VALIDATE_H
#define FS_VALIDATE_H

#include <stdint.h>

#include "core/error.h"
#include "core/model.h"
#include "core/units.h"
#include "io/text_input.h"
#include "generators/algorithm_spec.h"
#include "generators/generators.h"
#include "models/platform_parameters.h"

/* Collectives are data_flow.h's fs_collective (barrier .. alltoall), named
 * by fs_collective_name; arrays by collective have this many slots. */
#define FS_VALIDATE_COLLECTIVES (FS_COLLECTIVE_ALLTOALL + 1)

/* The collective called name[0..length) ("allreduce"), or -1. */
int fs_validate_collective_from_name(const char *name, size_t length);

/* An algorithm: a generator with the option --algo gave it. */
typedef struct fs_validate_algorithm {
  const fs_generator *generator; /* NULL: none named */
  char schedule[128];            /* allreduce-rm's --schedule ("auto" by default) */
  int32_t ways;                  /* --ways, 0: the generator's default */
  int64_t segment;               /* --segment, 0: the generator's default */
  char name[192];                /* as shown: "allreduce-rd", "allreduce-rm:auto" */
} fs_validate_algorithm;

/* "rd", "allreduce-rd", "rm:a4,a2", "nway:3" for collective c; 0, or -1
 * with err set ("unknown algorithm 'x' for allreduce ..."). */
int fs_validate_algorithm_parse(fs_collective c, const char *text, size_t length,
                                fs_validate_algorithm *out, fs_error *err);

#define FS_VALIDATE_MAX_CHOICES 32

/* --algo: the candidates of each collective (none: every generator). */
typedef struct fs_validate_algorithms {
  fs_validate_algorithm items[FS_VALIDATE_COLLECTIVES][FS_VALIDATE_MAX_CHOICES];
  int count[FS_VALIDATE_COLLECTIVES];
} fs_validate_algorithms;

/* Adds "allreduce=rd,ring,bcast=binomial" (an item with '=' starts a
 * collective; rm's schedule may hold commas: "allreduce=rm:a4,a2,rd").
 * 0, or -1 with err set. */
int fs_validate_algorithms_add(fs_validate_algorithms *a, const char *text, fs_error *err);

typedef struct fs_collective_row {
  fs_collective collective;
  fs_validate_algorithm algorithm; /* generator NULL when the field is empty */
  int32_t ranks;
  int64_t bytes; /* the generator's --size */
  int64_t repetitions;
  fs_time min, median, mean, ci95; /* picoseconds; 0 < min <= median, mean */
  int64_t line;                    /* in the CSV, for messages */
} fs_collective_row;

typedef struct fs_collective_data {
  fs_collective_row *rows;
  int64_t count, capacity;
  int32_t ranks, nodes, cores; /* the first line's ranks=, nodes=, cores= (0: absent) */
  char *source;                /* the file read */
} fs_collective_data;

/* Reads the CSV; NULL with "FILE:LINE:COLUMN: expected ..." (also when it
 * has no rows). The _input form reads an open input (not closed). */
fs_collective_data *fs_collective_data_read(const char *path, fs_error *err);
fs_collective_data *fs_collective_data_read_input(fs_text_input *in, fs_error *err);
void fs_collective_data_free(fs_collective_data *d);

/* One prediction: a row under one candidate algorithm. */
typedef struct fs_validate_entry {
  int64_t row; /* into the data's rows */
  char algorithm[192];
  fs_time measured, predicted;
  double error; /* (predicted - measured) / measured */
  double mu;    /* max / min; 1 when equal, inf when predicted is 0 */
  int named;    /* the row named its algorithm */
  int best;     /* the row's closest candidate (rows naming none) */
} fs_validate_entry;

/* Per collective and algorithm, over its entries. */
typedef struct fs_validate_summary {
  fs_collective collective;
  char algorithm[192];
  int64_t rows, best; /* entries; of them, the best match of their row */
  double mean_abs_error, max_abs_error, max_mu;
} fs_validate_summary;

/* A candidate that rejected rows (said once, with its first reason). */
typedef struct fs_validate_skip {
  fs_collective collective;
  char algorithm[192];
  int64_t rows;
  int64_t first_line;
  char reason[512];
} fs_validate_skip;

typedef struct fs_validation {
  fs_validate_entry *entries;
  int64_t entry_count, entry_capacity;
  fs_validate_summary *summaries;
  int64_t summary_count, summary_capacity;
  fs_validate_skip *skips;
  int64_t skip_count, skip_capacity;
  int64_t unpredicted; /* rows no candidate accepted */
} fs_validation;

typedef struct fs_validate_setup {
  fs_network_model *network;
  fs_compute_model *compute;
  const fs_platform_parameters *platform;   /* NULL: generators get none */
  const fs_validate_algorithms *algorithms; /* --algo; NULL: none given */
  int use_median;                           /* compare with the medians, not the minima */
  fs_family family; /* a row's default candidates: the generators of this family
                       (algorithm_spec.h); 0: FS_FAMILY_MPI */
} fs_validate_setup;

enum { FS_VALIDATE_OK = 0, FS_VALIDATE_BAD_INPUT = -1, FS_VALIDATE_FAILED = -2 };

/* Predicts every row. FS_VALIDATE_OK; FS_VALIDATE_BAD_INPUT (a row's own
 * algorithm rejects it, the model rejects a schedule); FS_VALIDATE_FAILED
 * (a deadlock, out of memory); err says why. out is freed by the caller
 * (fs_validation_free) in every case. */
int fs_validate(const fs_collective_data *data, const fs_validate_setup *setup, fs_validation *out,
                fs_error *err);
void fs_validation_free(fs_validation *v);

/* The error and mu of a prediction (measured > 0). */
double fs_validate_error(fs_time measured, fs_time predicted);
double fs_validate_mu(fs_time measured, fs_time predicted);

#endif
