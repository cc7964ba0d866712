/* test_model_xml.c: model files (models/NAME.xml): a file's model runs
 * exactly like the same --param settings, the command line overrides it,
 * the shipped Metropolis file works through the CLI, and every malformed
 * file is refused with an exact "FILE:LINE: expected ..." message. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_support.h"
#include "models/model_xml.h"
#include "test_support.h"

/* Exact tables (ns): shm L0(m,tau) = tau m, net L1(m,tau) = 10 tau m. */
#define SHM_ROWS "0B 0ns 0ns\n1000B 1000ns 2000ns\n"
#define NET_ROWS "0B 0ns 0ns\n1000B 10us 20us\n"

static const char model_text[] = "<?xml version=\"1.0\"?>\n"
                                 "<!-- a comment -->\n"
                                 "<model kind=\"taulop\">\n"
                                 "  <param name=\"shm_o\" value=\"50ns\"/>\n"
                                 "  <param name=\"net_o\" value=\"300ns\"/>\n"
                                 "  <table name=\"shm_table\">\n# size L1 L2\n" SHM_ROWS
                                 "  </table>\n"
                                 "  <table name=\"net_table\"><![CDATA[\n" NET_ROWS "]]></table>\n"
                                 "</model>\n";

/* rank 0 -> 1 (other node, 400 B), rank 2 -> 3 (other node, 700 B) and
 * rank 1 -> 0 (100 B), on 4 nodes of 1 core. */
static fs_program *small_program(void) {
  fs_program *p = fs_program_new(4);
  const int32_t pairs[3][3] = {{0, 1, 400}, {2, 3, 700}, {1, 0, 100}};
  for (int i = 0; i < 3; i++) {
    int32_t t = fs_program_add(p, FS_PUT, pairs[i][0]);
    fs_task_set_peer(p, t, pairs[i][1]);
    fs_task_set_size(p, t, pairs[i][2]);
  }
  fs_error err;
  ck_assert_msg(fs_program_finalize(p, &err) == 0, "%s", err.message);
  return p;
}

/* Finish times of every rank under network model name with params. */
static void finish_times(const fs_program *p, const char *name, const char *params, fs_time *out) {
  fs_simulation run;
  fs_test_simulate(&run, p, name, "fixed", params);
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  memcpy(out, fs_engine_finish_times(run.engine), (size_t)p->ranks * sizeof *out);
  fs_test_run_free(&run);
}

static char *write_temp(const char *suffix, const char *text) {
  char *path = fs_test_temp_path(suffix);
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

START_TEST(file_runs_like_params) {
  char *model = write_temp(".xml", model_text);
  char *shm = write_temp(".shm", SHM_ROWS), *net = write_temp(".net", NET_ROWS);
  fs_program *p = small_program();
  fs_time from_file[4], from_params[4], overridden[4], expected[4];
  char params[1024];
  finish_times(p, model, "nodes=4 cores=1", from_file);
  snprintf(params, sizeof params,
           "shm_table=%s net_table=%s shm_o=50ns net_o=300ns nodes=4 cores=1", shm, net);
  finish_times(p, "taulop", params, from_params);
  for (int r = 0; r < 4; r++) ck_assert_int_eq(from_file[r], from_params[r]);
  ck_assert_int_gt(from_file[3], 0);
  /* the command line wins over the file */
  finish_times(p, model, "nodes=4 cores=1 net_o=2us", overridden);
  snprintf(params, sizeof params, "shm_table=%s net_table=%s shm_o=50ns net_o=2us nodes=4 cores=1",
           shm, net);
  finish_times(p, "taulop", params, expected);
  for (int r = 0; r < 4; r++) ck_assert_int_eq(overridden[r], expected[r]);
  ck_assert_int_ne(overridden[1], from_file[1]);
  fs_program_free(p);
  remove(model), remove(shm), remove(net);
  free(model), free(shm), free(net);
}
END_TEST

START_TEST(reads_kind_and_parameters) {
  fs_error err;
  fs_model_file *f = fs_model_file_read_memory(model_text, strlen(model_text), "m.xml", &err);
  ck_assert_msg(f != NULL, "%s", err.message);
  ck_assert_str_eq(f->kind, "taulop");
  ck_assert_int_eq(f->params.count, 4);
  ck_assert_str_eq(f->params.items[1].key, "net_o");
  ck_assert_str_eq(f->params.items[1].value, "300ns");
  ck_assert_ptr_null(f->params.items[1].text);
  ck_assert_str_eq(f->params.items[2].key, "shm_table");
  ck_assert_str_eq(f->params.items[2].value, "m.xml");
  /* the rows start on line 6, after 5 blank lines standing for lines 1-5 */
  ck_assert_str_eq(f->params.items[2].text, "\n\n\n\n\n\n# size L1 L2\n" SHM_ROWS "  ");
  ck_assert_uint_eq(f->params.items[2].text_length, strlen(f->params.items[2].text));
  ck_assert_int_eq(f->lines[3], 11);
  fs_model_file_free(f);
}
END_TEST

/* The shipped file equals the shipped tables with the thesis's o values. */
START_TEST(shipped_metropolis_model) {
  char *dag = fs_test_temp_path(".dag"), *out = NULL, *err = NULL, *with_params = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(NULL, NULL,
                                      "gen allgather-ring --ranks 32 --size 64KiB -o %s", dag),
                   0);
  ck_assert_int_eq(fs_test_fennelsimf(&with_params, NULL,
                                      "run %s --nodes 4 --cores 8 --format json --model "
                                      "taulop --param shm_o=0.1095us --param net_o=2.8775us "
                                      "--param "
                                      "shm_table=models/metropolis-shm.table --param "
                                      "net_table=models/metropolis-net.table",
                                      dag),
                   0);
  ck_assert_int_eq(
      fs_test_fennelsimf(&out, &err,
                         "run %s --nodes 4 --cores 8 --format json --model metropolis-taulop", dag),
      0);
  char *a = strstr(out, "\"makespan_ns\": "), *b = strstr(with_params, "\"makespan_ns\": ");
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_int_eq(atoll(a + 15), atoll(b + 15));
  ck_assert_int_gt(atoll(a + 15), 0);
  ck_assert_ptr_nonnull(strstr(out, "\"shm_table\": \"models/metropolis-taulop.xml\""));
  ck_assert_ptr_nonnull(strstr(out, "\"shm_o_ns\": 109.5"));
  free(out), free(err), free(with_params);
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s --model no-such-model", dag), 2);
  ck_assert_ptr_nonnull(strstr(err, "fennelsim: unknown network model 'no-such-model' (known: "));
  free(err);
  ck_assert_int_eq(fs_test_fennelsimf(NULL, &err, "run %s --model models/platform-4x8-rr.xml", dag),
                   2);
  ck_assert_str_eq(err, "fennelsim: models/platform-4x8-rr.xml:11: expected <model> without a "
                        "namespace as the root element (got <platform>)\n");
  free(err);
  remove(dag);
  free(dag);
}
END_TEST

/* fs_network_model_create on a file holding text: its exact error. */
static void refused(const char *text, const char *params, const char *expected) {
  char *path = write_temp(".xml", text);
  char storage[512], message[1400];
  snprintf(storage, sizeof storage, "%s", params);
  fs_parameter items[16];
  fs_parameters list;
  ck_assert_int_eq(fs_test_parameters(storage, items, &list), 0);
  fs_network_model model;
  fs_error err;
  ck_assert_int_eq(fs_network_model_create(path, &list, &model, &err), -1);
  snprintf(message, sizeof message, "%s%s", path, expected);
  ck_assert_str_eq(err.message, message);
  remove(path);
  free(path);
}

START_TEST(errors_name_file_and_line) {
  refused("<model kind=\"taulop\">\n<param name=\"a\" value=\"1\">\n</model>\n", "",
          ":3:9: expected well-formed XML (libxml2: Opening and ending tag mismatch: param line 2 "
          "and model)");
  refused("<model kind=\"hockney\">\n\n  <parameter name=\"alpha\"/>\n</model>\n", "",
          ":3: expected <param> or <table> (got <parameter>)");
  refused("<model kind=\"hockney\">\n<param value=\"1us\"/>\n</model>\n", "",
          ":2: expected attribute name on <param>");
  refused("<model kind=\"hockney\">\n<param name=\"alpha\"/>\n</model>\n", "",
          ":2: expected attribute value on <param>");
  refused("<model kind=\"hockney\">\n<param name=\"alpha\" value=\"1us\"/>\n"
          "<param name=\"alpha\" value=\"2us\"/>\n</model>\n",
          "", ":3: expected each parameter once (got alpha again, first at line 2)");
  refused("<model kind=\"hockney\">\n<param name=\"alpha\" value=\"1us\" unit=\"s\"/>\n</model>\n",
          "", ":2: expected only name and value on <param> (got unit)");
  refused("<model>\n</model>\n", "", ":1: expected attribute kind on <model>");
  refused("<model kind=\"hockney\"><table name=\"x\"><!-- no -->0B 1ns</table></model>", "",
          ":1: expected only rows of text inside <table> ('#' comments)");
  char kinds[600];
  snprintf(kinds, sizeof kinds, ":2: expected kind= one of %s (got \"warp\")",
           fs_network_model_names());
  refused("\n<model kind=\"warp\">\n</model>\n", "", kinds);
  refused("<?xml version=\"1.0\"?>\n<!DOCTYPE model [\n<!ENTITY a \"aaaa\">\n]>\n<model "
          "kind=\"hockney\"/>\n",
          "", ":2: expected no DOCTYPE (DTDs and entities are not read)");
  refused("<model kind=\"hockney\">\n<param name=\"gamma\" value=\"1\"/>\n</model>\n", "",
          ":2: gamma: no parameter of that name in model hockney");
  refused("<model kind=\"hockney\">\n<param name=\"alpha\" value=\"fast\"/>\n</model>\n", "",
          ": --param alpha=fast: expected a non-negative time with a unit (ps, ns, us, ms, s)");
  refused("", "", ":1: expected a <model> element (got an empty file)");
}
END_TEST

/* A bad row is reported at its line in the XML file. */
START_TEST(bad_table_row_at_xml_line) {
  refused("<model kind=\"taulop\">\n  <table name=\"shm_table\">\n    0B 1ns 2ns\n"
          "    1000B 2ns lots\n  </table>\n  <table name=\"net_table\">0B 1ns</table>\n</model>\n",
          "nodes=2 cores=1", ":4:15: expected a time with a unit");
  refused("<model kind=\"pipelined\">\n<table name=\"table\">\n0B 1ns\n</table>\n</model>\n", "",
          ":3:7: expected alpha_r, a time with a unit");
}
END_TEST

static Suite *model_xml_suite(void) {
  Suite *s = suite_create("model_xml");
  TCase *c = tcase_create("files");
  tcase_add_test(c, file_runs_like_params);
  tcase_add_test(c, reads_kind_and_parameters);
  tcase_add_test(c, shipped_metropolis_model);
  tcase_add_test(c, errors_name_file_and_line);
  tcase_add_test(c, bad_table_row_at_xml_line);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(model_xml_suite()); }
