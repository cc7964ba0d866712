/* test_exchange.c: the exchange patterns: allgather-bruck, allgather-neighbor,
 * alltoall-linear, alltoall-bruck, barrier-linear and barrier-nway.
 *
 * - Structure: every rank's tasks in order (kind, peer, size, blocks,
 *   dependencies) against a literal transcription of the library's loop
 *   (MPICH's / Open MPI's), run on real buffers of block ids, for N = 1..33;
 *   hand-checked strings at small N; counts and labels.
 * - Option errors.
 * - Data flow (src/generators/data_flow_check.h) for N = 1..64 and a few large N.
 * - Exact makespans under hockney (and pipelined, taulop) against the
 *   closed forms derived in the comments. */
#include <check.h>
#include <stdarg.h>
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

#define NS 1000LL /* picoseconds */
#define US 1000000LL

/* ---- helpers ---------------------------------------------------------- */

/* Generated with its data flow recorded into *flow (the caller frees it). */
static fs_program *generate_flow(const char *name, fs_generator_options o, fs_data_flow *flow) {
  fs_data_flow_init(flow);
  o.flow = flow;
  fs_program *p = fs_test_generate(name, &o);
  ck_assert(!flow->failed);
  return p;
}

/* A growing string. */
typedef struct text {
  char *at;
  size_t used, capacity;
} text;

static void append(text *t, const char *format, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, format);
    int n =
        vsnprintf(t->at ? t->at + t->used : NULL, t->at ? t->capacity - t->used : 0, format, ap);
    va_end(ap);
    ck_assert_int_ge(n, 0);
    if (t->at && t->used + (size_t)n < t->capacity) {
      t->used += (size_t)n;
      return;
    }
    t->capacity = 2 * (t->capacity + (size_t)n + 64);
    t->at = realloc(t->at, t->capacity);
    ck_assert_ptr_nonnull(t->at);
    t->at[t->used] = 0;
  }
}

static void append_blocks(text *t, const int32_t *blocks, int32_t count) {
  append(t, "[");
  for (int32_t i = 0; i < count; i++) append(t, i ? ",%d" : "%d", blocks[i]);
  append(t, "]");
}

/* One op of a per-rank description: "R3:16[4,5]<0,1 " is a recv from rank
 * 3 of 16 bytes into blocks 4 and 5, after the rank's tasks 0 and 1. */
static void append_op(text *t, char kind, int32_t peer, int64_t size, const int32_t *blocks,
                      int32_t count, int32_t first_dependency, int32_t dependencies) {
  append(t, "%c%d:%lld", kind, peer, (long long)size);
  if (blocks && count) append_blocks(t, blocks, count);
  for (int32_t i = 0; i < dependencies; i++) append(t, i ? ",%d" : "<%d", first_dependency + i);
  append(t, " ");
}

/* Every rank's tasks in program order, as append_op writes them (blocks
 * from flow when given); dependencies by index among the rank's tasks, in
 * increasing order. out[r] are heap strings the caller frees. */
static void describe(const fs_program *p, const fs_data_flow *flow, text *out) {
  int32_t *local = malloc((size_t)(p->tasks + 1) * sizeof *local);
  int32_t *count = calloc((size_t)p->ranks, sizeof *count);
  int64_t *pred_at = calloc((size_t)p->tasks + 1, sizeof *pred_at);
  for (int32_t t = 0; t < p->tasks; t++) {
    local[t] = count[p->rank[t]]++;
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++)
      pred_at[FS_EDGE_TASK(p->successor[e]) + 1]++;
  }
  for (int32_t t = 0; t < p->tasks; t++) pred_at[t + 1] += pred_at[t];
  int32_t *pred = malloc((size_t)(pred_at[p->tasks] + 1) * sizeof *pred);
  int64_t *fill = malloc((size_t)(p->tasks + 1) * sizeof *fill);
  memcpy(fill, pred_at, (size_t)p->tasks * sizeof *fill);
  for (int32_t t = 0; t < p->tasks; t++) /* sources ascending: lists come out sorted */
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
      ck_assert_int_eq(p->successor[e] & (FS_EDGE_LOCAL | FS_EDGE_START), 0);
      pred[fill[FS_EDGE_TASK(p->successor[e])]++] = t;
    }
  for (int32_t r = 0; r < p->ranks; r++) out[r] = (text){0};
  for (int32_t t = 0; t < p->tasks; t++) {
    text *o = &out[p->rank[t]];
    char kind = p->kind[t] == FS_SEND ? 'S' : p->kind[t] == FS_RECV ? 'R' : '?';
    ck_assert_int_eq(fs_task_tag(p, t), 0);
    append(o, "%c%d:%lld", kind, p->peer[t], (long long)p->value[t]);
    if (flow && t < flow->tasks && flow->block_count[t])
      append_blocks(o, flow->block + flow->block_at[t], flow->block_count[t]);
    for (int64_t i = pred_at[t]; i < pred_at[t + 1]; i++) {
      ck_assert_int_eq(p->rank[pred[i]], p->rank[t]);
      append(o, i > pred_at[t] ? ",%d" : "<%d", local[pred[i]]);
    }
    append(o, " ");
  }
  free(local), free(count), free(pred_at), free(pred), free(fill);
}

static void free_texts(text *texts, int32_t n) {
  for (int32_t r = 0; r < n; r++) free(texts[r].at);
  free(texts);
}

/* Asserts that name at n ranks (size, ways) describes as `expected`. */
static void expect_same(const char *name, fs_generator_options o, text *expected, int with_flow) {
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  fs_program *p = with_flow ? generate_flow(name, o, &flow) : fs_test_generate(name, &o);
  text *got = calloc((size_t)o.ranks, sizeof *got);
  describe(p, with_flow ? &flow : NULL, got);
  for (int32_t r = 0; r < o.ranks; r++)
    ck_assert_msg(strcmp(got[r].at ? got[r].at : "", expected[r].at ? expected[r].at : "") == 0,
                  "%s N=%d rank %d:\n got      %s\n expected %s", name, o.ranks, r,
                  got[r].at ? got[r].at : "", expected[r].at ? expected[r].at : "");
  free_texts(got, o.ranks);
  fs_data_flow_free(&flow);
  fs_program_free(p);
}

static int32_t mod(int64_t a, int32_t n) { return (int32_t)(((a % n) + n) % n); }

/* The sendrecv of step `step` (0-based) of a chain of sendrecvs: recv, send,
 * each after the previous step's pair. */
static void append_sendrecv(text *t, int step, int32_t from, int32_t to, int64_t size,
                            const int32_t *in, const int32_t *out, int32_t count) {
  int32_t first = 2 * (step - 1), deps = step ? 2 : 0;
  append_op(t, 'R', from, size, in, count, first, deps);
  append_op(t, 'S', to, size, out, count, first, deps);
}

/* ---- references: the libraries' loops on buffers of block ids --------- */

/* MPIR_Allgather_intra_brucks: tmp[r][j] is rank r's temporary buffer. */
static text *reference_allgather_bruck(int32_t n, int64_t size) {
  text *out = calloc((size_t)n, sizeof *out);
  int32_t *tmp = malloc((size_t)n * n * sizeof *tmp);
  for (int32_t r = 0; r < n; r++) tmp[r * n] = r; /* copy local data to the top */
  int32_t curr_cnt = 1, pof2 = 1, step = 0;
  while (pof2 <= n / 2) { /* reads slots [0, curr_cnt), writes [curr_cnt, 2 curr_cnt) */
    for (int32_t r = 0; r < n; r++) {
      int32_t src = (r + pof2) % n, dst = (r - pof2 + n) % n;
      memcpy(tmp + r * n + curr_cnt, tmp + src * n, (size_t)curr_cnt * sizeof *tmp);
      append_sendrecv(&out[r], step, src, dst, curr_cnt * size, tmp + r * n + curr_cnt, tmp + r * n,
                      curr_cnt);
    }
    curr_cnt *= 2, pof2 *= 2, step++;
  }
  int32_t rem = n - pof2;
  for (int32_t r = 0; rem && r < n; r++) {
    int32_t src = (r + pof2) % n, dst = (r - pof2 + n) % n;
    memcpy(tmp + r * n + curr_cnt, tmp + src * n, (size_t)rem * sizeof *tmp);
    append_sendrecv(&out[r], step, src, dst, rem * size, tmp + r * n + curr_cnt, tmp + r * n, rem);
  }
  for (int32_t r = 0; r < n; r++) /* the rotation gives recvbuf[(r + j) mod n] = tmp[j] */
    for (int32_t j = 0; j < n; j++) ck_assert_int_eq(tmp[r * n + j], (r + j) % n);
  free(tmp);
  return out;
}

/* ompi_coll_base_allgather_intra_neighborexchange, rank by rank (each
 * rank's block pointers only depend on itself); it also fills rbuf[r][b]
 * with the step that received block b, which must cover every block. */
static text *reference_allgather_neighbor(int32_t n, int64_t size) {
  text *out = calloc((size_t)n, sizeof *out);
  for (int32_t rank = 0; rank < n; rank++) {
    int neighbor[2], offset_at_step[2], recv_data_from[2], send_data_from;
    int even_rank = !(rank % 2);
    if (even_rank) {
      neighbor[0] = (rank + 1) % n;
      neighbor[1] = (rank - 1 + n) % n;
      recv_data_from[0] = recv_data_from[1] = rank;
      offset_at_step[0] = +2, offset_at_step[1] = -2;
    } else {
      neighbor[0] = (rank - 1 + n) % n;
      neighbor[1] = (rank + 1) % n;
      recv_data_from[0] = recv_data_from[1] = neighbor[0];
      offset_at_step[0] = -2, offset_at_step[1] = +2;
    }
    char *have = calloc((size_t)n, 1);
    have[rank] = have[neighbor[0]] = 1;
    append_sendrecv(&out[rank], 0, neighbor[0], neighbor[0], size, &neighbor[0], &rank, 1);
    send_data_from = even_rank ? rank : recv_data_from[0];
    for (int i = 1; i < n / 2; i++) {
      const int i_parity = i % 2;
      recv_data_from[i_parity] = (recv_data_from[i_parity] + offset_at_step[i_parity] + n) % n;
      int32_t in[2] = {recv_data_from[i_parity], recv_data_from[i_parity] + 1};
      int32_t sent[2] = {send_data_from, send_data_from + 1};
      ck_assert(have[sent[0]] && have[sent[1]] && !have[in[0]] && !have[in[1]]);
      have[in[0]] = have[in[1]] = 1;
      append_sendrecv(&out[rank], i, neighbor[i_parity], neighbor[i_parity], 2 * size, in, sent, 2);
      send_data_from = recv_data_from[i_parity];
    }
    for (int32_t b = 0; b < n; b++) ck_assert(have[b]);
    free(have);
  }
  return out;
}

/* MPIR_Alltoall_intra_brucks: buf[r][i] is rank r's recvbuf after phase 1
 * (block ids s*n+d), updated by every step's indexed sendrecv. */
static text *reference_alltoall_bruck(int32_t n, int64_t size) {
  text *out = calloc((size_t)n, sizeof *out);
  int32_t *buf = malloc((size_t)n * n * sizeof *buf), *old = malloc((size_t)n * n * sizeof *old);
  int32_t *displs = malloc((size_t)n * sizeof *displs);
  int32_t *in = malloc((size_t)n * sizeof *in), *sent = malloc((size_t)n * sizeof *sent);
  for (int32_t r = 0; r < n; r++) /* phase 1: shift up by r */
    for (int32_t i = 0; i < n; i++) buf[r * n + i] = r * n + (r + i) % n;
  int step = 0;
  for (int32_t pof2 = 1; pof2 < n; pof2 *= 2, step++) {
    memcpy(old, buf, (size_t)n * n * sizeof *buf);
    int32_t count = 0;
    for (int32_t block = 1; block < n; block++)
      if (block & pof2) displs[count++] = block;
    for (int32_t r = 0; r < n; r++) {
      int32_t dst = (r + pof2) % n, src = (r - pof2 + n) % n;
      for (int32_t i = 0; i < count; i++) {
        sent[i] = old[r * n + displs[i]];
        in[i] = buf[r * n + displs[i]] = old[src * n + displs[i]];
      }
      append_sendrecv(&out[r], step, src, dst, count * size, in, sent, count);
    }
  }
  for (int32_t r = 0; r < n; r++) /* the rotations give recvbuf[x] = buf[(r - x) mod n] */
    for (int32_t x = 0; x < n; x++) ck_assert_int_eq(buf[r * n + mod(r - x, n)], x * n + r);
  free(buf), free(old), free(displs), free(in), free(sent);
  return out;
}

/* ompi_coll_base_alltoall_intra_basic_linear: receives from r+1, r+2, ...,
 * then sends to r-1, r-2, ..., no waits in between. */
static text *reference_alltoall_linear(int32_t n, int64_t size) {
  text *out = calloc((size_t)n, sizeof *out);
  for (int32_t rank = 0; rank < n; rank++) {
    for (int32_t i = (rank + 1) % n; i != rank; i = (i + 1) % n) {
      int32_t block = i * n + rank;
      append_op(&out[rank], 'R', i, size, &block, 1, 0, 0);
    }
    for (int32_t i = (rank + n - 1) % n; i != rank; i = (i + n - 1) % n) {
      int32_t block = rank * n + i;
      append_op(&out[rank], 'S', i, size, &block, 1, 0, 0);
    }
  }
  return out;
}

/* ---- structure -------------------------------------------------------- */

START_TEST(allgather_bruck_by_hand) {
  /* N = 5, S = 8: steps of 1, 2 and (rem = 5 - 4) 1 block. Rank 0 holds 0,
   * gets 1 from 1 (giving 0 to 4), gets 2,3 from 2 (giving 0,1 to 3),
   * gets 4 from 4 (giving 0 to 1). */
  text *expected = calloc(5, sizeof *expected);
  append(&expected[0], "R1:8[1] S4:8[0] R2:16[2,3]<0,1 S3:16[0,1]<0,1 R4:8[4]<2,3 S1:8[0]<2,3 ");
  append(&expected[3], "R4:8[4] S2:8[3] R0:16[0,1]<0,1 S1:16[3,4]<0,1 R2:8[2]<2,3 S4:8[3]<2,3 ");
  fs_data_flow flow;
  fs_program *p = generate_flow("allgather-bruck", fs_test_options(5, 8, 0, NULL), &flow);
  text *got = calloc(5, sizeof *got);
  describe(p, &flow, got);
  ck_assert_str_eq(got[0].at, expected[0].at);
  ck_assert_str_eq(got[3].at, expected[3].at);
  ck_assert_int_eq(p->tasks, 2 * 5 * 3);
  ck_assert_int_eq(p->dependencies, 4 * 5 * 2);
  ck_assert_str_eq(fs_task_label(p, 0), "step1");
  ck_assert_str_eq(fs_task_label(p, p->tasks - 1), "step3");
  free_texts(got, 5), free_texts(expected, 5);
  fs_data_flow_free(&flow);
  fs_program_free(p);
}
END_TEST

START_TEST(allgather_neighbor_by_hand) {
  /* N = 6 (Open MPI's example): rank 0 gets 1 from 1, then 4,5 from 5
   * (giving 0,1), then 2,3 from 1 (giving 4,5); rank 3 gets 2 from 2, then
   * 4,5 from 4 (giving 2,3), then 0,1 from 2 (giving 4,5). */
  text *expected = calloc(6, sizeof *expected);
  append(&expected[0], "R1:8[1] S1:8[0] R5:16[4,5]<0,1 S5:16[0,1]<0,1 R1:16[2,3]<2,3 "
                       "S1:16[4,5]<2,3 ");
  append(&expected[3], "R2:8[2] S2:8[3] R4:16[4,5]<0,1 S4:16[2,3]<0,1 R2:16[0,1]<2,3 "
                       "S2:16[4,5]<2,3 ");
  fs_data_flow flow;
  fs_program *p = generate_flow("allgather-neighbor", fs_test_options(6, 8, 0, NULL), &flow);
  text *got = calloc(6, sizeof *got);
  describe(p, &flow, got);
  ck_assert_str_eq(got[0].at, expected[0].at);
  ck_assert_str_eq(got[3].at, expected[3].at);
  ck_assert_int_eq(p->tasks, 2 * 6 * 3);
  ck_assert_int_eq(p->dependencies, 4 * 6 * 2);
  free_texts(got, 6), free_texts(expected, 6);
  fs_data_flow_free(&flow);
  fs_program_free(p);
}
END_TEST

START_TEST(alltoall_bruck_by_hand) {
  /* N = 3, S = 8, rank 1: after the rotation slot i holds 1 -> 1+i, ids
   * 1*3+1 = 4, 1*3+2 = 5, 1*3+0 = 3. Step 1 (bit 0: slot 1) sends 5 to 2
   * and gets 0's slot 1 (0 -> 1, id 1) from 0; step 2 (bit 1: slot 2) sends
   * 3 (1 -> 0) to 0 and gets 2's slot 2 (2 -> 1, id 7) from 2. */
  text *expected = calloc(3, sizeof *expected);
  append(&expected[1], "R0:8[1] S2:8[5] R2:8[7]<0,1 S0:8[3]<0,1 ");
  fs_data_flow flow;
  fs_program *p = generate_flow("alltoall-bruck", fs_test_options(3, 8, 0, NULL), &flow);
  text *got = calloc(3, sizeof *got);
  describe(p, &flow, got);
  ck_assert_str_eq(got[1].at, expected[1].at);
  free_texts(got, 3), free_texts(expected, 3);
  fs_data_flow_free(&flow);
  fs_program_free(p);
}
END_TEST

START_TEST(against_the_libraries_loops) {
  for (int32_t n = 1; n <= 33; n++) {
    text *e = reference_allgather_bruck(n, 8);
    expect_same("allgather-bruck", fs_test_options(n, 8, 0, NULL), e, 1);
    free_texts(e, n);
    e = reference_alltoall_bruck(n, 8);
    expect_same("alltoall-bruck", fs_test_options(n, 8, 0, NULL), e, 1);
    free_texts(e, n);
    e = reference_alltoall_linear(n, 8);
    expect_same("alltoall-linear", fs_test_options(n, 8, 0, NULL), e, 1);
    free_texts(e, n);
    if (n % 2 == 0) {
      e = reference_allgather_neighbor(n, 8);
      expect_same("allgather-neighbor", fs_test_options(n, 8, 0, NULL), e, 1);
      free_texts(e, n);
    }
  }
}
END_TEST

START_TEST(task_and_dependency_counts) {
  static const int32_t sizes[] = {1, 2, 3, 7, 8, 9, 100, 257};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    int32_t n = sizes[i];
    int64_t k = 0;
    while ((1LL << k) < n) k++;
    fs_generator_options o = fs_test_options(n, 8, 0, NULL);
    fs_program *p = fs_test_generate("allgather-bruck", &o);
    ck_assert_int_eq(p->tasks, 2 * n * k);
    ck_assert_int_eq(p->dependencies, k ? 4 * n * (k - 1) : 0);
    fs_program_free(p);
    p = fs_test_generate("alltoall-bruck", &o);
    ck_assert_int_eq(p->tasks, 2 * n * k);
    ck_assert_int_eq(p->dependencies, k ? 4 * n * (k - 1) : 0);
    fs_program_free(p);
    p = fs_test_generate("alltoall-linear", &o);
    ck_assert_int_eq(p->tasks, 2 * (int64_t)n * (n - 1));
    ck_assert_int_eq(p->dependencies, 0);
    fs_program_free(p);
    p = fs_test_generate("barrier-linear", &o);
    ck_assert_int_eq(p->tasks, 4 * (n - 1));
    ck_assert_int_eq(p->dependencies, n > 1 ? 3 * n - 4 : 0);
    fs_program_free(p);
    if (n % 2 == 0) {
      p = fs_test_generate("allgather-neighbor", &o);
      ck_assert_int_eq(p->tasks, (int64_t)n * n);
      ck_assert_int_eq(p->dependencies, 4 * (int64_t)n * (n / 2 - 1));
      fs_program_free(p);
    }
  }
}
END_TEST

START_TEST(barrier_linear_by_hand) {
  /* N = 4, S = 0: rank 0 receives from 1, 2, 3, then sends to 1 after all
   * three, to 2 after that, to 3 after that; the others send then receive. */
  text *expected = calloc(4, sizeof *expected);
  append(&expected[0], "R1:0 R2:0 R3:0 S1:0<0,1,2 S2:0<3 S3:0<4 ");
  for (int32_t r = 1; r < 4; r++) append(&expected[r], "S0:0 R0:0<0 ");
  expect_same("barrier-linear", fs_test_options(4, 0, 0, NULL), expected, 0);
  free_texts(expected, 4);
  fs_generator_options o = fs_test_options(4, 0, 0, NULL);
  fs_program *p = fs_test_generate("barrier-linear", &o);
  ck_assert_str_eq(fs_task_label(p, 0), "gather");
  ck_assert_str_eq(fs_task_label(p, 3), "release");
  fs_program_free(p);
  o = fs_test_options(1, 8, 0, NULL);
  p = fs_test_generate("barrier-linear", &o);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
}
END_TEST

/* Hoefler et al.'s loop, each round as an MPI exchange: round k, distance
 * D = (n+1)^k, receives from r - j D, then sends to r + j D, j = 1..ways
 * with j D < N, all after the previous round's tasks. */
static text *reference_barrier_nway(int32_t n, int32_t ways, int64_t size) {
  text *out = calloc((size_t)n, sizeof *out);
  for (int32_t r = 0; r < n; r++) {
    int32_t tasks = 0, first = 0, previous = 0;
    for (int64_t d = 1; d < n; d *= ways + 1) {
      int32_t round = 0;
      for (int64_t j = 1; j <= ways && j * d < n; j++, round++)
        append_op(&out[r], 'R', mod(r - j * d, n), size, NULL, 0, first, previous);
      for (int64_t j = 1; j <= ways && j * d < n; j++, round++)
        append_op(&out[r], 'S', mod(r + j * d, n), size, NULL, 0, first, previous);
      first = tasks, previous = round, tasks += round;
    }
  }
  return out;
}

START_TEST(barrier_nway_structure) {
  /* N = 6, 2 ways: round 1 (D = 1) to r+1, r+2; round 2 (D = 3) only r+3
   * (2*3 = 6 would be r itself). */
  text *expected = calloc(6, sizeof *expected);
  append(&expected[0], "R5:8 R4:8 S1:8 S2:8 R3:8<0,1,2,3 S3:8<0,1,2,3 ");
  fs_generator_options o = fs_test_options(6, 8, 0, NULL);
  fs_program *p = fs_test_generate("barrier-nway", &o);
  text *got = calloc(6, sizeof *got);
  describe(p, NULL, got);
  ck_assert_str_eq(got[0].at, expected[0].at);
  ck_assert_str_eq(fs_task_label(p, 23), "round1"); /* round by round: 6 ranks x 4 tasks */
  ck_assert_str_eq(fs_task_label(p, 24), "round2");
  ck_assert_int_eq(p->rank[24], 0);
  ck_assert_int_eq(p->dependencies, 6 * 2 * 2 * 2);
  free_texts(got, 6), free_texts(expected, 6);
  fs_program_free(p);
  static const int32_t ways[] = {1, 2, 3, 4, 7, 40};
  for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++)
    for (int32_t n = 1; n <= 33; n++) {
      o = fs_test_options(n, 8, 0, NULL);
      o.ways = ways[w];
      text *e = reference_barrier_nway(n, ways[w], 8);
      expect_same("barrier-nway", o, e, 0);
      free_texts(e, n);
    }
}
END_TEST

/* --ways 1 is the classic dissemination: barrier-dissemination op for op;
 * --ways 0 means 2. */
START_TEST(barrier_nway_one_way_is_dissemination) {
  for (int32_t n = 1; n <= 40; n++) {
    fs_generator_options o = fs_test_options(n, 8, 0, NULL);
    fs_program *p = fs_test_generate("barrier-dissemination", &o);
    o.ways = 1;
    fs_program *q = fs_test_generate("barrier-nway", &o);
    ck_assert_int_eq(q->tasks, p->tasks);
    ck_assert_int_eq(q->dependencies, p->dependencies);
    for (int32_t t = 0; t < p->tasks; t++) {
      ck_assert_int_eq(q->kind[t], p->kind[t]);
      ck_assert_int_eq(q->rank[t], p->rank[t]);
      ck_assert_int_eq(q->peer[t], p->peer[t]);
      ck_assert_int_eq(q->value[t], p->value[t]);
      ck_assert_str_eq(fs_task_label(q, t), fs_task_label(p, t));
      ck_assert_int_eq(q->successor_at[t + 1] - q->successor_at[t],
                       p->successor_at[t + 1] - p->successor_at[t]);
      for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++)
        ck_assert_int_eq(q->successor[e], p->successor[e]);
    }
    fs_program_free(p);
    fs_program_free(q);
    o.ways = 0;
    text *e = reference_barrier_nway(n, 2, 8);
    expect_same("barrier-nway", o, e, 0);
    free_texts(e, n);
  }
}
END_TEST

/* ---- option errors ---------------------------------------------------- */

/* name refuses o with a message containing `part`. */
START_TEST(bad_options) {
  static const char *const names[] = {"allgather-bruck", "allgather-neighbor", "alltoall-linear",
                                      "alltoall-bruck",  "barrier-linear",     "barrier-nway"};
  fs_error err;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    fs_generator_options o = fs_test_options(0, 8, 0, NULL);
    fs_test_generate_refused(names[i], &o, "--ranks must be at least 1");
    o = fs_test_options(4, -1, 0, NULL);
    fs_test_generate_refused(names[i], &o, "--size must not be negative");
    o = fs_test_options(4, 8, 0, NULL);
    o.root = 1;
    fs_test_generate_refused(names[i], &o, "--root does not apply");
    o = fs_test_options(4, 8, 0, NULL);
    o.has_reduce_time = 1;
    fs_test_generate_refused(names[i], &o, "--reduce-time does not apply");
  }
  fs_generator_options o = fs_test_options(7, 8, 0, NULL);
  ck_assert_str_eq(fs_test_generate_error("allgather-neighbor", &o, &err),
                   "allgather-neighbor: --ranks must be even, not 7 (Open MPI falls back to the "
                   "ring for an odd count: use allgather-ring)");
  o = fs_test_options(4, INT64_MAX / 2, 0, NULL);
  fs_test_generate_refused("allgather-bruck", &o, "too large");
  fs_test_generate_refused("alltoall-bruck", &o, "too large");
  o = fs_test_options(4, 8, 0, NULL);
  o.ways = -1;
  ck_assert_str_eq(fs_test_generate_error("barrier-nway", &o, &err),
                   "barrier-nway: --ways must be at least 1 (messages per round), not -1");
}
END_TEST

/* ---- data flow -------------------------------------------------------- */

static void expect_flow(const char *name, fs_generator_options o) {
  char why[512];
  const char *failure = fs_check_generator_flow(name, &o, why, sizeof why);
  ck_assert_msg(failure == NULL, "%s at %d ranks (ways %d): %s", name, o.ranks, o.ways, failure);
}

START_TEST(data_flow_small) {
  for (int32_t n = 1; n <= 64; n++) {
    expect_flow("allgather-bruck", fs_test_options(n, 8, 0, NULL));
    expect_flow("alltoall-linear", fs_test_options(n, 8, 0, NULL));
    expect_flow("alltoall-bruck", fs_test_options(n, 8, 0, NULL));
    expect_flow("alltoall-bruck", fs_test_options(n, 0, 0, NULL));
    expect_flow("barrier-linear", fs_test_options(n, 0, 0, NULL));
    expect_flow("barrier-linear", fs_test_options(n, 8, 0, NULL));
    if (n % 2 == 0) expect_flow("allgather-neighbor", fs_test_options(n, 8, 0, NULL));
    for (int32_t ways = 1; ways <= 4; ways++) {
      fs_generator_options o = fs_test_options(n, 8, 0, NULL);
      o.ways = ways;
      expect_flow("barrier-nway", o);
    }
  }
}
END_TEST

START_TEST(data_flow_large) {
  static const int32_t sizes[] = {100, 128, 257, 1000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    int32_t n = sizes[i];
    expect_flow("allgather-bruck", fs_test_options(n, 8, 0, NULL));
    expect_flow("allgather-neighbor", fs_test_options(n % 2 ? n + 1 : n, 8, 0, NULL));
    expect_flow("barrier-linear", fs_test_options(n, 0, 0, NULL));
    fs_generator_options o = fs_test_options(n, 8, 0, NULL);
    o.ways = 3;
    expect_flow("barrier-nway", o);
    if (n <= 257) { /* N^2 blocks */
      expect_flow("alltoall-linear", fs_test_options(n, 8, 0, NULL));
      expect_flow("alltoall-bruck", fs_test_options(n, 8, 0, NULL));
    }
  }
}
END_TEST

/* ---- analytic times --------------------------------------------------- */

/* Makespan of name at n ranks and S bytes (and ways) under a model. */
static fs_time makespan(const char *name, int32_t n, int64_t size, int32_t ways, const char *model,
                        const char *params) {
  fs_generator_options o = fs_test_options(n, size, 0, NULL);
  o.ways = ways;
  return fs_test_generated_makespan(name, &o, model, "fixed", params);
}

static const char HOCKNEY[] = "alpha=1us beta=1ns";
static const int32_t RANKS[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 16, 31, 64, 100};
#define FOR_RANKS(n)                                                \
  for (size_t at_ = 0; at_ < sizeof RANKS / sizeof RANKS[0]; at_++) \
    for (int32_t n = RANKS[at_], once_ = 1; once_; once_ = 0)

/* Hockney's sendrecv step: every rank posts its recv, then sends m bytes,
 * busy until t + alpha + beta m, when its own incoming message (sent at the
 * same t by its symmetric partner) arrives too: the step costs alpha +
 * beta m and the next starts then.
 *
 * Bruck allgather: step k moves min(2^k, N - 2^k) blocks, so
 * T = sum_k (alpha + beta S min(2^k, N - 2^k)) = ceil(log2 N) alpha +
 * (N-1) beta S (the blocks add up to N-1: MPICH's lgp.alpha +
 * n((p-1)/p).beta with n = N S). N = 6, S = 1000 B, alpha = 1 us, beta =
 * 1 ns/B: 3 us + 5 us = 8 us. */
START_TEST(allgather_bruck_hockney) {
  ck_assert_int_eq(makespan("allgather-bruck", 6, 1000, 0, "hockney", HOCKNEY), 8 * US);
  FOR_RANKS(n) {
    int64_t k = 0;
    while ((1LL << k) < n) k++;
    fs_time expected = k * US + (int64_t)(n - 1) * 1000 * NS;
    ck_assert_int_eq(makespan("allgather-bruck", n, 1000, 0, "hockney", HOCKNEY), expected);
  }
}
END_TEST

/* Neighbor exchange: one step of one block, N/2 - 1 of two:
 * T = alpha + beta S + (N/2 - 1)(alpha + 2 beta S) = N/2 alpha + (N-1) beta S
 * (the tau-Lop thesis's eq. 4.25 with o = alpha, 2L(m,P) = beta m, no copy).
 * N = 6, S = 1000: 2 + 2 * 3 = 8 us. */
START_TEST(allgather_neighbor_hockney) {
  ck_assert_int_eq(makespan("allgather-neighbor", 6, 1000, 0, "hockney", HOCKNEY), 8 * US);
  FOR_RANKS(n) {
    if (n % 2) continue;
    fs_time expected = (n / 2) * US + (int64_t)(n - 1) * 1000 * NS;
    ck_assert_int_eq(makespan("allgather-neighbor", n, 1000, 0, "hockney", HOCKNEY), expected);
  }
}
END_TEST

/* Linear alltoall: a rank's N-1 receives are posted in no time, then its
 * N-1 sends run back to back, the j-th (to r - j) ending at j(alpha + beta
 * S); rank r's message from r + j arrives at j(alpha + beta S), the last
 * (from r + N-1 = r - 1) at (N-1)(alpha + beta S), when the rank's own
 * sends end too: T = (N-1)(alpha + beta S). N = 6, S = 1000: 10 us.
 * Under pipelined (CPU free after alpha_r, arrival alpha_p + beta s later)
 * the sends are issued every alpha_r: T = (N-1) alpha_r + alpha_p + beta S
 * (the thesis's eq. 4.4 for b = N-1 back-to-back messages). */
START_TEST(alltoall_linear_times) {
  ck_assert_int_eq(makespan("alltoall-linear", 6, 1000, 0, "hockney", HOCKNEY), 10 * US);
  FOR_RANKS(n) {
    fs_time expected = (int64_t)(n - 1) * 2 * US;
    ck_assert_int_eq(makespan("alltoall-linear", n, 1000, 0, "hockney", HOCKNEY), expected);
    expected = n > 1 ? (int64_t)(n - 1) * 500 * NS + 3 * US + 1000 * NS : 0;
    ck_assert_int_eq(makespan("alltoall-linear", n, 1000, 0, "pipelined",
                              "alpha_p=3us alpha_r=0.5us beta=1ns"),
                     expected);
  }
}
END_TEST

/* Bruck alltoall: step k moves c_k = #{i in 1..N-1 : bit k of i} blocks,
 * T = sum_k (alpha + beta S c_k); for N = 2^m every c_k = N/2, T = log2 N
 * (alpha + beta S N/2) (MPICH's lgp.alpha + (n/2).lgp.beta, n = N S).
 * N = 6, S = 1000: c = 3, 2, 2: 4 + 3 + 3 = 10 us; N = 16: 4 (1 + 8) =
 * 36 us. */
START_TEST(alltoall_bruck_hockney) {
  ck_assert_int_eq(makespan("alltoall-bruck", 6, 1000, 0, "hockney", HOCKNEY), 10 * US);
  ck_assert_int_eq(makespan("alltoall-bruck", 16, 1000, 0, "hockney", HOCKNEY), 36 * US);
  FOR_RANKS(n) {
    fs_time expected = 0;
    for (int64_t d = 1; d < n; d *= 2) {
      int64_t blocks = 0;
      for (int64_t i = 1; i < n; i++) blocks += (i & d) != 0;
      expected += US + blocks * 1000 * NS;
    }
    ck_assert_int_eq(makespan("alltoall-bruck", n, 1000, 0, "hockney", HOCKNEY), expected);
  }
}
END_TEST

/* Linear barrier, S = 0: every rank > 0 sends at 0, all arrive at alpha;
 * rank 0 then sends N-1 messages back to back, the last arriving at alpha +
 * (N-1) alpha: T = N alpha (N >= 2). With S bytes each message costs alpha
 * + beta S: T = N (alpha + beta S). */
START_TEST(barrier_linear_hockney) {
  FOR_RANKS(n) {
    fs_time expected = n > 1 ? n * US : 0;
    ck_assert_int_eq(makespan("barrier-linear", n, 0, 0, "hockney", HOCKNEY), expected);
    ck_assert_int_eq(makespan("barrier-linear", n, 1000, 0, "hockney", HOCKNEY), 2 * expected);
  }
}
END_TEST

/* The same under LogGOPS (defaults L = 2500, o = 1500, g = 1000 ns; S = 0,
 * so no G or O term), where rank 0's CPU serializes: the N-1 messages
 * reach it together at o + L and are received one after the other, each
 * holding its CPU o (o > g): done at o + L + (N-1) o = L + N o. Its N-1
 * sends then leave every o; the last, issued at L + N o + (N-2) o, arrives
 * L + o later and takes o at its receiver: T = 2L + 2N o. N = 4: 17 us. */
START_TEST(barrier_linear_loggops) {
  ck_assert_int_eq(makespan("barrier-linear", 4, 0, 0, "loggops", ""), 17 * US);
  FOR_RANKS(n) {
    fs_time expected = n > 1 ? 2 * 2500 * NS + 2 * n * 1500 * NS : 0;
    ck_assert_int_eq(makespan("barrier-linear", n, 0, 0, "loggops", ""), expected);
  }
}
END_TEST

/* n-way dissemination: round k's m_k sends run back to back (hockney: the
 * sender is busy to arrival), the j-th arriving at j (alpha + beta S), so
 * the round's last receive completes m_k (alpha + beta S) after it began,
 * when the sender is free too: T = (alpha + beta S) sum_k m_k, with m_k = n
 * but the last round's min(n, (N-1) div D). S = 0: N = 6, n = 2: 2 + 1
 * messages, 3 us; n = 1: ceil(log2 N) alpha, barrier-dissemination's.
 * Under pipelined a round costs m_k alpha_r + alpha_p (the thesis's eq.
 * 4.4 for b = m_k): T = R alpha_p + alpha_r sum_k m_k, where n-way
 * dissemination pays off: fewer rounds R, each paying alpha_p once. */
START_TEST(barrier_nway_times) {
  ck_assert_int_eq(makespan("barrier-nway", 6, 0, 2, "hockney", HOCKNEY), 3 * US);
  ck_assert_int_eq(makespan("barrier-nway", 100, 0, 3, "pipelined",
                            "alpha_p=3us alpha_r=0.5us beta=0ns"),
                   /* D = 1, 4, 16, 64: m = 3, 3, 3, 1 (99 div 64) */
                   4 * 3 * US + 10 * 500 * NS);
  for (int32_t ways = 1; ways <= 5; ways++) FOR_RANKS(n) {
      int64_t rounds = 0, messages = 0;
      for (int64_t d = 1; d < n; d *= ways + 1, rounds++)
        messages += (n - 1) / d < ways ? (n - 1) / d : ways;
      ck_assert_int_eq(makespan("barrier-nway", n, 0, ways, "hockney", HOCKNEY), messages * US);
      ck_assert_int_eq(makespan("barrier-nway", n, 1000, ways, "hockney", HOCKNEY),
                       messages * 2 * US);
      ck_assert_int_eq(makespan("barrier-nway", n, 0, ways, "pipelined",
                                "alpha_p=3us alpha_r=0.5us beta=0ns"),
                       rounds * 3 * US + messages * 500 * NS);
      if (ways == 1) {
        ck_assert_int_eq(makespan("barrier-dissemination", n, 0, 0, "hockney", HOCKNEY),
                         messages * US);
      }
    }
}
END_TEST

/* tau-Lop, all P ranks on one node, unsegmented, a linear shared-memory
 * table L(m,tau) = c_tau m with c_4 = 3 ns/B (beyond the table's T = 4,
 * L(m,tau) = L(m,4) tau/4, so c_8 = 6 ns/B), o = 7 ns, m = 100 B. A step
 * where all P ranks send x bytes is P || T_sr(x) = o + 2 L(x,P): the P
 * copies in run together, then the P copies out.
 *
 * Neighbor exchange (thesis §4.5.1, eq. 4.25-4.26): [P || T_sr(m)] +
 * (P/2 - 1)[P || T_sr(2m)]; with L linear, 2L(m,P) + (P/2-1) 2L(2m,P) =
 * 2(P-1) L(m,P): Theta = P/2 o + 2(P-1) L(m,P) (eq. 4.26 with a constant o
 * and no initial copy). P = 4: 2*7 + 6*300 = 1814 ns; P = 8: 4*7 + 14*600
 * = 8428 ns.
 *
 * Bruck (§4.5.3, eq. 4.35-4.36), P a power of two: sum_i [P || T_sr(2^i m)]
 * = log2 P o + 2(P-1) L(m,P), without the (P+1) c(m,P) of the copies.
 * P = 4: 14 + 1800 = 1814 ns; P = 8: 21 + 8400 = 8421 ns. */
START_TEST(allgather_taulop) {
  char *shm = fs_test_temp_path(".shm"), *net = fs_test_temp_path(".net");
  fs_test_write_file(shm, "0B 0ns 0ns 0ns 0ns\n1000B 1000ns 1500ns 2000ns 3000ns\n", 0);
  fs_test_write_file(net, "0B 0ns\n1000B 10us\n", 0);
  static const int32_t ranks[] = {4, 8};
  static const fs_time neighbor[] = {1814 * NS, 8428 * NS}, bruck[] = {1814 * NS, 8421 * NS};
  for (int i = 0; i < 2; i++) {
    char params[1024];
    snprintf(params, sizeof params,
             "shm_table=%s net_table=%s segment=0B shm_o=7ns nodes=1 cores=%d", shm, net, ranks[i]);
    ck_assert_int_eq(makespan("allgather-neighbor", ranks[i], 100, 0, "taulop", params),
                     neighbor[i]);
    ck_assert_int_eq(makespan("allgather-bruck", ranks[i], 100, 0, "taulop", params), bruck[i]);
  }
  free(shm), free(net);
}
END_TEST

static Suite *exchange_suite(void) {
  Suite *s = suite_create("exchange");
  TCase *structure = tcase_create("structure");
  tcase_add_test(structure, allgather_bruck_by_hand);
  tcase_add_test(structure, allgather_neighbor_by_hand);
  tcase_add_test(structure, alltoall_bruck_by_hand);
  tcase_add_test(structure, against_the_libraries_loops);
  tcase_add_test(structure, task_and_dependency_counts);
  tcase_add_test(structure, barrier_linear_by_hand);
  tcase_add_test(structure, barrier_nway_structure);
  tcase_add_test(structure, barrier_nway_one_way_is_dissemination);
  tcase_add_test(structure, bad_options);
  suite_add_tcase(s, structure);
  TCase *flow = tcase_create("data_flow");
  tcase_add_test(flow, data_flow_small);
  tcase_add_test(flow, data_flow_large);
  suite_add_tcase(s, flow);
  TCase *times = tcase_create("times");
  tcase_add_test(times, allgather_bruck_hockney);
  tcase_add_test(times, allgather_neighbor_hockney);
  tcase_add_test(times, alltoall_linear_times);
  tcase_add_test(times, alltoall_bruck_hockney);
  tcase_add_test(times, barrier_linear_hockney);
  tcase_add_test(times, barrier_linear_loggops);
  tcase_add_test(times, barrier_nway_times);
  tcase_add_test(times, allgather_taulop);
  suite_add_tcase(s, times);
  return s;
}

int main(void) { return fs_test_run(exchange_suite()); }
