/* generator_support.c: see generator_support.h. */
#include "generator_support.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "generators/data_flow_check.h"
#include "model_support.h"

fs_generator_options fs_test_options(int32_t ranks, int64_t size, int32_t root,
                                     const fs_platform *platform) {
  fs_generator_options o;
  memset(&o, 0, sizeof o);
  o.ranks = ranks;
  o.size = size;
  o.rounds = 1;
  o.root = root;
  o.platform = platform;
  return o;
}

fs_program *fs_test_generate(const char *name, const fs_generator_options *o) {
  const fs_generator *g = fs_generator_find(name);
  ck_assert_msg(g != NULL, "no generator %s", name);
  fs_error err = {{0}};
  fs_program *p = g->generate(o, &err);
  ck_assert_msg(p != NULL, "%s at %d ranks failed: %s", name, o->ranks, err.message);
  ck_assert(p->finalized);
  ck_assert_int_eq(p->capacity, p->tasks); /* the reservation was exact */
  return p;
}

const char *fs_test_generate_error(const char *name, const fs_generator_options *o, fs_error *err) {
  const fs_generator *g = fs_generator_find(name);
  ck_assert_msg(g != NULL, "no generator %s", name);
  memset(err, 0, sizeof *err);
  fs_program *p = g->generate(o, err);
  ck_assert_msg(p == NULL, "%s accepted bad options", name);
  ck_assert_msg(err->message[0] != 0, "%s failed without a message", name);
  return err->message;
}

void fs_test_generate_refused(const char *name, const fs_generator_options *o, const char *part) {
  fs_error err;
  const char *message = fs_test_generate_error(name, o, &err);
  ck_assert_msg(strstr(message, part) != NULL, "%s: \"%s\" lacks \"%s\"", name, message, part);
}

fs_time fs_test_generated_makespan(const char *name, const fs_generator_options *o,
                                   const char *network, const char *compute,
                                   const char *parameters) {
  fs_program *p = fs_test_generate(name, o);
  fs_simulation run;
  fs_test_simulate(&run, p, network, compute, parameters);
  ck_assert_msg(run.status == FS_RUN_OK, "%s N=%d: %s", name, o->ranks, run.err.message);
  fs_time makespan = fs_engine_makespan(run.engine);
  fs_test_run_free(&run);
  fs_program_free(p);
  return makespan;
}

fs_generator_options fs_test_nccl_options(int32_t ranks, int64_t size, int32_t channels,
                                          int64_t chunk) {
  fs_generator_options o = fs_test_options(ranks, size, 0, NULL);
  o.channels = channels;
  o.chunk = chunk;
  return o;
}

void fs_test_expect_flow(const char *name, const fs_generator_options *o) {
  char why[600];
  const char *result = fs_check_generator_flow(name, o, why, sizeof why);
  ck_assert_msg(result == NULL, "%s (ranks %d, size %lld, channels %d, chunk %lld): %s", name,
                o->ranks, (long long)o->size, o->channels, (long long)o->chunk, result);
}

void fs_test_expect_story(const fs_program *p, int32_t r, const char *expected) {
  char text[4096];
  size_t used = 0;
  text[0] = 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    if (p->rank[t] != r) continue;
    int n = p->kind[t] == FS_COMPUTE
                ? snprintf(text + used, sizeof text - used, "%sC@%d:%lld", used ? " " : "",
                           fs_task_cpu(p, t), (long long)p->value[t])
                : snprintf(text + used, sizeof text - used, "%s%c%d@%d/%d:%lld", used ? " " : "",
                           p->kind[t] == FS_SEND ? 'S' : 'R', p->peer[t], fs_task_cpu(p, t),
                           fs_task_tag(p, t), (long long)p->value[t]);
    ck_assert(n > 0 && (size_t)n < sizeof text - used);
    used += (size_t)n;
  }
  ck_assert_msg(strcmp(text, expected) == 0, "rank %d:\n  got      %s\n  expected %s", r, text,
                expected);
}
