/* program.c: building a program (tasks, dependencies, labels, names) and
 * turning its dependency pairs into the successor array the engine walks. */
#include "core/program.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[FS_TASK_KINDS] = {"start", "proxy", "sleep", "compute",
                                                      "put",   "get",   "send",  "recv"};

const char *fs_task_kind_name(fs_task_kind kind) {
  return kind < FS_TASK_KINDS ? kind_names[kind] : "?";
}

int fs_task_kind_from_name(const char *name, int64_t length) {
  for (int k = 0; k < FS_TASK_KINDS; k++)
    if ((int64_t)strlen(kind_names[k]) == length &&
        memcmp(kind_names[k], name, (size_t)length) == 0)
      return k;
  return -1;
}

fs_program *fs_program_new(int32_t ranks) {
  if (ranks < 1) return NULL;
  fs_program *p = calloc(1, sizeof *p);
  if (p) p->ranks = ranks;
  return p;
}

void fs_program_free(fs_program *p) {
  if (!p) return;
  free(p->kind);
  free(p->flags);
  free(p->rank);
  free(p->peer);
  free(p->value);
  free(p->need);
  free(p->label);
  free(p->tag);
  free(p->stride);
  free(p->cpu);
  free(p->nic);
  free(p->protocol);
  free(p->name_at);
  free(p->successor_at);
  free(p->successor);
  free(p->pending);
  free(p->slot_rank);
  fs_index_map_free(&p->slot_of);
  for (int32_t i = 0; i < p->label_count; i++) free(p->labels[i]);
  free(p->labels);
  free(p->names);
  if (p->symmetric) free(p->symmetric->task), free(p->symmetric->edge);
  free(p->symmetric);
  free(p);
}

/* Resizes *array to `capacity` elements of `size` bytes (an array never
 * allocated stays NULL at capacity 0). */
static int grow(void *array, size_t size, int64_t capacity) {
  void **a = array;
  if (!*a && capacity == 0) return 0;
  void *bigger = realloc(*a, (size_t)capacity * size);
  if (!bigger) return -1;
  *a = bigger;
  fs_memory_huge_pages(bigger, (size_t)capacity * size);
  return 0;
}

static int set_task_capacity(fs_program *p, int64_t capacity) {
  if (capacity > FS_MAX_TASKS) capacity = FS_MAX_TASKS;
  if (capacity <= p->capacity) return 0;
  if (grow(&p->kind, 1, capacity) || grow(&p->flags, 1, capacity) || grow(&p->rank, 4, capacity) ||
      grow(&p->peer, 4, capacity) || grow(&p->value, 8, capacity) || grow(&p->need, 4, capacity) ||
      (p->label && grow(&p->label, 4, capacity)) ||
      (p->name_at && grow(&p->name_at, 8, capacity)) || (p->tag && grow(&p->tag, 4, capacity)) ||
      (p->stride && grow(&p->stride, 8, capacity)) || (p->cpu && grow(&p->cpu, 1, capacity)) ||
      (p->nic && grow(&p->nic, 1, capacity)) || (p->protocol && grow(&p->protocol, 1, capacity)))
    return -1;
  p->capacity = (int32_t)capacity;
  return 0;
}

static int set_pending_capacity(fs_program *p, int64_t dependencies) {
  if (dependencies <= p->pending_capacity) return 0;
  if (grow(&p->pending, 8, dependencies)) return -1;
  p->pending_capacity = dependencies;
  return 0;
}

int fs_program_reserve(fs_program *p, int64_t tasks, int64_t dependencies) {
  if (tasks > FS_MAX_TASKS || p->symmetric) return -1;
  return set_task_capacity(p, tasks) || set_pending_capacity(p, dependencies) ? -1 : 0;
}

int32_t fs_program_add(fs_program *p, fs_task_kind kind, int32_t rank) {
  if (p->finalized || p->tasks == FS_MAX_TASKS) return -1;
  if (p->tasks == p->capacity) {
    if (p->symmetric) return -1; /* (its capacity is its task count: no explicit tasks) */
    int64_t want = p->capacity < 1024 ? 1024 : (int64_t)p->capacity * 2;
    if (set_task_capacity(p, want)) return -1;
  }
  int32_t t = p->tasks++;
  p->kind[t] = (uint8_t)kind;
  p->flags[t] = 0;
  p->rank[t] = rank;
  p->peer[t] = -1;
  p->value[t] = 0;
  p->need[t] = 0;
  if (p->label) p->label[t] = -1;
  if (p->name_at) p->name_at[t] = -1;
  if (p->tag) p->tag[t] = 0;
  if (p->stride) p->stride[t] = 0;
  if (p->cpu) p->cpu[t] = 0;
  if (p->nic) p->nic[t] = 0;
  if (p->protocol) p->protocol[t] = FS_PROTOCOL_NONE;
  return t;
}

int fs_program_depend(fs_program *p, int32_t task, int32_t on, int point) {
  if (p->finalized || task < 0 || task >= p->tasks || on < 0 || on >= p->tasks) return -1;
  if (point < FS_AFTER_END || point > FS_AFTER_START) return -1;
  if (p->dependencies == FS_MAX_DEPENDENCIES) return -1;
  if (p->dependencies == p->pending_capacity) {
    if (p->symmetric) return -1; /* (none pending: template dependencies only) */
    int64_t want = p->pending_capacity < 1024 ? 1024 : p->pending_capacity * 2;
    if (set_pending_capacity(p, want)) return -1;
  }
  uint32_t *pair = p->pending + 2 * p->dependencies++;
  pair[0] = (uint32_t)on;
  pair[1] = (uint32_t)task | (point == FS_AFTER_LOCAL   ? FS_EDGE_LOCAL
                              : point == FS_AFTER_START ? FS_EDGE_START
                                                        : 0);
  return 0;
}

int32_t fs_program_intern_label(fs_program *p, const char *text, int64_t length) {
  for (int32_t i = p->label_count - 1; i >= 0; i--)
    if ((int64_t)strlen(p->labels[i]) == length && memcmp(p->labels[i], text, (size_t)length) == 0)
      return i;
  return fs_program_add_label(p, text, length);
}

int32_t fs_program_add_label(fs_program *p, const char *text, int64_t length) {
  if (p->label_count == INT32_MAX) return -1;
  if (p->label_count == p->label_capacity) {
    int32_t want = p->label_capacity ? p->label_capacity * 2 : 16;
    if (grow(&p->labels, sizeof(char *), want)) return -1;
    p->label_capacity = want;
  }
  char *copy = malloc((size_t)length + 1);
  if (!copy) return -1;
  memcpy(copy, text, (size_t)length);
  copy[length] = 0;
  p->labels[p->label_count] = copy;
  return p->label_count++;
}

/* Allocates an optional per-task array on first use, filled with `fill`. */
static int optional_array(fs_program *p, void *array, size_t size, int fill) {
  void **a = array;
  if (*a) return 0;
  if (p->symmetric) return -1; /* (a template's fields are set in the template) */
  if (p->capacity && grow(a, size, p->capacity)) return -1;
  if (p->tasks) memset(*a, fill, (size_t)p->tasks * size);
  return 0;
}

int fs_task_set_tag(fs_program *p, int32_t t, int32_t tag) {
  if (optional_array(p, &p->tag, 4, 0)) return -1;
  p->tag[t] = tag;
  return 0;
}

int fs_task_set_stride(fs_program *p, int32_t t, int64_t stride) {
  if (stride < 0 || optional_array(p, &p->stride, 8, 0)) return -1;
  p->stride[t] = stride;
  return 0;
}

int fs_task_set_cpu(fs_program *p, int32_t t, int cpu) {
  if (cpu < 0 || cpu > 255 || optional_array(p, &p->cpu, 1, 0)) return -1;
  p->cpu[t] = (uint8_t)cpu;
  return 0;
}

int fs_task_set_nic(fs_program *p, int32_t t, int nic) {
  if (nic < 0 || nic > 255 || optional_array(p, &p->nic, 1, 0)) return -1;
  p->nic[t] = (uint8_t)nic;
  return 0;
}

int fs_task_set_protocol(fs_program *p, int32_t t, int protocol) {
  if (protocol < 0 || protocol >= FS_PROTOCOLS || optional_array(p, &p->protocol, 1, 0)) return -1;
  p->protocol[t] = (uint8_t)protocol;
  return 0;
}

static const char *const protocol_names[FS_PROTOCOLS] = {"", "LL", "LL128", "Simple"};

const char *fs_protocol_name(int protocol) {
  return protocol >= 0 && protocol < FS_PROTOCOLS ? protocol_names[protocol] : "?";
}

int fs_protocol_from_name(const char *text, int64_t length) {
  for (int i = 1; i < FS_PROTOCOLS; i++)
    if ((int64_t)strlen(protocol_names[i]) == length &&
        !memcmp(text, protocol_names[i], (size_t)length))
      return i;
  return -1;
}

int fs_task_set_label(fs_program *p, int32_t t, int32_t label) {
  if (optional_array(p, &p->label, 4, 0xff)) return -1; /* all bytes 0xff: -1 */
  p->label[t] = label;
  return 0;
}

int32_t fs_task_generated_id(const char *text, int64_t length) {
  if (length < 2 || length > 11 || text[0] != 't' || (text[1] == '0' && length > 2)) return -1;
  int64_t id = 0;
  for (int64_t i = 1; i < length; i++) {
    if (text[i] < '0' || text[i] > '9') return -1;
    id = id * 10 + (text[i] - '0');
  }
  return id <= INT32_MAX ? (int32_t)id : -1;
}

int fs_task_set_name(fs_program *p, int32_t t, const char *name, int64_t length) {
  p->named = 1;
  if (fs_task_generated_id(name, length) == t) { /* generated: nothing to keep */
    if (p->name_at) p->name_at[t] = -1;
    return 0;
  }
  if (optional_array(p, &p->name_at, 8, 0xff)) return -1;
  if (p->names_used + length + 1 > p->names_capacity) {
    int64_t want = p->names_capacity ? p->names_capacity * 2 : 4096;
    while (want < p->names_used + length + 1) want *= 2;
    if (grow(&p->names, 1, want)) return -1;
    p->names_capacity = want;
  }
  memcpy(p->names + p->names_used, name, (size_t)length);
  p->names[p->names_used + length] = 0;
  p->name_at[t] = p->names_used;
  p->names_used += length + 1;
  return 0;
}

/* v in decimal at to; returns the end. */
static char *decimal(char *to, uint32_t v) {
  char digits[16];
  int n = 0;
  do digits[n++] = (char)('0' + v % 10), v /= 10;
  while (v);
  for (int i = 0; i < n; i++) to[i] = digits[n - 1 - i];
  return to + n;
}

/* "rR.lK" of a program with implied names: R's first task by bisection
 * (ranks ascend), at most 1 + 10 + 2 + 10 bytes and the NUL. */
static const char *implied_name(const fs_program *p, int32_t t, char buffer[24]) {
  int32_t rank = p->rank[t], low = 0, high = t;
  if (p->interleaved) /* the position, less t: so that t - low is it */
    low = t - t / p->ranks, high = low;
  while (low < high) {
    int32_t middle = low + (high - low) / 2;
    if (p->rank[middle] < rank)
      low = middle + 1;
    else
      high = middle;
  }
  buffer[0] = 'r';
  char *at = decimal(buffer + 1, (uint32_t)rank);
  at[0] = '.', at[1] = 'l';
  *decimal(at + 2, (uint32_t)(t - low + 1)) = 0;
  return buffer;
}

const char *fs_task_name(const fs_program *p, int32_t t, char buffer[24]) {
  if (p->names_implied) return implied_name(p, t, buffer);
  if (fs_task_name_stored(p, t)) return p->names + p->name_at[t];
  buffer[0] = 't';
  *decimal(buffer + 1, (uint32_t)t) = 0;
  return buffer;
}

int fs_task_name_equals(const fs_program *p, int32_t t, const char *text, int64_t length) {
  if (!fs_task_name_stored(p, t)) return fs_task_generated_id(text, length) == t;
  char buffer[24];
  const char *name = p->names_implied ? implied_name(p, t, buffer) : p->names + p->name_at[t];
  int64_t i = 0;
  while (i < length && name[i] == text[i] && name[i]) i++; /* stops at the stored name's end */
  return i == length && name[i] == 0;
}

const char *fs_task_label(const fs_program *p, int32_t t) {
  if (p->symmetric) {
    int32_t label = fs_template_of(p, t)->label;
    return label >= 0 ? p->labels[label] : NULL;
  }
  return p->label && p->label[t] >= 0 ? p->labels[p->label[t]] : NULL;
}

/* Counting sort of the pairs by `from`; a task's start edges, then local
 * ones, then completion ones, each group in the order they were added. */
static int build_successors(fs_program *p) {
  int64_t n = p->tasks, m = p->dependencies;
  uint32_t *at = calloc((size_t)n + 2, sizeof *at);
  uint32_t *out = malloc((size_t)(m ? m : 1) * sizeof *out);
  if (!at || !out) {
    free(at);
    free(out);
    return -1;
  }
  fs_memory_huge_pages(at, ((size_t)n + 2) * sizeof *at);
  fs_memory_huge_pages(out, (size_t)m * sizeof *out);
  /* at[from+2] counts; then one pass per kind of edge present places start,
   * local, then completion edges. */
  int64_t local_dependencies = 0;
  p->start_dependencies = 0;
  for (int64_t e = 0; e < m; e++) {
    at[p->pending[2 * e] + 2]++;
    p->start_dependencies += (p->pending[2 * e + 1] & FS_EDGE_START) != 0;
    local_dependencies += (p->pending[2 * e + 1] & FS_EDGE_LOCAL) != 0;
  }
  for (int64_t i = 2; i < n + 2; i++) at[i] += at[i - 1];
  /* at[from+1] is now the start of from's range; fill it */
  const uint32_t pass_flags[3] = {FS_EDGE_START, FS_EDGE_LOCAL, 0};
  const int64_t pass_edges[3] = {p->start_dependencies, local_dependencies,
                                 m - p->start_dependencies - local_dependencies};
  for (int pass = 0; pass < 3; pass++)
    for (int64_t e = 0; pass_edges[pass] > 0 && e < m; e++) {
      uint32_t to = p->pending[2 * e + 1];
      if ((to & (FS_EDGE_START | FS_EDGE_LOCAL)) == pass_flags[pass])
        out[at[p->pending[2 * e] + 1]++] = to;
    }
  /* at[from+1] is the end of from's range == start of from+1 */
  p->successor_at = at;
  p->successor = out;
  free(p->pending);
  p->pending = NULL;
  p->pending_capacity = 0;
  return 0;
}

static int ascending(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Slots for the per-rank state of a run: every rank, or, when the ranks
 * far outnumber the tasks, only the ranks the tasks use (program.h). */
static int assign_slots(fs_program *p, fs_error *err) {
  p->slots = p->ranks;
  if (p->ranks <= 4 * (int64_t)p->tasks + 4096) return 0;
  fs_index_map used;
  if (fs_index_map_init(&used, 2 * (int64_t)p->tasks + 1, "the rank slots", err)) return -1;
  for (int32_t t = 0; t < p->tasks; t++) {
    fs_index_map_add(&used, p->rank[t]);
    if (p->kind[t] >= FS_PUT && p->peer[t] >= 0) fs_index_map_add(&used, p->peer[t]);
  }
  if (used.count == 0) fs_index_map_add(&used, 0); /* one slot at least: no empty arrays */
  int32_t *rank = fs_allocate(used.count, sizeof *rank, "the rank slots", err);
  if (!rank) {
    fs_index_map_free(&used);
    return -1;
  }
  for (uint32_t i = 0; i <= used.mask; i++)
    if (used.keys[i] >= 0) rank[used.values[i]] = used.keys[i];
  qsort(rank, (size_t)used.count, sizeof *rank, ascending);
  int32_t count = used.count;
  memset(used.keys, 0xff, ((size_t)used.mask + 1) * sizeof *used.keys);
  used.count = 0;
  for (int32_t s = 0; s < count; s++) fs_index_map_add(&used, rank[s]); /* slot s: rank[s] */
  p->slots = count;
  p->slot_rank = rank;
  p->slot_of = used;
  return 0;
}

int fs_program_set_successors(fs_program *p, uint32_t *successor_at, uint32_t *successor,
                              int64_t dependencies, int64_t start_dependencies) {
  if (p->finalized || p->dependencies || p->successor_at) {
    free(successor_at);
    free(successor);
    return -1;
  }
  p->successor_at = successor_at;
  p->successor = successor;
  p->dependencies = dependencies;
  p->start_dependencies = start_dependencies;
  return 0;
}

int fs_program_finalize(fs_program *p, fs_error *err) {
  if (p->finalized) return 0;
  if (p->symmetric) {
    if (fs_symmetric_finalize(p, err)) return -1;
    p->finalized = 1;
    return 0;
  }
  /* in-degrees: into need itself when no task has any= (need is the
   * in-degree then), else into a scratch array */
  int has_any = 0;
  for (int32_t t = 0; t < p->tasks; t++) has_any |= p->flags[t] & FS_HAS_ANY;
  int32_t *degree = has_any ? calloc((size_t)p->tasks + 1, sizeof *degree) : p->need;
  if (has_any && !degree) return fs_error_set(err, "out of memory finalizing %d tasks", p->tasks);
  int counted = p->degrees_counted && !has_any; /* need is the in-degree already */
  if (!has_any && p->tasks && !counted) memset(degree, 0, (size_t)p->tasks * sizeof *degree);
  for (int64_t e = 0; p->pending && !counted && e < p->dependencies; e++)
    degree[FS_EDGE_TASK(p->pending[2 * e + 1])]++;
  for (int64_t e = 0; p->successor_at && !counted && e < p->dependencies; e++)
    degree[FS_EDGE_TASK(p->successor[e])]++;
  char name[24];
  for (int32_t t = 0; t < p->tasks; t++) {
    int kind = p->kind[t];
    if (p->rank[t] < 0 || p->rank[t] >= p->ranks) {
      if (has_any) free(degree);
      return fs_error_set(err, "task %s: rank %d is outside [0, %d)", fs_task_name(p, t, name),
                          p->rank[t], p->ranks);
    }
    int lowest_peer = kind == FS_RECV ? FS_ANY_SOURCE : 0;
    if ((kind == FS_PUT || kind == FS_GET || kind == FS_SEND || kind == FS_RECV) &&
        (p->peer[t] < lowest_peer || p->peer[t] >= p->ranks)) {
      if (has_any) free(degree);
      return fs_error_set(err, "task %s: peer rank %d is outside [0, %d)", fs_task_name(p, t, name),
                          p->peer[t], p->ranks);
    }
    if (p->flags[t] & FS_HAS_ANY) {
      if (p->need[t] < 1 || p->need[t] > degree[t]) {
        int32_t any = p->need[t], count = degree[t];
        if (has_any) free(degree);
        return fs_error_set(err, "task %s: any=%d but it has %d dependencies",
                            fs_task_name(p, t, name), any, count);
      }
    } else {
      p->need[t] = degree[t];
    }
  }
  if (has_any) free(degree);
  p->cpus = p->nics = 1;
  for (int32_t t = 0; p->cpu && t < p->tasks; t++)
    if (p->cpu[t] + 1 > p->cpus) p->cpus = p->cpu[t] + 1;
  for (int32_t t = 0; p->nic && t < p->tasks; t++)
    if (p->nic[t] + 1 > p->nics) p->nics = p->nic[t] + 1;
  if (!p->successor_at && build_successors(p))
    return fs_error_set(err, "out of memory finalizing dependencies");
  if (assign_slots(p, err)) return -1;
  p->finalized = 1;
  return 0;
}

int64_t fs_program_bytes(const fs_program *p) {
  if (p->symmetric) /* the template, whatever the rank count */
    return ((int64_t)p->symmetric->count + 1) * (int64_t)sizeof(fs_template_task) +
           (int64_t)p->symmetric->edge_capacity * (int64_t)sizeof(fs_template_edge);
  int64_t per_task = 1 + 1 + 4 + 4 + 8 + 4 + 4 + (p->label ? 4 : 0) + (p->name_at ? 8 : 0) +
                     (p->tag ? 4 : 0) + (p->stride ? 8 : 0) + (p->cpu ? 1 : 0) + (p->nic ? 1 : 0) +
                     (p->protocol ? 1 : 0);
  return (int64_t)p->capacity * per_task + p->dependencies * 4 + p->names_capacity +
         (p->slot_rank ? (int64_t)p->slots * 4 + fs_index_map_bytes(&p->slot_of) : 0);
}
