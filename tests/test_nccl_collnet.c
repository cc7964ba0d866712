/* test_nccl_collnet.c: NCCL's CollNetDirect and CollNetChain allreduce as
 * generators (nccl_collnet.c): the rails' in-network reducers as ranks
 * NG..NG+G-1, the refusals, the structure of a piece (who sends what to
 * whom, on which CPU and tag), NCCL's default chunks, the data-flow proof
 * over shapes, channels and sizes (0 and odd ones), exact makespans under
 * hockney derived by hand, and the allreduce-nccl selector generating each
 * where NCCL picks it with --collnet 1. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "generators/data_flow_check.h"
#include "generators/generators.h"
#include "platform/platform.h"
#include "model_support.h"
#include "generator_support.h"
#include "test_support.h"

#define DIRECT "allreduce-nccl-collnet-direct"
#define CHAIN "allreduce-nccl-collnet-chain"

static char *out, *err;

/* Picoseconds: alpha 1 us, beta 1 ns/B. */
enum { ALPHA = 1000000, BETA = 1000 };
#define HOCKNEY "alpha=1us beta=1ns"

static fs_platform *platform_for(int32_t nodes, int32_t cores) {
  fs_error e = {{0}};
  fs_platform *p = fs_platform_from_options(nodes, cores, "seq", nodes * cores, &e);
  ck_assert_msg(p != NULL, "%s", e.message);
  return p;
}

/* NCCL options on N nodes of G GPUs (G = 0: no platform, a rank a node). */
static fs_generator_options shape(int32_t nodes, int32_t gpus, int64_t size, int32_t channels,
                                  int64_t chunk, fs_platform **platform) {
  int32_t ranks = gpus ? nodes * gpus : nodes;
  fs_generator_options o = fs_test_nccl_options(ranks, size, channels, chunk);
  *platform = gpus ? platform_for(nodes, gpus) : NULL;
  o.platform = *platform;
  return o;
}

static fs_time makespan(const char *name, int32_t nodes, int32_t gpus, int64_t size,
                        int32_t channels, int64_t chunk, fs_time reduce) {
  fs_platform *pl;
  fs_generator_options o = shape(nodes, gpus, size, channels, chunk, &pl);
  if (reduce) o.has_reduce_time = 1, o.reduce_time = reduce;
  fs_time t = fs_test_generated_makespan(name, &o, "hockney", "fixed", HOCKNEY);
  fs_platform_free(pl);
  return t;
}

/* ---- options ------------------------------------------------------------ */

START_TEST(options_refused) {
  const char *both[] = {DIRECT, CHAIN};
  for (int i = 0; i < 2; i++) {
    fs_platform *pl;
    fs_generator_options o = shape(2, 2, 4096, 1, 0, &pl);
    o.protocol = FS_PROTOCOL_LL;
    fs_test_generate_refused(both[i], &o,
                             "NCCL runs CollNet with the Simple protocol only, not LL");
    o.protocol = FS_PROTOCOL_LL128;
    fs_test_generate_refused(both[i], &o, "Simple protocol only, not LL128");
    fs_platform_free(pl);
    o = shape(2, 9, 4096, 1, 0, &pl); /* 9 GPUs a node */
    fs_test_generate_refused(both[i], &o,
                             "NCCL runs CollNet with at most 8 GPUs a node "
                             "(NCCL_MAX_DIRECT_ARITY + 1), not 9");
    fs_platform_free(pl);
    o = shape(1, 8, 4096, 1, 0, &pl); /* one node */
    fs_test_generate_refused(both[i], &o,
                             "it needs at least 2 nodes "
                             "(NCCL_COLLNET_NODE_THRESHOLD), not 1");
    fs_platform_free(pl);
    o = fs_test_nccl_options(1, 4096, 1, 0);
    fs_test_generate_refused(both[i], &o, "not 1");
    o = fs_test_nccl_options(300, 4096, 1, 0); /* 300 nodes of 1 GPU */
    fs_test_generate_refused(both[i], &o, "--channels x nodes must be at most 256");
    o = fs_test_nccl_options(64, 4096, 5, 0);
    fs_test_generate_refused(both[i], &o, "not 5 x 64");
    o = fs_test_nccl_options(4, 4096, 65, 0);
    fs_test_generate_refused(both[i], &o, "--channels must be from 1 to 64, not 65");
    o = fs_test_nccl_options(4, 4096, 1, 0);
    o.root = 2;
    fs_test_generate_refused(both[i], &o, "--root");
    /* 256 nodes x 1 channel: accepted, 256 + 1 ranks */
    o = fs_test_nccl_options(256, 4096, 1, 0);
    fs_program *p = fs_test_generate(both[i], &o);
    ck_assert_int_eq(p->ranks, 257);
    fs_program_free(p);
  }
  /* uneven nodes: 3 ranks on nodes of 2 cores */
  fs_error e = {{0}};
  fs_platform *uneven = fs_platform_from_options(2, 2, "seq", 3, &e);
  ck_assert_msg(uneven != NULL, "%s", e.message);
  fs_generator_options o = fs_test_nccl_options(3, 4096, 1, 0);
  o.platform = uneven;
  fs_test_generate_refused(DIRECT, &o, "unevenly");
  fs_platform_free(uneven);
  /* the command line: exit 2 with the message */
  ck_assert_int_eq(fennelsim("gen " DIRECT " --ranks 4 --nodes 2 --cores 2 --size 1KiB "
                             "--protocol LL -o -"),
                   2);
  fs_test_contains(err, "Simple protocol only");
  ck_assert_int_eq(fennelsim("gen " CHAIN " --ranks 32 --nodes 2 --cores 16 --size 1KiB -o -"), 2);
  fs_test_contains(err, "at most 8 GPUs a node");
  ck_assert_int_eq(fennelsim("gen " CHAIN " --ranks 8 --nodes 1 --cores 8 --size 1KiB -o -"), 2);
  fs_test_contains(err, "at least 2 nodes");
}
END_TEST

/* ---- structure ---------------------------------------------------------- */

/* Chain, 2 nodes x 2 GPUs (ranks 0, 1 | 2, 3; rails' reducers 4, 5), 2
 * channels, chunk 1000, S = 3000: loop 0 is pieces 0 (channel 0) and 1
 * (channel 1), loop 1 pieces 2 (channel 0, 1000 B) and 3 (channel 1:
 * past the end, 0 B). Channel 0's chain is 0 -> 1 in node 0 and goes up
 * through GPU 0 to rail 0's reducer (4); channel 1's is 1 -> 0, up
 * through GPU 1 to rail 1's (5). GPU 0: channel 0, per piece: recv from 1,
 * reduce, send to 4 (tag 0), recv from 4 and send to 1 (tag 1); channel 1:
 * send to 1 (tag 2), recv from 1 (tag 3). Reducer 4 (channel 0 only):
 * per piece recv from GPUs 0 and 2 on ports 0, 1, reduce on port 0,
 * return on the same ports. Reducer 5 the same on channel 1, ports 2, 3
 * (c N + n), a 0-byte piece in loop 1. 5k - N + 1 = 19 tasks a piece: 76. */
START_TEST(chain_structure) {
  fs_platform *pl;
  fs_generator_options o = shape(2, 2, 3000, 2, 1000, &pl);
  fs_program *p = fs_test_generate(CHAIN, &o);
  ck_assert_int_eq(p->ranks, 6);
  ck_assert_int_eq(p->tasks, 76);
  fs_test_expect_story(p, 0,
                       "R1@0/0:1000 C@0:1000 S4@0/0:1000 R4@0/1:1000 S1@0/1:1000 "
                       "R1@0/0:1000 C@0:1000 S4@0/0:1000 R4@0/1:1000 S1@0/1:1000 "
                       "S1@1/2:1000 R1@1/3:1000 S1@1/2:0 R1@1/3:0");
  fs_test_expect_story(p, 4,
                       "R0@0/0:1000 R2@1/0:1000 C@0:1000 S0@0/1:1000 S2@1/1:1000 "
                       "R0@0/0:1000 R2@1/0:1000 C@0:1000 S0@0/1:1000 S2@1/1:1000");
  fs_test_expect_story(p, 5,
                       "R1@2/2:1000 R3@3/2:1000 C@2:1000 S1@2/3:1000 S3@3/3:1000 "
                       "R1@2/2:0 R3@3/2:0 C@2:0 S1@2/3:0 S3@3/3:0");
  fs_program_free(p);
  fs_platform_free(pl);
}
END_TEST

/* Direct, 2 nodes x 2 GPUs, one channel, chunk 1000, S = 3000: pieces of
 * G = 2 chunks: loop 0 chunks 0, 1 (1000 B each), loop 1 chunk 2 (1000 B,
 * head 0) and chunk 3 (0 B, head 1). GPU 1 per loop: its chunk 0 to head
 * 0 (tag 0), chunk 1 from GPU 0, reduce, to rail 1's reducer 5 (tag 0),
 * the sum back (tag 1), to GPU 0 (tag 1), then chunk 0's sum from head 0
 * (tag 1). Reducer 4 (rail 0): GPUs 0 and 2 on ports 0 and 1. A piece:
 * k(G-1) = 4 scatter sends, 4 recvs, 4 broadcast sends, 4 gather recvs,
 * 4 head reduces, 8 network messages at the GPUs, 8 at the reducers and
 * their 2 reduces: 38, 76 in all. */
START_TEST(direct_structure) {
  fs_platform *pl;
  fs_generator_options o = shape(2, 2, 3000, 1, 1000, &pl);
  fs_program *p = fs_test_generate(DIRECT, &o);
  ck_assert_int_eq(p->ranks, 6);
  ck_assert_int_eq(p->tasks, 76);
  fs_test_expect_story(p, 1,
                       "S0@0/0:1000 R0@0/0:1000 C@0:1000 S5@0/0:1000 R5@0/1:1000 S0@0/1:1000 "
                       "R0@0/1:1000 "
                       "S0@0/0:1000 R0@0/0:0 C@0:0 S5@0/0:0 R5@0/1:0 S0@0/1:0 R0@0/1:1000");
  fs_test_expect_story(p, 4,
                       "R0@0/0:1000 R2@1/0:1000 C@0:1000 S0@0/1:1000 S2@1/1:1000 "
                       "R0@0/0:1000 R2@1/0:1000 C@0:1000 S0@0/1:1000 S2@1/1:1000");
  fs_program_free(p);
  fs_platform_free(pl);
}
END_TEST

/* NCCL's chunks (calcCollChunking). Chain, 2 x 8 (depth 8), 64 MiB on 16
 * channels: 64 MiB / (16 x 256 KiB) = 16 >= 8 x 8 = 64? no: halve to
 * 128 KiB (the first rule stops at 128 KiB); 64 MiB / (16 x 128 KiB) = 32
 * >= 8 x 8: stays 128 KiB: 32 loops. 1 MiB on 2 channels: 1 MiB / (2 x
 * 256 KiB) = 2 < 512: 128 KiB; 4 < 64: 64 KiB; 8 >= 8: 64 KiB. Direct,
 * 2 x 8 (8 heads, depth 2), 1 MiB on 2 channels: 1 MiB / (2 x 8 x 512
 * KiB) = 0 < 128: 256 KiB, 128 KiB; 0 < 16: 64 KiB; 1 < 16: 32 KiB: a
 * head's chunk 32 KiB, two loops of 2 x 8 x 32 KiB. Found by the first
 * message's bytes (a scatter or up-chain send). */
START_TEST(default_chunks) {
  fs_platform *pl;
  fs_generator_options o = shape(2, 8, 1048576, 2, 0, &pl);
  fs_program *p = fs_test_generate(CHAIN, &o);
  int32_t t = 0;
  while (p->kind[t] == FS_COMPUTE) t++;
  ck_assert_int_eq(p->value[t], 65536);
  fs_program_free(p);
  p = fs_test_generate(DIRECT, &o);
  ck_assert_int_eq(p->value[0], 32768);
  fs_program_free(p);
  fs_platform_free(pl);
  o = shape(2, 1, 1048576, 2, 0, &pl); /* G = 1: depth 1, 1 head: 1 MiB / (2 x 512 KiB) = 1 */
  p = fs_test_generate(DIRECT, &o);    /* < 64: 256, 128 KiB; 4 < 8: 64 KiB; 8 >= 8 */
  ck_assert_int_eq(p->value[0], 65536);
  fs_program_free(p);
  fs_platform_free(pl);
}
END_TEST

/* ---- data flow ------------------------------------------------------------ */

START_TEST(flow_proven) {
  const int32_t shapes[][2] = {{2, 0}, {3, 0}, {2, 1}, {2, 2}, {3, 2}, {2, 3}, {4, 2}, {2, 8}};
  const int64_t sizes[] = {0, 1, 999, 4000, 16384 * 5 + 7};
  const int64_t chunks[] = {0, 1000};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int32_t c = 1; c <= 3; c++)
      for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
        for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
          fs_platform *pl;
          fs_generator_options o = shape(shapes[s][0], shapes[s][1], sizes[z], c, chunks[k], &pl);
          fs_test_expect_flow(DIRECT, &o);
          fs_test_expect_flow(CHAIN, &o);
          fs_platform_free(pl);
        }
  fs_platform *pl;
  fs_generator_options o = shape(3, 4, 12345, 2, 1000, &pl);
  o.has_reduce_time = 1, o.reduce_time = 1000;
  fs_test_expect_flow(DIRECT, &o);
  fs_test_expect_flow(CHAIN, &o);
  fs_platform_free(pl);
}
END_TEST

/* The reducers are no data ranks: checked as ones, the GPUs lack their
 * contributions (2 x 2: every GPU ends with 4 of the 6 expected). */
START_TEST(reducers_are_no_data_ranks) {
  const char *both[] = {DIRECT, CHAIN};
  for (int i = 0; i < 2; i++) {
    fs_data_flow flow;
    fs_data_flow_init(&flow);
    fs_platform *pl;
    fs_generator_options o = shape(2, 2, 4000, 1, 1000, &pl);
    o.flow = &flow;
    fs_program *p = fs_test_generate(both[i], &o);
    ck_assert_int_eq(flow.data_ranks, 4);
    char why[512];
    ck_assert_ptr_null(fs_check_data_flow(p, &flow, why, sizeof why));
    flow.data_ranks = 0;
    const char *result = fs_check_data_flow(p, &flow, why, sizeof why);
    ck_assert_msg(result && strstr(result, "not the allreduce result (6 expected)"), "%s",
                  result ? result : "not caught");
    fs_program_free(p);
    fs_data_flow_free(&flow);
    fs_platform_free(pl);
  }
}
END_TEST

/* ---- times under hockney ------------------------------------------------ */

/* A message of c = 1000 B is a hop of alpha + c beta = 2 us (the sender
 * busy throughout, the receiver free); reduces free unless --reduce-time.
 * Chain, one piece (S = c, one channel): up the chain G-1 hops, to the
 * reducer 1, back 1 (each node on its own port), down G-1: 2G hops, the
 * nodes in parallel: 2 x 2: 8 us; 4 x 2 the same 8 us; 2 x 4: 16 us; with
 * --reduce-time R one reduce at the first GPU and one at the reducer on
 * the path: 8 us + 2R. Two channels, pieces 0 and 1 (S = 2c), on their
 * own CPUs and reducers: 8 us. G = 1 (a rank a node), three pieces on one
 * channel: each GPU sends them at [0,2], [2,4], [4,6] us, the reducer
 * returns each on arrival, the last at [6,8]: 8 us. */
START_TEST(chain_times) {
  ck_assert_int_eq(makespan(CHAIN, 2, 2, 1000, 1, 1000, 0), 4 * (ALPHA + 1000 * BETA));
  ck_assert_int_eq(makespan(CHAIN, 4, 2, 1000, 1, 1000, 0), 4 * (ALPHA + 1000 * BETA));
  ck_assert_int_eq(makespan(CHAIN, 2, 4, 1000, 1, 1000, 0), 8 * (ALPHA + 1000 * BETA));
  ck_assert_int_eq(makespan(CHAIN, 2, 2, 1000, 1, 1000, 300000), 8000000 + 2 * 300000);
  ck_assert_int_eq(makespan(CHAIN, 2, 2, 2000, 2, 1000, 0), 8000000);
  ck_assert_int_eq(makespan(CHAIN, 2, 0, 3000, 1, 1000, 0), 8000000);
}
END_TEST

/* Direct, one piece of G chunks of c = 1000 B (S = G c, one channel): GPU
 * j scatters its G-1 chunks one after another on its CPU (the last lands
 * at 2(G-1) us); head h has them all then, reduces (free) and sends its
 * sum to its rail's reducer ([2(G-1), 2G]), which returns it at 2G + 2;
 * head h sends it to the G-1 others one after another: 2(G-1) more: T =
 * 2G hops = 4G us: 2 x 2: 8 us; 2 x 4: 16 us; 4 x 2: 8 us; with
 * --reduce-time R (the head's reduce and the reducer's): 8 us + 2R. Two
 * channels (S = 4c: chunks 0, 1 on channel 0, 2, 3 on channel 1) in
 * parallel: 8 us. G = 1 (a rank a node), 3 loops of one chunk: as the
 * chain's, 8 us. */
START_TEST(direct_times) {
  ck_assert_int_eq(makespan(DIRECT, 2, 2, 2000, 1, 1000, 0), 4 * (ALPHA + 1000 * BETA));
  ck_assert_int_eq(makespan(DIRECT, 2, 4, 4000, 1, 1000, 0), 8 * (ALPHA + 1000 * BETA));
  ck_assert_int_eq(makespan(DIRECT, 4, 2, 2000, 1, 1000, 0), 8000000);
  ck_assert_int_eq(makespan(DIRECT, 2, 2, 2000, 1, 1000, 300000), 8000000 + 2 * 300000);
  ck_assert_int_eq(makespan(DIRECT, 2, 2, 4000, 2, 1000, 0), 8000000);
  ck_assert_int_eq(makespan(DIRECT, 2, 0, 3000, 1, 1000, 0), 8000000);
}
END_TEST

/* ---- the selector ------------------------------------------------------- */

/* The selector's program is byte for byte the generator's; what the
 * selector said (the caller frees it). */
static char *expect_same(const char *selector, const char *picked) {
  char *a = fs_test_temp_path(".dag"), *b = fs_test_temp_path(".dag");
  ck_assert_msg(fennelsim("gen %s -o %s", selector, a) == 0, "%s", err);
  ck_assert_ptr_null(strstr(err, "note:"));
  char *said = strdup(err);
  ck_assert_msg(fennelsim("gen %s -o %s", picked, b) == 0, "%s", err);
  char *ta = fs_test_read_file(a, NULL), *tb = fs_test_read_file(b, NULL);
  ck_assert_msg(ta && tb && strcmp(ta, tb) == 0, "%s and %s differ", selector, picked);
  free(ta), free(tb), free(a), free(b);
  return said;
}

/* 2 x 8 H100 with CollNet on and NVLS off (test_nccl_selection's
 * collnet_note): at 1 MiB NCCL picks CollNetDirect/Simple, 50.425 us
 * (CollNet graph 8 heads x 48 GB/s: busBw 8 x 48 / ((8/8 + 1) / 2) x 0.85
 * = 326.4 GB/s, algBw x 1/2 = 163.2; latency 2 (3.7 + 7 x 0.4) + 31 =
 * 44 us: 44 + 1048576 / 163200 = 50.425 us), on 2 channels
 * (collnet_direct_channels: from 16, nc nt heads thr = 16 x 640 x 8 x
 * 512 > 1 MiB: down to 8, thr 256 at 12; 4, thr 128 at 6; 2, thr 64 at 3;
 * 2 x 640 x 8 x 64 = 655360 <= 1 MiB stops). At 64 MiB CollNetChain
 * (busBw 8 x 48 = 384, algBw 192 GB/s, latency 2 x 7 x 2.8 + 30 = 69.2
 * us: 69.2 + 67108864 / 192000 = 418.725 us) beats CollNetDirect (44 +
 * 67108864 / 163200 = 455.206 us) and Ring/Simple (latency 1.4 x (8.4 +
 * 28 x 3.4 + 2 x 14) = 184.24 us, algBw 384 x 16/30 = 204.8 GB/s: 184.24
 * + 327.68 = 511.920 us), on 16 channels (16 x 640 x 512 B < 64 MiB). */
START_TEST(selector_generates_collnet) {
  char *said =
      expect_same("allreduce-nccl --collnet 1 --nvls 0 --ranks 16 --nodes 2 --cores 8 --size 1MiB",
                  DIRECT " --channels 2 --ranks 16 --nodes 2 --cores 8 --size 1MiB");
  fs_test_contains(said, "picks CollNetDirect/Simple on 2 channels");
  fs_test_contains(said, "CollNetDirect/Simple 50.425 us");
  fs_test_contains(said, "allreduce-nccl-collnet-direct:channels=2");
  free(said);
  said =
      expect_same("allreduce-nccl --collnet 1 --nvls 0 --ranks 16 --nodes 2 --cores 8 --size 64MiB",
                  CHAIN " --channels 16 --ranks 16 --nodes 2 --cores 8 --size 64MiB");
  fs_test_contains(said, "picks CollNetChain/Simple on 16 channels");
  fs_test_contains(said, "CollNetChain/Simple 418.725 us");
  fs_test_contains(said, "CollNetDirect/Simple 455.206 us");
  fs_test_contains(said, "Ring/Simple 511.920 us");
  free(said);
}
END_TEST

int main(void) {
  Suite *s = suite_create("nccl_collnet");
  TCase *c = tcase_create("collnet");
  tcase_add_test(c, options_refused);
  tcase_add_test(c, chain_structure);
  tcase_add_test(c, direct_structure);
  tcase_add_test(c, default_chunks);
  tcase_add_test(c, flow_proven);
  tcase_add_test(c, reducers_are_no_data_ranks);
  tcase_add_test(c, chain_times);
  tcase_add_test(c, direct_times);
  tcase_add_test(c, selector_generates_collnet);
  tcase_set_timeout(c, 300);
  suite_add_tcase(s, c);
  int status = fs_test_run(s);
  free(out), free(err);
  return status;
}
