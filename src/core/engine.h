/* engine.h: the discrete-event engine that replays a program under a
 * network and a compute model.
 *
 * Rules (docs/MODELS.md, Semantics): a task is ready when `need` of its dependencies have
 * completed (all of them, or any=K), at that completion's time. Start and
 * proxy tasks complete at once (a start after its skew); a concurrent task
 * starts at once (on cores, fs_engine_set_cores: once it has a core); other
 * tasks queue on their rank, which runs one at a time.
 * All completions at a time t are processed before any rank picks its next
 * task at t. Work waiting for a CPU is served in the order it was released,
 * as in LogGOPSim: every task takes a place in one sequence when it starts,
 * and the tasks its completion makes ready take that place (sends first,
 * then recvs, then the rest, each in release order); a message takes its
 * send's place. At one instant the CPUs start their work in place order
 * too. Completions posted for the same time are processed in the order
 * they were posted.
 *
 * Two-sided tasks: a send takes its CPU (and whatever the model says, e.g. a
 * NIC gap), then its message travels to the receiver, where it waits for a
 * CPU like a task (ordered by arrival time, then by the send's position) and
 * is matched MPI-style against the posted receives of that rank: FIFO, the
 * first posted recv whose source and tag accept it (-1: any), else it joins
 * the unexpected queue. A recv is posted in no time when its CPU is free,
 * or at the instant the CPU is next taken or freed, and takes the first
 * unexpected message it accepts. A recv completes when its message has been
 * received (the end of the receiver's CPU time for it), but what it
 * releases is placed when it is matched (the receipt's start, or the
 * posting); an eager send completes when it releases its CPU, a rendezvous
 * send when its message is matched, unless the network model moves its data
 * after the match (its `matched` callback, model.h: the flow model, as
 * SMPI): then the send and its recv complete together when the model posts
 * the send's remote completion. A rank may have several CPUs (task field cpu); a message uses the
 * CPU index of its send at the receiver, as LogGOPSim does. */
#ifndef FS_ENGINE_H
#define FS_ENGINE_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/perturbation.h"
#include "core/model.h"
#include "core/program.h"

/* Instruments observe a run; each callback may be NULL. */
typedef struct fs_observer {
  void *state;
  void (*ready)(void *state, int32_t task, fs_time t);
  void (*started)(void *state, int32_t task, fs_time t);
  void (*local_complete)(void *state, int32_t task, fs_time t);
  void (*remote_complete)(void *state, int32_t task, fs_time t);
  /* A message was matched: send's message with recv (may be NULL). */
  void (*matched)(void *state, int32_t send, int32_t recv, fs_time t);
  /* The receiver's CPU takes send's message from start to end (models with
   * a receive cost: loggops, lmo...), whether or not its recv is posted yet
   * (may be NULL). */
  void (*received)(void *state, int32_t send, fs_time start, fs_time end);
  /* task takes core `core` (0-based) of its rank's node, then starts:
   * only on cores (fs_engine_set_cores) (may be NULL). */
  void (*placed)(void *state, int32_t task, int32_t core, fs_time t);
} fs_observer;

#define FS_MAX_OBSERVERS 8

/* FS_RUN_REJECTED: a model refused the program before it ran (its
 * parameters do not fit it: a platform file with fewer cores than ranks, a
 * parameter file for another rank count): bad input, not a failed run. */
enum fs_run_status { FS_RUN_OK = 0, FS_RUN_DEADLOCK = 1, FS_RUN_FAILED = -1, FS_RUN_REJECTED = 2 };

fs_engine *fs_engine_new(const fs_program *program, fs_network_model *network,
                         fs_compute_model *compute, fs_error *err);
/* A perturbation of the intervals the models post, for the next runs
 * (core/perturbation.h; NULL: none; fs_engine_set_noise in noise/noise.h
 * sets the noise). The table is copied and the engine owns its state from
 * now on: the state of the one it replaces is destroyed, unless it is the
 * same state. */
void fs_engine_set_perturbation(fs_engine *e, const fs_perturbation *perturbation);
/* The perturbation set, or NULL. */
const fs_perturbation *fs_engine_perturbation(const fs_engine *e);
void fs_engine_free(fs_engine *e);
int fs_engine_add_observer(fs_engine *e, const fs_observer *observer);

/* Puts the ranks on the cores of a platform (docs/MODELS.md, "Concurrent tasks on cores"): the
 * rank of slot s (program.h) on node node_of_slot[s] (any ids), `cores` cores per node. It matters
 * only for a program with concurrent tasks (else nothing is kept): then a
 * concurrent task takes a free core of its rank's node while it would
 * otherwise hold a CPU, and so does every CPU of a rank while busy; a
 * task or CPU that finds no free core waits, and a node's freed cores go to
 * its waiters by (ready time, task id) (a CPU by its next entry's). Before
 * runs; node_of_slot is copied. 0, or -1 with err set (out of memory). */
int fs_engine_set_cores(fs_engine *e, const int32_t *node_of_slot, int64_t cores, fs_error *err);

/* Runs the program from time 0 (again, if it ran before). Returns
 * FS_RUN_OK, FS_RUN_DEADLOCK (tasks could never become ready; see
 * fs_engine_report_stuck, deadlock_report.h), FS_RUN_REJECTED or FS_RUN_FAILED (err says why). */
int fs_engine_run(fs_engine *e, fs_error *err);

fs_time fs_engine_makespan(const fs_engine *e);
/* Finish times by slot (program.h: slot r is rank r unless the ranks far
 * outnumber the tasks); fs_engine_finish by rank (0 for a rank no task
 * uses). */
const fs_time *fs_engine_finish_times(const fs_engine *e);
fs_time fs_engine_finish(const fs_engine *e, int32_t rank);
int64_t fs_engine_events(const fs_engine *e);
int64_t fs_engine_stuck_tasks(const fs_engine *e);
/* Receives posted and messages received that found no partner. */
int64_t fs_engine_unmatched(const fs_engine *e);
/* After a run (the deadlock report, deadlock_report.h): the completions
 * task still waited for (> 0: it never became ready), and each send and
 * recv left in the match queues, rank by rank in queue order, with whether
 * it completed (an eager send completes when it leaves). */
int32_t fs_engine_remaining(const fs_engine *e, int32_t task);
typedef void (*fs_unmatched_visitor)(void *state, int32_t task, int completed);
void fs_engine_visit_unmatched(const fs_engine *e, fs_unmatched_visitor visit, void *state);
/* The bytes of every array the engine holds (not its own fixed-size
 * struct): the run state, per task and per used rank (slot) whatever the
 * rank count (fs_engine_new refuses one past the memory limit); the cores'
 * state; the event queue's buckets (as large as they grew); and the
 * perturbation's state. */
int64_t fs_engine_bytes(const fs_engine *e);
/* A rank-symmetric program's run keeps the state of its live blocks only
 * (docs/INTERNALS.md, "Rank-symmetric programs"): the block buffers it
 * allocated (the most blocks live at once in any run so far); 0 for an
 * explicit program. */
int32_t fs_engine_window_buffers(const fs_engine *e);

/* For network models. */
const fs_program *fs_engine_program(const fs_engine *e);
void fs_engine_post_complete(fs_engine *e, int32_t task, fs_time at); /* local = remote */
void fs_engine_post_local(fs_engine *e, int32_t task, fs_time at);
void fs_engine_post_remote(fs_engine *e, int32_t task, fs_time at);
void fs_engine_post_model_event(fs_engine *e, fs_time at, uint32_t payload);
/* Ends the run as failed (a model out of memory, say); why is kept. */
void fs_engine_fail(fs_engine *e, const char *why);
/* For compute models: an event of the compute model's own. */
void fs_engine_post_compute_event(fs_engine *e, fs_time at, uint32_t payload);
/* The message of send `task` reaches its receiver at `at`. */
void fs_engine_post_arrival(fs_engine *e, int32_t task, fs_time at);

#endif
