/* msccl.c: `fennelsim gen msccl --schedule FILE.xml`: an MSCCL XML
 * algorithm (formats/msccl_reader.h) lowered to a program. GPU g is rank
 * g; its tb t is CPU t of the rank; a tb's steps run in order, a step with
 * depid/deps also waits for that step of the other tb; across GPUs the
 * order comes from the messages. A step becomes:
 *
 *   s      send cnt chunks to the tb's send peer
 *   r      recv from the tb's recv peer
 *   rcs    recv, then send what arrived
 *   rrs    recv, reduce (a compute of the step's bytes), send
 *   rrc    recv, reduce
 *   rrcs   recv, reduce, send
 *   re     reduce
 *   cpy    a compute of time 0: a local copy costs nothing here, as in
 *          the other generators (their block copies are not tasks)
 *   nop    a compute of time 0 carrying its dependency
 * (computes rather than proxies: the program is send, recv and calc
 * only, though GOAL cannot hold its waits for a send's local completion)
 *
 * Sends and recvs carry tag = the tb's channel: the reader allows one tb
 * per (channel, peer) on each side, so MPI-style matching per (sender,
 * receiver, tag) in program order is MSCCL's FIFO per connection. What
 * follows a send waits for its local completion only (the data has left:
 * NCCL's FIFO does not wait for the receiver; its 8 slots of back-pressure
 * are not modeled), so rendezvous sends cannot deadlock a ring. Every
 * transfer gets the algorithm's protocol (proto=). A chunk is
 * total/nchunksperloop bytes, total = --size for allreduce, reduce,
 * broadcast and N*--size for allgather, reducescatter, alltoall (the size
 * meaning of the collectives, NCCL's count times the executor's size
 * multiplier). Without --segment, each step moves its cnt chunks in one
 * transfer; --segment P is NCCL's pipelining: the whole schedule runs
 * ceil(chunk/P) times, each time on a piece of P bytes of every chunk, and
 * a step moves at most max(1, P/chunk) chunks (up to 71) a transfer,
 * splitting larger cnt into several chained transfers. The schedule's
 * data flow is checked (msccl_flow.h) before it is lowered: one that does
 * not compute its coll= is refused. */
#include "generators/msccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/msccl_reader.h"
#include "generators/generator_support.h"
#include "generators/msccl_flow.h"

static const char name[] = "msccl";

/* Tasks a step becomes. */
static int step_tasks(int type) {
  static const int tasks[FS_MSCCL_TYPES] = {1, 1, 2, 3, 2, 3, 1, 1, 1};
  return tasks[type];
}

/* --size is per rank (or pair) for these: the executor's size multiplier
 * for allgather, reducescatter and alltoall, fennelsim's --size meaning
 * for gather and scatter. */
static int64_t multiplier(const fs_msccl *m) {
  int per_rank = m->coll == FS_MSCCL_ALLGATHER || m->coll == FS_MSCCL_REDUCESCATTER ||
                 m->coll == FS_MSCCL_ALLTOALL || m->coll == FS_MSCCL_ALLTOALLV ||
                 m->coll == FS_MSCCL_GATHER || m->coll == FS_MSCCL_SCATTER;
  return per_rank ? m->ngpus : 1;
}

/* The bytes of one chunk, or -1 with err set. */
static int64_t chunk_bytes(const fs_msccl *m, const char *path, const fs_generator_options *o,
                           fs_error *err) {
  int64_t k = multiplier(m);
  if (o->size > FS_SIZE_LIMIT / k)
    return fs_error_set(err, "%s: %d blocks of --size %lld bytes are too large (the limit is %s)",
                        name, (int)k, (long long)o->size, FS_SIZE_LIMIT_TEXT);
  int64_t total = o->size * k;
  if (total % m->nchunksperloop)
    return fs_error_set(err,
                        "%s: %s: the %s of %lld bytes%s does not split into nchunksperloop=%d "
                        "equal chunks (MSCCL would run NCCL's own algorithm): give a --size "
                        "that does",
                        name, path, fs_msccl_coll_name(m->coll), (long long)total,
                        k > 1 ? " (N x --size)" : "", m->nchunksperloop);
  return total / m->nchunksperloop;
}

/* NCCL's pipelining with pieces of --segment P bytes (0: none): the
 * schedule runs `loops` times, each time on one piece of every chunk, and
 * a step moves at most `per` chunks a transfer. */
typedef struct pieces {
  int64_t chunk, segment, loops;
  int32_t per;
} pieces;

static pieces plan(int64_t chunk, int64_t segment) {
  pieces q = {chunk, segment, 1, FS_MSCCL_MAX_CNT};
  if (segment == 0) return q;
  if (chunk > segment) q.loops = chunk / segment + (chunk % segment != 0);
  int64_t allowed = chunk > 0 ? segment / chunk : FS_MSCCL_MAX_CNT; /* whole chunks a piece holds */
  q.per = (int32_t)(allowed < 1 ? 1 : allowed > FS_MSCCL_MAX_CNT ? FS_MSCCL_MAX_CNT : allowed);
  return q;
}

/* Bytes of one chunk's piece in iteration k. */
static int64_t piece_bytes(const pieces *q, int64_t k) {
  if (q->loops == 1) return q->chunk;
  int64_t left = q->chunk - k * q->segment;
  return left < q->segment ? left : q->segment;
}

/* Transfers a step of cnt chunks becomes in one iteration. */
static int32_t transfers(const pieces *q, int type, int32_t cnt) {
  if (type == FS_MSCCL_CPY || type == FS_MSCCL_NOP) return 1;
  return cnt / q->per + (cnt % q->per != 0);
}

typedef struct lowering {
  fs_program *p;
  const fs_msccl *m;
  const fs_generator_options *o;
  pieces q;
  int64_t k;     /* the iteration being lowered */
  int32_t *last; /* per step: its last task so far (what later steps wait for) */
  int32_t label[FS_MSCCL_TYPES];
} lowering;

static int32_t transfer(lowering *w, fs_task_kind kind, int32_t rank, const fs_msccl_tb *tb,
                        int32_t label, int64_t bytes) {
  int32_t t = fs_gen_add(w->p, kind, rank, label);
  if (t < 0) return -1;
  fs_task_set_peer(w->p, t, kind == FS_SEND ? tb->send : tb->recv);
  fs_task_set_size(w->p, t, bytes);
  if (fs_task_set_tag(w->p, t, tb->chan) || fs_task_set_protocol(w->p, t, w->m->proto)) return -1;
  return t;
}

static int32_t reduce(lowering *w, int32_t rank, int32_t label, int64_t bytes) {
  int32_t t = fs_gen_add(w->p, FS_COMPUTE, rank, label);
  if (t < 0) return -1;
  if (w->o->has_reduce_time)
    fs_task_set_time(w->p, t, w->o->reduce_time);
  else
    fs_task_set_size(w->p, t, bytes);
  return t;
}

/* task waits for the step that ended with task `on`: for a send, until
 * the data has left (its local completion: NCCL's FIFO takes it without
 * waiting for the receiver, so a rendezvous send must not hold the tb
 * back); otherwise until it completed. */
static int after(lowering *w, int32_t task, int32_t on) {
  int point = w->p->kind[on] == FS_SEND ? FS_AFTER_LOCAL : FS_AFTER_END;
  return fs_program_depend(w->p, task, on, point);
}

/* Adds one transfer's tasks (of `chunks` chunks' pieces), chained after
 * *previous (-1: none), each on the tb's CPU; the first in *first. */
static int lower_transfer(lowering *w, const fs_msccl_step *s, int32_t chunks, int32_t *previous,
                          int32_t *first) {
  const fs_msccl_tb *tb = &w->m->tb[s->tb];
  int32_t rank = tb->gpu, label = w->label[s->type], tasks[3], n = 0;
  int64_t bytes = chunks * piece_bytes(&w->q, w->k);
  if (s->type == FS_MSCCL_CPY || s->type == FS_MSCCL_NOP) { /* free, but in the tb's order */
    tasks[n] = fs_gen_add(w->p, FS_COMPUTE, rank, label);
    if (tasks[n] >= 0) fs_task_set_time(w->p, tasks[n], 0);
    n++;
  }
  if (fs_msccl_receives(s->type)) tasks[n++] = transfer(w, FS_RECV, rank, tb, label, bytes);
  if (fs_msccl_reduces(s->type)) tasks[n++] = reduce(w, rank, label, bytes);
  if (fs_msccl_sends(s->type)) tasks[n++] = transfer(w, FS_SEND, rank, tb, label, bytes);
  int32_t cpu = s->tb - w->m->gpu[rank].first;
  for (int k = 0; k < n; k++) {
    if (tasks[k] < 0 || fs_task_set_cpu(w->p, tasks[k], cpu)) return -1;
    if (*previous >= 0 && after(w, tasks[k], *previous)) return -1;
    *previous = tasks[k];
  }
  *first = tasks[0];
  return 0;
}

/* Adds step i's tasks for iteration w->k, chained, each on its tb's CPU;
 * -1 when out of memory. */
static int lower_step(lowering *w, int32_t i) {
  const fs_msccl *m = w->m;
  const fs_msccl_step *s = &m->step[i];
  const fs_msccl_tb *tb = &m->tb[s->tb];
  int32_t previous = -1, first = -1, head = -1, n = transfers(&w->q, s->type, s->cnt);
  for (int32_t j = 0; j < n; j++) {
    int32_t chunks = s->cnt - j * w->q.per < w->q.per ? s->cnt - j * w->q.per : w->q.per;
    if (lower_transfer(w, s, chunks, &previous, &first)) return -1;
    if (j == 0) head = first;
  }
  /* the tb's previous step: in this iteration, or the last of the previous one */
  int32_t before = i > tb->first ? i - 1 : w->k > 0 ? tb->first + tb->count - 1 : -1;
  if (before >= 0 && after(w, head, w->last[before])) return -1;
  if (s->depid >= 0 &&
      after(w, head, w->last[m->tb[m->gpu[tb->gpu].first + s->depid].first + s->deps]))
    return -1;
  w->last[i] = previous;
  return 0;
}

/* The tasks and dependencies the lowering adds, for an exact reservation
 * (tasks INT64_MAX when past what a program holds). */
static void count(const fs_msccl *m, const pieces *q, int64_t *tasks, int64_t *dependencies) {
  int64_t once = 0, edges = 0, firsts = 0; /* per iteration; tb heads wait from the 2nd on */
  for (int32_t i = 0; i < m->steps; i++) {
    const fs_msccl_step *s = &m->step[i];
    int64_t n = (int64_t)transfers(q, s->type, s->cnt) * step_tasks(s->type);
    once += n;
    edges += n - 1 + (i > m->tb[s->tb].first) + (s->depid >= 0);
    firsts += i == m->tb[s->tb].first;
  }
  if (once > 0 && q->loops > FS_MAX_TASKS / once) {
    *tasks = INT64_MAX, *dependencies = 0;
    return;
  }
  *tasks = q->loops * once;
  *dependencies = q->loops * edges + (q->loops - 1) * firsts;
}

static fs_program *lower(const fs_msccl *m, const fs_generator_options *o, int64_t chunk,
                         fs_error *err) {
  int64_t tasks, dependencies;
  pieces q = plan(chunk, o->segment);
  count(m, &q, &tasks, &dependencies);
  fs_program *p = fs_gen_begin(name, m->ngpus, tasks, dependencies, err);
  if (!p) return NULL;
  lowering w = {p, m, o, q, 0, malloc(((size_t)m->steps + 1) * sizeof *w.last), {0}};
  int32_t *order = malloc(((size_t)m->steps + 1) * sizeof *order);
  int failed = !w.last || !order || fs_msccl_order(m, order) != m->steps;
  for (int t = 0; t < FS_MSCCL_TYPES && !failed; t++)
    failed = (w.label[t] = fs_gen_label(p, "%s", fs_msccl_type_name((fs_msccl_type)t))) < 0;
  /* iterations in turn, steps in a topological order: every dependency
   * points to an earlier task */
  for (w.k = 0; w.k < q.loops && !failed; w.k++)
    for (int32_t k = 0; k < m->steps && !failed; k++) failed = lower_step(&w, order[k]);
  free(w.last);
  free(order);
  return fs_gen_finish(name, p, tasks, dependencies, failed, err);
}

fs_program *fs_generate_msccl(const fs_generator_options *o, fs_error *err) {
  if (o->size < 0)
    return fs_error_set(err, "%s: --size must not be negative, not %lld", name, (long long)o->size),
           NULL;
  if (o->has_reduce_time && o->reduce_time < 0)
    return fs_error_set(err, "%s: --reduce-time must not be negative", name), NULL;
  if (!o->schedule)
    return fs_error_set(err,
                        "%s: --schedule FILE.xml is required (the MSCCL algorithm to run; its "
                        "ngpus gives --ranks)",
                        name),
           NULL;
  fs_msccl *m = fs_msccl_read(o->schedule, err);
  if (!m) return NULL;
  fs_program *p = fs_msccl_program(m, o->schedule, o, err);
  fs_msccl_free(m);
  return p;
}

fs_program *fs_msccl_program(const fs_msccl *m, const char *path, const fs_generator_options *o,
                             fs_error *err) {
  char why[600];
  int64_t chunk;
  if (o->ranks != 0 && o->ranks != m->ngpus)
    return fs_error_set(err,
                        "%s: --ranks %d differs from the ngpus=\"%d\" of %s (leave --ranks out)",
                        name, o->ranks, m->ngpus, path),
           NULL;
  if ((chunk = chunk_bytes(m, path, o, err)) < 0) return NULL;
  int status = fs_msccl_check_flow(m, why, sizeof why);
  if (status == FS_MSCCL_FLOW_WRONG)
    return fs_error_set(err, "%s: %s does not compute its %s: %s", name, path,
                        fs_msccl_coll_name(m->coll), why),
           NULL;
  if (status == FS_MSCCL_FLOW_FAILED) return fs_error_set(err, "%s: %s", name, why), NULL;
  return lower(m, o, chunk, err);
}
