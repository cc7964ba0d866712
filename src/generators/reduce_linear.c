/* reduce_linear.c: `gen reduce-linear` (being built). */
#include "generator_support.h"

fs_program *fs_generate_reduce_linear(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "reduce-linear: not built yet");
  return NULL;
}
