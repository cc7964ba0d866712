/* gather_linear_sync.c: `gen gather-linear-sync`: Open MPI's synchronized
 * linear gather (ompi_coll_base_gather_intra_linear_sync in
 * coll_base_gather.c) as its tuned component calls it (first segment size
 * 0, so the first segment is the whole block), any --root, S bytes per
 * rank's block.
 *
 * The root takes the other ranks one at a time, in rank order 0 .. N-1
 * skipping itself: it posts the recv of r's block (S bytes), sends r a
 * 0-byte "go" (a blocking send, after that recv is posted: FS_AFTER_START),
 * posts the recv of r's second segment (0 bytes, after the go returned),
 * and waits for the block before the next rank (whose block recv requires
 * (FS_AFTER_END) the block and the go before it, and its go that recv's
 * start, so everything of r waits for r-1); the second segments are waited for
 * together at the end. Rank r receives the go (blocking), then sends its
 * block, then the empty second segment, each after the previous. Its own
 * block is a local copy at the root, not a task.
 *
 * All tag 0 (MCA_COLL_BASE_TAG_GATHER): r's two messages to the root share a
 * channel, ordered on both sides by those dependencies. CPU 0, NIC 0,
 * labels go, gather (the block) and tail (the empty second segment); tasks
 * laid out as they run, rank by rank: the root's recv and go, r's recv and
 * send, the root's tail recv, r's tail send. 6(N-1) tasks, 6N-8
 * dependencies (N >= 2).
 *
 * Data flow: N blocks of S bytes; r's block message reads block r, the
 * root's recv writes it; the go and the tail carry no block. */
#include "generators/generator_support.h"

static const char NAME[] = "gather-linear-sync";

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_check_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a gather has no reduction", err)) return -1;
  return fs_gen_check_blocks(NAME, o, err);
}

/* A message that carries block `block` (count 1) or nothing (count 0). */
static int32_t add_message(fs_program *p, const fs_generator_options *o, fs_task_kind kind,
                           int32_t rank, int32_t peer, int32_t block, int32_t count,
                           int32_t label) {
  int32_t t = fs_gen_message(p, kind, rank, peer, count ? o->size : 0, label);
  fs_flow_action action = kind == FS_SEND ? FS_FLOW_READ : FS_FLOW_WRITE;
  return t < 0 || fs_gen_flow_range(o, t, action, block, count) ? -1 : t;
}

static int depend(fs_program *p, int32_t task, int32_t on, enum fs_dependency_point point) {
  return task < 0 || on < 0 || fs_program_depend(p, task, on, point);
}

/* The root's exchange with rank r, after the previous one (block recv and
 * go at previous, previous+1; -1: none). */
static int add_rank(fs_program *p, const fs_generator_options *o, int32_t r, const int32_t *labels,
                    int32_t previous) {
  int32_t root = o->root;
  int32_t block = add_message(p, o, FS_RECV, root, r, r, 1, labels[1]);
  int32_t go = add_message(p, o, FS_SEND, root, r, r, 0, labels[0]);
  int32_t heard = add_message(p, o, FS_RECV, r, root, r, 0, labels[0]);
  int32_t send = add_message(p, o, FS_SEND, r, root, r, 1, labels[1]);
  int32_t tail = add_message(p, o, FS_RECV, root, r, r, 0, labels[2]);
  int32_t last = add_message(p, o, FS_SEND, r, root, r, 0, labels[2]);
  if (last < 0 || depend(p, go, block, FS_AFTER_START) || depend(p, tail, go, FS_AFTER_END) ||
      depend(p, send, heard, FS_AFTER_END) || depend(p, last, send, FS_AFTER_END))
    return -1;
  return previous >= 0 &&
         (depend(p, block, previous, FS_AFTER_END) || depend(p, block, previous + 1, FS_AFTER_END));
}

fs_program *fs_generate_gather_linear_sync(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  int32_t n = o->ranks, root = o->root;
  int64_t tasks = 6 * ((int64_t)n - 1), dependencies = n > 1 ? 6 * (int64_t)n - 8 : 0;
  fs_program *p = fs_gen_begin(NAME, n, tasks, dependencies, err);
  if (!p) return NULL;
  int32_t labels[3] = {fs_gen_label(p, "go"), fs_gen_label(p, "gather"), fs_gen_label(p, "tail")};
  int failed = labels[0] < 0 || labels[1] < 0 || labels[2] < 0 ||
               fs_gen_flow_begin(o, FS_COLLECTIVE_GATHER, root, n, n * o->size);
  int32_t previous = -1;
  for (int32_t r = 0; r < n && !failed; r++) {
    if (r == root) continue;
    int32_t first = p->tasks;
    failed = add_rank(p, o, r, labels, previous);
    previous = first;
  }
  return fs_gen_finish_options(NAME, p, tasks, dependencies, failed, o, err);
}
