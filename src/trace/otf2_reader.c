/* otf2_reader.c: OTF2 archives (Score-P and others) through the OTF2
 * library, into an fs_trace. Compiled without OTF2 (no FS_HAVE_OTF2) it
 * only says so.
 *
 * Ranks: the members of the MPI "comm locations" group (OTF2_GROUP_TYPE_
 * COMM_LOCATIONS, paradigm MPI), in its order; without one, every location in
 * the order of its id. Events of other locations (threads) are ignored.
 * Communicators: each Comm definition's group (COMM_GROUP members are ranks;
 * COMM_SELF is MPI_COMM_SELF); the whole world in order is MPI_COMM_WORLD,
 * the others keep the Comm id. Times: ticks from the clock's global offset,
 * at its timer resolution, in picoseconds.
 *
 * Each Enter..Leave of a region named MPI_* is one fs_call (the name gives
 * the kind, unknown MPI_ names are FS_CALL_OTHER); the events inside give its
 * details: MpiSend/MpiIsend the destination, tag, communicator and bytes
 * (Isend: a new request id for the OTF2 request id), MpiRecv the source
 * (also as source/source_tag), MpiIrecvRequest a new request for an Irecv,
 * MpiIrecv (inside the wait or test that completed it) fills that Irecv's
 * source, tag and bytes, MpiIsendComplete/MpiIrecv mark the request the call
 * completed, MpiRequestTest a test that found nothing, MpiCollectiveEnd the
 * communicator, root and bytes sent and received. Wait and Test take the
 * request completed (Test: flag 1, or 0 after an MpiRequestTest); the
 * ...all/...any/...some calls list the requests they completed (OTF2 does
 * not record the array passed). */
#include "trace/trace_readers.h"

#include <stdio.h>

#ifndef FS_HAVE_OTF2

int fs_otf2_available(void) { return 0; }

fs_trace *fs_otf2_read(const char *anchor, fs_error *err) {
  fs_error_set(err, "%s: this fennelsim was built without OTF2 support", anchor);
  return NULL;
}

#else

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "formats/text_input.h"

int fs_otf2_available(void) { return 1; }

typedef struct named { uint64_t ref, value; } named; /* ref -> value, sorted once read */

typedef struct group_def {
  uint64_t ref;
  OTF2_GroupType type;
  OTF2_Paradigm paradigm;
  size_t at;      /* members in the member pool */
  uint32_t count;
} group_def;

typedef struct pending_request {
  uint64_t otf2_id;
  int32_t id;
  int64_t irecv; /* the Irecv call, -1 for sends */
} pending_request;

typedef struct rank_state {
  int64_t call;   /* the open MPI call, -1 none */
  OTF2_RegionRef region; /* its region */
  int32_t depth;  /* regions entered inside it */
  int64_t *done;  /* requests it completed */
  int32_t done_count, done_capacity;
  int tested;     /* an MpiRequestTest inside it */
  pending_request *open;
  int32_t open_count, open_capacity, next_id;
} rank_state;

typedef struct reader {
  const char *anchor;
  fs_error *err;
  int failed;
  fs_trace *t;
  uint64_t resolution, offset;
  char *text;                 /* string pool */
  size_t text_used, text_capacity;
  named *strings, *regions, *comms, *locations;
  size_t string_count, region_count, comm_count, location_count;
  size_t string_capacity, region_capacity, comm_capacity, location_capacity;
  group_def *groups;
  size_t group_count, group_capacity;
  uint64_t *members;
  size_t member_count, member_capacity;
  named *rank_of;             /* location -> rank, sorted */
  size_t rank_count;
  named *comm_index;          /* OTF2 comm -> index in the trace, sorted */
  size_t comm_index_count;
  uint8_t *region_kind;       /* per region (in `regions` order): kind + 1, 0 not MPI */
  rank_state *state;
} reader;

/* ---- small tables ---- */

static int fail(reader *r, const char *format, ...) FS_PRINTF(2, 3);
static int fail(reader *r, const char *format, ...) {
  if (r->failed) return -1;
  va_list args;
  va_start(args, format);
  fs_text_verror_at(r->err, r->anchor, -1, -1, format, args); /* no lines */
  va_end(args);
  r->failed = 1;
  return -1;
}

/* An event's error: OTF2 has no lines, the event is named by its location,
 * its position among the location's events (from 1), its record type and
 * its time stamp (as otf2-print shows them). */
typedef struct event_at {
  OTF2_LocationRef location;
  uint64_t position; /* from 1, in the location's events */
  OTF2_TimeStamp time;
} event_at;

static int fail_event(reader *r, event_at at, const char *event, const char *format, ...) FS_PRINTF(4, 5);
static int fail_event(reader *r, event_at at, const char *event, const char *format, ...) {
  if (r->failed) return -1;
  char place[512];
  snprintf(place, sizeof place, "%s: location %llu, event %llu (%s at time %llu)", r->anchor,
           (unsigned long long)at.location, (unsigned long long)at.position, event,
           (unsigned long long)at.time);
  va_list args;
  va_start(args, format);
  fs_text_verror_at(r->err, place, -1, -1, format, args);
  va_end(args);
  r->failed = 1;
  return -1;
}

static int grow(reader *r, void **items, size_t *capacity, size_t used, size_t size) {
  if (used < *capacity) return 0;
  size_t bigger = *capacity ? *capacity * 2 : 64;
  void *p = realloc(*items, bigger * size);
  if (!p) return fail(r, "out of memory");
  *items = p;
  *capacity = bigger;
  return 0;
}

static int add_named(reader *r, named **items, size_t *count, size_t *capacity, uint64_t ref, uint64_t value) {
  if (grow(r, (void **)items, capacity, *count, sizeof **items)) return -1;
  (*items)[(*count)++] = (named){ref, value};
  return 0;
}

static int compare_named(const void *x, const void *y) {
  const named *a = x, *b = y;
  return (a->ref > b->ref) - (a->ref < b->ref);
}

static const named *find_named(const named *items, size_t count, uint64_t ref) {
  named key = {ref, 0};
  return count ? bsearch(&key, items, count, sizeof *items, compare_named) : NULL;
}

/* ---- definitions ---- */

static OTF2_CallbackCode on_string(void *data, OTF2_StringRef self, const char *string) {
  reader *r = data;
  size_t n = strlen(string) + 1;
  while (r->text_used + n > r->text_capacity) {
    size_t capacity = r->text_capacity ? r->text_capacity * 2 : 4096;
    char *text = realloc(r->text, capacity);
    if (!text) return fail(r, "out of memory"), OTF2_CALLBACK_INTERRUPT;
    r->text = text;
    r->text_capacity = capacity;
  }
  memcpy(r->text + r->text_used, string, n);
  int status = add_named(r, &r->strings, &r->string_count, &r->string_capacity, self, r->text_used);
  r->text_used += n;
  return status ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *data, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                   OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end) {
  (void)canonical, (void)description, (void)role, (void)paradigm, (void)flags, (void)file, (void)begin, (void)end;
  reader *r = data;
  return add_named(r, &r->regions, &r->region_count, &r->region_capacity, self, name) ? OTF2_CALLBACK_INTERRUPT
                                                                                       : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *data, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group) {
  (void)name, (void)type, (void)group;
  reader *r = data;
  return add_named(r, &r->locations, &r->location_count, &r->location_capacity, self, events)
             ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *data, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                  OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t count,
                                  const uint64_t *members) {
  (void)name, (void)flags;
  reader *r = data;
  if (grow(r, (void **)&r->groups, &r->group_capacity, r->group_count, sizeof *r->groups))
    return OTF2_CALLBACK_INTERRUPT;
  while (r->member_count + count > r->member_capacity) {
    size_t capacity = r->member_capacity ? r->member_capacity * 2 : 256;
    uint64_t *bigger = realloc(r->members, capacity * sizeof *bigger);
    if (!bigger) return fail(r, "out of memory"), OTF2_CALLBACK_INTERRUPT;
    r->members = bigger;
    r->member_capacity = capacity;
  }
  if (count) memcpy(r->members + r->member_count, members, count * sizeof *members);
  r->groups[r->group_count++] = (group_def){self, type, paradigm, r->member_count, count};
  r->member_count += count;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *data, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                 OTF2_CommRef parent, OTF2_CommFlag flags) {
  (void)name, (void)parent, (void)flags;
  reader *r = data;
  return add_named(r, &r->comms, &r->comm_count, &r->comm_capacity, self, group) ? OTF2_CALLBACK_INTERRUPT
                                                                                  : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void *data, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime) {
  (void)length, (void)realtime;
  reader *r = data;
  r->resolution = resolution;
  r->offset = offset;
  return OTF2_CALLBACK_SUCCESS;
}

static int compare_groups(const void *x, const void *y) {
  const group_def *a = x, *b = y;
  return (a->ref > b->ref) - (a->ref < b->ref);
}

/* Groups are sorted by ref once the definitions are read: a search per
 * communicator, not a walk (many communicators x many groups). */
static const group_def *find_group(const reader *r, uint64_t ref) {
  group_def key = {.ref = ref};
  return r->group_count ? bsearch(&key, r->groups, r->group_count, sizeof key, compare_groups) : NULL;
}

/* Each member of the ranks group must be a defined location with events,
 * checked before the OTF2 library is asked for them (it selects locations
 * in time linear in those already selected). */
static int check_rank_locations(reader *r, const group_def *ranks) {
  for (uint32_t i = 0; ranks && i < ranks->count; i++) {
    uint64_t location = r->members[ranks->at + i];
    const named *defined = find_named(r->locations, r->location_count, location);
    if (!defined)
      return fail(r, "expected each member of the MPI locations group to be a defined location "
                     "(member %u is location %llu, which is not)", i, (unsigned long long)location);
  }
  size_t n = ranks ? ranks->count : r->location_count;
  for (size_t i = 0; i < n; i++) {
    uint64_t location = ranks ? r->members[ranks->at + i] : r->locations[i].ref;
    if (find_named(r->locations, r->location_count, location)->value == 0)
      return fail(r, "expected events for every rank (location %llu, rank %zu, has none)",
                  (unsigned long long)location, i);
  }
  return 0;
}

/* MPI function names to kinds, without the "MPI_" prefix. */
static fs_call_kind kind_of_name(const char *name) {
  static const struct { const char *name; fs_call_kind kind; } kinds[] = {
      {"Init", FS_CALL_INIT}, {"Init_thread", FS_CALL_INIT}, {"Finalize", FS_CALL_FINALIZE},
      {"Send", FS_CALL_SEND}, {"Ssend", FS_CALL_SSEND}, {"Bsend", FS_CALL_BSEND}, {"Rsend", FS_CALL_RSEND},
      {"Recv", FS_CALL_RECV}, {"Isend", FS_CALL_ISEND}, {"Issend", FS_CALL_ISSEND},
      {"Ibsend", FS_CALL_IBSEND}, {"Irsend", FS_CALL_IRSEND}, {"Irecv", FS_CALL_IRECV},
      {"Sendrecv", FS_CALL_SENDRECV}, {"Sendrecv_replace", FS_CALL_SENDRECV_REPLACE},
      {"Probe", FS_CALL_PROBE}, {"Iprobe", FS_CALL_IPROBE}, {"Wait", FS_CALL_WAIT},
      {"Waitall", FS_CALL_WAITALL}, {"Waitany", FS_CALL_WAITANY}, {"Waitsome", FS_CALL_WAITSOME},
      {"Test", FS_CALL_TEST}, {"Testall", FS_CALL_TESTALL}, {"Testany", FS_CALL_TESTANY},
      {"Testsome", FS_CALL_TESTSOME}, {"Barrier", FS_CALL_BARRIER}, {"Bcast", FS_CALL_BCAST},
      {"Reduce", FS_CALL_REDUCE}, {"Allreduce", FS_CALL_ALLREDUCE}, {"Gather", FS_CALL_GATHER},
      {"Scatter", FS_CALL_SCATTER}, {"Allgather", FS_CALL_ALLGATHER}, {"Alltoall", FS_CALL_ALLTOALL},
      {"Reduce_scatter", FS_CALL_REDUCE_SCATTER}, {"Reduce_scatter_block", FS_CALL_REDUCE_SCATTER_BLOCK},
      {"Scan", FS_CALL_SCAN}, {"Exscan", FS_CALL_EXSCAN}, {"Gatherv", FS_CALL_GATHERV},
      {"Scatterv", FS_CALL_SCATTERV}, {"Allgatherv", FS_CALL_ALLGATHERV}, {"Alltoallv", FS_CALL_ALLTOALLV},
      {"Comm_split", FS_CALL_COMM_SPLIT}, {"Comm_dup", FS_CALL_COMM_DUP},
      {"Comm_create", FS_CALL_COMM_CREATE}, {"Comm_free", FS_CALL_COMM_FREE}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(name, kinds[i].name) == 0) return kinds[i].kind;
  return FS_CALL_OTHER;
}

/* Ranks, communicators and region kinds from the definitions. */
static int settle_definitions(reader *r) {
  qsort(r->strings, r->string_count, sizeof *r->strings, compare_named);
  qsort(r->regions, r->region_count, sizeof *r->regions, compare_named);
  qsort(r->locations, r->location_count, sizeof *r->locations, compare_named);
  if (r->resolution == 0) return fail(r, "expected clock properties with a timer resolution above 0");
  group_def ranks_group, *ranks = NULL; /* the first MPI locations group defined */
  for (size_t i = 0; i < r->group_count && !ranks; i++)
    if (r->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && r->groups[i].paradigm == OTF2_PARADIGM_MPI)
      ranks_group = r->groups[i], ranks = &ranks_group;
  qsort(r->groups, r->group_count, sizeof *r->groups, compare_groups);
  size_t n = ranks ? ranks->count : r->location_count;
  if (n == 0 || n > INT32_MAX) return fail(r, "expected at least one MPI rank (a location)");
  if (check_rank_locations(r, ranks)) return -1;
  if (!(r->rank_of = malloc(n * sizeof *r->rank_of))) return fail(r, "out of memory");
  for (size_t i = 0; i < n; i++)
    r->rank_of[i] = (named){ranks ? r->members[ranks->at + i] : r->locations[i].ref, i};
  r->rank_count = n;
  qsort(r->rank_of, n, sizeof *r->rank_of, compare_named);
  for (size_t i = 1; i < n; i++)
    if (r->rank_of[i].ref == r->rank_of[i - 1].ref) return fail(r, "expected each rank at one location");
  if (!(r->t = fs_trace_new((int32_t)n)) || !(r->state = calloc(n, sizeof *r->state)))
    return fail(r, "out of memory");
  r->t->format = "otf2";
  for (size_t i = 0; i < n; i++) {
    r->state[i].call = -1;
    r->t->rank[i].location = ranks ? r->members[ranks->at + i] : r->locations[i].ref;
    if (fs_trace_set_file(r->t, (int32_t)i, r->anchor)) return fail(r, "out of memory");
  }
  if (!(r->region_kind = calloc(r->region_count ? r->region_count : 1, 1))) return fail(r, "out of memory");
  for (size_t i = 0; i < r->region_count; i++) {
    const named *s = find_named(r->strings, r->string_count, r->regions[i].value);
    const char *name = s ? r->text + s->value : "";
    if (strncmp(name, "MPI_", 4) == 0) r->region_kind[i] = (uint8_t)(kind_of_name(name + 4) + 1);
  }
  if (r->comm_count && !(r->comm_index = malloc(r->comm_count * sizeof *r->comm_index)))
    return fail(r, "out of memory");
  int32_t *members = malloc(n * sizeof *members);
  if (!members) return fail(r, "out of memory");
  int world_taken = 0;
  for (size_t i = 0; i < r->comm_count && !r->failed; i++) {
    const group_def *g = find_group(r, r->comms[i].value);
    int32_t index = FS_COMM_SELF;
    if (!g) {
      fail(r, "expected the group %llu of communicator %llu to be defined",
           (unsigned long long)r->comms[i].value, (unsigned long long)r->comms[i].ref);
      break;
    }
    if (g->type != OTF2_GROUP_TYPE_COMM_SELF) {
      int identity = g->count == n;
      for (uint32_t k = 0; k < g->count && !r->failed; k++) {
        if (g->count > n || r->members[g->at + k] >= n)
          fail(r, "expected the members of communicator %llu to be ranks below %zu",
               (unsigned long long)r->comms[i].ref, n);
        else members[k] = (int32_t)r->members[g->at + k];
        identity &= members[k] == (int32_t)k;
      }
      if (r->failed) break;
      if (g->count == 0) index = -3;
      else if (identity && !world_taken) index = FS_COMM_WORLD, world_taken = 1;
      else index = fs_trace_define_comm(r->t, (int64_t)r->comms[i].ref, members, (int32_t)g->count);
      if (index == -1) fail(r, "out of memory");
      if (index < -1) fail(r, "expected communicator %llu to have members", (unsigned long long)r->comms[i].ref);
    }
    r->comm_index[r->comm_index_count++] = (named){r->comms[i].ref, (uint64_t)index};
  }
  free(members);
  qsort(r->comm_index, r->comm_index_count, sizeof *r->comm_index, compare_named);
  return r->failed ? -1 : 0;
}

/* ---- events ---- */

/* The rank of a location, -1 when it is no rank. */
static int32_t rank_of(const reader *r, OTF2_LocationRef location) {
  const named *n = find_named(r->rank_of, r->rank_count, location);
  return n ? (int32_t)n->value : -1;
}

static fs_time to_ps(reader *r, OTF2_TimeStamp time) {
  int negative = time < r->offset;
  uint64_t ticks = negative ? r->offset - time : time - r->offset, whole = ticks / r->resolution;
  long double part = (long double)(ticks % r->resolution) * 1e12L / (long double)r->resolution;
  if (whole > (uint64_t)(FS_TRACE_TIME_LIMIT / 1000000000000LL) ||
      (fs_time)whole * 1000000000000LL > FS_TRACE_TIME_LIMIT - (fs_time)llroundl(part)) {
    fail(r, "expected times within 2^62 ps (53 days) of the clock's offset");
    return 0;
  }
  fs_time ps = (fs_time)whole * 1000000000000LL + (fs_time)llroundl(part);
  return negative ? -ps : ps;
}

/* The open call of a location's rank, NULL when there is none. */
static fs_call *open_call(reader *r, OTF2_LocationRef location, int32_t *rank) {
  *rank = rank_of(r, location);
  if (*rank < 0 || r->state[*rank].call < 0) return NULL;
  return &r->t->rank[*rank].calls[r->state[*rank].call];
}

static int32_t comm_of(reader *r, OTF2_CommRef comm) {
  const named *n = find_named(r->comm_index, r->comm_index_count, comm);
  if (!n || (int32_t)n->value < 0) {
    fail(r, "expected communicator %llu of an event to be defined", (unsigned long long)comm);
    return FS_COMM_WORLD;
  }
  return (int32_t)n->value;
}

static OTF2_CallbackCode status(const reader *r) {
  return r->failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* A region's name for messages. */
static const char *region_name(const reader *r, const named *region) {
  const named *s = find_named(r->strings, r->string_count, region->value);
  return s ? r->text + s->value : "(unnamed)";
}

/* Enter of a region: an MPI region opens a call (MPI calls do not nest);
 * other regions inside a call are part of it, outside they are computation. */
static OTF2_CallbackCode on_enter(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *data,
                                  OTF2_AttributeList *attributes, OTF2_RegionRef region) {
  const event_at at = {location, position, time};
  (void)attributes;
  reader *r = data;
  int32_t rank = rank_of(r, location);
  if (rank < 0) return OTF2_CALLBACK_SUCCESS;
  rank_state *s = &r->state[rank];
  const named *n = find_named(r->regions, r->region_count, region);
  if (!n)
    return fail_event(r, at, "Enter", "expected a region defined in the definitions (got region %llu)",
                      (unsigned long long)region), OTF2_CALLBACK_INTERRUPT;
  int kind = r->region_kind[n - r->regions];
  if (s->call >= 0 && kind)
    return fail_event(r, at, "Enter", "expected %s to leave before another MPI call enters (got %s)",
                      region_name(r, find_named(r->regions, r->region_count, s->region)), region_name(r, n)),
           OTF2_CALLBACK_INTERRUPT;
  if (s->call >= 0) {
    s->depth++;
    return OTF2_CALLBACK_SUCCESS;
  }
  if (!kind) return OTF2_CALLBACK_SUCCESS;
  fs_call *c = fs_trace_add_call(r->t, rank, (fs_call_kind)(kind - 1));
  if (!c) return fail(r, "out of memory"), OTF2_CALLBACK_INTERRUPT;
  c->start = c->end = to_ps(r, time);
  s->call = r->t->rank[rank].count - 1;
  s->region = region;
  s->depth = 0;
  s->done_count = 0;
  s->tested = 0;
  return status(r);
}

static int add_requests(reader *r, int32_t rank, fs_call *c, const int64_t *ids, int32_t n) {
  int32_t at = fs_trace_add_list(r->t, rank, ids, n);
  if (at < 0) return fail(r, "out of memory");
  c->list_at = at;
  c->list_count = n;
  return 0;
}

/* Completion calls take the requests completed inside them. */
static int settle_completion(reader *r, int32_t rank, fs_call *c) {
  rank_state *s = &r->state[rank];
  fs_call_kind k = (fs_call_kind)c->kind;
  if (k < FS_CALL_WAIT || k > FS_CALL_TESTSOME) return 0;
  if (k >= FS_CALL_TEST) c->flag = s->done_count > 0 ? 1 : s->tested ? 0 : FS_TRACE_UNKNOWN;
  if (k == FS_CALL_WAIT || k == FS_CALL_TEST) {
    if (s->done_count > 0) c->request = (int32_t)s->done[0];
    return 0;
  }
  if (add_requests(r, rank, c, s->done, s->done_count)) return -1;
  if ((k == FS_CALL_WAITANY || k == FS_CALL_TESTANY) && s->done_count > 0) c->index = 0;
  if (k == FS_CALL_WAITSOME || k == FS_CALL_TESTSOME) {
    c->completed_at = c->list_at;
    c->completed_count = c->list_count;
  }
  return 0;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *data,
                                  OTF2_AttributeList *attributes, OTF2_RegionRef region) {
  const event_at at = {location, position, time};
  (void)attributes;
  reader *r = data;
  int32_t rank;
  fs_call *c = open_call(r, location, &rank);
  const named *n = find_named(r->regions, r->region_count, region);
  if (!n && rank >= 0)
    return fail_event(r, at, "Leave", "expected a region defined in the definitions (got region %llu)",
                      (unsigned long long)region), OTF2_CALLBACK_INTERRUPT;
  if (!c) return OTF2_CALLBACK_SUCCESS;
  rank_state *s = &r->state[rank];
  if (s->depth > 0) {
    s->depth--;
    return OTF2_CALLBACK_SUCCESS;
  }
  if (region != s->region)
    return fail_event(r, at, "Leave", "expected the Leave of %s (got a Leave of %s)",
                      region_name(r, find_named(r->regions, r->region_count, s->region)), region_name(r, n)),
           OTF2_CALLBACK_INTERRUPT;
  c->end = to_ps(r, time);
  s->call = -1;
  settle_completion(r, rank, c);
  return status(r);
}

static int begin_request(reader *r, int32_t rank, uint64_t otf2_id, int64_t irecv, int32_t *id) {
  rank_state *s = &r->state[rank];
  for (int32_t i = 0; i < s->open_count; i++) /* a reused OTF2 id: the old request is gone */
    if (s->open[i].otf2_id == otf2_id) s->open[i] = s->open[--s->open_count];
  if (s->open_count == s->open_capacity) {
    int32_t capacity = s->open_capacity ? s->open_capacity * 2 : 16;
    pending_request *open = realloc(s->open, (size_t)capacity * sizeof *open);
    if (!open) return fail(r, "out of memory");
    s->open = open;
    s->open_capacity = capacity;
  }
  *id = s->next_id++;
  s->open[s->open_count++] = (pending_request){otf2_id, *id, irecv};
  return 0;
}

/* Marks an OTF2 request completed by the open call; its entry, or NULL. */
static pending_request *complete_request(reader *r, int32_t rank, uint64_t otf2_id, pending_request *copy) {
  rank_state *s = &r->state[rank];
  for (int32_t i = 0; i < s->open_count; i++) {
    if (s->open[i].otf2_id != otf2_id) continue;
    *copy = s->open[i];
    s->open[i] = s->open[--s->open_count];
    if (s->done_count == s->done_capacity) {
      int32_t capacity = s->done_capacity ? s->done_capacity * 2 : 16;
      int64_t *done = realloc(s->done, (size_t)capacity * sizeof *done);
      if (!done) return fail(r, "out of memory"), NULL;
      s->done = done;
      s->done_capacity = capacity;
    }
    s->done[s->done_count++] = copy->id;
    return copy;
  }
  return NULL;
}

static void set_message(reader *r, fs_call *c, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t length,
                        int receive) {
  int32_t p = peer > INT32_MAX ? FS_TRACE_UNKNOWN : (int32_t)peer, g = tag > INT32_MAX ? FS_TRACE_UNKNOWN : (int32_t)tag;
  int64_t bytes = (int64_t)length; /* checked by the caller (size_ok) */
  c->comm = comm_of(r, comm);
  if (c->kind == FS_CALL_SENDRECV && receive) {
    c->recv_peer = c->source = p;
    c->recv_tag = c->source_tag = g;
    c->recv_bytes = bytes;
    return;
  }
  c->peer = p;
  c->tag = g;
  if (receive) {
    c->source = p;
    c->source_tag = g;
    c->recv_bytes = bytes;
    if (c->kind != FS_CALL_SENDRECV_REPLACE) c->bytes = bytes;
  } else {
    c->bytes = bytes;
    if (c->kind == FS_CALL_SENDRECV_REPLACE) c->recv_bytes = bytes;
  }
}

/* A message or collective size within the limit, else the error. */
static int size_ok(reader *r, event_at at, const char *event, uint64_t bytes) {
  if (bytes <= (uint64_t)FS_TRACE_SIZE_LIMIT) return 1;
  fail_event(r, at, event, "expected a size of at most " FS_TRACE_SIZE_LIMIT_TEXT " bytes (2^62) (got %llu)",
             (unsigned long long)bytes);
  return 0;
}

static OTF2_CallbackCode on_send(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *data,
                                 OTF2_AttributeList *attributes, uint32_t receiver, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t length) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  reader *r = data;
  int32_t rank;
  fs_call *c = open_call(r, location, &rank);
  if (c && size_ok(r, at, "MpiSend", length)) set_message(r, c, receiver, comm, tag, length, 0);
  return status(r);
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *data,
                                  OTF2_AttributeList *attributes, uint32_t receiver, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t length, uint64_t request) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  reader *r = data;
  int32_t rank, id;
  fs_call *c = open_call(r, location, &rank);
  if (!c || !size_ok(r, at, "MpiIsend", length)) return status(r);
  set_message(r, c, receiver, comm, tag, length, 0);
  if (!begin_request(r, rank, request, -1, &id)) c->request = id;
  return status(r);
}

static OTF2_CallbackCode on_recv(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *data,
                                 OTF2_AttributeList *attributes, uint32_t sender, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t length) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  reader *r = data;
  int32_t rank;
  fs_call *c = open_call(r, location, &rank);
  if (c && size_ok(r, at, "MpiRecv", length)) set_message(r, c, sender, comm, tag, length, 1);
  return status(r);
}

static OTF2_CallbackCode on_irecv_request(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *data,
                                          OTF2_AttributeList *attributes, uint64_t request) {
  (void)time, (void)position, (void)attributes;
  reader *r = data;
  int32_t rank, id;
  fs_call *c = open_call(r, location, &rank);
  if (c && !begin_request(r, rank, request, r->state[rank].call, &id)) c->request = id;
  return status(r);
}

/* A completion or test of a request that no MpiIsend or MpiIrecvRequest of
 * the location made (or that was completed already). */
static OTF2_CallbackCode unknown_request(reader *r, event_at at, const char *event, uint64_t request) {
  if (r->failed) return OTF2_CALLBACK_INTERRUPT; /* out of memory */
  fail_event(r, at, event, "expected a request that an MpiIsend or MpiIrecvRequest of this location "
             "made and nothing completed yet (got request %llu)", (unsigned long long)request);
  return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode on_irecv(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *data,
                                  OTF2_AttributeList *attributes, uint32_t sender, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t length, uint64_t request) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  reader *r = data;
  int32_t rank;
  pending_request done;
  if (!open_call(r, location, &rank) || !size_ok(r, at, "MpiIrecv", length)) return status(r);
  if (!complete_request(r, rank, request, &done))
    return unknown_request(r, at, "MpiIrecv", request);
  if (done.irecv < 0)
    return fail_event(r, at, "MpiIrecv", "expected request %llu to be an Irecv's (it is an Isend's)",
                      (unsigned long long)request), OTF2_CALLBACK_INTERRUPT;
  set_message(r, &r->t->rank[rank].calls[done.irecv], sender, comm, tag, length, 1);
  return status(r);
}

static OTF2_CallbackCode on_isend_complete(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,
                                           void *data,
                                           OTF2_AttributeList *attributes, uint64_t request) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  reader *r = data;
  int32_t rank;
  pending_request done;
  if (open_call(r, location, &rank) && !complete_request(r, rank, request, &done))
    return unknown_request(r, at, "MpiIsendComplete", request);
  return status(r);
}

static OTF2_CallbackCode on_request_test(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *data,
                                         OTF2_AttributeList *attributes, uint64_t request) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  reader *r = data;
  int32_t rank;
  fs_call *c = open_call(r, location, &rank);
  if (!c) return OTF2_CALLBACK_SUCCESS;
  r->state[rank].tested = 1;
  const rank_state *s = &r->state[rank];
  int32_t i = 0;
  while (i < s->open_count && s->open[i].otf2_id != request) i++;
  if (i == s->open_count) return unknown_request(r, at, "MpiRequestTest", request);
  if (c->request < 0) c->request = s->open[i].id;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_collective_end(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,
                                           void *data,
                                           OTF2_AttributeList *attributes, OTF2_CollectiveOp op,
                                           OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t received) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes, (void)op;
  reader *r = data;
  int32_t rank;
  fs_call *c = open_call(r, location, &rank);
  if (sent == OTF2_UNDEFINED_UINT64) sent = 0; /* not recorded */
  if (received == OTF2_UNDEFINED_UINT64) received = 0;
  if (!c || !size_ok(r, at, "MpiCollectiveEnd", sent > received ? sent : received)) return status(r);
  c->comm = comm_of(r, comm);
  if (root != OTF2_UNDEFINED_UINT32 && root <= INT32_MAX) c->root = (int32_t)root;
  c->bytes = (int64_t)sent;
  c->recv_bytes = (int64_t)received;
  return status(r);
}

/* ---- the archive ---- */

static OTF2_ErrorCode quiet(void *data, const char *file, uint64_t line, const char *function,
                            OTF2_ErrorCode code, const char *format, va_list args) {
  (void)data, (void)file, (void)line, (void)function, (void)format, (void)args;
  return code;
}

static int otf2_failed(reader *r, OTF2_ErrorCode code, const char *doing) {
  if (code == OTF2_SUCCESS) return 0;
  if (r->failed) return -1;
  return fail(r, "%s (OTF2: %s)", doing, OTF2_Error_GetDescription(code));
}

static int read_definitions(reader *r, OTF2_Reader *in) {
  OTF2_GlobalDefReader *defs = OTF2_Reader_GetGlobalDefReader(in);
  OTF2_GlobalDefReaderCallbacks *callbacks = OTF2_GlobalDefReaderCallbacks_New();
  if (!defs || !callbacks) {
    OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
    return fail(r, "expected an OTF2 archive with global definitions");
  }
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, on_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, on_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, on_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, on_clock);
  OTF2_ErrorCode code = OTF2_Reader_RegisterGlobalDefCallbacks(in, defs, callbacks, r);
  OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
  uint64_t read = 0;
  if (otf2_failed(r, code, "cannot read the definitions") ||
      otf2_failed(r, OTF2_Reader_ReadAllGlobalDefinitions(in, defs, &read), "cannot read the definitions"))
    return -1;
  OTF2_Reader_CloseGlobalDefReader(in, defs);
  return settle_definitions(r);
}

/* One location's events, through its own reader (which numbers them, for
 * messages), closed after: ranks are read one after the other, as their
 * calls do not depend on each other's. */
static int read_location(reader *r, OTF2_Reader *in, OTF2_EvtReaderCallbacks *callbacks, uint64_t location,
                         int with_definitions) {
  if (with_definitions) { /* local definitions carry the id mappings */
    OTF2_DefReader *local = OTF2_Reader_GetDefReader(in, location);
    uint64_t read = 0;
    if (local) {
      OTF2_Reader_ReadAllLocalDefinitions(in, local, &read);
      OTF2_Reader_CloseDefReader(in, local);
    }
  }
  OTF2_EvtReader *events = OTF2_Reader_GetEvtReader(in, location);
  if (!events) return fail(r, "expected the events of location %llu", (unsigned long long)location);
  uint64_t read = 0;
  int status = otf2_failed(r, OTF2_Reader_RegisterEvtCallbacks(in, events, callbacks, r), "cannot read the events") ||
               otf2_failed(r, OTF2_Reader_ReadAllLocalEvents(in, events, &read), "cannot read the events");
  OTF2_Reader_CloseEvtReader(in, events);
  return status ? -1 : 0;
}

static int read_events(reader *r, OTF2_Reader *in) {
  for (size_t i = 0; i < r->rank_count; i++) OTF2_Reader_SelectLocation(in, r->rank_of[i].ref);
  int with_definitions = OTF2_Reader_OpenDefFiles(in) == OTF2_SUCCESS;
  if (otf2_failed(r, OTF2_Reader_OpenEvtFiles(in), "cannot open the event files")) return -1;
  OTF2_EvtReaderCallbacks *callbacks = OTF2_EvtReaderCallbacks_New();
  int status = callbacks ? 0 : fail(r, "out of memory");
  if (callbacks) {
    OTF2_EvtReaderCallbacks_SetEnterCallback(callbacks, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(callbacks, on_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(callbacks, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(callbacks, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(callbacks, on_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(callbacks, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(callbacks, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(callbacks, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(callbacks, on_request_test);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(callbacks, on_collective_end);
  }
  for (int32_t rank = 0; rank < r->t->ranks && !status; rank++)
    status = read_location(r, in, callbacks, r->t->rank[rank].location, with_definitions);
  OTF2_EvtReaderCallbacks_Delete(callbacks);
  if (with_definitions) OTF2_Reader_CloseDefFiles(in);
  OTF2_Reader_CloseEvtFiles(in);
  if (status) return -1;
  for (size_t i = 0; i < r->rank_count; i++)
    if (r->state[i].call >= 0) { /* a call the trace never left: it ends where it began */
      fs_call *c = &r->t->rank[i].calls[r->state[i].call];
      if (settle_completion(r, (int32_t)i, c)) return -1;
    }
  return 0;
}

fs_trace *fs_otf2_read(const char *anchor, fs_error *err) {
  reader r = {.anchor = anchor, .err = err};
  OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(quiet, NULL);
  /* an anchor starts with an endianness byte pair then "OTF2": checked first,
   * as the library leaks what it allocated when it rejects a file */
  FILE *probe = fopen(anchor, "rb");
  unsigned char magic[6] = {0};
  if (!probe) {
    fail(&r, "cannot open the OTF2 anchor file");
  } else if (fread(magic, 1, sizeof magic, probe) != sizeof magic || memcmp(magic + 2, "OTF2", 4) != 0) {
    fclose(probe);
    fail(&r, "expected an OTF2 anchor file (it does not start with OTF2's header)");
  } else {
    fclose(probe);
    OTF2_Reader *in = OTF2_Reader_Open(anchor);
    if (!in) {
      fail(&r, "expected an OTF2 archive (its anchor file cannot be read)");
    } else {
      if (!otf2_failed(&r, OTF2_Reader_SetSerialCollectiveCallbacks(in), "cannot set up the OTF2 reader"))
        if (!read_definitions(&r, in)) read_events(&r, in);
      OTF2_Reader_Close(in);
    }
  }
  OTF2_Error_RegisterCallback(previous, NULL);
  for (size_t i = 0; r.state && i < r.rank_count; i++) {
    free(r.state[i].done);
    free(r.state[i].open);
  }
  free(r.state);
  free(r.text);
  free(r.strings);
  free(r.regions);
  free(r.comms);
  free(r.locations);
  free(r.groups);
  free(r.members);
  free(r.rank_of);
  free(r.comm_index);
  free(r.region_kind);
  if (r.failed) {
    fs_trace_free(r.t);
    return NULL;
  }
  return r.t;
}

#endif
