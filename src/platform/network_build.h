/* network_build.h: building a network the way a SimGrid platform file
 * describes it (for platform readers; network.h has the rest): zones
 * nested in zones, routers, routes between points (hosts, routers, zones)
 * with gateways, and clusters whose routes are computed. A reader adds
 * everything, then seals the network once (fs_network_seal) before any
 * route is asked. */
#ifndef FS_NETWORK_BUILD_H
#define FS_NETWORK_BUILD_H

#include <stdint.h>

#include "core/error.h"
#include "platform/network.h"

#define FS_CLUSTER_MAX_DIMS 16
#define FS_CLUSTER_MAX_LINKS ((int32_t)1 << 24) /* between switches of one fat tree */
#define FS_NETWORK_MAX_GRAPH_VERTICES 1024      /* points of one Floyd or Dijkstra zone */

/* Graph zones first: kinds up to FS_ZONE_DIJKSTRA keep declared routes. */
typedef enum fs_zone_kind {
  FS_ZONE_FULL = 0,
  FS_ZONE_FLOYD,
  FS_ZONE_DIJKSTRA,
  FS_ZONE_FLAT, /* a cluster's topologies from here on */
  FS_ZONE_TORUS,
  FS_ZONE_FAT_TREE,
  FS_ZONE_DRAGONFLY
} fs_zone_kind;

/* A zone inside parent (-1: none, only for the root, which fs_network_new
 * makes: id 0, Full) named name: its id, or -1 with err set. */
int32_t fs_network_add_zone(fs_network *n, int32_t parent, const char *name, fs_zone_kind kind,
                            fs_error *err);
/* A router (a point without a host) in a graph zone: its point, or -1. */
int32_t fs_network_add_router(fs_network *n, int32_t in_zone, const char *name, fs_error *err);
/* A host in a zone: its host id, or -1. */
int32_t fs_network_add_host_in(fs_network *n, int32_t in_zone, const char *name, double speed,
                               int32_t cores, fs_error *err);
/* The point (host, router or zone) named name, or -1; a link's id, or -1. */
int32_t fs_network_point_by_name(const fs_network *n, const char *name);
int32_t fs_network_link_by_name(const fs_network *n, const char *name);
/* The route src -> dst between two points declared in graph zone in_zone:
 * links in order, gateways (points; -1: the ends themselves) for routes
 * between zones. One direction; a reader declares the reverse itself. */
int fs_network_add_zone_route(fs_network *n, int32_t in_zone, int32_t src, int32_t dst,
                              int32_t gw_src, int32_t gw_dst, const int32_t *links, int32_t count,
                              fs_error *err);

/* SimGrid's <cluster>: hosts prefix R suffix for each radical R in order. */
typedef struct fs_cluster_spec {
  const char *id, *prefix, *suffix, *router_id; /* router_id NULL: prefix id "_router" suffix */
  const int64_t *radicals;
  int32_t count;
  double speed;
  int32_t cores;
  double bandwidth, latency;
  int split; /* sharing_policy SPLITDUPLEX: links NAME_UP and NAME_DOWN */
  double backbone_bandwidth, backbone_latency;
  int backbone_fatpipe;
  double limiter;                              /* limiter_link bandwidth; 0: none */
  double loopback_bandwidth, loopback_latency; /* a loopback when either is > 0 */
  fs_zone_kind topology;                       /* FLAT, TORUS, FAT_TREE or DRAGONFLY */
  int32_t params[3 * FS_CLUSTER_MAX_DIMS + 1]; /* topo_parameters, read: */
  /* TORUS: params[0] dimensions d_0..; FAT_TREE: params[0] = levels L, then
   * down_0..down_{L-1}, up_0.., count_0..; DRAGONFLY: G, nb, C, nk, B, ng, Nn */
  int32_t param_count;
} fs_cluster_spec;

/* The cluster as a zone inside parent (a graph zone, or -1 for the whole
 * platform): its zone id, or -1 with err set. */
int32_t fs_network_add_cluster(fs_network *n, int32_t parent, const fs_cluster_spec *spec,
                               fs_error *err);

/* Makes the route tables of Floyd and Dijkstra zones; 0 or -1 with err. */
int fs_network_seal(fs_network *n, fs_error *err);

/* The model's loopback (link 0): SimGrid's network/loopback-bw and -lat. */
void fs_network_set_loopback(fs_network *n, double bandwidth, double latency);

#endif
