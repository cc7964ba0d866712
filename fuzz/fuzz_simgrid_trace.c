/* fuzz_simgrid_trace.c: libFuzzer target for the SimGrid time-independent
 * trace reader. The input is one file, or up to 4 per-rank files when it
 * holds form feeds ('\f'), written to memfd files (the reader takes paths).
 * Every input must either give a trace that keeps the reader's promises
 * (kinds, peers and roots inside the world, request ids and lists in range,
 * no negative sizes or times) or an error naming one of the files and a line
 * ("/proc/self/fd/N:LINE..."). Anything else is a bug. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rank_files.h"
#include "trace/trace_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in_world(const fs_trace *t, int32_t peer) {
  return peer == FS_TRACE_ANY || peer == FS_TRACE_UNKNOWN || peer == FS_TRACE_PROC_NULL ||
         (peer >= 0 && peer < t->ranks);
}

static int broken(const fs_trace *t, int32_t r) {
  const fs_trace_rank *tr = &t->rank[r];
  for (int64_t i = 0; i < tr->count; i++) {
    const fs_call *c = &tr->calls[i];
    if (c->kind >= FS_CALL_KINDS || c->comm != FS_COMM_WORLD) return 1;
    if (!in_world(t, c->peer) || !in_world(t, c->root)) return 1;
    if (c->request < -1 || c->request >= tr->count) return 1;
    if (c->list_count < 0 || c->list_at < 0 || (int64_t)c->list_at + c->list_count > tr->list_used)
      return 1;
    if (c->bytes < 0 || c->recv_bytes < 0 || c->start < 0 || c->end < c->start || !(c->amount >= 0))
      return 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_rank_files files;
  fuzz_rank_files_open(&files, data, size);
  fs_error err;
  err.message[0] = 0;
  fs_trace *t = fs_simgrid_trace_read(files.paths, files.count, &err);
  if (!t) {
    if (!fuzz_rank_files_named(&files, err.message)) abort();
  } else {
    for (int32_t r = 0; r < t->ranks; r++)
      if (broken(t, r)) abort();
    fs_trace_free(t);
  }
  fuzz_rank_files_close(&files);
  return 0;
}
