/* nccl_selection.c: NCCL 2.30.7's own choice of algorithm, protocol and
 * channels (nccl_selection.h) from its tuning model, and the five selector
 * generators ("allreduce-nccl", ...) that generate it. */
#include "generators/nccl_selection.h"

#include <stdio.h>

#include "generators/smp_support.h"
#include "platform/nccl_tuning.h"

const char *fs_nccl_selection_version(void) {
  return "NCCL 2.30.7 (tuning model, Hopper; Ring and Tree)";
}

typedef struct nccl_target {
  fs_nccl_collective collective;
  const char *ring, *tree; /* the generators of the picks; tree NULL: Ring only */
  fs_program *(*ring_generate)(const fs_generator_options *, fs_error *);
  fs_program *(*tree_generate)(const fs_generator_options *, fs_error *);
  int per_rank; /* --size is the per-rank block: nBytes = k * --size */
} nccl_target;

static int target_of(fs_collective c, nccl_target *t) {
  switch (c) {
    case FS_COLLECTIVE_ALLREDUCE:
      *t = (nccl_target){FS_NCCL_ALLREDUCE,
                         "allreduce-nccl-ring",
                         "allreduce-nccl-tree",
                         fs_generate_allreduce_nccl_ring,
                         fs_generate_allreduce_nccl_tree,
                         0};
      return 0;
    case FS_COLLECTIVE_ALLGATHER:
      *t = (nccl_target){FS_NCCL_ALLGATHER,
                         "allgather-nccl-ring",
                         NULL,
                         fs_generate_allgather_nccl_ring,
                         NULL,
                         1};
      return 0;
    case FS_COLLECTIVE_REDUCE_SCATTER:
      *t = (nccl_target){FS_NCCL_REDUCESCATTER,
                         "reduce-scatter-nccl-ring",
                         NULL,
                         fs_generate_reduce_scatter_nccl_ring,
                         NULL,
                         1};
      return 0;
    case FS_COLLECTIVE_BCAST:
      *t = (nccl_target){FS_NCCL_BROADCAST,
                         "bcast-nccl-ring",
                         NULL,
                         fs_generate_bcast_nccl_ring,
                         NULL,
                         0};
      return 0;
    case FS_COLLECTIVE_REDUCE:
      *t = (nccl_target){FS_NCCL_REDUCE, "reduce-nccl-ring",
                         NULL,           fs_generate_reduce_nccl_ring,
                         NULL,           0};
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

/* NCCL's decision for c under o, with its target. */
static int decide(fs_collective c, const fs_generator_options *o, nccl_target *t,
                  fs_nccl_decision *d, fs_nccl_call *call, fs_error *err) {
  const char *name = fs_collective_name(c);
  if (target_of(c, t))
    return fs_error_set(err,
                        "NCCL's tuning does not cover %s (allreduce, allgather, "
                        "reduce-scatter, bcast, reduce)",
                        name);
  if (o->size < 0 || (t->per_rank && o->ranks > 0 && o->size > FS_SIZE_LIMIT / o->ranks))
    return fs_error_set(err, "%s-nccl: --size %lld is out of NCCL's tuning range", name,
                        (long long)o->size);
  int32_t nodes = 0;
  char label[64];
  snprintf(label, sizeof label, "%s-nccl", name);
  if (o->ranks < 2)
    return fs_error_set(err, "%s: NCCL's tuning needs at least 2 ranks, not %d", label, o->ranks);
  if (nodes_of(o, label, &nodes, err)) return -1;
  int64_t bytes = t->per_rank ? o->size * o->ranks : o->size;
  *call = fs_nccl_typical_call(t->collective, o->ranks, nodes, FS_NCCL_HOPPER, bytes);
  if (fs_nccl_decide(call, d, err)) return -1;
  if (d->algorithm == FS_NCCL_TREE && !t->tree)
    return fs_error_set(err, "%s: NCCL picks Tree, which fennelsim generates only for allreduce",
                        label);
  return 0;
}

int fs_nccl_select(fs_collective c, const fs_generator_options *o, char *spec, size_t spec_size,
                   char *algorithm, size_t algorithm_size, char *rule, size_t rule_size,
                   char *detail, size_t detail_size, fs_error *err) {
  nccl_target t;
  fs_nccl_decision d;
  fs_nccl_call call;
  if (decide(c, o, &t, &d, &call, err)) return -1;
  const char *generator = d.algorithm == FS_NCCL_TREE ? t.tree : t.ring;
  snprintf(spec, spec_size, "%s:channels=%d:protocol=%s", generator, d.channels,
           fs_protocol_name(d.protocol));
  snprintf(algorithm, algorithm_size, "%s/%s on %d channel%s", fs_nccl_algorithm_name(d.algorithm),
           fs_protocol_name(d.protocol), d.channels, d.channels == 1 ? "" : "s");
  snprintf(rule, rule_size, "%d ranks on %d node%s, nBytes %lld: %s", call.ranks, call.nodes,
           call.nodes == 1 ? "" : "s", (long long)call.bytes, d.rule);
  fs_nccl_estimates_text(&d, detail, detail_size);
  return 0;
}

/* A selector's schedule: the picked generator with the picked channels and
 * protocol, NCCL's default chunk, and o's platform, root and reduce time. */
static fs_program *generate_selected(fs_collective c, const fs_generator_options *o,
                                     fs_error *err) {
  nccl_target t;
  fs_nccl_decision d;
  fs_nccl_call call;
  if (decide(c, o, &t, &d, &call, err)) return NULL;
  fs_generator_options picked = *o;
  picked.channels = d.channels;
  picked.protocol = d.protocol;
  picked.chunk = 0;
  return (d.algorithm == FS_NCCL_TREE ? t.tree_generate : t.ring_generate)(&picked, err);
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
