/* reduce_linear.c: `gen reduce-linear`: Open MPI's linear reduce
 * (ompi_coll_base_reduce_intra_basic_linear in coll_base_reduce.c), any
 * --root, S bytes = the whole vector.
 *
 * Every rank but the root sends its vector (S bytes, MCA_COLL_BASE_TAG_REDUCE)
 * to the root once. The root receives them from rank N-1 down to rank 0 (as
 * Open MPI's loop `for (i = size - 2; i >= 0; --i)` after its first recv
 * from size - 1), skipping itself, each into its one temporary
 * (pml_buffer), and reduces it into its buffer at once. Its blocking recvs
 * reuse that temporary, so each recv requires the previous reduce, and each
 * reduce requires its recv: the reduces form a chain.
 *
 * Where Open MPI differs in its bookkeeping only: it receives rank N-1's
 * vector straight into rbuf and reduces its own sbuf at its place in the
 * loop. Here the root's buffer starts with its own vector, so every recv
 * goes through the temporary: the same N-1 messages and N-1 reduces of S
 * bytes, in the same order of sources.
 *
 * Tasks (tag 0, CPU 0, NIC 0, label "reduce"), laid out in the root's
 * order: for each source, its send, the root's recv, the root's reduce.
 * 3(N-1) tasks, 2N-3 dependencies (N >= 2). Data flow: one block. */
#include "generators/generator_support.h"

static const char NAME[] = "reduce-linear";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  return fs_gen_check_root(NAME, o, err);
}

/* Source's vector into the root: its send, the root's recv after the
 * previous reduce (-1: none), the reduce. Returns the reduce, or -1. */
static int32_t add_source(fs_program *p, const fs_generator_options *o, int32_t source,
                          int32_t label, int32_t previous) {
  int32_t send = fs_gen_send(p, source, o->root, o->size, label);
  int32_t recv = send < 0 ? -1 : fs_gen_recv(p, o->root, source, o->size, label);
  int32_t reduce = recv < 0 ? -1 : fs_gen_reduce(p, o->root, label, o);
  if (reduce < 0 || (previous >= 0 && fs_program_depend(p, recv, previous, FS_AFTER_END)) ||
      fs_program_depend(p, reduce, recv, FS_AFTER_END))
    return -1;
  if (fs_gen_flow_range(o, send, FS_FLOW_READ, 0, 1) ||
      fs_gen_flow_range(o, recv, FS_FLOW_TEMP, 0, 1) ||
      fs_gen_flow_range(o, reduce, FS_FLOW_COMBINE, 0, 1))
    return -1;
  return reduce;
}

fs_program *fs_generate_reduce_linear(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks;
  int64_t tasks = 3 * ((int64_t)n - 1), dependencies = n > 1 ? 2 * (int64_t)n - 3 : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t label = fs_gen_label(p, "reduce");
  int failed = label < 0 || fs_gen_flow_begin(o, FS_COLLECTIVE_REDUCE, o->root, 1, o->size);
  int32_t previous = -1;
  for (int32_t source = n - 1; source >= 0 && !failed; source--)
    if (source != o->root) failed = (previous = add_source(p, o, source, label, previous)) < 0;
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
