/* replay_origins.c: where each task of a replay came from. Tasks are named
 * after their calls: "r3.L120.MPI_Recv" (rank 3, line 120 of its file;
 * "r3.c8.MPI_Recv" for its 8th call when the reader has no lines); a
 * sendrecv's two tasks end in ".send" and ".recv". The names are unique and
 * valid in .dag files. The lowering keeps a 16-byte origin per named task
 * (fs_task_origin) and makes the names from them only when asked
 * (fs_replay_name_tasks: outputs that show names); fs_replay_describe_task
 * gives a send's or recv's MPI tag, communicator and call from them. */
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

/* The name of an origin's task on rank r, into name[96]; returns its length. */
static int64_t format_name(char name[96], int32_t r, const fs_task_origin *o) {
  char *at = name; /* by hand: snprintf was a fifth of reading a large trace */
  *at++ = 'r';
  at = put_number(at, r);
  *at++ = '.';
  *at++ = o->flags & FS_ORIGIN_LINE ? 'L' : 'c';
  at = put_number(at, o->number);
  *at++ = '.';
  at = put_mpi_name(at, (fs_call_kind)o->kind);
  const char *side = o->flags & FS_ORIGIN_SEND ? ".send" : o->flags & FS_ORIGIN_RECV ? ".recv" : "";
  size_t n = strlen(side);
  memcpy(at, side, n);
  return (int64_t)(at - name) + (int64_t)n;
}

/* Remembers where the task came from; its name is made from that by
 * fs_replay_name_tasks. */
int fs_lower_name_task(fs_lowering *s, int32_t task, int32_t r, const fs_call *c, int side,
                       int32_t comm) {
  fs_replay *replay = s->replay;
  int64_t number = c->line ? (int64_t)c->line : (int64_t)(c - s->trace->rank[r].calls) + 1;
  if (number > UINT32_MAX)
    return fs_lower_call_error(s, r, c, "call %lld: a rank makes at most %u calls",
                               (long long)number, UINT32_MAX);
  if (replay->origin_count == replay->origin_capacity) {
    int64_t capacity = replay->origin_capacity ? replay->origin_capacity * 2 : 1024;
    fs_task_origin *grown = realloc(replay->origin, (size_t)capacity * sizeof *grown);
    if (!grown) return fs_lower_out_of_memory(s);
    replay->origin = grown, replay->origin_capacity = capacity;
  }
  replay->origin[replay->origin_count++] =
      (fs_task_origin){.task = task,
                       .number = (uint32_t)number,
                       .comm = comm,
                       .kind = c->kind,
                       .flags = (uint8_t)((c->line ? FS_ORIGIN_LINE : 0) | side)};
  return 0;
}

static int by_task(const void *a, const void *b) {
  int32_t x = ((const fs_task_origin *)a)->task, y = ((const fs_task_origin *)b)->task;
  return (x > y) - (x < y);
}

/* Tasks are named as they are made, so in ascending order; sorted in case. */
static void sort_origins(fs_replay *replay) {
  for (int64_t i = 1; i < replay->origin_count; i++)
    if (replay->origin[i].task < replay->origin[i - 1].task) {
      qsort(replay->origin, (size_t)replay->origin_count, sizeof *replay->origin, by_task);
      return;
    }
}

/* The origin of a task, or NULL for a task without a call of its own. */
static const fs_task_origin *origin_of(const fs_replay *replay, int32_t task) {
  int64_t low = 0, high = replay->origin_count;
  while (low < high) {
    int64_t middle = low + (high - low) / 2;
    if (replay->origin[middle].task < task)
      low = middle + 1;
    else
      high = middle;
  }
  return low < replay->origin_count && replay->origin[low].task == task ? &replay->origin[low]
                                                                        : NULL;
}

int fs_replay_name_tasks(const fs_replay *replay, fs_program *p) {
  char name[96];
  for (int64_t i = 0; i < replay->origin_count; i++) {
    const fs_task_origin *o = &replay->origin[i];
    if (fs_task_set_name(p, o->task, name, format_name(name, p->rank[o->task], o))) return -1;
  }
  return 0;
}

void fs_lower_free_origins(fs_replay *replay) {
  for (int32_t r = 0; replay->file && r < replay->ranks; r++) /* once per run of equal names */
    if (r == 0 || replay->file[r] != replay->file[r - 1]) free(replay->file[r]);
  free(replay->file), free(replay->comm_id), free(replay->tag_value), free(replay->tag_comm);
  free(replay->origin);
}

/* What fs_replay_describe_task needs once the trace is gone: the tag
 * table turned around, the communicators' ids, the ranks' files. */
int fs_lower_keep_origins(fs_lowering *s) {
  fs_replay *replay = s->replay;
  const fs_trace *t = s->trace;
  sort_origins(replay);
  if (replay->origin_count < replay->origin_capacity) { /* give back the slack */
    fs_task_origin *trimmed =
        realloc(replay->origin, (size_t)replay->origin_count * sizeof *trimmed + 1);
    if (trimmed) replay->origin = trimmed, replay->origin_capacity = replay->origin_count;
  }
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
  for (int32_t r = 0; r < t->ranks; r++) {
    const char *file = t->rank[r].file ? t->rank[r].file : "the trace";
    if (r > 0 && strcmp(file, replay->file[r - 1]) == 0) /* one file of all ranks: one copy */
      replay->file[r] = replay->file[r - 1];
    else if (!(replay->file[r] = strdup(file)))
      return -1;
  }
  return 0;
}

int fs_replay_describe_task(const void *state, const fs_program *p, int32_t task, int32_t *tag,
                            char *communicator, size_t communicator_size, char *call,
                            size_t call_size) {
  const fs_replay *replay = state;
  int32_t engine_tag = fs_task_tag(p, task);
  const fs_task_origin *o = origin_of(replay, task);
  if (!o || o->comm < 0 || engine_tag >= replay->tag_count) return -1;
  *tag = engine_tag < 0 ? FS_ANY_TAG : replay->tag_value[engine_tag];
  if (o->comm == FS_COMM_WORLD)
    snprintf(communicator, communicator_size, "MPI_COMM_WORLD");
  else if (o->comm == FS_COMM_SELF)
    snprintf(communicator, communicator_size, "MPI_COMM_SELF");
  else
    snprintf(communicator, communicator_size, "communicator %lld",
             (long long)replay->comm_id[o->comm]);
  char kind[64];
  *put_mpi_name(kind, (fs_call_kind)o->kind) = 0;
  const char *file = replay->file[p->rank[task]];
  if (o->flags & FS_ORIGIN_LINE)
    snprintf(call, call_size, "%s at %s:%u", kind, file, o->number);
  else
    snprintf(call, call_size, "%s, call %u of %s", kind, o->number, file);
  return 0;
}
