/* test_instruments.c: --bandwidth and --critical-path against values derived
 * by hand on small programs (each test's comment shows the derivation).
 * Models: hockney alpha = 1000 ns, beta = 1 ns/B; pipelined alpha_r = 300,
 * alpha_p = 800 ns, beta = 1 ns/B (no table); sizes 100 B unless said. */
#define _GNU_SOURCE /* open_memstream is POSIX 2008 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "formats/dag_reader.h"
#include "generators/generators.h"
#include "instruments/bandwidth.h"
#include "instruments/critical_path.h"
#include "instruments/timeline.h"
#include "model_support.h"
#include "test_support.h"

#define NS 1000
#define HOCKNEY "alpha=1000ns beta=1ns"
#define PIPELINED "alpha_p=800ns alpha_r=300ns beta=1ns"

typedef struct recorded {
  fs_simulation run;
  fs_timeline *timeline;
} recorded;

static void record(recorded *r, const fs_program *p, const char *model, const char *params) {
  fs_test_simulate(&r->run, p, model, "fixed", params);
  ck_assert_msg(r->run.status == FS_RUN_OK, "%s", r->run.err.message);
  r->timeline = fs_timeline_new(p);
  ck_assert_ptr_nonnull(r->timeline);
  fs_observer observer = fs_timeline_observer(r->timeline);
  fs_engine_add_observer(r->run.engine, &observer);
  ck_assert_msg(fs_engine_run(r->run.engine, &r->run.err) == FS_RUN_OK, "%s", r->run.err.message);
}

static void release(recorded *r) {
  fs_timeline_free(r->timeline);
  fs_test_run_free(&r->run);
}

static fs_critical_path *path_of(recorded *r, int priced) {
  fs_error err;
  fs_critical_path *cp =
      fs_critical_path_compute(r->timeline, priced ? &r->run.network : NULL, &err);
  ck_assert_ptr_nonnull(cp);
  /* the parts add up to the makespan, exactly, in total and per step */
  fs_time sum = 0;
  for (int k = 0; k < FS_PATH_PARTS; k++) sum += cp->part[k];
  ck_assert_int_eq(sum, cp->makespan);
  ck_assert_int_eq(cp->makespan, fs_engine_makespan(r->run.engine));
  for (int64_t i = 0; i < cp->step_count; i++) {
    const fs_path_step *s = &cp->steps[i];
    fs_time step = 0;
    for (int k = 0; k < FS_PATH_PARTS; k++) step += s->part[k];
    ck_assert_int_eq(step, s->end - s->ready);
    if (i + 1 < cp->step_count) ck_assert_int_eq(s->end, cp->steps[i + 1].ready);
  }
  if (cp->step_count) ck_assert_int_eq(cp->steps[cp->step_count - 1].end, cp->makespan);
  return cp;
}

static void parts_are(const fs_critical_path *cp, fs_time waiting, fs_time cpu, fs_time latency,
                      fs_time bandwidth, fs_time contention, fs_time network) {
  ck_assert_int_eq(cp->part[FS_PATH_WAITING], waiting);
  ck_assert_int_eq(cp->part[FS_PATH_CPU], cpu);
  ck_assert_int_eq(cp->part[FS_PATH_LATENCY], latency);
  ck_assert_int_eq(cp->part[FS_PATH_BANDWIDTH], bandwidth);
  ck_assert_int_eq(cp->part[FS_PATH_CONTENTION], contention);
  ck_assert_int_eq(cp->part[FS_PATH_NETWORK], network);
}

static fs_program *pingpong(void) {
  fs_generator_options o = {.ranks = 2, .size = 100, .rounds = 1};
  fs_error err;
  fs_program *p = fs_generate_pingpong(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  return p; /* tasks: start0, start1, ping (0 -> 1), pong (1 -> 0) */
}

static int32_t transfer(fs_program *p, fs_task_kind kind, int32_t rank, int32_t peer,
                        int64_t size) {
  int32_t t = fs_program_add(p, kind, rank);
  fs_task_set_peer(p, t, peer);
  fs_task_set_size(p, t, size);
  return t;
}

/* Hockney ping-pong: ping 0..1100 (alpha 1000 + 100 B * 1 ns), pong
 * 1100..2200; the CPU is held through each, so all of it is network time:
 * latency 2 * 1000, bandwidth 2 * 100; unpriced, one network part of 2200. */
START_TEST(pingpong_under_hockney) {
  fs_program *p = pingpong();
  recorded r;
  record(&r, p, "hockney", HOCKNEY);
  fs_critical_path *cp = path_of(&r, 1);
  ck_assert_int_eq(cp->makespan, 2200 * NS);
  parts_are(cp, 0, 0, 2000 * NS, 200 * NS, 0, 0);
  ck_assert_int_eq(cp->step_count, 2);
  ck_assert_int_eq(cp->steps[0].task, 2);
  ck_assert_int_eq(cp->steps[1].task, 3);
  ck_assert_int_eq(cp->steps[1].part[FS_PATH_LATENCY], 1000 * NS);
  ck_assert_int_eq(cp->overpriced_steps, 0);
  fs_critical_path_free(cp);
  cp = path_of(&r, 0);
  parts_are(cp, 0, 0, 0, 0, 0, 2200 * NS);
  fs_critical_path_free(cp);
  release(&r);
  fs_program_free(p);
}
END_TEST

/* Pipelined ping-pong: ping local 300, lands 300 + 800 + 100 = 1200; pong
 * 1200, local 1500, lands 2400. Path: ping (cpu 300, latency 800, bandwidth
 * 100), pong (the same). Bandwidth: each 100 B in 1200 ns = 0.0833333 GB/s;
 * aggregate 200 B / 2400 ns; a rank's CPU is busy 300 ns (its alpha_r); a
 * link is busy for its one transfer, 1200 ns. */
START_TEST(pingpong_under_pipelined) {
  fs_program *p = pingpong();
  recorded r;
  record(&r, p, "pipelined", PIPELINED);
  fs_critical_path *cp = path_of(&r, 1);
  ck_assert_int_eq(cp->makespan, 2400 * NS);
  parts_are(cp, 0, 600 * NS, 1600 * NS, 200 * NS, 0, 0);
  ck_assert_int_eq(cp->step_count, 2);
  ck_assert_int_eq(cp->steps[0].end, 1200 * NS);
  ck_assert_int_eq(cp->steps[1].part[FS_PATH_CPU], 300 * NS);
  fs_critical_path_free(cp);

  fs_error err;
  fs_bandwidth *b = fs_bandwidth_compute(r.timeline, &err);
  ck_assert_ptr_nonnull(b);
  ck_assert_int_eq(b->makespan, 2400 * NS);
  ck_assert_int_eq(b->bytes, 200);
  ck_assert_int_eq(b->messages, 2);
  ck_assert_int_eq(b->duration_sum, 2400 * NS);
  ck_assert_int_eq(b->transfer_count, 2);
  ck_assert_int_eq(b->transfers[1].start, 1200 * NS);
  ck_assert_int_eq(b->transfers[1].delivered, 2400 * NS);
  ck_assert_double_eq_tol(b->mean_gbps, 100.0 / 1200, 1e-12);
  ck_assert_double_eq_tol(b->aggregate_gbps, 200.0 / 2400, 1e-12);
  ck_assert_double_eq_tol(b->fennel_gbps, 200.0 / 2400, 1e-12);
  for (int rank = 0; rank < 2; rank++) {
    ck_assert_int_eq(b->ranks[rank].sent, 100);
    ck_assert_int_eq(b->ranks[rank].received, 100);
    ck_assert_int_eq(b->ranks[rank].busy, 300 * NS);
  }
  ck_assert_int_eq(b->link_count, 2);
  ck_assert_int_eq(b->links[0].source, 0); /* equal bytes: by source */
  ck_assert_int_eq(b->links[0].target, 1);
  ck_assert_int_eq(b->links[0].busy, 1200 * NS);
  ck_assert_int_eq(b->links[1].source, 1);
  ck_assert_int_eq(b->links[1].messages, 1);
  fs_bandwidth_free(b);
  release(&r);
  fs_program_free(p);
}
END_TEST

/* allreduce-rd, 4 ranks, 100 B, reduce 50 ns, pipelined. Round 1: every
 * put at 0, local 300, lands 1200; each reduce waits for its partner's put,
 * 1200..1250. Round 2: puts 1250, local 1550, land 2450; reduces
 * 2450..2500. Partners: rank ^ 1, then rank ^ 2. Path (rank 0's last
 * reduce, the lowest id ending at 2500): rank 3's round-1 put to rank 2
 * (cpu 300, latency 800, bandwidth 100; rank 2's reduce waited for its own
 * put's local end, 300, and for it), rank 2's reduce (cpu 50), rank 2's round-2 put to rank 0
 * (300, 800, 100), rank 0's reduce (50): cpu 700, latency 1600, bandwidth
 * 200. Tasks: starts 0-3, round-1 puts 4-7, reduces 8-11, round-2 puts
 * 12-15, reduces 16-19. */
START_TEST(allreduce_rd_under_pipelined) {
  fs_generator_options o = {.ranks = 4, .size = 100, .reduce_time = 50 * NS, .has_reduce_time = 1};
  fs_error err;
  fs_program *p = fs_generate_allreduce_rd(&o, &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  recorded r;
  record(&r, p, "pipelined", PIPELINED);
  fs_critical_path *cp = path_of(&r, 1);
  ck_assert_int_eq(cp->makespan, 2500 * NS);
  parts_are(cp, 0, 700 * NS, 1600 * NS, 200 * NS, 0, 0);
  ck_assert_int_eq(cp->step_count, 4);
  int32_t tasks[] = {7, 10, 14, 16};
  for (int i = 0; i < 4; i++) ck_assert_int_eq(cp->steps[i].task, tasks[i]);
  ck_assert_int_eq(cp->steps[1].part[FS_PATH_CPU], 50 * NS);
  ck_assert_int_eq(cp->steps[2].ready, 1250 * NS);
  fs_critical_path_free(cp);
  release(&r);
  fs_program_free(p);
}
END_TEST

/* Two computes on one rank, both ready at 0: the first runs 0..100, the
 * second waits for the busy rank until 100 and runs to 300. */
START_TEST(busy_rank_wait) {
  fs_program *p = fs_program_new(1);
  int32_t a = fs_program_add(p, FS_COMPUTE, 0), b = fs_program_add(p, FS_COMPUTE, 0);
  fs_task_set_time(p, a, 100 * NS);
  fs_task_set_time(p, b, 200 * NS);
  fs_test_finalize(p);
  recorded r;
  record(&r, p, "hockney", HOCKNEY);
  fs_critical_path *cp = path_of(&r, 1);
  ck_assert_int_eq(cp->makespan, 300 * NS);
  parts_are(cp, 100 * NS, 200 * NS, 0, 0, 0, 0);
  ck_assert_int_eq(cp->step_count, 1);
  ck_assert_int_eq(cp->steps[0].task, b);
  ck_assert_int_eq(cp->steps[0].start, 100 * NS);
  fs_critical_path_free(cp);
  release(&r);
  fs_program_free(p);
}
END_TEST

/* Two pipelined puts 0 -> 1 ready at 0: the first 0..300 on the CPU, lands
 * 1200; the second waits for the CPU until 300, local 600, lands 1500.
 * Path: the second put: waiting 300, cpu 300, latency 800, bandwidth 100.
 * Link 0->1: 200 B, 2 messages, busy [0,1200] u [300,1500] = 1500 ns; rank
 * 0 busy 600, sent 200; rank 1 received 200. Each put: 100 B / 1200 ns;
 * aggregate 200 B / 1500 ns; Fennel's 200 B / 2400 ns. */
START_TEST(bandwidth_per_link_and_rank) {
  fs_program *p = fs_program_new(2);
  transfer(p, FS_PUT, 0, 1, 100);
  int32_t second = transfer(p, FS_PUT, 0, 1, 100);
  fs_test_finalize(p);
  recorded r;
  record(&r, p, "pipelined", PIPELINED);
  fs_critical_path *cp = path_of(&r, 1);
  parts_are(cp, 300 * NS, 300 * NS, 800 * NS, 100 * NS, 0, 0);
  ck_assert_int_eq(cp->steps[0].task, second);
  fs_critical_path_free(cp);
  fs_error err;
  fs_bandwidth *b = fs_bandwidth_compute(r.timeline, &err);
  ck_assert_int_eq(b->link_count, 1);
  ck_assert_int_eq(b->links[0].bytes, 200);
  ck_assert_int_eq(b->links[0].messages, 2);
  ck_assert_int_eq(b->links[0].busy, 1500 * NS);
  ck_assert_int_eq(b->ranks[0].busy, 600 * NS);
  ck_assert_int_eq(b->ranks[0].sent, 200);
  ck_assert_int_eq(b->ranks[0].received, 0);
  ck_assert_int_eq(b->ranks[1].received, 200);
  ck_assert_int_eq(b->ranks[1].busy, 0);
  ck_assert_double_eq_tol(b->mean_gbps, 100.0 / 1200, 1e-12);
  ck_assert_double_eq_tol(b->aggregate_gbps, 200.0 / 1500, 1e-12);
  ck_assert_double_eq_tol(b->fennel_gbps, 200.0 / 2400, 1e-12);
  fs_bandwidth_free(b);
  release(&r);
  fs_program_free(p);
}
END_TEST

/* Send/recv ping-pong under hockney: tasks s0 (0 -> 1), r0 (rank 0 from 1),
 * r1 (rank 1 from 0), s1 (1 -> 0 after r1). s0 holds rank 0's CPU 0..1100
 * and lands at 1100, matching r1 (posted at 0); s1 1100..2200 lands at
 * 2200, matching r0 (posted at 1100, when rank 0's CPU was free). Path
 * from r0 (the lowest id ending at 2200): s0's message, r1, s1's message,
 * r0: latency 2000, bandwidth 200. A send is delivered when its recv ends. */
START_TEST(messages_under_hockney) {
  fs_program *p = fs_program_new(2);
  int32_t s0 = transfer(p, FS_SEND, 0, 1, 100), r0 = transfer(p, FS_RECV, 0, 1, 100);
  int32_t r1 = transfer(p, FS_RECV, 1, 0, 100), s1 = transfer(p, FS_SEND, 1, 0, 100);
  fs_program_depend(p, s1, r1, 0);
  fs_test_finalize(p);
  recorded r;
  record(&r, p, "hockney", HOCKNEY);
  fs_critical_path *cp = path_of(&r, 1);
  ck_assert_int_eq(cp->makespan, 2200 * NS);
  parts_are(cp, 0, 0, 2000 * NS, 200 * NS, 0, 0);
  ck_assert_int_eq(cp->step_count, 4);
  int32_t tasks[] = {s0, r1, s1, r0};
  for (int i = 0; i < 4; i++) ck_assert_int_eq(cp->steps[i].task, tasks[i]);
  ck_assert_int_eq(cp->steps[0].via, FS_VIA_MESSAGE);
  fs_critical_path_free(cp);
  fs_error err;
  fs_bandwidth *b = fs_bandwidth_compute(r.timeline, &err);
  ck_assert_int_eq(b->transfer_count, 2);
  ck_assert_int_eq(b->transfers[1].task, s1);
  ck_assert_int_eq(b->transfers[1].target, 0);
  ck_assert_int_eq(b->transfers[1].delivered, 2200 * NS);
  ck_assert_int_eq(b->ranks[0].busy, 1100 * NS);
  ck_assert_int_eq(b->ranks[1].busy, 1100 * NS);
  fs_bandwidth_free(b);
  release(&r);
  fs_program_free(p);
}
END_TEST

/* An early message under loggops (L 3 us, o 1 us, g 0, G 1 ns/B, O 0):
 * rank 0 sends a (1 KiB, tag 1) at 0: its CPU 0..1 us, the message lands
 * at o + L = 4 us, where rank 1's CPU is free (its recv y of tag 2 is
 * posted and waits): the receipt takes o + 1023 G = 2023 ns, 4..6.023 us,
 * with no recv for it yet. Rank 0 computes 1..21 us, sends b (8 B, tag 2)
 * 21..22 us, landing at 25 us; its receipt 25..26.007 us completes y, and
 * x (tag 1), posted then, takes a's message at once: 26.007 us. x's CPU
 * time is a's receipt, 4..6.023 us, not the instant of its match; rank 1
 * was busy 2023 + 1007 = 3030 ns (it used to count 1007), rank 0 22 us. */
START_TEST(early_message_under_loggops) {
  const char *text = "fennel-dag 1\nranks 2\ns0 start 0\ns1 start 1\n"
                     "a send 0 to=1 size=1KiB tag=1 after=s0\n"
                     "c compute 0 time=20us after=a:local\n"
                     "b send 0 to=1 size=8B tag=2 after=c\n"
                     "y recv 1 from=0 size=8B tag=2 after=s1\n"
                     "x recv 1 from=0 size=1KiB tag=1 after=y\n";
  fs_error err = {{0}};
  fs_program *p = fs_dag_read_memory(text, strlen(text), "early.dag", &err);
  ck_assert_msg(p != NULL, "%s", err.message);
  int32_t a = 2, b = 4, y = 5, x = 6;
  recorded r;
  record(&r, p, "loggops", "L=3us o=1us g=0 G=1ns O=0 S=64KiB");
  ck_assert_int_eq(fs_engine_makespan(r.run.engine), 26007 * NS);
  fs_time from, to, when;
  ck_assert_int_eq(fs_timeline_receipt(r.timeline, a, &from, &to), 0);
  ck_assert_int_eq(from, 4000 * NS);
  ck_assert_int_eq(to, 6023 * NS);
  ck_assert_int_eq(fs_timeline_receipt(r.timeline, b, &from, &to), 0);
  ck_assert_int_eq(from, 25000 * NS);
  ck_assert_int_eq(to, 26007 * NS);
  ck_assert_int_eq(fs_timeline_partner(r.timeline, x, &when), a);
  ck_assert_int_eq(when, 26007 * NS);
  ck_assert_int_eq(fs_timeline_recv_occupation(r.timeline, x, &from, &to), 0);
  ck_assert_int_eq(from, 4000 * NS);
  ck_assert_int_eq(to, 6023 * NS);
  ck_assert_int_eq(fs_timeline_recv_occupation(r.timeline, y, &from, &to), 0);
  ck_assert_int_eq(from, 25000 * NS);
  ck_assert_int_eq(to, 26007 * NS);
  ck_assert_int_eq(fs_timeline_receipt(r.timeline, x, &from, &to), -1); /* a recv has none */
  fs_bandwidth *bw = fs_bandwidth_compute(r.timeline, &err);
  ck_assert_ptr_nonnull(bw);
  ck_assert_int_eq(bw->ranks[0].busy, 22000 * NS);
  ck_assert_int_eq(bw->ranks[1].busy, 3030 * NS);
  fs_bandwidth_free(bw);
  release(&r);
  /* hockney takes no receipts: x's occupation is its match, an instant */
  record(&r, p, "hockney", HOCKNEY);
  ck_assert_int_eq(fs_timeline_receipt(r.timeline, a, &from, &to), -1);
  ck_assert_int_eq(fs_timeline_recv_occupation(r.timeline, x, &from, &to), 0);
  ck_assert_int_eq(from, to);
  release(&r);
  fs_program_free(p);
}
END_TEST

/* A segmented same-node put under taulop: L(m,1) = m ns, L(m,2) = 1.5 m ns
 * (linear tables), segment 100 B, o 0; 250 B is 3 segments, 100, 100, 50,
 * each put into the shared buffer and got out, segment j+1 put while j is
 * got (tau 2): put0 0..100; put1 and get0 100..250 (150 each); put2 (50 B,
 * 75) and get1 (150) from 250: put2 ends at 325, the sender's last copy,
 * get1 has done half and ends alone 50 later, 375; get2 (50 B) 375..425.
 * The path: the sender's CPU 325, then 100 ns that the model prices alone
 * (the table is 0 at 0 bytes: all size), contention 0. A get of the same
 * message: its initiator is free after o = 0 and all 425 ns are priced
 * (they used to be left unpriced, as "network"). */
START_TEST(segmented_messages_under_taulop) {
  char *shm = fs_test_temp_path(".shm"), *net = fs_test_temp_path(".net"), params[1024];
  fs_test_write_file(shm, "0B 0ns 0ns\n1000B 1000ns 1500ns\n", 0);
  fs_test_write_file(net, "0B 0ns\n1000B 1000ns\n", 0);
  snprintf(params, sizeof params, "shm_table=%s net_table=%s nodes=1 cores=2 segment=100 shm_o=0",
           shm, net);
  for (int get = 0; get < 2; get++) {
    fs_program *p = fs_program_new(2);
    int32_t t = get ? transfer(p, FS_GET, 1, 0, 250) : transfer(p, FS_PUT, 0, 1, 250);
    fs_test_finalize(p);
    recorded r;
    record(&r, p, "taulop", params);
    fs_critical_path *cp = path_of(&r, 1);
    ck_assert_int_eq(cp->makespan, 425 * NS);
    if (get)
      parts_are(cp, 0, 0, 0, 425 * NS, 0, 0);
    else
      parts_are(cp, 0, 325 * NS, 0, 100 * NS, 0, 0);
    ck_assert_int_eq(cp->steps[0].task, t);
    fs_critical_path_free(cp);
    release(&r);
    fs_program_free(p);
  }
  free(shm);
  free(net);
}
END_TEST

/* taulop, 3 nodes of 1 core, shared memory free, L1(m,tau) = 10 tau m ns:
 * puts of 100 and 300 B from ranks 0 and 1 into node 2 share its NIC
 * (test_taulop: they land at 2000 and 4000 ns). The second put's path: all
 * network; alone it costs L1(300,1) + L0(300,1) = 3000 ns, all size part
 * (the tables cost 0 at 0 bytes); the other 1000 ns is contention. The
 * links: 0->2 busy 2000 ns, 1->2 busy 4000 ns; rank 2 received 400 B. */
START_TEST(contention_under_taulop) {
  char *zero = fs_test_temp_path(".zero"), *net = fs_test_temp_path(".net"), params[1024];
  fs_test_write_file(zero, "0B 0ns\n1000B 0ns\n", 0);
  fs_test_write_file(net, "0B 0ns 0ns 0ns 0ns\n1000B 10us 20us 30us 40us\n", 0);
  snprintf(params, sizeof params, "shm_table=%s net_table=%s nodes=3 cores=1", zero, net);
  fs_program *p = fs_program_new(3);
  transfer(p, FS_PUT, 0, 2, 100);
  int32_t b300 = transfer(p, FS_PUT, 1, 2, 300);
  fs_test_finalize(p);
  recorded r;
  record(&r, p, "taulop", params);
  fs_critical_path *cp = path_of(&r, 1);
  ck_assert_int_eq(cp->makespan, 4000 * NS);
  parts_are(cp, 0, 0, 0, 3000 * NS, 1000 * NS, 0);
  ck_assert_int_eq(cp->step_count, 1);
  ck_assert_int_eq(cp->steps[0].task, b300);
  fs_critical_path_free(cp);
  fs_error err;
  fs_bandwidth *b = fs_bandwidth_compute(r.timeline, &err);
  ck_assert_int_eq(b->link_count, 2);
  ck_assert_int_eq(b->links[0].source, 1); /* most bytes first */
  ck_assert_int_eq(b->links[0].busy, 4000 * NS);
  ck_assert_int_eq(b->links[1].busy, 2000 * NS);
  ck_assert_int_eq(b->ranks[2].received, 400);
  ck_assert_double_eq_tol(b->aggregate_gbps, 400.0 / 4000, 1e-12);
  fs_bandwidth_free(b);
  release(&r);
  fs_program_free(p);
  free(zero);
  free(net);
}
END_TEST

/* loggops (L 2000, o 500, g 100, G 1 ns/B, O 0.5 ns/B) put of 101 B:
 * local o + 100 O = 550, lands o + L + 100 G = 2600. The CPU part is 550;
 * the network 2050 is priced L + 100 G = 2100: 50 ns more than it took
 * (O overlaps G), so latency 2000, bandwidth 50, no contention, and the
 * 50 ns are reported as overpriced. */
START_TEST(overpriced_under_loggops) {
  fs_program *p = fs_program_new(2);
  transfer(p, FS_PUT, 0, 1, 101);
  fs_test_finalize(p);
  recorded r;
  record(&r, p, "loggops", "L=2000ns o=500ns g=100ns G=1ns O=0.5ns");
  fs_critical_path *cp = path_of(&r, 1);
  ck_assert_int_eq(cp->makespan, 2600 * NS);
  parts_are(cp, 0, 550 * NS, 2000 * NS, 50 * NS, 0, 0);
  ck_assert_int_eq(cp->overpriced, 50 * NS);
  ck_assert_int_eq(cp->overpriced_steps, 1);
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  fs_critical_path_report_text(out, cp, 10);
  fclose(out);
  ck_assert_msg(strstr(text, "critical path  2600 ns in 1 steps\n"), "%s", text);
  ck_assert_msg(strstr(text, "  cpu         550 ns (21.15%)\n"), "%s", text);
  ck_assert_msg(strstr(text, "(1 steps took 50 ns less than the model's price: counted as 0 "
                             "contention)"),
                "%s", text);
  free(text);
  fs_critical_path_free(cp);
  release(&r);
  fs_program_free(p);
}
END_TEST

/* The JSON members and the text sections, on the pipelined ping-pong. */
START_TEST(reports) {
  fs_program *p = pingpong();
  recorded r;
  record(&r, p, "pipelined", PIPELINED);
  fs_error err;
  fs_critical_path *cp = path_of(&r, 1);
  fs_bandwidth *b = fs_bandwidth_compute(r.timeline, &err);
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  fprintf(out, "{");
  fs_bandwidth_report_json(out, b);
  fprintf(out, ", ");
  fs_critical_path_report_json(out, cp);
  fprintf(out, "}");
  fclose(out);
  const char *expected[] = {
      "{\"bandwidth\": {\"bytes\": 200, \"messages\": 2, \"makespan_ns\": 2400, "
      "\"aggregate_gbps\": 0.0833333, \"mean_gbps\": 0.0833333, \"fennel_gbps\": 0.0833333, "
      "\"duration_sum_ns\": 2400, \"instant_transfers\": 0, \"ranks\": [{\"rank\": 0, "
      "\"sent_bytes\": 100, \"received_bytes\": 100, \"busy_ns\": 300}",
      "\"links\": [{\"source\": 0, \"target\": 1, \"bytes\": 100, \"messages\": 1, \"busy_ns\": "
      "1200}",
      "\"transfers\": [{\"task\": \"t2\", \"kind\": \"put\", \"source\": 0, \"target\": 1, "
      "\"bytes\": 100, \"start_ns\": 0, \"delivered_ns\": 1200, \"gbps\": 0.0833333}",
      "\"critical_path\": {\"makespan_ns\": 2400, \"cpu_ns\": 600, \"latency_ns\": 1600, "
      "\"bandwidth_ns\": 200, \"contention_ns\": 0, \"waiting_ns\": 0, \"network_ns\": 0, "
      "\"priced\": true, \"overpriced_ns\": 0, \"overpriced_steps\": 0, \"steps\": [{\"task\": "
      "\"t2\", \"kind\": \"put\", \"rank\": 0, \"via\": \"end\", \"ready_ns\": 0, \"start_ns\": 0, "
      "\"end_ns\": 1200, \"cpu_ns\": 300, \"latency_ns\": 800, \"bandwidth_ns\": 100, "
      "\"contention_ns\": 0, \"waiting_ns\": 0, \"network_ns\": 0}",
      "]}}"};
  for (size_t i = 0; i < sizeof expected / sizeof *expected; i++)
    ck_assert_msg(strstr(text, expected[i]), "missing %s in %s", expected[i], text);
  free(text);
  out = open_memstream(&text, &length);
  fs_bandwidth_report_text(out, b, 1);
  fs_critical_path_report_text(out, cp, 1);
  fclose(out);
  ck_assert_str_eq(
      text,
      "bandwidth  2 transfers, 200 bytes in 2400 ns: aggregate 0.0833333 GB/s, mean per transfer "
      "0.0833333 GB/s, Fennel's (bytes / sum of durations) 0.0833333 GB/s\n"
      "  rank      sent_bytes  received_bytes  busy_ns\n"
      "  0                100             100  300\n"
      "  (1 more ranks)\n"
      "  link      bytes       messages  busy_ns  GB/s_while_busy\n"
      "  0->1             100         1  1200  0.0833333\n"
      "  (1 more links)\n"
      "critical path  2400 ns in 2 steps\n"
      "  waiting     0 ns (0.00%)\n"
      "  cpu         600 ns (25.00%)\n"
      "  latency     1600 ns (66.67%)\n"
      "  bandwidth   200 ns (8.33%)\n"
      "  contention  0 ns (0.00%)\n"
      "  (1 earlier steps not shown)\n"
      "  t3 put rank 1: ready 1200 start 1200 end 2400 ns; cpu 300 latency 800 bandwidth 100\n");
  free(text);
  fs_bandwidth_free(b);
  fs_critical_path_free(cp);
  release(&r);
  fs_program_free(p);
}
END_TEST

static Suite *instruments_suite(void) {
  Suite *s = suite_create("instruments");
  TCase *c = tcase_create("views");
  tcase_add_test(c, pingpong_under_hockney);
  tcase_add_test(c, pingpong_under_pipelined);
  tcase_add_test(c, allreduce_rd_under_pipelined);
  tcase_add_test(c, busy_rank_wait);
  tcase_add_test(c, bandwidth_per_link_and_rank);
  tcase_add_test(c, messages_under_hockney);
  tcase_add_test(c, early_message_under_loggops);
  tcase_add_test(c, contention_under_taulop);
  tcase_add_test(c, segmented_messages_under_taulop);
  tcase_add_test(c, overpriced_under_loggops);
  tcase_add_test(c, reports);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return fs_test_run(instruments_suite()); }
