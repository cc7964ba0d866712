/* trace_program.c: the MPI program the tracer is tested on
 * (tests/mpi/trace_record_test.sh, run with mpirun -n 4). It is a correct
 * MPI program that checks its own results and exits 0:
 *
 * 1. a ping-pong between ranks 0 and 1 at 8 B and 1 MiB (the minimum
 *    round trip of many) gives hockney's alpha (ns) and beta (ps/B);
 * 2. exchanges (sendrecv, sendrecv_replace), a ring of send/recv with tags,
 *    isend/irecv completed by waitall, waitany, waitsome, test and testall
 *    loops, probe then recv, iprobe, a wildcard receive, an ssend;
 * 3. Comm_split into two halves with collectives and point-to-point on
 *    them, Comm_dup, Comm_free;
 * 4. the collectives on MPI_COMM_WORLD;
 * 5. persistent requests: a ring whose sends are persistent (Send_init)
 *    and receives ordinary, and back with persistent receives (Recv_init)
 *    and ordinary sends, started 3 times (Start, then Startall); Ssend_init,
 *    Bsend_init and Rsend_init started by one Startall; Request_free of
 *    them and of an active isend;
 * 6. nonblocking collectives (Iallreduce, Ibarrier, Ibcast, Ireduce,
 *    Igather, Iscatter, Iallgather, Ialltoall) waited on after computation,
 *    then the other twins (Iscan ... Ialltoallv) together;
 * with a few hundred microseconds of computation (a busy loop) between
 * steps. Rank 0 writes ARGV[1] after MPI_Finalize: "alpha_ns A",
 * "beta_ps_per_byte B" and "wall_ns_rankR T" per rank: the time from the
 * end of MPI_Init to the start of the gather of these times, the last call
 * before MPI_Finalize (a few microseconds more in the trace). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SMALL 8
#define LARGE (1 << 20)
#define ROUNDS 50

static int rank, size;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void check(int ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "trace_program: rank %d: wrong result: %s\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Computation between calls: a busy loop of about `us` microseconds. */
static void compute(int us) {
  int64_t until = now_ns() + (int64_t)us * 1000;
  volatile double x = 1;
  while (now_ns() < until) x = x * 1.0000001 + 1e-9;
}

/* The minimum round trip of ROUNDS between ranks 0 and 1, in ns. */
static int64_t ping_pong(char *buffer, int bytes) {
  int64_t best = INT64_MAX;
  for (int round = 0; round < ROUNDS + 2; round++) {
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t start = now_ns();
    if (rank == 0) {
      MPI_Send(buffer, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buffer, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
    int64_t trip = now_ns() - start;
    if (round >= 2 && trip < best) best = trip; /* the first two warm up */
  }
  return best;
}

static void exchanges(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int got = -1, value = rank;
  MPI_Status status;
  MPI_Sendrecv(&value, 1, MPI_INT, right, 10, &got, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &status);
  check(got == left && status.MPI_SOURCE == left, "sendrecv");
  compute(200);
  value = rank * 10;
  MPI_Sendrecv_replace(&value, 1, MPI_INT, left, 11, right, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(value == right * 10, "sendrecv_replace");
  compute(200);
  /* a ring: rank 0 starts, each adds its rank, tags count the hops */
  int token = 0;
  if (rank == 0) {
    MPI_Send(&token, 1, MPI_INT, right, 100, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, left, 100 + size - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(token == size * (size - 1) / 2, "ring");
  } else {
    MPI_Recv(&token, 1, MPI_INT, left, 100 + rank - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token += rank;
    compute(100);
    MPI_Send(&token, 1, MPI_INT, right, 100 + rank, MPI_COMM_WORLD);
  }
  compute(200);
  /* an ssend to the right, received from the left */
  if (rank % 2 == 0) {
    MPI_Ssend(&value, 1, MPI_INT, right, 12, MPI_COMM_WORLD);
    MPI_Recv(&got, 1, MPI_INT, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&got, 1, MPI_INT, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Ssend(&value, 1, MPI_INT, right, 12, MPI_COMM_WORLD);
  }
  check(got == ((left + 1) % size) * 10, "ssend");
}

static void nonblocking(void) {
  enum { N = 16 };
  int out[N], in[N];
  MPI_Request requests[2 * N];
  MPI_Status statuses[2 * N];
  /* everyone to everyone else, waitall */
  for (int i = 0; i < size; i++) out[i % N] = rank * 100 + i;
  int n = 0;
  for (int peer = 0; peer < size; peer++) {
    if (peer == rank) continue;
    MPI_Irecv(&in[peer % N], 1, MPI_INT, peer, 20, MPI_COMM_WORLD, &requests[n++]);
    MPI_Isend(&out[peer % N], 1, MPI_INT, peer, 20, MPI_COMM_WORLD, &requests[n++]);
  }
  compute(300); /* overlapped with the transfers */
  MPI_Waitall(n, requests, statuses);
  for (int peer = 0; peer < size; peer++)
    if (peer != rank) check(in[peer % N] == peer * 100 + rank, "waitall");
  /* two wildcard irecvs completed by waitany, the sends by waitsome */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request receives[2], sends[2];
  MPI_Irecv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &receives[0]);
  MPI_Irecv(&in[1], 1, MPI_INT, MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &receives[1]);
  out[0] = rank;
  MPI_Isend(&out[0], 1, MPI_INT, right, 21, MPI_COMM_WORLD, &sends[0]);
  MPI_Isend(&out[0], 1, MPI_INT, left, 22, MPI_COMM_WORLD, &sends[1]);
  compute(100);
  for (int k = 0; k < 2; k++) {
    int index;
    MPI_Status status;
    MPI_Waitany(2, receives, &index, &status);
    check(index >= 0 && index < 2 && status.MPI_SOURCE == (index == 0 ? left : right), "waitany");
  }
  int sent = 0;
  while (sent < 2) {
    int count, indices[2];
    MPI_Waitsome(2, sends, &count, indices, MPI_STATUSES_IGNORE);
    check(count != MPI_UNDEFINED, "waitsome");
    sent += count;
  }
  /* a test loop with computation, then testall */
  MPI_Request request;
  MPI_Irecv(&in[2], 1, MPI_INT, left, 23, MPI_COMM_WORLD, &request);
  MPI_Send(&out[0], 1, MPI_INT, right, 23, MPI_COMM_WORLD);
  for (int flag = 0; !flag;) {
    MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    if (!flag) compute(20);
  }
  check(in[2] == left, "test");
  MPI_Irecv(&in[3], 1, MPI_INT, right, 24, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(&out[0], 1, MPI_INT, left, 24, MPI_COMM_WORLD, &requests[1]);
  for (int flag = 0; !flag;) {
    MPI_Testall(2, requests, &flag, statuses);
    if (!flag) compute(20);
  }
  check(in[3] == right, "testall");
}

static void probes(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int message[3] = {rank, rank + 1, rank + 2}, got[3] = {0};
  MPI_Request request;
  MPI_Isend(message, 1 + rank % 3, MPI_INT, right, 30, MPI_COMM_WORLD, &request);
  MPI_Status status;
  MPI_Probe(left, 30, MPI_COMM_WORLD, &status);
  int count;
  MPI_Get_count(&status, MPI_INT, &count);
  check(count == 1 + left % 3, "probe count");
  MPI_Recv(got, count, MPI_INT, left, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  check(got[0] == left, "probe");
  compute(100);
  /* iprobe until the message is there, then a wildcard receive */
  MPI_Isend(message, 1, MPI_INT, left, 31, MPI_COMM_WORLD, &request);
  for (int flag = 0; !flag;) {
    MPI_Iprobe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &flag, &status);
    if (!flag) compute(10);
  }
  MPI_Recv(got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
  check(status.MPI_SOURCE == right && status.MPI_TAG == 31 && got[0] == right, "wildcard receive");
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

static void sub_communicators(void) {
  MPI_Comm half, copy;
  int color = rank < size / 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, size - rank, &half); /* keys reverse the order */
  int half_rank, half_size;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
  int first = color ? 0 : size / 2, last = color ? size / 2 - 1 : size - 1;
  check(sum == (first + last) * (last - first + 1) / 2, "allreduce on a half");
  compute(200);
  int root_value = half_rank == 0 ? rank : -1;
  MPI_Bcast(&root_value, 1, MPI_INT, 0, half);
  check(root_value == last, "bcast on a half (rank 0 of a half is its last world rank)");
  /* point-to-point on the half: a shift */
  int got = -1, next = (half_rank + 1) % half_size,
      previous = (half_rank + half_size - 1) % half_size;
  MPI_Sendrecv(&half_rank, 1, MPI_INT, next, 40, &got, 1, MPI_INT, previous, 40, half,
               MPI_STATUS_IGNORE);
  check(got == previous, "sendrecv on a half");
  MPI_Comm_dup(half, &copy);
  MPI_Barrier(copy);
  int one = 1, count = 0;
  MPI_Reduce(&one, &count, 1, MPI_INT, MPI_SUM, 0, copy);
  check(half_rank != 0 || count == half_size, "reduce on a dup");
  MPI_Comm_free(&copy);
  MPI_Comm_free(&half);
}

static void collectives(void) {
  enum { MAX = 16 };
  int value = rank + 1, result = 0, all[MAX], counts[MAX], displs[MAX], parts[MAX];
  MPI_Barrier(MPI_COMM_WORLD);
  compute(200);
  int root_value = rank == 1 ? 42 : 0;
  MPI_Bcast(&root_value, 1, MPI_INT, 1, MPI_COMM_WORLD);
  check(root_value == 42, "bcast");
  MPI_Reduce(&value, &result, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  check(rank != 0 || result == size * (size + 1) / 2, "reduce");
  compute(200);
  double big[1024], big_sum[1024];
  for (int i = 0; i < 1024; i++) big[i] = rank + i;
  MPI_Allreduce(big, big_sum, 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  check(big_sum[5] == size * (size - 1) / 2 + 5.0 * size, "allreduce");
  MPI_Gather(&value, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; rank == 0 && i < size; i++) check(all[i] == i + 1, "gather");
  for (int i = 0; i < size; i++) parts[i] = 10 * i;
  MPI_Scatter(parts, 1, MPI_INT, &result, 1, MPI_INT, 0, MPI_COMM_WORLD);
  check(result == 10 * rank, "scatter");
  compute(200);
  MPI_Allgather(&value, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) check(all[i] == i + 1, "allgather");
  for (int i = 0; i < size; i++) parts[i] = rank * 100 + i;
  MPI_Alltoall(parts, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) check(all[i] == i * 100 + rank, "alltoall");
  compute(200);
  /* v-variants: rank i sends i + 1 values */
  int mine[MAX];
  for (int i = 0; i <= rank; i++) mine[i] = rank;
  int offset = 0;
  for (int i = 0; i < size; i++) counts[i] = i + 1, displs[i] = offset, offset += i + 1;
  int gathered[MAX * MAX];
  MPI_Allgatherv(mine, rank + 1, MPI_INT, gathered, counts, displs, MPI_INT, MPI_COMM_WORLD);
  check(gathered[displs[size - 1]] == size - 1, "allgatherv");
  MPI_Gatherv(mine, rank + 1, MPI_INT, gathered, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  check(rank != 0 || gathered[displs[2]] == 2, "gatherv");
  MPI_Scatterv(gathered, counts, displs, MPI_INT, mine, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
  check(mine[rank] == rank, "scatterv");
  int send_counts[MAX], send_displs[MAX], receive_counts[MAX], receive_displs[MAX], out[MAX * MAX],
      in[MAX * MAX];
  int so = 0, ro = 0;
  for (int i = 0; i < size; i++) { /* to rank i: i + 1 values; from rank i: rank + 1 values */
    send_counts[i] = i + 1, send_displs[i] = so, so += i + 1;
    receive_counts[i] = rank + 1, receive_displs[i] = ro, ro += rank + 1;
  }
  for (int i = 0; i < so; i++) out[i] = rank;
  MPI_Alltoallv(out, send_counts, send_displs, MPI_INT, in, receive_counts, receive_displs, MPI_INT,
                MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) check(in[receive_displs[i]] == i, "alltoallv");
  compute(200);
  for (int i = 0; i < size; i++) parts[i] = rank + i;
  MPI_Reduce_scatter_block(parts, &result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(result == size * (size - 1) / 2 + size * rank, "reduce_scatter_block");
  for (int i = 0; i < size; i++) counts[i] = 1;
  MPI_Reduce_scatter(parts, &result, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(result == size * (size - 1) / 2 + size * rank, "reduce_scatter");
  MPI_Scan(&value, &result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(result == (rank + 1) * (rank + 2) / 2, "scan");
  result = 0;
  MPI_Exscan(&value, &result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(rank == 0 || result == rank * (rank + 1) / 2, "exscan");
  MPI_Barrier(MPI_COMM_WORLD);
}

static void persistent(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = 0, in = -1, back = 0, returned = -1;
  MPI_Request ring[2];
  MPI_Send_init(&out, 1, MPI_INT, right, 50, MPI_COMM_WORLD, &ring[0]);
  MPI_Recv_init(&returned, 1, MPI_INT, right, 51, MPI_COMM_WORLD, &ring[1]);
  for (int round = 0; round < 3; round++) {
    out = rank * 1000 + round;
    if (round == 0) {
      MPI_Start(&ring[0]);
      MPI_Start(&ring[1]);
    } else {
      MPI_Startall(2, ring);
    }
    MPI_Recv(&in, 1, MPI_INT, left, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(in == left * 1000 + round, "persistent send, ordinary recv");
    back = in + 1;
    MPI_Send(&back, 1, MPI_INT, left, 51, MPI_COMM_WORLD);
    compute(50);
    MPI_Waitall(2, ring, MPI_STATUSES_IGNORE);
    check(returned == out + 1, "ordinary send, persistent recv");
  }
  MPI_Request_free(&ring[0]);
  MPI_Request_free(&ring[1]);
  /* the other modes together; receives posted before the barrier, as Rsend needs */
  int values[3] = {rank, rank + 1, rank + 2}, got[3] = {-1, -1, -1}, freed = rank, last = -1, bytes;
  char attached[3 * (MPI_BSEND_OVERHEAD + 16)];
  void *detached;
  MPI_Buffer_attach(attached, (int)sizeof attached);
  MPI_Request modes[3], receives[3], request;
  for (int k = 0; k < 3; k++)
    MPI_Irecv(&got[k], 1, MPI_INT, left, 52 + k, MPI_COMM_WORLD, &receives[k]);
  MPI_Ssend_init(&values[0], 1, MPI_INT, right, 52, MPI_COMM_WORLD, &modes[0]);
  MPI_Bsend_init(&values[1], 1, MPI_INT, right, 53, MPI_COMM_WORLD, &modes[1]);
  MPI_Rsend_init(&values[2], 1, MPI_INT, right, 54, MPI_COMM_WORLD, &modes[2]);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Startall(3, modes);
  MPI_Waitall(3, modes, MPI_STATUSES_IGNORE);
  MPI_Waitall(3, receives, MPI_STATUSES_IGNORE);
  for (int k = 0; k < 3; k++) check(got[k] == left + k, "ssend, bsend and rsend modes");
  for (int k = 0; k < 3; k++) MPI_Request_free(&modes[k]);
  MPI_Buffer_detach(&detached, &bytes);
  /* an active ordinary request freed: its message still arrives */
  MPI_Isend(&freed, 1, MPI_INT, right, 55, MPI_COMM_WORLD, &request);
  MPI_Request_free(&request);
  MPI_Recv(&last, 1, MPI_INT, left, 55, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(last == left, "request_free of an active isend");
  MPI_Barrier(MPI_COMM_WORLD); /* everyone received: `freed` may go */
}

static void nonblocking_collectives(void) {
  enum { MAX = 16 };
  int value = rank + 1, sum = 0, total = 0, part = -1, root_value = rank == size - 1 ? 7 : 0;
  int gathered[MAX], all[MAX], parts[MAX], outgoing[MAX], incoming[MAX];
  MPI_Request requests[6];
  MPI_Iallreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[0]);
  MPI_Ibarrier(MPI_COMM_WORLD, &requests[1]);
  compute(100); /* overlapped with both in the run, not in the replay */
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  check(sum == size * (size + 1) / 2, "iallreduce");
  for (int flag = 0; !flag;) {
    MPI_Test(&requests[1], &flag, MPI_STATUS_IGNORE);
    if (!flag) compute(10);
  }
  for (int i = 0; i < size; i++) parts[i] = 10 * i, outgoing[i] = rank * 100 + i;
  MPI_Ibcast(&root_value, 1, MPI_INT, size - 1, MPI_COMM_WORLD, &requests[0]);
  MPI_Ireduce(&value, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &requests[1]);
  MPI_Igather(&value, 1, MPI_INT, gathered, 1, MPI_INT, 0, MPI_COMM_WORLD, &requests[2]);
  MPI_Iscatter(parts, 1, MPI_INT, &part, 1, MPI_INT, 1, MPI_COMM_WORLD, &requests[3]);
  MPI_Iallgather(&value, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &requests[4]);
  MPI_Ialltoall(outgoing, 1, MPI_INT, incoming, 1, MPI_INT, MPI_COMM_WORLD, &requests[5]);
  compute(100);
  MPI_Waitall(6, requests, MPI_STATUSES_IGNORE);
  check(root_value == 7, "ibcast");
  check(rank != 0 || total == size * (size + 1) / 2, "ireduce");
  for (int i = 0; rank == 0 && i < size; i++) check(gathered[i] == i + 1, "igather");
  check(part == 10 * rank, "iscatter");
  for (int i = 0; i < size; i++)
    check(all[i] == i + 1 && incoming[i] == i * 100 + rank, "iallgather, ialltoall");
  /* the other twins, one int per rank */
  int ones[MAX], displs[MAX], scanned = 0, exscanned = 0, block = 0, block2 = 0, part2 = -1;
  for (int i = 0; i < size; i++) ones[i] = 1, displs[i] = i;
  MPI_Iscan(&value, &scanned, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[0]);
  MPI_Iexscan(&value, &exscanned, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[1]);
  MPI_Ireduce_scatter_block(outgoing, &block, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[2]);
  MPI_Ireduce_scatter(outgoing, &block2, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[3]);
  MPI_Request more[4];
  MPI_Igatherv(&value, 1, MPI_INT, gathered, ones, displs, MPI_INT, 0, MPI_COMM_WORLD, &more[0]);
  MPI_Iscatterv(parts, ones, displs, MPI_INT, &part2, 1, MPI_INT, 0, MPI_COMM_WORLD, &more[1]);
  MPI_Iallgatherv(&value, 1, MPI_INT, all, ones, displs, MPI_INT, MPI_COMM_WORLD, &more[2]);
  MPI_Ialltoallv(outgoing, ones, displs, MPI_INT, incoming, ones, displs, MPI_INT, MPI_COMM_WORLD,
                 &more[3]);
  compute(50);
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  MPI_Waitall(4, more, MPI_STATUSES_IGNORE);
  int column =
      100 * size * (size - 1) / 2 + size * rank; /* the sum of outgoing[rank] over the ranks */
  check(scanned == (rank + 1) * (rank + 2) / 2 && (rank == 0 || exscanned == rank * (rank + 1) / 2),
        "iscan, iexscan");
  check(block == column && block2 == column, "ireduce_scatter_block, ireduce_scatter");
  for (int i = 0; rank == 0 && i < size; i++) check(gathered[i] == i + 1, "igatherv");
  check(part2 == 10 * rank, "iscatterv");
  for (int i = 0; i < size; i++)
    check(all[i] == i + 1 && incoming[i] == i * 100 + rank, "iallgatherv, ialltoallv");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t begin = now_ns();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 2 || size < 2 || size > 16) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -n 2..16 trace_program RESULTS_FILE\n");
    MPI_Finalize();
    return 2;
  }
  char *buffer = calloc(LARGE, 1);
  check(buffer != NULL, "memory");
  int64_t small = ping_pong(buffer, SMALL), large = ping_pong(buffer, LARGE);
  free(buffer);
  /* one way = half a round trip = alpha + bytes x beta */
  double beta_ns = (large - small) / 2.0 / (LARGE - SMALL),
         alpha_ns = small / 2.0 - SMALL * beta_ns;
  for (int repeat = 0; repeat < 3; repeat++) {
    compute(300);
    exchanges();
    compute(300);
    nonblocking();
    compute(300);
    probes();
    compute(300);
    sub_communicators();
    compute(300);
    collectives();
    compute(300);
    persistent();
    compute(300);
    nonblocking_collectives();
  }
  int64_t wall = now_ns() - begin, walls[16];
  MPI_Gather(&wall, 1, MPI_INT64_T, walls, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank != 0) return 0;
  /* after MPI_Finalize, so that writing it is not in the traced span */
  FILE *out = fopen(argv[1], "w");
  if (!out) return 1;
  fprintf(out, "alpha_ns %.1f\nbeta_ps_per_byte %.3f\n", alpha_ns, beta_ns * 1000);
  for (int r = 0; r < size; r++) fprintf(out, "wall_ns_rank%d %lld\n", r, (long long)walls[r]);
  return fclose(out) == 0 ? 0 : 1;
}
