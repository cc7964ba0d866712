/* fuzz_study_meta.c: libFuzzer target for the samples' sidecar reader
 * (src/study/study_meta.c, `fennelsim merge`): any FILE.csv.meta must be
 * read or rejected with a message; one that was read is of the same study
 * as itself. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "study/study_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char samples[64], meta[72];
  snprintf(samples, sizeof samples, "/tmp/fuzz_study_meta.%d.csv", (int)getpid());
  snprintf(meta, sizeof meta, "%s.meta", samples);
  FILE *f = fopen(meta, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  fs_study_meta m;
  fs_error err;
  if (fs_study_meta_read(samples, &m, &err) == 1) {
    const char *key, *a, *b;
    if (fs_study_meta_differ(&m, &m, &key, &a, &b)) abort();
    for (int i = 0; i < m.count; i++)
      if (!fs_study_meta_get(&m, m.key[i])) abort();
    fs_study_meta_free(&m);
  }
  remove(meta);
  return 0;
}
