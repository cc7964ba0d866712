/* probe.h: what the parts of fennelprobe share: the options, the machine
 * (which ranks share a node), the repetition loop, and the two measurement
 * passes (point-to-point experiments, collectives). docs/PROBE.md documents
 * the program; src/fit/probe_data.h is the contract of each experiment. */
#ifndef FENNELPROBE_PROBE_H
#define FENNELPROBE_PROBE_H

#include <mpi.h>
#include <stdint.h>

#include "io/atomic_file.h"
#include "statistics.h"

#define PROBE_MAX_SIZES 64
#define PROBE_MAX_SIZE ((int64_t)1 << 30) /* a message's size fits an int count */
#define PROBE_HOST_LENGTH 256

/* The experiments of probe_data.h, in the CSV's names and output order. */
typedef enum probe_experiment {
  PROBE_MEMCPY,
  PROBE_ROUNDTRIP,
  PROBE_SSEND,
  PROBE_SEND_CALL,
  PROBE_TRAIN,
  PROBE_MULTICAST,
  PROBE_ONE_TO_TWO,
  PROBE_RING,
  PROBE_EXPERIMENTS
} probe_experiment;

const char *probe_experiment_name(probe_experiment e);

typedef struct probe_options {
  const char *p2p_path;         /* "-": stdout */
  const char *collectives_path; /* NULL: no collectives */
  int64_t sizes[PROBE_MAX_SIZES];
  int size_count;
  int64_t collective_sizes[PROBE_MAX_SIZES];
  int collective_size_count;
  int selected[PROBE_EXPERIMENTS];
  int all_pairs;
  int64_t ranks_per_node; /* 0: as MPI says; else blocks of ranks (testing) */
  int64_t warmup;
  stopping_rule rule;
} probe_options;

typedef struct machine {
  int rank, size;
  int *node_of;                     /* by world rank: 0, 1, ... in order of first rank */
  int nodes, cores;                 /* cores: the most ranks on one node */
  char (*hosts)[PROBE_HOST_LENGTH]; /* by world rank */
} machine;

/* Collective over MPI_COMM_WORLD; -1 when out of memory. ranks_per_node
 * > 0 pretends that nodes are blocks of that many consecutive ranks. */
int machine_detect(machine *m, int64_t ranks_per_node);
void machine_free(machine *m);
/* The ranks of `node` in increasing order into ranks[] (size m->size); their count. */
int machine_ranks_on(const machine *m, int node, int *ranks);

typedef struct probe {
  const probe_options *options;
  const machine *machine;
  fs_output *out;  /* rank 0 only */
  fs_output *meta; /* rank 0: the sidecar PATH.meta; NULL on stdout */
  samples samples; /* rank 0's repetitions */
  int64_t rows;    /* written so far */
} probe;

/* A metadata line (rank 0, text without its newline): into the sidecar, or
 * as a "# " line of the CSV when it goes to stdout. */
void probe_note(probe *p, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* One repetition on the calling rank; returns the sample (picoseconds) on
 * the communicator's rank 0, which measures. */
typedef int64_t (*repetition)(void *context);

/* Runs warm-up repetitions then timed ones on every rank of comm until
 * comm's rank 0 says stop (the stopping rule), then summarizes on that rank. */
void probe_repeat(probe *p, MPI_Comm comm, repetition run, void *context, summary *out);

/* Monotonic clock, nanoseconds. */
int64_t probe_now_ns(void);
/* The byte every rank sends: checks that data arrived from the right rank. */
unsigned char probe_pattern(int world_rank);
/* Reports wrong data and aborts the run. */
void probe_fail(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The two passes; collective over MPI_COMM_WORLD; rank 0 writes rows. */
int probe_point_to_point(probe *p);
int probe_collectives(probe *p);

#endif
