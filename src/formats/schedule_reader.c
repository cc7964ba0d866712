/* schedule_reader.c: picks the reader by file name. */
#include "schedule_reader.h"

#include <string.h>

#include "formats/dag_reader.h"
#include "formats/goal_reader.h"

static int ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), k = strlen(suffix);
  return n >= k && strcmp(text + n - k, suffix) == 0;
}

int fs_schedule_is_goal(const char *path) {
  return ends_with(path, ".goal") || ends_with(path, ".goal.gz");
}

fs_program *fs_schedule_read(const char *path, fs_error *err) {
  return fs_schedule_is_goal(path) ? fs_goal_read_file(path, err) : fs_dag_read_file(path, err);
}
