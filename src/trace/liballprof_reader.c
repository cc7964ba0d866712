/* liballprof_reader.c: liballprof's text traces (pmpi-trace-rank-N.txt), as
 * recorded by the PMPI tracer of Schedgen/LogGOPSim, into an fs_trace.
 *
 * What the format is, from the sources (spcl/LogGOPSim src/liballprof:
 * gencode.py and template.c; the 2009 "collprof 0.9" files are the same
 * layout with "%f" times): one line per call,
 *   MPI_Name:<start>:<argument>:...:<argument>:<end>
 * arguments in the order of the C prototype. Each is printed by its type:
 * pointers as addresses (buffers, statuses, flags, and requests: the address
 * of the MPI_Request variable, not the handle); ints as "%li"; a datatype as
 * "id,size,extent"; a communicator as "handle,rank in it,its size"; an op as
 * its number; the count arrays of the v-collectives (parameters declared
 * `int *sendcounts`...) as "address:c0,c1,..." with one count per rank of
 * the communicator. Times are MPI_Wtime() x 1e6 (microseconds), "-" for
 * MPI_Init's start and MPI_Finalize's end. Header lines start with '#':
 * "# host: NAME", "# Init clockdiff: MICROSECONDS" (to rank 0),
 * "# Finalize clockdiff: ...".
 *
 * How it is read follows Schedgen's process_trace.cpp (src/Schedgen): bytes
 * are count x datatype size; -1 as a source or tag is MPI_ANY_SOURCE /
 * MPI_ANY_TAG and -2 as a peer is MPI_PROC_NULL (Open MPI's values, the MPI
 * of the recordings); a request is the address it was written to: an
 * Isend/Irecv there opens a new request id, a Wait on it closes it, a wait on
 * an address with no open request is a wait on MPI_REQUEST_NULL (request -1);
 * the requests of a Waitall/Testall/...any/...some are the open ones at
 * base + 8 k, k < count (Schedgen's req_size = 8), in array order, and only
 * Wait/Waitall close them (liballprof records neither flags nor indices).
 * Statuses are not recorded: source and source_tag stay unknown.
 *
 * Communicators: liballprof records no members, only each rank's handle,
 * rank and size; liballprof_comms.c finds the members once every rank is
 * read. The table of calls and their arguments is liballprof_calls.c.
 *
 * Times become picoseconds from the rank's first recorded time, computed from
 * the integer microseconds and up to 6 decimals exactly (the epoch value in
 * ps does not fit 64 bits). Calls that are not simulated (Comm_rank, Wtime,
 * Type_*, persistent requests, Comm_free...) and unknown MPI_ names are
 * FS_CALL_OTHER with their times: only their times are checked. */
#include "trace/trace_readers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/text_input.h"
#include "trace/liballprof.h"
#include "trace/request_map.h"

#define MAX_COMMS_PER_RANK 1024 /* distinct (handle, rank, size) triples */
#define REQUEST_SIZE 8          /* bytes per MPI_Request in a request array (Schedgen's req_size) */
#define MAX_ARGUMENTS 16
#define PS_PER_US INT64_C(1000000)
#define MAX_US \
  (FS_TRACE_TIME_LIMIT / PS_PER_US - 1) /* the time limit, 2^62 ps (53 days), less one us */

typedef struct found_request {
  int64_t position; /* in the array */
  int32_t id;
} found_request;

/* The arguments of one call as parsed, before they become an fs_call. */
typedef struct arguments {
  fs_time start, end;
  size_t start_column, end_column;
  int64_t count[3];
  int32_t counts;
  int64_t type_size[3];
  int32_t types;
  int32_t peer[2], peers;
  size_t peer_column[2];
  int32_t tag[2], tags;
  int32_t root;
  size_t root_column;
  int32_t comm; /* local comm index, -1 none */
  int32_t comm_rank, comm_size;
  uint64_t request; /* request address, or the base of a request array */
  int64_t request_count;
  size_t list_at[4], list_length[4], list_column[4];
  int32_t lists;
} arguments;

typedef struct reader {
  fs_text_input *in;
  fs_error *err;
  fs_trace *t;
  int32_t rank;
  const char *line;
  size_t length, at;
  const char *name; /* the call being read */
  size_t name_length;
  int have_origin;
  int64_t origin_us;
  fs_time last_time;
  int has_init, has_finalize; /* of the file being read */
  int64_t calls;
  rank_comms *comms; /* per rank */
  fs_request_map requests;
  int32_t next_request;
  int64_t *values; /* count lists of the line being read */
  size_t values_used, values_capacity;
  found_request *found;
  size_t found_capacity;
} reader;

/* ---- errors ---- */

#define fail(r, column, ...) \
  fs_text_input_error((r)->in, (int64_t)(column) + 1, (r)->err, __VA_ARGS__)

/* The field at `column` quoted for a message, up to the next ':' or ','. */
static const char *show(const reader *r, size_t column, char buffer[FS_TEXT_QUOTED_SIZE]) {
  if (column > r->length) column = r->length;
  size_t n = 0;
  while (column + n < r->length && r->line[column + n] != ':' && r->line[column + n] != ',') n++;
  if (n == 0 && column < r->length) n = 1; /* the separator itself */
  return fs_text_quoted(r->line + column, n, r->line + r->length, buffer);
}

static int expected(reader *r, size_t column, const char *what) {
  char shown[FS_TEXT_QUOTED_SIZE];
  return fail(r, column, "expected %s (got %s)", what, show(r, column, shown));
}

static int out_of_memory(reader *r) { return fail(r, 0, "out of memory"); }

/* ---- numbers and separators ---- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Digits at the cursor as an unsigned 64-bit value; 0 when there are none
 * or they overflow. */
static int parse_digits(reader *r, uint64_t *value) {
  if (r->at >= r->length) return 0;
  size_t n = fs_text_digits(r->line + r->at, r->length - r->at, value);
  r->at += n;
  return n > 0;
}

/* An optionally negative integer in [min, max]. */
static int parse_integer(reader *r, int64_t min, int64_t max, int64_t *value) {
  size_t start = r->at;
  int negative = r->at < r->length && r->line[r->at] == '-';
  uint64_t magnitude;
  r->at += (size_t)negative;
  if (!parse_digits(r, &magnitude) || magnitude > (uint64_t)INT64_MAX) {
    r->at = start;
    return 0;
  }
  int64_t v = negative ? -(int64_t)magnitude : (int64_t)magnitude;
  if (v < min || v > max) {
    r->at = start;
    return 0;
  }
  *value = v;
  return 1;
}

static int read_integer(reader *r, int64_t min, int64_t max, const char *what, int64_t *value) {
  return parse_integer(r, min, max, value) ? 0 : expected(r, r->at, what);
}

/* Any integer that fits 64 bits, signed or not (handles, ids, extents). */
static int read_any_integer(reader *r, const char *what, uint64_t *value) {
  size_t start = r->at;
  int negative = r->at < r->length && r->line[r->at] == '-';
  r->at += (size_t)negative;
  if (!parse_digits(r, value) || (negative && *value > (uint64_t)INT64_MAX + 1)) {
    r->at = start;
    return expected(r, start, what);
  }
  if (negative) *value = (uint64_t)0 - *value;
  return 0;
}

static int read_address(reader *r, const char *what, uint64_t *value) {
  return parse_digits(r, value) ? 0 : expected(r, r->at, what);
}

static int accept_char(reader *r, char c) {
  if (r->at < r->length && r->line[r->at] == c) {
    r->at++;
    return 1;
  }
  return 0;
}

static int need_comma(reader *r, const char *what) {
  return accept_char(r, ',') ? 0 : expected(r, r->at, what);
}

/* ":" before the next argument of the call. */
static int need_colon(reader *r) {
  if (accept_char(r, ':')) return 0;
  char what[96];
  snprintf(what, sizeof what, "':' and the next argument of %.*s", (int)r->name_length, r->name);
  return expected(r, r->at, what);
}

/* A time: "-" (not recorded) or microseconds with up to 6 decimals; *time
 * is -1 for "-". The first time of a rank is its origin. */
static int read_time(reader *r, fs_time *time) {
  static const char *what = "a time in microseconds ('1237666046950106.000000') or '-'";
  size_t start = r->at;
  if (r->at < r->length && r->line[r->at] == '-' &&
      (r->at + 1 == r->length || r->line[r->at + 1] == ':')) {
    r->at++;
    *time = -1;
    return 0;
  }
  uint64_t us;
  if (!parse_digits(r, &us) || us > (uint64_t)INT64_MAX) return expected(r, start, what);
  int64_t fraction = 0, scale = PS_PER_US;
  if (accept_char(r, '.')) {
    size_t digits = r->at;
    while (r->at < r->length && is_digit(r->line[r->at])) {
      if (r->at - digits == 6)
        return expected(r, start, "a time with at most 6 decimals (picoseconds)");
      scale /= 10;
      fraction += (r->line[r->at++] - '0') * scale;
    }
    if (r->at == digits) return expected(r, start, what);
  }
  if (!r->have_origin) {
    r->have_origin = 1;
    r->origin_us = (int64_t)us;
  }
  int64_t delta = (int64_t)us - r->origin_us;
  if (delta > MAX_US)
    return expected(r, start, "a time within 2^62 ps (53 days) of the rank's first time");
  if (delta < 0) return expected(r, start, "a time no earlier than the rank's first time");
  *time = delta * PS_PER_US + fraction;
  return 0;
}

/* ---- communicators ---- */

static int note_comm(reader *r, uint64_t handle, int32_t rank, int32_t size, size_t column,
                     int32_t *local) {
  rank_comms *rc = &r->comms[r->rank];
  for (int32_t i = rc->count - 1; i >= 0; i--)
    if (rc->use[i].handle == handle && rc->use[i].rank == rank && rc->use[i].size == size) {
      *local = i;
      return 0;
    }
  if (rc->count == MAX_COMMS_PER_RANK)
    return fail(r, column, "expected at most %d different communicators per rank",
                MAX_COMMS_PER_RANK);
  if (rc->count == rc->capacity) {
    int32_t capacity = rc->capacity ? rc->capacity * 2 : 8;
    comm_use *use = realloc(rc->use, (size_t)capacity * sizeof *use);
    if (!use) return out_of_memory(r);
    rc->use = use;
    rc->capacity = capacity;
  }
  rc->use[rc->count] =
      (comm_use){handle, rank, size, fs_text_input_line_number(r->in), (int64_t)column + 1, -1};
  *local = rc->count++;
  return 0;
}

/* handle,rank,size */
static int read_comm(reader *r, arguments *a) {
  uint64_t handle;
  int64_t rank, size;
  size_t column = r->at;
  char what[120];
  if (read_any_integer(r, "a communicator 'handle,rank,size'", &handle) ||
      need_comma(r, "',' and the rank in the communicator"))
    return -1;
  /* the rank is checked on its own ("a size from 8 to 2" would name no
   * size); messages are formatted only on failure */
  if (!parse_integer(r, 0, r->t->ranks - 1, &rank)) {
    snprintf(what, sizeof what,
             "the rank in the communicator, from 0 to %d (the trace has %d ranks)",
             (int)r->t->ranks - 1, (int)r->t->ranks);
    return expected(r, r->at, what);
  }
  if (need_comma(r, "',' and the size of the communicator")) return -1;
  if (!parse_integer(r, rank + 1, r->t->ranks, &size)) {
    snprintf(what, sizeof what,
             "a communicator size from %lld (above the rank in it) to %d (the ranks of the trace)",
             (long long)rank + 1, (int)r->t->ranks);
    return expected(r, r->at, what);
  }
  a->comm_rank = (int32_t)rank;
  a->comm_size = (int32_t)size;
  return note_comm(r, handle, (int32_t)rank, (int32_t)size, column, &a->comm);
}

/* ---- arguments ---- */

static int read_datatype(reader *r, arguments *a) {
  uint64_t ignored;
  int64_t size;
  if (read_any_integer(r, "a datatype 'id,size,extent'", &ignored) ||
      need_comma(r, "',' and the size of the datatype") ||
      read_integer(r, 0, INT32_MAX, "a datatype size in bytes, from 0 to 2147483647", &size) ||
      need_comma(r, "',' and the extent of the datatype") ||
      read_any_integer(r, "a datatype extent (an integer)", &ignored))
    return -1;
  if (a->types < 3) a->type_size[a->types++] = size;
  return 0;
}

static int grow_values(reader *r) {
  if (r->values_used < r->values_capacity) return 0;
  size_t capacity = r->values_capacity ? r->values_capacity * 2 : 64;
  int64_t *values = realloc(r->values, capacity * sizeof *values);
  if (!values) return out_of_memory(r);
  r->values = values;
  r->values_capacity = capacity;
  return 0;
}

/* "address:c0,c1,..."; the length is checked once the communicator is known. */
static int read_count_list(reader *r, arguments *a, int optional, size_t fields_left) {
  uint64_t ignored;
  if (read_address(r, "the address of a count array", &ignored)) return -1;
  /* the "int recvcounts[]" form prints the address alone: then only the
   * arguments still due and the end time follow */
  size_t colons = 0;
  for (size_t i = r->at; i < r->length; i++) colons += r->line[i] == ':';
  if (optional && colons == fields_left) return 0;
  if (need_colon(r)) return -1;
  size_t column = r->at, first = r->values_used;
  do {
    int64_t value = 0;
    if (read_integer(r, INT32_MIN, INT32_MAX, "a count (a list 'c0,c1,...' per rank)", &value) ||
        grow_values(r))
      return -1;
    r->values[r->values_used++] = value;
  } while (accept_char(r, ','));
  if (a->lists < 4) {
    a->list_at[a->lists] = first;
    a->list_length[a->lists] = r->values_used - first;
    a->list_column[a->lists++] = column;
  }
  return 0;
}

static int read_peer(reader *r, arguments *a, int source) {
  int64_t peer;
  size_t column = r->at;
  if (read_integer(r, -2, INT32_MAX,
                   source ? "a source rank, -1 (MPI_ANY_SOURCE) or -2 (MPI_PROC_NULL)"
                          : "a destination rank or -2 (MPI_PROC_NULL)",
                   &peer))
    return -1;
  if (!source && peer == -1) return expected(r, column, "a destination rank or -2 (MPI_PROC_NULL)");
  a->peer[a->peers] = peer == -1 ? FS_TRACE_ANY : peer == -2 ? FS_TRACE_PROC_NULL : (int32_t)peer;
  a->peer_column[a->peers++] = column;
  return 0;
}

static int read_tag(reader *r, arguments *a, int any) {
  int64_t tag;
  if (read_integer(r, any ? -1 : 0, INT32_MAX,
                   any ? "a tag from 0 to 2147483647 or -1 (MPI_ANY_TAG)"
                       : "a tag from 0 to 2147483647",
                   &tag))
    return -1;
  a->tag[a->tags++] = tag == -1 ? FS_TRACE_ANY : (int32_t)tag;
  return 0;
}

static int read_argument(reader *r, arguments *a, char letter, size_t fields_left) {
  uint64_t ignored;
  int64_t value;
  switch (letter) {
    case 'b': return read_address(r, "an address (an unsigned integer)", &ignored);
    case 'r': return read_address(r, "the address of a request (an unsigned integer)", &a->request);
    case 'a':
      return read_address(r, "the address of a request array (an unsigned integer)", &a->request);
    case 'i': return read_any_integer(r, "an integer", &ignored);
    case 'o': return read_any_integer(r, "a reduction operation (an integer)", &ignored);
    case 'n':
      if (read_integer(r, 0, INT32_MAX, "a count from 0 to 2147483647", &value)) return -1;
      if (a->counts < 3) a->count[a->counts++] = value;
      return 0;
    case 'q':
      return read_integer(r, 0, INT32_MAX, "a request count from 0 to 2147483647",
                          &a->request_count);
    case 'd': return read_datatype(r, a);
    case 'D': return read_peer(r, a, 0);
    case 'S': return read_peer(r, a, 1);
    case 't': return read_tag(r, a, 0);
    case 'T': return read_tag(r, a, 1);
    case 'c': return read_comm(r, a);
    case 'R':
      a->root_column = r->at;
      if (read_integer(r, 0, INT32_MAX, "a root rank", &value)) return -1;
      a->root = (int32_t)value;
      return 0;
    case 'v': return read_count_list(r, a, 0, fields_left);
    case 'w': return read_count_list(r, a, 1, fields_left);
  }
  return fail(r, r->at, "internal error: argument letter '%c'", letter);
}

/* Peers, roots and count lists against the communicator's size. */
static int check_ranks(reader *r, const arguments *a) {
  char what[96];
  for (int32_t i = 0; i < a->peers; i++)
    if (a->peer[i] >= a->comm_size) {
      snprintf(what, sizeof what, "a rank below %d, the size of the communicator",
               (int)a->comm_size);
      return expected(r, a->peer_column[i], what);
    }
  if (a->root >= a->comm_size) {
    snprintf(what, sizeof what, "a root below %d, the size of the communicator", (int)a->comm_size);
    return expected(r, a->root_column, what);
  }
  for (int32_t i = 0; i < a->lists; i++)
    if (a->list_length[i] != (size_t)a->comm_size)
      return fail(r, a->list_column[i],
                  "expected %d counts, one per rank of the communicator (got %zu)",
                  (int)a->comm_size, a->list_length[i]);
  return 0;
}

/* ---- requests ---- */

static int compare_found(const void *x, const void *y) {
  const found_request *a = x, *b = y;
  return (a->position > b->position) - (a->position < b->position);
}

/* The open requests in the array at a->request of a->request_count entries,
 * in array order, into the list pool; closed when `close`. */
static int array_requests(reader *r, fs_call *c, const arguments *a, int close) {
  fs_request_map *m = &r->requests;
  size_t found = 0, most = (size_t)(a->request_count < m->used ? a->request_count : m->used);
  if (most > r->found_capacity) {
    found_request *bigger = realloc(r->found, most * sizeof *bigger);
    if (!bigger) return out_of_memory(r);
    r->found = bigger;
    r->found_capacity = most;
  }
  if (a->request_count <= m->used) { /* look each entry up */
    for (int64_t k = 0; k < a->request_count; k++) {
      int32_t id = fs_request_map_find(m, a->request + (uint64_t)k * REQUEST_SIZE);
      if (id >= 0) r->found[found++] = (found_request){k, id};
    }
  } else { /* fewer open requests than entries: walk the open ones */
    for (int64_t i = 0; i < m->capacity; i++) {
      uint64_t offset = m->address[i] - a->request;
      if (m->id[i] >= 0 && offset % REQUEST_SIZE == 0 &&
          offset / REQUEST_SIZE < (uint64_t)a->request_count)
        r->found[found++] = (found_request){(int64_t)(offset / REQUEST_SIZE), m->id[i]};
    }
    if (found > 1)
      qsort(r->found, found, sizeof *r->found, compare_found); /* none: r->found may be NULL */
  }
  int64_t ids[64];
  for (size_t i = 0; i < found;) { /* in slices: no allocation per call */
    int32_t n = 0;
    for (; i < found && n < 64; i++, n++) {
      ids[n] = r->found[i].id;
      if (close)
        fs_request_map_close(m, a->request + (uint64_t)r->found[i].position * REQUEST_SIZE);
    }
    int32_t at = fs_trace_add_list(r->t, r->rank, ids, n);
    if (at < 0) return out_of_memory(r);
    if (c->list_count == 0) c->list_at = at;
    c->list_count += n;
  }
  return 0;
}

/* ---- lines to calls ---- */

static int64_t list_value(const reader *r, const arguments *a, int list, int32_t i) {
  return r->values[a->list_at[list] + (size_t)i];
}

/* v-collectives: per-rank send bytes then receive bytes in the pool. */
static int add_count_lists(reader *r, fs_call *c, const arguments *a, int send_list, int recv_list,
                           int64_t send_type, int64_t recv_type) {
  int32_t size = a->comm_size, me = a->comm_rank;
  int root = c->kind == FS_CALL_GATHERV || c->kind == FS_CALL_SCATTERV;
  while (r->values_capacity < r->values_used + (size_t)size * 2) { /* room after the line's lists */
    size_t used = r->values_used;
    r->values_used = r->values_capacity;
    int status = grow_values(r);
    r->values_used = used;
    if (status) return -1;
  }
  int64_t *bytes = r->values + r->values_used;
  c->bytes = c->recv_bytes = 0;
  for (int32_t i = 0; i < size; i++) {
    int64_t send = 0, receive = 0;
    if (send_list >= 0) {
      if (!root || me == a->root) send = list_value(r, a, send_list, i) * send_type;
    } else if (!root || i == a->root) {
      send = a->count[0] * send_type; /* allgatherv, gatherv: one block to each / to the root */
    }
    if (recv_list >= 0) {
      if (!root || me == a->root) receive = list_value(r, a, recv_list, i) * recv_type;
    } else if (!root || i == a->root) {
      receive = a->count[0] * recv_type; /* scatterv: one block from the root */
    }
    if (send < 0 || receive < 0)
      return fail(r, a->list_column[send < 0 ? send_list : recv_list],
                  "expected counts of at least 0");
    bytes[i] = send;
    bytes[size + i] = receive;
    c->bytes += send; /* each below 2^62 (31-bit counts and sizes): no overflow */
    c->recv_bytes += receive;
    if (c->bytes > FS_TRACE_SIZE_LIMIT || c->recv_bytes > FS_TRACE_SIZE_LIMIT)
      return fail(r,
                  a->list_column[c->bytes > FS_TRACE_SIZE_LIMIT
                                     ? (send_list >= 0 ? send_list : recv_list)
                                     : (recv_list >= 0 ? recv_list : send_list)],
                  "expected counts whose bytes add up to at most " FS_TRACE_SIZE_LIMIT_TEXT
                  " (2^62)");
  }
  int32_t at = fs_trace_add_list(r->t, r->rank, bytes, size * 2);
  if (at < 0) return out_of_memory(r);
  c->list_at = at;
  c->list_count = size * 2;
  return 0;
}

static int fill_requests(reader *r, fs_call *c, const arguments *a) {
  switch (c->kind) {
    case FS_CALL_ISEND:
    case FS_CALL_ISSEND:
    case FS_CALL_IBSEND:
    case FS_CALL_IRSEND:
    case FS_CALL_IRECV:
      c->request = r->next_request++;
      return fs_request_map_open(&r->requests, a->request, c->request) ? out_of_memory(r) : 0;
    case FS_CALL_WAIT:
      c->request = fs_request_map_find(&r->requests, a->request);
      fs_request_map_close(&r->requests, a->request);
      return 0;
    case FS_CALL_TEST: c->request = fs_request_map_find(&r->requests, a->request); return 0;
    default: return array_requests(r, c, a, c->kind == FS_CALL_WAITALL);
  }
}

static int fill_call(reader *r, fs_call *c, const arguments *a) {
  int64_t message = a->counts && a->types ? a->count[0] * a->type_size[0] : 0;
  c->start = a->start;
  c->end = a->end;
  if (a->comm >= 0) c->comm = COMM_PENDING(a->comm);
  if (a->peers) c->peer = a->peer[0];
  if (a->tags) c->tag = a->tag[0];
  switch (c->kind) {
    case FS_CALL_SEND:
    case FS_CALL_SSEND:
    case FS_CALL_BSEND:
    case FS_CALL_RSEND:
    case FS_CALL_ISEND:
    case FS_CALL_ISSEND:
    case FS_CALL_IBSEND:
    case FS_CALL_IRSEND: c->bytes = message; break;
    case FS_CALL_RECV:
    case FS_CALL_IRECV:
    case FS_CALL_SENDRECV_REPLACE: c->bytes = c->recv_bytes = message; break;
    case FS_CALL_SENDRECV:
      c->bytes = message;
      c->recv_peer = a->peer[1];
      c->recv_tag = a->tag[1];
      c->recv_bytes = a->count[1] * a->type_size[1];
      break;
    case FS_CALL_BCAST:
    case FS_CALL_ALLREDUCE:
    case FS_CALL_SCAN:
    case FS_CALL_EXSCAN:
    case FS_CALL_REDUCE_SCATTER_BLOCK:
      c->bytes = c->recv_bytes = message;
      c->root = c->kind == FS_CALL_BCAST ? a->root : FS_TRACE_UNKNOWN;
      break;
    case FS_CALL_REDUCE:
      c->root = a->root;
      c->bytes = message;
      c->recv_bytes = a->comm_rank == a->root ? message : 0;
      break;
    case FS_CALL_GATHER:
    case FS_CALL_SCATTER:
    case FS_CALL_ALLGATHER:
    case FS_CALL_ALLTOALL:
      c->root = c->kind == FS_CALL_GATHER || c->kind == FS_CALL_SCATTER ? a->root
                                                                        : FS_TRACE_UNKNOWN;
      c->bytes = message;
      c->recv_bytes = a->count[1] * a->type_size[1];
      break;
    case FS_CALL_REDUCE_SCATTER:
      if (a->lists) {
        if (add_count_lists(r, c, a, 0, 0, a->type_size[0], a->type_size[0])) return -1;
        c->recv_bytes = list_value(r, a, 0, a->comm_rank) * a->type_size[0];
      }
      break;
    case FS_CALL_GATHERV:
      c->root = a->root;
      return add_count_lists(r, c, a, -1, 0, a->type_size[0], a->type_size[1]);
    case FS_CALL_SCATTERV:
      c->root = a->root;
      return add_count_lists(r, c, a, 0, -1, a->type_size[0], a->type_size[1]);
    case FS_CALL_ALLGATHERV:
      if (add_count_lists(r, c, a, -1, 0, a->type_size[0], a->type_size[1])) return -1;
      c->bytes = message; /* its contribution: one block, to every rank */
      return 0;
    case FS_CALL_ALLTOALLV: return add_count_lists(r, c, a, 0, 2, a->type_size[0], a->type_size[1]);
    case FS_CALL_WAIT:
    case FS_CALL_TEST:
    case FS_CALL_WAITALL:
    case FS_CALL_WAITANY:
    case FS_CALL_WAITSOME:
    case FS_CALL_TESTALL:
    case FS_CALL_TESTANY:
    case FS_CALL_TESTSOME: return fill_requests(r, c, a);
    default: break;
  }
  if (c->kind >= FS_CALL_ISEND && c->kind <= FS_CALL_IRECV) return fill_requests(r, c, a);
  return 0;
}

static fs_time time_or(fs_time time, fs_time other) { return time >= 0 ? time : other; }

/* Sets absent times: "-" takes the other time of the call, or the last one. */
static void settle_times(reader *r, arguments *a) {
  if (a->start < 0 && a->end < 0) a->start = a->end = r->last_time;
  a->start = time_or(a->start, a->end);
  a->end = time_or(a->end, a->start);
  r->last_time = a->end;
}

/* Both times of a call whose arguments are not read. */
static int read_other(reader *r, arguments *a) {
  a->start_column = r->at;
  if (read_time(r, &a->start)) return -1;
  size_t last = r->length;
  while (last > r->at && r->line[last - 1] != ':') last--;
  if (last == r->at) {
    char what[96];
    snprintf(what, sizeof what, "':' and the end time of %.*s", (int)r->name_length, r->name);
    if (r->at < r->length && r->line[r->at] != ':')
      return expected(r, r->at, "':' after the start time");
    return expected(r, r->at, what);
  }
  if (r->at < r->length && r->line[r->at] != ':')
    return expected(r, r->at, "':' after the start time");
  r->at = last;
  a->end_column = r->at;
  return read_time(r, &a->end);
}

/* Init at most once, as the first call; nothing after Finalize; times that
 * never go back (a call starts no earlier than the previous one ended). */
static int check_order(reader *r, const arguments *a, const call_form *form) {
  fs_call_kind kind = form ? form->kind : FS_CALL_OTHER;
  if (r->has_finalize) return expected(r, 0, "the end of the file after MPI_Finalize");
  if (kind == FS_CALL_INIT && (r->has_init || r->calls > 0))
    return expected(r, 0, r->has_init ? "one MPI_Init only" : "MPI_Init only as the first call");
  if (a->start >= 0 && a->start < r->last_time)
    return expected(r, a->start_column,
                    "a start time no earlier than the end of the previous call");
  if (a->end >= 0 && a->end < (a->start >= 0 ? a->start : r->last_time))
    return expected(r, a->end_column, "an end time no earlier than the start of the call");
  r->has_init |= kind == FS_CALL_INIT;
  r->has_finalize = kind == FS_CALL_FINALIZE;
  r->calls++;
  return 0;
}

static int read_call(reader *r) {
  size_t n = 4;
  while (n < r->length && r->line[n] != ':') n++;
  r->name = r->line;
  r->name_length = n;
  r->at = n;
  if (n == r->length) return expected(r, n, "':' and the start time after the call's name");
  r->at++;
  const call_form *form = fs_liballprof_form(r->line, n);
  arguments a = {.comm = -1, .root = -1};
  r->values_used = 0;
  if (!form) {
    if (read_other(r, &a)) return -1;
  } else {
    size_t fields = strlen(form->arguments);
    a.start_column = r->at;
    if (read_time(r, &a.start)) return -1;
    for (size_t i = 0; i < fields; i++)
      if (need_colon(r) || read_argument(r, &a, form->arguments[i], fields - i)) return -1;
    if (!accept_char(r, ':')) {
      char what[96];
      snprintf(what, sizeof what, "':' and the end time of %.*s", (int)n, r->name);
      return expected(r, r->at, what);
    }
    a.end_column = r->at;
    if (read_time(r, &a.end)) return -1;
    if (r->at != r->length) return expected(r, r->at, "the end of the line after the end time");
    if (a.comm >= 0 && check_ranks(r, &a)) return -1;
  }
  if (check_order(r, &a, form)) return -1;
  settle_times(r, &a);
  fs_call *c = fs_trace_add_call(r->t, r->rank, form ? form->kind : FS_CALL_OTHER);
  if (!c) return out_of_memory(r);
  c->line = (uint32_t)(fs_text_input_line_number(r->in) > UINT32_MAX
                           ? 0
                           : fs_text_input_line_number(r->in));
  return fill_call(r, c, &a);
}

/* ---- headers ---- */

/* A signed decimal number of microseconds (clock differences) into ps. */
static int read_offset(reader *r, fs_time *offset) {
  static const char *what = "a clock difference in microseconds ('-1856.565475')";
  size_t start = r->at;
  int negative = accept_char(r, '-');
  uint64_t us;
  if (!parse_digits(r, &us) || us > (uint64_t)MAX_US) return expected(r, start, what);
  int64_t ps = (int64_t)us * PS_PER_US, scale = PS_PER_US;
  if (accept_char(r, '.')) {
    size_t digits = r->at;
    while (r->at < r->length && is_digit(r->line[r->at])) {
      if (r->at - digits == 6)
        return expected(r, start, "a clock difference with at most 6 decimals");
      scale /= 10;
      ps += (r->line[r->at++] - '0') * scale;
    }
    if (r->at == digits) return expected(r, start, what);
  }
  while (r->at < r->length && (r->line[r->at] == ' ' || r->line[r->at] == '\t')) r->at++;
  if (r->at != r->length)
    return expected(r, r->at, "the end of the line after the clock difference");
  *offset = negative ? -ps : ps;
  return 0;
}

static int starts_with(const reader *r, const char *text) {
  size_t n = strlen(text);
  return r->length >= n && memcmp(r->line, text, n) == 0;
}

static int read_header(reader *r) {
  fs_time offset;
  if (starts_with(r, "# host: ")) {
    char host[256];
    size_t n = r->length - 8 < sizeof host - 1 ? r->length - 8 : sizeof host - 1;
    memcpy(host, r->line + 8, n);
    host[n] = 0;
    return fs_trace_set_host(r->t, r->rank, host) ? out_of_memory(r) : 0;
  }
  if (starts_with(r, "# Init clockdiff: ")) {
    r->at = 18;
    if (read_offset(r, &offset)) return -1;
    r->t->rank[r->rank].clock_offset = offset;
    return 0;
  }
  if (starts_with(r, "# Finalize clockdiff: ")) {
    r->at = 22;
    return read_offset(r, &offset);
  }
  return 0; /* other header lines are comments */
}

/* ---- files ---- */

static int read_rank(reader *r, const char *path) {
  if (!(r->in = fs_text_input_open_file(path, r->err))) return -1;
  if (fs_trace_set_file(r->t, r->rank, path)) {
    fs_text_input_close(r->in);
    return fs_error_set(r->err, "%s: out of memory", path);
  }
  r->have_origin = 0;
  r->last_time = 0;
  r->has_init = r->has_finalize = 0;
  r->calls = 0;
  fs_request_map_clear(&r->requests);
  r->next_request = 0;
  int status;
  while ((status = fs_text_input_next_line(r->in, &r->line, &r->length, r->err)) == 1) {
    r->at = 0;
    if (r->length == 0) continue;
    if (r->line[0] == '#') {
      if (read_header(r)) break;
    } else if (r->length < 4 || memcmp(r->line, "MPI_", 4) != 0) {
      expected(r, 0, "a '#' header line or an MPI call 'MPI_Name:start:...:end'");
      break;
    } else if (read_call(r)) {
      break;
    }
  }
  if (status == 0 && !r->has_finalize)
    status = fs_text_error_at(r->err, path, fs_text_input_line_number(r->in) + 1, 1,
                              "expected %s (got end of file)",
                              r->calls ? "MPI_Finalize, the last call"
                                       : "MPI calls, the first MPI_Init, the last MPI_Finalize");
  fs_text_input_close(r->in);
  r->in = NULL;
  return status == 0 ? 0 : -1;
}

fs_trace *fs_liballprof_read(const char *const *paths, int count, fs_error *err) {
  if (count < 1) {
    fs_error_set(err, "a liballprof trace needs at least one file (pmpi-trace-rank-0.txt)");
    return NULL;
  }
  reader r = {.err = err, .t = fs_trace_new(count)};
  r.comms = calloc((size_t)count, sizeof *r.comms);
  int status = -1;
  if (!r.t || !r.comms) {
    fs_error_set(err, "%s: out of memory", paths[0]);
  } else {
    r.t->format = "liballprof";
    status = 0;
    for (r.rank = 0; r.rank < count && !status; r.rank++) status = read_rank(&r, paths[r.rank]);
    if (!status) status = fs_liballprof_resolve_comms(r.t, r.comms, err);
  }
  for (int32_t w = 0; r.comms && w < count; w++) free(r.comms[w].use);
  free(r.comms);
  fs_request_map_free(&r.requests);
  free(r.values);
  free(r.found);
  if (status) {
    fs_trace_free(r.t);
    return NULL;
  }
  return r.t;
}
