/* nccl_layout.h: what NCCL's algorithms as generators share (nccl_ring.c,
 * nccl_tree.c): the options --channels, --chunk and --protocol, how a
 * vector is split across channels and cut into chunks, and a two-pass
 * builder (count, then add) whose tasks carry their channel as CPU and tag
 * and the protocol on every transfer.
 *
 * Channels (NCCL 2.30.7's ncclChannel: one CUDA block per rank with its own
 * connections) are CPUs: channel c is CPU c of every rank, so channels run
 * in parallel and the tasks of one channel one at a time. A channel's
 * messages use tag c, its own FIFO between two ranks, as NCCL's per-channel
 * connections are. Channel c takes the contiguous byte range
 * [c*floor(B/C), ...) of floor(B/C) bytes, the last one also the remainder
 * (NCCL deals out cells of about 32 KiB/traffic so that channels carry
 * nearly equal traffic; equal ranges are the same up to a cell). */
#ifndef FS_NCCL_LAYOUT_H
#define FS_NCCL_LAYOUT_H

#include "generators/generator_support.h"

/* NCCL's chunk (bytes a step moves per channel) by protocol: Simple 2 MiB
 * for ring allreduce, allgather and reduce-scatter (4 FIFO slots of
 * 512 KiB), 512 KiB for the others; LL 32 KiB; LL128 576000 B. */
#define FS_NCCL_SIMPLE_RING_CHUNK (2 * 1024 * 1024)
#define FS_NCCL_SIMPLE_CHUNK (512 * 1024)
#define FS_NCCL_LL_CHUNK (32 * 1024)
#define FS_NCCL_LL128_CHUNK 576000

/* --channels, --chunk and --protocol within their limits; 0 or -1 with err. */
int fs_nccl_check(const char *name, const fs_generator_options *o, fs_error *err);

/* --slices within its limits for a generator whose chunk has `steps` FIFO
 * slots (4 for Simple ring allreduce, allgather, reduce-scatter): 1, 2 or
 * 4 dividing them; 0 or -1 with err. */
int fs_nccl_check_slices(const char *name, const fs_generator_options *o, int32_t steps,
                         fs_error *err);

/* The channels (--channels, default 1) and the protocol (default Simple). */
int32_t fs_nccl_channels(const fs_generator_options *o);
int fs_nccl_protocol(const fs_generator_options *o);

/* NCCL_STEPS: the slots of a connection's FIFO. */
#define FS_NCCL_STEPS 8

/* The slices of a chunk: --slices, else NCCL's (chunkSteps/sliceSteps):
 * 2 for Simple ring allreduce, allgather and reduce-scatter
 * (`ring_simple_steps`), 1 for everything else. */
int32_t fs_nccl_slices(const fs_generator_options *o, int ring_simple_steps);

/* The bytes of slice j (0..slices-1) of a chunk of `bytes` when a full
 * chunk is `chunk` bytes, by NCCL's rule (prims_simple.h, 1-byte
 * elements): a slice is max(16 ceil(bytes / (16 slices)), chunk / slices /
 * 32) bytes, the last ones shorter or empty (an empty slice still takes its
 * FIFO step). */
int64_t fs_nccl_slice_bytes(int64_t bytes, int64_t chunk, int32_t slices, int32_t j);

/* FIFO credits. A sender may be at most --fifo slots (NCCL_STEPS = 8)
 * ahead of its receiver, which returns a slot once it has consumed it by
 * writing its head counter into the sender's memory: here a message of 0
 * bytes from receiver to sender, with tag FS_NCCL_CREDIT_TAG + channel
 * (apart from the data, which a 2-rank ring also sends that way), carrying
 * no data. Its send and recv run on CPU FS_NCCL_CREDIT_CPU + channel, not
 * the channel's: NCCL's store of a counter does not hold the channel's
 * threads, so a credit costs its latency only where a sender waits for it.
 * The send of slice n + window waits for the credit of slice n. */
#define FS_NCCL_CREDIT_TAG FS_NCCL_MAX_CHANNELS
#define FS_NCCL_CREDIT_CPU FS_NCCL_MAX_CHANNELS

/* The slices a sender may run ahead when a slice takes `slice_steps`
 * slots: --fifo (default 8) / slice_steps, at least 1; 0 with --fifo 0
 * (unlimited: no credits). */
int32_t fs_nccl_window(const fs_generator_options *o, int32_t slice_steps);

/* --chunk, or NCCL's default for the protocol; `ring_simple_steps` for the
 * collectives whose Simple chunk is 4 slots (ring allreduce, allgather,
 * reduce-scatter). */
int64_t fs_nccl_chunk(const fs_generator_options *o, int ring_simple_steps);

/* The bytes of channel c of `channels` over a vector of `total` bytes, and
 * where they start. */
int64_t fs_nccl_channel_bytes(int64_t total, int32_t channels, int32_t c);
int64_t fs_nccl_channel_offset(int64_t total, int32_t channels, int32_t c);

/* ceil(bytes / (per * chunk)): the loops of a channel of `bytes` when a
 * loop moves `per` chunks (0 for 0 bytes), without overflow. */
int64_t fs_nccl_loops(int64_t bytes, int64_t per, int64_t chunk);

/* Ring allreduce: the bytes of chunk j (0..k-1) of loop `loop` of a
 * channel of `bytes` (full loops: `chunk` each; the last loop's rest r is
 * cut into k chunks of q = min(chunk, roundup(ceil(r/k), 16)) bytes, the
 * last ones shorter or empty, as NCCL's runRing rounds the chunk count). */
int64_t fs_nccl_ring_chunk_bytes(int64_t bytes, int32_t k, int64_t chunk, int64_t loop, int32_t j);

/* The bytes of piece `loop` of a channel of `bytes` cut into `chunk`-byte
 * pieces (the last shorter). */
int64_t fs_nccl_piece_bytes(int64_t bytes, int64_t chunk, int64_t loop);

/* NVLS and NVLSTree: the bytes of head h's chunk (0..heads-1) in loop
 * `loop` of a channel of `bytes`: `chunk` in full loops; the last loop's
 * rest r in chunks of ceil(r/heads) rounded up to `align`, the last heads'
 * shorter or empty. */
int64_t fs_nccl_head_chunk_bytes(int64_t bytes, int32_t heads, int64_t chunk, int64_t loop,
                                 int32_t h, int64_t align);
/* The sum of those heads' chunks: the bytes of loop `loop`. */
int64_t fs_nccl_loop_bytes(int64_t bytes, int32_t heads, int64_t chunk, int64_t loop,
                           int64_t align);
/* NVLS, NVLSTree and CollNet run with NCCL's Simple protocol only: 0, or
 * -1 with "NAME: NCCL runs ALGORITHM with the Simple protocol only, not P". */
int fs_nccl_simple_only(const char *name, const char *algorithm, const fs_generator_options *o,
                        fs_error *err);

/* The builder: counts while p is NULL (ids are then the count, so
 * dependencies are counted alike), else adds. */
typedef struct fs_nccl_builder {
  fs_program *p;
  const fs_generator_options *o;
  int64_t tasks, dependencies;
  int protocol;
  int failed;
  int32_t credit_label; /* 1 + the label of credits, 0 before the first */
} fs_nccl_builder;

/* A send or recv of `bytes` to/from peer, or a reduce of `bytes` (a
 * compute of --reduce-time, else of size=bytes), on `channel`, doing
 * `action` on flow block `block`; its id. */
int32_t fs_nccl_task(fs_nccl_builder *b, fs_task_kind kind, int32_t rank, int32_t peer,
                     int32_t channel, int64_t bytes, fs_flow_action action, int32_t block,
                     int32_t label);

/* fs_nccl_task for a message or reduce of several flow blocks (the
 * `count` listed; PAT aggregates blocks of several ranks in one message). */
int32_t fs_nccl_task_blocks(fs_nccl_builder *b, fs_task_kind kind, int32_t rank, int32_t peer,
                            int32_t channel, int64_t bytes, fs_flow_action action,
                            const int32_t *blocks, int32_t count, int32_t label);

/* fs_nccl_task_blocks on CPU `cpu` with tag `tag` (0: the defaults, none
 * stored), instead of a channel's CPU and tag (the switch ranks' ports). */
int32_t fs_nccl_task_on(fs_nccl_builder *b, fs_task_kind kind, int32_t rank, int32_t peer, int cpu,
                        int32_t tag, int64_t bytes, fs_flow_action action, const int32_t *blocks,
                        int32_t count, int32_t label);

/* task waits for `on` to end; nothing when on < 0. */
void fs_nccl_depend(fs_nccl_builder *b, int32_t task, int32_t on);

/* A new label (nothing while counting). */
int32_t fs_nccl_label(fs_nccl_builder *b, const char *prefix, int32_t number);

/* Runs build(b, state) twice, counting then adding, after refusing a
 * program of more than FS_MAX_TASKS tasks (`estimate`, saturated); the
 * finished program or NULL with err set. begin_flow declares the data flow
 * (called before the adding pass when o->flow is set). */
fs_program *fs_nccl_generate(const char *name, const fs_generator_options *o, int64_t estimate,
                             void (*build)(fs_nccl_builder *b, void *state),
                             int (*begin_flow)(const fs_generator_options *o, void *state),
                             void *state, fs_error *err);

/* The credit of a slot: a send of 0 bytes from `receiver` to `sender` on
 * `channel` after `after` and `also` (-1: none), and its recv at the
 * sender; the connection's credits in order: the send after last[0] (the
 * connection's previous credit send), the recv after last[1] (its recv),
 * both updated; the recv's id. */
int32_t fs_nccl_credit(fs_nccl_builder *b, int32_t receiver, int32_t sender, int32_t channel,
                       int32_t after, int32_t also, int32_t last[2]);

/* a * b and a + b saturated at INT64_MAX (task estimates). */
int64_t fs_nccl_mul(int64_t a, int64_t b);
int64_t fs_nccl_add(int64_t a, int64_t b);

#endif
