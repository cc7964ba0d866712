/* goal_interleaved.c: see goal_interleaved.h. Since every rank holds W
 * operations, rank r's j-th is task j x ranks + r before a line is read;
 * since every block has rank 0's dependencies (the same `lA requires lB`
 * lines in the same order: the block's "shape"), task j x ranks + r's
 * successors are known too: they start at base_j + r x count_j, base_j the
 * successors of all ranks' tasks before position j. So threads ("lanes")
 * read ranges of ranks into the final arrays, each writing its own ranks'
 * places, and nothing is joined, counted or copied after.
 *
 * A lane reads a tile of ranks (up to TILE_RANKS) into small buffers,
 * rank by rank, then writes them out position by position: a run of the
 * tile's ranks at once in every array. Written one task at a time, the W
 * rows of a 2^20-rank program lie a power of two apart, fall into the same
 * cache sets and evict each other: the reading took twice as long.
 *
 * Why at all: on the development machine the first touch of fresh memory
 * costs about as much as the parsing. Reading as usual and renumbering
 * after made the program three times over (the parts' arrays, the joined
 * ones, the renumbering's scratch); this makes it once. A file is read
 * with pread into a buffer per lane rather than mapped: each first touch
 * of a mapped page is a fault there too (0.6-0.8 s for a 1.6 GB file,
 * against 0.2 s of read calls), and the buffer stays in cache.
 *
 * Sections: sources (a range of the input, a line at a time), the shape
 * (rank 0's block), the lanes (reading and writing tiles), the read. */
#include "formats/goal_interleaved.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/goal_lines.h"

#define WIDTH_MAX 65535           /* operations per rank */
#define TILE_TASKS 4096           /* tasks a tile buffers: ranks x W */
#define TILE_RANKS 64             /* ranks a tile buffers at most */
#define CHUNK ((size_t)1 << 20)   /* bytes a lane reads at once */
#define PAD (2 * GOAL_LINE_SLACK) /* zeros after the last byte, no rule accepts them */
#define LANES_MAX 8               /* threads at most */
#define SHORTEST_LINE 11          /* "l1: calc 0\n"; also "rank 0 {\n}\n" */

/* ---- sources: a range of the input, a line at a time ----
 * The bytes [at, end) are in view, and GOAL_LINE_SLACK bytes readable from
 * at: bytes of the input, then (past the range's end) zeros. A file is
 * read into a buffer of its own; memory is read in place until its last
 * bytes, which are copied out to be followed by zeros. */

typedef struct source {
  int fd;       /* -1: memory */
  char *buffer; /* CHUNK + PAD (file), PAD (memory) */
  const char *at, *end;
  size_t offset, stop; /* the input's offsets of end and of the range's end */
  int last;            /* the range's last bytes are in view, zeros after */
} source;

/* Reads the range [from, stop) of the file fd (-1: of data); 0, or -1. */
static int source_open(source *s, int fd, const char *data, size_t from, size_t stop) {
  *s = (source){.fd = fd, .offset = from, .stop = stop};
  if (!(s->buffer = malloc(fd >= 0 ? CHUNK + PAD : PAD))) return -1;
  s->at = s->end = fd >= 0 ? s->buffer : data + from;
  return 0;
}

static void source_close(source *s) { free(s->buffer), s->buffer = NULL; }

/* Brings GOAL_LINE_SLACK bytes (or the rest of the range) into view;
 * 0, or -1 when the file cannot be read. */
static int refill(source *s) {
  size_t left = (size_t)(s->end - s->at);
  if (s->last || left >= GOAL_LINE_SLACK) return 0;
  if (s->fd < 0) {
    if (s->offset < s->stop) { /* in place until the range's end */
      size_t more = s->stop - s->offset < CHUNK ? s->stop - s->offset : CHUNK;
      s->end += more, s->offset += more;
      if (s->end - s->at >= GOAL_LINE_SLACK) return 0;
      left = (size_t)(s->end - s->at);
    }
    memcpy(s->buffer, s->at, left);
  } else {
    memmove(s->buffer, s->at, left);
    while (left < CHUNK && s->offset < s->stop) {
      size_t want = CHUNK - left < s->stop - s->offset ? CHUNK - left : s->stop - s->offset;
      ssize_t got = pread(s->fd, s->buffer + left, want, (off_t)s->offset);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return -1;
      left += (size_t)got, s->offset += (size_t)got;
    }
  }
  s->at = s->buffer, s->end = s->buffer + left;
  if (s->offset == s->stop) { /* the range's end in view: zeros after it */
    memset(s->buffer + left, 0, PAD - (s->fd < 0 ? left : 0));
    s->last = 1;
  }
  return 0;
}

/* The line at s->at with GOAL_LINE_SLACK bytes readable, or NULL at the
 * range's end or when the file cannot be read. */
static const char *line_at(source *s) {
  if (s->end - s->at < GOAL_LINE_SLACK && refill(s)) return NULL;
  return s->at < s->end ? s->at : NULL;
}

/* Blank lines skipped: the next line, or NULL. */
static const char *skip_blank(source *s) {
  const char *line;
  while ((line = line_at(s)) && *line == '\n') s->at++;
  return line;
}

/* `rank R {\n` for R = rank (canonical) after blank lines: 0, or -1. */
static int open_rank(source *s, int32_t rank) {
  const char *line = skip_blank(s), *after;
  uint64_t value;
  if (!line || memcmp(line, "rank ", 5) != 0 || (line[5] == '0' && line[6] != ' ') ||
      !(after = goal_line_digits(line + 5, 10, &value)) || value != (uint64_t)rank ||
      memcmp(after, " {\n", 3) != 0)
    return -1;
  s->at = after + 3;
  return 0;
}

/* ---- the shape ---- */

/* Rank 0's block: its operations and its dependencies in file order, and
 * what they make of the successor lists. */
typedef struct shape {
  int64_t w, edge_count;
  uint32_t *on, *task; /* edge e: position task[e] requires position on[e] */
  uint32_t *count;     /* per position: its successors (per rank) */
  uint32_t *need;      /* per position: its dependencies */
  uint32_t *list;      /* per position, from first[j]: its successors' positions */
  uint32_t *first;     /* per position + 1: where its list starts */
  int64_t *base;       /* per position + 1: all ranks' successors before it */
  int tagged;          /* a tag other than 0 */
} shape;

static void free_shape(shape *h) {
  free(h->on), free(h->task), free(h->count), free(h->need), free(h->list), free(h->first);
  free(h->base);
}

static int add_edge(shape *h, uint64_t on, uint64_t task, int64_t *capacity) {
  if (h->edge_count == *capacity) {
    int64_t more = *capacity ? 2 * *capacity : 64;
    uint32_t *bigger_on = realloc(h->on, (size_t)more * sizeof *bigger_on);
    if (bigger_on) h->on = bigger_on;
    uint32_t *bigger_task = realloc(h->task, (size_t)more * sizeof *bigger_task);
    if (bigger_task) h->task = bigger_task;
    if (!bigger_on || !bigger_task) return -1;
    *capacity = more;
  }
  h->on[h->edge_count] = (uint32_t)on - 1, h->task[h->edge_count++] = (uint32_t)task - 1;
  return 0;
}

/* Rank 0's block after its `rank 0 {`: 0, or -1 when it is not of
 * schedgen's lines or too wide. Its lines are not checked further: the
 * lanes read this block as any other. */
static int read_shape(shape *h, source *s, int64_t ranks) {
  int64_t capacity = 0;
  for (const char *line; (line = skip_blank(s)) && *line != '}';) {
    const char *after;
    uint64_t a, on;
    goal_line_task op;
    if (!(after = goal_line_label(line, h->w + 1, &a))) return -1;
    if (after[0] == ':') {
      if (a != (uint64_t)h->w + 1 || after[1] != ' ' || h->w == WIDTH_MAX ||
          !(after = goal_line_operation(after + 2, (int32_t)ranks, &op)))
        return -1;
      h->w++, h->tagged |= op.tag != 0;
    } else if (a > (uint64_t)h->w || !(after = goal_line_requires(after, h->w, &on)) ||
               add_edge(h, on, a, &capacity)) {
      return -1;
    }
    s->at = after;
  }
  return h->w >= 2 ? 0 : -1;
}

/* The successor lists the shape makes: per position its count, need,
 * list and base (over all ranks). 0, or -1 when out of memory. */
static int lay_out(shape *h, int64_t ranks) {
  int64_t w = h->w, m = h->edge_count;
  h->count = calloc((size_t)w, sizeof *h->count);
  h->need = calloc((size_t)w, sizeof *h->need);
  h->first = calloc((size_t)w + 1, sizeof *h->first);
  h->base = calloc((size_t)w + 1, sizeof *h->base);
  h->list = malloc((size_t)(m ? m : 1) * sizeof *h->list);
  uint32_t *next = calloc((size_t)w, sizeof *next);
  int failed = !h->count || !h->need || !h->first || !h->base || !h->list || !next;
  for (int64_t e = 0; !failed && e < m; e++) h->count[h->on[e]]++, h->need[h->task[e]]++;
  for (int64_t j = 0; !failed && j < w; j++) {
    h->first[j + 1] = h->first[j] + h->count[j];
    h->base[j + 1] = h->base[j] + ranks * h->count[j];
  }
  for (int64_t e = 0; !failed && e < m; e++) /* file order: the order the full reader keeps */
    h->list[h->first[h->on[e]] + next[h->on[e]]++] = h->task[e];
  free(next);
  return failed ? -1 : 0;
}

/* ---- the lanes ---- */

/* One thread's share of the input, and its tile. */
typedef struct lane {
  fs_program *p; /* shared: every array written at this lane's ranks' places */
  const shape *h;
  source in;          /* this lane's blocks */
  int32_t first, end; /* and their ranks: [first, end) */
  int32_t tile_ranks;
  /* the tile: rank i's j-th task at i x w + j */
  uint8_t *kind, *flags;
  int32_t *peer, *tag;
  int64_t *value;
  int failed, started;
  pthread_t thread;
} lane;

/* The lines of a block after its `rank R {`, into the tile at rank i:
 * 0, or -1. */
static int read_block(lane *k, int64_t i) {
  const shape *h = k->h;
  source *s = &k->in;
  int64_t n = 0, e = 0, at = i * h->w;
  for (const char *line; (line = skip_blank(s)) && *line != '}';) {
    const char *after;
    uint64_t a, on;
    goal_line_task op;
    if (!(after = goal_line_label(line, n + 1, &a))) return -1;
    if (after[0] == ':') {
      if (a != (uint64_t)n + 1 || n == h->w || after[1] != ' ' ||
          !(after = goal_line_operation(after + 2, k->p->ranks, &op)) || (op.tag && !k->tag))
        return -1;
      k->kind[at + n] = op.kind, k->flags[at + n] = op.flags, k->peer[at + n] = op.peer;
      k->value[at + n] = op.value;
      if (k->tag) k->tag[at + n] = op.tag;
      n++;
    } else if (a > (uint64_t)n || !(after = goal_line_requires(after, n, &on)) ||
               e == h->edge_count || h->on[e] != on - 1 || h->task[e] != a - 1) {
      return -1;
    } else {
      e++;
    }
    s->at = after;
  }
  const char *line = line_at(s);
  if (!line || line[1] != '\n' || n != h->w || e != h->edge_count) return -1;
  s->at = line + 2;
  return 0;
}

/* Writes the tile of ranks [r0, r0 + count) out to the program, position
 * by position. */
static void write_tile(lane *k, int32_t r0, int32_t count) {
  fs_program *p = k->p;
  const shape *h = k->h;
  int64_t ranks = p->ranks, w = h->w;
  for (int64_t j = 0; j < w; j++) {
    int64_t t = j * ranks + r0;
    uint32_t c = h->count[j], need = h->need[j];
    uint32_t *out = p->successor + h->base[j] + (int64_t)r0 * c;
    const uint32_t *list = h->list + h->first[j];
    for (int32_t i = 0; i < count; i++) {
      int64_t from = i * w + j;
      p->kind[t + i] = k->kind[from], p->flags[t + i] = k->flags[from];
      p->rank[t + i] = r0 + i, p->peer[t + i] = k->peer[from];
      p->value[t + i] = k->value[from], p->need[t + i] = (int32_t)need;
      if (p->tag) p->tag[t + i] = k->tag[from];
      p->successor_at[t + i] = (uint32_t)(h->base[j] + (int64_t)(r0 + i) * c);
      for (uint32_t x = 0; x < c; x++) *out++ = (uint32_t)((int64_t)list[x] * ranks + r0 + i);
    }
  }
}

/* A lane's blocks tile by tile, then nothing but blank lines to its end. */
static void *read_lane(void *arg) {
  lane *k = arg;
  int failed = 0;
  for (int32_t r0 = k->first; r0 < k->end && !failed; r0 += k->tile_ranks) {
    int32_t count = k->end - r0 < k->tile_ranks ? k->end - r0 : k->tile_ranks;
    for (int32_t i = 0; i < count && !failed; i++)
      failed = open_rank(&k->in, r0 + i) || read_block(k, i);
    if (!failed) write_tile(k, r0, count);
  }
  k->failed = failed || skip_blank(&k->in) != NULL || !k->in.last;
  return NULL;
}

/* Runs each lane, the first on this thread, the others on threads of
 * their own (or here, one after another, when none starts). */
static void run_lanes(lane *lanes, int count) {
  for (int i = 1; i < count; i++)
    lanes[i].started = pthread_create(&lanes[i].thread, NULL, read_lane, &lanes[i]) == 0;
  read_lane(&lanes[0]);
  for (int i = 1; i < count; i++)
    if (lanes[i].started)
      pthread_join(lanes[i].thread, NULL);
    else
      read_lane(&lanes[i]);
}

/* The first `rank R {` line in the input from `from` on (within CHUNK
 * bytes of a file), R in *rank; `length` when none. */
static size_t next_block(int fd, const char *data, size_t from, size_t length, int32_t *rank) {
  if (fd < 0) return goal_line_next_block(data, from, length, rank);
  size_t want = length - from < CHUNK ? length - from : CHUNK;
  char *buffer = malloc(want ? want : 1);
  ssize_t got = buffer ? pread(fd, buffer, want, (off_t)from) : -1;
  size_t at = got > 0 ? goal_line_next_block(buffer, 0, (size_t)got, rank) : 0;
  free(buffer);
  return got > 0 && at < (size_t)got ? from + at : length;
}

/* Cuts [start, length) into up to `threads` lanes at `rank R {` lines,
 * each of at least min_part bytes; how many, or -1 when out of memory. */
static int cut_lanes(lane *lanes, int fd, const char *data, size_t start, size_t length,
                     int32_t ranks, int threads, size_t min_part) {
  size_t rest = length - start, size = min_part ? min_part : 1, cut[LANES_MAX];
  int want = rest / size < (size_t)threads ? (int)(rest / size) : threads, count = 1;
  cut[0] = start, lanes[0].first = 0;
  for (int i = 1; i < want; i++) {
    int32_t rank = 0;
    size_t at = next_block(fd, data, start + rest / (size_t)want * (size_t)i, length, &rank);
    if (at == length || at <= cut[count - 1] || rank <= lanes[count - 1].first || rank >= ranks)
      continue;
    lanes[count - 1].end = rank;
    cut[count] = at, lanes[count++].first = rank;
  }
  lanes[count - 1].end = ranks;
  for (int i = 0; i < count; i++)
    if (source_open(&lanes[i].in, fd, data, cut[i], i + 1 < count ? cut[i + 1] : length)) return -1;
  return count;
}

/* A lane's tile buffers: 0, or -1. */
static int allocate_tile(lane *k, int64_t w, int tagged) {
  int64_t n = (int64_t)k->tile_ranks * w;
  k->kind = malloc((size_t)n), k->flags = malloc((size_t)n);
  k->peer = malloc((size_t)n * sizeof *k->peer), k->value = malloc((size_t)n * sizeof *k->value);
  k->tag = tagged ? malloc((size_t)n * sizeof *k->tag) : NULL;
  return k->kind && k->flags && k->peer && k->value && (k->tag || !tagged) ? 0 : -1;
}

static void free_lane(lane *k) {
  free(k->kind), free(k->flags), free(k->peer), free(k->value), free(k->tag);
  source_close(&k->in);
}

/* The program's arrays for `tasks` tasks and `edges` successors: 0, or -1
 * (also past the machine's memory: the usual reader says so). */
static int allocate(fs_program *p, int64_t tasks, int64_t edges, int tagged) {
  int64_t per_task = 1 + 1 + 4 + 4 + 8 + 4 + 4 + (tagged ? 4 : 0); /* and the offsets */
  if (tasks > (fs_memory_limit() - 4 * edges) / per_task) return -1;
  if (fs_program_reserve(p, tasks, 0) || (tagged && fs_task_set_tag(p, 0, 0))) return -1;
  uint32_t *at = malloc(((size_t)tasks + 2) * sizeof *at);
  uint32_t *successor = malloc((size_t)(edges ? edges : 1) * sizeof *successor);
  if (!at || !successor) {
    free(at), free(successor);
    return -1;
  }
  fs_memory_huge_pages(at, ((size_t)tasks + 2) * sizeof *at);
  fs_memory_huge_pages(successor, (size_t)edges * sizeof *successor);
  at[tasks] = at[tasks + 1] = (uint32_t)edges;
  return fs_program_set_successors(p, at, successor, edges, 0);
}

/* Reads the lanes into p; 0, or -1. */
static int read_lanes(fs_program *p, const shape *h, int fd, const char *data, size_t start,
                      size_t length, int threads, size_t min_part) {
  lane lanes[LANES_MAX] = {{0}};
  if (threads > LANES_MAX) threads = LANES_MAX;
  int count = cut_lanes(lanes, fd, data, start, length, p->ranks, threads, min_part);
  int64_t fit = TILE_TASKS / h->w;
  int failed = count < 0;
  for (int i = 0; i < count; i++) {
    lane *k = &lanes[i];
    k->p = p, k->h = h, k->tile_ranks = fit < 1 ? 1 : fit > TILE_RANKS ? TILE_RANKS : (int32_t)fit;
    failed |= allocate_tile(k, h->w, h->tagged);
  }
  if (!failed) run_lanes(lanes, count);
  for (int i = 0; i < LANES_MAX; i++) /* (those never opened are zero: nothing to free) */
    failed |= lanes[i].failed, free_lane(&lanes[i]);
  return failed ? -1 : 0;
}

/* ---- the read ---- */

/* `num_ranks N\n` (N canonical, from 2) after blank lines, then rank 0's
 * block: its shape. 0, or -1. */
static int read_head(source *s, uint64_t *ranks, shape *h, size_t *start) {
  const char *line = skip_blank(s), *after;
  if (!line || memcmp(line, "num_ranks ", 10) != 0 || line[10] == '0' ||
      !(after = goal_line_digits(line + 10, 10, ranks)) || *after != '\n' || *ranks < 2 ||
      *ranks > INT32_MAX)
    return -1;
  s->at = after + 1;
  *start = s->offset - (size_t)(s->end - s->at); /* where rank 0's block begins */
  return open_rank(s, 0) || read_shape(h, s, (int64_t)*ranks) ? -1 : 0;
}

fs_program *fs_goal_read_interleaved(int fd, const char *data, size_t length, int threads,
                                     size_t min_part) {
  source head;
  shape h = {0};
  uint64_t ranks = 0;
  size_t start = 0;
  fs_program *p = NULL;
  if (!length || source_open(&head, fd, data, 0, length)) return NULL;
  int failed = read_head(&head, &ranks, &h, &start);
  source_close(&head);
  /* a file too short for what it claims is left to the full reader's message */
  failed = failed || (int64_t)ranks * h.w > FS_MAX_TASKS ||
           (int64_t)ranks * (h.w + 1) * SHORTEST_LINE > (int64_t)length ||
           (int64_t)ranks * h.edge_count > FS_MAX_DEPENDENCIES || lay_out(&h, (int64_t)ranks) ||
           !(p = fs_program_new((int32_t)ranks)) ||
           allocate(p, (int64_t)ranks * h.w, (int64_t)ranks * h.edge_count, h.tagged) ||
           read_lanes(p, &h, fd, data, start, length, threads < 1 ? 1 : threads, min_part);
  if (!failed) {
    fs_error err;
    p->tasks = (int32_t)((int64_t)ranks * h.w);
    p->names_implied = p->named = 1, p->interleaved = (int32_t)h.w, p->degrees_counted = 1;
    failed = fs_program_finalize(p, &err);
  }
  free_shape(&h);
  if (failed) fs_program_free(p), p = NULL;
  return p;
}
