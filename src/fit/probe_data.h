/* probe_data.h: measurements of point-to-point experiments, as fennelprobe
 * (tools/probe) writes them on a real machine and `fennelsim probe` writes
 * them from a simulation: one row per experiment, placement, size and
 * ranks, with the statistics of its repetitions. The CSV schema is in
 * docs/PROBE.md; this is its in-memory form, read by `fennelsim fit`.
 *
 * Experiments (what one repetition times, on rank_a's clock unless said):
 *   roundtrip   a sends `bytes` to b, b sends `reply_bytes` back (both
 *               blocking); the round trip. a == b: send-to-self.
 *   ssend       a MPI_Ssend of `bytes` to b (b posted its recv first): the
 *               call's time (rendezvous forced).
 *   send_call   a MPI_Send of `bytes` to b: the call's time at a (its
 *               overhead when eager).
 *   train       a sends `count` messages of `bytes` to b back to back
 *               (Isend x count, Waitall); b, after receiving all, sends 0
 *               bytes back; until a has that reply.
 *   multicast   a puts `bytes` to each of `count` ranks (MPI_Put on a
 *               window, one after the other, then MPI_Win_flush_all):
 *               until the flush returns (the Fennel thesis' b-wide put
 *               multicast, §4.3).
 *   one_to_two  a sends `bytes` to b and to c at once (2 Isend, Waitall); b
 *               and c each reply `reply_bytes`; until a has both replies
 *               (the LMO estimation's triplets).
 *   ring        `count` processes (tau) in a ring, each MPI_Sendrecv of
 *               `bytes` to the next and from the previous, `placement` shm:
 *               all on one node; net: 2 tau processes round-robin on two
 *               nodes (the tau-Lop thesis §7.3.2-7.3.3); the time of one
 *               step, averaged over the ring's processes.
 *   memcpy      memcpy of `bytes` on rank a (the memory-copy cost).
 * Sizes may be strided: stride > 0 means the data is a vector of blocks of
 * `block` bytes every `stride` bytes (`bytes` in all), as log_n P measures.
 *
 * Statistics: `repetitions` timed runs (after warm-up), their minimum,
 * median and mean, and the half-width of the mean's 95% confidence
 * interval (0 when not computed). */
#ifndef FS_PROBE_DATA_H
#define FS_PROBE_DATA_H

#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/units.h"

typedef enum fs_experiment {
  FS_EXPERIMENT_ROUNDTRIP = 0,
  FS_EXPERIMENT_SSEND,
  FS_EXPERIMENT_SEND_CALL,
  FS_EXPERIMENT_TRAIN,
  FS_EXPERIMENT_MULTICAST,
  FS_EXPERIMENT_ONE_TO_TWO,
  FS_EXPERIMENT_RING,
  FS_EXPERIMENT_MEMCPY,
  FS_EXPERIMENTS
} fs_experiment;

typedef enum fs_placement { FS_PLACEMENT_SHM = 0, FS_PLACEMENT_NET = 1 } fs_placement;

typedef struct fs_probe_row {
  fs_experiment experiment;
  fs_placement placement; /* shm: the ranks share a node; net: they do not */
  int64_t bytes, reply_bytes;
  int64_t stride, block;          /* 0 0: contiguous */
  int32_t count;                  /* train length, multicast width, ring tau; else 1 */
  int32_t rank_a, rank_b, rank_c; /* -1 when unused */
  int64_t repetitions;
  fs_time min, median, mean, ci95; /* picoseconds */
  uint32_t line;                   /* in the CSV, for messages */
} fs_probe_row;

typedef struct fs_probe_data {
  fs_probe_row *rows;
  int64_t count, capacity;
  int32_t ranks; /* of the run that measured them (from the file's header) */
  char *source;  /* the file read, or "simulation" */
} fs_probe_data;

fs_probe_data *fs_probe_data_new(int32_t ranks);
void fs_probe_data_free(fs_probe_data *d);
/* Appends a row (copied); -1 when out of memory. */
int fs_probe_data_add(fs_probe_data *d, const fs_probe_row *row);
/* Reads the CSV of docs/PROBE.md; NULL with "FILE:LINE:COLUMN: expected ..."
 * Either form: the metadata in a first "# fennelprobe 1 ranks=P" line (stdout,
 * files before issue 16), or the column line first and the metadata in the
 * sidecar PATH.meta (files since; plain CSV for pandas). */
fs_probe_data *fs_probe_data_read(const char *path, fs_error *err);
/* The same from data[0..length) (fuzzing, tests); name stands for the file.
 * Only the '#' form: memory has no sidecar. */
fs_probe_data *fs_probe_data_read_memory(const char *data, size_t length, const char *name,
                                         fs_error *err);
/* Writes it (to a temporary name, renamed: atomic): PATH.meta holds the
 * "fennelprobe 1 ranks=P source=S" line, PATH starts with the column line;
 * "-" is stdout, with that line first as "# fennelprobe 1 ...". */
int fs_probe_data_write(const fs_probe_data *d, const char *path, fs_error *err);

const char *fs_experiment_name(fs_experiment e);              /* "roundtrip" ... */
int fs_experiment_from_name(const char *name, size_t length); /* -1 if unknown */

#endif
