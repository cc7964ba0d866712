/* fuzz_size_table.c: libFuzzer target for the size-indexed parameter table
 * reader (pipelined's `--param table=FILE`): any input must be read or
 * rejected with a message, and lookups of a read table, at any size, must
 * stay within the time limit (units.h: they saturate there). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/text_input.h"
#include "models/size_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const names[] = {"first value", "second value", "third value"};
  int columns = size > 0 ? 1 + data[size - 1] % 3 : 2;
  fs_text_input *in = fs_text_input_open_memory((const char *)data, size, "fuzz.table");
  if (!in) return 0;
  fs_size_table table;
  fs_error err;
  if (fs_size_table_read(in, columns, names, &table, &err) == 0) {
    fs_time values[3];
    const int64_t probes[] = {0,        1, 8, 1000, FS_SIZE_LIMIT - 1, FS_SIZE_LIMIT, INT64_MAX / 2,
                              INT64_MAX};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
      fs_size_table_lookup(&table, probes[i], values);
      for (int k = 0; k < columns; k++)
        if (values[k] > FS_TIME_LIMIT || values[k] < -FS_TIME_LIMIT) abort();
    }
    fs_size_table_free(&table);
  }
  fs_text_input_close(in);
  return 0;
}
