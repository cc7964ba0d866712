/* fuzz_collective_data.c: libFuzzer target for the collective measurements
 * CSV of `fennelsim validate` (fit/validate.h): any input must be read or
 * rejected with a message; the rows read must hold what the reader
 * promises (a known collective, an algorithm of that collective, ranks in
 * range, 0 < min <= median, mean). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fit/validate.h"
#include "io/text_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_row(const fs_collective_row *row) {
  if (row->collective < FS_COLLECTIVE_BARRIER || row->collective > FS_COLLECTIVE_ALLTOALL) abort();
  const char *name = fs_collective_name(row->collective);
  if (row->algorithm.generator &&
      (strncmp(row->algorithm.generator->name, name, strlen(name)) != 0 ||
       row->algorithm.generator->name[strlen(name)] != '-'))
    abort();
  if (row->ranks < 1 || row->ranks > (1 << 20) || row->bytes < 0 || row->repetitions < 1) abort();
  if (row->min <= 0 || row->median < row->min || row->mean < row->min || row->ci95 < 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_text_input *in = fs_text_input_open_memory((const char *)data, size, "fuzz.csv");
  fs_error err;
  fs_collective_data *d = in ? fs_collective_data_read_input(in, &err) : NULL;
  if (d) {
    if (d->count < 1) abort();
    for (int64_t i = 0; i < d->count; i++) check_row(&d->rows[i]);
  }
  fs_collective_data_free(d);
  fs_text_input_close(in);
  return 0;
}
