/* trace.c: the in-memory recorded MPI execution (see trace.h): growing
 * per-rank call arrays, list pools and the communicator table. */
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

fs_trace *fs_trace_new(int32_t ranks) {
  if (ranks < 1) return NULL;
  fs_trace *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->ranks = ranks;
  t->rank = calloc((size_t)ranks, sizeof *t->rank);
  int32_t *world = malloc((size_t)ranks * sizeof *world);
  if (!t->rank || !world) {
    free(world);
    fs_trace_free(t);
    return NULL;
  }
  for (int32_t r = 0; r < ranks; r++) world[r] = r;
  int32_t self = 0;
  int ok = fs_trace_define_comm(t, -1, world, ranks) == FS_COMM_WORLD &&
           fs_trace_define_comm(t, -2, &self, 1) == FS_COMM_SELF;
  free(world);
  if (!ok) {
    fs_trace_free(t);
    return NULL;
  }
  return t;
}

void fs_trace_free(fs_trace *t) {
  if (!t) return;
  for (int32_t r = 0; t->rank && r < t->ranks; r++) {
    free(t->rank[r].calls);
    free(t->rank[r].list);
    free(t->rank[r].file);
    free(t->rank[r].host);
  }
  for (int32_t c = 0; c < t->comms; c++) free(t->comm[c].members);
  free(t->comm);
  free(t->rank);
  free(t);
}

fs_call *fs_trace_add_call(fs_trace *t, int32_t r, fs_call_kind kind) {
  fs_trace_rank *tr = &t->rank[r];
  if (tr->count == tr->capacity) {
    int64_t capacity = tr->capacity ? tr->capacity * 2 : 16;
    fs_call *calls = realloc(tr->calls, (size_t)capacity * sizeof *calls);
    if (!calls) return NULL;
    tr->calls = calls;
    tr->capacity = capacity;
  }
  fs_call *c = &tr->calls[tr->count++];
  memset(c, 0, sizeof *c);
  c->kind = (uint8_t)kind;
  c->peer = c->tag = c->recv_peer = c->recv_tag = FS_TRACE_UNKNOWN;
  c->source = c->source_tag = c->root = c->flag = c->index = FS_TRACE_UNKNOWN;
  c->new_comm = FS_TRACE_UNKNOWN;
  c->request = -1;
  c->comm = FS_COMM_WORLD;
  return c;
}

int32_t fs_trace_add_list(fs_trace *t, int32_t r, const int64_t *values, int32_t count) {
  fs_trace_rank *tr = &t->rank[r];
  if (count < 0 || tr->list_used + count > INT32_MAX) return -1;
  if (tr->list_used + count > tr->list_capacity) {
    int64_t capacity = tr->list_capacity ? tr->list_capacity : 16;
    while (capacity < tr->list_used + count) capacity *= 2;
    int64_t *list = realloc(tr->list, (size_t)capacity * sizeof *list);
    if (!list) return -1;
    tr->list = list;
    tr->list_capacity = capacity;
  }
  int32_t at = (int32_t)tr->list_used;
  if (count) memcpy(tr->list + at, values, (size_t)count * sizeof *values);
  tr->list_used += count;
  return at;
}

void fs_trace_trim(fs_trace *t) {
  for (int32_t r = 0; r < t->ranks; r++) {
    fs_trace_rank *tr = &t->rank[r];
    fs_call *calls = tr->count ? realloc(tr->calls, (size_t)tr->count * sizeof *calls) : NULL;
    if (calls) tr->calls = calls, tr->capacity = tr->count; /* a failed shrink keeps the larger */
    int64_t *list = tr->list_used ? realloc(tr->list, (size_t)tr->list_used * sizeof *list) : NULL;
    if (list) tr->list = list, tr->list_capacity = tr->list_used;
  }
}

int32_t fs_trace_find_comm(const fs_trace *t, int64_t id) {
  for (int32_t c = 0; c < t->comms; c++)
    if (t->comm[c].id == id) return c;
  return -1;
}

int32_t fs_trace_define_comm(fs_trace *t, int64_t id, const int32_t *members, int32_t size) {
  int32_t found = fs_trace_find_comm(t, id);
  if (found >= 0) {
    const fs_trace_comm *c = &t->comm[found];
    if (c->size != size || memcmp(c->members, members, (size_t)size * sizeof *members)) return -2;
    return found;
  }
  if (size < 1) return -2;
  if (t->comms == t->comm_capacity) {
    int32_t capacity = t->comm_capacity ? t->comm_capacity * 2 : 8;
    fs_trace_comm *comm = realloc(t->comm, (size_t)capacity * sizeof *comm);
    if (!comm) return -1;
    t->comm = comm;
    t->comm_capacity = capacity;
  }
  int32_t *copy = malloc((size_t)size * sizeof *copy);
  if (!copy) return -1;
  memcpy(copy, members, (size_t)size * sizeof *copy);
  t->comm[t->comms] = (fs_trace_comm){id, size, copy};
  return t->comms++;
}

static int set_text(char **slot, const char *text) {
  char *copy = strdup(text);
  if (!copy) return -1;
  free(*slot);
  *slot = copy;
  return 0;
}

int fs_trace_set_file(fs_trace *t, int32_t r, const char *file) {
  return set_text(&t->rank[r].file, file);
}
int fs_trace_set_host(fs_trace *t, int32_t r, const char *host) {
  return set_text(&t->rank[r].host, host);
}

fs_time fs_trace_wall_time(const fs_trace *t, int32_t r) {
  const fs_trace_rank *tr = &t->rank[r];
  fs_time begin = -1, end = -1;
  for (int64_t i = 0; i < tr->count; i++) {
    if (tr->calls[i].kind == FS_CALL_INIT && begin < 0) begin = tr->calls[i].end;
    if (tr->calls[i].kind == FS_CALL_FINALIZE) end = tr->calls[i].start;
  }
  return begin < 0 || end < begin ? -1 : end - begin;
}

static const char *const kind_names[FS_CALL_KINDS] = {
    [FS_CALL_OTHER] = "other",
    [FS_CALL_INIT] = "init",
    [FS_CALL_FINALIZE] = "finalize",
    [FS_CALL_COMPUTE] = "compute",
    [FS_CALL_SEND] = "send",
    [FS_CALL_SSEND] = "ssend",
    [FS_CALL_BSEND] = "bsend",
    [FS_CALL_RSEND] = "rsend",
    [FS_CALL_RECV] = "recv",
    [FS_CALL_ISEND] = "isend",
    [FS_CALL_ISSEND] = "issend",
    [FS_CALL_IBSEND] = "ibsend",
    [FS_CALL_IRSEND] = "irsend",
    [FS_CALL_IRECV] = "irecv",
    [FS_CALL_SENDRECV] = "sendrecv",
    [FS_CALL_SENDRECV_REPLACE] = "sendrecv_replace",
    [FS_CALL_PROBE] = "probe",
    [FS_CALL_IPROBE] = "iprobe",
    [FS_CALL_WAIT] = "wait",
    [FS_CALL_WAITALL] = "waitall",
    [FS_CALL_WAITANY] = "waitany",
    [FS_CALL_WAITSOME] = "waitsome",
    [FS_CALL_TEST] = "test",
    [FS_CALL_TESTALL] = "testall",
    [FS_CALL_TESTANY] = "testany",
    [FS_CALL_TESTSOME] = "testsome",
    [FS_CALL_BARRIER] = "barrier",
    [FS_CALL_BCAST] = "bcast",
    [FS_CALL_REDUCE] = "reduce",
    [FS_CALL_ALLREDUCE] = "allreduce",
    [FS_CALL_GATHER] = "gather",
    [FS_CALL_SCATTER] = "scatter",
    [FS_CALL_ALLGATHER] = "allgather",
    [FS_CALL_ALLTOALL] = "alltoall",
    [FS_CALL_REDUCE_SCATTER] = "reduce_scatter",
    [FS_CALL_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block",
    [FS_CALL_SCAN] = "scan",
    [FS_CALL_EXSCAN] = "exscan",
    [FS_CALL_GATHERV] = "gatherv",
    [FS_CALL_SCATTERV] = "scatterv",
    [FS_CALL_ALLGATHERV] = "allgatherv",
    [FS_CALL_ALLTOALLV] = "alltoallv",
    [FS_CALL_COMM_SPLIT] = "comm_split",
    [FS_CALL_COMM_DUP] = "comm_dup",
    [FS_CALL_COMM_CREATE] = "comm_create",
    [FS_CALL_COMM_FREE] = "comm_free",
};

const char *fs_call_kind_name(fs_call_kind kind) {
  return (unsigned)kind < FS_CALL_KINDS && kind_names[kind] ? kind_names[kind] : "?";
}

int fs_call_kind_is_collective(fs_call_kind kind) {
  return kind >= FS_CALL_BARRIER && kind <= FS_CALL_ALLTOALLV;
}

int fs_call_kind_is_send(fs_call_kind kind) {
  return (kind >= FS_CALL_SEND && kind <= FS_CALL_RSEND) ||
         (kind >= FS_CALL_ISEND && kind <= FS_CALL_IRSEND);
}
