/* event_queue.c: the radix heap behind the event engine (see the header). */
#include "core/event_queue.h"

#include "core/error.h"

#include <stdlib.h>
#include <string.h>

/* A bucket emptied (it keeps its memory). */
static void empty_bucket(fs_event_bucket *b) {
  b->head = b->count = 0;
  b->min = INT64_MAX;
  b->max = INT64_MIN;
}

void fs_event_queue_init(fs_event_queue *q) {
  memset(q, 0, sizeof *q);
  for (int i = 0; i < FS_EVENT_BUCKETS; i++) empty_bucket(&q->bucket[i]);
}

void fs_event_queue_free(fs_event_queue *q) {
  for (int i = 0; i < FS_EVENT_BUCKETS; i++) free(q->bucket[i].items);
  fs_event_queue_init(q);
}

int64_t fs_event_queue_bytes(const fs_event_queue *q) {
  int64_t bytes = 0;
  for (int i = 0; i < FS_EVENT_BUCKETS; i++)
    bytes += q->bucket[i].capacity * (int64_t)sizeof(fs_event);
  return bytes;
}

void fs_event_queue_clear(fs_event_queue *q) {
  for (int i = 0; i < FS_EVENT_BUCKETS; i++) empty_bucket(&q->bucket[i]);
  q->size = 0;
  q->last = 0;
  q->current = 0;
}

/* A full bucket first takes the largest array of an empty bucket, if larger
 * than its own (the bucket read last instant: its pages are already
 * touched, and a first touch costs more than the copy), and gives it its
 * own; else its array doubles. */
int fs_event_queue_grow(fs_event_queue *q, fs_event_bucket *b) {
  fs_event_bucket *donor = NULL;
  for (int i = 0; i < FS_EVENT_BUCKETS; i++) {
    fs_event_bucket *d = &q->bucket[i];
    if (d->count == 0 && d->capacity > (donor ? donor->capacity : b->capacity)) donor = d;
  }
  if (donor) {
    fs_event *items = donor->items;
    int64_t capacity = donor->capacity;
    if (b->count) memcpy(items, b->items, (size_t)b->count * sizeof *items);
    donor->items = b->items;
    donor->capacity = b->capacity;
    b->items = items;
    b->capacity = capacity;
    return 0;
  }
  int64_t want = b->capacity ? b->capacity * 2 : 256;
  fs_event *bigger = realloc(b->items, (size_t)want * sizeof *bigger);
  if (!bigger) return -1;
  fs_memory_huge_pages(bigger, (size_t)want * sizeof *bigger);
  b->items = bigger;
  b->capacity = want;
  return 0;
}

/* Makes the current bucket non-empty: advances `last` to the minimum of the
 * smallest non-empty bucket, which then is read in place if that is its
 * only time, else is moved down (to bucket 0 and below). Each event moves
 * to a strictly lower bucket, so it moves at most 64 times in all. While a
 * bucket i > 0 is current, bucket 0 is empty and no push of another time
 * lands in bucket i (such a time differs from `last` in a bit other than
 * i - 1: `last` has 1 there, the bucket's times agree with it above). */
static int refill(fs_event_queue *q) {
  fs_event_bucket *now = &q->bucket[q->current];
  if (now->head < now->count) return 1;
  empty_bucket(now);
  q->current = 0;
  int i = 1;
  while (i < FS_EVENT_BUCKETS && q->bucket[i].count == 0) i++;
  if (i == FS_EVENT_BUCKETS) return 0;
  fs_event_bucket *b = &q->bucket[i];
  fs_time minimum = b->min;
  q->last = minimum;
  if (b->max == minimum) { /* one time: read it where it is */
    q->current = i;
    return 1;
  }
  for (int64_t k = 0; k < b->count; k++) {
    fs_event *e = &b->items[k];
    fs_event_bucket *to = &q->bucket[fs_event_queue_bucket_of(minimum, e->time, 0)];
    if (fs_event_bucket_append(q, to, e->time, e->payload)) return -1;
  }
  empty_bucket(b);
  return 1;
}

fs_time fs_event_queue_next_time(fs_event_queue *q) {
  if (q->size == 0) return FS_TIME_MAX;
  int status = refill(q);
  if (status <= 0) return -1;
  fs_event_bucket *now = &q->bucket[q->current];
  return now->items[now->head].time;
}

int fs_event_queue_pop_later(fs_event_queue *q, fs_event *out) {
  if (q->size == 0) return 0;
  int status = refill(q);
  if (status <= 0) return status;
  fs_event_bucket *now = &q->bucket[q->current];
  *out = now->items[now->head++];
  q->size--;
  return 1;
}
