/* sweep_command.c: `fennelsim sweep ALGO... --ranks LIST --size LIST
 * --model M ...`: reads the grid from the command line, runs it in memory
 * (study/sweep.h) and writes the table, CSV or JSON (sweep_report.c) and
 * the plot (study/sweep_plot.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generators/algorithm_spec.h"
#include "io/atomic_file.h"
#include "models/model_registry.h"
#include "noise/noise.h"
#include "cli/data_roots.h"
#include "cli/nccl_tests_report.h"
#include "cli/options.h"
#include "cli/platform_options.h"
#include "cli/sweep_report.h"
#include "study/best.h"
#include "study/sweep.h"
#include "study/sweep_plot.h"

static const char sweep_usage[] =
    "usage: fennelsim sweep ALGO... --ranks LIST [options]\n"
    "  ALGO                   a collective (bcast, reduce, allreduce, allgather, alltoall,\n"
    "                         scatter, gather, barrier, reduce-scatter): each of its\n"
    "                         algorithms with its default options; or an algorithm spec\n"
    "                         NAME[:KEY=VALUE]...\n"
    "                         (allreduce-ring, bcast-chain:segment=32KiB, allreduce-mpich)\n"
    "  --variants             a collective also with the option values a search tries\n"
    "                         (segments 8KiB, 32KiB, 128KiB; ways 2, 3, 4; NCCL's channels\n"
    "                         1 to 16 x LL, LL128, Simple)\n"
    "  --family mpi|gpu|all   whose algorithms a collective stands for: MPI's, NCCL's or\n"
    "                         both (default: the models': gpu when all are nccl, mpi when\n"
    "                         none is, else all)\n"
    "  --ranks LIST           rank counts: 64,128 or ranges 64..4096*2 (times 2) and\n"
    "                         2..64+2 (plus 2), comma separated; 1 to 16777216, at most 4096\n"
    "  --size LIST            sizes (default 8B): 8B,1KiB or ranges 8B..64MiB*4; at most 4096\n"
    "  --model NAME[:K=V,...] network model with its own parameters, repeatable, at most 16\n"
    "                         (default pipelined): --model hockney:alpha=1us,beta=0.1ns\n"
    "  --param KEY=VALUE      a parameter of every model, repeatable (a model's own wins)\n"
    "  --compute NAME         compute model of every cell (default fixed)\n"
    "  --nodes M --cores Q --mapping seq|rr|seq,rr, or --platform FILE.xml\n"
    "                         the platform; with --cores and no --nodes, R ranks take\n"
    "                         ceil(R/Q) nodes; a --mapping list is a grid dimension\n"
    "  --check                prove every generated schedule with the data-flow checker\n"
    "  --seeds N --seed S     N runs per cell with seeds S.. (default 1 run, seed 1): the\n"
    "  --noise KIND=DIST      statistics; --noise and --noise-trace FILE as for run\n"
    "  --rank-by median|mean|p99  the statistic the table and the winner use (default\n"
    "                         median; one run: the makespan)\n"
    "  --threads T            threads (default: all cores); results do not depend on T\n"
    "  --format text|csv|json output (default text): a row per cell, the winner of each\n"
    "                         (collective, ranks, size, model, platform) marked\n"
    "  --no-wall              leave out the wall-clock seconds (the only field that\n"
    "                         differs between runs)\n"
    "  --report nccl-tests    instead of --format: a table per (platform, model, ranks,\n"
    "                         algorithm) in nccl-tests' layout, a row per size\n"
    "  --datatype NAME        its element type (nccl-tests' -d; default float, 4 bytes)\n"
    "  -o FILE                output (default stdout), written whole or not at all\n"
    "  --plot FILE.svg        makespan against size per algorithm, a panel per rank count\n";

#define SWEEP_MODELS_MAX 16
#define SWEEP_RANKS_MAX 4096
#define SWEEP_RANK_LIMIT ((int64_t)1 << 24)
#define SWEEP_ALGORITHMS_MAX 1024
#define SWEEP_CELLS_MAX 1000000
#define SWEEP_SEEDS_MAX ((int64_t)1 << 20)

typedef struct sweep_options {
  const char **names; /* the ALGO arguments */
  int name_count;
  const char *ranks_text, *sizes_text, *compute, *format, *output, *plot, *rank_by_text;
  const char *report, *datatype;                    /* --report nccl-tests, its --datatype */
  const char *family;                               /* --family, or NULL: the models' */
  fs_collective report_kinds[SWEEP_ALGORITHMS_MAX]; /* what each algorithm computes */
  int element;                                      /* the datatype's bytes */
  const char *model_texts[SWEEP_MODELS_MAX];
  int model_count;
  fs_parameters global; /* --param */
  fs_platform_text platform;
  const char *mappings; /* --mapping as typed (a list) */
  int64_t threads, seeds, seed;
  int variants, check, no_wall, noise_given;
  fs_noise *noise;
} sweep_options;

/* An option that takes one value, given twice: refused. */
static int once(const char **slot, const char *name, const char *value, fs_error *err) {
  if (*slot)
    return fs_error_set(err, "%s given twice (%s, then %s): give it once", name, *slot, value);
  *slot = value;
  return 0;
}

typedef struct single_option {
  const char *name;
  size_t offset;
} single_option;

static const single_option singles[] = {
    {"--ranks", offsetof(sweep_options, ranks_text)},
    {"--size", offsetof(sweep_options, sizes_text)},
    {"--compute", offsetof(sweep_options, compute)},
    {"--format", offsetof(sweep_options, format)},
    {"-o", offsetof(sweep_options, output)},
    {"--output", offsetof(sweep_options, output)},
    {"--plot", offsetof(sweep_options, plot)},
    {"--rank-by", offsetof(sweep_options, rank_by_text)},
    {"--mapping", offsetof(sweep_options, mappings)},
    {"--report", offsetof(sweep_options, report)},
    {"--datatype", offsetof(sweep_options, datatype)},
    {"--family", offsetof(sweep_options, family)},
};

/* The options that keep their text: 1 taken, 0 not one of them, -1 error. */
static int single_value(sweep_options *o, int argc, char **argv, int *i, fs_error *err) {
  for (size_t k = 0; k < sizeof singles / sizeof singles[0]; k++) {
    const char *v;
    int m = fs_option(argc, argv, i, singles[k].name, &v, err);
    if (m == 0) continue;
    if (m < 0) return -1;
    const char **slot = (const char **)((char *)o + singles[k].offset);
    return once(slot, strcmp(singles[k].name, "--output") == 0 ? "-o" : singles[k].name, v, err)
               ? -1
               : 1;
  }
  return 0;
}

/* A whole-number option given at most once. */
static int number_option(const char *name, const char *v, int64_t min, int64_t max, int64_t *out,
                         int *given, fs_error *err) {
  if (*given)
    return fs_error_set(err, "%s given twice (%lld, then %s): give it once", name, (long long)*out,
                        v);
  *given = 1;
  return fs_option_count(name, v, min, max, out, err);
}

/* --model NAME[:K=V,...], the one option a sweep repeats that others do
 * not (fs_option refuses a second one): 1 taken, 0 not it, -1 error. */
static int model_option(sweep_options *o, int argc, char **argv, int *i, fs_error *err) {
  const char *arg = argv[*i], *v;
  if (strncmp(arg, "--model", 7) != 0 || (arg[7] && arg[7] != '=')) return 0;
  if (arg[7] == '=')
    v = arg + 8;
  else if (*i + 1 < argc)
    v = argv[++*i];
  else
    return fs_error_set(err, "--model needs a value");
  if (o->model_count == SWEEP_MODELS_MAX)
    return fs_error_set(err, "--model %s: at most %d models", v, SWEEP_MODELS_MAX);
  o->model_texts[o->model_count++] = v;
  return 1;
}

/* --threads, --seeds, --seed, --noise, --noise-trace, --param. */
static int other_value(sweep_options *o, int argc, char **argv, int *i, int given[3],
                       fs_error *err) {
  static const char *const names[] = {"--threads", "--seeds",       "--seed",
                                      "--noise",   "--noise-trace", "--param"};
  const char *v = NULL;
  int m = 0, which = 0;
  for (; which < 6 && !m; which++) m = fs_option(argc, argv, i, names[which], &v, err);
  if (m <= 0) return m ? m : model_option(o, argc, argv, i, err);
  switch (which - 1) {
    case 0: return number_option("--threads", v, 1, 4096, &o->threads, &given[0], err) ? -1 : 1;
    case 1:
      return number_option("--seeds", v, 1, SWEEP_SEEDS_MAX, &o->seeds, &given[1], err) ? -1 : 1;
    case 2: return number_option("--seed", v, 0, INT64_MAX, &o->seed, &given[2], err) ? -1 : 1;
    case 3: o->noise_given = 1; return fs_noise_add(o->noise, v, err) ? -1 : 1;
    case 4: o->noise_given = 1; return fs_noise_read_trace(o->noise, v, err) ? -1 : 1;
    default: return fs_option_param(&o->global, v, err) ? -1 : 1;
  }
}

/* --report nccl-tests and its --datatype (only with it), after --format. */
static int check_report(sweep_options *o, fs_error *err) {
  if (o->report && strcmp(o->report, "nccl-tests"))
    return fs_error_set(err, "--report %s: expected nccl-tests", o->report);
  if (o->report && strcmp(o->format, "text"))
    return fs_error_set(err, "--report nccl-tests and --format %s: give one of them", o->format);
  if (o->datatype && !o->report)
    return fs_error_set(err, "--datatype %s: only --report nccl-tests reads it", o->datatype);
  if (!o->datatype) o->datatype = "float";
  if ((o->element = fs_nccl_tests_type_bytes(o->datatype)) < 0)
    return fs_error_set(err,
                        "--datatype %s: expected int8, uint8, int32, uint32, int64, uint64, "
                        "half, float, double, bfloat16, f8e4m3 or f8e5m2",
                        o->datatype);
  return 0;
}

static int parse_options(int argc, char **argv, sweep_options *o, fs_error *err) {
  *o = (sweep_options){.names = calloc((size_t)argc, sizeof *o->names),
                       .noise = fs_noise_new(),
                       .seeds = 1,
                       .seed = 1};
  if (!o->names || !o->noise) return fs_error_set(err, "out of memory");
  int given[3] = {0, 0, 0};
  for (int i = 2; i < argc; i++) {
    int m;
    if ((m = single_value(o, argc, argv, &i, err)) ||
        (m = other_value(o, argc, argv, &i, given, err))) {
      if (m < 0) return -1;
    } else if (strcmp(argv[i], "--variants") == 0) {
      o->variants = 1;
    } else if (strcmp(argv[i], "--check") == 0) {
      o->check = 1;
    } else if (strcmp(argv[i], "--no-wall") == 0) {
      o->no_wall = 1;
    } else if ((m = fs_platform_text_option(argc, argv, &i, &o->platform, err))) {
      if (m < 0) return -1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return fs_option_unknown(err, "sweep", argv[i], sweep_usage);
    } else {
      o->names[o->name_count++] = argv[i];
    }
  }
  if (!o->compute) o->compute = "fixed";
  if (!o->format) o->format = "text";
  if (!o->name_count)
    return fs_error_set(err, "no algorithm named: give a collective or algorithms (e.g. "
                             "fennelsim sweep allreduce --ranks 4,8 --size 8B..1KiB*4)");
  if (!o->ranks_text)
    return fs_error_set(err, "--ranks is required: the rank counts (e.g. --ranks 64..1024*2)");
  if (strcmp(o->format, "text") && strcmp(o->format, "csv") && strcmp(o->format, "json"))
    return fs_error_set(err, "--format %s: expected text, csv or json", o->format);
  if (o->family && fs_family_find(o->family) < 0)
    return fs_error_set(err, "--family %s: expected mpi, gpu or all", o->family);
  if (check_report(o, err)) return -1;
  const fs_named_path outputs[] = {{"-o", o->output}, {"--plot", o->plot}};
  return fs_option_check_outputs(argc, argv, outputs, 2, err);
}

/* ---- the algorithms ------------------------------------------------------ */

#define SWEEP_VARIANT_CHANNELS 16 /* --variants: NCCL's channels 1, 2, 4, 8, 16 */

/* Appends a collective's algorithms in family (defaults only unless --variants). */
static int add_collective(fs_collective c, fs_family family, int variants, fs_algorithm_spec *out,
                          int *n, fs_error *err) {
  int total = fs_algorithm_variants(c, family, SWEEP_VARIANT_CHANNELS, NULL, 0);
  if (total == 0)
    return fs_error_set(err, "%s: no algorithm in the %s family (--family all takes every one)",
                        fs_collective_name(c), fs_family_name(family));
  fs_algorithm_spec *all = malloc((size_t)(total ? total : 1) * sizeof *all);
  if (!all) return fs_error_set(err, "out of memory");
  fs_algorithm_variants(c, family, SWEEP_VARIANT_CHANNELS, all, total);
  for (int i = 0; i < total; i++) {
    if (!variants && strchr(all[i].text, ':')) continue;
    if (*n == SWEEP_ALGORITHMS_MAX) {
      free(all);
      return fs_error_set(err, "more than %d algorithms", SWEEP_ALGORITHMS_MAX);
    }
    out[(*n)++] = all[i];
  }
  free(all);
  return 0;
}

static int build_algorithms(const sweep_options *o, fs_family family, fs_algorithm_spec **out,
                            int *count, fs_error *err) {
  fs_algorithm_spec *list = malloc(SWEEP_ALGORITHMS_MAX * sizeof *list);
  if (!list) return fs_error_set(err, "out of memory");
  int n = 0;
  for (int k = 0; k < o->name_count; k++) {
    fs_collective c = fs_collective_from_name(o->names[k]);
    int status = 0;
    if (c != FS_COLLECTIVE_NONE)
      status = add_collective(c, family, o->variants, list, &n, err);
    else if (n == SWEEP_ALGORITHMS_MAX)
      status = fs_error_set(err, "more than %d algorithms", SWEEP_ALGORITHMS_MAX);
    else
      status = fs_algorithm_spec_parse(&list[n++], o->names[k], err);
    if (status) {
      free(list);
      return -1;
    }
  }
  *out = list, *count = n;
  return 0;
}

/* ---- the models ---------------------------------------------------------- */

/* "NAME:k=v,k=v" into name (copied into buffer) and params; then the
 * --param values the model does not set itself. */
static int parse_model(const char *text, const fs_parameters *global, char *buffer, size_t size,
                       fs_parameters *params, fs_error *err) {
  size_t length = strcspn(text, ":");
  if (length == 0 || length >= size)
    return fs_error_set(err, "--model %s: expected NAME or NAME:KEY=VALUE,...", text);
  memcpy(buffer, text, length), buffer[length] = 0;
  for (const char *at = text[length] ? text + length + 1 : NULL; at;) {
    size_t n = strcspn(at, ",");
    char pair[512];
    if (n == 0 || n >= sizeof pair)
      return fs_error_set(err, "--model %s: expected KEY=VALUE items after the ':'", text);
    memcpy(pair, at, n), pair[n] = 0;
    if (fs_option_param(params, pair, err)) return -1;
    at = at[n] ? at + n + 1 : NULL;
  }
  for (int i = 0; i < global->count; i++) {
    int own = 0;
    for (int j = 0; j < params->count; j++)
      own |= strcmp(params->items[j].key, global->items[i].key) == 0;
    if (!own && fs_option_param_pair(params, global->items[i].key, global->items[i].value, err))
      return -1;
  }
  return 0;
}

#define SWEEP_MAPPINGS_MAX 4

typedef struct sweep_setup {
  fs_algorithm_spec *algorithms;
  int algorithm_count;
  int32_t *ranks;
  int rank_count;
  int64_t *sizes;
  int size_count;
  fs_sweep_model models[SWEEP_MODELS_MAX];
  char model_names[SWEEP_MODELS_MAX][128];
  fs_parameters model_params[SWEEP_MODELS_MAX];
  int model_count;
  unsigned families; /* the models' (fs_family bits): a collective's default family */
  fs_sweep_platform platforms[SWEEP_MAPPINGS_MAX];
  char mappings[SWEEP_MAPPINGS_MAX][32];
  int platform_count;
  fs_cli_data data;
} sweep_setup;

static void setup_free(sweep_setup *s) {
  free(s->algorithms);
  free(s->ranks);
  free(s->sizes);
  for (int m = 0; m < SWEEP_MODELS_MAX; m++) fs_option_params_free(&s->model_params[m]);
  fs_cli_data_close(&s->data);
}

/* Builds model m's models once on the first platform, so that a bad name
 * or an unknown parameter fails before any cell runs (exit 2). */
static int check_model(sweep_setup *s, int m, const char *compute, fs_error *err) {
  fs_parameters *own = &s->model_params[m];
  int count = own->count;
  fs_parameter items[80];
  if (count + 4 > (int)(sizeof items / sizeof items[0]))
    return fs_error_set(err, "--model %s: too many parameters", s->models[m].label);
  if (count) memcpy(items, own->items, (size_t)count * sizeof *items);
  const fs_sweep_platform *p = s->platform_count ? &s->platforms[0] : NULL;
  const char *keys[4] = {"nodes", "cores", "mapping", "platform"};
  const char *values[4] = {p ? p->nodes : NULL, p ? p->cores : NULL, p ? p->mapping : NULL,
                           p ? p->file : NULL};
  for (int k = 0; k < 4; k++)
    if (values[k]) items[count++] = (fs_parameter){.key = keys[k], .value = values[k]};
  fs_parameters params = {.items = items, .count = count};
  fs_network_model network = {0};
  fs_compute_model comp = {0};
  int status = fs_network_model_create(s->models[m].network, &params, &network, err) ||
               fs_compute_model_create(compute, &params, &comp, err) ||
               (fs_platform_params_taken(&params), fs_parameters_check_used(&params, err));
  if (!status) s->families |= fs_family_of_model(network.name);
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&comp);
  return status ? -1 : 0;
}

static int build_models(const sweep_options *o, sweep_setup *s, fs_error *err) {
  static const char *const fallback[1] = {"pipelined"};
  const char *const *texts = o->model_count ? o->model_texts : fallback;
  s->model_count = o->model_count ? o->model_count : 1;
  for (int m = 0; m < s->model_count; m++) {
    fs_sweep_model *model = &s->models[m];
    if (strlen(texts[m]) >= sizeof model->label)
      return fs_error_set(err, "--model %s: longer than %d bytes", texts[m],
                          (int)sizeof model->label - 1);
    snprintf(model->label, sizeof model->label, "%s", texts[m]);
    const char *name = s->model_names[m];
    if (parse_model(texts[m], &o->global, s->model_names[m], sizeof s->model_names[m],
                    &s->model_params[m], err) ||
        fs_cli_data_find_model(&s->data, &name, err) ||
        fs_cli_data_find_params(&s->data, &s->model_params[m], err))
      return -1;
    model->network = name;
    model->compute = o->compute;
    model->params = s->model_params[m];
    if (check_model(s, m, o->compute, err)) return -1;
  }
  return 0;
}

/* ---- the platforms ------------------------------------------------------- */

/* "16 cores rr", "4 nodes x 16 cores seq", "fat-tree.xml", "" when none. */
static void platform_label(fs_sweep_platform *p) {
  const char *file = p->file ? strrchr(p->file, '/') : NULL;
  file = file ? file + 1 : p->file;
  if (file)
    snprintf(p->label, sizeof p->label, "%s%s%s", file, p->mapping ? " " : "",
             p->mapping ? p->mapping : "");
  else if (p->nodes && p->cores)
    snprintf(p->label, sizeof p->label, "%s nodes x %s cores %s", p->nodes, p->cores, p->mapping);
  else
    snprintf(p->label, sizeof p->label, "%s %s %s", p->nodes ? p->nodes : p->cores,
             p->nodes ? "nodes" : "cores", p->mapping);
}

/* The schedule files of msccl:schedule=PATH, looked up like other data
 * files (the working directory, then the data roots); the label keeps the
 * name as typed. */
static int find_schedules(sweep_setup *s, fs_error *err) {
  for (int a = 0; a < s->algorithm_count; a++) {
    fs_algorithm_spec *spec = &s->algorithms[a];
    if (!(spec->generator->traits & FS_GEN_FILE) || !spec->schedule[0]) continue;
    const char *path = spec->schedule;
    if (fs_cli_data_find(&s->data, &path, err)) return -1;
    if (strlen(path) >= sizeof spec->schedule)
      return fs_error_set(err, "%s: the schedule is found at %s, longer than %zu bytes", spec->text,
                          path, sizeof spec->schedule - 1);
    memmove(spec->schedule, path, strlen(path) + 1);
  }
  return 0;
}

static int build_platforms(sweep_options *o, sweep_setup *s, fs_error *err) {
  fs_platform_text *t = &o->platform;
  if (!fs_platform_text_given(t) && !o->mappings) return 0;
  if (t->file && fs_cli_data_find(&s->data, &t->file, err)) return -1;
  const char *at = o->mappings;
  do {
    size_t n = at ? strcspn(at, ",") : 0;
    if (s->platform_count == SWEEP_MAPPINGS_MAX || (at && (n == 0 || n >= 32)))
      return fs_error_set(err, "--mapping %s: expected seq, rr or a list of up to %d of them",
                          o->mappings, SWEEP_MAPPINGS_MAX);
    char *mapping = s->mappings[s->platform_count];
    snprintf(mapping, 32, "%.*s", (int)n, at ? at : "");
    fs_mapping kind = fs_mapping_from_name(mapping, strlen(mapping));
    if (at && kind != FS_MAPPING_SEQUENTIAL && kind != FS_MAPPING_ROUND_ROBIN)
      return fs_error_set(err,
                          "--mapping %s: '%s': expected seq or rr (sequential or "
                          "round-robin)",
                          o->mappings, mapping);
    t->mapping = at ? mapping : NULL;
    if (fs_platform_text_check(t, err)) return -1;
    fs_sweep_platform *p = &s->platforms[s->platform_count++];
    *p = (fs_sweep_platform){t->nodes, t->cores,
                             at        ? mapping
                             : t->file ? NULL
                                       : "seq",
                             t->file, ""};
    platform_label(p);
    at = at && at[n] ? at + n + 1 : NULL;
  } while (at);
  return 0;
}

/* ---- running and writing ------------------------------------------------- */

/* The plot through a memory stream into an atomic output. */
static int write_plot(const char *path, const fs_sweep_grid *g, const fs_sweep_results *r,
                      int statistic, fs_error *err) {
  char *text = NULL;
  size_t length = 0;
  FILE *memory = open_memstream(&text, &length);
  if (!memory) return fs_error_set(err, "--plot %s: out of memory", path);
  int status = fs_sweep_plot_write(memory, g, r, statistic, err);
  if (fclose(memory) && !status) status = fs_error_set(err, "--plot %s: out of memory", path);
  fs_output *out = status ? NULL : fs_output_open(path, err);
  if (out) {
    fs_output_write(out, text, length);
    status = fs_output_commit(out, err);
  } else {
    status = -1;
  }
  free(text);
  return status;
}

static int write_outputs(const sweep_options *o, const fs_sweep_grid *g, const fs_sweep_results *r,
                         fs_best_rank_by by, fs_error *err) {
  static const int statistic_of[3] = {FS_STAT_MEDIAN, FS_STAT_MEAN, FS_STAT_P99};
  fs_sweep_report report = {.format = o->format, .rank_by = by, .wall = !o->no_wall};
  fs_output *out = fs_output_open(o->output ? o->output : "-", err);
  if (!out) return -1;
  if (o->report)
    fs_nccl_tests_write(out, g, r, o->datatype, o->element, by, o->report_kinds);
  else if (fs_sweep_report_write(out, g, r, &report)) {
    fs_output_abort(out);
    return fs_error_set(err, "%s: out of memory", o->output ? o->output : "stdout");
  }
  if (fs_output_commit(out, err)) return -1;
  return o->plot ? write_plot(o->plot, g, r, statistic_of[by], err) : 0;
}

/* The grid of the options; 0, or -1 with err set (exit 2). */
static int build_grid(sweep_options *o, sweep_setup *s, fs_sweep_grid *g, fs_error *err) {
  if (fs_cli_data_open(&s->data, err) ||
      fs_option_counts("--ranks", o->ranks_text, SWEEP_RANK_LIMIT, SWEEP_RANKS_MAX, &s->ranks,
                       &s->rank_count, err) ||
      fs_option_sizes("--size", o->sizes_text ? o->sizes_text : "8B", &s->sizes, &s->size_count,
                      err) ||
      build_platforms(o, s, err) || build_models(o, s, err))
    return -1;
  fs_family family = o->family ? (fs_family)fs_family_find(o->family) : (fs_family)s->families;
  if (build_algorithms(o, family, &s->algorithms, &s->algorithm_count, err) ||
      find_schedules(s, err))
    return -1;
  int32_t fewest = s->ranks[0];
  for (int r = 1; r < s->rank_count; r++) fewest = s->ranks[r] < fewest ? s->ranks[r] : fewest;
  if (fs_noise_prepare(o->noise, fewest, err)) return -1;
  int64_t cells = (int64_t)s->algorithm_count * s->rank_count * s->size_count * s->model_count *
                  (s->platform_count ? s->platform_count : 1);
  if (cells > SWEEP_CELLS_MAX)
    return fs_error_set(err,
                        "%lld cells (%d algorithms x %d rank counts x %d sizes x %d models "
                        "x %d platforms): at most %d",
                        (long long)cells, s->algorithm_count, s->rank_count, s->size_count,
                        s->model_count, s->platform_count ? s->platform_count : 1, SWEEP_CELLS_MAX);
  *g = (fs_sweep_grid){.algorithms = s->algorithms,
                       .algorithm_count = s->algorithm_count,
                       .ranks = s->ranks,
                       .rank_count = s->rank_count,
                       .sizes = s->sizes,
                       .size_count = s->size_count,
                       .models = s->models,
                       .model_count = s->model_count,
                       .platforms = s->platform_count ? s->platforms : NULL,
                       .platform_count = s->platform_count,
                       .noise = fs_noise_active(o->noise) ? o->noise : NULL,
                       .seeds = o->seeds,
                       .base_seed = (uint64_t)o->seed,
                       .check = o->check,
                       .threads = (int)o->threads,
                       .progress = isatty(2)};
  return o->report ? fs_nccl_tests_check(g, o->datatype, o->element, o->report_kinds, err) : 0;
}

int fs_command_sweep(int argc, char **argv) {
  if (fs_wants_help(argc, argv, sweep_usage)) return FS_EXIT_OK;
  fs_error err = {{0}};
  sweep_options o;
  sweep_setup s = {0};
  fs_sweep_grid grid;
  fs_sweep_results results = {0};
  int status = FS_EXIT_USAGE, by = FS_BEST_MEDIAN;
  if (parse_options(argc, argv, &o, &err)) goto done;
  if (o.rank_by_text && (by = fs_best_rank_by_find(o.rank_by_text)) < 0) {
    fs_error_set(&err, "--rank-by %s: expected median, mean or p99", o.rank_by_text);
    goto done;
  }
  if (build_grid(&o, &s, &grid, &err)) goto done;
  if (o.seeds > 1 && !grid.noise)
    fprintf(stderr,
            "fennelsim sweep: warning: --seeds %lld without --noise or --noise-trace: "
            "every seed gives the same answer\n",
            (long long)o.seeds);
  if (fs_sweep_run(&grid, &results, &err)) {
    status = fs_exit_status_for(&err, FS_EXIT_SIMULATION);
    goto done;
  }
  if (write_outputs(&o, &grid, &results, (fs_best_rank_by)by, &err))
    status = fs_exit_status_for(&err, FS_EXIT_SIMULATION); /* out of memory: 2 */
  else
    status = FS_EXIT_OK;
done:
  if (status != FS_EXIT_OK) fprintf(stderr, "fennelsim sweep: %s\n", err.message);
  fs_sweep_results_free(&results);
  setup_free(&s);
  free(o.names);
  fs_noise_free(o.noise);
  fs_option_params_free(&o.global);
  return status;
}
