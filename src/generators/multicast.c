/* multicast.c: `gen multicast`: rank 0 puts S bytes to ranks 1..b (N = b+1
 * ranks), in that order, all issued after its start. Under pipelined the
 * makespan is alpha_p + b*alpha_r + beta*S: the RM stage's building block.
 * Its data flow is a broadcast from 0 of one S-byte block, each put
 * writing the target's buffer (FS_FLOW_PUT_WRITE). */
#include "generators/generator_support.h"

static const char NAME[] = "multicast";

fs_program *fs_generate_multicast(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return NULL;
  int32_t n = o->ranks;
  int64_t tasks = 2 * (int64_t)n - 1, dependencies = n - 1;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t start = fs_gen_label(p, "start"), multicast = fs_gen_label(p, "multicast");
  int failed = fs_gen_flow_begin(o, FS_COLLECTIVE_BCAST, 0, 1, o->size);
  for (int32_t rank = 0; rank < n; rank++) failed |= fs_gen_add(p, FS_START, rank, start) < 0;
  const int32_t root_start = 0; /* starts were added first, rank by rank */
  for (int32_t to = 1; to < n && !failed; to++) {
    int32_t put = fs_gen_put(p, 0, to, o->size, multicast);
    failed |= put < 0 || fs_program_depend(p, put, root_start, 0) ||
              fs_gen_flow_range(o, put, FS_FLOW_PUT_WRITE, 0, 1);
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
