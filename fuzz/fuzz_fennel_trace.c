/* fuzz_fennel_trace.c: libFuzzer target for the reader of fennelsim's own
 * trace format. The input holds up to 4 rank files separated by form feeds
 * ('\f'); rank files are read from memory as rank-N.fstrace. Every input
 * must either give a trace that keeps the reader's promises (kinds known,
 * communicators and peers in range, lists inside the pool, times
 * non-decreasing, a finalize last) or an error that names a rank file and a
 * line ("rank-N.fstrace:LINE..."). Anything else (a crash, a leak, a
 * sanitizer report, an error without position, a broken promise) is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/text_input.h"
#include "trace/fennel_trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RANKS 4

static int rank_ok(int32_t rank, int32_t size, int any) {
  return (rank >= 0 && rank < size) || rank == FS_TRACE_PROC_NULL ||
         (any && rank == FS_TRACE_ANY) || rank == FS_TRACE_UNKNOWN;
}

/* A call the reader could not have made. */
static int broken(const fs_trace *t, int32_t r, const fs_call *c, fs_time previous_end) {
  const fs_trace_rank *tr = &t->rank[r];
  if (c->kind >= FS_CALL_KINDS || c->start < previous_end || c->end < c->start) return 1;
  if (c->comm < 0 || c->comm >= t->comms) return 1;
  if (c->new_comm != FS_TRACE_UNKNOWN && (c->new_comm < 0 || c->new_comm >= t->comms)) return 1;
  int32_t size = t->comm[c->comm].size;
  if (!rank_ok(c->peer, size, 1) || !rank_ok(c->recv_peer, size, 1) || !rank_ok(c->source, size, 0))
    return 1;
  if (c->root != FS_TRACE_UNKNOWN && (c->root < 0 || c->root >= size)) return 1;
  if (c->list_count < 0 || c->list_at < 0 || (int64_t)c->list_at + c->list_count > tr->list_used)
    return 1;
  if (c->completed_count < 0 || c->completed_at < 0 ||
      (int64_t)c->completed_at + c->completed_count > tr->list_used)
    return 1;
  return c->bytes < 0 || c->recv_bytes < 0;
}

static int trace_broken(const fs_trace *t) {
  for (int32_t r = 0; r < t->ranks; r++) {
    const fs_trace_rank *tr = &t->rank[r];
    if (tr->count < 2 || tr->calls[0].kind != FS_CALL_INIT ||
        tr->calls[tr->count - 1].kind != FS_CALL_FINALIZE)
      return 1;
    fs_time previous_end = 0;
    for (int64_t i = 0; i < tr->count; i++) {
      if (broken(t, r, &tr->calls[i], previous_end)) return 1;
      previous_end = tr->calls[i].end;
    }
  }
  for (int32_t c = 0; c < t->comms; c++)
    for (int32_t m = 0; m < t->comm[c].size; m++)
      if (t->comm[c].members[m] < 0 || t->comm[c].members[m] >= t->ranks) return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_text_input *inputs[MAX_RANKS];
  const char *text = (const char *)data, *end = text + size;
  int count = 0;
  char name[32];
  while (count < MAX_RANKS) {
    const char *stop = count + 1 < MAX_RANKS ? memchr(text, '\f', (size_t)(end - text)) : NULL;
    size_t length = stop ? (size_t)(stop - text) : (size_t)(end - text);
    strcpy(name, "rank-0.fstrace");
    name[5] = (char)('0' + count);
    inputs[count++] = fs_text_input_open_memory(text, length, name);
    if (!inputs[count - 1]) abort();
    if (!stop) break;
    text = stop + 1;
  }
  fs_error err;
  err.message[0] = 0;
  fs_trace *t = fs_fennel_trace_read_inputs(inputs, count, &err);
  for (int i = 0; i < count; i++) fs_text_input_close(inputs[i]);
  if (!t) {
    if (strncmp(err.message, "rank-", 5) != 0 || strncmp(err.message + 6, ".fstrace:", 9) != 0 ||
        err.message[15] < '0' || err.message[15] > '9')
      abort();
    return 0;
  }
  if (trace_broken(t)) abort();
  fs_trace_free(t);
  return 0;
}
