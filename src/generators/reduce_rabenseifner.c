/* reduce_rabenseifner.c: `gen reduce-rabenseifner` (being built). */
#include "generator_support.h"

fs_program *fs_generate_reduce_rabenseifner(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "reduce-rabenseifner: not built yet");
  return NULL;
}
