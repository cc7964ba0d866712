/* deadlock_report.c: what a deadlocked run left waiting, built after the
 * run from the engine's final state (deadlock_report.h): the sends and
 * recvs that found no partner, then the tasks that never became ready with
 * the completions they still wait for. */
#include "core/deadlock_report.h"

#include <stdlib.h>

#define WAITS_SHOWN 8
/* DONE_UNMATCHED: an eager send whose message no recv matched (the send
 * completed; what waits for it does not wait in vain). */
enum { DONE = 0, NEVER_READY = 1, UNMATCHED = 2, DONE_UNMATCHED = 3 };

static void mark_unmatched(void *state, int32_t task, int completed) {
  ((uint8_t *)state)[task] = completed ? DONE_UNMATCHED : UNMATCHED;
}

/* Per task: DONE, NEVER_READY, UNMATCHED (left in a match queue, not
 * complete) or DONE_UNMATCHED. */
static uint8_t *pending_states(const fs_engine *e) {
  const fs_program *p = fs_engine_program(e);
  uint8_t *state = malloc((size_t)p->tasks + 1);
  if (!state) return NULL;
  for (int32_t t = 0; t < p->tasks; t++)
    state[t] = fs_engine_remaining(e, t) > 0 ? NEVER_READY : DONE;
  fs_engine_visit_unmatched(e, mark_unmatched, state);
  return state;
}

static void describe_pending(const fs_program *p, int32_t u, uint8_t state, FILE *out) {
  char name[24];
  fprintf(out, " %s (%s, rank %d, %s)", fs_task_name(p, u, name),
          fs_task_kind_name(fs_task_kind_of(p, u)), fs_task_rank(p, u),
          state == NEVER_READY ? "never ready" : "never matched");
}

static void report_waiting_tasks(const fs_engine *e, const uint8_t *state, FILE *out, int limit) {
  const fs_program *p = fs_engine_program(e);
  int32_t *slot = malloc((size_t)p->tasks * sizeof *slot + 1);
  int32_t *shown = calloc((size_t)limit + 1, sizeof *shown);
  int32_t *waits = calloc(((size_t)limit + 1) * WAITS_SHOWN, sizeof *waits);
  int32_t *wait_count = calloc((size_t)limit + 1, sizeof *wait_count);
  if (!slot || !shown || !waits || !wait_count) {
    fprintf(out, "(out of memory for the deadlock report)\n");
    goto done;
  }
  int count = 0; /* tasks in the order they were read (an interleaved program's: program.h) */
  for (int32_t k = 0; k < p->tasks; k++) slot[k] = -1;
  for (int32_t k = 0; k < p->tasks; k++) {
    int32_t t = fs_task_in_read_order(p, k);
    if (state[t] == NEVER_READY && count < limit) shown[count] = t, slot[t] = count++;
  }
  /* pending: a task never ready, or the completion of an unmatched one */
  for (int32_t k = 0; k < p->tasks; k++) {
    int32_t u = fs_task_in_read_order(p, k);
    if (state[u] != NEVER_READY && state[u] != UNMATCHED) continue;
    uint32_t buffer[FS_TEMPLATE_MAX_EDGES], n;
    const uint32_t *successor = fs_task_successors(p, u, buffer, &n);
    for (uint32_t i = 0; i < n; i++) {
      uint32_t edge = successor[i];
      int32_t v = FS_EDGE_TASK(edge);
      int pending = state[u] == NEVER_READY || !(edge & (FS_EDGE_START | FS_EDGE_LOCAL));
      if (pending && slot[v] >= 0 && wait_count[slot[v]] < WAITS_SHOWN)
        waits[slot[v] * WAITS_SHOWN + wait_count[slot[v]]++] = u;
    }
  }
  char name[24];
  for (int k = 0; k < count; k++) {
    int32_t t = shown[k];
    int32_t remaining = fs_engine_remaining(e, t);
    fprintf(out, "  %s (%s, rank %d) waits for %d more completion%s:", fs_task_name(p, t, name),
            fs_task_kind_name(fs_task_kind_of(p, t)), fs_task_rank(p, t), remaining,
            remaining == 1 ? "" : "s");
    for (int w = 0; w < wait_count[k]; w++) {
      int32_t u = waits[k * WAITS_SHOWN + w];
      describe_pending(p, u, state[u], out);
    }
    fprintf(out, "\n");
  }
  int64_t stuck = fs_engine_stuck_tasks(e);
  if (stuck > count) fprintf(out, "  ... and %lld more\n", (long long)(stuck - count));
done:
  free(slot);
  free(shown);
  free(waits);
  free(wait_count);
}

/* One unmatched send or recv: "recv NAME on rank 1 from rank 0, tag 6,
 * 8B: posted, no message matched it", with the describer's communicator
 * and call when it knows them. */
static void report_unmatched_task(const fs_program *p, int32_t t, const fs_task_describer *d,
                                  FILE *out) {
  char name[24], peer[24] = "any rank", tag[16] = "any", size[32], communicator[96] = "",
                 call[256] = "";
  int32_t value = fs_task_tag(p, t);
  if (d && d->describe &&
      d->describe(d->state, p, t, &value, communicator, sizeof communicator, call, sizeof call))
    communicator[0] = call[0] = 0, value = fs_task_tag(p, t);
  if (fs_task_peer(p, t) >= 0) snprintf(peer, sizeof peer, "rank %d", fs_task_peer(p, t));
  if (value >= 0) snprintf(tag, sizeof tag, "%d", value);
  int receive = fs_task_kind_of(p, t) == FS_RECV;
  fprintf(out, "  %s %s on rank %d %s %s, tag %s%s%s, %s%s%s%s: %s\n", receive ? "recv" : "send",
          fs_task_name(p, t, name), fs_task_rank(p, t), receive ? "from" : "to", peer, tag,
          communicator[0] ? ", " : "", communicator, fs_format_size(size, fs_task_value(p, t)),
          call[0] ? " (" : "", call, call[0] ? ")" : "",
          receive ? "posted, no message matched it" : "arrived, no recv matched it");
}

/* The sends and recvs left in the match queues, in program order. */
static void report_unmatched(const fs_engine *e, const uint8_t *state, const fs_task_describer *d,
                             FILE *out, int limit) {
  const fs_program *p = fs_engine_program(e);
  int64_t shown = 0;
  for (int32_t k = 0; k < p->tasks; k++) {
    int32_t t = fs_task_in_read_order(p, k);
    if (state[t] != UNMATCHED && state[t] != DONE_UNMATCHED) continue;
    if (shown++ < limit) report_unmatched_task(p, t, d, out);
  }
  if (shown > limit) fprintf(out, "  ... and %lld more unmatched\n", (long long)(shown - limit));
}

void fs_engine_report_deadlock(const fs_engine *e, FILE *out, int limit,
                               const fs_task_describer *describer) {
  uint8_t *state = pending_states(e);
  if (!state) {
    fprintf(out, "(out of memory for the deadlock report)\n");
    return;
  }
  if (fs_engine_unmatched(e)) report_unmatched(e, state, describer, out, limit);
  if (fs_engine_stuck_tasks(e)) report_waiting_tasks(e, state, out, limit);
  free(state);
}

void fs_engine_report_stuck(const fs_engine *e, FILE *out, int limit) {
  fs_engine_report_deadlock(e, out, limit, NULL);
}
