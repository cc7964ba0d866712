/* data_roots.h: the command line's search path for data files
 * (io/data_path.h): the working directory, each directory of
 * FENNELSIM_PATH, the installed data directory (<prefix>/<datadir>/fennelsim,
 * fixed at build time), and the source tree only when this binary runs in
 * its build directory (an installed binary never reads the source tree).
 * Names found are replaced in place by their paths, which this keeps. */
#ifndef FS_DATA_ROOTS_H
#define FS_DATA_ROOTS_H

#include "core/error.h"
#include "io/data_path.h"
#include "models/model_registry.h"

typedef struct fs_cli_data {
  fs_data_roots roots;
  char **found; /* the paths handed out, owned */
  int found_count;
} fs_cli_data;

/* The roots from the environment and the build; -1 with err set. */
int fs_cli_data_open(fs_cli_data *d, fs_error *err);
/* *name (a schedule, trace, table, platform file) replaced by where it is
 * found; -1 with err "cannot find 'NAME' (looked in ...)". */
int fs_cli_data_find(fs_cli_data *d, const char **name, fs_error *err);
/* The same for each of names[0..count). */
int fs_cli_data_find_all(fs_cli_data *d, const char **names, int count, fs_error *err);
/* --model NAME: a built-in name stays; NAME.xml, or NAME + ".xml", becomes
 * its path when found. A missing NAME.xml is an error; a missing plain
 * NAME stays for the registry to report as an unknown model. */
int fs_cli_data_find_model(fs_cli_data *d, const char **model, fs_error *err);
/* Each parameter that names a file (platform=, tables, file=; see
 * fs_parameter_names_file) replaced by where it is found. */
int fs_cli_data_find_params(fs_cli_data *d, fs_parameters *params, fs_error *err);
void fs_cli_data_close(fs_cli_data *d);

#endif
