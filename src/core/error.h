/* error.h: one error message carried back to the caller.
 * Readers fill it with "file:line:column: what was expected"; the CLI prints
 * it and exits with status 2. No function in the library prints by itself. */
#ifndef FS_ERROR_H
#define FS_ERROR_H

typedef struct fs_error {
  char message[1024];
} fs_error;

#if defined(__GNUC__)
#define FS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define FS_COLD __attribute__((cold, noinline)) /* off the hot path */
#else
#define FS_PRINTF(a, b)
#define FS_COLD
#endif

/* Formats into err (when err is not NULL); always returns -1 so callers can
 * write `return fs_error_set(err, ...)`. */
int fs_error_set(fs_error *err, const char *format, ...) FS_PRINTF(2, 3);

#endif
