/* reduce_smp.c: `gen reduce-smp` (being built). */
#include "generator_support.h"

fs_program *fs_generate_reduce_smp(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "reduce-smp: not built yet");
  return NULL;
}
