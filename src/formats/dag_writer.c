/* dag_writer.c: see dag_writer.h. The predecessors of every task are
 * rebuilt from the successor array by one counting sort (sources visited in
 * id order, which is what makes after= lists sorted), written, and freed.
 * A .dag lists each task after those it depends on: tasks go out in id
 * order when every dependency points back (generators, readers), else in
 * the topological order that takes the smallest ready id first (a replayed
 * trace builds a collective before all its members' earlier calls). */
#include "formats/dag_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/name_index.h"
#include "io/text_input.h"

/* pred[at[t] .. at[t+1]): predecessors of t, each with FS_EDGE_LOCAL or
 * FS_EDGE_START when the dependency is on local completion or start. */
typedef struct predecessors {
  int64_t *at;
  uint32_t *from;
} predecessors;

typedef struct writer {
  const fs_program *p;
  fs_output *out;
  fs_error *err;
  predecessors pred;
  size_t line_length; /* bytes of the current line so far */
  char name[24];      /* scratch for fs_task_name */
} writer;

static int build_predecessors(const fs_program *p, predecessors *pred) {
  int64_t n = p->tasks, m = p->successor_at[n];
  pred->at = calloc((size_t)n + 2, sizeof *pred->at);
  pred->from = malloc((size_t)(m ? m : 1) * sizeof *pred->from);
  if (!pred->at || !pred->from) return -1;
  for (int64_t e = 0; e < m; e++) pred->at[FS_EDGE_TASK(p->successor[e]) + 2]++;
  for (int64_t t = 2; t < n + 2; t++) pred->at[t] += pred->at[t - 1];
  /* at[t+1] is t's next free slot; when done it is the end of t's range */
  for (int32_t s = 0; s < n; s++)
    for (int64_t e = p->successor_at[s]; e < p->successor_at[s + 1]; e++) {
      uint32_t edge = p->successor[e];
      pred->from[pred->at[FS_EDGE_TASK(edge) + 1]++] = (uint32_t)s |
                                                       (edge & (FS_EDGE_LOCAL | FS_EDGE_START));
    }
  return 0;
}

static int is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

static int valid_name(const char *name) {
  if (!name[0] || strcmp(name, "ranks") == 0) return 0;
  for (; *name; name++)
    if (!is_name_char(*name)) return 0;
  return 1;
}

/* What the reader takes as a label: one token of printable bytes, no '#'. */
static int valid_label(const char *label) {
  if (!label[0]) return 0;
  for (; *label; label++) {
    unsigned char c = (unsigned char)*label;
    if (c <= 0x20 || c == 0x7f || c == '#') return 0;
  }
  return 1;
}

typedef struct name_source {
  const fs_program *p;
  char buffer[24];
} name_source;

static const char *name_of(const void *owner, int32_t id) {
  name_source *source = (name_source *)owner;
  return fs_task_name(source->p, id, source->buffer);
}

/* Named programs (from files or builders) may hold names that would not
 * read back; unnamed ones ("t<id>") are fine by construction. */
static int check_names(writer *w) {
  const fs_program *p = w->p;
  if (!p->name_at) return 0;
  fs_name_index index = {0};
  name_source source = {.p = p};
  int status = 0;
  for (int32_t t = 0; t < p->tasks && status == 0; t++) {
    const char *name = fs_task_name(p, t, w->name);
    size_t length = strlen(name);
    uint32_t hash = fs_name_hash(name, length);
    if (!valid_name(name))
      status = fs_error_set(w->err,
                            "task %d: name '%.64s' cannot be written (it must be letters, "
                            "digits, '_', '.' or '-', and not 'ranks')",
                            t, name);
    else if (fs_name_index_find(&index, hash, name, length, name_of, &source) >= 0)
      status = fs_error_set(w->err, "task %d: name '%s' is used by an earlier task", t, name);
    else if (fs_name_index_add(&index, hash, t))
      status = fs_error_set(w->err, "out of memory checking task names");
  }
  fs_name_index_free(&index);
  return status;
}

static int check_labels(writer *w) {
  const fs_program *p = w->p;
  if (!p->label) return 0;
  for (int32_t t = 0; t < p->tasks; t++) {
    const char *label = fs_task_label(p, t);
    if (label && !valid_label(label))
      return fs_error_set(w->err,
                          "task %s: label '%.64s' cannot be written (it must be printable, "
                          "without blanks or '#')",
                          fs_task_name(p, t, w->name), label);
  }
  return 0;
}

static void put(writer *w, const char *text, size_t length) {
  fs_output_write(w->out, text, length);
  w->line_length += length;
}

static void put_text(writer *w, const char *text) { put(w, text, strlen(text)); }

/* Decimal digits without printf: the writer emits millions of them. */
static void put_int(writer *w, int64_t v) {
  char digits[24];
  int n = sizeof digits;
  uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do digits[--n] = (char)('0' + magnitude % 10), magnitude /= 10;
  while (magnitude);
  if (v < 0) digits[--n] = '-';
  put(w, digits + n, sizeof digits - (size_t)n);
}

/* " key=" before a field's value. */
static void put_key(writer *w, const char *key) {
  put(w, " ", 1);
  put_text(w, key);
  put(w, "=", 1);
}

static void put_after(writer *w, int32_t t) {
  const predecessors *pred = &w->pred;
  if (pred->at[t] == pred->at[t + 1]) return;
  put_key(w, "after");
  for (int64_t i = pred->at[t]; i < pred->at[t + 1]; i++) {
    uint32_t from = pred->from[i];
    if (i > pred->at[t]) put(w, ",", 1);
    put_text(w, fs_task_name(w->p, FS_EDGE_TASK(from), w->name));
    if (from & FS_EDGE_LOCAL) put(w, ":local", 6);
    if (from & FS_EDGE_START) put(w, ":start", 6);
  }
}

static int is_transfer(int kind) {
  return kind == FS_PUT || kind == FS_GET || kind == FS_SEND || kind == FS_RECV;
}

/* to= or from= (a recv's any source as "any"). */
static void put_peer(writer *w, int32_t t) {
  int kind = w->p->kind[t];
  put_key(w, kind == FS_PUT || kind == FS_SEND ? "to" : "from");
  if (w->p->peer[t] == FS_ANY_SOURCE)
    put_text(w, "any"); /* only a recv gets here: finalize checked the others */
  else
    put_int(w, w->p->peer[t]);
}

/* tag= on send and recv, when not 0; a recv's any tag as "any". */
static int put_tag(writer *w, int32_t t) {
  const fs_program *p = w->p;
  int32_t tag = fs_task_tag(p, t);
  int kind = p->kind[t];
  if ((kind != FS_SEND && kind != FS_RECV) || tag == 0) return 0;
  if (tag < (kind == FS_RECV ? FS_ANY_TAG : 0))
    return fs_error_set(w->err, "task %s: tag %d on a %s cannot be written (tags are 0 or more%s)",
                        fs_task_name(p, t, w->name), (int)tag,
                        fs_task_kind_name((fs_task_kind)kind), kind == FS_RECV ? ", or any" : "");
  put_key(w, "tag");
  if (tag == FS_ANY_TAG)
    put_text(w, "any");
  else
    put_int(w, tag);
  return 0;
}

/* stride= on a transfer, when not 0 (contiguous). */
static int put_stride(writer *w, int32_t t) {
  int64_t stride = fs_task_stride(w->p, t);
  char text[40];
  if (!is_transfer(w->p->kind[t]) || stride == 0) return 0;
  if (stride < 0)
    return fs_error_set(w->err, "task %s: negative stride %lld cannot be written",
                        fs_task_name(w->p, t, w->name), (long long)stride);
  put_key(w, "stride");
  put_text(w, fs_format_size(text, stride));
  return 0;
}

/* to/from, size, stride, tag, then time or skew: what the kind carries. */
static int put_value_fields(writer *w, int32_t t) {
  const fs_program *p = w->p;
  int kind = p->kind[t], flags = p->flags[t];
  int64_t value = p->value[t];
  int has_size = is_transfer(kind) || (kind == FS_COMPUTE && (flags & FS_HAS_SIZE));
  int has_time = kind == FS_SLEEP ||
                 ((kind == FS_COMPUTE || kind == FS_START) && (flags & FS_HAS_TIME));
  char text[40];
  if ((has_size || has_time) && value < 0)
    return fs_error_set(w->err, "task %s: negative %s %lld cannot be written",
                        fs_task_name(p, t, w->name), has_size ? "size" : "time", (long long)value);
  if (is_transfer(kind)) put_peer(w, t);
  if (has_size) put_key(w, "size"), put_text(w, fs_format_size(text, value));
  if (put_stride(w, t) || put_tag(w, t)) return -1;
  if (has_time)
    put_key(w, kind == FS_START ? "skew" : "time"), put_text(w, fs_format_time(text, value));
  /* resources where the kind uses them, when not the default 0 */
  if (kind >= FS_SLEEP && fs_task_cpu(p, t)) put_key(w, "cpu"), put_int(w, fs_task_cpu(p, t));
  if (is_transfer(kind) && fs_task_nic(p, t)) put_key(w, "nic"), put_int(w, fs_task_nic(p, t));
  if (is_transfer(kind) && fs_task_protocol(p, t))
    put_key(w, "proto"), put_text(w, fs_protocol_name(fs_task_protocol(p, t)));
  return 0;
}

static int put_task(writer *w, int32_t t) {
  const fs_program *p = w->p;
  int kind = p->kind[t], flags = p->flags[t];
  w->line_length = 0;
  put_text(w, fs_task_name(p, t, w->name));
  put(w, " ", 1);
  put_text(w, fs_task_kind_name((fs_task_kind)kind));
  put(w, " ", 1);
  put_int(w, p->rank[t]);
  if (put_value_fields(w, t)) return -1;
  if (flags & FS_HAS_ANY) put_key(w, "any"), put_int(w, p->need[t]);
  if (flags & FS_CONCURRENT) put_text(w, " concurrent=1");
  if ((flags & FS_BLOCKING) && (kind == FS_PUT || kind == FS_GET)) put_text(w, " blocking=1");
  put_after(w, t);
  if (fs_task_label(p, t)) put_key(w, "label"), put_text(w, fs_task_label(p, t));
  if (w->line_length > FS_TEXT_LINE_MAX)
    return fs_error_set(w->err,
                        "task %s: its line would be %zu bytes, longer than the %zu that "
                        "can be read back",
                        fs_task_name(p, t, w->name), w->line_length, FS_TEXT_LINE_MAX);
  put(w, "\n", 1);
  return 0;
}

/* Min-heap of task ids, for the topological order. */
static void heap_push(int32_t *heap, int32_t *count, int32_t id) {
  int32_t i = (*count)++;
  while (i > 0 && heap[(i - 1) / 2] > id) heap[i] = heap[(i - 1) / 2], i = (i - 1) / 2;
  heap[i] = id;
}

static int32_t heap_pop(int32_t *heap, int32_t *count) {
  int32_t top = heap[0], last = heap[--*count], i = 0;
  for (;;) {
    int32_t child = 2 * i + 1;
    if (child >= *count) break;
    if (child + 1 < *count && heap[child + 1] < heap[child]) child++;
    if (heap[child] >= last) break;
    heap[i] = heap[child], i = child;
  }
  if (*count) heap[i] = last;
  return top;
}

/* NULL when id order will do; else the order (caller frees), or NULL with
 * *failed set (out of memory, or a cycle). */
static int32_t *write_order(const fs_program *p, int *failed, fs_error *err) {
  int forward = 0;
  *failed = 0;
  for (int32_t s = 0; s < p->tasks && !forward; s++)
    for (int64_t e = p->successor_at[s]; e < p->successor_at[s + 1]; e++)
      if (FS_EDGE_TASK(p->successor[e]) <= s) forward = 1;
  if (!forward) return NULL;
  int32_t *order = malloc((size_t)p->tasks * sizeof *order),
          *heap = malloc((size_t)p->tasks * sizeof *heap);
  int32_t *waiting = calloc((size_t)p->tasks, sizeof *waiting);
  int32_t written = 0, ready = 0;
  int allocated = order && heap && waiting; /* else out of memory, not a cycle */
  if (allocated) {
    for (int64_t e = 0; e < p->successor_at[p->tasks]; e++)
      waiting[FS_EDGE_TASK(p->successor[e])]++;
    for (int32_t t = 0; t < p->tasks; t++)
      if (!waiting[t]) heap_push(heap, &ready, t);
    while (ready) {
      int32_t t = heap_pop(heap, &ready);
      order[written++] = t;
      for (int64_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++)
        if (--waiting[FS_EDGE_TASK(p->successor[e])] == 0)
          heap_push(heap, &ready, FS_EDGE_TASK(p->successor[e]));
    }
  }
  free(heap);
  free(waiting);
  if (order && written == p->tasks) return order;
  free(order);
  *failed = 1;
  if (allocated)
    fs_error_set(err, "its dependencies form a cycle (a .dag lists every task after "
                      "the tasks it depends on)");
  else
    fs_error_set(err, "out of memory ordering %d tasks", p->tasks);
  return NULL;
}

int fs_dag_write_output(const fs_program *p, fs_output *out, fs_error *err) {
  writer w = {.p = p, .out = out, .err = err};
  if (!p->finalized) return fs_error_set(err, "cannot write a program that is not finalized");
  if (check_names(&w) || check_labels(&w)) return -1;
  if (build_predecessors(p, &w.pred)) {
    free(w.pred.at);
    free(w.pred.from);
    return fs_error_set(err, "out of memory listing the dependencies of %d tasks", p->tasks);
  }
  int failed;
  int32_t *order = write_order(p, &failed, err);
  if (failed) {
    free(w.pred.at);
    free(w.pred.from);
    return -1;
  }
  fs_output_printf(out, "fennel-dag 1\nranks %d\n", p->ranks);
  int status = 0;
  for (int32_t i = 0; i < p->tasks && status == 0; i++) {
    status = put_task(&w, order ? order[i] : i);
    fs_output_progress(out, (int64_t)i + 1);
  }
  free(order);
  free(w.pred.at);
  free(w.pred.from);
  return status;
}

int fs_dag_write(const fs_program *p, const char *path, fs_error *err) {
  fs_output *out = fs_output_open(path, err);
  if (!out) return -1;
  fs_error inner;
  if (fs_dag_write_output(p, out, &inner)) {
    fs_output_abort(out);
    return fs_error_set(err, "%s: %s", path, inner.message);
  }
  return fs_output_commit(out, err);
}
