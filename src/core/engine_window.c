/* engine_window.c: the engine's state of a rank-symmetric program
 * (core/symmetric.h) only for its live blocks. Block b (its P x width
 * tasks, ids b P width on) goes live when its first task is touched (a
 * completion counted for it, or ready at the outset) and dies when all its
 * tasks completed (and their local parts ended) and all its sends' messages
 * settled (matched, received, their recv completed): nothing refers to its
 * tasks' state then, except a late release of an any=K task, which reads a
 * dead task (engine_state.h).
 * A dead block's buffer goes to the next block that goes live: memory the
 * process touched once, so a run of 2^24 ranks costs a few blocks' state
 * instead of 12 bytes for each of its tasks, and no page faults for the
 * rest (docs/INTERNALS.md, "Rank-symmetric programs"). Task ids, the order
 * of events and so every result are those of the explicit engine. */
#include <stdlib.h>
#include <string.h>

#include "core/engine_state.h"

/* The things a block waits for, per rank: each task's completion; each
 * transfer's local part too (a model may deliver before the CPU part
 * ends: the local part still reads the task's place); each send's message
 * settling (matched, received, its recv completed; engine_steps.h). */
static int64_t block_things(const fs_engine *e, int32_t b) {
  const fs_symmetric *s = e->program->symmetric;
  int64_t things = 0;
  for (int32_t j = 0; j < s->width; j++) {
    int kind = s->task[b * s->width + j].kind;
    things += 1 + (kind >= FS_PUT) + (kind == FS_SEND);
  }
  return things * s->ranks;
}

task_state *fs_window_open(fs_engine *e, window_block *b) {
  task_window *w = &e->window;
  const fs_symmetric *s = e->program->symmetric;
  task_state *task;
  if (w->spare_count)
    task = w->spare[--w->spare_count];
  else if ((task = malloc((size_t)w->buffer_bytes)) != NULL)
    w->buffers++; /* at most the blocks live at once: the spares hold the others */
  if (!task) {
    fs_engine_fail_run(e, "out of memory for a block of a rank-symmetric program");
    return NULL;
  }
  int32_t index = (int32_t)(b - w->block), width = s->width;
  const fs_template_task *k = &s->task[index * width];
  for (uint32_t r = 0, i = 0; r < (uint32_t)s->ranks; r++)
    for (int32_t j = 0; j < width; j++) task[i++].remaining = k[j].need;
  if (w->two_sided) memset(task + w->block_tasks, 0, w->block_tasks);
  b->task = task;
  b->left = block_things(e, index);
  b->phase = BLOCK_LIVE;
  if (++w->live > w->live_peak) w->live_peak = w->live;
  return task;
}

void fs_window_close(fs_engine *e, window_block *b) {
  task_window *w = &e->window;
  w->spare[w->spare_count++] = b->task;
  b->task = NULL;
  b->phase = BLOCK_DEAD;
  w->live--;
}

int fs_window_reset(fs_engine *e) {
  task_window *w = &e->window;
  const fs_symmetric *s = e->program->symmetric;
  if (!w->block) {
    w->blocks = s->blocks;
    w->block_tasks = (uint32_t)s->ranks * (uint32_t)s->width;
    w->per_block = s->per_block;
    w->buffer_bytes = (int64_t)w->block_tasks * ((int64_t)sizeof(task_state) + w->two_sided);
    w->block = calloc((size_t)w->blocks, sizeof *w->block);
    w->spare = malloc((size_t)w->blocks * sizeof *w->spare);
    if (!w->block || !w->spare) {
      free(w->block), free(w->spare);
      w->block = NULL, w->spare = NULL, w->blocks = 0;
      return -1;
    }
  }
  for (int32_t b = 0; b < w->blocks; b++) {
    if (w->block[b].task) w->spare[w->spare_count++] = w->block[b].task;
    w->block[b] = (window_block){NULL, 0, BLOCK_UNBORN};
  }
  w->live = w->live_peak = 0;
  return 0;
}

void fs_window_free(fs_engine *e) {
  task_window *w = &e->window;
  for (int32_t b = 0; w->block && b < w->blocks; b++) free(w->block[b].task);
  for (int32_t i = 0; i < w->spare_count; i++) free(w->spare[i]);
  free(w->block);
  free(w->spare);
  *w = (task_window){0};
}

int64_t fs_window_stuck(const fs_engine *e) {
  const task_window *w = &e->window;
  int64_t stuck = 0;
  for (int32_t b = 0; b < w->blocks; b++) {
    const window_block *block = &w->block[b];
    if (block->phase == BLOCK_UNBORN) stuck += w->block_tasks; /* none was ever released */
    for (uint32_t i = 0; block->task && i < w->block_tasks; i++)
      stuck += block->task[i].remaining > 0;
  }
  return stuck;
}

int32_t fs_window_remaining(const fs_engine *e, int32_t t) {
  uint32_t i;
  const window_block *b = window_block_of(e, t, &i);
  if (b->task) return b->task[i].remaining;
  return b->phase == BLOCK_DEAD ? 0 : fs_task_need(e->program, t);
}
