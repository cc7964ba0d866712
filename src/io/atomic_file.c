/* atomic_file.c: see atomic_file.h. Bytes collect in a buffer and go out
 * through write(2) or gzwrite in large blocks; the temporary file is synced
 * before the rename so that PATH never names a partly written file. */
#include "io/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BUFFER_SIZE ((size_t)256 << 10)
#define PATH_MAX_GUESS 4096 /* readlink's buffer when lstat gives no size (/proc) */

struct fs_output {
  char *path;
  char *target; /* path with its symbolic links followed: the file replaced */
  char *temp;   /* temporary name, or NULL when written in place */
  int created;  /* the temporary file exists and is ours to remove */
  int fd;
  int owns_fd; /* 0 for stdout */
  gzFile gz;   /* NULL when not compressed */
  char *buffer;
  size_t used;
  char failure[256];              /* first error, empty while all is well */
  fs_output_progress_fn progress; /* or NULL */
  void *progress_arg;
};

void fs_output_set_progress(fs_output *out, fs_output_progress_fn fn, void *arg) {
  out->progress = fn, out->progress_arg = arg;
}

void fs_output_progress(fs_output *out, int64_t done) {
  if (out->progress) out->progress(out->progress_arg, done);
}

static int ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), k = strlen(suffix);
  return n >= k && strcmp(text + n - k, suffix) == 0;
}

/* ---- temporary files removed on SIGINT and SIGTERM ------------------------
 * A signal handler can reach no caller's state, so the names of the
 * temporary files not yet renamed or removed live in this process-wide
 * table (the one global of the program). Slots are claimed and released
 * atomically (study threads may open outputs); the handler only loads
 * them, unlinks and re-raises, all async-signal-safe. */

#define PENDING_SLOTS 64

static _Atomic(char *) pending[PENDING_SLOTS];
static atomic_flag handlers_installed = ATOMIC_FLAG_INIT;

static void remove_pending(int signal_number) {
  for (int i = 0; i < PENDING_SLOTS; i++) {
    char *name = atomic_load(&pending[i]);
    if (name) unlink(name);
  }
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

/* Catches SIGINT and SIGTERM, unless they are ignored (nohup, a background
 * job): then nothing interrupts the run anyway. */
static void install_handlers(void) {
  if (atomic_flag_test_and_set(&handlers_installed)) return;
  static const int signals[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; i++) {
    struct sigaction old, action = {0};
    if (sigaction(signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    action.sa_handler = remove_pending;
    sigemptyset(&action.sa_mask);
    sigaction(signals[i], &action, NULL);
  }
}

/* A full table leaves the name unregistered: only its cleanup on a signal is lost. */
static void register_pending(char *name) {
  install_handlers();
  for (int i = 0; i < PENDING_SLOTS; i++) {
    char *expected = NULL;
    if (atomic_compare_exchange_strong(&pending[i], &expected, name)) return;
  }
}

static void unregister_pending(char *name) {
  for (int i = 0; i < PENDING_SLOTS; i++) {
    char *expected = name;
    if (atomic_compare_exchange_strong(&pending[i], &expected, NULL)) return;
  }
}

/* ---- output files ---------------------------------------------------------- */

static void output_free(fs_output *out) {
  if (out->temp) unregister_pending(out->temp);
  free(out->path);
  free(out->target);
  free(out->temp);
  free(out->buffer);
  free(out);
}

/* Keeps the first failure; later ones are consequences of it. */
static int record(fs_output *out, const char *what, const char *why) {
  if (!out->failure[0]) snprintf(out->failure, sizeof out->failure, "%s: %s", what, why);
  return -1;
}

/* Creates TARGET.tmp.PID exclusively (a stale one from a dead process with
 * our pid is replaced), with the mode of the file it replaces, if any. */
static int open_temporary(fs_output *out, const struct stat *old) {
  size_t n = strlen(out->target) + 32;
  if (!(out->temp = malloc(n))) return -1;
  snprintf(out->temp, n, "%s.tmp.%ld", out->target, (long)getpid());
  int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  register_pending(out->temp); /* before it exists: a signal cannot slip in between */
  out->fd = open(out->temp, flags, 0666);
  if (out->fd < 0 && errno == EEXIST && unlink(out->temp) == 0)
    out->fd = open(out->temp, flags, 0666);
  out->created = out->fd >= 0;
  if (out->created && old && fchmod(out->fd, old->st_mode & 07777) != 0) return -1;
  return out->created ? 0 : -1;
}

/* The file a chain of symbolic links ends at (which may not exist yet),
 * so that the link is kept and its target replaced. */
#define MAX_LINKS 40

static char *follow_links(const char *path) {
  char *current = strdup(path);
  struct stat status;
  for (int hops = 0; current && hops < MAX_LINKS; hops++) {
    if (lstat(current, &status) != 0 || !S_ISLNK(status.st_mode)) return current;
    size_t size = (size_t)status.st_size + 1, dir = 0;
    if (size < 2) size = PATH_MAX_GUESS;
    char *link = malloc(size);
    ssize_t n = link ? readlink(current, link, size) : -1;
    if (n < 0 || (size_t)n >= size) {
      free(link);
      return current; /* changed under us: replace the link itself */
    }
    link[n] = 0;
    const char *slash = strrchr(current, '/');
    if (link[0] != '/' && slash) dir = (size_t)(slash - current) + 1;
    char *next = malloc(dir + (size_t)n + 1);
    if (next) memcpy(next, current, dir), memcpy(next + dir, link, (size_t)n + 1);
    free(link);
    free(current);
    current = next;
  }
  if (current) errno = ELOOP;
  free(current);
  return NULL;
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
  if (!(out->target = follow_links(out->path))) return -1;
  int exists = stat(out->target, &status) == 0;
  if (exists && !S_ISREG(status.st_mode)) {
    out->fd = open(out->target, O_WRONLY | O_CLOEXEC);
    return out->fd < 0 ? -1 : 0;
  }
  return open_temporary(out, exists ? &status : NULL);
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
  if (!path[0] || open_target(out) != 0 ||
      (ends_with(path, ".gz") && strcmp(path, "-") && open_gzip(out))) {
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
  if (!out->failure[0] && out->temp && rename(out->temp, out->target) != 0)
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

int fs_same_regular_file(const char *a, const char *b) {
  struct stat x, y;
  return stat(a, &x) == 0 && S_ISREG(x.st_mode) && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
         x.st_ino == y.st_ino;
}
