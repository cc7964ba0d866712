/* test_nccl_nvls.c: NCCL's NVLS allreduce as a generator (nccl_nvls.c):
 * the NVSwitch as rank N, its refusals, the structure of a loop (who sends
 * what to whom, on which CPU and tag), NCCL's default chunk and its last
 * loop's chunks, the data-flow proof over N = 2..8 GPUs, 1..3 channels and
 * several sizes (0 and odd ones), exact makespans under hockney derived by
 * hand, and the allreduce-nccl selector generating it where NCCL picks
 * NVLS. */
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

#define NVLS "allreduce-nccl-nvls"

static char *out, *err;

/* Picoseconds: alpha 1 us, beta 1 ns/B. */
enum { ALPHA = 1000000, BETA = 1000 };
#define HOCKNEY "alpha=1us beta=1ns"

static fs_platform *platform_for(int32_t nodes, int32_t cores, int32_t ranks) {
  fs_error e = {{0}};
  fs_platform *p = fs_platform_from_options(nodes, cores, "seq", ranks, &e);
  ck_assert_msg(p != NULL, "%s", e.message);
  return p;
}

/* ---- options ------------------------------------------------------------ */

START_TEST(options_refused) {
  fs_generator_options o = fs_test_nccl_options(4, 4096, 1, 0);
  o.protocol = FS_PROTOCOL_LL;
  fs_test_generate_refused(NVLS, &o, "NCCL runs NVLS with the Simple protocol only, not LL");
  o.protocol = FS_PROTOCOL_LL128;
  fs_test_generate_refused(NVLS, &o, "Simple protocol only, not LL128");
  o = fs_test_nccl_options(1, 4096, 1, 0);
  fs_test_generate_refused(NVLS, &o, "--ranks (GPUs on the NVSwitch) must be from 2 to 32, not 1");
  o = fs_test_nccl_options(33, 4096, 1, 0);
  fs_test_generate_refused(NVLS, &o, "must be from 2 to 32, not 33");
  o = fs_test_nccl_options(32, 4096, 9, 0);
  fs_test_generate_refused(NVLS, &o, "--channels x --ranks must be at most 256");
  o = fs_test_nccl_options(8, 4096, 65, 0);
  fs_test_generate_refused(NVLS, &o, "--channels must be from 1 to 64, not 65");
  o = fs_test_nccl_options(4, 4096, 1, 0);
  o.root = 2;
  fs_test_generate_refused(NVLS, &o, "--root");
  /* two nodes of 4 GPUs: NVLS is one node's */
  fs_platform *two = platform_for(2, 4, 8);
  o = fs_test_nccl_options(8, 4096, 1, 0);
  o.platform = two;
  fs_test_generate_refused(NVLS, &o, "the platform puts the 8 ranks on 2 nodes");
  fs_platform_free(two);
  /* 32 GPUs x 8 channels = 256 ports: accepted; one node of 8: accepted */
  o = fs_test_nccl_options(32, 4096, 8, 0);
  fs_program_free(fs_test_generate(NVLS, &o));
  fs_platform *one = platform_for(1, 8, 8);
  o = fs_test_nccl_options(8, 4096, 2, 0);
  o.platform = one;
  fs_program *p = fs_test_generate(NVLS, &o);
  ck_assert_int_eq(p->ranks, 9);
  fs_program_free(p);
  fs_platform_free(one);
  /* the command line: exit 2 with the message */
  ck_assert_int_eq(fennelsim("gen " NVLS " --ranks 4 --size 1KiB --protocol LL -o -"), 2);
  fs_test_contains(err, "Simple protocol only");
  ck_assert_int_eq(fennelsim("gen " NVLS " --ranks 8 --size 1KiB --nodes 2 --cores 4 -o -"), 2);
  fs_test_contains(err, "NCCL runs NVLS across nodes only with CollNet");
}
END_TEST

/* ---- structure -------------------------------------------------------- */

/* N = 3 GPUs, 2 channels, chunk 1000, S = 6000: 3000 B a channel, one loop
 * of 3 chunks each. A GPU (rank 1), per channel c on its CPU c: its 3000 B
 * to the switch (tag 2c), chunk 1's sum back (tag 2c), the store of it
 * (tag 2c+1), the multicast of all 3 sums (tag 2c+1). The switch (rank 3):
 * the 3 GPUs' loops on ports c*3+g, the reduce on port c*3, the returns,
 * the stores and the multicasts, port c*3+g for GPU g. 8N+1 = 25 tasks a
 * loop and channel: 50. */
START_TEST(loop_structure) {
  fs_generator_options o = fs_test_nccl_options(3, 6000, 2, 1000);
  fs_program *p = fs_test_generate(NVLS, &o);
  ck_assert_int_eq(p->ranks, 4);
  ck_assert_int_eq(p->tasks, 50);
  fs_test_expect_story(p, 1,
                       "S3@0/0:3000 R3@0/0:1000 S3@0/1:1000 R3@0/1:3000 "
                       "S3@1/2:3000 R3@1/2:1000 S3@1/3:1000 R3@1/3:3000");
  fs_test_expect_story(p, 3,
                       "R0@0/0:3000 R1@1/0:3000 R2@2/0:3000 C@0:3000 "
                       "S0@0/0:1000 R0@0/1:1000 S1@1/0:1000 R1@1/1:1000 S2@2/0:1000 R2@2/1:1000 "
                       "S0@0/1:3000 S1@1/1:3000 S2@2/1:3000 "
                       "R0@3/2:3000 R1@4/2:3000 R2@5/2:3000 C@3:3000 "
                       "S0@3/2:1000 R0@3/3:1000 S1@4/2:1000 R1@4/3:1000 S2@5/2:1000 R2@5/3:1000 "
                       "S0@3/3:3000 S1@4/3:3000 S2@5/3:3000");
  fs_program_free(p);
}
END_TEST

/* NCCL's chunk for N = 8 on 16 channels (ops = 128): 128 KiB, then 64 KiB
 * as 16 MiB < 64 x 128 x 128 KiB = 1 GiB, 32 KiB as 16 MiB < 8 x 128 x
 * 64 KiB = 64 MiB, and not 16 KiB as 16 MiB >= 2 x 128 x 32 KiB = 8 MiB:
 * a channel's 1 MiB in 4 loops of 8 x 32 KiB, a GPU's message 256 KiB.
 * With 4 MiB (< 8 MiB): 16 KiB chunks, a channel's 256 KiB in 2 loops of
 * 128 KiB. */
START_TEST(default_chunk) {
  fs_generator_options o = fs_test_nccl_options(8, 16777216, 16, 0);
  fs_program *p = fs_test_generate(NVLS, &o);
  ck_assert_int_eq(p->tasks, 16 * 4 * 65);
  ck_assert_int_eq(p->value[0], 262144);
  fs_program_free(p);
  o = fs_test_nccl_options(8, 4194304, 16, 0);
  p = fs_test_generate(NVLS, &o);
  ck_assert_int_eq(p->tasks, 16 * 2 * 65);
  ck_assert_int_eq(p->value[0], 131072);
  fs_program_free(p);
}
END_TEST

/* The last loop's rest r in chunks of ceil(r/N) rounded up to 16 KiB (NCCL's
 * lastChunkSize): N = 4, chunk 16384, S = 100000: loop 0 is 4 x 16384 =
 * 65536, the rest 34464 in chunks of ceil(34464/4) = 8616 -> 16384: heads
 * 0, 1 get 16384, head 2 the last 1696, head 3 nothing (a 0-byte return
 * and store, as NCCL still steps through them). */
START_TEST(last_loop_chunks) {
  fs_generator_options o = fs_test_nccl_options(4, 100000, 1, 16384);
  fs_program *p = fs_test_generate(NVLS, &o);
  ck_assert_int_eq(p->tasks, 2 * 33);
  int64_t returns[4] = {-1, -1, -1, -1};
  for (int32_t t = 33; t < p->tasks; t++)
    if (p->rank[t] == 4 && p->kind[t] == FS_SEND && fs_task_tag(p, t) == 0)
      returns[p->peer[t]] = p->value[t];
  ck_assert_int_eq(returns[0], 16384);
  ck_assert_int_eq(returns[1], 16384);
  ck_assert_int_eq(returns[2], 1696);
  ck_assert_int_eq(returns[3], 0);
  ck_assert_int_eq(p->value[33], 34464); /* GPU 0's second loop to the switch */
  fs_program_free(p);
}
END_TEST

/* ---- data flow ------------------------------------------------------------ */

START_TEST(flow_proven) {
  const int64_t sizes[] = {0, 1, 999, 4000, 16384 * 5 + 7, 100003};
  const int64_t chunks[] = {0, 1000, 16384};
  for (int32_t n = 2; n <= 8; n++)
    for (int32_t c = 1; c <= 3; c++)
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
          fs_generator_options o = fs_test_nccl_options(n, sizes[s], c, chunks[k]);
          fs_test_expect_flow(NVLS, &o);
        }
  /* and with reduce times, and on a one-node platform */
  fs_generator_options o = fs_test_nccl_options(5, 12345, 2, 1000);
  o.has_reduce_time = 1, o.reduce_time = 1000;
  fs_test_expect_flow(NVLS, &o);
  fs_platform *one = platform_for(1, 8, 8);
  o = fs_test_nccl_options(8, 77777, 3, 2000);
  o.platform = one;
  fs_test_expect_flow(NVLS, &o);
  fs_platform_free(one);
}
END_TEST

/* The switch is no data rank: checked as one, the schedule lacks its
 * contribution (every GPU ends with N of the N+1 expected). */
START_TEST(switch_is_no_data_rank) {
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  fs_generator_options o = fs_test_nccl_options(4, 4000, 1, 1000);
  o.flow = &flow;
  fs_program *p = fs_test_generate(NVLS, &o);
  ck_assert_int_eq(flow.data_ranks, 4);
  char why[512];
  ck_assert_ptr_null(fs_check_data_flow(p, &flow, why, sizeof why));
  flow.data_ranks = 0; /* all 5 ranks */
  const char *result = fs_check_data_flow(p, &flow, why, sizeof why);
  ck_assert_msg(result && strstr(result, "holding 4 contributions, not the allreduce result "
                                         "(5 expected)"),
                "%s", result ? result : "not caught");
  fs_program_free(p);
  fs_data_flow_free(&flow);
}
END_TEST

/* ---- times under hockney ------------------------------------------------ */

/* N = 4, one channel, chunk c = 1000, S = 4000: one loop. Free reduces:
 *   1. every GPU sends its 4000 B to the switch: arrives at
 *      alpha + 4000 beta = 5 us (each GPU its own sender);
 *   2. the switch reduces at 5 us (free);
 *   3. its returns, 1000 B on each port in parallel: 5 + 2 = 7 us;
 *   4. each head's store, 1000 B: 7 + 2 = 9 us;
 *   5. the multicasts, 4000 B on each port once all 4 stores are in:
 *      9 + 5 = 14 us.
 * T = 4 alpha + 2 N c beta + 2 c beta = 4 + 8 + 2 = 14 us; with
 * --reduce-time R, 14 us + R. Two channels (S = 8000) run in parallel:
 * 14 us. Two loops on one channel (S = 8000): a GPU's CPU sends loop 1's
 * 4000 B right after loop 0's, [5, 10] us, so its store of loop 0 (ready
 * at 7) runs [10, 12]; the switch has loop 1's contributions at 10 and
 * returns them [10, 12] (the ports are free since 7); loop 0's multicast
 * waits for the stores (12): [12, 17]; loop 1's stores [12, 14] (the GPU
 * CPUs are free at 12), its multicast after loop 0's on each port:
 * [17, 22]. T = 22 us. N = 2, one loop of 2 x 1000 B: 4 alpha +
 * 2 x 2000 beta + 2 x 1000 beta = 4 + 4 + 2 = 10 us. */
START_TEST(times_hockney) {
  fs_generator_options o = fs_test_nccl_options(4, 4000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan(NVLS, &o, "hockney", "fixed", HOCKNEY),
                   4 * ALPHA + 10000 * BETA);
  o.has_reduce_time = 1, o.reduce_time = 500000;
  ck_assert_int_eq(fs_test_generated_makespan(NVLS, &o, "hockney", "fixed", HOCKNEY),
                   4 * ALPHA + 10000 * BETA + 500000);
  o = fs_test_nccl_options(4, 8000, 2, 1000);
  ck_assert_int_eq(fs_test_generated_makespan(NVLS, &o, "hockney", "fixed", HOCKNEY),
                   4 * ALPHA + 10000 * BETA);
  o = fs_test_nccl_options(4, 8000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan(NVLS, &o, "hockney", "fixed", HOCKNEY), 22000000);
  o = fs_test_nccl_options(2, 2000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan(NVLS, &o, "hockney", "fixed", HOCKNEY), 10000000);
}
END_TEST

/* On models/h100-nvswitch-node.xml under the flow model the switch rank 8
 * is the host nvswitch: a GPU's message to it crosses only the GPU's link
 * up, 300 ns + bytes / 370.8 GB/s, one from it only the link down. N = 8,
 * one channel, chunk c = 370800 B (1 us of link), S = 8c: one loop, every
 * message alone on its link: 8c up (0.3 + 8 us), the return c down
 * (0.3 + 1), the store c up (0.3 + 1), the multicast 8c down (0.3 + 8):
 * 4 x 0.3 + 18 = 19.2 us (19200.001 ns: the flow model's rounding of
 * 8c / 370.8e9 s to picoseconds). Generating with that platform is
 * refused: it is a node per host, one GPU each. */
START_TEST(flow_on_the_node) {
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen " NVLS " --ranks 8 --size 2966400B --chunk 370800B -o %s", dag),
                   0);
  ck_assert_int_eq(fennelsim("run %s --model flow --platform h100-nvswitch-node.xml", dag), 0);
  fs_test_contains(out, "makespan   19.2 us (19200.001 ns)");
  /* generated with that platform: refused (a node per host, a GPU each) */
  ck_assert_int_eq(fennelsim("gen " NVLS " --ranks 8 --size 2966400B --chunk 370800B "
                             "--platform h100-nvswitch-node.xml -o %s",
                             dag),
                   2);
  fs_test_contains(err, "a SimGrid platform of a host per GPU is for run: generate without it");
  free(dag);
}
END_TEST

/* ---- the selector ------------------------------------------------------- */

/* 1 x 8 H100, AllReduce of 16 MiB: NCCL picks NVLS/Simple (86.681 us,
 * test_nccl_selection's example A) on its NVLS channels; allreduce-nccl
 * now generates it: the same program as allreduce-nccl-nvls on those
 * channels, 9 ranks (8 GPUs and the switch), no note. Just below the
 * crossover of test_nccl_tuning (1,144,836 B) NCCL picks Ring/LL, at it
 * NVLS. */
START_TEST(selector_generates_nvls) {
  char *sel = fs_test_temp_path(".dag"), *own = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl --ranks 8 --size 16MiB --nodes 1 --cores 8 "
                             "-o %s",
                             sel),
                   0);
  ck_assert_ptr_null(strstr(err, "note:"));
  fs_test_contains(err, "picks NVLS/Simple on 16 channels");
  fs_test_contains(err, "allreduce-nccl-nvls:channels=16");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl-nvls --ranks 8 --size 16MiB --channels 16 -o %s",
                             own),
                   0);
  char *a = fs_test_read_file(sel, NULL), *b = fs_test_read_file(own, NULL);
  ck_assert_msg(a && b && strcmp(a, b) == 0, "the selector's program differs");
  fs_test_contains(a, "ranks 9");
  free(a), free(b), free(sel), free(own);
  ck_assert_int_eq(fennelsim("gen allreduce-nccl --ranks 8 --size 1144835 --nodes 1 --cores 8 "
                             "-o -"),
                   0);
  fs_test_contains(err, "picks Ring/LL");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl --ranks 8 --size 1144836 --nodes 1 --cores 8 "
                             "-o -"),
                   0);
  fs_test_contains(err, "picks NVLS/Simple");
}
END_TEST

int main(void) {
  Suite *s = suite_create("nccl_nvls");
  TCase *c = tcase_create("nvls");
  tcase_add_test(c, options_refused);
  tcase_add_test(c, loop_structure);
  tcase_add_test(c, default_chunk);
  tcase_add_test(c, last_loop_chunks);
  tcase_add_test(c, flow_proven);
  tcase_add_test(c, switch_is_no_data_rank);
  tcase_add_test(c, times_hockney);
  tcase_add_test(c, flow_on_the_node);
  tcase_add_test(c, selector_generates_nvls);
  tcase_set_timeout(c, 300);
  suite_add_tcase(s, c);
  int status = fs_test_run(s);
  free(out), free(err);
  return status;
}
