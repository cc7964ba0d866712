/* text_input.c: see text_input.h. Files are read with read(2); a file that
 * starts with the gzip magic is inflated with zlib, member after member
 * (concatenated gzip members are one gzip file, as gzip(1) reads them),
 * and bytes after the last member that do not start another member are an
 * error, not silently dropped. Memory input hands out lines straight from
 * the caller's block, without copying. */
#include "io/text_input.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include "io/progress.h"

#include <stdarg.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define CHUNK ((size_t)1 << 20)        /* bytes per read */
#define RAW_BUFFER ((size_t)256 << 10) /* file bytes read at a time */

enum { MODE_UNKNOWN, MODE_PLAIN, MODE_GZIP, MODE_DONE /* after the last gzip member */ };

struct fs_text_input {
  int fd;             /* -1 for memory input */
  const char *memory; /* memory input: the rest of the block */
  size_t memory_left;
  unsigned char *raw; /* file bytes read, pending are raw[raw_start..raw_end) */
  size_t raw_start, raw_end;
  int raw_eof;
  int64_t raw_offset;  /* file bytes read so far */
  int mode;            /* MODE_*: decided by the first two bytes */
  int64_t trailing_at; /* where bytes after the gzip data begin, or -1: reported
                        * after the lines before them, at the end */
  int inflating;       /* z is initialized */
  z_stream z;
  char *buffer; /* file input: pending bytes are buffer[start..end) */
  size_t capacity, start, end;
  size_t scanned;  /* bytes after start known to hold no '\n' */
  int source_done; /* no more bytes to read */
  int failed;
  int64_t line_number;
  size_t line_max;           /* FS_TEXT_LINE_MAX unless set */
  fs_text_input_check check; /* before the buffer grows, or NULL */
  void *check_arg;
  char *name;
  fs_progress *progress; /* fs_text_input_show_progress, or NULL */
  const char *held;      /* the line last returned, for fs_text_input_unread */
  size_t held_length;
  int repeat; /* the next call returns held again */
  void *map;  /* fs_text_input_block of a file: the mapping, or NULL */
  size_t map_length, map_released;
};

static fs_text_input *new_input(const char *name) {
  fs_text_input *in = calloc(1, sizeof *in);
  if (!in) return NULL;
  in->line_max = FS_TEXT_LINE_MAX;
  in->fd = -1;
  in->trailing_at = -1;
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
  if (!in || !(in->buffer = malloc(in->capacity)) || !(in->raw = malloc(RAW_BUFFER))) {
    fs_text_input_close(in);
    fs_error_set(err, "%s: out of memory", path);
    return NULL;
  }
  in->fd = is_stdin ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
  if (in->fd < 0) {
    fs_error_set(err, "%s: cannot open: %s", in->name, strerror(errno));
    fs_text_input_close(in);
    return NULL;
  }
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

static int read_error(fs_text_input *in, fs_error *err, const char *why) {
  fs_error_set(err, "%s:%lld: read error: %s", in->name, (long long)in->line_number + 1, why);
  return fail(in);
}

/* More file bytes into raw when none are pending; sets raw_eof at the end. */
static int read_raw(fs_text_input *in, fs_error *err) {
  if (in->raw_start < in->raw_end || in->raw_eof) return 0;
  ssize_t got;
  do got = read(in->fd, in->raw, RAW_BUFFER);
  while (got < 0 && errno == EINTR);
  if (got < 0) return read_error(in, err, strerror(errno));
  in->raw_start = 0, in->raw_end = (size_t)got, in->raw_eof = got == 0;
  in->raw_offset += got;
  return 0;
}

/* Reads until two bytes are pending or the file ends (a short read may
 * split the gzip magic). */
static int pending_two(fs_text_input *in, fs_error *err) {
  while (in->raw_end - in->raw_start < 2 && !in->raw_eof) {
    size_t have = in->raw_end - in->raw_start;
    memmove(in->raw, in->raw + in->raw_start, have);
    in->raw_start = 0, in->raw_end = have;
    ssize_t got;
    do got = read(in->fd, in->raw + have, RAW_BUFFER - have);
    while (got < 0 && errno == EINTR);
    if (got < 0) return read_error(in, err, strerror(errno));
    in->raw_end += (size_t)got, in->raw_eof = got == 0, in->raw_offset += got;
  }
  return 0;
}

/* The first two bytes decide plain text or gzip. */
static int decide_mode(fs_text_input *in, fs_error *err) {
  if (pending_two(in, err)) return -1;
  const unsigned char *b = in->raw + in->raw_start;
  in->mode = in->raw_end - in->raw_start >= 2 && b[0] == 0x1f && b[1] == 0x8b ? MODE_GZIP
                                                                              : MODE_PLAIN;
  if (in->mode == MODE_GZIP) {
    if (inflateInit2(&in->z, 15 + 16) != Z_OK) return read_error(in, err, "out of memory");
    in->inflating = 1;
  }
  return 0;
}

/* After a member's end: another member (1), the end of the file, or
 * other bytes (an error once the lines before them are read). */
static int next_member(fs_text_input *in, fs_error *err) {
  if (pending_two(in, err)) return -1;
  size_t left = in->raw_end - in->raw_start;
  if (left == 0) return in->mode = MODE_DONE, 0;
  const unsigned char *b = in->raw + in->raw_start;
  if (left >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
    inflateReset(&in->z);
    return 1;
  }
  in->trailing_at = in->raw_offset - (int64_t)left;
  in->mode = MODE_DONE;
  return 0;
}

/* Up to room decoded bytes into to; 0 at the end of the input. */
static int64_t decode(fs_text_input *in, char *to, size_t room, fs_error *err) {
  if (in->mode == MODE_UNKNOWN && decide_mode(in, err)) return -1;
  for (;;) {
    if (in->mode == MODE_DONE) return 0;
    if (read_raw(in, err)) return -1;
    size_t have = in->raw_end - in->raw_start;
    if (in->mode == MODE_PLAIN) {
      size_t n = have < room ? have : room;
      memcpy(to, in->raw + in->raw_start, n);
      in->raw_start += n;
      return (int64_t)n;
    }
    if (have == 0) return read_error(in, err, "unexpected end of file");
    in->z.next_in = in->raw + in->raw_start, in->z.avail_in = (uInt)have;
    in->z.next_out = (Bytef *)to, in->z.avail_out = (uInt)room;
    int status = inflate(&in->z, Z_NO_FLUSH);
    in->raw_start = in->raw_end - in->z.avail_in;
    size_t produced = room - in->z.avail_out;
    if (status == Z_STREAM_END) {
      int more = next_member(in, err);
      if (more < 0) return -1;
      if (produced || !more) return (int64_t)produced;
    } else if (status == Z_MEM_ERROR) {
      return read_error(in, err, "out of memory");
    } else if (status != Z_OK && status != Z_BUF_ERROR) {
      return read_error(in, err, in->z.msg ? in->z.msg : "corrupt gzip data");
    } else if (produced) {
      return (int64_t)produced;
    }
  }
}

/* Moves pending bytes to the front and reads one more chunk. */
static int refill(fs_text_input *in, fs_error *err) {
  size_t pending = in->end - in->start;
  memmove(in->buffer, in->buffer + in->start, pending);
  in->start = 0;
  in->end = pending;
  size_t room = in->capacity - in->end;
  if (room > CHUNK) room = CHUNK;
  int64_t got = decode(in, in->buffer + in->end, room, err);
  if (got < 0) return -1;
  if (got == 0) in->source_done = 1;
  in->end += (size_t)got;
  if (in->progress)
    fs_progress_update(in->progress, in->raw_offset - (int64_t)(in->raw_end - in->raw_start));
  return 0;
}

void fs_text_input_show_progress(fs_text_input *in, FILE *out) {
  struct stat info;
  if (in->fd < 0 || in->progress || strcmp(in->name, "<stdin>") == 0 || stat(in->name, &info) != 0)
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
      if (pending == 0 && in->trailing_at >= 0) {
        char why[128];
        snprintf(why, sizeof why,
                 "bytes after the gzip data at byte %lld of the file (expected "
                 "another gzip member or the end)",
                 (long long)in->trailing_at);
        return read_error(in, err, why);
      }
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
  if (in->repeat) {
    in->repeat = 0;
    *line = in->held, *length = in->held_length;
    return 1;
  }
  int status = in->fd >= 0 ? next_file_line(in, line, length, err)
                           : next_memory_line(in, line, length, err);
  if (status == 1) in->held = *line, in->held_length = *length;
  return status;
}

void fs_text_input_unread(fs_text_input *in) {
  if (in->held && !in->failed) in->repeat = 1;
}

/* Whether nothing but blank lines and the line given back were taken. */
static int untouched(const fs_text_input *in) {
  return !in->failed && (in->line_number == 0 || in->repeat);
}

/* Whether in is an uncompressed regular file from which nothing was taken
 * but blank lines and a line given back: its size. */
static int plain_file(fs_text_input *in, size_t *size) {
  struct stat info;
  unsigned char magic[2] = {0, 0};
  if (!untouched(in) || in->fd < 0 || in->map || strcmp(in->name, "<stdin>") == 0 ||
      fstat(in->fd, &info) != 0 || !S_ISREG(info.st_mode) || (uint64_t)info.st_size > SIZE_MAX)
    return 0;
  if (in->mode == MODE_UNKNOWN && pread(in->fd, magic, 2, 0) < 0) return 0;
  if (in->mode == MODE_UNKNOWN ? magic[0] == 0x1f && magic[1] == 0x8b : in->mode != MODE_PLAIN)
    return 0; /* gzip */
  *size = (size_t)info.st_size;
  return 1;
}

int fs_text_input_plain_file(fs_text_input *in, int *fd, size_t *size) {
  if (!plain_file(in, size)) return 0;
  *fd = in->fd;
  return 1;
}

int fs_text_input_block(fs_text_input *in, const char **data, size_t *length) {
  size_t size;
  if (!untouched(in)) return 0;
  if (in->fd < 0) {
    if (in->line_number) return 0; /* a memory line given back: read by lines */
    *data = in->memory, *length = in->memory_left;
    in->memory_left = 0;
    return 1;
  }
  if (!plain_file(in, &size)) return 0;
  void *map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, in->fd, 0) : NULL;
  if (size && map == MAP_FAILED) return 0;
  if (map) posix_madvise(map, size, POSIX_MADV_SEQUENTIAL);
  in->map = map, in->map_length = size;
  *data = map ? map : "", *length = size;
  in->source_done = 1, in->start = in->end = 0, in->repeat = 0;
  in->mode = MODE_DONE, in->trailing_at = -1;
  return 1;
}

void fs_text_input_block_done(fs_text_input *in, size_t done) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), release = done / page * page;
  if (in->map && release > in->map_released) { /* unmapped from the front: no longer resident */
    munmap((char *)in->map + in->map_released, release - in->map_released);
    in->map_released = release;
  }
  if (in->progress) fs_progress_update(in->progress, (int64_t)done);
}

void fs_text_input_block_release(fs_text_input *in, size_t from, size_t to) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), first = (from + page - 1) / page * page;
  size_t last = to / page * page;
  if (in->map && last > first) fs_memory_drop_pages((char *)in->map + first, last - first);
}

int64_t fs_text_input_line_number(const fs_text_input *in) { return in->line_number; }

const char *fs_text_input_name(const fs_text_input *in) { return in->name; }

void fs_text_input_close(fs_text_input *in) {
  if (!in) return;
  if (in->map && in->map_length > in->map_released)
    munmap((char *)in->map + in->map_released, in->map_length - in->map_released);
  fs_progress_done(in->progress);
  if (in->fd >= 0) close(in->fd);
  if (in->inflating) inflateEnd(&in->z);
  free(in->raw);
  free(in->buffer);
  free(in->name);
  free(in);
}

const char *fs_text_shown(const char *text, size_t length, char buffer[FS_TEXT_SHOWN_SIZE]) {
  size_t shown = length > 40 ? 40 : length, k = 0;
  for (size_t i = 0; i < shown; i++) {
    unsigned char c = (unsigned char)text[i];
    buffer[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
  if (shown < length) memcpy(buffer + k, "...", 3), k += 3;
  buffer[k] = 0;
  return buffer;
}

size_t fs_text_digits(const char *text, size_t length, uint64_t *value) {
  uint64_t v = 0;
  size_t n = 0;
  for (; n < length && text[n] >= '0' && text[n] <= '9'; n++) {
    unsigned digit = (unsigned)(text[n] - '0');
    if (v > (UINT64_MAX - digit) / 10) return 0;
    v = v * 10 + digit;
  }
  if (n > 0) *value = v;
  return n;
}

const char *fs_text_quoted(const char *text, size_t length, const char *line_end,
                           char buffer[FS_TEXT_QUOTED_SIZE]) {
  if (length == 0) return text == line_end ? "end of line" : "nothing";
  char shown[FS_TEXT_SHOWN_SIZE];
  snprintf(buffer, FS_TEXT_QUOTED_SIZE, "'%s'", fs_text_shown(text, length, shown));
  return buffer;
}

int fs_text_verror_at(fs_error *err, const char *name, int64_t line, int64_t column,
                      const char *format, va_list args) {
  char message[768];
  vsnprintf(message, sizeof message, format, args);
  if (line < 0) return fs_error_set(err, "%s: %s", name, message);
  if (column < 0) return fs_error_set(err, "%s:%lld: %s", name, (long long)line, message);
  return fs_error_set(err, "%s:%lld:%lld: %s", name, (long long)line, (long long)column, message);
}

int fs_text_error_at(fs_error *err, const char *name, int64_t line, int64_t column,
                     const char *format, ...) {
  va_list args;
  va_start(args, format);
  fs_text_verror_at(err, name, line, column, format, args);
  va_end(args);
  return -1;
}

int fs_text_input_verror(const fs_text_input *in, int64_t column, fs_error *err, const char *format,
                         va_list args) {
  return fs_text_verror_at(err, in->name, in->line_number, column, format, args);
}

int fs_text_input_error(const fs_text_input *in, int64_t column, fs_error *err, const char *format,
                        ...) {
  va_list args;
  va_start(args, format);
  fs_text_input_verror(in, column, err, format, args);
  va_end(args);
  return -1;
}
