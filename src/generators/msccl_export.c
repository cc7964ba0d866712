/* msccl_export.c: see msccl_export.h. The program's sends and receives
 * (a receive with the combine of its temporary) become ops; ops get their
 * tbs, then levels over the graph of dependencies and messages (Kahn's),
 * then an order per tb; the chunks each op touches are found walking the
 * ops in that order (a race-free flow orders every write of a block with
 * its other accesses, so the walk sees what the run would); last, the
 * steps are laid out tb by tb with their nops and dependencies. */
#include "generators/msccl_export.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/msccl_writer.h"
#include "generators/msccl_flow.h"

typedef struct op {
  int32_t task, combine; /* the send or recv, and the compute fused into it (-1) */
  int32_t rank, cpu, peer;
  uint8_t type;                        /* FS_MSCCL_S, R or RRC */
  int32_t tb, level, match, pos, step; /* step: its index in m->step */
  uint8_t copied; /* touches a block copied from the input first (waits for the copy) */
  int32_t cnt;
  uint8_t srcbuf, dstbuf;
  int32_t srcoff, dstoff;
} op;

typedef struct tb_info {
  int32_t rank, cpu, send, recv;
  int32_t count, first; /* its ops in order[first .. first+count) */
} tb_info;

typedef struct copy_run {
  int32_t rank, from, to, cnt, pre, index; /* pre: before everything (else at the end) */
} copy_run;

typedef struct exporter {
  const fs_program *p;
  const fs_data_flow *flow;
  fs_error *err;
  fs_msccl_coll coll;
  int32_t n, chunks, per; /* ranks, nchunksperloop, chunks of a rank's block */
  int64_t chunk;          /* bytes of a chunk */
  int proto;
  uint32_t *pred_at; /* predecessors of each task (inverse CSR) */
  uint32_t *pred;
  int32_t *op_of; /* per task: its op, -1 */
  op *ops;
  int32_t op_count;
  tb_info *tbs;
  int32_t tb_count;
  int32_t *order;                /* ops by (level, sends first, task) */
  int32_t *tb_order;             /* ops tb by tb, each tb's in order */
  uint8_t *written;              /* (rank, block) bits */
  uint8_t *copied;               /* (rank, block) bits: copied from the input before anything */
  int32_t *first_tb, *pre_steps; /* per rank: its first data tb (-1), its leading copies */
  copy_run *copies;
  int32_t copy_count, copy_capacity;
} exporter;

static int FS_PRINTF(3, 4) refuse(exporter *x, int32_t task, const char *format, ...) {
  char why[700];
  va_list args;
  va_start(args, format);
  vsnprintf(why, sizeof why, format, args);
  va_end(args);
  if (task < 0) return fs_error_set(x->err, "cannot write as MSCCL XML: %s", why);
  return fs_error_set(x->err, "cannot write as MSCCL XML: task %d (%s on rank %d): %s", task,
                      fs_task_kind_name((fs_task_kind)x->p->kind[task]), x->p->rank[task], why);
}

static int out_of_memory(exporter *x) {
  return fs_error_set(x->err, "out of memory writing %d tasks as MSCCL XML", x->p->tasks);
}

static const int32_t *blocks_of(const exporter *x, int32_t t) {
  return x->flow->block + x->flow->block_at[t];
}
static int32_t block_count(const exporter *x, int32_t t) {
  return t < x->flow->tasks ? x->flow->block_count[t] : 0;
}

/* ---- the collective and its chunks ---- */

static int collective(exporter *x) {
  const fs_data_flow *f = x->flow;
  static const int colls[] = {
      [FS_COLLECTIVE_BCAST] = FS_MSCCL_BROADCAST + 1,
      [FS_COLLECTIVE_REDUCE] = FS_MSCCL_REDUCE + 1,
      [FS_COLLECTIVE_ALLREDUCE] = FS_MSCCL_ALLREDUCE + 1,
      [FS_COLLECTIVE_SCATTER] = FS_MSCCL_SCATTER + 1,
      [FS_COLLECTIVE_GATHER] = FS_MSCCL_GATHER + 1,
      [FS_COLLECTIVE_ALLGATHER] = FS_MSCCL_ALLGATHER + 1,
      [FS_COLLECTIVE_ALLTOALL] = FS_MSCCL_ALLTOALL + 1,
      [FS_COLLECTIVE_REDUCE_SCATTER] = FS_MSCCL_REDUCESCATTER + 1,
  };
  if (f->collective == FS_COLLECTIVE_NONE)
    return refuse(x, -1,
                  "its data flow names no collective (a reference pattern whose blocks are not "
                  "tracked), so its messages have no MSCCL chunks");
  if ((unsigned)f->collective > FS_COLLECTIVE_LAST || !colls[f->collective])
    return refuse(x, -1, "MSCCL has no %s", fs_collective_name(f->collective));
  x->coll = (fs_msccl_coll)(colls[f->collective] - 1);
  int rooted = x->coll == FS_MSCCL_BROADCAST || x->coll == FS_MSCCL_REDUCE ||
               x->coll == FS_MSCCL_GATHER || x->coll == FS_MSCCL_SCATTER;
  if (rooted && f->root != 0)
    return refuse(x, -1,
                  "its root is %d; an MSCCL algorithm names no root (rank 0 is): use --root 0",
                  f->root);
  if (x->n > FS_MSCCL_MAX_GPUS)
    return refuse(x, -1, "%d ranks, more than MSCCL's %d GPUs", x->n, FS_MSCCL_MAX_GPUS);
  if ((int64_t)x->n * f->blocks > FS_MSCCL_EXPORT_MAX_PAIRS)
    return refuse(x, -1, "%d ranks of %d blocks, more than %lld (rank, block) pairs", x->n,
                  f->blocks, (long long)FS_MSCCL_EXPORT_MAX_PAIRS);
  x->chunks = x->coll == FS_MSCCL_ALLTOALL ? x->n : f->blocks;
  if (x->coll == FS_MSCCL_ALLTOALL && f->blocks != x->n * x->n)
    return refuse(x, -1, "an alltoall of %d blocks, not ranks x ranks", f->blocks);
  int by_rank = x->coll == FS_MSCCL_ALLGATHER || x->coll == FS_MSCCL_GATHER ||
                x->coll == FS_MSCCL_REDUCESCATTER || x->coll == FS_MSCCL_SCATTER;
  if (by_rank && f->blocks % x->n)
    return refuse(x, -1, "%d blocks do not split into the %d ranks' blocks", f->blocks, x->n);
  x->per = by_rank || x->coll == FS_MSCCL_ALLTOALL ? x->chunks / x->n : x->chunks;
  if (x->chunks > FS_MSCCL_MAX_CHUNKS)
    return refuse(x, -1, "%d chunks, more than MSCCL's %d", x->chunks, FS_MSCCL_MAX_CHUNKS);
  if (!f->block_size) return refuse(x, -1, "its generator gives no block sizes");
  x->chunk = f->block_size[0];
  for (int32_t b = 0; b < f->blocks; b++)
    if (f->block_size[b] != x->chunk || x->chunk <= 0)
      return refuse(x, -1,
                    "its blocks differ in size (block 0 has %lld bytes, block %d %lld) or are "
                    "empty; MSCCL's chunks are equal: give a --size that splits evenly (NCCL's "
                    "rings: "
                    "or --slices 1)",
                    (long long)x->chunk, b, (long long)f->block_size[b]);
  return 0;
}

/* Where rank r holds block b before anything writes it; 0: nowhere. */
static int initial(const exporter *x, int32_t r, int32_t b, uint8_t *buf, int32_t *off) {
  int32_t n = x->n;
  *buf = FS_MSCCL_INPUT;
  switch (x->coll) {
    case FS_MSCCL_ALLREDUCE:
    case FS_MSCCL_REDUCE:
    case FS_MSCCL_REDUCESCATTER: *off = b; return 1;
    case FS_MSCCL_ALLGATHER:
    case FS_MSCCL_GATHER: *off = b - r * x->per; return b / x->per == r;
    case FS_MSCCL_BROADCAST:
    case FS_MSCCL_SCATTER: *off = b; return r == 0;
    default: *off = b % n; return b / n == r; /* alltoall */
  }
}

/* Where rank r keeps block b once written: its output chunk when the
 * collective leaves the block there (*result 1), else scratch chunk b. */
static void home(const exporter *x, int32_t r, int32_t b, uint8_t *buf, int32_t *off, int *result) {
  int32_t n = x->n;
  switch (x->coll) {
    case FS_MSCCL_ALLREDUCE:
    case FS_MSCCL_ALLGATHER:
    case FS_MSCCL_BROADCAST: *result = 1, *off = b; break;
    case FS_MSCCL_REDUCE:
    case FS_MSCCL_GATHER: *result = r == 0, *off = b; break;
    case FS_MSCCL_REDUCESCATTER:
    case FS_MSCCL_SCATTER: *result = b / x->per == r, *off = b - r * x->per; break;
    default: *result = b % n == r, *off = b / n; break; /* alltoall */
  }
  *buf = FS_MSCCL_OUTPUT;
  if (!*result) *buf = FS_MSCCL_SCRATCH, *off = b;
}

static int32_t input_chunks(const exporter *x) {
  int per_rank = x->coll == FS_MSCCL_ALLGATHER || x->coll == FS_MSCCL_GATHER;
  return per_rank ? x->per : x->chunks;
}
static int32_t output_chunks(const exporter *x) {
  int per_rank = x->coll == FS_MSCCL_REDUCESCATTER || x->coll == FS_MSCCL_SCATTER;
  return per_rank ? x->per : x->chunks;
}

/* ---- tasks to ops ---- */

static int predecessors(exporter *x) {
  const fs_program *p = x->p;
  x->pred_at = calloc((size_t)p->tasks + 2, sizeof *x->pred_at);
  x->pred = malloc(((size_t)p->dependencies + 1) * sizeof *x->pred);
  if (!x->pred_at || !x->pred) return out_of_memory(x);
  for (int32_t t = 0; t < p->tasks; t++)
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++)
      x->pred_at[FS_EDGE_TASK(p->successor[e]) + 2]++;
  for (int32_t t = 0; t < p->tasks; t++) x->pred_at[t + 2] += x->pred_at[t + 1];
  for (int32_t t = 0; t < p->tasks; t++)
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
      int32_t s = FS_EDGE_TASK(p->successor[e]);
      x->pred[x->pred_at[s + 1]++] = (uint32_t)t | (p->successor[e] & FS_EDGE_START);
    }
  return 0;
}

static int protocol_of(exporter *x, int32_t t) {
  int proto = x->p->protocol ? x->p->protocol[t] : FS_PROTOCOL_NONE;
  if (proto == FS_PROTOCOL_NONE) proto = FS_PROTOCOL_SIMPLE;
  if (x->proto && x->proto != proto)
    return refuse(x, t, "its protocol %s differs from the others' %s (an algorithm has one proto=)",
                  fs_protocol_name(proto), fs_protocol_name(x->proto));
  x->proto = proto;
  return 0;
}

/* The checks of one transfer: whole blocks, a definite peer and tag. */
static int check_transfer(exporter *x, int32_t t) {
  const fs_program *p = x->p;
  int32_t count = block_count(x, t);
  if (p->peer[t] < 0 || (p->tag && p->tag[t] < 0))
    return refuse(x, t, "it receives from any source or with any tag (MSCCL names the peer)");
  if (p->stride && p->stride[t]) return refuse(x, t, "its data is strided");
  if (count < 1 || p->value[t] != count * x->chunk)
    return refuse(x, t, "its %lld bytes are not its %d blocks of %lld bytes",
                  (long long)p->value[t], count, (long long)x->chunk);
  if (count > FS_MSCCL_MAX_CNT)
    return refuse(x, t, "it carries %d blocks, more than the %d chunks an MSCCL step moves", count,
                  FS_MSCCL_MAX_CNT);
  return protocol_of(x, t);
}

/* The combine that consumes temporary recv t (its only such successor). */
static int32_t combine_of(exporter *x, int32_t t) {
  const fs_program *p = x->p;
  int32_t found = -1;
  for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
    int32_t s = FS_EDGE_TASK(p->successor[e]);
    if (p->kind[s] != FS_COMPUTE || fs_data_flow_action(x->flow, s) != FS_FLOW_COMBINE) continue;
    if (found >= 0 && found != s)
      return refuse(x, t, "two computes (tasks %d and %d) combine what it receives", found, s), -2;
    found = s;
  }
  if (found < 0) return refuse(x, t, "no compute combines what it receives"), -2;
  return found;
}

static int check_combine(exporter *x, int32_t c, int32_t recv) {
  int32_t n = block_count(x, c);
  if (n != block_count(x, recv) || memcmp(blocks_of(x, c), blocks_of(x, recv), (size_t)n * 4))
    return refuse(x, c, "it combines other blocks than the message (task %d) carries", recv);
  for (uint32_t e = x->pred_at[c]; e < x->pred_at[c + 1]; e++) {
    int32_t q = (int32_t)(x->pred[e] & ~FS_EDGE_START);
    if (q != recv && x->p->kind[q] == FS_RECV && fs_data_flow_action(x->flow, q) == FS_FLOW_TEMP)
      return refuse(x, c, "it combines two messages (tasks %d and %d); an MSCCL step reduces one",
                    recv, q);
  }
  return 0;
}

/* One op per send and per receive (a temporary's with its combine). */
static int make_ops(exporter *x) {
  const fs_program *p = x->p;
  x->op_of = malloc(((size_t)p->tasks + 1) * sizeof *x->op_of);
  x->ops = malloc(((size_t)p->tasks + 1) * sizeof *x->ops);
  if (!x->op_of || !x->ops) return out_of_memory(x);
  for (int32_t t = 0; t < p->tasks; t++) x->op_of[t] = -1;
  for (int32_t t = 0; t < p->tasks; t++) {
    int kind = p->kind[t], action = fs_data_flow_action(x->flow, t);
    if (p->flags[t] & FS_HAS_ANY)
      return refuse(x, t, "it waits for any %d of its dependencies", p->need[t]);
    if (kind == FS_START && p->value[t] == 0) continue; /* a start of no skew: nothing */
    if ((kind == FS_SEND || kind == FS_RECV) && action == FS_FLOW_NONE && p->value[t] == 0)
      continue; /* a signal of no data (NCCL's FIFO credits): MSCCL's FIFOs have their own */
    if (kind == FS_COMPUTE) {
      if (action != FS_FLOW_COMBINE)
        return refuse(x, t,
                      "a compute that combines no received data (MSCCL's steps only move, "
                      "reduce and copy chunks)");
      continue; /* with its recv */
    }
    if (kind != FS_SEND && kind != FS_RECV)
      return refuse(x, t, "MSCCL has no %s (a thread block sends, receives, reduces and copies)",
                    fs_task_kind_name((fs_task_kind)kind));
    if (kind == FS_SEND && action != FS_FLOW_READ)
      return refuse(x, t, "a send that reads no blocks");
    if (kind == FS_RECV && action != FS_FLOW_WRITE && action != FS_FLOW_TEMP &&
        action != FS_FLOW_RECV_COMBINE)
      return refuse(x, t, "a recv that stores no blocks");
    if (check_transfer(x, t)) return -1;
    int32_t combine = -1;
    if (action == FS_FLOW_TEMP &&
        ((combine = combine_of(x, t)) < -1 || check_combine(x, combine, t)))
      return -1;
    op *o = &x->ops[x->op_count];
    *o = (op){.task = t,
              .combine = combine,
              .rank = p->rank[t],
              .cpu = p->cpu ? p->cpu[t] : 0,
              .peer = p->peer[t],
              .match = -1,
              .cnt = block_count(x, t)};
    o->type = kind == FS_SEND ? FS_MSCCL_S : action == FS_FLOW_WRITE ? FS_MSCCL_R : FS_MSCCL_RRC;
    if (o->cpu >= FS_MSCCL_MAX_CHANNELS)
      return refuse(x, t, "it runs on CPU %d; MSCCL has %d channels", o->cpu,
                    FS_MSCCL_MAX_CHANNELS);
    x->op_of[t] = x->op_count;
    if (combine >= 0) {
      if (x->op_of[combine] >= 0) return refuse(x, combine, "it combines two messages");
      x->op_of[combine] = x->op_count;
    }
    x->op_count++;
  }
  for (int32_t t = 0; t < p->tasks; t++)
    if (x->op_of[t] < 0 && p->kind[t] == FS_COMPUTE)
      return refuse(x, t, "a compute that combines no received message (MSCCL reduces on receipt)");
  return 0;
}

/* ---- messages ---- */

typedef struct end {
  int32_t from, to, tag, task;
} end;

static int end_order(const void *a, const void *b) {
  const end *x = a, *y = b;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  if (x->to != y->to) return x->to < y->to ? -1 : 1;
  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  return (x->task > y->task) - (x->task < y->task);
}

/* Pairs sends with recvs as the program does: per (sender, receiver,
 * tag), in program order. */
static int match_messages(exporter *x) {
  const fs_program *p = x->p;
  end *sends = malloc(((size_t)x->op_count + 1) * sizeof *sends);
  end *recvs = malloc(((size_t)x->op_count + 1) * sizeof *recvs);
  int32_t ns = 0, nr = 0, status = 0;
  if (!sends || !recvs) status = out_of_memory(x);
  for (int32_t i = 0; !status && i < x->op_count; i++) {
    int32_t t = x->ops[i].task, tag = p->tag ? p->tag[t] : 0;
    if (p->kind[t] == FS_SEND)
      sends[ns++] = (end){p->rank[t], p->peer[t], tag, t};
    else
      recvs[nr++] = (end){p->peer[t], p->rank[t], tag, t};
  }
  if (!status) {
    qsort(sends, (size_t)ns, sizeof *sends, end_order);
    qsort(recvs, (size_t)nr, sizeof *recvs, end_order);
  }
  for (int32_t i = 0; !status && i < ns && i < nr; i++) {
    const end *s = &sends[i], *r = &recvs[i];
    if (s->from != r->from || s->to != r->to || s->tag != r->tag)
      status = refuse(x, end_order(s, r) < 0 ? s->task : r->task, "no message matches it");
    else if (block_count(x, s->task) != block_count(x, r->task) ||
             memcmp(blocks_of(x, s->task), blocks_of(x, r->task),
                    (size_t)block_count(x, s->task) * 4))
      status =
          refuse(x, r->task, "it receives other blocks than its send (task %d) sends", s->task);
    else if (x->ops[x->op_of[s->task]].cpu != x->ops[x->op_of[r->task]].cpu)
      status = refuse(x, r->task,
                      "it runs on CPU %d, its send (task %d) on CPU %d; an MSCCL connection is one "
                      "channel at both ends",
                      x->ops[x->op_of[r->task]].cpu, s->task, x->ops[x->op_of[s->task]].cpu);
    else
      x->ops[x->op_of[s->task]].match = x->op_of[r->task],
      x->ops[x->op_of[r->task]].match = x->op_of[s->task];
  }
  if (!status && ns != nr) {
    const end *left = ns > nr ? &sends[nr] : &recvs[ns];
    status = refuse(x, left->task, "no message matches it");
  }
  free(sends), free(recvs);
  return status;
}

/* ---- thread blocks ---- */

static int by_rank_cpu_peer(const void *a, const void *b, void *ops_) {
  const op *ops = ops_, *x = &ops[*(const int32_t *)a], *y = &ops[*(const int32_t *)b];
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  if (x->cpu != y->cpu) return x->cpu < y->cpu ? -1 : 1;
  if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
  return (x->task > y->task) - (x->task < y->task);
}

/* A tiny insertion-free merge sort with a context (qsort has none). */
static void sort_ops(int32_t *a, int32_t *scratch, int32_t n, void *ctx,
                     int (*cmp)(const void *, const void *, void *)) {
  if (n < 2) return;
  int32_t h = n / 2;
  sort_ops(a, scratch, h, ctx, cmp);
  sort_ops(a + h, scratch, n - h, ctx, cmp);
  int32_t i = 0, j = h, k = 0;
  while (i < h && j < n) scratch[k++] = cmp(&a[j], &a[i], ctx) < 0 ? a[j++] : a[i++];
  while (i < h) scratch[k++] = a[i++];
  while (j < n) scratch[k++] = a[j++];
  memcpy(a, scratch, (size_t)n * sizeof *a);
}

/* One tb per (rank, CPU) with one send and one recv peer, else one per
 * (rank, CPU, peer). */
static int assign_tbs(exporter *x, int32_t *sorted, int32_t *scratch) {
  for (int32_t i = 0; i < x->op_count; i++) sorted[i] = i;
  sort_ops(sorted, scratch, x->op_count, x->ops, by_rank_cpu_peer);
  x->tbs = malloc(((size_t)x->op_count + 1) * sizeof *x->tbs);
  if (!x->tbs) return out_of_memory(x);
  for (int32_t i = 0; i < x->op_count;) {
    const op *head = &x->ops[sorted[i]];
    int32_t end = i, send = -1, recv = -1, split = 0;
    while (end < x->op_count && x->ops[sorted[end]].rank == head->rank &&
           x->ops[sorted[end]].cpu == head->cpu)
      end++;
    for (int32_t j = i; j < end; j++) {
      const op *o = &x->ops[sorted[j]];
      int32_t *peer = o->type == FS_MSCCL_S ? &send : &recv;
      if (*peer >= 0 && *peer != o->peer) split = 1;
      *peer = o->peer;
    }
    for (int32_t j = i; j < end; j++) {
      op *o = &x->ops[sorted[j]];
      int fresh = j == i || (split && o->peer != x->ops[sorted[j - 1]].peer);
      if (fresh) {
        int32_t own = 0;
        for (int32_t t = x->tb_count - 1; t >= 0 && x->tbs[t].rank == o->rank; t--) own++;
        if (own == FS_MSCCL_MAX_TBS)
          return refuse(x, o->task, "rank %d needs more than MSCCL's %d thread blocks", o->rank,
                        FS_MSCCL_MAX_TBS);
        x->tbs[x->tb_count++] =
            (tb_info){o->rank, o->cpu, split ? -1 : send, split ? -1 : recv, 0, 0};
      }
      tb_info *tb = &x->tbs[x->tb_count - 1];
      if (split) *(o->type == FS_MSCCL_S ? &tb->send : &tb->recv) = o->peer;
      o->tb = x->tb_count - 1;
      tb->count++;
    }
    i = end;
  }
  return 0;
}

/* ---- levels and order ---- */

typedef struct edges {
  int32_t *at, *to;
} edges;

/* Calls visit(x, from, to, ctx) for each edge of the op graph: the
 * dependencies between ops and each message; -1 on a refused dependency. */
static int each_edge(exporter *x, int (*visit)(exporter *, int32_t, int32_t, void *), void *ctx) {
  const fs_program *p = x->p;
  for (int32_t i = 0; i < x->op_count; i++) {
    const op *o = &x->ops[i];
    int32_t tasks[2] = {o->task, o->combine};
    for (int k = 0; k < 2 && tasks[k] >= 0; k++)
      for (uint32_t e = x->pred_at[tasks[k]]; e < x->pred_at[tasks[k] + 1]; e++) {
        int32_t q = (int32_t)(x->pred[e] & ~FS_EDGE_START);
        if (x->pred[e] & FS_EDGE_START)
          return refuse(x, tasks[k], "it waits for the start of task %d (MSCCL waits for ends)", q);
        if (p->rank[q] != p->rank[tasks[k]])
          return refuse(x, tasks[k],
                        "it waits for task %d of rank %d (across GPUs only messages order steps)",
                        q, p->rank[q]);
        if (x->op_of[q] < 0) continue; /* a start of no skew */
        if (x->op_of[q] != i && visit(x, x->op_of[q], i, ctx)) return -1;
      }
    if (o->type == FS_MSCCL_S && visit(x, i, o->match, ctx)) return -1;
  }
  return 0;
}

static int count_edge(exporter *x, int32_t from, int32_t to, void *ctx) {
  (void)x, (void)to;
  ((edges *)ctx)->at[from + 2]++;
  return 0;
}
static int put_edge(exporter *x, int32_t from, int32_t to, void *ctx) {
  (void)x;
  edges *g = ctx;
  g->to[g->at[from + 1]++] = to;
  return 0;
}

static int by_order(const void *a, const void *b, void *ops_) {
  const op *ops = ops_, *x = &ops[*(const int32_t *)a], *y = &ops[*(const int32_t *)b];
  if (x->level != y->level) return x->level < y->level ? -1 : 1;
  int xs = x->type != FS_MSCCL_S, ys = y->type != FS_MSCCL_S;
  if (xs != ys) return xs - ys;
  return (x->task > y->task) - (x->task < y->task);
}

/* Levels by Kahn's algorithm; then every op in x->order. */
static int levels(exporter *x, int32_t *queue, int32_t *scratch) {
  int32_t n = x->op_count;
  edges g = {calloc((size_t)n + 2, sizeof *g.at), NULL};
  int32_t *indegree = calloc((size_t)n + 1, sizeof *indegree);
  int status = !g.at || !indegree ? out_of_memory(x) : each_edge(x, count_edge, &g);
  for (int32_t i = 2; !status && i <= n + 1; i++) g.at[i] += g.at[i - 1];
  if (!status && !(g.to = malloc(((size_t)g.at[n + 1] + 1) * sizeof *g.to)))
    status = out_of_memory(x);
  if (!status) status = each_edge(x, put_edge, &g);
  int32_t placed = 0;
  for (int32_t i = 0; !status && i < n; i++) {
    x->ops[i].level = 0;
    for (int32_t e = g.at[i]; e < g.at[i + 1]; e++) indegree[g.to[e]]++;
  }
  for (int32_t i = 0; !status && i < n; i++)
    if (!indegree[i]) queue[placed++] = i;
  for (int32_t h = 0; !status && h < placed; h++)
    for (int32_t e = g.at[queue[h]]; e < g.at[queue[h] + 1]; e++) {
      op *o = &x->ops[g.to[e]];
      if (o->level < x->ops[queue[h]].level + 1) o->level = x->ops[queue[h]].level + 1;
      if (--indegree[g.to[e]] == 0) queue[placed++] = g.to[e];
    }
  if (!status && placed < n) {
    char *seen = calloc((size_t)n + 1, 1);
    int32_t stuck = 0;
    for (int32_t h = 0; seen && h < placed; h++) seen[queue[h]] = 1;
    while (seen && stuck < n && (seen[stuck] || x->ops[stuck].combine < 0)) stuck++;
    free(seen);
    status = refuse(x, stuck < n ? x->ops[stuck].task : x->ops[0].task,
                    "its receive and the compute that combines it cannot be one MSCCL step "
                    "(rrc): another task waits for the receive and the compute waits for that "
                    "task");
  }
  free(g.at), free(g.to), free(indegree);
  if (status) return status;
  for (int32_t i = 0; i < n; i++) x->order[i] = i;
  sort_ops(x->order, scratch, n, x->ops, by_order);
  return 0;
}

/* Each tb's ops in order: tb_order tb by tb, pos within the tb. */
static int place(exporter *x) {
  x->tb_order = malloc(((size_t)x->op_count + 1) * sizeof *x->tb_order);
  if (!x->tb_order) return out_of_memory(x);
  int32_t at = 0;
  for (int32_t t = 0; t < x->tb_count; t++)
    x->tbs[t].first = at, at += x->tbs[t].count, x->tbs[t].count = 0;
  for (int32_t k = 0; k < x->op_count; k++) {
    op *o = &x->ops[x->order[k]];
    tb_info *tb = &x->tbs[o->tb];
    o->pos = tb->count;
    x->tb_order[tb->first + tb->count++] = x->order[k];
  }
  return 0;
}

/* The n-th send of each tb is received by the n-th receive of the tb its
 * connection leads to (MSCCL's FIFO): it must be the matched recv. */
static int check_fifo(exporter *x) {
  int32_t *received = calloc((size_t)x->tb_count + 1, sizeof *received);
  if (!received) return out_of_memory(x);
  int status = 0;
  for (int32_t k = 0; k < x->op_count && !status; k++) {
    const op *s = &x->ops[x->order[k]];
    if (s->type != FS_MSCCL_S) continue;
    const op *r = &x->ops[s->match];
    const tb_info *tb = &x->tbs[r->tb];
    int32_t n = received[r->tb]++, j = tb->first, seen = -1;
    for (; j < tb->first + tb->count; j++)
      if (x->ops[x->tb_order[j]].type != FS_MSCCL_S && ++seen == n) break;
    if (j == tb->first + tb->count || x->tb_order[j] != s->match)
      status = refuse(x, r->task,
                      "messages from rank %d on channel %d arrive in another order than their "
                      "tags match them (an MSCCL connection is one FIFO)",
                      s->rank, s->cpu);
  }
  free(received);
  return status;
}

/* ---- chunks ---- */

static int bit_of(const uint8_t *bits, const exporter *x, int32_t r, int32_t b) {
  int64_t i = (int64_t)r * x->flow->blocks + b;
  return bits[i >> 3] >> (i & 7) & 1;
}
static void set_bit_of(uint8_t *bits, const exporter *x, int32_t r, int32_t b) {
  int64_t i = (int64_t)r * x->flow->blocks + b;
  bits[i >> 3] = (uint8_t)(bits[i >> 3] | 1u << (i & 7));
}
static int bit(const exporter *x, int32_t r, int32_t b) { return bit_of(x->written, x, r, b); }
static void set_bit(exporter *x, int32_t r, int32_t b) { set_bit_of(x->written, x, r, b); }

/* The place of the op's blocks, as one run of consecutive chunks. */
static int locate(exporter *x, op *o, int32_t t, int current, uint8_t *buf, int32_t *off) {
  const int32_t *b = blocks_of(x, t);
  for (int32_t k = 0; k < o->cnt; k++) {
    if (bit_of(x->copied, x, o->rank, b[k])) o->copied = 1;
    uint8_t kb;
    int32_t ko;
    int result;
    if (current && !bit(x, o->rank, b[k])) {
      if (!initial(x, o->rank, b[k], &kb, &ko))
        return refuse(x, t, "it reads block %d, which rank %d does not hold yet", b[k], o->rank);
    } else {
      home(x, o->rank, b[k], &kb, &ko, &result);
    }
    if (k == 0) *buf = kb, *off = ko;
    if (kb != *buf || ko != *off + k)
      return refuse(x, t,
                    "its blocks are not consecutive chunks of one buffer (an MSCCL step moves cnt "
                    "consecutive chunks)");
  }
  return 0;
}

static int add_copy(exporter *x, int32_t r, int32_t from, int32_t to, int pre) {
  copy_run *last = x->copy_count ? &x->copies[x->copy_count - 1] : NULL;
  if (last && last->rank == r && last->pre == pre && last->from + last->cnt == from &&
      last->to + last->cnt == to && last->cnt < FS_MSCCL_MAX_CNT) {
    last->cnt++;
    return 0;
  }
  if (x->copy_count == x->copy_capacity) {
    int32_t capacity = x->copy_capacity ? 2 * x->copy_capacity : 64;
    copy_run *grown = realloc(x->copies, (size_t)capacity * sizeof *grown);
    if (!grown) return out_of_memory(x);
    x->copies = grown, x->copy_capacity = capacity;
  }
  x->copies[x->copy_count] = (copy_run){r, from, to, 1, pre, x->copy_count};
  x->copy_count++;
  return 0;
}

/* Without a reduction, a block a rank holds and keeps (allgather's own
 * block, the broadcast root's data, alltoall's block to itself) is first
 * copied to its output chunk, and read there: a message then finds its
 * blocks in one buffer (allgather-rd sends its own block with received
 * ones). */
static int copy_first(exporter *x) {
  if (x->coll == FS_MSCCL_ALLREDUCE || x->coll == FS_MSCCL_REDUCE ||
      x->coll == FS_MSCCL_REDUCESCATTER)
    return 0;
  for (int32_t r = 0; r < x->n; r++)
    for (int32_t b = 0; b < x->flow->blocks; b++) {
      uint8_t buf;
      int32_t off, from;
      int result;
      home(x, r, b, &buf, &off, &result);
      if (!result || !initial(x, r, b, &buf, &from)) continue;
      set_bit(x, r, b);
      set_bit_of(x->copied, x, r, b);
      if (add_copy(x, r, from, off, 1)) return -1;
    }
  return 0;
}

static int copy_order(const void *a, const void *b) {
  const copy_run *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  if (x->pre != y->pre) return y->pre - x->pre;
  return (x->index > y->index) - (x->index < y->index);
}

/* The result blocks no task wrote (a reduction on one rank): copied from
 * the input, after the copies that come first, rank by rank. */
static int copies(exporter *x) {
  for (int32_t r = 0; r < x->n; r++)
    for (int32_t b = 0; b < x->flow->blocks; b++) {
      uint8_t buf;
      int32_t off, from;
      int result;
      home(x, r, b, &buf, &off, &result);
      if (!result || bit(x, r, b)) continue;
      if (!initial(x, r, b, &buf, &from))
        return refuse(x, -1, "rank %d ends without block %d (no task brings it)", r, b);
      if (add_copy(x, r, from, off, 0)) return -1;
    }
  if (x->copy_count > 1) qsort(x->copies, (size_t)x->copy_count, sizeof *x->copies, copy_order);
  return 0;
}

static int locate_all(exporter *x) {
  size_t bytes = (size_t)(((int64_t)x->n * x->flow->blocks + 7) / 8) + 1;
  x->written = calloc(bytes, 1);
  x->copied = calloc(bytes, 1);
  if (!x->written || !x->copied) return out_of_memory(x);
  if (copy_first(x)) return -1;
  for (int32_t k = 0; k < x->op_count; k++) {
    op *o = &x->ops[x->order[k]];
    if (o->type == FS_MSCCL_S) {
      if (locate(x, o, o->task, 1, &o->srcbuf, &o->srcoff)) return -1;
      continue;
    }
    if (o->type == FS_MSCCL_RRC && locate(x, o, o->task, 1, &o->srcbuf, &o->srcoff)) return -1;
    if (locate(x, o, o->task, 0, &o->dstbuf, &o->dstoff)) return -1;
    for (int32_t j = 0; j < o->cnt; j++) set_bit(x, o->rank, blocks_of(x, o->task)[j]);
  }
  for (int32_t i = 0; i < x->op_count; i++) { /* unused fields: the peer's place (as msccl-tools) */
    op *o = &x->ops[i], *m = &x->ops[o->match];
    if (o->type == FS_MSCCL_S) o->dstbuf = m->dstbuf, o->dstoff = m->dstoff;
    if (o->type == FS_MSCCL_R) o->srcbuf = m->srcbuf, o->srcoff = m->srcoff;
  }
  return 0;
}

/* ---- laying out the algorithm ---- */

/* The other tbs op i waits for, each by its latest op there, into deps;
 * their count. */
static int32_t other_tbs(exporter *x, int32_t i, int32_t *deps, int32_t max) {
  const op *o = &x->ops[i];
  int32_t n = 0, tasks[2] = {o->task, o->combine};
  for (int k = 0; k < 2 && tasks[k] >= 0; k++)
    for (uint32_t e = x->pred_at[tasks[k]]; e < x->pred_at[tasks[k] + 1]; e++) {
      int32_t q = x->op_of[x->pred[e] & ~FS_EDGE_START], j = 0;
      if (q < 0 || x->ops[q].tb == o->tb) continue;
      while (j < n && (deps[j] < 0 || x->ops[deps[j]].tb != x->ops[q].tb)) j++;
      if (j == n && n < max)
        deps[n++] = q;
      else if (j < n && x->ops[q].pos > x->ops[deps[j]].pos)
        deps[j] = q;
    }
  if (o->copied && x->first_tb[o->rank] != o->tb && n < max) deps[n++] = -1; /* the copies */
  return n;
}

static void fill_step(fs_msccl_step *s, int type, int32_t tb, const op *o) {
  *s = (fs_msccl_step){.type = (uint8_t)type,
                       .srcbuf = FS_MSCCL_INPUT,
                       .dstbuf = FS_MSCCL_OUTPUT,
                       .srcoff = -1,
                       .dstoff = -1,
                       .depid = -1,
                       .deps = -1,
                       .tb = tb,
                       .from = -1,
                       .to = -1};
  if (!o) return;
  s->srcbuf = o->srcbuf, s->srcoff = o->srcoff, s->dstbuf = o->dstbuf, s->dstoff = o->dstoff;
  s->cnt = (uint8_t)o->cnt;
}

static int32_t tb_id(const fs_msccl *m, int32_t global) {
  return global - m->gpu[m->tb[global].gpu].first;
}

/* The copies of rank r from *c on, as cpy steps of tb `global`. */
static void lay_copies(exporter *x, fs_msccl *m, int32_t r, int32_t global, int32_t *c) {
  fs_msccl_tb *tb = &m->tb[global];
  for (; *c < x->copy_count && x->copies[*c].rank == r; ++*c) {
    const copy_run *run = &x->copies[*c];
    fs_msccl_step *s = &m->step[m->steps + tb->count++];
    fill_step(s, FS_MSCCL_CPY, global, NULL);
    s->srcbuf = FS_MSCCL_INPUT, s->srcoff = run->from;
    s->dstbuf = FS_MSCCL_OUTPUT, s->dstoff = run->to, s->cnt = (uint8_t)run->cnt;
    x->pre_steps[r] += run->pre;
  }
}

/* Steps of tb `global`: data tb t's (-1: none) ops with their nops, after
 * the rank's copies when it is the rank's first; from m->steps on. */
static int lay_tb(exporter *x, fs_msccl *m, int32_t r, int32_t t, int32_t global, int32_t *deps,
                  int32_t *c) {
  fs_msccl_tb *tb = &m->tb[global];
  const tb_info *info = t >= 0 ? &x->tbs[t] : NULL;
  *tb = (fs_msccl_tb){-1, -1, 0, m->steps, 0, r, 0};
  if (info) tb->send = info->send, tb->recv = info->recv, tb->chan = info->cpu;
  if (!info || x->first_tb[r] == t) lay_copies(x, m, r, global, c);
  int full = 0;
  for (int32_t k = 0; info && k < info->count && !full; k++) {
    int32_t i = x->tb_order[info->first + k], n = other_tbs(x, i, deps, FS_MSCCL_MAX_TBS);
    if ((full = tb->count + (n ? n : 1) > FS_MSCCL_MAX_STEPS)) break;
    for (int32_t d = 0; d < n; d++) { /* nops, then the step: the last dependency on it */
      fs_msccl_step *s = &m->step[m->steps + tb->count++];
      fill_step(s, d + 1 < n ? FS_MSCCL_NOP : x->ops[i].type, global,
                d + 1 < n ? NULL : &x->ops[i]);
      s->from = deps[d], s->to = -2; /* an op (-1: the copies), resolved by link() */
    }
    if (n == 0) fill_step(&m->step[m->steps + tb->count++], x->ops[i].type, global, &x->ops[i]);
    x->ops[i].step = m->steps + tb->count - 1;
  }
  m->steps += tb->count;
  if (tb->count <= FS_MSCCL_MAX_STEPS && !full) return 0;
  return refuse(x, info ? x->ops[x->tb_order[info->first]].task : -1,
                "%s thread block needs more than MSCCL's %d steps", info ? "its" : "a copy",
                FS_MSCCL_MAX_STEPS);
}

/* depid/deps from the ops lay_tb left (to -2). */
static void link(exporter *x, fs_msccl *m) {
  for (int32_t i = 0; i < m->steps; i++) {
    fs_msccl_step *s = &m->step[i];
    if (s->to != -2) continue;
    int32_t r = m->tb[s->tb].gpu, first = m->gpu[r].first;
    fs_msccl_step *on = s->from >= 0 ? &m->step[x->ops[s->from].step]
                                     : &m->step[m->tb[first].first + x->pre_steps[r] - 1];
    s->from = -1, s->to = -1;
    s->depid = (int16_t)tb_id(m, on->tb);
    s->deps = (int16_t)(on - m->step - m->tb[on->tb].first);
    on->hasdep = 1;
  }
}

static fs_msccl *build(exporter *x, const char *name) {
  fs_msccl *m = calloc(1, sizeof *m);
  int32_t *deps = malloc(FS_MSCCL_MAX_TBS * sizeof *deps);
  x->first_tb = malloc(((size_t)x->n + 1) * sizeof *x->first_tb);
  x->pre_steps = calloc((size_t)x->n + 1, sizeof *x->pre_steps);
  int64_t steps = x->op_count + x->copy_count;
  for (int32_t r = 0; x->first_tb && r < x->n; r++) x->first_tb[r] = -1;
  for (int32_t t = x->tb_count - 1; x->first_tb && t >= 0; t--) x->first_tb[x->tbs[t].rank] = t;
  for (int32_t i = 0; deps && x->first_tb && i < x->op_count; i++)
    steps += other_tbs(x, i, deps, FS_MSCCL_MAX_TBS);
  if (m) {
    m->gpu = calloc((size_t)x->n, sizeof *m->gpu);
    m->tb = malloc(((size_t)x->tb_count + (size_t)x->n + 1) * sizeof *m->tb);
    m->step = malloc(((size_t)steps + 1) * sizeof *m->step);
  }
  if (!m || !deps || !x->first_tb || !x->pre_steps || !m->gpu || !m->tb || !m->step) {
    free(deps), fs_msccl_free(m), out_of_memory(x);
    return NULL;
  }
  snprintf(m->name, sizeof m->name, "%s", name);
  m->proto = x->proto ? x->proto : FS_PROTOCOL_SIMPLE;
  m->coll = x->coll, m->nchunksperloop = x->chunks, m->ngpus = x->n, m->nchannels = 1;
  m->inplace = 0, m->outofplace = 1;
  int32_t t = 0, c = 0, failed = 0;
  for (int32_t r = 0; r < x->n && !failed; r++) {
    fs_msccl_gpu *gpu = &m->gpu[r];
    gpu->chunks[FS_MSCCL_INPUT] = input_chunks(x), gpu->chunks[FS_MSCCL_OUTPUT] = output_chunks(x);
    gpu->first = m->tbs;
    for (; t < x->tb_count && x->tbs[t].rank == r && !failed; t++, gpu->count++) {
      if (x->tbs[t].cpu + 1 > m->nchannels) m->nchannels = x->tbs[t].cpu + 1;
      failed = lay_tb(x, m, r, t, m->tbs++, deps, &c);
    }
    if (!failed && c < x->copy_count && x->copies[c].rank == r) /* copies, no data tb */
      failed = lay_tb(x, m, r, -1, m->tbs++, deps, &c), gpu->count++;
  }
  free(deps);
  if (failed) return fs_msccl_free(m), NULL;
  link(x, m);
  for (int32_t i = 0; i < m->steps; i++) { /* scratch chunks used */
    const fs_msccl_step *s = &m->step[i];
    int32_t *chunks = m->gpu[m->tb[s->tb].gpu].chunks;
    if (s->type == FS_MSCCL_NOP) continue;
    if (s->srcbuf == FS_MSCCL_SCRATCH && chunks[2] < s->srcoff + s->cnt)
      chunks[2] = s->srcoff + s->cnt;
    if (s->dstbuf == FS_MSCCL_SCRATCH && chunks[2] < s->dstoff + s->cnt)
      chunks[2] = s->dstoff + s->cnt;
  }
  return m;
}

static void release(exporter *x) {
  free(x->pred_at), free(x->pred), free(x->op_of), free(x->ops), free(x->tbs), free(x->order);
  free(x->tb_order), free(x->written), free(x->copied), free(x->copies), free(x->first_tb);
  free(x->pre_steps);
}

/* m written and read back by our reader, and its data flow checked (a
 * writer bug, or an order of accesses MSCCL does not keep, is an error
 * here rather than a file that fails later); frees m. */
static fs_msccl *checked(fs_msccl *m, fs_error *err) {
  size_t length;
  char *text = fs_msccl_xml(m, &length), why[600];
  fs_msccl_free(m);
  if (!text) return fs_error_set(err, "out of memory writing MSCCL XML"), NULL;
  fs_error inner;
  fs_msccl *back = fs_msccl_read_memory(text, length, "the written XML", &inner);
  int status = back ? fs_msccl_check_flow(back, why, sizeof why) : FS_MSCCL_FLOW_OK;
  free(text);
  if (!back)
    fs_error_set(err, "cannot write as MSCCL XML: %s", inner.message);
  else if (status == FS_MSCCL_FLOW_WRONG)
    fs_error_set(err,
                 "cannot write as MSCCL XML: its steps would not compute the %s (%s): the "
                 "program orders these accesses in a way its MSCCL steps do not keep",
                 fs_msccl_coll_name(back->coll), why);
  else if (status == FS_MSCCL_FLOW_FAILED)
    fs_error_set(err, "%s", why);
  if (status == FS_MSCCL_FLOW_WRONG || status == FS_MSCCL_FLOW_FAILED)
    fs_msccl_free(back), back = NULL;
  return back;
}

fs_msccl *fs_msccl_from_program(const fs_program *p, const fs_data_flow *flow, const char *name,
                                fs_error *err) {
  exporter x = {.p = p, .flow = flow, .err = err, .n = p->ranks};
  if (p->symmetric || !p->finalized)
    return fs_error_set(err, "cannot write as MSCCL XML: the program is not explicit"), NULL;
  if (flow && flow->failed)
    return fs_error_set(err, "cannot write as MSCCL XML: out of memory recording the data flow"),
           NULL;
  if (!flow || !flow->block_size)
    return fs_error_set(err,
                        "cannot write as MSCCL XML: %s records no data flow (which blocks each "
                        "message carries), so its messages have no MSCCL chunks",
                        name),
           NULL;
  int32_t *a = malloc(((size_t)p->tasks + 1) * sizeof *a);
  int32_t *b = malloc(((size_t)p->tasks + 1) * sizeof *b);
  x.order = malloc(((size_t)p->tasks + 1) * sizeof *x.order);
  fs_msccl *m = NULL;
  int status = !a || !b || !x.order ? out_of_memory(&x) : 0;
  if (!status)
    status = collective(&x) || predecessors(&x) || make_ops(&x) || match_messages(&x) ||
             assign_tbs(&x, a, b) || levels(&x, a, b) || place(&x) || check_fifo(&x) ||
             locate_all(&x) || copies(&x);
  if (!status) m = build(&x, name);
  free(a), free(b);
  release(&x);
  return m ? checked(m, err) : NULL;
}

int fs_msccl_write_algorithm(const fs_msccl *m, fs_output *out, fs_error *err) {
  size_t length;
  char *text = fs_msccl_xml(m, &length);
  if (!text) return fs_error_set(err, "out of memory writing MSCCL XML");
  fs_output_write(out, text, length);
  free(text);
  return 0;
}

int fs_msccl_write_program(const fs_program *p, const fs_data_flow *flow, const char *name,
                           fs_output *out, fs_error *err) {
  fs_msccl *m = fs_msccl_from_program(p, flow, name, err);
  int status = m ? fs_msccl_write_algorithm(m, out, err) : -1;
  fs_msccl_free(m);
  return status;
}
