/* allreduce_rabenseifner.c: `gen allreduce-rabenseifner` (being built). */
#include "generator_support.h"

fs_program *fs_generate_allreduce_rabenseifner(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "allreduce-rabenseifner: not built yet");
  return NULL;
}
