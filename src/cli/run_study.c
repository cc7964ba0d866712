/* run_study.c: the Monte-Carlo side of `fennelsim run ... --seeds N`: one
 * worker per thread (its own models and engine over the shared read-only
 * program) runs the seeds the study gives it; the results, in seed order,
 * become the distribution report, the samples CSV and the histogram. Under
 * mpirun the seeds are split across processes and process 0 reports. */
#include "cli/run_study.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/engine.h"
#include "io/atomic_file.h"
#include "instruments/bandwidth.h"
#include "instruments/report.h"
#include "instruments/timeline.h"
#include "models/platform_parameters.h"
#include "cli/options.h"
#include "study/histogram_svg.h"
#include "study/merge.h"
#include "study/statistics.h"
#include "study/study.h"
#include "study/study_meta.h"
#include "study/study_mpi.h"

struct fs_study_worker {
  fs_network_model network;
  fs_compute_model compute;
  fs_engine *engine;
  const fs_study_setup *setup;
  fs_parameter *items;   /* this thread's copy of the parameters (models mark them used) */
  fs_timeline *timeline; /* --bandwidth only */
};

static void worker_free(fs_study_worker *w) {
  if (!w) return;
  fs_engine_free(w->engine);
  fs_timeline_free(w->timeline);
  fs_network_model_destroy(&w->network);
  fs_compute_model_destroy(&w->compute);
  free(w->items);
  free(w);
}

static fs_study_worker *worker_new(void *arg, fs_error *err) {
  const fs_study_setup *setup = arg;
  fs_study_worker *w = calloc(1, sizeof *w);
  int count = setup->params->count;
  if (w) w->items = malloc((size_t)(count ? count : 1) * sizeof *w->items);
  if (!w || !w->items) {
    worker_free(w);
    fs_error_set(err, "out of memory for a study worker");
    return NULL;
  }
  w->setup = setup;
  if (count) memcpy(w->items, setup->params->items, (size_t)count * sizeof *w->items);
  fs_parameters params = {.items = w->items, .count = count};
  if (fs_network_model_create(setup->model, &params, &w->network, err) ||
      fs_compute_model_create(setup->compute, &params, &w->compute, err) ||
      !(w->engine = fs_engine_new(setup->program, &w->network, &w->compute, err)) ||
      fs_platform_parameters_place(&params, w->engine, err)) {
    worker_free(w);
    return NULL;
  }
  if (setup->aggregate_gbps) { /* --bandwidth: record each run */
    w->timeline = fs_timeline_new(setup->program);
    fs_observer observer = w->timeline ? fs_timeline_observer(w->timeline) : (fs_observer){0};
    if (!w->timeline || fs_engine_add_observer(w->engine, &observer)) {
      fs_error_set(err, "out of memory for a study worker's timeline");
      worker_free(w);
      return NULL;
    }
  }
  return w;
}

static int worker_run(fs_study_worker *w, uint64_t seed, fs_time *makespan, fs_time *finish,
                      fs_error *err) {
  const fs_program *p = w->setup->program;
  if (fs_engine_set_noise(w->engine, w->setup->noise, seed, err)) return -1;
  int status = fs_engine_run(w->engine, err);
  if (status == FS_RUN_DEADLOCK && !err->message[0])
    fs_error_set(err, "deadlock: %lld tasks can never run",
                 (long long)fs_engine_stuck_tasks(w->engine));
  if (status != FS_RUN_OK) return -1;
  *makespan = fs_engine_makespan(w->engine);
  const fs_time *by_slot = fs_engine_finish_times(w->engine); /* program.h: slots */
  if (!p->slot_rank) {
    memcpy(finish, by_slot, (size_t)p->ranks * sizeof *finish);
  } else {
    memset(finish, 0, (size_t)p->ranks * sizeof *finish);
    for (int32_t s = 0; s < p->slots; s++) finish[p->slot_rank[s]] = by_slot[s];
  }
  if (w->timeline) {
    fs_bandwidth *b = fs_bandwidth_compute(w->timeline, err);
    if (!b) return -1;
    int64_t index = (int64_t)(seed - w->setup->base_seed); /* each index has one writer */
    w->setup->aggregate_gbps[index] = b->aggregate_gbps;
    w->setup->mean_gbps[index] = b->mean_gbps;
    fs_bandwidth_free(b);
    fs_timeline_reset(w->timeline);
  }
  return 0;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* min, p25, median, mean, p75, p95, p99, max, stdev of values[0..n) (the
 * study's own definitions: Hyndman-Fan type 7, sample stdev), sorted in place. */
static void summarize_doubles(double *values, int64_t n, double out[9]) {
  qsort(values, (size_t)n, sizeof *values, compare_doubles);
  static const int percents[5] = {25, 50, 75, 95, 99};
  double q[5], sum = 0, squares = 0;
  for (int k = 0; k < 5; k++) {
    double h = (double)(n - 1) * percents[k] / 100.0;
    int64_t low = (int64_t)h;
    double high = low + 1 < n ? values[low + 1] : values[low];
    q[k] = values[low] + (h - (double)low) * (high - values[low]);
  }
  for (int64_t i = 0; i < n; i++) sum += values[i];
  double mean = sum / (double)n;
  for (int64_t i = 0; i < n; i++) squares += (values[i] - mean) * (values[i] - mean);
  double stdev = n > 1 ? sqrt(squares / (double)(n - 1)) : 0;
  double all[9] = {values[0], q[0], q[1], mean, q[2], q[3], q[4], values[n - 1], stdev};
  memcpy(out, all, sizeof all);
}

static const char *const statistic_names[9] = {"min", "p25", "median", "mean", "p75",
                                               "p95", "p99", "max",    "stdev"};

/* The distribution of the achieved bandwidths over the seeds. */
static void report_bandwidth(const fs_study_setup *s, int64_t n, int json) {
  double stats[2][9];
  summarize_doubles(s->aggregate_gbps, n, stats[0]);
  summarize_doubles(s->mean_gbps, n, stats[1]);
  const char *names[2] = {"aggregate_gbps", "mean_gbps"};
  if (json) {
    fprintf(stdout, ", \"bandwidth\": {");
    for (int k = 0; k < 2; k++) {
      fprintf(stdout, "%s\"%s\": {", k ? ", " : "", names[k]);
      for (int i = 0; i < 9; i++)
        fprintf(stdout, "%s\"%s\": %.17g", i ? ", " : "", statistic_names[i], stats[k][i]);
      fprintf(stdout, "}");
    }
    fprintf(stdout, "}");
    return;
  }
  fprintf(stdout,
          "bandwidth  GB/s over the seeds (aggregate: bytes / makespan; mean: per transfer)\n");
  fprintf(stdout, "          ");
  for (int i = 0; i < 9; i++) fprintf(stdout, " %10s", statistic_names[i]);
  fprintf(stdout, "\n");
  for (int k = 0; k < 2; k++) {
    fprintf(stdout, "%-10s", k ? "mean" : "aggregate");
    for (int i = 0; i < 9; i++) fprintf(stdout, " %10.6g", stats[k][i]);
    fprintf(stdout, "\n");
  }
}

/* The samples CSV of gathered results (process 0 under MPI). */
static int write_samples(const char *path, const fs_study_results *r, int32_t ranks,
                         fs_error *err) {
  fs_output *out = fs_output_open(path, err);
  if (!out) return -1;
  if (fs_merge_write_samples(r, ranks, out, err)) return -1; /* commits or aborts */
  return 0;
}

static int write_histogram(const char *path, const fs_study_results *r, fs_error *err) {
  fs_output *out = fs_output_open(path, err);
  if (!out) return -1;
  return fs_histogram_svg(r, out, err); /* commits or aborts */
}

static int report(const fs_study_setup *s, const fs_run_summary *summary, const fs_study_results *r,
                  fs_error *err) {
  int32_t ranks = s->program->ranks;
  if (strcmp(s->format, "json") == 0) {
    fprintf(stdout, "{");
    fs_report_inputs_json(stdout, summary);
    fprintf(stdout, ", ");
    if (fs_study_report_json(stdout, r, ranks, s->base_seed, err)) return -1;
    if (s->aggregate_gbps) report_bandwidth(s, r->count, 1);
    fprintf(stdout, "}\n");
    return 0;
  }
  fs_report_inputs_text(stdout, summary);
  if (fs_study_report_text(stdout, r, ranks, s->base_seed, err)) return -1;
  if (s->aggregate_gbps) report_bandwidth(s, r->count, 0);
  return 0;
}

/* The study's configuration (study_meta.h), as the samples' sidecar says
 * it; malloc'd, NULL when out of memory. */
static char *study_meta_text(const fs_study_setup *s, const fs_study_worker *w) {
  enum { PART = 4096 };
  char *text = malloc(8 * PART), hash[24] = "unknown", network[PART], compute[PART], noise[PART];
  if (!text) return NULL;
  uint64_t h;
  if (fs_fnv1a64_path(s->input, &h) == 0)
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)h);
  fs_network_model_describe(&w->network, network, sizeof network);
  fs_compute_model_describe(&w->compute, compute, sizeof compute);
  if (s->noise)
    fs_noise_spec(s->noise, noise, sizeof noise);
  else
    strcpy(noise, "none");
  snprintf(text, 8 * PART,
           FS_STUDY_META_MAGIC
           "\ninput: %s\ninput_fnv1a64: %s\nnetwork: %s {%s}\n"
           "compute: %s {%s}\nnoise: %s\nseeds: %llu-%llu\nranks: %d\nshard: %lld/%lld\n",
           s->input, hash, w->network.name, network, w->compute.name, compute, noise,
           (unsigned long long)s->base_seed,
           (unsigned long long)(s->base_seed + (uint64_t)s->seeds - 1), (int)s->program->ranks,
           (long long)s->shard_index, (long long)s->shard_count);
  for (char *c = text; *c; c++) /* one line per key, whatever a path holds */
    if ((unsigned char)*c < 0x20 && *c != '\n') *c = '?';
  return text;
}

/* Process 0, before the seeds run: the samples' sidecar (an interrupted
 * study keeps it with its rows), and the warning for a study without noise. */
static int study_prologue(const fs_study_setup *s, fs_error *err) {
  if (s->seeds > 1 && !s->noise)
    fprintf(stderr,
            "fennelsim: warning: --seeds %lld without --noise, --noise-rank or "
            "--noise-trace: every seed gives the same answer\n",
            (long long)s->seeds);
  if (!s->samples || strcmp(s->samples, "-") == 0) return 0;
  fs_study_worker *w = worker_new((void *)s, err); /* for the models' descriptions */
  char *text = w ? study_meta_text(s, w) : NULL;
  if (w && !text) fs_error_set(err, "out of memory");
  int status = text ? fs_study_meta_write(s->samples, text, err) : -1;
  free(text);
  worker_free(w);
  return status;
}

int fs_run_study(const fs_study_setup *given, int *argc, char ***argv) {
  fs_error err = {{0}};
  int rank = 0, size = 1, status = FS_EXIT_SIMULATION, too_large = 0;
  int mpi = fs_study_mpi_active();
  fs_study_setup setup = *given, *s = &setup;
  if (mpi) fs_study_mpi_begin(argc, argv, &rank, &size);
  if (s->bandwidth) {
    if (mpi || s->shard_count > 1) {
      fs_error_set(&err, "--bandwidth with --seeds runs in one process (not under mpirun "
                         "or --shard)");
      status = FS_EXIT_USAGE;
      goto done;
    }
    s->aggregate_gbps = calloc((size_t)s->seeds, sizeof *s->aggregate_gbps);
    s->mean_gbps = calloc((size_t)s->seeds, sizeof *s->mean_gbps);
    if (!s->aggregate_gbps || !s->mean_gbps) {
      fs_error_set(&err, "out of memory for the bandwidths of %lld seeds", (long long)s->seeds);
      goto done;
    }
  }
  /* under MPI a failure here still joins the gather below, so no process waits */
  int failed = rank == 0 && study_prologue(s, &err);
  if (failed && !mpi) goto done;
  fs_study_options o = {.seeds = s->seeds,
                        .base_seed = s->base_seed,
                        .threads = s->threads,
                        .ranks = s->program->ranks,
                        /* a shard's seeds, dealt out to the MPI processes */
                        .first = s->shard_index + (int64_t)rank * s->shard_count,
                        .step = s->shard_count * size,
                        .samples = mpi ? NULL : s->samples,
                        .progress = rank == 0 && isatty(2)};
  fs_study_callbacks callbacks = {worker_new, worker_run, worker_free, (void *)s};
  fs_study_results local = {0}, all = {0};
  if (!failed) failed = fs_study_run(&o, &callbacks, &local, &err);
  too_large = failed && fs_exit_status_for(&err, 0); /* too large, out of memory: status 2 */
  if (failed) fprintf(stderr, "fennelsim: %s\n", err.message), err.message[0] = 0;
  if (fs_study_mpi_gather(failed ? NULL : &local, s->program->ranks, &all, &err)) goto done;
  if (rank != 0) {
    status = FS_EXIT_OK;
    goto done;
  }
  fs_study_worker *w = worker_new((void *)s, &err); /* for the models' descriptions */
  if (!w) {
    fs_study_results_free(&all);
    goto done;
  }
  fs_run_summary summary = {.input = s->input,
                            .program = s->program,
                            .network = &w->network,
                            .compute = &w->compute,
                            .noise = s->noise,
                            .seed = s->base_seed,
                            .model_default = s->model_default};
  if (!report(s, &summary, &all, &err) &&
      !(mpi && s->samples && write_samples(s->samples, &all, s->program->ranks, &err)) &&
      !(s->histogram && write_histogram(s->histogram, &all, &err)))
    status = FS_EXIT_OK;
  worker_free(w);
  fs_study_results_free(&all);
done:
  if (err.message[0] && fs_exit_status_for(&err, 0)) too_large = 1;
  if (err.message[0]) fprintf(stderr, "fennelsim: %s\n", err.message);
  free(s->aggregate_gbps), free(s->mean_gbps);
  fs_study_mpi_end();
  return too_large && status != FS_EXIT_OK ? FS_EXIT_USAGE : status;
}
