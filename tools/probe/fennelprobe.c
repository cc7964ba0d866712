/* fennelprobe.c: the MPI probe (docs/PROBE.md). `mpirun -n P fennelprobe`
 * measures the point-to-point experiments of src/fit/probe_data.h on the
 * machine it runs on, into the CSV `fennelsim fit` reads, and with
 * --collectives MPI's own collectives, into the CSV `fennelsim validate`
 * reads. This file holds the options, the files' headers and the order of
 * the run; experiments.c and collectives.c measure, repeat.c repeats.
 * Only rank 0 writes, to a temporary name renamed at the end. Every rank
 * parses the same arguments, so all agree on a usage error without talking. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/units.h"
#include "probe.h"

#define EXIT_USAGE 2
#define EXIT_FAILURE_RUN 1
#define HELP_REQUESTED 1

static const char usage[] =
    "usage: mpirun -n P fennelprobe [options]\n"
    "  -o PATH               point-to-point measurements (default: stdout)\n"
    "  --collectives PATH    also time MPI's collectives, into PATH\n"
    "  --quick               sizes 0,8,1KiB,64KiB (collectives 8,1KiB,64KiB), 5..50 repetitions\n"
    "  --sizes LIST          message sizes, e.g. 0,8,1KiB (default: 0 and 1 B .. --max-size, x2)\n"
    "  --max-size SIZE       the largest size of the default sweep (default 4MiB)\n"
    "  --experiments LIST    of memcpy,roundtrip,ssend,send_call,train,multicast,one_to_two,ring\n"
    "                        (default: all; none: collectives only)\n"
    "  --pairs all|first     roundtrips and triplets over every rank, or ranks 0,1,2 and rank 0's\n"
    "                        first partner on its node and on another (default: all when P <= 16)\n"
    "  --ci FRACTION         stop when the mean's 95% confidence half-width is within it (0.025)\n"
    "  --min-reps N          timed repetitions at least (30)\n"
    "  --max-reps N          and at most (1000)\n"
    "  --warmup N            untimed repetitions first (2)\n"
    "  --ranks-per-node N    pretend nodes are blocks of N ranks (to try net rows on one machine)\n"
    "  --help                this text\n";

typedef struct option_flags { /* given explicitly: --quick does not override them */
  int sizes, min_reps, max_reps, pairs;
} option_flags;

static int set_error(char *message, const char *option, const char *expected, const char *got) {
  snprintf(message, 512, "%s: expected %s, got '%s'", option, expected, got);
  return EXIT_USAGE;
}

/* "0,8,1KiB": sorted, without repeats. */
static int parse_sizes(const char *text, int64_t *sizes, int *count, char *message,
                       const char *option) {
  *count = 0;
  const char *expected = "a comma-separated list of up to 64 sizes from 0 to 1GiB (0,8,1KiB)";
  for (const char *start = text;;) {
    const char *end = strchr(start, ',');
    size_t length = end ? (size_t)(end - start) : strlen(start);
    int64_t size;
    if (*count == PROBE_MAX_SIZES || fs_parse_size(start, length, &size) != 0 ||
        size > PROBE_MAX_SIZE)
      return set_error(message, option, expected, text);
    int at = *count;
    while (at > 0 && sizes[at - 1] > size) at--;
    if (at == 0 || sizes[at - 1] != size) {
      memmove(sizes + at + 1, sizes + at, (size_t)(*count - at) * sizeof *sizes);
      sizes[at] = size;
      ++*count;
    }
    if (!end) return 0;
    start = end + 1;
  }
}

static int parse_experiments(const char *text, int *selected, char *message) {
  memset(selected, 0, PROBE_EXPERIMENTS * sizeof *selected);
  if (strcmp(text, "none") == 0) return 0;
  for (const char *start = text;;) {
    const char *end = strchr(start, ',');
    size_t length = end ? (size_t)(end - start) : strlen(start);
    int found = -1;
    for (int e = 0; e < PROBE_EXPERIMENTS; e++) {
      const char *name = probe_experiment_name((probe_experiment)e);
      if (strlen(name) == length && strncmp(name, start, length) == 0) found = e;
    }
    if (found < 0)
      return set_error(message, "--experiments",
                       "none or names from memcpy, roundtrip, ssend, send_call, train, multicast, "
                       "one_to_two, ring",
                       text);
    selected[found] = 1;
    if (!end) return 0;
    start = end + 1;
  }
}

static int parse_count(const char *text, const char *option, int64_t min, int64_t max, int64_t *out,
                       char *message) {
  char expected[64];
  snprintf(expected, sizeof expected, "a whole number from %lld to %lld", (long long)min,
           (long long)max);
  if (fs_parse_count(text, strlen(text), min, max, out) != 0)
    return set_error(message, option, expected, text);
  return 0;
}

static void default_sizes(probe_options *o, int64_t largest) {
  o->size_count = 0;
  o->sizes[o->size_count++] = 0;
  for (int64_t size = 1; size <= largest; size *= 2) o->sizes[o->size_count++] = size;
}

static void default_collective_sizes(probe_options *o) {
  o->collective_size_count = 0;
  for (int64_t size = 8; size < ((int64_t)1 << 20); size *= 8)
    o->collective_sizes[o->collective_size_count++] = size;
  o->collective_sizes[o->collective_size_count++] = (int64_t)1 << 20;
}

/* The value after option `argv[*i]`, or NULL (message set). */
static const char *value_of(int argc, char **argv, int *i, char *message) {
  if (*i + 1 >= argc) {
    snprintf(message, 512, "%s: expected a value after it", argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

static int parse_one(int argc, char **argv, int *i, probe_options *o, option_flags *set, int *quick,
                     int64_t *max_size, char *message) {
  static const char *const with_value[] = {"-o",         "--collectives",   "--sizes",
                                           "--max-size", "--experiments",   "--pairs",
                                           "--ci",       "--min-reps",      "--max-reps",
                                           "--warmup",   "--ranks-per-node"};
  const char *option = argv[*i];
  if (strcmp(option, "--help") == 0 || strcmp(option, "-h") == 0) return HELP_REQUESTED;
  if (strcmp(option, "--quick") == 0) return *quick = 1, 0;
  int known = 0;
  for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
    known |= strcmp(option, with_value[k]) == 0;
  if (!known) {
    snprintf(message, 512, "%s: expected an option of --help", option);
    return EXIT_USAGE;
  }
  const char *value = value_of(argc, argv, i, message);
  if (!value) return EXIT_USAGE;
  if (strcmp(option, "-o") == 0) return o->p2p_path = value, 0;
  if (strcmp(option, "--collectives") == 0) return o->collectives_path = value, 0;
  if (strcmp(option, "--sizes") == 0) {
    set->sizes = 1;
    return parse_sizes(value, o->sizes, &o->size_count, message, option);
  }
  if (strcmp(option, "--max-size") == 0) {
    if (fs_parse_size(value, strlen(value), max_size) != 0 || *max_size > PROBE_MAX_SIZE)
      return set_error(message, option, "a size from 0 to 1GiB (4MiB)", value);
    return 0;
  }
  if (strcmp(option, "--experiments") == 0) return parse_experiments(value, o->selected, message);
  if (strcmp(option, "--pairs") == 0) {
    if (strcmp(value, "all") != 0 && strcmp(value, "first") != 0)
      return set_error(message, option, "all or first", value);
    return set->pairs = 1, o->all_pairs = strcmp(value, "all") == 0, 0;
  }
  if (strcmp(option, "--ci") == 0) {
    char *end;
    o->rule.ci = strtod(value, &end);
    if (end == value || *end || !(o->rule.ci > 0 && o->rule.ci < 1))
      return set_error(message, option, "a fraction between 0 and 1 (0.025)", value);
    return 0;
  }
  if (strcmp(option, "--min-reps") == 0)
    return set->min_reps = 1, parse_count(value, option, 1, 100000, &o->rule.min_reps, message);
  if (strcmp(option, "--max-reps") == 0)
    return set->max_reps = 1, parse_count(value, option, 1, 100000, &o->rule.max_reps, message);
  if (strcmp(option, "--ranks-per-node") == 0)
    return parse_count(value, option, 1, 1 << 30, &o->ranks_per_node, message);
  return parse_count(value, option, 0, 1000, &o->warmup, message); /* --warmup */
}

/* 0, HELP_REQUESTED, or EXIT_USAGE with message set. */
static int parse_options(int argc, char **argv, probe_options *o, int ranks, char *message) {
  *o = (probe_options){.p2p_path = "-", .warmup = 2, .rule = {0.025, 30, 1000}};
  for (int e = 0; e < PROBE_EXPERIMENTS; e++) o->selected[e] = 1;
  option_flags set = {0};
  int quick = 0;
  int64_t max_size = (int64_t)4 << 20;
  for (int i = 1; i < argc; i++) {
    int status = parse_one(argc, argv, &i, o, &set, &quick, &max_size, message);
    if (status) return status;
  }
  if (quick) { /* explicit options win, in any order */
    const int64_t quick_sizes[] = {0, 8, 1024, 65536};
    if (!set.sizes) memcpy(o->sizes, quick_sizes, sizeof quick_sizes), o->size_count = 4;
    for (int i = 0; i < 3; i++) o->collective_sizes[i] = quick_sizes[i + 1];
    o->collective_size_count = 3;
    if (!set.min_reps) o->rule.min_reps = 5;
    if (!set.max_reps) o->rule.max_reps = 50;
  } else {
    default_collective_sizes(o);
    if (!set.sizes) default_sizes(o, max_size);
  }
  if (!set.pairs) o->all_pairs = ranks <= 16;
  if (o->rule.max_reps < o->rule.min_reps) {
    char got[64];
    snprintf(got, sizeof got, "%lld", (long long)o->rule.max_reps);
    return set_error(message, "--max-reps", "at least --min-reps", got);
  }
  return 0;
}

/* ---- the files ---- */

void probe_note(probe *p, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fs_output *to = p->meta ? p->meta : p->out;
  if (!p->meta) fs_output_puts(to, "# ");
  fs_output_vprintf(to, format, args);
  fs_output_puts(to, "\n");
  va_end(args);
}

static void write_nodes(probe *p, const machine *m) {
  for (int node = 0; node < m->nodes; node++) {
    int first = -1;
    for (int r = 0; r < m->size && first < 0; r++)
      if (m->node_of[r] == node) first = r;
    char ranks[4096] = "";
    size_t used = 0;
    const char *separator = "";
    for (int r = first; r < m->size && used < sizeof ranks; r++) { /* runs as a-b */
      if (m->node_of[r] != node) continue;
      int last = r;
      while (last + 1 < m->size && m->node_of[last + 1] == node) last++;
      int n = last > r ? snprintf(ranks + used, sizeof ranks - used, "%s%d-%d", separator, r, last)
                       : snprintf(ranks + used, sizeof ranks - used, "%s%d", separator, r);
      used += n > 0 ? (size_t)n : 0;
      separator = ",";
      r = last;
    }
    probe_note(p, "node %d host=%s ranks=%s", node, m->hosts[first], ranks);
  }
}

static void write_common_comments(probe *p, const machine *m, const char *date) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  MPI_Get_library_version(version, &length);
  version[strcspn(version, "\r\n")] = 0;
  probe_note(p, "date=%s mpi=%s", date, version);
  write_nodes(p, m);
}

static void write_options(probe *p, const probe_options *o) {
  char extra[64] = "";
  if (o->ranks_per_node) /* the nodes above are pretended */
    snprintf(extra, sizeof extra, " ranks_per_node=%lld", (long long)o->ranks_per_node);
  probe_note(p, "options: ci=%g min_reps=%lld max_reps=%lld warmup=%lld pairs=%s%s", o->rule.ci,
             (long long)o->rule.min_reps, (long long)o->rule.max_reps, (long long)o->warmup,
             o->all_pairs ? "all" : "first", extra);
}

static void write_p2p_header(probe *p, const machine *m, const probe_options *o, const char *date) {
  probe_note(p, "fennelprobe 1 ranks=%d nodes=%d cores=%d host=%s date=%s", m->size, m->nodes,
             m->cores, m->hosts[0], date);
  write_common_comments(p, m, date);
  write_options(p, o);
  fs_output_puts(p->out, "experiment,placement,bytes,reply_bytes,stride,block,count,rank_a,rank_b,"
                         "rank_c,repetitions,min_ns,median_ns,mean_ns,ci95_ns\n");
}

static void write_collectives_header(probe *p, const machine *m, const probe_options *o,
                                     const char *date) {
  probe_note(p, "fennelprobe-collectives 1 ranks=%d nodes=%d cores=%d host=%s", m->size, m->nodes,
             m->cores, m->hosts[0]);
  write_common_comments(p, m, date);
  write_options(p, o);
  fs_output_puts(p->out,
                 "collective,algorithm,ranks,bytes,repetitions,min_ns,median_ns,mean_ns,ci95_ns\n");
}

/* Rank 0 opens the file and its sidecar PATH.meta (none for stdout); every
 * rank learns whether it could. -1: not. */
static int open_everywhere(const machine *m, const char *path, fs_output **out, fs_output **meta) {
  int ok = 1;
  *out = *meta = NULL;
  if (m->rank == 0) {
    fs_error err;
    char *meta_path = malloc(strlen(path) + 6);
    if (meta_path) sprintf(meta_path, "%s.meta", path);
    if (!meta_path)
      snprintf(err.message, sizeof err.message, "out of memory"), ok = 0;
    else if (!(*out = fs_output_open(path, &err)))
      ok = 0;
    else if (strcmp(path, "-") != 0 && !(*meta = fs_output_open(meta_path, &err)))
      ok = 0;
    if (!ok) {
      fprintf(stderr, "fennelprobe: %s\n", err.message);
      if (*out) fs_output_abort(*out), *out = NULL;
    }
    free(meta_path);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? 0 : -1;
}

static int commit(const machine *m, fs_output *out, fs_output *meta) {
  if (m->rank != 0) return 0;
  fs_error err;
  if (meta && fs_output_commit(meta, &err) != 0) {
    fs_output_abort(out);
    fprintf(stderr, "fennelprobe: %s\n", err.message);
    return -1;
  }
  if (fs_output_commit(out, &err) == 0) return 0;
  fprintf(stderr, "fennelprobe: %s\n", err.message);
  return -1;
}

static int any_selected(const probe_options *o) {
  for (int e = 0; e < PROBE_EXPERIMENTS; e++)
    if (o->selected[e]) return 1;
  return 0;
}

/* Measures into path; EXIT_SUCCESS or EXIT_FAILURE_RUN. */
static int measure_into(probe *p, const char *path, int collectives, const char *date) {
  fs_output *out, *meta;
  if (open_everywhere(p->machine, path, &out, &meta) != 0) return EXIT_FAILURE_RUN;
  p->out = out;
  p->meta = meta;
  p->rows = 0;
  if (p->machine->rank == 0) {
    if (collectives)
      write_collectives_header(p, p->machine, p->options, date);
    else
      write_p2p_header(p, p->machine, p->options, date);
  }
  int status = collectives ? probe_collectives(p) : probe_point_to_point(p);
  if (status != 0) {
    if (p->machine->rank == 0) {
      fs_output_abort(out), fprintf(stderr, "fennelprobe: out of memory\n");
      if (meta) fs_output_abort(meta);
    }
    return EXIT_FAILURE_RUN;
  }
  p->out = p->meta = NULL;
  if (commit(p->machine, out, meta) != 0) return EXIT_FAILURE_RUN;
  if (p->machine->rank == 0)
    fprintf(stderr, "fennelprobe: %lld %s rows -> %s\n", (long long)p->rows,
            collectives ? "collective" : "point-to-point", strcmp(path, "-") ? path : "stdout");
  return EXIT_SUCCESS;
}

static int run(const probe_options *o, const machine *m) {
  probe p = {.options = o, .machine = m};
  if (samples_init(&p.samples, o->rule.max_reps) != 0) probe_fail("out of memory");
  char date[32] = "unknown";
  time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc)) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  int64_t start = probe_now_ns();
  int status = EXIT_SUCCESS;
  if (any_selected(o)) status = measure_into(&p, o->p2p_path, 0, date);
  if (status == EXIT_SUCCESS && o->collectives_path)
    status = measure_into(&p, o->collectives_path, 1, date);
  if (m->rank == 0 && status == EXIT_SUCCESS)
    fprintf(stderr, "fennelprobe: %d ranks on %d node(s), %.1f s\n", m->size, m->nodes,
            (double)(probe_now_ns() - start) / 1e9);
  samples_free(&p.samples);
  return status;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  probe_options options;
  char message[512] = "";
  int status = parse_options(argc, argv, &options, size, message);
  if (status != 0) {
    if (rank == 0) {
      if (status == HELP_REQUESTED)
        fputs(usage, stdout);
      else
        fprintf(stderr, "fennelprobe: %s\n(fennelprobe --help lists the options)\n", message);
    }
    MPI_Finalize();
    return status == HELP_REQUESTED ? EXIT_SUCCESS : EXIT_USAGE;
  }
  machine m;
  if (machine_detect(&m, options.ranks_per_node) != 0) probe_fail("out of memory");
  status = run(&options, &m);
  machine_free(&m);
  MPI_Finalize();
  return status;
}
