/* best.c: the candidates and the ranking of `fennelsim best` (best.h); the
 * reports are in best_report.c. */
#include "study/best.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/rm_schedule.h"

static const char *const rank_by_names[] = {"median", "mean", "p99"};

int fs_best_rank_by_find(const char *name) {
  for (int i = 0; i < 3; i++)
    if (strcmp(rank_by_names[i], name) == 0) return i;
  return -1;
}

const char *fs_best_rank_by_name(fs_best_rank_by by) { return rank_by_names[by]; }

/* specs[*n] = allreduce-rm with schedule s, unless its text is too long
 * for a spec (none of the enumerated ones is). 1 when added. */
static int add_rm(const fs_rm_schedule *s, fs_algorithm_spec *specs, int *n) {
  char text[256];
  if (fs_rm_schedule_format(s, text, sizeof text) >= sizeof specs->schedule) return 0;
  fs_algorithm_spec_of(&specs[*n], fs_generator_find("allreduce-rm"));
  memcpy(specs[*n].schedule, text, strlen(text) + 1);
  fs_algorithm_spec_format(&specs[*n]);
  (*n)++;
  return 1;
}

/* Recursive multiplying's candidates after the variants: the heuristic's
 * schedule, then the enumerated ones not already in. */
static void add_rm_candidates(fs_best_candidates *c, const fs_rm_candidates *ranked,
                              const fs_rm_schedule *heuristic, int *n) {
  int heuristic_at = -1;
  c->rm_heuristic = heuristic->count > 0 ? FS_BEST_RM_ADDED : FS_BEST_RM_NO_STAGES;
  if (heuristic->count > 0 && add_rm(heuristic, c->specs, n)) heuristic_at = *n - 1;
  for (int i = 0; i < ranked->count; i++) {
    if (ranked->items[i].count == 0 || !add_rm(&ranked->items[i], c->specs, n)) continue;
    c->rm_cheapest++;
    if (heuristic_at >= 0 && strcmp(c->specs[*n - 1].text, c->specs[heuristic_at].text) == 0) {
      (*n)--; /* the heuristic's, already in */
      c->rm_heuristic = FS_BEST_RM_AMONG;
    }
  }
  c->rm_capped = ranked->capped;
}

static const char *const library_suffix[FS_BEST_LIBRARIES] = {"mpich", "ompi", "nccl"};

int fs_best_library_shown(fs_family family, int l) {
  return (family & (l == FS_BEST_NCCL ? FS_FAMILY_GPU : FS_FAMILY_MPI)) != 0;
}

/* The family's libraries' selectors, "<collective>-mpich", "-ompi" and
 * "-nccl", when registered. */
static void add_selectors(fs_best_candidates *c, fs_collective collective, int *n) {
  for (int l = 0; l < FS_BEST_LIBRARIES; l++) {
    char name[64];
    snprintf(name, sizeof name, "%s-%s", fs_collective_name(collective), library_suffix[l]);
    const fs_generator *g = fs_generator_find(name);
    if (!g || !(g->traits & FS_GEN_SELECTOR) || !fs_best_library_shown(c->family, l)) continue;
    fs_algorithm_spec_of(&c->specs[*n], g);
    c->library[l] = (*n)++;
  }
}

int fs_best_candidates_build(fs_collective collective, fs_family family, int32_t max_channels,
                             int32_t ranks, double cost_ratio, int rm_limit,
                             fs_best_candidates *out, fs_error *err) {
  *out = (fs_best_candidates){.cost_ratio = cost_ratio,
                              .family = family,
                              .max_channels = max_channels,
                              .library = {-1, -1, -1}};
  int variants = fs_algorithm_variants(collective, family, max_channels, NULL, 0);
  int rm = collective == FS_COLLECTIVE_ALLREDUCE && (family & FS_FAMILY_MPI);
  fs_rm_candidates ranked = {0};
  fs_rm_schedule heuristic = {0};
  if (rm && (fs_rm_enumerate(ranks, cost_ratio, rm_limit, &ranked, err) ||
             fs_rm_auto(ranks, cost_ratio, &heuristic, err))) {
    fs_rm_candidates_free(&ranked);
    return -1;
  }
  size_t room = (size_t)variants + (rm ? (size_t)ranked.count + 1 : 0) + FS_BEST_LIBRARIES;
  out->specs = calloc(room, sizeof *out->specs);
  if (!out->specs) {
    fs_rm_candidates_free(&ranked);
    return fs_error_set(err, "out of memory for %zu candidates", room);
  }
  out->variants = fs_algorithm_variants(collective, family, max_channels, out->specs, variants);
  int n = out->variants;
  if (rm) add_rm_candidates(out, &ranked, &heuristic, &n);
  fs_rm_candidates_free(&ranked);
  out->searched = n;
  add_selectors(out, collective, &n);
  out->count = n;
  return 0;
}

void fs_best_candidates_free(fs_best_candidates *c) {
  free(c->specs);
  c->specs = NULL;
  c->count = c->searched = 0;
}

static const int rank_by_stat[] = {FS_STAT_MEDIAN, FS_STAT_MEAN, FS_STAT_P99};

double fs_best_value(const fs_sweep_cell *cell, fs_best_rank_by by, int64_t seeds) {
  if (seeds <= 1) return (double)cell->makespan / 1000.0;
  return cell->stats[rank_by_stat[by]];
}

typedef struct ranked_cell {
  fs_time makespan; /* one run: compared exactly */
  double value;
  int32_t index;
} ranked_cell;

static int by_value(const void *a, const void *b) {
  const ranked_cell *x = a, *y = b;
  if (x->makespan != y->makespan) return x->makespan < y->makespan ? -1 : 1;
  if (x->value != y->value) return x->value < y->value ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

int fs_best_rank(fs_best_size *s, fs_best_rank_by by, int64_t seeds, fs_error *err) {
  int searched = s->candidates.searched;
  ranked_cell *list = malloc(((size_t)searched + 1) * sizeof *list);
  free(s->order);
  s->order = malloc(((size_t)searched + 1) * sizeof *s->order);
  if (!list || !s->order) {
    free(list);
    return fs_error_set(err, "out of memory for %d candidates", searched);
  }
  int n = 0;
  for (int32_t i = 0; i < searched; i++) {
    const fs_sweep_cell *cell = &s->cells[i];
    if (cell->status != FS_SWEEP_RUN) continue;
    /* with seeds the statistic alone ranks (makespan equal: 0) */
    list[n++] = (ranked_cell){seeds <= 1 ? cell->makespan : 0, fs_best_value(cell, by, seeds), i};
  }
  qsort(list, (size_t)n, sizeof *list, by_value);
  for (int i = 0; i < n; i++) s->order[i] = list[i].index;
  s->ranked = n, s->skipped = searched - n;
  free(list);
  return 0;
}

void fs_best_size_free(fs_best_size *s) {
  fs_best_candidates_free(&s->candidates);
  free(s->cells);
  free(s->order);
  s->cells = NULL, s->order = NULL;
}
