/* event_queue.h: the engine's priority queue of timed events.
 *
 * A radix heap: simulated time never goes backwards, so events are kept in
 * FS_EVENT_BUCKETS buckets by the highest bit in which their time differs
 * from the last time popped. Push is O(1); pop is amortized O(log of the time span), and
 * the many events that share one time (every rank of a collective steps in
 * lock-step) cost nothing to order. Events of equal time come out in the
 * order they were pushed (FIFO), so a run is a pure function of its input.
 *
 * Equal times always share a bucket. A bucket keeps the least and the
 * greatest time it holds; when the next bucket to read holds one time only
 * (a lock-step instant), it is read where it is (it becomes `current`,
 * and pushes of that time append to it) instead of being moved down event
 * by event. */
#ifndef FS_EVENT_QUEUE_H
#define FS_EVENT_QUEUE_H

#include <stdint.h>

#include "core/units.h"

typedef struct fs_event {
  fs_time time;
  uint64_t payload;
} fs_event;

typedef struct fs_event_bucket {
  fs_event *items;
  int64_t head; /* first unread item (the current bucket is read FIFO) */
  int64_t count;
  int64_t capacity;
  fs_time min, max; /* of the times it holds; INT64_MAX, INT64_MIN when empty */
} fs_event_bucket;

/* Bucket 0 for the time last popped, then one per bit of a 64-bit time in
 * which a later time can first differ from it. */
#define FS_EVENT_BUCKETS 65

typedef struct fs_event_queue {
  fs_time last; /* time of the last event popped; no push may be earlier */
  int64_t size;
  int current; /* the bucket of the events at `last` (0, or one read in place) */
  fs_event_bucket bucket[FS_EVENT_BUCKETS];
} fs_event_queue;

void fs_event_queue_init(fs_event_queue *q);
void fs_event_queue_free(fs_event_queue *q);
/* The bytes its buckets hold (they keep their high-water mark). */
int64_t fs_event_queue_bytes(const fs_event_queue *q);
/* Empties the queue but keeps its memory (for the next run). */
void fs_event_queue_clear(fs_event_queue *q);
/* Doubles a full bucket's room, or gives it the larger array of an empty
 * bucket (out of line: rare); -1 when memory runs out. */
int fs_event_queue_grow(fs_event_queue *q, fs_event_bucket *b);
/* Bucket of a time relative to the last pop: `equal` when equal, else 1 +
 * the index of the highest differing bit. */
static inline int fs_event_queue_bucket_of(fs_time last, fs_time time, int equal) {
  uint64_t differ = (uint64_t)last ^ (uint64_t)time;
  return differ == 0 ? equal : 64 - __builtin_clzll(differ);
}
/* Appends an event to a bucket of q; -1 when memory runs out. */
static inline int fs_event_bucket_append(fs_event_queue *q, fs_event_bucket *b, fs_time time,
                                         uint64_t payload) {
  if (b->count == b->capacity && fs_event_queue_grow(q, b)) return -1;
  b->items[b->count].time = time;
  b->items[b->count].payload = payload;
  b->count++;
  if (time < b->min) b->min = time;
  if (time > b->max) b->max = time;
  return 0;
}
/* Returns -1 when time is earlier than the last pop or memory runs out.
 * Inline: the engine pushes about once per event. */
static inline int fs_event_queue_push(fs_event_queue *q, fs_time time, uint64_t payload) {
  if (time < q->last ||
      fs_event_bucket_append(q, &q->bucket[fs_event_queue_bucket_of(q->last, time, q->current)],
                             time, payload))
    return -1;
  q->size++;
  return 0;
}
/* Whether events of the time last popped remain (without reordering). */
static inline int fs_event_queue_has_current(const fs_event_queue *q) {
  return q->bucket[q->current].head < q->bucket[q->current].count;
}
/* Time of the next event, FS_TIME_MAX when empty, -1 when memory ran out
 * while reordering (the queue is then unusable). Advances the last time to
 * the returned one: no push may be earlier afterwards. */
fs_time fs_event_queue_next_time(fs_event_queue *q);
/* fs_event_queue_pop when no event of the time last popped is left. */
int fs_event_queue_pop_later(fs_event_queue *q, fs_event *out);
/* Removes the next event into *out; returns 1, 0 when empty, -1 when
 * memory ran out. Inline: most pops take an event of the current time. */
static inline int fs_event_queue_pop(fs_event_queue *q, fs_event *out) {
  fs_event_bucket *now = &q->bucket[q->current];
  if (now->head == now->count) return fs_event_queue_pop_later(q, out);
  *out = now->items[now->head++];
  q->size--;
  return 1;
}

#endif
