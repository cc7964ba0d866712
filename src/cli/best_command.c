/* best_command.c: `fennelsim best allreduce --ranks N --model M ...`: the
 * schedule search of the Fennel thesis §5.4.4, by simulation rather than
 * by the cost model. Candidates (rm_schedule.h, fs_rm_enumerate): recursive
 * multiplying's plain factorizations in every order, prime merges and
 * collapse/expand around the nearest factorable counts, the cheapest
 * --candidates of them under the cost model (a pre-filter only), plus the
 * heuristic's schedule (Alg. 7) and MPICH recursive doubling ("rd").
 * Each is generated and simulated under the chosen models; the ranking is
 * by makespan, then messages, then that candidate order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "generators/generators.h"
#include "generators/rm_schedule.h"
#include "instruments/report.h"
#include "models/model_registry.h"
#include "cli/data_roots.h"
#include "cli/options.h"

static const char best_usage[] =
    "usage: fennelsim best allreduce --ranks N [options]\n"
    "  --ranks N              rank count, 1 to 4096\n"
    "  --model NAME           network model, as for run (default pipelined)\n"
    "  --param KEY=VALUE      model parameter, repeatable, as for run\n"
    "  --compute NAME         compute model, as for run (default fixed)\n"
    "  --size S               bytes of the vector (default 8B)\n"
    "  --candidates C         recursive-multiplying schedules simulated at most (default 300):\n"
    "                         the C cheapest under the cost model with c = alpha_p/alpha_r\n"
    "                         (pipelined's --param alpha_p/alpha_r, else Table 4.1 at --size;\n"
    "                         0 under hockney), plus the heuristic's schedule and rd\n"
    "  --top K                entries printed (default 20 for text, all for json and csv;\n"
    "                         0: all)\n"
    "  --format text|json|csv output (default text); csv: a header and a row per candidate\n";

typedef struct best_options {
  const char *collective, *model, *compute, *format;
  int32_t ranks;
  int64_t size, candidates, top;
  int top_given, model_default; /* model_default: no --model given */
  fs_parameters params;
} best_options;

typedef struct entry {
  char schedule[160]; /* "rd" or the stage text */
  fs_time makespan;
  int64_t messages;
  int order;
} entry;

static int parse_best_options(int argc, char **argv, best_options *o, fs_error *err) {
  *o = (best_options){.model = "pipelined",
                      .compute = "fixed",
                      .format = "text",
                      .size = 8,
                      .candidates = 300,
                      .model_default = 1};
  int64_t number;
  for (int i = 2; i < argc; i++) {
    const char *v;
    int m;
    if ((m = fs_option(argc, argv, &i, "--ranks", &v, err))) {
      if (m < 0 || fs_option_count("--ranks", v, 1, 4096, &number, err)) return -1;
      o->ranks = (int32_t)number;
    } else if ((m = fs_option(argc, argv, &i, "--model", &v, err))) {
      if (m < 0) return -1;
      o->model = v, o->model_default = 0;
    } else if ((m = fs_option(argc, argv, &i, "--compute", &v, err))) {
      if (m < 0) return -1;
      o->compute = v;
    } else if ((m = fs_option(argc, argv, &i, "--format", &v, err))) {
      if (m < 0) return -1;
      o->format = v;
    } else if ((m = fs_option(argc, argv, &i, "--param", &v, err))) {
      if (m < 0 || fs_option_param(&o->params, v, err)) return -1;
    } else if ((m = fs_option(argc, argv, &i, "--size", &v, err))) {
      if (m < 0) return -1;
      int status = fs_parse_size(v, strlen(v), &o->size);
      if (status == FS_PAST_LIMIT)
        return fs_error_set(err, "--size %s: expected a size up to %s", v, FS_SIZE_LIMIT_TEXT);
      if (status) return fs_error_set(err, "--size %s: expected a size such as 8B, 4KiB or 1MB", v);
    } else if ((m = fs_option(argc, argv, &i, "--candidates", &v, err))) {
      if (m < 0 || fs_option_count("--candidates", v, 1, 100000, &o->candidates, err)) return -1;
    } else if ((m = fs_option(argc, argv, &i, "--top", &v, err))) {
      if (m < 0 || fs_option_count("--top", v, 0, 1 << 30, &o->top, err)) return -1;
      o->top_given = 1;
    } else if (argv[i][0] == '-' && argv[i][1] != 0) {
      return fs_option_unknown(err, "best", argv[i], best_usage);
    } else if (!o->collective) {
      o->collective = argv[i];
    } else {
      return fs_error_set(err, "one collective at a time (got %s and %s)", o->collective, argv[i]);
    }
  }
  if (!o->collective)
    return fs_error_set(err, "no collective named: best searches allreduce (e.g. fennelsim best "
                             "allreduce --ranks 16 --size 1KiB --model hockney)");
  if (strcmp(o->collective, "allreduce") != 0)
    return fs_error_set(err, "best %s: only allreduce is searched", o->collective);
  if (o->ranks == 0)
    return fs_error_set(err, "--ranks is required: the rank count to search at (e.g. fennelsim "
                             "best allreduce --ranks 16 --size 1KiB --model hockney)");
  if (strcmp(o->format, "text") != 0 && strcmp(o->format, "json") != 0 &&
      strcmp(o->format, "csv") != 0)
    return fs_error_set(err, "--format %s: expected text, json or csv", o->format);
  if (!o->top_given) o->top = strcmp(o->format, "text") != 0 ? 0 : 20;
  return 0;
}

/* The pre-filter's c: the user's pipelined alpha_p/alpha_r, 0 under
 * hockney (a put blocks until it lands: no pipelining), else Table 4.1 at
 * the message size. Reads the parameters without marking them used. */
static double filter_ratio(const best_options *o) {
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
  return fs_rm_archer_ratio(o->size);
}

static int64_t messages_of(const fs_program *p) {
  int64_t n = 0;
  for (int32_t t = 0; t < p->tasks; t++) n += p->kind[t] == FS_PUT || p->kind[t] == FS_SEND;
  return n;
}

/* Generates and simulates one candidate into e. 0, or the exit status. */
static int simulate(const best_options *o, fs_network_model *network, fs_compute_model *compute,
                    entry *e, fs_error *err) {
  fs_generator_options g = {.ranks = o->ranks, .size = o->size, .rounds = 1};
  fs_program *p;
  if (strcmp(e->schedule, "rd") == 0) {
    p = fs_generate_allreduce_rd(&g, err);
  } else {
    g.schedule = e->schedule;
    p = fs_generate_allreduce_rm(&g, err);
  }
  if (!p) return FS_EXIT_USAGE;
  int status = FS_EXIT_SIMULATION;
  fs_engine *engine = fs_engine_new(p, network, compute, err);
  if (engine) {
    int run = fs_engine_run(engine, err);
    if (run == FS_RUN_OK) {
      e->makespan = fs_engine_makespan(engine), e->messages = messages_of(p);
      status = FS_EXIT_OK;
    } else if (run == FS_RUN_REJECTED) {
      status = FS_EXIT_USAGE;
    } else if (run == FS_RUN_DEADLOCK) {
      fs_error_set(err, "%s deadlocked (a generator bug)", e->schedule);
    }
  }
  fs_engine_free(engine);
  fs_program_free(p);
  return status;
}

static int by_makespan(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->makespan != y->makespan) return x->makespan < y->makespan ? -1 : 1;
  if (x->messages != y->messages) return x->messages < y->messages ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

/* What was simulated, for the report: the enumerated schedules listed,
 * and where the heuristic's came from. */
typedef struct searched {
  int cheapest; /* enumerated schedules simulated */
  int heuristic; /* HEURISTIC_ADDED, HEURISTIC_AMONG (one of the cheapest), HEURISTIC_RD (no stages) */
} searched;

enum { HEURISTIC_ADDED, HEURISTIC_AMONG, HEURISTIC_RD };

/* rd, the heuristic's schedule, then the enumerated ones not already in. */
static entry *candidates_of(const best_options *o, double c, int *count, fs_rm_candidates *ranked,
                            searched *what, fs_error *err) {
  fs_rm_schedule heuristic;
  if (fs_rm_enumerate(o->ranks, c, (int)o->candidates, ranked, err) ||
      fs_rm_auto(o->ranks, c, &heuristic, err))
    return NULL;
  entry *list = calloc((size_t)ranked->count + 2, sizeof *list);
  if (!list) {
    fs_error_set(err, "out of memory for %d candidates", ranked->count + 2);
    return NULL;
  }
  int n = 0;
  *what = (searched){0, heuristic.count > 0 ? HEURISTIC_ADDED : HEURISTIC_RD};
  snprintf(list[n++].schedule, sizeof list[0].schedule, "rd");
  if (heuristic.count > 0) /* N = 1: no stages, rd alone */
    fs_rm_schedule_format(&heuristic, list[n++].schedule, sizeof list[0].schedule);
  for (int i = 0; i < ranked->count; i++) {
    if (ranked->items[i].count == 0) continue;
    fs_rm_schedule_format(&ranked->items[i], list[n].schedule, sizeof list[0].schedule);
    what->cheapest++;
    if (heuristic.count == 0 || strcmp(list[n].schedule, list[1].schedule) != 0)
      n++;
    else
      what->heuristic = HEURISTIC_AMONG;
  }
  for (int i = 0; i < n; i++) list[i].order = i;
  *count = n;
  return list;
}

/* "simulated 124 schedules: rd, the heuristic's and the 122 cheapest ...":
 * the parts add up to the count (the heuristic's pick is named apart only
 * when it was not one of the others). */
static void print_searched(const searched *what, int count, double c,
                           const fs_rm_candidates *ranked) {
  printf("simulated %d schedule%s: rd", count, count == 1 ? "" : "s");
  if (what->heuristic == HEURISTIC_RD) printf(" (also the heuristic's: one rank, no stages)");
  if (what->heuristic == HEURISTIC_ADDED)
    printf(what->cheapest ? ", the heuristic's" : " and the heuristic's");
  if (what->cheapest)
    printf(" and the %d cheapest under the cost model (c = %.4g)%s%s", what->cheapest, c,
           ranked->capped ? " (capped: raise --candidates to search more)" : " (all of them)",
           what->heuristic == HEURISTIC_AMONG ? "; the heuristic's is one of them" : "");
  printf("\n");
}

static void print_text(const best_options *o, const char *describe, double c,
                       const fs_rm_candidates *ranked, const searched *what, const entry *list,
                       int count) {
  char exact[32], size[32];
  fs_format_size(size, o->size);
  printf("best allreduce: %d ranks, %s, model %s%s {%s}, compute %s\n", o->ranks, size, o->model,
         o->model_default ? " (the default; choose with --model)" : "", describe, o->compute);
  print_searched(what, count, c, ranked);
  printf("%-5s %-28s %16s %10s %7s\n", "rank", "schedule", "makespan_ns", "messages", "ratio");
  int shown = o->top == 0 || o->top > count ? count : (int)o->top;
  for (int i = 0; i < shown; i++)
    printf("%-5d %-28s %16s %10lld %7.3f\n", i + 1, list[i].schedule,
           fs_format_ns(exact, list[i].makespan), (long long)list[i].messages,
           list[0].makespan > 0 ? (double)list[i].makespan / (double)list[0].makespan : 1.0);
}

static void print_json(const best_options *o, const char *describe, double c,
                       const fs_rm_candidates *ranked, const entry *list, int count) {
  char exact[32];
  printf("{\"collective\": \"allreduce\", \"ranks\": %d, \"size_bytes\": %lld, \"model\": \"%s\", "
         "\"model_parameters\": {%s}, \"compute_model\": \"%s\", \"cost_ratio\": %.6g, "
         "\"simulated\": %d, \"capped\": %s, \"entries\": [",
         o->ranks, (long long)o->size, o->model, describe, o->compute, c, count,
         ranked->capped ? "true" : "false");
  int shown = o->top == 0 || o->top > count ? count : (int)o->top;
  for (int i = 0; i < shown; i++)
    printf("%s{\"schedule\": \"%s\", \"makespan_ns\": %s, \"messages\": %lld, \"ratio\": %.6f}",
           i ? ", " : "", list[i].schedule, fs_format_ns(exact, list[i].makespan),
           (long long)list[i].messages,
           list[0].makespan > 0 ? (double)list[i].makespan / (double)list[0].makespan : 1.0);
  printf("]}\n");
}

/* A header and a row per candidate shown, each row carrying the search's
 * settings, so the tables of several searches concatenate. */
static void print_csv(const best_options *o, const char *describe, double c, const entry *list,
                      int count) {
  char exact[32], parameters[520];
  snprintf(parameters, sizeof parameters, "{%s}", describe);
  printf("rank,schedule,makespan_ns,messages,ratio,collective,ranks,size_bytes,model,"
         "model_parameters,compute_model,cost_ratio\n");
  int shown = o->top == 0 || o->top > count ? count : (int)o->top;
  for (int i = 0; i < shown; i++) {
    printf("%d,", i + 1);
    fs_csv_field(stdout, list[i].schedule);
    printf(",%s,%lld,%.6f,allreduce,%d,%lld,%s,", fs_format_ns(exact, list[i].makespan),
           (long long)list[i].messages,
           list[0].makespan > 0 ? (double)list[i].makespan / (double)list[0].makespan : 1.0,
           o->ranks, (long long)o->size, o->model);
    fs_csv_field(stdout, parameters);
    printf(",%s,%.6g\n", o->compute, c);
  }
}

int fs_command_best(int argc, char **argv) {
  if (fs_wants_help(argc, argv, best_usage)) return FS_EXIT_OK;
  fs_error err = {{0}};
  best_options o;
  fs_network_model network = {0};
  fs_compute_model compute = {0};
  fs_rm_candidates ranked = {0};
  entry *list = NULL;
  int count = 0, status = FS_EXIT_USAGE;
  fs_cli_data data = {0};
  if (parse_best_options(argc, argv, &o, &err) || fs_cli_data_open(&data, &err) ||
      fs_cli_data_find_model(&data, &o.model, &err) ||
      fs_cli_data_find_params(&data, &o.params, &err) ||
      fs_network_model_create(o.model, &o.params, &network, &err) ||
      fs_compute_model_create(o.compute, &o.params, &compute, &err) ||
      fs_parameters_check_used(&o.params, &err))
    goto done;
  double c = filter_ratio(&o);
  searched what;
  list = candidates_of(&o, c, &count, &ranked, &what, &err);
  if (!list) goto done;
  for (int i = 0; i < count; i++)
    if ((status = simulate(&o, &network, &compute, &list[i], &err)) != FS_EXIT_OK) goto done;
  qsort(list, (size_t)count, sizeof *list, by_makespan);
  char describe[512];
  fs_network_model_describe(&network, describe, sizeof describe);
  if (strcmp(o.format, "json") == 0)
    print_json(&o, describe, c, &ranked, list, count);
  else if (strcmp(o.format, "csv") == 0)
    print_csv(&o, describe, c, list, count);
  else
    print_text(&o, describe, c, &ranked, &what, list, count);
done:
  if (status != FS_EXIT_OK) fprintf(stderr, "fennelsim best: %s\n", err.message);
  free(list);
  fs_rm_candidates_free(&ranked);
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&compute);
  fs_option_params_free(&o.params);
  fs_cli_data_close(&data);
  return status;
}
