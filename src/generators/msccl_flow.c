/* msccl_flow.c: see msccl_flow.h. Each GPU's buffers are one array of
 * chunk contents (aliased in place); the steps run in fs_msccl_order's
 * order, each with the vector clock of what happened before it. */
#include "generators/msccl_flow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLOCK_BUDGET (1 << 24) /* clock entries and reader records kept at once */
#define CHUNK_BUDGET (1 << 22) /* chunk contents of all GPUs (24 bytes each) */

enum { EMPTY = 1, MIXED = 2, TWICE = 4 }; /* content flags */

/* What a chunk holds: the sum of input chunk `index` of the ranks in set. */
typedef struct content {
  int32_t index;
  uint32_t flags;
  uint64_t set;
} content;

/* A read since the chunk's last write, kept to check the next write. */
typedef struct reader {
  int32_t step, next;
} reader;

typedef struct checker {
  const fs_msccl *m;
  char *why;
  size_t why_size;
  int in_place;     /* buffers aliased as NCCL's in-place call does */
  int64_t *base;    /* per GPU: its first chunk in contents */
  int32_t *size;    /* per GPU: its chunks */
  content *chunk;   /* contents of every GPU's chunks */
  int32_t *writer;  /* per chunk: the step that last wrote it, -1: none */
  int32_t *readers; /* per chunk: head of its reads since, -1: none */
  reader *reads;
  int64_t read_count, read_capacity;
  int32_t *clock;   /* per tb: the vector clock (tbs entries) of its last step run */
  int32_t *kept_at; /* per step: its kept clock (hasdep, sends) in kept, -1: none */
  int32_t *kept;    /* the kept clocks */
  content *payload; /* per sending step: what it sent (cnt contents) */
  int64_t *sent_at; /* per step: its payload in payload */
  int32_t *now;     /* the clock of the step being run */
} checker;

static int say(checker *c, int result, const char *format, ...) FS_PRINTF(3, 4);
static int say(checker *c, int result, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(c->why, c->why_size, format, args);
  va_end(args);
  return result;
}

static const char *buffer_name(int b) {
  return b == FS_MSCCL_INPUT ? "input" : b == FS_MSCCL_OUTPUT ? "output" : "scratch";
}

/* Chunks of a rank's block: the input of allgather and gather, the output
 * of reducescatter and scatter, a peer's part in alltoall. */
static int32_t per_rank(const fs_msccl *m) { return m->nchunksperloop / m->ngpus; }

static int32_t at_least(int32_t a, int32_t b) { return a > b ? a : b; }

/* Chunks of GPU g's array: its buffers, or in place the one they share. */
static int32_t array_size(const checker *c, int32_t g) {
  const int32_t *n = c->m->gpu[g].chunks;
  if (!c->in_place) return n[0] + n[1] + n[2];
  return at_least(at_least(n[0], n[1]), c->m->nchunksperloop) + n[2];
}

/* Where buffer b's chunk j of GPU g lies in the GPU's array (-1: outside). */
static int64_t where(const checker *c, int32_t g, int b, int64_t j) {
  const fs_msccl *m = c->m;
  const int32_t *n = m->gpu[g].chunks;
  if (b == FS_MSCCL_SCRATCH)
    return c->base[g] + (c->in_place ? c->size[g] - n[2] : n[0] + n[1]) + j;
  if (!c->in_place) return c->base[g] + (b == FS_MSCCL_INPUT ? j : n[0] + j);
  int64_t at = j; /* in place: one buffer */
  if ((m->coll == FS_MSCCL_ALLGATHER || m->coll == FS_MSCCL_GATHER) && b == FS_MSCCL_INPUT)
    at = (int64_t)g * per_rank(m) + j; /* input = output block g */
  if ((m->coll == FS_MSCCL_REDUCESCATTER || m->coll == FS_MSCCL_SCATTER) && b == FS_MSCCL_OUTPUT)
    at = (int64_t)g * per_rank(m) + j; /* output = input block g */
  return at < c->size[g] - n[2] ? c->base[g] + at : -1;
}

/* Input chunks the collective gives each rank. */
static int32_t input_chunks(const fs_msccl *m) {
  return m->coll == FS_MSCCL_ALLGATHER || m->coll == FS_MSCCL_GATHER ? per_rank(m)
                                                                     : m->nchunksperloop;
}

/* "ranks 0,1,3" into text. */
static void rank_list(char *text, size_t size, uint64_t set) {
  size_t used = (size_t)snprintf(text, size, "rank%s ", (set & (set - 1)) ? "s" : "");
  for (int r = 0, first = 1; r < 64 && used < size; r++)
    if (set >> r & 1) {
      used += (size_t)snprintf(text + used, size - used, "%s%d", first ? "" : ",", r);
      first = 0;
    }
}

static void describe(char *text, size_t size, const content *v) {
  char ranks[300];
  rank_list(ranks, sizeof ranks, v->set);
  if (v->flags & EMPTY)
    snprintf(text, size, "nothing");
  else if (v->flags & MIXED)
    snprintf(text, size, "a sum of different chunks");
  else
    snprintf(text, size, "%s's chunk %d%s", ranks, v->index,
             v->flags & TWICE ? ", one of them added twice" : "");
}

/* ---- running the steps ---- */

/* Step w happened before the step being run (its clock is c->now). */
static int before(const checker *c, int32_t w) {
  const fs_msccl_step *s = &c->m->step[w];
  return c->now[s->tb] > w - c->m->tb[s->tb].first;
}

static int race(checker *c, int32_t step, int32_t other, int32_t g, int b, int64_t j) {
  const fs_msccl *m = c->m;
  const fs_msccl_step *x = &m->step[other], *y = &m->step[step];
  return say(c, FS_MSCCL_FLOW_WRONG,
             "gpu %d %s chunk %lld: step %d of tb %d (line %d) and step %d of tb %d (line %d) "
             "access it, one writing, and no dependency orders them (a race)",
             g, buffer_name(b), (long long)j, other - m->tb[x->tb].first, x->tb - m->gpu[g].first,
             x->line, step - m->tb[y->tb].first, y->tb - m->gpu[g].first, y->line);
}

/* Step i reads buffer b's chunk j into *out. */
static int read_chunk(checker *c, int32_t i, int32_t g, int b, int64_t j, content *out) {
  const fs_msccl *m = c->m;
  int64_t at = where(c, g, b, j);
  const fs_msccl_step *s = &m->step[i];
  if (at < 0)
    return say(c, FS_MSCCL_FLOW_WRONG,
               "gpu %d step %d of tb %d (line %d): %s chunk %lld lies outside the in-place "
               "buffer",
               g, i - m->tb[s->tb].first, s->tb - m->gpu[g].first, s->line, buffer_name(b),
               (long long)j);
  if (c->writer[at] >= 0 && !before(c, c->writer[at])) return race(c, i, c->writer[at], g, b, j);
  if (c->chunk[at].flags & EMPTY)
    return say(c, FS_MSCCL_FLOW_WRONG,
               "gpu %d step %d of tb %d (line %d): reads %s chunk %lld, which holds nothing yet", g,
               i - m->tb[s->tb].first, s->tb - m->gpu[g].first, s->line, buffer_name(b),
               (long long)j);
  if (c->read_count == c->read_capacity)
    return say(c, FS_MSCCL_FLOW_UNCHECKED, "not checked: more than %d reads kept", CLOCK_BUDGET);
  c->reads[c->read_count] = (reader){i, c->readers[at]};
  c->readers[at] = (int32_t)c->read_count++;
  *out = c->chunk[at];
  return 0;
}

static int write_chunk(checker *c, int32_t i, int32_t g, int b, int64_t j, const content *v) {
  int64_t at = where(c, g, b, j);
  if (at < 0) return read_chunk(c, i, g, b, j, NULL); /* (says where) */
  if (c->writer[at] >= 0 && !before(c, c->writer[at])) return race(c, i, c->writer[at], g, b, j);
  for (int32_t r = c->readers[at]; r >= 0; r = c->reads[r].next)
    if (c->reads[r].step != i && !before(c, c->reads[r].step))
      return race(c, i, c->reads[r].step, g, b, j);
  c->readers[at] = -1;
  c->writer[at] = i;
  c->chunk[at] = *v;
  return 0;
}

static content add(content a, content b) {
  content sum = {a.index, a.flags | b.flags, a.set | b.set};
  if (a.index != b.index) sum.flags |= MIXED;
  if (a.set & b.set) sum.flags |= TWICE;
  return sum;
}

/* The clock of step i: its tb's, its dependency's and its message's, joined. */
static void join_clocks(checker *c, int32_t i) {
  const fs_msccl *m = c->m;
  const fs_msccl_step *s = &m->step[i];
  memcpy(c->now, c->clock + (int64_t)s->tb * m->tbs, (size_t)m->tbs * sizeof *c->now);
  int32_t pred[3];
  int k = fs_msccl_predecessors(m, i, pred);
  for (int p = 0; p < k; p++) {
    if (pred[p] == i - 1 && m->step[pred[p]].tb == s->tb) continue; /* the tb's own */
    const int32_t *other = c->kept + (int64_t)c->kept_at[pred[p]] * m->tbs;
    for (int32_t t = 0; t < m->tbs; t++)
      if (other[t] > c->now[t]) c->now[t] = other[t];
  }
  c->now[s->tb] = i - m->tb[s->tb].first + 1;
  memcpy(c->clock + (int64_t)s->tb * m->tbs, c->now, (size_t)m->tbs * sizeof *c->now);
  if (c->kept_at[i] >= 0)
    memcpy(c->kept + (int64_t)c->kept_at[i] * m->tbs, c->now, (size_t)m->tbs * sizeof *c->now);
}

/* Runs step i on its contents. */
static int run_step(checker *c, int32_t i) {
  const fs_msccl *m = c->m;
  const fs_msccl_step *s = &m->step[i];
  int32_t g = m->tb[s->tb].gpu;
  int type = s->type, status = 0;
  join_clocks(c, i);
  for (int k = 0; k < s->cnt && type != FS_MSCCL_NOP && !status; k++) {
    content v = {-1, EMPTY, 0}, src;
    if (fs_msccl_receives(type)) v = c->payload[c->sent_at[s->from] + k];
    if (fs_msccl_reads_src(type)) {
      if ((status = read_chunk(c, i, g, s->srcbuf, (int64_t)s->srcoff + k, &src))) break;
      v = fs_msccl_receives(type) ? add(v, src) : src;
    }
    if (type == FS_MSCCL_RE) {
      content dst;
      if ((status = read_chunk(c, i, g, s->dstbuf, (int64_t)s->dstoff + k, &dst))) break;
      v = add(dst, src);
    }
    if (fs_msccl_writes_dst(type))
      status = write_chunk(c, i, g, s->dstbuf, (int64_t)s->dstoff + k, &v);
    if (fs_msccl_sends(type)) c->payload[c->sent_at[i] + k] = v;
  }
  return status;
}

/* ---- the expected result ---- */

static int reduction(fs_msccl_coll k) {
  return k == FS_MSCCL_ALLREDUCE || k == FS_MSCCL_REDUCE || k == FS_MSCCL_REDUCESCATTER;
}

/* What output chunk j of GPU g must hold; 0 when nothing is expected there. */
static int expected(const checker *c, int32_t g, int32_t j, content *v) {
  const fs_msccl *m = c->m;
  int32_t n = m->ngpus, per = per_rank(m);
  uint64_t all = n == 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
  switch (m->coll) {
    case FS_MSCCL_ALLREDUCE: *v = (content){j, 0, all}; return 1;
    case FS_MSCCL_REDUCE: *v = (content){j, 0, all}; return g == 0;
    case FS_MSCCL_BROADCAST: *v = (content){j, 0, 1}; return 1;
    case FS_MSCCL_ALLGATHER: *v = (content){j % per, 0, UINT64_C(1) << (j / per)}; return 1;
    case FS_MSCCL_GATHER: *v = (content){j % per, 0, UINT64_C(1) << (j / per)}; return g == 0;
    case FS_MSCCL_REDUCESCATTER: *v = (content){g * per + j, 0, all}; return 1;
    case FS_MSCCL_SCATTER: *v = (content){g * per + j, 0, 1}; return 1;
    case FS_MSCCL_ALLTOALL:
      *v = (content){g * per + j % per, 0, UINT64_C(1) << (j / per)};
      return 1;
    default: return 0;
  }
}

/* The output chunks a GPU must fill: C for allreduce-like, C/k for the
 * scattering ones. */
static int32_t output_chunks(const fs_msccl *m) {
  int scatters = m->coll == FS_MSCCL_REDUCESCATTER || m->coll == FS_MSCCL_SCATTER;
  return scatters ? m->nchunksperloop / m->ngpus : m->nchunksperloop;
}

static int check_outputs(checker *c) {
  const fs_msccl *m = c->m;
  for (int32_t g = 0; g < m->ngpus; g++)
    for (int32_t j = 0; j < output_chunks(m); j++) {
      content want;
      if (!expected(c, g, j, &want)) continue;
      int64_t at = where(c, g, FS_MSCCL_OUTPUT, j);
      if (j >= m->gpu[g].chunks[FS_MSCCL_OUTPUT] || at < 0)
        return say(c, FS_MSCCL_FLOW_WRONG,
                   "gpu %d output chunk %d: expected it to exist (o_chunks=\"%d\")", g, j,
                   m->gpu[g].chunks[FS_MSCCL_OUTPUT]);
      const content *has = &c->chunk[at];
      if (!has->flags && has->index == want.index && has->set == want.set) continue;
      char got[400], ranks[300];
      describe(got, sizeof got, has);
      if (reduction(m->coll) && !has->flags && has->index == want.index)
        rank_list(got, sizeof got, has->set);
      if (reduction(m->coll)) {
        snprintf(ranks, sizeof ranks, "the sum of all %d ranks' chunk %d", m->ngpus, want.index);
      } else {
        rank_list(ranks, sizeof ranks, want.set);
        snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), "'s chunk %d", want.index);
      }
      return say(c, FS_MSCCL_FLOW_WRONG, "gpu %d output chunk %d: expected %s, has %s", g, j, ranks,
                 got);
    }
  return 0;
}

/* ---- setup ---- */

static int supported(checker *c) {
  const fs_msccl *m = c->m;
  switch (m->coll) {
    case FS_MSCCL_ALLTOALLV:
    case FS_MSCCL_SEND:
    case FS_MSCCL_RECV:
    case FS_MSCCL_CUSTOM:
      return say(c, FS_MSCCL_FLOW_UNCHECKED, "not checked: %s has no fixed result",
                 fs_msccl_coll_name(m->coll));
    default: break;
  }
  if (m->ngpus > FS_MSCCL_FLOW_MAX_GPUS || m->tbs > FS_MSCCL_FLOW_MAX_TBS)
    return say(c, FS_MSCCL_FLOW_UNCHECKED,
               "not checked: the checker takes up to %d gpus and %d tbs (%d and %d here)",
               FS_MSCCL_FLOW_MAX_GPUS, FS_MSCCL_FLOW_MAX_TBS, m->ngpus, m->tbs);
  int per_rank = m->coll != FS_MSCCL_ALLREDUCE && m->coll != FS_MSCCL_REDUCE &&
                 m->coll != FS_MSCCL_BROADCAST;
  if (per_rank && m->nchunksperloop % m->ngpus)
    return say(c, FS_MSCCL_FLOW_WRONG,
               "expected nchunksperloop a multiple of ngpus for %s (got %d and %d)",
               fs_msccl_coll_name(m->coll), m->nchunksperloop, m->ngpus);
  return 0;
}

static void release(checker *c) {
  free(c->base), free(c->size), free(c->chunk), free(c->writer), free(c->readers);
  free(c->reads), free(c->clock), free(c->kept_at), free(c->kept), free(c->payload);
  free(c->sent_at), free(c->now);
}

/* Allocates the arrays and fills the inputs; a result or 0. */
static int prepare(checker *c) {
  const fs_msccl *m = c->m;
  int64_t chunks = 0, kept = 0, sent = 0, reads = 0;
  c->base = malloc((size_t)m->ngpus * sizeof *c->base);
  c->size = malloc((size_t)m->ngpus * sizeof *c->size);
  c->kept_at = malloc(((size_t)m->steps + 1) * sizeof *c->kept_at);
  c->sent_at = malloc(((size_t)m->steps + 1) * sizeof *c->sent_at);
  if (!c->base || !c->size || !c->kept_at || !c->sent_at) return -1;
  for (int32_t g = 0; g < m->ngpus; g++) {
    c->base[g] = chunks;
    chunks += c->size[g] = array_size(c, g);
  }
  for (int32_t i = 0; i < m->steps; i++) {
    const fs_msccl_step *s = &m->step[i];
    c->kept_at[i] = s->hasdep || fs_msccl_sends(s->type) ? (int32_t)kept++ : -1;
    c->sent_at[i] = sent;
    sent += fs_msccl_sends(s->type) ? s->cnt : 0;
    reads += s->type == FS_MSCCL_NOP ? 0 : 2 * s->cnt;
  }
  if ((kept + m->tbs + 1) * m->tbs > CLOCK_BUDGET || reads > CLOCK_BUDGET)
    return say(c, FS_MSCCL_FLOW_UNCHECKED,
               "not checked: its clocks and reads need more than %d entries", CLOCK_BUDGET);
  if (chunks > CHUNK_BUDGET)
    return say(c, FS_MSCCL_FLOW_UNCHECKED,
               "not checked: its buffers hold %lld chunks in all, more than %d", (long long)chunks,
               CHUNK_BUDGET);
  c->read_capacity = reads;
  c->chunk = malloc(((size_t)chunks + 1) * sizeof *c->chunk);
  c->writer = malloc(((size_t)chunks + 1) * sizeof *c->writer);
  c->readers = malloc(((size_t)chunks + 1) * sizeof *c->readers);
  c->reads = malloc(((size_t)reads + 1) * sizeof *c->reads);
  c->clock = calloc((size_t)m->tbs * (size_t)m->tbs + 1, sizeof *c->clock);
  c->kept = malloc(((size_t)kept * (size_t)m->tbs + 1) * sizeof *c->kept);
  c->payload = malloc(((size_t)sent + 1) * sizeof *c->payload);
  c->now = malloc(((size_t)m->tbs + 1) * sizeof *c->now);
  if (!c->chunk || !c->writer || !c->readers || !c->reads || !c->clock || !c->kept || !c->payload ||
      !c->now)
    return -1;
  for (int64_t k = 0; k < chunks; k++)
    c->chunk[k] = (content){-1, EMPTY, 0}, c->writer[k] = -1, c->readers[k] = -1;
  for (int32_t g = 0; g < m->ngpus; g++) { /* out of place: the chunks the file declares */
    int32_t inputs = input_chunks(m), declared = m->gpu[g].chunks[FS_MSCCL_INPUT];
    int32_t limit = c->in_place || declared > inputs ? inputs : declared;
    for (int32_t j = 0; j < limit; j++) {
      int64_t at = where(c, g, FS_MSCCL_INPUT, j);
      if (at >= 0) c->chunk[at] = (content){j, 0, UINT64_C(1) << g};
    }
  }
  return 0;
}

int fs_msccl_check_flow(const fs_msccl *m, char *why, size_t why_size) {
  checker c = {.m = m, .why = why, .why_size = why_size, .in_place = !m->outofplace};
  if (why_size) why[0] = '\0';
  int status = supported(&c);
  if (status) return status;
  int32_t *order = malloc(((size_t)m->steps + 1) * sizeof *order);
  status = order ? prepare(&c) : -1;
  if (status == 0 && fs_msccl_order(m, order) != m->steps)
    status = -1; /* (the reader refused
                                                                            cycles) */
  for (int32_t k = 0; status == 0 && k < m->steps; k++) status = run_step(&c, order[k]);
  if (status == 0) status = check_outputs(&c);
  if (status < 0)
    status =
        say(&c, FS_MSCCL_FLOW_FAILED, "out of memory checking the data flow of %d steps", m->steps);
  free(order);
  release(&c);
  return status;
}
