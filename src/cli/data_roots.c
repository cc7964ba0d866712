/* data_roots.c: the command line's search path for data files
 * (data_roots.h). The build passes FS_DATA_DIR (the installed data
 * directory), FS_BUILD_DIR and FS_SOURCE_DIR. */
#include "cli/data_roots.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FS_DATA_DIR
#define FS_DATA_DIR "/usr/local/share/fennelsim"
#endif

/* Whether the running binary sits in the build directory it was built in
 * (the same directory, links resolved); never true once installed. */
static int in_build_directory(void) {
#if defined(FS_BUILD_DIR) && defined(FS_SOURCE_DIR)
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 0;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return 0;
  *slash = 0;
  struct stat here, build; /* one directory: same device and inode */
  return stat(exe, &here) == 0 && stat(FS_BUILD_DIR, &build) == 0 && here.st_dev == build.st_dev &&
         here.st_ino == build.st_ino;
#else
  return 0;
#endif
}

int fs_cli_data_open(fs_cli_data *d, fs_error *err) {
  memset(d, 0, sizeof *d);
#ifdef FS_SOURCE_DIR
  const char *source = in_build_directory() ? FS_SOURCE_DIR : NULL;
#else
  const char *source = NULL;
#endif
  return fs_data_roots_init(&d->roots, getenv("FENNELSIM_PATH"), FS_DATA_DIR, source, err);
}

/* Keeps a copy of path and points *name at it. */
static int keep(fs_cli_data *d, const char *path, const char **name, fs_error *err) {
  if (strcmp(path, *name) == 0) return 0;
  char **found = realloc(d->found, (size_t)(d->found_count + 1) * sizeof *found);
  if (!found) return fs_error_set(err, "out of memory");
  d->found = found;
  if (!(found[d->found_count] = strdup(path))) return fs_error_set(err, "out of memory");
  *name = found[d->found_count++];
  return 0;
}

int fs_cli_data_find(fs_cli_data *d, const char **name, fs_error *err) {
  char path[FS_DATA_PATH_MAX];
  if (fs_data_find(&d->roots, *name, path, sizeof path, err)) return -1;
  return keep(d, path, name, err);
}

int fs_cli_data_find_all(fs_cli_data *d, const char **names, int count, fs_error *err) {
  for (int i = 0; i < count; i++)
    if (fs_cli_data_find(d, &names[i], err)) return -1;
  return 0;
}

int fs_cli_data_find_model(fs_cli_data *d, const char **model, fs_error *err) {
  size_t n = strlen(*model);
  if (fs_network_model_built_in(*model)) return 0;
  if (n >= 4 && strcmp(*model + n - 4, ".xml") == 0) return fs_cli_data_find(d, model, err);
  if (strchr(*model, '/') || n + 5 > FS_DATA_PATH_MAX) return 0; /* the registry says why */
  char file[FS_DATA_PATH_MAX], path[FS_DATA_PATH_MAX];
  memcpy(file, *model, n);
  memcpy(file + n, ".xml", 5);
  fs_error ignored;
  if (fs_data_find(&d->roots, file, path, sizeof path, &ignored)) return 0;
  return keep(d, path, model, err);
}

int fs_cli_data_find_params(fs_cli_data *d, fs_parameters *params, fs_error *err) {
  for (int i = 0; i < params->count; i++) {
    fs_parameter *p = &params->items[i];
    if (!p->text && fs_parameter_names_file(p->key, p->value) &&
        fs_cli_data_find(d, &p->value, err))
      return -1;
  }
  return 0;
}

void fs_cli_data_close(fs_cli_data *d) {
  for (int i = 0; i < d->found_count; i++) free(d->found[i]);
  free(d->found);
  fs_data_roots_free(&d->roots);
  memset(d, 0, sizeof *d);
}
