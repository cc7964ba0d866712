/* fennel_trace_reader.c: fennelsim's own trace format (docs/TRACES.md), as
 * tools/tracer writes it: per rank a header, `comm` definitions, and one
 * line per MPI call, "KIND START_NS END_NS key=value ...". Each key is
 * checked against its call's kind, and every communicator, peer, root and
 * request against what the file said above; a wait or test's statuses are
 * stored on the irecv they complete (trace.h). A collective line with req=
 * is a nonblocking collective (Iallreduce...): its request is made there. */
#include "trace/fennel_trace_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/fennel_trace_keys.h"
#include "trace/trace_readers.h"

#define MAX_NS \
  (FS_TRACE_TIME_LIMIT / FS_NS) /* times and offsets: the limit, 2^62 ps, in whole ns */
#define MAX_NS_TEXT "4611686018427387"

/* A key's value on the current line: a number, or a list in the scratch. */
typedef struct field {
  int64_t value;
  int32_t at, count; /* list entries (a status is three) */
  size_t column;     /* of the value, 0-based */
  size_t key_column;
} field;

/* The k-th collective call of a communicator as its first member (the
 * lowest rank) made it: every member's must give the same size. */
typedef struct instance {
  int64_t bytes; /* the size members must agree on; -1: a kind without one */
  uint32_t line;
  int32_t rank;
  uint8_t kind;
} instance;

typedef struct instance_list {
  instance *at;
  int64_t count, capacity;
} instance_list;

/* A request made on this rank: the call that made it (isend, irecv, a
 * nonblocking collective), and the last lines that listed and completed it
 * (a set membership per line). */
typedef struct request_slot {
  int32_t id; /* 0: empty */
  int64_t call, listed, completed;
} request_slot;

typedef struct fennel_reader {
  fs_trace *t;
  fs_error *err;
  fs_text_input *in;
  int32_t rank;
  const char *line;
  size_t length;
  int64_t line_number;
  /* per file */
  int has_rank, has_host, has_offset, has_init, has_finalize;
  fs_time last_end;
  request_slot *requests;
  int64_t request_count, request_capacity;
  uint8_t *defined_here; /* per trace communicator: defined in this file */
  int32_t defined_capacity;
  /* per trace */
  int64_t *origin_line; /* per trace communicator: where it was first defined */
  int32_t *origin_rank;
  int32_t origin_capacity;
  uint8_t *member_seen;     /* per world rank, for a comm line */
  int32_t *members;         /* the members of a comm line, world size at most */
  instance_list *instances; /* per trace communicator */
  int32_t instance_lists;
  int64_t *next_instance; /* per communicator: this file's collectives on it so far */
  size_t *size_column;    /* per collective call of this file with a size: its column */
  int64_t size_columns, size_column_capacity;
  /* per line */
  field fields[KEYS];
  uint32_t present;
  int64_t *values;
  size_t *columns;
  int64_t used, capacity;
} fennel_reader;

/* ---- characters, tokens, errors ---- */

static int is_blank(char c) { return c == ' ' || c == '\t'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static size_t skip_blanks(const fennel_reader *r, size_t at) {
  while (at < r->length && is_blank(r->line[at])) at++;
  return at;
}

static size_t word_end(const fennel_reader *r, size_t at) {
  while (at < r->length && !is_blank(r->line[at])) at++;
  return at;
}

#define fail(r, column, ...) \
  fs_text_input_error((r)->in, (int64_t)(column) + 1, (r)->err, __VA_ARGS__)

/* The token at column quoted for a message: up to a blank or one of ",:="
 * (at least one byte). */
static const char *show(const fennel_reader *r, size_t column, char buffer[FS_TEXT_QUOTED_SIZE]) {
  if (column > r->length) column = r->length;
  size_t n = 0;
  while (column + n < r->length && !is_blank(r->line[column + n]) &&
         !strchr(",:=", r->line[column + n]))
    n++;
  if (n == 0 && column < r->length) n = 1;
  return fs_text_quoted(r->line + column, n, r->line + r->length, buffer);
}

static int expected(fennel_reader *r, size_t column, const char *what) {
  char shown[FS_TEXT_QUOTED_SIZE];
  return fail(r, column, "expected %s (got %s)", what, show(r, column, shown));
}

static int out_of_memory(fennel_reader *r) { return fail(r, 0, "out of memory"); }

/* ---- numbers ---- */

/* The integer at *at in [min, max], followed by a blank, the end of the
 * line or one of `ends`; *at moves past it. -1 (at unchanged) if not. */
static int parse_integer(const fennel_reader *r, size_t *at, int64_t min, int64_t max,
                         const char *ends, int64_t *out) {
  const char *line = r->line;
  size_t i = *at, length = r->length;
  int negative = i < length && line[i] == '-';
  if (negative) i++;
  if (i >= length) return -1;
  uint64_t value = 0;
  size_t digits = fs_text_digits(line + i, length - i, &value);
  if (digits == 0) return -1;
  i += digits;
  if (i < length && !is_blank(line[i]) && !strchr(ends, line[i])) return -1;
  if (negative ? value > (uint64_t)INT64_MAX + 1 : value > (uint64_t)INT64_MAX) return -1;
  int64_t signed_value = negative ? (int64_t)(0 - value) : (int64_t)value;
  if (signed_value < min || signed_value > max) return -1;
  *out = signed_value;
  *at = i;
  return 0;
}

/* A whole-word integer at *at (after blanks), or the error with `what`. */
static int read_integer(fennel_reader *r, size_t *at, int64_t min, int64_t max, const char *what,
                        int64_t *out) {
  *at = skip_blanks(r, *at);
  return parse_integer(r, at, min, max, "", out) ? expected(r, *at, what) : 0;
}

static int at_end(fennel_reader *r, size_t at) {
  at = skip_blanks(r, at);
  return at == r->length ? 0 : expected(r, at, "end of line");
}

/* ---- scratch lists ---- */

static int push(fennel_reader *r, int64_t value, size_t column) {
  if (r->used == r->capacity) {
    int64_t capacity = r->capacity ? r->capacity * 2 : 256;
    int64_t *values = realloc(r->values, (size_t)capacity * sizeof *values);
    if (!values) return out_of_memory(r);
    r->values = values;
    size_t *columns = realloc(r->columns, (size_t)capacity * sizeof *columns);
    if (!columns) return out_of_memory(r);
    r->columns = columns;
    r->capacity = capacity;
  }
  r->values[r->used] = value;
  r->columns[r->used++] = column;
  return 0;
}

/* ---- requests: id -> the isend/irecv that made it ---- */

static request_slot *find_request(const fennel_reader *r, int64_t id) {
  if (!r->request_capacity || id < 1) return NULL;
  uint64_t mask = (uint64_t)r->request_capacity - 1;
  for (uint64_t i = ((uint64_t)id * 0x9E3779B97F4A7C15u) >> 20 & mask;; i = (i + 1) & mask) {
    if (r->requests[i].id == id) return &r->requests[i];
    if (r->requests[i].id == 0) return NULL;
  }
}

static int grow_requests(fennel_reader *r);

static int add_request(fennel_reader *r, int32_t id, int64_t call) {
  if ((r->request_count + 1) * 2 > r->request_capacity && grow_requests(r)) return -1;
  uint64_t mask = (uint64_t)r->request_capacity - 1;
  uint64_t i = ((uint64_t)id * 0x9E3779B97F4A7C15u) >> 20 & mask;
  while (r->requests[i].id) i = (i + 1) & mask;
  r->requests[i] = (request_slot){id, call, 0, 0};
  r->request_count++;
  return 0;
}

static int grow_requests(fennel_reader *r) {
  int64_t old_capacity = r->request_capacity, capacity = old_capacity ? old_capacity * 2 : 64;
  request_slot *old = r->requests;
  r->requests = calloc((size_t)capacity, sizeof *r->requests);
  if (!r->requests) {
    r->requests = old;
    return out_of_memory(r);
  }
  r->request_capacity = capacity;
  r->request_count = 0;
  for (int64_t i = 0; i < old_capacity; i++)
    if (old[i].id) {
      uint64_t mask = (uint64_t)capacity - 1,
               j = ((uint64_t)old[i].id * 0x9E3779B97F4A7C15u) >> 20 & mask;
      while (r->requests[j].id) j = (j + 1) & mask;
      r->requests[j] = old[i];
      r->request_count++;
    }
  free(old);
  return 0;
}

/* ---- communicators ---- */

/* Room for per-communicator tables up to the trace's count; -1 when out of memory. */
static int grow_comm_tables(fennel_reader *r) {
  int32_t need = r->t->comms;
  if (need <= r->origin_capacity) return 0;
  int32_t capacity = r->origin_capacity ? r->origin_capacity : 8;
  while (capacity < need) capacity *= 2;
  int64_t *lines = realloc(r->origin_line, (size_t)capacity * sizeof *lines);
  if (lines) r->origin_line = lines;
  int32_t *ranks = realloc(r->origin_rank, (size_t)capacity * sizeof *ranks);
  if (ranks) r->origin_rank = ranks;
  uint8_t *defined = realloc(r->defined_here, (size_t)capacity);
  if (defined) r->defined_here = defined;
  if (!lines || !ranks || !defined) return -1; /* the caller reports it */
  memset(r->defined_here + r->origin_capacity, 0, (size_t)(capacity - r->origin_capacity));
  for (int32_t c = r->origin_capacity; c < capacity; c++)
    r->origin_line[c] = -1, r->origin_rank[c] = 0;
  r->origin_capacity = capacity;
  return 0;
}

/* comm ID SIZE MEMBER...: after the keyword. */
static int read_comm_line(fennel_reader *r, size_t at) {
  int32_t world = r->t->ranks;
  int64_t id, size;
  char what[160];
  size_t id_column = skip_blanks(r, at);
  if (read_integer(r, &at, 2, INT64_MAX,
                   "a communicator id from 2 to 9223372036854775807 "
                   "(0 and 1 are MPI_COMM_WORLD and MPI_COMM_SELF)",
                   &id))
    return -1;
  snprintf(what, sizeof what, "a communicator size from 1 to %d (the world size)", (int)world);
  if (read_integer(r, &at, 1, world, what, &size)) return -1;
  int status = 0, self_member = 0;
  int32_t listed = 0;
  snprintf(what, sizeof what, "a world rank from 0 to %d, not listed before in this comm line",
           (int)world - 1);
  for (; listed < size && !status;) {
    int64_t member;
    at = skip_blanks(r, at);
    size_t column = at;
    if (at == r->length) {
      snprintf(what, sizeof what, "%lld world ranks, the members (got %d)", (long long)size,
               (int)listed);
      status = expected(r, at, what);
    } else if (parse_integer(r, &at, 0, world - 1, "", &member) || r->member_seen[member]) {
      status = expected(r, column, what);
    } else {
      r->member_seen[member] = 1;
      self_member |= member == r->rank;
      r->members[listed++] = (int32_t)member;
    }
  }
  for (int32_t k = 0; k < listed; k++) r->member_seen[r->members[k]] = 0;
  if (status || at_end(r, at)) return -1;
  if (!self_member) {
    snprintf(what, sizeof what, "a communicator that has rank %d among its members", (int)r->rank);
    return fail(r, id_column, "expected %s (comm %lld does not)", what, (long long)id);
  }
  int32_t index = fs_trace_define_comm(r->t, id, r->members, (int32_t)size);
  if (index == -1 || grow_comm_tables(r)) return index == -1 ? out_of_memory(r) : -1;
  if (index == -2) {
    int32_t first = fs_trace_find_comm(r->t, id);
    return fail(r, id_column, "expected the members that %s:%lld gives comm %lld",
                r->t->rank[r->origin_rank[first]].file, (long long)r->origin_line[first],
                (long long)id);
  }
  if (r->origin_line[index] < 0) {
    r->origin_rank[index] = r->rank;
    r->origin_line[index] = r->line_number;
  }
  r->defined_here[index] = 1;
  return 0;
}

/* The trace index of the communicator id in a field: predefined or
 * defined by a comm line above in this file. */
static int resolve_comm(fennel_reader *r, const field *f, int32_t *index) {
  if (f->value == 0 || f->value == 1) {
    *index = f->value == 0 ? FS_COMM_WORLD : FS_COMM_SELF;
    return 0;
  }
  int32_t found = fs_trace_find_comm(r->t, f->value);
  if (found < 0 || !r->defined_here[found])
    return expected(r, f->column, "a communicator defined by a comm line above (or 0, 1)");
  *index = found;
  return 0;
}

/* ---- key=value pairs ---- */

/* A comma-separated list of integers from the rule; may be empty. */
static int read_list(fennel_reader *r, size_t *at, const struct key_rule *rule, field *f) {
  f->at = (int32_t)r->used;
  if (*at == r->length || is_blank(r->line[*at])) return 0;
  for (;;) {
    int64_t value;
    size_t column = *at;
    if (parse_integer(r, at, rule->min, rule->max, ",", &value))
      return expected(r, column, rule->what);
    if (push(r, value, column)) return -1;
    f->count++;
    if (*at == r->length || r->line[*at] != ',') return 0;
    (*at)++;
  }
}

/* REQ:SOURCE:TAG,...: three entries each. */
static int read_statuses(fennel_reader *r, size_t *at, field *f) {
  f->at = (int32_t)r->used;
  if (*at == r->length || is_blank(r->line[*at])) return 0;
  static const char *const what[3] = {"a request id from 1 to 2147483647",
                                      "a source rank from 0 to 2147483647 or -3 (MPI_PROC_NULL)",
                                      "a tag from 0 to 2147483647 or -1 (MPI_PROC_NULL's)"};
  static const int64_t min[3] = {1, -3, -1};
  for (;;) {
    for (int part = 0; part < 3; part++) {
      int64_t value;
      size_t column = *at;
      if (parse_integer(r, at, min[part], INT32_MAX, part < 2 ? ":" : ",", &value))
        return expected(r, column, what[part]);
      if (push(r, value, column)) return -1;
      if (part < 2 && (*at == r->length || r->line[*at] != ':'))
        return expected(r, *at,
                        part == 0 ? "':' and the source after a status's request"
                                  : "':' and the tag after a status's source");
      if (part < 2) (*at)++;
    }
    f->count += 3;
    if (*at == r->length || r->line[*at] != ',') return 0;
    (*at)++;
  }
}

static int read_name(fennel_reader *r, size_t *at, const struct key_rule *rule) {
  size_t i = *at;
  if (i < r->length && is_name_start(r->line[i]))
    while (i < r->length && (is_name_start(r->line[i]) || is_digit(r->line[i]))) i++;
  if (i == *at || (i < r->length && !is_blank(r->line[i]))) return expected(r, *at, rule->what);
  *at = i;
  return 0;
}

/* "the keys of a send line: peer, tag, bytes, comm" for a wrong key. */
static int wrong_key(fennel_reader *r, fs_call_kind kind, size_t column) {
  uint32_t keys = fennel_kind_rules[kind].required | fennel_kind_rules[kind].optional;
  char what[300];
  int n =
      snprintf(what, sizeof what, keys ? "a key of %s (" : "end of line", fs_call_kind_name(kind));
  for (int k = 0, first = 1; k < KEYS && keys; k++)
    if (keys & BIT(k)) {
      n += snprintf(what + n, sizeof what - (size_t)n, "%s%s=", first ? "" : ", ",
                    fennel_key_rules[k].name);
      first = 0;
    }
  if (keys) snprintf(what + n, sizeof what - (size_t)n, ") or end of line");
  return expected(r, column, what);
}

/* The key=value pairs from at to the end of the line into r->fields. */
static int read_keys(fennel_reader *r, fs_call_kind kind, size_t at) {
  uint32_t allowed = fennel_kind_rules[kind].required | fennel_kind_rules[kind].optional;
  r->present = 0;
  r->used = 0;
  for (at = skip_blanks(r, at); at < r->length; at = skip_blanks(r, at)) {
    size_t start = at, end = at;
    while (end < r->length && !is_blank(r->line[end]) && r->line[end] != '=') end++;
    int k = 0;
    while (k < KEYS && (strlen(fennel_key_rules[k].name) != end - start ||
                        memcmp(fennel_key_rules[k].name, r->line + start, end - start) != 0))
      k++;
    if (k == KEYS || !(allowed & BIT(k)) || end == r->length || r->line[end] != '=')
      return wrong_key(r, kind, start);
    if (r->present & BIT(k))
      return fail(r, start, "expected each key once (got '%s' again)", fennel_key_rules[k].name);
    const struct key_rule *rule = &fennel_key_rules[k];
    field *f = &r->fields[k];
    *f = (field){.column = end + 1, .key_column = start};
    at = end + 1;
    int status = 0;
    if (rule->type == V_INTEGER)
      status = parse_integer(r, &at, rule->min, rule->max, "", &f->value)
                   ? expected(r, at, rule->what)
                   : 0;
    else if (rule->type == V_LIST)
      status = read_list(r, &at, rule, f);
    else if (rule->type == V_STATUS)
      status = read_statuses(r, &at, f);
    else
      status = read_name(r, &at, rule);
    if (status) return -1;
    if (at < r->length && !is_blank(r->line[at]))
      return expected(r, at, "a blank between key=value pairs");
    r->present |= BIT(k);
  }
  uint32_t missing = fennel_kind_rules[kind].required & ~r->present;
  for (int k = 0; k < KEYS; k++)
    if (missing & BIT(k))
      return fail(r, r->length, "expected %s= on a %s line (got end of line)",
                  fennel_key_rules[k].name, fs_call_kind_name(kind));
  return 0;
}

/* ---- checks against the communicator and the requests ---- */

/* The file's id of a trace communicator (world and self are -1, -2 in the trace). */
static int64_t comm_id(const fs_trace *t, int32_t comm) {
  return comm <= FS_COMM_SELF ? comm : t->comm[comm].id;
}

/* A rank of a field within [0, size), or -1 (any) / -3 (null) when allowed. */
static int check_rank(fennel_reader *r, int k, int32_t comm, int allow_any, int allow_null) {
  const field *f = &r->fields[k];
  int32_t size = r->t->comm[comm].size;
  if ((f->value >= 0 && f->value < size) || (f->value == FS_TRACE_ANY && allow_any) ||
      (f->value == FS_TRACE_PROC_NULL && allow_null))
    return 0;
  char what[200];
  snprintf(what, sizeof what, "a rank in [0, %d) of comm %lld%s%s", (int)size,
           (long long)comm_id(r->t, comm), allow_any ? ", -1 (any)" : "",
           allow_null ? ", -3 (MPI_PROC_NULL)" : "");
  return expected(r, f->column, what);
}

static int check_send_tag(fennel_reader *r, int k) {
  return r->fields[k].value >= 0 ? 0
                                 : expected(r, r->fields[k].column, "a tag from 0 to 2147483647");
}

/* A request a wait or test names: -1, -2, or one an isend/irecv or a
 * nonblocking collective made. */
static int check_waited(fennel_reader *r, int64_t id, size_t column) {
  if (id == -1 || id == FS_TRACE_UNKNOWN || find_request(r, id)) return 0;
  return expected(r, column,
                  "a request made by an isend, irecv or nonblocking collective above, -1 (null) or "
                  "-2 (not recorded)");
}

/* Marks the requests a completion call completed (stamp: this line). */
static int mark_completed(fennel_reader *r, int64_t id, size_t column) {
  request_slot *slot = find_request(r, id);
  if (!slot) return 0;
  if (slot->completed == r->line_number) return expected(r, column, "each request completed once");
  slot->completed = r->line_number;
  return 0;
}

/* status=REQ:SOURCE:TAG for receive requests this call completed: stored on
 * the irecv; the call keeps the last one too (wait, test, waitany...). */
static int apply_statuses(fennel_reader *r, fs_call *c) {
  const field *f = &r->fields[K_STATUS];
  fs_trace_rank *tr = &r->t->rank[r->rank];
  if (!(r->present & BIT(K_STATUS))) return 0;
  for (int32_t e = 0; e < f->count; e += 3) {
    int64_t id = r->values[f->at + e];
    request_slot *slot = find_request(r, id);
    size_t column = r->columns[f->at + e];
    if (!slot || slot->completed != r->line_number || tr->calls[slot->call].kind != FS_CALL_IRECV)
      return expected(r, column, "a receive request that this call completed");
    fs_call *receive = &tr->calls[slot->call];
    int32_t size = r->t->comm[receive->comm].size;
    int64_t source = r->values[f->at + e + 1], tag = r->values[f->at + e + 2];
    if (source >= size || (source < 0 && source != FS_TRACE_PROC_NULL)) {
      char what[160];
      snprintf(what, sizeof what,
               "a source in [0, %d), the size of the irecv's comm, or -3 (MPI_PROC_NULL)",
               (int)size);
      return expected(r, r->columns[f->at + e + 1], what);
    }
    receive->source = c->source = (int32_t)source;
    receive->source_tag = c->source_tag = (int32_t)tag;
  }
  return 0;
}

/* ---- calls ---- */

static int add_list(fennel_reader *r, int32_t at, int32_t count, int32_t *where) {
  /* an empty list may come before any value was read: no offset on NULL */
  int32_t got = fs_trace_add_list(r->t, r->rank, count ? r->values + at : NULL, count);
  if (got < 0) return out_of_memory(r);
  *where = got;
  return 0;
}

/* req= of an isend, irecv or nonblocking collective: a new request, made by c. */
static int make_request(fennel_reader *r, fs_call *c) {
  const field *f = &r->fields[K_REQ];
  if (!(r->present & BIT(K_REQ))) return 0;
  if (f->value < 1) return expected(r, f->column, "a request id from 1 to 2147483647");
  request_slot *made = find_request(r, f->value);
  if (made)
    return fail(r, f->column,
                "expected a request id not made before (got '%lld', made at line %lld)",
                (long long)f->value, (long long)r->t->rank[r->rank].calls[made->call].line);
  c->request = (int32_t)f->value;
  return add_request(r, c->request, r->t->rank[r->rank].count - 1);
}

static int point_to_point(fennel_reader *r, fs_call *c, fs_call_kind kind) {
  const field *f = r->fields;
  int receive = kind == FS_CALL_RECV || kind == FS_CALL_IRECV || kind == FS_CALL_PROBE ||
                kind == FS_CALL_IPROBE;
  if (check_rank(r, K_PEER, c->comm, receive, 1) || (!receive && check_send_tag(r, K_TAG)))
    return -1;
  c->peer = (int32_t)f[K_PEER].value;
  c->tag = (int32_t)f[K_TAG].value;
  if (r->present & BIT(K_BYTES)) c->bytes = f[K_BYTES].value;
  if (kind == FS_CALL_RECV || kind == FS_CALL_IRECV) c->recv_bytes = c->bytes;
  if (r->present & BIT(K_RPEER)) {
    if (check_rank(r, K_RPEER, c->comm, 1, 1)) return -1;
    c->recv_peer = (int32_t)f[K_RPEER].value;
    c->recv_tag = (int32_t)f[K_RTAG].value;
    c->recv_bytes = f[K_RBYTES].value;
  }
  if (kind == FS_CALL_IPROBE) c->flag = (int32_t)f[K_FLAG].value;
  if ((r->present & STATUS) && kind == FS_CALL_IPROBE && c->flag == 0)
    return expected(r, f[r->present & BIT(K_SOURCE) ? K_SOURCE : K_STAG].key_column,
                    "source= and stag= only with flag=1");
  if (r->present & BIT(K_SOURCE)) {
    if (check_rank(r, K_SOURCE, c->comm, 0, 1)) return -1;
    c->source = (int32_t)f[K_SOURCE].value;
  }
  if (r->present & BIT(K_STAG)) c->source_tag = (int32_t)f[K_STAG].value;
  return make_request(r, c);
}

static int completion(fennel_reader *r, fs_call *c, fs_call_kind kind) {
  const field *f = r->fields;
  int64_t stamp = r->line_number;
  if (r->present & BIT(K_FLAG)) c->flag = (int32_t)f[K_FLAG].value;
  int completes_all = kind == FS_CALL_WAIT || kind == FS_CALL_WAITALL ||
                      ((kind == FS_CALL_TEST || kind == FS_CALL_TESTALL) && c->flag == 1);
  if (r->present & BIT(K_REQ)) {
    if (check_waited(r, f[K_REQ].value, f[K_REQ].column)) return -1;
    c->request = (int32_t)f[K_REQ].value;
    if (completes_all && mark_completed(r, c->request, f[K_REQ].column)) return -1;
    return apply_statuses(r, c);
  }
  const field *list = &f[K_REQS];
  for (int32_t e = 0; e < list->count; e++) {
    int64_t id = r->values[list->at + e];
    size_t column = r->columns[list->at + e];
    if (check_waited(r, id, column)) return -1;
    request_slot *slot = find_request(r, id);
    if (slot && slot->listed == stamp) return expected(r, column, "each request listed once");
    if (slot) slot->listed = stamp;
    if (completes_all && mark_completed(r, id, column)) return -1;
  }
  if (add_list(r, list->at, list->count, &c->list_at)) return -1;
  c->list_count = list->count;
  if (r->present & BIT(K_INDEX)) {
    int64_t index = f[K_INDEX].value;
    char what[120];
    snprintf(what, sizeof what, "an index in [0, %d) of reqs= or -1 (none)", (int)list->count);
    if (index >= list->count || (index >= 0 && c->flag == 0)) {
      if (c->flag == 0) snprintf(what, sizeof what, "-1 (none) with flag=0");
      return expected(r, f[K_INDEX].column, what);
    }
    c->index = (int32_t)index;
    if (index >= 0 && mark_completed(r, r->values[list->at + index], f[K_INDEX].column)) return -1;
  }
  if (r->present & BIT(K_DONE)) {
    const field *done = &f[K_DONE];
    for (int32_t e = 0; e < done->count; e++) {
      request_slot *slot = find_request(r, r->values[done->at + e]);
      size_t column = r->columns[done->at + e];
      if (!slot || slot->listed != stamp) return expected(r, column, "a request of reqs=");
      if (mark_completed(r, slot->id, column)) return -1;
    }
    if (add_list(r, done->at, done->count, &c->completed_at)) return -1;
    c->completed_count = done->count;
  }
  return apply_statuses(r, c);
}

/* counts= and rcounts= (or rcounts= alone): one byte count per comm rank. */
static int check_vector(fennel_reader *r, int k, int32_t comm, int64_t *sum) {
  const field *f = &r->fields[k];
  int32_t size = r->t->comm[comm].size;
  if (f->count != size) {
    char what[120];
    snprintf(what, sizeof what, "%d byte counts, one per rank of the comm (got %d)", (int)size,
             (int)f->count);
    return fail(r, f->column, "expected %s", what);
  }
  *sum = 0;
  for (int32_t e = 0; e < f->count; e++) {
    int64_t v = r->values[f->at + e];
    if (*sum > FS_TRACE_SIZE_LIMIT - v)
      return expected(r, r->columns[f->at + e],
                      "byte counts whose sum is at most " FS_TRACE_SIZE_LIMIT_TEXT " (2^62)");
    *sum += v;
  }
  return 0;
}

/* The size all members of a collective give alike (MPI's matching type
 * signatures, as the tracer writes them): bytes=, or rbytes= for scatter;
 * K_KEYS for the kinds without one (v-collectives, barrier). */
static int agreed_size_key(fs_call_kind kind) {
  switch (kind) {
    case FS_CALL_BCAST:
    case FS_CALL_REDUCE:
    case FS_CALL_ALLREDUCE:
    case FS_CALL_SCAN:
    case FS_CALL_EXSCAN:
    case FS_CALL_REDUCE_SCATTER_BLOCK:
    case FS_CALL_GATHER:
    case FS_CALL_ALLGATHER:
    case FS_CALL_ALLTOALL: return K_BYTES;
    case FS_CALL_SCATTER: return K_RBYTES;
    default: return KEYS;
  }
}

static int remember_size_column(fennel_reader *r, fs_call_kind kind) {
  int k = agreed_size_key(kind);
  if (k == KEYS) return 0;
  if (r->size_columns == r->size_column_capacity) {
    int64_t capacity = r->size_column_capacity ? r->size_column_capacity * 2 : 64;
    size_t *columns = realloc(r->size_column, (size_t)capacity * sizeof *columns);
    if (!columns) return out_of_memory(r);
    r->size_column = columns;
    r->size_column_capacity = capacity;
  }
  r->size_column[r->size_columns++] = r->fields[k].column;
  return 0;
}

static int collective(fennel_reader *r, fs_call *c, fs_call_kind kind) {
  const field *f = r->fields;
  if (remember_size_column(r, kind)) return -1;
  if (r->present & BIT(K_ROOT)) {
    if (check_rank(r, K_ROOT, c->comm, 0, 0)) return -1;
    c->root = (int32_t)f[K_ROOT].value;
  }
  if (r->present & BIT(K_BYTES)) c->bytes = f[K_BYTES].value;
  if (r->present & BIT(K_RBYTES)) c->recv_bytes = f[K_RBYTES].value;
  if (make_request(r, c)) return -1;
  int64_t sum;
  if (r->present & BIT(K_COUNTS)) {
    if (check_vector(r, K_COUNTS, c->comm, &c->bytes) ||
        check_vector(r, K_RCOUNTS, c->comm, &c->recv_bytes))
      return -1;
    c->list_count = 2 * r->t->comm[c->comm].size;
    int32_t second;
    return add_list(r, f[K_COUNTS].at, f[K_COUNTS].count, &c->list_at) ||
           add_list(r, f[K_RCOUNTS].at, f[K_RCOUNTS].count, &second);
  }
  if (kind == FS_CALL_REDUCE_SCATTER) {
    if (check_vector(r, K_RCOUNTS, c->comm, &sum)) return -1;
    c->list_count = f[K_RCOUNTS].count;
    return add_list(r, f[K_RCOUNTS].at, f[K_RCOUNTS].count, &c->list_at);
  }
  return 0;
}

static int comm_call(fennel_reader *r, fs_call *c) {
  if (!(r->present & BIT(K_NEW))) return 0;
  int32_t made = FS_TRACE_UNKNOWN;
  if (resolve_comm(r, &r->fields[K_NEW], &made)) return -1;
  c->new_comm = made;
  return 0;
}

static int kind_of(const fennel_reader *r, size_t at, size_t end, fs_call_kind *kind) {
  for (int k = 0; k < FS_CALL_KINDS; k++) {
    const char *name = fs_call_kind_name((fs_call_kind)k);
    if (name[0] == r->line[at] && strlen(name) == end - at &&
        memcmp(name, r->line + at, end - at) == 0) {
      *kind = (fs_call_kind)k;
      return 1;
    }
  }
  return 0;
}

/* KIND START END key=value...: after the kind. */
static int read_call(fennel_reader *r, fs_call_kind kind, size_t kind_column, size_t at) {
  int64_t start, end;
  char what[120];
  if (!r->has_init && kind != FS_CALL_INIT)
    return expected(r, kind_column, "an init line as the first call");
  if (r->has_init && kind == FS_CALL_INIT)
    return expected(r, kind_column, "one init line only, the first call");
  /* the messages are formatted only on failure: a line costs no printf */
  at = skip_blanks(r, at);
  if (parse_integer(r, &at, r->last_end / FS_NS, MAX_NS, "", &start)) {
    snprintf(what, sizeof what,
             "a start time in ns from %lld to " MAX_NS_TEXT ", the end of the previous call",
             (long long)(r->last_end / FS_NS));
    return expected(r, at, what);
  }
  at = skip_blanks(r, at);
  if (parse_integer(r, &at, start, MAX_NS, "", &end)) {
    snprintf(what, sizeof what, "an end time in ns from %lld (the start) to " MAX_NS_TEXT,
             (long long)start);
    return expected(r, at, what);
  }
  if (read_keys(r, kind, at)) return -1;
  int32_t comm = FS_COMM_WORLD;
  if ((r->present & BIT(K_COMM)) && resolve_comm(r, &r->fields[K_COMM], &comm)) return -1;
  fs_call *c = fs_trace_add_call(r->t, r->rank, kind);
  if (!c) return out_of_memory(r);
  c->start = start * FS_NS;
  c->end = end * FS_NS;
  c->comm = comm;
  c->line = r->line_number <= UINT32_MAX ? (uint32_t)r->line_number : 0;
  r->last_end = c->end;
  r->has_init = 1;
  r->has_finalize = kind == FS_CALL_FINALIZE;
  if (kind >= FS_CALL_SEND && kind <= FS_CALL_IPROBE) return point_to_point(r, c, kind);
  if (kind >= FS_CALL_WAIT && kind <= FS_CALL_TESTSOME) return completion(r, c, kind);
  if (fs_call_kind_is_collective(kind)) return collective(r, c, kind);
  if (kind >= FS_CALL_COMM_SPLIT && kind <= FS_CALL_COMM_CREATE) return comm_call(r, c);
  return 0;
}

/* ---- the header ---- */

static int read_rank_line(fennel_reader *r, size_t at) {
  int64_t rank, world;
  char what[80];
  snprintf(what, sizeof what, "rank %d of %d", (int)r->rank, (int)r->t->ranks);
  if (read_integer(r, &at, r->rank, r->rank, what, &rank)) return -1;
  snprintf(what, sizeof what, "a world size of %d, the number of trace files", (int)r->t->ranks);
  if (read_integer(r, &at, r->t->ranks, r->t->ranks, what, &world) || at_end(r, at)) return -1;
  r->has_rank = 1;
  return 0;
}

static int read_host(fennel_reader *r, size_t at) {
  at = skip_blanks(r, at);
  size_t end = word_end(r, at);
  if (end == at) return expected(r, at, "a host name");
  if (at_end(r, end)) return -1;
  char host[256];
  if (end - at >= sizeof host) return expected(r, at, "a host name of at most 255 bytes");
  memcpy(host, r->line + at, end - at);
  host[end - at] = 0;
  r->has_host = 1;
  return fs_trace_set_host(r->t, r->rank, host) ? out_of_memory(r) : 0;
}

static int read_offset(fennel_reader *r, size_t at) {
  int64_t offset;
  if (read_integer(r, &at, -MAX_NS, MAX_NS,
                   "a clock offset in ns from -" MAX_NS_TEXT " to " MAX_NS_TEXT, &offset) ||
      at_end(r, at))
    return -1;
  r->t->rank[r->rank].clock_offset = offset * FS_NS;
  r->has_offset = 1;
  return 0;
}

static int read_first_line(fennel_reader *r) {
  size_t magic = sizeof FS_FENNEL_TRACE_MAGIC - 1, at = magic;
  int64_t version;
  if (r->length < magic || memcmp(r->line, FS_FENNEL_TRACE_MAGIC, magic) != 0 ||
      (at < r->length && !is_blank(r->line[at])))
    return fail(r, 0, "expected '" FS_FENNEL_TRACE_MAGIC " 1', a fennelsim trace");
  return read_integer(r, &at, 1, 1, "version 1 of the format", &version) || at_end(r, at) ? -1 : 0;
}

/* ---- lines ---- */

static int word_is(const fennel_reader *r, size_t at, size_t end, const char *word) {
  return strlen(word) == end - at && memcmp(r->line + at, word, end - at) == 0;
}

static int read_line(fennel_reader *r) {
  if (r->line_number == 1) return read_first_line(r);
  size_t at = skip_blanks(r, 0);
  if (at == r->length || r->line[at] == '#') return 0;
  size_t end = at;
  while (end < r->length && !is_blank(r->line[end])) end++;
  fs_call_kind kind;
  if (r->has_finalize) return expected(r, at, "the end of the file after finalize");
  if (!r->has_rank)
    return word_is(r, at, end, "rank") ? read_rank_line(r, end) : expected(r, at, "'rank R W'");
  if (word_is(r, at, end, "comm")) return read_comm_line(r, end);
  if (word_is(r, at, end, "host"))
    return r->has_init || r->has_host ? expected(r, at, "one host line, before the init line")
                                      : read_host(r, end);
  if (word_is(r, at, end, "clock_offset_ns"))
    return r->has_init || r->has_offset
               ? expected(r, at, "one clock_offset_ns line, before the init line")
               : read_offset(r, end);
  if (kind_of(r, at, end, &kind)) return read_call(r, kind, at, end);
  return expected(r, at,
                  r->has_init ? "a call (send, recv, ...) or 'comm'"
                              : "'host', 'clock_offset_ns', 'comm' or an init line");
}

/* ---- collectives across files ---- */

static int is_comm_creation(fs_call_kind k) {
  return k == FS_CALL_COMM_SPLIT || k == FS_CALL_COMM_DUP || k == FS_CALL_COMM_CREATE;
}

/* Room for per-communicator instance lists and counters up to the trace's count. */
static int grow_instance_lists(fennel_reader *r) {
  int32_t need = r->t->comms;
  if (need <= r->instance_lists) return 0;
  instance_list *lists = realloc(r->instances, (size_t)need * sizeof *lists);
  if (lists) r->instances = lists;
  int64_t *next = realloc(r->next_instance, (size_t)need * sizeof *next);
  if (next) r->next_instance = next;
  if (!lists || !next) return fs_error_set(r->err, "out of memory");
  for (int32_t c = r->instance_lists; c < need; c++)
    r->instances[c] = (instance_list){0}, next[c] = 0;
  r->instance_lists = need;
  return 0;
}

/* After a file: its collectives (in the order the replay pairs them: the
 * k-th on a communicator) against the same instances of lower ranks, the
 * first maker of each becoming the reference. */
static int check_collective_sizes(fennel_reader *r) {
  const fs_trace_rank *tr = &r->t->rank[r->rank];
  if (grow_instance_lists(r)) return -1;
  for (int32_t c = 0; c < r->t->comms; c++) r->next_instance[c] = 0;
  int64_t sized = 0;
  for (int64_t i = 0; i < tr->count; i++) {
    const fs_call *c = &tr->calls[i];
    fs_call_kind kind = (fs_call_kind)c->kind;
    if (c->comm == FS_COMM_SELF || !(fs_call_kind_is_collective(kind) || is_comm_creation(kind)))
      continue;
    int key = agreed_size_key(kind);
    int64_t bytes = key == K_BYTES ? c->bytes : key == K_RBYTES ? c->recv_bytes : -1;
    size_t column = key == KEYS ? 0 : r->size_column[sized++];
    instance_list *l = &r->instances[c->comm];
    int64_t k = r->next_instance[c->comm]++;
    if (k == l->count) { /* the first member to make it */
      if (l->count == l->capacity) {
        int64_t capacity = l->capacity ? l->capacity * 2 : 16;
        instance *at = realloc(l->at, (size_t)capacity * sizeof *at);
        if (!at) return fs_error_set(r->err, "out of memory");
        l->at = at;
        l->capacity = capacity;
      }
      l->at[l->count++] = (instance){bytes, c->line, r->rank, c->kind};
      continue;
    }
    const instance *first = &l->at[k];
    if (first->kind != c->kind || first->bytes == bytes)
      continue; /* other kinds: the replay names both */
    return fs_error_set(r->err,
                        "%s:%u:%zu: expected %s=%lld, as %s:%u gives for this %s (collective %lld "
                        "of comm "
                        "%lld) (got '%lld')",
                        tr->file, c->line, column + 1, key == K_BYTES ? "bytes" : "rbytes",
                        (long long)first->bytes, r->t->rank[first->rank].file, first->line,
                        fs_call_kind_name(kind), (long long)k, (long long)comm_id(r->t, c->comm),
                        (long long)bytes);
  }
  return 0;
}

static void reset_file(fennel_reader *r, int32_t rank, fs_text_input *in) {
  r->in = in;
  r->rank = rank;
  r->has_rank = r->has_host = r->has_offset = r->has_init = r->has_finalize = 0;
  r->last_end = 0;
  if (r->requests) memset(r->requests, 0, (size_t)r->request_capacity * sizeof *r->requests);
  r->request_count = 0;
  r->size_columns = 0;
  if (r->defined_here) memset(r->defined_here, 0, (size_t)r->origin_capacity);
}

static int read_file(fennel_reader *r, int32_t rank, fs_text_input *in) {
  reset_file(r, rank, in);
  if (fs_trace_set_file(r->t, rank, fs_text_input_name(in)))
    return fs_error_set(r->err, "out of memory");
  int status;
  while ((status = fs_text_input_next_line(in, &r->line, &r->length, r->err)) == 1) {
    r->line_number = fs_text_input_line_number(in);
    if (read_line(r)) return -1;
  }
  if (status < 0) return -1;
  const char *what = r->line_number == 0 ? "'" FS_FENNEL_TRACE_MAGIC " 1', a fennelsim trace"
                     : !r->has_rank      ? "'rank R W'"
                     : !r->has_init      ? "an init line"
                     : !r->has_finalize  ? "a finalize line, the last call"
                                         : NULL;
  if (!what) return check_collective_sizes(r);
  return fs_text_error_at(r->err, fs_text_input_name(in), r->line_number + 1, 1,
                          "expected %s (got end of file)", what);
}

static void free_reader(fennel_reader *r) {
  for (int32_t c = 0; c < r->instance_lists; c++) free(r->instances[c].at);
  free(r->instances);
  free(r->next_instance);
  free(r->size_column);
  free(r->requests);
  free(r->defined_here);
  free(r->origin_line);
  free(r->origin_rank);
  free(r->member_seen);
  free(r->members);
  free(r->values);
  free(r->columns);
}

/* Reads rank after rank: from inputs, or opening paths one at a time, so
 * thousands of ranks need one descriptor and one gzip state. */
static fs_trace *read_trace(const char *const *paths, fs_text_input *const *inputs, int count,
                            fs_error *err) {
  if (count < 1) {
    fs_error_set(err, "expected at least one trace file (rank-0.fstrace.gz, ...)");
    return NULL;
  }
  fennel_reader r = {.err = err, .t = fs_trace_new(count)};
  r.member_seen = calloc((size_t)count, 1);
  r.members = malloc((size_t)count * sizeof *r.members);
  int status = !r.t || !r.member_seen || !r.members || grow_comm_tables(&r)
                   ? fs_error_set(err, "out of memory")
                   : 0;
  for (int32_t rank = 0; rank < count && !status; rank++) {
    fs_text_input *in = inputs ? inputs[rank] : fs_text_input_open_file(paths[rank], err);
    status = in ? read_file(&r, rank, in) : -1;
    if (in && !inputs) fs_text_input_close(in);
  }
  free_reader(&r);
  if (status) {
    fs_trace_free(r.t);
    return NULL;
  }
  r.t->format = "fennelsim";
  return r.t;
}

fs_trace *fs_fennel_trace_read_inputs(fs_text_input *const *inputs, int count, fs_error *err) {
  return read_trace(NULL, inputs, count, err);
}

fs_trace *fs_fennel_trace_read(const char *const *paths, int count, fs_error *err) {
  return read_trace(paths, NULL, count, err);
}
