/* test_collectives.c: the data-flow proof over the whole library. First the
 * checker itself (src/generators/data_flow_check.c) on small hand-built programs,
 * each broken in one way it must catch; then every generator of
 * `gen --list` at every rank count from 1 to 64, with several roots, and
 * at a few large counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/data_flow_check.h"
#include "generator_support.h"
#include "model_support.h"
#include "test_support.h"

/* ---- the checker on hand-built programs ---------------------------------- */

/* Two ranks exchange their vectors and each reduces the other's into its
 * own (one step of recursive doubling, MPI style). `mistake` breaks it. */
enum mistake {
  CORRECT,
  REDUCE_BEFORE_SEND_DONE, /* the reduce does not wait for the own send: a race */
  COMBINE_TWICE,           /* rank 1 reduces the message twice */
  UNUSED_MESSAGE,          /* rank 1 never reduces what it received */
  WRONG_SIZE,              /* a message of the wrong size */
  NO_SEND_BACK,            /* rank 0's message to 1 missing: rank 1 ends without it */
  MISMATCHED_BLOCKS,       /* send and recv name different blocks */
  READS_NOTHING,           /* reduce-only collective where rank 1 reads before it holds data */
  MISTAKES
};

typedef struct built {
  fs_program *p;
  fs_data_flow flow;
} built;

static int32_t add(built *b, fs_task_kind kind, int32_t rank, int32_t peer, int64_t size) {
  int32_t t = fs_program_add(b->p, kind, rank);
  ck_assert_int_ge(t, 0);
  if (peer >= 0) fs_task_set_peer(b->p, t, peer);
  fs_task_set_size(b->p, t, size);
  return t;
}

static void act(built *b, int32_t t, fs_flow_action action, int32_t block) {
  ck_assert_int_eq(fs_data_flow_range(&b->flow, t, action, block, 1), 0);
}

static built exchange(enum mistake mistake) {
  built b;
  b.p = fs_program_new(2);
  fs_data_flow_init(&b.flow);
  fs_data_flow_begin(&b.flow, FS_COLLECTIVE_ALLREDUCE, 0, mistake == MISMATCHED_BLOCKS ? 2 : 1,
                     mistake == MISMATCHED_BLOCKS ? 16 : 8);
  for (int32_t r = 0; r < 2; r++) {
    int sends = !(mistake == NO_SEND_BACK && r == 0),
        receives = !(mistake == NO_SEND_BACK && r == 1);
    int64_t size = mistake == WRONG_SIZE && r == 1 ? 4 : 8;
    int32_t send = -1, recv = -1, reduce;
    if (sends) {
      send = add(&b, FS_SEND, r, 1 - r, size);
      act(&b, send, FS_FLOW_READ, mistake == MISMATCHED_BLOCKS && r == 1 ? 1 : 0);
    }
    if (!receives) continue;
    recv = add(&b, FS_RECV, r, 1 - r, mistake == WRONG_SIZE && r == 0 ? 4 : 8);
    reduce = add(&b, FS_COMPUTE, r, -1, 8);
    act(&b, recv, FS_FLOW_TEMP, 0);
    if (!(mistake == UNUSED_MESSAGE && r == 1)) act(&b, reduce, FS_FLOW_COMBINE, 0);
    if (send >= 0 && !(mistake == REDUCE_BEFORE_SEND_DONE && r == 1))
      fs_program_depend(b.p, reduce, send, FS_AFTER_END);
    fs_program_depend(b.p, reduce, recv, FS_AFTER_END);
    if (mistake == COMBINE_TWICE && r == 1) {
      int32_t again = add(&b, FS_COMPUTE, 1, -1, 8);
      act(&b, again, FS_FLOW_COMBINE, 0);
      fs_program_depend(b.p, again, recv, FS_AFTER_END);
      fs_program_depend(b.p, again, reduce, FS_AFTER_END);
    }
  }
  fs_test_finalize(b.p);
  return b;
}

static const char *const expected_reason[MISTAKES] = {
    NULL,
    "race: task 5 (compute of rank 1) touches block 0 of rank 1 without waiting for task 3 "
    "(send of rank 1)",
    "already combined",
    "is never combined",
    "carries 4 bytes, but its 1 blocks hold 8",
    "rank 1 ends with block 0 holding 1 contributions",
    "name different blocks",
    NULL,
};

START_TEST(checker_on_exchange) { /* looped over the mistakes but READS_NOTHING */
  if (_i == READS_NOTHING) return;
  built b = exchange((enum mistake)_i);
  char why[512];
  const char *result = fs_check_data_flow(b.p, &b.flow, why, sizeof why);
  if (_i == CORRECT) {
    ck_assert_msg(result == NULL, "%s", result);
  } else {
    ck_assert_msg(result != NULL, "mistake %d not caught", _i);
    ck_assert_msg(strstr(result, expected_reason[_i]) != NULL, "mistake %d: %s", _i, result);
  }
  fs_program_free(b.p);
  fs_data_flow_free(&b.flow);
}
END_TEST

/* A switch that reduces (data_ranks, NCCL's NVLS): ranks 0 and 1 hold
 * data, rank 2 is the switch. Each GPU sends its block to the switch, which
 * keeps rank 0's (WRITE), combines rank 1's and sends the sum to both. */
enum switch_mistake {
  SWITCH_CORRECT,
  SWITCH_OVERWRITES,   /* it writes rank 1's block over rank 0's: a result of 1 of 2 */
  SWITCH_SENDS_EARLY,  /* its sends do not wait for its reduce: a race */
  SWITCH_SENDS_FIRST,  /* it sends before it received anything: it holds no data */
  SWITCH_AS_DATA_RANK, /* correct schedule, but the switch counted as a data rank */
  SWITCH_TOO_MANY,     /* data_ranks beyond the program's ranks */
  SWITCH_MISTAKES
};

static const char *const switch_reason[SWITCH_MISTAKES] = {
    NULL,
    "rank 0 ends with block 0 holding 1 contributions, not the allreduce result (2 expected)",
    "race: task",
    "reads block 0 of rank 2, which holds no data",
    "holding 2 contributions, not the allreduce result (3 expected)",
    "the flow's 4 data ranks are not 1 to the program's 3 ranks",
};

START_TEST(checker_switch_rank) { /* looped over the switch mistakes */
  enum switch_mistake mistake = (enum switch_mistake)_i;
  built b;
  b.p = fs_program_new(3);
  fs_data_flow_init(&b.flow);
  fs_data_flow_begin(&b.flow, FS_COLLECTIVE_ALLREDUCE, 0, 1, 8);
  b.flow.data_ranks = mistake == SWITCH_AS_DATA_RANK ? 0 : mistake == SWITCH_TOO_MANY ? 4 : 2;
  int32_t in[2], out[2], sum = -1;
  if (mistake == SWITCH_SENDS_FIRST) {
    out[0] = add(&b, FS_SEND, 2, 0, 8);
    act(&b, out[0], FS_FLOW_READ, 0);
  }
  for (int32_t r = 0; r < 2; r++) {
    int32_t send = add(&b, FS_SEND, r, 2, 8);
    act(&b, send, FS_FLOW_READ, 0);
    in[r] = add(&b, FS_RECV, 2, r, 8);
    act(&b, in[r], r == 0 || mistake == SWITCH_OVERWRITES ? FS_FLOW_WRITE : FS_FLOW_TEMP, 0);
  }
  if (mistake == SWITCH_OVERWRITES) {
    fs_program_depend(b.p, in[1], in[0], FS_AFTER_END);
  } else {
    sum = add(&b, FS_COMPUTE, 2, -1, 8);
    act(&b, sum, FS_FLOW_COMBINE, 0);
    fs_program_depend(b.p, sum, in[0], FS_AFTER_END);
    fs_program_depend(b.p, sum, in[1], FS_AFTER_END);
  }
  for (int32_t r = 0; r < 2; r++) {
    if (!(mistake == SWITCH_SENDS_FIRST && r == 0)) {
      out[r] = add(&b, FS_SEND, 2, r, 8);
      act(&b, out[r], FS_FLOW_READ, 0);
    }
    if (mistake == SWITCH_SENDS_FIRST) continue;
    fs_program_depend(b.p, out[r], in[0], FS_AFTER_END);
    fs_program_depend(b.p, out[r], in[1], FS_AFTER_END);
    if (sum >= 0 && mistake != SWITCH_SENDS_EARLY)
      fs_program_depend(b.p, out[r], sum, FS_AFTER_END);
  }
  for (int32_t r = 0; r < 2; r++) {
    int32_t back = add(&b, FS_RECV, r, 2, 8);
    act(&b, back, FS_FLOW_WRITE, 0);
  }
  fs_test_finalize(b.p);
  char why[512];
  const char *result = fs_check_data_flow(b.p, &b.flow, why, sizeof why);
  if (mistake == SWITCH_CORRECT)
    ck_assert_msg(result == NULL, "%s", result);
  else
    ck_assert_msg(result && strstr(result, switch_reason[mistake]), "mistake %d: %s", mistake,
                  result ? result : "not caught");
  fs_program_free(b.p);
  fs_data_flow_free(&b.flow);
}
END_TEST

/* A broadcast where rank 1 forwards to 2 before receiving: reads no data;
 * and where it forwards after receiving: correct. */
START_TEST(checker_forward_needs_data) {
  for (int ordered = 0; ordered < 2; ordered++) {
    built b;
    b.p = fs_program_new(3);
    fs_data_flow_init(&b.flow);
    fs_data_flow_begin(&b.flow, FS_COLLECTIVE_BCAST, 0, 1, 16);
    int32_t s0 = add(&b, FS_SEND, 0, 1, 16), r1 = add(&b, FS_RECV, 1, 0, 16);
    int32_t s1 = add(&b, FS_SEND, 1, 2, 16), r2 = add(&b, FS_RECV, 2, 1, 16);
    act(&b, s0, FS_FLOW_READ, 0), act(&b, r1, FS_FLOW_WRITE, 0);
    act(&b, s1, FS_FLOW_READ, 0), act(&b, r2, FS_FLOW_WRITE, 0);
    if (ordered) fs_program_depend(b.p, s1, r1, FS_AFTER_END);
    fs_test_finalize(b.p);
    char why[512];
    const char *result = fs_check_data_flow(b.p, &b.flow, why, sizeof why);
    if (ordered)
      ck_assert_msg(result == NULL, "%s", result);
    else
      ck_assert_msg(result && strstr(result, "reads block 0 of rank 1, which holds no data"), "%s",
                    result ? result : "not caught");
    fs_program_free(b.p);
    fs_data_flow_free(&b.flow);
  }
}
END_TEST

/* A broadcast over 3 ranks where rank 1 forwards to 2 and receives the
 * block again from 0: the second recv overwrites what the forward may
 * still be reading (write after read) unless it waits for the forward. */
START_TEST(checker_write_after_read) {
  for (int ordered = 0; ordered < 2; ordered++) {
    built b;
    b.p = fs_program_new(3);
    fs_data_flow_init(&b.flow);
    fs_data_flow_begin(&b.flow, FS_COLLECTIVE_BCAST, 0, 1, 4);
    int32_t s01 = add(&b, FS_SEND, 0, 1, 4), r10 = add(&b, FS_RECV, 1, 0, 4);
    int32_t s12 = add(&b, FS_SEND, 1, 2, 4), r21 = add(&b, FS_RECV, 2, 1, 4);
    int32_t again = add(&b, FS_SEND, 0, 1, 4), r10b = add(&b, FS_RECV, 1, 0, 4);
    act(&b, s01, FS_FLOW_READ, 0), act(&b, r10, FS_FLOW_WRITE, 0);
    act(&b, s12, FS_FLOW_READ, 0), act(&b, r21, FS_FLOW_WRITE, 0);
    act(&b, again, FS_FLOW_READ, 0), act(&b, r10b, FS_FLOW_WRITE, 0);
    fs_program_depend(b.p, s12, r10, FS_AFTER_END);
    fs_program_depend(b.p, again, s01, FS_AFTER_END); /* the channels are ordered */
    fs_program_depend(b.p, r10b, r10, FS_AFTER_END);
    if (ordered) fs_program_depend(b.p, r10b, s12, FS_AFTER_END);
    fs_test_finalize(b.p);
    char why[512];
    const char *result = fs_check_data_flow(b.p, &b.flow, why, sizeof why);
    if (ordered)
      ck_assert_msg(result == NULL, "%s", result);
    else
      ck_assert_msg(result && strstr(result, "race: task 5 (recv of rank 1) touches block 0 of "
                                             "rank 1 without waiting for task 2 (send of rank 1)"),
                    "%s", result ? result : "not caught");
    fs_program_free(b.p);
    fs_data_flow_free(&b.flow);
  }
}
END_TEST

/* Combines on arrival (schedgen's reduces) commute: two unordered ones into
 * one block are fine, a read between them must wait for both. */
START_TEST(checker_accumulations_commute) {
  built b;
  b.p = fs_program_new(3);
  fs_data_flow_init(&b.flow);
  fs_data_flow_begin(&b.flow, FS_COLLECTIVE_REDUCE, 0, 1, 8);
  int32_t r1 = add(&b, FS_RECV, 0, 1, 8), r2 = add(&b, FS_RECV, 0, 2, 8);
  int32_t s1 = add(&b, FS_SEND, 1, 0, 8), s2 = add(&b, FS_SEND, 2, 0, 8);
  act(&b, r1, FS_FLOW_RECV_COMBINE, 0), act(&b, r2, FS_FLOW_RECV_COMBINE, 0);
  act(&b, s1, FS_FLOW_READ, 0), act(&b, s2, FS_FLOW_READ, 0);
  fs_test_finalize(b.p);
  char why[512];
  const char *result = fs_check_data_flow(b.p, &b.flow, why, sizeof why);
  ck_assert_msg(result == NULL, "%s", result);
  fs_program_free(b.p);
  fs_data_flow_free(&b.flow);
}
END_TEST

/* Two sends on one channel not ordered by dependencies: refused. */
START_TEST(checker_channel_order) {
  built b;
  b.p = fs_program_new(2);
  fs_data_flow_init(&b.flow);
  fs_data_flow_begin(&b.flow, FS_COLLECTIVE_BCAST, 0, 2, 2);
  int32_t s0 = add(&b, FS_SEND, 0, 1, 1), s1 = add(&b, FS_SEND, 0, 1, 1);
  int32_t r0 = add(&b, FS_RECV, 1, 0, 1), r1 = add(&b, FS_RECV, 1, 0, 1);
  act(&b, s0, FS_FLOW_READ, 0), act(&b, s1, FS_FLOW_READ, 1);
  act(&b, r0, FS_FLOW_WRITE, 0), act(&b, r1, FS_FLOW_WRITE, 1);
  fs_program_depend(b.p, r1, r0, FS_AFTER_END);
  fs_test_finalize(b.p);
  char why[512];
  const char *result = fs_check_data_flow(b.p, &b.flow, why, sizeof why);
  ck_assert_msg(result && strstr(result, "share a channel but are not ordered"), "%s",
                result ? result : "not caught");
  fs_program_free(b.p);
  fs_data_flow_free(&b.flow);
}
END_TEST

/* A barrier where rank 2 leaves without hearing from rank 0. */
START_TEST(checker_barrier) {
  for (int complete = 0; complete < 2; complete++) {
    built b;
    b.p = fs_program_new(3);
    fs_data_flow_init(&b.flow);
    fs_data_flow_begin(&b.flow, FS_COLLECTIVE_BARRIER, 0, 1, 0);
    /* 1 and 2 tell 0, 0 answers 1 (and 2 when complete) */
    int32_t s1 = add(&b, FS_SEND, 1, 0, 0), s2 = add(&b, FS_SEND, 2, 0, 0);
    int32_t r1 = add(&b, FS_RECV, 0, 1, 0), r2 = add(&b, FS_RECV, 0, 2, 0);
    int32_t a1 = add(&b, FS_SEND, 0, 1, 0), b1 = add(&b, FS_RECV, 1, 0, 0);
    (void)s1, (void)s2, (void)b1;
    fs_program_depend(b.p, a1, r1, FS_AFTER_END);
    fs_program_depend(b.p, a1, r2, FS_AFTER_END);
    if (complete) {
      int32_t a2 = add(&b, FS_SEND, 0, 2, 0);
      add(&b, FS_RECV, 2, 0, 0);
      fs_program_depend(b.p, a2, r1, FS_AFTER_END);
      fs_program_depend(b.p, a2, r2, FS_AFTER_END);
    }
    fs_test_finalize(b.p);
    char why[512];
    const char *result = fs_check_data_flow(b.p, &b.flow, why, sizeof why);
    if (complete)
      ck_assert_msg(result == NULL, "%s", result);
    else
      ck_assert_msg(result && strstr(result, "rank 2 can leave the barrier before rank 0"), "%s",
                    result ? result : "not caught");
    fs_program_free(b.p);
    fs_data_flow_free(&b.flow);
  }
}
END_TEST

/* One-sided: a put to a temporary combined on the target after its remote
 * completion; through the local completion only, the combine is refused. */
START_TEST(checker_put_remote_completion) {
  for (int remote = 0; remote < 2; remote++) {
    built b;
    b.p = fs_program_new(2);
    fs_data_flow_init(&b.flow);
    fs_data_flow_begin(&b.flow, FS_COLLECTIVE_REDUCE, 1, 1, 8);
    int32_t put = add(&b, FS_PUT, 0, 1, 8), reduce = add(&b, FS_COMPUTE, 1, -1, 8);
    act(&b, put, FS_FLOW_PUT_TEMP, 0), act(&b, reduce, FS_FLOW_COMBINE, 0);
    fs_program_depend(b.p, reduce, put, remote ? FS_AFTER_END : FS_AFTER_LOCAL);
    fs_test_finalize(b.p);
    char why[512];
    const char *result = fs_check_data_flow(b.p, &b.flow, why, sizeof why);
    if (remote)
      ck_assert_msg(result == NULL, "%s", result);
    else
      ck_assert_msg(result && strstr(result, "depends on no received temporary"), "%s",
                    result ? result : "not caught");
    fs_program_free(b.p);
    fs_data_flow_free(&b.flow);
  }
}
END_TEST

/* Beyond 64 ranks contributions are hashed: a duplicate still shows. */
START_TEST(checker_hashed_duplicate) {
  built b;
  int32_t n = 100;
  b.p = fs_program_new(n);
  fs_data_flow_init(&b.flow);
  fs_data_flow_begin(&b.flow, FS_COLLECTIVE_REDUCE, 0, 1, 8);
  /* a linear reduce to 0, with rank 1's message sent twice (rank 2's missing) */
  int32_t previous = -1;
  for (int32_t r = 1; r < n; r++) {
    int32_t from = r == 2 ? 1 : r;
    int32_t send = add(&b, FS_SEND, from, 0, 8), recv = add(&b, FS_RECV, 0, from, 8);
    int32_t reduce = add(&b, FS_COMPUTE, 0, -1, 8);
    act(&b, send, FS_FLOW_READ, 0), act(&b, recv, FS_FLOW_TEMP, 0);
    act(&b, reduce, FS_FLOW_COMBINE, 0);
    fs_program_depend(b.p, reduce, recv, FS_AFTER_END);
    if (previous >= 0) {
      fs_program_depend(b.p, reduce, previous, FS_AFTER_END);
      fs_program_depend(b.p, recv, previous, FS_AFTER_END);
      if (r == 2) fs_program_depend(b.p, send, previous - 2, FS_AFTER_END);
    }
    previous = reduce;
  }
  fs_test_finalize(b.p);
  char why[512];
  const char *result = fs_check_data_flow(b.p, &b.flow, why, sizeof why);
  ck_assert_msg(result && strstr(result, "rank 0 ends with block 0 holding 100 contributions"),
                "%s", result ? result : "not caught");
  fs_program_free(b.p);
  fs_data_flow_free(&b.flow);
}
END_TEST

/* ---- every generator ---------------------------------------------------- */

/* Patterns copied op for op from schedgen for comparisons with LogGOPSim:
 * they have no reduces (or their rounds do not wait for each other), so
 * they record no data flow (their suites show why). */
static int schedgen_copy(const fs_generator *g) {
  return strcmp(g->name, "allreduce-recdoub") == 0 ||
         strcmp(g->name, "barrier-dissemination-schedgen") == 0;
}

/* The options of g at n ranks: allreduce-rm's heuristic schedule (the
 * composition allreduce-reduce-bcast runs its default). */
static fs_generator_options generator_options(const fs_generator *g, int32_t n, int64_t size) {
  fs_generator_options o = fs_test_options(n, size, 0, NULL);
  if (strcmp(g->name, "allreduce-rm") == 0) o.schedule = "auto";
  /* A sliced NCCL ring posts its receives ahead, so a recv is ordered after
   * the send that read its block only around the whole ring: the checker's
   * walk is then about k^2 tasks a recv; credits add more. NCCL's 2 slices
   * and 8-slot FIFO up to 16 ranks here, beyond one slice a chunk and no
   * credits (test_nccl_generators proves slices and credits). */
  if (g->options & FS_GEN_SLICES && n > 16) o.slices = 1, o.fifo = FS_NCCL_FIFO_UNLIMITED;
  return o;
}

/* Generators whose options make them undefined at some counts: skipped
 * there (their own suites test the refusal). */
static int defined_at(const fs_generator *g, int32_t n) {
  fs_generator_options o = generator_options(g, n, 24);
  fs_error err = {{0}};
  fs_program *p = g->generate(&o, &err);
  fs_program_free(p);
  return p != NULL;
}

/* Every generator but pingpong and the schedgen copies records a data flow. */
START_TEST(every_generator_records_flow) {
  int count;
  const fs_generator *g = fs_generator_list(&count);
  for (int i = 0; i < count; i++) {
    if (strcmp(g[i].name, "pingpong") == 0 || schedgen_copy(&g[i])) continue;
    if (g[i].traits & FS_GEN_FILE) continue; /* msccl: its own check (test_msccl) */
    fs_generator_options o = generator_options(&g[i], 8, 24);
    fs_data_flow flow;
    fs_data_flow_init(&flow);
    o.flow = &flow;
    fs_error err = {{0}};
    fs_program *p = g[i].generate(&o, &err);
    ck_assert_msg(p != NULL, "%s: %s", g[i].name, err.message);
    ck_assert_msg(flow.collective != FS_COLLECTIVE_NONE, "%s records no data flow", g[i].name);
    fs_program_free(p);
    fs_data_flow_free(&flow);
  }
}
END_TEST

/* NCCL's selectors (nccl_selection.h) refuse nodes of unequal GPU counts,
 * as NCCL's tuning takes k / N GPUs a node: on ceil(N/4) nodes of 4 cores,
 * sequential fills all but the last, round-robin deals them out. */
static int uneven_for_nccl(const fs_generator *g, int32_t n, const char *mapping) {
  const char *dash = strrchr(g->name, '-');
  if (!mapping || !(g->traits & FS_GEN_SELECTOR) || strcmp(dash, "-nccl") != 0) return 0;
  int32_t nodes = (n + 3) / 4;
  return strcmp(mapping, "seq") == 0 ? n % 4 != 0 && nodes > 1 : n % nodes != 0;
}

/* NCCL's NVLS (nccl_nvls.c) runs in one node's NVSwitch: it refuses the
 * platforms that put its GPUs on several nodes (test_nccl_nvls). */
static int several_nodes_for_nvls(const fs_generator *g, int32_t n, const char *mapping) {
  return mapping && strcmp(g->name, "allreduce-nccl-nvls") == 0 && n > 4;
}

/* NCCL's NVLSTree (nccl_nvlstree.c) runs across nodes of NVSwitch GPUs:
 * it refuses the platforms that put all its GPUs on one node, or one GPU
 * alone on a node (sequential, N = 4m + 1) (test_nccl_nvlstree). */
static int one_node_for_nvlstree(const fs_generator *g, int32_t n, const char *mapping) {
  if (!mapping || strcmp(g->name, "allreduce-nccl-nvlstree") != 0) return 0;
  return n <= 4 || (strcmp(mapping, "seq") == 0 && n % 4 == 1);
}

/* NCCL's CollNet (nccl_collnet.c) reduces across at least 2 nodes of
 * equal GPU counts: it refuses one node and uneven ones (test_nccl_collnet). */
static int refused_by_collnet(const fs_generator *g, int32_t n, const char *mapping) {
  if (strncmp(g->name, "allreduce-nccl-collnet-", 23) != 0) return 0;
  if (!mapping) return n < 2;
  int32_t nodes = (n + 3) / 4;
  return nodes < 2 || (strcmp(mapping, "seq") == 0 ? n % 4 != 0 : n % nodes != 0);
}

/* Every generator at N = 1..64, roots 0, N-1 and N/2 where it has one;
 * those that read a platform also on nodes of 4 cores, sequential and
 * round-robin (the last node short when 4 does not divide N). */
START_TEST(every_generator_flow) { /* looped over the generators */
  int count;
  const fs_generator *g = &fs_generator_list(&count)[_i];
  if (strcmp(g->name, "pingpong") == 0 || schedgen_copy(g)) return;
  if (g->traits & FS_GEN_FILE) return; /* msccl: its own check (test_msccl) */
  int checked = 0;
  for (int32_t n = 1; n <= 64; n++) {
    if (!defined_at(g, n)) continue;
    int32_t roots[3] = {0, n - 1, n / 2};
    int root_count = g->options & FS_GEN_ROOT ? 3 : 1;
    const char *mappings[3] = {NULL, "seq", "rr"};
    int mapping_count = g->options & FS_GEN_PLATFORM ? 3 : 1;
    for (int m = 0; m < mapping_count; m++) {
      fs_platform *platform = NULL;
      if (uneven_for_nccl(g, n, mappings[m]) || several_nodes_for_nvls(g, n, mappings[m]) ||
          one_node_for_nvlstree(g, n, mappings[m]) || refused_by_collnet(g, n, mappings[m]))
        continue;
      /* 4 GPUs a node: PAT is refused (one GPU a node only, test_nccl_pat) */
      if (mappings[m] && n > 1 && strstr(g->name, "-nccl-pat")) continue;
      if (mappings[m]) {
        fs_error err = {{0}};
        platform = fs_platform_from_options((n + 3) / 4, 4, mappings[m], n, &err);
        ck_assert_msg(platform != NULL, "%s", err.message);
      }
      for (int k = 0; k < root_count; k++) {
        fs_generator_options o = generator_options(g, n, 24);
        o.root = roots[k];
        o.platform = platform;
        char why[600];
        const char *result = fs_check_generator_flow(g->name, &o, why, sizeof why);
        ck_assert_msg(result == NULL, "%s%s%s", result, mappings[m] ? ", mapping " : "",
                      mappings[m] ? mappings[m] : "");
        checked++;
      }
      fs_platform_free(platform);
    }
  }
  ck_assert_msg(checked >= 7, "%s checked at only %d rank counts", g->name, checked);
}
END_TEST

/* And at a few counts beyond 64, where contributions are hashed: 100 (not
 * a power of two, even), 127 (prime) and 128 (a power of two). */
START_TEST(every_generator_flow_large) { /* looped over the generators */
  int count;
  const fs_generator *g = &fs_generator_list(&count)[_i];
  if (strcmp(g->name, "pingpong") == 0 || schedgen_copy(g)) return;
  const int32_t sizes[3] = {100, 127, 128};
  for (int k = 0; k < 3; k++) {
    int32_t n = sizes[k];
    if (!defined_at(g, n)) continue;
    fs_generator_options o = generator_options(g, n, 1000);
    o.root = g->options & FS_GEN_ROOT ? n / 3 : 0;
    char why[600];
    const char *result = fs_check_generator_flow(g->name, &o, why, sizeof why);
    ck_assert_msg(result == NULL, "%s", result);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("collectives");
  TCase *checker = tcase_create("checker");
  tcase_add_loop_test(checker, checker_on_exchange, 0, MISTAKES);
  tcase_add_test(checker, checker_forward_needs_data);
  tcase_add_loop_test(checker, checker_switch_rank, 0, SWITCH_MISTAKES);
  tcase_add_test(checker, checker_write_after_read);
  tcase_add_test(checker, checker_accumulations_commute);
  tcase_add_test(checker, checker_channel_order);
  tcase_add_test(checker, checker_barrier);
  tcase_add_test(checker, checker_put_remote_completion);
  tcase_add_test(checker, checker_hashed_duplicate);
  suite_add_tcase(s, checker);
  TCase *library = tcase_create("library");
  int count;
  fs_generator_list(&count);
  tcase_add_test(library, every_generator_records_flow);
  tcase_add_loop_test(library, every_generator_flow, 0, count);
  tcase_add_loop_test(library, every_generator_flow_large, 0, count);
  tcase_set_timeout(library, 600);
  suite_add_tcase(s, library);
  return fs_test_run(s);
}
