/* event_queue.c: the radix heap behind the event engine (see the header). */
#include "core/event_queue.h"

#include <stdlib.h>
#include <string.h>

void fs_event_queue_init(fs_event_queue *q) { memset(q, 0, sizeof *q); }

void fs_event_queue_free(fs_event_queue *q) {
  for (int i = 0; i < FS_EVENT_BUCKETS; i++) free(q->bucket[i].items);
  memset(q, 0, sizeof *q);
}

int64_t fs_event_queue_bytes(const fs_event_queue *q) {
  int64_t bytes = 0;
  for (int i = 0; i < FS_EVENT_BUCKETS; i++)
    bytes += q->bucket[i].capacity * (int64_t)sizeof(fs_event);
  return bytes;
}

void fs_event_queue_clear(fs_event_queue *q) {
  for (int i = 0; i < FS_EVENT_BUCKETS; i++) q->bucket[i].head = q->bucket[i].count = 0;
  q->size = 0;
  q->last = 0;
}

int fs_event_queue_grow(fs_event_bucket *b) {
  int64_t want = b->capacity ? b->capacity * 2 : 256;
  fs_event *bigger = realloc(b->items, (size_t)want * sizeof *bigger);
  if (!bigger) return -1;
  b->items = bigger;
  b->capacity = want;
  return 0;
}

/* Makes bucket 0 non-empty: moves the smallest non-empty bucket down after
 * advancing `last` to its minimum. Each event moves to a strictly lower
 * bucket, so it moves at most 64 times in all. */
static int refill(fs_event_queue *q) {
  fs_event_bucket *zero = &q->bucket[0];
  if (zero->head < zero->count) return 1;
  zero->head = zero->count = 0;
  int i = 1;
  while (i < FS_EVENT_BUCKETS && q->bucket[i].count == 0) i++;
  if (i == FS_EVENT_BUCKETS) return 0;
  fs_event_bucket *b = &q->bucket[i];
  fs_time minimum = b->items[0].time;
  for (int64_t k = 1; k < b->count; k++)
    if (b->items[k].time < minimum) minimum = b->items[k].time;
  q->last = minimum;
  for (int64_t k = 0; k < b->count; k++) {
    fs_event *e = &b->items[k];
    fs_event_bucket *to = &q->bucket[fs_event_queue_bucket_of(minimum, e->time)];
    if (fs_event_bucket_append(to, e->time, e->payload)) return -1;
  }
  b->count = 0;
  return 1;
}

fs_time fs_event_queue_next_time(fs_event_queue *q) {
  if (q->size == 0) return FS_TIME_MAX;
  int status = refill(q);
  return status > 0 ? q->bucket[0].items[q->bucket[0].head].time : -1;
}

int fs_event_queue_pop_later(fs_event_queue *q, fs_event *out) {
  if (q->size == 0) return 0;
  int status = refill(q);
  if (status <= 0) return status;
  fs_event_bucket *zero = &q->bucket[0];
  *out = zero->items[zero->head++];
  q->size--;
  return 1;
}
