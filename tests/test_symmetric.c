/* test_symmetric.c: rank-symmetric programs (core/symmetric.h,
 * core/program_symmetric.c) and the generators that build them.
 *
 * Covers the one-multiplication division (exact over its whole range at
 * the edges), task ids and fields through the accessors, the explicit
 * copy (fs_program_materialize) against the explicit generators
 * (allreduce-rd at powers of two, barrier-dissemination at any N: every
 * field, label and successor list equal), successors whose order depends
 * on the rank (sorted per task), every refusal of the builder and of
 * finalize, and runs: the same per-task times as the explicit program
 * under hockney, pipelined and loggops, with noise, and makespans derived
 * by hand. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "generator_support.h"
#include "generators/data_flow.h"
#include "generators/generators.h"
#include "instruments/timeline.h"
#include "model_support.h"
#include "noise/noise.h"
#include "test_support.h"

/* ---- helpers ---- */

static fs_program *generate(const char *name, int32_t ranks, int64_t size, int symmetric) {
  fs_generator_options o = fs_test_options(ranks, size, 0, NULL);
  o.symmetric = symmetric;
  fs_error err = {{0}};
  fs_program *p = fs_generator_find(name)->generate(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  return p;
}

/* Every field, label and successor list of two explicit programs. */
static void assert_same_program(const fs_program *a, const fs_program *b) {
  ck_assert_int_eq(a->ranks, b->ranks);
  ck_assert_int_eq(a->tasks, b->tasks);
  ck_assert_int_eq(a->dependencies, b->dependencies);
  ck_assert_int_eq(a->start_dependencies, b->start_dependencies);
  ck_assert_int_eq(a->cpus, b->cpus);
  ck_assert_int_eq(a->nics, b->nics);
  ck_assert_int_eq(a->slots, b->slots);
  ck_assert_int_eq(a->label_count, b->label_count);
  for (int32_t i = 0; i < a->label_count; i++) ck_assert_str_eq(a->labels[i], b->labels[i]);
  for (int32_t t = 0; t < a->tasks; t++) {
    ck_assert_int_eq(a->kind[t], b->kind[t]);
    ck_assert_int_eq(a->flags[t], b->flags[t]);
    ck_assert_int_eq(a->rank[t], b->rank[t]);
    ck_assert_int_eq(a->peer[t], b->peer[t]);
    ck_assert_int_eq(a->value[t], b->value[t]);
    ck_assert_int_eq(a->need[t], b->need[t]);
    ck_assert_int_eq(fs_task_tag(a, t), fs_task_tag(b, t));
    ck_assert_int_eq(fs_task_label_index(a, t), fs_task_label_index(b, t));
    ck_assert_int_eq(a->successor_at[t], b->successor_at[t]);
  }
  ck_assert_int_eq(a->successor_at[a->tasks], b->successor_at[b->tasks]);
  for (int64_t i = 0; i < a->dependencies; i++) ck_assert_uint_eq(a->successor[i], b->successor[i]);
}

/* The accessors of a rank-symmetric program give what its copy holds. */
static void assert_same_accessors(const fs_program *s, const fs_program *x) {
  uint32_t buffer[FS_TEMPLATE_MAX_EDGES], n;
  for (int32_t t = 0; t < s->tasks; t++) {
    ck_assert_int_eq(fs_task_kind_of(s, t), x->kind[t]);
    ck_assert_int_eq(fs_task_flags(s, t), x->flags[t]);
    ck_assert_int_eq(fs_task_rank(s, t), x->rank[t]);
    ck_assert_int_eq(fs_task_peer(s, t), x->peer[t]);
    ck_assert_int_eq(fs_task_value(s, t), x->value[t]);
    ck_assert_int_eq(fs_task_need(s, t), x->need[t]);
    const char *a = fs_task_label(s, t), *b = fs_task_label(x, t);
    ck_assert_str_eq(a ? a : "-", b ? b : "-");
    const uint32_t *list = fs_task_successors(s, t, buffer, &n);
    ck_assert_uint_eq(n, x->successor_at[t + 1] - x->successor_at[t]);
    for (uint32_t i = 0; i < n; i++)
      ck_assert_uint_eq(list[i], x->successor[x->successor_at[t] + i]);
  }
}

/* Symmetric and explicit generation agree, through the copy and the
 * accessors. */
static void assert_generated_alike(const char *name, int32_t ranks, int64_t size) {
  fs_program *s = generate(name, ranks, size, 1), *x = generate(name, ranks, size, 0);
  ck_assert_ptr_nonnull(s->symmetric);
  ck_assert_ptr_null(x->symmetric);
  fs_error err = {{0}};
  fs_program *copy = fs_program_materialize(s, &err);
  ck_assert_msg(copy != NULL, "%s", err.message);
  assert_same_program(copy, x);
  assert_same_accessors(s, x);
  fs_program_free(copy);
  fs_program_free(s);
  fs_program_free(x);
}

/* Every task's four times of a run of p, from a timeline. */
static fs_time *run_times(const fs_program *p, const char *network, const char *parameters,
                          const char *noise, fs_time *makespan, int32_t *buffers) {
  fs_timeline *timeline = fs_timeline_new(p);
  ck_assert_ptr_nonnull(timeline);
  fs_observer observer = fs_timeline_observer(timeline);
  fs_simulation run;
  fs_test_simulate_observed(&run, p, network, "fixed", parameters, &observer);
  if (noise) { /* a second run, noisy */
    fs_error err = {{0}};
    fs_noise *spec = fs_noise_new();
    ck_assert_int_eq(fs_noise_add(spec, noise, &err), 0);
    ck_assert_int_eq(fs_noise_prepare(spec, p->ranks, &err), 0);
    ck_assert_int_eq(fs_engine_set_noise(run.engine, spec, 7, &err), 0);
    fs_timeline_reset(timeline);
    run.status = fs_engine_run(run.engine, &run.err);
    fs_engine_set_noise(run.engine, NULL, 0, &err);
    fs_noise_free(spec);
  }
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  *makespan = fs_engine_makespan(run.engine);
  if (buffers) *buffers = fs_engine_window_buffers(run.engine);
  fs_time *times = malloc((size_t)p->tasks * 4 * sizeof *times);
  ck_assert_ptr_nonnull(times);
  for (int32_t t = 0; t < p->tasks; t++) fs_timeline_task(timeline, t, times + 4 * t);
  fs_test_run_free(&run);
  fs_timeline_free(timeline);
  return times;
}

/* The same times for every task, symmetric or explicit; the makespan. */
static fs_time assert_same_run(const char *name, int32_t ranks, int64_t size, const char *network,
                               const char *parameters, const char *noise) {
  fs_program *s = generate(name, ranks, size, 1), *x = generate(name, ranks, size, 0);
  fs_time a, b;
  fs_time *ts = run_times(s, network, parameters, noise, &a, NULL);
  fs_time *tx = run_times(x, network, parameters, noise, &b, NULL);
  ck_assert_int_eq(a, b);
  ck_assert_int_eq(memcmp(ts, tx, (size_t)x->tasks * 4 * sizeof *ts), 0);
  free(ts), free(tx);
  fs_program_free(s), fs_program_free(x);
  return a;
}

/* ---- the division ---- */

/* fs_divide against '/' for every divisor up to 300 and around powers of
 * two, at the numerators where rounding errors would first show. */
START_TEST(division_exact) {
  fs_program *p = fs_program_new_symmetric(1, 1, 1);
  ck_assert_ptr_nonnull(p);
  fs_program_free(p);
  uint32_t divisors[400], count = 0;
  for (uint32_t d = 1; d <= 300; d++) divisors[count++] = d;
  for (int k = 9; k < 31; k++) {
    divisors[count++] = (uint32_t)1 << k;
    divisors[count++] = ((uint32_t)1 << k) - 1;
    divisors[count++] = ((uint32_t)1 << k) + 1;
  }
  for (uint32_t i = 0; i < count; i++) {
    uint32_t d = divisors[i], l = 0;
    while (((uint64_t)1 << l) < d) l++;
    uint64_t top = (uint64_t)1 << (31 + l);
    fs_divider div = {(top + d - 1) / d, 31 + l};
    const uint32_t n[] = {0,
                          1,
                          d - 1,
                          d,
                          d + 1,
                          0x7fffffffu,
                          0x7fffffffu - 1,
                          0x7fffffffu / d * d,
                          0x7fffffffu / d * d - 1};
    for (int j = 0; j < 9; j++)
      if (n[j] <= 0x7fffffffu) ck_assert_uint_eq(fs_divide(&div, n[j]), n[j] / d);
  }
}
END_TEST

/* ---- generators: copies equal to the explicit programs ---- */

/* allreduce-rd at powers of two: start, then per round put (to r ^ 2^(i-1))
 * and reduce; task ids b * N + r (blocks of width 1). */
START_TEST(rd_copy_equals_explicit) {
  const int32_t ranks[] = {1, 2, 4, 8, 64, 1024};
  for (int i = 0; i < 6; i++) assert_generated_alike("allreduce-rd", ranks[i], 8);
  assert_generated_alike("allreduce-rd", 16, 0);
  /* N = 6 is not a power of two: explicit */
  fs_program *p = generate("allreduce-rd", 6, 8, 1);
  ck_assert_ptr_null(p->symmetric);
  fs_program_free(p);
  /* a reduce priced by --reduce-time */
  fs_generator_options o = fs_test_options(32, 8, 0, NULL);
  o.has_reduce_time = 1, o.reduce_time = 5 * FS_NS, o.symmetric = 1;
  fs_error err = {{0}};
  fs_program *s = fs_generate_allreduce_rd(&o, &err), *copy = fs_program_materialize(s, &err);
  o.symmetric = 0;
  fs_program *x = fs_generate_allreduce_rd(&o, &err);
  assert_same_program(copy, x);
  fs_program_free(s), fs_program_free(copy), fs_program_free(x);
}
END_TEST

/* barrier-dissemination at any N: per round recv (from r - 2^k) and send
 * (to r + 2^k), mod N; task ids 2(kN + r) + j (blocks of width 2). */
START_TEST(dissemination_copy_equals_explicit) {
  const int32_t ranks[] = {2, 3, 5, 7, 8, 13, 64, 100, 1000};
  for (int i = 0; i < 9; i++) assert_generated_alike("barrier-dissemination", ranks[i], 8);
  fs_program *p = generate("barrier-dissemination", 1, 8, 1); /* no rounds: explicit, empty */
  ck_assert_ptr_null(p->symmetric);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
}
END_TEST

/* A data flow to record keeps the program explicit (the check reads it). */
START_TEST(flow_keeps_explicit) {
  fs_generator_options o = fs_test_options(8, 8, 0, NULL);
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  o.flow = &flow, o.symmetric = 1;
  fs_error err = {{0}};
  fs_program *p = fs_generate_allreduce_rd(&o, &err);
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_null(p->symmetric);
  fs_program_free(p);
  fs_data_flow_free(&flow);
}
END_TEST

/* ---- the builder ---- */

/* Task 8 + r (a proxy) depends on task r ^ 1 and task (r + 3) mod 8:
 * successors of a start u are 8 + (u ^ 1) and 8 + (u - 3 mod 8), in id
 * order, which depends on u: sorted per task. Compared with the same
 * program built explicitly, dependencies added in id order. */
START_TEST(rank_dependent_order) {
  fs_program *s = fs_program_new_symmetric(8, 1, 2);
  fs_template_at(s, 1)->kind = FS_PROXY;
  ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_XOR, 1, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_ADD, 3, FS_AFTER_END), 0);
  fs_test_finalize(s);
  ck_assert_uint_eq(s->symmetric->task[0].sort, 1);
  fs_program *x = fs_program_new(8);
  for (int32_t r = 0; r < 8; r++) fs_program_add(x, FS_START, r);
  for (int32_t r = 0; r < 8; r++) {
    int32_t t = fs_program_add(x, FS_PROXY, r);
    fs_program_depend(x, t, r ^ 1, FS_AFTER_END);
    fs_program_depend(x, t, (r + 3) % 8, FS_AFTER_END);
  }
  fs_test_finalize(x);
  fs_error err = {{0}};
  fs_program *copy = fs_program_materialize(s, &err);
  ck_assert_ptr_nonnull(copy);
  assert_same_program(copy, x);
  /* u = 0: 8 + 1 and 8 + 5; u = 6: 8 + 7 and 8 + 3, the other way round */
  uint32_t buffer[FS_TEMPLATE_MAX_EDGES], n;
  const uint32_t *list = fs_task_successors(s, 6, buffer, &n);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(list[0], 11);
  ck_assert_uint_eq(list[1], 15);
  fs_program_free(s), fs_program_free(x), fs_program_free(copy);
}
END_TEST

/* A template message of 8 bytes to or from rank r + peer (mod P). */
static fs_template_task message(fs_task_kind kind, int32_t peer, int32_t tag) {
  return (fs_template_task){.kind = (uint8_t)kind,
                            .peer_rule = FS_RULE_ADD,
                            .peer = peer,
                            .flags = FS_HAS_SIZE,
                            .value = 8,
                            .tag = tag};
}

/* Start and local edges come first, whatever order they were added in;
 * any=K is kept; labels and tags read back; ids are b*P*W + r*W + j. */
START_TEST(groups_any_and_fields) {
  fs_program *s = fs_program_new_symmetric(4, 2, 2);
  int32_t label = fs_program_intern_label(s, "x", 1);
  *fs_template_at(s, 0) = message(FS_SEND, 1, 5);
  fs_template_at(s, 0)->label = label;
  *fs_template_at(s, 1) = message(FS_RECV, 3, 5);
  fs_template_at(s, 1)->label = -1;
  fs_template_task *join = fs_template_at(s, 2);
  join->kind = FS_PROXY, join->flags = FS_HAS_ANY, join->need = 1;
  fs_template_at(s, 3)->kind = FS_PROXY;
  ck_assert_int_eq(fs_template_depend(s, 2, 0, FS_RULE_NONE, 0, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_template_depend(s, 2, 1, FS_RULE_NONE, 0, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_template_depend(s, 3, 0, FS_RULE_NONE, 0, FS_AFTER_LOCAL), 0);
  ck_assert_int_eq(fs_template_depend(s, 3, 1, FS_RULE_NONE, 0, FS_AFTER_START), 0);
  fs_test_finalize(s);
  ck_assert_int_eq(s->tasks, 16);
  ck_assert_int_eq(s->dependencies, 16);
  ck_assert_int_eq(s->start_dependencies, 4);
  /* rank 2: send 4, recv 5 (block 0); join 12, proxy 13 (block 1) */
  ck_assert_int_eq(fs_task_rank(s, 5), 2);
  ck_assert_int_eq(fs_task_peer(s, 4), 3);
  ck_assert_int_eq(fs_task_peer(s, 5), 1);
  ck_assert_int_eq(fs_task_tag(s, 5), 5);
  ck_assert_str_eq(fs_task_label(s, 4), "x");
  ck_assert_ptr_null(fs_task_label(s, 5));
  ck_assert_int_eq(fs_task_need(s, 12), 1);
  ck_assert_int_eq(fs_task_need(s, 13), 2);
  uint32_t buffer[FS_TEMPLATE_MAX_EDGES], n;
  const uint32_t *list = fs_task_successors(s, 4, buffer, &n);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(list[0], 13 | FS_EDGE_LOCAL); /* local before completion */
  ck_assert_uint_eq(list[1], 12);
  list = fs_task_successors(s, 5, buffer, &n);
  ck_assert_uint_eq(list[0], 13 | FS_EDGE_START);
  char name[24];
  ck_assert_str_eq(fs_task_name(s, 13, name), "t13");
  fs_error err = {{0}};
  fs_program *copy = fs_program_materialize(s, &err);
  ck_assert_ptr_nonnull(copy);
  assert_same_accessors(s, copy);
  ck_assert_int_eq(copy->need[12], 1);
  ck_assert_int_ne(copy->flags[12] & FS_HAS_ANY, 0);
  ck_assert_int_gt(fs_program_bytes(s), 0);
  ck_assert_int_lt(fs_program_bytes(s), 1024); /* the template only */
  fs_program_free(s), fs_program_free(copy);
}
END_TEST

/* What the builder and finalize refuse. */
START_TEST(refusals) {
  ck_assert_ptr_null(fs_program_new_symmetric(0, 1, 1));
  ck_assert_ptr_null(fs_program_new_symmetric(4, 0, 1));
  ck_assert_ptr_null(fs_program_new_symmetric(4, 1, 0));
  ck_assert_ptr_null(fs_program_new_symmetric(1 << 24, 8, 8)); /* 2^30 tasks */
  fs_program *s = fs_program_new_symmetric(6, 1, 2);
  ck_assert_ptr_null(fs_template_at(s, 2));
  ck_assert_ptr_null(fs_template_at(s, -1));
  ck_assert_int_eq(fs_program_add(s, FS_START, 0), -1); /* no explicit tasks */
  ck_assert_int_eq(fs_program_depend(s, 0, 1, 0), -1);
  ck_assert_int_eq(fs_task_set_tag(s, 0, 1), -1); /* no per-task arrays */
  ck_assert_int_eq(fs_program_reserve(s, 100, 100), -1);
  ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_XOR, 1, 0), -1); /* 6: not 2^k */
  ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_ADD, 6, 0), -1);
  ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_ADD, -1, 0), -1);
  ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_NONE, 1, 0), -1);
  ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_NONE, 0, 3), -1);
  ck_assert_int_eq(fs_template_depend(s, 2, 0, FS_RULE_NONE, 0, 0), -1);
  fs_error err = {{0}};
  fs_template_at(s, 1)->kind = FS_PUT; /* a put without a peer */
  ck_assert_int_eq(fs_program_finalize(s, &err), -1);
  ck_assert_str_eq(err.message, "template task 1: its peer rule does not fit 6 ranks");
  fs_template_at(s, 1)->peer_rule = FS_RULE_XOR, fs_template_at(s, 1)->peer = 1;
  ck_assert_int_eq(fs_program_finalize(s, &err), -1); /* xor at 6 ranks */
  fs_template_at(s, 1)->peer_rule = FS_RULE_ADD;
  fs_template_at(s, 0)->peer_rule = FS_RULE_ADD; /* a start with a peer */
  ck_assert_int_eq(fs_program_finalize(s, &err), -1);
  ck_assert_str_eq(err.message, "template task 0: its peer rule does not fit 6 ranks");
  fs_template_at(s, 0)->peer_rule = FS_RULE_NONE;
  fs_template_at(s, 1)->flags = FS_HAS_ANY, fs_template_at(s, 1)->need = 2;
  ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_NONE, 0, 0), 0);
  ck_assert_int_eq(fs_program_finalize(s, &err), -1);
  ck_assert_str_eq(err.message, "template task 1: any=2 but it has 1 dependencies");
  fs_template_at(s, 1)->need = 1;
  ck_assert_int_eq(fs_program_finalize(s, &err), 0);
  ck_assert_ptr_null(fs_template_at(s, 1)); /* finalized */
  ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_NONE, 0, 0), -1);
  fs_program_free(s);
  /* more than FS_TEMPLATE_MAX_EDGES successors of one template task */
  s = fs_program_new_symmetric(2, 1, 2);
  fs_template_at(s, 1)->kind = FS_PROXY;
  for (int i = 0; i <= FS_TEMPLATE_MAX_EDGES; i++)
    ck_assert_int_eq(fs_template_depend(s, 1, 0, FS_RULE_NONE, 0, 0), 0);
  ck_assert_int_eq(fs_program_finalize(s, &err), -1);
  ck_assert_str_eq(err.message, "template task 0: more than 64 successors");
  fs_program_free(s);
}
END_TEST

/* ---- runs ---- */

/* allreduce-rd at N = 2^k under hockney (alpha 1 us, beta 1 ns/B, the
 * reduce free): k rounds of a put, alpha + 64 beta = 1064 ns each (thesis
 * eq. 5.2 without gamma); every task's times equal the explicit run's. */
START_TEST(rd_runs_alike) {
  for (int k = 0; k <= 10; k += 2)
    ck_assert_int_eq(assert_same_run("allreduce-rd", 1 << k, 64, "hockney", "alpha=1us beta=1ns",
                                     NULL),
                     k * 1064 * FS_NS);
  assert_same_run("allreduce-rd", 256, 8, "pipelined", "", NULL);
  assert_same_run("allreduce-rd", 256, 1 << 20, "pipelined", "", NULL);
  assert_same_run("allreduce-rd", 64, 8, "loggops", "", NULL);
  assert_same_run("allreduce-rd", 64, 8, "pipelined", "", "net=lognormal:sigma=0.2");
}
END_TEST

/* barrier-dissemination under loggops, L = 1 us, o = 100 ns, g = 50 ns,
 * 0 bytes: each round every rank posts its recv, sends (o), the message
 * lands L later and takes the receiver's CPU for o: 2o + L = 1200 ns a
 * round, ceil(log2 N) rounds (the gap g < 2o + L never binds). */
START_TEST(dissemination_runs_alike) {
  const int32_t ranks[] = {2, 3, 5, 8, 13, 100, 1000};
  const int rounds[] = {1, 2, 3, 3, 4, 7, 10};
  for (int i = 0; i < 7; i++)
    ck_assert_int_eq(assert_same_run("barrier-dissemination", ranks[i], 0, "loggops",
                                     "L=1us o=100ns g=50ns G=0 O=0", NULL),
                     rounds[i] * 1200 * FS_NS);
  assert_same_run("barrier-dissemination", 100, 8, "loggops", "", NULL);
  assert_same_run("barrier-dissemination", 100, 100000, "loggops", "S=1000", NULL);
  assert_same_run("barrier-dissemination", 77, 8, "loggops", "", "net=lognormal:sigma=0.2");
  assert_same_run("barrier-dissemination", 64, 8, "hockney", "", NULL);
}
END_TEST

/* ---- the window: a block's state only while it is live ---- */

/* A run of rank-symmetric s and of its explicit copy: the same times for
 * every task; the block buffers the symmetric run held (the explicit one
 * holds none). */
static int32_t assert_window_alike(const fs_program *s, const char *network, const char *parameters,
                                   const char *noise) {
  fs_error err = {{0}};
  fs_program *x = fs_program_materialize(s, &err);
  ck_assert_msg(x != NULL, "%s", err.message);
  fs_time a, b;
  int32_t buffers, none;
  fs_time *ts = run_times(s, network, parameters, noise, &a, &buffers);
  fs_time *tx = run_times(x, network, parameters, noise, &b, &none);
  ck_assert_int_eq(a, b);
  ck_assert_int_eq(memcmp(ts, tx, (size_t)x->tasks * 4 * sizeof *ts), 0);
  ck_assert_int_eq(none, 0);
  ck_assert_int_ge(buffers, 1);
  ck_assert_int_le(buffers, s->symmetric->blocks);
  free(ts), free(tx);
  fs_program_free(x);
  return buffers;
}

/* In lock step two blocks are live at once. The barrier's block k is
 * round k (recv, send of every rank): round k + 1 goes live when a task
 * of round k first completes, and round k dies when its last
 * message settles, at the end of round k, before any task of round k + 2
 * is released (it needs a round k + 1 completion). allreduce-rd's blocks
 * are the start, then each round's put and its reduce: the reduce goes
 * live at its put's first local end, the next put at the reduce's first
 * completion, each block dying when its last task completes, before its
 * successor's successor can be released. Under noise the ranks drift
 * apart (a rank runs round k + 2 while a far one still waits in round k):
 * more blocks live at once, the same times as the explicit copy. */
START_TEST(window_lock_step_and_noise) {
  const char *noise = "net=lognormal:sigma=1";
  fs_program *barrier = generate("barrier-dissemination", 64, 8, 1);
  fs_program *rd = generate("allreduce-rd", 64, 8, 1);
  ck_assert_int_eq(assert_window_alike(barrier, "loggops", "", NULL), 2);
  ck_assert_int_eq(assert_window_alike(barrier, "loggops", "S=4", NULL), 2); /* rendezvous */
  ck_assert_int_eq(assert_window_alike(rd, "pipelined", "", NULL), 2);
  ck_assert_int_eq(assert_window_alike(rd, "loggops", "", NULL), 2);
  ck_assert_int_gt(assert_window_alike(barrier, "loggops", "", noise), 2);
  ck_assert_int_gt(assert_window_alike(barrier, "loggops", "S=4", noise), 2);
  ck_assert_int_gt(assert_window_alike(rd, "pipelined", "", noise), 2);
  fs_program_free(barrier), fs_program_free(rd);
  fs_program *odd = generate("barrier-dissemination", 13, 8, 1); /* 4 rounds, P not 2^k */
  assert_window_alike(odd, "loggops", "", NULL);
  assert_window_alike(odd, "hockney", "", noise);
  fs_program_free(odd);
}
END_TEST

/* An any=1 join released by its two dependencies, the second of them after
 * the join's block died (its release reads a dead task: no effect, as an
 * explicit run's count going below 0 has none). Block 0: a send to r + 1
 * (8 B, eager) and a recv from r + 3; block 1: the join (any=1 of both)
 * and a proxy after the join. Under loggops the send completes at o, the
 * recv at o + L + o: block 1 runs and dies in between. */
START_TEST(window_late_release) {
  fs_program *s = fs_program_new_symmetric(4, 2, 2);
  *fs_template_at(s, 0) = message(FS_SEND, 1, 0);
  *fs_template_at(s, 1) = message(FS_RECV, 3, 0);
  fs_template_task *join = fs_template_at(s, 2);
  join->kind = FS_PROXY, join->flags = FS_HAS_ANY, join->need = 1;
  fs_template_at(s, 3)->kind = FS_PROXY;
  for (int32_t on = 0; on < 2; on++)
    ck_assert_int_eq(fs_template_depend(s, 2, on, FS_RULE_NONE, 0, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_template_depend(s, 3, 2, FS_RULE_NONE, 0, FS_AFTER_END), 0);
  fs_test_finalize(s);
  assert_window_alike(s, "loggops", "", NULL);
  assert_window_alike(s, "loggops", "o=0 L=0 g=0", NULL);
  assert_window_alike(s, "hockney", "", "net=lognormal:sigma=1");
  fs_program_free(s);
}
END_TEST

/* A deadlock: every recv waits for tag 2, every send carries tag 1.
 * Block 0: send to r + 1, recv from r + 3; block 1: a proxy after the
 * send, one after the recv; block 2: two proxies after the latter (a
 * block no completion ever touches). The stuck tasks (the recvs' proxies,
 * 4, and block 2, 8), the unmatched (4 recvs, 4 messages) and every
 * task's remaining count are the explicit copy's. */
START_TEST(window_deadlock) {
  fs_program *s = fs_program_new_symmetric(4, 2, 3);
  *fs_template_at(s, 0) = message(FS_SEND, 1, 1);
  *fs_template_at(s, 1) = message(FS_RECV, 3, 2);
  for (int32_t k = 2; k < 6; k++) fs_template_at(s, k)->kind = FS_PROXY;
  ck_assert_int_eq(fs_template_depend(s, 2, 0, FS_RULE_NONE, 0, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_template_depend(s, 3, 1, FS_RULE_NONE, 0, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_template_depend(s, 4, 3, FS_RULE_NONE, 0, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_template_depend(s, 5, 3, FS_RULE_NONE, 0, FS_AFTER_END), 0);
  fs_test_finalize(s);
  fs_error err = {{0}};
  fs_program *x = fs_program_materialize(s, &err);
  ck_assert_ptr_nonnull(x);
  fs_simulation a, b;
  fs_test_simulate(&a, s, "loggops", "fixed", "");
  fs_test_simulate(&b, x, "loggops", "fixed", "");
  ck_assert_int_eq(a.status, FS_RUN_DEADLOCK);
  ck_assert_int_eq(b.status, FS_RUN_DEADLOCK);
  ck_assert_str_eq(a.err.message, b.err.message);
  ck_assert_int_eq(fs_engine_stuck_tasks(a.engine), 12);
  ck_assert_int_eq(fs_engine_stuck_tasks(b.engine), 12);
  ck_assert_int_eq(fs_engine_unmatched(a.engine), 8);
  ck_assert_int_eq(fs_engine_unmatched(b.engine), 8);
  for (int32_t t = 0; t < s->tasks; t++)
    ck_assert_int_eq(fs_engine_remaining(a.engine, t), fs_engine_remaining(b.engine, t));
  fs_test_run_free(&a), fs_test_run_free(&b);
  fs_program_free(s), fs_program_free(x);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("symmetric");
  TCase *build = tcase_create("build");
  tcase_add_test(build, division_exact);
  tcase_add_test(build, rd_copy_equals_explicit);
  tcase_add_test(build, dissemination_copy_equals_explicit);
  tcase_add_test(build, flow_keeps_explicit);
  tcase_add_test(build, rank_dependent_order);
  tcase_add_test(build, groups_any_and_fields);
  tcase_add_test(build, refusals);
  suite_add_tcase(s, build);
  TCase *runs = tcase_create("runs");
  tcase_add_test(runs, rd_runs_alike);
  tcase_add_test(runs, dissemination_runs_alike);
  tcase_add_test(runs, window_lock_step_and_noise);
  tcase_add_test(runs, window_late_release);
  tcase_add_test(runs, window_deadlock);
  suite_add_tcase(s, runs);
  return s;
}

int main(void) { return fs_test_run(suite()); }
