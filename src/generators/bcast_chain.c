/* bcast_chain.c: `gen bcast-chain` (being built). */
#include "generator_support.h"

fs_program *fs_generate_bcast_chain(const fs_generator_options *o, fs_error *err) {
  (void)o;
  fs_error_set(err, "bcast-chain: not built yet");
  return NULL;
}
