/* otf2_reader.c: OTF2 archives (Score-P and others) through the OTF2
 * library, into an fs_trace. Compiled without OTF2 (no FS_HAVE_OTF2) it
 * only says so. The definitions are read in otf2_definitions.c, the events
 * and the archive here.
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

#include "io/text_input.h"
#include "trace/otf2_reader.h"

int fs_otf2_available(void) { return 1; }

/* ---- errors and small tables ---- */

int otf2_fail(otf2_reader *r, const char *format, ...) {
  if (r->failed) return -1;
  va_list args;
  va_start(args, format);
  fs_text_verror_at(r->err, r->anchor, -1, -1, format, args); /* no lines */
  va_end(args);
  r->failed = 1;
  return -1;
}

int otf2_fail_event(otf2_reader *r, event_at at, const char *event, const char *format, ...) {
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

int otf2_grow(otf2_reader *r, void **items, size_t *capacity, size_t used, size_t size) {
  if (used < *capacity) return 0;
  size_t bigger = *capacity ? *capacity * 2 : 64;
  void *p = realloc(*items, bigger * size);
  if (!p) return otf2_fail(r, "out of memory");
  *items = p;
  *capacity = bigger;
  return 0;
}

int otf2_add_named(otf2_reader *r, named **items, size_t *count, size_t *capacity, uint64_t ref,
                   uint64_t value) {
  if (otf2_grow(r, (void **)items, capacity, *count, sizeof **items)) return -1;
  (*items)[(*count)++] = (named){ref, value};
  return 0;
}

int otf2_compare_named(const void *x, const void *y) {
  const named *a = x, *b = y;
  return (a->ref > b->ref) - (a->ref < b->ref);
}

const named *otf2_find_named(const named *items, size_t count, uint64_t ref) {
  named key = {ref, 0};
  return count ? bsearch(&key, items, count, sizeof *items, otf2_compare_named) : NULL;
}

/* ---- events ---- */

/* The rank of a location, -1 when it is no rank. */
static int32_t rank_of(const otf2_reader *r, OTF2_LocationRef location) {
  const named *n = otf2_find_named(r->rank_of, r->rank_count, location);
  return n ? (int32_t)n->value : -1;
}

static fs_time to_ps(otf2_reader *r, OTF2_TimeStamp time) {
  int negative = time < r->offset;
  uint64_t ticks = negative ? r->offset - time : time - r->offset, whole = ticks / r->resolution;
  long double part = (long double)(ticks % r->resolution) * 1e12L / (long double)r->resolution;
  if (whole > (uint64_t)(FS_TRACE_TIME_LIMIT / 1000000000000LL) ||
      (fs_time)whole * 1000000000000LL > FS_TRACE_TIME_LIMIT - (fs_time)llroundl(part)) {
    otf2_fail(r, "expected times within 2^62 ps (53 days) of the clock's offset");
    return 0;
  }
  fs_time ps = (fs_time)whole * 1000000000000LL + (fs_time)llroundl(part);
  return negative ? -ps : ps;
}

/* The open call of a location's rank, NULL when there is none. */
static fs_call *open_call(otf2_reader *r, OTF2_LocationRef location, int32_t *rank) {
  *rank = rank_of(r, location);
  if (*rank < 0 || r->state[*rank].call < 0) return NULL;
  return &r->t->rank[*rank].calls[r->state[*rank].call];
}

static int32_t comm_of(otf2_reader *r, OTF2_CommRef comm) {
  const named *n = otf2_find_named(r->comm_index, r->comm_index_count, comm);
  if (!n || (int32_t)n->value < 0) {
    otf2_fail(r, "expected communicator %llu of an event to be defined", (unsigned long long)comm);
    return FS_COMM_WORLD;
  }
  return (int32_t)n->value;
}

static OTF2_CallbackCode status(const otf2_reader *r) {
  return r->failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* A region's name for messages. */
static const char *region_name(const otf2_reader *r, const named *region) {
  const named *s = otf2_find_named(r->strings, r->string_count, region->value);
  return s ? r->text + s->value : "(unnamed)";
}

/* Enter of a region: an MPI region opens a call (MPI calls do not nest);
 * other regions inside a call are part of it, outside they are computation. */
static OTF2_CallbackCode on_enter(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,
                                  void *data, OTF2_AttributeList *attributes,
                                  OTF2_RegionRef region) {
  const event_at at = {location, position, time};
  (void)attributes;
  otf2_reader *r = data;
  int32_t rank = rank_of(r, location);
  if (rank < 0) return OTF2_CALLBACK_SUCCESS;
  rank_state *s = &r->state[rank];
  const named *n = otf2_find_named(r->regions, r->region_count, region);
  if (!n)
    return otf2_fail_event(r, at, "Enter",
                           "expected a region defined in the definitions (got region %llu)",
                           (unsigned long long)region),
           OTF2_CALLBACK_INTERRUPT;
  int kind = r->region_kind[n - r->regions];
  if (s->call >= 0 && kind)
    return otf2_fail_event(r, at, "Enter",
                           "expected %s to leave before another MPI call enters (got %s)",
                           region_name(r, otf2_find_named(r->regions, r->region_count, s->region)),
                           region_name(r, n)),
           OTF2_CALLBACK_INTERRUPT;
  if (s->call >= 0) {
    s->depth++;
    return OTF2_CALLBACK_SUCCESS;
  }
  if (!kind) return OTF2_CALLBACK_SUCCESS;
  fs_call *c = fs_trace_add_call(r->t, rank, (fs_call_kind)(kind - 1));
  if (!c) return otf2_fail(r, "out of memory"), OTF2_CALLBACK_INTERRUPT;
  c->start = c->end = to_ps(r, time);
  s->call = r->t->rank[rank].count - 1;
  s->region = region;
  s->depth = 0;
  s->done_count = 0;
  s->tested = 0;
  return status(r);
}

static int add_requests(otf2_reader *r, int32_t rank, fs_call *c, const int64_t *ids, int32_t n) {
  int32_t at = fs_trace_add_list(r->t, rank, ids, n);
  if (at < 0) return otf2_fail(r, "out of memory");
  c->list_at = at;
  c->list_count = n;
  return 0;
}

/* Completion calls take the requests completed inside them. */
static int settle_completion(otf2_reader *r, int32_t rank, fs_call *c) {
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

static OTF2_CallbackCode on_leave(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,
                                  void *data, OTF2_AttributeList *attributes,
                                  OTF2_RegionRef region) {
  const event_at at = {location, position, time};
  (void)attributes;
  otf2_reader *r = data;
  int32_t rank;
  fs_call *c = open_call(r, location, &rank);
  const named *n = otf2_find_named(r->regions, r->region_count, region);
  if (!n && rank >= 0)
    return otf2_fail_event(r, at, "Leave",
                           "expected a region defined in the definitions (got region %llu)",
                           (unsigned long long)region),
           OTF2_CALLBACK_INTERRUPT;
  if (!c) return OTF2_CALLBACK_SUCCESS;
  rank_state *s = &r->state[rank];
  if (s->depth > 0) {
    s->depth--;
    return OTF2_CALLBACK_SUCCESS;
  }
  if (region != s->region)
    return otf2_fail_event(r, at, "Leave", "expected the Leave of %s (got a Leave of %s)",
                           region_name(r, otf2_find_named(r->regions, r->region_count, s->region)),
                           region_name(r, n)),
           OTF2_CALLBACK_INTERRUPT;
  c->end = to_ps(r, time);
  s->call = -1;
  settle_completion(r, rank, c);
  return status(r);
}

static int begin_request(otf2_reader *r, int32_t rank, uint64_t otf2_id, int64_t irecv,
                         int32_t *id) {
  rank_state *s = &r->state[rank];
  for (int32_t i = 0; i < s->open_count; i++) /* a reused OTF2 id: the old request is gone */
    if (s->open[i].otf2_id == otf2_id) s->open[i] = s->open[--s->open_count];
  if (s->open_count == s->open_capacity) {
    int32_t capacity = s->open_capacity ? s->open_capacity * 2 : 16;
    pending_request *open = realloc(s->open, (size_t)capacity * sizeof *open);
    if (!open) return otf2_fail(r, "out of memory");
    s->open = open;
    s->open_capacity = capacity;
  }
  *id = s->next_id++;
  s->open[s->open_count++] = (pending_request){otf2_id, *id, irecv};
  return 0;
}

/* Marks an OTF2 request completed by the open call; its entry, or NULL. */
static pending_request *complete_request(otf2_reader *r, int32_t rank, uint64_t otf2_id,
                                         pending_request *copy) {
  rank_state *s = &r->state[rank];
  for (int32_t i = 0; i < s->open_count; i++) {
    if (s->open[i].otf2_id != otf2_id) continue;
    *copy = s->open[i];
    s->open[i] = s->open[--s->open_count];
    if (s->done_count == s->done_capacity) {
      int32_t capacity = s->done_capacity ? s->done_capacity * 2 : 16;
      int64_t *done = realloc(s->done, (size_t)capacity * sizeof *done);
      if (!done) return otf2_fail(r, "out of memory"), NULL;
      s->done = done;
      s->done_capacity = capacity;
    }
    s->done[s->done_count++] = copy->id;
    return copy;
  }
  return NULL;
}

static void set_message(otf2_reader *r, fs_call *c, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                        uint64_t length, int receive) {
  int32_t p = peer > INT32_MAX ? FS_TRACE_UNKNOWN : (int32_t)peer,
          g = tag > INT32_MAX ? FS_TRACE_UNKNOWN : (int32_t)tag;
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
static int size_ok(otf2_reader *r, event_at at, const char *event, uint64_t bytes) {
  if (bytes <= (uint64_t)FS_TRACE_SIZE_LIMIT) return 1;
  otf2_fail_event(r, at, event,
                  "expected a size of at most " FS_TRACE_SIZE_LIMIT_TEXT " bytes (2^62) (got %llu)",
                  (unsigned long long)bytes);
  return 0;
}

static OTF2_CallbackCode on_send(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,
                                 void *data, OTF2_AttributeList *attributes, uint32_t receiver,
                                 OTF2_CommRef comm, uint32_t tag, uint64_t length) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  otf2_reader *r = data;
  int32_t rank;
  fs_call *c = open_call(r, location, &rank);
  if (c && size_ok(r, at, "MpiSend", length)) set_message(r, c, receiver, comm, tag, length, 0);
  return status(r);
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,
                                  void *data, OTF2_AttributeList *attributes, uint32_t receiver,
                                  OTF2_CommRef comm, uint32_t tag, uint64_t length,
                                  uint64_t request) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  otf2_reader *r = data;
  int32_t rank, id;
  fs_call *c = open_call(r, location, &rank);
  if (!c || !size_ok(r, at, "MpiIsend", length)) return status(r);
  set_message(r, c, receiver, comm, tag, length, 0);
  if (!begin_request(r, rank, request, -1, &id)) c->request = id;
  return status(r);
}

static OTF2_CallbackCode on_recv(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,
                                 void *data, OTF2_AttributeList *attributes, uint32_t sender,
                                 OTF2_CommRef comm, uint32_t tag, uint64_t length) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  otf2_reader *r = data;
  int32_t rank;
  fs_call *c = open_call(r, location, &rank);
  if (c && size_ok(r, at, "MpiRecv", length)) set_message(r, c, sender, comm, tag, length, 1);
  return status(r);
}

static OTF2_CallbackCode on_irecv_request(OTF2_LocationRef location, OTF2_TimeStamp time,
                                          uint64_t position, void *data,
                                          OTF2_AttributeList *attributes, uint64_t request) {
  (void)time, (void)position, (void)attributes;
  otf2_reader *r = data;
  int32_t rank, id;
  fs_call *c = open_call(r, location, &rank);
  if (c && !begin_request(r, rank, request, r->state[rank].call, &id)) c->request = id;
  return status(r);
}

/* A completion or test of a request that no MpiIsend or MpiIrecvRequest of
 * the location made (or that was completed already). */
static OTF2_CallbackCode unknown_request(otf2_reader *r, event_at at, const char *event,
                                         uint64_t request) {
  if (r->failed) return OTF2_CALLBACK_INTERRUPT; /* out of memory */
  otf2_fail_event(r, at, event,
                  "expected a request that an MpiIsend or MpiIrecvRequest of this location "
                  "made and nothing completed yet (got request %llu)",
                  (unsigned long long)request);
  return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode on_irecv(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position,
                                  void *data, OTF2_AttributeList *attributes, uint32_t sender,
                                  OTF2_CommRef comm, uint32_t tag, uint64_t length,
                                  uint64_t request) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  otf2_reader *r = data;
  int32_t rank;
  pending_request done;
  if (!open_call(r, location, &rank) || !size_ok(r, at, "MpiIrecv", length)) return status(r);
  if (!complete_request(r, rank, request, &done))
    return unknown_request(r, at, "MpiIrecv", request);
  if (done.irecv < 0)
    return otf2_fail_event(r, at, "MpiIrecv",
                           "expected request %llu to be an Irecv's (it is an Isend's)",
                           (unsigned long long)request),
           OTF2_CALLBACK_INTERRUPT;
  set_message(r, &r->t->rank[rank].calls[done.irecv], sender, comm, tag, length, 1);
  return status(r);
}

static OTF2_CallbackCode on_isend_complete(OTF2_LocationRef location, OTF2_TimeStamp time,
                                           uint64_t position, void *data,
                                           OTF2_AttributeList *attributes, uint64_t request) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  otf2_reader *r = data;
  int32_t rank;
  pending_request done;
  if (open_call(r, location, &rank) && !complete_request(r, rank, request, &done))
    return unknown_request(r, at, "MpiIsendComplete", request);
  return status(r);
}

static OTF2_CallbackCode on_request_test(OTF2_LocationRef location, OTF2_TimeStamp time,
                                         uint64_t position, void *data,
                                         OTF2_AttributeList *attributes, uint64_t request) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes;
  otf2_reader *r = data;
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

static OTF2_CallbackCode on_collective_end(OTF2_LocationRef location, OTF2_TimeStamp time,
                                           uint64_t position, void *data,
                                           OTF2_AttributeList *attributes, OTF2_CollectiveOp op,
                                           OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                           uint64_t received) {
  const event_at at = {location, position, time};
  (void)time, (void)attributes, (void)op;
  otf2_reader *r = data;
  int32_t rank;
  fs_call *c = open_call(r, location, &rank);
  if (sent == OTF2_UNDEFINED_UINT64) sent = 0; /* not recorded */
  if (received == OTF2_UNDEFINED_UINT64) received = 0;
  if (!c || !size_ok(r, at, "MpiCollectiveEnd", sent > received ? sent : received))
    return status(r);
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

int otf2_failed(otf2_reader *r, OTF2_ErrorCode code, const char *doing) {
  if (code == OTF2_SUCCESS) return 0;
  if (r->failed) return -1;
  return otf2_fail(r, "%s (OTF2: %s)", doing, OTF2_Error_GetDescription(code));
}

/* One location's events, through its own otf2_reader (which numbers them, for
 * messages), closed after: ranks are read one after the other, as their
 * calls do not depend on each other's. */
static int read_location(otf2_reader *r, OTF2_Reader *in, OTF2_EvtReaderCallbacks *callbacks,
                         uint64_t location, int with_definitions) {
  if (with_definitions) { /* local definitions carry the id mappings */
    OTF2_DefReader *local = OTF2_Reader_GetDefReader(in, location);
    uint64_t read = 0;
    if (local) {
      OTF2_Reader_ReadAllLocalDefinitions(in, local, &read);
      OTF2_Reader_CloseDefReader(in, local);
    }
  }
  OTF2_EvtReader *events = OTF2_Reader_GetEvtReader(in, location);
  if (!events)
    return otf2_fail(r, "expected the events of location %llu", (unsigned long long)location);
  uint64_t read = 0;
  int status =
      otf2_failed(r, OTF2_Reader_RegisterEvtCallbacks(in, events, callbacks, r),
                  "cannot read the events") ||
      otf2_failed(r, OTF2_Reader_ReadAllLocalEvents(in, events, &read), "cannot read the events");
  OTF2_Reader_CloseEvtReader(in, events);
  return status ? -1 : 0;
}

static int read_events(otf2_reader *r, OTF2_Reader *in) {
  for (size_t i = 0; i < r->rank_count; i++) OTF2_Reader_SelectLocation(in, r->rank_of[i].ref);
  int with_definitions = OTF2_Reader_OpenDefFiles(in) == OTF2_SUCCESS;
  if (otf2_failed(r, OTF2_Reader_OpenEvtFiles(in), "cannot open the event files")) return -1;
  OTF2_EvtReaderCallbacks *callbacks = OTF2_EvtReaderCallbacks_New();
  int status = callbacks ? 0 : otf2_fail(r, "out of memory");
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
  otf2_reader r = {.anchor = anchor, .err = err};
  OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(quiet, NULL);
  /* an anchor starts with an endianness byte pair then "OTF2": checked first,
   * as the library leaks what it allocated when it rejects a file */
  FILE *probe = fopen(anchor, "rb");
  unsigned char magic[6] = {0};
  if (!probe) {
    otf2_fail(&r, "cannot open the OTF2 anchor file");
  } else if (fread(magic, 1, sizeof magic, probe) != sizeof magic ||
             memcmp(magic + 2, "OTF2", 4) != 0) {
    fclose(probe);
    otf2_fail(&r, "expected an OTF2 anchor file (it does not start with OTF2's header)");
  } else {
    fclose(probe);
    OTF2_Reader *in = OTF2_Reader_Open(anchor);
    if (!in) {
      otf2_fail(&r, "expected an OTF2 archive (its anchor file cannot be read)");
    } else {
      if (!otf2_failed(&r, OTF2_Reader_SetSerialCollectiveCallbacks(in),
                       "cannot set up the OTF2 otf2_reader"))
        if (!otf2_read_definitions(&r, in)) read_events(&r, in);
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
