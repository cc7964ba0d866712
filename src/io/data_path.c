/* data_path.c: the search of data files through a list of roots
 * (data_path.h). */
#include "io/data_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const subdirs[] = {"", "models/", "schedules/", "traces/"};

/* Adds dir unless empty; a list entry must leave room for the data
 * directory and the source tree, so the limit does not depend on them. */
static int add_root(fs_data_roots *roots, const char *dir, int listed, fs_error *err) {
  if (!dir || !*dir) return 0;
  if (listed && roots->count == FS_DATA_MAX_ROOTS - 2)
    return fs_error_set(err, "FENNELSIM_PATH: more than %d directories", FS_DATA_MAX_ROOTS - 3);
  roots->dirs[roots->count++] = dir;
  return 0;
}

int fs_data_roots_init(fs_data_roots *roots, const char *path_list, const char *data_dir,
                       const char *source_dir, fs_error *err) {
  memset(roots, 0, sizeof *roots);
  size_t n = path_list ? strlen(path_list) : 0, d = data_dir ? strlen(data_dir) : 0,
         s = source_dir ? strlen(source_dir) : 0;
  /* ".", the list with its colons turned into NULs, data_dir, source_dir */
  if (!(roots->text = malloc(2 + n + 1 + d + 1 + s + 1))) return fs_error_set(err, "out of memory");
  char *at = roots->text;
  memcpy(at, ".", 2);
  roots->dirs[roots->count++] = at;
  at += 2;
  memcpy(at, path_list ? path_list : "", n + 1);
  for (char *entry = at, *end = at + n; entry <= end;) {
    char *colon = strchr(entry, ':');
    if (colon) *colon = 0;
    if (add_root(roots, entry, 1, err)) return fs_data_roots_free(roots), -1;
    entry += strlen(entry) + 1;
  }
  at += n + 1;
  memcpy(at, data_dir ? data_dir : "", d + 1);
  if (add_root(roots, at, 0, err)) return fs_data_roots_free(roots), -1;
  at += d + 1;
  memcpy(at, source_dir ? source_dir : "", s + 1);
  if (add_root(roots, at, 0, err)) return fs_data_roots_free(roots), -1;
  return 0;
}

void fs_data_roots_free(fs_data_roots *roots) {
  free(roots->text);
  memset(roots, 0, sizeof *roots);
}

static int exists(const char *path) {
  struct stat status;
  return stat(path, &status) == 0;
}

/* Whether name has a ".." component. */
static int climbs(const char *name) {
  for (const char *p = name; (p = strstr(p, "..")); p += 2)
    if ((p == name || p[-1] == '/') && (p[2] == 0 || p[2] == '/')) return 1;
  return 0;
}

/* The roots, as the not-found message lists them. */
static void list_roots(const fs_data_roots *roots, char *text, size_t size) {
  size_t at = 0;
  text[0] = 0;
  for (int i = 0; roots && i < roots->count && at < size; i++) {
    int n = snprintf(text + at, size - at, "%s%s", i ? ", " : "", roots->dirs[i]);
    if (n < 0) break;
    at += (size_t)n;
  }
  if (!roots) snprintf(text, size, ".");
}

int fs_data_find(const fs_data_roots *roots, const char *name, char *found, size_t size,
                 fs_error *err) {
  if (strlen(name) >= size)
    return fs_error_set(err, "cannot find '%.64s...': a name of more than %zu bytes", name,
                        size - 1);
  snprintf(found, size, "%s", name);
  if (!*name || name[0] == '/' || strcmp(name, "-") == 0 || exists(name)) return 0;
  if (climbs(name))
    return fs_error_set(err,
                        "cannot find '%s' (a name with '..' is looked for only in the "
                        "working directory)",
                        name);
  static const fs_data_roots here = {NULL, {"."}, 1};
  const fs_data_roots *r = roots ? roots : &here;
  for (int i = 0; i < r->count; i++)
    for (size_t k = 0; k < sizeof subdirs / sizeof subdirs[0]; k++) {
      int dot = strcmp(r->dirs[i], ".") == 0;
      int n = snprintf(found, size, "%s%s%s%s", dot ? "" : r->dirs[i],
                       dot || r->dirs[i][strlen(r->dirs[i]) - 1] == '/' ? "" : "/", subdirs[k],
                       name);
      if (n > 0 && (size_t)n < size && exists(found)) return 0;
    }
  snprintf(found, size, "%s", name);
  char looked[768];
  list_roots(r, looked, sizeof looked);
  return fs_error_set(err, "cannot find '%s' (looked in %s and their models/, schedules/, traces/)",
                      name, looked);
}
