/* test_klevel.c: `gen bcast-klevel` and `gen scatter-klevel`, the
 * SMP-clusters thesis's kappa-level broadcast and personalized broadcast:
 * the exact messages on the thesis's Fig. 3.6 machine (kappa = 2, alpha = 2,
 * p = 8) from roots 0 and 5, the data-flow proof on several platforms and
 * mappings, the thesis's worked times (18 and 26) under hetero-hockney, and
 * closed forms under hockney. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/program.h"
#include "generators/data_flow_check.h"
#include "generators/generators.h"
#include "generator_support.h"
#include "model_support.h"
#include "platform/platform.h"
#include "platform/platform_xml.h"

#define KAPPA2_XML FENNELSIM_SOURCE_ROOT "/models/platform-kappa2-2x2x2.xml"

static fs_platform *kappa2(void) {
  fs_error err = {{0}};
  fs_platform *pf = fs_platform_read_xml(KAPPA2_XML, 8, &err);
  ck_assert_msg(pf != NULL, "%s", err.message);
  return pf;
}

/* "send 0>4 8 level2" or "recv 4<0 8 level2", plus " after=t" when the task
 * has a dependency (sends only: their rank's recv). */
static void describe(const fs_program *p, int32_t t, char *out, size_t size) {
  int n = snprintf(out, size, "%s %d%c%d %lld %s", fs_task_kind_name(p->kind[t]), p->rank[t],
                   p->kind[t] == FS_SEND ? '>' : '<', p->peer[t], (long long)p->value[t],
                   fs_task_label(p, t));
  for (int32_t s = 0; s < t; s++)
    for (int64_t e = p->successor_at[s]; e < p->successor_at[s + 1]; e++)
      if (FS_EDGE_TASK(p->successor[e]) == t)
        n += snprintf(out + n, size - (size_t)n, " after=%d", s);
}

static void assert_schedule(const char *name, int32_t root, int64_t size,
                            const char *const *expected, int count) {
  fs_platform *pf = kappa2();
  fs_generator_options o = fs_test_options(8, size, root, pf);
  fs_program *p = fs_test_generate(name, &o);
  ck_assert_int_eq(p->tasks, count);
  for (int32_t t = 0; t < count; t++) {
    char text[128];
    describe(p, t, text, sizeof text);
    ck_assert_msg(strcmp(text, expected[t]) == 0, "%s root %d task %d: got '%s', expected '%s'",
                  name, root, t, text, expected[t]);
  }
  fs_program_free(p);
  fs_platform_free(pf);
}

/* Thesis Fig. 3.7 from P0: P0 -> P4 across the top (level 2), then P0 -> P2
 * and P4 -> P6 inside the switches (level 1), then every node's holder to
 * its other core. The scatter's level-2 message carries 4 blocks (M
 * alpha(0) alpha(1)), level 1 two (M alpha(0)), local one. */
START_TEST(kappa2_root0) {
  static const char *const bcast[] = {
      "send 0>4 2 level2",        "recv 4<0 2 level2",         "send 0>2 2 level1",
      "recv 2<0 2 level1",        "send 4>6 2 level1 after=1", "recv 6<4 2 level1",
      "send 0>1 2 local",         "recv 1<0 2 local",          "send 2>3 2 local after=3",
      "recv 3<2 2 local",         "send 4>5 2 local after=1",  "recv 5<4 2 local",
      "send 6>7 2 local after=5", "recv 7<6 2 local",
  };
  assert_schedule("bcast-klevel", 0, 2, bcast, 14);
  static const char *const scatter[] = {
      "send 0>4 8 level2",        "recv 4<0 8 level2",         "send 0>2 4 level1",
      "recv 2<0 4 level1",        "send 4>6 4 level1 after=1", "recv 6<4 4 level1",
      "send 0>1 2 local",         "recv 1<0 2 local",          "send 2>3 2 local after=3",
      "recv 3<2 2 local",         "send 4>5 2 local after=1",  "recv 5<4 2 local",
      "send 6>7 2 local after=5", "recv 7<6 2 local",
  };
  assert_schedule("scatter-klevel", 0, 2, scatter, 14);
}
END_TEST

/* Root 5 (node 2, second core): the representatives are the second cores,
 * at the node offset of the root's node within its switch (node 0 of
 * switch 1 -> node 0 of switch 0): 5 -> 1; 1 -> 3 and 5 -> 7; locally each
 * holder serves the first core of its node. */
START_TEST(kappa2_root5) {
  static const char *const bcast[] = {
      "send 5>1 3 level2",        "recv 1<5 3 level2", "send 1>3 3 level1 after=1",
      "recv 3<1 3 level1",        "send 5>7 3 level1", "recv 7<5 3 level1",
      "send 1>0 3 local after=1", "recv 0<1 3 local",  "send 3>2 3 local after=3",
      "recv 2<3 3 local",         "send 5>4 3 local",  "recv 4<5 3 local",
      "send 7>6 3 local after=5", "recv 6<7 3 local",
  };
  assert_schedule("bcast-klevel", 5, 3, bcast, 14);
  static const char *const scatter[] = {
      "send 5>1 12 level2",       "recv 1<5 12 level2", "send 1>3 6 level1 after=1",
      "recv 3<1 6 level1",        "send 5>7 6 level1",  "recv 7<5 6 level1",
      "send 1>0 3 local after=1", "recv 0<1 3 local",   "send 3>2 3 local after=3",
      "recv 2<3 3 local",         "send 5>4 3 local",   "recv 4<5 3 local",
      "send 7>6 3 local after=5", "recv 6<7 3 local",
  };
  assert_schedule("scatter-klevel", 5, 3, scatter, 14);
}
END_TEST

/* Without a platform every rank is a node under one level: the direct
 * 1-level broadcast, root to every other rank in cyclic rank order. */
START_TEST(no_platform_is_direct) {
  fs_generator_options o = fs_test_options(4, 10, 2, NULL);
  fs_program *p = fs_test_generate("bcast-klevel", &o);
  static const int32_t to[] = {3, 0, 1};
  ck_assert_int_eq(p->tasks, 6);
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(p->kind[2 * i], FS_SEND);
    ck_assert_int_eq(p->rank[2 * i], 2);
    ck_assert_int_eq(p->peer[2 * i], to[i]);
    ck_assert_str_eq(fs_task_label(p, 2 * i), "level1");
  }
  ck_assert_int_eq(p->dependencies, 0);
  fs_program_free(p);
}
END_TEST

START_TEST(options) {
  fs_platform *pf = kappa2();
  fs_error err = {{0}};
  fs_generator_options o = fs_test_options(6, 1, 0, pf); /* the platform maps 8 */
  ck_assert_ptr_null(fs_generator_find("bcast-klevel")->generate(&o, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "maps 8 ranks"));
  o = fs_test_options(8, 1, 8, pf);
  memset(&err, 0, sizeof err);
  ck_assert_ptr_null(fs_generator_find("scatter-klevel")->generate(&o, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "--root 8"));
  o = fs_test_options(8, 1, 0, pf);
  o.has_reduce_time = 1;
  memset(&err, 0, sizeof err);
  ck_assert_ptr_null(fs_generator_find("bcast-klevel")->generate(&o, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "--reduce-time"));
  fs_platform_free(pf);
}
END_TEST

/* nodes x cores with the given levels (fanouts bottom-up, 0-terminated). */
static fs_platform *machine(int32_t nodes, int32_t cores, const int32_t *fanouts) {
  fs_error err = {{0}};
  fs_platform *pf = fs_platform_new(nodes, cores, &err);
  ck_assert_msg(pf != NULL, "%s", err.message);
  for (int i = 0; fanouts && fanouts[i]; i++) {
    char name[16];
    int length = snprintf(name, sizeof name, "level%d", i + 1);
    ck_assert_msg(fs_platform_add_level(pf, name, (size_t)length, fanouts[i], &err) == 0, "%s",
                  err.message);
  }
  return pf;
}

static void check_flow(const fs_platform *pf, int32_t ranks, int all_roots) {
  static const char *const names[] = {"bcast-klevel", "scatter-klevel"};
  char why[512];
  for (int32_t root = 0; root < ranks; root += all_roots ? 1 : (ranks + 4) / 5)
    for (int g = 0; g < 2; g++) {
      fs_generator_options o = fs_test_options(ranks, 100, root, pf);
      const char *failure = fs_check_generator_flow(names[g], &o, why, sizeof why);
      ck_assert_msg(failure == NULL, "%s", failure);
    }
}

START_TEST(data_flow) {
  fs_error err = {{0}};
  fs_platform *pf = kappa2();
  check_flow(pf, 8, 1);
  fs_platform_free(pf);
  static const char *const files[] = {FENNELSIM_SOURCE_ROOT "/models/platform-4x8-seq.xml",
                                      FENNELSIM_SOURCE_ROOT "/models/platform-4x8-rr.xml"};
  for (int i = 0; i < 2; i++) {
    pf = fs_platform_read_xml(files[i], 32, &err);
    ck_assert_msg(pf != NULL, "%s", err.message);
    check_flow(pf, 32, 1);
    fs_platform_free(pf);
  }
  for (int32_t n = 1; n <= 64; n++) check_flow(NULL, n, n <= 16);
  check_flow(NULL, 257, 0);
  static const int32_t three_levels[] = {3, 2, 0}; /* 3 nodes a switch, 2 a rack, 2 racks */
  static const int32_t two_levels[] = {2, 2, 0};
  for (int mapping = 0; mapping < 2; mapping++) {
    static const int32_t counts[] = {36, 35, 20, 7, 1};
    for (int i = 0; i < 5; i++) {
      pf = machine(12, 3, three_levels);
      ck_assert(0 == (mapping ? fs_platform_map_round_robin(pf, counts[i], &err)
                              : fs_platform_map_sequential(pf, counts[i], &err)));
      check_flow(pf, counts[i], counts[i] <= 20);
      fs_platform_free(pf);
    }
    pf = fs_platform_from_options(4, 16, mapping ? "rr" : "seq", 64, &err);
    ck_assert_msg(pf != NULL, "%s", err.message);
    check_flow(pf, 64, 0);
    fs_platform_free(pf);
  }
  /* explicit, uneven: nodes with 0..4 ranks under two levels */
  static const int32_t nodes[] = {7, 0, 0, 5, 1, 7, 7, 0, 2, 2, 5, 4, 7};
  pf = machine(8, 4, two_levels);
  ck_assert(fs_platform_map_explicit(pf, 13, nodes, &err) == 0);
  check_flow(pf, 13, 1);
  fs_platform_free(pf);
  pf = machine(256, 4, two_levels); /* 1024 ranks, three levels of network */
  ck_assert(fs_platform_map_sequential(pf, 1024, &err) == 0);
  check_flow(pf, 1024, 0);
  fs_platform_free(pf);
}
END_TEST

/* The thesis's kappaNUMA costs as hetero-hockney pairs: a message across
 * level l >= 1 costs s_0 + B/g_global on the sender, then 2 (s_1 + ... +
 * s_l) + s_0 to arrive (eq. 3.1): alpha_l = 2 s_0 + 2 (s_1 + ... + s_l),
 * beta = 1/g_global. Phase 2 on a node costs 2 s_0 + (W + R)/g_local (eq.
 * 3.2); with alpha(0) = 2 one local message of M bytes has W = R = M:
 * alpha_0 = 2 s_0, beta_0 = 2/g_local. With s_i = 1 ns, g_global = 1 B/ns,
 * g_local = 2 B/ns: alpha = 2, 4, 6 ns at levels 0, 1, 2, beta_0 = beta =
 * 1 ns/B. Returns the file's path (the caller removes it). */
static void write_kappa_pairs(const fs_platform *pf, char *path, size_t size) {
  snprintf(path, size, "/tmp/test_klevel_pairs_XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "ranks %d\ndefault alpha=6ns beta=1ns\n", pf->ranks);
  for (int32_t i = 0; i < pf->ranks; i++)
    for (int32_t j = i + 1; j < pf->ranks; j++) {
      int32_t level = fs_platform_level_between(pf, i, j);
      fprintf(f, "link %d %d alpha=%dns beta=1ns\n", i, j, 2 + 2 * level);
    }
  fclose(f);
}

static fs_time simulate(const char *name, const fs_generator_options *o, const char *model,
                        const char *params) {
  fs_program *p = fs_test_generate(name, o);
  fs_simulation run;
  fs_test_simulate(&run, p, model, "fixed", params);
  ck_assert_int_eq(run.status, 0);
  fs_time t = fs_engine_makespan(run.engine);
  fs_test_run_free(&run);
  fs_program_free(p);
  return t;
}

/* Thesis Fig. 3.7: kappa-level broadcast, M = 2, finishes at 18 (P0 -> P4
 * arrives at 1 + 2 + 4 + 1 = 8, P4 -> P6 at 8 + 6 = 14, P6's node phase 2
 * ends at 18). Personalized (derived): 8 B to P4 arrive at
 * 6 + 8 = 14, 4 B to P6 at 14 + 4 + 4 = 22, phase 2 (one 2 B message:
 * 2 + 2) ends at 26. hetero-hockney keeps the sender busy until arrival
 * where the thesis frees it after s_0 + B/g_global, so the event times of
 * the root's later sends differ (P0 -> P2 arrives at 14 here, at 9 in the
 * thesis), but no such send is on the critical path: both totals are
 * exact. The same from root 5 by symmetry. */
START_TEST(thesis_times) {
  fs_platform *pf = kappa2();
  char path[64], params[96];
  write_kappa_pairs(pf, path, sizeof path);
  snprintf(params, sizeof params, "file=%s", path);
  fs_time bcast[2], scatter[2];
  for (int i = 0; i < 2; i++) {
    fs_generator_options o = fs_test_options(8, 2, 5 * i, pf); /* roots 0 and 5 */
    bcast[i] = simulate("bcast-klevel", &o, "hetero-hockney", params);
    scatter[i] = simulate("scatter-klevel", &o, "hetero-hockney", params);
  }
  unlink(path); /* before any assertion can end the test */
  fs_platform_free(pf);
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(bcast[i], 18 * FS_NS);
    ck_assert_int_eq(scatter[i], 26 * FS_NS);
  }
}
END_TEST

/* Hockney (sender busy until arrival, c(B) = alpha + beta B) on a full
 * symmetric machine, alpha(l) = a for l = 0..kappa: each holder's sends of
 * level l end (a-1) c later, and the last of them starts the next level,
 * so every path is as long:
 *   broadcast: (kappa+1)(a-1) c(S)                   (Table 3.1: kappa(a-1)
 *              global messages plus the node phase as a-1 local ones);
 *   scatter:   sum_l (a-1) c(S a^l) = (kappa+1)(a-1) alpha + (a^(kappa+1) - 1) beta S
 *              (Table 3.2: a^(kappa+1) - a global, a - 1 local).
 * alpha = 1 us, beta = 1 ns/B, S = 1000:
 *   2x2x2 (kappa 2, a 2): bcast 3 x 2000 = 6000 ns; scatter 3000 + 7000 = 10000 ns;
 *   3x3x3 (kappa 2, a 3): bcast 6 x 2000 = 12000 ns; scatter 6000 + 26000 = 32000 ns. */
START_TEST(hockney_closed_forms) {
  const char *params = "alpha=1us beta=1ns";
  fs_platform *pf = kappa2();
  fs_generator_options o = fs_test_options(8, 1000, 3, pf);
  ck_assert_int_eq(simulate("bcast-klevel", &o, "hockney", params), 6000 * FS_NS);
  ck_assert_int_eq(simulate("scatter-klevel", &o, "hockney", params), 10000 * FS_NS);
  fs_platform_free(pf);
  static const int32_t fanout3[] = {3, 0};
  pf = machine(9, 3, fanout3);
  fs_error err = {{0}};
  ck_assert(fs_platform_map_sequential(pf, 27, &err) == 0);
  ck_assert_int_eq(pf->top_level, 2);
  o = fs_test_options(27, 1000, 13, pf);
  ck_assert_int_eq(simulate("bcast-klevel", &o, "hockney", params), 12000 * FS_NS);
  ck_assert_int_eq(simulate("scatter-klevel", &o, "hockney", params), 32000 * FS_NS);
  fs_platform_free(pf);
}
END_TEST

int main(void) {
  Suite *s = suite_create("klevel");
  TCase *tc = tcase_create("klevel");
  tcase_add_test(tc, kappa2_root0);
  tcase_add_test(tc, kappa2_root5);
  tcase_add_test(tc, no_platform_is_direct);
  tcase_add_test(tc, options);
  tcase_add_test(tc, thesis_times);
  tcase_add_test(tc, hockney_closed_forms);
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
