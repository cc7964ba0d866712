/* fuzz_simgrid_platform.c: libFuzzer target for the SimGrid platform
 * reader: any input gives a network whose every host pair routes (or
 * refuses with a message) with link ids in range, or an error naming
 * "fuzz:" (the display name), and nothing else. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/simgrid_platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const fs_network *n) {
  int32_t hosts = fs_network_hosts(n), links[FS_NETWORK_MAX_ROUTE], count;
  double latency;
  fs_error err;
  for (int32_t s = 0; s < hosts && s < 16; s++)
    for (int32_t d = 0; d < hosts && d < 16; d++) {
      if (fs_network_route(n, s, d, links, FS_NETWORK_MAX_ROUTE, &count, &latency, &err)) continue;
      if (count < 0 || !(latency >= 0)) abort();
      for (int32_t i = 0; i < count && i < FS_NETWORK_MAX_ROUTE; i++)
        if (links[i] < 0 || links[i] >= fs_network_links(n)) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_error err;
  fs_network *n = fs_simgrid_platform_read_memory((const char *)data, size, "fuzz", &err);
  if (n) {
    check(n);
    fs_network_free(n);
  } else if (strncmp(err.message, "fuzz:", 5) != 0) {
    abort();
  }
  return 0;
}
