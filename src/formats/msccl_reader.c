/* msccl_reader.c: see msccl_reader.h. io/xml_input.h builds the tree
 * safely; a first walk counts GPUs, tbs and steps (so the arrays are
 * allocated once), a second fills them, then the connections are matched
 * FIFO by FIFO and the dependency graph is checked for cycles. */
#include "formats/msccl_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "core/program.h"
#include "io/xml_input.h"

typedef struct reader {
  const char *name;
  fs_error *err;
  fs_msccl *m;
} reader;

#define at(r, node, ...) fs_xml_error_at((r)->err, (r)->name, (node), __VA_ARGS__)
/* "FILE:LINE: ..." at a line kept from the tree */
#define at_line(r, line, ...) at_line_(r, line, __VA_ARGS__)

static int FS_PRINTF(3, 4) at_line_(const reader *r, int32_t line, const char *format, ...) {
  char what[900];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  return fs_error_set(r->err, "%s:%d: %s", r->name, line, what);
}

static const char *const coll_names[FS_MSCCL_COLLS] = {"allreduce", "allgather", "reducescatter",
                                                       "broadcast", "reduce",    "alltoall",
                                                       "alltoallv", "gather",    "scatter",
                                                       "send",      "recv",      "custom"};
static const char *const type_names[FS_MSCCL_TYPES] = {"s",    "r",   "rcs", "rrs", "rrc",
                                                       "rrcs", "cpy", "re",  "nop"};

const char *fs_msccl_coll_name(fs_msccl_coll coll) {
  return coll < FS_MSCCL_COLLS ? coll_names[coll] : "?";
}
const char *fs_msccl_type_name(fs_msccl_type type) {
  return type < FS_MSCCL_TYPES ? type_names[type] : "?";
}

static int is_text(const xmlNode *node) {
  return node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE;
}

/* Rejects any attribute not in the NULL-terminated list. */
static int check_attributes(const reader *r, const xmlNode *node, const char *const *allowed) {
  for (const xmlAttr *a = node->properties; a; a = a->next) {
    int known = 0;
    for (int i = 0; allowed[i] && !known; i++)
      known = !a->ns && strcmp((const char *)a->name, allowed[i]) == 0;
    if (known) continue;
    char list[300];
    size_t used = 0;
    for (int i = 0; allowed[i]; i++)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? " " : "", allowed[i]);
    return at(r, node, "expected only %s on <%s> (got %.64s)", list, node->name,
              (const char *)a->name);
  }
  return 0;
}

/* The attribute's text into buffer (size bytes with the NUL): -1 with err
 * set when absent (and required) or too long; 1 when absent and optional. */
static int text_attribute(const reader *r, const xmlNode *node, const char *name, int required,
                          char *buffer, size_t size) {
  xmlChar *value = xmlGetNoNsProp(node, (const xmlChar *)name);
  if (!value) return required ? at(r, node, "expected attribute %s on <%s>", name, node->name) : 1;
  size_t n = strlen((const char *)value);
  int status = 0;
  if (n >= size)
    status = at(r, node, "expected %s of at most %zu bytes on <%s>", name, size - 1, node->name);
  else
    memcpy(buffer, value, n + 1);
  xmlFree(value);
  return status;
}

/* A decimal integer attribute in [min, max]; 1 when absent and optional. */
static int int_attribute(const reader *r, const xmlNode *node, const char *name, int required,
                         int64_t min, int64_t max, int64_t *out) {
  char text[32];
  int status = text_attribute(r, node, name, required, text, sizeof text);
  if (status) {
    if (status < 0 && strstr(r->err->message, "at most"))
      return at(r, node, "expected %s from %lld to %lld on <%s>", name, (long long)min,
                (long long)max, node->name);
    return status;
  }
  const char *digits = text[0] == '-' ? text + 1 : text;
  int64_t value = 0;
  int ok = *digits && strspn(digits, "0123456789") == strlen(digits) && strlen(digits) <= 18;
  for (const char *c = digits; ok && *c; c++) value = value * 10 + (*c - '0');
  if (text[0] == '-') value = -value;
  if (!ok || value < min || value > max)
    return at(r, node, "expected %s from %lld to %lld on <%s> (got \"%.32s\")", name,
              (long long)min, (long long)max, node->name, text);
  *out = value;
  return 0;
}

/* The element children of node, in order; anything else but comments and
 * blanks is refused. Calls visit on each (which checks its name). */
static int children(const reader *r, const xmlNode *node, const char *child,
                    int (*visit)(const reader *, const xmlNode *, void *), void *context) {
  for (const xmlNode *c = node->children; c; c = c->next) {
    if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE) continue;
    if (is_text(c) && fs_xml_is_blank(c->content)) continue;
    if (!fs_xml_is_element(c, child))
      return c->type == XML_ELEMENT_NODE
                 ? at(r, c, "expected <%s> inside <%s> (got <%.64s>)", child, node->name, c->name)
                 : at(r, c, "expected only <%s> elements inside <%s>", child, node->name);
    if (visit(r, c, context)) return -1;
  }
  return 0;
}

/* ---- first walk: counts ---- */

typedef struct counts {
  int64_t gpus, tbs, steps;
} counts;

static int count_step(const reader *r, const xmlNode *node, void *context) {
  (void)r, (void)node;
  ((counts *)context)->steps++;
  return 0;
}
static int count_tb(const reader *r, const xmlNode *node, void *context) {
  ((counts *)context)->tbs++;
  return children(r, node, "step", count_step, context);
}
static int count_gpu(const reader *r, const xmlNode *node, void *context) {
  ((counts *)context)->gpus++;
  return children(r, node, "tb", count_tb, context);
}

/* ---- <algo> ---- */

static int read_coll(const reader *r, const xmlNode *node, fs_msccl *m) {
  char text[32];
  if (text_attribute(r, node, "coll", 1, text, sizeof text) < 0) return -1;
  if (strcmp(text, "reduce_scatter") == 0) { /* microsoft/msccl 0.1's spelling */
    m->coll = FS_MSCCL_REDUCESCATTER;
    return 0;
  }
  for (int c = 0; c < FS_MSCCL_COLLS; c++)
    if (strcmp(text, coll_names[c]) == 0) {
      m->coll = (fs_msccl_coll)c;
      return 0;
    }
  return at(r, node,
            "expected coll= allreduce, allgather, reducescatter (reduce_scatter), broadcast, "
            "reduce, alltoall, alltoallv, gather, scatter, send, recv or custom (got \"%.32s\")",
            text);
}

static int read_algo(const reader *r, const xmlNode *node, fs_msccl *m) {
  static const char *const allowed[] = {"name",     "proto",    "nchannels", "nchunksperloop",
                                        "ngpus",    "coll",     "inplace",   "outofplace",
                                        "minBytes", "maxBytes", "nthreads",  NULL};
  char proto[16];
  int64_t v[10] = {0, 0, 0, 0, 1, 0, 0, 0};
  if (check_attributes(r, node, allowed) ||
      text_attribute(r, node, "name", 0, m->name, sizeof m->name) < 0 ||
      text_attribute(r, node, "proto", 1, proto, sizeof proto) < 0)
    return -1;
  m->proto = fs_protocol_from_name(proto, (int64_t)strlen(proto));
  if (m->proto < 0)
    return at(r, node, "expected proto= Simple, LL or LL128 (got \"%.15s\")", proto);
  if (int_attribute(r, node, "nchannels", 1, 1, FS_MSCCL_MAX_CHANNELS, &v[0]) ||
      int_attribute(r, node, "nchunksperloop", 1, 1, FS_MSCCL_MAX_CHUNKS, &v[1]) ||
      int_attribute(r, node, "ngpus", 1, 1, FS_MSCCL_MAX_GPUS, &v[2]) || read_coll(r, node, m) ||
      int_attribute(r, node, "inplace", 1, 0, 1, &v[3]) < 0 ||
      int_attribute(r, node, "outofplace", 0, 0, 1, &v[4]) < 0 ||
      int_attribute(r, node, "minBytes", 0, 0, INT64_C(1) << 62, &v[5]) < 0 ||
      int_attribute(r, node, "maxBytes", 0, 0, INT64_C(1) << 62, &v[6]) < 0 ||
      int_attribute(r, node, "nthreads", 0, 32, FS_MSCCL_MAX_NTHREADS, &v[7]) < 0)
    return -1;
  if (v[7] % 32)
    return at(r, node, "expected nthreads a multiple of 32 (got %lld)", (long long)v[7]);
  if (v[6] && v[6] < v[5])
    return at(r, node, "expected maxBytes 0 (no limit) or at least minBytes %lld (got %lld)",
              (long long)v[5], (long long)v[6]);
  if (!v[3] && !v[4])
    return at(r, node, "expected inplace=\"1\" or outofplace=\"1\" (the schedule is never usable)");
  m->nchannels = (int32_t)v[0], m->nchunksperloop = (int32_t)v[1], m->ngpus = (int32_t)v[2];
  m->inplace = (int)v[3], m->outofplace = (int)v[4];
  m->min_bytes = v[5], m->max_bytes = v[6], m->nthreads = (int32_t)v[7];
  return 0;
}

/* ---- <gpu>, <tb>, <step> ---- */

typedef struct filling {
  int32_t gpu, tb; /* the GPU being read, the global index of its tb being read */
  int32_t gpus_seen;
} filling;

static int buffer_of(const reader *r, const xmlNode *node, const char *name, uint8_t *out) {
  char text[8];
  if (text_attribute(r, node, name, 1, text, sizeof text) < 0) return -1;
  const char *letters = "ios";
  if (strlen(text) == 1 && strchr(letters, text[0])) {
    *out = (uint8_t)(strchr(letters, text[0]) - letters);
    return 0;
  }
  return at(r, node, "expected %s= i, o or s (input, output, scratch; got \"%.8s\")", name, text);
}

static int read_type(const reader *r, const xmlNode *node, uint8_t *out) {
  char text[8];
  if (text_attribute(r, node, "type", 1, text, sizeof text) < 0) return -1;
  for (int t = 0; t < FS_MSCCL_TYPES; t++)
    if (strcmp(text, type_names[t]) == 0) return *out = (uint8_t)t, 0;
  return at(r, node,
            "expected type= s, r, rcs, rrs, rrc, rrcs, cpy, re or nop (got \"%.8s\"; ra of "
            "microsoft/msccl 0.1 is not read)",
            text);
}

static int read_step(const reader *r, const xmlNode *node, void *context) {
  static const char *const allowed[] = {"s",   "type",  "srcbuf", "srcoff", "dstbuf", "dstoff",
                                        "cnt", "depid", "deps",   "hasdep", NULL};
  filling *f = context;
  fs_msccl *m = r->m;
  fs_msccl_tb *tb = &m->tb[f->tb];
  const fs_msccl_gpu *gpu = &m->gpu[f->gpu];
  fs_msccl_step *s = &m->step[m->steps];
  int64_t index, srcoff, dstoff, cnt, depid, deps, hasdep;
  *s = (fs_msccl_step){.tb = f->tb, .from = -1, .to = -1, .line = (int32_t)xmlGetLineNo(node)};
  if (check_attributes(r, node, allowed) ||
      int_attribute(r, node, "s", 1, 0, FS_MSCCL_MAX_STEPS - 1, &index) ||
      read_type(r, node, &s->type) || buffer_of(r, node, "srcbuf", &s->srcbuf) ||
      int_attribute(r, node, "srcoff", 1, -1, FS_MSCCL_MAX_CHUNKS, &srcoff) ||
      buffer_of(r, node, "dstbuf", &s->dstbuf) ||
      int_attribute(r, node, "dstoff", 1, -1, FS_MSCCL_MAX_CHUNKS, &dstoff) ||
      int_attribute(r, node, "cnt", 1, s->type == FS_MSCCL_NOP ? 0 : 1, FS_MSCCL_MAX_CNT, &cnt) ||
      int_attribute(r, node, "depid", 1, -1, FS_MSCCL_MAX_TBS - 1, &depid) ||
      int_attribute(r, node, "deps", 1, -1, FS_MSCCL_MAX_STEPS - 1, &deps) ||
      int_attribute(r, node, "hasdep", 1, 0, 1, &hasdep))
    return -1;
  if (index != tb->count)
    return at(r, node, "expected s=\"%d\" (the steps of a <tb> are numbered 0, 1, ... in order)",
              tb->count);
  for (const xmlNode *c = node->children; c; c = c->next)
    if (c->type != XML_COMMENT_NODE && !(is_text(c) && fs_xml_is_blank(c->content)))
      return at(r, c, "expected nothing inside <step>");
  if ((depid < 0) != (deps < 0))
    return at(r, node, "expected depid and deps both -1 (no dependency) or both set");
  s->srcoff = (int32_t)srcoff, s->dstoff = (int32_t)dstoff, s->cnt = (uint8_t)cnt;
  s->depid = (int16_t)depid, s->deps = (int16_t)deps, s->hasdep = (uint8_t)hasdep;
  const int64_t offs[2] = {srcoff, dstoff};
  const uint8_t bufs[2] = {s->srcbuf, s->dstbuf};
  const int used[2] = {fs_msccl_reads_src(s->type), fs_msccl_writes_dst(s->type)};
  for (int k = 0; k < 2; k++) {
    const char *which = k ? "dst" : "src";
    int32_t chunks = gpu->chunks[bufs[k]];
    if (used[k] && (offs[k] < 0 || offs[k] + cnt > chunks))
      return at(r, node,
                "expected %soff + cnt within the %d chunks of buffer %c on gpu %d (got %soff=%lld "
                "cnt=%lld)",
                which, chunks, "ios"[bufs[k]], f -> gpu, which, (long long)offs[k], (long long)cnt);
  }
  if (fs_msccl_sends(s->type) && tb->send < 0)
    return at(r, node, "expected a send peer on the <tb> of a step of type %s (its send is -1)",
              type_names[s->type]);
  if (fs_msccl_receives(s->type) && tb->recv < 0)
    return at(r, node, "expected a recv peer on the <tb> of a step of type %s (its recv is -1)",
              type_names[s->type]);
  tb->count++;
  m->steps++;
  return 0;
}

static int read_tb(const reader *r, const xmlNode *node, void *context) {
  static const char *const allowed[] = {"id", "send", "recv", "chan", NULL};
  filling *f = context;
  fs_msccl *m = r->m;
  fs_msccl_gpu *gpu = &m->gpu[f->gpu];
  int64_t id, send, recv, chan;
  if (check_attributes(r, node, allowed) ||
      int_attribute(r, node, "id", 1, 0, FS_MSCCL_MAX_TBS - 1, &id) ||
      int_attribute(r, node, "send", 1, -1, m->ngpus - 1, &send) ||
      int_attribute(r, node, "recv", 1, -1, m->ngpus - 1, &recv) ||
      int_attribute(r, node, "chan", 1, 0, m->nchannels - 1, &chan))
    return -1;
  if (id != gpu->count)
    return at(r, node,
              "expected <tb id=\"%d\"> (the tbs of a <gpu> are numbered 0, 1, ... in "
              "order)",
              gpu->count);
  if (send == f->gpu || recv == f->gpu)
    return at(r, node, "expected send and recv peers other than the gpu itself (%d)", f->gpu);
  for (int32_t t = gpu->first; t < gpu->first + gpu->count; t++) {
    const fs_msccl_tb *other = &m->tb[t];
    if (other->chan != chan) continue;
    if (send >= 0 && other->send == send)
      return at(r, node,
                "expected one tb per channel and send peer (tb %d also sends to %lld on "
                "channel %lld)",
                t - gpu->first, (long long)send, (long long)chan);
    if (recv >= 0 && other->recv == recv)
      return at(r, node,
                "expected one tb per channel and recv peer (tb %d also receives from "
                "%lld on channel %lld)",
                t - gpu->first, (long long)recv, (long long)chan);
  }
  f->tb = m->tbs++;
  m->tb[f->tb] = (fs_msccl_tb){(int32_t)send,
                               (int32_t)recv,
                               (int32_t)chan,
                               m->steps,
                               0,
                               f->gpu,
                               (int32_t)xmlGetLineNo(node)};
  gpu->count++;
  return children(r, node, "step", read_step, f);
}

static int read_gpu(const reader *r, const xmlNode *node, void *context) {
  static const char *const allowed[] = {"id", "i_chunks", "o_chunks", "s_chunks", NULL};
  static const char *const chunk_names[] = {"i_chunks", "o_chunks", "s_chunks"};
  filling *f = context;
  fs_msccl *m = r->m;
  int64_t id, chunks[FS_MSCCL_BUFFERS];
  if (check_attributes(r, node, allowed) || int_attribute(r, node, "id", 1, 0, m->ngpus - 1, &id))
    return -1;
  for (int b = 0; b < FS_MSCCL_BUFFERS; b++)
    if (int_attribute(r, node, chunk_names[b], 1, 0, FS_MSCCL_MAX_CHUNKS, &chunks[b])) return -1;
  if (id != f->gpus_seen)
    return at(r, node, "expected <gpu id=\"%d\"> (the gpus are numbered 0, 1, ... in order)",
              f->gpus_seen);
  fs_msccl_gpu *gpu = &m->gpu[id];
  *gpu = (fs_msccl_gpu){{(int32_t)chunks[0], (int32_t)chunks[1], (int32_t)chunks[2]},
                        m->tbs,
                        0,
                        (int32_t)xmlGetLineNo(node)};
  f->gpu = (int32_t)id;
  f->gpus_seen++;
  return children(r, node, "tb", read_tb, f);
}

/* ---- after reading: dependencies, connections, cycles ---- */

/* Each depid/deps names an existing step with hasdep="1". */
static int check_dependencies(const reader *r) {
  const fs_msccl *m = r->m;
  for (int32_t g = 0; g < m->ngpus; g++) {
    const fs_msccl_gpu *gpu = &m->gpu[g];
    for (int32_t t = gpu->first; t < gpu->first + gpu->count; t++)
      for (int32_t i = m->tb[t].first; i < m->tb[t].first + m->tb[t].count; i++) {
        const fs_msccl_step *s = &m->step[i];
        if (s->depid < 0) continue;
        if (s->depid >= gpu->count)
          return at_line(r, s->line, "expected depid a tb of gpu %d (0 to %d; got %d)", g,
                         gpu->count - 1, s->depid);
        const fs_msccl_tb *on = &m->tb[gpu->first + s->depid];
        if (s->deps >= on->count)
          return at_line(r, s->line, "expected deps a step of tb %d on gpu %d (0 to %d; got %d)",
                         s->depid, g, on->count - 1, s->deps);
        const fs_msccl_step *d = &m->step[on->first + s->deps];
        if (!d->hasdep)
          return at_line(r, s->line,
                         "expected hasdep=\"1\" on step %d of tb %d (line %d), which this step "
                         "waits for",
                         s->deps, s->depid, d->line);
      }
  }
  return 0;
}

/* The tb of gpu g receiving from `from` on chan, or -1. */
static int32_t receiver_tb(const fs_msccl *m, int32_t g, int32_t from, int32_t chan) {
  const fs_msccl_gpu *gpu = &m->gpu[g];
  for (int32_t t = gpu->first; t < gpu->first + gpu->count; t++)
    if (m->tb[t].recv == from && m->tb[t].chan == chan) return t;
  return -1;
}

static int32_t count_ops(const fs_msccl *m, int32_t t, int (*is)(int)) {
  int32_t n = 0;
  for (int32_t i = m->tb[t].first; i < m->tb[t].first + m->tb[t].count; i++)
    n += is(m->step[i].type) != 0;
  return n;
}

/* Pairs the n-th send-type step of sender tb x with the n-th receive-type
 * step of receiver tb y (-1: none), FIFO order of the connection. */
static int match_connection(const reader *r, int32_t g, int32_t x, int32_t y) {
  fs_msccl *m = r->m;
  const fs_msccl_tb *tx = &m->tb[x];
  int32_t sends = count_ops(m, x, fs_msccl_sends);
  int32_t receives = y < 0 ? 0 : count_ops(m, y, fs_msccl_receives);
  if (sends != receives)
    return at_line(r, tx->line,
                   "expected as many receives as sends on channel %d from gpu %d to gpu %d (%d "
                   "sends, %d receives%s)",
                   tx->chan, g, tx->send, sends, receives,
                   y < 0 ? ": no tb of that gpu receives from this one on that channel" : "");
  int32_t j = y < 0 ? 0 : m->tb[y].first;
  for (int32_t i = tx->first; i < tx->first + tx->count; i++) {
    fs_msccl_step *s = &m->step[i];
    if (!fs_msccl_sends(s->type)) continue;
    while (!fs_msccl_receives(m->step[j].type)) j++;
    fs_msccl_step *d = &m->step[j++];
    if (d->cnt != s->cnt)
      return at_line(r, d->line,
                     "expected cnt=\"%d\" as the send it receives (gpu %d, line %d; got %d)",
                     s->cnt, g, s->line, d->cnt);
    s->to = (int32_t)(d - m->step), d->from = i;
  }
  return 0;
}

static int match_all(const reader *r) {
  fs_msccl *m = r->m;
  for (int32_t g = 0; g < m->ngpus; g++)
    for (int32_t t = m->gpu[g].first; t < m->gpu[g].first + m->gpu[g].count; t++) {
      const fs_msccl_tb *tb = &m->tb[t];
      if (tb->send >= 0 && match_connection(r, g, t, receiver_tb(m, tb->send, g, tb->chan)))
        return -1;
    }
  /* a receiver whose sender tb does not exist */
  for (int32_t i = 0; i < m->steps; i++)
    if (fs_msccl_receives(m->step[i].type) && m->step[i].from < 0) {
      int32_t t = m->step[i].tb, g = m->tb[t].gpu;
      return at_line(r, m->tb[t].line,
                     "expected as many sends as receives on channel %d from gpu %d to gpu %d (0 "
                     "sends: no tb of that gpu sends to this one on that channel)",
                     m->tb[t].chan, m->tb[t].recv, g);
    }
  return 0;
}

int fs_msccl_predecessors(const fs_msccl *m, int32_t i, int32_t out[3]) {
  int n = 0;
  const fs_msccl_step *s = &m->step[i];
  const fs_msccl_tb *tb = &m->tb[s->tb];
  if (i > tb->first) out[n++] = i - 1;
  if (s->depid >= 0) out[n++] = m->tb[m->gpu[tb->gpu].first + s->depid].first + s->deps;
  if (s->from >= 0) out[n++] = s->from;
  return n;
}

int64_t fs_msccl_order(const fs_msccl *m, int32_t *order) {
  int64_t n = m->steps, placed = 0;
  int32_t *indegree = calloc((size_t)n + 1, sizeof *indegree);
  uint32_t *at = calloc((size_t)n + 2, sizeof *at);
  int32_t *successor = malloc(((size_t)n * 3 + 1) * sizeof *successor);
  if (!indegree || !at || !successor) {
    free(indegree), free(at), free(successor);
    return -1;
  }
  int32_t pred[3];
  for (int64_t i = 0; i < n; i++) { /* successor counts, then offsets */
    indegree[i] = fs_msccl_predecessors(m, (int32_t)i, pred);
    for (int j = 0; j < indegree[i]; j++) at[pred[j] + 2]++;
  }
  for (int64_t x = 2; x <= n + 1; x++) at[x] += at[x - 1];
  for (int64_t i = 0; i < n; i++) {
    int k = fs_msccl_predecessors(m, (int32_t)i, pred);
    for (int j = 0; j < k; j++) successor[at[pred[j] + 1]++] = (int32_t)i;
  }
  for (int64_t i = 0; i < n; i++) /* order doubles as the queue */
    if (indegree[i] == 0) order[placed++] = (int32_t)i;
  for (int64_t head = 0; head < placed; head++) {
    int32_t i = order[head];
    for (uint32_t e = at[i]; e < at[i + 1]; e++)
      if (--indegree[successor[e]] == 0) order[placed++] = successor[e];
  }
  free(indegree), free(at), free(successor);
  return placed;
}

/* A step left out of a topological order lies on or behind a cycle. */
static int check_cycles(const reader *r) {
  const fs_msccl *m = r->m;
  int32_t *order = malloc(((size_t)m->steps + 1) * sizeof *order);
  char *placed = calloc((size_t)m->steps + 1, 1);
  int64_t count = order && placed ? fs_msccl_order(m, order) : -1;
  int status = 0;
  if (count < 0)
    status =
        fs_error_set(r->err, "%s: out of memory checking %d steps for cycles", r->name, m->steps);
  for (int64_t i = 0; i < count && count < m->steps; i++) placed[order[i]] = 1;
  for (int32_t i = 0; count >= 0 && count < m->steps && i < m->steps; i++)
    if (!placed[i]) {
      status = at_line(r, m->step[i].line,
                       "expected no dependency cycle (this step waits, through depid/deps, its "
                       "tb's order and the sends it receives, for itself or for a step that "
                       "does)");
      break;
    }
  free(order), free(placed);
  return status;
}

static int read_root(const reader *r, const xmlNode *root) {
  fs_msccl *m = r->m;
  if (!fs_xml_is_element(root, "algo"))
    return at(r, root, "expected an <algo> root element (got <%.64s>)", root->name);
  if (read_algo(r, root, m)) return -1;
  counts c = {0, 0, 0};
  if (children(r, root, "gpu", count_gpu, &c)) return -1;
  if (c.gpus != m->ngpus)
    return at(r, root, "expected ngpus=\"%d\" <gpu> elements (got %lld)", m->ngpus,
              (long long)c.gpus);
  m->gpu = calloc((size_t)m->ngpus, sizeof *m->gpu);
  m->tb = malloc((size_t)(c.tbs + 1) * sizeof *m->tb);
  m->step = malloc((size_t)(c.steps + 1) * sizeof *m->step);
  if (!m->gpu || !m->tb || !m->step)
    return fs_error_set(r->err, "%s: out of memory for %lld steps", r->name, (long long)c.steps);
  filling f = {0, 0, 0};
  if (children(r, root, "gpu", read_gpu, &f)) return -1;
  return check_dependencies(r) || match_all(r) || check_cycles(r) ? -1 : 0;
}

fs_msccl *fs_msccl_read_memory(const char *data, size_t length, const char *name, fs_error *err) {
  xmlDocPtr doc =
      fs_xml_parse(data, length, name, "algo", FS_MSCCL_MAX_BYTES, FS_MSCCL_MAX_ELEMENTS, err);
  if (!doc) return NULL;
  fs_msccl *m = calloc(1, sizeof *m);
  reader r = {name, err, m};
  if (!m)
    fs_error_set(err, "%s: out of memory", name);
  else if (read_root(&r, xmlDocGetRootElement(doc)))
    fs_msccl_free(m), m = NULL;
  xmlFreeDoc(doc);
  return m;
}

fs_msccl *fs_msccl_read(const char *path, fs_error *err) {
  size_t length;
  char *data = fs_xml_read_file(path, FS_MSCCL_MAX_BYTES, &length, err);
  if (!data) return NULL;
  fs_msccl *m = fs_msccl_read_memory(data, length, path, err);
  free(data);
  return m;
}

void fs_msccl_free(fs_msccl *m) {
  if (!m) return;
  free(m->gpu), free(m->tb), free(m->step);
  free(m);
}
