/* run_replay.h: recorded MPI executions in `fennelsim run` and `convert`:
 * the replay's options, reading a trace into a program, and the report
 * that sets each rank's simulated time against its recorded one. */
#ifndef FS_RUN_REPLAY_H
#define FS_RUN_REPLAY_H

#include <stdio.h>

#include "core/engine.h"
#include "trace/replay.h"

/* The replay's options with their defaults. */
void fs_replay_options_default(fs_replay_options *o);
/* --algo, --compute-scale, --flop-rate: 1 when argv[*i] was one (value
 * consumed), 0 when not, -1 with err set on a bad value. */
int fs_replay_option(int argc, char **argv, int *i, fs_replay_options *o, fs_error *err);
/* Whether inputs name a trace rather than a schedule (.dag, .goal, "-"). */
int fs_inputs_are_trace(const char *const *inputs, int count);
/* Reads and lowers a trace; NULL with err set. */
fs_replay *fs_replay_read(const char *const *inputs, int count, const fs_replay_options *o,
                          fs_error *err);

/* GOAL has only send, recv and calc: a replayed program's starts and
 * joins become calc 0, computation is rounded to whole ns, and reductions
 * priced by size become calc 0 (GOAL has no size-priced computation; the
 * count of those is returned, for a note). */
int64_t fs_replay_prepare_goal(fs_program *p);

/* The replay section of a run's report: what was replayed, and per rank
 * the recorded wall time, the simulated one and the difference. */
void fs_replay_report_text(FILE *out, const fs_replay *replay, const fs_engine *engine);
void fs_replay_report_json(FILE *out, const fs_replay *replay, const fs_engine *engine);

#define FS_REPLAY_USAGE                                                                          \
  "  recorded MPI executions (FILE is a trace directory or per-rank files):\n"                   \
  "  --algo C=A[:OPT],...   the algorithm replacing collective C (barrier, bcast, reduce,\n"     \
  "                         allreduce, gather, scatter, allgather, alltoall): a generator of\n"  \
  "                         `gen --list` (allreduce=rm:auto, bcast=binomial, barrier=nway:3);\n" \
  "                         defaults: barrier=dissemination bcast=binomial reduce=binomial\n"    \
  "                         allreduce=rd gather=binomial scatter=binomial allgather=rd\n"        \
  "                         alltoall=pairwise. C=mpich, C=ompi: what MPICH or Open MPI picks;\n" \
  "                         all=mpich, all=ompi: for every collective (later items override)\n"  \
  "  --compute-scale X      the recorded computation times X (0.5: a CPU twice as fast)\n"       \
  "  --flop-rate R          flop/s for computations given in flops (SimGrid; default 1e9)\n"

#endif
