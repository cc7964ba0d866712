/* allreduce_smp.c: `gen allreduce-smp` (being built). */
#include "generator_support.h"

fs_program *fs_generate_allreduce_smp(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "allreduce-smp: not built yet");
  return NULL;
}
