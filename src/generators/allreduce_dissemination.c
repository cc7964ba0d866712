/* allreduce_dissemination.c: `gen allreduce-dissemination`: the f-way
 * dissemination allreduce (End et al., for GASPI; Fennel thesis §5.3,
 * "Related"), two-sided, --ways f (default 1), any N >= 1.
 *
 * With D_k = (f+1)^k, rank r's partial before round k covers the D_k
 * consecutive ranks r-D_k+1 .. r (mod N). In round k it sends that partial
 * to r + j D_k and receives the partials of r - j D_k, j = 1..f, reducing
 * each (a recv into a temporary, then a compute of S bytes): afterwards it
 * covers D_(k+1) ranks. After m = floor(log_(f+1) N) such rounds rank r
 * holds P_m(r), D_m ranks; when N = D_m that is all.
 *
 * Otherwise M = N - D_m < f D_m ranks are missing: r - N + 1 .. r - D_m.
 * End et al. let the last round overshoot and remove the duplicates
 * afterwards, which needs an inverse of the operation. Here nothing is ever
 * combined twice: write M in base f+1, M = sum_k c_k D_k (c_m <= f-1), and
 * tile the missing range from its top down with c_m partials P_m, then
 * c_(m-1) partials P_(m-1), ..., c_0 partials P_0. The level-k tiles of
 * rank r are the partials P_k(x) of x = r - O_k - i D_k, i < c_k, where
 * O_m = D_m and O_(k-1) = O_k + c_k D_k (the length above level k; O_-1 =
 * N). The level-m ones come from r - j D_m, j = 1..c_m: the last round is
 * an ordinary round with c_m ways. A level-k tile for k < m is a partial
 * of round k, which x no longer holds at the end, so x sends it during
 * round k, after the f ordinary ones ("early" sends), and r keeps it in a
 * temporary until the last round, where it combines the early temporaries
 * (in round order) and the c_m last ones. Every distance used (j D_k,
 * j <= f; O_k + i D_k) is distinct and below N, so no two messages share a
 * (source, destination) channel. Each rank sends and reduces m f + s
 * messages, s = sum_k c_k (the digit sum of M), the same as with stored
 * partials sent in the last round.
 *
 * Per rank and round: recvs (ordinary, then early), sends (ordinary j =
 * 1..f, then early), reduces. Every recv and send of round k waits for the
 * rank's last reduce of round k-1; the first reduce of a round waits for
 * all the round's sends (they read the partial it overwrites) and its
 * recv, each later one for the previous reduce and its recv. All tag 0.
 * Labels round1 .. round<m + (M > 0)>. The combine order is not the rank
 * order, so the operation must be commutative (as MPI's predefined ones
 * are), but it needs no inverse. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "allreduce-dissemination";

typedef struct plan {
  int64_t ways;         /* f */
  int full;             /* m: rounds of f ordinary messages */
  int64_t distance[33]; /* D_k = (f+1)^k, k <= m */
  int64_t digit[33];    /* c_k: the digits of M = N - D_m in base f+1 */
  int64_t offset[33];   /* O_k */
  int64_t missing;      /* M */
  int64_t digit_sum;    /* s */
} plan;

static plan plan_of(int32_t n, int64_t ways) {
  plan s = {ways, 0, {1}, {0}, {0}, 0, 0};
  while (s.distance[s.full] <= n / (ways + 1)) {
    s.distance[s.full + 1] = s.distance[s.full] * (ways + 1);
    s.full++;
  }
  s.missing = n - s.distance[s.full];
  for (int k = 0; k <= s.full; k++) {
    s.digit[k] = s.missing / s.distance[k] % (ways + 1);
    s.digit_sum += s.digit[k];
  }
  s.offset[s.full] = s.distance[s.full];
  for (int k = s.full - 1; k >= 0; k--)
    s.offset[k] = s.offset[k + 1] + s.digit[k + 1] * s.distance[k + 1];
  return s;
}

/* Tasks and dependencies of one rank (every rank has the same). */
static void count_per_rank(const plan *s, int64_t *tasks, int64_t *dependencies) {
  int64_t f = s->ways, t = 0, d = 0;
  for (int k = 0; k < s->full; k++) {
    int64_t messages = f + s->digit[k];
    t += 2 * messages + f;
    d += (k > 0 ? 2 * messages : 0) + messages + 1 + 2 * (f - 1);
  }
  if (s->missing > 0) {
    int64_t last = s->digit[s->full];
    t += 2 * last + s->digit_sum;
    d += (s->full > 0 ? 2 * last : 0) + (last > 0 ? last : 1) + 1 + 2 * (s->digit_sum - 1);
  }
  *tasks = t, *dependencies = d;
}

typedef struct builder {
  fs_program *p;
  const fs_generator_options *o;
  plan s;
  int32_t *value; /* per rank: its last reduce, or -1 */
  int32_t *early; /* per rank: the temporaries kept for the last round */
  int64_t early_per_rank;
  int32_t *kept; /* per rank: how many of them so far */
  int failed;
} builder;

static int32_t modulo(int64_t a, int32_t n) { return (int32_t)(((a % n) + n) % n); }

static void depend(builder *b, int32_t task, int32_t on) {
  if (!b->failed && on >= 0) b->failed = fs_program_depend(b->p, task, on, FS_AFTER_END) != 0;
}

static int32_t message(builder *b, fs_task_kind kind, int32_t rank, int64_t peer, int32_t label) {
  int32_t t = fs_gen_message(b->p, kind, rank, modulo(peer, b->o->ranks), b->o->size, label);
  b->failed |= t < 0 ||
               fs_gen_flow_range(b->o, t, kind == FS_SEND ? FS_FLOW_READ : FS_FLOW_TEMP, 0, 1) != 0;
  if (t >= 0) depend(b, t, b->value[rank]);
  return t;
}

/* Combines temporary `temp` after `previous` (-1: nothing) and `sends`. */
static int32_t combine(builder *b, int32_t rank, int32_t temp, int32_t previous, int32_t first_send,
                       int64_t sends, int32_t label) {
  int32_t t = fs_gen_reduce(b->p, rank, label, b->o);
  b->failed |= t < 0 || fs_gen_flow_range(b->o, t, FS_FLOW_COMBINE, 0, 1) != 0;
  if (t < 0) return -1;
  depend(b, t, previous);
  for (int64_t j = 0; j < sends; j++) depend(b, t, first_send + (int32_t)j);
  depend(b, t, temp);
  return t;
}

/* Round k < m for one rank: f ordinary and c_k early messages each way,
 * then f reduces of the ordinary temporaries. */
static void full_round(builder *b, int k, int32_t r, int32_t label) {
  const plan *s = &b->s;
  int64_t f = s->ways, d = s->distance[k];
  int32_t first_recv = b->p->tasks;
  for (int64_t j = 1; j <= f; j++) message(b, FS_RECV, r, r - j * d, label);
  for (int64_t i = 0; i < s->digit[k]; i++) {
    int32_t t = message(b, FS_RECV, r, r - s->offset[k] - i * d, label);
    b->early[r * b->early_per_rank + b->kept[r]++] = t;
  }
  int32_t first_send = b->p->tasks;
  for (int64_t j = 1; j <= f; j++) message(b, FS_SEND, r, r + j * d, label);
  for (int64_t i = 0; i < s->digit[k]; i++) message(b, FS_SEND, r, r + s->offset[k] + i * d, label);
  if (b->failed) return;
  int32_t previous = combine(b, r, first_recv, -1, first_send, f + s->digit[k], label);
  for (int64_t j = 1; j < f && !b->failed; j++)
    previous = combine(b, r, first_recv + (int32_t)j, previous, 0, 0, label);
  b->value[r] = previous;
}

/* The last round for one rank: c_m ordinary messages each way, then the
 * combines of the early temporaries and of the c_m received partials. */
static void last_round(builder *b, int32_t r, int32_t label) {
  const plan *s = &b->s;
  int64_t last = s->digit[s->full], d = s->distance[s->full];
  int32_t first_recv = b->p->tasks;
  for (int64_t j = 1; j <= last; j++) message(b, FS_RECV, r, r - j * d, label);
  int32_t first_send = b->p->tasks;
  for (int64_t j = 1; j <= last; j++) message(b, FS_SEND, r, r + j * d, label);
  if (b->failed) return;
  int32_t previous = last > 0 ? -1 : b->value[r];
  int64_t sends = last;
  for (int32_t e = 0; e < b->kept[r] && !b->failed; e++, sends = 0)
    previous =
        combine(b, r, b->early[r * b->early_per_rank + e], previous, first_send, sends, label);
  for (int64_t j = 0; j < last && !b->failed; j++, sends = 0)
    previous = combine(b, r, first_recv + (int32_t)j, previous, first_send, sends, label);
}

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (o->ways < 0) return fs_error_set(err, "%s: --ways must be at least 1, not %d", NAME, o->ways);
  return 0;
}

fs_program *fs_generate_allreduce_dissemination(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  plan s = plan_of(n, o->ways ? o->ways : 1);
  int64_t rank_tasks, rank_dependencies;
  count_per_rank(&s, &rank_tasks, &rank_dependencies);
  int64_t tasks = rank_tasks > FS_MAX_TASKS / n ? INT64_MAX : rank_tasks * n;
  int64_t dependencies = tasks == INT64_MAX ? 0 : rank_dependencies * n;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  builder b =
      {p, o, s, malloc((size_t)n * 4), NULL, s.digit_sum - s.digit[s.full], calloc((size_t)n, 4),
       0};
  b.early = malloc((size_t)(n * b.early_per_rank + 1) * 4);
  b.failed = !b.value || !b.early || !b.kept;
  b.failed |= fs_gen_flow_begin(o, FS_COLLECTIVE_ALLREDUCE, 0, 1, o->size) != 0;
  for (int32_t r = 0; r < n && !b.failed; r++) b.value[r] = -1;
  int32_t labels[34];
  b.failed |= fs_gen_numbered_labels(p, "round", s.full + (s.missing > 0), labels) != 0;
  for (int k = 0; k < s.full && !b.failed; k++)
    for (int32_t r = 0; r < n && !b.failed; r++) full_round(&b, k, r, labels[k]);
  for (int32_t r = 0; r < n && s.missing > 0 && !b.failed; r++) last_round(&b, r, labels[s.full]);
  free(b.value), free(b.early), free(b.kept);
  return fs_gen_finish_options(NAME, p, tasks, dependencies, b.failed, o, err);
}
