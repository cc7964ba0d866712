/* test_cli_help.c: the self-description of the fennelsim command (issue 16,
 * items 6 and 7): `run --help` lists every model with the keys it reads,
 * `gen --help` says what --size means per collective, `gen --list` (text
 * and JSON) says what each generator is, heterogeneous parameter files
 * want units, schedules are recognized by content (stdin, unknown
 * extensions), and missing arguments get a one-line error with an example. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "models/model_catalog.h"
#include "models/model_registry.h"
#include "test_support.h"

static char *out, *err;

/* text cut at its first newline (in place). */
static const char *first_line(char *text) {
  ck_assert_ptr_nonnull(text);
  char *end = strchr(text, '\n');
  if (end) *end = 0;
  return text;
}

/* A temporary file holding text (length 0: strlen). Caller frees the path. */
static char *temp_file(const char *suffix, const char *text) {
  char *path = fs_test_temp_path(suffix);
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

/* ---- item 6: run --help from the model catalog ---- */

/* The platform keys every model accepts (--nodes, --cores, --mapping,
 * --platform); run --help documents them with those options. */
static int platform_key(const char *key) {
  return strcmp(key, "nodes") == 0 || strcmp(key, "cores") == 0 || strcmp(key, "mapping") == 0 ||
         strcmp(key, "platform") == 0;
}

/* The keys model `name` looks up, as fs_parameters.asked records them.
 * The files named are missing: every constructor takes its keys before it
 * opens them (required keys given so that none stops early). */
static void keys_read(const char *name, int compute, fs_parameters *params) {
  fs_parameter items[] = {{"shm_table", "/nonexistent/a", 0, NULL, 0},
                          {"net_table", "/nonexistent/b", 0, NULL, 0},
                          {"mw_table", "/nonexistent/c", 0, NULL, 0},
                          {"file", "/nonexistent/d", 0, NULL, 0},
                          {"gamma_table", "/nonexistent/e", 0, NULL, 0}};
  *params = (fs_parameters){.items = items, .count = 5};
  fs_error e = {{0}};
  if (compute) {
    fs_compute_model m;
    if (fs_compute_model_create(name, params, &m, &e) == 0) fs_compute_model_destroy(&m);
  } else {
    fs_network_model m;
    if (fs_network_model_create(name, params, &m, &e) == 0) fs_network_model_destroy(&m);
  }
}

static int listed(const fs_model_info *m, const char *key) {
  for (int k = 0; k < m->key_count; k++)
    if (strcmp(m->keys[k].key, key) == 0) return 1;
  return 0;
}

/* Whether name is one of a ", "-separated list. */
static int listed_in(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *at = strstr(list, name); at; at = strstr(at + 1, name))
    if ((at == list || (at - list >= 2 && at[-2] == ',')) && (at[n] == ',' || at[n] == 0)) return 1;
  return 0;
}

/* Every key a model reads is in the catalog and every catalog key is read,
 * and every model the catalog shows is registered under its kind: the
 * catalog, and so run --help, cannot drift from the constructors. */
START_TEST(catalog_is_what_models_read) {
  int count;
  const fs_model_info *m = fs_model_catalog(&count);
  for (int i = 0; i < count; i++) {
    char names[64];
    snprintf(names, sizeof names, "%s", m[i].names);
    for (char *name = strtok(names, ", "); name; name = strtok(NULL, ", ")) {
      const char *list = m[i].compute ? fs_compute_model_names() : fs_network_model_names();
      ck_assert_msg(listed_in(list, name), "run --help shows %s, not in \"%s\"", name, list);
      ck_assert_int_eq(fs_network_model_built_in(name), !m[i].compute);
      fs_parameters params;
      keys_read(name, m[i].compute, &params);
      int read = 0;
      for (int k = 0; k < params.asked_count; k++) {
        if (platform_key(params.asked[k])) continue;
        ck_assert_msg(listed(&m[i], params.asked[k]), "%s reads %s, which run --help omits", name,
                      params.asked[k]);
        read++;
      }
      ck_assert_msg(read == m[i].key_count, "%s: run --help lists %d keys, the model reads %d",
                    name, m[i].key_count, read);
    }
  }
}
END_TEST

/* Every registered model is in the catalog (the registry's name lists). */
START_TEST(catalog_has_every_registered_model) {
  ck_assert_int_eq(listed_in("hockney, lmo", "lm"), 0);
  ck_assert_int_eq(listed_in("hockney, lmo", "lmo"), 1);
  const char *lists[2] = {fs_network_model_names(), fs_compute_model_names()};
  int count;
  const fs_model_info *m = fs_model_catalog(&count);
  for (int l = 0; l < 2; l++) {
    char names[256];
    snprintf(names, sizeof names, "%s", lists[l]);
    for (char *name = strtok(names, ", "); name; name = strtok(NULL, ", ")) {
      int found = 0;
      for (int i = 0; i < count; i++) found |= m[i].compute == l && listed_in(m[i].names, name);
      ck_assert_msg(found, "model %s is registered but not in run --help", name);
    }
  }
}
END_TEST

/* run --help shows each model and each of its keys. */
START_TEST(run_help_lists_every_model_and_key) {
  ck_assert_int_eq(fennelsim("run --help"), 0);
  int count;
  const fs_model_info *m = fs_model_catalog(&count);
  for (int i = 0; i < count; i++) {
    char line[512];
    snprintf(line, sizeof line, "\n  %s: %s\n", m[i].names, m[i].summary);
    fs_test_contains(out, line);
    for (int k = 0; k < m[i].key_count; k++) {
      snprintf(line, sizeof line, "\n      %-15s %s\n", m[i].keys[k].key, m[i].keys[k].help);
      fs_test_contains(out, line);
    }
  }
  /* the keys issue 16 found missing, spelled out */
  fs_test_contains(out,
                   "\n  lognp, log3p: log_3 P: middleware, network, middleware stages by size and "
                   "stride\n      mw_table        FILE (required): rows SIZE O_MW [L_MW(d1) ... "
                   "L_MW(dk)]\n      net_table       FILE (required): rows SIZE O_NET\n"
                   "      strides         d1,...,dk (none): increasing sizes, the strides of the "
                   "L_MW columns\n");
  fs_test_contains(out,
                   "\n  lmo: extended LMO: per-rank C, t and per-pair L, invbeta from a file\n"
                   "      file            FILE (required): per-rank C, t and per-pair L, invbeta "
                   "(times, times\n                      per byte or bandwidths, each with its "
                   "unit)\n");
  fs_test_contains(out, "\n      S               size (65535B): eager/rendezvous threshold\n");
  ck_assert_int_eq(fs_test_occurrences(out, "network models (--model NAME)"), 1);
  ck_assert_int_eq(fs_test_occurrences(out, "compute models (--compute NAME):\n"), 1);
}
END_TEST

/* ---- item 6: gen --help, gen --list ---- */

START_TEST(gen_help_says_what_size_means) {
  ck_assert_int_eq(fennelsim("gen --help"), 0);
  fs_test_contains(out,
                   "--size S by collective (the generators' data flow):\n"
                   "  barrier    each barrier message (MPICH sends 0 B: --size 0)\n"
                   "  bcast      the whole vector: the root's S bytes reach every rank\n"
                   "  reduce     the whole vector: every rank's S bytes, reduced at the root\n"
                   "  allreduce  the whole vector: every rank's S bytes, reduced on all\n"
                   "  scatter    per-rank block: the root holds N*S bytes, each rank gets S\n"
                   "  gather     per-rank block: each rank's S bytes, the root ends with N*S\n"
                   "  allgather  per-rank block: each rank's S bytes, all end with N*S\n"
                   "  alltoall   per-pair block: each rank sends S bytes to every rank (N*S in, "
                   "N*S out)\n"
                   "  reduce-scatter per-rank block: every rank's N*S bytes, rank r ends with the "
                   "sum of block r\n"
                   "  pingpong   each message; multicast: each put (the whole vector)\n");
  fs_test_contains(out,
                   "these use puts (.dag only):\n  pingpong multicast allreduce-rd allreduce-rm\n");
}
END_TEST

/* What the registry says of each generator is what its code does: the
 * collective its data flow records (none for schedgen's patterns, which
 * are marked not correct), and GOAL output exactly for two-sided ones. */
START_TEST(generator_metadata_matches_code) {
  int count;
  const fs_generator *g = fs_generator_list(&count);
  int not_correct = 0;
  for (int i = 0; i < count; i++) {
    if (g[i].traits & FS_GEN_SELECTOR) continue; /* test_mpi_selection: they run the others */
    if (g[i].traits & FS_GEN_FILE) continue;     /* msccl: test_msccl */
    fs_generator_options o = {.ranks = 8, .size = 64, .rounds = 1};
    /* allreduce-rm's heuristic; the composition's reduce-linear prices --reduce-time */
    int rm = strcmp(g[i].name, "allreduce-rm") == 0;
    const char *schedule = rm ? "auto" : "reduce-linear+bcast-binomial";
    if (g[i].options & FS_GEN_SCHEDULE) o.schedule = schedule;
    if (strcmp(g[i].name, "pingpong") == 0) o.ranks = 2;
    fs_data_flow flow;
    fs_data_flow_init(&flow);
    o.flow = &flow;
    fs_error e = {{0}};
    fs_program *p = g[i].generate(&o, &e);
    ck_assert_msg(p != NULL, "%s: %s", g[i].name, e.message);
    fs_collective expected = g[i].traits & FS_GEN_NOT_CORRECT ? FS_COLLECTIVE_NONE
                                                              : g[i].collective;
    ck_assert_msg(flow.collective == expected, "%s records %s, the registry says %s", g[i].name,
                  fs_collective_name(flow.collective), fs_collective_name(g[i].collective));
    fs_program_free(p);
    fs_data_flow_free(&flow);
    not_correct += (g[i].traits & FS_GEN_NOT_CORRECT) != 0;
    /* GOAL: written exactly when two-sided (reduces priced by --reduce-time) */
    ck_assert_int_eq(fennelsim("gen %s --ranks %d %s%s %s --format goal -o /dev/null", g[i].name,
                               o.ranks, g[i].options & FS_GEN_SCHEDULE ? "--schedule " : "",
                               g[i].options & FS_GEN_SCHEDULE ? schedule : "",
                               g[i].options & FS_GEN_REDUCE_TIME ? "--reduce-time 10ns" : ""),
                     g[i].traits & FS_GEN_TWO_SIDED ? 0 : 2);
  }
  ck_assert_int_eq(not_correct, 2);
  ck_assert_str_eq(fs_generator_find("allreduce-recdoub")->name, "allreduce-recdoub");
  ck_assert(fs_generator_find("allreduce-recdoub")->traits & FS_GEN_NOT_CORRECT);
  ck_assert(fs_generator_find("barrier-dissemination-schedgen")->traits & FS_GEN_NOT_CORRECT);
}
END_TEST

START_TEST(gen_list_marks_incorrect_patterns) {
  ck_assert_int_eq(fennelsim("gen --list"), 0);
  fs_test_contains(
      out, "\nallreduce-recdoub               two-sided recursive halving then doubling, N a "
           "power of 2 (schedgen allreduce_recdoub)  [not a correct collective: picked only "
           "when named]\n");
  fs_test_contains(out,
                   "\nbarrier-dissemination-schedgen  schedgen's dissemination pattern op for op "
                   "(LogGOPSim reference; not a correct barrier)  [not a correct collective: "
                   "picked "
                   "only when named]\n");
  ck_assert_int_eq(fs_test_occurrences(out, "[not a correct collective"), 2);
  fs_test_contains(out,
                   "\nallreduce-rabenseifner          two-sided Rabenseifner allreduce: recursive "
                   "halving then recursive doubling\n");
  ck_assert_int_eq(fennelsim("gen --list --format yaml"), 2);
  ck_assert_str_eq(err, "fennelsim gen: --list --format yaml: expected text or json (e.g. "
                        "fennelsim gen --list --format json)\n");
}
END_TEST

/* `fennelsim gen` alone says no generator was named and lists them all on
 * stderr (the same lines as gen --list), exit 2. */
START_TEST(gen_alone_lists_generators) {
  ck_assert_int_eq(fennelsim("gen --list"), 0);
  char *list = strdup(out);
  ck_assert_int_eq(fennelsim("gen"), 2);
  ck_assert_str_eq(out, "");
  const char *first = "fennelsim gen: no generator named; give one of these (fennelsim gen NAME "
                      "--ranks N --size S -o FILE):\n";
  ck_assert_int_eq(strncmp(err, first, strlen(first)), 0);
  ck_assert_str_eq(err + strlen(first), list);
  int count;
  fs_generator_list(&count);
  ck_assert_int_eq(fs_test_occurrences(err, "\n"), count + 1); /* the line above, the generators */
  free(list);
}
END_TEST

/* JSON that python's json module reads, one object per generator with
 * the documented members; the first and the recdoub entries exactly. */
START_TEST(gen_list_json) {
  char *path = fs_test_temp_path(".json");
  ck_assert_int_eq(fennelsim("gen --list --format json"), 0);
  ck_assert_int_eq(fs_test_write_file(path, out, 0), 0);
  char check[1024];
  int count;
  fs_generator_list(&count);
  snprintf(check, sizeof check,
           "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
           "assert isinstance(d, list) and len(d) == %d; "
           "assert all(set(g) == {\"name\", \"collective\", \"description\", \"size\", "
           "\"options\", "
           "\"writes_goal\", \"moves_data_correctly\"} for g in d); "
           "assert [g[\"name\"] for g in d if not g[\"moves_data_correctly\"]] == "
           "[\"allreduce-recdoub\", \"barrier-dissemination-schedgen\"]' '%s'",
           count, path);
  ck_assert_int_eq(system(check), 0);
  char *json = fs_test_read_file(path, NULL);
  ck_assert_ptr_nonnull(json);
  fs_test_contains(json,
                   "[\n  {\"name\": \"pingpong\", \"collective\": \"none\", \"description\": \"R "
                   "round trips of S bytes between ranks 0 and 1 (--rounds R)\", \"size\": \"each "
                   "message\", \"options\": [\"--ranks\", \"--size\", \"--rounds\"], "
                   "\"writes_goal\": "
                   "false, \"moves_data_correctly\": true},\n");
  fs_test_contains(json,
                   "  {\"name\": \"allreduce-recdoub\", \"collective\": \"allreduce\", "
                   "\"description\": \"two-sided recursive halving then doubling, N a power of 2 "
                   "(schedgen allreduce_recdoub)\", \"size\": \"the whole vector: every rank's S "
                   "bytes, reduced on all\", \"options\": [\"--ranks\", \"--size\"], "
                   "\"writes_goal\": true, \"moves_data_correctly\": false},\n");
  fs_test_contains(json, "\"name\": \"allreduce-rm\", \"collective\": \"allreduce\"");
  fs_test_contains(json, "\"options\": [\"--ranks\", \"--size\", \"--schedule\", \"--factors\", "
                         "\"--reduce-time\"], \"writes_goal\": false");
  free(json);
  remove(path);
  free(path);
}
END_TEST

/* validate without --algo leaves the incorrect patterns out; named, they run. */
START_TEST(validate_skips_incorrect_by_default) {
  /* allreduce, 8 ranks, 8 B; hockney alpha 1 us, beta 0:
   * recdoub (named): 6 steps of one message each, 6 x 1000 = 6000 ns */
  char *csv = temp_file(".csv", "collective,algorithm,ranks,bytes,repetitions,min_ns,median_ns,"
                                "mean_ns,ci95_ns\nallreduce,,8,8,1,6000,6000,6000,0\n");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --param alpha=1us --param beta=0", csv),
                   0);
  ck_assert_int_eq(fs_test_occurrences(out, "recdoub"), 0);
  fs_test_contains(out, "allreduce-rabenseifner");
  ck_assert_int_eq(fennelsim("validate %s --model hockney --param alpha=1us --param beta=0 "
                             "--algo allreduce=recdoub",
                             csv),
                   0);
  fs_test_contains(out, "allreduce-recdoub");
  remove(csv);
  free(csv);
}
END_TEST

/* ---- item 6: heterogeneous files want units ---- */

START_TEST(hetero_files_reject_bare_numbers) {
  char *pairs = temp_file(".pairs", "ranks 2\ndefault alpha=2 beta=1GB/s\n");
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model hetero-hockney "
                             "--param file=%s",
                             pairs),
                   2);
  char expected[1024];
  snprintf(expected, sizeof expected,
           "fennelsim: %s:2:15: expected a time with a unit for alpha "
           "(ps, ns, us, ms, s), not a bare number\n",
           pairs);
  ck_assert_str_eq(err, expected);
  remove(pairs);
  free(pairs);
  /* a per-byte value: column 24 is where "0.5" starts */
  pairs = temp_file(".pairs", "ranks 2\ndefault alpha=2us beta=0.5\n");
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model hetero-hockney "
                             "--param file=%s",
                             pairs),
                   2);
  snprintf(expected, sizeof expected,
           "fennelsim: %s:2:24: expected a time per byte (\"0.4ns\") "
           "or a bandwidth (\"10GB/s\") for beta, not a bare number\n",
           pairs);
  ck_assert_str_eq(err, expected);
  remove(pairs);
  free(pairs);
  /* lmo's vector rows: the second value of line 4 */
  pairs = temp_file(".pairs", "ranks 2\ndefault L=1us invbeta=0 C=0 t=0\nvector C\n1us 3\n");
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model lmo --param file=%s", pairs),
                   2);
  snprintf(expected, sizeof expected,
           "fennelsim: %s:4:5: expected a time with a unit for C "
           "(ps, ns, us, ms, s), not a bare number\n",
           pairs);
  ck_assert_str_eq(err, expected);
  remove(pairs);
  free(pairs);
  /* 0 is 0 in every unit: accepted. spec-example under alpha 1 us, beta 0
   * (tests/test_cli.c): rank 0 finishes at 2020 ns */
  pairs = temp_file(".pairs", "ranks 2\ndefault alpha=1us beta=0\n");
  ck_assert_int_eq(fennelsim("run schedules/spec-example.dag --model hetero-hockney "
                             "--param file=%s --format json",
                             pairs),
                   0);
  fs_test_contains(out, "\"makespan_ns\": 2020, \"finish_ns\": [2020, 2010]");
  remove(pairs);
  free(pairs);
}
END_TEST

/* ---- item 7: schedules by content ---- */

/* tests/goal/bcast-binomial-4.goal under loggops's defaults finishes at
 * 8638, 13138, 18776, 23276 ns (tests/test_cli.c, derived in
 * tests/test_two_sided.c): the same through stdin, gzip on stdin and a
 * name without a known extension. */
#define BCAST4 "\"makespan_ns\": 23276, \"finish_ns\": [8638, 13138, 18776, 23276]"

START_TEST(stdin_goal_equals_file) {
  ck_assert_int_eq(fennelsim("run tests/goal/bcast-binomial-4.goal --model loggops --format json"),
                   0);
  fs_test_contains(out, BCAST4);
  ck_assert_int_eq(fennelsim("run - --model loggops --format json "
                             "< tests/goal/bcast-binomial-4.goal"),
                   0);
  fs_test_contains(out, BCAST4);
  fs_test_contains(out, "\"input\": \"-\"");
  char *gz = fs_test_temp_path(".bin"), command[1024];
  snprintf(command, sizeof command, "gzip -c '%s/tests/goal/bcast-binomial-4.goal' > '%s'",
           FENNELSIM_SOURCE_ROOT, gz);
  ck_assert_int_eq(system(command), 0);
  ck_assert_int_eq(fennelsim("run - --model loggops --format json < '%s'", gz), 0);
  fs_test_contains(out, BCAST4);
  ck_assert_int_eq(fennelsim("run '%s' --model loggops --format json", gz), 0);
  fs_test_contains(out, BCAST4);
  remove(gz);
  free(gz);
}
END_TEST

/* .dag by content too: spec-example (rank 0 at 2020 ns under alpha 1 us,
 * beta 0) through stdin and as a .txt; convert reads by content as well. */
START_TEST(unknown_extension_by_content) {
  char *text = fs_test_read_file(FENNELSIM_SOURCE_ROOT "/schedules/spec-example.dag", NULL);
  ck_assert_ptr_nonnull(text);
  char *txt = temp_file(".txt", text);
  free(text);
  ck_assert_int_eq(fennelsim("run %s --model hockney --param alpha=1us --param beta=0 "
                             "--format json",
                             txt),
                   0);
  fs_test_contains(out, "\"makespan_ns\": 2020, \"finish_ns\": [2020, 2010]");
  ck_assert_int_eq(fennelsim("run - --model hockney --param alpha=1us --param beta=0 "
                             "--format json < %s",
                             txt),
                   0);
  fs_test_contains(out, "\"makespan_ns\": 2020, \"finish_ns\": [2020, 2010]");
  char *goal = fs_test_temp_path(".schedule"), *dag = fs_test_temp_path(".dag");
  char command[1024];
  snprintf(command, sizeof command, "cp '%s/tests/goal/bcast-binomial-4.goal' '%s'",
           FENNELSIM_SOURCE_ROOT, goal);
  ck_assert_int_eq(system(command), 0);
  ck_assert_int_eq(fennelsim("convert %s %s", goal, dag), 0);
  ck_assert_int_eq(fennelsim("run %s --model loggops --format json", dag), 0);
  fs_test_contains(out, BCAST4);
  remove(txt), remove(goal), remove(dag);
  free(txt), free(goal), free(dag);
}
END_TEST

START_TEST(content_neither_dag_nor_goal) {
  char *bad = temp_file(".txt", "\n  hello world\n");
  ck_assert_int_eq(fennelsim("run %s --model hockney", bad), 2);
  char expected[1024];
  snprintf(expected, sizeof expected,
           "fennelsim: %s:2:1: expected a schedule: a .dag (first line "
           "'fennel-dag 1') or GOAL ('num_ranks N'), got \"hello world\"\n",
           bad);
  ck_assert_str_eq(err, expected);
  ck_assert_int_eq(fennelsim("run - --model hockney"), 2); /* stdin is /dev/null */
  ck_assert_str_eq(err, "fennelsim: <stdin>: empty input: expected a schedule, a .dag (first line "
                        "'fennel-dag 1') or GOAL ('num_ranks N')\n");
  remove(bad);
  free(bad);
}
END_TEST

/* ---- item 7: missing arguments: one line saying what and an example ---- */

START_TEST(missing_arguments_one_line) {
  ck_assert_int_eq(fennelsim("best"), 2);
  ck_assert_str_eq(err,
                   "fennelsim best: no collective named: best searches bcast, reduce, allreduce, "
                   "allgather, alltoall, scatter, gather, barrier or reduce-scatter (e.g. "
                   "fennelsim best allreduce --ranks 16 --size 1KiB --model hockney)\n");
  ck_assert_int_eq(fennelsim("best allreduce"), 2);
  ck_assert_str_eq(err, "fennelsim best: --ranks is required: the rank count to search at (e.g. "
                        "fennelsim best allreduce --ranks 16 --size 1KiB --model hockney)\n");
  ck_assert_int_eq(fennelsim("convert tests/goal/one-send.goal"), 2);
  fs_test_contains(err, "\nusage: fennelsim convert IN... OUT [options]\n");
  ck_assert_str_eq(first_line(err), "fennelsim convert: no output after tests/goal/one-send.goal: "
                                    "give IN then OUT (e.g. fennelsim convert "
                                    "tests/goal/one-send.goal out.dag.gz; \"-\" writes .dag to "
                                    "stdout)");
  ck_assert_int_eq(fennelsim("convert"), 2);
  ck_assert_str_eq(first_line(err), "fennelsim convert: no input and output given (e.g. fennelsim "
                                    "convert in.goal out.dag; see fennelsim convert --help)");
}
END_TEST

/* A one-sided generator asked for GOAL is refused before any work, with
 * the way out; a two-sided reduction without --reduce-time is told it. */
START_TEST(gen_goal_of_one_sided) {
  char *goal = fs_test_temp_path(".goal");
  ck_assert_int_eq(fennelsim("gen allreduce-rd --ranks 4 -o %s", goal), 2);
  char expected[1024];
  snprintf(expected, sizeof expected,
           "fennelsim gen: allreduce-rd uses puts, which GOAL (%s) "
           "cannot express: write a .dag (fennelsim gen allreduce-rd --ranks N -o "
           "allreduce-rd.dag), or take a two-sided one: allreduce-ring, allreduce-rabenseifner, "
           "allreduce-fan, allreduce-dissemination, allreduce-elimination, allreduce-smp, "
           "allreduce-linear, allreduce-reduce-bcast, allreduce-nccl-ring, allreduce-nccl-tree, "
           "allreduce-nccl-nvls, allreduce-nccl-collnet-direct\n",
           goal);
  ck_assert_str_eq(err, expected);
  ck_assert_int_eq(fennelsim("gen multicast --ranks 4 --format goal"), 2);
  ck_assert_str_eq(err, "fennelsim gen: multicast uses puts, which GOAL (--format goal) cannot "
                        "express: write a .dag (fennelsim gen multicast --ranks N -o "
                        "multicast.dag), or take a two-sided one: bcast-binomial, bcast-linear, "
                        "bcast-binary, bcast-chain, bcast-scatter-allgather, bcast-klevel, "
                        "bcast-smp, bcast-knomial, bcast-split-binary, bcast-scatter-rd-allgather, "
                        "bcast-nccl-ring\n");
  ck_assert_int_eq(fennelsim("gen pingpong --format goal"), 2);
  ck_assert_str_eq(err, "fennelsim gen: pingpong uses puts, which GOAL (--format goal) cannot "
                        "express: write a .dag (fennelsim gen pingpong --ranks N -o "
                        "pingpong.dag)\n");
  ck_assert_int_eq(fennelsim("gen allreduce-ring --ranks 4 --format goal"), 2);
  fs_test_contains(err,
                   "calc needs a time=, and this compute is priced by the compute model (give its "
                   "reduces a time: --reduce-time 100ns)\n");
  /* --reduce-time where nothing reduces is refused, not ignored */
  ck_assert_int_eq(fennelsim("gen bcast-binomial --ranks 4 --reduce-time 1ns"), 2);
  ck_assert_str_eq(err, "fennelsim gen: --reduce-time does not apply to bcast-binomial\n");
  remove(goal);
  free(goal);
}
END_TEST

static Suite *cli_help_suite(void) {
  Suite *s = suite_create("cli_help");
  TCase *help = tcase_create("help");
  tcase_add_test(help, catalog_is_what_models_read);
  tcase_add_test(help, catalog_has_every_registered_model);
  tcase_add_test(help, run_help_lists_every_model_and_key);
  tcase_add_test(help, gen_help_says_what_size_means);
  tcase_add_test(help, generator_metadata_matches_code);
  tcase_add_test(help, gen_list_marks_incorrect_patterns);
  tcase_add_test(help, gen_alone_lists_generators);
  tcase_add_test(help, gen_list_json);
  tcase_add_test(help, validate_skips_incorrect_by_default);
  tcase_add_test(help, hetero_files_reject_bare_numbers);
  suite_add_tcase(s, help);
  TCase *input = tcase_create("input");
  tcase_add_test(input, stdin_goal_equals_file);
  tcase_add_test(input, unknown_extension_by_content);
  tcase_add_test(input, content_neither_dag_nor_goal);
  tcase_add_test(input, missing_arguments_one_line);
  tcase_add_test(input, gen_goal_of_one_sided);
  suite_add_tcase(s, input);
  return s;
}

int main(void) { return fs_test_run(cli_help_suite()); }
