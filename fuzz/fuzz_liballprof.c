/* fuzz_liballprof.c: libFuzzer target for the liballprof trace reader. The
 * input is split at form feeds ('\f') into up to 4 rank files (memfd files,
 * as the reader takes paths). Every input must either give a trace that
 * keeps the reader's promises (kinds, communicators, peers and roots inside
 * their communicator, request ids and lists in range) or an error naming one
 * of the files and a line ("/proc/self/fd/N:LINE..."). Anything else (a
 * crash, a leak, a sanitizer report, a broken promise) is a bug. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rank_files.h"
#include "trace/trace_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in_comm(const fs_trace *t, const fs_call *c, int32_t peer) {
  return peer == FS_TRACE_ANY || peer == FS_TRACE_UNKNOWN || peer == FS_TRACE_PROC_NULL ||
         (peer >= 0 && peer < t->comm[c->comm].size);
}

static int broken(const fs_trace *t, int32_t r) {
  const fs_trace_rank *tr = &t->rank[r];
  for (int64_t i = 0; i < tr->count; i++) {
    const fs_call *c = &tr->calls[i];
    if (c->kind >= FS_CALL_KINDS || c->comm < 0 || c->comm >= t->comms) return 1;
    if (!in_comm(t, c, c->peer) || !in_comm(t, c, c->recv_peer) || !in_comm(t, c, c->root))
      return 1;
    if (c->request < -1 || c->request >= tr->count) return 1;
    if (c->list_count < 0 || c->list_at < 0 || (int64_t)c->list_at + c->list_count > tr->list_used)
      return 1;
    if (c->bytes < 0 || c->recv_bytes < 0) return 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_rank_files files;
  fuzz_rank_files_open(&files, data, size);
  fs_error err;
  err.message[0] = 0;
  fs_trace *t = fs_liballprof_read(files.paths, files.count, &err);
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
