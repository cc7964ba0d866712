/* goal_reader.c: see goal_reader.h. A hand-written scanner over the lines
 * that text_input hands out, following txt2bin's states: between statements
 * words are whole identifiers, inside a statement keywords are matched as
 * prefixes (txt2bin's re2c rules there have no identifier to compete with).
 * The labels of the open rank block map to task ids through a name_index
 * whose strings are the task names themselves ("rR." + label). */
#include "formats/goal_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>

#include "formats/goal_interleaved.h"
#include "formats/goal_lines.h"
#include "formats/name_index.h"
#include "formats/read_program.h"

#define LABELS_FIRST 64 /* label table slots at the start of a block */
#define LABELS_KEEP 256 /* a larger table is freed at '}', not cleared */

typedef struct goal_reader {
  const char *input_name; /* for messages */
  int64_t line_number;    /* of the line being read (1-based) */
  fs_error *err;
  fs_program *p;        /* created by num_ranks */
  int32_t rank;         /* the rank whose block is open, or -1 */
  int32_t next_rank;    /* the number of blocks closed so far */
  int64_t block_line;   /* where the open block started */
  int64_t comment_line; /* where the open block comment started; 0: none */
  size_t comment_column;
  fs_name_index labels; /* label -> task, for the open block */
  char *name;           /* "rR." then a label: the name being built */
  size_t name_capacity, prefix_length;
  const char *line; /* the current line, its length and the cursor */
  size_t length, at;
  /* successors, built block by block: a block's dependencies link its own
   * tasks, so sorting each block's edges gives the program's order */
  uint32_t *edges; /* pairs of the open block: on - block_first, task|FS_EDGE_START */
  size_t edge_count, edge_capacity;
  uint32_t *scratch; /* per task of the block: where its successors go */
  size_t scratch_capacity;
  int32_t block_first; /* the first task of the open block */
  uint32_t *successor_at, *successor;
  int64_t at_capacity, dependencies, successor_capacity, start_dependencies;
  /* a part read by a thread of its own (section "parts") knows its line
   * numbers only from its own start: its error is kept without the
   * "FILE:LINE:COLUMN: " prefix (in err) and placed when the parts join */
  int deferred;
  int64_t error_line, error_column;
  /* every task so far is labelled "lK", K its place in its block from 1
   * (what schedgen writes): no name is stored and no label table kept,
   * the program's names are implied (section "labels") */
  int implied;
  struct ahead *ahead; /* the thread populating the arrays ahead, or NULL */
  int ahead_owner;     /* the arrays it populates are this reader's */
  int ahead_slot;      /* where this reader tells it its progress */
  int64_t ahead_next;  /* the task count at which to tell it again */
} goal_reader;

/* One operation, as parsed before it is added. */
typedef struct operation {
  fs_task_kind kind;
  int64_t amount; /* bytes (send, recv) or nanoseconds (calc) */
  int32_t peer, tag;
  int64_t cpu, nic;
} operation;

enum keyword { K_NONE, K_NUM_RANKS, K_RANK, K_SEND, K_RECV, K_CALC };

/* ---- characters and the cursor ---- */

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_word(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

/* Runs several times per statement: works on locals, stores the cursor once. */
static void skip_blanks(goal_reader *r) {
  const char *line = r->line;
  size_t at = r->at, length = r->length;
  while (at < length && (line[at] == ' ' || line[at] == '\t')) at++;
  r->at = at;
}

static int at_end(goal_reader *r) {
  skip_blanks(r);
  return r->at == r->length;
}

/* Takes `word` when the text at the cursor (after blanks) starts with it. */
static int accept_text(goal_reader *r, const char *word, size_t length) {
  skip_blanks(r);
  size_t at = r->at;
  if (r->length - at < length || memcmp(r->line + at, word, length) != 0) return 0;
  r->at = at + length;
  return 1;
}
#define accept(r, word) accept_text(r, word, sizeof word - 1)

/* The length of the identifier at the cursor, 0 when there is none. */
static size_t identifier_length(const goal_reader *r) {
  const char *text = r->line + r->at;
  size_t n = 0, left = r->length - r->at;
  if (left > 0 && is_alpha(text[0]))
    while (n < left && is_word(text[n])) n++;
  return n;
}

static enum keyword keyword_of(const char *word, size_t length) {
  static const struct {
    const char *text;
    size_t length;
    enum keyword keyword;
  } words[] = {{"num_ranks", 9, K_NUM_RANKS},
               {"rank", 4, K_RANK},
               {"send", 4, K_SEND},
               {"recv", 4, K_RECV},
               {"calc", 4, K_CALC}};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (length == words[i].length && memcmp(word, words[i].text, length) == 0)
      return words[i].keyword;
  return K_NONE;
}

/* ---- errors ---- */

/* "FILE:LINE:COLUMN: message" into r->err, or only the message (a part's). */
FS_PRINTF(4, 5)
static int report(goal_reader *r, int64_t line, int64_t column, const char *format, ...) {
  va_list args;
  va_start(args, format);
  if (r->deferred) {
    r->error_line = line, r->error_column = column;
    vsnprintf(r->err->message, sizeof r->err->message, format, args);
  } else {
    fs_text_verror_at(r->err, r->input_name, line, column, format, args);
  }
  va_end(args);
  return -1;
}

/* The error for the byte at `column` (0-based) of the current line. */
#define fail(r, column, ...) report(r, (r)->line_number, (int64_t)(column) + 1, __VA_ARGS__)

/* The token at `column` quoted for a message: a word, a number (with its
 * sign) or one character; shortened, control bytes shown as '?'. */
static const char *show(const goal_reader *r, size_t column, char buffer[FS_TEXT_QUOTED_SIZE]) {
  if (column > r->length) column = r->length;
  const char *text = r->line + column;
  size_t left = r->length - column, n = left ? 1 : 0;
  if (left && (is_word(text[0]) || (text[0] == '-' && left > 1 && is_digit(text[1]))))
    while (n < left && is_word(text[n])) n++;
  return fs_text_quoted(text, n, r->line + r->length, buffer);
}

static int expected(goal_reader *r, size_t column, const char *what) {
  char shown[FS_TEXT_QUOTED_SIZE];
  return fail(r, column, "expected %s (got %s)", what, show(r, column, shown));
}

static int out_of_memory(goal_reader *r) { return fail(r, 0, "out of memory"); }

/* What may come where a statement may start, for the error there. */
static int unexpected(goal_reader *r, size_t column) {
  char what[160];
  if (r->rank >= 0)
    snprintf(what, sizeof what,
             "a statement (send, recv, calc, LABEL: ..., LABEL requires "
             "LABEL, LABEL irequires LABEL) or '}' closing the block of rank %d",
             (int)r->rank);
  else if (!r->p)
    snprintf(what, sizeof what, "'num_ranks N'");
  else if (r->next_rank < r->p->ranks)
    snprintf(what, sizeof what, "'rank %d {'", (int)r->next_rank);
  else
    snprintf(what, sizeof what, "the end of the file after the block of rank %d, the last",
             (int)r->next_rank - 1);
  return expected(r, column, what);
}

/* ---- numbers ---- */

/* Parses the digits at the cursor (after blanks) as a number in [min, max].
 * On failure *start is where the token began, for the caller's message. */
static int parse_number(goal_reader *r, int64_t min, int64_t max, int64_t *out, size_t *start) {
  skip_blanks(r);
  const char *line = r->line;
  size_t at = r->at, length = r->length;
  uint64_t value = 0;
  *start = at;
  while (at < length && line[at] == '0') at++;
  size_t significant = at;
  for (; at < length && is_digit(line[at]); at++) value = value * 10 + (unsigned)(line[at] - '0');
  r->at = at;
  /* 19 significant digits always fit in 64 bits (max < 2^63); more may wrap */
  if (at == *start || at - significant > 19 || value < (uint64_t)min || value > (uint64_t)max)
    return -1;
  *out = (int64_t)value;
  return 0;
}

static int read_number(goal_reader *r, int64_t min, int64_t max, const char *what, int64_t *out) {
  size_t start;
  return parse_number(r, min, max, out, &start) ? expected(r, start, what) : 0;
}

/* "-1" (any) or a number in [min, max]. */
static int parse_number_or_any(goal_reader *r, int64_t max, int32_t *out, size_t *start) {
  int64_t value;
  if (accept(r, "-1")) {
    *out = -1;
    return 0;
  }
  if (parse_number(r, 0, max, &value, start)) return -1;
  *out = (int32_t)value;
  return 0;
}

/* ---- operations ---- */

/* The peer rank; the message (which names the rank count) is made only
 * when it is needed: this runs once per operation. */
static int read_peer(goal_reader *r, operation *op) {
  int32_t ranks = r->p->ranks;
  int64_t peer;
  size_t start;
  char what[96];
  if (op->kind == FS_RECV) {
    if (parse_number_or_any(r, ranks - 1, &op->peer, &start) == 0) return 0;
    snprintf(what, sizeof what, "a source rank in [0, %d) or -1 (any)", (int)ranks);
    return expected(r, start, what);
  }
  if (parse_number(r, 0, ranks - 1, &peer, &start) == 0) {
    op->peer = (int32_t)peer;
    return 0;
  }
  snprintf(what, sizeof what, "a destination rank in [0, %d)", (int)ranks);
  return expected(r, start, what);
}

/* [tag T] [cpu C] [nic N] in this order, each optional, then the end. */
static int read_clauses(goal_reader *r, operation *op) {
  static const char *const next[] = {"'tag', 'cpu', 'nic' or end of line",
                                     "'cpu', 'nic' or end of line", "'nic' or end of line",
                                     "end of line"};
  int state = 0;
  size_t start;
  if (at_end(r)) return 0; /* most operations: no clause */
  if (accept(r, "tag")) {
    if (parse_number_or_any(r, INT32_MAX, &op->tag, &start))
      return expected(r, start, "a tag from 0 to 2147483647 or -1 (any)");
    state = 1;
  }
  if (accept(r, "cpu")) {
    if (read_number(r, 0, 255, "a CPU index from 0 to 255", &op->cpu)) return -1;
    state = 2;
  }
  if (accept(r, "nic")) {
    if (read_number(r, 0, 255, "a NIC index from 0 to 255", &op->nic)) return -1;
    state = 3;
  }
  return at_end(r) ? 0 : expected(r, r->at, next[state]);
}

/* send SIZEb to PEER ... / recv SIZEb from PEER ...: after the keyword. */
static int read_message(goal_reader *r, operation *op) {
  int send = op->kind == FS_SEND;
  if (read_number(r, 0, FS_SIZE_LIMIT,
                  "a message size in bytes, from 0 to 4611686018427387904 (2^62, the limit)",
                  &op->amount))
    return -1;
  if (!accept(r, "b")) return expected(r, r->at, "'b' after the message size");
  if (send ? !accept(r, "to") : !accept(r, "from"))
    return expected(r, r->at,
                    send ? "'to' after the size of a send" : "'from' after the size of a recv");
  return read_peer(r, op) || read_clauses(r, op) ? -1 : 0;
}

/* calc TIME [cpu C]: after the keyword. */
static int read_calc(goal_reader *r, operation *op) {
  if (read_number(r, 0, GOAL_MAX_CALC_NS,
                  "a calc time in ns, from 0 to 4611686018427387 (the limit, 2^62 ps)",
                  &op->amount))
    return -1;
  int with_cpu = accept(r, "cpu");
  if (with_cpu && read_number(r, 0, 255, "a CPU index from 0 to 255", &op->cpu)) return -1;
  return at_end(r) ? 0 : expected(r, r->at, with_cpu ? "end of line" : "'cpu' or end of line");
}

/* ---- labels ---- */

static const char *label_of(const void *owner, int32_t id) {
  const goal_reader *r = owner;
  return r->p->names + r->p->name_at[id] + r->prefix_length;
}

static int32_t find_label(const goal_reader *r, const char *text, size_t length, uint32_t hash) {
  return fs_name_index_find(&r->labels, hash, text, length, label_of, r);
}

/* K when text is "lK" (K from 1 in canonical decimal), else 0. */
static int64_t pattern_label(const char *text, size_t length) {
  if (length < 2 || length > 11 || text[0] != 'l' || text[1] == '0') return 0;
  int64_t k = 0;
  for (size_t i = 1; i < length; i++) {
    if (!is_digit(text[i])) return 0;
    k = k * 10 + (text[i] - '0');
  }
  return k;
}

/* Leaves implied names: tasks [0, upto) get their names stored, and those
 * of the open block enter its table, as define_label would have done. */
static int leave_pattern(goal_reader *r, int32_t upto) {
  fs_program *p = r->p;
  char name[24];
  r->implied = 0;
  for (int32_t t = 0, first = 0; t < upto; t++) {
    if (t == 0 || p->rank[t] != p->rank[t - 1]) first = t;
    int n = snprintf(name, sizeof name, "r%d.l%d", (int)p->rank[t], (int)(t - first + 1));
    if (fs_task_set_name(p, t, name, n)) return -1;
    if (r->rank < 0 || t < r->block_first) continue;
    const char *label = name + r->prefix_length;
    if ((!r->labels.slots && fs_name_index_resize(&r->labels, LABELS_FIRST)) ||
        fs_name_index_add(&r->labels, fs_name_hash(label, strlen(label)), t))
      return -1;
  }
  return 0;
}

/* Names task "rR.LABEL" and enters it in the block's table. A label
 * taken in the block is an error (txt2bin silently keeps the first). */
static int define_label(goal_reader *r, int32_t task, size_t column, size_t length) {
  const char *text = r->line + column;
  if (r->implied && pattern_label(text, length) == task - r->block_first + 1) return 0;
  if (r->implied && leave_pattern(r, task)) return out_of_memory(r);
  uint32_t hash = fs_name_hash(text, length);
  if (find_label(r, text, length, hash) >= 0) {
    char what[96];
    snprintf(what, sizeof what, "a label not yet defined in the block of rank %d", (int)r->rank);
    return expected(r, column, what);
  }
  size_t need = r->prefix_length + length;
  if (need > r->name_capacity) {
    size_t capacity = r->name_capacity * 2 > need ? r->name_capacity * 2 : need;
    char *bigger = realloc(r->name, capacity);
    if (!bigger) return out_of_memory(r);
    r->name = bigger;
    r->name_capacity = capacity;
  }
  memcpy(r->name + r->prefix_length, text, length);
  if (fs_task_set_name(r->p, task, r->name, (int64_t)need)) return out_of_memory(r);
  if (!r->labels.slots && fs_name_index_resize(&r->labels, LABELS_FIRST)) return out_of_memory(r);
  return fs_name_index_add(&r->labels, hash, task) ? out_of_memory(r) : 0;
}

/* The task of the label line[column..+length), which must be defined above. */
static int resolve_label(goal_reader *r, size_t column, size_t length, int32_t *task) {
  const char *text = r->line + column;
  int64_t k = r->implied ? pattern_label(text, length) : 0;
  if (r->implied) /* the labels defined are l1 ... lN, N the block's tasks */
    *task = k >= 1 && k <= r->p->tasks - r->block_first ? r->block_first + (int32_t)k - 1 : -1;
  else
    *task = find_label(r, text, length, fs_name_hash(text, length));
  if (*task >= 0) return 0;
  char what[96];
  snprintf(what, sizeof what, "a label defined above in the block of rank %d", (int)r->rank);
  return expected(r, column, what);
}

/* ---- statements ---- */

static int add_operation(goal_reader *r, const operation *op, size_t label, size_t label_length) {
  fs_program *p = r->p;
  int32_t t = fs_program_add(p, op->kind, r->rank);
  if (t < 0 && p->tasks == FS_MAX_TASKS)
    return fail(r, 0, "expected at most %d operations in a program (got one more)", FS_MAX_TASKS);
  if (t < 0) return out_of_memory(r);
  if (op->kind == FS_COMPUTE) {
    fs_task_set_time(p, t, op->amount * FS_NS);
  } else {
    fs_task_set_peer(p, t, op->peer);
    fs_task_set_size(p, t, op->amount);
  }
  /* the optional arrays stay unallocated while everything is 0 */
  if ((op->tag && fs_task_set_tag(p, t, op->tag)) ||
      (op->cpu && fs_task_set_cpu(p, t, (int)op->cpu)) ||
      (op->nic && fs_task_set_nic(p, t, (int)op->nic)))
    return out_of_memory(r);
  if (label_length) return define_label(r, t, label, label_length);
  return r->implied && leave_pattern(r, t) ? out_of_memory(r) : 0;
}

/* An operation after its keyword; label_length 0 when it has no label. */
static int read_operation(goal_reader *r, enum keyword keyword, size_t label, size_t label_length) {
  operation op = {.kind = keyword == K_SEND ? FS_SEND : keyword == K_RECV ? FS_RECV : FS_COMPUTE};
  int status = keyword == K_CALC ? read_calc(r, &op) : read_message(r, &op);
  return status ? -1 : add_operation(r, &op, label, label_length);
}

/* ---- successors ---- */

static int grow_edges(goal_reader *r) {
  size_t capacity = r->edge_capacity ? 2 * r->edge_capacity : 256;
  uint32_t *bigger = realloc(r->edges, capacity * 2 * sizeof *bigger);
  if (!bigger) return -1;
  r->edges = bigger, r->edge_capacity = capacity;
  return 0;
}

/* Room for `more` successors and the offsets of every task so far. */
static int reserve_successors(goal_reader *r, int64_t more) {
  int64_t tasks = r->p ? r->p->tasks : 0;
  if (tasks + 2 > r->at_capacity) {
    int64_t capacity = r->at_capacity ? 2 * r->at_capacity : 4096;
    while (capacity < tasks + 2) capacity *= 2;
    uint32_t *bigger = realloc(r->successor_at, (size_t)capacity * sizeof *bigger);
    if (!bigger) return -1;
    r->successor_at = bigger, r->at_capacity = capacity;
  }
  if (r->dependencies + more > r->successor_capacity) {
    int64_t capacity = r->successor_capacity ? 2 * r->successor_capacity : 4096;
    while (capacity < r->dependencies + more) capacity *= 2;
    uint32_t *bigger = realloc(r->successor, (size_t)capacity * sizeof *bigger);
    if (!bigger) return -1;
    r->successor = bigger, r->successor_capacity = capacity;
  }
  return 0;
}

/* Appends the successors of the block's tasks: a counting sort of its
 * edges by the task depended on, start edges first, each group in file
 * order (as fs_program_finalize orders them). */
static int flush_block(goal_reader *r) {
  size_t n = (size_t)(r->p->tasks - r->block_first), m = r->edge_count;
  if (reserve_successors(r, (int64_t)m)) return -1;
  if (n + 1 > r->scratch_capacity) {
    size_t capacity = n + 1 > 2 * r->scratch_capacity ? n + 1 : 2 * r->scratch_capacity;
    uint32_t *bigger = realloc(r->scratch, capacity * sizeof *bigger);
    if (!bigger) return -1;
    r->scratch = bigger, r->scratch_capacity = capacity;
  }
  uint32_t *place = r->scratch, *at = r->successor_at + r->block_first;
  memset(place, 0, (n + 1) * sizeof *place);
  for (size_t e = 0; e < m; e++) place[r->edges[2 * e]]++;
  uint32_t next = (uint32_t)r->dependencies;
  for (size_t i = 0; i < n; i++) {
    uint32_t count = place[i];
    at[i] = place[i] = next;
    next += count;
  }
  int64_t starts = 0;
  for (size_t e = 0; e < m; e++) starts += (r->edges[2 * e + 1] & FS_EDGE_START) != 0;
  for (int pass = starts ? 0 : 1; pass < 2; pass++)
    for (size_t e = 0; e < m; e++)
      if (((r->edges[2 * e + 1] & FS_EDGE_START) != 0) == (pass == 0))
        r->successor[place[r->edges[2 * e]]++] = r->edges[2 * e + 1];
  r->dependencies += (int64_t)m, r->start_dependencies += starts;
  r->edge_count = 0;
  return 0;
}

/* Hands the successors to the program at the end of the input. */
static int hand_over_successors(goal_reader *r) {
  if (reserve_successors(r, 1)) return -1;
  int32_t n = r->p->tasks;
  r->successor_at[n] = r->successor_at[n + 1] = (uint32_t)r->dependencies;
  int status = fs_program_set_successors(r->p, r->successor_at, r->successor, r->dependencies,
                                         r->start_dependencies);
  r->successor_at = r->successor = NULL;
  return status;
}

/* LABEL requires LABEL / LABEL irequires LABEL: after the keyword. */
static int read_dependency(goal_reader *r, size_t label, size_t label_length, int point) {
  skip_blanks(r);
  size_t other = r->at, other_length = identifier_length(r);
  if (other_length == 0)
    return expected(r, other,
                    point == FS_AFTER_START ? "a label after 'irequires'"
                                            : "a label after 'requires'");
  r->at += other_length;
  if (!at_end(r)) return expected(r, r->at, "end of line");
  int32_t task, on;
  if (resolve_label(r, label, label_length, &task) || resolve_label(r, other, other_length, &on))
    return -1;
  if (r->dependencies + (int64_t)r->edge_count == FS_MAX_DEPENDENCIES)
    return fail(r, 0, "expected at most %lld dependencies in a program (got one more)",
                (long long)FS_MAX_DEPENDENCIES);
  if (r->edge_count == r->edge_capacity && grow_edges(r)) return out_of_memory(r);
  r->edges[2 * r->edge_count] = (uint32_t)(on - r->block_first);
  r->edges[2 * r->edge_count++ + 1] = (uint32_t)task |
                                      (point == FS_AFTER_START ? FS_EDGE_START : 0);
  return 0;
}

/* After a label: ": operation", "requires LABEL" or "irequires LABEL". */
static int read_labelled(goal_reader *r, size_t label, size_t label_length) {
  if (accept(r, ":")) {
    if (accept(r, "send")) return read_operation(r, K_SEND, label, label_length);
    if (accept(r, "recv")) return read_operation(r, K_RECV, label, label_length);
    if (accept(r, "calc")) return read_operation(r, K_CALC, label, label_length);
    return expected(r, r->at, "'send', 'recv' or 'calc' after 'LABEL:'");
  }
  if (accept(r, "requires")) return read_dependency(r, label, label_length, FS_AFTER_END);
  if (accept(r, "irequires")) return read_dependency(r, label, label_length, FS_AFTER_START);
  return expected(r, r->at, "':', 'requires' or 'irequires' after a label");
}

/* ---- the file level ---- */

static int read_num_ranks(goal_reader *r) {
  int64_t ranks;
  if (read_number(r, 1, INT32_MAX, "a number of ranks from 1 to 2147483647", &ranks)) return -1;
  if (!(r->p = fs_program_new((int32_t)ranks))) return out_of_memory(r);
  return 0;
}

/* rank R {: after the keyword. The name prefix "rR." is built here. */
static int open_block(goal_reader *r) {
  char what[96];
  int64_t rank;
  size_t start;
  if (parse_number(r, r->next_rank, r->next_rank, &rank, &start)) {
    snprintf(what, sizeof what, "rank %d, the next in order (0 to %d)", (int)r->next_rank,
             (int)r->p->ranks - 1);
    return expected(r, start, what);
  }
  if (!accept(r, "{")) return expected(r, r->at, "'{' on the line of 'rank R'");
  char prefix[16];
  r->prefix_length = (size_t)snprintf(prefix, sizeof prefix, "r%d.", (int)rank);
  if (r->name_capacity < 64) {
    char *name = realloc(r->name, 64);
    if (!name) return out_of_memory(r);
    r->name = name;
    r->name_capacity = 64;
  }
  memcpy(r->name, prefix, r->prefix_length);
  r->rank = (int32_t)rank;
  r->block_line = r->line_number;
  r->block_first = r->p->tasks;
  return 0;
}

static int close_block(goal_reader *r) {
  fs_name_index_clear(&r->labels, LABELS_KEEP);
  r->rank = -1;
  r->next_rank++;
  return flush_block(r) ? out_of_memory(r) : 0;
}

/* A word where a statement may start: a keyword or a label. */
static int read_word(goal_reader *r) {
  size_t start = r->at, length = identifier_length(r);
  enum keyword keyword = keyword_of(r->line + start, length);
  int in_block = r->rank >= 0;
  r->at += length;
  if (keyword == K_NUM_RANKS && !r->p) return read_num_ranks(r);
  if (keyword == K_RANK && r->p && !in_block && r->next_rank < r->p->ranks) return open_block(r);
  if (!in_block || keyword == K_NUM_RANKS || keyword == K_RANK) return unexpected(r, start);
  if (keyword != K_NONE) return read_operation(r, keyword, 0, 0);
  return read_labelled(r, start, length);
}

/* Skips an open block comment; 1 when it goes on past this line. */
static int skip_comment(goal_reader *r) {
  for (; r->at + 1 < r->length; r->at++)
    if (r->line[r->at] == '*' && r->line[r->at + 1] == '/') {
      r->at += 2;
      r->comment_line = 0;
      return 0;
    }
  return 1;
}

static int read_line(goal_reader *r, const char *line, size_t length) {
  r->line = line;
  r->length = length;
  r->at = 0;
  for (;;) {
    if (r->comment_line && skip_comment(r)) return 0;
    if (at_end(r)) return 0;
    const char *c = r->line + r->at;
    int two = r->at + 1 < r->length;
    if (two && c[0] == '/' && c[1] == '/') return 0;
    if (two && c[0] == '/' && c[1] == '*') {
      r->comment_line = r->line_number;
      r->comment_column = r->at + 1;
      r->at += 2;
    } else if (c[0] == '}' && r->rank >= 0) {
      r->at++;
      if (close_block(r)) return -1;
    } else if (is_alpha(c[0])) {
      if (read_word(r)) return -1;
    } else {
      return unexpected(r, r->at);
    }
  }
}

/* ---- the end of the input ---- */

static fs_program *finish(goal_reader *r) {
  const char *name = r->input_name;
  long long line = (long long)r->line_number + 1;
  char what[160];
  if (r->comment_line)
    snprintf(what, sizeof what, "'*/' closing the comment opened at %lld:%zu",
             (long long)r->comment_line, r->comment_column);
  else if (!r->p)
    snprintf(what, sizeof what, "'num_ranks N'");
  else if (r->rank >= 0)
    snprintf(what, sizeof what, "'}' closing the block of rank %d opened at line %lld",
             (int)r->rank, (long long)r->block_line);
  else if (r->next_rank < r->p->ranks)
    snprintf(what, sizeof what, "'rank %d {' (num_ranks is %d)", (int)r->next_rank,
             (int)r->p->ranks);
  else
    what[0] = 0;
  if (what[0]) {
    fs_text_error_at(r->err, name, line, 1, "expected %s (got end of file)", what);
    return NULL;
  }
  if (r->implied && r->p->tasks > 0) r->p->names_implied = 1, r->p->named = 1;
  if (hand_over_successors(r)) {
    fs_error_set(r->err, "%s: out of memory", name);
    return NULL;
  }
  return fs_read_program_finalize(&r->p, name, r->err);
}

/* A line of the block the way text_input would hand it out: not longer
 * than FS_TEXT_LINE_MAX, no NUL (bytes before *clean have none), one '\r'
 * before its end dropped. */
static int block_line(goal_reader *r, const char *line, size_t length, const char **clean,
                      const char *end) {
  r->line_number++;
  if (length > FS_TEXT_LINE_MAX)
    return report(r, r->line_number, -1, "line longer than %zu bytes", FS_TEXT_LINE_MAX);
  if (line + length > *clean) { /* look ahead a stretch for a NUL, not line by line */
    size_t stretch = (size_t)(end - line) < ((size_t)1 << 20) ? (size_t)(end - line) : 1 << 20;
    if (stretch < length) stretch = length;
    const char *found = memchr(line, 0, stretch);
    *clean = found ? found : line + stretch;
  }
  const char *nul = *clean < line + length ? *clean : NULL;
  if (nul)
    return report(r, r->line_number, (int64_t)(nul - line) + 1,
                  "NUL byte in text (is this a binary file?)");
  if (length > 0 && line[length - 1] == '\r') length--;
  return read_line(r, line, length);
}

#define RELEASE_EVERY ((size_t)32 << 20) /* bytes of a mapped file between page releases */

static void huge_program(goal_reader *r) {
  fs_program *p = r->p;
  size_t n = (size_t)p->capacity;
  fs_memory_huge_pages(p->kind, n), fs_memory_huge_pages(p->flags, n),
      fs_memory_huge_pages(p->rank, 4 * n);
  fs_memory_huge_pages(p->peer, 4 * n), fs_memory_huge_pages(p->value, 8 * n),
      fs_memory_huge_pages(p->need, 4 * n);
  fs_memory_huge_pages(p->tag, 4 * n), fs_memory_huge_pages(p->name_at, 8 * n);
  fs_memory_huge_pages(p->names, (size_t)p->names_capacity);
  fs_memory_huge_pages(r->successor_at, 4 * (size_t)r->at_capacity);
  fs_memory_huge_pages(r->successor, 4 * (size_t)r->successor_capacity);
}

/* What a byte of input makes, measured on the first block. */
typedef struct density {
  double tasks, edges, names;
} density;

/* Room for `length` more bytes of input at density d: generated files
 * repeat one block shape, so the first block predicts the rest. At most
 * one task per 7 bytes ("calc 0" and a line end). Growth by doubling
 * covers a low estimate. */
static void reserve_estimate(goal_reader *r, const density *d, size_t length) {
  fs_program *p = r->p;
  int64_t most = (int64_t)(length / 7) + 1024 + p->tasks;
  int64_t tasks = p->tasks + (int64_t)(d->tasks * (double)length * 1.02) + 1024;
  int64_t edges = r->dependencies + (int64_t)(d->edges * (double)length * 1.02) + 1024;
  int64_t names = p->names_used + (int64_t)(d->names * (double)length * 1.02) + 4096;
  if (tasks > most) tasks = most;
  if (edges > most) edges = most;
  if (names > p->names_used + 2 * (int64_t)length) names = p->names_used + 2 * (int64_t)length;
  if (tasks > FS_MAX_TASKS) tasks = FS_MAX_TASKS;
  /* failure is not an error here: the arrays grow as they go */
  if (fs_program_reserve(p, tasks, 0) == 0 && tasks + 2 > r->at_capacity) {
    uint32_t *at = realloc(r->successor_at, (size_t)(tasks + 2) * sizeof *at);
    if (at) r->successor_at = at, r->at_capacity = tasks + 2;
  }
  if (edges > r->successor_capacity) {
    uint32_t *successor = realloc(r->successor, (size_t)edges * sizeof *successor);
    if (successor) r->successor = successor, r->successor_capacity = edges;
  }
  if (p->names_used && names > p->names_capacity) { /* only for a file with labels */
    char *pool = realloc(p->names, (size_t)names);
    if (pool) p->names = pool, p->names_capacity = names;
  }
  huge_program(r);
}

/* ---- the fast path ----
 * While names are implied, schedgen's lines (goal_lines.h) and blank lines
 * are read here; any other line, and any that needs an array not yet there,
 * goes to the full parser (block_line). */

/* `lA requires lB\n` after "lA". */
static const char *fast_requires(goal_reader *r, const char *s, uint64_t task) {
  uint64_t on;
  if (!(s = goal_line_requires(s, r->p->tasks - r->block_first, &on)) ||
      r->edge_count == r->edge_capacity ||
      r->dependencies + (int64_t)r->edge_count == FS_MAX_DEPENDENCIES)
    return NULL;
  r->edges[2 * r->edge_count] = (uint32_t)(on - 1);
  r->edges[2 * r->edge_count++ + 1] = (uint32_t)(r->block_first + (int64_t)task - 1);
  return s;
}

/* One line at s (GOAL_LINE_SLACK bytes readable) inside a block: the next
 * line's start, or NULL for the full parser. */
static const char *fast_line(goal_reader *r, const char *s) {
  fs_program *p = r->p;
  int64_t n = p->tasks - r->block_first;
  uint64_t k;
  const char *after;
  goal_line_task op;
  if (s[0] == '\n') return s + 1;
  if (!(after = goal_line_label(s, n + 1, &k))) return NULL;
  if (after[0] != ':') return k <= (uint64_t)n ? fast_requires(r, after, k) : NULL;
  if (k != (uint64_t)n + 1 || after[1] != ' ' || p->tasks == p->capacity || p->cpu || p->nic ||
      !(after = goal_line_operation(after + 2, p->ranks, &op)) || (op.tag && !p->tag))
    return NULL;
  int32_t t = p->tasks++;
  p->kind[t] = op.kind, p->flags[t] = op.flags, p->rank[t] = r->rank, p->peer[t] = op.peer;
  p->value[t] = op.value, p->need[t] = 0;
  if (p->tag) p->tag[t] = op.tag;
  return after;
}

/* ---- populating ahead ----
 * On this kind of machine the first touch of fresh memory (the kernel
 * zeroing it) costs more than the parsing. While the readers read, another
 * thread faults in the program's arrays (MADV_POPULATE_WRITE: contents
 * untouched) a stretch ahead, so the zeroing runs beside the parsing (on a
 * core the readers leave idle, or while the first reader waits for the
 * parts), not in the reader of the first part nor in the join's copies.
 * It never populates more than AHEAD_LEAD tasks past the tasks read by all
 * readers together (memory stays what the work needs) nor past the
 * arrays' reservation, and it stops for good before any array could move
 * (a line the reservation may not hold, the join, the end). */

#define AHEAD_STEP ((int64_t)1 << 18) /* tasks per step: 2 MiB of `value` */
#define AHEAD_LEAD (4 * AHEAD_STEP)   /* tasks populated at most past those read */
#define AHEAD_ARRAYS 9

typedef struct ahead {
  pthread_t thread;
  int running;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int64_t tasks[FS_GOAL_THREADS_MAX], edges[FS_GOAL_THREADS_MAX]; /* read, per reader */
  int stop;
  struct ahead_array {
    char *base;
    size_t size;   /* bytes per task (per dependency for the successors) */
    int64_t count; /* elements reserved */
    int per_edge;  /* indexed by dependency, not task */
    int64_t done;  /* elements populated */
  } array[AHEAD_ARRAYS];
  int arrays;
} ahead;

/* Populates array a up to element `to` (its reservation at most), from
 * `from` on at least; 0, or -1 when the kernel refuses (then it stops). */
static int populate(ahead *h, int a, int64_t from, int64_t to) {
  struct ahead_array *x = &h->array[a];
  if (to > x->count) to = x->count;
  if (from < x->done) from = x->done;
  if (to <= from) return 0;
  x->done = to;
  return fs_memory_populate(x->base + (size_t)from * x->size, (size_t)(to - from) * x->size);
}

static void *run_ahead(void *arg) {
  ahead *h = arg;
  pthread_mutex_lock(&h->lock);
  for (int64_t step = 0; !h->stop;) {
    int64_t tasks = 0, edges = 0;
    for (int i = 0; i < FS_GOAL_THREADS_MAX; i++) tasks += h->tasks[i], edges += h->edges[i];
    if (step >= tasks + AHEAD_LEAD) { /* far enough ahead: wait for the readers */
      pthread_cond_wait(&h->wake, &h->lock);
      continue;
    }
    /* the step the first reader is in is its own to fault: start past it */
    if (step < h->tasks[0] + AHEAD_STEP) step = (h->tasks[0] / AHEAD_STEP + 1) * AHEAD_STEP;
    double edges_per_task = tasks > 0 ? (double)edges / (double)tasks : 1;
    pthread_mutex_unlock(&h->lock);
    int failed = 0;
    for (int a = 0; a < h->arrays && !failed; a++) {
      double scale = h->array[a].per_edge ? edges_per_task : 1;
      failed = populate(h, a, (int64_t)((double)step * scale),
                        (int64_t)((double)(step + AHEAD_STEP) * scale));
    }
    step += AHEAD_STEP;
    pthread_mutex_lock(&h->lock);
    if (failed) h->stop = 1;
  }
  pthread_mutex_unlock(&h->lock);
  return NULL;
}

static void add_array(ahead *h, void *base, size_t size, int64_t count, int per_edge) {
  if (base && h->arrays < AHEAD_ARRAYS)
    h->array[h->arrays++] = (struct ahead_array){base, size, count, per_edge, 0};
}

/* Starts h, the thread that populates r's arrays (reserved) ahead of the
 * readers; r owns it (may stop it). */
static void start_ahead(goal_reader *r, ahead *h) {
  fs_program *p = r->p;
  int64_t n = p->capacity;
  *h = (ahead){.running = 0};
  add_array(h, p->value, 8, n, 0), add_array(h, p->rank, 4, n, 0);
  add_array(h, p->peer, 4, n, 0), add_array(h, p->need, 4, n, 0);
  add_array(h, p->tag, 4, n, 0), add_array(h, p->kind, 1, n, 0);
  add_array(h, p->flags, 1, n, 0), add_array(h, r->successor_at, 4, r->at_capacity, 0);
  add_array(h, r->successor, 4, r->successor_capacity, 1);
  h->tasks[0] = p->tasks, h->edges[0] = r->dependencies;
  pthread_mutex_init(&h->lock, NULL);
  pthread_cond_init(&h->wake, NULL);
  h->running = pthread_create(&h->thread, NULL, run_ahead, h) == 0;
  r->ahead = h, r->ahead_owner = 1, r->ahead_slot = 0;
  r->ahead_next = p->tasks + AHEAD_STEP;
}

/* Stops h's thread for good (h stays valid for the readers' tells). */
static void stop_ahead(ahead *h) {
  if (!h || !h->running) return;
  pthread_mutex_lock(&h->lock);
  h->stop = 1;
  pthread_cond_signal(&h->wake);
  pthread_mutex_unlock(&h->lock);
  pthread_join(h->thread, NULL);
  h->running = 0;
}

static void end_ahead(ahead *h) {
  stop_ahead(h);
  pthread_mutex_destroy(&h->lock), pthread_cond_destroy(&h->wake);
}

/* Tells the thread how far r has read. */
static void tell_ahead(goal_reader *r) {
  ahead *h = r->ahead;
  pthread_mutex_lock(&h->lock);
  h->tasks[r->ahead_slot] = r->p->tasks, h->edges[r->ahead_slot] = r->dependencies;
  pthread_cond_signal(&h->wake);
  pthread_mutex_unlock(&h->lock);
  r->ahead_next = r->p->tasks + AHEAD_STEP;
}

/* Whether the next line, whatever it is, leaves every populated array in
 * place: at most one task more, and the open block's edges flushed. */
static int arrays_stay(const goal_reader *r) {
  const fs_program *p = r->p;
  return p->tasks + 1 < p->capacity && p->tasks + 3 <= r->at_capacity &&
         r->dependencies + (int64_t)r->edge_count + 1 <= r->successor_capacity;
}

/* Lines of data[from, to), `to` at a line start or the end. The reader on
 * the calling thread (in set) reports progress, unmaps what it has read
 * and reserves the program once the first block is closed; a part's
 * thread (in NULL) does neither. Stops at the first block's end when
 * `first` is set: *from is then where it stopped. */
static int read_range(goal_reader *r, fs_text_input *in, const char *data, size_t *from, size_t to,
                      int first) {
  const char *at = data + *from, *end = data + to, *clean = at;
  size_t released = *from;
  while (at < end) {
    if (!first && r->implied && r->rank >= 0 && !r->comment_line && end - at >= GOAL_LINE_SLACK) {
      const char *next = fast_line(r, at);
      if (next) {
        r->line_number++, at = next;
        if (r->ahead && r->p->tasks >= r->ahead_next) tell_ahead(r);
        if (in && (size_t)(at - data) - released >= RELEASE_EVERY)
          fs_text_input_block_done(in, released = (size_t)(at - data));
        continue;
      }
    }
    const char *newline = memchr(at, '\n', (size_t)(end - at));
    const char *line_end = newline ? newline : end;
    int32_t closed = r->next_rank;
    if (r->ahead_owner && !arrays_stay(r)) stop_ahead(r->ahead);
    if (block_line(r, at, (size_t)(line_end - at), &clean, end)) return -1;
    at = newline ? newline + 1 : end;
    if (in && (size_t)(at - data) - released >= RELEASE_EVERY)
      fs_text_input_block_done(in, released = (size_t)(at - data));
    if (first && closed == 0 && r->next_rank == 1) break;
  }
  *from = (size_t)(at - data);
  return 0;
}

/* ---- parts: one file read by several threads ----
 * The rest of the file after the first block is cut before lines that
 * look like `rank R {`. A part's reader starts from the state a block
 * boundary has (no block or comment open, block R next) and keeps its own
 * program, ids from 0. The parts join in file order: a part whose reader
 * before it ended in exactly that state is appended (ids, successor
 * offsets, names and line numbers shifted), else the reader before it
 * reads the part's lines itself. So the program, and the first error in
 * file order, are the ones a single reader gives, on any thread count. */

typedef struct part {
  goal_reader r;
  fs_error err;
  fs_text_input *in; /* for page releases only */
  const char *data;
  size_t from, to;
  int32_t first_rank; /* the `rank R {` at from */
  int status;         /* 0 read, -1 failed (r.err, deferred) */
  int started;        /* its thread runs */
  pthread_t thread;
} part;

static void *read_part(void *arg) {
  part *k = arg;
  goal_reader *r = &k->r;
  size_t from = k->from, done = from;
  while (k->status == 0 && from < k->to) { /* in stretches: pages leave as they are read */
    size_t to = k->to - from > RELEASE_EVERY
                    ? goal_line_next_block(k->data, from + RELEASE_EVERY, k->to, &(int32_t){0})
                    : k->to;
    if (read_range(r, NULL, k->data, &from, to, 0)) k->status = -1;
    fs_text_input_block_release(k->in, done, from);
    done = from;
  }
  return NULL;
}

/* Starts part k's thread on data[from, to) of a program of `ranks` ranks
 * (telling h, if not NULL, its progress in `slot`);
 * a part that cannot start is read by the reader before it. */
static void start_part(part *k, const goal_reader *first, int32_t ranks, const density *d, ahead *h,
                       int slot) {
  goal_reader *r = &k->r;
  *r = (goal_reader){.input_name = first->input_name,
                     .err = &k->err,
                     .rank = -1,
                     .next_rank = k->first_rank,
                     .deferred = 1,
                     .implied = 1,
                     .ahead = h,
                     .ahead_slot = slot,
                     .ahead_next = AHEAD_STEP};
  if (!(r->p = fs_program_new(ranks))) return;
  reserve_estimate(r, d, k->to - k->from);
  k->started = pthread_create(&k->thread, NULL, read_part, k) == 0;
}

static void free_reader(goal_reader *r) {
  fs_program_free(r->p);
  fs_name_index_free(&r->labels);
  free(r->name);
  free(r->edges);
  free(r->scratch);
  free(r->successor_at);
  free(r->successor);
  r->p = NULL, r->name = NULL, r->edges = r->scratch = r->successor_at = r->successor = NULL;
}

/* Makes an optional array of p (allocated as program.c does: `capacity`
 * elements) present, `fill` for the first `tasks`. */
static int optional(void *array, size_t size, const fs_program *p, int fill) {
  void **a = array;
  if (*a) return 0;
  if (!(*a = malloc((size_t)p->capacity * size))) return -1;
  memset(*a, fill, (size_t)p->tasks * size);
  return 0;
}

/* Appends the n tasks of s (optional arrays may be NULL) to p. */
static void append_field(void *to, const void *from, size_t size, int32_t at, int32_t n, int fill) {
  if (!to) return;
  if (from)
    memcpy((char *)to + (size_t)at * size, from, (size_t)n * size);
  else
    memset((char *)to + (size_t)at * size, fill, (size_t)n * size);
}

/* Appends part q's tasks and names to r's program. */
static int append_tasks(goal_reader *r, goal_reader *q) {
  fs_program *p = r->p, *s = q->p;
  int32_t n0 = p->tasks, n1 = s->tasks;
  if (fs_program_reserve(p, (int64_t)n0 + n1, 0) || (s->tag && optional(&p->tag, 4, p, 0)) ||
      (s->cpu && optional(&p->cpu, 1, p, 0)) || (s->nic && optional(&p->nic, 1, p, 0)) ||
      (s->name_at && optional(&p->name_at, 8, p, 0xff)))
    return -1;
  if (p->names_used + s->names_used > p->names_capacity) {
    char *names = realloc(p->names, (size_t)(p->names_used + s->names_used));
    if (!names) return -1;
    p->names = names, p->names_capacity = p->names_used + s->names_used;
  }
  /* each array of s leaves as soon as it is copied: the peak stays near the program's size */
#define APPEND(field, fill)                                                          \
  (append_field(p->field, s->field, sizeof *s->field, n0, n1, fill), free(s->field), \
   s->field = NULL)
  APPEND(kind, 0), APPEND(flags, 0), APPEND(rank, 0), APPEND(peer, 0), APPEND(value, 0);
  APPEND(need, 0), APPEND(tag, 0), APPEND(cpu, 0), APPEND(nic, 0);
#undef APPEND
  if (s->names_used) memcpy(p->names + p->names_used, s->names, (size_t)s->names_used);
  free(s->names), s->names = NULL;
  for (int32_t i = 0; p->name_at && i < n1; i++)
    p->name_at[n0 + i] = !s->name_at || s->name_at[i] < 0 ? -1 : s->name_at[i] + p->names_used;
  p->names_used += s->names_used, p->named |= s->named, p->tasks = n0 + n1;
  return 0;
}

/* Appends part q (read from r's end state) to r: tasks, successors, and
 * q's end state with its line numbers made absolute. */
static int append_part(goal_reader *r, goal_reader *q) {
  int32_t n0 = r->p->tasks;
  int64_t base = r->line_number, d0 = r->dependencies;
  if (r->implied != q->implied && /* both implied, or both stored */
      leave_pattern(r->implied ? r : q, r->implied ? r->p->tasks : q->p->tasks))
    return -1;
  if (append_tasks(r, q) || reserve_successors(r, q->dependencies)) return -1;
  for (int32_t i = 0; i < q->p->tasks; i++)
    r->successor_at[n0 + i] = q->successor_at[i] + (uint32_t)d0;
  for (int64_t e = 0; e < q->dependencies; e++)
    r->successor[d0 + e] = q->successor[e] + (uint32_t)n0; /* ids stay below the flag bits */
  free_reader(q);
  r->dependencies += q->dependencies, r->start_dependencies += q->start_dependencies;
  /* only the last part may end inside a block or comment: finish's message */
  r->next_rank = q->next_rank, r->line_number = base + q->line_number;
  r->rank = q->rank, r->block_line = base + q->block_line;
  if (q->comment_line) r->comment_line = base + q->comment_line;
  r->comment_column = q->comment_column;
  return 0;
}

static int at_boundary(const goal_reader *r) { return r->rank < 0 && !r->comment_line; }

/* Whether r ended where part k started, and the sums fit the limits. */
static int joins(const goal_reader *r, const part *k) {
  return k->started && at_boundary(r) && r->next_rank == k->first_rank &&
         (int64_t)r->p->tasks + k->r.p->tasks <= FS_MAX_TASKS &&
         r->dependencies + k->r.dependencies <= FS_MAX_DEPENDENCIES;
}

/* Joins the parts in file order after r has read the first; 0 or -1 with
 * r->err set. Every thread is joined. */
static int join_parts(goal_reader *r, fs_text_input *in, part *parts, int count, int status) {
  for (int i = 0; i < count; i++)
    if (parts[i].started) pthread_join(parts[i].thread, NULL);
  stop_ahead(r->ahead); /* the appends may move r's arrays */
  for (int i = 0; i < count && status == 0; i++) {
    part *k = &parts[i];
    int last = i == count - 1;
    if (!joins(r, k) || (k->status == 0 && !last && !at_boundary(&k->r))) {
      status = read_range(r, in, k->data, &k->from, k->to, 0);
    } else if (k->status) {
      status = fs_text_error_at(r->err, r->input_name, r->line_number + k->r.error_line,
                                k->r.error_column, "%s", k->err.message);
    } else if (append_part(r, &k->r)) {
      status = out_of_memory(r);
    }
    free_reader(&k->r);
  }
  for (int i = 0; i < count; i++) free_reader(&parts[i].r);
  return status;
}

/* Reads data[0, length) on up to `threads` threads, in parts of at least
 * min_part bytes. */
static int read_block(goal_reader *r, fs_text_input *in, const char *data, size_t length,
                      int threads, size_t min_part) {
  size_t at = 0;
  if (read_range(r, in, data, &at, length, 1)) return -1;
  if (at == length) return 0;
  density d = {(double)r->p->tasks / (double)at, (double)r->dependencies / (double)at,
               (double)r->p->names_used / (double)at};
  size_t rest = length - at, size = min_part ? min_part : 1;
  int count = threads < 1 ? 0 : rest / size < (size_t)threads ? (int)(rest / size) : threads;
  part *parts = count > 1 ? calloc((size_t)count - 1, sizeof *parts) : NULL;
  int made = 0, status = 0;
  size_t first_end = length;
  for (int i = 1; parts && i < count; i++) {
    part *k = &parts[made];
    size_t cut =
        goal_line_next_block(data, at + rest / (size_t)count * (size_t)i, length, &k->first_rank);
    if (cut == length || (made && cut <= parts[made - 1].from)) continue;
    if (made)
      parts[made - 1].to = cut;
    else
      first_end = cut;
    k->in = in, k->data = data, k->from = cut, k->to = length;
    made++;
  }
  reserve_estimate(r, &d, length - at); /* the parts join into it */
  ahead h;
  int with_ahead = threads >= 2; /* a core for it beside the first reader */
  if (with_ahead) start_ahead(r, &h);
  for (int i = 0; i < made; i++)
    start_part(&parts[i], r, r->p->ranks, &d, with_ahead && i + 1 < FS_GOAL_THREADS_MAX ? &h : NULL,
               i + 1);
  status = read_range(r, in, data, &at, first_end, 0);
  status = join_parts(r, in, parts, made, status);
  if (with_ahead) end_ahead(&h);
  r->ahead = NULL, r->ahead_owner = 0;
  free(parts);
  if (status == 0) fs_text_input_block_done(in, length);
  return status;
}

fs_program *fs_goal_read_input_threads(fs_text_input *in, int threads, size_t min_part,
                                       int interleave, fs_error *err) {
  goal_reader r = {.input_name = fs_text_input_name(in), .err = err, .rank = -1, .implied = 1};
  const char *line, *data;
  size_t length;
  int status, fd = -1, file = interleave && fs_text_input_plain_file(in, &fd, &length);
  fs_program *p = file ? fs_goal_read_interleaved(fd, NULL, length, threads, min_part) : NULL;
  if (p) return p;
  if (fs_text_input_block(in, &data, &length)) {
    p = interleave && !file ? fs_goal_read_interleaved(-1, data, length, threads, min_part) : NULL;
    if (p) {
      fs_text_input_block_done(in, length);
      return p;
    }
    status = read_block(&r, in, data, length, threads, min_part) ? -1 : 0;
  } else {
    while ((status = fs_text_input_next_line(in, &line, &length, err)) == 1) {
      r.line_number = fs_text_input_line_number(in);
      if (read_line(&r, line, length)) break;
    }
  }
  p = status == 0 ? finish(&r) : NULL;
  free_reader(&r);
  return p;
}

/* One thread per core, up to FS_GOAL_THREADS_MAX. */
static int read_threads(void) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores < 1 ? 1 : cores > FS_GOAL_THREADS_MAX ? FS_GOAL_THREADS_MAX : (int)cores;
}

fs_program *fs_goal_read_input(fs_text_input *in, fs_error *err) {
  return fs_goal_read_input_threads(in, read_threads(), FS_GOAL_PART_MIN, 0, err);
}

fs_program *fs_goal_read_input_interleaved(fs_text_input *in, fs_error *err) {
  return fs_goal_read_input_threads(in, read_threads(), FS_GOAL_PART_MIN, 1, err);
}

fs_program *fs_goal_read_file(const char *path, fs_error *err) {
  return fs_read_program_file(fs_goal_read_input, path, err);
}

fs_program *fs_goal_read_memory(const char *data, size_t length, const char *display_name,
                                fs_error *err) {
  return fs_read_program_memory(fs_goal_read_input, data, length, display_name, err);
}
