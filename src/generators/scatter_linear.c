/* scatter_linear.c: `gen scatter-linear` (being built). */
#include "generator_support.h"

fs_program *fs_generate_scatter_linear(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "scatter-linear: not built yet");
  return NULL;
}
