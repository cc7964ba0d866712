/* test_mpi_flat.c: the MPI libraries' algorithms added for issue 19 that
 * are not trees: barrier-rd, barrier-double-ring, barrier-tree (Open MPI),
 * alltoall-scattered, alltoall-pairwise-xor (MPICH), gather-linear-sync and
 * scatter-linear-nb (Open MPI).
 *
 * - Structure: every rank's ops in program order (kind, peer, size) against
 *   a transcription of the library's per-rank loop, N = 1..33 and powers of
 *   2 to 128, several roots and windows; task and dependency counts.
 * - Option errors.
 * - Data flow (tests/data_flow_check.h) at the same counts.
 * - Exact makespans under hockney, and under pipelined or loggops where the
 *   windows, the go messages or the blocking of the sends show, each
 *   derived in its comment; the GOAL that `gen` writes runs to the same. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "data_flow_check.h"
#include "generator_support.h"
#include "generators/generators.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000LL /* picoseconds */
#define US 1000000LL

static char *out, *err;

static const char *const NAMES[] = {"barrier-rd",
                                    "barrier-double-ring",
                                    "barrier-tree",
                                    "alltoall-scattered",
                                    "alltoall-pairwise-xor",
                                    "gather-linear-sync",
                                    "scatter-linear-nb"};
#define NAME_COUNT ((int)(sizeof NAMES / sizeof NAMES[0]))

/* ---- the libraries' loops, per rank ------------------------------------- */

typedef struct op {
  char kind; /* 'S' or 'R' */
  int32_t peer;
  int64_t size;
} op;

typedef struct ops {
  op at[4096];
  int count;
} ops;

static void push(ops *l, char kind, int32_t peer, int64_t size) {
  ck_assert_int_lt(l->count, 4096);
  l->at[l->count++] = (op){kind, peer, size};
}

static int32_t floor_pof2(int32_t n) {
  int32_t p = 1;
  while (2 * p <= n) p *= 2;
  return p;
}

/* Open MPI's recursivedoubling: sendrecv_zero is an irecv, then an isend. */
static void barrier_rd_loop(int32_t n, int32_t r, int64_t s, ops *l) {
  int32_t adjsize = floor_pof2(n);
  if (adjsize != n) {
    if (r >= adjsize) {
      push(l, 'R', r - adjsize, s), push(l, 'S', r - adjsize, s);
    } else if (r < n - adjsize) {
      push(l, 'R', r + adjsize, s);
    }
  }
  if (r < adjsize)
    for (int32_t mask = 1; mask < adjsize; mask <<= 1)
      push(l, 'R', r ^ mask, s), push(l, 'S', r ^ mask, s);
  if (adjsize != n && r < n - adjsize) push(l, 'S', r + adjsize, s);
}

static void barrier_double_ring_loop(int32_t n, int32_t r, int64_t s, ops *l) {
  if (n == 1) return; /* a lone rank does not talk to itself */
  int32_t left = (r + n - 1) % n, right = (r + 1) % n;
  for (int ring = 0; ring < 2; ring++) {
    if (r > 0) push(l, 'R', left, s);
    push(l, 'S', right, s);
    if (r == 0) push(l, 'R', left, s);
  }
}

static void barrier_tree_loop(int32_t n, int32_t r, int64_t s, ops *l) {
  int32_t depth = 1;
  while (depth < n) depth *= 2;
  for (int32_t jump = 1; jump < depth; jump <<= 1) {
    int32_t partner = r ^ jump;
    if (!(partner & (jump - 1)) && partner < n) push(l, partner > r ? 'R' : 'S', partner, s);
  }
  for (int32_t jump = depth >> 1; jump > 0; jump >>= 1) {
    int32_t partner = r ^ jump;
    if (!(partner & (jump - 1)) && partner < n) push(l, partner > r ? 'S' : 'R', partner, s);
  }
}

/* MPICH's scattered, its message to itself left out. */
static void alltoall_scattered_loop(int32_t n, int32_t r, int64_t s, int32_t bblock, ops *l) {
  for (int32_t ii = 0; ii < n; ii += bblock) {
    int32_t ss = n - ii < bblock ? n - ii : bblock;
    for (int32_t i = 0; i < ss; i++)
      if ((r + i + ii) % n != r) push(l, 'R', (r + i + ii) % n, s);
    for (int32_t i = 0; i < ss; i++)
      if ((r - i - ii + n) % n != r) push(l, 'S', (r - i - ii + n) % n, s);
  }
}

static void alltoall_pairwise_xor_loop(int32_t n, int32_t r, int64_t s, ops *l) {
  for (int32_t i = 1; i < n; i++) push(l, 'R', r ^ i, s), push(l, 'S', r ^ i, s);
}

static void gather_linear_sync_loop(int32_t n, int32_t root, int32_t r, int64_t s, ops *l) {
  if (r != root) {
    push(l, 'R', root, 0), push(l, 'S', root, s), push(l, 'S', root, 0);
    return;
  }
  for (int32_t i = 0; i < n; i++)
    if (i != root) push(l, 'R', i, s), push(l, 'S', i, 0), push(l, 'R', i, 0);
}

static void scatter_linear_nb_loop(int32_t n, int32_t root, int32_t r, int64_t s, ops *l) {
  if (r != root) {
    push(l, 'R', root, s);
    return;
  }
  for (int32_t i = 0; i < n; i++)
    if (i != root) push(l, 'S', i, s);
}

static void library_loop(const char *name, const fs_generator_options *o, int32_t r, ops *l) {
  int32_t n = o->ranks;
  int64_t s = o->size;
  l->count = 0;
  if (!strcmp(name, "barrier-rd")) barrier_rd_loop(n, r, s, l);
  if (!strcmp(name, "barrier-double-ring")) barrier_double_ring_loop(n, r, s, l);
  if (!strcmp(name, "barrier-tree")) barrier_tree_loop(n, r, s, l);
  if (!strcmp(name, "alltoall-scattered"))
    alltoall_scattered_loop(n, r, s, o->ways ? o->ways : 32, l);
  if (!strcmp(name, "alltoall-pairwise-xor")) alltoall_pairwise_xor_loop(n, r, s, l);
  if (!strcmp(name, "gather-linear-sync")) gather_linear_sync_loop(n, o->root, r, s, l);
  if (!strcmp(name, "scatter-linear-nb")) scatter_linear_nb_loop(n, o->root, r, s, l);
}

/* Every rank's tasks in program order are the library's loop, all tag 0,
 * every dependency within the rank and on an earlier task. */
static void expect_loops(const char *name, const fs_generator_options *o) {
  fs_program *p = fs_test_generate(name, o);
  ops *want = malloc(sizeof *want);
  int32_t *seen = calloc((size_t)p->ranks, sizeof *seen);
  for (int32_t r = 0; r < p->ranks; r++) {
    library_loop(name, o, r, want);
    int k = 0;
    for (int32_t t = 0; t < p->tasks; t++) {
      if (p->rank[t] != r) continue;
      ck_assert_msg(k < want->count, "%s N=%d rank %d: more tasks than the loop", name, o->ranks,
                    r);
      char kind = p->kind[t] == FS_SEND ? 'S' : p->kind[t] == FS_RECV ? 'R' : '?';
      ck_assert_msg(kind == want->at[k].kind && p->peer[t] == want->at[k].peer &&
                        p->value[t] == want->at[k].size,
                    "%s N=%d rank %d op %d: %c%d:%lld, the loop has %c%d:%lld", name, o->ranks, r,
                    k, kind, p->peer[t], (long long)p->value[t], want->at[k].kind, want->at[k].peer,
                    (long long)want->at[k].size);
      ck_assert_int_eq(fs_task_tag(p, t), 0);
      for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
        int32_t u = FS_EDGE_TASK(p->successor[e]);
        ck_assert_int_gt(u, t);
        ck_assert_int_eq(p->rank[u], r);
      }
      k++;
    }
    ck_assert_msg(k == want->count, "%s N=%d rank %d: %d tasks, the loop has %d", name, o->ranks, r,
                  k, want->count);
    seen[r] = k;
  }
  free(seen), free(want);
  fs_program_free(p);
}

static fs_generator_options options(int32_t n, int64_t size, int32_t root, int32_t ways) {
  fs_generator_options o = fs_test_options(n, size, root, NULL);
  o.ways = ways;
  return o;
}

static int is_pof2(int32_t n) { return (n & (n - 1)) == 0; }

/* The rank counts of the structure and flow checks: 1..33, 64, 128. */
static int32_t next_count(int32_t n) { return n < 33 ? n + 1 : n == 33 ? 64 : n == 64 ? 128 : 0; }

/* Every case of name: the rank counts above; roots 0, 1, N/2, N-1 for the
 * rooted ones; windows 1, 2, 3, 5, 32 (0: the default), N-1, N, N+1 for the
 * scattered one; powers of 2 only for the XOR pairing. */
#define FOR_CASES(name, o, body)                                                                \
  for (int32_t n_ = 1; n_; n_ = next_count(n_)) {                                               \
    int rooted_ = strstr(name, "-linear-") != NULL;                                             \
    int scattered_ = strcmp(name, "alltoall-scattered") == 0;                                   \
    int32_t roots_[4] = {0, 1, n_ / 2, n_ - 1}, ways_[8] = {1, 2, 3, 5, 0, n_ - 1, n_, n_ + 1}; \
    if (!strcmp(name, "alltoall-pairwise-xor") && !is_pof2(n_)) continue;                       \
    for (int a_ = 0; a_ < (rooted_ ? 4 : 1); a_++)                                              \
      for (int b_ = 0; b_ < (scattered_ ? 8 : 1); b_++) {                                       \
        if (roots_[a_] >= n_ || (scattered_ && b_ == 5 && n_ == 1)) continue;                   \
        fs_generator_options o = options(n_, 1000, roots_[a_], scattered_ ? ways_[b_] : 0);     \
        body                                                                                    \
      }                                                                                         \
  }

START_TEST(against_the_libraries_loops) { /* looped over NAMES */
  const char *name = NAMES[_i];
  FOR_CASES(name, o, { expect_loops(name, &o); })
}
END_TEST

START_TEST(data_flow) { /* looped over NAMES */
  const char *name = NAMES[_i];
  int checked = 0;
  FOR_CASES(name, o, {
    char why[600];
    const char *result = fs_check_generator_flow(name, &o, why, sizeof why);
    ck_assert_msg(result == NULL, "%s (ways %d, root %d)", result, o.ways, o.root);
    o.size = 7; /* S = 0 too: every message of the barriers empty */
    ck_assert_msg(fs_check_generator_flow(name, &o, why, sizeof why) == NULL, "%s", why);
    checked++;
  })
  ck_assert_int_ge(checked, 8);
}
END_TEST

/* Beyond 64 ranks (hashed contributions) and for the large windows. */
START_TEST(data_flow_large) {
  static const int32_t sizes[] = {100, 127, 256, 257};
  for (int i = 0; i < NAME_COUNT; i++)
    for (int k = 0; k < 4; k++) {
      int32_t n = sizes[k];
      if (!strcmp(NAMES[i], "alltoall-pairwise-xor") && !is_pof2(n)) continue;
      if (strstr(NAMES[i], "alltoall") && n > 200) continue; /* N^3 checker cells */
      fs_generator_options o = options(n, 1000, strstr(NAMES[i], "-linear-") ? n / 3 : 0, 0);
      char why[600];
      ck_assert_msg(fs_check_generator_flow(NAMES[i], &o, why, sizeof why) == NULL, "%s", why);
    }
}
END_TEST

/* ---- counts and option errors ------------------------------------------- */

static void expect_counts(const char *name, fs_generator_options o, int64_t tasks,
                          int64_t dependencies) {
  fs_program *p = fs_test_generate(name, &o);
  ck_assert_msg(p->tasks == tasks && p->dependencies == dependencies,
                "%s N=%d ways %d: %d tasks, %lld dependencies; expected %lld, %lld", name, o.ranks,
                o.ways, p->tasks, (long long)p->dependencies, (long long)tasks,
                (long long)dependencies);
  fs_program_free(p);
}

/* Window dependencies: 2c + 2c' - 1 for a window of c' peers after one of c. */
static int64_t scattered_dependencies(int32_t n, int32_t w) {
  int64_t total = 0, previous = 0;
  for (int32_t first = 0; first < n; first += w) {
    int64_t c = (first + w < n ? first + w : n) - first - (first == 0);
    if (c == 0) continue;
    if (previous) total += 2 * previous + 2 * c - 1;
    previous = c;
  }
  return n * total;
}

START_TEST(task_and_dependency_counts) {
  for (int32_t n = 1; n <= 300; n += n < 40 ? 1 : 37) {
    int32_t p = floor_pof2(n), rem = n - p, l = 0;
    while ((1 << l) < p) l++;
    int64_t lone = n == 1;
    expect_counts("barrier-rd", options(n, 0, 0, 0), 4 * rem + 2 * p * l,
                  lone ? 0 : 4 * p * (l - 1) + 4 * rem);
    expect_counts("barrier-double-ring", options(n, 0, 0, 0), lone ? 0 : 4 * n, lone ? 0 : 3 * n);
    expect_counts("barrier-tree", options(n, 0, 0, 0), 4 * (n - 1), lone ? 0 : 3 * n - 4);
    expect_counts("gather-linear-sync", options(n, 8, n - 1, 0), 6 * (n - 1), lone ? 0 : 6 * n - 8);
    expect_counts("scatter-linear-nb", options(n, 8, n / 2, 0), 2 * (n - 1), 0);
    int64_t pairs = 2 * (int64_t)n * (n - 1);
    if (is_pof2(n))
      expect_counts("alltoall-pairwise-xor", options(n, 8, 0, 0), pairs,
                    lone ? 0 : 4 * n * (n - 2));
    static const int32_t windows[] = {1, 2, 7, 32};
    for (int w = 0; w < 4; w++)
      expect_counts("alltoall-scattered", options(n, 8, 0, windows[w]), pairs,
                    scattered_dependencies(n, windows[w]));
    /* one window (w >= N): no dependency at all, as alltoall-linear */
    expect_counts("alltoall-scattered", options(n, 8, 0, n), pairs, 0);
  }
  /* N = 100, w = 32: windows of 31, 32, 32, 4 peers: 100 (125 + 127 + 71) */
  expect_counts("alltoall-scattered", options(100, 8, 0, 0), 19800, 100 * (125 + 127 + 71));
}
END_TEST

/* The window's tasks wait for the previous window through the start of its
 * first recv; the first window waits for nothing. */
START_TEST(scattered_window_dependencies) {
  fs_program *p = fs_test_generate("alltoall-scattered",
                                   &(fs_generator_options){.ranks = 5, .size = 8, .ways = 2});
  /* windows: offsets {1}, {2, 3}, {4}: rank r's tasks 2 + 4 + 2 */
  int32_t starts = 0, ends = 0;
  for (int32_t t = 0; t < p->tasks; t++)
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++)
      if (p->successor[e] & FS_EDGE_START)
        starts++;
      else
        ends++;
  /* per rank: window 2's first recv after window 1's 2 tasks, its 3 others
   * after that recv's start; window 3's first recv after window 2's 4, 1 other */
  ck_assert_int_eq(ends, 5 * (2 + 4));
  ck_assert_int_eq(starts, 5 * (3 + 1));
  ck_assert_str_eq(p->labels[p->label[0]], "window1");
  fs_program_free(p);
}
END_TEST

/* The checker on a dependency on a recv's start (GOAL irequires): two ranks
 * post a recv, then an isend after it is posted. The sends do not wait for
 * the messages, so this is no deadlock; a send after the recv's end is. */
START_TEST(checker_start_of_recv) {
  for (int on_start = 0; on_start < 2; on_start++) {
    fs_program *p = fs_program_new(2);
    fs_data_flow flow;
    fs_data_flow_init(&flow);
    fs_data_flow_begin(&flow, FS_COLLECTIVE_ALLGATHER, 0, 2, 16);
    for (int32_t r = 0; r < 2; r++) {
      int32_t recv = fs_program_add(p, FS_RECV, r), send = fs_program_add(p, FS_SEND, r);
      fs_task_set_peer(p, recv, 1 - r), fs_task_set_size(p, recv, 8);
      fs_task_set_peer(p, send, 1 - r), fs_task_set_size(p, send, 8);
      fs_data_flow_range(&flow, recv, FS_FLOW_WRITE, 1 - r, 1);
      fs_data_flow_range(&flow, send, FS_FLOW_READ, r, 1);
      fs_program_depend(p, send, recv, on_start ? FS_AFTER_START : FS_AFTER_END);
    }
    fs_test_finalize(p);
    char why[512];
    const char *result = fs_check_data_flow(p, &flow, why, sizeof why);
    if (on_start)
      ck_assert_msg(result == NULL, "%s", result);
    else
      ck_assert_msg(result && strstr(result, "deadlock"), "%s", result ? result : "not caught");
    fs_program_free(p);
    fs_data_flow_free(&flow);
  }
}
END_TEST

START_TEST(bad_options) {
  fs_generator_options o = options(6, 8, 0, 0);
  fs_test_generate_refused("alltoall-pairwise-xor", &o, "needs a power of 2 --ranks");
  fs_test_generate_refused("alltoall-pairwise-xor", &o, "not 6");
  o = options(6, 8, 0, -1);
  fs_test_generate_refused("alltoall-scattered", &o, "--ways must be at least 1");
  o = options(4, 8, 4, 0);
  fs_test_generate_refused("gather-linear-sync", &o, "--root 4 is not a rank of 0..3");
  fs_test_generate_refused("scatter-linear-nb", &o, "--root 4 is not a rank of 0..3");
  for (int i = 0; i < 3; i++) { /* barriers: no root */
    o = options(4, 8, 1, 0);
    fs_test_generate_refused(NAMES[i], &o, "--root does not apply");
  }
  o = options(1 << 20, (int64_t)1 << 50, 0, 0); /* N blocks of S: beyond the size limit */
  fs_test_generate_refused("scatter-linear-nb", &o, "too large");
  /* the CLI: --ways only where read, the refusal's exit status */
  ck_assert_int_eq(fennelsim("gen barrier-tree --ranks 4 --ways 2 -o /dev/null"), 2);
  ck_assert_int_eq(fennelsim("gen alltoall-pairwise-xor --ranks 12 -o /dev/null"), 2);
  fs_test_contains(err, "alltoall-pairwise (MPICH's shift form) takes any --ranks");
}
END_TEST

/* ---- analytic times ------------------------------------------------------- */

static fs_time makespan(const char *name, fs_generator_options o, const char *model,
                        const char *params) {
  return fs_test_generated_makespan(name, &o, model, "fixed", params);
}

static const char HOCKNEY[] = "alpha=1us beta=1ns";
static const char PIPELINED[] = "alpha_p=3us alpha_r=0.5us beta=1ns";

static int ceil_log2(int32_t n) {
  int k = 0;
  while ((1 << k) < n) k++;
  return k;
}

static int floor_log2(int32_t n) {
  int k = 0;
  while ((2 << k) <= n) k++;
  return k;
}

/* Hockney (a message of m bytes: alpha + beta m = 1 us + m ns, the sender
 * busy until arrival, a recv taking no CPU), m = S for every message:
 *
 * barrier-rd, N = 2^L: L sendrecv rounds, each alpha + beta S for every
 * rank at once: T = L (alpha + beta S). Otherwise the fold's message
 * reaches rank i < rem at alpha + beta S; the rounds of the ranks it delays
 * end one step later (a round waits for the partner's message, sent when
 * the partner's previous round ended); after L rounds rank 0 (always
 * delayed: rem >= 1) releases N - 1 + ... = p: T = (L + 2)(alpha + beta S).
 * N = 8, S = 0: 3 us; N = 5, S = 8: 4 * 1008 = 4032 ns.
 *
 * barrier-double-ring: the token makes 2N hops, each a blocking send that
 * the next rank's blocking recv waits for: T = 2N (alpha + beta S).
 * N = 5, S = 0: 10 us.
 *
 * barrier-tree: in the fan-in a rank sends when its last child's message
 * has arrived, so rank 0 finishes at height * (alpha + beta S), the height
 * being the most hops to 0 (rank v's are popcount(v)): floor(log2 N). In
 * the fan-out rank 0 sends to D/2, ..., 1 back to back; rank v (lowest set
 * bit b) receives at ceil(log2 N) - b steps and sends to its at most b
 * children in the same way, so everyone is done after ceil(log2 N) steps:
 * T = (floor(log2 N) + ceil(log2 N))(alpha + beta S). N = 5: 5 us; N = 8:
 * 6 us. */
START_TEST(barrier_hockney) {
  ck_assert_int_eq(makespan("barrier-rd", options(8, 0, 0, 0), "hockney", HOCKNEY), 3 * US);
  ck_assert_int_eq(makespan("barrier-rd", options(5, 8, 0, 0), "hockney", HOCKNEY), 4032 * NS);
  ck_assert_int_eq(makespan("barrier-double-ring", options(5, 0, 0, 0), "hockney", HOCKNEY),
                   10 * US);
  ck_assert_int_eq(makespan("barrier-tree", options(5, 0, 0, 0), "hockney", HOCKNEY), 5 * US);
  ck_assert_int_eq(makespan("barrier-tree", options(8, 0, 0, 0), "hockney", HOCKNEY), 6 * US);
  for (int32_t n = 1; n <= 70; n++) {
    fs_time step = 1008 * NS;
    int l = floor_log2(n);
    fs_time rd = n == 1 ? 0 : (is_pof2(n) ? l : l + 2) * step;
    ck_assert_int_eq(makespan("barrier-rd", options(n, 8, 0, 0), "hockney", HOCKNEY), rd);
    ck_assert_int_eq(makespan("barrier-double-ring", options(n, 8, 0, 0), "hockney", HOCKNEY),
                     n == 1 ? 0 : 2 * n * step);
    ck_assert_int_eq(makespan("barrier-tree", options(n, 8, 0, 0), "hockney", HOCKNEY),
                     (floor_log2(n) + ceil_log2(n)) * step);
  }
}
END_TEST

/* barrier-double-ring under LogGOPS (defaults L = 2500, o = 1500, g = 1000
 * ns; S = 0, no G term): a hop is the sender's o, the wire's L and the
 * receiver's o before its next send can start: T = 2N (2o + L). N = 4:
 * 8 * 5500 = 44 us. */
START_TEST(barrier_double_ring_loggops) {
  for (int32_t n = 2; n <= 9; n++)
    ck_assert_int_eq(makespan("barrier-double-ring", options(n, 0, 0, 0), "loggops", ""),
                     2 * n * 5500 * NS);
}
END_TEST

/* alltoall-pairwise-xor: N-1 sendrecv steps of alpha + beta S each (every
 * rank sends at the step's start and its partner's message arrives with
 * its own): T = (N-1)(alpha + beta S). N = 8, S = 1000: 14 us.
 *
 * alltoall-scattered under hockney: in a window of c peers a rank's c sends
 * run back to back; rank r's message from r + offset is that rank's send
 * in the same position, so the window ends after c (alpha + beta S) on
 * every rank: T = (N-1)(alpha + beta S), whatever the window. Under
 * pipelined (CPU free after alpha_r, arrival alpha_p + beta S later) a
 * window costs c alpha_r + alpha_p + beta S (its last message, sent at
 * (c-1) alpha_r, arrives then), so with W non-empty windows
 * T = (N-1) alpha_r + W (alpha_p + beta S); one window (w >= N) is
 * alltoall-linear's (N-1) alpha_r + alpha_p + beta S. N = 100, w = 32
 * (windows of 31, 32, 32, 4): 99 * 0.5 + 4 * 4 = 65.5 us; linear: 53.5 us. */
START_TEST(alltoall_times) {
  ck_assert_int_eq(makespan("alltoall-pairwise-xor", options(8, 1000, 0, 0), "hockney", HOCKNEY),
                   14 * US);
  for (int32_t n = 1; n <= 64; n *= 2)
    ck_assert_int_eq(makespan("alltoall-pairwise-xor", options(n, 1000, 0, 0), "hockney", HOCKNEY),
                     (n - 1) * 2 * US);
  ck_assert_int_eq(makespan("alltoall-scattered", options(100, 1000, 0, 0), "pipelined", PIPELINED),
                   65500 * NS);
  ck_assert_int_eq(makespan("alltoall-linear", options(100, 1000, 0, 0), "pipelined", PIPELINED),
                   53500 * NS);
  static const int32_t windows[] = {1, 2, 3, 5, 32};
  for (int32_t n = 1; n <= 40; n += 3)
    for (int w = 0; w < 5; w++) {
      fs_generator_options o = options(n, 1000, 0, windows[w]);
      ck_assert_int_eq(makespan("alltoall-scattered", o, "hockney", HOCKNEY), (n - 1) * 2 * US);
      int64_t nonempty = 0;
      for (int32_t first = 0; first < n; first += windows[w])
        nonempty += (first + windows[w] < n ? first + windows[w] : n) - first - (first == 0) > 0;
      ck_assert_int_eq(makespan("alltoall-scattered", o, "pipelined", PIPELINED),
                       (n - 1) * 500 * NS + nonempty * 4 * US);
    }
}
END_TEST

/* gather-linear-sync under hockney: for each rank in turn the root's go
 * (0 B) arrives after alpha, the rank's block alpha + beta S later, and the
 * root takes the next rank then: 2 alpha + beta S per rank; the last rank's
 * empty tail arrives alpha after its block: T = (N-1)(2 alpha + beta S) +
 * alpha. N = 5, S = 1000: 4 * 3 + 1 = 13 us (gather-linear: alpha + beta S
 * = 2 us). Under pipelined (a send's CPU free after alpha_r, its message
 * landing alpha_p + beta m after that) a rank costs the go's alpha_r +
 * alpha_p, then the block's alpha_r + alpha_p + beta S: 2 alpha_r +
 * 2 alpha_p + beta S; the last rank's tail, sent when the
 * block's CPU time ends, lands alpha_r + alpha_p after that, 3 alpha_r +
 * 2 alpha_p after the go, later than the block when beta S < alpha_r:
 * T = (N-2)(2 alpha_r + 2 alpha_p + beta S) + 3 alpha_r + 2 alpha_p. N = 5,
 * S = 400: 3 * 7.4 + 7.5 = 29.7 us. (With beta S > alpha_r the empty tail
 * would land before the block it follows on the same channel, and the
 * engine, which matches on arrival, would pair them the other way round.)
 *
 * scatter-linear-nb: the root's sends hold its CPU one after the other, as
 * scatter-linear's: T = (N-1)(alpha + beta S) under hockney. Under LogGOPS
 * with S = 0 (every message rendezvous), G = 1 ns/B and m = 1000 B, a send
 * at t holds the CPU o = 1500 ns and the NIC g + (m-1) G = 1999 ns, reaches
 * its receiver at t + o + L = t + 4000 and is received there until t + 4000
 * + o + (m-1) G = t + 6499, being matched (complete) at t + 4000. The
 * isends leave every 1999 ns: T = (N-2) 1999 + 6499; the blocking sends
 * wait for the match: T = (N-2) 4000 + 6499. N = 5: 12,496 and 18,499 ns. */
START_TEST(gather_scatter_times) {
  ck_assert_int_eq(makespan("gather-linear-sync", options(5, 1000, 0, 0), "hockney", HOCKNEY),
                   13 * US);
  ck_assert_int_eq(makespan("gather-linear-sync", options(5, 400, 0, 0), "pipelined", PIPELINED),
                   29700 * NS);
  static const char LOGGOPS[] = "S=0 G=1ns";
  ck_assert_int_eq(makespan("scatter-linear-nb", options(5, 1000, 0, 0), "loggops", LOGGOPS),
                   12496 * NS);
  ck_assert_int_eq(makespan("scatter-linear", options(5, 1000, 0, 0), "loggops", LOGGOPS),
                   18499 * NS);
  for (int32_t n = 1; n <= 33; n++)
    for (int32_t root = 0; root < n; root += n / 3 + 1) {
      fs_generator_options o = options(n, 1000, root, 0);
      fs_time one = n > 1 ? 1 : 0;
      ck_assert_int_eq(makespan("gather-linear-sync", o, "hockney", HOCKNEY),
                       (n - 1) * 3 * US + one * US);
      o.size = 400;
      ck_assert_int_eq(makespan("gather-linear-sync", o, "pipelined", PIPELINED),
                       n > 1 ? (n - 2) * 7400 * NS + 7500 * NS : 0);
      o.size = 1000;
      ck_assert_int_eq(makespan("scatter-linear-nb", o, "hockney", HOCKNEY), (n - 1) * 2 * US);
      if (n < 2) continue;
      ck_assert_int_eq(makespan("scatter-linear-nb", o, "loggops", LOGGOPS),
                       (n - 2) * 1999 * NS + 6499 * NS);
      ck_assert_int_eq(makespan("scatter-linear", o, "loggops", LOGGOPS),
                       (n - 2) * 4000 * NS + 6499 * NS);
    }
}
END_TEST

/* `gen NAME` writes each as GOAL, which runs to the in-memory makespan. */
START_TEST(goal_round_trip) {
  char *goal = fs_test_temp_path(".goal");
  for (int i = 0; i < NAME_COUNT; i++) {
    fs_generator_options o = options(8, 1000, 3, i == 3 ? 3 : 0);
    if (!strstr(NAMES[i], "-linear-")) o.root = 0;
    ck_assert_int_eq(fennelsim("gen %s --ranks 8 --size 1000B %s %s --format goal -o %s", NAMES[i],
                               o.root ? "--root 3" : "", o.ways ? "--ways 3" : "", goal),
                     0);
    ck_assert_int_eq(fennelsim("run %s --model pipelined --param alpha_p=3us --param "
                               "alpha_r=0.5us --param beta=1ns --format json",
                               goal),
                     0);
    char expected[64];
    snprintf(expected, sizeof expected, "\"makespan_ns\": %lld,",
             (long long)makespan(NAMES[i], o, "pipelined", PIPELINED) / NS);
    fs_test_contains(out, expected);
  }
  free(goal);
}
END_TEST

int main(void) {
  Suite *s = suite_create("mpi_flat");
  TCase *structure = tcase_create("structure");
  tcase_add_loop_test(structure, against_the_libraries_loops, 0, NAME_COUNT);
  tcase_add_test(structure, task_and_dependency_counts);
  tcase_add_test(structure, scattered_window_dependencies);
  tcase_add_test(structure, checker_start_of_recv);
  tcase_add_test(structure, bad_options);
  tcase_add_test(structure, goal_round_trip);
  tcase_set_timeout(structure, 300);
  suite_add_tcase(s, structure);
  TCase *flow = tcase_create("data_flow");
  tcase_add_loop_test(flow, data_flow, 0, NAME_COUNT);
  tcase_add_test(flow, data_flow_large);
  tcase_set_timeout(flow, 600);
  suite_add_tcase(s, flow);
  TCase *times = tcase_create("times");
  tcase_add_test(times, barrier_hockney);
  tcase_add_test(times, barrier_double_ring_loggops);
  tcase_add_test(times, alltoall_times);
  tcase_add_test(times, gather_scatter_times);
  tcase_set_timeout(times, 300);
  suite_add_tcase(s, times);
  return fs_test_run(s);
}
