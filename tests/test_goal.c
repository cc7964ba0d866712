/* test_goal.c: the GOAL reader (src/formats/goal_reader.c).
 *
 * Every statement form and optional clause with the exact task fields it
 * gives, txt2bin's blank rules (none needed inside a statement), comments
 * of both kinds wherever a statement may start, CRLF and a missing final
 * newline, labels (per rank, defined before use, a second definition
 * ignored as in txt2bin, keywords that are labels elsewhere), requires and
 * irequires as successor edges, task names "rR.LABEL", gzip and stdin
 * input, conversions to .dag and through the GOAL writer and back, the
 * structure of small golden schedules and of a 1024-rank dissemination
 * barrier, and every error with its exact "e.goal:LINE:COLUMN:" prefix and
 * message. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/program.h"
#include "formats/dag_reader.h"
#include "formats/dag_writer.h"
#include "formats/goal_reader.h"
#include "formats/goal_writer.h"
#include "formats/schedule_reader.h"
#include "test_support.h"

/* Schedgen's binomialtreebcast for 4 ranks, written as Schedgen does. */
#define BCAST_4                \
  "num_ranks 4\n"              \
  "\n"                         \
  "rank 0 {\n"                 \
  "l1: send 8b to 2 tag 0\n"   \
  "l2: send 8b to 1 tag 0\n"   \
  "}\n"                        \
  "\n"                         \
  "rank 1 {\n"                 \
  "l1: recv 8b from 0 tag 0\n" \
  "}\n"                        \
  "\n"                         \
  "rank 2 {\n"                 \
  "l1: recv 8b from 0 tag 0\n" \
  "l2: send 8b to 3 tag 0\n"   \
  "l2 requires l1\n"           \
  "}\n"                        \
  "\n"                         \
  "rank 3 {\n"                 \
  "l1: recv 8b from 2 tag 0\n" \
  "}\n"

#define P2 "num_ranks 2\nrank 0 {\n"

static fs_program *read_text(const char *text, fs_error *err) {
  return fs_goal_read_memory(text, strlen(text), "e.goal", err);
}

static fs_program *read_ok(const char *text) {
  fs_error err = {{0}};
  fs_program *p = read_text(text, &err);
  ck_assert_msg(p != NULL, "unexpected error: %s", err.message);
  ck_assert(p->finalized);
  return p;
}

/* The successors of t as "name[:start|:local] ..." in stored order. */
static char *successors_text(const fs_program *p, int32_t t, char *out, size_t size) {
  char buffer[24];
  out[0] = 0;
  for (int64_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
    uint32_t edge = p->successor[e];
    snprintf(out + strlen(out), size - strlen(out), "%s%s%s", e > p->successor_at[t] ? " " : "",
             fs_task_name(p, FS_EDGE_TASK(edge), buffer),
             edge & FS_EDGE_START   ? ":start"
             : edge & FS_EDGE_LOCAL ? ":local"
                                    : "");
  }
  return out;
}

/* One task's fields, compared at once for a readable failure. */
typedef struct expected_task {
  const char *name;
  int kind, rank, peer;
  int64_t value;
  int flags;
  int32_t tag;
  int cpu, nic, need;
  const char *successors;
} expected_task;

static void assert_tasks(const fs_program *p, const expected_task *want, int n) {
  ck_assert_int_eq(p->tasks, n);
  char name[24], successors[512];
  for (int t = 0; t < n; t++) {
    const expected_task *w = &want[t];
    ck_assert_msg(strcmp(fs_task_name(p, t, name), w->name) == 0, "task %d named %s, not %s", t,
                  name, w->name);
    ck_assert_msg(p->kind[t] == w->kind && p->rank[t] == w->rank && p->peer[t] == w->peer &&
                      p->value[t] == w->value && p->flags[t] == w->flags &&
                      fs_task_tag(p, t) == w->tag && fs_task_cpu(p, t) == w->cpu &&
                      fs_task_nic(p, t) == w->nic && p->need[t] == w->need,
                  "task %s: kind %d rank %d peer %d value %lld flags %d tag %d cpu %d nic %d "
                  "need %d",
                  w->name, p->kind[t], p->rank[t], p->peer[t], (long long)p->value[t], p->flags[t],
                  fs_task_tag(p, t), fs_task_cpu(p, t), fs_task_nic(p, t), p->need[t]);
    ck_assert_str_eq(successors_text(p, t, successors, sizeof successors), w->successors);
  }
}

#define SEND FS_SEND
#define RECV FS_RECV
#define CALC FS_COMPUTE
#define SZ FS_HAS_SIZE
#define TM FS_HAS_TIME

/* ---- statements ---- */

START_TEST(golden_two_ranks) {
  fs_program *p = read_ok("num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\n}\n"
                          "rank 1 {\nl1: recv 1b from 0 tag 0\n}\n");
  ck_assert_int_eq(p->ranks, 2);
  ck_assert_int_eq(p->dependencies, 0);
  const expected_task want[] = {{"r0.l1", SEND, 0, 1, 1, SZ, 0, 0, 0, 0, ""},
                                {"r1.l1", RECV, 1, 0, 1, SZ, 0, 0, 0, 0, ""}};
  assert_tasks(p, want, 2);
  /* all tags, CPUs and NICs 0: the optional arrays were never allocated */
  ck_assert_ptr_null(p->tag);
  ck_assert_ptr_null(p->cpu);
  ck_assert_ptr_null(p->nic);
  ck_assert_int_eq(p->cpus, 1);
  ck_assert_int_eq(p->nics, 1);
  ck_assert_ptr_null(p->label);
  fs_program_free(p);
}
END_TEST

START_TEST(golden_bcast) {
  fs_program *p = read_ok(BCAST_4);
  ck_assert_int_eq(p->ranks, 4);
  ck_assert_int_eq(p->dependencies, 1);
  const expected_task want[] = {{"r0.l1", SEND, 0, 2, 8, SZ, 0, 0, 0, 0, ""},
                                {"r0.l2", SEND, 0, 1, 8, SZ, 0, 0, 0, 0, ""},
                                {"r1.l1", RECV, 1, 0, 8, SZ, 0, 0, 0, 0, ""},
                                {"r2.l1", RECV, 2, 0, 8, SZ, 0, 0, 0, 0, "r2.l2"},
                                {"r2.l2", SEND, 2, 3, 8, SZ, 0, 0, 0, 1, ""},
                                {"r3.l1", RECV, 3, 2, 8, SZ, 0, 0, 0, 0, ""}};
  assert_tasks(p, want, 6);
  fs_program_free(p);
}
END_TEST

START_TEST(every_clause) {
  fs_program *p = read_ok("num_ranks 3\nrank 0 {\n"
                          "a: send 8b to 1\n"
                          "b: send 16b to 2 tag 5\n"
                          "c: send 0b to 0 tag 7 cpu 2\n"
                          "d: send 1b to 1 tag 3 cpu 1 nic 4\n"
                          "e: send 2b to 1 cpu 3\n"
                          "f: send 3b to 1 nic 1\n"
                          "g: send 4b to 2 cpu 0 nic 0\n"
                          "h: send 5b to 2 tag 2147483647\n"
                          "i: send 6b to 2 tag -1\n"
                          "send 4611686018427387904b to 1\n"
                          "}\nrank 1 {\n"
                          "a: recv 8b from 0\n"
                          "b: recv 8b from -1\n"
                          "c: recv 8b from 2 tag -1\n"
                          "d: recv 8b from -1 tag -1 cpu 255 nic 255\n"
                          "e: recv 8b from 0 tag 9 nic 2\n"
                          "recv 0b from 1 cpu 1\n"
                          "}\nrank 2 {\n"
                          "a: calc 100\n"
                          "b: calc 0 cpu 7\n"
                          "calc 4611686018427387\n"
                          "calc 1 cpu 0\n"
                          "calc 000000000000000000000000000042 cpu 0003\n"
                          "}\n");
  const expected_task want[] = {
      {"r0.a", SEND, 0, 1, 8, SZ, 0, 0, 0, 0, ""},
      {"r0.b", SEND, 0, 2, 16, SZ, 5, 0, 0, 0, ""},
      {"r0.c", SEND, 0, 0, 0, SZ, 7, 2, 0, 0, ""},
      {"r0.d", SEND, 0, 1, 1, SZ, 3, 1, 4, 0, ""},
      {"r0.e", SEND, 0, 1, 2, SZ, 0, 3, 0, 0, ""},
      {"r0.f", SEND, 0, 1, 3, SZ, 0, 0, 1, 0, ""},
      {"r0.g", SEND, 0, 2, 4, SZ, 0, 0, 0, 0, ""},
      {"r0.h", SEND, 0, 2, 5, SZ, 2147483647, 0, 0, 0, ""},
      {"r0.i", SEND, 0, 2, 6, SZ, FS_ANY_TAG, 0, 0, 0, ""},
      {"t9", SEND, 0, 1, FS_SIZE_LIMIT, SZ, 0, 0, 0, 0, ""}, /* the size limit, 2^62 B */
      {"r1.a", RECV, 1, 0, 8, SZ, 0, 0, 0, 0, ""},
      {"r1.b", RECV, 1, FS_ANY_SOURCE, 8, SZ, 0, 0, 0, 0, ""},
      {"r1.c", RECV, 1, 2, 8, SZ, FS_ANY_TAG, 0, 0, 0, ""},
      {"r1.d", RECV, 1, FS_ANY_SOURCE, 8, SZ, FS_ANY_TAG, 255, 255, 0, ""},
      {"r1.e", RECV, 1, 0, 8, SZ, 9, 0, 2, 0, ""},
      {"t15", RECV, 1, 1, 0, SZ, 0, 1, 0, 0, ""},
      {"r2.a", CALC, 2, -1, 100 * FS_NS, TM, 0, 0, 0, 0, ""},
      {"r2.b", CALC, 2, -1, 0, TM, 0, 7, 0, 0, ""},
      {"t18", CALC, 2, -1, FS_TIME_LIMIT / FS_NS * FS_NS, TM, 0, 0, 0, 0,
       ""}, /* the whole ns below 2^62 ps */
      {"t19", CALC, 2, -1, FS_NS, TM, 0, 0, 0, 0, ""},
      {"t20", CALC, 2, -1, 42 * FS_NS, TM, 0, 3, 0, 0, ""}, /* leading zeros */
  };
  assert_tasks(p, want, 21);
  ck_assert_int_eq(p->cpus, 256);
  ck_assert_int_eq(p->nics, 256);
  fs_program_free(p);
}
END_TEST

START_TEST(blanks) {
  /* txt2bin needs no blank after a keyword inside a statement, allows
   * them between the size and 'b', and takes tabs anywhere */
  fs_program *p = read_ok("num_ranks 2 rank 0 {\tl0: calc 1\n"
                          "l1:send 8 b to 1\n"
                          "\tl2\t:\tsend\t8\tb\tto\t1\ttag\t3\tcpu\t1\tnic\t2\t\n"
                          "l3:send 8bto1tag4cpu2nic3\n"
                          "l4:recv 2bfrom-1tag-1\n"
                          "l5:calc5cpu6\n"
                          "l5 requiresl1\n"
                          "l4    irequires    l2   \n"
                          "send 3b to 0\n"
                          "  } rank 1{}\n");
  const expected_task want[] = {
      {"r0.l0", CALC, 0, -1, 1000, TM, 0, 0, 0, 0, ""},
      {"r0.l1", SEND, 0, 1, 8, SZ, 0, 0, 0, 0, "r0.l5"},
      {"r0.l2", SEND, 0, 1, 8, SZ, 3, 1, 2, 0, "r0.l4:start"},
      {"r0.l3", SEND, 0, 1, 8, SZ, 4, 2, 3, 0, ""},
      {"r0.l4", RECV, 0, FS_ANY_SOURCE, 2, SZ, FS_ANY_TAG, 0, 0, 1, ""},
      {"r0.l5", CALC, 0, -1, 5000, TM, 0, 6, 0, 1, ""},
      {"t6", SEND, 0, 0, 3, SZ, 0, 0, 0, 0, ""},
  };
  assert_tasks(p, want, 7);
  fs_program_free(p);
}
END_TEST

START_TEST(dependencies_case) {
  fs_program *p = read_ok("num_ranks 1\nrank 0 {\n"
                          "a: calc 1\nb: calc 2\nc: send 8b to 0\nd: recv 8b from 0\n"
                          "b requires a\n"
                          "c requires a\n"
                          "c irequires b\n"
                          "d irequires a\n"
                          "d requires c\n"
                          "d requires c\n" /* a duplicate counts twice, as in txt2bin */
                          "a requires a\n" /* a cycle: the engine's business */
                          "}\n");
  ck_assert_int_eq(p->dependencies, 7);
  const expected_task want[] = {
      {"r0.a", CALC, 0, -1, 1000, TM, 0, 0, 0, 1, "d:start b c a"},
      {"r0.b", CALC, 0, -1, 2000, TM, 0, 0, 0, 1, "c:start"},
      {"r0.c", SEND, 0, 0, 8, SZ, 0, 0, 0, 2, "d d"},
      {"r0.d", RECV, 0, 0, 8, SZ, 0, 0, 0, 3, ""},
  };
  /* successor names are printed in full */
  const char *full[] = {"r0.d:start r0.b r0.c r0.a", "r0.c:start", "r0.d r0.d", ""};
  expected_task fixed[4];
  for (int i = 0; i < 4; i++) fixed[i] = want[i], fixed[i].successors = full[i];
  assert_tasks(p, fixed, 4);
  fs_program_free(p);
}
END_TEST

START_TEST(comments) {
  fs_program *p = read_ok("// a schedule\n"
                          "/* over\n   two lines */ num_ranks 2 // two ranks\n"
                          "/**/rank 0 { // rank zero\n"
                          "  /* before */ l1: calc 1\n"
                          "/* a * and a / and // inside */\n"
                          "   // l2: calc 2\n"
                          "/* l3: calc 3 */ /* */ l4: calc 4\n"
                          "} /* closed */ rank 1 { /*\n"
                          "}\n"
                          "still in the comment */ }\n"
                          "// trailing\n/* trailing */\n");
  const expected_task want[] = {{"r0.l1", CALC, 0, -1, 1000, TM, 0, 0, 0, 0, ""},
                                {"r0.l4", CALC, 0, -1, 4000, TM, 0, 0, 0, 0, ""}};
  assert_tasks(p, want, 2);
  fs_program_free(p);
}
END_TEST

START_TEST(layout) {
  /* CRLF, blank lines, trailing blanks, no final newline, empty blocks */
  fs_program *p = read_ok("\r\n  \t\r\nnum_ranks 3 \r\n\r\nrank 0 {\r\n}\r\n"
                          "rank 1 {\r\n  l1: recv 4b from 2 tag 1  \r\n}\r\n"
                          "rank 2 {}");
  const expected_task want[] = {{"r1.l1", RECV, 1, 2, 4, SZ, 1, 0, 0, 0, ""}};
  assert_tasks(p, want, 1);
  fs_program_free(p);
  /* no operation at all */
  p = read_ok("num_ranks 1\nrank 0 {\n}");
  ck_assert_int_eq(p->ranks, 1);
  ck_assert_int_eq(p->tasks, 0);
  fs_program_free(p);
  /* the last operation without a newline */
  p = read_ok("num_ranks 1\nrank 0 {\nl1: calc 3\n}\n");
  ck_assert_int_eq(p->tasks, 1);
  fs_program_free(p);
}
END_TEST

/* ---- labels ---- */

START_TEST(labels_per_rank) {
  /* the same labels in every block, each its own task */
  fs_program *p = read_ok("num_ranks 2\n"
                          "rank 0 {\nx: calc 1\ny: calc 2\ny requires x\n}\n"
                          "rank 1 {\ny: calc 3\nx: calc 4\ny irequires x\n}\n");
  const expected_task want[] = {{"r0.x", CALC, 0, -1, 1000, TM, 0, 0, 0, 0, "r0.y"},
                                {"r0.y", CALC, 0, -1, 2000, TM, 0, 0, 0, 1, ""},
                                {"r1.y", CALC, 1, -1, 3000, TM, 0, 0, 0, 1, ""},
                                {"r1.x", CALC, 1, -1, 4000, TM, 0, 0, 0, 0, "r1.y:start"}};
  assert_tasks(p, want, 4);
  fs_program_free(p);
}
END_TEST

START_TEST(label_defined_twice) {
  /* txt2bin keeps the first operation of a label (std::map::insert) and
   * silently leaves the second unnamed: an error here, at the second
   * label; the same label in another rank's block is another label */
  const char *text = P2 "l1: calc 1\nl1: calc 2\nl2: calc 3\nl2 requires l1\n}\nrank 1 {\n}\n";
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_goal_read_memory(text, strlen(text), "e.goal", &err));
  ck_assert_str_eq(err.message, "e.goal:4:1: expected a label not yet defined in the block of rank "
                                "0 (got 'l1')");
  const char *again = "num_ranks 2\nrank 0 {\nsend 8b to 1\n  x: recv 8b from 1\n}\n"
                      "rank 1 {\nx: calc 5\n    x: send 8b to 0\n}\n";
  ck_assert_ptr_null(fs_goal_read_memory(again, strlen(again), "e.goal", &err));
  ck_assert_str_eq(err.message,
                   "e.goal:8:5: expected a label not yet defined in the block of rank 1 (got 'x')");
  fs_program *p = read_ok(P2 "l1: calc 1\n}\nrank 1 {\nl1: calc 2\n}\n");
  ck_assert_int_eq(p->tasks, 2);
  fs_program_free(p);
}
END_TEST

START_TEST(label_words) {
  /* words that are keywords only inside a statement are labels here, and
   * a label may start with a keyword */
  fs_program *p = read_ok(P2 "to: calc 1\ntag: calc 2\nrequires: calc 3\nsendx: calc 4\n"
                             "b_2: calc 5\nRank: calc 6\nCALC: calc 7\n"
                             "requires requires tag\nsendx irequires to\n}\nrank 1 {}\n");
  const char *names[] = {"r0.to",  "r0.tag",  "r0.requires", "r0.sendx",
                         "r0.b_2", "r0.Rank", "r0.CALC"};
  char buffer[24], successors[128];
  ck_assert_int_eq(p->tasks, 7);
  for (int t = 0; t < 7; t++) {
    ck_assert_str_eq(fs_task_name(p, t, buffer), names[t]);
    ck_assert_int_eq(p->value[t], (t + 1) * FS_NS);
  }
  ck_assert_str_eq(successors_text(p, 0, successors, sizeof successors), "r0.sendx:start");
  ck_assert_str_eq(successors_text(p, 1, successors, sizeof successors), "r0.requires");
  fs_program_free(p);
}
END_TEST

START_TEST(many_labels) {
  /* 3000 labels in one block (the table grows past what '}' keeps), then
   * a block reusing some: none leaks from the first block */
  size_t capacity = 3000 * 64 + 256, used = 0;
  char *text = malloc(capacity);
  used += (size_t)sprintf(text, "num_ranks 2\nrank 0 {\n");
  for (int i = 0; i < 3000; i++) used += (size_t)sprintf(text + used, "label_%d: calc %d\n", i, i);
  for (int i = 1; i < 3000; i++)
    used += (size_t)sprintf(text + used, "label_%d requires label_%d\n", i, i - 1);
  used +=
      (size_t)sprintf(text + used, "}\nrank 1 {\nlabel_5: calc 1\nlabel_5 requires label_4\n}\n");
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_goal_read_memory(text, used, "e.goal", &err));
  ck_assert_str_eq(err.message, "e.goal:6005:18: expected a label defined above in the block of "
                                "rank 1 (got 'label_4')");
  /* without the stale reference it reads */
  used -= strlen("label_5 requires label_4\n}\n");
  used += (size_t)sprintf(text + used, "}\n");
  fs_program *p = fs_goal_read_memory(text, used, "e.goal", &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->tasks, 3001);
  ck_assert_int_eq(p->dependencies, 2999);
  char buffer[24];
  ck_assert_str_eq(fs_task_name(p, 2999, buffer), "r0.label_2999");
  ck_assert_str_eq(fs_task_name(p, 3000, buffer), "r1.label_5");
  int32_t t = 0;
  while (t + 1 < 3000 && p->successor[p->successor_at[t]] == (uint32_t)(t + 1) &&
         p->need[t + 1] == 1 && p->value[t] == t * FS_NS)
    t++;
  ck_assert_int_eq(t, 2999);
  fs_program_free(p);
  free(text);
}
END_TEST

/* ---- larger schedules and other inputs ---- */

/* LogGOPSim's dissemination barrier: in round k rank r sends to r + 2^k
 * and receives from r - 2^k (mod n); each round's send waits for the
 * previous round's recv. Labels l1, l2, ... in order. */
static char *dissemination(int ranks, int rounds, size_t *length) {
  char *text = NULL;
  FILE *f = open_memstream(&text, length);
  ck_assert_ptr_nonnull(f);
  fprintf(f, "num_ranks %d\n", ranks);
  for (int r = 0; r < ranks; r++) {
    fprintf(f, "\nrank %d {\n", r);
    for (int k = 0; k < rounds; k++) {
      int distance = 1 << k;
      fprintf(f, "l%d: send 8b to %d tag 0\nl%d: recv 8b from %d tag 0\n", 2 * k + 1,
              (r + distance) % ranks, 2 * k + 2, (r - distance % ranks + ranks) % ranks);
      if (k > 0) fprintf(f, "l%d requires l%d\n", 2 * k + 1, 2 * k);
    }
    fprintf(f, "}\n");
  }
  ck_assert_int_eq(fclose(f), 0);
  return text;
}

START_TEST(dissemination_structure) {
  enum { RANKS = 1024, ROUNDS = 10 };
  size_t length;
  char *text = dissemination(RANKS, ROUNDS, &length);
  fs_error err = {{0}};
  fs_program *p = fs_goal_read_memory(text, length, "barrier.goal", &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->ranks, RANKS);
  ck_assert_int_eq(p->tasks, RANKS * ROUNDS * 2);
  ck_assert_int_eq(p->dependencies, RANKS * (ROUNDS - 1));
  int wrong = 0;
  char name[24], want[32];
  for (int32_t t = 0; t < p->tasks; t++) {
    int r = t / (2 * ROUNDS), op = t % (2 * ROUNDS), k = op / 2, distance = 1 << k;
    int send = op % 2 == 0;
    int peer = send ? (r + distance) % RANKS : (r - distance + RANKS) % RANKS;
    snprintf(want, sizeof want, "r%d.l%d", r, op + 1);
    wrong += p->kind[t] != (send ? FS_SEND : FS_RECV) || p->rank[t] != r || p->peer[t] != peer ||
             p->value[t] != 8 || strcmp(fs_task_name(p, t, name), want) != 0;
    /* a recv of rounds 0..ROUNDS-2 has the next send as its only successor */
    int64_t successors = p->successor_at[t + 1] - p->successor_at[t];
    if (!send && k < ROUNDS - 1)
      wrong += successors != 1 || p->successor[p->successor_at[t]] != (uint32_t)(t + 1);
    else
      wrong += successors != 0;
    wrong += p->need[t] != (send && k > 0);
  }
  ck_assert_int_eq(wrong, 0);
  fs_program_free(p);
  free(text);
}
END_TEST

static void write_gzip(const char *path, const char *data, size_t length) {
  gzFile gz = gzopen(path, "wb6");
  ck_assert_ptr_nonnull(gz);
  ck_assert_int_eq(gzwrite(gz, data, (unsigned)length), (int)length);
  ck_assert_int_eq(gzclose(gz), Z_OK);
}

/* The same program, field by field and edge by edge. */
static void assert_same_program(const fs_program *a, const fs_program *b) {
  char x[24], y[24];
  ck_assert_int_eq(a->ranks, b->ranks);
  ck_assert_int_eq(a->tasks, b->tasks);
  ck_assert_int_eq(a->dependencies, b->dependencies);
  int wrong = 0;
  for (int32_t t = 0; t < a->tasks; t++)
    wrong += a->kind[t] != b->kind[t] || a->flags[t] != b->flags[t] || a->rank[t] != b->rank[t] ||
             a->peer[t] != b->peer[t] || a->value[t] != b->value[t] || a->need[t] != b->need[t] ||
             fs_task_tag(a, t) != fs_task_tag(b, t) || fs_task_cpu(a, t) != fs_task_cpu(b, t) ||
             fs_task_nic(a, t) != fs_task_nic(b, t) ||
             strcmp(fs_task_name(a, t, x), fs_task_name(b, t, y)) != 0 ||
             a->successor_at[t + 1] != b->successor_at[t + 1];
  for (int64_t e = 0; e < a->dependencies; e++) wrong += a->successor[e] != b->successor[e];
  ck_assert_int_eq(wrong, 0);
}

START_TEST(gzip_file) {
  size_t length;
  char *text = dissemination(64, 6, &length);
  char *path = fs_test_temp_path(".goal.gz");
  write_gzip(path, text, length);
  fs_error err = {{0}};
  fs_program *zipped = fs_goal_read_file(path, &err);
  ck_assert_msg(zipped != NULL, "%s", err.message);
  fs_program *plain = fs_goal_read_memory(text, length, "plain", &err);
  assert_same_program(zipped, plain);
  ck_assert_int_eq(zipped->tasks, 64 * 12);
  fs_program_free(zipped);
  fs_program_free(plain);
  free(path);
  free(text);
}
END_TEST

START_TEST(stdin_case) {
  char *path = fs_test_temp_path(".goal");
  ck_assert_int_eq(fs_test_write_file(path, BCAST_4, 0), 0);
  int saved = dup(0), fd = open(path, O_RDONLY);
  dup2(fd, 0);
  close(fd);
  fs_error err = {{0}};
  fs_program *p = fs_goal_read_file("-", &err);
  dup2(saved, 0);
  close(saved);
  ck_assert_msg(p != NULL, "%s", err.message);
  ck_assert_int_eq(p->tasks, 6);
  fs_program_free(p);
  /* errors name stdin */
  ck_assert_int_eq(fs_test_write_file(path, "num_ranks 1\nrank 0 {\n", 0), 0);
  saved = dup(0);
  fd = open(path, O_RDONLY);
  dup2(fd, 0);
  close(fd);
  ck_assert_ptr_null(fs_goal_read_file("-", &err));
  dup2(saved, 0);
  close(saved);
  ck_assert_str_eq(err.message, "<stdin>:3:1: expected '}' closing the block of rank 0 opened at "
                                "line 2 (got end of file)");
  free(path);
}
END_TEST

/* A plain file is read as one mapped block, not line by line: the same
 * program as the gzip file (read by lines), the same rules for CRLF, a last
 * line without its end, NUL bytes and lines given back by the content
 * sniffing of a file without extension. */
START_TEST(mapped_file) {
  size_t length;
  char *text = dissemination(64, 6, &length);
  char *plain = fs_test_temp_path(".goal"), *zipped = fs_test_temp_path(".goal.gz");
  ck_assert_int_eq(fs_test_write_file(plain, text, length), 0);
  write_gzip(zipped, text, length);
  fs_error err = {{0}};
  fs_program *a = fs_goal_read_file(plain, &err), *b = fs_goal_read_file(zipped, &err);
  ck_assert_msg(a && b, "%s", err.message);
  assert_same_program(a, b);
  fs_program_free(a);
  fs_program_free(b);
  /* CRLF line ends, blank lines first, no extension, no final line end */
  const char *crlf = "\r\n  \r\nnum_ranks 2\r\nrank 0 {\r\nl1: send 8b to 1\r\n}\r\n"
                     "rank 1 {\r\nl1: recv 8b from 0\r\n}";
  char *bare = fs_test_temp_path("");
  ck_assert_int_eq(fs_test_write_file(bare, crlf, 0), 0);
  a = fs_schedule_read(bare, &err);
  ck_assert_msg(a != NULL, "%s", err.message);
  b = fs_goal_read_memory(crlf, strlen(crlf), "m", &err);
  ck_assert_msg(b != NULL, "%s", err.message);
  assert_same_program(a, b);
  ck_assert_int_eq(a->tasks, 2);
  fs_program_free(a);
  fs_program_free(b);
  /* a NUL byte is reported where it is, also inside a comment */
  const char nul[] = "num_ranks 1\nrank 0 {\n// a\0b\n}\n";
  ck_assert_int_eq(fs_test_write_file(plain, nul, sizeof nul - 1), 0);
  ck_assert_ptr_null(fs_goal_read_file(plain, &err));
  char want[512];
  snprintf(want, sizeof want, "%s:3:5: NUL byte in text (is this a binary file?)", plain);
  ck_assert_str_eq(err.message, want);
  free(bare);
  free(plain);
  free(zipped);
  free(text);
}
END_TEST

START_TEST(file_errors) {
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_goal_read_file("/nonexistent.goal", &err));
  ck_assert_str_eq(err.message, "/nonexistent.goal: cannot open: No such file or directory");
  char *path = fs_test_temp_path(".goal");
  ck_assert_int_eq(fs_test_write_file(path, "num_ranks 2\nrank 0 {\nsend 8b to 2\n", 0), 0);
  ck_assert_ptr_null(fs_goal_read_file(path, &err));
  char want[512];
  snprintf(want, sizeof want, "%s:3:12: expected a destination rank in [0, 2) (got '2')", path);
  ck_assert_str_eq(err.message, want);
  free(path);
}
END_TEST

/* The JSON report without its clock readings (wall_s, load_s, events_per_s). */
static void drop_clocks(char *json) {
  const char *keys[] = {"\"wall_s\": ", "\"load_s\": ", "\"events_per_s\": "};
  for (int k = 0; k < 3; k++) {
    char *at = strstr(json, keys[k]);
    if (!at) continue;
    char *end = at + strcspn(at, ",}");
    memmove(at, end, strlen(end) + 1);
  }
}

/* The deadlock report of `run goal` (exit 1), which must be the one of
 * the run with a --timeline into csv (which keeps the numbering); the
 * caller frees it. */
static char *deadlock_report(const char *goal, const char *csv) {
  char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;
  ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s --model loggops", goal), 1);
  ck_assert_int_eq(fs_test_fennelsimf(&out2, &err2, "run %s --model loggops --timeline %s", goal,
                                      csv),
                   1);
  ck_assert_str_eq(err, err2);
  free(out), free(out2), free(err2);
  return err;
}

/* `fennelsim run` renumbers a GOAL file of equal rank blocks position by
 * position unless an output lists tasks (fs_program_interleave, run
 * command): the report is the same with and without a --timeline (which
 * keeps the numbering), under two models and with noise; and a deadlock's
 * report (names, order) is the same. */
START_TEST(interleaved_run_same) {
  const char *cases[][2] = {{"barrier-dissemination-schedgen", "16"},
                            {"allgather-ring", "6"},
                            {"alltoall-bruck", "8"},
                            {"allreduce-recdoub", "8"}};
  const char *runs[] = {"--model loggops", "--model pipelined",
                        "--model loggops --noise net=lognormal:sigma=0.3 --seed 7"};
  char *goal = fs_test_temp_path(".goal"), *csv = fs_test_temp_path(".csv");
  for (int c = 0; c < 4; c++) {
    char *out = NULL, *err = NULL, *kept = NULL;
    ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "gen %s --ranks %s --size 1KiB -o %s",
                                        cases[c][0], cases[c][1], goal),
                     0);
    free(out), free(err);
    for (int r = 0; r < 3; r++) {
      ck_assert_int_eq(fs_test_fennelsimf(&out, &err, "run %s %s --format json", goal, runs[r]), 0);
      free(err);
      ck_assert_int_eq(fs_test_fennelsimf(&kept, &err, "run %s %s --format json --timeline %s",
                                          goal, runs[r], csv),
                       0);
      free(err);
      drop_clocks(out), drop_clocks(kept);
      ck_assert_msg(strcmp(out, kept) == 0, "%s %s:\n%s\n%s", cases[c][0], runs[r], out, kept);
      free(out), free(kept);
    }
  }
  fs_test_write_file(goal,
                     "num_ranks 3\nrank 0 {\nl1: recv 8b from 2\nl2: send 8b to 1\nl3: calc 5\n"
                     "l2 requires l1\nl3 requires l2\n}\nrank 1 {\nl1: recv 8b from 0\n"
                     "l2: send 8b to 2\nl3: send 8b to 0 tag 9\nl2 requires l1\n}\n"
                     "rank 2 {\nl1: recv 8b from 1\nl2: send 8b to 0\nl3: calc 7\n"
                     "l2 requires l1\n}\n",
                     0);
  char *err = deadlock_report(goal, csv);
  fs_test_contains(err, "  recv r0.l1 on rank 0 from rank 2, tag 0, 8B: posted, no message matched "
                        "it\n  recv r1.l1 on rank 1");
  fs_test_contains(err, "  r0.l3 (compute, rank 0) waits for 1 more completion: r0.l2 (send, rank "
                        "0, never ready)\n  r1.l2 (send, rank 1)");
  free(err);
  /* the same deadlock in schedgen's regular shape: read straight into the
   * numbering (goal_interleaved.h), the report the same as with --timeline */
  fs_test_write_file(
      goal,
      "num_ranks 3\nrank 0 {\nl1: recv 8b from 2 tag 0\nl2: send 8b to 1 tag 0\n"
      "l2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\nl2: send 8b to 2 tag 0\n"
      "l2 requires l1\n}\nrank 2 {\nl1: recv 8b from 1 tag 0\nl2: send 8b to 0 tag 0\n"
      "l2 requires l1\n}\n",
      0);
  fs_error read_err = {{0}};
  fs_program *p = fs_schedule_read_showing(goal, NULL, FS_READ_INTERLEAVED, &read_err);
  ck_assert_msg(p != NULL, "%s", read_err.message);
  ck_assert_int_eq(p->interleaved, 2);
  fs_program_free(p);
  err = deadlock_report(goal, csv);
  fs_test_contains(err, "  recv r0.l1 on rank 0 from rank 2, tag 0, 8B: posted, no message matched "
                        "it\n  recv r1.l1 on rank 1");
  free(err);
  remove(goal), remove(csv);
  free(goal), free(csv);
}
END_TEST

START_TEST(convert_to_dag) {
  /* the names of a GOAL program are valid .dag names: it converts, and the
   * .dag reads back as the same program (start edges included) */
  fs_program *p = read_ok("num_ranks 3\nrank 0 {\nl1: send 8b to 1 tag 5 cpu 1 nic 2\n"
                          "l2: calc 7\nl2 irequires l1\nsend 1b to 2\n}\n"
                          "rank 1 {\nl1: recv 8b from -1 tag -1\nl2: calc 1 cpu 3\n"
                          "l2 requires l1\n}\nrank 2 {\nrecv 1b from 0\n}\n");
  char *path = fs_test_temp_path(".dag");
  fs_error err = {{0}};
  ck_assert_msg(fs_dag_write(p, path, &err) == 0, "%s", err.message);
  char *text = fs_test_read_file(path, NULL);
  ck_assert_str_eq(text, "fennel-dag 1\nranks 3\n"
                         "r0.l1 send 0 to=1 size=8B tag=5 cpu=1 nic=2\n"
                         "r0.l2 compute 0 time=7ns after=r0.l1:start\n"
                         "t2 send 0 to=2 size=1B\n"
                         "r1.l1 recv 1 from=any size=8B tag=any\n"
                         "r1.l2 compute 1 time=1ns cpu=3 after=r1.l1\n"
                         "t5 recv 2 from=0 size=1B\n");
  fs_program *back = fs_dag_read_file(path, &err);
  ck_assert_msg(back != NULL, "%s", err.message);
  assert_same_program(p, back);
  fs_program_free(back);
  fs_program_free(p);
  free(text);
  free(path);
}
END_TEST

/* The same schedule but for names: GOAL's writer relabels l1, l2, ... */
static void assert_same_schedule(const fs_program *a, const fs_program *b) {
  ck_assert_int_eq(a->ranks, b->ranks);
  ck_assert_int_eq(a->tasks, b->tasks);
  ck_assert_int_eq(a->dependencies, b->dependencies);
  int wrong = 0;
  for (int32_t t = 0; t < a->tasks; t++)
    wrong += a->kind[t] != b->kind[t] || a->flags[t] != b->flags[t] || a->rank[t] != b->rank[t] ||
             a->peer[t] != b->peer[t] || a->value[t] != b->value[t] || a->need[t] != b->need[t] ||
             fs_task_tag(a, t) != fs_task_tag(b, t) || fs_task_cpu(a, t) != fs_task_cpu(b, t) ||
             fs_task_nic(a, t) != fs_task_nic(b, t) ||
             a->successor_at[t + 1] != b->successor_at[t + 1];
  for (int64_t e = 0; e < a->dependencies; e++) wrong += a->successor[e] != b->successor[e];
  ck_assert_int_eq(wrong, 0);
}

START_TEST(goal_round_trip) {
  /* read -> GOAL writer -> read: the same schedule; written again, the
   * same bytes */
  size_t length;
  char *barrier = dissemination(32, 5, &length);
  const char *sources[] = {BCAST_4, barrier,
                           "num_ranks 3\nrank 0 {\na: send 8b to 1 tag 5 cpu 1 nic 2\n"
                           "b: calc 7 cpu 3\nb irequires a\nc: recv 0b from -1 tag -1\n"
                           "c requires b\nc requires a\n}\nrank 1 {\nrecv 8b from 0 tag 5 nic 1\n"
                           "}\nrank 2 {}\n"};
  for (int i = 0; i < 3; i++) {
    fs_program *first = read_ok(sources[i]);
    char *path = fs_test_temp_path(".goal");
    fs_error err = {{0}};
    ck_assert_msg(fs_goal_write(first, path, &err) == 0, "%s", err.message);
    fs_program *second = fs_goal_read_file(path, &err);
    ck_assert_msg(second != NULL, "%s", err.message);
    assert_same_schedule(first, second);
    char *text = fs_test_read_file(path, NULL);
    ck_assert_msg(fs_goal_write(second, path, &err) == 0, "%s", err.message);
    char *again = fs_test_read_file(path, NULL);
    ck_assert_str_eq(text, again);
    fs_program_free(first);
    fs_program_free(second);
    free(text);
    free(again);
    free(path);
  }
  free(barrier);
}
END_TEST

/* ---- errors: every path, with its exact position ---- */

typedef struct error_case {
  const char *text;
  size_t length; /* 0: strlen */
  const char *message;
} error_case;

#define IN_BLOCK(rank)                                                                         \
  "expected a statement (send, recv, calc, LABEL: ..., LABEL requires LABEL, LABEL irequires " \
  "LABEL) or '}' closing the block of rank " #rank
#define SIZE_RANGE "a message size in bytes, from 0 to 4611686018427387904 (2^62, the limit)"
#define CALC_RANGE "a calc time in ns, from 0 to 4611686018427387 (the limit, 2^62 ps)"
#define TAG_RANGE "a tag from 0 to 2147483647 or -1 (any)"

static const error_case error_cases[] = {
    /* the file level */
    {"", 0, "e.goal:1:1: expected 'num_ranks N' (got end of file)"},
    {"// only\n/* comments */\n\n", 0, "e.goal:4:1: expected 'num_ranks N' (got end of file)"},
    {"rank 0 {\n}\n", 0, "e.goal:1:1: expected 'num_ranks N' (got 'rank')"},
    {"l1: calc 1\n", 0, "e.goal:1:1: expected 'num_ranks N' (got 'l1')"},
    {"num_ranks\n", 0,
     "e.goal:1:10: expected a number of ranks from 1 to 2147483647 (got end of line)"},
    {"num_ranks 0\n", 0, "e.goal:1:11: expected a number of ranks from 1 to 2147483647 (got '0')"},
    {"num_ranks -1\n", 0,
     "e.goal:1:11: expected a number of ranks from 1 to 2147483647 (got '-1')"},
    {"num_ranks 2147483648\n", 0,
     "e.goal:1:11: expected a number of ranks from 1 to 2147483647 (got '2147483648')"},
    {"num_ranks 99999999999999999999999\n", 0,
     "e.goal:1:11: expected a number of ranks from 1 to 2147483647 (got "
     "'99999999999999999999999')"},
    {"num_ranks two\n", 0,
     "e.goal:1:11: expected a number of ranks from 1 to 2147483647 (got 'two')"},
    {"num_ranks 2\nnum_ranks 2\n", 0, "e.goal:2:1: expected 'rank 0 {' (got 'num_ranks')"},
    {"num_ranks 2 x\n", 0, "e.goal:1:13: expected 'rank 0 {' (got 'x')"},
    {"num_ranks 2\n# no\n", 0, "e.goal:2:1: expected 'rank 0 {' (got '#')"},
    {"num_ranks 2\n/ x\n", 0, "e.goal:2:1: expected 'rank 0 {' (got '/')"},
    {"num_ranks 2\n}\n", 0, "e.goal:2:1: expected 'rank 0 {' (got '}')"},
    {"num_ranks 2\nl1: calc 1\n", 0, "e.goal:2:1: expected 'rank 0 {' (got 'l1')"},
    {"num_ranks 2\nrank0 {\n", 0, "e.goal:2:1: expected 'rank 0 {' (got 'rank0')"},
    {"num_ranks 2\nrank 1 {\n", 0,
     "e.goal:2:6: expected rank 0, the next in order (0 to 1) (got '1')"},
    {"num_ranks 2\nrank {\n", 0,
     "e.goal:2:6: expected rank 0, the next in order (0 to 1) (got '{')"},
    {"num_ranks 3\nrank 0 {}\nrank 0 {}\n", 0,
     "e.goal:3:6: expected rank 1, the next in order (0 to 2) (got '0')"},
    {"num_ranks 3\nrank 0 {}\nrank 2 {}\n", 0,
     "e.goal:3:6: expected rank 1, the next in order (0 to 2) (got '2')"},
    {"num_ranks 2\nrank 0\n{\n}\n", 0,
     "e.goal:2:7: expected '{' on the line of 'rank R' (got end of line)"},
    {"num_ranks 2\nrank 0 x {\n", 0, "e.goal:2:8: expected '{' on the line of 'rank R' (got 'x')"},
    {"num_ranks 1\nrank 0 {\n}\nrank 1 {\n}\n", 0,
     "e.goal:4:1: expected the end of the file after the block of rank 0, the last (got 'rank')"},
    {"num_ranks 1\nrank 0 {\n} }\n", 0,
     "e.goal:3:3: expected the end of the file after the block of rank 0, the last (got '}')"},
    {"num_ranks 1\nrank 0 {}\nl1: calc 1\n", 0,
     "e.goal:3:1: expected the end of the file after the block of rank 0, the last (got 'l1')"},
    /* the end of the file */
    {"num_ranks 3\nrank 0 {\n}\n", 0,
     "e.goal:4:1: expected 'rank 1 {' (num_ranks is 3) (got end of file)"},
    {"num_ranks 3\n", 0, "e.goal:2:1: expected 'rank 0 {' (num_ranks is 3) (got end of file)"},
    {"num_ranks 2\nrank 0 {\nl1: calc 1\n", 0,
     "e.goal:4:1: expected '}' closing the block of rank 0 opened at line 2 (got end of file)"},
    {"num_ranks 2\nrank 0 {}\n  rank 1 { l1: calc 1", 0,
     "e.goal:4:1: expected '}' closing the block of rank 1 opened at line 3 (got end of file)"},
    {"num_ranks 1\nrank 0 {\n}\n  /* open\n\n", 0,
     "e.goal:6:1: expected '*/' closing the comment opened at 4:3 (got end of file)"},
    {"num_ranks 1\nrank 0 {\n/* }", 0,
     "e.goal:4:1: expected '*/' closing the comment opened at 3:1 (got end of file)"},
    /* where a statement may start */
    {P2 "rank 1 {\n", 0, "e.goal:3:1: " IN_BLOCK(0) " (got 'rank')"},
    {P2 "num_ranks 2\n", 0, "e.goal:3:1: " IN_BLOCK(0) " (got 'num_ranks')"},
    {P2 "# c\n", 0, "e.goal:3:1: " IN_BLOCK(0) " (got '#')"},
    {P2 "  / c\n", 0, "e.goal:3:3: " IN_BLOCK(0) " (got '/')"},
    {P2 "1l: calc 1\n", 0, "e.goal:3:1: " IN_BLOCK(0) " (got '1l')"},
    {P2 "_l: calc 1\n", 0, "e.goal:3:1: " IN_BLOCK(0) " (got '_l')"},
    {P2 "{\n", 0, "e.goal:3:1: " IN_BLOCK(0) " (got '{')"},
    {P2 "-1\n", 0, "e.goal:3:1: " IN_BLOCK(0) " (got '-1')"},
    {P2 "l1\x01: calc 1\n", 0,
     "e.goal:3:3: expected ':', 'requires' or 'irequires' after a label (got '?')"},
    {P2 "calc 1\rcalc 2\n", 0, "e.goal:3:7: expected 'cpu' or end of line (got '?')"},
    /* labels */
    {P2 "l1 calc 1\n", 0,
     "e.goal:3:4: expected ':', 'requires' or 'irequires' after a label (got 'calc')"},
    {P2 "l1\n", 0,
     "e.goal:3:3: expected ':', 'requires' or 'irequires' after a label (got end of line)"},
    {P2 "send8b to 1\n", 0,
     "e.goal:3:8: expected ':', 'requires' or 'irequires' after a label (got 'to')"},
    {P2 "l1: put 8b to 1\n", 0,
     "e.goal:3:5: expected 'send', 'recv' or 'calc' after 'LABEL:' (got 'put')"},
    {P2 "l1:\n", 0,
     "e.goal:3:4: expected 'send', 'recv' or 'calc' after 'LABEL:' (got end of line)"},
    {P2 "l1: l2: calc 1\n", 0,
     "e.goal:3:5: expected 'send', 'recv' or 'calc' after 'LABEL:' (got 'l2')"},
    /* send and recv */
    {P2 "send\n", 0, "e.goal:3:5: expected " SIZE_RANGE " (got end of line)"},
    {P2 "send b to 1\n", 0, "e.goal:3:6: expected " SIZE_RANGE " (got 'b')"},
    {P2 "send -1b to 1\n", 0, "e.goal:3:6: expected " SIZE_RANGE " (got '-1b')"},
    {P2 "send 4611686018427387905b to 1\n", 0,
     "e.goal:3:6: expected " SIZE_RANGE " (got '4611686018427387905b')"},
    {P2 "send 9223372036854775807b to 1\n", 0,
     "e.goal:3:6: expected " SIZE_RANGE " (got '9223372036854775807b')"},
    {P2 "send 9223372036854775808b to 1\n", 0,
     "e.goal:3:6: expected " SIZE_RANGE " (got '9223372036854775808b')"},
    {P2 "send 18446744073709551616b to 1\n", 0,
     "e.goal:3:6: expected " SIZE_RANGE " (got '18446744073709551616b')"},
    {P2 "send 36893488147419103232b to 1\n", 0,
     "e.goal:3:6: expected " SIZE_RANGE " (got '36893488147419103232b')"},
    {P2 "send 0009223372036854775808b to 1\n", 0,
     "e.goal:3:6: expected " SIZE_RANGE " (got '0009223372036854775808b')"},
    {P2 "send 8 to 1\n", 0, "e.goal:3:8: expected 'b' after the message size (got 'to')"},
    {P2 "send 8B to 1\n", 0, "e.goal:3:7: expected 'b' after the message size (got 'B')"},
    {P2 "send 8kb to 1\n", 0, "e.goal:3:7: expected 'b' after the message size (got 'kb')"},
    {P2 "send 8b from 1\n", 0, "e.goal:3:9: expected 'to' after the size of a send (got 'from')"},
    {P2 "recv 8b to 1\n", 0, "e.goal:3:9: expected 'from' after the size of a recv (got 'to')"},
    {P2 "send 8b\n", 0, "e.goal:3:8: expected 'to' after the size of a send (got end of line)"},
    {P2 "send 8b to\n", 0, "e.goal:3:11: expected a destination rank in [0, 2) (got end of line)"},
    {P2 "send 8b to 2\n", 0, "e.goal:3:12: expected a destination rank in [0, 2) (got '2')"},
    {P2 "send 8b to -1\n", 0, "e.goal:3:12: expected a destination rank in [0, 2) (got '-1')"},
    {P2 "send 8b to x\n", 0, "e.goal:3:12: expected a destination rank in [0, 2) (got 'x')"},
    {P2 "recv 8b from 2\n", 0,
     "e.goal:3:14: expected a source rank in [0, 2) or -1 (any) (got '2')"},
    {P2 "recv 8b from -2\n", 0,
     "e.goal:3:14: expected a source rank in [0, 2) or -1 (any) (got '-2')"},
    {P2 "recv 8b from -10\n", 0,
     "e.goal:3:16: expected 'tag', 'cpu', 'nic' or end of line (got '0')"},
    {P2 "send 8b to 1 x\n", 0,
     "e.goal:3:14: expected 'tag', 'cpu', 'nic' or end of line (got 'x')"},
    {P2 "send 8b to 1 // c\n", 0,
     "e.goal:3:14: expected 'tag', 'cpu', 'nic' or end of line (got '/')"},
    {P2 "send 8b to 1 /* c */\n", 0,
     "e.goal:3:14: expected 'tag', 'cpu', 'nic' or end of line (got '/')"},
    {P2 "send 8b to 1 tag\n", 0, "e.goal:3:17: expected " TAG_RANGE " (got end of line)"},
    {P2 "send 8b to 1 tag 2147483648\n", 0,
     "e.goal:3:18: expected " TAG_RANGE " (got '2147483648')"},
    {P2 "recv 8b from 1 tag -2\n", 0, "e.goal:3:20: expected " TAG_RANGE " (got '-2')"},
    {P2 "send 8b to 1 tag any\n", 0, "e.goal:3:18: expected " TAG_RANGE " (got 'any')"},
    {P2 "send 8b to 1 tag 1 tag 2\n", 0,
     "e.goal:3:20: expected 'cpu', 'nic' or end of line (got 'tag')"},
    {P2 "send 8b to 1 cpu\n", 0,
     "e.goal:3:17: expected a CPU index from 0 to 255 (got end of line)"},
    {P2 "send 8b to 1 cpu 256\n", 0, "e.goal:3:18: expected a CPU index from 0 to 255 (got '256')"},
    {P2 "send 8b to 1 cpu 1 tag 1\n", 0, "e.goal:3:20: expected 'nic' or end of line (got 'tag')"},
    {P2 "recv 8b from 1 nic -1\n", 0, "e.goal:3:20: expected a NIC index from 0 to 255 (got '-1')"},
    {P2 "recv 8b from 1 nic 1 cpu 1\n", 0, "e.goal:3:22: expected end of line (got 'cpu')"},
    {P2 "recv 8b from 1 nic 1 }\n", 0, "e.goal:3:22: expected end of line (got '}')"},
    /* calc */
    {P2 "calc\n", 0, "e.goal:3:5: expected " CALC_RANGE " (got end of line)"},
    {P2 "calc 4611686018427388\n", 0,
     "e.goal:3:6: expected " CALC_RANGE " (got '4611686018427388')"},
    {P2 "calc 9223372036854776\n", 0,
     "e.goal:3:6: expected " CALC_RANGE " (got '9223372036854776')"},
    {P2 "calc 1.5\n", 0, "e.goal:3:7: expected 'cpu' or end of line (got '.')"},
    {P2 "calc 5 nic 1\n", 0, "e.goal:3:8: expected 'cpu' or end of line (got 'nic')"},
    {P2 "calc 5 tag 1\n", 0, "e.goal:3:8: expected 'cpu' or end of line (got 'tag')"},
    {P2 "calc 5 cpu\n", 0, "e.goal:3:11: expected a CPU index from 0 to 255 (got end of line)"},
    {P2 "calc 5 cpu 1 nic 1\n", 0, "e.goal:3:14: expected end of line (got 'nic')"},
    {P2 "l1: calc 5 // c\n", 0, "e.goal:3:12: expected 'cpu' or end of line (got '/')"},
    /* requires and irequires */
    {P2 "a requires b\n", 0,
     "e.goal:3:1: expected a label defined above in the block of rank 0 (got 'a')"},
    {P2 "a: calc 1\na requires b\n", 0,
     "e.goal:4:12: expected a label defined above in the block of rank 0 (got 'b')"},
    {P2 "b requires a\na: calc 1\nb: calc 1\n", 0,
     "e.goal:3:1: expected a label defined above in the block of rank 0 (got 'b')"},
    {P2 "a: calc 1\n}\nrank 1 {\nb: calc 1\nb requires a\n", 0,
     "e.goal:7:12: expected a label defined above in the block of rank 1 (got 'a')"},
    {P2 "a: calc 1\na requires\n", 0,
     "e.goal:4:11: expected a label after 'requires' (got end of line)"},
    {P2 "a: calc 1\na irequires 5\n", 0,
     "e.goal:4:13: expected a label after 'irequires' (got '5')"},
    {P2 "a: calc 1\na requires a b\n", 0, "e.goal:4:14: expected end of line (got 'b')"},
    {P2 "a: calc 1\na requires a // c\n", 0, "e.goal:4:14: expected end of line (got '/')"},
    {P2 "a: calc 1\na requires send\n", 0,
     "e.goal:4:12: expected a label defined above in the block of rank 0 (got 'send')"},
    {P2 "a: calc 1\na require a\n", 0,
     "e.goal:4:3: expected ':', 'requires' or 'irequires' after a label (got 'require')"},
    /* from text_input */
    {P2 "calc\0 1\n", 29, "e.goal:3:5: NUL byte in text (is this a binary file?)"},
};

START_TEST(errors_reported) {
  const error_case *c = &error_cases[_i];
  fs_error err = {{0}};
  size_t length = c->length ? c->length : strlen(c->text);
  fs_program *p = fs_goal_read_memory(c->text, length, "e.goal", &err);
  ck_assert_msg(p == NULL, "accepted: %s", c->text);
  ck_assert_str_eq(err.message, c->message);
}
END_TEST

/* The same messages when the text is cut into parts read by threads
 * (before every `rank R {` after the first block). */
START_TEST(errors_reported_in_parts) {
  const error_case *c = &error_cases[_i];
  fs_error err = {{0}};
  size_t length = c->length ? c->length : strlen(c->text);
  fs_text_input *in = fs_text_input_open_memory(c->text, length, "e.goal");
  ck_assert_ptr_nonnull(in);
  fs_program *p = fs_goal_read_input_threads(in, 4, 1, 0, &err);
  fs_text_input_close(in);
  ck_assert_msg(p == NULL, "accepted: %s", c->text);
  ck_assert_str_eq(err.message, c->message);
}
END_TEST

START_TEST(overlong_line) {
  size_t n = FS_TEXT_LINE_MAX + 40;
  char *text = malloc(n + 64);
  strcpy(text, P2 "l");
  size_t used = strlen(text);
  memset(text + used, 'x', n - used);
  strcpy(text + n, ": calc 1\n");
  fs_error err = {{0}};
  ck_assert_ptr_null(fs_goal_read_memory(text, strlen(text), "e.goal", &err));
  ck_assert_str_eq(err.message, "e.goal:3: line longer than 1048576 bytes");
  free(text);
}
END_TEST

START_TEST(long_label) {
  /* a label near the line limit: named, found again, quoted shortened */
  size_t n = 100000;
  char *label = malloc(n + 1);
  memset(label, 'q', n);
  label[n] = 0;
  char *text = malloc(3 * n + 128);
  ck_assert_ptr_nonnull(text);
  sprintf(text, P2 "%s: calc 1\n%s requires %s\n}\nrank 1 {}\n", label, label, label);
  fs_program *p = read_ok(text);
  char buffer[24];
  ck_assert_uint_eq(strlen(fs_task_name(p, 0, buffer)), n + 3);
  ck_assert_int_eq(p->dependencies, 1);
  fs_program_free(p);
  sprintf(text, P2 "%s requires x\n", label);
  fs_error err = {{0}};
  ck_assert_ptr_null(read_text(text, &err));
  ck_assert_str_eq(err.message, "e.goal:3:1: expected a label defined above in the block of rank 0 "
                                "(got 'qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq...')");
  free(text);
  free(label);
}
END_TEST

static Suite *goal_suite(void) {
  Suite *suite = suite_create("goal");
  TCase *statements = tcase_create("statements");
  tcase_add_test(statements, golden_two_ranks);
  tcase_add_test(statements, golden_bcast);
  tcase_add_test(statements, every_clause);
  tcase_add_test(statements, blanks);
  tcase_add_test(statements, dependencies_case);
  tcase_add_test(statements, comments);
  tcase_add_test(statements, layout);
  suite_add_tcase(suite, statements);
  TCase *labels = tcase_create("labels");
  tcase_add_test(labels, labels_per_rank);
  tcase_add_test(labels, label_defined_twice);
  tcase_add_test(labels, label_words);
  tcase_add_test(labels, many_labels);
  tcase_add_test(labels, long_label);
  suite_add_tcase(suite, labels);
  TCase *inputs = tcase_create("inputs");
  tcase_add_test(inputs, dissemination_structure);
  tcase_add_test(inputs, gzip_file);
  tcase_add_test(inputs, stdin_case);
  tcase_add_test(inputs, mapped_file);
  tcase_add_test(inputs, file_errors);
  tcase_add_test(inputs, convert_to_dag);
  tcase_add_test(inputs, interleaved_run_same);
  tcase_add_test(inputs, goal_round_trip);
  suite_add_tcase(suite, inputs);
  TCase *errors = tcase_create("errors");
  tcase_add_loop_test(errors, errors_reported, 0,
                      (int)(sizeof error_cases / sizeof error_cases[0]));
  tcase_add_loop_test(errors, errors_reported_in_parts, 0,
                      (int)(sizeof error_cases / sizeof error_cases[0]));
  tcase_add_test(errors, overlong_line);
  suite_add_tcase(suite, errors);
  return suite;
}

int main(void) { return fs_test_run(goal_suite()); }
