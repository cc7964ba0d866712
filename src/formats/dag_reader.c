/* dag_reader.c: see dag_reader.h. A hand-written tokenizer over the lines
 * that text_input hands out; task names map to ids through a name_index
 * that lives only while the file is read. A generated name "t<i>" (what the
 * writer gives unnamed tasks) is neither stored nor indexed: it is task i.
 * Nothing is allocated per line. */
#include "formats/dag_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/name_index.h"
#include "formats/read_program.h"

typedef struct token {
  const char *text;
  size_t length;
} token;

/* Fields, in the order the writer emits them. */
enum field {
  F_TO,
  F_FROM,
  F_SIZE,
  F_STRIDE,
  F_TAG,
  F_TIME,
  F_SKEW,
  F_CPU,
  F_NIC,
  F_PROTO,
  F_ANY,
  F_CONCURRENT,
  F_BLOCKING,
  F_AFTER,
  F_LABEL,
  FIELDS
};

#define FIELD(name) \
  { name, sizeof name - 1 }
static const struct {
  const char *name;
  size_t length;
} fields[FIELDS] = {FIELD("to"),       FIELD("from"),  FIELD("size"), FIELD("stride"),
                    FIELD("tag"),      FIELD("time"),  FIELD("skew"), FIELD("cpu"),
                    FIELD("nic"),      FIELD("proto"), FIELD("any"),  FIELD("concurrent"),
                    FIELD("blocking"), FIELD("after"), FIELD("label")};

#define KIND_BIT(k) (1u << (k))
#define ALL_KINDS (KIND_BIT(FS_TASK_KINDS) - 1)
#define TRANSFERS (KIND_BIT(FS_PUT) | KIND_BIT(FS_GET) | KIND_BIT(FS_SEND) | KIND_BIT(FS_RECV))
/* The kinds that accept each field. */
static const unsigned field_kinds[FIELDS] = {
    [F_TO] = KIND_BIT(FS_PUT) | KIND_BIT(FS_SEND),
    [F_FROM] = KIND_BIT(FS_GET) | KIND_BIT(FS_RECV),
    [F_SIZE] = TRANSFERS | KIND_BIT(FS_COMPUTE),
    [F_STRIDE] = TRANSFERS,
    [F_TAG] = KIND_BIT(FS_SEND) | KIND_BIT(FS_RECV),
    [F_TIME] = KIND_BIT(FS_SLEEP) | KIND_BIT(FS_COMPUTE),
    [F_SKEW] = KIND_BIT(FS_START),
    [F_CPU] = TRANSFERS | KIND_BIT(FS_SLEEP) | KIND_BIT(FS_COMPUTE),
    [F_NIC] = TRANSFERS,
    [F_PROTO] = TRANSFERS,
    [F_ANY] = ALL_KINDS,
    [F_CONCURRENT] = ALL_KINDS,
    [F_BLOCKING] = KIND_BIT(FS_PUT) | KIND_BIT(FS_GET),
    [F_AFTER] = ALL_KINDS,
    [F_LABEL] = ALL_KINDS,
};

typedef struct dag_reader {
  fs_text_input *in;
  fs_error *err;
  fs_program *p; /* created by the ranks line */
  int header_seen;
  int64_t ranks_line;
  fs_name_index names;  /* task name -> id, for the names the program stores */
  int32_t above;        /* tasks defined on the lines above the current one */
  fs_name_index labels; /* label text -> label index */
  const char *line;     /* the current line without comment and trailing blanks */
  size_t length;
  size_t at; /* tokenizer position in line */
} dag_reader;

/* The task line being read. */
typedef struct task_line {
  int32_t task;
  fs_task_kind kind;
  token name;
  unsigned seen; /* bit per field */
  int64_t dependencies;
  int64_t any;
  token any_value;
} task_line;

static const char *task_name_of(const void *owner, int32_t id) {
  const fs_program *p = owner;
  return p->names + p->name_at[id];
}

static const char *label_of(const void *owner, int32_t id) {
  const fs_program *p = owner;
  return p->labels[id];
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

static int next_token(dag_reader *r, token *t) {
  while (r->at < r->length && is_blank(r->line[r->at])) r->at++;
  size_t start = r->at;
  while (r->at < r->length && !is_blank(r->line[r->at])) r->at++;
  t->text = r->line + start;
  t->length = r->at - start;
  return t->length > 0;
}

static int token_equals(const token *t, const char *word, size_t length) {
  return t->length == length && memcmp(t->text, word, length) == 0;
}
/* word is a string literal: its length is known at compile time */
#define token_is(t, word) token_equals(t, word, sizeof word - 1)

/* "FILE:LINE:COLUMN: message", the column being that of `where`. */
#define fail(r, where, ...) \
  fs_text_input_error((r)->in, (where) - (r)->line + 1, (r)->err, __VA_ARGS__)

static const char *show(const dag_reader *r, const token *t, char buffer[FS_TEXT_QUOTED_SIZE]) {
  return fs_text_quoted(t->text, t->length, r->line + r->length, buffer);
}

static int expected(dag_reader *r, const token *t, const char *what) {
  char shown[64];
  return fail(r, t->text, "expected %s (got %s)", what, show(r, t, shown));
}

static int out_of_memory(dag_reader *r) {
  return fail(r, r->line, "out of memory (or more than %d tasks)", FS_MAX_TASKS);
}

static int end_of_line(dag_reader *r, const char *after) {
  token extra;
  if (!next_token(r, &extra)) return 0;
  char what[96];
  snprintf(what, sizeof what, "end of line after '%s'", after);
  return expected(r, &extra, what);
}

static int read_header(dag_reader *r, const token *first) {
  token version;
  if (!token_is(first, "fennel-dag")) return expected(r, first, "the header 'fennel-dag 1'");
  if (!next_token(r, &version)) return expected(r, &version, "a format version after 'fennel-dag'");
  if (!token_is(&version, "1")) return expected(r, &version, "format version 1");
  r->header_seen = 1;
  return end_of_line(r, "fennel-dag 1");
}

static int read_ranks(dag_reader *r, const token *keyword) {
  if (r->p) {
    char what[96];
    snprintf(what, sizeof what, "a task line ('ranks' was given on line %lld)",
             (long long)r->ranks_line);
    return expected(r, keyword, what);
  }
  token count;
  int64_t ranks;
  next_token(r, &count);
  if (fs_parse_count(count.text, count.length, 1, INT32_MAX, &ranks))
    return expected(r, &count, "a number of ranks from 1 to 2147483647");
  if (end_of_line(r, "ranks N")) return -1;
  if (!(r->p = fs_program_new((int32_t)ranks))) return out_of_memory(r);
  r->ranks_line = fs_text_input_line_number(r->in);
  return 0;
}

static int is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

static int valid_name(const token *t) {
  for (size_t i = 0; i < t->length; i++)
    if (!is_name_char(t->text[i])) return 0;
  return t->length > 0;
}

/* A generated name "t<i>" is task i, unless task i keeps another name;
 * only the kept names are in the index (hashed only when it holds any). */
static int32_t find_task(const dag_reader *r, const token *name) {
  int32_t id = fs_task_generated_id(name->text, (int64_t)name->length);
  if (id >= 0 && id < r->above && !fs_task_name_stored(r->p, id)) return id;
  if (r->names.count == 0) return -1;
  return fs_name_index_find(&r->names, fs_name_hash(name->text, name->length), name->text,
                            name->length, task_name_of, r->p);
}

/* One entry of after=: NAME, NAME:local or NAME:start. */
static int read_dependency(dag_reader *r, task_line *task, const token *item) {
  const char *colon = memchr(item->text, ':', item->length);
  token name = {item->text, colon ? (size_t)(colon - item->text) : item->length};
  int point = FS_AFTER_END;
  if (colon) {
    token suffix = {colon, item->length - name.length};
    if (token_is(&suffix, ":local"))
      point = FS_AFTER_LOCAL;
    else if (token_is(&suffix, ":start"))
      point = FS_AFTER_START;
    else
      return expected(r, &suffix, "':local', ':start' or ',' after a dependency name");
  }
  if (name.length == 0) return expected(r, item, "a task name in after=");
  int32_t on = find_task(r, &name);
  if (on < 0) {
    int itself = name.length == task->name.length &&
                 memcmp(name.text, task->name.text, name.length) == 0;
    return expected(r, &name,
                    itself ? "a task defined above, not the task itself"
                           : "the name of a task defined above");
  }
  if (r->p->dependencies == FS_MAX_DEPENDENCIES)
    return fail(r, r->line, "expected at most %lld dependencies in a program (got one more)",
                (long long)FS_MAX_DEPENDENCIES);
  if (fs_program_depend(r->p, task->task, on, point)) return out_of_memory(r);
  task->dependencies++;
  return 0;
}

static int read_after(dag_reader *r, task_line *task, const token *value) {
  const char *at = value->text, *end = value->text + value->length;
  for (;;) {
    const char *comma = memchr(at, ',', (size_t)(end - at));
    token item = {at, (size_t)((comma ? comma : end) - at)};
    if (read_dependency(r, task, &item)) return -1;
    if (!comma) return 0;
    at = comma + 1;
  }
}

static int read_label(dag_reader *r, task_line *task, const token *value) {
  for (size_t i = 0; i < value->length; i++) {
    unsigned char c = (unsigned char)value->text[i];
    if (c < 0x20 || c == 0x7f) return expected(r, value, "a label of printable characters");
  }
  uint32_t hash = fs_name_hash(value->text, value->length);
  int32_t label = fs_name_index_find(&r->labels, hash, value->text, value->length, label_of, r->p);
  if (label < 0) {
    label = fs_program_add_label(r->p, value->text, (int64_t)value->length);
    if (label < 0 || fs_name_index_add(&r->labels, hash, label)) return out_of_memory(r);
  }
  return fs_task_set_label(r->p, task->task, label) ? out_of_memory(r) : 0;
}

static int read_rank(dag_reader *r, const token *value, const char *what, int32_t *rank) {
  int64_t v;
  if (fs_parse_count(value->text, value->length, 0, r->p->ranks - 1, &v) == 0) {
    *rank = (int32_t)v;
    return 0;
  }
  char text[96];
  snprintf(text, sizeof text, "%s in [0, %d)", what, r->p->ranks);
  return expected(r, value, text);
}

static int read_flag(dag_reader *r, task_line *task, const token *value, int flag) {
  int64_t v;
  if (fs_parse_count(value->text, value->length, 0, 1, &v)) return expected(r, value, "0 or 1");
  if (v) fs_task_set_flag(r->p, task->task, flag);
  return 0;
}

static int read_time(dag_reader *r, task_line *task, const token *value) {
  fs_time time;
  int status = fs_parse_time(value->text, value->length, 0, &time);
  if (status == FS_PAST_LIMIT) return expected(r, value, "a time up to " FS_TIME_LIMIT_TEXT);
  if (status) return expected(r, value, "a non-negative time such as 10ns, 1.5us or 200ps");
  fs_task_set_time(r->p, task->task, time);
  return 0;
}

/* "any" or "-1", which a recv takes for from= and tag=. */
static int is_any(const token *value) { return token_is(value, "any") || token_is(value, "-1"); }

static int read_source(dag_reader *r, task_line *task, const token *value) {
  int32_t rank = FS_ANY_SOURCE;
  if (task->kind != FS_RECV) {
    if (read_rank(r, value, "a source rank", &rank)) return -1;
  } else if (!is_any(value)) {
    int64_t v;
    if (fs_parse_count(value->text, value->length, 0, r->p->ranks - 1, &v)) {
      char text[96];
      snprintf(text, sizeof text, "a source rank in [0, %d) or 'any'", r->p->ranks);
      return expected(r, value, text);
    }
    rank = (int32_t)v;
  }
  fs_task_set_peer(r->p, task->task, rank);
  return 0;
}

static int read_tag(dag_reader *r, task_line *task, const token *value) {
  int64_t tag = FS_ANY_TAG;
  int recv = task->kind == FS_RECV;
  if (!(recv && is_any(value)) && fs_parse_count(value->text, value->length, 0, INT32_MAX, &tag))
    return expected(r, value,
                    recv ? "a tag from 0 to 2147483647 or 'any'" : "a tag from 0 to 2147483647");
  return fs_task_set_tag(r->p, task->task, (int32_t)tag) ? out_of_memory(r) : 0;
}

/* stride=: the data layout, 0 contiguous, else a vector stride in bytes. */
static int read_stride(dag_reader *r, task_line *task, const token *value) {
  int64_t stride;
  int status = fs_parse_size(value->text, value->length, &stride);
  if (status == FS_PAST_LIMIT) return expected(r, value, "a stride up to " FS_SIZE_LIMIT_TEXT);
  if (status) return expected(r, value, "a stride in bytes such as 0, 8, 1KiB (0: contiguous)");
  return fs_task_set_stride(r->p, task->task, stride) ? out_of_memory(r) : 0;
}

/* cpu= and nic=: an index from 0 to 255. */
static int read_unit(dag_reader *r, task_line *task, int field, const token *value) {
  int64_t index;
  if (fs_parse_count(value->text, value->length, 0, 255, &index))
    return expected(r, value,
                    field == F_CPU ? "a CPU index from 0 to 255" : "a NIC index from 0 to 255");
  int status = field == F_CPU ? fs_task_set_cpu(r->p, task->task, (int)index)
                              : fs_task_set_nic(r->p, task->task, (int)index);
  return status ? out_of_memory(r) : 0;
}

/* proto=: the NCCL protocol of a transfer, spelt as NCCL does. */
static int read_protocol(dag_reader *r, task_line *task, const token *value) {
  int protocol = fs_protocol_from_name(value->text, (int64_t)value->length);
  if (protocol <= FS_PROTOCOL_NONE) return expected(r, value, "a protocol: LL, LL128 or Simple");
  return fs_task_set_protocol(r->p, task->task, protocol) ? out_of_memory(r) : 0;
}

static int read_value(dag_reader *r, task_line *task, int field, const token *value) {
  fs_program *p = r->p;
  int32_t rank = -1;
  int64_t size;
  switch (field) {
    case F_TO:
      if (read_rank(r, value, "a destination rank", &rank)) return -1;
      fs_task_set_peer(p, task->task, rank);
      return 0;
    case F_FROM: return read_source(r, task, value);
    case F_STRIDE: return read_stride(r, task, value);
    case F_TAG: return read_tag(r, task, value);
    case F_CPU:
    case F_NIC: return read_unit(r, task, field, value);
    case F_PROTO: return read_protocol(r, task, value);
    case F_SIZE:
      switch (fs_parse_size(value->text, value->length, &size)) {
        case 0: break;
        case FS_PAST_LIMIT: return expected(r, value, "a size up to " FS_SIZE_LIMIT_TEXT);
        default: return expected(r, value, "a size in bytes such as 8, 8B, 4KiB or 1.5MB");
      }
      fs_task_set_size(p, task->task, size);
      return 0;
    case F_TIME:
    case F_SKEW: return read_time(r, task, value);
    case F_ANY:
      task->any_value = *value;
      if (fs_parse_count(value->text, value->length, 1, INT32_MAX, &task->any))
        return expected(r, value, "a count of at least 1");
      return 0;
    case F_CONCURRENT: return read_flag(r, task, value, FS_CONCURRENT);
    case F_BLOCKING: return read_flag(r, task, value, FS_BLOCKING);
    case F_AFTER: return read_after(r, task, value);
    default: return read_label(r, task, value);
  }
}

/* "expected a field of a put task (to, size, ...) (got 'time')". */
static int field_not_for_kind(dag_reader *r, const task_line *task, const token *key) {
  char what[256];
  int n = snprintf(what, sizeof what, "a field of a %s task (", fs_task_kind_name(task->kind));
  for (int f = 0; f < FIELDS; f++)
    if (field_kinds[f] & KIND_BIT(task->kind))
      n += snprintf(what + n, sizeof what - (size_t)n, "%s%s", what[n - 1] == '(' ? "" : ", ",
                    fields[f].name);
  snprintf(what + n, sizeof what - (size_t)n, ")");
  return expected(r, key, what);
}

static int find_field(const token *key) {
  for (int f = 0; f < FIELDS; f++)
    if (key->length == fields[f].length && memcmp(key->text, fields[f].name, key->length) == 0)
      return f;
  return -1;
}

/* Checks what a field's key allows before its value is read. */
static int check_key(dag_reader *r, task_line *task, const token *key, int field) {
  char shown[64];
  if (field < 0)
    return expected(r, key,
                    "a field (to, from, size, stride, tag, time, skew, cpu, nic, proto, any, "
                    "concurrent, blocking, after, label)");
  if (!(field_kinds[field] & KIND_BIT(task->kind))) return field_not_for_kind(r, task, key);
  if (task->seen & (1u << field))
    return fail(r, key->text, "expected each field at most once (got a second %s)",
                show(r, key, shown));
  int other = field == F_TIME ? F_SIZE : F_TIME;
  if (task->kind == FS_COMPUTE && (field == F_TIME || field == F_SIZE) &&
      (task->seen & (1u << other)))
    return fail(r, key->text,
                "expected time= or size= on a compute task, not both (got %s after "
                "%s=)",
                show(r, key, shown), fields[other].name);
  task->seen |= 1u << field;
  return 0;
}

static int read_field(dag_reader *r, task_line *task, const token *text) {
  const char *equals = memchr(text->text, '=', text->length);
  if (!equals || equals == text->text) return expected(r, text, "a field as key=value");
  token key = {text->text, (size_t)(equals - text->text)};
  token value = {equals + 1, text->length - key.length - 1};
  int field = find_field(&key);
  if (check_key(r, task, &key, field)) return -1;
  if (value.length == 0) {
    char what[64];
    snprintf(what, sizeof what, "a value after '%s='", fields[field].name);
    return expected(r, &value, what);
  }
  return read_value(r, task, field, &value);
}

/* What the whole line must hold, checked once all fields are read. */
static int check_task(dag_reader *r, const task_line *task) {
  static const struct {
    fs_task_kind kind;
    int field;
    const char *what;
  } required[] = {{FS_SLEEP, F_TIME, "time=T on a sleep task"},
                  {FS_PUT, F_TO, "to=RANK on a put task"},
                  {FS_GET, F_FROM, "from=RANK on a get task"},
                  {FS_SEND, F_TO, "to=RANK on a send task"},
                  {FS_RECV, F_FROM, "from=RANK or from=any on a recv task"}};
  token end = {r->line + r->length, 0};
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
    if (task->kind == required[i].kind && !(task->seen & (1u << required[i].field)))
      return expected(r, &end, required[i].what);
  if ((task->seen & (1u << F_ANY)) && task->any > task->dependencies) {
    char what[128];
    snprintf(what, sizeof what,
             "any=K with K at most the %lld dependencies in after=", (long long)task->dependencies);
    return expected(r, &task->any_value, what);
  }
  if (task->seen & (1u << F_ANY)) fs_task_set_any(r->p, task->task, (int32_t)task->any);
  return 0;
}

/* KIND RANK fields...: adds the task. */
static int read_task_body(dag_reader *r, task_line *task) {
  token kind, rank, field;
  next_token(r, &kind);
  int k = fs_task_kind_from_name(kind.text, (int64_t)kind.length);
  if (k < 0)
    return expected(r, &kind, "a task kind (start, proxy, sleep, compute, put, get, send, recv)");
  task->kind = (fs_task_kind)k;
  int32_t rank_id = -1;
  next_token(r, &rank);
  if (read_rank(r, &rank, "a rank", &rank_id)) return -1;
  task->task = fs_program_add(r->p, task->kind, rank_id);
  if (task->task < 0 ||
      fs_task_set_name(r->p, task->task, task->name.text, (int64_t)task->name.length))
    return out_of_memory(r);
  /* transfers default to 0 bytes; a compute without size= is the model's */
  if (TRANSFERS & KIND_BIT(task->kind)) fs_task_set_size(r->p, task->task, 0);
  while (next_token(r, &field))
    if (read_field(r, task, &field)) return -1;
  return check_task(r, task);
}

/* The name table is large and probed at random: its slot is fetched while
 * the rest of the line is parsed, and only then checked. A duplicate name is
 * still the error reported, being the first on the line. */
static int read_task(dag_reader *r, const token *name) {
  if (!r->p) return expected(r, name, "'ranks N' before the first task");
  if (!valid_name(name))
    return expected(r, name, "a task name of letters, digits, '_', '.' and '-'");
  r->above = r->p->tasks;
  if (r->names.count) fs_name_index_prefetch(&r->names, fs_name_hash(name->text, name->length));
  task_line task = {.name = *name};
  int status = read_task_body(r, &task);
  if (find_task(r, name) >= 0)
    return expected(r, name, "a new task name (this one is defined above)");
  if (status) return -1;
  if (!fs_task_name_stored(r->p, task.task)) return 0; /* its generated name: not indexed */
  uint32_t hash = fs_name_hash(name->text, name->length);
  return fs_name_index_add(&r->names, hash, task.task) ? out_of_memory(r) : 0;
}

static int read_line(dag_reader *r, const char *line, size_t length) {
  const char *comment = memchr(line, '#', length);
  if (comment) length = (size_t)(comment - line);
  while (length > 0 && is_blank(line[length - 1])) length--;
  r->line = line;
  r->length = length;
  r->at = 0;
  token first;
  if (!next_token(r, &first)) return 0;
  if (!r->header_seen) return read_header(r, &first);
  if (token_is(&first, "ranks")) return read_ranks(r, &first);
  return read_task(r, &first);
}

static fs_program *finish(dag_reader *r) {
  const char *name = fs_text_input_name(r->in);
  long long line = (long long)fs_text_input_line_number(r->in) + 1;
  if (!r->header_seen) {
    fs_text_error_at(r->err, name, line, 1, "expected the header 'fennel-dag 1' (got end of file)");
    return NULL;
  }
  if (!r->p) {
    fs_text_error_at(r->err, name, line, 1, "expected 'ranks N' (got end of file)");
    return NULL;
  }
  /* the indexes are done with: their memory goes to the successor array */
  fs_name_index_free(&r->names);
  fs_name_index_free(&r->labels);
  return fs_read_program_finalize(&r->p, name, r->err);
}

fs_program *fs_dag_read_input(fs_text_input *in, fs_error *err) {
  dag_reader r = {.in = in, .err = err};
  const char *line;
  size_t length;
  int status;
  while ((status = fs_text_input_next_line(in, &line, &length, err)) == 1)
    if (read_line(&r, line, length)) break;
  fs_program *p = status == 0 ? finish(&r) : NULL;
  fs_program_free(r.p);
  fs_name_index_free(&r.names);
  fs_name_index_free(&r.labels);
  return p;
}

fs_program *fs_dag_read_file(const char *path, fs_error *err) {
  return fs_read_program_file(fs_dag_read_input, path, err);
}

fs_program *fs_dag_read_memory(const char *data, size_t length, const char *display_name,
                               fs_error *err) {
  return fs_read_program_memory(fs_dag_read_input, data, length, display_name, err);
}
