/* goal_writer.c: see goal_writer.h. One pass checks that GOAL can express
 * the program; a counting sort groups task ids by rank (4 bytes per task,
 * none when the tasks already come rank by rank, as generators add them);
 * each rank's predecessor lists are rebuilt in scratch sized for the
 * largest rank, so memory never grows with the text. Lines are assembled
 * with a small integer formatter: printf would dominate at 10^7 lines. */
#include "formats/goal_writer.h"

#include <stdlib.h>
#include <string.h>

typedef struct goal_writer {
  const fs_program *p;
  fs_output *out;
  fs_error *err;
  int64_t *rank_at; /* rank r's tasks: positions rank_at[r] .. rank_at[r+1] */
  int32_t *order;   /* task at each position (ids ascending within a rank);
                       NULL when tasks come rank by rank: position = id */
  int64_t *pred_at; /* current rank: predecessors of local task j at pred[pred_at[j]..) */
  uint32_t *pred;   /* local predecessor index, FS_EDGE_START for irequires */
  uint32_t *edge;   /* scratch pairs (dependent, predecessor|start) */
  char name[24];
} goal_writer;

/* ---- what GOAL cannot express ------------------------------------------- */

static int refuse(goal_writer *w, int32_t t, const char *why) {
  const fs_program *p = w->p;
  return fs_error_set(w->err, "task %s (%s on rank %d) cannot be written as GOAL: %s",
                      fs_task_name(p, t, w->name), fs_task_kind_name((fs_task_kind)p->kind[t]),
                      p->rank[t], why);
}

static int check_compute(goal_writer *w, int32_t t) {
  const fs_program *p = w->p;
  if (!(p->flags[t] & FS_HAS_TIME))
    return refuse(w, t, "calc needs a time=, and this compute is priced by the compute model");
  if (p->value[t] < 0 || p->value[t] % FS_NS != 0)
    return refuse(w, t, "calc takes a whole, non-negative number of ns");
  if (fs_task_nic(p, t) != 0) return refuse(w, t, "calc takes no nic");
  return 0;
}

static int check_message(goal_writer *w, int32_t t) {
  const fs_program *p = w->p;
  int32_t tag = fs_task_tag(p, t);
  if (p->value[t] < 0) return refuse(w, t, "its size is negative");
  if (p->kind[t] == FS_SEND && tag < 0) return refuse(w, t, "a send needs a tag of 0 or more");
  if (tag < FS_ANY_TAG) return refuse(w, t, "a recv tag is -1 (any) or 0 or more");
  return 0;
}

static int check_dependencies(goal_writer *w, int32_t t) {
  const fs_program *p = w->p;
  for (int64_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++) {
    int32_t s = FS_EDGE_TASK(p->successor[e]);
    char other[24];
    if (p->rank[s] != p->rank[t])
      return fs_error_set(w->err,
                          "task %s (rank %d) depends on task %s (rank %d): GOAL "
                          "dependencies stay within a rank",
                          fs_task_name(p, s, other), p->rank[s], fs_task_name(p, t, w->name),
                          p->rank[t]);
    if (p->successor[e] & FS_EDGE_LOCAL)
      return fs_error_set(w->err,
                          "task %s depends on the local completion of task %s: GOAL "
                          "has only requires (completion) and irequires (start)",
                          fs_task_name(p, s, other), fs_task_name(p, t, w->name));
  }
  return 0;
}

static int check_task(goal_writer *w, int32_t t) {
  const fs_program *p = w->p;
  int kind = p->kind[t];
  if (kind != FS_SEND && kind != FS_RECV && kind != FS_COMPUTE)
    return refuse(w, t, "GOAL has only send, recv and calc");
  if (p->flags[t] & FS_CONCURRENT) return refuse(w, t, "GOAL has no concurrent tasks");
  if (p->flags[t] & FS_HAS_ANY) return refuse(w, t, "GOAL has no any=K (a task needs all)");
  if (kind == FS_COMPUTE ? check_compute(w, t) : check_message(w, t)) return -1;
  return check_dependencies(w, t);
}

/* ---- grouping by rank ----------------------------------------------------- */

static int32_t task_at(const goal_writer *w, int64_t position) {
  return w->order ? w->order[position] : (int32_t)position;
}

static int group_by_rank(goal_writer *w) {
  const fs_program *p = w->p;
  int rank_by_rank = 1;
  w->rank_at = calloc((size_t)p->ranks + 2, sizeof *w->rank_at);
  if (!w->rank_at) return -1;
  for (int32_t t = 0; t < p->tasks; t++) {
    w->rank_at[p->rank[t] + 2]++;
    rank_by_rank &= t == 0 || p->rank[t] >= p->rank[t - 1];
  }
  for (int32_t r = 2; r < p->ranks + 2; r++) w->rank_at[r] += w->rank_at[r - 1];
  if (rank_by_rank) {
    memmove(w->rank_at, w->rank_at + 1, ((size_t)p->ranks + 1) * sizeof *w->rank_at);
    return 0;
  }
  if (!(w->order = malloc(((size_t)p->tasks + 1) * sizeof *w->order))) return -1;
  for (int32_t t = 0; t < p->tasks; t++) w->order[w->rank_at[p->rank[t] + 1]++] = t;
  return 0; /* rank_at[r] is now the start of rank r */
}

/* Scratch for the rank with the most tasks and dependencies. */
static int allocate_scratch(goal_writer *w) {
  const fs_program *p = w->p;
  int64_t tasks = 0, edges = 0;
  for (int32_t r = 0; r < p->ranks; r++) {
    int64_t a = w->rank_at[r], b = w->rank_at[r + 1], m = 0;
    for (int64_t i = a; i < b; i++)
      m += p->successor_at[task_at(w, i) + 1] - p->successor_at[task_at(w, i)];
    if (b - a > tasks) tasks = b - a;
    if (m > edges) edges = m;
  }
  w->pred_at = malloc(((size_t)tasks + 2) * sizeof *w->pred_at);
  w->pred = malloc(((size_t)edges + 1) * sizeof *w->pred);
  w->edge = malloc(((size_t)edges + 1) * 2 * sizeof *w->edge);
  return w->pred_at && w->pred && w->edge ? 0 : -1;
}

/* Position of task t within its rank, whose tasks start at position first. */
static uint32_t local_index(const goal_writer *w, int64_t first, int64_t count, int32_t t) {
  if (!w->order) return (uint32_t)(t - first);
  int64_t low = 0, high = count - 1;
  while (low < high) {
    int64_t mid = low + (high - low) / 2;
    if (w->order[first + mid] < t)
      low = mid + 1;
    else
      high = mid;
  }
  return (uint32_t)low;
}

/* pred_at/pred for the count tasks from position first: a counting sort of
 * the rank's edges by dependent; visiting predecessors in order keeps each
 * list sorted. */
static void build_predecessors(goal_writer *w, int64_t first, int64_t count) {
  const fs_program *p = w->p;
  int64_t m = 0;
  memset(w->pred_at, 0, ((size_t)count + 2) * sizeof *w->pred_at);
  for (int64_t i = 0; i < count; i++) {
    int32_t t = task_at(w, first + i);
    for (int64_t e = p->successor_at[t]; e < p->successor_at[t + 1]; e++, m++) {
      uint32_t j = local_index(w, first, count, FS_EDGE_TASK(p->successor[e]));
      w->edge[2 * m] = j;
      w->edge[2 * m + 1] = (uint32_t)i | (p->successor[e] & FS_EDGE_START);
      w->pred_at[j + 2]++;
    }
  }
  for (int64_t j = 2; j < count + 2; j++) w->pred_at[j] += w->pred_at[j - 1];
  for (int64_t k = 0; k < m; k++) w->pred[w->pred_at[w->edge[2 * k] + 1]++] = w->edge[2 * k + 1];
}

/* ---- text ----------------------------------------------------------------- */

typedef struct line {
  char text[160];
  size_t length;
} line;

static void append(line *l, const char *text) {
  size_t n = strlen(text);
  memcpy(l->text + l->length, text, n);
  l->length += n;
}

static void append_int(line *l, int64_t v) {
  char digits[24];
  int n = 0;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do digits[n++] = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) l->text[l->length++] = '-';
  while (n > 0) l->text[l->length++] = digits[--n];
}

static void append_label(line *l, int64_t index) {
  l->text[l->length++] = 'l';
  append_int(l, index + 1);
}

/* "lK: send Sb to R tag T", "lK: recv Sb from R tag T", "lK: calc N", then
 * cpu and nic when not 0. */
static void format_op(const fs_program *p, int32_t t, int64_t index, line *l) {
  int kind = p->kind[t];
  l->length = 0;
  append_label(l, index);
  if (kind == FS_COMPUTE) {
    append(l, ": calc ");
    append_int(l, p->value[t] / FS_NS);
  } else {
    append(l, kind == FS_SEND ? ": send " : ": recv ");
    append_int(l, p->value[t]);
    append(l, kind == FS_SEND ? "b to " : "b from ");
    append_int(l, p->peer[t]);
    append(l, " tag ");
    append_int(l, fs_task_tag(p, t));
  }
  if (fs_task_cpu(p, t)) append(l, " cpu "), append_int(l, fs_task_cpu(p, t));
  if (fs_task_nic(p, t)) append(l, " nic "), append_int(l, fs_task_nic(p, t));
  l->text[l->length++] = '\n';
}

/* 0, or -1 once the output has failed (commit reports why). */
static int write_rank(goal_writer *w, int32_t r) {
  int64_t first = w->rank_at[r], count = w->rank_at[r + 1] - first;
  line l;
  if (fs_output_printf(w->out, "\nrank %d {\n", r)) return -1;
  for (int64_t i = 0; i < count; i++) {
    format_op(w->p, task_at(w, first + i), i, &l);
    if (fs_output_write(w->out, l.text, l.length)) return -1;
  }
  build_predecessors(w, first, count);
  for (int64_t j = 0; j < count; j++)
    for (int64_t k = w->pred_at[j]; k < w->pred_at[j + 1]; k++) {
      l.length = 0;
      append_label(&l, j);
      append(&l, w->pred[k] & FS_EDGE_START ? " irequires " : " requires ");
      append_label(&l, w->pred[k] & ~FS_EDGE_START);
      l.text[l.length++] = '\n';
      if (fs_output_write(w->out, l.text, l.length)) return -1;
    }
  return fs_output_puts(w->out, "}\n");
}

static void free_writer(goal_writer *w) {
  free(w->rank_at);
  free(w->order);
  free(w->pred_at);
  free(w->pred);
  free(w->edge);
}

int fs_goal_write_output(const fs_program *p, fs_output *out, fs_error *err) {
  goal_writer w = {.p = p, .out = out, .err = err};
  if (!p->finalized) return fs_error_set(err, "cannot write a program that is not finalized");
  for (int32_t t = 0; t < p->tasks; t++)
    if (check_task(&w, t)) return -1;
  if (group_by_rank(&w) || allocate_scratch(&w)) {
    free_writer(&w);
    return fs_error_set(err, "out of memory grouping %d tasks by rank", p->tasks);
  }
  if (fs_output_printf(out, "num_ranks %d\n", p->ranks) == 0)
    for (int32_t r = 0; r < p->ranks && write_rank(&w, r) == 0; r++)
      fs_output_progress(out, (int64_t)r + 1);
  free_writer(&w);
  return 0;
}

int fs_goal_write(const fs_program *p, const char *path, fs_error *err) {
  fs_output *out = fs_output_open(path, err);
  if (!out) return -1;
  fs_error inner;
  if (fs_goal_write_output(p, out, &inner)) {
    fs_output_abort(out);
    return fs_error_set(err, "%s: %s", path, inner.message);
  }
  return fs_output_commit(out, err);
}
