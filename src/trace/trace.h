/* trace.h: a recorded MPI execution, as every trace reader delivers it.
 *
 * One fs_trace per recording: per rank the MPI calls in the order they were
 * made, with their start and end times, and the communicators they used.
 * Readers (fennelsim's own format, liballprof, OTF2, SimGrid's
 * time-independent traces) fill it; replay.c lowers it onto a program.
 *
 * Conventions, the same for every reader:
 * - times are picoseconds from a per-rank origin chosen by the reader (only
 *   differences within one rank are used); a reader without times (SimGrid)
 *   sets start = end and puts the computation into FS_CALL_COMPUTE calls;
 * - peers and roots are ranks in the call's communicator, as in MPI;
 *   FS_TRACE_ANY (-1) is MPI_ANY_SOURCE or MPI_ANY_TAG; FS_TRACE_UNKNOWN (-2)
 *   is "not recorded";
 * - requests are small integers the reader assigns, unique per rank over the
 *   whole trace (a reused MPI handle gets a new id at each Isend/Irecv);
 * - lists (the requests of a Waitall, the counts of an Alltoallv) live in
 *   the rank's `list` pool: list[list_at .. list_at + list_count).
 * A trace owns all its memory; fs_trace_free releases it. */
#ifndef FS_TRACE_H
#define FS_TRACE_H

#include <stdint.h>

#include "core/error.h"
#include "core/units.h"

/* Limits of every trace value (docs/TRACES.md, "Limits"), the program's
 * (2^62, as core/units.h's): readers refuse values past them with
 * FILE:LINE:COLUMN, and the replay's time arithmetic saturates at them. */
#define FS_TRACE_TIME_LIMIT FS_TIME_LIMIT /* ps: any time of a call, from its rank's origin */
#define FS_TRACE_SIZE_LIMIT \
  FS_SIZE_LIMIT /* bytes: a message, a collective's side, a sum of counts */
#define FS_TRACE_SIZE_LIMIT_TEXT "4611686018427387904"

#define FS_TRACE_ANY (-1)
#define FS_TRACE_UNKNOWN (-2)
#define FS_TRACE_PROC_NULL (-3) /* MPI_PROC_NULL as a peer: the transfer does nothing */
#define FS_COMM_WORLD 0         /* index of MPI_COMM_WORLD in every trace's communicator table */
#define FS_COMM_SELF 1          /* index of MPI_COMM_SELF */

typedef enum fs_call_kind {
  FS_CALL_OTHER = 0, /* recorded but not simulated (Comm_rank, Wtime...): its time is computation */
  FS_CALL_INIT,      /* MPI_Init: its end is the start of the replay */
  FS_CALL_FINALIZE,  /* MPI_Finalize: its start is the end of the replay */
  FS_CALL_COMPUTE, /* computation the trace states explicitly (fennelsim's compute lines, SimGrid's
                      * compute and sleep): bytes = 0; the replay counts its duration end - start
                      * (SimGrid's sleep: start 0, end its length) plus `amount` flops, after the gap
                      * before it */
  /* point-to-point: peer, tag, comm, bytes */
  FS_CALL_SEND,
  FS_CALL_SSEND,
  FS_CALL_BSEND,
  FS_CALL_RSEND,
  FS_CALL_RECV,
  FS_CALL_ISEND,
  FS_CALL_ISSEND,
  FS_CALL_IBSEND,
  FS_CALL_IRSEND,   /* + request */
  FS_CALL_IRECV,    /* + request */
  FS_CALL_SENDRECV, /* send: peer, tag, bytes; receive: recv_peer, recv_tag, recv_bytes */
  FS_CALL_SENDRECV_REPLACE,
  FS_CALL_PROBE,
  FS_CALL_IPROBE, /* peer, tag, comm; iprobe: flag */
  /* completion: request (one) or the list (several); flag: a test's outcome;
   * index: the completed entry of a Waitany/Testany; Waitsome/Testsome list the
   * requests they completed after the requests they were given (see
   * completed_at) */
  FS_CALL_WAIT,
  FS_CALL_WAITALL,
  FS_CALL_WAITANY,
  FS_CALL_WAITSOME,
  FS_CALL_TEST,
  FS_CALL_TESTALL,
  FS_CALL_TESTANY,
  FS_CALL_TESTSOME,
  /* collectives on comm: bytes is what this rank contributes (count x type
   * size of the send buffer, or of the buffer for bcast), recv_bytes what it
   * receives; root for the rooted ones; v-variants list per-rank send counts
   * (bytes) then receive counts (bytes) in the pool: list_count = 2 x comm size;
   * request >= 0: a nonblocking collective (Iallreduce...) that made it */
  FS_CALL_BARRIER,
  FS_CALL_BCAST,
  FS_CALL_REDUCE,
  FS_CALL_ALLREDUCE,
  FS_CALL_GATHER,
  FS_CALL_SCATTER,
  FS_CALL_ALLGATHER,
  FS_CALL_ALLTOALL,
  FS_CALL_REDUCE_SCATTER,
  FS_CALL_REDUCE_SCATTER_BLOCK,
  FS_CALL_SCAN,
  FS_CALL_EXSCAN,
  FS_CALL_GATHERV,
  FS_CALL_SCATTERV,
  FS_CALL_ALLGATHERV,
  FS_CALL_ALLTOALLV,
  /* communicators: comm is the parent, new_comm the one made (FS_TRACE_UNKNOWN
   * when this rank got MPI_COMM_NULL or the reader cannot tell, as for
   * liballprof); Comm_free: comm */
  FS_CALL_COMM_SPLIT,
  FS_CALL_COMM_DUP,
  FS_CALL_COMM_CREATE,
  FS_CALL_COMM_FREE,
  FS_CALL_KINDS
} fs_call_kind;

typedef struct fs_call {
  fs_time start, end;
  int64_t bytes;               /* bytes sent (see the kinds above) */
  int64_t recv_bytes;          /* bytes received: recv, irecv, sendrecv, collectives */
  double amount;               /* FS_CALL_COMPUTE without times: flops */
  int32_t peer, tag;           /* p2p: destination or source; tag */
  int32_t recv_peer, recv_tag; /* sendrecv's receive side */
  int32_t source, source_tag;  /* of a completed receive (recv, probe, sendrecv), from its status;
                                * FS_TRACE_UNKNOWN when not recorded. An irecv's are the status
                                * its wait or test reported: readers store them on the irecv */
  int32_t comm;                /* index into the trace's communicators */
  int32_t new_comm;            /* communicator calls: the one made */
  int32_t root;
  int32_t request; /* isend/irecv, nonblocking collectives: made; wait/test: waited on; -1 none
                       * (MPI_REQUEST_NULL, or a blocking collective) */
  int32_t flag;    /* test/iprobe: 1 when it completed/found, 0 not, FS_TRACE_UNKNOWN */
  int32_t index;   /* waitany/testany: the completed entry; FS_TRACE_UNKNOWN */
  int32_t list_at, list_count;           /* requests or counts, see above */
  int32_t completed_at, completed_count; /* waitsome/testsome: the requests completed */
  uint32_t line; /* where it was read: line in the rank's file (0: unknown) */
  uint8_t kind;  /* fs_call_kind */
} fs_call;

/* A communicator: its members as world ranks, in comm rank order. */
typedef struct fs_trace_comm {
  int64_t id; /* the reader's identifier (for messages) */
  int32_t size;
  int32_t *members;
} fs_trace_comm;

typedef struct fs_trace_rank {
  fs_call *calls;
  int64_t count, capacity;
  int64_t *list;
  int64_t list_used, list_capacity;
  char *file;           /* where this rank was read from (for messages) */
  fs_time clock_offset; /* recorded offset of this rank's clock to rank 0's (0: none) */
  char *host;           /* NULL when not recorded */
  uint64_t location;    /* OTF2: the rank's location id (its calls have no lines), for messages */
} fs_trace_rank;

typedef struct fs_trace {
  int32_t ranks;
  fs_trace_rank *rank;
  fs_trace_comm *comm;
  int32_t comms, comm_capacity;
  const char *format; /* "fennelsim", "liballprof", "otf2", "simgrid" */
} fs_trace;

/* A trace of `ranks` ranks with MPI_COMM_WORLD and MPI_COMM_SELF (of rank 0,
 * the self communicators are not told apart) defined; NULL when out of memory. */
fs_trace *fs_trace_new(int32_t ranks);
void fs_trace_free(fs_trace *t);

/* Appends a call to rank r, zeroed except peer, tag, recv_peer, recv_tag,
 * source, source_tag, root, flag, index (FS_TRACE_UNKNOWN), request (-1),
 * new_comm (FS_TRACE_UNKNOWN) and comm (FS_COMM_WORLD). NULL when out of memory. */
fs_call *fs_trace_add_call(fs_trace *t, int32_t r, fs_call_kind kind);
/* Gives back the room each rank's calls and list pool grew beyond their
 * counts (readers call it once the trace is complete: at 2^20 ranks the
 * slack of growing arrays was gigabytes). Never fails: a shrink that cannot
 * be done keeps the larger array. */
void fs_trace_trim(fs_trace *t);
/* Appends values to rank r's list pool; returns where they start or -1. */
int32_t fs_trace_add_list(fs_trace *t, int32_t r, const int64_t *values, int32_t count);
/* Finds the communicator with this id, or defines it with these members
 * (world ranks, copied); returns its index, or -1 when out of memory. A
 * second definition with the same id must list the same members: -2 if not. */
int32_t fs_trace_define_comm(fs_trace *t, int64_t id, const int32_t *members, int32_t size);
/* The index of the communicator with this id, or -1. */
int32_t fs_trace_find_comm(const fs_trace *t, int64_t id);
int fs_trace_set_file(fs_trace *t, int32_t r, const char *file);
int fs_trace_set_host(fs_trace *t, int32_t r, const char *host);

/* Recorded wall time of rank r: end of MPI_Init to start of MPI_Finalize
 * (-1 when the rank has no Init or no Finalize). */
fs_time fs_trace_wall_time(const fs_trace *t, int32_t r);

const char *fs_call_kind_name(fs_call_kind kind); /* "send", "allreduce"... */
int fs_call_kind_is_collective(fs_call_kind kind);
int fs_call_kind_is_send(fs_call_kind kind); /* any blocking or nonblocking send */

/* Reads a trace: a directory (of pmpi-trace-rank-N.txt, fennelsim's
 * rank-N.fstrace[.gz], an OTF2 anchor *.otf2, or SimGrid's per-rank files
 * listed by a description file), or a list of files. Detects the format
 * from the names and first lines. NULL on error, with file:line:column. */
fs_trace *fs_trace_read(const char *const *paths, int count, fs_error *err);
/* True when the path names something fs_trace_read takes (a directory, or a
 * file whose first line is a trace header), for `fennelsim run`; also
 * when memory ran out before it could tell (fs_trace_read then says so). */
int fs_trace_is_trace(const char *path);

#endif
