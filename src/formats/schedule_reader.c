/* schedule_reader.c: picks the reader by file name; opens its input. */
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

fs_program *fs_schedule_read_showing(const char *path, FILE *progress, fs_error *err) {
  fs_text_input *in = fs_text_input_open_file(path, err);
  if (!in) return NULL;
  if (progress) fs_text_input_show_progress(in, progress);
  fs_program *p = fs_schedule_is_goal(path) ? fs_goal_read_input(in, err)
                                            : fs_dag_read_input(in, err);
  fs_text_input_close(in);
  return p;
}

fs_program *fs_read_program_file(fs_program_reader read, const char *path, fs_error *err) {
  fs_text_input *in = fs_text_input_open_file(path, err);
  if (!in) return NULL;
  fs_program *p = read(in, err);
  fs_text_input_close(in);
  return p;
}

fs_program *fs_read_program_memory(fs_program_reader read, const char *data, size_t length,
                                   const char *display_name, fs_error *err) {
  fs_text_input *in = fs_text_input_open_memory(data, length, display_name);
  if (!in) {
    fs_error_set(err, "%s: out of memory", display_name);
    return NULL;
  }
  fs_program *p = read(in, err);
  fs_text_input_close(in);
  return p;
}

fs_program *fs_read_program_finalize(fs_program **program, const char *name, fs_error *err) {
  fs_error inner;
  if (fs_program_finalize(*program, &inner)) {
    fs_error_set(err, "%s: %s", name, inner.message);
    return NULL;
  }
  fs_program *p = *program;
  *program = NULL;
  return p;
}
