/* allreduce_dissemination.c: `gen allreduce-dissemination` (being built). */
#include "generator_support.h"

fs_program *fs_generate_allreduce_dissemination(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "allreduce-dissemination: not built yet");
  return NULL;
}
