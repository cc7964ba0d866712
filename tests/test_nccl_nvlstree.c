/* test_nccl_nvlstree.c: NCCL's NVLSTree allreduce as a generator
 * (nccl_nvlstree.c): a switch rank a node after the GPUs, its refusals,
 * the data-flow proof over several node shapes, channels and sizes, exact
 * makespans under hockney derived by hand, and the allreduce-nccl selector
 * generating it where NCCL picks NVLSTree. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "generators/generators.h"
#include "platform/platform.h"
#include "model_support.h"
#include "generator_support.h"
#include "test_support.h"

#define TREE "allreduce-nccl-nvlstree"

static char *out, *err;

/* Picoseconds: alpha 1 us, beta 1 ns/B. */
enum { ALPHA = 1000000, BETA = 1000 };
#define HOCKNEY "alpha=1us beta=1ns"

static fs_platform *platform_for(int32_t nodes, int32_t cores, const char *mapping, int32_t ranks) {
  fs_error e = {{0}};
  fs_platform *p = fs_platform_from_options(nodes, cores, mapping, ranks, &e);
  ck_assert_msg(p != NULL, "%s", e.message);
  return p;
}

/* NVLSTree's options on `nodes` nodes of `gpus` GPUs (sequential). */
static fs_generator_options on_nodes(int32_t nodes, int32_t gpus, int64_t size, int32_t channels,
                                     int64_t chunk, fs_platform **platform) {
  *platform = platform_for(nodes, gpus, "seq", nodes * gpus);
  fs_generator_options o = fs_test_nccl_options(nodes * gpus, size, channels, chunk);
  o.platform = *platform;
  return o;
}

/* ---- options ------------------------------------------------------------ */

START_TEST(options_refused) {
  fs_platform *pl;
  fs_generator_options o = on_nodes(2, 2, 4096, 1, 0, &pl);
  o.protocol = FS_PROTOCOL_LL;
  fs_test_generate_refused(TREE, &o, "NCCL runs NVLSTree with the Simple protocol only, not LL");
  o.protocol = FS_PROTOCOL_LL128;
  fs_test_generate_refused(TREE, &o, "Simple protocol only, not LL128");
  o.protocol = 0, o.root = 1;
  fs_test_generate_refused(TREE, &o, "--root");
  fs_platform_free(pl);
  o = on_nodes(1, 8, 4096, 1, 0, &pl); /* one node: NVLS's */
  fs_test_generate_refused(TREE, &o, "the 8 ranks are on one node");
  fs_test_generate_refused(TREE, &o, "on one node use allreduce-nccl-nvls");
  fs_platform_free(pl);
  o = on_nodes(2, 33, 4096, 1, 0, &pl); /* NCCL_MAX_NVLS_ARITY */
  fs_test_generate_refused(TREE, &o, "a node of 33 GPUs: NCCL's NVLS takes at most 32");
  fs_platform_free(pl);
  o = on_nodes(2, 32, 4096, 9, 0, &pl); /* 9 x 32 ports > 256 */
  fs_test_generate_refused(TREE, &o, "--channels x GPUs a node must be at most 256");
  o.channels = 8; /* 256: accepted, 64 GPUs and 2 switches */
  fs_program *p = fs_test_generate(TREE, &o);
  ck_assert_int_eq(p->ranks, 66);
  fs_program_free(p);
  fs_platform_free(pl);
  o = on_nodes(3, 1, 4096, 1, 0, &pl); /* one GPU a node: no NVSwitch */
  fs_test_generate_refused(TREE, &o, "the platform puts a single GPU on a node");
  fs_platform_free(pl);
  /* without a platform every rank is a node (one GPU, one head each) */
  o = fs_test_nccl_options(1, 4096, 1, 0);
  fs_test_generate_refused(TREE, &o, "on one node use allreduce-nccl-nvls");
  o = fs_test_nccl_options(3, 4096, 1, 0);
  p = fs_test_generate(TREE, &o);
  ck_assert_int_eq(p->ranks, 6);
  fs_program_free(p);
  /* the command line: exit 2 with the message */
  ck_assert_int_eq(fennelsim("gen " TREE " --ranks 8 --nodes 2 --cores 4 --size 1KiB "
                             "--protocol LL -o -"),
                   2);
  fs_test_contains(err, "Simple protocol only");
  ck_assert_int_eq(fennelsim("gen " TREE " --ranks 8 --nodes 1 --cores 8 --size 1KiB -o -"), 2);
  fs_test_contains(err, "on one node use allreduce-nccl-nvls");
  ck_assert_int_eq(fennelsim("gen " TREE " --ranks 66 --nodes 2 --cores 33 --size 1KiB -o -"), 2);
  fs_test_contains(err, "at most 32 GPUs on a switch");
}
END_TEST

/* ---- structure and chunks ------------------------------------------------ */

/* 2 x 2 GPUs, one channel, chunk 1000, S = 2000: one loop of H = 2 chunks.
 * Per node: 2 sends and 2 recvs (scatter), the switch's reduce, 2 returns
 * (4 tasks), 2 stores (4), the multicast (4): 17. The tree (N = 2,
 * tree 0: node 0 root, node 1 its child): node 1's heads send up (2 x 2
 * tasks), node 0's heads reduce (2) and send down (2 x 2): 10. 2 x 17 +
 * 10 = 44 tasks; 6 ranks, the switches 4 and 5. */
START_TEST(loop_structure) {
  fs_platform *pl;
  fs_generator_options o = on_nodes(2, 2, 2000, 1, 1000, &pl);
  fs_program *p = fs_test_generate(TREE, &o);
  ck_assert_int_eq(p->ranks, 6);
  ck_assert_int_eq(p->tasks, 44);
  fs_program_free(p);
  fs_platform_free(pl);
}
END_TEST

/* NCCL's chunk (enqueue.cc, NVLS_TREE): 128 KiB on 2 or 3 nodes (64 KiB on
 * 4 or more), 64 KiB when nBytes < 4 x channels x H x chunk, 32 KiB when
 * nBytes < channels x H x 64 KiB. 2 x 8 GPUs, 16 channels (ops 128):
 * 64 MiB = 4 x 128 x 128 KiB: 128 KiB (a GPU's first message 8 x 128 KiB
 * = 1 MiB); 32 MiB: 64 KiB (512 KiB); 4 MiB < 128 x 64 KiB = 8 MiB:
 * 32 KiB (a channel's 256 KiB in one loop of 8 x 32 KiB). On 4 nodes of 8
 * at 64 MiB: 64 KiB. */
START_TEST(default_chunk) {
  const struct {
    int32_t nodes;
    int64_t size, first;
  } cases[] = {{2, 67108864, 1048576},
               {2, 33554432, 524288},
               {2, 4194304, 262144},
               {4, 67108864, 524288}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    fs_platform *pl;
    fs_generator_options o = on_nodes(cases[i].nodes, 8, cases[i].size, 16, 0, &pl);
    fs_program *p = fs_test_generate(TREE, &o);
    ck_assert_msg(p->value[0] == cases[i].first, "case %zu: %lld", i, (long long)p->value[0]);
    fs_program_free(p);
    fs_platform_free(pl);
  }
}
END_TEST

/* ---- data flow ------------------------------------------------------------ */

START_TEST(flow_proven) {
  const int64_t sizes[] = {0, 1, 999, 4000, 16384 * 5 + 7};
  const int64_t chunks[] = {0, 1000};
  const int32_t shapes[][2] = {{2, 2}, {3, 2}, {4, 2}, {5, 3}, {2, 8}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int32_t c = 1; c <= 3; c++)
      for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
        for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
          fs_platform *pl;
          fs_generator_options o =
              on_nodes(shapes[s][0], shapes[s][1], sizes[z], c, chunks[k], &pl);
          fs_test_expect_flow(TREE, &o);
          fs_platform_free(pl);
        }
  /* without a platform: a GPU a node */
  for (int32_t n = 2; n <= 8; n++) {
    fs_generator_options o = fs_test_nccl_options(n, 4000, 2, 1000);
    fs_test_expect_flow(TREE, &o);
  }
  /* round-robin nodes of unequal sizes (10 on 3 nodes of 4: 4, 3, 3; heads 3) */
  fs_platform *rr = platform_for(3, 4, "rr", 10);
  fs_generator_options o = fs_test_nccl_options(10, 12345, 2, 1000);
  o.platform = rr;
  o.has_reduce_time = 1, o.reduce_time = 1000;
  fs_test_expect_flow(TREE, &o);
  fs_platform_free(rr);
}
END_TEST

/* ---- times under hockney ------------------------------------------------ */

/* 2 x 2 GPUs (node 0: GPUs 0, 1, switch 4; node 1: GPUs 2, 3, switch 5),
 * one channel (tree 0: node 0 the root, node 1 its child), chunk 1000,
 * S = 2000: one loop of 2 chunks. Free reduces. Each GPU's 2000 B to its
 * switch arrive at 1 + 2 = 3 us; the returns, 1000 B on each port: 5;
 * node 1's heads send up (1000 B): 7; node 0's heads reduce at 7, store
 * to their switch [7, 9], then send down to node 1 [9, 11] (one CPU, the
 * switch first as NCCL's treeDown order); node 0's multicast of 2000 B
 * [9, 12]; node 1's heads store [11, 13], its multicast [13, 16]:
 * T = 7 alpha + 9000 beta = 16 us. Two channels (S = 4000) run in
 * parallel, channel 1 on tree 1 (node 1 the root, the mirror): 16 us.
 *
 * 4 x 2 GPUs, the same loop (tree 0: 0 -> 2 -> {1, 3}): returns at 5;
 * nodes 1 and 3 up [5, 7]; node 2 reduces at 7, up [7, 9]; node 0
 * reduces at 9, stores [9, 11], down to node 2 [11, 13]; node 2 stores
 * [13, 15], down to node 1 [15, 17] and node 3 [17, 19]; node 1 stores
 * [17, 19] and multicasts [19, 22]; node 3 stores [19, 21] and
 * multicasts [21, 24]: T = 24 us. With --reduce-time R the critical path
 * crosses three reduces (the switch's, node 2's, node 0's): 24 us + 3R. */
START_TEST(times_hockney) {
  fs_platform *pl;
  fs_generator_options o = on_nodes(2, 2, 2000, 1, 1000, &pl);
  ck_assert_int_eq(fs_test_generated_makespan(TREE, &o, "hockney", "fixed", HOCKNEY),
                   7 * ALPHA + 9000 * BETA);
  fs_platform_free(pl);
  o = on_nodes(2, 2, 4000, 2, 1000, &pl);
  ck_assert_int_eq(fs_test_generated_makespan(TREE, &o, "hockney", "fixed", HOCKNEY),
                   7 * ALPHA + 9000 * BETA);
  fs_platform_free(pl);
  o = on_nodes(4, 2, 2000, 1, 1000, &pl);
  ck_assert_int_eq(fs_test_generated_makespan(TREE, &o, "hockney", "fixed", HOCKNEY), 24000000);
  o.has_reduce_time = 1, o.reduce_time = 500000;
  ck_assert_int_eq(fs_test_generated_makespan(TREE, &o, "hockney", "fixed", HOCKNEY),
                   24000000 + 3 * 500000);
  fs_platform_free(pl);
}
END_TEST

/* ---- the selector ------------------------------------------------------- */

/* 2 x 8 H100 with NVLS (test_nccl_tuning, nvls_tree_two_node_allreduce and
 * MODELS.md: on this machine Tree/LL128 up to 2509820 B, then NVLSTree):
 * at 2509821 B NCCL picks NVLSTree/Simple on its 16 NVLS channels and
 * allreduce-nccl generates it, the same program as allreduce-nccl-nvlstree
 * on 16 channels (18 ranks: 16 GPUs and 2 switches), without a note; at
 * 2509820 B it picks Tree/LL128. */
START_TEST(selector_generates_nvlstree) {
  char *sel = fs_test_temp_path(".dag"), *own = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl --ranks 16 --nodes 2 --cores 8 --size 2509821 "
                             "--nvls 1 -o %s",
                             sel),
                   0);
  ck_assert_ptr_null(strstr(err, "note:"));
  fs_test_contains(err, "picks NVLSTree/Simple on 16 channels");
  fs_test_contains(err, "allreduce-nccl-nvlstree:channels=16");
  ck_assert_int_eq(fennelsim("gen " TREE " --ranks 16 --nodes 2 --cores 8 --size 2509821 "
                             "--channels 16 -o %s",
                             own),
                   0);
  char *a = fs_test_read_file(sel, NULL), *b = fs_test_read_file(own, NULL);
  ck_assert_msg(a && b && strcmp(a, b) == 0, "the selector's program differs");
  fs_test_contains(a, "ranks 18");
  free(a), free(b), free(sel), free(own);
  ck_assert_int_eq(fennelsim("gen allreduce-nccl --ranks 16 --nodes 2 --cores 8 --size 2509820 "
                             "--nvls 1 -o -"),
                   0);
  fs_test_contains(err, "picks Tree/LL128");
}
END_TEST

int main(void) {
  Suite *s = suite_create("nccl_nvlstree");
  TCase *c = tcase_create("nvlstree");
  tcase_add_test(c, options_refused);
  tcase_add_test(c, loop_structure);
  tcase_add_test(c, default_chunk);
  tcase_add_test(c, flow_proven);
  tcase_add_test(c, times_hockney);
  tcase_add_test(c, selector_generates_nvlstree);
  tcase_set_timeout(c, 300);
  suite_add_tcase(s, c);
  int status = fs_test_run(s);
  free(out), free(err);
  return status;
}
