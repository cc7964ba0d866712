/* text_input.c: see text_input.h. Files are read through zlib's gzread,
 * which passes plain text through and inflates gzip; memory input hands out
 * lines straight from the caller's block, without copying. */
#include "text_input.h"

#include <sys/stat.h>

#include "instruments/progress.h"

#include <stdarg.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define CHUNK ((size_t)1 << 20)         /* bytes per read */
#define GZ_BUFFER ((unsigned)256 << 10) /* zlib's own input buffer */

struct fs_text_input {
  gzFile gz;          /* NULL for memory input */
  const char *memory; /* memory input: the rest of the block */
  size_t memory_left;
  char *buffer;       /* file input: pending bytes are buffer[start..end) */
  size_t capacity, start, end;
  size_t scanned;     /* bytes after start known to hold no '\n' */
  int source_done;    /* no more bytes to read */
  int failed;
  size_t zlib_prefix; /* zlib's messages start with its name for the file and ": " */
  int64_t line_number;
  size_t line_max;           /* FS_TEXT_LINE_MAX unless set */
  fs_text_input_check check; /* before the buffer grows, or NULL */
  void *check_arg;
  char *name;
  fs_progress *progress; /* fs_text_input_show_progress, or NULL */
};

static fs_text_input *new_input(const char *name) {
  fs_text_input *in = calloc(1, sizeof *in);
  if (!in) return NULL;
  in->line_max = FS_TEXT_LINE_MAX;
  in->name = strdup(name);
  if (!in->name) {
    free(in);
    return NULL;
  }
  return in;
}

fs_text_input *fs_text_input_open_file(const char *path, fs_error *err) {
  int is_stdin = strcmp(path, "-") == 0;
  fs_text_input *in = new_input(is_stdin ? "<stdin>" : path);
  if (in) in->capacity = FS_TEXT_LINE_MAX + CHUNK + 1;
  if (!in || !(in->buffer = malloc(in->capacity))) {
    fs_text_input_close(in);
    fs_error_set(err, "%s: out of memory", path);
    return NULL;
  }
  errno = 0;
  int fd = is_stdin ? dup(0) : -1;
  in->gz = is_stdin ? (fd >= 0 ? gzdopen(fd, "rb") : NULL) : gzopen(path, "rb");
  if (!in->gz) {
    int error = errno;
    if (fd >= 0) close(fd);
    fs_error_set(err, "%s: cannot open: %s", in->name, error ? strerror(error) : "out of memory");
    fs_text_input_close(in);
    return NULL;
  }
  char fd_name[32];
  in->zlib_prefix = is_stdin ? (size_t)snprintf(fd_name, sizeof fd_name, "<fd:%d>: ", fd)
                             : strlen(path) + 2;
  gzbuffer(in->gz, GZ_BUFFER);
  return in;
}

fs_text_input *fs_text_input_open_memory(const char *data, size_t length,
                                         const char *display_name) {
  fs_text_input *in = new_input(display_name);
  if (!in) return NULL;
  in->memory = data;
  in->memory_left = length;
  return in;
}

static int fail(fs_text_input *in) {
  in->failed = 1;
  return -1;
}

/* Checks and trims one raw line (without its '\n') before handing it out. */
static int deliver(fs_text_input *in, const char *line, size_t length, const char **out_line,
                   size_t *out_length, fs_error *err) {
  int64_t number = ++in->line_number;
  if (length > in->line_max) {
    fs_error_set(err, "%s:%lld: line longer than %zu bytes", in->name, (long long)number,
                 in->line_max);
    return fail(in);
  }
  const char *nul = memchr(line, 0, length);
  if (nul) {
    fs_error_set(err, "%s:%lld:%zu: NUL byte in text (is this a binary file?)", in->name,
                 (long long)number, (size_t)(nul - line) + 1);
    return fail(in);
  }
  if (length > 0 && line[length - 1] == '\r') length--;
  *out_line = line;
  *out_length = length;
  return 1;
}

static int next_memory_line(fs_text_input *in, const char **line, size_t *length, fs_error *err) {
  if (in->memory_left == 0) return 0;
  const char *start = in->memory;
  const char *newline = memchr(start, '\n', in->memory_left);
  size_t raw = newline ? (size_t)(newline - start) : in->memory_left;
  size_t consumed = newline ? raw + 1 : raw;
  in->memory += consumed;
  in->memory_left -= consumed;
  return deliver(in, start, raw, line, length, err);
}

/* Moves pending bytes to the front and reads one more chunk. */
static int refill(fs_text_input *in, fs_error *err) {
  size_t pending = in->end - in->start;
  memmove(in->buffer, in->buffer + in->start, pending);
  in->start = 0;
  in->end = pending;
  size_t room = in->capacity - in->end;
  if (room > CHUNK) room = CHUNK;
  errno = 0;
  int got = gzread(in->gz, in->buffer + in->end, (unsigned)room);
  int error = errno, code = Z_OK;
  const char *message = gzerror(in->gz, &code);
  if (got < 0 || code != Z_OK) {
    if (strlen(message) >= in->zlib_prefix) message += in->zlib_prefix;
    fs_error_set(err, "%s:%lld: read error: %s", in->name, (long long)in->line_number + 1,
                 code == Z_ERRNO ? strerror(error) : message);
    return fail(in);
  }
  if (got == 0) in->source_done = 1;
  in->end += (size_t)got;
  if (in->progress) fs_progress_update(in->progress, (int64_t)gzoffset(in->gz));
  return 0;
}

void fs_text_input_show_progress(fs_text_input *in, FILE *out) {
  struct stat info;
  if (!in->gz || in->progress || strcmp(in->name, "<stdin>") == 0 || stat(in->name, &info) != 0)
    return;
  char what[64];
  const char *base = strrchr(in->name, '/');
  snprintf(what, sizeof what, "reading %.50s", base ? base + 1 : in->name);
  in->progress = fs_progress_new(what, (int64_t)info.st_size, 1, out);
  fs_progress_check_every(in->progress, 1); /* an update per chunk of the file */
}

/* Room for a chunk more of a line longer than FS_TEXT_LINE_MAX (up to
 * line_max), once the check has seen its start. */
static int grow(fs_text_input *in, fs_error *err) {
  if (in->check && in->check(in->check_arg, in->buffer + in->start, in->end - in->start, err))
    return fail(in);
  size_t capacity = in->capacity * 2, most = in->line_max + CHUNK + 1;
  if (capacity > most) capacity = most;
  memmove(in->buffer, in->buffer + in->start, in->end - in->start);
  in->end -= in->start, in->start = 0;
  char *buffer = realloc(in->buffer, capacity);
  if (!buffer) {
    fs_error_set(err, "%s:%lld: out of memory for a line of over %zu bytes", in->name,
                 (long long)in->line_number + 1, in->end);
    return fail(in);
  }
  in->buffer = buffer, in->capacity = capacity;
  return 0;
}

void fs_text_input_set_line_max(fs_text_input *in, size_t max, fs_text_input_check check,
                                void *arg) {
  in->line_max = max > FS_TEXT_LINE_MAX ? max : FS_TEXT_LINE_MAX;
  in->check = check, in->check_arg = arg;
}

static int next_file_line(fs_text_input *in, const char **line, size_t *length, fs_error *err) {
  for (;;) {
    char *from = in->buffer + in->start;
    char *newline = memchr(from + in->scanned, '\n', in->end - in->start - in->scanned);
    if (newline) {
      in->start += (size_t)(newline - from) + 1;
      in->scanned = 0;
      return deliver(in, from, (size_t)(newline - from), line, length, err);
    }
    size_t pending = in->end - in->start;
    in->scanned = pending;
    if (pending > in->line_max) return deliver(in, from, pending, line, length, err);
    if (!in->source_done && pending + CHUNK + 1 > in->capacity && grow(in, err)) return -1;
    if (in->source_done) {
      if (pending == 0) return 0;
      in->start = in->end;
      in->scanned = 0;
      return deliver(in, from, pending, line, length, err);
    }
    if (refill(in, err)) return -1;
  }
}

int fs_text_input_next_line(fs_text_input *in, const char **line, size_t *length, fs_error *err) {
  if (in->failed) {
    fs_error_set(err, "%s: input already failed", in->name);
    return -1;
  }
  return in->gz ? next_file_line(in, line, length, err) : next_memory_line(in, line, length, err);
}

int64_t fs_text_input_line_number(const fs_text_input *in) { return in->line_number; }

const char *fs_text_input_name(const fs_text_input *in) { return in->name; }

void fs_text_input_close(fs_text_input *in) {
  if (!in) return;
  fs_progress_done(in->progress);
  if (in->gz) gzclose(in->gz);
  free(in->buffer);
  free(in->name);
  free(in);
}

int fs_text_input_error(const fs_text_input *in, int64_t column, fs_error *err,
                        const char *format, ...) {
  char message[768];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  return fs_error_set(err, "%s:%lld:%lld: %s", fs_text_input_name(in),
                      (long long)fs_text_input_line_number(in), (long long)column, message);
}
