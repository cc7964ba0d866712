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
#include "generators/data_flow.h"
#include "platform/platform.h"

#define FS_NCCL_MAX_CHANNELS 64     /* NCCL's MAXCHANNELS: the limit of --channels */
#define FS_NCCL_FIFO_UNLIMITED (-1) /* --fifo 0: a sender never waits for a free slot */
#define FS_NCCL_MAX_FIFO 64         /* the limit of --fifo */

typedef struct fs_generator_options {
  int32_t ranks;       /* --ranks */
  int64_t size;        /* --size, bytes per message */
  int32_t rounds;      /* --rounds (pingpong), default 1 */
  int32_t factors[64]; /* --factors 4,2,... (allreduce-rm) */
  int factor_count;
  fs_time reduce_time;         /* --reduce-time */
  int has_reduce_time;         /* without it, each reduce is a compute with size=S
                          (the compute model prices it; 0 under the default) */
  int32_t root;                /* --root, default 0 (rooted collectives only) */
  int64_t segment;             /* --segment bytes for pipelined algorithms, 0 = default */
  int32_t ways;                /* --ways f (f-way / n-way dissemination), 0 = default */
  const char *schedule;        /* --schedule (allreduce-rm): "a4,a2", "m1g2a3,n1g3a2", "auto" */
  const fs_platform *platform; /* mapped platform (--nodes/--cores/--mapping or
                                  --platform) for SMP-aware and kappa-level
                                  algorithms; NULL: one rank per node */
  fs_data_flow *flow;          /* when not NULL, the generator records its data flow */
  int32_t element; /* bytes per element for the selectors' count rules (mpi_selection.h); 0: 8 */
  int symmetric;   /* the caller only runs the program: a generator that can may build it
                      rank-symmetric (core/symmetric.h; allreduce-rd at a power of two ranks,
                      barrier-dissemination), never with a data flow to record */
  /* NCCL's algorithms (the *-nccl-* generators, nccl_layout.h) */
  int32_t channels; /* --channels: NCCL channels, each one CPU of every rank; 0 = 1 */
  int64_t chunk;    /* --chunk: bytes per step; 0 = NCCL's for the protocol and collective */
  int protocol;     /* --protocol: an fs_protocol; FS_PROTOCOL_NONE = Simple */
  int32_t slices;   /* --slices: slices of a Ring/Simple allreduce/allgather/reduce-scatter
                       chunk (1, 2 or 4); 0 = NCCL's 2 */
  int32_t fifo;     /* --fifo: FIFO slots of a connection, 1 to 64; 0 = NCCL's 8,
                       FS_NCCL_FIFO_UNLIMITED (--fifo 0) = no credits */
  /* The machine of the NCCL selectors (nccl_selection.h) */
  int nccl_gpu;     /* --gpu: 1 + platform/nccl_tuning.h's fs_nccl_gpu; 0 = Hopper */
  int nccl_nvls;    /* --nvls: FS_NCCL_SWITCH_*; 0 = NCCL's default (on from Hopper) */
  int nccl_collnet; /* --collnet: FS_NCCL_SWITCH_*; 0 = off */
} fs_generator_options;

/* The values of nccl_nvls and nccl_collnet given as 0 or 1. */
#define FS_NCCL_SWITCH_OFF 1
#define FS_NCCL_SWITCH_ON 2

/* The options beyond --ranks and --size a generator reads; the CLI refuses
 * the others rather than silently ignoring them. */
enum {
  FS_GEN_ROOT = 1 << 0,
  FS_GEN_SEGMENT = 1 << 1,
  FS_GEN_WAYS = 1 << 2,
  FS_GEN_SCHEDULE = 1 << 3,
  FS_GEN_PLATFORM = 1 << 4,
  FS_GEN_FACTORS = 1 << 5,
  FS_GEN_ROUNDS = 1 << 6,
  FS_GEN_REDUCE_TIME = 1 << 7,   /* its reduces are computes: --reduce-time prices them */
  FS_GEN_CHANNELS = 1 << 8,      /* NCCL's: --channels */
  FS_GEN_CHUNK = 1 << 9,         /* NCCL's: --chunk */
  FS_GEN_PROTOCOL = 1 << 10,     /* NCCL's: --protocol */
  FS_GEN_NCCL_MACHINE = 1 << 11, /* the NCCL selectors' --gpu, --nvls, --collnet */
  FS_GEN_SLICES = 1 << 12,       /* NCCL's rings: --slices */
  FS_GEN_FIFO = 1 << 13,         /* NCCL's rings and tree: --fifo */
};
#define FS_GEN_NCCL (FS_GEN_CHANNELS | FS_GEN_CHUNK | FS_GEN_PROTOCOL)

/* What a generator's schedule is, for `gen --list`, `gen --help` and
 * validate's default candidates (tests check them against the data flow
 * and the GOAL writer). */
enum {
  FS_GEN_TWO_SIDED = 1 << 0,   /* send/recv/calc only: it can be written as GOAL */
  FS_GEN_NOT_CORRECT = 1 << 1, /* a reference pattern reproduced op for op (schedgen's)
                                  that does not compute its collective: validate and
                                  replays take it only when named */
  FS_GEN_SELECTOR = 1 << 2,    /* an MPI library's selection (mpi_selection.h): it
                                  generates the algorithm the library picks */
  FS_GEN_FILE = 1 << 3,        /* it lowers a schedule file (--schedule FILE; msccl): its
                                  ranks and collective come from the file, so the loops
                                  over generators that build from --ranks alone skip it */
  FS_GEN_GPU = 1 << 4,         /* a GPU library's schedule (NCCL's algorithms and selectors,
                                  MSCCL): channels are CPUs, transfers carry a protocol; a
                                  collective's name in best, sweep and validate stands for
                                  it only in the gpu family (algorithm_spec.h) */
};

typedef struct fs_generator {
  const char *name;    /* "allreduce-rd" */
  const char *summary; /* one line for `gen --list` */
  fs_program *(*generate)(const fs_generator_options *options, fs_error *err);
  unsigned options;         /* FS_GEN_* it reads */
  fs_collective collective; /* what it computes (NONE: pingpong) */
  unsigned traits;          /* FS_GEN_TWO_SIDED, NOT_CORRECT, SELECTOR, FILE, GPU */
} fs_generator;

/* What --size S means for collective c: "the whole vector: ...". */
const char *fs_generator_size_meaning(fs_collective c);

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
fs_program *fs_generate_barrier_dissemination(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_barrier_dissemination_schedgen(const fs_generator_options *options,
                                                       fs_error *err);
fs_program *fs_generate_allgather_ring(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allgather_rd(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_bcast_linear(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_scatter_binomial(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_gather_binomial(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_alltoall_pairwise(const fs_generator_options *options, fs_error *err);

/* broadcast */
fs_program *fs_generate_bcast_binary(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_bcast_chain(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_bcast_scatter_allgather(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_bcast_klevel(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_scatter_klevel(const fs_generator_options *options, fs_error *err);
/* reduce, scatter, gather */
fs_program *fs_generate_reduce_linear(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_reduce_rabenseifner(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_scatter_linear(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_gather_linear(const fs_generator_options *options, fs_error *err);
/* allreduce */
fs_program *fs_generate_allreduce_ring(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_rabenseifner(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_fan(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_dissemination(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_elimination(const fs_generator_options *options, fs_error *err);
/* allgather, alltoall, barrier */
fs_program *fs_generate_allgather_bruck(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allgather_neighbor(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_alltoall_linear(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_alltoall_bruck(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_barrier_linear(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_barrier_nway(const fs_generator_options *options, fs_error *err);
/* hierarchical (SMP-aware) */
fs_program *fs_generate_allreduce_smp(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_bcast_smp(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_reduce_smp(const fs_generator_options *options, fs_error *err);
/* Open MPI's and MPICH's trees and compositions (issue 19) */
fs_program *fs_generate_bcast_knomial(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_bcast_split_binary(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_bcast_scatter_rd_allgather(const fs_generator_options *options,
                                                   fs_error *err);
fs_program *fs_generate_reduce_chain(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_reduce_binary(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_reduce_in_order_binary(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_linear(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_reduce_bcast(const fs_generator_options *options, fs_error *err);
/* MPI libraries' flat algorithms (issue 19): barriers, alltoalls, linear gather/scatter */
fs_program *fs_generate_barrier_rd(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_barrier_double_ring(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_barrier_tree(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_alltoall_scattered(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_alltoall_pairwise_xor(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_gather_linear_sync(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_scatter_linear_nb(const fs_generator_options *options, fs_error *err);
/* NCCL 2.30.7's ring and tree algorithms, per channel and chunk (issue 21) */
fs_program *fs_generate_allreduce_nccl_ring(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allgather_nccl_ring(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_reduce_scatter_nccl_ring(const fs_generator_options *options,
                                                 fs_error *err);
fs_program *fs_generate_bcast_nccl_ring(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_reduce_nccl_ring(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_allreduce_nccl_tree(const fs_generator_options *options, fs_error *err);
/* NCCL's NVLS (nccl_nvls.c): the GPUs and, as rank N, their NVSwitch */
fs_program *fs_generate_allreduce_nccl_nvls(const fs_generator_options *options, fs_error *err);
/* NCCL's NVLSTree (nccl_nvlstree.c): NVLS in each node (its switch a rank), a tree between */
fs_program *fs_generate_allreduce_nccl_nvlstree(const fs_generator_options *options, fs_error *err);
/* NCCL's CollNetDirect and CollNetChain (nccl_collnet.c): the N*G GPUs and,
 * as ranks N*G .. N*G+G-1, the rails' in-network reducers */
fs_program *fs_generate_allreduce_nccl_collnet_direct(const fs_generator_options *options,
                                                      fs_error *err);
fs_program *fs_generate_allreduce_nccl_collnet_chain(const fs_generator_options *options,
                                                     fs_error *err);
fs_program *fs_generate_allgather_nccl_pat(const fs_generator_options *options, fs_error *err);
fs_program *fs_generate_reduce_scatter_nccl_pat(const fs_generator_options *options, fs_error *err);
/* issue 21: an MSCCL XML schedule (--schedule FILE.xml), lowered (msccl.c) */
fs_program *fs_generate_msccl(const fs_generator_options *options, fs_error *err);

#endif
