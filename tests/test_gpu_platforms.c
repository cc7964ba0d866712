/* test_gpu_platforms.c: the GPU platforms shipped in models/ (written by
 * tools/gpu_platforms.py; docs/MODELS.md, "GPU platforms"): both load, their
 * routes cross the links they should (NVLink inside a node, the NICs and
 * the rail leaves or the spines between nodes), and the flow model's times
 * on them, derived by hand from its formulas (docs/MODELS.md, "flow": a
 * transfer alone ends at L + size/bw_min; flows sharing a bottleneck get
 * rates in proportion to 1/L), asserted to the picosecond (the model posts
 * each end rounded up to the next picosecond). The route differential test
 * (simgrid_route_diff) compares every pair of both files with SimGrid's own
 * routes when SimGrid is installed. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "core/engine.h"
#include "models/flow.h"
#include "models/model_registry.h"
#include "platform/network.h"
#include "platform/simgrid_platform.h"
#include "model_support.h"
#include "test_support.h"

#define NODE FENNELSIM_SOURCE_ROOT "/models/h100-nvswitch-node.xml"
#define FAT_TREE FENNELSIM_SOURCE_ROOT "/models/h100-4x8-rail-fat-tree.xml"
#define MIB 1048576

static fs_network *load(const char *path) {
  fs_error err = {{0}};
  fs_network *n = fs_simgrid_platform_read(path, &err);
  ck_assert_msg(n != NULL, "%s", err.message);
  return n;
}

/* The route of host src -> dst as "LATENCY LINK LINK ..." (%.17g). */
static const char *route_text(const fs_network *n, int32_t src, int32_t dst) {
  static char text[1024];
  int32_t links[FS_NETWORK_MAX_ROUTE], count;
  double latency;
  fs_error err;
  ck_assert_int_eq(fs_network_route(n, src, dst, links, FS_NETWORK_MAX_ROUTE, &count, &latency,
                                    &err),
                   0);
  size_t at = (size_t)snprintf(text, sizeof text, "%.17g", latency);
  for (int32_t i = 0; i < count; i++)
    at += (size_t)snprintf(text + at, sizeof text - at, " %s", fs_network_link_name(n, links[i]));
  return text;
}

/* The node: 8 GPU hosts, each with its 370.8 GB/s link to the switch split
 * in two directions, and the switch as host 8; a route is the source's up
 * half and the destination's down half, 300 ns each (SimGrid: 300 x 1e-9
 * twice = 6.000000000000001e-07); to or from the switch, the GPU's half
 * alone, 300 x 1e-9 = 3.0000000000000004e-07 (NVLS's switch rank: nccl_nvls.c). */
START_TEST(node_routes) {
  fs_network *n = load(NODE);
  ck_assert_int_eq(fs_network_hosts(n), 9);
  ck_assert_str_eq(fs_network_host_name(n, 5), "gpu-5");
  ck_assert_str_eq(fs_network_host_name(n, 8), "nvswitch");
  ck_assert_str_eq(route_text(n, 3, 8), "3.0000000000000004e-07 nvswitch_link_3_UP");
  ck_assert_str_eq(route_text(n, 8, 6), "3.0000000000000004e-07 nvswitch_link_6_DOWN");
  ck_assert_str_eq(route_text(n, 0, 5),
                   "6.0000000000000008e-07 nvswitch_link_0_UP nvswitch_link_5_DOWN");
  ck_assert_str_eq(route_text(n, 7, 2),
                   "6.0000000000000008e-07 nvswitch_link_7_UP nvswitch_link_2_DOWN");
  int32_t links[FS_NETWORK_MAX_ROUTE], count;
  double latency;
  fs_error err;
  ck_assert_int_eq(fs_network_route(n, 3, 4, links, FS_NETWORK_MAX_ROUTE, &count, &latency, &err),
                   0);
  for (int i = 0; i < count; i++) ck_assert(fs_network_link_bandwidth(n, links[i]) == 370.8e9);
  fs_network_free(n);
}
END_TEST

/* Whether every link of the route src -> dst starts with prefix. */
static int all_links(const fs_network *n, int32_t src, int32_t dst, const char *prefix,
                     int32_t *count) {
  int32_t links[FS_NETWORK_MAX_ROUTE];
  double latency;
  fs_error err;
  ck_assert_int_eq(fs_network_route(n, src, dst, links, FS_NETWORK_MAX_ROUTE, count, &latency,
                                    &err),
                   0);
  for (int32_t i = 0; i < *count; i++)
    if (strncmp(fs_network_link_name(n, links[i]), prefix, strlen(prefix))) return 0;
  return 1;
}

/* The fat tree: gpu-R is GPU R mod 8 of node R div 8. Inside a node:
 * NVLink up and down (600 ns); one rail (same GPU index): the two NICs
 * (500 ns each); across rails: NIC, the source leaf's link to spine
 * (destination node), that spine's link down to the destination leaf,
 * NIC (500 + 130 + 130 + 500 ns). Every pair: 2 NVLink links inside a node,
 * no NVLink between nodes (2 or 4 links). */
START_TEST(fat_tree_routes) {
  fs_network *n = load(FAT_TREE);
  ck_assert_int_eq(fs_network_hosts(n), 32);
  ck_assert_int_eq(fs_network_links(n), 3 * 32 * 2 + 1); /* each split in two; the loopback */
  ck_assert_str_eq(route_text(n, 0, 5), "6.0000000000000008e-07 nvlink-0-0_UP nvlink-0-5_DOWN");
  ck_assert_str_eq(route_text(n, 0, 8), "1.0000000000000002e-06 nic-0-0_UP nic-1-0_DOWN");
  ck_assert_str_eq(route_text(n, 0, 13), "1.2600000000000002e-06 nic-0-0_UP leaf-0-spine-1_UP "
                                         "leaf-5-spine-1_DOWN nic-1-5_DOWN");
  ck_assert_str_eq(route_text(n, 13, 0), "1.2600000000000002e-06 nic-1-5_UP leaf-5-spine-0_UP "
                                         "leaf-0-spine-0_DOWN nic-0-0_DOWN");
  ck_assert_str_eq(route_text(n, 31, 17), "1.2600000000000002e-06 nic-3-7_UP leaf-7-spine-2_UP "
                                          "leaf-1-spine-2_DOWN nic-2-1_DOWN");
  for (int32_t s = 0; s < 32; s++)
    for (int32_t d = 0; d < 32; d++) {
      if (s == d) continue;
      int32_t count;
      if (s / 8 == d / 8) {
        ck_assert(all_links(n, s, d, "nvlink-", &count));
        ck_assert_int_eq(count, 2);
      } else {
        all_links(n, s, d, "", &count);
        ck_assert_int_eq(count, s % 8 == d % 8 ? 2 : 4);
        ck_assert(!all_links(n, s, d, "nvlink-", &count)); /* the first link is the NIC */
        char route[1024];
        snprintf(route, sizeof route, "%s", route_text(n, s, d));
        ck_assert_ptr_null(strstr(route, "nvlink"));
      }
    }
  fs_network_free(n);
}
END_TEST

static void on_remote(void *state, int32_t task, fs_time t) {
  if (task < 4) ((fs_time *)state)[task] = t;
}

/* Runs puts of `bytes` src[i] -> dst[i] (one rank per host), all at time
 * 0, under the flow model (CM02) on the file's network; each put's remote
 * completion into end[i]. */
static void run_puts(const char *path, const int32_t *src, const int32_t *dst, int count,
                     fs_time *end) {
  fs_network *n = load(path);
  fs_program *p = fs_program_new(fs_network_hosts(n));
  int32_t puts[4];
  for (int i = 0; i < count; i++) {
    puts[i] = fs_program_add(p, FS_PUT, src[i]);
    fs_task_set_peer(p, puts[i], dst[i]);
    fs_task_set_size(p, puts[i], MIB);
    fs_task_set_flag(p, puts[i], FS_CONCURRENT);
  }
  fs_test_finalize(p);
  fs_flow_settings settings;
  fs_flow_settings_default(&settings, 0);
  fs_network_model model;
  fs_compute_model compute;
  fs_error err = {{0}};
  ck_assert_int_eq(fs_flow_create_on(n, &settings, "flow", &model, &err), 0);
  ck_assert_int_eq(fs_compute_model_create("fixed", NULL, &compute, &err), 0);
  fs_engine *e = fs_engine_new(p, &model, &compute, &err);
  ck_assert_ptr_nonnull(e);
  fs_time at[4] = {0};
  fs_observer observer = {.state = at, .remote_complete = on_remote};
  fs_engine_add_observer(e, &observer);
  ck_assert_msg(fs_engine_run(e, &err) == FS_RUN_OK, "%s", err.message);
  for (int i = 0; i < count; i++) end[i] = at[puts[i]];
  fs_engine_free(e);
  fs_network_model_destroy(&model);
  fs_compute_model_destroy(&compute);
  fs_program_free(p);
}

/* 1 MiB alone, L + 1048576 / bw_min (doubles, as SimGrid):
 * - node, gpu-0 -> gpu-1: 6.000000000000001e-07 + 1048576 / 370.8e9
 *   = 3.4278748651564186e-06 s -> 3427875 ps (rounded up);
 * - fat tree, gpu-0 -> gpu-3 (NVLink): the same, 3427875 ps;
 * - fat tree, gpu-0 -> gpu-8 (one rail): 1.0000000000000002e-06 + 1048576 /
 *   50e9 = 2.197152e-05 s: 21971520 ps;
 * - fat tree, gpu-0 -> gpu-13 (across rails, through spine 1):
 *   1.2600000000000002e-06 + 2.097152e-05 = 2.223152e-05 s: 22231520 ps. */
START_TEST(flow_alone) {
  fs_time end[1];
  run_puts(NODE, (int32_t[]){0}, (int32_t[]){1}, 1, end);
  ck_assert_int_eq(end[0], 3427875);
  run_puts(FAT_TREE, (int32_t[]){0}, (int32_t[]){3}, 1, end);
  ck_assert_int_eq(end[0], 3427875);
  run_puts(FAT_TREE, (int32_t[]){0}, (int32_t[]){8}, 1, end);
  ck_assert_int_eq(end[0], 21971520);
  run_puts(FAT_TREE, (int32_t[]){0}, (int32_t[]){13}, 1, end);
  ck_assert_int_eq(end[0], 22231520);
}
END_TEST

/* Sharing. gpu-0 -> gpu-8 and gpu-16 -> gpu-8 (rail 0, nodes 0 and 2 to
 * node 1) both end on nic-1-0_DOWN, with equal latencies 1.0000000000000002e-06
 * s: 25 GB/s each, both end at L + 1048576 / 25e9 = 4.294304e-05 s: 42943040
 * ps. gpu-0 -> gpu-8 and gpu-1 -> gpu-9 (two rails, nothing shared) are
 * not slowed: 21971520 ps each, as alone. And gpu-0 -> gpu-1 with gpu-0 ->
 * gpu-8: NVLink and the NIC are separate links: 3427875 and 21971520 ps. */
START_TEST(flow_sharing) {
  fs_time end[2];
  run_puts(FAT_TREE, (int32_t[]){0, 16}, (int32_t[]){8, 8}, 2, end);
  ck_assert_int_eq(end[0], 42943040);
  ck_assert_int_eq(end[1], 42943040);
  run_puts(FAT_TREE, (int32_t[]){0, 1}, (int32_t[]){8, 9}, 2, end);
  ck_assert_int_eq(end[0], 21971520);
  ck_assert_int_eq(end[1], 21971520);
  run_puts(FAT_TREE, (int32_t[]){0, 0}, (int32_t[]){1, 8}, 2, end);
  ck_assert_int_eq(end[0], 3427875);
  ck_assert_int_eq(end[1], 21971520);
}
END_TEST

int main(void) {
  Suite *s = suite_create("gpu_platforms");
  TCase *t = tcase_create("gpu_platforms");
  tcase_add_test(t, node_routes);
  tcase_add_test(t, fat_tree_routes);
  tcase_add_test(t, flow_alone);
  tcase_add_test(t, flow_sharing);
  suite_add_tcase(s, t);
  return fs_test_run(s);
}
