/* allgather_bruck.c: `gen allgather-bruck` (being built). */
#include "generator_support.h"

fs_program *fs_generate_allgather_bruck(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "allgather-bruck: not built yet");
  return NULL;
}
