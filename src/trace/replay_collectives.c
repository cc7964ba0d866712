/* replay_collectives.c: how an MPI collective of a trace becomes tasks.
 *
 * Pass 1 lists, per communicator and member, the member's collective calls
 * on it, so the k-th collective of a communicator can be built once, for all
 * members, by whichever member's walk (replay_walk.c) reaches it first. An
 * instance is built from its members' calls: the generator --algo picked
 * (replay_algorithms.c), or for the v-collectives, reduce-scatter and scan
 * a pattern (collective_patterns.h); the schedule is copied into the
 * program on the members' world ranks, each member's part hung between an
 * entry and an exit proxy, which the member's walk links to its chain. */
#include "trace/replay_lowering.h"

#include <stdio.h>
#include <stdlib.h>

#include "generators/mpi_selection.h"
#include "trace/collective_patterns.h"

/* ---- pass 1: each communicator's sequence of collectives ---- */

static int list_push(fs_index_list *l, int64_t value) {
  if (l->count == l->capacity) {
    int64_t capacity = l->capacity ? l->capacity * 2 : 4; /* 2^20 members: 4 x 8 bytes each */
    int64_t *at = realloc(l->at, (size_t)capacity * sizeof *at);
    if (!at) return -1;
    l->at = at;
    l->capacity = capacity;
  }
  l->at[l->count++] = value;
  return 0;
}

/* The comm rank of world rank r in communicator c, -1 when not a member,
 * -2 when out of memory. */
static int32_t comm_rank_of(fs_lowering *s, int32_t c, int32_t r) {
  if (c == FS_COMM_WORLD) return r;
  if (c == FS_COMM_SELF) return 0;
  if (!s->position[c]) {
    const fs_trace_comm *comm = &s->trace->comm[c];
    int32_t *position = malloc((size_t)s->trace->ranks * sizeof *position);
    if (!position) return -2;
    for (int32_t w = 0; w < s->trace->ranks; w++) position[w] = -1;
    for (int32_t m = 0; m < comm->size; m++)
      if (comm->members[m] >= 0 && comm->members[m] < s->trace->ranks)
        position[comm->members[m]] = m;
    s->position[c] = position;
  }
  return s->position[c][r];
}

/* Appends each collective call to its member's sequence. */
static int sequence_calls(fs_lowering *s) {
  const fs_trace *t = s->trace;
  for (int32_t r = 0; r < t->ranks; r++) {
    const fs_trace_rank *tr = &t->rank[r];
    for (int64_t i = 0; i < tr->count; i++) {
      const fs_call *c = &tr->calls[i];
      s->entry[r][i] = s->exit[r][i] = -1;
      if (!fs_lower_is_collective_call(c)) continue;
      if (c->comm < 0 || c->comm >= t->comms)
        return fs_lower_call_error(s, r, c, "no communicator %d", c->comm);
      int32_t m = comm_rank_of(s, c->comm, r);
      if (m == -2) return fs_lower_out_of_memory(s);
      if (m < 0)
        return fs_lower_call_error(s, r, c, "rank %d is not a member of communicator %lld", r,
                                   (long long)t->comm[c->comm].id);
      fs_index_list *l = &s->sequence[c->comm][m];
      if (l->count >= INT32_MAX) return fs_lower_call_error(s, r, c, "too many collectives");
      s->instance[r][i] = (int32_t)l->count;
      if (list_push(l, i)) return fs_lower_out_of_memory(s);
    }
  }
  return 0;
}

/* Every member must make the same number of collective calls: the first
 * call without a partner is the error. */
static int check_counts(fs_lowering *s) {
  const fs_trace *t = s->trace;
  for (int32_t c = 0; c < t->comms; c++) {
    if (c == FS_COMM_SELF) continue;
    const fs_trace_comm *comm = &t->comm[c];
    for (int32_t m = 1; m < comm->size; m++) {
      fs_index_list *a = &s->sequence[c][0], *b = &s->sequence[c][m];
      if (a->count == b->count) continue;
      int32_t more = a->count > b->count ? comm->members[0] : comm->members[m];
      const fs_index_list *longer = a->count > b->count ? a : b,
                          *shorter = a->count > b->count ? b : a;
      const fs_call *extra = &t->rank[more].calls[longer->at[shorter->count]];
      return fs_lower_call_error(s, more, extra,
                                 "rank %d makes %lld collective calls on communicator %lld, rank "
                                 "%d makes "
                                 "%lld: this one has no partner",
                                 comm->members[0], (long long)a->count, (long long)comm->id,
                                 comm->members[m], (long long)b->count);
    }
  }
  return 0;
}

int fs_lower_list_collectives(fs_lowering *s) {
  return sequence_calls(s) || check_counts(s) ? -1 : 0;
}

/* ---- the schedule of an instance ---- */

static int algo_of(fs_call_kind k) {
  switch (k) {
    case FS_CALL_BCAST: return FS_ALGO_BCAST;
    case FS_CALL_REDUCE: return FS_ALGO_REDUCE;
    case FS_CALL_ALLREDUCE: return FS_ALGO_ALLREDUCE;
    case FS_CALL_GATHER: return FS_ALGO_GATHER;
    case FS_CALL_SCATTER: return FS_ALGO_SCATTER;
    case FS_CALL_ALLGATHER: return FS_ALGO_ALLGATHER;
    case FS_CALL_ALLTOALL: return FS_ALGO_ALLTOALL;
    case FS_CALL_BARRIER:
    case FS_CALL_COMM_SPLIT:
    case FS_CALL_COMM_DUP:
    case FS_CALL_COMM_CREATE: return FS_ALGO_BARRIER;
    default: return -1;
  }
}

static int is_rooted(fs_call_kind k) {
  return k == FS_CALL_BCAST || k == FS_CALL_REDUCE || k == FS_CALL_GATHER || k == FS_CALL_SCATTER ||
         k == FS_CALL_GATHERV || k == FS_CALL_SCATTERV;
}

/* The k-th collective of a communicator, reached first by rank r's call c;
 * per member (comm rank m) its call and what the schedule is built from. */
typedef struct instance {
  const fs_call *c;
  int32_t r, k, n;
  const fs_trace_comm *comm;
  fs_call_kind kind;
  int32_t root;
  int32_t shift;       /* sub rank i runs on comm rank (i + shift) % n */
  const char *name;    /* the schedule's name: its labels' prefix */
  fs_program *pattern; /* the schedule when it is not a cached one (freed with the instance) */
  const fs_call **member;
  int32_t *world, *entry, *exit; /* per sub rank: world rank, proxies */
  int64_t *bytes;
  const int64_t **lists;
} instance;

static int allocate_instance(instance *in) {
  size_t n = (size_t)in->n;
  in->member = malloc(n * sizeof *in->member);
  in->world = malloc(n * sizeof *in->world);
  in->entry = malloc(n * sizeof *in->entry);
  in->exit = malloc(n * sizeof *in->exit);
  in->bytes = malloc(n * sizeof *in->bytes);
  in->lists = malloc(n * sizeof *in->lists);
  return in->member && in->world && in->entry && in->exit && in->bytes && in->lists ? 0 : -1;
}

static void free_instance(instance *in) {
  fs_program_free(in->pattern);
  free(in->member), free(in->world), free(in->entry), free(in->exit), free(in->bytes),
      free(in->lists);
}

/* Each member's call, and the root; an error when a member's call is another
 * collective or names another root than the call that reached the instance
 * first, or the root is not a rank of the communicator. */
static int gather_members(fs_lowering *s, instance *in) {
  const fs_call *c = in->c;
  for (int32_t m = 0; m < in->n; m++) {
    int32_t w = in->comm->members[m];
    const fs_call *o = in->member[m] = &s->trace->rank[w].calls[s->sequence[c->comm][m].at[in->k]];
    int same = o->kind == c->kind || (fs_lower_is_comm_creation(in->kind) &&
                                      fs_lower_is_comm_creation((fs_call_kind)o->kind));
    if (!same || (is_rooted(in->kind) && o->root != c->root))
      return fs_lower_call_error(s, w, o,
                                 "collective %d of communicator %lld does not match rank %d's %s%s "
                                 "(line %u)",
                                 in->k, (long long)in->comm->id, in->r, fs_call_kind_name(in->kind),
                                 same ? " with another root" : "", c->line);
    in->bytes[m] = o->bytes;
    in->lists[m] = fs_lower_call_list(s, w, o->list_at, o->list_count);
  }
  in->root = is_rooted(in->kind) ? c->root : 0;
  if (is_rooted(in->kind) && (in->root < 0 || in->root >= in->n))
    return fs_lower_call_error(s, in->r, c, "root %d is not a rank of communicator %lld", in->root,
                               (long long)in->comm->id);
  return 0;
}

/* Schedules up to this many tasks are kept for the next collective of the
 * same shape; larger ones are generated again each time (as fast as the
 * copy they are made for), so that a large collective's schedule (2^14
 * ranks and more) is not held beside the whole program. */
#define FS_CACHED_TASKS_MAX (1 << 16)

/* The generator's schedule for (algo, ranks, bytes): cached when small, else
 * handed over in *owned (the caller frees it). */
static const fs_program *generated(fs_lowering *s, int algo, int32_t ranks, int32_t root,
                                   int64_t bytes, int32_t r, const fs_call *c, fs_program **owned) {
  for (int32_t i = 0; i < s->cache_count; i++) {
    const fs_cached_schedule *e = &s->cache[i];
    if (e->algo == algo && e->ranks == ranks && e->root == root && e->bytes == bytes)
      return e->program;
  }
  fs_lower_algorithm *a = &s->algorithms[algo];
  fs_generator_options o = {.ranks = ranks,
                            .size = bytes,
                            .rounds = 1,
                            .root = root,
                            .schedule = a->schedule[0] ? a->schedule : NULL,
                            .ways = a->ways,
                            .segment = a->segment};
  fs_error why;
  fs_program *program = a->generator->generate(&o, &why);
  if (!program) return fs_lower_call_error(s, r, c, "%s", why.message), NULL;
  fs_mpi_choice pick; /* a library's selector: say what it ran */
  if ((a->generator->traits & FS_GEN_SELECTOR) &&
      fs_mpi_select_options(a->generator, &o, &pick, &why) == 0)
    fs_lower_note_pick(a, pick.spec.text);
  a->used = 1;
  if (program->tasks > FS_CACHED_TASKS_MAX) return *owned = program;
  if (s->cache_count == s->cache_capacity) {
    int32_t capacity = s->cache_capacity ? s->cache_capacity * 2 : 16;
    fs_cached_schedule *cache = realloc(s->cache, (size_t)capacity * sizeof *cache);
    if (!cache) return fs_program_free(program), fs_lower_out_of_memory(s), NULL;
    s->cache = cache;
    s->cache_capacity = capacity;
  }
  s->cache[s->cache_count++] = (fs_cached_schedule){algo, ranks, root, bytes, program};
  return program;
}

/* A collective --algo covers: its generator's schedule. */
static const fs_program *algorithm_schedule(fs_lowering *s, instance *in, int algo) {
  const fs_call **member = in->member;
  int32_t n = in->n, root = in->root;
  /* the size each generator takes: the vector (bcast, reduce, allreduce)
   * or one rank's block (gather, scatter, allgather, alltoall) */
  int64_t size = 0;
  for (int32_t m = 0; m < n && algo != FS_ALGO_BARRIER; m++) {
    int64_t b = algo == FS_ALGO_SCATTER
                    ? (member[m]->recv_bytes > 0 ? member[m]->recv_bytes : member[m]->bytes)
                : algo == FS_ALGO_BCAST ? member[root]->bytes
                                        : member[m]->bytes;
    if (b > size) size = b;
  }
  /* a generator without --root runs on ranks relative to the root */
  in->shift = s->algorithms[algo].generator->options & FS_GEN_ROOT ? 0 : root;
  const fs_program *sub = generated(s, algo, n, root - in->shift, size, in->r, in->c, &in->pattern);
  in->name = s->algorithms[algo].generator->name;
  for (int32_t i = 0; i < n; i++) in->world[i] = in->comm->members[(i + in->shift) % n];
  return sub;
}

/* A v-collective, reduce-scatter or scan: its pattern from the members'
 * counts. */
static const fs_program *pattern_schedule(fs_lowering *s, instance *in) {
  int32_t n = in->n;
  fs_call_kind kind = in->kind;
  for (int32_t m = 0; m < n; m++) {
    const fs_call *o = in->member[m];
    int needs_list = kind == FS_CALL_ALLTOALLV || kind == FS_CALL_REDUCE_SCATTER;
    if (needs_list && (!in->lists[m] || o->list_count < n))
      return fs_lower_call_error(s, in->comm->members[m], o,
                                 "expected %d counts, one per rank of the communicator", n),
             NULL;
    if (kind == FS_CALL_SCATTERV) in->bytes[m] = o->recv_bytes;
    if (kind == FS_CALL_REDUCE_SCATTER) in->bytes[m] = in->lists[0][m];
    if (kind == FS_CALL_REDUCE_SCATTER_BLOCK) in->bytes[m] = in->member[0]->recv_bytes;
    in->world[m] = in->comm->members[m];
  }
  fs_error why;
  fs_program *pattern;
  switch (kind) {
    case FS_CALL_GATHERV: pattern = fs_pattern_gatherv(n, in->root, in->bytes, &why); break;
    case FS_CALL_SCATTERV: pattern = fs_pattern_scatterv(n, in->root, in->bytes, &why); break;
    case FS_CALL_ALLGATHERV: pattern = fs_pattern_allgatherv(n, in->bytes, &why); break;
    case FS_CALL_ALLTOALLV: pattern = fs_pattern_alltoallv(n, in->lists, &why); break;
    case FS_CALL_REDUCE_SCATTER:
    case FS_CALL_REDUCE_SCATTER_BLOCK:
      pattern = fs_pattern_reduce_scatter(n, in->bytes, &why);
      break;
    default:
      pattern = fs_pattern_scan(n, in->member[0]->bytes, kind == FS_CALL_EXSCAN, &why);
      break;
  }
  if (!pattern) return fs_error_set(s->err, "%s", why.message), NULL;
  in->pattern = pattern;
  in->name = pattern->labels[0];
  return pattern;
}

/* ---- embedding a schedule ---- */

/* Schedule `sub` copied into the program: sub rank i runs on world rank
 * world[i], between its proxies entry[i] and exit[i]. */
typedef struct embedding {
  const fs_program *sub;
  const int32_t *world;
  int32_t *entry, *exit;
  uint8_t *mark;     /* per sub task: 1 has a same-rank predecessor, 2 a successor */
  int32_t *label_of; /* per sub label: the program's */
  int32_t base;      /* the program's id of sub task 0 */
} embedding;

/* The schedule's labels as "ALGORITHM/LABEL". */
static int copy_labels(fs_lowering *s, embedding *e, const char *algorithm_name) {
  for (int32_t l = 0; l < e->sub->label_count; l++) {
    char text[160];
    int length = snprintf(text, sizeof text, "%s/%s", algorithm_name, e->sub->labels[l]);
    if (length >= (int)sizeof text) length = (int)sizeof text - 1;
    if ((e->label_of[l] = fs_program_intern_label(s->p, text, length)) < 0) return -1;
  }
  return 0;
}

/* Marks the tasks with a same-rank predecessor or successor; returns the
 * number of tags the schedule uses (one more than its largest). */
static int32_t mark_chains(embedding *e) {
  const fs_program *sub = e->sub;
  int32_t tag_span = 1;
  for (int32_t u = 0; u < sub->tasks; u++) {
    for (uint32_t x = sub->successor_at[u]; x < sub->successor_at[u + 1]; x++) {
      int32_t v = FS_EDGE_TASK(sub->successor[x]);
      if (sub->rank[v] == sub->rank[u]) e->mark[v] |= 1, e->mark[u] |= 2;
    }
    int32_t tag = fs_task_tag(sub, u);
    if (tag >= tag_span) tag_span = tag + 1;
  }
  return tag_span;
}

/* The schedule's tasks in its order (a start becomes a proxy), their tags
 * moved to the instance's range from tag_base. */
static int copy_tasks(fs_lowering *s, embedding *e, int32_t tag_base) {
  const fs_program *sub = e->sub;
  fs_program *p = s->p;
  e->base = p->tasks;
  for (int32_t u = 0; u < sub->tasks; u++) {
    fs_task_kind kind = sub->kind[u] == FS_START ? FS_PROXY : (fs_task_kind)sub->kind[u];
    int32_t label = sub->label && sub->label[u] >= 0 ? e->label_of[sub->label[u]] : -1;
    int32_t t = fs_lower_add_task(s, kind, e->world[sub->rank[u]], label);
    if (t < 0) return -1;
    p->flags[t] = sub->kind[u] == FS_START ? 0 : sub->flags[u];
    p->value[t] = sub->kind[u] == FS_START ? 0 : sub->value[u];
    if (sub->flags[u] & FS_HAS_ANY) p->need[t] = sub->need[u];
    if (sub->peer[u] >= 0)
      fs_task_set_peer(p, t, e->world[sub->peer[u]]);
    else
      p->peer[t] = sub->peer[u];
    if (kind == FS_SEND || kind == FS_RECV) {
      int32_t tag = fs_task_tag(sub, u);
      if (fs_task_set_tag(p, t, tag == FS_ANY_TAG ? FS_ANY_TAG : tag_base + tag)) return -1;
    }
    if ((fs_task_stride(sub, u) && fs_task_set_stride(p, t, fs_task_stride(sub, u))) ||
        (fs_task_cpu(sub, u) && fs_task_set_cpu(p, t, fs_task_cpu(sub, u))) ||
        (fs_task_nic(sub, u) && fs_task_set_nic(p, t, fs_task_nic(sub, u))) ||
        (fs_task_protocol(sub, u) && fs_task_set_protocol(p, t, fs_task_protocol(sub, u))))
      return -1;
  }
  return 0;
}

/* The schedule's edges; a task that starts its rank's chain waits for the
 * member's entry (unless it waits for any one of its predecessors), one
 * that ends it is waited for by the member's exit. */
static int copy_edges(fs_lowering *s, const embedding *e) {
  const fs_program *sub = e->sub;
  fs_program *p = s->p;
  int32_t base = e->base;
  for (int32_t u = 0; u < sub->tasks; u++) {
    for (uint32_t x = sub->successor_at[u]; x < sub->successor_at[u + 1]; x++) {
      uint32_t edge = sub->successor[x];
      int point = edge & FS_EDGE_LOCAL   ? FS_AFTER_LOCAL
                  : edge & FS_EDGE_START ? FS_AFTER_START
                                         : FS_AFTER_END;
      if (fs_program_depend(p, base + FS_EDGE_TASK(edge), base + u, point)) return -1;
    }
    int32_t i = sub->rank[u];
    if (!(e->mark[u] & 1) && !(sub->flags[u] & FS_HAS_ANY) &&
        fs_program_depend(p, base + u, e->entry[i], FS_AFTER_END))
      return -1;
    if (!(e->mark[u] & 2) && fs_program_depend(p, e->exit[i], base + u, FS_AFTER_END)) return -1;
  }
  return 0;
}

/* A member with no task in the schedule (one rank) passes straight through. */
static int pass_through(fs_lowering *s, embedding *e) {
  const fs_program *sub = e->sub;
  for (int32_t i = 0; i < sub->ranks; i++) e->mark[i] = 0;
  for (int32_t u = 0; u < sub->tasks; u++) e->mark[sub->rank[u]] = 1;
  for (int32_t i = 0; i < sub->ranks; i++)
    if (!e->mark[i] && fs_program_depend(s->p, e->exit[i], e->entry[i], FS_AFTER_END)) return -1;
  return 0;
}

/* The members' proxies, then the schedule's tasks and edges; -1 with err. */
static int embed_steps(fs_lowering *s, embedding *e, const char *algorithm_name,
                       int32_t member_label) {
  if (copy_labels(s, e, algorithm_name)) return fs_lower_out_of_memory(s);
  int32_t tag_base = s->next_collective_tag, tag_span = mark_chains(e);
  if (tag_span > INT32_MAX - tag_base)
    return fs_error_set(s->err, "replay: more collective tags than an int holds");
  s->next_collective_tag += tag_span;
  for (int32_t i = 0; i < e->sub->ranks; i++) {
    if ((e->entry[i] = fs_lower_add_task(s, FS_PROXY, e->world[i], member_label)) < 0 ||
        (e->exit[i] = fs_lower_add_task(s, FS_PROXY, e->world[i], member_label)) < 0)
      return fs_lower_out_of_memory(s);
  }
  if (copy_tasks(s, e, tag_base) || copy_edges(s, e) || pass_through(s, e))
    return fs_lower_out_of_memory(s);
  return 0;
}

/* Copies schedule `sub` into the program: sub rank i runs on world rank
 * world[i]; entry[i] and exit[i] receive the member's proxies. */
static int embed(fs_lowering *s, const fs_program *sub, const int32_t *world, int32_t *entry,
                 int32_t *exit, const char *algorithm_name, int32_t member_label) {
  embedding e = {.sub = sub,
                 .world = world,
                 .entry = entry,
                 .exit = exit,
                 .mark = calloc((size_t)sub->tasks + 1, 1),
                 .label_of = calloc((size_t)sub->label_count + 1, sizeof *e.label_of)};
  int status = !e.mark || !e.label_of ? fs_lower_out_of_memory(s)
                                      : embed_steps(s, &e, algorithm_name, member_label);
  free(e.mark);
  free(e.label_of);
  return status;
}

/* ---- an instance ---- */

/* Every member's proxies, at its call; the entry named after the call. */
static int place_proxies(fs_lowering *s, const instance *in) {
  for (int32_t i = 0; i < in->n; i++) {
    int32_t m = (i + in->shift) % in->n;
    int32_t w = in->comm->members[m];
    int64_t at = s->sequence[in->c->comm][m].at[in->k];
    s->entry[w][at] = in->entry[i];
    s->exit[w][at] = in->exit[i];
    if (fs_lower_name_task(s, in->entry[i], w, in->member[m], 0, -1)) return -1;
  }
  return 0;
}

static int build_instance(fs_lowering *s, instance *in) {
  if (gather_members(s, in)) return -1;
  int algo = algo_of(in->kind);
  const fs_program *sub = algo >= 0 ? algorithm_schedule(s, in, algo) : pattern_schedule(s, in);
  if (!sub ||
      embed(s, sub, in->world, in->entry, in->exit, in->name, fs_lower_kind_label(s, in->kind)) ||
      place_proxies(s, in))
    return -1;
  s->replay->collectives++;
  return 0;
}

int fs_lower_build_collective(fs_lowering *s, int32_t r, int64_t call) {
  const fs_call *c = &s->trace->rank[r].calls[call];
  const fs_trace_comm *comm = &s->trace->comm[c->comm];
  instance in = {.c = c,
                 .r = r,
                 .k = s->instance[r][call],
                 .n = comm->size,
                 .comm = comm,
                 .kind = (fs_call_kind)c->kind};
  int status = allocate_instance(&in) ? fs_lower_out_of_memory(s) : build_instance(s, &in);
  free_instance(&in);
  return status;
}
