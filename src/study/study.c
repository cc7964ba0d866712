/* study.c: see study.h. Worker threads take chunks of seed indices from an
 * atomic counter, run them and mark each one done; the calling thread
 * watches, writes the samples rows of the finished prefix in seed order and
 * draws the progress bar. Results live in arrays allocated up front, so a
 * seed costs no allocation beyond what the worker does. */
#include "study/study.h"

#include "io/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_MAX 16       /* seeds per hand-out, at most */
#define TICK_NS 100000000L /* the watcher wakes (and redraws) at most 10 times a second */
#define SAMPLES_BUFFER ((size_t)64 << 10)

typedef struct samples_writer {
  const char *path;
  int fd;
  int owned; /* 0 for stdout */
  char *buffer;
  size_t used, size;
  int64_t written;   /* rows written: the finished prefix */
  char failure[256]; /* first error, empty while all is well */
} samples_writer;

typedef struct study {
  const fs_study_options *options;
  const fs_study_callbacks *callbacks;
  fs_study_results *results;
  int64_t count, chunk;
  atomic_int_fast64_t next;      /* first result index not yet handed out */
  atomic_int_fast64_t completed; /* for the progress bar */
  atomic_uchar *done;            /* per result index: finished */
  atomic_int stop;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int active;        /* threads still running (under lock) */
  int64_t failed_at; /* lowest failing index, -1 for a worker (under lock) */
  int failed;
  fs_error failure; /* (under lock) */
} study;

int64_t fs_study_count(int64_t seeds, int64_t first, int64_t step) {
  if (step < 1 || first < 0 || first >= seeds) return 0;
  return (seeds - first - 1) / step + 1;
}

void fs_study_results_free(fs_study_results *r) {
  free(r->seed);
  free(r->makespan);
  free(r->finish);
  memset(r, 0, sizeof *r);
}

/* --- samples text --- */

size_t fs_study_row_size(int32_t ranks) { return 24 * ((size_t)ranks + 2) + 8; }

/* fs_format_ns without printf: the watcher formats count x ranks times. */
static size_t put_ns(char *p, fs_time t) {
  char digits[24];
  int n = sizeof digits;
  uint64_t magnitude = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
  uint64_t whole = magnitude / 1000, fraction = magnitude % 1000;
  if (fraction) {
    int width = 3;
    while (fraction % 10 == 0) fraction /= 10, width--;
    while (width--) digits[--n] = (char)('0' + fraction % 10), fraction /= 10;
    digits[--n] = '.';
  }
  do digits[--n] = (char)('0' + whole % 10), whole /= 10;
  while (whole);
  if (t < 0) digits[--n] = '-';
  memcpy(p, digits + n, sizeof digits - (size_t)n);
  return sizeof digits - (size_t)n;
}

static size_t put_unsigned(char *p, uint64_t value) {
  char digits[24];
  int n = sizeof digits;
  do digits[--n] = (char)('0' + value % 10), value /= 10;
  while (value);
  memcpy(p, digits + n, sizeof digits - (size_t)n);
  return sizeof digits - (size_t)n;
}

size_t fs_study_header(char *buffer, int32_t ranks) {
  char *p = buffer;
  memcpy(p, "seed,makespan_ns", 16);
  p += 16;
  for (int32_t r = 0; r < ranks; r++) {
    memcpy(p, ",finish_ns_", 11);
    p += 11;
    p += put_unsigned(p, (uint64_t)r);
  }
  *p++ = '\n';
  *p = 0;
  return (size_t)(p - buffer);
}

size_t fs_study_row(char *buffer, uint64_t seed, fs_time makespan, const fs_time *finish,
                    int32_t ranks) {
  char *p = buffer;
  p += put_unsigned(p, seed);
  *p++ = ',';
  p += put_ns(p, makespan);
  for (int32_t r = 0; r < ranks; r++) {
    *p++ = ',';
    p += put_ns(p, finish[r]);
  }
  *p++ = '\n';
  *p = 0;
  return (size_t)(p - buffer);
}

/* --- samples file --- */

static void writer_record(samples_writer *w, const char *why) {
  if (!w->failure[0]) snprintf(w->failure, sizeof w->failure, "%s: write failed: %s", w->path, why);
}

static void writer_flush(samples_writer *w) {
  const char *data = w->buffer;
  size_t length = w->used;
  w->used = 0;
  while (length > 0 && !w->failure[0]) {
    ssize_t n = write(w->fd, data, length);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return writer_record(w, strerror(errno));
    data += n;
    length -= (size_t)n;
  }
}

static int ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), k = strlen(suffix);
  return n >= k && strcmp(text + n - k, suffix) == 0;
}

static int writer_open(samples_writer *w, const char *path, int32_t ranks, fs_error *err) {
  *w = (samples_writer){.path = path, .fd = -1, .size = SAMPLES_BUFFER + fs_study_row_size(ranks)};
  if (ends_with(path, ".gz"))
    return fs_error_set(err,
                        "%s: samples are written uncompressed (an interrupted study keeps "
                        "its rows): name a .csv file",
                        path);
  if (!(w->buffer = malloc(w->size))) return fs_error_set(err, "%s: out of memory", path);
  if (strcmp(path, "-") == 0) {
    w->fd = 1;
  } else {
    w->fd = path[0] ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
    if (w->fd < 0) {
      int error = path[0] ? errno : ENOENT;
      free(w->buffer);
      return fs_error_set(err, "%s: cannot create: %s", path, strerror(error));
    }
    w->owned = 1;
  }
  w->used = fs_study_header(w->buffer, ranks);
  writer_flush(w);
  return 0;
}

/* Writes the rows of the seeds finished after the prefix written so far. */
static void writer_advance(samples_writer *w, study *s) {
  const fs_study_results *r = s->results;
  int32_t ranks = s->options->ranks;
  size_t row = fs_study_row_size(ranks);
  while (w->written < s->count &&
         atomic_load_explicit(&s->done[w->written], memory_order_acquire)) {
    int64_t j = w->written++;
    if (w->size - w->used < row) writer_flush(w);
    w->used +=
        fs_study_row(w->buffer + w->used, r->seed[j], r->makespan[j], r->finish + j * ranks, ranks);
  }
  if (w->used) writer_flush(w);
}

static void writer_close(samples_writer *w) {
  if (w->owned && close(w->fd) != 0 && errno != EINTR) writer_record(w, strerror(errno));
  free(w->buffer);
}

/* --- threads --- */

/* Keeps the failure of the lowest index and stops the other threads. */
static void fail(study *s, int64_t index, const fs_error *why) {
  pthread_mutex_lock(&s->lock);
  if (!s->failed || index < s->failed_at) {
    const char *text = why->message[0] ? why->message : "failed";
    if (index >= 0)
      fs_error_set(&s->failure, "seed %llu: %s", (unsigned long long)s->results->seed[index], text);
    else
      fs_error_set(&s->failure, "%s", text);
    s->failed = 1;
    s->failed_at = index;
  }
  atomic_store(&s->stop, 1);
  pthread_cond_signal(&s->changed);
  pthread_mutex_unlock(&s->lock);
}

static void run_chunks(study *s, fs_study_worker *w) {
  fs_study_results *r = s->results;
  int32_t ranks = s->options->ranks;
  fs_error err;
  for (;;) {
    int64_t begin = atomic_fetch_add(&s->next, s->chunk);
    if (begin >= s->count) return;
    int64_t end = begin + s->chunk < s->count ? begin + s->chunk : s->count;
    for (int64_t j = begin; j < end; j++) {
      if (atomic_load_explicit(&s->stop, memory_order_relaxed)) return;
      err.message[0] = 0;
      if (s->callbacks->run(w, r->seed[j], &r->makespan[j], r->finish + j * ranks, &err)) {
        fail(s, j, &err);
        return;
      }
      atomic_store_explicit(&s->done[j], 1, memory_order_release);
    }
    atomic_fetch_add(&s->completed, end - begin);
    pthread_mutex_lock(&s->lock);
    pthread_cond_signal(&s->changed);
    pthread_mutex_unlock(&s->lock);
  }
}

static void *thread_main(void *argument) {
  study *s = argument;
  fs_error err = {{0}};
  fs_study_worker *w = s->callbacks->worker_new(s->callbacks->arg, &err);
  if (!w) {
    fail(s, -1, &err);
  } else {
    run_chunks(s, w);
    s->callbacks->worker_free(w);
  }
  pthread_mutex_lock(&s->lock);
  s->active--;
  pthread_cond_signal(&s->changed);
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

/* --- the study --- */

static int allocate_results(fs_study_results *r, int64_t count, int32_t ranks,
                            const fs_study_options *o, fs_error *err) {
  size_t n = (size_t)count;
  char what[96];
  snprintf(what, sizeof what, "the result table of %lld seeds x %d ranks", (long long)count, ranks);
  int64_t limit = fs_memory_limit();
  if (count > 0 && (count > limit / 16 || (int64_t)ranks + 2 > limit / 8 / count))
    return fs_error_too_large(err, what,
                              count > INT64_MAX / 8 / ((int64_t)ranks + 2)
                                  ? INT64_MAX
                                  : count * 8 * ((int64_t)ranks + 2),
                              limit);
  size_t cells = n * (size_t)ranks;
  r->seed = malloc(n > 0 ? n * sizeof *r->seed : 1);
  r->makespan = malloc(n > 0 ? n * sizeof *r->makespan : 1);
  r->finish = malloc(cells > 0 ? cells * sizeof *r->finish : 1);
  if (!r->seed || !r->makespan || !r->finish) {
    fs_study_results_free(r);
    return fs_error_out_of_memory(err, what, (int64_t)(cells + 2 * n) * 8);
  }
  r->count = count;
  for (int64_t j = 0; j < count; j++)
    r->seed[j] = o->base_seed + (uint64_t)(o->first + j * o->step);
  return 0;
}

static int thread_count(const fs_study_options *o, int64_t count) {
  long threads = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
  if (threads < 1) threads = 1;
  if (threads > count) threads = (long)count;
  return (int)threads;
}

/* Waits for a change (a finished chunk, a thread ending) or the next tick;
 * returns the number of threads still running. */
static int wait_for_change(study *s, const samples_writer *w) {
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += TICK_NS;
  if (deadline.tv_nsec >= 1000000000L) deadline.tv_sec++, deadline.tv_nsec -= 1000000000L;
  pthread_mutex_lock(&s->lock);
  int ready = w && w->written < s->count &&
              atomic_load_explicit(&s->done[w->written], memory_order_acquire);
  if (s->active > 0 && !ready) pthread_cond_timedwait(&s->changed, &s->lock, &deadline);
  int active = s->active;
  pthread_mutex_unlock(&s->lock);
  return active;
}

/* Starts the threads and watches them until they have all ended. */
static int run_threads(study *s, samples_writer *w, int threads, fs_error *err) {
  pthread_t *ids = malloc((size_t)threads * sizeof *ids);
  if (!ids) return fs_error_set(err, "out of memory for %d threads", threads);
  int started = 0, error = 0;
  s->active = threads;
  for (; started < threads; started++)
    if ((error = pthread_create(&ids[started], NULL, thread_main, s)) != 0) break;
  if (started < threads) {
    pthread_mutex_lock(&s->lock);
    s->active -= threads - started;
    pthread_mutex_unlock(&s->lock);
    if (started == 0) {
      free(ids);
      return fs_error_set(err, "cannot start a thread: %s", strerror(error));
    }
  }
  fs_progress *bar = fs_progress_new_rated("seeds", s->count, s->options->progress, stderr);
  int active = threads;
  while (active > 0) {
    active = wait_for_change(s, w);
    if (w) {
      writer_advance(w, s);
      if (w->failure[0]) atomic_store(&s->stop, 1);
    }
    fs_progress_update(bar, atomic_load(&s->completed));
  }
  for (int i = 0; i < started; i++) pthread_join(ids[i], NULL);
  free(ids);
  fs_progress_done(bar);
  return 0;
}

static int check_options(const fs_study_options *o, const fs_study_callbacks *c, fs_error *err) {
  if (o->seeds < 0)
    return fs_error_set(err, "seeds: expected a count >= 0, not %lld", (long long)o->seeds);
  if (o->first < 0 || o->step < 1)
    return fs_error_set(err, "seed shard: first %lld, step %lld: expected first >= 0, step >= 1",
                        (long long)o->first, (long long)o->step);
  if (o->ranks < 0) return fs_error_set(err, "ranks: expected >= 0, not %d", o->ranks);
  if (!c->worker_new || !c->run || !c->worker_free) return fs_error_set(err, "study: no worker");
  return 0;
}

int fs_study_run(const fs_study_options *o, const fs_study_callbacks *c, fs_study_results *out,
                 fs_error *err) {
  memset(out, 0, sizeof *out);
  if (check_options(o, c, err)) return -1;
  int64_t count = fs_study_count(o->seeds, o->first, o->step);
  if (allocate_results(out, count, o->ranks, o, err)) return -1;
  study s = {.options = o, .callbacks = c, .results = out, .count = count};
  s.chunk = count / ((int64_t)thread_count(o, count) * 64 + 1);
  s.chunk = s.chunk < 1 ? 1 : s.chunk > CHUNK_MAX ? CHUNK_MAX : s.chunk;
  atomic_init(&s.next, 0);
  atomic_init(&s.completed, 0);
  atomic_init(&s.stop, 0);
  if (!(s.done = malloc(count ? (size_t)count * sizeof *s.done : 1))) {
    fs_study_results_free(out);
    return fs_error_set(err, "out of memory for %lld seeds", (long long)count);
  }
  for (int64_t j = 0; j < count; j++) atomic_init(&s.done[j], 0);
  samples_writer writer, *w = NULL;
  int status = 0;
  if (o->samples) {
    if (writer_open(&writer, o->samples, o->ranks, err))
      status = -1;
    else
      w = &writer;
  }
  pthread_mutex_init(&s.lock, NULL);
  pthread_cond_init(&s.changed, NULL);
  if (status == 0 && count > 0) status = run_threads(&s, w, thread_count(o, count), err);
  pthread_cond_destroy(&s.changed);
  pthread_mutex_destroy(&s.lock);
  if (w) {
    writer_advance(w, &s); /* the rows of the finished prefix, also after a failure */
    writer_close(w);
    if (status == 0 && !s.failed && w->failure[0]) status = fs_error_set(err, "%s", w->failure);
  }
  if (status == 0 && s.failed) status = fs_error_set(err, "%s", s.failure.message);
  free(s.done);
  if (status) fs_study_results_free(out);
  return status;
}
