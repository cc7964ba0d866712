/* nccl_selection.c: NCCL 2.30.7's own choice of algorithm, protocol and
 * channels (nccl_selection.h) from its tuning model, and the five selector
 * generators ("allreduce-nccl", ...) that generate it, or NCCL's best
 * among the algorithms fennelsim generates when its pick is one that has
 * no schedule here (NVLS across nodes, which NCCL runs only with CollNet).
 * NVLS on one node is generated (nccl_nvls.c: the NVSwitch is an extra
 * rank), and so are NVLSTree (nccl_nvlstree.c: a switch rank a node) and
 * CollNetDirect and CollNetChain allreduce (nccl_collnet.c: the rails'
 * in-network reducers are extra ranks). */
#include "generators/nccl_selection.h"

#include <stdio.h>

#include "generators/smp_support.h"
#include "platform/nccl_tuning.h"

const char *fs_nccl_selection_version(void) { return "NCCL 2.30.7 (tuning model)"; }

/* The generators of the algorithms fennelsim has, by collective: looked up
 * by name in the registry, so one not built in is a message, not a link
 * failure. NULL: fennelsim does not generate it. */
typedef struct nccl_target {
  fs_nccl_collective collective;
  const char *generator[FS_NCCL_ALGORITHMS];
  int per_rank; /* --size is the per-rank block: nBytes = k * --size */
} nccl_target;

static int target_of(fs_collective c, nccl_target *t) {
  *t = (nccl_target){0};
  switch (c) {
    case FS_COLLECTIVE_ALLREDUCE:
      t->collective = FS_NCCL_ALLREDUCE;
      t->generator[FS_NCCL_RING] = "allreduce-nccl-ring";
      t->generator[FS_NCCL_TREE] = "allreduce-nccl-tree";
      t->generator[FS_NCCL_NVLS] = "allreduce-nccl-nvls";          /* one node only: see decide */
      t->generator[FS_NCCL_NVLS_TREE] = "allreduce-nccl-nvlstree"; /* nccl_nvlstree.c */
      t->generator[FS_NCCL_COLLNET_DIRECT] = "allreduce-nccl-collnet-direct";
      t->generator[FS_NCCL_COLLNET_CHAIN] = "allreduce-nccl-collnet-chain";
      return 0;
    case FS_COLLECTIVE_ALLGATHER:
      t->collective = FS_NCCL_ALLGATHER, t->per_rank = 1;
      t->generator[FS_NCCL_RING] = "allgather-nccl-ring";
      t->generator[FS_NCCL_PAT] = "allgather-nccl-pat";
      return 0;
    case FS_COLLECTIVE_REDUCE_SCATTER:
      t->collective = FS_NCCL_REDUCESCATTER, t->per_rank = 1;
      t->generator[FS_NCCL_RING] = "reduce-scatter-nccl-ring";
      t->generator[FS_NCCL_PAT] = "reduce-scatter-nccl-pat";
      return 0;
    case FS_COLLECTIVE_BCAST:
      t->collective = FS_NCCL_BROADCAST;
      t->generator[FS_NCCL_RING] = "bcast-nccl-ring";
      return 0;
    case FS_COLLECTIVE_REDUCE:
      t->collective = FS_NCCL_REDUCE;
      t->generator[FS_NCCL_RING] = "reduce-nccl-ring";
      return 0;
    default: return -1;
  }
}

/* The nodes of o's platform (each rank one without it); they must be equal. */
static int nodes_of(const fs_generator_options *o, const char *name, int32_t *nodes,
                    fs_error *err) {
  fs_smp_nodes n;
  if (fs_smp_nodes_init(&n, name, o, err)) return -1;
  int32_t count = n.count, ppn = fs_smp_node_size(&n, 0);
  int even = 1;
  for (int32_t k = 1; k < count; k++) even &= fs_smp_node_size(&n, k) == ppn;
  fs_smp_nodes_free(&n);
  if (!even)
    return fs_error_set(err,
                        "%s: NCCL's tuning takes nodes of equal GPU counts; the platform puts "
                        "%d ranks on %d nodes unevenly",
                        name, o->ranks, count);
  *nodes = count;
  return 0;
}

/* NCCL's machine for the call: the typical one of o's GPU generation, with
 * o's NVLS and CollNet switches (nccl_gpu, nccl_nvls, nccl_collnet). */
static fs_nccl_call call_of(const nccl_target *t, const fs_generator_options *o, int32_t nodes,
                            int64_t bytes) {
  fs_nccl_gpu gpu = o->nccl_gpu ? (fs_nccl_gpu)(o->nccl_gpu - 1) : FS_NCCL_HOPPER;
  fs_nccl_call call = fs_nccl_typical_call(t->collective, o->ranks, nodes, gpu, bytes);
  if (o->nccl_nvls) call.nvls = o->nccl_nvls == FS_NCCL_SWITCH_ON;
  call.collnet = o->nccl_collnet == FS_NCCL_SWITCH_ON;
  return call;
}

/* What the selector generates: NCCL's pick d, or when fennelsim has no
 * schedule for it, NCCL's best among those it has (next). */
typedef struct nccl_pick {
  nccl_target target;
  fs_nccl_call call;
  fs_nccl_decision full;   /* NCCL's own pick, all algorithms */
  fs_nccl_decision chosen; /* what is generated: full, or the next choice */
  int substituted;         /* full's algorithm has no schedule here */
  const fs_generator *generator;
} nccl_pick;

static unsigned generatable(const nccl_target *t) {
  unsigned mask = 0;
  for (int a = 0; a < FS_NCCL_ALGORITHMS; a++)
    if (t->generator[a]) mask |= 1u << a;
  return mask;
}

/* NCCL's decision for c under o, and what to generate. */
static int decide(fs_collective c, const fs_generator_options *o, nccl_pick *k, fs_error *err) {
  const char *name = fs_collective_name(c);
  if (target_of(c, &k->target))
    return fs_error_set(err,
                        "NCCL's tuning does not cover %s (allreduce, allgather, "
                        "reduce-scatter, bcast, reduce)",
                        name);
  if (o->size < 0 || (k->target.per_rank && o->ranks > 0 && o->size > FS_SIZE_LIMIT / o->ranks))
    return fs_error_set(err, "%s-nccl: --size %lld is out of NCCL's tuning range", name,
                        (long long)o->size);
  int32_t nodes = 0;
  char label[64];
  snprintf(label, sizeof label, "%s-nccl", name);
  if (o->ranks < 2)
    return fs_error_set(err, "%s: NCCL's tuning needs at least 2 ranks, not %d", label, o->ranks);
  if (nodes_of(o, label, &nodes, err)) return -1;
  if (nodes > 1) /* NVLS across nodes is CollNet's (not generated); on one node, nccl_nvls.c */
    k->target.generator[FS_NCCL_NVLS] = NULL;
  int64_t bytes = k->target.per_rank ? o->size * o->ranks : o->size;
  k->call = call_of(&k->target, o, nodes, bytes);
  if (fs_nccl_decide(&k->call, &k->full, err)) return -1;
  k->chosen = k->full;
  k->substituted = !k->target.generator[k->full.algorithm];
  if (k->substituted) {
    fs_nccl_call next = k->call;
    next.algorithms = generatable(&k->target);
    if (fs_nccl_decide(&next, &k->chosen, err)) return -1;
  }
  const char *generator = k->target.generator[k->chosen.algorithm];
  k->generator = fs_generator_find(generator);
  if (!k->generator)
    return fs_error_set(err, "%s: NCCL picks %s/%s, whose generator %s is not in this build", label,
                        fs_nccl_algorithm_name(k->chosen.algorithm),
                        fs_protocol_name(k->chosen.protocol), generator);
  return 0;
}

/* The spec of the pick: its generator with the channels and protocol it reads. */
static void spec_of(const nccl_pick *k, char *spec, size_t size) {
  int n = snprintf(spec, size, "%s", k->generator->name);
  if (n > 0 && (size_t)n < size && (k->generator->options & FS_GEN_CHANNELS))
    n += snprintf(spec + n, size - (size_t)n, ":channels=%d", k->chosen.channels);
  if (n > 0 && (size_t)n < size && (k->generator->options & FS_GEN_PROTOCOL))
    snprintf(spec + n, size - (size_t)n, ":protocol=%s", fs_protocol_name(k->chosen.protocol));
}

int fs_nccl_select(fs_collective c, const fs_generator_options *o, fs_nccl_selection *out,
                   fs_error *err) {
  nccl_pick k;
  if (decide(c, o, &k, err)) return -1;
  const fs_nccl_decision *d = &k.chosen;
  spec_of(&k, out->spec, sizeof out->spec);
  snprintf(out->algorithm, sizeof out->algorithm, "%s/%s on %d channel%s",
           fs_nccl_algorithm_name(d->algorithm), fs_protocol_name(d->protocol), d->channels,
           d->channels == 1 ? "" : "s");
  snprintf(out->rule, sizeof out->rule, "%d ranks on %d node%s of %s GPUs, nBytes %lld: %s",
           k.call.ranks, k.call.nodes, k.call.nodes == 1 ? "" : "s", fs_nccl_gpu_name(k.call.gpu),
           (long long)k.call.bytes, d->rule);
  fs_nccl_estimates_text(&k.full, out->detail, sizeof out->detail);
  out->note[0] = 0;
  if (k.substituted)
    snprintf(out->note, sizeof out->note,
             "NCCL would run %s/%s here (predicted %.3f us), which fennelsim does not generate; "
             "generating its next choice %s/%s (%.3f us)",
             fs_nccl_algorithm_name(k.full.algorithm), fs_protocol_name(k.full.protocol),
             (double)k.full.time / FS_US, fs_nccl_algorithm_name(d->algorithm),
             fs_protocol_name(d->protocol), (double)d->time / FS_US);
  return 0;
}

/* A selector's schedule: the picked generator with the picked channels and
 * protocol, NCCL's default chunk, and o's platform, root and reduce time. */
static fs_program *generate_selected(fs_collective c, const fs_generator_options *o,
                                     fs_error *err) {
  nccl_pick k;
  if (decide(c, o, &k, err)) return NULL;
  fs_generator_options picked = *o;
  picked.channels = (k.generator->options & FS_GEN_CHANNELS) ? k.chosen.channels : 0;
  picked.protocol = (k.generator->options & FS_GEN_PROTOCOL) ? k.chosen.protocol : 0;
  picked.chunk = 0;
  picked.nccl_gpu = picked.nccl_nvls = picked.nccl_collnet = 0; /* the selector's own */
  return k.generator->generate(&picked, err);
}

fs_program *fs_generate_allreduce_nccl(const fs_generator_options *o, fs_error *err) {
  return generate_selected(FS_COLLECTIVE_ALLREDUCE, o, err);
}
fs_program *fs_generate_allgather_nccl(const fs_generator_options *o, fs_error *err) {
  return generate_selected(FS_COLLECTIVE_ALLGATHER, o, err);
}
fs_program *fs_generate_reduce_scatter_nccl(const fs_generator_options *o, fs_error *err) {
  return generate_selected(FS_COLLECTIVE_REDUCE_SCATTER, o, err);
}
fs_program *fs_generate_bcast_nccl(const fs_generator_options *o, fs_error *err) {
  return generate_selected(FS_COLLECTIVE_BCAST, o, err);
}
fs_program *fs_generate_reduce_nccl(const fs_generator_options *o, fs_error *err) {
  return generate_selected(FS_COLLECTIVE_REDUCE, o, err);
}
