/* test_generators.c: the schedules of `fennelsim gen`: exact structure
 * (counts, peers, edges, labels, issue order), option errors, and a
 * data-flow proof that the allreduces combine every contribution exactly
 * once into every rank's result. Timing under the models is tested with the
 * engine elsewhere. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "generators/generators.h"
#include "test_support.h"

/* ---- helpers ---------------------------------------------------------- */

static fs_generator_options options_for(int32_t ranks, int64_t size) {
  fs_generator_options o;
  memset(&o, 0, sizeof o);
  o.ranks = ranks;
  o.size = size;
  o.rounds = 1;
  return o;
}

static void set_factors(fs_generator_options *o, const int32_t *factors, int count) {
  memcpy(o->factors, factors, (size_t)count * sizeof *factors);
  o->factor_count = count;
}

static fs_program *generate(const char *name, const fs_generator_options *o) {
  const fs_generator *g = fs_generator_find(name);
  ck_assert_msg(g != NULL, "no generator %s", name);
  fs_error err = {{0}};
  fs_program *p = g->generate(o, &err);
  ck_assert_msg(p != NULL, "%s failed: %s", name, err.message);
  ck_assert(p->finalized);
  ck_assert_int_eq(p->capacity, p->tasks); /* the reservation was exact */
  return p;
}

/* Generates and expects failure; returns the message. */
static const char *generate_error(const char *name, const fs_generator_options *o, fs_error *err) {
  memset(err, 0, sizeof *err);
  fs_program *p = fs_generator_find(name)->generate(o, err);
  ck_assert_msg(p == NULL, "%s accepted bad options", name);
  ck_assert_msg(err->message[0] != 0, "%s failed without a message", name);
  return err->message;
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

/* ---- data-flow checker ------------------------------------------------

 * Walks tasks in id order (a topological order when every dependency points
 * to an earlier task, which it checks), carrying per task the set of rank
 * contributions (a bitset, N <= 64) it holds:
 * - a start holds its rank's contribution;
 * - any other task holds the union of what it depends on. Its dependencies
 *   split into its own rank's value (edges from its own rank: a start or
 *   reduce, or an own put's local completion: the buffer it sent) and the
 *   data put to it (a put's remote completion, which must land on the put's
 *   target). The own value must be the rank's current one (last start or
 *   reduce), and it and every incoming set must be pairwise disjoint: no
 *   contribution is combined twice.
 * A rank's result is the value of its last start or reduce, or of a later
 * put to it that no task consumes (the expand of recursive doubling). Every
 * result must hold every contribution. Returns NULL, or what is wrong. */
typedef struct flow {
  uint64_t *own, *incoming, *held;
  uint8_t *has_own;
  uint64_t current[64], result[64];
  char why[256];
} flow;

static const char *flow_fail(flow *f, const char *format, ...) FS_PRINTF(2, 3);
static const char *flow_fail(flow *f, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(f->why, sizeof f->why, format, ap);
  va_end(ap);
  return f->why;
}

static int consumed_remotely(const fs_program *p, int32_t put) {
  for (int64_t e = p->successor_at[put]; e < p->successor_at[put + 1]; e++)
    if (!(p->successor[e] & FS_EDGE_LOCAL)) return 1;
  return 0;
}

static const char *flow_task(const fs_program *p, flow *f, int32_t t) {
  int32_t rank = p->rank[t];
  if (p->kind[t] == FS_START) {
    if (f->has_own[t] || f->incoming[t]) return flow_fail(f, "start %d has dependencies", t);
    f->held[t] = (uint64_t)1 << rank;
  } else {
    if (f->has_own[t] && f->own[t] != f->current[rank])
      return flow_fail(f, "task %d uses a stale value of rank %d", t, rank);
    if (f->own[t] & f->incoming[t])
      return flow_fail(f, "task %d on rank %d combines a contribution twice", t, rank);
    f->held[t] = f->own[t] | f->incoming[t];
  }
  if (p->kind[t] == FS_START || p->kind[t] == FS_COMPUTE)
    f->current[rank] = f->result[rank] = f->held[t];
  if (p->kind[t] == FS_PUT && !consumed_remotely(p, t)) f->result[p->peer[t]] = f->held[t];
  for (int64_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
    int32_t s = FS_EDGE_TASK(p->successor[e]);
    int delivered = p->kind[t] == FS_PUT && !(p->successor[e] & FS_EDGE_LOCAL);
    if (s <= t) return flow_fail(f, "task %d depends on task %d, which is not earlier", s, t);
    if (delivered) {
      if (p->rank[s] != p->peer[t])
        return flow_fail(f, "put %d is used on rank %d, not its target", t, p->rank[s]);
      if (f->incoming[s] & f->held[t])
        return flow_fail(f, "task %d receives a contribution twice (put %d)", s, t);
      f->incoming[s] |= f->held[t];
    } else {
      if (p->rank[s] != rank)
        return flow_fail(f, "task %d waits on rank %d without a put", s, rank);
      if (f->has_own[s] && f->own[s] != f->held[t])
        return flow_fail(f, "task %d depends on two values of rank %d", s, rank);
      f->own[s] = f->held[t];
      f->has_own[s] = 1;
    }
  }
  return NULL;
}

static const char *check_allreduce_flow(const fs_program *p, flow *f) {
  ck_assert_int_le(p->ranks, 64);
  size_t n = (size_t)p->tasks;
  f->own = calloc(n, 8), f->incoming = calloc(n, 8), f->held = calloc(n, 8);
  f->has_own = calloc(n, 1);
  memset(f->current, 0, sizeof f->current);
  memset(f->result, 0, sizeof f->result);
  const char *why = NULL;
  for (int32_t t = 0; t < p->tasks && !why; t++) why = flow_task(p, f, t);
  uint64_t all = p->ranks == 64 ? ~(uint64_t)0 : ((uint64_t)1 << p->ranks) - 1;
  for (int32_t r = 0; r < p->ranks && !why; r++)
    if (f->result[r] != all) why = flow_fail(f, "rank %d ends without every contribution", r);
  free(f->own), free(f->incoming), free(f->held), free(f->has_own);
  return why;
}

static void assert_allreduce_flow(const fs_program *p) {
  flow f;
  const char *why = check_allreduce_flow(p, &f);
  ck_assert_msg(why == NULL, "%d ranks: %s", p->ranks, why);
}

/* A hand-built 2-rank program: each rank puts its value to the other and
 * reduces it; `mistake` breaks it in one of the ways the checker must see. */
enum flow_mistake { CORRECT, PUT_TWICE, NO_PUT_BACK, STALE_VALUE };

static fs_program *two_rank_exchange(enum flow_mistake mistake) {
  fs_program *p = fs_program_new(2);
  int32_t s0 = fs_program_add(p, FS_START, 0), s1 = fs_program_add(p, FS_START, 1);
  int32_t p0 = fs_program_add(p, FS_PUT, 0), p1 = fs_program_add(p, FS_PUT, 1);
  fs_task_set_peer(p, p0, 1), fs_task_set_peer(p, p1, 0);
  fs_program_depend(p, p0, s0, 0), fs_program_depend(p, p1, s1, 0);
  int32_t again = -1;
  if (mistake == PUT_TWICE) {
    again = fs_program_add(p, FS_PUT, 0);
    fs_task_set_peer(p, again, 1), fs_program_depend(p, again, s0, 0);
  }
  int32_t c0 = fs_program_add(p, FS_COMPUTE, 0), c1 = fs_program_add(p, FS_COMPUTE, 1);
  fs_program_depend(p, c0, p0, 1);
  if (mistake != NO_PUT_BACK) fs_program_depend(p, c0, p1, 0);
  fs_program_depend(p, c1, p1, 1), fs_program_depend(p, c1, p0, 0);
  if (again >= 0) fs_program_depend(p, c1, again, 0);
  if (mistake == STALE_VALUE) { /* a second exchange that sends rank 0's start again */
    int32_t late = fs_program_add(p, FS_PUT, 0);
    fs_task_set_peer(p, late, 1), fs_program_depend(p, late, s0, 0);
  }
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  return p;
}

/* ---- registry ---------------------------------------------------------- */

START_TEST(test_registry) {
  int count = 0;
  const fs_generator *all = fs_generator_list(&count);
  const char *expected[] = {"pingpong", "multicast", "allreduce-rd", "allreduce-rm"};
  ck_assert_int_eq(count, 4);
  for (int i = 0; i < count; i++) {
    ck_assert_str_eq(all[i].name, expected[i]);
    ck_assert_ptr_eq(fs_generator_find(expected[i]), &all[i]);
    ck_assert(all[i].summary && strlen(all[i].summary) > 10 && !strchr(all[i].summary, '\n'));
    ck_assert(all[i].generate != NULL);
  }
  ck_assert_ptr_null(fs_generator_find("allreduce"));
  ck_assert_ptr_null(fs_generator_find(""));
}
END_TEST

/* ---- pingpong ---------------------------------------------------------- */

START_TEST(test_pingpong_structure) {
  fs_generator_options o = options_for(2, 64);
  o.rounds = 3;
  fs_program *p = generate("pingpong", &o);
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

START_TEST(test_pingpong_errors) {
  fs_error err;
  fs_generator_options o = options_for(3, 8);
  ck_assert(strstr(generate_error("pingpong", &o, &err), "exactly 2 ranks"));
  o = options_for(2, 8);
  o.rounds = 0;
  ck_assert(strstr(generate_error("pingpong", &o, &err), "--rounds"));
  o.rounds = INT32_MAX; /* 2^32 tasks: refused before allocating */
  ck_assert(strstr(generate_error("pingpong", &o, &err), "more than"));
}
END_TEST

/* ---- multicast --------------------------------------------------------- */

START_TEST(test_multicast_structure) {
  fs_program *p =
      generate("multicast", &(fs_generator_options){.ranks = 5, .size = 1000, .rounds = 1});
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
  p = generate("multicast", &(fs_generator_options){.ranks = 1, .rounds = 1});
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

START_TEST(test_rd_power_of_two_edges) {
  fs_program *p =
      generate("allreduce-rd", &(fs_generator_options){.ranks = 8, .size = 8, .rounds = 1});
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
START_TEST(test_rd_collapse_expand_edges) {
  fs_program *p =
      generate("allreduce-rd", &(fs_generator_options){.ranks = 6, .size = 8, .rounds = 1});
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

START_TEST(test_rd_counts_and_flow) { /* looped over n = 1..64 */
  int n = _i;
  rd_counts c = rd_counts_of(n);
  fs_program *p =
      generate("allreduce-rd", &(fs_generator_options){.ranks = n, .size = 8, .rounds = 1});
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
  assert_allreduce_flow(p);
  fs_program_free(p);
}
END_TEST

START_TEST(test_rd_one_rank) {
  fs_program *p =
      generate("allreduce-rd", &(fs_generator_options){.ranks = 1, .size = 8, .rounds = 1});
  ck_assert_int_eq(p->tasks, 1);
  ck_assert_int_eq(p->kind[0], FS_START);
  ck_assert_int_eq(p->dependencies, 0);
  fs_program_free(p);
}
END_TEST

/* ---- allreduce-rm -------------------------------------------------------- */

/* Fennel thesis Fig. 5.25: 6 ranks, (3,2): 6 starts, 18 puts, 12 reduces. */
START_TEST(test_rm_six_ranks_figure) {
  fs_generator_options o = options_for(6, 8);
  set_factors(&o, (const int32_t[]){3, 2}, 2);
  fs_program *p = generate("allreduce-rm", &o);
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
  assert_allreduce_flow(p);
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

START_TEST(test_rm_counts_and_flow) { /* looped over factorizations */
  int count = factorizations[_i].count, n = 1;
  const int32_t *k = factorizations[_i].factors;
  for (int i = 0; i < count; i++) n *= k[i];
  fs_generator_options o = options_for(n, 8);
  set_factors(&o, k, count);
  fs_program *p = generate("allreduce-rm", &o);
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
  assert_allreduce_flow(p);
  fs_program_free(p);
}
END_TEST

/* Factors all 2 are recursive doubling: the same DAG, task for task. */
START_TEST(test_rm_twos_equal_rd) {
  fs_generator_options o = options_for(8, 32);
  set_factors(&o, (const int32_t[]){2, 2, 2}, 3);
  fs_program *rm = generate("allreduce-rm", &o), *rd = generate("allreduce-rd", &o);
  ck_assert_int_eq(rm->tasks, rd->tasks);
  ck_assert_int_eq(rm->dependencies, rd->dependencies);
  size_t n = (size_t)rm->tasks;
  ck_assert(memcmp(rm->kind, rd->kind, n) == 0 && memcmp(rm->flags, rd->flags, n) == 0);
  ck_assert(memcmp(rm->rank, rd->rank, 4 * n) == 0 && memcmp(rm->peer, rd->peer, 4 * n) == 0);
  ck_assert(memcmp(rm->value, rd->value, 8 * n) == 0 && memcmp(rm->need, rd->need, 4 * n) == 0);
  ck_assert(memcmp(rm->successor_at, rd->successor_at, 8 * (n + 1)) == 0);
  ck_assert(memcmp(rm->successor, rd->successor, 4 * (size_t)rm->dependencies) == 0);
  fs_program_free(rm);
  fs_program_free(rd);
}
END_TEST

START_TEST(test_rm_errors) {
  fs_error err;
  fs_generator_options o = options_for(6, 8);
  ck_assert(strstr(generate_error("allreduce-rm", &o, &err), "--factors"));
  set_factors(&o, (const int32_t[]){4, 2}, 2);
  ck_assert(strstr(generate_error("allreduce-rm", &o, &err), "more than --ranks 6"));
  set_factors(&o, (const int32_t[]){2, 2}, 2);
  ck_assert(strstr(generate_error("allreduce-rm", &o, &err), "multiply to 4, not --ranks 6"));
  set_factors(&o, (const int32_t[]){6, 1}, 2);
  ck_assert(strstr(generate_error("allreduce-rm", &o, &err), "at least 2"));
  o.factor_count = 65;
  ck_assert(strstr(generate_error("allreduce-rm", &o, &err), "at most 64"));
  o = options_for(1, 8); /* one rank needs no factor */
  fs_program *p = generate("allreduce-rm", &o);
  ck_assert_int_eq(p->tasks, 1);
  fs_program_free(p);
}
END_TEST

/* ---- shared option checks and reduce pricing ------------------------------ */

START_TEST(test_common_errors) { /* looped over the generators */
  const char *name = fs_generator_list(NULL)[_i].name;
  fs_error err;
  fs_generator_options o = options_for(2, -1);
  o.factors[0] = 2, o.factor_count = 1;
  ck_assert(strstr(generate_error(name, &o, &err), "--size"));
  o = options_for(0, 8);
  ck_assert(strstr(generate_error(name, &o, &err), "--ranks"));
  o = options_for(2, 8);
  o.factors[0] = 2, o.factor_count = 1;
  o.has_reduce_time = 1, o.reduce_time = -1;
  ck_assert(strstr(generate_error(name, &o, &err), "--reduce-time"));
}
END_TEST

START_TEST(test_too_many_tasks) {
  fs_error err;
  fs_generator_options o = options_for(INT32_MAX, 8);
  ck_assert(strstr(generate_error("allreduce-rd", &o, &err), "more than"));
  ck_assert(strstr(generate_error("multicast", &o, &err), "more than"));
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

START_TEST(test_reduce_pricing) {
  for (int timed = 0; timed < 2; timed++) {
    fs_generator_options o = options_for(6, 4096);
    o.has_reduce_time = timed, o.reduce_time = timed ? 250 * FS_NS : 0;
    fs_program *p = generate("allreduce-rd", &o); /* 6 ranks: collapse reduces too */
    assert_reduces_priced(p, 4096, &o);
    fs_program_free(p);
    set_factors(&o, (const int32_t[]){3, 2}, 2);
    p = generate("allreduce-rm", &o);
    assert_reduces_priced(p, 4096, &o);
    fs_program_free(p);
  }
}
END_TEST

/* ---- the checker itself must catch mistakes ----------------------------- */

START_TEST(test_flow_checker_catches_mistakes) {
  const struct {
    enum flow_mistake mistake;
    const char *expected;
  } cases[] = {
      {CORRECT, NULL},
      {PUT_TWICE, "receives a contribution twice"},
      {NO_PUT_BACK, "rank 0 ends without every contribution"},
      {STALE_VALUE, "stale value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fs_program *p = two_rank_exchange(cases[i].mistake);
    flow f;
    const char *why = check_allreduce_flow(p, &f);
    if (!cases[i].expected)
      ck_assert_msg(why == NULL, "correct exchange rejected: %s", why);
    else
      ck_assert_msg(why && strstr(why, cases[i].expected), "case %zu: got %s", i,
                    why ? why : "(accepted)");
    fs_program_free(p);
  }
}
END_TEST

static Suite *generators_suite(void) {
  Suite *s = suite_create("generators");
  TCase *tc = tcase_create("structure");
  tcase_add_test(tc, test_registry);
  tcase_add_test(tc, test_pingpong_structure);
  tcase_add_test(tc, test_pingpong_errors);
  tcase_add_test(tc, test_multicast_structure);
  tcase_add_test(tc, test_rd_power_of_two_edges);
  tcase_add_test(tc, test_rd_collapse_expand_edges);
  tcase_add_loop_test(tc, test_rd_counts_and_flow, 1, 65);
  tcase_add_test(tc, test_rd_one_rank);
  tcase_add_test(tc, test_rm_six_ranks_figure);
  tcase_add_loop_test(tc, test_rm_counts_and_flow, 0,
                      (int)(sizeof factorizations / sizeof factorizations[0]));
  tcase_add_test(tc, test_rm_twos_equal_rd);
  tcase_add_test(tc, test_rm_errors);
  tcase_add_loop_test(tc, test_common_errors, 0, 4);
  tcase_add_test(tc, test_too_many_tasks);
  tcase_add_test(tc, test_reduce_pricing);
  tcase_add_test(tc, test_flow_checker_catches_mistakes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return fs_test_run(generators_suite()); }
