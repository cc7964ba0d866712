/* taulop.c: the tau-Lop model (Rico-Gallego's thesis, seed 000): transfers
 * share a channel instance, and a transfer of m bytes among tau active ones
 * on its instance takes L(m, tau).
 *
 * Platform: ranks mapped onto nodes (--param nodes=M cores=Q mapping=seq|rr,
 * or platform=FILE.xml). Channel instances: the shared memory of each node
 * (c = 0) and the network into each node's NIC (c = 1: network contention
 * is counted at the destination NIC, thesis §3.5).
 *
 * A message (send, put; a get is a message from its peer) of m bytes:
 *   o^c(m) on the sender's CPU (a step: O_S, plus O_P from m >= H), never
 *   scaled by contention; then its transfers:
 *   same node (eq. 3.2): k = ceil(m/S) segments, each copied into the
 *     shared buffer (a "put" transfer) and out of it (a "get"); segment j+1
 *     is put while segment j is got, so alone it costs
 *     o + 2 L(S,1) + (k-1) L(S,2);
 *   other node (eq. 3.3): L^0 on the sender's node, L^1 into the receiver's
 *     NIC, L^0 on the receiver's node, in sequence: o + 2 L^0(m,1) + L^1(m,1).
 * The sender's CPU is held through o and its own copies (the puts, or the
 * copy to the NIC); the message is delivered when its last transfer ends.
 * Receiving takes no further CPU.
 *
 * When tau changes on an instance, every active transfer there keeps its
 * progress fraction f (df/dt = 1/L(m, tau)) and is rescheduled at
 * t + (1-f) L(m, tau_new): with m1 < m2 starting together the first ends at
 * L(m1,2) and the second L(m2-m1,1) later, the thesis's rule A2.
 *
 * L^c(m, tau) comes from a table file per channel (shm_table=, net_table=):
 * rows "SIZE L(m,1) L(m,2) ... L(m,T)", interpolated linearly in m and
 * extended along the last segment; beyond T, L(m,T) * tau / T (the serial
 * bound of the contention axiom). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "models/model_registry.h"
#include "platform/platform.h"
#include "models/platform_parameters.h"
#include "models/shared_resource.h"
#include "models/size_table.h"

/* Model events: a message's o has passed (START_FLAG | message record), or
 * the shared channels' own events (below bit 31). */
#define START_FLAG 0x80000000u

enum leg { SEGMENT_PUT, SEGMENT_GET, TO_NIC, ACROSS, FROM_NIC };

typedef struct message {
  int32_t task, source_node, target_node;
  int64_t bytes, segment;
  int32_t segments, put, got; /* segments put into / got out of the buffer */
  uint8_t local_node, getting;
} message;

typedef struct taulop {
  /* parameters */
  fs_time o[2], o_protocol[2];
  int64_t threshold[2], segment;
  fs_size_table table[2];
  char table_name[2][256];
  fs_platform_parameters where;
  /* run state */
  fs_platform *platform;
  fs_shared_resource *channels; /* nodes' shared memories, then nodes' NICs */
  struct {
    int64_t bytes;
    int32_t tau;
    double cost;
  } last[2]; /* per channel: the last cost asked */
  message *messages;
  int32_t message_count, message_capacity, free_message;
} taulop;

/* Segments of one same-node message: each is simulated, so their count
 * bounds the work (docs/MODELS.md, "Limits"). */
#define MAX_SEGMENTS ((int64_t)1 << 24)

/* ceil(bytes / segment) without overflow. */
static int64_t segments_of(int64_t bytes, int64_t segment) {
  return bytes / segment + (bytes % segment != 0);
}

static fs_time overhead(const taulop *m, int channel, int64_t bytes) {
  return fs_time_add(m->o[channel], bytes >= m->threshold[channel] ? m->o_protocol[channel] : 0);
}

/* L^c(bytes, tau) in picoseconds. */
static double transfer_time(const taulop *m, int channel, int64_t bytes, int32_t tau) {
  const fs_size_table *t = &m->table[channel];
  if (tau <= t->columns) return (double)fs_size_table_value(t, bytes, tau - 1);
  return (double)fs_size_table_value(t, bytes, t->columns - 1) * tau / t->columns;
}

static int channel_of_instance(const taulop *m, int32_t instance) {
  return instance < m->platform->used_nodes ? 0 : 1;
}

/* Collectives move many messages of one size: the last answer per channel
 * is kept. */
static double channel_cost(void *owner, int32_t instance, int64_t bytes, int32_t tau) {
  taulop *m = owner;
  int c = channel_of_instance(m, instance);
  if (m->last[c].bytes != bytes || m->last[c].tau != tau) {
    m->last[c].bytes = bytes, m->last[c].tau = tau;
    m->last[c].cost = transfer_time(m, c, bytes, tau);
  }
  return m->last[c].cost;
}

static void begin_transfer(taulop *m, fs_engine *e, int32_t record, int leg, int32_t instance,
                           int64_t bytes, fs_time now) {
  fs_shared_resource_begin(m->channels, e, instance, bytes, record, leg, now);
}

static int64_t segment_bytes(const message *g, int32_t j) {
  return j + 1 < g->segments ? g->segment : g->bytes - (int64_t)(g->segments - 1) * g->segment;
}

/* The message's data is where it was sent: a put or a get lands, a send's
 * message reaches its receiver. */
static void deliver(taulop *m, fs_engine *e, int32_t record, fs_time now) {
  message *g = &m->messages[record];
  const fs_program *p = fs_engine_program(e);
  if (fs_task_kind_of(p, g->task) == FS_SEND)
    fs_engine_post_arrival(e, g->task, now);
  else
    fs_engine_post_remote(e, g->task, now);
  g->task = -1;
  g->put = m->free_message; /* the free list runs through `put` */
  m->free_message = record;
}

/* The sender's part is over: its CPU is free (a get's initiator was freed
 * after its o). */
static void sender_done(fs_engine *e, const message *g, fs_time now) {
  if (fs_engine_program(e)->kind[g->task] != FS_GET) fs_engine_post_local(e, g->task, now);
}

static void start_get_if_ready(taulop *m, fs_engine *e, int32_t record, fs_time now) {
  message *g = &m->messages[record];
  if (g->getting || g->got >= g->put) return;
  g->getting = 1;
  begin_transfer(m, e, record, SEGMENT_GET, g->source_node, segment_bytes(g, g->got), now);
}

/* What follows the end of a transfer (already off its instance). */
static void transfer_done(void *owner, fs_engine *e, int32_t record, int leg, fs_time now) {
  taulop *m = owner;
  message *g = &m->messages[record];
  int32_t nodes = m->platform->used_nodes;
  switch (leg) {
    case SEGMENT_PUT:
      g->put++;
      if (g->put < g->segments)
        begin_transfer(m, e, record, SEGMENT_PUT, g->source_node, segment_bytes(g, g->put), now);
      else
        sender_done(e, g, now);
      start_get_if_ready(m, e, record, now);
      break;
    case SEGMENT_GET:
      g->got++, g->getting = 0;
      if (g->got == g->segments)
        deliver(m, e, record, now);
      else
        start_get_if_ready(m, e, record, now);
      break;
    case TO_NIC:
      sender_done(e, g, now);
      begin_transfer(m, e, record, ACROSS, nodes + g->target_node, g->bytes, now);
      break;
    case ACROSS: begin_transfer(m, e, record, FROM_NIC, g->target_node, g->bytes, now); break;
    default: deliver(m, e, record, now); break;
  }
}

static int32_t new_message(taulop *m) {
  if (m->free_message >= 0) {
    int32_t r = m->free_message;
    m->free_message = m->messages[r].put;
    return r;
  }
  if (m->message_count == m->message_capacity) {
    int32_t want = m->message_capacity ? m->message_capacity * 2 : 1024;
    message *bigger = realloc(m->messages, (size_t)want * sizeof *bigger);
    if (!bigger) return -1;
    m->messages = bigger;
    m->message_capacity = want;
  }
  return m->message_count++;
}

/* A put, get or send starts: o on the CPU, then the transfers. */
static void begin_message(taulop *m, fs_engine *e, int32_t task, fs_time now) {
  const fs_program *p = fs_engine_program(e);
  int32_t record = new_message(m);
  if (record < 0) {
    fs_engine_fail(e, "out of memory for the messages of the taulop model");
    return;
  }
  int32_t from = fs_task_kind_of(p, task) == FS_GET ? fs_task_peer(p, task) : fs_task_rank(p, task);
  int32_t to = fs_task_kind_of(p, task) == FS_GET ? fs_task_rank(p, task) : fs_task_peer(p, task);
  message *g = &m->messages[record];
  *g = (message){.task = task,
                 .source_node = fs_platform_node_of(m->platform, from),
                 .target_node = fs_platform_node_of(m->platform, to),
                 .bytes = fs_task_value(p, task)};
  g->local_node = g->source_node == g->target_node;
  g->segment = m->segment > 0 && g->bytes > m->segment ? m->segment : (g->bytes > 0 ? g->bytes : 1);
  int64_t segments = g->local_node ? segments_of(g->bytes, g->segment) : 1;
  if (segments > MAX_SEGMENTS) {
    fs_engine_fail(e, "taulop simulates at most 16777216 segments of a same-node message "
                      "(raise --param segment=)");
    return;
  }
  g->segments = segments < 1 ? 1 : (int32_t)segments;
  fs_time o = overhead(m, g->local_node ? 0 : 1, g->bytes);
  if (fs_task_kind_of(p, task) == FS_GET) fs_engine_post_local(e, task, fs_time_add(now, o));
  fs_engine_post_model_event(e, fs_time_add(now, o), (uint32_t)record | START_FLAG);
}

static void start_transfers(taulop *m, fs_engine *e, int32_t record, fs_time now) {
  message *g = &m->messages[record];
  if (g->local_node)
    begin_transfer(m, e, record, SEGMENT_PUT, g->source_node, segment_bytes(g, 0), now);
  else
    begin_transfer(m, e, record, TO_NIC, g->source_node, g->bytes, now);
}

static void taulop_event(void *state, fs_engine *e, uint32_t payload, fs_time now) {
  taulop *m = state;
  if (payload & START_FLAG)
    start_transfers(m, e, (int32_t)(payload & ~START_FLAG), now);
  else
    fs_shared_resource_event(m->channels, e, payload, now);
}

static void taulop_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  begin_message(state, engine, task, now);
}

static int taulop_send(void *state, fs_engine *engine, int32_t task, fs_time now) {
  begin_message(state, engine, task, now);
  return 0; /* eager: the protocol cost is folded into o (thesis §1.6) */
}

static int taulop_reset(void *state, const fs_program *p, fs_error *err) {
  taulop *m = state;
  fs_platform_free(m->platform);
  m->platform = fs_platform_parameters_build(&m->where, p->ranks, err);
  if (!m->platform) return -1;
  /* instances for the nodes the ranks are on, however large the platform */
  if ((int64_t)2 * m->platform->used_nodes > FS_SHARED_MAX_INSTANCES)
    return fs_error_set(err, "taulop handles at most %d nodes", FS_SHARED_MAX_INSTANCES / 2);
  if (fs_shared_resource_reset(m->channels, 2 * m->platform->used_nodes, err)) return -1;
  m->last[0].tau = m->last[1].tau = 0; /* nothing cached */
  m->message_count = 0;
  m->free_message = -1;
  return 0;
}

static void post_model_event(void *owner, fs_engine *e, fs_time at, uint32_t payload) {
  (void)owner;
  fs_engine_post_model_event(e, at, payload);
}

/* A same-node message of k segments alone, on a shared memory of its own
 * (a scratch fs_shared_resource, driven here without an engine): segment
 * j+1 put while j is got, as transfer_done does it. Its event is the last
 * one posted; *last_put when the sender's copies end, the return value
 * when the last get does (both from the first put's start), -1 when the
 * pipeline could not run (out of memory). */
typedef struct lone_message {
  const taulop *m;
  fs_shared_resource *shm;
  int64_t bytes;
  int32_t segments, put, got, getting;
  fs_time pending_at, last_put, delivered;
  uint32_t pending;
  int has_pending;
} lone_message;

static int64_t lone_segment_bytes(const lone_message *l, int32_t j) {
  return j + 1 < l->segments ? l->m->segment
                             : l->bytes - (int64_t)(l->segments - 1) * l->m->segment;
}

static double lone_cost(void *owner, int32_t instance, int64_t bytes, int32_t tau) {
  (void)instance;
  return transfer_time(((lone_message *)owner)->m, 0, bytes, tau);
}

static void lone_post(void *owner, fs_engine *e, fs_time at, uint32_t payload) {
  (void)e;
  lone_message *l = owner;
  l->pending_at = at, l->pending = payload, l->has_pending = 1;
}

static void lone_get_if_ready(lone_message *l, fs_time now) {
  if (l->getting || l->got >= l->put) return;
  l->getting = 1;
  fs_shared_resource_begin(l->shm, NULL, 0, lone_segment_bytes(l, l->got), 0, SEGMENT_GET, now);
}

static void lone_done(void *owner, fs_engine *e, int32_t job_owner, int leg, fs_time now) {
  (void)e, (void)job_owner;
  lone_message *l = owner;
  if (leg == SEGMENT_PUT) {
    if (++l->put < l->segments)
      fs_shared_resource_begin(l->shm, NULL, 0, lone_segment_bytes(l, l->put), 0, SEGMENT_PUT, now);
    else
      l->last_put = now;
  } else {
    l->getting = 0;
    if (++l->got == l->segments) l->delivered = now;
  }
  lone_get_if_ready(l, now);
}

static fs_time lone_segmented(const taulop *m, int64_t bytes, fs_time *last_put) {
  if (segments_of(bytes, m->segment) > MAX_SEGMENTS) return -1;
  lone_message l = {.m = m,
                    .bytes = bytes,
                    .delivered = -1,
                    .segments = (int32_t)segments_of(bytes, m->segment)};
  fs_shared_callbacks callbacks = {.owner = &l,
                                   .cost = lone_cost,
                                   .post = lone_post,
                                   .done = lone_done};
  fs_error err;
  l.shm = fs_shared_resource_new(&callbacks);
  if (!l.shm || fs_shared_resource_reset(l.shm, 1, &err)) {
    fs_shared_resource_free(l.shm);
    return -1;
  }
  fs_shared_resource_begin(l.shm, NULL, 0, lone_segment_bytes(&l, 0), 0, SEGMENT_PUT, 0);
  while (l.has_pending && l.delivered < 0) {
    l.has_pending = 0;
    fs_shared_resource_event(l.shm, NULL, l.pending, l.pending_at);
  }
  fs_shared_resource_free(l.shm);
  *last_put = l.last_put;
  return l.delivered;
}

/* Alone (tau = 1), after the sender's CPU part (o and its own copies; a
 * get's initiator only has o): the rest of the message's transfers. The
 * latency is their cost at 0 bytes in the tables, the size part the rest.
 * A segmented same-node message is priced by running its pipeline alone
 * (lone_segmented): what follows its last put, or all of it for a get. */
static int taulop_price(void *state, const fs_program *p, int32_t task, fs_time *latency,
                        fs_time *per_size) {
  const taulop *m = state;
  if (!m->platform) return -1;
  int get = fs_task_kind_of(p, task) == FS_GET;
  int32_t from = get ? fs_task_peer(p, task) : fs_task_rank(p, task),
          to = get ? fs_task_rank(p, task) : fs_task_peer(p, task);
  int64_t bytes = fs_task_value(p, task);
  int same_node = fs_platform_node_of(m->platform, from) == fs_platform_node_of(m->platform, to);
  /* channel of each leg after the CPU part: same node: (put,) get; other: (L0,) L1, L0 */
  int legs[3], count = 0;
  if (same_node) {
    if (get) legs[count++] = 0;
    legs[count++] = 0;
  } else {
    if (get) legs[count++] = 0;
    legs[count++] = 1, legs[count++] = 0;
  }
  fs_time total = 0, fixed = 0;
  for (int i = 0; i < count; i++) {
    total = fs_time_add(total, fs_size_table_value(&m->table[legs[i]], bytes, 0));
    fixed = fs_time_add(fixed, fs_size_table_value(&m->table[legs[i]], 0, 0));
  }
  if (same_node && m->segment > 0 && bytes > m->segment) {
    fs_time last_put = 0, delivered = lone_segmented(m, bytes, &last_put);
    if (delivered < 0) return -1;
    total = get ? delivered : delivered - last_put;
  }
  if (total < 0) total = 0;
  if (fixed > total) fixed = total;
  if (fixed < 0) fixed = 0;
  *latency = fixed, *per_size = total - fixed;
  return 0;
}

static void taulop_describe(const void *state, char *buffer, size_t size) {
  const taulop *m = state;
  char o0[32], o1[32], op[32];
  int n = snprintf(buffer, size,
                   "\"shm_table\": \"%s\", \"net_table\": \"%s\", \"shm_o_ns\": %s, "
                   "\"net_o_ns\": %s, \"net_o_protocol_ns\": %s, \"net_H_bytes\": %lld, "
                   "\"segment_bytes\": %lld",
                   m->table_name[0], m->table_name[1], fs_format_ns(o0, m->o[0]),
                   fs_format_ns(o1, m->o[1]), fs_format_ns(op, m->o_protocol[1]),
                   (long long)m->threshold[1], (long long)m->segment);
  if (n > 0 && (size_t)n < size && m->platform)
    snprintf(buffer + n, size - (size_t)n, ", \"nodes\": %d, \"cores\": %d, \"mapping\": \"%s\"",
             m->platform->nodes, m->platform->cores, fs_mapping_name(m->platform->mapping));
}

/* Channel instances for a load observer: "shm node 3", "net node 3". */
static void instance_name(const void *state, int32_t instance, char *buffer, size_t size) {
  const taulop *m = state;
  int channel = channel_of_instance(m, instance);
  snprintf(buffer, size, "%s node %d", channel ? "net" : "shm",
           channel ? instance - m->platform->used_nodes : instance);
}

static void taulop_set_load_observer(void *state, const fs_load_observer *observer) {
  fs_shared_resource_set_observer(((taulop *)state)->channels, observer, instance_name);
}

static void taulop_destroy(void *state) {
  taulop *m = state;
  fs_size_table_free(&m->table[0]);
  fs_size_table_free(&m->table[1]);
  fs_platform_free(m->platform);
  fs_shared_resource_free(m->channels);
  free(m->messages);
  free(m);
}

static int read_table(taulop *m, int channel, const fs_parameter *table, fs_error *err) {
  fs_text_input *in = fs_parameter_open_text(table, err);
  if (!in) return -1;
  int status = fs_size_table_read(in, 0, NULL, &m->table[channel], err);
  fs_text_input_close(in);
  snprintf(m->table_name[channel], sizeof m->table_name[channel], "%s", table->value);
  return status;
}

static int read_size(fs_parameters *params, const char *key, int64_t *out, fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (p && fs_parse_size(p->value, strlen(p->value), out))
    return fs_error_set(err, "--param %s=%s: expected a size such as 8KiB, up to %s", key, p->value,
                        FS_SIZE_LIMIT_TEXT);
  return 0;
}

static int read_parameters(taulop *m, fs_parameters *params, fs_error *err) {
  fs_parameter *shm = fs_parameter_take(params, "shm_table");
  fs_parameter *net = fs_parameter_take(params, "net_table");
  if (!shm || !net)
    return fs_error_set(err, "taulop needs --param shm_table=FILE and --param net_table=FILE "
                             "(rows: SIZE L(m,1) L(m,2) ... L(m,T))");
  if (fs_parameter_time(params, "shm_o", 0, &m->o[0], err) ||
      fs_parameter_time(params, "net_o", 0, &m->o[1], err) ||
      fs_parameter_time(params, "net_o_protocol", 0, &m->o_protocol[1], err) ||
      read_size(params, "net_H", &m->threshold[1], err) ||
      read_size(params, "segment", &m->segment, err) ||
      fs_platform_parameters_read(params, &m->where, err))
    return -1;
  return read_table(m, 0, shm, err) || read_table(m, 1, net, err) ? -1 : 0;
}

static const fs_model_reports taulop_reports = {.describe = taulop_describe,
                                                .price = taulop_price,
                                                .set_load_observer = taulop_set_load_observer};

int fs_taulop_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  taulop *m = calloc(1, sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  m->threshold[0] = INT64_MAX;  /* shared memory: no protocol change (thesis §1.6) */
  m->threshold[1] = 128 * 1024; /* H_TCP of MPICH */
  m->segment = 8 * 1024;
  fs_shared_callbacks callbacks = {.owner = m,
                                   .cost = channel_cost,
                                   .post = post_model_event,
                                   .done = transfer_done};
  m->channels = fs_shared_resource_new(&callbacks);
  if (!m->channels) fs_error_set(err, "out of memory");
  if (!m->channels || read_parameters(m, params, err)) {
    taulop_destroy(m);
    return -1;
  }
  *out = (fs_network_model){.name = "taulop",
                            .state = m,
                            .start = taulop_start,
                            .send = taulop_send,
                            .event = taulop_event,
                            .reset = taulop_reset,
                            .destroy = taulop_destroy,
                            .reports = &taulop_reports};
  return 0;
}
