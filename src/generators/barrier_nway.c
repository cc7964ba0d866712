/* barrier_nway.c: `gen barrier-nway`: the n-way dissemination barrier of
 * Hoefler, Mehlan, Mietke and Rehm ("Fast barrier synchronization for
 * InfiniBand", 2006; the Fennel thesis's §5.3 cites it as the f-way
 * dissemination barrier).
 *
 * --ways n (default 2) is the number of messages a rank sends per round;
 * n = 1 is the classic dissemination barrier. Round k = 0 .. R-1,
 * R = ceil(log_{n+1} N), distance D = (n+1)^k: rank r receives from
 * (r - j*D) mod N and sends to (r + j*D) mod N for j = 1 .. n. After round k
 * a rank has heard, directly or not, from the ranks r - m for every
 * m < (n+1)^(k+1), so the messages with j*D >= N (only in the last round)
 * would tell it nothing new, or go to itself: they are left out, and the
 * last round has min(n, (N-1) div D) messages.
 *
 * Messages of --size bytes (default 8 B, as barrier-dissemination). A round
 * is one exchange as MPI would write it: the m recvs posted, then the m
 * sends, all requiring (FS_AFTER_END) every recv and send of the previous
 * round (its waitall), so what a rank knows accumulates. n = 1 gives
 * barrier-dissemination (MPICH's sendrecv rounds) op for op. All tag 0:
 * every (source, destination) pair appears once. Labels round1 .. roundR;
 * tasks laid out round by round, rank by rank, as they run.
 *
 * Data flow: a barrier (FS_COLLECTIVE_BARRIER); the messages carry no data
 * of the collective, only the knowledge of who has entered. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "barrier-nway";

static int32_t ways_of(const fs_generator_options *o) { return o->ways ? o->ways : 2; }

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a barrier has no reduction", err)) return -1;
  if (o->ways < 0)
    return fs_error_set(err, "%s: --ways must be at least 1 (messages per round), not %d", NAME,
                        o->ways);
  return 0;
}

/* Messages per rank in each round (at most 32 rounds); returns the rounds. */
static int round_messages(int32_t n, int32_t ways, int32_t *messages) {
  int rounds = 0;
  for (int64_t d = 1; d < n; d *= (int64_t)ways + 1) {
    int64_t useful = (n - 1) / d;
    messages[rounds++] = (int32_t)(useful < ways ? useful : ways);
  }
  return rounds;
}

/* Round k (distance d, m messages) of rank, after its `previous` tasks of
 * the previous round, which start at first_previous. */
static int add_round(fs_program *p, const fs_generator_options *o, int32_t rank, int64_t d,
                     int32_t m, int32_t label, int64_t first_previous, int32_t previous) {
  int32_t n = o->ranks, first = p->tasks;
  for (int32_t j = 1; j <= m; j++)
    if (fs_gen_recv(p, rank, (int32_t)(((rank - j * d) % n + n) % n), o->size, label) < 0)
      return -1;
  for (int32_t j = 1; j <= m; j++)
    if (fs_gen_send(p, rank, (int32_t)((rank + j * d) % n), o->size, label) < 0) return -1;
  for (int32_t t = first; t < p->tasks; t++)
    for (int32_t i = 0; i < previous; i++)
      if (fs_program_depend(p, t, (int32_t)(first_previous + i), FS_AFTER_END)) return -1;
  return 0;
}

fs_program *fs_generate_barrier_nway(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks, messages[32];
  int rounds = round_messages(n, ways_of(o), messages);
  int64_t per_rank = 0, waits = 0;
  for (int k = 0; k < rounds; k++) {
    per_rank += 2 * messages[k];
    if (k > 0) waits += 4 * (int64_t)messages[k] * messages[k - 1];
  }
  int64_t tasks = per_rank * n, dependencies = waits * n;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels) ||
               fs_gen_flow_begin(o, FS_COLLECTIVE_BARRIER, 0, 1, 0);
  int64_t previous_first = 0, d = 1; /* the previous round's first task */
  for (int k = 0; k < rounds && !failed; k++, d *= (int64_t)ways_of(o) + 1) {
    int32_t previous = k ? 2 * messages[k - 1] : 0; /* tasks per rank */
    int64_t first = p->tasks;
    for (int32_t rank = 0; rank < n && !failed; rank++)
      failed = add_round(p, o, rank, d, messages[k], labels[k],
                         previous_first + (int64_t)previous * rank, previous);
    previous_first = first;
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
