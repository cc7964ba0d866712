/* bcast_chain.c: `gen bcast-chain`: a pipelined chain broadcast of S bytes
 * from --root in segments of --segment bytes, as Open MPI's
 * ompi_coll_base_bcast_intra_pipeline (a chain of fanout 1 driven by
 * ompi_coll_base_bcast_intra_generic).
 *
 * Relative rank v = (rank - root) mod N receives every segment from v-1 and
 * forwards it to v+1. k = ceil(S / segment) segments (one of 0 bytes when S
 * is 0), all of --segment bytes but the last; --segment 0 means 8 KiB.
 * Dependencies are those of Open MPI's loops (two receive buffers):
 * - root: send i requires (FS_AFTER_END) send i-1 (its wait_all);
 * - middle ranks issue recv 0, then for i = 1 .. k-1 recv i and send i-1,
 *   then send k-1. Recv i requires the start of recv i-1 (its irecv is
 *   posted after that one) and the end of send i-2 (the wait_all of the
 *   previous iteration); send i requires the end of recv i and of send i-1;
 * - the last rank issues recv 0 .. k-1; recv i requires the start of recv
 *   i-1 and the end of recv i-2 (the wait of the previous iteration).
 * All tag 0 (MCA_COLL_BASE_TAG_BCAST), CPU 0, NIC 0, no compute; segment i's
 * messages are labelled segment<i+1>. 2k(N-1) tasks. Tasks are laid out
 * rank by rank in relative order, each rank's in issue order.
 *
 * Data flow: k blocks, the segments with their sizes; send i reads and
 * recv i writes block i. */
#include <stdlib.h>

#include "generators/generator_support.h"

static const char NAME[] = "bcast-chain";
static const int64_t DEFAULT_SEGMENT = 8192;

static int check_options(const fs_generator_options *o, fs_error *err) {
  if (fs_gen_check_common(NAME, o, err)) return -1;
  if (fs_gen_check_root(NAME, o, err)) return -1;
  if (fs_gen_refuse_reduce_time(NAME, o, "a bcast has no reduction", err)) return -1;
  if (o->segment < 0)
    return fs_error_set(err, "%s: --segment must not be negative, not %lld", NAME,
                        (long long)o->segment);
  return 0;
}

typedef struct chain {
  const fs_generator_options *o;
  fs_program *p;
  int64_t segment, segments;
  int32_t *labels; /* segment<i+1> */
} chain;

static int64_t segment_size(const chain *c, int64_t i) {
  return i < c->segments - 1 ? c->segment : c->o->size - (c->segments - 1) * c->segment;
}

/* Segment i's send or recv between relative ranks, with its data flow. */
static int32_t add_message(chain *c, fs_task_kind kind, int32_t v, int32_t peer, int64_t i) {
  int32_t n = c->o->ranks, root = c->o->root;
  int32_t t = fs_gen_message(c->p, kind, fs_gen_absolute(v, root, n),
                             fs_gen_absolute(peer, root, n), segment_size(c, i), c->labels[i]);
  fs_flow_action action = kind == FS_SEND ? FS_FLOW_READ : FS_FLOW_WRITE;
  return t < 0 || fs_gen_flow_range(c->o, t, action, (int32_t)i, 1) ? -1 : t;
}

static int depend(chain *c, int32_t task, int32_t on, int point) {
  return task < 0 || fs_program_depend(c->p, task, on, point) ? -1 : 0;
}

static int add_root(chain *c) {
  int32_t send = -1;
  for (int64_t i = 0; i < c->segments; i++) {
    int32_t previous = send;
    send = add_message(c, FS_SEND, 0, 1, i);
    if (send < 0 || (previous >= 0 && depend(c, send, previous, FS_AFTER_END))) return -1;
  }
  return 0;
}

/* Recv i of relative rank v after the start of recv i-1 and the end of
 * `waited` (-1: none). */
static int32_t add_recv(chain *c, int32_t v, int64_t i, int32_t previous, int32_t waited) {
  int32_t recv = add_message(c, FS_RECV, v, v - 1, i);
  if (recv < 0 || (previous >= 0 && depend(c, recv, previous, FS_AFTER_START)) ||
      (waited >= 0 && depend(c, recv, waited, FS_AFTER_END)))
    return -1;
  return recv;
}

/* Send i of relative rank v after its recv i and its send i-1 (-1: none). */
static int32_t add_forward(chain *c, int32_t v, int64_t i, int32_t recv, int32_t previous) {
  int32_t send = add_message(c, FS_SEND, v, v + 1, i);
  if (send < 0 || depend(c, send, recv, FS_AFTER_END) ||
      (previous >= 0 && depend(c, send, previous, FS_AFTER_END)))
    return -1;
  return send;
}

/* In the loop, `send` is send i-2 until send i-1 is added. */
static int add_middle(chain *c, int32_t v) {
  int32_t recv = add_recv(c, v, 0, -1, -1), send = -1;
  for (int64_t i = 1; i < c->segments && recv >= 0; i++) {
    int32_t previous = recv;
    recv = add_recv(c, v, i, previous, send);
    send = add_forward(c, v, i - 1, previous, send);
    if (send < 0) return -1;
  }
  return recv < 0 || add_forward(c, v, c->segments - 1, recv, send) < 0 ? -1 : 0;
}

static int add_last(chain *c, int32_t v) {
  int32_t recv = add_recv(c, v, 0, -1, -1), older = -1;
  for (int64_t i = 1; i < c->segments && recv >= 0; i++) {
    int32_t previous = recv;
    recv = add_recv(c, v, i, previous, older);
    older = previous;
  }
  return recv < 0 ? -1 : 0;
}

/* Dependencies: root k-1; a middle rank (k-1) + max(k-2, 0) for its recvs
 * and k + (k-1) for its sends; the last rank (k-1) + max(k-2, 0). */
static int64_t count_dependencies(int32_t n, int64_t k) {
  if (n < 2) return 0;
  int64_t recvs = (k - 1) + (k > 2 ? k - 2 : 0);
  return (k - 1) + (n - 2) * (recvs + 2 * k - 1) + recvs;
}

/* labels[i] = "segment<i+1>"; new labels, added without interning's search. */
static int add_labels(chain *c) {
  c->labels = malloc((size_t)c->segments * sizeof *c->labels);
  if (!c->labels) return -1;
  for (int64_t i = 0; i < c->segments; i++) {
    char text[32];
    int length = snprintf(text, sizeof text, "segment%lld", (long long)i + 1);
    if ((c->labels[i] = fs_program_add_label(c->p, text, length)) < 0) return -1;
  }
  return 0;
}

/* Block i = segment i, with its real size (the last one is shorter). */
static int begin_flow(const chain *c) {
  if (fs_gen_flow_begin(c->o, FS_COLLECTIVE_BCAST, c->o->root, (int32_t)c->segments, c->o->size))
    return -1;
  if (c->o->flow)
    for (int64_t i = 0; i < c->segments; i++) c->o->flow->block_size[i] = segment_size(c, i);
  return 0;
}

fs_program *fs_generate_bcast_chain(const fs_generator_options *o, fs_error *err) {
  if (check_options(o, err)) return NULL;
  chain c = {o, NULL, o->segment ? o->segment : DEFAULT_SEGMENT, 1, NULL};
  if (o->size > 0) c.segments = (o->size - 1) / c.segment + 1;
  int32_t n = o->ranks;
  if (n > 1 && c.segments > FS_MAX_TASKS) {
    fs_error_set(err, "%s: %lld segments of %lld bytes are too many", NAME, (long long)c.segments,
                 (long long)c.segment);
    return NULL;
  }
  int64_t tasks = 2 * c.segments * (n - 1), dependencies = count_dependencies(n, c.segments);
  if (!(c.p = fs_gen_begin(NAME, n, tasks, dependencies, err))) return NULL;
  int failed = n > 1 && (add_labels(&c) || begin_flow(&c));
  if (n == 1) failed = fs_gen_flow_begin(o, FS_COLLECTIVE_BCAST, o->root, 1, o->size);
  if (n > 1 && !failed) failed = add_root(&c);
  for (int32_t v = 1; v < n - 1 && !failed; v++) failed = add_middle(&c, v);
  if (n > 1 && !failed) failed = add_last(&c, n - 1);
  free(c.labels);
  return fs_gen_finish_options(NAME, c.p, tasks, dependencies, failed, o, err);
}
