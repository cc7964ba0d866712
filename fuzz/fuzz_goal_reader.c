/* fuzz_goal_reader.c: libFuzzer target for the GOAL reader. Every input must
 * either give a finalized program that keeps the reader's promises (ranks
 * and peers in range, names "rR." of their own rank) and that the .dag
 * writer accepts (it is written to /dev/null) unless a send carries tag -1
 * or its dependencies form a cycle, which .dag cannot hold; or an error
 * that names the input and a line ("fuzz:LINE..."). Sizes and times stay
 * within the limits (units.h), and a small program is simulated
 * (simulate.h). The input read on 3 threads, cut before every `rank R {`
 * line, must give the same program or the same error; read interleaved
 * (goal_interleaved.h), the same error, or the same program, renumbered
 * by fs_program_interleave when it came interleaved. Anything else (a
 * crash, a leak, a sanitizer report, an error without position, a broken
 * promise, a difference between the thread counts) is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "formats/dag_writer.h"
#include "formats/goal_reader.h"
#include "simulate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A task the reader could not have made. */
static int broken(const fs_program *p, int32_t t) {
  int kind = p->kind[t], lowest_peer = kind == FS_RECV ? FS_ANY_SOURCE : 0;
  if (kind != FS_SEND && kind != FS_RECV && kind != FS_COMPUTE) return 1;
  if (p->rank[t] < 0 || p->rank[t] >= p->ranks) return 1;
  if (kind != FS_COMPUTE && (p->peer[t] < lowest_peer || p->peer[t] >= p->ranks)) return 1;
  if (p->value[t] < 0 || p->value[t] > (kind == FS_COMPUTE ? FS_TIME_LIMIT : FS_SIZE_LIMIT))
    return 1;
  char buffer[24], prefix[16];
  const char *name = fs_task_name(p, t, buffer);
  if (name == buffer) return 0;
  int n = snprintf(prefix, sizeof prefix, "r%d.", (int)p->rank[t]);
  return strncmp(name, prefix, (size_t)n) != 0 || name[n] == 0;
}

static int has_send_with_any_tag(const fs_program *p) {
  for (int32_t t = 0; t < p->tasks; t++)
    if (p->kind[t] == FS_SEND && fs_task_tag(p, t) == FS_ANY_TAG) return 1;
  return 0;
}

#define SAME(field, n) (memcmp(a->field, b->field, (size_t)(n) * sizeof *a->field) == 0)

static int same_program(const fs_program *a, const fs_program *b) {
  if (a->tasks != b->tasks || a->dependencies != b->dependencies ||
      a->interleaved != b->interleaved || a->start_dependencies != b->start_dependencies ||
      a->named != b->named || !SAME(kind, a->tasks) || !SAME(flags, a->tasks) ||
      !SAME(rank, a->tasks) || !SAME(peer, a->tasks) || !SAME(value, a->tasks) ||
      !SAME(need, a->tasks) || !SAME(successor_at, a->tasks + 1) ||
      !SAME(successor, a->dependencies))
    return 0;
  char x[24], y[24];
  for (int32_t t = 0; t < a->tasks; t++)
    if (fs_task_tag(a, t) != fs_task_tag(b, t) || fs_task_cpu(a, t) != fs_task_cpu(b, t) ||
        fs_task_nic(a, t) != fs_task_nic(b, t) ||
        strcmp(fs_task_name(a, t, x), fs_task_name(b, t, y)) != 0)
      return 0;
  return 1;
}

/* The input on 3 threads (interleave: read interleaved) gives p, or NULL
 * and err's message; p renumbered when it comes interleaved. */
static void check_threads(const uint8_t *data, size_t size, const fs_program *p,
                          const fs_error *err, int interleave) {
  fs_error q_err;
  q_err.message[0] = 0;
  fs_text_input *in = fs_text_input_open_memory((const char *)data, size, "fuzz");
  if (!in) return; /* out of memory */
  fs_program *q = fs_goal_read_input_threads(in, 3, 1, interleave, &q_err), *r = NULL;
  fs_text_input_close(in);
  if (q && q->interleaved) { /* p renumbered: read again, it is const */
    fs_error r_err;
    r = fs_goal_read_memory((const char *)data, size, "fuzz", &r_err);
    if (!r || fs_program_interleave(r) != 1) abort();
  }
  if (p ? !q || !same_program(r ? r : p, q) : q || strcmp(err->message, q_err.message) != 0)
    abort();
  fs_program_free(q);
  fs_program_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_error err;
  err.message[0] = 0;
  fs_program *p = fs_goal_read_memory((const char *)data, size, "fuzz", &err);
  check_threads(data, size, p, &err, 0);
  check_threads(data, size, p, &err, 1);
  if (!p) {
    if (strncmp(err.message, "fuzz:", 5) != 0 || err.message[5] < '0' || err.message[5] > '9')
      abort();
    return 0;
  }
  if (!p->finalized) abort();
  for (int32_t t = 0; t < p->tasks; t++)
    if (broken(p, t)) abort();
  /* requires lines may close a cycle (the run deadlocks), which .dag
   * cannot hold either */
  if (fs_dag_write(p, "/dev/null", &err) != 0 && !has_send_with_any_tag(p) &&
      !strstr(err.message, "form a cycle"))
    abort();
  fuzz_simulate(p, size ? data[0] : 0);
  fs_program_free(p);
  return 0;
}
