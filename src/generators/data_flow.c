/* data_flow.c: the record of what each generated task does to the data
 * (see data_flow.h). Only tests ask for it, so it grows by doubling. */
#include "generators/data_flow.h"

#include <stdlib.h>
#include <string.h>

void fs_data_flow_init(fs_data_flow *flow) { memset(flow, 0, sizeof *flow); }

void fs_data_flow_free(fs_data_flow *flow) {
  free(flow->block_size), free(flow->action), free(flow->block_at), free(flow->block_count);
  free(flow->block);
  fs_data_flow_init(flow);
}

int fs_data_flow_begin(fs_data_flow *flow, fs_collective collective, int32_t root, int32_t blocks,
                       int64_t total_size) {
  fs_data_flow_free(flow);
  flow->collective = collective;
  flow->root = root;
  flow->blocks = blocks;
  if (blocks < 1 || total_size < 0 || !(flow->block_size = malloc((size_t)blocks * 8))) {
    flow->failed = 1;
    return -1;
  }
  for (int32_t b = 0; b < blocks; b++)
    flow->block_size[b] = total_size / blocks + (b < total_size % blocks);
  return 0;
}

static int grow_tasks(fs_data_flow *flow, int32_t task) {
  if (task < flow->task_capacity) return 0;
  int32_t capacity = flow->task_capacity ? flow->task_capacity : 64;
  while (capacity <= task) capacity *= 2;
  uint8_t *action = realloc(flow->action, (size_t)capacity);
  if (action) flow->action = action;
  int64_t *at = realloc(flow->block_at, (size_t)capacity * 8);
  if (at) flow->block_at = at;
  int32_t *count = realloc(flow->block_count, (size_t)capacity * 4);
  if (count) flow->block_count = count;
  if (!action || !at || !count) return -1;
  memset(action + flow->task_capacity, 0, (size_t)(capacity - flow->task_capacity));
  memset(count + flow->task_capacity, 0, (size_t)(capacity - flow->task_capacity) * 4);
  memset(at + flow->task_capacity, 0, (size_t)(capacity - flow->task_capacity) * 8);
  flow->task_capacity = capacity;
  return 0;
}

static int grow_blocks(fs_data_flow *flow, int32_t count) {
  if (flow->block && flow->block_used + count <= flow->block_capacity) return 0;
  int64_t capacity = flow->block_capacity ? flow->block_capacity : 256;
  while (capacity < flow->block_used + count) capacity *= 2;
  int32_t *block = realloc(flow->block, (size_t)capacity * 4);
  if (!block) return -1;
  flow->block = block;
  flow->block_capacity = capacity;
  return 0;
}

/* Room for task's `count` blocks; their slots, or NULL on failure. */
static int32_t *reserve(fs_data_flow *flow, int32_t task, fs_flow_action action, int32_t count) {
  if (flow->failed || task < 0 || count < 0 || grow_tasks(flow, task) || grow_blocks(flow, count)) {
    flow->failed = 1;
    return NULL;
  }
  flow->action[task] = (uint8_t)action;
  flow->block_at[task] = flow->block_used;
  flow->block_count[task] = count;
  if (task >= flow->tasks) flow->tasks = task + 1;
  int32_t *slots = flow->block + flow->block_used;
  flow->block_used += count;
  return slots;
}

int fs_data_flow_set(fs_data_flow *flow, int32_t task, fs_flow_action action, const int32_t *blocks,
                     int32_t count) {
  int32_t *slots = reserve(flow, task, action, count);
  if (!slots) return -1;
  for (int32_t i = 0; i < count; i++) {
    if (blocks[i] < 0 || blocks[i] >= flow->blocks) return flow->failed = 1, -1;
    slots[i] = blocks[i];
  }
  return 0;
}

int fs_data_flow_range(fs_data_flow *flow, int32_t task, fs_flow_action action, int32_t first,
                       int32_t count) {
  if (first < 0 || first >= flow->blocks || count > flow->blocks) return flow->failed = 1, -1;
  int32_t *slots = reserve(flow, task, action, count);
  if (!slots) return -1;
  for (int32_t i = 0; i < count; i++) slots[i] = (int32_t)(((int64_t)first + i) % flow->blocks);
  return 0;
}

const char *fs_collective_name(fs_collective collective) {
  static const char *const names[] = {"none",      "barrier",       "bcast",  "reduce",
                                      "allreduce", "scatter",       "gather", "allgather",
                                      "alltoall",  "reduce-scatter"};
  return (unsigned)collective < sizeof names / sizeof names[0] ? names[collective] : "?";
}
