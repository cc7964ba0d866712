/* allgather_neighbor.c: `gen allgather-neighbor` (being built). */
#include "generator_support.h"

fs_program *fs_generate_allgather_neighbor(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "allgather-neighbor: not built yet");
  return NULL;
}
