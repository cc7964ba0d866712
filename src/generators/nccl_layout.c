/* nccl_layout.c: the channels, chunks and task builder of NCCL's
 * algorithms as generators (see nccl_layout.h). */
#include "generators/nccl_layout.h"

int fs_nccl_check(const char *name, const fs_generator_options *o, fs_error *err) {
  if (o->channels < 0 || o->channels > FS_NCCL_MAX_CHANNELS)
    return fs_error_set(err, "%s: --channels must be from 1 to %d, not %d", name,
                        FS_NCCL_MAX_CHANNELS, o->channels);
  if (o->chunk < 0)
    return fs_error_set(err, "%s: --chunk must be at least 1 byte, not %lld", name,
                        (long long)o->chunk);
  if (o->fifo != FS_NCCL_FIFO_UNLIMITED && (o->fifo < 0 || o->fifo > FS_NCCL_MAX_FIFO))
    return fs_error_set(err, "%s: --fifo must be from 0 (unlimited) to %d slots, not %d", name,
                        FS_NCCL_MAX_FIFO, o->fifo);
  if (o->protocol < FS_PROTOCOL_NONE || o->protocol >= FS_PROTOCOLS)
    return fs_error_set(err, "%s: --protocol must be LL, LL128 or Simple", name);
  return 0;
}

int fs_nccl_check_slices(const char *name, const fs_generator_options *o, int32_t steps,
                         fs_error *err) {
  if (o->slices && (o->slices < 1 || steps % o->slices))
    return fs_error_set(err,
                        "%s: --slices %d: a chunk here has %d FIFO slot%s; expected a divisor of "
                        "it (NCCL slices only Simple ring allreduce, allgather and reduce-scatter)",
                        name, o->slices, steps, steps == 1 ? "" : "s");
  return 0;
}

int32_t fs_nccl_slices(const fs_generator_options *o, int ring_simple_steps) {
  if (o->slices) return o->slices;
  return ring_simple_steps && fs_nccl_protocol(o) == FS_PROTOCOL_SIMPLE ? 2 : 1;
}

int64_t fs_nccl_slice_bytes(int64_t bytes, int64_t chunk, int32_t slices, int32_t j) {
  int64_t size = ((bytes - 1) / (16 * (int64_t)slices) + 1) * 16, least = chunk / slices / 32;
  if (bytes <= 0) size = 0;
  if (size < least) size = least;
  if (size <= 0) return j == 0 ? bytes : 0;
  if (j > (bytes - 1) / size) return 0; /* j * size >= bytes, without overflow */
  int64_t left = bytes - j * size;
  return left < size ? left : size;
}

int32_t fs_nccl_window(const fs_generator_options *o, int32_t slice_steps) {
  if (o->fifo == FS_NCCL_FIFO_UNLIMITED) return 0;
  int32_t slots = o->fifo ? o->fifo : FS_NCCL_STEPS, window = slots / slice_steps;
  return window < 1 ? 1 : window;
}

int32_t fs_nccl_channels(const fs_generator_options *o) { return o->channels ? o->channels : 1; }

int fs_nccl_protocol(const fs_generator_options *o) {
  return o->protocol ? o->protocol : FS_PROTOCOL_SIMPLE;
}

int64_t fs_nccl_chunk(const fs_generator_options *o, int ring_simple_steps) {
  if (o->chunk) return o->chunk;
  switch (fs_nccl_protocol(o)) {
    case FS_PROTOCOL_LL: return FS_NCCL_LL_CHUNK;
    case FS_PROTOCOL_LL128: return FS_NCCL_LL128_CHUNK;
    default: return ring_simple_steps ? FS_NCCL_SIMPLE_RING_CHUNK : FS_NCCL_SIMPLE_CHUNK;
  }
}

int64_t fs_nccl_channel_bytes(int64_t total, int32_t channels, int32_t c) {
  return total / channels + (c == channels - 1 ? total % channels : 0);
}

int64_t fs_nccl_channel_offset(int64_t total, int32_t channels, int32_t c) {
  return total / channels * c;
}

int64_t fs_nccl_loops(int64_t bytes, int64_t per, int64_t chunk) {
  if (bytes <= 0) return 0;
  if (chunk >= (bytes - 1) / per + 1) return 1; /* one loop holds it: per * chunk may overflow */
  return (bytes - 1) / (per * chunk) + 1;       /* per * chunk < bytes here */
}

int64_t fs_nccl_head_chunk_bytes(int64_t bytes, int32_t heads, int64_t chunk, int64_t loop,
                                 int32_t h, int64_t align) {
  int64_t loops = fs_nccl_loops(bytes, heads, chunk);
  int64_t rest = bytes - (loops - 1) * heads * chunk; /* (loops - 1) heads chunk < bytes */
  if (loop < loops - 1 || (rest % heads == 0 && rest / heads == chunk)) return chunk;
  int64_t q = ((rest - 1) / heads + align) / align * align;
  int64_t left = rest - h * q;
  return left <= 0 ? 0 : left < q ? left : q;
}

int64_t fs_nccl_loop_bytes(int64_t bytes, int32_t heads, int64_t chunk, int64_t loop,
                           int64_t align) {
  int64_t sum = 0;
  for (int32_t h = 0; h < heads; h++)
    sum += fs_nccl_head_chunk_bytes(bytes, heads, chunk, loop, h, align);
  return sum;
}

int fs_nccl_simple_only(const char *name, const char *algorithm, const fs_generator_options *o,
                        fs_error *err) {
  if (o->protocol == FS_PROTOCOL_NONE || o->protocol == FS_PROTOCOL_SIMPLE) return 0;
  return fs_error_set(err, "%s: NCCL runs %s with the Simple protocol only, not %s", name,
                      algorithm, fs_protocol_name(o->protocol));
}

int64_t fs_nccl_ring_chunk_bytes(int64_t bytes, int32_t k, int64_t chunk, int64_t loop, int32_t j) {
  int64_t loops = fs_nccl_loops(bytes, k, chunk);
  if (loop < loops - 1) return chunk;
  int64_t rest = bytes - (loops - 1) * k * chunk; /* (loops - 1) * k * chunk < bytes */
  int64_t q = ((rest - 1) / k + 16) / 16 * 16;    /* ceil(rest/k) rounded up to 16 B */
  if (q > chunk) q = chunk;
  int64_t left = rest - j * q;
  return left <= 0 ? 0 : left < q ? left : q;
}

int64_t fs_nccl_piece_bytes(int64_t bytes, int64_t chunk, int64_t loop) {
  int64_t left = bytes - loop * chunk;
  return left < chunk ? left : chunk;
}

int64_t fs_nccl_mul(int64_t a, int64_t b) {
  int64_t product;
  return __builtin_mul_overflow(a, b, &product) ? INT64_MAX : product;
}

int64_t fs_nccl_add(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}

/* Channel and protocol of a new task (CPU c, tag c: nothing stored for 0). */
static int place(fs_nccl_builder *b, int32_t t, fs_task_kind kind, int32_t channel) {
  fs_program *p = b->p;
  if (channel && fs_task_set_cpu(p, t, channel)) return -1;
  if (kind == FS_COMPUTE) return 0;
  if (channel && fs_task_set_tag(p, t, channel)) return -1;
  return fs_task_set_protocol(p, t, b->protocol);
}

int32_t fs_nccl_task(fs_nccl_builder *b, fs_task_kind kind, int32_t rank, int32_t peer,
                     int32_t channel, int64_t bytes, fs_flow_action action, int32_t block,
                     int32_t label) {
  if (!b->p) return (int32_t)b->tasks++;
  if (b->failed) return -1;
  int32_t t = kind == FS_COMPUTE ? fs_gen_add(b->p, kind, rank, label)
                                 : fs_gen_message(b->p, kind, rank, peer, bytes, label);
  if (t < 0 || place(b, t, kind, channel)) return b->failed = 1, -1;
  if (kind == FS_COMPUTE) {
    if (b->o->has_reduce_time)
      fs_task_set_time(b->p, t, b->o->reduce_time);
    else
      fs_task_set_size(b->p, t, bytes);
  }
  b->tasks++;
  b->failed |= fs_gen_flow_range(b->o, t, action, block, 1) != 0;
  return t;
}

int32_t fs_nccl_task_blocks(fs_nccl_builder *b, fs_task_kind kind, int32_t rank, int32_t peer,
                            int32_t channel, int64_t bytes, fs_flow_action action,
                            const int32_t *blocks, int32_t count, int32_t label) {
  if (!b->p) return (int32_t)b->tasks++;
  if (b->failed) return -1;
  int32_t t = fs_nccl_task(b, kind, rank, peer, channel, bytes, FS_FLOW_NONE, 0, label);
  b->failed |= t < 0 || fs_gen_flow_blocks(b->o, t, action, blocks, count) != 0;
  return t;
}

int32_t fs_nccl_task_on(fs_nccl_builder *b, fs_task_kind kind, int32_t rank, int32_t peer, int cpu,
                        int32_t tag, int64_t bytes, fs_flow_action action, const int32_t *blocks,
                        int32_t count, int32_t label) {
  int32_t t = fs_nccl_task_blocks(b, kind, rank, peer, 0, bytes, action, blocks, count, label);
  if (!b->p || b->failed) return t;
  if ((cpu && fs_task_set_cpu(b->p, t, cpu)) || (tag && fs_task_set_tag(b->p, t, tag)))
    b->failed = 1;
  return t;
}

void fs_nccl_depend(fs_nccl_builder *b, int32_t task, int32_t on) {
  if (on < 0) return;
  b->dependencies++;
  if (b->p && !b->failed) b->failed |= fs_program_depend(b->p, task, on, FS_AFTER_END) != 0;
}

int32_t fs_nccl_credit(fs_nccl_builder *b, int32_t receiver, int32_t sender, int32_t channel,
                       int32_t after, int32_t also, int32_t last[2]) {
  if (b->p && !b->credit_label) b->credit_label = 1 + fs_nccl_label(b, "credit", -1);
  int32_t label = b->credit_label - 1;
  int32_t send = fs_nccl_task(b, FS_SEND, receiver, sender, channel, 0, FS_FLOW_NONE, 0, label);
  fs_nccl_depend(b, send, after);
  fs_nccl_depend(b, send, also);
  fs_nccl_depend(b, send, last[0]);
  int32_t recv = fs_nccl_task(b, FS_RECV, sender, receiver, channel, 0, FS_FLOW_NONE, 0, label);
  fs_nccl_depend(b, recv, last[1]);
  last[0] = send, last[1] = recv;
  if (b->p && !b->failed)
    b->failed |= fs_task_set_tag(b->p, send, FS_NCCL_CREDIT_TAG + channel) ||
                 fs_task_set_tag(b->p, recv, FS_NCCL_CREDIT_TAG + channel) ||
                 fs_task_set_cpu(b->p, send, FS_NCCL_CREDIT_CPU + channel) ||
                 fs_task_set_cpu(b->p, recv, FS_NCCL_CREDIT_CPU + channel);
  return recv;
}

int32_t fs_nccl_label(fs_nccl_builder *b, const char *prefix, int32_t number) {
  if (!b->p) return 0;
  char text[48];
  int length = number >= 0 ? snprintf(text, sizeof text, "%s%d", prefix, number)
                           : snprintf(text, sizeof text, "%s", prefix);
  int32_t label = fs_program_add_label(b->p, text, length);
  b->failed |= label < 0;
  return label;
}

fs_program *fs_nccl_generate(const char *name, const fs_generator_options *o, int64_t estimate,
                             void (*build)(fs_nccl_builder *b, void *state),
                             int (*begin_flow)(const fs_generator_options *o, void *state),
                             void *state, fs_error *err) {
  if (estimate > FS_MAX_TASKS) return fs_gen_begin(name, o->ranks, estimate, 0, err);
  fs_nccl_builder b = {NULL, o, 0, 0, fs_nccl_protocol(o), 0, 0};
  build(&b, state); /* counting */
  if (b.failed) {
    fs_error_set(err, "%s: out of memory counting the tasks of %d ranks", name, o->ranks);
    return NULL;
  }
  int64_t tasks = b.tasks, dependencies = b.dependencies;
  b.p = fs_gen_begin(name, o->ranks, tasks, dependencies, err);
  if (!b.p) return NULL;
  b.tasks = b.dependencies = 0;
  b.failed = o->flow && begin_flow(o, state) != 0;
  if (!b.failed) build(&b, state);
  return fs_gen_finish_options(name, b.p, tasks, dependencies, b.failed, o, err);
}
