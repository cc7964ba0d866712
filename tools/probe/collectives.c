/* collectives.c: MPI's own collectives timed for `fennelsim validate`,
 * from a common start, as ReproMPI and SKaMPI time them: each rank's clock
 * is mapped to rank 0's (an offset from the fastest of a few round trips,
 * measured again before each row, so that drift between nodes stays that
 * of one row's span), rank 0 names a start time a window ahead, every rank
 * waits for it on its own clock, runs the collective (root 0), and the
 * sample is the last rank's end minus the start (MPI_Reduce MAX). A
 * barrier's exit skew would otherwise be measured instead (a last rank to
 * leave it finds an 8-byte bcast already there: 120 ns). A repetition in
 * which a rank reached the start late is run again with twice the window.
 * `bytes` is what fennelsim's generators take as --size: the vector for
 * bcast, reduce and allreduce (doubles, MPI_SUM), one rank's block for
 * gather, scatter, allgather and alltoall. After each row the ranks check
 * the first and last element of what they received. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>

#include "probe.h"

typedef enum collective {
  BARRIER,
  BCAST,
  REDUCE,
  ALLREDUCE,
  GATHER,
  SCATTER,
  ALLGATHER,
  ALLTOALL,
  COLLECTIVES
} collective;

static const char *const collective_names[COLLECTIVES] = {"barrier",   "bcast",   "reduce",
                                                          "allreduce", "gather",  "scatter",
                                                          "allgather", "alltoall"};

typedef struct collective_trial {
  collective which;
  int64_t bytes;
  int rank, size;
  unsigned char *send, *receive; /* size * largest block each */
  double *values, *sums;         /* the reductions' vectors */
  int64_t offset_ns;             /* rank 0's clock minus this rank's */
  int64_t window_ns;             /* from naming the start to the start */
  int oversubscribed;            /* some node has more ranks than processors */
} collective_trial;

#define CLOCK_ROUND_TRIPS 20
#define FIRST_WINDOW_NS 20000
#define LAST_WINDOW_NS 1000000000

/* Each rank's offset to rank 0's clock: rank 0 answers each of the rank's
 * round trips with its time; the fastest round trip's midpoint is taken as
 * that time's local equivalent. Ranks are served one after the other. */
static int64_t clock_offset(int rank, int size) {
  int64_t offset = 0;
  for (int r = 1; r < size; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      for (int i = 0; i < CLOCK_ROUND_TRIPS; i++) {
        int64_t now;
        MPI_Recv(&now, 1, MPI_INT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        now = probe_now_ns();
        MPI_Send(&now, 1, MPI_INT64_T, r, 0, MPI_COMM_WORLD);
      }
    } else if (rank == r) {
      int64_t fastest = INT64_MAX;
      for (int i = 0; i < CLOCK_ROUND_TRIPS; i++) {
        int64_t sent = probe_now_ns(), theirs;
        MPI_Send(&sent, 1, MPI_INT64_T, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&theirs, 1, MPI_INT64_T, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int64_t received = probe_now_ns();
        if (received - sent < fastest) {
          fastest = received - sent;
          offset = theirs - (sent + (received - sent) / 2);
        }
      }
    }
  }
  return offset;
}

static void run_collective(const collective_trial *t) {
  int bytes = (int)t->bytes, doubles = bytes / (int)sizeof(double);
  void *vector = t->rank == 0 ? t->send : t->receive;
  switch (t->which) {
    case BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case BCAST: MPI_Bcast(vector, bytes, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case REDUCE:
      MPI_Reduce(t->values, t->sums, doubles, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    case ALLREDUCE:
      MPI_Allreduce(t->values, t->sums, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case GATHER:
      MPI_Gather(t->send, bytes, MPI_BYTE, t->receive, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case SCATTER:
      MPI_Scatter(t->send, bytes, MPI_BYTE, t->receive, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case ALLGATHER:
      MPI_Allgather(t->send, bytes, MPI_BYTE, t->receive, bytes, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case ALLTOALL:
      MPI_Alltoall(t->send, bytes, MPI_BYTE, t->receive, bytes, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case COLLECTIVES: break;
  }
}

/* Waits on this rank's clock mapped to rank 0's until start; returns 1
 * when start had already passed. On an oversubscribed node a waiting rank
 * yields its core: spinning there would hold back the ranks it waits for
 * (4 ranks on 2 cores: windows grew to 20 ms and a quick run to 12 s). */
static int wait_for(const collective_trial *t, int64_t start) {
  if (probe_now_ns() + t->offset_ns > start) return 1;
  while (probe_now_ns() + t->offset_ns < start)
    if (t->oversubscribed) sched_yield();
  return 0;
}

/* Does some node hold more ranks than it has processors online? */
static int oversubscribed(const machine *m) {
  int *ranks = malloc((size_t)m->size * sizeof *ranks), local = 0, any = 0;
  long processors = sysconf(_SC_NPROCESSORS_ONLN);
  if (ranks) local = processors > 0 && machine_ranks_on(m, m->node_of[m->rank], ranks) > processors;
  free(ranks);
  MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

/* One repetition: from the common start to the last rank's end (ps). The
 * window halves after a repetition every rank began on time (down to
 * FIRST_WINDOW_NS), and doubles to run again one that a rank began late. */
static int64_t collective_once(void *context) {
  collective_trial *t = context;
  for (;;) {
    int64_t start = t->rank == 0 ? probe_now_ns() + t->window_ns : 0;
    MPI_Bcast(&start, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int64_t late = wait_for(t, start);
    run_collective(t);
    int64_t mine[2] = {probe_now_ns() + t->offset_ns - start, late}, slowest[2] = {0, 0};
    MPI_Allreduce(mine, slowest, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (!slowest[1] || t->window_ns >= LAST_WINDOW_NS) {
      if (t->window_ns > FIRST_WINDOW_NS) t->window_ns /= 2;
      return slowest[0] * 1000;
    }
    t->window_ns *= 2;
  }
}

static void check_block(const collective_trial *t, const unsigned char *block, int from) {
  unsigned char expected = probe_pattern(from);
  if (t->bytes > 0 && (block[0] != expected || block[t->bytes - 1] != expected))
    probe_fail("%s of %lld B: wrong data from rank %d", collective_names[t->which],
               (long long)t->bytes, from);
}

static void check_sums(const collective_trial *t) {
  int64_t doubles = t->bytes / (int64_t)sizeof(double);
  double expected = (double)t->size * (t->size + 1) / 2; /* each rank adds rank + 1 */
  if (doubles > 0 && (t->sums[0] != expected || t->sums[doubles - 1] != expected))
    probe_fail("%s of %lld B: wrong sum", collective_names[t->which], (long long)t->bytes);
}

static void check_collective(const collective_trial *t) {
  size_t block = (size_t)t->bytes;
  switch (t->which) {
    case BARRIER: break;
    case BCAST:
      if (t->rank != 0) check_block(t, t->receive, 0);
      break;
    case REDUCE:
      if (t->rank == 0) check_sums(t);
      break;
    case ALLREDUCE: check_sums(t); break;
    case SCATTER: check_block(t, t->receive, 0); break;
    case GATHER: /* the root holds every rank's block, as everyone does below */
    case ALLGATHER:
    case ALLTOALL:
      if (t->which == GATHER && t->rank != 0) break;
      for (int r = 0; r < t->size; r++) check_block(t, t->receive + (size_t)r * block, r);
      break;
    case COLLECTIVES: break;
  }
}

static void collective_row(probe *p, collective_trial *t) {
  t->offset_ns = clock_offset(t->rank, t->size); /* again per row: clocks drift apart */
  memset(t->receive, 0, (size_t)t->size * (size_t)t->bytes);
  memset(t->sums, 0, (size_t)t->bytes);
  summary s;
  probe_repeat(p, MPI_COMM_WORLD, collective_once, t, &s);
  check_collective(t);
  if (t->rank != 0) return;
  char min[32], median[32], mean[32], ci[32];
  fs_output_printf(p->out, "%s,,%d,%lld,%lld,%s,%s,%s,%s\n", collective_names[t->which], t->size,
                   (long long)t->bytes, (long long)s.repetitions, format_ps_as_ns(min, s.min),
                   format_ps_as_ns(median, s.median), format_ps_as_ns(mean, s.mean),
                   format_ps_as_ns(ci, s.ci95));
  p->rows++;
}

int probe_collectives(probe *p) {
  const probe_options *o = p->options;
  collective_trial t = {.rank = p->machine->rank,
                        .size = p->machine->size,
                        .window_ns = FIRST_WINDOW_NS};
  int64_t largest = 0;
  for (int i = 0; i < o->collective_size_count; i++)
    if (o->collective_sizes[i] > largest) largest = o->collective_sizes[i];
  /* every rank's block in one buffer: at most PROBE_MAX_SIZE bytes */
  int64_t block_limit = PROBE_MAX_SIZE / t.size;
  if (largest > block_limit) largest = block_limit;
  size_t length = (size_t)t.size * (size_t)largest;
  t.send = malloc(length + 1);
  t.receive = malloc(length + 1);
  t.values = malloc((size_t)largest + sizeof(double));
  t.sums = malloc((size_t)largest + sizeof(double));
  int ok = t.send && t.receive && t.values && t.sums, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all_ok) {
    t.oversubscribed = oversubscribed(p->machine);
    if (t.oversubscribed && t.rank == 0)
      probe_note(p, "oversubscribed: a node has more ranks than processors; waiting "
                    "ranks yield their cores");
    memset(t.send, probe_pattern(t.rank), length + 1);
    for (size_t i = 0; i < (size_t)largest / sizeof(double); i++) t.values[i] = t.rank + 1;
    t.which = BARRIER;
    collective_row(p, &t);
    for (t.which = BCAST; t.which < COLLECTIVES; t.which++)
      for (int i = 0; i < o->collective_size_count; i++) {
        t.bytes = o->collective_sizes[i];
        if (t.bytes <= largest) {
          collective_row(p, &t);
        } else if (t.rank == 0) {
          probe_note(p, "%s of %lld B: skipped, %d blocks exceed 1 GiB", collective_names[t.which],
                     (long long)t.bytes, t.size);
        }
      }
  }
  free(t.send);
  free(t.receive);
  free(t.values);
  free(t.sums);
  return all_ok ? 0 : -1;
}
