/* lognp.c: the log_3 P model (Cameron, Ge, Sun),
 * log_n P with n = 3 stages. A message of s bytes with stride d (the task's
 * stride=, 0: contiguous) costs, eq. (6),
 *     T(s, d) = o_mw(s) + l_mw(s, d) + o_net(s)
 * split, as in the paper, into three stages in sequence:
 *     sender   (o_mw + l_mw) / 2      the sender's CPU (middleware copy, pack)
 *     network  o_net(s)               no CPU, no contention (l_net = 0)
 *     receiver (o_mw + l_mw) / 2      copy/unpack into the user buffer
 * (the receiver's half is the rest when o_mw + l_mw is an odd count of ps).
 * l_mw(s, 0) = 0: a contiguous message has no pack/unpack cost.
 *
 * Tables (rows "SIZE TIME...", '#' comments, sizes increasing; see
 * size_table.h: linear in s between rows, clamped below the first row,
 * extended along the last segment above the last):
 *   --param mw_table=FILE   rows "SIZE O_MW [L_MW(d1) ... L_MW(dk)]"
 *   --param strides=d1,...,dk  the strides (bytes, increasing, > 0) of the
 *                           L_MW columns; without it the rows hold O_MW only
 *                           and a program with a strided transfer fails
 *   --param net_table=FILE  rows "SIZE O_NET"
 * For a stride d between listed strides, l_mw is linear in d between the
 * two columns; below d1 it is d1's value, above dk dk's value (the paper
 * measures only at discrete strides). Negative costs count as 0.
 *
 * Tasks (the stage costs use the task's size and stride):
 *  put: local at the end of the sender stage; remote after the network and
 *    receiver stages, which take no CPU of the target (one-sided);
 *  get by i from j: a 0-byte contiguous request i->j, then the reply of s
 *    bytes with stride d j->i: local after the request's sender stage,
 *    remote after T(0, 0) + T(s, d); no CPU of j is taken;
 *  send: eager; local at the end of the sender stage, arrival after the
 *    network stage; receiving holds the receiver's CPU for the receiver
 *    stage (the `receive` hook). So a put or a send/recv pair of 16 KiB
 *    with stride 1 KiB, o_mw 29 us, l_mw 420 us, o_net 131 us, takes
 *    224.5 + 131 + 224.5 = 580 us, the paper's Fig. 4 point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "models/model_registry.h"
#include "models/size_table.h"

#define MAX_STRIDES (FS_SIZE_TABLE_MAX_COLUMNS - 1)

typedef struct lognp {
  fs_size_table mw;  /* columns: o_mw, then l_mw per listed stride */
  fs_size_table net; /* column: o_net */
  int64_t strides[MAX_STRIDES];
  int stride_count;
  char mw_name[256], net_name[256];
} lognp;

static fs_time positive(fs_time t) { return t < 0 ? 0 : t; }

/* a + (b - a) * (d - d0) / (d1 - d0), rounded to nearest, saturated. */
static fs_time between(fs_time a, fs_time b, int64_t d0, int64_t d1, int64_t d) {
  __int128 n = ((__int128)b - a) * ((__int128)d - d0), q = (__int128)d1 - d0;
  __int128 v = a + (n < 0 ? n - q / 2 : n + q / 2) / q;
  return v > FS_TIME_LIMIT ? FS_TIME_LIMIT : v < -FS_TIME_LIMIT ? -FS_TIME_LIMIT : (fs_time)v;
}

/* l_mw(s, d): 0 when contiguous, else linear in d between stride columns. */
static fs_time l_mw(const lognp *m, int64_t size, int64_t stride) {
  if (stride == 0 || m->stride_count == 0) return 0;
  int k = 0;
  while (k < m->stride_count - 1 && m->strides[k + 1] < stride) k++;
  fs_time a = fs_size_table_value(&m->mw, size, 1 + k);
  if (stride <= m->strides[k] || k == m->stride_count - 1) return a;
  fs_time b = fs_size_table_value(&m->mw, size, 2 + k);
  return between(a, b, m->strides[k], m->strides[k + 1], stride);
}

/* o_mw + l_mw: both middleware halves together. */
static fs_time middleware(const lognp *m, int64_t size, int64_t stride) {
  return fs_time_add(positive(fs_size_table_value(&m->mw, size, 0)),
                     positive(l_mw(m, size, stride)));
}

static fs_time sender_stage(const lognp *m, int64_t size, int64_t stride) {
  return middleware(m, size, stride) / 2;
}

static fs_time receiver_stage(const lognp *m, int64_t size, int64_t stride) {
  fs_time both = middleware(m, size, stride);
  return both - both / 2;
}

static fs_time network_stage(const lognp *m, int64_t size) {
  return positive(fs_size_table_value(&m->net, size, 0));
}

/* T(s, d) = o_mw + l_mw + o_net */
static fs_time message(const lognp *m, int64_t size, int64_t stride) {
  return fs_time_add(middleware(m, size, stride), network_stage(m, size));
}

static void lognp_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const lognp *m = state;
  const fs_program *p = fs_engine_program(engine);
  int64_t size = fs_task_value(p, task), stride = fs_task_stride(p, task);
  if (fs_task_kind_of(p, task) == FS_GET) {
    fs_engine_post_local(engine, task, fs_time_add(now, sender_stage(m, 0, 0)));
    fs_engine_post_remote(engine, task,
                          fs_time_add(now,
                                      fs_time_add(message(m, 0, 0), message(m, size, stride))));
    return;
  }
  fs_engine_post_local(engine, task, fs_time_add(now, sender_stage(m, size, stride)));
  fs_engine_post_remote(engine, task, fs_time_add(now, message(m, size, stride)));
}

static int lognp_send(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const lognp *m = state;
  const fs_program *p = fs_engine_program(engine);
  int64_t size = fs_task_value(p, task);
  fs_time sent = fs_time_add(now, sender_stage(m, size, fs_task_stride(p, task)));
  fs_engine_post_local(engine, task, sent);
  fs_engine_post_arrival(engine, task, fs_time_add(sent, network_stage(m, size)));
  return 0;
}

/* task is the send; its size and stride describe the message. */
static fs_time lognp_receive(void *state, fs_engine *engine, int32_t task, fs_time now) {
  const fs_program *p = fs_engine_program(engine);
  (void)now;
  return receiver_stage(state, fs_task_value(p, task), fs_task_stride(p, task));
}

/* A strided transfer needs the l_mw columns. */
static int lognp_reset(void *state, const fs_program *p, fs_error *err) {
  const lognp *m = state;
  if (m->stride_count || !p->stride) return 0;
  for (int32_t t = 0; t < p->tasks; t++)
    if (p->stride[t] && fs_task_kind_of(p, t) >= FS_PUT) {
      char name[24];
      return fs_error_set(err,
                          "lognp: task %s has stride=%lld but --param strides= lists no "
                          "l_mw columns",
                          fs_task_name(p, t, name), (long long)p->stride[t]);
    }
  return 0;
}

static void lognp_describe(const void *state, char *buffer, size_t size) {
  const lognp *m = state;
  snprintf(buffer, size,
           "\"mw_table\": \"%s\", \"mw_rows\": %d, \"strides\": %d, "
           "\"net_table\": \"%s\", \"net_rows\": %d",
           m->mw_name, m->mw.rows, m->stride_count, m->net_name, m->net.rows);
}

static void lognp_destroy(void *state) {
  lognp *m = state;
  fs_size_table_free(&m->mw);
  fs_size_table_free(&m->net);
  free(m);
}

/* strides=d1,...,dk: positive sizes, strictly increasing. */
static int read_strides(lognp *m, const char *text, fs_error *err) {
  const char *at = text;
  for (;;) {
    const char *comma = strchr(at, ',');
    size_t length = comma ? (size_t)(comma - at) : strlen(at);
    int64_t d;
    if (m->stride_count == MAX_STRIDES || fs_parse_size(at, length, &d) || d <= 0 ||
        (m->stride_count && d <= m->strides[m->stride_count - 1]))
      return fs_error_set(err,
                          "--param strides=%s: expected 1 to %d increasing positive sizes "
                          "up to " FS_SIZE_LIMIT_TEXT " separated by commas (\"16,64,1KiB\")",
                          text, MAX_STRIDES);
    m->strides[m->stride_count++] = d;
    if (!comma) return 0;
    at = comma + 1;
  }
}

/* A table file, or the rows of a model file's <table> (param->text). */
static int read_table(const fs_parameter *param, int columns, fs_size_table *table, char *name,
                      size_t name_size, fs_error *err) {
  snprintf(name, name_size, "%s", param->value);
  fs_text_input *in = fs_parameter_open_text(param, err);
  if (!in) return -1;
  int status = fs_size_table_read(in, columns, NULL, table, err);
  fs_text_input_close(in);
  return status;
}

static int load(lognp *m, fs_parameters *params, fs_error *err) {
  fs_parameter *mw = fs_parameter_take(params, "mw_table");
  fs_parameter *net = fs_parameter_take(params, "net_table");
  fs_parameter *strides = fs_parameter_take(params, "strides");
  if (!mw || !net)
    return fs_error_set(err, "lognp: --param mw_table=FILE and net_table=FILE are required");
  if (strides && read_strides(m, strides->value, err)) return -1;
  if (read_table(mw, 1 + m->stride_count, &m->mw, m->mw_name, sizeof m->mw_name, err)) return -1;
  return read_table(net, 1, &m->net, m->net_name, sizeof m->net_name, err);
}

static const fs_model_reports lognp_reports = {.describe = lognp_describe};

int fs_lognp_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  lognp *m = calloc(1, sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  if (load(m, params, err)) {
    lognp_destroy(m);
    return -1;
  }
  *out = (fs_network_model){.name = "lognp",
                            .state = m,
                            .start = lognp_start,
                            .send = lognp_send,
                            .receive = lognp_receive,
                            .reset = lognp_reset,
                            .destroy = lognp_destroy,
                            .reports = &lognp_reports};
  return 0;
}
