/* gather_linear.c: `gen gather-linear` (being built). */
#include "generator_support.h"

fs_program *fs_generate_gather_linear(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "gather-linear: not built yet");
  return NULL;
}
