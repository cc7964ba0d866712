/* data_flow_check.c: the data-flow proof of a generated schedule (see
 * data_flow_check.h). It matches messages, orders the tasks topologically
 * along dependencies and messages, then replays the data in that order:
 * per rank and block, the value (a set of contributing ranks), the task that
 * wrote it last and the reads since. Every access is checked against the
 * earlier conflicting ones by a backward walk over the dependencies, so the
 * values found hold for every order the engine could run the tasks in. */
#include "generators/data_flow_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A set of contributing ranks: a bitset up to 64 ranks, else a count and a
 * sum of hashes. */
typedef struct value {
  uint64_t set;
  uint32_t count;
} value;

/* How far a task has got when a later one starts, as seen through the
 * dependencies: started, its source read done (a put's local completion),
 * or complete. */
enum { NOT_REACHED = 0, STARTED = 1, READ_DONE = 2, COMPLETE = 3 };

typedef struct checker {
  const fs_program *p;
  const fs_data_flow *flow;
  char *why;
  size_t why_size;
  int exact;      /* ranks <= 64: bitsets */
  int has_starts; /* some dependency is on a start: a recv may be placed after a task
                     that waits for its start, so walks cannot stop at a position */
  int32_t tasks, ranks, blocks;
  int32_t data; /* data ranks: 0..data-1 (the others are switches: no data, no result) */
  /* predecessors (dependencies only): from | FS_EDGE_* bits */
  int64_t *pred_at;
  uint32_t *pred;
  int32_t *matched;         /* send <-> recv, -1 */
  int32_t *next_in_channel; /* the next send (recv) of the same source, destination and tag */
  int32_t *order;           /* topological order, dependencies and messages */
  int32_t *position;        /* of each task in it */
  /* backward walks */
  uint32_t *stamp;
  uint8_t *level;
  uint32_t walk;
  uint8_t *wanted;             /* the level a walk looks for at a task (0: none) */
  int32_t *wanted_at;          /* the tasks with a wanted level, to clear them */
  int32_t wanted_count, unmet; /* how many; how many not reached yet */
  int32_t *stack;
  /* replay */
  value *buffer;                      /* ranks x blocks */
  int32_t *writer;                    /* last writer per rank x block, -1: initial data */
  int32_t *reader_head;               /* reads since the last write: a list in reader_next */
  int32_t *reader_task, *reader_next; /* reads and accumulations (RECV_COMBINE) */
  uint8_t *reader_accumulates;
  int64_t readers, reader_capacity;
  value *payload;    /* per annotated block entry of a send or put */
  uint8_t *consumed; /* per task: its temporary was combined */
  /* a task's conflicting predecessors: task and needed level */
  int32_t *need_task;
  uint8_t *need_level;
  int32_t needs, need_capacity;
} checker;

static const char *fail(checker *c, const char *format, ...) FS_PRINTF(2, 3);
static const char *fail(checker *c, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(c->why, c->why_size, format, ap);
  va_end(ap);
  return c->why;
}

static const char *kind_name(const fs_program *p, int32_t t) {
  static const char *const names[] = {"start", "proxy", "sleep", "compute",
                                      "put",   "get",   "send",  "recv"};
  return p->kind[t] < FS_TASK_KINDS ? names[p->kind[t]] : "?";
}

/* "task 12 (send of rank 3, label round2)" into text. */
static const char *describe(const checker *c, int32_t t, char *text, size_t size) {
  const char *label = c->p->label ? fs_task_label(c->p, t) : NULL;
  snprintf(text, size, "task %d (%s of rank %d%s%s)", t, kind_name(c->p, t), c->p->rank[t],
           label ? ", " : "", label ? label : "");
  return text;
}

static uint64_t rank_hash(int32_t rank) {
  uint64_t z = (uint64_t)rank + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static value single(const checker *c, int32_t rank) {
  return (value){c->exact ? (uint64_t)1 << rank : rank_hash(rank), 1};
}

static value everyone(const checker *c) {
  value v = {0, (uint32_t)c->data};
  for (int32_t r = 0; r < c->data; r++) v.set += c->exact ? (uint64_t)1 << r : rank_hash(r);
  return v;
}

static int same(value a, value b) { return a.set == b.set && a.count == b.count; }

/* a + b, or -1 when they share a contribution (exact) or exceed all ranks. */
static int combine(const checker *c, value *a, value b) {
  if (c->exact ? (a->set & b.set) != 0 : a->count + (int64_t)b.count > c->data) return -1;
  a->set += b.set;
  a->count += b.count;
  return 0;
}

/* A block of 0 bytes carries no data: nothing to hold, read or combine. */
static int zero_bytes(const checker *c, int32_t block) {
  return c->flow->block_size && c->flow->block_size[block] == 0;
}

static int32_t block_count(const checker *c, int32_t t) {
  return t < c->flow->tasks ? c->flow->block_count[t] : 0;
}
static const int32_t *blocks_of(const checker *c, int32_t t) {
  return c->flow->block + c->flow->block_at[t];
}
static fs_flow_action action_of(const checker *c, int32_t t) {
  return fs_data_flow_action(c->flow, t);
}

/* ---- structure: predecessors, matching, order ---------------------------- */

static const char *build_predecessors(checker *c) {
  const fs_program *p = c->p;
  c->pred_at = calloc((size_t)c->tasks + 1, sizeof *c->pred_at);
  c->pred = malloc((size_t)(p->dependencies ? p->dependencies : 1) * sizeof *c->pred);
  if (!c->pred_at || !c->pred) return fail(c, "out of memory");
  for (int32_t t = 0; t < c->tasks; t++) {
    if (p->flags[t] & FS_HAS_ANY) {
      char d[96];
      return fail(c, "%s uses any=K, which the data-flow check does not support",
                  describe(c, t, d, sizeof d));
    }
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
      int32_t s = FS_EDGE_TASK(p->successor[e]);
      if (s <= t) return fail(c, "task %d depends on task %d, which is not earlier", s, t);
      c->pred_at[s + 1]++;
    }
  }
  for (int32_t t = 0; t < c->tasks; t++) c->pred_at[t + 1] += c->pred_at[t];
  int64_t *fill = malloc((size_t)c->tasks * sizeof *fill + 1);
  if (!fill) return fail(c, "out of memory");
  memcpy(fill, c->pred_at, (size_t)c->tasks * sizeof *fill);
  for (int32_t t = 0; t < c->tasks; t++)
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
      uint32_t edge = p->successor[e];
      c->pred[fill[FS_EDGE_TASK(edge)]++] = (uint32_t)t | (edge & (FS_EDGE_LOCAL | FS_EDGE_START));
      if (edge & FS_EDGE_START) c->has_starts = 1;
    }
  free(fill);
  return NULL;
}

typedef struct channel_key {
  int32_t from, to, tag, task;
} channel_key;

static int compare_keys(const void *a, const void *b) {
  const channel_key *x = a, *y = b;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  if (x->to != y->to) return x->to < y->to ? -1 : 1;
  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  return (x->task > y->task) - (x->task < y->task);
}

static int compare_ints(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* 1 when the send's and the recv's block lists are the same set, 0 when
 * not, -1 when out of memory. */
static int same_blocks(const checker *c, int32_t send, int32_t recv) {
  int32_t n = block_count(c, send);
  if (n != block_count(c, recv)) return 0;
  if (n == 0) return 1;
  int32_t *a = malloc((size_t)n * 8);
  if (!a) return -1;
  memcpy(a, blocks_of(c, send), (size_t)n * 4);
  memcpy(a + n, blocks_of(c, recv), (size_t)n * 4);
  qsort(a, (size_t)n, 4, compare_ints);
  qsort(a + n, (size_t)n, 4, compare_ints);
  int equal = memcmp(a, a + n, (size_t)n * 4) == 0;
  free(a);
  return equal;
}

/* The k-th send of each (source, destination, tag) with the k-th recv. */
static const char *match_messages(checker *c) {
  const fs_program *p = c->p;
  int64_t sends = 0, recvs = 0;
  for (int32_t t = 0; t < c->tasks; t++) {
    c->matched[t] = c->next_in_channel[t] = -1;
    sends += p->kind[t] == FS_SEND, recvs += p->kind[t] == FS_RECV;
  }
  channel_key *s = malloc((size_t)(sends + 1) * sizeof *s),
              *r = malloc((size_t)(recvs + 1) * sizeof *r);
  if (!s || !r) return free(s), free(r), fail(c, "out of memory");
  int64_t ns = 0, nr = 0;
  const char *why = NULL;
  for (int32_t t = 0; t < c->tasks && !why; t++) {
    if (p->kind[t] == FS_SEND)
      s[ns++] = (channel_key){p->rank[t], p->peer[t], fs_task_tag(p, t), t};
    if (p->kind[t] == FS_RECV) {
      if (p->peer[t] == FS_ANY_SOURCE || fs_task_tag(p, t) == FS_ANY_TAG)
        why = fail(c, "recv %d accepts any source or tag: not supported by the check", t);
      r[nr++] = (channel_key){p->peer[t], p->rank[t], fs_task_tag(p, t), t};
    }
  }
  qsort(s, (size_t)ns, sizeof *s, compare_keys);
  qsort(r, (size_t)nr, sizeof *r, compare_keys);
  for (int64_t k = 0; k + 1 < ns; k++)
    if (s[k].from == s[k + 1].from && s[k].to == s[k + 1].to && s[k].tag == s[k + 1].tag)
      c->next_in_channel[s[k].task] = s[k + 1].task;
  for (int64_t k = 0; k + 1 < nr; k++)
    if (r[k].from == r[k + 1].from && r[k].to == r[k + 1].to && r[k].tag == r[k + 1].tag)
      c->next_in_channel[r[k].task] = r[k + 1].task;
  int64_t i = 0, j = 0;
  while (!why && (i < ns || j < nr)) {
    int order = i == ns ? 1 : j == nr ? -1 : 0;
    if (!order) {
      channel_key a = s[i], b = r[j];
      a.task = b.task = 0;
      order = compare_keys(&a, &b);
    }
    if (order < 0) {
      why = fail(c, "send %d from rank %d to rank %d (tag %d) has no matching recv", s[i].task,
                 s[i].from, s[i].to, s[i].tag);
    } else if (order > 0) {
      why = fail(c, "recv %d on rank %d from rank %d (tag %d) has no matching send", r[j].task,
                 r[j].to, r[j].from, r[j].tag);
    } else {
      int32_t send = s[i++].task, recv = r[j++].task, same;
      c->matched[send] = recv, c->matched[recv] = send;
      if (p->value[send] != p->value[recv])
        why = fail(c, "send %d carries %lld bytes, its recv %d expects %lld", send,
                   (long long)p->value[send], recv, (long long)p->value[recv]);
      else if ((same = same_blocks(c, send, recv)) < 0)
        why = fail(c, "out of memory");
      else if (!same)
        why = fail(c, "send %d and its recv %d name different blocks", send, recv);
    }
  }
  free(s), free(r);
  return why;
}

/* Recv t is posted (its dependencies placed): the tasks that wait for its
 * start no longer wait for it. */
static void release_starts(checker *c, int32_t t, int32_t *waiting, int32_t *deps, int32_t *stack,
                           int32_t *tail) {
  const fs_program *p = c->p;
  int32_t top = 0;
  stack[top++] = t;
  while (top) { /* a start may post a recv whose start releases more: no recursion */
    int32_t r = stack[--top];
    for (uint32_t e = p->successor_at[r]; e < p->successor_at[r + 1]; e++) {
      if (!(p->successor[e] & FS_EDGE_START)) continue;
      int32_t u = FS_EDGE_TASK(p->successor[e]);
      if (!--waiting[u]) c->order[(*tail)++] = u;
      if (p->kind[u] == FS_RECV && !--deps[u]) stack[top++] = u;
    }
  }
}

/* Kahn's order over dependencies and send -> recv; a cycle is a deadlock. */
static const char *order_tasks(checker *c) {
  const fs_program *p = c->p;
  /* waiting: dependencies (and a recv's message) not yet placed; deps: a
   * recv's dependencies alone, whose end is its start (its posting), which
   * releases the tasks that depend on that start (FS_AFTER_START) before
   * the message arrives */
  size_t bytes = (size_t)c->tasks * 4 + 4;
  int32_t *waiting = malloc(bytes), *deps = malloc(bytes), *stack = malloc(bytes);
  if (!waiting || !deps || !stack)
    return free(waiting), free(deps), free(stack), fail(c, "out of memory");
  int32_t head = 0, tail = 0;
  for (int32_t t = 0; t < c->tasks; t++) {
    deps[t] = (int32_t)(c->pred_at[t + 1] - c->pred_at[t]);
    waiting[t] = deps[t] + (p->kind[t] == FS_RECV);
    if (!waiting[t]) c->order[tail++] = t;
  }
  for (int32_t t = 0; t < c->tasks; t++)
    if (p->kind[t] == FS_RECV && c->pred_at[t + 1] == c->pred_at[t]) /* posted at once */
      release_starts(c, t, waiting, deps, stack, &tail);
  while (head < tail) {
    int32_t t = c->order[head];
    c->position[t] = head++;
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
      int32_t u = FS_EDGE_TASK(p->successor[e]);
      if (p->kind[t] == FS_RECV && p->successor[e] & FS_EDGE_START) continue; /* released */
      if (!--waiting[u]) c->order[tail++] = u;
      if (p->kind[u] == FS_RECV && !--deps[u]) release_starts(c, u, waiting, deps, stack, &tail);
    }
    if (p->kind[t] == FS_SEND && !--waiting[c->matched[t]]) c->order[tail++] = c->matched[t];
  }
  free(waiting), free(deps), free(stack);
  if (tail < c->tasks) {
    for (int32_t t = 0; t < c->tasks; t++)
      if (c->position[t] < 0) {
        char d[96];
        return fail(c, "deadlock: %d tasks can never run, the first %s", c->tasks - tail,
                    describe(c, t, d, sizeof d));
      }
  }
  return NULL;
}

/* ---- reachability ---------------------------------------------------------- */

/* Asks the next walk to look for `task` reaching `level`; the walk stops
 * as soon as every wanted task has. */
static void want(checker *c, int32_t task, int level) {
  if (!c->wanted[task]) {
    c->wanted_at[c->wanted_count++] = task;
    c->unmet++;
  } else if (c->wanted[task] >= level) {
    return;
  }
  c->wanted[task] = (uint8_t)level;
}

/* Notes that y reached a level; a wanted task reaching its level is met. */
static void reached_level(checker *c, int32_t y, int before, int after) {
  if (c->wanted[y] && before < c->wanted[y] && after >= c->wanted[y]) c->unmet--;
}

/* How far each task between `floor` (a position) and `to` has got when `to`
 * starts, into c->level (valid where c->stamp == c->walk), until every
 * wanted task is met. With `with_message`, a recv `to` counts its
 * message's send as read: its write happens when it completes. */
static void walk_back(checker *c, int32_t to, int32_t floor, int with_message, int32_t rank) {
  const fs_program *p = c->p;
  if (c->has_starts) floor = 0;
  if (++c->walk == 0) {
    memset(c->stamp, 0, (size_t)c->tasks * 4);
    c->walk = 1;
  }
  /* breadth first: a wanted task is mostly a few edges away, and the walk
   * stops once all are met (a task is queued at most twice: c->stack
   * holds 2 x tasks) */
  int32_t head = 0, top = 0;
  c->stack[top++] = to;
  c->stamp[to] = c->walk;
  c->level[to] = with_message ? READ_DONE : NOT_REACHED;
  while (head < top && c->unmet > 0) {
    int32_t x = c->stack[head++];
    /* x has started: its dependencies reached their points; a complete
     * recv's send has been read */
    for (int64_t k = c->pred_at[x]; k <= c->pred_at[x + 1]; k++) {
      int32_t y;
      int reached;
      if (k == c->pred_at[x + 1]) {
        if (p->kind[x] != FS_RECV || c->matched[x] < 0 || c->level[x] < READ_DONE) break;
        if (rank >= 0) break; /* its send is on another rank */
        y = c->matched[x], reached = READ_DONE;
      } else {
        uint32_t edge = c->pred[k];
        y = FS_EDGE_TASK(edge);
        reached = edge & FS_EDGE_START                           ? STARTED
                  : edge & FS_EDGE_LOCAL && p->kind[y] == FS_PUT ? READ_DONE
                                                                 : COMPLETE;
      }
      if (c->position[y] < floor || (rank >= 0 && p->rank[y] != rank)) continue;
      if (c->stamp[y] != c->walk) {
        c->stamp[y] = c->walk;
        c->level[y] = (uint8_t)reached;
        reached_level(c, y, NOT_REACHED, reached);
        c->stack[top++] = y;
      } else if (c->level[y] < reached) {
        /* a recv now known complete: walk it again for its message */
        if (p->kind[y] == FS_RECV && c->level[y] < READ_DONE) c->stack[top++] = y;
        reached_level(c, y, c->level[y], reached);
        c->level[y] = (uint8_t)reached;
      }
    }
  }
}

/* walk_back, first along the edges within to's rank only: the tasks it
 * finds are reached all the same, and most wanted tasks are on to's rank
 * behind its own chain. When one is not met there, the whole walk. */
static void walk_wanted(checker *c, int32_t to, int32_t floor, int with_message) {
  walk_back(c, to, floor, with_message, c->p->rank[to]);
  if (c->unmet == 0) return;
  c->unmet = c->wanted_count;
  walk_back(c, to, floor, with_message, -1);
}

/* The level the last walk found for u. */
static int level_found(const checker *c, int32_t u) {
  return c->stamp[u] == c->walk ? c->level[u] : NOT_REACHED;
}

/* Forgets the wanted tasks of the last walk. */
static void clear_wanted(checker *c) {
  for (int32_t i = 0; i < c->wanted_count; i++) c->wanted[c->wanted_at[i]] = 0;
  c->wanted_count = c->unmet = 0;
}

/* Records that `task` must have reached `level` before the current task
 * touches `block` of `rank`. */
static int need(checker *c, int32_t task, int level, int32_t rank, int32_t block) {
  if (task < 0) return 0;
  if (c->needs == c->need_capacity) {
    int32_t capacity = c->need_capacity ? 2 * c->need_capacity : 64;
    int32_t *t = realloc(c->need_task, (size_t)capacity * 12);
    if (t) c->need_task = t;
    uint8_t *l = realloc(c->need_level, (size_t)capacity);
    if (l) c->need_level = l;
    if (!t || !l) return -1;
    c->need_capacity = capacity;
  }
  int32_t *entry = c->need_task + 3 * c->needs;
  entry[0] = task, entry[1] = rank, entry[2] = block;
  c->need_level[c->needs++] = (uint8_t)level;
  return 0;
}

/* The level a writer's write is done at: a put's write is remote. */
static int written_level(const checker *c, int32_t writer) {
  return c->p->kind[writer] == FS_PUT ? COMPLETE : READ_DONE;
}

/* Checks the recorded needs of t against its dependencies, in one walk. */
static const char *check_needs(checker *c, int32_t t, int with_message) {
  if (!c->needs) return NULL;
  int32_t floor = c->position[t];
  for (int32_t i = 0; i < c->needs; i++) {
    int32_t u = c->need_task[3 * i];
    if (c->position[u] < floor) floor = c->position[u];
    want(c, u, c->need_level[i]);
  }
  walk_wanted(c, t, floor, with_message);
  clear_wanted(c);
  int32_t needs = c->needs;
  c->needs = 0;
  for (int32_t i = 0; i < needs; i++) {
    const int32_t *entry = c->need_task + 3 * i;
    int32_t u = entry[0];
    int reached = level_found(c, u);
    if (reached < c->need_level[i]) {
      char a[96], b[96];
      return fail(c, "race: %s touches block %d of rank %d without waiting for %s, which %s it",
                  describe(c, t, a, sizeof a), entry[2], entry[1], describe(c, u, b, sizeof b),
                  c->need_level[i] == READ_DONE && c->p->kind[u] != FS_RECV &&
                          c->p->kind[u] != FS_COMPUTE
                      ? "reads or writes"
                      : "writes");
    }
  }
  return NULL;
}

/* ---- replay ---------------------------------------------------------------- */

static int64_t slot(const checker *c, int32_t rank, int32_t block) {
  return (int64_t)rank * c->blocks + block;
}

/* Adds task to the accesses of cell `at` since its last write: a read, or
 * an accumulation (a combine on arrival, which commutes with the others). */
static int add_reader(checker *c, int64_t at, int32_t task, int accumulates) {
  if (c->readers == c->reader_capacity) {
    int64_t capacity = c->reader_capacity ? 2 * c->reader_capacity : 1024;
    int32_t *t = realloc(c->reader_task, (size_t)capacity * 4);
    if (t) c->reader_task = t;
    int32_t *n = realloc(c->reader_next, (size_t)capacity * 4);
    if (n) c->reader_next = n;
    uint8_t *a = realloc(c->reader_accumulates, (size_t)capacity);
    if (a) c->reader_accumulates = a;
    if (!t || !n || !a) return -1;
    c->reader_capacity = capacity;
  }
  c->reader_accumulates[c->readers] = (uint8_t)accumulates;
  c->reader_task[c->readers] = task;
  c->reader_next[c->readers] = c->reader_head[at];
  c->reader_head[at] = (int32_t)c->readers++;
  return 0;
}

/* The rank a block of a scatter, gather, allgather or reduce-scatter
 * belongs to (data_flow.h: m = blocks / N consecutive blocks a rank). */
static int32_t owner(const checker *c, int32_t block) { return block / (c->blocks / c->data); }

static void initial_data(checker *c) {
  int32_t n = c->data, root = c->flow->root;
  value empty = {0, 0};
  for (int64_t i = 0; i < (int64_t)c->ranks * c->blocks; i++) c->buffer[i] = empty;
  for (int32_t r = 0; r < n; r++) /* a switch rank starts empty */
    for (int32_t b = 0; b < c->blocks; b++) {
      value *v = &c->buffer[slot(c, r, b)];
      switch (c->flow->collective) {
        case FS_COLLECTIVE_BCAST:
        case FS_COLLECTIVE_SCATTER:
          if (r == root) *v = single(c, root);
          break;
        case FS_COLLECTIVE_REDUCE:
        case FS_COLLECTIVE_ALLREDUCE:
        case FS_COLLECTIVE_REDUCE_SCATTER: *v = single(c, r); break;
        case FS_COLLECTIVE_GATHER:
        case FS_COLLECTIVE_ALLGATHER:
          if (owner(c, b) == r) *v = single(c, r);
          break;
        case FS_COLLECTIVE_ALLTOALL:
          if (b / n == r) *v = single(c, r);
          break;
        default: break;
      }
    }
}

/* The blocks the message of t (send or put) carries, as sizes. */
static const char *check_size(checker *c, int32_t t) {
  if (!c->flow->block_size) return NULL;
  int64_t bytes = 0;
  for (int32_t i = 0; i < block_count(c, t); i++) bytes += c->flow->block_size[blocks_of(c, t)[i]];
  if (bytes != c->p->value[t]) {
    char d[96];
    return fail(c, "%s carries %lld bytes, but its %d blocks hold %lld",
                describe(c, t, d, sizeof d), (long long)c->p->value[t], block_count(c, t),
                (long long)bytes);
  }
  return NULL;
}

/* t reads its blocks of `rank` into its payload, after their last writes. */
static const char *read_blocks(checker *c, int32_t t, int32_t rank) {
  const int32_t *list = blocks_of(c, t);
  for (int32_t i = 0; i < block_count(c, t); i++) {
    int64_t at = slot(c, rank, list[i]);
    if (c->buffer[at].count == 0 && !zero_bytes(c, list[i])) {
      char d[96];
      return fail(c, "%s reads block %d of rank %d, which holds no data yet",
                  describe(c, t, d, sizeof d), list[i], rank);
    }
    int32_t w = c->writer[at];
    if (w >= 0 && need(c, w, written_level(c, w), rank, list[i])) return fail(c, "out of memory");
    for (int32_t k = c->reader_head[at]; k >= 0; k = c->reader_next[k])
      if (c->reader_accumulates[k] && need(c, c->reader_task[k], READ_DONE, rank, list[i]))
        return fail(c, "out of memory");
  }
  const char *why = check_needs(c, t, 0);
  if (why) return why;
  for (int32_t i = 0; i < block_count(c, t); i++) {
    int64_t at = slot(c, rank, list[i]);
    c->payload[c->flow->block_at[t] + i] = c->buffer[at];
    if (add_reader(c, at, t, 0)) return fail(c, "out of memory");
  }
  return NULL;
}

/* t (a recv, a compute or a put at its target) will write these blocks of
 * rank: after their last writes and every access since (an accumulation
 * need not wait for the other accumulations). */
static const char *order_writes(checker *c, int32_t t, int32_t rank, const int32_t *list,
                                int32_t count, int accumulates) {
  for (int32_t i = 0; i < count; i++) {
    int64_t at = slot(c, rank, list[i]);
    int32_t w = c->writer[at];
    if (w >= 0 && w != t && need(c, w, written_level(c, w), rank, list[i]))
      return fail(c, "out of memory");
    for (int32_t k = c->reader_head[at]; k >= 0; k = c->reader_next[k])
      if (c->reader_task[k] != t && !(accumulates && c->reader_accumulates[k]) &&
          need(c, c->reader_task[k], READ_DONE, rank, list[i]))
        return fail(c, "out of memory");
  }
  return check_needs(c, t, c->p->kind[t] == FS_RECV);
}

static void wrote(checker *c, int32_t t, int32_t rank, int32_t block, value v) {
  int64_t at = slot(c, rank, block);
  c->buffer[at] = v;
  c->writer[at] = t;
  c->reader_head[at] = -1;
}

/* The payload entry of message m for block b, or NULL. */
static const value *payload_of(const checker *c, int32_t m, int32_t block) {
  const int32_t *list = blocks_of(c, m);
  for (int32_t i = 0; i < block_count(c, m); i++)
    if (list[i] == block) return &c->payload[c->flow->block_at[m] + i];
  return NULL;
}

/* A recv or a put at its target writes (or combines) its message. */
static const char *deliver(checker *c, int32_t t, int32_t message, int32_t rank, int combining) {
  const int32_t *list = blocks_of(c, message);
  char d[96];
  const char *why = order_writes(c, t, rank, list, block_count(c, message), combining);
  if (why) return why;
  for (int32_t i = 0; i < block_count(c, message); i++) {
    value v = c->payload[c->flow->block_at[message] + i];
    if (!combining) {
      wrote(c, t, rank, list[i], v);
      continue;
    }
    int64_t at = slot(c, rank, list[i]);
    if (zero_bytes(c, list[i])) continue;
    if (c->buffer[at].count == 0)
      return fail(c, "%s combines into block %d of rank %d, which holds no data",
                  describe(c, t, d, sizeof d), list[i], rank);
    if (combine(c, &c->buffer[at], v))
      return fail(c, "%s combines a contribution twice into block %d of rank %d",
                  describe(c, t, d, sizeof d), list[i], rank);
    if (add_reader(c, at, t, 1)) return fail(c, "out of memory");
  }
  return NULL;
}

/* A compute combines the temporaries it depends on into its blocks. */
static const char *combine_temporaries(checker *c, int32_t t) {
  const fs_program *p = c->p;
  int32_t rank = p->rank[t], temporaries[256], count = 0;
  char a[96], b[96];
  for (int64_t k = c->pred_at[t]; k < c->pred_at[t + 1]; k++) {
    int32_t y = FS_EDGE_TASK(c->pred[k]);
    int remote = !(c->pred[k] & (FS_EDGE_LOCAL | FS_EDGE_START));
    int temporary =
        (p->kind[y] == FS_RECV && action_of(c, y) == FS_FLOW_TEMP && p->rank[y] == rank) ||
        (p->kind[y] == FS_PUT && action_of(c, y) == FS_FLOW_PUT_TEMP && p->peer[y] == rank &&
         remote);
    if (!temporary) continue;
    if (c->consumed[y])
      return fail(c, "%s combines the message of %s, already combined", describe(c, t, a, sizeof a),
                  describe(c, y, b, sizeof b));
    if (count == 256)
      return fail(c, "%s combines more than 256 messages", describe(c, t, a, sizeof a));
    c->consumed[y] = 1;
    temporaries[count++] = y;
  }
  if (!count)
    return fail(c, "%s combines, but depends on no received temporary",
                describe(c, t, a, sizeof a));
  const int32_t *list = blocks_of(c, t);
  const char *why = order_writes(c, t, rank, list, block_count(c, t), 0);
  if (why) return why;
  if (c->flow->block_size && (p->flags[t] & FS_HAS_SIZE)) {
    int64_t bytes = 0;
    for (int32_t i = 0; i < block_count(c, t); i++) bytes += c->flow->block_size[list[i]];
    if (bytes != p->value[t])
      return fail(c, "%s reduces %lld bytes, but its %d blocks hold %lld",
                  describe(c, t, a, sizeof a), (long long)p->value[t], block_count(c, t),
                  (long long)bytes);
  }
  for (int32_t i = 0; i < block_count(c, t); i++) {
    value sum = c->buffer[slot(c, rank, list[i])];
    if (zero_bytes(c, list[i])) continue;
    if (sum.count == 0)
      return fail(c, "%s combines into block %d of rank %d, which holds no data",
                  describe(c, t, a, sizeof a), list[i], rank);
    for (int32_t j = 0; j < count; j++) {
      int32_t m = p->kind[temporaries[j]] == FS_RECV ? c->matched[temporaries[j]] : temporaries[j];
      const value *v = payload_of(c, m, list[i]);
      if (!v)
        return fail(c, "%s combines block %d, which the message of %s does not carry",
                    describe(c, t, a, sizeof a), list[i], describe(c, temporaries[j], b, sizeof b));
      if (combine(c, &sum, *v))
        return fail(c, "%s combines a contribution twice into block %d of rank %d",
                    describe(c, t, a, sizeof a), list[i], rank);
    }
    wrote(c, t, rank, list[i], sum);
  }
  for (int32_t j = 0; j < count; j++)
    if (block_count(c, temporaries[j]) != block_count(c, t))
      return fail(c, "%s combines %d blocks, but the message of %s carries %d",
                  describe(c, t, a, sizeof a), block_count(c, t),
                  describe(c, temporaries[j], b, sizeof b), block_count(c, temporaries[j]));
  return NULL;
}

static const char *replay_task(checker *c, int32_t t) {
  const fs_program *p = c->p;
  fs_flow_action action = action_of(c, t);
  fs_task_kind kind = (fs_task_kind)p->kind[t];
  char d[96];
  int fits = action == FS_FLOW_NONE || (kind == FS_SEND && action == FS_FLOW_READ) ||
             (kind == FS_RECV && (action == FS_FLOW_WRITE || action == FS_FLOW_TEMP ||
                                  action == FS_FLOW_RECV_COMBINE)) ||
             (kind == FS_COMPUTE && action == FS_FLOW_COMBINE) ||
             (kind == FS_PUT && (action == FS_FLOW_PUT_WRITE || action == FS_FLOW_PUT_TEMP));
  if (!fits)
    return fail(c, "%s has a data action (%d) that does not fit its kind",
                describe(c, t, d, sizeof d), action);
  if ((kind == FS_SEND || kind == FS_PUT) && action == FS_FLOW_NONE &&
      c->flow->collective != FS_COLLECTIVE_BARRIER && p->value[t] != 0) /* 0 B: a signal */
    return fail(c, "%s carries no recorded data", describe(c, t, d, sizeof d));
  const char *why = NULL;
  switch (action) {
    case FS_FLOW_READ:
    case FS_FLOW_PUT_TEMP:
      if (!(why = check_size(c, t))) why = read_blocks(c, t, p->rank[t]);
      break;
    case FS_FLOW_PUT_WRITE:
      if (!(why = check_size(c, t)) && !(why = read_blocks(c, t, p->rank[t])))
        why = deliver(c, t, t, p->peer[t], 0);
      break;
    case FS_FLOW_WRITE:
    case FS_FLOW_RECV_COMBINE:
      why = deliver(c, t, c->matched[t], p->rank[t], action == FS_FLOW_RECV_COMBINE);
      break;
    case FS_FLOW_COMBINE: why = combine_temporaries(c, t); break;
    default: break;
  }
  return why;
}

/* Every temporary was combined. */
static const char *check_temporaries_used(checker *c) {
  for (int32_t t = 0; t < c->tasks; t++) {
    fs_flow_action a = action_of(c, t);
    if ((a == FS_FLOW_TEMP || a == FS_FLOW_PUT_TEMP) && !c->consumed[t]) {
      char d[96];
      return fail(c, "the message of %s is never combined", describe(c, t, d, sizeof d));
    }
  }
  return NULL;
}

/* What the collective promises, block by block. */
static const char *check_result(checker *c) {
  int32_t n = c->data, root = c->flow->root;
  value all = everyone(c);
  for (int32_t r = 0; r < n; r++)
    for (int32_t b = 0; b < c->blocks; b++) {
      value v = c->buffer[slot(c, r, b)], want;
      if (zero_bytes(c, b)) continue;
      switch (c->flow->collective) {
        case FS_COLLECTIVE_BCAST: want = single(c, root); break;
        case FS_COLLECTIVE_SCATTER:
          if (owner(c, b) != r) continue;
          want = single(c, root);
          break;
        case FS_COLLECTIVE_REDUCE:
          if (r != root) continue;
          want = all;
          break;
        case FS_COLLECTIVE_ALLREDUCE: want = all; break;
        case FS_COLLECTIVE_REDUCE_SCATTER:
          if (owner(c, b) != r) continue;
          want = all;
          break;
        case FS_COLLECTIVE_GATHER:
          if (r != root) continue;
          want = single(c, owner(c, b));
          break;
        case FS_COLLECTIVE_ALLGATHER: want = single(c, owner(c, b)); break;
        case FS_COLLECTIVE_ALLTOALL:
          if (b % n != r) continue;
          want = single(c, b / n);
          break;
        default: continue;
      }
      if (!same(v, want))
        return fail(c,
                    "rank %d ends with block %d holding %u contributions, not the %s result "
                    "(%u expected)",
                    r, b, v.count, fs_collective_name(c->flow->collective), want.count);
    }
  return NULL;
}

/* Barrier: every rank's tasks, together, come after every rank's entry. */
static const char *check_barrier(checker *c) {
  int32_t words = (c->ranks + 63) / 64;
  uint64_t *known = calloc((size_t)c->tasks * words + (size_t)c->ranks * words, 8);
  if (!known) return fail(c, "out of memory");
  uint64_t *exit_known = known + (size_t)c->tasks * words;
  const fs_program *p = c->p;
  for (int32_t i = 0; i < c->tasks; i++) {
    int32_t t = c->order[i];
    uint64_t *k = known + (size_t)t * words;
    k[p->rank[t] / 64] |= (uint64_t)1 << (p->rank[t] % 64); /* its rank has entered */
    for (int64_t e = c->pred_at[t]; e < c->pred_at[t + 1]; e++) {
      const uint64_t *from = known + (size_t)FS_EDGE_TASK(c->pred[e]) * words;
      for (int32_t w = 0; w < words; w++) k[w] |= from[w];
    }
    if (p->kind[t] == FS_RECV) {
      const uint64_t *from = known + (size_t)c->matched[t] * words;
      for (int32_t w = 0; w < words; w++) k[w] |= from[w];
    }
    uint64_t *x = exit_known + (size_t)p->rank[t] * words;
    x[p->rank[t] / 64] |= (uint64_t)1 << (p->rank[t] % 64);
    for (int32_t w = 0; w < words; w++) x[w] |= k[w];
  }
  for (int32_t r = 0; r < c->ranks; r++) /* a rank without tasks enters and leaves */
    exit_known[(size_t)r * words + r / 64] |= (uint64_t)1 << (r % 64);
  const char *why = NULL;
  for (int32_t r = 0; r < c->ranks && !why; r++)
    for (int32_t q = 0; q < c->ranks && !why; q++)
      if (!(exit_known[(size_t)r * words + q / 64] >> (q % 64) & 1))
        why = fail(c, "rank %d can leave the barrier before rank %d enters it", r, q);
  free(known);
  return why;
}

static void release(checker *c) {
  free(c->pred_at), free(c->pred), free(c->matched), free(c->next_in_channel), free(c->order),
      free(c->position);
  free(c->stamp), free(c->level), free(c->stack), free(c->wanted), free(c->wanted_at),
      free(c->buffer), free(c->writer);
  free(c->reader_head), free(c->reader_task), free(c->reader_next), free(c->payload);
  free(c->reader_accumulates);
  free(c->consumed), free(c->need_task), free(c->need_level);
}

static const char *run(checker *c) {
  const fs_program *p = c->p;
  const fs_data_flow *flow = c->flow;
  if (!p->finalized) return fail(c, "the program is not finalized");
  if (flow->failed) return fail(c, "the data-flow record failed (out of memory or a bad block)");
  if (flow->collective == FS_COLLECTIVE_NONE) return NULL;
  if (flow->tasks > p->tasks)
    return fail(c, "the flow names task %d of %d", flow->tasks - 1, p->tasks);
  int32_t data = flow->data_ranks ? flow->data_ranks : p->ranks;
  if (data < 1 || data > p->ranks)
    return fail(c, "the flow's %d data ranks are not 1 to the program's %d ranks", data, p->ranks);
  if (flow->root < 0 || flow->root >= data)
    return fail(c, "the flow's root %d is not a data rank", flow->root);
  int by_rank = flow->collective == FS_COLLECTIVE_SCATTER ||
                flow->collective == FS_COLLECTIVE_GATHER ||
                flow->collective == FS_COLLECTIVE_ALLGATHER ||
                flow->collective == FS_COLLECTIVE_REDUCE_SCATTER;
  int64_t need_blocks = flow->collective == FS_COLLECTIVE_ALLTOALL ? (int64_t)data * data
                        : by_rank                                  ? data
                                                                   : 1;
  if (flow->collective != FS_COLLECTIVE_BARRIER && flow->blocks < need_blocks)
    return fail(c, "a %s over %d ranks needs at least %lld blocks, the flow has %d",
                fs_collective_name(flow->collective), data, (long long)need_blocks, flow->blocks);
  if (by_rank && flow->blocks % data != 0)
    return fail(c, "a %s over %d ranks needs a multiple of %d blocks, the flow has %d",
                fs_collective_name(flow->collective), data, data, flow->blocks);
  c->tasks = p->tasks, c->ranks = p->ranks, c->blocks = flow->blocks, c->data = data;
  c->exact = data <= 64;
  size_t n = (size_t)c->tasks + 1, cells = (size_t)c->ranks * (size_t)c->blocks;
  c->matched = malloc(n * 4), c->next_in_channel = malloc(n * 4), c->order = malloc(n * 4),
  c->position = malloc(n * 4);
  c->stamp = calloc(n, 4), c->level = calloc(n, 1), c->stack = malloc(n * 8);
  c->wanted = calloc(n, 1), c->wanted_at = malloc(n * 4);
  c->buffer = malloc(cells * sizeof *c->buffer), c->writer = malloc(cells * 4);
  c->reader_head = malloc(cells * 4);
  c->payload = calloc((size_t)flow->block_used + 1, sizeof *c->payload);
  c->consumed = calloc(n, 1);
  if (!c->matched || !c->next_in_channel || !c->wanted || !c->wanted_at || !c->order ||
      !c->position || !c->stamp || !c->level || !c->stack || !c->buffer || !c->writer ||
      !c->reader_head || !c->payload || !c->consumed)
    return fail(c, "out of memory");
  for (size_t i = 0; i < n; i++) c->position[i] = -1;
  const char *why;
  if ((why = build_predecessors(c)) || (why = match_messages(c)) || (why = order_tasks(c)))
    return why;
  if (flow->collective == FS_COLLECTIVE_BARRIER) return check_barrier(c);
  /* channels: consecutive sends (recvs) of one (source, destination, tag) are ordered */
  for (int32_t t = 0; t < c->tasks; t++) {
    int32_t u = c->next_in_channel[t];
    if (u < 0) continue;
    /* (u may be placed before t only when it waits for t's start) */
    want(c, t, STARTED);
    walk_wanted(c, u, c->position[t], 0);
    clear_wanted(c);
    if (level_found(c, t) < STARTED) {
      char a[96], b[96];
      return fail(c,
                  "%s and %s share a channel but are not ordered by dependencies: the "
                  "matching would depend on timing",
                  describe(c, t, a, sizeof a), describe(c, u, b, sizeof b));
    }
  }
  initial_data(c);
  for (size_t i = 0; i < cells; i++) c->writer[i] = -1, c->reader_head[i] = -1;
  for (int32_t i = 0; i < c->tasks; i++)
    if ((why = replay_task(c, c->order[i]))) return why;
  if ((why = check_temporaries_used(c))) return why;
  return check_result(c);
}

const char *fs_check_data_flow(const fs_program *p, const fs_data_flow *flow, char *why,
                               size_t why_size) {
  checker c;
  memset(&c, 0, sizeof c);
  c.p = p, c.flow = flow, c.why = why, c.why_size = why_size;
  const char *result = run(&c);
  release(&c);
  return result;
}

const char *fs_check_generator_flow(const char *name, const fs_generator_options *o, char *why,
                                    size_t why_size) {
  const fs_generator *g = fs_generator_find(name);
  if (!g) return snprintf(why, why_size, "no generator %s", name), why;
  fs_generator_options options = *o;
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  options.flow = &flow;
  fs_error err = {{0}};
  fs_program *p = g->generate(&options, &err);
  const char *result = NULL;
  if (!p) {
    snprintf(why, why_size, "%s at %d ranks: %s", name, o->ranks, err.message);
    result = why;
  } else if (flow.collective == FS_COLLECTIVE_NONE) {
    snprintf(why, why_size, "%s at %d ranks records no data flow", name, o->ranks);
    result = why;
  } else {
    char detail[400];
    if (fs_check_data_flow(p, &flow, detail, sizeof detail)) {
      snprintf(why, why_size, "%s at %d ranks (root %d): %s", name, o->ranks, o->root, detail);
      result = why;
    }
  }
  fs_program_free(p);
  fs_data_flow_free(&flow);
  return result;
}
