/* generators.h: the schedules of `fennelsim gen NAME`, each built as an
 * fs_program in memory (the CLI writes it out as .dag or GOAL). The
 * one-sided ones (puts, starts) follow the Fennel thesis; the two-sided ones
 * (send/recv only, dependencies within a rank) reproduce LogGOPSim's
 * schedgen patterns and can be written as GOAL.
 *
 * Every generator validates its options, reserves exactly the tasks and
 * dependencies it adds, labels tasks by stage and returns a finalized
 * program, or NULL with err set. Tasks are created in the order they should
 * be issued, and every dependency points to an earlier task. */
#ifndef FS_GENERATORS_H
#define FS_GENERATORS_H

#include <stdint.h>

#include "core/error.h"
#include "core/program.h"
#include "core/units.h"

typedef struct fs_generator_options {
  int32_t ranks;       /* --ranks */
  int64_t size;        /* --size, bytes per message */
  int32_t rounds;      /* --rounds (pingpong), default 1 */
  int32_t factors[64]; /* --factors 4,2,... (allreduce-rm) */
  int factor_count;
  fs_time reduce_time; /* --reduce-time */
  int has_reduce_time; /* without it, each reduce is a compute with size=S
                          (the compute model prices it; 0 under the default) */
} fs_generator_options;

typedef struct fs_generator {
  const char *name;    /* "allreduce-rd" */
  const char *summary; /* one line for `gen --list` */
  fs_program *(*generate)(const fs_generator_options *options, fs_error *err);
} fs_generator;

/* The generator called name, or NULL. */
const fs_generator *fs_generator_find(const char *name);
/* All generators, in the order `gen --list` shows them. */
const fs_generator *fs_generator_list(int *count);

fs_program *fs_generate_pingpong(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_multicast(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_rd(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_rm(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_bcast_binomial(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_reduce_binomial(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_recdoub(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_barrier_dissemination(const fs_generator_options *options,
                                              fs_error *err);
fs_program *fs_generate_allgather_ring(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allgather_rd(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_bcast_linear(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_scatter_binomial(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_gather_binomial(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_alltoall_pairwise(const fs_generator_options *options, fs_error *err);

#endif
