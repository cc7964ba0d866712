/* test_support.c: see test_support.h. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "test_support.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *temp_directory(void);

int fs_test_run(Suite *suite) {
  temp_directory(); /* made here, the forked tests share it and this process removes it */
  SRunner *runner = srunner_create(suite);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static char directory[64];
static pid_t directory_owner;

static int remove_entry(const char *path, const struct stat *status, int flag, struct FTW *walk) {
  (void)status, (void)flag, (void)walk;
  remove(path);
  return 0;
}

/* At exit of the process that made it (not of the forked tests sharing it):
 * the directory and everything the tests left in it. */
static void remove_temp_directory(void) {
  if (directory[0] && getpid() == directory_owner)
    nftw(directory, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *temp_directory(void) {
  if (!directory[0]) {
    strcpy(directory, "/tmp/fennelsim-test-XXXXXX");
    if (!mkdtemp(directory)) abort();
    directory_owner = getpid();
    atexit(remove_temp_directory);
  }
  return directory;
}

char *fs_test_temp_path(const char *suffix) {
  static int counter;
  size_t n = strlen(temp_directory()) + strlen(suffix) + 32;
  char *path = malloc(n);
  snprintf(path, n, "%s/f%d-%d%s", temp_directory(), (int)getpid(), counter++, suffix);
  return path;
}

int fs_test_write_file(const char *path, const char *text, size_t length) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  if (length == 0) length = strlen(text);
  size_t written = fwrite(text, 1, length, f);
  return fclose(f) == 0 && written == length ? 0 : -1;
}

char *fs_test_read_file(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t capacity = 4096, used = 0;
  char *data = malloc(capacity);
  size_t n;
  while ((n = fread(data + used, 1, capacity - used - 1, f)) > 0) {
    used += n;
    if (capacity - used < 2) data = realloc(data, capacity *= 2);
  }
  fclose(f);
  data[used] = 0;
  if (length) *length = used;
  return data;
}

int fs_test_fennelsim(const char *arguments, char **out, char **err) {
  char *out_path = fs_test_temp_path(".out"), *err_path = fs_test_temp_path(".err");
  size_t n = strlen(arguments) + strlen(out_path) + strlen(err_path) + 256;
  char *command = malloc(n);
  /* </dev/null first, so that a redirection in arguments wins */
  snprintf(command, n, "cd '%s' && '%s' </dev/null %s >'%s' 2>'%s'", FENNELSIM_SOURCE_ROOT,
           FENNELSIM_BINARY, arguments, out_path, err_path);
  int status = system(command);
  free(command);
  if (out) *out = fs_test_read_file(out_path, NULL);
  if (err) *err = fs_test_read_file(err_path, NULL);
  remove(out_path);
  remove(err_path);
  free(out_path);
  free(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int fennelsim_v(char **out, char **err, const char *format, va_list ap) {
  char arguments[4096];
  int n = vsnprintf(arguments, sizeof arguments, format, ap);
  ck_assert_msg(n >= 0 && (size_t)n < sizeof arguments, "fennelsim arguments too long");
  return fs_test_fennelsim(arguments, out, err);
}

int fs_test_fennelsimf(char **out, char **err, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  int status = fennelsim_v(out, err, format, ap);
  va_end(ap);
  return status;
}

int fs_test_cli(char **out, char **err, const char *format, ...) {
  free(*out), free(*err);
  *out = *err = NULL;
  va_list ap;
  va_start(ap, format);
  int status = fennelsim_v(out, err, format, ap);
  va_end(ap);
  return status;
}

void fs_test_contains(const char *text, const char *part) {
  ck_assert_msg(text && strstr(text, part), "expected '%s' in:\n%s", part, text ? text : "(null)");
}

int fs_test_occurrences(const char *text, const char *part) {
  int n = 0;
  for (const char *at = text; (at = strstr(at, part)) != NULL; at += strlen(part)) n++;
  return n;
}
