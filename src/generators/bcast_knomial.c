/* bcast_knomial.c: `gen bcast-knomial`: Open MPI's k-nomial broadcast
 * (ompi_coll_base_bcast_intra_knomial: ompi_coll_base_bcast_intra_generic on
 * topo_build_kmtree), unsegmented as the 4.1/5.0 fixed rules call it, from
 * --root, radix --ways (default 4, Open MPI's coll_tuned_bcast_knomial_radix).
 *
 * Relative rank v = (rank - root) mod N receives the S bytes from its parent
 * (v with its lowest non-zero base-radix digit cleared), then isends them to
 * its children v + r*m (m = radix^j below that digit, largest first; r = 1 ..
 * radix-1; the root: every power below N) and waits for all: each send
 * requires (FS_AFTER_END) the rank's recv only; the root's sends require
 * nothing. So the root sends (radix-1) per power of the radix below N. Tag
 * 0, CPU 0, NIC 0, no compute; a message to a rank with d non-zero digits
 * is labelled level<d>. 2(N-1) tasks, N-1 - (the root's children)
 * dependencies; laid out rank by rank in relative order. Data flow: one
 * block, read by sends, written by recvs. */
#include <stdlib.h>

#include "generators/generator_support.h"
#include "generators/ompi_trees.h"

static const char NAME[] = "bcast-knomial";
static const int32_t DEFAULT_RADIX = 4;

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err) || fs_gen_check_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a bcast has no reduction", err)) return -1;
  if (o->ways < 0 || o->ways == 1)
    return fs_error_set(err, "%s: --ways must be a radix of at least 2, not %d", NAME, o->ways);
  return 0;
}

/* Relative rank v's recv and sends; `child` has room for all its children. */
static int add_rank(fs_program *p, const fs_generator_options *o, int32_t radix, int32_t v,
                    int32_t *child, const int32_t *labels) {
  int32_t n = o->ranks, rank = fs_gen_absolute(v, o->root, n), recv = -1;
  int failed = 0;
  if (v > 0) {
    int32_t digit = 1;
    while ((v / digit) % radix == 0) digit *= radix;
    int32_t parent = v - (v / digit) % radix * digit;
    recv = fs_gen_recv(p, rank, fs_gen_absolute(parent, o->root, n), o->size,
                       labels[fs_ompi_kmtree_depth(v, radix) - 1]);
    failed = recv < 0 || fs_gen_flow_range(o, recv, FS_FLOW_WRITE, 0, 1);
  }
  int count = fs_ompi_kmtree_children(v, n, radix, child);
  for (int i = 0; i < count && !failed; i++) {
    int32_t send = fs_gen_send(p, rank, fs_gen_absolute(child[i], o->root, n), o->size,
                               labels[fs_ompi_kmtree_depth(child[i], radix) - 1]);
    failed = send < 0 || fs_gen_flow_range(o, send, FS_FLOW_READ, 0, 1) ||
             (recv >= 0 && fs_program_depend(p, send, recv, FS_AFTER_END));
  }
  return failed;
}

fs_program *fs_generate_bcast_knomial(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks, radix = o->ways ? o->ways : DEFAULT_RADIX, digits = 0;
  for (int64_t m = 1; m < n; m *= radix) digits++;
  int32_t *child = malloc(((size_t)n + 1) * sizeof *child); /* at most N-1 children */
  if (!child) {
    fs_error_set(err, "%s: out of memory", NAME);
    return NULL;
  }
  int64_t tasks = 2 * ((int64_t)n - 1);
  int64_t dependencies = (int64_t)n - 1 - fs_ompi_kmtree_children(0, n, radix, child);
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  int32_t labels[64];
  int failed = !p || fs_gen_numbered_labels(p, "level", digits, labels) ||
               fs_gen_flow_begin(o, FS_COLLECTIVE_BCAST, o->root, 1, o->size);
  for (int32_t v = 0; v < n && !failed; v++) failed = add_rank(p, o, radix, v, child, labels);
  free(child);
  return p ? fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err) : NULL;
}
