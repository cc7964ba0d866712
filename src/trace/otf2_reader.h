/* otf2_reader.h: what the files of the OTF2 reader share, for them only
 * (otf2_definitions.c reads the global definitions: strings, regions,
 * locations, groups, communicators, the clock; otf2_reader.c the events
 * and the archive). The public entry is fs_otf2_read in
 * trace/trace_readers.h. Built only with OTF2 (FS_HAVE_OTF2). */
#ifndef FS_OTF2_READER_H
#define FS_OTF2_READER_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "core/error.h"
#include "trace/trace.h"

typedef struct named {
  uint64_t ref, value;
} named; /* ref -> value, sorted once read */

typedef struct group_def {
  uint64_t ref;
  OTF2_GroupType type;
  OTF2_Paradigm paradigm;
  size_t at; /* members in the member pool */
  uint32_t count;
} group_def;

typedef struct pending_request {
  uint64_t otf2_id;
  int32_t id;
  int64_t irecv; /* the Irecv call, -1 for sends */
} pending_request;

typedef struct rank_state {
  int64_t call;          /* the open MPI call, -1 none */
  OTF2_RegionRef region; /* its region */
  int32_t depth;         /* regions entered inside it */
  int64_t *done;         /* requests it completed */
  int32_t done_count, done_capacity;
  int tested; /* an MpiRequestTest inside it */
  pending_request *open;
  int32_t open_count, open_capacity, next_id;
} rank_state;

typedef struct otf2_reader {
  const char *anchor;
  fs_error *err;
  int failed;
  fs_trace *t;
  uint64_t resolution, offset;
  char *text; /* string pool */
  size_t text_used, text_capacity;
  named *strings, *regions, *comms, *locations;
  size_t string_count, region_count, comm_count, location_count;
  size_t string_capacity, region_capacity, comm_capacity, location_capacity;
  group_def *groups;
  size_t group_count, group_capacity;
  uint64_t *members;
  size_t member_count, member_capacity;
  named *rank_of; /* location -> rank, sorted */
  size_t rank_count;
  named *comm_index; /* OTF2 comm -> index in the trace, sorted */
  size_t comm_index_count;
  uint8_t *region_kind; /* per region (in `regions` order): kind + 1, 0 not MPI */
  rank_state *state;
} otf2_reader;

/* An event's error: OTF2 has no lines, the event is named by its location,
 * its position among the location's events (from 1), its record type and
 * its time stamp (as otf2-print shows them). */
typedef struct event_at {
  OTF2_LocationRef location;
  uint64_t position; /* from 1, in the location's events */
  OTF2_TimeStamp time;
} event_at;

/* "ANCHOR: message" into r->err, once (the first error wins); -1. */
int otf2_fail(otf2_reader *r, const char *format, ...) FS_PRINTF(2, 3);
/* "ANCHOR: location L, event N (EVENT at time T): message"; -1. */
int otf2_fail_event(otf2_reader *r, event_at at, const char *event, const char *format, ...)
    FS_PRINTF(4, 5);
/* 0 when code is OTF2_SUCCESS, else -1 with "DOING (OTF2: why)". */
int otf2_failed(otf2_reader *r, OTF2_ErrorCode code, const char *doing);
/* Room for one more of *items (used of *capacity, size bytes each); -1 out of memory. */
int otf2_grow(otf2_reader *r, void **items, size_t *capacity, size_t used, size_t size);
int otf2_add_named(otf2_reader *r, named **items, size_t *count, size_t *capacity, uint64_t ref,
                   uint64_t value);
int otf2_compare_named(const void *x, const void *y); /* by ref, for qsort */
/* The entry for ref in items sorted by ref, NULL when none. */
const named *otf2_find_named(const named *items, size_t count, uint64_t ref);

/* Reads the global definitions and settles from them the trace's ranks,
 * communicators and the kind of each region (r->t is made here); -1 with
 * the error set. */
int otf2_read_definitions(otf2_reader *r, OTF2_Reader *in);

#endif
