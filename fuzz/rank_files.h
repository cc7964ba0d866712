/* rank_files.h: what the fuzz targets of the per-rank trace readers share.
 * The input is split at form feeds ('\f') into up to FUZZ_RANK_FILES
 * memfd files (the readers take paths); an error must name one of them and
 * a line ("/proc/self/fd/N:LINE..."). Header-only: each target is one
 * translation unit. */
#ifndef FUZZ_RANK_FILES_H
#define FUZZ_RANK_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUZZ_RANK_FILES 4

typedef struct fuzz_rank_files {
  char names[FUZZ_RANK_FILES][32];
  const char *paths[FUZZ_RANK_FILES];
  int fds[FUZZ_RANK_FILES], count;
} fuzz_rank_files;

static inline void fuzz_rank_files_open(fuzz_rank_files *f, const uint8_t *data, size_t size) {
  size_t at = 0;
  f->count = 0;
  while (f->count < FUZZ_RANK_FILES) {
    const uint8_t *end = f->count < FUZZ_RANK_FILES - 1 ? memchr(data + at, '\f', size - at) : NULL;
    size_t n = end ? (size_t)(end - (data + at)) : size - at;
    int fd = memfd_create("rank", 0);
    if (fd < 0) abort();
    if (n && write(fd, data + at, n) != (ssize_t)n) abort();
    snprintf(f->names[f->count], sizeof f->names[f->count], "/proc/self/fd/%d", fd);
    f->paths[f->count] = f->names[f->count];
    f->fds[f->count++] = fd;
    if (!end) break;
    at += n + 1;
  }
}

/* Does message start with one of the files' names, a colon and a digit? */
static inline int fuzz_rank_files_named(const fuzz_rank_files *f, const char *message) {
  for (int i = 0; i < f->count; i++) {
    size_t n = strlen(f->names[i]);
    if (strncmp(message, f->names[i], n) == 0 && message[n] == ':' && message[n + 1] >= '0' &&
        message[n + 1] <= '9')
      return 1;
  }
  return 0;
}

static inline void fuzz_rank_files_close(fuzz_rank_files *f) {
  for (int i = 0; i < f->count; i++) close(f->fds[i]);
}

#endif
