/* alltoall_bruck.c: `gen alltoall-bruck` (being built). */
#include "generator_support.h"

fs_program *fs_generate_alltoall_bruck(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "alltoall-bruck: not built yet");
  return NULL;
}
