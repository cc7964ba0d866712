/* test_lognp.c: the log_3 P model (src/models/lognp.c) against times
 * derived by hand from T(s, d) = o_mw(s) + l_mw(s, d) + o_net(s), the
 * sender and receiver stages each (o_mw + l_mw) / 2, the network o_net.
 * The paper's Fig. 4 point (Titan, s = 16 KiB, d = 1 KiB): o_mw 29 us,
 * l_mw 420 us, o_net 131 us, T = 580 us; contiguous T = 160 us. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "model_support.h"
#include "test_support.h"

#define US 1000000

static const char *const FIG4_MW = "# SIZE O_MW L_MW(1KiB)\n16KiB 29us 420us\n";
static const char *const FIG4_NET = "16KiB 131us\n";

static int32_t op(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer, int64_t size,
                  int64_t stride) {
  int32_t t = fs_program_add(p, kind, rank);
  ck_assert_int_ge(t, 0);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, size);
  if (stride) ck_assert_int_eq(fs_task_set_stride(p, t, stride), 0);
  return t;
}

static char *temp_file(const char *text) {
  char *path = fs_test_temp_path(".table");
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

/* "mw_table=PATH net_table=PATH extra" for two temporary tables. */
static char *params_for(const char *mw, const char *net, const char *extra) {
  char *mw_path = temp_file(mw), *net_path = temp_file(net);
  char *params = malloc(strlen(mw_path) + strlen(net_path) + 200);
  sprintf(params, "mw_table=%s net_table=%s%s%s", mw_path, net_path, extra ? " " : "",
          extra ? extra : "");
  free(mw_path);
  free(net_path);
  return params;
}

/* Runs p under lognp; checks the makespan (ps): a put's rank finishes at
 * its local completion, the makespan includes its remote one. */
static void expect_makespan(const fs_program *p, const char *mw, const char *net, const char *extra,
                            fs_time expected) {
  char *params = params_for(mw, net, extra);
  fs_time makespan = fs_test_makespan(p, "lognp", "fixed", params);
  ck_assert_msg(makespan == expected, "makespan %lld ps, expected %lld", (long long)makespan,
                (long long)expected);
  free(params);
}

/* Runs p under model; checks each rank's finish time (ps). */
static void expect_finish(const fs_program *p, const char *model, const char *mw, const char *net,
                          const char *extra, const fs_time *expected) {
  char *params = params_for(mw, net, extra);
  fs_simulation run;
  fs_test_simulate(&run, p, model, "fixed", params);
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  for (int32_t r = 0; r < p->ranks; r++)
    ck_assert_msg(fs_engine_finish_times(run.engine)[r] == expected[r],
                  "rank %d: %lld ps, expected %lld", r,
                  (long long)fs_engine_finish_times(run.engine)[r], (long long)expected[r]);
  fs_test_run_free(&run);
  free(params);
}

/* A strided send/recv: the sender is free after 224.5 us, the message
 * lands at 224.5 + 131 = 355.5 and the receiver holds its CPU until
 * 355.5 + 224.5 = 580 us = 29 + 420 + 131. The alias log3p is the same. */
START_TEST(fig4_send_recv) {
  fs_program *p = fs_program_new(2);
  op(p, FS_SEND, 0, 1, 16384, 1024);
  op(p, FS_RECV, 1, 0, 16384, 1024);
  fs_test_finalize(p);
  const fs_time expected[] = {224500000, 580 * (fs_time)US};
  expect_finish(p, "lognp", FIG4_MW, FIG4_NET, "strides=1KiB", expected);
  expect_finish(p, "log3p", FIG4_MW, FIG4_NET, "strides=1KiB", expected);
  fs_program_free(p);
}
END_TEST

/* A strided put: the sender is free after 224.5 us, the data lands at
 * 580 us (the target's finish; its CPU is not taken). A contiguous one lands at
 * 29 + 131 = 160 us (l_mw = 0), the sender free after 14.5 us. */
START_TEST(fig4_put) {
  fs_program *p = fs_program_new(2);
  op(p, FS_PUT, 0, 1, 16384, 1024);
  fs_test_finalize(p);
  const fs_time strided[] = {224500000, 580 * (fs_time)US}; /* remote end counts on 1 */
  expect_finish(p, "lognp", FIG4_MW, FIG4_NET, "strides=1KiB", strided);
  expect_makespan(p, FIG4_MW, FIG4_NET, "strides=1KiB", 580 * (fs_time)US);
  fs_program_free(p);
  p = fs_program_new(2);
  op(p, FS_PUT, 0, 1, 16384, 0);
  fs_test_finalize(p);
  const fs_time contiguous[] = {14500000, 160 * (fs_time)US};
  expect_finish(p, "lognp", FIG4_MW, FIG4_NET, "strides=1KiB", contiguous);
  expect_makespan(p, FIG4_MW, FIG4_NET, "strides=1KiB", 160 * (fs_time)US);
  expect_makespan(p, "16KiB 29us\n", FIG4_NET, NULL, 160 * (fs_time)US);
  fs_program_free(p);
}
END_TEST

/* A get of 16 KiB with stride 1 KiB: the 0-byte contiguous request
 * T(0, 0) = 29 + 131 = 160 (the tables clamp below 16 KiB), then the
 * reply T(16KiB, 1KiB) = 580: 740 us. */
START_TEST(get) {
  fs_program *p = fs_program_new(2);
  op(p, FS_GET, 0, 1, 16384, 1024);
  fs_test_finalize(p);
  const fs_time expected[] = {740 * (fs_time)US, 0};
  expect_finish(p, "lognp", FIG4_MW, FIG4_NET, "strides=1KiB", expected);
  expect_makespan(p, FIG4_MW, FIG4_NET, "strides=1KiB", 740 * (fs_time)US);
  fs_program_free(p);
}
END_TEST

/* l_mw by stride, strides 16 B and 1 KiB, o_net 0:
 *   size 1 KiB: o_mw 10, l_mw 20 | 100;  size 2 KiB: o_mw 20, l_mw 40 | 200.
 * At 1 KiB: stride 8 (below 16) -> 20, 16 -> 20, 520 (halfway) -> 60,
 * 1 KiB -> 100, 4 KiB (above) -> 100; stride 0 -> 0. At 1.5 KiB, stride
 * 520: o_mw 15, l_mw halfway of 30 and 150 = 90: T = 105 us. */
START_TEST(stride_changes_cost) {
  const char *mw = "1KiB 10us 20us 100us\n2KiB 20us 40us 200us\n";
  const struct {
    int64_t size, stride, us;
  } cases[] = {
      {1024, 0, 10},     {1024, 8, 30},     {1024, 16, 30},   {1024, 520, 70},
      {1024, 1024, 110}, {1024, 4096, 110}, {1536, 520, 105},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fs_program *p = fs_program_new(2);
    op(p, FS_PUT, 0, 1, cases[i].size, cases[i].stride);
    fs_test_finalize(p);
    expect_makespan(p, mw, "0 0us\n", "strides=16,1KiB", cases[i].us * US);
    fs_program_free(p);
  }
}
END_TEST

/* Both ranks send 16 KiB with stride 1 KiB to each other, then receive:
 * each sender stage ends at 224.5, both messages land at 355.5, each
 * receiver stage ends at 580. When rank 1 first sleeps 500 us, rank 0's
 * message (landed at 355.5) takes rank 1's CPU when the sleep ends, until
 * 724.5; rank 1's send then holds it until 949 (its recv matches at once)
 * and lands at 1080; rank 0's receiver stage ends at 1304.5. */
START_TEST(exchange) {
  fs_program *p = fs_program_new(2);
  for (int32_t r = 0; r < 2; r++) {
    int32_t s = op(p, FS_SEND, r, 1 - r, 16384, 1024);
    int32_t v = op(p, FS_RECV, r, 1 - r, 16384, 1024);
    ck_assert_int_eq(fs_program_depend(p, v, s, FS_AFTER_END), 0);
  }
  fs_test_finalize(p);
  const fs_time expected[] = {580 * (fs_time)US, 580 * (fs_time)US};
  expect_finish(p, "lognp", FIG4_MW, FIG4_NET, "strides=1KiB", expected);
  fs_program_free(p);

  p = fs_program_new(2);
  int32_t nap = fs_program_add(p, FS_SLEEP, 1);
  fs_task_set_time(p, nap, 500 * (fs_time)US);
  for (int32_t r = 0; r < 2; r++) {
    int32_t s = op(p, FS_SEND, r, 1 - r, 16384, 1024);
    int32_t v = op(p, FS_RECV, r, 1 - r, 16384, 1024);
    if (r == 1) ck_assert_int_eq(fs_program_depend(p, s, nap, FS_AFTER_END), 0);
    ck_assert_int_eq(fs_program_depend(p, v, s, FS_AFTER_END), 0);
  }
  fs_test_finalize(p);
  const fs_time late[] = {1304500000, 949 * (fs_time)US};
  expect_finish(p, "lognp", FIG4_MW, FIG4_NET, "strides=1KiB", late);
  fs_program_free(p);
}
END_TEST

/* A strided transfer without l_mw columns: the model rejects the program. */
START_TEST(stride_without_columns) {
  fs_program *p = fs_program_new(2);
  op(p, FS_PUT, 0, 1, 16384, 1024);
  fs_test_finalize(p);
  char *params = params_for("16KiB 29us\n", FIG4_NET, NULL);
  fs_simulation run;
  fs_test_simulate(&run, p, "lognp", "fixed", params);
  ck_assert_int_eq(run.status, FS_RUN_REJECTED);
  ck_assert_str_eq(run.err.message,
                   "lognp: task t0 has stride=1024 but --param strides= lists no l_mw columns");
  fs_test_run_free(&run);
  free(params);
  fs_program_free(p);
}
END_TEST

/* The error of building lognp with params, or "" when it builds. */
static void model_error(const char *params, char *message, size_t size) {
  char text[1024];
  fs_parameter items[16];
  fs_parameters parameters;
  snprintf(text, sizeof text, "%s", params);
  ck_assert_int_eq(fs_test_parameters(text, items, &parameters), 0);
  fs_network_model n = {0};
  fs_error err = {{0}};
  if (fs_network_model_create("lognp", &parameters, &n, &err) == 0) err.message[0] = 0;
  snprintf(message, size, "%s", err.message);
  fs_network_model_destroy(&n);
}

START_TEST(parameter_errors) {
  const char *strides_error = ": expected 1 to 63 increasing positive sizes up to "
                              "4611686018427387904 B (2^62) separated by commas (\"16,64,1KiB\")";
  const struct {
    const char *params, *message;
  } cases[] = {
      {"", "lognp: --param mw_table=FILE and net_table=FILE are required"},
      {"mw_table=x", "lognp: --param mw_table=FILE and net_table=FILE are required"},
      {"net_table=x", "lognp: --param mw_table=FILE and net_table=FILE are required"},
  };
  char message[1024], expected[512];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    model_error(cases[i].params, message, sizeof message);
    ck_assert_str_eq(message, cases[i].message);
  }
  const char *bad_strides[] = {"0", "64,16", "16,16", "16,", "x", "-8"};
  for (size_t i = 0; i < sizeof bad_strides / sizeof bad_strides[0]; i++) {
    char extra[64];
    snprintf(extra, sizeof extra, "strides=%s", bad_strides[i]);
    char *params = params_for(FIG4_MW, FIG4_NET, extra);
    model_error(params, message, sizeof message);
    snprintf(expected, sizeof expected, "--param strides=%s%s", bad_strides[i], strides_error);
    ck_assert_str_eq(message, expected);
    free(params);
  }
  model_error("mw_table=/nonexistent/mw net_table=/nonexistent/net", message, sizeof message);
  ck_assert_msg(strstr(message, "/nonexistent/mw") != NULL, "%s", message);
}
END_TEST

/* Table errors start with the table's path: "PATH:LINE:COLUMN: ...". */
START_TEST(table_errors) {
  const struct {
    const char *mw, *net, *extra;
    int in_net;
    const char *message;
  } cases[] = {
      {"16KiB 29us\n", FIG4_NET, "strides=1KiB", 0, ":1:11: expected a time with a unit"},
      {FIG4_MW, FIG4_NET, NULL, 0, ":2:12: expected the end of the row"},
      {"16KiB 29us 1us 2us\n", FIG4_NET, "strides=16,1KiB,4KiB", 0,
       ":1:19: expected a time with a unit"},
      {"16KiB 29us\n8KiB 1us\n", FIG4_NET, NULL, 0,
       ":2:1: expected a size larger than the previous row's"},
      {"big 29us\n", FIG4_NET, NULL, 0, ":1:1: expected a message size"},
      {"16KiB 29us\n", "16KiB 131us 1us\n", NULL, 1, ":1:13: expected the end of the row"},
      {"16KiB 29us\n", "16KiB fast\n", NULL, 1, ":1:7: expected a time with a unit"},
      {"16KiB 29us\n", "# none\n", NULL, 1, ": the table has no rows"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *mw = temp_file(cases[i].mw), *net = temp_file(cases[i].net);
    char params[600], message[1024], expected[600];
    snprintf(params, sizeof params, "mw_table=%s net_table=%s %s", mw, net,
             cases[i].extra ? cases[i].extra : "");
    model_error(params, message, sizeof message);
    snprintf(expected, sizeof expected, "%s%s", cases[i].in_net ? net : mw, cases[i].message);
    ck_assert_msg(strncmp(message, expected, strlen(expected)) == 0, "case %d: '%s', expected '%s'",
                  (int)i, message, expected);
    free(mw);
    free(net);
  }
}
END_TEST

/* describe names both tables, their rows and the stride count. */
START_TEST(describe) {
  char *params = params_for(FIG4_MW, "1KiB 100us\n16KiB 131us\n", "strides=1KiB");
  char text[1024];
  fs_parameter items[16];
  fs_parameters parameters;
  snprintf(text, sizeof text, "%s", params);
  ck_assert_int_eq(fs_test_parameters(text, items, &parameters), 0);
  fs_network_model n = {0};
  fs_error err;
  ck_assert_msg(fs_network_model_create("lognp", &parameters, &n, &err) == 0, "%s", err.message);
  ck_assert_str_eq(n.name, "lognp");
  char buffer[1024];
  fs_network_model_describe(&n, buffer, sizeof buffer);
  ck_assert_msg(strstr(buffer, "\"mw_rows\": 1, \"strides\": 1, ") != NULL, "%s", buffer);
  ck_assert_msg(strstr(buffer, "\"net_rows\": 2") != NULL, "%s", buffer);
  ck_assert_msg(strncmp(buffer, "\"mw_table\": \"", 13) == 0, "%s", buffer);
  fs_network_model_destroy(&n);
  free(params);
}
END_TEST

static Suite *lognp_suite(void) {
  Suite *s = suite_create("lognp");
  TCase *c = tcase_create("core");
  tcase_add_test(c, fig4_send_recv);
  tcase_add_test(c, fig4_put);
  tcase_add_test(c, get);
  tcase_add_test(c, stride_changes_cost);
  tcase_add_test(c, exchange);
  tcase_add_test(c, stride_without_columns);
  tcase_add_test(c, parameter_errors);
  tcase_add_test(c, table_errors);
  tcase_add_test(c, describe);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(lognp_suite()); }
