/* fit_command.c: `fennelsim probe` (fennelprobe's experiments simulated
 * under a model: fit/probe_simulation.h) and `fennelsim fit` (a model's
 * parameters from such measurements: fit/fit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "fit/probe_simulation.h"
#include "models/model_registry.h"
#include "noise/noise.h"
#include "cli/data_roots.h"
#include "cli/options.h"
#include "cli/platform_options.h"

static const char probe_usage[] =
    "usage: fennelsim probe --model M [options]\n"
    "  fennelprobe's default experiments (docs/PROBE.md) simulated under a model, written\n"
    "  as fennelprobe writes them (`fennelsim fit` reads them)\n"
    "  --model NAME           network model or model file, as for `fennelsim run`\n"
    "  --compute NAME         compute model (memcpy rows are compute tasks; default fixed)\n"
    "  --param KEY=VALUE      model parameter, repeatable (see fennelsim run --help)\n"
    "  --nodes M --cores Q    the machine: M nodes of Q cores, ranks placed in order\n"
    "  --platform FILE.xml    or a platform file (its cores per node place the experiments)\n"
    "  --ranks P              processes (default: M x Q, or 4); 2 to 2048: the experiments'\n"
    "                         cost grows as P^2.4 (some 15 s of CPU at 1024 ranks, 80 s at 2048)\n"
    "  --experiments LIST     only these, of memcpy,roundtrip,ssend,send_call,train,\n"
    "                         multicast,one_to_two,ring (default: all)\n"
    "  --noise KIND=DIST      noise as for `fennelsim run` (also --noise-rank, --noise-trace);\n"
    "                         each row is then simulated --repetitions times (default 30)\n"
    "                         with seeds --seed (default 1), --seed + 1, ...\n"
    "  -o FILE.csv            output (default: standard output)\n";

static const char fit_usage[] =
    "usage: fennelsim fit DATA.csv --model M [options]\n"
    "  a model's parameters from fennelprobe's measurements (or `fennelsim probe`'s)\n"
    "  --model NAME           hockney, hetero-hockney, pipelined, loggops, taulop, lognp (log3p), "
    "lmo\n"
    "  -o MODEL.xml           write the model file (`fennelsim run --model MODEL.xml`)\n"
    "  --median               fit the medians (default: the minima, as the seeds do)\n"
    "  --format text|json     report: parameters, every row's residual and mu (default text)\n";

/* ---- probe ---- */

/* The experiments of P ranks cost about P^2.4 (pairs of ranks, each over
 * collectives of P): 15 s at 1024, so 2048 ranks take about a minute and
 * more would not finish in reasonable time. */
#define PROBE_MAX_RANKS 2048

typedef struct probe_options {
  const char *model, *compute, *output, *experiments;
  fs_parameters params;
  fs_noise *noise;
  int64_t ranks, repetitions, seed;
  fs_platform_text platform;
} probe_options;

static int noise_option(probe_options *o, int argc, char **argv, int *i, fs_error *err) {
  const char *v;
  int m;
  if ((m = fs_option(argc, argv, i, "--noise", &v, err)))
    return m < 0 || fs_noise_add(o->noise, v, err) ? -1 : 1;
  if ((m = fs_option(argc, argv, i, "--noise-rank", &v, err)))
    return m < 0 || fs_noise_add_rank(o->noise, v, err) ? -1 : 1;
  if ((m = fs_option(argc, argv, i, "--noise-trace", &v, err)))
    return m < 0 || fs_noise_read_trace(o->noise, v, err) ? -1 : 1;
  if ((m = fs_option(argc, argv, i, "--seed", &v, err)))
    return m < 0 || fs_option_count("--seed", v, 0, INT64_MAX, &o->seed, err) ? -1 : 1;
  if ((m = fs_option(argc, argv, i, "--repetitions", &v, err)))
    return m < 0 || fs_option_count("--repetitions", v, 1, 1000000, &o->repetitions, err) ? -1 : 1;
  return 0;
}

static int parse_probe(int argc, char **argv, probe_options *o, fs_error *err) {
  *o = (probe_options){.compute = "fixed", .output = "-", .seed = 1, .noise = fs_noise_new()};
  if (!o->noise) return fs_error_set(err, "out of memory");
  for (int i = 2; i < argc; i++) {
    const char *v;
    int m;
    if ((m = fs_option(argc, argv, &i, "--model", &v, err))) {
      if (m < 0) return -1;
      o->model = v;
    } else if ((m = fs_option(argc, argv, &i, "--compute", &v, err))) {
      if (m < 0) return -1;
      o->compute = v;
    } else if ((m = fs_option(argc, argv, &i, "-o", &v, err))) {
      if (m < 0) return -1;
      o->output = v;
    } else if ((m = fs_option(argc, argv, &i, "--experiments", &v, err))) {
      if (m < 0) return -1;
      o->experiments = v;
    } else if ((m = fs_option(argc, argv, &i, "--ranks", &v, err))) {
      if (m < 0 || fs_option_count("--ranks", v, 2, INT32_MAX, &o->ranks, err)) return -1;
    } else if ((m = fs_option(argc, argv, &i, "--param", &v, err))) {
      if (m < 0 || fs_option_param(&o->params, v, err)) return -1;
    } else if ((m = fs_platform_text_option(argc, argv, &i, &o->platform, err)) ||
               (m = noise_option(o, argc, argv, &i, err))) {
      if (m < 0) return -1;
    } else {
      return argv[i][0] == '-'
                 ? fs_option_unknown(err, "probe", argv[i], probe_usage)
                 : fs_error_set(err, "%s: unknown argument (see fennelsim probe --help)", argv[i]);
    }
  }
  if (!o->model) return fs_error_set(err, "probe needs --model M (see fennelsim probe --help)");
  /* the platform options become model parameters (as for run); nodes and
   * cores also size the probe */
  if (fs_platform_text_check(&o->platform, err) ||
      fs_platform_text_params(&o->platform, &o->params, err))
    return -1;
  int64_t nodes = o->platform.node_count, cores = o->platform.core_count;
  if (o->repetitions && !fs_noise_active(o->noise))
    return fs_error_set(err,
                        "--repetitions needs --noise: without noise every repetition is the same");
  if (!o->repetitions) o->repetitions = 30;
  const char *from = o->ranks ? "--ranks" : "--nodes x --cores";
  if (!o->ranks) o->ranks = nodes && cores ? nodes * cores : cores ? cores : 4;
  if (o->ranks < 2 || o->ranks > PROBE_MAX_RANKS)
    return fs_error_set(err,
                        "%lld ranks (%s): the probe takes 2 to %d (its cost grows as P^2.4: "
                        "some 15 s at 1024 ranks)",
                        (long long)o->ranks, from, PROBE_MAX_RANKS);
  const fs_named_path outputs[] = {{"-o", o->output}};
  return fs_option_check_outputs(argc, argv, outputs, 1, err);
}

/* Cores per node of the machine the plan places ranks on. */
static int machine_cores(const probe_options *o, int32_t *cores, fs_error *err) {
  if (!fs_platform_text_given(&o->platform)) {
    *cores = (int32_t)o->ranks; /* one node */
    return 0;
  }
  fs_platform *p = fs_platform_text_build(&o->platform, o->ranks, err);
  if (!p) return -1;
  *cores = p->cores;
  fs_platform_free(p);
  return 0;
}

/* Keeps the plan's rows of the experiments listed. */
static int filter_plan(fs_probe_plan *plan, const char *list, fs_error *err) {
  int keep[FS_EXPERIMENTS] = {0};
  for (const char *at = list;;) {
    const char *comma = strchr(at, ',');
    size_t length = comma ? (size_t)(comma - at) : strlen(at);
    int e = fs_experiment_from_name(at, length);
    if (e < 0)
      return fs_error_set(err,
                          "--experiments %s: expected names from memcpy, roundtrip, ssend, "
                          "send_call, train, multicast, one_to_two, ring (got \"%.*s\")",
                          list, (int)length, at);
    keep[e] = 1;
    if (!comma) break;
    at = comma + 1;
  }
  int64_t kept = 0;
  for (int64_t i = 0; i < plan->count; i++)
    if (keep[plan->rows[i].experiment]) plan->rows[kept++] = plan->rows[i];
  plan->count = kept;
  return 0;
}

int fs_command_probe(int argc, char **argv) {
  if (fs_wants_help(argc, argv, probe_usage)) return FS_EXIT_OK;
  fs_error err = {{0}};
  probe_options o;
  fs_network_model network = {0};
  fs_compute_model compute = {0};
  fs_probe_plan plan = {0};
  fs_probe_data *data = NULL;
  int32_t cores = 0;
  int status = FS_EXIT_USAGE;
  fs_cli_data found = {0};
  if (parse_probe(argc, argv, &o, &err) || fs_cli_data_open(&found, &err) ||
      fs_cli_data_find_model(&found, &o.model, &err) ||
      fs_cli_data_find_params(&found, &o.params, &err) ||
      (o.platform.file && fs_cli_data_find(&found, &o.platform.file, &err)) ||
      machine_cores(&o, &cores, &err) ||
      fs_network_model_create(o.model, &o.params, &network, &err) ||
      fs_compute_model_create(o.compute, &o.params, &compute, &err) ||
      (fs_platform_params_taken(&o.params), fs_parameters_check_used(&o.params, &err)) ||
      fs_noise_prepare(o.noise, (int32_t)o.ranks, &err))
    goto done;
  if (fs_probe_plan_default(&plan, (int32_t)o.ranks, cores)) {
    fs_error_set(&err, "out of memory");
    goto done;
  }
  if (o.experiments && filter_plan(&plan, o.experiments, &err)) goto done;
  fs_probe_simulation s = {.network = &network,
                           .compute = &compute,
                           .noise = fs_noise_active(o.noise) ? o.noise : NULL,
                           .seed = (uint64_t)o.seed,
                           .repetitions = o.repetitions,
                           .ranks = (int32_t)o.ranks};
  data = fs_probe_simulate(&s, &plan, &err);
  if (!data) {
    status = FS_EXIT_SIMULATION;
    goto done;
  }
  status = fs_probe_data_write(data, o.output, &err) ? FS_EXIT_SIMULATION : FS_EXIT_OK;
done:
  if (status != FS_EXIT_OK && err.message[0]) fprintf(stderr, "fennelsim: %s\n", err.message);
  fs_probe_data_free(data);
  fs_probe_plan_free(&plan);
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&compute);
  fs_option_params_free(&o.params);
  fs_noise_free(o.noise);
  fs_cli_data_close(&found);
  return status;
}

/* ---- fit ---- */

typedef struct fit_options {
  const char *input, *model, *output, *format;
  fs_fit_options fit;
} fit_options;

static int parse_fit(int argc, char **argv, fit_options *o, fs_error *err) {
  *o = (fit_options){.format = "text"};
  for (int i = 2; i < argc; i++) {
    const char *v;
    int m;
    if ((m = fs_option(argc, argv, &i, "--model", &v, err))) {
      if (m < 0) return -1;
      o->model = v;
    } else if ((m = fs_option(argc, argv, &i, "-o", &v, err))) {
      if (m < 0) return -1;
      o->output = v;
    } else if ((m = fs_option(argc, argv, &i, "--format", &v, err))) {
      if (m < 0) return -1;
      o->format = v;
    } else if (strcmp(argv[i], "--median") == 0)
      o->fit.use_median = 1;
    else if (argv[i][0] == '-' && argv[i][1] != 0)
      return fs_option_unknown(err, "fit", argv[i], fit_usage);
    else if (o->input)
      return fs_error_set(err, "one data file at a time (got %s and %s)", o->input, argv[i]);
    else
      o->input = argv[i];
  }
  if (!o->input) return fs_error_set(err, "no data file given (see fennelsim fit --help)");
  if (!o->model) return fs_error_set(err, "fit needs --model M (one of %s)", fs_fitter_names());
  if (strcmp(o->format, "text") != 0 && strcmp(o->format, "json") != 0)
    return fs_error_set(err, "--format %s: expected text or json", o->format);
  const fs_named_path outputs[] = {{"-o", o->output}};
  return fs_option_check_outputs(argc, argv, outputs, 1, err);
}

int fs_command_fit(int argc, char **argv) {
  if (fs_wants_help(argc, argv, fit_usage)) return FS_EXIT_OK;
  fs_error err = {{0}};
  fit_options o;
  fs_probe_data *data = NULL;
  fs_fit fit;
  fs_fit_init(&fit, "");
  int status = FS_EXIT_USAGE;
  fs_fitter fitter = NULL;
  fs_cli_data found = {0};
  if (parse_fit(argc, argv, &o, &err) || fs_cli_data_open(&found, &err) ||
      fs_cli_data_find(&found, &o.input, &err))
    goto done;
  if (!(fitter = fs_fitter_find(o.model))) {
    fs_error_set(&err, "--model %s: no fitter of that name (known: %s)", o.model,
                 fs_fitter_names());
    goto done;
  }
  fs_fit_init(&fit, o.model);
  if (!(data = fs_probe_data_read(o.input, &err)) || fitter(data, &o.fit, &fit, &err)) goto done;
  /* the model file first: a path that cannot be written fails without a report */
  if (o.output && fs_fit_write_xml(&fit, o.output, &err)) {
    status = FS_EXIT_SIMULATION;
    goto done;
  }
  FILE *report = o.output && strcmp(o.output, "-") == 0 ? stderr : stdout;
  if (strcmp(o.format, "json") == 0)
    fs_fit_report_json(report, &fit, data);
  else
    fs_fit_report_text(report, &fit, data);
  status = FS_EXIT_OK;
done:
  if (status != FS_EXIT_OK && err.message[0]) fprintf(stderr, "fennelsim: %s\n", err.message);
  fs_fit_free(&fit);
  fs_probe_data_free(data);
  fs_cli_data_close(&found);
  return status;
}
