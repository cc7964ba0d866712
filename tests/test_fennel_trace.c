/* test_fennel_trace.c: the reader of fennelsim's own trace format
 * (src/trace/fennel_trace_reader.c, docs/TRACES.md).
 *
 * Every kind and key with the exact fs_call fields it gives (written out
 * one call per string), the header fields, communicator definitions shared
 * by ranks, statuses stored on the irecv a wait completes, gzip and plain
 * files, a hand-written 2-rank round trip (wall times, comm tables), and
 * every error with its exact "rank-N.fstrace:LINE:COLUMN:" message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io/text_input.h"
#include "test_support.h"
#include "trace/fennel_trace_reader.h"
#include "trace/trace_readers.h"

#define HEADER0 "# fennelsim-trace 1\nrank 0 2\n"
#define HEADER1 "# fennelsim-trace 1\nrank 1 2\n"
#define RANK1 HEADER1 "init 0 5\nfinalize 7 8\n"
#define RANK0 HEADER0 "init 0 5\nfinalize 7 8\n"

/* Reads texts[0..count) as rank-R.fstrace in memory. */
static fs_trace *read_texts(const char *const *texts, int count, fs_error *err) {
  fs_text_input *inputs[8] = {0};
  char name[32];
  for (int r = 0; r < count; r++) {
    snprintf(name, sizeof name, "rank-%d.fstrace", r);
    inputs[r] = fs_text_input_open_memory(texts[r], strlen(texts[r]), name);
    ck_assert_ptr_nonnull(inputs[r]);
  }
  fs_trace *t = fs_fennel_trace_read_inputs(inputs, count, err);
  for (int r = 0; r < count; r++) fs_text_input_close(inputs[r]);
  return t;
}

static fs_trace *read_ok(const char *rank0, const char *rank1) {
  const char *texts[2] = {rank0, rank1 ? rank1 : RANK1};
  fs_error err = {{0}};
  fs_trace *t = read_texts(texts, 2, &err);
  ck_assert_msg(t != NULL, "unexpected error: %s", err.message);
  ck_assert_str_eq(t->format, "fennelsim");
  return t;
}

static void append_list(char *out, size_t size, const char *key, const int64_t *values,
                        int32_t count) {
  snprintf(out + strlen(out), size - strlen(out), " %s=", key);
  for (int32_t i = 0; i < count; i++)
    snprintf(out + strlen(out), size - strlen(out), "%s%lld", i ? "," : "", (long long)values[i]);
}

/* One call as "KIND START-END k=v ..." (ps), the fields that differ from
 * fs_trace_add_call's defaults, then comm (an index) and line always. */
static const char *describe(const fs_trace *t, int32_t r, int64_t i, char *out, size_t size) {
  const fs_trace_rank *tr = &t->rank[r];
  const fs_call *c = &tr->calls[i];
  snprintf(out, size, "%s %lld-%lld", fs_call_kind_name(c->kind), (long long)c->start,
           (long long)c->end);
#define FIELD(name, value, unset) \
  if ((value) != (unset))         \
  snprintf(out + strlen(out), size - strlen(out), " " name "=%lld", (long long)(value))
  FIELD("bytes", c->bytes, 0);
  FIELD("rbytes", c->recv_bytes, 0);
  FIELD("peer", c->peer, FS_TRACE_UNKNOWN);
  FIELD("tag", c->tag, FS_TRACE_UNKNOWN);
  FIELD("rpeer", c->recv_peer, FS_TRACE_UNKNOWN);
  FIELD("rtag", c->recv_tag, FS_TRACE_UNKNOWN);
  FIELD("source", c->source, FS_TRACE_UNKNOWN);
  FIELD("stag", c->source_tag, FS_TRACE_UNKNOWN);
  FIELD("new", c->new_comm, FS_TRACE_UNKNOWN);
  FIELD("root", c->root, FS_TRACE_UNKNOWN);
  FIELD("req", c->request, -1);
  FIELD("flag", c->flag, FS_TRACE_UNKNOWN);
  FIELD("index", c->index, FS_TRACE_UNKNOWN);
#undef FIELD
  if (c->list_count) append_list(out, size, "list", tr->list + c->list_at, c->list_count);
  if (c->completed_count)
    append_list(out, size, "done", tr->list + c->completed_at, c->completed_count);
  snprintf(out + strlen(out), size - strlen(out), " comm=%d line=%u", (int)c->comm,
           (unsigned)c->line);
  return out;
}

static void assert_calls(const fs_trace *t, int32_t r, const char *const *want, int64_t n) {
  char got[512];
  ck_assert_int_eq(t->rank[r].count, n);
  for (int64_t i = 0; i < n; i++) ck_assert_str_eq(describe(t, r, i, got, sizeof got), want[i]);
}

/* ---- every kind ---- */

static const char every_kind[] = HEADER0
    "host node-a\n"
    "clock_offset_ns -1500\n"
    "init 0 10\n"
    "other 20 30 name=MPI_Comm_rank\n"
    "compute 30 40\n"
    "send 40 50 peer=1 tag=3 comm=0 bytes=8\n"
    "ssend 50 60 peer=1 tag=4 bytes=16\n"
    "bsend 60 70 peer=1 tag=5 bytes=24\n"
    "rsend 70 80 peer=-3 tag=6 bytes=32\n"
    "recv 80 90 peer=-1 tag=-1 bytes=64 source=1 stag=7\n"
    "isend 90 100 peer=1 tag=1 bytes=100 req=1\n"
    "issend 100 110 peer=1 tag=1 bytes=101 req=2\n"
    "ibsend 110 120 peer=1 tag=1 bytes=102 req=3\n"
    "irsend 120 130 peer=1 tag=1 bytes=103 req=4\n"
    "irecv 130 140 peer=-1 tag=2 bytes=200 req=5\n"
    "sendrecv 140 150 peer=1 tag=8 bytes=10 rpeer=1 rtag=9 rbytes=20 source=1 stag=9\n"
    "sendrecv_replace 150 160 peer=1 tag=8 bytes=10 rpeer=-1 rtag=-1 rbytes=10 source=1 stag=3\n"
    "probe 160 170 peer=-1 tag=-1 source=1 stag=11\n"
    "iprobe 170 180 peer=1 tag=11 flag=0\n"
    "iprobe 180 190 peer=1 tag=11 flag=1 source=1 stag=11\n"
    "wait 190 200 req=1\n"
    "waitall 200 210 reqs=2,-1,5 status=5:1:2\n"
    "waitany 210 220 reqs=3,-2 index=0\n"
    "irecv 220 230 peer=1 tag=12 bytes=8 req=6\n"
    "isend 230 240 peer=1 tag=13 bytes=8 req=7\n"
    "waitsome 240 250 reqs=6,7 done=7\n"
    "test 250 260 req=6 flag=0\n"
    "testany 260 270 reqs=6 flag=0 index=-1\n"
    "testsome 270 280 reqs=6,4 done=\n"
    "testall 280 290 reqs=6,4 flag=1 status=6:1:12\n"
    "irecv 290 300 peer=0 tag=-1 bytes=4 req=8\n"
    "test 300 310 req=8 flag=1 status=8:0:5\n"
    "barrier 310 320 comm=0\n"
    "bcast 320 330 root=1 bytes=8 rbytes=8\n"
    "reduce 330 340 root=0 bytes=8 rbytes=8\n"
    "allreduce 340 350 bytes=16 rbytes=16\n"
    "gather 350 360 root=0 bytes=4 rbytes=8\n"
    "scatter 360 370 root=1 bytes=0 rbytes=4\n"
    "allgather 370 380 bytes=4 rbytes=4\n"
    "alltoall 380 390 bytes=4 rbytes=4\n"
    "reduce_scatter 390 400 bytes=12 rbytes=4 rcounts=4,8\n"
    "reduce_scatter_block 400 410 bytes=4 rbytes=4\n"
    "scan 410 420 bytes=8 rbytes=8\n"
    "exscan 420 430 bytes=8 rbytes=8\n"
    "gatherv 430 440 root=0 counts=4,0 rcounts=4,8\n"
    "scatterv 440 450 root=0 counts=4,8 rcounts=4,0\n"
    "allgatherv 450 460 counts=4,4 rcounts=4,8\n"
    "alltoallv 460 470 counts=1,2 rcounts=3,4\n"
    "comm 4294967298 2 1 0\n"
    "comm_split 470 480 comm=0 new=4294967298\n"
    "send 480 490 peer=0 tag=0 comm=4294967298 bytes=1\n"
    "comm 5 1 0\n"
    "comm_dup 490 500 comm=1 new=5\n"
    "comm_create 500 510 comm=0\n"
    "comm_free 510 520 comm=5\n"
    "# a comment, and a blank line\n"
    "\n"
    "finalize 520 530\n";

static const char *const every_kind_calls[] = {
    "init 0-10000 comm=0 line=5",
    "other 20000-30000 comm=0 line=6",
    "compute 30000-40000 comm=0 line=7",
    "send 40000-50000 bytes=8 peer=1 tag=3 comm=0 line=8",
    "ssend 50000-60000 bytes=16 peer=1 tag=4 comm=0 line=9",
    "bsend 60000-70000 bytes=24 peer=1 tag=5 comm=0 line=10",
    "rsend 70000-80000 bytes=32 peer=-3 tag=6 comm=0 line=11",
    "recv 80000-90000 bytes=64 rbytes=64 peer=-1 tag=-1 source=1 stag=7 comm=0 line=12",
    "isend 90000-100000 bytes=100 peer=1 tag=1 req=1 comm=0 line=13",
    "issend 100000-110000 bytes=101 peer=1 tag=1 req=2 comm=0 line=14",
    "ibsend 110000-120000 bytes=102 peer=1 tag=1 req=3 comm=0 line=15",
    "irsend 120000-130000 bytes=103 peer=1 tag=1 req=4 comm=0 line=16",
    "irecv 130000-140000 bytes=200 rbytes=200 peer=-1 tag=2 source=1 stag=2 req=5 comm=0 line=17",
    "sendrecv 140000-150000 bytes=10 rbytes=20 peer=1 tag=8 rpeer=1 rtag=9 source=1 stag=9 comm=0 "
    "line=18",
    "sendrecv_replace 150000-160000 bytes=10 rbytes=10 peer=1 tag=8 rpeer=-1 rtag=-1 source=1 "
    "stag=3 comm=0 "
    "line=19",
    "probe 160000-170000 peer=-1 tag=-1 source=1 stag=11 comm=0 line=20",
    "iprobe 170000-180000 peer=1 tag=11 flag=0 comm=0 line=21",
    "iprobe 180000-190000 peer=1 tag=11 source=1 stag=11 flag=1 comm=0 line=22",
    "wait 190000-200000 req=1 comm=0 line=23",
    "waitall 200000-210000 source=1 stag=2 list=2,-1,5 comm=0 line=24",
    "waitany 210000-220000 index=0 list=3,-2 comm=0 line=25",
    "irecv 220000-230000 bytes=8 rbytes=8 peer=1 tag=12 source=1 stag=12 req=6 comm=0 line=26",
    "isend 230000-240000 bytes=8 peer=1 tag=13 req=7 comm=0 line=27",
    "waitsome 240000-250000 list=6,7 done=7 comm=0 line=28",
    "test 250000-260000 req=6 flag=0 comm=0 line=29",
    "testany 260000-270000 flag=0 index=-1 list=6 comm=0 line=30",
    "testsome 270000-280000 list=6,4 comm=0 line=31",
    "testall 280000-290000 source=1 stag=12 flag=1 list=6,4 comm=0 line=32",
    "irecv 290000-300000 bytes=4 rbytes=4 peer=0 tag=-1 source=0 stag=5 req=8 comm=0 line=33",
    "test 300000-310000 source=0 stag=5 req=8 flag=1 comm=0 line=34",
    "barrier 310000-320000 comm=0 line=35",
    "bcast 320000-330000 bytes=8 rbytes=8 root=1 comm=0 line=36",
    "reduce 330000-340000 bytes=8 rbytes=8 root=0 comm=0 line=37",
    "allreduce 340000-350000 bytes=16 rbytes=16 comm=0 line=38",
    "gather 350000-360000 bytes=4 rbytes=8 root=0 comm=0 line=39",
    "scatter 360000-370000 rbytes=4 root=1 comm=0 line=40",
    "allgather 370000-380000 bytes=4 rbytes=4 comm=0 line=41",
    "alltoall 380000-390000 bytes=4 rbytes=4 comm=0 line=42",
    "reduce_scatter 390000-400000 bytes=12 rbytes=4 list=4,8 comm=0 line=43",
    "reduce_scatter_block 400000-410000 bytes=4 rbytes=4 comm=0 line=44",
    "scan 410000-420000 bytes=8 rbytes=8 comm=0 line=45",
    "exscan 420000-430000 bytes=8 rbytes=8 comm=0 line=46",
    "gatherv 430000-440000 bytes=4 rbytes=12 root=0 list=4,0,4,8 comm=0 line=47",
    "scatterv 440000-450000 bytes=12 rbytes=4 root=0 list=4,8,4,0 comm=0 line=48",
    "allgatherv 450000-460000 bytes=8 rbytes=12 list=4,4,4,8 comm=0 line=49",
    "alltoallv 460000-470000 bytes=3 rbytes=7 list=1,2,3,4 comm=0 line=50",
    "comm_split 470000-480000 new=2 comm=0 line=52",
    "send 480000-490000 bytes=1 peer=0 tag=0 comm=2 line=53",
    "comm_dup 490000-500000 new=3 comm=1 line=55",
    "comm_create 500000-510000 comm=0 line=56",
    "comm_free 510000-520000 comm=3 line=57",
    "finalize 520000-530000 comm=0 line=60",
};

START_TEST(every_kind_case) {
  const char *rank1 = HEADER1
      "init 0 5\ncomm 4294967298 2 1 0\ncomm_split 5 6 new=4294967298\nfinalize 7 8\n";
  fs_trace *t = read_ok(every_kind, rank1);
  int64_t n = (int64_t)(sizeof every_kind_calls / sizeof every_kind_calls[0]);
  assert_calls(t, 0, every_kind_calls, n);
  const char *const rank1_calls[] = {"init 0-5000 comm=0 line=3",
                                     "comm_split 5000-6000 new=2 comm=0 line=5",
                                     "finalize 7000-8000 comm=0 line=6"};
  assert_calls(t, 1, rank1_calls, 3);
  /* every kind of the format appears once at least */
  int seen[FS_CALL_KINDS] = {0};
  for (int64_t i = 0; i < n; i++) seen[t->rank[0].calls[i].kind] = 1;
  for (int k = 0; k < FS_CALL_KINDS; k++)
    ck_assert_msg(seen[k], "kind %s not tested", fs_call_kind_name(k));
  /* the header */
  ck_assert_str_eq(t->rank[0].host, "node-a");
  ck_assert_ptr_null(t->rank[1].host);
  ck_assert_int_eq(t->rank[0].clock_offset, -1500 * FS_NS);
  ck_assert_int_eq(t->rank[1].clock_offset, 0);
  ck_assert_str_eq(t->rank[0].file, "rank-0.fstrace");
  ck_assert_str_eq(t->rank[1].file, "rank-1.fstrace");
  /* communicators: world, self, then the two defined, in order */
  ck_assert_int_eq(t->comms, 4);
  ck_assert_int_eq(t->comm[2].id, 4294967298);
  ck_assert_int_eq(t->comm[2].size, 2);
  ck_assert_int_eq(t->comm[2].members[0], 1);
  ck_assert_int_eq(t->comm[2].members[1], 0);
  ck_assert_int_eq(t->comm[3].id, 5);
  ck_assert_int_eq(t->comm[3].size, 1);
  ck_assert_int_eq(t->comm[3].members[0], 0);
  ck_assert_int_eq(fs_trace_wall_time(t, 0), 510 * FS_NS);
  ck_assert_int_eq(fs_trace_wall_time(t, 1), 2 * FS_NS);
  fs_trace_free(t);
}
END_TEST

/* What the tracer writes for persistent requests: each MPI_Start an isend
 * or irecv line with the request's parameters and a new id (the handle is
 * the same, the ids are not); an MPI_Startall of two over [80, 90] writes
 * two lines splitting its span; a wait on the inactive request lists -1. */
START_TEST(persistent_starts) {
  const char *rank0 = HEADER0 "init 0 10\n"
                              "isend 20 21 peer=1 tag=5 comm=0 bytes=64 req=1\n"
                              "wait 30 40 req=1\n"
                              "isend 50 51 peer=1 tag=5 comm=0 bytes=64 req=2\n"
                              "wait 60 70 req=2\n"
                              "isend 80 85 peer=1 tag=5 comm=0 bytes=64 req=3\n"
                              "irecv 85 90 peer=1 tag=6 comm=0 bytes=8 req=4\n"
                              "waitall 90 99 reqs=3,4 status=4:1:6\n"
                              "waitall 99 100 reqs=-1,-1\n"
                              "finalize 100 110\n";
  fs_trace *t = read_ok(rank0, NULL);
  const char *const want[] =
      {"init 0-10000 comm=0 line=3",
       "isend 20000-21000 bytes=64 peer=1 tag=5 req=1 comm=0 line=4",
       "wait 30000-40000 req=1 comm=0 line=5",
       "isend 50000-51000 bytes=64 peer=1 tag=5 req=2 comm=0 line=6",
       "wait 60000-70000 req=2 comm=0 line=7",
       "isend 80000-85000 bytes=64 peer=1 tag=5 req=3 comm=0 line=8",
       "irecv 85000-90000 bytes=8 rbytes=8 peer=1 tag=6 source=1 stag=6 req=4 comm=0 line=9",
       "waitall 90000-99000 source=1 stag=6 list=3,4 comm=0 line=10",
       "waitall 99000-100000 list=-1,-1 comm=0 line=11",
       "finalize 100000-110000 comm=0 line=12"};
  assert_calls(t, 0, want, 10);
  fs_trace_free(t);
}
END_TEST

/* Nonblocking collectives: the collective's line with req=, a request
 * waits and tests complete like an isend's; every collective kind takes it. */
static const char nonblocking_collectives[] = HEADER0
    "init 0 10\n"
    "barrier 10 11 comm=0 req=1\n"
    "bcast 11 12 root=1 bytes=8 rbytes=8 req=2\n"
    "reduce 12 13 root=0 bytes=8 rbytes=8 req=3\n"
    "allreduce 13 14 bytes=16 rbytes=16 req=4\n"
    "gather 14 15 root=0 bytes=4 rbytes=8 req=5\n"
    "scatter 15 16 root=1 bytes=0 rbytes=4 req=6\n"
    "allgather 16 17 bytes=4 rbytes=4 req=7\n"
    "alltoall 17 18 bytes=4 rbytes=4 req=8\n"
    "reduce_scatter 18 19 bytes=12 rbytes=4 rcounts=4,8 req=9\n"
    "reduce_scatter_block 19 20 bytes=4 rbytes=4 req=10\n"
    "scan 20 21 bytes=8 rbytes=8 req=11\n"
    "exscan 21 22 bytes=8 rbytes=8 req=12\n"
    "gatherv 22 23 root=0 counts=4,0 rcounts=4,8 req=13\n"
    "scatterv 23 24 root=0 counts=4,8 rcounts=4,0 req=14\n"
    "allgatherv 24 25 counts=4,4 rcounts=4,8 req=15\n"
    "alltoallv 25 26 req=16 counts=1,2 rcounts=3,4\n"
    "irecv 26 27 peer=1 tag=0 bytes=4 req=17\n"
    "waitall 30 40 reqs=1,17,2 status=17:1:0\n"
    "wait 40 41 req=3\n"
    "test 41 42 req=4 flag=0\n"
    "test 42 43 req=4 flag=1\n"
    "waitsome 43 44 reqs=5,6,7 done=6\n"
    "waitany 44 45 reqs=5,7 index=1\n"
    "testall 45 46 reqs=5,8,9,10,11,12,13,14,15,16 flag=1\n"
    "allreduce 46 47 comm=1 bytes=8 rbytes=8 req=18\n"
    "finalize 50 60\n";

START_TEST(nonblocking_collectives_case) {
  fs_trace *t = read_ok(nonblocking_collectives, NULL);
  const fs_trace_rank *tr = &t->rank[0];
  ck_assert_int_eq(tr->count, 27);
  /* each collective made the request of its line, 1 to 16, in kind order */
  for (int32_t k = 0; k < 16; k++) {
    const fs_call *c = &tr->calls[1 + k];
    ck_assert_int_eq(c->kind, FS_CALL_BARRIER + k);
    ck_assert_int_eq(c->request, k + 1);
    ck_assert_int_eq(c->line, (uint32_t)(4 + k));
  }
  char got[512];
  ck_assert_str_eq(describe(t, 0, 1, got, sizeof got), "barrier 10000-11000 req=1 comm=0 line=4");
  ck_assert_str_eq(describe(t, 0, 2, got, sizeof got),
                   "bcast 11000-12000 bytes=8 rbytes=8 root=1 req=2 comm=0 line=5");
  ck_assert_str_eq(describe(t, 0, 16, got, sizeof got),
                   "alltoallv 25000-26000 bytes=3 rbytes=7 req=16 list=1,2,3,4 comm=0 line=19");
  ck_assert_str_eq(describe(t, 0, 18, got, sizeof got),
                   "waitall 30000-40000 source=1 stag=0 list=1,17,2 comm=0 line=21");
  ck_assert_str_eq(describe(t, 0, 19, got, sizeof got), "wait 40000-41000 req=3 comm=0 line=22");
  ck_assert_str_eq(describe(t, 0, 21, got, sizeof got),
                   "test 42000-43000 req=4 flag=1 comm=0 line=24");
  ck_assert_str_eq(describe(t, 0, 25, got, sizeof got),
                   "allreduce 46000-47000 bytes=8 rbytes=8 req=18 comm=1 line=28");
  /* a blocking collective has no request */
  fs_trace_free(t);
  t = read_ok(every_kind, HEADER1
              "init 0 5\ncomm 4294967298 2 1 0\ncomm_split 5 6 new=4294967298\nfinalize 7 8\n");
  for (int64_t i = 0; i < t->rank[0].count; i++)
    if (fs_call_kind_is_collective(t->rank[0].calls[i].kind))
      ck_assert_int_eq(t->rank[0].calls[i].request, -1);
  fs_trace_free(t);
}
END_TEST

/* Fuzzing finding (issue 15): an empty list before any value was read
 * added an offset to a null pointer (UBSan, under the sanitizer build). */
START_TEST(empty_first_list) {
  fs_trace *t = read_ok(HEADER0 "init 0 10\nwaitall 10 10 reqs=\nfinalize 20 20\n", NULL);
  ck_assert_int_eq(t->rank[0].calls[1].kind, FS_CALL_WAITALL);
  ck_assert_int_eq(t->rank[0].calls[1].list_count, 0);
  fs_trace_free(t);
}
END_TEST

START_TEST(layout) {
  /* tabs and runs of blanks between words, CRLF, no final newline, large values */
  fs_trace *t = read_ok("# fennelsim-trace\t1\r\n  rank  0\t2 \r\n\tinit 0 0\r\n"
                        "send  4611686018425  4611686018427387\tpeer=1 tag=2147483647   "
                        "bytes=4611686018427387904\r\n"
                        "finalize 4611686018427387 4611686018427387",
                        NULL);
  const char *const want[] = {"init 0-0 comm=0 line=3",
                              "send 4611686018425000-4611686018427387000 bytes=4611686018427387904 "
                              "peer=1 tag=2147483647 comm=0 line=4",
                              "finalize 4611686018427387000-4611686018427387000 comm=0 line=5"};
  assert_calls(t, 0, want, 3);
  fs_trace_free(t);
}
END_TEST

START_TEST(shared_comm) {
  /* the same id defined by both ranks: one communicator; used on comm 1 (self) */
  const char *rank0 = HEADER0
      "init 0 1\ncomm 7 2 0 1\nbarrier 1 2 comm=7\nsend 2 3 peer=0 tag=0 comm=1 bytes=0\n"
      "finalize 3 4\n";
  const char *rank1 = HEADER1 "comm 7 2 0 1\ninit 0 1\nbarrier 1 2 comm=7\nfinalize 3 4\n";
  fs_trace *t = read_ok(rank0, rank1);
  ck_assert_int_eq(t->comms, 3);
  ck_assert_int_eq(t->rank[0].calls[1].comm, 2);
  ck_assert_int_eq(t->rank[1].calls[1].comm, 2);
  ck_assert_int_eq(t->rank[0].calls[2].comm, FS_COMM_SELF);
  fs_trace_free(t);
}
END_TEST

/* ---- files: plain, gzip, a round trip ---- */

static void write_gzip(const char *path, const char *text) {
  gzFile gz = gzopen(path, "wb6");
  ck_assert_ptr_nonnull(gz);
  ck_assert_int_eq(gzwrite(gz, text, (unsigned)strlen(text)), (int)strlen(text));
  ck_assert_int_eq(gzclose(gz), Z_OK);
}

/* A ring of 2 by hand: rank 0 sends, rank 1 receives with a wildcard and
 * forwards on a split communicator, then an allreduce on it. */
static const char ring0[] = "# fennelsim-trace 1\nrank 0 2\nhost a\nclock_offset_ns 0\n"
                            "init 0 1000\n"
                            "isend 1500 1600 peer=1 tag=0 comm=0 bytes=1024 req=1\n"
                            "irecv 1600 1700 peer=1 tag=0 comm=0 bytes=1024 req=2\n"
                            "waitall 1700 4000 reqs=1,2 status=2:1:0\n"
                            "comm 4294967298 2 0 1\n"
                            "comm_split 4000 4100 comm=0 new=4294967298\n"
                            "allreduce 4200 5200 comm=4294967298 bytes=8 rbytes=8\n"
                            "finalize 5300 5400\n";
static const char ring1[] = "# fennelsim-trace 1\nrank 1 2\nhost b\nclock_offset_ns 250\n"
                            "init 0 900\n"
                            "recv 1000 3000 peer=-1 tag=0 comm=0 bytes=1024 source=0 stag=0\n"
                            "send 3000 3500 peer=0 tag=0 comm=0 bytes=1024\n"
                            "comm 4294967298 2 0 1\n"
                            "comm_split 3600 4000 comm=0 new=4294967298\n"
                            "allreduce 4100 5100 comm=4294967298 bytes=8 rbytes=8\n"
                            "finalize 5200 5250\n";

static void assert_ring(const fs_trace *t) {
  ck_assert_int_eq(t->ranks, 2);
  ck_assert_str_eq(t->rank[0].host, "a");
  ck_assert_str_eq(t->rank[1].host, "b");
  ck_assert_int_eq(t->rank[1].clock_offset, 250 * FS_NS);
  ck_assert_int_eq(fs_trace_wall_time(t, 0), 4300 * FS_NS);
  ck_assert_int_eq(fs_trace_wall_time(t, 1), 4300 * FS_NS);
  const char *const want0[] = {"init 0-1000000 comm=0 line=5",
                               "isend 1500000-1600000 bytes=1024 peer=1 tag=0 req=1 comm=0 line=6",
                               "irecv 1600000-1700000 bytes=1024 rbytes=1024 peer=1 tag=0 source=1 "
                               "stag=0 req=2 comm=0 line=7",
                               "waitall 1700000-4000000 source=1 stag=0 list=1,2 comm=0 line=8",
                               "comm_split 4000000-4100000 new=2 comm=0 line=10",
                               "allreduce 4200000-5200000 bytes=8 rbytes=8 comm=2 line=11",
                               "finalize 5300000-5400000 comm=0 line=12"};
  assert_calls(t, 0, want0, 7);
  const char *const want1[] =
      {"init 0-900000 comm=0 line=5",
       "recv 1000000-3000000 bytes=1024 rbytes=1024 peer=-1 tag=0 source=0 stag=0 comm=0 line=6",
       "send 3000000-3500000 bytes=1024 peer=0 tag=0 comm=0 line=7",
       "comm_split 3600000-4000000 new=2 comm=0 line=9",
       "allreduce 4100000-5100000 bytes=8 rbytes=8 comm=2 line=10",
       "finalize 5200000-5250000 comm=0 line=11"};
  assert_calls(t, 1, want1, 6);
  ck_assert_int_eq(t->comms, 3);
}

START_TEST(round_trip_files) {
  /* rank 0 gzip-compressed as the tracer writes it, rank 1 plain text */
  char *path0 = fs_test_temp_path("-rank-0.fstrace.gz"),
       *path1 = fs_test_temp_path("-rank-1.fstrace");
  write_gzip(path0, ring0);
  ck_assert_int_eq(fs_test_write_file(path1, ring1, 0), 0);
  const char *paths[2] = {path0, path1};
  fs_error err = {{0}};
  fs_trace *t = fs_fennel_trace_read(paths, 2, &err);
  ck_assert_msg(t != NULL, "unexpected error: %s", err.message);
  assert_ring(t);
  ck_assert_str_eq(t->rank[0].file, path0);
  ck_assert_str_eq(t->rank[1].file, path1);
  fs_trace_free(t);
  /* the other way round */
  write_gzip(path1, ring1);
  ck_assert_int_eq(fs_test_write_file(path0, ring0, 0), 0);
  t = fs_fennel_trace_read(paths, 2, &err);
  ck_assert_msg(t != NULL, "unexpected error: %s", err.message);
  assert_ring(t);
  fs_trace_free(t);
  remove(path0);
  remove(path1);
  free(path0);
  free(path1);
}
END_TEST

START_TEST(file_errors) {
  char *path0 = fs_test_temp_path("-rank-0.fstrace.gz"),
       *missing = fs_test_temp_path("-none.fstrace");
  write_gzip(path0, ring0);
  const char *paths[2] = {path0, missing};
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_fennel_trace_read(paths, 2, &err));
  char want[512];
  snprintf(want, sizeof want, "%s: cannot open: No such file or directory", missing);
  ck_assert_str_eq(err.message, want);
  /* a truncated gzip file: corrupt data, reported by text_input */
  size_t length;
  char *data = fs_test_read_file(path0, &length);
  ck_assert_int_eq(fs_test_write_file(missing, data, length - 12), 0);
  ck_assert_int_eq(fs_test_write_file(path0, ring0, 0), 0);
  ck_assert_ptr_null(fs_fennel_trace_read(paths, 2, &err));
  ck_assert_msg(strncmp(err.message, missing, strlen(missing)) == 0, "%s", err.message);
  ck_assert_ptr_null(fs_fennel_trace_read(paths, 0, &err));
  ck_assert_str_eq(err.message, "expected at least one trace file (rank-0.fstrace.gz, ...)");
  free(data);
  remove(path0);
  remove(missing);
  free(path0);
  free(missing);
}
END_TEST

/* ---- errors ---- */

typedef struct error_case {
  const char *rank0, *rank1; /* rank1 NULL: RANK1 */
  const char *message;
} error_case;

#define INIT HEADER0 "init 0 10\n"
#define END "finalize 100 100\n"
#define REQS_1_TO_3                                                                       \
  INIT "isend 10 10 peer=1 tag=0 bytes=1 req=1\nirecv 10 10 peer=1 tag=0 bytes=1 req=2\n" \
       "irecv 10 10 peer=1 tag=0 bytes=1 req=3\n"
#define RANK_OR_ANY "a rank in [0, 2) of comm 0, -1 (any), -3 (MPI_PROC_NULL)"
#define ID_RANGE "a request id from 1 to 2147483647, -1 (null) or -2 (not recorded)"
#define NOT_MADE                                                                             \
  "a request made by an isend, irecv or nonblocking collective above, -1 (null) or -2 (not " \
  "recorded)"
#define SEND_KEYS "a key of send (peer=, tag=, comm=, bytes=) or end of line"

static const error_case error_cases[] = {
    /* the header */
    {"", NULL,
     "rank-0.fstrace:1:1: expected '# fennelsim-trace 1', a fennelsim trace (got end of file)"},
    {"# fennelsim-trac 1\n", NULL,
     "rank-0.fstrace:1:1: expected '# fennelsim-trace 1', a fennelsim trace"},
    {"# fennelsim-trace1\n", NULL,
     "rank-0.fstrace:1:1: expected '# fennelsim-trace 1', a fennelsim trace"},
    {"# fennelsim-trace 2\n", NULL,
     "rank-0.fstrace:1:19: expected version 1 of the format (got '2')"},
    {"# fennelsim-trace\n", NULL,
     "rank-0.fstrace:1:18: expected version 1 of the format (got end of line)"},
    {"# fennelsim-trace 1 x\n", NULL, "rank-0.fstrace:1:21: expected end of line (got 'x')"},
    {"# fennelsim-trace 1\n", NULL, "rank-0.fstrace:2:1: expected 'rank R W' (got end of file)"},
    {"# fennelsim-trace 1\ninit 0 1\n", NULL,
     "rank-0.fstrace:2:1: expected 'rank R W' (got 'init')"},
    {"# fennelsim-trace 1\nrank 1 2\n", NULL, "rank-0.fstrace:2:6: expected rank 0 of 2 (got '1')"},
    {"# fennelsim-trace 1\nrank\n", NULL,
     "rank-0.fstrace:2:5: expected rank 0 of 2 (got end of line)"},
    {"# fennelsim-trace 1\nrank 0 4\n", NULL,
     "rank-0.fstrace:2:8: expected a world size of 2, the number of trace files (got '4')"},
    {"# fennelsim-trace 1\nrank 0 2 2\n", NULL,
     "rank-0.fstrace:2:10: expected end of line (got '2')"},
    {RANK0, HEADER1, "rank-1.fstrace:3:1: expected an init line (got end of file)"},
    {RANK0, "# fennelsim-trace 1\nrank 2 2\n",
     "rank-1.fstrace:2:6: expected rank 1 of 2 (got '2')"},
    {INIT, NULL, "rank-0.fstrace:4:1: expected a finalize line, the last call (got end of file)"},
    {INIT END "send 100 100 peer=1 tag=0 bytes=1\n", NULL,
     "rank-0.fstrace:5:1: expected the end of the file after finalize (got 'send')"},
    {HEADER0 "host\n", NULL, "rank-0.fstrace:3:5: expected a host name (got end of line)"},
    {HEADER0 "host a b\n", NULL, "rank-0.fstrace:3:8: expected end of line (got 'b')"},
    {HEADER0 "host a\nhost b\n", NULL,
     "rank-0.fstrace:4:1: expected one host line, before the init line (got 'host')"},
    {INIT "host a\n", NULL,
     "rank-0.fstrace:4:1: expected one host line, before the init line (got 'host')"},
    {HEADER0 "clock_offset_ns 1.5\n", NULL,
     "rank-0.fstrace:3:17: expected a clock offset in ns from -4611686018427387 to "
     "4611686018427387 (got '1.5')"},
    {HEADER0 "clock_offset_ns -4611686018427388\n", NULL,
     "rank-0.fstrace:3:17: expected a clock offset in ns from -4611686018427387 to "
     "4611686018427387 "
     "(got '-4611686018427388')"},
    {HEADER0 "clock_offset_ns 1\nclock_offset_ns 2\n", NULL,
     "rank-0.fstrace:4:1: expected one clock_offset_ns line, before the init line (got "
     "'clock_offset_ns')"},
    {HEADER0 "send 0 1 peer=1 tag=0 bytes=1\n", NULL,
     "rank-0.fstrace:3:1: expected an init line as the first call (got 'send')"},
    {HEADER0 "hello\n", NULL,
     "rank-0.fstrace:3:1: expected 'host', 'clock_offset_ns', 'comm' or an init line (got "
     "'hello')"},
    {INIT "init 10 10\n", NULL,
     "rank-0.fstrace:4:1: expected one init line only, the first call (got 'init')"},
    {INIT "Send 10 10\n", NULL,
     "rank-0.fstrace:4:1: expected a call (send, recv, ...) or 'comm' (got 'Send')"},
    {INIT "rank 0 2\n", NULL,
     "rank-0.fstrace:4:1: expected a call (send, recv, ...) or 'comm' (got 'rank')"},
    /* times */
    {HEADER0 "init\n", NULL,
     "rank-0.fstrace:3:5: expected a start time in ns from 0 to 4611686018427387, the end of the "
     "previous call "
     "(got end of line)"},
    {HEADER0 "init -1 0\n", NULL,
     "rank-0.fstrace:3:6: expected a start time in ns from 0 to 4611686018427387, the end of the "
     "previous call "
     "(got '-1')"},
    {HEADER0 "init 5 4\n", NULL,
     "rank-0.fstrace:3:8: expected an end time in ns from 5 (the start) to 4611686018427387 (got "
     "'4')"},
    {HEADER0 "init 5 4611686018427388\n", NULL,
     "rank-0.fstrace:3:8: expected an end time in ns from 5 (the start) to 4611686018427387 "
     "(got '4611686018427388')"},
    /* issue 15 item 3: a 2^63-1-byte message is past the limit */
    {INIT "send 10 10 peer=1 tag=0 bytes=9223372036854775807\n", NULL,
     "rank-0.fstrace:4:31: expected a byte count from 0 to 4611686018427387904 (2^62) (got "
     "'9223372036854775807')"},
    {INIT "send 10 10 peer=1 tag=0 bytes=4611686018427387905\n", NULL,
     "rank-0.fstrace:4:31: expected a byte count from 0 to 4611686018427387904 (2^62) (got "
     "'4611686018427387905')"},
    {INIT "barrier 9 20\n", NULL,
     "rank-0.fstrace:4:9: expected a start time in ns from 10 to 4611686018427387, the end of the "
     "previous call "
     "(got '9')"},
    {INIT "barrier 10 20x\n", NULL,
     "rank-0.fstrace:4:12: expected an end time in ns from 10 (the start) to 4611686018427387 (got "
     "'20x')"},
    {INIT "barrier 10 99999999999999999999\n", NULL,
     "rank-0.fstrace:4:12: expected an end time in ns from 10 (the start) to 4611686018427387 "
     "(got '99999999999999999999')"},
    /* keys */
    {INIT "send 10 10 peer=1 tag=0 bytes=1 root=0\n", NULL,
     "rank-0.fstrace:4:33: expected " SEND_KEYS " (got 'root')"},
    {INIT "send 10 10 peer=1 tag=0 bytes=1 colour=0\n", NULL,
     "rank-0.fstrace:4:33: expected " SEND_KEYS " (got 'colour')"},
    {INIT "send 10 10 peer 1\n", NULL, "rank-0.fstrace:4:12: expected " SEND_KEYS " (got 'peer')"},
    {INIT "send 10 10 =1\n", NULL, "rank-0.fstrace:4:12: expected " SEND_KEYS " (got '=')"},
    {INIT "barrier 10 10 peer=1\n", NULL,
     "rank-0.fstrace:4:15: expected a key of barrier (comm=, req=) or end of line (got 'peer')"},
    {INIT "finalize 10 10 comm=0\n", NULL,
     "rank-0.fstrace:4:16: expected end of line (got 'comm')"},
    {INIT "send 10 10 peer=1 peer=1 tag=0 bytes=1\n", NULL,
     "rank-0.fstrace:4:19: expected each key once (got 'peer' again)"},
    {INIT "send 10 10 peer=1 tag=0\n", NULL,
     "rank-0.fstrace:4:24: expected bytes= on a send line (got end of line)"},
    {INIT "other 10 10\n", NULL,
     "rank-0.fstrace:4:12: expected name= on a other line (got end of line)"},
    {INIT "other 10 10 name=MPI-Wtime\n", NULL,
     "rank-0.fstrace:4:18: expected an MPI function name (a letter or '_', then letters, digits, "
     "'_') (got "
     "'MPI-Wtime')"},
    {INIT "other 10 10 name=\n", NULL,
     "rank-0.fstrace:4:18: expected an MPI function name (a letter or '_', then letters, digits, "
     "'_') (got end "
     "of line)"},
    {INIT "send 10 10 peer=1 tag=0 bytes=1x\n", NULL,
     "rank-0.fstrace:4:31: expected a byte count from 0 to 4611686018427387904 (2^62) (got '1x')"},
    {INIT "send 10 10 peer=1 tag=0 bytes=-1\n", NULL,
     "rank-0.fstrace:4:31: expected a byte count from 0 to 4611686018427387904 (2^62) (got '-1')"},
    {INIT "send 10 10 peer=1 tag=0 bytes=9223372036854775808\n", NULL,
     "rank-0.fstrace:4:31: expected a byte count from 0 to 4611686018427387904 (2^62) (got "
     "'9223372036854775808')"},
    {INIT "send 10 10 peer=1 tag=2147483648 bytes=1\n", NULL,
     "rank-0.fstrace:4:23: expected a tag from 0 to 2147483647 or -1 (any) (got '2147483648')"},
    {INIT "send 10 10 peer=1 tag=0 bytes=1,2\n", NULL,
     "rank-0.fstrace:4:31: expected a byte count from 0 to 4611686018427387904 (2^62) (got '1')"},
    {INIT "send 10 10 peer=-4 tag=0 bytes=1\n", NULL,
     "rank-0.fstrace:4:17: expected a rank from 0 to 2147483647, -1 (any) or -3 (MPI_PROC_NULL) "
     "(got '-4')"},
    {INIT "send 10 10 peer=- tag=0 bytes=1\n", NULL,
     "rank-0.fstrace:4:17: expected a rank from 0 to 2147483647, -1 (any) or -3 (MPI_PROC_NULL) "
     "(got '-')"},
    {INIT "iprobe 10 10 peer=1 tag=0 flag=2\n", NULL,
     "rank-0.fstrace:4:32: expected 0 or 1 (got '2')"},
    {INIT "comm_dup 10 10 new=1\n", NULL,
     "rank-0.fstrace:4:20: expected a communicator id from 2 to 9223372036854775807 (got '1')"},
    /* peers, tags and roots in their communicator */
    {INIT "send 10 10 peer=2 tag=0 bytes=1\n", NULL,
     "rank-0.fstrace:4:17: expected a rank in [0, 2) of comm 0, -3 (MPI_PROC_NULL) (got '2')"},
    {INIT "send 10 10 peer=-1 tag=0 bytes=1\n", NULL,
     "rank-0.fstrace:4:17: expected a rank in [0, 2) of comm 0, -3 (MPI_PROC_NULL) (got '-1')"},
    {INIT "send 10 10 peer=1 tag=-1 bytes=1\n", NULL,
     "rank-0.fstrace:4:23: expected a tag from 0 to 2147483647 (got '-1')"},
    {INIT "sendrecv 10 10 peer=1 tag=-1 bytes=1 rpeer=1 rtag=0 rbytes=1\n", NULL,
     "rank-0.fstrace:4:27: expected a tag from 0 to 2147483647 (got '-1')"},
    {INIT "recv 10 10 peer=2 tag=0 bytes=1\n", NULL,
     "rank-0.fstrace:4:17: expected " RANK_OR_ANY " (got '2')"},
    {INIT "irecv 10 10 peer=1 tag=0 bytes=1 comm=1 req=1\n", NULL,
     "rank-0.fstrace:4:18: expected a rank in [0, 1) of comm 1, -1 (any), -3 (MPI_PROC_NULL) (got "
     "'1')"},
    {INIT "sendrecv 10 10 peer=1 tag=0 bytes=1 rpeer=5 rtag=0 rbytes=1\n", NULL,
     "rank-0.fstrace:4:43: expected " RANK_OR_ANY " (got '5')"},
    {INIT "recv 10 10 peer=-1 tag=0 bytes=1 source=-1\n", NULL,
     "rank-0.fstrace:4:41: expected a rank in [0, 2) of comm 0, -3 (MPI_PROC_NULL) (got '-1')"},
    {INIT "recv 10 10 peer=-1 tag=0 bytes=1 source=2\n", NULL,
     "rank-0.fstrace:4:41: expected a rank in [0, 2) of comm 0, -3 (MPI_PROC_NULL) (got '2')"},
    {INIT "iprobe 10 10 peer=1 tag=0 flag=0 stag=0\n", NULL,
     "rank-0.fstrace:4:34: expected source= and stag= only with flag=1 (got 'stag')"},
    {INIT "bcast 10 10 root=2 bytes=1 rbytes=1\n", NULL,
     "rank-0.fstrace:4:18: expected a rank in [0, 2) of comm 0 (got '2')"},
    {INIT "bcast 10 10 root=-1 bytes=1 rbytes=1\n", NULL,
     "rank-0.fstrace:4:18: expected a rank from 0 to 2147483647 (got '-1')"},
    /* communicators */
    {INIT "barrier 10 10 comm=2\n", NULL,
     "rank-0.fstrace:4:20: expected a communicator defined by a comm line above (or 0, 1) (got "
     "'2')"},
    {INIT "comm_split 10 10 new=9\n", NULL,
     "rank-0.fstrace:4:22: expected a communicator defined by a comm line above (or 0, 1) (got "
     "'9')"},
    {INIT "barrier 10 10 comm=9\ncomm 9 2 0 1\n", NULL,
     "rank-0.fstrace:4:20: expected a communicator defined by a comm line above (or 0, 1) (got "
     "'9')"},
    {INIT "comm 9 2 0 1\n" END, HEADER1 "init 0 1\nbarrier 1 2 comm=9\nfinalize 3 4\n",
     "rank-1.fstrace:4:18: expected a communicator defined by a comm line above (or 0, 1) (got "
     "'9')"},
    {INIT "comm 9 2 0 1\n" END, HEADER1 "comm 9 2 1 0\n",
     "rank-1.fstrace:3:6: expected the members that rank-0.fstrace:4 gives comm 9"},
    {INIT "comm 9 2 0 1\ncomm 9 1 0\n", NULL,
     "rank-0.fstrace:5:6: expected the members that rank-0.fstrace:4 gives comm 9"},
    {INIT "comm 1 1 0\n", NULL,
     "rank-0.fstrace:4:6: expected a communicator id from 2 to 9223372036854775807 (0 and 1 are "
     "MPI_COMM_WORLD and "
     "MPI_COMM_SELF) (got '1')"},
    {INIT "comm 9 3 0 1 1\n", NULL,
     "rank-0.fstrace:4:8: expected a communicator size from 1 to 2 (the world size) (got '3')"},
    {INIT "comm 9 0\n", NULL,
     "rank-0.fstrace:4:8: expected a communicator size from 1 to 2 (the world size) (got '0')"},
    {INIT "comm 9 2 0\n", NULL,
     "rank-0.fstrace:4:11: expected 2 world ranks, the members (got 1) (got end of line)"},
    {INIT "comm 9 1 0 1\n", NULL, "rank-0.fstrace:4:12: expected end of line (got '1')"},
    {INIT "comm 9 2 0 0\n", NULL,
     "rank-0.fstrace:4:12: expected a world rank from 0 to 1, not listed before in this comm line "
     "(got '0')"},
    {INIT "comm 9 2 0 2\n", NULL,
     "rank-0.fstrace:4:12: expected a world rank from 0 to 1, not listed before in this comm line "
     "(got '2')"},
    {INIT "comm 9 1 1\n", NULL,
     "rank-0.fstrace:4:6: expected a communicator that has rank 0 among its members (comm 9 does "
     "not)"},
    /* requests */
    {INIT "isend 10 10 peer=1 tag=0 bytes=1 req=0\n", NULL,
     "rank-0.fstrace:4:38: expected a request id from 1 to 2147483647 (got '0')"},
    {INIT "isend 10 10 peer=1 tag=0 bytes=1 req=-1\n", NULL,
     "rank-0.fstrace:4:38: expected a request id from 1 to 2147483647 (got '-1')"},
    {REQS_1_TO_3 "irecv 10 10 peer=1 tag=0 bytes=1 req=2\n", NULL,
     "rank-0.fstrace:7:38: expected a request id not made before (got '2', made at line 5)"},
    {INIT "wait 10 10 req=1\n", NULL, "rank-0.fstrace:4:16: expected " NOT_MADE " (got '1')"},
    {INIT "wait 10 10 req=1\nisend 10 10 peer=1 tag=0 bytes=1 req=1\n", NULL,
     "rank-0.fstrace:4:16: expected " NOT_MADE " (got '1')"},
    {REQS_1_TO_3 "waitall 10 10 reqs=1,4\n", NULL,
     "rank-0.fstrace:7:22: expected " NOT_MADE " (got '4')"},
    {REQS_1_TO_3 "waitall 10 10 reqs=1,,2\n", NULL,
     "rank-0.fstrace:7:22: expected " ID_RANGE " (got ',')"},
    {REQS_1_TO_3 "waitall 10 10 reqs=1,\n", NULL,
     "rank-0.fstrace:7:22: expected " ID_RANGE " (got end of line)"},
    {REQS_1_TO_3 "waitall 10 10 reqs=1;2\n", NULL,
     "rank-0.fstrace:7:20: expected " ID_RANGE " (got '1;2')"},
    {REQS_1_TO_3 "waitall 10 10 reqs=1,2,1\n", NULL,
     "rank-0.fstrace:7:24: expected each request listed once (got '1')"},
    {REQS_1_TO_3 "waitany 10 10 reqs=1,2 index=2\n", NULL,
     "rank-0.fstrace:7:30: expected an index in [0, 2) of reqs= or -1 (none) (got '2')"},
    {REQS_1_TO_3 "testany 10 10 reqs=1,2 flag=0 index=0\n", NULL,
     "rank-0.fstrace:7:37: expected -1 (none) with flag=0 (got '0')"},
    {REQS_1_TO_3 "waitsome 10 10 reqs=1,2 done=3\n", NULL,
     "rank-0.fstrace:7:30: expected a request of reqs= (got '3')"},
    {REQS_1_TO_3 "waitsome 10 10 reqs=1,2 done=2,2\n", NULL,
     "rank-0.fstrace:7:32: expected each request completed once (got '2')"},
    {REQS_1_TO_3 "waitsome 10 10 reqs=1,2 done=-1\n", NULL,
     "rank-0.fstrace:7:30: expected a request id from 1 to 2147483647 (got '-1')"},
    {REQS_1_TO_3 "wait 10 10 req=1 status=1:1:0\n", NULL,
     "rank-0.fstrace:7:25: expected a receive request that this call completed (got '1')"},
    {REQS_1_TO_3 "test 10 10 req=2 flag=0 status=2:1:0\n", NULL,
     "rank-0.fstrace:7:32: expected a receive request that this call completed (got '2')"},
    {REQS_1_TO_3 "waitsome 10 10 reqs=2,3 done=3 status=2:1:0\n", NULL,
     "rank-0.fstrace:7:39: expected a receive request that this call completed (got '2')"},
    {REQS_1_TO_3 "waitany 10 10 reqs=2,3 index=1 status=2:1:0\n", NULL,
     "rank-0.fstrace:7:39: expected a receive request that this call completed (got '2')"},
    {REQS_1_TO_3 "wait 10 10 req=2 status=2:2:0\n", NULL,
     "rank-0.fstrace:7:27: expected a source in [0, 2), the size of the irecv's comm, or -3 "
     "(MPI_PROC_NULL) (got '2')"},
    {REQS_1_TO_3 "wait 10 10 req=2 status=2:1\n", NULL,
     "rank-0.fstrace:7:28: expected ':' and the tag after a status's source (got end of line)"},
    {REQS_1_TO_3 "wait 10 10 req=2 status=2\n", NULL,
     "rank-0.fstrace:7:26: expected ':' and the source after a status's request (got end of line)"},
    {REQS_1_TO_3 "wait 10 10 req=2 status=2:1:-2\n", NULL,
     "rank-0.fstrace:7:29: expected a tag from 0 to 2147483647 or -1 (MPI_PROC_NULL's) (got '-2')"},
    {REQS_1_TO_3 "wait 10 10 req=2 status=x\n", NULL,
     "rank-0.fstrace:7:25: expected a request id from 1 to 2147483647 (got 'x')"},
    {REQS_1_TO_3 "wait 10 10 req=2 status=2:-4:0\n", NULL,
     "rank-0.fstrace:7:27: expected a source rank from 0 to 2147483647 or -3 (MPI_PROC_NULL) (got "
     "'-4')"},
    /* nonblocking collectives: req= on collective lines */
    {INIT "allreduce 10 10 bytes=1 rbytes=1 req=0\n", NULL,
     "rank-0.fstrace:4:38: expected a request id from 1 to 2147483647 (got '0')"},
    {INIT "barrier 10 10 req=-1\n", NULL,
     "rank-0.fstrace:4:19: expected a request id from 1 to 2147483647 (got '-1')"},
    {INIT "bcast 10 10 root=0 bytes=1 rbytes=0 req=-2\n", NULL,
     "rank-0.fstrace:4:41: expected a request id from 1 to 2147483647 (got '-2')"},
    {INIT "barrier 10 10 req=x\n", NULL, "rank-0.fstrace:4:19: expected " ID_RANGE " (got 'x')"},
    {INIT "barrier 10 10 req=2147483648\n", NULL,
     "rank-0.fstrace:4:19: expected " ID_RANGE " (got '2147483648')"},
    {INIT "barrier 10 10 req=1,2\n", NULL, "rank-0.fstrace:4:19: expected " ID_RANGE " (got '1')"},
    {INIT "barrier 10 10 req=1 req=2\n", NULL,
     "rank-0.fstrace:4:21: expected each key once (got 'req' again)"},
    {INIT "barrier 10 10 reqs=1\n", NULL,
     "rank-0.fstrace:4:15: expected a key of barrier (comm=, req=) or end of line (got 'reqs')"},
    {INIT "comm_split 10 10 req=1\n", NULL,
     "rank-0.fstrace:4:18: expected a key of comm_split (comm=, new=) or end of line (got 'req')"},
    {REQS_1_TO_3 "barrier 10 10 req=2\n", NULL,
     "rank-0.fstrace:7:19: expected a request id not made before (got '2', made at line 5)"},
    {INIT "barrier 10 10 req=1\nisend 10 10 peer=1 tag=0 bytes=1 req=1\n", NULL,
     "rank-0.fstrace:5:38: expected a request id not made before (got '1', made at line 4)"},
    {INIT "wait 10 10 req=1\nbarrier 10 10 req=1\n", NULL,
     "rank-0.fstrace:4:16: expected " NOT_MADE " (got '1')"},
    {INIT "allreduce 10 10 bytes=1 rbytes=1 req=1\nwait 10 10 req=1 status=1:1:0\n", NULL,
     "rank-0.fstrace:5:25: expected a receive request that this call completed (got '1')"},
    {INIT "gatherv 10 10 root=0 req=1 counts=1 rcounts=1,1\n", NULL,
     "rank-0.fstrace:4:35: expected 2 byte counts, one per rank of the comm (got 1)"},
    {INIT "barrier 10 10 req=1\nwaitall 10 10 reqs=1,1\n", NULL,
     "rank-0.fstrace:5:22: expected each request listed once (got '1')"},
    /* vectors */
    {INIT "alltoallv 10 10 counts=1 rcounts=1,2\n", NULL,
     "rank-0.fstrace:4:24: expected 2 byte counts, one per rank of the comm (got 1)"},
    {INIT "alltoallv 10 10 counts=1,2 rcounts=\n", NULL,
     "rank-0.fstrace:4:36: expected 2 byte counts, one per rank of the comm (got 0)"},
    {INIT "reduce_scatter 10 10 bytes=1 rbytes=1 rcounts=1,2,3\n", NULL,
     "rank-0.fstrace:4:47: expected 2 byte counts, one per rank of the comm (got 3)"},
    {INIT "allgatherv 10 10 counts=4611686018427387904,1 rcounts=1,1\n", NULL,
     "rank-0.fstrace:4:45: expected byte counts whose sum is at most 4611686018427387904 (2^62) "
     "(got '1')"},
    {INIT "gatherv 10 10 counts=1,1 rcounts=1,1\n", NULL,
     "rank-0.fstrace:4:37: expected root= on a gatherv line (got end of line)"},
    /* issue 15 item 10: members that disagree on a collective's size */
    {INIT "allreduce 10 20 bytes=8 rbytes=8\n" END,
     HEADER1 "init 0 5\nallreduce 10 20 bytes=16 rbytes=16\nfinalize 30 30\n",
     "rank-1.fstrace:4:23: expected bytes=8, as rank-0.fstrace:4 gives for this allreduce "
     "(collective 0 of comm 0) "
     "(got '16')"},
    {INIT "barrier 10 11\nscatter 20 30 root=0 bytes=8 rbytes=4\n" END,
     HEADER1 "init 0 5\nbarrier 10 11\nscatter 20 30 root=0 bytes=0 rbytes=8\nfinalize 40 40\n",
     "rank-1.fstrace:5:37: expected rbytes=4, as rank-0.fstrace:5 gives for this scatter "
     "(collective 1 of comm 0) "
     "(got '8')"},
    /* from text_input */
    {"# fennelsim-trace 1\nrank 0 2\ninit\001 0 1\n", NULL,
     "rank-0.fstrace:3:1: expected 'host', 'clock_offset_ns', 'comm' or an init line (got "
     "'init?')"},
};

START_TEST(errors_reported) {
  const error_case *c = &error_cases[_i];
  const char *texts[2] = {c->rank0, c->rank1 ? c->rank1 : RANK1};
  fs_error err = {{0}};
  fs_trace *t = read_texts(texts, 2, &err);
  ck_assert_msg(t == NULL, "accepted: %s", c->rank0);
  ck_assert_str_eq(err.message, c->message);
}
END_TEST

START_TEST(nul_and_overlong) {
  static const char nul[] = "# fennelsim-trace 1\nrank 0 2\ninit 0\0 1\n";
  fs_text_input *inputs[2] = {fs_text_input_open_memory(nul, sizeof nul - 1, "rank-0.fstrace"),
                              fs_text_input_open_memory(RANK1, strlen(RANK1), "rank-1.fstrace")};
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_fennel_trace_read_inputs(inputs, 2, &err));
  ck_assert_str_eq(err.message, "rank-0.fstrace:3:7: NUL byte in text (is this a binary file?)");
  fs_text_input_close(inputs[0]);
  /* a waitall listing more requests than a line may hold */
  size_t n = FS_TEXT_LINE_MAX + 64;
  char *text = malloc(n + 128);
  ck_assert_ptr_nonnull(text);
  int used = sprintf(text, INIT "waitall 10 10 reqs=");
  for (size_t i = (size_t)used; i < n; i += 3) memcpy(text + i, "-1,", 3);
  strcpy(text + n, "-1\n");
  inputs[0] = fs_text_input_open_memory(text, strlen(text), "rank-0.fstrace");
  ck_assert_ptr_null(fs_fennel_trace_read_inputs(inputs, 2, &err));
  ck_assert_str_eq(err.message, "rank-0.fstrace:4: line longer than 1048576 bytes");
  fs_text_input_close(inputs[0]);
  fs_text_input_close(inputs[1]);
  free(text);
}
END_TEST

START_TEST(long_waitall) {
  /* a waitall of 40000 requests with their statuses: linear in the line */
  int64_t n = 40000;
  size_t size = (size_t)n * 60 + 256;
  char *text = malloc(size);
  size_t at = (size_t)sprintf(text, "# fennelsim-trace 1\nrank 0 1\ninit 0 1\n");
  for (int64_t i = 1; i <= n; i++)
    at += (size_t)sprintf(text + at, "irecv 1 1 peer=-1 tag=0 bytes=8 req=%lld\n", (long long)i);
  at += (size_t)sprintf(text + at, "waitall 1 2 reqs=");
  for (int64_t i = 1; i <= n; i++)
    at += (size_t)sprintf(text + at, "%s%lld", i > 1 ? "," : "", (long long)i);
  at += (size_t)sprintf(text + at, " status=");
  for (int64_t i = 1; i <= n; i++)
    at += (size_t)sprintf(text + at, "%s%lld:0:%lld", i > 1 ? "," : "", (long long)i,
                          (long long)(i % 7));
  sprintf(text + at, "\nfinalize 3 4\n");
  ck_assert_uint_lt(strlen(text), size);
  fs_text_input *input = fs_text_input_open_memory(text, strlen(text), "rank-0.fstrace");
  fs_error err = {{0}};
  fs_trace *t = fs_fennel_trace_read_inputs(&input, 1, &err);
  ck_assert_msg(t != NULL, "unexpected error: %s", err.message);
  const fs_trace_rank *tr = &t->rank[0];
  ck_assert_int_eq(tr->count, n + 3);
  const fs_call *waitall = &tr->calls[n + 1];
  ck_assert_int_eq(waitall->kind, FS_CALL_WAITALL);
  ck_assert_int_eq(waitall->list_count, n);
  ck_assert_int_eq(tr->list[waitall->list_at + n - 1], n);
  for (int64_t i = 1; i <= n; i++) {
    ck_assert_int_eq(tr->calls[i].source, 0);
    ck_assert_int_eq(tr->calls[i].source_tag, i % 7);
  }
  fs_text_input_close(input);
  fs_trace_free(t);
  free(text);
}
END_TEST

static Suite *fennel_trace_suite(void) {
  Suite *suite = suite_create("fennel_trace");
  TCase *calls = tcase_create("calls");
  tcase_add_test(calls, empty_first_list);
  tcase_add_test(calls, every_kind_case);
  tcase_add_test(calls, layout);
  tcase_add_test(calls, shared_comm);
  tcase_add_test(calls, persistent_starts);
  tcase_add_test(calls, nonblocking_collectives_case);
  suite_add_tcase(suite, calls);
  TCase *files = tcase_create("files");
  tcase_add_test(files, round_trip_files);
  tcase_add_test(files, file_errors);
  suite_add_tcase(suite, files);
  TCase *errors = tcase_create("errors");
  tcase_add_loop_test(errors, errors_reported, 0,
                      (int)(sizeof error_cases / sizeof error_cases[0]));
  tcase_add_test(errors, nul_and_overlong);
  tcase_add_test(errors, long_waitall);
  suite_add_tcase(suite, errors);
  return suite;
}

int main(void) { return fs_test_run(fennel_trace_suite()); }
