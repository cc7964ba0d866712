/* test_nccl_tuning.c: NCCL 2.30.7's cost model and choice (platform/nccl_tuning.h,
 * issue 21): the two worked examples number by number (latency and algBw
 * tables, the times at one size, the pick and its channels), the switch
 * points of five cases one byte either side of the exact crossover of the
 * formulas, ties, the channel count, the masks, LL128's enabling, the
 * Broadcast/Reduce latencies, the constants the model reads, the
 * bandwidth parser and the refusals.
 *
 * Units: latencies in ps, bandwidths as exact fractions of MB/s (bytes per
 * us); a time is lat + bytes * 1e6 / algBw ps, rounded to the nearest. */
#include <check.h>
#include <string.h>

#include "platform/nccl_tuning.h"
#include "test_support.h"

#define KIB 1024
#define MIB (1024 * 1024)
#define LL FS_PROTOCOL_LL
#define LL128 FS_PROTOCOL_LL128
#define SIMPLE FS_PROTOCOL_SIMPLE
#define TREE FS_NCCL_TREE
#define RING FS_NCCL_RING

/* Example A: 1 x 8 H100 over NVSwitch, ring and tree graphs 12 x 30 GB/s. */
static fs_nccl_call one_node(fs_nccl_collective c, int64_t bytes) {
  return (fs_nccl_call){.collective = c,
                        .ranks = 8,
                        .nodes = 1,
                        .gpu = FS_NCCL_HOPPER,
                        .cpu = FS_NCCL_INTEL,
                        .intra = FS_NCCL_NVLINK,
                        .channels = 12,
                        .bw_intra = 30000,
                        .bw_inter = 30000,
                        .bytes = bytes};
}

/* Example B: 2 x 8 H100, one 400 Gb/s NIC per GPU, Intel hosts, 8 x 48 GB/s. */
static fs_nccl_call two_nodes(fs_nccl_collective c, int64_t bytes) {
  fs_nccl_call call = one_node(c, bytes);
  call.ranks = 16, call.nodes = 2, call.channels = 8;
  call.bw_intra = call.bw_inter = 48000;
  return call;
}

static fs_nccl_decision decide(fs_nccl_call call) {
  fs_nccl_decision d;
  fs_error err = {{0}};
  ck_assert_msg(fs_nccl_decide(&call, &d, &err) == 0, "%s", err.message);
  return d;
}

static const fs_nccl_estimate *at(const fs_nccl_decision *d, int a, int p) {
  return &d->estimate[a][p - 1];
}

static void assert_rate(fs_nccl_rate r, int64_t num, int64_t den) {
  ck_assert_int_eq(r.num, num);
  ck_assert_int_eq(r.den, den);
}

/* The pick at bytes. */
static void assert_pick(fs_nccl_call call, int64_t bytes, int a, int p) {
  call.bytes = bytes;
  fs_nccl_decision d = decide(call);
  ck_assert_msg(d.algorithm == (fs_nccl_algorithm)a && d.protocol == p,
                "%lld B: %s/%s, expected %s/%s (%s)", (long long)bytes,
                fs_nccl_algorithm_name(d.algorithm), fs_protocol_name(d.protocol),
                fs_nccl_algorithm_name(a), fs_protocol_name(p), d.rule);
}

/* Example A's tables (AllReduce, k = 8, nsteps = 14, llMaxBw 141 GB/s):
 * Ring busBw 12 x 30000 = 360000: LL min(141000, 180000) = 141000, LL128
 * min(0.92 x 360000 = 331200, 12 x 36700 = 440400) = 331200, Simple 360000;
 * algBw x 8/14: 564000/7 (80.571 GB/s), 1324800/7 (189.257), 1440000/7
 * (205.714). Ring lat = base + 14 hop: LL 6.6 + 14 x 0.6 = 15.0 us, LL128
 * 14 + 14 x 1.9 = 40.6, Simple 8.4 + 14 x 3.4 = 56.0.
 * Tree: X = min(331200, 12 x 38700 = 464400) = 331200: LL min(331200 x 5/19
 * = 1656000/19, 141000), LL128 min(331200 x 7/9 = 257600, 440400), Simple
 * 331200; x 1/2: 828000/19 (43.579), 128800, 165600. Tree lat = base + 2 x
 * 7 hop: LL 6.8 + 14 x 0.6 = 15.2, LL128 14 + 14 x 1.25 = 31.5, Simple 8.4
 * + 14 x 4 = 64.4.
 * At 16 MiB = 16777216 B (log2(16 MiB / 64) = 18: treeCorr LL 0.9, LL128
 * 0.9, Simple 0.7), time = lat + 16777216e6 / algBw' ps:
 *   Tree LL     15.2 us + 16777216e6 x 19 / 745200 = 442960472.356 -> 442960472
 *   Tree LL128  31.5 us + 16777216e6 / 115920      = 176230986.888 -> 176230987
 *   Tree Simple 64.4 us + 16777216e6 / 115920      = 209130986.888 -> 209130987
 *   Ring LL     15.0 us + 16777216e6 x 7 / 564000  = 223227858.156 -> 223227858
 *   Ring LL128  40.6 us + 16777216e6 x 7 / 1324800 = 129247729.469 -> 129247729
 *   Ring Simple 56.0 us + 16777216e6 x 7 / 1440000 = 137555911.111 -> 137555911
 * (the notes' 223.2, 129.2, 137.6, 176.2, 209.1 us). Pick Ring/LL128, on
 * all 24 channels (16 MiB >= 24 x 640 x 8 = 122880) with 640 threads. */
START_TEST(example_a_one_node_allreduce) {
  fs_nccl_decision d = decide(one_node(FS_NCCL_ALLREDUCE, 16 * MIB));
  ck_assert_int_eq(at(&d, TREE, LL)->latency, 15200000);
  ck_assert_int_eq(at(&d, TREE, LL128)->latency, 31500000);
  ck_assert_int_eq(at(&d, TREE, SIMPLE)->latency, 64400000);
  ck_assert_int_eq(at(&d, RING, LL)->latency, 15000000);
  ck_assert_int_eq(at(&d, RING, LL128)->latency, 40600000);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 56000000);
  assert_rate(at(&d, TREE, LL)->bandwidth, 828000, 19);
  assert_rate(at(&d, TREE, LL128)->bandwidth, 128800, 1);
  assert_rate(at(&d, TREE, SIMPLE)->bandwidth, 165600, 1);
  assert_rate(at(&d, RING, LL)->bandwidth, 564000, 7);
  assert_rate(at(&d, RING, LL128)->bandwidth, 1324800, 7);
  assert_rate(at(&d, RING, SIMPLE)->bandwidth, 1440000, 7);
  assert_rate(at(&d, TREE, LL)->used_bandwidth, 745200, 19);
  assert_rate(at(&d, TREE, LL128)->used_bandwidth, 115920, 1);
  assert_rate(at(&d, TREE, SIMPLE)->used_bandwidth, 115920, 1);
  ck_assert_int_eq(at(&d, TREE, LL)->time, 442960472);
  ck_assert_int_eq(at(&d, TREE, LL128)->time, 176230987);
  ck_assert_int_eq(at(&d, TREE, SIMPLE)->time, 209130987);
  ck_assert_int_eq(at(&d, RING, LL)->time, 223227858);
  ck_assert_int_eq(at(&d, RING, LL128)->time, 129247729);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->time, 137555911);
  for (int a = 0; a < FS_NCCL_ALGORITHMS; a++)
    for (int p = LL; p <= SIMPLE; p++) {
      ck_assert_int_eq(at(&d, a, p)->enabled, a == TREE || a == RING); /* no NVLS, CollNet */
      ck_assert_int_eq(at(&d, a, p)->used_latency, at(&d, a, p)->latency);
    }
  ck_assert_int_eq(d.algorithm, RING);
  ck_assert_int_eq(d.protocol, LL128);
  ck_assert_int_eq(d.time, 129247729);
  ck_assert_int_eq(d.channels, 24);
  ck_assert_int_eq(d.threads, 640);
  ck_assert_str_eq(d.rule, "Ring/LL128 129.248 us < Ring/Simple 137.556 us (next), the least "
                           "predicted time; 24 channels x 640 threads");
  ck_assert_double_eq_tol(fs_nccl_rate_gbps(at(&d, RING, LL128)->bandwidth), 189.257, 0.001);
}
END_TEST

/* Example B's tables (AllReduce, k = 16, N = 2, nsteps = 30, Intel:
 * llMaxBw 39 GB/s, net overhead 1 us). Ring busBw 8 x 48000 = 384000: LL
 * min(39000, 192000) = 39000, LL128 min(353280, 8 x 36700 = 293600) =
 * 293600, Simple 384000; x 16/30: 20800, 469760/3 (156.587 GB/s), 204800.
 * Ring lat = base + 28 max(hop, overhead) + 2 NET hop: LL 6.6 + 28 x 1.0 +
 * 2 x 2.7 = 40.0 us, LL128 14 + 28 x 1.9 + 2 x 4 = 75.2, Simple 8.4 + 28 x
 * 3.4 + 2 x 14 = 131.6 (x 1.4 = 184.24 from 64 x 16 x 16 = 16 KiB on).
 * Tree: X = min(353280, 8 x 41400 = 331200) = 331200: LL min(87157.9,
 * 39000) = 39000, LL128 min(331200 x 15/16 = 310500, 293600) = 293600,
 * Simple 331200; x 1/2: 19500, 146800, 165600. Tree lat = base + 2(7 hop +
 * log2(2) NET hop): LL 6.8 + 2(4.2 + 5) = 25.2, LL128 14 + 2(8.75 + 8.5) =
 * 48.5, Simple 8.4 + 2(28 + 14) = 92.4.
 * At 1 MiB (log2(1 MiB / 64) = 14: treeCorr LL 0.5, LL128 0.6, Simple 0.5):
 *   Tree LL     25.2 us + 1048576e6 / 9750    = 132746256.410 -> 132746256
 *   Tree LL128  48.5 us + 1048576e6 / 88080   =  60404813.806 ->  60404814
 *   Tree Simple 92.4 us + 1048576e6 / 82800   = 105063961.353 -> 105063961
 *   Ring LL     40.0 us + 1048576e6 / 20800   =  90412307.692 ->  90412308
 *   Ring LL128  75.2 us + 1048576e6 x 3/469760 = 81896457.766 ->  81896458
 *   Ring Simple 184.24 us + 1048576e6 / 204800 = 189360000
 * (the notes' 132.7, 60.4, 105.1, 90.4, 81.9, 189.4 us). Pick Tree/LL128 on
 * the 16 channels (1 MiB >= 16 x 640 x 8 = 81920), 640 threads. */
START_TEST(example_b_two_node_allreduce) {
  fs_nccl_decision d = decide(two_nodes(FS_NCCL_ALLREDUCE, MIB));
  ck_assert_int_eq(at(&d, TREE, LL)->latency, 25200000);
  ck_assert_int_eq(at(&d, TREE, LL128)->latency, 48500000);
  ck_assert_int_eq(at(&d, TREE, SIMPLE)->latency, 92400000);
  ck_assert_int_eq(at(&d, RING, LL)->latency, 40000000);
  ck_assert_int_eq(at(&d, RING, LL128)->latency, 75200000);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 131600000);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->used_latency, 184240000);
  assert_rate(at(&d, TREE, LL)->bandwidth, 19500, 1);
  assert_rate(at(&d, TREE, LL128)->bandwidth, 146800, 1);
  assert_rate(at(&d, TREE, SIMPLE)->bandwidth, 165600, 1);
  assert_rate(at(&d, RING, LL)->bandwidth, 20800, 1);
  assert_rate(at(&d, RING, LL128)->bandwidth, 469760, 3);
  assert_rate(at(&d, RING, SIMPLE)->bandwidth, 204800, 1);
  ck_assert_int_eq(at(&d, TREE, LL)->time, 132746256);
  ck_assert_int_eq(at(&d, TREE, LL128)->time, 60404814);
  ck_assert_int_eq(at(&d, TREE, SIMPLE)->time, 105063961);
  ck_assert_int_eq(at(&d, RING, LL)->time, 90412308);
  ck_assert_int_eq(at(&d, RING, LL128)->time, 81896458);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->time, 189360000);
  ck_assert_int_eq(d.algorithm, TREE);
  ck_assert_int_eq(d.protocol, LL128);
  ck_assert_int_eq(d.channels, 16);
  ck_assert_int_eq(d.threads, 640);
}
END_TEST

/* The ring plateau starts at bytes / (16 channels x 16 ranks) >= 64, i.e.
 * 16384 B: 16383 B keeps 131.6 us, 16384 B pays 184.24 us. */
START_TEST(ring_plateau_starts_at_64_bytes_per_channel_and_rank) {
  fs_nccl_decision d = decide(two_nodes(FS_NCCL_ALLREDUCE, 16383));
  ck_assert_int_eq(at(&d, RING, SIMPLE)->used_latency, 131600000);
  d = decide(two_nodes(FS_NCCL_ALLREDUCE, 16384));
  ck_assert_int_eq(at(&d, RING, SIMPLE)->used_latency, 184240000);
  /* Volta: x 1.9 = 250.04 us; one node: no plateau */
  fs_nccl_call volta = two_nodes(FS_NCCL_ALLREDUCE, 16384);
  volta.gpu = FS_NCCL_VOLTA;
  d = decide(volta);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->used_latency, 250040000);
  d = decide(one_node(FS_NCCL_ALLREDUCE, 16 * MIB));
  ck_assert_int_eq(at(&d, RING, SIMPLE)->used_latency, 56000000);
}
END_TEST

/* 1 x 8 AllReduce (tables of example A; Tree never wins here). Ring/LL ->
 * Ring/LL128 where 15.0 + 7n/564000 = 40.6 + 7n/1324800 (us), n = 25.6 /
 * (7/564000 - 7/1324800) = 7969996800/2219 = 3591706.53: LL at 3591706,
 * LL128 at 3591707. Ring/LL128 -> Ring/Simple where 40.6 + 7n/1324800 =
 * 56.0 + 7n/1440000: n = 15.4 / (7/1324800 - 7/1440000) = 36432000 exactly,
 * a tie that LL128 (scanned first, strict <) keeps; Simple from 36432001. */
START_TEST(switch_points_one_node_allreduce) {
  fs_nccl_call c = one_node(FS_NCCL_ALLREDUCE, 0);
  assert_pick(c, 0, RING, LL);
  assert_pick(c, 3591706, RING, LL);
  assert_pick(c, 3591707, RING, LL128);
  assert_pick(c, 36432000, RING, LL128);
  assert_pick(c, 36432001, RING, SIMPLE);
  assert_pick(c, (int64_t)1 << 40, RING, SIMPLE);
  c.bytes = 36432000;
  fs_nccl_decision d = decide(c);
  ck_assert_int_eq(at(&d, RING, LL128)->time, at(&d, RING, SIMPLE)->time);
  /* 40.6 + 36432000 x 7/1324800 = 40.6 + 192.5 us = 56.0 + 36432000 x 7/1440000 */
  ck_assert_int_eq(at(&d, RING, LL128)->time, 233100000);
}
END_TEST

/* 1 x 8 AllGather and ReduceScatter: nsteps 7, algBw x 8/7: LL 1128000/7,
 * LL128 2649600/7, Simple 2880000/7; lat LL 6.6 + 7 x 0.6 = 10.8 us, LL128
 * 14 + 7 x 1.9 = 27.3, Simple 8.4 + 7 x 3.4 = 32.2. LL -> LL128 at n =
 * 16.5 / (7/1128000 - 7/2649600) = 10273824000/2219 = 4629934.20; LL128 ->
 * Simple at n = 4.9 / (7/2649600 - 7/2880000) = 23184000 exactly (a tie,
 * kept by LL128). */
START_TEST(switch_points_one_node_allgather_reducescatter) {
  for (int coll = FS_NCCL_ALLGATHER; coll <= FS_NCCL_REDUCESCATTER; coll++) {
    fs_nccl_call c = one_node(coll, 0);
    assert_pick(c, 4629934, RING, LL);
    assert_pick(c, 4629935, RING, LL128);
    assert_pick(c, 23184000, RING, LL128);
    assert_pick(c, 23184001, RING, SIMPLE);
    c.bytes = MIB;
    fs_nccl_decision d = decide(c);
    ck_assert_int_eq(at(&d, TREE, LL)->enabled, 0);
    ck_assert_int_eq(at(&d, RING, LL)->latency, 10800000);
    ck_assert_int_eq(at(&d, RING, LL128)->latency, 27300000);
    ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 32200000);
    assert_rate(at(&d, RING, LL128)->bandwidth, 2649600, 7);
  }
}
END_TEST

/* 2 x 8 AllReduce (tables of example B). Tree/LL -> Tree/LL128 in
 * [128 KiB, 256 KiB) (treeCorr index 11: LL 0.5, LL128 0.6), where 25.2 +
 * n/9750 = 48.5 + n/88080: n = 23.3 / (1/9750 - 1/88080) = 666985800/2611
 * = 255452.24. Tree/LL128 -> Ring/LL128 in [16 MiB, 32 MiB) (index 18:
 * LL128 0.9, algBw' 132120), where 48.5 + n/132120 = 75.2 + 3n/469760: n =
 * 26.7 / (1/132120 - 3/469760) = 112883328/5 = 22576665.6. Ring/LL128 ->
 * Ring/Simple (plateau 184.24 us), where 75.2 + 3n/469760 = 184.24 +
 * n/204800: n = 109.04 / (3/469760 - 1/204800) = 8195620864/113 =
 * 72527618.27. */
START_TEST(switch_points_two_node_allreduce) {
  fs_nccl_call c = two_nodes(FS_NCCL_ALLREDUCE, 0);
  assert_pick(c, 8, TREE, LL);
  assert_pick(c, 255452, TREE, LL);
  assert_pick(c, 255453, TREE, LL128);
  assert_pick(c, 22576665, TREE, LL128);
  assert_pick(c, 22576666, RING, LL128);
  assert_pick(c, 72527618, RING, LL128);
  assert_pick(c, 72527619, RING, SIMPLE);
}
END_TEST

/* 2 x 8 AllGather and ReduceScatter: nsteps 15, nInter 1, algBw x 16/15:
 * LL 39000 x 16/15 = 41600, LL128 293600 x 16/15, Simple 384000 x 16/15;
 * lat LL 6.6 + 14 x 1 + 2.7 = 23.3 us, LL128 14 + 14 x 1.9 + 4 = 44.6,
 * Simple 8.4 + 14 x 3.4 + 14 = 70.0 (no plateau: AllReduce only). LL ->
 * LL128 at n = 21.3 / (15/624000 - 15/4697600) = 1300765440/1273 =
 * 1021811.03; LL128 -> Simple at n = 25.4 / (15/4697600 - 15/6144000) =
 * 3818209280/113 = 33789462.65. */
START_TEST(switch_points_two_node_allgather_reducescatter) {
  for (int coll = FS_NCCL_ALLGATHER; coll <= FS_NCCL_REDUCESCATTER; coll++) {
    fs_nccl_call c = two_nodes(coll, 0);
    assert_pick(c, 1021811, RING, LL);
    assert_pick(c, 1021812, RING, LL128);
    assert_pick(c, 33789462, RING, LL128);
    assert_pick(c, 33789463, RING, SIMPLE);
    c.bytes = 1;
    fs_nccl_decision d = decide(c);
    ck_assert_int_eq(at(&d, RING, LL)->latency, 23300000);
    ck_assert_int_eq(at(&d, RING, LL128)->latency, 44600000);
    ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 70000000);
    assert_rate(at(&d, RING, LL)->bandwidth, 41600, 1);
  }
}
END_TEST

/* Broadcast and Reduce: Ring only, nsteps = k = 8, algBw x 8/8. Same ring
 * order on every channel: lat = base + one hop (NVLink on one node): LL
 * 6.6 + 0.6 = 7.2 us, LL128 14 + 1.9 = 15.9, Simple 8.4 + 3.4 = 11.8.
 * Distinct rings: base + 8 hops, Simple with Tree's hop: LL 6.6 + 4.8 =
 * 11.4, LL128 14 + 15.2 = 29.2, Simple 8.4 + 8 x 4 = 40.4. On 2 nodes the
 * hop is NET's: Simple 8.4 + 14 = 22.4. */
START_TEST(broadcast_and_reduce_latencies) {
  for (int coll = FS_NCCL_BROADCAST; coll <= FS_NCCL_REDUCE; coll++) {
    fs_nccl_call c = one_node(coll, KIB);
    fs_nccl_decision d = decide(c);
    ck_assert_int_eq(at(&d, RING, LL)->latency, 7200000);
    ck_assert_int_eq(at(&d, RING, LL128)->latency, 15900000);
    ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 11800000);
    assert_rate(at(&d, RING, SIMPLE)->bandwidth, 360000, 1);
    ck_assert_int_eq(at(&d, TREE, SIMPLE)->enabled, 0);
    c.distinct_rings = 1;
    d = decide(c);
    ck_assert_int_eq(at(&d, RING, LL)->latency, 11400000);
    ck_assert_int_eq(at(&d, RING, LL128)->latency, 29200000);
    ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 40400000);
    d = decide(two_nodes(coll, KIB));
    ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 22400000);
  }
}
END_TEST

/* Channels: nc drops while bytes < nc x nt x thr. Ring/LL on 8 ranks: thr
 * 8 x 8 = 64, nt 512: 32 KiB a channel, so 256 KiB runs on 8 of the 24
 * channels with 512 threads and 256 KiB - 1 on 7. 1 KiB: 1 channel, then
 * nt halves while 1024 < nt x 64 and nt % 128 == 0: 256, 128, 64, and is
 * raised to 3 warps, 96. */
START_TEST(channels_for_the_size) {
  fs_nccl_decision d = decide(one_node(FS_NCCL_ALLREDUCE, 256 * KIB));
  ck_assert_int_eq(d.protocol, LL);
  ck_assert_int_eq(d.channels, 8);
  ck_assert_int_eq(d.threads, 512);
  d = decide(one_node(FS_NCCL_ALLREDUCE, 256 * KIB - 1));
  ck_assert_int_eq(d.channels, 7);
  ck_assert_int_eq(d.threads, 512);
  d = decide(one_node(FS_NCCL_ALLREDUCE, KIB));
  ck_assert_int_eq(d.channels, 1);
  ck_assert_int_eq(d.threads, 96);
  /* Ring/Simple at 64 MiB: 24 channels, 512 + one warp */
  d = decide(one_node(FS_NCCL_ALLREDUCE, 64 * MIB));
  ck_assert_int_eq(d.protocol, SIMPLE);
  ck_assert_int_eq(d.channels, 24);
  ck_assert_int_eq(d.threads, 544);
  /* Tree/LL at 8 B on 2 x 8: 1 channel, Tree always 640 threads */
  d = decide(two_nodes(FS_NCCL_ALLREDUCE, 8));
  ck_assert_int_eq(d.channels, 1);
  ck_assert_int_eq(d.threads, 640);
}
END_TEST

/* NCCL_ALGO / NCCL_PROTO as masks, LL128 off over PCI, and the errors. */
START_TEST(masks_enabling_and_errors) {
  fs_nccl_call c = one_node(FS_NCCL_ALLREDUCE, 16 * MIB);
  c.protocols = 1u << SIMPLE;
  fs_nccl_decision d = decide(c);
  ck_assert_int_eq(d.algorithm, RING);
  ck_assert_int_eq(d.protocol, SIMPLE);
  ck_assert_int_eq(d.time, 137555911);
  c.algorithms = 1u << TREE; /* Tree/Simple: 209.131 us */
  d = decide(c);
  ck_assert_int_eq(d.algorithm, TREE);
  ck_assert_int_eq(d.time, 209130987);
  ck_assert_str_eq(d.rule, "Tree/Simple 209.131 us, the least predicted time; 24 channels x 640 "
                           "threads");
  /* PCI: no LL128; 16 MiB then goes to Ring/Simple */
  c = one_node(FS_NCCL_ALLREDUCE, 16 * MIB);
  c.intra = FS_NCCL_PCI;
  d = decide(c);
  ck_assert_int_eq(at(&d, RING, LL128)->enabled, 0);
  ck_assert_int_eq(at(&d, TREE, LL128)->enabled, 0);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 8400000 + 14 * 5700000);
  ck_assert_int_eq(d.protocol, SIMPLE);

  fs_error err = {{0}};
  c = one_node(FS_NCCL_ALLGATHER, KIB);
  c.algorithms = 1u << TREE;
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  ck_assert_str_eq(err.message, "nccl: no algorithm and protocol enabled for allgather");
  c = one_node(FS_NCCL_ALLREDUCE, KIB);
  c.ranks = 1;
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  ck_assert_str_eq(err.message, "nccl: 1 ranks: expected 2 to 1048576");
  c.ranks = 8, c.nodes = 3;
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  ck_assert_str_eq(err.message, "nccl: 3 nodes: expected a divisor of the 8 ranks");
  c.nodes = 1, c.channels = 33;
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  ck_assert_str_eq(err.message, "nccl: 33 channels: expected 1 to 32");
  c.channels = 12, c.bw_inter = 0;
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  c.bw_inter = 1, c.bytes = -1;
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  c.bytes = FS_SIZE_LIMIT; /* the largest size: the time saturates, no overflow */
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), 0);
  ck_assert_int_eq(d.time, FS_TIME_LIMIT);
}
END_TEST

/* What the model reads: per-channel ring rates. Hopper, 1 node, 30 GB/s a
 * channel: LL min(15000, 141000 / 1) = 15000, LL128 min(27600, 36700) =
 * 27600, Simple 30000; LL on 12 channels min(15000, 141000/12 = 11750) =
 * 11750; 2 nodes, Intel: llMaxBw 39000 / 4 channels = 9750; LL128 over 48
 * GB/s: min(44160, 36700) = 36700. 3000 B at 30 GB/s: 100 ns. */
START_TEST(constants_and_channel_rates) {
  assert_rate(fs_nccl_channel_rate(FS_NCCL_HOPPER, FS_NCCL_INTEL, 1, 30000, LL, 1), 15000, 1);
  assert_rate(fs_nccl_channel_rate(FS_NCCL_HOPPER, FS_NCCL_INTEL, 1, 30000, LL128, 1), 27600, 1);
  assert_rate(fs_nccl_channel_rate(FS_NCCL_HOPPER, FS_NCCL_INTEL, 1, 30000, SIMPLE, 1), 30000, 1);
  assert_rate(fs_nccl_channel_rate(FS_NCCL_HOPPER, FS_NCCL_INTEL, 1, 30000, LL, 12), 11750, 1);
  assert_rate(fs_nccl_channel_rate(FS_NCCL_HOPPER, FS_NCCL_INTEL, 2, 48000, LL, 4), 9750, 1);
  assert_rate(fs_nccl_channel_rate(FS_NCCL_HOPPER, FS_NCCL_INTEL, 2, 48000, LL128, 4), 36700, 1);
  ck_assert_int_eq(fs_nccl_rate_time((fs_nccl_rate){30000, 1}, 3000), 100000);
  ck_assert_int_eq(fs_nccl_rate_time((fs_nccl_rate){3, 1}, 1), 333333); /* 333333.3 */
  ck_assert_int_eq(fs_nccl_rate_time((fs_nccl_rate){8, 1}, 1), 125000);
  ck_assert_int_eq(fs_nccl_rate_time((fs_nccl_rate){16, 1}, 1), 62500);
  ck_assert_int_eq(fs_nccl_rate_time((fs_nccl_rate){1600000, 1}, 1), 1); /* 0.625 -> 1 */
  ck_assert_int_eq(fs_nccl_rate_time((fs_nccl_rate){2000000, 1}, 1), 1); /* 0.5 -> 1 */
  ck_assert_int_eq(fs_nccl_base_latency(RING, LL128), 14000000);
  ck_assert_int_eq(fs_nccl_hop_latency(FS_NCCL_NET, TREE, SIMPLE), 14000000);
  ck_assert_int_eq(fs_nccl_hop_latency(FS_NCCL_PCI, RING, LL), 1000000);
  ck_assert_int_eq(fs_nccl_net_overhead(FS_NCCL_AMD), 2000000);
  ck_assert_int_eq(fs_nccl_ll_max_bandwidth(FS_NCCL_BLACKWELL, FS_NCCL_AMD, 1), 282000);
  ck_assert_int_eq(fs_nccl_ll_max_bandwidth(FS_NCCL_BLACKWELL, FS_NCCL_AMD, 3), 19000);
  ck_assert_int_eq(fs_nccl_ring_ll128_cap(FS_NCCL_VOLTA, 3), 20000);
  ck_assert_int_eq(fs_nccl_default_bandwidth(FS_NCCL_HOPPER, FS_NCCL_NVLINK), 30000);
  ck_assert_int_eq(fs_nccl_default_bandwidth(FS_NCCL_HOPPER, FS_NCCL_NET), 48000);
}
END_TEST

START_TEST(names_and_bandwidth_text) {
  ck_assert_int_eq(fs_nccl_gpu_find("hopper"), FS_NCCL_HOPPER);
  ck_assert_int_eq(fs_nccl_gpu_find("Hopper"), -1);
  ck_assert_int_eq(fs_nccl_link_find("pci"), FS_NCCL_PCI);
  ck_assert_int_eq(fs_nccl_cpu_find("amd"), FS_NCCL_AMD);
  ck_assert_str_eq(fs_nccl_collective_name(FS_NCCL_REDUCESCATTER), "reducescatter");
  ck_assert_str_eq(fs_nccl_algorithm_name(RING), "Ring");
  ck_assert_str_eq(fs_nccl_gpu_name(FS_NCCL_BLACKWELL), "blackwell");
  int64_t v = 0;
  ck_assert_int_eq(fs_nccl_parse_bandwidth("30", &v), 0);
  ck_assert_int_eq(v, 30000);
  ck_assert_int_eq(fs_nccl_parse_bandwidth("20.6", &v), 0);
  ck_assert_int_eq(v, 20600);
  ck_assert_int_eq(fs_nccl_parse_bandwidth("31.67GB/s", &v), 0);
  ck_assert_int_eq(v, 31670);
  ck_assert_int_eq(fs_nccl_parse_bandwidth("0.001", &v), 0);
  ck_assert_int_eq(v, 1);
  ck_assert_int_eq(fs_nccl_parse_bandwidth("16777.216", &v), 0);
  ck_assert_int_eq(v, FS_NCCL_MAX_BANDWIDTH);
  const char *bad[] = {"",   "0",       "0.0001", "1.2345", "16777.217", "30.",
                       ".5", "30 GB/s", "30GB",   "-1",     "3e1",       "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(fs_nccl_parse_bandwidth(bad[i], &v) == -1, "%s", bad[i]);
}
END_TEST

/* The rest of the inputs, on example B (2 x 8) unless said:
 * - latency_inter 1 us, on each NET hop (twice for Simple): Ring LL 6.6 +
 *   28 + 2 (2.7 + 1) = 42.0 us; Ring Simple 8.4 + 95.2 + 2 (14 + 2) =
 *   135.6; Tree LL128 14 + 2 (8.75 + 8.5 + 1) = 50.5.
 * - AMD hosts: llMaxBw 22500 on 2 nodes, Ring LL min(22500, 192000) x
 *   16/30 = 12000; net overhead 2 us: Ring LL 6.6 + 28 x 2 + 2 x 2.7 =
 *   68.0, Ring Simple 8.4 + 28 x 6 + 2 x 14 = 204.4.
 * - the tree graph's pattern TREE (x 0.85), example A: Tree Simple 331200
 *   x 17/20 / 2 = 140760; Tree LL 1656000/19 x 17/20 / 2 = 703800/19.
 * - 4 x 8 (k = 32, nsteps 62), bwIntra 48, bwInter 40 GB/s: NCCL takes
 *   bwInter: Ring Simple 8 x 40000 x 32/62 = 5120000/31; LL min(20400 (Intel,
 *   > 2 nodes), 160000) x 32/62 = 326400/31; Tree X = min(294400, 8 x 36000)
 *   = 288000, LL128 min(270000, 8 x 29000) / 2 = 116000. Ring LL lat 6.6 +
 *   56 x 1 + 6 x 2.7 = 78.8 us; Tree Simple 8.4 + 2 (7 x 4 + 2 x 14) = 120.4.
 * - 4 x 1 (one GPU per node): NET takes the Tree row: Ring LL 6.6 + 6 x 5.0
 *   = 36.6 us; Tree LL 6.8 + 2 (0 + 2 x 5.0) = 26.8.
 * - comm_channels 4 (example A, 16 MiB): Ring/LL128 on 4 channels. */
START_TEST(other_inputs) {
  fs_nccl_call c = two_nodes(FS_NCCL_ALLREDUCE, MIB);
  c.latency_inter = FS_US;
  fs_nccl_decision d = decide(c);
  ck_assert_int_eq(at(&d, RING, LL)->latency, 42000000);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 135600000);
  ck_assert_int_eq(at(&d, TREE, LL128)->latency, 50500000);
  c = two_nodes(FS_NCCL_ALLREDUCE, MIB);
  c.cpu = FS_NCCL_AMD;
  d = decide(c);
  assert_rate(at(&d, RING, LL)->bandwidth, 12000, 1);
  ck_assert_int_eq(at(&d, RING, LL)->latency, 68000000);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 204400000);
  c = one_node(FS_NCCL_ALLREDUCE, MIB);
  c.tree_pattern = 1;
  d = decide(c);
  assert_rate(at(&d, TREE, SIMPLE)->bandwidth, 140760, 1);
  assert_rate(at(&d, TREE, LL)->bandwidth, 703800, 19);
  c = two_nodes(FS_NCCL_ALLREDUCE, MIB);
  c.ranks = 32, c.nodes = 4, c.bw_inter = 40000;
  d = decide(c);
  assert_rate(at(&d, RING, SIMPLE)->bandwidth, 5120000, 31);
  assert_rate(at(&d, RING, LL)->bandwidth, 326400, 31);
  assert_rate(at(&d, TREE, LL128)->bandwidth, 116000, 1);
  ck_assert_int_eq(at(&d, RING, LL)->latency, 78800000);
  ck_assert_int_eq(at(&d, TREE, SIMPLE)->latency, 120400000);
  c = two_nodes(FS_NCCL_ALLREDUCE, MIB);
  c.ranks = 4, c.nodes = 4;
  d = decide(c);
  ck_assert_int_eq(at(&d, RING, LL)->latency, 36600000);
  ck_assert_int_eq(at(&d, TREE, LL)->latency, 26800000);
  c = one_node(FS_NCCL_ALLREDUCE, 16 * MIB);
  c.comm_channels = 4;
  d = decide(c);
  ck_assert_int_eq(d.protocol, LL128);
  ck_assert_int_eq(d.channels, 4);
}
END_TEST

/* The typical machines: Hopper's are examples A and B with NVLS on (its
 * graph 8 x 40/60 GB/s on one node, 8 x 40/48 on two): example A's 16 MiB
 * goes to NVLS (25 us + 16777216e6 / 272000 = 86680941.18 ps, see
 * nvls_one_node_allreduce); its Ring/LL128 time is unchanged; with NVLS
 * off (nvls = 0, NCCL_NVLS_ENABLE=0) the pick is example A's again.
 * Example B's 1 MiB stays Tree/LL128 (NVLSTree starts at 2509821 B).
 * Blackwell on one node 16 x 45 GB/s, on two 8 x 48 both ways; Ampere
 * has no NVLS graph. */
START_TEST(typical_calls) {
  fs_nccl_call c = fs_nccl_typical_call(FS_NCCL_ALLREDUCE, 8, 1, FS_NCCL_HOPPER, 16 * MIB);
  ck_assert_int_eq(c.nvswitch, 1);
  ck_assert_int_eq(c.nvls, 1);
  ck_assert_int_eq(c.collnet, 0);
  ck_assert_int_eq(c.nvls_graph.channels, 8);
  ck_assert_int_eq(c.nvls_graph.bw_intra, 40000);
  ck_assert_int_eq(c.nvls_graph.bw_inter, 60000);
  fs_nccl_decision d = decide(c);
  ck_assert_int_eq(d.algorithm, FS_NCCL_NVLS);
  ck_assert_int_eq(d.protocol, SIMPLE);
  ck_assert_int_eq(d.time, 86680941);
  ck_assert_int_eq(d.channels, 16); /* NVLS_NCHANNELS_SM90 */
  ck_assert_int_eq(d.threads, 640);
  ck_assert_int_eq(at(&d, RING, LL128)->time, 129247729);
  c.nvls = 0;
  d = decide(c);
  ck_assert_int_eq(d.algorithm, RING);
  ck_assert_int_eq(d.protocol, LL128);
  ck_assert_int_eq(d.time, 129247729);
  ck_assert_int_eq(d.channels, 24);
  c = fs_nccl_typical_call(FS_NCCL_ALLREDUCE, 16, 2, FS_NCCL_HOPPER, MIB);
  ck_assert_int_eq(c.nvls_graph.bw_inter, 48000);
  d = decide(c);
  ck_assert_int_eq(d.algorithm, TREE);
  ck_assert_int_eq(d.protocol, LL128);
  ck_assert_int_eq(d.time, 60404814);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->enabled, 1);
  c = fs_nccl_typical_call(FS_NCCL_ALLREDUCE, 8, 1, FS_NCCL_AMPERE, MIB);
  ck_assert_int_eq(c.nvls, 0);
  ck_assert_int_eq(c.nvls_graph.channels, 0);
  c = fs_nccl_typical_call(FS_NCCL_ALLREDUCE, 8, 1, FS_NCCL_BLACKWELL, MIB);
  ck_assert_int_eq(c.nvls_graph.bw_intra, 80000);
  ck_assert_int_eq(c.nvls_graph.bw_inter, 90000);
  c = fs_nccl_typical_call(FS_NCCL_ALLGATHER, 8, 1, FS_NCCL_BLACKWELL, 0);
  ck_assert_int_eq(c.channels, 16);
  ck_assert_int_eq(c.bw_intra, 45000);
  c = fs_nccl_typical_call(FS_NCCL_ALLGATHER, 16, 2, FS_NCCL_BLACKWELL, 0);
  ck_assert_int_eq(c.channels, 8);
  ck_assert_int_eq(c.bw_intra, 48000);
  ck_assert_int_eq(c.bw_inter, 48000);
}
END_TEST

/* Example A or B with NVLS: an NVSwitch with multicast and the NVLS graph
 * 8 heads x bwIntra 40 GB/s / bwInter `inter` (60 on one node, 48 on two). */
static fs_nccl_call with_nvls(fs_nccl_call c, int64_t inter) {
  c.nvswitch = 1, c.nvls = 1;
  c.nvls_graph = (fs_nccl_graph){8, 40000, inter};
  return c;
}

/* 1 x 8 H100 AllReduce with NVLS. NVLS bw per channel = min(bwIntra x
 * eff x (nc-1)/nc x 2 (AllReduce), bwInter) = min(40000 x 0.85 x 7/8 x 2
 * = 59500, 60000) = 59500; busBw 8 x 59500 = 476000 (nccl-tests' busbw
 * 476 GB/s); algBw x k/nsteps = 8/14: 272000. Latency: NVLink's NVLS hop
 * 25 us, no base. Ring/LL (15.0 us, 564000/7) equals it at B = 10 us /
 * (7/564000 - 1/272000) = 76704000/67 = 1144835.82 B: Ring/LL up to
 * 1144835, NVLS from 1144836 (the notes' 1.14 MB), 25 us + 1144836e6 /
 * 272000 = 29208955.88 -> 29208956 ps, on NVLS's 16 channels (Hopper's
 * default; nvls_channels sets them) x 640 threads. Above, NVLS has the
 * largest algBw (Ring/Simple 205714), so it stays. NVLSTree is off on
 * one node. Blackwell's efficiency 0.74: min(40000 x 0.74 x 7/8 x 2 =
 * 51800, 60000) x 8 x 8/14 = 236800. AllGather: 40000 x 0.85 x 7/8 x
 * (ppn-1)/ppn = 7/8 -> 26031.25 x 8 = 208250, no conversion (NCCL's
 * AllGather by anything but Ring), 25 us: enabled, never the least (1 MiB:
 * Ring/LL 17.307 us < NVLS 30.035 us). Off: Ampere (no NVLS graph, its
 * efficiency 0), no NVSwitch, nvls = 0, a graph of 1 channel. */
START_TEST(nvls_one_node_allreduce) {
  fs_nccl_call c = with_nvls(one_node(FS_NCCL_ALLREDUCE, MIB), 60000);
  fs_nccl_decision d = decide(c);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS, SIMPLE)->enabled, 1);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS, SIMPLE)->latency, 25000000);
  assert_rate(at(&d, FS_NCCL_NVLS, SIMPLE)->bandwidth, 272000, 1);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS, LL)->applies, 0); /* Simple only */
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->enabled, 0);
  ck_assert_int_eq(at(&d, FS_NCCL_PAT, SIMPLE)->applies, 0);
  assert_pick(c, 1144835, RING, LL);
  assert_pick(c, 1144836, FS_NCCL_NVLS, SIMPLE);
  assert_pick(c, (int64_t)4 * 1024 * MIB, FS_NCCL_NVLS, SIMPLE);
  c.bytes = 1144836;
  d = decide(c);
  ck_assert_int_eq(d.time, 29208956);
  ck_assert_int_eq(d.channels, 16);
  ck_assert_int_eq(d.threads, 640);
  c.nvls_channels = 4;
  ck_assert_int_eq(decide(c).channels, 4);
  c.nvls_channels = 0;
  fs_nccl_call b = c;
  b.gpu = FS_NCCL_BLACKWELL;
  d = decide(b);
  assert_rate(at(&d, FS_NCCL_NVLS, SIMPLE)->bandwidth, 236800, 1);
  ck_assert_int_eq(d.channels, 24); /* Blackwell on one node */
  fs_nccl_call ag = with_nvls(one_node(FS_NCCL_ALLGATHER, MIB), 60000);
  d = decide(ag);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS, SIMPLE)->enabled, 1);
  assert_rate(at(&d, FS_NCCL_NVLS, SIMPLE)->bandwidth, 208250, 1);
  ck_assert_int_eq(d.algorithm, RING);
  b = c, b.gpu = FS_NCCL_AMPERE;
  ck_assert_int_eq(decide(b).estimate[FS_NCCL_NVLS][SIMPLE - 1].enabled, 0);
  assert_pick(b, 1144836, RING, LL);
  b = c, b.nvswitch = 0;
  assert_pick(b, 1144836, RING, LL);
  b = c, b.nvls = 0;
  assert_pick(b, 1144836, RING, LL);
  b = c, b.nvls_graph.channels = 1;
  assert_pick(b, 1144836, RING, LL);
}
END_TEST

/* 2 x 8 H100 AllReduce (example B) with NVLS, graph 8 x 40/48 GB/s.
 * NVLSTree bw per channel = min(59500 (as above), bwInter x 2 (<= 2 nodes)
 * = 96000, Hopper's 2-node NVLSTree cap 57700) = 57700; busBw 461600;
 * algBw x 16/30 = 738560/3 (246.19 GB/s). Latency 25 us (NVLink) + 2 x
 * log2(2) x 20.9 us (NET's NVLSTree) = 66.8 us. NVLS itself is off on two
 * nodes without CollNet. Tree/LL128 (48.5 us, 146800 x treeCorr 0.6 at
 * log2(B/64) = 15 -> 88080) equals it at B = 18.3 / (1/88080 - 3/738560)
 * = 14880728448/5929 = 2509820.96: Tree/LL < 255453 <= Tree/LL128 <
 * 2509821 <= NVLSTree, 66.8 us + 2509821e6 x 3/738560 = 76994788.93 ->
 * 76994789 ps on 16 channels. With NVLS the 1 MiB pick stays Tree/LL128.
 * Blackwell (graph 8 x 80/48): per channel min(80000 x 0.74 x 7/8 x 2 =
 * 103600, 96000, cap 96000) = 96000, x 8 x 16/30 = 409600; there (x86
 * hosts) treeCorr applies to NVLSTree below 2^30 B: 1 MiB (log2 = 14,
 * Simple 0.5) 204800, 66.8 + 1048576 / 204800 = 71.92 us; 512 MiB (index
 * 23, 0.9) 368640; 1 GiB (index 24) none. Hopper takes no correction. */
START_TEST(nvls_tree_two_node_allreduce) {
  fs_nccl_call c = with_nvls(two_nodes(FS_NCCL_ALLREDUCE, MIB), 48000);
  fs_nccl_decision d = decide(c);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS, SIMPLE)->enabled, 0);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->enabled, 1);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->latency, 66800000);
  assert_rate(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->bandwidth, 738560, 3);
  ck_assert_int_eq(d.algorithm, TREE);
  assert_pick(c, 255452, TREE, LL);
  assert_pick(c, 255453, TREE, LL128);
  assert_pick(c, 2509820, TREE, LL128);
  assert_pick(c, 2509821, FS_NCCL_NVLS_TREE, SIMPLE);
  assert_pick(c, 1024 * MIB, FS_NCCL_NVLS_TREE, SIMPLE);
  c.bytes = 2509821;
  d = decide(c);
  ck_assert_int_eq(d.time, 76994789);
  ck_assert_int_eq(d.channels, 16);
  ck_assert_int_eq(d.threads, 640);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->used_bandwidth.num, 738560);
  fs_nccl_call b = c;
  b.gpu = FS_NCCL_BLACKWELL, b.nvls_graph.bw_intra = 80000, b.bytes = MIB;
  d = decide(b);
  assert_rate(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->bandwidth, 409600, 1);
  assert_rate(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->used_bandwidth, 204800, 1);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->time, 71920000);
  b.bytes = 512 * MIB;
  assert_rate(decide(b).estimate[FS_NCCL_NVLS_TREE][SIMPLE - 1].used_bandwidth, 368640, 1);
  b.bytes = 1024 * MIB;
  assert_rate(decide(b).estimate[FS_NCCL_NVLS_TREE][SIMPLE - 1].used_bandwidth, 409600, 1);
  /* 3 nodes: bwInter x 1, the cap of more than 2 nodes 45500 */
  c.ranks = 24, c.nodes = 3;
  d = decide(c);
  assert_rate(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->bandwidth, 4368000, 23); /* 364000 x 24/46 */
}
END_TEST

/* PAT, 8 ranks on 8 nodes (one GPU per node), tree graph 8 x 48 GB/s.
 * busBw = 8 x bwInter 48000 (N > 2) x 0.75 = 288000, no conversion
 * (AllGather); latency 8 us + log2(8) x 14 us (NET's Tree/Simple: ppn =
 * 1) / 3.5 + 8 x 2.8 us = 8 + 12 + 22.4 = 42.4 us. Ring: LL 6.6 + 7 x 5.0
 * (NET's Tree/LL at ppn 1) = 41.6 us at min(20400, 192000) x 8/7 =
 * 163200/7; Simple 8.4 + 7 x 14 = 106.4 us at 384000 x 8/7 = 3072000/7.
 * Crossovers: 0.8 / (7/163200 - 1/288000) = 3916800/193 = 20294.30 and
 * 64 / (1/288000 - 7/3072000) = 589824000/11 = 53620363.6: Ring/LL <
 * 20295 <= PAT < 53620364 <= Ring/Simple (Ring/LL128 is never the least).
 * 42.4 us + 20295e6 / 288000 = 42470468.75 -> 42470469 ps, on all 16
 * communicator channels x 640 threads. ReduceScatter: the same. A 1 ns
 * net latency: inter 14.002 us, 3 x 14.002 / 3.5 = 12.001714 us ->
 * 42401714 ps. Off: 2 GPUs per node (no entry), AllReduce, the mask. */
START_TEST(pat_one_gpu_per_node) {
  for (int rs = 0; rs < 2; rs++) {
    fs_nccl_call c = two_nodes(rs ? FS_NCCL_REDUCESCATTER : FS_NCCL_ALLGATHER, MIB);
    c.ranks = 8, c.nodes = 8;
    fs_nccl_decision d = decide(c);
    ck_assert_int_eq(at(&d, FS_NCCL_PAT, SIMPLE)->enabled, 1);
    ck_assert_int_eq(at(&d, FS_NCCL_PAT, LL)->applies, 0);
    ck_assert_int_eq(at(&d, FS_NCCL_PAT, SIMPLE)->latency, 42400000);
    assert_rate(at(&d, FS_NCCL_PAT, SIMPLE)->bandwidth, 288000, 1);
    assert_rate(at(&d, RING, LL)->bandwidth, 163200, 7);
    assert_rate(at(&d, RING, SIMPLE)->bandwidth, 3072000, 7);
    ck_assert_int_eq(at(&d, RING, LL)->latency, 41600000);
    ck_assert_int_eq(at(&d, RING, SIMPLE)->latency, 106400000);
    assert_pick(c, 20294, RING, LL);
    assert_pick(c, 20295, FS_NCCL_PAT, SIMPLE);
    assert_pick(c, 53620363, FS_NCCL_PAT, SIMPLE);
    assert_pick(c, 53620364, RING, SIMPLE);
    c.bytes = 20295;
    d = decide(c);
    ck_assert_int_eq(d.time, 42470469);
    ck_assert_int_eq(d.channels, 16);
    ck_assert_int_eq(d.threads, 640);
    c.latency_inter = 1000;
    ck_assert_int_eq(decide(c).estimate[FS_NCCL_PAT][SIMPLE - 1].latency, 42401714);
    c.latency_inter = 0;
    c.algorithms = (1u << RING);
    assert_pick(c, 20295, RING, LL);
    c.algorithms = 0, c.ranks = 16; /* 2 GPUs per node */
    d = decide(c);
    ck_assert_int_eq(at(&d, FS_NCCL_PAT, SIMPLE)->applies, 0);
    ck_assert_int_eq(at(&d, FS_NCCL_PAT, SIMPLE)->enabled, 0);
  }
  fs_nccl_call c = two_nodes(FS_NCCL_ALLREDUCE, MIB);
  c.ranks = 8, c.nodes = 8;
  ck_assert_int_eq(decide(c).estimate[FS_NCCL_PAT][SIMPLE - 1].applies, 0);
}
END_TEST

/* CollNet on example B (2 x 8, NVSwitch, NCCL_COLLNET_ENABLE=1, no NVLS),
 * CollNet graph 8 x 48/48 GB/s. CollNetDirect: busBw 8 x 48000 = 384000
 * / ((ppn/nc = 1) - 0) x 0.85 (Hopper) = 326400, x 0.5 = 163200; latency
 * 2 x (min(1, 7) x 3.7 + 7 x 0.4) + 31 (NET) = 44 us. CollNetChain: 384000
 * x 0.5 = 192000; 2 x 7 x 2.8 + 30 = 69.2 us. Tree/LL (25.2 us, 19500 x
 * treeCorr 0.5 at log2(B/64) = 11 -> 9750) equals Direct at 18.8 /
 * (1/9750 - 1/163200) = 66476800/341 = 194946.6; Direct equals Chain at
 * 25.2 / (1/163200 - 1/192000) = 27417600 exactly (a tie: Direct, earlier
 * in the scan); Chain equals Ring/Simple (131.6 x 1.4 = 184.24 us, 204800)
 * at 115.04 / (1/192000 - 1/204800) = 353402880 exactly (a tie: Ring,
 * earlier). So Tree/LL < 194947 <= CollNetDirect <= 27417600 <
 * CollNetChain < 353402880 <= Ring/Simple. 44 us + 194947e6 / 163200 =
 * 45194528.19 -> 45194528 ps on 1 channel (194947 < nc x 640 x 8 heads x
 * 512 down to nc = 1); Chain at 27417601: 69.2 + 27417601e6/192000 ->
 * 212000005 ps on 16 channels x 640. Off: collnet = 0, no NVSwitch
 * (Direct only), one node (NCCL's CollNet node threshold 2), 16 GPUs per
 * node (> 8), LL/LL128. With NVLS too: NVLS on 2 nodes is on (25 + 18 us,
 * min(59500, 48000) x 8 x 16/30 = 204800), and AllGather by CollNetDirect
 * (8 heads >= 8 GPUs per node): 8 x min(48000, 0.9 x 48000) = 345600. */
START_TEST(collnet_two_node_allreduce) {
  fs_nccl_call c = two_nodes(FS_NCCL_ALLREDUCE, MIB);
  c.nvswitch = 1, c.collnet = 1;
  c.collnet_graph = (fs_nccl_graph){8, 48000, 48000};
  fs_nccl_decision d = decide(c);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_DIRECT, SIMPLE)->latency, 44000000);
  assert_rate(at(&d, FS_NCCL_COLLNET_DIRECT, SIMPLE)->bandwidth, 163200, 1);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_CHAIN, SIMPLE)->latency, 69200000);
  assert_rate(at(&d, FS_NCCL_COLLNET_CHAIN, SIMPLE)->bandwidth, 192000, 1);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_DIRECT, LL)->enabled, 0);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_CHAIN, LL128)->enabled, 0);
  assert_pick(c, 194946, TREE, LL);
  assert_pick(c, 194947, FS_NCCL_COLLNET_DIRECT, SIMPLE);
  assert_pick(c, 27417600, FS_NCCL_COLLNET_DIRECT, SIMPLE);
  assert_pick(c, 27417601, FS_NCCL_COLLNET_CHAIN, SIMPLE);
  assert_pick(c, 353402879, FS_NCCL_COLLNET_CHAIN, SIMPLE);
  assert_pick(c, 353402880, RING, SIMPLE);
  c.bytes = 194947;
  d = decide(c);
  ck_assert_int_eq(d.time, 45194528);
  ck_assert_int_eq(d.channels, 1);
  ck_assert_int_eq(d.threads, 640);
  c.bytes = 27417601;
  d = decide(c);
  ck_assert_int_eq(d.time, 212000005);
  ck_assert_int_eq(d.channels, 16);
  ck_assert_int_eq(d.threads, 640);
  fs_nccl_call off = c;
  off.collnet = 0;
  assert_pick(off, 194947, TREE, LL);
  off = c, off.nvswitch = 0;
  assert_pick(off, 194947, TREE, LL);
  assert_pick(off, 27417601, FS_NCCL_COLLNET_CHAIN, SIMPLE);
  off = c, off.ranks = 8, off.nodes = 1;
  d = decide(off);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_DIRECT, SIMPLE)->enabled, 0);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_CHAIN, SIMPLE)->enabled, 0);
  off = c, off.ranks = 32;
  d = decide(off);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_DIRECT, SIMPLE)->enabled, 0);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_CHAIN, SIMPLE)->enabled, 0);
  fs_nccl_call both = with_nvls(c, 48000);
  d = decide(both);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS, SIMPLE)->enabled, 1);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS, SIMPLE)->latency, 43000000);
  assert_rate(at(&d, FS_NCCL_NVLS, SIMPLE)->bandwidth, 204800, 1);
  both.collective = FS_NCCL_ALLGATHER;
  d = decide(both);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_DIRECT, SIMPLE)->enabled, 1);
  assert_rate(at(&d, FS_NCCL_COLLNET_DIRECT, SIMPLE)->bandwidth, 345600, 1);
  ck_assert_int_eq(at(&d, FS_NCCL_COLLNET_CHAIN, SIMPLE)->applies, 0);
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS_TREE, SIMPLE)->applies, 0);
  c.collective = FS_NCCL_ALLGATHER; /* no NVLS heads */
  ck_assert_int_eq(decide(c).estimate[FS_NCCL_COLLNET_DIRECT][SIMPLE - 1].enabled, 0);
  c.collective = FS_NCCL_BROADCAST;
  ck_assert_int_eq(decide(c).estimate[FS_NCCL_COLLNET_DIRECT][SIMPLE - 1].applies, 0);
}
END_TEST

/* The new algorithms' constants (NCCL 2.30.7, tuning.cc): base 0 (CollNet,
 * NVLS), 8 us (PAT); hops NVLink / PCI / NET: CollNetDirect 3.7 / 3.7 /
 * 31, CollNetChain 2.8 / 2.8 / 30, NVLS 25 / 0 / 18, NVLSTree 25 / 0 /
 * 20.9, PAT 4 / 4 / 14 us; the graph and NVLS-channel limits. */
START_TEST(new_algorithm_constants) {
  ck_assert_int_eq(fs_nccl_base_latency(FS_NCCL_PAT, SIMPLE), 8000000);
  ck_assert_int_eq(fs_nccl_base_latency(FS_NCCL_NVLS, SIMPLE), 0);
  ck_assert_int_eq(fs_nccl_hop_latency(FS_NCCL_NET, FS_NCCL_COLLNET_DIRECT, SIMPLE), 31000000);
  ck_assert_int_eq(fs_nccl_hop_latency(FS_NCCL_PCI, FS_NCCL_COLLNET_CHAIN, SIMPLE), 2800000);
  ck_assert_int_eq(fs_nccl_hop_latency(FS_NCCL_NET, FS_NCCL_NVLS_TREE, SIMPLE), 20900000);
  ck_assert_int_eq(fs_nccl_hop_latency(FS_NCCL_PCI, FS_NCCL_NVLS, SIMPLE), 0);
  ck_assert_int_eq(fs_nccl_hop_latency(FS_NCCL_NVLINK, FS_NCCL_PAT, SIMPLE), 4000000);
  ck_assert_str_eq(fs_nccl_algorithm_name(FS_NCCL_NVLS_TREE), "NVLSTree");
  ck_assert_str_eq(fs_nccl_algorithm_name(FS_NCCL_COLLNET_DIRECT), "CollNetDirect");
  fs_nccl_call c = one_node(FS_NCCL_ALLREDUCE, MIB);
  fs_nccl_decision d;
  fs_error err = {{0}};
  c.nvls_graph = (fs_nccl_graph){33, 1, 1};
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  ck_assert_str_eq(err.message, "nccl: NVLS graph of 33 channels: expected 0 to 32");
  c.nvls_graph = (fs_nccl_graph){8, 0, 1};
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  ck_assert_ptr_nonnull(strstr(err.message, "NVLS graph bandwidths 0 and 1 MB/s"));
  c.nvls_graph = (fs_nccl_graph){0, 0, 0};
  c.collnet_graph = (fs_nccl_graph){-1, 0, 0};
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  ck_assert_ptr_nonnull(strstr(err.message, "CollNet graph of -1 channels"));
  c.collnet_graph = (fs_nccl_graph){0, 0, 0};
  c.nvls_channels = 65;
  ck_assert_int_eq(fs_nccl_decide(&c, &d, &err), -1);
  ck_assert_ptr_nonnull(strstr(err.message, "65 NVLS channels"));
}
END_TEST

/* The competing times, for a generator to show: example A's six; an
 * AllGather has no Tree; over PCI LL128 is off. */
START_TEST(estimates_as_text) {
  char text[256];
  fs_nccl_decision d = decide(one_node(FS_NCCL_ALLREDUCE, 16 * MIB));
  fs_nccl_estimates_text(&d, text, sizeof text);
  ck_assert_str_eq(text, "Tree/LL 442.960 us, Tree/LL128 176.231 us, Tree/Simple 209.131 us, "
                         "Ring/LL 223.228 us, Ring/LL128 129.248 us, Ring/Simple 137.556 us");
  fs_nccl_call c = one_node(FS_NCCL_ALLGATHER, 7 * MIB);
  c.intra = FS_NCCL_PCI;
  d = decide(c);
  fs_nccl_estimates_text(&d, text, sizeof text);
  /* LL 6.6 + 7 x 1.0 = 13.6 us + 7340032 x 7/1128000 = 45.54984 us:
   * 59149844 ps; Simple 8.4 + 7 x 5.7 = 48.3 + 7340032 x 7/2880000 =
   * 17.84036: 66140356 ps */
  ck_assert_str_eq(text, "Ring/LL 59.150 us, Ring/LL128 off, Ring/Simple 66.140 us");
  ck_assert_int_eq(at(&d, RING, LL)->time, 59149844);
  ck_assert_int_eq(at(&d, RING, SIMPLE)->time, 66140356);
  fs_nccl_estimates_text(&d, text, 12); /* no room for the first entry */
  ck_assert_str_eq(text, "");
  fs_nccl_estimates_text(&d, text, 40); /* room for two */
  ck_assert_str_eq(text, "Ring/LL 59.150 us, Ring/LL128 off");
  /* with NVLS (nvls_one_node_allreduce), at 1 MiB: 25 us + 1048576e6 /
   * 272000 = 28855058.8 ps; the disabled CollNet and NVLSTree not shown */
  c = with_nvls(one_node(FS_NCCL_ALLREDUCE, MIB), 60000);
  d = decide(c);
  fs_nccl_estimates_text(&d, text, sizeof text);
  ck_assert_ptr_nonnull(strstr(text, ", Ring/Simple 61.097 us, NVLS/Simple 28.855 us"));
  ck_assert_int_eq(at(&d, FS_NCCL_NVLS, SIMPLE)->time, 28855059);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("nccl_tuning");
  TCase *t = tcase_create("tuning");
  tcase_add_test(t, example_a_one_node_allreduce);
  tcase_add_test(t, example_b_two_node_allreduce);
  tcase_add_test(t, ring_plateau_starts_at_64_bytes_per_channel_and_rank);
  tcase_add_test(t, switch_points_one_node_allreduce);
  tcase_add_test(t, switch_points_one_node_allgather_reducescatter);
  tcase_add_test(t, switch_points_two_node_allreduce);
  tcase_add_test(t, switch_points_two_node_allgather_reducescatter);
  tcase_add_test(t, broadcast_and_reduce_latencies);
  tcase_add_test(t, channels_for_the_size);
  tcase_add_test(t, masks_enabling_and_errors);
  tcase_add_test(t, constants_and_channel_rates);
  tcase_add_test(t, names_and_bandwidth_text);
  tcase_add_test(t, other_inputs);
  tcase_add_test(t, typical_calls);
  tcase_add_test(t, estimates_as_text);
  tcase_add_test(t, nvls_one_node_allreduce);
  tcase_add_test(t, nvls_tree_two_node_allreduce);
  tcase_add_test(t, pat_one_gpu_per_node);
  tcase_add_test(t, collnet_two_node_allreduce);
  tcase_add_test(t, new_algorithm_constants);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(suite()); }
