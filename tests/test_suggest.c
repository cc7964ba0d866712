/* test_suggest.c: the edit distance and the "did you mean" choice of
 * core/suggest (issue 16 item 5): exact distances, the threshold by the
 * typed length, ties in list order, and the text. */
#include <check.h>
#include <string.h>

#include "core/suggest.h"
#include "test_support.h"

START_TEST(distances) {
  /* insertion, deletion, substitution and an adjacent swap cost 1 each */
  ck_assert_int_eq(fs_edit_distance("run", "run"), 0);
  ck_assert_int_eq(fs_edit_distance("rnu", "run"), 1);                    /* swap n,u */
  ck_assert_int_eq(fs_edit_distance("hocknye", "hockney"), 1);            /* swap y,e */
  ck_assert_int_eq(fs_edit_distance("alpa", "alpha"), 1);                 /* insert h */
  ck_assert_int_eq(fs_edit_distance("allreduce-rdd", "allreduce-rd"), 1); /* delete d */
  ck_assert_int_eq(fs_edit_distance("gama", "gamma"), 1);
  ck_assert_int_eq(fs_edit_distance("kitten", "sitting"), 3); /* k->s, e->i, +g */
  ck_assert_int_eq(fs_edit_distance("", "net"), 3);
  ck_assert_int_eq(fs_edit_distance("net", ""), 3);
  /* optimal string alignment: "ca" -> "abc" is 3 (no edit of a swapped pair) */
  ck_assert_int_eq(fs_edit_distance("ca", "abc"), 3);
  ck_assert_int_eq(fs_edit_distance("Lognormal", "lognormal"), 1); /* case counts */
  char long_name[FS_SUGGEST_MAX_LENGTH + 2];
  memset(long_name, 'a', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = 0;
  ck_assert_int_eq(fs_edit_distance(long_name, "a"), FS_SUGGEST_MAX_LENGTH + 1);
}
END_TEST

START_TEST(threshold_and_ties) {
  static const char *const commands[] = {"gen",   "run", "best",     "convert", "merge",
                                         "probe", "fit", "validate", "help",    "version"};
  const char *best[FS_SUGGEST_MAX];
  ck_assert_int_eq(fs_suggest("rnu", commands, 10, best), 1);
  ck_assert_str_eq(best[0], "run");
  /* threshold 1 up to 4 characters typed: "rxx" is 2 from run */
  ck_assert_int_eq(fs_suggest("rxx", commands, 10, best), 0);
  /* 2 up to 8: "valdte" is 2 from validate (two deletions) */
  ck_assert_int_eq(fs_suggest("valdte", commands, 10, best), 1);
  ck_assert_str_eq(best[0], "validate");
  /* 3 from 9 on: "convertxyz" is 3 from convert, 4 would not do */
  ck_assert_int_eq(fs_suggest("convertxyz", commands, 10, best), 1);
  ck_assert_int_eq(fs_suggest("convertwxyz", commands, 10, best), 0);
  /* a name equal to the typed text is no suggestion */
  ck_assert_int_eq(fs_suggest("run", commands, 10, best), 0);
  /* a distance must be below the name's length: "x" is 1 from "r" (its
   * whole length, so no suggestion) and 2 from "rr" (past the threshold) */
  static const char *const short_names[] = {"r", "rr"};
  ck_assert_int_eq(fs_suggest("x", short_names, 2, best), 0);
  static const char *const dashed[] = {"-o", "-h"};
  ck_assert_int_eq(fs_suggest("o", dashed, 2, best), 1); /* 1 from -o, below its length 2 */
  ck_assert_str_eq(best[0], "-o");
  /* ties in list order: "alpha_x" is 1 from alpha_p and alpha_r */
  static const char *const keys[] = {"beta", "alpha_r", "alpha_p", "table"};
  ck_assert_int_eq(fs_suggest("alpha_x", keys, 4, best), 2);
  ck_assert_str_eq(best[0], "alpha_r");
  ck_assert_str_eq(best[1], "alpha_p");
  /* a closer name drops the farther ones found before it */
  static const char *const near[] = {"bets", "beta"};
  ck_assert_int_eq(fs_suggest("betaa", near, 2, best), 1);
  ck_assert_str_eq(best[0], "beta");
  /* at most FS_SUGGEST_MAX (3) */
  static const char *const many[] = {"ab", "ac", "ad", "ae"};
  ck_assert_int_eq(fs_suggest("aa", many, 4, best), 3); /* 1 from each; the first three */
  ck_assert_str_eq(best[0], "ab");
  ck_assert_str_eq(best[2], "ad");
}
END_TEST

START_TEST(texts) {
  static const char *const keys[] = {"beta", "alpha_r", "alpha_p", "table"};
  char text[200];
  ck_assert_str_eq(fs_suggest_text(text, sizeof text, "alpha_x", keys, 4),
                   "did you mean alpha_r or alpha_p?");
  ck_assert_str_eq(fs_suggest_text(text, sizeof text, "tabel", keys, 4), "did you mean table?");
  ck_assert_str_eq(fs_suggest_text(text, sizeof text, "zzzzzz", keys, 4), "");
  static const char *const three[] = {"mean", "mead", "meal"};
  ck_assert_str_eq(fs_suggest_text(text, sizeof text, "meax", three, 3),
                   "did you mean mean, mead or meal?");
  ck_assert_str_eq(fs_suggest_text_list(text, sizeof text, "lognorml",
                                        "constant, normal, lognormal, gamma"),
                   "did you mean lognormal?");
  ck_assert_str_eq(fs_suggest_text_list(text, sizeof text, "r", "seq|rr"), "did you mean rr?");
  /* a small buffer truncates, never overflows */
  char small[8];
  ck_assert_str_eq(fs_suggest_text(small, sizeof small, "tabel", keys, 4), "did you");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("suggest");
  TCase *t = tcase_create("core");
  tcase_add_test(t, distances);
  tcase_add_test(t, threshold_and_ties);
  tcase_add_test(t, texts);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(suite()); }
