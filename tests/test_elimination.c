/* test_elimination.c: `gen allreduce-elimination` (Rabenseifner & Traff's
 * 3-2/2-1 elimination allreduce, non-overlapping): the exact schedule at 3
 * ranks (one 3-2 step and its mirror), the shape at 7 (one 3-2, two 2-1),
 * option errors, the data-flow proof for N = 1..64 and large N, and exact
 * makespans under hockney with a reduce rate, derived by hand below. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "generators/data_flow_check.h"
#include "generator_support.h"
#include "generators/generators.h"
#include "model_support.h"

static const char NAME[] = "allreduce-elimination";

static fs_program *generate(const fs_generator_options *o) {
  fs_error err = {{0}};
  fs_program *p = fs_generator_find(NAME)->generate(o, &err);
  ck_assert_msg(p != NULL, "%s failed: %s", NAME, err.message);
  ck_assert_int_eq(p->capacity, p->tasks);
  return p;
}

/* "kind rank peer size label after=a,b" of task t, for literal comparison. */
static void describe(const fs_program *p, int32_t t, char *out, size_t size) {
  int n = snprintf(out, size, "%s %d %d %lld %s", fs_task_kind_name(p->kind[t]), p->rank[t],
                   p->kind[t] == FS_COMPUTE ? -1 : p->peer[t], (long long)p->value[t],
                   fs_task_label(p, t));
  const char *sep = " after=";
  for (int32_t s = 0; s < t; s++)
    for (int64_t e = p->successor_at[s]; e < p->successor_at[s + 1]; e++)
      if (FS_EDGE_TASK(p->successor[e]) == t) {
        n += snprintf(out + n, size - (size_t)n, "%s%d", sep, s);
        sep = ",";
      }
}

static void assert_schedule(const fs_program *p, const char *const *expected, int count) {
  ck_assert_int_eq(p->tasks, count);
  for (int32_t t = 0; t < count; t++) {
    char text[160];
    describe(p, t, text, sizeof text);
    ck_assert_msg(strcmp(text, expected[t]) == 0, "task %d: got '%s', expected '%s'", t, text,
                  expected[t]);
  }
}

/* 3 ranks, 4000 B in pof2 = 2 blocks of 2000: the 3-2 step, no butterfly
 * round left (its first round is the 3-2 step), the mirrored expand. */
START_TEST(three_ranks_exact) {
  fs_generator_options o = fs_test_options(3, 4000, 0, NULL);
  fs_program *p = generate(&o);
  static const char *const expected[] = {
      "send 1 2 2000 eliminate1",             /* p1 -> p2 lower half */
      "recv 1 2 2000 eliminate1",             /* p2's upper half */
      "compute 1 -1 2000 eliminate1 after=1", /* upper(p1+p2) */
      "send 2 1 2000 eliminate1",
      "recv 2 1 2000 eliminate1",
      "compute 2 -1 2000 eliminate1 after=4", /* lower(p1+p2) */
      "send 0 1 2000 eliminate2",             /* p0's own upper half */
      "recv 0 2 2000 eliminate2",             /* lower(p1+p2) */
      "compute 0 -1 2000 eliminate2 after=7", /* lower(p0+p1+p2) */
      "recv 1 0 2000 eliminate2 after=0,2",
      "compute 1 -1 2000 eliminate2 after=9", /* upper(p0+p1+p2) */
      "send 2 0 2000 eliminate2 after=3,5",
      "send 0 2 2000 expand1 after=6,8", /* lower result to p2 */
      "recv 0 1 2000 expand1 after=6,8",
      "send 1 0 2000 expand1 after=10", /* upper result to p0 */
      "recv 2 0 2000 expand1 after=11",
      "send 1 2 2000 expand2 after=14", /* upper result to p2 */
      "recv 1 2 2000 expand2 after=14",
      "send 2 1 2000 expand2 after=15", /* lower result to p1 */
      "recv 2 1 2000 expand2 after=15",
  };
  assert_schedule(p, expected, (int)(sizeof expected / sizeof *expected));
  fs_program_free(p);
}
END_TEST

static int count_label(const fs_program *p, fs_task_kind kind, const char *label) {
  int n = 0;
  for (int32_t t = 0; t < p->tasks; t++)
    n += p->kind[t] == kind && strcmp(fs_task_label(p, t), label) == 0;
  return n;
}

/* 7 ranks: pof2 = 4, 3 to eliminate, room for one triple (0,1,2), so two
 * 2-1 pairs (4 -> 3, 6 -> 5); the butterfly runs on 0, 1, 3, 5. */
START_TEST(seven_ranks_shape) {
  fs_generator_options o = fs_test_options(7, 4000, 0, NULL);
  fs_program *p = generate(&o);
  ck_assert_int_eq(count_label(p, FS_SEND, "eliminate1"), 4); /* 4->3, 6->5, 1<->2 */
  ck_assert_int_eq(count_label(p, FS_COMPUTE, "eliminate1"), 4);
  ck_assert_int_eq(count_label(p, FS_SEND, "eliminate2"), 2);
  ck_assert_int_eq(count_label(p, FS_SEND, "reduce-scatter1"), 2); /* 3 <-> 5 only */
  ck_assert_int_eq(count_label(p, FS_SEND, "reduce-scatter2"), 4);
  ck_assert_int_eq(count_label(p, FS_SEND, "allgather2"), 4);
  ck_assert_int_eq(count_label(p, FS_SEND, "allgather1"), 2);
  ck_assert_int_eq(count_label(p, FS_SEND, "expand1"), 4); /* 0->2, 1->0, 3->4, 5->6 */
  ck_assert_int_eq(count_label(p, FS_SEND, "expand2"), 2);
  int sends = 0, bytes = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->kind[t] != FS_SEND) continue;
    sends++;
    bytes += (int)p->value[t];
    if (strcmp(fs_task_label(p, t), "eliminate1") == 0 && p->rank[t] >= 3) {
      ck_assert_int_eq(p->value[t], 4000); /* 2-1: the whole vector */
      ck_assert_int_eq(p->peer[t], p->rank[t] - 1);
    }
    if (strcmp(fs_task_label(p, t), "reduce-scatter2") == 0) ck_assert_int_eq(p->value[t], 1000);
  }
  ck_assert_int_eq(sends, 24);
  /* 2-1: 2 x 4000 each way; 3-2: 4 halves each way; RS/AG: 2 halves, 8 quarters */
  ck_assert_int_eq(bytes, 4 * 4000 + 8 * 2000 + 2 * 2 * 2000 + 8 * 1000);
  fs_program_free(p);
}
END_TEST

START_TEST(options) {
  fs_generator_options o = fs_test_options(5, 100, 0, NULL);
  o.root = 1;
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_generator_find(NAME)->generate(&o, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "--root"));
  o = fs_test_options(0, 100, 0, NULL);
  memset(&err, 0, sizeof err);
  ck_assert_ptr_null(fs_generator_find(NAME)->generate(&o, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "--ranks"));
  o = fs_test_options(1, 100, 0, NULL); /* one rank: nothing to do */
  fs_program *p = generate(&o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
}
END_TEST

START_TEST(data_flow) {
  static const int64_t sizes[] = {4096, 1000, 3}; /* S < pof2: empty blocks */
  char why[512];
  for (int32_t n = 1; n <= 64; n++)
    for (int i = 0; i < 3; i++) {
      fs_generator_options o = fs_test_options(n, sizes[i], 0, NULL);
      const char *failure = fs_check_generator_flow(NAME, &o, why, sizeof why);
      ck_assert_msg(failure == NULL, "%s", failure);
    }
  static const int32_t large[] = {96, 100, 127, 128, 129, 191, 192, 257, 1000};
  for (int i = 0; i < (int)(sizeof large / sizeof *large); i++) {
    fs_generator_options o = fs_test_options(large[i], 1 << 20, 0, NULL);
    o.has_reduce_time = 1;
    o.reduce_time = 5;
    const char *failure = fs_check_generator_flow(NAME, &o, why, sizeof why);
    ck_assert_msg(failure == NULL, "%s", failure);
  }
}
END_TEST

static fs_time makespan(int32_t ranks, int64_t size) {
  fs_generator_options o = fs_test_options(ranks, size, 0, NULL);
  return fs_test_generated_makespan(NAME, &o, "hockney", "rate", "alpha=1us beta=1ns gamma=2ns");
}

/* Hockney: a send holds its CPU until arrival, c(x) = alpha + beta x; a
 * reduce of x bytes takes gamma x of the CPU; a recv takes no CPU. With
 * S = 4000, h = S/2, q = S/4, alpha = 1000 ns, beta = 1 ns/B, gamma = 2 ns/B:
 *
 * N = 8 (no elimination): Rabenseifner, the Fennel thesis's eq. 5.4:
 *   2 alpha log2 N + 2 (N-1)/N S beta + (N-1)/N S gamma
 *   = 6000 + 7000 + 7000 = 20000 ns.
 *
 * N = 3 (one 3-2 step): p1, p2 exchange halves [0, c(h)) and reduce
 *   (gamma h); p2 then sends its lower partial to p0, arriving at
 *   2 c(h) + gamma h, and p0 reduces: E0 = 2 c(h) + 2 gamma h (p0's own
 *   send to p1 ran at [0, c(h))). Expand: p0 sends its half to p2
 *   [E0, E0 + c(h)); p2 forwards it to p1 [E0 + c(h), E0 + 2 c(h)) (p1's
 *   upper half to p2 went earlier). T = 4 c(h) + 2 gamma h
 *   = 4 alpha + 2 beta S + gamma S = 4000 + 8000 + 8000 = 20000 ns.
 *
 * N = 7 (one 3-2 on 0,1,2; 2-1: 4 -> 3 and 6 -> 5; butterfly on 0,1,3,5):
 *   3 and 5 have both vectors at A = c(S) + gamma S and exchange halves:
 *   R1 = A + c(h) + gamma h. The triple is done earlier (p0 at
 *   E0 = 2 c(h) + 2 gamma h < R1, p1 at c(h) + 2 gamma h), so
 *   reduce-scatter2 (0 with 3, 1 with 5; quarters) ends at
 *   D = R1 + c(q) + gamma q and allgather2 at G = D + c(q). Then 3 and 5
 *   exchange halves (G + c(h)) and send the whole result to 4 and 6:
 *   G + c(h) + c(S); the triple's expand ends at G + 2 c(h), earlier.
 *   T = 2 c(S) + 2 c(h) + 2 c(q) + gamma (S + h + q)
 *     = 6 alpha + 3.5 beta S + 1.75 gamma S = 6000 + 14000 + 14000 = 34000 ns.
 *
 * N = 6 (two 3-2 steps, on 0,1,2 and 3,4,5; butterfly on 0,1,3,4, no
 *   round 1): the p0s (0, 3) end eliminating at E0 = 2 c(h) + 2 gamma h,
 *   exchange quarters (reduce-scatter2 to E0 + c(q) + gamma q, allgather2
 *   to G = E0 + 2 c(q) + gamma q); the p1s (1, 4) run c(h) earlier. The
 *   expand from p0 to p2 to p1 then takes 2 c(h):
 *   T = 4 c(h) + 2 c(q) + 2 gamma h + gamma q = 6 alpha + 2.5 beta S + 1.25 gamma S
 *     = 6000 + 10000 + 10000 = 26000 ns: 3-2 steps only, 8000 ns less than N = 7. */
START_TEST(hockney_times) {
  ck_assert_int_eq(makespan(8, 4000), 20000 * FS_NS);
  ck_assert_int_eq(makespan(3, 4000), 20000 * FS_NS);
  ck_assert_int_eq(makespan(7, 4000), 34000 * FS_NS);
  ck_assert_int_eq(makespan(6, 4000), 26000 * FS_NS);
}
END_TEST

int main(void) {
  Suite *s = suite_create("elimination");
  TCase *tc = tcase_create("elimination");
  tcase_add_test(tc, three_ranks_exact);
  tcase_add_test(tc, seven_ranks_shape);
  tcase_add_test(tc, options);
  tcase_add_test(tc, hockney_times);
  suite_add_tcase(s, tc);
  TCase *flow = tcase_create("data_flow"); /* the checker takes seconds under sanitizers */
  tcase_set_timeout(flow, 120);
  tcase_add_test(flow, data_flow);
  suite_add_tcase(s, flow);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
