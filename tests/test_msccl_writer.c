/* test_msccl_writer.c: generated schedules written as MSCCL XML
 * (generators/msccl_export.h, formats/msccl_writer.h, `gen ... -o X.xml`):
 * round trips (generate -> XML -> our reader -> our MSCCL data-flow check
 * -> lowering by generator msccl) with the lowered program's makespan equal
 * to the original's, a hand-checked text, and the refusals. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/msccl_reader.h"
#include "formats/msccl_writer.h"
#include "generators/msccl.h"
#include "generators/msccl_export.h"
#include "generators/msccl_flow.h"
#include "generator_support.h"
#include "model_support.h"
#include "test_support.h"

static char *out, *err;

#define NS INT64_C(1000) /* ps */
#define HOCKNEY "alpha=1us beta=1ns"

/* The algorithm of generator `name`, written, read back by our reader and
 * checked by our MSCCL flow check; writing it again gives the same text.
 * *program gets the generated program (the caller frees both). */
static fs_msccl *written(const char *name, const fs_generator_options *given,
                         fs_program **program) {
  fs_generator_options o = *given;
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  o.flow = &flow;
  fs_program *p = fs_test_generate(name, &o);
  fs_error e = {{0}};
  fs_msccl *m = fs_msccl_from_program(p, &flow, name, &e);
  ck_assert_msg(m != NULL, "%s: %s", name, e.message);
  size_t length, again;
  char *text = fs_msccl_xml(m, &length);
  ck_assert_ptr_nonnull(text);
  fs_msccl *back = fs_msccl_read_memory(text, length, "w.xml", &e);
  ck_assert_msg(back != NULL, "%s: %s", name, e.message);
  char why[600];
  ck_assert_msg(fs_msccl_check_flow(back, why, sizeof why) == FS_MSCCL_FLOW_OK, "%s: %s", name,
                why);
  char *second = fs_msccl_xml(back, &again);
  ck_assert_ptr_nonnull(second);
  ck_assert_str_eq(second, text);
  free(text), free(second);
  fs_msccl_free(m);
  fs_data_flow_free(&flow);
  *program = p;
  return back;
}

/* The lowering of m (generator msccl) at --size size. */
static fs_program *lowered(const fs_msccl *m, int64_t size) {
  fs_generator_options o = fs_test_options(0, size, 0, NULL);
  fs_error e = {{0}};
  fs_program *p = fs_msccl_program(m, "w.xml", &o, &e);
  ck_assert_msg(p != NULL, "%s", e.message);
  return p;
}

/* Generates name at ranks and size (and NCCL channels), writes it as
 * MSCCL, lowers it back: both makespans under hockney (alpha 1 us, beta
 * 1 ns/B) and, when nccl, under the nccl model with its defaults, must
 * equal; returns the hockney one. They must be equal because every step
 * lowers to the tasks it came from (s: the send, r: the recv, rrc: the
 * recv and a reduce of its bytes, on the same rank), a tb holds the tasks
 * of one CPU of the program and runs as one CPU, and the order a tb adds
 * between steps the program left unordered costs nothing in these models:
 * a send is eager (what follows it waits for its local completion, which
 * is its end), a recv takes no CPU and completes at its message's arrival
 * whether posted early or after the tb's send, and the copies are computes
 * of time 0 at time 0. A CPU split into tbs (several peers) runs them in
 * parallel; in the generators below a rank's steps depend on each other,
 * so its tasks never overlapped on the CPU anyway. The programs have no
 * FIFO credits (--fifo 0): the writer drops them (MSCCL's executor runs
 * NCCL's FIFOs, credits included), and hockney would price each at alpha
 * on its channel. */
static fs_time round_trip(const char *name, int32_t ranks, int64_t size, int32_t channels, int nccl,
                          int32_t *tbs_of_gpu0) {
  fs_generator_options o = fs_test_options(ranks, size, 0, NULL);
  o.channels = channels, o.fifo = FS_NCCL_FIFO_UNLIMITED;
  fs_program *p;
  fs_msccl *m = written(name, &o, &p);
  fs_program *q = lowered(m, size);
  fs_time made = fs_test_makespan(p, "hockney", "fixed", HOCKNEY);
  ck_assert_int_eq(fs_test_makespan(q, "hockney", "fixed", HOCKNEY), made);
  if (nccl)
    ck_assert_int_eq(fs_test_makespan(q, "nccl", "fixed", ""),
                     fs_test_makespan(p, "nccl", "fixed", ""));
  if (tbs_of_gpu0) *tbs_of_gpu0 = m->gpu[0].count;
  fs_program_free(p), fs_program_free(q);
  fs_msccl_free(m);
  return made;
}

START_TEST(nccl_rings_round_trip) {
  int32_t tbs;
  /* allreduce, 4 ranks, 4 MiB: one loop of 4 chunks of 1 MiB, each sent
   * as NCCL's 2 slices of 512 KiB (a flow block each): 6 steps of 2 sends
   * back to back (what a send forwards arrived two sends earlier), each
   * 1 us + 524288 ns (the reduces free): 12 x 525288 ns */
  ck_assert_int_eq(round_trip("allreduce-nccl-ring", 4, 4 << 20, 1, 1, &tbs), 12 * 525288 * NS);
  ck_assert_int_eq(tbs, 1);
  /* two channels: 512 KiB chunks of 2 slices of 256 KiB, each channel one
   * tb (CPU) in parallel: 12 x (1 us + 262144 ns) */
  ck_assert_int_eq(round_trip("allreduce-nccl-ring", 4, 4 << 20, 2, 1, &tbs), 12 * 263144 * NS);
  ck_assert_int_eq(tbs, 2);
  /* allgather and reduce-scatter, 1 MiB a rank: 3 steps of 2 slices of
   * 512 KiB */
  ck_assert_int_eq(round_trip("allgather-nccl-ring", 4, 1 << 20, 1, 1, &tbs), 6 * 525288 * NS);
  ck_assert_int_eq(round_trip("reduce-scatter-nccl-ring", 4, 1 << 20, 1, 1, &tbs), 6 * 525288 * NS);
  ck_assert_int_eq(round_trip("allgather-nccl-ring", 4, 1 << 20, 2, 1, &tbs), 6 * 263144 * NS);
  /* broadcast, 1 MiB in 2 pieces of 512 KiB pipelined over 3 hops: the
   * last piece leaves rank 2 after (3 + 2 - 1) sends of 525288 ns */
  ck_assert_int_eq(round_trip("bcast-nccl-ring", 4, 1 << 20, 1, 1, &tbs), 4 * 525288 * NS);
}
END_TEST

START_TEST(mpi_algorithms_round_trip) {
  int32_t tbs;
  /* ring allreduce, 4 ranks, 4 KiB: 6 steps of 1 KiB, 2024 ns each */
  ck_assert_int_eq(round_trip("allreduce-ring", 4, 4096, 0, 1, &tbs), 6 * 2024 * NS);
  ck_assert_int_eq(round_trip("allgather-ring", 4, 4096, 0, 1, &tbs), 3 * 5096 * NS);
  ck_assert_int_eq(tbs, 1);
  /* pairwise alltoall: rank 0 sends to 1, 2, 3 and receives from 3, 2, 1,
   * a tb per peer; 3 dependent steps of 5096 ns */
  ck_assert_int_eq(round_trip("alltoall-pairwise", 4, 4096, 0, 1, &tbs), 3 * 5096 * NS);
  ck_assert_int_eq(tbs, 3);
  /* Rabenseifner at 8 ranks: rank 0 exchanges with 1, 2 and 4 (halving,
   * then doubling back): 3 tbs */
  round_trip("allreduce-rabenseifner", 8, 8192, 0, 1, &tbs);
  ck_assert_int_eq(tbs, 3);
  round_trip("allgather-rd", 8, 4096, 0, 1, &tbs);
  ck_assert_int_eq(tbs, 3);
  round_trip("bcast-binomial", 4, 4096, 0, 1, NULL);
  /* one rank: nothing moves; the output is the input's copy */
  ck_assert_int_eq(round_trip("allreduce-ring", 1, 8, 0, 0, &tbs), 0);
  ck_assert_int_eq(tbs, 1);
}
END_TEST

/* 3-rank ring allgather, derived by hand: rank r copies its input to
 * output chunk r, sends it to r+1, receives rank r-1's chunk, forwards it,
 * receives rank r-2's (= r+1's). One tb a rank: one send peer, one recv
 * peer. The unused fields carry the peer's chunk (as msccl-tools does). */
static const char allgather3[] =
    "<algo name=\"allgather-ring\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"3\" "
    "ngpus=\"3\" coll=\"allgather\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n"
    "  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"3\" s_chunks=\"0\">\n"
    "    <tb id=\"0\" send=\"1\" recv=\"2\" chan=\"0\">\n"
    "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" "
    "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"1\" type=\"s\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"2\" type=\"r\" srcbuf=\"o\" srcoff=\"2\" dstbuf=\"o\" dstoff=\"2\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"3\" type=\"s\" srcbuf=\"o\" srcoff=\"2\" dstbuf=\"o\" dstoff=\"2\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"4\" type=\"r\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "    </tb>\n"
    "  </gpu>\n"
    "  <gpu id=\"1\" i_chunks=\"1\" o_chunks=\"3\" s_chunks=\"0\">\n"
    "    <tb id=\"0\" send=\"2\" recv=\"0\" chan=\"0\">\n"
    "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\" "
    "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"1\" type=\"s\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"2\" type=\"r\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"3\" type=\"s\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"4\" type=\"r\" srcbuf=\"o\" srcoff=\"2\" dstbuf=\"o\" dstoff=\"2\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "    </tb>\n"
    "  </gpu>\n"
    "  <gpu id=\"2\" i_chunks=\"1\" o_chunks=\"3\" s_chunks=\"0\">\n"
    "    <tb id=\"0\" send=\"0\" recv=\"1\" chan=\"0\">\n"
    "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"2\" "
    "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"1\" type=\"s\" srcbuf=\"o\" srcoff=\"2\" dstbuf=\"o\" dstoff=\"2\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"2\" type=\"r\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"3\" type=\"s\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"4\" type=\"r\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "    </tb>\n"
    "  </gpu>\n"
    "</algo>\n";

START_TEST(writes_the_expected_text) {
  char *xml = fs_test_temp_path(".xml");
  ck_assert_int_eq(fennelsim("gen allgather-ring --ranks 3 --size 8B -o %s", xml), 0);
  ck_assert_str_eq(err, "");
  char *text = fs_test_read_file(xml, NULL);
  ck_assert_str_eq(text, allgather3);
  free(text);
  /* pairwise alltoall at 3 ranks: rank 0 exchanges with 1 (tb 0) and 2
   * (tb 1); step 1 sends to 1 and receives from 2, step 2 the reverse, each
   * after both of step 1: the other tb's part as depid/deps (hasdep="1") */
  ck_assert_int_eq(fennelsim("gen alltoall-pairwise --ranks 3 --size 8B -o %s", xml), 0);
  text = fs_test_read_file(xml, NULL);
  fs_test_contains(
      text, "    <tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n"
            "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" "
            "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
            "      <step s=\"1\" type=\"s\" srcbuf=\"i\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"0\" "
            "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"1\"/>\n"
            "      <step s=\"2\" type=\"r\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\" "
            "cnt=\"1\" depid=\"1\" deps=\"0\" hasdep=\"0\"/>\n"
            "    </tb>\n"
            "    <tb id=\"1\" send=\"2\" recv=\"2\" chan=\"0\">\n"
            "      <step s=\"0\" type=\"r\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"2\" "
            "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"1\"/>\n"
            "      <step s=\"1\" type=\"s\" srcbuf=\"i\" srcoff=\"2\" dstbuf=\"o\" dstoff=\"0\" "
            "cnt=\"1\" depid=\"0\" deps=\"1\" hasdep=\"0\"/>\n"
            "    </tb>\n");
  free(text);
  /* the written file runs as generator msccl's schedule, and an msccl
   * schedule is written back as it was read */
  char *again = fs_test_temp_path(".xml");
  ck_assert_int_eq(fennelsim("gen msccl --schedule %s --size 8B -o %s", xml, again), 0);
  char *a = fs_test_read_file(xml, NULL), *b = fs_test_read_file(again, NULL);
  ck_assert_str_eq(a, b);
  free(a), free(b), free(again), free(xml);
}
END_TEST

static void refused(const char *name, int32_t ranks, const char *part) {
  fs_generator_options o = fs_test_options(ranks, 64, 0, NULL);
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  o.flow = &flow;
  fs_program *p = fs_test_generate(name, &o);
  fs_error e = {{0}};
  fs_msccl *m = fs_msccl_from_program(p, &flow, name, &e);
  ck_assert_msg(m == NULL, "%s was written", name);
  fs_test_contains(e.message, part);
  fs_program_free(p);
  fs_data_flow_free(&flow);
}

START_TEST(refusals_name_the_task) {
  refused("allreduce-rd", 4,
          "cannot write as MSCCL XML: task 4 (put on rank 0): MSCCL has no put (a thread "
          "block sends, receives, reduces and copies)");
  refused("multicast", 4, "(put on rank 0): MSCCL has no put");
  refused("allreduce-recdoub", 4, "its data flow names no collective");
  refused("barrier-rd", 4, "MSCCL has no barrier");
  refused("allreduce-nccl-tree", 4,
          "task 5 (compute on rank 2): it combines two messages (tasks 3 and 4); an MSCCL step "
          "reduces one");
  refused("allgather-bruck", 4,
          "its blocks are not consecutive chunks of one buffer (an MSCCL step moves cnt "
          "consecutive chunks)");
  refused("reduce-binomial", 4, "its steps would not compute the reduce");
  /* MSCCL's 256 steps a tb: 4 KiB in 16-byte chunks is 64 loops of 6 ring
   * steps on the one channel (--slices 1: of 2, the second would be empty) */
  fs_generator_options many = fs_test_options(4, 4096, 0, NULL);
  many.chunk = 16;
  many.slices = 1;
  fs_data_flow steps;
  fs_data_flow_init(&steps);
  many.flow = &steps;
  fs_program *ring = fs_test_generate("allreduce-nccl-ring", &many);
  fs_error too = {{0}};
  ck_assert_ptr_null(fs_msccl_from_program(ring, &steps, "allreduce-nccl-ring", &too));
  fs_test_contains(too.message, "its thread block needs more than MSCCL's 256 steps");
  fs_program_free(ring);
  fs_data_flow_free(&steps);
  /* no flow record at all */
  fs_generator_options o = fs_test_options(4, 64, 0, NULL);
  fs_program *p = fs_test_generate("allgather-ring", &o);
  fs_error e = {{0}};
  ck_assert_ptr_null(fs_msccl_from_program(p, NULL, "allgather-ring", &e));
  fs_test_contains(e.message, "allgather-ring records no data flow");
  fs_program_free(p);
  /* blocks of unequal sizes: MPICH splits 10 bytes over 4 ranks as 3, 3, 3, 1 */
  o = fs_test_options(4, 10, 0, NULL);
  fs_data_flow flow;
  fs_data_flow_init(&flow);
  o.flow = &flow;
  p = fs_test_generate("allreduce-ring", &o);
  ck_assert_ptr_null(fs_msccl_from_program(p, &flow, "allreduce-ring", &e));
  fs_test_contains(e.message, "its blocks differ in size (block 0 has 3 bytes, block 3 1)");
  fs_program_free(p);
  fs_data_flow_free(&flow);
}
END_TEST

START_TEST(command_line) {
  char *xml = fs_test_temp_path(".xml"), *dag = fs_test_temp_path(".dag");
  /* refused: exit 2, nothing written */
  ck_assert_int_eq(fennelsim("gen allreduce-rd --ranks 4 -o %s", xml), 2);
  fs_test_contains(err, "fennelsim gen: cannot write as MSCCL XML: task 4 (put on rank 0)");
  ck_assert_ptr_null(fs_test_read_file(xml, NULL));
  /* --format msccl to stdout */
  ck_assert_int_eq(fennelsim("gen allgather-ring --ranks 3 --format msccl"), 0);
  ck_assert_str_eq(out, allgather3);
  /* an output that cannot be written: exit 1 (write) or 2 (create), no file */
  ck_assert_int_eq(fennelsim("gen allgather-ring --ranks 3 --format msccl -o /dev/full"), 1);
  fs_test_contains(err, "/dev/full: write failed");
  ck_assert_int_eq(fennelsim("gen allgather-ring --ranks 3 -o %s.d/x.xml", xml), 2);
  fs_test_contains(err, "cannot create");
  /* a schedule file has no buffers */
  ck_assert_int_eq(fennelsim("gen allgather-ring --ranks 3 -o %s", dag), 0);
  ck_assert_int_eq(fennelsim("convert %s %s", dag, xml), 2);
  fs_test_contains(err, "a schedule file has no buffers (which blocks each message carries), so "
                        "it cannot become MSCCL XML; generate the algorithm with its data flow "
                        "instead: fennelsim gen ALGO --ranks N --size S -o");
  ck_assert_ptr_null(fs_test_read_file(xml, NULL));
  free(xml), free(dag);
}
END_TEST

int main(void) {
  Suite *s = suite_create("msccl_writer");
  TCase *tc = tcase_create("msccl_writer");
  tcase_add_test(tc, nccl_rings_round_trip);
  tcase_add_test(tc, mpi_algorithms_round_trip);
  tcase_add_test(tc, writes_the_expected_text);
  tcase_add_test(tc, refusals_name_the_task);
  tcase_add_test(tc, command_line);
  suite_add_tcase(s, tc);
  int status = fs_test_run(s);
  free(out), free(err);
  return status;
}
