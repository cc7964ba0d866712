/* error.c: formatting of fs_error messages, and the one checked allocation
 * that tells "too large" (past the memory limit: bad input) from "out of
 * memory" (the allocation failed). */
#define _DEFAULT_SOURCE /* madvise(MADV_DONTNEED): posix_madvise's is a no-op on Linux */
#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#if !defined(MADV_DONTNEED) || !defined(MADV_HUGEPAGE)
/* hidden when <features.h> came before _DEFAULT_SOURCE (the alloc_faults
 * build forces a header in first): Linux's declaration and values */
int madvise(void *address, size_t length, int advice);
#ifndef MADV_DONTNEED
#define MADV_DONTNEED 4
#endif
#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it */
#endif

#define TOO_LARGE "too large: "

int fs_error_set(fs_error *err, const char *format, ...) {
  if (err) {
    va_list ap;
    va_start(ap, format);
    vsnprintf(err->message, sizeof err->message, format, ap);
    va_end(ap);
  }
  return -1;
}

int fs_error_too_large(fs_error *err, const char *what, int64_t bytes, int64_t limit) {
  return fs_error_set(err, "%s%s needs %lld bytes (limit %lld bytes)", TOO_LARGE, what,
                      (long long)bytes, (long long)limit);
}

int fs_error_is_too_large(const fs_error *err) {
  return err && strstr(err->message, TOO_LARGE) != NULL;
}

int fs_error_out_of_memory(fs_error *err, const char *what, int64_t bytes) {
  return fs_error_set(err, "out of memory: %s needs %lld bytes", what, (long long)bytes);
}

int fs_error_is_out_of_memory(const fs_error *err) {
  return err && (strstr(err->message, "out of memory") || strstr(err->message, strerror(ENOMEM)));
}

int64_t fs_memory_limit(void) {
  int64_t limit = INT64_MAX;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && pages <= INT64_MAX / page) limit = (int64_t)pages * page;
  struct rlimit r;
  if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < (rlim_t)limit)
    limit = (int64_t)r.rlim_cur;
  return limit;
}

/* The whole pages that [array, array + bytes) spans: advice on part of a
 * mapping would split it (and realloc could no longer grow it in place:
 * mremap moves one mapping); advice on whole pages is what the kernel takes. */
static size_t page_span(const void *array, size_t bytes, uintptr_t *start) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  *start = (uintptr_t)array & ~(page - 1);
  return (size_t)((((uintptr_t)array + bytes + page - 1) & ~(page - 1)) - *start);
}

void fs_memory_huge_pages(void *array, size_t bytes) {
  uintptr_t start;
  if (!array || bytes < FS_HUGE_PAGES_MIN) return;
  size_t span = page_span(array, bytes, &start); /* before start is read */
  madvise((void *)start, span, MADV_HUGEPAGE);
}

void fs_memory_drop_pages(void *pages, size_t bytes) { madvise(pages, bytes, MADV_DONTNEED); }

int fs_memory_populate(void *array, size_t bytes) {
  uintptr_t start;
  if (!array || !bytes) return 0;
  size_t span = page_span(array, bytes, &start);
  return madvise((void *)start, span, MADV_POPULATE_WRITE) ? -1 : 0;
}

void *fs_allocate(int64_t count, int64_t size, const char *what, fs_error *err) {
  int64_t limit = fs_memory_limit();
  if (count < 0 || size < 0 || (size > 0 && count > INT64_MAX / size)) {
    fs_error_too_large(err, what, INT64_MAX, limit);
    return NULL;
  }
  int64_t bytes = count * size;
  if (bytes > limit) {
    fs_error_too_large(err, what, bytes, limit);
    return NULL;
  }
  void *block = malloc(bytes ? (size_t)bytes : 1);
  if (!block) fs_error_out_of_memory(err, what, bytes);
  fs_memory_huge_pages(block, (size_t)bytes);
  return block;
}

int fs_grow(void *array, int32_t *capacity, int64_t need, size_t size, int32_t first) {
  if (need <= *capacity) return 0;
  int64_t want = *capacity ? (int64_t)*capacity * 2 : first;
  while (want < need) want *= 2;
  if (want > INT32_MAX) return -1;
  void *bigger = realloc(*(void **)array, (size_t)want * size);
  if (!bigger) return -1;
  *(void **)array = bigger;
  *capacity = (int32_t)want;
  fs_memory_huge_pages(bigger, (size_t)want * size);
  return 0;
}
