/* bcast_smp.c: `gen bcast-smp` (being built). */
#include "generator_support.h"

fs_program *fs_generate_bcast_smp(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "bcast-smp: not built yet");
  return NULL;
}
