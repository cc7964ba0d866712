/* test_generators.c: the schedules of `fennelsim gen` that predate the
 * collective library (pingpong ... alltoall-pairwise, allreduce-rm's
 * structure): exact structure (counts, peers, edges, labels, issue order),
 * option errors and --root, the data-flow proof of src/generators/data_flow_check.c
 * at N = 1..64 and large N, and makespans under hockney against closed
 * forms (thesis eq. 5.3 and derivations written beside each test). The
 * two-sided schedgen patterns are compared op for op with a literal
 * transcription of schedgen's loops, the MPI ones with MPICH's and Open
 * MPI's. */
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

/* ---- helpers ---------------------------------------------------------- */

static void set_factors(fs_generator_options *o, const int32_t *factors, int count) {
  memcpy(o->factors, factors, (size_t)count * sizeof *factors);
  o->factor_count = count;
}

static int count_kind(const fs_program *p, fs_task_kind kind) {
  int n = 0;
  for (int32_t t = 0; t < p->tasks; t++) n += p->kind[t] == kind;
  return n;
}

static int count_labelled(const fs_program *p, fs_task_kind kind, const char *label) {
  int n = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    const char *l = fs_task_label(p, t);
    n += p->kind[t] == kind && l && strcmp(l, label) == 0;
  }
  return n;
}

/* The nth (0-based) task of this kind on this rank with this label, or -1. */
static int32_t find_task(const fs_program *p, fs_task_kind kind, int32_t rank, const char *label,
                         int nth) {
  for (int32_t t = 0; t < p->tasks; t++) {
    const char *l = fs_task_label(p, t);
    if (p->kind[t] == kind && p->rank[t] == rank && l && strcmp(l, label) == 0 && nth-- == 0)
      return t;
  }
  return -1;
}

/* Dependencies of t in the order of their source task: from[i], local[i]. */
typedef struct dependency_list {
  int count;
  int32_t from[16];
  int local[16];
} dependency_list;

static dependency_list dependencies_of(const fs_program *p, int32_t t) {
  dependency_list d = {0, {0}, {0}};
  for (int32_t s = 0; s < p->tasks; s++)
    for (int64_t e = p->successor_at[s]; e < p->successor_at[s + 1]; e++)
      if (FS_EDGE_TASK(p->successor[e]) == t) {
        ck_assert_int_lt(d.count, 16);
        d.from[d.count] = s;
        d.local[d.count++] = (p->successor[e] & FS_EDGE_LOCAL) != 0;
      }
  ck_assert_int_eq(d.count, p->need[t]);
  return d;
}

static int depends_on(const fs_program *p, int32_t t, int32_t on, int local) {
  dependency_list d = dependencies_of(p, t);
  for (int i = 0; i < d.count; i++)
    if (d.from[i] == on && d.local[i] == local) return 1;
  return 0;
}

/* The data-flow proof (src/generators/data_flow_check.c) of name with options o. */
static void assert_flow_options(const char *name, const fs_generator_options *o) {
  char why[512];
  const char *failure = fs_check_generator_flow(name, o, why, sizeof why);
  ck_assert_msg(failure == NULL, "%s", failure);
}

/* ---- registry ---------------------------------------------------------- */

START_TEST(registry) {
  int count = 0;
  const fs_generator *all = fs_generator_list(&count);
  ck_assert_int_ge(count, 38);
  ck_assert_str_eq(all[0].name, "pingpong");
  ck_assert_str_eq(all[1].name, "multicast");
  /* then grouped by collective, in this order */
  const char *const collectives[] = {"bcast-",          "scatter-",   "gather-",
                                     "reduce-",         "allreduce-", "allgather-",
                                     "reduce-scatter-", "alltoall-",  "barrier-"};
  int group = 0, selectors = 0;
  for (int i = 0; i < count; i++) {
    ck_assert_ptr_eq(fs_generator_find(all[i].name), &all[i]);
    ck_assert(all[i].summary && strlen(all[i].summary) > 10 && !strchr(all[i].summary, '\n'));
    ck_assert(all[i].generate != NULL);
    if (i < 2 || (all[i].traits & FS_GEN_FILE)) continue; /* msccl: test_msccl */
    /* the MPI libraries' selectors come last (test_mpi_selection) */
    selectors += (all[i].traits & FS_GEN_SELECTOR) != 0;
    if (selectors) {
      ck_assert_msg(all[i].traits & FS_GEN_SELECTOR, "%s after the selectors", all[i].name);
      continue;
    }
    while (group < 9 && strncmp(all[i].name, collectives[group], strlen(collectives[group])))
      group++;
    ck_assert_msg(group < 9, "%s is out of its collective's group", all[i].name);
    /* --root exactly for the rooted collectives */
    int rooted = group <= 3 && strcmp(all[i].name, "allreduce-smp") != 0;
    ck_assert_msg(((all[i].options & FS_GEN_ROOT) != 0) == rooted, "%s", all[i].name);
  }
  ck_assert_ptr_null(fs_generator_find("allreduce"));
  ck_assert_ptr_null(fs_generator_find(""));
}
END_TEST

/* ---- pingpong ---------------------------------------------------------- */

START_TEST(pingpong_structure) {
  fs_generator_options o = fs_test_options(2, 64, 0, NULL);
  o.rounds = 3;
  fs_program *p = fs_test_generate("pingpong", &o);
  ck_assert_int_eq(p->ranks, 2);
  ck_assert_int_eq(p->tasks, 8);
  ck_assert_int_eq(p->dependencies, 7);
  ck_assert_int_eq(count_kind(p, FS_START), 2);
  ck_assert_int_eq(count_kind(p, FS_PUT), 6);
  ck_assert_int_eq(count_labelled(p, FS_PUT, "ping"), 3);
  ck_assert_int_eq(count_labelled(p, FS_PUT, "pong"), 3);
  int32_t s0 = find_task(p, FS_START, 0, "start", 0), s1 = find_task(p, FS_START, 1, "start", 0);
  ck_assert(s0 >= 0 && s1 >= 0);
  int32_t previous_pong = -1;
  for (int r = 0; r < 3; r++) {
    int32_t ping = find_task(p, FS_PUT, 0, "ping", r), pong = find_task(p, FS_PUT, 1, "pong", r);
    ck_assert(ping > previous_pong && pong > ping); /* issued round by round */
    ck_assert_int_eq(p->peer[ping], 1);
    ck_assert_int_eq(p->peer[pong], 0);
    ck_assert_int_eq(p->value[ping], 64);
    ck_assert(p->flags[ping] & FS_HAS_SIZE);
    ck_assert_int_eq(p->need[ping], 1);
    ck_assert(depends_on(p, ping, r == 0 ? s0 : previous_pong, 0));
    ck_assert_int_eq(p->need[pong], r == 0 ? 2 : 1);
    ck_assert(depends_on(p, pong, ping, 0));
    if (r == 0) ck_assert(depends_on(p, pong, s1, 0));
    previous_pong = pong;
  }
  fs_program_free(p);
}
END_TEST

START_TEST(pingpong_errors) {
  fs_error err;
  fs_generator_options o = fs_test_options(3, 8, 0, NULL);
  ck_assert(strstr(fs_test_generate_error("pingpong", &o, &err), "exactly 2 ranks"));
  o = fs_test_options(2, 8, 0, NULL);
  o.rounds = 0;
  ck_assert(strstr(fs_test_generate_error("pingpong", &o, &err), "--rounds"));
  o.rounds = INT32_MAX; /* 2^32 tasks: refused before allocating */
  ck_assert(strstr(fs_test_generate_error("pingpong", &o, &err), "more than"));
}
END_TEST

/* ---- multicast --------------------------------------------------------- */

START_TEST(multicast_structure) {
  fs_program *p =
      fs_test_generate("multicast", &(fs_generator_options){.ranks = 5, .size = 1000, .rounds = 1});
  ck_assert_int_eq(p->tasks, 9);
  ck_assert_int_eq(p->dependencies, 4);
  ck_assert_int_eq(count_kind(p, FS_START), 5);
  ck_assert_int_eq(count_labelled(p, FS_PUT, "multicast"), 4);
  int32_t s0 = find_task(p, FS_START, 0, "start", 0), previous = -1;
  for (int32_t to = 1; to <= 4; to++) {
    int32_t put = find_task(p, FS_PUT, 0, "multicast", to - 1);
    ck_assert(put > previous); /* issued to 1, 2, 3, 4 in that order */
    ck_assert_int_eq(p->peer[put], to);
    ck_assert_int_eq(p->value[put], 1000);
    ck_assert_int_eq(p->need[put], 1);
    ck_assert(depends_on(p, put, s0, 0));
    previous = put;
  }
  fs_program_free(p);
  p = fs_test_generate("multicast", &(fs_generator_options){.ranks = 1, .rounds = 1});
  ck_assert_int_eq(p->tasks, 1);
  fs_program_free(p);
}
END_TEST

/* ---- allreduce-rd -------------------------------------------------------- */

/* Counts of MPICH recursive doubling at n ranks. */
typedef struct rd_counts {
  int pof2, rem, rounds;
} rd_counts;

static rd_counts rd_counts_of(int n) {
  rd_counts c = {1, 0, 0};
  while (c.pof2 * 2 <= n) c.pof2 *= 2, c.rounds++;
  c.rem = n - c.pof2;
  return c;
}

START_TEST(rd_power_of_two_edges) {
  fs_program *p =
      fs_test_generate("allreduce-rd", &(fs_generator_options){.ranks = 8, .size = 8, .rounds = 1});
  ck_assert_int_eq(p->tasks, 8 + 2 * 3 * 8);
  ck_assert_int_eq(p->dependencies, 3 * 3 * 8);
  ck_assert_int_eq(count_kind(p, FS_START), 8);
  ck_assert_int_eq(count_kind(p, FS_PUT), 24);
  ck_assert_int_eq(count_kind(p, FS_COMPUTE), 24);
  for (int32_t rank = 0; rank < 8; rank++) {
    int32_t value = find_task(p, FS_START, rank, "start", 0);
    for (int r = 1; r <= 3; r++) {
      char label[24];
      snprintf(label, sizeof label, "round%d", r);
      int32_t partner = rank ^ (1 << (r - 1));
      int32_t put = find_task(p, FS_PUT, rank, label, 0),
              reduce = find_task(p, FS_COMPUTE, rank, label, 0);
      int32_t partner_put = find_task(p, FS_PUT, partner, label, 0);
      ck_assert(put >= 0 && reduce > put && find_task(p, FS_PUT, rank, label, 1) < 0);
      ck_assert_int_eq(p->peer[put], partner);
      ck_assert_int_eq(p->need[put], 1);
      ck_assert(depends_on(p, put, value, 0));
      ck_assert_int_eq(p->need[reduce], 2); /* minimal: own buffer free, partner's data */
      ck_assert(depends_on(p, reduce, put, 1));
      ck_assert(depends_on(p, reduce, partner_put, 0));
      value = reduce;
    }
  }
  fs_program_free(p);
}
END_TEST

/* 6 ranks: pof2 4, rem 2; 0 and 2 collapse into 1 and 3; active ranks
 * 1, 3, 4, 5 (new ranks 0..3) pair as 1-3, 4-5, then 1-4, 3-5. */
START_TEST(rd_collapse_expand_edges) {
  fs_program *p =
      fs_test_generate("allreduce-rd", &(fs_generator_options){.ranks = 6, .size = 8, .rounds = 1});
  ck_assert_int_eq(p->tasks, 6 + 3 * 2 + 2 * 2 * 4);
  ck_assert_int_eq(p->dependencies, 4 * 2 + 3 * 2 * 4);
  ck_assert_int_eq(count_labelled(p, FS_PUT, "collapse"), 2);
  ck_assert_int_eq(count_labelled(p, FS_COMPUTE, "collapse"), 2);
  ck_assert_int_eq(count_labelled(p, FS_PUT, "round1"), 4);
  ck_assert_int_eq(count_labelled(p, FS_COMPUTE, "round2"), 4);
  ck_assert_int_eq(count_labelled(p, FS_PUT, "expand"), 2);
  ck_assert_int_eq(count_labelled(p, FS_COMPUTE, "expand"), 0);
  const int32_t partner[2][6] = {{-1, 3, -1, 1, 5, 4}, {-1, 4, -1, 5, 1, 3}};
  for (int32_t even = 0; even < 4; even += 2) {
    int32_t odd = even + 1;
    int32_t put = find_task(p, FS_PUT, even, "collapse", 0),
            reduce = find_task(p, FS_COMPUTE, odd, "collapse", 0);
    ck_assert_int_eq(p->peer[put], odd);
    ck_assert(depends_on(p, put, find_task(p, FS_START, even, "start", 0), 0));
    ck_assert_int_eq(p->need[reduce], 2);
    ck_assert(depends_on(p, reduce, find_task(p, FS_START, odd, "start", 0), 0));
    ck_assert(depends_on(p, reduce, put, 0));
    ck_assert_int_lt(find_task(p, FS_PUT, even, "round1", 0), 0); /* even ranks sit out */
    int32_t back = find_task(p, FS_PUT, odd, "expand", 0);
    ck_assert_int_eq(p->peer[back], even);
    ck_assert_int_eq(p->need[back], 1);
    ck_assert(depends_on(p, back, find_task(p, FS_COMPUTE, odd, "round2", 0), 0));
  }
  for (int r = 0; r < 2; r++)
    for (int32_t rank = 1; rank < 6; rank++) {
      if (partner[r][rank] < 0) continue;
      const char *label = r == 0 ? "round1" : "round2";
      int32_t put = find_task(p, FS_PUT, rank, label, 0),
              reduce = find_task(p, FS_COMPUTE, rank, label, 0);
      ck_assert_int_eq(p->peer[put], partner[r][rank]);
      ck_assert(depends_on(p, reduce, find_task(p, FS_PUT, partner[r][rank], label, 0), 0));
      int32_t before = r == 1     ? find_task(p, FS_COMPUTE, rank, "round1", 0)
                       : rank < 4 ? find_task(p, FS_COMPUTE, rank, "collapse", 0)
                                  : find_task(p, FS_START, rank, "start", 0);
      ck_assert(depends_on(p, put, before, 0));
    }
  fs_program_free(p);
}
END_TEST

START_TEST(rd_counts_case) { /* looped over n = 1..64; data flow: flow_small */
  int n = _i;
  rd_counts c = rd_counts_of(n);
  fs_program *p =
      fs_test_generate("allreduce-rd", &(fs_generator_options){.ranks = n, .size = 8, .rounds = 1});
  ck_assert_int_eq(p->tasks, n + 3 * c.rem + 2 * c.rounds * c.pof2);
  ck_assert_int_eq(p->dependencies, 4 * c.rem + 3 * c.rounds * c.pof2);
  ck_assert_int_eq(count_kind(p, FS_START), n);
  ck_assert_int_eq(count_kind(p, FS_PUT), 2 * c.rem + c.rounds * c.pof2);
  ck_assert_int_eq(count_kind(p, FS_COMPUTE), c.rem + c.rounds * c.pof2);
  ck_assert_int_eq(count_labelled(p, FS_PUT, "expand"), c.rem);
  for (int r = 1; r <= c.rounds; r++) {
    char label[24];
    snprintf(label, sizeof label, "round%d", r);
    ck_assert_int_eq(count_labelled(p, FS_PUT, label), c.pof2);
  }
  fs_program_free(p);
}
END_TEST

START_TEST(rd_one_rank) {
  fs_program *p =
      fs_test_generate("allreduce-rd", &(fs_generator_options){.ranks = 1, .size = 8, .rounds = 1});
  ck_assert_int_eq(p->tasks, 1);
  ck_assert_int_eq(p->kind[0], FS_START);
  ck_assert_int_eq(p->dependencies, 0);
  fs_program_free(p);
}
END_TEST

/* ---- allreduce-rm -------------------------------------------------------- */

/* Fennel thesis Fig. 5.25: 6 ranks, (3,2): 6 starts, 18 puts, 12 reduces. */
START_TEST(rm_six_ranks_figure) {
  fs_generator_options o = fs_test_options(6, 8, 0, NULL);
  set_factors(&o, (const int32_t[]){3, 2}, 2);
  fs_program *p = fs_test_generate("allreduce-rm", &o);
  ck_assert_int_eq(count_kind(p, FS_START), 6);
  ck_assert_int_eq(count_kind(p, FS_PUT), 18);
  ck_assert_int_eq(count_kind(p, FS_COMPUTE), 12);
  ck_assert_int_eq(p->tasks, 36);
  ck_assert_int_eq(p->dependencies, 3 * 6 * 3);
  for (int32_t w = 0; w < 6; w++) {
    int32_t block = w / 3 * 3, start = find_task(p, FS_START, w, "start", 0);
    int32_t first = find_task(p, FS_PUT, w, "stage1", 0),
            second = find_task(p, FS_PUT, w, "stage1", 1);
    ck_assert(second > first); /* the staggered order: +1 then +2 */
    ck_assert_int_eq(p->peer[first], block + (w + 1) % 3);
    ck_assert_int_eq(p->peer[second], block + (w + 2) % 3);
    ck_assert(depends_on(p, first, start, 0) && depends_on(p, second, start, 0));
    int32_t reduce1 = find_task(p, FS_COMPUTE, w, "stage1", 0);
    ck_assert_int_eq(p->need[reduce1], 4);
    ck_assert(depends_on(p, reduce1, first, 1) && depends_on(p, reduce1, second, 1));
    ck_assert(depends_on(p, reduce1, find_task(p, FS_PUT, block + (w + 2) % 3, "stage1", 0), 0));
    ck_assert(depends_on(p, reduce1, find_task(p, FS_PUT, block + (w + 1) % 3, "stage1", 1), 0));
    int32_t across = find_task(p, FS_PUT, w, "stage2", 0),
            reduce2 = find_task(p, FS_COMPUTE, w, "stage2", 0);
    ck_assert_int_eq(p->peer[across], (w + 3) % 6);
    ck_assert_int_eq(p->need[across], 1);
    ck_assert(depends_on(p, across, reduce1, 0));
    ck_assert_int_eq(p->need[reduce2], 2);
    ck_assert(depends_on(p, reduce2, across, 1));
    ck_assert(depends_on(p, reduce2, find_task(p, FS_PUT, (w + 3) % 6, "stage2", 0), 0));
  }
  assert_flow_options("allreduce-rm", &o);
  fs_program_free(p);
}
END_TEST

static const struct {
  int count;
  int32_t factors[4];
} factorizations[] = {
    {2, {4, 2}}, {2, {2, 4}},       {2, {3, 2}}, {3, {5, 3, 2}},
    {2, {8, 8}}, {4, {2, 2, 2, 2}}, {1, {7}},    {3, {2, 3, 2}},
};

START_TEST(rm_counts_and_flow) { /* looped over factorizations */
  int count = factorizations[_i].count, n = 1;
  const int32_t *k = factorizations[_i].factors;
  for (int i = 0; i < count; i++) n *= k[i];
  fs_generator_options o = fs_test_options(n, 8, 0, NULL);
  set_factors(&o, k, count);
  fs_program *p = fs_test_generate("allreduce-rm", &o);
  int messages = 0, sum = 0;
  for (int i = 0; i < count; i++) {
    char label[24];
    snprintf(label, sizeof label, "stage%d", i + 1);
    ck_assert_int_eq(count_labelled(p, FS_PUT, label), n * (k[i] - 1)); /* thesis eq. 5.12 */
    ck_assert_int_eq(count_labelled(p, FS_COMPUTE, label), n);
    messages += n * (k[i] - 1), sum += k[i];
    int32_t mask = 1;
    for (int j = 0; j < i; j++) mask *= k[j];
    for (int32_t w = 0; w < n; w++) {
      int32_t block = w / (k[i] * mask) * (k[i] * mask);
      for (int idx = 0; idx < k[i] - 1; idx++) {
        int32_t put = find_task(p, FS_PUT, w, label, idx);
        ck_assert_int_eq(p->peer[put], block + (w + (idx + 1) * mask) % (k[i] * mask));
      }
      ck_assert_int_eq(p->need[find_task(p, FS_COMPUTE, w, label, 0)], 2 * (k[i] - 1));
    }
  }
  ck_assert_int_eq(count_kind(p, FS_PUT), messages);
  ck_assert_int_eq(p->tasks, n * (1 + sum));
  ck_assert_int_eq(p->dependencies, 3 * messages);
  assert_flow_options("allreduce-rm", &o);
  fs_program_free(p);
}
END_TEST

/* Factors all 2 are recursive doubling: the same DAG, task for task. */
START_TEST(rm_twos_equal_rd) {
  fs_generator_options o = fs_test_options(8, 32, 0, NULL);
  set_factors(&o, (const int32_t[]){2, 2, 2}, 3);
  fs_program *rm = fs_test_generate("allreduce-rm", &o), *rd = fs_test_generate("allreduce-rd", &o);
  ck_assert_int_eq(rm->tasks, rd->tasks);
  ck_assert_int_eq(rm->dependencies, rd->dependencies);
  size_t n = (size_t)rm->tasks;
  ck_assert(memcmp(rm->kind, rd->kind, n) == 0 && memcmp(rm->flags, rd->flags, n) == 0);
  ck_assert(memcmp(rm->rank, rd->rank, 4 * n) == 0 && memcmp(rm->peer, rd->peer, 4 * n) == 0);
  ck_assert(memcmp(rm->value, rd->value, 8 * n) == 0 && memcmp(rm->need, rd->need, 4 * n) == 0);
  ck_assert(memcmp(rm->successor_at, rd->successor_at, sizeof *rm->successor_at * (n + 1)) == 0);
  ck_assert(memcmp(rm->successor, rd->successor, 4 * (size_t)rm->dependencies) == 0);
  fs_program_free(rm);
  fs_program_free(rd);
}
END_TEST

START_TEST(rm_errors) {
  fs_error err;
  fs_generator_options o = fs_test_options(6, 8, 0, NULL);
  ck_assert(strstr(fs_test_generate_error("allreduce-rm", &o, &err), "--factors"));
  set_factors(&o, (const int32_t[]){4, 2}, 2);
  ck_assert(strstr(fs_test_generate_error("allreduce-rm", &o, &err), "more than --ranks 6"));
  set_factors(&o, (const int32_t[]){2, 2}, 2);
  ck_assert(
      strstr(fs_test_generate_error("allreduce-rm", &o, &err), "multiply to 4, not --ranks 6"));
  set_factors(&o, (const int32_t[]){6, 1}, 2);
  ck_assert(strstr(fs_test_generate_error("allreduce-rm", &o, &err), "at least 2"));
  o.factor_count = 65;
  ck_assert(strstr(fs_test_generate_error("allreduce-rm", &o, &err), "at most 64"));
  o = fs_test_options(1, 8, 0, NULL); /* one rank needs no factor */
  fs_program *p = fs_test_generate("allreduce-rm", &o);
  ck_assert_int_eq(p->tasks, 1);
  fs_program_free(p);
}
END_TEST

/* ---- two-sided generators: helpers ---------------------------------------- */

/* Predecessors of every task, sorted by predecessor id, each with its
 * FS_EDGE_* bits. */
typedef struct predecessor_lists {
  int64_t *at;
  uint32_t *from;
} predecessor_lists;

static predecessor_lists predecessors_of(const fs_program *p) {
  predecessor_lists pl = {calloc((size_t)p->tasks + 2, 8), malloc((size_t)p->dependencies * 4 + 4)};
  for (int64_t e = 0; e < p->dependencies; e++) pl.at[FS_EDGE_TASK(p->successor[e]) + 2]++;
  for (int32_t t = 2; t < p->tasks + 2; t++) pl.at[t] += pl.at[t - 1];
  for (int32_t s = 0; s < p->tasks; s++)
    for (int64_t e = p->successor_at[s]; e < p->successor_at[s + 1]; e++) {
      uint32_t edge = p->successor[e];
      pl.from[pl.at[FS_EDGE_TASK(edge) + 1]++] = (uint32_t)s | (edge & ~0x3fffffffu);
    }
  return pl;
}

static void free_predecessors(predecessor_lists *pl) {
  free(pl->at);
  free(pl->from);
}

/* A rank's ops as schedgen writes them: 's' (send) or 'r' (recv), peer,
 * size, and the 1-based positions in the rank of the ops it requires. */
typedef struct expected_op {
  char kind;
  int32_t peer;
  int64_t size;
  int deps;
  int dep[8];
} expected_op;

typedef struct expected_rank {
  int count;
  expected_op op[80];
} expected_rank;

static int add_op(expected_rank *e, char kind, int32_t peer, int64_t size) {
  ck_assert_int_lt(e->count, 80);
  e->op[e->count] = (expected_op){kind, peer, size, 0, {0}};
  return ++e->count;
}

/* op `tail` requires op `head` (1-based); a repeated requires is dropped
 * (schedgen writes some twice), the list kept sorted. */
static void add_requires(expected_rank *e, int tail, int head) {
  expected_op *op = &e->op[tail - 1];
  int at = 0;
  while (at < op->deps && op->dep[at] < head) at++;
  if (at < op->deps && op->dep[at] == head) return;
  ck_assert_int_lt(op->deps, 8);
  memmove(op->dep + at + 1, op->dep + at, (size_t)(op->deps - at) * sizeof op->dep[0]);
  op->dep[at] = head;
  op->deps++;
}

/* Stably reorders the ops so that each follows those it requires (schedgen
 * writes binomialtreereduce's send before the recvs it requires). */
static void sort_by_requirements(expected_rank *e) {
  expected_rank sorted = {0, {{0}}};
  int position[80] = {0}; /* old 1-based position -> new, 0 while unplaced */
  while (sorted.count < e->count)
    for (int i = 0; i < e->count; i++) {
      int ready = !position[i];
      for (int d = 0; d < e->op[i].deps && ready; d++) ready = position[e->op[i].dep[d] - 1] != 0;
      if (!ready) continue;
      sorted.op[sorted.count] = e->op[i];
      position[i] = ++sorted.count;
      break;
    }
  for (int i = 0; i < sorted.count; i++) {
    expected_op op = sorted.op[i];
    sorted.op[i].deps = 0;
    for (int d = 0; d < op.deps; d++) {
      sorted.op[i].dep[sorted.op[i].deps++] = position[op.dep[d] - 1];
    }
    for (int a = 1; a < sorted.op[i].deps; a++) /* keep sorted */
      for (int b = a; b > 0 && sorted.op[i].dep[b - 1] > sorted.op[i].dep[b]; b--) {
        int swap = sorted.op[i].dep[b];
        sorted.op[i].dep[b] = sorted.op[i].dep[b - 1], sorted.op[i].dep[b - 1] = swap;
      }
  }
  *e = sorted;
}

/* "s3/1024<1,2 r0/8": ops in order, size, requirements. */
static void render(const expected_rank *e, char *text, size_t size) {
  size_t n = 0;
  text[0] = 0;
  for (int i = 0; i < e->count; i++) {
    const expected_op *op = &e->op[i];
    n += (size_t)snprintf(text + n, size - n, "%s%c%d/%lld", i ? " " : "", op->kind, op->peer,
                          (long long)op->size);
    for (int d = 0; d < op->deps; d++)
      n += (size_t)snprintf(text + n, size - n, "%c%d", d ? ',' : '<', op->dep[d]);
    ck_assert_int_lt(n, size);
  }
}

/* The rank's tasks as expected_rank, checking what every two-sided task
 * must be: send or recv with a size, tag 0, CPU and NIC 0, no any=, and
 * dependencies only on the completion of earlier tasks of its rank. */
static void describe(const fs_program *p, const predecessor_lists *pl, int32_t rank,
                     expected_rank *e) {
  int32_t position[4096];
  ck_assert(p->tasks <= 4096);
  e->count = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->rank[t] != rank) continue;
    ck_assert(p->kind[t] == FS_SEND || p->kind[t] == FS_RECV);
    ck_assert_int_eq(p->flags[t], FS_HAS_SIZE);
    ck_assert_int_eq(fs_task_tag(p, t), 0);
    ck_assert_int_eq(p->need[t], pl->at[t + 1] - pl->at[t]);
    position[t] = add_op(e, p->kind[t] == FS_SEND ? 's' : 'r', p->peer[t], p->value[t]);
    for (int64_t i = pl->at[t]; i < pl->at[t + 1]; i++) {
      uint32_t from = pl->from[i];
      ck_assert_uint_eq(from & ~0x3fffffffu, 0); /* FS_AFTER_END: GOAL's requires */
      ck_assert_int_eq(p->rank[from], rank);
      ck_assert_int_lt((int32_t)from, t);
      add_requires(e, position[t], position[from]);
    }
  }
}

static void assert_rank_is(const fs_program *p, const predecessor_lists *pl, int32_t rank,
                           const expected_rank *expected) {
  expected_rank actual;
  char want[4096], got[4096];
  describe(p, pl, rank, &actual);
  render(expected, want, sizeof want);
  render(&actual, got, sizeof got);
  ck_assert_msg(strcmp(want, got) == 0, "%d ranks, rank %d:\n want %s\n got  %s", p->ranks, rank,
                want, got);
}

/* ---- literal transcriptions of schedgen's loops (root 0) ----------------- */

static int ceil_log2(int32_t n) {
  int k = 0;
  while (((int64_t)1 << k) < n) k++;
  return k;
}

static void schedgen_bcast(int32_t v, int32_t n, int64_t size, expected_rank *e) {
  int recv = -1, send = -1;
  e->count = 0;
  for (int r = 0; r < ceil_log2(n); r++) {
    int64_t bit = (int64_t)1 << r;
    if (v + bit < n && v < bit) send = add_op(e, 's', (int32_t)(v + bit), size);
    if (send >= 0 && recv >= 0) add_requires(e, send, recv);
    if (v >= bit && v < 2 * bit) recv = add_op(e, 'r', (int32_t)(v - bit), size);
  }
}

static void schedgen_reduce(int32_t v, int32_t n, int64_t size, expected_rank *e) {
  int recv = -1, send = -1;
  e->count = 0;
  for (int r = 0; r < ceil_log2(n); r++) {
    int64_t bit = (int64_t)1 << r;
    if (v + bit < n && v < bit) recv = add_op(e, 'r', (int32_t)(v + bit), size);
    if (send >= 0 && recv >= 0) add_requires(e, send, recv);
    if (v >= bit && v < 2 * bit) send = add_op(e, 's', (int32_t)(v - bit), size);
  }
  sort_by_requirements(e);
}

static void schedgen_recdoub(int32_t rank, int32_t n, int64_t size, expected_rank *e) {
  int32_t mask = 1, steps = 0, last_recv = -1;
  int64_t next = size;
  while ((1 << steps) < n) steps++;
  e->count = 0;
  for (int step = 0; step < steps; step++, mask <<= 1) {
    next /= 2;
    int send = add_op(e, 's', rank ^ mask, next);
    if (last_recv != -1) add_requires(e, send, last_recv);
    last_recv = add_op(e, 'r', rank ^ mask, next);
  }
  mask >>= 1;
  for (int step = 0; step < steps; step++, mask >>= 1, next *= 2) {
    int send = add_op(e, 's', rank ^ mask, next);
    if (last_recv != -1) add_requires(e, send, last_recv);
    last_recv = add_op(e, 'r', rank ^ mask, next);
  }
}

static void schedgen_dissemination(int32_t rank, int32_t n, int64_t size, expected_rank *e) {
  int recv = -1;
  e->count = 0;
  for (int64_t dist = 1; dist < n; dist <<= 1) {
    int send = add_op(e, 's', (int32_t)((rank + dist + n) % n), size);
    if (recv != -1) add_requires(e, send, recv);
    recv = add_op(e, 'r', (int32_t)((rank - dist + n) % n), size);
  }
}

typedef void (*transcription)(int32_t rank, int32_t n, int64_t size, expected_rank *e);

static fs_program *generate_sized(const char *name, int32_t ranks, int64_t size) {
  fs_generator_options o = fs_test_options(ranks, size, 0, NULL);
  return fs_test_generate(name, &o);
}

/* ---- two-sided generators: tests ------------------------------------------ */

static const struct {
  const char *name;
  transcription schedgen;
  int powers_of_two_only;
} two_sided[] = {
    {"bcast-binomial", schedgen_bcast, 0},
    {"reduce-binomial", schedgen_reduce, 0},
    {"allreduce-recdoub", schedgen_recdoub, 1},
    {"barrier-dissemination-schedgen", schedgen_dissemination, 0},
};

/* Every rank op for op as schedgen's loop writes it, at 1..70 ranks (powers
 * of 2 for recdoub), with a size that halves to 0 B; counts are exactly the
 * sums. (Matching and deadlock freedom: the data-flow tests below.) */
START_TEST(two_sided_match_schedgen) { /* looped over two_sided */
  for (int32_t n = 1; n <= 70; n++) {
    if (two_sided[_i].powers_of_two_only && (n & (n - 1))) continue;
    fs_program *p = generate_sized(two_sided[_i].name, n, 12);
    predecessor_lists pl = predecessors_of(p);
    int64_t tasks = 0, dependencies = 0;
    for (int32_t rank = 0; rank < n; rank++) {
      expected_rank e;
      two_sided[_i].schedgen(rank, n, 12, &e);
      assert_rank_is(p, &pl, rank, &e);
      tasks += e.count;
      for (int i = 0; i < e.count; i++) dependencies += e.op[i].deps;
    }
    ck_assert_int_eq(p->tasks, tasks);
    ck_assert_int_eq(p->dependencies, dependencies);
    ck_assert(!p->tag && !p->cpu && !p->nic); /* all tag 0, CPU 0, NIC 0 */
    free_predecessors(&pl);
    fs_program_free(p);
  }
}
END_TEST

/* schedgen -p binomialtreebcast -s 4: the root sends to 1 then 2, rank 1
 * forwards to 3 after its recv. */
START_TEST(bcast_four_ranks) {
  fs_program *p = generate_sized("bcast-binomial", 4, 1024);
  predecessor_lists pl = predecessors_of(p);
  ck_assert_int_eq(p->tasks, 6);
  ck_assert_int_eq(p->dependencies, 1);
  const expected_rank want[4] = {
      {2, {{'s', 1, 1024, 0, {0}}, {'s', 2, 1024, 0, {0}}}},
      {2, {{'r', 0, 1024, 0, {0}}, {'s', 3, 1024, 1, {1}}}},
      {1, {{'r', 0, 1024, 0, {0}}}},
      {1, {{'r', 1, 1024, 0, {0}}}},
  };
  for (int32_t rank = 0; rank < 4; rank++) assert_rank_is(p, &pl, rank, &want[rank]);
  const char *labels[6] = {"round1", "round2", "round1", "round2", "round2", "round2"};
  for (int32_t t = 0; t < 6; t++) ck_assert_str_eq(fs_task_label(p, t), labels[t]);
  free_predecessors(&pl);
  fs_program_free(p);
}
END_TEST

/* schedgen -p binomialtreereduce -s 8 (the golden run of docs/MODELS.md): ranks 4..7
 * send only, 2 and 3 forward after one recv, 1 after recvs from 3 and 5,
 * the root receives from 1, 2 and 4. */
START_TEST(reduce_eight_ranks) {
  fs_program *p = generate_sized("reduce-binomial", 8, 1024);
  predecessor_lists pl = predecessors_of(p);
  ck_assert_int_eq(p->tasks, 14);
  ck_assert_int_eq(p->dependencies, 4);
  const expected_rank want[8] = {
      {3, {{'r', 1, 1024, 0, {0}}, {'r', 2, 1024, 0, {0}}, {'r', 4, 1024, 0, {0}}}},
      {3, {{'r', 3, 1024, 0, {0}}, {'r', 5, 1024, 0, {0}}, {'s', 0, 1024, 2, {1, 2}}}},
      {2, {{'r', 6, 1024, 0, {0}}, {'s', 0, 1024, 1, {1}}}},
      {2, {{'r', 7, 1024, 0, {0}}, {'s', 1, 1024, 1, {1}}}},
      {1, {{'s', 0, 1024, 0, {0}}}},
      {1, {{'s', 1, 1024, 0, {0}}}},
      {1, {{'s', 2, 1024, 0, {0}}}},
      {1, {{'s', 3, 1024, 0, {0}}}},
  };
  for (int32_t rank = 0; rank < 8; rank++) assert_rank_is(p, &pl, rank, &want[rank]);
  /* labels count steps in time: the leaves' sends first */
  ck_assert_str_eq(fs_task_label(p, find_task(p, FS_SEND, 5, "round1", 0)), "round1");
  ck_assert_int_ge(find_task(p, FS_SEND, 3, "round2", 0), 0);
  ck_assert_int_ge(find_task(p, FS_SEND, 1, "round3", 0), 0);
  ck_assert_int_ge(find_task(p, FS_RECV, 0, "round3", 0), 0);
  free_predecessors(&pl);
  fs_program_free(p);
}
END_TEST

/* schedgen -p allreduce_recdoub -s 8 -d 8: partners 1, 2, 4 then 4, 2, 1;
 * sizes 4, 2, 1 then 1, 2, 4; each send after the previous recv. */
START_TEST(recdoub_eight_ranks) {
  fs_program *p = generate_sized("allreduce-recdoub", 8, 8);
  predecessor_lists pl = predecessors_of(p);
  ck_assert_int_eq(p->tasks, 8 * 12);
  ck_assert_int_eq(p->dependencies, 8 * 5);
  const int32_t mask[6] = {1, 2, 4, 4, 2, 1};
  const int64_t size[6] = {4, 2, 1, 1, 2, 4};
  for (int32_t rank = 0; rank < 8; rank++) {
    expected_rank want = {0, {{0}}};
    for (int step = 0; step < 6; step++) {
      int send = add_op(&want, 's', rank ^ mask[step], size[step]);
      if (step > 0) add_requires(&want, send, send - 1);
      add_op(&want, 'r', rank ^ mask[step], size[step]);
    }
    assert_rank_is(p, &pl, rank, &want);
  }
  ck_assert_int_ge(find_task(p, FS_RECV, 5, "halving3", 0), 0);
  ck_assert_int_ge(find_task(p, FS_SEND, 5, "doubling1", 0), 0);
  free_predecessors(&pl);
  fs_program_free(p);
}
END_TEST

/* Sizes as schedgen computes them: halving by integer division reaches 0 B
 * (d < N), and doubling starts from there: 16 ranks, 8 B: 4 2 1 0 | 0 0 0 0. */
START_TEST(recdoub_zero_byte_steps) {
  fs_program *p = generate_sized("allreduce-recdoub", 16, 8);
  const int64_t size[8] = {4, 2, 1, 0, 0, 0, 0, 0};
  int step = 0;
  for (int32_t t = 0; t < p->tasks && p->rank[t] == 0; t += 2, step++) {
    ck_assert_int_eq(p->value[t], size[step]);
    ck_assert_int_eq(p->value[t + 1], size[step]);
  }
  ck_assert_int_eq(step, 8);
  fs_program_free(p);
  p = generate_sized("allreduce-recdoub", 4, 1000); /* 500 250 | 250 500 */
  const int64_t sizes[4] = {500, 250, 250, 500};
  for (int i = 0; i < 4; i++) ck_assert_int_eq(p->value[2 * i], sizes[i]);
  fs_program_free(p);
}
END_TEST

/* schedgen's dissemination, 5 ranks: rounds at distance 1, 2, 4; rank r
 * sends to r+d, receives from r-d; each send after the previous recv only. */
START_TEST(dissemination_five_ranks) {
  fs_program *p = generate_sized("barrier-dissemination-schedgen", 5, 8);
  predecessor_lists pl = predecessors_of(p);
  ck_assert_int_eq(p->tasks, 5 * 6);
  ck_assert_int_eq(p->dependencies, 5 * 2);
  for (int32_t rank = 0; rank < 5; rank++) {
    expected_rank want = {0, {{0}}};
    for (int32_t d = 1, round = 0; d < 5; d *= 2, round++) {
      int send = add_op(&want, 's', (rank + d) % 5, 8);
      if (round > 0) add_requires(&want, send, send - 1);
      add_op(&want, 'r', (rank + 5 - d) % 5, 8);
    }
    assert_rank_is(p, &pl, rank, &want);
  }
  ck_assert_int_ge(find_task(p, FS_RECV, 4, "round3", 0), 0);
  free_predecessors(&pl);
  fs_program_free(p);
}
END_TEST

/* MPICH's dissemination (MPIR_Barrier_intra_dissemination) at n ranks:
 * round k of rank r at 2(kn + r), a recv from r - 2^k then a send to
 * r + 2^k (mod n), both after exactly the rank's recv and send of round
 * k-1; tag 0, label round<k+1>. */
static void assert_mpich_dissemination(int32_t n, int64_t size) {
  fs_program *p = generate_sized("barrier-dissemination", n, size);
  int rounds = ceil_log2(n);
  ck_assert_int_eq(p->tasks, 2 * rounds * n);
  ck_assert_int_eq(p->dependencies, rounds > 0 ? 4 * (rounds - 1) * n : 0);
  ck_assert(!p->tag && !p->cpu && !p->nic);
  for (int k = 0; k < rounds; k++)
    for (int32_t r = 0; r < n; r++) {
      char label[24];
      snprintf(label, sizeof label, "round%d", k + 1);
      int32_t at = 2 * (k * n + r), d = 1 << k;
      for (int32_t t = at; t <= at + 1; t++) {
        ck_assert_int_eq(p->kind[t], t == at ? FS_RECV : FS_SEND);
        ck_assert_int_eq(p->rank[t], r);
        ck_assert_int_eq(p->peer[t], t == at ? (r - d + n) % n : (r + d) % n);
        ck_assert_int_eq(p->value[t], size);
        ck_assert_int_eq(p->flags[t], FS_HAS_SIZE);
        ck_assert_str_eq(fs_task_label(p, t), label);
        ck_assert_int_eq(p->need[t], k > 0 ? 2 : 0);
        if (k > 0)
          ck_assert(depends_on(p, t, at - 2 * n, 0) && depends_on(p, t, at - 2 * n + 1, 0));
      }
    }
  fs_program_free(p);
}

START_TEST(dissemination_mpich) {
  for (int32_t n = 1; n <= 20; n++) assert_mpich_dissemination(n, 8);
  assert_mpich_dissemination(6, 0);
  assert_mpich_dissemination(64, 1);
}
END_TEST

START_TEST(two_sided_errors) {
  fs_error err;
  fs_generator_options o = fs_test_options(6, 8, 0, NULL);
  ck_assert(strstr(fs_test_generate_error("allreduce-recdoub", &o, &err), "power of 2 --ranks"));
  o = fs_test_options(8, 8, 0, NULL);
  o.has_reduce_time = 1, o.reduce_time = 10 * FS_NS;
  ck_assert(strstr(fs_test_generate_error("allreduce-recdoub", &o, &err),
                   "--reduce-time does not apply"));
  ck_assert(
      strstr(fs_test_generate_error("reduce-binomial", &o, &err), "--reduce-time does not apply"));
  for (int i = 0; i < 4; i++) { /* one rank: nothing to send */
    fs_program *p = generate_sized(two_sided[i].name, 1, 8);
    ck_assert_int_eq(p->tasks, 0);
    ck_assert_int_eq(p->dependencies, 0);
    fs_program_free(p);
  }
}
END_TEST

/* The sizes of the largest runs: 2^20 ranks, exact counts. */
START_TEST(two_sided_at_scale) {
  int32_t n = 1 << 20;
  fs_program *p = generate_sized("barrier-dissemination-schedgen", n, 8);
  ck_assert_int_eq(p->tasks, 2 * 20 * n);
  ck_assert_int_eq(p->dependencies, 19 * (int64_t)n);
  int32_t last = p->tasks - 1; /* rank n-1's last recv: from n-1 - 2^19 */
  ck_assert_int_eq(p->kind[last], FS_RECV);
  ck_assert_int_eq(p->rank[last], n - 1);
  ck_assert_int_eq(p->peer[last], n - 1 - (1 << 19));
  fs_program_free(p);
  p = generate_sized("bcast-binomial", n, 8);
  ck_assert_int_eq(p->tasks, 2 * (n - 1));
  ck_assert_int_eq(p->dependencies, n - 1 - 20);
  fs_program_free(p);
  n = 1 << 16;
  p = generate_sized("barrier-dissemination", n, 8);
  ck_assert_int_eq(p->tasks, 2 * 16 * n);
  ck_assert_int_eq(p->dependencies, 4 * 15 * (int64_t)n);
  last = p->tasks - 1; /* rank n-1's last send: to n-1 + 2^15 mod n */
  ck_assert_int_eq(p->kind[last], FS_SEND);
  ck_assert_int_eq(p->peer[last], (1 << 15) - 1);
  fs_program_free(p);
}
END_TEST

/* ---- shared option checks and reduce pricing ------------------------------ */

START_TEST(common_errors) { /* looped over the generators */
  const char *name = fs_generator_list(NULL)[_i].name;
  fs_error err;
  fs_generator_options o = fs_test_options(2, -1, 0, NULL);
  o.factors[0] = 2, o.factor_count = 1;
  ck_assert(strstr(fs_test_generate_error(name, &o, &err), "--size"));
  o = fs_test_options(0, 8, 0, NULL);
  ck_assert(strstr(fs_test_generate_error(name, &o, &err), "--ranks"));
  o = fs_test_options(2, 8, 0, NULL);
  o.factors[0] = 2, o.factor_count = 1;
  o.has_reduce_time = 1, o.reduce_time = -1;
  ck_assert(strstr(fs_test_generate_error(name, &o, &err), "--reduce-time"));
}
END_TEST

START_TEST(too_many_tasks) {
  fs_error err;
  fs_generator_options o = fs_test_options(INT32_MAX, 8, 0, NULL);
  ck_assert(strstr(fs_test_generate_error("allreduce-rd", &o, &err), "more than"));
  ck_assert(strstr(fs_test_generate_error("multicast", &o, &err), "more than"));
  ck_assert(strstr(fs_test_generate_error("bcast-binomial", &o, &err), "more than"));
  ck_assert(strstr(fs_test_generate_error("reduce-binomial", &o, &err), "more than"));
  ck_assert(strstr(fs_test_generate_error("barrier-dissemination", &o, &err), "more than"));
  ck_assert(
      strstr(fs_test_generate_error("barrier-dissemination-schedgen", &o, &err), "more than"));
  ck_assert(strstr(fs_test_generate_error("allgather-ring", &o, &err), "more than"));
  o.ranks = 1 << 30;
  ck_assert(strstr(fs_test_generate_error("allreduce-recdoub", &o, &err), "more than"));
  ck_assert(strstr(fs_test_generate_error("allgather-rd", &o, &err), "more than"));
}
END_TEST

static void assert_reduces_priced(const fs_program *p, int64_t size,
                                  const fs_generator_options *o) {
  int reduces = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->kind[t] != FS_COMPUTE) continue;
    reduces++;
    ck_assert_int_eq(p->value[t], o->has_reduce_time ? o->reduce_time : size);
    ck_assert_int_eq(p->flags[t] & (FS_HAS_TIME | FS_HAS_SIZE),
                     o->has_reduce_time ? FS_HAS_TIME : FS_HAS_SIZE);
  }
  ck_assert_int_gt(reduces, 0);
}

START_TEST(reduce_pricing) {
  for (int timed = 0; timed < 2; timed++) {
    fs_generator_options o = fs_test_options(6, 4096, 0, NULL);
    o.has_reduce_time = timed, o.reduce_time = timed ? 250 * FS_NS : 0;
    fs_program *p = fs_test_generate("allreduce-rd", &o); /* 6 ranks: collapse reduces too */
    assert_reduces_priced(p, 4096, &o);
    fs_program_free(p);
    set_factors(&o, (const int32_t[]){3, 2}, 2);
    p = fs_test_generate("allreduce-rm", &o);
    assert_reduces_priced(p, 4096, &o);
    fs_program_free(p);
  }
}
END_TEST

/* ---- allgathers (two-sided, tagged) --------------------------------------- */

/* Every send has exactly one recv with the same (sender, receiver, tag) and
 * the same size, and every recv one such send: in these allgathers no two
 * messages share a channel and tag, so the tags alone match them. */
static void assert_tags_match(const fs_program *p) {
  for (int32_t t = 0; t < p->tasks; t++) {
    ck_assert(p->kind[t] == FS_SEND || p->kind[t] == FS_RECV);
    fs_task_kind other = p->kind[t] == FS_SEND ? FS_RECV : FS_SEND;
    int same = 0, partners = 0;
    for (int32_t u = 0; u < p->tasks; u++) {
      same += p->kind[u] == p->kind[t] && p->rank[u] == p->rank[t] && p->peer[u] == p->peer[t] &&
              fs_task_tag(p, u) == fs_task_tag(p, t);
      if (p->kind[u] == other && p->rank[u] == p->peer[t] && p->peer[u] == p->rank[t] &&
          fs_task_tag(p, u) == fs_task_tag(p, t)) {
        partners++;
        ck_assert_int_eq(p->value[u], p->value[t]);
      }
    }
    ck_assert_int_eq(same, 1);
    ck_assert_msg(partners == 1, "task %d (rank %d, peer %d, tag %d) has %d partners", t,
                  p->rank[t], p->peer[t], fs_task_tag(p, t), partners);
  }
}

/* One step of a sendrecv allgather: rank's recv then send, tasks `at` and
 * at+1, with this peer, size, tag and label, both after exactly `previous`
 * (the rank's recv of the step before, or nothing when -1). */
static void assert_sendrecv(const fs_program *p, int32_t at, int32_t rank, int32_t to, int32_t from,
                            int64_t size, int32_t tag, const char *label, int32_t previous) {
  for (int32_t t = at; t <= at + 1; t++) {
    ck_assert_int_eq(p->kind[t], t == at ? FS_RECV : FS_SEND);
    ck_assert_int_eq(p->rank[t], rank);
    ck_assert_int_eq(p->peer[t], t == at ? from : to);
    ck_assert_int_eq(p->value[t], size);
    ck_assert_int_eq(p->flags[t], FS_HAS_SIZE);
    ck_assert_int_eq(fs_task_tag(p, t), tag);
    ck_assert_int_eq(fs_task_cpu(p, t), 0);
    ck_assert_int_eq(fs_task_nic(p, t), 0);
    ck_assert_str_eq(fs_task_label(p, t), label);
    ck_assert_int_eq(p->need[t], previous >= 0);
    if (previous >= 0) ck_assert(depends_on(p, t, previous, 0));
  }
}

/* Ring at n ranks: step-major, step s of rank r at 2(sn + r). */
static void assert_ring(int32_t n, int64_t size) {
  fs_program *p = generate_sized("allgather-ring", n, size);
  ck_assert_int_eq(p->tasks, 2 * n * (n - 1));
  ck_assert_int_eq(p->dependencies, n > 1 ? 2 * n * (n - 2) : 0);
  ck_assert_int_eq(count_kind(p, FS_SEND), n * (n - 1));
  ck_assert_int_eq(count_kind(p, FS_RECV), n * (n - 1));
  for (int32_t rank = 0; rank < n; rank++)
    for (int32_t s = 0; s < n - 1; s++) {
      char label[24];
      snprintf(label, sizeof label, "step%d", s + 1);
      int32_t at = 2 * (s * n + rank);
      assert_sendrecv(p, at, rank, (rank + 1) % n, (rank + n - 1) % n, size, s, label,
                      s > 0 ? at - 2 * n : -1);
    }
  assert_tags_match(p);
  fs_program_free(p);
}

/* Recursive doubling at n = 2^k ranks: round i of rank r at 2(rk + i). */
static void assert_rd_allgather(int32_t n, int64_t size) {
  fs_program *p = generate_sized("allgather-rd", n, size);
  int k = 0;
  while ((1 << k) < n) k++;
  ck_assert_int_eq(p->tasks, 2 * k * n);
  ck_assert_int_eq(p->dependencies, k > 0 ? 2 * (k - 1) * n : 0);
  for (int32_t rank = 0; rank < n; rank++)
    for (int i = 0; i < k; i++) {
      char label[24];
      snprintf(label, sizeof label, "round%d", i + 1);
      int32_t at = 2 * (rank * k + i), partner = rank ^ (1 << i);
      assert_sendrecv(p, at, rank, partner, partner, size << i, i, label, i > 0 ? at - 2 : -1);
    }
  assert_tags_match(p);
  fs_program_free(p);
}

START_TEST(allgather_ring_structure) {
  assert_ring(4, 1024);
  assert_ring(5, 8);
  assert_ring(8, 3);
  for (int32_t n = 1; n <= 20; n++) assert_ring(n, 100);
}
END_TEST

/* 4 ranks, spelled out: rank 2 receives from 1 and sends to 3 in steps
 * 0, 1, 2 (tags 0, 1, 2); step 1's pair waits for step 0's recv only. */
START_TEST(allgather_ring_four_ranks) {
  fs_program *p = generate_sized("allgather-ring", 4, 1024);
  ck_assert_int_eq(p->tasks, 24);
  ck_assert_int_eq(p->dependencies, 16);
  ck_assert_ptr_nonnull(p->tag);
  const int32_t r2[6][5] = {/* task, kind (0 recv), peer, tag, depends on task */
                            {4, 0, 1, 0, -1}, {5, 1, 3, 0, -1},  {12, 0, 1, 1, 4},
                            {13, 1, 3, 1, 4}, {20, 0, 1, 2, 12}, {21, 1, 3, 2, 12}};
  for (int i = 0; i < 6; i++) {
    int32_t t = r2[i][0];
    ck_assert_int_eq(p->rank[t], 2);
    ck_assert_int_eq(p->kind[t], r2[i][1] ? FS_SEND : FS_RECV);
    ck_assert_int_eq(p->peer[t], r2[i][2]);
    ck_assert_int_eq(fs_task_tag(p, t), r2[i][3]);
    dependency_list d = dependencies_of(p, t);
    ck_assert_int_eq(d.count, r2[i][4] >= 0);
    if (d.count) ck_assert(d.from[0] == r2[i][4] && !d.local[0]);
  }
  ck_assert_int_eq(count_labelled(p, FS_SEND, "step3"), 4);
  ck_assert_int_eq(count_labelled(p, FS_RECV, "step1"), 4);
  ck_assert_int_eq(p->label_count, 3);
  fs_program_free(p);
  p = generate_sized("allgather-ring", 2, 8); /* one step, all tag 0: no tag array */
  ck_assert_int_eq(p->tasks, 4);
  ck_assert_int_eq(p->dependencies, 0);
  ck_assert_ptr_null(p->tag);
  fs_program_free(p);
}
END_TEST

START_TEST(allgather_rd_structure) {
  assert_rd_allgather(4, 1024);
  assert_rd_allgather(8, 5);
  for (int32_t n = 1; n <= 64; n *= 2) assert_rd_allgather(n, 100);
}
END_TEST

/* 8 ranks, rank 5: partners 4, 7, 1 with 1, 2, 4 blocks, tags 0, 1, 2. */
START_TEST(allgather_rd_eight_ranks) {
  fs_program *p = generate_sized("allgather-rd", 8, 1000);
  ck_assert_int_eq(p->tasks, 48);
  ck_assert_int_eq(p->dependencies, 32);
  const int32_t partner[3] = {4, 7, 1};
  for (int i = 0; i < 3; i++)
    for (int send = 0; send < 2; send++) {
      int32_t t = 30 + 2 * i + send;
      ck_assert_int_eq(p->kind[t], send ? FS_SEND : FS_RECV);
      ck_assert_int_eq(p->rank[t], 5);
      ck_assert_int_eq(p->peer[t], partner[i]);
      ck_assert_int_eq(p->value[t], 1000 << i);
      ck_assert_int_eq(fs_task_tag(p, t), i);
      dependency_list d = dependencies_of(p, t);
      ck_assert_int_eq(d.count, i > 0);
      if (i > 0) ck_assert_int_eq(d.from[0], 30 + 2 * (i - 1));
    }
  ck_assert_int_eq(find_task(p, FS_RECV, 5, "round3", 0), 34);
  ck_assert_int_eq(p->label_count, 3);
  fs_program_free(p);
}
END_TEST

START_TEST(allgather_errors) {
  fs_error err;
  for (int32_t n = 3; n <= 12; n++) {
    if (!(n & (n - 1))) continue;
    fs_generator_options o = fs_test_options(n, 8, 0, NULL);
    ck_assert(strstr(fs_test_generate_error("allgather-rd", &o, &err), "power of 2 --ranks"));
    ck_assert(strstr(err.message, "not"));
  }
  fs_generator_options o = fs_test_options(8, 8, 0, NULL);
  o.has_reduce_time = 1, o.reduce_time = 10 * FS_NS;
  ck_assert(
      strstr(fs_test_generate_error("allgather-rd", &o, &err), "--reduce-time does not apply"));
  ck_assert(
      strstr(fs_test_generate_error("allgather-ring", &o, &err), "--reduce-time does not apply"));
  o = fs_test_options(8, FS_SIZE_LIMIT / 4 + 1, 0,
                      NULL); /* the last round's 4 blocks: past the limit */
  ck_assert(strstr(fs_test_generate_error("allgather-rd", &o, &err), "too large"));
  o.size = FS_SIZE_LIMIT / 4; /* the limit itself */
  fs_program *p = fs_test_generate("allgather-rd", &o);
  ck_assert_int_eq(p->value[p->tasks - 1], FS_SIZE_LIMIT);
  fs_program_free(p);
  o = fs_test_options(23171, 8, 0, NULL); /* 2 * 23171 * 23170 > 2^30 - 1 tasks */
  ck_assert(strstr(fs_test_generate_error("allgather-ring", &o, &err), "more than"));
  for (int i = 0; i < 2; i++) { /* one rank: nothing to send */
    p = generate_sized(i ? "allgather-rd" : "allgather-ring", 1, 8);
    ck_assert_int_eq(p->tasks, 0);
    ck_assert_int_eq(p->dependencies, 0);
    fs_program_free(p);
  }
}
END_TEST

/* Larger runs: exact counts and the last task. */
START_TEST(allgather_at_scale) {
  int32_t n = 1000;
  fs_program *p = generate_sized("allgather-ring", n, 8);
  ck_assert_int_eq(p->tasks, 2 * n * (n - 1));
  ck_assert_int_eq(p->dependencies, 2 * n * (n - 2));
  int32_t last = p->tasks - 1; /* rank n-1's send of step n-2 */
  ck_assert_int_eq(p->kind[last], FS_SEND);
  ck_assert_int_eq(p->peer[last], 0);
  ck_assert_int_eq(fs_task_tag(p, last), n - 2);
  ck_assert_int_eq(p->label_count, n - 1);
  fs_program_free(p);
  n = 1 << 16;
  p = generate_sized("allgather-rd", n, 8);
  ck_assert_int_eq(p->tasks, 2 * 16 * n);
  ck_assert_int_eq(p->dependencies, 2 * 15 * n);
  last = p->tasks - 1;
  ck_assert_int_eq(p->peer[last], n - 1 - (1 << 15));
  ck_assert_int_eq(p->value[last], 8 << 15);
  fs_program_free(p);
}
END_TEST

/* ---- bcast-linear, scatter/gather-binomial, alltoall-pairwise ------------- */

/* Open MPI's basic linear bcast, root 0: the root sends to 1 .. n-1 in
 * order, every other rank receives once. */
static void linear_bcast_ops(int32_t rank, int32_t n, int64_t size, expected_rank *e) {
  e->count = 0;
  if (rank > 0) add_op(e, 'r', 0, size);
  for (int32_t v = 1; rank == 0 && v < n; v++) add_op(e, 's', v, size);
}

/* MPICH's MPIR_Scatter_intra_binomial, root 0, transcribed: curr_cnt
 * blocks held, the recv's count from the subtree, each send the part of
 * curr_cnt beyond mask. */
static void mpich_scatter_ops(int32_t rank, int32_t n, int64_t size, expected_rank *e) {
  e->count = 0;
  int64_t curr_cnt = rank == 0 ? n : 0;
  int recv = -1;
  int32_t mask = 1;
  while (mask < n) {
    if (rank & mask) {
      curr_cnt = n - rank < mask ? n - rank : mask;
      recv = add_op(e, 'r', rank - mask, curr_cnt * size);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if ((int64_t)rank + mask < n) {
      int64_t send_subtree_cnt = curr_cnt - mask;
      int send = add_op(e, 's', rank + mask, send_subtree_cnt * size);
      if (recv >= 0) add_requires(e, send, recv);
      curr_cnt -= send_subtree_cnt;
    }
}

/* MPICH's MPIR_Gather_intra_binomial, root 0, transcribed: recvs from
 * rank | mask while that bit is clear, then one send of all held blocks. */
static void mpich_gather_ops(int32_t rank, int32_t n, int64_t size, expected_rank *e) {
  e->count = 0;
  int64_t curr_cnt = 1;
  int recvs[32], count = 0;
  for (int32_t mask = 1; mask < n; mask <<= 1) {
    if ((rank & mask) == 0) {
      int64_t src = (int64_t)rank | mask;
      if (src < n) {
        int64_t blocks = n - src < mask ? n - src : mask;
        recvs[count++] = add_op(e, 'r', (int32_t)src, blocks * size);
        curr_cnt += blocks;
      }
    } else {
      int send = add_op(e, 's', rank & ~mask, curr_cnt * size);
      for (int i = 0; i < count; i++) add_requires(e, send, recvs[i]);
      break;
    }
  }
}

static const struct {
  const char *name;
  transcription ops;
} rooted[] = {
    {"bcast-linear", linear_bcast_ops},
    {"scatter-binomial", mpich_scatter_ops},
    {"gather-binomial", mpich_gather_ops},
};

/* Every rank op for op as the MPI library's loop, at 1..70 ranks, root 0;
 * task order round by round (bcast-linear: the root's send to v, v's
 * recv); one message per channel and tag. */
START_TEST(rooted_match_mpi) { /* looped over rooted */
  for (int32_t n = 1; n <= 70; n++) {
    fs_program *p = generate_sized(rooted[_i].name, n, 12);
    predecessor_lists pl = predecessors_of(p);
    int64_t tasks = 0, dependencies = 0;
    for (int32_t rank = 0; rank < n; rank++) {
      expected_rank e;
      rooted[_i].ops(rank, n, 12, &e);
      assert_rank_is(p, &pl, rank, &e);
      tasks += e.count;
      for (int i = 0; i < e.count; i++) dependencies += e.op[i].deps;
    }
    ck_assert_int_eq(p->tasks, tasks);
    ck_assert_int_eq(p->tasks, 2 * (n - 1));
    ck_assert_int_eq(p->dependencies, dependencies);
    ck_assert(!p->tag && !p->cpu && !p->nic);
    /* laid out as it runs: each send immediately followed by its recv */
    for (int32_t t = 0; t < p->tasks; t += 2) {
      ck_assert_int_eq(p->kind[t], FS_SEND);
      ck_assert_int_eq(p->kind[t + 1], FS_RECV);
      ck_assert_int_eq(p->rank[t + 1], p->peer[t]);
      ck_assert_int_eq(p->peer[t + 1], p->rank[t]);
      ck_assert_str_eq(fs_task_label(p, t), fs_task_label(p, t + 1));
    }
    if (n <= 64) assert_tags_match(p);
    free_predecessors(&pl);
    fs_program_free(p);
  }
}
END_TEST

/* 6 ranks spelled out. scatter: round 1 0->4 (2 blocks); round 2 0->2 (2);
 * round 3 0->1, 2->3, 4->5 (1 each). gather mirrors it: round 1 1->0, 3->2, 5->4;
 * round 2 2->0 (2 blocks), round 3 4->0 (2 blocks). */
START_TEST(scatter_gather_six_ranks) {
  fs_program *p = generate_sized("scatter-binomial", 6, 100);
  const int32_t scatter[5][4] = {/* from, to, blocks, round */
                                 {0, 4, 2, 1},
                                 {0, 2, 2, 2},
                                 {0, 1, 1, 3},
                                 {2, 3, 1, 3},
                                 {4, 5, 1, 3}};
  ck_assert_int_eq(p->tasks, 10);
  ck_assert_int_eq(p->dependencies, 2); /* 4->5 after 4's recv, 2->3 after 2's */
  for (int i = 0; i < 5; i++) {
    char label[24];
    snprintf(label, sizeof label, "round%d", scatter[i][3]);
    ck_assert_int_eq(p->rank[2 * i], scatter[i][0]);
    ck_assert_int_eq(p->peer[2 * i], scatter[i][1]);
    ck_assert_int_eq(p->value[2 * i], 100 * scatter[i][2]);
    ck_assert_int_eq(p->value[2 * i + 1], 100 * scatter[i][2]);
    ck_assert_str_eq(fs_task_label(p, 2 * i), label);
  }
  ck_assert(depends_on(p, 6, 3, 0) && p->need[6] == 1); /* 2->3 after the recv on 2 */
  ck_assert(depends_on(p, 8, 1, 0) && p->need[8] == 1); /* 4->5 after the recv on 4 */
  fs_program_free(p);
  p = generate_sized("gather-binomial", 6, 100);
  const int32_t gather[5][4] = {{1, 0, 1, 1},
                                {3, 2, 1, 1},
                                {5, 4, 1, 1},
                                {2, 0, 2, 2},
                                {4, 0, 2, 3}};
  ck_assert_int_eq(p->tasks, 10);
  ck_assert_int_eq(p->dependencies, 2);
  for (int i = 0; i < 5; i++) {
    char label[24];
    snprintf(label, sizeof label, "round%d", gather[i][3]);
    ck_assert_int_eq(p->rank[2 * i], gather[i][0]);
    ck_assert_int_eq(p->peer[2 * i], gather[i][1]);
    ck_assert_int_eq(p->value[2 * i], 100 * gather[i][2]);
    ck_assert_str_eq(fs_task_label(p, 2 * i), label);
  }
  ck_assert(depends_on(p, 6, 3, 0) && p->need[6] == 1); /* 2->0 after 3->2 arrived */
  ck_assert(depends_on(p, 8, 5, 0) && p->need[8] == 1); /* 4->0 after 5->4 arrived */
  fs_program_free(p);
  p = generate_sized("gather-binomial", 16, 1); /* rank 8 sends 8 blocks after 3 recvs */
  int32_t last = p->tasks - 2;
  ck_assert_int_eq(p->rank[last], 8);
  ck_assert_int_eq(p->value[last], 8);
  ck_assert_int_eq(p->need[last], 3);
  fs_program_free(p);
}
END_TEST

/* Pairwise alltoall at n ranks: step s (1-based) of rank r at
 * 2((s-1)n + r): recv from r-s, send to r+s, tag s, label step<s>, both
 * after exactly the rank's recv and send of step s-1. Every (i, j), i != j,
 * has one send from i to j and one recv of it. */
static void assert_pairwise(int32_t n, int64_t size) {
  fs_program *p = generate_sized("alltoall-pairwise", n, size);
  ck_assert_int_eq(p->tasks, 2 * n * (n - 1));
  ck_assert_int_eq(p->dependencies, n > 1 ? 4 * n * (n - 2) : 0);
  for (int32_t s = 1; s < n; s++)
    for (int32_t r = 0; r < n; r++) {
      char label[24];
      snprintf(label, sizeof label, "step%d", s);
      int32_t at = 2 * ((s - 1) * n + r);
      for (int32_t t = at; t <= at + 1; t++) {
        ck_assert_int_eq(p->kind[t], t == at ? FS_RECV : FS_SEND);
        ck_assert_int_eq(p->rank[t], r);
        ck_assert_int_eq(p->peer[t], t == at ? (r - s + n) % n : (r + s) % n);
        ck_assert_int_eq(p->value[t], size);
        ck_assert_int_eq(p->flags[t], FS_HAS_SIZE);
        ck_assert_int_eq(fs_task_tag(p, t), s);
        ck_assert_int_eq(fs_task_cpu(p, t), 0);
        ck_assert_int_eq(fs_task_nic(p, t), 0);
        ck_assert_str_eq(fs_task_label(p, t), label);
        ck_assert_int_eq(p->need[t], s > 1 ? 2 : 0);
        if (s > 1) {
          ck_assert(depends_on(p, t, at - 2 * n, 0));
          ck_assert(depends_on(p, t, at - 2 * n + 1, 0));
        }
      }
    }
  assert_tags_match(p);
  int sends[16][16] = {{0}}, recvs[16][16] = {{0}};
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->kind[t] == FS_SEND)
      sends[p->rank[t]][p->peer[t]]++;
    else
      recvs[p->peer[t]][p->rank[t]]++; /* block (sender, receiver) */
  }
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < n; j++) {
      ck_assert_int_eq(sends[i][j], i != j);
      ck_assert_int_eq(recvs[i][j], i != j);
    }
  fs_program_free(p);
}

START_TEST(alltoall_pairwise_structure) {
  for (int32_t n = 1; n <= 16; n++) assert_pairwise(n, 100);
  assert_pairwise(5, 0);
  fs_program *p = generate_sized("alltoall-pairwise", 2, 8); /* one step, tag 1 */
  ck_assert_int_eq(p->tasks, 4);
  ck_assert_int_eq(p->dependencies, 0);
  ck_assert_int_eq(p->label_count, 1);
  fs_program_free(p);
}
END_TEST

START_TEST(rooted_and_alltoall_errors) {
  fs_error err;
  const char *names[] = {"bcast-linear", "scatter-binomial", "gather-binomial",
                         "alltoall-pairwise"};
  fs_generator_options o = fs_test_options(8, 8, 0, NULL);
  o.has_reduce_time = 1, o.reduce_time = 10 * FS_NS;
  for (int i = 0; i < 4; i++) {
    ck_assert(strstr(fs_test_generate_error(names[i], &o, &err), "--reduce-time does not apply"));
    fs_program *p = generate_sized(names[i], 1, 8); /* one rank: nothing to send */
    ck_assert_int_eq(p->tasks, 0);
    ck_assert_int_eq(p->dependencies, 0);
    fs_program_free(p);
  }
  o = fs_test_options(8, FS_SIZE_LIMIT / 7, 0, NULL); /* 8 blocks: past the size limit */
  ck_assert(strstr(fs_test_generate_error("scatter-binomial", &o, &err), "too large"));
  ck_assert(strstr(fs_test_generate_error("gather-binomial", &o, &err), "too large"));
  o = fs_test_options(INT32_MAX, 8, 0, NULL);
  for (int i = 0; i < 4; i++)
    ck_assert(strstr(fs_test_generate_error(names[i], &o, &err), "more than"));
  o = fs_test_options(23171, 8, 0, NULL); /* 2 * 23171 * 23170 > 2^30 - 1 tasks */
  ck_assert(strstr(fs_test_generate_error("alltoall-pairwise", &o, &err), "more than"));
}
END_TEST

/* Larger runs: exact counts and the last tasks. */
START_TEST(rooted_at_scale) {
  int32_t n = 1 << 20;
  fs_program *p = generate_sized("scatter-binomial", n + 1, 8);
  ck_assert_int_eq(p->tasks, 2 * n);
  ck_assert_int_eq(p->dependencies, n - 21);
  ck_assert_int_eq(p->rank[0], 0); /* round 1: the root sends all but its half */
  ck_assert_int_eq(p->peer[0], n);
  ck_assert_int_eq(p->value[0], 8);
  ck_assert_int_eq(p->peer[2], n / 2);
  ck_assert_int_eq(p->value[2], 8 * (int64_t)(n / 2));
  fs_program_free(p);
  p = generate_sized("gather-binomial", n, 8);
  ck_assert_int_eq(p->tasks, 2 * (n - 1));
  ck_assert_int_eq(p->dependencies, n - 1 - 20);
  int32_t last = p->tasks - 2; /* n/2 sends its half to the root after 19 recvs */
  ck_assert_int_eq(p->rank[last], n / 2);
  ck_assert_int_eq(p->value[last], 8 * (int64_t)(n / 2));
  ck_assert_int_eq(p->need[last], 19);
  fs_program_free(p);
  p = generate_sized("bcast-linear", n, 8);
  ck_assert_int_eq(p->tasks, 2 * (n - 1));
  ck_assert_int_eq(p->peer[p->tasks - 2], n - 1);
  fs_program_free(p);
  n = 1000;
  p = generate_sized("alltoall-pairwise", n, 8);
  ck_assert_int_eq(p->tasks, 2 * n * (n - 1));
  ck_assert_int_eq(p->dependencies, 4 * n * (n - 2));
  ck_assert_int_eq(fs_task_tag(p, p->tasks - 1), n - 1);
  ck_assert_int_eq(p->peer[p->tasks - 1], n - 2);
  fs_program_free(p);
}
END_TEST

/* ---- --root ---------------------------------------------------------------- */

/* The tree generators relabel ranks: the program rooted at r is the one
 * rooted at 0, task for task, with every rank and peer v moved to
 * (v + r) mod n (MPICH's relative ranks); dependencies, sizes, labels and
 * tags are unchanged. */
static void assert_rotated(const char *name, int32_t n, int32_t root) {
  fs_generator_options o = fs_test_options(n, 12, 0, NULL);
  fs_program *base = fs_test_generate(name, &o);
  o.root = root;
  fs_program *p = fs_test_generate(name, &o);
  ck_assert_int_eq(p->tasks, base->tasks);
  ck_assert_int_eq(p->dependencies, base->dependencies);
  for (int32_t t = 0; t < p->tasks; t++) {
    ck_assert_int_eq(p->kind[t], base->kind[t]);
    ck_assert_int_eq(p->rank[t], (base->rank[t] + root) % n);
    ck_assert_int_eq(p->peer[t], (base->peer[t] + root) % n);
    ck_assert_int_eq(p->value[t], base->value[t]);
    ck_assert_int_eq(p->flags[t], base->flags[t]);
    ck_assert_int_eq(p->need[t], base->need[t]);
    ck_assert_int_eq(fs_task_tag(p, t), fs_task_tag(base, t));
    ck_assert_str_eq(fs_task_label(p, t), fs_task_label(base, t));
  }
  ck_assert(memcmp(p->successor_at, base->successor_at,
                   sizeof *p->successor_at * ((size_t)p->tasks + 1)) == 0);
  ck_assert(memcmp(p->successor, base->successor, sizeof *p->successor * (size_t)p->dependencies) ==
            0);
  fs_program_free(base);
  fs_program_free(p);
}

static const char *const rotated[] = {"bcast-binomial", "reduce-binomial", "scatter-binomial",
                                      "gather-binomial"};

START_TEST(root_relabels) { /* looped over rotated */
  for (int32_t n = 1; n <= 40; n++)
    for (int32_t root = 0; root < n; root++) assert_rotated(rotated[_i], n, root);
  assert_rotated(rotated[_i], 1000, 999);
  assert_rotated(rotated[_i], 1000, 357);
}
END_TEST

/* 5 ranks, root 2: the root at relative 0, 3 at relative 1, 4 at 2, 0 at
 * 3, 1 at 4. bcast-binomial: 2 sends to 3 (round 1), 4 (round 2), 1
 * (round 3); 3 forwards to 0 (round 2) after its recv. */
START_TEST(bcast_binomial_root_two) {
  fs_generator_options o = fs_test_options(5, 64, 0, NULL);
  o.root = 2;
  fs_program *p = fs_test_generate("bcast-binomial", &o);
  predecessor_lists pl = predecessors_of(p);
  const expected_rank want[5] = {
      {1, {{'r', 3, 64, 0, {0}}}},
      {1, {{'r', 2, 64, 0, {0}}}},
      {3, {{'s', 3, 64, 0, {0}}, {'s', 4, 64, 0, {0}}, {'s', 1, 64, 0, {0}}}},
      {2, {{'r', 2, 64, 0, {0}}, {'s', 0, 64, 1, {1}}}},
      {1, {{'r', 2, 64, 0, {0}}}},
  };
  for (int32_t rank = 0; rank < 5; rank++) assert_rank_is(p, &pl, rank, &want[rank]);
  ck_assert_int_ge(find_task(p, FS_SEND, 2, "round3", 0), 0);
  ck_assert_int_ge(find_task(p, FS_SEND, 3, "round2", 0), 0);
  free_predecessors(&pl);
  fs_program_free(p);
  p = fs_test_generate("reduce-binomial", &o); /* the same messages, reversed */
  pl = predecessors_of(p);
  const expected_rank reduce[5] = {
      {1, {{'s', 3, 64, 0, {0}}}},
      {1, {{'s', 2, 64, 0, {0}}}},
      {3, {{'r', 3, 64, 0, {0}}, {'r', 4, 64, 0, {0}}, {'r', 1, 64, 0, {0}}}},
      {2, {{'r', 0, 64, 0, {0}}, {'s', 2, 64, 1, {1}}}},
      {1, {{'s', 2, 64, 0, {0}}}},
  };
  for (int32_t rank = 0; rank < 5; rank++) assert_rank_is(p, &pl, rank, &reduce[rank]);
  free_predecessors(&pl);
  fs_program_free(p);
}
END_TEST

/* Open MPI's linear bcast loops over absolute ranks, skipping the root:
 * root 2 of 5 sends to 0, 1, 3, 4 in that order, each followed by its recv. */
START_TEST(bcast_linear_root) {
  fs_generator_options o = fs_test_options(5, 64, 0, NULL);
  o.root = 2;
  fs_program *p = fs_test_generate("bcast-linear", &o);
  const int32_t order[4] = {0, 1, 3, 4};
  ck_assert_int_eq(p->tasks, 8);
  ck_assert_int_eq(p->dependencies, 0);
  for (int i = 0; i < 4; i++) {
    int32_t send = 2 * i, recv = send + 1;
    ck_assert(p->kind[send] == FS_SEND && p->rank[send] == 2 && p->peer[send] == order[i]);
    ck_assert(p->kind[recv] == FS_RECV && p->rank[recv] == order[i] && p->peer[recv] == 2);
    ck_assert(p->value[send] == 64 && p->value[recv] == 64);
  }
  fs_program_free(p);
  o = fs_test_options(3, 8, 0, NULL);
  o.root = 2; /* the last rank: the order is 0, 1 */
  p = fs_test_generate("bcast-linear", &o);
  ck_assert(p->peer[0] == 0 && p->peer[2] == 1 && p->rank[0] == 2 && p->rank[2] == 2);
  fs_program_free(p);
}
END_TEST

/* scatter-binomial, 6 ranks, root 4: relative v is rank (v + 4) mod 6, so
 * the root sends relative 4..5 (ranks 2, 3) to rank 2, relative 2..3
 * (ranks 0, 1) to rank 0, then rank 5's block; rank 2 forwards block 3,
 * rank 0 forwards block 1. */
START_TEST(scatter_gather_root) {
  fs_generator_options o = fs_test_options(6, 100, 0, NULL);
  o.root = 4;
  fs_program *p = fs_test_generate("scatter-binomial", &o);
  const int32_t scatter[5][3] = {{4, 2, 2}, {4, 0, 2}, {4, 5, 1}, {0, 1, 1}, {2, 3, 1}};
  for (int i = 0; i < 5; i++) {
    ck_assert_int_eq(p->rank[2 * i], scatter[i][0]);
    ck_assert_int_eq(p->peer[2 * i], scatter[i][1]);
    ck_assert_int_eq(p->value[2 * i], 100 * scatter[i][2]);
  }
  fs_program_free(p);
  p = fs_test_generate("gather-binomial", &o); /* round 1: 5->4, 1->0, 3->2; then 0->4, 2->4 */
  const int32_t gather[5][3] = {{5, 4, 1}, {1, 0, 1}, {3, 2, 1}, {0, 4, 2}, {2, 4, 2}};
  for (int i = 0; i < 5; i++) {
    ck_assert_int_eq(p->rank[2 * i], gather[i][0]);
    ck_assert_int_eq(p->peer[2 * i], gather[i][1]);
    ck_assert_int_eq(p->value[2 * i], 100 * gather[i][2]);
  }
  fs_program_free(p);
}
END_TEST

START_TEST(root_errors) {
  const char *names[] = {"bcast-binomial", "reduce-binomial", "bcast-linear", "scatter-binomial",
                         "gather-binomial"};
  fs_error err;
  for (int i = 0; i < 5; i++) {
    fs_generator_options o = fs_test_options(5, 8, 0, NULL);
    o.root = 5;
    ck_assert_str_eq(fs_test_generate_error(names[i], &o, &err) + strlen(names[i]),
                     ": --root 5 is not a rank of 0..4");
    o.root = -1;
    ck_assert(
        strstr(fs_test_generate_error(names[i], &o, &err), "--root -1 is not a rank of 0..4"));
    o = fs_test_options(1, 8, 0, NULL);
    o.root = 0; /* one rank: the root alone, nothing to send */
    fs_program *p = fs_test_generate(names[i], &o);
    ck_assert_int_eq(p->tasks, 0);
    fs_program_free(p);
  }
}
END_TEST

/* ---- data flow (src/generators/data_flow_check.c) ---------------------------------- */

static void assert_flow(const char *name, int32_t n, int64_t size, int32_t root) {
  fs_generator_options o = fs_test_options(n, size, 0, NULL);
  o.root = root;
  assert_flow_options(name, &o);
}

static const struct {
  const char *name;
  int rooted, powers_of_two;
  int32_t large[3]; /* large rank counts that check in well under a second */
} flows[] = {
    {"multicast", 0, 0, {100, 1000, 4096}},
    {"allreduce-rd", 0, 0, {100, 1000, 4096}},
    {"bcast-binomial", 1, 0, {100, 1000, 4096}},
    {"reduce-binomial", 1, 0, {100, 1000, 4096}},
    {"barrier-dissemination", 0, 0, {100, 1000, 4096}},
    {"allgather-ring", 0, 0, {100, 257, 1000}},
    {"allgather-rd", 0, 1, {128, 1024, 0}},
    {"bcast-linear", 1, 0, {100, 1000, 4096}},
    {"scatter-binomial", 1, 0, {100, 1000, 0}},
    {"gather-binomial", 1, 0, {100, 1000, 0}},
    {"alltoall-pairwise", 0, 0, {100, 0, 0}},
};

/* Every N = 1..64 (powers of 2 where only those are defined), roots 0, 1,
 * N/2 and N-1 for the rooted ones, sizes that split evenly and not. */
START_TEST(flow_small) { /* looped over flows */
  for (int32_t n = 1; n <= 64; n++) {
    if (flows[_i].powers_of_two && (n & (n - 1))) continue;
    const int32_t roots[4] = {0, 1 % n, n / 2, n - 1};
    for (int r = 0; r < (flows[_i].rooted ? 4 : 1); r++) {
      assert_flow(flows[_i].name, n, 1000, roots[r]);
      assert_flow(flows[_i].name, n, 7, roots[r]);
    }
  }
}
END_TEST

START_TEST(flow_large) { /* looped over flows */
  for (int i = 0; i < 3 && flows[_i].large[i]; i++) {
    int32_t n = flows[_i].large[i];
    assert_flow(flows[_i].name, n, 8, 0);
    if (flows[_i].rooted) assert_flow(flows[_i].name, n, 8, n / 3 + 1);
  }
}
END_TEST

/* No collective to check: pingpong, and schedgen's allreduce-recdoub and
 * dissemination, whose orders hold by timing only (their headers say why),
 * record FS_COLLECTIVE_NONE and nothing else. */
START_TEST(flow_none) {
  const char *names[3] = {"pingpong", "allreduce-recdoub", "barrier-dissemination-schedgen"};
  for (int i = 0; i < 3; i++) {
    fs_data_flow flow;
    fs_data_flow_init(&flow);
    fs_generator_options o = fs_test_options(i ? 8 : 2, 64, 0, NULL);
    o.rounds = 3;
    o.flow = &flow;
    fs_program *p = fs_test_generate(names[i], &o);
    ck_assert_int_eq(flow.collective, FS_COLLECTIVE_NONE);
    ck_assert(!flow.failed);
    for (int32_t t = 0; t < p->tasks; t++)
      ck_assert_int_eq(fs_data_flow_action(&flow, t), FS_FLOW_NONE);
    fs_program_free(p);
    fs_data_flow_free(&flow);
    char why[256];
    o.flow = NULL;
    ck_assert(strstr(fs_check_generator_flow(names[i], &o, why, sizeof why), "no data flow"));
  }
}
END_TEST

/* schedgen's dissemination is no barrier: checked as one (its record with
 * the collective set to BARRIER), rank 0 can leave before rank 1 enters at
 * 6 ranks. Each send waits for one recv, so news travels along chains: rank
 * r hears of r-1 in round 1, of r-2 and r-3 in round 2 (r-2's send waited
 * for its recv from r-3), of r-4, r-6 and r-7 in round 3, never of r-5:
 * with 6 ranks, rank 0 never hears of rank 1. MPICH's form passes. */
START_TEST(schedgen_dissemination_is_no_barrier) {
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  fs_generator_options o = fs_test_options(6, 8, 0, NULL);
  o.flow = &flow;
  fs_program *p = fs_test_generate("barrier-dissemination-schedgen", &o);
  flow.collective = FS_COLLECTIVE_BARRIER;
  char why[512];
  const char *failure = fs_check_data_flow(p, &flow, why, sizeof why);
  ck_assert_msg(failure &&
                    strcmp(failure, "rank 0 can leave the barrier before rank 1 enters it") == 0,
                "%s", failure ? failure : "(accepted)");
  fs_program_free(p);
  fs_data_flow_free(&flow);
  assert_flow("barrier-dissemination", 6, 8, 0);
}
END_TEST

/* What the records say, spelled out at small N. */
START_TEST(flow_records) {
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  /* allreduce-rd at 3 ranks: collapse put 0->1 to a temporary, 1 combines
   * it; round 1: 1 and 2 put to temporaries and combine; expand put 1->0
   * writes 0's buffer. One block of S bytes. */
  fs_generator_options o = fs_test_options(3, 40, 0, NULL);
  o.flow = &flow;
  fs_program *p = fs_test_generate("allreduce-rd", &o);
  ck_assert_int_eq(flow.collective, FS_COLLECTIVE_ALLREDUCE);
  ck_assert_int_eq(flow.blocks, 1);
  ck_assert_int_eq(flow.block_size[0], 40);
  const fs_flow_action rd[] = {FS_FLOW_NONE,     FS_FLOW_NONE,    FS_FLOW_NONE,
                               FS_FLOW_PUT_TEMP, FS_FLOW_COMBINE, FS_FLOW_PUT_TEMP,
                               FS_FLOW_PUT_TEMP, FS_FLOW_COMBINE, FS_FLOW_COMBINE,
                               FS_FLOW_PUT_WRITE};
  ck_assert_int_eq(p->tasks, 10);
  for (int32_t t = 0; t < 10; t++) ck_assert_int_eq(fs_data_flow_action(&flow, t), rd[t]);
  ck_assert_int_eq(p->kind[9], FS_PUT);
  ck_assert(p->rank[9] == 1 && p->peer[9] == 0);
  fs_program_free(p);
  /* scatter-binomial, 5 ranks, root 3: the root's first message (relative
   * 4, rank 2) carries block 2; the second (relative 2..3, ranks 0, 1)
   * blocks 0, 1: ranges wrap around the root. */
  o = fs_test_options(5, 10, 0, NULL);
  o.root = 3;
  o.flow = &flow;
  p = fs_test_generate("scatter-binomial", &o);
  ck_assert_int_eq(flow.collective, FS_COLLECTIVE_SCATTER);
  ck_assert_int_eq(flow.root, 3);
  ck_assert(p->rank[0] == 3 && p->peer[0] == 2 && flow.block_count[0] == 1 &&
            flow.block[flow.block_at[0]] == 2);
  ck_assert(p->rank[2] == 3 && p->peer[2] == 0 && flow.block_count[2] == 2 &&
            flow.block[flow.block_at[2]] == 0 && flow.block[flow.block_at[2] + 1] == 1);
  ck_assert_int_eq(fs_data_flow_action(&flow, 3), FS_FLOW_WRITE);
  fs_program_free(p);
  fs_data_flow_free(&flow);
}
END_TEST

/* ---- analytic times under hockney ------------------------------------------ */

/* alpha 1 us, beta 1 ns/B: a message of s bytes is (1000 + s) ns, the
 * sender busy until it arrives; a recv takes no CPU. */
#define HOCKNEY "alpha=1us beta=1ns"

static fs_time makespan_of(const char *name, int32_t n, int64_t size, int32_t root,
                           fs_time reduce) {
  fs_generator_options o = fs_test_options(n, size, 0, NULL);
  o.root = root;
  if (reduce >= 0) o.has_reduce_time = 1, o.reduce_time = reduce;
  return fs_test_generated_makespan(name, &o, "hockney", "fixed", HOCKNEY);
}

static int64_t floor_log2(int64_t n) {
  int64_t k = 0;
  while (n >>= 1) k++;
  return k;
}

static fs_time hops(int64_t count, int64_t bytes) { return count * 1000 * FS_NS + bytes * FS_NS; }

/* Thesis eq. 5.3, recursive doubling with collapse and expand, N not a
 * power of 2: (floor(log2 N) + 2)(alpha + n beta + n gamma). In the DAG a
 * collapsed odd rank waits for its collapse (put + reduce), runs
 * floor(log2 N) rounds (put + reduce, the partner never later than itself),
 * then expands (a put, no reduce): the eq. 5.3 stage count of messages,
 * with one reduce fewer than it counts. With n = 64 B and gamma n = 5 ns:
 * (k+2) 1064 + (k+1) 5 ns; with no reduce time eq. 5.3 exactly. Powers of 2
 * (eq. 5.2 and 5.6) are asserted in tests/test_models.c. */
START_TEST(time_allreduce_rd_eq_5_3) {
  const int32_t ranks[] = {3, 5, 6, 7, 12, 100, 1000};
  for (int i = 0; i < 7; i++) {
    int64_t k = floor_log2(ranks[i]);
    ck_assert_int_eq(makespan_of("allreduce-rd", ranks[i], 64, 0, 5 * FS_NS),
                     (k + 2) * 1064 * FS_NS + (k + 1) * 5 * FS_NS);
    ck_assert_int_eq(makespan_of("allreduce-rd", ranks[i], 64, 0, 0), (k + 2) * 1064 * FS_NS);
  }
}
END_TEST

/* bcast-binomial: relative rank v receives at (floor(log2 v) + 1) hops
 * (its parent v - 2^h sends round h in [h, h+1) hops, having received by
 * hop h), and a sender's last send ends by ceil(log2 N) hops:
 * ceil(log2 N)(alpha + beta S). N = 11: 4 hops of 1100 ns, any root. */
START_TEST(time_bcast_binomial) {
  for (int32_t root = 0; root < 11; root += 5)
    ck_assert_int_eq(makespan_of("bcast-binomial", 11, 100, root, -1), hops(4, 400));
  ck_assert_int_eq(makespan_of("bcast-binomial", 1024, 100, 0, -1), hops(10, 1000));
}
END_TEST

/* reduce-binomial: each rank sends once, after its recvs, which take no
 * CPU; v's message reaches the root after popcount(v) hops (each hop
 * removes v's highest bit), so the makespan is max popcount(v < N) =
 * floor(log2 N) hops: N = 7 takes 2 hops (3 -> 1 -> 0, 6 -> 2 -> 0), not
 * the broadcast's ceil(log2 7) = 3. */
START_TEST(time_reduce_binomial) {
  ck_assert_int_eq(makespan_of("reduce-binomial", 7, 100, 0, -1), hops(2, 200));
  ck_assert_int_eq(makespan_of("reduce-binomial", 7, 100, 4, -1), hops(2, 200));
  ck_assert_int_eq(makespan_of("reduce-binomial", 8, 100, 0, -1), hops(3, 300));
}
END_TEST

/* allreduce-recdoub: 2 log2 N steps, each a send of that step's size
 * after the previous step's arrival: N = 8, S = 8000: halving 4000, 2000,
 * 1000, doubling 1000, 2000, 4000: 6 alpha + 14000 beta = 2 alpha log2 N +
 * 2 ((N-1)/N) S beta, the Rabenseifner cost of eq. 5.4 with gamma = 0
 * (schedgen prices no reduction). */
START_TEST(time_allreduce_recdoub) {
  ck_assert_int_eq(makespan_of("allreduce-recdoub", 8, 8000, 0, -1), hops(6, 14000));
}
END_TEST

/* barrier-dissemination: ceil(log2 N) rounds, each send after the
 * previous round's recv: N = 5, S = 0: 3 alpha; S = 8: 3 (alpha + 8 beta). */
START_TEST(time_barrier_dissemination) {
  ck_assert_int_eq(makespan_of("barrier-dissemination", 5, 0, 0, -1), hops(3, 0));
  ck_assert_int_eq(makespan_of("barrier-dissemination", 5, 8, 0, -1), hops(3, 24));
}
END_TEST

/* allgather-ring: N-1 steps, each send after the previous recv (which
 * lands when the rank's own previous send ends): (N-1)(alpha + beta S);
 * N = 5, S = 100: 4 * 1100 ns. allgather-rd: round i sends 2^i S:
 * log2 N alpha + (N-1) S beta; N = 8: 3 alpha + 700 beta. */
START_TEST(time_allgathers) {
  ck_assert_int_eq(makespan_of("allgather-ring", 5, 100, 0, -1), hops(4, 400));
  ck_assert_int_eq(makespan_of("allgather-rd", 8, 100, 0, -1), hops(3, 700));
}
END_TEST

/* alltoall-pairwise: N-1 steps, each after both halves of the previous:
 * (N-1)(alpha + beta S); N = 5: 4 * 1100 ns. */
START_TEST(time_alltoall_pairwise) {
  ck_assert_int_eq(makespan_of("alltoall-pairwise", 5, 100, 0, -1), hops(4, 400));
}
END_TEST

/* bcast-linear: the root sends N-1 messages back to back: (N-1)(alpha +
 * beta S); N = 6, any root: 5 * 1100 ns. */
START_TEST(time_bcast_linear) {
  ck_assert_int_eq(makespan_of("bcast-linear", 6, 100, 0, -1), hops(5, 500));
  ck_assert_int_eq(makespan_of("bcast-linear", 6, 100, 3, -1), hops(5, 500));
}
END_TEST

/* scatter-binomial, N = 6, S = 100 (relative ranks): the root sends 2
 * blocks to 4 [0, 1200], 2 blocks to 2 [1200, 2400], 1 to 1 [2400, 3500];
 * 4 forwards 1 block to 5 [1200, 2300], 2 to 3 [2400, 3500]: 3500 ns =
 * ceil(log2 N) alpha + (N-1) S beta (the root sends every block but its
 * own, one message per round). N = 8: 3 alpha + 700 beta.
 * gather-binomial, N = 6: 1, 3, 5 send 1 block [0, 1100]; 2 and 4 then send
 * 2 blocks [1100, 2300]; the root's recvs take no CPU: 2300 ns = 2 alpha +
 * 3 S beta. N = 8: 4 receives 5's block and 6's two (6 after 7's, at
 * 2300), then sends 4 blocks [2300, 3700]: 3 alpha + 7 S beta. */
START_TEST(time_scatter_gather_binomial) {
  ck_assert_int_eq(makespan_of("scatter-binomial", 6, 100, 0, -1), hops(3, 500));
  ck_assert_int_eq(makespan_of("scatter-binomial", 6, 100, 5, -1), hops(3, 500));
  ck_assert_int_eq(makespan_of("scatter-binomial", 8, 100, 0, -1), hops(3, 700));
  ck_assert_int_eq(makespan_of("gather-binomial", 6, 100, 0, -1), hops(2, 300));
  ck_assert_int_eq(makespan_of("gather-binomial", 6, 100, 2, -1), hops(2, 300));
  ck_assert_int_eq(makespan_of("gather-binomial", 8, 100, 0, -1), hops(3, 700));
}
END_TEST

static Suite *generators_suite(void) {
  Suite *s = suite_create("generators");
  TCase *tc = tcase_create("structure");
  tcase_add_test(tc, registry);
  tcase_add_test(tc, pingpong_structure);
  tcase_add_test(tc, pingpong_errors);
  tcase_add_test(tc, multicast_structure);
  tcase_add_test(tc, rd_power_of_two_edges);
  tcase_add_test(tc, rd_collapse_expand_edges);
  tcase_add_loop_test(tc, rd_counts_case, 1, 65);
  tcase_add_test(tc, rd_one_rank);
  tcase_add_test(tc, rm_six_ranks_figure);
  tcase_add_loop_test(tc, rm_counts_and_flow, 0,
                      (int)(sizeof factorizations / sizeof factorizations[0]));
  tcase_add_test(tc, rm_twos_equal_rd);
  tcase_add_test(tc, rm_errors);
  tcase_add_loop_test(tc, common_errors, 0, 15);
  tcase_add_test(tc, too_many_tasks);
  tcase_add_test(tc, reduce_pricing);
  suite_add_tcase(s, tc);
  TCase *two = tcase_create("two_sided");
  tcase_add_loop_test(two, two_sided_match_schedgen, 0, 4);
  tcase_add_test(two, bcast_four_ranks);
  tcase_add_test(two, reduce_eight_ranks);
  tcase_add_test(two, recdoub_eight_ranks);
  tcase_add_test(two, recdoub_zero_byte_steps);
  tcase_add_test(two, dissemination_five_ranks);
  tcase_add_test(two, dissemination_mpich);
  tcase_add_test(two, two_sided_errors);
  tcase_add_test(two, two_sided_at_scale);
  tcase_add_test(two, allgather_ring_structure);
  tcase_add_test(two, allgather_ring_four_ranks);
  tcase_add_test(two, allgather_rd_structure);
  tcase_add_test(two, allgather_rd_eight_ranks);
  tcase_add_test(two, allgather_errors);
  tcase_add_test(two, allgather_at_scale);
  tcase_add_loop_test(two, rooted_match_mpi, 0, 3);
  tcase_add_test(two, scatter_gather_six_ranks);
  tcase_add_test(two, alltoall_pairwise_structure);
  tcase_add_test(two, rooted_and_alltoall_errors);
  tcase_add_test(two, rooted_at_scale);
  tcase_add_loop_test(two, root_relabels, 0, 4);
  tcase_add_test(two, bcast_binomial_root_two);
  tcase_add_test(two, bcast_linear_root);
  tcase_add_test(two, scatter_gather_root);
  tcase_add_test(two, root_errors);
  suite_add_tcase(s, two);
  TCase *flow = tcase_create("data_flow");
  tcase_add_loop_test(flow, flow_small, 0, (int)(sizeof flows / sizeof flows[0]));
  tcase_add_loop_test(flow, flow_large, 0, (int)(sizeof flows / sizeof flows[0]));
  tcase_add_test(flow, flow_none);
  tcase_add_test(flow, schedgen_dissemination_is_no_barrier);
  tcase_add_test(flow, flow_records);
  suite_add_tcase(s, flow);
  TCase *times = tcase_create("analytic_times");
  tcase_add_test(times, time_allreduce_rd_eq_5_3);
  tcase_add_test(times, time_bcast_binomial);
  tcase_add_test(times, time_reduce_binomial);
  tcase_add_test(times, time_allreduce_recdoub);
  tcase_add_test(times, time_barrier_dissemination);
  tcase_add_test(times, time_allgathers);
  tcase_add_test(times, time_alltoall_pairwise);
  tcase_add_test(times, time_bcast_linear);
  tcase_add_test(times, time_scatter_gather_binomial);
  suite_add_tcase(s, times);
  return s;
}

int main(void) { return fs_test_run(generators_suite()); }
