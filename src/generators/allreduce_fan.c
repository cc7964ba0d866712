/* allreduce_fan.c: `gen allreduce-fan` (being built). */
#include "generator_support.h"

fs_program *fs_generate_allreduce_fan(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "allreduce-fan: not built yet");
  return NULL;
}
