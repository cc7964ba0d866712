/* engine_populate.c: maps an explicit program's task records and
 * two-sided flags on a second thread while the run begins. Fresh memory
 * costs a page fault at its first touch: on the development machine about
 * 12-19 us a 4 KiB page (a third of a 2^20-rank barrier's simulation), and
 * with the huge pages the records are hinted to have (fs_memory_huge_pages)
 * a fault per 2 MiB whose cost is the kernel's zeroing and the
 * hypervisor's first access to fresh memory (0.06-1.9 s a GiB). A thread
 * that maps them ahead (MADV_POPULATE_WRITE) takes that work off the run's
 * core. The records come from calloc, zero, and the run counts completions
 * up from zero, so nothing writes them before the run: a lock-step run
 * walks them in id order, behind the thread (which maps chunk by chunk, the
 * records' and the flags' of the same tasks together). Nothing depends on
 * it: a page the run reaches first is mapped by the run's own fault, and
 * without the thread or the advice the run is the same. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "core/engine_state.h"
#include "core/error.h"

/* Tasks per chunk: 768 KiB of records, so a stop waits for little. */
enum { CHUNK_TASKS = 1 << 16 };
/* Below this many tasks the thread costs more than the faults. */
enum { POPULATE_MIN_TASKS = 1 << 18 };

static void *populate_main(void *argument) {
  fs_engine *e = argument;
  engine_populate *job = &e->populate;
  for (int64_t t = 0; t < job->tasks && !atomic_load_explicit(&job->stop, memory_order_relaxed);
       t += CHUNK_TASKS) {
    int64_t end = t + CHUNK_TASKS < job->tasks ? t + CHUNK_TASKS : job->tasks;
    /* mapping only: it writes and reads nothing the run may touch (with
     * 4 KiB pages it also read a byte of each, to pay this hypervisor's
     * first access ahead of the run; under 2 MiB pages that measured
     * nothing, and it raced with the run's writes) */
    if (fs_memory_populate(e->task + t, (size_t)(end - t) * sizeof *e->task) ||
        (e->two_sided && fs_memory_populate(e->two_sided + t, (size_t)(end - t))))
      break;
  }
  return NULL;
}

void fs_engine_populate_start(fs_engine *e, int64_t tasks) {
  engine_populate *job = &e->populate;
  if (tasks < POPULATE_MIN_TASKS) return;
  job->tasks = tasks;
  atomic_init(&job->stop, 0);
  job->running = pthread_create(&job->thread, NULL, populate_main, e) == 0;
}

void fs_engine_populate_stop(fs_engine *e) {
  engine_populate *job = &e->populate;
  if (!job->running) return;
  atomic_store_explicit(&job->stop, 1, memory_order_relaxed);
  pthread_join(job->thread, NULL);
  job->running = 0;
}
