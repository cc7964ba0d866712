/* test_allreduce.c: the two-sided allreduces allreduce-ring,
 * allreduce-rabenseifner, allreduce-fan and allreduce-dissemination: each
 * rank's exact task sequence at small N (worked out by hand from MPICH's
 * loops), the counts, option errors, the data-flow proof at N = 1..64 and
 * a few large N, and exact makespans under hockney (and pipelined) against
 * the closed forms derived in the comments. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/program.h"
#include "generators/data_flow_check.h"
#include "generators/generators.h"
#include "model_support.h"
#include "generator_support.h"
#include "test_support.h"

/* ---- helpers ------------------------------------------------------------ */

/* Rank `rank`'s tasks in program order, one word each: S<peer>:<bytes>
 * (send), R<peer>:<bytes> (recv), C:<bytes> or C@<ps> (compute), followed
 * by <i,j,.. : the rank-local indices of its dependencies, ascending (all
 * dependencies are within the rank; that is asserted). */
static const char *story(const fs_program *p, int32_t rank, char *out, size_t size) {
  int32_t *local = malloc((size_t)p->tasks * sizeof *local);
  ck_assert_ptr_nonnull(local);
  for (int32_t t = 0, i = 0; t < p->tasks; t++) local[t] = p->rank[t] == rank ? i++ : -1;
  size_t used = 0;
  out[0] = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->rank[t] != rank) continue;
    char word[96];
    int n;
    if (p->kind[t] == FS_SEND || p->kind[t] == FS_RECV)
      n = snprintf(word, sizeof word, "%s%c%d:%lld", used ? " " : "",
                   p->kind[t] == FS_SEND ? 'S' : 'R', p->peer[t], (long long)p->value[t]);
    else if (p->kind[t] == FS_COMPUTE)
      n = snprintf(word, sizeof word, "%sC%c%lld", used ? " " : "",
                   p->flags[t] & FS_HAS_TIME ? '@' : ':', (long long)p->value[t]);
    else
      n = snprintf(word, sizeof word, "%s?", used ? " " : "");
    int first = 1;
    for (int32_t s = 0; s < t; s++) /* predecessors are earlier tasks */
      for (uint32_t e = p->successor_at[s]; e < p->successor_at[s + 1]; e++)
        if (FS_EDGE_TASK(p->successor[e]) == t) {
          ck_assert_int_eq(p->rank[s], rank);
          n += snprintf(word + n, sizeof word - (size_t)n, "%c%d", first ? '<' : ',', local[s]);
          first = 0;
        }
    ck_assert_uint_lt(used + (size_t)n, size);
    memcpy(out + used, word, (size_t)n + 1);
    used += (size_t)n;
  }
  free(local);
  return out;
}

static void expect_story(const fs_program *p, int32_t rank, const char *expected) {
  char text[4096];
  ck_assert_str_eq(story(p, rank, text, sizeof text), expected);
}

static int count_label(const fs_program *p, const char *label) {
  int n = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    const char *l = fs_task_label(p, t);
    n += l && strcmp(l, label) == 0;
  }
  return n;
}

/* Distinct labels used. */
static int distinct_labels(const fs_program *p) {
  int n = 0;
  for (int32_t l = 0; l < p->label_count; l++)
    for (int32_t t = 0; t < p->tasks; t++)
      if (p->label && p->label[t] == l) {
        n++;
        break;
      }
  return n;
}

/* Picoseconds: alpha 1 us, beta 1 ns/B, gamma 2 ns/B. */
enum { ALPHA = 1000000, BETA = 1000, GAMMA = 2000 };
#define HOCKNEY "alpha=1us beta=1ns"
#define HOCKNEY_GAMMA "alpha=1us beta=1ns gamma=2ns"

static void expect_flow(const char *name, const fs_generator_options *o) {
  char why[600];
  const char *result = fs_check_generator_flow(name, o, why, sizeof why);
  ck_assert_msg(result == NULL, "%s (size %lld, ways %d): %s", name, (long long)o->size, o->ways,
                result);
}

/* ---- allreduce-ring ----------------------------------------------------- */

/* N = 4, S = 5: MPICH's cnts are 2 2 1 0. Reduce-scatter step i: recv
 * block r-2-i from r-1, send block r-1-i to r+1, reduce the received block
 * unless it is empty (block 3). Allgather step i: recv block r-1-i, send
 * block r-i, skipping empty ones. */
START_TEST(ring_structure) {
  fs_generator_options o = fs_test_options(4, 5, 0, NULL);
  fs_program *p = fs_test_generate("allreduce-ring", &o);
  /* rank 0: RS recv 2,1,0 send 3,2,1; AG send 0; recv 2; recv 1 + send 2 */
  expect_story(p, 0,
               "R3:1 S1:0 C:1<0,1 R3:2<2 S1:1<2 C:2<3,4 R3:2<5 S1:2<5 C:2<6,7 S1:2<8 R3:1<9 "
               "R3:2<10 S1:1<10");
  /* rank 1: RS recv 3 (empty: no reduce), 2, 1; AG recv 0 + send 1, send 0, recv 2 */
  expect_story(p, 1,
               "R0:0 S2:2 R0:1<0,1 S2:0<0,1 C:1<2,3 R0:2<4 S2:1<4 C:2<5,6 R0:2<7 S2:2<7 "
               "S2:2<8,9 R0:1<10");
  expect_story(p, 2,
               "R1:2 S3:2 C:2<0,1 R1:0<2 S3:2<2 R1:1<3,4 S3:0<3,4 C:1<5,6 R1:2<7 S3:1<7 "
               "R1:2<8,9 S3:2<8,9 S3:2<10,11");
  /* rank 3 ends the reduce-scatter with the empty block 3: no last reduce */
  expect_story(p, 3,
               "R2:2 S0:1 C:2<0,1 R2:2<2 S0:2<2 C:2<3,4 R2:0<5 S0:2<5 R2:1<6,7 R2:2<8 S0:1<8 "
               "R2:2<9,10 S0:2<9,10");
  /* (N-1)(2N + 3 nonempty) = 3 * (8 + 9) tasks; 14 + 15 + 18 + 16 dependencies */
  ck_assert_int_eq(p->tasks, 51);
  ck_assert_int_eq(p->dependencies, 63);
  ck_assert_int_eq(count_label(p, "reduce-scatter1"), 4 * 2 + 3);
  ck_assert_int_eq(count_label(p, "allgather3"), 6);
  fs_program_free(p);
}
END_TEST

/* N = 3, S = 5 (cnts 2 2 1): rank 0 receives blocks 1, 0 and sends 2, 1;
 * ends with block 0; allgather receives 2 then 1, sends 0 then 2. */
START_TEST(ring_structure_three) {
  fs_generator_options o = fs_test_options(3, 5, 0, NULL);
  fs_program *p = fs_test_generate("allreduce-ring", &o);
  expect_story(p, 0, "R2:2 S1:1 C:2<0,1 R2:2<2 S1:2<2 C:2<3,4 R2:1<5 S1:2<5 R2:2<6,7 S1:1<6,7");
  ck_assert_int_eq(p->tasks, 2 * (6 + 9));
  fs_program_free(p);
  o = fs_test_options(1, 100, 0, NULL);
  p = fs_test_generate("allreduce-ring", &o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
  /* --reduce-time: every reduce takes it, whatever its bytes */
  o = fs_test_options(2, 10, 0, NULL);
  o.reduce_time = 7000, o.has_reduce_time = 1;
  p = fs_test_generate("allreduce-ring", &o);
  expect_story(p, 0, "R1:5 S1:5 C@7000<0,1 R1:5<2 S1:5<2");
  expect_story(p, 1, "R0:5 S0:5 C@7000<0,1 R0:5<2 S0:5<2");
  fs_program_free(p);
}
END_TEST

/* ---- allreduce-rabenseifner --------------------------------------------- */

/* N = 3: pof2 = 2, rem = 1, S = 11 split 6 5. Rank 0 collapses into 1
 * and gets the result back; 1 (newrank 0) keeps block 0, 2 (newrank 1)
 * block 1. */
START_TEST(rabenseifner_structure) {
  fs_generator_options o = fs_test_options(3, 11, 0, NULL);
  fs_program *p = fs_test_generate("allreduce-rabenseifner", &o);
  expect_story(p, 0, "S1:11 R1:11<0");
  expect_story(p, 1, "R0:11 C:11<0 R2:6<1 S2:5<1 C:6<2,3 R2:5<4 S2:6<4 S0:11<5,6");
  expect_story(p, 2, "R1:5 S1:6 C:5<0,1 R1:6<2 S1:5<2");
  ck_assert_int_eq(p->tasks, 5 * 1 * 2 + 5);
  ck_assert_int_eq(p->dependencies, (8 - 4) * 2 + 6);
  ck_assert_int_eq(count_label(p, "collapse"), 3);
  ck_assert_int_eq(count_label(p, "expand"), 2);
  fs_program_free(p);

  /* N = 8, S = 11: cnts 2 2 2 1 1 1 1 1. Rank 5: halving keeps [4,8),
   * [4,6), [5,6) (send [0,4) = 7 B, [6,8) = 2 B, [4,5) = 1 B); doubling
   * sends [5,6), [4,6), [4,8) and receives [4,5), [6,8), [0,4). */
  o = fs_test_options(8, 11, 0, NULL);
  p = fs_test_generate("allreduce-rabenseifner", &o);
  expect_story(p, 5,
               "R4:4 S4:7 C:4<0,1 R7:2<2 S7:2<2 C:2<3,4 R1:1<5 S1:1<5 C:1<6,7 R1:1<8 S1:1<8 "
               "R7:2<9,10 S7:2<9,10 R4:7<11,12 S4:4<11,12");
  ck_assert_int_eq(p->tasks, 5 * 3 * 8);
  ck_assert_int_eq(p->dependencies, (8 * 3 - 4) * 8);
  fs_program_free(p);

  /* N = 6, S = 4 (one byte a block): rank 4 is newrank 2, its partners are
   * newrank 3 (rank 5) and newrank 0 (rank 1, the collapsed odd rank). */
  o = fs_test_options(6, 4, 0, NULL);
  p = fs_test_generate("allreduce-rabenseifner", &o);
  expect_story(p, 4, "R5:2 S5:2 C:2<0,1 R1:1<2 S1:1<2 C:1<3,4 R1:1<5 S1:1<5 R5:2<6,7 S5:2<6,7");
  expect_story(p, 1,
               "R0:4 C:4<0 R3:2<1 S3:2<1 C:2<2,3 R4:1<4 S4:1<4 C:1<5,6 R4:1<7 S4:1<7 R3:2<8,9 "
               "S3:2<8,9 S0:4<10,11");
  ck_assert_int_eq(p->tasks, 5 * 2 * 4 + 5 * 2);
  ck_assert_int_eq(p->dependencies, (8 * 2 - 4) * 4 + 6 * 2);
  fs_program_free(p);

  o = fs_test_options(1, 8, 0, NULL);
  p = fs_test_generate("allreduce-rabenseifner", &o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
}
END_TEST

/* ---- allreduce-fan ------------------------------------------------------ */

/* N = 4: rank 0 receives from 1 then 2, reducing after each; 2 from 3,
 * then sends up; the broadcast goes 0 -> 2, then 0 -> 1 and 2 -> 3. */
START_TEST(fan_structure) {
  fs_generator_options o = fs_test_options(4, 8, 0, NULL);
  fs_program *p = fs_test_generate("allreduce-fan", &o);
  expect_story(p, 0, "R1:8 C:8<0 R2:8<1 C:8<2 S2:8<3 S1:8<3");
  expect_story(p, 1, "S0:8 R0:8<0");
  expect_story(p, 2, "R3:8 C:8<0 S0:8<1 R0:8<2 S3:8<3");
  expect_story(p, 3, "S2:8 R2:8<0");
  ck_assert_int_eq(p->tasks, 5 * 3);
  ck_assert_int_eq(p->dependencies, 4 * 4 - 5);
  ck_assert_int_eq(count_label(p, "reduce1"), 6);
  ck_assert_int_eq(count_label(p, "reduce2"), 3);
  ck_assert_int_eq(count_label(p, "bcast1"), 2);
  ck_assert_int_eq(count_label(p, "bcast2"), 4);
  fs_program_free(p);

  /* N = 6 with --reduce-time: rank 4 reduces 5's vector, then sends to 0;
   * the root reduces 1, 2 and 4 in that order and broadcasts to 4, 2, 1. */
  o = fs_test_options(6, 8, 0, NULL);
  o.reduce_time = 5000, o.has_reduce_time = 1;
  p = fs_test_generate("allreduce-fan", &o);
  expect_story(p, 0, "R1:8 C@5000<0 R2:8<1 C@5000<2 R4:8<3 C@5000<4 S4:8<5 S2:8<5 S1:8<5");
  expect_story(p, 4, "R5:8 C@5000<0 S0:8<1 R0:8<2 S5:8<3");
  expect_story(p, 5, "S4:8 R4:8<0");
  ck_assert_int_eq(p->tasks, 25);
  ck_assert_int_eq(p->dependencies, 19);
  fs_program_free(p);

  o = fs_test_options(1, 8, 0, NULL);
  p = fs_test_generate("allreduce-fan", &o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
}
END_TEST

/* ---- allreduce-dissemination -------------------------------------------- */

START_TEST(dissemination_structure) {
  /* f = 1, N = 3: m = 1, M = 1 = c_0: in round 1 each rank also sends
   * its own vector (P_0) to r + O_0 = r + 2, kept until the last round */
  fs_generator_options o = fs_test_options(3, 8, 0, NULL);
  fs_program *p = fs_test_generate("allreduce-dissemination", &o);
  expect_story(p, 0, "R2:8 R1:8 S1:8 S2:8 C:8<0,2,3 C:8<1,4");
  ck_assert_int_eq(p->tasks, 3 * 6);
  ck_assert_int_eq(p->dependencies, 3 * 5);
  ck_assert_int_eq(distinct_labels(p), 2);
  fs_program_free(p);

  /* f = 1, N = 7: m = 2, M = 3 = 1 + 2: O_1 = 4, O_0 = 6. Rank 0 gets
   * P_2 from its rounds ({4,5,6,0}), P_1(3) = {2,3} early in round 2 and
   * P_0(1) = {1} early in round 1; the last round only combines. */
  o = fs_test_options(7, 8, 0, NULL);
  p = fs_test_generate("allreduce-dissemination", &o);
  expect_story(p, 0,
               "R6:8 R1:8 S1:8 S6:8 C:8<0,2,3 R5:8<4 R3:8<4 S2:8<4 S4:8<4 C:8<5,7,8 C:8<1,9 "
               "C:8<6,10");
  ck_assert_int_eq(distinct_labels(p), 3);
  fs_program_free(p);

  /* f = 2, N = 7: m = 1, M = 4 = 1*3 + 1: round 1 sends to r+1, r+2 and
   * early to r+6; the last round is a 1-way round (from r-3) */
  o = fs_test_options(7, 8, 0, NULL);
  o.ways = 2;
  p = fs_test_generate("allreduce-dissemination", &o);
  expect_story(p, 0,
               "R6:8 R5:8 R1:8 S1:8 S2:8 S6:8 C:8<0,3,4,5 C:8<1,6 R4:8<7 S3:8<7 C:8<2,9 "
               "C:8<8,10");
  ck_assert_int_eq(p->tasks, 7 * 12);
  ck_assert_int_eq(p->dependencies, 7 * 12);
  fs_program_free(p);

  /* f = 3, N = 16 = 4^2 with --reduce-time: two plain 3-way rounds */
  o = fs_test_options(16, 8, 0, NULL);
  o.ways = 3, o.reduce_time = 9000, o.has_reduce_time = 1;
  p = fs_test_generate("allreduce-dissemination", &o);
  expect_story(p, 5,
               "R4:8 R3:8 R2:8 S6:8 S7:8 S8:8 C@9000<0,3,4,5 C@9000<1,6 C@9000<2,7 R1:8<8 "
               "R13:8<8 R9:8<8 S9:8<8 S13:8<8 S1:8<8 C@9000<9,12,13,14 C@9000<10,15 "
               "C@9000<11,16");
  ck_assert_int_eq(p->tasks, 16 * 18);
  fs_program_free(p);

  /* ways 0 means 1; ways >= N: one round to everyone */
  o = fs_test_options(5, 8, 0, NULL);
  o.ways = 9;
  p = fs_test_generate("allreduce-dissemination", &o);
  expect_story(p, 0,
               "R4:8 R3:8 R2:8 R1:8 S1:8 S2:8 S3:8 S4:8 C:8<0,4,5,6,7 C:8<1,8 C:8<2,9 "
               "C:8<3,10");
  fs_program_free(p);
  o = fs_test_options(1, 8, 0, NULL);
  p = fs_test_generate("allreduce-dissemination", &o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
}
END_TEST

/* The labelled rounds are ceil(log_(f+1) N). */
START_TEST(dissemination_rounds) {
  for (int32_t f = 1; f <= 4; f++)
    for (int32_t n = 2; n <= 40; n++) {
      fs_generator_options o = fs_test_options(n, 8, 0, NULL);
      o.ways = f;
      fs_program *p = fs_test_generate("allreduce-dissemination", &o);
      int rounds = 0;
      for (int64_t d = 1; d < n; d *= f + 1) rounds++;
      ck_assert_int_eq(distinct_labels(p), rounds);
      fs_program_free(p);
    }
}
END_TEST

/* ---- option errors -------------------------------------------------------- */

START_TEST(bad_options) {
  const char *names[] = {"allreduce-ring", "allreduce-rabenseifner", "allreduce-fan",
                         "allreduce-dissemination"};
  for (int i = 0; i < 4; i++) {
    fs_generator_options o = fs_test_options(0, 8, 0, NULL);
    fs_test_generate_refused(names[i], &o, "--ranks must be at least 1, not 0");
    o = fs_test_options(4, -1, 0, NULL);
    fs_test_generate_refused(names[i], &o, "--size must not be negative");
    o = fs_test_options(4, 8, 0, NULL);
    o.reduce_time = -1, o.has_reduce_time = 1;
    fs_test_generate_refused(names[i], &o, "--reduce-time must not be negative");
  }
  fs_generator_options o = fs_test_options(4, 8, 0, NULL);
  o.ways = -2;
  fs_test_generate_refused("allreduce-dissemination", &o,
                           "allreduce-dissemination: --ways must be at least 1, not -2");
  o = fs_test_options(50000, 8, 0, NULL);
  fs_test_generate_refused("allreduce-ring", &o, "allreduce-ring at 50000 ranks needs");
  o = fs_test_options(INT32_MAX, 8, 0, NULL);
  fs_test_generate_refused("allreduce-ring", &o, "more than the");
  fs_test_generate_refused("allreduce-fan", &o, "more than the");
  fs_test_generate_refused("allreduce-rabenseifner", &o, "more than the");
  fs_test_generate_refused("allreduce-dissemination", &o, "more than the");
  o.ways = INT32_MAX;
  fs_test_generate_refused("allreduce-dissemination", &o, "more than the");
}
END_TEST

/* ---- data flow ------------------------------------------------------------ */

/* Sizes: 24 (the ring and Rabenseifner get empty blocks from N = 13 and
 * N = 32 on), 1000 (uneven blocks) and 0. */
START_TEST(flow_small) { /* looped over the generators */
  const char *names[] = {"allreduce-ring", "allreduce-rabenseifner", "allreduce-fan"};
  const int64_t sizes[] = {24, 1000, 0};
  for (int32_t n = 1; n <= 64; n++)
    for (int k = 0; k < 3; k++) {
      fs_generator_options o = fs_test_options(n, sizes[k], 0, NULL);
      expect_flow(names[_i], &o);
    }
}
END_TEST

START_TEST(flow_dissemination) {
  for (int32_t f = 1; f <= 4; f++)
    for (int32_t n = 1; n <= 64; n++) {
      fs_generator_options o = fs_test_options(n, 24, 0, NULL);
      o.ways = f;
      expect_flow("allreduce-dissemination", &o);
    }
  for (int32_t n = 1; n <= 20; n++) { /* f >= N - 1: one round */
    fs_generator_options o = fs_test_options(n, 24, 0, NULL);
    o.ways = 19;
    expect_flow("allreduce-dissemination", &o);
  }
}
END_TEST

START_TEST(flow_large) {
  const int32_t counts[] = {100, 128, 257, 1000};
  for (int i = 0; i < 4; i++) {
    fs_generator_options o = fs_test_options(counts[i], 4000, 0, NULL);
    expect_flow("allreduce-rabenseifner", &o);
    expect_flow("allreduce-fan", &o);
    for (int32_t f = 1; f <= 7; f += 3) {
      o.ways = f;
      expect_flow("allreduce-dissemination", &o);
    }
    o.ways = 0;
    /* the ring's N(N-1) chained steps make the checker's backward walks
     * long: 2 s at 100 ranks, 100 s at 257 */
    if (counts[i] <= 100) expect_flow("allreduce-ring", &o);
  }
}
END_TEST

/* ---- analytic times under hockney ------------------------------------------ */

/* Ring, N | S: each reduce-scatter step is a send of S/N (the CPU busy
 * alpha + beta S/N, the neighbour's block arriving at the same instant),
 * then a reduce of gamma S/N; each allgather step alpha + beta S/N:
 * T = 2(N-1)(alpha + beta S/N) + (N-1) gamma S/N. With --reduce-time T_r
 * the reduce part is (N-1) T_r. */
START_TEST(ring_time) {
  const int32_t counts[] = {2, 3, 4, 5, 8, 16, 25};
  for (int i = 0; i < 7; i++) {
    int64_t n = counts[i], s = 1000 * n, block = s / n;
    fs_generator_options o = fs_test_options((int32_t)n, s, 0, NULL);
    fs_time expected = 2 * (n - 1) * (ALPHA + BETA * block) + (n - 1) * GAMMA * block;
    ck_assert_int_eq(fs_test_generated_makespan("allreduce-ring", &o, "hockney", "rate",
                                                HOCKNEY_GAMMA),
                     expected);
    o.reduce_time = 3000000, o.has_reduce_time = 1;
    expected = 2 * (n - 1) * (ALPHA + BETA * block) + (n - 1) * 3000000;
    ck_assert_int_eq(fs_test_generated_makespan("allreduce-ring", &o, "hockney", "fixed", HOCKNEY),
                     expected);
  }
  /* N = 1: nothing to do */
  fs_generator_options o = fs_test_options(1, 1000, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-ring", &o, "hockney", "rate",
                                              HOCKNEY_GAMMA),
                   0);
}
END_TEST

/* Ring, N = 4, S = 5 (blocks 2 2 1 0), by hand, beta = 1 ns, gamma = 2 ns,
 * alpha = 1 us (a = 1000 ns below; times in ns):
 * RS step 1: rank 1 sends 2 B (busy to a+2), rank 2 sends 2 B, rank 0 1 B
 *   (a+1), rank 3 0 B... and each waits for its own send and the incoming
 *   one. Rather than every rank, the critical path: the allgather's last
 *   step ends when the slowest chain of (step, rank) ends. Simulated value
 *   asserted against the chain worked out below:
 *   RS1: r0 recv 1 B from 3 (3 sends block 2 = 1 B, arrives a+1), sends
 *        block 3 (0 B, busy to a), reduce 1 B: ends a+1+2 = a+3.
 *        r1: recv 0 B (arrives a), send 2 B (a+2): no reduce, ends a+2.
 *        r2: recv 2 B from 1 (a+2), send 2 B (a+2), reduce 2 B: a+6.
 *        r3: recv 2 B from 2 (a+2), send 1 B (a+1), reduce 2 B: a+6.
 *   RS2: r0 sends block 2 (1 B) at a+3 -> 2a+4; recv block 1 from 3
 *        (3 sends block 1, 2 B, at a+6 -> 2a+8); reduce 2 B: 2a+12.
 *        r1 sends block 3 (0 B) at a+2 -> 2a+2; recv block 2 (1 B) from 0,
 *        arrives 2a+4; reduce 1 B: 2a+6.
 *        r2 sends block 0 (2 B) at a+6 -> 2a+8; recv block 3 (0 B) from 1,
 *        arrives 2a+2: no reduce: ends 2a+8.
 *        r3 sends block 1 (2 B) at a+6 -> 2a+8; recv block 0 from 2 at
 *        2a+8; reduce 2 B: 2a+12.
 *   RS3: r0 sends block 1 (2 B) at 2a+12 -> 3a+14; recv block 0 from 3
 *        (3 sends block 0 at 2a+12 -> 3a+14); reduce: 3a+18.
 *        r1 sends block 2 (1 B) at 2a+6 -> 3a+7; recv block 1 from 0 at
 *        3a+14; reduce 2 B: 3a+18.
 *        r2 sends block 3 (0 B) at 2a+8 -> 3a+8; recv block 2 from 1 at
 *        3a+7; reduce 1 B from max(3a+8, 3a+7): 3a+10.
 *        r3 sends block 0 (2 B) at 2a+12 -> 3a+14; recv block 3 (0 B)
 *        from 2 at 3a+8: no reduce: 3a+14.
 *   AG1: r0 sends block 0 (2 B) at 3a+18 -> 4a+20 (recv block 3 skipped).
 *        r1 recv block 0 from 0 (4a+20), send block 1 at 3a+18 -> 4a+20.
 *        r2 recv block 1 from 1 (4a+20), send block 2 (1 B) at 3a+10 ->
 *        4a+11. r3 recv block 2 from 2 (4a+11), send skipped: 4a+11.
 *   AG2: r0 recv block 2 from 3 (3 sends block 2 at 4a+11 -> 5a+12):
 *        5a+12. r1 send block 0 at 4a+20 -> 5a+22 (recv block 3 skipped).
 *        r2 recv block 0 from 1 (5a+22), send block 1 at 4a+20 -> 5a+22.
 *        r3 recv block 1 from 2 (5a+22), send block 2 at 4a+11 -> 5a+12;
 *        ends 5a+22.
 *   AG3: r0 recv block 1 from 3 (3 sends it at 5a+22 -> 6a+24), send
 *        block 2 (1 B) at 5a+12 -> 6a+13: ends 6a+24. r1 recv block 2
 *        from 0 (6a+13): 6a+13. r2 send block 0 at 5a+22 -> 6a+24 (recv 3
 *        skipped). r3 recv block 0 from 2 (6a+24), send block 1 at 5a+22
 *        -> 6a+24.
 * Makespan 6a + 24 ns. */
START_TEST(ring_time_uneven) {
  fs_generator_options o = fs_test_options(4, 5, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("allreduce-ring", &o, "hockney", "rate",
                                              HOCKNEY_GAMMA),
                   6 * ALPHA + 24 * 1000);
}
END_TEST

/* Rabenseifner, N = 2^L, N | S: halving step k sends and receives S/2^k
 * (alpha + beta S/2^k, both partners at once) and reduces gamma S/2^k;
 * doubling mirrors it without reduces: T = 2 L alpha + 2 ((N-1)/N) S beta
 * + ((N-1)/N) S gamma: eq. 5.4 exactly. Under hockney's eager semantics a
 * send holds its CPU until its arrival, which is also when the partner's
 * message arrives, so no step waits beyond its own send: nothing is lost
 * or gained against the formula. */
START_TEST(rabenseifner_time_power_of_two) {
  for (int32_t l = 1; l <= 6; l++) {
    int64_t n = (int64_t)1 << l, s = 1000 * n;
    fs_generator_options o = fs_test_options((int32_t)n, s, 0, NULL);
    fs_time expected = 2 * l * ALPHA + 2 * (n - 1) * (s / n) * BETA + (n - 1) * (s / n) * GAMMA;
    ck_assert_int_eq(fs_test_generated_makespan("allreduce-rabenseifner", &o, "hockney", "rate",
                                                HOCKNEY_GAMMA),
                     expected);
  }
}
END_TEST

/* Rabenseifner, N not a power of two (pof2 | S): the collapsed odd ranks
 * start the halving at C = alpha + beta S + gamma S; in step k a pair
 * finishes at max(its two start times) + alpha + (beta + gamma) S/2^k, so
 * after the L steps every newrank has caught up with C (the hypercube
 * joins all of them); doubling is symmetric, then the expand adds
 * alpha + beta S: T = (2L + 2) alpha + (2 (pof2-1)/pof2 + 2) S beta +
 * (1 + (pof2-1)/pof2) S gamma, MPICH's own cost comment for the
 * non-power-of-two case (with its p read as pof2). */
START_TEST(rabenseifner_time_other) {
  const int32_t counts[] = {3, 5, 6, 7, 12, 100};
  for (int i = 0; i < 6; i++) {
    int64_t n = counts[i], l = 0;
    while (((int64_t)2 << l) <= n) l++;
    int64_t pof2 = (int64_t)1 << l, s = 1000 * pof2, block = s / pof2;
    fs_generator_options o = fs_test_options((int32_t)n, s, 0, NULL);
    fs_time expected = (2 * l + 2) * ALPHA + (2 * (pof2 - 1) * block + 2 * s) * BETA +
                       (s + (pof2 - 1) * block) * GAMMA;
    ck_assert_int_eq(fs_test_generated_makespan("allreduce-rabenseifner", &o, "hockney", "rate",
                                                HOCKNEY_GAMMA),
                     expected);
  }
}
END_TEST

/* Fan-in/fan-out, N = 2^L: a rank with lowbit 2^j has its partial at
 * j (alpha + beta S + gamma S) (each child's partial arrives alpha + beta S
 * after the child has it, then one reduce), the root at L of them; the
 * broadcast's last arrival is L (alpha + beta S) later (the root's L sends
 * hold its CPU back to back, and along every path each hop is a first
 * send). T = 2 L (alpha + beta S) + L gamma S. Eq. 5.1, 2 L (alpha + beta
 * S + gamma S), also charges a reduce to each broadcast step, which has
 * none: it holds exactly at gamma = 0. */
START_TEST(fan_time) {
  for (int32_t l = 1; l <= 6; l++) {
    int64_t n = (int64_t)1 << l, s = 1000;
    fs_generator_options o = fs_test_options((int32_t)n, s, 0, NULL);
    fs_time simulated =
        fs_test_generated_makespan("allreduce-fan", &o, "hockney", "rate", HOCKNEY_GAMMA);
    ck_assert_int_eq(simulated, 2 * l * (ALPHA + BETA * s) + l * GAMMA * s);
    ck_assert_int_eq(fs_test_generated_makespan("allreduce-fan", &o, "hockney", "fixed", HOCKNEY),
                     2 * l * (ALPHA + BETA * s + 0 * s)); /* eq. 5.1, gamma = 0 */
    o.reduce_time = 4000000, o.has_reduce_time = 1;
    ck_assert_int_eq(fs_test_generated_makespan("allreduce-fan", &o, "hockney", "fixed", HOCKNEY),
                     2 * l * (ALPHA + BETA * s) + l * 4000000);
  }
}
END_TEST

/* Fan, N = 3, 5, 6 by hand (T1 = alpha + beta S, g = gamma S):
 * N = 3: the root reduces 1's vector at T1 + g, then 2's (arrived at T1)
 *   at T1 + 2g; broadcasts to 2 (arrives +T1) then 1 (+2 T1): 3 T1 + 2g.
 * N = 5: 2 has 3's at T1 + g, the root 1's at T1 + g and 2's at 2 T1 + 2g,
 *   then 4's (a leaf, arrived at T1) at 2 T1 + 3g; broadcast to 4, 2, 1
 *   (+T1, +2T1, +3T1; 2 -> 3 at +3T1): 5 T1 + 3g.
 * N = 6: as N = 5, but 4 first reduces 5's (T1 + g) and its vector reaches
 *   the root at 2 T1 + g, still before the root is free (2 T1 + 2g); in the
 *   broadcast 4 -> 5 arrives at +2 T1: 5 T1 + 3g. */
START_TEST(fan_time_other) {
  const int32_t counts[] = {3, 5, 6};
  const int64_t hops[] = {3, 5, 5}, reduces[] = {2, 3, 3};
  for (int i = 0; i < 3; i++) {
    int64_t s = 1000;
    fs_generator_options o = fs_test_options(counts[i], s, 0, NULL);
    ck_assert_int_eq(fs_test_generated_makespan("allreduce-fan", &o, "hockney", "rate",
                                                HOCKNEY_GAMMA),
                     hops[i] * (ALPHA + BETA * s) + reduces[i] * GAMMA * s);
  }
}
END_TEST

/* Dissemination under hockney: in round k every rank sends f + c_k
 * messages of S (c_k early ones; c_k = 0 when N = (f+1)^K), each holding
 * its CPU alpha + beta S, and the j-th from r - j D_k reaches r when r's
 * own j-th send ends, so all arrived when r's sends end; then f reduces of
 * gamma S. The last round sends c_m and combines s (the digit sum of M)
 * temporaries. In total every rank sends m f + s messages and reduces as
 * many: T = (m f + s)(alpha + beta S + gamma S), m = floor(log_(f+1) N),
 * s = digit sum of N - (f+1)^m in base f+1; for N = (f+1)^K: K f (alpha +
 * beta S + gamma S). */
static int64_t dissemination_messages(int64_t n, int64_t f) {
  int64_t d = 1, m = 0;
  while (d * (f + 1) <= n) d *= f + 1, m++;
  int64_t sum = 0;
  for (int64_t left = n - d; left > 0; left /= f + 1) sum += left % (f + 1);
  return m * f + sum;
}

START_TEST(dissemination_time) {
  int64_t s = 1000, unit = ALPHA + BETA * s + GAMMA * s;
  /* literal cases: 9 = 3^2 (f = 2): 2 rounds of 2; 7 (f = 1): m = 2, M = 3 =
   * 11 in base 2: 2 + 2; 64 = 4^3 (f = 3): 9; 5 (f = 2): m = 1, M = 2: 2 + 2;
   * 100 (f = 1): m = 6, M = 36 = 100100b: 6 + 2 */
  const int32_t n[] = {9, 7, 64, 5, 100}, f[] = {2, 1, 3, 2, 1};
  const int64_t messages[] = {4, 4, 9, 4, 8};
  for (int i = 0; i < 5; i++) {
    ck_assert_int_eq(dissemination_messages(n[i], f[i]), messages[i]);
    fs_generator_options o = fs_test_options(n[i], s, 0, NULL);
    o.ways = f[i];
    ck_assert_int_eq(fs_test_generated_makespan("allreduce-dissemination", &o, "hockney", "rate",
                                                HOCKNEY_GAMMA),
                     messages[i] * unit);
  }
  for (int32_t ways = 1; ways <= 4; ways++)
    for (int32_t ranks = 1; ranks <= 40; ranks++) {
      fs_generator_options o = fs_test_options(ranks, s, 0, NULL);
      o.ways = ways;
      ck_assert_int_eq(fs_test_generated_makespan("allreduce-dissemination", &o, "hockney", "rate",
                                                  HOCKNEY_GAMMA),
                       dissemination_messages(ranks, ways) * unit);
    }
}
END_TEST

/* Dissemination under pipelined, N = (f+1)^K, reduces of no time: a send
 * holds the CPU alpha_r, its message arrives alpha_p + beta S later; the
 * j-th from r - j D arrives at j alpha_r + alpha_p + beta S, the last at
 * f alpha_r + alpha_p + beta S, and the next round starts then:
 * T = K (alpha_p + f alpha_r + beta S), the thesis's eq. 5.7 for a
 * b = f wide multicast per stage (plus the bandwidth term). */
START_TEST(dissemination_pipelined) {
  const int32_t f[] = {1, 2, 3, 1}, k[] = {3, 2, 2, 6};
  for (int i = 0; i < 4; i++) {
    int32_t n = 1;
    for (int j = 0; j < k[i]; j++) n *= f[i] + 1;
    fs_generator_options o = fs_test_options(n, 100, 0, NULL);
    o.ways = f[i];
    fs_time t = fs_test_generated_makespan("allreduce-dissemination", &o, "pipelined", "fixed",
                                           "alpha_p=3us alpha_r=1us beta=1ns");
    ck_assert_int_eq(t, k[i] * (3000000 + f[i] * 1000000 + 100 * BETA));
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("allreduce");
  TCase *structure = tcase_create("structure");
  tcase_add_test(structure, ring_structure);
  tcase_add_test(structure, ring_structure_three);
  tcase_add_test(structure, rabenseifner_structure);
  tcase_add_test(structure, fan_structure);
  tcase_add_test(structure, dissemination_structure);
  tcase_add_test(structure, dissemination_rounds);
  tcase_add_test(structure, bad_options);
  suite_add_tcase(s, structure);
  TCase *flow = tcase_create("flow");
  tcase_add_loop_test(flow, flow_small, 0, 3);
  tcase_add_test(flow, flow_dissemination);
  tcase_add_test(flow, flow_large);
  tcase_set_timeout(flow, 300);
  suite_add_tcase(s, flow);
  TCase *time = tcase_create("time");
  tcase_add_test(time, ring_time);
  tcase_add_test(time, ring_time_uneven);
  tcase_add_test(time, rabenseifner_time_power_of_two);
  tcase_add_test(time, rabenseifner_time_other);
  tcase_add_test(time, fan_time);
  tcase_add_test(time, fan_time_other);
  tcase_add_test(time, dissemination_time);
  tcase_add_test(time, dissemination_pipelined);
  suite_add_tcase(s, time);
  return fs_test_run(s);
}
