/* schedule_reader.c: picks the reader by file name, or by the first line
 * (the first bytes for LogGOPSim's binary GOAL) when the name does not
 * say; opens its input. Only dispatches: what the
 * readers share is read_program.c. */
#include "formats/schedule_reader.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/dag_reader.h"
#include "formats/goal_bin_reader.h"
#include "formats/goal_reader.h"
#include "formats/read_program.h"

static int ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), k = strlen(suffix);
  return n >= k && strcmp(text + n - k, suffix) == 0;
}

int fs_schedule_is_goal(const char *path) {
  return ends_with(path, ".goal") || ends_with(path, ".goal.gz");
}

static int is_dag_name(const char *path) {
  return ends_with(path, ".dag") || ends_with(path, ".dag.gz");
}

static int starts_with(const char *line, size_t length, const char *word) {
  size_t k = strlen(word);
  return length >= k && memcmp(line, word, k) == 0;
}

/* The reader of an input whose name does not say (stdin, no or another
 * extension), from its first line that is not blank: .dag for its header
 * or a '#' comment, GOAL for num_ranks or a '//' or '/ *' comment; that
 * line goes back to the reader. NULL with err set when it is neither
 * (gzip is undone below, so this sees the text). */
static fs_program_reader reader_by_content(fs_text_input *in, fs_error *err) {
  const char *line;
  size_t length;
  int status;
  while ((status = fs_text_input_next_line(in, &line, &length, err)) == 1) {
    while (length && (*line == ' ' || *line == '\t')) line++, length--;
    if (length == 0) continue;
    fs_text_input_unread(in);
    if (*line == '#' || starts_with(line, length, "fennel-dag")) return fs_dag_read_input;
    if (starts_with(line, length, "num_ranks") || starts_with(line, length, "//") ||
        starts_with(line, length, "/*"))
      return fs_goal_read_input;
    char shown[FS_TEXT_SHOWN_SIZE];
    fs_text_input_error(in, 1, err,
                        "expected a schedule: a .dag (first line 'fennel-dag 1') or "
                        "GOAL ('num_ranks N'), got \"%s\"",
                        fs_text_shown(line, length, shown));
    return NULL;
  }
  if (status == 0)
    fs_error_set(err,
                 "%s: empty input: expected a schedule, a .dag (first line 'fennel-dag 1') "
                 "or GOAL ('num_ranks N')",
                 fs_text_input_name(in));
  return NULL;
}

/* By name (.goal[.gz], .dag[.gz]), else by content. */
static fs_program *read_input(fs_text_input *in, const char *path, int flags, fs_error *err) {
  fs_program_reader read = fs_schedule_is_goal(path) ? fs_goal_read_input
                           : is_dag_name(path)       ? fs_dag_read_input
                                                     : reader_by_content(in, err);
  if (read == fs_goal_read_input && (flags & FS_READ_INTERLEAVED))
    read = fs_goal_read_input_interleaved;
  return read ? read(in, err) : NULL;
}

fs_program *fs_schedule_read_input(fs_text_input *in, const char *path, fs_error *err) {
  return read_input(in, path, 0, err);
}

fs_program *fs_schedule_read(const char *path, fs_error *err) {
  return fs_schedule_read_showing(path, NULL, 0, err);
}

/* The first bytes of a regular file into start: how many, or -1 when it
 * is not one (a pipe is not peeked at: what is read from it would be lost
 * to the reader) or cannot be opened. */
static ssize_t peek(const char *path, uint8_t *start, size_t length) {
  struct stat info;
  int fd = strcmp(path, "-") == 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC);
  ssize_t got = fd >= 0 && fstat(fd, &info) == 0 && S_ISREG(info.st_mode) ? read(fd, start, length)
                                                                          : -1;
  if (fd >= 0) close(fd);
  return got;
}

/* LogGOPSim's binary GOAL (txt2bin's output): a file that starts with its
 * magic number, or one named *.bin that does not start like text or gzip
 * (those are read by content, as a name without a known extension). */
static int is_goal_bin(const char *path) {
  uint8_t start[8];
  ssize_t got = peek(path, start, sizeof start);
  if (got > 0 && fs_goal_bin_recognize(start, (size_t)got)) return 1;
  if (!ends_with(path, ".bin")) return 0;
  if (got <= 0) return 1; /* a pipe, an empty file, one not found: its error */
  int gzip = got >= 2 && start[0] == 0x1f && start[1] == 0x8b;
  int text = start[0] == '\t' || start[0] == '\n' || start[0] == '\r' ||
             (start[0] >= ' ' && start[0] <= '~');
  return !gzip && !text;
}

fs_program *fs_schedule_read_showing(const char *path, FILE *progress, int flags, fs_error *err) {
  if (is_goal_bin(path)) return fs_goal_bin_read_file(path, err);
  fs_text_input *in = fs_text_input_open_file(path, err);
  if (!in) return NULL;
  if (progress) fs_text_input_show_progress(in, progress);
  fs_program *p = read_input(in, path, flags, err);
  fs_text_input_close(in);
  return p;
}
