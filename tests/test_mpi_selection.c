/* test_mpi_selection.c: MPICH's and Open MPI's algorithm selection
 * (mpi_selection.h, issue 19 item 3): every decision boundary of both
 * libraries' tables for the eight collectives, at the threshold and one
 * byte either side and at the rank-count boundaries; the fallbacks inside
 * Open MPI's algorithms; the size conversions; the errors; the selectors
 * as generators (`gen`), and in a replay (--algo all=ompi). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "data_flow_check.h"
#include "generators/mpi_selection.h"
#include "model_support.h"
#include "test_support.h"
#include "trace/replay.h"
#include "trace/trace.h"

#define K 1024
#define M (1024 * 1024)

static fs_mpi_decision decide(fs_mpi_library library, fs_collective c, int32_t ranks, int64_t size,
                              int32_t element) {
  fs_mpi_call call = {c, ranks, size, element, 0};
  fs_mpi_decision d;
  fs_error err = {{0}};
  ck_assert_msg(fs_mpi_decide(library, &call, &d, &err) == 0, "%s", err.message);
  return d;
}

/* One expected pick: library, collective, P, --size, element size (0: 8),
 * the generator spec and the library's algorithm name. */
typedef struct pick {
  fs_mpi_library library;
  fs_collective c;
  int32_t p;
  int64_t s;
  int32_t element;
  const char *spec, *algorithm;
} pick;

static void expect_picks(const pick *cases, size_t count) {
  for (size_t i = 0; i < count; i++) {
    const pick *e = &cases[i];
    fs_mpi_decision d = decide(e->library, e->c, e->p, e->s, e->element);
    ck_assert_msg(strcmp(d.spec, e->spec) == 0 && strcmp(d.algorithm, e->algorithm) == 0,
                  "%s-%s P=%d S=%lld e=%d: got %s (%s; %s), expected %s (%s)",
                  fs_collective_name(e->c), fs_mpi_library_name(e->library), e->p, (long long)e->s,
                  e->element, d.spec, d.algorithm, d.rule, e->spec, e->algorithm);
  }
}

#define MPICH FS_MPI_MPICH
#define OMPI FS_MPI_OMPI
#define BCAST FS_COLLECTIVE_BCAST
#define REDUCE FS_COLLECTIVE_REDUCE
#define ALLREDUCE FS_COLLECTIVE_ALLREDUCE
#define ALLGATHER FS_COLLECTIVE_ALLGATHER
#define ALLTOALL FS_COLLECTIVE_ALLTOALL
#define GATHER FS_COLLECTIVE_GATHER
#define SCATTER FS_COLLECTIVE_SCATTER
#define BARRIER FS_COLLECTIVE_BARRIER

/* ---- MPICH: the flat MPIR table ---- */

/* bcast: P < 8 binomial; P >= 8: n <= 12288 binomial; pow2 P n <= 524288
 * scatter + recursive-doubling allgather; else scatter + ring. */
START_TEST(mpich_bcast_boundaries) {
  static const pick cases[] = {
      {MPICH, BCAST, 7, 64 * M, 0, "bcast-smp", "binomial"},
      {MPICH, BCAST, 8, 12287, 0, "bcast-smp", "binomial"},
      {MPICH, BCAST, 8, 12288, 0, "bcast-smp", "binomial"},
      {MPICH, BCAST, 8, 12289, 0, "bcast-scatter-rd-allgather",
       "scatter_recursive_doubling_allgather"},
      {MPICH, BCAST, 8, 524287, 0, "bcast-scatter-rd-allgather",
       "scatter_recursive_doubling_allgather"},
      {MPICH, BCAST, 8, 524288, 0, "bcast-scatter-rd-allgather",
       "scatter_recursive_doubling_allgather"},
      {MPICH, BCAST, 8, 524289, 0, "bcast-scatter-allgather", "scatter_ring_allgather"},
      {MPICH, BCAST, 9, 12288, 0, "bcast-smp", "binomial"},
      {MPICH, BCAST, 9, 12289, 0, "bcast-scatter-allgather", "scatter_ring_allgather"},
      {MPICH, BCAST, 1024, 12289, 0, "bcast-scatter-rd-allgather",
       "scatter_recursive_doubling_allgather"},
      {MPICH, BCAST, 1023, 12289, 0, "bcast-scatter-allgather", "scatter_ring_allgather"},
  };
  expect_picks(cases, sizeof cases / sizeof cases[0]);
}
END_TEST

/* reduce: n <= 2048 binomial; count < pof2 binomial; else Rabenseifner.
 * allreduce: n <= 8 RD; count < pof2 RD; else Rabenseifner. count = S /
 * element (8 by default). */
START_TEST(mpich_reduce_and_allreduce_boundaries) {
  static const pick cases[] = {
      {MPICH, REDUCE, 4, 2047, 0, "reduce-smp", "binomial"},
      {MPICH, REDUCE, 4, 2048, 0, "reduce-smp", "binomial"},
      {MPICH, REDUCE, 4, 2049, 0, "reduce-rabenseifner", "reduce_scatter_gather"},
      /* pof2(1500) = 1024: 1023 elements, then 1024 */
      {MPICH, REDUCE, 1500, 8 * 1023, 0, "reduce-smp", "binomial"},
      {MPICH, REDUCE, 1500, 8 * 1024, 0, "reduce-rabenseifner", "reduce_scatter_gather"},
      {MPICH, REDUCE, 2048, 8 * 1024, 0, "reduce-smp", "binomial"},
      /* 4096 B: 512 doubles < 1024, 1024 floats */
      {MPICH, REDUCE, 1024, 4096, 0, "reduce-smp", "binomial"},
      {MPICH, REDUCE, 1024, 4096, 4, "reduce-rabenseifner", "reduce_scatter_gather"},
      {MPICH, ALLREDUCE, 1, 8, 0, "allreduce-rd", "recursive_doubling"},
      {MPICH, ALLREDUCE, 1, 9, 0, "allreduce-rabenseifner", "reduce_scatter_allgather"},
      {MPICH, ALLREDUCE, 4, 31, 0, "allreduce-rd", "recursive_doubling"},
      {MPICH, ALLREDUCE, 4, 32, 0, "allreduce-rabenseifner", "reduce_scatter_allgather"},
      {MPICH, ALLREDUCE, 4, 16, 4, "allreduce-rabenseifner", "reduce_scatter_allgather"},
      {MPICH, ALLREDUCE, 7, 31, 0, "allreduce-rd", "recursive_doubling"},
      {MPICH, ALLREDUCE, 8, 63, 0, "allreduce-rd", "recursive_doubling"},
      {MPICH, ALLREDUCE, 8, 64, 0, "allreduce-rabenseifner", "reduce_scatter_allgather"},
  };
  expect_picks(cases, sizeof cases / sizeof cases[0]);
}
END_TEST

/* allgather on the total T = P * S: pow2 P: T < 524288 RD, else ring;
 * other P: T < 81920 Bruck, else ring. */
START_TEST(mpich_allgather_boundaries_on_the_total) {
  static const pick cases[] = {
      {MPICH, ALLGATHER, 1, 524287, 0, "allgather-rd", "recursive_doubling"},
      {MPICH, ALLGATHER, 1, 524288, 0, "allgather-ring", "ring"},
      {MPICH, ALLGATHER, 2, 262143, 0, "allgather-rd", "recursive_doubling"},
      {MPICH, ALLGATHER, 2, 262144, 0, "allgather-ring", "ring"},
      /* 16 x 32 KiB = 512 KiB: the total decides, not the block */
      {MPICH, ALLGATHER, 16, 32767, 0, "allgather-rd", "recursive_doubling"},
      {MPICH, ALLGATHER, 16, 32768, 0, "allgather-ring", "ring"},
      {MPICH, ALLGATHER, 5, 16383, 0, "allgather-bruck", "brucks"},
      {MPICH, ALLGATHER, 5, 16384, 0, "allgather-ring", "ring"},
      {MPICH, ALLGATHER, 3, 27306, 0, "allgather-bruck", "brucks"}, /* T = 81918 */
      {MPICH, ALLGATHER, 3, 27307, 0, "allgather-ring", "ring"},    /* T = 81921 */
  };
  expect_picks(cases, sizeof cases / sizeof cases[0]);
}
END_TEST

/* alltoall on the per-peer block b: P <= 8 (the JSON's "<8", tested as
 * <= 8): b <= 32768 scattered, else pairwise; P > 8: b <= 256 Bruck,
 * b <= 32768 scattered, else pairwise (XOR partners for pow2 P). gather,
 * scatter and barrier have one algorithm each. */
START_TEST(mpich_alltoall_and_the_rest) {
  static const pick cases[] = {
      {MPICH, ALLTOALL, 8, 1, 0, "alltoall-scattered:ways=32", "scattered"},
      {MPICH, ALLTOALL, 8, 32768, 0, "alltoall-scattered:ways=32", "scattered"},
      {MPICH, ALLTOALL, 8, 32769, 0, "alltoall-pairwise-xor", "pairwise"},
      {MPICH, ALLTOALL, 7, 32769, 0, "alltoall-pairwise", "pairwise"},
      {MPICH, ALLTOALL, 9, 256, 0, "alltoall-bruck", "brucks"},
      {MPICH, ALLTOALL, 9, 257, 0, "alltoall-scattered:ways=32", "scattered"},
      {MPICH, ALLTOALL, 9, 32768, 0, "alltoall-scattered:ways=32", "scattered"},
      {MPICH, ALLTOALL, 9, 32769, 0, "alltoall-pairwise", "pairwise"},
      {MPICH, ALLTOALL, 16, 32769, 0, "alltoall-pairwise-xor", "pairwise"},
      {MPICH, GATHER, 5, 1, 0, "gather-binomial", "binomial"},
      {MPICH, SCATTER, 4096, 64 * M, 0, "scatter-binomial", "binomial"},
      {MPICH, BARRIER, 13, 0, 0, "barrier-dissemination", "k_dissemination k=2 (dissemination)"},
  };
  expect_picks(cases, sizeof cases / sizeof cases[0]);
}
END_TEST

/* ---- Open MPI: the tables, transcribed again here as text ---- */

/* Each row: the bound on P ("<4", "=2", "*" for the rest), then the steps
 * "<SIZE:ALG" in order and the last algorithm (the else), as written in
 * coll_tuned_decision_fixed.c (v4.1.8 = v5.0.10). */
typedef struct text_row {
  const char *p, *steps;
} text_row;

static const text_row allreduce_text[] = {{"<4", "<8:4 <4K:3 <8K:4 <16K:3 <64K:4 <256K:5 6"},
                                          {"<8", "<16:4 <8K:3 6"},
                                          {"<16", "<8K:3 6"},
                                          {"<32", "<64:5 <4K:3 6"},
                                          {"<64", "<128:5 6"},
                                          {"<128", "<256K:3 6"},
                                          {"<256", "<128K:2 <256K:3 6"},
                                          {"<512", "<4K:2 6"},
                                          {"<2048", "<2K:2 <16K:3 6"},
                                          {"<4096", "<2K:2 <4K:5 <16K:3 6"},
                                          {"*", "<2K:2 <16K:5 <32K:3 6"},
                                          {NULL, NULL}};
static const text_row bcast_text[] =
    {{"<4", "<32:3 <256:5 <512:3 <1K:7 <32K:1 <128K:5 <256K:2 <512K:1 <1M:6 5"},
     {"<8", "<64:5 <128:6 <2K:5 <8K:6 <1M:1 2"},
     {"<16", "<8:7 <64:5 <4K:7 <16K:5 <32K:6 1"},
     {"<32", "<4K:7 <1M:6 8"},
     {"<64", "<2K:6 7"},
     {"<128", "7"},
     {"<256", "<2:6 <16K:5 <32K:1 <64K:5 7"},
     {"<1024", "<16K:7 <32K:4 7"},
     {"<2048", "<512K:7 8"},
     {"<4096", "<256K:7 8"},
     {"*", "<8K:7 <16K:5 <256K:7 8"},
     {NULL, NULL}};
static const text_row reduce_text[] = {{"<4", "<8:7 <16:4 <32:3 <256K:1 <512K:3 <1M:2 3"},
                                       {"<8", "<4K:4 <64K:2 <256K:5 <512K:1 <1M:5 1"},
                                       {"<16", "<8K:4 5"},
                                       {"<32", "<4K:4 5"},
                                       {"<128", "5"},
                                       {"<256", "5"},
                                       {"<512", "<8K:5 <16K:6 5"},
                                       {"<2048", "5"},
                                       {"<4096", "<512:5 <1K:6 <8K:5 <16K:6 5"},
                                       {"*", "<16:5 <32:6 <1K:5 <2K:6 <8K:5 <16K:6 5"},
                                       {NULL, NULL}};
static const text_row allgather_text[] = {{"=2", "6"},
                                          {"<32", "3"},
                                          {"<64", "<1K:3 <64K:5 4"},
                                          {"<128", "<512:3 <64K:5 4"},
                                          {"<256", "<512:3 <128K:5 <512K:4 <1M:5 4"},
                                          {"<512", "<32:3 <128:2 <1K:3 <128K:5 <512K:4 <1M:5 4"},
                                          {"<1024", "<64:3 <256:2 <2K:3 5"},
                                          {"<2048", "<4:3 <8:2 <16:3 <32:2 <256:3 <512:2 <4K:3 5"},
                                          {"<4096", "<32:2 <128:3 <512:2 <4K:3 5"},
                                          {"*", "<2:3 <8:2 <16:3 <512:2 <4K:3 5"},
                                          {NULL, NULL}};
static const text_row alltoall_text[] =
    {{"=2", "<2:2 <4:5 <16:2 <64:5 <256:2 <4K:5 <32K:2 <256K:4 <1M:5 2"},
     {"<8", "<8K:4 <16K:1 <64K:4 <512K:1 <1M:2 1"},
     {"<16", "<256K:4 1"},
     {"<32", "<4:4 <512:3 <8K:4 <32K:1 <256K:4 <512K:1 4"},
     {"<64", "<512:3 <512K:1 4"},
     {"<128", "<1K:3 <2K:1 <4K:4 <256K:1 2"},
     {"<256", "<1K:3 <2K:4 <256K:1 2"},
     {"<512", "<1K:3 <8K:4 <32K:1 2"},
     {"<1024", "<512:3 <8K:4 <16K:1 <128K:4 <256K:1 2"},
     {"<2048", "<512:3 <1K:4 <2K:1 <16K:4 <256K:1 4"},
     {"<4096", "<1K:3 <4K:4 <8K:1 <128K:4 1"},
     {"*", "<2K:3 <8K:4 <16K:1 <32K:4 <64K:1 4"},
     {NULL, NULL}};
static const text_row gather_text[] = {{"<4", "<2:3 <4:1 <32K:2 <64K:1 <128K:2 3"},
                                       {"<8", "<1K:2 <8K:1 <32K:2 <256K:1 3"},
                                       {"<256", "2"},
                                       {"<512", "<2K:2 <8K:1 2"},
                                       {"*", "2"},
                                       {NULL, NULL}};
static const text_row scatter_text[] = {{"<4", "<2:3 <128K:1 <256K:3 1"},
                                        {"<8", "<2K:2 <4K:1 <8K:2 <32K:1 <1M:3 1"},
                                        {"<16", "<16K:2 <1M:3 1"},
                                        {"<32", "<16K:2 <32K:1 3"},
                                        {"<64", "<512:2 <8K:3 <16K:2 3"},
                                        {"*", "<512:2 3"},
                                        {NULL, NULL}};
static const text_row barrier_text[] = {{"<4", "3"},    {"<8", "1"},   {"<64", "3"},
                                        {"<256", "4"},  {"<512", "6"}, {"<1024", "4"},
                                        {"<4096", "6"}, {"*", "4"},    {NULL, NULL}};

/* "64", "4K", "1M" at text; *used: its length. */
static int64_t size_of(const char *text, size_t *used) {
  size_t n = strspn(text, "0123456789");
  int64_t v = atoll(text);
  if (text[n] == 'K') v *= K, n++;
  if (text[n] == 'M') v *= M, n++;
  *used = n;
  return v;
}

/* The tuned id in "tuned N (name)...". */
static int tuned_id(const fs_mpi_decision *d) {
  ck_assert_msg(strncmp(d->algorithm, "tuned ", 6) == 0, "%s", d->algorithm);
  return atoi(d->algorithm + 6);
}

static void expect_id(fs_collective c, int32_t p, int64_t s, int id) {
  if (s < 0) return;
  fs_mpi_decision d = decide(OMPI, c, p, s, 0);
  ck_assert_msg(tuned_id(&d) == id, "%s-ompi P=%d S=%lld: %s (%s), the table says %d",
                fs_collective_name(c), p, (long long)s, d.algorithm, d.rule, id);
}

/* Every step of the row for P: the threshold and one byte either side,
 * size 0, and far past the last threshold (the else). */
static void expect_row(fs_collective c, int32_t p, const char *steps) {
  int64_t below[16];
  int id[17], n = 0;
  const char *at = steps;
  while (*at == '<') {
    size_t used;
    below[n] = size_of(at + 1, &used);
    id[n++] = atoi(at + 1 + used + 1);
    at = strchr(at, ' ') + 1;
  }
  id[n] = atoi(at);
  expect_id(c, p, 0, id[0]);
  for (int k = 0; k < n; k++) {
    expect_id(c, p, below[k] - 1, id[k]);
    expect_id(c, p, below[k], id[k + 1]);
    if (k + 1 == n || below[k] + 1 < below[k + 1]) expect_id(c, p, below[k] + 1, id[k + 1]);
  }
  expect_id(c, p, (n ? below[n - 1] : 0) + 64 * M, id[n]);
}

/* Each row at its lowest and highest P (P = 2 for "=2" rows, which come
 * first and take P = 2 from the next row). */
static void expect_table(fs_collective c, const text_row *rows) {
  int32_t low = 1;
  int exact2 = strcmp(rows[0].p, "=2") == 0;
  for (const text_row *r = rows; r->p; r++) {
    if (strcmp(r->p, "=2") == 0) {
      expect_row(c, 2, r->steps);
      continue;
    }
    int32_t high = strcmp(r->p, "*") == 0 ? 8192 : atoi(r->p + 1) - 1;
    int32_t ends[2] = {low, high};
    for (int e = 0; e < 2; e++)
      if (!(exact2 && ends[e] == 2) && (e == 0 || high != low)) expect_row(c, ends[e], r->steps);
    if (exact2 && low <= 3 && high >= 3) expect_row(c, 3, r->steps);
    low = high + 1;
  }
}

START_TEST(ompi_tables_at_every_boundary) {
  expect_table(FS_COLLECTIVE_ALLREDUCE, allreduce_text);
  expect_table(FS_COLLECTIVE_BCAST, bcast_text);
  expect_table(FS_COLLECTIVE_REDUCE, reduce_text);
  expect_table(FS_COLLECTIVE_ALLGATHER, allgather_text);
  expect_table(FS_COLLECTIVE_ALLTOALL, alltoall_text);
  expect_table(FS_COLLECTIVE_GATHER, gather_text);
  expect_table(FS_COLLECTIVE_SCATTER, scatter_text);
  expect_table(FS_COLLECTIVE_BARRIER, barrier_text);
}
END_TEST

/* The tuned ids as generators, and the fallbacks inside the algorithms. */
START_TEST(ompi_algorithms_and_fallbacks) {
  static const pick cases[] = {
      /* allreduce: P 8, n < 8K RD, else Rabenseifner (count 1024 >= 8) */
      {OMPI, ALLREDUCE, 8, 8 * K - 1, 0, "allreduce-rd", "tuned 3 (recursive_doubling)"},
      {OMPI, ALLREDUCE, 8, 8 * K, 0, "allreduce-rabenseifner", "tuned 6 (rabenseifner)"},
      /* ring with count < P runs recursive doubling: P 4, 8 B = 1 double */
      {OMPI, ALLREDUCE, 4, 8, 0, "allreduce-rd", "tuned 4 (ring) as recursive_doubling"},
      {OMPI, ALLREDUCE, 2, 4 * K + 8, 0, "allreduce-ring", "tuned 4 (ring)"},
      /* segmented ring, segsize 0: the ring; 8 KiB of bytes is 8192 >= P */
      {OMPI, ALLREDUCE, 4096, 8 * K, 1, "allreduce-ring", "tuned 5 (segmented_ring) as ring"},
      {OMPI, ALLREDUCE, 4096, 8 * K, 0, "allreduce-rd",
       "tuned 5 (segmented_ring) as ring as recursive_doubling"},
      /* Rabenseifner with count 8 < pof2 16: basic linear */
      {OMPI, ALLREDUCE, 16, 64 * K, 8 * K, "allreduce-linear",
       "tuned 6 (rabenseifner) as basic_linear"},
      /* nonoverlapping: the reduce and bcast tables at the same P and n */
      {OMPI, ALLREDUCE, 128, 1 * K, 0, "allreduce-reduce-bcast:schedule=reduce-smp+bcast-binary",
       "tuned 2 (nonoverlapping: reduce 5 (binomial), bcast 5 (binary_tree))"},
      {OMPI, ALLREDUCE, 512, 1 * K, 0, "allreduce-reduce-bcast:schedule=reduce-smp+bcast-knomial",
       "tuned 2 (nonoverlapping: reduce 5 (binomial), bcast 7 (knomial))"},
      {OMPI, ALLREDUCE, 4096, 1 * K, 0,
       "allreduce-reduce-bcast:schedule=reduce-in-order-binary+bcast-knomial",
       "tuned 2 (nonoverlapping: reduce 6 (in-order_binary), bcast 7 (knomial))"},
      /* bcast */
      {OMPI, BCAST, 2, 1 * K, 0, "bcast-linear", "tuned 1 (basic_linear)"},
      {OMPI, BCAST, 4, 1 * M, 0, "bcast-chain:segment=1048576B", "tuned 2 (chain)"},
      {OMPI, BCAST, 2, 0, 0, "bcast-chain", "tuned 3 (pipeline)"},
      {OMPI, BCAST, 256, 16 * K, 0, "bcast-split-binary", "tuned 4 (split_binary_tree)"},
      {OMPI, BCAST, 256, 16 * K, 16 * K, "bcast-chain:segment=16384B",
       "tuned 4 (split_binary_tree) as chain"},
      {OMPI, BCAST, 4, 32, 0, "bcast-binary", "tuned 5 (binary_tree)"},
      {OMPI, BCAST, 4, 64, 0, "bcast-binomial", "tuned 6 (binomial)"},
      {OMPI, BCAST, 32, 1 * K, 0, "bcast-binomial", "tuned 6 (binomial)"},
      {OMPI, BCAST, 64, 1 * M, 0, "bcast-knomial:ways=4", "tuned 7 (knomial)"},
      {OMPI, BCAST, 16, 1 * M, 0, "bcast-scatter-rd-allgather", "tuned 8 (scatter_allgather)"},
      {OMPI, BCAST, 16, 1 * M, 128 * K, "bcast-linear",
       "tuned 8 (scatter_allgather) as basic_linear"}, /* count 8 < P 16 */
      /* reduce */
      {OMPI, REDUCE, 5, 4 * K, 0, "reduce-chain", "tuned 2 (chain)"},
      {OMPI, REDUCE, 2, 16, 0, "reduce-chain", "tuned 3 (pipeline)"},
      {OMPI, REDUCE, 2, 8, 0, "reduce-binary", "tuned 4 (binary)"},
      {OMPI, REDUCE, 64, 8, 0, "reduce-smp", "tuned 5 (binomial)"},
      {OMPI, REDUCE, 256, 8 * K, 0, "reduce-in-order-binary", "tuned 6 (in-order_binary)"},
      {OMPI, REDUCE, 5, 1 * M, 0, "reduce-linear", "tuned 1 (linear)"},
      {OMPI, REDUCE, 2, 4, 0, "reduce-linear", "tuned 7 (rabenseifner) as linear"},
      {OMPI, REDUCE, 2, 4, 1, "reduce-rabenseifner", "tuned 7 (rabenseifner)"},
      /* allgather: RD needs pow2 P, neighbor even P; two_proc at 2 */
      {OMPI, ALLGATHER, 16, 8, 0, "allgather-rd", "tuned 3 (recursive_doubling)"},
      {OMPI, ALLGATHER, 24, 8, 0, "allgather-bruck", "tuned 3 (recursive_doubling) as bruck"},
      {OMPI, ALLGATHER, 34, 1 * K, 0, "allgather-neighbor", "tuned 5 (neighbor)"},
      {OMPI, ALLGATHER, 33, 1 * K, 0, "allgather-ring", "tuned 5 (neighbor) as ring"},
      {OMPI, ALLGATHER, 33, 64 * K, 0, "allgather-ring", "tuned 4 (ring)"},
      {OMPI, ALLGATHER, 300, 64, 0, "allgather-bruck", "tuned 2 (bruck)"},
      {OMPI, ALLGATHER, 2, 1 * M, 0, "allgather-ring", "tuned 6 (two_proc)"},
      /* alltoall */
      {OMPI, ALLTOALL, 8, 256 * K, 0, "alltoall-linear", "tuned 1 (linear)"},
      {OMPI, ALLTOALL, 128, 256 * K, 0, "alltoall-pairwise", "tuned 2 (pairwise)"},
      {OMPI, ALLTOALL, 16, 8, 0, "alltoall-bruck", "tuned 3 (modified_bruck)"},
      {OMPI, ALLTOALL, 8, 8, 0, "alltoall-linear", "tuned 4 (linear_sync)"},
      {OMPI, ALLTOALL, 2, 2, 0, "alltoall-pairwise", "tuned 5 (two_proc)"},
      /* gather, scatter, barrier */
      {OMPI, GATHER, 4, 1 * K, 0, "gather-linear", "tuned 1 (basic_linear)"},
      {OMPI, GATHER, 8, 8, 0, "gather-binomial", "tuned 2 (binomial)"},
      {OMPI, GATHER, 2, 1, 0, "gather-linear-sync", "tuned 3 (linear_sync)"},
      {OMPI, SCATTER, 2, 8, 0, "scatter-linear", "tuned 1 (basic_linear)"},
      {OMPI, SCATTER, 64, 8, 0, "scatter-binomial", "tuned 2 (binomial)"},
      {OMPI, SCATTER, 64, 512, 0, "scatter-linear-nb", "tuned 3 (linear_nb)"},
      {OMPI, BARRIER, 4, 0, 0, "barrier-linear", "tuned 1 (linear)"},
      {OMPI, BARRIER, 2, 0, 0, "barrier-rd", "tuned 3 (recursive_doubling)"},
      {OMPI, BARRIER, 64, 0, 0, "barrier-dissemination", "tuned 4 (bruck)"},
      {OMPI, BARRIER, 256, 0, 0, "barrier-tree", "tuned 6 (tree)"},
  };
  expect_picks(cases, sizeof cases / sizeof cases[0]);
}
END_TEST

/* The rule says what fired, with the sizes in the library's meaning. */
START_TEST(rules_say_what_fired) {
  fs_mpi_decision d = decide(MPICH, ALLGATHER, 16, 32768, 0);
  ck_assert_str_eq(d.rule, "P 16 a power of 2, T = P*S = 524288 >= 524288");
  d = decide(OMPI, ALLREDUCE, 64, 1 * M, 0);
  ck_assert_str_eq(d.rule, "64 <= P < 128, n 1048576 >= 262144");
  d = decide(OMPI, ALLREDUCE, 4, 8, 0);
  ck_assert_str_eq(d.rule, "4 <= P < 8, n 8 < 16; count 1 < P 4: recursive doubling");
  d = decide(OMPI, BARRIER, 300, 0, 0);
  ck_assert_str_eq(d.rule, "256 <= P < 512");
  d = decide(OMPI, BCAST, 16, 1 * M, 0);
  ck_assert_str_eq(d.rule, "16 <= P < 32, n 1048576 >= 1048576");
}
END_TEST

START_TEST(library_names) {
  ck_assert_int_eq(fs_mpi_library_find("mpich"), FS_MPI_MPICH);
  ck_assert_int_eq(fs_mpi_library_find("ompi"), FS_MPI_OMPI);
  ck_assert_int_eq(fs_mpi_library_find("openmpi"), -1);
  ck_assert_str_eq(fs_mpi_library_name(FS_MPI_OMPI), "ompi");
  ck_assert_str_eq(fs_mpi_library_version(FS_MPI_MPICH), "MPICH 4.1-5.0.1 (MPIR generic.json)");
}
END_TEST

/* Calls outside the rules, and a pick this build cannot generate. */
START_TEST(errors_name_the_call) {
  fs_mpi_decision d;
  fs_mpi_choice choice;
  fs_error err = {{0}};
  fs_mpi_call call = {FS_COLLECTIVE_ALLREDUCE, 0, 8, 0, 0};
  ck_assert_int_eq(fs_mpi_decide(MPICH, &call, &d, &err), -1);
  ck_assert_str_eq(err.message, "allreduce-mpich: 0 ranks: expected 1 or more");
  call = (fs_mpi_call){FS_COLLECTIVE_NONE, 4, 8, 0, 0};
  ck_assert_int_eq(fs_mpi_select(OMPI, &call, &choice, &err), -1);
  fs_test_contains(err.message, "no MPI library selection");
  /* Open MPI's knomial bcast: generated once bcast-knomial exists */
  call = (fs_mpi_call){FS_COLLECTIVE_BCAST, 64, 1 * M, 0, 0};
  if (fs_generator_find("bcast-knomial")) {
    ck_assert_int_eq(fs_mpi_select(OMPI, &call, &choice, &err), 0);
    ck_assert_str_eq(choice.spec.text, "bcast-knomial:ways=4");
  } else {
    ck_assert_int_eq(fs_mpi_select(OMPI, &call, &choice, &err), -1);
    ck_assert_str_eq(err.message,
                     "Open MPI picks bcast tuned 7 (knomial) at 64 ranks, 1048576 B: generator "
                     "bcast-knomial, which this build does not have");
  }
}
END_TEST

/* fs_mpi_select: the spec of an existing generator, with the call's root. */
START_TEST(select_gives_the_spec_with_the_root) {
  fs_mpi_choice choice;
  fs_error err = {{0}};
  fs_mpi_call call = {FS_COLLECTIVE_ALLREDUCE, 64, 1 * M, 0, 0};
  ck_assert_int_eq(fs_mpi_select(OMPI, &call, &choice, &err), 0);
  ck_assert_str_eq(choice.spec.generator->name, "allreduce-rabenseifner");
  ck_assert_str_eq(choice.algorithm, "tuned 6 (rabenseifner)");
  call = (fs_mpi_call){FS_COLLECTIVE_GATHER, 5, 1 * K, 0, 3};
  ck_assert_int_eq(fs_mpi_select(MPICH, &call, &choice, &err), 0);
  ck_assert_str_eq(choice.spec.text, "gather-binomial:root=3");
  call = (fs_mpi_call){FS_COLLECTIVE_BCAST, 4, 1 * M, 0, 0};
  ck_assert_int_eq(fs_mpi_select(OMPI, &call, &choice, &err), 0);
  ck_assert_str_eq(choice.spec.text, "bcast-chain:segment=1MiB");
}
END_TEST

/* The 16 selectors are generators with trait FS_GEN_SELECTOR, and
 * generate what they pick: bcast-ompi on 2 ranks, 4 KiB, is tuned 1
 * (basic linear): one message 0 -> 1, under hockney alpha 1 us, beta 1 ns
 * 1 us + 4096 ns = 5.096 us, the time of bcast-linear itself. */
START_TEST(selectors_generate_the_pick) {
  static const char *const collectives[] = {"barrier", "bcast",   "reduce",    "allreduce",
                                            "gather",  "scatter", "allgather", "alltoall"};
  for (int i = 0; i < 8; i++)
    for (int l = 0; l < 2; l++) {
      char name[64];
      snprintf(name, sizeof name, "%s-%s", collectives[i], l ? "ompi" : "mpich");
      const fs_generator *g = fs_generator_find(name);
      ck_assert_msg(g != NULL, "%s", name);
      ck_assert(g->traits & FS_GEN_SELECTOR);
      ck_assert_str_eq(fs_collective_name(g->collective), collectives[i]);
    }
  fs_generator_options o = {.ranks = 2, .size = 4 * K, .rounds = 1};
  fs_error err = {{0}};
  fs_program *p = fs_generator_find("bcast-ompi")->generate(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  fs_simulation run;
  fs_test_simulate(&run, p, "hockney", "fixed", "alpha=1us beta=1ns");
  ck_assert_int_eq(run.status, FS_RUN_OK);
  ck_assert_int_eq(fs_engine_finish_times(run.engine)[1], 5096 * FS_NS);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Every pick of both libraries, over rank counts and sizes that cross the
 * tables' rows and thresholds (and the fallbacks' counts), is a generator
 * this build has, and its schedule computes the collective (the data-flow
 * checker), with a root other than 0 for the rooted ones. */
START_TEST(every_pick_generates_and_computes_its_collective) {
  static const char *const collectives[] = {"barrier", "bcast",   "reduce",    "allreduce",
                                            "gather",  "scatter", "allgather", "alltoall"};
  static const int32_t ranks[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 24, 33, 64, 130, 300};
  static const int64_t sizes[] = {0,     1,      8,      64,      600,     2 * K, 4 * K,
                                  12289, 20 * K, 40 * K, 200 * K, 600 * K, 2 * M};
  char why[512];
  for (int c = 0; c < 8; c++)
    for (int l = 0; l < 2; l++) {
      char name[64];
      snprintf(name, sizeof name, "%s-%s", collectives[c], l ? "ompi" : "mpich");
      int rooted = c == 1 || c == 2 || c == 4 || c == 5;
      for (size_t p = 0; p < sizeof ranks / sizeof ranks[0]; p++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
          /* the large rank counts at the small sizes only (their rows'
           * thresholds are there); 300 ranks up to 64 B, alltoall's N*N
           * blocks up to 130 ranks */
          if (ranks[p] > 64 && sizes[k] > (c == 7 ? 64 : 20 * K)) continue;
          if ((c == 7 || sizes[k] > 64) && ranks[p] > 130) continue;
          fs_generator_options o = {.ranks = ranks[p], .size = sizes[k], .rounds = 1};
          if (rooted && ranks[p] > 2) o.root = ranks[p] / 2;
          const char *wrong = fs_check_generator_flow(name, &o, why, sizeof why);
          ck_assert_msg(wrong == NULL, "%s P=%d S=%lld: %s", name, ranks[p], (long long)sizes[k],
                        wrong);
        }
    }
}
END_TEST

/* `gen allreduce-ompi` writes the picked schedule and says what it picked. */
START_TEST(gen_says_what_was_picked) {
  char *out = NULL, *err = NULL;
  char *path = fs_test_temp_path(".dag");
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "gen allreduce-ompi --ranks 64 --size 1MiB -o %s",
                                      path),
                   0);
  ck_assert_str_eq(err, "fennelsim gen: allreduce-ompi: Open MPI 4.1.x/5.0.x (coll/tuned fixed "
                        "rules) picks tuned 6 (rabenseifner) [64 <= P < 128, n 1048576 >= "
                        "262144]: allreduce-rabenseifner\n");
  size_t a, b;
  char *picked = fs_test_read_file(path, &a);
  free(out), free(err);
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "gen allreduce-rabenseifner --ranks 64 --size 1MiB -o %s",
                                      path),
                   0);
  char *direct = fs_test_read_file(path, &b);
  ck_assert_int_eq(a, b);
  ck_assert(memcmp(picked, direct, a) == 0);
  free(out), free(err), free(picked), free(direct);
  /* GOAL follows the pick: the MPICH binomial gather is two-sided */
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err,
                                      "gen gather-mpich --ranks 5 --root 3 --size 1KiB --format "
                                      "goal -o %s",
                                      path),
                   0);
  fs_test_contains(err, "picks binomial [always]: gather-binomial:root=3");
  free(out), free(err);
  remove(path);
  free(path);
}
END_TEST

/* A trace of one barrier on 4 ranks (Init at 0, the barrier over [0, 1]
 * us, Finalize at 1), replayed with --algo text under hockney alpha 1 us:
 * the ranks' finish times. */
static void replay_barrier(const char *algo, fs_time *finish, char *described, size_t size) {
  fs_trace *t = fs_trace_new(4);
  for (int32_t r = 0; r < 4; r++) {
    fs_call *c = fs_trace_add_call(t, r, FS_CALL_INIT);
    c->start = c->end = 0;
    c = fs_trace_add_call(t, r, FS_CALL_BARRIER);
    c->start = 0, c->end = FS_US, c->comm = FS_COMM_WORLD;
    c = fs_trace_add_call(t, r, FS_CALL_FINALIZE);
    c->start = c->end = FS_US;
  }
  fs_replay_options o = {.compute_scale = 1, .flop_rate = 1e9, .algorithms = algo};
  fs_error err = {{0}};
  fs_replay *replay = fs_replay_build(t, &o, &err);
  ck_assert_msg(replay != NULL, "%s", err.message);
  fs_simulation run;
  fs_test_simulate(&run, replay->program, "hockney", "fixed", "alpha=1us beta=1ns");
  ck_assert_int_eq(run.status, FS_RUN_OK);
  for (int r = 0; r < 4; r++) finish[r] = fs_engine_finish_times(run.engine)[r];
  snprintf(described, size, "%s", replay->algorithms);
  fs_test_run_free(&run);
  fs_replay_free(replay);
  fs_trace_free(t);
}

/* --algo all=ompi: Open MPI's barrier on 4 ranks is tuned 1 (linear):
 * ranks 1-3 send 0 B to 0 (1 us each, all at once), then rank 0 releases
 * 1, 2, 3 with blocking sends of 1 us each: rank 1 at 2 us, rank 2 at 3,
 * rank 3 and rank 0 at 4. The default (MPICH's dissemination: two rounds
 * of sendrecv) ends everywhere at 2 us; all=ompi,barrier=dissemination
 * puts it back, all=mpich picks it. */
START_TEST(replay_algo_all_ompi) {
  fs_time t[4];
  char described[512];
  replay_barrier("all=ompi", t, described, sizeof described);
  ck_assert_str_eq(described, "barrier=barrier-ompi(barrier-linear)");
  ck_assert_int_eq(t[0], 4 * FS_US);
  ck_assert_int_eq(t[1], 2 * FS_US);
  ck_assert_int_eq(t[2], 3 * FS_US);
  ck_assert_int_eq(t[3], 4 * FS_US);
  replay_barrier("all=ompi,barrier=dissemination", t, described, sizeof described);
  ck_assert_str_eq(described, "barrier=barrier-dissemination");
  for (int r = 0; r < 4; r++) ck_assert_int_eq(t[r], 2 * FS_US);
  replay_barrier("barrier=mpich", t, described, sizeof described);
  ck_assert_str_eq(described, "barrier=barrier-mpich(barrier-dissemination)");
  for (int r = 0; r < 4; r++) ck_assert_int_eq(t[r], 2 * FS_US);
  /* all= needs COLLECTIVE-NAME for every collective */
  fs_trace *trace = fs_trace_new(1);
  fs_replay_options o = {.compute_scale = 1, .flop_rate = 1e9, .algorithms = "all=binomial"};
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_replay_build(trace, &o, &err));
  ck_assert_str_eq(err.message,
                   "--algo all=binomial: no generator barrier-binomial (all= takes mpich or ompi)");
  o.algorithms = "all=ompi:4";
  ck_assert_ptr_null(fs_replay_build(trace, &o, &err));
  ck_assert_str_eq(err.message, "--algo all=ompi:4: all= takes no option (all=mpich, all=ompi)");
  fs_trace_free(trace);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("mpi_selection");
  TCase *t = tcase_create("selection");
  tcase_add_test(t, mpich_bcast_boundaries);
  tcase_add_test(t, mpich_reduce_and_allreduce_boundaries);
  tcase_add_test(t, mpich_allgather_boundaries_on_the_total);
  tcase_add_test(t, mpich_alltoall_and_the_rest);
  tcase_add_test(t, ompi_tables_at_every_boundary);
  tcase_add_test(t, ompi_algorithms_and_fallbacks);
  tcase_add_test(t, rules_say_what_fired);
  tcase_add_test(t, library_names);
  tcase_add_test(t, errors_name_the_call);
  tcase_add_test(t, select_gives_the_spec_with_the_root);
  tcase_add_test(t, selectors_generate_the_pick);
  tcase_add_test(t, every_pick_generates_and_computes_its_collective);
  tcase_add_test(t, gen_says_what_was_picked);
  tcase_add_test(t, replay_algo_all_ompi);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(suite()); }
