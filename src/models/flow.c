/* flow.c: the flow-level network model, SimGrid's CM02 (--model flow) and
 * LV08 (--model flow-lv08) with network/optim:Full, TCP-gamma 0 and no
 * cross-traffic (docs/MODELS.md, "flow and flow-lv08").
 *
 * A transfer (put: initiator to peer; get: peer to initiator, as SimGrid's
 * one-sided get is a transfer from the target; send: its message) runs from
 * the host of one rank to the host of the other along the network's route,
 * after o_send on the initiator's CPU:
 *   latency phase: D = L * latency_factor, L the route's latency; the flow
 *     slows nobody meanwhile;
 *   data phase: rate bandwidth_factor * x, x its max-min share (maxmin.h)
 *     with penalty P = L + weight_S * sum of 1/bw over the route (1 when
 *     L = 0) and weights = times a link occurs in the route (1 on FATPIPE).
 * Rates are recomputed when flows enter or leave their data phase, once for
 * all the model's events of one picosecond: dates are computed in doubles
 * as SimGrid does and posted rounded up to the next picosecond; the model
 * keeps the exact double date of the events it processes, so the rounding
 * never accumulates (each posted date is within 1 ps after the double one).
 *
 * Two-sided: eager (size <= eager_threshold): the data flows at once and
 * the message arrives when delivered; rendezvous: the message (its
 * envelope) reaches the receiver after o_send, and the data flows from the
 * match on (both sides posted, as SMPI); the send and recv complete when it
 * is delivered (engine: the model's `matched`). o_recv, when set, is the
 * receiver's CPU time to take a message. */
#include "models/flow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "models/maxmin.h"
#include "models/model_registry.h"
#include "models/platform_parameters.h"
#include "platform/simgrid_platform.h"

enum payload { WAKE = 0, SOLVE = 1 };
enum phase { LATENCY, DATA };

typedef struct transfer {
  double remaining, rate, t_last, date; /* bytes, bytes/s, s, s (next event) */
  fs_time due;                          /* date rounded up to the ps */
  int64_t seq;                          /* order among equal dues */
  int32_t task, var, heap_pos, next_free;
  uint8_t phase, arrival; /* arrival: a send's message (else remote completion) */
} transfer;

typedef struct flow_model {
  fs_flow_settings set;
  const char *name;
  fs_network *network;
  double *capacity; /* per link */
  uint8_t *fatpipe; /* per link */
  int32_t *last_flows;
  double *last_load; /* per link: what the observer was told */
  int32_t *host_of_rank;
  int32_t ranks_mapped, host_capacity;
  fs_maxmin *solver;
  transfer *transfers;
  int32_t transfer_count, transfer_capacity, free_transfer;
  int32_t *var_transfer, var_capacity;
  int32_t *heap, heap_count, heap_capacity;
  int64_t seq;
  int32_t route[FS_NETWORK_MAX_ROUTE];
  fs_time wake_at, solve_at, clock_ps;
  double clock_d;
  fs_flow_observer observer;
  int observing;
  int reset_done;
} flow_model;

void fs_flow_settings_default(fs_flow_settings *s, int lv08) {
  *s = (fs_flow_settings){.latency_factor = lv08 ? 13.01 : 1.0,
                          .bandwidth_factor = lv08 ? 0.97 : 1.0,
                          .weight_s = lv08 ? 20537.0 : 0.0,
                          .eager_threshold = 65536,
                          .mapping = FS_MAPPING_SEQUENTIAL};
}

/* ---- dates ---- */

/* A double date (s) as the next picosecond at or after it, and not before
 * `now`. */
static fs_time to_ps(double date, fs_time now) {
  double ps = ceil(date * 1e12);
  if (!(ps < 9.2e18)) return FS_TIME_MAX;
  fs_time t = (fs_time)ps;
  return t < now ? now : t;
}

/* The double clock at engine time now: the exact date of the events
 * processed at this picosecond, else now itself. */
static double clock_at(const flow_model *m, fs_time now) {
  return now == m->clock_ps ? m->clock_d : (double)now * 1e-12;
}

/* ---- the transfers' own event heap, by (due, seq) ---- */

static int earlier(const flow_model *m, int32_t a, int32_t b) {
  const transfer *x = &m->transfers[a], *y = &m->transfers[b];
  return x->due < y->due || (x->due == y->due && x->seq < y->seq);
}

static void heap_set(flow_model *m, int32_t pos, int32_t t) {
  m->heap[pos] = t;
  m->transfers[t].heap_pos = pos;
}

static void sift_up(flow_model *m, int32_t pos) {
  int32_t t = m->heap[pos];
  while (pos > 0 && earlier(m, t, m->heap[(pos - 1) / 2])) {
    heap_set(m, pos, m->heap[(pos - 1) / 2]);
    pos = (pos - 1) / 2;
  }
  heap_set(m, pos, t);
}

static void sift_down(flow_model *m, int32_t pos) {
  int32_t t = m->heap[pos];
  for (;;) {
    int32_t c = 2 * pos + 1;
    if (c >= m->heap_count) break;
    if (c + 1 < m->heap_count && earlier(m, m->heap[c + 1], m->heap[c])) c++;
    if (!earlier(m, m->heap[c], t)) break;
    heap_set(m, pos, m->heap[c]);
    pos = c;
  }
  heap_set(m, pos, t);
}

static void heap_remove(flow_model *m, int32_t t) {
  int32_t pos = m->transfers[t].heap_pos;
  if (pos < 0) return;
  m->transfers[t].heap_pos = -1;
  int32_t last = m->heap[--m->heap_count];
  if (pos == m->heap_count) return;
  heap_set(m, pos, last);
  sift_up(m, pos);
  sift_down(m, m->transfers[last].heap_pos);
}

/* Puts t in the heap at its due (room: heap_capacity >= transfers). */
static void schedule(flow_model *m, int32_t t) {
  transfer *x = &m->transfers[t];
  x->seq = m->seq++;
  if (x->heap_pos < 0) {
    heap_set(m, m->heap_count++, t);
    sift_up(m, m->heap_count - 1);
  } else {
    sift_up(m, x->heap_pos);
    sift_down(m, x->heap_pos);
  }
}

/* One engine event for the earliest due (older wakes that find nothing due
 * are harmless). */
static void ensure_wake(flow_model *m, fs_engine *e) {
  if (!m->heap_count) return;
  fs_time due = m->transfers[m->heap[0]].due;
  if (due < m->wake_at) {
    m->wake_at = due;
    fs_engine_post_model_event(e, due, WAKE);
  }
}

static void request_solve(flow_model *m, fs_engine *e, fs_time now) {
  if (m->solve_at == now) return;
  m->solve_at = now;
  fs_engine_post_model_event(e, now, SOLVE);
}

/* ---- transfers ---- */

static int32_t new_transfer(flow_model *m) {
  if (m->free_transfer >= 0) {
    int32_t t = m->free_transfer;
    m->free_transfer = m->transfers[t].next_free;
    return t;
  }
  if (fs_grow(&m->transfers, &m->transfer_capacity, (int64_t)m->transfer_count + 1,
              sizeof(transfer), 256) ||
      fs_grow(&m->heap, &m->heap_capacity, (int64_t)m->transfer_count + 1, sizeof(int32_t), 256))
    return -1;
  return m->transfer_count++;
}

static void observe_transfer(flow_model *m, int32_t task, double rate, fs_time t) {
  if (m->observing && m->observer.transfer) m->observer.transfer(m->observer.state, task, rate, t);
}

/* The data is delivered at now: the engine learns it, the transfer is freed. */
static void finish(flow_model *m, fs_engine *e, int32_t t, fs_time now) {
  transfer *x = &m->transfers[t];
  if (x->arrival)
    fs_engine_post_arrival(e, x->task, now);
  else
    fs_engine_post_remote(e, x->task, now);
  if (x->phase == DATA) observe_transfer(m, x->task, 0, now);
  heap_remove(m, t);
  fs_maxmin_remove(m->solver, x->var);
  x->next_free = m->free_transfer;
  m->free_transfer = t;
}

/* Enters the data phase at now (double clock now_d). */
static void enter_data(flow_model *m, fs_engine *e, int32_t t, fs_time now, double now_d) {
  transfer *x = &m->transfers[t];
  if (x->remaining <= 0) { /* 0 bytes: done when the latency ends */
    finish(m, e, t, now);
    return;
  }
  heap_remove(m, t);
  x->phase = DATA, x->t_last = now_d, x->rate = 0;
  fs_maxmin_enable(m->solver, x->var);
}

/* A transfer of `bytes` from rank `from` to rank `to` whose latency starts
 * at t0 (t0_d in doubles; >= now). */
static void begin(flow_model *m, fs_engine *e, int32_t task, int32_t from, int32_t to,
                  int64_t bytes, int arrival, fs_time now, fs_time t0, double t0_d) {
  fs_error err;
  int32_t count = 0;
  double latency = 0;
  if (from < 0 || to < 0 || from >= m->ranks_mapped || to >= m->ranks_mapped) {
    fs_engine_fail(e, "flow: a transfer names a rank outside the program");
    return;
  }
  if (fs_network_route(m->network, m->host_of_rank[from], m->host_of_rank[to], m->route,
                       FS_NETWORK_MAX_ROUTE, &count, &latency, &err)) {
    fs_engine_fail(e, err.message);
    return;
  }
  double penalty = latency;
  for (int32_t i = 0; i < count; i++) penalty += m->set.weight_s / m->capacity[m->route[i]];
  if (latency <= 0) penalty = 1.0; /* SimGrid: a flow without latency has penalty 1 */
  int32_t t = new_transfer(m);
  int32_t var = t < 0 ? -1 : fs_maxmin_add(m->solver, m->route, count, penalty, 0);
  if (var >= 0 &&
      fs_grow(&m->var_transfer, &m->var_capacity, (int64_t)var + 1, sizeof(int32_t), 256))
    fs_maxmin_remove(m->solver, var), var = -1;
  if (var < 0) {
    if (t >= 0) m->transfers[t].next_free = m->free_transfer, m->free_transfer = t;
    fs_engine_fail(e, "out of memory for the flows of the flow model");
    return;
  }
  m->var_transfer[var] = t;
  transfer *x = &m->transfers[t];
  *x = (transfer){.remaining = (double)bytes,
                  .date = t0_d + latency * m->set.latency_factor,
                  .task = task,
                  .var = var,
                  .heap_pos = -1,
                  .phase = LATENCY,
                  .arrival = (uint8_t)arrival};
  x->due = to_ps(x->date, t0);
  if (x->due == now) { /* no latency, no overhead: into the data phase now */
    enter_data(m, e, t, now, t0_d);
    if (fs_maxmin_dirty(m->solver)) request_solve(m, e, now);
    return;
  }
  schedule(m, t);
  ensure_wake(m, e);
}

/* ---- solving ---- */

static void observe_links(flow_model *m, fs_time now) {
  int32_t count;
  const int32_t *links = fs_maxmin_solved_links(m->solver, &count);
  for (int32_t i = 0; i < count; i++) {
    int32_t l = links[i], flows;
    double load;
    fs_maxmin_link_load(m->solver, l, &flows, &load);
    load *= m->set.bandwidth_factor;
    if (flows == m->last_flows[l] && load == m->last_load[l]) continue;
    m->last_flows[l] = flows, m->last_load[l] = load;
    m->observer.link(m->observer.state, l, flows, load, now);
  }
}

/* Re-solves the changed components and moves each flow whose rate changed:
 * its bytes so far at the old rate, its end at the new one. */
static void solve(flow_model *m, fs_time now, double now_d) {
  if (!fs_maxmin_dirty(m->solver)) return;
  fs_maxmin_solve(m->solver);
  int32_t count;
  const int32_t *vars = fs_maxmin_solved(m->solver, &count);
  for (int32_t i = 0; i < count; i++) {
    int32_t t = m->var_transfer[vars[i]];
    transfer *x = &m->transfers[t];
    double rate = m->set.bandwidth_factor * fs_maxmin_value(m->solver, vars[i]);
    if (rate == x->rate) continue;
    x->remaining -= x->rate * (now_d - x->t_last);
    if (x->remaining < 1e-14) x->remaining = 0; /* SimGrid's byte precision */
    x->t_last = now_d, x->rate = rate;
    if (rate > 0) {
      x->date = now_d + x->remaining / rate;
      x->due = to_ps(x->date, now);
      schedule(m, t);
    } else {
      heap_remove(m, t);
    }
    observe_transfer(m, x->task, rate, now);
  }
  if (m->observing && m->observer.link) observe_links(m, now);
}

static void on_wake(flow_model *m, fs_engine *e, fs_time now) {
  if (now == m->wake_at) m->wake_at = FS_TIME_MAX;
  if (!m->heap_count || m->transfers[m->heap[0]].due > now) {
    ensure_wake(m, e);
    return;
  }
  double now_d = m->transfers[m->heap[0]].date;
  if (now == m->clock_ps && m->clock_d > now_d) now_d = m->clock_d;
  m->clock_ps = now, m->clock_d = now_d;
  while (m->heap_count && m->transfers[m->heap[0]].due <= now) {
    int32_t t = m->heap[0];
    if (m->transfers[t].phase == LATENCY)
      enter_data(m, e, t, now, now_d);
    else
      finish(m, e, t, now);
  }
  solve(m, now, now_d);
  ensure_wake(m, e);
}

static void flow_event(void *state, fs_engine *e, uint32_t payload, fs_time now) {
  flow_model *m = state;
  if (payload == WAKE) {
    on_wake(m, e, now);
    return;
  }
  m->solve_at = -1;
  solve(m, now, clock_at(m, now));
  ensure_wake(m, e);
}

/* ---- the engine's callbacks ---- */

/* The CPU part (o_send) and the transfer after it. */
static void begin_after_overhead(flow_model *m, fs_engine *e, int32_t task, int32_t from,
                                 int32_t to, int arrival, fs_time now) {
  fs_time t0 = fs_time_add(now, m->set.o_send);
  double t0_d = clock_at(m, now) + (double)m->set.o_send * 1e-12;
  begin(m, e, task, from, to, fs_engine_program(e)->value[task], arrival, now, t0, t0_d);
}

static void flow_start(void *state, fs_engine *e, int32_t task, fs_time now) {
  flow_model *m = state;
  const fs_program *p = fs_engine_program(e);
  int get = fs_task_kind_of(p, task) == FS_GET;
  fs_engine_post_local(e, task, fs_time_add(now, m->set.o_send));
  begin_after_overhead(m, e, task, get ? fs_task_peer(p, task) : fs_task_rank(p, task),
                       get ? fs_task_rank(p, task) : fs_task_peer(p, task), 0, now);
}

static int flow_send(void *state, fs_engine *e, int32_t task, fs_time now) {
  flow_model *m = state;
  const fs_program *p = fs_engine_program(e);
  fs_time t0 = fs_time_add(now, m->set.o_send);
  fs_engine_post_local(e, task, t0);
  if (fs_task_value(p, task) > m->set.eager_threshold) {
    fs_engine_post_arrival(e, task, t0); /* the envelope; the data waits for the match */
    return 1;
  }
  begin_after_overhead(m, e, task, fs_task_rank(p, task), fs_task_peer(p, task), 1, now);
  return 0;
}

static void flow_matched(void *state, fs_engine *e, int32_t task, fs_time now) {
  flow_model *m = state;
  const fs_program *p = fs_engine_program(e);
  begin(m, e, task, fs_task_rank(p, task), fs_task_peer(p, task), fs_task_value(p, task), 0, now,
        now, clock_at(m, now));
}

static fs_time flow_receive(void *state, fs_engine *e, int32_t task, fs_time now) {
  (void)e, (void)task, (void)now;
  return ((flow_model *)state)->set.o_recv;
}

static double link_name(const void *state, int32_t link, char *buffer, size_t size) {
  const flow_model *m = state;
  snprintf(buffer, size, "%s", fs_network_link_name(m->network, link));
  return m->capacity[link];
}

static int flow_reset(void *state, const fs_program *p, fs_error *err) {
  flow_model *m = state;
  if (fs_grow(&m->host_of_rank, &m->host_capacity, p->ranks, sizeof(int32_t), 256))
    return fs_error_set(err, "out of memory");
  m->ranks_mapped = p->ranks;
  if (fs_network_map(m->network, m->set.mapping, p->ranks, m->host_of_rank, err)) return -1;
  int32_t links = fs_network_links(m->network);
  if (fs_maxmin_reset(m->solver, links, m->capacity, m->fatpipe, err)) return -1;
  for (int32_t l = 0; l < links; l++) m->last_flows[l] = 0, m->last_load[l] = 0;
  m->transfer_count = 0, m->free_transfer = -1, m->heap_count = 0, m->seq = 0;
  m->wake_at = FS_TIME_MAX, m->solve_at = -1, m->clock_ps = 0, m->clock_d = 0;
  m->reset_done = 1;
  if (m->observing && m->observer.reset) m->observer.reset(m->observer.state, links, m, link_name);
  return 0;
}

/* ---- reports ---- */

/* Alone on its route, after o_send: the delay (and o_recv for a message
 * that takes one) and size / (bandwidth_factor * the route's narrowest
 * bandwidth per use: bw / weight). */
static int flow_price(void *state, const fs_program *p, int32_t task, fs_time *latency,
                      fs_time *per_size) {
  flow_model *m = state;
  if (!m->reset_done) return -1;
  int get = fs_task_kind_of(p, task) == FS_GET;
  int32_t from = get ? fs_task_peer(p, task) : fs_task_rank(p, task),
          to = get ? fs_task_rank(p, task) : fs_task_peer(p, task);
  if (from < 0 || to < 0 || from >= m->ranks_mapped || to >= m->ranks_mapped) return -1;
  int32_t count = 0;
  double l = 0;
  fs_error err;
  if (fs_network_route(m->network, m->host_of_rank[from], m->host_of_rank[to], m->route,
                       FS_NETWORK_MAX_ROUTE, &count, &l, &err))
    return -1;
  double narrowest = INFINITY;
  for (int32_t i = 0; i < count; i++) {
    int32_t uses = 0;
    for (int32_t j = 0; j < count; j++) uses += m->route[j] == m->route[i];
    double share = m->capacity[m->route[i]] / (m->fatpipe[m->route[i]] ? 1 : uses);
    if (share < narrowest) narrowest = share;
  }
  fs_time fixed = to_ps(l * m->set.latency_factor, 0);
  if (fs_task_kind_of(p, task) == FS_SEND && m->set.o_recv > 0)
    fixed = fs_time_add(fixed, m->set.o_recv);
  double data = count ? (double)fs_task_value(p, task) / (m->set.bandwidth_factor * narrowest) : 0;
  *latency = fixed;
  *per_size = to_ps(data, 0);
  return 0;
}

static void flow_describe(const void *state, char *buffer, size_t size) {
  const flow_model *m = state;
  char os[32], orc[32];
  snprintf(buffer, size,
           "\"latency_factor\": %.17g, \"bandwidth_factor\": %.17g, \"weight_S\": %.17g, "
           "\"o_send_ns\": %s, \"o_recv_ns\": %s, \"eager_threshold_bytes\": %lld, "
           "\"hosts\": %d, \"links\": %d, \"mapping\": \"%s\"",
           m->set.latency_factor, m->set.bandwidth_factor, m->set.weight_s,
           fs_format_ns(os, m->set.o_send), fs_format_ns(orc, m->set.o_recv),
           (long long)m->set.eager_threshold, fs_network_hosts(m->network),
           fs_network_links(m->network), fs_mapping_name(m->set.mapping));
}

static void flow_set_flow_observer(void *state, const fs_flow_observer *observer) {
  flow_model *m = state;
  m->observing = observer != NULL;
  if (observer) m->observer = *observer;
}

static void flow_destroy(void *state) {
  flow_model *m = state;
  if (!m) return;
  fs_network_free(m->network);
  fs_maxmin_free(m->solver);
  free(m->capacity), free(m->fatpipe), free(m->last_flows), free(m->last_load);
  free(m->host_of_rank), free(m->transfers), free(m->var_transfer), free(m->heap);
  free(m);
}

static const fs_model_reports flow_reports = {.describe = flow_describe,
                                              .price = flow_price,
                                              .set_flow_observer = flow_set_flow_observer};

int fs_flow_create_on(fs_network *network, const fs_flow_settings *settings, const char *name,
                      fs_network_model *out, fs_error *err) {
  flow_model *m = calloc(1, sizeof *m);
  if (!m) {
    fs_network_free(network);
    return fs_error_set(err, "out of memory");
  }
  m->network = network, m->set = *settings, m->name = name;
  int32_t links = fs_network_links(network);
  m->capacity = malloc((size_t)links * sizeof *m->capacity);
  m->fatpipe = malloc((size_t)links);
  m->last_flows = calloc((size_t)links, sizeof *m->last_flows);
  m->last_load = calloc((size_t)links, sizeof *m->last_load);
  m->solver = fs_maxmin_new();
  if (!m->capacity || !m->fatpipe || !m->last_flows || !m->last_load || !m->solver) {
    flow_destroy(m);
    return fs_error_set(err, "out of memory");
  }
  for (int32_t l = 0; l < links; l++) {
    m->capacity[l] = fs_network_link_bandwidth(network, l);
    m->fatpipe[l] = fs_network_link_policy(network, l) == FS_LINK_FATPIPE;
  }
  *out = (fs_network_model){.name = name,
                            .state = m,
                            .start = flow_start,
                            .send = flow_send,
                            .receive = settings->o_recv > 0 ? flow_receive : NULL,
                            .event = flow_event,
                            .reset = flow_reset,
                            .matched = flow_matched,
                            .destroy = flow_destroy,
                            .reports = &flow_reports};
  return 0;
}

/* ---- from --param ---- */

/* The SimGrid platform file (platform/simgrid_platform.h). */
static fs_network *read_network(const char *path, fs_error *err) {
  return fs_simgrid_platform_read(path, err);
}

static int read_double(fs_parameters *params, const char *key, double min, double *out,
                       fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (!p) return 0;
  char *end;
  double v = strtod(p->value, &end);
  if (end == p->value || *end || !isfinite(v) || v < min || (min > 0 && v == 0) ||
      (min == 0 && v < 0))
    return fs_error_set(err, "--param %s=%s: expected a number %s", key, p->value,
                        min > 0 ? "> 0" : ">= 0");
  *out = v;
  return 0;
}

static int create(fs_parameters *params, int lv08, fs_network_model *out, fs_error *err) {
  fs_flow_settings s;
  fs_flow_settings_default(&s, lv08);
  fs_platform_parameters where;
  memset(&where, 0, sizeof where);
  fs_parameter *threshold = fs_parameter_take(params, "eager_threshold");
  if (threshold && fs_parse_size(threshold->value, strlen(threshold->value), &s.eager_threshold))
    return fs_error_set(err, "--param eager_threshold=%s: expected a size such as 64KiB",
                        threshold->value);
  if (read_double(params, "latency_factor", 0, &s.latency_factor, err) ||
      read_double(params, "bandwidth_factor", 1e-300, &s.bandwidth_factor, err) ||
      read_double(params, "weight_S", 0, &s.weight_s, err) ||
      fs_parameter_time(params, "o_send", 0, &s.o_send, err) ||
      fs_parameter_time(params, "o_recv", 0, &s.o_recv, err) ||
      fs_platform_parameters_read(params, &where, err))
    return -1;
  if (!where.file[0])
    return fs_error_set(err,
                        "model %s needs a routed network: --platform FILE (a SimGrid "
                        "platform)",
                        lv08 ? "flow-lv08" : "flow");
  if (where.mapping[0]) {
    s.mapping = fs_mapping_from_name(where.mapping, strlen(where.mapping));
    if (s.mapping != FS_MAPPING_SEQUENTIAL && s.mapping != FS_MAPPING_ROUND_ROBIN)
      return fs_error_set(err, "--mapping %s: the flow model maps ranks seq or rr", where.mapping);
  }
  fs_network *network = read_network(where.file, err);
  if (!network) return -1;
  return fs_flow_create_on(network, &s, lv08 ? "flow-lv08" : "flow", out, err);
}

int fs_flow_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  return create(params, 0, out, err);
}

int fs_flow_lv08_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  return create(params, 1, out, err);
}
