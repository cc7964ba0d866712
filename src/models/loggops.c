/* loggops.c: the LogGOPS model of LogGOPSim (Hoefler, Schneider, Lumsdaine,
 * HPDC'10), with its exact timing rules, ns and bytes:
 *  send of s bytes at t (needs its CPU and its NIC's send gap free):
 *    CPU busy to t + o + (s-1)O, NIC send gap to t + g + (s-1)G,
 *    message at the receiver at t + o + L;
 *    eager (s <= S): the send completes when its CPU is free;
 *    rendezvous (s > S): when the message is matched at the receiver.
 *  receipt at t (needs the receiver's CPU and NIC receive gap free):
 *    CPU busy to t + o + max((s-1)O, (s-1)G), NIC to t + g + (s-1)G.
 * Where LogGOPSim is wrong this does the documented right thing: a 0-byte
 * message costs no (s-1)G (LogGOPSim wraps it to -G).
 * One-sided operations: a put is a send whose data lands without the
 * target's CPU: local t + o + (s-1)O, remote t + o + L + (s-1)G, same NIC
 * gap; a get is a request (o + L) and the data back (L + (s-1)G):
 * local t + o, remote t + o + 2L + (s-1)G, NIC gap g. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "models/model_registry.h"

typedef struct loggops {
  fs_time L, o, g;
  fs_per_byte G, O;
  int64_t S;
  fs_time *send_gap, *receive_gap; /* per rank and NIC: when the NIC is free */
  int64_t nic_slots;
  int32_t nics;
  const fs_program *program; /* the run's (reset): read on every message */
  /* The costs of the last size priced: a collective sends one size again
   * and again, and fs_time_for_bytes divides. The sums are the ones the
   * send and the receipt add to now (saturated as they were, units.h). */
  int64_t cached_size;
  fs_time cached_gap, cached_cpu, cached_hold; /* g + (s-1)G, o + (s-1)O, o + max */
  fs_time cached_flight;                       /* o + L (any size) */
} loggops;

/* (s-1)*per_byte, with no negative cost for empty messages */
static fs_time per_extra_byte(int64_t size, fs_per_byte per_byte) {
  return size > 1 ? fs_time_for_bytes(size - 1, per_byte) : 0;
}

/* Prices a message of `size` bytes into the cache (above), unless it is
 * the size priced last. */
static void message_costs(loggops *m, int64_t size) {
  if (size == m->cached_size) return;
  fs_time bytes_g = per_extra_byte(size, m->G), bytes_o = per_extra_byte(size, m->O);
  m->cached_gap = fs_time_add(m->g, bytes_g);
  m->cached_cpu = fs_time_add(m->o, bytes_o);
  m->cached_hold = fs_time_add(m->o, bytes_o > bytes_g ? bytes_o : bytes_g);
  m->cached_flight = fs_time_add(m->o, m->L);
  m->cached_size = size;
}

/* now + a + b, saturated (units.h). */
static fs_time after(fs_time now, fs_time a, fs_time b) {
  return fs_time_add(now, fs_time_add(a, b));
}

static FS_INLINE int64_t nic_slot(const loggops *m, const fs_program *p, int32_t rank,
                                  int32_t task) {
  return (int64_t)fs_program_slot(p, rank) * m->nics + fs_task_nic(p, task);
}

static int loggops_reset(void *state, const fs_program *p, fs_error *err) {
  loggops *m = state;
  int64_t slots = (int64_t)p->slots * p->nics; /* the ranks the tasks use (program.h) */
  if (slots > m->nic_slots) {
    free(m->send_gap);
    free(m->receive_gap);
    m->receive_gap = NULL;
    m->send_gap = fs_allocate(slots, sizeof *m->send_gap, "the NIC state", err);
    if (m->send_gap)
      m->receive_gap = fs_allocate(slots, sizeof *m->receive_gap, "the NIC state", err);
    m->nic_slots = m->send_gap && m->receive_gap ? slots : 0;
    if (!m->nic_slots) return -1;
  }
  m->nics = p->nics;
  m->program = p;
  for (int64_t i = 0; i < slots; i++) m->send_gap[i] = m->receive_gap[i] = 0;
  return 0;
}

static fs_time loggops_available(void *state, const fs_engine *engine, int32_t task, int receiving,
                                 fs_time now) {
  const loggops *m = state;
  const fs_program *p = m->program;
  (void)engine;
  fs_time free_at = receiving ? m->receive_gap[nic_slot(m, p, fs_task_peer(p, task), task)]
                              : m->send_gap[nic_slot(m, p, fs_task_rank(p, task), task)];
  return free_at > now ? free_at : now;
}

static int loggops_send(void *state, fs_engine *engine, int32_t task, fs_time now) {
  loggops *m = state;
  const fs_program *p = m->program;
  int64_t size = fs_task_value(p, task);
  message_costs(m, size);
  m->send_gap[nic_slot(m, p, fs_task_rank(p, task), task)] = fs_time_add(now, m->cached_gap);
  fs_engine_post_local(engine, task, fs_time_add(now, m->cached_cpu));
  fs_engine_post_arrival(engine, task, fs_time_add(now, m->cached_flight));
  return size > m->S;
}

static fs_time loggops_receive(void *state, fs_engine *engine, int32_t task, fs_time now) {
  loggops *m = state;
  const fs_program *p = m->program;
  (void)engine;
  message_costs(m, fs_task_value(p, task));
  m->receive_gap[nic_slot(m, p, fs_task_peer(p, task), task)] = fs_time_add(now, m->cached_gap);
  return m->cached_hold;
}

static void loggops_start(void *state, fs_engine *engine, int32_t task, fs_time now) {
  loggops *m = state;
  const fs_program *p = m->program;
  int64_t size = fs_task_value(p, task);
  fs_time *gap = &m->send_gap[nic_slot(m, p, fs_task_rank(p, task), task)];
  if (fs_task_kind_of(p, task) == FS_GET) {
    *gap = fs_time_add(now, m->g);
    fs_engine_post_local(engine, task, fs_time_add(now, m->o));
    fs_engine_post_remote(engine, task,
                          after(now, fs_time_add(m->o, fs_time_mul(m->L, 2)),
                                per_extra_byte(size, m->G)));
    return;
  }
  *gap = after(now, m->g, per_extra_byte(size, m->G));
  fs_engine_post_local(engine, task, after(now, m->o, per_extra_byte(size, m->O)));
  fs_engine_post_remote(engine, task,
                        after(now, fs_time_add(m->o, m->L), per_extra_byte(size, m->G)));
}

/* After the CPU's o: L (2L for a get) and (s-1)G; a send's message lands
 * after L, its (s-1)G is spent on the receiver's side. */
static int loggops_price(void *state, const fs_program *p, int32_t task, fs_time *latency,
                         fs_time *per_size) {
  const loggops *m = state;
  *latency = fs_task_kind_of(p, task) == FS_GET ? fs_time_mul(m->L, 2) : m->L;
  *per_size = fs_task_kind_of(p, task) == FS_SEND ? 0
                                                  : per_extra_byte(fs_task_value(p, task), m->G);
  return 0;
}

static void loggops_describe(const void *state, char *buffer, size_t size) {
  const loggops *m = state;
  char L[32], o[32], g[32], G[48], O[48];
  snprintf(buffer, size,
           "\"L_ns\": %s, \"o_ns\": %s, \"g_ns\": %s, \"G_ns_per_byte\": %s, "
           "\"O_ns_per_byte\": %s, \"S_bytes\": %lld",
           fs_format_ns(L, m->L), fs_format_ns(o, m->o), fs_format_ns(g, m->g),
           fs_format_ns_per_byte(G, m->G), fs_format_ns_per_byte(O, m->O), (long long)m->S);
}

static void loggops_destroy(void *state) {
  loggops *m = state;
  free(m->send_gap);
  free(m->receive_gap);
  free(m);
}

static const fs_model_reports loggops_reports = {.describe = loggops_describe,
                                                 .price = loggops_price};

int fs_loggops_create(fs_parameters *params, fs_network_model *out, fs_error *err) {
  /* LogGOPSim's defaults */
  loggops d = {.cached_size = -1, /* no size: the first message prices */
               .L = 2500 * FS_NS,
               .o = 1500 * FS_NS,
               .g = 1000 * FS_NS,
               .G = 6 * FS_NS * 1000000,
               .O = 0,
               .S = 65535};
  fs_parameter *threshold = fs_parameter_take(params, "S");
  if (fs_parameter_time(params, "L", 0, &d.L, err) ||
      fs_parameter_time(params, "o", 0, &d.o, err) ||
      fs_parameter_time(params, "g", 0, &d.g, err) ||
      fs_parameter_per_byte(params, "G", &d.G, err) ||
      fs_parameter_per_byte(params, "O", &d.O, err))
    return -1;
  if (threshold && fs_parse_size(threshold->value, strlen(threshold->value), &d.S))
    return fs_error_set(err,
                        "--param S=%s: expected a size in bytes up to %s (the rendezvous "
                        "threshold)",
                        threshold->value, FS_SIZE_LIMIT_TEXT);
  loggops *m = malloc(sizeof *m);
  if (!m) return fs_error_set(err, "out of memory");
  *m = d;
  *out = (fs_network_model){.name = "loggops",
                            .state = m,
                            .start = loggops_start,
                            .send = loggops_send,
                            .receive = loggops_receive,
                            .available = loggops_available,
                            .reset = loggops_reset,
                            .destroy = loggops_destroy,
                            .reports = &loggops_reports};
  return 0;
}
