/* allreduce_fan.c: `gen allreduce-fan`: fan-in/fan-out (Fennel thesis
 * §5.2.2, eq. 5.1): a binomial reduce of the whole vector to rank 0, then a
 * binomial broadcast of the result from rank 0, both in MPICH's order
 * (MPIR_Reduce_intra_binomial for a commutative op, then
 * MPIR_Bcast_intra_binomial). One block of S bytes.
 *
 * Fan-in: rank v receives from v + m for m = 1, 2, 4, ... while bit m of v
 * is clear and v + m < N, reducing after each receive (a recv into a
 * temporary, then a compute of S bytes), then sends its partial to
 * v - lowbit(v). Fan-out: v > 0 receives the result from v - lowbit(v),
 * then sends it to v + m for m = lowbit(v)/2, ..., 1 (the root: m =
 * 2^(R-1), ..., 1, R = ceil(log2 N)) when v + m < N.
 *
 * Dependencies follow MPICH's blocking calls: a fan-in recv waits for the
 * rank's previous reduce, a reduce for its recv, the send up for the
 * rank's last reduce; the fan-out recv for the rank's send up (it
 * overwrites what that send read), every fan-out send for the rank's
 * fan-out recv (the root's: for its last reduce). All tag 0, no start
 * tasks. 5(N-1) tasks, 4N-5 dependencies (N >= 2; none at N = 1).
 *
 * Tasks are laid out round by round: fan-in round i = 1..R (label reduce<i>,
 * mask 2^(i-1)) holds, per pair (v, v + m), the child's send, the parent's
 * recv and its reduce; fan-out round i = 1..R (label bcast<i>, mask
 * 2^(R-i)) the parent's send and the child's recv. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "allreduce-fan";

typedef struct fan {
  fs_program *p;
  const fs_generator_options *o;
  int32_t *value; /* per rank: its last reduce, or -1 */
  int32_t *up;    /* per rank: its send to the parent */
  int32_t *down;  /* per rank: its fan-out recv, or (root) its last reduce */
  int failed;
} fan;

/* Fan-in round with mask m: child v + m sends its partial to v, which
 * receives it into a temporary and reduces it. */
static void add_fan_in_round(fan *f, int64_t m, int32_t label) {
  int32_t n = f->o->ranks;
  for (int64_t v = 0; v + m < n && !f->failed; v += 2 * m) {
    int32_t child = (int32_t)(v + m), parent = (int32_t)v;
    int32_t send = fs_gen_send(f->p, child, parent, f->o->size, label);
    int32_t recv = fs_gen_recv(f->p, parent, child, f->o->size, label);
    int32_t reduce = fs_gen_reduce(f->p, parent, label, f->o);
    f->failed |= send < 0 || recv < 0 || reduce < 0;
    if (f->failed) return;
    if (f->value[child] >= 0)
      f->failed |= fs_program_depend(f->p, send, f->value[child], FS_AFTER_END) != 0;
    if (f->value[parent] >= 0)
      f->failed |= fs_program_depend(f->p, recv, f->value[parent], FS_AFTER_END) != 0;
    f->failed |= fs_program_depend(f->p, reduce, recv, FS_AFTER_END) != 0;
    f->failed |= fs_gen_flow_range(f->o, send, FS_FLOW_READ, 0, 1) != 0 ||
                 fs_gen_flow_range(f->o, recv, FS_FLOW_TEMP, 0, 1) != 0 ||
                 fs_gen_flow_range(f->o, reduce, FS_FLOW_COMBINE, 0, 1) != 0;
    f->up[child] = send;
    f->value[parent] = reduce;
  }
}

/* Fan-out round with mask m: v sends the result to v + m, which receives
 * it into its buffer after its own send up has read that buffer. */
static void add_fan_out_round(fan *f, int64_t m, int32_t label) {
  int32_t n = f->o->ranks;
  for (int64_t v = 0; v + m < n && !f->failed; v += 2 * m) {
    int32_t parent = (int32_t)v, child = (int32_t)(v + m);
    int32_t send = fs_gen_send(f->p, parent, child, f->o->size, label);
    int32_t recv = fs_gen_recv(f->p, child, parent, f->o->size, label);
    f->failed |= send < 0 || recv < 0;
    if (f->failed) return;
    f->failed |= fs_program_depend(f->p, send, f->down[parent], FS_AFTER_END) != 0 ||
                 fs_program_depend(f->p, recv, f->up[child], FS_AFTER_END) != 0;
    f->failed |= fs_gen_flow_range(f->o, send, FS_FLOW_READ, 0, 1) != 0 ||
                 fs_gen_flow_range(f->o, recv, FS_FLOW_WRITE, 0, 1) != 0;
    f->down[child] = recv;
  }
}

fs_program *fs_generate_allreduce_fan(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return NULL;
  int32_t n = o->ranks;
  int rounds = fs_gen_ceil_log2(n);
  int64_t tasks = 5 * ((int64_t)n - 1), dependencies = n > 1 ? 4 * (int64_t)n - 5 : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  fan f = {p, o, malloc((size_t)n * 4), malloc((size_t)n * 4), malloc((size_t)n * 4), 0};
  int32_t in_labels[32], out_labels[32];
  f.failed = !f.value || !f.up || !f.down ||
             fs_gen_numbered_labels(p, "reduce", rounds, in_labels) ||
             fs_gen_numbered_labels(p, "bcast", rounds, out_labels);
  f.failed |= fs_gen_flow_begin(o, FS_COLLECTIVE_ALLREDUCE, 0, 1, o->size) != 0;
  for (int32_t v = 0; v < n && !f.failed; v++) f.value[v] = f.up[v] = f.down[v] = -1;
  for (int i = 0; i < rounds && !f.failed; i++) add_fan_in_round(&f, (int64_t)1 << i, in_labels[i]);
  if (!f.failed) f.down[0] = f.value[0];
  for (int i = 0; i < rounds && !f.failed; i++)
    add_fan_out_round(&f, (int64_t)1 << (rounds - 1 - i), out_labels[i]);
  free(f.value), free(f.up), free(f.down);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, f.failed, o, err);
}
