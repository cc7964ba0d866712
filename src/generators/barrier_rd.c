/* barrier_rd.c: `gen barrier-rd`: Open MPI's recursive-doubling barrier
 * (ompi_coll_base_barrier_intra_recursivedoubling in coll_base_barrier.c),
 * with S-byte messages (Open MPI's are empty: --size 0).
 *
 * With p = the largest power of two <= N and rem = N - p:
 * - fold: each rank u = p + i (i < rem) exchanges with i as one
 *   irecv + isend + waitall (its recv from i, then its send to i, no
 *   dependency between them); rank i first receives from u (blocking);
 * - rounds k = 1 .. log2 p: every rank r < p exchanges with r XOR 2^(k-1)
 *   (the same irecv + isend + waitall: its recv, then its send), both
 *   requiring (FS_AFTER_END) the recv and the send of round k-1, and in
 *   round 1 the fold's recv when r < rem;
 * - release: rank i < rem sends to p + i after its last round (Open MPI's
 *   synchronous send: with the receive posted from the start it completes
 *   on arrival, as an eager send does under hockney; its mode is not
 *   modelled), which completes u's waiting recv.
 * All tag 0 (MCA_COLL_BASE_TAG_BARRIER): every channel carries one message
 * (i -> u only the release, u -> i only the fold, each XOR pair once per
 * round). CPU 0, NIC 0, labels fold, round1 .. roundL, release; tasks laid
 * out stage by stage, rank by rank, as they run. With L = log2 p:
 * 4 rem + 2pL tasks, 4p(L-1) + 4 rem dependencies (N >= 2; none at N = 1).
 *
 * Data flow: a barrier (FS_COLLECTIVE_BARRIER); the messages carry no data
 * of the collective, only the knowledge of who has entered. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "barrier-rd";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_refuse_root(NAME, o, err)) return -1;
  return fs_gen_refuse_reduce_time(NAME, o, "a barrier has no reduction", err);
}

/* A recv or send after the tasks first .. first+count-1 (count 0: none). */
static int32_t add_after(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer, int64_t size,
                         int32_t label, int32_t first, int count) {
  int32_t t = fs_gen_message(p, kind, rank, peer, size, label);
  for (int i = 0; i < count && t >= 0; i++)
    if (fs_program_depend(p, t, first + i, FS_AFTER_END)) return -1;
  return t;
}

/* The fold: fold[i] = the task id of rank i's recv from p + i. */
static int add_fold(fs_program *p, int32_t pof2, int32_t rem, int64_t size, int32_t *fold) {
  int32_t label = fs_gen_label(p, "fold");
  for (int32_t i = 0; i < rem; i++) {
    int32_t u = pof2 + i;
    if (label < 0 || add_after(p, FS_RECV, u, i, size, label, 0, 0) < 0 ||
        add_after(p, FS_SEND, u, i, size, label, 0, 0) < 0 ||
        (fold[i] = add_after(p, FS_RECV, i, u, size, label, 0, 0)) < 0)
      return -1;
  }
  return 0;
}

/* Rounds 1 .. L among ranks < p; round k of rank r at first + 2((k-1)p + r). */
static int add_rounds(fs_program *p, int32_t pof2, int32_t rem, int rounds, int64_t size,
                      const int32_t *fold) {
  for (int k = 1; k <= rounds; k++) {
    int32_t label = fs_gen_label(p, "round%d", k), first = p->tasks;
    for (int32_t r = 0; r < pof2; r++) {
      int32_t partner = r ^ ((int32_t)1 << (k - 1)), after = -1;
      int count = 0;
      if (k > 1) after = first - 2 * pof2 + 2 * r, count = 2;
      if (k == 1 && r < rem) after = fold[r], count = 1;
      if (label < 0 || add_after(p, FS_RECV, r, partner, size, label, after, count) < 0 ||
          add_after(p, FS_SEND, r, partner, size, label, after, count) < 0)
        return -1;
    }
  }
  return 0;
}

/* Largest power of two <= n, for n >= 1. */
static int32_t floor_pof2(int32_t n) { return (int32_t)1 << fs_gen_floor_log2(n); }

fs_program *fs_generate_barrier_rd(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks, pof2 = floor_pof2(n), rem = n - pof2;
  int rounds = fs_gen_floor_log2(pof2);
  int64_t tasks = 4 * (int64_t)rem + 2 * (int64_t)pof2 * rounds;
  int64_t dependencies = rounds > 0 ? 4 * (int64_t)pof2 * (rounds - 1) + 4 * (int64_t)rem : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t *fold = rem > 0 ? malloc((size_t)rem * sizeof *fold) : NULL;
  int failed = (rem > 0 && !fold) || fs_gen_flow_begin(o, FS_COLLECTIVE_BARRIER, 0, 1, 0) ||
               add_fold(p, pof2, rem, o->size, fold) ||
               add_rounds(p, pof2, rem, rounds, o->size, fold);
  int32_t label = failed || rem == 0 ? 0 : fs_gen_label(p, "release");
  int32_t last = p->tasks - 2 * pof2; /* the last round's pair of rank 0 */
  for (int32_t i = 0; i < rem && !failed; i++)
    failed = add_after(p, FS_SEND, i, pof2 + i, o->size, label, last + 2 * i, 2) < 0;
  free(fold);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
