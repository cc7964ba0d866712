/* sweep.c: see sweep.h. The unit of work is a job: one (algorithm, ranks,
 * size, platform), generated once and simulated under every model (and
 * seed). Jobs are taken largest first (by rank count, then size) from an
 * atomic counter, so the big cells start early and do not end the sweep
 * alone; each writes only its own cells. A failing job stops the jobs of
 * higher cell indices, never lower ones, so the failure reported is the
 * lowest failing cell whatever the thread count.
 *
 * Memory: each thread holds one program and its engines at a time, so the
 * peak is about threads x the largest cell (a ring allreduce at 4096 ranks,
 * about 4 GB with its engine). */
#include "study/sweep.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/engine.h"
#include "generators/data_flow_check.h"
#include "generators/mpi_selection.h"
#include "io/progress.h"
#include "models/model_registry.h"
#include "models/platform_parameters.h"
#include "study/statistics.h"

typedef struct sweep_job {
  int64_t first; /* the index of its cell under model 0 */
  int32_t algorithm, ranks, size, platform;
  int64_t rank_count, bytes; /* the values, for the order */
} sweep_job;

typedef struct sweep {
  const fs_sweep_grid *grid;
  fs_sweep_results *results;
  sweep_job *jobs;
  int64_t job_count;
  atomic_llong next, done_cells;
  atomic_llong failed_at; /* lowest failing cell index, INT64_MAX: none */
  atomic_int active;
  pthread_mutex_t lock;
  fs_error failure;
} sweep;

/* A thread's scratch, kept from cell to cell. */
typedef struct sweep_worker {
  sweep *s;
  fs_parameter *items; /* a model's parameters and the platform's */
  int item_capacity;
  fs_time *makespans; /* one per seed */
  char nodes[24];     /* nodes= when only cores= was given */
} sweep_worker;

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int64_t fs_sweep_index(const fs_sweep_grid *g, int32_t algorithm, int32_t ranks, int32_t size,
                       int32_t model, int32_t platform) {
  int64_t platforms = g->platform_count > 0 ? g->platform_count : 1;
  return ((((int64_t)algorithm * g->rank_count + ranks) * g->size_count + size) * g->model_count +
          model) *
             platforms +
         platform;
}

/* "allreduce-ring, 64 ranks, 1KiB, pipelined, 16 cores rr" (model < 0:
 * no model, for a failure before any simulation). */
static void describe_cell(const fs_sweep_grid *g, const sweep_job *j, int model, char *out,
                          size_t size) {
  char bytes[32];
  const char *platform = g->platform_count > 0 ? g->platforms[j->platform].label : "";
  snprintf(out, size, "%s, %d ranks, %s%s%s%s%s", g->algorithms[j->algorithm].text,
           g->ranks[j->ranks], fs_format_size(bytes, g->sizes[j->size]), model >= 0 ? ", " : "",
           model >= 0 ? g->models[model].label : "", platform[0] ? ", " : "", platform);
}

/* Keeps the failure of the lowest cell index; jobs above it stop. */
static void fail(sweep *s, const sweep_job *j, int model, const fs_error *why) {
  int64_t index = j->first + (int64_t)(model > 0 ? model : 0) *
                                 (s->grid->platform_count > 0 ? s->grid->platform_count : 1);
  char cell[FS_ALGORITHM_TEXT_MAX + 256];
  describe_cell(s->grid, j, model, cell, sizeof cell);
  pthread_mutex_lock(&s->lock);
  if (index < atomic_load(&s->failed_at)) {
    fs_error_set(&s->failure, "%s: %s", cell, why->message[0] ? why->message : "failed");
    atomic_store(&s->failed_at, index);
  }
  pthread_mutex_unlock(&s->lock);
}

/* The platform's model parameters for a cell of `ranks` ranks into
 * w->items from `at`; returns the new count. */
static int platform_items(sweep_worker *w, const fs_sweep_platform *p, int32_t ranks, int at) {
  const char *keys[4] = {"nodes", "cores", "mapping", "platform"};
  const char *values[4] = {p->nodes, p->cores, p->mapping, p->file};
  if (!p->nodes && p->cores && !p->file) { /* ceil(R / Q) nodes of Q cores */
    long long cores = atoll(p->cores);
    snprintf(w->nodes, sizeof w->nodes, "%lld", cores > 0 ? (ranks + cores - 1) / cores : 1);
    values[0] = w->nodes;
  }
  for (int k = 0; k < 4; k++)
    if (values[k]) w->items[at++] = (fs_parameter){.key = keys[k], .value = values[k]};
  return at;
}

/* The parameters of model m (NULL: none) on the job's platform. */
static fs_parameters cell_params(sweep_worker *w, const sweep_job *j, int m) {
  const fs_sweep_grid *g = w->s->grid;
  int count = 0;
  if (m >= 0) {
    count = g->models[m].params.count;
    if (count) memcpy(w->items, g->models[m].params.items, (size_t)count * sizeof *w->items);
  }
  if (g->platform_count > 0)
    count = platform_items(w, &g->platforms[j->platform], g->ranks[j->ranks], count);
  return (fs_parameters){.items = w->items, .count = count};
}

/* The job's mapped platform for the generator (NULL: none given), or NULL
 * with *failed and err set. */
static fs_platform *job_platform(sweep_worker *w, const sweep_job *j, int *failed, fs_error *err) {
  *failed = 0;
  if (w->s->grid->platform_count <= 0) return NULL;
  fs_parameters params = cell_params(w, j, -1);
  fs_platform_parameters pp;
  fs_platform *platform = NULL;
  if (!fs_platform_parameters_read(&params, &pp, err))
    platform = fs_platform_parameters_build(&pp, w->s->grid->ranks[j->ranks], err);
  *failed = platform == NULL;
  return platform;
}

/* A failure that fails the sweep rather than skipping the cell. */
static int fatal(const fs_error *err) {
  return fs_error_is_out_of_memory(err) || fs_error_is_too_large(err);
}

/* A skipped cell's reason, cut to its buffer when longer. */
static void set_reason(fs_sweep_cell *c, const char *reason) {
  size_t n = strlen(reason);
  if (n >= sizeof c->reason) n = sizeof c->reason - 1;
  memcpy(c->reason, reason, n);
  c->reason[n] = 0;
}

static void skip_job(sweep *s, const sweep_job *j, const char *reason) {
  const fs_sweep_grid *g = s->grid;
  int64_t stride = g->platform_count > 0 ? g->platform_count : 1;
  for (int m = 0; m < g->model_count; m++) {
    fs_sweep_cell *c = &s->results->cells[j->first + m * stride];
    c->status = FS_SWEEP_SKIPPED;
    set_reason(c, reason);
  }
}

static int compare_times(const void *a, const void *b) {
  fs_time x = *(const fs_time *)a, y = *(const fs_time *)b;
  return (x > y) - (x < y);
}

/* The cell's statistics from its makespans (sorted in place): the exact
 * statistics of a study (statistics.h), and the median in whole ps (the
 * lower when it falls between two). */
static int summarize(fs_sweep_cell *c, fs_time *makespans, int64_t n, fs_error *err) {
  fs_summary s;
  if (fs_summarize(makespans, n, 1, &s))
    return fs_error_set(err, "out of memory for the statistics of %lld seeds", (long long)n);
  const double v[FS_STAT_COUNT] = {s.min, s.p25, s.median, s.mean, s.p75,
                                   s.p95, s.p99, s.max,    s.stdev};
  memcpy(c->stats, v, sizeof v);
  qsort(makespans, (size_t)n, sizeof *makespans, compare_times);
  fs_time low = makespans[(n - 1) / 2], high = makespans[n / 2];
  c->makespan = low + (high - low) / 2;
  return 0;
}

/* Every seed of model m on program p: 0, 1 when the model refused the
 * program (the cell is skipped, err says why), -1 on failure. */
static int simulate(sweep_worker *w, const sweep_job *j, int m, const fs_program *p,
                    fs_sweep_cell *c, fs_error *err) {
  const fs_sweep_grid *g = w->s->grid;
  fs_parameters params = cell_params(w, j, m);
  fs_network_model network = {0};
  fs_compute_model compute = {0};
  fs_engine *engine = NULL;
  int status = -1;
  int64_t seeds = g->seeds > 0 ? g->seeds : 1;
  if (fs_network_model_create(g->models[m].network, &params, &network, err) ||
      fs_compute_model_create(g->models[m].compute, &params, &compute, err) ||
      !(engine = fs_engine_new(p, &network, &compute, err)) ||
      fs_platform_parameters_place(&params, engine, err))
    goto done;
  for (int64_t i = 0; i < seeds; i++) {
    if (g->noise && fs_engine_set_noise(engine, g->noise, g->base_seed + (uint64_t)i, err))
      goto done;
    int run = fs_engine_run(engine, err);
    if (run == FS_RUN_REJECTED) { /* a model that runs out of memory preparing refuses too */
      status = fs_error_is_out_of_memory(err) ? -1 : 1;
      goto done;
    }
    if (run == FS_RUN_DEADLOCK && !err->message[0])
      fs_error_set(err, "deadlock: %lld tasks can never run",
                   (long long)fs_engine_stuck_tasks(engine));
    if (run != FS_RUN_OK) goto done;
    w->makespans[i] = fs_engine_makespan(engine);
  }
  status = summarize(c, w->makespans, seeds, err);
done:
  fs_engine_free(engine);
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&compute);
  return status;
}

/* Proves p computes its collective (the record in flow). */
static int check_flow(const fs_program *p, const fs_data_flow *flow, fs_error *err) {
  char why[400];
  if (flow->collective == FS_COLLECTIVE_NONE)
    return fs_error_set(err, "the generator records no data flow: --check cannot prove it");
  if (fs_check_data_flow(p, flow, why, sizeof why))
    return strcmp(why, "out of memory") == 0
               ? fs_error_set(err, "the data-flow check: out of memory")
               : fs_error_set(err, "the data-flow check rejects the schedule: %s", why);
  return 0;
}

/* Generates the job's program (NULL: skipped or failed, as *failed says);
 * a selector's pick (its canonical spec) into picked, else "". */
static fs_program *generate(sweep_worker *w, const sweep_job *j, fs_data_flow *flow, int *failed,
                            char picked[FS_ALGORITHM_TEXT_MAX], fs_error *err) {
  const fs_sweep_grid *g = w->s->grid;
  const fs_algorithm_spec *spec = &g->algorithms[j->algorithm];
  fs_platform *platform = job_platform(w, j, failed, err);
  if (*failed) return NULL;
  fs_generator_options o = {.ranks = g->ranks[j->ranks],
                            .size = g->sizes[j->size],
                            .rounds = 1,
                            .platform = platform,
                            .flow = g->check ? flow : NULL,
                            .symmetric = !g->check}; /* only run: templates where they fit */
  fs_algorithm_spec_apply(spec, &o);
  fs_program *p = spec->generator->generate(&o, err);
  picked[0] = 0;
  fs_mpi_choice choice;
  if (p && (spec->generator->traits & FS_GEN_SELECTOR)) {
    /* the pick reads ranks, size, element, root and (NCCL's) the nodes */
    if (fs_mpi_select_options(spec->generator, &o, &choice, err)) {
      fs_program_free(p);
      fs_platform_free(platform);
      *failed = 1;
      return NULL;
    }
    memcpy(picked, choice.spec.text, strlen(choice.spec.text) + 1); /* the same size */
  }
  fs_platform_free(platform);
  *failed = p == NULL;
  return p;
}

/* One job: generate (and check) once, then every model. 0, or -1 when the
 * sweep fails (recorded). */
static int run_job(sweep_worker *w, const sweep_job *j) {
  sweep *s = w->s;
  const fs_sweep_grid *g = s->grid;
  int64_t stride = g->platform_count > 0 ? g->platform_count : 1;
  fs_error err = {{0}};
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  double start = seconds_now();
  int failed;
  char picked[FS_ALGORITHM_TEXT_MAX];
  fs_program *p = generate(w, j, &flow, &failed, picked, &err);
  int status = 0;
  if (!p) {
    if (fatal(&err))
      status = -1, fail(s, j, -1, &err);
    else
      skip_job(s, j, err.message);
  } else if (g->check && !(g->algorithms[j->algorithm].generator->traits & FS_GEN_FILE) &&
             check_flow(p, &flow, &err)) { /* (msccl checks its own flow when it generates) */
    status = -1, fail(s, j, -1, &err);
  }
  fs_data_flow_free(&flow);
  double shared = seconds_now() - start; /* generation and check, counted in each model's wall */
  for (int m = 0; p && status == 0 && m < g->model_count; m++) {
    fs_sweep_cell *c = &s->results->cells[j->first + m * stride];
    double begin = seconds_now();
    err.message[0] = 0;
    int simulated = simulate(w, j, m, p, c, &err);
    if (simulated < 0) status = -1, fail(s, j, m, &err);
    if (simulated > 0) {
      c->status = FS_SWEEP_SKIPPED;
      set_reason(c, err.message);
    }
    c->tasks = p->tasks;
    memcpy(c->picked, picked, strlen(picked) + 1); /* the rest stays zero: cells compare */
    c->wall = shared + (seconds_now() - begin);
  }
  fs_program_free(p);
  atomic_fetch_add(&s->done_cells, g->model_count);
  return status;
}

static void *thread_main(void *argument) {
  sweep_worker *w = argument;
  sweep *s = w->s;
  for (;;) {
    int64_t k = atomic_fetch_add(&s->next, 1);
    if (k >= s->job_count) break;
    const sweep_job *j = &s->jobs[k];
    if (j->first > atomic_load(&s->failed_at)) continue; /* cannot lower the failure */
    run_job(w, j);
  }
  atomic_fetch_sub(&s->active, 1);
  return NULL;
}

/* Largest first: by rank count, then size; then by index (a fixed order). */
static int larger_first(const void *a, const void *b) {
  const sweep_job *x = a, *y = b;
  if (x->rank_count != y->rank_count) return x->rank_count > y->rank_count ? -1 : 1;
  if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
  return (x->first > y->first) - (x->first < y->first);
}

static int make_jobs(sweep *s, fs_error *err) {
  const fs_sweep_grid *g = s->grid;
  int32_t platforms = g->platform_count > 0 ? g->platform_count : 1;
  s->job_count = (int64_t)g->algorithm_count * g->rank_count * g->size_count * platforms;
  s->jobs = malloc((size_t)(s->job_count ? s->job_count : 1) * sizeof *s->jobs);
  if (!s->jobs)
    return fs_error_set(err, "out of memory for %lld sweep jobs", (long long)s->job_count);
  int64_t k = 0;
  for (int32_t a = 0; a < g->algorithm_count; a++)
    for (int32_t r = 0; r < g->rank_count; r++)
      for (int32_t z = 0; z < g->size_count; z++)
        for (int32_t p = 0; p < platforms; p++)
          s->jobs[k++] =
              (sweep_job){fs_sweep_index(g, a, r, z, 0, p), a, r, z, p, g->ranks[r], g->sizes[z]};
  qsort(s->jobs, (size_t)s->job_count, sizeof *s->jobs, larger_first);
  return 0;
}

static int allocate_cells(const fs_sweep_grid *g, fs_sweep_results *out, fs_error *err) {
  int32_t platforms = g->platform_count > 0 ? g->platform_count : 1;
  int64_t count =
      (int64_t)g->algorithm_count * g->rank_count * g->size_count * g->model_count * platforms;
  int64_t limit = fs_memory_limit() / 4;
  if (count > limit / (int64_t)sizeof *out->cells)
    return fs_error_too_large(err, "the cells of the sweep", count * (int64_t)sizeof *out->cells,
                              limit);
  out->cells = calloc((size_t)(count ? count : 1), sizeof *out->cells);
  if (!out->cells)
    return fs_error_out_of_memory(err, "the cells of the sweep",
                                  count * (int64_t)sizeof *out->cells);
  out->count = count;
  int64_t i = 0;
  for (int32_t a = 0; a < g->algorithm_count; a++)
    for (int32_t r = 0; r < g->rank_count; r++)
      for (int32_t z = 0; z < g->size_count; z++)
        for (int32_t m = 0; m < g->model_count; m++)
          for (int32_t p = 0; p < platforms; p++, i++)
            out->cells[i] =
                (fs_sweep_cell){.algorithm = a, .ranks = r, .size = z, .model = m, .platform = p};
  return 0;
}

static int check_grid(const fs_sweep_grid *g, fs_error *err) {
  if (g->algorithm_count < 0 || g->rank_count < 0 || g->size_count < 0 || g->model_count < 0 ||
      g->platform_count < 0 || g->seeds < 0)
    return fs_error_set(err, "sweep: negative counts in the grid");
  for (int32_t r = 0; r < g->rank_count; r++)
    if (g->ranks[r] < 1)
      return fs_error_set(err, "sweep: rank count %d: expected >= 1", g->ranks[r]);
  for (int32_t z = 0; z < g->size_count; z++)
    if (g->sizes[z] < 0)
      return fs_error_set(err, "sweep: size %lld: expected >= 0", (long long)g->sizes[z]);
  for (int32_t a = 0; a < g->algorithm_count; a++)
    if (!g->algorithms[a].generator)
      return fs_error_set(err, "sweep: algorithm %d: no generator", a);
  return 0;
}

static void workers_free(sweep_worker *w, int count) {
  for (int i = 0; w && i < count; i++) free(w[i].items), free(w[i].makespans);
  free(w);
}

static sweep_worker *workers_new(sweep *s, int count, fs_error *err) {
  const fs_sweep_grid *g = s->grid;
  int items = 4;
  for (int m = 0; m < g->model_count; m++)
    if (g->models[m].params.count + 4 > items) items = g->models[m].params.count + 4;
  int64_t seeds = g->seeds > 0 ? g->seeds : 1;
  sweep_worker *w = calloc((size_t)count, sizeof *w);
  for (int i = 0; w && i < count; i++) {
    w[i] = (sweep_worker){.s = s, .item_capacity = items};
    w[i].items = calloc((size_t)items, sizeof *w[i].items);
    w[i].makespans = malloc((size_t)seeds * sizeof *w[i].makespans);
    if (!w[i].items || !w[i].makespans) {
      workers_free(w, i + 1);
      w = NULL;
    }
  }
  if (!w) fs_error_set(err, "out of memory for %d sweep threads", count);
  return w;
}

static int thread_count(const fs_sweep_grid *g, int64_t jobs) {
  long threads = g->threads > 0 ? g->threads : sysconf(_SC_NPROCESSORS_ONLN);
  if (threads < 1) threads = 1;
  if (threads > jobs) threads = (long)(jobs > 0 ? jobs : 1);
  return (int)threads;
}

/* Starts the threads, shows the progress until they end, joins them. */
static int run_threads(sweep *s, sweep_worker *w, int threads, fs_error *err) {
  pthread_t *ids = malloc((size_t)threads * sizeof *ids);
  if (!ids) return fs_error_set(err, "out of memory for %d threads", threads);
  int started = 0, error = 0;
  atomic_store(&s->active, threads);
  for (; started < threads; started++)
    if ((error = pthread_create(&ids[started], NULL, thread_main, &w[started])) != 0) break;
  atomic_fetch_sub(&s->active, threads - started);
  if (started == 0) {
    free(ids);
    return fs_error_set(err, "cannot start a thread: %s", strerror(error));
  }
  fs_progress *bar = fs_progress_new_rated("cells", s->results->count, s->grid->progress, stderr);
  while (bar && atomic_load(&s->active) > 0) {
    nanosleep(&(struct timespec){0, 50000000L}, NULL);
    fs_progress_update(bar, atomic_load(&s->done_cells));
  }
  for (int i = 0; i < started; i++) pthread_join(ids[i], NULL);
  fs_progress_done(bar);
  free(ids);
  return 0;
}

int fs_sweep_run(const fs_sweep_grid *grid, fs_sweep_results *out, fs_error *err) {
  memset(out, 0, sizeof *out);
  if (check_grid(grid, err) || allocate_cells(grid, out, err)) return -1;
  sweep s = {.grid = grid, .results = out};
  atomic_init(&s.next, 0);
  atomic_init(&s.done_cells, 0);
  atomic_init(&s.failed_at, INT64_MAX);
  atomic_init(&s.active, 0);
  int status = make_jobs(&s, err);
  int threads = thread_count(grid, s.job_count);
  sweep_worker *w = status ? NULL : workers_new(&s, threads, err);
  if (!w) status = -1;
  pthread_mutex_init(&s.lock, NULL);
  if (status == 0 && s.job_count > 0) status = run_threads(&s, w, threads, err);
  pthread_mutex_destroy(&s.lock);
  if (status == 0 && atomic_load(&s.failed_at) != INT64_MAX)
    status = fs_error_set(err, "%s", s.failure.message);
  workers_free(w, threads);
  free(s.jobs);
  if (status) fs_sweep_results_free(out);
  return status;
}

void fs_sweep_results_free(fs_sweep_results *results) {
  free(results->cells);
  results->cells = NULL;
  results->count = 0;
}
