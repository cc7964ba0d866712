/* error.h: one error message carried back to the caller.
 * Readers fill it with "file:line:column: what was expected"; the CLI prints
 * it and exits with status 2. Only the progress bar writes by itself, and
 * only to the stream it is given. */
#ifndef FS_ERROR_H
#define FS_ERROR_H

#include <stddef.h>
#include <stdint.h>

typedef struct fs_error {
  char message[1024];
} fs_error;

#if defined(__GNUC__)
#define FS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define FS_COLD __attribute__((cold, noinline))         /* off the hot path */
#define FS_INLINE inline __attribute__((always_inline)) /* folded into each caller */
#define FS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define FS_PRINTF(a, b)
#define FS_COLD
#define FS_INLINE inline
#define FS_UNLIKELY(x) (x)
#endif

/* Formats into err (when err is not NULL); always returns -1 so callers can
 * write `return fs_error_set(err, ...)`. */
int fs_error_set(fs_error *err, const char *format, ...) FS_PRINTF(2, 3);

/* The one message for "too large" (an input whose run needs more memory
 * than the limit: bad input, exit status 2 at the command line): "too
 * large: WHAT needs N bytes (limit L bytes)"; returns -1. */
int fs_error_too_large(fs_error *err, const char *what, int64_t bytes, int64_t limit);
/* Whether err's message (perhaps behind a "FILE:LINE: " prefix) says too large. */
int fs_error_is_too_large(const fs_error *err);
/* "out of memory: WHAT needs N bytes" (the allocation failed); -1. */
int fs_error_out_of_memory(fs_error *err, const char *what, int64_t bytes);
/* Whether err's message says an allocation failed: "out of memory", or
 * the C library's words for ENOMEM (strerror) after a file's name. */
int fs_error_is_out_of_memory(const fs_error *err);

/* The memory a run may use: the machine's physical memory, or the
 * process's address-space limit (ulimit -v, RLIMIT_AS) when lower. */
int64_t fs_memory_limit(void);
/* Asks for huge pages under a large array about to be filled: a fault per
 * 2 MiB instead of per 4 KiB, which matters where faults are slow (on the
 * development machine's virtual machine a 4 KiB fault costs about 12 us,
 * 3 s a GiB, and its huge pages 0.06-1.9 s a GiB). Only the array's
 * 2 MiB-aligned middle can have them, and only arrays of FS_HUGE_PAGES_MIN
 * bytes or more are hinted. A hint: ignored where unsupported.
 * fs_allocate and fs_grow hint what they return. */
#define FS_HUGE_PAGES_MIN ((size_t)4 << 20)
void fs_memory_huge_pages(void *array, size_t bytes);
/* Gives back the page-aligned pages of a read-only file mapping (read from
 * the file again if touched). A hint. */
void fs_memory_drop_pages(void *pages, size_t bytes);
/* Maps the whole pages that [array, array + bytes) spans ahead of their
 * first touch, contents untouched (MADV_POPULATE_WRITE): 0, or -1 where
 * the kernel cannot (before Linux 5.14: then the first touch maps). */
int fs_memory_populate(void *array, size_t bytes);
/* count * size bytes for `what` ("the run state of 8 ranks"): NULL with
 * err set, too large when the product overflows or exceeds
 * fs_memory_limit(), out of memory when malloc fails. count 0 allocates
 * one byte (never NULL on success). */
void *fs_allocate(int64_t count, int64_t size, const char *what, fs_error *err);
/* Grows *array (of `size`-byte items, *capacity of them) to hold at least
 * `need`, doubling from `first`; the capacity stays within int32. 0, or -1
 * (the array and capacity as they were) when out of memory or past int32. */
int fs_grow(void *array, int32_t *capacity, int64_t need, size_t size, int32_t first);

#endif
