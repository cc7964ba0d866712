/* allreduce_elimination.c: `gen allreduce-elimination` (being built). */
#include "generator_support.h"

fs_program *fs_generate_allreduce_elimination(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "allreduce-elimination: not built yet");
  return NULL;
}
