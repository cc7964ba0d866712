/* allreduce_rm.c: `gen allreduce-rm --factors k1,...,ks`: recursive
 * multiplying with a mixed radix (Fennel thesis §5.4), N = k1*...*ks.
 *
 * Stage i has mask m = k1*...*k(i-1) and base B = ki*m. Rank w exchanges
 * with the ki-1 ranks that differ from it only in mixed-radix digit i:
 * block + (w + (idx+1)*m) mod B for idx = 0..ki-2, in that (staggered)
 * order, all after its current value; then it reduces after its own puts'
 * local completion and the ki-1 puts it receives. Under pipelined a stage
 * costs alpha_p + (ki-1)*alpha_r + beta*S + reduce.
 *
 * Tasks: the N starts, then per stage the N*(ki-1) puts (rank by rank, idx
 * by idx) and the N reduces (rank by rank), so every id is known by
 * arithmetic. */
#include "generator_support.h"

static const char NAME[] = "allreduce-rm";

static int check_factors(const fs_generator_options *o, fs_error *err) {
  if (o->factor_count < 0 || o->factor_count > 64)
    return fs_error_set(err, "%s: at most 64 factors, not %d", NAME, o->factor_count);
  if (o->factor_count == 0 && o->ranks > 1)
    return fs_error_set(err, "%s needs --factors k1,k2,... whose product is --ranks %d", NAME,
                        o->ranks);
  int64_t product = 1;
  for (int i = 0; i < o->factor_count; i++) {
    if (o->factors[i] < 2)
      return fs_error_set(err, "%s: factor %d is %d; each factor must be at least 2", NAME, i + 1,
                          o->factors[i]);
    product *= o->factors[i];
    if (product > o->ranks) break; /* already wrong; stops before any overflow */
  }
  if (product > o->ranks)
    return fs_error_set(err, "%s: the factors multiply to more than --ranks %d", NAME, o->ranks);
  if (product < o->ranks)
    return fs_error_set(err, "%s: the factors multiply to %lld, not --ranks %d", NAME,
                        (long long)product, o->ranks);
  return 0;
}

typedef struct rm_stage {
  int32_t number; /* 1-based */
  int32_t factor, mask, base;
  int32_t value_first; /* task holding rank 0's value before the stage (ranks follow) */
} rm_stage;

static int32_t put_id(const rm_stage *st, int32_t first_put, int32_t from, int32_t idx) {
  return first_put + from * (st->factor - 1) + idx;
}

/* Rank w's idx-th target, and the rank whose idx-th target is w. */
static int32_t target_of(const rm_stage *st, int32_t w, int32_t idx) {
  int32_t block = w / st->base * st->base;
  return block + (int32_t)(((int64_t)(w - block) + (int64_t)(idx + 1) * st->mask) % st->base);
}
static int32_t source_of(const rm_stage *st, int32_t w, int32_t idx) {
  int32_t block = w / st->base * st->base;
  return block +
         (int32_t)(((int64_t)(w - block) - (int64_t)(idx + 1) * st->mask + st->base) % st->base);
}

/* Adds the stage's puts and reduces; returns the id of rank 0's reduce. */
static int32_t add_stage(fs_program *p, const rm_stage *st, const fs_generator_options *o,
                         int *failed) {
  int32_t ranks = p->ranks, label = fs_gen_label(p, "stage%d", st->number);
  int32_t first_put = p->tasks, first_reduce = first_put + ranks * (st->factor - 1);
  for (int32_t w = 0; w < ranks; w++)
    for (int32_t idx = 0; idx < st->factor - 1; idx++) {
      int32_t put = fs_gen_put(p, w, target_of(st, w, idx), o->size, label);
      *failed |= put < 0 || fs_program_depend(p, put, st->value_first + w, 0);
    }
  for (int32_t w = 0; w < ranks; w++) {
    int32_t reduce = fs_gen_reduce(p, w, label, o);
    *failed |= reduce < 0;
    for (int32_t idx = 0; idx < st->factor - 1; idx++)
      *failed |= fs_program_depend(p, reduce, put_id(st, first_put, w, idx), 1);
    for (int32_t idx = 0; idx < st->factor - 1; idx++)
      *failed |= fs_program_depend(p, reduce, put_id(st, first_put, source_of(st, w, idx), idx), 0);
  }
  return first_reduce;
}

fs_program *fs_generate_allreduce_rm(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || check_factors(o, err)) return NULL;
  int64_t factor_sum = 0, exchanges = 0; /* sum of ki and of ki-1 */
  for (int i = 0; i < o->factor_count; i++)
    factor_sum += o->factors[i], exchanges += o->factors[i] - 1;
  int64_t tasks = (int64_t)o->ranks * (1 + factor_sum),
          dependencies = 3 * (int64_t)o->ranks * exchanges;
  fs_program *p = fs_gen_begin(NAME, o->ranks, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t start = fs_gen_label(p, "start");
  int failed = 0;
  for (int32_t rank = 0; rank < o->ranks; rank++)
    failed |= fs_gen_add(p, FS_START, rank, start) < 0;
  rm_stage st = {0, 1, 1, 1, 0}; /* before stage 1: mask 1, values in the starts */
  for (int i = 0; i < o->factor_count && !failed; i++) {
    st = (rm_stage){i + 1, o->factors[i], st.base, st.base * o->factors[i], st.value_first};
    st.value_first = add_stage(p, &st, o, &failed);
  }
  return fs_gen_finish(NAME, p, tasks, dependencies, failed, err);
}
