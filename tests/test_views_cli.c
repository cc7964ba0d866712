/* test_views_cli.c: the views of `fennelsim run` from the command line:
 * every file written, the report sections in text and JSON, and the bad
 * uses refused with exit status 2 before any work. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static char *dag;

static void make_schedule(void) {
  dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fs_test_fennelsimf(NULL, NULL, "gen allreduce-rd --ranks 8 --size 1KiB -o %s",
                                      dag),
                   0);
}

static int starts_with_file(const char *path, const char *prefix) {
  char *text = fs_test_read_file(path, NULL);
  int ok = text && strncmp(text, prefix, strlen(prefix)) == 0;
  free(text);
  return ok;
}

START_TEST(every_view_written) {
  make_schedule();
  char *svg = fs_test_temp_path(".svg"), *chrome = fs_test_temp_path(".json");
  char *csv = fs_test_temp_path(".csv"), command[1024], *out = NULL;
  snprintf(command, sizeof command,
           "run %s --model pipelined --svg %s --chrome %s --timeline %s --bandwidth "
           "--critical-path --format json",
           dag, svg, chrome, csv);
  ck_assert_int_eq(fs_test_fennelsim(command, &out, NULL), 0);
  ck_assert(starts_with_file(svg, "<svg") || starts_with_file(svg, "<?xml"));
  ck_assert(starts_with_file(chrome, "{"));
  ck_assert(starts_with_file(csv, "name,kind,rank,"));
  ck_assert_ptr_nonnull(strstr(out, ", \"bandwidth\": {"));
  /* 1 KiB under the ARCHER table: 3 rounds of alpha_r + alpha_p at 1 KiB */
  ck_assert_ptr_nonnull(strstr(out, ", \"critical_path\": {\"makespan_ns\": 4590"));
  ck_assert(out[strlen(out) - 2] == '}');
  free(out);
  /* text: the sections follow the results */
  ck_assert_int_eq(fs_test_fennelsimf(&out, NULL, "run %s --model pipelined --critical-path", dag),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "critical path  4590 ns"));
  free(out);
  remove(svg), remove(chrome), remove(csv);
  free(svg), free(chrome), free(csv);
}
END_TEST

START_TEST(channel_load_needs_contention) {
  make_schedule();
  char command[1024], *out = NULL, *err = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s --model hockney --channel-load", dag), 2);
  ck_assert_ptr_nonnull(strstr(err, "--channel-load needs a model with channel instances"));
  free(err);
  snprintf(command, sizeof command,
           "run %s --model taulop --param shm_table=%s/models/metropolis-shm.table "
           "--param net_table=%s/models/metropolis-net.table --nodes 2 --cores 4 "
           "--channel-load --format json",
           dag, FENNELSIM_SOURCE_ROOT, FENNELSIM_SOURCE_ROOT);
  ck_assert_int_eq(fs_test_fennelsim(command, &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, ", \"channel_load\": [{\"instance\": "));
  free(out);
}
END_TEST

/* --link-load and --link-csv need a model with links: refused before the
 * run (exit 2, no file written); one run only. */
START_TEST(link_load_needs_links) {
  make_schedule();
  char *csv = fs_test_temp_path(".csv"), *err = NULL;
  const char *message = "fennelsim: --link-load needs a flow model (flow, flow-lv08): hockney "
                        "has no links\n";
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s --model hockney --link-load", dag), 2);
  ck_assert_str_eq(err, message);
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s --model hockney --link-csv %s", dag, csv),
                   2);
  ck_assert_str_eq(err, message);
  free(err);
  ck_assert_ptr_null(fopen(csv, "r"));
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s --link-load --seeds 2", dag), 2);
  ck_assert_str_eq(err, "fennelsim: --timeline, --svg, --chrome, --critical-path, --channel-load "
                        "and --link-load show one run: not with --seeds (--bandwidth can)\n");
  free(err);
  free(csv);
}
END_TEST

/* Under the flow model on a SimGrid cluster: the link load in JSON and text, its CSV,
 * the rates in --svg and --chrome, the critical path's sharing note, and
 * a CSV that cannot be written (exit 1). */
START_TEST(link_load_under_flow) {
  char *err = NULL, *out = NULL, *ring = fs_test_temp_path(".ring");
  char *platform = fs_test_temp_path(".xml"), *csv = fs_test_temp_path(".csv");
  char *svg = fs_test_temp_path(".svg"), *chrome = fs_test_temp_path(".json");
  ck_assert_int_eq(fs_test_fennelsimf(NULL, NULL, "gen allreduce-ring --ranks 4 --size 1MiB -o %s",
                                      ring),
                   0);
  fs_test_write_file(platform,
                     "<?xml version=\"1.0\"?>\n<platform version=\"4.1\">\n"
                     "  <cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" "
                     "bw=\"1.25GBps\" lat=\"1us\" bb_bw=\"2.5GBps\" bb_lat=\"1us\"/>\n"
                     "</platform>\n",
                     0);
  {
    ck_assert_int_eq(fs_test_fennelsimf(&out, NULL,
                                        "run %s --model flow --platform %s --link-load --link-csv "
                                        "%s --svg %s --chrome %s --format json",
                                        ring, platform, csv, svg, chrome),
                     0);
    ck_assert_ptr_nonnull(strstr(out, ", \"link_load\": [{\"link\": \"c_"));
    free(out);
    char *text = fs_test_read_file(csv, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "link,start_ns,end_ns,flows,rate_Bps,utilization\nc_"));
    free(text);
    text = fs_test_read_file(svg, NULL);
    ck_assert_ptr_nonnull(strstr(text, "<rect class=\"rate\""));
    free(text);
    text = fs_test_read_file(chrome, NULL);
    ck_assert_ptr_nonnull(strstr(text, "\"ph\":\"C\""));
    ck_assert_ptr_nonnull(strstr(text, "\"rates\":[{\"from_us\":"));
    free(text);
    ck_assert_int_eq(fs_test_fennelsimf(&out, NULL,
                                        "run %s --model flow --platform %s --link-load "
                                        "--critical-path",
                                        ring, platform),
                     0);
    ck_assert_ptr_nonnull(strstr(out, "\nlinks      "));
    ck_assert_ptr_nonnull(strstr(out, "(a flow model: bandwidth is a transfer's size"));
    free(out);
    ck_assert_int_eq(fs_test_fennelsimf(NULL, &err,
                                        "run %s --model flow --platform %s --link-csv /dev/full",
                                        ring, platform),
                     1);
    ck_assert_str_eq(err, "fennelsim: /dev/full: write failed: No space left on device\n");
    free(err);
  }
  remove(ring), remove(platform), remove(csv), remove(svg), remove(chrome);
  free(ring), free(platform), free(csv), free(svg), free(chrome);
}
END_TEST

START_TEST(bad_uses_refused) {
  make_schedule();
  static const struct {
    const char *options, *message;
  } bad[] = {
      {"--svg-ranks 0-3", "fennelsim: --svg-ranks needs --svg FILE"},
      {"--svg x.svg --svg-ranks 3", "fennelsim: --svg-ranks 3: expected FIRST-LAST, such as 0-63"},
      {"--chrome /nonexistent/dir/x.json", "fennelsim: /nonexistent/dir/x.json"},
      {"--svg x.svg --svg-ranks 4-12", "fennelsim: svg: rank range 4-12 is not within the "
                                       "program's ranks 0-7"},
      {"--seeds 3 --critical-path", "fennelsim: --timeline, --svg, --chrome, --critical-path"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *err = NULL;
    ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s %s", dag, bad[i].options), 2);
    ck_assert_msg(strncmp(err, bad[i].message, strlen(bad[i].message)) == 0, "%s", err);
    free(err);
  }
}
END_TEST

/* With --seeds, --bandwidth gives the distribution of the achieved
 * bandwidth: the same for any thread count; without noise every statistic
 * is the single run's (aggregate = bytes / makespan: 24 puts of 1 KiB over
 * 4590 ns = 24576 / 4590 GB/s). */
START_TEST(study_bandwidth) {
  make_schedule();
  char command[1024], *a = NULL, *b = NULL;
  const char *study = "run %s --model pipelined --noise net=lognormal:sigma=0.3 --seeds 40 "
                      "--bandwidth --format json --threads %d";
  ck_assert_int_eq(fs_test_fennelsimf(&a, NULL, study, dag, 1), 0);
  ck_assert_int_eq(fs_test_fennelsimf(&b, NULL, study, dag, 2), 0);
  ck_assert_str_eq(a, b);
  ck_assert_ptr_nonnull(strstr(a, ", \"bandwidth\": {\"aggregate_gbps\": {\"min\": "));
  free(a), free(b);
  snprintf(command, sizeof command, "run %s --model pipelined --seeds 5 --bandwidth --format json",
           dag);
  ck_assert_int_eq(fs_test_fennelsim(command, &a, NULL), 0);
  char want[128];
  snprintf(want, sizeof want, "\"aggregate_gbps\": {\"min\": %.17g, \"p25\": %.17g", 24576.0 / 4590,
           24576.0 / 4590);
  ck_assert_msg(strstr(a, want) != NULL, "%s", a);
  ck_assert_ptr_nonnull(strstr(a, "\"stdev\": 0}"));
  free(a);
}
END_TEST

int main(void) {
  Suite *s = suite_create("views_cli");
  TCase *tc = tcase_create("cli");
  tcase_add_test(tc, every_view_written);
  tcase_add_test(tc, channel_load_needs_contention);
  tcase_add_test(tc, link_load_needs_links);
  tcase_add_test(tc, link_load_under_flow);
  tcase_add_test(tc, bad_uses_refused);
  tcase_add_test(tc, study_bandwidth);
  suite_add_tcase(s, tc);
  return fs_test_run(s);
}
