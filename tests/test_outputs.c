/* test_outputs.c: output for analysis and studies that cannot be mixed up
 * (issue 16, items 8 and 10): `run --format csv` and `best --format csv`
 * (exact header and rows), the samples CSV's sidecar and `merge` refusing
 * shards of different studies, the warning of a study without noise, the
 * text report's note on omitted ranks, JSON arrays, noise keys as typed,
 * probe CSVs with a sidecar, and that every CSV written reads as plain CSV
 * (what pandas.read_csv needs without options: every record has the
 * header's field count, no '#' comment lines). */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "study/study_meta.h"
#include "test_support.h"

static char *out, *err;

/* Fields of one RFC 4180 record starting at *p (quoted fields may hold
 * commas, doubled quotes and line breaks); *p moves past its line break. */
static int record_fields(const char **p) {
  int fields = 1;
  const char *c = *p;
  while (*c && *c != '\n') {
    if (*c == '"') {
      for (c++; *c && !(*c == '"' && c[1] != '"'); c++)
        if (*c == '"') c++; /* a doubled quote */
      ck_assert_msg(*c == '"', "unterminated quoted field");
      c++;
    } else if (*c == ',') {
      fields++, c++;
    } else {
      c++;
    }
  }
  *p = *c ? c + 1 : c;
  return fields;
}

/* Plain CSV, as pandas.read_csv reads it without options: no '#' line,
 * every record with the header's field count. Returns the record count
 * after the header. */
static int assert_plain_csv(const char *text) {
  const char *p = text;
  ck_assert_msg(*p && *p != '#', "starts with a comment: %s", text);
  int columns = record_fields(&p), records = 0;
  while (*p) {
    ck_assert_msg(*p != '#', "a '#' line in:\n%s", text);
    int n = record_fields(&p);
    ck_assert_msg(n == columns, "a record of %d fields, the header has %d, in:\n%s", n, columns,
                  text);
    records++;
  }
  return records;
}

#define SPEC "schedules/spec-example.dag"
#define HOCKNEY "--model hockney --param alpha=1us --param beta=0"

/* The .dag example under hockney, alpha 1 us, beta 0: makespan 2020 ns
 * (test_cli.c derives it), 6 tasks, 6 dependencies, 6 events. Wall and
 * load seconds vary: the row is checked up to them. */
START_TEST(run_csv_row) {
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY " --format csv"), 0);
  ck_assert_str_eq(err, "");
  const char *header = "input,model,model_parameters,compute_model,compute_parameters,noise,seed,"
                       "ranks,tasks,dependencies,makespan_ns,events,wall_s,load_s\n";
  ck_assert_int_eq(strncmp(out, header, strlen(header)), 0);
  const char *row = out + strlen(header);
  const char *want = "schedules/spec-example.dag,hockney,\"{\"\"alpha_ns\"\": 1000, "
                     "\"\"beta_ns_per_byte\"\": 0}\",fixed,\"{\"\"compute_time_ns\"\": 0}\",,,"
                     "2,6,6,2020,6,";
  ck_assert_msg(strncmp(row, want, strlen(want)) == 0, "%s", row);
  ck_assert_int_eq(assert_plain_csv(out), 1);
  /* with noise: the spec as typed (mode=mul, the default, dropped) and the seed */
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY " --format csv --noise "
                             "net=constant:value=1.5,mode=mul --noise-rank 1:host=constant:value=2 "
                             "--seed 7"),
                   0);
  fs_test_contains(out, "0}\",net=constant:value=1.5 1:host=constant:value=2,7,2,6,6,");
  ck_assert_int_eq(assert_plain_csv(out), 1);
  /* a study's rows are its samples */
  ck_assert_int_eq(fennelsim("run " SPEC " --format csv --seeds 3"), 2);
  ck_assert_str_eq(err, "fennelsim: --format csv is one run's row: with --seeds, --samples "
                        "FILE.csv writes a row per seed\n");
  ck_assert_int_eq(fennelsim("run " SPEC " --format xml"), 2);
  ck_assert_str_eq(err, "fennelsim: --format xml: expected text, json or csv\n");
}
END_TEST

/* best on 4 ranks under hockney (alpha 1 us, beta 0): a put blocks its CPU
 * until it lands, so rd's two stages take 2 x 1 us = 2000 ns, which no
 * candidate beats (two rounds of one message); a4 3 us. A header and
 * plain rows (per size: ranked, skipped, then the libraries'). */
START_TEST(best_csv_rows) {
  ck_assert_int_eq(fennelsim("best allreduce --ranks 4 " HOCKNEY " --format csv"), 0);
  const char *p = "\"{\"\"alpha_ns\"\": 1000, \"\"beta_ns_per_byte\"\": 0}\"";
  char want[2048];
  ck_assert(strncmp(out,
                    "size_bytes,rank,algorithm,picked,status,time_ns,ratio,tasks,median_ns,"
                    "mean_ns,p99_ns,reason,collective,ranks,model,model_parameters,compute_model,"
                    "platform,noise,seeds,rank_by\n8,1,",
                    strlen("size_bytes,rank,algorithm,picked,status,time_ns,ratio,tasks,median_ns,"
                           "mean_ns,p99_ns,reason,collective,ranks,model,model_parameters,"
                           "compute_model,platform,noise,seeds,rank_by\n8,1,")) == 0);
  fs_test_contains(out, ",allreduce-rd,,run,2000,1.000000,");
  snprintf(want, sizeof want, ",2000,2000,2000,,allreduce,4,hockney,%s,fixed,,,1,median\n", p);
  fs_test_contains(out, want);
  fs_test_contains(out, ",allreduce-rm:schedule=a4,,run,3000,1.500000,");
  int rows = assert_plain_csv(out);
  ck_assert_int_eq(fennelsim("best allreduce --ranks 4 " HOCKNEY " --format csv --top 2"), 0);
  ck_assert_int_lt(assert_plain_csv(out), rows);
}
END_TEST

/* Beyond 16 ranks the text report shows 16 finish times and says where the
 * others are. allreduce-rd on 20 ranks: 4 more. */
START_TEST(text_report_omitted_ranks) {
  char *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fennelsim("gen allreduce-rd --ranks 20 -o '%s'", dag), 0);
  ck_assert_int_eq(fennelsim("run '%s' " HOCKNEY, dag), 0);
  fs_test_contains(out, " 15:");
  fs_test_contains(out, " ... 4 more ranks: --format json or --timeline\n");
  ck_assert_ptr_null(strstr(out, " 16:"));
  /* 16 ranks or fewer: all of them, no note */
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY), 0);
  fs_test_contains(out, "finish ns  0:2020 1:2010\n");
  remove(dag);
  free(dag);
}
END_TEST

/* JSON: the replay's algorithms are an array; noise keys are spelled as
 * --noise-rank takes them. */
START_TEST(json_arrays_and_noise_keys) {
  ck_assert_int_eq(fennelsim("run traces/sweep3d-2x2 --model loggops --format json"), 0);
  fs_test_contains(out,
                   "\"algorithms\": [\"barrier=barrier-dissemination\", \"bcast=bcast-binomial\", "
                   "\"allreduce=allreduce-rd\"]");
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY " --format json --noise-rank "
                             "1:host=constant:value=2 --noise-rank 0-1:net=constant:value=3"),
                   0);
  fs_test_contains(out, "\"noise\": {\"1:host\": \"constant:value=2\", \"0-1:net\": "
                        "\"constant:value=3\"}");
}
END_TEST

/* FNV-1a 64: the published test vectors ("" is the offset basis). */
START_TEST(fnv1a64_vectors) {
  ck_assert_uint_eq(fs_fnv1a64(FS_FNV1A64_INIT, "", 0), UINT64_C(0xcbf29ce484222325));
  ck_assert_uint_eq(fs_fnv1a64(FS_FNV1A64_INIT, "a", 1), UINT64_C(0xaf63dc4c8601ec8c));
  ck_assert_uint_eq(fs_fnv1a64(FS_FNV1A64_INIT, "foobar", 6), UINT64_C(0x85944171f73967e8));
  char *path = fs_test_temp_path(".txt");
  ck_assert_int_eq(fs_test_write_file(path, "foobar", 0), 0);
  uint64_t h = 0;
  ck_assert_int_eq(fs_fnv1a64_path(path, &h), 0);
  ck_assert_uint_eq(h, UINT64_C(0x85944171f73967e8));
  ck_assert_int_eq(fs_fnv1a64_path("/nonexistent/x", &h), -1);
  remove(path);
  free(path);
}
END_TEST

/* The samples' sidecar says the whole study; merge takes shards of one
 * study and refuses others naming what differs. */
START_TEST(samples_sidecar_and_merge) {
  char *a = fs_test_temp_path(".csv"), *b = fs_test_temp_path(".csv"),
       *c = fs_test_temp_path(".csv"), *m = fs_test_temp_path(".csv"), meta[1100];
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY " --seeds 10 --noise net=lognormal:sigma=0.2 "
                             "--shard 0/2 --samples '%s'",
                             a),
                   0);
  ck_assert_str_eq(err, "");
  char *text = fs_test_read_file(a, NULL);
  ck_assert_int_eq(assert_plain_csv(text), 5); /* seeds 1, 3, 5, 7, 9 */
  ck_assert_int_eq(strncmp(text, "seed,makespan_ns,finish_ns_0,finish_ns_1\n1,", 43), 0);
  free(text);
  uint64_t h;
  ck_assert_int_eq(fs_fnv1a64_path(FENNELSIM_SOURCE_ROOT "/" SPEC, &h), 0);
  char want[2048];
  snprintf(want, sizeof want,
           "fennelsim-samples 1\n"
           "input: schedules/spec-example.dag\n"
           "input_fnv1a64: %016llx\n"
           "network: hockney {\"alpha_ns\": 1000, \"beta_ns_per_byte\": 0}\n"
           "compute: fixed {\"compute_time_ns\": 0}\n"
           "noise: net=lognormal:sigma=0.2\n"
           "seeds: 1-10\n"
           "ranks: 2\n"
           "shard: 0/2\n",
           (unsigned long long)h);
  snprintf(meta, sizeof meta, "%s.meta", a);
  text = fs_test_read_file(meta, NULL);
  ck_assert_str_eq(text, want);
  free(text);
  /* the other shard of another study: refused, naming the difference */
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY " --seeds 10 --noise net=lognormal:sigma=0.3 "
                             "--shard 1/2 --samples '%s'",
                             b),
                   0);
  ck_assert_int_eq(fennelsim("merge '%s' '%s'", a, b), 2);
  ck_assert_str_eq(out, "");
  char message[5000];
  snprintf(message, sizeof message,
           "fennelsim: shard %s differs from %s in noise: "
           "net=lognormal:sigma=0.2 vs net=lognormal:sigma=0.3\n",
           b, a);
  ck_assert_str_eq(err, message);
  /* another seed range is another study too */
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY " --seeds 12 --noise net=lognormal:sigma=0.2 "
                             "--shard 1/2 --samples '%s'",
                             b),
                   0);
  ck_assert_int_eq(fennelsim("merge '%s' '%s'", a, b), 2);
  snprintf(message, sizeof message, "fennelsim: shard %s differs from %s in seeds: 1-10 vs 1-12\n",
           b, a);
  ck_assert_str_eq(err, message);
  /* the same study's other shard, by another path to the same input */
  ck_assert_int_eq(fennelsim("run ./" SPEC " " HOCKNEY " --seeds 10 --noise "
                             "net=lognormal:sigma=0.2 --shard 1/2 --samples '%s'",
                             c),
                   0);
  ck_assert_int_eq(fennelsim("merge '%s' '%s' --samples '%s'", a, c, m), 0);
  ck_assert_str_eq(err, "");
  fs_test_contains(out, "seeds      10 (base seed 1)");
  text = fs_test_read_file(m, NULL);
  ck_assert_int_eq(assert_plain_csv(text), 10);
  free(text);
  /* the merged samples' sidecar: the study's, without a shard */
  snprintf(meta, sizeof meta, "%s.meta", m);
  text = fs_test_read_file(meta, NULL);
  ck_assert_ptr_nonnull(strstr(want, "shard: 0/2\n"));
  *strstr(want, "shard: 0/2\n") = 0;
  ck_assert_str_eq(text, want);
  free(text);
  /* overlapping seeds were refused before, and still are */
  ck_assert_int_eq(fennelsim("merge '%s' '%s'", a, a), 2);
  snprintf(message, sizeof message, "fennelsim: %s:2:1: seed 1 already read at %s:2\n", a, a);
  ck_assert_str_eq(err, message);
  /* a shard without a sidecar (an older fennelsim): merged, with a warning */
  snprintf(meta, sizeof meta, "%s.meta", c);
  remove(meta);
  ck_assert_int_eq(fennelsim("merge '%s' '%s'", a, c), 0);
  snprintf(message, sizeof message,
           "fennelsim: warning: %s has no sidecar %s.meta: cannot check "
           "that it is a shard of the same study as %s\n",
           c, c, a);
  ck_assert_str_eq(err, message);
  /* a malformed sidecar is an error at its line */
  snprintf(meta, sizeof meta, "%s.meta", c);
  ck_assert_int_eq(fs_test_write_file(meta, "fennelsim-samples 1\nnoise none\n", 0), 0);
  ck_assert_int_eq(fennelsim("merge '%s' '%s'", a, c), 2);
  snprintf(message, sizeof message, "fennelsim: %s:2:1: expected KEY: VALUE\n", meta);
  ck_assert_str_eq(err, message);
  remove(meta);
  const char *paths[] = {a, b, m};
  for (int i = 0; i < 3; i++) {
    snprintf(meta, sizeof meta, "%s.meta", paths[i]);
    remove(meta);
  }
  remove(a), remove(b), remove(c), remove(m);
  free(a), free(b), free(c), free(m);
}
END_TEST

/* Every seed of a study without noise gives the same answer: a warning,
 * exit 0; none for one seed or with noise. */
START_TEST(seeds_without_noise_warn) {
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY " --seeds 4"), 0);
  ck_assert_str_eq(err, "fennelsim: warning: --seeds 4 without --noise, --noise-rank or "
                        "--noise-trace: every seed gives the same answer\n");
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY " --seeds 1"), 0);
  ck_assert_str_eq(err, "");
  ck_assert_int_eq(fennelsim("run " SPEC " " HOCKNEY " --seeds 4 --noise-rank "
                             "1:host=constant:value=2"),
                   0);
  ck_assert_str_eq(err, "");
}
END_TEST

/* probe -o: plain CSV, its metadata in FILE.meta; fit reads it back; on
 * stdout the metadata stays a '#' line (no sidecar there) and fit reads
 * that too; without its sidecar a file is an error naming it. */
START_TEST(probe_csv_sidecar) {
  char *csv = fs_test_temp_path(".csv"), meta[1100];
  snprintf(meta, sizeof meta, "%s.meta", csv);
  ck_assert_int_eq(fennelsim("probe --model hockney -o '%s'", csv), 0);
  char *text = fs_test_read_file(csv, NULL);
  ck_assert_int_gt(assert_plain_csv(text), 100);
  free(text);
  text = fs_test_read_file(meta, NULL);
  ck_assert_str_eq(text, "fennelprobe 1 ranks=4 source=simulation\n");
  free(text);
  ck_assert_int_eq(fennelsim("fit '%s' --model hockney", csv), 0);
  fs_test_contains(out, " rows, 4 ranks)");
  ck_assert_int_eq(fennelsim("probe --model hockney"), 0);
  ck_assert_int_eq(strncmp(out, "# fennelprobe 1 ranks=4 source=simulation\nexperiment,", 52), 0);
  remove(meta);
  ck_assert_int_eq(fennelsim("fit '%s' --model hockney", csv), 2);
  char message[3000];
  snprintf(message, sizeof message,
           "fennelsim: %s:1:1: expected \"# fennelprobe 1 ranks=P ...\" "
           "or the sidecar %s (fennelprobe and fennelsim probe -o write it): %s: cannot open: No "
           "such file or directory\n",
           csv, meta, meta);
  ck_assert_str_eq(err, message);
  remove(csv);
  free(csv);
}
END_TEST

/* gen draws its progress bar on a terminal only: under `script` (a pty) a
 * large .dag.gz shows "writing [", redirected it shows nothing. */
START_TEST(gen_progress_on_a_terminal) {
  if (access("/usr/bin/script", X_OK) != 0) return; /* util-linux absent: nothing to drive a pty */
  char *dag = fs_test_temp_path(".dag.gz");
  /* allreduce-ring on 512 ranks: about 1.3 million tasks, seconds of gzip */
  ck_assert_int_eq(fennelsim("gen allreduce-ring --ranks 512 --size 1MiB -o '%s'", dag), 0);
  ck_assert_str_eq(err, "");
  char command[2048];
  snprintf(command, sizeof command,
           "script -qec \"'%s' gen allreduce-ring --ranks 512 --size "
           "1MiB -o '%s'\" /dev/null",
           FENNELSIM_BINARY, dag);
  FILE *pipe = popen(command, "r");
  ck_assert_ptr_nonnull(pipe);
  char buffer[4096];
  size_t n = fread(buffer, 1, sizeof buffer - 1, pipe);
  buffer[n] = 0;
  char rest[4096];
  while (fread(rest, 1, sizeof rest, pipe) > 0) continue;
  ck_assert_int_eq(pclose(pipe), 0);
  ck_assert_msg(strstr(buffer, "\rwriting [") != NULL, "%s", buffer);
  remove(dag);
  free(dag);
}
END_TEST

static Suite *outputs_suite(void) {
  Suite *s = suite_create("outputs");
  TCase *t = tcase_create("outputs");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, run_csv_row);
  tcase_add_test(t, best_csv_rows);
  tcase_add_test(t, text_report_omitted_ranks);
  tcase_add_test(t, json_arrays_and_noise_keys);
  tcase_add_test(t, fnv1a64_vectors);
  tcase_add_test(t, samples_sidecar_and_merge);
  tcase_add_test(t, seeds_without_noise_warn);
  tcase_add_test(t, probe_csv_sidecar);
  tcase_add_test(t, gen_progress_on_a_terminal);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(outputs_suite()); }
