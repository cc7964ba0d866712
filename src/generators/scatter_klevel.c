/* scatter_klevel.c: `gen scatter-klevel` (being built). */
#include "generator_support.h"

fs_program *fs_generate_scatter_klevel(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "scatter-klevel: not built yet");
  return NULL;
}
