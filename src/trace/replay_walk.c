/* replay_walk.c: pass 2 of the replay, one rank's calls in order, chained
 * into tasks. `prev` is what the rank's next task waits for (a completion,
 * or the start of a nonblocking call). The gap between one simulated call's
 * end and the next one's start is computation; sends and receives become
 * send and recv tasks with tags made unique per communicator; a request
 * remembers the task that completes it, and a wait joins those of the
 * requests it lists; a collective is entered through its instance's proxies
 * (replay_collectives.c). */
#include "trace/replay_lowering.h"

#include <math.h>
#include <stdlib.h>

typedef struct rank_walk {
  int32_t prev;     /* the rank's next task waits for it ... */
  int prev_point;   /* ... reaching this point */
  fs_time last_end; /* end of the last simulated call */
  double pending;   /* computation not yet emitted, ps before --compute-scale */
  int32_t *
      request_task; /* per request id: its task; -1 unknown, -2 completed at once (MPI_PROC_NULL) */
  uint8_t *request_waited;
  int64_t request_capacity;
} rank_walk;

/* ---- computation and messages ---- */

/* The world rank of `peer` in the call's communicator, on rank r; -1 when
 * out of range. */
static int32_t world_rank(const fs_lowering *s, int32_t r, int32_t comm, int32_t peer) {
  if (comm == FS_COMM_SELF) return peer == 0 ? r : -1;
  const fs_trace_comm *c = &s->trace->comm[comm];
  return peer >= 0 && peer < c->size ? c->members[peer] : -1;
}

/* task waits for the rank's chain. */
static int follow(fs_lowering *s, rank_walk *w, int32_t task) {
  return fs_program_depend(s->p, task, w->prev, w->prev_point);
}

/* Emits the computation accumulated since the last simulated call. */
static int flush_compute(fs_lowering *s, rank_walk *w, int32_t r) {
  double scaled = w->pending * s->options->compute_scale;
  w->pending = 0;
  if (!(scaled >= 0.5)) return 0;
  if (scaled > (double)FS_TRACE_TIME_LIMIT) scaled = (double)FS_TRACE_TIME_LIMIT; /* saturates */
  if (s->compute_label < 0 && (s->compute_label = fs_program_intern_label(s->p, "compute", 7)) < 0)
    return -1;
  int32_t t = fs_lower_add_task(s, FS_COMPUTE, r, s->compute_label);
  if (t < 0 || follow(s, w, t)) return -1;
  fs_time time = (fs_time)llround(scaled);
  fs_task_set_time(s->p, t, time);
  s->replay->computation = time > FS_TRACE_TIME_LIMIT - s->replay->computation
                               ? FS_TRACE_TIME_LIMIT
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
 * FS_FIRST_COLLECTIVE_TAG. */
static int32_t intern_tag(fs_lowering *s, int32_t comm, int32_t tag) {
  if (tag == FS_TRACE_ANY) return FS_ANY_TAG;
  if (s->tag_count * 2 >= s->tag_capacity) {
    int64_t capacity = s->tag_capacity ? s->tag_capacity * 2 : 64;
    fs_tag_slot *slots = calloc((size_t)capacity, sizeof *slots);
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
    if (s->tag_count >= FS_FIRST_COLLECTIVE_TAG) return -2;
    s->tags[j] = (fs_tag_slot){key, (int32_t)s->tag_count++};
  }
  return s->tags[j].id;
}

/* A send or recv task of the call on rank r, after the chain; -1 on error,
 * -2 for MPI_PROC_NULL (nothing to do). */
static int32_t message(fs_lowering *s, rank_walk *w, int32_t r, const fs_call *c, int receive) {
  int32_t peer = receive ? (c->kind == FS_CALL_SENDRECV || c->kind == FS_CALL_SENDRECV_REPLACE
                                ? c->recv_peer
                                : c->peer)
                         : c->peer;
  int32_t tag = receive && (c->kind == FS_CALL_SENDRECV || c->kind == FS_CALL_SENDRECV_REPLACE)
                    ? c->recv_tag
                    : c->tag;
  int64_t bytes = receive ? (c->kind == FS_CALL_SENDRECV_REPLACE ? c->bytes : c->recv_bytes)
                          : c->bytes;
  if (peer == FS_TRACE_PROC_NULL) return -2;
  if (receive && peer == FS_TRACE_ANY && c->source >= 0) peer = c->source; /* as recorded */
  if (receive && tag == FS_TRACE_ANY && c->source_tag >= 0) tag = c->source_tag;
  int32_t world = peer == FS_TRACE_ANY && receive ? FS_ANY_SOURCE : world_rank(s, r, c->comm, peer);
  if (world == -1 && !(receive && peer == FS_TRACE_ANY))
    return fs_lower_call_error(s, r, c, "%s %d is not a rank of communicator %lld",
                               receive ? "source" : "destination", peer,
                               (long long)s->trace->comm[c->comm].id),
           -1;
  if (tag < FS_TRACE_ANY) return fs_lower_call_error(s, r, c, "the tag was not recorded"), -1;
  if (bytes < 0) return fs_lower_call_error(s, r, c, "the size was not recorded"), -1;
  int32_t engine_tag = intern_tag(s, c->comm, tag);
  if (engine_tag == -2) return fs_lower_out_of_memory(s), -1;
  int32_t label = fs_lower_kind_label(s, (fs_call_kind)c->kind);
  int32_t t = fs_lower_add_task(s, receive ? FS_RECV : FS_SEND, r, label);
  int both = c->kind == FS_CALL_SENDRECV || c->kind == FS_CALL_SENDRECV_REPLACE;
  if (t < 0 || follow(s, w, t) || fs_task_set_tag(s->p, t, engine_tag))
    return fs_lower_out_of_memory(s), -1;
  if (fs_lower_name_task(s, t, r, c,
                         !both     ? 0
                         : receive ? FS_ORIGIN_RECV
                                   : FS_ORIGIN_SEND,
                         c->comm))
    return -1;
  fs_task_set_peer(s->p, t, world);
  fs_task_set_size(s->p, t, bytes);
  if (!receive) s->replay->messages++;
  return t;
}

/* ---- requests ---- */

static int remember_request(fs_lowering *s, rank_walk *w, int32_t r, const fs_call *c,
                            int32_t task) {
  if (c->request < 0) return 0; /* the reader did not give one: nothing waits for it */
  int64_t limit = 2 * s->trace->rank[r].count + 64;
  if (c->request >= limit)
    return fs_lower_call_error(s, r, c, "request id %d is out of range", c->request);
  if (c->request >= w->request_capacity) {
    int64_t capacity = w->request_capacity ? w->request_capacity : 64;
    while (capacity <= c->request) capacity *= 2;
    int32_t *task_of = realloc(w->request_task, (size_t)capacity * sizeof *task_of);
    if (task_of) w->request_task = task_of;
    uint8_t *waited = task_of ? realloc(w->request_waited, (size_t)capacity) : NULL;
    if (!waited) return fs_lower_out_of_memory(s);
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
static int32_t request_task(fs_lowering *s, rank_walk *w, int32_t r, const fs_call *c, int64_t id) {
  if (id < 0) return -3;
  if (id >= w->request_capacity || w->request_task[id] == -1)
    return fs_lower_call_error(s, r, c,
                               "request %lld was not made by an earlier isend, irecv or "
                               "nonblocking "
                               "collective",
                               (long long)id),
           -1;
  return w->request_task[id];
}

/* A proxy after the chain and the completion of the requests listed (ids);
 * any: when only one of them is needed (waitany/waitsome not recorded). */
static int wait_for(fs_lowering *s, rank_walk *w, int32_t r, const fs_call *c, const int64_t *ids,
                    int64_t count, int any) {
  int32_t join = fs_lower_add_task(s, FS_PROXY, r, fs_lower_kind_label(s, (fs_call_kind)c->kind));
  if (join < 0 || follow(s, w, join)) return fs_lower_out_of_memory(s);
  if (fs_lower_name_task(s, join, r, c, 0, -1)) return -1;
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
  if (any && ((one = fs_lower_add_task(s, FS_PROXY, r,
                                       fs_lower_kind_label(s, (fs_call_kind)c->kind))) < 0 ||
              fs_program_depend(s->p, join, one, FS_AFTER_END)))
    return fs_lower_out_of_memory(s);
  for (int64_t i = 0; i < count; i++) {
    int32_t task = ids[i] < 0 ? -3 : w->request_task[ids[i]];
    if (task < 0) continue;
    if (!any) w->request_waited[ids[i]] = 1;
    if (fs_program_depend(s->p, one, task, FS_AFTER_END)) return fs_lower_out_of_memory(s);
  }
  if (any) fs_task_set_any(s->p, one, 1);
  return 0;
}

static int completion(fs_lowering *s, rank_walk *w, int32_t r, const fs_call *c) {
  fs_call_kind k = (fs_call_kind)c->kind;
  int test = k >= FS_CALL_TEST;
  if (test && c->flag != 1) return 0; /* it found nothing complete: its time is computation */
  int64_t one = c->request;
  if (k == FS_CALL_WAIT || k == FS_CALL_TEST) return wait_for(s, w, r, c, &one, 1, 0);
  const int64_t *list = fs_lower_call_list(s, r, c->list_at, c->list_count);
  if (!list && c->list_count > 0)
    return fs_lower_call_error(s, r, c, "its request list is missing");
  if (k == FS_CALL_WAITALL || k == FS_CALL_TESTALL)
    return wait_for(s, w, r, c, list, c->list_count, 0);
  if (k == FS_CALL_WAITANY || k == FS_CALL_TESTANY) {
    if (c->index >= 0 && c->index < c->list_count)
      return wait_for(s, w, r, c, list + c->index, 1, 0);
    return wait_for(s, w, r, c, list, c->list_count, 1);
  }
  /* waitsome, testsome */
  const int64_t *done = fs_lower_call_list(s, r, c->completed_at, c->completed_count);
  if (done) return wait_for(s, w, r, c, done, c->completed_count, 0);
  return wait_for(s, w, r, c, list, c->list_count, 1);
}

/* A nonblocking collective runs as the blocking one, here: its request is
 * complete when the member leaves it, and its wait finds it done. */
static int collective(fs_lowering *s, rank_walk *w, int32_t r, int64_t i) {
  if (s->entry[r][i] < 0 && fs_lower_build_collective(s, r, i)) return -1;
  if (fs_program_depend(s->p, s->entry[r][i], w->prev, w->prev_point))
    return fs_lower_out_of_memory(s);
  w->prev = s->exit[r][i];
  w->prev_point = FS_AFTER_END;
  return remember_request(s, w, r, &s->trace->rank[r].calls[i], w->prev);
}

/* ---- one rank's calls ---- */

static int point_to_point(fs_lowering *s, rank_walk *w, int32_t r, const fs_call *c) {
  fs_call_kind k = (fs_call_kind)c->kind;
  int nonblocking = (k >= FS_CALL_ISEND && k <= FS_CALL_IRECV);
  int receive = k == FS_CALL_RECV || k == FS_CALL_IRECV;
  int32_t t = message(s, w, r, c, receive);
  if (t == -1) return -1;
  if (nonblocking) return remember_request(s, w, r, c, t == -2 ? -2 : t);
  if (t >= 0) w->prev = t, w->prev_point = FS_AFTER_END;
  return 0;
}

static int sendrecv(fs_lowering *s, rank_walk *w, int32_t r, const fs_call *c) {
  int32_t recv = message(s, w, r, c, 1);
  int32_t send = recv == -1 ? -1 : message(s, w, r, c, 0);
  if (send == -1) return -1;
  int32_t join = fs_lower_add_task(s, FS_PROXY, r, fs_lower_kind_label(s, (fs_call_kind)c->kind));
  if (join < 0 || follow(s, w, join) ||
      (recv >= 0 && fs_program_depend(s->p, join, recv, FS_AFTER_END)) ||
      (send >= 0 && fs_program_depend(s->p, join, send, FS_AFTER_END)))
    return fs_lower_out_of_memory(s);
  w->prev = join;
  w->prev_point = FS_AFTER_END;
  return 0;
}

/* The end of rank r: after its chain and every request nobody waited for
 * (MPI_Finalize completes them); named after the finalize call when the
 * rank has one. */
static int finish_rank(fs_lowering *s, rank_walk *w, int32_t r, const fs_call *finalize) {
  if (flush_compute(s, w, r)) return fs_lower_out_of_memory(s);
  int32_t end = fs_lower_add_task(s, FS_PROXY, r, fs_lower_kind_label(s, FS_CALL_FINALIZE));
  if (end < 0 || follow(s, w, end)) return fs_lower_out_of_memory(s);
  if (finalize && fs_lower_name_task(s, end, r, finalize, 0, -1)) return -1;
  for (int64_t id = 0; id < w->request_capacity; id++)
    if (w->request_task[id] >= 0 && !w->request_waited[id] &&
        fs_program_depend(s->p, end, w->request_task[id], FS_AFTER_END))
      return fs_lower_out_of_memory(s);
  return 0;
}

/* Calls that take part in the simulation. The others' time joins the next
 * gap: calls not simulated, tests that found nothing complete, collectives
 * on MPI_COMM_SELF. */
static int is_simulated(const fs_call *c) {
  fs_call_kind k = (fs_call_kind)c->kind;
  return k != FS_CALL_OTHER && k != FS_CALL_PROBE && k != FS_CALL_IPROBE &&
         k != FS_CALL_COMM_FREE && !(k >= FS_CALL_TEST && k <= FS_CALL_TESTSOME && c->flag != 1) &&
         !(fs_lower_is_collective_call(c) == 0 &&
           (fs_call_kind_is_collective(k) || fs_lower_is_comm_creation(k)));
}

/* Simulated call i of rank r: the computation before it, then its tasks. */
static int simulate_call(fs_lowering *s, rank_walk *w, int32_t r, int64_t i) {
  const fs_call *c = &s->trace->rank[r].calls[i];
  fs_call_kind k = (fs_call_kind)c->kind;
  gap_before(w, c);
  if (flush_compute(s, w, r)) return fs_lower_out_of_memory(s);
  s->replay->calls++;
  if (fs_lower_is_collective_call(c)) return collective(s, w, r, i);
  if (k == FS_CALL_SENDRECV || k == FS_CALL_SENDRECV_REPLACE) return sendrecv(s, w, r, c);
  if (k >= FS_CALL_WAIT && k <= FS_CALL_TESTSOME) return completion(s, w, r, c);
  return point_to_point(s, w, r, c);
}

/* Call i of rank r: 0, 1 at its MPI_Finalize (the walk stops), -1 with err. */
static int walk_call(fs_lowering *s, rank_walk *w, int32_t r, int64_t i) {
  const fs_call *c = &s->trace->rank[r].calls[i];
  fs_call_kind k = (fs_call_kind)c->kind;
  if (c->end < c->start) return fs_lower_call_error(s, r, c, "it ends before it starts");
  if (k == FS_CALL_INIT) { /* the replay starts at the end of MPI_Init */
    w->pending = 0;
    w->last_end = c->end;
    return 0;
  }
  if (k == FS_CALL_FINALIZE) {
    gap_before(w, c);
    return 1;
  }
  if (k == FS_CALL_COMPUTE) { /* the gap before it, then its own duration and flops (trace.h) */
    gap_before(w, c);
    w->pending += (double)c->end - (double)c->start;
    w->pending += c->amount > 0 ? c->amount / s->options->flop_rate * 1e12 : 0;
    return 0;
  }
  if (!is_simulated(c)) /* a collective on self completes its request at once */
    return fs_call_kind_is_collective(k) && remember_request(s, w, r, c, -2) ? -1 : 0;
  return simulate_call(s, w, r, i) ? -1 : 0;
}

int fs_lower_walk_rank(fs_lowering *s, int32_t r) {
  const fs_trace_rank *tr = &s->trace->rank[r];
  rank_walk w = {.prev_point = FS_AFTER_END};
  w.prev = fs_lower_add_task(s, FS_START, r, fs_lower_kind_label(s, FS_CALL_INIT));
  if (w.prev < 0) return fs_lower_out_of_memory(s);
  w.last_end = tr->count ? tr->calls[0].start : 0;
  const fs_call *finalize = NULL;
  int step = 0;
  for (int64_t i = 0; i < tr->count && step == 0; i++) {
    step = walk_call(s, &w, r, i);
    if (step == 1) finalize = &tr->calls[i];
  }
  int status = step < 0 ? -1 : finish_rank(s, &w, r, finalize);
  free(w.request_task);
  free(w.request_waited);
  return status;
}
