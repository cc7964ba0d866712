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
} fs_replay_options;

#define FS_REPLAY_DEFAULT_FLOP_RATE 1e9

typedef struct fs_replay {
  fs_program *program; /* finalized */
  int32_t ranks;
  fs_time *recorded; /* per rank: the recorded wall time (Init end to Finalize start), -1 unknown */
  int64_t calls, messages, collectives; /* simulated point-to-point and collective calls */
  fs_time computation;  /* all ranks' computation, after --compute-scale (saturated at 2^62 ps) */
  char algorithms[512]; /* the algorithm each collective ran as: "allreduce=allreduce-rd ..." */
  /* for fs_replay_describe_task: per send/recv task its communicator (an
   * index of the trace's, -1 for other tasks); per program tag the trace's
   * tag and communicator; the communicators' ids; each rank's file */
  int32_t *message_comm;
  int64_t message_capacity;
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
void fs_replay_free(fs_replay *replay);

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
