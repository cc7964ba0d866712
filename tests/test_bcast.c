/* test_bcast.c: the broadcasts bcast-binary (Open MPI's bintree, heap
 * order), bcast-chain (Open MPI's pipeline) and bcast-scatter-allgather
 * (MPICH's scatter + ring allgather, van de Geijn): exact per-rank task
 * sequences at small N and several roots, option errors, the data-flow
 * proof at N = 1..64 and a few large N, and makespans under hockney (and
 * loggops for the tree) against closed forms derived in the comments. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "data_flow_check.h"
#include "generators/generators.h"
#include "model_support.h"
#include "generator_support.h"
#include "test_support.h"

/* ---- helpers ---------------------------------------------------------- */

/* Rank r's tasks in program order, as "S3:100 R2:8<0<^1": kind (S send,
 * R recv), peer, size, then each dependency on a task of the same rank by
 * its index in this list ("<i" its end, "<^i" its start), by index. */
static void describe_rank(const fs_program *p, int32_t r, char *text, size_t size) {
  int32_t index[256], count = 0;
  size_t used = 0;
  text[0] = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->rank[t] != r) continue;
    ck_assert_int_lt(count, 256);
    index[count++] = t;
    char kind = p->kind[t] == FS_SEND ? 'S' : p->kind[t] == FS_RECV ? 'R' : '?';
    used += (size_t)snprintf(text + used, size - used, "%s%c%d:%lld", used ? " " : "", kind,
                             p->peer[t], (long long)p->value[t]);
    for (int32_t i = 0; i < count - 1; i++) /* dependencies by index */
      for (int64_t e = p->successor_at[index[i]]; e < p->successor_at[index[i] + 1]; e++)
        if (FS_EDGE_TASK(p->successor[e]) == t)
          used += (size_t)snprintf(text + used, size - used, "<%s%d",
                                   p->successor[e] & FS_EDGE_START ? "^" : "", i);
    ck_assert_uint_lt(used, size);
  }
}

static void expect_rank(const fs_program *p, int32_t r, const char *expected) {
  char text[4096];
  describe_rank(p, r, text, sizeof text);
  ck_assert_msg(strcmp(text, expected) == 0, "rank %d: \"%s\", expected \"%s\"", r, text, expected);
}

static void expect_prefix(const char *text, const char *prefix) {
  ck_assert_msg(strncmp(text, prefix, strlen(prefix)) == 0, "\"%s\" does not start with \"%s\"",
                text, prefix);
}

/* Every dependency joins two tasks of one rank. (One assertion: Check
 * records the place of each, which costs a write.) */
static void expect_local_dependencies(const fs_program *p) {
  int64_t remote = 0;
  for (int32_t t = 0; t < p->tasks; t++)
    for (int64_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++)
      remote += p->rank[FS_EDGE_TASK(p->successor[e])] != p->rank[t];
  ck_assert_int_eq(remote, 0);
}

static int count_labelled(const fs_program *p, const char *label) {
  int n = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    const char *l = fs_task_label(p, t);
    n += l && strcmp(l, label) == 0;
  }
  return n;
}

static void expect_flow(const char *name, const fs_generator_options *o) {
  char why[600];
  const char *result = fs_check_generator_flow(name, o, why, sizeof why);
  ck_assert_msg(result == NULL, "%s", result);
}

#define NS 1000 /* picoseconds */
#define HOCKNEY "alpha=1us beta=1ns"

/* ---- bcast-binary ------------------------------------------------------ */

START_TEST(binary_structure) {
  /* root 2 of 6: relative v = (rank - 2) mod 6; v sends to 2v+1, 2v+2 */
  fs_generator_options o = fs_test_options(6, 100, 2, NULL);
  fs_program *p = fs_test_generate("bcast-binary", &o);
  ck_assert_int_eq(p->tasks, 10);
  ck_assert_int_eq(p->dependencies, 3);
  expect_rank(p, 2, "S3:100 S4:100");            /* v0 -> v1, v2 */
  expect_rank(p, 3, "R2:100 S5:100<0 S0:100<0"); /* v1 -> v3, v4 */
  expect_rank(p, 4, "R2:100 S1:100<0");          /* v2 -> v5 */
  expect_rank(p, 5, "R3:100");
  expect_rank(p, 0, "R3:100");
  expect_rank(p, 1, "R4:100");
  ck_assert_int_eq(count_labelled(p, "level1"), 4);
  ck_assert_int_eq(count_labelled(p, "level2"), 6);
  fs_program_free(p);

  o = fs_test_options(1, 100, 0, NULL);
  p = fs_test_generate("bcast-binary", &o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);

  o = fs_test_options(2, 0, 1, NULL);
  p = fs_test_generate("bcast-binary", &o);
  expect_rank(p, 1, "S0:0");
  expect_rank(p, 0, "R1:0");
  ck_assert_int_eq(p->dependencies, 0);
  fs_program_free(p);

  o = fs_test_options(9, 8, 8, NULL); /* v7, v8 are the children of v3 = rank 2 */
  p = fs_test_generate("bcast-binary", &o);
  expect_rank(p, 2, "R0:8 S6:8<0 S7:8<0");
  expect_rank(p, 7, "R2:8");
  ck_assert_int_eq(count_labelled(p, "level3"), 4);
  fs_program_free(p);
}
END_TEST

START_TEST(binary_counts) {
  for (int32_t n = 1; n <= 70; n++) {
    fs_generator_options o = fs_test_options(n, 10, n / 3, NULL);
    fs_program *p = fs_test_generate("bcast-binary", &o);
    int64_t root_sends = n - 1 < 2 ? n - 1 : 2;
    ck_assert_int_eq(p->tasks, 2 * (n - 1));
    ck_assert_int_eq(p->dependencies, n - 1 - root_sends);
    expect_local_dependencies(p);
    fs_program_free(p);
  }
}
END_TEST

/* Weight of relative rank v on its path from the root: `left` per hop to
 * an odd child (its parent's first send), `right` per hop to an even one. */
static fs_time path_weight(int32_t v, fs_time left, fs_time right) {
  fs_time w = 0;
  for (; v > 0; v = (v - 1) / 2) w += v % 2 ? left : right;
  return w;
}

static fs_time heaviest_path(int32_t n, fs_time left, fs_time right) {
  fs_time worst = 0;
  for (int32_t v = 1; v < n; v++)
    if (path_weight(v, left, right) > worst) worst = path_weight(v, left, right);
  return worst;
}

/* hockney, T = alpha + beta*S: v's parent received at t, sends to 2v+1 on
 * [t, t+T] and to 2v+2 on [t+T, t+2T] (eager, busy until arrival; the
 * receiver takes no CPU). So v receives at T*(hops to a first child + 2*hops
 * to a second child), and the makespan (the last send's end) is the
 * heaviest such path: with alpha = 1 us, beta = 1 ns/B, S = 1000 B, T = 2 us.
 * N = 2^h - 1 (a full tree): all second children, 2(h-1)T. */
START_TEST(binary_hockney) {
  const fs_time t = 2000 * NS;
  static const struct {
    int32_t n;
    int weight;
  } cases[] = {{1, 0},  {2, 1},  {3, 2},  {4, 2},  {5, 3},  {7, 4},  {8, 4},
               {12, 5}, {15, 6}, {16, 6}, {31, 8}, {32, 8}, {63, 10}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fs_generator_options o = fs_test_options(cases[i].n, 1000, cases[i].n - 1, NULL);
    ck_assert_int_eq(fs_test_generated_makespan("bcast-binary", &o, "hockney", "fixed", HOCKNEY),
                     cases[i].weight * t);
    ck_assert_int_eq(heaviest_path(cases[i].n, t, 2 * t), cases[i].weight * t);
  }
  int32_t more[] = {6, 9, 10, 11, 13, 17, 33, 64, 100, 1000};
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
    fs_generator_options o = fs_test_options(more[i], 1000, more[i] / 2, NULL);
    ck_assert_int_eq(fs_test_generated_makespan("bcast-binary", &o, "hockney", "fixed", HOCKNEY),
                     heaviest_path(more[i], t, 2 * t));
  }
}
END_TEST

/* loggops, 1-byte messages ((s-1)G = 0), O = 0: a send at t holds the CPU to
 * t+o and the NIC to t+g; the message reaches the child at t+o+L, whose
 * receive holds its CPU for o; its sends start then. So a first child
 * receives 2o+L after its parent, a second child max(o, g) later still (the
 * parent's second send waits for the CPU and the NIC). The makespan is the
 * end of the last receive, the heaviest path: L = 2.5 us, o = 1.5 us, g =
 * 1 us: first 5.5 us, second 7 us; N = 7: 14 us, N = 6: 12.5 us; with g = 4
 * us, second children 9.5 us: N = 7: 19 us. */
START_TEST(binary_loggops) {
  const char *params = "L=2500ns o=1500ns g=1000ns G=6ns O=0ns S=65535";
  fs_generator_options o = fs_test_options(7, 1, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-binary", &o, "loggops", "fixed", params),
                   14000 * NS);
  o = fs_test_options(6, 1, 3, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-binary", &o, "loggops", "fixed", params),
                   12500 * NS);
  for (int32_t n = 2; n <= 40; n++) {
    o = fs_test_options(n, 1, 0, NULL);
    ck_assert_int_eq(fs_test_generated_makespan("bcast-binary", &o, "loggops", "fixed", params),
                     heaviest_path(n, 5500 * NS, 7000 * NS));
  }
  const char *slow_nic = "L=2500ns o=1500ns g=4000ns G=6ns O=0ns S=65535";
  o = fs_test_options(7, 1, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-binary", &o, "loggops", "fixed", slow_nic),
                   19000 * NS);
}
END_TEST

/* ---- bcast-chain -------------------------------------------------------- */

START_TEST(chain_structure) {
  /* root 1 of 4, 20 bytes in segments of 8: 8, 8, 4. Relative v0..v3 are
   * ranks 1, 2, 3, 0. Middle ranks: R0 R1 S0 R2 S1 S2 (Open MPI's loop) */
  fs_generator_options o = fs_test_options(4, 20, 1, NULL);
  o.segment = 8;
  fs_program *p = fs_test_generate("bcast-chain", &o);
  ck_assert_int_eq(p->tasks, 18);
  ck_assert_int_eq(p->dependencies, 21);
  expect_rank(p, 1, "S2:8 S2:8<0 S2:4<1");
  expect_rank(p, 2, "R1:8 R1:8<^0 S3:8<0 R1:4<^1<2 S3:8<1<2 S3:4<3<4");
  expect_rank(p, 3, "R2:8 R2:8<^0 S0:8<0 R2:4<^1<2 S0:8<1<2 S0:4<3<4");
  expect_rank(p, 0, "R3:8 R3:8<^0 R3:4<0<^1");
  ck_assert_int_eq(count_labelled(p, "segment1"), 6);
  ck_assert_int_eq(count_labelled(p, "segment3"), 6);
  fs_program_free(p);

  o = fs_test_options(3, 0, 2, NULL); /* S = 0: one 0-byte segment */
  p = fs_test_generate("bcast-chain", &o);
  expect_rank(p, 2, "S0:0");
  expect_rank(p, 0, "R2:0 S1:0<0");
  expect_rank(p, 1, "R0:0");
  fs_program_free(p);

  o = fs_test_options(2, 20000, 0, NULL); /* --segment 0: 8 KiB */
  p = fs_test_generate("bcast-chain", &o);
  expect_rank(p, 0, "S1:8192 S1:8192<0 S1:3616<1");
  expect_rank(p, 1, "R0:8192 R0:8192<^0 R0:3616<0<^1");
  fs_program_free(p);

  o = fs_test_options(1, 20000, 0, NULL);
  p = fs_test_generate("bcast-chain", &o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
}
END_TEST

START_TEST(chain_counts) {
  /* k segments: 2k(N-1) tasks; dependencies: root k-1, a middle rank
   * (k-1) + max(k-2,0) + k + (k-1), the last rank (k-1) + max(k-2,0) */
  int64_t sizes[] = {0, 1, 7, 8, 9, 64, 65};
  for (int32_t n = 1; n <= 12; n++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      fs_generator_options o = fs_test_options(n, sizes[i], n - 1, NULL);
      o.segment = 8;
      int64_t k = sizes[i] ? (sizes[i] + 7) / 8 : 1, older = k > 2 ? k - 2 : 0;
      fs_program *p = fs_test_generate("bcast-chain", &o);
      ck_assert_int_eq(p->tasks, 2 * k * (n - 1));
      int64_t deps = n < 2 ? 0 : (k - 1) + (n - 2) * (3 * k - 2 + older) + (k - 1) + older;
      ck_assert_int_eq(p->dependencies, deps);
      expect_local_dependencies(p);
      fs_program_free(p);
    }
}
END_TEST

/* hockney, T = alpha + beta*segment, T_last for the last segment (<= T):
 * the root sends segment i on [iT, (i+1)T]; relative rank v receives it at
 * (v+i)T and forwards it on [(v+i)T, (v+i+1)T] (its send i-1 ended then,
 * and recv i was posted when send i-2 ended, before the arrival). The last
 * segment leaves v at (v+k-1)T and reaches v+1 T_last later, so the
 * makespan is (N+k-3)T + T_last; all segments full: (N-2+k)T. One segment
 * (k = 1): N-1 hops of T_last. */
START_TEST(chain_hockney) {
  /* 20000 B in 4096 B segments: k = 5 (4 x 4096 + 3616); T = 5096 ns,
   * T_last = 4616 ns; N = 8: 10 T + T_last = 55576 ns */
  fs_generator_options o = fs_test_options(8, 20000, 3, NULL);
  o.segment = 4096;
  ck_assert_int_eq(fs_test_generated_makespan("bcast-chain", &o, "hockney", "fixed", HOCKNEY),
                   55576 * NS);
  /* 16384 B: k = 4 full segments, N = 8: (8-2+4) T = 50960 ns */
  o.size = 16384;
  ck_assert_int_eq(fs_test_generated_makespan("bcast-chain", &o, "hockney", "fixed", HOCKNEY),
                   50960 * NS);
  /* S = 0: one 0-byte segment, N-1 hops of alpha */
  o = fs_test_options(10, 0, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-chain", &o, "hockney", "fixed", HOCKNEY),
                   9000 * NS);
  /* the closed form over N and sizes, segment 1000 B (T = 2 us) */
  int64_t sizes[] = {1, 999, 1000, 1001, 5000, 7300};
  for (int32_t n = 2; n <= 20; n++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      o = fs_test_options(n, sizes[i], n / 2, NULL);
      o.segment = 1000;
      int64_t k = (sizes[i] + 999) / 1000, last = sizes[i] - (k - 1) * 1000;
      fs_time expected = k == 1 ? (n - 1) * (1000 + last) * NS
                                : (n + k - 3) * 2000 * NS + (1000 + last) * NS;
      ck_assert_int_eq(fs_test_generated_makespan("bcast-chain", &o, "hockney", "fixed", HOCKNEY),
                       expected);
    }
}
END_TEST

/* ---- bcast-scatter-allgather ----------------------------------------- */

START_TEST(scatter_allgather_structure) {
  /* N = 4, root 2, S = 2: ss = 1, chunks 1, 1, 0, 0 (relative v0..v3 =
   * ranks 2, 3, 0, 1). Scatter: only v0 -> v1 (MPICH skips the empty
   * chunks). Ring step i: v receives chunk v-i-1, sends chunk v-i. */
  fs_generator_options o = fs_test_options(4, 2, 2, NULL);
  fs_program *p = fs_test_generate("bcast-scatter-allgather", &o);
  ck_assert_int_eq(p->tasks, 26);
  ck_assert_int_eq(p->dependencies, 36);
  expect_rank(p, 2, "S3:1 R1:0<0 S3:1<0 R1:0<1<2 S3:0<1<2 R1:1<3<4 S3:0<3<4");
  expect_rank(p, 3, "R2:1 R2:1<0 S0:1<0 R2:0<1<2 S0:1<1<2 R2:0<3<4 S0:0<3<4");
  expect_rank(p, 0, "R3:1 S1:0 R3:1<0<1 S1:1<0<1 R3:0<2<3 S1:1<2<3");
  expect_rank(p, 1, "R0:0 S2:0 R0:1<0<1 S2:0<0<1 R0:1<2<3 S2:1<2<3");
  ck_assert_int_eq(count_labelled(p, "scatter2"), 2);
  ck_assert_int_eq(count_labelled(p, "allgather3"), 8);
  fs_program_free(p);

  /* N = 3, root 0, S = 5: ss = 2, chunks 2, 2, 1; the root sends chunk 2
   * (mask 2) then chunk 1 (mask 1) */
  o = fs_test_options(3, 5, 0, NULL);
  p = fs_test_generate("bcast-scatter-allgather", &o);
  expect_rank(p, 0, "S2:1 S1:2<0 R2:1<1 S1:2<1 R2:2<2<3 S1:1<2<3");
  expect_rank(p, 1, "R0:2 R0:2<0 S2:2<0 R0:1<1<2 S2:2<1<2");
  expect_rank(p, 2, "R0:1 R1:2<0 S0:1<0 R1:2<1<2 S0:2<1<2");
  fs_program_free(p);

  /* N = 8, S = 800: the scatter halves 400, 200, 100 from the root; v4
   * forwards 200 to v6 and 100 to v5 */
  o = fs_test_options(8, 800, 0, NULL);
  p = fs_test_generate("bcast-scatter-allgather", &o);
  char text[4096];
  describe_rank(p, 0, text, sizeof text);
  expect_prefix(text, "S4:400 S2:200<0 S1:100<1 R7:100<2 S1:100<2 ");
  describe_rank(p, 4, text, sizeof text);
  expect_prefix(text, "R0:400 S6:200<0 S5:100<1 R3:100<2 S5:100<2 ");
  fs_program_free(p);

  /* S = 0 or N = 1: MPICH returns at once */
  o = fs_test_options(5, 0, 1, NULL);
  p = fs_test_generate("bcast-scatter-allgather", &o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
  o = fs_test_options(1, 100, 0, NULL);
  p = fs_test_generate("bcast-scatter-allgather", &o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
}
END_TEST

START_TEST(scatter_allgather_counts) {
  /* K = ceil(S/ss) non-empty chunks: 2(K-1) + 2N(N-1) tasks, (3K-2 when
   * K >= 2) + 4N(N-2) dependencies; the bytes of the scatter messages add
   * up to S minus the root's chunk, each ring step moves S bytes in all */
  int64_t sizes[] = {1, 2, 5, 24, 100, 1000, 1001};
  for (int32_t n = 2; n <= 40; n++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      int64_t s = sizes[i], ss = (s + n - 1) / n, k = (s + ss - 1) / ss;
      fs_generator_options o = fs_test_options(n, s, n - 1, NULL);
      fs_program *p = fs_test_generate("bcast-scatter-allgather", &o);
      ck_assert_int_eq(p->tasks, 2 * (k - 1) + 2 * n * (n - 1));
      ck_assert_int_eq(p->dependencies, (k >= 2 ? 3 * k - 2 : 0) + 4 * n * (n - 2));
      expect_local_dependencies(p);
      int64_t scattered = 0, ring = 0;
      for (int32_t t = 0; t < p->tasks; t++) {
        const char *l = fs_task_label(p, t);
        if (p->kind[t] != FS_SEND) continue;
        if (strncmp(l, "scatter", 7) == 0) scattered += p->value[t];
        if (strcmp(l, "allgather1") == 0) ring += p->value[t];
      }
      ck_assert_int_eq(ring, s);
      /* the root sends chunks 1..N-1 once; every other scatter message
       * forwards bytes a rank received: the total is S - chunk0 plus the
       * forwarded bytes, at least S - ss */
      ck_assert_int_ge(scattered, s - ss);
      fs_program_free(p);
    }
}
END_TEST

/* hockney, N = 2^h, S = N*c: scatter round j (mask N/2^j) sends N c/2^j
 * bytes down every subtree; a rank that received at t sends its halves
 * back to back, so every rank ends the scatter at h*alpha + (N-1)*beta*c
 * (the root: h sends of N c/2, ..., c). The ring then runs in lockstep, N-1
 * steps of alpha + beta*c (both halves of a step end at the arrival). With
 * alpha = 1 us, beta = 1 ns/B, c = 1000 B: N = 2: 2 + 2 = 4 us; N = 4: 2 + 3
 * + 3*2 = 11 us; N = 8: 3 + 7
 * + 7*2 = 24 us; N = 16: 4 + 15 + 15*2 = 49 us; N = 64: 6 + 63 + 126 =
 * 195 us. */
START_TEST(scatter_allgather_hockney_power_of_two) {
  static const struct {
    int32_t n;
    fs_time us;
  } cases[] = {{2, 4}, {4, 11}, {8, 24}, {16, 49}, {64, 195}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int32_t root = 0; root < cases[i].n; root += cases[i].n / 2 + 1) {
      int32_t n = cases[i].n;
      int h = 0;
      while ((1 << h) < n) h++;
      fs_time formula = (h * 1000 + (n - 1) * 1000 + (n - 1) * 2000) * (fs_time)NS;
      ck_assert_int_eq(formula, cases[i].us * 1000 * NS);
      fs_generator_options o = fs_test_options(n, (int64_t)n * 1000, root, NULL);
      ck_assert_int_eq(fs_test_generated_makespan("bcast-scatter-allgather", &o, "hockney", "fixed",
                                                  HOCKNEY),
                       formula);
    }
}
END_TEST

/* Two uneven cases by hand (alpha = 1 us, beta = 1 ns/B):
 * - N = 3, S = 3000, T = alpha + 1000 beta = 2 us. The root sends chunk 2 on
 *   [0, T], chunk 1 on [T, 2T]. Step 0: rank 2 (ready at T) sends chunk 2
 *   to 0 on [T, 2T]; ranks 0 and 1 (ready at 2T) send on [2T, 3T]. Step 1
 *   starts everywhere at 3T (rank 2 waits for chunk 1): 4T = 8 us.
 * - N = 4, S = 7001: ss = 1751, chunks 1751 x 3 and 1748. Scatter: 0 -> 2
 *   (3499 B) ends 4499 ns, 0 -> 1 (1751 B) 7250, 2 -> 3 (1748 B) 7247.
 *   Step 0 (v sends chunk v): ends 0: 10001, 1: 10001, 2: 10001 (chunk 1
 *   from 1), 3: 9998. Step 1: 0 sends chunk 3 (1748 B) to 12749, 1 chunk 0
 *   to 12752, 2 chunk 1 to 12752, 3 (at 9998) chunk 2 to 12749; ends 0:
 *   12749, 1: 12752, 2: 12752, 3: 12752. Step 2: 0 sends chunk 2 to 15500,
 *   1 chunk 3 to 15500, 2 chunk 0 and 3 chunk 1 to 15503 ns. */
START_TEST(scatter_allgather_hockney_uneven) {
  fs_generator_options o = fs_test_options(3, 3000, 1, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-scatter-allgather", &o, "hockney", "fixed",
                                              HOCKNEY),
                   8000 * NS);
  o = fs_test_options(4, 7001, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-scatter-allgather", &o, "hockney", "fixed",
                                              HOCKNEY),
                   15503 * NS);
}
END_TEST

/* ---- options ------------------------------------------------------------ */

START_TEST(bad_options) {
  const char *names[] = {"bcast-binary", "bcast-chain", "bcast-scatter-allgather"};
  for (int i = 0; i < 3; i++) {
    fs_generator_options o = fs_test_options(4, 100, 4, NULL);
    fs_test_generate_refused(names[i], &o, "--root 4 is not a rank of 0..3");
    o.root = -1;
    fs_test_generate_refused(names[i], &o, "--root -1 is not a rank of 0..3");
    o = fs_test_options(4, 100, 0, NULL);
    o.has_reduce_time = 1;
    fs_test_generate_refused(names[i], &o, "--reduce-time does not apply");
    o = fs_test_options(0, 100, 0, NULL);
    fs_test_generate_refused(names[i], &o, "--ranks must be at least 1");
    o = fs_test_options(4, -1, 0, NULL);
    fs_test_generate_refused(names[i], &o, "--size must not be negative");
  }
  fs_generator_options o = fs_test_options(4, 100, 0, NULL);
  o.segment = -8;
  fs_test_generate_refused("bcast-chain", &o, "--segment must not be negative, not -8");
  o = fs_test_options(3, INT64_MAX, 0, NULL);
  o.segment = 1;
  fs_test_generate_refused("bcast-chain", &o, "segments of 1 bytes are too many");
}
END_TEST

/* ---- data flow ---------------------------------------------------------- */

/* N = 1..64, roots 0, N-1, N/2, sizes with empty and uneven pieces. */
START_TEST(flow_small) {
  for (int32_t n = 1; n <= 64; n++) {
    int32_t roots[3] = {0, n - 1, n / 2};
    for (int r = 0; r < 3; r++) {
      int64_t sizes[] = {0, 1, 24, 1000, 64 * 3 + 1};
      for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        fs_generator_options o = fs_test_options(n, sizes[i], roots[r], NULL);
        expect_flow("bcast-binary", &o);
        o.segment = 7; /* 0, 1, 4, 143, 28 segments */
        expect_flow("bcast-chain", &o);
        o.segment = 0;
        expect_flow("bcast-chain", &o);
        /* at S = 0 MPICH sends nothing, which the check (blocks must
         * arrive, even of 0 bytes) cannot accept beyond one rank */
        if (sizes[i] > 0 || n == 1) expect_flow("bcast-scatter-allgather", &o);
      }
    }
  }
}
END_TEST

START_TEST(flow_large) {
  int32_t counts[] = {100, 128, 257, 1000};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    int32_t n = counts[i], roots[3] = {0, n - 1, n / 2};
    for (int r = 0; r < 3; r++) {
      fs_generator_options o = fs_test_options(n, 1000, roots[r], NULL);
      expect_flow("bcast-binary", &o);
      o.segment = 256;
      expect_flow("bcast-chain", &o);
      o.segment = 0;
      /* 2N(N-1) ring tasks, and the check scans each channel: 2 s at 257 */
      if (n > 128) continue;
      expect_flow("bcast-scatter-allgather", &o);
      o.size = 3 * (int64_t)n + 1; /* ss = 4: about a quarter of the chunks empty */
      expect_flow("bcast-scatter-allgather", &o);
    }
  }
  fs_generator_options o = fs_test_options(257, 3 * 257 + 1, 128, NULL);
  expect_flow("bcast-scatter-allgather", &o);
}
END_TEST

/* ---- Open MPI's and MPICH's other broadcasts (issue 19) ------------------ */

/* bcast-knomial, radix 4, N = 16, S = 1000 B under hockney (T = alpha +
 * beta*S = 2 us; a sender is busy until arrival, receipts are free): the
 * root sends 3 messages per power of 4 below 16, 2 rounds of 3: to 4, 8, 12
 * (arriving at T, 2T, 3T), then 1, 2, 3 (4T, 5T, 6T); 4, 8, 12 each send 3
 * to their own +1, +2, +3 right after receiving (last arrival 3T + 3T = 6T).
 * Makespan 6T = 12 us. Radix 2 at N = 8 is the binomial tree with the root
 * sending to 4, 2, 1: 4 gets it at T and sends to 6 (2T) and 5 (3T); 2 at
 * 2T sends to 3 (3T); 6 at 2T sends to 7 (3T): 3T = 6 us. Tasks 2(N-1),
 * dependencies N-1 minus the root's children. */
START_TEST(knomial_hockney) {
  fs_generator_options o = fs_test_options(16, 1000, 5, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-knomial", &o, "hockney", "fixed", HOCKNEY),
                   12000 * NS);
  fs_program *p = fs_test_generate("bcast-knomial", &o);
  ck_assert_int_eq(p->tasks, 30);
  ck_assert_int_eq(p->dependencies, 15 - 6);
  fs_program_free(p);
  o = fs_test_options(8, 1000, 0, NULL);
  o.ways = 2;
  ck_assert_int_eq(fs_test_generated_makespan("bcast-knomial", &o, "hockney", "fixed", HOCKNEY),
                   6000 * NS);
  o.ways = 1;
  fs_test_generate_refused("bcast-knomial", &o, "--ways must be a radix of at least 2");
}
END_TEST

/* bcast-split-binary, S = 1000 B: halves of 500 B, T = 1.5 us. N = 3: the
 * root sends half 0 to 1 (arrives 1.5 us) then half 1 to 2 (3 us); 1 sends
 * its half to 2 at 1.5 us (arrives 3 us), 2 sends its half to 1 at 3 us
 * (4.5 us): 4.5 us. N = 4: 1 forwards half 0 to 3 at 1.5 us (3 us); then
 * the root sends half 1 to 3 (3 us .. 4.5 us) while 1 and 2 swap (1 after
 * its send at 3 us: 4.5 us; 2 at 3 us: 4.5 us): 4.5 us. S = 1: Open MPI's
 * chain, N = 5: 4 hops of 1001 ns. Tasks 4(N-1), dependencies 3N-4. */
START_TEST(split_binary_hockney) {
  fs_generator_options o = fs_test_options(3, 1000, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-split-binary", &o, "hockney", "fixed",
                                              HOCKNEY),
                   4500 * NS);
  o = fs_test_options(4, 1000, 3, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-split-binary", &o, "hockney", "fixed",
                                              HOCKNEY),
                   4500 * NS);
  for (int32_t n = 2; n <= 40; n++) {
    o = fs_test_options(n, 1000, n / 3, NULL);
    fs_program *p = fs_test_generate("bcast-split-binary", &o);
    ck_assert_int_eq(p->tasks, 4 * (n - 1));
    ck_assert_int_eq(p->dependencies, 3 * n - 4);
    fs_program_free(p);
  }
  o = fs_test_options(5, 1, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-split-binary", &o, "hockney", "fixed",
                                              HOCKNEY),
                   4 * 1001 * NS);
}
END_TEST

/* bcast-scatter-rd-allgather, N = 2^h, S = N*c: the scatter ends at
 * h*alpha + (N-1)*beta*c (as bcast-scatter-allgather), then h exchange
 * steps of 2^i chunks: h*alpha + (N-1)*beta*c. c = 1000 B: N = 4: 2 + 3 +
 * 2 + 3 = 10 us; N = 8: 3 + 7 + 3 + 7 = 20 us; N = 16: 4+15+4+15 = 38 us.
 * N = 3, S = 3000 B (ss = 1000): scatter: the root sends chunk 2 to 2 (2
 * us) then chunk 1 to 1 (4 us); step 1: 0 and 1 swap 1000 B (6 us); 2 has
 * no partner; step 2: 0 and 2 swap (0 sends chunks 0-1, 2000 B: 6 .. 9
 * us; 2 sends chunk 2: 6 .. 8 us); 2's subtree partner (1) is missing, so
 * the fix-up: none needed in 2's subtree of one, but 1 has no partner
 * either (1^2 = 3): 0 is the subtree's rank with data (c = 3 - 0 - 2 = 1)
 * and sends chunk 2 to 1 at 9 us: 11 us. */
START_TEST(scatter_rd_allgather_hockney) {
  int32_t counts[] = {4, 8, 16};
  fs_time expected[] = {10000, 20000, 38000};
  for (int i = 0; i < 3; i++) {
    fs_generator_options o = fs_test_options(counts[i], 1000 * (int64_t)counts[i], 1, NULL);
    ck_assert_int_eq(fs_test_generated_makespan("bcast-scatter-rd-allgather", &o, "hockney",
                                                "fixed", HOCKNEY),
                     expected[i] * NS);
  }
  fs_generator_options o = fs_test_options(3, 3000, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("bcast-scatter-rd-allgather", &o, "hockney", "fixed",
                                              HOCKNEY),
                   11000 * NS);
}
END_TEST

/* The data flow beyond test_collectives: N = 1..33 and powers of two up to
 * 512, roots 0, N-1, N/2, sizes with empty chunks and halves, radixes 2..5. */
START_TEST(flow_issue19) {
  int32_t counts[40];
  int k = 0;
  for (int32_t n = 1; n <= 33; n++) counts[k++] = n;
  for (int32_t n = 64; n <= 512; n *= 2) counts[k++] = n;
  for (int i = 0; i < k; i++) {
    int32_t n = counts[i], roots[3] = {0, n - 1, n / 2};
    for (int r = 0; r < 3; r++) {
      int64_t sizes[] = {1, 2, 24, 3 * (int64_t)n + 1, 1000};
      for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
        fs_generator_options o = fs_test_options(n, sizes[j], roots[r], NULL);
        expect_flow("bcast-split-binary", &o);
        expect_flow("bcast-scatter-rd-allgather", &o);
        for (o.ways = 2; o.ways <= 5; o.ways++) expect_flow("bcast-knomial", &o);
      }
    }
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("bcast");
  TCase *binary = tcase_create("binary");
  tcase_add_test(binary, binary_structure);
  tcase_add_test(binary, binary_counts);
  tcase_add_test(binary, binary_hockney);
  tcase_add_test(binary, binary_loggops);
  suite_add_tcase(s, binary);
  TCase *chain = tcase_create("chain");
  tcase_add_test(chain, chain_structure);
  tcase_add_test(chain, chain_counts);
  tcase_add_test(chain, chain_hockney);
  suite_add_tcase(s, chain);
  TCase *vdg = tcase_create("scatter_allgather");
  tcase_add_test(vdg, scatter_allgather_structure);
  tcase_add_test(vdg, scatter_allgather_counts);
  tcase_add_test(vdg, scatter_allgather_hockney_power_of_two);
  tcase_add_test(vdg, scatter_allgather_hockney_uneven);
  suite_add_tcase(s, vdg);
  TCase *options = tcase_create("options");
  tcase_add_test(options, bad_options);
  suite_add_tcase(s, options);
  TCase *flow = tcase_create("flow");
  tcase_add_test(flow, flow_small);
  tcase_add_test(flow, flow_large);
  tcase_set_timeout(flow, 600);
  suite_add_tcase(s, flow);
  TCase *more = tcase_create("issue19");
  tcase_add_test(more, knomial_hockney);
  tcase_add_test(more, split_binary_hockney);
  tcase_add_test(more, scatter_rd_allgather_hockney);
  tcase_add_test(more, flow_issue19);
  tcase_set_timeout(more, 300);
  suite_add_tcase(s, more);
  return fs_test_run(s);
}
