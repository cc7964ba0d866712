/* msccl_reader.h: reads an MSCCL XML algorithm (the schedules that
 * Microsoft's MSCCL executor for NCCL runs; docs/FORMATS.md, "MSCCL XML
 * schedules") into a compact structure: GPUs, their thread blocks (tbs),
 * and each tb's steps in order.
 *
 *   <algo name proto nchannels nchunksperloop ngpus coll inplace outofplace
 *         minBytes maxBytes [nthreads]>
 *     <gpu id i_chunks o_chunks s_chunks>
 *       <tb id send recv chan>
 *         <step s type srcbuf srcoff dstbuf dstoff cnt depid deps hasdep/>
 *
 * Both dialects are read: Azure's msccl-executor-nccl (all of algo's
 * attributes but name required, coll "reducescatter") and microsoft/msccl
 * 0.1 (no outofplace, minBytes and maxBytes optional, coll
 * "reduce_scatter", nthreads). Everything the executor would trip over is
 * refused with "FILE:LINE: expected ...": missing or unknown attributes,
 * values out of range, chunk ranges past a buffer, steps or tbs out of
 * order, a dependency on a step that does not exist or does not publish
 * its completion (hasdep="1"), a send without the matching receive in the
 * FIFO of its (channel, sender, receiver) or with another cnt, two tbs of a
 * GPU on one (channel, peer) connection, and dependency cycles (the
 * schedule could never finish). Limits: the FS_MSCCL_MAX_* below. */
#ifndef FS_MSCCL_READER_H
#define FS_MSCCL_READER_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define FS_MSCCL_MAX_BYTES ((size_t)64 << 20) /* of XML */
#define FS_MSCCL_MAX_ELEMENTS 1000000
#define FS_MSCCL_MAX_GPUS 4096
#define FS_MSCCL_MAX_TBS 256          /* per GPU: a tb is one of its rank's CPUs, 0..255 */
#define FS_MSCCL_MAX_STEPS 256        /* per tb: s is 0..255 */
#define FS_MSCCL_MAX_CHANNELS 64      /* nchannels; chan is 0..nchannels-1 */
#define FS_MSCCL_MAX_CHUNKS (1 << 20) /* nchunksperloop and each buffer's chunks */
#define FS_MSCCL_MAX_CNT 71           /* chunks a step moves (MSCCL's 0 < cnt < 72) */
#define FS_MSCCL_MAX_NTHREADS 1024
#define FS_MSCCL_MAX_NAME 63

typedef enum fs_msccl_coll {
  FS_MSCCL_ALLREDUCE = 0,
  FS_MSCCL_ALLGATHER,
  FS_MSCCL_REDUCESCATTER,
  FS_MSCCL_BROADCAST,
  FS_MSCCL_REDUCE,
  FS_MSCCL_ALLTOALL,
  FS_MSCCL_ALLTOALLV,
  FS_MSCCL_GATHER,
  FS_MSCCL_SCATTER,
  FS_MSCCL_SEND,
  FS_MSCCL_RECV,
  FS_MSCCL_CUSTOM,
  FS_MSCCL_COLLS
} fs_msccl_coll;

typedef enum fs_msccl_type {
  FS_MSCCL_S = 0, /* send src */
  FS_MSCCL_R,     /* receive into dst */
  FS_MSCCL_RCS,   /* receive into dst, forward */
  FS_MSCCL_RRS,   /* receive, reduce with src, send the sum */
  FS_MSCCL_RRC,   /* receive, reduce with src into dst */
  FS_MSCCL_RRCS,  /* receive, reduce with src into dst, send the sum */
  FS_MSCCL_CPY,   /* dst = src */
  FS_MSCCL_RE,    /* dst = dst + src */
  FS_MSCCL_NOP,   /* only waits for its dependency */
  FS_MSCCL_TYPES
} fs_msccl_type;

enum fs_msccl_buffer { FS_MSCCL_INPUT = 0, FS_MSCCL_OUTPUT, FS_MSCCL_SCRATCH, FS_MSCCL_BUFFERS };

typedef struct fs_msccl_step {
  uint8_t type;           /* fs_msccl_type */
  uint8_t srcbuf, dstbuf; /* fs_msccl_buffer */
  uint8_t cnt;            /* chunks moved, 1..FS_MSCCL_MAX_CNT (nop: 0 allowed) */
  uint8_t hasdep;
  int16_t depid, deps; /* tb and step of this GPU it waits for, -1 -1: none */
  int32_t srcoff, dstoff;
  int32_t tb;       /* global index of its tb */
  int32_t from, to; /* global index of the matched send (receiving types) and of the
                       matched receive (sending types), else -1 */
  int32_t line;
} fs_msccl_step;

typedef struct fs_msccl_tb {
  int32_t send, recv, chan; /* peers (-1: none) and channel */
  int32_t first, count;     /* its steps: step[first .. first+count) */
  int32_t gpu, line;
} fs_msccl_tb;

typedef struct fs_msccl_gpu {
  int32_t chunks[FS_MSCCL_BUFFERS]; /* i_chunks, o_chunks, s_chunks */
  int32_t first, count;             /* its tbs: tb[first .. first+count) */
  int32_t line;
} fs_msccl_gpu;

typedef struct fs_msccl {
  char name[FS_MSCCL_MAX_NAME + 1]; /* "" when absent */
  int proto;                        /* an fs_protocol (core/program.h) */
  fs_msccl_coll coll;
  int32_t nchannels, nchunksperloop, ngpus, nthreads; /* nthreads 0: not given */
  int inplace, outofplace;                            /* outofplace 1 when not given */
  int64_t min_bytes, max_bytes;                       /* 0 when not given (max 0: no limit) */
  fs_msccl_gpu *gpu;                                  /* ngpus, by id */
  fs_msccl_tb *tb;                                    /* tbs, GPU by GPU */
  fs_msccl_step *step;                                /* steps, tb by tb */
  int32_t tbs, steps;
} fs_msccl;

/* The algorithm, or NULL with err set ("FILE:LINE: expected ..."). */
fs_msccl *fs_msccl_read(const char *path, fs_error *err);
/* The same from data[0..length); name stands for the file in messages. */
fs_msccl *fs_msccl_read_memory(const char *data, size_t length, const char *name, fs_error *err);
void fs_msccl_free(fs_msccl *m);

/* "allreduce", ..., the executor's spelling ("reducescatter"). */
const char *fs_msccl_coll_name(fs_msccl_coll coll);
/* "s", "r", "rcs", ... */
const char *fs_msccl_type_name(fs_msccl_type type);
/* What a step type does (each explained in docs/FORMATS.md). */
static inline int fs_msccl_receives(int type) {
  return type >= FS_MSCCL_R && type <= FS_MSCCL_RRCS;
}
static inline int fs_msccl_sends(int type) {
  return type == FS_MSCCL_S || type == FS_MSCCL_RCS || type == FS_MSCCL_RRS ||
         type == FS_MSCCL_RRCS;
}
static inline int fs_msccl_reduces(int type) {
  return type == FS_MSCCL_RRS || type == FS_MSCCL_RRC || type == FS_MSCCL_RRCS ||
         type == FS_MSCCL_RE;
}
/* The step reads src / writes dst (so their chunk ranges are checked). */
static inline int fs_msccl_reads_src(int type) {
  return type == FS_MSCCL_S || type == FS_MSCCL_RRS || type == FS_MSCCL_RRC ||
         type == FS_MSCCL_RRCS || type == FS_MSCCL_CPY || type == FS_MSCCL_RE;
}
static inline int fs_msccl_writes_dst(int type) {
  return type == FS_MSCCL_R || type == FS_MSCCL_RCS || type == FS_MSCCL_RRC ||
         type == FS_MSCCL_RRCS || type == FS_MSCCL_CPY || type == FS_MSCCL_RE;
}

/* The steps step i waits for: the previous step of its tb, its depid/deps
 * step, the send it receives; writes up to 3 global indices, returns how
 * many. */
int fs_msccl_predecessors(const fs_msccl *m, int32_t i, int32_t out[3]);
/* A topological order of the steps under fs_msccl_predecessors (Kahn's,
 * the heads of the tbs first, in file order) into order[0..steps); the
 * count placed, less than steps when there is a cycle; -1 when out of
 * memory. */
int64_t fs_msccl_order(const fs_msccl *m, int32_t *order);

#endif
