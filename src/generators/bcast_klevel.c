/* bcast_klevel.c: `gen bcast-klevel` (being built). */
#include "generator_support.h"

fs_program *fs_generate_bcast_klevel(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "bcast-klevel: not built yet");
  return NULL;
}
