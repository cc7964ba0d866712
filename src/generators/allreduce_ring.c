/* allreduce_ring.c: `gen allreduce-ring` (being built). */
#include "generator_support.h"

fs_program *fs_generate_allreduce_ring(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "allreduce-ring: not built yet");
  return NULL;
}
