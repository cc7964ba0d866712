/* mpi_selection.c: MPICH's and Open MPI's default algorithm choice for the
 * eight collectives (mpi_selection.h), as generator specs, and the 16
 * selector generators ("allreduce-mpich", "bcast-ompi", ...).
 *
 * MPICH 4.1 to 5.0.1: maint/tuning/coll/mpir/generic.json (the flat MPIR
 * table; the ch4 composition layer above it, with its shared-memory
 * release_gather trees, only acts on communicators with several ranks on a
 * node, which is not modelled). Open MPI 4.1.x and 5.0.x:
 * ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (byte-identical in both)
 * with a commutative operation, then the fallbacks inside the algorithms
 * (coll_base_*.c). Thresholds are copied as written: "<" and "<=" matter. */
#include "generators/mpi_selection.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "generators/nccl_selection.h"

#define K 1024
#define M (1024 * 1024)

static const char *const library_names[FS_MPI_LIBRARIES] = {"mpich", "ompi"};

int fs_mpi_library_find(const char *name) {
  for (int i = 0; i < FS_MPI_LIBRARIES; i++)
    if (name && strcmp(name, library_names[i]) == 0) return i;
  return -1;
}

const char *fs_mpi_library_name(fs_mpi_library library) {
  return library < FS_MPI_LIBRARIES ? library_names[library] : "?";
}

const char *fs_mpi_library_version(fs_mpi_library library) {
  return library == FS_MPI_MPICH ? "MPICH 4.1-5.0.1 (MPIR generic.json)"
                                 : "Open MPI 4.1.x/5.0.x (coll/tuned fixed rules)";
}

static int is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static int64_t pof2_of(int64_t p) {
  int64_t q = 1;
  while (q <= p / 2) q *= 2;
  return q;
}

/* What the rules read of one call. */
typedef struct call_facts {
  int64_t p, s, count, pof2;
} call_facts;

static void set(fs_mpi_decision *d, const char *algorithm, const char *spec) {
  snprintf(d->algorithm, sizeof d->algorithm, "%s", algorithm);
  snprintf(d->spec, sizeof d->spec, "%s", spec);
}

/* ---- MPICH: the flat MPIR table (generic.json, intracomm) ----
 * Its binomial bcast and reduce are bcast-smp and reduce-smp without a
 * platform: MPIR_Bcast_intra_binomial's and MPIR_Reduce_intra_binomial's
 * trees (v under v - lowbit(v)), not schedgen's bcast-binomial. */

static void mpich_bcast(const call_facts *f, fs_mpi_decision *d) {
  int64_t n = f->s;
  if (f->p < 8) {
    set(d, "binomial", "bcast-smp");
    snprintf(d->rule, sizeof d->rule, "P %lld < 8", (long long)f->p);
  } else if (n <= 12288) {
    set(d, "binomial", "bcast-smp");
    snprintf(d->rule, sizeof d->rule, "P %lld >= 8, n %lld <= 12288", (long long)f->p,
             (long long)n);
  } else if (is_pow2(f->p) && n <= 524288) {
    set(d, "scatter_recursive_doubling_allgather", "bcast-scatter-rd-allgather");
    snprintf(d->rule, sizeof d->rule, "P %lld >= 8 a power of 2, 12288 < n %lld <= 524288",
             (long long)f->p, (long long)n);
  } else {
    set(d, "scatter_ring_allgather", "bcast-scatter-allgather");
    snprintf(d->rule, sizeof d->rule, "P %lld >= 8%s, n %lld > %s", (long long)f->p,
             is_pow2(f->p) ? " a power of 2" : " not a power of 2", (long long)n,
             is_pow2(f->p) ? "524288" : "12288");
  }
}

static void mpich_reduce(const call_facts *f, fs_mpi_decision *d) {
  if (f->s <= 2048) {
    set(d, "binomial", "reduce-smp");
    snprintf(d->rule, sizeof d->rule, "n %lld <= 2048", (long long)f->s);
  } else if (f->count < f->pof2) {
    set(d, "binomial", "reduce-smp");
    snprintf(d->rule, sizeof d->rule, "n %lld > 2048, count %lld < pof2 %lld", (long long)f->s,
             (long long)f->count, (long long)f->pof2);
  } else {
    set(d, "reduce_scatter_gather", "reduce-rabenseifner");
    snprintf(d->rule, sizeof d->rule, "n %lld > 2048, builtin op, count %lld >= pof2 %lld",
             (long long)f->s, (long long)f->count, (long long)f->pof2);
  }
}

static void mpich_allreduce(const call_facts *f, fs_mpi_decision *d) {
  if (f->s <= 8) {
    set(d, "recursive_doubling", "allreduce-rd");
    snprintf(d->rule, sizeof d->rule, "n %lld <= 8", (long long)f->s);
  } else if (f->count < f->pof2) {
    set(d, "recursive_doubling", "allreduce-rd");
    snprintf(d->rule, sizeof d->rule, "n %lld > 8, count %lld < pof2 %lld", (long long)f->s,
             (long long)f->count, (long long)f->pof2);
  } else {
    set(d, "reduce_scatter_allgather", "allreduce-rabenseifner");
    snprintf(d->rule, sizeof d->rule, "n %lld > 8, builtin op, count %lld >= pof2 %lld",
             (long long)f->s, (long long)f->count, (long long)f->pof2);
  }
}

/* total_msg_size T = P * S (recvcount * type size * P). */
static void mpich_allgather(const call_facts *f, fs_mpi_decision *d) {
  int64_t t = f->p * f->s, limit = is_pow2(f->p) ? 524288 : 81920;
  if (t < limit)
    set(d, is_pow2(f->p) ? "recursive_doubling" : "brucks",
        is_pow2(f->p) ? "allgather-rd" : "allgather-bruck");
  else
    set(d, "ring", "allgather-ring");
  snprintf(d->rule, sizeof d->rule, "P %lld %s, T = P*S = %lld %s %lld", (long long)f->p,
           is_pow2(f->p) ? "a power of 2" : "not a power of 2", (long long)t,
           t < limit ? "<" : ">=", (long long)limit);
}

/* The JSON's "comm_size<8" sits under is_sendbuf_inplace, where csel.c
 * evaluates it as local_size <= 8. */
static void mpich_alltoall(const call_facts *f, fs_mpi_decision *d) {
  int64_t b = f->s;
  const char *pairwise = is_pow2(f->p) ? "alltoall-pairwise-xor" : "alltoall-pairwise";
  const char *size_rule;
  if (f->p > 8 && b <= 256) {
    set(d, "brucks", "alltoall-bruck");
    size_rule = "b <= 256";
  } else if (b <= 32768) {
    set(d, "scattered", "alltoall-scattered:ways=32");
    size_rule = f->p > 8 ? "256 < b <= 32768" : "b <= 32768";
  } else {
    set(d, "pairwise", pairwise);
    size_rule = "b > 32768";
  }
  snprintf(d->rule, sizeof d->rule,
           "P %lld %s (the JSON's comm_size<8 is tested as <= 8), %s, b = %lld", (long long)f->p,
           f->p > 8 ? "> 8" : "<= 8", size_rule, (long long)b);
}

static int mpich_decide(fs_collective c, const call_facts *f, fs_mpi_decision *d) {
  switch (c) {
    case FS_COLLECTIVE_BCAST: mpich_bcast(f, d); return 0;
    case FS_COLLECTIVE_REDUCE: mpich_reduce(f, d); return 0;
    case FS_COLLECTIVE_ALLREDUCE: mpich_allreduce(f, d); return 0;
    case FS_COLLECTIVE_ALLGATHER: mpich_allgather(f, d); return 0;
    case FS_COLLECTIVE_ALLTOALL: mpich_alltoall(f, d); return 0;
    case FS_COLLECTIVE_GATHER:
      set(d, "binomial", "gather-binomial");
      snprintf(d->rule, sizeof d->rule, "always");
      return 0;
    case FS_COLLECTIVE_SCATTER:
      set(d, "binomial", "scatter-binomial");
      snprintf(d->rule, sizeof d->rule, "always");
      return 0;
    case FS_COLLECTIVE_BARRIER:
      set(d, "k_dissemination k=2 (dissemination)", "barrier-dissemination");
      snprintf(d->rule, sizeof d->rule, "always (one rank per node: no smp)");
      return 0;
    default: return -1;
  }
}

/* ---- Open MPI: coll/tuned's fixed decision rules ---- */

/* One row of a tuned table: for P < p_below (P == 2 when p_below is
 * EXACTLY_2), the first step whose size is below its bound picks its
 * algorithm, else `otherwise`. Steps end at a bound of 0. */
#define EXACTLY_2 (-2)
#define LAST INT32_MAX
typedef struct ompi_step {
  int64_t below;
  int8_t algorithm;
} ompi_step;
typedef struct ompi_row {
  int32_t p_below;
  int8_t otherwise;
  ompi_step steps[10];
} ompi_row;

static const ompi_row allreduce_rows[] = {
    {4, 6, {{8, 4}, {4 * K, 3}, {8 * K, 4}, {16 * K, 3}, {64 * K, 4}, {256 * K, 5}}},
    {8, 6, {{16, 4}, {8 * K, 3}}},
    {16, 6, {{8 * K, 3}}},
    {32, 6, {{64, 5}, {4 * K, 3}}},
    {64, 6, {{128, 5}}},
    {128, 6, {{256 * K, 3}}},
    {256, 6, {{128 * K, 2}, {256 * K, 3}}},
    {512, 6, {{4 * K, 2}}},
    {2048, 6, {{2 * K, 2}, {16 * K, 3}}},
    {4096, 6, {{2 * K, 2}, {4 * K, 5}, {16 * K, 3}}},
    {LAST, 6, {{2 * K, 2}, {16 * K, 5}, {32 * K, 3}}},
};

static const ompi_row bcast_rows[] = {
    {4,
     5,
     {{32, 3},
      {256, 5},
      {512, 3},
      {1 * K, 7},
      {32 * K, 1},
      {128 * K, 5},
      {256 * K, 2},
      {512 * K, 1},
      {1 * M, 6}}},
    {8, 2, {{64, 5}, {128, 6}, {2 * K, 5}, {8 * K, 6}, {1 * M, 1}}},
    {16, 1, {{8, 7}, {64, 5}, {4 * K, 7}, {16 * K, 5}, {32 * K, 6}}},
    {32, 8, {{4 * K, 7}, {1 * M, 6}}},
    {64, 7, {{2 * K, 6}}},
    {128, 7, {{0, 0}}},
    {256, 7, {{2, 6}, {16 * K, 5}, {32 * K, 1}, {64 * K, 5}}},
    {1024, 7, {{16 * K, 7}, {32 * K, 4}}},
    {2048, 8, {{512 * K, 7}}},
    {4096, 8, {{256 * K, 7}}},
    {LAST, 8, {{8 * K, 7}, {16 * K, 5}, {256 * K, 7}}},
};

/* commutative operations */
static const ompi_row reduce_rows[] = {
    {4, 3, {{8, 7}, {16, 4}, {32, 3}, {256 * K, 1}, {512 * K, 3}, {1 * M, 2}}},
    {8, 1, {{4 * K, 4}, {64 * K, 2}, {256 * K, 5}, {512 * K, 1}, {1 * M, 5}}},
    {16, 5, {{8 * K, 4}}},
    {32, 5, {{4 * K, 4}}},
    {256, 5, {{0, 0}}},
    {512, 5, {{8 * K, 5}, {16 * K, 6}}},
    {2048, 5, {{0, 0}}},
    {4096, 5, {{512, 5}, {1 * K, 6}, {8 * K, 5}, {16 * K, 6}}},
    {LAST, 5, {{16, 5}, {32, 6}, {1 * K, 5}, {2 * K, 6}, {8 * K, 5}, {16 * K, 6}}},
};

static const ompi_row allgather_rows[] = {
    {EXACTLY_2, 6, {{0, 0}}},
    {32, 3, {{0, 0}}},
    {64, 4, {{1 * K, 3}, {64 * K, 5}}},
    {128, 4, {{512, 3}, {64 * K, 5}}},
    {256, 4, {{512, 3}, {128 * K, 5}, {512 * K, 4}, {1 * M, 5}}},
    {512, 4, {{32, 3}, {128, 2}, {1 * K, 3}, {128 * K, 5}, {512 * K, 4}, {1 * M, 5}}},
    {1024, 5, {{64, 3}, {256, 2}, {2 * K, 3}}},
    {2048, 5, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4 * K, 3}}},
    {4096, 5, {{32, 2}, {128, 3}, {512, 2}, {4 * K, 3}}},
    {LAST, 5, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4 * K, 3}}},
};

static const ompi_row alltoall_rows[] = {
    {EXACTLY_2,
     2,
     {{2, 2},
      {4, 5},
      {16, 2},
      {64, 5},
      {256, 2},
      {4 * K, 5},
      {32 * K, 2},
      {256 * K, 4},
      {1 * M, 5}}},
    {8, 1, {{8 * K, 4}, {16 * K, 1}, {64 * K, 4}, {512 * K, 1}, {1 * M, 2}}},
    {16, 1, {{256 * K, 4}}},
    {32, 4, {{4, 4}, {512, 3}, {8 * K, 4}, {32 * K, 1}, {256 * K, 4}, {512 * K, 1}}},
    {64, 4, {{512, 3}, {512 * K, 1}}},
    {128, 2, {{1 * K, 3}, {2 * K, 1}, {4 * K, 4}, {256 * K, 1}}},
    {256, 2, {{1 * K, 3}, {2 * K, 4}, {256 * K, 1}}},
    {512, 2, {{1 * K, 3}, {8 * K, 4}, {32 * K, 1}}},
    {1024, 2, {{512, 3}, {8 * K, 4}, {16 * K, 1}, {128 * K, 4}, {256 * K, 1}}},
    {2048, 4, {{512, 3}, {1 * K, 4}, {2 * K, 1}, {16 * K, 4}, {256 * K, 1}}},
    {4096, 1, {{1 * K, 3}, {4 * K, 4}, {8 * K, 1}, {128 * K, 4}}},
    {LAST, 4, {{2 * K, 3}, {8 * K, 4}, {16 * K, 1}, {32 * K, 4}, {64 * K, 1}}},
};

static const ompi_row gather_rows[] = {
    {4, 3, {{2, 3}, {4, 1}, {32 * K, 2}, {64 * K, 1}, {128 * K, 2}}},
    {8, 3, {{1 * K, 2}, {8 * K, 1}, {32 * K, 2}, {256 * K, 1}}},
    {256, 2, {{0, 0}}},
    {512, 2, {{2 * K, 2}, {8 * K, 1}}},
    {LAST, 2, {{0, 0}}},
};

static const ompi_row scatter_rows[] = {
    {4, 1, {{2, 3}, {128 * K, 1}, {256 * K, 3}}},
    {8, 1, {{2 * K, 2}, {4 * K, 1}, {8 * K, 2}, {32 * K, 1}, {1 * M, 3}}},
    {16, 1, {{16 * K, 2}, {1 * M, 3}}},
    {32, 3, {{16 * K, 2}, {32 * K, 1}}},
    {64, 3, {{512, 2}, {8 * K, 3}, {16 * K, 2}}},
    {LAST, 3, {{512, 2}}},
};

static const ompi_row barrier_rows[] = {
    {4, 3, {{0, 0}}},   {8, 1, {{0, 0}}},    {64, 3, {{0, 0}}},   {256, 4, {{0, 0}}},
    {512, 6, {{0, 0}}}, {1024, 4, {{0, 0}}}, {4096, 6, {{0, 0}}}, {LAST, 4, {{0, 0}}},
};

typedef struct ompi_table {
  const ompi_row *rows;
  int count;
  const char *const *names; /* by tuned id, from 1 */
  const char *size_name;    /* what the size is: "n", "b" */
} ompi_table;

#define ROWS(r) r, (int)(sizeof r / sizeof r[0])
static const char *const allreduce_names[] =
    {"",     "basic_linear",   "nonoverlapping", "recursive_doubling",
     "ring", "segmented_ring", "rabenseifner"};
static const char *const bcast_names[] = {"",
                                          "basic_linear",
                                          "chain",
                                          "pipeline",
                                          "split_binary_tree",
                                          "binary_tree",
                                          "binomial",
                                          "knomial",
                                          "scatter_allgather",
                                          "scatter_allgather_ring"};
static const char *const reduce_names[] = {"",       "linear",   "chain",           "pipeline",
                                           "binary", "binomial", "in-order_binary", "rabenseifner"};
static const char *const allgather_names[] = {"",     "linear",   "bruck",    "recursive_doubling",
                                              "ring", "neighbor", "two_proc", "sparbit"};
static const char *const alltoall_names[] =
    {"", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"};
static const char *const gather_names[] = {"", "basic_linear", "binomial", "linear_sync"};
static const char *const scatter_names[] = {"", "basic_linear", "binomial", "linear_nb"};
static const char *const barrier_names[] =
    {"", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree"};

static int ompi_table_of(fs_collective c, ompi_table *t) {
  switch (c) {
    case FS_COLLECTIVE_ALLREDUCE:
      *t = (ompi_table){ROWS(allreduce_rows), allreduce_names, "n"};
      break;
    case FS_COLLECTIVE_BCAST: *t = (ompi_table){ROWS(bcast_rows), bcast_names, "n"}; break;
    case FS_COLLECTIVE_REDUCE: *t = (ompi_table){ROWS(reduce_rows), reduce_names, "n"}; break;
    case FS_COLLECTIVE_ALLGATHER:
      *t = (ompi_table){ROWS(allgather_rows), allgather_names, "b"};
      break;
    case FS_COLLECTIVE_ALLTOALL: *t = (ompi_table){ROWS(alltoall_rows), alltoall_names, "b"}; break;
    case FS_COLLECTIVE_GATHER: *t = (ompi_table){ROWS(gather_rows), gather_names, "b"}; break;
    case FS_COLLECTIVE_SCATTER: *t = (ompi_table){ROWS(scatter_rows), scatter_names, "b"}; break;
    case FS_COLLECTIVE_BARRIER: *t = (ompi_table){ROWS(barrier_rows), barrier_names, NULL}; break;
    default: return -1;
  }
  return 0;
}

/* "P" bounds of row i: "64 <= P < 128", "P == 2", "P >= 4096". */
static void describe_rows(const ompi_table *t, int i, char *text, size_t size) {
  int32_t low = 0;
  for (int j = i - 1; j >= 0 && !low; j--)
    if (t->rows[j].p_below != EXACTLY_2) low = t->rows[j].p_below;
  int32_t high = t->rows[i].p_below;
  if (high == EXACTLY_2)
    snprintf(text, size, "P == 2");
  else if (high == LAST)
    snprintf(text, size, "P >= %d", low);
  else if (low)
    snprintf(text, size, "%d <= P < %d", low, high);
  else
    snprintf(text, size, "P < %d", high);
}

/* The tuned algorithm id for (P, size), and the rule that fired. */
static int ompi_lookup(const ompi_table *t, int64_t p, int64_t size, char *rule, size_t n) {
  int i = 0;
  while (i < t->count - 1 && !(t->rows[i].p_below == EXACTLY_2 ? p == 2 : p < t->rows[i].p_below))
    i++;
  const ompi_row *row = &t->rows[i];
  char bounds[64];
  describe_rows(t, i, bounds, sizeof bounds);
  int64_t low = -1;
  for (int k = 0; k < 10 && row->steps[k].below; k++) {
    if (size < row->steps[k].below) {
      if (low < 0)
        snprintf(rule, n, "%s, %s %lld < %lld", bounds, t->size_name, (long long)size,
                 (long long)row->steps[k].below);
      else
        snprintf(rule, n, "%s, %lld <= %s %lld < %lld", bounds, (long long)low, t->size_name,
                 (long long)size, (long long)row->steps[k].below);
      return row->steps[k].algorithm;
    }
    low = row->steps[k].below;
  }
  if (!t->size_name || low < 0)
    snprintf(rule, n, "%s", bounds);
  else
    snprintf(rule, n, "%s, %s %lld >= %lld", bounds, t->size_name, (long long)size, (long long)low);
  return row->otherwise;
}

/* Appends "; text" to the rule (a fallback inside the algorithm). */
static void add_rule(fs_mpi_decision *d, const char *text) {
  size_t used = strlen(d->rule);
  snprintf(d->rule + used, sizeof d->rule - used, "; %s", text);
}

/* A fallback: the algorithm runs another one (named) instead. */
static void fall_back(fs_mpi_decision *d, const char *runs, const char *spec, const char *why) {
  size_t used = strlen(d->algorithm);
  snprintf(d->algorithm + used, sizeof d->algorithm - used, " as %s", runs);
  snprintf(d->spec, sizeof d->spec, "%s", spec);
  add_rule(d, why);
}

static void ompi_decide_table(fs_collective c, const call_facts *f, fs_mpi_decision *d);

/* nonoverlapping: tuned reduce to 0, then tuned bcast from 0, each by its
 * own table (with its fallbacks). Their generator names only: a schedule
 * carries no options, so a pick with options other than knomial's default
 * radix cannot be written. */
static void ompi_nonoverlapping(const call_facts *f, fs_mpi_decision *d) {
  fs_mpi_decision reduce, bcast;
  memset(&reduce, 0, sizeof reduce);
  memset(&bcast, 0, sizeof bcast);
  ompi_decide_table(FS_COLLECTIVE_REDUCE, f, &reduce);
  ompi_decide_table(FS_COLLECTIVE_BCAST, f, &bcast);
  if (strcmp(bcast.spec, "bcast-knomial:ways=4") == 0) bcast.spec[strlen("bcast-knomial")] = 0;
  char spec[FS_ALGORITHM_TEXT_MAX] = "";
  if (reduce.spec[0] && bcast.spec[0] && !strchr(reduce.spec, ':') && !strchr(bcast.spec, ':'))
    snprintf(spec, sizeof spec, "allreduce-reduce-bcast:schedule=%.60s+%.60s", reduce.spec,
             bcast.spec);
  char algorithm[sizeof d->algorithm];
  snprintf(algorithm, sizeof algorithm, "tuned 2 (nonoverlapping: reduce %.24s, bcast %.24s)",
           reduce.algorithm + strlen("tuned "), bcast.algorithm + strlen("tuned "));
  set(d, algorithm, spec);
}

static void ompi_allreduce(int id, const call_facts *f, fs_mpi_decision *d) {
  char why[96];
  if (id == 1) snprintf(d->spec, sizeof d->spec, "allreduce-linear");
  if (id == 2) ompi_nonoverlapping(f, d);
  if (id == 3) snprintf(d->spec, sizeof d->spec, "allreduce-rd");
  if (id == 4 || id == 5) {
    snprintf(d->spec, sizeof d->spec, "allreduce-ring");
    if (id == 5) fall_back(d, "ring", "allreduce-ring", "segsize 0: the ring");
    if (f->count < f->p) {
      snprintf(why, sizeof why, "count %lld < P %lld: recursive doubling", (long long)f->count,
               (long long)f->p);
      fall_back(d, "recursive_doubling", "allreduce-rd", why);
    }
  }
  if (id == 6) {
    snprintf(d->spec, sizeof d->spec, "allreduce-rabenseifner");
    if (f->count < f->pof2) {
      snprintf(why, sizeof why, "count %lld < pof2 %lld: basic linear", (long long)f->count,
               (long long)f->pof2);
      fall_back(d, "basic_linear", "allreduce-linear", why);
    }
  }
}

/* chain and pipeline with segsize 0: one segment, the whole message */
static void unsegmented_chain(const call_facts *f, char *spec, size_t size) {
  if (f->s > 0)
    snprintf(spec, size, "bcast-chain:segment=%lldB", (long long)f->s);
  else
    snprintf(spec, size, "bcast-chain");
}

static void ompi_bcast(int id, const call_facts *f, fs_mpi_decision *d) {
  static const char *const specs[] = {"",
                                      "bcast-linear",
                                      "",
                                      "",
                                      "bcast-split-binary",
                                      "bcast-binary",
                                      "bcast-binomial",
                                      "bcast-knomial:ways=4",
                                      "bcast-scatter-rd-allgather",
                                      "bcast-scatter-allgather"};
  snprintf(d->spec, sizeof d->spec, "%s", specs[id]);
  if (id == 2 || id == 3) unsegmented_chain(f, d->spec, sizeof d->spec);
  char why[96], chain[64];
  if (id == 4 && f->count < 2) {
    unsegmented_chain(f, chain, sizeof chain);
    snprintf(why, sizeof why, "count %lld < 2, a half is empty: chain", (long long)f->count);
    fall_back(d, "chain", chain, why);
  }
  if ((id == 8 || id == 9) && f->count < f->p) {
    snprintf(why, sizeof why, "count %lld < P %lld: basic linear", (long long)f->count,
             (long long)f->p);
    fall_back(d, "basic_linear", "bcast-linear", why);
  }
}

static void ompi_reduce(int id, const call_facts *f, fs_mpi_decision *d) {
  static const char *const specs[] = {"",
                                      "reduce-linear",
                                      "reduce-chain",
                                      "reduce-chain",
                                      "reduce-binary",
                                      "reduce-smp",
                                      "reduce-in-order-binary",
                                      "reduce-rabenseifner"};
  snprintf(d->spec, sizeof d->spec, "%s", specs[id]);
  if (id == 7 && f->count < f->pof2) {
    char why[96];
    snprintf(why, sizeof why, "count %lld < pof2 %lld: linear", (long long)f->count,
             (long long)f->pof2);
    fall_back(d, "linear", "reduce-linear", why);
  }
}

static void ompi_allgather(int id, const call_facts *f, fs_mpi_decision *d) {
  static const char *const specs[] = {"",
                                      "",
                                      "allgather-bruck",
                                      "allgather-rd",
                                      "allgather-ring",
                                      "allgather-neighbor",
                                      "allgather-ring",
                                      ""};
  snprintf(d->spec, sizeof d->spec, "%s", specs[id]);
  char why[96];
  if (id == 3 && !is_pow2(f->p)) {
    snprintf(why, sizeof why, "P %lld not a power of 2: bruck", (long long)f->p);
    fall_back(d, "bruck", "allgather-bruck", why);
  }
  if (id == 5 && f->p % 2) {
    snprintf(why, sizeof why, "P %lld odd: ring", (long long)f->p);
    fall_back(d, "ring", "allgather-ring", why);
  }
  if (id == 6) add_rule(d, "two_proc: one sendrecv, the ring at 2 ranks");
}

static void ompi_alltoall(int id, fs_mpi_decision *d) {
  static const char *const specs[] = {"",
                                      "alltoall-linear",
                                      "alltoall-pairwise",
                                      "alltoall-bruck",
                                      "alltoall-linear",
                                      "alltoall-pairwise"};
  snprintf(d->spec, sizeof d->spec, "%s", specs[id]);
  if (id == 4) add_rule(d, "max_requests 0: every request at once, as linear");
  if (id == 5) add_rule(d, "two_proc: one sendrecv, pairwise at 2 ranks");
}

static void ompi_decide_table(fs_collective c, const call_facts *f, fs_mpi_decision *d) {
  ompi_table t;
  ompi_table_of(c, &t);
  int64_t size = c == FS_COLLECTIVE_BARRIER ? 0 : f->s;
  int id = ompi_lookup(&t, f->p, size, d->rule, sizeof d->rule);
  snprintf(d->algorithm, sizeof d->algorithm, "tuned %d (%s)", id, t.names[id]);
  d->spec[0] = 0;
  switch (c) {
    case FS_COLLECTIVE_ALLREDUCE: ompi_allreduce(id, f, d); break;
    case FS_COLLECTIVE_BCAST: ompi_bcast(id, f, d); break;
    case FS_COLLECTIVE_REDUCE: ompi_reduce(id, f, d); break;
    case FS_COLLECTIVE_ALLGATHER: ompi_allgather(id, f, d); break;
    case FS_COLLECTIVE_ALLTOALL: ompi_alltoall(id, d); break;
    case FS_COLLECTIVE_GATHER: {
      static const char *const specs[] = {"", "gather-linear", "gather-binomial",
                                          "gather-linear-sync"};
      snprintf(d->spec, sizeof d->spec, "%s", specs[id]);
      break;
    }
    case FS_COLLECTIVE_SCATTER: {
      static const char *const specs[] = {"", "scatter-linear", "scatter-binomial",
                                          "scatter-linear-nb"};
      snprintf(d->spec, sizeof d->spec, "%s", specs[id]);
      break;
    }
    default: {
      static const char *const specs[] =
          {"", "barrier-linear", "barrier-double-ring", "barrier-rd", "barrier-dissemination",
           "", "barrier-tree"};
      snprintf(d->spec, sizeof d->spec, "%s", specs[id]);
    }
  }
}

/* ---- the decision, the choice, the selectors ---- */

int fs_mpi_decide(fs_mpi_library library, const fs_mpi_call *call, fs_mpi_decision *d,
                  fs_error *err) {
  memset(d, 0, sizeof *d);
  const char *name = fs_collective_name(call->collective);
  if (library >= FS_MPI_LIBRARIES) return fs_error_set(err, "unknown MPI library");
  if (call->ranks < 1)
    return fs_error_set(err, "%s-%s: %d ranks: expected 1 or more", name,
                        fs_mpi_library_name(library), call->ranks);
  if (call->size < 0 || call->element < 0)
    return fs_error_set(err, "%s-%s: a negative size", name, fs_mpi_library_name(library));
  int64_t element = call->element ? call->element : 8;
  call_facts f = {call->ranks, call->size, call->size / element, pof2_of(call->ranks)};
  ompi_table t;
  if (ompi_table_of(call->collective, &t))
    return fs_error_set(err,
                        "%s: no MPI library selection (it covers barrier, bcast, reduce, "
                        "allreduce, gather, scatter, allgather, alltoall)",
                        name);
  if (library == FS_MPI_MPICH)
    mpich_decide(call->collective, &f, d);
  else
    ompi_decide_table(call->collective, &f, d);
  return 0;
}

static int is_rooted(fs_collective c) {
  return c == FS_COLLECTIVE_BCAST || c == FS_COLLECTIVE_REDUCE || c == FS_COLLECTIVE_GATHER ||
         c == FS_COLLECTIVE_SCATTER;
}

static const char *const library_titles[FS_MPI_LIBRARIES] = {"MPICH", "Open MPI"};

int fs_mpi_select(fs_mpi_library library, const fs_mpi_call *call, fs_mpi_choice *choice,
                  fs_error *err) {
  fs_mpi_decision d;
  if (fs_mpi_decide(library, call, &d, err)) return -1;
  *choice = (fs_mpi_choice){0};
  snprintf(choice->algorithm, sizeof choice->algorithm, "%s", d.algorithm);
  snprintf(choice->rule, sizeof choice->rule, "%s", d.rule);
  const char *title = library_titles[library], *name = fs_collective_name(call->collective);
  if (!d.spec[0])
    return fs_error_set(err,
                        "%s picks %s %s at %d ranks, %lld B, which fennelsim does not generate",
                        title, name, d.algorithm, call->ranks, (long long)call->size);
  char generator[FS_ALGORITHM_TEXT_MAX];
  snprintf(generator, sizeof generator, "%.*s", (int)strcspn(d.spec, ":"), d.spec);
  if (!fs_generator_find(generator))
    return fs_error_set(err,
                        "%s picks %s %s at %d ranks, %lld B: generator %s, which this build does "
                        "not have",
                        title, name, d.algorithm, call->ranks, (long long)call->size, generator);
  fs_error why;
  if (fs_algorithm_spec_parse(&choice->spec, d.spec, &why))
    return fs_error_set(
        err, "%s picks %s %s at %d ranks, %lld B (%s), which fennelsim does not generate here: %s",
        title, name, d.algorithm, call->ranks, (long long)call->size, d.spec, why.message);
  if (is_rooted(call->collective) && call->root != 0) {
    if (!(choice->spec.generator->options & FS_GEN_ROOT))
      return fs_error_set(err, "%s picks %s %s (%s), which takes no root: only root 0", title, name,
                          d.algorithm, choice->spec.generator->name);
    choice->spec.has_root = 1;
    choice->spec.root = call->root;
    fs_algorithm_spec_format(&choice->spec);
  }
  return 0;
}

static int is_nccl(const fs_generator *selector) {
  const char *dash = strrchr(selector->name, '-');
  return (selector->traits & FS_GEN_SELECTOR) && dash && strcmp(dash + 1, "nccl") == 0;
}

/* NCCL's pick (nccl_selection.h) as a choice. */
static int nccl_select_options(const fs_generator *selector, const fs_generator_options *o,
                               fs_mpi_choice *choice, fs_error *err) {
  fs_nccl_selection s;
  *choice = (fs_mpi_choice){0};
  if (fs_nccl_select(selector->collective, o, &s, err)) return -1;
  snprintf(choice->algorithm, sizeof choice->algorithm, "%s", s.algorithm);
  snprintf(choice->rule, sizeof choice->rule, "%s", s.rule);
  snprintf(choice->detail, sizeof choice->detail, "%s", s.detail);
  snprintf(choice->note, sizeof choice->note, "%s", s.note);
  if (fs_algorithm_spec_parse(&choice->spec, s.spec, err)) return -1;
  if (o->root && (choice->spec.generator->options & FS_GEN_ROOT)) {
    choice->spec.has_root = 1;
    choice->spec.root = o->root;
    fs_algorithm_spec_format(&choice->spec);
  }
  return 0;
}

const char *fs_mpi_selector_version(const fs_generator *selector) {
  if (is_nccl(selector)) return fs_nccl_selection_version();
  const char *dash = strrchr(selector->name, '-');
  int library = fs_mpi_library_find(dash ? dash + 1 : NULL);
  return library < 0 ? "?" : fs_mpi_library_version((fs_mpi_library)library);
}

int fs_mpi_select_options(const fs_generator *selector, const fs_generator_options *o,
                          fs_mpi_choice *choice, fs_error *err) {
  if (is_nccl(selector)) return nccl_select_options(selector, o, choice, err);
  const char *dash = strrchr(selector->name, '-');
  int library = fs_mpi_library_find(dash ? dash + 1 : NULL);
  if (!(selector->traits & FS_GEN_SELECTOR) || library < 0)
    return fs_error_set(err, "%s is not an MPI library's selection", selector->name);
  fs_mpi_call call = {selector->collective, o->ranks, o->size, o->element, o->root};
  return fs_mpi_select((fs_mpi_library)library, &call, choice, err);
}

fs_program *fs_generate_mpi_selected(fs_mpi_library library, fs_collective collective,
                                     const fs_generator_options *o, fs_error *err) {
  fs_mpi_call call = {collective, o->ranks, o->size, o->element, o->root};
  fs_mpi_choice choice;
  if (fs_mpi_select(library, &call, &choice, err)) return NULL;
  fs_generator_options picked = *o;
  fs_algorithm_spec_apply(&choice.spec, &picked);
  picked.platform = NULL; /* the flat rules: one rank per node (bcast-smp and
                             reduce-smp are then MPICH's binomial trees) */
  return choice.spec.generator->generate(&picked, err);
}

#define SELECTORS(coll, COLL)                                                            \
  fs_program *fs_generate_##coll##_mpich(const fs_generator_options *o, fs_error *err) { \
    return fs_generate_mpi_selected(FS_MPI_MPICH, FS_COLLECTIVE_##COLL, o, err);         \
  }                                                                                      \
  fs_program *fs_generate_##coll##_ompi(const fs_generator_options *o, fs_error *err) {  \
    return fs_generate_mpi_selected(FS_MPI_OMPI, FS_COLLECTIVE_##COLL, o, err);          \
  }
SELECTORS(barrier, BARRIER)
SELECTORS(bcast, BCAST)
SELECTORS(reduce, REDUCE)
SELECTORS(allreduce, ALLREDUCE)
SELECTORS(gather, GATHER)
SELECTORS(scatter, SCATTER)
SELECTORS(allgather, ALLGATHER)
SELECTORS(alltoall, ALLTOALL)
