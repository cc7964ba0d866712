/* fit.h: from measurements (probe_data.h) to a model's parameters, for
 * `fennelsim fit DATA.csv --model M [-o model.xml]`.
 *
 * One fitter per model (fit_<model>.c), each with the estimation the seeds
 * use for it, written in its first comment. A fit yields the parameters as
 * `--param` texts and tables (size-indexed rows, as the model's table files
 * read them), the residual of every row it used (measured against what the
 * fitted model predicts for that row, computed by the model's formula) and
 * the fit's error: tau-Lop's proportional error mu = max(r, e) / min(r, e)
 * per row (r measured, e estimated), its maximum and mean. The result is
 * written as a model file (models/README.md) that `fennelsim run --model`
 * reads. */
#ifndef FS_FIT_H
#define FS_FIT_H

#include <stdio.h>

#include "fit/probe_data.h"
#include "models/size_table.h"

#define FS_FIT_MAX_PARAMS 64
#define FS_FIT_MAX_TABLES 8

typedef struct fs_fit_parameter {
  char name[64];
  char value[64]; /* as --param takes it: "1.234us", "0.5ns", "65535" */
} fs_fit_parameter;

typedef struct fs_fit_table {
  char name[64]; /* the model's table parameter: "table", "shm_table" ... */
  char *rows;    /* the table's text (rows "SIZE v1 v2 ..."), owned */
} fs_fit_table;

typedef struct fs_fit_residual {
  int64_t row; /* index into the data's rows */
  fs_time measured, estimated;
  double mu; /* max(measured, estimated) / min(...) (1 when equal; inf when one is 0) */
} fs_fit_residual;

typedef struct fs_fit {
  char kind[32]; /* the model: "hockney" ... */
  fs_fit_parameter params[FS_FIT_MAX_PARAMS];
  int param_count;
  fs_fit_table tables[FS_FIT_MAX_TABLES];
  int table_count;
  fs_fit_residual *residuals;
  int64_t residual_count, residual_capacity;
  double max_mu, mean_mu;
  char notes[2048]; /* what was used and how, for the report (lines) */
} fs_fit;

typedef struct fs_fit_options {
  int use_median; /* 0: fit the minima (the seeds' choice), 1: the medians */
} fs_fit_options;

typedef int (*fs_fitter)(const fs_probe_data *data, const fs_fit_options *options, fs_fit *fit,
                         fs_error *err);

/* The fitter for a model name, or NULL; the names it knows, for messages. */
fs_fitter fs_fitter_find(const char *model);
const char *fs_fitter_names(void); /* "hockney, hetero-hockney, pipelined, ..." */

/* Helpers for fitters. */
void fs_fit_init(fs_fit *fit, const char *kind);
void fs_fit_free(fs_fit *fit);
int fs_fit_set_param(fs_fit *fit, const char *name, const char *value);
int fs_fit_set_time(fs_fit *fit, const char *name, fs_time value); /* "1234.5ns" style, exact */
int fs_fit_set_per_byte(fs_fit *fit, const char *name, fs_per_byte value); /* exact */
int fs_fit_add_table(fs_fit *fit, const char *name, char *rows);           /* takes rows */
/* A size table as text a model reads back: "# heading, fitted by fennelsim
 * fit", then "SIZEB V1ns V2ns ..." per row (malloc'd; NULL when out of memory). */
char *fs_fit_table_text(const fs_size_table *table, const char *heading);
int fs_fit_add_residual(fs_fit *fit, int64_t row, fs_time measured, fs_time estimated);
void fs_fit_note(fs_fit *fit, const char *format, ...) FS_PRINTF(2, 3);
/* The measured value of a row under the options (min or median). */
fs_time fs_fit_value(const fs_probe_row *row, const fs_fit_options *options);
/* Least squares y = a + b x over n points (weights 1); -1 when n < 2 or
 * the x are all equal. */
int fs_fit_line(const double *x, const double *y, int64_t n, double *a, double *b);
/* A fitted time (ps, a double) rounded to the nearest ps, saturating. */
fs_time fs_fit_round_time(double ps);

/* The model file: <model kind=...> with params and tables (atomic write). */
int fs_fit_write_xml(const fs_fit *fit, const char *path, fs_error *err);
void fs_fit_report_text(FILE *out, const fs_fit *fit, const fs_probe_data *data);
void fs_fit_report_json(FILE *out, const fs_fit *fit, const fs_probe_data *data);

/* The fitters (fit_<model>.c). */
int fs_fit_hockney(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err);
int fs_fit_hetero_hockney(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit,
                          fs_error *err);
int fs_fit_pipelined(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err);
int fs_fit_loggops(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err);
int fs_fit_taulop(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err);
int fs_fit_lognp(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err);
int fs_fit_lmo(const fs_probe_data *d, const fs_fit_options *o, fs_fit *fit, fs_error *err);

#endif
