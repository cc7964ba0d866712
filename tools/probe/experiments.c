/* experiments.c: the point-to-point experiments of src/fit/probe_data.h,
 * each exactly as its comment there says, one CSV row per experiment,
 * placement, size and ranks. Every row runs on a communicator of its ranks
 * only (rank_a first: it measures); the others wait in the next collective.
 * After a row's repetitions, the receivers check the first and last byte
 * of what they received against the sender's pattern (probe_pattern). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

#define TAG_DATA 1
#define TAG_REPLY 2
#define TAG_READY 3
#define TAG_SUMMARY 4
#define STRIDE_BLOCK 8                         /* one double, as log_n P's strided mpptest */
#define STRIDE_STEP 16                         /* every other double */
#define ONE_TO_TWO_LARGEST ((int64_t)64 << 10) /* LMO's "not very large" message */
#define REPLY_SAME (-1)                        /* a row prototype's reply_bytes: as bytes */

static const int train_lengths[] = {1, 2, 4, 8, 16};
#define TRAIN_LONGEST 16

static const char *const experiment_names[PROBE_EXPERIMENTS] = {"memcpy",     "roundtrip",
                                                                "ssend",      "send_call",
                                                                "train",      "multicast",
                                                                "one_to_two", "ring"};

const char *probe_experiment_name(probe_experiment e) { return experiment_names[e]; }

typedef struct row {
  probe_experiment experiment;
  int net;
  int64_t bytes, reply_bytes, stride, block;
  int count, a, b, c;
} row;

/* Buffers of every rank, allocated once for the largest size. */
typedef struct workspace {
  unsigned char *send, *receive, *reply;
  size_t length;
  MPI_Win window; /* multicast targets; MPI_WIN_NULL when unused */
  unsigned char *window_base;
} workspace;

typedef struct trial {
  MPI_Comm comm;
  int me, members;
  const int *ranks; /* world ranks of the members; ranks[0] measures */
  const row *row;
  const workspace *work;
  MPI_Datatype type, reply_type;
  int type_count, reply_count;
} trial;

typedef enum size_filter { ALL_SIZES, POSITIVE_SIZES, ONE_TO_TWO_SIZES, STRIDED_SIZES } size_filter;

static int64_t since_ps(int64_t start_ns) { return (probe_now_ns() - start_ns) * 1000; }

/* ---- one repetition of each experiment ---- */

static int64_t roundtrip_once(void *context) {
  trial *t = context;
  unsigned char *send = t->work->send, *receive = t->work->receive, *reply = t->work->reply;
  if (t->members == 1) { /* send-to-self: both messages to itself */
    MPI_Request request;
    int64_t start = probe_now_ns();
    MPI_Isend(send, t->type_count, t->type, 0, TAG_DATA, t->comm, &request);
    MPI_Recv(receive, t->type_count, t->type, 0, TAG_DATA, t->comm, MPI_STATUS_IGNORE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Isend(send, t->reply_count, t->reply_type, 0, TAG_REPLY, t->comm, &request);
    MPI_Recv(reply, t->reply_count, t->reply_type, 0, TAG_REPLY, t->comm, MPI_STATUS_IGNORE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return since_ps(start);
  }
  if (t->me == 0) {
    int64_t start = probe_now_ns();
    MPI_Send(send, t->type_count, t->type, 1, TAG_DATA, t->comm);
    MPI_Recv(reply, t->reply_count, t->reply_type, 1, TAG_REPLY, t->comm, MPI_STATUS_IGNORE);
    return since_ps(start);
  }
  MPI_Recv(receive, t->type_count, t->type, 0, TAG_DATA, t->comm, MPI_STATUS_IGNORE);
  MPI_Send(send, t->reply_count, t->reply_type, 0, TAG_REPLY, t->comm);
  return 0;
}

/* b posts its receive and says so; a times the send call alone. */
static int64_t posted_send(trial *t, int synchronous) {
  if (t->me == 1) {
    MPI_Request request;
    MPI_Irecv(t->work->receive, t->type_count, t->type, 0, TAG_DATA, t->comm, &request);
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, t->comm);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return 0;
  }
  MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_READY, t->comm, MPI_STATUS_IGNORE);
  int64_t start = probe_now_ns();
  if (synchronous)
    MPI_Ssend(t->work->send, t->type_count, t->type, 1, TAG_DATA, t->comm);
  else
    MPI_Send(t->work->send, t->type_count, t->type, 1, TAG_DATA, t->comm);
  return since_ps(start);
}

static int64_t ssend_once(void *context) { return posted_send(context, 1); }
static int64_t send_call_once(void *context) { return posted_send(context, 0); }

static int64_t train_once(void *context) {
  trial *t = context;
  int count = t->row->count;
  if (t->me == 0) {
    MPI_Request requests[TRAIN_LONGEST];
    int64_t start = probe_now_ns();
    for (int k = 0; k < count; k++) /* one buffer: sends may share it (MPI-3) */
      MPI_Isend(t->work->send, t->type_count, t->type, 1, TAG_DATA, t->comm, &requests[k]);
    MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_REPLY, t->comm, MPI_STATUS_IGNORE);
    return since_ps(start);
  }
  for (int k = 0; k < count; k++)
    MPI_Recv(t->work->receive, t->type_count, t->type, 0, TAG_DATA, t->comm, MPI_STATUS_IGNORE);
  MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_REPLY, t->comm);
  return 0;
}

static int64_t multicast_once(void *context) {
  trial *t = context;
  if (t->me != 0) return 0; /* passive targets */
  int bytes = (int)t->row->bytes;
  int64_t start = probe_now_ns();
  for (int k = 1; k < t->members; k++)
    MPI_Put(t->work->send, bytes, MPI_BYTE, t->ranks[k], 0, bytes, MPI_BYTE, t->work->window);
  MPI_Win_flush_all(t->work->window);
  return since_ps(start);
}

static int64_t one_to_two_once(void *context) {
  trial *t = context;
  int reply = (int)t->row->reply_bytes;
  if (t->me == 0) {
    MPI_Request requests[2];
    int64_t start = probe_now_ns();
    MPI_Isend(t->work->send, t->type_count, t->type, 1, TAG_DATA, t->comm, &requests[0]);
    MPI_Isend(t->work->send, t->type_count, t->type, 2, TAG_DATA, t->comm, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    MPI_Irecv(t->work->reply, reply, MPI_BYTE, 1, TAG_REPLY, t->comm, &requests[0]);
    MPI_Irecv(t->work->reply + reply, reply, MPI_BYTE, 2, TAG_REPLY, t->comm, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    return since_ps(start);
  }
  MPI_Recv(t->work->receive, t->type_count, t->type, 0, TAG_DATA, t->comm, MPI_STATUS_IGNORE);
  MPI_Send(t->work->send, reply, MPI_BYTE, 0, TAG_REPLY, t->comm);
  return 0;
}

/* A barrier starts the step together; the sample is the mean of the
 * members' step times. */
static int64_t ring_once(void *context) {
  trial *t = context;
  int next = (t->me + 1) % t->members, previous = (t->me + t->members - 1) % t->members;
  MPI_Barrier(t->comm);
  int64_t start = probe_now_ns();
  MPI_Sendrecv(t->work->send, t->type_count, t->type, next, TAG_DATA, t->work->receive,
               t->type_count, t->type, previous, TAG_DATA, t->comm, MPI_STATUS_IGNORE);
  int64_t mine = probe_now_ns() - start, total = 0;
  MPI_Reduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, 0, t->comm);
  return t->me == 0 ? (total * 1000 + t->members / 2) / t->members : 0;
}

static int64_t memcpy_once(void *context) {
  trial *t = context;
  size_t bytes = (size_t)t->row->bytes;
  int64_t start = probe_now_ns();
  memcpy(t->work->receive, t->work->send, bytes);
  int64_t elapsed = since_ps(start);
  volatile unsigned char last = bytes ? t->work->receive[bytes - 1] : 0; /* the copy is used */
  (void)last;
  return elapsed;
}

static const repetition repetitions[PROBE_EXPERIMENTS] = {memcpy_once,     roundtrip_once,
                                                          ssend_once,      send_call_once,
                                                          train_once,      multicast_once,
                                                          one_to_two_once, ring_once};

/* ---- checks ---- */

/* The bytes a message of the row spans in memory. */
static size_t extent_of(int64_t bytes, const row *r) {
  if (bytes == 0 || r->stride == 0) return (size_t)bytes;
  return (size_t)((bytes / r->block - 1) * r->stride + r->block);
}

static void check_data(const trial *t, const unsigned char *data, int64_t bytes, int from,
                       const char *what) {
  size_t extent = extent_of(bytes, t->row);
  unsigned char expected = probe_pattern(from);
  if (extent && (data[0] != expected || data[extent - 1] != expected))
    probe_fail("%s %s of %lld B from rank %d: wrong data",
               probe_experiment_name(t->row->experiment), what, (long long)bytes, from);
}

static void check_multicast_target(const trial *t) {
  int rank = t->ranks[t->me];
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, t->work->window);
  check_data(t, t->work->window_base, t->row->bytes, t->ranks[0], "put");
  MPI_Win_unlock(rank, t->work->window);
}

/* Targets empty their windows, so the check sees this row's puts; then
 * the origin opens its access epoch. */
static void clear_window(const trial *t) {
  if (t->me > 0) {
    int rank = t->ranks[t->me];
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, t->work->window);
    memset(t->work->window_base, 0, (size_t)t->row->bytes);
    MPI_Win_unlock(rank, t->work->window);
  }
  MPI_Barrier(t->comm);
  if (t->me == 0) MPI_Win_lock_all(0, t->work->window);
}

static void check_trial(const trial *t) {
  const row *r = t->row;
  const workspace *w = t->work;
  switch (r->experiment) {
    case PROBE_MEMCPY: check_data(t, w->receive, r->bytes, t->ranks[0], "copy"); break;
    case PROBE_ROUNDTRIP:
      if (t->me == 0) check_data(t, w->reply, r->reply_bytes, t->ranks[t->members - 1], "reply");
      if (t->me == t->members - 1) check_data(t, w->receive, r->bytes, t->ranks[0], "message");
      break;
    case PROBE_SSEND:
    case PROBE_SEND_CALL:
    case PROBE_TRAIN:
    case PROBE_ONE_TO_TWO:
      if (t->me > 0) check_data(t, w->receive, r->bytes, t->ranks[0], "message");
      break;
    case PROBE_MULTICAST:
      if (t->me > 0) check_multicast_target(t);
      break;
    case PROBE_RING:
      check_data(t, w->receive, r->bytes, t->ranks[(t->me + t->members - 1) % t->members],
                 "message");
      break;
    case PROBE_EXPERIMENTS: break;
  }
}

/* ---- rows ---- */

static void write_row(probe *p, const row *r, const summary *s) {
  char min[32], median[32], mean[32], ci[32];
  fs_output_printf(p->out, "%s,%s,%lld,%lld,%lld,%lld,%d,%d,%d,%d,%lld,%s,%s,%s,%s\n",
                   probe_experiment_name(r->experiment), r->net ? "net" : "shm",
                   (long long)r->bytes, (long long)r->reply_bytes, (long long)r->stride,
                   (long long)r->block, r->count, r->a, r->b, r->c, (long long)s->repetitions,
                   format_ps_as_ns(min, s->min), format_ps_as_ns(median, s->median),
                   format_ps_as_ns(mean, s->mean), format_ps_as_ns(ci, s->ci95));
  p->rows++;
}

/* The measuring rank hands its summary to rank 0, which writes the row. */
static void emit(probe *p, const row *r, summary *s) {
  int64_t fields[5] = {s->repetitions, s->min, s->median, s->mean, s->ci95};
  if (r->a != 0 && p->machine->rank == r->a)
    MPI_Send(fields, 5, MPI_INT64_T, 0, TAG_SUMMARY, MPI_COMM_WORLD);
  if (p->machine->rank != 0) return;
  if (r->a != 0) {
    MPI_Recv(fields, 5, MPI_INT64_T, r->a, TAG_SUMMARY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *s = (summary){fields[0], fields[1], fields[2], fields[3], fields[4]};
  }
  write_row(p, r, s);
}

static void make_types(trial *t) {
  const row *r = t->row;
  if (r->stride == 0) {
    t->type = t->reply_type = MPI_BYTE;
    t->type_count = (int)r->bytes;
    t->reply_count = (int)r->reply_bytes;
    return;
  }
  /* strided rows reply with the same vector */
  MPI_Type_vector((int)(r->bytes / r->block), (int)r->block, (int)r->stride, MPI_BYTE, &t->type);
  MPI_Type_commit(&t->type);
  t->reply_type = t->type;
  t->type_count = t->reply_count = 1;
}

/* Measures one row on comm (NULL on the ranks outside it). */
static void measure(probe *p, const workspace *w, const row *r, const int *ranks, int members,
                    MPI_Comm comm) {
  summary s = {0};
  if (comm != MPI_COMM_NULL) {
    trial t = {.comm = comm, .members = members, .ranks = ranks, .row = r, .work = w};
    MPI_Comm_rank(comm, &t.me);
    make_types(&t);
    memset(w->receive, 0, extent_of(r->bytes, r));
    memset(w->reply, 0, 2 * extent_of(r->reply_bytes, r));
    int multicast = r->experiment == PROBE_MULTICAST;
    if (multicast) clear_window(&t);
    probe_repeat(p, comm, repetitions[r->experiment], &t, &s);
    if (multicast) {
      if (t.me == 0) MPI_Win_unlock_all(w->window);
      MPI_Barrier(comm);
    }
    check_trial(&t);
    if (r->stride) MPI_Type_free(&t.type);
  }
  emit(p, r, &s);
}

static int size_fits(int64_t size, size_filter filter) {
  switch (filter) {
    case ALL_SIZES: return 1;
    case POSITIVE_SIZES: return size > 0;
    case ONE_TO_TWO_SIZES: return size > 0 && size <= ONE_TO_TWO_LARGEST;
    case STRIDED_SIZES: return size >= 2 * STRIDE_BLOCK && size % STRIDE_BLOCK == 0;
  }
  return 0;
}

/* The communicator of ranks[] (in that order); MPI_COMM_NULL elsewhere.
 * Collective over MPI_COMM_WORLD. */
static MPI_Comm group_of(const probe *p, const int *ranks, int members) {
  int key = -1;
  for (int i = 0; i < members; i++)
    if (ranks[i] == p->machine->rank) key = i;
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, key >= 0 ? 0 : MPI_UNDEFINED, key, &comm);
  return comm;
}

/* The prototype row at every size the filter keeps. */
static void sweep(probe *p, const workspace *w, row prototype, const int *ranks, int members,
                  size_filter filter) {
  MPI_Comm comm = group_of(p, ranks, members);
  const probe_options *o = p->options;
  for (int i = 0; i < o->size_count; i++) {
    if (!size_fits(o->sizes[i], filter)) continue;
    row r = prototype;
    r.bytes = o->sizes[i];
    if (prototype.reply_bytes == REPLY_SAME) r.reply_bytes = r.bytes;
    measure(p, w, &r, ranks, members, comm);
  }
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

static int on_other_nodes(const machine *m, const int *ranks, int members) {
  for (int i = 1; i < members; i++)
    if (m->node_of[ranks[i]] != m->node_of[ranks[0]]) return 1;
  return 0;
}

static row pair_row(const machine *m, probe_experiment e, int a, int b) {
  int ranks[2] = {a, b};
  return (row){.experiment = e,
               .net = on_other_nodes(m, ranks, 2),
               .reply_bytes = 0,
               .count = 1,
               .a = a,
               .b = b,
               .c = -1};
}

static void comment(probe *p, const char *text) {
  if (p->machine->rank == 0) probe_note(p, "%s", text);
}

/* ---- the experiments, in the CSV's order ---- */

typedef struct pairs {
  int shm, net; /* rank 0's partner on its node and on another; -1: none */
} pairs;

static pairs representative_pairs(const machine *m) {
  pairs found = {-1, -1};
  for (int r = m->size - 1; r > 0; r--) {
    if (m->node_of[r] == m->node_of[0])
      found.shm = r;
    else
      found.net = r;
  }
  return found;
}

static void memcpy_rows(probe *p, const workspace *w) {
  int self[1] = {0};
  row r = {.experiment = PROBE_MEMCPY, .count = 1, .a = 0, .b = -1, .c = -1};
  sweep(p, w, r, self, 1, ALL_SIZES);
}

static void roundtrip_pair(probe *p, const workspace *w, int a, int b) {
  int ranks[2] = {a, b};
  row r = pair_row(p->machine, PROBE_ROUNDTRIP, a, b);
  r.reply_bytes = REPLY_SAME;
  sweep(p, w, r, ranks, 2, ALL_SIZES);
  r.reply_bytes = 0; /* M/0, for LMO; 0/0 is above */
  sweep(p, w, r, ranks, 2, POSITIVE_SIZES);
}

static void strided_roundtrip(probe *p, const workspace *w, int a, int b) {
  int ranks[2] = {a, b};
  row r = pair_row(p->machine, PROBE_ROUNDTRIP, a, b);
  r.reply_bytes = REPLY_SAME;
  r.stride = STRIDE_STEP;
  r.block = STRIDE_BLOCK;
  sweep(p, w, r, ranks, a == b ? 1 : 2, STRIDED_SIZES);
}

static void roundtrip_rows(probe *p, const workspace *w, pairs chosen) {
  int self[1] = {0};
  row r = {.experiment = PROBE_ROUNDTRIP,
           .reply_bytes = REPLY_SAME,
           .count = 1,
           .a = 0,
           .b = 0,
           .c = -1};
  sweep(p, w, r, self, 1, ALL_SIZES);
  int size = p->machine->size;
  if (p->options->all_pairs) {
    for (int a = 0; a < size; a++)
      for (int b = a + 1; b < size; b++) roundtrip_pair(p, w, a, b);
  } else {
    if (chosen.shm >= 0) roundtrip_pair(p, w, 0, chosen.shm);
    if (chosen.net >= 0) roundtrip_pair(p, w, 0, chosen.net);
  }
  strided_roundtrip(p, w, 0, 0);
  if (chosen.shm >= 0) strided_roundtrip(p, w, 0, chosen.shm);
  if (chosen.net >= 0) strided_roundtrip(p, w, 0, chosen.net);
}

static void pair_rows(probe *p, const workspace *w, pairs chosen, probe_experiment e) {
  int partners[2] = {chosen.shm, chosen.net};
  for (int i = 0; i < 2; i++) {
    if (partners[i] < 0) continue;
    int ranks[2] = {0, partners[i]};
    row r = pair_row(p->machine, e, 0, partners[i]);
    if (e != PROBE_TRAIN) {
      sweep(p, w, r, ranks, 2, ALL_SIZES);
      continue;
    }
    for (size_t k = 0; k < sizeof train_lengths / sizeof *train_lengths; k++) {
      r.count = train_lengths[k];
      sweep(p, w, r, ranks, 2, ALL_SIZES);
    }
  }
}

static void multicast_rows(probe *p, const workspace *w, int *ranks) {
  for (int width = 1; width < p->machine->size; width++) {
    for (int i = 0; i <= width; i++) ranks[i] = i;
    row r = {.experiment = PROBE_MULTICAST,
             .net = on_other_nodes(p->machine, ranks, width + 1),
             .count = width,
             .a = 0,
             .b = -1,
             .c = -1};
    sweep(p, w, r, ranks, width + 1, ALL_SIZES);
  }
}

static void one_to_two_triplet(probe *p, const workspace *w, int root, int b, int c) {
  int ranks[3] = {root, b, c};
  row r = {.experiment = PROBE_ONE_TO_TWO,
           .net = on_other_nodes(p->machine, ranks, 3),
           .count = 1,
           .a = root,
           .b = b,
           .c = c};
  sweep(p, w, r, ranks, 3, ONE_TO_TWO_SIZES);
}

static void one_to_two_rows(probe *p, const workspace *w) {
  int last = p->options->all_pairs ? p->machine->size : 3;
  for (int i = 0; i < last; i++)
    for (int j = i + 1; j < last; j++)
      for (int k = j + 1; k < last; k++) { /* each member of the triplet as the root */
        one_to_two_triplet(p, w, i, j, k);
        one_to_two_triplet(p, w, j, i, k);
        one_to_two_triplet(p, w, k, i, j);
      }
}

static void ring_sweep(probe *p, const workspace *w, const int *ranks, int members, int tau,
                       int net) {
  row r = {.experiment = PROBE_RING,
           .net = net,
           .reply_bytes = REPLY_SAME,
           .count = tau,
           .a = ranks[0],
           .b = ranks[members > 1 ? 1 : 0],
           .c = -1};
  sweep(p, w, r, ranks, members, ALL_SIZES);
}

/* shm: tau ranks of rank 0's node; net: tau of node 0 and tau of node 1,
 * alternating, so that every neighbour is on the other node. */
static void ring_rows(probe *p, const workspace *w, int *ranks) {
  const machine *m = p->machine;
  int *node0 = malloc((size_t)m->size * sizeof *node0),
      *node1 = malloc((size_t)m->size * sizeof *node1);
  if (!node0 || !node1) probe_fail("out of memory");
  int on0 = machine_ranks_on(m, 0, node0);
  for (int tau = 1; tau <= on0; tau++) ring_sweep(p, w, node0, tau, tau, 0);
  if (m->nodes < 2) {
    comment(p, "ring net: skipped, it needs 2 nodes (found 1)");
  } else {
    int on1 = machine_ranks_on(m, 1, node1), most = on0 < on1 ? on0 : on1;
    for (int tau = 1; tau <= most; tau++) {
      for (int i = 0; i < tau; i++) ranks[2 * i] = node0[i], ranks[2 * i + 1] = node1[i];
      ring_sweep(p, w, ranks, 2 * tau, tau, 1);
    }
  }
  free(node0);
  free(node1);
}

static int workspace_open(probe *p, workspace *w) {
  const probe_options *o = p->options;
  int64_t largest = 0;
  for (int i = 0; i < o->size_count; i++)
    if (o->sizes[i] > largest) largest = o->sizes[i];
  /* a strided message spans twice its bytes; a one_to_two root takes two replies */
  w->length = (size_t)(2 * largest + 2 * STRIDE_STEP);
  w->send = malloc(w->length);
  w->receive = calloc(1, w->length);
  w->reply = calloc(2, w->length);
  w->window = MPI_WIN_NULL;
  int ok = w->send && w->receive && w->reply, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) return -1;
  memset(w->send, probe_pattern(p->machine->rank), w->length);
  if (o->selected[PROBE_MULTICAST] && p->machine->size > 1)
    MPI_Win_allocate((MPI_Aint)(largest > 0 ? largest : 1), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                     &w->window_base, &w->window);
  return 0;
}

static void workspace_close(workspace *w) {
  if (w->window != MPI_WIN_NULL) MPI_Win_free(&w->window);
  free(w->send);
  free(w->receive);
  free(w->reply);
}

int probe_point_to_point(probe *p) {
  workspace w;
  if (workspace_open(p, &w) != 0) {
    workspace_close(&w);
    return -1;
  }
  const probe_options *o = p->options;
  const machine *m = p->machine;
  pairs chosen = representative_pairs(m);
  int *ranks = malloc((size_t)2 * (size_t)m->size * sizeof *ranks);
  if (!ranks) probe_fail("out of memory");
  if (o->selected[PROBE_MEMCPY]) memcpy_rows(p, &w);
  if (o->selected[PROBE_ROUNDTRIP]) roundtrip_rows(p, &w, chosen);
  const probe_experiment paired[] = {PROBE_SSEND, PROBE_SEND_CALL, PROBE_TRAIN};
  for (int i = 0; i < 3; i++)
    if (o->selected[paired[i]]) pair_rows(p, &w, chosen, paired[i]);
  if (m->size < 2 &&
      (o->selected[PROBE_ROUNDTRIP] || o->selected[PROBE_SSEND] || o->selected[PROBE_SEND_CALL] ||
       o->selected[PROBE_TRAIN] || o->selected[PROBE_MULTICAST]))
    comment(p, "roundtrip between ranks, ssend, send_call, train, multicast: skipped, they need 2 "
               "ranks");
  if (o->selected[PROBE_MULTICAST]) multicast_rows(p, &w, ranks);
  if (o->selected[PROBE_ONE_TO_TWO]) {
    if (m->size >= 3)
      one_to_two_rows(p, &w);
    else
      comment(p, "one_to_two: skipped, it needs 3 ranks");
  }
  if (o->selected[PROBE_RING]) ring_rows(p, &w, ranks);
  free(ranks);
  workspace_close(&w);
  return 0;
}
