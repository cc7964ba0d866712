/* network.c: see network.h. Hosts and links are arrays (structure of
 * arrays, names in one pool); a built network's declared routes are one
 * list searched on demand (the builder is for small networks and tests;
 * simgrid_platform.c routes large ones by zone). */
#include "platform/network.h"

#include <stdlib.h>
#include <string.h>

typedef struct declared_route {
  int32_t src, dst;
  int64_t first; /* into route_links */
  int32_t count;
} declared_route;

struct fs_network {
  int32_t hosts, host_cap;
  int64_t *host_name; /* offsets into names */
  double *host_speed;
  int32_t *host_cores;
  int32_t links, link_cap;
  int64_t *link_name;
  double *link_bandwidth, *link_latency;
  uint8_t *link_policy;
  char *names;
  int64_t names_used, names_cap;
  declared_route *routes;
  int32_t route_count, route_cap;
  int32_t *route_links;
  int64_t route_links_used, route_links_cap;
};

/* Grows *array of `size`-byte items to hold `need`; 0 or -1. */
static int grow(void *array, int64_t *cap, int64_t need, size_t size) {
  if (need <= *cap) return 0;
  int64_t n = *cap ? *cap * 2 : 16;
  while (n < need) n *= 2;
  void *p = realloc(*(void **)array, (size_t)n * size);
  if (!p) return -1;
  *(void **)array = p;
  *cap = n;
  return 0;
}

static int64_t add_name(fs_network *n, const char *name, fs_error *err) {
  int64_t length = (int64_t)strlen(name) + 1;
  if (grow(&n->names, &n->names_cap, n->names_used + length, 1))
    return fs_error_out_of_memory(err, "network names", n->names_used + length);
  memcpy(n->names + n->names_used, name, (size_t)length);
  n->names_used += length;
  return n->names_used - length;
}

fs_network *fs_network_new(fs_error *err) {
  fs_network *n = calloc(1, sizeof *n);
  if (!n) {
    fs_error_out_of_memory(err, "a network", (int64_t)sizeof *n);
    return NULL;
  }
  if (fs_network_add_link(n, "__loopback__", 1e10, 0, FS_LINK_FATPIPE, err) < 0) {
    fs_network_free(n);
    return NULL;
  }
  return n;
}

void fs_network_free(fs_network *n) {
  if (!n) return;
  free(n->host_name), free(n->host_speed), free(n->host_cores);
  free(n->link_name), free(n->link_bandwidth), free(n->link_latency), free(n->link_policy);
  free(n->names), free(n->routes), free(n->route_links);
  free(n);
}

int32_t fs_network_host_by_name(const fs_network *n, const char *name) {
  for (int32_t h = 0; h < n->hosts; h++)
    if (strcmp(n->names + n->host_name[h], name) == 0) return h;
  return -1;
}

static int32_t link_by_name(const fs_network *n, const char *name) {
  for (int32_t l = 0; l < n->links; l++)
    if (strcmp(n->names + n->link_name[l], name) == 0) return l;
  return -1;
}

int32_t fs_network_add_host(fs_network *n, const char *name, double speed, int32_t cores,
                            fs_error *err) {
  if (n->hosts >= FS_NETWORK_MAX_HOSTS)
    return fs_error_set(err, "more than %d hosts", FS_NETWORK_MAX_HOSTS);
  if (!(speed > 0) || cores < 1)
    return fs_error_set(err, "host %s: expected a speed > 0 and cores >= 1", name);
  if (fs_network_host_by_name(n, name) >= 0)
    return fs_error_set(err, "host %s declared twice", name);
  int64_t cap = n->host_cap, need = (int64_t)n->hosts + 1;
  if (grow(&n->host_name, &cap, need, sizeof(int64_t)) ||
      (cap = n->host_cap, grow(&n->host_speed, &cap, need, sizeof(double))) ||
      (cap = n->host_cap, grow(&n->host_cores, &cap, need, sizeof(int32_t))))
    return fs_error_out_of_memory(err, "hosts", need * 20);
  n->host_cap = (int32_t)cap;
  int64_t at = add_name(n, name, err);
  if (at < 0) return -1;
  n->host_name[n->hosts] = at;
  n->host_speed[n->hosts] = speed;
  n->host_cores[n->hosts] = cores;
  return n->hosts++;
}

int32_t fs_network_add_link(fs_network *n, const char *name, double bandwidth, double latency,
                            fs_link_policy policy, fs_error *err) {
  if (n->links >= FS_NETWORK_MAX_LINKS)
    return fs_error_set(err, "more than %d links", FS_NETWORK_MAX_LINKS);
  if (!(bandwidth > 0) || !(latency >= 0) || bandwidth > 1e300 || latency > 1e300)
    return fs_error_set(err, "link %s: expected a bandwidth > 0 and a latency >= 0", name);
  if (link_by_name(n, name) >= 0) return fs_error_set(err, "link %s declared twice", name);
  int64_t cap = n->link_cap, need = (int64_t)n->links + 1;
  if (grow(&n->link_name, &cap, need, sizeof(int64_t)) ||
      (cap = n->link_cap, grow(&n->link_bandwidth, &cap, need, sizeof(double))) ||
      (cap = n->link_cap, grow(&n->link_latency, &cap, need, sizeof(double))) ||
      (cap = n->link_cap, grow(&n->link_policy, &cap, need, 1)))
    return fs_error_out_of_memory(err, "links", need * 25);
  n->link_cap = (int32_t)cap;
  int64_t at = add_name(n, name, err);
  if (at < 0) return -1;
  n->link_name[n->links] = at;
  n->link_bandwidth[n->links] = bandwidth;
  n->link_latency[n->links] = latency;
  n->link_policy[n->links] = (uint8_t)policy;
  return n->links++;
}

static const declared_route *find_route(const fs_network *n, int32_t src, int32_t dst) {
  for (int32_t i = 0; i < n->route_count; i++)
    if (n->routes[i].src == src && n->routes[i].dst == dst) return &n->routes[i];
  return NULL;
}

static int declare(fs_network *n, int32_t src, int32_t dst, const int32_t *links, int32_t count,
                   int reversed, fs_error *err) {
  if (find_route(n, src, dst))
    return fs_error_set(err, "route from %s to %s declared twice", fs_network_host_name(n, src),
                        fs_network_host_name(n, dst));
  int64_t cap = n->route_cap;
  if (grow(&n->routes, &cap, (int64_t)n->route_count + 1, sizeof(declared_route)) ||
      grow(&n->route_links, &n->route_links_cap, n->route_links_used + count, sizeof(int32_t)))
    return fs_error_out_of_memory(err, "routes", (n->route_links_used + count) * 4);
  n->route_cap = (int32_t)cap;
  for (int32_t i = 0; i < count; i++)
    n->route_links[n->route_links_used + i] = links[reversed ? count - 1 - i : i];
  n->routes[n->route_count++] =
      (declared_route){.src = src, .dst = dst, .first = n->route_links_used, .count = count};
  n->route_links_used += count;
  return 0;
}

int fs_network_add_route(fs_network *n, int32_t src, int32_t dst, const int32_t *links,
                         int32_t count, int symmetrical, fs_error *err) {
  if (src < 0 || src >= n->hosts || dst < 0 || dst >= n->hosts)
    return fs_error_set(err, "route between unknown hosts %d and %d", src, dst);
  if (count < 0 || count > FS_NETWORK_MAX_ROUTE)
    return fs_error_set(err, "a route of %d links (limit %d)", count, FS_NETWORK_MAX_ROUTE);
  for (int32_t i = 0; i < count; i++)
    if (links[i] < 0 || links[i] >= n->links)
      return fs_error_set(err, "route with unknown link id %d", links[i]);
  if (declare(n, src, dst, links, count, 0, err)) return -1;
  if (symmetrical && src != dst) return declare(n, dst, src, links, count, 1, err);
  return 0;
}

int32_t fs_network_hosts(const fs_network *n) { return n->hosts; }
const char *fs_network_host_name(const fs_network *n, int32_t host) {
  return n->names + n->host_name[host];
}
double fs_network_host_speed(const fs_network *n, int32_t host) { return n->host_speed[host]; }
int32_t fs_network_host_cores(const fs_network *n, int32_t host) { return n->host_cores[host]; }
int32_t fs_network_links(const fs_network *n) { return n->links; }
const char *fs_network_link_name(const fs_network *n, int32_t link) {
  return n->names + n->link_name[link];
}
double fs_network_link_bandwidth(const fs_network *n, int32_t link) {
  return n->link_bandwidth[link];
}
double fs_network_link_latency(const fs_network *n, int32_t link) { return n->link_latency[link]; }
fs_link_policy fs_network_link_policy(const fs_network *n, int32_t link) {
  return (fs_link_policy)n->link_policy[link];
}

int fs_network_route(const fs_network *n, int32_t src, int32_t dst, int32_t *links, int32_t cap,
                     int32_t *count, double *latency, fs_error *err) {
  const declared_route *r = find_route(n, src, dst);
  if (!r && src == dst) {
    if (cap > 0) links[0] = FS_NETWORK_LOOPBACK;
    *count = 1;
    *latency = n->link_latency[FS_NETWORK_LOOPBACK];
    return 0;
  }
  if (!r)
    return fs_error_set(err, "no route from %s to %s", fs_network_host_name(n, src),
                        fs_network_host_name(n, dst));
  double sum = 0;
  for (int32_t i = 0; i < r->count; i++) {
    int32_t link = n->route_links[r->first + i];
    if (i < cap) links[i] = link;
    sum += n->link_latency[link];
  }
  *count = r->count;
  *latency = sum;
  return 0;
}

int fs_network_map(const fs_network *n, fs_mapping mapping, int32_t ranks, int32_t *host_of_rank,
                   fs_error *err) {
  int64_t cores = 0;
  for (int32_t h = 0; h < n->hosts; h++) cores += n->host_cores[h];
  if (ranks > cores)
    return fs_error_set(err, "%d ranks do not fit on the platform's %lld cores (%d hosts)", ranks,
                        (long long)cores, n->hosts);
  if (mapping == FS_MAPPING_ROUND_ROBIN) {
    int32_t *used = calloc((size_t)(uint32_t)n->hosts + 1, sizeof *used);
    if (!used) return fs_error_out_of_memory(err, "a mapping", (int64_t)n->hosts * 4);
    for (int32_t r = 0, h = 0; r < ranks; h = (h + 1) % n->hosts) {
      if (used[h] == n->host_cores[h]) continue;
      used[h]++;
      host_of_rank[r++] = h;
    }
    free(used);
    return 0;
  }
  if (mapping != FS_MAPPING_SEQUENTIAL && mapping != FS_MAPPING_NONE)
    return fs_error_set(err, "a network maps ranks sequentially or round-robin");
  for (int32_t r = 0, h = 0, used = 0; r < ranks; r++) {
    while (used == n->host_cores[h]) h++, used = 0;
    host_of_rank[r] = h;
    used++;
  }
  return 0;
}

int64_t fs_network_bytes(const fs_network *n) {
  return (int64_t)sizeof *n + (int64_t)n->host_cap * 20 + (int64_t)n->link_cap * 29 + n->names_cap +
         (int64_t)n->route_cap * (int64_t)sizeof(declared_route) + n->route_links_cap * 4;
}
