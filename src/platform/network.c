/* network.c: see network.h.
 *
 * Map of this file:
 *   names        one string pool; an open-addressing index per kind
 *   building     hosts, links, points (hosts, routers, zones), zones
 *   graph zones  Full (declared routes), Floyd and Dijkstra (shortest
 *                paths in links over the declared routes, made at seal)
 *   clusters     flat, torus, fat tree, dragonfly: routes computed
 *   routing      SimGrid's recursion through the common ancestor zone
 *   mapping      ranks to hosts
 *
 * Points are SimGrid's netpoints: every host, router and zone is one; a
 * zone's routing connects the points declared directly in it. Cluster
 * routes are computed on demand from a few arrays per cluster, so a
 * cluster costs O(hosts + links) however many pairs it has. */
#include "platform/network.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/network_build.h"

/* ---- names ------------------------------------------------------------ */

typedef struct name_index {
  int32_t *slots; /* id + 1; 0: empty */
  uint32_t mask;
  int32_t count;
} name_index;

typedef struct route_buffer {
  int32_t *links;
  int32_t cap, count;
} route_buffer;

typedef struct graph_route {
  int32_t src, dst, gw_src, gw_dst; /* vertex indices; gateways are points */
  int64_t first;                    /* into the zone's links */
  int32_t count;
  double latency; /* Dijkstra's own sum, or NAN: sum the links in order */
} graph_route;

typedef struct ft_node {
  int32_t id, level, position;
  int32_t parents_at, parents; /* into parent_node/parent_up slots */
  int32_t children_at, children;
  int32_t limiter;
} ft_node;

typedef struct zone {
  uint8_t kind;
  int32_t parent, point, depth, subzones;
  /* graph zones */
  int32_t vertices, vertex_cap;
  int32_t *vertex_point;
  graph_route *routes;
  int32_t route_count, route_cap;
  int32_t *route_links;
  int64_t route_links_used, route_links_cap;
  int32_t *table; /* vertices^2 route index (-1: none), made at seal (or on demand for Full) */
  int32_t table_vertices;
  /* clusters */
  int32_t first_host, hosts, router;
  int32_t *up, *down, *limiter, *loopback; /* per host; -1: none */
  int32_t backbone;
  int32_t dims, dim[FS_CLUSTER_MAX_DIMS];
  int32_t *torus_up, *torus_down; /* per host and dimension */
  /* fat tree */
  int32_t levels, ft_down[FS_CLUSTER_MAX_DIMS], ft_up[FS_CLUSTER_MAX_DIMS],
      ft_count[FS_CLUSTER_MAX_DIMS];
  int32_t nodes;
  ft_node *node;
  int32_t *label; /* nodes * levels digits */
  int32_t *slot_node, *slot_up, *slot_down;
  /* dragonfly */
  int32_t groups, chassis, routers, per_router;
  int32_t *local_up, *local_down; /* per host */
  int32_t *green, *black, *blue;  /* [2] per pair: up, down */
  int32_t *df_limiter;            /* per router, -1 */
} zone;

struct fs_network {
  char *names;
  int64_t names_used, names_cap;
  /* hosts */
  int32_t hosts, host_cap;
  int64_t *host_name;
  double *host_speed;
  int32_t *host_cores, *host_point;
  /* links */
  int32_t links, link_cap;
  int64_t *link_name;
  double *link_bandwidth, *link_latency;
  uint8_t *link_policy;
  /* points */
  int32_t points, point_cap;
  int64_t *point_name;
  uint8_t *point_kind;
  int32_t *point_zone;   /* the zone it is declared in (-1: the root zone's own point) */
  int32_t *point_vertex; /* its vertex in that zone's graph, or its host/zone index */
  int32_t *point_index;  /* host id, zone id or router number */
  /* zones */
  int32_t zones, zone_cap;
  zone *zone;
  name_index host_names, link_names, point_names;
  int32_t fat_tree_links, dragonfly_links; /* SimGrid's process-wide counters */
  int sealed;
};

enum { POINT_HOST, POINT_ROUTER, POINT_ZONE };

static uint32_t hash_text(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

/* -1 or id; ids index names through `offsets`. */
static int32_t index_find(const name_index *x, const fs_network *n, const int64_t *offsets,
                          const char *name) {
  if (!x->slots) return -1;
  for (uint32_t i = hash_text(name) & x->mask;; i = (i + 1) & x->mask) {
    if (!x->slots[i]) return -1;
    int32_t id = x->slots[i] - 1;
    if (strcmp(n->names + offsets[id], name) == 0) return id;
  }
}

static int index_add(name_index *x, const fs_network *n, const int64_t *offsets, int32_t id) {
  if ((int64_t)(x->count + 1) * 2 > (int64_t)x->mask + 1 || !x->slots) {
    uint32_t size = x->slots ? (x->mask + 1) * 2 : 64;
    int32_t *slots = calloc(size, sizeof *slots);
    if (!slots) return -1;
    for (uint32_t i = 0; x->slots && i <= x->mask; i++) {
      if (!x->slots[i]) continue;
      uint32_t j = hash_text(n->names + offsets[x->slots[i] - 1]) & (size - 1);
      while (slots[j]) j = (j + 1) & (size - 1);
      slots[j] = x->slots[i];
    }
    free(x->slots);
    x->slots = slots;
    x->mask = size - 1;
  }
  uint32_t i = hash_text(n->names + offsets[id]) & x->mask;
  while (x->slots[i]) i = (i + 1) & x->mask;
  x->slots[i] = id + 1;
  x->count++;
  return 0;
}

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

/* ---- building ----------------------------------------------------------- */

static int32_t add_point(fs_network *n, const char *name, int kind, int32_t in_zone, int32_t index,
                         fs_error *err);

fs_network *fs_network_new(fs_error *err) {
  fs_network *n = calloc(1, sizeof *n);
  if (!n) {
    fs_error_out_of_memory(err, "a network", (int64_t)sizeof *n);
    return NULL;
  }
  if (fs_network_add_link(n, "__loopback__", 1e10, 0, FS_LINK_FATPIPE, err) < 0 ||
      fs_network_add_zone(n, -1, "__root__", FS_ZONE_FULL, err) < 0) {
    fs_network_free(n);
    return NULL;
  }
  return n;
}

static void free_zone(zone *z) {
  free(z->vertex_point), free(z->routes), free(z->route_links), free(z->table);
  free(z->up), free(z->down), free(z->limiter), free(z->loopback);
  free(z->torus_up), free(z->torus_down);
  free(z->node), free(z->label), free(z->slot_node), free(z->slot_up), free(z->slot_down);
  free(z->local_up), free(z->local_down), free(z->green), free(z->black), free(z->blue);
  free(z->df_limiter);
}

void fs_network_free(fs_network *n) {
  if (!n) return;
  for (int32_t i = 0; i < n->zones; i++) free_zone(&n->zone[i]);
  free(n->zone);
  free(n->host_name), free(n->host_speed), free(n->host_cores), free(n->host_point);
  free(n->link_name), free(n->link_bandwidth), free(n->link_latency), free(n->link_policy);
  free(n->point_name), free(n->point_kind), free(n->point_zone), free(n->point_vertex);
  free(n->point_index);
  free(n->host_names.slots), free(n->link_names.slots), free(n->point_names.slots);
  free(n->names);
  free(n);
}

int32_t fs_network_host_by_name(const fs_network *n, const char *name) {
  return index_find(&n->host_names, n, n->host_name, name);
}
int32_t fs_network_link_by_name(const fs_network *n, const char *name) {
  return index_find(&n->link_names, n, n->link_name, name);
}
int32_t fs_network_point_by_name(const fs_network *n, const char *name) {
  return index_find(&n->point_names, n, n->point_name, name);
}

/* The vertex of point p in zone z's graph (graph zones only). */
static int32_t add_vertex(fs_network *n, zone *z, int32_t p, fs_error *err) {
  if (fs_grow(&z->vertex_point, &z->vertex_cap, (int64_t)z->vertices + 1, sizeof(int32_t), 16))
    return fs_error_out_of_memory(err, "zone vertices", (int64_t)z->vertices * 4);
  z->vertex_point[z->vertices] = p;
  n->point_vertex[p] = z->vertices;
  return z->vertices++;
}

static int32_t add_point(fs_network *n, const char *name, int kind, int32_t in_zone, int32_t index,
                         fs_error *err) {
  if (fs_network_point_by_name(n, name) >= 0)
    return fs_error_set(err, "%s declared twice (hosts, routers and zones share one namespace)",
                        name);
  int64_t need = (int64_t)n->points + 1;
  int32_t cap = n->point_cap;
  if (fs_grow(&n->point_name, &cap, need, sizeof(int64_t), 16) ||
      (cap = n->point_cap, fs_grow(&n->point_kind, &cap, need, 1, 16)) ||
      (cap = n->point_cap, fs_grow(&n->point_zone, &cap, need, sizeof(int32_t), 16)) ||
      (cap = n->point_cap, fs_grow(&n->point_vertex, &cap, need, sizeof(int32_t), 16)) ||
      (cap = n->point_cap, fs_grow(&n->point_index, &cap, need, sizeof(int32_t), 16)))
    return fs_error_out_of_memory(err, "network points", need * 21);
  n->point_cap = cap;
  int64_t at = add_name(n, name, err);
  if (at < 0) return -1;
  int32_t p = n->points;
  n->point_name[p] = at, n->point_kind[p] = (uint8_t)kind, n->point_zone[p] = in_zone;
  n->point_vertex[p] = -1, n->point_index[p] = index;
  n->points++;
  if (index_add(&n->point_names, n, n->point_name, p))
    return fs_error_out_of_memory(err, "network names", need * 8);
  if (in_zone >= 0 && n->zone[in_zone].kind <= FS_ZONE_DIJKSTRA &&
      add_vertex(n, &n->zone[in_zone], p, err) < 0)
    return -1;
  return p;
}

int32_t fs_network_add_zone(fs_network *n, int32_t parent, const char *name, fs_zone_kind kind,
                            fs_error *err) {
  if (parent >= 0 && n->zone[parent].kind > FS_ZONE_DIJKSTRA)
    return fs_error_set(err, "zone %s inside a cluster", name);
  if (fs_grow(&n->zone, &n->zone_cap, (int64_t)n->zones + 1, sizeof(zone), 16))
    return fs_error_out_of_memory(err, "zones", ((int64_t)n->zones + 1) * (int64_t)sizeof(zone));
  int32_t id = n->zones++;
  zone *z = &n->zone[id];
  memset(z, 0, sizeof *z);
  z->kind = (uint8_t)kind, z->parent = parent, z->router = -1, z->backbone = -1;
  z->depth = parent >= 0 ? n->zone[parent].depth + 1 : 0;
  z->point = add_point(n, name, POINT_ZONE, parent, id, err);
  if (z->point < 0) return -1;
  if (parent >= 0) n->zone[parent].subzones++;
  n->sealed = 0;
  return id;
}

int32_t fs_network_add_router(fs_network *n, int32_t in_zone, const char *name, fs_error *err) {
  return add_point(n, name, POINT_ROUTER, in_zone, -1, err);
}

int32_t fs_network_add_host_in(fs_network *n, int32_t in_zone, const char *name, double speed,
                               int32_t cores, fs_error *err) {
  if (n->hosts >= FS_NETWORK_MAX_HOSTS)
    return fs_error_set(err, "more than %d hosts", FS_NETWORK_MAX_HOSTS);
  if (!(speed > 0) || cores < 1)
    return fs_error_set(err, "host %s: expected a speed > 0 and cores >= 1", name);
  int64_t need = (int64_t)n->hosts + 1;
  int32_t cap = n->host_cap;
  if (fs_grow(&n->host_name, &cap, need, sizeof(int64_t), 16) ||
      (cap = n->host_cap, fs_grow(&n->host_speed, &cap, need, sizeof(double), 16)) ||
      (cap = n->host_cap, fs_grow(&n->host_cores, &cap, need, sizeof(int32_t), 16)) ||
      (cap = n->host_cap, fs_grow(&n->host_point, &cap, need, sizeof(int32_t), 16)))
    return fs_error_out_of_memory(err, "hosts", need * 24);
  n->host_cap = cap;
  int32_t p = add_point(n, name, POINT_HOST, in_zone, n->hosts, err);
  if (p < 0) return -1;
  n->host_name[n->hosts] = n->point_name[p];
  n->host_speed[n->hosts] = speed;
  n->host_cores[n->hosts] = cores;
  n->host_point[n->hosts] = p;
  if (index_add(&n->host_names, n, n->host_name, n->hosts))
    return fs_error_out_of_memory(err, "network names", need * 8);
  return n->hosts++;
}

int32_t fs_network_add_host(fs_network *n, const char *name, double speed, int32_t cores,
                            fs_error *err) {
  return fs_network_add_host_in(n, 0, name, speed, cores, err);
}

int32_t fs_network_add_link(fs_network *n, const char *name, double bandwidth, double latency,
                            fs_link_policy policy, fs_error *err) {
  if (n->links >= FS_NETWORK_MAX_LINKS)
    return fs_error_set(err, "more than %d links", FS_NETWORK_MAX_LINKS);
  if (!(bandwidth >= 0) || !(latency >= 0) || bandwidth > 1e300 || latency > 1e300)
    return fs_error_set(err, "link %s: expected a bandwidth and a latency >= 0", name);
  if (fs_network_link_by_name(n, name) >= 0)
    return fs_error_set(err, "link %s declared twice", name);
  int64_t need = (int64_t)n->links + 1;
  int32_t cap = n->link_cap;
  if (fs_grow(&n->link_name, &cap, need, sizeof(int64_t), 16) ||
      (cap = n->link_cap, fs_grow(&n->link_bandwidth, &cap, need, sizeof(double), 16)) ||
      (cap = n->link_cap, fs_grow(&n->link_latency, &cap, need, sizeof(double), 16)) ||
      (cap = n->link_cap, fs_grow(&n->link_policy, &cap, need, 1, 16)))
    return fs_error_out_of_memory(err, "links", need * 25);
  n->link_cap = cap;
  int64_t at = add_name(n, name, err);
  if (at < 0) return -1;
  n->link_name[n->links] = at;
  n->link_bandwidth[n->links] = bandwidth;
  n->link_latency[n->links] = latency;
  n->link_policy[n->links] = (uint8_t)policy;
  if (index_add(&n->link_names, n, n->link_name, n->links))
    return fs_error_out_of_memory(err, "network names", need * 8);
  return n->links++;
}

/* ---- graph zones --------------------------------------------------------- */

static int32_t find_graph_route(const zone *z, int32_t src, int32_t dst) {
  if (z->table && z->table_vertices == z->vertices)
    return z->table[(int64_t)src * z->vertices + dst];
  for (int32_t i = 0; i < z->route_count; i++)
    if (z->routes[i].src == src && z->routes[i].dst == dst) return i;
  return -1;
}

int fs_network_add_zone_route(fs_network *n, int32_t in_zone, int32_t src, int32_t dst,
                              int32_t gw_src, int32_t gw_dst, const int32_t *links, int32_t count,
                              fs_error *err) {
  zone *z = &n->zone[in_zone];
  if (z->kind > FS_ZONE_DIJKSTRA) return fs_error_set(err, "a route declared in a cluster");
  int32_t vs = n->point_zone[src] == in_zone ? n->point_vertex[src] : -1;
  int32_t vd = n->point_zone[dst] == in_zone ? n->point_vertex[dst] : -1;
  if (vs < 0 || vd < 0)
    return fs_error_set(err, "route from %s to %s: both ends must be declared in its zone",
                        n->names + n->point_name[src], n->names + n->point_name[dst]);
  if (count < 0 || count > FS_NETWORK_MAX_ROUTE)
    return fs_error_set(err, "a route of %d links (limit %d)", count, FS_NETWORK_MAX_ROUTE);
  for (int32_t i = 0; i < count; i++)
    if (links[i] < 0 || links[i] >= n->links)
      return fs_error_set(err, "route with unknown link id %d", links[i]);
  if (find_graph_route(z, vs, vd) >= 0)
    return fs_error_set(err, "route from %s to %s declared twice", n->names + n->point_name[src],
                        n->names + n->point_name[dst]);
  if (fs_grow(&z->routes, &z->route_cap, (int64_t)z->route_count + 1, sizeof(graph_route), 16) ||
      grow(&z->route_links, &z->route_links_cap, z->route_links_used + count, sizeof(int32_t)))
    return fs_error_out_of_memory(err, "routes", (z->route_links_used + count) * 4);
  if (count) memcpy(z->route_links + z->route_links_used, links, (size_t)count * sizeof(int32_t));
  z->routes[z->route_count++] = (graph_route){.src = vs,
                                              .dst = vd,
                                              .gw_src = gw_src >= 0 ? gw_src : src,
                                              .gw_dst = gw_dst >= 0 ? gw_dst : dst,
                                              .first = z->route_links_used,
                                              .count = count,
                                              .latency = NAN};
  z->route_links_used += count;
  free(z->table), z->table = NULL;
  n->sealed = 0;
  return 0;
}

int fs_network_add_route(fs_network *n, int32_t src, int32_t dst, const int32_t *links,
                         int32_t count, int symmetrical, fs_error *err) {
  if (src < 0 || src >= n->hosts || dst < 0 || dst >= n->hosts)
    return fs_error_set(err, "route between unknown hosts %d and %d", src, dst);
  int32_t ps = n->host_point[src], pd = n->host_point[dst];
  if (fs_network_add_zone_route(n, 0, ps, pd, -1, -1, links, count, err)) return -1;
  if (!symmetrical || src == dst) return 0;
  int32_t reversed[FS_NETWORK_MAX_ROUTE];
  for (int32_t i = 0; i < count; i++) reversed[i] = links[count - 1 - i];
  return fs_network_add_zone_route(n, 0, pd, ps, -1, -1, reversed, count, err);
}

/* Shortest paths in links (Floyd, or Dijkstra by (cost, vertex)) become
 * routes of their own: the concatenation of the edges' links, gateways
 * from the first and last edge. Paths through several zones stitch their
 * gateways at route time (SimGrid's recursive hierarchy) only when they
 * meet; else the path is refused then. */
static int add_path_route(const fs_network *n, zone *z, int32_t src, int32_t dst,
                          const int32_t *edge, int32_t edges, fs_error *err) {
  int64_t count = 0;
  for (int32_t e = 0; e < edges; e++) count += z->routes[edge[e]].count;
  if (count > FS_NETWORK_MAX_ROUTE)
    return fs_error_set(err, "a computed route of %lld links (limit %d)", (long long)count,
                        FS_NETWORK_MAX_ROUTE);
  if (fs_grow(&z->routes, &z->route_cap, (int64_t)z->route_count + 1, sizeof(graph_route), 16) ||
      grow(&z->route_links, &z->route_links_cap, z->route_links_used + count, sizeof(int32_t)))
    return fs_error_out_of_memory(err, "routes", (z->route_links_used + count) * 4);
  /* Dijkstra (SimGrid) lists each edge's links backwards and sums the
   * latency edge by edge from the last, each edge's links in order. */
  int dijkstra = z->kind == FS_ZONE_DIJKSTRA;
  int64_t at = z->route_links_used;
  for (int32_t e = 0; e < edges; e++) {
    const graph_route *r = &z->routes[edge[e]];
    for (int32_t i = 0; i < r->count; i++)
      z->route_links[at + i] = z->route_links[r->first + (dijkstra ? r->count - 1 - i : i)];
    at += r->count;
  }
  double latency = NAN;
  if (dijkstra) {
    latency = 0;
    for (int32_t e = edges - 1; e >= 0; e--) {
      const graph_route *r = &z->routes[edge[e]];
      for (int32_t i = 0; i < r->count; i++)
        latency += n->link_latency[z->route_links[r->first + i]];
    }
  }
  z->routes[z->route_count] = (graph_route){.src = src,
                                            .dst = dst,
                                            .gw_src = z->routes[edge[0]].gw_src,
                                            .gw_dst = z->routes[edge[edges - 1]].gw_dst,
                                            .first = z->route_links_used,
                                            .count = (int32_t)count,
                                            .latency = latency};
  z->route_links_used = at;
  return z->route_count++;
}

static int shortest_paths(const fs_network *n, zone *z, int32_t *table, fs_error *err);

/* The dense table of a graph zone's routes: declared, then shortest paths. */
static int seal_graph(const fs_network *n, zone *z, fs_error *err) {
  int32_t v = z->vertices;
  if (v > FS_NETWORK_MAX_GRAPH_VERTICES && z->kind != FS_ZONE_FULL)
    return fs_error_set(err, "a Floyd or Dijkstra zone of %d points (limit %d)", v,
                        FS_NETWORK_MAX_GRAPH_VERTICES);
  if (z->kind == FS_ZONE_FULL && (int64_t)v * v > ((int64_t)1 << 26)) return 0; /* search */
  int64_t cells = (int64_t)v * v;
  int32_t *table = malloc((size_t)(cells ? cells : 1) * sizeof *table);
  if (!table) return fs_error_out_of_memory(err, "a zone's route table", cells * 4);
  for (int64_t i = 0; i < cells; i++) table[i] = -1;
  for (int32_t r = 0; r < z->route_count; r++)
    table[(int64_t)z->routes[r].src * v + z->routes[r].dst] = r;
  int status = 0;
  if (z->kind != FS_ZONE_FULL) status = shortest_paths(n, z, table, err);
  free(z->table);
  z->table = table;
  z->table_vertices = v;
  return status;
}

/* Shortest paths in links over the declared routes (SimGrid's Floyd and
 * Dijkstra zones): Floyd relaxes k, i, j in declaration order on strict
 * improvement; Dijkstra takes vertices by (cost, first appearance in a
 * route). Each path of more than one edge becomes a route of its own in
 * table; direct edges keep their declared route. */
static int shortest_paths(const fs_network *n, zone *z, int32_t *table, fs_error *err) {
  int32_t v = z->vertices, declared = z->route_count;
  int64_t cells = (int64_t)v * v;
  int32_t *cost = malloc((size_t)(cells ? cells : 1) * sizeof *cost);
  int32_t *pred = malloc((size_t)(cells ? cells : 1) * sizeof *pred);
  int32_t *direct = malloc((size_t)(cells ? cells : 1) * sizeof *direct);
  int32_t *edge = malloc(((size_t)v + 1) * sizeof *edge);
  int32_t *rank = malloc(((size_t)v + 1) * sizeof *rank);
  int32_t *dist = malloc(((size_t)v + 1) * sizeof *dist);
  uint8_t *done = malloc((size_t)v + 1);
  int status = 0;
  if (!cost || !pred || !direct || !edge || !rank || !dist || !done) {
    status = fs_error_out_of_memory(err, "shortest paths", cells * 12);
    goto end;
  }
  const int32_t inf = INT32_MAX / 4;
  for (int64_t i = 0; i < cells; i++) cost[i] = inf, pred[i] = -1, direct[i] = table[i];
  for (int32_t r = 0; r < declared; r++) {
    int64_t c = (int64_t)z->routes[r].src * v + z->routes[r].dst;
    cost[c] = z->routes[r].count, pred[c] = z->routes[r].src;
  }
  if (z->kind == FS_ZONE_FLOYD) {
    for (int32_t k = 0; k < v; k++)
      for (int32_t i = 0; i < v; i++)
        for (int32_t j = 0; j < v; j++) {
          int64_t ik = (int64_t)i * v + k, kj = (int64_t)k * v + j, ij = (int64_t)i * v + j;
          if (cost[ik] < inf && cost[kj] < inf && cost[ik] + cost[kj] < cost[ij])
            cost[ij] = cost[ik] + cost[kj], pred[ij] = pred[kj];
        }
  } else {
    int32_t ranked = 0;
    for (int32_t i = 0; i < v; i++) rank[i] = -1;
    for (int32_t r = 0; r < declared; r++) {
      if (rank[z->routes[r].src] < 0) rank[z->routes[r].src] = ranked++;
      if (rank[z->routes[r].dst] < 0) rank[z->routes[r].dst] = ranked++;
    }
    for (int32_t i = 0; i < v; i++)
      if (rank[i] < 0) rank[i] = ranked++;
    for (int32_t s = 0; s < v; s++) {
      int32_t *from = pred + (int64_t)s * v;
      for (int32_t i = 0; i < v; i++) done[i] = 0, dist[i] = inf, from[i] = -1;
      dist[s] = 0;
      for (;;) {
        int32_t u = -1;
        for (int32_t i = 0; i < v; i++)
          if (!done[i] && dist[i] < inf &&
              (u < 0 || dist[i] < dist[u] || (dist[i] == dist[u] && rank[i] < rank[u])))
            u = i;
        if (u < 0) break;
        done[u] = 1;
        for (int32_t w = 0; w < v; w++) {
          int64_t uw = (int64_t)u * v + w;
          if (direct[uw] >= 0 && w != u && dist[u] + z->routes[direct[uw]].count < dist[w])
            dist[w] = dist[u] + z->routes[direct[uw]].count, from[w] = u;
        }
      }
    }
  }
  for (int32_t s = 0; s < v && !status; s++)
    for (int32_t d = 0; d < v && !status; d++) {
      int64_t sd = (int64_t)s * v + d;
      /* none, or the direct edge (which Dijkstra still lists backwards) */
      if (s == d || pred[sd] < 0 || (pred[sd] == s && z->kind != FS_ZONE_DIJKSTRA)) continue;
      int32_t edges = 0, at = d;
      while (at != s && edges <= v) {
        int32_t p = pred[(int64_t)s * v + at];
        if (p < 0 || direct[(int64_t)p * v + at] < 0) break;
        edge[edges++] = direct[(int64_t)p * v + at];
        at = p;
      }
      if (at != s || edges > v) continue;
      for (int32_t i = 0; i < edges / 2; i++) {
        int32_t t = edge[i];
        edge[i] = edge[edges - 1 - i], edge[edges - 1 - i] = t;
      }
      int32_t r = add_path_route(n, z, s, d, edge, edges, err);
      if (r < 0) status = -1;
      table[sd] = r;
    }
end:
  free(cost), free(pred), free(direct), free(edge), free(rank), free(dist), free(done);
  return status;
}

int fs_network_seal(fs_network *n, fs_error *err) {
  for (int32_t i = 0; i < n->zones; i++)
    if (n->zone[i].kind <= FS_ZONE_DIJKSTRA && seal_graph(n, &n->zone[i], err)) return -1;
  n->sealed = 1;
  return 0;
}

/* ---- route buffers ------------------------------------------------------- */

static void push(route_buffer *b, int32_t link) {
  if (b->count < b->cap) b->links[b->count] = link;
  b->count++;
}
static void push_latency(const fs_network *n, route_buffer *b, int32_t link, double *latency) {
  push(b, link);
  *latency += n->link_latency[link];
}
static int contains(const route_buffer *b, int32_t from, int32_t link) {
  for (int32_t i = from; i < b->count && i < b->cap; i++)
    if (b->links[i] == link) return 1;
  return 0;
}

/* ---- clusters: building ---------------------------------------------------- */

static int32_t make_link(fs_network *n, const char *name, double bandwidth, double latency,
                         fs_link_policy policy, fs_error *err) {
  return fs_network_add_link(n, name, bandwidth, latency, policy, err);
}

/* NAME, or NAME_UP and NAME_DOWN when split: *up and *down. */
static int make_pair(fs_network *n, const char *name, double bandwidth, double latency, int split,
                     int32_t *up, int32_t *down, fs_error *err) {
  char text[530];
  if (!split) {
    *up = *down = make_link(n, name, bandwidth, latency, FS_LINK_SHARED, err);
    return *up < 0 ? -1 : 0;
  }
  snprintf(text, sizeof text, "%s_UP", name);
  *up = make_link(n, text, bandwidth, latency, FS_LINK_SHARED, err);
  if (*up < 0) return -1;
  snprintf(text, sizeof text, "%s_DOWN", name);
  *down = make_link(n, text, bandwidth, latency, FS_LINK_SHARED, err);
  return *down < 0 ? -1 : 0;
}

static int32_t *new_ids(int64_t count, fs_error *err) {
  int32_t *ids = malloc((size_t)(count > 0 ? count : 1) * sizeof *ids);
  if (!ids) {
    fs_error_out_of_memory(err, "a cluster", count * 4);
    return NULL;
  }
  for (int64_t i = 0; i < count; i++) ids[i] = -1;
  return ids;
}

/* Hosts, and per host the limiter and loopback links every topology has. */
static int cluster_hosts(fs_network *n, zone *z, int32_t zone_id, const fs_cluster_spec *s,
                         fs_error *err) {
  char name[512];
  z->first_host = n->hosts, z->hosts = s->count;
  if (!(z->limiter = new_ids(s->count, err)) || !(z->loopback = new_ids(s->count, err))) return -1;
  for (int32_t i = 0; i < s->count; i++) {
    snprintf(name, sizeof name, "%s%lld%s", s->prefix, (long long)s->radicals[i], s->suffix);
    if (fs_network_add_host_in(n, zone_id, name, s->speed, s->cores, err) < 0) return -1;
  }
  for (int32_t i = 0; i < s->count; i++) {
    long long r = s->topology == FS_ZONE_FLAT ? s->radicals[i] : i;
    if (s->loopback_bandwidth > 0 || s->loopback_latency > 0) {
      snprintf(name, sizeof name, "%s_link_%lld_loopback", s->id, r);
      z->loopback[i] =
          make_link(n, name, s->loopback_bandwidth, s->loopback_latency, FS_LINK_FATPIPE, err);
      if (z->loopback[i] < 0) return -1;
    }
    if (s->limiter > 0) {
      snprintf(name, sizeof name, "%s_link_%lld_limiter", s->id, r);
      if ((z->limiter[i] = make_link(n, name, s->limiter, 0, FS_LINK_SHARED, err)) < 0) return -1;
    }
  }
  return 0;
}

static int build_flat(fs_network *n, zone *z, int32_t zone_id, const fs_cluster_spec *s,
                      fs_error *err) {
  char name[512];
  if (!(z->up = new_ids(s->count, err)) || !(z->down = new_ids(s->count, err))) return -1;
  for (int32_t i = 0; i < s->count; i++) {
    snprintf(name, sizeof name, "%s_link_%lld", s->id, (long long)s->radicals[i]);
    if (make_pair(n, name, s->bandwidth, s->latency, s->split, &z->up[i], &z->down[i], err))
      return -1;
  }
  if (s->backbone_bandwidth > 0 || s->backbone_latency > 0) {
    snprintf(name, sizeof name, "%s_backbone", s->id);
    z->backbone = make_link(n, name, s->backbone_bandwidth, s->backbone_latency,
                            s->backbone_fatpipe ? FS_LINK_FATPIPE : FS_LINK_SHARED, err);
    if (z->backbone < 0) return -1;
  }
  if (s->router_id)
    snprintf(name, sizeof name, "%s", s->router_id);
  else
    snprintf(name, sizeof name, "%s%s_router%s", s->prefix, s->id, s->suffix);
  z->router = add_point(n, name, POINT_ROUTER, zone_id, -1, err);
  return z->router < 0 ? -1 : 0;
}

static int build_torus(fs_network *n, zone *z, const fs_cluster_spec *s, fs_error *err) {
  char name[512];
  z->dims = s->param_count;
  int64_t total = 1;
  for (int32_t j = 0; j < z->dims; j++) z->dim[j] = s->params[j], total *= s->params[j];
  if (total != s->count)
    return fs_error_set(err, "cluster %s: TORUS %lld nodes for %d hosts", s->id, (long long)total,
                        s->count);
  if (!(z->torus_up = new_ids((int64_t)s->count * z->dims, err)) ||
      !(z->torus_down = new_ids((int64_t)s->count * z->dims, err)))
    return -1;
  for (int32_t i = 0; i < s->count; i++) {
    int64_t product = 1;
    for (int32_t j = 0; j < z->dims; j++) {
      int32_t d = z->dim[j];
      int64_t neighbour = (i / product) % d == d - 1 ? i - (d - 1) * product : i + product;
      snprintf(name, sizeof name, "%s_link_from_%d_to_%lld", s->id, i, (long long)neighbour);
      int64_t at = (int64_t)i * z->dims + j;
      if (make_pair(n, name, s->bandwidth, s->latency, s->split, &z->torus_up[at],
                    &z->torus_down[at], err))
        return -1;
      product *= d;
    }
  }
  return 0;
}

/* Fat tree (topo_parameters L;down..;up..;count..): nodes by level and
 * position, labels in mixed radix, parallel links between related nodes. */
static int32_t ft_digit(const zone *z, int32_t node, int32_t j) {
  return z->label[(int64_t)node * z->levels + j];
}

static int build_fat_tree(fs_network *n, zone *z, const fs_cluster_spec *s, fs_error *err) {
  char name[512];
  int32_t L = z->levels = s->params[0];
  int64_t hosts = 1, level_size[FS_CLUSTER_MAX_DIMS + 1], level_base[FS_CLUSTER_MAX_DIMS + 2];
  for (int32_t j = 0; j < L; j++) {
    z->ft_down[j] = s->params[1 + j], z->ft_up[j] = s->params[1 + L + j];
    z->ft_count[j] = s->params[1 + 2 * L + j];
    hosts *= z->ft_down[j];
  }
  if (hosts != s->count)
    return fs_error_set(err, "cluster %s: FAT_TREE has %lld hosts for %d radicals", s->id,
                        (long long)hosts, s->count);
  int64_t nodes = 0;
  for (int32_t i = 0; i <= L; i++) {
    int64_t size = 1;
    for (int32_t j = 0; j < L; j++) size *= j < i ? z->ft_up[j] : z->ft_down[j];
    level_size[i] = size, level_base[i] = nodes, nodes += size;
    if (nodes > FS_NETWORK_MAX_HOSTS * 4LL)
      return fs_error_set(err, "cluster %s: a fat tree of more than %lld nodes", s->id,
                          FS_NETWORK_MAX_HOSTS * 4LL);
  }
  level_base[L + 1] = nodes;
  z->nodes = (int32_t)nodes;
  z->node = calloc((size_t)nodes, sizeof *z->node);
  z->label = malloc((size_t)nodes * (size_t)L * sizeof *z->label);
  int64_t slots = 0;
  double wanted = 0; /* in double: the product can pass 2^63 before the check */
  for (int32_t l = 0; l < L; l++)
    wanted += (double)level_size[l] * z->ft_up[l] * z->ft_count[l] * 2; /* as child and parent */
  if (wanted > 2.0 * FS_CLUSTER_MAX_LINKS)
    return fs_error_set(err, "cluster %s: a fat tree of more than %d links", s->id,
                        FS_CLUSTER_MAX_LINKS);
  slots = (int64_t)wanted;
  z->slot_node = new_ids(slots, err), z->slot_up = new_ids(slots, err);
  z->slot_down = new_ids(slots, err);
  if (!z->node || !z->label || !z->slot_node || !z->slot_up || !z->slot_down)
    return fs_error_out_of_memory(err, "a fat tree", nodes * (24 + 4 * L) + slots * 12);
  int64_t at = 0;
  for (int32_t i = 0; i <= L; i++)
    for (int64_t q = 0; q < level_size[i]; q++) {
      int64_t k = level_base[i] + q, rest = q;
      ft_node *node = &z->node[k];
      node->level = i, node->position = (int32_t)q, node->limiter = -1;
      node->id = i == 0 ? (int32_t)q : (int32_t)(2 * hosts - 1 - (k - hosts));
      for (int32_t j = 0; j < L; j++) {
        int32_t radix = j < i ? z->ft_up[j] : z->ft_down[j];
        z->label[k * L + j] = (int32_t)(rest % radix), rest /= radix;
      }
      if (i < L) node->parents_at = (int32_t)at, node->parents = z->ft_up[i] * z->ft_count[i];
      at += node->parents;
      if (i > 0)
        node->children_at = (int32_t)at, node->children = z->ft_down[i - 1] * z->ft_count[i - 1];
      at += node->children;
      if (i == 0) node->limiter = z->limiter[q];
    }
  for (int64_t k = hosts; k < nodes && s->limiter > 0; k++) {
    snprintf(name, sizeof name, "%s_link_%d_limiter", s->id, z->node[k].id);
    if ((z->node[k].limiter = make_link(n, name, s->limiter, 0, FS_LINK_SHARED, err)) < 0)
      return -1;
  }
  for (int32_t l = 0; l < L; l++)
    for (int64_t c = level_base[l]; c < level_base[l + 1]; c++)
      for (int32_t d = 0; d < z->ft_up[l]; d++) {
        /* the parent: c's label with digit l = d, in the parent level's radices */
        int64_t position = 0, place = 1;
        for (int32_t j = 0; j < L; j++) {
          int32_t digit = j == l ? d : ft_digit(z, (int32_t)c, j);
          position += digit * place;
          place *= j < l + 1 ? z->ft_up[j] : z->ft_down[j];
        }
        int64_t p = level_base[l + 1] + position;
        for (int32_t j = 0; j < z->ft_count[l]; j++) {
          int32_t up, down;
          snprintf(name, sizeof name, "link_from_%d_%d_%d", z->node[c].id, z->node[p].id,
                   n->fat_tree_links++);
          if (make_pair(n, name, s->bandwidth, s->latency, s->split, &up, &down, err)) return -1;
          int64_t cs = z->node[c].parents_at + d + j * z->ft_up[l];
          int64_t ps = z->node[p].children_at + ft_digit(z, (int32_t)c, l) + j * z->ft_down[l];
          z->slot_node[cs] = (int32_t)p, z->slot_up[cs] = up, z->slot_down[cs] = down;
          z->slot_node[ps] = (int32_t)c, z->slot_up[ps] = up, z->slot_down[ps] = down;
        }
      }
  return 0;
}

/* Dragonfly (G,nb;C,nk;B,ng;Nn): links local, green, black, blue in
 * SimGrid's creation order with its one counter. */
static int build_dragonfly(fs_network *n, zone *z, const fs_cluster_spec *s, fs_error *err) {
  char name[512];
  const int32_t *p = s->params;
  z->groups = p[0], z->chassis = p[2], z->routers = p[4], z->per_router = p[6];
  int32_t G = z->groups, C = z->chassis, B = z->routers, Nn = z->per_router;
  if ((int64_t)G * C * B * Nn != s->count)
    return fs_error_set(err, "cluster %s: DRAGONFLY has %lld hosts for %d radicals", s->id,
                        (long long)G * C * B * Nn, s->count);
  if (G > B)
    return fs_error_set(err,
                        "cluster %s: DRAGONFLY with more groups (%d) than routers per "
                        "chassis (%d) (SimGrid reads past an array there)",
                        s->id, G, B);
  int64_t routers = (int64_t)G * C * B;
  if (!(z->df_limiter = new_ids(routers, err))) return -1;
  for (int64_t r = 0; r < routers && s->limiter > 0; r++) { /* named after the hosts, backwards */
    snprintf(name, sizeof name, "%s_link_%lld_limiter", s->id,
             (long long)(s->count + routers - 1 - r));
    if ((z->df_limiter[r] = make_link(n, name, s->limiter, 0, FS_LINK_SHARED, err)) < 0) return -1;
  }
  if (!(z->local_up = new_ids(s->count, err)) || !(z->local_down = new_ids(s->count, err)) ||
      !(z->green = new_ids(routers * B * 2, err)) || !(z->black = new_ids(routers * C * 2, err)) ||
      !(z->blue = new_ids((int64_t)G * G * 2, err)))
    return -1;
  for (int64_t r = 0; r < routers; r++)
    for (int32_t k = 0; k < Nn; k++) {
      int64_t h = r * Nn + k;
      snprintf(name, sizeof name, "local_link_from_router_%lld_to_node_%d_%d", (long long)r, k,
               n->dragonfly_links++);
      if (make_pair(n, name, s->bandwidth, s->latency, s->split, &z->local_up[h], &z->local_down[h],
                    err))
        return -1;
    }
  for (int64_t c = 0; c < (int64_t)G * C; c++) /* green: blades j < k of chassis c */
    for (int32_t j = 0; j < B; j++)
      for (int32_t k = j + 1; k < B; k++) {
        snprintf(name, sizeof name, "green_link_in_chassis_%lld_between_routers_%d_and_%d_%d",
                 (long long)(c % C), j, k, n->dragonfly_links++);
        int64_t at = ((c * B + j) * B + k) * 2;
        if (make_pair(n, name, s->bandwidth * p[5], s->latency, s->split, &z->green[at],
                      &z->green[at + 1], err))
          return -1;
      }
  for (int32_t g = 0; g < G; g++) /* black: chassis j < k, blade b of group g */
    for (int32_t j = 0; j < C; j++)
      for (int32_t k = j + 1; k < C; k++)
        for (int32_t b = 0; b < B; b++) {
          snprintf(name, sizeof name,
                   "black_link_in_group_%d_between_chassis_%d_and_%d_blade_%d_%d", g, j, k, b,
                   n->dragonfly_links++);
          int64_t at = ((((int64_t)g * C + j) * C + k) * B + b) * 2;
          if (at + 1 >= routers * C * 2) return fs_error_set(err, "dragonfly index");
          if (make_pair(n, name, s->bandwidth * p[3], s->latency, s->split, &z->black[at],
                        &z->black[at + 1], err))
            return -1;
        }
  for (int32_t i = 0; i < G; i++) /* blue: groups i < j */
    for (int32_t j = i + 1; j < G; j++) {
      int64_t ri = (int64_t)i * C * B + j, rj = (int64_t)j * C * B + i;
      snprintf(name, sizeof name, "blue_link_between_group_%d_and_%d_routers_%lld_and_%lld_%d", i,
               j, (long long)ri, (long long)rj, n->dragonfly_links++);
      int64_t at = ((int64_t)i * G + j) * 2;
      if (make_pair(n, name, s->bandwidth * p[1], s->latency, s->split, &z->blue[at],
                    &z->blue[at + 1], err))
        return -1;
    }
  return 0;
}

int32_t fs_network_add_cluster(fs_network *n, int32_t parent, const fs_cluster_spec *s,
                               fs_error *err) {
  if (s->count < 1) return fs_error_set(err, "cluster %s: no radicals", s->id);
  int32_t id = fs_network_add_zone(n, parent < 0 ? 0 : parent, s->id, s->topology, err);
  if (id < 0) return -1;
  zone *z = &n->zone[id];
  if (cluster_hosts(n, z, id, s, err)) return -1;
  z = &n->zone[id];
  switch (s->topology) {
    case FS_ZONE_FLAT: return build_flat(n, z, id, s, err) ? -1 : id;
    case FS_ZONE_TORUS: return build_torus(n, z, s, err) ? -1 : id;
    case FS_ZONE_FAT_TREE: return build_fat_tree(n, z, s, err) ? -1 : id;
    case FS_ZONE_DRAGONFLY: return build_dragonfly(n, z, s, err) ? -1 : id;
    default: return fs_error_set(err, "cluster %s: unknown topology", s->id);
  }
}

/* ---- clusters: routes ------------------------------------------------------ */

static void push_once(const fs_network *n, route_buffer *b, int32_t from, int32_t link,
                      double *latency, int with_latency) {
  if (link < 0 || contains(b, from, link)) return;
  push(b, link);
  if (with_latency) *latency += n->link_latency[link];
}

static int flat_route(const fs_network *n, const zone *z, int32_t s, int32_t d, route_buffer *b,
                      double *latency) {
  int32_t from = b->count;
  if (s == d && s >= 0 && z->loopback[s] >= 0) {
    push_latency(n, b, z->loopback[s], latency);
    return 0;
  }
  if (s >= 0) push_once(n, b, from, z->limiter[s], latency, 0);
  if (s >= 0) push_once(n, b, from, z->up[s], latency, 1);
  push_once(n, b, from, z->backbone, latency, 1);
  if (d >= 0) push_once(n, b, from, z->down[d], latency, 1);
  if (d >= 0) push_once(n, b, from, z->limiter[d], latency, 0);
  return 0;
}

static void torus_route(const fs_network *n, const zone *z, int32_t s, int32_t d, route_buffer *b,
                        double *latency) {
  if (s == d && z->loopback[s] >= 0) {
    push_latency(n, b, z->loopback[s], latency);
    return;
  }
  int32_t current = s;
  while (current != d) {
    int64_t product = 1, next = current;
    int32_t link = -1;
    for (int32_t j = 0; j < z->dims; j++) {
      int32_t size = z->dim[j], half = size / 2;
      int32_t a = (int32_t)((s / product) % size), t = (int32_t)((d / product) % size);
      int32_t c = (int32_t)((current / product) % size);
      if (c != t) {
        if ((t > a && t <= a + half) || (a > half && (a + half) % size >= t)) {
          next = c == size - 1 ? current + product - product * size : current + product;
          link = z->torus_up[(int64_t)current * z->dims + j];
        } else {
          next = c == 0 ? current - product + product * size : current - product;
          link = z->torus_down[next * z->dims + j];
        }
        break;
      }
      product *= size;
    }
    if (z->limiter[current] >= 0) push(b, z->limiter[current]);
    push_latency(n, b, link, latency);
    current = (int32_t)next;
  }
  if (z->limiter[d] >= 0) push(b, z->limiter[d]);
}

static int ft_in_subtree(const zone *z, int32_t root, int32_t node) {
  if (z->node[root].level <= z->node[node].level) return 0;
  for (int32_t j = z->node[root].level; j < z->levels; j++)
    if (ft_digit(z, root, j) != ft_digit(z, node, j)) return 0;
  return 1;
}

static void fat_tree_route(const fs_network *n, const zone *z, int32_t s, int32_t d,
                           route_buffer *b, double *latency) {
  if (s == d && z->loopback[s] >= 0) {
    push_latency(n, b, z->loopback[s], latency);
    return;
  }
  int32_t current = s; /* hosts are nodes 0..hosts-1 */
  while (!ft_in_subtree(z, current, d)) {
    const ft_node *c = &z->node[current];
    int64_t k = d;
    for (int32_t i = 0; i < c->level; i++) k /= z->ft_up[i];
    k %= (int64_t)z->ft_up[c->level] * z->ft_count[c->level];
    if (c->limiter >= 0) push(b, c->limiter);
    push_latency(n, b, z->slot_up[c->parents_at + k], latency);
    current = z->slot_node[c->parents_at + k];
  }
  while (current != d) {
    int32_t level = z->node[current].level;
    int64_t i = (int64_t)(s % z->ft_count[level - 1]) * z->ft_down[level - 1];
    for (; i < z->node[current].children; i++) {
      const ft_node *c = &z->node[current];
      if (i % z->ft_down[c->level - 1] != ft_digit(z, d, c->level - 1)) continue;
      push_latency(n, b, z->slot_down[c->children_at + i], latency);
      if (c->limiter >= 0) push(b, c->limiter);
      current = z->slot_node[c->children_at + i];
    }
  }
  if (z->node[d].limiter >= 0) push(b, z->node[d].limiter);
}

/* One hop of a dragonfly's green (blades j, k of chassis) or black (chassis
 * j, k at blade) links: UP from the lower index to the higher. */
static int32_t df_green(const zone *z, int64_t chassis, int32_t from, int32_t to) {
  int32_t j = from < to ? from : to, k = from < to ? to : from;
  int64_t at = ((chassis * z->routers + j) * z->routers + k) * 2;
  return z->green[at + (from < to ? 0 : 1)];
}
static int32_t df_black(const zone *z, int32_t group, int32_t from, int32_t to, int32_t blade) {
  int32_t j = from < to ? from : to, k = from < to ? to : from;
  int64_t at = ((((int64_t)group * z->chassis + j) * z->chassis + k) * z->routers + blade) * 2;
  return z->black[at + (from < to ? 0 : 1)];
}

/* Limiters (when the cluster has them): the host's before its local link,
 * the router's before each green or black hop leaving it, the router left
 * by a blue hop after it, the destination router's before the last link,
 * the destination host's at the end. */
static void dragonfly_route(const fs_network *n, const zone *z, int32_t s, int32_t d,
                            route_buffer *b, double *latency) {
  if (s == d && z->loopback[s] >= 0) {
    push_latency(n, b, z->loopback[s], latency);
    return;
  }
  int32_t Nn = z->per_router, B = z->routers, C = z->chassis;
  int32_t sb = (s / Nn) % B, sc = (s / (Nn * B)) % C, sg = s / (Nn * B * C);
  int32_t db = (d / Nn) % B, dc = (d / (Nn * B)) % C, dg = d / (Nn * B * C);
#define ROUTER(g, c, bl) (((int64_t)(g)*C + (c)) * B + (bl))
#define LIMIT(g, c, bl)                                                                 \
  do {                                                                                  \
    if (z->df_limiter[ROUTER(g, c, bl)] >= 0) push(b, z->df_limiter[ROUTER(g, c, bl)]); \
  } while (0)
  if (z->limiter[s] >= 0) push(b, z->limiter[s]);
  push_latency(n, b, z->local_up[s], latency);
  int32_t g = sg, c = sc, bl = sb;
  if (s / Nn != d / Nn) {
    if (sg != dg) {
      if (bl != dg) {
        LIMIT(g, c, bl);
        push_latency(n, b, df_green(z, (int64_t)g * C + c, bl, dg), latency), bl = dg;
      }
      if (c != 0) {
        LIMIT(g, c, bl);
        push_latency(n, b, df_black(z, g, c, 0, bl), latency), c = 0;
      }
      int32_t i = sg < dg ? sg : dg, j = sg < dg ? dg : sg;
      push_latency(n, b, z->blue[((int64_t)i * z->groups + j) * 2 + (sg < dg ? 0 : 1)], latency);
      LIMIT(g, c, bl);
      g = dg, c = 0, bl = sg;
    }
    if (bl != db) {
      LIMIT(g, c, bl);
      push_latency(n, b, df_green(z, (int64_t)g * C + c, bl, db), latency);
      g = dg, c = 0, bl = db; /* SimGrid's quirk: taken to be in chassis 0 */
    }
    if (c != dc) {
      LIMIT(g, c, bl);
      push_latency(n, b, df_black(z, g, c, dc, bl), latency);
    }
  }
  LIMIT(dg, dc, db);
  push_latency(n, b, z->local_down[d], latency);
  if (z->limiter[d] >= 0) push(b, z->limiter[d]);
#undef LIMIT
#undef ROUTER
}

/* A cluster's route between two of its points: hosts by position, or its
 * router (flat clusters: the gateway of routes between zones). */
static int fs_cluster_route(const fs_network *n, const zone *z, int32_t src, int32_t dst,
                            route_buffer *b, double *latency, fs_error *err) {
  int32_t s = n->point_kind[src] == POINT_HOST ? n->point_index[src] - z->first_host : -1;
  int32_t d = n->point_kind[dst] == POINT_HOST ? n->point_index[dst] - z->first_host : -1;
  if (z->kind == FS_ZONE_FLAT) return flat_route(n, z, s, d, b, latency);
  if (s < 0 || d < 0)
    return fs_error_set(err,
                        "a route through a %s cluster's router (only flat clusters have "
                        "one)",
                        z->kind == FS_ZONE_TORUS      ? "torus"
                        : z->kind == FS_ZONE_FAT_TREE ? "fat-tree"
                                                      : "dragonfly");
  if (z->kind == FS_ZONE_TORUS) torus_route(n, z, s, d, b, latency);
  if (z->kind == FS_ZONE_FAT_TREE) fat_tree_route(n, z, s, d, b, latency);
  if (z->kind == FS_ZONE_DRAGONFLY) dragonfly_route(n, z, s, d, b, latency);
  return 0;
}

/* ---- routing ------------------------------------------------------------- */

static int no_route(const fs_network *n, int32_t src, int32_t dst, fs_error *err) {
  return fs_error_set(err, "no route from %s to %s", n->names + n->point_name[src],
                      n->names + n->point_name[dst]);
}

static int global_route(const fs_network *n, int32_t src, int32_t dst, route_buffer *b,
                        double *latency, int depth, fs_error *err);

/* The zone's own route between two of its points: links to b, latency
 * added in link order, gateways for zone points. */
static int local_route(const fs_network *n, int32_t zone_id, int32_t src, int32_t dst,
                       route_buffer *b, double *latency, int32_t *gw_src, int32_t *gw_dst,
                       int depth, fs_error *err) {
  const zone *z = &n->zone[zone_id];
  *gw_src = src, *gw_dst = dst;
  if (z->kind > FS_ZONE_DIJKSTRA) return fs_cluster_route(n, z, src, dst, b, latency, err);
  int32_t r = find_graph_route(z, n->point_vertex[src], n->point_vertex[dst]);
  if (r < 0) {
    if (src == dst && !z->subzones) {
      push_latency(n, b, FS_NETWORK_LOOPBACK, latency);
      return 0;
    }
    return no_route(n, src, dst, err);
  }
  const graph_route *route = &z->routes[r];
  for (int32_t i = 0; i < route->count; i++)
    if (isnan(route->latency))
      push_latency(n, b, z->route_links[route->first + i], latency);
    else
      push(b, z->route_links[route->first + i]);
  if (!isnan(route->latency)) *latency += route->latency;
  *gw_src = route->gw_src, *gw_dst = route->gw_dst;
  (void)depth;
  return 0;
}

/* The zone a point is declared in, and the ancestor of zone `from` whose
 * parent is `top` (or -1 when from == top). */
static int32_t child_below(const fs_network *n, int32_t from, int32_t top) {
  if (from == top) return -1;
  while (n->zone[from].parent != top) from = n->zone[from].parent;
  return from;
}

static int global_route(const fs_network *n, int32_t src, int32_t dst, route_buffer *b,
                        double *latency, int depth, fs_error *err) {
  if (depth > 64) return fs_error_set(err, "routes nest more than 64 zones deep");
  int32_t za = n->point_zone[src], zb = n->point_zone[dst];
  int32_t a = za, c = zb;
  while (n->zone[a].depth > n->zone[c].depth) a = n->zone[a].parent;
  while (n->zone[c].depth > n->zone[a].depth) c = n->zone[c].parent;
  while (a != c) a = n->zone[a].parent, c = n->zone[c].parent;
  int32_t top = a, ca = child_below(n, za, top), cb = child_below(n, zb, top);
  int32_t sv = ca >= 0 ? n->zone[ca].point : src, dv = cb >= 0 ? n->zone[cb].point : dst;
  int32_t gs, gd;
  if (ca < 0 && cb < 0) return local_route(n, top, src, dst, b, latency, &gs, &gd, depth, err);
  int32_t middle[FS_NETWORK_MAX_ROUTE];
  route_buffer m = {middle, FS_NETWORK_MAX_ROUTE, 0};
  if (local_route(n, top, sv, dv, &m, latency, &gs, &gd, depth, err)) return -1;
  if (m.count > m.cap) return fs_error_set(err, "a route of more than %d links", m.cap);
  if ((ca >= 0 && n->point_kind[gs] == POINT_ZONE) || (cb >= 0 && n->point_kind[gd] == POINT_ZONE))
    return fs_error_set(err, "route from %s to %s: expected gw_src and gw_dst on the zoneRoute",
                        n->names + n->point_name[sv], n->names + n->point_name[dv]);
  if (src != gs && global_route(n, src, gs, b, latency, depth + 1, err)) return -1;
  for (int32_t i = 0; i < m.count; i++) push(b, middle[i]);
  if (gd != dst && global_route(n, gd, dst, b, latency, depth + 1, err)) return -1;
  return 0;
}

int fs_network_route(const fs_network *n, int32_t src, int32_t dst, int32_t *links, int32_t cap,
                     int32_t *count, double *latency, fs_error *err) {
  route_buffer b = {links, cap, 0};
  double sum = 0;
  if (global_route(n, n->host_point[src], n->host_point[dst], &b, &sum, 0, err)) return -1;
  if (b.count == 0 && sum == 0) return no_route(n, n->host_point[src], n->host_point[dst], err);
  *count = b.count;
  *latency = sum;
  return 0;
}

/* ---- access and mapping -------------------------------------------------- */

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
void fs_network_set_loopback(fs_network *n, double bandwidth, double latency) {
  n->link_bandwidth[FS_NETWORK_LOOPBACK] = bandwidth;
  n->link_latency[FS_NETWORK_LOOPBACK] = latency;
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
  int64_t bytes = (int64_t)sizeof *n + (int64_t)n->host_cap * 24 + (int64_t)n->link_cap * 29 +
                  (int64_t)n->point_cap * 21 + n->names_cap +
                  ((int64_t)n->host_names.mask + n->link_names.mask + n->point_names.mask + 3) * 4;
  for (int32_t i = 0; i < n->zones; i++) {
    const zone *z = &n->zone[i];
    bytes += (int64_t)sizeof *z + (int64_t)z->vertex_cap * 4 +
             (int64_t)z->route_cap * (int64_t)sizeof(graph_route) + z->route_links_cap * 4 +
             (z->table ? (int64_t)z->table_vertices * z->table_vertices * 4 : 0) +
             (int64_t)z->hosts * 4 * (4 + 2 * z->dims) +
             (int64_t)z->nodes * (int64_t)sizeof(ft_node);
  }
  return bytes;
}
