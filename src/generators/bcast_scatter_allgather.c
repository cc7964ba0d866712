/* bcast_scatter_allgather.c: `gen bcast-scatter-allgather` (being built). */
#include "generator_support.h"

fs_program *fs_generate_bcast_scatter_allgather(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "bcast-scatter-allgather: not built yet");
  return NULL;
}
