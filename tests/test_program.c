/* test_program.c: building and finalizing programs (src/core/program.c).
 *
 * Covers fs_program_new, fs_program_add (sequential ids, default fields,
 * refusal after finalize), the inline setters and flags, the tag, CPU and
 * NIC arrays (allocated on first use, cpus/nics computed by finalize),
 * fs_program_depend argument checks and dependency points, FS_EDGE_TASK,
 * fs_program_finalize (the successor CSR as documented in program.h: per
 * source task, start edges first, then local, then completion, each in the
 * order added; need = in-degree or any=K; peers of put, get, send and recv,
 * where a recv may take any source; every error with its exact message; a
 * failed finalize leaves the program buildable), label interning,
 * task names, kind names, fs_task_takes_cpu, fs_program_reserve (no regrowth
 * after reserving), fs_program_bytes, an empty program, and a larger
 * pseudo-random program whose CSR is compared with a naive recomputation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "test_support.h"

/* xorshift64 with a fixed seed: the same "random" program on every run. */
static uint64_t rng_state;
static uint64_t next_random(void) {
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return rng_state = x;
}

static int32_t add(fs_program *p, fs_task_kind kind, int32_t rank) {
  int32_t t = fs_program_add(p, kind, rank);
  ck_assert_int_ge(t, 0);
  return t;
}

/* Successors of t as a list, for exact comparison. */
static void assert_successors(const fs_program *p, int32_t t, const uint32_t *expected, int64_t n) {
  ck_assert_int_eq(p->successor_at[t + 1] - p->successor_at[t], n);
  for (int64_t i = 0; i < n; i++)
    ck_assert_msg(p->successor[p->successor_at[t] + i] == expected[i],
                  "task %d successor %lld: %#x, expected %#x", (int)t, (long long)i,
                  (unsigned)p->successor[p->successor_at[t] + i], (unsigned)expected[i]);
}

/* ---- construction ------------------------------------------------------- */

START_TEST(new_program) {
  ck_assert_ptr_null(fs_program_new(0));
  ck_assert_ptr_null(fs_program_new(-1));
  ck_assert_ptr_null(fs_program_new(INT32_MIN));
  fs_program *p = fs_program_new(3);
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(p->ranks, 3);
  ck_assert_int_eq(p->tasks, 0);
  ck_assert_int_eq(p->capacity, 0);
  ck_assert_int_eq(p->finalized, 0);
  ck_assert_int_eq(p->dependencies, 0);
  ck_assert_ptr_null(p->label);
  ck_assert_ptr_null(p->name_at);
  ck_assert_int_eq(p->label_count, 0);
  fs_program_free(p);
  fs_program_free(NULL); /* allowed */
}
END_TEST

START_TEST(add_defaults) {
  fs_program *p = fs_program_new(4);
  for (int32_t i = 0; i < 3000; i++) {
    int32_t t = fs_program_add(p, (fs_task_kind)(i % FS_TASK_KINDS), i % 4);
    ck_assert_int_eq(t, i);
  }
  ck_assert_int_eq(p->tasks, 3000);
  /* capacity grows 1024 -> 2048 -> 4096 */
  ck_assert_int_eq(p->capacity, 4096);
  for (int32_t t = 0; t < 3000; t++) {
    ck_assert_int_eq(p->kind[t], t % FS_TASK_KINDS);
    ck_assert_int_eq(p->rank[t], t % 4);
    ck_assert_int_eq(p->flags[t], 0);
    ck_assert_int_eq(p->peer[t], -1);
    ck_assert_int_eq(p->value[t], 0);
    ck_assert_int_eq(p->need[t], 0);
  }
  /* a rank out of range is only reported by finalize */
  ck_assert_int_eq(fs_program_add(p, FS_SLEEP, 99), 3000);
  fs_program_free(p);
}
END_TEST

START_TEST(setters_and_flags) {
  fs_program *p = fs_program_new(2);
  int32_t t = add(p, FS_PUT, 0);
  fs_task_set_peer(p, t, 1);
  ck_assert_int_eq(p->peer[t], 1);
  fs_task_set_size(p, t, 4096);
  ck_assert_int_eq(p->value[t], 4096);
  ck_assert_int_eq(p->flags[t], FS_HAS_SIZE);
  /* a time replaces the size and its flag */
  fs_task_set_time(p, t, 1500);
  ck_assert_int_eq(p->value[t], 1500);
  ck_assert_int_eq(p->flags[t], FS_HAS_TIME);
  fs_task_set_flag(p, t, FS_BLOCKING);
  fs_task_set_flag(p, t, FS_CONCURRENT);
  fs_task_set_flag(p, t, FS_BLOCKING); /* idempotent */
  ck_assert_int_eq(p->flags[t], FS_HAS_TIME | FS_BLOCKING | FS_CONCURRENT);
  /* and back to a size, keeping the other flags */
  fs_task_set_size(p, t, 8);
  ck_assert_int_eq(p->flags[t], FS_HAS_SIZE | FS_BLOCKING | FS_CONCURRENT);
  fs_task_set_any(p, t, 3);
  ck_assert_int_eq(p->need[t], 3);
  ck_assert_int_eq(p->flags[t], FS_HAS_SIZE | FS_BLOCKING | FS_CONCURRENT | FS_HAS_ANY);
  /* a neighbour is untouched */
  int32_t u = add(p, FS_SLEEP, 1);
  ck_assert_int_eq(p->flags[u], 0);
  ck_assert_int_eq(p->flags[t], FS_HAS_SIZE | FS_BLOCKING | FS_CONCURRENT | FS_HAS_ANY);
  fs_program_free(p);
}
END_TEST

START_TEST(depend_argument_checks) {
  fs_program *p = fs_program_new(1);
  add(p, FS_START, 0);
  add(p, FS_SLEEP, 0);
  ck_assert_int_eq(fs_program_depend(p, -1, 0, 0), -1);
  ck_assert_int_eq(fs_program_depend(p, 2, 0, 0), -1);
  ck_assert_int_eq(fs_program_depend(p, 1, -1, 0), -1);
  ck_assert_int_eq(fs_program_depend(p, 1, 2, 1), -1);
  ck_assert_int_eq(fs_program_depend(p, INT32_MAX, 0, 0), -1);
  ck_assert_int_eq(fs_program_depend(p, 0, INT32_MIN, 0), -1);
  /* only the three dependency points exist */
  ck_assert_int_eq(fs_program_depend(p, 1, 0, 3), -1);
  ck_assert_int_eq(fs_program_depend(p, 1, 0, 42), -1);
  ck_assert_int_eq(fs_program_depend(p, 1, 0, -1), -1);
  ck_assert_int_eq(p->dependencies, 0);
  ck_assert_int_eq(FS_AFTER_END, 0);
  ck_assert_int_eq(FS_AFTER_LOCAL, 1);
  ck_assert_int_eq(FS_AFTER_START, 2);
  ck_assert_int_eq(fs_program_depend(p, 1, 0, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_program_depend(p, 1, 0, FS_AFTER_LOCAL), 0);
  ck_assert_int_eq(fs_program_depend(p, 0, 0, FS_AFTER_END),
                   0); /* a self-loop is the engine's business */
  ck_assert_int_eq(fs_program_depend(p, 1, 0, FS_AFTER_START), 0);
  ck_assert_int_eq(p->dependencies, 4);
  /* pending pairs: (from, to | point bit) */
  ck_assert_uint_eq(p->pending[0], 0);
  ck_assert_uint_eq(p->pending[1], 1);
  ck_assert_uint_eq(p->pending[2], 0);
  ck_assert_uint_eq(p->pending[3], 1 | FS_EDGE_LOCAL);
  ck_assert_uint_eq(p->pending[5], 0);
  ck_assert_uint_eq(p->pending[7], 1 | FS_EDGE_START);
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  /* nothing may be added after finalize */
  ck_assert_int_eq(fs_program_depend(p, 1, 0, 0), -1);
  ck_assert_int_eq(fs_program_add(p, FS_SLEEP, 0), -1);
  ck_assert_int_eq(p->tasks, 2);
  ck_assert_int_eq(p->dependencies, 4);
  fs_program_free(p);
}
END_TEST

START_TEST(edge_bits) {
  /* the two point bits and the task id never overlap; ids up to FS_MAX_TASKS */
  ck_assert_int_eq(FS_MAX_TASKS, 0x3fffffff);
  ck_assert_uint_eq(FS_EDGE_LOCAL & FS_EDGE_START, 0);
  ck_assert_uint_eq((FS_EDGE_LOCAL | FS_EDGE_START) & (uint32_t)FS_MAX_TASKS, 0);
  ck_assert_int_eq(FS_EDGE_TASK((uint32_t)FS_MAX_TASKS | FS_EDGE_LOCAL), FS_MAX_TASKS);
  ck_assert_int_eq(FS_EDGE_TASK((uint32_t)FS_MAX_TASKS | FS_EDGE_START), FS_MAX_TASKS);
  ck_assert_int_eq(FS_EDGE_TASK(0u | FS_EDGE_START | FS_EDGE_LOCAL), 0);
  ck_assert_int_eq(FS_EDGE_TASK(12345u), 12345);
  ck_assert_int_eq(FS_EDGE_TASK(0xffffffffu), FS_MAX_TASKS);
  ck_assert_int_eq(FS_ANY_SOURCE, -1);
  ck_assert_int_eq(FS_ANY_TAG, -1);
}
END_TEST

/* NCCL protocols: absent until set (NONE), then per task, reset on add
 * and past a regrowth; the names round-trip and nothing else is a name. */
START_TEST(protocols) {
  fs_program *p = fs_program_new(2);
  for (int i = 0; i < 3; i++) add(p, FS_SEND, 0);
  ck_assert_ptr_null(p->protocol);
  ck_assert_int_eq(fs_task_protocol(p, 2), FS_PROTOCOL_NONE);
  int64_t before = fs_program_bytes(p);
  ck_assert_int_eq(fs_task_set_protocol(p, 1, FS_PROTOCOL_LL128), 0);
  ck_assert_int_eq(fs_program_bytes(p), before + p->capacity); /* 1 byte a task */
  ck_assert_int_eq(fs_task_protocol(p, 0), FS_PROTOCOL_NONE);
  ck_assert_int_eq(fs_task_protocol(p, 1), FS_PROTOCOL_LL128);
  ck_assert_int_eq(fs_task_set_protocol(p, 1, FS_PROTOCOLS), -1);
  ck_assert_int_eq(fs_task_set_protocol(p, 1, -1), -1);
  ck_assert_int_eq(fs_task_protocol(p, 1), FS_PROTOCOL_LL128);
  for (int i = 0; i < 2000; i++) add(p, FS_RECV, 1);
  ck_assert_int_eq(fs_task_protocol(p, 2002), FS_PROTOCOL_NONE);
  ck_assert_int_eq(fs_task_set_protocol(p, 2002, FS_PROTOCOL_SIMPLE), 0);
  ck_assert_int_eq(fs_task_protocol(p, 2002), FS_PROTOCOL_SIMPLE);
  for (int k = FS_PROTOCOL_LL; k < FS_PROTOCOLS; k++) {
    const char *name = fs_protocol_name(k);
    ck_assert_int_eq(fs_protocol_from_name(name, (int64_t)strlen(name)), k);
  }
  ck_assert_str_eq(fs_protocol_name(FS_PROTOCOL_LL), "LL");
  ck_assert_str_eq(fs_protocol_name(FS_PROTOCOL_LL128), "LL128");
  ck_assert_str_eq(fs_protocol_name(FS_PROTOCOL_SIMPLE), "Simple");
  ck_assert_str_eq(fs_protocol_name(FS_PROTOCOL_NONE), "");
  ck_assert_int_eq(fs_protocol_from_name("simple", 6), -1);
  ck_assert_int_eq(fs_protocol_from_name("LL12", 4), -1);
  ck_assert_int_eq(fs_protocol_from_name("LL", 1), -1);
  ck_assert_int_eq(fs_protocol_from_name("", 0), -1);
  fs_program_free(p);
}
END_TEST

START_TEST(tag_cpu_nic) {
  fs_program *p = fs_program_new(2);
  for (int i = 0; i < 5; i++) add(p, i < 3 ? FS_SEND : FS_COMPUTE, 0);
  /* nothing allocated until a setter runs; the readers say 0 */
  ck_assert_ptr_null(p->tag);
  ck_assert_ptr_null(p->cpu);
  ck_assert_ptr_null(p->nic);
  ck_assert_int_eq(fs_task_tag(p, 4), 0);
  ck_assert_int_eq(fs_task_cpu(p, 4), 0);
  ck_assert_int_eq(fs_task_nic(p, 4), 0);
  ck_assert_int_eq(fs_task_set_tag(p, 2, FS_ANY_TAG), 0);
  ck_assert_int_eq(fs_task_set_tag(p, 1, INT32_MAX), 0);
  ck_assert_int_eq(fs_task_set_cpu(p, 3, 255), 0);
  ck_assert_int_eq(fs_task_set_nic(p, 0, 7), 0);
  /* earlier tasks read 0 once the array exists */
  static const int32_t tags[] = {0, INT32_MAX, FS_ANY_TAG, 0, 0};
  static const int cpus[] = {0, 0, 0, 255, 0}, nics[] = {7, 0, 0, 0, 0};
  for (int t = 0; t < 5; t++) {
    ck_assert_int_eq(fs_task_tag(p, t), tags[t]);
    ck_assert_int_eq(fs_task_cpu(p, t), cpus[t]);
    ck_assert_int_eq(fs_task_nic(p, t), nics[t]);
  }
  /* out of range: refused, nothing changed */
  ck_assert_int_eq(fs_task_set_cpu(p, 3, 256), -1);
  ck_assert_int_eq(fs_task_set_cpu(p, 3, -1), -1);
  ck_assert_int_eq(fs_task_set_nic(p, 0, 256), -1);
  ck_assert_int_eq(fs_task_set_nic(p, 0, -1), -1);
  ck_assert_int_eq(fs_task_cpu(p, 3), 255);
  ck_assert_int_eq(fs_task_nic(p, 0), 7);
  /* tasks added later start at 0, also past a regrowth */
  for (int i = 0; i < 3000; i++) add(p, FS_RECV, 1);
  ck_assert_int_eq(p->capacity, 4096);
  int nonzero = 0;
  for (int32_t t = 5; t < p->tasks; t++)
    nonzero += fs_task_tag(p, t) != 0 || fs_task_cpu(p, t) != 0 || fs_task_nic(p, t) != 0;
  ck_assert_int_eq(nonzero, 0);
  ck_assert_int_eq(fs_task_set_nic(p, 3004, 2), 0);
  ck_assert_int_eq(fs_task_nic(p, 3004), 2);
  for (int32_t t = 0; t < p->tasks; t++) fs_task_set_peer(p, t, 1 - p->rank[t]);
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  /* cpus and nics: one more than the largest index */
  ck_assert_int_eq(p->cpus, 256);
  ck_assert_int_eq(p->nics, 8);
  fs_program_free(p);
}
END_TEST

START_TEST(strides) {
  fs_program *p = fs_program_new(2);
  for (int i = 0; i < 4; i++) add(p, i < 2 ? FS_PUT : FS_RECV, 0);
  /* nothing allocated until the setter runs; the reader says 0 (contiguous) */
  ck_assert_ptr_null(p->stride);
  ck_assert_int_eq(fs_task_stride(p, 3), 0);
  ck_assert_int_eq(fs_task_set_stride(p, 1, 1024), 0);
  ck_assert_int_eq(fs_task_set_stride(p, 3, INT64_MAX), 0);
  static const int64_t expected[] = {0, 1024, 0, INT64_MAX};
  for (int t = 0; t < 4; t++) ck_assert_int_eq(fs_task_stride(p, t), expected[t]);
  /* negative: refused, nothing changed; 0 sets contiguous again */
  ck_assert_int_eq(fs_task_set_stride(p, 1, -1), -1);
  ck_assert_int_eq(fs_task_stride(p, 1), 1024);
  ck_assert_int_eq(fs_task_set_stride(p, 3, 0), 0);
  ck_assert_int_eq(fs_task_stride(p, 3), 0);
  /* tasks added later start contiguous, also past a regrowth */
  for (int i = 0; i < 3000; i++) add(p, FS_SEND, 1);
  ck_assert_int_eq(p->capacity, 4096);
  int strided = 0;
  for (int32_t t = 4; t < p->tasks; t++) strided += fs_task_stride(p, t) != 0;
  ck_assert_int_eq(strided, 0);
  ck_assert_int_eq(fs_task_set_stride(p, 3003, 8), 0);
  ck_assert_int_eq(fs_task_stride(p, 3003), 8);
  ck_assert_int_eq(fs_task_stride(p, 1), 1024);
  fs_program_free(p);
}
END_TEST

START_TEST(cpus_and_nics_default) {
  fs_error err;
  fs_program *p = fs_program_new(1);
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(p->cpus, 1);
  ck_assert_int_eq(p->nics, 1);
  fs_program_free(p);
  /* set, but only to 0 */
  p = fs_program_new(1);
  add(p, FS_SLEEP, 0);
  fs_task_set_cpu(p, 0, 0);
  fs_task_set_nic(p, 0, 0);
  ck_assert_ptr_nonnull(p->cpu);
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(p->cpus, 1);
  ck_assert_int_eq(p->nics, 1);
  fs_program_free(p);
  /* a set on the only task of an unreserved program */
  p = fs_program_new(1);
  add(p, FS_SLEEP, 0);
  fs_task_set_cpu(p, 0, 3);
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(p->cpus, 4);
  ck_assert_int_eq(p->nics, 1);
  fs_program_free(p);
}
END_TEST

/* ---- finalize ----------------------------------------------------------- */

START_TEST(finalize_csr_order) {
  fs_program *p = fs_program_new(2);
  for (int i = 0; i < 5; i++) add(p, FS_SLEEP, i % 2);
  /* edges in the order added, as (task, on, local) */
  ck_assert_int_eq(fs_program_depend(p, 2, 0, 0), 0);
  ck_assert_int_eq(fs_program_depend(p, 1, 0, 1), 0);
  ck_assert_int_eq(fs_program_depend(p, 3, 0, 0), 0);
  ck_assert_int_eq(fs_program_depend(p, 4, 0, 1), 0);
  ck_assert_int_eq(fs_program_depend(p, 4, 1, 0), 0);
  ck_assert_int_eq(fs_program_depend(p, 2, 1, 1), 0);
  ck_assert_int_eq(fs_program_depend(p, 4, 1, 0), 0); /* a duplicate counts twice */
  ck_assert_int_eq(fs_program_depend(p, 3, 3, 0), 0);
  fs_error err = {{0}};
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_str_eq(err.message, "");
  ck_assert_int_eq(p->finalized, 1);
  ck_assert_ptr_null(p->pending);
  ck_assert_int_eq(p->dependencies, 8);
  /* task 0: local 1, 4 (in order added), then remote 2, 3 -> [0, 4)
   * task 1: local 2, then remote 4, 4 -> [4, 7)
   * task 2: none -> [7, 7); task 3: itself -> [7, 8); task 4: none */
  static const int64_t at[] = {0, 4, 7, 7, 8, 8};
  for (int i = 0; i < 6; i++) ck_assert_int_eq(p->successor_at[i], at[i]);
  const uint32_t s0[] = {1 | FS_EDGE_LOCAL, 4 | FS_EDGE_LOCAL, 2, 3};
  const uint32_t s1[] = {2 | FS_EDGE_LOCAL, 4, 4};
  const uint32_t s3[] = {3};
  assert_successors(p, 0, s0, 4);
  assert_successors(p, 1, s1, 3);
  assert_successors(p, 2, NULL, 0);
  assert_successors(p, 3, s3, 1);
  assert_successors(p, 4, NULL, 0);
  ck_assert_int_eq(FS_EDGE_TASK(p->successor[1]), 4);
  ck_assert_int_eq(FS_EDGE_TASK(p->successor[2]), 2);
  /* need = in-degree: 0; 1 (0:local); 2 (0, 1:local); 2 (0, itself);
   * 3 (0:local, 1, 1) */
  static const int32_t need[] = {0, 1, 2, 2, 3};
  for (int i = 0; i < 5; i++) ck_assert_int_eq(p->need[i], need[i]);
  /* finalizing again changes nothing */
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(p->successor_at[5], 8);
  assert_successors(p, 0, s0, 4);
  fs_program_free(p);
}
END_TEST

START_TEST(finalize_csr_start_edges) {
  fs_program *p = fs_program_new(1);
  for (int i = 0; i < 5; i++) add(p, FS_PROXY, 0);
  /* edges out of 0 and 1, all three points, interleaved */
  ck_assert_int_eq(fs_program_depend(p, 1, 0, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_program_depend(p, 2, 0, FS_AFTER_START), 0);
  ck_assert_int_eq(fs_program_depend(p, 3, 0, FS_AFTER_LOCAL), 0);
  ck_assert_int_eq(fs_program_depend(p, 4, 0, FS_AFTER_START), 0);
  ck_assert_int_eq(fs_program_depend(p, 2, 0, FS_AFTER_END), 0);
  ck_assert_int_eq(fs_program_depend(p, 4, 1, FS_AFTER_LOCAL), 0);
  ck_assert_int_eq(fs_program_depend(p, 3, 1, FS_AFTER_START), 0);
  ck_assert_int_eq(fs_program_depend(p, 1, 0, FS_AFTER_LOCAL), 0);
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  /* task 0: start 2, 4; local 3, 1; end 1, 2. task 1: start 3; local 4 */
  const uint32_t s0[] =
      {2 | FS_EDGE_START, 4 | FS_EDGE_START, 3 | FS_EDGE_LOCAL, 1 | FS_EDGE_LOCAL, 1, 2};
  const uint32_t s1[] = {3 | FS_EDGE_START, 4 | FS_EDGE_LOCAL};
  assert_successors(p, 0, s0, 6);
  assert_successors(p, 1, s1, 2);
  for (int t = 2; t < 5; t++) assert_successors(p, t, NULL, 0);
  /* a start dependency counts toward need like any other */
  static const int32_t need[] = {0, 2, 2, 2, 2};
  for (int i = 0; i < 5; i++) ck_assert_int_eq(p->need[i], need[i]);
  fs_program_free(p);
}
END_TEST

START_TEST(finalize_any) {
  fs_program *p = fs_program_new(1);
  for (int i = 0; i < 4; i++) add(p, FS_PROXY, 0);
  fs_program_depend(p, 3, 0, 0);
  fs_program_depend(p, 3, 1, 0);
  fs_program_depend(p, 3, 2, 1);
  fs_program_depend(p, 2, 0, 0);
  fs_task_set_any(p, 3, 2);
  fs_task_set_any(p, 2, 1); /* any=K equal to the in-degree */
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(p->need[3], 2); /* any=2 of 3 dependencies */
  ck_assert_int_eq(p->need[2], 1);
  ck_assert_int_eq(p->need[1], 0);
  ck_assert_int_eq(p->need[0], 0);
  ck_assert_int_eq(p->flags[3], FS_HAS_ANY);
  fs_program_free(p);
}
END_TEST

/* A finalize that must fail and leave the program unfinalized; returns the
 * error message. */
static const char *finalize_error(fs_program *p, fs_error *err) {
  strcpy(err->message, "untouched");
  ck_assert_int_eq(fs_program_finalize(p, err), -1);
  ck_assert_int_eq(p->finalized, 0);
  return err->message;
}

START_TEST(finalize_errors) {
  fs_error err;
  /* rank past the end, and negative */
  fs_program *p = fs_program_new(4);
  add(p, FS_SLEEP, 4);
  ck_assert_str_eq(finalize_error(p, &err), "task t0: rank 4 is outside [0, 4)");
  p->rank[0] = -1;
  ck_assert_str_eq(finalize_error(p, &err), "task t0: rank -1 is outside [0, 4)");
  fs_program_free(p);

  /* put and get need a peer in range; the default peer is -1 */
  p = fs_program_new(4);
  add(p, FS_SLEEP, 0); /* no peer needed */
  int32_t put = add(p, FS_PUT, 1);
  ck_assert_str_eq(finalize_error(p, &err), "task t1: peer rank -1 is outside [0, 4)");
  fs_task_set_peer(p, put, 4);
  ck_assert_str_eq(finalize_error(p, &err), "task t1: peer rank 4 is outside [0, 4)");
  fs_task_set_peer(p, put, 3);
  int32_t get = add(p, FS_GET, 3);
  ck_assert_str_eq(finalize_error(p, &err), "task t2: peer rank -1 is outside [0, 4)");
  fs_task_set_peer(p, get, 7);
  ck_assert_str_eq(finalize_error(p, &err), "task t2: peer rank 7 is outside [0, 4)");
  fs_task_set_peer(p, get, 0);
  /* the rank is checked before the peer */
  p->rank[get] = 9;
  ck_assert_str_eq(finalize_error(p, &err), "task t2: rank 9 is outside [0, 4)");
  p->rank[get] = 2;
  /* once fixed, the same program finalizes */
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  fs_program_free(p);

  /* any=0, any above the in-degree, any without dependencies */
  p = fs_program_new(1);
  add(p, FS_START, 0);
  add(p, FS_START, 0);
  int32_t join = add(p, FS_PROXY, 0);
  fs_program_depend(p, join, 0, 0);
  fs_program_depend(p, join, 1, 1);
  fs_task_set_any(p, join, 0);
  ck_assert_str_eq(finalize_error(p, &err), "task t2: any=0 but it has 2 dependencies");
  fs_task_set_any(p, join, 3);
  ck_assert_str_eq(finalize_error(p, &err), "task t2: any=3 but it has 2 dependencies");
  fs_task_set_any(p, join, -1);
  ck_assert_str_eq(finalize_error(p, &err), "task t2: any=-1 but it has 2 dependencies");
  fs_task_set_any(p, join, 2);
  int32_t lonely = add(p, FS_PROXY, 0);
  fs_task_set_any(p, lonely, 1);
  ck_assert_str_eq(finalize_error(p, &err), "task t3: any=1 but it has 0 dependencies");
  /* with a NULL error, just -1 */
  ck_assert_int_eq(fs_program_finalize(p, NULL), -1);
  fs_task_set_any(p, lonely, 0);
  ck_assert_str_eq(finalize_error(p, &err), "task t3: any=0 but it has 0 dependencies");
  p->flags[lonely] = 0; /* no any=: need is the in-degree, 0 */
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(p->need[join], 2);
  ck_assert_int_eq(p->need[lonely], 0);
  /* the failed attempts did not lose or duplicate edges */
  ck_assert_int_eq(p->successor_at[4], 2);
  fs_program_free(p);

  /* send needs a peer in range; a recv may also take any source (-1) */
  p = fs_program_new(3);
  int32_t send = add(p, FS_SEND, 0);
  ck_assert_str_eq(finalize_error(p, &err), "task t0: peer rank -1 is outside [0, 3)");
  fs_task_set_peer(p, send, 3);
  ck_assert_str_eq(finalize_error(p, &err), "task t0: peer rank 3 is outside [0, 3)");
  fs_task_set_peer(p, send, 2);
  int32_t recv = add(p, FS_RECV, 2); /* default peer -1: any source */
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(p->peer[recv], FS_ANY_SOURCE);
  fs_program_free(p);
  p = fs_program_new(3);
  recv = add(p, FS_RECV, 1);
  fs_task_set_peer(p, recv, -2);
  ck_assert_str_eq(finalize_error(p, &err), "task t0: peer rank -2 is outside [0, 3)");
  fs_task_set_peer(p, recv, 3);
  ck_assert_str_eq(finalize_error(p, &err), "task t0: peer rank 3 is outside [0, 3)");
  fs_task_set_peer(p, recv, 0);
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  fs_program_free(p);

  /* the first bad task in id order is reported, by name when it has one */
  p = fs_program_new(2);
  add(p, FS_SLEEP, 0);
  add(p, FS_PUT, 5);   /* bad rank and bad peer */
  add(p, FS_SLEEP, 2); /* bad rank */
  ck_assert_str_eq(finalize_error(p, &err), "task t1: rank 5 is outside [0, 2)");
  ck_assert_int_eq(fs_task_set_name(p, 1, "send_x", 6), 0);
  ck_assert_str_eq(finalize_error(p, &err), "task send_x: rank 5 is outside [0, 2)");
  p->rank[1] = 1;
  ck_assert_str_eq(finalize_error(p, &err), "task send_x: peer rank -1 is outside [0, 2)");
  fs_task_set_peer(p, 1, 0);
  ck_assert_str_eq(finalize_error(p, &err), "task t2: rank 2 is outside [0, 2)");
  fs_program_free(p);
}
END_TEST

START_TEST(finalize_empty_program) {
  fs_program *p = fs_program_new(1);
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(p->finalized, 1);
  ck_assert_ptr_nonnull(p->successor_at);
  ck_assert_int_eq(p->successor_at[0], 0);
  ck_assert_int_eq(p->dependencies, 0);
  ck_assert_int_eq(fs_program_add(p, FS_START, 0), -1);
  fs_program_free(p);

  /* tasks without any dependency */
  p = fs_program_new(1);
  for (int i = 0; i < 3; i++) add(p, FS_START, 0);
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  for (int i = 0; i <= 3; i++) ck_assert_int_eq(p->successor_at[i], 0);
  for (int i = 0; i < 3; i++) ck_assert_int_eq(p->need[i], 0);
  fs_program_free(p);
}
END_TEST

/* A larger program checked against a naive recomputation of the CSR. */
static const uint32_t *sort_from, *sort_to;
static int compare_edges(const void *a, const void *b) {
  int i = *(const int *)a, j = *(const int *)b;
  if (sort_from[i] != sort_from[j]) return sort_from[i] < sort_from[j] ? -1 : 1;
  /* start edges, then local, then completion */
  int group_i = sort_to[i] & FS_EDGE_START ? 0 : sort_to[i] & FS_EDGE_LOCAL ? 1 : 2;
  int group_j = sort_to[j] & FS_EDGE_START ? 0 : sort_to[j] & FS_EDGE_LOCAL ? 1 : 2;
  if (group_i != group_j) return group_i - group_j;
  return (i > j) - (i < j);
}

START_TEST(finalize_random_program) {
  enum { TASKS = 5000, EDGES = 40000, RANKS = 8 };
  rng_state = UINT64_C(0x2545f4914f6cdd1d);
  fs_program *p = fs_program_new(RANKS);
  ck_assert_int_eq(fs_program_reserve(p, TASKS / 2, EDGES / 3), 0); /* then still grows */
  for (int32_t t = 0; t < TASKS; t++) {
    fs_task_kind kind = (fs_task_kind)(next_random() % FS_TASK_KINDS);
    add(p, kind, (int32_t)(next_random() % RANKS));
    if (kind >= FS_PUT) fs_task_set_peer(p, t, (int32_t)(next_random() % RANKS));
    if (kind == FS_RECV && next_random() % 2) fs_task_set_peer(p, t, FS_ANY_SOURCE);
  }
  uint32_t *from = malloc(EDGES * sizeof *from), *to = malloc(EDGES * sizeof *to);
  int32_t *degree = calloc(TASKS, sizeof *degree);
  for (int e = 0; e < EDGES; e++) {
    /* a few hub tasks get many successors, as collectives do */
    uint64_t r = next_random();
    from[e] = (uint32_t)(r % 8 == 0 ? r % 16 : r % TASKS);
    uint32_t target = (uint32_t)(next_random() % TASKS);
    int point = (int)(next_random() % 3);
    to[e] = target | (point == FS_AFTER_LOCAL   ? FS_EDGE_LOCAL
                      : point == FS_AFTER_START ? FS_EDGE_START
                                                : 0);
    degree[target]++;
    ck_assert_int_eq(fs_program_depend(p, (int32_t)target, (int32_t)from[e], point), 0);
  }
  /* any=K on every tenth task that has dependencies */
  int32_t *any = calloc(TASKS, sizeof *any);
  for (int32_t t = 0; t < TASKS; t += 10)
    if (degree[t] > 0) {
      any[t] = 1 + (int32_t)(next_random() % (uint64_t)degree[t]);
      fs_task_set_any(p, t, any[t]);
    }
  fs_error err;
  ck_assert_msg(fs_program_finalize(p, &err) == 0, "%s", err.message);
  ck_assert_int_eq(p->dependencies, EDGES);
  /* naive: sort the edge indices by (source, start/local/end, index) and
   * compare the result with the CSR entry by entry */
  int *order = malloc(EDGES * sizeof *order);
  for (int e = 0; e < EDGES; e++) order[e] = e;
  sort_from = from;
  sort_to = to;
  qsort(order, EDGES, sizeof *order, compare_edges);
  int64_t position = 0;
  int mismatches = 0;
  for (int32_t t = 0; t < TASKS; t++) {
    if (p->successor_at[t] != position) mismatches++;
    while (position < EDGES && from[order[position]] == (uint32_t)t) {
      if (p->successor[position] != to[order[position]]) mismatches++;
      position++;
    }
    if (p->need[t] != (any[t] ? any[t] : degree[t])) mismatches++;
  }
  free(order);
  ck_assert_int_eq(position, EDGES);
  ck_assert_int_eq(p->successor_at[TASKS], EDGES);
  ck_assert_int_eq(mismatches, 0);
  free(from);
  free(to);
  free(degree);
  free(any);
  fs_program_free(p);
}
END_TEST

/* ---- labels and names --------------------------------------------------- */

START_TEST(labels_interned) {
  fs_program *p = fs_program_new(1);
  ck_assert_int_eq(fs_program_intern_label(p, "compute", 7), 0);
  ck_assert_int_eq(fs_program_intern_label(p, "put", 3), 1);
  ck_assert_int_eq(fs_program_intern_label(p, "compute", 7), 0);
  /* only `length` bytes are the label */
  ck_assert_int_eq(fs_program_intern_label(p, "computer", 7), 0);
  ck_assert_int_eq(fs_program_intern_label(p, "comp", 4), 2);
  ck_assert_int_eq(fs_program_intern_label(p, "putting", 3), 1);
  ck_assert_int_eq(fs_program_intern_label(p, "", 0), 3);
  ck_assert_int_eq(fs_program_intern_label(p, "", 0), 3);
  ck_assert_int_eq(p->label_count, 4);
  ck_assert_str_eq(p->labels[2], "comp");
  ck_assert_str_eq(p->labels[3], "");
  /* many labels: the table grows past 16, indices stay */
  char text[32];
  for (int i = 0; i < 100; i++) {
    snprintf(text, sizeof text, "label%d", i);
    ck_assert_int_eq(fs_program_intern_label(p, text, (int64_t)strlen(text)), 4 + i);
  }
  for (int i = 99; i >= 0; i--) {
    snprintf(text, sizeof text, "label%d", i);
    ck_assert_int_eq(fs_program_intern_label(p, text, (int64_t)strlen(text)), 4 + i);
  }
  ck_assert_int_eq(fs_program_intern_label(p, "put", 3), 1);
  ck_assert_int_eq(p->label_count, 104);
  fs_program_free(p);
}
END_TEST

START_TEST(labels_on_tasks) {
  fs_program *p = fs_program_new(1);
  add(p, FS_SLEEP, 0);
  add(p, FS_SLEEP, 0);
  ck_assert_ptr_null(fs_task_label(p, 0));
  ck_assert_ptr_null(p->label);
  int32_t put = fs_program_intern_label(p, "put", 3);
  ck_assert_int_eq(fs_task_set_label(p, 1, put), 0);
  ck_assert_ptr_nonnull(p->label);
  ck_assert_ptr_null(fs_task_label(p, 0));
  ck_assert_str_eq(fs_task_label(p, 1), "put");
  /* tasks added afterwards have none, also past a capacity regrowth */
  for (int i = 0; i < 3000; i++) add(p, FS_SLEEP, 0);
  ck_assert_ptr_null(fs_task_label(p, 2));
  ck_assert_ptr_null(fs_task_label(p, 3001));
  int32_t late = fs_program_intern_label(p, "late", 4);
  ck_assert_int_eq(fs_task_set_label(p, 3001, late), 0);
  ck_assert_int_eq(fs_task_set_label(p, 2, put), 0);
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_str_eq(fs_task_label(p, 3001), "late");
  ck_assert_str_eq(fs_task_label(p, 2), "put");
  ck_assert_str_eq(fs_task_label(p, 1), "put");
  ck_assert_ptr_null(fs_task_label(p, 3000));
  /* both tasks labelled "put" share one copy */
  ck_assert_ptr_eq(fs_task_label(p, 1), fs_task_label(p, 2));
  fs_program_free(p);
}
END_TEST

START_TEST(task_names) {
  char buffer[24];
  fs_program *p = fs_program_new(1);
  for (int i = 0; i < 20; i++) add(p, FS_SLEEP, 0);
  ck_assert_str_eq(fs_task_name(p, 0, buffer), "t0");
  ck_assert_str_eq(fs_task_name(p, 17, buffer), "t17");
  ck_assert_ptr_eq(fs_task_name(p, 17, buffer), buffer);
  /* the generated name needs no task storage */
  ck_assert_str_eq(fs_task_name(p, 1234567890, buffer), "t1234567890");
  ck_assert_str_eq(fs_task_name(p, INT32_MAX, buffer), "t2147483647");
  ck_assert_int_eq(fs_task_set_name(p, 1, "alpha", 5), 0);
  ck_assert_int_eq(fs_task_set_name(p, 3, "betamax", 4), 0); /* "beta" */
  ck_assert_int_eq(fs_task_set_name(p, 4, "", 0), 0);
  ck_assert_str_eq(fs_task_name(p, 1, buffer), "alpha");
  ck_assert_str_eq(fs_task_name(p, 3, buffer), "beta");
  ck_assert_str_eq(fs_task_name(p, 4, buffer), "");
  ck_assert_str_eq(fs_task_name(p, 0, buffer), "t0");
  ck_assert_str_eq(fs_task_name(p, 2, buffer), "t2");
  ck_assert_str_eq(fs_task_name(p, 19, buffer), "t19");
  /* renaming keeps the latest */
  ck_assert_int_eq(fs_task_set_name(p, 1, "gamma", 5), 0);
  ck_assert_str_eq(fs_task_name(p, 1, buffer), "gamma");
  /* tasks added later are unnamed; many names regrow the pool past 4096 B */
  for (int i = 0; i < 3000; i++) add(p, FS_SLEEP, 0);
  ck_assert_str_eq(fs_task_name(p, 2500, buffer), "t2500");
  char text[32];
  for (int32_t t = 20; t < 3020; t += 2) {
    snprintf(text, sizeof text, "task_number_%d", (int)t);
    ck_assert_int_eq(fs_task_set_name(p, t, text, (int64_t)strlen(text)), 0);
  }
  ck_assert_int_gt(p->names_capacity, 4096);
  int mismatches = 0;
  for (int32_t t = 20; t < 3020; t++) {
    if (t % 2 == 0)
      snprintf(text, sizeof text, "task_number_%d", (int)t);
    else
      snprintf(text, sizeof text, "t%d", (int)t);
    if (strcmp(fs_task_name(p, t, buffer), text) != 0) mismatches++;
  }
  ck_assert_int_eq(mismatches, 0);
  ck_assert_str_eq(fs_task_name(p, 3, buffer), "beta");
  fs_program_free(p);
}
END_TEST

/* "t<i>" in canonical decimal is task i's generated name: only that form. */
START_TEST(generated_name_ids) {
  const struct {
    const char *text;
    int32_t id;
  } cases[] = {{"t0", 0},           {"t7", 7},
               {"t10", 10},         {"t2147483647", INT32_MAX},
               {"t2147483648", -1}, {"t99999999999", -1},
               {"t00", -1},         {"t01", -1},
               {"t", -1},           {"", -1},
               {"T1", -1},          {"x1", -1},
               {"t1a", -1},         {"t-1", -1},
               {"t+1", -1},         {"t 1", -1},
               {"tt1", -1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_msg(fs_task_generated_id(cases[i].text, (int64_t)strlen(cases[i].text)) ==
                      cases[i].id,
                  "%s", cases[i].text);
  ck_assert_int_eq(fs_task_generated_id("t12", 2), 1); /* the length is what counts */
}
END_TEST

/* A task's own generated name is not stored; any other name is, "t<j>" on
 * task i != j included; renaming back to the generated name drops it. */
START_TEST(generated_names_not_stored) {
  char buffer[24];
  fs_program *p = fs_program_new(1);
  for (int i = 0; i < 4; i++) add(p, FS_SLEEP, 0);
  ck_assert_int_eq(p->named, 0);
  ck_assert_int_eq(fs_task_set_name(p, 2, "t2", 2), 0);
  ck_assert_int_eq(p->named, 1);
  ck_assert_ptr_null(p->name_at);
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 26);
  ck_assert_int_eq(fs_task_set_name(p, 1, "t3", 2), 0); /* another task's: kept */
  ck_assert_ptr_nonnull(p->name_at);
  ck_assert_int_eq(fs_task_name_stored(p, 1), 1);
  ck_assert_int_eq(fs_task_name_stored(p, 2), 0);
  ck_assert_int_eq(fs_task_name_stored(p, 3), 0);
  ck_assert_str_eq(fs_task_name(p, 1, buffer), "t3");
  ck_assert_str_eq(fs_task_name(p, 3, buffer), "t3"); /* a builder may make twins */
  ck_assert_int_eq(fs_task_set_name(p, 1, "t1", 2), 0);
  ck_assert_int_eq(fs_task_name_stored(p, 1), 0);
  ck_assert_str_eq(fs_task_name(p, 1, buffer), "t1");
  /* fs_task_name_equals: whole names only, either storage */
  ck_assert_int_eq(fs_task_set_name(p, 0, "alpha", 5), 0);
  ck_assert(fs_task_name_equals(p, 0, "alpha", 5));
  ck_assert(!fs_task_name_equals(p, 0, "alph", 4));
  ck_assert(!fs_task_name_equals(p, 0, "alphab", 6));
  ck_assert(!fs_task_name_equals(p, 0, "t0", 2));
  ck_assert(fs_task_name_equals(p, 2, "t2", 2));
  ck_assert(!fs_task_name_equals(p, 2, "t20", 3));
  ck_assert(!fs_task_name_equals(p, 2, "t", 1));
  ck_assert(!fs_task_name_equals(p, 2, "t02", 3));
  fs_program_free(p);
}
END_TEST

/* ---- kinds -------------------------------------------------------------- */

START_TEST(kind_names) {
  static const char *const names[] = {"start", "proxy", "sleep", "compute",
                                      "put",   "get",   "send",  "recv"};
  ck_assert_int_eq(FS_TASK_KINDS, 8);
  for (int k = 0; k < FS_TASK_KINDS; k++) {
    ck_assert_str_eq(fs_task_kind_name((fs_task_kind)k), names[k]);
    ck_assert_int_eq(fs_task_kind_from_name(names[k], (int64_t)strlen(names[k])), k);
  }
  ck_assert_int_eq(FS_START, 0);
  ck_assert_int_eq(FS_GET, 5);
  ck_assert_int_eq(FS_SEND, 6);
  ck_assert_int_eq(FS_RECV, 7);
  ck_assert_str_eq(fs_task_kind_name(FS_TASK_KINDS), "?");
  ck_assert_str_eq(fs_task_kind_name((fs_task_kind)200), "?");
  ck_assert_int_eq(fs_task_kind_from_name("sleepy", 5), FS_SLEEP);
  ck_assert_int_eq(fs_task_kind_from_name("computer", 7), FS_COMPUTE);
  ck_assert_int_eq(fs_task_kind_from_name("sender", 4), FS_SEND);
  const char *unknown[] = {"",     "sleepy", "pu",    "puts", "Start",   "GET",
                           " put", "put ",   "sends", "Recv", "receive", "?"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
    ck_assert_int_eq(fs_task_kind_from_name(unknown[i], (int64_t)strlen(unknown[i])), -1);
  ck_assert_int_eq(fs_task_kind_from_name("get", 2), -1);
}
END_TEST

START_TEST(takes_cpu) {
  /* start and proxy never take the CPU; the others do unless concurrent */
  static const int expected[FS_TASK_KINDS] = {0, 0, 1, 1, 1, 1, 1, 1};
  fs_program *p = fs_program_new(1);
  for (int k = 0; k < FS_TASK_KINDS; k++) {
    int32_t plain = add(p, (fs_task_kind)k, 0);
    int32_t concurrent = add(p, (fs_task_kind)k, 0);
    fs_task_set_flag(p, concurrent, FS_CONCURRENT);
    int32_t blocking = add(p, (fs_task_kind)k, 0);
    fs_task_set_flag(p, blocking, FS_BLOCKING | FS_HAS_SIZE | FS_HAS_ANY);
    ck_assert_msg(fs_task_takes_cpu(p, plain) == expected[k], "kind %d", k);
    ck_assert_msg(fs_task_takes_cpu(p, concurrent) == 0, "concurrent kind %d", k);
    ck_assert_msg(fs_task_takes_cpu(p, blocking) == expected[k], "blocking kind %d", k);
  }
  fs_program_free(p);
}
END_TEST

/* ---- memory ------------------------------------------------------------- */

START_TEST(reserve_then_add_without_regrowth) {
  enum { TASKS = 5000, DEPENDENCIES = 7000 };
  fs_program *p = fs_program_new(2);
  ck_assert_int_eq(fs_program_reserve(p, (int64_t)FS_MAX_TASKS + 1, 0), -1);
  ck_assert_int_eq(fs_program_reserve(p, TASKS, DEPENDENCIES), 0);
  ck_assert_int_eq(p->capacity, TASKS);
  ck_assert_int_eq(p->pending_capacity, DEPENDENCIES);
  /* reserving less never shrinks */
  ck_assert_int_eq(fs_program_reserve(p, 10, 10), 0);
  ck_assert_int_eq(p->capacity, TASKS);
  ck_assert_int_eq(p->pending_capacity, DEPENDENCIES);
  void *arrays[] = {p->kind, p->flags, p->rank, p->peer, p->value, p->need, p->pending};
  for (int32_t i = 0; i < TASKS; i++) ck_assert_int_eq(fs_program_add(p, FS_SLEEP, i % 2), i);
  for (int i = 0; i < DEPENDENCIES; i++)
    ck_assert_int_eq(fs_program_depend(p, (i + 1) % TASKS, i % TASKS, i % 2), 0);
  void *after[] = {p->kind, p->flags, p->rank, p->peer, p->value, p->need, p->pending};
  for (int i = 0; i < 7; i++) ck_assert_ptr_eq(arrays[i], after[i]);
  ck_assert_int_eq(p->capacity, TASKS);
  ck_assert_int_eq(p->pending_capacity, DEPENDENCIES);
  /* one more of each grows (doubling) */
  ck_assert_int_eq(fs_program_add(p, FS_SLEEP, 0), TASKS);
  ck_assert_int_eq(p->capacity, 2 * TASKS);
  ck_assert_int_eq(fs_program_depend(p, 0, 1, 0), 0);
  ck_assert_int_eq(p->pending_capacity, 2 * DEPENDENCIES);
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  fs_program_free(p);
}
END_TEST

START_TEST(program_bytes) {
  fs_program *p = fs_program_new(1);
  ck_assert_int_eq(fs_program_bytes(p), 0);
  add(p, FS_SLEEP, 0);
  add(p, FS_SLEEP, 0);
  /* capacity 1024 tasks * 26 bytes */
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 26);
  fs_program_depend(p, 1, 0, 0);
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 26 + 4);
  fs_task_set_label(p, 0, fs_program_intern_label(p, "x", 1));
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 30 + 4);
  fs_task_set_name(p, 0, "a", 1);
  /* + 8 per task for name offsets + the 4096-byte name pool */
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 38 + 4 + 4096);
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 38 + 4 + 4096);
  fs_program_free(p);
  /* + 4 per task for tags, 1 each for CPUs and NICs */
  p = fs_program_new(2);
  add(p, FS_SEND, 0);
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 26);
  fs_task_set_tag(p, 0, 3);
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 30);
  fs_task_set_cpu(p, 0, 1);
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 31);
  fs_task_set_nic(p, 0, 1);
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 32);
  fs_task_set_stride(p, 0, 64); /* + 8 per task for strides */
  ck_assert_int_eq(fs_program_bytes(p), 1024 * 40);
  fs_program_free(p);
}
END_TEST

/* fs_program_interleave on 3 ranks of 3 tasks (rank r's tasks A, B, C at
 * ids 3r, 3r+1, 3r+2; B depends on A's end, C on B's start, and r0's A on
 * r2's C's local end): rank r's j-th task becomes j x 3 + r, so r1's B
 * (id 4) stays 4, r0's C (2) becomes 6, r2's A (6) becomes 2; every
 * successor entry keeps its bits, the fields follow their tasks, read
 * order maps back, names stay "rR.lK". A program of uneven ranks, or one
 * already interleaved, is left as it is (0). */
START_TEST(interleave_ranks) {
  fs_program *p = fs_program_new(3);
  for (int32_t r = 0; r < 3; r++)
    for (int32_t j = 0; j < 3; j++) {
      int32_t t = fs_program_add(p, j == 1 ? FS_SEND : FS_COMPUTE, r);
      ck_assert_int_eq(t, 3 * r + j);
      if (j == 1) fs_task_set_peer(p, t, (r + 1) % 3);
    }
  for (int32_t r = 0; r < 3; r++) {
    fs_task_set_time(p, 3 * r, 100 + r);
    ck_assert_int_eq(fs_program_depend(p, 3 * r + 1, 3 * r, FS_AFTER_END), 0);
    ck_assert_int_eq(fs_program_depend(p, 3 * r + 2, 3 * r + 1, FS_AFTER_START), 0);
  }
  ck_assert_int_eq(fs_program_depend(p, 0, 8, FS_AFTER_LOCAL), 0);
  p->names_implied = 1;
  fs_error err;
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  char name[24];
  ck_assert_str_eq(fs_task_name(p, 5, name), "r1.l3");
  ck_assert_int_eq(fs_program_interleave(p), 1);
  ck_assert_int_eq(p->interleaved, 3);
  for (int32_t r = 0; r < 3; r++)
    for (int32_t j = 0; j < 3; j++) {
      int32_t t = 3 * j + r;
      char expected[24];
      snprintf(expected, sizeof expected, "r%d.l%d", r, j + 1);
      ck_assert_str_eq(fs_task_name(p, t, name), expected);
      ck_assert_int_eq(fs_task_rank(p, t), r);
      ck_assert_int_eq(fs_task_kind_of(p, t), j == 1 ? FS_SEND : FS_COMPUTE);
      ck_assert_int_eq(fs_task_peer(p, t), j == 1 ? (r + 1) % 3 : -1);
      ck_assert_int_eq(fs_task_need(p, t), j == 0 && r != 0 ? 0 : 1);
      ck_assert_int_eq(fs_task_in_read_order(p, 3 * r + j), t);
    }
  ck_assert_int_eq(fs_task_value(p, 2), 102); /* r2's A: 102 ps */
  uint32_t n;
  const uint32_t *s = fs_task_successors(p, 2, NULL, &n); /* r2's A -> its B, now 5 */
  ck_assert_uint_eq(n, 1);
  ck_assert_uint_eq(s[0], 5);
  s = fs_task_successors(p, 4, NULL, &n); /* r1's B -> its C's start, now 7 */
  ck_assert_uint_eq(n, 1);
  ck_assert_uint_eq(s[0], 7 | FS_EDGE_START);
  s = fs_task_successors(p, 8, NULL, &n); /* r2's C -> r0's A at its local end, now 0 */
  ck_assert_uint_eq(n, 1);
  ck_assert_uint_eq(s[0], 0 | FS_EDGE_LOCAL);
  ck_assert_int_eq(fs_program_interleave(p), 0); /* once */
  fs_program_free(p);
  p = fs_program_new(2); /* uneven: 2 tasks and 1 */
  fs_program_add(p, FS_COMPUTE, 0), fs_program_add(p, FS_COMPUTE, 0);
  fs_program_add(p, FS_COMPUTE, 1);
  ck_assert_int_eq(fs_program_finalize(p, &err), 0);
  ck_assert_int_eq(fs_program_interleave(p), 0);
  ck_assert_int_eq(fs_task_in_read_order(p, 2), 2);
  fs_program_free(p);
}
END_TEST

static Suite *program_suite(void) {
  Suite *s = suite_create("program");
  TCase *build = tcase_create("build");
  tcase_add_test(build, new_program);
  tcase_add_test(build, add_defaults);
  tcase_add_test(build, setters_and_flags);
  tcase_add_test(build, depend_argument_checks);
  tcase_add_test(build, edge_bits);
  tcase_add_test(build, tag_cpu_nic);
  tcase_add_test(build, protocols);
  tcase_add_test(build, strides);
  tcase_add_test(build, cpus_and_nics_default);
  suite_add_tcase(s, build);
  TCase *finalize = tcase_create("finalize");
  tcase_add_test(finalize, finalize_csr_order);
  tcase_add_test(finalize, finalize_csr_start_edges);
  tcase_add_test(finalize, finalize_any);
  tcase_add_test(finalize, finalize_errors);
  tcase_add_test(finalize, finalize_empty_program);
  tcase_add_test(finalize, finalize_random_program);
  tcase_add_test(finalize, interleave_ranks);
  suite_add_tcase(s, finalize);
  TCase *text = tcase_create("text");
  tcase_add_test(text, labels_interned);
  tcase_add_test(text, labels_on_tasks);
  tcase_add_test(text, task_names);
  tcase_add_test(text, generated_name_ids);
  tcase_add_test(text, generated_names_not_stored);
  tcase_add_test(text, kind_names);
  tcase_add_test(text, takes_cpu);
  suite_add_tcase(s, text);
  TCase *memory = tcase_create("memory");
  tcase_add_test(memory, reserve_then_add_without_regrowth);
  tcase_add_test(memory, program_bytes);
  suite_add_tcase(s, memory);
  return s;
}

int main(void) { return fs_test_run(program_suite()); }
