/* test_best.c: (being written). */
#include <check.h>
#include <stdlib.h>

START_TEST(test_placeholder) { ck_assert_int_eq(1, 1); }
END_TEST

int main(void) {
  Suite *s = suite_create("test_best");
  TCase *tc = tcase_create("placeholder");
  tcase_add_test(tc, test_placeholder);
  suite_add_tcase(s, tc);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
