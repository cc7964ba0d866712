/* validate_command.c: `fennelsim validate MEASURED.csv --model M ...`:
 * measured collective times (fennelprobe --collectives) against what the
 * model predicts for each candidate algorithm (fit/validate.h), as the
 * seeds' papers tabulate them: per row, per algorithm, and the algorithm
 * the model matches best where the measurement does not name one. */
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/validate.h"
#include "io/atomic_file.h"
#include "instruments/report.h"
#include "models/model_registry.h"
#include "models/platform_parameters.h"
#include "cli/data_roots.h"
#include "cli/options.h"
#include "cli/platform_options.h"

static const char validate_usage[] =
    "usage: fennelsim validate MEASURED.csv --model M [options]\n"
    "  MEASURED.csv           collective times: fennelprobe --collectives' CSV (docs/PROBE.md)\n"
    "  --model NAME           network model or model file, as for run (required)\n"
    "  --param KEY=VALUE      model parameter, repeatable, as for run\n"
    "  --compute NAME         compute model, as for run (default fixed)\n"
    "  --nodes M --cores Q --mapping seq|rr, or --platform FILE.xml\n"
    "                         the platform (models and SMP-aware algorithms read it); default:\n"
    "                         the file's nodes= and cores= when they hold every row's ranks\n"
    "  --algo C=A,A,...       the candidate algorithms of collective C for rows that name none\n"
    "                         (allreduce=rd,ring,rm:auto; repeatable); default: every\n"
    "                         generator of C in `fennelsim gen --list` in the family that\n"
    "                         accepts the row, but those marked [not a correct collective]\n"
    "  --family mpi|gpu|all   the default candidates: MPI's algorithms, NCCL's or both\n"
    "                         (default: gpu under the nccl model, else mpi)\n"
    "  --median               compare with the measured medians (default: the minima)\n"
    "  --format text|json     output (default text)\n"
    "  -o FILE.csv            the table as CSV too (one line per row and algorithm)\n"
    "error = (predicted - measured) / measured; mu = max / min of the two (tau-Lop's)\n";

typedef struct validate_options {
  const char *input, *model, *compute, *format, *table, *family;
  fs_platform_text platform;
  int use_median;
  fs_parameters params;
  fs_validate_algorithms algorithms;
} validate_options;

static int parse_validate_options(int argc, char **argv, validate_options *o, fs_error *err) {
  *o = (validate_options){.compute = "fixed", .format = "text"};
  for (int i = 2; i < argc; i++) {
    const char *v;
    int m;
    if ((m = fs_option(argc, argv, &i, "--model", &v, err))) {
      if (m < 0) return -1;
      o->model = v;
    } else if ((m = fs_option(argc, argv, &i, "--compute", &v, err))) {
      if (m < 0) return -1;
      o->compute = v;
    } else if ((m = fs_option(argc, argv, &i, "--format", &v, err))) {
      if (m < 0) return -1;
      o->format = v;
    } else if ((m = fs_option(argc, argv, &i, "-o", &v, err))) {
      if (m < 0) return -1;
      o->table = v;
    } else if ((m = fs_option(argc, argv, &i, "--family", &v, err))) {
      if (m < 0) return -1;
      if (fs_family_find(v) < 0)
        return fs_error_set(err, "--family %s: expected mpi, gpu or all", v);
      o->family = v;
    } else if ((m = fs_option(argc, argv, &i, "--param", &v, err))) {
      if (m < 0 || fs_option_param(&o->params, v, err)) return -1;
    } else if ((m = fs_option(argc, argv, &i, "--algo", &v, err))) {
      if (m < 0 || fs_validate_algorithms_add(&o->algorithms, v, err)) return -1;
    } else if ((m = fs_platform_text_option(argc, argv, &i, &o->platform, err))) {
      /* kept as text until the file's header is known (it supplies the default) */
      if (m < 0) return -1;
    } else if (strcmp(argv[i], "--median") == 0) {
      o->use_median = 1;
    } else if (argv[i][0] == '-' && argv[i][1] != 0) {
      return fs_option_unknown(err, "validate", argv[i], validate_usage);
    } else if (!o->input) {
      o->input = argv[i];
    } else {
      return fs_error_set(err, "one measurements file at a time (got %s and %s)", o->input,
                          argv[i]);
    }
  }
  if (!o->input) return fs_error_set(err, "no measurements given (see fennelsim validate --help)");
  if (!o->model) return fs_error_set(err, "--model is required (the model to validate)");
  if (strcmp(o->format, "text") != 0 && strcmp(o->format, "json") != 0)
    return fs_error_set(err, "--format %s: expected text or json", o->format);
  const fs_platform_text *t = &o->platform;
  if (fs_platform_text_check(t, err)) return -1;
  if ((t->nodes != NULL) != (t->cores != NULL))
    return fs_error_set(err, "--nodes and --cores go together");
  if (t->mapping && !t->nodes) return fs_error_set(err, "--mapping needs --nodes and --cores");
  if (t->file) { /* parsed now, whatever the model (the rows' ranks are checked later) */
    fs_platform *platform = fs_platform_text_build(t, 0, err);
    if (!platform) return -1;
    fs_platform_free(platform);
  }
  const fs_named_path outputs[] = {{"-o", o->table}};
  return fs_option_check_outputs(argc, argv, outputs, 1, err);
}

/* The platform as parameters (nodes=, cores=, mapping=, platform=), from
 * the options or else the file's header when it holds every row; what was
 * used, for the report, into describe (empty: none; note says why the
 * header's was not taken). */
static int platform_params(validate_options *o, const fs_collective_data *d, char *describe,
                           size_t size, char *note, size_t note_size, fs_error *err) {
  fs_parameters *params = &o->params;
  describe[0] = note[0] = 0;
  const fs_platform_text *t = &o->platform;
  if (t->file) snprintf(describe, size, "%s", t->file);
  if (t->nodes)
    snprintf(describe, size, "%s nodes x %s cores, %s", t->nodes, t->cores,
             t->mapping ? t->mapping : "seq");
  if (t->file || t->nodes) return fs_platform_text_params(t, params, err);
  if (!d->nodes || !d->cores) return 0;
  for (int64_t i = 0; i < d->count; i++)
    if ((int64_t)d->rows[i].ranks > (int64_t)d->nodes * d->cores) {
      snprintf(note, note_size,
               "none: %s's first line has %d nodes x %d cores, fewer than the "
               "%d ranks of line %lld",
               d->source, (int)d->nodes, (int)d->cores, (int)d->rows[i].ranks,
               (long long)d->rows[i].line);
      return 0;
    }
  char nodes[16], cores[16];
  snprintf(nodes, sizeof nodes, "%d", (int)d->nodes);
  snprintf(cores, sizeof cores, "%d", (int)d->cores);
  snprintf(describe, size, "%s nodes x %s cores, seq (from %s's first line)", nodes, cores,
           d->source);
  return fs_option_param_pair(params, "nodes", nodes, err) ||
                 fs_option_param_pair(params, "cores", cores, err)
             ? -1
             : 0;
}

/* ---- output ---------------------------------------------------------------- */

typedef struct report {
  const validate_options *o;
  const fs_collective_data *data;
  const fs_validation *v;
  const fs_network_model *network;
  const fs_compute_model *compute;
  const char *platform, *platform_note;
} report;

static const char *percent(char buffer[32], double fraction) {
  snprintf(buffer, 32, "%+.2f%%", fraction * 100);
  return buffer;
}

static const char *ratio(char buffer[32], double mu) {
  if (isinf(mu)) return "inf";
  snprintf(buffer, 32, "%.4f", mu);
  return buffer;
}

static void print_text(const report *r) {
  const fs_validation *v = r->v;
  char describe[1024], a[32], b[32], c[32], d[32];
  fs_network_model_describe(r->network, describe, sizeof describe);
  printf("validate   %s (%lld rows), measured %s\n", r->data->source, (long long)r->data->count,
         r->o->use_median ? "medians" : "minima");
  printf("model      %s {%s}\n", r->network->name, describe);
  fs_compute_model_describe(r->compute, describe, sizeof describe);
  printf("compute    %s {%s}\n", r->compute->name, describe);
  if (r->platform[0] || r->platform_note[0])
    printf("platform   %s\n", r->platform[0] ? r->platform : r->platform_note);
  printf("\n%-10s %6s %12s  %-30s %14s %14s %9s %8s\n", "collective", "ranks", "bytes", "algorithm",
         "measured_ns", "predicted_ns", "error", "mu");
  for (int64_t i = 0; i < v->entry_count; i++) {
    const fs_validate_entry *e = &v->entries[i];
    const fs_collective_row *row = &r->data->rows[e->row];
    printf("%-10s %6d %12lld  %-30s %14s %14s %9s %8s%s\n", fs_collective_name(row->collective),
           (int)row->ranks, (long long)row->bytes, e->algorithm, fs_format_ns(a, e->measured),
           fs_format_ns(b, e->predicted), percent(c, e->error), ratio(d, e->mu),
           e->best ? "  best" : "");
  }
  printf("\n%-10s %-30s %6s %6s %15s %14s %8s\n", "collective", "algorithm", "rows", "best",
         "mean_abs_error", "max_abs_error", "max_mu");
  for (int64_t i = 0; i < v->summary_count; i++) {
    const fs_validate_summary *s = &v->summaries[i];
    printf("%-10s %-30s %6lld %6lld %15s %14s %8s\n", fs_collective_name(s->collective),
           s->algorithm, (long long)s->rows, (long long)s->best, percent(a, s->mean_abs_error) + 1,
           percent(b, s->max_abs_error) + 1, ratio(c, s->max_mu));
  }
  int heading = 0;
  for (int64_t i = 0; i < v->entry_count; i++) {
    const fs_validate_entry *e = &v->entries[i];
    if (!e->best) continue;
    const fs_collective_row *row = &r->data->rows[e->row];
    if (!heading++) printf("\nbest match (rows naming no algorithm):\n");
    printf("  %s, %d ranks, %lld B (line %lld): %s, error %s, mu %s\n",
           fs_collective_name(row->collective), (int)row->ranks, (long long)row->bytes,
           (long long)row->line, e->algorithm, percent(a, e->error), ratio(b, e->mu));
  }
  if (v->skip_count) printf("\nskipped (the algorithm does not apply):\n");
  for (int64_t i = 0; i < v->skip_count; i++)
    printf("  %s: %lld row%s, the first on line %lld: %s\n", v->skips[i].algorithm,
           (long long)v->skips[i].rows, v->skips[i].rows == 1 ? "" : "s",
           (long long)v->skips[i].first_line, v->skips[i].reason);
  if (v->unpredicted)
    printf("\n%lld row%s without a prediction: no candidate algorithm accepted %s\n",
           (long long)v->unpredicted, v->unpredicted == 1 ? "" : "s",
           v->unpredicted == 1 ? "it" : "them");
}

/* A JSON number for a ratio; null for inf. */
static void json_number(double x) {
  if (isinf(x) || isnan(x))
    printf("null");
  else
    printf("%.6g", x);
}

static void print_json_entry(const report *r, const fs_validate_entry *e) {
  const fs_collective_row *row = &r->data->rows[e->row];
  char a[32], b[32];
  printf("{\"collective\": \"%s\", \"ranks\": %d, \"bytes\": %lld, \"line\": %lld, \"algorithm\": ",
         fs_collective_name(row->collective), (int)row->ranks, (long long)row->bytes,
         (long long)row->line);
  fs_json_string(stdout, e->algorithm);
  printf(", \"named\": %s, \"measured_ns\": %s, \"predicted_ns\": %s, \"error\": ",
         e->named ? "true" : "false", fs_format_ns(a, e->measured), fs_format_ns(b, e->predicted));
  json_number(e->error);
  printf(", \"mu\": ");
  json_number(e->mu);
  printf(", \"best\": %s}", e->best ? "true" : "false");
}

static void print_json(const report *r) {
  const fs_validation *v = r->v;
  char describe[1024];
  printf("{\"input\": ");
  fs_json_string(stdout, r->data->source);
  printf(", \"rows\": %lld, \"measured\": \"%s\"", (long long)r->data->count,
         r->o->use_median ? "median" : "min");
  fs_network_model_describe(r->network, describe, sizeof describe);
  printf(", \"model\": \"%s\", \"model_parameters\": {%s}", r->network->name, describe);
  fs_compute_model_describe(r->compute, describe, sizeof describe);
  printf(", \"compute_model\": \"%s\", \"compute_parameters\": {%s}, \"platform\": ",
         r->compute->name, describe);
  if (r->platform[0])
    fs_json_string(stdout, r->platform);
  else
    printf("null");
  printf(", \"entries\": [");
  for (int64_t i = 0; i < v->entry_count; i++) {
    printf(i ? ", " : "");
    print_json_entry(r, &v->entries[i]);
  }
  printf("], \"summary\": [");
  for (int64_t i = 0; i < v->summary_count; i++) {
    const fs_validate_summary *s = &v->summaries[i];
    printf("%s{\"collective\": \"%s\", \"algorithm\": ", i ? ", " : "",
           fs_collective_name(s->collective));
    fs_json_string(stdout, s->algorithm);
    printf(", \"rows\": %lld, \"best\": %lld, \"mean_abs_error\": ", (long long)s->rows,
           (long long)s->best);
    json_number(s->mean_abs_error);
    printf(", \"max_abs_error\": ");
    json_number(s->max_abs_error);
    printf(", \"max_mu\": ");
    json_number(s->max_mu);
    printf("}");
  }
  printf("], \"best_match\": [");
  for (int64_t i = 0, n = 0; i < v->entry_count; i++)
    if (v->entries[i].best) printf(n++ ? ", " : ""), print_json_entry(r, &v->entries[i]);
  printf("], \"skipped\": [");
  for (int64_t i = 0; i < v->skip_count; i++) {
    printf("%s{\"collective\": \"%s\", \"algorithm\": ", i ? ", " : "",
           fs_collective_name(v->skips[i].collective));
    fs_json_string(stdout, v->skips[i].algorithm);
    printf(", \"rows\": %lld, \"first_line\": %lld, \"reason\": ", (long long)v->skips[i].rows,
           (long long)v->skips[i].first_line);
    fs_json_string(stdout, v->skips[i].reason);
    printf("}");
  }
  printf("], \"unpredicted\": %lld}\n", (long long)v->unpredicted);
}

/* -o: one line per row and algorithm, into an output opened before the
 * work (a bad path fails first), committed atomically. */
static int write_table(const report *r, fs_output *out, fs_error *err) {
  char a[32], b[32], mu[32];
  fs_output_puts(out,
                 "collective,ranks,bytes,algorithm,named,measured_ns,predicted_ns,error,mu,best\n");
  for (int64_t i = 0; i < r->v->entry_count; i++) {
    const fs_validate_entry *e = &r->v->entries[i];
    const fs_collective_row *row = &r->data->rows[e->row];
    const char *quote = strchr(e->algorithm, ',') ? "\"" : ""; /* rm:a4,a2 */
    fs_output_printf(out, "%s,%d,%lld,%s%s%s,%d,%s,%s,%.6g,%s,%d\n",
                     fs_collective_name(row->collective), (int)row->ranks, (long long)row->bytes,
                     quote, e->algorithm, quote, e->named, fs_format_ns(a, e->measured),
                     fs_format_ns(b, e->predicted), e->error,
                     isinf(e->mu) ? "inf" : (snprintf(mu, sizeof mu, "%.6g", e->mu), mu), e->best);
  }
  return fs_output_commit(out, err);
}

int fs_command_validate(int argc, char **argv) {
  if (fs_wants_help(argc, argv, validate_usage)) return FS_EXIT_OK;
  fs_error err = {{0}};
  validate_options o;
  fs_network_model network = {0};
  fs_compute_model compute = {0};
  fs_platform_parameters platform;
  fs_collective_data *data = NULL;
  fs_validation v = {0};
  fs_output *table = NULL;
  char describe[512], note[512];
  int status = FS_EXIT_USAGE;
  fs_cli_data found = {0};
  if (parse_validate_options(argc, argv, &o, &err) || fs_cli_data_open(&found, &err) ||
      fs_cli_data_find(&found, &o.input, &err) || fs_cli_data_find_model(&found, &o.model, &err) ||
      fs_cli_data_find_params(&found, &o.params, &err) ||
      !(data = fs_collective_data_read(o.input, &err)) ||
      platform_params(&o, data, describe, sizeof describe, note, sizeof note, &err) ||
      fs_network_model_create(o.model, &o.params, &network, &err) ||
      fs_compute_model_create(o.compute, &o.params, &compute, &err) ||
      fs_platform_parameters_read(&o.params, &platform, &err) ||
      fs_parameters_check_used(&o.params, &err))
    goto done;
  if (o.table && !(table = fs_output_open(o.table, &err))) {
    status = FS_EXIT_SIMULATION;
    goto done;
  }
  fs_validate_setup setup = {.network = &network,
                             .compute = &compute,
                             .platform = describe[0] ? &platform : NULL,
                             .algorithms = &o.algorithms,
                             .use_median = o.use_median,
                             .family = o.family ? (fs_family)fs_family_find(o.family)
                                                : fs_family_of_model(network.name)};
  int run = fs_validate(data, &setup, &v, &err);
  if (run != FS_VALIDATE_OK) {
    status = run == FS_VALIDATE_BAD_INPUT ? FS_EXIT_USAGE : FS_EXIT_SIMULATION;
    goto done;
  }
  if (v.entry_count == 0) {
    fs_error_set(&err, "no row could be predicted: %s (line %lld)%s",
                 v.skip_count ? v.skips[0].reason : "no candidate algorithm",
                 v.skip_count ? (long long)v.skips[0].first_line : 0LL,
                 v.skip_count > 1 ? ", and the other candidates rejected their rows too" : "");
    goto done;
  }
  report r = {&o, data, &v, &network, &compute, describe, note};
  if (strcmp(o.format, "json") == 0)
    print_json(&r);
  else
    print_text(&r);
  status = FS_EXIT_OK;
  if (fflush(stdout) != 0) { /* before a table to "-" */
    fs_error_set(&err, "cannot write the output: %s", strerror(errno));
    status = FS_EXIT_SIMULATION;
    goto done;
  }
  if (table) {
    fs_output *out = table;
    table = NULL; /* write_table commits or aborts it */
    if (write_table(&r, out, &err)) status = FS_EXIT_SIMULATION;
  }
done:
  if (table) fs_output_abort(table);
  if (status != FS_EXIT_OK) fprintf(stderr, "fennelsim validate: %s\n", err.message);
  fs_validation_free(&v);
  fs_collective_data_free(data);
  fs_network_model_destroy(&network);
  fs_compute_model_destroy(&compute);
  fs_option_params_free(&o.params);
  fs_cli_data_close(&found);
  return status;
}
