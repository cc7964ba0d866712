/* program.h: a schedule as a DAG of tasks, stored as a structure of arrays.
 *
 * Task ids are int32 in creation order ("program position"). The fields of a
 * task live in parallel arrays; dependencies are kept while building as a
 * list of (from, to) pairs and turned into a successor array (CSR) by
 * fs_program_finalize. Memory, per task: kind 1 + flags 1 + rank 4 + peer 4
 * + value 8 + need 4 + successor offset 4 = 26 bytes, plus 4 per dependency
 * (the successor entry), plus 4 when labels are used, 4 with tags, 8 with strides, 1 each
 * with cpu and nic indices and NCCL protocols, and 8 plus the name bytes when names other than
 * the generated "t<id>" are kept (see fs_task_set_name).
 * While building, 8 more bytes per dependency. Limits: 2^30-1 tasks and
 * 2^32-1 dependencies.
 *
 * Per-rank state of a run (the engine's, the models') is kept per slot:
 * slot r is rank r, unless the ranks far outnumber the tasks (more than
 * 4 x tasks + 4096): then only the ranks a task runs on or names as its
 * peer get a slot, in ascending rank order (16 to 24 bytes per used rank
 * for the map), so `ranks 2147483647` with one task costs what the task
 * does. A program is read-only once finalized: several simulations
 * may share it.
 *
 * A rank-symmetric program (core/symmetric.h) holds one template per rank
 * instead of the per-task arrays, which stay NULL: code that runs programs
 * (the engine, the models, the noise) reads every task field through the
 * accessors below (fs_task_kind_of, fs_task_rank, ..., fs_task_successors);
 * code that lists or writes tasks takes explicit programs only, and
 * fs_program_materialize makes one. */
#ifndef FS_PROGRAM_H
#define FS_PROGRAM_H

#include <stdint.h>

#include "core/error.h"
#include "core/index_map.h"
#include "core/symmetric.h"
#include "core/units.h"

typedef enum fs_task_kind {
  FS_START = 0, /* entry point; completes at ready + skew; no CPU */
  FS_PROXY,     /* zero-time join/fan-out; no CPU */
  FS_SLEEP,     /* occupies the CPU for time */
  FS_COMPUTE,   /* occupies the CPU for time, or what the compute model says */
  FS_PUT,       /* one-sided transfer of size bytes to peer */
  FS_GET,       /* one-sided fetch of size bytes from peer */
  FS_SEND,      /* two-sided: size bytes to peer with tag, matched MPI-style */
  FS_RECV,      /* two-sided: size bytes from peer (-1: any) with tag (-1: any) */
  FS_TASK_KINDS
} fs_task_kind;

/* The NCCL protocol a transfer uses (docs/MODELS.md, "nccl"): how the
 * `nccl` model prices it. NONE: the model's default. */
typedef enum fs_protocol {
  FS_PROTOCOL_NONE = 0,
  FS_PROTOCOL_LL,
  FS_PROTOCOL_LL128,
  FS_PROTOCOL_SIMPLE,
  FS_PROTOCOLS
} fs_protocol;

enum fs_task_flag {
  FS_CONCURRENT = 1 << 0, /* does not take the rank's CPU (on a platform: a core of its node) */
  FS_BLOCKING = 1 << 1,   /* put/get: the CPU is held until remote completion */
  FS_HAS_TIME = 1 << 2,   /* value is a time (sleep, compute time=, start skew=) */
  FS_HAS_SIZE = 1 << 3,   /* value is a size in bytes (put, get, compute size=) */
  FS_HAS_ANY = 1 << 4,    /* need was set by any=K rather than the dependency count */
};

/* What a dependency waits for: the task's (remote) completion, its local
 * completion (":local"), or its start (":start", GOAL's irequires). */
enum fs_dependency_point { FS_AFTER_END = 0, FS_AFTER_LOCAL = 1, FS_AFTER_START = 2 };

/* A successor entry: the dependent task id, with one of these bits when the
 * dependency is on the local completion or on the start. */
#define FS_EDGE_LOCAL 0x80000000u
#define FS_EDGE_START 0x40000000u
#define FS_EDGE_TASK(e) ((int32_t)((e)&0x3fffffffu))
#define FS_MAX_TASKS 0x3fffffff
#define FS_MAX_DEPENDENCIES 0xffffffffLL /* successor offsets are 32-bit */
#define FS_ANY_SOURCE (-1)
#define FS_ANY_TAG (-1)

typedef struct fs_program {
  int32_t ranks;
  int32_t tasks;
  int32_t capacity;
  int finalized;
  /* per task */
  uint8_t *kind;
  uint8_t *flags;
  int32_t *rank;
  int32_t *peer;        /* put: to=, get: from=, else -1 */
  int64_t *value;       /* time (ps) or size (bytes), see FS_HAS_TIME/FS_HAS_SIZE */
  int32_t *need;        /* completions that make the task ready: any=K or in-degree */
  int32_t *label;       /* index into labels, -1 for none; NULL when no task has one */
  int32_t *tag;         /* send/recv tag (FS_ANY_TAG: any); NULL when no task has one (0) */
  int64_t *stride;      /* put/get/send/recv data layout: 0 contiguous, else a vector with this
                     * stride in bytes; NULL when no task has one (0) */
  uint8_t *cpu;         /* CPU of the rank the task runs on; NULL when all use CPU 0 */
  uint8_t *nic;         /* NIC of a send/recv; NULL when all use NIC 0 */
  uint8_t *protocol;    /* NCCL protocol of a transfer (fs_protocol); NULL when no task has one */
  int32_t cpus, nics;   /* per rank: 1 + the largest cpu and nic index (after finalize) */
  int32_t slots;        /* per-rank state of a run has this many slots (after finalize) */
  int32_t *slot_rank;   /* slot -> rank, ascending; NULL when slot r is rank r */
  fs_index_map slot_of; /* rank -> slot when slot_rank is set */
  int64_t *name_at;     /* offset into names, -1 for the generated name "t<id>"; NULL when every
                     * task has its generated name */
  int named;            /* a name was set (a file's tasks): outputs that show given names do */
  int names_implied;    /* every task t is named "rR.lK" (GOAL's generated labels): R its rank, K
                         * its place among its rank's tasks from 1 (a rank's tasks contiguous,
                         * ranks ascending, or interleaved); nothing stored, name_at NULL */
  int32_t interleaved;  /* 0, or W: every rank has W tasks, numbered position by position (rank
                         * r's j-th task is task j x ranks + r: fs_program_interleave) */
  int degrees_counted;  /* need holds every task's in-degree already (a reader that knew them, with
                         * fs_program_set_successors): finalize does not count them again */
  /* successors (valid after finalize): successor[successor_at[i] ..
   * successor_at[i+1]): start edges, then local-completion edges, then
   * completion edges, each group in the order added */
  uint32_t *successor_at;
  uint32_t *successor;
  int64_t dependencies;
  int64_t start_dependencies; /* how many are on a start (none: the engine skips the check) */
  /* while building */
  uint32_t *pending; /* pairs: from, to|FS_EDGE_LOCAL */
  int64_t pending_capacity;
  /* interned labels and the name pool */
  char **labels;
  int32_t label_count, label_capacity;
  char *names;
  int64_t names_used, names_capacity;
  fs_symmetric *symmetric; /* a rank-symmetric program's template; NULL: explicit */
} fs_program;

fs_program *fs_program_new(int32_t ranks);
void fs_program_free(fs_program *p);
/* Optional: room for this many tasks and dependencies (avoids regrowth). */
int fs_program_reserve(fs_program *p, int64_t tasks, int64_t dependencies);

/* Adds a task and returns its id, or -1 when out of memory or ids. */
int32_t fs_program_add(fs_program *p, fs_task_kind kind, int32_t rank);
/* task depends on `on` reaching `point` (an fs_dependency_point; 0 is its
 * completion). Any two tasks may be linked; a cycle is reported by the
 * engine as a deadlock. */
int fs_program_depend(fs_program *p, int32_t task, int32_t on, int point);
/* Field setters (builders call them right after fs_program_add). */
static inline void fs_task_set_peer(fs_program *p, int32_t t, int32_t peer) { p->peer[t] = peer; }
static inline void fs_task_set_size(fs_program *p, int32_t t, int64_t size) {
  p->value[t] = size;
  p->flags[t] = (uint8_t)((p->flags[t] & ~FS_HAS_TIME) | FS_HAS_SIZE);
}
static inline void fs_task_set_time(fs_program *p, int32_t t, fs_time time) {
  p->value[t] = time;
  p->flags[t] = (uint8_t)((p->flags[t] & ~FS_HAS_SIZE) | FS_HAS_TIME);
}
static inline void fs_task_set_flag(fs_program *p, int32_t t, int flag) {
  p->flags[t] = (uint8_t)(p->flags[t] | flag);
}
static inline void fs_task_set_any(fs_program *p, int32_t t, int32_t any) {
  p->need[t] = any;
  p->flags[t] = (uint8_t)(p->flags[t] | FS_HAS_ANY);
}
/* Two-sided fields and resources (allocated on first use). */
int fs_task_set_tag(fs_program *p, int32_t t, int32_t tag);
/* The data layout of a transfer: 0 contiguous, else the stride in bytes
 * (-1 when negative or out of memory). */
int fs_task_set_stride(fs_program *p, int32_t t, int64_t stride);
int fs_task_set_cpu(fs_program *p, int32_t t, int cpu);           /* 0..255 */
int fs_task_set_nic(fs_program *p, int32_t t, int nic);           /* 0..255 */
int fs_task_set_protocol(fs_program *p, int32_t t, int protocol); /* an fs_protocol */
/* Interns text and returns its label index (or -1 when out of memory).
 * Searches the labels so far: for the few labels of a generator. */
int32_t fs_program_intern_label(fs_program *p, const char *text, int64_t length);
/* Appends a new label without searching (a reader that keeps its own index
 * of label texts); returns its index or -1. */
int32_t fs_program_add_label(fs_program *p, const char *text, int64_t length);
int fs_task_set_label(fs_program *p, int32_t t, int32_t label);
/* Keeps a name for the task (file readers); without names, task i is "t<i>".
 * A name equal to the task's generated one ("t<i>", as the writer writes
 * unnamed programs) is not stored: it costs no memory, and fs_task_name
 * gives it back byte for byte. Other names cost 8 bytes plus their text. */
int fs_task_set_name(fs_program *p, int32_t t, const char *name, int64_t length);
/* The id i when text is a generated name "t<i>" (i in canonical decimal,
 * 0 to INT32_MAX), else -1. Readers resolve such names without an index:
 * name "t<i>" is task i when fs_task_name_stored(p, i) is 0. */
int32_t fs_task_generated_id(const char *text, int64_t length);
/* 1 when the task's name is kept as text (it is not its generated name). */
static inline int fs_task_name_stored(const fs_program *p, int32_t t) {
  return (p->name_at && p->name_at[t] >= 0) || p->names_implied;
}
/* 1 when the task's name is text[0..length): through the accessors, so
 * that callers (the readers' name indexes) need not know the storage. */
int fs_task_name_equals(const fs_program *p, int32_t t, const char *text, int64_t length);

/* Hands over a successor array built by a reader whose dependencies arrive
 * grouped by task (GOAL's rank blocks), in place of fs_program_depend:
 * successor_at[0..tasks+1] and successor[0..dependencies) as finalize would
 * build them (malloc'd; the program owns them, also on failure). Only on a
 * program without fs_program_depend calls; -1 otherwise. */
int fs_program_set_successors(fs_program *p, uint32_t *successor_at, uint32_t *successor,
                              int64_t dependencies, int64_t start_dependencies);
/* A rank-symmetric program (core/symmetric.h) of `blocks` blocks of
 * `width` tasks per rank; NULL when out of memory or past the limits. */
fs_program *fs_program_new_symmetric(int32_t ranks, int32_t width, int32_t blocks);
/* Template task k, to fill in (kind, flags, value, peer_rule and peer, tag,
 * label, cpu, nic); it starts as a start task with no peer. */
fs_template_task *fs_template_at(fs_program *p, int32_t k);
/* Template task k of rank r depends on template task `on` of rank
 * rule(r) (an fs_rank_rule with its c) reaching `point`. */
int fs_template_depend(fs_program *p, int32_t k, int32_t on, int rule, int32_t c, int point);
/* An explicit, finalized copy of a rank-symmetric program: the same ids,
 * fields, labels and successor order (NULL with err set). */
fs_program *fs_program_materialize(const fs_program *p, fs_error *err);

/* Builds the successor array; checks ranks, peers and any=. */
int fs_program_finalize(fs_program *p, fs_error *err);
/* Its part for a rank-symmetric program (program_symmetric.c). */
int fs_symmetric_finalize(fs_program *p, fs_error *err);

/* ---- reading a task: explicit and rank-symmetric programs alike ---- */

/* Writes the successor entries of task t of a rank-symmetric program into
 * buffer; returns their count (fs_task_successors reads any program). */
int32_t fs_symmetric_successors(const fs_symmetric *s, int32_t t,
                                uint32_t buffer[FS_TEMPLATE_MAX_EDGES]);

/* The template task of task t of a rank-symmetric program. */
static inline const fs_template_task *fs_template_of(const fs_program *p, int32_t t) {
  int32_t rank;
  return fs_symmetric_split(p->symmetric, t, &rank);
}
/* Task t's fields in a rank-symmetric program, out of line. */
int fs_symmetric_kind(const fs_program *p, int32_t t);
int fs_symmetric_flags(const fs_program *p, int32_t t);
int32_t fs_symmetric_rank(const fs_program *p, int32_t t);
int32_t fs_symmetric_peer_of(const fs_program *p, int32_t t);
int64_t fs_symmetric_value(const fs_program *p, int32_t t);
int32_t fs_symmetric_need(const fs_program *p, int32_t t);

/* Which programs the accessors below read, fixed per translation unit:
 * the engine's steps are compiled twice (engine_explicit.c, defining
 * FS_PROGRAM_EXPLICIT: plain array reads; engine_symmetric.c, defining
 * FS_PROGRAM_SYMMETRIC: the template, inline); everywhere else either,
 * told apart by the array's pointer (NULL in a rank-symmetric program),
 * which the read loads anyway. */
#if defined(FS_PROGRAM_EXPLICIT)
#define FS_TEMPLATE_READ(p, array, field, out_of_line) ((p)->array[t])
#elif defined(FS_PROGRAM_SYMMETRIC)
#define FS_TEMPLATE_READ(p, array, field, out_of_line) (fs_template_of(p, t)->field)
#else
#define FS_TEMPLATE_READ(p, array, field, out_of_line) \
  (FS_UNLIKELY(!(p)->array) ? out_of_line(p, t) : (p)->array[t])
#endif

static inline int fs_task_kind_of(const fs_program *p, int32_t t) {
  return FS_TEMPLATE_READ(p, kind, kind, fs_symmetric_kind);
}
static inline int fs_task_flags(const fs_program *p, int32_t t) {
  return FS_TEMPLATE_READ(p, flags, flags, fs_symmetric_flags);
}
static inline int32_t fs_task_rank(const fs_program *p, int32_t t) {
#if defined(FS_PROGRAM_SYMMETRIC)
  int32_t rank;
  fs_symmetric_split(p->symmetric, t, &rank);
  return rank;
#else
  return FS_TEMPLATE_READ(p, rank, kind, fs_symmetric_rank);
#endif
}
static inline int32_t fs_task_peer(const fs_program *p, int32_t t) {
#if defined(FS_PROGRAM_SYMMETRIC)
  return fs_symmetric_peer(p->symmetric, t);
#else
  return FS_TEMPLATE_READ(p, peer, kind, fs_symmetric_peer_of);
#endif
}
static inline int64_t fs_task_value(const fs_program *p, int32_t t) {
  return FS_TEMPLATE_READ(p, value, value, fs_symmetric_value);
}
static inline int32_t fs_task_need(const fs_program *p, int32_t t) {
  return FS_TEMPLATE_READ(p, need, need, fs_symmetric_need);
}
/* The optional arrays: NULL means 0 in an explicit program. */
#if defined(FS_PROGRAM_EXPLICIT)
#define FS_OPTIONAL_READ(p, field) ((p)->field ? (p)->field[t] : 0)
#elif defined(FS_PROGRAM_SYMMETRIC)
#define FS_OPTIONAL_READ(p, field) (fs_template_of(p, t)->field)
#else
#define FS_OPTIONAL_READ(p, field) \
  ((p)->field ? (p)->field[t] : FS_UNLIKELY((p)->symmetric) ? fs_template_of(p, t)->field : 0)
#endif
static inline int32_t fs_task_tag(const fs_program *p, int32_t t) {
  return FS_OPTIONAL_READ(p, tag);
}
static inline int fs_task_cpu(const fs_program *p, int32_t t) { return FS_OPTIONAL_READ(p, cpu); }
static inline int fs_task_nic(const fs_program *p, int32_t t) { return FS_OPTIONAL_READ(p, nic); }
static inline int32_t fs_task_label_index(const fs_program *p, int32_t t) { /* -1: none */
  if (p->symmetric) return fs_template_of(p, t)->label;
  return p->label ? p->label[t] : -1;
}
static inline int64_t fs_task_stride(const fs_program *p, int32_t t) {
  return p->stride ? p->stride[t] : 0; /* (none in a template) */
}
static inline int fs_task_protocol(const fs_program *p, int32_t t) {
  return p->protocol ? p->protocol[t] : FS_PROTOCOL_NONE; /* (none in a template) */
}
/* "LL", "LL128", "Simple" ("" for NONE); the fs_protocol named by text
 * (exactly those spellings), or -1. */
const char *fs_protocol_name(int protocol);
int fs_protocol_from_name(const char *text, int64_t length);
/* Task t's successor entries (FS_EDGE_* above), *count of them, in order:
 * in the program's array, or written into buffer (rank-symmetric). */
static inline const uint32_t *fs_task_successors(const fs_program *p, int32_t t,
                                                 uint32_t buffer[FS_TEMPLATE_MAX_EDGES],
                                                 uint32_t *count) {
#if defined(FS_PROGRAM_SYMMETRIC)
  *count = (uint32_t)fs_symmetric_successors(p->symmetric, t, buffer);
  return buffer;
#else
  const uint32_t *at = p->successor_at;
#if !defined(FS_PROGRAM_EXPLICIT)
  if (FS_UNLIKELY(!at)) {
    *count = (uint32_t)fs_symmetric_successors(p->symmetric, t, buffer);
    return buffer;
  }
#endif
  (void)buffer; /* (an explicit program's successors are not copied) */
  *count = at[t + 1] - at[t];
  return p->successor + at[t];
#endif
}

/* Readers of a finalized program. */
const char *fs_task_name(const fs_program *p, int32_t t, char buffer[24]);
const char *fs_task_label(const fs_program *p, int32_t t); /* NULL when none */
const char *fs_task_kind_name(fs_task_kind kind);
int fs_task_kind_from_name(const char *name, int64_t length); /* -1 if unknown */
/* Sleep, compute, put, get, send and recv take a CPU (a recv for no time:
 * it is posted when its CPU is free), unless concurrent. */
static inline int fs_task_takes_cpu(const fs_program *p, int32_t t) {
  return fs_task_kind_of(p, t) >= FS_SLEEP && !(fs_task_flags(p, t) & FS_CONCURRENT);
}
int64_t fs_program_bytes(const fs_program *p); /* memory held, for reports */

/* Renumbers a finalized explicit program whose ranks all hold the same
 * number W >= 2 of tasks, numbered rank by rank, position by position
 * (rank r's j-th task becomes task j x ranks + r; p->interleaved = W): a
 * lock-step round's tasks then lie together in memory (a GOAL file's
 * 2^20-rank barrier simulates in about two thirds of the time). Its
 * successor lists keep their order; a run's results are the same when
 * every task takes a CPU (a GOAL program's do) and no platform's cores
 * break ties by task id, but outputs that list tasks list them in the new
 * order: the caller decides (fennelsim run). 1 when renumbered,
 * 0 when the program is not of that shape, -1 out of memory (unchanged). */
int fs_program_interleave(fs_program *p);
/* The task read k-th (rank by rank): k itself unless interleaved. */
static inline int32_t fs_task_in_read_order(const fs_program *p, int32_t k) {
  if (!p->interleaved) return k;
  return (int32_t)((int64_t)(k % p->interleaved) * p->ranks + k / p->interleaved);
}

/* The slot of a rank's per-rank state, or -1 for a rank no task uses (its
 * finish time is 0). */
static inline int32_t fs_program_slot(const fs_program *p, int32_t rank) {
  return p->slot_rank ? fs_index_map_find(&p->slot_of, rank) : rank;
}
static inline int32_t fs_program_slot_rank(const fs_program *p, int32_t slot) {
  return p->slot_rank ? p->slot_rank[slot] : slot;
}

#endif
