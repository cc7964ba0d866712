/* liballprof_comms.c: the members of liballprof's communicators. liballprof
 * records no members, only each rank's handle, rank and size. Size 1 is
 * MPI_COMM_SELF. Otherwise, as Schedgen tells communicators apart by handle,
 * the ranks that name one (handle, size) pair must together name each of its
 * ranks 0..size-1 exactly once: that gives the members (world rank of comm
 * rank i); a group of the world's size whose users all have their world rank
 * in it is the world in order, even when some ranks never use it. The first
 * group that is the whole world in order (in rank 0's order of use) is
 * MPI_COMM_WORLD; the others are defined with the handle (two's complement)
 * as id. A handle whose ranks do not fit together is an error naming the
 * first use. */
#include "trace/liballprof.h"

#include <stdarg.h>
#include <stdlib.h>

#include "io/text_input.h"

typedef struct resolver {
  fs_trace *t;
  rank_comms *comms;
  fs_error *err;
} resolver;

/* One (handle, size) group of comm uses across ranks, for resolution. */
typedef struct claim {
  uint64_t handle;
  int32_t size, comm_rank, world_rank, local;
} claim;

static int compare_claims(const void *x, const void *y) {
  const claim *a = x, *b = y;
  if (a->handle != b->handle) return a->handle < b->handle ? -1 : 1;
  if (a->size != b->size) return a->size < b->size ? -1 : 1;
  if (a->comm_rank != b->comm_rank) return a->comm_rank < b->comm_rank ? -1 : 1;
  return (a->world_rank > b->world_rank) - (a->world_rank < b->world_rank);
}

static int comm_error(const resolver *r, const claim *c, const char *format, ...) FS_PRINTF(3, 4);
static int comm_error(const resolver *r, const claim *c, const char *format, ...) {
  const comm_use *use = &r->comms[c->world_rank].use[c->local];
  va_list args;
  va_start(args, format);
  fs_text_verror_at(r->err, r->t->rank[c->world_rank].file, use->line, use->column, format, args);
  va_end(args);
  return -1;
}

/* Defines the communicator of claims[0..n) (one handle and size): the
 * members are who named each comm rank. */
static int define_group(resolver *r, const claim *claims, int32_t n, int *world_taken) {
  int32_t size = claims[0].size;
  unsigned long long handle = (unsigned long long)claims[0].handle;
  int in_order = size ==
                 r->t->ranks; /* the world's order: ranks that never use it may be left out */
  for (int32_t i = 0; i < n; i++) in_order &= claims[i].comm_rank == claims[i].world_rank;
  for (int32_t i = 0; i <= size && !in_order; i++) {
    int missing = i < size && (i == n || claims[i].comm_rank > i),
        twice = i < n && claims[i].comm_rank < i;
    if (missing || twice)
      return comm_error(r, &claims[i < n ? i : n - 1],
                        "expected the ranks that use communicator %llu (size %d) to name each of "
                        "its "
                        "ranks once (liballprof records no members: fennelsim takes them from the "
                        "handle), but comm rank %d is %s",
                        handle, (int)size, (int)(twice ? claims[i].comm_rank : i),
                        twice ? "named by two ranks" : "named by none");
    if (i == n) break;
  }
  int32_t *members = malloc((size_t)size * sizeof *members);
  if (!members) return fs_error_set(r->err, "out of memory");
  int identity = size == r->t->ranks;
  for (int32_t i = 0; i < size; i++) {
    members[i] = in_order ? i : claims[i].world_rank;
    identity &= members[i] == i;
  }
  int32_t index;
  if (identity && !*world_taken) {
    index = FS_COMM_WORLD;
    *world_taken = 1;
  } else {
    index = fs_trace_define_comm(r->t, (int64_t)claims[0].handle, members, size);
  }
  free(members);
  if (index == -1) return fs_error_set(r->err, "out of memory");
  if (index < 0)
    return comm_error(r, &claims[0],
                      "expected communicator %llu to name one group of ranks "
                      "(it names two of different sizes)",
                      handle);
  for (int32_t i = 0; i < n; i++) r->comms[claims[i].world_rank].use[claims[i].local].index = index;
  return 0;
}

int fs_liballprof_resolve_comms(fs_trace *t, rank_comms *comms, fs_error *err) {
  resolver state = {t, comms, err}, *r = &state;
  size_t total = 0, n = 0;
  for (int32_t w = 0; w < t->ranks; w++) total += (size_t)r->comms[w].count;
  claim *claims = malloc((total ? total : 1) * sizeof *claims);
  if (!claims) return fs_error_set(r->err, "out of memory");
  for (int32_t w = 0; w < t->ranks; w++)
    for (int32_t i = 0; i < r->comms[w].count; i++) {
      comm_use *use = &r->comms[w].use[i];
      if (use->size == 1)
        use->index = FS_COMM_SELF;
      else
        claims[n++] = (claim){use->handle, use->size, use->rank, w, i};
    }
  qsort(claims, n, sizeof *claims, compare_claims);
  /* MPI_COMM_WORLD is the full in-order group rank 0 names first */
  int world_taken = 0, status = 0;
  for (int32_t i = 0; i < r->comms[0].count && !world_taken && !status; i++) {
    const comm_use *use = &r->comms[0].use[i];
    if (use->size != t->ranks || use->rank != 0) continue;
    size_t from = 0;
    while (from < n && (claims[from].handle != use->handle || claims[from].size != use->size))
      from++;
    size_t to = from;
    while (to < n && claims[to].handle == use->handle && claims[to].size == use->size) to++;
    int identity = to > from;
    for (size_t k = from; identity && k < to; k++)
      identity = claims[k].comm_rank == claims[k].world_rank;
    if (identity) status = define_group(r, claims + from, (int32_t)(to - from), &world_taken);
  }
  for (size_t from = 0; from < n && !status;) {
    size_t to = from;
    while (to < n && claims[to].handle == claims[from].handle &&
           claims[to].size == claims[from].size)
      to++;
    const comm_use *first = &r->comms[claims[from].world_rank].use[claims[from].local];
    if (first->index < 0)
      status = define_group(r, claims + from, (int32_t)(to - from), &world_taken);
    from = to;
  }
  free(claims);
  if (status) return -1;
  for (int32_t w = 0; w < t->ranks; w++)
    for (int64_t i = 0; i < t->rank[w].count; i++) {
      fs_call *c = &t->rank[w].calls[i];
      if (c->comm <= COMM_PENDING(0)) c->comm = r->comms[w].use[COMM_PENDING(c->comm)].index;
    }
  return 0;
}
