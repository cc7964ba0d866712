/* merge_command.c: `fennelsim merge A.csv B.csv ...`: the samples CSVs of
 * the shards of one study (`fennelsim run ... --seeds N --shard i/n
 * --samples PART.csv`) combined into the statistics of the whole study,
 * exactly those of one run over all the seeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/atomic_file.h"
#include "instruments/report.h"
#include "cli/options.h"
#include "study/histogram_svg.h"
#include "study/merge.h"
#include "study/statistics.h"
#include "study/study_meta.h"

static const char merge_usage[] =
    "usage: fennelsim merge FILE.csv... [options]\n"
    "  FILE.csv               samples of the shards of one study, in any order (written by\n"
    "                         fennelsim run ... --seeds N --shard i/n --samples FILE.csv);\n"
    "                         \"-\" for stdin. Each FILE.csv.meta (the study: input and its\n"
    "                         checksum, models, noise, seeds) must match: shards of\n"
    "                         different studies are refused\n"
    "  --format text|json     output (default text): the statistics of the whole study\n"
    "  --samples FILE.csv     write the merged samples, one row per seed in seed order\n"
    "  --histogram FILE.svg   draw the makespan distribution\n"
    "  --allow-missing        merge even if seeds are missing between the smallest and the\n"
    "                         largest seed read (a warning; by default an error)\n";

typedef struct merge_options {
  const char **inputs;
  int inputs_count;
  const char *format, *samples, *histogram;
  int allow_missing;
} merge_options;

static int parse_merge_options(int argc, char **argv, merge_options *o, fs_error *err) {
  *o = (merge_options){.format = "text"};
  if (!(o->inputs = calloc((size_t)argc, sizeof *o->inputs)))
    return fs_error_set(err, "out of memory");
  for (int i = 2; i < argc; i++) {
    const char *v;
    int m;
    if ((m = fs_option(argc, argv, &i, "--format", &v, err))) {
      if (m < 0) return -1;
      o->format = v;
    } else if ((m = fs_option(argc, argv, &i, "--samples", &v, err))) {
      if (m < 0) return -1;
      o->samples = v;
    } else if ((m = fs_option(argc, argv, &i, "--histogram", &v, err))) {
      if (m < 0) return -1;
      o->histogram = v;
    } else if (strcmp(argv[i], "--allow-missing") == 0)
      o->allow_missing = 1;
    else if (argv[i][0] == '-' && argv[i][1] != 0)
      return fs_option_unknown(err, "merge", argv[i], merge_usage);
    else
      o->inputs[o->inputs_count++] = argv[i];
  }
  if (o->inputs_count == 0)
    return fs_error_set(err, "no samples file given (see fennelsim merge --help)");
  if (strcmp(o->format, "text") != 0 && strcmp(o->format, "json") != 0)
    return fs_error_set(err, "--format %s: expected text or json", o->format);
  const fs_named_path outputs[] = {{"--samples", o->samples}, {"--histogram", o->histogram}};
  return fs_option_check_outputs(argc, argv, outputs, 2, err);
}

/* Seeds missing between the first and the last: an error, or a warning
 * with --allow-missing (a failed job of an array leaves such gaps). */
static int check_gaps(const merge_options *o, const fs_merge_gaps *gaps, int64_t count,
                      fs_error *err) {
  if (gaps->missing == 0) return 0;
  char text[300];
  snprintf(text, sizeof text, "%llu seeds missing between %llu and %llu (the first: %llu)",
           (unsigned long long)gaps->missing, (unsigned long long)gaps->first_seed,
           (unsigned long long)gaps->last_seed, (unsigned long long)gaps->first_missing);
  if (!o->allow_missing)
    return fs_error_set(err, "%s: is a shard missing? (--allow-missing merges the %lld read)", text,
                        (long long)count);
  fprintf(stderr, "fennelsim: warning: %s; the statistics are over the %lld seeds read\n", text,
          (long long)count);
  return 0;
}

/* The shards' sidecars (FILE.csv.meta): every one of the same study as the
 * first that has one (shard excepted), else an error naming what differs.
 * A shard without a sidecar (stdin, an older fennelsim) among shards with
 * one gets a warning; shards none of which has one merge as before.
 * *first keeps the first sidecar, for the merged samples. */
static int check_studies(const merge_options *o, fs_study_meta *first, fs_error *err) {
  int first_at = -1, missing = 0;
  for (int i = 0; i < o->inputs_count; i++) {
    fs_study_meta meta;
    int found = fs_study_meta_read(o->inputs[i], &meta, err);
    if (found < 0) return -1;
    missing += found == 0;
    if (found == 0) continue;
    const char *key, *a, *b;
    if (first_at < 0) {
      *first = meta, first_at = i;
      continue;
    }
    int differ = fs_study_meta_differ(first, &meta, &key, &a, &b);
    if (differ)
      fs_error_set(err, "shard %s differs from %s in %s: %s vs %s", o->inputs[i],
                   o->inputs[first_at], key, a, b);
    fs_study_meta_free(&meta);
    if (differ) return -1;
  }
  for (int i = 0; i < o->inputs_count && missing && first_at >= 0; i++) {
    fs_study_meta meta;
    if (fs_study_meta_read(o->inputs[i], &meta, err) == 0)
      fprintf(stderr,
              "fennelsim: warning: %s has no sidecar %s.meta: cannot check that it is "
              "a shard of the same study as %s\n",
              o->inputs[i], o->inputs[i], o->inputs[first_at]);
    fs_study_meta_free(&meta);
  }
  return 0;
}

/* The merged samples' sidecar: the study's, without a shard. */
static int write_merged_meta(const char *samples, const fs_study_meta *meta, fs_error *err) {
  if (!meta->text) return 0;
  size_t size = 64;
  for (int i = 0; i < meta->count; i++) size += strlen(meta->key[i]) + strlen(meta->value[i]) + 3;
  char *text = malloc(size), *p = text;
  if (!text) return fs_error_set(err, "out of memory");
  p += sprintf(p, "%s\n", FS_STUDY_META_MAGIC);
  for (int i = 0; i < meta->count; i++)
    if (strcmp(meta->key[i], "shard") != 0)
      p += sprintf(p, "%s: %s\n", meta->key[i], meta->value[i]);
  int status = fs_study_meta_write(samples, text, err);
  free(text);
  return status;
}

static int report(const merge_options *o, const fs_study_results *r, int32_t ranks, fs_error *err) {
  uint64_t base = r->seed[0];
  if (strcmp(o->format, "text") == 0) {
    printf("merged: ");
    for (int i = 0; i < o->inputs_count; i++) printf("%s%s", i ? ", " : "", o->inputs[i]);
    printf("\n");
    return fs_study_report_text(stdout, r, ranks, base, err);
  }
  printf("{\"merged\": [");
  for (int i = 0; i < o->inputs_count; i++) {
    if (i) printf(", ");
    fs_json_string(stdout, o->inputs[i]);
  }
  printf("], \"ranks\": %d, ", (int)ranks);
  if (fs_study_report_json(stdout, r, ranks, base, err)) return -1;
  printf("}\n");
  return 0;
}

int fs_command_merge(int argc, char **argv) {
  if (fs_wants_help(argc, argv, merge_usage)) return FS_EXIT_OK;
  fs_error err = {{0}};
  merge_options o;
  fs_merge *merge = NULL;
  fs_output *samples = NULL, *histogram = NULL;
  fs_study_results results = {0};
  fs_merge_gaps gaps;
  fs_study_meta meta = {0};
  int32_t ranks = 0;
  int exit_status = FS_EXIT_USAGE;
  /* outputs first: an unwritable path fails before any reading */
  if (parse_merge_options(argc, argv, &o, &err) ||
      (o.samples && !(samples = fs_output_open(o.samples, &err))) ||
      (o.histogram && !(histogram = fs_output_open(o.histogram, &err))))
    goto done;
  if (!(merge = fs_merge_new())) {
    fs_error_set(&err, "out of memory");
    goto done;
  }
  if (check_studies(&o, &meta, &err)) goto done;
  for (int i = 0; i < o.inputs_count; i++)
    if (fs_merge_read_file(merge, o.inputs[i], &err)) goto done;
  if (fs_merge_results(merge, &results, &ranks, &gaps, &err) ||
      check_gaps(&o, &gaps, results.count, &err))
    goto done;
  if (results.count == 0) {
    fs_error_set(&err, "no samples: the files hold only a header");
    goto done;
  }
  exit_status = FS_EXIT_SIMULATION; /* from here on, failures are of writing */
  if (report(&o, &results, ranks, &err)) goto done;
  int failed = samples && (fs_merge_write_samples(&results, ranks, samples, &err) ||
                           write_merged_meta(o.samples, &meta, &err));
  samples = NULL; /* committed or aborted */
  if (failed) goto done;
  failed = histogram && fs_histogram_svg(&results, histogram, &err);
  histogram = NULL;
  if (failed) goto done;
  exit_status = FS_EXIT_OK; /* main checks that stdout was written */
done:
  if (err.message[0]) fprintf(stderr, "fennelsim: %s\n", err.message);
  if (samples) fs_output_abort(samples);
  if (histogram) fs_output_abort(histogram);
  fs_study_results_free(&results);
  fs_merge_free(merge);
  fs_study_meta_free(&meta);
  free(o.inputs);
  return exit_status;
}
