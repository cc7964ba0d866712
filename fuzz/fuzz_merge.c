/* fuzz_merge.c: libFuzzer target for the samples CSV reader of `fennelsim
 * merge`: any input must be read or rejected with a message; rows that were
 * read must merge into seed-ordered results. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "formats/text_input.h"
#include "study/merge.h"
#include "study/study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_merge *m = fs_merge_new();
  fs_text_input *in = fs_text_input_open_memory((const char *)data, size, "fuzz.csv");
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
  return 0;
}
