/* test_nccl_selection.c: NCCL's own choice as selector generators
 * (generators/nccl_selection.h, issue 21): `gen allreduce-nccl` and its
 * siblings pick what NCCL 2.30.7's tuning model picks on the typical
 * Hopper machine (the worked examples A and B of docs/MODELS.md, derived
 * by hand below), say so, and write exactly the picked generator's
 * program with the picked channels and protocol; sweep names the pick;
 * the refusals name what is wrong.
 *
 * Hopper constants (NCCL's tuning.cc): base latency Ring/Tree LL 6.6/6.8,
 * LL128 14, Simple 8.4 us; per hop NVLink Ring LL 0.6, LL128 1.9, Simple
 * 3.4, Tree LL128 1.25; NET Tree LL128 8.5, Ring LL128 4.0 us; caps Ring
 * LL128 36.7, Tree LL128 36.7, Tree 41.4 (2 nodes) GB/s per channel. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "test_support.h"

static char *out, *err;

/* Writes the selector's program (with the platform in `platform`) and the
 * spelled-out generator's (the ring takes no platform) into two .dag files
 * and checks that they are the same bytes; returns gen's stderr of the
 * selector (the caller frees). */
static char *same_program(const char *selector, const char *picked, const char *options,
                          const char *platform, int picked_platform) {
  char *a = fs_test_temp_path(".dag"), *b = fs_test_temp_path(".dag");
  ck_assert_msg(fennelsim("gen %s %s %s -o %s", selector, options, platform, a) == 0, "%s", err);
  char *said = strdup(err);
  ck_assert_msg(fennelsim("gen %s %s %s -o %s", picked, options, picked_platform ? platform : "",
                          b) == 0,
                "%s", err);
  size_t na, nb;
  char *ta = fs_test_read_file(a, &na), *tb = fs_test_read_file(b, &nb);
  ck_assert(ta && tb);
  ck_assert_int_gt(na, 0);
  ck_assert_msg(na == nb && memcmp(ta, tb, na) == 0, "%s and %s differ", selector, picked);
  free(ta), free(tb), free(a), free(b);
  return said;
}

/* Example A, 1 x 8 H100 (ring graph 12 x 30 GB/s, 24 channels), AllReduce
 * of 16 MiB = 16777216 B, k = 8, nsteps 14:
 *   Ring/LL128: busBw min(0.92 * 360, 12 * 36.7) = 331.2 GB/s, algBw
 *     331.2 * 8/14 = 189.257 GB/s, lat 14 + 14 * 1.9 = 40.6 us:
 *     40.6 + 16777216 / 189257.14 = 129.248 us;
 *   Ring/Simple: algBw 360 * 8/14 = 205.714, lat 8.4 + 14 * 3.4 = 56.0:
 *     56.0 + 81.556 = 137.556 us, the next best (Tree LL128 176, Tree
 *     Simple 209, Ring LL 223 us);
 *   channels: 24 while 16777216 >= 24 * 640 threads * 8 B = 122880.
 * So Ring/LL128 on 24 channels: allreduce-nccl-ring:channels=24:
 * protocol=LL128. */
START_TEST(example_a_one_node_ring_ll128) {
  char *said = same_program("allreduce-nccl", "allreduce-nccl-ring --channels 24 --protocol LL128",
                            "--ranks 8 --size 16MiB", "--nodes 1 --cores 8", 0);
  fs_test_contains(said, "allreduce-nccl: NCCL 2.30.7");
  fs_test_contains(said, "picks Ring/LL128 on 24 channels [8 ranks on 1 node, nBytes 16777216: "
                         "Ring/LL128 129.248 us < Ring/Simple 137.556 us (next)");
  fs_test_contains(said, "24 channels x 640 threads]: allreduce-nccl-ring:channels=24:"
                         "protocol=LL128");
  fs_test_contains(said, "predicted: Tree/LL ");
  fs_test_contains(said, "Ring/LL128 129.248 us, Ring/Simple 137.556 us");
  free(said);
}
END_TEST

/* Example B, 2 x 8 H100 with a 400 Gb/s NIC per GPU (8 x 48 GB/s, 16
 * channels), AllReduce of 1 MiB = 1048576 B, k = 16, N = 2:
 *   Tree/LL128: X = min(0.92 * 8 * 48, 8 * 41.4) = 331.2; LL128
 *     min(331.2 * 120/128 = 310.5, 8 * 36.7 = 293.6) = 293.6, algBw 146.8,
 *     x treeCorr LL128[log2(1048576/64) = 14] = 0.6: 88.08 GB/s; lat
 *     14 + 2 (7 * 1.25 + 1 * 8.5) = 48.5 us: 48.5 + 11.905 = 60.405 us;
 *   Ring/LL128: min(0.92 * 384, 293.6) * 16/30 = 156.587 GB/s, lat
 *     14 + 28 * 1.9 + 2 * 4.0 = 75.2: 75.2 + 6.696 = 81.896 us, the next;
 *   channels: all 16 (1048576 >= 16 * 640 * 8), 8 on each tree.
 * So Tree/LL128 on 16 channels, and the tree over the platform's nodes. */
START_TEST(example_b_two_nodes_tree_ll128) {
  char *said = same_program("allreduce-nccl", "allreduce-nccl-tree --channels 16 --protocol LL128",
                            "--ranks 16 --size 1MiB", "--nodes 2 --cores 8", 1);
  fs_test_contains(said, "picks Tree/LL128 on 16 channels [16 ranks on 2 nodes, nBytes 1048576: "
                         "Tree/LL128 60.405 us < Ring/LL128 81.896 us (next)");
  fs_test_contains(said, "]: allreduce-nccl-tree:channels=16:protocol=LL128");
  free(said);
}
END_TEST

/* Broadcast of 64 KiB = 65536 B on 1 x 8 (one ring order, so the latency
 * is base + one hop; nsteps = k, algBw = busBw): Ring/LL 6.6 + 0.6 = 7.2
 * us + 65536 / min(141000, 180000) = 0.465: 7.665 us; Ring/Simple 8.4 +
 * 3.4 = 11.8 + 65536 / 360000 = 0.182: 11.982 us; Ring/LL128 14 + 1.9 =
 * 15.9 + 0.198 = 16.098. Ring/LL: channels from 24 down while 65536 <
 * nc * 512 threads * 8 B * 8 ranks = nc * 32768: 2. Root 3 is passed on. */
START_TEST(bcast_one_node_ring_ll) {
  char *said = same_program("bcast-nccl", "bcast-nccl-ring --channels 2 --protocol LL",
                            "--ranks 8 --size 64KiB --root 3", "--nodes 1 --cores 8", 0);
  fs_test_contains(said, "picks Ring/LL on 2 channels [8 ranks on 1 node, nBytes 65536: "
                         "Ring/LL 7.665 us < Ring/Simple 11.982 us (next)");
  fs_test_contains(said, "bcast-nccl-ring:root=3:channels=2:protocol=LL");
  free(said);
}
END_TEST

/* AllGather's --size is the per-rank block: 16 ranks of 64 KiB make
 * nBytes = 1 MiB, as nccl-tests' size. */
START_TEST(allgather_reads_the_whole_size) {
  ck_assert_msg(fennelsim("gen allgather-nccl --ranks 16 --size 64KiB --nodes 2 --cores 8 "
                          "-o /dev/null") == 0,
                "%s", err);
  fs_test_contains(err, "[16 ranks on 2 nodes, nBytes 1048576: ");
  ck_assert_msg(fennelsim("gen reduce-scatter-nccl --ranks 16 --size 64KiB --nodes 2 --cores 8 "
                          "-o /dev/null") == 0,
                "%s", err);
  fs_test_contains(err, "[16 ranks on 2 nodes, nBytes 1048576: ");
}
END_TEST

/* The five selectors are registered as selectors of their collectives. */
START_TEST(selectors_are_registered) {
  static const char *const names[] = {"allreduce", "allgather", "reduce-scatter", "bcast",
                                      "reduce"};
  for (int i = 0; i < 5; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s-nccl", names[i]);
    const fs_generator *g = fs_generator_find(name);
    ck_assert_msg(g != NULL, "%s", name);
    ck_assert(g->traits & FS_GEN_SELECTOR);
    ck_assert_str_eq(fs_collective_name(g->collective), names[i]);
  }
}
END_TEST

/* sweep names the pick per size: Example B's 1 MiB is the tree, 64 MiB
 * Ring/LL128 (22.6 MB <= nBytes < 72.5 MB, docs/MODELS.md). */
START_TEST(sweep_names_the_pick) {
  ck_assert_msg(fennelsim("sweep allreduce-nccl --ranks 16 --size 1MiB,64MiB "
                          "--nodes 2 --cores 8 --model nccl") == 0,
                "%s", err);
  fs_test_contains(out, "allreduce-nccl-tree:channels=16:protocol=LL128");
  fs_test_contains(out, "allreduce-nccl-ring:channels=16:protocol=LL128");
}
END_TEST

/* Refusals: uneven nodes, one rank, a collective NCCL's tuning lacks is
 * not registered, and the selector takes no --protocol of its own. */
START_TEST(refusals) {
  ck_assert_int_eq(fennelsim("gen allreduce-nccl --ranks 12 --size 1MiB --nodes 2 --cores 8 "
                             "-o /dev/null"),
                   2);
  fs_test_contains(err, "NCCL's tuning takes nodes of equal GPU counts");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl --ranks 1 --size 1MiB -o /dev/null"), 2);
  fs_test_contains(err, "at least 2 ranks");
  ck_assert(fs_generator_find("alltoall-nccl") == NULL);
  ck_assert_int_ne(fennelsim("gen allreduce-nccl --ranks 8 --size 1MiB --protocol LL "
                             "-o /dev/null"),
                   0);
}
END_TEST

/* sweep --report nccl-tests takes an MSCCL schedule's collective from its
 * file (coll="allreduce": redop sum, root -1, size = --size, count = size
 * / 4 floats), and finds the file like other data files. */
START_TEST(report_reads_the_schedule_collective) {
  ck_assert_msg(fennelsim("sweep msccl:schedule=%s/schedules/msccl-allreduce-ring-8.xml "
                          "--ranks 8 --size 1MiB --model nccl --report nccl-tests",
                          FENNELSIM_SOURCE_ROOT) == 0,
                "%s", err);
  fs_test_contains(out, "     1048576        262144     float     sum      -1 ");
}
END_TEST

/* --algo allreduce=nccl in a replay (traces/sweep3d-2x2: 4 ranks, one
 * element a call): no platform, so each rank is a node (N = 4, ppn = 1,
 * NET hops take the Tree row). Tree/LL: 6.8 + 2 (0 + log2 4 * 5.0) = 26.8
 * us; Ring/LL: 6.6 + 6 steps x 5.0 = 36.6 us; LL128 and Simple only add.
 * A few bytes < 1 x 512 threads x 8 B: one channel. */
START_TEST(replay_takes_allreduce_nccl) {
  ck_assert_msg(fennelsim("run %s/traces/sweep3d-2x2 --model hockney --algo allreduce=nccl",
                          FENNELSIM_SOURCE_ROOT) == 0,
                "%s", err);
  fs_test_contains(out, "allreduce=allreduce-nccl(allreduce-nccl-tree:channels=1:protocol=LL)");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("nccl_selection");
  TCase *t = tcase_create("selection");
  tcase_add_test(t, example_a_one_node_ring_ll128);
  tcase_add_test(t, example_b_two_nodes_tree_ll128);
  tcase_add_test(t, bcast_one_node_ring_ll);
  tcase_add_test(t, allgather_reads_the_whole_size);
  tcase_add_test(t, selectors_are_registered);
  tcase_add_test(t, sweep_names_the_pick);
  tcase_add_test(t, refusals);
  tcase_add_test(t, report_reads_the_schedule_collective);
  tcase_add_test(t, replay_takes_allreduce_nccl);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(suite()); }
