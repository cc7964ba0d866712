/* read_program.c: the opening and closing shared by the schedule readers
 * (see read_program.h). */
#include "formats/read_program.h"

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
