/* barrier_dissemination.c: `gen barrier-dissemination`: MPICH's
 * dissemination barrier (MPIR_Barrier_intra_dissemination; Hensgen,
 * Finkel and Manber), with S-byte messages (MPICH sends 0 bytes: --size 0).
 *
 * Round k = 0 .. ceil(log2 N)-1, distance 2^k: rank r sends to
 * (r + 2^k) mod N and receives from (r - 2^k) mod N, as one blocking
 * MPIC_Sendrecv: per rank and round, the recv then the send (the order
 * MPIC_Sendrecv posts them), both requiring (FS_AFTER_END) the recv and the
 * send of round k-1, so what a rank knows accumulates: after round k it has
 * heard, directly or not, from the 2^(k+1) - 1 ranks before it. (schedgen's
 * pattern, which waits for the recv alone, is barrier-dissemination-schedgen.)
 * All tag 0 (MPIR_BARRIER_TAG: the destinations of the rounds differ, as
 * 0 < 2^k - 2^j < N), CPU 0, NIC 0, labels round1 .. roundK, no compute.
 * 2NK tasks, 4N(K-1) dependencies (K = ceil(log2 N) >= 1). Tasks are laid
 * out round by round, as they run: round k of rank r at 2(kN + r).
 *
 * Data flow: a barrier (FS_COLLECTIVE_BARRIER); the messages carry no data
 * of the collective, only the knowledge of who has entered. */
#include "generators/generator_support.h"

static const char NAME[] = "barrier-dissemination";

/* A recv or send of round k, after the rank's pair of round k-1 (tasks
 * previous and previous+1; none when previous < 0). */
static int add_message(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer, int64_t size,
                       int32_t label, int64_t previous) {
  int32_t t = fs_gen_message(p, kind, rank, peer, size, label);
  return t < 0 || (previous >= 0 && (fs_program_depend(p, t, (int32_t)previous, FS_AFTER_END) ||
                                     fs_program_depend(p, t, (int32_t)previous + 1, FS_AFTER_END)));
}

/* One template per rank (core/symmetric.h): per round its recv from
 * rank - 2^k and its send to rank + 2^k (mod N), the same tasks, ids,
 * labels and dependencies as below. */
static fs_program *generate_symmetric(const fs_generator_options *o, int rounds, fs_error *err) {
  int32_t n = o->ranks, labels[32];
  fs_program *p = fs_program_new_symmetric(n, 2, rounds);
  if (!p) return fs_error_set(err, "%s: out of memory", NAME), NULL;
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels);
  for (int k = 0; k < rounds && !failed; k++) {
    int32_t distance = (int32_t)1 << k; /* < n */
    for (int j = 0; j < 2 && !failed; j++) {
      *fs_template_at(p, 2 * k + j) = (fs_template_task){.kind = j ? FS_SEND : FS_RECV,
                                                         .flags = FS_HAS_SIZE,
                                                         .value = o->size,
                                                         .peer_rule = FS_RULE_ADD,
                                                         .peer = j ? distance : n - distance,
                                                         .label = labels[k]};
      for (int previous = 0; k > 0 && previous < 2 && !failed; previous++)
        failed =
            fs_template_depend(p, 2 * k + j, 2 * (k - 1) + previous, FS_RULE_NONE, 0, FS_AFTER_END);
    }
  }
  return fs_gen_finish_symmetric(NAME, p, 4 * (int64_t)(rounds - 1) * n, failed, err);
}

fs_program *fs_generate_barrier_dissemination(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return NULL;
  int32_t n = o->ranks;
  int rounds = fs_gen_ceil_log2(n);
  if (o->symmetric && !o->flow && rounds > 0) return generate_symmetric(o, rounds, err);
  int64_t tasks = 2 * (int64_t)rounds * n;
  int64_t dependencies = rounds > 0 ? 4 * (int64_t)(rounds - 1) * n : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels) |
               fs_gen_flow_begin(o, FS_COLLECTIVE_BARRIER, 0, 1, 0);
  for (int k = 0; k < rounds && !failed; k++) {
    int64_t distance = (int64_t)1 << k;
    for (int32_t rank = 0; rank < n && !failed; rank++) {
      int64_t previous = k > 0 ? 2 * ((int64_t)(k - 1) * n + rank) : -1;
      int32_t to = (int32_t)((rank + distance) % n), from = (int32_t)((rank - distance + n) % n);
      failed = add_message(p, FS_RECV, rank, from, o->size, labels[k], previous) ||
               add_message(p, FS_SEND, rank, to, o->size, labels[k], previous);
    }
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
