/* network_routes.c: prints every host pair's route of a SimGrid platform as
 * fennelsim reads it ("SRC DST LATENCY LINK..." with %.17g, hosts sorted by
 * name), the same lines routes_reference prints from SimGrid itself: the
 * route differential test (route_diff.py) compares the two. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/simgrid_platform.h"

static const fs_network *sorting;
static int by_name(const void *a, const void *b) {
  return strcmp(fs_network_host_name(sorting, *(const int32_t *)a),
                fs_network_host_name(sorting, *(const int32_t *)b));
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: network_routes PLATFORM.xml\n"), 2;
  fs_error err;
  fs_network *n = fs_simgrid_platform_read(argv[1], &err);
  if (!n) return fprintf(stderr, "%s\n", err.message), 2;
  int32_t hosts = fs_network_hosts(n);
  int32_t *order = malloc((size_t)hosts * sizeof *order);
  int32_t links[FS_NETWORK_MAX_ROUTE];
  for (int32_t i = 0; i < hosts; i++) order[i] = i;
  sorting = n;
  qsort(order, (size_t)hosts, sizeof *order, by_name);
  int status = 0;
  for (int32_t i = 0; i < hosts; i++)
    for (int32_t j = 0; j < hosts; j++) {
      int32_t count;
      double latency;
      printf("%s %s", fs_network_host_name(n, order[i]), fs_network_host_name(n, order[j]));
      if (fs_network_route(n, order[i], order[j], links, FS_NETWORK_MAX_ROUTE, &count, &latency,
                           &err)) {
        printf(" error %s\n", err.message);
        status = 1;
        continue;
      }
      printf(" %.17g", latency);
      for (int32_t k = 0; k < count; k++) printf(" %s", fs_network_link_name(n, links[k]));
      printf("\n");
    }
  free(order);
  fs_network_free(n);
  return status;
}
