/* barrier_linear.c: `gen barrier-linear` (being built). */
#include "generator_support.h"

fs_program *fs_generate_barrier_linear(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "barrier-linear: not built yet");
  return NULL;
}
