/* alltoall_linear.c: `gen alltoall-linear` (being built). */
#include "generator_support.h"

fs_program *fs_generate_alltoall_linear(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "alltoall-linear: not built yet");
  return NULL;
}
