/* test_smp.c: the SMP-aware generators (allreduce-smp, bcast-smp,
 * reduce-smp; MPICH's MPIR_*_intra_smp): exact structure per rank on 2
 * nodes of 4 cores under sequential and round-robin mappings (which
 * messages stay inside a node), the flat algorithms they become without a
 * platform, the data flow for N = 1..64 over node shapes, mappings and roots
 * and a large case, and exact makespans: under hockney derived by hand, and
 * under a two-level model (hetero-hockney with intra- and inter-node links,
 * and taulop) the hierarchical formula of the tau-Lop thesis (eq. 5.4,
 * LogGPH: log2 M * T^1 + log2 Q * T^0 for the broadcast). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/program.h"
#include "generators/data_flow_check.h"
#include "generators/generators.h"
#include "model_support.h"
#include "platform/platform.h"
#include "generator_support.h"
#include "test_support.h"

#define NS 1000 /* ps */
#define US 1000000

/* ---- helpers ---------------------------------------------------------- */

/* --nodes M --cores Q --mapping seq|rr for `ranks` ranks. */
static fs_platform *platform_for(int32_t nodes, int32_t cores, const char *mapping, int32_t ranks) {
  fs_error err = {{0}};
  fs_platform *p = fs_platform_from_options(nodes, cores, mapping, ranks, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  return p;
}

/* M nodes of `ranks` cores, rank r on node[r]. */
static fs_platform *explicit_platform(int32_t nodes, int32_t ranks, const int32_t *node) {
  fs_error err = {{0}};
  fs_platform *p = fs_platform_new(nodes, ranks, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_msg(fs_platform_map_explicit(p, ranks, node, &err) == 0, "%s", err.message);
  return p;
}

/* Every rank's tasks in program order, ranks separated by " | ": s<peer>
 * (send), r<peer> (recv), c (reduce), followed by (i,j) the rank-local
 * positions of the tasks it depends on. Also checks that every message
 * and every reduce is of `size` bytes, and that dependencies stay within a
 * rank. with_peers 0 leaves out the computes (to compare with schedules
 * that have none). The caller frees. */
static char *describe(const fs_program *p, int64_t size, int with_computes) {
  int32_t *position = malloc((size_t)p->tasks * sizeof *position);
  int32_t *count = calloc((size_t)p->ranks, sizeof *count);
  for (int32_t t = 0; t < p->tasks; t++) position[t] = count[p->rank[t]]++;
  /* predecessors, in increasing task order */
  int32_t *pred_at = calloc((size_t)p->tasks + 1, sizeof *pred_at);
  int32_t *pred = malloc((size_t)(p->dependencies + 1) * sizeof *pred);
  for (int32_t t = 0; t < p->tasks; t++)
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++)
      pred_at[FS_EDGE_TASK(p->successor[e]) + 1]++;
  for (int32_t t = 0; t < p->tasks; t++) pred_at[t + 1] += pred_at[t];
  int32_t *fill = calloc((size_t)p->tasks, sizeof *fill);
  for (int32_t t = 0; t < p->tasks; t++)
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
      int32_t to = FS_EDGE_TASK(p->successor[e]);
      ck_assert_int_eq(p->rank[to], p->rank[t]);
      pred[pred_at[to] + fill[to]++] = t;
    }
  size_t capacity = 64 + (size_t)p->tasks * 40, used = 0;
  char *text = malloc(capacity);
  text[0] = 0;
  for (int32_t rank = 0; rank < p->ranks; rank++) {
    used += (size_t)snprintf(text + used, capacity - used, "%s", rank ? " |" : "");
    for (int32_t t = 0; t < p->tasks; t++) {
      if (p->rank[t] != rank) continue;
      ck_assert(p->flags[t] & FS_HAS_SIZE);
      ck_assert_int_eq(p->value[t], size);
      if (p->kind[t] == FS_COMPUTE && !with_computes) continue;
      if (p->kind[t] == FS_COMPUTE)
        used += (size_t)snprintf(text + used, capacity - used, " c");
      else
        used += (size_t)snprintf(text + used, capacity - used, " %c%d",
                                 p->kind[t] == FS_SEND ? 's' : 'r', p->peer[t]);
      ck_assert(p->kind[t] == FS_SEND || p->kind[t] == FS_RECV || p->kind[t] == FS_COMPUTE);
      ck_assert_int_eq(fs_task_tag(p, t), 0);
      if (!with_computes) continue;
      for (int32_t d = pred_at[t]; d < pred_at[t + 1]; d++)
        used += (size_t)snprintf(text + used, capacity - used, "%s%d%s",
                                 d == pred_at[t] ? "(" : ",", position[pred[d]],
                                 d + 1 == pred_at[t + 1] ? ")" : "");
    }
  }
  free(position), free(count), free(pred_at), free(pred), free(fill);
  return text;
}

static void expect_structure(const char *name, const fs_generator_options *o,
                             const char *expected) {
  fs_program *p = fs_test_generate(name, o);
  char *text = describe(p, o->size, 1);
  ck_assert_msg(strcmp(text + 1, expected) == 0, "%s:\n got %s\nwant %s", name, text + 1, expected);
  free(text);
  fs_program_free(p);
}

/* The number of messages whose two ranks share a node. */
static int intra_node_messages(const fs_program *p, const fs_platform *platform) {
  int n = 0;
  for (int32_t t = 0; t < p->tasks; t++)
    n += p->kind[t] == FS_SEND &&
         fs_platform_node_of(platform, p->rank[t]) == fs_platform_node_of(platform, p->peer[t]);
  return n;
}

static int count_label(const fs_program *p, const char *label) {
  int n = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    const char *l = fs_task_label(p, t);
    n += l && strcmp(l, label) == 0;
  }
  return n;
}

/* ---- structure on 2 nodes of 4 cores ----------------------------------- */

/* Sequential: nodes {0..3} and {4..7}, leaders 0 and 4. Each node reduces
 * to its leader by MPICH's binomial tree (1 -> 0, 3 -> 2 -> 0), the two
 * leaders exchange and reduce (one recursive-doubling round), and each
 * leader broadcasts back down the same tree. */
START_TEST(allreduce_structure_sequential) {
  fs_platform *platform = platform_for(2, 4, "seq", 8);
  fs_generator_options o = fs_test_options(8, 64, 0, platform);
  expect_structure("allreduce-smp", &o,
                   "r1 c(0) r2(1) c(2) r4(3) s4(3) c(4,5) s2(6) s1(6) |"
                   " s0 r0(0) | r3 c(0) s0(1) r0(2) s3(3) | s2 r2(0) |"
                   " r5 c(0) r6(1) c(2) r0(3) s0(3) c(4,5) s6(6) s5(6) |"
                   " s4 r4(0) | r7 c(0) s4(1) r4(2) s7(3) | s6 r6(0)");
  fs_program *p = fs_test_generate("allreduce-smp", &o);
  ck_assert_int_eq(intra_node_messages(p, platform), 12);  /* all but the leaders' exchange */
  ck_assert_int_eq(count_label(p, "node-reduce1"), 3 * 4); /* 2 messages, 1 reduce per node */
  ck_assert_int_eq(count_label(p, "node-reduce2"), 3 * 2);
  ck_assert_int_eq(count_label(p, "leaders1"), 6);
  ck_assert_int_eq(count_label(p, "node-bcast1"), 2 * 2);
  ck_assert_int_eq(count_label(p, "node-bcast2"), 2 * 4);
  fs_program_free(p);
  fs_platform_free(platform);
}
END_TEST

/* Round-robin: nodes {0,2,4,6} and {1,3,5,7}, leaders 0 and 1; a node's
 * local ranks 0..3 are its ranks in order (node 0: 0, 2, 4, 6). */
START_TEST(allreduce_structure_round_robin) {
  fs_platform *platform = platform_for(2, 4, "rr", 8);
  fs_generator_options o = fs_test_options(8, 64, 0, platform);
  expect_structure("allreduce-smp", &o,
                   "r2 c(0) r4(1) c(2) r1(3) s1(3) c(4,5) s4(6) s2(6) |"
                   " r3 c(0) r5(1) c(2) r0(3) s0(3) c(4,5) s5(6) s3(6) |"
                   " s0 r0(0) | s1 r1(0) | r6 c(0) s0(1) r0(2) s6(3) |"
                   " r7 c(0) s1(1) r1(2) s7(3) | s4 r4(0) | s5 r5(0)");
  fs_program *p = fs_test_generate("allreduce-smp", &o);
  ck_assert_int_eq(intra_node_messages(p, platform), 12);
  for (int32_t t = 0; t < p->tasks; t++) /* the only messages between nodes: 0 <-> 1 */
    if (p->kind[t] == FS_SEND && (p->rank[t] + p->peer[t]) % 2)
      ck_assert_int_eq(p->rank[t] + p->peer[t], 1);
  fs_program_free(p);
  fs_platform_free(platform);
}
END_TEST

/* Broadcast from rank 0, then from rank 3, a non-leader: it first sends to
 * its leader 0 (to-leader), and as in MPICH's code receives the data again
 * in its node's broadcast, after its own send. */
START_TEST(bcast_structure_sequential) {
  fs_platform *platform = platform_for(2, 4, "seq", 8);
  fs_generator_options o = fs_test_options(8, 64, 0, platform);
  expect_structure("bcast-smp", &o,
                   "s4 s2 s1 | r0 | r0 s3(0) | r2 | r0 s6(0) s5(0) | r4 | r4 s7(0) | r6");
  o.root = 3;
  expect_structure("bcast-smp", &o,
                   "r3 s4(0) s2(0) s1(0) | r0 | r0 s3(0) | s0 r2(0) |"
                   " r0 s6(0) s5(0) | r4 | r4 s7(0) | r6");
  fs_program *p = fs_test_generate("bcast-smp", &o);
  ck_assert_int_eq(intra_node_messages(p, platform), 7);
  ck_assert_int_eq(count_label(p, "to-leader"), 2);
  ck_assert_int_eq(count_label(p, "leaders1"), 2);
  ck_assert_int_eq(count_label(p, "node-bcast1"), 4);
  ck_assert_int_eq(count_label(p, "node-bcast2"), 8);
  fs_program_free(p);
  fs_platform_free(platform);
}
END_TEST

/* Round-robin, root 0 then root 3 (the leader of node 1 now): one message
 * crosses nodes, 0 -> 1, or 3 -> 0 from node 1's leader to node 0's. */
START_TEST(bcast_structure_round_robin) {
  fs_platform *platform = platform_for(2, 4, "rr", 8);
  fs_generator_options o = fs_test_options(8, 64, 0, platform);
  expect_structure("bcast-smp", &o,
                   "s1 s4 s2 | r0 s5(0) s3(0) | r0 | r1 | r0 s6(0) | r1 s7(0) | r4 | r5");
  o.root = 5; /* node 1's local rank 2: to-leader 5 -> 1 */
  expect_structure("bcast-smp", &o,
                   "r1 s4(0) s2(0) | r5 s0(0) s5(0) s3(0) | r0 | r1 | r0 s6(0) |"
                   " s1 r1(0) s7(1) | r4 | r5");
  fs_program *p = fs_test_generate("bcast-smp", &o);
  ck_assert_int_eq(intra_node_messages(p, platform), 7);
  fs_program_free(p);
  fs_platform_free(platform);
}
END_TEST

/* Reduce to 0: node 1 reduces to 4, 4 sends to 0 (leaders1), then node 0
 * reduces to 0, which takes 4's sum first. To 3 (a non-leader): node 0's
 * tree is rooted at local rank 3 (relative ranks 3->0, 0->1, 1->2, 2->3),
 * and the leader 0, a leaf of it, sends the leaders' sum to 3. */
START_TEST(reduce_structure_sequential) {
  fs_platform *platform = platform_for(2, 4, "seq", 8);
  fs_generator_options o = fs_test_options(8, 64, 0, platform);
  expect_structure("reduce-smp", &o,
                   "r4 c(0) r1(1) c(2) r2(3) c(4) | s0 | r3 c(0) s0(1) | s2 |"
                   " r5 c(0) r6(1) c(2) s0(3) | s4 | r7 c(0) s4(1) | s6");
  o.root = 3;
  expect_structure("reduce-smp", &o,
                   "r4 c(0) s3(1) | r2 c(0) s3(1) | s1 | r0 c(0) r1(1) c(2) |"
                   " r5 c(0) r6(1) c(2) s0(3) | s4 | r7 c(0) s4(1) | s6");
  fs_program *p = fs_test_generate("reduce-smp", &o);
  ck_assert_int_eq(intra_node_messages(p, platform), 6);
  ck_assert_int_eq(count_label(p, "root-node1"), 2 * 3); /* 2 -> 1, 0 -> 3 and their reduces */
  ck_assert_int_eq(count_label(p, "root-node2"), 3);     /* 1 -> 3 and its reduce */
  ck_assert_int_eq(count_label(p, "node-reduce1"), 2 * 3);
  ck_assert_int_eq(count_label(p, "leaders1"), 3);
  fs_program_free(p);
  fs_platform_free(platform);
}
END_TEST

START_TEST(reduce_structure_round_robin) {
  fs_platform *platform = platform_for(2, 4, "rr", 8);
  fs_generator_options o = fs_test_options(8, 64, 6, platform); /* node 0's local rank 3 */
  expect_structure("reduce-smp", &o,
                   "r1 c(0) s6(1) | r3 c(0) r5(1) c(2) s0(3) | r4 c(0) s6(1) | s1 | s2 |"
                   " r7 c(0) s1(1) | r0 c(0) r2(1) c(2) | s5");
  fs_program *p = fs_test_generate("reduce-smp", &o);
  ck_assert_int_eq(intra_node_messages(p, platform), 6);
  fs_program_free(p);
  fs_platform_free(platform);
}
END_TEST

/* ---- without a platform: the flat algorithms ---------------------------- */

/* No platform, N nodes of one core (any mapping) and, where the tree is
 * the same, one node of N cores: the same program. */
START_TEST(flat_without_platform) {
  const char *names[3] = {"allreduce-smp", "bcast-smp", "reduce-smp"};
  for (int32_t n = 1; n <= 20; n++)
    for (int g = 0; g < 3; g++)
      for (int32_t root = 0; root < (g ? n : 1); root++) {
        fs_generator_options o = fs_test_options(n, 8, root, NULL);
        fs_program *flat = fs_test_generate(names[g], &o);
        char *expected = describe(flat, 8, 1);
        const char *mappings[2] = {"seq", "rr"};
        for (int m = 0; m < 2; m++) {
          fs_platform *platform = platform_for(n, 1, mappings[m], n);
          o.platform = platform;
          fs_program *p = fs_test_generate(names[g], &o);
          char *text = describe(p, 8, 1);
          ck_assert_msg(strcmp(text, expected) == 0, "%s n=%d root=%d", names[g], n, root);
          free(text);
          fs_program_free(p);
          fs_platform_free(platform);
        }
        /* one node: reduce-smp is the binomial reduce to the root; the
         * others match the flat tree when the root is the leader 0 */
        if (g == 2 || root == 0) {
          fs_platform *platform = platform_for(1, n, "seq", n);
          o.platform = platform;
          fs_program *p = fs_test_generate(names[g], &o);
          char *text = describe(p, 8, 1);
          if (g == 0) /* reduce + bcast: not the recursive doubling of the flat case */
            ck_assert_int_eq(p->tasks, 5 * (n - 1));
          else
            ck_assert_msg(strcmp(text, expected) == 0, "%s on one node, n=%d root=%d", names[g], n,
                          root);
          free(text);
          fs_program_free(p);
          fs_platform_free(platform);
        }
        /* sequential, M and Q powers of 2, root 0: MPICH's flat binomial
         * tree already is hierarchical (its first log2 M stages cross
         * nodes, the rest stay inside), so bcast-smp is the same program */
        if (g == 1 && root == 0 && n >= 4 && (n & (n - 1)) == 0) {
          fs_platform *platform = platform_for(4, n / 4, "seq", n);
          o.platform = platform;
          fs_program *p = fs_test_generate(names[g], &o);
          char *text = describe(p, 8, 1);
          ck_assert_msg(strcmp(text, expected) == 0, "bcast-smp on 4 nodes, n=%d", n);
          free(text);
          fs_program_free(p);
          fs_platform_free(platform);
        }
        free(expected);
        fs_program_free(flat);
      }
}
END_TEST

/* The same messages as the flat generators of the same trees: allreduce-rd
 * (MPICH's recursive doubling, as puts), scatter-binomial (MPICH's binomial
 * tree, any root) for the broadcast, gather-binomial (the tree reversed)
 * for the reduce. Compared per rank: the peers in issue order. (Not
 * bcast-binomial: schedgen's tree, where v receives from v - 2^floor(log2
 * v), differs from MPICH's v - lowbit(v) from 4 ranks on.) */
static char *peers(const fs_program *p) {
  size_t capacity = 64 + (size_t)p->tasks * 16, used = 0;
  char *text = malloc(capacity);
  text[0] = 0;
  for (int32_t rank = 0; rank < p->ranks; rank++) {
    used += (size_t)snprintf(text + used, capacity - used, "|");
    for (int32_t t = 0; t < p->tasks; t++)
      if (p->rank[t] == rank && (p->kind[t] == FS_SEND || p->kind[t] == FS_PUT))
        used += (size_t)snprintf(text + used, capacity - used, " s%d", p->peer[t]);
      else if (p->rank[t] == rank && p->kind[t] == FS_RECV)
        used += (size_t)snprintf(text + used, capacity - used, " r%d", p->peer[t]);
  }
  return text;
}

static void expect_same_peers(const char *name, const char *flat_name,
                              const fs_generator_options *o) {
  fs_program *a = fs_test_generate(name, o), *b = fs_test_generate(flat_name, o);
  char *x = peers(a), *y = peers(b);
  ck_assert_msg(strcmp(x, y) == 0, "%s vs %s, n=%d root=%d:\n%s\n%s", name, flat_name, o->ranks,
                o->root, x, y);
  free(x), free(y);
  fs_program_free(a), fs_program_free(b);
}

START_TEST(flat_matches_flat_generators) {
  for (int32_t n = 1; n <= 40; n++) {
    fs_generator_options o = fs_test_options(n, 8, 0, NULL);
    /* allreduce-rd has no recvs: compare the sends only */
    fs_program *a = fs_test_generate("allreduce-smp", &o),
               *b = fs_test_generate("allreduce-rd", &o);
    char *x = peers(a), *y = peers(b);
    for (char *s = x; (s = strstr(s, " r")) != NULL;) { /* drop " r<peer>" */
      char *end = s + 2;
      while (*end >= '0' && *end <= '9') end++;
      memmove(s, end, strlen(end) + 1);
    }
    ck_assert_msg(strcmp(x, y) == 0, "allreduce n=%d:\n%s\n%s", n, x, y);
    free(x), free(y);
    fs_program_free(a), fs_program_free(b);
    for (o.root = 0; o.root < n; o.root++) {
      expect_same_peers("bcast-smp", "scatter-binomial", &o);
      expect_same_peers("reduce-smp", "gather-binomial", &o);
    }
  }
}
END_TEST

/* ---- options ----------------------------------------------------------- */

START_TEST(option_errors) {
  fs_error err;
  fs_generator_options o = fs_test_options(8, 8, 8, NULL);
  ck_assert_ptr_nonnull(strstr(fs_test_generate_error("bcast-smp", &o, &err), "--root 8"));
  ck_assert_ptr_nonnull(strstr(fs_test_generate_error("reduce-smp", &o, &err), "--root 8"));
  o.root = 1;
  ck_assert_ptr_nonnull(strstr(fs_test_generate_error("allreduce-smp", &o, &err), "--root"));
  o.root = 0;
  o.has_reduce_time = 1;
  ck_assert_ptr_nonnull(strstr(fs_test_generate_error("bcast-smp", &o, &err), "--reduce-time"));
  o.has_reduce_time = 0;
  o.ranks = 0;
  ck_assert_ptr_nonnull(strstr(fs_test_generate_error("allreduce-smp", &o, &err), "--ranks"));
  fs_platform *platform = platform_for(2, 4, "seq", 6);
  o = fs_test_options(8, 8, 0, platform); /* the platform maps 6 ranks */
  ck_assert_str_eq(fs_test_generate_error("reduce-smp", &o, &err),
                   "reduce-smp: the platform maps 6 ranks, not --ranks 8");
  fs_platform_free(platform);
}
END_TEST

/* ---- data flow --------------------------------------------------------- */

static void expect_flow(const char *name, const fs_generator_options *o) {
  char why[512];
  const char *failure = fs_check_generator_flow(name, o, why, sizeof why);
  ck_assert_msg(failure == NULL, "%s n=%d root=%d: %s", name, o->ranks, o->root, failure);
}

/* All three generators, roots 0, N-1, N/2 and N/3. */
static void expect_flows(int32_t n, const fs_platform *platform) {
  int32_t roots[4] = {0, n - 1, n / 2, n / 3};
  fs_generator_options o = fs_test_options(n, 1000, 0, platform);
  expect_flow("allreduce-smp", &o);
  for (int r = 0; r < 4; r++) {
    o.root = roots[r];
    expect_flow("bcast-smp", &o);
    expect_flow("reduce-smp", &o);
  }
}

START_TEST(data_flow_small) {
  for (int32_t n = 1; n <= 64; n++) {
    expect_flows(n, NULL);
    int32_t cores[5] = {1, 2, 3, 4, 8};
    for (int c = 0; c < 5; c++) {
      int32_t nodes = (n + cores[c] - 1) / cores[c];
      fs_platform *seq = platform_for(nodes, cores[c], "seq", n);
      fs_platform *rr = platform_for(nodes + 1, cores[c], "rr", n); /* a short last node */
      expect_flows(n, seq);
      expect_flows(n, rr);
      fs_platform_free(seq), fs_platform_free(rr);
    }
    /* explicit: uneven nodes, leader order unlike node order */
    int32_t node[64], nodes = n / 3 + 1;
    for (int32_t r = 0; r < n; r++) node[r] = (nodes - 1) - (r * 5 + r / 3) % nodes;
    fs_platform *scattered = explicit_platform(nodes, n, node);
    expect_flows(n, scattered);
    fs_platform_free(scattered);
  }
}
END_TEST

START_TEST(data_flow_large) {
  fs_platform *platforms[4] = {platform_for(64, 16, "seq", 1024), platform_for(64, 16, "rr", 1024),
                               platform_for(143, 7, "seq", 1000), NULL};
  int32_t node[1000];
  for (int32_t r = 0; r < 1000; r++) node[r] = (r * 37 + r / 11) % 50;
  platforms[3] = explicit_platform(50, 1000, node);
  for (int k = 0; k < 4; k++) {
    int32_t n = platforms[k]->ranks;
    int32_t roots[3] = {0, n - 1, 517};
    fs_generator_options o = fs_test_options(n, 1000, 0, platforms[k]);
    expect_flow("allreduce-smp", &o);
    for (int r = 0; r < 3; r++) {
      o.root = roots[r];
      expect_flow("bcast-smp", &o);
      expect_flow("reduce-smp", &o);
    }
    fs_platform_free(platforms[k]);
  }
}
END_TEST

/* ---- analytic times under hockney ------------------------------------- */

/* hockney alpha = 1 us, beta = 1 ns/B, S = 1000 B: a message T = 2 us, the
 * sender busy until it arrives, the receiver's CPU not used. M = 4 nodes of
 * Q = 8 cores.
 *
 * bcast-smp from a leader: every leader's part of the binomial among the
 * leaders ends at log2 M * T (the root sends log2 M messages back to back,
 * a leader reached at depth d sends log2 M - d), then log2 Q sends inside
 * the node: (log2 M + log2 Q) T = 5T = 10 us, under either mapping (under
 * round-robin rank 3 leads node 3). From rank 3 under sequential mapping (a
 * non-leader): one more T for the message to the leader: 6T = 12 us. On 3
 * nodes of 3 cores: ceil(log2 3) + ceil(log2 3) = 4T. */
START_TEST(bcast_hockney) {
  const char *params = "alpha=1us beta=1ns";
  fs_platform *seq = platform_for(4, 8, "seq", 32), *rr = platform_for(4, 8, "rr", 32);
  fs_generator_options o = fs_test_options(32, 1000, 0, seq);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-smp", &o, "hockney", "fixed", params),
                   10 * US);
  o.root = 3;
  ck_assert_int_eq(fs_test_generated_makespan("bcast-smp", &o, "hockney", "fixed", params),
                   12 * US);
  o.platform = rr;
  ck_assert_int_eq(fs_test_generated_makespan("bcast-smp", &o, "hockney", "fixed", params),
                   10 * US);
  o.root = 4; /* node 0's local rank 1 under round-robin */
  ck_assert_int_eq(fs_test_generated_makespan("bcast-smp", &o, "hockney", "fixed", params),
                   12 * US);
  fs_platform *small = platform_for(3, 3, "seq", 9);
  o = fs_test_options(9, 1000, 0, small);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-smp", &o, "hockney", "fixed", params), 8 * US);
  fs_platform_free(seq), fs_platform_free(rr), fs_platform_free(small);
}
END_TEST

/* reduce-smp, reduce time g = 300 ns, T = 2 us, M = 4, Q = 8, sequential.
 * A binomial reduce of 2^k members ends at k(T + g) at its root (a member
 * with lowbit 2^j sends at j(T + g): its i-th child's message arrives at
 * i(T + g) + T and is reduced in g). So the nodes 1..3 reach their leaders
 * at D = 3(T + g) = 6.9 us; the leaders' reduce to leader 0 ends at
 * D + 2(T + g) = 11.5 us (leader 0 adds only its own value). Then, in
 * MPICH's order, node 0 reduces to the root:
 * - root 0 (the leader): its 3 children's sums arrived long ago (by
 *   2(T + g) + T), so only the 3 reduces remain: 11.5 + 3g = 12.4 us,
 *   5T + 8g (the leader-first order of the brief would give 5(T + g));
 * - root 3 (local 3; relative ranks v = local - 3 mod 8): the leader is
 *   relative 5, a leaf: at 11.5 it sends to relative 4 (rank 7), which
 *   reduces (its other child's sum is there) and sends to the root:
 *   11.5 + T + 2g + T + g = 16.4 us (7T + 8g). */
START_TEST(reduce_hockney) {
  const char *params = "alpha=1us beta=1ns";
  fs_platform *seq = platform_for(4, 8, "seq", 32);
  fs_generator_options o = fs_test_options(32, 1000, 0, seq);
  o.has_reduce_time = 1;
  o.reduce_time = 300 * NS;
  ck_assert_int_eq(fs_test_generated_makespan("reduce-smp", &o, "hockney", "fixed", params),
                   12400 * NS);
  o.root = 3;
  ck_assert_int_eq(fs_test_generated_makespan("reduce-smp", &o, "hockney", "fixed", params),
                   16400 * NS);
  /* without a platform: the binomial reduce of 32 ranks, 5(T + g) */
  o.platform = NULL;
  o.root = 0;
  ck_assert_int_eq(fs_test_generated_makespan("reduce-smp", &o, "hockney", "fixed", params),
                   11500 * NS);
  fs_platform_free(seq);
}
END_TEST

/* allreduce-smp, T = 2 us, g = 300 ns, Q = 8 sequential:
 * - M = 4: node reduce 3(T + g), two recursive-doubling rounds 2(T + g)
 *   (a sendrecv: both messages arrive T after they leave, then g), node
 *   broadcast 3T: 5(T + g) + 3T = 17.5 us;
 * - M = 3 (not a power of 2): leader 0 sends to leader 1 (collapse, T + g
 *   after D = 3(T + g) at leader 1), leaders 1 and 2 exchange (leader 2's
 *   message waits: its round ends at D + 2(T + g)), leader 1 sends the
 *   result to leader 0 (expand, T), then every node broadcasts (3T; leader
 *   1's broadcast follows its expand send): 5(T + g) + T + 3T = 19.5 us.
 * Without a platform, 32 ranks: recursive doubling 5(T + g) = 11.5 us. */
START_TEST(allreduce_hockney) {
  const char *params = "alpha=1us beta=1ns";
  fs_platform *four = platform_for(4, 8, "seq", 32), *three = platform_for(3, 8, "seq", 24);
  fs_generator_options o = fs_test_options(32, 1000, 0, four);
  o.has_reduce_time = 1;
  o.reduce_time = 300 * NS;
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-smp", &o, "hockney", "fixed", params),
                   17500 * NS);
  o.platform = NULL;
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-smp", &o, "hockney", "fixed", params),
                   11500 * NS);
  o.platform = three;
  o.ranks = 24;
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-smp", &o, "hockney", "fixed", params),
                   19500 * NS);
  fs_platform_free(four), fs_platform_free(three);
}
END_TEST

/* ---- two-level models: the hierarchical formula ------------------------ */

/* A hetero-hockney file: messages inside a node (same node under
 * `platform`) cost alpha0 + beta0 m, between nodes alpha1 + beta1 m. */
static char *two_level_file(const fs_platform *platform, const char *intra, const char *inter) {
  int32_t n = platform->ranks;
  size_t capacity = 128 + (size_t)n * n * 48, used = 0;
  char *text = malloc(capacity);
  used += (size_t)snprintf(text, capacity, "ranks %d\ndefault %s\n", n, inter);
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = i + 1; j < n; j++)
      if (fs_platform_node_of(platform, i) == fs_platform_node_of(platform, j))
        used += (size_t)snprintf(text + used, capacity - used, "link %d %d %s\n", i, j, intra);
  char *path = fs_test_temp_path(".hetero");
  ck_assert_int_eq(fs_test_write_file(path, text, used), 0);
  free(text);
  return path;
}

/* LogGPH's binomial (tau-Lop thesis eq. 5.4): log2 M T^1 + log2 Q T^0, here
 * with T^0 = 1 us + 0.1 ns/B * 1000 B = 1.1 us and T^1 = 5 us + 1 ns/B *
 * 1000 B = 6 us. bcast-smp sends exactly log2 M messages between nodes and
 * log2 Q inside a node on its longest path, under either mapping, and a
 * sender is busy until arrival, so it is exact: M = 4, Q = 8: 2*6 + 3*1.1 =
 * 15.3 us; M = 8, Q = 4: 3*6 + 2*1.1 = 20.2 us; from a non-leader one more
 * T^0 (16.4 us). The reduce and allreduce under the same two levels:
 *   reduce-smp to a leader: log2 Q (T^0 + g) + log2 M (T^1 + g) + log2 Q g
 *     = 3*1.4 + 2*6.3 + 0.9 = 17.7 us (g = 300 ns);
 *   allreduce-smp: log2 Q (T^0 + g) + log2 M (T^1 + g) + log2 Q T^0
 *     = 4.2 + 12.6 + 3.3 = 20.1 us. */
START_TEST(two_level_hierarchical_formula) {
  struct {
    int32_t nodes, cores;
    const char *mapping;
    int32_t root;
    fs_time expected;
  } cases[] = {
      {4, 8, "seq", 0, 15300 * NS}, {4, 8, "rr", 0, 15300 * NS},  {8, 4, "seq", 0, 20200 * NS},
      {8, 4, "rr", 5, 20200 * NS},  {4, 8, "seq", 5, 16400 * NS}, {4, 8, "rr", 9, 16400 * NS},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int32_t n = cases[c].nodes * cases[c].cores;
    fs_platform *platform = platform_for(cases[c].nodes, cases[c].cores, cases[c].mapping, n);
    char *file = two_level_file(platform, "alpha=1us beta=0.1ns", "alpha=5us beta=1ns");
    char params[256];
    snprintf(params, sizeof params, "file=%s", file);
    fs_generator_options o = fs_test_options(n, 1000, cases[c].root, platform);
    ck_assert_int_eq(fs_test_generated_makespan("bcast-smp", &o, "hetero-hockney", "fixed", params),
                     cases[c].expected);
    if (c < 2) {
      o.has_reduce_time = 1;
      o.reduce_time = 300 * NS;
      ck_assert_int_eq(fs_test_generated_makespan("reduce-smp", &o, "hetero-hockney", "fixed",
                                                  params),
                       17700 * NS);
      ck_assert_int_eq(fs_test_generated_makespan("allreduce-smp", &o, "hetero-hockney", "fixed",
                                                  params),
                       20100 * NS);
    }
    free(file);
    fs_platform_free(platform);
  }
}
END_TEST

/* taulop, tables written so every value is exact. Contention-free ones
 * (L(m, tau) = L(m, 1) for every tau up to 64: the thesis's LogGPH view):
 * shared memory L0(m) = m ns, network L1(m) = 10 m ns, unsegmented
 * (segment=0B), o0 = 7 ns, o1 = 11 ns, m = 100 B:
 *   T^0 = o0 + 2 L0 = 207 ns, T^1 = o1 + 2 L0 + L1 = 1211 ns.
 * A sender's CPU is free after o and its own copy (o + L0), before the
 * message arrives, so a node's later sends overlap; but the last node is
 * reached along the chain of first sends (depth log2 M, T^1 each) and is
 * a leaf among the leaders, and in every node the chain of first sends
 * (log2 Q of T^0) is the longest; every other node starts its node
 * broadcast earlier. So eq. 5.4 holds exactly: M = 4, Q = 8: 2 T^1 +
 * 3 T^0 = 3043 ns, sequential or round-robin.
 *
 * With contention (test_taulop.c's tables: L0(m,1..4) = m, 1.5m, 2m, 3m;
 * L1(m,tau) = 10 tau m), M = Q = 2 is still exact, T^1 + T^0 = 1418 ns: the
 * root's node copy for its node message starts after its network copy
 * ended, and node 1's broadcast runs alone. At M = Q = 4 the root's second
 * and third node messages overlap in its node's shared memory (tau = 2),
 * which LogGPH does not see: the makespan exceeds 2 T^1 + 2 T^0 (thesis
 * §5.2.1 counts C_i concurrent transmissions per stage instead). */
static char *write_table(const char *suffix, const char *text) {
  char *path = fs_test_temp_path(suffix);
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

static char *flat_table(const char *suffix, int64_t ns_at_1000) {
  char text[2048];
  int used = snprintf(text, sizeof text, "0B");
  for (int tau = 0; tau < 64; tau++)
    used += snprintf(text + used, sizeof text - (size_t)used, " 0ns");
  used += snprintf(text + used, sizeof text - (size_t)used, "\n1000B");
  for (int tau = 0; tau < 64; tau++)
    used += snprintf(text + used, sizeof text - (size_t)used, " %lldns", (long long)ns_at_1000);
  snprintf(text + used, sizeof text - (size_t)used, "\n");
  return write_table(suffix, text);
}

START_TEST(taulop_hierarchical_formula) {
  char *shm = flat_table(".shm", 1000), *net = flat_table(".net", 10000);
  char params[512];
  const char *mappings[2] = {"seq", "rr"};
  for (int m = 0; m < 2; m++) {
    fs_platform *platform = platform_for(4, 8, mappings[m], 32);
    snprintf(params, sizeof params,
             "shm_table=%s net_table=%s segment=0B shm_o=7ns net_o=11ns nodes=4 cores=8 mapping=%s",
             shm, net, mappings[m]);
    fs_generator_options o = fs_test_options(32, 100, 0, platform);
    ck_assert_int_eq(fs_test_generated_makespan("bcast-smp", &o, "taulop", "fixed", params),
                     3043 * NS);
    fs_platform_free(platform);
  }
  char *shm_contended = write_table(".shm2", "0B 0ns 0ns 0ns 0ns\n"
                                             "1000B 1000ns 1500ns 2000ns 3000ns\n");
  char *net_contended = write_table(".net2", "0B 0ns 0ns 0ns 0ns\n1000B 10us 20us 30us 40us\n");
  fs_platform *two = platform_for(2, 2, "seq", 4), *four = platform_for(4, 4, "seq", 16);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s segment=0B shm_o=7ns net_o=11ns nodes=2 cores=2 mapping=seq",
           shm_contended, net_contended);
  fs_generator_options o = fs_test_options(4, 100, 0, two);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-smp", &o, "taulop", "fixed", params),
                   1418 * NS);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s segment=0B shm_o=7ns net_o=11ns nodes=4 cores=4 mapping=seq",
           shm_contended, net_contended);
  o = fs_test_options(16, 100, 0, four);
  fs_time sequential = fs_test_generated_makespan("bcast-smp", &o, "taulop", "fixed", params);
  ck_assert_int_gt(sequential, 2 * 1211 * NS + 2 * 207 * NS);
  /* round-robin: the same program up to rank names (leaders 0..3), so the
   * same time; the flat binomial (no platform) under round-robin crosses
   * nodes in its last two stages (masks 2 and 1), with 4 messages into each
   * receiving NIC: far slower */
  fs_platform *four_rr = platform_for(4, 4, "rr", 16);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s segment=0B shm_o=7ns net_o=11ns nodes=4 cores=4 mapping=rr",
           shm_contended, net_contended);
  o.platform = four_rr;
  ck_assert_int_eq(fs_test_generated_makespan("bcast-smp", &o, "taulop", "fixed", params),
                   sequential);
  o.platform = NULL;
  ck_assert_int_gt(fs_test_generated_makespan("bcast-smp", &o, "taulop", "fixed", params),
                   2 * sequential);
  fs_platform_free(two), fs_platform_free(four), fs_platform_free(four_rr);
  free(shm), free(net), free(shm_contended), free(net_contended);
}
END_TEST

int main(void) {
  Suite *s = suite_create("smp");
  TCase *structure = tcase_create("structure");
  tcase_add_test(structure, allreduce_structure_sequential);
  tcase_add_test(structure, allreduce_structure_round_robin);
  tcase_add_test(structure, bcast_structure_sequential);
  tcase_add_test(structure, bcast_structure_round_robin);
  tcase_add_test(structure, reduce_structure_sequential);
  tcase_add_test(structure, reduce_structure_round_robin);
  tcase_add_test(structure, flat_without_platform);
  tcase_add_test(structure, flat_matches_flat_generators);
  tcase_add_test(structure, option_errors);
  suite_add_tcase(s, structure);
  TCase *flow = tcase_create("data_flow");
  tcase_set_timeout(flow, 120); /* about 10 s under the sanitizers */
  tcase_add_test(flow, data_flow_small);
  tcase_add_test(flow, data_flow_large);
  suite_add_tcase(s, flow);
  TCase *time = tcase_create("time");
  tcase_add_test(time, bcast_hockney);
  tcase_add_test(time, reduce_hockney);
  tcase_add_test(time, allreduce_hockney);
  tcase_add_test(time, two_level_hierarchical_formula);
  tcase_add_test(time, taulop_hierarchical_formula);
  suite_add_tcase(s, time);
  return fs_test_run(s);
}
