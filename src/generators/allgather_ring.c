/* allgather_ring.c: `gen allgather-ring`: MPICH's ring allgather, as the
 * tau-Lop thesis costs it (§4.3: P-1 stages of P simultaneous send-receives
 * of m; the initial local copy is not modelled).
 *
 * Step s = 0 .. P-2: rank r sends S bytes (the block it received in step
 * s-1; its own in step 0) to (r+1) mod P and receives S bytes from
 * (r-1+P) mod P, as one MPIC_Sendrecv. Per rank, step by step, in MPICH's
 * order: the recv, then the send. Both require (FS_AFTER_END) the rank's
 * recv of step s-1 (step 0: nothing), so a step's send and recv overlap; the
 * send only waits for the block it forwards. Tag s (0-based), so messages
 * match by step; labels step1 .. step(P-1) (label step<s+1> has tag s).
 * CPU 0, NIC 0, no compute, no start tasks. 2P(P-1) tasks, 2P(P-2)
 * dependencies (P >= 2). Tasks are laid out step by step (step s of rank r
 * at 2(sP + r)), the order in which they run: a run then walks its arrays
 * forward instead of jumping across 2(P-1) tasks at every event.
 *
 * Data flow: P blocks of S bytes, block r from rank r; in step s rank r
 * sends block (r-s) mod P and receives block (r-s-1) mod P. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "allgather-ring";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "an allgather has no reduction", err)) return -1;
  return 0;
}

/* labels[s] = "step<s+1>" for s < steps; the labels are new, so they are
 * added without the linear search of interning. -1 when out of memory. */
static int add_step_labels(fs_program *p, int32_t steps, int32_t *labels) {
  for (int32_t s = 0; s < steps; s++) {
    char text[24];
    int length = snprintf(text, sizeof text, "step%d", s + 1);
    if ((labels[s] = fs_program_add_label(p, text, length)) < 0) return -1;
  }
  return 0;
}

/* A send or recv of step s, tagged s, after `previous` (the rank's recv of
 * step s-1, or -1). */
static int32_t add_message(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer,
                           int64_t size, int32_t step, int32_t label, int32_t previous) {
  int32_t t = fs_gen_message(p, kind, rank, peer, size, label);
  if (t < 0 || (step != 0 && fs_task_set_tag(p, t, step)) ||
      (previous >= 0 && fs_program_depend(p, t, previous, FS_AFTER_END)))
    return -1;
  return t;
}

/* Step s of every rank; recv[r] holds rank r's recv of step s-1 and
 * becomes its recv of step s. */
static int add_step(fs_program *p, int32_t s, const fs_generator_options *o, int32_t label,
                    int32_t *recv) {
  int32_t n = o->ranks;
  for (int32_t rank = 0; rank < n; rank++) {
    int32_t previous = s > 0 ? recv[rank] : -1;
    int32_t forwarded = (int32_t)(((int64_t)rank - s + n) % n); /* the block sent */
    recv[rank] = add_message(p, FS_RECV, rank, (rank - 1 + n) % n, o->size, s, label, previous);
    int32_t send = recv[rank] < 0
                       ? -1
                       : add_message(p, FS_SEND, rank, (rank + 1) % n, o->size, s, label, previous);
    if (send < 0 || fs_gen_flow_range(o, recv[rank], FS_FLOW_WRITE, (forwarded - 1 + n) % n, 1) ||
        fs_gen_flow_range(o, send, FS_FLOW_READ, forwarded, 1))
      return -1;
  }
  return 0;
}

/* N blocks of S bytes, or -1 (the flow then fails) when that overflows. */
static int64_t all_blocks(const fs_generator_options *o) {
  return o->size > 0 && o->ranks > INT64_MAX / o->size ? -1 : o->ranks * o->size;
}

fs_program *fs_generate_allgather_ring(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  /* < 2^63 for every int32 n, and fs_gen_begin refuses more than FS_MAX_TASKS */
  int64_t tasks = 2 * (int64_t)n * (n - 1), dependencies = n > 1 ? 2 * (int64_t)n * (n - 2) : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t *labels = malloc((size_t)n * sizeof *labels); /* n - 1 steps, at least one slot */
  int32_t *recv = malloc((size_t)n * sizeof *recv);
  int failed = !labels || !recv || add_step_labels(p, n - 1, labels) ||
               fs_gen_flow_begin(o, FS_COLLECTIVE_ALLGATHER, 0, n, all_blocks(o));
  for (int32_t s = 0; s < n - 1 && !failed; s++) failed = add_step(p, s, o, labels[s], recv);
  free(labels);
  free(recv);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
