/* atomic_file.c: see atomic_file.h. Bytes collect in a buffer and go out
 * through write(2) or gzwrite in large blocks; the temporary file is synced
 * before the rename so that PATH never names a partly written file. */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BUFFER_SIZE ((size_t)256 << 10)

struct fs_output {
  char *path;
  char *temp;    /* temporary name, or NULL when written in place */
  int created;   /* the temporary file exists and is ours to remove */
  int fd;
  int owns_fd;   /* 0 for stdout */
  gzFile gz;     /* NULL when not compressed */
  char *buffer;
  size_t used;
  char failure[256]; /* first error, empty while all is well */
};

static int ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), k = strlen(suffix);
  return n >= k && strcmp(text + n - k, suffix) == 0;
}

static void output_free(fs_output *out) {
  free(out->path);
  free(out->temp);
  free(out->buffer);
  free(out);
}

/* Keeps the first failure; later ones are consequences of it. */
static int record(fs_output *out, const char *what, const char *why) {
  if (!out->failure[0]) snprintf(out->failure, sizeof out->failure, "%s: %s", what, why);
  return -1;
}

/* Creates PATH.tmp.PID exclusively; a stale one from a dead process with
 * our pid is replaced. */
static int open_temporary(fs_output *out) {
  size_t n = strlen(out->path) + 32;
  if (!(out->temp = malloc(n))) return -1;
  snprintf(out->temp, n, "%s.tmp.%ld", out->path, (long)getpid());
  int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  out->fd = open(out->temp, flags, 0666);
  if (out->fd < 0 && errno == EEXIST && unlink(out->temp) == 0) out->fd = open(out->temp, flags, 0666);
  out->created = out->fd >= 0;
  return out->created ? 0 : -1;
}

/* Opens the descriptor: stdout, the path itself, or a temporary file. */
static int open_target(fs_output *out) {
  struct stat status;
  out->owns_fd = 1;
  if (strcmp(out->path, "-") == 0) {
    out->fd = 1;
    out->owns_fd = 0;
    return 0;
  }
  if (stat(out->path, &status) == 0 && !S_ISREG(status.st_mode)) {
    out->fd = open(out->path, O_WRONLY | O_CLOEXEC);
    return out->fd < 0 ? -1 : 0;
  }
  return open_temporary(out);
}

/* zlib writes through a duplicate so that the descriptor stays ours to sync. */
static int open_gzip(fs_output *out) {
  int copy = dup(out->fd);
  if (copy < 0) return -1;
  out->gz = gzdopen(copy, "wb6");
  if (!out->gz) {
    close(copy);
    errno = ENOMEM;
    return -1;
  }
  return 0;
}

fs_output *fs_output_open(const char *path, fs_error *err) {
  fs_output *out = calloc(1, sizeof *out);
  if (!out || !(out->path = strdup(path)) || !(out->buffer = malloc(BUFFER_SIZE))) {
    if (out) output_free(out);
    fs_error_set(err, "%s: out of memory", path);
    return NULL;
  }
  out->fd = -1;
  if (!path[0]) errno = ENOENT;
  if (!path[0] || open_target(out) != 0 || (ends_with(path, ".gz") && strcmp(path, "-") && open_gzip(out))) {
    int error = errno;
    fs_error_set(err, "%s: cannot create: %s", path, strerror(error));
    fs_output_abort(out);
    return NULL;
  }
  return out;
}

/* Writes a block out, retrying short writes. */
static int emit(fs_output *out, const char *data, size_t length) {
  if (out->failure[0]) return -1;
  if (out->gz) {
    while (length > 0) {
      unsigned part = length > (1u << 30) ? (1u << 30) : (unsigned)length;
      errno = 0;
      if (gzwrite(out->gz, data, part) != (int)part) {
        int code = Z_OK, error = errno;
        const char *message = gzerror(out->gz, &code);
        return record(out, "write failed", code == Z_ERRNO ? strerror(error) : message);
      }
      data += part;
      length -= part;
    }
    return 0;
  }
  while (length > 0) {
    ssize_t n = write(out->fd, data, length);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return record(out, "write failed", strerror(errno));
    data += n;
    length -= (size_t)n;
  }
  return 0;
}

static int flush(fs_output *out) {
  int status = emit(out, out->buffer, out->used);
  out->used = 0;
  return status;
}

int fs_output_write(fs_output *out, const void *data, size_t length) {
  if (out->failure[0]) return -1;
  if (length > BUFFER_SIZE - out->used) {
    if (flush(out)) return -1;
    if (length >= BUFFER_SIZE) return emit(out, data, length);
  }
  memcpy(out->buffer + out->used, data, length);
  out->used += length;
  return 0;
}

int fs_output_puts(fs_output *out, const char *text) {
  return fs_output_write(out, text, strlen(text));
}

int fs_output_vprintf(fs_output *out, const char *format, va_list args) {
  if (out->failure[0]) return -1;
  va_list copy;
  va_copy(copy, args);
  size_t room = BUFFER_SIZE - out->used;
  int n = vsnprintf(out->buffer + out->used, room, format, copy);
  va_end(copy);
  if (n < 0) return record(out, "formatting failed", strerror(errno));
  if ((size_t)n < room) {
    out->used += (size_t)n;
    return 0;
  }
  /* did not fit: format again into a block of the right size */
  char *text = malloc((size_t)n + 1);
  if (!text) return record(out, "formatting failed", "out of memory");
  vsnprintf(text, (size_t)n + 1, format, args);
  int status = fs_output_write(out, text, (size_t)n);
  free(text);
  return status;
}

int fs_output_printf(fs_output *out, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int status = fs_output_vprintf(out, format, args);
  va_end(args);
  return status;
}

/* Ends the gzip stream and closes our descriptor, keeping the first error. */
static void close_all(fs_output *out) {
  if (out->gz) {
    errno = 0;
    int code = gzclose(out->gz);
    out->gz = NULL;
    if (code != Z_OK) record(out, "write failed", code == Z_ERRNO ? strerror(errno) : "zlib error");
  }
  if (out->created && out->fd >= 0 && fsync(out->fd) != 0 && errno != EINVAL)
    record(out, "write failed", strerror(errno));
  if (out->owns_fd && out->fd >= 0 && close(out->fd) != 0 && errno != EINTR)
    record(out, "write failed", strerror(errno));
  out->fd = -1;
}

int fs_output_commit(fs_output *out, fs_error *err) {
  flush(out);
  close_all(out);
  if (!out->failure[0] && out->temp && rename(out->temp, out->path) != 0)
    record(out, "cannot rename the temporary file into place", strerror(errno));
  int failed = out->failure[0] != 0;
  if (failed) {
    if (out->created) unlink(out->temp);
    fs_error_set(err, "%s: %s", out->path, out->failure);
  }
  output_free(out);
  return failed ? -1 : 0;
}

void fs_output_abort(fs_output *out) {
  if (!out) return;
  out->failure[0] = 'x'; /* nothing more is worth reporting */
  close_all(out);
  if (out->created) unlink(out->temp);
  output_free(out);
}

const char *fs_output_path(const fs_output *out) { return out->path; }
