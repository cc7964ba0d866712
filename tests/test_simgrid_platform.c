/* test_simgrid_platform.c: SimGrid platform files (simgrid_platform.h) and
 * the routed network (network.h): SimGrid's units to the bit, routes that
 * SimGrid 3.32 printed for the same platforms (Host::route_to; the route
 * differential test compares every pair when SimGrid is installed), the
 * rank -> host mappings, and every error message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/network.h"
#include "platform/network_build.h"
#include "platform/platform_xml.h"
#include "platform/simgrid_platform.h"
#include "test_support.h"

#define HEAD                                                                                \
  "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n" \
  "<platform version=\"4.1\">\n"

static fs_network *read_text(const char *text, fs_error *err) {
  return fs_simgrid_platform_read_memory(text, strlen(text), "s.xml", err);
}

static void expect_error(const char *text, const char *message) {
  fs_error err = {{0}};
  fs_network *n = read_text(text, &err);
  ck_assert_ptr_null(n);
  ck_assert_str_eq(err.message, message);
}

/* The route src -> dst as "LATENCY LINK LINK ..." (%.17g). */
static const char *route_text(const fs_network *n, const char *src, const char *dst) {
  static char text[4096];
  int32_t links[FS_NETWORK_MAX_ROUTE], count;
  double latency;
  fs_error err;
  int32_t s = fs_network_host_by_name(n, src), d = fs_network_host_by_name(n, dst);
  ck_assert_int_ge(s, 0);
  ck_assert_int_ge(d, 0);
  if (fs_network_route(n, s, d, links, FS_NETWORK_MAX_ROUTE, &count, &latency, &err)) {
    snprintf(text, sizeof text, "error %s", err.message);
    return text;
  }
  size_t at = (size_t)snprintf(text, sizeof text, "%.17g", latency);
  for (int32_t i = 0; i < count; i++)
    at += (size_t)snprintf(text + at, sizeof text - at, " %s", fs_network_link_name(n, links[i]));
  return text;
}

static fs_network *must_read(const char *text) {
  fs_error err = {{0}};
  fs_network *n = read_text(text, &err);
  ck_assert_msg(n != NULL, "%s", err.message);
  return n;
}

/* SimGrid multiplies strtod's value by the unit's factor: 10us is
 * 10 * 1e-6 = 9.9999999999999991e-06, not 1e-5; Mbps is 1e6 * 0.125;
 * MiBps 1048576; m is a minute. */
START_TEST(units) {
  fs_network *n = must_read(HEAD
                            "<zone id='z' routing='Full'>"
                            "<host id='a' speed='1Gf' core='4'/><host id='b' speed='2kiloflops'/>"
                            "<link id='l1' bandwidth='8Mbps' latency='10us'/>"
                            "<link id='l2' bandwidth='1MiBps' latency='1m'/>"
                            "<link id='l3' bandwidth='3' latency='2'/>"
                            "</zone></platform>");
  ck_assert(fs_network_link_bandwidth(n, fs_network_link_by_name(n, "l1")) == 1e6);
  ck_assert(fs_network_link_latency(n, fs_network_link_by_name(n, "l1")) == 10 * 1e-6);
  ck_assert(fs_network_link_bandwidth(n, fs_network_link_by_name(n, "l2")) == 1048576);
  ck_assert(fs_network_link_latency(n, fs_network_link_by_name(n, "l2")) == 60);
  ck_assert(fs_network_link_bandwidth(n, fs_network_link_by_name(n, "l3")) == 3);
  ck_assert(fs_network_host_speed(n, 0) == 1e9);
  ck_assert(fs_network_host_speed(n, 1) == 2000);
  ck_assert_int_eq(fs_network_host_cores(n, 0), 4);
  ck_assert_int_eq(fs_network_host_cores(n, 1), 1);
  fs_network_free(n);
}
END_TEST

/* Routes as SimGrid 3.32 prints them (Host::route_to), including the
 * latency's last bit: a flat cluster's h0 -> h1 sums 50us + 500us + 50us
 * to 0.00060000000000000006. */
START_TEST(cluster_routes) {
  fs_network *n = must_read(HEAD "<cluster id='c' prefix='h' suffix='' radical='0-3' speed='1Gf' "
                                 "bw='125MBps' lat='50us' bb_bw='2.25GBps' bb_lat='500us'/>"
                                 "</platform>");
  ck_assert_str_eq(route_text(n, "h0", "h1"),
                   "0.00060000000000000006 c_link_0_UP c_backbone c_link_1_DOWN");
  fs_network_free(n);
  n = must_read(HEAD "<cluster id='t' prefix='n' suffix='' radical='0-11' speed='1Gf' bw='1GBps' "
                     "lat='1us' topology='TORUS' topo_parameters='4,3'/></platform>");
  ck_assert_str_eq(route_text(n, "n0", "n3"), "9.9999999999999995e-07 t_link_from_3_to_0_DOWN");
  ck_assert_str_eq(route_text(n, "n3", "n1"),
                   "1.9999999999999999e-06 t_link_from_3_to_0_UP t_link_from_0_to_1_UP");
  ck_assert_str_eq(route_text(n, "n0", "n11"),
                   "1.9999999999999999e-06 t_link_from_3_to_0_DOWN t_link_from_11_to_3_DOWN");
  fs_network_free(n);
  n = must_read(HEAD "<cluster id='f' prefix='n' suffix='' radical='0-15' speed='1Gf' bw='1GBps' "
                     "lat='1us' topology='FAT_TREE' topo_parameters='2;4,4;1,2;1,2'/></platform>");
  ck_assert_str_eq(route_text(n, "n0", "n5"),
                   "3.9999999999999998e-06 link_from_0_31_0_UP link_from_31_26_18_UP "
                   "link_from_30_26_22_DOWN link_from_5_30_5_DOWN");
  ck_assert_str_eq(route_text(n, "n0", "n0"),
                   "1.9999999999999999e-06 link_from_0_31_0_UP link_from_0_31_0_DOWN");
  fs_network_free(n);
  n = must_read(HEAD "<cluster id='d' prefix='n' suffix='' radical='0-15' speed='1Gf' bw='1GBps' "
                     "lat='1us' topology='DRAGONFLY' topo_parameters='2,1;2,1;2,1;2'/></platform>");
  ck_assert_str_eq(route_text(n, "n3", "n12"),
                   "3.9999999999999998e-06 local_link_from_router_1_to_node_1_3_UP "
                   "blue_link_between_group_0_and_1_routers_1_and_4_24_UP "
                   "black_link_in_group_1_between_chassis_0_and_1_blade_0_22_UP "
                   "local_link_from_router_6_to_node_0_12_DOWN");
  fs_network_free(n);
}
END_TEST

/* Zones: a Full zone's same-host route is the model's loopback; between
 * zones, SimGrid adds the zoneRoute's latency first (c1's side then c2's). */
START_TEST(zone_routes) {
  fs_network *n =
      must_read(HEAD "<zone id='w' routing='Full'>"
                     "<cluster id='c1' prefix='a' suffix='' radical='0-1' speed='1Gf' bw='125MBps' "
                     "lat='50us' bb_bw='2.25GBps' bb_lat='500us'/>"
                     "<cluster id='c2' prefix='b' suffix='' radical='0-1' speed='1Gf' bw='125MBps' "
                     "lat='50us' sharing_policy='SHARED' limiter_link='1GBps'/>"
                     "<link id='inter' bandwidth='1GBps' latency='1ms'/>"
                     "<zoneRoute src='c1' dst='c2' gw_src='ac1_router' gw_dst='bc2_router'>"
                     "<link_ctn id='inter'/></zoneRoute></zone></platform>");
  ck_assert_str_eq(route_text(n, "a0", "b1"),
                   "0.0015999999999999999 c1_link_0_UP c1_backbone inter c2_link_1 "
                   "c2_link_1_limiter");
  ck_assert_str_eq(route_text(n, "b1", "a0"),
                   "0.0015999999999999999 c2_link_1_limiter c2_link_1 inter c1_backbone "
                   "c1_link_0_DOWN");
  ck_assert_str_eq(route_text(n, "b0", "b0"), "4.9999999999999996e-05 c2_link_0_limiter c2_link_0");
  fs_network_free(n);
  n = must_read(HEAD "<zone id='z' routing='Full'><host id='A' speed='1Gf'/><host id='B' "
                     "speed='1Gf'/><link id='L' bandwidth='1MBps' latency='10ms' "
                     "sharing_policy='SPLITDUPLEX'/>"
                     "<route src='A' dst='B'><link_ctn id='L' direction='UP'/></route>"
                     "</zone></platform>");
  ck_assert_str_eq(route_text(n, "A", "B"), "0.01 L_UP");
  ck_assert_str_eq(route_text(n, "B", "A"), "0.01 L_DOWN");
  ck_assert_str_eq(route_text(n, "A", "A"), "0 __loopback__");
  fs_network_free(n);
}
END_TEST

/* Floyd: the fewest links win, even over a declared route (A -> C declared
 * with 3 links, A -> B -> C has 2). */
START_TEST(floyd_routes) {
  fs_network *n = must_read(
      HEAD "<zone id='z' routing='Floyd'><host id='A' speed='1Gf'/><host id='B' speed='1Gf'/>"
           "<host id='C' speed='1Gf'/><link id='l1' bandwidth='1MBps' latency='1ms'/>"
           "<link id='l2' bandwidth='1MBps' latency='2ms'/><link id='l3' bandwidth='1MBps' "
           "latency='3ms'/><route src='A' dst='B'><link_ctn id='l1'/></route>"
           "<route src='B' dst='C'><link_ctn id='l2'/></route><route src='A' dst='C'>"
           "<link_ctn id='l3'/><link_ctn id='l3'/><link_ctn id='l3'/></route></zone></platform>");
  ck_assert_str_eq(route_text(n, "A", "C"), "0.0030000000000000001 l1 l2");
  ck_assert_str_eq(route_text(n, "C", "A"), "0.0030000000000000001 l2 l1");
  fs_network_free(n);
}
END_TEST

START_TEST(mapping) {
  fs_network *n = must_read(HEAD "<zone id='z' routing='Full'><host id='a' speed='1Gf' core='2'/>"
                                 "<host id='b' speed='1Gf'/><host id='c' speed='1Gf' core='3'/>"
                                 "</zone></platform>");
  int32_t host[6];
  fs_error err;
  ck_assert_int_eq(fs_network_map(n, FS_MAPPING_SEQUENTIAL, 6, host, &err), 0);
  int32_t sequential[6] = {0, 0, 1, 2, 2, 2}, round_robin[6] = {0, 1, 2, 0, 2, 2};
  for (int i = 0; i < 6; i++) ck_assert_int_eq(host[i], sequential[i]);
  ck_assert_int_eq(fs_network_map(n, FS_MAPPING_ROUND_ROBIN, 6, host, &err), 0);
  for (int i = 0; i < 6; i++) ck_assert_int_eq(host[i], round_robin[i]);
  ck_assert_int_eq(fs_network_map(n, FS_MAPPING_SEQUENTIAL, 7, host, &err), -1);
  ck_assert_str_eq(err.message, "7 ranks do not fit on the platform's 6 cores (3 hosts)");
  fs_network_free(n);
}
END_TEST

/* Other models read a SimGrid file as one node per host. */
START_TEST(as_fennelsim_platform) {
  const char *text = HEAD "<cluster id='c' prefix='h' suffix='' radical='0-3' speed='1Gf' "
                          "core='2' bw='1GBps' lat='1us'/></platform>";
  fs_error err;
  fs_platform *p = fs_platform_read_xml_memory(text, strlen(text), "s.xml", 0, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->nodes, 4);
  ck_assert_int_eq(p->cores, 2);
  ck_assert_int_eq(p->ranks, 8);
  fs_platform_free(p);
}
END_TEST

START_TEST(errors) {
  expect_error(HEAD "</platform>", "s.xml:3: expected at least one host");
  expect_error("<?xml version='1.0'?>\n<platform version='3'>\n</platform>",
               "s.xml:2: expected version=\"4.1\" (or 4, 4.0: SimGrid's platform format 4; got "
               "\"3\")");
  expect_error("<!DOCTYPE platform SYSTEM 'x' [<!ENTITY a 'b'>]>\n<platform version='4.1'/>",
               "s.xml:1: expected no DOCTYPE but <!DOCTYPE platform SYSTEM \"...\"> without an "
               "internal subset (DTDs and entities are not read)");
  expect_error(HEAD "<zone id='z' routing='Full'>\n<link id='l' bandwidth='1KBps'/>\n</zone>"
                    "</platform>",
               "s.xml:5: expected bandwidth=\"a bandwidth: a number and Bps or bps with k M G "
               "... or Ki Mi Gi ...\" (got \"1KBps\")");
  expect_error(HEAD "<zone id='z' routing='Full'>\n<host id='a' speed='1Kf'/></zone></platform>",
               "s.xml:5: expected speed=\"a speed: a number and f with k M G ... or flops, "
               "kiloflops ...\" (got \"1Kf\")");
  expect_error(HEAD "<zone id='z' routing='Full'>\n<host id='a' speed='1Gf'/>\n<host id='a' "
                    "speed='1Gf'/></zone></platform>",
               "s.xml:6: a declared twice (hosts, routers and zones share one namespace)");
  expect_error(HEAD "<zone id='z' routing='Full'>\n<host id='a' speed='1Gf'/>\n<link id='L' "
                    "bandwidth='1Bps' sharing_policy='SPLITDUPLEX'/>\n<route src='a' dst='a'>"
                    "<link_ctn id='L'/></route></zone></platform>",
               "s.xml:7: expected a link declared before (got L: a SPLITDUPLEX link needs "
               "direction=\"UP\" or \"DOWN\")");
  expect_error(HEAD "<zone id='z' routing='Cluster'/></platform>",
               "s.xml:4: expected routing= one of Full, Floyd, Dijkstra, DijkstraCache (got "
               "\"Cluster\")");
  expect_error(HEAD "<config/></platform>",
               "s.xml:4: expected <zone>, <cluster> or <prop> inside <platform> (got <config>)");
  expect_error(HEAD "<cluster id='f' prefix='n' suffix='' radical='0-14' speed='1Gf' bw='1GBps' "
                    "lat='1us' topology='FAT_TREE' topo_parameters='2;4,4;1,2;1,2'/></platform>",
               "s.xml:4: cluster f: FAT_TREE has 16 hosts for 15 radicals");
  expect_error(HEAD "<cluster id='t' prefix='n' suffix='' radical='0-3' speed='1Gf' bw='1GBps' "
                    "lat='1us' topology='TORUS' topo_parameters='2;2'/></platform>",
               "s.xml:4: expected topo_parameters=\"d0,d1,...: up to 16 dimensions, each >= 1\" "
               "(got \"2;2\")");
}
END_TEST

/* The sniff tells the two formats apart by the root's version attribute. */
START_TEST(sniff) {
  const char *simgrid = HEAD, *ours = "<platform nodes='2' cores='4'/>";
  ck_assert_int_eq(fs_simgrid_platform_sniff(simgrid, strlen(simgrid)), 1);
  ck_assert_int_eq(fs_simgrid_platform_sniff(ours, strlen(ours)), 0);
}
END_TEST

static Suite *simgrid_platform_suite(void) {
  Suite *suite = suite_create("simgrid_platform");
  TCase *c = tcase_create("read");
  tcase_add_test(c, units);
  tcase_add_test(c, cluster_routes);
  tcase_add_test(c, zone_routes);
  tcase_add_test(c, floyd_routes);
  tcase_add_test(c, mapping);
  tcase_add_test(c, as_fennelsim_platform);
  tcase_add_test(c, errors);
  tcase_add_test(c, sniff);
  suite_add_tcase(suite, c);
  return suite;
}

int main(void) { return fs_test_run(simgrid_platform_suite()); }
