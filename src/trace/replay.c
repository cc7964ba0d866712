/* replay.c: lowers a recorded MPI execution onto a program (see replay.h).
 *
 * Two passes. The first lists, per communicator and member, the member's
 * collective calls on it (replay_collectives.c); the second walks each
 * rank's calls in order and chains its tasks (replay_walk.c), building each
 * collective instance when the first of its members reaches it. This file
 * holds the lowering's state, the helpers its steps share, and the whole. */
#include "trace/replay.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/replay_lowering.h"

/* ---- helpers every step uses ---- */

int fs_lower_out_of_memory(fs_lowering *s) { return fs_error_set(s->err, "replay: out of memory"); }

int fs_lower_call_error(fs_lowering *s, int32_t r, const fs_call *c, const char *format, ...) {
  char why[700];
  va_list ap;
  va_start(ap, format);
  vsnprintf(why, sizeof why, format, ap);
  va_end(ap);
  const fs_trace_rank *tr = &s->trace->rank[r];
  const char *file = tr->file ? tr->file : "trace",
             *kind = fs_call_kind_name((fs_call_kind)c->kind);
  if (c->line) return fs_error_set(s->err, "%s:%u: rank %d, %s: %s", file, c->line, r, kind, why);
  /* no lines (OTF2): the rank's location and the call's place among its calls */
  char location[48] = "";
  if (s->trace->format && strcmp(s->trace->format, "otf2") == 0)
    snprintf(location, sizeof location, " (location %llu)", (unsigned long long)tr->location);
  return fs_error_set(s->err, "%s: rank %d%s, call %lld, %s: %s", file, r, location,
                      (long long)(c - tr->calls) + 1, kind, why);
}

int fs_lower_is_comm_creation(fs_call_kind k) {
  return k == FS_CALL_COMM_SPLIT || k == FS_CALL_COMM_DUP || k == FS_CALL_COMM_CREATE;
}

/* Calls that every member of their communicator makes together. */
int fs_lower_is_collective_call(const fs_call *c) {
  return c->comm != FS_COMM_SELF && (fs_call_kind_is_collective((fs_call_kind)c->kind) ||
                                     fs_lower_is_comm_creation((fs_call_kind)c->kind));
}

int32_t fs_lower_add_task(fs_lowering *s, fs_task_kind kind, int32_t rank, int32_t label) {
  if (label < -1) return -1; /* making the label failed (fs_lower_kind_label) */
  int32_t t = fs_program_add(s->p, kind, rank);
  if (t < 0) return -1;
  if (label >= 0 && fs_task_set_label(s->p, t, label)) return -1;
  return t;
}

int32_t fs_lower_kind_label(fs_lowering *s, fs_call_kind kind) {
  if (s->kind_label[kind] < 0) {
    const char *name = fs_call_kind_name(kind);
    s->kind_label[kind] = fs_program_intern_label(s->p, name, (int64_t)strlen(name));
  }
  return s->kind_label[kind] < 0 ? -2 : s->kind_label[kind]; /* -2: out of memory */
}

const int64_t *fs_lower_call_list(const fs_lowering *s, int32_t r, int32_t at, int32_t count) {
  const fs_trace_rank *tr = &s->trace->rank[r];
  if (count <= 0 || at < 0 || (int64_t)at + count > tr->list_used) return NULL;
  return tr->list + at;
}

/* ---- the whole ---- */

/* Frees the lowering's state (twice is harmless). */
static void free_state(fs_lowering *s) {
  const fs_trace *t = s->trace;
  for (int32_t c = 0; s->sequence && c < t->comms; c++) {
    for (int32_t m = 0; s->sequence[c] && m < t->comm[c].size; m++) free(s->sequence[c][m].at);
    free(s->sequence[c]);
  }
  for (int32_t c = 0; s->position && c < t->comms; c++) free(s->position[c]);
  for (int32_t r = 0; r < t->ranks; r++) {
    if (s->instance) free(s->instance[r]);
    if (s->entry) free(s->entry[r]);
    if (s->exit) free(s->exit[r]);
  }
  for (int32_t i = 0; i < s->cache_count; i++) fs_program_free(s->cache[i].program);
  free(s->sequence), free(s->position), free(s->instance), free(s->entry), free(s->exit);
  free(s->cache), free(s->tags);
  s->sequence = NULL, s->instance = NULL, s->entry = s->exit = NULL, s->position = NULL;
  s->cache = NULL, s->cache_count = 0, s->tags = NULL;
}

static int allocate_state(fs_lowering *s) {
  const fs_trace *t = s->trace;
  s->sequence = calloc((size_t)t->comms, sizeof *s->sequence);
  s->position = calloc((size_t)t->comms, sizeof *s->position);
  s->instance = calloc((size_t)t->ranks, sizeof *s->instance);
  s->entry = calloc((size_t)t->ranks, sizeof *s->entry);
  s->exit = calloc((size_t)t->ranks, sizeof *s->exit);
  if (!s->sequence || !s->position || !s->instance || !s->entry || !s->exit) return -1;
  for (int32_t c = 0; c < t->comms; c++)
    if (!(s->sequence[c] = calloc((size_t)t->comm[c].size, sizeof **s->sequence))) return -1;
  for (int32_t r = 0; r < t->ranks; r++) {
    size_t n = (size_t)t->rank[r].count + 1;
    s->instance[r] = malloc(n * sizeof **s->instance);
    s->entry[r] = malloc(n * sizeof **s->entry);
    s->exit[r] = malloc(n * sizeof **s->exit);
    if (!s->instance[r] || !s->entry[r] || !s->exit[r]) return -1;
  }
  return 0;
}

/* 1 when rank r's walk went through all its calls: nothing reads them
 * after it (every collective it is a member of is built), unless calls
 * follow its MPI_Finalize. */
static int walked_all(const fs_trace_rank *tr) {
  for (int64_t i = 0; i < tr->count; i++)
    if (tr->calls[i].kind == FS_CALL_FINALIZE) return i == tr->count - 1;
  return 1;
}

/* Rank r's calls, list pool and per-call state, once no walk reads them. */
static void release_rank(fs_lowering *s, fs_trace *owned, int32_t r) {
  fs_trace_rank *tr = &owned->rank[r];
  free(tr->calls), free(tr->list);
  tr->calls = NULL, tr->list = NULL;
  tr->count = tr->capacity = tr->list_used = tr->list_capacity = 0;
  if (s->instance) free(s->instance[r]), s->instance[r] = NULL;
  if (s->entry) free(s->entry[r]), s->entry[r] = NULL;
  if (s->exit) free(s->exit[r]), s->exit[r] = NULL;
}

/* Pass 2, rank by rank; with an owned trace, each rank's calls are
 * released once walked. The peak is when the first walk builds a
 * collective on all ranks (the whole trace, the generated schedule and its
 * copy); what is freed after it serves the rest of the lowering and the
 * engine (giving it back with malloc_trim made the engine's first touch of
 * its arrays fault: twice the simulation's time at 2^16 ranks). */
static int walk_ranks(fs_lowering *s, fs_trace *owned) {
  const fs_trace *trace = s->trace;
  for (int32_t r = 0; r < trace->ranks; r++) {
    s->replay->recorded[r] = fs_trace_wall_time(trace, r);
    if (s->replay->recorded[r] == 0) s->replay->recorded[r] = -1; /* no times (SimGrid) */
    if (fs_lower_walk_rank(s, r)) return -1;
    if (owned && walked_all(&trace->rank[r])) release_rank(s, owned, r);
  }
  return 0;
}

/* The lowering once walked: what reports need kept, the state and the
 * trace's calls freed, then the names (unless on demand) and the program
 * finalized (the peak: the pending pairs beside the successor array). */
static int finish(fs_lowering *s, fs_trace *owned) {
  if (fs_lower_keep_origins(s)) return fs_lower_out_of_memory(s);
  free_state(s);
  for (int32_t r = 0; owned && r < owned->ranks; r++) release_rank(s, owned, r);
  if (!s->options->names_on_demand && fs_replay_name_tasks(s->replay, s->p))
    return fs_lower_out_of_memory(s);
  return fs_program_finalize(s->p, s->err);
}

static fs_replay *build(const fs_trace *trace, fs_trace *owned, const fs_replay_options *options,
                        fs_error *err) {
  fs_lowering s = {.trace = trace,
                   .options = options,
                   .err = err,
                   .compute_label = -1,
                   .next_collective_tag = FS_FIRST_COLLECTIVE_TAG};
  for (int i = 0; i < FS_CALL_KINDS; i++) s.kind_label[i] = -1;
  if (!(options->compute_scale >= 0) || !(options->flop_rate > 0)) {
    fs_error_set(err, "replay: --compute-scale must be >= 0 and --flop-rate > 0");
    return NULL;
  }
  if (fs_lower_parse_algorithms(s.algorithms, options->algorithms, err)) return NULL;
  fs_replay *replay = calloc(1, sizeof *replay);
  s.replay = replay;
  s.p = fs_program_new(trace->ranks);
  if (!replay || !s.p || allocate_state(&s) ||
      !(replay->recorded = malloc((size_t)trace->ranks * sizeof *replay->recorded))) {
    fs_lower_out_of_memory(&s);
    goto fail;
  }
  replay->ranks = trace->ranks;
  if (fs_lower_list_collectives(&s) || walk_ranks(&s, owned) || finish(&s, owned)) goto fail;
  fs_lower_describe_algorithms(s.algorithms, replay->algorithms, sizeof replay->algorithms);
  replay->program = s.p;
  free_state(&s);
  return replay;
fail:
  free_state(&s);
  fs_program_free(s.p);
  if (replay) free(replay->recorded), fs_lower_free_origins(replay);
  free(replay);
  return NULL;
}

fs_replay *fs_replay_build(const fs_trace *trace, const fs_replay_options *options, fs_error *err) {
  return build(trace, NULL, options, err);
}

fs_replay *fs_replay_build_releasing(fs_trace *trace, const fs_replay_options *options,
                                     fs_error *err) {
  return build(trace, trace, options, err);
}

void fs_replay_free(fs_replay *replay) {
  if (!replay) return;
  fs_program_free(replay->program);
  free(replay->recorded);
  fs_lower_free_origins(replay);
  free(replay);
}
