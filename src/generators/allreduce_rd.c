/* allreduce_rd.c: `gen allreduce-rd`: recursive doubling as MPICH does it
 * (Fennel thesis Alg. 1). With pof2 = 2^floor(log2 N) and rem = N - pof2,
 * even ranks below 2*rem hand their value to the next odd rank (collapse),
 * the pof2 active ranks exchange and reduce along log2(pof2) hypercube
 * dimensions, and the odd ranks below 2*rem put the result back (expand).
 *
 * Per round and active rank: put (to the partner) after the rank's current
 * value; reduce after that put's local completion and the partner's put.
 * Tasks are laid out in blocks (starts, collapse puts, collapse reduces,
 * then per round its puts and its reduces, expand puts), each block in
 * rank order, so every task id is known by arithmetic.
 *
 * Data flow (one block, the whole S-byte vector): the collapse and round
 * puts land in a temporary at the target (FS_FLOW_PUT_TEMP), which the
 * target's reduce combines into its buffer (FS_FLOW_COMBINE); the expand
 * puts write the result into the even rank's buffer (FS_FLOW_PUT_WRITE). */
#include "generators/generator_support.h"

static const char NAME[] = "allreduce-rd";

typedef struct rd_shape {
  int32_t ranks, pof2, rem, rounds;
} rd_shape;

static rd_shape shape_of(int32_t ranks) {
  rd_shape s = {ranks, 1, 0, 0};
  while (s.pof2 <= ranks / 2) s.pof2 *= 2, s.rounds++;
  s.rem = ranks - s.pof2;
  return s;
}

/* The rank behind active rank q: the odd survivor of a collapsed pair, or
 * one of the ranks at or above 2*rem. */
static int32_t real_rank(const rd_shape *s, int32_t q) {
  return q < s->rem ? 2 * q + 1 : q + s->rem;
}

static int64_t round_first_task(const rd_shape *s, int32_t round) {
  return s->ranks + 2 * (int64_t)s->rem + 2 * (int64_t)(round - 1) * s->pof2;
}

/* The task holding active rank q's value before round `round` (1-based;
 * rounds + 1 means after the last round). */
static int32_t value_before(const rd_shape *s, int32_t round, int32_t q) {
  if (round > 1) return (int32_t)(round_first_task(s, round - 1) + s->pof2 + q);
  return q < s->rem ? s->ranks + s->rem + q /* its collapse reduce */ : q + s->rem /* its start */;
}

static int add_starts(fs_program *p, const rd_shape *s) {
  int32_t label = fs_gen_label(p, "start");
  int failed = 0;
  for (int32_t rank = 0; rank < s->ranks; rank++)
    failed |= fs_gen_add(p, FS_START, rank, label) < 0;
  return failed;
}

/* Even rank 2i puts its value to 2i+1, which reduces it into its own. */
static int add_collapse(fs_program *p, const rd_shape *s, const fs_generator_options *o) {
  int32_t label = fs_gen_label(p, "collapse");
  int failed = 0;
  for (int32_t i = 0; i < s->rem; i++) {
    int32_t put = fs_gen_put(p, 2 * i, 2 * i + 1, o->size, label);
    failed |= put < 0 || fs_program_depend(p, put, 2 * i, 0) ||
              fs_gen_flow_range(o, put, FS_FLOW_PUT_TEMP, 0, 1);
  }
  int32_t first_put = s->ranks;
  for (int32_t i = 0; i < s->rem; i++) {
    int32_t reduce = fs_gen_reduce(p, 2 * i + 1, label, o);
    failed |= reduce < 0 || fs_program_depend(p, reduce, 2 * i + 1, 0) ||
              fs_program_depend(p, reduce, first_put + i, 0) ||
              fs_gen_flow_range(o, reduce, FS_FLOW_COMBINE, 0, 1);
  }
  return failed;
}

static int add_round(fs_program *p, const rd_shape *s, int32_t round,
                     const fs_generator_options *o) {
  int32_t label = fs_gen_label(p, "round%d", round), mask = (int32_t)1 << (round - 1);
  int32_t first_put = (int32_t)round_first_task(s, round);
  int failed = 0;
  for (int32_t q = 0; q < s->pof2; q++) {
    int32_t put = fs_gen_put(p, real_rank(s, q), real_rank(s, q ^ mask), o->size, label);
    failed |= put < 0 || fs_program_depend(p, put, value_before(s, round, q), 0) ||
              fs_gen_flow_range(o, put, FS_FLOW_PUT_TEMP, 0, 1);
  }
  for (int32_t q = 0; q < s->pof2; q++) {
    int32_t reduce = fs_gen_reduce(p, real_rank(s, q), label, o);
    failed |= reduce < 0 || fs_program_depend(p, reduce, first_put + q, 1) ||
              fs_program_depend(p, reduce, first_put + (q ^ mask), 0) ||
              fs_gen_flow_range(o, reduce, FS_FLOW_COMBINE, 0, 1);
  }
  return failed;
}

/* Odd rank 2i+1 puts the result to 2i, which finishes when it arrives. */
static int add_expand(fs_program *p, const rd_shape *s, const fs_generator_options *o) {
  int32_t label = fs_gen_label(p, "expand");
  int failed = 0;
  for (int32_t i = 0; i < s->rem; i++) {
    int32_t put = fs_gen_put(p, 2 * i + 1, 2 * i, o->size, label);
    failed |= put < 0 || fs_program_depend(p, put, value_before(s, s->rounds + 1, i), 0) ||
              fs_gen_flow_range(o, put, FS_FLOW_PUT_WRITE, 0, 1);
  }
  return failed;
}

/* At a power of two ranks, one template per rank (core/symmetric.h): its
 * start, then per round its put to rank ^ mask and its reduce, the same
 * tasks, ids, labels and dependencies as the blocks above. */
static fs_program *generate_symmetric(const rd_shape *s, const fs_generator_options *o,
                                      fs_error *err) {
  fs_program *p = fs_program_new_symmetric(s->ranks, 1, 1 + 2 * s->rounds);
  if (!p) return fs_error_set(err, "%s: out of memory", NAME), NULL;
  fs_template_task *start = fs_template_at(p, 0);
  int failed = (start->label = fs_gen_label(p, "start")) < 0;
  for (int32_t round = 1; round <= s->rounds && !failed; round++) {
    int32_t label = fs_gen_label(p, "round%d", round), mask = (int32_t)1 << (round - 1);
    int32_t put = 2 * round - 1, reduce = 2 * round;
    *fs_template_at(p, put) = (fs_template_task){.kind = FS_PUT,
                                                 .flags = FS_HAS_SIZE,
                                                 .value = o->size,
                                                 .peer_rule = FS_RULE_XOR,
                                                 .peer = mask,
                                                 .label = label};
    *fs_template_at(p, reduce) =
        (fs_template_task){.kind = FS_COMPUTE,
                           .flags = o->has_reduce_time ? FS_HAS_TIME : FS_HAS_SIZE,
                           .value = o->has_reduce_time ? o->reduce_time : o->size,
                           .label = label};
    failed = label < 0 || fs_template_depend(p, put, put - 1, FS_RULE_NONE, 0, FS_AFTER_END) ||
             fs_template_depend(p, reduce, put, FS_RULE_NONE, 0, FS_AFTER_LOCAL) ||
             fs_template_depend(p, reduce, put, FS_RULE_XOR, mask, FS_AFTER_END);
  }
  int64_t dependencies = 3 * (int64_t)s->rounds * s->pof2;
  return fs_gen_finish_symmetric(NAME, p, dependencies, failed, err);
}

fs_program *fs_generate_allreduce_rd(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return NULL;
  rd_shape s = shape_of(o->ranks);
  if (o->symmetric && !o->flow && s.rem == 0) return generate_symmetric(&s, o, err);
  int64_t tasks = round_first_task(&s, s.rounds + 1) + s.rem;
  int64_t dependencies = 4 * (int64_t)s.rem + 3 * (int64_t)s.rounds * s.pof2;
  fs_program *p = fs_gen_begin(NAME, s.ranks, tasks, dependencies, err);
  if (!p) return NULL;
  int failed = add_starts(p, &s) | fs_gen_flow_begin(o, FS_COLLECTIVE_ALLREDUCE, 0, 1, o->size);
  if (s.rem > 0 && !failed) failed = add_collapse(p, &s, o);
  for (int32_t round = 1; round <= s.rounds && !failed; round++)
    failed = add_round(p, &s, round, o);
  if (s.rem > 0 && !failed) failed = add_expand(p, &s, o);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
