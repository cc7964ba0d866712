/* fenneltrace.c: the PMPI tracer, libfenneltrace.so. Preloaded into an MPI
 * program (LD_PRELOAD=libfenneltrace.so mpirun ...) or linked before the MPI
 * library, it records per rank every point-to-point call (each start of a
 * persistent request as the isend or irecv it stands for), wait and test,
 * collective (a nonblocking one with req=) and communicator call with its
 * start and end times, into
 * $FENNELTRACE_DIR/rank-N.fstrace.gz (docs/TRACES.md: the format, what is
 * recorded and what is not, and the measured overhead).
 *
 * The hot path formats each call into a per-rank buffer, written to a
 * plain temporary file when it fills; requests and communicators map to
 * the trace's ids through two small hash tables. Compressing inline would
 * cost more than the MPI call itself (about 600 ns a line), so the file is
 * compressed at MPI_Finalize, after the traced span, into another temporary
 * name that is renamed: an interrupted run leaves no trace that looks
 * whole. The time spent writing the buffer is taken out of the recorded
 * clock, so it does not show as computation. An interposer is process-wide by nature: its state is the
 * one static `tracer` below. C bindings only; one thread makes MPI calls. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define BUFFER_SIZE ((size_t)1 << 20)
#define FLUSH_AT (BUFFER_SIZE - 4096) /* a line's fields are written 32 bytes at a time */
#define OFFSET_ROUNDS 16              /* ping-pongs with rank 0 per rank; the fastest one counts */
#define RECEIVE_FLAG ((int64_t)1 << 40) /* in the request map: the request is a receive */

/* handle (its bits) -> value, open addressing with backward-shift deletion */
typedef struct map_slot {
  uint64_t key;
  int64_t value, tail; /* requests: the first and last node of the handle's queue */
  int used;
} map_slot;

/* A request id waiting for completion. Open MPI hands out one shared handle
 * for sends that complete at once, so a handle may stand for several ids:
 * they queue, oldest first, and a wait takes them in order. */
typedef struct request_node {
  int64_t entry; /* the id, | RECEIVE_FLAG for a receive */
  int64_t next;  /* the next node of the handle's queue, or of the free list; -1 none */
  int64_t stamp; /* the wait/test call that took it, so one call takes each node once */
} request_node;

typedef struct handle_map {
  map_slot *slots;
  size_t count, capacity;
} handle_map;

/* A persistent request's parameters, from its MPI_*_init: each MPI_Start
 * of it writes the line of the isend or irecv it stands for. */
typedef struct persistent {
  const char *kind; /* "isend", "issend", "ibsend", "irsend" or "irecv" */
  int receive;
  int64_t peer, tag, comm, bytes; /* as the line writes them */
  int64_t next_free;              /* the free list; -1 none */
} persistent;

typedef struct tracer {
  int active; /* between MPI_Init and MPI_Finalize, with a file open */
  int rank, size;
  int64_t origin; /* CLOCK_MONOTONIC at the entry of MPI_Init, ns */
  int out;        /* the plain temporary file */
  char *buffer;
  size_t used;
  char path[PATH_MAX], temporary[PATH_MAX + 8], plain[PATH_MAX + 8];
  handle_map requests, comms;
  request_node *nodes;
  int64_t node_capacity, free_node, next_request, comms_made, calls;
  handle_map persistent_map; /* handle -> index in persistents */
  persistent *persistents;
  int64_t persistent_capacity, free_persistent;
  /* scratch for the wait and test families, grown as needed */
  MPI_Request *handles;
  int64_t *ids, *node_of;
  MPI_Status *statuses;
  int *indices;
  size_t scratch_capacity;
} tracer;

static tracer state = {.free_node = -1, .free_persistent = -1};

/* ---- time ---- */

static int64_t monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int64_t now(void) { return monotonic_ns() - state.origin; }

/* ---- output ---- */

static void stop(const char *what) {
  if (!state.active) return;
  fprintf(stderr, "fenneltrace: rank %d: %s %s: %s; tracing stops\n", state.rank, what, state.plain,
          strerror(errno));
  state.active = 0;
  close(state.out);
  remove(state.plain);
}

static int write_all(int fd, const char *data, size_t length) {
  while (length) {
    ssize_t n = write(fd, data, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    data += n;
    length -= (size_t)n;
  }
  return 0;
}

static void flush(void) {
  if (!state.active) { /* stopped after a write error: drop */
    state.used = 0;
    return;
  }
  int64_t begun = monotonic_ns();
  if (state.used && write_all(state.out, state.buffer, state.used)) stop("cannot write");
  state.used = 0;
  state.origin += monotonic_ns() - begun; /* the tracer's own time is not the program's */
}

static void reserve(size_t bytes) {
  if (state.used + bytes > BUFFER_SIZE) flush();
}

static void put(const char *text) {
  size_t n = strlen(text);
  reserve(n);
  memcpy(state.buffer + state.used, text, n);
  state.used += n;
}

static void put_int(int64_t value) {
  char digits[24];
  int n = 0;
  uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
  do digits[n++] = (char)('0' + magnitude % 10);
  while ((magnitude /= 10) != 0);
  reserve(32);
  if (value < 0) state.buffer[state.used++] = '-';
  while (n) state.buffer[state.used++] = digits[--n];
}

static void put_key(const char *key, int64_t value) {
  put(key);
  put_int(value);
}

static void begin(const char *kind, int64_t start, int64_t end) {
  put(kind);
  put_key(" ", start);
  put_key(" ", end);
}

static void end_line(void) {
  reserve(1);
  state.buffer[state.used++] = '\n';
  if (state.used >= FLUSH_AT) flush();
}

/* ---- handle maps ---- */

#define KEY(handle) handle_key(&(handle), sizeof(handle))

static uint64_t handle_key(const void *handle, size_t size) {
  uint64_t key = 0;
  memcpy(&key, handle, size < sizeof key ? size : sizeof key);
  return key;
}

static size_t home(const handle_map *m, uint64_t key) {
  return (size_t)((key * 0x9E3779B97F4A7C15u) >> 17) & (m->capacity - 1);
}

static map_slot *map_find(const handle_map *m, uint64_t key) {
  if (!m->capacity) return NULL;
  for (size_t i = home(m, key);; i = (i + 1) & (m->capacity - 1)) {
    if (!m->slots[i].used) return NULL;
    if (m->slots[i].key == key) return &m->slots[i];
  }
}

static int map_grow(handle_map *m) {
  handle_map bigger = {calloc(m->capacity ? m->capacity * 2 : 64, sizeof(map_slot)), 0,
                       m->capacity ? m->capacity * 2 : 64};
  if (!bigger.slots) return -1;
  for (size_t i = 0; i < m->capacity; i++)
    if (m->slots[i].used) {
      size_t j = home(&bigger, m->slots[i].key);
      while (bigger.slots[j].used) j = (j + 1) & (bigger.capacity - 1);
      bigger.slots[j] = m->slots[i];
      bigger.count++;
    }
  free(m->slots);
  *m = bigger;
  return 0;
}

/* The slot of key, added with this value if new; NULL when out of memory
 * (the handle stays unknown to the trace). */
static map_slot *map_put(handle_map *m, uint64_t key, int64_t value) {
  map_slot *slot = map_find(m, key);
  if (slot) return slot;
  if ((m->count + 1) * 2 > m->capacity && map_grow(m)) return NULL;
  size_t i = home(m, key);
  while (m->slots[i].used) i = (i + 1) & (m->capacity - 1);
  m->slots[i] = (map_slot){key, value, value, 1};
  m->count++;
  return &m->slots[i];
}

static void map_remove(handle_map *m, uint64_t key) {
  map_slot *slot = map_find(m, key);
  if (!slot) return;
  size_t mask = m->capacity - 1, hole = (size_t)(slot - m->slots);
  slot->used = 0;
  m->count--;
  for (size_t j = (hole + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
    size_t h = home(m, m->slots[j].key);
    /* the entry at j may move into the hole unless its home lies cyclically in (hole, j] */
    int stays = hole < j ? (h > hole && h <= j) : (h > hole || h <= j);
    if (stays) continue;
    m->slots[hole] = m->slots[j];
    m->slots[j].used = 0;
    hole = j;
  }
}

/* ---- ranks, tags, sizes ---- */

static int64_t rank_out(int rank) {
  return rank == MPI_ANY_SOURCE ? -1 : rank == MPI_PROC_NULL ? -3 : rank;
}

static int64_t tag_out(int tag) { return tag == MPI_ANY_TAG ? -1 : tag; }

static int64_t type_bytes(int count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0) return 0;
  PMPI_Type_size(type, &size);
  return (int64_t)count * size;
}

/* ---- communicators ---- */

/* World ranks of comm's members, in comm rank order (caller frees). */
static int *world_members(MPI_Comm comm, int size) {
  int *members = malloc((size_t)size * 2 * sizeof *members);
  if (!members) return NULL;
  MPI_Group group, world;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  for (int i = 0; i < size; i++) members[size + i] = i;
  PMPI_Group_translate_ranks(group, size, members + size, world, members);
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  return members;
}

/* "comm ID SIZE MEMBERS" before the first line that uses it. */
static void define_comm(MPI_Comm comm, int64_t id, const int *members, int size) {
  put_key("comm ", id);
  put_key(" ", size);
  for (int i = 0; i < size; i++) put_key(" ", members[i]);
  end_line();
  map_slot *slot = map_put(&state.comms, KEY(comm), id);
  if (slot) slot->value = id; /* a freed communicator's handle, reused */
}

/* A communicator made by a call the tracer does not record (Cart_create,
 * Comm_create_group...): an id every member computes alone, from a hash of
 * the members, above 2^62 so it meets no agreed id. */
static int64_t define_unknown_comm(MPI_Comm comm) {
  int size, inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_size(comm, &size);
  int *members = world_members(comm, size);
  uint64_t hash = 1469598103934665603u ^ (uint64_t)size;
  for (int i = 0; members && i < size; i++) hash = (hash ^ (uint64_t)members[i]) * 1099511628211u;
  int64_t id = (int64_t)(((uint64_t)1 << 62) | (hash & (((uint64_t)1 << 61) - 1)));
  if (members && !inter) define_comm(comm, id, members, size);
  free(members);
  return id;
}

static int64_t comm_id(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return 0;
  if (comm == MPI_COMM_SELF) return 1;
  map_slot *slot = map_find(&state.comms, KEY(comm));
  return slot ? slot->value : define_unknown_comm(comm);
}

/* After Comm_split/dup/create: the members agree on an id (comm rank 0's
 * world rank x 2^32 + its creation counter + 2, broadcast with PMPI) and
 * the comm line is written. -1 for MPI_COMM_NULL. */
static int64_t register_comm(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return -1;
  int rank, size, inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return define_unknown_comm(comm);
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int64_t id = ((int64_t)state.rank << 32) + state.comms_made + 2;
  if (rank == 0) state.comms_made++;
  PMPI_Bcast(&id, 1, MPI_INT64_T, 0, comm);
  int *members = world_members(comm, size);
  if (members) define_comm(comm, id, members, size);
  free(members);
  return id;
}

/* ---- requests ---- */

static int64_t new_node(int64_t entry) {
  if (state.free_node < 0) {
    int64_t capacity = state.node_capacity ? state.node_capacity * 2 : 256;
    request_node *nodes = realloc(state.nodes, (size_t)capacity * sizeof *nodes);
    if (!nodes) return -1;
    for (int64_t n = state.node_capacity; n < capacity; n++)
      nodes[n].next = n + 1 < capacity ? n + 1 : -1;
    state.nodes = nodes;
    state.free_node = state.node_capacity;
    state.node_capacity = capacity;
  }
  int64_t n = state.free_node;
  state.free_node = state.nodes[n].next;
  state.nodes[n] = (request_node){entry, -1, 0};
  return n;
}

/* A new id for the request an isend or irecv made, queued on its handle. */
static int64_t new_request(MPI_Request request, int receive) {
  int64_t id = ++state.next_request, n = new_node(id | (receive ? RECEIVE_FLAG : 0));
  if (n < 0) return id;
  map_slot *slot = map_put(&state.requests, KEY(request), n);
  if (!slot) {
    state.nodes[n].next = state.free_node;
    state.free_node = n;
  } else if (slot->tail != n) {
    state.nodes[slot->tail].next = n;
    slot->tail = n;
  }
  return id;
}

/* Takes the oldest node of the handle not taken by this call yet. */
static int64_t take_node(MPI_Request request) {
  map_slot *slot = map_find(&state.requests, KEY(request));
  int64_t n = slot ? slot->value : -1;
  while (n >= 0 && state.nodes[n].stamp == state.calls) n = state.nodes[n].next;
  if (n >= 0) state.nodes[n].stamp = state.calls;
  return n;
}

/* Unlinks node n from the queue of its handle, and frees it. */
static void drop_node(MPI_Request request, int64_t n) {
  map_slot *slot = map_find(&state.requests, KEY(request));
  if (!slot) return;
  int64_t previous = -1, at = slot->value;
  while (at >= 0 && at != n) previous = at, at = state.nodes[at].next;
  if (at < 0) return;
  int64_t next = state.nodes[n].next;
  if (previous < 0)
    slot->value = next;
  else
    state.nodes[previous].next = next;
  if (slot->tail == n) slot->tail = previous;
  state.nodes[n].next = state.free_node;
  state.free_node = n;
  if (slot->value < 0) map_remove(&state.requests, KEY(request));
}

static int64_t id_of(int64_t entry) { return entry < 0 ? entry : entry & (RECEIVE_FLAG - 1); }

/* Room for n requests, ids, statuses and indices; 0 when out of memory. */
static int scratch(size_t n) {
  if (n <= state.scratch_capacity) return 1;
  size_t capacity = n < 64 ? 64 : n * 2;
  MPI_Request *handles = realloc(state.handles, capacity * sizeof *handles);
  if (handles) state.handles = handles;
  int64_t *ids = realloc(state.ids, capacity * sizeof *ids);
  if (ids) state.ids = ids;
  int64_t *node_of = realloc(state.node_of, capacity * sizeof *node_of);
  if (node_of) state.node_of = node_of;
  MPI_Status *statuses = realloc(state.statuses, capacity * sizeof *statuses);
  if (statuses) state.statuses = statuses;
  int *indices = realloc(state.indices, capacity * sizeof *indices);
  if (indices) state.indices = indices;
  if (!handles || !ids || !node_of || !statuses || !indices) return 0;
  state.scratch_capacity = capacity;
  return 1;
}

/* Saves the requests' entries before the call changes the handles. */
static int save_requests(int count, const MPI_Request *requests) {
  if (count < 0 || !scratch((size_t)count + 1)) return 0;
  state.calls++;
  for (int i = 0; i < count; i++) {
    int64_t n = requests[i] == MPI_REQUEST_NULL ? -1 : take_node(requests[i]);
    state.handles[i] = requests[i];
    state.node_of[i] = n;
    /* -1: MPI_REQUEST_NULL, or an inactive persistent request (MPI treats it
     * alike); -2: a request the tracer did not make (Ineighbor_alltoall...) */
    int null = requests[i] == MPI_REQUEST_NULL ||
               (n < 0 && map_find(&state.persistent_map, KEY(requests[i])));
    state.ids[i] = n >= 0 ? state.nodes[n].entry : null ? -1 : -2;
  }
  return 1;
}

static void put_ids(const char *key, int count) {
  put(key);
  for (int i = 0; i < count; i++) {
    if (i) put(",");
    put_int(id_of(state.ids[i]));
  }
}

/* Entry i completed (with its status): forgets its handle, and gives
 * "status=" entries for receives; *first tracks the separator. */
static void completed(int i, const MPI_Status *status, int *first) {
  int64_t entry = state.ids[i];
  if (entry < 0) return;
  drop_node(state.handles[i], state.node_of[i]);
  if (!(entry & RECEIVE_FLAG)) return;
  put(*first ? " status=" : ",");
  *first = 0;
  put_int(id_of(entry));
  put_key(":", rank_out(status->MPI_SOURCE));
  put_key(":", tag_out(status->MPI_TAG));
}

/* ---- MPI_Init and MPI_Finalize ---- */

static int make_directories(char *path) {
  for (char *slash = strchr(path + 1, '/');; slash = strchr(slash + 1, '/')) {
    if (slash) *slash = 0;
    int made = mkdir(path, 0777) == 0 || errno == EEXIST;
    if (slash) *slash = '/';
    if (!made) return -1;
    if (!slash) return 0;
  }
}

/* This rank's trace clock minus rank 0's: the round trip with the smallest
 * time of OFFSET_ROUNDS, assumed symmetric. Rank 0 serves ranks in order. */
static int64_t clock_offset(void) {
  MPI_Comm private;
  int64_t offset = 0, best = INT64_MAX, t;
  PMPI_Comm_dup(MPI_COMM_WORLD, &private);
  for (int peer = 1; peer < state.size; peer++)
    for (int round = 0; round < OFFSET_ROUNDS; round++) {
      if (state.rank == 0) {
        PMPI_Recv(&t, 1, MPI_INT64_T, peer, 0, private, MPI_STATUS_IGNORE);
        t = now();
        PMPI_Send(&t, 1, MPI_INT64_T, peer, 0, private);
      } else if (state.rank == peer) {
        int64_t sent = now(), zero;
        PMPI_Send(&sent, 1, MPI_INT64_T, 0, 0, private);
        PMPI_Recv(&zero, 1, MPI_INT64_T, 0, 0, private, MPI_STATUS_IGNORE);
        int64_t back = now();
        if (back - sent < best) {
          best = back - sent;
          offset = sent + (back - sent) / 2 - zero;
        }
      }
    }
  PMPI_Comm_free(&private);
  return offset;
}

static void start(int64_t origin) {
  state.origin = origin;
  PMPI_Comm_rank(MPI_COMM_WORLD, &state.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &state.size);
  const char *directory = getenv("FENNELTRACE_DIR");
  char dir[PATH_MAX / 2];
  if (!directory || !directory[0]) directory = "fenneltrace";
  if (strlen(directory) >= sizeof dir) {
    fprintf(stderr, "fenneltrace: FENNELTRACE_DIR is too long; writing to ./fenneltrace\n");
    directory = "fenneltrace";
  }
  memcpy(dir, directory, strlen(directory) + 1);
  snprintf(state.path, sizeof state.path, "%s/rank-%d.fstrace.gz", dir, state.rank);
  snprintf(state.temporary, sizeof state.temporary, "%s.tmp", state.path);
  snprintf(state.plain, sizeof state.plain, "%s/rank-%d.fstrace.tmp", dir, state.rank);
  int64_t offset = clock_offset(); /* every rank takes part, even one that cannot write */
  state.buffer = malloc(BUFFER_SIZE);
  if (make_directories(dir) || !state.buffer ||
      (state.out = open(state.plain, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0) {
    fprintf(stderr, "fenneltrace: rank %d: cannot write %s: %s; not tracing\n", state.rank,
            state.plain, strerror(errno));
    return;
  }
  state.active = 1;
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  for (char *c = host; *c; c++)
    if (*c == ' ' || *c == '\t') *c = '_';
  put("# fennelsim-trace 1\n");
  put_key("rank ", state.rank);
  put_key(" ", state.size);
  put("\nhost ");
  put(host);
  put_key("\nclock_offset_ns ", offset);
  end_line();
  begin("init", 0, now());
  end_line();
}

/* The plain trace into a gzip file, through buffer (BUFFER_SIZE bytes). */
static int compress_file(const char *from, const char *to, char *buffer) {
  int in = open(from, O_RDONLY);
  gzFile out = in < 0 ? NULL : gzopen(to, "wb1");
  int status = out ? 0 : -1;
  ssize_t n;
  while (!status && (n = read(in, buffer, BUFFER_SIZE)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    status = n < 0 || gzwrite(out, buffer, (unsigned)n) != (int)n ? -1 : 0;
  }
  if (out && gzclose(out) != Z_OK) status = -1;
  if (in >= 0) close(in);
  return status;
}

int MPI_Init(int *argc, char ***argv) {
  int64_t origin = monotonic_ns();
  int result = PMPI_Init(argc, argv);
  if (result == MPI_SUCCESS) start(origin);
  return result;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int64_t origin = monotonic_ns();
  int result = PMPI_Init_thread(argc, argv, required, provided);
  if (result == MPI_SUCCESS) start(origin);
  return result;
}

int MPI_Finalize(void) {
  if (!state.active) return PMPI_Finalize();
  int64_t start_time = now();
  int result = PMPI_Finalize();
  begin("finalize", start_time, now());
  end_line();
  flush();
  if (state.active) {
    state.active = 0;
    if (close(state.out) || compress_file(state.plain, state.temporary, state.buffer) ||
        rename(state.temporary, state.path) != 0) {
      fprintf(stderr, "fenneltrace: rank %d: cannot finish %s: %s\n", state.rank, state.path,
              strerror(errno));
      remove(state.temporary);
    }
    remove(state.plain);
  }
  free(state.buffer);
  free(state.requests.slots);
  free(state.comms.slots);
  free(state.handles);
  free(state.ids);
  free(state.node_of);
  free(state.nodes);
  free(state.statuses);
  free(state.indices);
  free(state.persistent_map.slots);
  free(state.persistents);
  return result;
}

/* ---- point to point ---- */

static void p2p_keys(int64_t peer, int64_t tag, int64_t comm, int64_t bytes) {
  put_key(" peer=", peer);
  put_key(" tag=", tag);
  put_key(" comm=", comm);
  put_key(" bytes=", bytes);
}

static void p2p(const char *kind, int64_t start_time, int peer, int tag, int64_t comm, int count,
                MPI_Datatype type) {
  begin(kind, start_time, now());
  p2p_keys(rank_out(peer), tag_out(tag), comm, type_bytes(count, type));
}

static void put_status(const MPI_Status *status) {
  put_key(" source=", rank_out(status->MPI_SOURCE));
  put_key(" stag=", tag_out(status->MPI_TAG));
}

#define BLOCKING_SEND(Name, kind)                                                  \
  int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest, int tag, \
                 MPI_Comm comm) {                                                  \
    if (!state.active) return PMPI_##Name(buf, count, type, dest, tag, comm);      \
    int64_t id = comm_id(comm), start_time = now();                                \
    int result = PMPI_##Name(buf, count, type, dest, tag, comm);                   \
    p2p(kind, start_time, dest, tag, id, count, type);                             \
    end_line();                                                                    \
    return result;                                                                 \
  }
BLOCKING_SEND(Send, "send")
BLOCKING_SEND(Ssend, "ssend")
BLOCKING_SEND(Bsend, "bsend")
BLOCKING_SEND(Rsend, "rsend")

#define NONBLOCKING_SEND(Name, kind)                                                              \
  int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                 MPI_Request *request) {                                                          \
    if (!state.active) return PMPI_##Name(buf, count, type, dest, tag, comm, request);            \
    int64_t id = comm_id(comm), start_time = now();                                               \
    int result = PMPI_##Name(buf, count, type, dest, tag, comm, request);                         \
    p2p(kind, start_time, dest, tag, id, count, type);                                            \
    put_key(" req=", new_request(*request, 0));                                                   \
    end_line();                                                                                   \
    return result;                                                                                \
  }
NONBLOCKING_SEND(Isend, "isend")
NONBLOCKING_SEND(Issend, "issend")
NONBLOCKING_SEND(Ibsend, "ibsend")
NONBLOCKING_SEND(Irsend, "irsend")

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
  if (!state.active) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Status own;
  if (status == MPI_STATUS_IGNORE) status = &own;
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Recv(buf, count, type, source, tag, comm, status);
  p2p("recv", start_time, source, tag, id, count, type);
  put_status(status);
  end_line();
  return result;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
  if (!state.active) return PMPI_Irecv(buf, count, type, source, tag, comm, request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  p2p("irecv", start_time, source, tag, id, count, type);
  put_key(" req=", new_request(*request, 1));
  end_line();
  return result;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status) {
  if (!state.active)
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  MPI_Status own;
  if (status == MPI_STATUS_IGNORE) status = &own;
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, status);
  p2p("sendrecv", start_time, dest, sendtag, id, sendcount, sendtype);
  put_key(" rpeer=", rank_out(source));
  put_key(" rtag=", tag_out(recvtag));
  put_key(" rbytes=", type_bytes(recvcount, recvtype));
  put_status(status);
  end_line();
  return result;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status) {
  if (!state.active)
    return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  MPI_Status own;
  if (status == MPI_STATUS_IGNORE) status = &own;
  int64_t id = comm_id(comm), start_time = now();
  int result =
      PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  p2p("sendrecv_replace", start_time, dest, sendtag, id, count, type);
  put_key(" rpeer=", rank_out(source));
  put_key(" rtag=", tag_out(recvtag));
  put_key(" rbytes=", type_bytes(count, type));
  put_status(status);
  end_line();
  return result;
}

static void probe_line(const char *kind, int64_t start_time, int source, int tag, int64_t comm) {
  begin(kind, start_time, now());
  put_key(" peer=", rank_out(source));
  put_key(" tag=", tag_out(tag));
  put_key(" comm=", comm);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  if (!state.active) return PMPI_Probe(source, tag, comm, status);
  MPI_Status own;
  if (status == MPI_STATUS_IGNORE) status = &own;
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Probe(source, tag, comm, status);
  probe_line("probe", start_time, source, tag, id);
  put_status(status);
  end_line();
  return result;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  if (!state.active) return PMPI_Iprobe(source, tag, comm, flag, status);
  MPI_Status own;
  if (status == MPI_STATUS_IGNORE) status = &own;
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Iprobe(source, tag, comm, flag, status);
  probe_line("iprobe", start_time, source, tag, id);
  put_key(" flag=", *flag != 0);
  if (*flag) put_status(status);
  end_line();
  return result;
}

/* ---- persistent requests ---- */

/* A persistent request (Send_init, Recv_init...) keeps its handle across
 * starts. Its *_init writes no line (its time is computation); each start
 * writes the isend or irecv line it stands for, with a new id queued on the
 * handle, which the wait or test that completes it takes as usual. */

static int64_t new_persistent(void) {
  if (state.free_persistent < 0) {
    int64_t capacity = state.persistent_capacity ? state.persistent_capacity * 2 : 64;
    persistent *grown = realloc(state.persistents, (size_t)capacity * sizeof *grown);
    if (!grown) return -1;
    for (int64_t n = state.persistent_capacity; n < capacity; n++)
      grown[n].next_free = n + 1 < capacity ? n + 1 : -1;
    state.persistents = grown;
    state.free_persistent = state.persistent_capacity;
    state.persistent_capacity = capacity;
  }
  int64_t n = state.free_persistent;
  state.free_persistent = state.persistents[n].next_free;
  return n;
}

static void free_persistent(int64_t n) {
  state.persistents[n].next_free = state.free_persistent;
  state.free_persistent = n;
}

static const persistent *find_persistent(MPI_Request request) {
  map_slot *slot = map_find(&state.persistent_map, KEY(request));
  return slot ? &state.persistents[slot->value] : NULL;
}

static void forget_persistent(MPI_Request request) {
  map_slot *slot = map_find(&state.persistent_map, KEY(request));
  if (!slot) return;
  free_persistent(slot->value);
  map_remove(&state.persistent_map, KEY(request));
}

/* After a successful *_init: out of memory, the request's starts go unrecorded. */
static void remember_persistent(MPI_Request request, const char *kind, int peer, int tag,
                                MPI_Comm comm, int count, MPI_Datatype type) {
  persistent made = {kind,
                     strcmp(kind, "irecv") == 0,
                     rank_out(peer),
                     tag_out(tag),
                     comm_id(comm),
                     type_bytes(count, type),
                     -1};
  forget_persistent(request); /* a handle reused behind the tracer's back */
  int64_t n = new_persistent();
  if (n < 0) return;
  state.persistents[n] = made;
  if (!map_put(&state.persistent_map, KEY(request), n)) free_persistent(n);
}

#define PERSISTENT_SEND(Name, kind)                                                               \
  int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                 MPI_Request *request) {                                                          \
    int result = PMPI_##Name(buf, count, type, dest, tag, comm, request);                         \
    if (state.active && result == MPI_SUCCESS)                                                    \
      remember_persistent(*request, kind, dest, tag, comm, count, type);                          \
    return result;                                                                                \
  }
PERSISTENT_SEND(Send_init, "isend")
PERSISTENT_SEND(Ssend_init, "issend")
PERSISTENT_SEND(Bsend_init, "ibsend")
PERSISTENT_SEND(Rsend_init, "irsend")

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request *request) {
  int result = PMPI_Recv_init(buf, count, type, source, tag, comm, request);
  if (state.active && result == MPI_SUCCESS)
    remember_persistent(*request, "irecv", source, tag, comm, count, type);
  return result;
}

/* The line the isend or irecv that p stands for would have written. */
static void start_line(const persistent *p, MPI_Request request, int64_t start_time,
                       int64_t end_time) {
  begin(p->kind, start_time, end_time);
  p2p_keys(p->peer, p->tag, p->comm, p->bytes);
  put_key(" req=", new_request(request, p->receive));
  end_line();
}

/* A request the tracer does not know (a persistent collective, one made
 * before MPI_Init) starts unrecorded. */
int MPI_Start(MPI_Request *request) {
  if (!state.active) return PMPI_Start(request);
  int64_t start_time = now();
  int result = PMPI_Start(request);
  int64_t end_time = now();
  const persistent *p = find_persistent(*request);
  if (p) start_line(p, *request, start_time, end_time);
  return result;
}

/* One line per request in array order, the k-th of n over the k-th n-th of
 * the call's span: they follow one another and cover the call. */
int MPI_Startall(int count, MPI_Request requests[]) {
  if (!state.active) return PMPI_Startall(count, requests);
  int64_t start_time = now();
  int result = PMPI_Startall(count, requests);
  int64_t span = now() - start_time;
  for (int k = 0; k < count; k++) {
    const persistent *p = find_persistent(requests[k]);
    /* span / count * k + ...: no overflow for any span */
    int64_t from = start_time + span / count * k + span % count * k / count;
    int64_t to = start_time + span / count * (k + 1) + span % count * (k + 1) / count;
    if (p) start_line(p, requests[k], from, to);
  }
  return result;
}

/* ---- waits and tests ---- */

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (!state.active || !save_requests(1, request)) return PMPI_Wait(request, status);
  MPI_Status own;
  if (status == MPI_STATUS_IGNORE) status = &own;
  int64_t start_time = now();
  int result = PMPI_Wait(request, status);
  begin("wait", start_time, now());
  put_key(" req=", id_of(state.ids[0]));
  int first = 1;
  completed(0, status, &first);
  end_line();
  return result;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (!state.active || !save_requests(1, request)) return PMPI_Test(request, flag, status);
  MPI_Status own;
  if (status == MPI_STATUS_IGNORE) status = &own;
  int64_t start_time = now();
  int result = PMPI_Test(request, flag, status);
  begin("test", start_time, now());
  put_key(" req=", id_of(state.ids[0]));
  put_key(" flag=", *flag != 0);
  int first = 1;
  if (*flag) completed(0, status, &first);
  end_line();
  return result;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!state.active || !save_requests(count, requests))
    return PMPI_Waitall(count, requests, statuses);
  if (statuses == MPI_STATUSES_IGNORE) statuses = state.statuses;
  int64_t start_time = now();
  int result = PMPI_Waitall(count, requests, statuses);
  begin("waitall", start_time, now());
  put_ids(" reqs=", count);
  int first = 1;
  for (int i = 0; i < count; i++) completed(i, &statuses[i], &first);
  end_line();
  return result;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  if (!state.active || !save_requests(count, requests))
    return PMPI_Testall(count, requests, flag, statuses);
  if (statuses == MPI_STATUSES_IGNORE) statuses = state.statuses;
  int64_t start_time = now();
  int result = PMPI_Testall(count, requests, flag, statuses);
  begin("testall", start_time, now());
  put_ids(" reqs=", count);
  put_key(" flag=", *flag != 0);
  int first = 1;
  for (int i = 0; *flag && i < count; i++) completed(i, &statuses[i], &first);
  end_line();
  return result;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  if (!state.active || !save_requests(count, requests))
    return PMPI_Waitany(count, requests, index, status);
  MPI_Status own;
  if (status == MPI_STATUS_IGNORE) status = &own;
  int64_t start_time = now();
  int result = PMPI_Waitany(count, requests, index, status);
  begin("waitany", start_time, now());
  put_ids(" reqs=", count);
  int done = *index == MPI_UNDEFINED ? -1 : *index;
  put_key(" index=", done);
  int first = 1;
  if (done >= 0) completed(done, status, &first);
  end_line();
  return result;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  if (!state.active || !save_requests(count, requests))
    return PMPI_Testany(count, requests, index, flag, status);
  MPI_Status own;
  if (status == MPI_STATUS_IGNORE) status = &own;
  int64_t start_time = now();
  int result = PMPI_Testany(count, requests, index, flag, status);
  begin("testany", start_time, now());
  put_ids(" reqs=", count);
  int done = *index == MPI_UNDEFINED || !*flag ? -1 : *index;
  put_key(" flag=", *flag != 0);
  put_key(" index=", done);
  int first = 1;
  if (done >= 0) completed(done, status, &first);
  end_line();
  return result;
}

/* Waitsome and Testsome: done= the completed ids, then their statuses. */
static void some_line(const char *kind, int64_t start_time, int count, int outcount,
                      const int *indices, const MPI_Status *statuses) {
  begin(kind, start_time, now());
  put_ids(" reqs=", count);
  put(" done=");
  if (outcount == MPI_UNDEFINED) outcount = 0;
  for (int k = 0, listed = 0; k < outcount; k++)
    if (state.ids[indices[k]] >= 0) {
      if (listed++) put(",");
      put_int(id_of(state.ids[indices[k]]));
    }
  int first = 1;
  for (int k = 0; k < outcount; k++) completed(indices[k], &statuses[k], &first);
  end_line();
}

int MPI_Waitsome(int count, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
  if (!state.active || !save_requests(count, requests))
    return PMPI_Waitsome(count, requests, outcount, indices, statuses);
  if (statuses == MPI_STATUSES_IGNORE) statuses = state.statuses;
  int64_t start_time = now();
  int result = PMPI_Waitsome(count, requests, outcount, indices, statuses);
  some_line("waitsome", start_time, count, *outcount, indices, statuses);
  return result;
}

int MPI_Testsome(int count, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
  if (!state.active || !save_requests(count, requests))
    return PMPI_Testsome(count, requests, outcount, indices, statuses);
  if (statuses == MPI_STATUSES_IGNORE) statuses = state.statuses;
  int64_t start_time = now();
  int result = PMPI_Testsome(count, requests, outcount, indices, statuses);
  some_line("testsome", start_time, count, *outcount, indices, statuses);
  return result;
}

/* Forgets the request: its oldest id (a persistent one's active start),
 * and a persistent one's parameters. */
int MPI_Request_free(MPI_Request *request) {
  if (state.active && *request != MPI_REQUEST_NULL) {
    state.calls++;
    int64_t n = take_node(*request);
    if (n >= 0) drop_node(*request, n);
    forget_persistent(*request);
  }
  return PMPI_Request_free(request);
}

/* ---- collectives ---- */

/* Each collective has a nonblocking twin (MPI_Ibcast...) that writes the
 * same line with req=, a request its wait or test completes; the replay
 * runs it as the blocking one at the call (docs/TRACES.md). The line
 * helpers take the end time, so computing the byte counts stays out of it. */

static int comm_rank(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}

static int comm_size(MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  return size;
}

/* Ends a collective's line: request (NULL for a blocking one) gets an id. */
static void end_collective(MPI_Request *request) {
  if (request) put_key(" req=", new_request(*request, 0));
  end_line();
}

/* "KIND START END comm=ID [root=R] bytes=B rbytes=R [req=N]" */
static void collective(const char *kind, int64_t start_time, int64_t end_time, int64_t comm,
                       int root, int64_t bytes, int64_t received, MPI_Request *request) {
  begin(kind, start_time, end_time);
  put_key(" comm=", comm);
  if (root >= 0) put_key(" root=", root);
  put_key(" bytes=", bytes);
  put_key(" rbytes=", received);
  end_collective(request);
}

static void barrier_line(int64_t start_time, int64_t end_time, int64_t comm, MPI_Request *request) {
  begin("barrier", start_time, end_time);
  put_key(" comm=", comm);
  end_collective(request);
}

int MPI_Barrier(MPI_Comm comm) {
  if (!state.active) return PMPI_Barrier(comm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Barrier(comm);
  barrier_line(start_time, now(), id, NULL);
  return result;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  if (!state.active) return PMPI_Ibarrier(comm, request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Ibarrier(comm, request);
  barrier_line(start_time, now(), id, request);
  return result;
}

static void bcast_line(int64_t start_time, int64_t end_time, int64_t id, int count,
                       MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request) {
  int64_t bytes = type_bytes(count, type);
  collective("bcast", start_time, end_time, id, root, bytes, comm_rank(comm) == root ? 0 : bytes,
             request);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (!state.active) return PMPI_Bcast(buffer, count, type, root, comm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Bcast(buffer, count, type, root, comm);
  bcast_line(start_time, now(), id, count, type, root, comm, NULL);
  return result;
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request *request) {
  if (!state.active) return PMPI_Ibcast(buffer, count, type, root, comm, request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Ibcast(buffer, count, type, root, comm, request);
  bcast_line(start_time, now(), id, count, type, root, comm, request);
  return result;
}

static void reduce_line(int64_t start_time, int64_t end_time, int64_t id, int count,
                        MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request) {
  int64_t bytes = type_bytes(count, type);
  collective("reduce", start_time, end_time, id, root, bytes, comm_rank(comm) == root ? bytes : 0,
             request);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  if (!state.active) return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  reduce_line(start_time, now(), id, count, type, root, comm, NULL);
  return result;
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request) {
  if (!state.active) return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
  reduce_line(start_time, now(), id, count, type, root, comm, request);
  return result;
}

/* Allreduce, Scan, Exscan, Reduce_scatter_block and their nonblocking
 * twins: count x type both ways. */
#define REDUCTION(Name, IName, kind)                                                           \
  int MPI_##Name(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,  \
                 MPI_Comm comm) {                                                              \
    if (!state.active) return PMPI_##Name(sendbuf, recvbuf, count, type, op, comm);            \
    int64_t id = comm_id(comm), bytes = type_bytes(count, type), start_time = now();           \
    int result = PMPI_##Name(sendbuf, recvbuf, count, type, op, comm);                         \
    collective(kind, start_time, now(), id, -1, bytes, bytes, NULL);                           \
    return result;                                                                             \
  }                                                                                            \
  int MPI_##IName(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, \
                  MPI_Comm comm, MPI_Request *request) {                                       \
    if (!state.active) return PMPI_##IName(sendbuf, recvbuf, count, type, op, comm, request);  \
    int64_t id = comm_id(comm), bytes = type_bytes(count, type), start_time = now();           \
    int result = PMPI_##IName(sendbuf, recvbuf, count, type, op, comm, request);               \
    collective(kind, start_time, now(), id, -1, bytes, bytes, request);                        \
    return result;                                                                             \
  }
REDUCTION(Allreduce, Iallreduce, "allreduce")
REDUCTION(Scan, Iscan, "scan")
REDUCTION(Exscan, Iexscan, "exscan")
REDUCTION(Reduce_scatter_block, Ireduce_scatter_block, "reduce_scatter_block")

static void gather_line(int64_t start_time, int64_t end_time, int64_t id, const void *sendbuf,
                        int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                        int root, MPI_Comm comm, MPI_Request *request) {
  int64_t received = comm_rank(comm) == root ? type_bytes(recvcount, recvtype) : 0;
  int64_t bytes = sendbuf == MPI_IN_PLACE ? received : type_bytes(sendcount, sendtype);
  collective("gather", start_time, end_time, id, root, bytes, received, request);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!state.active)
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  gather_line(start_time, now(), id, sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm,
              NULL);
  return result;
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request) {
  if (!state.active)
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        request);
  int64_t id = comm_id(comm), start_time = now();
  int result =
      PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  gather_line(start_time, now(), id, sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm,
              request);
  return result;
}

static void scatter_line(int64_t start_time, int64_t end_time, int64_t id, int sendcount,
                         MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  int64_t bytes = comm_rank(comm) == root ? type_bytes(sendcount, sendtype) : 0;
  int64_t received = recvbuf == MPI_IN_PLACE ? bytes : type_bytes(recvcount, recvtype);
  collective("scatter", start_time, end_time, id, root, bytes, received, request);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!state.active)
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  scatter_line(start_time, now(), id, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
               NULL);
  return result;
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request) {
  if (!state.active)
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                             request);
  scatter_line(start_time, now(), id, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
               request);
  return result;
}

/* Allgather and Alltoall, and their nonblocking twins: per-rank blocks. */
#define GATHER_ALL(Name, IName, kind)                                                            \
  int MPI_##Name(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,       \
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {                          \
    if (!state.active)                                                                           \
      return PMPI_##Name(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);      \
    int64_t id = comm_id(comm), start_time = now();                                              \
    int64_t received = type_bytes(recvcount, recvtype);                                          \
    int64_t bytes = sendbuf == MPI_IN_PLACE ? received : type_bytes(sendcount, sendtype);        \
    int result = PMPI_##Name(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);  \
    collective(kind, start_time, now(), id, -1, bytes, received, NULL);                          \
    return result;                                                                               \
  }                                                                                              \
  int MPI_##IName(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,      \
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {   \
    if (!state.active)                                                                           \
      return PMPI_##IName(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,      \
                          request);                                                              \
    int64_t id = comm_id(comm), start_time = now();                                              \
    int64_t received = type_bytes(recvcount, recvtype);                                          \
    int64_t bytes = sendbuf == MPI_IN_PLACE ? received : type_bytes(sendcount, sendtype);        \
    int result =                                                                                 \
        PMPI_##IName(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); \
    collective(kind, start_time, now(), id, -1, bytes, received, request);                       \
    return result;                                                                               \
  }
GATHER_ALL(Allgather, Iallgather, "allgather")
GATHER_ALL(Alltoall, Ialltoall, "alltoall")

/* " KEY=b0,b1,..." from per-rank counts (NULL: `all` for each rank, or
 * only `one` at rank `at`) times a type size. */
static void put_counts(const char *key, int size, const int *counts, int64_t type_size, int64_t all,
                       int at, int64_t one) {
  put(key);
  for (int i = 0; i < size; i++) {
    if (i) put(",");
    put_int(counts ? (int64_t)counts[i] * type_size : i == at ? one : all);
  }
}

static int64_t type_size(MPI_Datatype type) { return type_bytes(1, type); }

static void reduce_scatter_line(int64_t start_time, int64_t end_time, int64_t id,
                                const int recvcounts[], MPI_Datatype type, MPI_Comm comm,
                                MPI_Request *request) {
  int64_t unit = type_size(type), total = 0;
  int size = comm_size(comm), rank = comm_rank(comm);
  for (int i = 0; i < size; i++) total += recvcounts[i];
  begin("reduce_scatter", start_time, end_time);
  put_key(" comm=", id);
  put_key(" bytes=", total * unit);
  put_key(" rbytes=", recvcounts[rank] * unit);
  put_counts(" rcounts=", size, recvcounts, unit, 0, -1, 0);
  end_collective(request);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (!state.active) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  reduce_scatter_line(start_time, now(), id, recvcounts, type, comm, NULL);
  return result;
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  if (!state.active)
    return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, request);
  reduce_scatter_line(start_time, now(), id, recvcounts, type, comm, request);
  return result;
}

static void vector_line(const char *kind, int64_t start_time, int64_t end_time, int64_t comm,
                        int root) {
  begin(kind, start_time, end_time);
  put_key(" comm=", comm);
  if (root >= 0) put_key(" root=", root);
}

static void gatherv_line(int64_t start_time, int64_t end_time, int64_t id, const void *sendbuf,
                         int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  int size = comm_size(comm), rank = comm_rank(comm), at_root = rank == root;
  int64_t unit = at_root ? type_size(recvtype) : 0;
  int64_t bytes = sendbuf == MPI_IN_PLACE ? recvcounts[rank] * unit
                                          : type_bytes(sendcount, sendtype);
  vector_line("gatherv", start_time, end_time, id, root);
  put_counts(" counts=", size, NULL, 0, 0, root, bytes);
  put_counts(" rcounts=", size, at_root ? recvcounts : NULL, unit, 0, -1, 0);
  end_collective(request);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  if (!state.active)
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
  int64_t id = comm_id(comm), start_time = now();
  int result =
      PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  gatherv_line(start_time, now(), id, sendbuf, sendcount, sendtype, recvcounts, recvtype, root,
               comm, NULL);
  return result;
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request) {
  if (!state.active)
    return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                         comm, request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             root, comm, request);
  gatherv_line(start_time, now(), id, sendbuf, sendcount, sendtype, recvcounts, recvtype, root,
               comm, request);
  return result;
}

static void scatterv_line(int64_t start_time, int64_t end_time, int64_t id, const int sendcounts[],
                          MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  int size = comm_size(comm), rank = comm_rank(comm), at_root = rank == root;
  int64_t unit = at_root ? type_size(sendtype) : 0;
  int64_t received = recvbuf == MPI_IN_PLACE ? sendcounts[rank] * unit
                                             : type_bytes(recvcount, recvtype);
  vector_line("scatterv", start_time, end_time, id, root);
  put_counts(" counts=", size, at_root ? sendcounts : NULL, unit, 0, -1, 0);
  put_counts(" rcounts=", size, NULL, 0, 0, root, received);
  end_collective(request);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  if (!state.active)
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm);
  scatterv_line(start_time, now(), id, sendcounts, sendtype, recvbuf, recvcount, recvtype, root,
                comm, NULL);
  return result;
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request) {
  if (!state.active)
    return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                          comm, request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                              root, comm, request);
  scatterv_line(start_time, now(), id, sendcounts, sendtype, recvbuf, recvcount, recvtype, root,
                comm, request);
  return result;
}

static void allgatherv_line(int64_t start_time, int64_t end_time, int64_t id, const void *sendbuf,
                            int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  int64_t unit = type_size(recvtype);
  int size = comm_size(comm), rank = comm_rank(comm);
  int64_t bytes = sendbuf == MPI_IN_PLACE ? recvcounts[rank] * unit
                                          : type_bytes(sendcount, sendtype);
  vector_line("allgatherv", start_time, end_time, id, -1);
  put_counts(" counts=", size, NULL, 0, bytes, -1, 0);
  put_counts(" rcounts=", size, recvcounts, unit, 0, -1, 0);
  end_collective(request);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  if (!state.active)
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  int64_t id = comm_id(comm), start_time = now();
  int result =
      PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  allgatherv_line(start_time, now(), id, sendbuf, sendcount, sendtype, recvcounts, recvtype, comm,
                  NULL);
  return result;
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request) {
  if (!state.active)
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            comm, request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                comm, request);
  allgatherv_line(start_time, now(), id, sendbuf, sendcount, sendtype, recvcounts, recvtype, comm,
                  request);
  return result;
}

static void alltoallv_line(int64_t start_time, int64_t end_time, int64_t id, const void *sendbuf,
                           const int sendcounts[], MPI_Datatype sendtype, const int recvcounts[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  int64_t unit = type_size(recvtype);
  int size = comm_size(comm), in_place = sendbuf == MPI_IN_PLACE;
  int64_t send_unit = in_place ? unit : type_size(sendtype);
  vector_line("alltoallv", start_time, end_time, id, -1);
  put_counts(" counts=", size, in_place ? recvcounts : sendcounts, send_unit, 0, -1, 0);
  put_counts(" rcounts=", size, recvcounts, unit, 0, -1, 0);
  end_collective(request);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (!state.active)
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm);
  alltoallv_line(start_time, now(), id, sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm,
                 NULL);
  return result;
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request) {
  if (!state.active)
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm, request);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype, comm, request);
  alltoallv_line(start_time, now(), id, sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm,
                 request);
  return result;
}

/* ---- communicators ---- */

/* "KIND START END comm=PARENT [new=ID]", after the new comm's definition. */
static void comm_line(const char *kind, int64_t start_time, int64_t parent, int result,
                      MPI_Comm *made) {
  int64_t id = result == MPI_SUCCESS ? register_comm(*made) : -1;
  begin(kind, start_time, now());
  put_key(" comm=", parent);
  if (id >= 0) put_key(" new=", id);
  end_line();
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  if (!state.active) return PMPI_Comm_split(comm, color, key, newcomm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Comm_split(comm, color, key, newcomm);
  comm_line("comm_split", start_time, id, result, newcomm);
  return result;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
  if (!state.active) return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
  comm_line("comm_split", start_time, id, result, newcomm);
  return result;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  if (!state.active) return PMPI_Comm_dup(comm, newcomm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Comm_dup(comm, newcomm);
  comm_line("comm_dup", start_time, id, result, newcomm);
  return result;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  if (!state.active) return PMPI_Comm_create(comm, group, newcomm);
  int64_t id = comm_id(comm), start_time = now();
  int result = PMPI_Comm_create(comm, group, newcomm);
  comm_line("comm_create", start_time, id, result, newcomm);
  return result;
}

int MPI_Comm_free(MPI_Comm *comm) {
  if (!state.active || *comm == MPI_COMM_NULL) return PMPI_Comm_free(comm);
  MPI_Comm freed = *comm;
  int64_t id = comm_id(freed), start_time = now();
  int result = PMPI_Comm_free(comm);
  map_remove(&state.comms, KEY(freed));
  begin("comm_free", start_time, now());
  put_key(" comm=", id);
  end_line();
  return result;
}
