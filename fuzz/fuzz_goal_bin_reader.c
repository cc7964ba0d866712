/* fuzz_goal_bin_reader.c: libFuzzer target for the reader of LogGOPSim's
 * binary GOAL (.bin). Every input must either give a finalized program that
 * keeps the reader's promises (send, recv and calc only; ranks and peers in
 * range; sizes and times within the limits; no names) and that a small
 * simulation runs (simulate.h), or an error that names the input and a
 * byte ("fuzz:byte N: ..."). A crash, a leak, a sanitizer report, an error
 * without position or a broken promise is a bug. The seeds in
 * fuzz/corpus/goal_bin are tests/goal_bin_writer.py's output. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "formats/goal_bin_reader.h"
#include "simulate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A task the reader could not have made. */
static int broken(const fs_program *p, int32_t t) {
  int kind = p->kind[t], lowest_peer = kind == FS_RECV ? FS_ANY_SOURCE : 0;
  if (kind != FS_SEND && kind != FS_RECV && kind != FS_COMPUTE) return 1;
  if (p->rank[t] < 0 || p->rank[t] >= p->ranks) return 1;
  if (kind != FS_COMPUTE && (p->peer[t] < lowest_peer || p->peer[t] >= p->ranks)) return 1;
  if (kind == FS_COMPUTE && (p->peer[t] != -1 || fs_task_tag(p, t) || fs_task_nic(p, t))) return 1;
  if (p->value[t] < 0 || p->value[t] > (kind == FS_COMPUTE ? FS_TIME_LIMIT : FS_SIZE_LIMIT))
    return 1;
  return fs_task_tag(p, t) < FS_ANY_TAG || p->name_at != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_error err;
  err.message[0] = 0;
  fs_program *p = fs_goal_bin_read_memory(data, size, "fuzz", &err);
  if (!p) {
    if (strncmp(err.message, "fuzz:byte ", 10) != 0 || err.message[10] < '0' ||
        err.message[10] > '9')
      abort();
    return 0;
  }
  if (!p->finalized) abort();
  for (int32_t t = 0; t < p->tasks; t++)
    if (broken(p, t)) abort();
  fuzz_simulate(p, size > 8 ? data[8] : 0);
  fs_program_free(p);
  return 0;
}
