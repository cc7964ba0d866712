/* data_flow.h: what each task of a generated schedule does to the ranks'
 * data, recorded on request (fs_generator_options.flow) so that a checker
 * can prove a schedule computes its collective: every rank's result
 * combines every contribution exactly once for reductions, holds exactly
 * one copy of each block for gathers, the root's data for broadcasts.
 *
 * The model: each rank has a buffer of `blocks` blocks (block ids are
 * global: block b of every rank's buffer is the same piece of the
 * collective's data). A send or put reads a list of blocks of its rank's
 * buffer into its message; a recv writes its message into the same blocks
 * of its rank's buffer (WRITE) or keeps it in a temporary (TEMP) that a
 * later compute combines into the buffer (COMBINE); a put's message goes to
 * the target's buffer (PUT_WRITE) or to a temporary there (PUT_TEMP) at
 * its remote completion. Where a collective starts (which rank holds which
 * block) and what it must end with follow from `collective` and `root`.
 *
 * Generators call fs_data_flow_set through the fs_gen_flow_* helpers of
 * generator_support.h, which do nothing when no flow was asked for, so the
 * cost outside tests is one pointer test per task. */
#ifndef FS_DATA_FLOW_H
#define FS_DATA_FLOW_H

#include <stdint.h>

typedef enum fs_collective {
  FS_COLLECTIVE_NONE = 0,       /* no data semantics (pingpong, multicast): not checked */
  FS_COLLECTIVE_BARRIER,        /* every rank's exit after every rank's entry */
  FS_COLLECTIVE_BCAST,          /* root holds every block; all must end with them */
  FS_COLLECTIVE_REDUCE,         /* every rank contributes to every block; root ends with the sums */
  FS_COLLECTIVE_ALLREDUCE,      /* as reduce, every rank ends with the sums */
  FS_COLLECTIVE_SCATTER,        /* root holds blocks 0..N-1; rank r must end with block r */
  FS_COLLECTIVE_GATHER,         /* rank r holds block r; root must end with all N */
  FS_COLLECTIVE_ALLGATHER,      /* rank r holds block r; all must end with all N */
  FS_COLLECTIVE_ALLTOALL,       /* block s*N+d starts on rank s and must end on rank d */
  FS_COLLECTIVE_REDUCE_SCATTER, /* every rank contributes to every block; rank r must end
                                   with the sums of its blocks (block r) */
} fs_collective;
#define FS_COLLECTIVE_LAST FS_COLLECTIVE_REDUCE_SCATTER

/* Scatter, gather, allgather and reduce-scatter: with blocks = m*N, rank r's
 * block is blocks r*m .. r*m+m-1 (m = 1: block r), so that a schedule can
 * move a rank's block in pieces. */

typedef enum fs_flow_action {
  FS_FLOW_NONE = 0,     /* touches no data (a start, a sleep, a plain compute) */
  FS_FLOW_READ,         /* send: reads the blocks of its rank's buffer */
  FS_FLOW_WRITE,        /* recv: writes its message into those blocks of its buffer */
  FS_FLOW_TEMP,         /* recv: keeps its message for a compute that depends on it */
  FS_FLOW_COMBINE,      /* compute: combines the temporaries it depends on into the blocks */
  FS_FLOW_PUT_WRITE,    /* put: reads at the source, writes the target's buffer */
  FS_FLOW_PUT_TEMP,     /* put: reads at the source, a temporary on the target */
  FS_FLOW_RECV_COMBINE, /* recv: combines its message into the blocks on arrival (the
                           reduce folded into the receive, as in schedgen's patterns,
                           which have no compute tasks) */
} fs_flow_action;

typedef struct fs_data_flow {
  fs_collective collective;
  int32_t root;
  int32_t blocks;      /* blocks per rank buffer */
  int32_t data_ranks;  /* ranks 0..data_ranks-1 hold the collective's data; 0: all the
                          program's ranks. Ranks from data_ranks up stand for a switch
                          that reduces in the network (NCCL's NVLS: nccl_nvls.c): their
                          buffers start empty, they only combine and forward what they
                          receive, and the collective owes them nothing */
  int64_t *block_size; /* bytes of each block; a generator whose message sizes are not
                            sums of blocks (schedgen's halving by integer division)
                            frees it and sets NULL: sizes are then not checked */
  int32_t tasks;       /* tasks annotated so far (highest id + 1) */
  int32_t task_capacity;
  uint8_t *action;      /* per task, an fs_flow_action */
  int64_t *block_at;    /* per task: its blocks are block[block_at[t] ..] */
  int32_t *block_count; /* .. and there are block_count[t] of them */
  int32_t *block;
  int64_t block_used, block_capacity;
  int failed; /* out of memory or a bad call: the record is unusable */
} fs_data_flow;

/* An empty record (all zero); fs_data_flow_free releases what it holds. */
void fs_data_flow_init(fs_data_flow *flow);
void fs_data_flow_free(fs_data_flow *flow);

/* Called once by the generator: the collective and its buffer. Block sizes
 * start as size/blocks with the remainder on the first blocks; change them
 * through flow->block_size when the generator splits otherwise. */
int fs_data_flow_begin(fs_data_flow *flow, fs_collective collective, int32_t root, int32_t blocks,
                       int64_t total_size);

/* Task t reads/writes/combines the `count` listed blocks. 0, or -1 (and
 * flow->failed set) when out of memory or a block is out of range. */
int fs_data_flow_set(fs_data_flow *flow, int32_t task, fs_flow_action action, const int32_t *blocks,
                     int32_t count);

/* The same for the cyclic range first, first+1, ... (mod blocks), count long. */
int fs_data_flow_range(fs_data_flow *flow, int32_t task, fs_flow_action action, int32_t first,
                       int32_t count);

static inline fs_flow_action fs_data_flow_action(const fs_data_flow *flow, int32_t task) {
  return task < flow->tasks ? (fs_flow_action)flow->action[task] : FS_FLOW_NONE;
}

const char *fs_collective_name(fs_collective collective);

#endif
