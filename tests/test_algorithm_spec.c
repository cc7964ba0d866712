/* test_algorithm_spec.c: algorithm specs "NAME[:KEY=VALUE]..." (issue 19):
 * parsing into generator options, the canonical text, every error, the
 * variants a search tries per collective, collective names. */
#include <check.h>
#include <string.h>

#include "generators/algorithm_spec.h"
#include "test_support.h"

START_TEST(parses_options_into_the_generator_options) {
  fs_algorithm_spec s;
  fs_error err = {{0}};
  ck_assert_int_eq(fs_algorithm_spec_parse(&s, "bcast-chain:segment=32KiB:root=3", &err), 0);
  ck_assert_str_eq(s.generator->name, "bcast-chain");
  ck_assert_int_eq(s.segment, 32768);
  ck_assert_int_eq(s.root, 3);
  ck_assert_int_eq(s.has_root, 1);
  ck_assert_str_eq(s.text, "bcast-chain:segment=32KiB:root=3");
  fs_generator_options o = {.ranks = 8, .size = 64, .root = 0, .segment = 0};
  fs_algorithm_spec_apply(&s, &o);
  ck_assert_int_eq(o.segment, 32768);
  ck_assert_int_eq(o.root, 3);
  ck_assert_int_eq(o.ranks, 8); /* the others stay */
  /* a schedule keeps its commas; factors become numbers */
  ck_assert_int_eq(fs_algorithm_spec_parse(&s, "allreduce-rm:schedule=a4,a2", &err), 0);
  ck_assert_str_eq(s.schedule, "a4,a2");
  ck_assert_str_eq(s.text, "allreduce-rm:schedule=a4,a2");
  ck_assert_int_eq(fs_algorithm_spec_parse(&s, "allreduce-rm:factors=4,2", &err), 0);
  ck_assert_int_eq(s.factor_count, 2);
  ck_assert_int_eq(s.factors[0], 4);
  ck_assert_int_eq(s.factors[1], 2);
  fs_generator_options r = {.ranks = 8};
  fs_algorithm_spec_apply(&s, &r);
  ck_assert_int_eq(r.factor_count, 2);
  ck_assert_int_eq(r.factors[1], 2);
  ck_assert_ptr_null(r.schedule);
}
END_TEST

START_TEST(canonical_text_orders_keys_and_sizes) {
  fs_algorithm_spec s;
  fs_error err = {{0}};
  /* keys in any order, sizes in any unit: one canonical text */
  ck_assert_int_eq(fs_algorithm_spec_parse(&s, "bcast-chain:root=1:segment=8192", &err), 0);
  ck_assert_str_eq(s.text, "bcast-chain:segment=8KiB:root=1");
  ck_assert_int_eq(fs_algorithm_spec_parse(&s, "barrier-nway:ways=03", &err), 0);
  ck_assert_str_eq(s.text, "barrier-nway:ways=3");
  ck_assert_int_eq(fs_algorithm_spec_parse(&s, "allreduce-ring", &err), 0);
  ck_assert_str_eq(s.text, "allreduce-ring");
  fs_algorithm_spec_of(&s, fs_generator_find("allgather-bruck"));
  ck_assert_str_eq(s.text, "allgather-bruck");
  ck_assert_int_eq(s.segment + s.ways + s.has_root + s.factor_count, 0);
}
END_TEST

static void refused(const char *text, const char *message) {
  fs_algorithm_spec s;
  fs_error err = {{0}};
  ck_assert_int_eq(fs_algorithm_spec_parse(&s, text, &err), -1);
  ck_assert_msg(strstr(err.message, message), "%s: '%s' lacks '%s'", text, err.message, message);
}

START_TEST(refuses_what_the_generator_does_not_read) {
  refused("", "expected NAME[:KEY=VALUE]");
  refused("allreduce-rnig", "no algorithm 'allreduce-rnig'");
  refused("allreduce-rnig", "did you mean allreduce-ring?");
  refused("bcast-chain:segmnt=8KiB", "unknown key 'segmnt' (bcast-chain takes segment, root)");
  refused("allreduce-ring:root=1", "unknown key 'root' (allreduce-ring takes ");
  refused("allreduce-rd:ways=2", "allreduce-rd takes");
  refused("bcast-chain:segment", "'segment': expected KEY=VALUE");
  refused("bcast-chain:segment=0", "segment=0: expected a size of 1B or more");
  refused("bcast-chain:segment=8XB", "segment=8XB: expected a size");
  refused("barrier-nway:ways=0", "ways=0: expected a whole number from 1");
  refused("barrier-nway:ways=2x", "ways=2x");
  refused("allreduce-rm:factors=4,", "trailing comma");
  refused("allreduce-rm:factors=1,2", "expected up to 64 whole numbers >= 2");
  refused("allreduce-rm:factors=", "at least one factor");
  refused("allreduce-rm:schedule=", "schedule=: expected 1 to 127 characters");
  refused("bcast-binomial:root=-1", "root=-1: expected a rank");
  char longer[600];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = 0;
  refused(longer, "an algorithm is at most 511 characters");
  /* a canonical text past its buffer is refused, never cut */
  char schedule[220] = "allreduce-rm:schedule=";
  memset(schedule + strlen(schedule), 'a', 120);
  strcat(schedule, ":factors=2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2");
  refused(schedule, "an algorithm is at most 190 characters");
}
END_TEST

/* Whether list[0..n) holds text. */
static int holds(const fs_algorithm_spec *list, int n, const char *text) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i].text, text) == 0) return 1;
  return 0;
}

START_TEST(variants_cover_every_algorithm_of_a_collective) {
  fs_algorithm_spec list[256];
  int n = fs_algorithm_variants(FS_COLLECTIVE_ALLREDUCE, FS_FAMILY_MPI, 16, list, 256);
  ck_assert(holds(list, n, "allreduce-rd"));
  ck_assert(holds(list, n, "allreduce-ring"));
  ck_assert(holds(list, n, "allreduce-elimination"));
  ck_assert(holds(list, n, "allreduce-dissemination"));
  ck_assert(holds(list, n, "allreduce-dissemination:ways=2"));
  ck_assert(holds(list, n, "allreduce-dissemination:ways=3"));
  ck_assert(!holds(list, n, "allreduce-rm"));        /* best searches its schedules itself */
  ck_assert(!holds(list, n, "allreduce-recdoub"));   /* not a correct allreduce */
  ck_assert(!holds(list, n, "allreduce-mpich"));     /* a selector, not an algorithm */
  ck_assert(!holds(list, n, "allreduce-nccl-ring")); /* the gpu family's */
  int count;
  const fs_generator *g = fs_generator_list(&count);
  for (int c = FS_COLLECTIVE_BARRIER; c <= FS_COLLECTIVE_LAST; c++) {
    n = fs_algorithm_variants((fs_collective)c, FS_FAMILY_ALL, 16, list, 256);
    ck_assert_int_le(n, 256);
    for (int i = 0; i < n; i++) {
      ck_assert_int_eq(list[i].generator->collective, c);
      for (int j = 0; j < i; j++) ck_assert_str_ne(list[i].text, list[j].text); /* no twice */
      fs_algorithm_spec again; /* each text reads back as itself */
      ck_assert_int_eq(fs_algorithm_spec_parse(&again, list[i].text, NULL), 0);
      ck_assert_str_eq(again.text, list[i].text);
    }
    /* every correct generator of c is there with its defaults */
    for (int i = 0; i < count; i++)
      if (g[i].collective == (fs_collective)c &&
          !(g[i].traits & (FS_GEN_NOT_CORRECT | FS_GEN_SELECTOR)) &&
          strcmp(g[i].name, "allreduce-rm") != 0)
        ck_assert_msg(holds(list, n, g[i].name), "%s missing", g[i].name);
  }
  /* the capacity bounds what is written, not the count */
  fs_algorithm_spec two[2];
  ck_assert_int_eq(fs_algorithm_variants(FS_COLLECTIVE_BCAST, FS_FAMILY_ALL, 16, two, 2),
                   fs_algorithm_variants(FS_COLLECTIVE_BCAST, FS_FAMILY_ALL, 16, list, 256));
  ck_assert(holds(list, fs_algorithm_variants(FS_COLLECTIVE_BCAST, FS_FAMILY_ALL, 16, list, 256),
                  "bcast-chain:segment=128KiB"));
  ck_assert(holds(list, fs_algorithm_variants(FS_COLLECTIVE_BARRIER, FS_FAMILY_MPI, 0, list, 256),
                  "barrier-nway:ways=4"));
}
END_TEST

START_TEST(collective_names) {
  ck_assert_int_eq(fs_collective_from_name("allreduce"), FS_COLLECTIVE_ALLREDUCE);
  ck_assert_int_eq(fs_collective_from_name("barrier"), FS_COLLECTIVE_BARRIER);
  ck_assert_int_eq(fs_collective_from_name("alltoall"), FS_COLLECTIVE_ALLTOALL);
  ck_assert_int_eq(fs_collective_from_name("none"), FS_COLLECTIVE_NONE);
  ck_assert_int_eq(fs_collective_from_name("Allreduce"), FS_COLLECTIVE_NONE);
  ck_assert_int_eq(fs_collective_from_name(""), FS_COLLECTIVE_NONE);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("algorithm_spec");
  TCase *t = tcase_create("specs");
  tcase_add_test(t, parses_options_into_the_generator_options);
  tcase_add_test(t, canonical_text_orders_keys_and_sizes);
  tcase_add_test(t, refuses_what_the_generator_does_not_read);
  tcase_add_test(t, variants_cover_every_algorithm_of_a_collective);
  tcase_add_test(t, collective_names);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(suite()); }
