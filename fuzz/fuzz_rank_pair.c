/* fuzz_rank_pair.c: libFuzzer target for the rank-pair parameter file of
 * hetero-hockney and lmo (models/rank_pair_table.h), with the keys of one
 * or the other (the last byte picks): any input must be read, with every
 * value within the limits, or rejected with a message naming the file
 * ("fuzz.pairs:..."). Anything else is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/text_input.h"
#include "models/rank_pair_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const fs_rank_pair_keys hockney = {.link_time = "alpha", .link_per_byte = "beta"};
  static const fs_rank_pair_keys lmo = {.link_time = "L",
                                        .link_per_byte = "invbeta",
                                        .rank_time = "C",
                                        .rank_per_byte = "t",
                                        .link_time_defaults_to_zero = 1};
  const fs_rank_pair_keys *keys = size && (data[size - 1] & 1) ? &lmo : &hockney;
  fs_text_input *in = fs_text_input_open_memory((const char *)data, size, "fuzz.pairs");
  if (!in) return 0;
  fs_rank_pair_table table;
  fs_error err;
  err.message[0] = 0;
  if (fs_rank_pair_table_read(in, keys, &table, &err) == 0) {
    if (table.ranks < 1) abort();
    int32_t last = table.ranks - 1;
    fs_time time;
    fs_per_byte per_byte;
    fs_rank_pair_table_link(&table, 0, last, &time, &per_byte);
    if (time < 0 || time > FS_TIME_LIMIT || per_byte < 0 || per_byte > FS_PER_BYTE_LIMIT) abort();
    fs_rank_pair_table_free(&table);
  } else if (strncmp(err.message, "fuzz.pairs", 10) != 0) {
    abort();
  }
  fs_text_input_close(in);
  return 0;
}
