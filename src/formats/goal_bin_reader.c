/* goal_bin_reader.c: see goal_bin_reader.h. One pass from the first byte to
 * the last through a window that slides over the file (or covers a memory
 * block), every field checked where it is read. Sections:
 *   input      the window, take() and the end of the input
 *   errors     "FILE:byte N: expected ..."
 *   header     magic, rank count, largest CPU and NIC, the block table
 *   records    one operation (39 bytes) into one task
 *   blocks     one rank: counts, roots, records, dependency lists
 *   entry      opening, closing, finalizing */
#include "formats/goal_bin_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/read_program.h"

#define WINDOW ((size_t)1 << 20)            /* bytes of a file held at a time */
#define HEADER 14                           /* magic 8, ranks 4, largest CPU and NIC 1 + 1 */
#define TABLE_BASE 8                        /* block offsets count from the end of the magic */
#define RECORD 39                           /* bytes of one operation */
#define MAX_CALC_NS (FS_TIME_LIMIT / FS_NS) /* whole ns within the time limit */
#define ANY 0xffffffffu                     /* txt2bin's -1 (any source, any tag) */

enum { OP_SEND = 1, OP_RECV = 2, OP_CALC = 3 };

/* Per operation of the open block: its dependency count, how many of them
 * are still to be listed, and how many operations it lists (requires,
 * then irequires). */
enum { N_COUNT, N_LEFT, N_ENDS, N_STARTS, N_WORDS };

typedef struct bin_reader {
  const char *name;
  fs_error *err;
  int fd;              /* -1: memory */
  const uint8_t *data; /* the window data[0..length), cursor at */
  size_t length, at;
  int64_t base;    /* file offset of data[0] */
  uint8_t *buffer; /* the window's storage (files) */
  int eof;         /* the file has no more bytes */
  fs_program *p;   /* created after the rank count */
  uint32_t ranks;  /* as the header says */
  uint8_t max_cpu, max_nic;
  uint64_t *ends; /* per rank: where its block ends (file offset) */
  size_t ends_capacity;
  uint32_t *node; /* N_WORDS per operation of the open block */
  size_t node_capacity;
  uint32_t *roots; /* the open block's operations without dependencies */
  size_t roots_capacity;
  int64_t block_at; /* file offset of the open block */
  uint32_t block_roots;
} bin_reader;

static uint32_t u32_at(const uint8_t *b) {
  uint32_t v;
  memcpy(&v, b, sizeof v);
  return v;
}

static uint64_t u64_at(const uint8_t *b) {
  uint64_t v;
  memcpy(&v, b, sizeof v);
  return v;
}

/* ---- errors ---- */

static int64_t offset(const bin_reader *r) { return r->base + (int64_t)r->at; }

static int fail(bin_reader *r, int64_t at, const char *format, ...) FS_PRINTF(3, 4);
static int fail(bin_reader *r, int64_t at, const char *format, ...) {
  char what[768];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  return fs_error_set(r->err, "%s:byte %lld: %s", r->name, (long long)at, what);
}

static int out_of_memory(bin_reader *r) {
  return fs_error_set(r->err, "%s: out of memory", r->name);
}

/* Room for count elements of size bytes in *array (doubling). */
static int grow(bin_reader *r, void *array, size_t *capacity, size_t count, size_t size) {
  if (count <= *capacity) return 0;
  size_t want = *capacity < 1024 ? 1024 : *capacity * 2;
  if (want < count) want = count;
  void *bigger = realloc(*(void **)array, want * size);
  if (!bigger) return out_of_memory(r);
  *(void **)array = bigger;
  *capacity = want;
  return 0;
}

/* ---- input ---- */

/* Slides the window so that n bytes follow the cursor, or the file ends. */
static int refill(bin_reader *r, size_t n) {
  size_t have = r->length - r->at;
  memmove(r->buffer, r->data + r->at, have);
  r->base += (int64_t)r->at;
  r->at = 0;
  r->length = have;
  while (r->length < n && !r->eof) {
    ssize_t got;
    do got = read(r->fd, r->buffer + r->length, WINDOW - r->length);
    while (got < 0 && errno == EINTR);
    if (got < 0)
      return fs_error_set(r->err, "%s:byte %lld: read error: %s", r->name,
                          (long long)(r->base + (int64_t)r->length), strerror(errno));
    r->eof = got == 0;
    r->length += (size_t)got;
  }
  return 0;
}

/* The next n (<= WINDOW) bytes, or NULL with "expected WHAT (got the end
 * of the file)" (what is printf-formatted from the arguments). */
static const uint8_t *take(bin_reader *r, size_t n, const char *what, ...) FS_PRINTF(3, 4);
static const uint8_t *take(bin_reader *r, size_t n, const char *what, ...) {
  if (r->length - r->at < n && r->fd >= 0 && refill(r, n)) return NULL;
  if (r->length - r->at < n) {
    char text[512];
    va_list args;
    va_start(args, what);
    vsnprintf(text, sizeof text, what, args);
    va_end(args);
    fail(r, offset(r), "expected %s (got the end of the file)", text);
    return NULL;
  }
  const uint8_t *b = r->data + r->at;
  r->at += n;
  return b;
}

/* Whether bytes follow the cursor (-1 on a read error). */
static int more_bytes(bin_reader *r) {
  if (r->length > r->at) return 1;
  if (r->fd < 0) return 0;
  return refill(r, 1) ? -1 : r->length > r->at;
}

/* ---- header ---- */

static int read_magic(bin_reader *r) {
  const uint8_t *b = take(r, 8,
                          "a LogGOPSim binary schedule (txt2bin's output): the number %u "
                          "in its first 8 bytes",
                          FS_GOAL_BIN_MAGIC);
  if (!b) return -1;
  uint64_t magic = u64_at(b);
  if (magic == FS_GOAL_BIN_MAGIC) return 0;
  if (magic == FS_GOAL_BIN_INVALIDATED)
    return fail(r, 0,
                "expected the magic number %u (got %u: a LogGOPSim run with --save-mem "
                "overwrote this schedule; run txt2bin again)",
                FS_GOAL_BIN_MAGIC, FS_GOAL_BIN_INVALIDATED);
  if (magic == __builtin_bswap64(FS_GOAL_BIN_MAGIC) ||
      magic == __builtin_bswap64(FS_GOAL_BIN_INVALIDATED))
    return fail(r, 0,
                "expected a schedule in this host's byte order (got one written on a host "
                "of the other byte order; run txt2bin on this host)");
  if (memcmp(b, "num_rank", 8) == 0 || memcmp(b, "//", 2) == 0 || memcmp(b, "/*", 2) == 0)
    return fail(r, 0,
                "expected the magic number %u of a LogGOPSim binary schedule (got GOAL "
                "text: name it .goal)",
                FS_GOAL_BIN_MAGIC);
  return fail(r, 0, "expected the magic number %u of a LogGOPSim binary schedule (got %llu)",
              FS_GOAL_BIN_MAGIC, (unsigned long long)magic);
}

/* The block table entry of one rank: its block must start where the one
 * before ended (the first right after the table) and hold its 8 bytes of
 * counts. Offsets in the file count from byte 8. */
static int read_table_entry(bin_reader *r, uint32_t rank) {
  int64_t at = offset(r);
  const uint8_t *b = take(r, 16,
                          "the block table entry of rank %u (two 8-byte offsets; the "
                          "header says %u ranks)",
                          rank, r->ranks);
  if (!b) return -1;
  uint64_t start = u64_at(b) + TABLE_BASE, end = u64_at(b + 8) + TABLE_BASE;
  uint64_t want = rank ? r->ends[rank - 1] : HEADER + (uint64_t)16 * r->ranks;
  if (u64_at(b) != want - TABLE_BASE)
    return fail(r, at, "expected %llu, the start of rank %u's block (%s) less 8 (got %llu)",
                (unsigned long long)(want - TABLE_BASE), rank,
                rank ? "where the block before ends" : "right after the block table",
                (unsigned long long)u64_at(b));
  if (u64_at(b + 8) > (uint64_t)INT64_MAX || end < start + 8)
    return fail(r, at + 8,
                "expected the end of rank %u's block, at least 8 bytes after its start "
                "%llu (got %llu)",
                rank, (unsigned long long)u64_at(b), (unsigned long long)u64_at(b + 8));
  if (grow(r, &r->ends, &r->ends_capacity, (size_t)rank + 1, sizeof *r->ends)) return -1;
  r->ends[rank] = end;
  return 0;
}

static int read_header(bin_reader *r) {
  if (read_magic(r)) return -1;
  const uint8_t *b = take(r, 6, "the rank count (4 bytes) and the largest CPU and NIC index");
  if (!b) return -1;
  r->ranks = u32_at(b);
  if (r->ranks == 0 || r->ranks > INT32_MAX)
    return fail(r, 8, "expected a rank count from 1 to 2147483647 (got %u)", r->ranks);
  r->max_cpu = b[4];
  r->max_nic = b[5];
  if (!(r->p = fs_program_new((int32_t)r->ranks))) return out_of_memory(r);
  for (uint32_t rank = 0; rank < r->ranks; rank++)
    if (read_table_entry(r, rank)) return -1;
  return 0;
}

/* ---- records ---- */

/* The fields of one operation record (txt2bin's order, no padding). */
typedef struct record {
  uint32_t count;                            /* +0 operations it waits for */
  uint8_t type;                              /* +4 */
  uint32_t peer;                             /* +5 */
  uint64_t size;                             /* +9 bytes, or ns for calc */
  uint32_t tag;                              /* +17 */
  uint8_t cpu;                               /* +21 */
  uint8_t nic;                               /* +22 */
  uint32_t ends, ends_at, starts, starts_at; /* +23 +27 +31 +35 */
} record;

static void decode(const uint8_t *b, record *o) {
  o->count = u32_at(b);
  o->type = b[4];
  o->peer = u32_at(b + 5);
  o->size = u64_at(b + 9);
  o->tag = u32_at(b + 17);
  o->cpu = b[21];
  o->nic = b[22];
  o->ends = u32_at(b + 23);
  o->ends_at = u32_at(b + 27);
  o->starts = u32_at(b + 31);
  o->starts_at = u32_at(b + 35);
}

/* A send or recv's peer, size and tag. */
static int check_message(bin_reader *r, const record *o, int64_t at) {
  if (o->peer >= r->ranks && !(o->type == OP_RECV && o->peer == ANY))
    return fail(r, at + 5,
                o->type == OP_SEND ? "expected a destination rank below %u (got %u)"
                                   : "expected a source rank below %u or 4294967295 (any "
                                     "source) (got %u)",
                r->ranks, o->peer);
  if (o->size > (uint64_t)FS_SIZE_LIMIT)
    return fail(r, at + 9, "expected a message size of at most " FS_SIZE_LIMIT_TEXT " (got %llu)",
                (unsigned long long)o->size);
  if (o->tag > INT32_MAX && o->tag != ANY)
    return fail(r, at + 17,
                "expected a tag of at most 2147483647, or 4294967295 (any tag) (got %u)", o->tag);
  return 0;
}

static int check_record(bin_reader *r, const record *o, int64_t at) {
  if (o->type < OP_SEND || o->type > OP_CALC)
    return fail(r, at + 4, "expected an operation type, 1 (send), 2 (recv) or 3 (calc) (got %u)",
                o->type);
  if (o->type != OP_CALC && check_message(r, o, at)) return -1;
  if (o->type == OP_CALC && o->size > (uint64_t)MAX_CALC_NS)
    return fail(r, at + 9, "expected a calc time of at most %lld ns (2^62 ps) (got %llu)",
                (long long)MAX_CALC_NS, (unsigned long long)o->size);
  if (o->cpu > r->max_cpu)
    return fail(r, at + 21, "expected a CPU index of at most %u, the header's largest (got %u)",
                r->max_cpu, o->cpu);
  if (o->nic > r->max_nic)
    return fail(r, at + 22, "expected a NIC index of at most %u, the header's largest (got %u)",
                r->max_nic, o->nic);
  return 0;
}

/* One task as the GOAL text reader makes it; calc keeps no peer, tag or
 * NIC (txt2bin writes 0 there, and LogGOPSim ignores them). */
static int add_task(bin_reader *r, const record *o, int32_t rank) {
  fs_program *p = r->p;
  fs_task_kind kind = o->type == OP_SEND ? FS_SEND : o->type == OP_RECV ? FS_RECV : FS_COMPUTE;
  int32_t t = fs_program_add(p, kind, rank);
  if (t < 0) return out_of_memory(r);
  if (kind == FS_COMPUTE) {
    fs_task_set_time(p, t, (fs_time)o->size * FS_NS);
  } else {
    fs_task_set_peer(p, t, o->peer == ANY ? FS_ANY_SOURCE : (int32_t)o->peer);
    fs_task_set_size(p, t, (int64_t)o->size);
    if (o->tag && fs_task_set_tag(p, t, o->tag == ANY ? FS_ANY_TAG : (int32_t)o->tag))
      return out_of_memory(r);
    if (o->nic && fs_task_set_nic(p, t, o->nic)) return out_of_memory(r);
  }
  return o->cpu && fs_task_set_cpu(p, t, o->cpu) ? out_of_memory(r) : 0;
}

/* Operation i of rank: checks it, adds its task, notes its counts. The
 * lists of the operations depending on it lie back to back in the
 * appendix, in operation order: *listed is where the next one starts. */
static int read_record(bin_reader *r, int32_t rank, uint32_t i, uint64_t *listed) {
  int64_t at = offset(r);
  const uint8_t *b = take(r, RECORD, "operation %u of rank %d (a 39-byte record)", i, (int)rank);
  if (!b) return -1;
  record o;
  decode(b, &o);
  if (check_record(r, &o, at)) return -1;
  if (o.ends && o.ends_at != (uint32_t)*listed)
    return fail(r, at + 27, "expected %u, where the list of its dependents starts (got %u)",
                (uint32_t)*listed, o.ends_at);
  *listed += o.ends;
  if (o.starts && o.starts_at != (uint32_t)*listed)
    return fail(r, at + 35, "expected %u, where the list of its start-dependents starts (got %u)",
                (uint32_t)*listed, o.starts_at);
  *listed += o.starts;
  uint32_t *n = r->node + (size_t)N_WORDS * i;
  n[N_COUNT] = n[N_LEFT] = o.count;
  n[N_ENDS] = o.ends;
  n[N_STARTS] = o.starts;
  return add_task(r, &o, rank);
}

/* ---- blocks ---- */

static int64_t record_at(const bin_reader *r, uint32_t i) {
  return r->block_at + 8 + 4 * (int64_t)r->block_roots + RECORD * (int64_t)i;
}

static int read_roots(bin_reader *r, int32_t rank, uint32_t nodes) {
  for (uint32_t k = 0; k < r->block_roots; k++) {
    int64_t at = offset(r);
    const uint8_t *b = take(r, 4, "operation %u without dependencies of rank %d", k, (int)rank);
    if (!b) return -1;
    uint32_t root = u32_at(b), low = k ? r->roots[k - 1] + 1 : 0;
    if (root < low || root >= nodes)
      return fail(r, at,
                  "expected an operation without dependencies from %u to %u, ascending (got %u)",
                  low, nodes - 1, root);
    if (grow(r, &r->roots, &r->roots_capacity, (size_t)k + 1, sizeof *r->roots)) return -1;
    r->roots[k] = root;
  }
  return 0;
}

/* The root list names exactly the operations whose count is 0. */
static int check_roots(bin_reader *r, uint32_t nodes) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < nodes; i++) {
    int listed = k < r->block_roots && r->roots[k] == i;
    uint32_t count = r->node[(size_t)N_WORDS * i + N_COUNT];
    if (listed && count)
      return fail(r, r->block_at + 8 + 4 * (int64_t)k,
                  "expected an operation without dependencies (got %u, which waits for %u)", i,
                  count);
    if (!listed && !count)
      return fail(r, record_at(r, i),
                  "expected a dependency count above 0, or operation %u listed among those "
                  "without dependencies (got 0)",
                  i);
    k += (uint32_t)listed;
  }
  return 0;
}

/* One entry of operation i's lists: `first` + target waits for first + i. */
static int read_dependent(bin_reader *r, int32_t rank, uint32_t nodes, uint32_t i, int point) {
  int64_t at = offset(r);
  const uint8_t *b =
      take(r, 4, "an operation of rank %d depending on its operation %u", (int)rank, i);
  if (!b) return -1;
  uint32_t target = u32_at(b);
  if (target >= nodes)
    return fail(r, at, "expected an operation of rank %d, below %u (got %u)", (int)rank, nodes,
                target);
  uint32_t *n = r->node + (size_t)N_WORDS * target;
  if (n[N_LEFT] == 0)
    return fail(r, at,
                "expected at most %u operations listing operation %u, its dependency "
                "count (got one more)",
                n[N_COUNT], target);
  n[N_LEFT]--;
  int32_t first = r->p->tasks - (int32_t)nodes;
  if (r->p->dependencies == FS_MAX_DEPENDENCIES)
    return fail(r, at, "expected at most %lld dependencies in a program (got one more)",
                (long long)FS_MAX_DEPENDENCIES);
  return fs_program_depend(r->p, first + (int32_t)target, first + (int32_t)i, point)
             ? out_of_memory(r)
             : 0;
}

static int read_dependents(bin_reader *r, int32_t rank, uint32_t nodes) {
  for (uint32_t i = 0; i < nodes; i++) {
    const uint32_t *n = r->node + (size_t)N_WORDS * i;
    for (uint32_t k = 0; k < n[N_ENDS] + (uint64_t)n[N_STARTS]; k++)
      if (read_dependent(r, rank, nodes, i, k < n[N_ENDS] ? FS_AFTER_END : FS_AFTER_START))
        return -1;
  }
  for (uint32_t i = 0; i < nodes; i++) {
    const uint32_t *n = r->node + (size_t)N_WORDS * i;
    if (n[N_LEFT])
      return fail(r, record_at(r, i),
                  "expected a dependency count of %u, the operations listing operation %u (got "
                  "%u)",
                  n[N_COUNT] - n[N_LEFT], i, n[N_COUNT]);
  }
  return 0;
}

/* The block's counts against its size in the block table: room for its
 * records, then exactly the lists they announce. */
static int check_size(bin_reader *r, int32_t rank, uint32_t nodes, uint64_t listed, int records) {
  uint64_t room = r->ends[rank] - (uint64_t)r->block_at;
  uint64_t need = 8 + 4 * (uint64_t)r->block_roots + RECORD * (uint64_t)nodes;
  if (!records && need > room)
    return fail(r, r->block_at,
                "expected counts that fit in rank %d's block of %llu bytes (got %u operations, "
                "%u without dependencies: %llu bytes)",
                (int)rank, (unsigned long long)room, nodes, r->block_roots,
                (unsigned long long)need);
  if (records && room - need != 4 * listed)
    return fail(r, HEADER + 16 * (int64_t)rank + 8,
                "expected %llu, the end of rank %d's block after its %llu listed dependents, "
                "less 8 (got %llu)",
                (unsigned long long)(r->block_at + need + 4 * listed - TABLE_BASE), (int)rank,
                (unsigned long long)listed, (unsigned long long)(r->ends[rank] - TABLE_BASE));
  return 0;
}

static int read_block(bin_reader *r, int32_t rank) {
  r->block_at = offset(r);
  const uint8_t *b = take(r, 8,
                          "rank %d's operation count and count of operations without "
                          "dependencies",
                          (int)rank);
  if (!b) return -1;
  uint32_t nodes = u32_at(b);
  r->block_roots = u32_at(b + 4);
  if (nodes > (uint32_t)(FS_MAX_TASKS - r->p->tasks))
    return fail(r, r->block_at, "expected at most %d operations in a program (got %u more)",
                FS_MAX_TASKS - r->p->tasks, nodes);
  if (r->block_roots > nodes)
    return fail(r, r->block_at + 4,
                "expected at most %u operations without dependencies, the operation count (got %u)",
                nodes, r->block_roots);
  if (check_size(r, rank, nodes, 0, 0) || read_roots(r, rank, nodes)) return -1;
  uint64_t listed = 0;
  for (uint32_t i = 0; i < nodes; i++)
    if (grow(r, &r->node, &r->node_capacity, (size_t)N_WORDS * (i + 1), sizeof *r->node) ||
        read_record(r, rank, i, &listed))
      return -1;
  return check_size(r, rank, nodes, listed, 1) || check_roots(r, nodes) ||
                 read_dependents(r, rank, nodes)
             ? -1
             : 0;
}

/* ---- entry ---- */

static fs_program *read_all(bin_reader *r) {
  if (read_header(r)) return NULL;
  for (uint32_t rank = 0; rank < r->ranks; rank++)
    if (read_block(r, (int32_t)rank)) return NULL;
  int more = more_bytes(r);
  if (more < 0) return NULL;
  if (more) {
    fail(r, offset(r),
         "expected the end of the file after the block of rank %u, the last (got "
         "more bytes)",
         r->ranks - 1);
    return NULL;
  }
  free(r->ends), r->ends = NULL;
  free(r->node), r->node = NULL;
  return fs_read_program_finalize(&r->p, r->name, r->err);
}

static fs_program *read_and_free(bin_reader *r) {
  fs_program *p = read_all(r);
  fs_program_free(r->p);
  free(r->ends);
  free(r->node);
  free(r->roots);
  free(r->buffer);
  return p;
}

fs_program *fs_goal_bin_read_memory(const uint8_t *data, size_t length, const char *display_name,
                                    fs_error *err) {
  bin_reader r = {.name = display_name, .err = err, .fd = -1, .data = data, .length = length};
  return read_and_free(&r);
}

fs_program *fs_goal_bin_read_file(const char *path, fs_error *err) {
  int is_stdin = strcmp(path, "-") == 0;
  bin_reader r = {.name = is_stdin ? "<stdin>" : path, .err = err};
  if (!(r.buffer = malloc(WINDOW))) {
    fs_error_set(err, "%s: out of memory", path);
    return NULL;
  }
  r.data = r.buffer;
  r.fd = is_stdin ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
  if (r.fd < 0) {
    fs_error_set(err, "%s: cannot open: %s", r.name, strerror(errno));
    free(r.buffer);
    return NULL;
  }
  int fd = r.fd;
  fs_program *p = read_and_free(&r);
  close(fd);
  return p;
}

int fs_goal_bin_recognize(const uint8_t *start, size_t length) {
  if (length < 8) return 0;
  uint64_t magic = u64_at(start);
  return magic == FS_GOAL_BIN_MAGIC || magic == FS_GOAL_BIN_INVALIDATED ||
         magic == __builtin_bswap64(FS_GOAL_BIN_MAGIC) ||
         magic == __builtin_bswap64(FS_GOAL_BIN_INVALIDATED);
}
