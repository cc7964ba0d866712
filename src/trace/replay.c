/* replay.c: lowers a recorded MPI execution onto a program (see replay.h).
 *
 * Two passes. The first lists, per communicator and member, the member's
 * collective calls on it, so the k-th collective of a communicator can be
 * built once, for all members, by whichever member's walk reaches it
 * first. The second walks each rank's calls in order and chains its tasks:
 * `prev` is what the rank's next task waits for (a completion, or the start
 * of a nonblocking call). Collective instances are embedded with an entry
 * proxy and an exit proxy per member; a member's walk links its entry to
 * its chain and continues from its exit. */
#include "trace/replay.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "trace/collective_patterns.h"

/* ---- --algo: which generator replaces each collective ---- */

enum { ALGO_BARRIER, ALGO_BCAST, ALGO_REDUCE, ALGO_ALLREDUCE, ALGO_GATHER, ALGO_SCATTER,
       ALGO_ALLGATHER, ALGO_ALLTOALL, ALGO_COUNT };

static const char *const collective_names[ALGO_COUNT] = {
  "barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall"};
/* Small-message choices of MPICH's defaults (ch4 "mpir" selection). */
static const char *const default_generators[ALGO_COUNT] = {
  "barrier-dissemination", "bcast-binomial", "reduce-binomial", "allreduce-rd",
  "gather-binomial", "scatter-binomial", "allgather-rd", "alltoall-pairwise"};

typedef struct algorithm {
  const fs_generator *generator;
  char schedule[128]; /* --schedule text for generators that read one */
  int32_t ways;
  int64_t segment;
  int used;
} algorithm;

const char *fs_replay_algorithm_help(void) {
  return "barrier=dissemination bcast=binomial reduce=binomial allreduce=rd gather=binomial "
         "scatter=binomial allgather=rd alltoall=pairwise";
}

/* One "collective=name[:option]" of --algo. */
static int parse_algorithm(algorithm *table, const char *text, size_t length, fs_error *err) {
  char item[256];
  if (length >= sizeof item) return fs_error_set(err, "--algo: '%.40s...' is too long", text);
  memcpy(item, text, length);
  item[length] = 0;
  char *name = strchr(item, '=');
  if (!name) return fs_error_set(err, "--algo %s: expected COLLECTIVE=ALGORITHM[:OPTION]", item);
  *name++ = 0;
  int which = 0;
  while (which < ALGO_COUNT && strcmp(collective_names[which], item) != 0) which++;
  if (which == ALGO_COUNT)
    return fs_error_set(err, "--algo: unknown collective '%s' (expected one of barrier, bcast, "
                             "reduce, allreduce, gather, scatter, allgather, alltoall)", item);
  char *option = strchr(name, ':');
  if (option) *option++ = 0;
  char full[300];
  snprintf(full, sizeof full, "%s-%s", item, name);
  const fs_generator *g = fs_generator_find(full);
  if (!g && strncmp(name, item, strlen(item)) == 0 && name[strlen(item)] == '-') g = fs_generator_find(name);
  if (!g)
    return fs_error_set(err, "--algo %s=%s: no generator %s (see fennelsim gen --list)", item, name, full);
  algorithm *a = &table[which];
  *a = (algorithm){.generator = g};
  if (!option) return 0;
  int64_t number;
  if (g->options & FS_GEN_SCHEDULE) {
    if (strlen(option) >= sizeof a->schedule)
      return fs_error_set(err, "--algo %s=%s: schedule too long", item, name);
    strcpy(a->schedule, option);
  } else if (g->options & FS_GEN_WAYS) {
    if (fs_parse_count(option, strlen(option), 2, 1 << 20, &number))
      return fs_error_set(err, "--algo %s=%s:%s: expected a number of ways (2 or more)", item, name, option);
    a->ways = (int32_t)number;
  } else if (g->options & FS_GEN_SEGMENT) {
    if (fs_parse_size(option, strlen(option), &number) || number < 1)
      return fs_error_set(err, "--algo %s=%s:%s: expected a segment size (8KiB)", item, name, option);
    a->segment = number;
  } else {
    return fs_error_set(err, "--algo %s=%s:%s: %s takes no option", item, name, option, g->name);
  }
  return 0;
}

static int parse_algorithms(algorithm *table, const char *text, fs_error *err) {
  for (int i = 0; i < ALGO_COUNT; i++) table[i] = (algorithm){.generator = fs_generator_find(default_generators[i])};
  /* items are split at the commas followed by "collective=": schedules
   * have commas of their own (allreduce=rm:a4,a2) */
  while (text && *text) {
    size_t length = strcspn(text, ",");
    while (text[length] == ',') {
      size_t next = strcspn(text + length + 1, ",");
      if (memchr(text + length + 1, '=', next)) break;
      length += 1 + next;
    }
    if (length && parse_algorithm(table, text, length, err)) return -1;
    text += length + (text[length] == ',');
  }
  return 0;
}

/* ---- the lowering's state ---- */

typedef struct index_list {
  int64_t *at;
  int64_t count, capacity;
} index_list;

/* A generated schedule, kept for the next collective of the same shape. */
typedef struct cached_schedule {
  int algo;
  int32_t ranks, root;
  int64_t bytes;
  fs_program *program;
} cached_schedule;

typedef struct tag_slot {
  int64_t key; /* (comm << 32 | tag) + 1; 0: empty */
  int32_t id;
} tag_slot;

typedef struct rank_walk {
  int32_t prev;      /* the rank's next task waits for it ... */
  int prev_point;    /* ... reaching this point */
  fs_time last_end;  /* end of the last simulated call */
  double pending;    /* computation not yet emitted, ps before --compute-scale */
  int32_t *request_task; /* per request id: its task; -1 unknown, -2 completed at once (MPI_PROC_NULL) */
  uint8_t *request_waited;
  int64_t request_capacity;
} rank_walk;

typedef struct replay_state {
  const fs_trace *trace;
  const fs_replay_options *options;
  fs_replay *replay;
  fs_program *p;
  algorithm algorithms[ALGO_COUNT];
  index_list **sequence;      /* per communicator, per member: its collective calls on it */
  int32_t **instance;         /* per rank, per call: the call's index in its communicator's sequence */
  int32_t **entry, **exit;    /* per rank, per call: the collective instance's proxies (-1: not built) */
  int32_t **position;         /* per communicator: comm rank of each world rank (-1), NULL until needed */
  cached_schedule *cache;
  int32_t cache_count, cache_capacity;
  tag_slot *tags;
  int64_t tag_capacity, tag_count;
  int32_t next_collective_tag;
  int32_t kind_label[FS_CALL_KINDS];
  int32_t compute_label;
  fs_error *err;
} replay_state;

#define FIRST_COLLECTIVE_TAG (1 << 30) /* point-to-point tags are interned below it */

static int out_of_memory(replay_state *s) { return fs_error_set(s->err, "replay: out of memory"); }

/* "FILE:LINE: rank R, KIND: " then the message; without lines (OTF2)
 * "FILE: rank R (location L), call N, KIND: ", N counted from 1. */
static int call_error(replay_state *s, int32_t r, const fs_call *c, const char *format, ...) FS_PRINTF(4, 5);
static int call_error(replay_state *s, int32_t r, const fs_call *c, const char *format, ...) {
  char why[700];
  va_list ap;
  va_start(ap, format);
  vsnprintf(why, sizeof why, format, ap);
  va_end(ap);
  const fs_trace_rank *tr = &s->trace->rank[r];
  const char *file = tr->file ? tr->file : "trace", *kind = fs_call_kind_name((fs_call_kind)c->kind);
  if (c->line) return fs_error_set(s->err, "%s:%u: rank %d, %s: %s", file, c->line, r, kind, why);
  /* no lines (OTF2): the rank's location and the call's place among its calls */
  char location[48] = "";
  if (s->trace->format && strcmp(s->trace->format, "otf2") == 0)
    snprintf(location, sizeof location, " (location %llu)", (unsigned long long)tr->location);
  return fs_error_set(s->err, "%s: rank %d%s, call %lld, %s: %s", file, r, location,
                      (long long)(c - tr->calls) + 1, kind, why);
}

static int list_push(index_list *l, int64_t value) {
  if (l->count == l->capacity) {
    int64_t capacity = l->capacity ? l->capacity * 2 : 16;
    int64_t *at = realloc(l->at, (size_t)capacity * sizeof *at);
    if (!at) return -1;
    l->at = at;
    l->capacity = capacity;
  }
  l->at[l->count++] = value;
  return 0;
}

static int is_comm_creation(fs_call_kind k) {
  return k == FS_CALL_COMM_SPLIT || k == FS_CALL_COMM_DUP || k == FS_CALL_COMM_CREATE;
}

/* Calls that every member of their communicator makes together. */
static int is_collective_call(const fs_call *c) {
  return c->comm != FS_COMM_SELF && (fs_call_kind_is_collective((fs_call_kind)c->kind) ||
                                     is_comm_creation((fs_call_kind)c->kind));
}

/* The comm rank of world rank r in communicator c, or -1. */
static int32_t comm_rank_of(replay_state *s, int32_t c, int32_t r) {
  if (c == FS_COMM_WORLD) return r;
  if (c == FS_COMM_SELF) return 0;
  if (!s->position[c]) {
    const fs_trace_comm *comm = &s->trace->comm[c];
    int32_t *position = malloc((size_t)s->trace->ranks * sizeof *position);
    if (!position) return -2;
    for (int32_t w = 0; w < s->trace->ranks; w++) position[w] = -1;
    for (int32_t m = 0; m < comm->size; m++)
      if (comm->members[m] >= 0 && comm->members[m] < s->trace->ranks) position[comm->members[m]] = m;
    s->position[c] = position;
  }
  return s->position[c][r];
}

/* The world rank of `peer` in the call's communicator, on rank r; -1 when
 * out of range. */
static int32_t world_rank(const replay_state *s, int32_t r, int32_t comm, int32_t peer) {
  if (comm == FS_COMM_SELF) return peer == 0 ? r : -1;
  const fs_trace_comm *c = &s->trace->comm[comm];
  return peer >= 0 && peer < c->size ? c->members[peer] : -1;
}

/* ---- pass 1: each communicator's sequence of collectives ---- */

static int list_collectives(replay_state *s) {
  const fs_trace *t = s->trace;
  for (int32_t r = 0; r < t->ranks; r++) {
    const fs_trace_rank *tr = &t->rank[r];
    for (int64_t i = 0; i < tr->count; i++) {
      const fs_call *c = &tr->calls[i];
      s->entry[r][i] = s->exit[r][i] = -1;
      if (!is_collective_call(c)) continue;
      if (c->comm < 0 || c->comm >= t->comms) return call_error(s, r, c, "no communicator %d", c->comm);
      int32_t m = comm_rank_of(s, c->comm, r);
      if (m == -2) return out_of_memory(s);
      if (m < 0)
        return call_error(s, r, c, "rank %d is not a member of communicator %lld", r,
                          (long long)t->comm[c->comm].id);
      index_list *l = &s->sequence[c->comm][m];
      if (l->count >= INT32_MAX) return call_error(s, r, c, "too many collectives");
      s->instance[r][i] = (int32_t)l->count;
      if (list_push(l, i)) return out_of_memory(s);
    }
  }
  /* every member must make the same number of collective calls */
  for (int32_t c = 0; c < t->comms; c++) {
    if (c == FS_COMM_SELF) continue;
    const fs_trace_comm *comm = &t->comm[c];
    for (int32_t m = 1; m < comm->size; m++) {
      index_list *a = &s->sequence[c][0], *b = &s->sequence[c][m];
      if (a->count == b->count) continue;
      int32_t more = a->count > b->count ? comm->members[0] : comm->members[m];
      const index_list *longer = a->count > b->count ? a : b, *shorter = a->count > b->count ? b : a;
      const fs_call *extra = &t->rank[more].calls[longer->at[shorter->count]];
      return call_error(s, more, extra,
                        "rank %d makes %lld collective calls on communicator %lld, rank %d makes %lld: "
                        "this one has no partner", comm->members[0], (long long)a->count,
                        (long long)comm->id, comm->members[m], (long long)b->count);
    }
  }
  return 0;
}

/* ---- building tasks ---- */

/* label: -1 for none, below -1 when making it failed (kind_label). */
static int32_t add_task(replay_state *s, fs_task_kind kind, int32_t rank, int32_t label) {
  if (label < -1) return -1;
  int32_t t = fs_program_add(s->p, kind, rank);
  if (t < 0) return -1;
  if (label >= 0 && fs_task_set_label(s->p, t, label)) return -1;
  return t;
}

static int32_t kind_label(replay_state *s, fs_call_kind kind) {
  if (s->kind_label[kind] < 0) {
    const char *name = fs_call_kind_name(kind);
    s->kind_label[kind] = fs_program_intern_label(s->p, name, (int64_t)strlen(name));
  }
  return s->kind_label[kind] < 0 ? -2 : s->kind_label[kind]; /* -2: out of memory */
}

/* Names a task after its call: "r3.L120.MPI_Recv" (rank 3, line 120 of
 * its file; "r3.c8.MPI_Recv" for its 8th call when the reader has no
 * lines); a sendrecv's two tasks end in ".send" and ".recv". The names are
 * unique and valid in .dag files; deadlock reports show them, and
 * fs_replay_describe_task reads them back. */
static char *put_number(char *at, int64_t v) {
  char digits[24];
  int n = 0;
  do digits[n++] = (char)('0' + v % 10); while ((v /= 10) > 0);
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
static int name_task(replay_state *s, int32_t task, int32_t r, const fs_call *c, const char *side) {
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
static int note_communicator(replay_state *s, int32_t task, int32_t comm) {
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

/* task waits for the rank's chain. */
static int follow(replay_state *s, rank_walk *w, int32_t task) {
  return fs_program_depend(s->p, task, w->prev, w->prev_point);
}

/* Emits the computation accumulated since the last simulated call. */
static int flush_compute(replay_state *s, rank_walk *w, int32_t r) {
  double scaled = w->pending * s->options->compute_scale;
  w->pending = 0;
  if (!(scaled >= 0.5)) return 0;
  if (scaled > (double)FS_TRACE_TIME_LIMIT) scaled = (double)FS_TRACE_TIME_LIMIT; /* saturates */
  if (s->compute_label < 0 && (s->compute_label = fs_program_intern_label(s->p, "compute", 7)) < 0) return -1;
  int32_t t = add_task(s, FS_COMPUTE, r, s->compute_label);
  if (t < 0 || follow(s, w, t)) return -1;
  fs_time time = (fs_time)llround(scaled);
  fs_task_set_time(s->p, t, time);
  s->replay->computation = time > FS_TRACE_TIME_LIMIT - s->replay->computation ? FS_TRACE_TIME_LIMIT
                                                                              : s->replay->computation + time;
  w->prev = t;
  w->prev_point = FS_AFTER_END;
  return 0;
}

/* The time between the last simulated call and this one is computation
 * (as doubles: the difference of two times may not fit a time). */
static void gap_before(rank_walk *w, const fs_call *c) {
  if (c->start > w->last_end) w->pending += (double)c->start - (double)w->last_end;
  if (c->end > w->last_end) w->last_end = c->end;
}

/* The engine's tag of (communicator, tag): unique per pair, below
 * FIRST_COLLECTIVE_TAG. */
static int32_t intern_tag(replay_state *s, int32_t comm, int32_t tag) {
  if (tag == FS_TRACE_ANY) return FS_ANY_TAG;
  if (s->tag_count * 2 >= s->tag_capacity) {
    int64_t capacity = s->tag_capacity ? s->tag_capacity * 2 : 64;
    tag_slot *slots = calloc((size_t)capacity, sizeof *slots);
    if (!slots) return -2;
    for (int64_t i = 0; i < s->tag_capacity; i++) {
      if (!s->tags[i].key) continue;
      uint64_t h = (uint64_t)s->tags[i].key * 0x9e3779b97f4a7c15ull;
      int64_t j = (int64_t)(h >> 32) & (capacity - 1);
      while (slots[j].key) j = (j + 1) & (capacity - 1);
      slots[j] = s->tags[i];
    }
    free(s->tags);
    s->tags = slots;
    s->tag_capacity = capacity;
  }
  int64_t key = (((int64_t)comm << 32) | (uint32_t)tag) + 1;
  uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
  int64_t j = (int64_t)(h >> 32) & (s->tag_capacity - 1);
  while (s->tags[j].key && s->tags[j].key != key) j = (j + 1) & (s->tag_capacity - 1);
  if (!s->tags[j].key) {
    if (s->tag_count >= FIRST_COLLECTIVE_TAG) return -2;
    s->tags[j] = (tag_slot){key, (int32_t)s->tag_count++};
  }
  return s->tags[j].id;
}

/* A send or recv task of the call on rank r, after the chain; -1 on error,
 * -2 for MPI_PROC_NULL (nothing to do). */
static int32_t message(replay_state *s, rank_walk *w, int32_t r, const fs_call *c, int receive) {
  int32_t peer = receive ? (c->kind == FS_CALL_SENDRECV || c->kind == FS_CALL_SENDRECV_REPLACE
                                ? c->recv_peer : c->peer)
                         : c->peer;
  int32_t tag = receive && (c->kind == FS_CALL_SENDRECV || c->kind == FS_CALL_SENDRECV_REPLACE)
                    ? c->recv_tag : c->tag;
  int64_t bytes = receive ? (c->kind == FS_CALL_SENDRECV_REPLACE ? c->bytes : c->recv_bytes) : c->bytes;
  if (peer == FS_TRACE_PROC_NULL) return -2;
  if (receive && peer == FS_TRACE_ANY && c->source >= 0) peer = c->source; /* as recorded */
  if (receive && tag == FS_TRACE_ANY && c->source_tag >= 0) tag = c->source_tag;
  int32_t world = peer == FS_TRACE_ANY && receive ? FS_ANY_SOURCE : world_rank(s, r, c->comm, peer);
  if (world == -1 && !(receive && peer == FS_TRACE_ANY))
    return call_error(s, r, c, "%s %d is not a rank of communicator %lld", receive ? "source" : "destination",
                      peer, (long long)s->trace->comm[c->comm].id), -1;
  if (tag < FS_TRACE_ANY) return call_error(s, r, c, "the tag was not recorded"), -1;
  if (bytes < 0) return call_error(s, r, c, "the size was not recorded"), -1;
  int32_t engine_tag = intern_tag(s, c->comm, tag);
  if (engine_tag == -2) return out_of_memory(s), -1;
  int32_t t = add_task(s, receive ? FS_RECV : FS_SEND, r, kind_label(s, (fs_call_kind)c->kind));
  int both = c->kind == FS_CALL_SENDRECV || c->kind == FS_CALL_SENDRECV_REPLACE;
  if (t < 0 || follow(s, w, t) || fs_task_set_tag(s->p, t, engine_tag) ||
      name_task(s, t, r, c, !both ? "" : receive ? ".recv" : ".send") || note_communicator(s, t, c->comm))
    return out_of_memory(s), -1;
  fs_task_set_peer(s->p, t, world);
  fs_task_set_size(s->p, t, bytes);
  if (!receive) s->replay->messages++;
  return t;
}

/* ---- requests ---- */

static int remember_request(replay_state *s, rank_walk *w, int32_t r, const fs_call *c, int32_t task) {
  if (c->request < 0) return 0; /* the reader did not give one: nothing waits for it */
  int64_t limit = 2 * s->trace->rank[r].count + 64;
  if (c->request >= limit) return call_error(s, r, c, "request id %d is out of range", c->request);
  if (c->request >= w->request_capacity) {
    int64_t capacity = w->request_capacity ? w->request_capacity : 64;
    while (capacity <= c->request) capacity *= 2;
    int32_t *task_of = realloc(w->request_task, (size_t)capacity * sizeof *task_of);
    if (task_of) w->request_task = task_of;
    uint8_t *waited = task_of ? realloc(w->request_waited, (size_t)capacity) : NULL;
    if (!waited) return out_of_memory(s);
    w->request_waited = waited;
    for (int64_t i = w->request_capacity; i < capacity; i++) w->request_task[i] = -1, waited[i] = 0;
    w->request_capacity = capacity;
  }
  w->request_task[c->request] = task;
  w->request_waited[c->request] = 0;
  return 0;
}

/* The task of request id, -2 for one that completed at once, -3 for
 * MPI_REQUEST_NULL; -1 with err set when the rank never made it. */
static int32_t request_task(replay_state *s, rank_walk *w, int32_t r, const fs_call *c, int64_t id) {
  if (id < 0) return -3;
  if (id >= w->request_capacity || w->request_task[id] == -1)
    return call_error(s, r, c, "request %lld was not made by an earlier isend, irecv or nonblocking collective",
                      (long long)id), -1;
  return w->request_task[id];
}

/* A proxy after the chain and the completion of the requests listed (ids);
 * any: when only one of them is needed (waitany/waitsome not recorded). */
static int wait_for(replay_state *s, rank_walk *w, int32_t r, const fs_call *c, const int64_t *ids,
                    int64_t count, int any) {
  int32_t join = add_task(s, FS_PROXY, r, kind_label(s, (fs_call_kind)c->kind));
  if (join < 0 || follow(s, w, join) || name_task(s, join, r, c, "")) return out_of_memory(s);
  w->prev = join;
  w->prev_point = FS_AFTER_END;
  int32_t one = join, waiting = 0;
  for (int64_t i = 0; i < count; i++) {
    int32_t task = request_task(s, w, r, c, ids[i]);
    if (task == -1) return -1;
    if (task < 0 && any) return 0; /* one is complete already (or null): the wait ends at once */
    waiting += task >= 0;
  }
  if (!waiting) return 0;
  if (any && ((one = add_task(s, FS_PROXY, r, kind_label(s, (fs_call_kind)c->kind))) < 0 ||
              fs_program_depend(s->p, join, one, FS_AFTER_END)))
    return out_of_memory(s);
  for (int64_t i = 0; i < count; i++) {
    int32_t task = ids[i] < 0 ? -3 : w->request_task[ids[i]];
    if (task < 0) continue;
    if (!any) w->request_waited[ids[i]] = 1;
    if (fs_program_depend(s->p, one, task, FS_AFTER_END)) return out_of_memory(s);
  }
  if (any) fs_task_set_any(s->p, one, 1);
  return 0;
}

static const int64_t *call_list(const replay_state *s, int32_t r, int32_t at, int32_t count) {
  const fs_trace_rank *tr = &s->trace->rank[r];
  if (count <= 0 || at < 0 || (int64_t)at + count > tr->list_used) return NULL;
  return tr->list + at;
}

static int completion(replay_state *s, rank_walk *w, int32_t r, const fs_call *c) {
  fs_call_kind k = (fs_call_kind)c->kind;
  int test = k >= FS_CALL_TEST;
  if (test && c->flag != 1) return 0; /* it found nothing complete: its time is computation */
  int64_t one = c->request;
  if (k == FS_CALL_WAIT || k == FS_CALL_TEST) return wait_for(s, w, r, c, &one, 1, 0);
  const int64_t *list = call_list(s, r, c->list_at, c->list_count);
  if (!list && c->list_count > 0) return call_error(s, r, c, "its request list is missing");
  if (k == FS_CALL_WAITALL || k == FS_CALL_TESTALL) return wait_for(s, w, r, c, list, c->list_count, 0);
  if (k == FS_CALL_WAITANY || k == FS_CALL_TESTANY) {
    if (c->index >= 0 && c->index < c->list_count) return wait_for(s, w, r, c, list + c->index, 1, 0);
    return wait_for(s, w, r, c, list, c->list_count, 1);
  }
  /* waitsome, testsome */
  const int64_t *done = call_list(s, r, c->completed_at, c->completed_count);
  if (done) return wait_for(s, w, r, c, done, c->completed_count, 0);
  return wait_for(s, w, r, c, list, c->list_count, 1);
}

/* ---- collectives ---- */

static int algo_of(fs_call_kind k) {
  switch (k) {
    case FS_CALL_BCAST: return ALGO_BCAST;
    case FS_CALL_REDUCE: return ALGO_REDUCE;
    case FS_CALL_ALLREDUCE: return ALGO_ALLREDUCE;
    case FS_CALL_GATHER: return ALGO_GATHER;
    case FS_CALL_SCATTER: return ALGO_SCATTER;
    case FS_CALL_ALLGATHER: return ALGO_ALLGATHER;
    case FS_CALL_ALLTOALL: return ALGO_ALLTOALL;
    case FS_CALL_BARRIER: case FS_CALL_COMM_SPLIT: case FS_CALL_COMM_DUP: case FS_CALL_COMM_CREATE:
      return ALGO_BARRIER;
    default: return -1;
  }
}

static int is_rooted(fs_call_kind k) {
  return k == FS_CALL_BCAST || k == FS_CALL_REDUCE || k == FS_CALL_GATHER || k == FS_CALL_SCATTER ||
         k == FS_CALL_GATHERV || k == FS_CALL_SCATTERV;
}

/* The generator's schedule for (algo, ranks, bytes), generated once. */
static const fs_program *generated(replay_state *s, int algo, int32_t ranks, int32_t root, int64_t bytes,
                                   int32_t r, const fs_call *c) {
  for (int32_t i = 0; i < s->cache_count; i++) {
    const cached_schedule *e = &s->cache[i];
    if (e->algo == algo && e->ranks == ranks && e->root == root && e->bytes == bytes) return e->program;
  }
  algorithm *a = &s->algorithms[algo];
  fs_generator_options o = {.ranks = ranks, .size = bytes, .rounds = 1, .root = root,
                            .schedule = a->schedule[0] ? a->schedule : NULL, .ways = a->ways,
                            .segment = a->segment};
  fs_error why;
  fs_program *program = a->generator->generate(&o, &why);
  if (!program) return call_error(s, r, c, "%s", why.message), NULL;
  if (s->cache_count == s->cache_capacity) {
    int32_t capacity = s->cache_capacity ? s->cache_capacity * 2 : 16;
    cached_schedule *cache = realloc(s->cache, (size_t)capacity * sizeof *cache);
    if (!cache) return fs_program_free(program), out_of_memory(s), NULL;
    s->cache = cache;
    s->cache_capacity = capacity;
  }
  s->cache[s->cache_count++] = (cached_schedule){algo, ranks, root, bytes, program};
  a->used = 1;
  return program;
}

/* Copies schedule `sub` into the program: sub rank i runs on world rank
 * world[i]; entry[i] and exit[i] receive the member's proxies. */
static int embed(replay_state *s, const fs_program *sub, const int32_t *world, int32_t *entry, int32_t *exit,
                 const char *algorithm_name, int32_t member_label) {
  fs_program *p = s->p;
  int32_t n = sub->ranks, base = p->tasks;
  uint8_t *mark = calloc((size_t)sub->tasks + 1, 1); /* 1: has a same-rank predecessor, 2: successor */
  int32_t *label_of = calloc((size_t)sub->label_count + 1, sizeof *label_of);
  int32_t tag_base = s->next_collective_tag, tag_span = 1;
  if (!mark || !label_of) goto oom;
  for (int32_t l = 0; l < sub->label_count; l++) {
    char text[160];
    int length = snprintf(text, sizeof text, "%s/%s", algorithm_name, sub->labels[l]);
    if (length >= (int)sizeof text) length = (int)sizeof text - 1;
    if ((label_of[l] = fs_program_intern_label(p, text, length)) < 0) goto oom;
  }
  for (int32_t u = 0; u < sub->tasks; u++) {
    for (uint32_t e = sub->successor_at[u]; e < sub->successor_at[u + 1]; e++) {
      int32_t v = FS_EDGE_TASK(sub->successor[e]);
      if (sub->rank[v] == sub->rank[u]) mark[v] |= 1, mark[u] |= 2;
    }
    int32_t tag = fs_task_tag(sub, u);
    if (tag >= tag_span) tag_span = tag + 1;
  }
  if (tag_span > INT32_MAX - tag_base) {
    free(mark), free(label_of);
    return fs_error_set(s->err, "replay: more collective tags than an int holds");
  }
  s->next_collective_tag += tag_span;
  /* the members' proxies, then the schedule's tasks in its order */
  for (int32_t i = 0; i < n; i++) {
    if ((entry[i] = add_task(s, FS_PROXY, world[i], member_label)) < 0 ||
        (exit[i] = add_task(s, FS_PROXY, world[i], member_label)) < 0)
      goto oom;
  }
  base = p->tasks;
  for (int32_t u = 0; u < sub->tasks; u++) {
    fs_task_kind kind = sub->kind[u] == FS_START ? FS_PROXY : (fs_task_kind)sub->kind[u];
    int32_t label = sub->label && sub->label[u] >= 0 ? label_of[sub->label[u]] : -1;
    int32_t t = add_task(s, kind, world[sub->rank[u]], label);
    if (t < 0) goto oom;
    p->flags[t] = sub->kind[u] == FS_START ? 0 : sub->flags[u];
    p->value[t] = sub->kind[u] == FS_START ? 0 : sub->value[u];
    if (sub->flags[u] & FS_HAS_ANY) p->need[t] = sub->need[u];
    if (sub->peer[u] >= 0) fs_task_set_peer(p, t, world[sub->peer[u]]);
    else p->peer[t] = sub->peer[u];
    if (kind == FS_SEND || kind == FS_RECV) {
      int32_t tag = fs_task_tag(sub, u);
      if (fs_task_set_tag(p, t, tag == FS_ANY_TAG ? FS_ANY_TAG : tag_base + tag)) goto oom;
    }
    if ((fs_task_stride(sub, u) && fs_task_set_stride(p, t, fs_task_stride(sub, u))) ||
        (fs_task_cpu(sub, u) && fs_task_set_cpu(p, t, fs_task_cpu(sub, u))) ||
        (fs_task_nic(sub, u) && fs_task_set_nic(p, t, fs_task_nic(sub, u))))
      goto oom;
  }
  for (int32_t u = 0; u < sub->tasks; u++) {
    for (uint32_t e = sub->successor_at[u]; e < sub->successor_at[u + 1]; e++) {
      uint32_t edge = sub->successor[e];
      int point = edge & FS_EDGE_LOCAL ? FS_AFTER_LOCAL : edge & FS_EDGE_START ? FS_AFTER_START : FS_AFTER_END;
      if (fs_program_depend(p, base + FS_EDGE_TASK(edge), base + u, point)) goto oom;
    }
    int32_t i = sub->rank[u];
    if (!(mark[u] & 1) && !(sub->flags[u] & FS_HAS_ANY) && fs_program_depend(p, base + u, entry[i], FS_AFTER_END))
      goto oom;
    if (!(mark[u] & 2) && fs_program_depend(p, exit[i], base + u, FS_AFTER_END)) goto oom;
  }
  /* a member with no task in the schedule (one rank) passes straight through */
  for (int32_t i = 0; i < n; i++) mark[i] = 0;
  for (int32_t u = 0; u < sub->tasks; u++) mark[sub->rank[u]] = 1;
  for (int32_t i = 0; i < n; i++)
    if (!mark[i] && fs_program_depend(p, exit[i], entry[i], FS_AFTER_END)) goto oom;
  free(mark);
  free(label_of);
  return 0;
oom:
  free(mark);
  free(label_of);
  return out_of_memory(s);
}

/* Builds the k-th collective of communicator comm (the call c of rank r
 * reached it first): every member's entry and exit. */
static int build_collective(replay_state *s, int32_t r, int64_t call) {
  const fs_trace *t = s->trace;
  const fs_call *c = &t->rank[r].calls[call];
  const fs_trace_comm *comm = &t->comm[c->comm];
  int32_t n = comm->size, k = s->instance[r][call];
  fs_call_kind kind = (fs_call_kind)c->kind;
  const fs_call **member = malloc((size_t)n * sizeof *member);
  int32_t *world = malloc((size_t)n * sizeof *world), *entry = malloc((size_t)n * sizeof *entry),
          *exit = malloc((size_t)n * sizeof *exit);
  int64_t *bytes = malloc((size_t)n * sizeof *bytes);
  const int64_t **lists = malloc((size_t)n * sizeof *lists);
  int status = -1;
  fs_program *pattern = NULL;
  if (!member || !world || !entry || !exit || !bytes || !lists) {
    out_of_memory(s);
    goto done;
  }
  for (int32_t m = 0; m < n; m++) {
    int32_t w = comm->members[m];
    member[m] = &t->rank[w].calls[s->sequence[c->comm][m].at[k]];
    const fs_call *o = member[m];
    int same = o->kind == c->kind || (is_comm_creation(kind) && is_comm_creation((fs_call_kind)o->kind));
    if (!same || (is_rooted(kind) && o->root != c->root)) {
      call_error(s, w, o, "collective %d of communicator %lld does not match rank %d's %s%s (line %u)", k,
                 (long long)comm->id, r, fs_call_kind_name(kind), same ? " with another root" : "", c->line);
      goto done;
    }
    bytes[m] = o->bytes;
    lists[m] = call_list(s, w, o->list_at, o->list_count);
  }
  int32_t root = is_rooted(kind) ? c->root : 0;
  if (is_rooted(kind) && (root < 0 || root >= n)) {
    call_error(s, r, c, "root %d is not a rank of communicator %lld", root, (long long)comm->id);
    goto done;
  }
  int algo = algo_of(kind);
  int32_t shift = 0;
  const fs_program *sub = NULL;
  const char *name = NULL;
  if (algo >= 0) {
    /* the size each generator takes: the vector (bcast, reduce, allreduce)
     * or one rank's block (gather, scatter, allgather, alltoall) */
    int64_t size = 0;
    for (int32_t m = 0; m < n && algo != ALGO_BARRIER; m++) {
      int64_t b = algo == ALGO_SCATTER ? (member[m]->recv_bytes > 0 ? member[m]->recv_bytes : member[m]->bytes)
                  : algo == ALGO_BCAST ? member[root]->bytes : member[m]->bytes;
      if (b > size) size = b;
    }
    /* a generator without --root runs on ranks relative to the root */
    shift = s->algorithms[algo].generator->options & FS_GEN_ROOT ? 0 : root;
    sub = generated(s, algo, n, root - shift, size, r, c);
    name = s->algorithms[algo].generator->name;
    for (int32_t i = 0; i < n; i++) world[i] = comm->members[(i + shift) % n];
  } else {
    int64_t recv_bytes = 0;
    for (int32_t m = 0; m < n; m++) {
      int needs_list = kind == FS_CALL_ALLTOALLV || kind == FS_CALL_REDUCE_SCATTER;
      if (needs_list && (!lists[m] || member[m]->list_count < n)) {
        call_error(s, comm->members[m], member[m], "expected %d counts, one per rank of the communicator", n);
        goto done;
      }
      if (kind == FS_CALL_SCATTERV) bytes[m] = member[m]->recv_bytes;
      if (kind == FS_CALL_REDUCE_SCATTER) bytes[m] = lists[0][m];
      if (kind == FS_CALL_REDUCE_SCATTER_BLOCK) bytes[m] = member[0]->recv_bytes;
      world[m] = comm->members[m];
      if (member[m]->recv_bytes > recv_bytes) recv_bytes = member[m]->recv_bytes;
    }
    fs_error why;
    switch (kind) {
      case FS_CALL_GATHERV: pattern = fs_pattern_gatherv(n, root, bytes, &why); break;
      case FS_CALL_SCATTERV: pattern = fs_pattern_scatterv(n, root, bytes, &why); break;
      case FS_CALL_ALLGATHERV: pattern = fs_pattern_allgatherv(n, bytes, &why); break;
      case FS_CALL_ALLTOALLV: pattern = fs_pattern_alltoallv(n, lists, &why); break;
      case FS_CALL_REDUCE_SCATTER: case FS_CALL_REDUCE_SCATTER_BLOCK:
        pattern = fs_pattern_reduce_scatter(n, bytes, &why);
        break;
      default: pattern = fs_pattern_scan(n, member[0]->bytes, kind == FS_CALL_EXSCAN, &why); break;
    }
    if (!pattern) fs_error_set(s->err, "%s", why.message);
    sub = pattern;
    name = pattern ? pattern->labels[0] : NULL;
  }
  if (!sub || embed(s, sub, world, entry, exit, name, kind_label(s, kind))) goto done;
  for (int32_t i = 0; i < n; i++) {
    int32_t m = (i + shift) % n;
    int32_t w = comm->members[m];
    int64_t at = s->sequence[c->comm][m].at[k];
    s->entry[w][at] = entry[i];
    s->exit[w][at] = exit[i];
    if (name_task(s, entry[i], w, member[m], "")) {
      out_of_memory(s);
      goto done;
    }
  }
  s->replay->collectives++;
  status = 0;
done:
  fs_program_free(pattern);
  free(member), free(world), free(entry), free(exit), free(bytes), free(lists);
  return status;
}

/* A nonblocking collective runs as the blocking one, here: its request is
 * complete when the member leaves it, and its wait finds it done. */
static int collective(replay_state *s, rank_walk *w, int32_t r, int64_t i) {
  if (s->entry[r][i] < 0 && build_collective(s, r, i)) return -1;
  if (fs_program_depend(s->p, s->entry[r][i], w->prev, w->prev_point)) return out_of_memory(s);
  w->prev = s->exit[r][i];
  w->prev_point = FS_AFTER_END;
  return remember_request(s, w, r, &s->trace->rank[r].calls[i], w->prev);
}

/* ---- pass 2: one rank's calls ---- */

static int point_to_point(replay_state *s, rank_walk *w, int32_t r, const fs_call *c) {
  fs_call_kind k = (fs_call_kind)c->kind;
  int nonblocking = (k >= FS_CALL_ISEND && k <= FS_CALL_IRECV);
  int receive = k == FS_CALL_RECV || k == FS_CALL_IRECV;
  int32_t t = message(s, w, r, c, receive);
  if (t == -1) return -1;
  if (nonblocking) return remember_request(s, w, r, c, t == -2 ? -2 : t);
  if (t >= 0) w->prev = t, w->prev_point = FS_AFTER_END;
  return 0;
}

static int sendrecv(replay_state *s, rank_walk *w, int32_t r, const fs_call *c) {
  int32_t recv = message(s, w, r, c, 1);
  int32_t send = recv == -1 ? -1 : message(s, w, r, c, 0);
  if (send == -1) return -1;
  int32_t join = add_task(s, FS_PROXY, r, kind_label(s, (fs_call_kind)c->kind));
  if (join < 0 || follow(s, w, join) || (recv >= 0 && fs_program_depend(s->p, join, recv, FS_AFTER_END)) ||
      (send >= 0 && fs_program_depend(s->p, join, send, FS_AFTER_END)))
    return out_of_memory(s);
  w->prev = join;
  w->prev_point = FS_AFTER_END;
  return 0;
}

/* The end of rank r: after its chain and every request nobody waited for
 * (MPI_Finalize completes them); named after the finalize call when the
 * rank has one. */
static int finish_rank(replay_state *s, rank_walk *w, int32_t r, const fs_call *finalize) {
  if (flush_compute(s, w, r)) return out_of_memory(s);
  int32_t end = add_task(s, FS_PROXY, r, kind_label(s, FS_CALL_FINALIZE));
  if (end < 0 || follow(s, w, end) || (finalize && name_task(s, end, r, finalize, "")))
    return out_of_memory(s);
  for (int64_t id = 0; id < w->request_capacity; id++)
    if (w->request_task[id] >= 0 && !w->request_waited[id] &&
        fs_program_depend(s->p, end, w->request_task[id], FS_AFTER_END))
      return out_of_memory(s);
  return 0;
}

static int walk_rank(replay_state *s, int32_t r) {
  const fs_trace_rank *tr = &s->trace->rank[r];
  rank_walk w = {.prev_point = FS_AFTER_END};
  int status = -1;
  const fs_call *finalize = NULL;
  w.prev = add_task(s, FS_START, r, kind_label(s, FS_CALL_INIT));
  if (w.prev < 0) return out_of_memory(s);
  w.last_end = tr->count ? tr->calls[0].start : 0;
  for (int64_t i = 0; i < tr->count; i++) {
    const fs_call *c = &tr->calls[i];
    fs_call_kind k = (fs_call_kind)c->kind;
    if (c->end < c->start) {
      call_error(s, r, c, "it ends before it starts");
      goto done;
    }
    if (k == FS_CALL_INIT) { /* the replay starts at the end of MPI_Init */
      w.pending = 0;
      w.last_end = c->end;
      continue;
    }
    if (k == FS_CALL_FINALIZE) {
      gap_before(&w, c);
      finalize = c;
      break;
    }
    if (k == FS_CALL_COMPUTE) { /* the gap before it, then its own duration and flops (trace.h) */
      gap_before(&w, c);
      w.pending += (double)c->end - (double)c->start;
      w.pending += c->amount > 0 ? c->amount / s->options->flop_rate * 1e12 : 0;
      continue;
    }
    int simulated = k != FS_CALL_OTHER && k != FS_CALL_PROBE && k != FS_CALL_IPROBE && k != FS_CALL_COMM_FREE &&
                    !(k >= FS_CALL_TEST && k <= FS_CALL_TESTSOME && c->flag != 1) &&
                    !(is_collective_call(c) == 0 && (fs_call_kind_is_collective(k) || is_comm_creation(k)));
    if (!simulated) { /* its time joins the next gap; a collective on self completes its request at once */
      if (fs_call_kind_is_collective(k) && remember_request(s, &w, r, c, -2)) goto done;
      continue;
    }
    gap_before(&w, c);
    if (flush_compute(s, &w, r)) {
      out_of_memory(s);
      goto done;
    }
    s->replay->calls++;
    int failed;
    if (is_collective_call(c)) failed = collective(s, &w, r, i);
    else if (k == FS_CALL_SENDRECV || k == FS_CALL_SENDRECV_REPLACE) failed = sendrecv(s, &w, r, c);
    else if (k >= FS_CALL_WAIT && k <= FS_CALL_TESTSOME) failed = completion(s, &w, r, c);
    else failed = point_to_point(s, &w, r, c);
    if (failed) goto done;
  }
  status = finish_rank(s, &w, r, finalize);
done:
  free(w.request_task);
  free(w.request_waited);
  return status;
}

/* ---- the whole ---- */

static void free_state(replay_state *s) {
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
}

static int allocate_state(replay_state *s) {
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

static void describe_algorithms(replay_state *s) {
  char *at = s->replay->algorithms;
  size_t left = sizeof s->replay->algorithms;
  at[0] = 0;
  for (int i = 0; i < ALGO_COUNT; i++) {
    if (!s->algorithms[i].used) continue;
    int n = snprintf(at, left, "%s%s=%s", at == s->replay->algorithms ? "" : " ", collective_names[i],
                     s->algorithms[i].generator->name);
    if (n < 0 || (size_t)n >= left) return;
    at += n, left -= (size_t)n;
  }
}

static void free_origins(fs_replay *replay) {
  for (int32_t r = 0; replay->file && r < replay->ranks; r++) free(replay->file[r]);
  free(replay->file), free(replay->comm_id), free(replay->tag_value), free(replay->tag_comm);
  free(replay->message_comm);
}

/* What fs_replay_describe_task needs once the trace is gone: the tag
 * table turned around, the communicators' ids, the ranks' files. */
static int keep_origins(replay_state *s) {
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
static int read_name(const char *name, char *place, uint64_t *number, const char **call, size_t *length) {
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
                            char *communicator, size_t communicator_size, char *call, size_t call_size) {
  const fs_replay *replay = state;
  int32_t engine_tag = fs_task_tag(p, task);
  if (task >= replay->message_capacity || replay->message_comm[task] < 0 ||
      engine_tag >= replay->tag_count)
    return -1;
  int32_t comm = replay->message_comm[task];
  *tag = engine_tag < 0 ? FS_ANY_TAG : replay->tag_value[engine_tag];
  if (comm == FS_COMM_WORLD) snprintf(communicator, communicator_size, "MPI_COMM_WORLD");
  else if (comm == FS_COMM_SELF) snprintf(communicator, communicator_size, "MPI_COMM_SELF");
  else snprintf(communicator, communicator_size, "communicator %lld", (long long)replay->comm_id[comm]);
  char buffer[24], place;
  const char *name = fs_task_name(p, task, buffer), *kind;
  uint64_t number;
  size_t length;
  call[0] = 0;
  if (read_name(name, &place, &number, &kind, &length) == 0) {
    const char *file = replay->file[p->rank[task]];
    if (place == 'L')
      snprintf(call, call_size, "%.*s at %s:%llu", (int)length, kind, file, (unsigned long long)number);
    else
      snprintf(call, call_size, "%.*s, call %llu of %s", (int)length, kind, (unsigned long long)number, file);
  }
  return 0;
}

fs_replay *fs_replay_build(const fs_trace *trace, const fs_replay_options *options, fs_error *err) {
  replay_state s = {.trace = trace, .options = options, .err = err, .compute_label = -1,
                    .next_collective_tag = FIRST_COLLECTIVE_TAG};
  for (int i = 0; i < FS_CALL_KINDS; i++) s.kind_label[i] = -1;
  if (!(options->compute_scale >= 0) || !(options->flop_rate > 0)) {
    fs_error_set(err, "replay: --compute-scale must be >= 0 and --flop-rate > 0");
    return NULL;
  }
  if (parse_algorithms(s.algorithms, options->algorithms, err)) return NULL;
  fs_replay *replay = calloc(1, sizeof *replay);
  s.replay = replay;
  s.p = fs_program_new(trace->ranks);
  if (!replay || !s.p || allocate_state(&s) ||
      !(replay->recorded = malloc((size_t)trace->ranks * sizeof *replay->recorded))) {
    out_of_memory(&s);
    goto fail;
  }
  replay->ranks = trace->ranks;
  if (list_collectives(&s)) goto fail;
  for (int32_t r = 0; r < trace->ranks; r++) {
    replay->recorded[r] = fs_trace_wall_time(trace, r);
    if (replay->recorded[r] == 0) replay->recorded[r] = -1; /* a trace without times (SimGrid) */
    if (walk_rank(&s, r)) goto fail;
  }
  if (fs_program_finalize(s.p, err)) goto fail;
  if (keep_origins(&s)) {
    out_of_memory(&s);
    goto fail;
  }
  describe_algorithms(&s);
  replay->program = s.p;
  free_state(&s);
  return replay;
fail:
  free_state(&s);
  fs_program_free(s.p);
  if (replay) free(replay->recorded), free_origins(replay);
  free(replay);
  return NULL;
}

void fs_replay_free(fs_replay *replay) {
  if (!replay) return;
  fs_program_free(replay->program);
  free(replay->recorded);
  free_origins(replay);
  free(replay);
}
