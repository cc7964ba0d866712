/* fuzz_merge.c: libFuzzer target for the samples CSV reader of `fennelsim
 * merge`: any input must be read or rejected with a message; rows that were
 * read must merge into seed-ordered results.
 *
 * An input starting with 'L' exercises lines longer than 1 MiB (a header
 * checked as it arrives, rows as long as the header's ranks): the rest is
 * appended to the first N bytes of a 70000-rank header (N from the next
 * two bytes, scaled to its length) and read from a file, the only input
 * whose buffer grows. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/text_input.h"
#include "study/merge.h"
#include "study/study.h"

#define LONG_RANKS 70000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void merge_input(fs_text_input *in) {
  fs_merge *m = fs_merge_new();
  fs_error err;
  if (m && in && fs_merge_read(m, in, &err) == 0) {
    fs_study_results results;
    int32_t ranks;
    fs_merge_gaps gaps;
    if (fs_merge_results(m, &results, &ranks, &gaps, &err) == 0) {
      for (int64_t i = 1; i < results.count; i++)
        if (results.seed[i] <= results.seed[i - 1]) abort();
      fs_study_results_free(&results);
    }
  }
  fs_text_input_close(in);
  fs_merge_free(m);
}

/* The long mode: a header prefix and the input, through a file. */
static void long_lines(const uint8_t *data, size_t size) {
  static char *header;
  static size_t header_length;
  if (!header) {
    header = malloc(fs_study_row_size(LONG_RANKS));
    header_length = fs_study_header(header, LONG_RANKS) - 1; /* without its '\n' */
  }
  size_t keep = size >= 2 ? (size_t)(data[0] << 8 | data[1]) * header_length / 65535 : 0;
  data += size >= 2 ? 2 : size, size -= size >= 2 ? 2 : size;
  char path[] = "/dev/shm/fuzz_merge_XXXXXX"; /* memory: an exec writes over 1 MiB */
  int fd = mkstemp(path);
  if (fd < 0) return;
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd), unlink(path);
    return;
  }
  fwrite(header, 1, keep, f);
  fwrite(data, 1, size, f);
  fclose(f);
  fs_error err;
  merge_input(fs_text_input_open_file(path, &err));
  unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 0 && data[0] == 'L') {
    long_lines(data + 1, size - 1);
    return 0;
  }
  merge_input(fs_text_input_open_memory((const char *)data, size, "fuzz.csv"));
  return 0;
}
