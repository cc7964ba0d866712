/* test_formats_doc.c: docs/FORMATS.md cannot drift from the readers and
 * writers it describes. Every fenced block whose info string holds
 * `file=NAME` is extracted (a `sh` block: the lines of its
 * `cat > NAME <<'EOF'` here-document; any other block: all of it); the
 * input examples are written under their names into a scratch directory
 * and read by the fennelsim binary run there, each asserting the exact
 * times derived by hand below (and in the document); the output examples
 * are compared with what fennelsim writes for the document's inputs.
 * The number of examples is asserted, so removing a marker fails too.
 *
 * Set FENNELSIM_SHOW_OUTPUT=1 to print what fennelsim wrote for an output
 * example that differs (to update the document after a format change). */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

#define DOC FENNELSIM_SOURCE_ROOT "/docs/FORMATS.md"
#define MAX_EXAMPLES 64

typedef struct example {
  char name[128];
  char *text; /* the file's bytes, lines ending in '\n' */
  int input;  /* from a sh here-document: a file the reader gets */
} example;

typedef struct examples {
  example item[MAX_EXAMPLES];
  int count;
} examples;

/* The examples in document order, in the order the document shows them. */
static const char *const expected_names[] = {"put.dag",
                                             "kinds.dag",
                                             "pingpong.goal",
                                             "pingpong.dag",
                                             "pipelined.xml",
                                             "lognp.xml",
                                             "shm.table",
                                             "net.table",
                                             "two-nodes.xml",
                                             "pairs.txt",
                                             "lmo.txt",
                                             "factors.txt",
                                             "detours.txt",
                                             "rec/rank-0.fstrace",
                                             "rec/rank-1.fstrace",
                                             "lap/pmpi-trace-rank-0.txt",
                                             "lap/pmpi-trace-rank-1.txt",
                                             "sg.txt",
                                             "p2p.csv",
                                             "coll.csv",
                                             "allreduce-2.xml",
                                             "put.json",
                                             "put-run.csv",
                                             "put-timeline.csv",
                                             "samples.csv",
                                             "samples.csv.meta",
                                             "fitted.xml"};
#define EXPECTED_COUNT ((int)(sizeof expected_names / sizeof expected_names[0]))

static void append(char **text, size_t *length, const char *line, size_t n) {
  *text = realloc(*text, *length + n + 2);
  memcpy(*text + *length, line, n);
  (*text)[*length + n] = '\n';
  *length += n + 1;
  (*text)[*length] = 0;
}

/* The value of file= in a fence's info string, or 0. */
static int file_name(const char *info, char name[128]) {
  const char *at = strstr(info, "file=");
  if (!at) return 0;
  at += 5;
  size_t n = strcspn(at, " \t\r\n");
  ck_assert_msg(n > 0 && n < 128, "file= without a name in %s", info);
  memcpy(name, at, n);
  name[n] = 0;
  return 1;
}

/* Splits the document into lines and collects the marked blocks. */
static void read_examples(examples *out) {
  char *doc = fs_test_read_file(DOC, NULL);
  ck_assert_msg(doc != NULL, "cannot read " DOC);
  out->count = 0;
  example *open = NULL;
  int in_fence = 0, in_heredoc = 0;
  size_t length = 0;
  for (char *line = doc, *next; *line; line = next) {
    /* one line at a time, blank ones included */
    char *end = strchr(line, '\n');
    next = end ? end + 1 : line + strlen(line);
    if (end) *end = 0;
    if (!in_fence && strncmp(line, "```", 3) == 0) {
      in_fence = 1;
      char name[128];
      if (file_name(line + 3, name)) {
        ck_assert_int_lt(out->count, MAX_EXAMPLES);
        open = &out->item[out->count++];
        snprintf(open->name, sizeof open->name, "%s", name);
        open->text = calloc(1, 1);
        open->input = strncmp(line + 3, "sh", 2) == 0;
        in_heredoc = 0;
        length = 0;
      }
      continue;
    }
    if (in_fence && strncmp(line, "```", 3) == 0) {
      if (open && open->input)
        ck_assert_msg(length > 0 && !in_heredoc, "%s: no complete cat > %s <<'EOF' ... EOF",
                      open->name, open->name);
      in_fence = 0;
      open = NULL;
      continue;
    }
    if (!open) continue;
    if (!open->input) {
      append(&open->text, &length, line, strlen(line));
      continue;
    }
    char start[200];
    snprintf(start, sizeof start, "cat > %s <<'EOF'", open->name);
    if (!in_heredoc && strcmp(line, start) == 0)
      in_heredoc = 1;
    else if (in_heredoc && strcmp(line, "EOF") == 0)
      in_heredoc = 0;
    else if (in_heredoc)
      append(&open->text, &length, line, strlen(line));
  }
  free(doc);
}

static const example *find(const examples *e, const char *name) {
  for (int i = 0; i < e->count; i++)
    if (strcmp(e->item[i].name, name) == 0) return &e->item[i];
  ck_abort_msg("no example file=%s in " DOC, name);
  return NULL;
}

static void free_examples(examples *e) {
  for (int i = 0; i < e->count; i++) free(e->item[i].text);
}

/* ---- a scratch directory holding the input examples ---- */

static char scratch[64];
static examples doc;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static void setup(void) {
  read_examples(&doc);
  strcpy(scratch, "/tmp/fennelsim-formats-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(scratch));
  for (int i = 0; i < doc.count; i++) {
    if (!doc.item[i].input) continue;
    char path[256];
    snprintf(path, sizeof path, "%s/%s", scratch, doc.item[i].name);
    char *slash = strrchr(path, '/');
    *slash = 0;
    mkdir(path, 0700); /* rec/, lap/ (the scratch itself exists) */
    *slash = '/';
    ck_assert_int_eq(fs_test_write_file(path, doc.item[i].text, 0), 0);
  }
}

static void teardown(void) {
  nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  free_examples(&doc);
}

/* Runs `fennelsim ARGS` in the scratch directory, as a user there would
 * (no FENNELSIM_PATH); stdout in *out (caller frees). Returns the status. */
static int run(const char *arguments, char **out) {
  char command[2048];
  snprintf(command, sizeof command,
           "cd '%s' && env -u FENNELSIM_PATH '%s' %s </dev/null >stdout.txt 2>stderr.txt", scratch,
           FENNELSIM_BINARY, arguments);
  int status = system(command);
  char path[256];
  snprintf(path, sizeof path, "%s/stdout.txt", scratch);
  char *text = fs_test_read_file(path, NULL);
  if (out)
    *out = text;
  else
    free(text);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    snprintf(path, sizeof path, "%s/stderr.txt", scratch);
    char *err = fs_test_read_file(path, NULL);
    fprintf(stderr, "fennelsim %s: %s", arguments, err ? err : "(no stderr)\n");
    free(err);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* `fennelsim run ARGS --format json` must exit 0 and print `expected`
 * (the makespan and per-rank finish times) somewhere in its object. */
static void assert_run(const char *arguments, const char *expected) {
  char command[1024], *out = NULL;
  snprintf(command, sizeof command, "run %s --format json", arguments);
  ck_assert_int_eq(run(command, &out), 0);
  ck_assert_msg(out && strstr(out, expected), "fennelsim %s: expected %s in\n%s", command, expected,
                out ? out : "(nothing)");
  free(out);
}

/* A file fennelsim wrote in the scratch directory equals the example. */
static void assert_written(const char *written, const char *example_name) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", scratch, written);
  char *text = fs_test_read_file(path, NULL);
  ck_assert_msg(text != NULL, "fennelsim wrote no %s", written);
  const char *want = find(&doc, example_name)->text;
  if (strcmp(text, want) != 0 && getenv("FENNELSIM_SHOW_OUTPUT"))
    fprintf(stderr, "%s as fennelsim writes it:\n%s", example_name, text);
  ck_assert_msg(strcmp(text, want) == 0, "%s differs from the example %s in " DOC ":\n%s\nvs\n%s",
                written, example_name, text, want);
  free(text);
}

/* ---- the examples are all there ---- */

START_TEST(every_marked_example_is_found) {
  ck_assert_int_eq(doc.count, EXPECTED_COUNT); /* 26 */
  for (int i = 0; i < EXPECTED_COUNT; i++) {
    ck_assert_str_eq(doc.item[i].name, expected_names[i]);
    ck_assert_msg(doc.item[i].text[0] != 0, "example %s is empty", doc.item[i].name);
  }
}
END_TEST

/* ---- schedules ---- */

/* put.dag under hockney, alpha 1 us, beta 1 ns/B: a put of 8 B costs
 * 1000 + 8 = 1008 and holds its sender until it lands. p0 0-1008, c1
 * 1008-1018, q1 1018-2026, c0 (after p0:local = 1008 and q1 = 2026)
 * 2026-2036. Read gzip-compressed too (`gzip -k put.dag`). */
START_TEST(dag_example) {
  assert_run("put.dag --model hockney --param alpha=1us --param beta=1ns",
             "\"makespan_ns\": 2036, \"finish_ns\": [2036, 2026]");
  char command[512];
  snprintf(command, sizeof command, "cd '%s' && gzip -k put.dag", scratch);
  ck_assert_int_eq(system(command), 0);
  assert_run("put.dag.gz --model hockney --param alpha=1us --param beta=1ns",
             "\"makespan_ns\": 2036, \"finish_ns\": [2036, 2026]");
}
END_TEST

/* kinds.dag under hockney (1 us, 1 ns/B). Rank 0: start skewed to 100,
 * sleep 100-150, send of 100 B 150-1250 (sender busy to arrival). Rank 1:
 * recv posted at 0, message received at 1250, z 1250-1255. Rank 2: get of
 * 10 B costs 2 alpha + 10 beta = 2010 (initiator busy), k (concurrent,
 * after g's start) 0-20 beside it, m (any=1 of g, k) ready at 20, waits for
 * the CPU until 2010: 2010-2011. */
START_TEST(dag_every_kind) {
  assert_run("kinds.dag --model hockney --param alpha=1us --param beta=1ns",
             "\"makespan_ns\": 2011, \"finish_ns\": [1250, 1255, 2011]");
}
END_TEST

/* pingpong.goal under loggops with LogGOPSim's defaults (L 2500, o 1500,
 * g 1000, G 6/B, O 0): calc 0-100; the send holds rank 0's CPU 100-1600;
 * arrival 100 + o + L = 4100; the receipt holds rank 1's CPU for
 * o + max(7 O, 7 G) = 1542, to 5642. Converted to .dag it is the
 * document's pingpong.dag, byte for byte. */
START_TEST(goal_example) {
  assert_run("pingpong.goal --model loggops", "\"makespan_ns\": 5642, \"finish_ns\": [1600, 5642]");
  ck_assert_int_eq(run("convert pingpong.goal pingpong.dag", NULL), 0);
  assert_written("pingpong.dag", "pingpong.dag");
}
END_TEST

/* ---- models, tables, platforms ---- */

/* pipelined.xml: alpha_p 1 us, alpha_r 100 ns at every size, beta 0. A put
 * at t: local t + 100, remote t + 1100. p0 100/1100, c1 1100-1110, q1
 * 1210/2210, c0 2210-2220; rank 1's CPU is free at 1210. */
START_TEST(model_file_example) {
  assert_run("put.dag --model pipelined.xml", "\"makespan_ns\": 2220, \"finish_ns\": [2220, 1210]");
}
END_TEST

/* lognp.xml, tables inline (they were read from the XML file itself,
 * "lognp.xml:1:1: expected a message size"): a put costs o_mw + o_net =
 * 1000 + 2000, the sender's CPU o_mw/2 = 500, the receiver's half takes no
 * CPU. p0 CPU 0-500, remote 3000; c1 3000-3010; q1 CPU 3010-3510, remote
 * 6010; c0 (after p0:local = 500 and q1) 6010-6020. */
START_TEST(lognp_model_file_example) {
  assert_run("put.dag --model lognp.xml", "\"makespan_ns\": 6020, \"finish_ns\": [6020, 3510]");
}
END_TEST

/* taulop with shm.table (L(m,1) = 1 us, L(m,2) = 2 us) and net.table
 * (10 us), shm_o 0, net_o 500 ns. One node: a one-segment message costs
 * o + 2 L(S,1) = 2000 (in and out of the shared buffer): p0 0-2000, c1
 * 2000-2010, q1 2010-4010, c0 4010-4020; rank 1's CPU holds o + its copy,
 * 1000, to 3010. Two nodes (two-nodes.xml): o + 2 L0(m,1) + L1(m,1) =
 * 500 + 2000 + 10000 = 12500: p0 0-12500, c1 -12510, q1 -25010, c0 -25020;
 * rank 1's CPU: o + its copy = 1500 after 12510, 14010. */
START_TEST(table_and_platform_examples) {
  const char *model = "put.dag --model taulop --param shm_table=shm.table --param "
                      "net_table=net.table --param shm_o=0ns --param net_o=500ns";
  char arguments[512];
  snprintf(arguments, sizeof arguments, "%s --nodes 1 --cores 2", model);
  assert_run(arguments, "\"makespan_ns\": 4020, \"finish_ns\": [4020, 3010]");
  snprintf(arguments, sizeof arguments, "%s --platform two-nodes.xml", model);
  assert_run(arguments, "\"makespan_ns\": 25020, \"finish_ns\": [25020, 14010]");
}
END_TEST

/* pairs.txt: 0->1 alpha 1 us (matrix), beta 2 ns (directed link): 1016;
 * 1->0 alpha 2 us, beta 1 ns (default): 2008. p0 0-1016, c1 1016-1026,
 * q1 1026-3034, c0 3034-3044 (hetero-hockney keeps the sender busy). */
START_TEST(hetero_hockney_example) {
  assert_run("put.dag --model hetero-hockney --param file=pairs.txt",
             "\"makespan_ns\": 3044, \"finish_ns\": [3044, 3034]");
}
END_TEST

/* lmo.txt: C0 100, C1 200, t0 0.5 ns/B, t1 0, L 2 us both ways (the link
 * is not directed), invbeta 1 ns/B. A message of 8 B costs C_i + L + C_j +
 * 8 (t_i + invbeta + t_j) = 100 + 2000 + 200 + 12 = 2312 either way; the
 * sender's CPU C_i + 8 t_i. p0 0-2312, c1 2312-2322, q1 2322-4634, c0
 * 4634-4644; rank 1's CPU 2322 + 200 = 2522. */
START_TEST(lmo_example) {
  assert_run("put.dag --model lmo --param file=lmo.txt",
             "\"makespan_ns\": 4644, \"finish_ns\": [4644, 2522]");
}
END_TEST

/* ---- noise files ---- */

/* factors.txt holds one sample, 2: every host interval doubles. Hockney's
 * put is a host interval (the sender is busy until arrival): 2016, the
 * computes 20. p0 0-2016, c1 -2036, q1 -4052, c0 -4072. */
START_TEST(empirical_example) {
  assert_run("put.dag --model hockney --param alpha=1us --param beta=1ns --noise "
             "host=empirical:file=factors.txt",
             "\"makespan_ns\": 4072, \"finish_ns\": [4072, 4052]");
}
END_TEST

/* detours.txt: detours [0, 100) and [1000, 1050), repeating every 1050 ns,
 * so the CPU is never free for more than 900 ns in a row: p0's 1008 ns
 * occupation must meet a detour whatever the seed's offset, and the
 * makespan passes the noiseless 2036 ns (by at most the detours met, far
 * below 2 x 2036). */
START_TEST(detour_trace_example) {
  char *out = NULL;
  ck_assert_int_eq(run("run put.dag --model hockney --param alpha=1us --param beta=1ns "
                       "--noise-trace detours.txt --seed 3 --format json",
                       &out),
                   0);
  const char *at = out ? strstr(out, "\"makespan_ns\": ") : NULL;
  ck_assert_ptr_nonnull(at);
  double makespan = strtod(at + strlen("\"makespan_ns\": "), NULL);
  ck_assert_msg(makespan > 2036 && makespan < 4072, "makespan %g", makespan);
  free(out);
}
END_TEST

/* ---- traces ---- */

/* rec/ (fennelsim's format) under hockney (1 us, 1 ns/B); the gaps are
 * computation from the end of MPI_Init. Rank 0: 1000 computing, send of
 * 8 B 1000-2008, 1000 computing: 3008. Rank 1: 500 computing, irecv, wait
 * until the message lands at 2008, 500 computing: 2508. */
START_TEST(fennel_trace_example) {
  assert_run("rec --model hockney --param alpha=1us --param beta=1ns",
             "\"makespan_ns\": 3008, \"finish_ns\": [3008, 2508]");
}
END_TEST

/* lap/ (liballprof, microseconds): rank 0 computes 1 us, sends 1 double
 * (8 B) 1000-2008, computes 2 us: 4008. Rank 1 computes 0.5 us, receives
 * at 2008, computes 0.5 us: 2508. */
START_TEST(liballprof_example) {
  assert_run("lap --model hockney --param alpha=1us --param beta=1ns",
             "\"makespan_ns\": 4008, \"finish_ns\": [4008, 2508]");
}
END_TEST

/* sg.txt (SimGrid): 1000 flops at the default 1e9 flop/s = 1000 ns, then
 * a send of 8 bytes, received at 1000 + 1008 = 2008. */
/* allreduce-2.xml (an MSCCL schedule), lowered by gen msccl: each send
 * arrives at alpha + beta*1024 = 2024 ns, then the add of --reduce-time
 * 100 ns: 2124 ns on both ranks. */
START_TEST(msccl_example) {
  ck_assert_int_eq(run("gen msccl --schedule allreduce-2.xml --size 1KiB --reduce-time 100ns -o "
                       "allreduce-2.dag",
                       NULL),
                   0);
  assert_run("allreduce-2.dag --model hockney --param alpha=1us --param beta=1ns",
             "\"makespan_ns\": 2124, \"finish_ns\": [2124, 2124]");
}
END_TEST

START_TEST(simgrid_example) {
  assert_run("sg.txt --model hockney --param alpha=1us --param beta=1ns",
             "\"makespan_ns\": 2008, \"finish_ns\": [2008, 2008]");
}
END_TEST

/* ---- probe CSVs ---- */

/* p2p.csv: RTT/2 = alpha + beta m over the 0/0 and 1000/1000 round trips
 * (minima 2000 and 4000): alpha = 1000 ns, beta = 1 ns/B; the file
 * written is the document's fitted.xml. */
START_TEST(probe_csv_example) {
  ck_assert_int_eq(run("fit p2p.csv --model hockney -o fitted.xml", NULL), 0);
  assert_written("fitted.xml", "fitted.xml");
}
END_TEST

/* coll.csv: a binomial bcast of 8 B over 2 ranks is one message,
 * 1000 + 8 = 1008 ns, against 1500 measured. */
START_TEST(collectives_csv_example) {
  char *out = NULL;
  ck_assert_int_eq(run("validate coll.csv --model hockney --param alpha=1us --param beta=1ns "
                       "--format json",
                       &out),
                   0);
  ck_assert_msg(out && strstr(out, "\"algorithm\": \"bcast-binomial\", \"named\": true, "
                                   "\"measured_ns\": 1500, \"predicted_ns\": 1008"),
                "%s", out ? out : "(nothing)");
  free(out);
}
END_TEST

/* ---- outputs ---- */

/* Replaces the digits after each measured key ("wall_s": 0.000075) by 0. */
static void mask_measured(char *json) {
  static const char *const keys[] = {"\"wall_s\": ", "\"load_s\": ", "\"events_per_s\": "};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    for (char *at = strstr(json, keys[k]); at; at = strstr(at + 1, keys[k])) {
      char *value = at + strlen(keys[k]), *end = value + strspn(value, "0123456789.e+-");
      ck_assert_ptr_ne(value, end);
      value[0] = '0';
      memmove(value + 1, end, strlen(end) + 1);
    }
}

START_TEST(json_output_example) {
  char *out = NULL;
  ck_assert_int_eq(run("run put.dag --model hockney --param alpha=1us --param beta=1ns "
                       "--format json",
                       &out),
                   0);
  char *want = strdup(find(&doc, "put.json")->text);
  mask_measured(out);
  mask_measured(want);
  if (strcmp(out, want) != 0 && getenv("FENNELSIM_SHOW_OUTPUT"))
    fprintf(stderr, "put.json as fennelsim writes it:\n%s", out);
  ck_assert_str_eq(out, want);
  free(out);
  free(want);
}
END_TEST

/* Replaces the last two fields of each line after the header (wall_s and
 * load_s, measured) by 0. */
static void mask_measured_csv(char *csv) {
  char *line = strchr(csv, '\n');
  while (line && line[1]) {
    line++;
    char *end = strchr(line, '\n');
    ck_assert_ptr_nonnull(end);
    char *comma = end;
    for (int k = 0; k < 2; k++) do
        comma--;
      while (comma > line && *comma != ',');
    ck_assert_int_eq(*comma, ',');
    memmove(comma + 4, end, strlen(end) + 1);
    memcpy(comma, ",0,0", 4);
    line = strchr(comma, '\n');
  }
}

/* The run's CSV row: the JSON example's numbers (2036 ns, 6 events), no
 * noise and so no seed. */
START_TEST(run_csv_output_example) {
  char *out = NULL;
  ck_assert_int_eq(run("run put.dag --model hockney --param alpha=1us --param beta=1ns "
                       "--format csv",
                       &out),
                   0);
  char *want = strdup(find(&doc, "put-run.csv")->text);
  mask_measured_csv(out);
  mask_measured_csv(want);
  if (strcmp(out, want) != 0 && getenv("FENNELSIM_SHOW_OUTPUT"))
    fprintf(stderr, "put-run.csv as fennelsim writes it:\n%s", out);
  ck_assert_str_eq(out, want);
  free(out);
  free(want);
}
END_TEST

START_TEST(timeline_output_example) {
  ck_assert_int_eq(run("run put.dag --model hockney --param alpha=1us --param beta=1ns "
                       "--timeline put-timeline.csv",
                       NULL),
                   0);
  assert_written("put-timeline.csv", "put-timeline.csv");
}
END_TEST

/* A constant factor 2 on every CPU occupation: 4072 and 4052 (as
 * empirical_example) on both seeds. The sidecar names the study: the
 * input's FNV-1a hash is of the document's put.dag, byte for byte. */
START_TEST(samples_output_example) {
  ck_assert_int_eq(run("run put.dag --model hockney --param alpha=1us --param beta=1ns --noise "
                       "host=constant:value=2 --seeds 2 --samples samples.csv",
                       NULL),
                   0);
  assert_written("samples.csv", "samples.csv");
  assert_written("samples.csv.meta", "samples.csv.meta");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("formats_doc");
  TCase *t = tcase_create("examples");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, every_marked_example_is_found);
  tcase_add_test(t, dag_example);
  tcase_add_test(t, dag_every_kind);
  tcase_add_test(t, goal_example);
  tcase_add_test(t, model_file_example);
  tcase_add_test(t, lognp_model_file_example);
  tcase_add_test(t, table_and_platform_examples);
  tcase_add_test(t, hetero_hockney_example);
  tcase_add_test(t, lmo_example);
  tcase_add_test(t, empirical_example);
  tcase_add_test(t, detour_trace_example);
  tcase_add_test(t, fennel_trace_example);
  tcase_add_test(t, liballprof_example);
  tcase_add_test(t, simgrid_example);
  tcase_add_test(t, msccl_example);
  tcase_add_test(t, probe_csv_example);
  tcase_add_test(t, collectives_csv_example);
  tcase_add_test(t, json_output_example);
  tcase_add_test(t, run_csv_output_example);
  tcase_add_test(t, timeline_output_example);
  tcase_add_test(t, samples_output_example);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return fs_test_run(suite()); }
