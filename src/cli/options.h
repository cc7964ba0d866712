/* options.h: command-line helpers shared by the subcommands: matching
 * "--name value" and "--name=value", and a monotonic clock. */
#ifndef FS_OPTIONS_H
#define FS_OPTIONS_H

#include <stdint.h>

#include "core/error.h"
#include "models/model_registry.h"

#define FS_EXIT_OK 0
#define FS_EXIT_SIMULATION 1
#define FS_EXIT_USAGE 2

/* If argv[*i] is option `name`, stores its value (advancing *i past a
 * separate value) and returns 1; returns 0 if it is another argument, -1
 * (err set) if the value is missing. */
int fs_option(int argc, char **argv, int *i, const char *name, const char **value, fs_error *err);
/* Parses a whole number in [min, max] for option name. */
int fs_option_count(const char *name, const char *value, int64_t min, int64_t max, int64_t *out,
                    fs_error *err);
double fs_seconds_now(void);
/* The exit status of a failure: FS_EXIT_USAGE when err says "too large"
 * (an input past the memory limit is bad input, core/error.h) or "out of
 * memory" (the same, found when an allocation failed), else `otherwise`. */
int fs_exit_status_for(const fs_error *err, int otherwise);
/* Appends a copy of "key=value" (split at the '=') to params, for
 * `--param`; fs_option_params_free releases the copies. */
int fs_option_param(fs_parameters *params, const char *text, fs_error *err);
/* The parameter key=value, as fs_option_param takes "key=value". */
int fs_option_param_pair(fs_parameters *params, const char *key, const char *value, fs_error *err);
/* Sets err to "unknown option ARG (see fennelsim COMMAND --help)" and
 * the closest options of the command ("; did you mean --model?"): the
 * options are the --names and -x names the command's usage text shows.
 * Returns -1. */
int fs_option_unknown(fs_error *err, const char *command, const char *arg, const char *usage);
/* Prints usage and returns 1 when an argument after the command is --help
 * or -h; else 0. */
int fs_wants_help(int argc, char **argv, const char *usage);
void fs_option_params_free(fs_parameters *params);

/* An output option and its value, for fs_option_check_outputs. */
typedef struct fs_named_path {
  const char *name; /* "--samples", "-o", "OUT" */
  const char *path; /* NULL when not given; a pointer into argv */
} fs_named_path;
/* Refuses (err set, -1) an output that is the same existing regular file
 * (device and inode) as any file named on the command line: an argument
 * itself or the part after a '=' (FILE in table=FILE), other than the
 * output's own argument; and two outputs with the same path. */
int fs_option_check_outputs(int argc, char **argv, const fs_named_path *outputs, int count,
                            fs_error *err);

/* --sizes LIST: sizes and geometric ranges, comma separated, in the order
 * given: "8B,1KiB,1MiB", "8B..1MiB*4" (8 B, 32 B, ... up to 1 MiB). *out
 * is malloc'd (the caller frees it). 0, or -1 with err naming the item. */
#define FS_OPTION_SIZES_MAX 4096
int fs_option_sizes(const char *name, const char *value, int64_t **out, int *count, fs_error *err);
/* --ranks LIST: counts from 1 to max (at most INT32_MAX) and ranges, "64,128",
 * "64..4096*2", "2..64+2"; at most capacity of them. As fs_option_sizes. */
int fs_option_counts(const char *name, const char *value, int64_t max, int capacity, int32_t **out,
                     int *count, fs_error *err);

int fs_command_run(int argc, char **argv);
int fs_command_gen(int argc, char **argv);
int fs_command_convert(int argc, char **argv);
int fs_command_best(int argc, char **argv);
int fs_command_merge(int argc, char **argv);
int fs_command_probe(int argc, char **argv);    /* fit_command.c */
int fs_command_fit(int argc, char **argv);      /* fit_command.c */
int fs_command_validate(int argc, char **argv); /* validate_command.c */
int fs_command_sweep(int argc, char **argv);    /* sweep_command.c */

#endif
