/* test_reduce_scatter_gather.c: the rooted two-sided generators
 * reduce-linear (Open MPI basic linear), reduce-rabenseifner (MPICH's
 * reduce-scatter + gather), scatter-linear and gather-linear (Open MPI
 * basic linear): exact per-rank structure for small N and several roots
 * (derived by hand from the libraries' loops), option errors, the data-flow
 * proof for N = 1..64 and a few large N with several roots, and exact
 * makespans under hockney (and pipelined) against closed forms derived in
 * the comments. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "generators/data_flow_check.h"
#include "generators/generators.h"
#include "model_support.h"
#include "generator_support.h"
#include "test_support.h"

/* ---- helpers ---------------------------------------------------------- */

static void append(char *text, size_t size, const char *format, ...) FS_PRINTF(3, 4);
static void append(char *text, size_t size, const char *format, ...) {
  size_t used = strlen(text);
  ck_assert_uint_lt(used, size);
  va_list ap;
  va_start(ap, format);
  vsnprintf(text + used, size - used, format, ap);
  va_end(ap);
}

/* Rank `rank`'s tasks in program order, one token each: S<peer>:<bytes>
 * (send), R<peer>:<bytes> (recv), C:<bytes> or C=<ns>ns (compute), then
 * #<tag> when the tag is not 0, then [i,j] the rank-local positions of the
 * tasks it depends on (a dependency on another rank's task shows as
 * r<rank>, one on a local completion or a start as i! : neither occurs). */
static const char *describe_rank(const fs_program *p, int32_t rank, char *text, size_t size) {
  int32_t *local = malloc((size_t)(p->tasks ? p->tasks : 1) * sizeof *local);
  int32_t count = 0;
  for (int32_t t = 0; t < p->tasks; t++) local[t] = p->rank[t] == rank ? count++ : -1;
  text[0] = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->rank[t] != rank) continue;
    if (text[0]) append(text, size, " ");
    if (p->kind[t] == FS_SEND || p->kind[t] == FS_RECV)
      append(text, size, "%c%d:%lld", p->kind[t] == FS_SEND ? 'S' : 'R', p->peer[t],
             (long long)p->value[t]);
    else if (p->kind[t] == FS_COMPUTE && (p->flags[t] & FS_HAS_TIME))
      append(text, size, "C=%lldns", (long long)(p->value[t] / FS_NS));
    else if (p->kind[t] == FS_COMPUTE)
      append(text, size, "C:%lld", (long long)p->value[t]);
    else
      append(text, size, "%s", fs_task_kind_name((fs_task_kind)p->kind[t]));
    if (fs_task_tag(p, t) != 0) append(text, size, "#%d", fs_task_tag(p, t));
    int first = 1;
    for (int32_t s = 0; s < t; s++)
      for (uint32_t e = p->successor_at[s]; e < p->successor_at[s + 1]; e++) {
        if (FS_EDGE_TASK(p->successor[e]) != t) continue;
        append(text, size, first ? "[" : ",");
        first = 0;
        if (p->rank[s] != rank)
          append(text, size, "r%d", p->rank[s]);
        else
          append(text, size, "%d", local[s]);
        if (p->successor[e] & (FS_EDGE_LOCAL | FS_EDGE_START)) append(text, size, "!");
      }
    if (!first) append(text, size, "]");
  }
  free(local);
  return text;
}

/* Generates name and compares every rank with expected[rank]. */
static void expect_ranks(const char *name, const fs_generator_options *o,
                         const char *const *expected) {
  fs_program *p = fs_test_generate(name, o);
  char text[1024];
  for (int32_t r = 0; r < o->ranks; r++)
    ck_assert_msg(strcmp(describe_rank(p, r, text, sizeof text), expected[r]) == 0,
                  "%s N=%d root=%d rank %d:\n  got      %s\n  expected %s", name, o->ranks, o->root,
                  r, text, expected[r]);
  fs_program_free(p);
}

static int count_labelled(const fs_program *p, const char *label) {
  int n = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    const char *l = fs_task_label(p, t);
    n += l && strcmp(l, label) == 0;
  }
  return n;
}

/* Distinct roots worth trying at n ranks: 0, 1, n/2, n-1 (count returned). */
static int roots_for(int32_t n, int32_t roots[4]) {
  int count = 0;
  int32_t candidates[4] = {0, 1, n / 2, n - 1};
  for (int i = 0; i < 4; i++) {
    int seen = candidates[i] >= n;
    for (int j = 0; j < count; j++) seen |= roots[j] == candidates[i];
    if (!seen) roots[count++] = candidates[i];
  }
  return count;
}

/* ---- reduce-linear: structure ------------------------------------------ */

/* Open MPI's loop: the root receives from N-1 down to 0, skipping itself,
 * each recv after the previous reduce, each reduce after its recv. */
START_TEST(reduce_linear_structure) {
  fs_generator_options o = fs_test_options(4, 100, 0, NULL);
  const char *root0[] = {"R3:100 C:100[0] R2:100[1] C:100[2] R1:100[3] C:100[4]", "S0:100",
                         "S0:100", "S0:100"};
  expect_ranks("reduce-linear", &o, root0);
  o.root = 2;
  const char *root2[] = {"S2:100", "S2:100",
                         "R3:100 C:100[0] R1:100[1] C:100[2] R0:100[3] C:100[4]", "S2:100"};
  expect_ranks("reduce-linear", &o, root2);
  o.root = 3;
  const char *root3[] = {"S3:100", "S3:100", "S3:100",
                         "R2:100 C:100[0] R1:100[1] C:100[2] R0:100[3] C:100[4]"};
  expect_ranks("reduce-linear", &o, root3);
  o = fs_test_options(3, 64, 1, NULL);
  o.has_reduce_time = 1, o.reduce_time = 250 * FS_NS;
  const char *timed[] = {"S1:64", "R2:64 C=250ns[0] R0:64[1] C=250ns[2]", "S1:64"};
  expect_ranks("reduce-linear", &o, timed);
  o = fs_test_options(1, 64, 0, NULL);
  const char *alone[] = {""};
  expect_ranks("reduce-linear", &o, alone);
}
END_TEST

/* 3(N-1) tasks, 2N-3 dependencies, all labelled "reduce", at many N. */
START_TEST(reduce_linear_counts) {
  for (int32_t n = 1; n <= 40; n++) {
    fs_generator_options o = fs_test_options(n, 8, n - 1, NULL);
    fs_program *p = fs_test_generate("reduce-linear", &o);
    ck_assert_int_eq(p->tasks, 3 * (n - 1));
    ck_assert_int_eq(p->dependencies, n > 1 ? 2 * n - 3 : 0);
    ck_assert_int_eq(count_labelled(p, "reduce"), p->tasks);
    fs_program_free(p);
  }
}
END_TEST

/* ---- scatter-linear, gather-linear: structure -------------------------- */

/* The root sends block r to r in rank order, each blocking send after the
 * previous one; the gather's root receives in rank order, each recv after
 * the previous one. */
START_TEST(scatter_gather_linear_structure) {
  fs_generator_options o = fs_test_options(4, 10, 0, NULL);
  const char *scatter0[] = {"S1:10 S2:10[0] S3:10[1]", "R0:10", "R0:10", "R0:10"};
  expect_ranks("scatter-linear", &o, scatter0);
  const char *gather0[] = {"R1:10 R2:10[0] R3:10[1]", "S0:10", "S0:10", "S0:10"};
  expect_ranks("gather-linear", &o, gather0);
  o.root = 2;
  const char *scatter2[] = {"R2:10", "R2:10", "S0:10 S1:10[0] S3:10[1]", "R2:10"};
  expect_ranks("scatter-linear", &o, scatter2);
  const char *gather2[] = {"S2:10", "S2:10", "R0:10 R1:10[0] R3:10[1]", "S2:10"};
  expect_ranks("gather-linear", &o, gather2);
  o = fs_test_options(2, 7, 1, NULL);
  const char *scatter_two[] = {"R1:7", "S0:7"};
  expect_ranks("scatter-linear", &o, scatter_two);
  const char *gather_two[] = {"S1:7", "R0:7"};
  expect_ranks("gather-linear", &o, gather_two);
  o = fs_test_options(1, 7, 0, NULL);
  const char *alone[] = {""};
  expect_ranks("scatter-linear", &o, alone);
  expect_ranks("gather-linear", &o, alone);
  for (int32_t n = 1; n <= 40; n++) {
    o = fs_test_options(n, 8, n / 2, NULL);
    fs_program *s = fs_test_generate("scatter-linear", &o),
               *g = fs_test_generate("gather-linear", &o);
    ck_assert_int_eq(s->tasks, 2 * (n - 1));
    ck_assert_int_eq(g->tasks, 2 * (n - 1));
    ck_assert_int_eq(s->dependencies, n > 1 ? n - 2 : 0);
    ck_assert_int_eq(g->dependencies, n > 1 ? n - 2 : 0);
    ck_assert_int_eq(count_labelled(s, "scatter"), s->tasks);
    ck_assert_int_eq(count_labelled(g, "gather"), g->tasks);
    fs_program_free(s);
    fs_program_free(g);
  }
}
END_TEST

/* ---- reduce-rabenseifner: structure ------------------------------------ */

/* N = 4, root 0, S = 8: blocks of 2 bytes. Reduce-scatter (MPICH's
 * send_idx/recv_idx): mask 1, newrank v < v^1 keeps [0,2) and sends [2,4);
 * mask 2 halves again, so v ends with block bitreverse(v): 0:0 1:2 2:1 3:3.
 * Gather to newroot 0: mask 2, 2 sends block 1 to 0, 3 sends block 3 to 1;
 * mask 1, 1 sends blocks [2,4) to 0. A sendrecv is recv then send after the
 * rank's previous task; the reduce after both. */
START_TEST(rabenseifner_power_of_two) {
  fs_generator_options o = fs_test_options(4, 8, 0, NULL);
  const char *root0[] = {
      "R1:4 S1:4 C:4[0,1] R2:2[2] S2:2[2] C:2[3,4] R2:2[5] R1:4[6]",
      "R0:4 S0:4 C:4[0,1] R3:2[2] S3:2[2] C:2[3,4] R3:2[5] S0:4[6]",
      "R3:4 S3:4 C:4[0,1] R0:2[2] S0:2[2] C:2[3,4] S0:2[5]",
      "R2:4 S2:4 C:4[0,1] R1:2[2] S1:2[2] C:2[3,4] S1:2[5]",
  };
  expect_ranks("reduce-rabenseifner", &o, root0);
  /* Root 3 (newroot 3): mask 2 (subtree {2,3}): 0 sends block 0 to 2, 1
   * sends block 2 to 3; mask 1: 2 sends blocks [0,2) to 3. */
  o.root = 3;
  const char *root3[] = {
      "R1:4 S1:4 C:4[0,1] R2:2[2] S2:2[2] C:2[3,4] S2:2[5]",
      "R0:4 S0:4 C:4[0,1] R3:2[2] S3:2[2] C:2[3,4] S3:2[5]",
      "R3:4 S3:4 C:4[0,1] R0:2[2] S0:2[2] C:2[3,4] R0:2[5] S3:4[6]",
      "R2:4 S2:4 C:4[0,1] R1:2[2] S1:2[2] C:2[3,4] R1:2[5] R2:4[6]",
  };
  expect_ranks("reduce-rabenseifner", &o, root3);
  /* --reduce-time: every reduce takes it, whatever its size. */
  o = fs_test_options(2, 5, 1, NULL);
  o.has_reduce_time = 1, o.reduce_time = 40 * FS_NS;
  const char *two[] = {"R1:3 S1:2 C=40ns[0,1] S1:3[2]", "R0:2 S0:3 C=40ns[0,1] R0:3[2]"};
  expect_ranks("reduce-rabenseifner", &o, two);
  o = fs_test_options(1, 5, 0, NULL);
  const char *alone[] = {""};
  expect_ranks("reduce-rabenseifner", &o, alone);
}
END_TEST

/* N = 3, S = 8: pof2 = 2, rem = 1, blocks of 4. Collapse: 1 sends its 8
 * bytes to 0, which reduces them; newranks 0 (rank 0) and 1 (rank 2).
 * Root 1 was dropped: after the reduce-scatter rank 0 sends block 0 to it
 * ("newroot") and leaves; the root, as newrank 0, receives block 1 from
 * rank 2, whose partner newrank 0 now means the root. Root 0 and root 2
 * (newroot 1) for comparison. */
START_TEST(rabenseifner_three) {
  fs_generator_options o = fs_test_options(3, 8, 1, NULL);
  const char *root1[] = {"R1:8 C:8[0] R2:4[1] S2:4[1] C:4[2,3] S1:4[4]", "S0:8 R0:4[0] R2:4[1]",
                         "R0:4 S0:4 C:4[0,1] S1:4[2]"};
  expect_ranks("reduce-rabenseifner", &o, root1);
  o.root = 0;
  const char *root0[] = {"R1:8 C:8[0] R2:4[1] S2:4[1] C:4[2,3] R2:4[4]", "S0:8",
                         "R0:4 S0:4 C:4[0,1] S0:4[2]"};
  expect_ranks("reduce-rabenseifner", &o, root0);
  o.root = 2;
  const char *root2[] = {"R1:8 C:8[0] R2:4[1] S2:4[1] C:4[2,3] S2:4[4]", "S0:8",
                         "R0:4 S0:4 C:4[0,1] R0:4[2]"};
  expect_ranks("reduce-rabenseifner", &o, root2);
}
END_TEST

/* N = 6, root 3, S = 10: pof2 = 4, rem = 2, cnts = 3,3,2,2. Newranks
 * 0:r0 1:r2 2:r4 3:r5; 1 and 3 drop out. Reduce-scatter mask 1: r0<->r2,
 * r4<->r5 (lower keeps [0,2) = 6 B, sends [2,4) = 4 B); mask 2: r0<->r4
 * (blocks 0 and 1, 3 B), r2<->r5 (blocks 2 and 3, 2 B). Root 3 is odd and
 * < 2rem: r0 sends it block 0, it becomes newrank 0 (newroot 0, last_idx
 * 2). Gather mask 2: r4 -> root block 1, r5 -> r2 block 3; mask 1: r2 ->
 * root blocks [2,4). Hand-derived from MPICH's loops. */
START_TEST(rabenseifner_six_root_dropped) {
  fs_generator_options o = fs_test_options(6, 10, 3, NULL);
  const char *expected[] = {
      "R1:10 C:10[0] R2:6[1] S2:4[1] C:6[2,3] R4:3[4] S4:3[4] C:3[5,6] S3:3[7]",
      "S0:10",
      "R3:10 C:10[0] R0:4[1] S0:6[1] C:4[2,3] R5:2[4] S5:2[4] C:2[5,6] R5:2[7] S3:4[8]",
      "S2:10 R0:3[0] R4:3[1] R2:4[2]",
      "R5:6 S5:4 C:6[0,1] R0:3[2] S0:3[2] C:3[3,4] S3:3[5]",
      "R4:4 S4:6 C:4[0,1] R2:2[2] S2:2[2] C:2[3,4] S2:2[5]",
  };
  expect_ranks("reduce-rabenseifner", &o, expected);
  fs_program *p = fs_test_generate("reduce-rabenseifner", &o);
  ck_assert_int_eq(count_labelled(p, "collapse"), 6);
  ck_assert_int_eq(count_labelled(p, "reduce-scatter1"), 12);
  ck_assert_int_eq(count_labelled(p, "reduce-scatter2"), 12);
  ck_assert_int_eq(count_labelled(p, "newroot"), 2);
  ck_assert_int_eq(count_labelled(p, "gather1"), 4);
  ck_assert_int_eq(count_labelled(p, "gather2"), 2);
  fs_program_free(p);
}
END_TEST

/* N = 5, root 4, S = 9: pof2 4, rem 1, cnts 3,2,2,2; newranks 0:r0 1:r2
 * 2:r3 3:r4; root 4 is newroot 3 (no swap). Mask 1: r0 and r3 keep [0,2)
 * (5 B) and send [2,4) (4 B); mask 2: r0 keeps block 0 (3 B), r3 block 1,
 * r2 block 2, r4 block 3 (2 B each). Gather to newroot 3: mask 2 (subtree
 * {2,3}), r0 -> r3 block 0, r2 -> r4 block 2; mask 1, r3 -> r4 blocks
 * [0,2) (5 B; MPICH grows r3's last_idx from 2 to 4 here). */
START_TEST(rabenseifner_five) {
  fs_generator_options o = fs_test_options(5, 9, 4, NULL);
  const char *expected[] = {
      "R1:9 C:9[0] R2:5[1] S2:4[1] C:5[2,3] R3:3[4] S3:2[4] C:3[5,6] S3:3[7]",
      "S0:9",
      "R0:4 S0:5 C:4[0,1] R4:2[2] S4:2[2] C:2[3,4] S4:2[5]",
      "R4:5 S4:4 C:5[0,1] R0:2[2] S0:3[2] C:2[3,4] R0:3[5] S4:5[6]",
      "R3:4 S3:5 C:4[0,1] R2:2[2] S2:2[2] C:2[3,4] R2:2[5] R3:5[6]",
  };
  expect_ranks("reduce-rabenseifner", &o, expected);
}
END_TEST

/* tasks 3 rem + 3 pof2 L + 2 swap + 2 (pof2 - 1); dependencies rem +
 * 4 pof2 L - 2 (pof2 - rem) + 2 swap + 2 (pof2 - 1) (L > 0), every root. */
START_TEST(rabenseifner_counts) {
  for (int32_t n = 1; n <= 40; n++)
    for (int32_t root = 0; root < n; root++) {
      fs_generator_options o = fs_test_options(n, 100, root, NULL);
      fs_program *p = fs_test_generate("reduce-rabenseifner", &o);
      int64_t steps = 0, pof2 = 1;
      while (pof2 * 2 <= n) pof2 *= 2, steps++;
      int64_t rem = n - pof2, swap = root < 2 * rem && root % 2;
      ck_assert_int_eq(p->tasks, 3 * rem + 3 * pof2 * steps + 2 * swap + 2 * (pof2 - 1));
      ck_assert_int_eq(p->dependencies, rem + (steps ? 4 * pof2 * steps - 2 * (pof2 - rem) : 0) +
                                            2 * swap + 2 * (pof2 - 1));
      fs_program_free(p);
    }
}
END_TEST

/* ---- option errors ------------------------------------------------------ */

START_TEST(errors) {
  const char *names[] = {"reduce-linear", "reduce-rabenseifner", "scatter-linear", "gather-linear"};
  fs_error err;
  for (int i = 0; i < 4; i++) {
    fs_generator_options o = fs_test_options(4, 8, 4, NULL);
    ck_assert_ptr_nonnull(
        strstr(fs_test_generate_error(names[i], &o, &err), "--root 4 is not a rank"));
    o.root = -1;
    ck_assert_ptr_nonnull(
        strstr(fs_test_generate_error(names[i], &o, &err), "--root -1 is not a rank"));
    o = fs_test_options(0, 8, 0, NULL);
    ck_assert_ptr_nonnull(
        strstr(fs_test_generate_error(names[i], &o, &err), "--ranks must be at least 1"));
    o = fs_test_options(4, -1, 0, NULL);
    ck_assert_ptr_nonnull(
        strstr(fs_test_generate_error(names[i], &o, &err), "--size must not be negative"));
    ck_assert_ptr_nonnull(strstr(err.message, names[i]));
    o = fs_test_options(4, 8, 0, NULL);
    o.has_reduce_time = 1, o.reduce_time = -1;
    ck_assert_ptr_nonnull(strstr(fs_test_generate_error(names[i], &o, &err), "--reduce-time"));
  }
  fs_generator_options o = fs_test_options(4, 8, 0, NULL);
  o.has_reduce_time = 1, o.reduce_time = FS_NS;
  ck_assert_str_eq(fs_test_generate_error("scatter-linear", &o, &err),
                   "scatter-linear: --reduce-time does not apply (a scatter has no reduction)");
  ck_assert_str_eq(fs_test_generate_error("gather-linear", &o, &err),
                   "gather-linear: --reduce-time does not apply (a gather has no reduction)");
  o = fs_test_options(4, INT64_MAX / 2, 0, NULL); /* N blocks of S do not fit in int64 */
  ck_assert_ptr_nonnull(strstr(fs_test_generate_error("scatter-linear", &o, &err), "too large"));
  ck_assert_ptr_nonnull(strstr(fs_test_generate_error("gather-linear", &o, &err), "too large"));
}
END_TEST

/* ---- data flow ---------------------------------------------------------- */

static void expect_flow(const char *name, int32_t n, int64_t size, int32_t root, int timed) {
  fs_generator_options o = fs_test_options(n, size, root, NULL);
  o.has_reduce_time = timed, o.reduce_time = timed ? 10 * FS_NS : 0;
  char why[512];
  const char *failure = fs_check_generator_flow(name, &o, why, sizeof why);
  ck_assert_msg(failure == NULL, "%s N=%d S=%lld root=%d: %s", name, n, (long long)size, root,
                failure);
}

/* N = 1..64, roots 0, 1, N/2, N-1; sizes that leave remainders (the
 * Rabenseifner blocks of 100 bytes over pof2 differ by one byte) and sizes
 * below pof2 (0-byte blocks). */
START_TEST(data_flow_small) {
  const char *names[] = {"reduce-linear", "reduce-rabenseifner", "scatter-linear", "gather-linear"};
  for (int i = 0; i < 4; i++)
    for (int32_t n = 1; n <= 64; n++) {
      int32_t roots[4];
      int count = roots_for(n, roots);
      for (int k = 0; k < count; k++) expect_flow(names[i], n, 100, roots[k], 0);
    }
  for (int32_t n = 1; n <= 64; n++) {
    expect_flow("reduce-rabenseifner", n, 3, n - 1, 1);
    expect_flow("reduce-rabenseifner", n, 0, n / 3, 0);
  }
}
END_TEST

START_TEST(data_flow_large) {
  const int32_t sizes[] = {100, 128, 257, 1000};
  const char *names[] = {"reduce-linear", "reduce-rabenseifner", "scatter-linear", "gather-linear"};
  for (int i = 0; i < 4; i++)
    for (int s = 0; s < 4; s++) {
      int32_t n = sizes[s], roots[4];
      int count = roots_for(n, roots);
      for (int k = 0; k < count; k++) expect_flow(names[i], n, 4096, roots[k], 0);
    }
}
END_TEST

/* ---- analytic makespans -------------------------------------------------
 * hockney with alpha = 1 us, beta = 1 ns/B (eager: a send holds its CPU
 * from t to its arrival at t + alpha + beta*s; a recv takes no CPU and
 * completes at max(its posting, the arrival)); reduces priced by the rate
 * compute model, gamma per byte, or --reduce-time. */

#define ALPHA (1000 * FS_NS)
#define BETA FS_NS /* per byte */
#define HOCKNEY "alpha=1us beta=1ns"

/* Linear reduce: every non-root sends at 0, all N-1 messages reach the
 * root at alpha + beta*S. The root's first recv completes then; each reduce
 * takes its CPU for gamma*S, and each next recv finds its message already
 * there, so the reduces run back to back:
 *   T = alpha + beta*S + (N-1)*gamma*S     (N >= 2; any root),
 * and with --reduce-time R: alpha + beta*S + (N-1)*R. Senders finish at
 * alpha + beta*S. Under pipelined the messages arrive at alpha_r + alpha_p
 * + beta*S instead, and the reduces follow the same way. */
START_TEST(reduce_linear_time) {
  const int64_t size = 1000;
  for (int32_t n = 2; n <= 17; n++) {
    int32_t roots[4];
    int count = roots_for(n, roots);
    for (int k = 0; k < count; k++) {
      fs_generator_options o = fs_test_options(n, size, roots[k], NULL);
      fs_time expected = ALPHA + BETA * size + (n - 1) * (fs_time)(size * 2 * FS_NS);
      ck_assert_int_eq(fs_test_generated_makespan("reduce-linear", &o, "hockney", "rate",
                                                  HOCKNEY " gamma=2ns"),
                       expected);
      ck_assert_int_eq(fs_test_generated_makespan("reduce-linear", &o, "pipelined", "rate",
                                                  "alpha_p=700ns alpha_r=150ns beta=1ns gamma=2ns"),
                       expected - ALPHA + 850 * FS_NS);
      o.has_reduce_time = 1, o.reduce_time = 300 * FS_NS;
      ck_assert_int_eq(fs_test_generated_makespan("reduce-linear", &o, "hockney", "fixed", HOCKNEY),
                       ALPHA + BETA * size + (n - 1) * 300 * FS_NS);
    }
  }
  fs_generator_options one = fs_test_options(1, size, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("reduce-linear", &one, "hockney", "rate",
                                              HOCKNEY " gamma=2ns"),
                   0);
}
END_TEST

/* Linear scatter: the root's blocking sends run back to back, each holding
 * its CPU alpha + beta*S, so the k-th destination (k = 1 .. N-1, in rank
 * order skipping the root) finishes at k*(alpha + beta*S) and
 *   T = (N-1)(alpha + beta*S).
 * Under pipelined (eq. 4.4-4.6: CPU free after alpha_r, arrival alpha_p +
 * beta*S later) the sends pipeline: T = (N-1) alpha_r + alpha_p + beta*S.
 * Linear gather: all non-roots send at 0 and the root's recvs take no CPU:
 *   T = alpha + beta*S, every rank. */
START_TEST(scatter_gather_linear_time) {
  const int64_t size = 512;
  const fs_time step = ALPHA + BETA * size;
  for (int32_t n = 1; n <= 17; n++) {
    int32_t roots[4];
    int count = roots_for(n, roots);
    for (int k = 0; k < count; k++) {
      int32_t root = roots[k];
      fs_generator_options o = fs_test_options(n, size, root, NULL);
      fs_program *p = fs_test_generate("scatter-linear", &o);
      fs_simulation run;
      fs_test_simulate(&run, p, "hockney", "fixed", HOCKNEY);
      ck_assert_int_eq(run.status, FS_RUN_OK);
      ck_assert_int_eq(fs_engine_makespan(run.engine), (n - 1) * step);
      const fs_time *finish = fs_engine_finish_times(run.engine);
      for (int32_t r = 0, order = 0; r < n; r++)
        if (r != root) ck_assert_int_eq(finish[r], ++order * step);
      ck_assert_int_eq(finish[root], (n - 1) * step);
      fs_test_run_free(&run);
      fs_program_free(p);
      ck_assert_int_eq(fs_test_generated_makespan("scatter-linear", &o, "pipelined", "fixed",
                                                  "alpha_p=700ns alpha_r=150ns beta=1ns"),
                       n > 1 ? (n - 1) * 150 * FS_NS + 700 * FS_NS + BETA * size : 0);
      ck_assert_int_eq(fs_test_generated_makespan("gather-linear", &o, "hockney", "fixed", HOCKNEY),
                       n > 1 ? step : 0);
    }
  }
}
END_TEST

/* Rabenseifner, N = 2^L, S divisible by N, rate gamma. Every rank starts
 * round k (k = 1..L, distance 2^(k-1)) at the same time: it posts its recv,
 * its send of S/2^k holds its CPU alpha + beta*S/2^k, the partner's message
 * arrives at the same instant, and the reduce of S/2^k follows:
 *   T_reduce-scatter = sum_k (alpha + beta*S/2^k + gamma*S/2^k)
 *                    = L*alpha + (beta + gamma)*S*(N-1)/N.
 * The gather, round i = 1..L, moves 2^(i-1) blocks of S/N; a round-i sender
 * received in round i-1, so the rounds chain:
 *   T_gather = sum_i (alpha + beta*2^(i-1)*S/N) = L*alpha + beta*S*(N-1)/N.
 * T = 2L*alpha + 2*beta*S*(N-1)/N + gamma*S*(N-1)/N, MPICH's own comment in
 * MPIR_Reduce_intra_reduce_scatter_gather, and exactly the thesis's
 * eq. 5.4 for the Rabenseifner allreduce: the binomial gather to one root
 * moves the same bytes per round on its critical path as the recursive-
 * doubling allgather, with N-1 messages instead of N*L and only the root
 * ending with the result. Every root gives the same T (the gather tree is
 * the same up to relabelling). With --reduce-time R: L*R replaces the
 * gamma term. */
START_TEST(rabenseifner_time_power_of_two) {
  const int64_t size = 65536;
  const fs_time gamma = FS_NS / 2; /* per byte: 0.5 ns */
  for (int32_t n = 2, steps = 1; n <= 64; n *= 2, steps++) {
    fs_time rounds = 0;
    for (int k = 1; k <= steps; k++)
      rounds += ALPHA + (BETA + gamma) * (size >> k) + ALPHA + BETA * ((size / n) << (k - 1));
    fs_time eq54 = 2 * steps * ALPHA + 2 * BETA * size * (n - 1) / n + gamma * size * (n - 1) / n;
    ck_assert_int_eq(rounds, eq54);
    int32_t roots[4];
    int count = roots_for(n, roots);
    for (int k = 0; k < count; k++) {
      fs_generator_options o = fs_test_options(n, size, roots[k], NULL);
      ck_assert_int_eq(fs_test_generated_makespan("reduce-rabenseifner", &o, "hockney", "rate",
                                                  HOCKNEY " gamma=0.5ns"),
                       eq54);
      o.has_reduce_time = 1, o.reduce_time = 3 * FS_US;
      ck_assert_int_eq(fs_test_generated_makespan("reduce-rabenseifner", &o, "hockney", "fixed",
                                                  HOCKNEY),
                       2 * steps * ALPHA + 2 * BETA * size * (n - 1) / n + steps * 3 * FS_US);
    }
  }
}
END_TEST

/* N = 6 by hand (root 0), S = 65536, pof2 = 4, rem = 2, blocks S/4:
 * - collapse: ranks 1 and 3 send S at 0; ranks 0 and 2 receive at
 *   alpha + beta*S and reduce S: t1 = alpha + (beta+gamma)*S.
 * - reduce-scatter mask 1: ranks 4 <-> 5 start at 0 and finish at
 *   u1 = alpha + (beta+gamma)*S/2; ranks 0 <-> 2 start at t1 and finish at
 *   t2 = t1 + alpha + (beta+gamma)*S/2.
 * - mask 2 (0 <-> 4, 2 <-> 5, S/4 each way): 4 and 5 post their recvs and
 *   send at u1, early; 0 and 2 find those messages at t2, send theirs,
 *   which arrive at t2 + alpha + beta*S/4; everyone reduces S/4:
 *   t3 = t2 + alpha + (beta+gamma)*S/4.
 * - gather to 0: mask 2, 4 -> 0 and 5 -> 2 (S/4) end at t3 + alpha +
 *   beta*S/4; mask 1, 2 -> 0 (S/2) ends alpha + beta*S/2 later.
 * T = 5 alpha + 2.5 beta*S + 1.75 gamma*S = 5000 + 163840 + 57344 ns
 *   = 226184 ns with gamma 0.5 ns/B.
 * N = 3 the same way: (alpha + (beta+gamma)S) + (alpha + (beta+gamma)S/2)
 * + (alpha + beta*S/2) = 3 alpha + 2 beta*S + 1.5 gamma*S = 183224 ns.
 * Both are MPICH's non-power-of-two cost (comment of MPIR_Reduce_intra_
 * reduce_scatter_gather) with p = pof2 and L = log2 pof2:
 *   (2L+1) alpha + (2(p-1)/p + 1) beta*S + (1 + (p-1)/p) gamma*S.
 * A dropped root (odd < 2 rem) costs nothing more under hockney: rank 0's
 * newroot message of block 0 travels while the first gather round's do,
 * and the root receives both by the same instant. So every N and root
 * obeys the formula; asserted for N = 2..64 with four roots each. */
START_TEST(rabenseifner_time_any) {
  const int64_t size = 65536;
  const fs_time gamma = FS_NS / 2;
  fs_generator_options o = fs_test_options(6, size, 0, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("reduce-rabenseifner", &o, "hockney", "rate",
                                              HOCKNEY " gamma=0.5ns"),
                   226184 * FS_NS);
  o = fs_test_options(3, size, 1, NULL);
  ck_assert_int_eq(fs_test_generated_makespan("reduce-rabenseifner", &o, "hockney", "rate",
                                              HOCKNEY " gamma=0.5ns"),
                   183224 * FS_NS);
  for (int32_t n = 2; n <= 64; n++) {
    int64_t pof2 = 1, steps = 0;
    while (pof2 * 2 <= n) pof2 *= 2, steps++;
    int odd = pof2 != n;
    fs_time expected = (2 * steps + odd) * ALPHA + 2 * BETA * size * (pof2 - 1) / pof2 +
                       odd * BETA * size + gamma * size * (pof2 - 1) / pof2 + odd * gamma * size;
    int32_t roots[4];
    int count = roots_for(n, roots);
    for (int k = 0; k < count; k++) {
      o = fs_test_options(n, size, roots[k], NULL);
      ck_assert_msg(fs_test_generated_makespan("reduce-rabenseifner", &o, "hockney", "rate",
                                               HOCKNEY " gamma=0.5ns") == expected,
                    "N=%d root=%d", n, roots[k]);
    }
  }
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

/* ---- Open MPI's tree reduces and the reduce+bcast allreduces (issue 19) -- */

static void check_flow(const char *name, const fs_generator_options *o) {
  char why[600];
  const char *result = fs_check_generator_flow(name, o, why, sizeof why);
  ck_assert_msg(result == NULL, "%s", result);
}

static fs_time tree_time(const char *name, int32_t n, int32_t root, int64_t segment,
                         fs_time reduce_time) {
  fs_generator_options o = fs_test_options(n, 1000, root, NULL);
  o.segment = segment;
  o.has_reduce_time = reduce_time > 0, o.reduce_time = reduce_time;
  return fs_test_generated_makespan(name, &o, "hockney", "fixed", HOCKNEY);
}

/* Hockney, S = 1000 B, T = alpha + beta*S = 2 us, reduces of R = 500 ns.
 * - reduce-chain, N = 4, unsegmented: 3 hops, each after a reduce: 3T
 *   (R = 0) = 6 us, 3T + 3R = 7.5 us. N = 3, segments of 500 B (k = 2,
 *   T' = 1.5 us, R = 0): the leaf sends both back to back (1.5, 3 us);
 *   rank 1 forwards segment 0 at 1.5 (3 us) and segment 1 at 3 (4.5 us):
 *   4.5 us, against 4 us unsegmented.
 * - reduce-binary, N = 7 (0: 1, 2; 1: 3, 5; 2: 4, 6): the leaves arrive at
 *   T; 1 and 2 reduce twice (T + 2R) and send (2T + 2R); the root reduces
 *   twice: 2T + 4R = 6 us (4 us with R = 0).
 * - reduce-in-order-binary, N = 4, root 0: rank 3's children are 2 and 1,
 *   1's is 0. 0 and 2 send at once (T); 1 reduces (T + R) and sends (2T +
 *   R); 3 reduces 2's at T + R, 1's at 2T + 2R, forwards to 0: 3T + 2R = 7
 *   us (6 us with R = 0). Root 3: no forward, 2T + 2R = 5 us.
 * - allreduce-linear, N = 4: all reach 0 at T, three reduces, then 0
 *   isends to 1, 2, 3 one after another: 4T + 3R = 9.5 us (8 us, R = 0).
 * - allreduce-reduce-bcast (reduce-binomial+bcast-binomial), N = 8, R =
 *   0: the reduce takes 3T (rounds of 1, 2, 4), then 0 sends to 1, 2, 4
 *   (4T, 5T, 6T); 1 sends to 3 (5T) and 5 (6T), 2 to 6 (6T), 3 to 7 (6T):
 *   6T = 12 us. */
START_TEST(tree_reduce_time) {
  ck_assert_int_eq(tree_time("reduce-chain", 4, 1, 0, 0), 6000 * FS_NS);
  ck_assert_int_eq(tree_time("reduce-chain", 4, 1, 0, 500 * FS_NS), 7500 * FS_NS);
  ck_assert_int_eq(tree_time("reduce-chain", 3, 0, 500, 0), 4500 * FS_NS);
  ck_assert_int_eq(tree_time("reduce-chain", 3, 0, 0, 0), 4000 * FS_NS);
  ck_assert_int_eq(tree_time("reduce-binary", 7, 0, 0, 0), 4000 * FS_NS);
  ck_assert_int_eq(tree_time("reduce-binary", 7, 3, 0, 500 * FS_NS), 6000 * FS_NS);
  ck_assert_int_eq(tree_time("reduce-in-order-binary", 4, 0, 0, 0), 6000 * FS_NS);
  ck_assert_int_eq(tree_time("reduce-in-order-binary", 4, 0, 0, 500 * FS_NS), 7000 * FS_NS);
  ck_assert_int_eq(tree_time("reduce-in-order-binary", 4, 3, 0, 500 * FS_NS), 5000 * FS_NS);
  ck_assert_int_eq(tree_time("allreduce-linear", 4, 0, 0, 0), 8000 * FS_NS);
  ck_assert_int_eq(tree_time("allreduce-linear", 4, 0, 0, 500 * FS_NS), 9500 * FS_NS);
  ck_assert_int_eq(tree_time("allreduce-reduce-bcast", 8, 0, 0, 0), 12000 * FS_NS);
}
END_TEST

/* Counts: the tree reduces have 3(N-1) tasks (a send, a recv and a reduce
 * per child) plus 2 for the in-order forward; reduce-chain 3k(N-1) with k
 * segments; the compositions the sum of their parts. */
START_TEST(tree_reduce_counts) {
  for (int32_t n = 1; n <= 40; n++) {
    fs_generator_options o = fs_test_options(n, 1000, n / 2, NULL);
    fs_program *p = fs_test_generate("reduce-binary", &o);
    ck_assert_int_eq(p->tasks, 3 * (n - 1));
    fs_program_free(p);
    p = fs_test_generate("reduce-in-order-binary", &o);
    ck_assert_int_eq(p->tasks, 3 * (n - 1) + (n / 2 != n - 1 ? 2 : 0));
    fs_program_free(p);
    o.segment = 300; /* k = 4 */
    p = fs_test_generate("reduce-chain", &o);
    ck_assert_int_eq(p->tasks, 12 * (n - 1));
    fs_program_free(p);
    o.segment = 0, o.root = 0;
    p = fs_test_generate("allreduce-linear", &o);
    ck_assert_int_eq(p->tasks, 5 * (n - 1));
    fs_program_free(p);
  }
  fs_generator_options o = fs_test_options(8, 1000, 0, NULL);
  fs_program *fixed = fs_test_generate("allreduce-reduce-bcast", &o);
  o.schedule = "auto"; /* the default pair, as `auto` is allreduce-rm's own choice */
  fs_program *chosen = fs_test_generate("allreduce-reduce-bcast", &o);
  ck_assert_int_eq(chosen->tasks, fixed->tasks);
  ck_assert_int_eq(chosen->dependencies, fixed->dependencies);
  ck_assert_mem_eq(chosen->kind, fixed->kind, (size_t)fixed->tasks);
  ck_assert_mem_eq(chosen->peer, fixed->peer, (size_t)fixed->tasks * sizeof *fixed->peer);
  ck_assert_mem_eq(chosen->successor, fixed->successor,
                   (size_t)fixed->dependencies * sizeof *fixed->successor);
  fs_program_free(fixed), fs_program_free(chosen);
  o.schedule = "reduce-binomial";
  fs_test_generate_refused("allreduce-reduce-bcast", &o, "expected REDUCE+BCAST");
  o.schedule = "bcast-binomial+reduce-binomial";
  fs_test_generate_refused("allreduce-reduce-bcast", &o, "is not a two-sided reduce generator");
  o.schedule = NULL, o.has_reduce_time = 1, o.reduce_time = FS_NS;
  fs_test_generate_refused("allreduce-reduce-bcast", &o, "--reduce-time does not apply");
  o.has_reduce_time = 0, o.segment = 64;
  fs_test_generate_refused("allreduce-reduce-bcast", &o, "--segment does not apply");
}
END_TEST

/* The data flow at N = 1..33 and powers of two to 256, several roots and
 * segments, and compositions whose parts cut the vector differently. */
START_TEST(tree_reduce_flow) {
  static const char *const schedules[] = {"reduce-binary+bcast-knomial",
                                          "reduce-in-order-binary+bcast-split-binary",
                                          "reduce-chain+bcast-chain",
                                          "reduce-rabenseifner+bcast-scatter-rd-allgather",
                                          "reduce-linear+bcast-scatter-allgather"};
  for (int32_t n = 1; n <= 256; n = n < 33 ? n + 1 : 2 * n) {
    int32_t roots[3] = {0, n - 1, n / 2};
    for (int r = 0; r < 3; r++) {
      fs_generator_options o = fs_test_options(n, 1000, roots[r], NULL);
      check_flow("reduce-binary", &o);
      check_flow("reduce-in-order-binary", &o);
      check_flow("reduce-chain", &o);
      o.segment = 7;
      check_flow("reduce-chain", &o);
      o.segment = 0;
    }
    for (size_t i = 0; i < sizeof schedules / sizeof schedules[0]; i++) {
      fs_generator_options o = fs_test_options(n, 1000, 0, NULL);
      o.schedule = schedules[i];
      o.segment = strstr(schedules[i], "chain") ? 64 : 0;
      check_flow("allreduce-reduce-bcast", &o);
    }
    fs_generator_options o = fs_test_options(n, 24, 0, NULL);
    check_flow("allreduce-linear", &o);
  }
}
END_TEST

static Suite *reduce_scatter_gather_suite(void) {
  Suite *s = suite_create("reduce_scatter_gather");
  TCase *structure = tcase_create("structure");
  tcase_add_test(structure, reduce_linear_structure);
  tcase_add_test(structure, reduce_linear_counts);
  tcase_add_test(structure, scatter_gather_linear_structure);
  tcase_add_test(structure, rabenseifner_power_of_two);
  tcase_add_test(structure, rabenseifner_three);
  tcase_add_test(structure, rabenseifner_six_root_dropped);
  tcase_add_test(structure, rabenseifner_five);
  tcase_add_test(structure, rabenseifner_counts);
  tcase_add_test(structure, errors);
  suite_add_tcase(s, structure);
  TCase *flow = tcase_create("data_flow");
  tcase_add_test(flow, data_flow_small);
  tcase_add_test(flow, data_flow_large);
  tcase_set_timeout(flow, 120); /* about 20 s under the sanitizers */
  suite_add_tcase(s, flow);
  TCase *time = tcase_create("time");
  tcase_add_test(time, reduce_linear_time);
  tcase_add_test(time, scatter_gather_linear_time);
  tcase_add_test(time, rabenseifner_time_power_of_two);
  tcase_add_test(time, rabenseifner_time_any);
  suite_add_tcase(s, time);
  TCase *trees = tcase_create("ompi trees");
  tcase_add_test(trees, tree_reduce_time);
  tcase_add_test(trees, tree_reduce_counts);
  tcase_add_test(trees, tree_reduce_flow);
  tcase_set_timeout(trees, 300);
  suite_add_tcase(s, trees);
  return s;
}

int main(void) { return fs_test_run(reduce_scatter_gather_suite()); }
