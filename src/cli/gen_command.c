/* gen_command.c: `fennelsim gen NAME ...` (write a generated schedule as
 * .dag, GOAL or MSCCL XML) and `fennelsim convert IN OUT` (rewrite a schedule in
 * another encoding). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/suggest.h"
#include "formats/schedule_reader.h"
#include "formats/dag_writer.h"
#include "formats/goal_writer.h"
#include "formats/msccl_reader.h"
#include "generators/generators.h"
#include "generators/mpi_selection.h"
#include "generators/msccl_export.h"
#include "cli/data_roots.h"
#include "io/progress.h"
#include "platform/nccl_tuning.h"
#include "instruments/report.h"
#include "cli/options.h"
#include "cli/platform_options.h"
#include "cli/run_replay.h"

static const char gen_usage[] =
    "usage: fennelsim gen NAME --ranks N [--size S] [-o FILE] [options]\n"
    "       fennelsim gen msccl --schedule FILE.xml [--size S] [-o FILE] [options]\n"
    "       fennelsim gen --list\n"
    "  --ranks N          number of ranks\n"
    "  --size S           the data size, with a unit (8B, 4KiB, 1MB); default 8B: the\n"
    "                     whole vector or a block per rank, by collective (below)\n"
    "  -o FILE            output; default stdout. A name ending in .gz is gzip-compressed\n"
    "  --format dag|goal|msccl\n"
    "                     what to write: fennelsim's .dag, LogGOPSim GOAL (two-sided\n"
    "                     generators only) or an MSCCL XML algorithm (from the generator's\n"
    "                     data flow: sends, receives and reduces of whole blocks); default\n"
    "                     goal for -o *.goal[.gz], msccl for -o *.xml, else dag\n"
    "  --rounds R         pingpong rounds (default 1)\n"
    "  --factors a,b,...  allreduce-rm factors; their product is the rank count\n"
    "  --reduce-time T    time of each reduce (default: a compute of size S, priced by\n"
    "                     the compute model)\n"
    "  --root R           root of a rooted collective (default 0)\n"
    "  --segment S        segment size of pipelined algorithms (bcast-chain; msccl: NCCL's\n"
    "                     pipeline piece)\n"
    "  --ways F           fan-out of dissemination algorithms (allreduce-dissemination,\n"
    "                     barrier-nway)\n"
    "  --schedule TEXT    allreduce-rm stages: a4,a2 | c6m2,a2,a2,e6m2 | m1g2a3,n1g3a2 | auto\n"
    "                     (Alg. 7 with c = alpha_p/alpha_r of Table 4.1 at --size) | auto:C\n"
    "                     | auto-unsorted[:C] (the unsorted variant: factors from the largest)\n"
    "                     msccl: the MSCCL XML algorithm (--ranks then defaults to its ngpus)\n"
    "  --nodes M --cores Q [--mapping seq|rr], or --platform FILE.xml\n"
    "                     the platform of SMP-aware and kappa-level algorithms (and the\n"
    "                     nodes of allreduce-nccl-tree: Q GPUs per node; the *-nccl-pat\n"
    "                     ones refuse more than one GPU a node, as NCCL runs PAT)\n"
    "  --channels C       NCCL channels of the *-nccl-* generators, 1 to 64 (default 1):\n"
    "                     channel c is CPU c of every rank\n"
    "  --chunk S          bytes a *-nccl-* step moves (default NCCL's for the protocol:\n"
    "                     Simple 2MiB ring allreduce/allgather/reduce-scatter, 512KiB\n"
    "                     otherwise; LL 32KiB; LL128 576000B, less for a small tree)\n"
    "  --protocol P       NCCL protocol of every transfer: LL, LL128 or Simple (default)\n"
    "  --slices N         slices of a Simple ring allreduce/allgather/reduce-scatter chunk:\n"
    "                     1, 2 (NCCL's, the default) or 4\n"
    "  --fifo F           FIFO slots of a *-nccl-* connection, 1 to 64 (default NCCL's 8);\n"
    "                     0: unlimited, no credit messages\n"
    "  --gpu G --nvls 0|1 --collnet 0|1\n"
    "                     the machine of the *-nccl selectors: GPU generation volta,\n"
    "                     ampere, hopper (default) or blackwell; NVLS (default on from\n"
    "                     hopper); CollNet (default off)\n";

/* --nvls/--collnet 0|1 into an FS_NCCL_SWITCH_*. */
static int switch_option(const char *name, const char *value, int *out, fs_error *err) {
  if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
    return fs_error_set(err, "%s %s: expected 0 or 1", name, value);
  *out = value[0] == '1' ? FS_NCCL_SWITCH_ON : FS_NCCL_SWITCH_OFF;
  return 0;
}

typedef enum output_format {
  FORMAT_FROM_NAME,
  FORMAT_DAG,
  FORMAT_GOAL,
  FORMAT_MSCCL
} output_format;

static int ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), k = strlen(suffix);
  return n >= k && strcmp(text + n - k, suffix) == 0;
}

/* GOAL for *.goal and *.goal.gz, MSCCL for *.xml, else .dag. */
static output_format format_of_path(const char *path) {
  if (ends_with(path, ".xml")) return FORMAT_MSCCL;
  return ends_with(path, ".goal") || ends_with(path, ".goal.gz") ? FORMAT_GOAL : FORMAT_DAG;
}

static int parse_format(const char *value, output_format *format, fs_error *err) {
  if (strcmp(value, "dag") == 0)
    *format = FORMAT_DAG;
  else if (strcmp(value, "goal") == 0)
    *format = FORMAT_GOAL;
  else if (strcmp(value, "msccl") == 0)
    *format = FORMAT_MSCCL;
  else
    return fs_error_set(err, "--format %s: expected dag, goal or msccl", value);
  return 0;
}

static void progress_hook(void *bar, int64_t done) { fs_progress_update(bar, done); }

/* Writes p into out, with a progress bar (a .dag's tasks, a GOAL file's
 * ranks) when stderr is a terminal and the schedule itself is not going to
 * one; like run's, drawn only when writing lasts over half a second. */
static int write_program(const fs_program *p, output_format format, fs_output *out, fs_error *err) {
  int goal = format == FORMAT_GOAL;
  int shown = isatty(2) && !(strcmp(fs_output_path(out), "-") == 0 && isatty(1));
  fs_progress *bar = fs_progress_new("writing", goal ? p->ranks : p->tasks, shown, stderr);
  if (goal) fs_progress_check_every(bar, 1); /* a call per rank: each may be long */
  if (bar) fs_output_set_progress(out, progress_hook, bar);
  int status = goal ? fs_goal_write_output(p, out, err) : fs_dag_write_output(p, out, err);
  fs_output_set_progress(out, NULL, NULL);
  fs_progress_done(bar);
  return status;
}

/* GOAL has no NCCL protocol: after writing a program whose transfers carry
 * one as GOAL, says on stderr that they were left out. */
static void note_protocols_dropped(const fs_program *p, const char *command) {
  int64_t count = 0;
  for (int32_t t = 0; p->protocol && t < p->tasks; t++) count += p->protocol[t] != 0;
  if (count)
    fprintf(stderr,
            "fennelsim %s: note: GOAL has no NCCL protocol: %lld transfers' proto= not "
            "written\n",
            command, (long long)count);
}

/* fs_dag_write and fs_goal_write, with the progress bar. */
static int write_file(const fs_program *p, output_format format, const char *path, fs_error *err) {
  fs_output *out = fs_output_open(path, err);
  if (!out) return -1;
  fs_error inner;
  if (write_program(p, format, out, &inner)) {
    fs_output_abort(out);
    return fs_error_set(err, "%s: %s", path, inner.message);
  }
  return fs_output_commit(out, err);
}

/* gen ... -o FILE.xml: the program with its data flow as MSCCL XML (an
 * msccl schedule: its algorithm, read again, after the lowering's checks);
 * commits or aborts out. */
static int write_msccl(const fs_generator *g, const char *name, fs_generator_options *o,
                       fs_output *out, fs_error *err) {
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  o->flow = (g->traits & FS_GEN_FILE) ? NULL : &flow;
  fs_program *p = g->generate(o, err);
  int status = p ? FS_EXIT_OK : FS_EXIT_USAGE, written = -1;
  if (p && (g->traits & FS_GEN_FILE)) {
    fs_msccl *m = fs_msccl_read(o->schedule, err);
    written = m ? fs_msccl_write_algorithm(m, out, err) : -1;
    fs_msccl_free(m);
  } else if (p) {
    written = fs_msccl_write_program(p, &flow, name, out, err);
  }
  if (p && written) status = FS_EXIT_USAGE; /* not expressible in MSCCL */
  if (status != FS_EXIT_OK)
    fs_output_abort(out);
  else if (fs_output_commit(out, err))
    status = FS_EXIT_SIMULATION;
  fs_program_free(p);
  fs_data_flow_free(&flow);
  o->flow = NULL;
  return status;
}

/* The FS_GEN_* option names, in bit order (for errors and `gen --list`). */
static const char *const option_names[] = {"--root",
                                           "--segment",
                                           "--ways",
                                           "--schedule",
                                           "--platform/--nodes/--cores/--mapping",
                                           "--factors",
                                           "--rounds",
                                           "--reduce-time",
                                           "--channels",
                                           "--chunk",
                                           "--protocol",
                                           "--gpu/--nvls/--collnet",
                                           "--slices",
                                           "--fifo"};
#define OPTION_COUNT ((int)(sizeof option_names / sizeof option_names[0]))

static const char not_correct_mark[] = "  [not a correct collective: picked only when named]";

static void list_json(const fs_generator *g, int count) {
  fputs("[\n", stdout);
  for (int i = 0; i < count; i++) {
    fputs("  {\"name\": ", stdout);
    fs_json_string(stdout, g[i].name);
    printf(", \"collective\": \"%s\", \"description\": ", fs_collective_name(g[i].collective));
    fs_json_string(stdout, g[i].summary);
    fputs(", \"size\": ", stdout);
    fs_json_string(stdout, fs_generator_size_meaning(g[i].collective));
    fputs(", \"options\": [\"--ranks\", \"--size\"", stdout);
    for (int bit = 0; bit < OPTION_COUNT; bit++)
      if (g[i].options & (1u << bit)) printf(", \"%s\"", option_names[bit]);
    printf("], \"writes_goal\": %s, \"moves_data_correctly\": %s}%s\n",
           g[i].traits & FS_GEN_TWO_SIDED ? "true" : "false",
           g[i].traits & FS_GEN_NOT_CORRECT ? "false" : "true", i + 1 < count ? "," : "");
  }
  fputs("]\n", stdout);
}

/* One line a generator: name, summary, and the mark of schedgen's patterns. */
static void print_list(FILE *out, const fs_generator *g, int count) {
  for (int i = 0; i < count; i++)
    fprintf(out, "%-31s %s%s\n", g[i].name, g[i].summary,
            g[i].traits & FS_GEN_NOT_CORRECT ? not_correct_mark : "");
}

/* `gen --list [--format text|json]`. */
static int list_generators(int argc, char **argv) {
  const char *format = "text", *v;
  fs_error err = {{0}};
  for (int i = 2; i < argc; i++) {
    int m = fs_option(argc, argv, &i, "--format", &v, &err);
    if (m < 0) return fprintf(stderr, "fennelsim gen: %s\n", err.message), FS_EXIT_USAGE;
    if (m) format = v;
  }
  int count;
  const fs_generator *g = fs_generator_list(&count);
  if (strcmp(format, "json") == 0) {
    list_json(g, count);
    return FS_EXIT_OK;
  }
  if (strcmp(format, "text") != 0) {
    fprintf(stderr,
            "fennelsim gen: --list --format %s: expected text or json "
            "(e.g. fennelsim gen --list --format json)\n",
            format);
    return FS_EXIT_USAGE;
  }
  print_list(stdout, g, count);
  return FS_EXIT_OK;
}

/* "unknown generator 'X' (see fennelsim gen --list)" and the closest names. */
static int unknown_generator(const char *name, fs_error *err) {
  int count;
  const fs_generator *g = fs_generator_list(&count);
  const char **names = malloc((size_t)(count ? count : 1) * sizeof *names);
  char mean[300] = "";
  for (int i = 0; names && i < count; i++) names[i] = g[i].name;
  if (names) fs_suggest_text(mean, sizeof mean, name, names, count);
  free(names);
  return fs_error_set(err, "unknown generator '%s' (see fennelsim gen --list)%s%s", name,
                      mean[0] ? "; " : "", mean);
}

/* gen --help: the usage, then what --size means for each collective. */
static void print_gen_help(void) {
  fputs(gen_usage, stdout);
  puts("--size S by collective (the generators' data flow):");
  int count;
  const fs_generator *g = fs_generator_list(&count);
  for (int c = FS_COLLECTIVE_BARRIER; c <= FS_COLLECTIVE_LAST; c++)
    printf("  %-10s %s\n", fs_collective_name((fs_collective)c),
           fs_generator_size_meaning((fs_collective)c));
  puts("  pingpong   each message; multicast: each put (the whole vector)");
  puts("generators marked [not a correct collective] in `gen --list` are reference patterns\n"
       "(LogGOPSim's schedgen, op for op) whose data flow does not compute the collective.\n"
       "The two-sided generators can be written as GOAL; these use puts (.dag only):");
  for (int i = 0, shown = 0; i < count; i++)
    if (!(g[i].traits & (FS_GEN_TWO_SIDED | FS_GEN_SELECTOR | FS_GEN_FILE)))
      printf("%s%s", shown++ ? " " : "  ", g[i].name);
  putchar('\n');
}

static int parse_factors(const char *text, fs_generator_options *o, fs_error *err) {
  const char *at = text;
  o->factor_count = 0;
  while (*at) {
    const char *end = strchr(at, ',');
    size_t n = end ? (size_t)(end - at) : strlen(at);
    int64_t factor;
    if (o->factor_count == 64 || fs_parse_count(at, n, 2, 1 << 30, &factor))
      return fs_error_set(err,
                          "--factors %s: expected up to 64 whole numbers >= 2, comma separated",
                          text);
    o->factors[o->factor_count++] = (int32_t)factor;
    at += n + (end ? 1 : 0);
    if (end && !*at) return fs_error_set(err, "--factors %s: trailing comma", text);
  }
  if (o->factor_count == 0) return fs_error_set(err, "--factors needs at least one factor");
  return 0;
}

/* The mapped platform the options describe, NULL when none was given (or
 * on error, with err set and *failed). */
static fs_platform *platform_of(const fs_platform_text *t, int32_t ranks, int *failed,
                                fs_error *err) {
  *failed = 0;
  if (!fs_platform_text_given(t)) return NULL;
  fs_platform *platform = NULL;
  if (!t->file && (!t->nodes || !t->cores))
    fs_error_set(err, "--nodes and --cores go together");
  else if (!fs_platform_text_check(t, err))
    platform = fs_platform_text_build(t, ranks, err);
  *failed = platform == NULL;
  return platform;
}

/* The FS_GEN_* options given on the command line. */
static unsigned options_given(const fs_generator_options *o, const fs_platform_text *platform,
                              int rounds_given) {
  unsigned given = 0;
  if (o->root) given |= FS_GEN_ROOT;
  if (o->segment) given |= FS_GEN_SEGMENT;
  if (o->ways) given |= FS_GEN_WAYS;
  if (o->schedule) given |= FS_GEN_SCHEDULE;
  if (fs_platform_text_given(platform)) given |= FS_GEN_PLATFORM;
  if (o->factor_count) given |= FS_GEN_FACTORS;
  if (rounds_given) given |= FS_GEN_ROUNDS;
  if (o->has_reduce_time) given |= FS_GEN_REDUCE_TIME;
  if (o->channels) given |= FS_GEN_CHANNELS;
  if (o->chunk) given |= FS_GEN_CHUNK;
  if (o->protocol) given |= FS_GEN_PROTOCOL;
  if (o->nccl_gpu || o->nccl_nvls || o->nccl_collnet) given |= FS_GEN_NCCL_MACHINE;
  if (o->slices) given |= FS_GEN_SLICES;
  if (o->fifo) given |= FS_GEN_FIFO;
  return given;
}

/* An option the generator does not read is an error, not silently ignored. */
static int check_options_apply(const fs_generator *g, unsigned given, fs_error *err) {
  unsigned extra = given & ~g->options;
  for (int bit = 0; bit < OPTION_COUNT; bit++)
    if (extra & (1u << bit))
      return fs_error_set(err, "%s does not apply to %s", option_names[bit], g->name);
  return 0;
}

/* A one-sided generator (puts, starts) asked for GOAL: refused before any
 * work, naming the way out (a .dag, or a two-sided generator of the same
 * collective). */
static int check_goal_writable(const fs_generator *g, output_format format, const char *output,
                               fs_error *err) {
  /* (a file's lowering, msccl: the writer says what GOAL cannot hold) */
  if (format != FORMAT_GOAL || (g->traits & (FS_GEN_TWO_SIDED | FS_GEN_FILE))) return 0;
  char others[256] = "";
  size_t used = 0;
  int count;
  const fs_generator *all = fs_generator_list(&count);
  for (int i = 0; i < count && g->collective != FS_COLLECTIVE_NONE; i++)
    if (all[i].collective == g->collective && (all[i].traits & FS_GEN_TWO_SIDED) &&
        !(all[i].traits & FS_GEN_NOT_CORRECT) && used + strlen(all[i].name) + 3 < sizeof others)
      used += (size_t)snprintf(others + used, sizeof others - used, "%s%s", used ? ", " : "",
                               all[i].name);
  return fs_error_set(err,
                      "%s uses puts, which GOAL (%s) cannot express: write a .dag "
                      "(fennelsim gen %s --ranks N -o %s.dag)%s%s",
                      g->name, strcmp(output, "-") == 0 ? "--format goal" : output, g->name,
                      g->name, used ? ", or take a two-sided one: " : "", others);
}

static int parse_gen_options(int argc, char **argv, const char **name, const char **output,
                             output_format *format, fs_generator_options *o,
                             fs_platform_text *platform, int *rounds_given, fs_error *err) {
  int64_t number;
  const char *output_given = NULL; /* -o and --output are one option */
  *o = (fs_generator_options){.ranks = 0, .size = 8, .rounds = 1};
  for (int i = 2; i < argc; i++) {
    const char *v;
    int m;
    if ((m = fs_option(argc, argv, &i, "--ranks", &v, err))) {
      if (m < 0 || fs_option_count("--ranks", v, 1, FS_MAX_TASKS, &number, err)) return -1;
      o->ranks = (int32_t)number;
    } else if ((m = fs_option(argc, argv, &i, "--size", &v, err))) {
      if (m < 0) return -1;
      int status = fs_parse_size(v, strlen(v), &o->size);
      if (status == FS_PAST_LIMIT)
        return fs_error_set(err, "--size %s: expected a size up to %s", v, FS_SIZE_LIMIT_TEXT);
      if (status) return fs_error_set(err, "--size %s: expected a size such as 8B, 4KiB or 1MB", v);
    } else if ((m = fs_option(argc, argv, &i, "--rounds", &v, err))) {
      if (m < 0 || fs_option_count("--rounds", v, 1, 1 << 30, &number, err)) return -1;
      o->rounds = (int32_t)number;
      *rounds_given = 1;
    } else if ((m = fs_option(argc, argv, &i, "--factors", &v, err))) {
      if (m < 0 || parse_factors(v, o, err)) return -1;
    } else if ((m = fs_option(argc, argv, &i, "--reduce-time", &v, err))) {
      if (m < 0) return -1;
      int status = fs_parse_time(v, strlen(v), 0, &o->reduce_time);
      if (status == FS_PAST_LIMIT)
        return fs_error_set(err, "--reduce-time %s: expected a time up to %s", v,
                            FS_TIME_LIMIT_TEXT);
      if (status) return fs_error_set(err, "--reduce-time %s: expected a time such as 10ns", v);
      o->has_reduce_time = 1;
    } else if ((m = fs_option(argc, argv, &i, "--root", &v, err))) {
      if (m < 0 || fs_option_count("--root", v, 0, FS_MAX_TASKS, &number, err)) return -1;
      o->root = (int32_t)number;
    } else if ((m = fs_option(argc, argv, &i, "--segment", &v, err))) {
      if (m < 0) return -1;
      if (fs_parse_size(v, strlen(v), &o->segment) || o->segment < 1)
        return fs_error_set(err, "--segment %s: expected a size from 1B to %s, such as 8KiB", v,
                            FS_SIZE_LIMIT_TEXT);
    } else if ((m = fs_option(argc, argv, &i, "--ways", &v, err))) {
      if (m < 0 || fs_option_count("--ways", v, 1, 1 << 20, &number, err)) return -1;
      o->ways = (int32_t)number;
    } else if ((m = fs_option(argc, argv, &i, "--schedule", &v, err))) {
      if (m < 0) return -1;
      o->schedule = v;
    } else if ((m = fs_option(argc, argv, &i, "--channels", &v, err))) {
      if (m < 0 || fs_option_count("--channels", v, 1, FS_NCCL_MAX_CHANNELS, &number, err))
        return -1;
      o->channels = (int32_t)number;
    } else if ((m = fs_option(argc, argv, &i, "--chunk", &v, err))) {
      if (m < 0) return -1;
      if (fs_parse_size(v, strlen(v), &o->chunk) || o->chunk < 1)
        return fs_error_set(err, "--chunk %s: expected a size from 1B to %s, such as 512KiB", v,
                            FS_SIZE_LIMIT_TEXT);
    } else if ((m = fs_option(argc, argv, &i, "--protocol", &v, err))) {
      if (m < 0) return -1;
      if ((o->protocol = fs_protocol_from_name(v, (int64_t)strlen(v))) <= FS_PROTOCOL_NONE)
        return fs_error_set(err, "--protocol %s: expected LL, LL128 or Simple", v);
    } else if ((m = fs_option(argc, argv, &i, "--slices", &v, err))) {
      if (m < 0 || fs_option_count("--slices", v, 1, 4, &number, err)) return -1;
      o->slices = (int32_t)number;
    } else if ((m = fs_option(argc, argv, &i, "--fifo", &v, err))) {
      if (m < 0 || fs_option_count("--fifo", v, 0, FS_NCCL_MAX_FIFO, &number, err)) return -1;
      o->fifo = number ? (int32_t)number : FS_NCCL_FIFO_UNLIMITED;
    } else if ((m = fs_option(argc, argv, &i, "--gpu", &v, err))) {
      if (m < 0) return -1;
      if ((o->nccl_gpu = fs_nccl_gpu_find(v) + 1) == 0)
        return fs_error_set(err, "--gpu %s: expected volta, ampere, hopper or blackwell", v);
    } else if ((m = fs_option(argc, argv, &i, "--nvls", &v, err))) {
      if (m < 0 || switch_option("--nvls", v, &o->nccl_nvls, err)) return -1;
    } else if ((m = fs_option(argc, argv, &i, "--collnet", &v, err))) {
      if (m < 0 || switch_option("--collnet", v, &o->nccl_collnet, err)) return -1;
    } else if ((m = fs_platform_text_option(argc, argv, &i, platform, err))) {
      if (m < 0) return -1;
    } else if ((m = fs_option(argc, argv, &i, "-o", &v, err)) ||
               (m = fs_option(argc, argv, &i, "--output", &v, err))) {
      if (m < 0) return -1;
      if (output_given)
        return fs_error_set(err, "-o given twice (%s, then %s): give it once", output_given, v);
      *output = output_given = v;
    } else if ((m = fs_option(argc, argv, &i, "--format", &v, err))) {
      if (m < 0 || parse_format(v, format, err)) return -1;
    } else if (argv[i][0] == '-') {
      return fs_option_unknown(err, "gen", argv[i], gen_usage);
    } else if (!*name) {
      *name = argv[i];
    } else {
      return fs_error_set(err, "one generator at a time (got %s and %s)", *name, argv[i]);
    }
  }
  if (!*name) return fs_error_set(err, "no generator named (see fennelsim gen --list)");
  const fs_generator *g = fs_generator_find(*name);
  int from_file = g && (g->traits & FS_GEN_FILE); /* its ranks come from its file */
  if (o->ranks == 0 && strcmp(*name, "pingpong") != 0 && !from_file)
    return fs_error_set(err, "--ranks is required");
  if (from_file) return 0;
  if (o->ranks == 0) o->ranks = 2;
  const fs_named_path outputs[] = {{"-o", *output}};
  return fs_option_check_outputs(argc, argv, outputs, 1, err);
}

int fs_command_gen(int argc, char **argv) {
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      print_gen_help();
      return FS_EXIT_OK;
    }
    if (strcmp(argv[i], "--list") == 0) return list_generators(argc, argv);
  }
  if (argc == 2) { /* `fennelsim gen` alone: what it can generate */
    int count;
    const fs_generator *g = fs_generator_list(&count);
    fputs("fennelsim gen: no generator named; give one of these "
          "(fennelsim gen NAME --ranks N --size S -o FILE):\n",
          stderr);
    print_list(stderr, g, count);
    return FS_EXIT_USAGE;
  }
  fs_error err = {{0}};
  const char *name = NULL, *output = "-";
  output_format format = FORMAT_FROM_NAME;
  fs_generator_options options;
  fs_program *program = NULL;
  fs_platform *platform = NULL;
  fs_platform_text platform_options = {0};
  const fs_generator *generator = NULL;
  int status = FS_EXIT_USAGE, failed, rounds_given = 0, selected = 0;
  fs_mpi_choice choice;
  fs_cli_data found = {0};
  if (parse_gen_options(argc, argv, &name, &output, &format, &options, &platform_options,
                        &rounds_given, &err) ||
      (platform_options.file &&
       (fs_cli_data_open(&found, &err) || fs_cli_data_find(&found, &platform_options.file, &err))))
    goto done;
  if (options.schedule && (generator = fs_generator_find(name)) &&
      (generator->traits & FS_GEN_FILE) && /* a schedule file, found like the others */
      ((!found.roots.text && fs_cli_data_open(&found, &err)) ||
       fs_cli_data_find(&found, &options.schedule, &err)))
    goto done;
  platform = platform_of(&platform_options, options.ranks, &failed, &err);
  if (failed) goto done;
  options.platform = platform;
  if (format == FORMAT_FROM_NAME) format = format_of_path(output);
  generator = fs_generator_find(name);
  if (!generator) {
    unknown_generator(name, &err);
    goto done;
  }
  if (check_options_apply(generator, options_given(&options, &platform_options, rounds_given),
                          &err))
    goto done;
  if (generator->traits & FS_GEN_SELECTOR) { /* it runs its library's pick */
    if (fs_mpi_select_options(generator, &options, &choice, &err)) goto done;
    selected = 1;
  }
  if (check_goal_writable(selected ? choice.spec.generator : generator, format, output, &err))
    goto done;
  fs_output *out = fs_output_open(output, &err); /* a bad path fails before any work */
  if (!out) goto done;
  if (format == FORMAT_MSCCL) {
    status =
        write_msccl(generator, selected ? choice.spec.generator->name : name, &options, out, &err);
    goto done;
  }
  program = generator->generate(&options, &err);
  if (!program) {
    fs_output_abort(out);
    goto done;
  }
  if (write_program(program, format, out, &err)) {
    fs_output_abort(out);
    size_t n = strlen(err.message);
    if (strstr(err.message, "calc needs a time=") && (generator->options & FS_GEN_REDUCE_TIME))
      snprintf(err.message + n, sizeof err.message - n,
               " (give its reduces a time: --reduce-time 100ns)");
    status = FS_EXIT_USAGE; /* the program cannot be written in that format */
  } else {
    status = fs_output_commit(out, &err) ? FS_EXIT_SIMULATION : FS_EXIT_OK;
    if (status == FS_EXIT_OK && format == FORMAT_GOAL) note_protocols_dropped(program, "gen");
  }
done:
  if (status == FS_EXIT_OK && selected) { /* what the library picked, once it is written */
    if (choice.note[0]) /* NCCL's pick has no schedule here: what is generated instead */
      fprintf(stderr, "fennelsim gen: %s: note: %s\n", generator->name, choice.note);
    fprintf(stderr, "fennelsim gen: %s: %s picks %s [%s]: %s\n", generator->name,
            fs_mpi_selector_version(generator), choice.algorithm, choice.rule, choice.spec.text);
    if (choice.detail[0]) /* what the alternatives would cost, by the same rules */
      fprintf(stderr, "fennelsim gen: %s: predicted: %s\n", generator->name, choice.detail);
  }
  if (status != FS_EXIT_OK) status = fs_exit_status_for(&err, status);
  if (status != FS_EXIT_OK) fprintf(stderr, "fennelsim gen: %s\n", err.message);
  fs_program_free(program);
  fs_platform_free(platform);
  fs_cli_data_close(&found);
  return status;
}

static const char convert_usage[] =
    "usage: fennelsim convert IN... OUT [options]\n"
    "  IN   a schedule (.dag[.gz], .goal[.gz]; \"-\" for stdin and other names: by content),\n"
    "       or a recorded MPI execution (a trace directory or per-rank files, as `fennelsim\n"
    "       run` takes them)\n"
    "  OUT  .dag[.gz] or .goal[.gz] (\"-\" for stdout, as .dag): the replayed "
    "program\n"
    "       (not .xml: a schedule has no buffers; gen writes MSCCL XML from a\n"
    "       generator's data flow)\n" FS_REPLAY_USAGE;

int fs_command_convert(int argc, char **argv) {
  fs_error err = {{0}};
  fs_replay_options options;
  fs_replay_options_default(&options);
  const char **paths = calloc((size_t)argc, sizeof *paths);
  int count = 0, status = FS_EXIT_USAGE;
  fs_program *program = NULL;
  fs_replay *replay = NULL;
  fs_cli_data found = {0};
  if (!paths) return fprintf(stderr, "fennelsim convert: out of memory\n"), FS_EXIT_USAGE;
  for (int i = 2; i < argc; i++) {
    int m;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(convert_usage, stdout);
      free(paths);
      return FS_EXIT_OK;
    }
    if ((m = fs_replay_option(argc, argv, &i, &options, &err))) {
      if (m < 0) goto done;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fs_option_unknown(&err, "convert", argv[i], convert_usage);
      goto done;
    } else {
      paths[count++] = argv[i];
    }
  }
  if (count < 2) {
    fs_error_set(&err,
                 count ? "no output after %s: give IN then OUT (e.g. fennelsim convert %s "
                         "out.dag.gz; \"-\" writes .dag to stdout)"
                       : "no input and output given%s%s (e.g. fennelsim convert in.goal "
                         "out.dag; see fennelsim convert --help)",
                 count ? paths[0] : "", count ? paths[0] : "");
    fprintf(stderr, "fennelsim convert: %s\n%s", err.message, convert_usage);
    free(paths);
    return FS_EXIT_USAGE;
  }
  const char *output = paths[--count];
  if (ends_with(output, ".xml")) {
    fs_error_set(&err,
                 "%s: a schedule file has no buffers (which blocks each message carries), so it "
                 "cannot become MSCCL XML; generate the algorithm with its data flow instead: "
                 "fennelsim gen ALGO --ranks N --size S -o %s",
                 paths[0], output);
    goto done;
  }
  const fs_named_path outputs[] = {{"the output", output}};
  if (fs_option_check_outputs(argc, argv, outputs, 1, &err) || fs_cli_data_open(&found, &err) ||
      fs_cli_data_find_all(&found, paths, count, &err))
    goto done;
  if (fs_inputs_are_trace(paths, count)) {
    replay = fs_replay_read(paths, count, &options, &err);
    if (replay) program = replay->program, replay->program = NULL;
  } else if (count > 1) {
    fs_error_set(&err, "one schedule at a time (got %s and %s)", paths[0], paths[1]);
  } else {
    program = fs_schedule_read_showing(paths[0], isatty(2) ? stderr : NULL, 0, &err);
  }
  if (!program) goto done;
  if (format_of_path(output) != FORMAT_GOAL) {
    status = write_file(program, FORMAT_DAG, output, &err) ? FS_EXIT_SIMULATION : FS_EXIT_OK;
    goto done;
  }
  int64_t priced = replay ? fs_replay_prepare_goal(program) : 0;
  if (write_file(program, FORMAT_GOAL, output, &err)) {
    if (replay && strstr(err.message, "(put on rank"))
      snprintf(err.message + strlen(err.message), sizeof err.message - strlen(err.message),
               " (a one-sided collective algorithm: pick two-sided ones, e.g. --algo "
               "allreduce=rabenseifner)");
    status = FS_EXIT_USAGE;
    goto done;
  }
  if (priced)
    fprintf(stderr,
            "fennelsim convert: note: %lld reductions written as calc 0 (GOAL has no computation "
            "priced by size)\n",
            (long long)priced);
  note_protocols_dropped(program, "convert");
  status = FS_EXIT_OK;
done:
  if (status != FS_EXIT_OK) status = fs_exit_status_for(&err, status);
  if (status != FS_EXIT_OK) fprintf(stderr, "fennelsim convert: %s\n", err.message);
  fs_program_free(program);
  fs_replay_free(replay);
  free(paths);
  fs_cli_data_close(&found);
  return status;
}
