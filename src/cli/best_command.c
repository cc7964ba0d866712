/* best_command.c: `fennelsim best COLLECTIVE --ranks N ...`: which
 * algorithm of a collective is fastest at N ranks, by simulation. The
 * candidates are every algorithm of the collective in the family (MPI's,
 * or NCCL's under --model nccl; --family) with the option values worth
 * trying (study/best.h), and for allreduce recursive multiplying's
 * schedules (the Fennel thesis §5.4.4: the heuristic's and the cheapest
 * --candidates under the cost model, a pre-filter only); MPICH's and Open
 * MPI's selectors, or NCCL's, run as extra cells. Each size is one sweep
 * (study/sweep.h) over the candidates, in memory and in parallel; --sizes
 * prints the decision table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generators/rm_schedule.h"
#include "io/atomic_file.h"
#include "models/model_registry.h"
#include "noise/noise.h"
#include "platform/nccl_tuning.h"
#include "study/best.h"
#include "study/sweep.h"
#include "cli/data_roots.h"
#include "cli/options.h"
#include "cli/platform_options.h"

static const char best_usage[] =
    "usage: fennelsim best COLLECTIVE --ranks N [options]\n"
    "  COLLECTIVE             bcast, reduce, allreduce, allgather, alltoall, scatter, gather,\n"
    "                         barrier or reduce-scatter: every algorithm of it (fennelsim gen\n"
    "                         --list) with the option values worth trying (segments, ways;\n"
    "                         NCCL's channels and protocols)\n"
    "  --ranks N              rank count, 1 to 4096\n"
    "  --size S               --size of the collective, as gen takes it (default 8B)\n"
    "  --sizes LIST           sizes or ranges (8B,1KiB,1MiB or 8B..1MiB*4): the decision\n"
    "                         table, one row per size\n"
    "  --model NAME           network model, as for run (default pipelined)\n"
    "  --family mpi|gpu|all   whose algorithms: MPI's (with MPICH's and Open MPI's picks),\n"
    "                         NCCL's (with NCCL's pick) or both (default: gpu under the\n"
    "                         nccl model, else mpi)\n"
    "  --max-channels C       NCCL's generators: channels 1, 2, 4, ... up to C, each with\n"
    "                         LL, LL128 and Simple (1 to 64; default NCCL's channels on a\n"
    "                         typical machine of the model's gpu (Hopper without one): 24\n"
    "                         on one node (Blackwell 32), 16 on more)\n"
    "  --param KEY=VALUE      model parameter, repeatable, as for run\n"
    "  --compute NAME         compute model, as for run (default fixed)\n"
    "  --nodes M --cores Q --mapping seq|rr, or --platform FILE.xml\n"
    "                         the platform (models and SMP-aware algorithms read it)\n"
    "  --noise KIND=DIST      noise, as for run (also --noise-rank, --noise-trace)\n"
    "  --seed S               the noise's seed (default 1); with --seeds, the first seed\n"
    "  --seeds N              N runs per candidate, seeds S .. S+N-1\n"
    "  --rank-by median|mean|p99   the statistic of the seeds' makespans that ranks\n"
    "                         (default median; needs --seeds)\n"
    "  --threads T            threads (default: all cores); the output does not depend on T\n"
    "  --check                prove every schedule with the data-flow checker first\n"
    "  --candidates C         allreduce: recursive-multiplying schedules simulated at most\n"
    "                         (default 300): the C cheapest under the cost model with\n"
    "                         c = alpha_p/alpha_r (pipelined's --param alpha_p/alpha_r, else\n"
    "                         Table 4.1 at the size; 0 under hockney), plus the heuristic's\n"
    "  --top K                entries printed per size (default 20 for text, all for json\n"
    "                         and csv; 0: all)\n"
    "  --format text|json|csv output (default text); csv: a row per candidate and size\n"
    "  -o FILE                write the output to FILE (default: standard output)\n";

typedef struct best_options {
  const char *collective, *model, *compute, *format, *output, *rank_by, *family_text;
  fs_collective kind;
  fs_family family;
  int32_t ranks, nodes; /* nodes: the platform's (each rank one without it) */
  int64_t max_channels; /* 0: not given */
  int64_t *sizes;
  int size_count, size_given, top_given, model_default, check;
  int64_t candidates, top, seeds, threads, seed;
  fs_platform_text platform;
  fs_noise *noise;
  fs_parameters params;
} best_options;

static int parse_size(best_options *o, const char *v, fs_error *err) {
  int64_t size;
  int status = fs_parse_size(v, strlen(v), &size);
  if (status == FS_PAST_LIMIT)
    return fs_error_set(err, "--size %s: expected a size up to %s", v, FS_SIZE_LIMIT_TEXT);
  if (status) return fs_error_set(err, "--size %s: expected a size such as 8B, 4KiB or 1MB", v);
  o->sizes[0] = size, o->size_count = 1, o->size_given = 1;
  return 0;
}

/* The options of noise and of the runs per candidate: 1 taken, 0 not, -1. */
static int parse_run_option(int argc, char **argv, int *i, best_options *o, fs_error *err) {
  static const char *const names[] = {"--noise", "--noise-rank", "--noise-trace", "--seed",
                                      "--seeds", "--threads",    "--rank-by"};
  for (int k = 0; k < 7; k++) {
    const char *v;
    int m = fs_option(argc, argv, i, names[k], &v, err);
    if (m <= 0) {
      if (m < 0) return -1;
      continue;
    }
    switch (k) {
      case 0: return fs_noise_add(o->noise, v, err) ? -1 : 1;
      case 1: return fs_noise_add_rank(o->noise, v, err) ? -1 : 1;
      case 2: return fs_noise_read_trace(o->noise, v, err) ? -1 : 1;
      case 3: return fs_option_count("--seed", v, 0, INT64_MAX, &o->seed, err) ? -1 : 1;
      case 4: return fs_option_count("--seeds", v, 1, (int64_t)1 << 30, &o->seeds, err) ? -1 : 1;
      case 5: return fs_option_count("--threads", v, 1, 4096, &o->threads, err) ? -1 : 1;
      default:
        if (fs_best_rank_by_find(v) < 0)
          return fs_error_set(err, "--rank-by %s: expected median, mean or p99", v);
        o->rank_by = v;
        return 1;
    }
  }
  return 0;
}

static int parse_option(int argc, char **argv, int *i, best_options *o, fs_error *err) {
  const char *v = NULL;
  int64_t number;
  int m;
  if (strcmp(argv[*i], "--check") == 0) {
    o->check = m = 1;
  } else if ((m = fs_option(argc, argv, i, "--ranks", &v, err))) {
    if (m < 0 || fs_option_count("--ranks", v, 1, 4096, &number, err)) return -1;
    o->ranks = (int32_t)number;
  } else if ((m = fs_option(argc, argv, i, "--model", &v, err))) {
    o->model = v, o->model_default = 0;
  } else if ((m = fs_option(argc, argv, i, "--compute", &v, err))) {
    o->compute = v;
  } else if ((m = fs_option(argc, argv, i, "--family", &v, err))) {
    if (m > 0 && fs_family_find(v) < 0)
      return fs_error_set(err, "--family %s: expected mpi, gpu or all", v);
    o->family_text = v;
  } else if ((m = fs_option(argc, argv, i, "--max-channels", &v, err))) {
    if (m < 0 ||
        fs_option_count("--max-channels", v, 1, FS_NCCL_MAX_CHANNELS, &o->max_channels, err))
      return -1;
  } else if ((m = fs_option(argc, argv, i, "--format", &v, err))) {
    o->format = v;
  } else if ((m = fs_option(argc, argv, i, "-o", &v, err))) {
    o->output = v;
  } else if ((m = fs_option(argc, argv, i, "--param", &v, err))) {
    if (m < 0 || fs_option_param(&o->params, v, err)) return -1;
  } else if ((m = fs_option(argc, argv, i, "--size", &v, err))) {
    if (m < 0 || parse_size(o, v, err)) return -1;
  } else if ((m = fs_option(argc, argv, i, "--sizes", &v, err))) {
    free(o->sizes);
    o->sizes = NULL;
    if (m < 0 || fs_option_sizes("--sizes", v, &o->sizes, &o->size_count, err)) return -1;
  } else if ((m = fs_option(argc, argv, i, "--candidates", &v, err))) {
    if (m < 0 || fs_option_count("--candidates", v, 1, 100000, &o->candidates, err)) return -1;
  } else if ((m = fs_option(argc, argv, i, "--top", &v, err))) {
    if (m < 0 || fs_option_count("--top", v, 0, 1 << 30, &o->top, err)) return -1;
    o->top_given = 1;
  } else if (!(m = fs_platform_text_option(argc, argv, i, &o->platform, err))) {
    m = parse_run_option(argc, argv, i, o, err);
  }
  return m;
}

static const char example[] = "(e.g. fennelsim best allreduce --ranks 16 --size 1KiB --model "
                              "hockney)";

/* What the options say together. */
static int check_options(best_options *o, fs_error *err) {
  if (!o->collective)
    return fs_error_set(err,
                        "no collective named: best searches bcast, reduce, allreduce, allgather, "
                        "alltoall, scatter, gather, barrier or reduce-scatter %s",
                        example);
  o->kind = fs_collective_from_name(o->collective);
  if (o->kind == FS_COLLECTIVE_NONE)
    return fs_error_set(err,
                        "best %s: expected a collective: bcast, reduce, allreduce, allgather, "
                        "alltoall, scatter, gather, barrier or reduce-scatter",
                        o->collective);
  if (o->ranks == 0)
    return fs_error_set(err, "--ranks is required: the rank count to search at %s", example);
  if (o->size_given && o->size_count > 1)
    return fs_error_set(err, "--size and --sizes: give one or the other");
  if (strcmp(o->format, "text") != 0 && strcmp(o->format, "json") != 0 &&
      strcmp(o->format, "csv") != 0)
    return fs_error_set(err, "--format %s: expected text, json or csv", o->format);
  if (o->rank_by && o->seeds < 2)
    return fs_error_set(err, "--rank-by %s needs --seeds N (N >= 2): one run has one makespan",
                        o->rank_by);
  if (!o->top_given) o->top = strcmp(o->format, "text") != 0 ? 0 : 20;
  if (fs_platform_text_check(&o->platform, err)) return -1;
  fs_platform *platform = fs_platform_text_build(&o->platform, o->ranks, err);
  if (!platform && fs_platform_text_given(&o->platform)) return -1;
  o->nodes = platform ? platform->used_nodes : o->ranks;
  fs_platform_free(platform);
  return 0;
}

/* The GPU generation the network model describes (its "gpu" parameter:
 * the nccl model's), else Hopper. */
static fs_nccl_gpu described_gpu(const char *describe) {
  static const char key[] = "\"gpu\": \"";
  const char *at = strstr(describe, key);
  char name[16] = {0};
  if (!at) return FS_NCCL_HOPPER;
  at += sizeof key - 1;
  for (size_t i = 0; i + 1 < sizeof name && at[i] && at[i] != '"'; i++) name[i] = at[i];
  int gpu = fs_nccl_gpu_find(name);
  return gpu < 0 ? FS_NCCL_HOPPER : (fs_nccl_gpu)gpu;
}

/* The family (given, else the network model's) and NCCL's channel bound
 * (given, else the communicator's on a typical machine of the model's GPU
 * generation: twice the graph's channels, on one node 12 (Volta, Ampere,
 * Hopper) or 16 (Blackwell), 8 on more). */
static int choose_family(best_options *o, const char *network, const char *describe,
                         fs_error *err) {
  o->family = o->family_text ? (fs_family)fs_family_find(o->family_text)
                             : fs_family_of_model(network);
  if (o->max_channels && !(o->family & FS_FAMILY_GPU))
    return fs_error_set(err, "--max-channels: NCCL's generators are not searched in the mpi family "
                             "(--family gpu or all, or --model nccl)");
  if (fs_algorithm_variants(o->kind, o->family, 0, NULL, 0) == 0)
    return fs_error_set(err,
                        "best %s: no algorithm in the %s family (--family all takes every one)",
                        o->collective, fs_family_name(o->family));
  if (!o->max_channels)
    o->max_channels =
        2 * fs_nccl_typical_call(FS_NCCL_ALLREDUCE, o->ranks, o->nodes, described_gpu(describe), 0)
                .channels;
  return 0;
}

static int parse_best_options(int argc, char **argv, best_options *o, fs_error *err) {
  *o = (best_options){.model = "pipelined",
                      .compute = "fixed",
                      .format = "text",
                      .candidates = 300,
                      .seed = 1,
                      .model_default = 1,
                      .noise = fs_noise_new(),
                      .sizes = malloc(sizeof(int64_t))};
  if (!o->noise || !o->sizes) return fs_error_set(err, "out of memory");
  o->sizes[0] = 8, o->size_count = 1;
  for (int i = 2; i < argc; i++) {
    int m = parse_option(argc, argv, &i, o, err);
    if (m < 0) return -1;
    if (m) continue;
    if (argv[i][0] == '-' && argv[i][1] != 0)
      return fs_option_unknown(err, "best", argv[i], best_usage);
    if (o->collective)
      return fs_error_set(err, "one collective at a time (got %s and %s)", o->collective, argv[i]);
    o->collective = argv[i];
  }
  if (check_options(o, err)) return -1;
  const fs_named_path outputs[] = {{"-o", o->output}};
  return fs_option_check_outputs(argc, argv, outputs, 1, err);
}

/* The pre-filter's c: the user's pipelined alpha_p/alpha_r, 0 under
 * hockney (a put blocks until it lands: no pipelining), else Table 4.1 at
 * the message size. Reads the parameters without marking them used. */
static double filter_ratio(const best_options *o, int64_t size) {
  if (strcmp(o->model, "hockney") == 0) return 0;
  fs_time alpha_p = -1, alpha_r = -1;
  for (int i = 0; i < o->params.count && strcmp(o->model, "pipelined") == 0; i++) {
    const fs_parameter *p = &o->params.items[i];
    fs_time *slot = strcmp(p->key, "alpha_p") == 0   ? &alpha_p
                    : strcmp(p->key, "alpha_r") == 0 ? &alpha_r
                                                     : NULL;
    if (slot && fs_parse_time(p->value, strlen(p->value), 0, slot)) *slot = -1;
  }
  if (alpha_p >= 0 && alpha_r > 0) return (double)alpha_p / (double)alpha_r;
  return fs_rm_archer_ratio(size);
}

/* The models built once from the user's parameters and the platform's, so
 * a bad model or parameter fails before any cell runs; the network
 * model's description for the report. */
static int check_models(best_options *o, char *describe, size_t size, fs_error *err) {
  fs_parameters checked = {0};
  fs_network_model network = {0};
  fs_compute_model compute = {0};
  int status = -1;
  for (int i = 0; i < o->params.count; i++)
    if (fs_option_param_pair(&checked, o->params.items[i].key, o->params.items[i].value, err))
      goto done;
  if (fs_platform_text_params(&o->platform, &checked, err) ||
      fs_network_model_create(o->model, &checked, &network, err) ||
      fs_compute_model_create(o->compute, &checked, &compute, err))
    goto done;
  fs_platform_params_taken(&checked);
  if (fs_parameters_check_used(&checked, err)) goto done;
  fs_network_model_describe(&network, describe, size);
  status = choose_family(o, network.name, describe, err);
done:
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&compute);
  fs_option_params_free(&checked);
  return status;
}

/* One size: its candidates, one sweep over them, the ranking. */
static int search_size(const best_options *o, const fs_sweep_model *model,
                       const fs_sweep_platform *platform, int64_t size, fs_best_size *s,
                       fs_error *err) {
  *s = (fs_best_size){.size = size};
  if (fs_best_candidates_build(o->kind, o->family, (int32_t)o->max_channels, o->ranks,
                               filter_ratio(o, size), (int)o->candidates, &s->candidates, err))
    return -1;
  fs_sweep_grid grid = {.algorithms = s->candidates.specs,
                        .algorithm_count = s->candidates.count,
                        .ranks = &o->ranks,
                        .rank_count = 1,
                        .sizes = &size,
                        .size_count = 1,
                        .models = model,
                        .model_count = 1,
                        .platforms = platform,
                        .platform_count = platform ? 1 : 0,
                        .noise = fs_noise_active(o->noise) ? o->noise : NULL,
                        .seeds = o->seeds ? o->seeds : 1,
                        .base_seed = (uint64_t)o->seed,
                        .check = o->check,
                        .threads = (int)o->threads,
                        .progress = isatty(STDERR_FILENO)};
  fs_sweep_results results = {0};
  if (fs_sweep_run(&grid, &results, err)) return -1;
  s->cells = malloc((size_t)s->candidates.count * sizeof *s->cells);
  if (!s->cells) {
    fs_sweep_results_free(&results);
    return fs_error_set(err, "out of memory");
  }
  for (int32_t a = 0; a < s->candidates.count; a++)
    s->cells[a] = results.cells[fs_sweep_index(&grid, a, 0, 0, 0, 0)];
  fs_sweep_results_free(&results);
  return fs_best_rank(s, (fs_best_rank_by)fs_best_rank_by_find(o->rank_by ? o->rank_by : "median"),
                      grid.seeds, err);
}

static void platform_label(const fs_platform_text *t, char *out, size_t size) {
  out[0] = 0;
  if (t->file)
    snprintf(out, size, "%s%s%s", t->file, t->mapping ? ", " : "", t->mapping ? t->mapping : "");
  else if (fs_platform_text_given(t))
    snprintf(out, size, "%s nodes x %s cores, %s", t->nodes ? t->nodes : "1",
             t->cores ? t->cores : "ceil(ranks / nodes)", t->mapping ? t->mapping : "seq");
}

/* Every size searched, then the report written. */
static int search_and_report(best_options *o, const char *describe, fs_error *err) {
  fs_sweep_model model = {.network = o->model, .compute = o->compute, .params = o->params};
  snprintf(model.label, sizeof model.label, "%s", o->model);
  fs_sweep_platform platform = {o->platform.nodes, o->platform.cores, o->platform.mapping,
                                o->platform.file, ""};
  char where[300], noise[1024];
  platform_label(&o->platform, where, sizeof where); /* the report's; the sweep's is cut */
  platform_label(&o->platform, platform.label, sizeof platform.label);
  fs_noise_spec(o->noise, noise, sizeof noise);
  fs_best_size *sizes = calloc((size_t)o->size_count, sizeof *sizes);
  if (!sizes) return fs_error_set(err, "out of memory"), FS_EXIT_USAGE;
  int status = FS_EXIT_OK;
  for (int i = 0; i < o->size_count && status == FS_EXIT_OK; i++)
    if (search_size(o, &model, fs_platform_text_given(&o->platform) ? &platform : NULL, o->sizes[i],
                    &sizes[i], err))
      status = fs_exit_status_for(err, FS_EXIT_SIMULATION);
  fs_best_report r = {.collective = o->collective,
                      .model = o->model,
                      .compute = o->compute,
                      .model_parameters = describe,
                      .platform = where,
                      .noise = noise,
                      .model_default = o->model_default,
                      .ranks = o->ranks,
                      .seeds = o->seeds ? o->seeds : 1,
                      .seed = (uint64_t)o->seed,
                      .rank_by = fs_best_rank_by_find(o->rank_by ? o->rank_by : "median"),
                      .top = o->top,
                      .table = o->size_count > 1,
                      .check = o->check,
                      .family = o->family,
                      .max_channels = (int32_t)o->max_channels,
                      .format = o->format,
                      .sizes = sizes,
                      .size_count = o->size_count};
  fs_output *out = status == FS_EXIT_OK ? fs_output_open(o->output ? o->output : "-", err) : NULL;
  if (status == FS_EXIT_OK && !out) status = fs_exit_status_for(err, FS_EXIT_SIMULATION);
  if (out) {
    fs_best_write(out, &r);
    if (fs_output_commit(out, err)) status = fs_exit_status_for(err, FS_EXIT_SIMULATION);
  }
  for (int i = 0; i < o->size_count; i++) fs_best_size_free(&sizes[i]);
  free(sizes);
  return status;
}

int fs_command_best(int argc, char **argv) {
  if (fs_wants_help(argc, argv, best_usage)) return FS_EXIT_OK;
  fs_error err = {{0}};
  best_options o;
  int status = FS_EXIT_USAGE;
  fs_cli_data data = {0};
  char describe[512];
  if (parse_best_options(argc, argv, &o, &err) || fs_cli_data_open(&data, &err) ||
      fs_cli_data_find_model(&data, &o.model, &err) ||
      fs_cli_data_find_params(&data, &o.params, &err) ||
      check_models(&o, describe, sizeof describe, &err) || fs_noise_prepare(o.noise, o.ranks, &err))
    goto done;
  status = search_and_report(&o, describe, &err);
done:
  if (status != FS_EXIT_OK) fprintf(stderr, "fennelsim best: %s\n", err.message);
  fs_noise_free(o.noise);
  free(o.sizes);
  fs_option_params_free(&o.params);
  fs_cli_data_close(&data);
  return status;
}
