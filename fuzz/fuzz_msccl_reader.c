/* fuzz_msccl_reader.c: libFuzzer target for the MSCCL XML reader and
 * what follows it: any input gives an algorithm whose indices are all in
 * range (tbs, steps, matched sends and receives, dependencies), whose
 * data-flow check answers, and which, unless that check refuses it,
 * lowers (--size nchunksperloop bytes, --segment from the last byte) to a
 * program that runs to the end
 * under hockney (eager sends: the reader's cycle check leaves no
 * deadlock); or an error naming "fuzz" (the display name), and nothing
 * else. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/msccl_reader.h"
#include "generators/msccl.h"
#include "generators/msccl_flow.h"
#include "core/engine.h"
#include "models/model_registry.h"

#define FUZZ_MAX_TASKS 100000 /* simulated: small programs only, for speed */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const fs_msccl *m, int64_t segment) {
  if (m->ngpus < 1 || m->tbs < 0 || m->steps < 0) abort();
  for (int32_t g = 0; g < m->ngpus; g++)
    if (m->gpu[g].first < 0 || m->gpu[g].first + m->gpu[g].count > m->tbs) abort();
  for (int32_t t = 0; t < m->tbs; t++) {
    const fs_msccl_tb *tb = &m->tb[t];
    if (tb->first < 0 || tb->first + tb->count > m->steps || tb->gpu < 0 || tb->gpu >= m->ngpus)
      abort();
  }
  for (int32_t i = 0; i < m->steps; i++) {
    const fs_msccl_step *s = &m->step[i];
    if (s->tb < 0 || s->tb >= m->tbs || s->type >= FS_MSCCL_TYPES) abort();
    if ((s->from >= 0) != (fs_msccl_receives(s->type) != 0)) abort();
    if ((s->to >= 0) != (fs_msccl_sends(s->type) != 0)) abort();
    if (s->from >= m->steps || s->to >= m->steps) abort();
    if (s->to >= 0 && (m->step[s->to].from != i || m->step[s->to].cnt != s->cnt)) abort();
  }
  char why[600];
  int status = fs_msccl_check_flow(m, why, sizeof why);
  if (status < -1 || status > 2) abort();
  /* a size every chunk count divides; a checked-correct schedule lowers,
   * and under hockney (eager sends) an acyclic one never deadlocks */
  fs_generator_options o = {.size = m->nchunksperloop, .segment = segment};
  fs_error err;
  fs_program *p = fs_msccl_program(m, "fuzz", &o, &err);
  if (!p && status != FS_MSCCL_FLOW_WRONG && !strstr(err.message, "out of memory")) abort();
  if (p && p->tasks <= FUZZ_MAX_TASKS) {
    fs_parameters params = {0};
    fs_network_model network = {0};
    fs_compute_model compute = {0};
    if (fs_network_model_create("hockney", &params, &network, &err) ||
        fs_compute_model_create("fixed", &params, &compute, &err))
      abort();
    fs_engine *engine = fs_engine_new(p, &network, &compute, &err);
    if (engine && fs_engine_run(engine, &err) != FS_RUN_OK) abort();
    fs_engine_free(engine);
    fs_network_model_destroy(&network);
    fs_compute_model_destroy(&compute);
  }
  fs_program_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_error err;
  fs_msccl *m = fs_msccl_read_memory((const char *)data, size, "fuzz", &err);
  if (m) {
    check(m, size > 0 && data[size - 1] % 3 ? data[size - 1] % 7 + 1 : 0); /* pieces */
    fs_msccl_free(m);
  } else if (strncmp(err.message, "fuzz", 4) != 0) {
    abort();
  }
  return 0;
}
