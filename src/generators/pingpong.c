/* pingpong.c: `gen pingpong`: R round trips of S bytes between ranks 0 and 1
 * (Fennel thesis Fig. 4.12). Round r: ping_r (0 to 1) after pong_{r-1},
 * pong_r (1 to 0) after ping_r arrives; under hockney R rounds take
 * 2R(alpha + beta*S). No collective: the data flow records none
 * (FS_COLLECTIVE_NONE). */
#include "generators/generator_support.h"

static const char NAME[] = "pingpong";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (o->ranks != 2) return fs_error_set(err, "%s needs exactly 2 ranks, not %d", NAME, o->ranks);
  if (o->rounds < 1)
    return fs_error_set(err, "%s: --rounds must be at least 1, not %d", NAME, o->rounds);
  return 0;
}

fs_program *fs_generate_pingpong(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int64_t tasks = 2 + 2 * (int64_t)o->rounds, dependencies = 2 * (int64_t)o->rounds + 1;
  fs_program *p = fs_gen_begin(NAME, 2, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t start = fs_gen_label(p, "start"), ping = fs_gen_label(p, "ping"),
          pong = fs_gen_label(p, "pong");
  int32_t start0 = fs_gen_add(p, FS_START, 0, start), start1 = fs_gen_add(p, FS_START, 1, start);
  int failed = start0 < 0 || start1 < 0 || fs_gen_flow_begin(o, FS_COLLECTIVE_NONE, 0, 1, o->size);
  int32_t previous = start0; /* what rank 0 waits for before its next ping */
  for (int32_t r = 0; r < o->rounds && !failed; r++) {
    int32_t ping_r = fs_gen_put(p, 0, 1, o->size, ping);
    failed |= ping_r < 0 || fs_program_depend(p, ping_r, previous, 0);
    int32_t pong_r = fs_gen_put(p, 1, 0, o->size, pong);
    failed |= pong_r < 0 || fs_program_depend(p, pong_r, ping_r, 0);
    if (r == 0) failed |= fs_program_depend(p, pong_r, start1, 0);
    previous = pong_r;
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
