/* test_support.h: small helpers shared by the Check suites: running a suite,
 * temporary files, and running the fennelsim binary with captured output.
 *
 * Naming: a suite is named as its file without "test_" (test_smp.c: "smp");
 * test cases (tcase_create) and tests (START_TEST) are lowercase snake_case,
 * a test's name saying what holds ("cpu_is_shared_unless_concurrent"), with
 * no "test_" prefix ("_case" where the bare name is taken). Helpers shared
 * by suites are fs_test_* here, in model_support.h or generator_support.h,
 * by subject. */
#ifndef FS_TEST_SUPPORT_H
#define FS_TEST_SUPPORT_H

#include <check.h>
#include <stddef.h>

/* A passing assertion records nothing. Check's own ck_assert_msg writes
 * each passing assertion's place to its message file, one system call an
 * assertion, which was most of the time of suites that assert in loops
 * over millions of tasks. A crash is still placed: by the sanitizers, or
 * by mark_point() where a suite wants it. */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
  ((expr) ? (void)0              \
          : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

/* Runs the suite and returns a process exit status (0 when all passed). */
int fs_test_run(Suite *suite);
/* A fresh path in a private temporary directory, ending with suffix.
 * The caller frees it. */
char *fs_test_temp_path(const char *suffix);
/* Writes length bytes (or strlen(text) when length is 0). Returns 0 on success. */
int fs_test_write_file(const char *path, const char *text, size_t length);
/* Whole file, NUL-terminated; NULL if missing. Caller frees. */
char *fs_test_read_file(const char *path, size_t *length);
/* Runs `fennelsim ARGS` through /bin/sh with stdout and stderr captured into
 * *out and *err (each may be NULL; caller frees). Returns the exit status. */
int fs_test_fennelsim(const char *arguments, char **out, char **err);
/* fs_test_fennelsim with printf-style arguments. */
int fs_test_fennelsimf(char **out, char **err, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* fs_test_fennelsimf that frees the previous *out and *err first, so a
 * suite keeps one pair. */
int fs_test_cli(char **out, char **err, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* `fennelsim("run %s", dag)` in a suite that keeps `static char *out, *err;`. */
#define fennelsim(...) fs_test_cli(&out, &err, __VA_ARGS__)
/* Fails the test unless part occurs in text (the text shown). */
void fs_test_contains(const char *text, const char *part);
/* How many times part occurs in text, without overlap. */
int fs_test_occurrences(const char *text, const char *part);

#endif
