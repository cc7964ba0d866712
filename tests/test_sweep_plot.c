/* test_sweep_plot.c: the SVG figure of a sweep (study/sweep_plot.h), on
 * results filled by hand: its panels, points, legend, winner marks,
 * skipped cells, the log-scale positions of known points, escaping,
 * deterministic bytes and the errors (nothing to plot, a failed write). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/sweep_plot.h"
#include "test_support.h"

#define NS(v) ((fs_time)(v)*FS_NS)

/* Up to 3 algorithms x 2 rank counts x 3 sizes x 2 models, filled by hand. */
typedef struct fixture {
  fs_algorithm_spec algorithms[3];
  int32_t ranks[2];
  int64_t sizes[3];
  fs_sweep_model models[2];
  fs_sweep_grid grid;
  fs_sweep_cell cells[36];
  fs_sweep_results results;
} fixture;

static void setup(fixture *f, int algorithms, int ranks, int sizes, int models) {
  static const char *const names[] = {"allreduce-ring", "allreduce-rd", "allreduce-fan"};
  static const int32_t rank_list[] = {4, 8};
  static const int64_t size_list[] = {8, 1024, 1048576};
  memset(f, 0, sizeof *f);
  for (int a = 0; a < algorithms; a++) {
    f->algorithms[a].generator = fs_generator_find(names[a]);
    ck_assert_ptr_nonnull(f->algorithms[a].generator);
    snprintf(f->algorithms[a].text, sizeof f->algorithms[a].text, "%s", names[a]);
  }
  memcpy(f->ranks, rank_list, sizeof f->ranks);
  memcpy(f->sizes, size_list, sizeof f->sizes);
  for (int m = 0; m < models; m++)
    snprintf(f->models[m].label, sizeof f->models[m].label, "m%d", m);
  f->grid = (fs_sweep_grid){.algorithms = f->algorithms,
                            .algorithm_count = algorithms,
                            .ranks = f->ranks,
                            .rank_count = ranks,
                            .sizes = f->sizes,
                            .size_count = sizes,
                            .models = f->models,
                            .model_count = models,
                            .seeds = 1};
  f->results = (fs_sweep_results){.cells = f->cells, .count = algorithms * ranks * sizes * models};
  for (int a = 0; a < algorithms; a++) /* the index of sweep.h, P = 1 */
    for (int r = 0; r < ranks; r++)
      for (int s = 0; s < sizes; s++)
        for (int m = 0; m < models; m++) {
          fs_sweep_cell *c = &f->cells[((a * ranks + r) * sizes + s) * models + m];
          *c = (fs_sweep_cell){.algorithm = a, .ranks = r, .size = s, .model = m};
          c->makespan = NS(1000 * (a + 1) * (s + 1));
        }
}

static fs_sweep_cell *cell(fixture *f, int a, int r, int s) {
  return &f->cells[(a * f->grid.rank_count + r) * f->grid.size_count + s];
}

/* The grid of the layout tests: 3 algorithms x 4, 8 ranks x 8B, 1KiB, 1MiB;
 * makespans in ns (rd at 8 ranks, 1KiB skipped):
 *   4 ranks  ring 1000 10000 100000 | rd 1000 20000 50000 | fan 2000 5000 80000
 *   8 ranks  ring 3000 30000 300000 | rd 2500   -   40000 | fan 4000 8000 90000 */
static void setup_two_panels(fixture *f) {
  static const double ns[2][3][3] =
      {{{1000, 10000, 100000}, {1000, 20000, 50000}, {2000, 5000, 80000}},
       {{3000, 30000, 300000}, {2500, 0, 40000}, {4000, 8000, 90000}}};
  setup(f, 3, 2, 3, 1);
  for (int r = 0; r < 2; r++)
    for (int a = 0; a < 3; a++)
      for (int s = 0; s < 3; s++) cell(f, a, r, s)->makespan = NS(ns[r][a][s]);
  cell(f, 1, 1, 1)->status = FS_SWEEP_SKIPPED;
  snprintf(cell(f, 1, 1, 1)->reason, sizeof cell(f, 1, 1, 1)->reason, "needs a power of two");
}

/* The SVG as a string (the caller frees), or NULL with err set. */
static char *plot(const fixture *f, int statistic, fs_error *err) {
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  ck_assert_ptr_nonnull(out);
  int rc = fs_sweep_plot_write(out, &f->grid, &f->results, statistic, err);
  fclose(out);
  if (rc == 0) return text;
  free(text);
  return NULL;
}

START_TEST(panels_points_legend_and_winners) {
  fixture f;
  fs_error err;
  setup_two_panels(&f);
  char *svg = plot(&f, FS_STAT_MEDIAN, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"panel\""), 2);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"point\""), 17); /* 18 cells, 1 skipped */
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"legend-entry\""), 3);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"line\""), 6);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"bar\""), 0); /* one seed */
  fs_test_contains(svg, ">4 ranks</text>");
  fs_test_contains(svg, ">8 ranks</text>");
  fs_test_contains(svg, ">allreduce-fan</text></g>"); /* the legend: whole names */
  fs_test_contains(svg, "allreduce: makespan against size");
  /* Winners: 4 ranks: ring and rd tie at 8B (two rings, "ring +1"), fan at
   * 1KiB, rd at 1MiB; 8 ranks: rd, fan, rd. Names without "allreduce-". */
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"winner\""), 7);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"winner-name\""), 6);
  ck_assert_int_eq(fs_test_occurrences(svg, ">ring +1</text>"), 1);
  ck_assert_int_eq(fs_test_occurrences(svg, ">fan</text>"), 2);
  ck_assert_int_eq(fs_test_occurrences(svg, ">rd</text>"), 3);
  /* the skipped cell has no point, and rd's line at 8 ranks breaks there */
  ck_assert_int_eq(fs_test_occurrences(svg, "allreduce-rd, 8 ranks, 1KiB"), 0);
  ck_assert_int_eq(fs_test_occurrences(svg, "allreduce-rd, 8 ranks, 1MiB, m0: 40000 ns"), 1);
  free(svg);
}
END_TEST

/* Sizes 8B..1MiB: x exponents 3..20 over 260 px; panel 1's plot area starts
 * at (86, 70), panel 2's at (446, 70).
 * 4 ranks: times 1000..100000 ns, so the axis runs 1us..100us (two
 * decades over 190 px): ring at 1KiB, 10000 ns, lies at
 * x = 86 + 260 * 7 / 17 = 193.06, y = 70 + 190 * (1 - 1 / 2) = 165.00.
 * 8 ranks: 2500..300000 ns, so 2us..500us (log10 250 = 2.39794): rd at 8B,
 * 2500 ns: y = 70 + 190 (1 - log10 1.25 / 2.39794) = 252.32; at 1MiB,
 * 40000 ns: y = 70 + 190 (1 - log10 20 / 2.39794) = 156.91; its line is
 * two pieces, x 446 and 706. */
START_TEST(log_scale_positions) {
  fixture f;
  fs_error err;
  setup_two_panels(&f);
  char *svg = plot(&f, FS_STAT_MEDIAN, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  fs_test_contains(svg, "<circle cx=\"193.06\" cy=\"165.00\" r=\"3.60\" fill=\"#0072b2\"/>");
  fs_test_contains(svg, "<circle cx=\"86.00\" cy=\"260.00\""); /* ring 8B 1000 ns: the bottom */
  fs_test_contains(svg, "<circle cx=\"346.00\" cy=\"70.00\""); /* ring 1MiB 100000 ns: the top */
  fs_test_contains(svg, "d=\"M446.00 252.32M706.00 156.91\"/>");
  fs_test_contains(svg, "<rect x=\"442.40\" y=\"248.72\" width=\"7.20\""); /* rd's square */
  /* size labels every 5 powers of two (17 steps): 32B, 1KiB, 32KiB, 1MiB */
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"size-tick\""), 8);
  fs_test_contains(svg, "<text class=\"size-tick\" x=\"193.06\" y=\"276.00\" font-size=\"10\" "
                        "text-anchor=\"middle\">1KiB</text>");
  fs_test_contains(svg, ">1MiB</text>");
  /* time ticks 1-2-5: 1us..100us (7), then 2us..500us (8) */
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"time-tick\""), 15);
  fs_test_contains(svg, "<text class=\"time-tick\" x=\"81.00\" y=\"168.50\" font-size=\"10\" "
                        "text-anchor=\"end\">10us</text>");
  fs_test_contains(svg, ">500us</text>");
  free(svg);
}
END_TEST

/* Seeds 5: the median drawn with a p25..p75 bar. One algorithm, 4 ranks,
 * 8B and 1KiB (x exponents 3..10): medians 1000 and 2000 ns, p25 900 and
 * 1800, p75 1100 and 2500: the axis runs 500ns..5us (one decade), so the
 * median 1000 lies at y = 70 + 190 (1 - log10 2) = 202.80 and its bar
 * spans log10 1.8 .. log10 2.2: y 211.50 .. 194.94. */
START_TEST(seeds_draw_the_statistic_and_a_bar) {
  fixture f;
  fs_error err;
  setup(&f, 1, 1, 2, 1);
  f.grid.seeds = 5;
  static const double stats[2][3] = {{900, 1000, 1100}, {1800, 2000, 2500}};
  for (int s = 0; s < 2; s++) {
    fs_sweep_cell *c = cell(&f, 0, 0, s);
    c->stats[FS_STAT_P25] = stats[s][0];
    c->stats[FS_STAT_MEDIAN] = stats[s][1];
    c->stats[FS_STAT_MEAN] = 50000; /* not drawn when ranking by the median */
    c->stats[FS_STAT_P75] = stats[s][2];
  }
  char *svg = plot(&f, FS_STAT_MEDIAN, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"bar\""), 2);
  fs_test_contains(svg, "<circle cx=\"86.00\" cy=\"202.80\"");
  fs_test_contains(svg, "d=\"M86.00 211.50V194.94M83.00 211.50H89.00M83.00 194.94H89.00\"/>");
  fs_test_contains(svg, "median of 5 seeds, bars p25..p75");
  fs_test_contains(svg, ">500ns</text>");
  fs_test_contains(svg, ">5us</text>");
  fs_test_contains(svg, ": 1000.000 ns (p25 900.000, p75 1100.000 ns)</title>");
  free(svg);
}
END_TEST

/* Times over more than three decades get decade ticks only: 1000 ns and
 * 5 ms make the axis 1us..5ms, ticks 1us, 10us, 100us, 1ms; 1 ms lies at
 * y = 70 + 190 (1 - 3 / log10 5000) = 70 + 190 (1 - 0.81104) = 105.90. */
START_TEST(decade_ticks_over_a_wide_range) {
  fixture f;
  fs_error err;
  setup(&f, 1, 1, 2, 1);
  cell(&f, 0, 0, 0)->makespan = NS(1000);
  cell(&f, 0, 0, 1)->makespan = NS(5000000);
  char *svg = plot(&f, FS_STAT_MEDIAN, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"time-tick\""), 4);
  fs_test_contains(svg, "y=\"109.40\" font-size=\"10\" text-anchor=\"end\">1ms</text>");
  ck_assert_int_eq(fs_test_occurrences(svg, ">5ms</text>"), 0);
  free(svg);
}
END_TEST

/* Two models: a panel per rank count and model, the model in its title;
 * every label escaped. */
START_TEST(labels_are_escaped) {
  fixture f;
  fs_error err;
  setup(&f, 2, 2, 3, 2);
  snprintf(f.models[0].label, sizeof f.models[0].label, "a<b");
  snprintf(f.models[1].label, sizeof f.models[1].label, "c&\"d'");
  snprintf(f.algorithms[1].text, sizeof f.algorithms[1].text, "allreduce-rd:x=<&>");
  char *svg = plot(&f, FS_STAT_MEDIAN, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"panel\""), 4);
  fs_test_contains(svg, ">4 ranks, a&lt;b</text>");
  fs_test_contains(svg, ">8 ranks, c&amp;&quot;d&apos;</text>");
  fs_test_contains(svg, ">allreduce-rd:x=&lt;&amp;&gt;</text></g>");
  ck_assert_int_eq(fs_test_occurrences(svg, "a<b"), 0);
  ck_assert_int_eq(fs_test_occurrences(svg, "<&>"), 0);
  free(svg);
}
END_TEST

/* Two platforms: a row of panels each (the platform in the titles and
 * tooltips); the cell of platform p is at index p (one of everything else). */
START_TEST(a_panel_per_platform) {
  fixture f;
  fs_error err;
  fs_sweep_platform platforms[2] = {{.label = "seq"}, {.label = "16x4 rr"}};
  setup(&f, 1, 1, 1, 1);
  f.grid.platforms = platforms;
  f.grid.platform_count = 2;
  f.results.count = 2;
  f.cells[1] = f.cells[0];
  f.cells[1].platform = 1;
  f.cells[1].makespan = NS(3000);
  char *svg = plot(&f, FS_STAT_MEDIAN, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"panel\""), 2);
  fs_test_contains(svg, ">4 ranks, seq</text>");
  fs_test_contains(svg, ">4 ranks, 16x4 rr</text>");
  fs_test_contains(svg, "allreduce-ring, 4 ranks, 8B, m0, 16x4 rr: 3000 ns</title>");
  /* the second row: the panel's plot area 370 px lower (top 440) */
  fs_test_contains(svg, "<rect x=\"86.00\" y=\"440.00\" width=\"260.00\" height=\"190.00\"");
  free(svg);
}
END_TEST

START_TEST(same_results_same_bytes) {
  fixture f;
  fs_error err;
  setup_two_panels(&f);
  char *a = plot(&f, FS_STAT_MEDIAN, &err), *b = plot(&f, FS_STAT_MEDIAN, &err);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_str_eq(a, b);
  cell(&f, 0, 0, 0)->wall = 12.5; /* the wall time is not drawn */
  char *c = plot(&f, FS_STAT_MEDIAN, &err);
  ck_assert_str_eq(a, c);
  free(a), free(b), free(c);
}
END_TEST

START_TEST(every_cell_skipped_is_an_error) {
  fixture f;
  fs_error err;
  setup(&f, 2, 1, 2, 1);
  for (int i = 0; i < 4; i++) f.cells[i].status = FS_SWEEP_SKIPPED;
  ck_assert_ptr_null(plot(&f, FS_STAT_MEDIAN, &err));
  fs_test_contains(err.message, "every cell was skipped");
  f.cells[3].status = FS_SWEEP_RUN; /* one is enough */
  char *svg = plot(&f, FS_STAT_MEDIAN, &err);
  ck_assert_ptr_nonnull(svg);
  ck_assert_int_eq(fs_test_occurrences(svg, "class=\"point\""), 1);
  free(svg);
  ck_assert_ptr_null(plot(&f, FS_STAT_STDEV, &err));
  fs_test_contains(err.message, "not one to rank by");
}
END_TEST

START_TEST(a_failed_write_is_an_error) {
  fixture f;
  fs_error err;
  setup_two_panels(&f);
  char *path = fs_test_temp_path(".svg");
  ck_assert_int_eq(fs_test_write_file(path, "x", 0), 0);
  FILE *read_only = fopen(path, "r");
  ck_assert_ptr_nonnull(read_only);
  ck_assert_int_eq(fs_sweep_plot_write(read_only, &f.grid, &f.results, FS_STAT_MEDIAN, &err), -1);
  fs_test_contains(err.message, "cannot write the SVG");
  fclose(read_only);
  free(path);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("sweep_plot");
  TCase *tc = tcase_create("svg");
  tcase_add_test(tc, panels_points_legend_and_winners);
  tcase_add_test(tc, log_scale_positions);
  tcase_add_test(tc, seeds_draw_the_statistic_and_a_bar);
  tcase_add_test(tc, decade_ticks_over_a_wide_range);
  tcase_add_test(tc, labels_are_escaped);
  tcase_add_test(tc, a_panel_per_platform);
  tcase_add_test(tc, same_results_same_bytes);
  tcase_add_test(tc, every_cell_skipped_is_an_error);
  tcase_add_test(tc, a_failed_write_is_an_error);
  suite_add_tcase(suite, tc);
  return fs_test_run(suite);
}
