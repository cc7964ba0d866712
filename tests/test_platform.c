/* test_platform.c: the platform (nodes, cores, level tree, channels, rank
 * -> node mappings) and its XML reader: mapping arithmetic, levels between
 * ranks, every error message exactly, hostile XML (entity bombs, external
 * entities, DOCTYPEs, size and element limits) and the shipped models/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform/platform.h"
#include "platform/platform_xml.h"
#include "test_support.h"

#define NO_RANKS 0

static fs_platform *from_text(const char *text, int64_t ranks, fs_error *err) {
  return fs_platform_read_xml_memory(text, strlen(text), "t.xml", ranks, err);
}

/* The text must fail with exactly this message. */
static void expect_error(const char *text, int64_t ranks, const char *message) {
  fs_error err = {{0}};
  fs_platform *p = from_text(text, ranks, &err);
  ck_assert_ptr_null(p);
  ck_assert_str_eq(err.message, message);
}

/* The text must fail with a message starting with prefix. */
static void expect_prefix(const char *text, int64_t ranks, const char *prefix) {
  fs_error err = {{0}};
  fs_platform *p = from_text(text, ranks, &err);
  ck_assert_ptr_null(p);
  ck_assert_msg(strncmp(err.message, prefix, strlen(prefix)) == 0, "got \"%s\", want prefix \"%s\"",
                err.message, prefix);
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- mapping arithmetic ---------------------------------------------- */

START_TEST(sequential) {
  fs_error err;
  fs_platform *p = fs_platform_new(4, 8, &err);
  ck_assert_int_eq(fs_platform_map_sequential(p, 32, &err), 0);
  ck_assert_int_eq(p->mapping, FS_MAPPING_SEQUENTIAL);
  ck_assert_int_eq(p->ranks, 32);
  const int32_t expect[][2] = {{0, 0}, {7, 0}, {8, 1}, {15, 1}, {16, 2}, {24, 3}, {31, 3}};
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
    ck_assert_int_eq(fs_platform_node_of(p, expect[i][0]), expect[i][1]);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 7), 0);
  ck_assert_int_eq(fs_platform_level_between(p, 7, 8), 1);
  ck_assert_int_eq(p->top_level, 1);
  /* fewer ranks than cores: the last node stays empty */
  ck_assert_int_eq(fs_platform_map_sequential(p, 10, &err), 0);
  ck_assert_int_eq(p->ranks, 10);
  ck_assert_int_eq(fs_platform_node_of(p, 9), 1);
  fs_platform_free(p);
}
END_TEST

START_TEST(round_robin) {
  fs_error err;
  fs_platform *p = fs_platform_new(4, 8, &err);
  ck_assert_int_eq(fs_platform_map_round_robin(p, 32, &err), 0);
  ck_assert_int_eq(p->mapping, FS_MAPPING_ROUND_ROBIN);
  const int32_t expect[][2] = {{0, 0}, {1, 1}, {3, 3}, {4, 0}, {5, 1}, {30, 2}, {31, 3}};
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
    ck_assert_int_eq(fs_platform_node_of(p, expect[i][0]), expect[i][1]);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 4), 0);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 1), 1);
  fs_platform_free(p);
}
END_TEST

START_TEST(explicit) {
  fs_error err;
  fs_platform *p = fs_platform_new(3, 2, &err);
  const int32_t nodes[] = {2, 0, 2, 1, 0};
  ck_assert_int_eq(fs_platform_map_explicit(p, 5, nodes, &err), 0);
  ck_assert_int_eq(p->mapping, FS_MAPPING_EXPLICIT);
  for (int32_t i = 0; i < 5; i++) ck_assert_int_eq(fs_platform_node_of(p, i), nodes[i]);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 2), 0);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 1), 1);
  /* a failed mapping keeps the previous one */
  const int32_t crowded[] = {1, 1, 1};
  ck_assert_int_eq(fs_platform_map_explicit(p, 3, crowded, &err), -1);
  ck_assert_str_eq(err.message, "expected at most 2 ranks on node 1 (rank 2 is one more)");
  const int32_t outside[] = {0, 3};
  ck_assert_int_eq(fs_platform_map_explicit(p, 2, outside, &err), -1);
  ck_assert_str_eq(err.message, "expected rank 1's node in [0, 2] (got 3)");
  const int32_t negative[] = {-1};
  ck_assert_int_eq(fs_platform_map_explicit(p, 1, negative, &err), -1);
  ck_assert_str_eq(err.message, "expected rank 0's node in [0, 2] (got -1)");
  ck_assert_int_eq(p->ranks, 5);
  ck_assert_int_eq(fs_platform_node_of(p, 4), 0);
  ck_assert_int_eq(p->mapping, FS_MAPPING_EXPLICIT);
  fs_platform_free(p);
}
END_TEST

/* 8 nodes of 2 cores; boards of 2 nodes, racks of 2 boards, 2 racks. */
START_TEST(two_level_tree) {
  fs_error err;
  fs_platform *p = fs_platform_new(8, 2, &err);
  ck_assert_int_eq(fs_platform_add_level(p, "board", 5, 2, &err), 0);
  ck_assert_int_eq(p->top_level, 2);
  ck_assert_int_eq(fs_platform_add_level(p, "rack", 4, 2, &err), 0);
  ck_assert_int_eq(p->levels, 2);
  ck_assert_int_eq(p->level[0].group_nodes, 2);
  ck_assert_int_eq(p->level[1].group_nodes, 4);
  ck_assert_int_eq(p->top_level, 3);
  ck_assert_int_eq(fs_platform_map_sequential(p, 16, &err), 0);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 1), 0); /* node 0, node 0 */
  ck_assert_int_eq(fs_platform_level_between(p, 0, 2), 1); /* nodes 0, 1: one board */
  ck_assert_int_eq(fs_platform_level_between(p, 0, 4), 2); /* nodes 0, 2: one rack */
  ck_assert_int_eq(fs_platform_level_between(p, 6, 4), 1); /* nodes 3, 2 */
  ck_assert_int_eq(fs_platform_level_between(p, 0, 8), 3); /* nodes 0, 4: the machine */
  ck_assert_int_eq(fs_platform_level_between(p, 15, 0), 3);
  ck_assert_int_eq(fs_platform_level_between(p, 8, 15), 2); /* nodes 4, 7 */
  /* round-robin spreads neighbours across racks */
  ck_assert_int_eq(fs_platform_map_round_robin(p, 16, &err), 0);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 1), 1);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 4), 3);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 8), 0);
  ck_assert_int_eq(fs_platform_channel_at(p, 0), -1);
  ck_assert_int_eq(fs_platform_add_channel(p, "top", 3, 3, &err), 0);
  ck_assert_int_eq(fs_platform_default_channels(p, &err), 0); /* keeps "top" only */
  ck_assert_int_eq(p->channels, 1);
  ck_assert_int_eq(fs_platform_channel_at(p, 3), 0);
  fs_platform_free(p);
}
END_TEST

/* A listed level that is the whole machine: no implicit level above. */
START_TEST(tree_whole_machine) {
  fs_error err;
  fs_platform *p = fs_platform_new(4, 1, &err);
  ck_assert_int_eq(fs_platform_add_level(p, "a", 1, 2, &err), 0);
  ck_assert_int_eq(fs_platform_add_level(p, "b", 1, 2, &err), 0);
  ck_assert_int_eq(p->top_level, 2);
  ck_assert_int_eq(fs_platform_add_level(p, "c", 1, 2, &err), -1);
  ck_assert_str_eq(err.message, "expected level \"c\" groups (8 nodes each) to divide the 4 nodes");
  ck_assert_int_eq(fs_platform_map_sequential(p, 4, &err), 0);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 3), 2);
  ck_assert_int_eq(fs_platform_level_between(p, 2, 3), 1);
  fs_platform_free(p);
}
END_TEST

START_TEST(platform_errors) {
  fs_error err;
  ck_assert_ptr_null(fs_platform_new(0, 8, &err));
  ck_assert_str_eq(err.message, "expected nodes in [1, 2147483647] (got 0)");
  ck_assert_ptr_null(fs_platform_new(4, 1LL << 31, &err));
  ck_assert_str_eq(err.message, "expected cores in [1, 2147483647] (got 2147483648)");
  fs_platform *p = fs_platform_new(6, 2, &err);
  ck_assert_int_eq(fs_platform_add_level(p, "pair", 4, 4, &err), -1);
  ck_assert_str_eq(err.message,
                   "expected level \"pair\" groups (4 nodes each) to divide the 6 nodes");
  ck_assert_int_eq(fs_platform_add_level(p, "one", 3, 1, &err), -1);
  ck_assert_str_eq(err.message, "expected fanout in [2, 6] for level \"one\" (got 1)");
  ck_assert_int_eq(fs_platform_add_level(p, "9lives", 6, 2, &err), -1);
  ck_assert_str_eq(err.message,
                   "expected a level name of 1 to 63 of [A-Za-z][A-Za-z0-9_.-]* (got \"9lives\")");
  ck_assert_int_eq(fs_platform_add_level(p, "pair", 4, 2, &err), 0);
  ck_assert_int_eq(fs_platform_add_level(p, "pair", 4, 3, &err), -1);
  ck_assert_str_eq(err.message, "expected a new level name (\"pair\" is level 1)");
  ck_assert_int_eq(p->top_level, 2);
  ck_assert_int_eq(fs_platform_add_channel(p, "net", 3, 3, &err), -1);
  ck_assert_str_eq(err.message, "expected channel \"net\" level in [0, 2] (got 3)");
  ck_assert_int_eq(fs_platform_add_channel(p, "net", 3, 1, &err), 0);
  ck_assert_int_eq(fs_platform_add_channel(p, "net", 3, 2, &err), -1);
  ck_assert_str_eq(err.message, "expected a new channel name (\"net\" is at level 1)");
  ck_assert_int_eq(fs_platform_add_channel(p, "wire", 4, 1, &err), -1);
  ck_assert_str_eq(err.message, "expected one channel per level (\"net\" is at level 1)");
  ck_assert_int_eq(fs_platform_add_channel(p, "a b", 3, 0, &err), -1);
  ck_assert_str_eq(err.message,
                   "expected a channel name of 1 to 63 of [A-Za-z][A-Za-z0-9_.-]* (got \"a b\")");
  ck_assert_int_eq(fs_platform_add_level(p, "late", 4, 3, &err), -1);
  ck_assert_str_eq(err.message, "expected levels before channels");
  ck_assert_int_eq(fs_platform_map_sequential(p, 13, &err), -1);
  ck_assert_str_eq(err.message, "expected at most 12 ranks on 6 nodes x 2 cores (got 13)");
  ck_assert_int_eq(fs_platform_map_round_robin(p, 0, &err), -1);
  ck_assert_str_eq(err.message, "expected ranks in [1, 2147483647] (got 0)");
  ck_assert_ptr_null(p->node);
  ck_assert_int_eq(p->mapping, FS_MAPPING_NONE);
  fs_platform_free(p);
}
END_TEST

START_TEST(from_options) {
  fs_error err;
  fs_platform *p = fs_platform_from_options(4, 8, "rr", 32, &err);
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(p->mapping, FS_MAPPING_ROUND_ROBIN);
  ck_assert_int_eq(fs_platform_node_of(p, 6), 2);
  ck_assert_int_eq(p->channels, 2);
  ck_assert_str_eq(p->channel[0].name, "shm");
  ck_assert_int_eq(p->channel[0].level, 0);
  ck_assert_str_eq(p->channel[1].name, "net");
  ck_assert_int_eq(p->channel[1].level, 1);
  fs_platform_free(p);
  p = fs_platform_from_options(4, 8, "seq", 20, &err);
  ck_assert_int_eq(p->mapping, FS_MAPPING_SEQUENTIAL);
  ck_assert_int_eq(fs_platform_node_of(p, 19), 2);
  fs_platform_free(p);
  p = fs_platform_from_options(2, 3, NULL, 6, &err);
  ck_assert_int_eq(fs_platform_node_of(p, 3), 1);
  fs_platform_free(p);
  ck_assert_ptr_null(fs_platform_from_options(4, 8, "block", 32, &err));
  ck_assert_str_eq(err.message, "--mapping: expected seq or rr (got \"block\")");
  ck_assert_ptr_null(fs_platform_from_options(4, 8, "explicit", 32, &err));
  ck_assert_str_eq(err.message, "--mapping: expected seq or rr (got \"explicit\")");
  ck_assert_ptr_null(fs_platform_from_options(2, 2, "rr", 5, &err));
  ck_assert_str_eq(err.message,
                   "--nodes 2 --cores 2: expected at most 4 ranks on 2 nodes x 2 cores (got 5)");
  ck_assert_ptr_null(fs_platform_from_options(0, 2, "seq", 1, &err));
  ck_assert_str_eq(err.message, "--nodes 0 --cores 2: expected nodes in [1, 2147483647] (got 0)");
  ck_assert_int_eq(fs_mapping_from_name("round-robin", 11), FS_MAPPING_ROUND_ROBIN);
  ck_assert_int_eq(fs_mapping_from_name("sequential", 10), FS_MAPPING_SEQUENTIAL);
  ck_assert_int_eq(fs_mapping_from_name("se", 2), FS_MAPPING_NONE);
  ck_assert_str_eq(fs_mapping_name(FS_MAPPING_EXPLICIT), "explicit");
}
END_TEST

/* ---- XML: well-formed inputs ------------------------------------------ */

START_TEST(xml_full) {
  const char *text = "<?xml version=\"1.0\"?>\n"
                     "<!-- a comment before -->\n"
                     "<platform nodes=\"4\" cores=\"2\">\n"
                     "  <channel name=\"net.top\" level=\"2\"/>  <!-- channels may come first -->\n"
                     "  <level name=\"rack\" fanout=\"2\"></level>\n"
                     "  <channel name=\"shm\" level=\"0\"/>\n"
                     "  <mapping kind=\"explicit\">\n"
                     "    3 3 0 1\n"
                     "    2\t0 &#x31;<![CDATA[ 2]]>\n"
                     "  </mapping>\n"
                     "</platform>\n";
  fs_error err = {{0}};
  fs_platform *p = from_text(text, 8, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->nodes, 4);
  ck_assert_int_eq(p->cores, 2);
  ck_assert_int_eq(p->levels, 1);
  ck_assert_str_eq(p->level[0].name, "rack");
  ck_assert_int_eq(p->level[0].fanout, 2);
  ck_assert_int_eq(p->top_level, 2);
  ck_assert_int_eq(p->channels, 2);
  ck_assert_str_eq(p->channel[0].name, "net.top");
  ck_assert_int_eq(p->channel[0].level, 2);
  ck_assert_str_eq(p->channel[1].name, "shm");
  ck_assert_int_eq(p->mapping, FS_MAPPING_EXPLICIT);
  const int32_t expect[] = {3, 3, 0, 1, 2, 0, 1, 2};
  ck_assert_int_eq(p->ranks, 8);
  for (int32_t i = 0; i < 8; i++) ck_assert_int_eq(fs_platform_node_of(p, i), expect[i]);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 1), 0);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 4), 1); /* nodes 3, 2 */
  ck_assert_int_eq(fs_platform_level_between(p, 0, 2), 2); /* nodes 3, 0 */
  fs_platform_free(p);
  /* ranks 0: the list decides */
  p = from_text(text, NO_RANKS, &err);
  ck_assert_int_eq(p->ranks, 8);
  fs_platform_free(p);
}
END_TEST

START_TEST(xml_defaults) {
  fs_error err = {{0}};
  fs_platform *p = from_text("<platform nodes=\"2\" cores=\"3\"/>", NO_RANKS, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->mapping, FS_MAPPING_SEQUENTIAL);
  ck_assert_int_eq(p->ranks, 6);
  ck_assert_int_eq(fs_platform_node_of(p, 3), 1);
  ck_assert_int_eq(p->channels, 2);
  ck_assert_str_eq(p->channel[0].name, "shm");
  ck_assert_str_eq(p->channel[1].name, "net");
  ck_assert_int_eq(p->top_level, 1);
  fs_platform_free(p);
  p = from_text("<platform nodes='2' cores='3'><mapping kind='rr'>\n</mapping></platform>", 5,
                &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->mapping, FS_MAPPING_ROUND_ROBIN);
  ck_assert_int_eq(p->ranks, 5);
  ck_assert_int_eq(fs_platform_node_of(p, 3), 1);
  ck_assert_int_eq(fs_platform_node_of(p, 4), 0);
  fs_platform_free(p);
}
END_TEST

static char *model_path(const char *name) {
  size_t n = strlen(FENNELSIM_SOURCE_ROOT) + strlen(name) + 16;
  char *path = malloc(n);
  snprintf(path, n, "%s/models/%s", FENNELSIM_SOURCE_ROOT, name);
  return path;
}

START_TEST(shipped_models) {
  fs_error err = {{0}};
  char *path = model_path("platform-4x8-seq.xml");
  fs_platform *p = fs_platform_read_xml(path, NO_RANKS, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->nodes, 4);
  ck_assert_int_eq(p->cores, 8);
  ck_assert_int_eq(p->ranks, 32);
  ck_assert_int_eq(p->levels, 0);
  ck_assert_int_eq(p->mapping, FS_MAPPING_SEQUENTIAL);
  ck_assert_str_eq(p->channel[fs_platform_channel_at(p, 0)].name, "shm");
  ck_assert_str_eq(p->channel[fs_platform_channel_at(p, 1)].name, "net");
  ck_assert_int_eq(fs_platform_node_of(p, 15), 1);
  fs_platform_free(p);
  free(path);

  path = model_path("platform-4x8-rr.xml");
  p = fs_platform_read_xml(path, 16, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->ranks, 16);
  ck_assert_int_eq(p->mapping, FS_MAPPING_ROUND_ROBIN);
  ck_assert_int_eq(fs_platform_node_of(p, 15), 3);
  ck_assert_int_eq(fs_platform_level_between(p, 1, 5), 0);
  fs_platform_free(p);
  free(path);

  path = model_path("platform-kappa2-2x2x2.xml");
  p = fs_platform_read_xml(path, 8, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->top_level, 2);
  ck_assert_int_eq(p->channels, 3);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 1), 0);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 2), 1);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 4), 2);
  ck_assert_int_eq(fs_platform_level_between(p, 7, 5), 1);
  fs_platform_free(p);
  /* more ranks than the file's 8 cores */
  ck_assert_ptr_null(fs_platform_read_xml(path, 9, &err));
  char want[512];
  snprintf(want, sizeof want, "%s:20: expected at most 8 ranks on 4 nodes x 2 cores (got 9)", path);
  ck_assert_str_eq(err.message, want);
  free(path);
}
END_TEST

/* ---- XML: errors ------------------------------------------------------- */

typedef struct error_case {
  const char *text;
  int64_t ranks;
  const char *message;
} error_case;

static const error_case error_cases[] = {
    {"", 4, "t.xml:1: expected a <platform> element (got an empty file)"},
    {"<cluster nodes=\"4\"/>", 4,
     "t.xml:1: expected <platform> without a namespace as the root element (got <cluster>)"},
    {"<platform xmlns=\"urn:x\" nodes=\"4\" cores=\"8\"/>", 4,
     "t.xml:1: expected <platform> without a namespace as the root element (got <platform> in a "
     "namespace)"},
    {"<platform cores=\"8\"/>", 4, "t.xml:1: expected attribute nodes on <platform>"},
    {"<platform nodes=\"4\"/>", 4, "t.xml:1: expected attribute cores on <platform>"},
    {"<platform\n nodes=\"4x\" cores=\"8\"/>", 4, /* the line where the tag ends */
     "t.xml:2: expected nodes=\"N\" with N a whole number in [1, 2147483647] (got \"4x\")"},
    {"<platform nodes=\"0\" cores=\"8\"/>", 4,
     "t.xml:1: expected nodes=\"N\" with N a whole number in [1, 2147483647] (got \"0\")"},
    {"<platform nodes=\"4\" cores=\" 8\"/>", 4,
     "t.xml:1: expected cores=\"N\" with N a whole number in [1, 2147483647] (got \" 8\")"},
    {"<platform nodes=\"4\" cores=\"8\" ranks=\"3\"/>", 4,
     "t.xml:1: expected only nodes and cores on <platform> (got ranks)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<node/>\n</platform>", 4,
     "t.xml:2: expected <level>, <channel> or <mapping> (got <node>)"},
    {"<platform nodes=\"4\" cores=\"8\" xmlns:x=\"urn:x\">\n<x:level name=\"a\" "
     "fanout=\"2\"/>\n</platform>",
     4, "t.xml:2: expected <level>, <channel> or <mapping> (got <level> in a namespace)"},
    {"<platform nodes=\"4\" cores=\"8\">\n\n  stray words\n</platform>", 4,
     "t.xml:4: expected only elements inside <platform>"},
    {"<platform nodes=\"4\" cores=\"8\">\n<level name=\"a\" fanout=\"2\" size=\"1\"/>\n</platform>",
     4, "t.xml:2: expected only name and fanout on <level> (got size)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<level fanout=\"2\"/>\n</platform>", 4,
     "t.xml:2: expected attribute name on <level>"},
    {"<platform nodes=\"4\" cores=\"8\">\n<level name=\"a\"/>\n</platform>", 4,
     "t.xml:2: expected attribute fanout on <level>"},
    {"<platform nodes=\"4\" cores=\"8\">\n<level name=\"a\" fanout=\"3\"/>\n</platform>", 4,
     "t.xml:2: expected level \"a\" groups (3 nodes each) to divide the 4 nodes"},
    {"<platform nodes=\"4\" cores=\"8\">\n<level name=\"a\" fanout=\"2\">x</level>\n</platform>", 4,
     "t.xml:2: expected nothing inside <level> (got text)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<level name=\"\" fanout=\"2\"/>\n</platform>", 4,
     "t.xml:2: expected a level name of 1 to 63 of [A-Za-z][A-Za-z0-9_.-]* (got \"\")"},
    {"<platform nodes=\"4\" cores=\"8\">\n<channel name=\"net\" level=\"2\"/>\n</platform>", 4,
     "t.xml:2: expected channel \"net\" level in [0, 1] (got 2)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<channel name=\"net\" level=\"-1\"/>\n</platform>", 4,
     "t.xml:2: expected level=\"N\" with N a whole number in [0, 2147483647] (got \"-1\")"},
    {"<platform nodes=\"4\" cores=\"8\">\n<channel name=\"a\" level=\"1\"/>\n<channel name=\"b\" "
     "level=\"1\"/>\n</platform>",
     4, "t.xml:3: expected one channel per level (\"a\" is at level 1)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<channel name=\"a\" "
     "level=\"1\"><x/></channel>\n</platform>",
     4, "t.xml:2: expected nothing inside <channel> (got an element)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping/>\n</platform>", 4,
     "t.xml:2: expected attribute kind on <mapping>"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"block\"/>\n</platform>", 4,
     "t.xml:2: expected kind=\"sequential\", \"round-robin\" or \"explicit\" (got \"block\")"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"rr\"/>\n<mapping "
     "kind=\"rr\"/>\n</platform>",
     4, "t.xml:3: expected at most one <mapping>"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"sequential\">0 1</mapping>\n</platform>",
     4, "t.xml:2: expected nothing inside <mapping> (got text)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"explicit\">0 1\n2</mapping>\n</platform>",
     4, "t.xml:2: expected 4 node numbers in the explicit mapping, one per rank (got 3)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"explicit\">0 1 2 3 "
     "0</mapping>\n</platform>",
     4, "t.xml:2: expected 4 node numbers in the explicit mapping, one per rank (got 5)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"explicit\"> </mapping>\n</platform>", 0,
     "t.xml:2: expected node numbers in the explicit mapping, one per rank"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"explicit\">0 1 two "
     "3</mapping>\n</platform>",
     4, "t.xml:2: expected rank 2's node as a whole number (got \"two\")"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"explicit\">0 1 4 "
     "3</mapping>\n</platform>",
     4, "t.xml:2: expected rank 2's node in [0, 3] (got 4)"},
    {"<platform nodes=\"2\" cores=\"1\">\n<mapping kind=\"explicit\">1 1</mapping>\n</platform>", 2,
     "t.xml:2: expected at most 1 ranks on node 1 (rank 1 is one more)"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"explicit\">0 "
     "<b/>1</mapping>\n</platform>",
     2, "t.xml:2: expected only node numbers inside <mapping>"},
    {"<platform nodes=\"4\" cores=\"8\">\n<mapping kind=\"sequential\"/>\n</platform>", 33,
     "t.xml:2: expected at most 32 ranks on 4 nodes x 8 cores (got 33)"},
    {"<platform nodes=\"4\" cores=\"8\"/>", 33,
     "t.xml:1: expected at most 32 ranks on 4 nodes x 8 cores (got 33)"},
    {"<platform nodes=\"4\" cores=\"8\"/>", -1,
     "t.xml: expected ranks in [0, 2147483647] (got -1)"},
    /* no DTD at all: the parse stops at the DOCTYPE, before its subset */
    {"<?xml version=\"1.0\"?>\n<!DOCTYPE platform [ this subset is never parsed ]>\n<platform/>", 4,
     "t.xml:2: expected no DOCTYPE (DTDs and entities are not read)"},
    {"<!DOCTYPE platform SYSTEM \"http://127.0.0.1:9/platform.dtd\">\n<platform nodes=\"1\" "
     "cores=\"1\"/>",
     4, "t.xml:1: expected no DOCTYPE (DTDs and entities are not read)"},
    {"<!DOCTYPE platform [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n<platform nodes=\"&xxe;\" "
     "cores=\"1\"/>",
     4, "t.xml:1: expected no DOCTYPE (DTDs and entities are not read)"},
};

START_TEST(errors_reported) {
  const error_case *c = &error_cases[_i];
  expect_error(c->text, c->ranks, c->message);
}
END_TEST

/* libxml2's own messages: its line and column, its words, nothing on stderr. */
START_TEST(malformed) {
  char *log = fs_test_temp_path(".stderr");
  fflush(stderr);
  int saved = dup(2);
  ck_assert(freopen(log, "w", stderr) != NULL);
  expect_error("<platform nodes=\"4\" cores=\"8\">\n<level name=\"a\" fanout=\"2\">\n</platform>",
               4,
               "t.xml:3:12: expected well-formed XML (libxml2: Opening and ending tag mismatch: "
               "level line 2 and platform)");
  expect_error("<platform nodes=\"4\" cores=\"8\">\n\n<channel name=\"a\" name=\"b\" "
               "level=\"0\"/>\n"
               "</platform>",
               4, "t.xml:3:37: expected well-formed XML (libxml2: Attribute name redefined)");
  expect_error("<platform nodes=\"&undefined;\" cores=\"8\"/>", 4,
               "t.xml:1:29: expected well-formed XML (libxml2: Entity 'undefined' not defined)");
  expect_prefix("<platform nodes=\"4\" cores=\"8\"/>\n<platform/>", 4,
                "t.xml:2:1: expected well-formed XML (libxml2: Extra content at the end of the "
                "document");
  expect_prefix("<platform nodes=\"4\"", 4, "t.xml:1:20: expected well-formed XML (libxml2: ");
  expect_prefix("\xff\xfe<", 4, "t.xml:1:");
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  size_t length = 99;
  char *printed = fs_test_read_file(log, &length);
  ck_assert_uint_eq(length, 0);
  free(printed);
  free(log);
}
END_TEST

/* Billion laughs: ten levels of ten references would expand to 10^9
 * copies. It must be refused at once, never expanded. */
START_TEST(billion_laughs) {
  char text[4096];
  int n = snprintf(text, sizeof text,
                   "<?xml version=\"1.0\"?>\n<!DOCTYPE platform [\n"
                   " <!ENTITY lol \"lol\">\n");
  for (int level = 1; level <= 9; level++) {
    n += snprintf(text + n, sizeof text - (size_t)n, " <!ENTITY lol%d \"", level);
    for (int k = 0; k < 10; k++)
      n += snprintf(text + n, sizeof text - (size_t)n, "&lol%.0d;", level - 1);
    n += snprintf(text + n, sizeof text - (size_t)n, "\">\n");
  }
  snprintf(text + n, sizeof text - (size_t)n,
           "]>\n<platform nodes=\"4\" cores=\"8\"><level name=\"&lol9;\" "
           "fanout=\"2\"/></platform>\n");
  double start = seconds_now();
  expect_error(text, 4, "t.xml:2: expected no DOCTYPE (DTDs and entities are not read)");
  ck_assert_double_lt(seconds_now() - start, 0.5);
}
END_TEST

START_TEST(element_limit) {
  size_t size = 64 + 8 * (FS_PLATFORM_XML_MAX_ELEMENTS + 10);
  char *text = malloc(size);
  size_t n = (size_t)snprintf(text, size, "<platform nodes=\"1\" cores=\"1\">\n");
  for (int i = 0; i < FS_PLATFORM_XML_MAX_ELEMENTS + 5; i++)
    n += (size_t)snprintf(text + n, size - n, "<x/>\n");
  snprintf(text + n, size - n, "</platform>\n");
  expect_error(text, 1, "t.xml:1025: expected at most 1024 elements");
  free(text);
}
END_TEST

START_TEST(file_errors) {
  fs_error err;
  ck_assert_ptr_null(fs_platform_read_xml("/nonexistent/p.xml", 4, &err));
  ck_assert_str_eq(err.message, "/nonexistent/p.xml: cannot open");
  /* one byte over the limit: refused before libxml2 sees it */
  char *path = fs_test_temp_path(".xml");
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(ftruncate(fileno(f), (off_t)FS_PLATFORM_XML_MAX_BYTES + 1), 0);
  fclose(f);
  ck_assert_ptr_null(fs_platform_read_xml(path, 4, &err));
  char want[512];
  snprintf(want, sizeof want, "%s: expected at most 67108864 bytes of XML", path);
  ck_assert_str_eq(err.message, want);
  /* errors name the file */
  ck_assert_int_eq(fs_test_write_file(path, "<platform nodes=\"4\" cores=\"8\">\n<x/></platform>",
                                      0),
                   0);
  ck_assert_ptr_null(fs_platform_read_xml(path, 4, &err));
  snprintf(want, sizeof want, "%s:2: expected <level>, <channel> or <mapping> (got <x>)", path);
  ck_assert_str_eq(err.message, want);
  unlink(path);
  free(path);
}
END_TEST

static Suite *platform_suite(void) {
  Suite *suite = suite_create("platform");
  TCase *mapping = tcase_create("mapping");
  tcase_add_test(mapping, sequential);
  tcase_add_test(mapping, round_robin);
  tcase_add_test(mapping, explicit);
  tcase_add_test(mapping, two_level_tree);
  tcase_add_test(mapping, tree_whole_machine);
  tcase_add_test(mapping, platform_errors);
  tcase_add_test(mapping, from_options);
  suite_add_tcase(suite, mapping);
  TCase *xml = tcase_create("xml");
  tcase_add_test(xml, xml_full);
  tcase_add_test(xml, xml_defaults);
  tcase_add_test(xml, shipped_models);
  tcase_add_loop_test(xml, errors_reported, 0, (int)(sizeof error_cases / sizeof error_cases[0]));
  tcase_add_test(xml, malformed);
  tcase_add_test(xml, billion_laughs);
  tcase_add_test(xml, element_limit);
  tcase_add_test(xml, file_errors);
  suite_add_tcase(suite, xml);
  return suite;
}

int main(void) { return fs_test_run(platform_suite()); }
