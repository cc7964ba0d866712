/* maxmin.c: the incremental weighted max-min solver (maxmin.h).
 *
 * Each link keeps the enabled flows that cross it in a doubly linked list of
 * elements (one element per flow and distinct link, holding the weight). A
 * flow's elements sit together in one block of the element pool; blocks come
 * in power-of-two sizes and freed blocks are kept per size for reuse.
 *
 * A solve walks the components of the marked links (depth first, through
 * the enabled flows), then runs max-min over them with the unsaturated links
 * in a binary heap keyed by remaining/usage: each saturation pops the links
 * at the smallest ratio and fixes their flows. A link whose flows get fixed
 * elsewhere only sees its ratio grow (it was not the smallest), so its key is
 * left low (stale) and recomputed when it reaches the top: O(elements +
 * pops log links) per solve. A FATPIPE link's usage is a max, recomputed
 * over its unfixed flows then. */
#include "models/maxmin.h"

#include <stdlib.h>
#include <string.h>

#define CLASSES 12 /* blocks of 1 .. 2048 elements (routes have at most 1024 links) */

typedef struct element {
  double weight;
  int32_t flow, link, next, prev; /* next/prev: in the link's list */
} element;

typedef struct flow {
  double penalty, bound, x;
  int32_t at, count, cls, stamp, next_free;
  uint8_t enabled, fixed, used;
} flow;

typedef struct link {
  double capacity, rem, usage, ratio, sum; /* sum: weights while adding a flow */
  int32_t head, stamp, unfixed, mark;
  uint8_t fatpipe, dirty, stale, in_heap;
} link;

typedef struct heap_entry {
  double ratio;
  int32_t link;
} heap_entry;

struct fs_maxmin {
  link *links;
  int32_t link_count, link_capacity;
  flow *flows;
  int32_t flow_count, flow_capacity, free_flow;
  element *elements;
  int32_t element_count, element_capacity, free_block[CLASSES];
  int32_t *dirty, dirty_count, dirty_capacity;
  int32_t *comp_links, comp_link_count, comp_link_capacity;
  int32_t *comp_flows, comp_flow_count, comp_flow_capacity;
  heap_entry *heap; /* heap and stack hold link_count entries */
  int32_t heap_count;
  int32_t *stack, *sat;
  int32_t stamp, mark;
};

fs_maxmin *fs_maxmin_new(void) {
  fs_maxmin *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->free_flow = -1;
  for (int i = 0; i < CLASSES; i++) s->free_block[i] = -1;
  return s;
}

void fs_maxmin_free(fs_maxmin *s) {
  if (!s) return;
  free(s->links), free(s->flows), free(s->elements), free(s->dirty);
  free(s->comp_links), free(s->comp_flows), free(s->heap), free(s->stack), free(s->sat);
  free(s);
}

int fs_maxmin_reset(fs_maxmin *s, int32_t links, const double *capacity, const uint8_t *fatpipe,
                    fs_error *err) {
  if (links > s->link_capacity) {
    link *l = realloc(s->links, (size_t)links * sizeof *l);
    if (l) s->links = l;
    heap_entry *h = l ? realloc(s->heap, (size_t)links * sizeof *h) : NULL;
    if (h) s->heap = h;
    int32_t *st = h ? realloc(s->stack, (size_t)links * sizeof *st) : NULL;
    if (st) s->stack = st;
    int32_t *sat = st ? realloc(s->sat, (size_t)links * sizeof *sat) : NULL;
    if (sat) s->sat = sat;
    if (!sat) return fs_error_set(err, "out of memory");
    s->link_capacity = links;
  }
  /* the per-solve lists of links never outgrow the links: no growth in a solve */
  if (fs_grow(&s->dirty, &s->dirty_capacity, links, sizeof(int32_t), 64) ||
      fs_grow(&s->comp_links, &s->comp_link_capacity, links, sizeof(int32_t), 64))
    return fs_error_set(err, "out of memory");
  s->link_count = links;
  for (int32_t l = 0; l < links; l++)
    s->links[l] = (link){.capacity = capacity[l],
                         .head = -1,
                         .fatpipe = (uint8_t)(fatpipe && fatpipe[l] ? 1 : 0)};
  s->flow_count = 0, s->free_flow = -1, s->element_count = 0;
  for (int i = 0; i < CLASSES; i++) s->free_block[i] = -1;
  s->dirty_count = s->comp_link_count = s->comp_flow_count = s->heap_count = 0;
  s->stamp = s->mark = 0;
  return 0;
}

static int class_of(int32_t count) {
  int c = 0;
  while (c < CLASSES - 1 && ((int32_t)1 << c) < count) c++;
  return c;
}

/* A block of 2^cls elements: a freed one (linked through .next) or new. */
static int32_t take_block(fs_maxmin *s, int cls) {
  int32_t at = s->free_block[cls];
  if (at >= 0) {
    s->free_block[cls] = s->elements[at].next;
    return at;
  }
  int32_t size = (int32_t)1 << cls;
  if (fs_grow(&s->elements, &s->element_capacity, (int64_t)s->element_count + size, sizeof(element),
              64))
    return -1;
  at = s->element_count;
  s->element_count += size;
  return at;
}

static int32_t take_flow(fs_maxmin *s) {
  if (s->free_flow >= 0) {
    int32_t f = s->free_flow;
    s->free_flow = s->flows[f].next_free;
    return f;
  }
  if (fs_grow(&s->flows, &s->flow_capacity, (int64_t)s->flow_count + 1, sizeof(flow), 64) ||
      fs_grow(&s->comp_flows, &s->comp_flow_capacity, (int64_t)s->flow_count + 1, sizeof(int32_t),
              64))
    return -1;
  s->flows[s->flow_count].stamp = 0;
  return s->flow_count++;
}

int32_t fs_maxmin_add(fs_maxmin *s, const int32_t *links, int32_t count, double penalty,
                      double bound) {
  int32_t mark = ++s->mark, distinct = 0;
  for (int32_t i = 0; i < count; i++) {
    link *l = &s->links[links[i]];
    if (l->mark != mark) l->mark = mark, l->sum = 0, distinct++;
    l->sum += 1;
  }
  int cls = class_of(distinct);
  int32_t f = take_flow(s);
  if (f < 0) return -1;
  int32_t at = take_block(s, cls);
  if (at < 0) {
    s->flows[f].next_free = s->free_flow, s->free_flow = f;
    return -1;
  }
  flow *v = &s->flows[f];
  int32_t stamp = v->stamp;
  *v = (flow){.penalty = penalty, .bound = bound, .at = at, .cls = cls, .stamp = stamp, .used = 1};
  for (int32_t i = 0; i < count; i++) {
    link *l = &s->links[links[i]];
    if (l->mark != mark) continue; /* already listed */
    l->mark = mark - 1;            /* mark values only grow: never equal again */
    s->elements[at + v->count++] = (element){.weight = l->fatpipe ? 1.0 : l->sum,
                                             .flow = f,
                                             .link = links[i],
                                             .next = -1,
                                             .prev = -1};
  }
  return f;
}

/* The dirty list holds link_count entries (reset), each link once. */
static void mark_dirty(fs_maxmin *s, int32_t l) {
  if (s->links[l].dirty) return;
  s->links[l].dirty = 1;
  s->dirty[s->dirty_count++] = l;
}

void fs_maxmin_enable(fs_maxmin *s, int32_t f) {
  flow *v = &s->flows[f];
  if (v->enabled) return;
  v->enabled = 1;
  for (int32_t i = v->at; i < v->at + v->count; i++) {
    element *e = &s->elements[i];
    link *l = &s->links[e->link];
    e->prev = -1, e->next = l->head;
    if (l->head >= 0) s->elements[l->head].prev = i;
    l->head = i;
    mark_dirty(s, e->link);
  }
}

void fs_maxmin_remove(fs_maxmin *s, int32_t f) {
  flow *v = &s->flows[f];
  if (v->enabled)
    for (int32_t i = v->at; i < v->at + v->count; i++) {
      element *e = &s->elements[i];
      if (e->prev >= 0)
        s->elements[e->prev].next = e->next;
      else
        s->links[e->link].head = e->next;
      if (e->next >= 0) s->elements[e->next].prev = e->prev;
      mark_dirty(s, e->link);
    }
  s->elements[v->at].next = s->free_block[v->cls];
  s->free_block[v->cls] = v->at;
  v->enabled = 0, v->used = 0, v->x = 0;
  v->next_free = s->free_flow, s->free_flow = f;
}

int fs_maxmin_dirty(const fs_maxmin *s) { return s->dirty_count > 0; }

/* ---- the heap of unsaturated links, by (ratio, id) ----
 * Keys sit in the heap entries (no trip to the link to compare), and only
 * the top ever leaves, so a link only needs to know whether it is in. */

static int before(heap_entry a, heap_entry b) {
  return a.ratio < b.ratio || (a.ratio == b.ratio && a.link < b.link);
}

static void sift_down(fs_maxmin *s, int32_t pos) {
  heap_entry x = s->heap[pos];
  heap_entry *h = s->heap;
  for (;;) {
    int32_t child = 2 * pos + 1;
    if (child >= s->heap_count) break;
    if (child + 1 < s->heap_count && before(h[child + 1], h[child])) child++;
    if (!before(h[child], x)) break;
    h[pos] = h[child];
    pos = child;
  }
  h[pos] = x;
}

static void pop_top(fs_maxmin *s) {
  s->links[s->heap[0].link].in_heap = 0;
  s->heap[0] = s->heap[--s->heap_count];
  if (s->heap_count > 0) sift_down(s, 0);
}

/* ---- components ---- */

/* Collects l's component (links not yet stamped) into comp_links and
 * comp_flows, which hold every link and flow (reset, take_flow). */
static void collect(fs_maxmin *s, int32_t start) {
  int32_t stamp = s->stamp, top = 0;
  s->links[start].stamp = stamp;
  s->stack[top++] = start;
  while (top > 0) {
    int32_t c = s->stack[--top];
    s->comp_links[s->comp_link_count++] = c;
    for (int32_t i = s->links[c].head; i >= 0; i = s->elements[i].next) {
      flow *v = &s->flows[s->elements[i].flow];
      if (v->stamp == stamp) continue;
      v->stamp = stamp;
      s->comp_flows[s->comp_flow_count++] = s->elements[i].flow;
      for (int32_t j = v->at; j < v->at + v->count; j++) {
        link *l2 = &s->links[s->elements[j].link];
        if (l2->stamp == stamp) continue;
        l2->stamp = stamp;
        s->stack[top++] = s->elements[j].link;
      }
    }
  }
}

/* ---- the max-min pass ---- */

static void setup_link(fs_maxmin *s, int32_t c) {
  link *l = &s->links[c];
  l->rem = l->capacity, l->usage = 0, l->unfixed = 0, l->stale = 0, l->in_heap = 0;
  for (int32_t i = l->head; i >= 0; i = s->elements[i].next) {
    const element *e = &s->elements[i];
    double share = e->weight / s->flows[e->flow].penalty;
    if (l->fatpipe)
      l->usage = share > l->usage ? share : l->usage;
    else
      l->usage += share;
    l->unfixed++;
  }
  if (l->usage > 0 && l->rem > l->capacity * FS_MAXMIN_PRECISION) {
    l->ratio = l->rem / l->usage;
    l->in_heap = 1; /* heapified once all are in (max_min) */
    s->heap[s->heap_count++] = (heap_entry){l->ratio, c};
  }
}

/* A FATPIPE link's usage: the max of w/p over its unfixed flows. */
static double fatpipe_usage(const fs_maxmin *s, const link *l) {
  double usage = 0;
  for (int32_t i = l->head; i >= 0; i = s->elements[i].next) {
    const element *e = &s->elements[i];
    const flow *v = &s->flows[e->flow];
    if (!v->fixed && e->weight / v->penalty > usage) usage = e->weight / v->penalty;
  }
  return usage;
}

/* Makes the heap's top fresh: a link whose flows were fixed since its key
 * was set (stale) gets its ratio recomputed, which can only have grown
 * (the key was a lower bound), and sinks; a full or empty one leaves. 0
 * when the heap is empty. */
static int fresh_top(fs_maxmin *s) {
  while (s->heap_count > 0) {
    link *l = &s->links[s->heap[0].link];
    if (!l->stale) return 1;
    l->stale = 0;
    if (l->fatpipe) l->usage = fatpipe_usage(s, l);
    if (l->unfixed == 0 || l->usage <= FS_MAXMIN_PRECISION ||
        l->rem <= l->capacity * FS_MAXMIN_PRECISION) {
      pop_top(s);
      continue;
    }
    l->ratio = l->rem / l->usage;
    s->heap[0].ratio = l->ratio;
    sift_down(s, 0);
  }
  return 0;
}

/* Flow v gets x: it leaves the other links it crosses (their keys are
 * updated lazily, fresh_top). */
static void fix(fs_maxmin *s, int32_t f, double x) {
  flow *v = &s->flows[f];
  v->fixed = 1, v->x = x;
  for (int32_t i = v->at; i < v->at + v->count; i++) {
    const element *e = &s->elements[i];
    link *l = &s->links[e->link];
    l->unfixed--;
    if (!l->in_heap) continue;
    l->stale = 1;
    if (l->fatpipe) continue; /* rem unchanged; usage recomputed at the top */
    l->rem -= e->weight * x;
    if (l->rem <= l->capacity * FS_MAXMIN_PRECISION) l->rem = 0;
    l->usage -= e->weight / v->penalty;
    if (l->usage <= FS_MAXMIN_PRECISION) l->usage = 0;
  }
}

static void max_min(fs_maxmin *s) {
  for (int32_t i = 0; i < s->comp_flow_count; i++) {
    flow *v = &s->flows[s->comp_flows[i]];
    v->fixed = 0, v->x = 0;
  }
  for (int32_t i = 0; i < s->comp_link_count; i++) setup_link(s, s->comp_links[i]);
  for (int32_t pos = s->heap_count / 2 - 1; pos >= 0; pos--) sift_down(s, pos);
  while (fresh_top(s)) {
    double u = s->heap[0].ratio;
    int32_t saturated = 0;
    while (fresh_top(s) && s->heap[0].ratio == u) {
      s->sat[saturated++] = s->heap[0].link;
      pop_top(s);
    }
    for (int32_t k = 0; k < saturated; k++)
      for (int32_t i = s->links[s->sat[k]].head; i >= 0; i = s->elements[i].next) {
        int32_t f = s->elements[i].flow;
        if (!s->flows[f].fixed) fix(s, f, u / s->flows[f].penalty);
      }
  }
}

int32_t fs_maxmin_solve(fs_maxmin *s) {
  s->comp_link_count = s->comp_flow_count = 0;
  if (!s->dirty_count) return 0;
  s->stamp++;
  for (int32_t i = 0; i < s->dirty_count; i++) {
    int32_t l = s->dirty[i];
    s->links[l].dirty = 0;
    if (s->links[l].stamp != s->stamp) collect(s, l);
  }
  s->dirty_count = 0;
  max_min(s);
  return s->comp_flow_count;
}

const int32_t *fs_maxmin_solved(const fs_maxmin *s, int32_t *count) {
  *count = s->comp_flow_count;
  return s->comp_flows;
}

const int32_t *fs_maxmin_solved_links(const fs_maxmin *s, int32_t *count) {
  *count = s->comp_link_count;
  return s->comp_links;
}

double fs_maxmin_value(const fs_maxmin *s, int32_t f) { return s->flows[f].x; }

void fs_maxmin_link_load(const fs_maxmin *s, int32_t c, int32_t *flows, double *load) {
  const link *l = &s->links[c];
  int32_t n = 0;
  double sum = 0;
  for (int32_t i = l->head; i >= 0; i = s->elements[i].next) {
    const element *e = &s->elements[i];
    n += l->fatpipe ? 1 : (int32_t)e->weight;
    sum += e->weight * s->flows[e->flow].x;
  }
  *flows = n, *load = sum;
}

int64_t fs_maxmin_bytes(const fs_maxmin *s) {
  return (int64_t)s->link_capacity * (int64_t)(sizeof(link) + 3 * sizeof(int32_t)) +
         (int64_t)s->flow_capacity * (int64_t)sizeof(flow) +
         (int64_t)s->element_capacity * (int64_t)sizeof(element) +
         4 * ((int64_t)s->dirty_capacity + s->comp_link_capacity + s->comp_flow_capacity);
}
