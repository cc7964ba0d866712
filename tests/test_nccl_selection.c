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
 * protocol=LL128 when NVLS is off (--nvls 0, NCCL_NVLS_ENABLE=0: no note
 * and no NVLS estimate). NCCL itself, with NVLS on (the default on Hopper;
 * NVLS graph 8 x 40/60 GB/s: busBw 8 x min(40 x 0.85 x 7/8 x 2, 60) = 476,
 * algBw x 8/14 = 272 GB/s, lat 25 us) runs NVLS: 25 + 16777216 / 272000 =
 * 86.681 us, on its 16 NVLS channels, which the selector generates
 * (allreduce-nccl-nvls, nccl_nvls.c; test_nccl_nvls). */
START_TEST(example_a_one_node_ring_ll128) {
  char *said = same_program("allreduce-nccl", "allreduce-nccl-nvls --channels 16",
                            "--ranks 8 --size 16MiB", "--nodes 1 --cores 8", 0);
  ck_assert_ptr_null(strstr(said, "note:"));
  fs_test_contains(said, "picks NVLS/Simple on 16 channels");
  fs_test_contains(said, "Ring/Simple 137.556 us, NVLS/Simple 86.681 us\n");
  free(said);
  said = same_program("allreduce-nccl", "allreduce-nccl-ring --channels 24 --protocol LL128",
                      "--ranks 8 --size 16MiB", "--nodes 1 --cores 8 --nvls 0", 0);
  ck_assert_ptr_null(strstr(said, "note:"));
  ck_assert_ptr_null(strstr(said, "NVLS"));
  fs_test_contains(said, "allreduce-nccl: NCCL 2.30.7");
  fs_test_contains(said, "picks Ring/LL128 on 24 channels [8 ranks on 1 node of hopper GPUs, "
                         "nBytes 16777216: "
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
 * So Tree/LL128 on 16 channels, and the tree over the platform's nodes.
 * With NVLS (Hopper's default; NVLS graph 8 x 40/48 GB/s) NVLSTree is the
 * next instead: per channel min(40 x 0.85 x 7/8 x 2 = 59.5, 2 x 48, cap
 * 57.7) = 57.7, x 8 x 16/30 = 246.187 GB/s, lat 25 + 2 x 20.9 = 66.8 us:
 * 66.8 + 4.259 = 71.059 us. */
START_TEST(example_b_two_nodes_tree_ll128) {
  char *said = same_program("allreduce-nccl", "allreduce-nccl-tree --channels 16 --protocol LL128",
                            "--ranks 16 --size 1MiB", "--nodes 2 --cores 8", 1);
  fs_test_contains(said, "picks Tree/LL128 on 16 channels [16 ranks on 2 nodes of hopper GPUs, "
                         "nBytes 1048576: "
                         "Tree/LL128 60.405 us < NVLSTree/Simple 71.059 us (next)");
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
  fs_test_contains(said,
                   "picks Ring/LL on 2 channels [8 ranks on 1 node of hopper GPUs, nBytes 65536: "
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
  fs_test_contains(err, "[16 ranks on 2 nodes of hopper GPUs, nBytes 1048576: ");
  ck_assert_msg(fennelsim("gen reduce-scatter-nccl --ranks 16 --size 64KiB --nodes 2 --cores 8 "
                          "-o /dev/null") == 0,
                "%s", err);
  fs_test_contains(err, "[16 ranks on 2 nodes of hopper GPUs, nBytes 1048576: ");
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
 * Ring/LL128 without NVLS (22.6 MB <= nBytes < 72.5 MB, docs/MODELS.md)
 * and NVLSTree with it (from 2509821 B; test_nccl_nvlstree), whose 16
 * GPUs and 2 switches do not fit the 16 cores: that cell is skipped. */
START_TEST(sweep_names_the_pick) {
  ck_assert_msg(fennelsim("sweep allreduce-nccl:nvls=0 --ranks 16 --size 1MiB,64MiB "
                          "--nodes 2 --cores 8 --model nccl") == 0,
                "%s", err);
  fs_test_contains(out, "allreduce-nccl-tree:channels=16:protocol=LL128");
  fs_test_contains(out, "allreduce-nccl-ring:channels=16:protocol=LL128");
  ck_assert_msg(fennelsim("sweep allreduce-nccl --ranks 16 --size 64MiB "
                          "--nodes 2 --cores 8 --model nccl") == 0,
                "%s", err);
  fs_test_contains(out, "allreduce-nccl-nvlstree:channels=16:protocol=Simple");
  fs_test_contains(out, "expected at most 16 ranks on 2 nodes x 8 cores (got 18)");
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

/* The GPU generation: Ampere's typical node is a ring graph of 12 x 20
 * GB/s and has no NVLS. 1 x 8, 16 MiB: Ring/LL128 busBw min(0.92 x 240,
 * 12 x 20) = 220.8, algBw x 8/14 = 126.171 GB/s, 40.6 + 132.972 = 173.572
 * us; Ring/Simple 240 x 8/14 = 137.143, 56.0 + 122.334 = 178.334 us. The
 * spec key gpu=ampere says the same in a sweep. */
START_TEST(gpu_generation) {
  char *said = same_program("allreduce-nccl", "allreduce-nccl-ring --channels 24 --protocol LL128",
                            "--ranks 8 --size 16MiB", "--nodes 1 --cores 8 --gpu ampere", 0);
  fs_test_contains(said, "[8 ranks on 1 node of ampere GPUs, nBytes 16777216: Ring/LL128 "
                         "173.572 us < Ring/Simple 178.334 us (next)");
  ck_assert_ptr_null(strstr(said, "NVLS"));
  free(said);
  ck_assert_msg(fennelsim("sweep allreduce-nccl:gpu=ampere:nvls=0 --ranks 8 --size 16MiB "
                          "--nodes 1 --cores 8 --model nccl") == 0,
                "%s", err);
  fs_test_contains(out, "allreduce-nccl:gpu=ampere:nvls=0 ");
  fs_test_contains(out, "allreduce-nccl-ring:channels=24:protocol=LL128");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl --gpu kepler --ranks 8 --size 1MiB -o /dev/null"),
                   2);
  fs_test_contains(err, "--gpu kepler: expected volta, ampere, hopper or blackwell");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl --nvls 2 --ranks 8 --size 1MiB -o /dev/null"), 2);
  fs_test_contains(err, "--nvls 2: expected 0 or 1");
  ck_assert_int_eq(fennelsim("sweep allreduce-nccl:collnet=yes --ranks 8 --size 1MiB"), 2);
  fs_test_contains(err, "collnet=yes: expected 0 or 1");
  ck_assert_int_eq(fennelsim("gen allreduce-nccl-ring --gpu volta --ranks 4 --size 1KiB "
                             "-o /dev/null"),
                   2);
  fs_test_contains(err, "--gpu/--nvls/--collnet does not apply to allreduce-nccl-ring");
}
END_TEST

/* CollNet on (NCCL_COLLNET_ENABLE=1), NVLS off, example B (2 x 8, 1 MiB):
 * NCCL's CollNetDirect (graph 8 heads x 48 GB/s: busBw 8 x 48 / ((8/8 +
 * 1) / 2) x 0.85 = 326.4, x 0.5 = 163.2 GB/s; lat 2 (3.7 + 7 x 0.4) + 31
 * = 44 us): 44 + 1048576 / 163200 = 50.425 us, on 2 channels
 * (test_nccl_collnet derives them); fennelsim generates it
 * (allreduce-nccl-collnet-direct), so no note; next Tree/LL128 60.405 us
 * (example B). */
START_TEST(collnet_note) {
  char *said = same_program("allreduce-nccl --collnet 1 --nvls 0",
                            "allreduce-nccl-collnet-direct --channels 2", "--ranks 16 --size 1MiB",
                            "--nodes 2 --cores 8", 1);
  ck_assert_ptr_null(strstr(said, "note:"));
  fs_test_contains(said, "CollNetDirect/Simple 50.425 us < Tree/LL128 60.405 us (next)");
  fs_test_contains(said, "CollNetDirect/Simple 50.425 us, CollNetChain/Simple 74.661 us");
  free(said);
}
END_TEST

/* PAT: allgather of 64 KiB per rank on 8 ranks, each a node (ppn = 1):
 * nBytes 524288; tree graph 8 x 48 GB/s: PAT busBw 8 x 48 x 0.75 = 288
 * GB/s (no conversion), lat 8 + log2(8) x 14 / 3.5 + 8 x 2.8 = 42.4 us:
 * 42.4 + 1.820 = 44.220 us, the least (Ring/LL: 41.6 + 524288 x 7 /
 * 163200 = 64.088 us), on all 16 channels. fennelsim generates PAT by
 * the registry's allgather-nccl-pat: where that generator is not built in,
 * the selector says so and fails. */
START_TEST(pat_by_name) {
  int built = fs_generator_find("allgather-nccl-pat") != NULL;
  int status = fennelsim("gen allgather-nccl --ranks 8 --size 64KiB -o /dev/null");
  if (!built) {
    ck_assert_int_eq(status, 2);
    fs_test_contains(err, "allgather-nccl: NCCL picks PAT/Simple, whose generator "
                          "allgather-nccl-pat is not in this build");
    return;
  }
  ck_assert_msg(status == 0, "%s", err);
  fs_test_contains(err, "picks PAT/Simple on 16 channels [8 ranks on 8 nodes of hopper GPUs, "
                        "nBytes 524288: PAT/Simple 44.220 us");
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
  tcase_add_test(t, gpu_generation);
  tcase_add_test(t, collnet_note);
  tcase_add_test(t, pat_by_name);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(suite()); }
