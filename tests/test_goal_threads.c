/* test_goal_threads.c: the GOAL reader on several threads
 * (fs_goal_read_input_threads) against the same reader on one.
 *
 * Every field of the program (kinds, flags, ranks, peers, values, needs,
 * tags, cpus, nics, names, successor lists, counts and slots) must be the
 * one-thread program's, on 2 to 7 threads with parts of any size (the
 * minimum part is 1 byte, so small inputs are cut at every block): the
 * schedules of tests/goal and tests/goal/matrix, and generated inputs that
 * put comments, `rank R {` inside a comment, CRLF, blank lines and every
 * clause around the cuts. Errors anywhere (also in a later part, also two
 * in different parts) must be the one-thread reader's message, byte for
 * byte, with its absolute line and column.
 *
 * The interleaved read (fs_goal_read_input_interleaved, goal_interleaved.h)
 * of every such input, from memory and from a file, on 1 to 3 threads:
 * the one-thread program renumbered by fs_program_interleave when the read
 * came interleaved, else the one-thread program itself, or the same
 * message. Files of schedgen's shape must come interleaved, also when they
 * span several of the reader's buffers. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/program.h"
#include "formats/goal_reader.h"
#include "test_support.h"

/* The program of text[0..length) on `threads` threads, parts of at least
 * min_part bytes; NULL with err set on an error. */
static fs_program *read_text(const char *text, size_t length, int threads, size_t min_part,
                             fs_error *err) {
  fs_text_input *in = fs_text_input_open_memory(text, length, "t.goal");
  ck_assert_ptr_nonnull(in);
  fs_program *p = fs_goal_read_input_threads(in, threads, min_part, 0, err);
  fs_text_input_close(in);
  return p;
}

/* The same read interleaved, from memory or (file) from a file. */
static fs_program *read_interleaved(const char *text, size_t length, int threads, size_t min_part,
                                    int file, fs_error *err) {
  char *path = file ? fs_test_temp_path(".goal") : NULL;
  if (file) ck_assert_int_eq(fs_test_write_file(path, text, length), 0);
  fs_text_input *in = file ? fs_text_input_open_file(path, err)
                           : fs_text_input_open_memory(text, length, "t.goal");
  ck_assert_ptr_nonnull(in);
  fs_program *p = fs_goal_read_input_threads(in, threads, min_part, 1, err);
  fs_text_input_close(in);
  if (file && !p) { /* the message names the file: name it t.goal as the memory reads do */
    char *at = strstr(err->message, path);
    ck_assert_ptr_nonnull(at);
    memmove(at + 6, at + strlen(path), strlen(at + strlen(path)) + 1);
    memcpy(at, "t.goal", 6);
  }
  free(path);
  return p;
}

#define SAME_ARRAY(a, b, n) ck_assert_int_eq(memcmp((a), (b), (size_t)(n) * sizeof *(a)), 0)

static void assert_same(const fs_program *a, const fs_program *b) {
  ck_assert_int_eq(a->ranks, b->ranks);
  ck_assert_int_eq(a->tasks, b->tasks);
  ck_assert_int_eq(a->dependencies, b->dependencies);
  ck_assert_int_eq(a->start_dependencies, b->start_dependencies);
  SAME_ARRAY(a->successor_at + a->tasks, b->successor_at + b->tasks, 2);
  ck_assert_int_eq(a->named, b->named);
  ck_assert_int_eq(a->slots, b->slots);
  ck_assert_int_eq(a->cpus, b->cpus);
  ck_assert_int_eq(a->nics, b->nics);
  ck_assert_int_eq(a->interleaved, b->interleaved);
  ck_assert_int_eq(a->names_implied, b->names_implied);
  SAME_ARRAY(a->kind, b->kind, a->tasks);
  SAME_ARRAY(a->flags, b->flags, a->tasks);
  SAME_ARRAY(a->rank, b->rank, a->tasks);
  SAME_ARRAY(a->peer, b->peer, a->tasks);
  SAME_ARRAY(a->value, b->value, a->tasks);
  SAME_ARRAY(a->need, b->need, a->tasks);
  SAME_ARRAY(a->successor_at, b->successor_at, a->tasks + 1);
  SAME_ARRAY(a->successor, b->successor, a->dependencies);
  char x[24], y[24];
  for (int32_t t = 0; t < a->tasks; t++) {
    ck_assert_int_eq(fs_task_tag(a, t), fs_task_tag(b, t));
    ck_assert_int_eq(fs_task_cpu(a, t), fs_task_cpu(b, t));
    ck_assert_int_eq(fs_task_nic(a, t), fs_task_nic(b, t));
    ck_assert_int_eq(fs_task_name_stored(a, t), fs_task_name_stored(b, t));
    ck_assert_str_eq(fs_task_name(a, t, x), fs_task_name(b, t, y));
  }
}

/* text read interleaved (memory and file; 1, 2 and 3 threads; parts of 1
 * byte and of a quarter of the text) is `one` (the one-thread program,
 * NULL with one_err) renumbered when it came interleaved, else `one`;
 * how many of the reads came interleaved. */
static int check_interleaved(const char *text, size_t length, const fs_program *one,
                             const fs_error *one_err) {
  fs_program *renumbered = NULL;
  int interleaved = 0;
  for (int file = 0; file < 2; file++)
    for (int threads = 1; threads <= 3; threads++)
      for (int sizes = 0; sizes < 2; sizes++) {
        fs_error err = {{0}};
        fs_program *p =
            read_interleaved(text, length, threads, sizes ? length / 4 + 1 : 1, file, &err);
        if (!one) {
          ck_assert_msg(p == NULL, "accepted interleaved: %s", one_err->message);
          ck_assert_str_eq(err.message, one_err->message);
          continue;
        }
        ck_assert_msg(p != NULL, "interleaved, %d threads: %s", threads, err.message);
        if (p->interleaved && !renumbered) {
          fs_error again = {{0}};
          renumbered = read_text(text, length, 1, 1, &again);
          ck_assert_int_eq(fs_program_interleave(renumbered), 1);
        }
        assert_same(p->interleaved ? renumbered : one, p);
        interleaved += p->interleaved != 0;
        fs_program_free(p);
      }
  fs_program_free(renumbered);
  return interleaved;
}

/* text read on 2..7 threads (parts of 1 byte, and of a quarter of the
 * text) equals the one-thread reading: the program or the error. */
static int check_text(const char *text, size_t length) {
  fs_error one_err = {{0}}, err = {{0}};
  fs_program *one = read_text(text, length, 1, 1, &one_err);
  for (int threads = 2; threads <= 7; threads += threads == 3 ? 4 : 1) /* 2, 3, 7 */
    for (int sizes = 0; sizes < 2; sizes++) {
      size_t min_part = sizes ? length / 4 + 1 : 1;
      memset(err.message, 0, sizeof err.message);
      fs_program *p = read_text(text, length, threads, min_part, &err);
      if (!one) {
        ck_assert_msg(p == NULL, "accepted on %d threads: %s", threads, one_err.message);
        ck_assert_str_eq(err.message, one_err.message);
      } else {
        ck_assert_msg(p != NULL, "%d threads: %s", threads, err.message);
        assert_same(one, p);
      }
      fs_program_free(p);
    }
  int interleaved = check_interleaved(text, length, one, &one_err);
  fs_program_free(one);
  return interleaved;
}

static char *gunzip(const char *path, size_t *length) {
  gzFile f = gzopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  size_t used = 0, capacity = 1 << 16;
  char *text = malloc(capacity);
  int n;
  while ((n = gzread(f, text + used, (unsigned)(capacity - used))) > 0) {
    used += (size_t)n;
    if (used == capacity) text = realloc(text, capacity *= 2);
    ck_assert_ptr_nonnull(text);
  }
  gzclose(f);
  *length = used;
  return text;
}

/* Every .goal and .goal.gz file of a directory; how many. */
static int check_directory(const char *directory) {
  DIR *d = opendir(directory);
  ck_assert_ptr_nonnull(d);
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (!(n > 5 && strcmp(e->d_name + n - 5, ".goal") == 0) &&
        !(n > 8 && strcmp(e->d_name + n - 8, ".goal.gz") == 0))
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", directory, e->d_name);
    size_t length;
    char *text = gunzip(path, &length); /* gzread reads plain files too */
    check_text(text, length);
    free(text);
    count++;
  }
  closedir(d);
  return count;
}

START_TEST(repository_schedules) {
  ck_assert_int_ge(check_directory(FENNELSIM_SOURCE_ROOT "/tests/goal"), 9);
  ck_assert_int_ge(check_directory(FENNELSIM_SOURCE_ROOT "/tests/goal/matrix"), 100);
}
END_TEST

typedef struct text {
  char *data;
  size_t length, capacity;
} text;

static void add(text *t, const char *format, ...) FS_PRINTF(2, 3);
static void add(text *t, const char *format, ...) {
  va_list args;
  for (;;) {
    va_start(args, format);
    int n = vsnprintf(t->data + t->length, t->capacity - t->length, format, args);
    va_end(args);
    if ((size_t)n < t->capacity - t->length) {
      t->length += (size_t)n;
      return;
    }
    t->capacity = t->capacity * 2 + (size_t)n + 1;
    t->data = realloc(t->data, t->capacity);
    ck_assert_ptr_nonnull(t->data);
  }
}

/* A dissemination-like schedule of `ranks` ranks in which rank r's block
 * varies with `variant`: clauses, unlabelled operations, calc, irequires,
 * comments (one holding a `rank R {` line), blank and CRLF lines. */
static text generated(int32_t ranks, int variant) {
  text t = {malloc(256), 0, 256};
  add(&t, "// generated\nnum_ranks %d\n", (int)ranks);
  for (int32_t r = 0; r < ranks; r++) {
    int shape = (int)((r * 7 + variant) % 5);
    add(&t, shape == 1 ? "\nrank %d {\r\n" : "rank %d {\n", (int)r);
    for (int round = 0; round < 3; round++) {
      int32_t to = (r + (1 << round)) % ranks, from = (r - (1 << round) + ranks) % ranks;
      add(&t, "s%d: send %db to %d tag %d%s\n", round, 8 << round, (int)to, round,
          shape == 2 ? " cpu 1 nic 1" : "");
      add(&t, "r%d: recv %db from %d tag %d\n", round, 8 << round, (int)(shape == 3 ? -1 : from),
          shape == 3 ? -1 : round);
      if (round) add(&t, "s%d requires r%d\n", round, round - 1);
    }
    if (shape == 4) add(&t, "calc 5\nc: calc 17 cpu 2\nc irequires s0\n/* a comment\n");
    if (shape == 4 && r + 1 < ranks) add(&t, "rank %d {\n", (int)r + 1);
    if (shape == 4) add(&t, "is not a block */ s2 requires c\n");
    add(&t, "}\n");
  }
  return t;
}

START_TEST(generated_schedules) {
  static const int32_t sizes[] = {1, 2, 3, 5, 17, 100, 1000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int variant = 0; variant < 5; variant++) {
      text t = generated(sizes[i], variant);
      fs_error err = {{0}};
      fs_program *p = read_text(t.data, t.length, 1, 1, &err);
      ck_assert_msg(p != NULL, "%s", err.message);
      int32_t calcs = 0; /* 2 per block of shape 4, beside the 6 messages of each */
      for (int32_t r = 0; r < sizes[i]; r++) calcs += (r * 7 + variant) % 5 == 4 ? 2 : 0;
      ck_assert_int_eq(p->tasks, sizes[i] * 6 + calcs);
      fs_program_free(p);
      check_text(t.data, t.length);
      free(t.data);
    }
}
END_TEST

/* Replaces the first occurrence of `from` at or after `at` by `to`. */
static text replaced(const text *t, size_t at, const char *from, const char *to) {
  char *found = strstr(t->data + at, from);
  ck_assert_ptr_nonnull(found);
  size_t head = (size_t)(found - t->data), tail = t->length - head - strlen(from);
  text u = {malloc(t->length + strlen(to) + 1), 0, t->length + strlen(to) + 1};
  memcpy(u.data, t->data, head);
  strcpy(u.data + head, to);
  memcpy(u.data + head + strlen(to), found + strlen(from), tail);
  u.length = head + strlen(to) + tail;
  u.data[u.length] = 0;
  return u;
}

START_TEST(errors_in_parts) {
  text t = generated(200, 0);
  size_t late = (size_t)(strstr(t.data, "rank 150 {") - t.data);
  size_t early = (size_t)(strstr(t.data, "rank 40 {") - t.data);
  static const char *const cases[][2] = {
      {"s1 requires r0", "s1 requires r9"}, /* a label not defined */
      {"tag 1\n", "tag 1 x\n"},             /* a clause */
      {"send 8b", "send 8"},                /* a message size */
      {"}\n", "}\n}\n"},                    /* '}' outside a block */
      {"}\n", "\n"},                        /* a block not closed */
      {"rank 151 {", "rank 152 {"},         /* a block out of order */
      {"}\n", "}\n/* never closed\n"},      /* a comment left open */
      {"to 3 ", "to 200 "},                 /* a peer out of range */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    text u = replaced(&t, late, cases[i][0], cases[i][1]);
    fs_error err = {{0}};
    ck_assert_ptr_null(read_text(u.data, u.length, 1, 1, &err));
    ck_assert_msg(strncmp(err.message, "t.goal:", 7) == 0, "%s", err.message);
    check_text(u.data, u.length);
    /* with a second error earlier, that one is reported */
    text v = replaced(&u, early, "s2 requires r1", "s2 requires r7");
    fs_error first = {{0}};
    ck_assert_ptr_null(read_text(v.data, v.length, 1, 1, &first));
    ck_assert_msg(strstr(first.message, "'r7'") != NULL, "%zu: %s", i, first.message);
    check_text(v.data, v.length);
    free(u.data);
    free(v.data);
  }
  /* the line of an error in a late part: 2 header lines, then blocks of
   * 10 lines (rank, 8 statements, '}'), the 30 blocks r < 150 of shape 1
   * (7r % 5 == 1: r % 5 == 3) one blank line longer, the 30 of shape 4
   * (r % 5 == 2) 6 lines longer; rank 150 (shape 0) opens on the next
   * line and its "s1 requires r0" is its 5th line after that, 'r9' at
   * column 13 */
  text u = replaced(&t, late, "s1 requires r0", "s1 requires r9");
  fs_error err = {{0}};
  ck_assert_ptr_null(read_text(u.data, u.length, 4, 1, &err));
  int64_t block = 2 + 150 * 10 + 30 * 1 + 30 * 6 + 1;
  char expected[160];
  snprintf(expected, sizeof expected,
           "t.goal:%lld:13: expected a label defined above in the block of rank 150 (got 'r9')",
           (long long)(block + 5));
  ck_assert_str_eq(err.message, expected);
  free(u.data);
  free(t.data);
}
END_TEST

/* schedgen's labels: op k of each block is "lK" (K = k + 1), so no name is
 * stored (names_implied) until one op breaks the pattern at rank `odd`:
 * a label "x" (odd_kind 1), no label (2), a label out of place (3, "l9"
 * for op 2 of 4) or a dependency on a label out of range (4, an error).
 * The names are the ones a stored name would give, on any thread count. */
static text patterned(int32_t ranks, int32_t odd, int odd_kind) {
  text t = {malloc(256), 0, 256};
  add(&t, "num_ranks %d\n", (int)ranks);
  for (int32_t r = 0; r < ranks; r++) {
    int32_t to = (r + 1) % ranks, from = (r + ranks - 1) % ranks;
    add(&t, "rank %d {\nl1: send 8b to %d tag 0\nl2: recv 8b from %d tag 0\n", (int)r, (int)to,
        (int)from);
    const char *third = r != odd ? "l3: " : odd_kind == 1 ? "x: " : odd_kind == 2 ? "" : "l9: ";
    add(&t, "%scalc 7\nl4: calc 9\nl4 requires l%d\n}\n", third, r == odd && odd_kind == 4 ? 5 : 1);
  }
  return t;
}

START_TEST(implied_names) {
  static const int32_t sizes[] = {1, 3, 40, 300};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int odd_kind = 0; odd_kind <= 4; odd_kind++) {
      int32_t ranks = sizes[i], odd = odd_kind ? ranks * 2 / 3 : -1;
      text t = patterned(ranks, odd, odd_kind);
      fs_error err = {{0}};
      fs_program *p = read_text(t.data, t.length, 1, 1, &err);
      check_text(t.data, t.length);
      if (odd_kind == 4) { /* "l5" where 4 are defined: the same message as a stored label's */
        char want[160];
        snprintf(want, sizeof want,
                 "t.goal:%d:13: expected a label defined above in the block of rank %d (got 'l5')",
                 2 + 7 * (int)odd + 5, (int)odd);
        ck_assert_ptr_null(p);
        ck_assert_str_eq(err.message, want);
        free(t.data);
        continue;
      }
      ck_assert_msg(p != NULL, "%s", err.message);
      ck_assert_int_eq(p->names_implied, odd_kind == 0);
      ck_assert_int_eq(p->named, 1);
      ck_assert_int_eq(p->tasks, 4 * ranks);
      char name[24], want[24];
      for (int32_t task = 0; task < p->tasks; task++) {
        int32_t r = task / 4, k = task % 4 + 1;
        if (r == odd && k == 3 && odd_kind == 2)
          snprintf(want, sizeof want, "t%d", (int)task);
        else
          snprintf(want, sizeof want, "r%d.%s", (int)r,
                   r == odd && k == 3 ? (odd_kind == 1 ? "x" : "l9")
                   : k == 1           ? "l1"
                   : k == 2           ? "l2"
                   : k == 3           ? "l3"
                                      : "l4");
        ck_assert_str_eq(fs_task_name(p, task, name), want);
        ck_assert(fs_task_name_equals(p, task, want, (int64_t)strlen(want)));
        ck_assert(!fs_task_name_equals(p, task, want, (int64_t)strlen(want) - 1));
        ck_assert_int_eq(fs_task_name_stored(p, task), want[0] == 'r');
        ck_assert_int_eq(p->need[task], k == 4); /* l4 requires l1 */
      }
      fs_program_free(p);
      free(t.data);
    }
}
END_TEST

/* The fast path (schedgen's lines, read without the full parser) against
 * the full parser: each case is read once as written, with 150 bytes of
 * comment after it so that the fast path may take it, and once with a
 * blank before each line end, which the fast path leaves to the full
 * parser. Same program or same message; both on several threads too. */
START_TEST(fast_path_same) {
  static const char *const cases[] =
      {"l3: send 8b to 2 tag 0",
       "l3: send 4611686018427387904b to 0",
       "l3: send 4611686018427387905b to 0",
       "l3: send 8b to 3",
       "l3: send 8b to 2 tag 2147483647",
       "l3: send 8b to 2 tag 2147483648",
       "l3: send 8b to 2 tag 5",
       "l3: send 8b to 2 tag -1",
       "l3: recv 8b from -1",
       "l3: recv 0008b from 0002 tag 0007",
       "l3: calc 4611686018427387",
       "l3: calc 4611686018427388",
       "l3: calc 0",
       "l3: calc 12345678901234567890",
       "l3: calc 000000000000000000001",
       "l4: calc 1",
       "l03: calc 1",
       "l3: calc 1 cpu 3",
       "l3: send 8b to 2 tag 0 nic 1",
       "l2 requires l1",
       "l1 requires l2",
       "l2 requires l3",
       "l3 requires l1",
       "l2 requires l01",
       "l2 requires l1x",
       "l2 irequires l1",
       "l2 requires l1\nl2 requires l1",
       "l3: send 8b to 2\n\nl3 requires l1",
       "l3: sendx 8b",
       "l3: send 8 b to 1",
       "l3: recv 8b to 1",
       "l3: send 8b from 1",
       "l2 requires l99999999999",
       "l3: calc 1\nl4: calc 2\nl4 requires l3",
       "l3:send 8b to 2",
       "l3: send 8b to 2 tag 5\n"
       "l4: send 8b to 2 tag 0\nl5: calc 2\nl6: recv 8b from 1",
       "l3: calc 7 cpu 1\nl4: send 8b to 1",
       "l3: send 8b to 2 tag 5\nl4: recv 8b from 2 tag 2147483648",
       "l3: send 8b to 2 tag 5\nl4: recv 8b from 2 tag 2147483647\nl5: calc 3"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    text a = {malloc(256), 0, 256}, b = {malloc(256), 0, 256};
    for (int blank = 0; blank < 2; blank++) {
      text *t = blank ? &b : &a;
      add(t, "num_ranks 3\nrank 0 {\nl1: calc 1\n}\nrank 1 {\nl1: calc 1\n"
             "l2: recv 8b from 0\n");
      for (const char *c = cases[i]; *c; c++) add(t, blank && *c == '\n' ? " \n" : "%c", *c);
      add(t, "%s\n// %0150d\n}\nrank 2 {\nl1: send 8b to 1 tag 5\n}\n", blank ? " " : "", 0);
    }
    fs_error err_a = {{0}}, err_b = {{0}};
    fs_program *pa = read_text(a.data, a.length, 1, 1, &err_a);
    fs_program *pb = read_text(b.data, b.length, 1, 1, &err_b);
    ck_assert_msg((pa == NULL) == (pb == NULL), "%s: %s / %s", cases[i], err_a.message,
                  err_b.message);
    if (pa) {
      assert_same(pa, pb);
    } else {
      ck_assert_str_eq(err_a.message, err_b.message);
    }
    check_text(a.data, a.length);
    fs_program_free(pa);
    fs_program_free(pb);
    free(a.data);
    free(b.data);
  }
}
END_TEST

/* schedgen's layout: `rounds` rounds of a dissemination barrier per rank
 * (l(2k+1) send to r + 2^k, l(2k+2) recv from r - 2^k, l(2k+3) requires
 * l(2k+2)), rank `odd` changed by `variant`:
 *   0 not at all          1 a dependency more      2 an operation more
 *   3 a tag (rank 0 none)  4 tags on every rank     5 blank lines around
 *   6 another dependency   7 a calc for a send      8 a peer out of range
 *   9 "rank 01 {"         10 no '\n' at the end   11 a comment line */
static text schedgen(int32_t ranks, int rounds, int32_t odd, int variant) {
  text t = {malloc(256), 0, 256};
  add(&t, variant == 5 ? "\n\nnum_ranks %d\n\n" : "num_ranks %d\n", (int)ranks);
  for (int32_t r = 0; r < ranks; r++) {
    int here = r == odd, label = 1;
    add(&t, here && variant == 9 ? "rank 0%d {\n" : "rank %d {\n", (int)r);
    for (int k = 0; k < rounds; k++) {
      int32_t to = (r + (1 << k)) % ranks, from = (r - (1 << k) % ranks + ranks) % ranks;
      int tag = variant == 4 ? 3 + k : here && variant == 3 ? 5 : 0;
      if (here && variant == 7 && k == 1)
        add(&t, "l%d: calc 70\n", label++);
      else
        add(&t, "l%d: send 8b to %d tag %d\n", label++, (int)(here && variant == 8 ? ranks : to),
            tag);
      if (here && variant == 5) add(&t, "\n\n");
      add(&t, "l%d: recv 8b from %d tag %d\n", label++, (int)from, tag);
    }
    for (int k = 1; k < rounds; k++)
      add(&t, "l%d requires l%d\n", 2 * k + 1, here && variant == 6 && k == 1 ? 1 : 2 * k);
    if (here && variant == 1) add(&t, "l2 requires l1\n");
    if (here && variant == 2) add(&t, "l%d: calc 5\n", label++);
    if (here && variant == 11) add(&t, "// a comment\n");
    add(&t, r + 1 == ranks && variant == 10 ? "}" : "}\n");
  }
  return t;
}

/* Files of schedgen's layout come interleaved, whatever rank `odd` is;
 * the variants that leave it come as read (the same program, the run
 * renumbers it after) or give the same message; a file of several of the
 * reader's buffers (1 MiB) the same. */
START_TEST(interleaved_read) {
  static const int comes_interleaved[] = {1, 0, 0, 0, 1, 1, 0, 1, -1, 0, 0, 0};
  static const int32_t sizes[] = {2, 3, 17, 300};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int variant = 0; variant < 12; variant++)
      for (int odd = 0; odd < 3; odd++) {
        int32_t ranks = sizes[i], at = odd == 0 ? 0 : odd == 1 ? ranks / 2 : ranks - 1;
        text t = schedgen(ranks, 4, at, variant);
        fs_error err = {{0}};
        fs_program *p = read_text(t.data, t.length, 1, 1, &err);
        int interleaved = check_text(t.data, t.length);
        if (comes_interleaved[variant] < 0) {
          ck_assert_ptr_null(p);
          ck_assert_int_eq(interleaved, 0);
        } else {
          ck_assert_msg(p != NULL, "%s", err.message);
          /* rank 0's block is the shape: a tag there lets every rank have one */
          int want = comes_interleaved[variant] || (variant == 3 && at == 0);
          ck_assert_msg(interleaved == (want ? 12 : 0), "variant %d, %d ranks, odd %d: %d", variant,
                        (int)ranks, (int)at, interleaved);
        }
        fs_program_free(p);
        free(t.data);
      }
  text big = schedgen(40000, 5, 40000, 0); /* 40000 x 11 lines: about 8 MB */
  ck_assert_uint_gt(big.length, (size_t)6 << 20);
  fs_error err = {{0}};
  fs_program *one = read_text(big.data, big.length, 1, 1, &err);
  ck_assert_ptr_nonnull(one);
  ck_assert_int_eq(check_interleaved(big.data, big.length, one, &err), 12);
  ck_assert_int_eq(one->tasks, 400000);
  fs_program_free(one);
  free(big.data);
}
END_TEST

static Suite *goal_threads_suite(void) {
  Suite *suite = suite_create("goal_threads");
  TCase *same = tcase_create("same");
  tcase_set_timeout(same, 300);
  tcase_add_test(same, repository_schedules);
  tcase_add_test(same, generated_schedules);
  tcase_add_test(same, errors_in_parts);
  tcase_add_test(same, implied_names);
  tcase_add_test(same, fast_path_same);
  tcase_add_test(same, interleaved_read);
  suite_add_tcase(suite, same);
  return suite;
}

int main(void) { return fs_test_run(goal_threads_suite()); }
