/* test_nccl_best.c: NCCL's generators in `best`, `sweep` and `validate`
 * (issue 21): a collective's name stands for the MPI family's algorithms
 * under an MPI-style model and for NCCL's (FS_GEN_GPU) under the nccl
 * model, --family mpi|gpu|all says otherwise; best tries NCCL's generators
 * on channels 1, 2, 4, ... up to --max-channels with LL, LL128 and Simple
 * and reports NCCL's pick (the -nccl selector) beside the winner, as it
 * reports MPICH's and Open MPI's; validate takes --algo C=nccl. Outputs
 * are compared whole where no other GPU generator can join (bcast; NCCL's
 * PAT adds allgathers and reduce-scatters); every time is derived by hand
 * below. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/algorithm_spec.h"
#include "test_support.h"

static char *out, *err;

/* ---- which candidates --------------------------------------------------- */

/* The generators' family is their trait: every NCCL generator and selector
 * is GPU, no MPI one is (the PAT generators join by the same trait). */
START_TEST(the_family_is_a_trait) {
  int count;
  const fs_generator *g = fs_generator_list(&count);
  for (int i = 0; i < count; i++) {
    int nccl = strstr(g[i].name, "-nccl") != NULL || strcmp(g[i].name, "msccl") == 0;
    ck_assert_msg(!!(g[i].traits & FS_GEN_GPU) == nccl, "%s", g[i].name);
    ck_assert_int_eq(fs_family_holds(FS_FAMILY_GPU, &g[i]), nccl);
    ck_assert_int_eq(fs_family_holds(FS_FAMILY_MPI, &g[i]), !nccl);
    ck_assert(fs_family_holds(FS_FAMILY_ALL, &g[i]));
  }
  ck_assert_int_eq(fs_family_of_model("nccl"), FS_FAMILY_GPU);
  ck_assert_int_eq(fs_family_of_model("hockney"), FS_FAMILY_MPI);
  ck_assert_int_eq(fs_family_find("all"), FS_FAMILY_ALL);
  ck_assert_int_eq(fs_family_find("GPU"), -1);
  ck_assert_str_eq(fs_family_name(FS_FAMILY_GPU), "gpu");
}
END_TEST

/* The variants of collective c in family whose generator is `name`, in
 * order, into list; how many. (Other GPU generators of c may join.) */
static int variants_of(fs_collective c, fs_family family, int32_t max, const char *name,
                       fs_algorithm_spec *list, int capacity) {
  fs_algorithm_spec all[256];
  int n = fs_algorithm_variants(c, family, max, all, 256), k = 0;
  ck_assert_int_le(n, 256);
  for (int i = 0; i < n; i++)
    if (strcmp(all[i].generator->name, name) == 0) {
      if (k < capacity) list[k] = all[i];
      k++;
    }
  return k;
}

/* NCCL's variants: the default (1 channel, Simple), then per channel count
 * 1, 2, 4, ... below the bound and the bound, LL, LL128, Simple; so 3 L
 * candidates a generator for L channel counts (24: 1, 2, 4, 8, 16, 24,
 * 18 candidates; 64: 21 at most). */
START_TEST(nccl_variants) {
  fs_algorithm_spec list[64];
  const char *ring = "allgather-nccl-ring";
  int n = variants_of(FS_COLLECTIVE_ALLGATHER, FS_FAMILY_GPU, 3, ring, list, 64);
  static const char *const want[] = {"allgather-nccl-ring",
                                     "allgather-nccl-ring:channels=1:protocol=LL",
                                     "allgather-nccl-ring:channels=1:protocol=LL128",
                                     "allgather-nccl-ring:channels=2:protocol=LL",
                                     "allgather-nccl-ring:channels=2:protocol=LL128",
                                     "allgather-nccl-ring:channels=2:protocol=Simple",
                                     "allgather-nccl-ring:channels=3:protocol=LL",
                                     "allgather-nccl-ring:channels=3:protocol=LL128",
                                     "allgather-nccl-ring:channels=3:protocol=Simple"};
  ck_assert_int_eq(n, 9);
  for (int i = 0; i < n; i++) ck_assert_str_eq(list[i].text, want[i]);
  ck_assert_int_eq(variants_of(FS_COLLECTIVE_ALLGATHER, FS_FAMILY_GPU, 24, ring, list, 64), 18);
  ck_assert_int_eq(variants_of(FS_COLLECTIVE_ALLGATHER, FS_FAMILY_GPU, 64, ring, list, 64), 21);
  ck_assert_int_eq(variants_of(FS_COLLECTIVE_ALLGATHER, FS_FAMILY_ALL, 2, ring, list, 64), 6);
  ck_assert_int_eq(variants_of(FS_COLLECTIVE_ALLREDUCE, FS_FAMILY_GPU, 16, "allreduce-nccl-tree",
                               list, 64),
                   15);
  /* a bound of 1: the default and 1 channel with LL and LL128; 0: defaults only */
  ck_assert_int_eq(variants_of(FS_COLLECTIVE_BCAST, FS_FAMILY_GPU, 1, "bcast-nccl-ring", list, 64),
                   3);
  ck_assert_int_eq(variants_of(FS_COLLECTIVE_BCAST, FS_FAMILY_GPU, 0, "bcast-nccl-ring", list, 64),
                   1);
  ck_assert_int_eq(fs_algorithm_variants(FS_COLLECTIVE_REDUCE_SCATTER, FS_FAMILY_MPI, 16, NULL, 0),
                   0);
  /* the MPI family: no GPU generator */
  fs_algorithm_spec all[256];
  n = fs_algorithm_variants(FS_COLLECTIVE_ALLGATHER, FS_FAMILY_MPI, 16, all, 256);
  ck_assert_int_eq(n, 4);
  ck_assert_str_eq(all[3].text, "allgather-neighbor");
  for (int c = FS_COLLECTIVE_BARRIER; c <= FS_COLLECTIVE_LAST; c++) {
    n = fs_algorithm_variants((fs_collective)c, FS_FAMILY_MPI, 16, all, 256);
    for (int i = 0; i < n; i++) ck_assert(!(all[i].generator->traits & FS_GEN_GPU));
    n = fs_algorithm_variants((fs_collective)c, FS_FAMILY_GPU, 16, all, 256);
    for (int i = 0; i < n; i++) ck_assert(all[i].generator->traits & FS_GEN_GPU);
  }
}
END_TEST

/* Under hockney (alpha 1 us, beta 1 ns/B) at 2 ranks every MPI allgather
 * is one exchange of 1 KiB: 1000 + 1024 = 2024 ns, ties in the registry's
 * order; no NCCL generator and no NCCL pick. */
START_TEST(best_under_hockney_is_mpi) {
  ck_assert_msg(fennelsim("best allgather --ranks 2 --size 1KiB --model hockney --param alpha=1us "
                          "--param beta=1ns") == 0,
                "%s", err);
  ck_assert_str_eq(
      out,
      "best allgather: 2 ranks, 1KiB, model hockney {\"alpha_ns\": 1000, \"beta_ns_per_byte\": 1}, "
      "compute fixed\n"
      "simulated 4 candidates: 4 algorithms and options of allgather\n"
      "rank  algorithm                                     makespan_ns      tasks   ratio\n"
      "1     allgather-ring                                       2024          4   1.000\n"
      "2     allgather-rd                                         2024          4   1.000\n"
      "3     allgather-bruck                                      2024          4   1.000\n"
      "4     allgather-neighbor                                   2024          4   1.000\n"
      "MPICH runs allgather-rd: 2024 ns, 1.000 x the best\n"
      "Open MPI runs allgather-ring: 2024 ns, 1.000 x the best\n");
}
END_TEST

/* Under nccl (Hopper defaults) on one node of 2 GPUs, bcast of 1 KiB: the
 * root sends each channel c of C its floor(1024/C) bytes (the last also
 * the rest) in one piece at the launch (the base latency of the
 * protocol); the data lands one NVLink hop later. Per channel rate: LL
 * min(30/2, 141/C) GB/s (141 = llMaxBw on one node: 15 up to 9 channels,
 * 8.8125 at 16, 5.875 at 24), LL128 min(0.92 x 30, 36.7) = 27.6, Simple
 * 30. So, in ps:
 *   LL     6.6 us + 0.6 us + bytes/rate: C=1 1024/15 = 68267 -> 7268267;
 *          2: 34133 -> 7234133; 4: 17067 -> 7217067; 8: 8533 -> 7208533;
 *          16: 64/8.8125 = 7262 -> 7207262; 24: 58 B (42 + 16) / 5.875 =
 *          9872 -> 7209872
 *   Simple 8.4 + 3.4 us + bytes/30: 1: 34133 -> 11834133 ... 24: 58/30 =
 *          1933 -> 11801933
 *   LL128  14 + 1.9 us + bytes/27.6: 1: 37101 -> 15937101 ... 24: 2101
 * The winner is LL on 16 channels: more channels split the bytes, but LL's
 * cap is shared and 24 channels' last one carries 58 B at 5.875 GB/s.
 * NCCL's pick (nBytes 1024; Broadcast: base + one hop): Ring/LL 6.6 + 0.6
 * = 7.2 us against LL128 15.9 and Simple 11.8, on 1 channel (1024 < 1 x
 * 512 threads x 16 B): 7268267 ps, 1.008 x the best. */
START_TEST(best_under_nccl_is_gpu) {
  ck_assert_msg(fennelsim("best bcast --ranks 2 --nodes 1 --cores 2 --size 1KiB --model nccl "
                          "--top 0") == 0,
                "%s", err);
  ck_assert_str_eq(
      out,
      "best bcast: 2 ranks, 1KiB, model nccl {\"gpu\": \"hopper\", \"cpu\": \"intel\", "
      "\"intra\": \"nvlink\", \"protocol\": \"Simple\", \"hops\": \"ring\", \"bw_intra_GBps\": 30, "
      "\"bw_inter_GBps\": 48, \"launch\": \"base\", \"nvswitch\": 1, \"nvls\": 1, \"collnet\": 0}, "
      "compute fixed\n"
      "platform 1 nodes x 2 cores, seq\n"
      "simulated 18 candidates: 18 algorithms and options of bcast (family gpu: NCCL's on "
      "channels 1 to 24 x LL, LL128, Simple)\n"
      "rank  algorithm                                        makespan_ns      tasks   ratio\n"
      "1     bcast-nccl-ring:channels=16:protocol=LL             7207.262         32   1.000\n"
      "2     bcast-nccl-ring:channels=8:protocol=LL              7208.533         16   1.000\n"
      "3     bcast-nccl-ring:channels=24:protocol=LL             7209.872         48   1.000\n"
      "4     bcast-nccl-ring:channels=4:protocol=LL              7217.067          8   1.001\n"
      "5     bcast-nccl-ring:channels=2:protocol=LL              7234.133          4   1.004\n"
      "6     bcast-nccl-ring:channels=1:protocol=LL              7268.267          2   1.008\n"
      "7     bcast-nccl-ring:channels=24:protocol=Simple        11801.933         48   1.638\n"
      "8     bcast-nccl-ring:channels=16:protocol=Simple        11802.133         32   1.638\n"
      "9     bcast-nccl-ring:channels=8:protocol=Simple         11804.267         16   1.638\n"
      "10    bcast-nccl-ring:channels=4:protocol=Simple         11808.533          8   1.638\n"
      "11    bcast-nccl-ring:channels=2:protocol=Simple         11817.067          4   1.640\n"
      "12    bcast-nccl-ring                                    11834.133          2   1.642\n"
      "13    bcast-nccl-ring:channels=24:protocol=LL128         15902.101         48   2.206\n"
      "14    bcast-nccl-ring:channels=16:protocol=LL128         15902.319         32   2.206\n"
      "15    bcast-nccl-ring:channels=8:protocol=LL128          15904.638         16   2.207\n"
      "16    bcast-nccl-ring:channels=4:protocol=LL128          15909.275          8   2.207\n"
      "17    bcast-nccl-ring:channels=2:protocol=LL128          15918.551          4   2.209\n"
      "18    bcast-nccl-ring:channels=1:protocol=LL128          15937.101          2   2.211\n"
      "NCCL runs bcast-nccl-ring:channels=1:protocol=LL: 7268.267 ns, 1.008 x the best\n");
  /* without a platform each rank is a node: NCCL's 16 channels of 2 nodes */
  ck_assert_int_eq(fennelsim("best bcast --ranks 2 --size 1KiB --model nccl"), 0);
  fs_test_contains(out, "(family gpu: NCCL's on channels 1 to 16 x LL, LL128, Simple)\n");
  /* a model file of nccl is nccl */
  ck_assert_int_eq(fennelsim("best bcast --ranks 2 --size 1KiB --model nccl-dgx-h100"), 0);
  fs_test_contains(out, "(family gpu: ");
}
END_TEST

/* --family all under hockney (alpha 1 us, beta 1 ns/B), channels up to
 * 2: the MPI broadcasts and NCCL's six. Two channels halve the bytes:
 * 1000 + 512 = 1512 ns whatever the protocol (hockney has none); one
 * message of 1 KiB is 2024 ns (the MPI trees at 2 ranks, NCCL's ring on
 * one channel); the scatter-allgathers and the split binary tree send
 * twice: 2 x 1512 = 3024 ns. All three libraries' picks follow. */
START_TEST(best_family_all) {
  ck_assert_msg(fennelsim("best bcast --ranks 2 --nodes 1 --cores 2 --size 1KiB --model "
                          "hockney --param alpha=1us --param beta=1ns --family all "
                          "--max-channels 2 --top 0") == 0,
                "%s", err);
  ck_assert_str_eq(
      out,
      "best bcast: 2 ranks, 1KiB, model hockney {\"alpha_ns\": 1000, \"beta_ns_per_byte\": 1}, "
      "compute fixed\n"
      "platform 1 nodes x 2 cores, seq\n"
      "simulated 21 candidates: 21 algorithms and options of bcast (family all: NCCL's on "
      "channels 1 to 2 x LL, LL128, Simple)\n"
      "rank  algorithm                                       makespan_ns      tasks   ratio\n"
      "1     bcast-nccl-ring:channels=2:protocol=LL                 1512          4   1.000\n"
      "2     bcast-nccl-ring:channels=2:protocol=LL128              1512          4   1.000\n"
      "3     bcast-nccl-ring:channels=2:protocol=Simple             1512          4   1.000\n"
      "4     multicast                                              2024          3   1.339\n"
      "5     bcast-binomial                                         2024          2   1.339\n"
      "6     bcast-linear                                           2024          2   1.339\n"
      "7     bcast-binary                                           2024          2   1.339\n"
      "8     bcast-chain                                            2024          2   1.339\n"
      "9     bcast-chain:segment=32KiB                              2024          2   1.339\n"
      "10    bcast-chain:segment=128KiB                             2024          2   1.339\n"
      "11    bcast-klevel                                           2024          2   1.339\n"
      "12    bcast-smp                                              2024          2   1.339\n"
      "13    bcast-knomial                                          2024          2   1.339\n"
      "14    bcast-knomial:ways=2                                   2024          2   1.339\n"
      "15    bcast-knomial:ways=8                                   2024          2   1.339\n"
      "16    bcast-nccl-ring                                        2024          2   1.339\n"
      "17    bcast-nccl-ring:channels=1:protocol=LL                 2024          2   1.339\n"
      "18    bcast-nccl-ring:channels=1:protocol=LL128              2024          2   1.339\n"
      "19    bcast-scatter-allgather                                3024          6   2.000\n"
      "20    bcast-split-binary                                     3024          4   2.000\n"
      "21    bcast-scatter-rd-allgather                             3024          6   2.000\n"
      "MPICH runs bcast-smp: 2024 ns, 1.339 x the best\n"
      "Open MPI runs bcast-linear: 2024 ns, 1.339 x the best\n"
      "NCCL runs bcast-nccl-ring:channels=1:protocol=LL: 2024 ns, 1.339 x the best\n");
  /* --family mpi under nccl: the MPI allgathers, priced by nccl (Simple:
   * 8.4 + 3.4 us + 1024 B / 30 GB/s = 11834.133 ns), no NCCL pick */
  ck_assert_msg(fennelsim("best allgather --ranks 2 --nodes 1 --cores 2 --size 1KiB --model nccl "
                          "--family mpi") == 0,
                "%s", err);
  fs_test_contains(out, "simulated 4 candidates: 4 algorithms and options of allgather\n");
  fs_test_contains(out, "1     allgather-ring                                  11834.133 ");
  ck_assert_ptr_null(strstr(out, "-nccl"));
  ck_assert_ptr_null(strstr(out, "NCCL"));
}
END_TEST

/* The decision table has NCCL's column in the gpu family (and not the MPI
 * libraries'); at 2 KiB LL on 2 channels: 7.2 us + 1024/15 = 7268.267 ns,
 * NCCL's pick (2048 < 8192: one channel) 7.2 us + 2048/15 = 7336.533 ns.
 * JSON names the family, the bound and NCCL's pick. */
START_TEST(best_table_and_json) {
  ck_assert_msg(fennelsim("best bcast --ranks 2 --nodes 1 --cores 2 --sizes 1KiB,2KiB --model "
                          "nccl --max-channels 2") == 0,
                "%s", err);
  fs_test_contains(out, "size      winner                                        time_ns  "
                        "runner-up                                     time_ns    margin  "
                        "NCCL                                          time_ns    slower\n");
  fs_test_contains(out, "2KiB      bcast-nccl-ring:channels=2:protocol=LL       7268.267  "
                        "bcast-nccl-ring:channels=1:protocol=LL       7336.533    +0.94%  "
                        "bcast-nccl-ring:channels=1:protocol=LL       7336.533    +0.94%\n");
  ck_assert_ptr_null(strstr(out, "MPICH"));
  ck_assert_msg(fennelsim("best bcast --ranks 2 --nodes 1 --cores 2 --size 1KiB --model nccl "
                          "--max-channels 1 --format json --top 1") == 0,
                "%s", err);
  fs_test_contains(out,
                   "\"checked\": false, \"family\": \"gpu\", \"max_channels\": 1, \"sizes\": [");
  fs_test_contains(out, "\"libraries\": [{\"library\": \"nccl\", \"selector\": \"bcast-nccl\", "
                        "\"pick\": \"bcast-nccl-ring:channels=1:protocol=LL\", \"time_ns\": "
                        "7268.267, \"ratio\": 1.000000}]");
  ck_assert_int_eq(fennelsim("best allgather --ranks 2 --size 1KiB --model hockney --format json"),
                   0);
  fs_test_contains(out, "\"family\": \"mpi\", \"sizes\": [");
}
END_TEST

/* The default channel bound follows the model's GPU generation: twice the
 * ring graph's channels of a typical machine, on one node 12 for Volta,
 * Ampere and Hopper (24), 16 for Blackwell (32); 8 on several nodes (16)
 * whatever the GPU. */
START_TEST(channel_bound_by_gpu) {
  static const struct {
    const char *gpu, *platform;
    int bound;
  } cases[] = {{"volta", "--nodes 1 --cores 4", 24},     {"ampere", "--nodes 1 --cores 4", 24},
               {"hopper", "--nodes 1 --cores 4", 24},    {"blackwell", "--nodes 1 --cores 4", 32},
               {"blackwell", "--nodes 2 --cores 2", 16}, {"volta", "--nodes 2 --cores 2", 16}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(fennelsim("best bcast --ranks 4 %s --model nccl --param gpu=%s --top 1",
                               cases[i].platform, cases[i].gpu),
                     0);
    char want[64];
    snprintf(want, sizeof want, "NCCL's on channels 1 to %d x LL", cases[i].bound);
    fs_test_contains(out, want);
  }
}
END_TEST

START_TEST(best_refusals) {
  ck_assert_int_eq(fennelsim("best allgather --ranks 2 --model nccl --family gpus"), 2);
  ck_assert_str_eq(err, "fennelsim best: --family gpus: expected mpi, gpu or all\n");
  ck_assert_int_eq(fennelsim("best allgather --ranks 2 --model hockney --max-channels 4"), 2);
  ck_assert_str_eq(err, "fennelsim best: --max-channels: NCCL's generators are not searched in "
                        "the mpi family (--family gpu or all, or --model nccl)\n");
  ck_assert_int_eq(fennelsim("best allgather --ranks 2 --model nccl --max-channels 65"), 2);
  fs_test_contains(err, "--max-channels");
  ck_assert_int_eq(fennelsim("best reduce-scatter --ranks 2 --model hockney"), 2);
  ck_assert_str_eq(err, "fennelsim best: best reduce-scatter: no algorithm in the mpi family "
                        "(--family all takes every one)\n");
}
END_TEST

/* ---- sweep ------------------------------------------------------------------ */

/* A collective's name in sweep: the models' family (all when mixed);
 * --variants adds NCCL's channels 1, 2, 4, 8, 16 x the protocols. */
START_TEST(sweep_family) {
  ck_assert_int_eq(fennelsim("sweep allgather --ranks 2 --model hockney --format csv --no-wall"),
                   0);
  ck_assert_ptr_null(strstr(out, "nccl"));
  fs_test_contains(out, "allgather-neighbor");
  ck_assert_int_eq(fennelsim("sweep allgather --ranks 2 --model nccl --format csv --no-wall"), 0);
  fs_test_contains(out, "allgather-nccl-ring");
  ck_assert_ptr_null(strstr(out, "allgather-ring"));
  ck_assert_int_eq(fennelsim("sweep allgather --ranks 2 --model nccl --model hockney --format csv "
                             "--no-wall"),
                   0);
  fs_test_contains(out, "allgather-nccl-ring");
  fs_test_contains(out, "allgather-ring");
  ck_assert_int_eq(fennelsim("sweep allgather --ranks 2 --model hockney --family gpu --variants "
                             "--format csv --no-wall"),
                   0);
  fs_test_contains(out, "allgather-nccl-ring:channels=16:protocol=Simple");
  ck_assert_ptr_null(strstr(out, "channels=32"));
  ck_assert_int_eq(fennelsim("sweep reduce-scatter --ranks 2 --model hockney"), 2);
  ck_assert_str_eq(err, "fennelsim sweep: reduce-scatter: no algorithm in the mpi family "
                        "(--family all takes every one)\n");
  ck_assert_int_eq(fennelsim("sweep allgather --ranks 2 --family both"), 2);
  ck_assert_str_eq(err, "fennelsim sweep: --family both: expected mpi, gpu or all\n");
}
END_TEST

/* ---- validate ---------------------------------------------------------------- */

/* 4 ranks, each a node (the file's nodes=4 cores=1), 8 B, hockney alpha 1
 * us, beta 1 ns/B: a message of 8 B costs T = 1008 ns, an empty one 1000.
 * NCCL's picks (Hopper, 4 nodes of one GPU; NET hops take the Tree row):
 *   allreduce  Tree/LL 6.8 + 2 log2(4) 5.0 = 26.8 us < Ring/LL 36.6: the
 *              tree 0 -> 2 -> {1, 3}, one channel, one piece: up 2T, down
 *              T, then 2's two sends 2T = 5T = 5040 ns
 *   bcast      Ring/LL 6.6 + 2.7 us (one NET hop) < Simple 22.4: the chain
 *              0 -> 1 -> 2 -> 3 of one piece, 3T = 3024 ns
 *   reduce     the same, 1 -> 2 -> 3 -> 0: 3T = 3024 ns
 *   allgather  Ring/LL 6.6 + 3 x 5.0 = 21.6 us (nBytes 32): 3 steps, 3T
 * all on one channel (a few bytes < 512 threads x 8 B); two channels
 * would halve the bytes (3012 ns). allgather-nccl-ring as given (Simple:
 * NCCL's 2 slices a chunk, the second empty, as a slice is at least 1 MiB
 * / 32): each of its 3 steps sends 8 B then 0 B, back to back: 3 (T +
 * 1000) = 6024 ns; a connection carries 6 slices, NCCL's FIFO window is
 * 4 (8 slots, 2 a slice), so a rank returns credits for slices 0 and 1,
 * 0-byte messages of 1000 ns each off the channel's CPU, arriving two
 * sends before they are needed (none binds: as test_nccl_generators'
 * fifo_time): 6024 ns.
 * The defaults under --family gpu: NCCL's ring allreduce, 2(k-1) = 6
 * steps of 2 slices; its last loop cuts 8 B into a chunk of 8 B and three
 * empty ones, so a rank sends 12 slices back to back (what it forwards
 * arrived two sends earlier), 1000 ns each, 8 ns more for the 8-byte
 * slice: position i sends chunk 0 at the steps t = i-1 mod 4, twice for
 * positions 1 and 2 (t = 0 and 4, 1 and 5): 12000 + 16 = 12016 ns
 * without credits (--fifo 0). NCCL's 8 slots (window 4 slices) add
 * credits for slices 0..7 of the 12 a connection carries; a credit arrives
 * alpha after the forward it follows, as late as a sender in lock step
 * needs it, so an 8-ns lead binds: rank 3 forwards slice 6 at [8016, 9016]
 * (after rank 2's 8-byte slice), its credit reaches rank 2 at 10016, 8 ns
 * after rank 2 could send slice 10; rank 2's last sends [10016, 11024]
 * (8 B) and [11024, 12024]: 12024 ns. The tree 5040. NVLSTree refuses
 * nodes of one GPU (no NVSwitch), as NVLS refuses several nodes. CollNetDirect and
 * CollNetChain on these 4 nodes of one GPU: each GPU sends its 8 B to the
 * in-network reducer (rank 4) and gets the sum back, 2 x (1000 + 8) =
 * 2016 ns; under nccl, which places ranks on the measured 4 nodes of one
 * core, that fifth rank has no place: they are skipped. */
#define MEASURED                                                                    \
  "# fennelprobe-collectives 1 ranks=4 nodes=4 cores=1 host=h\n"                    \
  "collective,algorithm,ranks,bytes,repetitions,min_ns,median_ns,mean_ns,ci95_ns\n" \
  "allreduce,,4,8,200,5040,5100,5200,20\nbcast,,4,8,200,3024,3100,3200,20\n"        \
  "reduce,,4,8,200,3024,3100,3200,20\nallgather,,4,8,200,3024,3100,3200,20\n"

START_TEST(validate_takes_nccl) {
  char *csv = fs_test_temp_path(".csv");
  FILE *f = fopen(csv, "w");
  ck_assert_ptr_nonnull(f);
  fputs(MEASURED, f);
  fclose(f);
  ck_assert_msg(fennelsim("validate %s --model hockney --param alpha=1us --param beta=1ns --algo "
                          "allreduce=nccl --algo bcast=nccl --algo reduce=nccl --algo "
                          "allgather=nccl,nccl-ring",
                          csv) == 0,
                "%s", err);
  fs_test_contains(out,
                   "collective  ranks        bytes  algorithm                         measured_ns"
                   "   predicted_ns     error       mu\n"
                   "allreduce       4            8  allreduce-nccl                           5040"
                   "           5040    +0.00%   1.0000  best\n"
                   "bcast           4            8  bcast-nccl                               3024"
                   "           3024    +0.00%   1.0000  best\n"
                   "reduce          4            8  reduce-nccl                              3024"
                   "           3024    +0.00%   1.0000  best\n"
                   "allgather       4            8  allgather-nccl                           3024"
                   "           3024    +0.00%   1.0000  best\n"
                   "allgather       4            8  allgather-nccl-ring                      3024"
                   "           6024   +99.21%   1.9921\n\n");
  ck_assert_msg(fennelsim("validate %s --model hockney --param alpha=1us --param beta=1ns "
                          "--family gpu --algo bcast=nccl --algo reduce=nccl --algo "
                          "allgather=nccl",
                          csv) == 0,
                "%s", err);
  fs_test_contains(out,
                   "allreduce       4            8  allreduce-nccl-ring                      5040"
                   "          12024  +138.57%   2.3857\n"
                   "allreduce       4            8  allreduce-nccl-tree                      5040"
                   "           5040    +0.00%   1.0000  best\n"
                   "allreduce       4            8  allreduce-nccl-collnet-direct            5040"
                   "           2016   -60.00%   2.5000\n"
                   "allreduce       4            8  allreduce-nccl-collnet-chain             5040"
                   "           2016   -60.00%   2.5000\n"
                   "bcast");
  /* the defaults under nccl are NCCL's, under hockney the MPI ones */
  ck_assert_msg(fennelsim("validate %s --model nccl --algo bcast=nccl --algo reduce=nccl --algo "
                          "allgather=nccl",
                          csv) == 0,
                "%s", err);
  fs_test_contains(out, "allreduce-nccl-tree");
  fs_test_contains(out, "  allreduce-nccl-collnet-chain: 1 row, the first on line 3: ");
  fs_test_contains(out, "expected at most 4 ranks on 4 nodes x 1 cores (got 5)\n");
  ck_assert_ptr_null(strstr(out, "allreduce-rd"));
  ck_assert_int_eq(fennelsim("validate %s --model hockney --algo bcast=nccl --algo reduce=nccl "
                             "--algo allgather=nccl",
                             csv),
                   0);
  fs_test_contains(out, "allreduce-rd");
  ck_assert_ptr_null(strstr(out, "allreduce-nccl"));
  ck_assert_int_eq(fennelsim("validate %s --model hockney --family any", csv), 2);
  ck_assert_str_eq(err, "fennelsim validate: --family any: expected mpi, gpu or all\n");
  remove(csv);
  free(csv);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("nccl_best");
  TCase *t = tcase_create("nccl_best");
  tcase_add_test(t, the_family_is_a_trait);
  tcase_add_test(t, nccl_variants);
  tcase_add_test(t, best_under_hockney_is_mpi);
  tcase_add_test(t, best_under_nccl_is_gpu);
  tcase_add_test(t, best_family_all);
  tcase_add_test(t, best_table_and_json);
  tcase_add_test(t, channel_bound_by_gpu);
  tcase_add_test(t, best_refusals);
  tcase_add_test(t, sweep_family);
  tcase_add_test(t, validate_takes_nccl);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(suite()); }
