/* barrier_nway.c: `gen barrier-nway` (being built). */
#include "generator_support.h"

fs_program *fs_generate_barrier_nway(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "barrier-nway: not built yet");
  return NULL;
}
