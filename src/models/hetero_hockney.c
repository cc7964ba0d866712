/* hetero_hockney.c: the heterogeneous Hockney model (Lastovetsky et al.):
 * a message i->j of M bytes takes alpha_ij + beta_ij * M, with per-pair
 * alpha and beta from a rank-pair file (rank_pair_table.h; keys alpha,
 * beta). Semantics are hockney.c's with per-pair values: the sender's CPU
 * is held until the data arrives; a get by i from j is a request (alpha_ij)
 * then the data back (alpha_ji + beta_ji * M), i blocked through both; a
 * send is eager, busy until it lands, and receiving takes no CPU.
 * --param average=1 uses the means over all ordered pairs i != j: the
 * homogeneous Hockney model of the same data. */
#include <stdlib.h>

#include "core/engine.h"
#include "models/model_registry.h"
#include "models/rank_pair_table.h"

static fs_time transfer(const fs_rank_pair_table *t, int32_t from, int32_t to, int64_t size) {
  fs_time alpha;
  fs_per_byte beta;
  fs_rank_pair_table_link(t, from, to, &alpha, &beta);
  return fs_time_add(alpha, fs_time_for_bytes(size, beta));
}

static void hetero_hockney_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const fs_rank_pair_model *m = state;
  const fs_program *p = fs_engine_program(engine);
  int32_t i = fs_task_rank(p, task), j = fs_task_peer(p, task);
  fs_time cost = fs_task_kind_of(p, task) == FS_GET
                     ? fs_time_add(transfer(&m->table, i, j, 0),
                                   transfer(&m->table, j, i, fs_task_value(p, task)))
                     : transfer(&m->table, i, j, fs_task_value(p, task));
  fs_engine_post_complete(engine, task, fs_time_add(now, cost));
}

static int hetero_hockney_send(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const fs_rank_pair_model *m = state;
  const fs_program *p = fs_engine_program(engine);
  fs_time arrival = fs_time_add(now, transfer(&m->table, fs_task_rank(p, task),
                                              fs_task_peer(p, task), fs_task_value(p, task)));
  fs_engine_post_local(engine, task, arrival);
  fs_engine_post_arrival(engine, task, arrival);
  return 0;
}

/* The file describes a fixed set of ranks: any other count fails the run. */
static int hetero_hockney_reset(void *state, const fs_program *p, fs_error *err) {
  return fs_rank_pair_model_check_ranks(state, p->ranks, err);
}

static void hetero_hockney_describe(const void *state, char *buffer, size_t size) {
  fs_rank_pair_model_describe(state, buffer, size);
}

static void hetero_hockney_destroy(void *state) {
  fs_rank_pair_model_free(state);
  free(state);
}

static const fs_model_reports hetero_hockney_reports = {.describe = hetero_hockney_describe};

int fs_hetero_hockney_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  fs_rank_pair_model *m = calloc(1, sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  m->keys = (fs_rank_pair_keys){.link_time = "alpha", .link_per_byte = "beta"};
  if (fs_rank_pair_model_load(params, "hetero-hockney", m, err)) {
    free(m);
    return -1;
  }
  *out = (fs_network_model){.name = "hetero-hockney",
                            .state = m,
                            .start = hetero_hockney_start,
                            .send = hetero_hockney_send,
                            .reset = hetero_hockney_reset,
                            .destroy = hetero_hockney_destroy,
                            .reports = &hetero_hockney_reports};
  return 0;
}
