/* test_msccl.c: MSCCL XML schedules: the reader (formats/msccl_reader.h,
 * every attribute and every error message), the data-flow check
 * (generators/msccl_flow.h) on correct and broken schedules, and the
 * lowering of generator msccl (task counts, ranks, CPUs, peers, tags,
 * protocols, exact makespans). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/msccl_reader.h"
#include "generators/msccl.h"
#include "generators/msccl_flow.h"
#include "generator_support.h"
#include "model_support.h"
#include "test_support.h"

static char *out, *err;

#define SCHEDULES FENNELSIM_SOURCE_ROOT "/schedules/"
#define NS 1000 /* ps */

/* A 2-GPU out-of-place allgather on channel 0 of 2, protocol LL: on GPU r,
 * tb 0 sends its input to the other GPU and receives the other's chunk
 * into output chunk 1-r; tb 1 copies the input into output chunk r. */
static const char base[] =
    "<algo name=\"x\" proto=\"LL\" nchannels=\"2\" nchunksperloop=\"2\" ngpus=\"2\" "
    "coll=\"allgather\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n"
    "  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\">\n"
    "    <tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n"
    "      <step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"1\" type=\"r\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "    </tb>\n"
    "    <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
    "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" "
    "cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "    </tb>\n"
    "  </gpu>\n"
    "  <gpu id=\"1\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\">\n"
    "    <tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n"
    "      <step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "      <step s=\"1\" type=\"r\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "    </tb>\n"
    "    <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
    "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\" "
    "cnt=\"1\" "
    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
    "    </tb>\n"
    "  </gpu>\n"
    "</algo>\n";

/* text with the first occurrence of old replaced by new (malloc'd). */
static char *replace(const char *text, const char *old, const char *new) {
  const char *at = strstr(text, old);
  ck_assert_msg(at != NULL, "'%s' not in the text", old);
  size_t n = strlen(text) - strlen(old) + strlen(new);
  char *result = malloc(n + 1);
  ck_assert_ptr_nonnull(result);
  size_t head = (size_t)(at - text);
  memcpy(result, text, head);
  strcpy(result + head, new);
  strcat(result, at + strlen(old));
  return result;
}

static fs_msccl *must_read(const char *text) {
  fs_error e = {{0}};
  fs_msccl *m = fs_msccl_read_memory(text, strlen(text), "m.xml", &e);
  ck_assert_msg(m != NULL, "%s", e.message);
  return m;
}

static fs_msccl *must_read_file(const char *path) {
  fs_error e = {{0}};
  fs_msccl *m = fs_msccl_read(path, &e);
  ck_assert_msg(m != NULL, "%s", e.message);
  return m;
}

/* base with old replaced by new must be refused with exactly message. */
static void refused(const char *old, const char *new, const char *message) {
  char *text = replace(base, old, new);
  fs_error e = {{0}};
  fs_msccl *m = fs_msccl_read_memory(text, strlen(text), "m.xml", &e);
  ck_assert_msg(m == NULL, "accepted: %s -> %s", old, new);
  ck_assert_str_eq(e.message, message);
  free(text);
}

/* ---- reading ---- */

START_TEST(reads_every_attribute) {
  fs_msccl *m = must_read(base);
  ck_assert_str_eq(m->name, "x");
  ck_assert_int_eq(m->proto, FS_PROTOCOL_LL);
  ck_assert_int_eq(m->coll, FS_MSCCL_ALLGATHER);
  ck_assert_int_eq(m->nchannels, 2);
  ck_assert_int_eq(m->nchunksperloop, 2);
  ck_assert_int_eq(m->ngpus, 2);
  ck_assert_int_eq(m->inplace, 0);
  ck_assert_int_eq(m->outofplace, 1);
  ck_assert_int_eq(m->min_bytes, 0);
  ck_assert_int_eq(m->max_bytes, 0);
  ck_assert_int_eq(m->nthreads, 0);
  ck_assert_int_eq(m->tbs, 4);
  ck_assert_int_eq(m->steps, 6);
  ck_assert_int_eq(m->gpu[1].chunks[FS_MSCCL_INPUT], 1);
  ck_assert_int_eq(m->gpu[1].chunks[FS_MSCCL_OUTPUT], 2);
  ck_assert_int_eq(m->gpu[1].chunks[FS_MSCCL_SCRATCH], 0);
  ck_assert_int_eq(m->gpu[1].first, 2);
  ck_assert_int_eq(m->gpu[1].count, 2);
  ck_assert_int_eq(m->gpu[1].line, 11);
  const fs_msccl_tb *tb = &m->tb[2]; /* gpu 1, tb 0 */
  ck_assert_int_eq(tb->send, 0);
  ck_assert_int_eq(tb->recv, 0);
  ck_assert_int_eq(tb->chan, 0);
  ck_assert_int_eq(tb->first, 3);
  ck_assert_int_eq(tb->count, 2);
  ck_assert_int_eq(tb->gpu, 1);
  ck_assert_int_eq(m->tb[3].send, -1);
  const fs_msccl_step *s = &m->step[3]; /* gpu 1's send */
  ck_assert_int_eq(s->type, FS_MSCCL_S);
  ck_assert_int_eq(s->srcbuf, FS_MSCCL_INPUT);
  ck_assert_int_eq(s->srcoff, 0);
  ck_assert_int_eq(s->dstbuf, FS_MSCCL_OUTPUT);
  ck_assert_int_eq(s->dstoff, 1);
  ck_assert_int_eq(s->cnt, 1);
  ck_assert_int_eq(s->depid, -1);
  ck_assert_int_eq(s->deps, -1);
  ck_assert_int_eq(s->hasdep, 0);
  ck_assert_int_eq(s->line, 13);
  ck_assert_int_eq(s->tb, 2);
  /* FIFO matching: gpu 1's send is gpu 0's receive (step 1), and back */
  ck_assert_int_eq(s->to, 1);
  ck_assert_int_eq(m->step[1].from, 3);
  ck_assert_int_eq(m->step[0].to, 4);
  ck_assert_int_eq(m->step[4].from, 0);
  ck_assert_int_eq(m->step[2].from, -1);
  ck_assert_int_eq(m->step[2].to, -1);
  fs_msccl_free(m);
}
END_TEST

/* microsoft/msccl 0.1's dialect: reduce_scatter, nthreads, no outofplace
 * (then 1), no minBytes/maxBytes (then 0); steps of every type parse. */
START_TEST(reads_the_older_dialect_and_every_type) {
  char *a = replace(base,
                    "coll=\"allgather\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" "
                    "maxBytes=\"0\"",
                    "coll=\"reduce_scatter\" inplace=\"1\" nthreads=\"256\"");
  fs_msccl *m = must_read(a);
  ck_assert_int_eq(m->coll, FS_MSCCL_REDUCESCATTER);
  ck_assert_str_eq(fs_msccl_coll_name(m->coll), "reducescatter");
  ck_assert_int_eq(m->inplace, 1);
  ck_assert_int_eq(m->outofplace, 1);
  ck_assert_int_eq(m->nthreads, 256);
  ck_assert_int_eq(m->min_bytes, 0);
  ck_assert_int_eq(m->max_bytes, 0);
  fs_msccl_free(m);
  free(a);
  a = replace(base, "name=\"x\" proto=\"LL\"", "proto=\"LL128\"");
  char *b = replace(a, "minBytes=\"0\" maxBytes=\"0\"", "minBytes=\"16\" maxBytes=\"1048576\"");
  m = must_read(b);
  ck_assert_str_eq(m->name, "");
  ck_assert_int_eq(m->proto, FS_PROTOCOL_LL128);
  ck_assert_int_eq(m->min_bytes, 16);
  ck_assert_int_eq(m->max_bytes, 1048576);
  fs_msccl_free(m);
  free(a), free(b);
  const char *types[] = {"s", "r", "rcs", "rrs", "rrc", "rrcs", "cpy", "re", "nop"};
  for (int t = 0; t < FS_MSCCL_TYPES; t++)
    ck_assert_str_eq(fs_msccl_type_name((fs_msccl_type)t), types[t]);
  /* ring allreduce: s, rrs, rrcs, rcs, r; re, nop and a depid below */
  m = must_read_file(SCHEDULES "msccl-allreduce-ring-8.xml");
  ck_assert_int_eq(m->steps, 8 * 15);
  ck_assert_int_eq(m->step[1].type, FS_MSCCL_RRS);
  ck_assert_int_eq(m->step[7].type, FS_MSCCL_RRCS);
  ck_assert_int_eq(m->step[8].type, FS_MSCCL_RCS);
  ck_assert_int_eq(m->step[14].type, FS_MSCCL_R);
  fs_msccl_free(m);
}
END_TEST

#define STEP0 "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n      <step s=\"1\""
#define CPY0 "type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\""
#define CPY0_DEP CPY0 " depid=\"-1\" deps=\"-1\""
#define R1 "<step s=\"1\" type=\"r\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\""

START_TEST(refuses_malformed_attributes) {
  refused(STEP0, "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n      <step s=\"1\"",
          "m.xml:4: expected attribute cnt on <step>");
  refused("name=\"x\"", "name=\"x\" foo=\"1\"",
          "m.xml:1: expected only name proto nchannels nchunksperloop ngpus coll inplace "
          "outofplace minBytes maxBytes nthreads on <algo> (got foo)");
  refused("ngpus=\"2\"", "ngpus=\"2\" ngpus=\"2\"",
          "m.xml:1:149: expected well-formed XML (libxml2: Attribute ngpus redefined)");
  refused("nchannels=\"2\"", "nchannels=\"0\"",
          "m.xml:1: expected nchannels from 1 to 64 on <algo> (got \"0\")");
  refused("nchannels=\"2\"", "nchannels=\"2x\"",
          "m.xml:1: expected nchannels from 1 to 64 on <algo> (got \"2x\")");
  refused("nchunksperloop=\"2\"", "nchunksperloop=\"99999999999999999999999\"",
          "m.xml:1: expected nchunksperloop from 1 to 1048576 on <algo> (got "
          "\"99999999999999999999999\")");
  refused("proto=\"LL\"", "proto=\"ll\"",
          "m.xml:1: expected proto= Simple, LL or LL128 (got \"ll\")");
  refused("coll=\"allgather\"", "coll=\"allgathr\"",
          "m.xml:1: expected coll= allreduce, allgather, reducescatter (reduce_scatter), "
          "broadcast, reduce, alltoall, alltoallv, gather, scatter, send, recv or custom (got "
          "\"allgathr\")");
  refused("type=\"cpy\"", "type=\"copy\"",
          "m.xml:8: expected type= s, r, rcs, rrs, rrc, rrcs, cpy, re or nop (got \"copy\"; ra "
          "of microsoft/msccl 0.1 is not read)");
  refused("type=\"s\" srcbuf=\"i\"", "type=\"s\" srcbuf=\"x\"",
          "m.xml:4: expected srcbuf= i, o or s (input, output, scratch; got \"x\")");
  refused("inplace=\"0\" outofplace=\"1\"", "inplace=\"0\" outofplace=\"0\"",
          "m.xml:1: expected inplace=\"1\" or outofplace=\"1\" (the schedule is never usable)");
  refused("inplace=\"0\"", "inplace=\"2\"",
          "m.xml:1: expected inplace from 0 to 1 on <algo> (got \"2\")");
  refused("minBytes=\"0\" maxBytes=\"0\"", "minBytes=\"10\" maxBytes=\"5\"",
          "m.xml:1: expected maxBytes 0 (no limit) or at least minBytes 10 (got 5)");
  refused("maxBytes=\"0\"", "maxBytes=\"0\" nthreads=\"33\"",
          "m.xml:1: expected nthreads a multiple of 32 (got 33)");
  refused(CPY0, "type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"0\"",
          "m.xml:8: expected cnt from 1 to 71 on <step> (got \"0\")");
  refused(CPY0, "type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"72\"",
          "m.xml:8: expected cnt from 1 to 71 on <step> (got \"72\")");
  refused("hasdep=\"0\"", "hasdep=\"2\"",
          "m.xml:4: expected hasdep from 0 to 1 on <step> (got \"2\")");
  refused("<tb id=\"0\" send=\"1\"", "<tb id=\"0\" send=\"2\"",
          "m.xml:3: expected send from -1 to 1 on <tb> (got \"2\")");
  refused("recv=\"1\" chan=\"0\"", "recv=\"1\" chan=\"2\"",
          "m.xml:3: expected chan from 0 to 1 on <tb> (got \"2\")");
  refused("i_chunks=\"1\"", "i_chunks=\"-1\"",
          "m.xml:2: expected i_chunks from 0 to 1048576 on <gpu> (got \"-1\")");
  refused("<step s=\"1\"", "<step s=\"256\"",
          "m.xml:5: expected s from 0 to 255 on <step> (got \"256\")");
}
END_TEST

START_TEST(refuses_malformed_structure) {
  refused("<algo ", "<!DOCTYPE algo [<!ENTITY a \"b\">]><algo ",
          "m.xml:1: expected no DOCTYPE (DTDs and entities are not read)");
  refused("<gpu id=\"1\"", "<foo/><gpu id=\"1\"",
          "m.xml:11: expected <gpu> inside <algo> (got <foo>)");
  refused("<gpu id=\"1\"", "hello<gpu id=\"1\"",
          "m.xml:11: expected only <gpu> elements inside <algo>");
  refused("ngpus=\"2\"", "ngpus=\"3\"", "m.xml:1: expected ngpus=\"3\" <gpu> elements (got 2)");
  refused("hasdep=\"0\"/>\n      <step s=\"1\"", "hasdep=\"0\"><tb/></step>\n      <step s=\"1\"",
          "m.xml:4: expected nothing inside <step>");
  refused("<gpu id=\"1\"", "<gpu id=\"0\"",
          "m.xml:11: expected <gpu id=\"1\"> (the gpus are numbered 0, 1, ... in order)");
  refused("<tb id=\"1\" send=\"-1\"", "<tb id=\"2\" send=\"-1\"",
          "m.xml:7: expected <tb id=\"1\"> (the tbs of a <gpu> are numbered 0, 1, ... in order)");
  refused("<step s=\"1\" type=\"r\"", "<step s=\"2\" type=\"r\"",
          "m.xml:5: expected s=\"1\" (the steps of a <tb> are numbered 0, 1, ... in order)");
  refused("<tb id=\"0\" send=\"1\"", "<tb id=\"0\" send=\"0\"",
          "m.xml:3: expected send and recv peers other than the gpu itself (0)");
  refused("<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n      <step s=\"0\" type=\"cpy\"",
          "<tb id=\"1\" send=\"1\" recv=\"-1\" chan=\"0\">\n      <step s=\"0\" type=\"cpy\"",
          "m.xml:7: expected one tb per channel and send peer (tb 0 also sends to 1 on channel "
          "0)");
  fs_error e = {{0}};
  ck_assert_ptr_null(fs_msccl_read_memory("", 0, "m.xml", &e));
  ck_assert_str_eq(e.message, "m.xml:1: expected a <algo> element (got an empty file)");
  const char *other = "<algos/>\n";
  ck_assert_ptr_null(fs_msccl_read_memory(other, strlen(other), "m.xml", &e));
  ck_assert_str_eq(e.message, "m.xml:1: expected an <algo> root element (got <algos>)");
  ck_assert_ptr_null(fs_msccl_read("/nonexistent/m.xml", &e));
  ck_assert_str_eq(e.message, "/nonexistent/m.xml: cannot open");
}
END_TEST

/* Chunk ranges, peers, dependencies, FIFO matching, cycles. */
START_TEST(refuses_inconsistent_schedules) {
  refused("type=\"s\" srcbuf=\"i\" srcoff=\"0\"", "type=\"s\" srcbuf=\"i\" srcoff=\"1\"",
          "m.xml:4: expected srcoff + cnt within the 1 chunks of buffer i on gpu 0 (got srcoff=1 "
          "cnt=1)");
  refused(CPY0, "type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"2\"",
          "m.xml:8: expected srcoff + cnt within the 1 chunks of buffer i on gpu 0 (got srcoff=0 "
          "cnt=2)");
  refused(CPY0, "type=\"cpy\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"s\" dstoff=\"0\" cnt=\"1\"",
          "m.xml:8: expected dstoff + cnt within the 0 chunks of buffer s on gpu 0 (got dstoff=0 "
          "cnt=1)");
  refused(CPY0, "type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\"",
          "m.xml:8: expected a send peer on the <tb> of a step of type s (its send is -1)");
  refused(CPY0, "type=\"rrc\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\"",
          "m.xml:8: expected a recv peer on the <tb> of a step of type rrc (its recv is -1)");
  refused(CPY0_DEP, CPY0 " depid=\"0\" deps=\"5\"",
          "m.xml:8: expected deps a step of tb 0 on gpu 0 (0 to 1; got 5)");
  refused(CPY0_DEP, CPY0 " depid=\"3\" deps=\"0\"",
          "m.xml:8: expected depid a tb of gpu 0 (0 to 1; got 3)");
  refused(CPY0_DEP, CPY0 " depid=\"0\" deps=\"0\"",
          "m.xml:8: expected hasdep=\"1\" on step 0 of tb 0 (line 4), which this step waits for");
  refused(CPY0_DEP, CPY0 " depid=\"0\" deps=\"-1\"",
          "m.xml:8: expected depid and deps both -1 (no dependency) or both set");
  /* gpu 1 receives nothing: gpu 0's send has no receive */
  refused(R1,
          "<step s=\"1\" type=\"nop\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" "
          "cnt=\"1\"",
          "m.xml:3: expected as many receives as sends on channel 0 from gpu 0 to gpu 1 (1 "
          "sends, 0 receives)");
  /* gpu 1 sends and receives on channel 1, gpu 0 on channel 0 */
  char *a = replace(base, "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">",
                    "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"1\">");
  char *b = strdup(a);
  fs_error e = {{0}};
  ck_assert_ptr_null(fs_msccl_read_memory(b, strlen(b), "m.xml", &e));
  ck_assert_str_eq(e.message,
                   "m.xml:3: expected as many receives as sends on channel 0 from gpu 0 to gpu "
                   "1 (1 sends, 0 receives: no tb of that gpu receives from this one on that "
                   "channel)");
  free(a), free(b);
  refused(R1,
          "<step s=\"1\" type=\"r\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" "
          "cnt=\"2\"",
          "m.xml:14: expected cnt=\"1\" as the send it receives (gpu 0, line 4; got 2)");
  /* gpu 0 receiving first is fine (gpu 1 sends first) ... */
  a = replace(base, "<step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\"",
              "<step s=\"0\" type=\"r\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"1\"");
  b = replace(a, "<step s=\"1\" type=\"r\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" dstoff=\"1\"",
              "<step s=\"1\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\"");
  fs_msccl_free(must_read(b));
  /* ... but both GPUs receiving before they send wait for each other */
  char *c = replace(b,
                    "<step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\"",
                    "<step s=\"0\" type=\"r\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\"");
  char *d = replace(c,
                    "<step s=\"1\" type=\"r\" srcbuf=\"o\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\"",
                    "<step s=\"1\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\"");
  ck_assert_ptr_null(fs_msccl_read_memory(d, strlen(d), "m.xml", &e));
  ck_assert_str_eq(e.message,
                   "m.xml:4: expected no dependency cycle (this step waits, through depid/deps, "
                   "its tb's order and the sends it receives, for itself or for a step that "
                   "does)");
  free(a), free(b), free(c), free(d);
}
END_TEST

/* ---- data flow ---- */

static int check_text(const char *text, char *why, size_t size) {
  fs_msccl *m = must_read(text);
  int status = fs_msccl_check_flow(m, why, size);
  fs_msccl_free(m);
  return status;
}

/* A k-GPU ring allreduce, in place on one buffer of k chunks (NCCL's ring
 * order, docs/ALGORITHMS.md): position r sends chunk r-1 first, then
 * receives, adds and forwards chunks r-2, r-3, ..., stores chunk r fully
 * reduced and forwards it, forwards the others as they come, and ends
 * with a plain receive of chunk r+1. */
static char *ring_allreduce(int k) {
  size_t size = 4096 + (size_t)k * (size_t)(2 * k) * 200;
  char *text = malloc(size);
  ck_assert_ptr_nonnull(text);
  size_t used = (size_t)snprintf(text, size,
                                 "<algo name=\"allreduce_ring%d\" proto=\"Simple\" "
                                 "nchannels=\"1\" nchunksperloop=\"%d\" ngpus=\"%d\" "
                                 "coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" "
                                 "minBytes=\"0\" maxBytes=\"0\">\n",
                                 k, k, k);
  for (int r = 0; r < k; r++) {
    used += (size_t)snprintf(text + used, size - used,
                             "<gpu id=\"%d\" i_chunks=\"%d\" o_chunks=\"%d\" s_chunks=\"0\">\n"
                             "<tb id=\"0\" send=\"%d\" recv=\"%d\" chan=\"0\">\n",
                             r, k, k, (r + 1) % k, (r + k - 1) % k);
    for (int t = 0; t <= 2 * k - 2; t++) {
      const char *type = t == 0          ? "s"
                         : t < k - 1     ? "rrs"
                         : t == k - 1    ? "rrcs"
                         : t < 2 * k - 2 ? "rcs"
                                         : "r";
      int c = ((r - 1 - t) % k + k) % k;
      used += (size_t)snprintf(text + used, size - used,
                               "<step s=\"%d\" type=\"%s\" srcbuf=\"i\" srcoff=\"%d\" "
                               "dstbuf=\"i\" dstoff=\"%d\" cnt=\"1\" depid=\"-1\" deps=\"-1\" "
                               "hasdep=\"0\"/>\n",
                               t, type, c, c);
    }
    used += (size_t)snprintf(text + used, size - used, "</tb>\n</gpu>\n");
  }
  snprintf(text + used, size - used, "</algo>\n");
  return text;
}

START_TEST(correct_schedules_pass) {
  char why[600];
  ck_assert_int_eq(check_text(base, why, sizeof why), FS_MSCCL_FLOW_OK);
  ck_assert_str_eq(why, "");
  const char *files[] = {"msccl-allgather-ring-4.xml", "msccl-allgather-ring-4-inplace.xml",
                         "msccl-allreduce-ring-8.xml"};
  for (int i = 0; i < 3; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", SCHEDULES, files[i]);
    fs_msccl *m = must_read_file(path);
    ck_assert_msg(fs_msccl_check_flow(m, why, sizeof why) == FS_MSCCL_FLOW_OK, "%s: %s", files[i],
                  why);
    fs_msccl_free(m);
  }
  for (int k = 2; k <= 9; k++) {
    char *text = ring_allreduce(k);
    ck_assert_msg(check_text(text, why, sizeof why) == FS_MSCCL_FLOW_OK, "%d: %s", k, why);
    free(text);
  }
}
END_TEST

START_TEST(broken_schedules_are_named) {
  char why[600];
  char *ring = ring_allreduce(4);
  /* gpu 1 forwards chunk 3 instead of adding its own part (rcs for rrs):
   * rank 1's contribution to chunk 3 is lost everywhere; gpu 0 is the first
   * checked */
  char *text = replace(ring, "<step s=\"2\" type=\"rrs\" srcbuf=\"i\" srcoff=\"2\"",
                       "<step s=\"2\" type=\"rcs\" srcbuf=\"i\" srcoff=\"2\"");
  ck_assert_int_eq(check_text(text, why, sizeof why), FS_MSCCL_FLOW_WRONG);
  ck_assert_str_eq(why, "gpu 0 output chunk 2: expected the sum of all 4 ranks' chunk 2, has "
                        "ranks 0,2,3");
  free(text);
  /* a wrong offset: gpu 0 adds its chunk 1 into the partial of chunk 2 */
  text = replace(ring, "<step s=\"1\" type=\"rrs\" srcbuf=\"i\" srcoff=\"2\"",
                 "<step s=\"1\" type=\"rrs\" srcbuf=\"i\" srcoff=\"1\"");
  ck_assert_int_eq(check_text(text, why, sizeof why), FS_MSCCL_FLOW_WRONG);
  ck_assert_str_eq(why, "gpu 0 output chunk 2: expected the sum of all 4 ranks' chunk 2, has a "
                        "sum of different chunks");
  free(text);
  free(ring);
  /* allgather: gpu 1 copies its input to the wrong output chunk */
  text = replace(base, "type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\"",
                 "type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\"");
  ck_assert_int_eq(check_text(text, why, sizeof why), FS_MSCCL_FLOW_WRONG);
  ck_assert_str_eq(why, "gpu 1 output chunk 0: step 0 of tb 1 (line 17) and step 1 of tb 0 "
                        "(line 14) access it, one writing, and no dependency orders them (a "
                        "race)");
  free(text);
  /* ... or a missing copy step: output chunk 1 of gpu 1 stays empty */
  text = replace(base, "type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\"",
                 "type=\"nop\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"1\"");
  ck_assert_int_eq(check_text(text, why, sizeof why), FS_MSCCL_FLOW_WRONG);
  ck_assert_str_eq(why, "gpu 1 output chunk 1: expected rank 1's chunk 0, has nothing");
  free(text);
  /* the notes' allgather without tb 1's wait for the copy: a race on o[2] */
  char path[512];
  snprintf(path, sizeof path, "%s%s", SCHEDULES, "msccl-allgather-ring-4.xml");
  char *file = fs_test_read_file(path, NULL);
  ck_assert_ptr_nonnull(file);
  text = replace(file,
                 "<step s=\"0\" type=\"s\" srcbuf=\"o\" srcoff=\"2\" dstbuf=\"o\" "
                 "dstoff=\"2\" cnt=\"1\" depid=\"0\" deps=\"0\"",
                 "<step s=\"0\" type=\"s\" srcbuf=\"o\" srcoff=\"2\" dstbuf=\"o\" dstoff=\"2\" "
                 "cnt=\"1\" depid=\"-1\" deps=\"-1\"");
  ck_assert_int_eq(check_text(text, why, sizeof why), FS_MSCCL_FLOW_WRONG);
  ck_assert_str_eq(why, "gpu 2 output chunk 2: step 0 of tb 0 (line 26) and step 0 of tb 1 "
                        "(line 29) access it, one writing, and no dependency orders them (a "
                        "race)");
  free(text);
  free(file);
  /* collectives without a fixed result are not checked */
  text = replace(base, "coll=\"allgather\"", "coll=\"custom\"");
  ck_assert_int_eq(check_text(text, why, sizeof why), FS_MSCCL_FLOW_UNCHECKED);
  ck_assert_str_eq(why, "not checked: custom has no fixed result");
  free(text);
}
END_TEST

/* A 2-GPU schedule from its gpu bodies: "%d" in a body is the peer. */
static char *pair(const char *coll, int nchunks, int inplace, const char *chunks, const char *body0,
                  const char *body1) {
  char *text = malloc(8192);
  ck_assert_ptr_nonnull(text);
  snprintf(text, 8192,
           "<algo proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"%d\" ngpus=\"2\" "
           "coll=\"%s\" inplace=\"%d\" outofplace=\"%d\">\n"
           "<gpu id=\"0\" %s>\n%s</gpu>\n<gpu id=\"1\" %s>\n%s</gpu>\n</algo>\n",
           nchunks, coll, inplace, !inplace, chunks, body0, chunks, body1);
  return text;
}

#define STEP(s, type, sb, so, db, dof, dep, deps, has)                                     \
  "<step s=\"" #s "\" type=\"" type "\" srcbuf=\"" sb "\" srcoff=\"" #so "\" dstbuf=\"" db \
  "\" dstoff=\"" #dof "\" cnt=\"1\" depid=\"" #dep "\" deps=\"" #deps "\" hasdep=\"" #has "\"/>\n"

/* broadcast, alltoall, reducescatter (out of place and in place), each
 * right and then broken in one step. */
START_TEST(other_collectives) {
  char why[600];
  /* broadcast from 0: gpu 0 sends its input and copies it; gpu 1 receives */
  const char *root = "<tb id=\"0\" send=\"1\" recv=\"-1\" chan=\"0\">\n" STEP(
      0, "s", "i", 0, "o", 0, -1, -1,
      0) "</tb>\n<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" STEP(0, "cpy", "i", 0, "o", 0,
                                                                          -1, -1, 0) "</tb>\n";
  const char *leaf = "<tb id=\"0\" send=\"-1\" recv=\"0\" chan=\"0\">\n" STEP(0, "r", "i", 0, "o",
                                                                              0, -1, -1,
                                                                              0) "</tb>\n";
  char *text = pair("broadcast", 1, 0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"", root, leaf);
  ck_assert_msg(check_text(text, why, sizeof why) == FS_MSCCL_FLOW_OK, "%s", why);
  free(text);
  const char *wrong_leaf =
      "<tb id=\"0\" send=\"-1\" recv=\"0\" chan=\"0\">\n" STEP(0, "rrc", "i", 0, "o", 0, -1, -1,
                                                               0) "</tb>\n";
  text = pair("broadcast", 1, 0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"", root, wrong_leaf);
  ck_assert_int_eq(check_text(text, why, sizeof why), FS_MSCCL_FLOW_WRONG);
  ck_assert_str_eq(why, "gpu 1 output chunk 0: expected rank 0's chunk 0, has ranks 0,1's chunk 0");
  free(text);
  /* alltoall: gpu r sends input chunk 1-r to the other, copies chunk r */
  const char *a0 =
      "<tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n" STEP(0, "s", "i", 1, "o", 0, -1, -1, 0)
          STEP(1, "r", "i", 0, "o", 1, -1, -1,
               0) "</tb>\n<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" STEP(0, "cpy", "i", 0,
                                                                                   "o", 0, -1, -1,
                                                                                   0) "</tb>\n";
  const char *a1 =
      "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n" STEP(0, "s", "i", 0, "o", 0, -1, -1, 0)
          STEP(1, "r", "i", 0, "o", 0, -1, -1,
               0) "</tb>\n<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" STEP(0, "cpy", "i", 1,
                                                                                   "o", 1, -1, -1,
                                                                                   0) "</tb>\n";
  const char *chunks = "i_chunks=\"2\" o_chunks=\"2\" s_chunks=\"0\"";
  text = pair("alltoall", 2, 0, chunks, a0, a1);
  ck_assert_msg(check_text(text, why, sizeof why) == FS_MSCCL_FLOW_OK, "%s", why);
  free(text);
  /* the same moves are no allgather: its input is one chunk per rank */
  text = pair("allgather", 2, 0, chunks, a0, a1);
  ck_assert_int_eq(check_text(text, why, sizeof why), FS_MSCCL_FLOW_WRONG);
  ck_assert_str_eq(why,
                   "gpu 0 step 0 of tb 0 (line 4): reads input chunk 1, which holds nothing yet");
  free(text);
  /* reducescatter: gpu r sends input chunk 1-r, adds the other's to its chunk r */
  const char *r0 =
      "<tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n" STEP(0, "s", "i", 1, "o", 0, -1, -1, 0)
          STEP(1, "rrc", "i", 0, "o", 0, -1, -1, 0) "</tb>\n";
  const char *r1 =
      "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n" STEP(0, "s", "i", 0, "o", 0, -1, -1, 0)
          STEP(1, "rrc", "i", 1, "o", 0, -1, -1, 0) "</tb>\n";
  text = pair("reducescatter", 2, 0, "i_chunks=\"2\" o_chunks=\"1\" s_chunks=\"0\"", r0, r1);
  ck_assert_msg(check_text(text, why, sizeof why) == FS_MSCCL_FLOW_OK, "%s", why);
  free(text);
  /* in place, the output is the rank's block of the input: the same steps */
  text = pair("reducescatter", 2, 1, "i_chunks=\"2\" o_chunks=\"1\" s_chunks=\"0\"", r0, r1);
  ck_assert_msg(check_text(text, why, sizeof why) == FS_MSCCL_FLOW_OK, "%s", why);
  free(text);
  /* gpu 1 adds its chunk 0 instead of 1 */
  const char *bad =
      "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n" STEP(0, "s", "i", 0, "o", 0, -1, -1, 0)
          STEP(1, "rrc", "i", 0, "o", 0, -1, -1, 0) "</tb>\n";
  text = pair("reducescatter", 2, 0, "i_chunks=\"2\" o_chunks=\"1\" s_chunks=\"0\"", r0, bad);
  ck_assert_int_eq(check_text(text, why, sizeof why), FS_MSCCL_FLOW_WRONG);
  ck_assert_str_eq(why, "gpu 1 output chunk 0: expected the sum of all 2 ranks' chunk 1, has a sum "
                        "of different chunks");
  free(text);
}
END_TEST

/* nop steps carry a dependency (the executor's way to wait for several):
 * the FORMATS.md pair allreduce with the add's wait moved to a nop before
 * it; channel 1's transfers carry tag 1. */
START_TEST(nop_dependencies_and_channel_tags) {
  const char *body0 = "<tb id=\"0\" send=\"1\" recv=\"1\" chan=\"1\">\n" STEP(0, "s", "i", 0, "s",
                                                                              0, -1, -1, 0)
      STEP(1, "r", "i", 0, "s", 0, -1, -1,
           1) "</tb>\n<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" STEP(0, "cpy", "i", 0,
                                                                               "o", 0, -1, -1, 0)
          STEP(1, "nop", "i", 0, "o", 0, 0, 1, 0)
              STEP(2, "re", "s", 0, "o", 0, -1, -1, 0) "</tb>\n";
  const char *body1 = "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"1\">\n" STEP(0, "s", "i", 0, "s",
                                                                              0, -1, -1, 0)
      STEP(1, "r", "i", 0, "s", 0, -1, -1,
           1) "</tb>\n<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" STEP(0, "cpy", "i", 0,
                                                                               "o", 0, -1, -1, 0)
          STEP(1, "nop", "i", 0, "o", 0, 0, 1, 0)
              STEP(2, "re", "s", 0, "o", 0, -1, -1, 0) "</tb>\n";
  char *text =
      pair("allreduce", 1, 0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"1\"", body0, body1);
  char *two = replace(text, "nchannels=\"1\"", "nchannels=\"2\"");
  char why[600];
  ck_assert_msg(check_text(two, why, sizeof why) == FS_MSCCL_FLOW_OK, "%s", why);
  /* without the nop's wait, the add races with the receive into scratch */
  char *racy = replace(two,
                       "type=\"nop\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
                       "depid=\"0\" deps=\"1\"",
                       "type=\"nop\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" "
                       "depid=\"-1\" deps=\"-1\"");
  ck_assert_int_eq(check_text(racy, why, sizeof why), FS_MSCCL_FLOW_WRONG);
  ck_assert_str_eq(why, "gpu 0 scratch chunk 0: step 1 of tb 0 (line 5) and step 2 of tb 1 (line "
                        "10) access it, one writing, and no dependency orders them (a race)");
  fs_msccl *m = must_read(two);
  fs_generator_options o = fs_test_options(0, 1024, 0, NULL);
  o.has_reduce_time = 1, o.reduce_time = 100 * NS;
  fs_error e = {{0}};
  fs_program *p = fs_msccl_program(m, "m.xml", &o, &e);
  ck_assert_msg(p != NULL, "%s", e.message);
  ck_assert_int_eq(p->tasks, 2 * 5);
  for (int32_t t = 0; t < p->tasks; t++)
    if (p->kind[t] == FS_SEND || p->kind[t] == FS_RECV) {
      ck_assert_int_eq(fs_task_tag(p, t), 1);
      ck_assert_int_eq(fs_task_cpu(p, t), 0);
    } else {
      ck_assert_int_eq(fs_task_cpu(p, t), 1);
    }
  /* as the FORMATS.md example: 2024 + 100 ns */
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=1ns"), 2124 * NS);
  fs_program_free(p);
  fs_msccl_free(m);
  free(text), free(two), free(racy);
}
END_TEST

/* ---- lowering ---- */

static fs_generator_options options(const char *file, int64_t size) {
  static char path[512];
  snprintf(path, sizeof path, "%s%s", SCHEDULES, file);
  fs_generator_options o = fs_test_options(0, size, 0, NULL);
  o.schedule = path;
  return o;
}

/* The 4-GPU ring allgather: per GPU a copy (compute 0) on tb 0, then
 * on tb 1 (CPU 1) a send, two recv+send pairs (rcs) and a recv. */
START_TEST(lowers_the_ring_allgather) {
  fs_generator_options o = options("msccl-allgather-ring-4.xml", 4096);
  fs_program *p = fs_test_generate("msccl", &o);
  ck_assert_int_eq(p->ranks, 4);
  ck_assert_int_eq(p->tasks, 4 * 7);
  /* per GPU: s after cpy, rcs x2 (after the previous step, recv -> send), r */
  ck_assert_int_eq(p->dependencies, 4 * 6);
  int sends = 0, recvs = 0, copies = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    int32_t r = p->rank[t];
    switch (p->kind[t]) {
      case FS_SEND:
        sends++;
        ck_assert_int_eq(p->peer[t], (r + 1) % 4);
        break;
      case FS_RECV:
        recvs++;
        ck_assert_int_eq(p->peer[t], (r + 3) % 4);
        break;
      case FS_COMPUTE: /* the copy: time 0 on tb 0 */
        copies++;
        ck_assert_int_eq(p->value[t], 0);
        ck_assert(p->flags[t] & FS_HAS_TIME);
        ck_assert_int_eq(fs_task_cpu(p, t), 0);
        continue;
      default: ck_abort_msg("task %d: kind %d", t, p->kind[t]);
    }
    ck_assert_int_eq(p->value[t], 4096);
    ck_assert_int_eq(fs_task_cpu(p, t), 1);
    ck_assert_int_eq(fs_task_tag(p, t), 0);
    ck_assert_int_eq(fs_task_protocol(p, t), FS_PROTOCOL_SIMPLE);
  }
  ck_assert_int_eq(sends, 12);
  ck_assert_int_eq(recvs, 12);
  ck_assert_int_eq(copies, 4);
  ck_assert_int_eq(p->cpus, 2);
  /* hockney, eager, the sender busy until arrival at t + alpha + beta*s:
   * every GPU sends its chunk at 0, it arrives at T = alpha + beta*4096 =
   * 1000 + 4096 = 5096 ns; each rcs receives at the end of the previous
   * step and forwards: arrivals at 2T and 3T; the last recv completes at
   * 3T = 15288 ns on every GPU. */
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=1ns"), 15288 * NS);
  fs_program_free(p);
  /* loggops (defaults L 2500, o 1500, g 1000, G 6 ns/B, O 0, S 65535) at
   * 1 MiB: rendezvous sends, which must not hold their tb (NCCL's FIFO
   * takes the data): what follows a send waits for its local completion
   * (CPU released at t + o). A round: the send starts at t, its message
   * reaches the receiver at t + o + L, whose recv (posted long before)
   * holds the CPU o + (s-1)G: T = 1500 + 2500 + 1500 + 6 x 1048575 =
   * 6296950 ns; the next send starts when the recv completes: 3T =
   * 18890850 ns (the NIC gaps, g + (s-1)G, end earlier). */
  o = options("msccl-allgather-ring-4.xml", 1 << 20);
  p = fs_test_generate("msccl", &o);
  ck_assert_int_eq(fs_test_makespan(p, "loggops", "fixed", ""), INT64_C(18890850) * NS);
  fs_program_free(p);
  /* allgather --size is per rank: chunk = 4 x 4096 / 4; the in-place
   * variant has no copies and the same time */
  o = options("msccl-allgather-ring-4-inplace.xml", 4096);
  p = fs_test_generate("msccl", &o);
  ck_assert_int_eq(p->tasks, 4 * 6);
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=1ns"), 15288 * NS);
  fs_program_free(p);
}
END_TEST

/* The 8-GPU ring allreduce: --size is the whole vector, chunk = S/8;
 * per GPU 15 steps: s, 6 rrs (recv, reduce, send), rrcs, 6 rcs, r. */
START_TEST(lowers_the_ring_allreduce) {
  fs_generator_options o = options("msccl-allreduce-ring-8.xml", 8192);
  fs_program *p = fs_test_generate("msccl", &o);
  ck_assert_int_eq(p->ranks, 8);
  ck_assert_int_eq(p->tasks, 8 * (1 + 6 * 3 + 3 + 6 * 2 + 1));
  ck_assert_int_eq(p->dependencies, 8 * (6 * 2 + 2 + 6 * 1 + 14));
  int computes = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->kind[t] == FS_COMPUTE) computes++;
    ck_assert_int_eq(p->value[t], 1024);
    ck_assert_int_eq(fs_task_cpu(p, t), 0);
  }
  ck_assert_int_eq(computes, 8 * 7);
  /* 14 transfer rounds of T = alpha + beta*1024 = 2024 ns; reduces free
   * under compute fixed: 14 x 2024 = 28336 ns */
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=1ns"), 28336 * NS);
  /* with --reduce-time 100ns, the 7 reduces of the critical path add 700 ns */
  fs_program_free(p);
  o.has_reduce_time = 1, o.reduce_time = 100 * NS;
  p = fs_test_generate("msccl", &o);
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=1ns"), 29036 * NS);
  fs_program_free(p);
}
END_TEST

/* --segment P: NCCL's pipelining. The ring allgather at 4 KiB chunks in
 * pieces of 1 KiB runs 4 times (112 tasks; each tb head after the last
 * step of the previous iteration: 4 x 24 + 3 x 8 dependencies), each
 * iteration 3 rounds of 1000 + 1024 ns: 4 x 6072 = 24288 ns; pieces of
 * 3000 B: 3 x 4000 + 3 x (1000 + 1096) = 18288 ns; of 8 KiB: one
 * iteration, as without --segment. */
START_TEST(pipelining) {
  fs_generator_options o = options("msccl-allgather-ring-4.xml", 4096);
  o.segment = 1024;
  fs_program *p = fs_test_generate("msccl", &o);
  ck_assert_int_eq(p->tasks, 4 * 28);
  ck_assert_int_eq(p->dependencies, 4 * 24 + 3 * 8);
  ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=1ns"), 24288 * NS);
  fs_program_free(p);
  const int64_t segments[2] = {3000, 8192};
  const fs_time times[2] = {18288 * NS, 15288 * NS};
  for (int k = 0; k < 2; k++) {
    o.segment = segments[k];
    p = fs_test_generate("msccl", &o);
    ck_assert_int_eq(fs_test_makespan(p, "hockney", "fixed", "alpha=1us beta=1ns"), times[k]);
    fs_program_free(p);
  }
  /* a step of cnt 3 with chunks of 100 B in pieces of 250 B: 2 chunks a
   * transfer, so a send of 200 B then one of 100 B (and the receives) */
  const char *g0 = "<tb id=\"0\" send=\"1\" recv=\"-1\" chan=\"0\">\n" STEP(0, "s", "i", 0, "o", 0,
                                                                            -1, -1, 0) "</tb>\n";
  const char *g1 = "<tb id=\"0\" send=\"-1\" recv=\"0\" chan=\"0\">\n" STEP(0, "r", "i", 0, "o", 0,
                                                                            -1, -1, 0) "</tb>\n";
  char *text = pair("custom", 3, 0, "i_chunks=\"3\" o_chunks=\"3\" s_chunks=\"0\"", g0, g1);
  char *once = replace(text, "cnt=\"1\"", "cnt=\"3\"");
  char *three = replace(once, "cnt=\"1\"", "cnt=\"3\"");
  fs_msccl *m = must_read(three);
  fs_generator_options c = fs_test_options(0, 300, 0, NULL);
  c.segment = 250;
  fs_error e = {{0}};
  p = fs_msccl_program(m, "m.xml", &c, &e);
  ck_assert_msg(p != NULL, "%s", e.message);
  ck_assert_int_eq(p->tasks, 4);
  ck_assert_int_eq(p->dependencies, 2);
  int64_t sizes[4] = {0};
  for (int32_t t = 0; t < 4; t++) sizes[t] = p->value[t];
  ck_assert_int_eq(sizes[0], 200);
  ck_assert_int_eq(sizes[1], 100);
  ck_assert_int_eq(sizes[2], 200);
  ck_assert_int_eq(sizes[3], 100);
  fs_program_free(p);
  fs_msccl_free(m);
  free(text), free(once), free(three);
}
END_TEST

START_TEST(lowering_refusals) {
  fs_generator_options o = options("msccl-allreduce-ring-8.xml", 100);
  fs_test_generate_refused("msccl", &o,
                           "msccl: " SCHEDULES
                           "msccl-allreduce-ring-8.xml: the allreduce of 100 bytes does not "
                           "split into nchunksperloop=8 equal chunks (MSCCL would run NCCL's own "
                           "algorithm): give a --size that does");
  o = options("msccl-allreduce-ring-8.xml", 64);
  o.ranks = 4;
  fs_test_generate_refused("msccl", &o,
                           "msccl: --ranks 4 differs from the ngpus=\"8\" of " SCHEDULES
                           "msccl-allreduce-ring-8.xml (leave --ranks out)");
  o = fs_test_options(0, 8, 0, NULL);
  fs_test_generate_refused("msccl", &o,
                           "msccl: --schedule FILE.xml is required (the MSCCL algorithm to run; "
                           "its ngpus gives --ranks)");
}
END_TEST

/* ---- the command line ---- */

START_TEST(command_line) {
  char *xml = fs_test_temp_path(".xml"), *dag = fs_test_temp_path(".dag");
  ck_assert_int_eq(fs_test_write_file(xml, base, 0), 0);
  ck_assert_int_eq(fennelsim("gen msccl --schedule %s --size 8B -o %s", xml, dag), 0);
  ck_assert_str_eq(err, "");
  char *text = fs_test_read_file(dag, NULL);
  ck_assert_str_eq(text, "fennel-dag 1\nranks 2\n" /* the XML's proto="LL" on each transfer */
                         "t0 send 0 to=1 size=8B proto=LL label=s\n"
                         "t1 compute 0 time=0ns cpu=1 label=cpy\n"
                         "t2 send 1 to=0 size=8B proto=LL label=s\n"
                         "t3 compute 1 time=0ns cpu=1 label=cpy\n"
                         "t4 recv 0 from=1 size=8B proto=LL after=t0:local label=r\n"
                         "t5 recv 1 from=0 size=8B proto=LL after=t2:local label=r\n");
  free(text);
  /* the installed example, found by name */
  ck_assert_int_eq(fennelsim("gen msccl --schedule msccl-allgather-ring-4.xml --size 4KiB -o %s",
                             dag),
                   0);
  ck_assert_int_eq(fennelsim("run %s --model hockney --param alpha=1us --param beta=1ns", dag), 0);
  fs_test_contains(out, "makespan   15.288 us (15288 ns)\n");
  /* not as GOAL, which has no wait for a send's local completion; the
   * .dag runs 14 x 2024 ns + 7 reduces of 10 ns on the critical path */
  char *goal = fs_test_temp_path(".goal");
  ck_assert_int_eq(fennelsim("gen msccl --schedule msccl-allreduce-ring-8.xml --size 8KiB "
                             "--reduce-time 10ns -o %s",
                             goal),
                   2);
  fs_test_contains(err, "depends on the local completion of task t0: GOAL has only requires "
                        "(completion) and irequires (start)");
  ck_assert_int_eq(fennelsim("gen msccl --schedule msccl-allreduce-ring-8.xml --size 8KiB "
                             "--reduce-time 10ns -o %s",
                             dag),
                   0);
  ck_assert_int_eq(fennelsim("run %s --model hockney --param alpha=1us --param beta=1ns", dag), 0);
  fs_test_contains(out, "makespan   28.406 us (28406 ns)\n");
  free(goal);
  /* in a sweep, by its path; --check leaves the proof to the generator */
  ck_assert_int_eq(fennelsim("sweep msccl:schedule=%smsccl-allgather-ring-4.xml --ranks 4,8 --size "
                             "4KiB --model hockney:alpha=1us,beta=1ns --check",
                             SCHEDULES),
                   0);
  fs_test_contains(out, "* 15.288 us");
  fs_test_contains(out, "skipped: msccl: --ranks 8 differs from the ngpus=\"4\"");
  /* a reader error: file and line, exit 2 */
  char *bad = replace(base, "cnt=\"1\"", "cnt=\"x\"");
  ck_assert_int_eq(fs_test_write_file(xml, bad, 0), 0);
  ck_assert_int_eq(fennelsim("gen msccl --schedule %s -o %s", xml, dag), 2);
  fs_test_contains(err, ".xml:4: expected cnt from 1 to 71 on <step> (got \"x\")\n");
  ck_assert_int_eq(fennelsim("gen msccl --schedule %s --ranks 3", xml), 2);
  free(bad);
  /* a schedule that does not compute its collective, exit 2 */
  bad = replace(base, "coll=\"allgather\"", "coll=\"allreduce\"");
  ck_assert_int_eq(fs_test_write_file(xml, bad, 0), 0);
  ck_assert_int_eq(fennelsim("gen msccl --schedule %s -o %s", xml, dag), 2);
  fs_test_contains(err, ".xml does not compute its allreduce: gpu 0 output chunk 0: expected the "
                        "sum of all 2 ranks' chunk 0, has rank 0\n");
  free(bad);
  free(xml), free(dag);
}
END_TEST

int main(void) {
  Suite *s = suite_create("msccl");
  TCase *tc = tcase_create("msccl");
  tcase_add_test(tc, reads_every_attribute);
  tcase_add_test(tc, reads_the_older_dialect_and_every_type);
  tcase_add_test(tc, refuses_malformed_attributes);
  tcase_add_test(tc, refuses_malformed_structure);
  tcase_add_test(tc, refuses_inconsistent_schedules);
  tcase_add_test(tc, correct_schedules_pass);
  tcase_add_test(tc, broken_schedules_are_named);
  tcase_add_test(tc, other_collectives);
  tcase_add_test(tc, nop_dependencies_and_channel_tags);
  tcase_add_test(tc, lowers_the_ring_allgather);
  tcase_add_test(tc, lowers_the_ring_allreduce);
  tcase_add_test(tc, pipelining);
  tcase_add_test(tc, lowering_refusals);
  tcase_add_test(tc, command_line);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return fs_test_run(s);
}
