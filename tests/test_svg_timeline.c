/* test_svg_timeline.c: the --svg drawing (instruments/svg_timeline.h) on
 * small runs: the exact boxes, arrows and marks of a ping-pong, a message
 * and a get (positions derived from the documented scale in the comment
 * above each test), lanes, legend, escaping, well-formedness (a small tag
 * checker), the 64-lane limit and rank ranges, and the size at 64 ranks. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/engine.h"
#include "formats/dag_reader.h"
#include "generators/generators.h"
#include "instruments/svg_timeline.h"
#include "instruments/timeline.h"
#include "fake_flow.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000

/* ---- helpers ---- */

static int32_t add(fs_program *p, fs_task_kind kind, int32_t rank) {
  int32_t t = fs_program_add(p, kind, rank);
  ck_assert_int_ge(t, 0);
  return t;
}

/* Runs p once more with a timeline attached (fs_test_simulate ran it
 * without); the caller frees both. */
static fs_timeline *record(fs_simulation *run, const fs_program *p, const char *model,
                           const char *params) {
  fs_test_simulate(run, p, model, "fixed", params);
  ck_assert_int_eq(run->status, FS_RUN_OK);
  fs_timeline *timeline = fs_timeline_new(p);
  ck_assert_ptr_nonnull(timeline);
  fs_observer observer = fs_timeline_observer(timeline);
  ck_assert_int_eq(fs_engine_add_observer(run->engine, &observer), 0);
  ck_assert_int_eq(fs_engine_run(run->engine, &run->err), FS_RUN_OK);
  return timeline;
}

/* Draws into a temporary file and returns its text (caller frees), or NULL
 * with *err set when refused; then the file must not exist. */
static char *draw(const fs_timeline *timeline, const fs_svg_options *o, fs_error *err) {
  char *path = fs_test_temp_path(".svg");
  fs_output *out = fs_output_open(path, err);
  ck_assert_ptr_nonnull(out);
  char *text = NULL;
  if (fs_svg_timeline_write(timeline, o, out, err) == 0) {
    text = fs_test_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
  } else {
    struct stat st;
    ck_assert_int_ne(stat(path, &st), 0);
  }
  remove(path);
  free(path);
  return text;
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *s = strstr(text, what); s; s = strstr(s + 1, what)) n++;
  return n;
}

static void has(const char *text, const char *what) {
  ck_assert_msg(strstr(text, what) != NULL, "missing: %s", what);
}

/* A tiny XML checker: every tag closed in order, one root <svg> with the
 * SVG namespace, quoted attributes, and no raw '<' or bare '&' in text or
 * attribute values (only the five predefined entities). Returns NULL when
 * well-formed, else what is wrong. */
static const char *xml_problem(const char *text) {
  static char why[160];
  const char *stack[64];
  size_t lengths[64];
  int depth = 0, roots = 0;
  const char *s = text;
  if (strncmp(s, "<?xml", 5) == 0) {
    s = strstr(s, "?>");
    if (!s) return "unterminated declaration";
    s += 2;
  }
  while (*s) {
    if (*s == '&') {
      static const char *const entities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
      int known = 0;
      for (int i = 0; i < 5; i++) known |= strncmp(s, entities[i], strlen(entities[i])) == 0;
      if (!known) return "bare &";
      s++;
      continue;
    }
    if (*s == '>') return "raw > outside a tag";
    if (*s != '<') {
      s++;
      continue;
    }
    int closing = s[1] == '/';
    const char *name = s + 1 + closing, *end = name;
    while (*end && !strchr(" \t\n/>", *end)) end++;
    if (end == name) return "empty tag name";
    const char *q = end; /* attributes: name="value" with escaped values */
    while (*q && *q != '>') {
      if (*q == '"') {
        for (q++; *q && *q != '"'; q++)
          if (*q == '<') return "< in an attribute";
        if (!*q) return "unterminated attribute";
      } else if (*q == '<') {
        return "< inside a tag";
      }
      q++;
    }
    if (!*q) return "unterminated tag";
    int self_closing = q[-1] == '/';
    size_t length = (size_t)(end - name);
    if (closing) {
      if (depth == 0 || lengths[depth - 1] != length || strncmp(stack[depth - 1], name, length)) {
        snprintf(why, sizeof why, "</%.*s> closes nothing open", (int)length, name);
        return why;
      }
      depth--;
    } else {
      if (depth == 0) {
        if (roots++ || strncmp(name, "svg", length) || length != 3) return "not one <svg> root";
        const char *xmlns = strstr(name, "xmlns=\"http://www.w3.org/2000/svg\"");
        if (!xmlns || xmlns > q) return "no SVG namespace";
      }
      if (!self_closing) {
        if (depth == 64) return "too deep";
        stack[depth] = name, lengths[depth++] = length;
      }
    }
    s = q + 1;
  }
  if (depth) return "unclosed tags at the end";
  return roots == 1 ? NULL : "no root";
}

static void well_formed(const char *svg) {
  const char *problem = xml_problem(svg);
  ck_assert_msg(problem == NULL, "%s", problem ? problem : "");
}

/* The checker itself rejects what it should. */
START_TEST(checker_rejects_malformed_xml) {
  ck_assert_ptr_null(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\"><g/></svg>"));
  ck_assert_str_eq(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\"><g></svg>"),
                   "</svg> closes nothing open");
  ck_assert_str_eq(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\">a&b</svg>"), "bare &");
  ck_assert_str_eq(xml_problem("<svg><g/></svg>"), "no SVG namespace");
  ck_assert_str_eq(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\"><g>"),
                   "unclosed tags at the end");
  ck_assert_str_eq(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\" a=\"<\"/>"),
                   "< in an attribute");
}
END_TEST

/* ---- drawings ---- */

/* gen pingpong (2 ranks, 1 round) under hockney alpha = 1 us, beta = 0:
 * t0, t1 the starts; t2 ping (rank 0 to 1) runs 0..1 us, local = remote
 * (the sender is held until arrival); t3 pong (1 to 0) 1..2 us.
 * E = 2 us; ceil(E / 8) = 250 ns, so the step is 500 ns and the axis ends at
 * 2 us; x(t) = 90 + 1000 t / 2 us: x(0) = 90, x(1 us) = 590, x(2 us) = 1090.
 * 2 lanes: h = 720 / 2 = 360, clamped to 40; lane tops 64 and 104; boxes at
 * y = top + 8, height 24; label font min(11, 24 - 2) = 11 at
 * y = 72 + 12 + 0.35 * 11 = 87.85 (rank 0). Arrows leave at the box start
 * (local end = arrival): ping from rank 0's lower edge (64 + 32 = 96) at
 * x 90 to rank 1's upper edge (104 + 8 = 112) at x 590; pong from (590, 112)
 * to (1090, 96). Both ranks finish at 2 us (rank 0: pong lands; rank 1: its
 * pong's CPU release): marks at x 1090 from top + 4 to top + 36. Height:
 * 64 + 80 (lanes) + 56 + 44 (legend) + 8 = 252. */
START_TEST(pingpong_boxes_and_arrows) {
  fs_error err;
  fs_generator_options o = {.ranks = 2, .size = 8, .rounds = 1};
  fs_program *p = fs_generate_pingpong(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  fs_simulation run;
  fs_timeline *timeline = record(&run, p, "hockney", "alpha=1us beta=0");
  fs_svg_options options = {-1, -1, "ping-pong"};
  char *svg = draw(timeline, &options, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  well_formed(svg);
  has(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"1120\" "
           "height=\"252\" viewBox=\"0 0 1120 252\">");
  has(svg, "<text class=\"title\" x=\"90\" y=\"24\">ping-pong</text>");
  has(svg, ">2 ranks, makespan 2 us</text>");
  has(svg, "<rect class=\"put\" x=\"90.00\" y=\"72.00\" width=\"500.00\" height=\"24.00\">"
           "<title>t2 put ping, rank 0 to 1: 0-1000 ns, lands 1000 ns</title></rect>\n");
  has(svg, "<rect class=\"put\" x=\"590.00\" y=\"112.00\" width=\"500.00\" height=\"24.00\">"
           "<title>t3 put pong, rank 1 to 0: 1000-2000 ns, lands 2000 ns</title></rect>\n");
  has(svg, "<text class=\"label\" x=\"340.00\" y=\"87.85\" font-size=\"11.0\">ping</text>");
  has(svg, "<text class=\"label\" x=\"840.00\" y=\"127.85\" font-size=\"11.0\">pong</text>");
  has(svg, "<line class=\"put-arrow\" x1=\"90.00\" y1=\"96.00\" x2=\"590.00\" y2=\"112.00\"/>");
  has(svg, "<line class=\"put-arrow\" x1=\"590.00\" y1=\"112.00\" x2=\"1090.00\" y2=\"96.00\"/>");
  has(svg, "<line class=\"finish\" x1=\"1090.00\" y1=\"68.00\" x2=\"1090.00\" y2=\"100.00\"/>");
  has(svg, "<line class=\"finish\" x1=\"1090.00\" y1=\"108.00\" x2=\"1090.00\" y2=\"140.00\"/>");
  /* lanes: two names, one shaded band (every other lane) */
  ck_assert_int_eq(count(svg, "<text class=\"rank\""), 2);
  has(svg, ">rank 0</text>");
  has(svg, ">rank 1</text>");
  ck_assert_int_eq(count(svg, "<rect class=\"lane\""), 1);
  /* axis: ticks at 0, 0.5, ..., 2 us */
  ck_assert_int_eq(count(svg, "<text class=\"tick\""), 5);
  has(svg, "<text class=\"tick\" x=\"340.00\" y=\"161.00\">0.5</text>");
  has(svg, ">time (us)</text>");
  /* legend: the put box, the finish mark and the put arrow, nothing else */
  has(svg, "<g class=\"legend\">");
  has(svg, ">put (CPU)</text>");
  has(svg, ">rank finishes</text>");
  has(svg, ">put: data lands at the target</text>");
  ck_assert_int_eq(count(svg, "<rect class=\"put\""), 3); /* 2 boxes + legend */
  ck_assert_int_eq(count(svg, "<line class=\"put-arrow\""), 3);
  ck_assert_int_eq(count(svg, "<line class=\"finish\""), 3);
  ck_assert_ptr_null(strstr(svg, "<rect class=\"compute\""));
  ck_assert_ptr_null(strstr(svg, ">compute</text>"));
  ck_assert_ptr_null(strstr(svg, "<line class=\"message\""));
  free(svg);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* A message under loggops (defaults L = 2500, o = 1500 ns; 1 byte, so no
 * (s-1)G): t0 send on rank 0 holds its CPU 0..1500 ns; the message arrives
 * at o + L = 4000 and its receipt holds rank 1's CPU to 5500, where t1 (the
 * recv, posted at 0) completes. E = 5.5 us; ceil(E / 8) = 687.5 ns, so the
 * step is 1 us and the axis ends at 6 us: x(t) = 90 + t / 6 ns. Send box:
 * x 90, width 250; receive box: x(4000) = 756.67, width 250. The arrow
 * leaves at the send's local end, x(1500) = 340 (lower edge of lane 0, 96),
 * and reaches the recv's completion x(5500) = 1006.67 (upper edge of lane
 * 1, 112). */
START_TEST(message_and_receive_overhead) {
  fs_program *p = fs_program_new(2);
  int32_t send = add(p, FS_SEND, 0), recv = add(p, FS_RECV, 1);
  fs_task_set_peer(p, send, 1), fs_task_set_size(p, send, 1);
  fs_task_set_peer(p, recv, 0), fs_task_set_size(p, recv, 1);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *timeline = record(&run, p, "loggops", "");
  fs_error err;
  char *svg = draw(timeline, NULL, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  well_formed(svg);
  has(svg, "<text class=\"title\" x=\"90\" y=\"24\">fennelsim timeline</text>");
  has(svg, ">2 ranks, makespan 5.5 us</text>");
  has(svg, "<rect class=\"send\" x=\"90.00\" y=\"72.00\" width=\"250.00\" height=\"24.00\">"
           "<title>t0 send, rank 0 to 1: 0-1500 ns, lands 5500 ns</title></rect>\n");
  has(svg, "<rect class=\"recv\" x=\"756.67\" y=\"112.00\" width=\"250.00\" height=\"24.00\">"
           "<title>t1 recv, rank 1 from 0: 4000-5500 ns</title></rect>\n");
  has(svg, "<line class=\"message\" x1=\"340.00\" y1=\"96.00\" x2=\"1006.67\" y2=\"112.00\"/>");
  ck_assert_int_eq(count(svg, "<line class=\"message\""), 2); /* and the legend's */
  has(svg, ">send (CPU)</text>");
  has(svg, ">receive overhead</text>");
  has(svg, ">message: until received</text>");
  ck_assert_int_eq(count(svg, "<text class=\"tick\""), 7); /* 0..6 us */
  free(svg);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* An early message under loggops (L 3 us, o 1 us, G 1 ns/B; the
 * derivation is test_instruments.c's early_message_under_loggops): a's
 * message (1 KiB) is received by rank 1's CPU 4000..6023 ns, before x, its
 * recv, is posted at 26007 ns. x's box is that receipt, and a's arrow
 * ends at its end. E = 26.007 us: step 5 us, axis to 30 us, x(t) = 90 +
 * t / 30 ns: the box at x(4000) = 223.33, width 2023 / 30 = 67.43; the
 * arrow from a's local end x(1000) = 123.33 to x(6023) = 290.77. */
START_TEST(early_message_receipt) {
  const char *text = "fennel-dag 1\nranks 2\ns0 start 0\ns1 start 1\n"
                     "a send 0 to=1 size=1KiB tag=1 after=s0\n"
                     "c compute 0 time=20us after=a:local\n"
                     "b send 0 to=1 size=8B tag=2 after=c\n"
                     "y recv 1 from=0 size=8B tag=2 after=s1\n"
                     "x recv 1 from=0 size=1KiB tag=1 after=y\n";
  fs_error err = {{0}};
  fs_program *p = fs_dag_read_memory(text, strlen(text), "early.dag", &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  fs_simulation run;
  fs_timeline *timeline = record(&run, p, "loggops", "L=3us o=1us g=0 G=1ns O=0 S=64KiB");
  char *svg = draw(timeline, NULL, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  well_formed(svg);
  has(svg, "<rect class=\"recv\" x=\"223.33\" y=\"112.00\" width=\"67.43\" height=\"24.00\">"
           "<title>x recv, rank 1 from 0: 4000-6023 ns</title></rect>\n");
  has(svg, "<title>a send, rank 0 to 1: 0-1000 ns, lands 6023 ns</title>");
  has(svg, "<line class=\"message\" x1=\"123.33\" y1=\"96.00\" x2=\"290.77\" y2=\"112.00\"/>");
  free(svg);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* A get under pipelined with alpha_p = 1 us, alpha_r = 500 ns: rank 0's
 * CPU 0..500 ns (local end), the data back at 500 + 2 * 1000 = 2500 ns.
 * E = 2.5 us; ceil(E / 8) = 312.5 ns, step 500 ns, axis end 2.5 us:
 * x(t) = 90 + 0.4 t (ns). Box x 90 width 200; the request leaves at the
 * local end, x 290, turns at rank 1 halfway to the end, x(1500) = 690, and
 * the data lands at x(2500) = 1090. Only rank 0 finishes (at 2500 ns). */
START_TEST(get_request_and_data) {
  fs_program *p = fs_program_new(2);
  int32_t get = add(p, FS_GET, 0);
  fs_task_set_peer(p, get, 1), fs_task_set_size(p, get, 8);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *timeline = record(&run, p, "pipelined", "alpha_p=1us alpha_r=500ns");
  fs_error err;
  char *svg = draw(timeline, NULL, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  well_formed(svg);
  has(svg, "<rect class=\"get\" x=\"90.00\" y=\"72.00\" width=\"200.00\" height=\"24.00\">"
           "<title>t0 get, rank 0 from 1: 0-500 ns, lands 2500 ns</title></rect>\n");
  has(svg, "<line class=\"get-request\" x1=\"290.00\" y1=\"96.00\" x2=\"690.00\" y2=\"112.00\"/>");
  has(svg, "<line class=\"get-data\" x1=\"690.00\" y1=\"112.00\" x2=\"1090.00\" y2=\"96.00\"/>");
  has(svg, "<line class=\"finish\" x1=\"1090.00\" y1=\"68.00\" x2=\"1090.00\" y2=\"100.00\"/>");
  ck_assert_int_eq(count(svg, "<line class=\"finish\""), 2); /* rank 0 and the legend */
  has(svg, ">get: request</text>");
  has(svg, ">get: data back</text>");
  free(svg);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* One rank: a compute of 1 us labelled "<&>", then a sleep of 2 us; a
 * title with markup. E = 3 us; ceil(E / 8) = 375 ns, step 500 ns, axis end
 * 3 us: x(t) = 90 + t / 3 ns. The compute box: x 90, width 333.33, its
 * label centred at 256.67; the sleep box: x 423.33, width 666.67. */
START_TEST(compute_sleep_and_escaping) {
  fs_program *p = fs_program_new(1);
  int32_t compute = add(p, FS_COMPUTE, 0), sleep = add(p, FS_SLEEP, 0);
  fs_task_set_time(p, compute, 1000 * NS);
  fs_task_set_time(p, sleep, 2000 * NS);
  ck_assert_int_eq(fs_program_depend(p, sleep, compute, FS_AFTER_END), 0);
  int32_t label = fs_program_intern_label(p, "<&>", 3);
  ck_assert_int_ge(label, 0);
  ck_assert_int_eq(fs_task_set_label(p, compute, label), 0);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *timeline = record(&run, p, "hockney", "");
  fs_svg_options options = {-1, -1, "a \"quoted\" <b> & 'c'"};
  fs_error err;
  char *svg = draw(timeline, &options, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  well_formed(svg);
  has(svg, ">a &quot;quoted&quot; &lt;b&gt; &amp; &apos;c&apos;</text>");
  has(svg, "<rect class=\"compute\" x=\"90.00\" y=\"72.00\" width=\"333.33\" height=\"24.00\">"
           "<title>t0 compute &lt;&amp;&gt;, rank 0: 0-1000 ns</title></rect>\n");
  has(svg,
      "<text class=\"label\" x=\"256.67\" y=\"87.85\" font-size=\"11.0\">&lt;&amp;&gt;</text>");
  has(svg, "<rect class=\"sleep\" x=\"423.33\" y=\"72.00\" width=\"666.67\" height=\"24.00\">"
           "<title>t1 sleep, rank 0: 1000-3000 ns</title></rect>\n");
  ck_assert_ptr_null(strstr(svg, "<&>"));
  has(svg, ">1 rank, makespan 3 us</text>");
  has(svg, ">compute</text>");
  has(svg, ">sleep</text>");
  free(svg);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* 65 ranks, each a compute of 1 us: refused without a range; a range of 64
 * (1-64) is drawn, with 64 lane names; bad ranges are refused. */
START_TEST(lane_limit_and_ranges) {
  fs_program *p = fs_program_new(65);
  for (int32_t r = 0; r < 65; r++) fs_task_set_time(p, add(p, FS_COMPUTE, r), 1000 * NS);
  fs_test_finalize(p);
  fs_simulation run;
  fs_timeline *timeline = record(&run, p, "hockney", "");
  fs_error err;
  ck_assert_ptr_null(draw(timeline, NULL, &err));
  ck_assert_str_eq(err.message, "svg: 65 ranks are too many lanes to draw legibly (at most 64); "
                                "choose at most 64 ranks with --svg-ranks A-B");
  fs_svg_options all = {-1, -1, NULL};
  ck_assert_ptr_null(draw(timeline, &all, &err));
  fs_svg_options too_many = {0, 64, NULL};
  ck_assert_ptr_null(draw(timeline, &too_many, &err));
  ck_assert_str_eq(err.message, "svg: rank range 0-64 has 65 ranks; at most 64 can be drawn");
  fs_svg_options outside = {60, 65, NULL};
  ck_assert_ptr_null(draw(timeline, &outside, &err));
  ck_assert_str_eq(err.message, "svg: rank range 60-65 is not within the program's ranks 0-64");
  fs_svg_options reversed = {5, 4, NULL};
  ck_assert_ptr_null(draw(timeline, &reversed, &err));
  ck_assert_str_eq(err.message, "svg: rank range 5-4 is not within the program's ranks 0-64");
  fs_svg_options half = {-1, 3, NULL};
  ck_assert_ptr_null(draw(timeline, &half, &err));
  ck_assert_str_eq(err.message, "svg: rank range -1-3 is not within the program's ranks 0-64");
  fs_svg_options range = {1, 64, NULL};
  char *svg = draw(timeline, &range, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  well_formed(svg);
  ck_assert_int_eq(count(svg, "<text class=\"rank\""), 64);
  ck_assert_ptr_null(strstr(svg, ">rank 0</text>"));
  has(svg, ">rank 1</text>");
  has(svg, ">rank 64</text>");
  ck_assert_int_eq(count(svg, "<rect class=\"compute\""), 65); /* 64 + legend */
  has(svg, ">ranks 1-64 of 65 (faint arrows: to or from the others), makespan 1 us</text>");
  free(svg);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Ranks 2-3 of an 8-rank recursive doubling (pipelined, ARCHER 8 B:
 * alpha_p = 880, alpha_r = 380 ns). Round 1 is 2 <-> 3 (both drawn); round
 * 2 pairs 2 with 0 and 3 with 1 (below the range: cut at the top edge,
 * faint, a head only on those coming in); round 3 pairs them with 6 and 7
 * (cut at the bottom). Each round: 2 arrows out of the range, 2 into it. */
START_TEST(arrows_to_ranks_not_drawn) {
  fs_error err;
  fs_generator_options o = {.ranks = 8, .size = 8};
  fs_program *p = fs_generate_allreduce_rd(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  fs_simulation run;
  fs_timeline *timeline = record(&run, p, "pipelined", "");
  fs_svg_options range = {2, 3, NULL};
  char *svg = draw(timeline, &range, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  well_formed(svg);
  ck_assert_int_eq(count(svg, "<line class=\"put-arrow\" "), 2 + 1);
  ck_assert_int_eq(count(svg, "<line class=\"put-arrow leaves\""), 4);
  ck_assert_int_eq(count(svg, "<line class=\"put-arrow enters\""), 4);
  /* round 2 out of rank 2 to rank 0: rank 2's upper edge y = 64 + 8 = 72;
   * rank 0's lower edge would be at 64 - 2 * 40 + 32 = 16: the line crosses
   * y = 64 at 8 / 56 = 1/7 of the way. Round 2 starts at 1260 ns, leaves at
   * 1640 and lands at 2520 ns; E = 3 * 1260 = 3780 ns, step 500 ns, axis
   * end 4 us: x(t) = 90 + t / 4 ns: x1 = 500, x2 = 500 + (720 - 500) / 7 =
   * 531.43. */
  has(svg,
      "<line class=\"put-arrow leaves\" x1=\"500.00\" y1=\"72.00\" x2=\"531.43\" y2=\"64.00\"/>");
  free(svg);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* The thesis's §5.6 example: allreduce-rm a8 at 8 ranks under pipelined
 * (ARCHER 8 B) takes alpha_p + 7 alpha_r = 880 + 2660 = 3540 ns; each rank
 * puts 7 times back to back, labelled once ("stage1"). */
START_TEST(rm_a8_labels_once_per_run) {
  fs_error err;
  fs_generator_options o = {.ranks = 8, .size = 8, .schedule = "a8"};
  fs_program *p = fs_generate_allreduce_rm(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  fs_simulation run;
  fs_timeline *timeline = record(&run, p, "pipelined", "");
  char *svg = draw(timeline, NULL, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  well_formed(svg);
  has(svg, ">8 ranks, makespan 3.54 us</text>");
  ck_assert_int_eq(count(svg, "<rect class=\"put\""), 56 + 1);
  ck_assert_int_eq(count(svg, "<line class=\"put-arrow\""), 56 + 1);
  ck_assert_int_eq(count(svg, ">stage1</text>"), 8);
  free(svg);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* 64 ranks of recursive doubling: 6 rounds of 64 puts, 64 lanes of
 * h = 720 / 64 = 11.25, raised to 14; under 128 KiB. */
START_TEST(sixty_four_ranks_stay_small) {
  fs_error err;
  fs_generator_options o = {.ranks = 64, .size = 8};
  fs_program *p = fs_generate_allreduce_rd(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  fs_simulation run;
  fs_timeline *timeline = record(&run, p, "pipelined", "");
  char *svg = draw(timeline, NULL, &err);
  ck_assert_msg(svg != NULL, "%s", err.message);
  well_formed(svg);
  ck_assert_int_lt(strlen(svg), 128 * 1024);
  ck_assert_int_eq(count(svg, "<text class=\"rank\""), 64);
  ck_assert_int_eq(count(svg, "<line class=\"put-arrow\""), 6 * 64 + 1);
  ck_assert_int_eq(count(svg, "<line class=\"finish\""), 64 + 1);
  /* rank 63's lane: top 64 + 63 * 14 = 946, its boxes from 948.80 */
  has(svg, "y=\"948.80\" width=");
  ck_assert_ptr_null(strstr(svg, "class=\"label\"")); /* 8.4 px boxes: no room */
  free(svg);
  fs_timeline_free(timeline);
  fs_test_run_free(&run);
  fs_program_free(p);
}
END_TEST

/* Draws the fake flow model's run (fake_flow.c) with its rates, and the
 * same run without them. */
static char *draw_flows(int flows) {
  fs_fake_flow_run run;
  fs_fake_flow_run_new(&run);
  fs_link_load *load = fs_link_load_new(0, 1);
  fs_error err = {{0}};
  ck_assert_int_eq(fs_link_load_attach(load, &run.network, &err), 0);
  fs_timeline *timeline = fs_timeline_new(run.program);
  fs_observer observer = fs_timeline_observer(timeline);
  ck_assert_int_eq(fs_engine_add_observer(run.engine, &observer), 0);
  fs_fake_flow_run_program(&run);
  ck_assert_int_eq(fs_link_load_finish(load, fs_engine_makespan(run.engine), &err), 0);
  char *path = fs_test_temp_path(".svg");
  fs_output *out = fs_output_open(path, &err);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(fs_svg_timeline_write_flows(timeline, NULL, flows ? load : NULL, out, &err), 0);
  char *text = fs_test_read_file(path, NULL);
  remove(path);
  free(path);
  fs_timeline_free(timeline);
  fs_link_load_free(load);
  fs_fake_flow_run_free(&run);
  return text;
}

/* The fake flow model's two puts (fake_flow.c): E = 1600 ns, ceil(E / 8)
 * = 200 ns is the step and the axis ends at 1600: x(t) = 90 + t / 1.6 ns.
 * Two lanes of 40 px: the strips span y + 32.8 .. y + 38.4 (lane 0 at 64,
 * lane 1 at 104). The peak transfer rate is 1e9 B/s: opacity 1 at 1e9,
 * 0.15 + 0.85 / 2 = 0.575 (printed 0.57: 0.575 is just below in binary) at
 * 5e8. A (t0, rank 0): 1e9 over [100, 500] (x 152.5, width 250), 5e8
 * over [500, 1500] (x 402.5, width 625), 1e9 over [1500, 1600] (x 1027.5,
 * width 62.5); its latency phase [0, 100] has no strip. B (t1, rank 1):
 * 5e8 over [500, 1500]. Without rates the drawing is byte for byte the
 * plain one. */
START_TEST(flow_rate_strips) {
  char *svg = draw_flows(1), *plain = draw_flows(0);
  well_formed(svg);
  has(svg, "<rect class=\"rate\" fill=\"#1f4e79\" fill-opacity=\"1.00\" x=\"152.50\" "
           "y=\"96.80\" width=\"250.00\" height=\"5.60\"><title>t0 put: 1e+09 B/s, 100-500 "
           "ns</title></rect>\n");
  has(svg, "<rect class=\"rate\" fill=\"#1f4e79\" fill-opacity=\"0.57\" x=\"402.50\" "
           "y=\"96.80\" width=\"625.00\" height=\"5.60\"><title>t0 put: 5e+08 B/s, 500-1500 "
           "ns</title></rect>\n");
  has(svg, "<rect class=\"rate\" fill=\"#1f4e79\" fill-opacity=\"1.00\" x=\"1027.50\" "
           "y=\"96.80\" width=\"62.50\" height=\"5.60\"><title>t0 put: 1e+09 B/s, 1500-1600 "
           "ns</title></rect>\n");
  has(svg, "<rect class=\"rate\" fill=\"#1f4e79\" fill-opacity=\"0.57\" x=\"402.50\" "
           "y=\"136.80\" width=\"625.00\" height=\"5.60\"><title>t1 put: 5e+08 B/s, 500-1500 "
           "ns</title></rect>\n");
  ck_assert_int_eq(count(svg, "<rect class=\"rate\""), 5); /* 4 segments + the legend */
  has(svg, ">data rate (darker: faster)</text>");
  ck_assert_ptr_null(strstr(plain, "rate"));
  /* the strips and their legend entry are all that differ */
  char *kept = svg, *line = svg;
  while (*line) {
    char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
    int rate = strstr(line, "class=\"rate\"") && strstr(line, "class=\"rate\"") < line + n;
    int legend = strstr(line, ">data rate") && strstr(line, ">data rate") < line + n;
    if (!rate && !legend) memmove(kept, line, n), kept += n;
    line += n;
  }
  *kept = 0;
  ck_assert_str_eq(svg, plain);
  free(svg), free(plain);
}
END_TEST

static void capture_observer(void *state, const fs_flow_observer *observer) {
  *(fs_flow_observer *)state = *observer;
}

/* Segments narrower than a pixel are drawn together at their mean rate.
 * On the fake run's timeline (x(t) = 90 + t / 1.6 ns, 1 px = 1.6 ns), t0's
 * rates given by hand: 1e9 B/s over [100, 100.4] ns (0.25 px), 5e8 over
 * [100.4, 100.8], 1e9 over [100.8, 500]: the piece reaches a pixel only
 * with the third, so one rect over [100, 500] (x 152.5, width 250) at
 * (1e9 x 400 + 5e8 x 400 + 1e9 x 399200 ps) / 400000 ps = 9.995e8 B/s,
 * marked as a mean; opacity 0.15 + 0.85 x 0.9995 = 0.999575, printed 1.00. */
START_TEST(flow_rate_strips_merge_thin_segments) {
  fs_fake_flow_run run;
  fs_fake_flow_run_new(&run);
  fs_timeline *timeline = fs_timeline_new(run.program);
  fs_observer observer = fs_timeline_observer(timeline);
  ck_assert_int_eq(fs_engine_add_observer(run.engine, &observer), 0);
  fs_fake_flow_run_program(&run);
  fs_flow_observer flows = {0};
  static const fs_model_reports reports = {.set_flow_observer = capture_observer};
  fs_network_model capture = {.name = "capture", .state = &flows, .reports = &reports};
  fs_link_load *load = fs_link_load_new(0, 1);
  fs_error err = {{0}};
  ck_assert_int_eq(fs_link_load_attach(load, &capture, &err), 0);
  flows.reset(flows.state, 3, NULL, NULL);
  static const fs_time at[] = {100000, 100400, 100800, 500000};
  static const double rate[] = {1e9, 5e8, 1e9, 0};
  for (int i = 0; i < 4; i++) flows.transfer(flows.state, 0, rate[i], at[i]);
  ck_assert_int_eq(fs_link_load_finish(load, 1600000, &err), 0);
  char *path = fs_test_temp_path(".svg");
  fs_output *out = fs_output_open(path, &err);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(fs_svg_timeline_write_flows(timeline, NULL, load, out, &err), 0);
  char *svg = fs_test_read_file(path, NULL);
  well_formed(svg);
  has(svg, "<rect class=\"rate\" fill=\"#1f4e79\" fill-opacity=\"1.00\" x=\"152.50\" "
           "y=\"96.80\" width=\"250.00\" height=\"5.60\"><title>t0 put: 9.995e+08 B/s (mean), "
           "100-500 ns</title></rect>\n");
  ck_assert_int_eq(count(svg, "<rect class=\"rate\""), 2); /* the rect and the legend's */
  free(svg);
  remove(path);
  free(path);
  fs_link_load_free(load);
  fs_timeline_free(timeline);
  fs_fake_flow_run_free(&run);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("svg_timeline");
  TCase *c = tcase_create("svg_timeline");
  tcase_add_test(c, checker_rejects_malformed_xml);
  tcase_add_test(c, pingpong_boxes_and_arrows);
  tcase_add_test(c, message_and_receive_overhead);
  tcase_add_test(c, early_message_receipt);
  tcase_add_test(c, get_request_and_data);
  tcase_add_test(c, compute_sleep_and_escaping);
  tcase_add_test(c, lane_limit_and_ranges);
  tcase_add_test(c, arrows_to_ranks_not_drawn);
  tcase_add_test(c, rm_a8_labels_once_per_run);
  tcase_add_test(c, sixty_four_ranks_stay_small);
  tcase_add_test(c, flow_rate_strips);
  tcase_add_test(c, flow_rate_strips_merge_thin_segments);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(suite()); }
