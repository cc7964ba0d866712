/* simgrid_reader.c: SimGrid's time-independent traces ("0 send 1 0 1e6")
 * into an fs_trace.
 *
 * The format, from SimGrid's replay (src/smpi/internals/smpi_replay.cpp, the
 * action parsers, and smpi_datatype.cpp's datatype ids): one action per line,
 * "<rank> <action> <arguments...>", all on MPI_COMM_WORLD, sizes in elements
 * of a datatype (an optional trailing id: 0 double, 1 int, 2 char, 3 short,
 * 4 long, 5 float, 6 byte, 7 long long, 8-13 the unsigned and signed char
 * kinds, 14 long double; the default is MPI_BYTE, or MPI_DOUBLE when `init`
 * has an argument):
 *   init [x], finalize, compute FLOPS, sleep SECONDS, location FILE LINE,
 *   send|isend|recv|irecv PEER TAG SIZE [TYPE] (older SimGrid: PEER SIZE [TYPE],
 *   told apart by the count of arguments, tag 0),
 *   wait|test SRC DST TAG (world ranks of the message; older: bare `wait`,
 *   the last request still open), waitall,
 *   barrier, bcast SIZE [ROOT [TYPE]], reduce SIZE FLOPS [ROOT [TYPE]],
 *   allreduce SIZE FLOPS [TYPE], alltoall SEND RECV [TYPE [TYPE]],
 *   gather|scatter SEND RECV [ROOT [TYPE [TYPE]]], allgather SEND RECV [TYPE [TYPE]],
 *   gatherv SEND RECV*P [ROOT [TYPE [TYPE]]], allgatherv SEND RECV*P [TYPE] [DISPL*P],
 *   scatterv SEND*P RECV [ROOT [TYPE [TYPE]]], reducescatter RECV*P FLOPS [TYPE],
 *   alltoallv SENDBUF SEND*P RECVBUF RECV*P [TYPE TYPE],
 *   comm_size N, comm_split, comm_dup (no-ops in SimGrid).
 * P is the number of ranks. -1 or SMPI's -555 as a source is MPI_ANY_SOURCE,
 * -1 or -444 as a tag MPI_ANY_TAG, -666 as a peer MPI_PROC_NULL.
 *
 * Mapping: compute is FS_CALL_COMPUTE with amount = flops and no duration;
 * sleep is FS_CALL_COMPUTE lasting the seconds given (start 0, end the
 * duration) with amount 0; every other call has start = end = 0. The flops of
 * reduce, allreduce and reducescatter become a FS_CALL_COMPUTE after the
 * collective, as SimGrid runs them. comm_size/split/dup, location and
 * unknown actions are errors except the first three and location, which are
 * FS_CALL_OTHER. Per rank, isend/irecv requests get ids in order; a wait or
 * test names the open one with its (src, dst, tag), a wait with none found
 * waits on MPI_REQUEST_NULL (SimGrid: a test may have completed it).
 *
 * Files: with several paths file i holds rank i (each line must name it);
 * with one path, its lines may name several ranks, which it then holds
 * (ranks up to the highest named, which must be below the file's count of
 * lines, so memory stays bounded by the input). */
#include "trace/trace_readers.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/text_input.h"

#define MAX_TOKEN 64
#define PS_PER_S 1e12
/* Limits (docs/TRACES.md): a sleep within the time limit (2^62 ps, whole
 * seconds below it); flops up to 1e18 (the replay saturates the time they
 * take, flops / --flop-rate, at 2^62 ps). */
#define MAX_SECONDS 4611686.0
#define MAX_FLOPS 1e18
#define FLOPS_TEXT "a computation in flops, from 0 to 1e18"

typedef struct token {
  size_t at, length;
} token;

typedef struct open_request {
  int32_t id, src, dst, tag;
} open_request;

typedef struct rank_state {
  open_request *open;
  int32_t count, capacity, next_id;
  int64_t type_size; /* default datatype: byte, or double after "init x" */
} rank_state;

typedef struct reader {
  fs_text_input *in;
  fs_error *err;
  fs_trace *t;
  rank_state *state;
  int32_t file_rank; /* the rank every line must name; -1: any (one file) */
  const char *line;
  size_t length;
  token *tokens;
  size_t tokens_used, tokens_capacity;
  int64_t *values;
} reader;

/* ---- errors and tokens ---- */

#define fail(r, column, ...) \
  fs_text_input_error((r)->in, (int64_t)(column) + 1, (r)->err, __VA_ARGS__)

static int expected_at(reader *r, size_t i, const char *what) {
  size_t at = i < r->tokens_used ? r->tokens[i].at : r->length;
  size_t length = i < r->tokens_used ? r->tokens[i].length : 0;
  char shown[FS_TEXT_QUOTED_SIZE];
  return fail(r, at, "expected %s (got %s)", what,
              fs_text_quoted(r->line + at, length, r->line + r->length, shown));
}

static int out_of_memory(reader *r) { return fail(r, 0, "out of memory"); }

static int split_line(reader *r) {
  r->tokens_used = 0;
  for (size_t at = 0; at < r->length;) {
    while (at < r->length && (r->line[at] == ' ' || r->line[at] == '\t')) at++;
    if (at == r->length) break;
    size_t start = at;
    while (at < r->length && r->line[at] != ' ' && r->line[at] != '\t') at++;
    if (r->tokens_used == r->tokens_capacity) {
      size_t capacity = r->tokens_capacity ? r->tokens_capacity * 2 : 32;
      token *tokens = realloc(r->tokens, capacity * sizeof *tokens);
      if (!tokens) return out_of_memory(r);
      r->tokens = tokens;
      r->tokens_capacity = capacity;
    }
    r->tokens[r->tokens_used++] = (token){start, at - start};
  }
  return 0;
}

static int token_is(const reader *r, size_t i, const char *word) {
  const token *k = &r->tokens[i];
  return strlen(word) == k->length && memcmp(r->line + k->at, word, k->length) == 0;
}

/* An integer token in [min, max]. */
static int parse_int(const reader *r, size_t i, int64_t min, int64_t max, int64_t *value) {
  if (i >= r->tokens_used) return 0;
  const token *k = &r->tokens[i];
  const char *s = r->line + k->at;
  size_t n = k->length, at = s[0] == '-';
  if (at == n || n > 20) return 0;
  int64_t v = 0;
  for (; at < n; at++) {
    if (s[at] < '0' || s[at] > '9' || v > (INT64_MAX - 9) / 10) return 0;
    v = v * 10 + (s[at] - '0');
  }
  if (s[0] == '-') v = -v;
  if (v < min || v > max) return 0;
  *value = v;
  return 1;
}

static int read_int(reader *r, size_t i, int64_t min, int64_t max, const char *what,
                    int64_t *value) {
  return parse_int(r, i, min, max, value) ? 0 : expected_at(r, i, what);
}

/* A finite number >= 0 up to max ("1e6", "2.5"). */
static int read_amount(reader *r, size_t i, double max, const char *what, double *value) {
  if (i < r->tokens_used && r->tokens[i].length < MAX_TOKEN) {
    char text[MAX_TOKEN], *end;
    memcpy(text, r->line + r->tokens[i].at, r->tokens[i].length);
    text[r->tokens[i].length] = 0;
    double v = strtod(text, &end);
    if (*end == 0 && end != text && isfinite(v) && v >= 0 && v <= max) {
      *value = v;
      return 0;
    }
  }
  return expected_at(r, i, what);
}

/* ---- values ---- */

static int read_type(reader *r, size_t i, int64_t *size) {
  static const int64_t sizes[] = {8, 4, 1, 2, 8, 4, 1, 8, 1, 1, 2, 4, 8, 8, 16};
  int64_t id = 0;
  if (read_int(r, i, 0, 14,
               "a datatype id from 0 to 14 (0 double, 1 int, 2 char, 3 short, 4 long, "
               "5 float, 6 byte...)",
               &id))
    return -1;
  *size = sizes[id];
  return 0;
}

/* Elements (a double, as SimGrid parses them) times a datatype size. */
static int read_bytes(reader *r, size_t i, int64_t type_size, int64_t *bytes) {
  double elements = 0;
  if (read_amount(r, i, 1e15, "a size in elements, from 0 to 1e15", &elements)) return -1;
  *bytes = llround(elements * (double)type_size);
  return 0;
}

static int read_rank(reader *r, size_t i, int32_t *rank, const char *what) {
  int64_t v = 0;
  if (read_int(r, i, 0, r->t->ranks - 1, what, &v)) return -1;
  *rank = (int32_t)v;
  return 0;
}

static int read_peer(reader *r, size_t i, int source, int32_t *peer) {
  char what[128];
  snprintf(what, sizeof what, "a %s rank from 0 to %d%s", source ? "source" : "destination",
           (int)r->t->ranks - 1,
           source ? ", -1 or -555 (MPI_ANY_SOURCE) or -666 (MPI_PROC_NULL)"
                  : " or -666 (MPI_PROC_NULL)");
  int64_t v = 0;
  if (!parse_int(r, i, -666, r->t->ranks - 1, &v) ||
      (v < 0 && v != -666 && !(source && (v == -1 || v == -555))))
    return expected_at(r, i, what);
  *peer = v == -666 ? FS_TRACE_PROC_NULL : v < 0 ? FS_TRACE_ANY : (int32_t)v;
  return 0;
}

static int read_tag(reader *r, size_t i, int any, int32_t *tag) {
  int64_t v = 0;
  if (!parse_int(r, i, -444, INT32_MAX, &v) || (v < 0 && !(any && (v == -1 || v == -444))))
    return expected_at(r, i,
                       any ? "a tag from 0 to 2147483647, -1 or -444 (MPI_ANY_TAG)"
                           : "a tag from 0 to 2147483647");
  *tag = v < 0 ? FS_TRACE_ANY : (int32_t)v;
  return 0;
}

static int end_of_line(reader *r, size_t i) {
  return i >= r->tokens_used ? 0 : expected_at(r, i, "the end of the line");
}

/* ---- requests ---- */

static int open_request_add(reader *r, rank_state *s, open_request q) {
  if (s->count == s->capacity) {
    int32_t capacity = s->capacity ? s->capacity * 2 : 16;
    open_request *open = realloc(s->open, (size_t)capacity * sizeof *open);
    if (!open) return out_of_memory(r);
    s->open = open;
    s->capacity = capacity;
  }
  s->open[s->count++] = q;
  return 0;
}

/* The open request with this key (the oldest), or the last one (key NULL). */
static int32_t open_request_find(const rank_state *s, const int32_t *key) {
  if (!key) return s->count - 1;
  for (int32_t i = 0; i < s->count; i++)
    if (s->open[i].src == key[0] && s->open[i].dst == key[1] && s->open[i].tag == key[2]) return i;
  return -1;
}

static void open_request_remove(rank_state *s, int32_t i) {
  memmove(s->open + i, s->open + i + 1, (size_t)(s->count - i - 1) * sizeof *s->open);
  s->count--;
}

/* ---- actions ---- */

static fs_call *add(reader *r, int32_t rank, fs_call_kind kind) {
  fs_call *c = fs_trace_add_call(r->t, rank, kind);
  if (c) {
    int64_t line = fs_text_input_line_number(r->in);
    c->line = line > (int64_t)UINT32_MAX ? 0 : (uint32_t)line;
  }
  return c;
}

/* send/isend/recv/irecv PEER [TAG] SIZE [TYPE] */
static int read_point_to_point(reader *r, int32_t rank, fs_call_kind kind) {
  rank_state *s = &r->state[rank];
  int receive = kind == FS_CALL_RECV || kind == FS_CALL_IRECV;
  size_t n = r->tokens_used - 2;
  int64_t probe = 0;
  /* three arguments are PEER TAG SIZE (SimGrid >= 3.22), or older SimGrid's
   * PEER SIZE TYPE when the second is no integer and the third a datatype id */
  int with_tag = n >= 4 || (n == 3 && !(!parse_int(r, 3, INT64_MIN + 1, INT64_MAX, &probe) &&
                                        parse_int(r, 4, 0, 14, &probe)));
  int32_t peer = 0, tag = 0;
  int64_t type_size = s->type_size, bytes;
  size_t i = 2;
  if (read_peer(r, i++, receive, &peer) || (with_tag && read_tag(r, i++, receive, &tag))) return -1;
  size_t size_token = i++;
  if (i < r->tokens_used && read_type(r, i++, &type_size)) return -1;
  if (read_bytes(r, size_token, type_size, &bytes) || end_of_line(r, i)) return -1;
  fs_call *c = add(r, rank, kind);
  if (!c) return out_of_memory(r);
  c->peer = peer;
  c->tag = tag;
  c->bytes = bytes;
  if (receive) c->recv_bytes = bytes;
  if (kind != FS_CALL_ISEND && kind != FS_CALL_IRECV) return 0;
  c->request = s->next_id++;
  open_request q = {c->request, receive ? peer : rank, receive ? rank : peer, tag};
  return open_request_add(r, s, q);
}

/* wait|test [SRC DST TAG] */
static int read_completion(reader *r, int32_t rank, fs_call_kind kind) {
  rank_state *s = &r->state[rank];
  int32_t key[3], *use = NULL;
  if (r->tokens_used > 2) {
    int64_t v;
    if (read_rank(r, 2, &key[0], "the source rank of the request") ||
        read_rank(r, 3, &key[1], "the destination rank of the request"))
      return -1;
    if (!parse_int(r, 4, -444, INT32_MAX, &v) || (v < 0 && v != -1 && v != -444))
      return expected_at(r, 4, "the tag of the request");
    key[2] = v < 0 ? FS_TRACE_ANY : (int32_t)v;
    use = key;
    if (end_of_line(r, 5)) return -1;
  }
  fs_call *c = add(r, rank, kind);
  if (!c) return out_of_memory(r);
  int32_t i = open_request_find(s, use);
  if (i >= 0) c->request = s->open[i].id;
  if (kind == FS_CALL_TEST)
    c->flag = FS_TRACE_UNKNOWN;
  else if (i >= 0)
    open_request_remove(s, i);
  return 0;
}

static int read_waitall(reader *r, int32_t rank) {
  rank_state *s = &r->state[rank];
  if (end_of_line(r, 2)) return -1;
  fs_call *c = add(r, rank, FS_CALL_WAITALL);
  if (!c) return out_of_memory(r);
  for (int32_t i = 0; i < s->count; i++) {
    int64_t id = s->open[i].id;
    int32_t at = fs_trace_add_list(r->t, rank, &id, 1);
    if (at < 0) return out_of_memory(r);
    if (i == 0) c->list_at = at;
  }
  c->list_count = s->count;
  s->count = 0;
  return 0;
}

static int add_compute(reader *r, int32_t rank, double flops) {
  fs_call *c = add(r, rank, FS_CALL_COMPUTE);
  if (!c) return out_of_memory(r);
  c->amount = flops;
  return 0;
}

/* The optional root then datatypes after `i`; root stays 0 and each
 * datatype the default when absent (as in SimGrid: no second from the first). */
static int read_root_types(reader *r, size_t i, int rooted, int32_t *root, int64_t *type1,
                           int64_t *type2) {
  if (rooted && i < r->tokens_used && read_rank(r, i++, root, "a root rank")) return -1;
  if (i < r->tokens_used && read_type(r, i++, type1)) return -1;
  if (type2 != type1 && i < r->tokens_used && read_type(r, i++, type2)) return -1;
  return end_of_line(r, i);
}

/* bcast, reduce, allreduce, gather, scatter, allgather, alltoall */
static int read_collective(reader *r, int32_t rank, fs_call_kind kind) {
  int64_t type1 = r->state[rank].type_size, type2 = type1, bytes = 0, recv_bytes = 0;
  int32_t root = 0;
  double flops = 0;
  int reduction = kind == FS_CALL_REDUCE || kind == FS_CALL_ALLREDUCE;
  int rooted = kind == FS_CALL_BCAST || kind == FS_CALL_REDUCE || kind == FS_CALL_GATHER ||
               kind == FS_CALL_SCATTER;
  if (kind == FS_CALL_BARRIER) {
    if (end_of_line(r, 2)) return -1;
  } else if (kind == FS_CALL_BCAST || reduction) {
    size_t i = 3;
    if (reduction && read_amount(r, i++, MAX_FLOPS, FLOPS_TEXT, &flops)) return -1;
    if (read_root_types(r, i, rooted, &root, &type1, &type1) || read_bytes(r, 2, type1, &bytes))
      return -1;
    recv_bytes = kind == FS_CALL_REDUCE && rank != root ? 0 : bytes;
  } else {
    if (read_root_types(r, 4, rooted, &root, &type1, &type2) || read_bytes(r, 2, type1, &bytes) ||
        read_bytes(r, 3, type2, &recv_bytes))
      return -1;
  }
  fs_call *c = add(r, rank, kind);
  if (!c) return out_of_memory(r);
  c->bytes = bytes;
  c->recv_bytes = recv_bytes;
  if (rooted) c->root = root;
  return flops > 0 ? add_compute(r, rank, flops) : 0;
}

/* P counts from token i, times a datatype size, into values[at..at+P). */
static int read_counts(reader *r, size_t i, int64_t type_size, size_t at) {
  for (int32_t k = 0; k < r->t->ranks; k++)
    if (read_bytes(r, i + (size_t)k, type_size, &r->values[at + (size_t)k])) return -1;
  return 0;
}

static int add_lists(reader *r, int32_t rank, fs_call *c) {
  int32_t at = fs_trace_add_list(r->t, rank, r->values, 2 * r->t->ranks);
  if (at < 0) return out_of_memory(r);
  c->list_at = at;
  c->list_count = 2 * r->t->ranks;
  c->bytes = c->recv_bytes = 0;
  for (int32_t k = 0; k < r->t->ranks; k++) {
    c->bytes += r->values[k];
    c->recv_bytes += r->values[r->t->ranks + k];
  }
  return 0;
}

/* gatherv, allgatherv, scatterv, alltoallv, reducescatter */
static int read_vector(reader *r, int32_t rank, fs_call_kind kind) {
  size_t p = (size_t)r->t->ranks, n = r->tokens_used;
  int64_t type1 = r->state[rank].type_size, type2 = type1, block = 0;
  int32_t root = 0;
  double flops = 0;
  size_t after = kind == FS_CALL_ALLTOALLV ? 4 + 2 * p
                                           : 3 + p; /* the first token after the counts */
  if (n < after) return expected_at(r, n, "one count per rank and the arguments after them");
  if (kind == FS_CALL_GATHERV || kind == FS_CALL_SCATTERV) {
    if (read_root_types(r, after, 1, &root, &type1, &type2)) return -1;
  } else if (kind == FS_CALL_ALLGATHERV) {
    size_t extra = n - after;
    if (extra == 1 || extra == p + 1) { /* a datatype (then displacements) */
      if (read_type(r, after, &type1)) return -1;
      type2 = type1;
    }
    if (extra != 0 && extra != 1 && extra != p && extra != p + 1)
      return expected_at(r, after, "a datatype, the displacements (one per rank) or both");
    for (size_t k = after + (extra == 1 || extra == p + 1); k < n; k++) {
      int64_t ignored = 0;
      if (read_int(r, k, INT32_MIN, INT32_MAX, "a displacement", &ignored)) return -1;
    }
  } else if (kind == FS_CALL_REDUCE_SCATTER) {
    if (read_amount(r, 2 + p, MAX_FLOPS, FLOPS_TEXT, &flops)) return -1;
    if (after < n && read_type(r, after, &type1)) return -1;
    if (end_of_line(r, after + (after < n))) return -1;
  } else { /* alltoallv */
    if (n > after && (read_type(r, after, &type1) || read_type(r, after + 1, &type2) ||
                      end_of_line(r, after + 2)))
      return -1;
  }
  /* values: per-rank send bytes, then receive bytes */
  switch (kind) {
    case FS_CALL_GATHERV:
    case FS_CALL_ALLGATHERV:
      if (read_bytes(r, 2, type1, &block) || read_counts(r, 3, type2, p)) return -1;
      for (size_t k = 0; k < p; k++)
        r->values[k] = kind == FS_CALL_ALLGATHERV || (int32_t)k == root ? block : 0;
      if (kind == FS_CALL_GATHERV && rank != root) memset(r->values + p, 0, p * sizeof *r->values);
      break;
    case FS_CALL_SCATTERV:
      if (read_counts(r, 2, type1, 0) || read_bytes(r, 2 + p, type2, &block)) return -1;
      if (rank != root) memset(r->values, 0, p * sizeof *r->values);
      for (size_t k = 0; k < p; k++) r->values[p + k] = (int32_t)k == root ? block : 0;
      break;
    case FS_CALL_REDUCE_SCATTER:
      if (read_counts(r, 2, type1, 0)) return -1;
      memcpy(r->values + p, r->values, p * sizeof *r->values);
      break;
    default: { /* alltoallv: the buffer sizes are checked, not used */
      int64_t ignored = 0;
      if (read_bytes(r, 2, type1, &ignored) || read_counts(r, 3, type1, 0) ||
          read_bytes(r, 3 + p, type2, &ignored) || read_counts(r, 4 + p, type2, p))
        return -1;
    }
  }
  fs_call *c = add(r, rank, kind);
  if (!c) return out_of_memory(r);
  if (kind == FS_CALL_GATHERV || kind == FS_CALL_SCATTERV) c->root = root;
  if (add_lists(r, rank, c)) return -1;
  if (kind == FS_CALL_ALLGATHERV) c->bytes = block;
  if (kind == FS_CALL_REDUCE_SCATTER) c->recv_bytes = r->values[rank];
  return flops > 0 ? add_compute(r, rank, flops) : 0;
}

static int read_simple(reader *r, int32_t rank, fs_call_kind kind, size_t most_arguments) {
  if (r->tokens_used > 2 + most_arguments) return end_of_line(r, 2 + most_arguments);
  fs_call *c = add(r, rank, kind);
  if (!c) return out_of_memory(r);
  if (kind == FS_CALL_INIT && r->tokens_used > 2) r->state[rank].type_size = 8; /* MPI_DOUBLE */
  return 0;
}

static int read_action(reader *r, int32_t rank) {
  static const struct {
    const char *name;
    fs_call_kind kind;
  } actions[] = {{"send", FS_CALL_SEND},
                 {"isend", FS_CALL_ISEND},
                 {"recv", FS_CALL_RECV},
                 {"irecv", FS_CALL_IRECV},
                 {"barrier", FS_CALL_BARRIER},
                 {"bcast", FS_CALL_BCAST},
                 {"reduce", FS_CALL_REDUCE},
                 {"allreduce", FS_CALL_ALLREDUCE},
                 {"alltoall", FS_CALL_ALLTOALL},
                 {"gather", FS_CALL_GATHER},
                 {"scatter", FS_CALL_SCATTER},
                 {"allgather", FS_CALL_ALLGATHER},
                 {"gatherv", FS_CALL_GATHERV},
                 {"allgatherv", FS_CALL_ALLGATHERV},
                 {"scatterv", FS_CALL_SCATTERV},
                 {"alltoallv", FS_CALL_ALLTOALLV},
                 {"reducescatter", FS_CALL_REDUCE_SCATTER}};
  if (r->tokens_used < 2) return expected_at(r, 1, "an action after the rank");
  for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
    if (!token_is(r, 1, actions[i].name)) continue;
    fs_call_kind kind = actions[i].kind;
    if (kind <= FS_CALL_IRECV) return read_point_to_point(r, rank, kind);
    if (kind >= FS_CALL_GATHERV || kind == FS_CALL_REDUCE_SCATTER)
      return read_vector(r, rank, kind);
    return read_collective(r, rank, kind);
  }
  if (token_is(r, 1, "init")) return read_simple(r, rank, FS_CALL_INIT, 1);
  if (token_is(r, 1, "finalize")) return read_simple(r, rank, FS_CALL_FINALIZE, 0);
  if (token_is(r, 1, "wait")) return read_completion(r, rank, FS_CALL_WAIT);
  if (token_is(r, 1, "test")) return read_completion(r, rank, FS_CALL_TEST);
  if (token_is(r, 1, "waitall")) return read_waitall(r, rank);
  if (token_is(r, 1, "comm_size") || token_is(r, 1, "comm_split") || token_is(r, 1, "comm_dup") ||
      token_is(r, 1, "location"))
    return read_simple(r, rank, FS_CALL_OTHER, SIZE_MAX - 2);
  double amount = 0;
  if (token_is(r, 1, "compute")) {
    if (read_amount(r, 2, MAX_FLOPS, FLOPS_TEXT, &amount) || end_of_line(r, 3)) return -1;
    return add_compute(r, rank, amount);
  }
  if (token_is(r, 1, "sleep")) {
    if (read_amount(r, 2, MAX_SECONDS, "a duration in seconds, from 0 to 4611686 (2^62 ps)",
                    &amount) ||
        end_of_line(r, 3))
      return -1;
    fs_call *c = add(r, rank, FS_CALL_COMPUTE);
    if (!c) return out_of_memory(r);
    c->end = (fs_time)llround(amount * PS_PER_S);
    return 0;
  }
  return expected_at(r, 1,
                     "an action (init, finalize, compute, sleep, send, isend, recv, irecv, wait, "
                     "waitall, test, barrier, bcast, reduce, allreduce, alltoall, alltoallv, "
                     "gather, "
                     "gatherv, scatter, scatterv, allgather, allgatherv, reducescatter, comm_size, "
                     "comm_split, comm_dup, location)");
}

static int read_line(reader *r) {
  if (split_line(r)) return -1;
  if (r->tokens_used == 0 || r->line[r->tokens[0].at] == '#') return 0; /* blank or comment */
  char what[96];
  int64_t rank = 0;
  if (r->file_rank >= 0) {
    snprintf(what, sizeof what, "rank %d, the rank of this file", (int)r->file_rank);
    if (!parse_int(r, 0, r->file_rank, r->file_rank, &rank)) return expected_at(r, 0, what);
  } else {
    snprintf(what, sizeof what, "a rank from 0 to %d", (int)r->t->ranks - 1);
    if (read_int(r, 0, 0, r->t->ranks - 1, what, &rank)) return -1;
  }
  return read_action(r, (int32_t)rank);
}

static int read_file(reader *r, const char *path) {
  if (!(r->in = fs_text_input_open_file(path, r->err))) return -1;
  int status;
  while ((status = fs_text_input_next_line(r->in, &r->line, &r->length, r->err)) == 1)
    if (read_line(r)) break;
  fs_text_input_close(r->in);
  r->in = NULL;
  return status == 0 ? 0 : -1;
}

/* One file holding several ranks: how many (the highest named + 1). */
static int count_ranks(reader *r, const char *path, int32_t *ranks) {
  if (!(r->in = fs_text_input_open_file(path, r->err))) return -1;
  int64_t highest = 0, lines = 0, highest_line = 0, actions = 0;
  int status;
  while ((status = fs_text_input_next_line(r->in, &r->line, &r->length, r->err)) == 1) {
    lines++;
    if (split_line(r)) break;
    if (r->tokens_used == 0 || r->line[r->tokens[0].at] == '#') continue;
    int64_t rank = 0;
    if (!parse_int(r, 0, 0, INT32_MAX - 1, &rank)) {
      status = expected_at(r, 0, "a rank from 0 to 2147483646");
      break;
    }
    actions++;
    if (rank > highest) highest = rank, highest_line = lines;
  }
  if (status == 0 && actions > 0 && highest >= lines)
    status =
        fs_text_error_at(r->err, path, highest_line, 1,
                         "expected ranks below %lld, the number of lines of the file (got %lld)",
                         (long long)lines, (long long)highest);
  fs_text_input_close(r->in);
  r->in = NULL;
  *ranks = (int32_t)highest + 1;
  return status == 0 ? 0 : -1;
}

fs_trace *fs_simgrid_trace_read(const char *const *paths, int count, fs_error *err) {
  reader r = {.err = err};
  int32_t ranks = count;
  if (count < 1) {
    fs_error_set(err, "a SimGrid trace needs at least one file");
    return NULL;
  }
  if (count == 1 && count_ranks(&r, paths[0], &ranks)) {
    free(r.tokens);
    return NULL;
  }
  r.t = fs_trace_new(ranks);
  r.state = calloc((size_t)ranks, sizeof *r.state);
  r.values = malloc((size_t)ranks * 2 * sizeof *r.values);
  int status = -1;
  if (!r.t || !r.state || !r.values) {
    fs_error_set(err, "%s: out of memory", paths[0]);
  } else {
    r.t->format = "simgrid";
    status = 0;
    for (int32_t k = 0; k < ranks; k++) r.state[k].type_size = 1; /* MPI_BYTE */
    for (int32_t k = 0; k < ranks && !status; k++)
      if (fs_trace_set_file(r.t, k, paths[count == 1 ? 0 : k]))
        status = fs_error_set(err, "out of memory");
    for (int i = 0; i < count && !status; i++) {
      r.file_rank = count == 1 ? -1 : i;
      status = read_file(&r, paths[i]);
    }
  }
  for (int32_t k = 0; r.state && k < ranks; k++) free(r.state[k].open);
  free(r.state);
  free(r.tokens);
  free(r.values);
  if (status) {
    fs_trace_free(r.t);
    return NULL;
  }
  return r.t;
}
