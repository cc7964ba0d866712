/* test_nccl_pat.c: NCCL's PAT algorithm as generators (nccl_pat.c):
 * allgather-nccl-pat and reduce-scatter-nccl-pat. Their options (Simple
 * only, NCCL's default chunk, spec keys); who sends which blocks to whom in
 * which order for 4 and 8 ranks, against the messages of NCCL 2.30.7's
 * PatAGAlgorithm and PatRSAlgorithm (derived below); the data-flow proof
 * over ranks 1-9 and some larger, channels 1-5, uneven sizes and chunks;
 * completion under loggops rendezvous; exact makespans under hockney and
 * `--model nccl` derived by hand in the comments. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "generators/algorithm_spec.h"
#include "generators/data_flow_check.h"
#include "generators/generators.h"
#include "generator_support.h"
#include "test_support.h"

static char *out, *err;

/* Picoseconds: alpha 1 us, beta 1 ns/B. */
enum { ALPHA = 1000000, BETA = 1000 };
#define HOCKNEY "alpha=1us beta=1ns"

/* Rank r's tasks on CPU 0 in program order: R<peer>.<blocks>:<bytes>,
 * C.<blocks>:<bytes>, S<peer>.<blocks>:<bytes>, blocks joined by '+'. */
static void expect_story(const char *name, const fs_generator_options *o, int32_t r,
                         const char *expected) {
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  fs_generator_options with = *o;
  with.flow = &flow;
  fs_program *p = fs_test_generate(name, &with);
  char text[4096];
  size_t used = 0;
  text[0] = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->rank[t] != r || fs_task_cpu(p, t) != 0) continue;
    int n = p->kind[t] == FS_COMPUTE
                ? snprintf(text + used, sizeof text - used, "%sC.", used ? " " : "")
                : snprintf(text + used, sizeof text - used, "%s%c%d.", used ? " " : "",
                           p->kind[t] == FS_SEND ? 'S' : 'R', p->peer[t]);
    ck_assert(n > 0 && (size_t)n < sizeof text - used);
    used += (size_t)n;
    for (int32_t i = 0; i < flow.block_count[t]; i++) {
      n = snprintf(text + used, sizeof text - used, "%s%d", i ? "+" : "",
                   flow.block[flow.block_at[t] + i]);
      ck_assert(n > 0 && (size_t)n < sizeof text - used);
      used += (size_t)n;
    }
    n = snprintf(text + used, sizeof text - used, ":%lld", (long long)p->value[t]);
    ck_assert(n > 0 && (size_t)n < sizeof text - used);
    used += (size_t)n;
  }
  ck_assert_msg(strcmp(text, expected) == 0, "%s rank %d:\n  got      %s\n  expected %s", name, r,
                text, expected);
  fs_program_free(p);
  fs_data_flow_free(&flow);
}

/* ---- options ------------------------------------------------------------ */

START_TEST(options_refused) {
  fs_generator_options o = fs_test_nccl_options(4, 64, 1, 0);
  o.protocol = FS_PROTOCOL_LL;
  fs_test_generate_refused("allgather-nccl-pat", &o,
                           "allgather-nccl-pat: --protocol must be Simple (NCCL runs PAT only "
                           "with Simple), not LL");
  o.protocol = FS_PROTOCOL_LL128;
  fs_test_generate_refused("reduce-scatter-nccl-pat", &o, "not LL128");
  o = fs_test_nccl_options(4, 64, 65, 0);
  fs_test_generate_refused("allgather-nccl-pat", &o, "--channels must be from 1 to 64, not 65");
  o = fs_test_nccl_options(4, 64, 1, 0);
  o.has_reduce_time = 1;
  fs_test_generate_refused("allgather-nccl-pat", &o, "--reduce-time does not apply");
  o.protocol = FS_PROTOCOL_SIMPLE; /* Simple named: accepted; reduce-scatter takes --reduce-time */
  fs_program *p = fs_test_generate("reduce-scatter-nccl-pat", &o);
  for (int32_t t = 0; t < p->tasks; t++)
    if (p->kind[t] != FS_COMPUTE) ck_assert_int_eq(fs_task_protocol(p, t), FS_PROTOCOL_SIMPLE);
  fs_program_free(p);
  ck_assert_int_eq(fennelsim("gen allgather-nccl-pat --ranks 4 --protocol LL -o -"), 2);
  fs_test_contains(err, "--protocol must be Simple");
}
END_TEST

/* NCCL runs PAT only with one GPU a node: a platform of 2 GPUs a node (or a
 * crowded one further on) is refused, one a node is the schedule without a
 * platform (the same tasks: 4 ranks, 1000 B, one piece, T(1) + T(2) under
 * hockney alpha 1 us beta 1 ns/B = 5 us either way). In best and sweep the
 * refusal skips the candidate ("not applicable"). */
START_TEST(one_gpu_a_node) {
  ck_assert_int_eq(fennelsim("gen allgather-nccl-pat --ranks 4 --nodes 2 --cores 2 --size 1KiB"),
                   2);
  ck_assert_str_eq(err, "fennelsim gen: allgather-nccl-pat: the platform puts 2 ranks on the node "
                        "of rank 0; NCCL runs PAT only with one GPU a node (use the ring, or one "
                        "core a node)\n");
  ck_assert_int_eq(fennelsim("gen reduce-scatter-nccl-pat --ranks 5 --nodes 3 --cores 2 "
                             "--mapping rr --size 1KiB"),
                   2);
  fs_test_contains(err, "puts 2 ranks on the node of rank 0");
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen allgather-nccl-pat --ranks 4 --nodes 4 --cores 1 --size 1000B "
                             "-o %s",
                             dag),
                   0);
  ck_assert_int_eq(fennelsim("run %s --model hockney --param alpha=1us --param beta=1ns", dag), 0);
  fs_test_contains(out, "makespan   5 us (5000 ns)");
  remove(dag);
  free(dag);
  ck_assert_int_eq(fennelsim("best allgather --ranks 2 --nodes 1 --cores 2 --size 1KiB "
                             "--model nccl --format json"),
                   0);
  fs_test_contains(out, "{\"algorithm\": \"allgather-nccl-pat:channels=2:protocol=Simple\", "
                        "\"reason\": \"allgather-nccl-pat: the platform puts 2 ranks");
}
END_TEST

START_TEST(spec_keys) {
  fs_algorithm_spec spec;
  fs_error e = {{0}};
  ck_assert_int_eq(fs_algorithm_spec_parse(&spec, "reduce-scatter-nccl-pat:chunk=65536:channels=2",
                                           &e),
                   0);
  ck_assert_str_eq(spec.text, "reduce-scatter-nccl-pat:channels=2:chunk=64KiB");
  fs_generator_options o = fs_test_nccl_options(4, 64, 0, 0);
  fs_algorithm_spec_apply(&spec, &o);
  ck_assert_int_eq(o.channels, 2);
  ck_assert_int_eq(o.chunk, 65536);
  ck_assert_int_eq(fennelsim("sweep allgather-nccl-pat:channels=2 allgather-nccl-ring "
                             "--ranks 4 --size 1000B --model hockney:alpha=1us,beta=1ns"),
                   0);
  fs_test_contains(out, "allgather-nccl-pat:channels=2");
}
END_TEST

/* ---- who sends what ------------------------------------------------------ */

/* NCCL's PAT allgather, k = 4, S = 1000 B a rank, one piece (block x =
 * rank x). Default chunk: 512 KiB shrinks to 64 KiB (4 x 1000 < 32 x 64
 * KiB); it holds 65 >= 2 blocks of the channel: A doubles to 2 = k/2, F =
 * 2, D = 4/2 = 2. Coarse round (distance 2): rank 0 receives offset 2
 * (block 2) from 2 and sends its own block to 2; fine round x = 1
 * (distance 1): offsets 1 and 3 from rank 1 in one message, blocks 0 and
 * 2 to rank 3. NCCL's PatAGAlgorithm for rank 0, 4 ranks: sends its block
 * on dim 1 (to 0-2), then its block and block 2 (received on dim 1) on dim
 * 0 (to 0-1) in one slot, receives blocks 1, 3 on dim 0 (from 0+1). */
START_TEST(allgather_story_4) {
  fs_generator_options o = fs_test_nccl_options(4, 1000, 1, 0);
  expect_story("allgather-nccl-pat", &o, 0, "R2.2:1000 S2.0:1000 R1.1+3:2000 S3.0+2:2000");
  expect_story("allgather-nccl-pat", &o, 3, "R1.1:1000 S1.3:1000 R0.0+2:2000 S2.3+1:2000");
}
END_TEST

/* k = 8, --chunk 1000 = S: the chunk holds 1 block (F = 1), A doubles for
 * the 8 FIFO slots to 4 = k/2, D = 2: rounds of distance 4 (offset 4),
 * 2 (offsets 2, 6: sending 0, 4), 1 (offsets 1 3 5 7: sending 0 2 4 6),
 * one block a message. NCCL's ops for rank 0: send own on dim 2; own,
 * then block 4 on dim 1; own, 2, 4, 6 on dim 0; receive 4 on dim 2, 2 and
 * 6 on dim 1, 1 3 5 7 on dim 0. Default chunk: F = A = 4, one message a
 * round of 1, 2 and 4 blocks. */
START_TEST(allgather_story_8) {
  fs_generator_options o = fs_test_nccl_options(8, 1000, 1, 1000);
  expect_story("allgather-nccl-pat", &o, 0,
               "R4.4:1000 S4.0:1000 R2.2:1000 S6.0:1000 R2.6:1000 S6.4:1000 R1.1:1000 S7.0:1000 "
               "R1.3:1000 S7.2:1000 R1.5:1000 S7.4:1000 R1.7:1000 S7.6:1000");
  o = fs_test_nccl_options(8, 1000, 1, 0);
  expect_story("allgather-nccl-pat", &o, 0,
               "R4.4:1000 S4.0:1000 R2.2+6:2000 S6.0+4:2000 R1.1+3+5+7:4000 S7.0+2+4+6:4000");
}
END_TEST

/* Reduce-scatter mirrors it: the fine rounds first, the coarse last, data
 * going up (to r+d), a round's offsets in NCCL's mirrorInvert order. k = 4
 * (F = A = 2, D = 2): x = 1, offsets in order 3, 1: rank 0 sends its
 * partials of blocks 3 and 1 to rank 1 and receives rank 3's of blocks 2
 * and 0, combining them; then distance 2: its partial of block 2 to rank
 * 2, rank 2's of block 0 combined: block 0 is done. k = 8, chunk 1000 (F =
 * 1, A = 4, D = 2): x = 1 sends offsets 7 3 5 1 (a = 3 1 2 0) to rank 1,
 * receiving 6 2 4 0 from rank 7; distance 2: offsets 6 then 2 (a = 1 0)
 * to rank 2, 4 and 0 from rank 6; distance 4: 4 to rank 4, 0 from it:
 * NCCL's PatRSAlgorithm ops for rank 0, 8 ranks, in the same order. */
START_TEST(reduce_scatter_story) {
  fs_generator_options o = fs_test_nccl_options(4, 1000, 1, 0);
  expect_story("reduce-scatter-nccl-pat", &o, 0,
               "R3.2+0:2000 C.2+0:2000 S1.3+1:2000 R2.0:1000 C.0:1000 S2.2:1000");
  o = fs_test_nccl_options(8, 1000, 1, 1000);
  expect_story("reduce-scatter-nccl-pat", &o, 0,
               "R7.6:1000 C.6:1000 S1.7:1000 R7.2:1000 C.2:1000 S1.3:1000 R7.4:1000 C.4:1000 "
               "S1.5:1000 R7.0:1000 C.0:1000 S1.1:1000 R6.4:1000 C.4:1000 S2.6:1000 "
               "R6.0:1000 C.0:1000 S2.2:1000 R4.0:1000 C.0:1000 S4.4:1000");
}
END_TEST

/* k = 3 (P = 4, A = 1 since k/2 = 1, D = 4): rounds x = 2 (distance 2)
 * then 3 (distance 1: offset 3 >= k, skipped) then 1. Two pieces of 60
 * and 40 B (--chunk 60): block (rank x, piece l) = 2x + l; the schedule
 * runs once a piece. */
START_TEST(three_ranks_pieces) {
  fs_generator_options o = fs_test_nccl_options(3, 100, 1, 60);
  expect_story("allgather-nccl-pat", &o, 0,
               "R2.4:60 S1.0:60 R1.2:60 S2.0:60 R2.5:40 S1.1:40 R1.3:40 S2.1:40");
}
END_TEST

/* ---- data flow --------------------------------------------------------- */

START_TEST(flow_many) {
  const char *names[] = {"allgather-nccl-pat", "reduce-scatter-nccl-pat"};
  const int64_t sizes[] = {0, 1, 7, 100, 1000, 4099};
  const int64_t chunks[] = {16, 100, 0};
  for (int32_t k = 1; k <= 9; k++)
    for (int32_t c = 1; c <= 5; c++)
      for (int s = 0; s < 6; s++)
        for (int h = 0; h < 3; h++) {
          fs_generator_options o = fs_test_nccl_options(k, sizes[s], c, chunks[h]);
          fs_test_expect_flow(names[_i], &o);
        }
}
END_TEST

/* Larger and odd rank counts: deeper trees, coarse and fine rounds, skips. */
START_TEST(flow_larger) {
  const char *names[] = {"allgather-nccl-pat", "reduce-scatter-nccl-pat"};
  const int32_t ranks[] = {12, 13, 16, 17, 31, 33, 64, 100};
  const int64_t sizes[] = {1, 100, 1000};
  for (int r = 0; r < 8; r++)
    for (int s = 0; s < 3; s++)
      for (int32_t c = 1; c <= 2; c++) {
        fs_generator_options o = fs_test_nccl_options(ranks[r], sizes[s], c, 0);
        fs_test_expect_flow(names[_i], &o);
        o.chunk = 100;
        fs_test_expect_flow(names[_i], &o);
      }
}
END_TEST

/* ---- times ------------------------------------------------------------- */

/* hockney, S = 1000 B a rank, T(m) = alpha + m S beta for a message of m
 * blocks; a send holds the channel until it arrives.
 * Allgather k = 4 (messages of 1 then 2 blocks, the second sent when the
 * first round's block arrived): T(1) + T(2) = 2 + 3 = 5 us (the ring: 3
 * T(1) = 6 us). k = 8, default chunk: T(1) + T(2) + T(4) = 2 + 3 + 5 = 10
 * us. k = 8, chunk 1000 (a block a message, 7 sends in a chain): rank 0's
 * sends at [0,2] [2,4], then block 4 (arrived at 2) [4,6], its own [6,8],
 * block 2 (arrived at 4) [8,10], block 4 [10,12], block 6 (sent by rank 2
 * at [4,6]) [12,14]: 14 us.
 * Reduce-scatter with --reduce-time R = 0.5 us: k = 4: T(2), R, T(1), R =
 * 3 + 0.5 + 2 + 0.5 = 6 us; k = 8: T(4) + R + T(2) + R + T(1) + R = 11.5
 * us. Two channels of half the bytes each run in parallel: k = 4, S =
 * 2000, 2 channels: the 1000-B times, 5 us. */
START_TEST(hockney_times) {
  fs_generator_options o = fs_test_nccl_options(4, 1000, 1, 0);
  ck_assert_int_eq(fs_test_generated_makespan("allgather-nccl-pat", &o, "hockney", "fixed",
                                              HOCKNEY),
                   2 * ALPHA + 3 * 1000 * BETA);
  o = fs_test_nccl_options(8, 1000, 1, 0);
  ck_assert_int_eq(fs_test_generated_makespan("allgather-nccl-pat", &o, "hockney", "fixed",
                                              HOCKNEY),
                   3 * ALPHA + 7 * 1000 * BETA);
  o = fs_test_nccl_options(8, 1000, 1, 1000);
  ck_assert_int_eq(fs_test_generated_makespan("allgather-nccl-pat", &o, "hockney", "fixed",
                                              HOCKNEY),
                   7 * (ALPHA + 1000 * BETA));
  o = fs_test_nccl_options(4, 1000, 1, 0);
  o.has_reduce_time = 1, o.reduce_time = 500000;
  ck_assert_int_eq(fs_test_generated_makespan("reduce-scatter-nccl-pat", &o, "hockney", "fixed",
                                              HOCKNEY),
                   2 * ALPHA + 3 * 1000 * BETA + 2 * 500000);
  o.ranks = 8;
  ck_assert_int_eq(fs_test_generated_makespan("reduce-scatter-nccl-pat", &o, "hockney", "fixed",
                                              HOCKNEY),
                   3 * ALPHA + 7 * 1000 * BETA + 3 * 500000);
  o = fs_test_nccl_options(4, 2000, 2, 0);
  ck_assert_int_eq(fs_test_generated_makespan("allgather-nccl-pat", &o, "hockney", "fixed",
                                              HOCKNEY),
                   2 * ALPHA + 3 * 1000 * BETA);
}
END_TEST

/* --model nccl, one GPU a node (--nodes k --cores 1), Simple, hopper
 * defaults: launch 8.4 us (Ring/Simple base), a NET hop 14 us, bw_inter
 * 48 GB/s: m bytes hold the channel m/48 ns (rounded to the ps) and
 * arrive 14 us later. Allgather k = 4, S = 1000: 8.4 + (1000 B: 20833 ps)
 * + 14 + (2000 B: 41667 ps) + 14 = 36.4625 us. k = 8: three rounds of
 * 1000, 2000, 4000 B (83333 ps): 8.4 + 3 x 14 us + 145833 ps = 50545.833
 * ns. Reduce-scatter k = 4 (free reduces): the same messages in the other
 * order, 2000 B then 1000 B: 36462.5 ns too. */
START_TEST(nccl_model_times) {
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen allgather-nccl-pat --ranks 4 --size 1000B -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("run %s --model nccl --nodes 4 --cores 1 --format json", dag), 0);
  fs_test_contains(out, "\"makespan_ns\": 36462.5,");
  ck_assert_int_eq(fennelsim("gen allgather-nccl-pat --ranks 8 --size 1000B -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("run %s --model nccl --nodes 8 --cores 1 --format json", dag), 0);
  fs_test_contains(out, "\"makespan_ns\": 50545.833,");
  ck_assert_int_eq(fennelsim("gen reduce-scatter-nccl-pat --ranks 4 --size 1000B -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("run %s --model nccl --nodes 4 --cores 1 --format json", dag), 0);
  fs_test_contains(out, "\"makespan_ns\": 36462.5,");
  remove(dag);
  free(dag);
}
END_TEST

/* Under loggops with S = 0 every send of a byte or more is a rendezvous: it
 * completes only when its receive is posted. The receives of a rank form
 * their own chain, so every round's receive is posted once the previous
 * ones completed (the run completing is the check). */
START_TEST(rendezvous_completes) {
  const char *names[] = {"allgather-nccl-pat", "reduce-scatter-nccl-pat"};
  for (int32_t k = 2; k <= 17; k++)
    for (int h = 0; h < 2; h++) {
      fs_generator_options o = fs_test_nccl_options(k, 1000, 2, h ? 100 : 0);
      ck_assert_int_gt(fs_test_generated_makespan(names[_i], &o, "loggops", "fixed", "S=0"), 0);
    }
}
END_TEST

int main(void) {
  Suite *s = suite_create("nccl_pat");
  TCase *structure = tcase_create("structure");
  tcase_add_test(structure, options_refused);
  tcase_add_test(structure, one_gpu_a_node);
  tcase_add_test(structure, spec_keys);
  tcase_add_test(structure, allgather_story_4);
  tcase_add_test(structure, allgather_story_8);
  tcase_add_test(structure, reduce_scatter_story);
  tcase_add_test(structure, three_ranks_pieces);
  suite_add_tcase(s, structure);
  TCase *flow = tcase_create("flow");
  tcase_add_loop_test(flow, flow_many, 0, 2);
  tcase_add_loop_test(flow, flow_larger, 0, 2);
  tcase_set_timeout(flow, 300);
  suite_add_tcase(s, flow);
  TCase *time = tcase_create("time");
  tcase_add_test(time, hockney_times);
  tcase_add_test(time, nccl_model_times);
  tcase_add_loop_test(time, rendezvous_completes, 0, 2);
  suite_add_tcase(s, time);
  int status = fs_test_run(s);
  free(out), free(err);
  return status;
}
