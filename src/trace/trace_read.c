/* trace_read.c: finds a recording's files and its format, then hands them
 * to the format's reader (trace_readers.h).
 *
 * A directory holds one recording: liballprof's pmpi-trace-rank-N.txt,
 * fennelsim's rank-N.fstrace[.gz], or an OTF2 archive (its *.otf2 anchor).
 * Files may also be named one by one: the first line tells fennelsim's and
 * liballprof's formats apart, *.otf2 is an OTF2 anchor, anything else whose
 * first line reads "<rank> <action>" is SimGrid's time-independent format.
 * Per-rank files are put in rank order by the number in their names. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/text_input.h"
#include "trace/trace_readers.h"

enum { FORMAT_NONE, FORMAT_FENNEL, FORMAT_LIBALLPROF, FORMAT_OTF2, FORMAT_SIMGRID };

#define MAX_TRACE_FILES (1 << 22) /* ranks of one recording */

static int ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), m = strlen(suffix);
  return n >= m && strcmp(text + n - m, suffix) == 0;
}

static int is_directory(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The rank in a per-rank file name: pmpi-trace-rank-N.txt or
 * rank-N.fstrace[.gz]; -1 when the name is not one. */
static int64_t rank_in_name(const char *name, int *format) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  const char *prefix = NULL, *digits;
  if (strncmp(base, "pmpi-trace-rank-", 16) == 0)
    prefix = base + 16, *format = FORMAT_LIBALLPROF;
  else if (strncmp(base, "rank-", 5) == 0)
    prefix = base + 5, *format = FORMAT_FENNEL;
  if (!prefix) return -1;
  int64_t rank = 0;
  for (digits = prefix; *digits >= '0' && *digits <= '9' && rank < MAX_TRACE_FILES; digits++)
    rank = rank * 10 + (*digits - '0');
  if (digits == prefix || rank >= MAX_TRACE_FILES) return -1;
  if (*format == FORMAT_LIBALLPROF && strcmp(digits, ".txt") != 0) return -1;
  if (*format == FORMAT_FENNEL && strcmp(digits, ".fstrace") != 0 &&
      strcmp(digits, ".fstrace.gz") != 0)
    return -1;
  return rank;
}

/* The format a file's first line says, FORMAT_NONE when it says none;
 * -1 with err set when memory ran out before it could tell. */
static int sniff(const char *path, fs_error *err) {
  if (ends_with(path, ".otf2")) return FORMAT_OTF2;
  fs_text_input *in = fs_text_input_open_file(path, err);
  if (!in) return fs_error_is_out_of_memory(err) ? -1 : FORMAT_NONE;
  const char *line;
  size_t length;
  int format = FORMAT_NONE;
  while (format == FORMAT_NONE && fs_text_input_next_line(in, &line, &length, err) == 1) {
    if (length == 0) continue;
    if (length >= strlen(FS_FENNEL_TRACE_MAGIC) &&
        memcmp(line, FS_FENNEL_TRACE_MAGIC, strlen(FS_FENNEL_TRACE_MAGIC)) == 0)
      format = FORMAT_FENNEL;
    else if (length >= strlen(FS_LIBALLPROF_MAGIC) &&
             memcmp(line, FS_LIBALLPROF_MAGIC, strlen(FS_LIBALLPROF_MAGIC)) == 0)
      format = FORMAT_LIBALLPROF;
    else {
      /* SimGrid: "<rank> <action>" with a lowercase action */
      size_t i = 0;
      while (i < length && line[i] >= '0' && line[i] <= '9') i++;
      if (i > 0 && i + 1 < length && line[i] == ' ' && line[i + 1] >= 'a' && line[i + 1] <= 'z')
        format = FORMAT_SIMGRID;
      break;
    }
  }
  fs_text_input_close(in);
  return format;
}

int fs_trace_is_trace(const char *path) {
  fs_error err; /* out of memory: a trace, for fs_trace_read to say so */
  return is_directory(path) || sniff(path, &err) != FORMAT_NONE;
}

typedef struct file_list {
  char **path;
  int64_t *rank;
  int count, capacity;
} file_list;

static void free_files(file_list *f) {
  for (int i = 0; i < f->count; i++) free(f->path[i]);
  free(f->path);
  free(f->rank);
}

static int add_file(file_list *f, const char *directory, const char *name, int64_t rank) {
  if (f->count == MAX_TRACE_FILES) return -1;
  if (f->count == f->capacity) {
    int capacity = f->capacity ? f->capacity * 2 : 16;
    char **path = realloc(f->path, (size_t)capacity * sizeof *path);
    if (path) f->path = path;
    int64_t *ranks = path ? realloc(f->rank, (size_t)capacity * sizeof *ranks) : NULL;
    if (!ranks) return -1;
    f->rank = ranks;
    f->capacity = capacity;
  }
  size_t n = (directory ? strlen(directory) + 1 : 0) + strlen(name) + 1;
  char *full = malloc(n);
  if (!full) return -1;
  snprintf(full, n, "%s%s%s", directory ? directory : "", directory ? "/" : "", name);
  f->path[f->count] = full;
  f->rank[f->count++] = rank;
  return 0;
}

/* Sorts by rank, equal ranks in listing order (check_ranks names both
 * files of a duplicate): a merge sort, since readdir lists a directory of
 * 2^20 per-rank files in hash order and an insertion sort took minutes. */
static int sort_by_rank(file_list *f) {
  int n = f->count;
  if (n < 2) return 0;
  char **path = malloc((size_t)n * sizeof *path);
  int64_t *rank = malloc((size_t)n * sizeof *rank);
  if (!path || !rank) {
    free(path), free(rank);
    return -1;
  }
  char **from_path = f->path, **to_path = path;
  int64_t *from_rank = f->rank, *to_rank = rank;
  for (int width = 1; width < n; width *= 2) {
    for (int low = 0; low < n; low += 2 * width) {
      int middle = low + width < n ? low + width : n;
      int high = middle + width < n ? middle + width : n;
      int a = low, b = middle, k = low;
      while (a < middle || b < high) {
        int take_a = b >= high || (a < middle && from_rank[a] <= from_rank[b]);
        int i = take_a ? a++ : b++;
        to_path[k] = from_path[i], to_rank[k++] = from_rank[i];
      }
    }
    char **swap_path = from_path;
    from_path = to_path, to_path = swap_path;
    int64_t *swap_rank = from_rank;
    from_rank = to_rank, to_rank = swap_rank;
  }
  if (from_path != f->path) {
    memcpy(f->path, from_path, (size_t)n * sizeof *path);
    memcpy(f->rank, from_rank, (size_t)n * sizeof *rank);
  }
  free(path), free(rank);
  return 0;
}

/* The per-rank files must be ranks 0..n-1, once each. */
static int check_ranks(const file_list *f, const char *where, fs_error *err) {
  for (int i = 0; i < f->count; i++) {
    if (f->rank[i] == i) continue;
    if (i > 0 && f->rank[i] == f->rank[i - 1])
      return fs_error_set(err, "%s: two files for rank %lld (%s and %s)", where,
                          (long long)f->rank[i], f->path[i - 1], f->path[i]);
    return fs_error_set(err, "%s: no file for rank %d (the next one is %s)", where, i, f->path[i]);
  }
  return 0;
}

static int list_directory(const char *directory, file_list *f, int *format, fs_error *err) {
  DIR *d = opendir(directory);
  if (!d) return fs_error_set(err, "%s: cannot open the directory", directory);
  struct dirent *entry;
  int status = 0;
  *format = FORMAT_NONE;
  char *anchor = NULL;
  while (status == 0 && (entry = readdir(d))) {
    int kind = FORMAT_NONE;
    int64_t rank = rank_in_name(entry->d_name, &kind);
    if (rank < 0 && ends_with(entry->d_name, ".otf2")) {
      if (!anchor) anchor = strdup(entry->d_name);
      continue;
    }
    if (rank < 0) continue;
    if (*format != FORMAT_NONE && kind != *format) {
      status = fs_error_set(err, "%s: holds both liballprof and fennelsim traces", directory);
      break;
    }
    *format = kind;
    if (add_file(f, directory, entry->d_name, rank))
      status = fs_error_set(err, "%s: out of memory", directory);
  }
  closedir(d);
  if (status == 0 && *format == FORMAT_NONE && anchor) {
    *format = FORMAT_OTF2;
    if (add_file(f, directory, anchor, 0))
      status = fs_error_set(err, "%s: out of memory", directory);
  }
  free(anchor);
  if (status == 0 && *format == FORMAT_NONE)
    status =
        fs_error_set(err,
                     "%s: no trace in it (expected pmpi-trace-rank-N.txt, rank-N.fstrace.gz or an "
                     "OTF2 archive's .otf2 anchor)",
                     directory);
  return status;
}

fs_trace *fs_trace_read(const char *const *paths, int count, fs_error *err) {
  if (count < 1) {
    fs_error_set(err, "no trace given");
    return NULL;
  }
  file_list files = {0};
  int format = FORMAT_NONE;
  fs_trace *trace = NULL;
  if (count == 1 && is_directory(paths[0])) {
    if (list_directory(paths[0], &files, &format, err)) goto done;
  } else {
    format = sniff(paths[0], err);
    if (format < 0) goto done;
    if (format == FORMAT_NONE) {
      fs_error_set(err,
                   "%s:1:1: not a trace (expected a fennelsim or liballprof header, an OTF2 "
                   "anchor, "
                   "or SimGrid's \"<rank> <action>\" lines)",
                   paths[0]);
      goto done;
    }
    for (int i = 0; i < count; i++) {
      int kind = FORMAT_NONE;
      int64_t rank = rank_in_name(paths[i], &kind);
      if (add_file(&files, NULL, paths[i], rank < 0 || kind != format ? i : rank)) {
        fs_error_set(err, "out of memory");
        goto done;
      }
    }
  }
  if (format == FORMAT_OTF2) {
    if (files.count != 1) {
      fs_error_set(err, "%s: an OTF2 trace is read from its one anchor file", files.path[1]);
      goto done;
    }
    trace = fs_otf2_read(files.path[0], err);
    goto done;
  }
  if (sort_by_rank(&files)) {
    fs_error_set(err, "out of memory");
    goto done;
  }
  if (check_ranks(&files, count == 1 ? paths[0] : "trace", err)) goto done;
  const char *const *list = (const char *const *)files.path;
  if (format == FORMAT_FENNEL)
    trace = fs_fennel_trace_read(list, files.count, err);
  else if (format == FORMAT_LIBALLPROF)
    trace = fs_liballprof_read(list, files.count, err);
  else
    trace = fs_simgrid_trace_read(list, files.count, err);
done:
  free_files(&files);
  if (trace) fs_trace_trim(trace);
  return trace;
}
