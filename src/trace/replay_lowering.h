/* replay_lowering.h: what the files of the replay share (not an API:
 * src/trace/replay*.c only). The lowering's state, and the steps each file
 * gives the others:
 *
 *   replay.c             fs_replay_build: the state, the two passes, the
 *                        helpers every step uses (errors, tasks, labels)
 *   replay_algorithms.c  --algo: which generator replaces each collective
 *   replay_collectives.c pass 1 (each communicator's collectives, paired
 *                        across its members) and the embedding of one
 *                        collective instance: its schedule, copied onto the
 *                        members, behind an entry and an exit proxy each
 *   replay_walk.c        pass 2: one rank's calls in order, as a chain of
 *                        tasks: computation gaps, messages, requests, waits
 *   replay_origins.c     task names after their calls, and what
 *                        fs_replay_describe_task reads back from them */
#ifndef FS_REPLAY_LOWERING_H
#define FS_REPLAY_LOWERING_H

#include "generators/generators.h"
#include "trace/replay.h"

/* ---- --algo (replay_algorithms.c) ---- */

enum {
  FS_ALGO_BARRIER,
  FS_ALGO_BCAST,
  FS_ALGO_REDUCE,
  FS_ALGO_ALLREDUCE,
  FS_ALGO_GATHER,
  FS_ALGO_SCATTER,
  FS_ALGO_ALLGATHER,
  FS_ALGO_ALLTOALL,
  FS_ALGO_COUNT
};

typedef struct fs_lower_algorithm {
  const fs_generator *generator;
  char schedule[128]; /* --schedule text for generators that read one */
  int32_t ways;
  int64_t segment;
  int used;
  char picked[160]; /* a selector's picks ("allreduce-rd,allreduce-rabenseifner") */
} fs_lower_algorithm;

/* The table from --algo text (NULL: the defaults; all=NAME: every
 * collective's COLLECTIVE-NAME); -1 with err. */
int fs_lower_parse_algorithms(fs_lower_algorithm *table, const char *text, fs_error *err);
/* "allreduce=allreduce-rd ..." of the algorithms used, into text[size]; a
 * selector with what it picked: "allreduce=allreduce-ompi(allreduce-rd)". */
void fs_lower_describe_algorithms(const fs_lower_algorithm *table, char *text, size_t size);
/* Notes what a selector picked (once per name). */
void fs_lower_note_pick(fs_lower_algorithm *a, const char *picked);

/* ---- the state ---- */

typedef struct fs_index_list {
  int64_t *at;
  int64_t count, capacity;
} fs_index_list;

/* A generated schedule, kept for the next collective of the same shape. */
typedef struct fs_cached_schedule {
  int algo;
  int32_t ranks, root;
  int64_t bytes;
  fs_program *program;
} fs_cached_schedule;

typedef struct fs_tag_slot {
  int64_t key; /* (comm << 32 | tag) + 1; 0: empty */
  int32_t id;
} fs_tag_slot;

typedef struct fs_lowering {
  const fs_trace *trace;
  const fs_replay_options *options;
  fs_replay *replay;
  fs_program *p;
  fs_lower_algorithm algorithms[FS_ALGO_COUNT];
  fs_index_list **sequence; /* per communicator, per member: its collective calls on it */
  int32_t **instance; /* per rank, per call: the call's index in its communicator's sequence */
  int32_t **entry,
      **exit;         /* per rank, per call: the collective instance's proxies (-1: not built) */
  int32_t **position; /* per communicator: comm rank of each world rank (-1), NULL until needed */
  fs_cached_schedule *cache;
  int32_t cache_count, cache_capacity;
  fs_tag_slot *tags;
  int64_t tag_capacity, tag_count;
  int32_t next_collective_tag;
  int32_t kind_label[FS_CALL_KINDS];
  int32_t compute_label;
  fs_error *err;
} fs_lowering;

#define FS_FIRST_COLLECTIVE_TAG (1 << 30) /* point-to-point tags are interned below it */

/* ---- helpers every step uses (replay.c) ---- */

/* -1, err "replay: out of memory". */
int fs_lower_out_of_memory(fs_lowering *s);
/* -1, err "FILE:LINE: rank R, KIND: " then the message; without lines
 * (OTF2) "FILE: rank R (location L), call N, KIND: ", N counted from 1. */
int fs_lower_call_error(fs_lowering *s, int32_t r, const fs_call *c, const char *format, ...)
    FS_PRINTF(4, 5);
/* A task of the program, labelled (label -1: none; below -1: making the
 * label failed); -1 when out of memory. */
int32_t fs_lower_add_task(fs_lowering *s, fs_task_kind kind, int32_t rank, int32_t label);
/* The label named after the call kind ("isend"), interned once; -2 when
 * out of memory. */
int32_t fs_lower_kind_label(fs_lowering *s, fs_call_kind kind);
/* The list of rank r's pool at [at, at + count), NULL when empty or outside it. */
const int64_t *fs_lower_call_list(const fs_lowering *s, int32_t r, int32_t at, int32_t count);
int fs_lower_is_comm_creation(fs_call_kind k);
/* Calls that every member of their communicator makes together. */
int fs_lower_is_collective_call(const fs_call *c);

/* ---- collectives (replay_collectives.c) ---- */

/* Pass 1: per communicator and member, its collective calls (sequence,
 * instance), entry and exit set to -1; -1 with err when members disagree on
 * their number or a call names a communicator it is not a member of. */
int fs_lower_list_collectives(fs_lowering *s);
/* Builds the collective instance that rank r's call reached first: every
 * member's entry and exit proxies. */
int fs_lower_build_collective(fs_lowering *s, int32_t r, int64_t call);

/* ---- origins (replay_origins.c) ---- */

/* Names task after rank r's call c ("r3.L120.MPI_Recv"): keeps its origin
 * (replay.h), with side FS_ORIGIN_SEND or FS_ORIGIN_RECV for a sendrecv's
 * tasks (else 0) and the communicator of a send or recv (else -1). -1 with
 * err. */
int fs_lower_name_task(fs_lowering *s, int32_t task, int32_t r, const fs_call *c, int side,
                       int32_t comm);
/* Copies into the replay what fs_replay_describe_task needs once the trace
 * is gone; free_origins releases it. */
int fs_lower_keep_origins(fs_lowering *s);
void fs_lower_free_origins(fs_replay *replay);

/* ---- the walk (replay_walk.c) ---- */

/* Pass 2 for rank r: its calls as a chain of tasks. */
int fs_lower_walk_rank(fs_lowering *s, int32_t r);

#endif
