/* fuzz_platform_xml.c: libFuzzer target for the platform XML reader: any
 * input must give a mapped platform whose queries stay in range, or an
 * error naming "fuzz:" (the display name), and nothing else. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform_xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every rank's node and level must be within the platform's bounds. */
static void check(const fs_platform *p) {
  if (p->ranks < 1 || p->mapping == FS_MAPPING_NONE || p->top_level < 1 || p->channels < 1) abort();
  for (int32_t i = 0; i < p->ranks; i++) {
    int32_t node = fs_platform_node_of(p, i);
    int32_t level = fs_platform_level_between(p, i, p->ranks - 1 - i);
    if (node < 0 || node >= p->nodes || node >= p->used_nodes || level < 0 || level > p->top_level)
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_error err;
  /* 32 ranks: the 4 x 8 seeds; explicit lists must have 32 entries */
  fs_platform *p = fs_platform_read_xml_memory((const char *)data, size, "fuzz", 32, &err);
  if (p) {
    check(p);
    fs_platform_free(p);
  } else if (strncmp(err.message, "fuzz:", 5) != 0) {
    abort();
  }
  return 0;
}
