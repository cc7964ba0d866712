/* allgather_rd.c: `gen allgather-rd`: MPICH's recursive-doubling allgather
 * for P a power of 2, as the tau-Lop thesis costs it (§4.2: log2 P stages,
 * all P ranks exchanging 2^i m with r XOR 2^i in stage i; the initial local
 * copy is not modelled).
 *
 * Round i = 0 .. log2 P - 1: rank r exchanges with r XOR 2^i, sending and
 * receiving 2^i * S bytes (all it has gathered so far), as one
 * MPIC_Sendrecv. Per rank, round by round, in MPICH's order: the recv, then
 * the send. Both require (FS_AFTER_END) the rank's recv of round i-1 (round
 * 0: nothing), so a round's send and recv overlap. Tag i (0-based), so
 * messages match by round; labels round1 .. round(log2 P) (label
 * round<i+1> has tag i). CPU 0, NIC 0, no compute, no start tasks.
 * 2P log2 P tasks, 2P(log2 P - 1) dependencies (P >= 2). Other P are
 * refused: MPICH then uses another algorithm.
 *
 * Data flow: P blocks of S bytes, block r from rank r; before round i rank r
 * holds the 2^i blocks of its aligned group, r - r mod 2^i onwards, sends
 * them and receives its partner's group. */
#include "generators/generator_support.h"

static const char NAME[] = "allgather-rd";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (o->ranks & (o->ranks - 1))
    return fs_error_set(err,
                        "%s needs a power of 2 --ranks (recursive doubling pairs r with "
                        "r XOR 2^i), not %d; allgather-ring takes any --ranks",
                        NAME, o->ranks);
  if (fs_gen_refuse_reduce_time(NAME, o, "an allgather has no reduction", err)) return -1;
  int rounds = fs_gen_floor_log2(o->ranks);
  if (rounds > 0 && o->size > FS_SIZE_LIMIT >> (rounds - 1))
    return fs_error_set(err,
                        "%s: the last round's message, %d/2 x --size %lld bytes, is too large "
                        "(the limit is %s)",
                        NAME, o->ranks, (long long)o->size, FS_SIZE_LIMIT_TEXT);
  return 0;
}

/* A send or recv of round i, tagged i, after `previous` (the rank's recv of
 * round i-1, or -1). */
static int32_t add_message(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer,
                           int64_t size, int round, int32_t label, int32_t previous) {
  int32_t t = fs_gen_message(p, kind, rank, peer, size, label);
  if (t < 0 || (round != 0 && fs_task_set_tag(p, t, round)) ||
      (previous >= 0 && fs_program_depend(p, t, previous, FS_AFTER_END)))
    return -1;
  return t;
}

static int add_rank(fs_program *p, int32_t rank, int rounds, const fs_generator_options *o,
                    const int32_t *labels) {
  int32_t recv = -1;
  for (int i = 0; i < rounds; i++) {
    int32_t group = (int32_t)1 << i, partner = rank ^ group, previous = recv;
    int64_t bytes = o->size << i; /* 2^i blocks; check_options keeps it in range */
    recv = add_message(p, FS_RECV, rank, partner, bytes, i, labels[i], previous);
    int32_t send = recv < 0 ? -1
                            : add_message(p, FS_SEND, rank, partner, bytes, i, labels[i], previous);
    if (send < 0 || fs_gen_flow_range(o, recv, FS_FLOW_WRITE, partner & -group, group) ||
        fs_gen_flow_range(o, send, FS_FLOW_READ, rank & -group, group))
      return -1;
  }
  return 0;
}

/* N blocks of S bytes, or -1 (the flow then fails) when that overflows. */
static int64_t all_blocks(const fs_generator_options *o) {
  return o->size > 0 && o->ranks > INT64_MAX / o->size ? -1 : o->ranks * o->size;
}

fs_program *fs_generate_allgather_rd(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int rounds = fs_gen_floor_log2(n);
  int64_t tasks = 2 * (int64_t)rounds * n;
  int64_t dependencies = rounds > 0 ? 2 * (int64_t)(rounds - 1) * n : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[32];
  int failed = fs_gen_numbered_labels(p, "round", rounds, labels) |
               fs_gen_flow_begin(o, FS_COLLECTIVE_ALLGATHER, 0, n, all_blocks(o));
  for (int32_t rank = 0; rank < n && !failed; rank++) failed = add_rank(p, rank, rounds, o, labels);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
