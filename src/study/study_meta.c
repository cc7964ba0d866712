/* study_meta.c: the samples CSV's sidecar (see study_meta.h): the FNV-1a
 * hash of the input, writing, strict reading and comparison. */
#include "study/study_meta.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/atomic_file.h"

#define META_SIZE_MAX ((size_t)FS_STUDY_META_KEYS * (FS_STUDY_META_LINE_MAX + 1) + 64)

uint64_t fs_fnv1a64(uint64_t hash, const void *data, size_t length) {
  const unsigned char *p = data;
  for (size_t i = 0; i < length; i++) hash = (hash ^ p[i]) * UINT64_C(0x100000001b3);
  return hash;
}

static int hash_file(const char *path, uint64_t *hash) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char buffer[1 << 16];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, f)) > 0) *hash = fs_fnv1a64(*hash, buffer, n);
  int failed = ferror(f);
  fclose(f);
  return failed ? -1 : 0;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A trace directory: its regular files' names and bytes in name order. */
static int hash_directory(const char *path, uint64_t *hash) {
  DIR *d = opendir(path);
  if (!d) return -1;
  char **names = NULL;
  size_t count = 0, capacity = 0;
  int failed = 0;
  for (struct dirent *e; !failed && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (count == capacity) {
      char **more = realloc(names, (capacity = capacity ? 2 * capacity : 16) * sizeof *names);
      if (!more) {
        failed = 1;
        break;
      }
      names = more;
    }
    if (!(names[count] = strdup(e->d_name)))
      failed = 1;
    else
      count++;
  }
  closedir(d);
  if (!failed) qsort(names, count, sizeof *names, compare_names);
  for (size_t i = 0; i < count; i++) {
    char *file = NULL;
    struct stat st;
    if (!failed && (file = malloc(strlen(path) + strlen(names[i]) + 2))) {
      sprintf(file, "%s/%s", path, names[i]);
      if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
        *hash = fs_fnv1a64(*hash, names[i], strlen(names[i]) + 1);
        failed = hash_file(file, hash);
      }
    } else {
      failed = 1;
    }
    free(file);
    free(names[i]);
  }
  free(names);
  return failed ? -1 : 0;
}

int fs_fnv1a64_path(const char *path, uint64_t *hash) {
  struct stat st;
  *hash = FS_FNV1A64_INIT;
  if (stat(path, &st) != 0) return -1;
  if (S_ISDIR(st.st_mode)) return hash_directory(path, hash);
  if (!S_ISREG(st.st_mode)) return -1; /* stdin, a FIFO: read once, by the simulation */
  return hash_file(path, hash);
}

/* "PATH.meta" (malloc'd), or NULL for "-" (stdout has no sidecar) or when
 * out of memory. */
static char *meta_path(const char *samples) {
  if (strcmp(samples, "-") == 0) return NULL;
  char *path = malloc(strlen(samples) + 6);
  if (path) sprintf(path, "%s.meta", samples);
  return path;
}

int fs_study_meta_write(const char *samples, const char *text, fs_error *err) {
  if (strcmp(samples, "-") == 0) return 0;
  char *path = meta_path(samples);
  if (!path) return fs_error_set(err, "out of memory");
  fs_output *out = fs_output_open(path, err);
  free(path);
  if (!out) return -1;
  fs_output_puts(out, text);
  return fs_output_commit(out, err);
}

/* ---- reading ---- */

/* The sidecar's path: FILE.meta, or for FILE.gz (a shard compressed after
 * the study) also FILE-without-.gz.meta. NULL when none exists. */
static char *existing_sidecar(const char *samples) {
  char *path = meta_path(samples);
  struct stat st;
  if (!path || stat(path, &st) == 0) return path;
  size_t n = strlen(samples);
  if (n > 3 && strcmp(samples + n - 3, ".gz") == 0) {
    sprintf(path + n - 3, ".meta"); /* shorter than PATH.meta */
    if (stat(path, &st) == 0) return path;
  }
  free(path);
  return NULL;
}

static int read_all(const char *path, char **text, size_t *length, fs_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return fs_error_set(err, "%s: cannot open: %s", path, strerror(errno));
  char *buffer = malloc(META_SIZE_MAX + 1);
  size_t n = buffer ? fread(buffer, 1, META_SIZE_MAX + 1, f) : 0;
  int failed = !buffer || ferror(f);
  fclose(f);
  if (failed) {
    free(buffer);
    return fs_error_set(err, "%s: cannot read%s", path, buffer ? "" : ": out of memory");
  }
  if (n > META_SIZE_MAX) {
    free(buffer);
    return fs_error_set(err, "%s: expected a sidecar of at most %zu bytes", path,
                        (size_t)META_SIZE_MAX);
  }
  buffer[n] = 0;
  *text = buffer, *length = n;
  return 0;
}

/* Splits text into lines in place: the magic, then KEY: VALUE lines. */
static int parse(fs_study_meta *m, char *text, size_t length, fs_error *err) {
  char *p = text, *end = text + length;
  for (int64_t line = 1; p < end; line++) {
    char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    size_t n = (size_t)(eol - p);
    if (n && p[n - 1] == '\r') p[--n] = 0;
    *eol = 0;
    if (memchr(p, 0, n))
      return fs_error_set(err, "%s:%lld:%zu: expected text, got a NUL byte", m->path,
                          (long long)line, strlen(p) + 1);
    if (n > FS_STUDY_META_LINE_MAX)
      return fs_error_set(err, "%s:%lld:1: expected a line of at most %d bytes", m->path,
                          (long long)line, FS_STUDY_META_LINE_MAX);
    if (line == 1) {
      if (strcmp(p, FS_STUDY_META_MAGIC) != 0)
        return fs_error_set(err,
                            "%s:1:1: expected \"" FS_STUDY_META_MAGIC "\" (a samples "
                            "sidecar of fennelsim)",
                            m->path);
    } else if (n > 0) {
      char *colon = strstr(p, ": ");
      if (!colon || colon == p)
        return fs_error_set(err, "%s:%lld:1: expected KEY: VALUE", m->path, (long long)line);
      if (m->count == FS_STUDY_META_KEYS)
        return fs_error_set(err, "%s:%lld:1: expected at most %d keys", m->path, (long long)line,
                            FS_STUDY_META_KEYS);
      *colon = 0;
      for (int i = 0; i < m->count; i++)
        if (strcmp(m->key[i], p) == 0)
          return fs_error_set(err, "%s:%lld:1: %s already given", m->path, (long long)line, p);
      m->key[m->count] = p;
      m->value[m->count++] = colon + 2;
    }
    p = eol + 1;
  }
  if (length == 0)
    return fs_error_set(err, "%s:1:1: expected \"" FS_STUDY_META_MAGIC "\" (the file is empty)",
                        m->path);
  return 0;
}

int fs_study_meta_read(const char *samples, fs_study_meta *m, fs_error *err) {
  memset(m, 0, sizeof *m);
  if (strcmp(samples, "-") == 0 || !(m->path = existing_sidecar(samples))) return 0;
  size_t length = 0;
  if (read_all(m->path, &m->text, &length, err) || parse(m, m->text, length, err)) {
    fs_study_meta_free(m);
    return -1;
  }
  return 1;
}

const char *fs_study_meta_get(const fs_study_meta *m, const char *key) {
  for (int i = 0; i < m->count; i++)
    if (strcmp(m->key[i], key) == 0) return m->value[i];
  return NULL;
}

/* Whether both name the same input content: then the path may differ (a
 * shard run from another directory). */
static int same_input_content(const fs_study_meta *a, const fs_study_meta *b) {
  const char *x = fs_study_meta_get(a, "input_fnv1a64"), *y = fs_study_meta_get(b, "input_fnv1a64");
  return x && y && strcmp(x, "unknown") != 0 && strcmp(x, y) == 0;
}

static int differ_in(const fs_study_meta *a, const fs_study_meta *b, const char **key,
                     const char **value_a, const char **value_b) {
  int same_content = same_input_content(a, b);
  for (int i = 0; i < a->count; i++) {
    if (strcmp(a->key[i], "shard") == 0) continue;
    if (same_content && strcmp(a->key[i], "input") == 0) continue;
    const char *other = fs_study_meta_get(b, a->key[i]);
    if (!other || strcmp(other, a->value[i]) != 0) {
      *key = a->key[i], *value_a = a->value[i], *value_b = other ? other : "none";
      return 1;
    }
  }
  return 0;
}

int fs_study_meta_differ(const fs_study_meta *a, const fs_study_meta *b, const char **key,
                         const char **value_a, const char **value_b) {
  if (differ_in(a, b, key, value_a, value_b)) return 1;
  return differ_in(b, a, key, value_b, value_a);
}

void fs_study_meta_free(fs_study_meta *m) {
  free(m->text);
  free(m->path);
  memset(m, 0, sizeof *m);
}
