/* data_path.h: where a data file named on the command line is found.
 *
 * A name (a schedule, a trace directory, a model file, a platform file, a
 * table) is looked up in a list of search roots, in order; in each root R
 * the candidates are R/NAME, R/models/NAME, R/schedules/NAME and
 * R/traces/NAME, and the first that exists (file or directory) wins. The
 * roots are built by the caller, conventionally: the working directory
 * ("."), each directory of FENNELSIM_PATH, the installed data directory,
 * and the source tree only for a binary running in its build directory
 * (cli/data_roots.c). Pure path logic: no environment, no globals.
 *
 * Names that bypass the search (returned as given, whether or not they
 * exist; their reader reports a missing file): "-" (stdin), absolute paths
 * and the empty name.
 * A name with a ".." component is tried only as given (relative to the
 * working directory), so a search never leaves its roots. */
#ifndef FS_DATA_PATH_H
#define FS_DATA_PATH_H

#include <stddef.h>

#include "core/error.h"

#define FS_DATA_MAX_ROOTS 64  /* roots in all, "." included */
#define FS_DATA_PATH_MAX 4096 /* bytes of a found path, with its NUL */

typedef struct fs_data_roots {
  char *text;                          /* owned copy of the roots' text */
  const char *dirs[FS_DATA_MAX_ROOTS]; /* into text, in search order */
  int count;
} fs_data_roots;

/* Roots: ".", each non-empty entry of path_list (colon-separated, as
 * FENNELSIM_PATH; empty entries are skipped), then data_dir, then
 * source_dir (each may be NULL or empty: left out). -1 with err set when
 * path_list holds more directories than fit (FS_DATA_MAX_ROOTS in all)
 * or memory runs out. Free with fs_data_roots_free. */
int fs_data_roots_init(fs_data_roots *roots, const char *path_list, const char *data_dir,
                       const char *source_dir, fs_error *err);
void fs_data_roots_free(fs_data_roots *roots);

/* Where name is found: its path ("models/x.xml" for the root ".", else
 * "ROOT/models/x.xml") in found[size]; 0. When nothing exists: -1 with
 * err = "cannot find 'NAME' (looked in ., DIR, ... and their models/,
 * schedules/, traces/)" (for a name with "..": "cannot find 'NAME' (a
 * name with '..' is looked for only in the working directory)"). roots
 * NULL searches "." alone. */
int fs_data_find(const fs_data_roots *roots, const char *name, char *found, size_t size,
                 fs_error *err);

#endif
