/* test_nccl_generators.c: NCCL's algorithms as generators (nccl_ring.c,
 * nccl_tree.c): the options --channels, --chunk and --protocol; for ring
 * allreduce who sends which chunk to whom at which step (NCCL's table for
 * k = 4), exact task and dependency counts per channel and loop, the chunk
 * sizes of a last partial loop, the channels' ranges, the protocol, CPU and
 * tag of every transfer; the double binary trees against NCCL's tables
 * (N = 8, 2, 4) and the rank links of nodes of several GPUs; the data-flow
 * proof over many (ranks, channels, chunk, size); and exact makespans under
 * hockney derived by hand in the comments. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "generators/algorithm_spec.h"
#include "generators/data_flow_check.h"
#include "generators/generators.h"
#include "generators/nccl_layout.h"
#include "generators/nccl_trees.h"
#include "platform/platform.h"
#include "model_support.h"
#include "generator_support.h"
#include "test_support.h"

static char *out, *err;

/* Picoseconds: alpha 1 us, beta 1 ns/B. */
enum { ALPHA = 1000000, BETA = 1000 };
#define HOCKNEY "alpha=1us beta=1ns"

/* The program of name with its data flow recorded into flow. */
static fs_program *generate_flow(const char *name, const fs_generator_options *o,
                                 fs_data_flow *flow) {
  fs_generator_options with = *o;
  fs_data_flow_init(flow);
  with.flow = flow;
  return fs_test_generate(name, &with);
}

/* Rank r's tasks on CPU c in program order: S<peer>.<block>:<bytes>,
 * R<peer>.<block>:<bytes>, C.<block>:<bytes>. */
static const char *story(const fs_program *p, const fs_data_flow *flow, int32_t r, int c,
                         char *text, size_t size) {
  size_t used = 0;
  text[0] = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->rank[t] != r || fs_task_cpu(p, t) != c) continue;
    int32_t block = flow->block[flow->block_at[t]];
    int n = p->kind[t] == FS_COMPUTE ? snprintf(text + used, size - used, "%sC.%d:%lld",
                                                used ? " " : "", block, (long long)p->value[t])
                                     : snprintf(text + used, size - used, "%s%c%d.%d:%lld",
                                                used ? " " : "", p->kind[t] == FS_SEND ? 'S' : 'R',
                                                p->peer[t], block, (long long)p->value[t]);
    ck_assert(n > 0 && (size_t)n < size - used);
    used += (size_t)n;
  }
  return text;
}

static void expect_story(const char *name, const fs_generator_options *o, int32_t r, int c,
                         const char *expected) {
  fs_data_flow flow;
  fs_program *p = generate_flow(name, o, &flow);
  char text[4096];
  story(p, &flow, r, c, text, sizeof text);
  ck_assert_msg(strcmp(text, expected) == 0, "%s rank %d cpu %d:\n  got      %s\n  expected %s",
                name, r, c, text, expected);
  fs_program_free(p);
  fs_data_flow_free(&flow);
}

/* ---- options ------------------------------------------------------------ */

/* NCCL's layout before slices and FIFO credits: one message a chunk
 * (--slices 1), no credits (--fifo 0); the tests of that layout's stories
 * and times use it. */
static fs_generator_options per_chunk(int32_t ranks, int64_t size, int32_t channels,
                                      int64_t chunk) {
  fs_generator_options o = fs_test_nccl_options(ranks, size, channels, chunk);
  o.slices = 1, o.fifo = FS_NCCL_FIFO_UNLIMITED;
  return o;
}

/* NCCL's slices without credits (--fifo 0). */
static fs_generator_options no_credits(int32_t ranks, int64_t size, int32_t channels,
                                       int64_t chunk) {
  fs_generator_options o = fs_test_nccl_options(ranks, size, channels, chunk);
  o.fifo = FS_NCCL_FIFO_UNLIMITED;
  return o;
}

START_TEST(options_refused) {
  fs_generator_options o = fs_test_nccl_options(4, 64, 65, 0);
  fs_test_generate_refused("allreduce-nccl-ring", &o, "--channels must be from 1 to 64, not 65");
  o = fs_test_nccl_options(4, 64, 1, -1);
  fs_test_generate_refused("allreduce-nccl-ring", &o, "--chunk must be at least 1 byte");
  o = fs_test_nccl_options(4, 64, 1, 0);
  o.protocol = FS_PROTOCOLS;
  fs_test_generate_refused("allgather-nccl-ring", &o, "--protocol must be LL, LL128 or Simple");
  o = fs_test_nccl_options(4, 64, 1, 0);
  o.has_reduce_time = 1;
  fs_test_generate_refused("allgather-nccl-ring", &o, "--reduce-time does not apply");
  o = fs_test_nccl_options(4, 64, 1, 0);
  o.root = 4;
  fs_test_generate_refused("bcast-nccl-ring", &o, "--root 4 is not a rank of 0..3");
  /* the CLI: other generators refuse the NCCL options, which are checked */
  ck_assert_int_eq(fennelsim("gen allreduce-ring --ranks 4 --channels 2"), 2);
  fs_test_contains(err, "--channels does not apply to allreduce-ring");
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --protocol LL"), 2);
  fs_test_contains(err, "--protocol does not apply to bcast-binomial");
  ck_assert_int_eq(fennelsim("gen allreduce-rd --ranks 4 --chunk 1KiB"), 2);
  fs_test_contains(err, "--chunk does not apply to allreduce-rd");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl-ring --ranks 4 --protocol ll"), 2);
  fs_test_contains(err, "--protocol ll: expected LL, LL128 or Simple");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl-ring --ranks 4 --channels 65"), 2);
  fs_test_contains(err, "--channels");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl-ring --ranks 4 --chunk 0B"), 2);
  fs_test_contains(err, "--chunk 0B: expected a size from 1B");
  ck_assert_int_eq(fennelsim("gen --list --format json"), 0);
  fs_test_contains(out, "\"name\": \"allreduce-nccl-ring\"");
  fs_test_contains(out, "\"--channels\", \"--chunk\", \"--protocol\"");
}
END_TEST

/* The protocol through the formats: .dag writes proto= on every transfer
 * and reads it back (convert is byte-identical); GOAL has none and says it
 * dropped them; the composition copies its parts' protocols. k = 3, 2
 * channels of one loop: 3 ranks x 2 channels x (4 sends + 4 recvs) = 48
 * transfers with LL; with Simple twice as many (2 slices a chunk), and as
 * a connection carries 8 slices, 4 more than NCCL's FIFO window (8 slots
 * of which a slice takes 2), the first 4 return a credit (a send and a
 * recv): 96 + 48 = 144. */
START_TEST(protocol_in_files) {
  char *dag = fs_test_temp_path(".dag"), *again = fs_test_temp_path(".dag");
  char *goal = fs_test_temp_path(".goal");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl-ring --ranks 3 --size 1KiB --channels 2 "
                             "--protocol LL -o %s",
                             dag),
                   0);
  ck_assert_int_eq(fennelsim("convert %s %s", dag, again), 0);
  char *a = fs_test_read_file(dag, NULL), *b = fs_test_read_file(again, NULL);
  ck_assert_str_eq(a, b);
  ck_assert_int_eq(fs_test_occurrences(a, " proto=LL "), 48);
  ck_assert_int_eq(fs_test_occurrences(a, " tag=1 cpu=1 proto=LL "), 24);
  free(a), free(b);
  ck_assert_int_eq(fennelsim("gen allreduce-nccl-ring --ranks 3 --size 1KiB --channels 2 "
                             "--reduce-time 1ns -o %s",
                             goal),
                   0);
  ck_assert_str_eq(err, "fennelsim gen: note: GOAL has no NCCL protocol: 144 transfers' proto= not "
                        "written\n");
  ck_assert_int_eq(fennelsim("gen allreduce-reduce-bcast --ranks 4 --size 1KiB --schedule "
                             "reduce-nccl-ring+bcast-nccl-ring"),
                   0);
  ck_assert_int_eq(fs_test_occurrences(out, " proto=Simple "), 12);
  free(dag), free(again), free(goal);
}
END_TEST

/* Algorithm specs (sweep, best, --algo) take channels=, chunk= and
 * protocol= for the NCCL generators, in canonical order. */
START_TEST(spec_keys) {
  fs_algorithm_spec spec;
  fs_error e = {{0}};
  ck_assert_int_eq(fs_algorithm_spec_parse(&spec,
                                           "allreduce-nccl-ring:protocol=LL:channels=2:chunk=65536",
                                           &e),
                   0);
  ck_assert_str_eq(spec.text, "allreduce-nccl-ring:channels=2:chunk=64KiB:protocol=LL");
  fs_generator_options o = fs_test_nccl_options(4, 64, 0, 0);
  fs_algorithm_spec_apply(&spec, &o);
  ck_assert_int_eq(o.channels, 2);
  ck_assert_int_eq(o.chunk, 65536);
  ck_assert_int_eq(o.protocol, FS_PROTOCOL_LL);
  ck_assert_int_eq(fs_algorithm_spec_parse(&spec, "allreduce-nccl-ring:protocol=ll", &e), -1);
  ck_assert_str_eq(e.message, "allreduce-nccl-ring:protocol=ll: protocol=ll: expected LL, LL128 or "
                              "Simple");
  ck_assert_int_eq(fs_algorithm_spec_parse(&spec, "bcast-nccl-ring:channels=65", &e), -1);
  ck_assert_str_eq(e.message, "bcast-nccl-ring:channels=65: channels=65: expected a whole number "
                              "from 1 to 64");
  ck_assert_int_eq(fs_algorithm_spec_parse(&spec, "allreduce-ring:channels=2", &e), -1);
  fs_test_contains(e.message, "unknown key 'channels' (allreduce-ring takes no keys)");
}
END_TEST

/* ---- ring allreduce: NCCL's table ---------------------------------------- */

/* k = 4, one channel, one loop of 4 chunks of 100 B (flow block = chunk).
 * NCCL's table: at step t position i sends chunk (i-1-t) mod 4 to i+1 and
 * receives chunk (i-2-t) mod 4 from i-1, reducing after the receives of
 * steps 0..2. A rank's tasks in the order its channel runs them (--slices
 * 1: a slice is the chunk): the send of step 0, then per step t the recv,
 * its reduce and the send of step t+1 that forwards it:
 *   pos 0 sends c3 c2 c1 c0 c3 c2; pos 1 c0 c3 c2 c1 c0 c3;
 *   pos 2 c1 c0 c3 c2 c1 c0;       pos 3 c2 c1 c0 c3 c2 c1. */
START_TEST(ring_allreduce_table) {
  fs_generator_options o = per_chunk(4, 400, 1, 100);
  expect_story("allreduce-nccl-ring", &o, 0, 0,
               "S1.3:100 R3.2:100 C.2:100 S1.2:100 R3.1:100 C.1:100 S1.1:100 "
               "R3.0:100 C.0:100 S1.0:100 R3.3:100 S1.3:100 R3.2:100 S1.2:100 "
               "R3.1:100");
  expect_story("allreduce-nccl-ring", &o, 1, 0,
               "S2.0:100 R0.3:100 C.3:100 S2.3:100 R0.2:100 C.2:100 S2.2:100 "
               "R0.1:100 C.1:100 S2.1:100 R0.0:100 S2.0:100 R0.3:100 S2.3:100 "
               "R0.2:100");
  expect_story("allreduce-nccl-ring", &o, 2, 0,
               "S3.1:100 R1.0:100 C.0:100 S3.0:100 R1.3:100 C.3:100 S3.3:100 "
               "R1.2:100 C.2:100 S3.2:100 R1.1:100 S3.1:100 R1.0:100 S3.0:100 "
               "R1.3:100");
  expect_story("allreduce-nccl-ring", &o, 3, 0,
               "S0.2:100 R2.1:100 C.1:100 S0.1:100 R2.0:100 C.0:100 S0.0:100 "
               "R2.3:100 C.3:100 S0.3:100 R2.2:100 S0.2:100 R2.1:100 S0.1:100 "
               "R2.0:100");
  /* and the steps' labels: rank 0's send of step t is labelled step<t+1> */
  fs_program *p = fs_test_generate("allreduce-nccl-ring", &o);
  int step = 0;
  for (int32_t t = 0; t < p->tasks; t++)
    if (p->rank[t] == 0 && p->kind[t] == FS_SEND) {
      char want[16];
      snprintf(want, sizeof want, "step%d", ++step);
      ck_assert_str_eq(fs_task_label(p, t), want);
    }
  ck_assert_int_eq(step, 6);
  fs_program_free(p);
}
END_TEST

/* k = 4, 3 channels of 666, 666, 668 B (2000 B: equal ranges, the rest on
 * the last), chunk 100 B: a loop moves 400 B, so each channel runs 2 loops:
 * a full one and the rest (266 or 268 B) in chunks of roundup(ceil(r/4),
 * 16) = 80 B, the last 26 or 28 B. Tasks (--slices 1): 3 channels x 2
 * loops x 4 ranks x 5(k-1) = 360. Dependencies per (rank, channel): a recv
 * waits for the rank's previous recv (none for the first), a reduce for its
 * recv and the previous operation's end (the send before it: 2), a send
 * for the reduce (1) or, in the broadcast half, for the recv and the
 * previous send (2). Loop 0: send 0; steps 0-2: recv 0+1+1, reduce 2 each,
 * send 1 each: 11; steps 3-4: recv 1, send 2: 6; step 5: recv 1: 18. Loop
 * 1: its first send waits for the last send and recv of loop 0 (2), its
 * first recv for loop 0's last (1): 21. 39 a chain, 12 chains: 468. */
START_TEST(ring_allreduce_counts) {
  fs_generator_options o = per_chunk(4, 2000, 3, 100);
  fs_data_flow flow;
  fs_program *p = generate_flow("allreduce-nccl-ring", &o, &flow);
  ck_assert_int_eq(p->tasks, 360);
  ck_assert_int_eq(p->dependencies, 468);
  ck_assert_int_eq(p->cpus, 3);
  for (int32_t r = 0; r < 4; r++)
    for (int c = 0; c < 3; c++) {
      int n = 0;
      for (int32_t t = 0; t < p->tasks; t++) n += p->rank[t] == r && fs_task_cpu(p, t) == c;
      ck_assert_int_eq(n, 30);
    }
  /* the flow's blocks: 6 loops x 4 chunks, a channel's 8 summing to its range */
  ck_assert_int_eq(flow.blocks, 24);
  for (int c = 0; c < 3; c++) {
    int64_t sum = 0;
    for (int b = 8 * c; b < 8 * c + 8; b++) sum += flow.block_size[b];
    ck_assert_int_eq(sum, c < 2 ? 666 : 668);
  }
  fs_program_free(p);
  fs_data_flow_free(&flow);
  /* rank 0 on channel 0: loop 1 sends chunks 3 2 1 0 3 2 of 26 80 80 80 B */
  expect_story("allreduce-nccl-ring", &o, 0, 0,
               "S1.3:100 R3.2:100 C.2:100 S1.2:100 R3.1:100 C.1:100 S1.1:100 "
               "R3.0:100 C.0:100 S1.0:100 R3.3:100 S1.3:100 R3.2:100 S1.2:100 "
               "R3.1:100 S1.7:26 R3.6:80 C.6:80 S1.6:80 R3.5:80 C.5:80 S1.5:80 "
               "R3.4:80 C.4:80 S1.4:80 R3.7:26 S1.7:26 R3.6:80 S1.6:80 R3.5:80");
  /* channel 2 (CPU 2, tag 2): its last chunk holds 268 - 3 x 80 = 28 B */
  expect_story("allreduce-nccl-ring", &o, 0, 2,
               "S1.19:100 R3.18:100 C.18:100 S1.18:100 R3.17:100 C.17:100 "
               "S1.17:100 R3.16:100 C.16:100 S1.16:100 R3.19:100 S1.19:100 "
               "R3.18:100 S1.18:100 R3.17:100 S1.23:28 R3.22:80 C.22:80 "
               "S1.22:80 R3.21:80 C.21:80 S1.21:80 R3.20:80 C.20:80 S1.20:80 "
               "R3.23:28 S1.23:28 R3.22:80 S1.22:80 R3.21:80");
}
END_TEST

/* A last loop smaller than k x 16 B leaves chunks empty: 40 B over k = 4
 * with chunk 100: q = roundup(10, 16) = 16: chunks 16 16 8 0 (the empty
 * one still takes its steps, as NCCL's loop does with 0 elements). */
START_TEST(ring_allreduce_small_last_loop) {
  fs_generator_options o = per_chunk(4, 40, 1, 100);
  expect_story("allreduce-nccl-ring", &o, 0, 0,
               "S1.3:0 R3.2:8 C.2:8 S1.2:8 R3.1:16 C.1:16 S1.1:16 R3.0:16 "
               "C.0:16 S1.0:16 R3.3:0 S1.3:0 R3.2:8 S1.2:8 R3.1:16");
}
END_TEST

/* Every transfer carries the protocol (default Simple), its channel as CPU
 * and tag; reduces carry the CPU only. Default chunks: Simple 2 MiB (ring
 * allreduce, allgather, reduce-scatter, sent as 2 slices of 1 MiB), 512 KiB
 * (broadcast, reduce, tree); LL 32 KiB; LL128 576000 B: the largest
 * message is the slice. */
START_TEST(protocol_cpu_tag) {
  const char *names[] = {"allreduce-nccl-ring",      "allgather-nccl-ring", "bcast-nccl-ring",
                         "reduce-scatter-nccl-ring", "reduce-nccl-ring",    "allreduce-nccl-tree"};
  const int protocols[] = {FS_PROTOCOL_NONE, FS_PROTOCOL_LL, FS_PROTOCOL_LL128, FS_PROTOCOL_SIMPLE};
  for (int n = 0; n < 6; n++)
    for (int k = 0; k < 4; k++) {
      fs_generator_options o = fs_test_nccl_options(3, 3000, 2, 0);
      o.protocol = protocols[k];
      fs_program *p = fs_test_generate(names[n], &o);
      int want = k == 0 ? FS_PROTOCOL_SIMPLE : protocols[k];
      for (int32_t t = 0; t < p->tasks; t++) {
        int transfer = p->kind[t] == FS_SEND || p->kind[t] == FS_RECV;
        ck_assert_int_eq(fs_task_protocol(p, t), transfer ? want : FS_PROTOCOL_NONE);
        if (transfer) /* data on the channel's CPU and tag, credits (0 B) on 64 + the channel */
          ck_assert_int_eq(fs_task_tag(p, t), fs_task_cpu(p, t));
      }
      ck_assert(p->cpus == 2 || p->cpus == 66); /* 66: credits on 64 + the channel */
      fs_program_free(p);
    }
  /* one full loop of default chunks per channel and protocol, then a second loop */
  struct {
    const char *name;
    int protocol;
    int64_t chunk, per_loop, slice;
  } cases[] = {
      {"allreduce-nccl-ring", FS_PROTOCOL_SIMPLE, 2 << 20, 4, 1 << 20},
      {"allreduce-nccl-ring", FS_PROTOCOL_LL, 32768, 4, 32768},
      {"allreduce-nccl-ring", FS_PROTOCOL_LL128, 576000, 4, 576000},
      {"allgather-nccl-ring", FS_PROTOCOL_SIMPLE, 2 << 20, 1, 1 << 20},
      {"reduce-scatter-nccl-ring", FS_PROTOCOL_SIMPLE, 2 << 20, 1, 1 << 20},
      {"bcast-nccl-ring", FS_PROTOCOL_SIMPLE, 512 << 10, 1, 512 << 10},
      {"reduce-nccl-ring", FS_PROTOCOL_LL128, 576000, 1, 576000},
      {"allreduce-nccl-tree", FS_PROTOCOL_SIMPLE, 512 << 10, 1, 512 << 10},
      {"allreduce-nccl-tree", FS_PROTOCOL_LL, 32768, 1, 32768},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fs_generator_options o = fs_test_nccl_options(4, cases[i].chunk * cases[i].per_loop + 1, 1, 0);
    o.protocol = cases[i].protocol;
    fs_program *p = fs_test_generate(cases[i].name, &o);
    int64_t largest = 0, one = 0;
    for (int32_t t = 0; t < p->tasks; t++)
      if (p->kind[t] == FS_SEND) {
        if (p->value[t] > largest) largest = p->value[t];
        one += p->value[t] == 1;
      }
    ck_assert_msg(largest == cases[i].slice, "%s: slice %lld", cases[i].name, (long long)largest);
    ck_assert_msg(one > 0, "%s: no second loop of 1 byte", cases[i].name);
    fs_program_free(p);
  }
}
END_TEST

/* ---- slices ------------------------------------------------------------- */

/* NCCL's slice rule (prims_simple.h, 1-byte elements): a slice is
 * max(16 ceil(B / (16 n)), full slice / 32) bytes of a chunk of B, n
 * slices, the full slice = full chunk / n; the last ones shorter or empty.
 * 1024 of 1024, 2: 512 512. 1000 of 2 MiB: 1 MiB / 32 = 32768 > 512, so
 * 1000 and 0. 100000 of 2 MiB: 16 x 3125 = 50000 twice. 40000 of 2 MiB:
 * 20000 < 32768: 32768, 7232. 1000 of 1000: 16 x 32 = 512 > 15: 512, 488.
 * 1001 of 4096, 4: 16 x 16 = 256 > 32: 256 256 256 233. 0: empty. */
START_TEST(slice_sizes) {
  const int64_t mib2 = 2 << 20;
  ck_assert_int_eq(fs_nccl_slice_bytes(1024, 1024, 2, 0), 512);
  ck_assert_int_eq(fs_nccl_slice_bytes(1024, 1024, 2, 1), 512);
  ck_assert_int_eq(fs_nccl_slice_bytes(1000, mib2, 2, 0), 1000);
  ck_assert_int_eq(fs_nccl_slice_bytes(1000, mib2, 2, 1), 0);
  ck_assert_int_eq(fs_nccl_slice_bytes(100000, mib2, 2, 0), 50000);
  ck_assert_int_eq(fs_nccl_slice_bytes(100000, mib2, 2, 1), 50000);
  ck_assert_int_eq(fs_nccl_slice_bytes(40000, mib2, 2, 0), 32768);
  ck_assert_int_eq(fs_nccl_slice_bytes(40000, mib2, 2, 1), 7232);
  ck_assert_int_eq(fs_nccl_slice_bytes(1000, 1000, 2, 0), 512);
  ck_assert_int_eq(fs_nccl_slice_bytes(1000, 1000, 2, 1), 488);
  for (int32_t j = 0; j < 3; j++) ck_assert_int_eq(fs_nccl_slice_bytes(1001, 4096, 4, j), 256);
  ck_assert_int_eq(fs_nccl_slice_bytes(1001, 4096, 4, 3), 233);
  ck_assert_int_eq(fs_nccl_slice_bytes(0, mib2, 2, 0), 0);
  ck_assert_int_eq(fs_nccl_slice_bytes(0, mib2, 2, 1), 0);
  ck_assert_int_eq(fs_nccl_slice_bytes(5, 1, 1, 0), 5); /* one slice: the chunk */
}
END_TEST

/* Ring allreduce, k = 4, chunk 1024 B, one loop (4096 B), NCCL's 2 slices
 * of 512 B; flow block 2x + j = slice j of chunk x. Rank 0 runs its channel
 * as NCCL's thread block does, a slice at a time: the two slices of step
 * 0 (chunk 3: blocks 6, 7), then per step t and slice j the recv of slice j
 * of chunk (-2-t) mod 4, its reduce (steps 0..2) and the send of it (step
 * t+1), so slice 0 of a chunk is forwarded before slice 1 is received. */
START_TEST(ring_slices_story) {
  fs_generator_options o = no_credits(4, 4096, 1, 1024);
  expect_story("allreduce-nccl-ring", &o, 0, 0,
               "S1.6:512 S1.7:512 R3.4:512 C.4:512 S1.4:512 R3.5:512 C.5:512 S1.5:512 "
               "R3.2:512 C.2:512 S1.2:512 R3.3:512 C.3:512 S1.3:512 R3.0:512 C.0:512 "
               "S1.0:512 R3.1:512 C.1:512 S1.1:512 R3.6:512 S1.6:512 R3.7:512 S1.7:512 "
               "R3.4:512 S1.4:512 R3.5:512 S1.5:512 R3.2:512 R3.3:512");
  /* --slices 4 cuts a chunk in 4; other protocols and collectives refuse it */
  o.slices = 4;
  o.size = 1024; /* a rank's block: one piece, 4 slices of 256 B, block 4x + j */
  expect_story("reduce-scatter-nccl-ring", &o, 0, 0,
               "S1.12:256 S1.13:256 S1.14:256 S1.15:256 R3.8:256 C.8:256 S1.8:256 R3.9:256 "
               "C.9:256 S1.9:256 R3.10:256 C.10:256 S1.10:256 R3.11:256 C.11:256 S1.11:256 "
               "R3.4:256 C.4:256 S1.4:256 R3.5:256 C.5:256 S1.5:256 R3.6:256 C.6:256 S1.6:256 "
               "R3.7:256 C.7:256 S1.7:256 R3.0:256 C.0:256 R3.1:256 C.1:256 R3.2:256 C.2:256 "
               "R3.3:256 C.3:256");
  o.protocol = FS_PROTOCOL_LL;
  fs_error e = {0};
  ck_assert_ptr_null(fs_generator_find("allreduce-nccl-ring")->generate(&o, &e));
  ck_assert_str_eq(e.message, "allreduce-nccl-ring: --slices 4: a chunk here has 1 FIFO slot; "
                              "expected a divisor of it (NCCL slices only Simple ring allreduce, "
                              "allgather and reduce-scatter)");
}
END_TEST

/* ---- the other ring collectives ---------------------------------------- */

/* Allgather, k = 3, S = 250 B per rank, chunk 100: 3 pieces (100 100 50)
 * of each rank's block, block (rank j, piece l) = 3j + l. At step s
 * position i sends rank (i-s)'s piece and receives rank (i-1-s)'s. */
START_TEST(ring_allgather_story) {
  fs_generator_options o = per_chunk(3, 250, 1, 100);
  expect_story("allgather-nccl-ring", &o, 0, 0,
               "S1.0:100 R2.6:100 S1.6:100 R2.3:100 S1.1:100 R2.7:100 S1.7:100 "
               "R2.4:100 S1.2:50 R2.8:50 S1.8:50 R2.5:50");
  expect_story("allgather-nccl-ring", &o, 1, 0,
               "S2.3:100 R0.0:100 S2.0:100 R0.6:100 S2.4:100 R0.1:100 S2.1:100 "
               "R0.7:100 S2.5:50 R0.2:50 S2.2:50 R0.8:50");
}
END_TEST

/* Reduce-scatter, k = 3, S = 100 per rank, one piece: position i sends its
 * partial of rank (i-1-s)'s block and receives rank (i-2-s)'s, reduces,
 * forwards; the last receive is its own block. */
START_TEST(ring_reduce_scatter_story) {
  fs_generator_options o = per_chunk(3, 100, 1, 0);
  expect_story("reduce-scatter-nccl-ring", &o, 0, 0,
               "S1.2:100 R2.1:100 C.1:100 S1.1:100 R2.0:100 C.0:100");
  expect_story("reduce-scatter-nccl-ring", &o, 2, 0,
               "S0.1:100 R1.0:100 C.0:100 S0.0:100 R1.2:100 C.2:100");
}
END_TEST

/* Broadcast from root 2 over 4 ranks, 2 pieces (100, 50): 2 -> 3 -> 0 -> 1;
 * reduce to root 2: 3 -> 0 -> 1 -> 2, reducing on the way. */
START_TEST(ring_bcast_reduce_story) {
  fs_generator_options o = fs_test_nccl_options(4, 150, 1, 100);
  o.root = 2;
  expect_story("bcast-nccl-ring", &o, 2, 0, "S3.0:100 S3.1:50");
  expect_story("bcast-nccl-ring", &o, 0, 0, "R3.0:100 S1.0:100 R3.1:50 S1.1:50");
  expect_story("bcast-nccl-ring", &o, 1, 0, "R0.0:100 R0.1:50");
  expect_story("reduce-nccl-ring", &o, 3, 0, "S0.0:100 S0.1:50");
  expect_story("reduce-nccl-ring", &o, 0, 0, "R3.0:100 C.0:100 S1.0:100 R3.1:50 C.1:50 S1.1:50");
  expect_story("reduce-nccl-ring", &o, 2, 0, "R1.0:100 C.0:100 R1.1:50 C.1:50");
}
END_TEST

/* ---- trees ----------------------------------------------------------------- */

static void expect_node(int32_t nodes, int tree, int32_t node, int32_t up, int32_t d0, int32_t d1) {
  fs_nccl_tree_node t;
  fs_nccl_dtree(nodes, node, tree, &t);
  ck_assert_msg(t.up == up && t.down[0] == d0 && t.down[1] == d1,
                "N=%d tree %d node %d: up %d down %d,%d; expected %d, %d,%d", nodes, tree, node,
                t.up, t.down[0], t.down[1], up, d0, d1);
}

/* NCCL's tables (N = 8):
 *   tree 0: 0: root/4; 1: 2/-; 2: 4/1,3; 3: 2/-; 4: 0/2,6; 5: 6/-; 6: 4/5,7; 7: 6/-
 *   tree 1: 0: 1/-; 1: 3/2,0; 2: 1/-; 3: 7/5,1; 4: 5/-; 5: 3/6,4; 6: 5/-; 7: root/3
 * N = 2: tree 0 = 0 -> 1, tree 1 = 1 -> 0; N = 4: tree 0 0 -> 2 -> {1,3},
 * tree 1 3 -> 1 -> {2,0}. The root's only child is its child 1. */
START_TEST(double_binary_trees) {
  const int32_t t0[8][3] = {{-1, -1, 4}, {2, -1, -1}, {4, 1, 3}, {2, -1, -1},
                            {0, 2, 6},   {6, -1, -1}, {4, 5, 7}, {6, -1, -1}};
  const int32_t t1[8][3] = {{1, -1, -1}, {3, 2, 0}, {1, -1, -1}, {7, 5, 1},
                            {5, -1, -1}, {3, 6, 4}, {5, -1, -1}, {-1, -1, 3}};
  for (int32_t n = 0; n < 8; n++) {
    expect_node(8, 0, n, t0[n][0], t0[n][1], t0[n][2]);
    expect_node(8, 1, n, t1[n][0], t1[n][1], t1[n][2]);
  }
  expect_node(2, 0, 0, -1, -1, 1);
  expect_node(2, 0, 1, 0, -1, -1);
  expect_node(2, 1, 1, -1, -1, 0);
  expect_node(2, 1, 0, 1, -1, -1);
  expect_node(4, 0, 0, -1, -1, 2);
  expect_node(4, 0, 2, 0, 1, 3);
  expect_node(4, 0, 1, 2, -1, -1);
  expect_node(4, 0, 3, 2, -1, -1);
  expect_node(4, 1, 3, -1, -1, 1);
  expect_node(4, 1, 1, 3, 2, 0);
  expect_node(4, 1, 2, 1, -1, -1);
  expect_node(4, 1, 0, 1, -1, -1);
  /* child types: smaller than the parent is child 0 (tree 0, N = 8) */
  fs_nccl_tree_node t;
  fs_nccl_dtree(8, 1, 0, &t);
  ck_assert_int_eq(t.child_type, 0);
  fs_nccl_dtree(8, 3, 0, &t);
  ck_assert_int_eq(t.child_type, 1);
  /* N odd: tree 1 shifts by one (N = 3: tree 0 0 -> 2 -> 1; tree 1 1 -> 0 -> 2) */
  expect_node(3, 0, 0, -1, -1, 2);
  expect_node(3, 0, 2, 0, 1, -1);
  expect_node(3, 1, 1, -1, -1, 0);
  expect_node(3, 1, 0, 1, 2, -1);
  expect_node(1, 0, 0, -1, -1, -1);
  ck_assert_int_eq(fs_nccl_tree_of_channel(0, 1), 0);
  ck_assert_int_eq(fs_nccl_tree_of_channel(0, 2), 0);
  ck_assert_int_eq(fs_nccl_tree_of_channel(1, 2), 1);
  ck_assert_int_eq(fs_nccl_tree_of_channel(1, 3), 0);
  ck_assert_int_eq(fs_nccl_tree_of_channel(2, 3), 1);
}
END_TEST

static fs_platform *platform_for(int32_t nodes, int32_t cores, int32_t ranks) {
  fs_error e = {{0}};
  fs_platform *p = fs_platform_from_options(nodes, cores, "seq", ranks, &e);
  ck_assert_msg(p != NULL, "%s", e.message);
  return p;
}

/* 2 nodes of 2 GPUs (ranks 0,1 | 2,3), one piece of 100 B, 2 channels.
 * Tree 0 (channel 0): node 1 is node 0's child 1, so its g0 (rank 2) sends
 * up to node 0's g0 (rank 0); rank 0's children: its chain child 1, then
 * rank 2; rank 2's: rank 3. Tree 1 (channel 1): node 1 is the root, node 0
 * its child 1: rank 0 sends up to rank 2, whose children are 3 and 0. */
START_TEST(tree_links) {
  fs_platform *platform = platform_for(2, 2, 4);
  fs_generator_options o = fs_test_nccl_options(4, 200, 2, 0);
  o.platform = platform;
  const char *name = "allreduce-nccl-tree";
  expect_story(name, &o, 0, 0, "R1.0:100 R2.0:100 C.0:100 S1.0:100 S2.0:100");
  expect_story(name, &o, 1, 0, "S0.0:100 R0.0:100");
  expect_story(name, &o, 2, 0, "R3.0:100 C.0:100 S0.0:100 R0.0:100 S3.0:100");
  expect_story(name, &o, 3, 0, "S2.0:100 R2.0:100");
  expect_story(name, &o, 2, 1, "R3.1:100 R0.1:100 C.1:100 S3.1:100 S0.1:100");
  expect_story(name, &o, 0, 1, "R1.1:100 C.1:100 S2.1:100 R2.1:100 S1.1:100");
  /* 4 nodes of 3 GPUs, tree 0 over nodes 0 -> 2 -> {1, 3}: node 1 is child
   * 0 of node 2, so it sends up to node 2's g1 (rank 7), whose children are
   * rank 8 (chain) and node 1's g0 (rank 3); node 3 (child 1) sends to
   * node 2's g0 (rank 6), whose children are rank 7 and rank 9. */
  fs_platform_free(platform);
  platform = platform_for(4, 3, 12);
  o = fs_test_nccl_options(12, 100, 1, 0);
  o.platform = platform;
  expect_story(name, &o, 3, 0, "R4.0:100 C.0:100 S7.0:100 R7.0:100 S4.0:100");
  expect_story(name, &o, 7, 0, "R8.0:100 R3.0:100 C.0:100 S6.0:100 R6.0:100 S8.0:100 S3.0:100");
  expect_story(name, &o, 6, 0, "R7.0:100 R9.0:100 C.0:100 S0.0:100 R0.0:100 S7.0:100 S9.0:100");
  expect_story(name, &o, 0, 0, "R1.0:100 R6.0:100 C.0:100 S1.0:100 S6.0:100");
  fs_platform_free(platform);
}
END_TEST

/* The largest message of a program. */
static int64_t largest_send(const fs_program *p) {
  int64_t largest = 0;
  for (int32_t t = 0; t < p->tasks; t++)
    if (p->kind[t] == FS_SEND && p->value[t] > largest) largest = p->value[t];
  return largest;
}

/* Tree/LL128 shrinks its default chunk for small sizes (NCCL's enqueue):
 * 2 nodes of 8 GPUs, 16 channels: s = 1 + log2 2 + 0.1 x 8 = 2.8, so the
 * line chunk w = 614400 halves while B / (16 w) < 2.8 x 64 / 8 = 22.4 and
 * w > 131072, then while B / (16 w) < 5.6 and w > 32768; the data chunk is
 * 120/128 of w. 1 MiB: the quotient is 0 all along, w = 76800 after the
 * first loop, 19200 after the second: 18000 B. 64 MiB: 6, 13, then 27 at
 * w = 153600: 144000 B. 256 MiB: 27 at once: 576000 B. A given --chunk is
 * kept. */
START_TEST(tree_ll128_chunk) {
  fs_platform *platform = platform_for(2, 8, 16);
  const int64_t sizes[] = {1 << 20, 64 << 20, 256 << 20}, chunks[] = {18000, 144000, 576000};
  for (int i = 0; i < 3; i++) {
    fs_generator_options o = fs_test_nccl_options(16, sizes[i], 16, 0);
    o.platform = platform;
    o.protocol = FS_PROTOCOL_LL128;
    fs_program *p = fs_test_generate("allreduce-nccl-tree", &o);
    ck_assert_int_eq(largest_send(p), chunks[i]);
    fs_program_free(p);
    o.chunk = 100000; /* (1 MiB: a channel's 65536 B are one piece) */
    p = fs_test_generate("allreduce-nccl-tree", &o);
    ck_assert_int_eq(largest_send(p), i == 0 ? 65536 : 100000);
    fs_program_free(p);
  }
  fs_platform_free(platform);
}
END_TEST

/* ---- data flow --------------------------------------------------------- */

START_TEST(flow_many) {
  const char *names[] = {"allreduce-nccl-ring",      "allgather-nccl-ring", "bcast-nccl-ring",
                         "reduce-scatter-nccl-ring", "reduce-nccl-ring",    "allreduce-nccl-tree"};
  const int32_t ranks[] = {1, 2, 3, 4, 5, 7, 8};
  const int32_t channels[] = {1, 2, 3, 5};
  const int64_t sizes[] = {0, 1, 7, 100, 1000, 4099};
  const int64_t chunks[] = {16, 100, 0};
  int name = _i;
  for (int r = 0; r < 7; r++)
    for (int c = 0; c < 4; c++)
      for (int s = 0; s < 6; s++)
        for (int k = 0; k < 3; k++) {
          fs_generator_options o = fs_test_nccl_options(ranks[r], sizes[s], channels[c], chunks[k]);
          int rooted = strncmp(names[name], "bcast", 5) == 0 ||
                       strncmp(names[name], "reduce-nccl", 11) == 0;
          o.root = rooted ? ranks[r] - 1 : 0;
          fs_test_expect_flow(names[name], &o);
        }
}
END_TEST

/* The rings at --slices 1 and 4 (flow_many runs NCCL's 2). */
START_TEST(flow_slices) {
  const char *names[] = {"allreduce-nccl-ring", "allgather-nccl-ring", "reduce-scatter-nccl-ring"};
  const int32_t ranks[] = {1, 2, 3, 5}, slices[] = {1, 4};
  const int64_t sizes[] = {0, 7, 1000, 4099}, chunks[] = {16, 100, 0};
  for (int n = 0; n < 3; n++)
    for (int r = 0; r < 4; r++)
      for (int c = 1; c <= 3; c += 2)
        for (int s = 0; s < 4; s++)
          for (int k = 0; k < 3; k++)
            for (int j = 0; j < 2; j++) {
              fs_generator_options o = fs_test_nccl_options(ranks[r], sizes[s], c, chunks[k]);
              o.slices = slices[j];
              fs_test_expect_flow(names[n], &o);
            }
}
END_TEST

/* The tree over platforms: nodes of 1 to 4 GPUs, both trees. */
START_TEST(flow_tree_platforms) {
  for (int32_t nodes = 1; nodes <= 9; nodes++)
    for (int32_t cores = 1; cores <= 4; cores++) {
      fs_platform *platform = platform_for(nodes, cores, nodes * cores);
      for (int32_t c = 1; c <= 4; c++) {
        fs_generator_options o = fs_test_nccl_options(nodes * cores, 1000, c, 100);
        o.platform = platform;
        fs_test_expect_flow("allreduce-nccl-tree", &o);
      }
      fs_platform_free(platform);
    }
}
END_TEST

/* ---- times under hockney ---------------------------------------------- */

/* Ring allreduce, k = 4, one channel, one loop of 4 chunks of c = 1000 B,
 * free reduces: every rank sends at step t once its receive of step t-1
 * has arrived, and a send holds the CPU until it arrives: each of the
 * 2(k-1) = 6 steps takes T = alpha + c beta = 2 us: 12 us. With
 * --reduce-time R the first k-1 = 3 steps also reduce: 6T + 3R. Two loops
 * (S = 8000) run one after the other on the channel: 12T = 24 us; two
 * channels of one loop each run in parallel: 6T = 12 us. */
START_TEST(ring_allreduce_time) {
  const fs_time step = ALPHA + 1000 * BETA;
  fs_generator_options o = per_chunk(4, 4000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   6 * step);
  o.has_reduce_time = 1, o.reduce_time = 500000;
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   6 * step + 3 * 500000);
  o = per_chunk(4, 8000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   12 * step);
  o = per_chunk(4, 8000, 2, 1000);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   6 * step);
  /* k = 2: 2 steps */
  o = per_chunk(2, 2000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   2 * step);
}
END_TEST

/* Ring allreduce, k = 4, chunk 1024 B, one loop, NCCL's 2 slices of
 * 512 B: Ts = alpha + 512 beta = 1.512 us. A rank sends slice 0 and 1 of
 * step 0 back to back [0, Ts], [Ts, 2Ts]; slice 0 of step 0 from its left
 * neighbour arrived at Ts, so its reduce and the send of it (step 1) follow
 * at 2Ts, and so on: every send waits for the previous send (the channel),
 * and what it forwards arrived one send earlier (the neighbour runs the same
 * schedule). 2(k-1) x 2 = 12 sends back to back: 12 Ts = 18.144 us; the
 * last recv (the neighbour's last send) arrives at 12 Ts too. With
 * --reduce-time R the (k-1) x 2 = 6 reduces sit in the channel's chain
 * between the sends: 12 Ts + 6R. --slices 1: 6 steps of 1 + 1.024 us:
 * 12.144 us (slices cost an alpha each here: hockney has no separate
 * latency to hide). */
START_TEST(ring_slices_time) {
  const fs_time slice = ALPHA + 512 * BETA;
  fs_generator_options o = no_credits(4, 4096, 1, 1024);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   12 * slice);
  o.has_reduce_time = 1, o.reduce_time = 500000;
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   12 * slice + 6 * 500000);
  o = per_chunk(4, 4096, 1, 1024);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   6 * (ALPHA + 1024 * BETA));
}
END_TEST

/* NCCL's FIFO of 8 slots. Broadcast over k = 2 of P = 10 pieces of
 * 1000 B (T = 2 us): rank 0 sends piece n at [nT, (n+1)T], rank 1 receives
 * it at (n+1)T. --fifo 0: 10T = 20 us. NCCL's 8 slots: the send of piece
 * n+8 waits for the credit of piece n, which rank 1 (the end of the chain,
 * nothing else to send) returns when it has received it: its 0-byte
 * message holds rank 1's channel for alpha and arrives at (n+1)T + alpha,
 * long before (n+8)T: the credits of pieces 0 and 1 (the only ones a send
 * waits for) cannot bind here, 20 us. --fifo 1: the send of piece n+1
 * waits for the credit of piece n, arriving at n(T + alpha) + T + alpha:
 * every piece costs T + alpha, the last one T: 10T + 9 alpha = 29 us.
 * A credit runs on its own CPU (64 + the channel), not the channel's.
 * Ring allreduce, k = 4, chunk 1024 B, one loop, 2 slices (ring_slices_time:
 * 12 Ts = 18.144 us without credits, Ts = alpha + 512 beta): a connection
 * carries 12 slices, the window is 4 (8 slots, 2 a slice), so slices 0..7
 * return credits. A rank's credit for slice n leaves when it has forwarded
 * slice n and arrives alpha later; the sender sends slice n+4 two of its
 * sends (2 Ts > alpha) after its slice n+2, which needed slice n's
 * forward: the credit is always there first: 12 Ts = 18.144 us. */
START_TEST(fifo_time) {
  const fs_time step = ALPHA + 1000 * BETA;
  fs_generator_options o = fs_test_nccl_options(2, 10000, 1, 1000);
  o.fifo = FS_NCCL_FIFO_UNLIMITED;
  ck_assert_int_eq(fs_test_generated_makespan("bcast-nccl-ring", &o, "hockney", "fixed", HOCKNEY),
                   10 * step);
  o.fifo = 0; /* NCCL's 8 */
  ck_assert_int_eq(fs_test_generated_makespan("bcast-nccl-ring", &o, "hockney", "fixed", HOCKNEY),
                   10 * step);
  fs_program *p = fs_test_generate("bcast-nccl-ring", &o);
  int credits = 0;
  for (int32_t t = 0; t < p->tasks; t++)
    if (fs_task_label(p, t) && strcmp(fs_task_label(p, t), "credit") == 0) {
      ck_assert_int_eq(p->value[t], 0);
      ck_assert_int_eq(p->rank[t], p->kind[t] == FS_SEND ? 1 : 0);
      credits++;
    }
  ck_assert_int_eq(credits, 4); /* pieces 0 and 1: a send and a recv each */
  fs_program_free(p);
  o.fifo = 1;
  ck_assert_int_eq(fs_test_generated_makespan("bcast-nccl-ring", &o, "hockney", "fixed", HOCKNEY),
                   10 * step + 9 * ALPHA);
  o = fs_test_nccl_options(4, 4096, 1, 1024);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   12 * (ALPHA + 512 * BETA));
  /* The tree, 2 ranks each a node (0 -> 1), 3 pieces of 1000 B. --fifo 0
   * and NCCL's 8 (3 pieces: no send waits for a credit, none laid out):
   * rank 1 sends piece n up at [nT, (n+1)T], rank 0 sends it down at
   * [(n+1)T, (n+2)T]: 4T = 8 us. --fifo 1: rank 1's up send of piece n+1
   * waits for rank 0's credit of piece n (after its reduce), rank 0's down
   * send for rank 1's (after its down recv); credits (alpha = 1 us) run
   * off the channels' CPUs. Rank 1: up 0 [0, 2]; rank 0: down 0 [2, 4],
   * up-credit 0 [2, 3]; rank 1: up 1 [3, 5], down-credit 0 [4, 5]; rank 0:
   * down 1 [5, 7], up-credit 1 [5, 6]; rank 1: up 2 [6, 8], down-credit 1
   * [7, 8]; rank 0: down 2 [8, 10]: 10 us = 5T. */
  o = fs_test_nccl_options(2, 3000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-tree", &o, "hockney", "fixed",
                                              HOCKNEY),
                   4 * step);
  o.fifo = 1;
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-tree", &o, "hockney", "fixed",
                                              HOCKNEY),
                   5 * step);
  o = fs_test_nccl_options(4, 4096, 1, 1024);
  /* a ring's FIFO must hold more than a chunk: 4 slots is one Simple chunk */
  o.fifo = 4;
  fs_error e = {0};
  ck_assert_ptr_null(fs_generator_find("allreduce-nccl-ring")->generate(&o, &e));
  ck_assert_str_eq(e.message, "allreduce-nccl-ring: --fifo 4: a ring's FIFO must hold more than "
                              "a chunk (4 slots) here");
}
END_TEST

/* Allgather, k = 4, S = 1000 per rank, one piece: k-1 = 3 steps of T.
 * Reduce-scatter with --reduce-time R: each step is T then the reduce R
 * (the last one too): 3T + 3R. Broadcast and reduce, k = 4, two pieces of
 * 1000 B: a pipeline of k-1 = 3 hops over 2 pieces, (3 + 2 - 1) T = 4T
 * (the reduce free). */
START_TEST(ring_others_time) {
  const fs_time step = ALPHA + 1000 * BETA;
  fs_generator_options o = per_chunk(4, 1000, 1, 0);
  ck_assert_int_eq(fs_test_generated_makespan("allgather-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   3 * step);
  o.has_reduce_time = 1, o.reduce_time = 500000;
  ck_assert_int_eq(fs_test_generated_makespan("reduce-scatter-nccl-ring", &o, "hockney", "fixed",
                                              HOCKNEY),
                   3 * step + 3 * 500000);
  o = per_chunk(4, 2000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-nccl-ring", &o, "hockney", "fixed", HOCKNEY),
                   4 * step);
  ck_assert_int_eq(fs_test_generated_makespan("reduce-nccl-ring", &o, "hockney", "fixed", HOCKNEY),
                   4 * step);
}
END_TEST

/* Tree, 4 ranks each its own node (tree 0: 0 -> 2 -> {1, 3}), c = 1000 B.
 * One piece: 1 and 3 send up [0, T]; 2 reduces and sends to 0 [T, 2T]; 0
 * reduces and sends down [2T, 3T]; 2 sends to 1 [3T, 4T], then to 3
 * [4T, 5T]: 5T. Two pieces: the leaves send piece 1 up at [T, 2T]; 2
 * sends piece 0 up [T, 2T] and piece 1 [2T, 3T]; 0 sends piece 0 down
 * [2T, 3T] and piece 1 [3T, 4T]; 2 sends piece 0 to 1 and 3 [3T, 5T],
 * then receives piece 1 (arrived at 4T, its down chain free at 5T) and
 * sends it to 1 and 3 [5T, 7T]: 7T. */
START_TEST(tree_time) {
  const fs_time step = ALPHA + 1000 * BETA;
  fs_generator_options o = fs_test_nccl_options(4, 1000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-tree", &o, "hockney", "fixed",
                                              HOCKNEY),
                   5 * step);
  o = fs_test_nccl_options(4, 2000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-nccl-tree", &o, "hockney", "fixed",
                                              HOCKNEY),
                   7 * step);
}
END_TEST

/* Under loggops with S = 0 every send of a byte or more is a rendezvous:
 * it completes only when its receive is posted. A ring whose ranks all
 * sent before posting their receive would deadlock; NCCL's receives are
 * always posted, and so are these (the run completing is the check: a
 * deadlock fails it). */
START_TEST(rendezvous_completes) {
  const char *names[] = {"allreduce-nccl-ring",      "allgather-nccl-ring", "bcast-nccl-ring",
                         "reduce-scatter-nccl-ring", "reduce-nccl-ring",    "allreduce-nccl-tree"};
  fs_platform *platform = platform_for(2, 2, 4);
  for (int n = 0; n < 6; n++)
    for (int p = 0; p < 2; p++) {
      fs_generator_options o = fs_test_nccl_options(4, 1000, 2, 100);
      o.platform = p && n == 5 ? platform : NULL;
      ck_assert_int_gt(fs_test_generated_makespan(names[n], &o, "loggops", "fixed", "S=0"), 0);
    }
  fs_platform_free(platform);
}
END_TEST

/* sweep --report nccl-tests shows reduce-scatter as nccl-tests' ReduceScatter
 * (its GetBw: size k blocks, busbw x (k-1)/k, redop sum). hockney alpha
 * 1 us, beta 0.01 ns/B, 4 ranks, 1 KiB a rank, one piece of 2 slices:
 * NCCL's slice is at least 1/32 of a full one (1 MiB / 32 = 32 KiB), so
 * slice 0 holds the 1024 B and slice 1 is empty; each of the 3 steps sends
 * both, 1000 + 10.24 ns then 1000 ns, back to back, free reduces:
 * 6030.72 ns. A connection carries 6 slices, NCCL's FIFO window 4 (8
 * slots, 2 a slice): the consumption of slices 0 and 1 (a rank's first
 * two forwards) returns a credit, a 0-byte message off the channel's CPU
 * (alpha, 1000 ns) that arrives before the sends of slices 4 and 5, two
 * sends later, wait for it: nothing binds, 6030.72 ns; size 4096, count
 * 256 floats; algbw 4096 / 6030.72 = 0.679189 -> 0.68, busbw x 0.75 =
 * 0.509392 -> 0.51. */
START_TEST(nccl_tests_report) {
  ck_assert_int_eq(fennelsim("sweep reduce-scatter-nccl-ring --ranks 4 --size 1KiB "
                             "--model hockney:alpha=1us,beta=0.01ns --report nccl-tests"),
                   0);
  fs_test_contains(out, "        4096           256     float     sum      -1     6.03    0.68    "
                        "0.51    N/A     6.03    0.68    0.51    N/A\n"
                        "# Avg bus bandwidth    : 0.509392 \n");
}
END_TEST

int main(void) {
  Suite *s = suite_create("nccl_generators");
  TCase *structure = tcase_create("structure");
  tcase_add_test(structure, options_refused);
  tcase_add_test(structure, protocol_in_files);
  tcase_add_test(structure, spec_keys);
  tcase_add_test(structure, ring_allreduce_table);
  tcase_add_test(structure, ring_allreduce_counts);
  tcase_add_test(structure, ring_allreduce_small_last_loop);
  tcase_add_test(structure, protocol_cpu_tag);
  tcase_add_test(structure, slice_sizes);
  tcase_add_test(structure, ring_slices_story);
  tcase_add_test(structure, ring_allgather_story);
  tcase_add_test(structure, ring_reduce_scatter_story);
  tcase_add_test(structure, ring_bcast_reduce_story);
  tcase_add_test(structure, double_binary_trees);
  tcase_add_test(structure, tree_links);
  tcase_add_test(structure, tree_ll128_chunk);
  suite_add_tcase(s, structure);
  TCase *flow = tcase_create("flow");
  tcase_add_loop_test(flow, flow_many, 0, 6);
  tcase_add_test(flow, flow_slices);
  tcase_add_test(flow, flow_tree_platforms);
  tcase_set_timeout(flow, 300);
  suite_add_tcase(s, flow);
  TCase *time = tcase_create("time");
  tcase_add_test(time, ring_allreduce_time);
  tcase_add_test(time, ring_slices_time);
  tcase_add_test(time, ring_others_time);
  tcase_add_test(time, fifo_time);
  tcase_add_test(time, tree_time);
  tcase_add_test(time, rendezvous_completes);
  tcase_add_test(time, nccl_tests_report);
  suite_add_tcase(s, time);
  int status = fs_test_run(s);
  free(out), free(err);
  return status;
}
