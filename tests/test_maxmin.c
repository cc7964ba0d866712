/* test_maxmin.c: the weighted max-min solver (models/maxmin.h) on hand-made
 * systems, values derived by hand in each test's comment. */
#include <check.h>
#include <math.h>

#include "models/maxmin.h"
#include "test_support.h"

static fs_maxmin *solver(int32_t links, const double *capacity, const uint8_t *fatpipe) {
  fs_error err;
  fs_maxmin *s = fs_maxmin_new();
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(fs_maxmin_reset(s, links, capacity, fatpipe, &err), 0);
  return s;
}

static int32_t enabled(fs_maxmin *s, const int32_t *links, int32_t count, double penalty) {
  int32_t f = fs_maxmin_add(s, links, count, penalty, 0);
  ck_assert_int_ge(f, 0);
  fs_maxmin_enable(s, f);
  return f;
}

#define CLOSE(a, b) ck_assert_double_eq_tol((a), (double)(b), 1e-9 * fabs((double)(b)) + 1e-12)

/* One SHARED link of 10, penalties 1 and 3: usage 1/1 + 1/3 = 4/3,
 * u = 7.5, x = u/p: 7.5 and 2.5 (the sum is 10). */
START_TEST(shared_link_splits_by_inverse_penalty) {
  double c[] = {10};
  fs_maxmin *s = solver(1, c, NULL);
  int32_t l = 0, a = enabled(s, &l, 1, 1), b = enabled(s, &l, 1, 3);
  ck_assert_int_eq(fs_maxmin_solve(s), 2);
  CLOSE(fs_maxmin_value(s, a), 7.5);
  CLOSE(fs_maxmin_value(s, b), 2.5);
  fs_maxmin_free(s);
}
END_TEST

/* Links 0 (cap 1) and 1 (cap 2); a on 0, b on 0 and 1, c on 1, penalties 1.
 * Link 0: u = 1/2, link 1: 2/2 = 1: link 0 first, a = b = 0.5; link 1 has
 * 1.5 left for c alone: c = 1.5. */
START_TEST(bottleneck_first_then_the_rest) {
  double c[] = {1, 2};
  fs_maxmin *s = solver(2, c, NULL);
  int32_t l0 = 0, l1 = 1, both[] = {0, 1};
  int32_t a = enabled(s, &l0, 1, 1), b = enabled(s, both, 2, 1), d = enabled(s, &l1, 1, 1);
  fs_maxmin_solve(s);
  CLOSE(fs_maxmin_value(s, a), 0.5);
  CLOSE(fs_maxmin_value(s, b), 0.5);
  CLOSE(fs_maxmin_value(s, d), 1.5);
  fs_maxmin_free(s);
}
END_TEST

/* FATPIPE of 10 with penalties 1 and 3: usage = max(1, 1/3) = 1, u = 10,
 * both fixed at u/p: 10 and 10/3 (SimGrid's FATPIPE rule). */
START_TEST(fatpipe_takes_the_max) {
  double c[] = {10};
  uint8_t fp[] = {1};
  fs_maxmin *s = solver(1, c, fp);
  int32_t l = 0, a = enabled(s, &l, 1, 1), b = enabled(s, &l, 1, 3);
  fs_maxmin_solve(s);
  CLOSE(fs_maxmin_value(s, a), 10);
  CLOSE(fs_maxmin_value(s, b), 10.0 / 3);
  fs_maxmin_free(s);
}
END_TEST

/* A SHARED link listed twice weighs 2: alone on cap 1, x = 0.5; on a
 * FATPIPE, twice still weighs 1: x = 1. */
START_TEST(repeated_link_weighs_its_count) {
  double c[] = {1, 1};
  uint8_t fp[] = {0, 1};
  fs_maxmin *s = solver(2, c, fp);
  int32_t twice[] = {0, 0}, twice_fat[] = {1, 1};
  int32_t a = enabled(s, twice, 2, 1), b = enabled(s, twice_fat, 2, 1);
  fs_maxmin_solve(s);
  CLOSE(fs_maxmin_value(s, a), 0.5);
  CLOSE(fs_maxmin_value(s, b), 1);
  int32_t flows;
  double load;
  fs_maxmin_link_load(s, 0, &flows, &load);
  ck_assert_int_eq(flows, 2); /* counted once per crossing */
  CLOSE(load, 1);
  fs_maxmin_free(s);
}
END_TEST

/* A disabled flow takes nothing; enabling it re-solves. */
START_TEST(disabled_flow_slows_nobody) {
  double c[] = {4};
  fs_maxmin *s = solver(1, c, NULL);
  int32_t l = 0, a = enabled(s, &l, 1, 1);
  int32_t b = fs_maxmin_add(s, &l, 1, 1, 0);
  fs_maxmin_solve(s);
  CLOSE(fs_maxmin_value(s, a), 4);
  ck_assert_double_eq(fs_maxmin_value(s, b), 0);
  fs_maxmin_enable(s, b);
  fs_maxmin_solve(s);
  CLOSE(fs_maxmin_value(s, a), 2);
  CLOSE(fs_maxmin_value(s, b), 2);
  fs_maxmin_remove(s, a);
  fs_maxmin_solve(s);
  CLOSE(fs_maxmin_value(s, b), 4);
  fs_maxmin_free(s);
}
END_TEST

/* Incremental: two components, {link 0: a, b} and {link 1: c}. Changing
 * the first re-solves only its flows; c keeps its value and is not listed. */
START_TEST(untouched_component_is_not_resolved) {
  double c[] = {6, 5};
  fs_maxmin *s = solver(2, c, NULL);
  int32_t l0 = 0, l1 = 1;
  int32_t a = enabled(s, &l0, 1, 1), cc = enabled(s, &l1, 1, 1);
  ck_assert_int_eq(fs_maxmin_solve(s), 2);
  CLOSE(fs_maxmin_value(s, cc), 5);
  int32_t b = enabled(s, &l0, 1, 2); /* a: 6/(1 + 1/2) = 4, b: 2 */
  ck_assert_int_eq(fs_maxmin_solve(s), 2);
  int32_t count;
  const int32_t *solved = fs_maxmin_solved(s, &count);
  for (int32_t i = 0; i < count; i++) ck_assert_int_ne(solved[i], cc);
  CLOSE(fs_maxmin_value(s, a), 4);
  CLOSE(fs_maxmin_value(s, b), 2);
  CLOSE(fs_maxmin_value(s, cc), 5);
  ck_assert_int_eq(fs_maxmin_solve(s), 0); /* nothing marked */
  fs_maxmin_free(s);
}
END_TEST

/* Removing the flow that joined two links splits the component: both
 * halves are re-solved. Links 0 (2) and 1 (2); a on 0, b on 0+1, c on 1:
 * all 1. Remove b: a = 2, c = 2. */
START_TEST(removal_resolves_both_halves) {
  double c[] = {2, 2};
  fs_maxmin *s = solver(2, c, NULL);
  int32_t l0 = 0, l1 = 1, both[] = {0, 1};
  int32_t a = enabled(s, &l0, 1, 1), b = enabled(s, both, 2, 1), d = enabled(s, &l1, 1, 1);
  fs_maxmin_solve(s);
  CLOSE(fs_maxmin_value(s, a), 1);
  fs_maxmin_remove(s, b);
  ck_assert_int_eq(fs_maxmin_solve(s), 2);
  CLOSE(fs_maxmin_value(s, a), 2);
  CLOSE(fs_maxmin_value(s, d), 2);
  fs_maxmin_free(s);
}
END_TEST

/* Incremental against whole: 300 random steps (a flow over 1-4 of 12
 * links, SHARED or FATPIPE, enabled or removed); after each solve, every
 * flow's value equals that of a fresh solver holding only the enabled flows
 * and solving everything (to 1e-9 relative: the same values, possibly
 * summed in another order). */
START_TEST(incremental_equals_whole) {
  enum { LINKS = 12, FLOWS = 64 };
  double c[LINKS];
  uint8_t fp[LINKS];
  uint64_t x = 12345;
  for (int l = 0; l < LINKS; l++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    c[l] = 1 + (double)(x >> 40) / (1 << 20);
    fp[l] = (x >> 33) % 5 == 0;
  }
  fs_maxmin *s = solver(LINKS, c, fp);
  int32_t routes[FLOWS][4], lengths[FLOWS], ids[FLOWS];
  double penalties[FLOWS];
  for (int f = 0; f < FLOWS; f++) ids[f] = -1;
  for (int step = 0; step < 300; step++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    int f = (int)((x >> 33) % FLOWS);
    if (ids[f] >= 0) {
      fs_maxmin_remove(s, ids[f]);
      ids[f] = -1;
    } else {
      lengths[f] = 1 + (int)((x >> 20) % 4);
      for (int k = 0; k < lengths[f]; k++) routes[f][k] = (int32_t)((x >> (k * 5 + 1)) % LINKS);
      penalties[f] = (x >> 50) % 3 == 0 ? 1.0 : 0.001 * (double)(1 + (x >> 44) % 50);
      ids[f] = enabled(s, routes[f], lengths[f], penalties[f]);
    }
    if ((x >> 10) % 3 == 0) continue; /* several changes, one solve */
    fs_maxmin_solve(s);
    fs_maxmin *whole = solver(LINKS, c, fp);
    int32_t fresh[FLOWS];
    for (int g = 0; g < FLOWS; g++)
      fresh[g] = ids[g] >= 0 ? enabled(whole, routes[g], lengths[g], penalties[g]) : -1;
    fs_maxmin_solve(whole);
    for (int g = 0; g < FLOWS; g++)
      if (ids[g] >= 0) CLOSE(fs_maxmin_value(s, ids[g]), fs_maxmin_value(whole, fresh[g]));
    fs_maxmin_free(whole);
  }
  fs_maxmin_free(s);
}
END_TEST

Suite *maxmin_suite(void) {
  Suite *s = suite_create("maxmin");
  TCase *t = tcase_create("solve");
  tcase_add_test(t, shared_link_splits_by_inverse_penalty);
  tcase_add_test(t, bottleneck_first_then_the_rest);
  tcase_add_test(t, fatpipe_takes_the_max);
  tcase_add_test(t, repeated_link_weighs_its_count);
  tcase_add_test(t, disabled_flow_slows_nobody);
  tcase_add_test(t, untouched_component_is_not_resolved);
  tcase_add_test(t, removal_resolves_both_halves);
  tcase_add_test(t, incremental_equals_whole);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(maxmin_suite()); }
