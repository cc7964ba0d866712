/* test_trace_readers.c: the liballprof, SimGrid and OTF2 trace readers
 * (src/trace/liballprof_reader.c, simgrid_reader.c, otf2_reader.c).
 *
 * liballprof: the 2009 sweep3d-2x2 recording read exactly (per rank call
 * counts, recorded wall times in ps, clock differences, hosts, the fields of
 * its first send, recv, bcast and allreduce); a hand-written trace with
 * every kind of argument (requests reused, request arrays, wildcards,
 * MPI_PROC_NULL, v-collectives, sub-communicators from handles, calls not
 * simulated); every error with its exact "FILE:LINE:COLUMN:" message.
 * SimGrid: the exact fields of every action of small hand-written traces
 * (per-rank files and one file for all ranks, both tag variants, datatypes,
 * bare and keyed waits); every error. OTF2 (when built with it): an archive
 * written with the OTF2 writer API and read back field by field; a missing
 * and a corrupt archive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_support.h"
#include "trace/replay.h"
#include "trace/trace_readers.h"

#ifdef FS_HAVE_OTF2
#include <otf2/otf2.h>
#endif

#define PS_PER_US INT64_C(1000000)

/* ---- helpers ---- */

/* Writes each text to its own temporary file; paths[i] are freed by free_paths. */
static void write_files(const char *const *texts, int count, char **paths, const char *suffix) {
  for (int i = 0; i < count; i++) {
    paths[i] = fs_test_temp_path(suffix);
    ck_assert_int_eq(fs_test_write_file(paths[i], texts[i], 0), 0);
  }
}

static void free_paths(char **paths, int count) {
  for (int i = 0; i < count; i++) free(paths[i]);
}

static fs_trace *read_liballprof(const char *const *texts, int count, fs_error *err, char **paths) {
  write_files(texts, count, paths, ".txt");
  return fs_liballprof_read((const char *const *)paths, count, err);
}

static fs_trace *liballprof_ok(const char *const *texts, int count) {
  char *paths[8];
  fs_error err = {{0}};
  fs_trace *t = read_liballprof(texts, count, &err, paths);
  ck_assert_msg(t != NULL, "unexpected error: %s", err.message);
  free_paths(paths, count);
  return t;
}

/* The error of reading one file, with its temporary name replaced by "F". */
static void liballprof_error(const char *text, const char *message) {
  char *path;
  fs_error err = {{0}};
  const char *texts[1] = {text};
  fs_trace *t = read_liballprof(texts, 1, &err, &path);
  ck_assert_msg(t == NULL, "expected an error for: %s", text);
  size_t n = strlen(path);
  ck_assert_msg(strncmp(err.message, path, n) == 0, "message without the file: %s", err.message);
  char got[1100];
  snprintf(got, sizeof got, "F%s", err.message + n);
  ck_assert_str_eq(got, message);
  free(path);
}

static const fs_call *call(const fs_trace *t, int32_t r, int64_t i) {
  ck_assert_int_lt(i, t->rank[r].count);
  return &t->rank[r].calls[i];
}

static const int64_t *list(const fs_trace *t, int32_t r, const fs_call *c) {
  return t->rank[r].list + c->list_at;
}

static int64_t count_kind(const fs_trace *t, int32_t r, fs_call_kind kind) {
  int64_t n = 0;
  for (int64_t i = 0; i < t->rank[r].count; i++) n += t->rank[r].calls[i].kind == kind;
  return n;
}

/* The first call of a kind on rank r. */
static const fs_call *first(const fs_trace *t, int32_t r, fs_call_kind kind) {
  for (int64_t i = 0; i < t->rank[r].count; i++)
    if (t->rank[r].calls[i].kind == kind) return &t->rank[r].calls[i];
  ck_abort_msg("no %s on rank %d", fs_call_kind_name(kind), (int)r);
  return NULL;
}

/* ---- liballprof: sweep3d ---- */

START_TEST(sweep3d) {
  const char *paths[4];
  char buffer[4][256];
  for (int r = 0; r < 4; r++) {
    snprintf(buffer[r], sizeof buffer[r], "%s/traces/sweep3d-2x2/pmpi-trace-rank-%d.txt",
             FENNELSIM_SOURCE_ROOT, r);
    paths[r] = buffer[r];
  }
  fs_error err = {{0}};
  fs_trace *t = fs_liballprof_read(paths, 4, &err);
  ck_assert_msg(t != NULL, "%s", err.message);
  ck_assert_str_eq(t->format, "liballprof");
  ck_assert_int_eq(t->ranks, 4);
  ck_assert_int_eq(t->comms, 2); /* world and self only */
  static const fs_time wall[4] = {INT64_C(42539134000000), INT64_C(42539463000000),
                                  INT64_C(42539465000000), INT64_C(42522220000000)};
  static const fs_time offset[4] = {0, INT64_C(-1856565475), INT64_C(-1368522644),
                                    INT64_C(261545181)};
  for (int32_t r = 0; r < 4; r++) {
    ck_assert_int_eq(t->rank[r].count, 2923);
    ck_assert_int_eq(count_kind(t, r, FS_CALL_SEND), 1440);
    ck_assert_int_eq(count_kind(t, r, FS_CALL_RECV), 1440);
    ck_assert_int_eq(count_kind(t, r, FS_CALL_ALLREDUCE), 32);
    ck_assert_int_eq(count_kind(t, r, FS_CALL_BCAST), 4);
    ck_assert_int_eq(count_kind(t, r, FS_CALL_BARRIER), 3);
    ck_assert_int_eq(count_kind(t, r, FS_CALL_OTHER), 2); /* Comm_size, Comm_rank */
    ck_assert_int_eq(count_kind(t, r, FS_CALL_INIT), 1);
    ck_assert_int_eq(count_kind(t, r, FS_CALL_FINALIZE), 1);
    ck_assert_int_eq(fs_trace_wall_time(t, r), wall[r]);
    ck_assert_int_eq(t->rank[r].clock_offset, offset[r]);
    char host[64];
    snprintf(host, sizeof host, "odin07%d.cs.indiana.edu", (int)r + 1);
    ck_assert_str_eq(t->rank[r].host, host);
    for (int64_t i = 0; i < t->rank[r].count; i++)
      ck_assert_int_eq(t->rank[r].calls[i].comm, FS_COMM_WORLD);
  }
  /* rank 0: Init ends at 1237666046950106 us, the origin */
  const fs_call *c = call(t, 0, 0);
  ck_assert_int_eq(c->kind, FS_CALL_INIT);
  ck_assert_int_eq(c->start, 0);
  ck_assert_int_eq(c->end, 0);
  ck_assert_uint_eq(c->line, 6);
  /* line 76: MPI_Send:1237666048055174.000000:11287888:4500:11,8,8:2:6000:0,0,4:1237666048055654.000000 */
  c = first(t, 0, FS_CALL_SEND);
  ck_assert_uint_eq(c->line, 76);
  ck_assert_int_eq(c->start, 1105068 * PS_PER_US);
  ck_assert_int_eq(c->end, 1105548 * PS_PER_US);
  ck_assert_int_eq(c->peer, 2);
  ck_assert_int_eq(c->tag, 6000);
  ck_assert_int_eq(c->bytes, 36000);
  ck_assert_int_eq(c->comm, FS_COMM_WORLD);
  ck_assert_int_eq(c->request, -1);
  /* line 15: MPI_Recv:1237666047187471.000000:11251872:4500:11,8,46909632806920:1:3000:0,0,4:...:1237666047238935.000000 */
  c = first(t, 0, FS_CALL_RECV);
  ck_assert_uint_eq(c->line, 15);
  ck_assert_int_eq(c->start, 237365 * PS_PER_US);
  ck_assert_int_eq(c->end, 288829 * PS_PER_US);
  ck_assert_int_eq(c->peer, 1);
  ck_assert_int_eq(c->tag, 3000);
  ck_assert_int_eq(c->recv_bytes, 36000);
  ck_assert_int_eq(c->source, FS_TRACE_UNKNOWN);
  /* line 9: MPI_Bcast:1237666046950835.000000:6610272:1:2,4,4:0:0,0,4:1237666046950889.000000 */
  c = first(t, 0, FS_CALL_BCAST);
  ck_assert_uint_eq(c->line, 9);
  ck_assert_int_eq(c->start, 729 * PS_PER_US);
  ck_assert_int_eq(c->end, 783 * PS_PER_US);
  ck_assert_int_eq(c->root, 0);
  ck_assert_int_eq(c->bytes, 4);
  /* line 255: MPI_Allreduce:1237666050414953.000000:...:1:2,4,4294967300:3:0,0,4:1237666050464371.000000 */
  c = first(t, 0, FS_CALL_ALLREDUCE);
  ck_assert_uint_eq(c->line, 255);
  ck_assert_int_eq(c->start, 3464847 * PS_PER_US);
  ck_assert_int_eq(c->end, 3514265 * PS_PER_US);
  ck_assert_int_eq(c->bytes, 4);
  ck_assert_int_eq(c->recv_bytes, 4);
  ck_assert_int_eq(c->root, FS_TRACE_UNKNOWN);
  /* rank 3, line 15: MPI_Send:1237666047212086.000000:10997744:4500:11,8,8:2:3000:0,3,4:1237666047212405.000000 */
  c = first(t, 3, FS_CALL_SEND);
  ck_assert_uint_eq(c->line, 15);
  ck_assert_int_eq(c->start, (1237666047212086 - 1237666046966688) * PS_PER_US);
  ck_assert_int_eq(c->peer, 2);
  ck_assert_int_eq(c->tag, 3000);
  c = &t->rank[0].calls[t->rank[0].count - 1];
  ck_assert_int_eq(c->kind, FS_CALL_FINALIZE);
  ck_assert_int_eq(c->start, c->end);
  fs_trace_free(t);
}
END_TEST

/* ---- liballprof: every argument kind ---- */

static const char *const calls_rank0 =
    "# collprof 0.9 output file\n"
    "# host: a\n"
    "# Init clockdiff: 12.5\n"
    "\n"
    "MPI_Init:-:1:2:100.250000\n"
    "MPI_Isend:101:7:10:11,8,8:1:5:0,0,2:4000:102.000001\n"
    "MPI_Irecv:103:7:3:2,4,4:-1:-1:0,0,2:4008:104\n"
    "MPI_Waitall:105:2:4000:9:106\n"
    "MPI_Isend:107:7:1:1,1,1:-2:0:0,0,2:4000:108\n"
    "MPI_Wait:109:4000:9:110\n"
    "MPI_Wait:111:4000:9:112\n"
    "MPI_Sendrecv:113:1:2:1,4,4:1:7:2:3:1,8,8:1:8:0,0,2:9:114\n"
    "MPI_Alltoallv:115:1:2:1,2:3:0,0:1,4,4:4:5:3,4:6:0,0:1,8,8:0,0,2:116\n"
    "MPI_Gatherv:117:1:2:1,4,4:3:4:5,6:7:0,2:1,1,1:0:0,0,2:118\n"
    "MPI_Reduce:119:1:2:3:1,4,4:0:1:0,0,2:120\n"
    "MPI_Comm_split:121:0,0,2:1:0:99:122\n"
    "MPI_Barrier:123:77,0,1:124\n"
    "MPI_Wtime:125:126\n"
    "MPI_Frobnicate:127:a:b:c:128\n"
    "MPI_Finalize:129:-\n";
static const char *const calls_rank1 = "MPI_Init:-:1:2:5\n"
                                       "MPI_Finalize:6:-\n";

START_TEST(liballprof_calls) {
  const char *texts[2] = {calls_rank0, calls_rank1};
  fs_trace *t = liballprof_ok(texts, 2);
  ck_assert_str_eq(t->rank[0].host, "a");
  ck_assert_int_eq(t->rank[0].clock_offset, 12500000);
  ck_assert_ptr_null(t->rank[1].host);
  ck_assert_int_eq(t->rank[0].count, 16);
  const fs_call *c = call(t, 0, 0);
  ck_assert_int_eq(c->kind, FS_CALL_INIT);
  ck_assert_int_eq(c->start, 250000); /* the origin is 100 us: Init ends 0.25 us after it */
  ck_assert_int_eq(c->end, 250000);
  c = call(t, 0, 1);
  ck_assert_int_eq(c->kind, FS_CALL_ISEND);
  ck_assert_int_eq(c->start, PS_PER_US);
  ck_assert_int_eq(c->end, 2 * PS_PER_US + 1);
  ck_assert_int_eq(c->bytes, 80);
  ck_assert_int_eq(c->peer, 1);
  ck_assert_int_eq(c->tag, 5);
  ck_assert_int_eq(c->request, 0);
  c = call(t, 0, 2);
  ck_assert_int_eq(c->kind, FS_CALL_IRECV);
  ck_assert_int_eq(c->peer, FS_TRACE_ANY);
  ck_assert_int_eq(c->tag, FS_TRACE_ANY);
  ck_assert_int_eq(c->recv_bytes, 12);
  ck_assert_int_eq(c->request, 1);
  c = call(t, 0, 3); /* the array at 4000 of 2: entries 4000 and 4008 */
  ck_assert_int_eq(c->kind, FS_CALL_WAITALL);
  ck_assert_int_eq(c->list_count, 2);
  ck_assert_int_eq(list(t, 0, c)[0], 0);
  ck_assert_int_eq(list(t, 0, c)[1], 1);
  c = call(t, 0, 4); /* the address reused: a new request */
  ck_assert_int_eq(c->peer, FS_TRACE_PROC_NULL);
  ck_assert_int_eq(c->bytes, 1);
  ck_assert_int_eq(c->request, 2);
  ck_assert_int_eq(call(t, 0, 5)->request, 2);
  ck_assert_int_eq(call(t, 0, 6)->request, -1); /* MPI_REQUEST_NULL by then */
  c = call(t, 0, 7);
  ck_assert_int_eq(c->kind, FS_CALL_SENDRECV);
  ck_assert_int_eq(c->peer, 1);
  ck_assert_int_eq(c->tag, 7);
  ck_assert_int_eq(c->bytes, 8);
  ck_assert_int_eq(c->recv_peer, 1);
  ck_assert_int_eq(c->recv_tag, 8);
  ck_assert_int_eq(c->recv_bytes, 24);
  c = call(t, 0, 8);
  ck_assert_int_eq(c->kind, FS_CALL_ALLTOALLV);
  ck_assert_int_eq(c->list_count, 4);
  ck_assert_int_eq(list(t, 0, c)[0], 4);
  ck_assert_int_eq(list(t, 0, c)[1], 8);
  ck_assert_int_eq(list(t, 0, c)[2], 24);
  ck_assert_int_eq(list(t, 0, c)[3], 32);
  ck_assert_int_eq(c->bytes, 12);
  ck_assert_int_eq(c->recv_bytes, 56);
  c = call(t, 0, 9); /* rank 0 is the root: it receives 5 and 6 chars */
  ck_assert_int_eq(c->kind, FS_CALL_GATHERV);
  ck_assert_int_eq(c->root, 0);
  ck_assert_int_eq(list(t, 0, c)[0], 8);
  ck_assert_int_eq(list(t, 0, c)[1], 0);
  ck_assert_int_eq(list(t, 0, c)[2], 5);
  ck_assert_int_eq(list(t, 0, c)[3], 6);
  ck_assert_int_eq(c->bytes, 8);
  ck_assert_int_eq(c->recv_bytes, 11);
  c = call(t, 0, 10); /* rank 0 is not the root */
  ck_assert_int_eq(c->kind, FS_CALL_REDUCE);
  ck_assert_int_eq(c->root, 1);
  ck_assert_int_eq(c->bytes, 12);
  ck_assert_int_eq(c->recv_bytes, 0);
  c = call(t, 0, 11);
  ck_assert_int_eq(c->kind, FS_CALL_COMM_SPLIT);
  ck_assert_int_eq(c->comm, FS_COMM_WORLD);
  ck_assert_int_eq(c->new_comm, FS_TRACE_UNKNOWN);
  ck_assert_int_eq(call(t, 0, 12)->comm, FS_COMM_SELF);
  c = call(t, 0, 13);
  ck_assert_int_eq(c->kind, FS_CALL_OTHER);
  ck_assert_int_eq(c->start, 25 * PS_PER_US);
  ck_assert_int_eq(c->end, 26 * PS_PER_US);
  c = call(t, 0, 14);
  ck_assert_int_eq(c->kind, FS_CALL_OTHER);
  ck_assert_int_eq(c->end, 28 * PS_PER_US);
  c = call(t, 0, 15);
  ck_assert_int_eq(c->kind, FS_CALL_FINALIZE);
  ck_assert_int_eq(c->start, 29 * PS_PER_US);
  ck_assert_int_eq(c->end, 29 * PS_PER_US);
  ck_assert_int_eq(fs_trace_wall_time(t, 0), 29 * PS_PER_US - 250000);
  ck_assert_int_eq(fs_trace_wall_time(t, 1), PS_PER_US);
  fs_trace_free(t);
}
END_TEST

/* Sub-communicators: rows {0,1} and {2,3} under different handles, a
 * column {0,2} under one handle, a dup of the world. */
START_TEST(liballprof_comms) {
  const char *texts[4] =
      {"MPI_Barrier:1:0,0,4:2\nMPI_Barrier:3:50,0,2:4\nMPI_Send:5:1:1:1,1,1:1:0:70,0,2:6\nMPI_"
       "Barrier:7:90,0,4:8\n"
       "MPI_Finalize:9:-\n",
       "MPI_Barrier:1:0,1,4:2\nMPI_Barrier:3:50,1,2:4\nMPI_Barrier:7:90,1,4:8\nMPI_Finalize:9:-\n",
       "MPI_Barrier:1:0,2,4:2\nMPI_Barrier:3:60,0,2:4\nMPI_Recv:5:1:1:1,1,1:0:0:70,1,2:9:6\nMPI_"
       "Barrier:7:90,2,4:8\n"
       "MPI_Finalize:9:-\n",
       "MPI_Barrier:1:0,3,4:2\nMPI_Barrier:3:60,1,2:4\nMPI_Barrier:7:90,3,4:8\nMPI_Finalize:9:-\n"};
  fs_trace *t = liballprof_ok(texts, 4);
  ck_assert_int_eq(t->comms, 6);
  ck_assert_int_eq(call(t, 0, 0)->comm, FS_COMM_WORLD);
  const fs_trace_comm *row = &t->comm[call(t, 2, 1)->comm];
  ck_assert_int_eq(row->id, 60);
  ck_assert_int_eq(row->size, 2);
  ck_assert_int_eq(row->members[0], 2);
  ck_assert_int_eq(row->members[1], 3);
  ck_assert_int_eq(call(t, 0, 1)->comm, call(t, 1, 1)->comm);
  const fs_trace_comm *column = &t->comm[call(t, 0, 2)->comm];
  ck_assert_int_eq(column->id, 70);
  ck_assert_int_eq(column->members[0], 0);
  ck_assert_int_eq(column->members[1], 2);
  ck_assert_int_eq(call(t, 2, 2)->comm, call(t, 0, 2)->comm);
  const fs_trace_comm *dup = &t->comm[call(t, 3, 2)->comm];
  ck_assert_int_eq(dup->id, 90);
  ck_assert_int_eq(dup->size, 4);
  ck_assert_int_ne(call(t, 3, 2)->comm, FS_COMM_WORLD);
  fs_trace_free(t);
}
END_TEST

START_TEST(liballprof_comm_errors) {
  char *paths[2];
  fs_error err = {{0}};
  const char *one_handle_two_groups[2] = {"MPI_Barrier:1:5,0,2:2\nMPI_Finalize:3:-\n",
                                          "MPI_Barrier:1:5,0,2:2\nMPI_Finalize:3:-\n"};
  ck_assert_ptr_null(read_liballprof(one_handle_two_groups, 2, &err, paths));
  char expected[1024];
  snprintf(
      expected, sizeof expected,
      "%s:1:15: expected the ranks that use communicator 5 (size 2) to name each of its ranks once "
      "(liballprof records no members: fennelsim takes them from the handle), but comm rank 0 is "
      "named by two ranks",
      paths[1]);
  ck_assert_str_eq(err.message, expected);
  free_paths(paths, 2);
  const char *missing[2] =
      {"MPI_Init:-:1:2:3\nMPI_Finalize:4:-\n",
       "MPI_Barrier:1:5,0,2:2\nMPI_Finalize:3:-\n"}; /* rank 1 as comm rank 0 */
  ck_assert_ptr_null(read_liballprof(missing, 2, &err, paths));
  snprintf(
      expected, sizeof expected,
      "%s:1:15: expected the ranks that use communicator 5 (size 2) to name each of its ranks once "
      "(liballprof records no members: fennelsim takes them from the handle), but comm rank 1 is "
      "named by none",
      paths[1]);
  ck_assert_str_eq(err.message, expected);
  free_paths(paths, 2);
  ck_assert_ptr_null(fs_liballprof_read(NULL, 0, &err));
  ck_assert_str_eq(err.message,
                   "a liballprof trace needs at least one file (pmpi-trace-rank-0.txt)");
  const char *nowhere[1] = {"/nonexistent/pmpi-trace-rank-0.txt"};
  ck_assert_ptr_null(fs_liballprof_read(nowhere, 1, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/pmpi-trace-rank-0.txt"));
}
END_TEST

/* The other v-collectives, Reduce_scatter with and without its count list. */
START_TEST(liballprof_vectors) {
  const char *texts[1] = {"MPI_Allgatherv:1:1:3:1,4,4:2:3:5:4:0:1,2,2:0,0,1:2\n"
                          "MPI_Scatterv:3:1:9:6:9:0:1,8,8:2:7:1,1,1:0:0,0,1:4\n"
                          "MPI_Reduce_scatter:5:1:2:3:9:1,4,4:3:0,0,1:6\n"
                          "MPI_Reduce_scatter:7:1:2:3:1,4,4:3:0,0,1:8\n"
                          "MPI_Scan:9:1:2:5:1,2,2:3:0,0,1:10\n"
                          "MPI_Finalize:11:-\n"};
  fs_trace *t = liballprof_ok(texts, 1);
  const fs_call *c = call(t, 0, 0); /* 3 ints sent, 5 shorts received */
  ck_assert_int_eq(c->kind, FS_CALL_ALLGATHERV);
  ck_assert_int_eq(c->comm, FS_COMM_SELF);
  ck_assert_int_eq(c->bytes, 12);
  ck_assert_int_eq(c->recv_bytes, 10);
  ck_assert_int_eq(c->list_count, 2);
  ck_assert_int_eq(list(t, 0, c)[0], 12);
  ck_assert_int_eq(list(t, 0, c)[1], 10);
  c = call(t, 0, 1); /* 6 doubles scattered, 7 chars received from root 0 */
  ck_assert_int_eq(c->kind, FS_CALL_SCATTERV);
  ck_assert_int_eq(c->root, 0);
  ck_assert_int_eq(c->bytes, 48);
  ck_assert_int_eq(c->recv_bytes, 7);
  c = call(t, 0, 2);
  ck_assert_int_eq(c->kind, FS_CALL_REDUCE_SCATTER);
  ck_assert_int_eq(c->list_count, 2);
  ck_assert_int_eq(list(t, 0, c)[0], 36);
  ck_assert_int_eq(c->recv_bytes, 36);
  c = call(t, 0, 3); /* the "int recvcounts[]" form: the address alone */
  ck_assert_int_eq(c->kind, FS_CALL_REDUCE_SCATTER);
  ck_assert_int_eq(c->list_count, 0);
  ck_assert_int_eq(c->end, 7 * PS_PER_US);
  c = call(t, 0, 4);
  ck_assert_int_eq(c->kind, FS_CALL_SCAN);
  ck_assert_int_eq(c->bytes, 10);
  fs_trace_free(t);
}
END_TEST

/* Request arrays larger than the open requests, tests that keep requests
 * open, a handle naming two groups of different sizes, too many communicators. */
START_TEST(liballprof_requests_and_limits) {
  const char *texts[1] = {"MPI_Irecv:1:7:3:2,4,4:0:1:0,0,1:4008:2\n"
                          "MPI_Isend:3:7:3:2,4,4:0:1:0,0,1:4016:4\n"
                          "MPI_Testall:5:1000:4000:9:9:6\n"
                          "MPI_Test:7:4008:9:9:8\n"
                          "MPI_Waitany:9:1000:4000:9:9:10\n"
                          "MPI_Waitsome:11:1000:4000:9:9:9:12\n"
                          "MPI_Waitall:13:3:4000:9:14\n"
                          "MPI_Waitall:15:3:4000:9:16\n"
                          "MPI_Finalize:17:-\n"};
  fs_trace *t = liballprof_ok(texts, 1);
  for (int64_t i = 2; i <= 6; i++) {
    const fs_call *c = call(t, 0, i);
    if (i == 3) {
      ck_assert_int_eq(c->kind, FS_CALL_TEST);
      ck_assert_int_eq(c->request, 0);
      ck_assert_int_eq(c->flag, FS_TRACE_UNKNOWN);
      continue;
    }
    ck_assert_int_eq(c->list_count, 2);
    ck_assert_int_eq(list(t, 0, c)[0], 0);
    ck_assert_int_eq(list(t, 0, c)[1], 1);
    ck_assert_int_eq(c->index, FS_TRACE_UNKNOWN);
    ck_assert_int_eq(c->completed_count, 0);
  }
  ck_assert_int_eq(call(t, 0, 7)->list_count, 0); /* all closed by the first Waitall */
  ck_assert_int_eq(call(t, 0, 2)->kind, FS_CALL_TESTALL);
  ck_assert_int_eq(call(t, 0, 4)->kind, FS_CALL_WAITANY);
  ck_assert_int_eq(call(t, 0, 5)->kind, FS_CALL_WAITSOME);
  fs_trace_free(t);

  char *paths[4];
  fs_error err = {{0}};
  const char *sizes[4] =
      {"MPI_Barrier:1:0,0,4:2\nMPI_Barrier:3:5,0,4:4\nMPI_Barrier:5:5,0,2:6\nMPI_Finalize:7:-\n",
       "MPI_Barrier:1:0,1,4:2\nMPI_Barrier:3:5,1,4:4\nMPI_Barrier:5:5,1,2:6\nMPI_Finalize:7:-\n",
       "MPI_Barrier:1:0,2,4:2\nMPI_Barrier:3:5,2,4:4\nMPI_Finalize:7:-\n",
       "MPI_Barrier:1:0,3,4:2\nMPI_Finalize:7:-\n"};
  ck_assert_ptr_null(read_liballprof(sizes, 4, &err, paths));
  char expected[1100];
  snprintf(expected, sizeof expected,
           "%s:2:15: expected communicator 5 to name one group of ranks (it names two of different "
           "sizes)",
           paths[0]);
  ck_assert_str_eq(err.message, expected);
  free_paths(paths, 4);

  size_t capacity = 1100 * 32, used = 0;
  char *many = malloc(capacity);
  for (int i = 0; i < 1025; i++)
    used += (size_t)snprintf(many + used, capacity - used, "MPI_Barrier:1:%d,0,1:1\n", i);
  liballprof_error(many, "F:1025:15: expected at most 1024 different communicators per rank");
  free(many);
}
END_TEST

START_TEST(liballprof_errors) {
  liballprof_error("hello\n", "F:1:1: expected a '#' header line or an MPI call "
                              "'MPI_Name:start:...:end' (got 'hello')");
  liballprof_error("MPI_Send\n", "F:1:9: expected ':' and the start time after the call's name "
                                 "(got end of line)");
  liballprof_error("MPI_Send:x:1:1:1,1,1:0:0:0,0,1:2\n",
                   "F:1:10: expected a time in microseconds ('1237666046950106.000000') or '-' "
                   "(got 'x')");
  liballprof_error("MPI_Send:1.1234567:1:1:1,1,1:0:0:0,0,1:2\n",
                   "F:1:10: expected a time with at most 6 decimals (picoseconds) (got "
                   "'1.1234567')");
  liballprof_error("MPI_Send:1.:1:1:1,1,1:0:0:0,0,1:2\n",
                   "F:1:10: expected a time in microseconds ('1237666046950106.000000') or '-' "
                   "(got '1.')");
  liballprof_error("MPI_Wtime:1:200000000000000000\n",
                   "F:1:13: expected a time within 2^62 ps (53 days) of the rank's first time (got "
                   "'200000000000000000')");
  liballprof_error("MPI_Wtime:1:4611686018428\n",
                   "F:1:13: expected a time within 2^62 ps (53 days) of the rank's first time (got "
                   "'4611686018428')");
  liballprof_error("MPI_Send:1:x:1:1,1,1:0:0:0,0,1:2\n",
                   "F:1:12: expected an address (an unsigned integer) (got 'x')");
  liballprof_error("MPI_Send:1:1:-1:1,1,1:0:0:0,0,1:2\n",
                   "F:1:14: expected a count from 0 to 2147483647 (got '-1')");
  liballprof_error("MPI_Send:1:1:1:1:0:0:0,0,1:2\n",
                   "F:1:17: expected ',' and the size of the datatype (got ':')");
  liballprof_error("MPI_Send:1:1:1:1,x,1:0:0:0,0,1:2\n",
                   "F:1:18: expected a datatype size in bytes, from 0 to 2147483647 (got 'x')");
  liballprof_error("MPI_Send:1:1:1:1,1:0:0:0,0,1:2\n",
                   "F:1:19: expected ',' and the extent of the datatype (got ':')");
  liballprof_error("MPI_Send:1:1:1:1,1,e:0:0:0,0,1:2\n",
                   "F:1:20: expected a datatype extent (an integer) (got 'e')");
  liballprof_error("MPI_Send:1:1:1:1,1,1:-1:0:0,0,1:2\n",
                   "F:1:22: expected a destination rank or -2 (MPI_PROC_NULL) (got '-1')");
  liballprof_error("MPI_Send:1:1:1:1,1,1:1:0:0,0,1:2\n",
                   "F:1:22: expected a rank below 1, the size of the communicator (got '1')");
  liballprof_error("MPI_Recv:1:1:1:1,1,1:-3:0:0,0,1:9:2\n",
                   "F:1:22: expected a source rank, -1 (MPI_ANY_SOURCE) or -2 (MPI_PROC_NULL) (got "
                   "'-3')");
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:-1:0,0,1:2\n",
                   "F:1:24: expected a tag from 0 to 2147483647 (got '-1')");
  liballprof_error("MPI_Recv:1:1:1:1,1,1:0:-2:0,0,1:9:2\n",
                   "F:1:24: expected a tag from 0 to 2147483647 or -1 (MPI_ANY_TAG) (got '-2')");
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:0:x:2\n",
                   "F:1:26: expected a communicator 'handle,rank,size' (got 'x')");
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:0:0:2\n",
                   "F:1:27: expected ',' and the rank in the communicator (got ':')");
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:0:0,-1,1:2\n",
                   "F:1:28: expected the rank in the communicator, from 0 to 0 (the trace has 1 "
                   "ranks) (got '-1')");
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:0:0,0:2\n",
                   "F:1:29: expected ',' and the size of the communicator (got ':')");
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:0:0,0,2:2\n",
                   "F:1:30: expected a communicator size from 1 (above the rank in it) to 1 (the "
                   "ranks of the trace) "
                   "(got '2')");
  /* issue 15 item 11: a rank past the trace's was reported as "a communicator size from 8 to 1 (got '8')" */
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:0:0,7,8:2\n",
                   "F:1:28: expected the rank in the communicator, from 0 to 0 (the trace has 1 "
                   "ranks) (got '7')");
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:0:0,0,1\n",
                   "F:1:31: expected ':' and the end time of MPI_Send (got end of line)");
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:0\n",
                   "F:1:25: expected ':' and the next argument of MPI_Send (got end of line)");
  liballprof_error("MPI_Send:1:1:1:1,1,1:0:0:0,0,1:2:3\n",
                   "F:1:33: expected the end of the line after the end time (got ':')");
  liballprof_error("MPI_Bcast:1:1:1:1,1,1:1:0,0,1:2\n",
                   "F:1:23: expected a root below 1, the size of the communicator (got '1')");
  liballprof_error("MPI_Bcast:1:1:1:1,1,1:x:0,0,1:2\n", "F:1:23: expected a root rank (got 'x')");
  liballprof_error("MPI_Reduce:1:1:1:1:1,1,1:x:0:0,0,1:2\n",
                   "F:1:26: expected a reduction operation (an integer) (got 'x')");
  liballprof_error("MPI_Waitall:1:-1:1:1:2\n",
                   "F:1:15: expected a request count from 0 to 2147483647 (got '-1')");
  liballprof_error("MPI_Waitall:1:1:x:1:2\n", "F:1:17: expected the address of a request array (an "
                                              "unsigned integer) (got 'x')");
  liballprof_error("MPI_Wait:1:x:1:2\n",
                   "F:1:12: expected the address of a request (an unsigned integer) (got 'x')");
  liballprof_error("MPI_Comm_split:1:0,0,1:x:0:1:2\n", "F:1:24: expected an integer (got 'x')");
  liballprof_error("MPI_Alltoallv:1:1:2:1,2:3:0,0:1,4,4:4:5:3,4:6:0,0:1,8,8:0,0,1:2\n",
                   "F:1:21: expected 1 counts, one per rank of the communicator (got 2)");
  liballprof_error("MPI_Alltoallv:1:1:2:x:3:0:1,4,4:4:5:3:6:0:1,8,8:0,0,1:2\n",
                   "F:1:21: expected a count (a list 'c0,c1,...' per rank) (got 'x')");
  liballprof_error("MPI_Alltoallv:1:1:x:1\n",
                   "F:1:19: expected the address of a count array (got 'x')");
  liballprof_error("MPI_Gatherv:1:1:2:1,4,4:3:4:-5:7:0:1,1,1:0:0,0,1:2\n",
                   "F:1:29: expected counts of at least 0");
  liballprof_error("MPI_Wtime:1\n",
                   "F:1:12: expected ':' and the end time of MPI_Wtime (got end of line)");
  liballprof_error("MPI_Wtime:1x:2\n", "F:1:12: expected ':' after the start time (got 'x')");
  liballprof_error("# Init clockdiff: 1.2.3\n",
                   "F:1:22: expected the end of the line after the clock difference (got '.3')");
  liballprof_error("# Init clockdiff: x\n", "F:1:19: expected a clock difference in microseconds "
                                            "('-1856.565475') (got 'x')");
  liballprof_error("# Finalize clockdiff: 1.1234567\n",
                   "F:1:23: expected a clock difference with at most 6 decimals (got '1.1234567')");
}
END_TEST

/* Issue 15 items 10 and 3 (liballprof): empty files, no MPI_Finalize,
 * MPI_Init twice or late, calls after MPI_Finalize, times going back;
 * counts whose bytes add up past 2^62; a Waitall with no request open. */
START_TEST(liballprof_order_and_limits) {
  liballprof_error("", "F:1:1: expected MPI calls, the first MPI_Init, the last MPI_Finalize (got "
                       "end of file)");
  liballprof_error("# collprof 0.9 output file\n# host: a\n",
                   "F:3:1: expected MPI calls, the first MPI_Init, the last MPI_Finalize (got end "
                   "of file)");
  liballprof_error("MPI_Init:-:1:2:1\nMPI_Barrier:2:0,0,1:3\n",
                   "F:3:1: expected MPI_Finalize, the last call (got end of file)");
  liballprof_error("MPI_Init:-:1:2:1\nMPI_Init:-:1:2:2\nMPI_Finalize:3:-\n",
                   "F:2:1: expected one MPI_Init only (got 'MPI_Init')");
  liballprof_error("MPI_Wtime:1:2\nMPI_Init:-:1:2:3\nMPI_Finalize:4:-\n",
                   "F:2:1: expected MPI_Init only as the first call (got 'MPI_Init')");
  liballprof_error("MPI_Init:-:1:2:1\nMPI_Finalize:2:-\nMPI_Barrier:3:0,0,1:4\n",
                   "F:3:1: expected the end of the file after MPI_Finalize (got 'MPI_Barrier')");
  liballprof_error("MPI_Init:1:1:2:5\nMPI_Wtime:4:6\nMPI_Finalize:7:-\n",
                   "F:2:11: expected a start time no earlier than the end of the previous call "
                   "(got '4')");
  liballprof_error("MPI_Init:1:1:2:5\nMPI_Wtime:7:6\nMPI_Finalize:8:-\n",
                   "F:2:13: expected an end time no earlier than the start of the call (got '6')");
  liballprof_error("MPI_Init:5:1:2:6\nMPI_Wtime:4.5:6\nMPI_Finalize:7:-\n",
                   "F:2:11: expected a time no earlier than the rank's first time (got '4.5')");
  liballprof_error("MPI_Init:-:1:2:5\nMPI_Finalize:4:-\n",
                   "F:2:14: expected a time no earlier than the rank's first time (got '4')");
  /* 2^31-1 counts of a 2^31-1-byte type to each of 2 ranks: 2^63 - 2^33 + 2 bytes (UBSan's signed
   * overflow in the sum at 3 ranks before) */
  char *paths[2];
  fs_error err = {{0}};
  const char *huge[2] =
      {"MPI_Alltoallv:1:1:2:2147483647,2147483647:3:0,0:1,2147483647,2147483647:4:5:1,1:6:0,0:"
       "1,1,1:0,0,2:2\nMPI_Finalize:3:-\n",
       "MPI_Finalize:3:-\n"};
  ck_assert_ptr_null(read_liballprof(huge, 2, &err, paths));
  char expected[1100];
  snprintf(expected, sizeof expected,
           "%s:1:21: expected counts whose bytes add up to at most 4611686018427387904 "
           "(2^62)",
           paths[0]);
  ck_assert_str_eq(err.message, expected);
  free_paths(paths, 2);
  /* one entry of 2^62 - 2^32 + 1 bytes is within the limit */
  const char *one[1] = {
      "MPI_Alltoallv:1:1:2:2147483647:3:0:1,2147483647,2147483647:4:5:1:6:0:1,1,1:0,0,1:2\n"
      "MPI_Finalize:3:-\n"};
  fs_trace *t = liballprof_ok(one, 1);
  ck_assert_int_eq(call(t, 0, 0)->bytes, INT64_C(4611686014132420609));
  fs_trace_free(t);
  /* a Waitall with no request open (UBSan: a null array passed to qsort before) */
  const char *waitall[1] = {"MPI_Waitall:1:2:4000:9:2\nMPI_Finalize:3:-\n"};
  t = liballprof_ok(waitall, 1);
  ck_assert_int_eq(call(t, 0, 0)->kind, FS_CALL_WAITALL);
  ck_assert_int_eq(call(t, 0, 0)->list_count, 0);
  fs_trace_free(t);
}
END_TEST

/* ---- SimGrid ---- */

static fs_trace *simgrid_read(const char *const *texts, int count, fs_error *err, char **paths) {
  write_files(texts, count, paths, ".ti");
  return fs_simgrid_trace_read((const char *const *)paths, count, err);
}

static fs_trace *simgrid_ok(const char *const *texts, int count) {
  char *paths[8];
  fs_error err = {{0}};
  fs_trace *t = simgrid_read(texts, count, &err, paths);
  ck_assert_msg(t != NULL, "unexpected error: %s", err.message);
  free_paths(paths, count);
  return t;
}

static void simgrid_error(const char *text, int ranks, const char *message) {
  char *paths[4];
  const char *texts[4] = {text, "", "", ""};
  fs_error err = {{0}};
  ck_assert_ptr_null(simgrid_read(texts, ranks, &err, paths));
  size_t n = strlen(paths[0]);
  ck_assert_msg(strncmp(err.message, paths[0], n) == 0, "message without the file: %s",
                err.message);
  char got[1100];
  snprintf(got, sizeof got, "F%s", err.message + n);
  ck_assert_str_eq(got, message);
  free_paths(paths, ranks);
}

START_TEST(simgrid_point_to_point) {
  const char *texts[2] =
      {"0 init\n"
       "0 compute 1e6\n"
       "0 send 1 7 1000\n"
       "0 isend 1 8 10 0\n"
       "0 isend 1 9 2.5 1\n"
       "0 wait 0 1 9\n"
       "0 sleep 0.5\n"
       "0 waitall\n"
       "0 send 1 1e3 5\n" /* older SimGrid: PEER SIZE TYPE (a size no tag can be) */
       "0 finalize\n",
       "# a comment\n"
       "1 init 1\n"
       "1 recv -1 -1 1000\n"
       "1 irecv 0 8 10\n"
       "1 irecv 0 9 2\n"
       "1 test 0 1 8\n"
       "1 wait\n"
       "1 wait 0 1 8\n"
       "1 wait 0 1 8\n"
       "1 recv 0 64\n"
       "1 comm_size 2\n"
       "1 finalize\n"};
  fs_trace *t = simgrid_ok(texts, 2);
  ck_assert_str_eq(t->format, "simgrid");
  ck_assert_int_eq(t->rank[0].count, 10);
  const fs_call *c = call(t, 0, 1);
  ck_assert_int_eq(c->kind, FS_CALL_COMPUTE);
  ck_assert(c->amount == 1e6);
  ck_assert_int_eq(c->start, 0);
  ck_assert_int_eq(c->end, 0);
  c = call(t, 0, 2);
  ck_assert_int_eq(c->kind, FS_CALL_SEND);
  ck_assert_int_eq(c->peer, 1);
  ck_assert_int_eq(c->tag, 7);
  ck_assert_int_eq(c->bytes, 1000);
  ck_assert_uint_eq(c->line, 3);
  c = call(t, 0, 3);
  ck_assert_int_eq(c->kind, FS_CALL_ISEND);
  ck_assert_int_eq(c->bytes, 80); /* 10 doubles */
  ck_assert_int_eq(c->request, 0);
  c = call(t, 0, 4);
  ck_assert_int_eq(c->bytes, 10); /* 2.5 ints */
  ck_assert_int_eq(c->request, 1);
  ck_assert_int_eq(call(t, 0, 5)->request, 1);
  c = call(t, 0, 6);
  ck_assert_int_eq(c->kind, FS_CALL_COMPUTE);
  ck_assert(c->amount == 0);
  ck_assert_int_eq(c->end - c->start, INT64_C(500000000000));
  c = call(t, 0, 7);
  ck_assert_int_eq(c->kind, FS_CALL_WAITALL);
  ck_assert_int_eq(c->list_count, 1);
  ck_assert_int_eq(list(t, 0, c)[0], 0);
  c = call(t, 0, 8);
  ck_assert_int_eq(c->tag, 0);
  ck_assert_int_eq(c->bytes, 4000); /* 1000 floats, older form */
  ck_assert_int_eq(call(t, 0, 9)->kind, FS_CALL_FINALIZE);
  /* rank 1: "init 1" makes MPI_DOUBLE the default datatype */
  c = call(t, 1, 1);
  ck_assert_int_eq(c->kind, FS_CALL_RECV);
  ck_assert_int_eq(c->peer, FS_TRACE_ANY);
  ck_assert_int_eq(c->tag, FS_TRACE_ANY);
  ck_assert_int_eq(c->recv_bytes, 8000);
  ck_assert_int_eq(call(t, 1, 2)->request, 0);
  ck_assert_int_eq(call(t, 1, 3)->request, 1);
  c = call(t, 1, 4);
  ck_assert_int_eq(c->kind, FS_CALL_TEST);
  ck_assert_int_eq(c->request, 0);
  ck_assert_int_eq(c->flag, FS_TRACE_UNKNOWN);
  ck_assert_int_eq(call(t, 1, 5)->request, 1); /* bare wait: the last request opened */
  ck_assert_int_eq(call(t, 1, 6)->request, 0);
  ck_assert_int_eq(call(t, 1, 7)->request, -1); /* completed already */
  c = call(t, 1, 8);
  ck_assert_int_eq(c->tag, 0);
  ck_assert_int_eq(c->recv_bytes, 512);
  ck_assert_int_eq(call(t, 1, 9)->kind, FS_CALL_OTHER);
  ck_assert_uint_eq(call(t, 1, 9)->line, 11);
  fs_trace_free(t);
}
END_TEST

START_TEST(simgrid_collectives) {
  /* one file for both ranks */
  const char *texts[1] = {"0 barrier\n"
                          "1 barrier\n"
                          "0 bcast 10 1 1\n"
                          "0 reduce 4 1000 1\n"
                          "1 reduce 4 0 1 0\n"
                          "0 allreduce 3 5 0\n"
                          "0 alltoall 2 3 1 0\n"
                          "0 gather 2 3 1\n"
                          "0 scatter 2 3\n"
                          "0 allgather 2 3 2\n"
                          "0 gatherv 2 3 4 0 1\n"
                          "1 gatherv 2 3 4 0\n"
                          "0 allgatherv 2 3 4 1\n"
                          "0 allgatherv 2 3 4 1 0 5\n"
                          "0 scatterv 3 4 2\n"
                          "0 reducescatter 3 4 100 1\n"
                          "0 alltoallv 9 1 2 9 3 4\n"
                          "0 alltoallv 9 1 2 9 3 4 1 0\n"};
  fs_trace *t = simgrid_ok(texts, 1);
  ck_assert_int_eq(t->ranks, 2);
  ck_assert_int_eq(t->rank[1].count, 3);
  const fs_call *c = call(t, 0, 1);
  ck_assert_int_eq(c->kind, FS_CALL_BCAST);
  ck_assert_int_eq(c->root, 1);
  ck_assert_int_eq(c->bytes, 40);
  c = call(t, 0, 2);
  ck_assert_int_eq(c->kind, FS_CALL_REDUCE);
  ck_assert_int_eq(c->root, 1);
  ck_assert_int_eq(c->bytes, 4);
  ck_assert_int_eq(c->recv_bytes, 0);
  c = call(t, 0, 3);
  ck_assert_int_eq(c->kind, FS_CALL_COMPUTE);
  ck_assert(c->amount == 1000);
  c = call(t, 1, 1); /* root 1, doubles; no computation */
  ck_assert_int_eq(c->bytes, 32);
  ck_assert_int_eq(c->recv_bytes, 32);
  ck_assert_int_eq(call(t, 1, 2)->kind, FS_CALL_GATHERV);
  c = call(t, 0, 4);
  ck_assert_int_eq(c->kind, FS_CALL_ALLREDUCE);
  ck_assert_int_eq(c->bytes, 24);
  ck_assert_int_eq(c->root, FS_TRACE_UNKNOWN);
  ck_assert_int_eq(call(t, 0, 5)->kind, FS_CALL_COMPUTE);
  c = call(t, 0, 6);
  ck_assert_int_eq(c->kind, FS_CALL_ALLTOALL);
  ck_assert_int_eq(c->bytes, 8);
  ck_assert_int_eq(c->recv_bytes, 24);
  c = call(t, 0, 7);
  ck_assert_int_eq(c->kind, FS_CALL_GATHER);
  ck_assert_int_eq(c->root, 1);
  ck_assert_int_eq(c->bytes, 2);
  ck_assert_int_eq(c->recv_bytes, 3);
  c = call(t, 0, 8);
  ck_assert_int_eq(c->kind, FS_CALL_SCATTER);
  ck_assert_int_eq(c->root, 0);
  c = call(t, 0, 9);
  ck_assert_int_eq(c->kind, FS_CALL_ALLGATHER);
  ck_assert_int_eq(c->bytes, 2);
  ck_assert_int_eq(c->recv_bytes, 3);
  c = call(t, 0, 10); /* root 0, sends ints, receives 3 and 4 bytes (the default datatype) */
  ck_assert_int_eq(c->kind, FS_CALL_GATHERV);
  ck_assert_int_eq(c->root, 0);
  ck_assert_int_eq(c->list_count, 4);
  ck_assert_int_eq(list(t, 0, c)[0], 8);
  ck_assert_int_eq(list(t, 0, c)[1], 0);
  ck_assert_int_eq(list(t, 0, c)[2], 3);
  ck_assert_int_eq(list(t, 0, c)[3], 4);
  c = call(t, 1, 2); /* rank 1 of the same: sends 2 bytes to root 0, receives nothing */
  ck_assert_int_eq(list(t, 1, c)[0], 2);
  ck_assert_int_eq(list(t, 1, c)[1], 0);
  ck_assert_int_eq(list(t, 1, c)[2], 0);
  ck_assert_int_eq(c->bytes, 2);
  ck_assert_int_eq(c->recv_bytes, 0);
  c = call(t, 0, 11); /* allgatherv 2 3 4 with datatype int */
  ck_assert_int_eq(c->kind, FS_CALL_ALLGATHERV);
  ck_assert_int_eq(c->bytes, 8);
  ck_assert_int_eq(list(t, 0, c)[2], 12);
  ck_assert_int_eq(list(t, 0, c)[3], 16);
  ck_assert_int_eq(c->recv_bytes, 28);
  ck_assert_int_eq(call(t, 0, 12)->recv_bytes, 28); /* with displacements */
  c = call(t, 0, 13);                               /* scatterv 3 4 2, root 0 by default */
  ck_assert_int_eq(c->kind, FS_CALL_SCATTERV);
  ck_assert_int_eq(c->bytes, 7);
  ck_assert_int_eq(c->recv_bytes, 2);
  c = call(t, 0, 14);
  ck_assert_int_eq(c->kind, FS_CALL_REDUCE_SCATTER);
  ck_assert_int_eq(list(t, 0, c)[0], 12);
  ck_assert_int_eq(list(t, 0, c)[1], 16);
  ck_assert_int_eq(c->recv_bytes, 12);
  ck_assert(call(t, 0, 15)->amount == 100);
  c = call(t, 0, 16);
  ck_assert_int_eq(c->kind, FS_CALL_ALLTOALLV);
  ck_assert_int_eq(list(t, 0, c)[0], 1);
  ck_assert_int_eq(list(t, 0, c)[1], 2);
  ck_assert_int_eq(list(t, 0, c)[2], 3);
  ck_assert_int_eq(list(t, 0, c)[3], 4);
  c = call(t, 0, 17);
  ck_assert_int_eq(list(t, 0, c)[0], 4);
  ck_assert_int_eq(list(t, 0, c)[3], 32);
  fs_trace_free(t);
}
END_TEST

START_TEST(simgrid_errors) {
  simgrid_error("1 init\n", 2, "F:1:1: expected rank 0, the rank of this file (got '1')");
  simgrid_error("0\n", 2, "F:1:2: expected an action after the rank (got end of line)");
  simgrid_error(
      "0 fly\n", 2,
      "F:1:3: expected an action (init, finalize, compute, sleep, send, isend, recv, irecv, wait, "
      "waitall, test, barrier, bcast, reduce, allreduce, alltoall, alltoallv, gather, gatherv, "
      "scatter, scatterv, allgather, allgatherv, reducescatter, comm_size, comm_split, comm_dup, "
      "location) (got 'fly')");
  simgrid_error("0 finalize now\n", 2, "F:1:12: expected the end of the line (got 'now')");
  simgrid_error("0 init 1 2\n", 2, "F:1:10: expected the end of the line (got '2')");
  simgrid_error("0 compute x\n", 2,
                "F:1:11: expected a computation in flops, from 0 to 1e18 (got 'x')");
  simgrid_error("0 compute -1\n", 2,
                "F:1:11: expected a computation in flops, from 0 to 1e18 (got '-1')");
  simgrid_error("0 compute inf\n", 2,
                "F:1:11: expected a computation in flops, from 0 to 1e18 (got 'inf')");
  simgrid_error("0 sleep 1e7\n", 2,
                "F:1:9: expected a duration in seconds, from 0 to 4611686 (2^62 ps) (got '1e7')");
  /* issue 15 item 3: values past the limits (1e300 flops overflowed the replay's total before) */
  simgrid_error("0 sleep 4611687\n", 2,
                "F:1:9: expected a duration in seconds, from 0 to 4611686 (2^62 ps) (got "
                "'4611687')");
  simgrid_error("0 compute 1e300\n", 2,
                "F:1:11: expected a computation in flops, from 0 to 1e18 (got '1e300')");
  simgrid_error("0 allreduce 1 1e19\n", 2,
                "F:1:15: expected a computation in flops, from 0 to 1e18 (got '1e19')");
  simgrid_error("0 send 2 0 1\n", 2,
                "F:1:8: expected a destination rank from 0 to 1 or -666 (MPI_PROC_NULL) (got '2')");
  simgrid_error("0 recv -2 0 1\n", 2,
                "F:1:8: expected a source rank from 0 to 1, -1 or -555 (MPI_ANY_SOURCE) or -666 "
                "(MPI_PROC_NULL) (got '-2')");
  simgrid_error("0 send 1 -1 1\n", 2, "F:1:10: expected a tag from 0 to 2147483647 (got '-1')");
  simgrid_error("0 recv 1 -2 1\n", 2,
                "F:1:10: expected a tag from 0 to 2147483647, -1 or -444 (MPI_ANY_TAG) (got '-2')");
  simgrid_error("0 send 1 0 x\n", 2,
                "F:1:12: expected a size in elements, from 0 to 1e15 (got 'x')");
  simgrid_error("0 send 1 0 1 15\n", 2,
                "F:1:14: expected a datatype id from 0 to 14 (0 double, 1 int, 2 char, 3 short, 4 "
                "long, "
                "5 float, 6 byte...) (got '15')");
  simgrid_error("0 send 1 0 1 1 1\n", 2, "F:1:16: expected the end of the line (got '1')");
  simgrid_error("0 send 1\n", 2,
                "F:1:9: expected a size in elements, from 0 to 1e15 (got end of line)");
  simgrid_error("0 wait 0 1\n", 2, "F:1:11: expected the tag of the request (got end of line)");
  simgrid_error("0 wait 5 1 0\n", 2, "F:1:8: expected the source rank of the request (got '5')");
  simgrid_error("0 wait 0 1 0 0\n", 2, "F:1:14: expected the end of the line (got '0')");
  simgrid_error("0 waitall 1\n", 2, "F:1:11: expected the end of the line (got '1')");
  simgrid_error("0 bcast 1 2\n", 2, "F:1:11: expected a root rank (got '2')");
  simgrid_error("0 reduce 1\n", 2,
                "F:1:11: expected a computation in flops, from 0 to 1e18 (got end of line)");
  simgrid_error("0 gatherv 1 2\n", 2,
                "F:1:14: expected one count per rank and the arguments after them (got end of "
                "line)");
  simgrid_error("0 gatherv 1 2 x\n", 2,
                "F:1:15: expected a size in elements, from 0 to 1e15 (got 'x')");
  simgrid_error("0 allgatherv 1 2 3 1 1 1 1\n", 2,
                "F:1:20: expected a datatype, the displacements (one per rank) or both (got '1')");
  simgrid_error("0 allgatherv 1 2 3 0 x\n", 2, "F:1:22: expected a displacement (got 'x')");
  simgrid_error("0 reducescatter 1 2 3 1 1\n", 2, "F:1:25: expected the end of the line (got '1')");
  simgrid_error("0 alltoallv 1 2 3 4 5 6 1\n", 2,
                "F:1:26: expected a datatype id from 0 to 14 (0 double, 1 int, 2 char, 3 short, 4 "
                "long, "
                "5 float, 6 byte...) (got end of line)");
  simgrid_error("0 barrier 1\n", 2, "F:1:11: expected the end of the line (got '1')");
  simgrid_error("x init\n", 1, "F:1:1: expected a rank from 0 to 2147483646 (got 'x')");
  simgrid_error("0 init\n5 init\n", 1,
                "F:2:1: expected ranks below 2, the number of lines of the file (got 5)");
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_simgrid_trace_read(NULL, 0, &err));
  ck_assert_str_eq(err.message, "a SimGrid trace needs at least one file");
}
END_TEST

/* ---- OTF2 ---- */

START_TEST(otf2_missing) {
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_otf2_read("/nonexistent/traces.otf2", &err));
#ifdef FS_HAVE_OTF2
  ck_assert_int_eq(fs_otf2_available(), 1);
  ck_assert_str_eq(err.message, "/nonexistent/traces.otf2: cannot open the OTF2 anchor file");
  char *corrupt = fs_test_temp_path(".otf2");
  ck_assert_int_eq(fs_test_write_file(corrupt, "not an anchor\n", 0), 0);
  ck_assert_ptr_null(fs_otf2_read(corrupt, &err));
  char expected[1100];
  snprintf(expected, sizeof expected,
           "%s: expected an OTF2 anchor file (it does not start with OTF2's header)", corrupt);
  ck_assert_str_eq(err.message, expected);
  free(corrupt);
#else
  ck_assert_int_eq(fs_otf2_available(), 0);
  ck_assert_str_eq(err.message,
                   "/nonexistent/traces.otf2: this fennelsim was built without OTF2 support");
#endif
}
END_TEST

#ifdef FS_HAVE_OTF2

static OTF2_FlushType pre_flush(void *data, OTF2_FileType type, OTF2_LocationRef location,
                                void *caller, bool final) {
  (void)data, (void)type, (void)location, (void)caller, (void) final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *data, OTF2_FileType type, OTF2_LocationRef location) {
  (void)data, (void)type, (void)location;
  return 0;
}

enum { R_INIT, R_FINALIZE, R_SEND, R_RECV, R_ISEND, R_WAIT, R_ALLREDUCE, R_USER, R_REGIONS };

/* Two ranks at locations 10 and 11, ticks of 1 ns from an offset of 1000:
 * rank 0: Init, Send 100 B to 1 (tag 7), Isend 40 B to 1 (tag 8) + Wait,
 *         a user region, Allreduce 16 B, Finalize; rank 1 the matching Recvs. */
static void write_archive(const char *directory) {
  OTF2_Archive *archive = OTF2_Archive_Open(directory, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                            4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                            OTF2_COMPRESSION_NONE);
  ck_assert_ptr_nonnull(archive);
  OTF2_FlushCallbacks flush = {pre_flush, post_flush};
  OTF2_Archive_SetFlushCallbacks(archive, &flush, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_OpenEvtFiles(archive);
  for (uint64_t rank = 0; rank < 2; rank++) {
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, 10 + rank);
    uint64_t t = 1000;
    OTF2_EvtWriter_Enter(w, NULL, t += 10, R_INIT);
    OTF2_EvtWriter_Leave(w, NULL, t += 10, R_INIT);
    if (rank == 0) {
      OTF2_EvtWriter_Enter(w, NULL, t += 100, R_SEND);
      OTF2_EvtWriter_MpiSend(w, NULL, t += 1, 1, 0, 7, 100);
      OTF2_EvtWriter_Leave(w, NULL, t += 10, R_SEND);
      OTF2_EvtWriter_Enter(w, NULL, t += 100, R_ISEND);
      OTF2_EvtWriter_MpiIsend(w, NULL, t += 1, 1, 0, 8, 40, 555);
      OTF2_EvtWriter_Leave(w, NULL, t += 10, R_ISEND);
      OTF2_EvtWriter_Enter(w, NULL, t += 100, R_WAIT);
      OTF2_EvtWriter_MpiIsendComplete(w, NULL, t += 1, 555);
      OTF2_EvtWriter_Leave(w, NULL, t += 10, R_WAIT);
      OTF2_EvtWriter_Enter(w, NULL, t += 5, R_USER);
      OTF2_EvtWriter_Leave(w, NULL, t += 5, R_USER);
    } else {
      OTF2_EvtWriter_Enter(w, NULL, t += 100, R_RECV);
      OTF2_EvtWriter_MpiRecv(w, NULL, t += 50, 0, 0, 7, 100);
      OTF2_EvtWriter_Leave(w, NULL, t += 10, R_RECV);
      OTF2_EvtWriter_Enter(w, NULL, t += 100, R_RECV);
      OTF2_EvtWriter_MpiRecv(w, NULL, t += 50, 0, 0, 8, 40);
      OTF2_EvtWriter_Leave(w, NULL, t += 10, R_RECV);
    }
    OTF2_EvtWriter_Enter(w, NULL, t = 2000, R_ALLREDUCE);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t += 1);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t += 100, OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
                                    OTF2_UNDEFINED_UINT32, 16, 16);
    OTF2_EvtWriter_Leave(w, NULL, t += 1, R_ALLREDUCE);
    OTF2_EvtWriter_Enter(w, NULL, t = 3000 + 7 * rank, R_FINALIZE);
    OTF2_EvtWriter_Leave(w, NULL, t += 10, R_FINALIZE);
    OTF2_Archive_CloseEvtWriter(archive, w);
  }
  OTF2_Archive_CloseEvtFiles(archive);
  OTF2_Archive_OpenDefFiles(archive);
  for (uint64_t rank = 0; rank < 2; rank++) {
    OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(archive, 10 + rank);
    OTF2_Archive_CloseDefWriter(archive, d);
  }
  OTF2_Archive_CloseDefFiles(archive);
  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
  OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 1000, 3000, OTF2_UNDEFINED_TIMESTAMP);
  static const char *const strings[] =
      {"",          "MPI_Init", "MPI_Finalize",  "MPI_Send", "MPI_Recv",
       "MPI_Isend", "MPI_Wait", "MPI_Allreduce", "compute",  "node",
       "rank",      "thread",   "MPI_COMM_WORLD"};
  for (uint32_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
    OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
  for (uint32_t region = 0; region < R_REGIONS; region++)
    OTF2_GlobalDefWriter_WriteRegion(g, region, region + 1, region + 1, 0,
                                     OTF2_REGION_ROLE_FUNCTION,
                                     region == R_USER ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 9, 9, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (uint64_t rank = 0; rank < 2; rank++) {
    OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)rank, 10,
                                            OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, 10 + rank, 11, OTF2_LOCATION_TYPE_CPU_THREAD, 20,
                                       (OTF2_LocationGroupRef)rank);
  }
  const uint64_t locations[2] = {10, 11}, ranks[2] = {0, 1};
  OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, 2, locations);
  OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, 2, ranks);
  OTF2_GlobalDefWriter_WriteComm(g, 0, 12, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  OTF2_Archive_Close(archive);
}

/* A small archive for the error cases: ranks at locations 10 and 11 (both
 * defined with `events` events each, one more location per extra member of
 * the ranks group, undefined), the regions of write_archive, ticks of 1 ns
 * from 1000; `events` writes each rank's events. */
typedef void (*event_writer)(OTF2_EvtWriter *w, uint64_t rank);

static char *write_small_archive(event_writer events, uint64_t event_count,
                                 uint32_t extra_members) {
  char *directory = fs_test_temp_path("-otf2");
  OTF2_Archive *archive = OTF2_Archive_Open(directory, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                            4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                            OTF2_COMPRESSION_NONE);
  ck_assert_ptr_nonnull(archive);
  OTF2_FlushCallbacks flush = {pre_flush, post_flush};
  OTF2_Archive_SetFlushCallbacks(archive, &flush, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_OpenEvtFiles(archive);
  for (uint64_t rank = 0; rank < 2; rank++) {
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, 10 + rank);
    events(w, rank);
    OTF2_Archive_CloseEvtWriter(archive, w);
  }
  OTF2_Archive_CloseEvtFiles(archive);
  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
  OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 1000, 3000, OTF2_UNDEFINED_TIMESTAMP);
  static const char *const strings[] =
      {"",          "MPI_Init", "MPI_Finalize",  "MPI_Send", "MPI_Recv",
       "MPI_Isend", "MPI_Wait", "MPI_Allreduce", "compute",  "node",
       "rank",      "thread",   "MPI_COMM_WORLD"};
  for (uint32_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
    OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
  for (uint32_t region = 0; region < R_REGIONS; region++)
    OTF2_GlobalDefWriter_WriteRegion(g, region, region + 1, region + 1, 0,
                                     OTF2_REGION_ROLE_FUNCTION,
                                     region == R_USER ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 9, 9, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 10, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                          OTF2_UNDEFINED_LOCATION_GROUP);
  for (uint64_t rank = 0; rank < 2; rank++)
    OTF2_GlobalDefWriter_WriteLocation(g, 10 + rank, 11, OTF2_LOCATION_TYPE_CPU_THREAD, event_count,
                                       0);
  uint64_t *locations = malloc((2 + (size_t)extra_members) * sizeof *locations);
  ck_assert_ptr_nonnull(locations);
  for (uint64_t i = 0; i < 2 + (uint64_t)extra_members; i++) locations[i] = 10 + i;
  const uint64_t ranks[2] = {0, 1};
  OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, 2 + extra_members, locations);
  OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, 2, ranks);
  OTF2_GlobalDefWriter_WriteComm(g, 0, 12, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  OTF2_Archive_Close(archive);
  free(locations);
  return directory;
}

/* Init 1010-1020, Finalize 3000-3010 on both ranks; `middle` in between on rank 0. */
static void init_finalize(OTF2_EvtWriter *w, uint64_t rank, void (*middle)(OTF2_EvtWriter *w)) {
  OTF2_EvtWriter_Enter(w, NULL, 1010, R_INIT);
  OTF2_EvtWriter_Leave(w, NULL, 1020, R_INIT);
  if (rank == 0 && middle) middle(w);
  OTF2_EvtWriter_Enter(w, NULL, 3000, R_FINALIZE);
  OTF2_EvtWriter_Leave(w, NULL, 3010, R_FINALIZE);
}

static void plain_events(OTF2_EvtWriter *w, uint64_t rank) { init_finalize(w, rank, NULL); }

static void undefined_region(OTF2_EvtWriter *w) {
  OTF2_EvtWriter_Enter(w, NULL, 1100, 42);
  OTF2_EvtWriter_Leave(w, NULL, 1110, 42);
}
static void nested_enter(OTF2_EvtWriter *w) {
  OTF2_EvtWriter_Enter(w, NULL, 1100, R_SEND);
  OTF2_EvtWriter_Enter(w, NULL, 1105, R_WAIT);
  OTF2_EvtWriter_Leave(w, NULL, 1106, R_WAIT);
  OTF2_EvtWriter_Leave(w, NULL, 1110, R_SEND);
}
static void other_leave(OTF2_EvtWriter *w) {
  OTF2_EvtWriter_Enter(w, NULL, 1100, R_SEND);
  OTF2_EvtWriter_Leave(w, NULL, 1110, R_RECV);
}
static void unknown_isend(OTF2_EvtWriter *w) {
  OTF2_EvtWriter_Enter(w, NULL, 1100, R_WAIT);
  OTF2_EvtWriter_MpiIsendComplete(w, NULL, 1105, 777);
  OTF2_EvtWriter_Leave(w, NULL, 1110, R_WAIT);
}
static void unknown_irecv(OTF2_EvtWriter *w) {
  OTF2_EvtWriter_Enter(w, NULL, 1100, R_WAIT);
  OTF2_EvtWriter_MpiIrecv(w, NULL, 1105, 1, 0, 3, 8, 778);
  OTF2_EvtWriter_Leave(w, NULL, 1110, R_WAIT);
}
static void unknown_test(OTF2_EvtWriter *w) {
  OTF2_EvtWriter_Enter(w, NULL, 1100, R_WAIT);
  OTF2_EvtWriter_MpiRequestTest(w, NULL, 1105, 779);
  OTF2_EvtWriter_Leave(w, NULL, 1110, R_WAIT);
}
/* completed twice: the second completion names a request no longer open */
static void completed_twice(OTF2_EvtWriter *w) {
  OTF2_EvtWriter_Enter(w, NULL, 1100, R_ISEND);
  OTF2_EvtWriter_MpiIsend(w, NULL, 1101, 1, 0, 8, 40, 555);
  OTF2_EvtWriter_Leave(w, NULL, 1102, R_ISEND);
  OTF2_EvtWriter_Enter(w, NULL, 1200, R_WAIT);
  OTF2_EvtWriter_MpiIsendComplete(w, NULL, 1201, 555);
  OTF2_EvtWriter_Leave(w, NULL, 1202, R_WAIT);
  OTF2_EvtWriter_Enter(w, NULL, 1300, R_WAIT);
  OTF2_EvtWriter_MpiIsendComplete(w, NULL, 1301, 555);
  OTF2_EvtWriter_Leave(w, NULL, 1302, R_WAIT);
}
/* a send to rank 5 of a 2-rank world: read, then refused by the replay */
static void send_outside(OTF2_EvtWriter *w) {
  OTF2_EvtWriter_Enter(w, NULL, 1100, R_SEND);
  OTF2_EvtWriter_MpiSend(w, NULL, 1101, 5, 0, 7, 100);
  OTF2_EvtWriter_Leave(w, NULL, 1110, R_SEND);
}

/* a message of 2^63 bytes, past the limit of 2^62 */
static void huge_send(OTF2_EvtWriter *w) {
  OTF2_EvtWriter_Enter(w, NULL, 1100, R_SEND);
  OTF2_EvtWriter_MpiSend(w, NULL, 1101, 1, 0, 7, UINT64_C(1) << 63);
  OTF2_EvtWriter_Leave(w, NULL, 1110, R_SEND);
}

#define MIDDLE(name) \
  static void name##_events(OTF2_EvtWriter *w, uint64_t rank) { init_finalize(w, rank, name); }
MIDDLE(undefined_region)
MIDDLE(nested_enter)
MIDDLE(other_leave)
MIDDLE(unknown_isend)
MIDDLE(unknown_irecv)
MIDDLE(unknown_test)
MIDDLE(completed_twice)
MIDDLE(send_outside)
MIDDLE(huge_send)

/* Reads the archive in directory and checks the error, "A" standing for
 * the anchor's path. */
static void otf2_error(char *directory, const char *message) {
  char anchor[1100], expected[2200];
  snprintf(anchor, sizeof anchor, "%s/traces.otf2", directory);
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_otf2_read(anchor, &err));
  const char *a = strstr(message, "A:");
  ck_assert_ptr_nonnull(a);
  snprintf(expected, sizeof expected, "%s%s", anchor, message + 1);
  ck_assert_str_eq(err.message, expected);
  free(directory);
}

/* Issue 15 item 10: undefined regions, nested MPI calls, a Leave of another
 * region, requests nobody made; item 11: each error names the location, the
 * event's position among its events (from 1: Init's Enter and Leave are 1
 * and 2), its record type and time stamp (ticks), not a line 0. */
START_TEST(otf2_event_errors) {
  otf2_error(write_small_archive(undefined_region_events, 4, 0),
             "A: location 10, event 3 (Enter at time 1100): expected a region defined in the "
             "definitions (got region 42)");
  otf2_error(write_small_archive(nested_enter_events, 4, 0),
             "A: location 10, event 4 (Enter at time 1105): expected MPI_Send to leave before "
             "another MPI call enters "
             "(got MPI_Wait)");
  otf2_error(write_small_archive(other_leave_events, 4, 0),
             "A: location 10, event 4 (Leave at time 1110): expected the Leave of MPI_Send (got a "
             "Leave of MPI_Recv)");
  otf2_error(write_small_archive(unknown_isend_events, 4, 0),
             "A: location 10, event 4 (MpiIsendComplete at time 1105): expected a request that an "
             "MpiIsend or "
             "MpiIrecvRequest of this location made and nothing completed yet (got request 777)");
  otf2_error(write_small_archive(unknown_irecv_events, 4, 0),
             "A: location 10, event 4 (MpiIrecv at time 1105): expected a request that an MpiIsend "
             "or "
             "MpiIrecvRequest of this location made and nothing completed yet (got request 778)");
  otf2_error(write_small_archive(unknown_test_events, 4, 0),
             "A: location 10, event 4 (MpiRequestTest at time 1105): expected a request that an "
             "MpiIsend or "
             "MpiIrecvRequest of this location made and nothing completed yet (got request 779)");
  otf2_error(write_small_archive(completed_twice_events, 4, 0),
             "A: location 10, event 10 (MpiIsendComplete at time 1301): expected a request that an "
             "MpiIsend or "
             "MpiIrecvRequest of this location made and nothing completed yet (got request 555)");
  otf2_error(write_small_archive(huge_send_events, 4, 0),
             "A: location 10, event 4 (MpiSend at time 1101): expected a size of at most "
             "4611686018427387904 bytes (2^62) "
             "(got 9223372036854775808)");
  /* a rank whose location has no events */
  otf2_error(write_small_archive(plain_events, 0, 0),
             "A: expected events for every rank (location 10, rank 0, has none)");
  /* the replay's errors on OTF2 calls name the location and the call, not "traces.otf2:0:" */
  char *directory = write_small_archive(send_outside_events, 4, 0), anchor[1100], expected[1300];
  snprintf(anchor, sizeof anchor, "%s/traces.otf2", directory);
  fs_error err = {{0}};
  fs_trace *t = fs_otf2_read(anchor, &err);
  ck_assert_msg(t != NULL, "%s", err.message);
  fs_replay_options as_recorded = {.compute_scale = 1, .flop_rate = 1e9};
  ck_assert_ptr_null(fs_replay_build(t, &as_recorded, &err));
  snprintf(expected, sizeof expected,
           "%s: rank 0 (location 10), call 2, send: destination 5 is not a rank of communicator -1",
           anchor);
  ck_assert_str_eq(err.message, expected);
  fs_trace_free(t);
  free(directory);
}
END_TEST

/* Issue 15 item 5: a ranks group of 1000002 members, only the first two of
 * them defined locations with events. The members are checked against the
 * definitions before the OTF2 library is asked for any location's events
 * (selecting N locations costs it N^2/2 steps: over a minute here). */
START_TEST(otf2_undefined_members) {
  otf2_error(write_small_archive(plain_events, 4, 1000000),
             "A: expected each member of the MPI locations group to be a defined location (member "
             "2 is "
             "location 12, which is not)");
}
END_TEST

START_TEST(otf2_archive) {
  char *directory = fs_test_temp_path("-otf2");
  write_archive(directory);
  char anchor[1100];
  snprintf(anchor, sizeof anchor, "%s/traces.otf2", directory);
  fs_error err = {{0}};
  fs_trace *t = fs_otf2_read(anchor, &err);
  ck_assert_msg(t != NULL, "%s", err.message);
  ck_assert_str_eq(t->format, "otf2");
  ck_assert_int_eq(t->ranks, 2);
  ck_assert_int_eq(t->rank[0].count, 6);
  ck_assert_int_eq(t->rank[1].count, 5);
  const fs_call *c = call(t, 0, 0);
  ck_assert_int_eq(c->kind, FS_CALL_INIT);
  ck_assert_int_eq(c->start, 10000);
  ck_assert_int_eq(c->end, 20000);
  c = call(t, 0, 1);
  ck_assert_int_eq(c->kind, FS_CALL_SEND);
  ck_assert_int_eq(c->start, 120000);
  ck_assert_int_eq(c->end, 131000);
  ck_assert_int_eq(c->peer, 1);
  ck_assert_int_eq(c->tag, 7);
  ck_assert_int_eq(c->bytes, 100);
  ck_assert_int_eq(c->comm, FS_COMM_WORLD);
  c = call(t, 0, 2);
  ck_assert_int_eq(c->kind, FS_CALL_ISEND);
  ck_assert_int_eq(c->bytes, 40);
  ck_assert_int_eq(c->tag, 8);
  ck_assert_int_eq(c->request, 0);
  c = call(t, 0, 3);
  ck_assert_int_eq(c->kind, FS_CALL_WAIT);
  ck_assert_int_eq(c->request, 0);
  ck_assert_int_eq(c->start, 342000);
  ck_assert_int_eq(c->end, 353000);
  c = call(t, 0, 4); /* the user region is no call */
  ck_assert_int_eq(c->kind, FS_CALL_ALLREDUCE);
  ck_assert_int_eq(c->start, 1000000);
  ck_assert_int_eq(c->end, 1102000);
  ck_assert_int_eq(c->bytes, 16);
  ck_assert_int_eq(c->recv_bytes, 16);
  ck_assert_int_eq(c->root, FS_TRACE_UNKNOWN);
  ck_assert_int_eq(call(t, 0, 5)->kind, FS_CALL_FINALIZE);
  ck_assert_int_eq(fs_trace_wall_time(t, 0), 2000000 - 20000);
  ck_assert_int_eq(fs_trace_wall_time(t, 1), 2007000 - 20000);
  c = call(t, 1, 1);
  ck_assert_int_eq(c->kind, FS_CALL_RECV);
  ck_assert_int_eq(c->peer, 0);
  ck_assert_int_eq(c->source, 0);
  ck_assert_int_eq(c->tag, 7);
  ck_assert_int_eq(c->source_tag, 7);
  ck_assert_int_eq(c->recv_bytes, 100);
  ck_assert_int_eq(call(t, 1, 2)->tag, 8);
  ck_assert_int_eq(call(t, 1, 3)->kind, FS_CALL_ALLREDUCE);
  /* Computation (issue 15 item 2): OTF2 states none, the gaps between MPI
   * calls are it, a user region inside a gap included (ns from the offset).
   * Rank 0: Init ends at 20; Send 120-131, Isend 231-242, Wait 342-353, the
   * user region 358-363, Allreduce 1000-1102, Finalize at 2000: 100 + 100 +
   * 100 + 647 + 898 = 1845. Rank 1: Init ends at 20; Recvs 120-180 and
   * 280-340, Allreduce 1000-1102, Finalize at 2007: 100 + 100 + 660 + 905 =
   * 1765. Together 3610 ns. */
  fs_replay_options as_recorded = {.compute_scale = 1, .flop_rate = 1e9};
  fs_replay *replay = fs_replay_build(t, &as_recorded, &err);
  ck_assert_msg(replay != NULL, "%s", err.message);
  ck_assert_int_eq(replay->computation, 3610000);
  fs_replay_free(replay);
  fs_trace_free(t);
  free(directory);
}
END_TEST

#endif

/* ---- finding the per-rank files (trace_read.c) ---- */

/* Per-rank files given in any order are read in rank order (a merge sort
 * since a directory of 2^20 files made the insertion sort quadratic): 67
 * ranks given as the permutation r -> (r * 29) % 67 and as a directory;
 * every rank's file says its own rank, which the reader checks. Two files
 * for one rank are named in the order given, whichever sort. The calls
 * arrays are trimmed to their counts (fs_trace_trim). */
START_TEST(trace_files_in_rank_order) {
  enum { RANKS = 67 };
  char *dir = fs_test_temp_path(".d"), command[600], *paths[RANKS];
  snprintf(command, sizeof command, "mkdir -p %s", dir);
  ck_assert_int_eq(system(command), 0);
  for (int r = 0; r < RANKS; r++) {
    char text[128];
    snprintf(text, sizeof text, "# fennelsim-trace 1\nrank %d %d\ninit 0 10\nfinalize %d 100\n", r,
             RANKS, 11 + r);
    size_t n = strlen(dir) + 32;
    paths[(r * 29) % RANKS] = malloc(n);
    snprintf(paths[(r * 29) % RANKS], n, "%s/rank-%d.fstrace", dir, r);
    ck_assert_int_eq(fs_test_write_file(paths[(r * 29) % RANKS], text, 0), 0);
  }
  fs_error err = {{0}};
  for (int given = 0; given < 2; given++) {
    fs_trace *t = given ? fs_trace_read((const char *const *)&dir, 1, &err)
                        : fs_trace_read((const char *const *)paths, RANKS, &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    ck_assert_int_eq(t->ranks, RANKS);
    for (int r = 0; r < RANKS; r++) {
      char name[32];
      snprintf(name, sizeof name, "/rank-%d.fstrace", r);
      const char *file = t->rank[r].file;
      ck_assert_str_eq(file + strlen(file) - strlen(name), name);
      ck_assert_int_eq(t->rank[r].calls[1].start, (fs_time)(11 + r) * 1000);
      ck_assert_int_eq(t->rank[r].capacity, 2); /* trimmed to its count */
    }
    fs_trace_free(t);
  }
  char *twice = malloc(strlen(dir) + 32), expected[700];
  snprintf(twice, strlen(dir) + 32, "%s/./rank-0.fstrace", dir);
  const char *dup[3] = {paths[29], twice, paths[0]}; /* ranks 1, 0, 0 */
  ck_assert_ptr_null(fs_trace_read(dup, 3, &err));
  snprintf(expected, sizeof expected, "trace: two files for rank 0 (%s and %s)", twice, paths[0]);
  ck_assert_str_eq(err.message, expected);
  free(twice);
  for (int r = 0; r < RANKS; r++) free(paths[r]);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("trace_readers");
  TCase *liballprof = tcase_create("liballprof");
  tcase_add_test(liballprof, sweep3d);
  tcase_add_test(liballprof, liballprof_calls);
  tcase_add_test(liballprof, liballprof_comms);
  tcase_add_test(liballprof, liballprof_comm_errors);
  tcase_add_test(liballprof, liballprof_vectors);
  tcase_add_test(liballprof, liballprof_requests_and_limits);
  tcase_add_test(liballprof, liballprof_errors);
  tcase_add_test(liballprof, liballprof_order_and_limits);
  suite_add_tcase(s, liballprof);
  TCase *simgrid = tcase_create("simgrid");
  tcase_add_test(simgrid, simgrid_point_to_point);
  tcase_add_test(simgrid, simgrid_collectives);
  tcase_add_test(simgrid, simgrid_errors);
  suite_add_tcase(s, simgrid);
  TCase *otf2 = tcase_create("otf2");
  tcase_add_test(otf2, otf2_missing);
#ifdef FS_HAVE_OTF2
  tcase_add_test(otf2, otf2_archive);
  tcase_add_test(otf2, otf2_event_errors);
  tcase_add_test(otf2, otf2_undefined_members);
#endif
  suite_add_tcase(s, otf2);
  TCase *files = tcase_create("files");
  tcase_add_test(files, trace_files_in_rank_order);
  suite_add_tcase(s, files);
  return fs_test_run(s);
}
