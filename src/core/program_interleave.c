/* program_interleave.c: renumbers a finalized explicit program whose ranks
 * hold W tasks each, numbered rank by rank (a GOAL file's blocks), position
 * by position: rank r's j-th task becomes task j x ranks + r. The run is
 * the same (program.h); what changes is memory: a lock-step round's tasks
 * sit together, where rank by rank every step of a round read a cache line
 * of its own in each of the program's arrays (a 2^20-rank barrier from
 * GOAL text simulated in 5.5-6.5 s, the same program numbered round by
 * round in 3-4 s). Every array is transposed through one scratch buffer and
 * copied back, so only the scratch and the successor lists are fresh
 * memory, and nothing can fail once they are allocated; the successor
 * lists are renumbered on a second thread meanwhile. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/program.h"

enum { BLOCK_RANKS = 16 }; /* rows transposed at once: their W columns stay in cache */

#define TRANSPOSE(name, type)                                                 \
  static void name(type *out, const type *in, int64_t ranks, int64_t w) {     \
    for (int64_t r0 = 0; r0 < ranks; r0 += BLOCK_RANKS) {                     \
      int64_t r1 = r0 + BLOCK_RANKS < ranks ? r0 + BLOCK_RANKS : ranks;       \
      for (int64_t j = 0; j < w; j++)                                         \
        for (int64_t r = r0; r < r1; r++) out[j * ranks + r] = in[r * w + j]; \
    }                                                                         \
  }
TRANSPOSE(transpose_1, uint8_t)
TRANSPOSE(transpose_4, uint32_t)
TRANSPOSE(transpose_8, uint64_t)

/* Transposes an array (NULL: absent) of `size`-byte elements in place. */
static void renumber_array(void *array, size_t size, void *scratch, int64_t ranks, int64_t w) {
  if (!array) return;
  if (size == 1) transpose_1(scratch, array, ranks, w);
  if (size == 4) transpose_4(scratch, array, ranks, w);
  if (size == 8) transpose_8(scratch, array, ranks, w);
  memcpy(array, scratch, (size_t)(ranks * w) * size);
}

/* W when every rank holds W >= 2 tasks, rank by rank; else 0. */
static int64_t rank_width(const fs_program *p) {
  int64_t ranks = p->ranks, tasks = p->tasks;
  if (p->symmetric || !p->finalized || p->interleaved || ranks < 2 || tasks % ranks ||
      tasks / ranks < 2)
    return 0;
  int64_t w = tasks / ranks;
  for (int64_t t = 0; t < tasks; t++)
    if (p->rank[t] != t / w) return 0;
  return w;
}

/* The successor lists renumbered, each in its order (the run releases in
 * it): built into fresh arrays, on a thread of their own beside the
 * transposes (they read only the old lists). */
typedef struct successor_job {
  const fs_program *p;
  int64_t ranks, w;
  uint32_t *at, *successor;
} successor_job;

static void *renumber_successors(void *argument) {
  successor_job *job = argument;
  const fs_program *p = job->p;
  int64_t ranks = job->ranks, w = job->w, tasks = ranks * w;
  uint32_t next = 0;
  for (int64_t n = 0; n < tasks; n++) {
    int64_t t = (n % ranks) * w + n / ranks;
    job->at[n] = next;
    for (uint32_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
      uint32_t entry = p->successor[e];
      int64_t s = FS_EDGE_TASK(entry);
      job->successor[next++] = (entry & (FS_EDGE_LOCAL | FS_EDGE_START)) |
                               (uint32_t)((s % w) * ranks + s / w);
    }
  }
  job->at[tasks] = job->at[tasks + 1] = next;
  return NULL;
}

int fs_program_interleave(fs_program *p) {
  int64_t w = rank_width(p), ranks = p->ranks, tasks = p->tasks;
  if (!w) return 0;
  size_t deps = (size_t)p->dependencies;
  successor_job job = {p, ranks, w, malloc((size_t)(tasks + 2) * sizeof *job.at),
                       malloc((deps ? deps : 1) * sizeof *job.successor)};
  uint64_t *scratch = malloc((size_t)tasks * sizeof *scratch);
  if (!job.at || !job.successor || !scratch) {
    free(job.at), free(job.successor), free(scratch);
    return -1;
  }
  fs_memory_huge_pages(job.at, (size_t)(tasks + 2) * sizeof *job.at);
  fs_memory_huge_pages(job.successor, deps * sizeof *job.successor);
  fs_memory_huge_pages(scratch, (size_t)tasks * sizeof *scratch);
  pthread_t thread;
  int threaded = pthread_create(&thread, NULL, renumber_successors, &job) == 0;
  if (!threaded) renumber_successors(&job);
  renumber_array(p->kind, 1, scratch, ranks, w), renumber_array(p->flags, 1, scratch, ranks, w);
  renumber_array(p->rank, 4, scratch, ranks, w), renumber_array(p->peer, 4, scratch, ranks, w);
  renumber_array(p->value, 8, scratch, ranks, w), renumber_array(p->need, 4, scratch, ranks, w);
  renumber_array(p->label, 4, scratch, ranks, w), renumber_array(p->tag, 4, scratch, ranks, w);
  renumber_array(p->stride, 8, scratch, ranks, w), renumber_array(p->cpu, 1, scratch, ranks, w);
  renumber_array(p->nic, 1, scratch, ranks, w);
  renumber_array(p->protocol, 1, scratch, ranks, w);
  renumber_array(p->name_at, 8, scratch, ranks, w);
  free(scratch);
  if (threaded) pthread_join(thread, NULL);
  free(p->successor_at), free(p->successor);
  p->successor_at = job.at, p->successor = job.successor;
  p->interleaved = (int32_t)w;
  return 1;
}
