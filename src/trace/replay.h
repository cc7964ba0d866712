/* replay.h: a recorded MPI execution lowered onto a program, so the engine
 * can replay it under any model ("what if the network were twice as fast,
 * the allreduce recursive multiplying?").
 *
 * Per rank, the calls become a chain: the gap between one simulated call's
 * end and the next one's start is computation (times --compute-scale);
 * sends and receives become send/recv tasks, matched MPI-style by the engine
 * (tags are made unique per communicator); a nonblocking call lets the
 * chain go on at its start and its wait joins its completion; each
 * collective is replaced by a schedule from the algorithm library, built
 * on the communicator's ranks, and entered by every member's chain (a
 * nonblocking one there too: its wait finds it done). */
#ifndef FS_REPLAY_H
#define FS_REPLAY_H

#include "core/program.h"
#include "trace/trace.h"

typedef struct fs_replay_options {
  double compute_scale;   /* gaps x this (1: as recorded; 0.5: a CPU twice as fast) */
  double flop_rate;       /* flop/s for computations given in flops (SimGrid traces) */
  const char *algorithms; /* --algo "allreduce=rm:auto,bcast=binomial"; NULL: the defaults */
  int names_on_demand;    /* 1: tasks are named by fs_replay_name_tasks only (an output that
                           * shows names calls it); 0: named when built */
} fs_replay_options;

#define FS_REPLAY_DEFAULT_FLOP_RATE 1e9

/* Where a named task came from: its call's kind, line (or place among the
 * rank's calls), the side of a sendrecv, and a send's or recv's
 * communicator (-1 for other tasks). 16 bytes, for the about one task in
 * five that has a call of its own (the name text costs more, and is made
 * only when an output shows it). */
typedef struct fs_task_origin {
  int32_t task;
  uint32_t number; /* the line, or the call's place among its rank's calls from 1 */
  int32_t comm;
  uint8_t kind;  /* fs_call_kind */
  uint8_t flags; /* FS_ORIGIN_* */
} fs_task_origin;

enum {
  FS_ORIGIN_LINE = 1, /* number is a line ("r3.L17..."), else a call ("r3.c8...") */
  FS_ORIGIN_SEND = 2, /* a sendrecv's send: ".send" */
  FS_ORIGIN_RECV = 4, /* a sendrecv's receive: ".recv" */
};

typedef struct fs_replay {
  fs_program *program; /* finalized */
  int32_t ranks;
  fs_time *recorded; /* per rank: the recorded wall time (Init end to Finalize start), -1 unknown */
  int64_t calls, messages, collectives; /* simulated point-to-point and collective calls */
  fs_time computation;  /* all ranks' computation, after --compute-scale (saturated at 2^62 ps) */
  char algorithms[512]; /* the algorithm each collective ran as: "allreduce=allreduce-rd ..." */
  /* for task names and fs_replay_describe_task: the origins of the named
   * tasks, ascending by task; per program tag the trace's tag and
   * communicator; the communicators' ids; each rank's file */
  fs_task_origin *origin;
  int64_t origin_count, origin_capacity;
  int32_t *tag_value, *tag_comm;
  int64_t tag_count;
  int64_t *comm_id;
  int32_t comms;
  char **file;
} fs_replay;

/* Lowers the trace; NULL with err set ("FILE:LINE: rank R, CALL: why") when a
 * call cannot be replayed (a peer outside its communicator, a wait on an
 * unknown request, members that disagree on a collective) or --algo is bad. */
fs_replay *fs_replay_build(const fs_trace *trace, const fs_replay_options *options, fs_error *err);
/* As fs_replay_build, but releases the trace's calls as it goes (each
 * rank's once lowered, the rest before the program is finalized): the
 * largest replays peak with the program alone. The caller still frees the
 * trace (fs_trace_free), and must not read its calls. */
fs_replay *fs_replay_build_releasing(fs_trace *trace, const fs_replay_options *options,
                                     fs_error *err);
void fs_replay_free(fs_replay *replay);
/* Names the program's tasks after their calls ("r3.L120.MPI_Recv"), as
 * fs_replay_build does without names_on_demand; p is the replay's program
 * (also once taken out of it). 0, or -1 when out of memory. */
int fs_replay_name_tasks(const fs_replay *replay, fs_program *p);

/* An fs_task_describer's describe (core/deadlock_report.h) for the replay's
 * program, state the fs_replay: a send's or recv's MPI tag, communicator
 * ("MPI_COMM_WORLD", "communicator 5" by the trace's id) and the call that
 * made it ("MPI_Isend at FILE:17", "MPI_Isend, call 8 of FILE" without
 * lines); -1 for tasks of a collective's schedule. */
int fs_replay_describe_task(const void *replay, const fs_program *p, int32_t task, int32_t *tag,
                            char *communicator, size_t communicator_size, char *call,
                            size_t call_size);

/* The collectives --algo knows, with their default algorithms, as text for --help. */
const char *fs_replay_algorithm_help(void);

#endif
