/* platform_parameters.h: the platform settings a model reads from its
 * parameters (--nodes/--cores/--mapping or --platform on the command line)
 * and builds into a platform for the program of each run. */
#ifndef FS_PLATFORM_PARAMETERS_H
#define FS_PLATFORM_PARAMETERS_H

#include "core/engine.h"
#include "models/model_registry.h"
#include "platform/platform.h"

typedef struct fs_platform_parameters {
  char file[256]; /* --platform FILE.xml, or empty */
  int64_t nodes, cores;
  char mapping[32]; /* "seq" or "rr" (or empty: seq) */
} fs_platform_parameters;

/* Reads nodes=, cores=, mapping=, platform= (marking them used). */
int fs_platform_parameters_read(fs_parameters *params, fs_platform_parameters *out, fs_error *err);
/* The platform for a program of `ranks` ranks: from the file, or M nodes
 * of Q cores (default: one node holding every rank). */
fs_platform *fs_platform_parameters_build(const fs_platform_parameters *pp, int32_t ranks,
                                          fs_error *err);

/* Every model: when the parameters name a platform (nodes=, cores=,
 * mapping= or platform=) and the engine's program has concurrent tasks,
 * puts the ranks on the platform's cores (fs_engine_set_cores); else
 * nothing. 0, or -1 with err set (a bad platform, or out of memory). */
int fs_platform_parameters_place(fs_parameters *params, fs_engine *engine, fs_error *err);

#endif
