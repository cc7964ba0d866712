/* rank_pair_table.h: the per-rank and per-pair parameters of the
 * heterogeneous models (hetero-hockney, lmo), read from a text file:
 *
 *   # comment                          ('#' to the end of the line)
 *   ranks N                            first line, once
 *   default KEY=VALUE...               values for whatever no line sets
 *   rank I KEY=VALUE...                per-rank values (lmo: C=, t=)
 *   link I J KEY=VALUE... [directed]   per-pair values, i->j and j->i
 *                                      unless `directed` (then i->j only)
 *   matrix KEY                         per-pair KEY for every ordered pair:
 *   V V ... V                          N lines of N values, row i = from
 *                                      rank i, column j = to rank j; the
 *                                      diagonal must be there (0, -) but is
 *                                      not read
 *   vector KEY                         per-rank KEY (lmo: C, t): one line
 *   V V ... V                          of N values, rank 0 first
 *
 * Each model names its keys: a pair has a time (alpha, L) and a time per
 * byte (beta, invbeta); a rank has a time (C) and a time per byte (t).
 * Times need a unit (fs_parse_time, non-negative); per-byte values are a
 * time per byte or a bandwidth (fs_parse_per_byte). A later line wins over
 * an earlier one, value by value; a value no line sets comes from
 * `default` (or is an error); a matrix or vector block counts as lines at
 * its place, so `link` lines after it override it value by value. Blank
 * and comment lines may come between a block's rows. Errors:
 * "FILE:LINE:COLUMN: expected ...".
 *
 * Pairs are stored sparsely (one entry per pair the file names, sorted),
 * so memory follows the file, not N^2; per-rank values are dense arrays.
 * A `matrix` block names all N(N-1) pairs, so it is refused above
 * FS_RANK_PAIR_MAX_MATRIX_RANKS ranks (4096: 16.8M entries, ~1.3 GB while
 * reading); larger files use `default` and `link` lines. */
#ifndef FS_RANK_PAIR_TABLE_H
#define FS_RANK_PAIR_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/units.h"
#include "io/text_input.h"
#include "models/model_registry.h"

#define FS_RANK_PAIR_MAX_RANKS ((int64_t)1 << 24)
#define FS_RANK_PAIR_MAX_MATRIX_RANKS 4096
#define FS_RANK_PAIR_MAX_MATRIX_RANKS_TEXT "4096"

typedef struct fs_rank_pair_keys {
  const char *link_time, *link_per_byte; /* "alpha", "beta" or "L", "invbeta" */
  const char *rank_time, *rank_per_byte; /* "C", "t", or NULL: no rank lines */
  int link_time_defaults_to_zero;        /* LMO's L: 0 gives the original LMO */
} fs_rank_pair_keys;

typedef struct fs_rank_pair_link {
  int64_t pair; /* i * ranks + j */
  fs_time time;
  fs_per_byte per_byte;
} fs_rank_pair_link;

typedef struct fs_rank_pair_table {
  int32_t ranks;
  fs_time link_time; /* the defaults, for pairs no line names */
  fs_per_byte link_per_byte;
  int64_t links;
  fs_rank_pair_link *link; /* sorted by pair, every value resolved */
  fs_time *rank_time;      /* [ranks], NULL without rank keys */
  fs_per_byte *rank_per_byte;
} fs_rank_pair_table;

int fs_rank_pair_table_read(fs_text_input *in, const fs_rank_pair_keys *keys,
                            fs_rank_pair_table *out, fs_error *err);
void fs_rank_pair_table_free(fs_rank_pair_table *table);
/* The values of the message i->j. */
void fs_rank_pair_table_link(const fs_rank_pair_table *table, int32_t i, int32_t j, fs_time *time,
                             fs_per_byte *per_byte);
/* Replaces every pair value by its mean over the ordered pairs i != j and
 * every rank value by its mean over the ranks, rounded to the nearest ps
 * (as): the homogeneous model of the same data. */
void fs_rank_pair_table_average(fs_rank_pair_table *table);

/* What both models share: --param file=PATH (required) and average=0|1. */
typedef struct fs_rank_pair_model {
  fs_rank_pair_keys keys;
  fs_rank_pair_table table;
  char *path;
  int average;
} fs_rank_pair_model;

int fs_rank_pair_model_load(fs_parameters *params, const char *model_name,
                            fs_rank_pair_model *model, fs_error *err);
void fs_rank_pair_model_free(fs_rank_pair_model *model);
/* 0 when the program has the file's rank count (for a model's reset). */
int fs_rank_pair_model_check_ranks(const fs_rank_pair_model *model, int32_t program_ranks,
                                   fs_error *err);
/* JSON members: "file", "ranks", "average", and the means when averaged. */
void fs_rank_pair_model_describe(const fs_rank_pair_model *model, char *buffer, size_t size);

#endif
