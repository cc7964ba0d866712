/* pipelined.c: the pipelining latency-bandwidth model (Fennel thesis §4.3,
 * eqs. 4.4-4.6). A put holds its CPU for alpha_r (local completion) and
 * arrives alpha_p + beta*size later:
 *     local = t + alpha_r,  remote = t + alpha_r + alpha_p + beta*size,
 * so b puts issued back to back finish at alpha_p + b*alpha_r (+ beta*size).
 * A get is the request out and the data back: remote = t + alpha_r +
 * 2*alpha_p + beta*size. alpha_p and alpha_r may depend on the message size
 * through a table interpolated linearly between rows (clamped below the first
 * row, extended along the last segment above the last); the default is the
 * ARCHER fit of the thesis's Table 4.1. Remote completion is never earlier
 * than local completion (the table's fitted alpha_p turns negative above
 * 32 KB). A send is eager, like a put: its CPU is free after alpha_r, its
 * message lands alpha_p + beta*size later, and receiving it takes no CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "models/model_registry.h"
#include "models/size_table.h"

typedef struct pipelined {
  fs_time alpha_p, alpha_r; /* used when there is no table */
  fs_per_byte beta;
  fs_size_table table; /* columns: alpha_p, alpha_r */
  char table_name[256];
} pipelined;

/* Table 4.1: ARCHER, dmapp_put_flag_nbi, minimum per multicast width. */
static const int64_t archer_sizes[] = {8, 64, 128, 512, 2048, 8192, 32768, 131072, 524288};
static const fs_time archer_values[] = {
    880 * FS_NS, 380 * FS_NS,  890 * FS_NS,  380 * FS_NS,   910 * FS_NS,   380 * FS_NS,
    960 * FS_NS, 460 * FS_NS,  960 * FS_NS,  790 * FS_NS,   860 * FS_NS,   2170 * FS_NS,
    680 * FS_NS, 7750 * FS_NS, -120 * FS_NS, 30100 * FS_NS, -1700 * FS_NS, 119300 * FS_NS,
};
static const char *const column_names[] = {"alpha_p, a time with a unit",
                                           "alpha_r, a time with a unit"};

static void latencies(const pipelined *m, int64_t size, fs_time *alpha_p, fs_time *alpha_r) {
  if (m->table.rows == 0) {
    *alpha_p = m->alpha_p, *alpha_r = m->alpha_r;
    return;
  }
  fs_time values[2];
  fs_size_table_lookup(&m->table, size, values);
  *alpha_p = values[0];
  *alpha_r = values[1] < 0 ? 0 : values[1];
}

static void pipelined_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const pipelined *m = state;
  const fs_program *p = fs_engine_program(engine);
  int64_t size = fs_task_value(p, task);
  fs_time alpha_p, alpha_r;
  latencies(m, size, &alpha_p, &alpha_r);
  fs_time local = fs_time_add(now, alpha_r);
  fs_time flight =
      fs_time_add(fs_task_kind_of(p, task) == FS_GET ? fs_time_mul(alpha_p, 2) : alpha_p,
                  fs_time_for_bytes(size, m->beta));
  fs_time remote = fs_time_add(local, flight);
  if (remote <= local) {
    fs_engine_post_complete(engine, task, local);
  } else {
    fs_engine_post_local(engine, task, local);
    fs_engine_post_remote(engine, task, remote);
  }
}

static int pipelined_send(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const pipelined *m = state;
  const fs_program *p = fs_engine_program(engine);
  fs_time alpha_p, alpha_r;
  latencies(m, fs_task_value(p, task), &alpha_p, &alpha_r);
  fs_time local = fs_time_add(now, alpha_r);
  fs_time arrival =
      fs_time_add(local, fs_time_add(alpha_p, fs_time_for_bytes(fs_task_value(p, task), m->beta)));
  fs_engine_post_local(engine, task, local);
  fs_engine_post_arrival(engine, task, arrival > local ? arrival : local);
  return 0;
}

/* After alpha_r on the CPU: alpha_p (twice for a get) and beta * size; a
 * negative fitted alpha_p shortens the size part, and a flight that is not
 * positive costs nothing (the model then completes the transfer at once). */
static int pipelined_price(void *state, const fs_program *p, int32_t task, fs_time *latency,
                           fs_time *per_size) {
  const pipelined *m = state;
  fs_time alpha_p, alpha_r;
  latencies(m, fs_task_value(p, task), &alpha_p, &alpha_r);
  *latency = fs_task_kind_of(p, task) == FS_GET ? fs_time_mul(alpha_p, 2) : alpha_p;
  *per_size = fs_time_for_bytes(fs_task_value(p, task), m->beta);
  if (*latency < 0) *per_size = fs_time_add(*per_size, *latency), *latency = 0;
  if (*per_size < 0) *per_size = 0;
  return 0;
}

static void pipelined_describe(const void *state, char *buffer, size_t size) {
  const pipelined *m = state;
  char a[32], b[32], beta[48];
  fs_format_ns_per_byte(beta, m->beta);
  if (m->table.rows)
    snprintf(buffer, size, "\"table\": \"%s\", \"table_rows\": %d, \"beta_ns_per_byte\": %s",
             m->table_name, m->table.rows, beta);
  else
    snprintf(buffer, size, "\"alpha_p_ns\": %s, \"alpha_r_ns\": %s, \"beta_ns_per_byte\": %s",
             fs_format_ns(a, m->alpha_p), fs_format_ns(b, m->alpha_r), beta);
}

static void pipelined_destroy(void *state) {
  pipelined *m = state;
  fs_size_table_free(&m->table);
  free(m);
}

static int read_table(pipelined *m, const fs_parameter *table, fs_error *err) {
  fs_text_input *in = fs_parameter_open_text(table, err);
  if (!in) return -1;
  int status = fs_size_table_read(in, 2, column_names, &m->table, err);
  fs_text_input_close(in);
  return status;
}

static const fs_model_reports pipelined_reports = {.describe = pipelined_describe,
                                                   .price = pipelined_price};

int fs_pipelined_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  pipelined *m = calloc(1, sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  fs_parameter *table = fs_parameter_take(params, "table");
  int has_alpha = fs_parameter_take(params, "alpha_p") || fs_parameter_take(params, "alpha_r");
  m->alpha_p = 880 * FS_NS;
  m->alpha_r = 380 * FS_NS;
  if (fs_parameter_time(params, "alpha_p", 1, &m->alpha_p, err) ||
      fs_parameter_time(params, "alpha_r", 0, &m->alpha_r, err) ||
      fs_parameter_per_byte(params, "beta", &m->beta, err))
    goto fail;
  if (table && has_alpha) {
    fs_error_set(err, "--param table= and alpha_p/alpha_r exclude each other");
    goto fail;
  }
  if ((!table && !has_alpha) || (table && !table->text && strcmp(table->value, "archer") == 0)) {
    m->table =
        (fs_size_table){.columns = 2, .rows = 9, .sizes = archer_sizes, .values = archer_values};
    snprintf(m->table_name, sizeof m->table_name, "archer");
  } else if (table && (table->text || strcmp(table->value, "none") != 0)) {
    snprintf(m->table_name, sizeof m->table_name, "%s", table->value);
    if (read_table(m, table, err)) goto fail;
  }
  *out = (fs_network_model){.name = "pipelined",
                            .state = m,
                            .start = pipelined_start,
                            .send = pipelined_send,
                            .destroy = pipelined_destroy,
                            .reports = &pipelined_reports};
  return 0;
fail:
  pipelined_destroy(m);
  return -1;
}
