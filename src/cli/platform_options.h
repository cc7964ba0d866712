/* platform_options.h: the platform options every command that takes them
 * (run, gen, probe, validate) checks the same way, whatever the model:
 * --nodes M, --cores Q (whole numbers from 1 to FS_PLATFORM_OPTION_MAX),
 * --mapping seq|rr (also sequential, round-robin), --platform FILE.xml
 * (which replaces the other three). Errors name the option as typed. */
#ifndef FS_PLATFORM_OPTIONS_H
#define FS_PLATFORM_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/program.h"
#include "models/model_registry.h"
#include "platform/platform.h"

#define FS_PLATFORM_OPTION_MAX ((int64_t)1 << 24)

typedef struct fs_platform_text {
  const char *nodes, *cores, *mapping, *file; /* as typed (pointers into argv); NULL: not given */
  int64_t node_count, core_count;             /* --nodes, --cores read; 0: not given */
} fs_platform_text;

/* One of the four options at argv[*i], its value checked: 1 when taken, 0
 * when argv[*i] is none of them, -1 with err set. */
int fs_platform_text_option(int argc, char **argv, int *i, fs_platform_text *t, fs_error *err);
/* --platform with any of the others is an error. */
int fs_platform_text_check(const fs_platform_text *t, fs_error *err);
int fs_platform_text_given(const fs_platform_text *t);
/* The options as model parameters (nodes=, cores=, mapping=, platform=). */
int fs_platform_text_params(const fs_platform_text *t, fs_parameters *params, fs_error *err);
/* The platform the options describe for `ranks` ranks (0: as a file says):
 * the file read, or M nodes of Q cores (M default 1, Q default
 * ceil(ranks / M)); NULL with err set (none given: NULL, err untouched). */
fs_platform *fs_platform_text_build(const fs_platform_text *t, int64_t ranks, fs_error *err);
/* Whether a model read the platform's parameters (nodes=, cores=,
 * mapping=, platform=: used in params after the models were built); then
 * marks them used, since placing concurrent=1 tasks reads them under every
 * model. */
int fs_platform_params_taken(fs_parameters *params);
/* When the options were given, no model read them (taken 0) and the
 * program has no concurrent=1 task: writes "fennelsim: note: MODEL ignores
 * the platform (OPTIONS); ..." to out and returns 1; else 0. */
int fs_platform_text_note(FILE *out, const fs_platform_text *t, int taken, const char *model,
                          const fs_program *program);

#endif
