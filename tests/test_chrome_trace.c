/* test_chrome_trace.c: the Chrome trace writer (its output checked by an
 * RFC 8259 validator written here, event counts and exact times derived by
 * hand) and the progress bar. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/dag_reader.h"
#include "generators/generators.h"
#include "instruments/chrome_trace.h"
#include "io/progress.h"
#include "instruments/timeline.h"
#include "fake_flow.h"
#include "model_support.h"
#include "test_support.h"

/* ---- a strict JSON validator (RFC 8259): recursive descent ---- */

typedef struct json_reader {
  const unsigned char *at, *end;
  int depth;
} json_reader;

static int json_value(json_reader *r);

static void json_space(json_reader *r) {
  while (r->at < r->end && (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r'))
    r->at++;
}

static int json_literal(json_reader *r, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(r->end - r->at) < n || memcmp(r->at, word, n)) return 0;
  r->at += n;
  return 1;
}

static int is_digit(json_reader *r) { return r->at < r->end && *r->at >= '0' && *r->at <= '9'; }

static int json_digits(json_reader *r) {
  if (!is_digit(r)) return 0;
  while (is_digit(r)) r->at++;
  return 1;
}

static int json_number(json_reader *r) {
  if (r->at < r->end && *r->at == '-') r->at++;
  if (r->at < r->end && *r->at == '0')
    r->at++;
  else if (!json_digits(r))
    return 0;
  if (r->at < r->end && *r->at == '.') {
    r->at++;
    if (!json_digits(r)) return 0;
  }
  if (r->at < r->end && (*r->at == 'e' || *r->at == 'E')) {
    r->at++;
    if (r->at < r->end && (*r->at == '+' || *r->at == '-')) r->at++;
    if (!json_digits(r)) return 0;
  }
  return 1;
}

/* One UTF-8 character (RFC 3629: no overlong forms, no surrogates). */
static int json_utf8(json_reader *r) {
  const unsigned char *s = r->at;
  int n = s[0] < 0x80 ? 1 : s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
  if (!n || s[0] > 0xf4 || r->end - s < n) return 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
  if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
  r->at += n;
  return 1;
}

static int json_string(json_reader *r) {
  if (r->at >= r->end || *r->at != '"') return 0;
  r->at++;
  for (;;) {
    if (r->at >= r->end || *r->at < 0x20) return 0;
    if (*r->at == '"') break;
    if (*r->at != '\\') {
      if (!json_utf8(r)) return 0;
      continue;
    }
    r->at++;
    if (r->at >= r->end) return 0;
    if (*r->at == 'u') {
      for (int i = 1; i <= 4; i++)
        if (r->at + i >= r->end || !strchr("0123456789abcdefABCDEF", r->at[i]) || !r->at[i])
          return 0;
      r->at += 5;
    } else if (*r->at && strchr("\"\\/bfnrt", *r->at)) {
      r->at++;
    } else {
      return 0;
    }
  }
  r->at++;
  return 1;
}

/* Elements separated by commas up to `close`: an object's "key": value
 * members or an array's values. */
static int json_elements(json_reader *r, char close, int members) {
  r->at++;
  json_space(r);
  if (r->at < r->end && *r->at == close) {
    r->at++;
    return 1;
  }
  for (;;) {
    json_space(r);
    if (members) {
      if (!json_string(r)) return 0;
      json_space(r);
      if (r->at >= r->end || *r->at != ':') return 0;
      r->at++;
    }
    if (!json_value(r)) return 0;
    json_space(r);
    if (r->at < r->end && *r->at == ',') {
      r->at++;
      continue;
    }
    if (r->at < r->end && *r->at == close) {
      r->at++;
      return 1;
    }
    return 0;
  }
}

static int json_value(json_reader *r) {
  json_space(r);
  if (r->at >= r->end || ++r->depth > 512) return 0;
  int ok;
  switch (*r->at) {
    case '{': ok = json_elements(r, '}', 1); break;
    case '[': ok = json_elements(r, ']', 0); break;
    case '"': ok = json_string(r); break;
    case 't': ok = json_literal(r, "true"); break;
    case 'f': ok = json_literal(r, "false"); break;
    case 'n': ok = json_literal(r, "null"); break;
    default: ok = json_number(r); break;
  }
  r->depth--;
  return ok;
}

static int json_valid(const char *text, size_t length) {
  json_reader r = {(const unsigned char *)text, (const unsigned char *)text + length, 0};
  if (!json_value(&r)) return 0;
  json_space(&r);
  return r.at == r.end;
}

static int valid(const char *text) { return json_valid(text, strlen(text)); }

START_TEST(validator_accepts_json) {
  const char *good[] = {"0",
                        "-0",
                        "-0.5e+10",
                        "1E5",
                        "12.25",
                        "[]",
                        "{}",
                        "\"\"",
                        "true",
                        "null",
                        " {\"a\" : [1, true, false, null, \"\\u00e9\\n\\/\"], \"b\":{}} \n",
                        "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
                        "[[[]]]",
                        "{\"a\":1,\"a\":2}"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    ck_assert_msg(valid(good[i]), "rejected %s", good[i]);
}
END_TEST

START_TEST(validator_rejects_bad_json) {
  const char *bad[] = {"",
                       " ",
                       "{",
                       "[",
                       "[1,]",
                       "{\"a\":1,}",
                       "[,1]",
                       "01",
                       "-01",
                       "1.",
                       ".5",
                       "-",
                       "+1",
                       "1e",
                       "1e+",
                       "--1",
                       "'a'",
                       "\"\\x\"",
                       "\"a\tb\"",
                       "\"abc",
                       "[1 2]",
                       "{\"a\" 1}",
                       "{a:1}",
                       "{1:1}",
                       "tru",
                       "nul",
                       "True",
                       "[1]]",
                       "\"\\u12G4\"",
                       "\"\\u12\"",
                       "\"\xff\"",
                       "\"\xc0\xaf\"",
                       "\"\xed\xa0\x80\"",
                       "\"\xe2\x82\"",
                       "NaN",
                       "Infinity",
                       "[1]x",
                       "{} {}",
                       "0x10",
                       "\"\\\""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    ck_assert_msg(!valid(bad[i]), "accepted %s", bad[i]);
  char nested[1201];
  memset(nested, '[', 100), memset(nested + 100, ']', 100), nested[200] = '\0';
  ck_assert(valid(nested));
  nested[199] = '\0';
  ck_assert(!valid(nested)); /* one ] short */
  memset(nested, '[', 600), memset(nested + 600, ']', 600), nested[1200] = '\0';
  ck_assert(!valid(nested));          /* deeper than 512: a limit RFC 8259 allows */
  ck_assert(!json_valid("[1]\0", 4)); /* a NUL after the value */
}
END_TEST

/* ---- traces ---- */

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle)) n++;
  return n;
}

/* Runs p (run once, then again under the recorder) and returns its trace. */
static char *trace_of(const fs_program *p, const char *model, const char *compute,
                      const char *parameters, const int32_t *nodes) {
  fs_simulation run;
  fs_test_simulate(&run, p, model, compute, parameters);
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  fs_timeline *timeline = fs_timeline_new(p);
  fs_observer observer = fs_timeline_observer(timeline);
  fs_engine_add_observer(run.engine, &observer);
  ck_assert_int_eq(fs_engine_run(run.engine, &run.err), FS_RUN_OK);
  char *path = fs_test_temp_path(".json");
  fs_error err = {""};
  fs_output *out = fs_output_open(path, &err);
  ck_assert_msg(out != NULL, "%s", err.message);
  ck_assert_msg(fs_chrome_trace_write(timeline, nodes, out, &err) == 0, "%s", err.message);
  size_t length;
  char *text = fs_test_read_file(path, &length);
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(json_valid(text, length), "not JSON:\n%s", text);
  ck_assert_msg(strncmp(text, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", 40) == 0, "%s",
                text);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  free(path);
  return text;
}

static fs_program *generate(const char *name, int32_t ranks, int64_t size, int32_t rounds) {
  fs_generator_options o = {.ranks = ranks, .size = size, .rounds = rounds};
  fs_error err;
  fs_program *p = fs_generator_find(name)->generate(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  return p;
}

#define ASSERT_HAS(text, line) ck_assert_msg(strstr(text, line), "missing %s in\n%s", line, text)

/* bcast-binomial, 4 ranks, 8 B, hockney alpha=1us beta=0 (a send holds its
 * CPU until arrival; a recv costs nothing). Tasks: t0 0->1 and t1 0->2
 * (rank 0), t2 recv from 0 and t3 1->3 (rank 1), t4 recv on 2, t5 recv on
 * 3. t0 [0,1], t1 [1,2], t2 completes at 1, t3 [1,2], t4 and t5 at 2 (us).
 * Events: 3 sends (X), 3 recvs of no time (instants), 3 flows (s, f);
 * metadata: 4 nodes x (name, order) + 4 ranks x (name, order) = 16. */
START_TEST(bcast_binomial_counts) {
  fs_program *p = generate("bcast-binomial", 4, 8, 1);
  char *text = trace_of(p, "hockney", "fixed", "alpha=1us beta=0", NULL);
  ck_assert_int_eq(count(text, "\"ph\":\"X\""), 3);
  ck_assert_int_eq(count(text, "\"ph\":\"i\""), 3);
  ck_assert_int_eq(count(text, "\"ph\":\"s\""), 3);
  ck_assert_int_eq(count(text, "\"ph\":\"f\",\"bp\":\"e\""), 3);
  ck_assert_int_eq(count(text, "\"ph\":\"M\""), 16);
  ck_assert_int_eq(count(text, "\"name\":\"process_name\""), 4);
  ck_assert_int_eq(count(text, "\"name\":\"thread_sort_index\""), 4);
  ck_assert_int_eq(count(text, "\n{"), 16 + 12);
  ASSERT_HAS(text,
             "{\"name\":\"round2\",\"cat\":\"send\",\"ph\":\"X\",\"pid\":2,\"tid\":2,\"ts\":1,"
             "\"dur\":1,\"args\":{\"task\":3,\"size\":8,\"peer\":3}}");
  ASSERT_HAS(text, "{\"name\":\"round1\",\"cat\":\"recv\",\"ph\":\"i\",\"s\":\"t\",\"pid\":2,"
                   "\"tid\":2,\"ts\":1,\"args\":{\"task\":2,\"size\":8,\"peer\":0}}");
  ASSERT_HAS(text, "{\"name\":\"send\",\"cat\":\"message\",\"ph\":\"s\",\"id\":3,\"pid\":2,"
                   "\"tid\":2,\"ts\":1}");
  ASSERT_HAS(text, "{\"name\":\"send\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":3,"
                   "\"pid\":4,\"tid\":4,\"ts\":2}");
  ASSERT_HAS(text, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":3,\"tid\":3,"
                   "\"args\":{\"name\":\"rank 2\"}}");
  /* at 1 us on rank 1: its send's slice, the flow bound to it, then the
   * recv's instant and the flow ending on it */
  const char *slice = strstr(text, "\"id\":3,\"pid\":2,\"tid\":2,\"ts\":1}");
  const char *instant = strstr(text, "\"tid\":2,\"ts\":1,\"args\":{\"task\":2");
  const char *end =
      strstr(text, "\"ph\":\"f\",\"bp\":\"e\",\"id\":0,\"pid\":2,\"tid\":2,\"ts\":1}");
  ck_assert(slice && instant && end && slice < instant && instant < end);
  free(text);
  fs_program_free(p);
}
END_TEST

/* allreduce-rd, 8 ranks, 8 B, pipelined alpha_p=500ns alpha_r=100ns beta=0,
 * reduces of no time (fixed compute). Each of the 3 rounds starts at
 * T = 0, 0.6, 1.2 us: every rank's put holds the CPU [T, T+0.1], lands at
 * T+0.6, where the reduce runs. Events: 24 puts (X), 24 reduce instants +
 * 24 arrival instants, 24 flows; metadata 8 x 2 + 8 x 2 = 32. */
START_TEST(allreduce_rd_counts) {
  fs_program *p = generate("allreduce-rd", 8, 8, 1);
  char *text = trace_of(p, "pipelined", "fixed", "alpha_p=500ns alpha_r=100ns beta=0", NULL);
  ck_assert_int_eq(count(text, "\"ph\":\"X\""), 24);
  ck_assert_int_eq(count(text, "\"ph\":\"i\""), 48);
  ck_assert_int_eq(count(text, "\"cat\":\"arrival\""), 24);
  ck_assert_int_eq(count(text, "\"cat\":\"compute\",\"ph\":\"i\""), 24);
  ck_assert_int_eq(count(text, "\"ph\":\"s\""), 24);
  ck_assert_int_eq(count(text, "\"ph\":\"f\",\"bp\":\"e\""), 24);
  ck_assert_int_eq(count(text, "\"ph\":\"M\""), 32);
  ck_assert_int_eq(count(text, "\"ph\":\"X\",\"pid\":8,\"tid\":8,\"ts\":1.2,\"dur\":0.1,"), 1);
  ck_assert_int_eq(count(text, "\"ts\":1.8,"), 16); /* last arrivals and reduces */
  ck_assert_int_eq(count(text, "\"cat\":\"put\",\"ph\":\"X\""), 24);
  free(text);
  fs_program_free(p);
}
END_TEST

/* pingpong, 2 rounds of 1000 B under hockney's defaults: alpha = 1260 ns,
 * beta = 0.098039216 ns/B, so beta*1000 = 98.039216 ns = 98039 ps (nearest)
 * and each put takes 1358039 ps = 1.358039 us, local = remote. ping1
 * (t2) [0, 1.358039] lands on 1 at 1.358039; pong1 (t3) [1.358039,
 * 2.716078]; ping2 (t4) [2.716078, 4.074117]; pong2 (t5) [4.074117,
 * 5.432156], landing on 0 at 5.432156. */
START_TEST(pingpong_exact_times) {
  fs_program *p = generate("pingpong", 2, 1000, 2);
  char *text = trace_of(p, "hockney", "fixed", "", NULL);
  ASSERT_HAS(text, "{\"name\":\"ping\",\"cat\":\"put\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,"
                   "\"dur\":1.358039,\"args\":{\"task\":2,\"size\":1000,\"peer\":1}}");
  ASSERT_HAS(text,
             "{\"name\":\"pong\",\"cat\":\"put\",\"ph\":\"X\",\"pid\":2,\"tid\":2,"
             "\"ts\":1.358039,\"dur\":1.358039,\"args\":{\"task\":3,\"size\":1000,\"peer\":0}}");
  ASSERT_HAS(text,
             "{\"name\":\"ping\",\"cat\":\"put\",\"ph\":\"X\",\"pid\":1,\"tid\":1,"
             "\"ts\":2.716078,\"dur\":1.358039,\"args\":{\"task\":4,\"size\":1000,\"peer\":1}}");
  ASSERT_HAS(text,
             "{\"name\":\"pong\",\"cat\":\"put\",\"ph\":\"X\",\"pid\":2,\"tid\":2,"
             "\"ts\":4.074117,\"dur\":1.358039,\"args\":{\"task\":5,\"size\":1000,\"peer\":0}}");
  ASSERT_HAS(text, "{\"name\":\"ping\",\"cat\":\"arrival\",\"ph\":\"i\",\"s\":\"t\",\"pid\":2,"
                   "\"tid\":2,\"ts\":1.358039,\"args\":{\"task\":2,\"size\":1000,\"peer\":0}}");
  ASSERT_HAS(text, "{\"name\":\"pong\",\"cat\":\"arrival\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,"
                   "\"tid\":1,\"ts\":5.432156,\"args\":{\"task\":5,\"size\":1000,\"peer\":1}}");
  ASSERT_HAS(text, "{\"name\":\"put\",\"cat\":\"message\",\"ph\":\"s\",\"id\":2,\"pid\":1,"
                   "\"tid\":1,\"ts\":0}");
  ASSERT_HAS(text, "{\"name\":\"put\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":2,"
                   "\"pid\":2,\"tid\":2,\"ts\":1.358039}");
  ASSERT_HAS(text, "{\"name\":\"put\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":5,"
                   "\"pid\":1,\"tid\":1,\"ts\":5.432156}");
  ck_assert_int_eq(count(text, "\"ph\":\"X\""), 4);
  ck_assert_int_eq(count(text, "\"ph\":\"i\""), 4);
  /* the end of the file */
  ck_assert_msg(strstr(text, "\"ts\":5.432156}\n]}\n") != NULL, "%s", text);
  free(text);
  fs_program_free(p);
}
END_TEST

/* The bcast above with ranks 0,1 on node 0 and 2,3 on node 1: 2 processes
 * (pid = node + 1), named on the thread of their first rank; threads keep
 * tid = rank + 1. Metadata: 2 x 2 + 4 x 2 = 12. With ranks 0,1 on node 1
 * and 2,3 on node 0, node 0 is named on rank 2's thread. */
START_TEST(node_grouping) {
  fs_program *p = generate("bcast-binomial", 4, 8, 1);
  const int32_t nodes[4] = {0, 0, 1, 1};
  char *text = trace_of(p, "hockney", "fixed", "alpha=1us beta=0", nodes);
  ck_assert_int_eq(count(text, "\"ph\":\"M\""), 12);
  ASSERT_HAS(text, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
                   "\"args\":{\"name\":\"node 0\"}}");
  ASSERT_HAS(text, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":3,"
                   "\"args\":{\"name\":\"node 1\"}}");
  ASSERT_HAS(text, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":2,\"tid\":3,"
                   "\"args\":{\"sort_index\":1}}");
  ASSERT_HAS(text, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":4,"
                   "\"args\":{\"name\":\"rank 3\"}}");
  ASSERT_HAS(text, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":2,\"tid\":4,"
                   "\"args\":{\"sort_index\":3}}");
  ASSERT_HAS(text, "\"ph\":\"f\",\"bp\":\"e\",\"id\":3,\"pid\":2,\"tid\":4,\"ts\":2}");
  ck_assert_int_eq(count(text, "\"pid\":2,"), 2 + 4 + 2 + 2); /* M, and rank 2's and 3's events */
  free(text);
  const int32_t swapped[4] = {1, 1, 0, 0};
  text = trace_of(p, "hockney", "fixed", "alpha=1us beta=0", swapped);
  ASSERT_HAS(text, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":3,"
                   "\"args\":{\"name\":\"node 0\"}}");
  ASSERT_HAS(text, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":1,"
                   "\"args\":{\"name\":\"node 1\"}}");
  free(text);
  fs_program_free(p);
}
END_TEST

START_TEST(bad_node_is_refused) {
  fs_program *p = generate("pingpong", 2, 8, 1);
  fs_timeline *timeline = fs_timeline_new(p);
  char *path = fs_test_temp_path(".json");
  fs_error err = {""};
  fs_output *out = fs_output_open(path, &err);
  const int32_t nodes[2] = {0, -1};
  ck_assert_int_eq(fs_chrome_trace_write(timeline, nodes, out, &err), -1);
  ck_assert_str_eq(err.message, "chrome trace: rank 1 is on node -1 (nodes are 0 or more)");
  ck_assert_ptr_null(fs_test_read_file(path, NULL)); /* aborted: no file */
  /* a run not made: only the metadata */
  out = fs_output_open(path, &err);
  ck_assert_int_eq(fs_chrome_trace_write(timeline, NULL, out, &err), 0);
  char *text = fs_test_read_file(path, NULL);
  ck_assert(valid(text));
  ck_assert_int_eq(count(text, "\n{"), 8);
  free(text);
  FILE *full = fopen("/dev/full", "w");
  if (full) { /* a write that fails */
    fclose(full);
    out = fs_output_open("/dev/full", &err);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(fs_chrome_trace_write(timeline, NULL, out, &err), -1);
    ck_assert_msg(strncmp(err.message, "/dev/full: ", 11) == 0, "%s", err.message);
  }
  fs_timeline_free(timeline);
  free(path);
  fs_program_free(p);
}
END_TEST

/* Rank 0 runs two concurrent sleeps of 100 ns, both [0, 0.1] us: the second
 * goes to lane 1, tid = 1 x 2 ranks + 0 + 1 = 3, "rank 0 lane 1", ordered
 * right after rank 0 (sort index rank x 2 lanes + lane). Rank 1 sleeps
 * 50 ns, named "rest" (so args name every task, the others "t<id>"); its
 * label is not UTF-8: written with U+FFFD. Metadata: 2 x 2
 * + 3 threads x 2 = 10. */
START_TEST(overlapping_tasks_get_lanes) {
  fs_program *p = fs_program_new(2);
  int32_t a = fs_program_add(p, FS_SLEEP, 0), b = fs_program_add(p, FS_SLEEP, 0),
          c = fs_program_add(p, FS_SLEEP, 1);
  fs_task_set_time(p, a, 100 * FS_NS), fs_task_set_time(p, b, 100 * FS_NS);
  fs_task_set_time(p, c, 50 * FS_NS);
  fs_task_set_flag(p, a, FS_CONCURRENT), fs_task_set_flag(p, b, FS_CONCURRENT);
  fs_task_set_label(p, c, fs_program_intern_label(p, "x\"\xff\x01", 4));
  ck_assert_int_eq(fs_task_set_name(p, c, "rest", 4), 0); /* then args name every task */
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  char *text = trace_of(p, "hockney", "fixed", "", NULL);
  ck_assert_int_eq(count(text, "\"ph\":\"M\""), 10);
  ASSERT_HAS(text,
             "{\"name\":\"sleep\",\"cat\":\"sleep\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,"
             "\"dur\":0.1,\"args\":{\"task\":0,\"task_name\":\"t0\"}}");
  ASSERT_HAS(text,
             "{\"name\":\"sleep\",\"cat\":\"sleep\",\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":0,"
             "\"dur\":0.1,\"args\":{\"task\":1,\"task_name\":\"t1\"}}");
  ASSERT_HAS(text, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":3,"
                   "\"args\":{\"name\":\"rank 0 lane 1\"}}");
  ASSERT_HAS(text, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":3,"
                   "\"args\":{\"sort_index\":1}}");
  ASSERT_HAS(text, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":2,\"tid\":2,"
                   "\"args\":{\"sort_index\":2}}");
  ASSERT_HAS(text, "{\"name\":\"x\\\"\\ufffd\\u0001\",\"cat\":\"sleep\",\"ph\":\"X\",\"pid\":2,"
                   "\"tid\":2,\"ts\":0,\"dur\":0.05,\"args\":{\"task\":2,\"task_name\":\"rest\"}}");
  free(text);
  fs_program_free(p);
}
END_TEST

static int32_t two_sided(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer) {
  int32_t t = fs_program_add(p, kind, rank);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, 1);
  return t;
}

/* A 1-byte send 0 -> 1 under loggops' defaults (L 2500, o 1500, G 6, O 0
 * ns): the send holds its CPU [0, 1.5] us, the message reaches rank 1 at
 * o + L = 4 us, whose CPU receives it for o + max(0*O, 0*G) = 1.5 us: the
 * recv's slice is [4, 5.5], and the flow ends on it at its start. */
START_TEST(receive_time_is_a_slice) {
  fs_program *p = fs_program_new(2);
  two_sided(p, FS_SEND, 0, 1);
  two_sided(p, FS_RECV, 1, 0);
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  char *text = trace_of(p, "loggops", "fixed", "", NULL);
  ASSERT_HAS(text, "{\"name\":\"send\",\"cat\":\"send\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,"
                   "\"dur\":1.5,\"args\":{\"task\":0,\"size\":1,\"peer\":1}}");
  ASSERT_HAS(text, "{\"name\":\"recv\",\"cat\":\"recv\",\"ph\":\"X\",\"pid\":2,\"tid\":2,\"ts\":4,"
                   "\"dur\":1.5,\"args\":{\"task\":1,\"size\":1,\"peer\":0}}");
  ASSERT_HAS(text, "{\"name\":\"send\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":0,"
                   "\"pid\":2,\"tid\":2,\"ts\":4}");
  ck_assert_int_eq(count(text, "\"ph\":\"i\""), 0);
  free(text);
  fs_program_free(p);
}
END_TEST

/* An early message (test_instruments.c's early_message_under_loggops):
 * rank 1's CPU receives a's message at 4..6.023 us, before its recv x is
 * posted (26.007 us): x's slice is that receipt, and a's flow ends on it. */
START_TEST(early_message_is_a_slice) {
  const char *dag = "fennel-dag 1\nranks 2\ns0 start 0\ns1 start 1\n"
                    "a send 0 to=1 size=1KiB tag=1 after=s0\n"
                    "c compute 0 time=20us after=a:local\n"
                    "b send 0 to=1 size=8B tag=2 after=c\n"
                    "y recv 1 from=0 size=8B tag=2 after=s1\n"
                    "x recv 1 from=0 size=1KiB tag=1 after=y\n";
  fs_error err = {{0}};
  fs_program *p = fs_dag_read_memory(dag, strlen(dag), "early.dag", &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  char *text = trace_of(p, "loggops", "fixed", "L=3us o=1us g=0 G=1ns O=0 S=64KiB", NULL);
  ASSERT_HAS(text,
             "{\"name\":\"recv\",\"cat\":\"recv\",\"ph\":\"X\",\"pid\":2,\"tid\":2,\"ts\":4,"
             "\"dur\":2.023,\"args\":{\"task\":6,\"task_name\":\"x\",\"size\":1024,\"peer\":0}}");
  ASSERT_HAS(text, "{\"name\":\"send\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":2,"
                   "\"pid\":2,\"tid\":2,\"ts\":4}");
  free(text);
  fs_program_free(p);
}
END_TEST

/* ---- the progress bar ---- */

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static char *contents(FILE *f) {
  long size = ftell(f);
  char *text = calloc(1, (size_t)size + 1);
  rewind(f);
  ck_assert_int_eq(fread(text, 1, (size_t)size, f), (size_t)size);
  return text;
}

/* Silent for the first half second; then the first update due draws; the
 * clock is read again only 4096 updates later; done erases the line. */
START_TEST(progress_draws_and_erases) {
  FILE *f = tmpfile();
  fs_progress *p = fs_progress_new("simulating", 200, 1, f);
  ck_assert_ptr_nonnull(p);
  fs_progress_update(p, 10); /* looks at the clock: too early */
  ck_assert_int_eq(ftell(f), 0);
  sleep_ms(550);
  for (int i = 0; i < 4095; i++) fs_progress_update(p, 20); /* not due to look */
  ck_assert_int_eq(ftell(f), 0);
  fs_progress_update(p, 50); /* looks: draws */
  const char *first = "\rsimulating [=====               ]  25% 50/200\033[K";
  ck_assert_int_eq(ftell(f), (long)strlen(first));
  sleep_ms(150);
  for (int i = 0; i < 4095; i++) fs_progress_update(p, 60);
  fs_progress_update(p, 200);
  fs_progress_done(p);
  char *text = contents(f);
  char expected[256];
  snprintf(expected, sizeof expected, "%s%s%s", first,
           "\rsimulating [====================] 100% 200/200\033[K", "\r\033[K");
  ck_assert_str_eq(text, expected);
  free(text);
  fclose(f);
}
END_TEST

/* The study's bar: count, 30 columns with a '>' tip, rate and time left,
 * drawn from the first tenth of a second on, at each update due. */
START_TEST(progress_rated_shows_rate_and_time_left) {
  FILE *f = tmpfile();
  fs_progress *p = fs_progress_new_rated("seeds", 4, 1, f);
  fs_progress_update(p, 1); /* too early */
  ck_assert_int_eq(ftell(f), 0);
  sleep_ms(150);
  fs_progress_update(p, 3);
  fs_progress_done(p);
  char *text = contents(f);
  const char *start = "\r3/4 seeds [======================>       ]  75%  ";
  ck_assert_msg(strncmp(text, start, strlen(start)) == 0, "%s", text);
  ck_assert_msg(strstr(text, " seeds/s  ETA 0:0") != NULL, "%s", text);
  const char *end = "\033[K\r\033[K";
  ck_assert_str_eq(text + strlen(text) - strlen(end), end);
  free(text);
  fclose(f);
}
END_TEST

START_TEST(progress_unknown_total_and_disabled) {
  ck_assert_ptr_null(fs_progress_new("reading", 100, 0, stderr));
  fs_progress_update(NULL, 5); /* all calls accept NULL */
  fs_progress_done(NULL);
  FILE *f = tmpfile();
  fs_progress *p = fs_progress_new("reading", 0, 1, f);
  fs_progress_done(p); /* nothing drawn, nothing erased */
  ck_assert_int_eq(ftell(f), 0);
  p = fs_progress_new("reading", -1, 1, f);
  sleep_ms(550);
  fs_progress_update(p, 12345);
  fs_progress_update(p, 12346); /* not due */
  fs_progress_done(p);
  char *text = contents(f);
  ck_assert_str_eq(text, "\rreading 12345\033[K\r\033[K");
  free(text);
  fclose(f);
}
END_TEST

/* The trace of the fake flow model's run (fake_flow.c) with its rates
 * (flows) or without. */
static char *trace_of_flows(int flows) {
  fs_fake_flow_run run;
  fs_fake_flow_run_new(&run);
  fs_link_load *load = fs_link_load_new(1, 1);
  fs_error err = {""};
  ck_assert_int_eq(fs_link_load_attach(load, &run.network, &err), 0);
  fs_timeline *timeline = fs_timeline_new(run.program);
  fs_observer observer = fs_timeline_observer(timeline);
  ck_assert_int_eq(fs_engine_add_observer(run.engine, &observer), 0);
  fs_fake_flow_run_program(&run);
  ck_assert_int_eq(fs_link_load_finish(load, fs_engine_makespan(run.engine), &err), 0);
  char *path = fs_test_temp_path(".json");
  fs_output *out = fs_output_open(path, &err);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(fs_chrome_trace_write_flows(timeline, NULL, flows ? load : NULL, out, &err), 0);
  size_t length;
  char *text = fs_test_read_file(path, &length);
  ck_assert_msg(json_valid(text, length), "not JSON:\n%s", text);
  remove(path);
  free(path);
  fs_timeline_free(timeline);
  fs_link_load_free(load);
  fs_fake_flow_run_free(&run);
  return text;
}

/* The fake flow model's puts free their CPU at once (instants at 0): A
 * (t0, rank 0, 1000 B to 1) lands at 1.6 us, B (t1, rank 1, 500 B to 0)
 * at 1.5. A's rates: 1e9
 * B/s from 0.1 us, 5e8 from 0.5, 1e9 from 1.5, 0 at delivery (1.6); B's:
 * 5e8 from 0.5, 0 at 1.5. Ranks 0 and 1 are processes 1 and 2, so
 * "links" is process 3 (sort index 2) on thread 3 (1 lane x 2 ranks +
 * 1), with a counter per used link from 0 at time 0: L1 1e9 from 0.1 (one
 * flow, then two from 0.5, one from 1.5: the same rate), 0 at 1.6; L2
 * 1e9, 5e8 at 0.5, 1e9 at 1.5, 0 at 1.6. Without rates the trace is the
 * plain one, and the plain one has no rates. */
START_TEST(flow_rates_and_link_counters) {
  char *text = trace_of_flows(1), *plain = trace_of_flows(0);
  ASSERT_HAS(text, "{\"name\":\"put\",\"cat\":\"put\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,"
                   "\"tid\":1,\"ts\":0,\"args\":{\"task\":0,\"size\":1000,\"peer\":1,"
                   "\"rates\":[{\"from_us\":0.1,\"Bps\":1000000000},{\"from_us\":0.5,"
                   "\"Bps\":500000000},{\"from_us\":1.5,\"Bps\":1000000000},{\"from_us\":1.6,"
                   "\"Bps\":0}]}}");
  ASSERT_HAS(text, "\"args\":{\"task\":1,\"size\":500,\"peer\":0,\"rates\":[{\"from_us\":0.5,"
                   "\"Bps\":500000000},{\"from_us\":1.5,\"Bps\":0}]}}");
  ASSERT_HAS(text, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3,\"tid\":3,\"args\":{"
                   "\"name\":\"links\"}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\","
                   "\"pid\":3,\"tid\":3,\"args\":{\"sort_index\":2}},\n");
  const char *l1 = "{\"name\":\"L1\",\"ph\":\"C\",\"pid\":3,\"tid\":3,\"ts\":0,\"args\":{"
                   "\"B/s\":0}},\n{\"name\":\"L1\",\"ph\":\"C\",\"pid\":3,\"tid\":3,\"ts\":0.1,"
                   "\"args\":{\"B/s\":1000000000}},\n{\"name\":\"L1\",\"ph\":\"C\",\"pid\":3,"
                   "\"tid\":3,\"ts\":0.5,\"args\":{\"B/s\":1000000000}},\n{\"name\":\"L1\","
                   "\"ph\":\"C\",\"pid\":3,\"tid\":3,\"ts\":1.5,\"args\":{\"B/s\":1000000000}},"
                   "\n{\"name\":\"L1\",\"ph\":\"C\",\"pid\":3,\"tid\":3,\"ts\":1.6,\"args\":{"
                   "\"B/s\":0}},\n{\"name\":\"L2\"";
  ASSERT_HAS(text, l1);
  ASSERT_HAS(text, "\"ts\":0.5,\"args\":{\"B/s\":500000000}},\n");
  ck_assert_int_eq(count(text, "\"ph\":\"C\""), 10);
  ck_assert_int_eq(count(text, "\"rates\""), 2);
  ck_assert_int_eq(count(plain, "\"ph\":\"C\""), 0);
  ck_assert_ptr_null(strstr(plain, "rates"));
  ck_assert_ptr_null(strstr(plain, "links"));
  free(text), free(plain);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("chrome_trace");
  TCase *c = tcase_create("json");
  tcase_add_test(c, validator_accepts_json);
  tcase_add_test(c, validator_rejects_bad_json);
  suite_add_tcase(s, c);
  c = tcase_create("trace");
  tcase_add_test(c, bcast_binomial_counts);
  tcase_add_test(c, allreduce_rd_counts);
  tcase_add_test(c, pingpong_exact_times);
  tcase_add_test(c, node_grouping);
  tcase_add_test(c, bad_node_is_refused);
  tcase_add_test(c, overlapping_tasks_get_lanes);
  tcase_add_test(c, receive_time_is_a_slice);
  tcase_add_test(c, early_message_is_a_slice);
  tcase_add_test(c, flow_rates_and_link_counters);
  suite_add_tcase(s, c);
  c = tcase_create("progress");
  tcase_add_test(c, progress_draws_and_erases);
  tcase_add_test(c, progress_unknown_total_and_disabled);
  tcase_add_test(c, progress_rated_shows_rate_and_time_left);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(suite()); }
