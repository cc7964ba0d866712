/* lmo.c: the extended LMO model (Lastovetsky, Mkwawa, O'Flynn), per-rank
 * C_i, t_i and per-pair L_ij, invbeta_ij (time per byte,
 * 1/beta_ij) from a rank-pair file (rank_pair_table.h). A message i->j of
 * M bytes passes three phases:
 *   sender CPU   C_i + M*t_i            (then the sender is free: local)
 *   wire         L_ij + M*invbeta_ij    (no contention: links overlap)
 *   receiver CPU C_j + M*t_j
 * so T = C_i + L_ij + C_j + M*(t_i + invbeta_ij + t_j). L defaults to 0:
 * the original LMO. With C_i + L_ij + C_j = alpha_ij and t_i +
 * invbeta_ij + t_j = beta_ij it is heterogeneous Hockney for one message.
 *  put: local at the sender CPU's end; remote after the wire and the
 *    receiver-side time C_j + M*t_j, which takes no CPU of j (one-sided);
 *  get by i from j: a 0-byte request i->j then the M-byte reply j->i:
 *    local C_i, remote (C_i + L_ij + C_j) + (C_j + M*t_j + L_ji +
 *    M*invbeta_ji + C_i + M*t_i), no CPU of j taken;
 *  send: eager, local at the sender CPU's end, arrival after the wire;
 *    receiving holds j's CPU for C_j + M*t_j. */
#include <stdlib.h>

#include "core/engine.h"
#include "models/model_registry.h"
#include "models/rank_pair_table.h"

static fs_time processing(const fs_rank_pair_table *t, int32_t rank, int64_t size) {
  return fs_time_add(t->rank_time[rank], fs_time_for_bytes(size, t->rank_per_byte[rank]));
}

static fs_time wire(const fs_rank_pair_table *t, int32_t from, int32_t to, int64_t size) {
  fs_time latency;
  fs_per_byte invbeta;
  fs_rank_pair_table_link(t, from, to, &latency, &invbeta);
  return fs_time_add(latency, fs_time_for_bytes(size, invbeta));
}

/* the whole p2p time of M bytes i->j */
static fs_time message(const fs_rank_pair_table *t, int32_t i, int32_t j, int64_t size) {
  return fs_time_add(fs_time_add(processing(t, i, size), wire(t, i, j, size)),
                     processing(t, j, size));
}

static void lmo_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const fs_rank_pair_model *m = state;
  const fs_program *p = fs_engine_program(engine);
  int32_t i = fs_task_rank(p, task), j = fs_task_peer(p, task);
  int64_t size = fs_task_value(p, task);
  if (fs_task_kind_of(p, task) == FS_GET) {
    fs_engine_post_local(engine, task, fs_time_add(now, processing(&m->table, i, 0)));
    fs_engine_post_remote(engine, task,
                          fs_time_add(now, fs_time_add(message(&m->table, i, j, 0),
                                                       message(&m->table, j, i, size))));
    return;
  }
  fs_engine_post_local(engine, task, fs_time_add(now, processing(&m->table, i, size)));
  fs_engine_post_remote(engine, task, fs_time_add(now, message(&m->table, i, j, size)));
}

static int lmo_send(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const fs_rank_pair_model *m = state;
  const fs_program *p = fs_engine_program(engine);
  fs_time sent =
      fs_time_add(now, processing(&m->table, fs_task_rank(p, task), fs_task_value(p, task)));
  fs_engine_post_local(engine, task, sent);
  fs_engine_post_arrival(engine, task,
                         fs_time_add(sent, wire(&m->table, fs_task_rank(p, task),
                                                fs_task_peer(p, task), fs_task_value(p, task))));
  return 0;
}

static fs_time lmo_receive(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const fs_rank_pair_model *m = state;
  const fs_program *p = fs_engine_program(engine);
  (void)now;
  return processing(&m->table, fs_task_peer(p, task), fs_task_value(p, task));
}

/* The file describes a fixed set of ranks: any other count fails the run. */
static int lmo_reset(void *state, const fs_program *p, fs_error *err) {
  return fs_rank_pair_model_check_ranks(state, p->ranks, err);
}

static void lmo_describe(const void *state, char *buffer, size_t size) {
  fs_rank_pair_model_describe(state, buffer, size);
}

static void lmo_destroy(void *state) {
  fs_rank_pair_model_free(state);
  free(state);
}

static const fs_model_reports lmo_reports = {.describe = lmo_describe};

int fs_lmo_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  fs_rank_pair_model *m = calloc(1, sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  m->keys = (fs_rank_pair_keys){.link_time = "L",
                                .link_per_byte = "invbeta",
                                .rank_time = "C",
                                .rank_per_byte = "t",
                                .link_time_defaults_to_zero = 1};
  if (fs_rank_pair_model_load(params, "lmo", m, err)) {
    free(m);
    return -1;
  }
  *out = (fs_network_model){.name = "lmo",
                            .state = m,
                            .start = lmo_start,
                            .send = lmo_send,
                            .receive = lmo_receive,
                            .reset = lmo_reset,
                            .destroy = lmo_destroy,
                            .reports = &lmo_reports};
  return 0;
}
