/* run_command.c: `fennelsim run FILE --model NAME ...`: read a schedule,
 * build the models, run the engine with the chosen instruments, report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/deadlock_report.h"
#include "core/engine.h"
#include "io/atomic_file.h"
#include "formats/schedule_reader.h"
#include "instruments/report.h"
#include "instruments/timeline.h"
#include "models/model_catalog.h"
#include "models/model_registry.h"
#include "models/platform_parameters.h"
#include "noise/noise.h"
#include "cli/data_roots.h"
#include "cli/options.h"
#include "cli/run_replay.h"
#include "cli/run_study.h"
#include "cli/run_views.h"
#include "cli/platform_options.h"
#include "io/progress.h"

#include <unistd.h>
#include "study/merge.h"

static const char run_usage[] =
    "usage: fennelsim run FILE... [options]\n"
    "  FILE                   a schedule: .dag[.gz] or LogGOPSim GOAL .goal[.gz] (\"-\", stdin,\n"
    "                         and other names: by the first line, 'fennel-dag 1' or num_ranks),\n"
    "                         or LogGOPSim's binary GOAL .bin (txt2bin's output; also by its\n"
    "                         magic number);\n"
    "                         or a recorded MPI execution: a directory of per-rank traces\n"
    "                         (fennelsim's tracer, liballprof) or an OTF2 archive, or the\n"
    "                         per-rank files (also SimGrid's time-independent traces)\n"
    "  --model NAME           network model (default pipelined): one listed below, or a\n"
    "                         model file: NAME.xml or models/NAME.xml (its parameters;\n"
    "                         --param values override them)\n"
    "  --compute NAME         compute model: fixed, rate, gamma (default fixed)\n"
    "  --param KEY=VALUE      model parameter, repeatable (each model's keys below); times\n"
    "                         take units (ps ns us ms s), sizes B KiB MB..., per-byte costs a\n"
    "                         time (0.4ns) or a bandwidth (10GB/s)\n"
    "  --nodes M --cores Q --mapping seq|rr, or --platform FILE.xml\n"
    "                         the platform: ranks on nodes (taulop uses it; under every\n"
    "                         model concurrent=1 tasks take free cores of their node)\n"
    "  --noise KIND=DIST      noise on every rank: host (CPU occupations), net (transfer\n"
    "                         latency) or compute; DIST as lognormal:mu=0,sigma=0.2, with\n"
    "                         mode=mul (default: d*X) or mode=add (d+X, X in ns); kinds:\n"
    "                         normal, lognormal, gamma, exponential, uniform, beta-prime,\n"
    "                         constant, empirical:file=PATH\n"
    "  --noise-rank R:KIND=DIST   the same for rank R (or R1-R2) only, replacing --noise\n"
    "  --noise-trace FILE     OS-noise detours (`start duration` lines, ns): every CPU is\n"
    "                         unavailable during them, each rank at an offset drawn from the seed\n"
    "  --seed S               the noise's seed (default 1); with --seeds, the first seed\n"
    "  --seeds N              a Monte-Carlo study: N runs, seeds S .. S+N-1, reported as\n"
    "                         distributions (min, p25, median, mean, p75, p95, p99, max, stdev)\n"
    "  --threads T            study threads (default: all cores); results do not depend on T\n"
    "  --samples FILE.csv     one row per seed (seed, makespan, finish per rank), streamed\n"
    "  --histogram FILE.svg   the makespan distribution, drawn\n"
    "  --shard I/N            run only seed indices I, I+N, ... (job arrays; fennelsim merge)\n"
    "  --format text|json|csv output (default text); csv: a header and one row (input,\n"
    "                         models and parameters, noise, seed, makespan_ns, events, wall_s)\n"
    "  --timeline FILE.csv    record every task's ready/start/end times\n"
    "  --svg FILE.svg         draw the run: a lane per rank, boxes and message arrows\n"
    "                         (up to 64 lanes; --svg-ranks A-B picks them)\n"
    "  --chrome FILE.json     a Chrome trace (Perfetto, chrome://tracing): a process per\n"
    "                         node, a thread per rank, flows for messages\n"
    "  --bandwidth            per transfer, rank and link: bytes, busy time, bandwidth\n"
    "  --critical-path        the chain that sets the makespan: CPU, latency, bandwidth,\n"
    "                         contention and waiting for a busy rank\n"
    "  --channel-load         contention models: tau per channel instance (max, mean, time\n"
    "                         at each tau); --channel-csv FILE.csv writes it\n"
    "  --link-load            flow models: per link bytes, busy time, peak and mean flows,\n"
    "                         utilization, peak rate; --link-csv FILE.csv writes its load\n"
    "                         over time\n"
    "  --stuck-limit N        unmatched sends/recvs and waiting tasks listed in a deadlock\n"
    "                         report (default 20 of each)\n" FS_REPLAY_USAGE;

typedef struct run_options {
  const char **inputs;
  int input_count;
  fs_replay_options replay;
  const char *input, *model, *compute, *format, *timeline;
  int model_default; /* --model omitted */
  fs_platform_text platform;
  fs_views_options views;
  int64_t stuck_limit;
  fs_parameters params;
  fs_noise *noise;
  int64_t seeds, threads, shard_index, shard_count;
  uint64_t seed;
  const char *samples, *histogram;
  fs_cli_data data; /* where inputs, model and platform files were found */
} run_options;

/* --noise, --noise-rank, --noise-trace, and the study's options: 1 when
 * argv[*i] was one of them, 0 when not, -1 on error. */
static int study_option(run_options *o, int argc, char **argv, int *i, fs_error *err) {
  static const char *const names[] = {"--noise",   "--noise-rank", "--noise-trace",
                                      "--seed",    "--seeds",      "--threads",
                                      "--samples", "--histogram",  "--shard"};
  const char *v = NULL;
  int m = 0, which = 0;
  for (; which < (int)(sizeof names / sizeof names[0]) && !m; which++)
    m = fs_option(argc, argv, i, names[which], &v, err);
  if (m <= 0) return m;
  int64_t number = 0;
  switch (which - 1) {
    case 0: return fs_noise_add(o->noise, v, err) ? -1 : 1;
    case 1: return fs_noise_add_rank(o->noise, v, err) ? -1 : 1;
    case 2: return fs_noise_read_trace(o->noise, v, err) ? -1 : 1;
    case 3:
      if (fs_option_count("--seed", v, 0, INT64_MAX, &number, err)) return -1;
      o->seed = (uint64_t)number;
      return 1;
    case 4: return fs_option_count("--seeds", v, 1, (int64_t)1 << 40, &o->seeds, err) ? -1 : 1;
    case 5: return fs_option_count("--threads", v, 1, 4096, &o->threads, err) ? -1 : 1;
    case 6: o->samples = v; return 1;
    case 7: o->histogram = v; return 1;
    default: return fs_study_parse_shard(v, &o->shard_index, &o->shard_count, err) ? -1 : 1;
  }
}

static int parse_run_options(int argc, char **argv, run_options *o, fs_error *err) {
  *o = (run_options){.model = "pipelined",
                     .model_default = 1,
                     .compute = "fixed",
                     .format = "text",
                     .stuck_limit = 20,
                     .seed = 1,
                     .shard_count = 1,
                     .noise = fs_noise_new(),
                     .inputs = calloc((size_t)argc, sizeof *o->inputs)};
  fs_replay_options_default(&o->replay);
  o->replay.names_on_demand = 1; /* a replay's task names: made when an output shows them */
  if (!o->noise || !o->inputs) return fs_error_set(err, "out of memory");
  for (int i = 2; i < argc; i++) {
    const char *v;
    int m;
    if ((m = fs_option(argc, argv, &i, "--model", &v, err))) {
      if (m < 0) return -1;
      o->model = v, o->model_default = 0;
    } else if ((m = fs_option(argc, argv, &i, "--compute", &v, err))) {
      if (m < 0) return -1;
      o->compute = v;
    } else if ((m = fs_option(argc, argv, &i, "--format", &v, err))) {
      if (m < 0) return -1;
      o->format = v;
    } else if ((m = fs_option(argc, argv, &i, "--timeline", &v, err))) {
      if (m < 0) return -1;
      o->timeline = v;
    } else if ((m = fs_option(argc, argv, &i, "--svg", &v, err))) {
      if (m < 0) return -1;
      o->views.svg = v;
    } else if ((m = fs_option(argc, argv, &i, "--svg-ranks", &v, err))) {
      if (m < 0) return -1;
      o->views.svg_ranks = v;
    } else if ((m = fs_option(argc, argv, &i, "--chrome", &v, err))) {
      if (m < 0) return -1;
      o->views.chrome = v;
    } else if ((m = fs_option(argc, argv, &i, "--channel-csv", &v, err))) {
      if (m < 0) return -1;
      o->views.channel_load = v;
    } else if ((m = fs_option(argc, argv, &i, "--link-csv", &v, err))) {
      if (m < 0) return -1;
      o->views.link_csv = v;
    } else if (strcmp(argv[i], "--bandwidth") == 0)
      o->views.bandwidth = 1;
    else if (strcmp(argv[i], "--critical-path") == 0)
      o->views.critical_path = 1;
    else if (strcmp(argv[i], "--channel-load") == 0)
      o->views.channel_report = 1;
    else if (strcmp(argv[i], "--link-load") == 0)
      o->views.link_report = 1;
    else if ((m = fs_option(argc, argv, &i, "--param", &v, err))) {
      if (m < 0 || fs_option_param(&o->params, v, err)) return -1;
    } else if ((m = fs_platform_text_option(argc, argv, &i, &o->platform, err))) {
      if (m < 0) return -1;
    } else if ((m = study_option(o, argc, argv, &i, err))) {
      if (m < 0) return -1;
    } else if ((m = fs_replay_option(argc, argv, &i, &o->replay, err))) {
      if (m < 0) return -1;
    } else if ((m = fs_option(argc, argv, &i, "--stuck-limit", &v, err))) {
      if (m < 0 || fs_option_count("--stuck-limit", v, 0, 1000000, &o->stuck_limit, err)) return -1;
    } else if (argv[i][0] == '-' && argv[i][1] != 0) {
      return fs_option_unknown(err, "run", argv[i], run_usage);
    } else {
      o->inputs[o->input_count++] = argv[i];
    }
  }
  if (!o->input_count) return fs_error_set(err, "no schedule given (see fennelsim run --help)");
  if (fs_platform_text_check(&o->platform, err) ||
      fs_platform_text_params(&o->platform, &o->params, err) || fs_cli_data_open(&o->data, err) ||
      fs_cli_data_find_all(&o->data, o->inputs, o->input_count, err) ||
      fs_cli_data_find_model(&o->data, &o->model, err) ||
      fs_cli_data_find_params(&o->data, &o->params, err))
    return -1;
  o->input = o->inputs[0];
  if (o->input_count > 1 && !fs_inputs_are_trace(o->inputs, o->input_count))
    return fs_error_set(err, "one schedule at a time (got %s and %s)", o->inputs[0], o->inputs[1]);
  if (strcmp(o->format, "text") != 0 && strcmp(o->format, "json") != 0 &&
      strcmp(o->format, "csv") != 0)
    return fs_error_set(err, "--format %s: expected text, json or csv", o->format);
  if (o->seeds && strcmp(o->format, "csv") == 0) /* a study's rows are its samples */
    return fs_error_set(err, "--format csv is one run's row: with --seeds, --samples FILE.csv "
                             "writes a row per seed");
  if (!o->seeds && (o->threads || o->samples || o->histogram || o->shard_count > 1))
    return fs_error_set(err, "--threads, --samples, --histogram and --shard need --seeds N");
  if (o->seeds && o->shard_index >= o->seeds) /* a shard takes indices I, I+N, ... below seeds */
    return fs_error_set(err,
                        "--shard %lld/%lld: no seed of --seeds %lld falls in this shard "
                        "(its index must be below %lld)",
                        (long long)o->shard_index, (long long)o->shard_count, (long long)o->seeds,
                        (long long)o->seeds);
  const fs_views_options *w = &o->views;
  if (o->seeds && (o->timeline || w->svg || w->chrome || w->critical_path || w->channel_report ||
                   w->channel_load || w->link_report || w->link_csv))
    return fs_error_set(err, "--timeline, --svg, --chrome, --critical-path, --channel-load and "
                             "--link-load show one run: not with --seeds (--bandwidth can)");
  if (w->svg_ranks && !w->svg) return fs_error_set(err, "--svg-ranks needs --svg FILE");
  const fs_named_path outputs[] = {{"--timeline", o->timeline}, {"--svg", w->svg},
                                   {"--chrome", w->chrome},     {"--channel-csv", w->channel_load},
                                   {"--samples", o->samples},   {"--histogram", o->histogram},
                                   {"--link-csv", w->link_csv}};
  return fs_option_check_outputs(argc, argv, outputs, 7, err);
}

/* The platform options, checked for the program whatever the model (a
 * file is parsed, M x Q must hold the ranks), and the note when nothing
 * (neither model nor --chrome) reads them. */
static int check_platform(run_options *o, const fs_program *program, int taken, fs_error *err) {
  fs_platform_text where = o->platform;
  fs_parameter *file = NULL; /* the path the models read: platform=, as it was found */
  for (int i = 0; where.file && i < o->params.count; i++)
    if (strcmp(o->params.items[i].key, "platform") == 0) file = &o->params.items[i];
  if (file) where.file = file->value;
  fs_platform *platform = fs_platform_text_build(&where, program->ranks, err);
  if (!platform && fs_platform_text_given(&o->platform)) return -1;
  fs_platform_free(platform);
  /* --chrome groups the ranks by the platform's nodes: it reads it too */
  fs_platform_text_note(stderr, &o->platform, taken || o->views.chrome, o->model, program);
  return 0;
}

static void free_run_options(run_options *o) {
  free(o->inputs);
  fs_option_params_free(&o->params);
  fs_noise_free(o->noise);
  fs_cli_data_close(&o->data);
}

/* The platform options, as the views need them (--chrome's nodes). */
static void views_platform(run_options *o) {
  for (int i = 0; i < o->params.count; i++) {
    const fs_parameter *p = &o->params.items[i];
    if (strcmp(p->key, "nodes") == 0)
      o->views.nodes = atoll(p->value);
    else if (strcmp(p->key, "cores") == 0)
      o->views.cores = atoll(p->value);
    else if (strcmp(p->key, "mapping") == 0)
      o->views.mapping = p->value;
    else if (strcmp(p->key, "platform") == 0)
      o->views.platform_file = p->value;
  }
}

/* The progress bar of a run: the tasks completed so far (every task
 * completes exactly once, at its remote completion). */
typedef struct run_progress {
  fs_progress *bar;
  int64_t done;
} run_progress;

static void progress_completed(void *state, int32_t task, fs_time t) {
  (void)task, (void)t;
  run_progress *p = state;
  fs_progress_update(p->bar, ++p->done);
}

/* The report's sections after the results: the replay's, then the views'. */
typedef struct run_sections {
  fs_views *views;
  const fs_replay *replay;
  const fs_engine *engine;
} run_sections;

static void sections_text(FILE *out, void *arg) {
  run_sections *s = arg;
  if (s->replay) fs_replay_report_text(out, s->replay, s->engine);
  fs_views_text(out, s->views);
}

static void sections_json(FILE *out, void *arg) {
  run_sections *s = arg;
  if (s->replay) fs_replay_report_json(out, s->replay, s->engine);
  fs_views_json(out, s->views);
}

/* Whether an output shows tasks (their names, their order). */
static int shows_tasks(const run_options *o) {
  const fs_views_options *v = &o->views;
  return o->timeline || v->svg || v->chrome || v->channel_load || v->channel_report ||
         v->link_csv || v->link_report || v->bandwidth || v->critical_path;
}

/* Whether a GOAL file's program may be numbered position by position for
 * its run (fs_program_interleave: the same results, a third less time at
 * scale), as read (FS_READ_INTERLEAVED) or after: not when an output lists
 * tasks or shows them per link (their order would change), nor on a
 * platform (its cores' waiters break ties by task id), nor for a replay or
 * a study (run as they always were). */
static int may_interleave(const run_options *o) {
  if (o->seeds || shows_tasks(o) || fs_platform_text_given(&o->platform)) return 0;
  for (int i = 0; i < o->params.count; i++)
    if (strcmp(o->params.items[i].key, "platform") == 0) return 0;
  return 1;
}

/* Runs with models and instruments ready; returns the exit status. */
static int simulate(run_options *o, fs_program *program, const fs_replay *replay,
                    fs_network_model *network, fs_compute_model *compute, double load_seconds) {
  fs_error err = {{0}};
  fs_engine *engine = fs_engine_new(program, network, compute, &err);
  fs_views *views = NULL;
  int exit_status = FS_EXIT_SIMULATION;
  const fs_noise *noise = fs_noise_active(o->noise) ? o->noise : NULL;
  if (!engine || fs_engine_set_noise(engine, noise, o->seed, &err)) {
    exit_status = fs_exit_status_for(&err, FS_EXIT_SIMULATION);
    goto done;
  }
  if (fs_platform_parameters_place(&o->params, engine, &err)) {
    exit_status = FS_EXIT_USAGE;
    goto done;
  }
  o->views.input = o->input;
  o->views.timeline_csv = o->timeline;
  views_platform(o);
  if (replay && shows_tasks(o) && fs_replay_name_tasks(replay, program)) {
    fs_error_set(&err, "out of memory naming the tasks");
    goto done;
  }
  views = fs_views_open(&o->views, program, network, compute, engine, &err);
  if (!views) {
    exit_status = FS_EXIT_USAGE;
    goto done;
  }
  /* on a terminal only: the observer costs a call per task */
  run_progress progress = {fs_progress_new("simulating", program->tasks, isatty(2), stderr), 0};
  if (progress.bar) {
    fs_observer observer = {.state = &progress, .remote_complete = progress_completed};
    fs_engine_add_observer(engine, &observer);
  }
  double start = fs_seconds_now();
  int status = fs_engine_run(engine, &err);
  double wall = fs_seconds_now() - start;
  fs_progress_done(progress.bar);
  if (status == FS_RUN_REJECTED) exit_status = FS_EXIT_USAGE;
  if (status == FS_RUN_FAILED || status == FS_RUN_REJECTED) goto done;
  if (status == FS_RUN_DEADLOCK) {
    fprintf(stderr, "fennelsim: %s: %s\n", o->input, err.message);
    if (replay && fs_replay_name_tasks(replay, program)) { /* the report shows them */
      fs_error_set(&err, "out of memory naming the tasks");
      goto done;
    }
    fs_task_describer trace = {fs_replay_describe_task, replay}; /* MPI tags, calls */
    fs_engine_report_deadlock(engine, stderr, (int)o->stuck_limit, replay ? &trace : NULL);
    err.message[0] = 0;
  }
  if (fs_views_write(views, engine, &err)) goto done;
  fs_run_summary summary = {.input = o->input,
                            .program = program,
                            .engine = engine,
                            .network = network,
                            .compute = compute,
                            .wall_seconds = wall,
                            .load_seconds = load_seconds,
                            .noise = noise,
                            .seed = o->seed,
                            .model_default = o->model_default,
                            .text_sections = sections_text,
                            .json_members = sections_json,
                            .sections_arg = &(run_sections){views, replay, engine}};
  if (strcmp(o->format, "json") == 0)
    fs_report_json(stdout, &summary);
  else if (strcmp(o->format, "csv") == 0)
    fs_report_csv(stdout, &summary);
  else
    fs_report_text(stdout, &summary);
  if (fs_engine_makespan(engine) >= FS_TIME_LIMIT) /* saturated (docs/MODELS.md, "Limits") */
    fprintf(stderr,
            "fennelsim: note: simulated time reached the limit, %s; times past it are "
            "held at it\n",
            FS_TIME_LIMIT_TEXT);
  exit_status = status == FS_RUN_DEADLOCK ? FS_EXIT_SIMULATION : FS_EXIT_OK;
done:
  if (err.message[0]) exit_status = fs_exit_status_for(&err, exit_status);
  if (err.message[0]) fprintf(stderr, "fennelsim: %s\n", err.message);
  fs_views_free(views);
  fs_engine_free(engine);
  return exit_status;
}

int fs_command_run(int argc, char **argv) {
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(run_usage, stdout);
      fs_model_catalog_print(stdout); /* from the registry's catalog: cannot drift */
      return FS_EXIT_OK;
    }
  fs_error err = {{0}};
  run_options o;
  fs_network_model network = {0};
  fs_compute_model compute = {0};
  fs_program *program = NULL;
  fs_replay *replay = NULL;
  int exit_status = FS_EXIT_USAGE, taken = 0;
  if (parse_run_options(argc, argv, &o, &err) ||
      fs_network_model_create(o.model, &o.params, &network, &err) ||
      fs_compute_model_create(o.compute, &o.params, &compute, &err) ||
      (taken = fs_platform_params_taken(&o.params), fs_parameters_check_used(&o.params, &err)))
    goto done;
  double start = fs_seconds_now();
  if (fs_inputs_are_trace(o.inputs, o.input_count)) {
    replay = fs_replay_read(o.inputs, o.input_count, &o.replay, &err);
    if (replay) program = replay->program, replay->program = NULL;
  } else if (o.replay.algorithms || o.replay.compute_scale != 1 ||
             o.replay.flop_rate != FS_REPLAY_DEFAULT_FLOP_RATE) {
    fs_error_set(&err,
                 "--algo, --compute-scale and --flop-rate apply to recorded executions, not to %s",
                 o.input);
    goto done;
  } else {
    program = fs_schedule_read_showing(o.input, isatty(2) ? stderr : NULL,
                                       may_interleave(&o) ? FS_READ_INTERLEAVED : 0, &err);
  }
  if (!program || fs_noise_prepare(o.noise, program->ranks, &err) ||
      check_platform(&o, program, taken, &err))
    goto done;
  if (o.seeds) {
    fs_study_setup setup = {.input = o.input,
                            .model = o.model,
                            .model_default = o.model_default,
                            .compute = o.compute,
                            .format = o.format,
                            .params = &o.params,
                            .program = program,
                            .noise = fs_noise_active(o.noise) ? o.noise : NULL,
                            .seeds = o.seeds,
                            .base_seed = o.seed,
                            .threads = (int)o.threads,
                            .shard_index = o.shard_index,
                            .shard_count = o.shard_count,
                            .samples = o.samples,
                            .histogram = o.histogram,
                            .bandwidth = o.views.bandwidth};
    exit_status = fs_run_study(&setup, &argc, &argv);
  } else {
    /* a GOAL file not read interleaved (gzip, stdin, another shape); out
     * of memory it stays as read: the same run, slower */
    if (!replay && program->names_implied && may_interleave(&o)) /* (0 when interleaved) */
      (void)fs_program_interleave(program);
    exit_status = simulate(&o, program, replay, &network, &compute, fs_seconds_now() - start);
  }
  err.message[0] = 0;
done:
  if (err.message[0]) fprintf(stderr, "fennelsim: %s\n", err.message);
  fs_program_free(program);
  fs_replay_free(replay);
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&compute);
  free_run_options(&o);
  return exit_status;
}
