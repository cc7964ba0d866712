/* replay_origins.c: where each task of a replay came from. Tasks are named
 * after their calls: "r3.L120.MPI_Recv" (rank 3, line 120 of its file;
 * "r3.c8.MPI_Recv" for its 8th call when the reader has no lines); a
 * sendrecv's two tasks end in ".send" and ".recv". The names are unique and
 * valid in .dag files; deadlock reports show them, and
 * fs_replay_describe_task reads them back, with the MPI tag and
 * communicator kept for each send and recv. */
#include "trace/replay_lowering.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v in decimal at `at`; returns the end. */
static char *put_number(char *at, int64_t v) {
  char digits[24];
  int n = 0;
  do digits[n++] = (char)('0' + v % 10);
  while ((v /= 10) > 0);
  while (n) *at++ = digits[--n];
  return at;
}

/* "MPI_Isend" of isend, "MPI_Reduce_scatter_block" of reduce_scatter_block. */
static char *put_mpi_name(char *at, fs_call_kind kind) {
  const char *name = fs_call_kind_name(kind);
  memcpy(at, "MPI_", 4);
  at += 4;
  *at++ = (char)(name[0] >= 'a' && name[0] <= 'z' ? name[0] - 'a' + 'A' : name[0]);
  size_t n = strlen(name + 1);
  memcpy(at, name + 1, n);
  return at + n;
}

/* side: ".send", ".recv" (a sendrecv's tasks) or "". */
int fs_lower_name_task(fs_lowering *s, int32_t task, int32_t r, const fs_call *c,
                       const char *side) {
  char name[96], *at = name; /* by hand: snprintf was a fifth of reading a large trace */
  *at++ = 'r';
  at = put_number(at, r);
  *at++ = '.';
  *at++ = c->line ? 'L' : 'c';
  at = put_number(at, c->line ? (int64_t)c->line : (int64_t)(c - s->trace->rank[r].calls) + 1);
  *at++ = '.';
  at = put_mpi_name(at, (fs_call_kind)c->kind);
  size_t n = strlen(side);
  memcpy(at, side, n);
  return fs_task_set_name(s->p, task, name, (int64_t)(at - name) + (int64_t)n);
}

/* Remembers the communicator of a send or recv task (for reports). */
int fs_lower_note_communicator(fs_lowering *s, int32_t task, int32_t comm) {
  fs_replay *replay = s->replay;
  if (task >= replay->message_capacity) {
    int64_t capacity = replay->message_capacity ? replay->message_capacity : 1024;
    while (capacity <= task) capacity *= 2;
    int32_t *grown = realloc(replay->message_comm, (size_t)capacity * sizeof *grown);
    if (!grown) return -1;
    for (int64_t i = replay->message_capacity; i < capacity; i++) grown[i] = -1;
    replay->message_comm = grown, replay->message_capacity = capacity;
  }
  replay->message_comm[task] = comm;
  return 0;
}

void fs_lower_free_origins(fs_replay *replay) {
  for (int32_t r = 0; replay->file && r < replay->ranks; r++) free(replay->file[r]);
  free(replay->file), free(replay->comm_id), free(replay->tag_value), free(replay->tag_comm);
  free(replay->message_comm);
}

/* What fs_replay_describe_task needs once the trace is gone: the tag
 * table turned around, the communicators' ids, the ranks' files. */
int fs_lower_keep_origins(fs_lowering *s) {
  fs_replay *replay = s->replay;
  const fs_trace *t = s->trace;
  replay->tag_value = malloc((size_t)(s->tag_count + 1) * sizeof *replay->tag_value);
  replay->tag_comm = malloc((size_t)(s->tag_count + 1) * sizeof *replay->tag_comm);
  replay->comm_id = malloc((size_t)(t->comms + 1) * sizeof *replay->comm_id);
  replay->file = calloc((size_t)t->ranks + 1, sizeof *replay->file);
  if (!replay->tag_value || !replay->tag_comm || !replay->comm_id || !replay->file) return -1;
  for (int64_t i = 0; i < s->tag_capacity; i++) {
    if (!s->tags[i].key) continue;
    uint64_t key = (uint64_t)(s->tags[i].key - 1);
    replay->tag_value[s->tags[i].id] = (int32_t)(uint32_t)(key & 0xffffffffu);
    replay->tag_comm[s->tags[i].id] = (int32_t)(key >> 32);
  }
  replay->tag_count = s->tag_count;
  for (int32_t c = 0; c < t->comms; c++) replay->comm_id[c] = t->comm[c].id;
  replay->comms = t->comms;
  for (int32_t r = 0; r < t->ranks; r++)
    if (!(replay->file[r] = strdup(t->rank[r].file ? t->rank[r].file : "the trace"))) return -1;
  return 0;
}

/* Reads "r3.L17.MPI_Isend[.send]" back: the line (or call) and the call's name. */
static int read_name(const char *name, char *place, uint64_t *number, const char **call,
                     size_t *length) {
  const char *at = strchr(name, '.');
  if (!at || (at[1] != 'L' && at[1] != 'c')) return -1;
  *place = at[1];
  *number = 0;
  for (at += 2; *at >= '0' && *at <= '9'; at++) *number = *number * 10 + (uint64_t)(*at - '0');
  if (*at != '.') return -1;
  *call = at + 1;
  const char *end = strchr(*call, '.');
  *length = end ? (size_t)(end - *call) : strlen(*call);
  return 0;
}

int fs_replay_describe_task(const void *state, const fs_program *p, int32_t task, int32_t *tag,
                            char *communicator, size_t communicator_size, char *call,
                            size_t call_size) {
  const fs_replay *replay = state;
  int32_t engine_tag = fs_task_tag(p, task);
  if (task >= replay->message_capacity || replay->message_comm[task] < 0 ||
      engine_tag >= replay->tag_count)
    return -1;
  int32_t comm = replay->message_comm[task];
  *tag = engine_tag < 0 ? FS_ANY_TAG : replay->tag_value[engine_tag];
  if (comm == FS_COMM_WORLD)
    snprintf(communicator, communicator_size, "MPI_COMM_WORLD");
  else if (comm == FS_COMM_SELF)
    snprintf(communicator, communicator_size, "MPI_COMM_SELF");
  else
    snprintf(communicator, communicator_size, "communicator %lld",
             (long long)replay->comm_id[comm]);
  char buffer[24], place;
  const char *name = fs_task_name(p, task, buffer), *kind;
  uint64_t number;
  size_t length;
  call[0] = 0;
  if (read_name(name, &place, &number, &kind, &length) == 0) {
    const char *file = replay->file[p->rank[task]];
    if (place == 'L')
      snprintf(call, call_size, "%.*s at %s:%llu", (int)length, kind, file,
               (unsigned long long)number);
    else
      snprintf(call, call_size, "%.*s, call %llu of %s", (int)length, kind,
               (unsigned long long)number, file);
  }
  return 0;
}
