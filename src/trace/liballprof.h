/* liballprof.h: what the files of the liballprof reader share, for them
 * only (liballprof_reader.c reads the lines; liballprof_calls.c is the
 * table of MPI calls and their arguments; liballprof_comms.c finds the
 * communicators' members across ranks). The public entry is
 * fs_liballprof_read in trace/trace_readers.h. */
#ifndef FS_LIBALLPROF_H
#define FS_LIBALLPROF_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "trace/trace.h"

/* A call's comm before the communicators are resolved: the rank's local index. */
#define COMM_PENDING(local) (-(local)-3)

/* A communicator as one rank names it. */
typedef struct comm_use {
  uint64_t handle;
  int32_t rank, size;
  int64_t line, column; /* its first use, for messages */
  int32_t index;        /* in the trace, once resolved */
} comm_use;

typedef struct rank_comms {
  comm_use *use;
  int32_t count, capacity;
} rank_comms;

/* Argument letters: b address (buffer, status, flag...), n count, d datatype,
 * D destination, S source, t tag, T receive tag, c communicator, r request
 * address, q request count, a request array, o op, R root, v count array,
 * w count array or address alone, i any integer. */
typedef struct call_form {
  const char *name;
  fs_call_kind kind;
  const char *arguments;
} call_form;

/* The form of the MPI call name[0..length), NULL when it is not simulated. */
const call_form *fs_liballprof_form(const char *name, size_t length);

/* Defines the communicators that comms[0..t->ranks) name in t and replaces
 * each call's COMM_PENDING by its index; -1 with err set
 * ("FILE:LINE:COLUMN: ..." at the first use) when the ranks that name a
 * handle do not fit together. */
int fs_liballprof_resolve_comms(fs_trace *t, rank_comms *comms, fs_error *err);

#endif
