/* symmetric.h: rank-symmetric programs, where every rank runs the same
 * template of tasks and a task's peer and dependencies are the same
 * function of its rank (r ^ c, r + c mod P: recursive doubling,
 * dissemination). Such a program of P ranks is held as its template: its
 * memory does not grow with P, and the engine's 12 bytes per task are what
 * a run of 2^24 ranks costs (docs/INTERNALS.md, "Rank-symmetric programs").
 *
 * Task ids: the template is `blocks` blocks of `width` tasks; template
 * task k = b * width + j of rank r is task b * P * width + r * width + j.
 * Each block is laid out rank by rank, as the generators lay out their
 * rounds, so a rank-symmetric program and its explicit copy
 * (fs_program_materialize) number their tasks alike.
 *
 * Dependencies: template task k of rank r depends on template task `on` of
 * rank rule(r), at an fs_dependency_point. The rules are bijections of the
 * ranks, so task (on, r') has exactly one successor per such dependency:
 * (k, rule^-1(r')). A task's successors come in the order an explicit
 * program whose tasks add their dependencies in id order has them (start
 * edges, local edges, completion edges, each group by successor id).
 *
 * Limits: P * width and the task count at most FS_MAX_TASKS; at most
 * FS_TEMPLATE_MAX_EDGES successors per template task; xor needs a power of
 * two rank count and c < P; add needs 0 <= c < P.
 *
 * This header is the layout and the arithmetic; program.h builds such
 * programs and reads their tasks (program_symmetric.c). */
#ifndef FS_SYMMETRIC_H
#define FS_SYMMETRIC_H

#include <stdint.h>

/* A rank function: the peer of a task, or where a dependency points. */
enum fs_rank_rule {
  FS_RULE_NONE = 0, /* no peer (peer -1); as a dependency: the same rank */
  FS_RULE_XOR,      /* r ^ c */
  FS_RULE_ADD,      /* (r + c) mod P */
};

#define FS_TEMPLATE_MAX_EDGES 64

/* n / d for 0 <= n < 2^31 by one multiplication: with l = ceil(log2 d),
 * multiplier = ceil(2^(31+l) / d) and shift 31 + l the quotient is exact
 * (Granlund and Montgomery, 1994, theorem 4.2). */
typedef struct fs_divider {
  uint64_t multiplier;
  uint32_t shift;
} fs_divider;

static inline uint32_t fs_divide(const fs_divider *d, uint32_t n) {
  return (uint32_t)((n * d->multiplier) >> d->shift);
}

/* One task of the per-rank template. */
typedef struct fs_template_task {
  int64_t value;    /* program.h's value */
  int32_t need;     /* any=K, or (after finalize) its template dependency count */
  int32_t label;    /* -1: none */
  int32_t tag;      /* send/recv tag */
  int32_t peer;     /* the rule's c */
  int32_t first;    /* its task id on rank 0 (finalize) */
  uint32_t edge_at; /* its successors: edge[edge_at .. (this + 1)->edge_at) (finalize) */
  uint8_t kind, flags, peer_rule, cpu, nic;
  uint8_t sort; /* its successors' order depends on the rank: sorted per use */
} fs_template_task;

/* A template dependency: `task` (of rank rule(r)) is needed by `to` (of
 * rank r), or, once finalized, a successor: `to` of rank rule(r) follows
 * `task` of rank r. point: FS_EDGE_LOCAL, FS_EDGE_START or 0 (program.h). */
typedef struct fs_template_edge {
  int32_t task, to, arg;
  uint32_t point;
  uint8_t rule;
} fs_template_edge;

typedef struct fs_symmetric {
  int32_t ranks, width, blocks, count; /* count = width * blocks template tasks */
  fs_template_task *task;              /* count + 1 (the last: the edges' end) */
  fs_template_edge *edge;
  int32_t edges, edge_capacity;
  int32_t rank_mask;              /* ranks - 1 (xor rules) */
  fs_divider per_block, per_rank; /* by ranks * width, by width */
} fs_symmetric;

/* Template task of task t, and t's rank. */
static inline const fs_template_task *fs_symmetric_split(const fs_symmetric *s, int32_t t,
                                                         int32_t *rank) {
  uint32_t b = fs_divide(&s->per_block, (uint32_t)t);
  uint32_t rest = (uint32_t)t - b * (uint32_t)s->ranks * (uint32_t)s->width;
  uint32_t r = fs_divide(&s->per_rank, rest);
  *rank = (int32_t)r;
  return &s->task[b * (uint32_t)s->width + (rest - r * (uint32_t)s->width)];
}

static inline int32_t fs_rank_rule_apply(const fs_symmetric *s, int rule, int32_t arg, int32_t r) {
  if (rule == FS_RULE_XOR) return r ^ arg;
  if (rule == FS_RULE_ADD) return r + arg < s->ranks ? r + arg : r + arg - s->ranks;
  return r;
}

static inline int32_t fs_symmetric_peer(const fs_symmetric *s, int32_t t) {
  int32_t r;
  const fs_template_task *k = fs_symmetric_split(s, t, &r);
  return k->peer_rule == FS_RULE_NONE ? -1 : fs_rank_rule_apply(s, k->peer_rule, k->peer, r);
}

#endif
