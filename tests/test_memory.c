/* test_memory.c: memory in proportion to the work (issue 15 item 4): the
 * per-rank state of a run exists only for the ranks its tasks use (program
 * slots), the noise keeps no per-rank table, a platform far larger than its
 * ranks costs nothing per node, and one "too large" message with exit
 * status 2. The command-line cases run fennelsim under an address-space
 * limit (setrlimit RLIMIT_AS in the child): a run that fits proves it needs
 * no memory per unused rank or node. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/engine.h"
#include "core/error.h"
#include "model_support.h"
#include "noise/noise.h"
#include "platform/platform.h"
#include "test_support.h"

#define NS 1000 /* picoseconds */
#define MIB ((rlim_t)1 << 20)

/* AddressSanitizer reserves terabytes of address space: no RLIMIT_AS then. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Runs fennelsim with argv (NULL-terminated, argv[0] unused) under an
 * address-space limit of `limit` bytes (0: none), stdout and stderr into
 * *out and *err (caller frees). Returns the exit status, 128 + signal. */
static int run_limited(rlim_t limit, char *const argv[], char **out, char **err) {
  char *out_path = fs_test_temp_path(".out"), *err_path = fs_test_temp_path(".err");
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || chdir(FENNELSIM_SOURCE_ROOT))
      _exit(126);
    struct rlimit r = {limit, limit};
    if (limit && !SANITIZED && setrlimit(RLIMIT_AS, &r)) _exit(126);
    execv(FENNELSIM_BINARY, argv);
    _exit(127);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  *out = fs_test_read_file(out_path, NULL);
  *err = fs_test_read_file(err_path, NULL);
  remove(out_path), remove(err_path);
  free(out_path), free(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *write_temp(const char *suffix, const char *text) {
  char *path = fs_test_temp_path(suffix);
  ck_assert_int_eq(fs_test_write_file(path, text, 0), 0);
  return path;
}

/* One compute task of 10 ns on rank 0 of `ranks` ranks. */
static fs_program *one_task(int32_t ranks) {
  fs_program *p = fs_program_new(ranks);
  int32_t t = fs_program_add(p, FS_COMPUTE, 0);
  fs_task_set_time(p, t, 10 * NS);
  fs_error err;
  ck_assert_msg(fs_program_finalize(p, &err) == 0, "%s", err.message);
  return p;
}

/* Slots: dense while ranks <= 4 x tasks + 4096 (one task: 4100), then
 * only the used ranks, ascending. */
START_TEST(slots_dense_then_sparse) {
  fs_program *p = one_task(4100);
  ck_assert_int_eq(p->slots, 4100);
  ck_assert_ptr_null(p->slot_rank);
  ck_assert_int_eq(fs_program_slot(p, 4099), 4099);
  fs_program_free(p);
  p = one_task(4101);
  ck_assert_int_eq(p->slots, 1);
  ck_assert_int_eq(fs_program_slot(p, 0), 0);
  ck_assert_int_eq(fs_program_slot(p, 4100), -1);
  ck_assert_int_eq(fs_program_slot_rank(p, 0), 0);
  fs_program_free(p);
  /* a put from rank 7 to the last rank and a recv from any: slots for 7
   * and 2147483646 (the peer), in rank order */
  p = fs_program_new(INT32_MAX);
  int32_t put = fs_program_add(p, FS_PUT, 2147483646 - 1);
  fs_task_set_peer(p, put, 7);
  fs_task_set_size(p, put, 8);
  int32_t recv = fs_program_add(p, FS_RECV, 2147483646);
  fs_task_set_peer(p, recv, FS_ANY_SOURCE);
  fs_error err;
  ck_assert_msg(fs_program_finalize(p, &err) == 0, "%s", err.message);
  ck_assert_int_eq(p->slots, 3);
  ck_assert_int_eq(fs_program_slot_rank(p, 0), 7);
  ck_assert_int_eq(fs_program_slot_rank(p, 1), 2147483645);
  ck_assert_int_eq(fs_program_slot_rank(p, 2), 2147483646);
  ck_assert_int_eq(fs_program_slot(p, 2147483646), 2);
  ck_assert_int_eq(fs_program_slot(p, 0), -1);
  fs_program_free(p);
}
END_TEST

/* 50000000 and 2147483647 ranks with one task: the run state is that of
 * the same task on 1 rank (engine_bytes_exact counts it). */
START_TEST(engine_bytes_per_used_rank) {
  fs_program *one = one_task(1);
  fs_simulation small;
  fs_test_simulate(&small, one, "hockney", "fixed", "");
  ck_assert_int_eq(small.status, FS_RUN_OK);
  const int32_t counts[2] = {50000000, INT32_MAX};
  for (int i = 0; i < 2; i++) {
    fs_program *p = one_task(counts[i]);
    fs_simulation run;
    fs_test_simulate(&run, p, "hockney", "fixed", "");
    ck_assert_int_eq(run.status, FS_RUN_OK);
    ck_assert_int_eq(fs_engine_bytes(run.engine), fs_engine_bytes(small.engine));
    ck_assert_int_eq(fs_engine_makespan(run.engine), 10 * NS);
    ck_assert_int_eq(fs_engine_finish(run.engine, 0), 10 * NS);
    ck_assert_int_eq(fs_engine_finish(run.engine, counts[i] - 1), 0);
    fs_test_run_free(&run);
    fs_program_free(p);
  }
  fs_test_run_free(&small);
  fs_program_free(one);
}
END_TEST

/* A message from rank 0 to rank `last` (a recv there from 0), 8 bytes. */
static fs_program *one_message(int32_t ranks, int32_t last) {
  fs_program *p = fs_program_new(ranks);
  int32_t send = fs_program_add(p, FS_SEND, 0), recv = fs_program_add(p, FS_RECV, last);
  fs_task_set_peer(p, send, last);
  fs_task_set_size(p, send, 8);
  fs_task_set_peer(p, recv, 0);
  fs_task_set_size(p, recv, 8);
  fs_error err;
  ck_assert_msg(fs_program_finalize(p, &err) == 0, "%s", err.message);
  return p;
}

/* The message from rank 0 to rank 49999999 under LogGOPS defaults (L=2500
 * o=1500 g=1000 G=6 O=0 ns), sparse: the sender's CPU holds o = 1500 ns;
 * the message arrives at o + L = 4000 ns and the receiver's CPU takes o +
 * 7 G = 1542 ns: the recv completes at 5542 ns. The run state is that of
 * the same message on 2 ranks (engine_bytes_exact counts it). */
START_TEST(sparse_message_loggops) {
  fs_program *two = one_message(2, 1);
  fs_simulation small;
  fs_test_simulate(&small, two, "loggops", "fixed", "");
  ck_assert_msg(small.status == FS_RUN_OK, "%s", small.err.message);
  ck_assert_int_eq(fs_engine_finish(small.engine, 1), 5542 * NS);
  fs_program *p = one_message(50000000, 49999999);
  fs_simulation run;
  fs_test_simulate(&run, p, "loggops", "fixed", "");
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  ck_assert_int_eq(fs_engine_bytes(run.engine), fs_engine_bytes(small.engine));
  ck_assert_int_eq(fs_engine_finish(run.engine, 0), 1500 * NS);
  ck_assert_int_eq(fs_engine_finish(run.engine, 49999999), 5542 * NS);
  ck_assert_int_eq(fs_engine_finish(run.engine, 1), 0);
  fs_test_run_free(&run);
  fs_test_run_free(&small);
  fs_program_free(p);
  fs_program_free(two);
}
END_TEST

/* The bytes the engine holds after a run, every array counted:
 * - one compute of 10 ns on 1 rank (hockney, fixed): per task, one more
 *   than the tasks (2), remaining 4 + waiting_next 4 + place 4 = 24; per
 *   slot (1) its CPU's cpu_state 40 + dispatch entry 16, and finish 8 =
 *   64; the event queue: the completion at 10000 ps goes to bucket 14
 *   (highest bit 13 differs from 0), which holds one time and is read
 *   where it is: one bucket of 256 events x 16 bytes = 4096. In all 4184.
 * - run again under host noise x2: its state 40 (noise, program, seed,
 *   draws, started), draws 8 per slot, started 8 per task (2) = 64; the
 *   completion, now at 20000 ps, goes to bucket 15 (highest bit 14),
 *   which takes bucket 14's array (empty, larger than its none): no more
 *   queue bytes. 4248.
 * - an eager 8-byte message from rank 0 to 1 under loggops: per task (3)
 *   12 + 1 two-sided flag = 39; per slot (2) 64 + 16 match queues = 160;
 *   the queue: the send's CPU release at 1500 ns (bucket 21) and arrival
 *   at 4000 ns (bucket 22), each read in place; the receipt's end at
 *   5542 ns (bucket 23: 4000000 ^ 5542000 has bit 22 highest) takes bucket
 *   21's array, read by then: 2 x 4096 = 8192. In all 8391. */
START_TEST(engine_bytes_exact) {
  fs_program *one = one_task(1);
  fs_simulation run;
  fs_test_simulate(&run, one, "hockney", "fixed", "");
  ck_assert_int_eq(run.status, FS_RUN_OK);
  ck_assert_int_eq(fs_engine_bytes(run.engine), 4184);
  fs_noise *noise = fs_noise_new();
  ck_assert_int_eq(fs_noise_add(noise, "host=constant:value=2", &run.err), 0);
  ck_assert_int_eq(fs_noise_prepare(noise, 1, &run.err), 0);
  ck_assert_int_eq(fs_engine_set_noise(run.engine, noise, 1, &run.err), 0);
  ck_assert_int_eq(fs_engine_run(run.engine, &run.err), FS_RUN_OK);
  ck_assert_int_eq(fs_engine_makespan(run.engine), 20 * NS);
  ck_assert_int_eq(fs_engine_bytes(run.engine), 4248);
  fs_test_run_free(&run);
  fs_noise_free(noise);
  fs_program_free(one);
  fs_program *two = one_message(2, 1);
  fs_test_simulate(&run, two, "loggops", "fixed", "");
  ck_assert_msg(run.status == FS_RUN_OK, "%s", run.err.message);
  ck_assert_int_eq(fs_engine_bytes(run.engine), 8391);
  fs_test_run_free(&run);
  fs_program_free(two);
}
END_TEST

/* noise.c once built a ranks x 3 int16 table, indexed in int32: 1073741823
 * ranks overflowed. Per-rank terms are now segments. */
START_TEST(noise_without_per_rank_table) {
  fs_noise *n = fs_noise_new();
  fs_error err;
  ck_assert_int_eq(fs_noise_prepare(n, 1073741823, &err), 0);
  ck_assert_int_eq(fs_noise_add(n, "host=constant:value=2", &err), 0);
  ck_assert_int_eq(fs_noise_add_rank(n, "5-9:host=constant:value=3", &err), 0);
  ck_assert_int_eq(fs_noise_add_rank(n, "2147483000-2147483646:net=constant:value=4", &err), 0);
  ck_assert_int_eq(fs_noise_add_rank(n, "7:host=constant:value=5", &err), 0);
  ck_assert_int_eq(fs_noise_prepare(n, INT32_MAX, &err), 0);
  /* host: general x2, ranks 5..9 x3, rank 7 x5 (the later term wins) */
  const int32_t ranks[6] = {0, 4, 5, 7, 9, 10};
  const fs_time host[6] = {200, 200, 300, 500, 300, 200};
  for (int i = 0; i < 6; i++)
    ck_assert_int_eq(fs_noise_apply(n, FS_NOISE_HOST, ranks[i], 1, 0, 100), host[i]);
  ck_assert_int_eq(fs_noise_has(n, FS_NOISE_NET, 2147482999), 0);
  ck_assert_int_eq(fs_noise_apply(n, FS_NOISE_NET, 2147483000, 1, 0, 100), 400);
  ck_assert_int_eq(fs_noise_apply(n, FS_NOISE_NET, INT32_MAX - 1, 1, 0, 100), 400);
  ck_assert_int_eq(fs_noise_apply(n, FS_NOISE_HOST, INT32_MAX - 1, 1, 0, 100), 200);
  fs_noise_free(n);
}
END_TEST

/* Sequential and round-robin mappings are computed; an explicit one counts
 * ranks per node the ranks use, not per node of the platform. */
START_TEST(platform_larger_than_its_ranks) {
  fs_error err;
  fs_platform *p = fs_platform_new(INT32_MAX, INT32_MAX, &err);
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(fs_platform_map_sequential(p, 4, &err), 0);
  ck_assert_ptr_null(p->node);
  ck_assert_int_eq(p->used_nodes, 1);
  ck_assert_int_eq(fs_platform_node_of(p, 3), 0);
  ck_assert_int_eq(fs_platform_map_round_robin(p, 4, &err), 0);
  ck_assert_int_eq(p->used_nodes, 4);
  ck_assert_int_eq(fs_platform_node_of(p, 3), 3);
  ck_assert_int_eq(fs_platform_level_between(p, 0, 3), 1);
  const int32_t nodes[3] = {2147483646, 0, 2147483646};
  ck_assert_int_eq(fs_platform_map_explicit(p, 3, nodes, &err), 0);
  ck_assert_int_eq(p->used_nodes, INT32_MAX);
  ck_assert_int_eq(fs_platform_node_of(p, 2), 2147483646);
  fs_platform_free(p);
  p = fs_platform_new(INT32_MAX, 1, &err);
  ck_assert_int_eq(fs_platform_map_explicit(p, 3, nodes, &err), -1);
  ck_assert_str_eq(err.message, "expected at most 1 ranks on node 2147483646 (rank 2 is one more)");
  fs_platform_free(p);
}
END_TEST

/* The one message: a product past INT64_MAX, or past the limit. */
START_TEST(too_large_message) {
  fs_error err;
  ck_assert_ptr_null(fs_allocate(INT64_MAX / 2, 4, "the test array", &err));
  char expected[160];
  snprintf(expected, sizeof expected,
           "too large: the test array needs %lld bytes (limit %lld bytes)", (long long)INT64_MAX,
           (long long)fs_memory_limit());
  ck_assert_str_eq(err.message, expected);
  ck_assert_int_eq(fs_error_is_too_large(&err), 1);
  fs_error_out_of_memory(&err, "the test array", 64);
  ck_assert_str_eq(err.message, "out of memory: the test array needs 64 bytes");
  ck_assert_int_eq(fs_error_is_too_large(&err), 0);
  void *block = fs_allocate(0, 8, "nothing", &err);
  ck_assert_ptr_nonnull(block);
  free(block);
}
END_TEST

/* The mappings of /proc/self/smaps over [at, at + bytes): how many have
 * "hg" in their VmFlags (MADV_HUGEPAGE) into *huge, how many not into
 * *plain; -1 without smaps. */
static int hinted_mappings(const void *at, size_t bytes, int *huge, int *plain) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  unsigned long a, b, first = (unsigned long)at, last = first + bytes;
  int inside = 0;
  *huge = *plain = 0;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2) /* a mapping's first line */
      inside = a < last && b > first;
    else if (inside && strncmp(line, "VmFlags:", 8) == 0)
      strstr(line, " hg") ? ++*huge : ++*plain, inside = 0;
  }
  fclose(f);
  return 0;
}

/* Huge pages cost a fault per 2 MiB instead of per 4 KiB (error.h), and
 * the hint covers every page of the array (on its 2 MiB-aligned middle
 * only, it split an array of its own mapping in three, and realloc could
 * no longer grow it in place); fs_allocate and fs_grow hint their large
 * arrays, and growing keeps the contents. Linux only: skipped where smaps
 * or transparent huge pages are missing. */
START_TEST(huge_pages_cover_the_array) {
  fs_error err;
  size_t bytes = FS_HUGE_PAGES_MIN + 12345;
  char *block = fs_allocate((int64_t)bytes, 1, "the test array", &err);
  ck_assert_ptr_nonnull(block);
  int huge, plain;
  if (hinted_mappings(block, bytes, &huge, &plain) != 0 || !huge) {
    free(block);
    return; /* no smaps, or a kernel without transparent huge pages */
  }
  ck_assert_msg(plain == 0, "%d mappings of the array without the hint", plain);
  free(block);
  int32_t *array = NULL, capacity = 0;
  for (int64_t need = 1; need <= (int64_t)(FS_HUGE_PAGES_MIN / 4) * 2; need *= 4) {
    ck_assert_int_eq(fs_grow(&array, &capacity, need, sizeof *array, 16), 0);
    for (int64_t i = need / 4; i < need; i++) array[i] = (int32_t)i;
    for (int64_t i = 0; i < need; i += 997) ck_assert_int_eq(array[i], (int32_t)i);
  }
  ck_assert_int_eq(hinted_mappings(array, (size_t)capacity * sizeof *array, &huge, &plain), 0);
  ck_assert_msg(huge > 0 && plain == 0, "%d hinted and %d plain mappings", huge, plain);
  free(array);
}
END_TEST

/* `ranks 50000000` with one task took 1.86 GB; `ranks 1073741823` crashed
 * in noise.c. Both now run in 512 MiB of address space. */
START_TEST(cli_many_ranks_fit) {
  const char *counts[2] = {"50000000", "1073741823"};
  for (int i = 0; i < 2; i++) {
    char text[128];
    snprintf(text, sizeof text, "fennel-dag 1\nranks %s\nt0 compute 0 time=10ns\n", counts[i]);
    char *dag = write_temp(".dag", text), *out, *err;
    char *argv[] = {"fennelsim", "run", dag, "--model", "loggops", NULL};
    int status = run_limited(512 * MIB, argv, &out, &err);
    ck_assert_msg(status == 0, "%s: exit %d: %s", counts[i], status, err);
    ck_assert_ptr_nonnull(strstr(out, "makespan   10 ns (10 ns)\n"));
    free(out), free(err);
    /* with noise: the draws too are per used rank (x3: 30 ns) */
    char *noisy[] = {"fennelsim", "run", dag, "--noise", "host=constant:value=3", NULL};
    status = run_limited(512 * MIB, noisy, &out, &err);
    ck_assert_msg(status == 0, "%s: exit %d: %s", counts[i], status, err);
    ck_assert_ptr_nonnull(strstr(out, "makespan   30 ns (30 ns)\n"));
    free(out), free(err);
    remove(dag), free(dag);
  }
}
END_TEST

/* A 4-rank bcast-smp on 2147483647 nodes x 2147483647 cores took 8.4 GB:
 * now the same schedule as on one node of 4 cores (sequential: all four
 * ranks on node 0), in 512 MiB. */
START_TEST(cli_huge_platform_fits) {
  char *xml = write_temp(".xml", "<platform nodes=\"2147483647\" cores=\"2147483647\"/>\n");
  char *huge = fs_test_temp_path(".dag"), *small = fs_test_temp_path(".dag"), *out, *err;
  char *argv[] = {"fennelsim", "gen",        "bcast-smp", "--ranks", "4",  "--size",
                  "8B",        "--platform", xml,         "-o",      huge, NULL};
  int status = run_limited(512 * MIB, argv, &out, &err);
  ck_assert_msg(status == 0, "exit %d: %s", status, err);
  free(out), free(err);
  char *reference[] = {"fennelsim", "gen", "bcast-smp", "--ranks", "4",  "--size", "8B",
                       "--nodes",   "1",   "--cores",   "4",       "-o", small,    NULL};
  ck_assert_int_eq(run_limited(0, reference, &out, &err), 0);
  free(out), free(err);
  char *a = fs_test_read_file(huge, NULL), *b = fs_test_read_file(small, NULL);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_str_eq(a, b);
  free(a), free(b);
  remove(xml), remove(huge), remove(small);
  free(xml), free(huge), free(small);
}
END_TEST

/* JSON's finish_ns and a study's samples stay by rank on a sparse
 * program: 4101 ranks (more than 4 x 1 + 4096), one 10 ns task on rank 3. */
START_TEST(cli_sparse_outputs_by_rank) {
  char *dag = write_temp(".dag", "fennel-dag 1\nranks 4101\nt0 compute 3 time=10ns\n");
  char *samples = fs_test_temp_path(".csv"), *out, *err;
  char *argv[] = {"fennelsim", "run", dag, "--format", "json", NULL};
  ck_assert_int_eq(run_limited(0, argv, &out, &err), 0);
  size_t n = 4101 * 3 + 64;
  char *expected = malloc(n);
  size_t used = (size_t)snprintf(expected, n, "\"finish_ns\": [0, 0, 0, 10");
  for (int r = 4; r < 4101; r++) used += (size_t)snprintf(expected + used, n - used, ", 0");
  snprintf(expected + used, n - used, "], ");
  ck_assert_ptr_nonnull(strstr(out, expected));
  free(out), free(err);
  char *study[] = {"fennelsim", "run", dag, "--seeds", "2", "--samples", samples, NULL};
  ck_assert_int_eq(run_limited(0, study, &out, &err), 0);
  free(out), free(err);
  char *csv = fs_test_read_file(samples, NULL);
  ck_assert_ptr_nonnull(csv);
  char *row = strchr(csv, '\n');
  ck_assert_ptr_nonnull(row);
  used = (size_t)snprintf(expected, n, "\n1,10,0,0,0,10");
  for (int r = 4; r < 4101; r++) used += (size_t)snprintf(expected + used, n - used, ",0");
  snprintf(expected + used, n - used, "\n");
  ck_assert_msg(strncmp(row, expected, strlen(expected)) == 0, "%.80s", row);
  free(csv), free(expected);
  remove(dag), remove(samples), free(dag), free(samples);
}
END_TEST

/* A deadlock report names ranks, not slots: 100000 ranks, a recv on rank
 * 99999 from 5 and a send from 7 to 99998 (slots 7, 99998, 99999). */
START_TEST(cli_sparse_deadlock_names_ranks) {
  char *dag = write_temp(".dag", "fennel-dag 1\nranks 100000\na recv 99999 from=5 size=8B\n"
                                 "b send 7 to=99998 size=8B\n");
  char *out, *err;
  char *argv[] = {"fennelsim", "run", dag, "--model", "loggops", NULL};
  ck_assert_int_eq(run_limited(0, argv, &out, &err), 1);
  ck_assert_ptr_nonnull(strstr(err,
                               ": deadlock: 0 of 2 tasks can never become ready; 2 receives or "
                               "messages found no partner\n"
                               "  recv a on rank 99999 from rank 5, tag 0, 8B: posted, no message "
                               "matched it\n"
                               "  send b on rank 7 to rank 99998, tag 0, 8B: arrived, no recv "
                               "matched it\n"));
  free(out), free(err);
  remove(dag), free(dag);
}
END_TEST

/* gen NAME --ranks 4 on platform file `huge` and on `small` write the same
 * schedule, the first under 512 MiB of address space. */
static void same_schedule(const char *name, const char *huge, const char *small) {
  char *files[2] = {write_temp(".xml", huge), write_temp(".xml", small)};
  char *dags[2] = {fs_test_temp_path(".dag"), fs_test_temp_path(".dag")}, *out, *err;
  for (int i = 0; i < 2; i++) {
    char *argv[] = {"fennelsim", "gen",        (char *)name, "--ranks", "4",     "--size",
                    "8B",        "--platform", files[i],     "-o",      dags[i], NULL};
    int status = run_limited(i == 0 ? 512 * MIB : 0, argv, &out, &err);
    ck_assert_msg(status == 0, "%s on %s: exit %d: %s", name, i ? small : huge, status, err);
    free(out), free(err);
  }
  char *a = fs_test_read_file(dags[0], NULL), *b = fs_test_read_file(dags[1], NULL);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_str_eq(a, b);
  free(a), free(b);
  for (int i = 0; i < 2; i++) remove(files[i]), remove(dags[i]), free(files[i]), free(dags[i]);
}

/* The k-level trees walk the nodes the ranks are on (rounded up to a whole
 * group of the largest level below the whole machine), not 2^31-1 nodes:
 * all on node 0 as on one node of 4 cores; round-robin over pairs of nodes
 * as on 4 nodes in 2 pairs. */
START_TEST(cli_klevel_huge_platform) {
  const char *names[2] = {"bcast-klevel", "scatter-klevel"};
  for (int i = 0; i < 2; i++) {
    same_schedule(names[i], "<platform nodes=\"2147483647\" cores=\"2147483647\"/>\n",
                  "<platform nodes=\"1\" cores=\"4\"/>\n");
    same_schedule(names[i],
                  "<platform nodes=\"1073741824\" cores=\"2147483647\"><level name=\"pair\" "
                  "fanout=\"2\"/><mapping kind=\"round-robin\"/></platform>\n",
                  "<platform nodes=\"4\" cores=\"1\"><level name=\"pair\" fanout=\"2\"/>"
                  "<mapping kind=\"round-robin\"/></platform>\n");
  }
}
END_TEST

/* Past the limit: one message, exit status 2. A study keeps every seed's
 * finish times: 2 seeds x 8 x (50000000 ranks + seed + makespan) =
 * 800000032 bytes, past a 512 MiB (536870912-byte) address space. */
START_TEST(cli_too_large_exit_2) {
  if (SANITIZED) return; /* the limit is the address space */
  char *dag = write_temp(".dag", "fennel-dag 1\nranks 50000000\nt0 compute 0 time=10ns\n");
  char *out, *err;
  char *argv[] = {"fennelsim", "run", dag, "--seeds", "2", NULL};
  ck_assert_int_eq(run_limited(512 * MIB, argv, &out, &err), 2);
  ck_assert_str_eq(err, "fennelsim: warning: --seeds 2 without --noise, --noise-rank or "
                        "--noise-trace: every seed gives the same answer\n"
                        "fennelsim: too large: the result table of 2 seeds x 50000000 ranks "
                        "needs 800000032 bytes (limit 536870912 bytes)\n");
  free(out), free(err);
  remove(dag), free(dag);
}
END_TEST

static Suite *memory_suite(void) {
  Suite *s = suite_create("memory");
  TCase *c = tcase_create("proportional");
  tcase_add_test(c, slots_dense_then_sparse);
  tcase_add_test(c, engine_bytes_per_used_rank);
  tcase_add_test(c, sparse_message_loggops);
  tcase_add_test(c, engine_bytes_exact);
  tcase_add_test(c, noise_without_per_rank_table);
  tcase_add_test(c, platform_larger_than_its_ranks);
  tcase_add_test(c, too_large_message);
  tcase_add_test(c, huge_pages_cover_the_array);
  suite_add_tcase(s, c);
  TCase *cli = tcase_create("cli");
  tcase_add_test(cli, cli_many_ranks_fit);
  tcase_add_test(cli, cli_sparse_outputs_by_rank);
  tcase_add_test(cli, cli_sparse_deadlock_names_ranks);
  tcase_add_test(cli, cli_huge_platform_fits);
  tcase_add_test(cli, cli_klevel_huge_platform);
  tcase_add_test(cli, cli_too_large_exit_2);
  suite_add_tcase(s, cli);
  return s;
}

int main(void) { return fs_test_run(memory_suite()); }
