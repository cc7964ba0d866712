/* fuzz_empirical.c: libFuzzer target for the empirical distribution's
 * sample file (`--noise net=empirical:file=PATH`, src/noise/distribution.c).
 * The input up to its first form feed is the file, given through a memfd
 * (rank_files.h). It must either give
 * samples (at least one, all finite) whose draws, mean and variance are
 * finite, or an error naming the file and a line ("/proc/self/fd/N:LINE...")
 * or the file alone when it holds no sample. Anything else (a crash, a
 * leak, a sanitizer report, a non-finite draw) is a bug. */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "noise/distribution.h"
#include "rank_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_rank_files file;
  fuzz_rank_files_open(&file, data, size);
  char spec[64];
  snprintf(spec, sizeof spec, "empirical:file=%s", file.names[0]);
  fs_distribution d;
  fs_error err;
  err.message[0] = 0;
  if (fs_distribution_parse(spec, &d, &err) == 0) {
    if (d.sample_count < 1) abort();
    for (int64_t i = 0; i < d.sample_count; i++)
      if (!isfinite(d.samples[i])) abort();
    for (uint64_t draw = 0; draw < 16; draw++)
      if (!isfinite(fs_distribution_draw(&d, 7, 1, draw))) abort();
    if (isnan(fs_distribution_mean(&d)) || isnan(fs_distribution_variance(&d))) abort();
    fs_distribution_free(&d);
  } else {
    size_t n = strlen(file.names[0]);
    if (strncmp(err.message, file.names[0], n) != 0 || err.message[n] != ':') abort();
  }
  fuzz_rank_files_close(&file);
  return 0;
}
