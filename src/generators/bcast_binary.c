/* bcast_binary.c: `gen bcast-binary` (being built). */
#include "generator_support.h"

fs_program *fs_generate_bcast_binary(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "bcast-binary: not built yet");
  return NULL;
}
