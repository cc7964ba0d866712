/* test_nccl_model.c: the `nccl` network model (src/models/nccl.c, issue 21)
 * on programs built by hand: a ring AllReduce of one chunk per step, whose
 * time under the model is NCCL's own Ring formula lat + S / algBw on one
 * channel (platform/nccl_tuning.h), for Simple, LL and LL128, on one node
 * and on two; where the model and the formula part (a 2 x 2 ring); the
 * launch, the default protocol, the LL cap shared by the channels, put and
 * get, price, describe and the parameter errors.
 *
 * Hopper defaults: 30 GB/s a channel inside a node (30000 B/us), NVLink
 * hops (Ring: LL 0.6, LL128 1.9, Simple 3.4 us), base latency (Ring: LL
 * 6.6, LL128 14, Simple 8.4 us). A transfer of B bytes holds its channel
 * B / bw and lands one hop later. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "instruments/critical_path.h"
#include "instruments/timeline.h"
#include "model_support.h"
#include "platform/nccl_tuning.h"
#include "test_support.h"

#define US 1000000

static int32_t op(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer, int64_t size,
                  int cpu, int protocol) {
  int32_t t = fs_program_add(p, kind, rank);
  ck_assert_int_ge(t, 0);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, size);
  if (cpu) ck_assert_int_eq(fs_task_set_cpu(p, t, cpu), 0);
  if (protocol) ck_assert_int_eq(fs_task_set_protocol(p, t, protocol), 0);
  return t;
}

/* NCCL's ring AllReduce on one channel with one chunk a step: 2(k-1)
 * steps; at each, rank r sends `chunk` bytes to r + 1 and receives as much
 * from r - 1; its next send waits for that receive. */
static fs_program *ring(int32_t k, int64_t chunk, int protocol) {
  fs_program *p = fs_program_new(k);
  int32_t last[64];
  ck_assert_int_le(k, 64);
  for (int32_t t = 0; t < 2 * (k - 1); t++)
    for (int32_t r = 0; r < k; r++) {
      int32_t s = op(p, FS_SEND, r, (r + 1) % k, chunk, 0, protocol);
      if (t > 0) ck_assert_int_eq(fs_program_depend(p, s, last[r], FS_AFTER_END), 0);
      last[r] = op(p, FS_RECV, r, (r + k - 1) % k, chunk, 0, protocol);
    }
  fs_test_finalize(p);
  return p;
}

static fs_time makespan_with(fs_program *p, const char *model, const char *params) {
  fs_time t = fs_test_makespan(p, model, "fixed", params);
  fs_program_free(p);
  return t;
}

static fs_time makespan(fs_program *p, const char *params) {
  return makespan_with(p, "nccl", params);
}

/* NCCL's Ring time for an AllReduce of `bytes` on one channel of bw MB/s. */
static fs_time nccl_ring_time(int32_t k, int32_t nodes, int64_t bw, int protocol, int64_t bytes) {
  fs_nccl_call c = {.collective = FS_NCCL_ALLREDUCE,
                    .ranks = k,
                    .nodes = nodes,
                    .gpu = FS_NCCL_HOPPER,
                    .intra = FS_NCCL_NVLINK,
                    .channels = 1,
                    .bw_intra = bw,
                    .bw_inter = bw,
                    .bytes = bytes};
  fs_nccl_decision d;
  fs_error err = {{0}};
  ck_assert_msg(fs_nccl_decide(&c, &d, &err) == 0, "%s", err.message);
  return d.estimate[FS_NCCL_RING][protocol - 1].time;
}

/* Simple, k = 4 on one node, S = 12000 B: chunks of 3000 B take 3000 /
 * 30000 = 0.1 us; each of the 6 steps waits for the previous one's
 * arrival: 8.4 + 6 (3.4 + 0.1) = 29.4 us. NCCL: lat 8.4 + 6 x 3.4 = 28.8,
 * algBw 30000 x 4/6 = 20000, 12000 / 20000 = 0.6: 29.4 us. The same with
 * the tasks' protocol unset (the model's default, Simple). */
START_TEST(ring_simple_one_node_is_nccls_formula) {
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_SIMPLE), ""), 29400000);
  ck_assert_int_eq(nccl_ring_time(4, 1, 30000, FS_PROTOCOL_SIMPLE, 12000), 29400000);
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_NONE), ""), 29400000);
  /* k = 8, S = 24000: 8.4 + 14 (3.4 + 0.1) = 57.4 us */
  ck_assert_int_eq(makespan(ring(8, 3000, FS_PROTOCOL_SIMPLE), ""), 57400000);
  ck_assert_int_eq(nccl_ring_time(8, 1, 30000, FS_PROTOCOL_SIMPLE, 24000), 57400000);
}
END_TEST

/* LL: min(30000 / 2, 141000 / 1 channel) = 15000 B/us; 3000 B take 0.2
 * us: 6.6 + 6 (0.6 + 0.2) = 11.4 us. NCCL: 6.6 + 6 x 0.6 = 10.2, algBw
 * min(141000, 15000) x 4/6 = 10000: + 1.2 = 11.4. The same from
 * protocol=LL for tasks without one. */
START_TEST(ring_ll_one_node_is_nccls_formula) {
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_LL), ""), 11400000);
  ck_assert_int_eq(nccl_ring_time(4, 1, 30000, FS_PROTOCOL_LL, 12000), 11400000);
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_NONE), "protocol=LL"), 11400000);
}
END_TEST

/* LL128: min(0.92 x 30000, 36700) = 27600 B/us; 2760 B take 0.1 us: 14 +
 * 6 (1.9 + 0.1) = 26.0 us. NCCL: 14 + 6 x 1.9 = 25.4, algBw 27600 x 4/6 =
 * 18400, 11040 / 18400 = 0.6: 26.0. */
START_TEST(ring_ll128_one_node_is_nccls_formula) {
  ck_assert_int_eq(makespan(ring(4, 2760, FS_PROTOCOL_LL128), ""), 26000000);
  ck_assert_int_eq(nccl_ring_time(4, 1, 30000, FS_PROTOCOL_LL128, 11040), 26000000);
}
END_TEST

/* Two nodes of one GPU (nodes=2 cores=1), bw 48 GB/s both ways (NCCL
 * prices 2 nodes at bwIntra). Both hops cross the network, and with one
 * rank per node NCCL takes NET's Tree row: LL 5.0 us, Simple 14.
 * LL: min(24000, 39000 / 1) = 24000 B/us, 2400 B take 0.1 us: 6.6 + 2
 * (5.0 + 0.1) = 16.8 us. NCCL: nsteps 2, nInter 2: 6.6 + 2 x 5.0 = 16.6,
 * algBw 24000 x 2/2: + 4800 / 24000 = 0.2: 16.8.
 * Simple, 96 B (2 ns) a chunk: 8.4 + 2 (14 + 0.002) = 36.404 us. NCCL:
 * 8.4 + 2 x 14 = 36.4 + 192 / 48000 = 36.404 (192 B is below the ring
 * plateau, 64 x 2 channels x 2 ranks = 256 B, which the model has not). */
START_TEST(ring_two_nodes_is_nccls_formula) {
  const char *two = "nodes=2 cores=1 bw_intra=48 bw_inter=48";
  ck_assert_int_eq(makespan(ring(2, 2400, FS_PROTOCOL_LL), two), 16800000);
  ck_assert_int_eq(nccl_ring_time(2, 2, 48000, FS_PROTOCOL_LL, 4800), 16800000);
  ck_assert_int_eq(makespan(ring(2, 96, FS_PROTOCOL_SIMPLE), two), 36404000);
  ck_assert_int_eq(nccl_ring_time(2, 2, 48000, FS_PROTOCOL_SIMPLE, 192), 36404000);
}
END_TEST

/* Two nodes of two GPUs (nodes=2 cores=2): ring 0 -> 1 => 2 -> 3 => 0,
 * the network edges 1 -> 2 and 3 -> 0 (Ring NET Simple 14 us), the others
 * NVLink at max(3.4, 3 x 1 us overhead) = 3.4. Rank r's last receive ends
 * a chain of 6 consecutive edges: 2 edges twice and 2 once, so one
 * network edge twice and the other once: 3 network and 3 NVLink hops.
 * Chunks of 4800 B at 48000 B/us: 0.1 us. 8.4 + 3 (14 + 0.1) + 3 (3.4 +
 * 0.1) = 61.2 us for every rank. NCCL's formula counts 2(N-1) = 2 network
 * steps: 8.4 + 4 x 3.4 + 2 x 14 + 19200 / 32000 = 50.6 us (70.6 with its
 * plateau), one network hop less: 61.2 - 50.6 = 14 - 3.4. */
START_TEST(ring_two_by_two_crosses_the_network_three_times) {
  ck_assert_int_eq(makespan(ring(4, 4800, FS_PROTOCOL_SIMPLE),
                            "nodes=2 cores=2 bw_intra=48 bw_inter=48"),
                   61200000);
  fs_time formula = nccl_ring_time(4, 2, 48000, FS_PROTOCOL_SIMPLE, 19200);
  ck_assert_int_eq(formula, 70600000); /* (8.4 + 13.6 + 28) x 1.4 + 0.6 */
}
END_TEST

/* The tables the parameters pick, on the 4-rank ring of 3000 B chunks:
 * hops=tree: Tree's base and NVLink hop, Simple 8.4 + 6 (4.0 + 0.1) = 33.0
 * us, LL 6.8 + 6 (0.6 + 0.2) = 11.6; intra=pci: Ring's PCI hop, Simple 8.4
 * + 6 (5.7 + 0.1) = 43.2; gpu=volta (20 GB/s): LL128 min(18400, 20000),
 * 1840 B chunks take 0.1 us: 14 + 6 (1.9 + 0.1) = 26.0. On 2 nodes of 2
 * with cpu=amd the intra-node Ring hop costs at least 2 us (LL) and LL
 * runs at min(48000 / 2, 22500 (AMD's llMaxBw on 2 nodes) / 1 channel) =
 * 22500 B/us: chunks of 2250 B take 0.1 us, and as in the 2 x 2 ring
 * above 3 hops cross the network: 6.6 + 3 (2.7 + 0.1) + 3 (2 + 0.1) =
 * 21.3 us. */
START_TEST(parameters_pick_the_tables) {
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_SIMPLE), "hops=tree"), 33000000);
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_LL), "hops=tree"), 11600000);
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_SIMPLE), "intra=pci"), 43200000);
  ck_assert_int_eq(makespan(ring(4, 1840, FS_PROTOCOL_LL128), "gpu=volta"), 26000000);
  ck_assert_int_eq(makespan(ring(4, 2250, FS_PROTOCOL_LL),
                            "nodes=2 cores=2 cpu=amd bw_intra=48 bw_inter=48"),
                   21300000);
}
END_TEST

/* launch=1us instead of 8.4: 1 + 6 x 3.5 = 22 us; launch=0: 21 us. */
START_TEST(launch_delays_the_first_transfer) {
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_SIMPLE), "launch=1us"), 22000000);
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_SIMPLE), "launch=0"), 21000000);
}
END_TEST

/* The LL cap is NCCL's llMaxBw shared by the program's channels: with
 * bw_intra=400 GB/s and sends on CPUs 0 and 1, each channel runs LL at
 * min(200000, 141000 / 2) = 70500 B/us; 7050 B take 0.1 us, both in
 * parallel: 0.1 + 0.6 = 0.7 us (launch=0). On one channel: min(200000,
 * 141000) = 141000, 0.05 us: 0.65 us. */
START_TEST(ll_cap_is_shared_by_the_channels) {
  fs_program *p = fs_program_new(2);
  op(p, FS_SEND, 0, 1, 7050, 0, FS_PROTOCOL_LL);
  op(p, FS_SEND, 0, 1, 7050, 1, FS_PROTOCOL_LL);
  op(p, FS_RECV, 1, 0, 7050, 0, FS_PROTOCOL_LL);
  op(p, FS_RECV, 1, 0, 7050, 1, FS_PROTOCOL_LL);
  fs_test_finalize(p);
  ck_assert_int_eq(makespan(p, "bw_intra=400 launch=0"), 700000);
  p = fs_program_new(2);
  op(p, FS_SEND, 0, 1, 7050, 0, FS_PROTOCOL_LL);
  op(p, FS_RECV, 1, 0, 7050, 0, FS_PROTOCOL_LL);
  fs_test_finalize(p);
  ck_assert_int_eq(makespan(p, "bw_intra=400 launch=0"), 650000);
}
END_TEST

/* A put of 3000 B (Simple, launch=0): the channel busy 0.1 us, delivered
 * at 0.1 + 3.4 = 3.5 us (the target's finish). A get: request hop, data,
 * hop back: 3.4 + 0.1 + 3.4 = 6.9 us. Across nodes (nodes=2 cores=1) a
 * put at 48 GB/s and NET's Tree row: 4800 B, 0.1 + 14 = 14.1 us. */
START_TEST(put_and_get) {
  fs_program *p = fs_program_new(2);
  op(p, FS_PUT, 0, 1, 3000, 0, FS_PROTOCOL_SIMPLE);
  fs_test_finalize(p);
  ck_assert_int_eq(makespan(p, "launch=0"), 3500000);
  p = fs_program_new(2);
  op(p, FS_GET, 0, 1, 3000, 0, FS_PROTOCOL_SIMPLE);
  fs_test_finalize(p);
  ck_assert_int_eq(makespan(p, "launch=0"), 6900000);
  p = fs_program_new(2);
  op(p, FS_PUT, 0, 1, 4800, 0, FS_PROTOCOL_SIMPLE);
  fs_test_finalize(p);
  ck_assert_int_eq(makespan(p, "launch=0 nodes=2 cores=1 bw_inter=48"), 14100000);
}
END_TEST

/* price: after the channel's part, a send's hop (3.4 us, nothing per
 * size); a get holds the channel throughout: 2 hops and its data. */
START_TEST(price_and_describe) {
  fs_program *p = fs_program_new(2);
  int32_t s = op(p, FS_SEND, 0, 1, 3000, 0, FS_PROTOCOL_SIMPLE);
  op(p, FS_RECV, 1, 0, 3000, 0, FS_PROTOCOL_SIMPLE);
  int32_t g = op(p, FS_GET, 0, 1, 3000, 0, FS_PROTOCOL_LL);
  fs_test_finalize(p);
  fs_simulation run;
  fs_test_simulate(&run, p, "nccl", "fixed", "");
  ck_assert_int_eq(run.status, FS_RUN_OK);
  fs_time latency = -1, per_size = -1;
  ck_assert_int_eq(fs_network_model_price(&run.network, p, s, &latency, &per_size), 0);
  ck_assert_int_eq(latency, 3400000);
  ck_assert_int_eq(per_size, 0);
  ck_assert_int_eq(fs_network_model_price(&run.network, p, g, &latency, &per_size), 0);
  ck_assert_int_eq(latency, 1200000);
  ck_assert_int_eq(per_size, 200000); /* 3000 B at 15000 B/us */
  char text[512];
  fs_network_model_describe(&run.network, text, sizeof text);
  ck_assert_str_eq(text, "\"gpu\": \"hopper\", \"cpu\": \"intel\", \"intra\": \"nvlink\", "
                         "\"protocol\": \"Simple\", \"hops\": \"ring\", \"bw_intra_GBps\": 30, "
                         "\"bw_inter_GBps\": 48, \"launch\": \"base\", \"nvswitch\": 1, "
                         "\"nvls\": 1, \"collnet\": 0, \"nodes\": 1, \"cores\": 2, \"mapping\": "
                         "\"sequential\"");
  fs_test_run_free(&run);
  fs_test_simulate(&run, p, "nccl", "fixed",
                   "gpu=volta cpu=amd intra=pci protocol=LL128 hops=tree bw_inter=12.5 "
                   "launch=2us");
  fs_network_model_describe(&run.network, text, sizeof text);
  ck_assert_str_eq(text, "\"gpu\": \"volta\", \"cpu\": \"amd\", \"intra\": \"pci\", "
                         "\"protocol\": \"LL128\", \"hops\": \"tree\", \"bw_intra_GBps\": 20, "
                         "\"bw_inter_GBps\": 12.5, \"launch_ns\": 2000, \"nvswitch\": 1, "
                         "\"nvls\": 0, \"collnet\": 0, \"nodes\": 1, \"cores\": 2, \"mapping\": "
                         "\"sequential\"");
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* The critical path of the Simple ring (29.4 us): the first send waits
 * for the launch, 8.4 us; each of the 6 sends on the path holds its
 * channel 0.1 us (cpu) and is priced one hop, 3.4 us (latency): 0.6 and
 * 20.4 us; nothing is left unpriced. */
START_TEST(critical_path_parts) {
  fs_program *p = ring(4, 3000, FS_PROTOCOL_SIMPLE);
  fs_simulation run;
  fs_test_simulate(&run, p, "nccl", "fixed", "");
  ck_assert_int_eq(run.status, FS_RUN_OK);
  fs_timeline *timeline = fs_timeline_new(p);
  ck_assert_ptr_nonnull(timeline);
  fs_observer observer = fs_timeline_observer(timeline);
  fs_engine_add_observer(run.engine, &observer);
  ck_assert_int_eq(fs_engine_run(run.engine, &run.err), FS_RUN_OK);
  fs_error err;
  fs_critical_path *cp = fs_critical_path_compute(timeline, &run.network, &err);
  ck_assert_ptr_nonnull(cp);
  ck_assert_int_eq(cp->makespan, 29400000);
  ck_assert_int_eq(cp->part[FS_PATH_WAITING], 8400000);
  ck_assert_int_eq(cp->part[FS_PATH_CPU], 600000);
  ck_assert_int_eq(cp->part[FS_PATH_LATENCY], 20400000);
  ck_assert_int_eq(cp->part[FS_PATH_BANDWIDTH], 0);
  ck_assert_int_eq(cp->part[FS_PATH_CONTENTION], 0);
  ck_assert_int_eq(cp->part[FS_PATH_NETWORK], 0);
  fs_critical_path_free(cp);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* The shipped model files: nccl-dgx-h100.xml is the defaults (29.4 us
 * for the Simple ring above); nccl-dgx-a100.xml runs 20 GB/s channels:
 * 3000 B take 0.15 us, 8.4 + 6 (3.4 + 0.15) = 29.7 us. The machine facts
 * (nvswitch, nvls, collnet) change no Ring transfer: the same 29.4 us with
 * any of them; the B200 file has NVLS, the A100 file not. */
START_TEST(model_files) {
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_SIMPLE), "nvls=0 collnet=1"), 29400000);
  ck_assert_int_eq(makespan(ring(4, 3000, FS_PROTOCOL_SIMPLE), "nvswitch=0 collnet=1"), 29400000);
  char text[512];
  fs_program *p = ring(4, 3000, FS_PROTOCOL_SIMPLE);
  fs_simulation run;
  fs_test_simulate(&run, p, FENNELSIM_SOURCE_ROOT "/models/nccl-dgx-b200.xml", "fixed", "");
  fs_network_model_describe(&run.network, text, sizeof text);
  fs_test_contains(text, "\"nvswitch\": 1, \"nvls\": 1, \"collnet\": 0");
  fs_test_run_free(&run);
  fs_test_simulate(&run, p, FENNELSIM_SOURCE_ROOT "/models/nccl-dgx-a100.xml", "fixed", "");
  fs_network_model_describe(&run.network, text, sizeof text);
  fs_test_contains(text, "\"gpu\": \"ampere\"");
  fs_test_contains(text, "\"nvswitch\": 1, \"nvls\": 0, \"collnet\": 0");
  fs_test_run_free(&run);
  fs_program_free(p);
  ck_assert_int_eq(makespan_with(ring(4, 3000, FS_PROTOCOL_SIMPLE),
                                 FENNELSIM_SOURCE_ROOT "/models/nccl-dgx-h100.xml", ""),
                   29400000);
  ck_assert_int_eq(makespan_with(ring(4, 3000, FS_PROTOCOL_SIMPLE),
                                 FENNELSIM_SOURCE_ROOT "/models/nccl-dgx-a100.xml", ""),
                   29700000);
}
END_TEST

/* Each parameter refuses what it cannot take, naming what it expects. */
START_TEST(parameter_errors) {
  const struct {
    const char *params, *message;
  } cases[] = {
      {"gpu=h100", "--param gpu=h100: expected volta, ampere, hopper or blackwell"},
      {"cpu=arm", "--param cpu=arm: expected intel or amd"},
      {"intra=net", "--param intra=net: expected nvlink or pci"},
      {"hops=nvls", "--param hops=nvls: expected ring or tree"},
      {"protocol=ll", "--param protocol=ll: expected LL, LL128 or Simple"},
      {"bw_intra=0", "--param bw_intra=0: expected GB/s per channel, 0.001 to 16777.216 (at "
                     "most 3 decimals, optionally followed by GB/s)"},
      {"nvls=yes", "--param nvls=yes: expected 0 or 1"},
      {"collnet=2", "--param collnet=2: expected 0 or 1"},
      {"gpu=ampere nvls=1", "--param nvls=1: NVLS needs gpu=hopper or blackwell and nvswitch=1"},
      {"nvswitch=0 nvls=1", "--param nvls=1: NVLS needs gpu=hopper or blackwell and nvswitch=1"},
      {"bw_inter=1.2345",
       "--param bw_inter=1.2345: expected GB/s per channel, 0.001 to 16777.216 (at most 3 "
       "decimals, optionally followed by GB/s)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[128];
    fs_parameter items[16];
    fs_parameters params;
    fs_network_model m;
    fs_error err = {{0}};
    snprintf(text, sizeof text, "%s", cases[i].params);
    ck_assert_int_eq(fs_test_parameters(text, items, &params), 0);
    ck_assert_int_eq(fs_network_model_create("nccl", &params, &m, &err), -1);
    ck_assert_str_eq(err.message, cases[i].message);
  }
  fs_parameter items[16];
  fs_parameters params;
  fs_network_model m;
  fs_error err = {{0}};
  char text[] = "launch=-1us";
  ck_assert_int_eq(fs_test_parameters(text, items, &params), 0);
  ck_assert_int_eq(fs_network_model_create("nccl", &params, &m, &err), -1);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("nccl_model");
  TCase *t = tcase_create("model");
  tcase_add_test(t, ring_simple_one_node_is_nccls_formula);
  tcase_add_test(t, ring_ll_one_node_is_nccls_formula);
  tcase_add_test(t, ring_ll128_one_node_is_nccls_formula);
  tcase_add_test(t, ring_two_nodes_is_nccls_formula);
  tcase_add_test(t, ring_two_by_two_crosses_the_network_three_times);
  tcase_add_test(t, parameters_pick_the_tables);
  tcase_add_test(t, launch_delays_the_first_transfer);
  tcase_add_test(t, ll_cap_is_shared_by_the_channels);
  tcase_add_test(t, put_and_get);
  tcase_add_test(t, price_and_describe);
  tcase_add_test(t, critical_path_parts);
  tcase_add_test(t, model_files);
  tcase_add_test(t, parameter_errors);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(suite()); }
