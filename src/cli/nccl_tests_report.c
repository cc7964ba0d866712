/* nccl_tests_report.c: see nccl_tests_report.h. The layout, the number
 * formatter and the order of the bandwidth arithmetic are those of
 * nccl-tests 2.19.6 (src/util.cu, src/common.cu and each test's GetBw), so
 * the same time prints the same characters. */
#include "cli/nccl_tests_report.h"

#include <stdio.h>
#include <string.h>

#include "formats/msccl_reader.h"

static const struct {
  const char *name;
  int bytes;
} types[] = {{"int8", 1},   {"uint8", 1},    {"int32", 4},  {"uint32", 4},
             {"int64", 8},  {"uint64", 8},   {"half", 2},   {"float", 4},
             {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};

int fs_nccl_tests_type_bytes(const char *name) {
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strcmp(types[i].name, name) == 0) return types[i].bytes;
  return -1;
}

/* What nccl-tests shows for collective c: 0, or -1 when it has no bus
 * factor. blocks: the sweep's --size is a block, nccl-tests' size k of
 * them. */
typedef struct nccl_view {
  int blocks, rooted;
  const char *redop;
} nccl_view;

static int view_of(fs_collective c, nccl_view *v) {
  switch (c) {
    case FS_COLLECTIVE_ALLREDUCE: *v = (nccl_view){0, 0, "sum"}; return 0;
    case FS_COLLECTIVE_REDUCE: *v = (nccl_view){0, 1, "sum"}; return 0;
    case FS_COLLECTIVE_BCAST: *v = (nccl_view){0, 1, "none"}; return 0;
    case FS_COLLECTIVE_ALLGATHER:
    case FS_COLLECTIVE_ALLTOALL: *v = (nccl_view){1, 0, "none"}; return 0;
    case FS_COLLECTIVE_REDUCE_SCATTER: *v = (nccl_view){1, 0, "sum"}; return 0;
    case FS_COLLECTIVE_GATHER:
    case FS_COLLECTIVE_SCATTER: *v = (nccl_view){1, 1, "none"}; return 0;
    default: return -1;
  }
}

/* What an algorithm computes: its generator's collective, or for a
 * schedule file (msccl:schedule=PATH) the coll= of the file. 0, or -1
 * with err (the file cannot be read). */
static int collective_of(const fs_algorithm_spec *spec, fs_collective *kind, fs_error *err) {
  *kind = spec->generator->collective;
  if (!(spec->generator->traits & FS_GEN_FILE) || !spec->schedule[0]) return 0;
  fs_msccl *m = fs_msccl_read(spec->schedule, err);
  if (!m) return -1;
  static const fs_collective of[FS_MSCCL_COLLS] = {[FS_MSCCL_ALLREDUCE] = FS_COLLECTIVE_ALLREDUCE,
                                                   [FS_MSCCL_ALLGATHER] = FS_COLLECTIVE_ALLGATHER,
                                                   [FS_MSCCL_REDUCESCATTER] =
                                                       FS_COLLECTIVE_REDUCE_SCATTER,
                                                   [FS_MSCCL_BROADCAST] = FS_COLLECTIVE_BCAST,
                                                   [FS_MSCCL_REDUCE] = FS_COLLECTIVE_REDUCE,
                                                   [FS_MSCCL_ALLTOALL] = FS_COLLECTIVE_ALLTOALL,
                                                   [FS_MSCCL_GATHER] = FS_COLLECTIVE_GATHER,
                                                   [FS_MSCCL_SCATTER] = FS_COLLECTIVE_SCATTER};
  *kind = m->coll < FS_MSCCL_COLLS ? of[m->coll] : FS_COLLECTIVE_NONE;
  fs_msccl_free(m);
  return 0;
}

/* nccl-tests' busbw / algbw for collective c on k ranks, as its GetBw
 * computes it. */
static double bus_factor(fs_collective c, int32_t k) {
  if (c == FS_COLLECTIVE_ALLREDUCE) return ((double)(2 * ((int64_t)k - 1))) / ((double)k);
  if (c == FS_COLLECTIVE_BCAST || c == FS_COLLECTIVE_REDUCE) return 1;
  return ((double)((int64_t)k - 1)) / ((double)k);
}

int fs_nccl_tests_check(const fs_sweep_grid *g, const char *type, int element_bytes,
                        fs_collective *kinds, fs_error *err) {
  for (int a = 0; a < g->algorithm_count; a++) {
    nccl_view v;
    if (collective_of(&g->algorithms[a], &kinds[a], err)) return -1;
    fs_collective c = kinds[a];
    if (view_of(c, &v))
      return fs_error_set(err,
                          "--report nccl-tests: %s computes %s, which has no bus bandwidth "
                          "factor in nccl-tests (allreduce, reduce, bcast, allgather, gather, "
                          "scatter, alltoall and reduce-scatter have one)",
                          g->algorithms[a].text,
                          c == FS_COLLECTIVE_NONE ? "no collective" : fs_collective_name(c));
  }
  for (int z = 0; z < g->size_count; z++)
    if (g->sizes[z] % element_bytes)
      return fs_error_set(err,
                          "--report nccl-tests: --size %lldB is not a whole number of %s "
                          "elements (%d bytes each)",
                          (long long)g->sizes[z], type, element_bytes);
  return 0;
}

void fs_nccl_tests_number(char *text, double value, int width) {
  if (snprintf(text, (size_t)width + 1, "%*.2f", width, value) <= width) return;
  if (snprintf(text, (size_t)width + 1, "%*.1f", width, value) <= width) return;
  if (snprintf(text, (size_t)width + 1, "%*.0f", width, value) <= width) return;
  snprintf(text, (size_t)width + 1, width >= 7 ? "%*.1e" : "%*.0e", width, value);
}

typedef struct table {
  const fs_sweep_grid *g;
  const fs_sweep_results *r;
  const char *type;
  int element;
  fs_best_rank_by rank_by;
  int64_t seeds;
  const fs_collective *kinds; /* per algorithm, from fs_nccl_tests_check */
} table;

static void header(fs_output *out, const table *t, int32_t a, int32_t k, int32_t m, int32_t p) {
  const fs_sweep_grid *g = t->g;
  fs_output_printf(out, "# fennelsim sweep: %s, %d ranks, model %s%s%s%s%s\n",
                   g->algorithms[a].text, g->ranks[k], g->models[m].label,
                   g->platform_count > 0 ? ", platform " : "",
                   g->platform_count > 0 ? g->platforms[p].label : "",
                   t->seeds > 1 ? ", time: the seeds' " : "",
                   t->seeds > 1 ? fs_best_rank_by_name(t->rank_by) : "");
  fs_output_puts(out, "#\n");
  fs_output_printf(out,
                   "# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
                   "in-place          \n",
                   "", "", "", "", "");
  fs_output_printf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s\n",
                   "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                   "time", "algbw", "busbw", "#wrong", "");
  fs_output_printf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s\n",
                   "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                   "(GB/s)", "(GB/s)", "", "");
}

/* One size's row; adds its busbw (twice: out-of-place and in-place) to
 * *sum and the rows to *rows. */
static void row(fs_output *out, const table *t, int64_t i, double *sum, int64_t *rows) {
  const fs_sweep_cell *c = &t->r->cells[i];
  const fs_sweep_grid *g = t->g;
  const fs_algorithm_spec *spec = &g->algorithms[c->algorithm];
  fs_collective kind = t->kinds[c->algorithm];
  nccl_view v = {0, 0, "none"};
  view_of(kind, &v); /* the grid passed fs_nccl_tests_check */
  int32_t k = g->ranks[c->ranks];
  int64_t block = g->sizes[c->size], count = block / t->element;
  int64_t size = v.blocks ? block * k : block;
  if (c->status == FS_SWEEP_SKIPPED) {
    fs_output_printf(out, "# %10lld  skipped: %s\n", (long long)size, c->reason);
    return;
  }
  char root[16], time[8], algbw[7], busbw[7];
  snprintf(root, sizeof root, "%6d", v.rooted ? (spec->has_root ? spec->root : 0) : -1);
  double sec = fs_best_value(c, t->rank_by, t->seeds) / 1.0E9;
  double base = (double)size / 1.0E9 / sec, bus = base * bus_factor(kind, k);
  fs_nccl_tests_number(time, sec * 1.0E6, 7);
  fs_nccl_tests_number(algbw, base, 6);
  fs_nccl_tests_number(busbw, bus, 6);
  fs_output_printf(out, "%12lld  %12lld  %8s  %6s  %6s", (long long)size, (long long)count, t->type,
                   v.redop, root);
  for (int half = 0; half < 2; half++)
    fs_output_printf(out, "  %7s  %6s  %6s    N/A", time, algbw, busbw);
  fs_output_puts(out, "\n");
  *sum += bus, *sum += bus, *rows += 2;
}

static void one_table(fs_output *out, const table *t, int32_t a, int32_t k, int32_t m, int32_t p) {
  double sum = 0;
  int64_t rows = 0;
  header(out, t, a, k, m, p);
  for (int32_t z = 0; z < t->g->size_count; z++)
    row(out, t, fs_sweep_index(t->g, a, k, z, m, p), &sum, &rows);
  if (rows)
    fs_output_printf(out, "# %-20s : %g %s\n", "Avg bus bandwidth", sum / (double)rows, "");
  else /* every size skipped: no mean */
    fs_output_printf(out, "# %-20s : N/A %s\n", "Avg bus bandwidth", "");
  fs_output_puts(out, "#\n");
}

void fs_nccl_tests_write(fs_output *out, const fs_sweep_grid *g, const fs_sweep_results *r,
                         const char *type, int element_bytes, fs_best_rank_by rank_by,
                         const fs_collective *kinds) {
  table t = {g, r, type, element_bytes, rank_by, g->seeds > 1 ? g->seeds : 1, kinds};
  int32_t platforms = g->platform_count > 0 ? g->platform_count : 1;
  for (int32_t p = 0; p < platforms; p++)
    for (int32_t m = 0; m < g->model_count; m++)
      for (int32_t k = 0; k < g->rank_count; k++)
        for (int32_t a = 0; a < g->algorithm_count; a++) one_table(out, &t, a, k, m, p);
}
