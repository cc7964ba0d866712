/* fuzz_probe_data.c: libFuzzer target for fennelprobe's point-to-point CSV
 * reader (src/fit/probe_data.c). Every input must either give data that
 * keeps the reader's promises (ranks in range, sizes and times not
 * negative, min <= median and min <= mean, stride and block together) and
 * that the writer accepts (to /dev/null); or an error that names the
 * input and a line ("fuzz:LINE..."). Anything else (a crash, a leak, a
 * sanitizer report, an error without position, a broken promise) is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fit/probe_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int broken(const fs_probe_data *d, const fs_probe_row *r) {
  if (r->experiment < 0 || r->experiment >= FS_EXPERIMENTS) return 1;
  if (r->rank_a < 0 || r->rank_a >= d->ranks || r->rank_b < -1 || r->rank_b >= d->ranks) return 1;
  if (r->rank_c < -1 || r->rank_c >= d->ranks || r->count < 1 || r->repetitions < 1) return 1;
  if (r->bytes < 0 || r->reply_bytes < 0 || r->min < 0 || r->ci95 < 0) return 1;
  if (r->median < r->min || r->mean < r->min) return 1;
  return (r->stride == 0) != (r->block == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_error err;
  err.message[0] = 0;
  fs_probe_data *d = fs_probe_data_read_memory((const char *)data, size, "fuzz", &err);
  if (!d) {
    if (strncmp(err.message, "fuzz:", 5) != 0 || err.message[5] < '0' || err.message[5] > '9')
      abort();
    return 0;
  }
  if (d->ranks < 1) abort();
  for (int64_t i = 0; i < d->count; i++)
    if (broken(d, &d->rows[i])) abort();
  if (fs_probe_data_write(d, "/dev/null", &err) != 0) abort();
  fs_probe_data_free(d);
  return 0;
}
