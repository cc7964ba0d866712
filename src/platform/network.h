/* network.h: a routed network, as SimGrid describes one: hosts, links and
 * the route between any two hosts.
 *
 * A link has a raw bandwidth (bytes/s), a latency (s) and a sharing policy:
 * SHARED (its flows share the bandwidth) or FATPIPE (each flow gets up to
 * the bandwidth, no sharing). A SimGrid SPLITDUPLEX link is two SHARED
 * links here, NAME_UP and NAME_DOWN, each with the full bandwidth. Link ids
 * are 0..links-1; link 0 is always the model's loopback, "__loopback__"
 * (FATPIPE, 1e10 B/s, 0 s), the route from a host to itself in a zone that
 * declares none.
 *
 * A route is an ordered list of link ids (a link may appear twice) and its
 * latency: the sum of the links' latencies in SimGrid's order (the zone's
 * own part first, then the source side, then the destination side), which
 * can differ in the last bit from the sum in list order.
 *
 * Hosts are numbered 0..hosts-1 in document order (a cluster's hosts in
 * radical order). The network is read-only once built: routes are computed
 * on demand into the caller's buffer, so one network serves every thread.
 *
 * Building: fs_network_new, hosts and links with fs_network_add_host and
 * fs_network_add_link, then routes. The builder below makes a network whose
 * routes are all declared (SimGrid's routing="Full" with one zone);
 * platform/simgrid_platform.h reads SimGrid platform files with zones,
 * clusters and computed routing. Limits: FS_NETWORK_MAX_HOSTS hosts,
 * FS_NETWORK_MAX_LINKS links, FS_NETWORK_MAX_ROUTE links in one route. */
#ifndef FS_NETWORK_H
#define FS_NETWORK_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "platform/platform.h"

#define FS_NETWORK_MAX_HOSTS ((int32_t)1 << 24)
#define FS_NETWORK_MAX_LINKS ((int32_t)1 << 28)
#define FS_NETWORK_MAX_ROUTE 1024
#define FS_NETWORK_LOOPBACK 0 /* link id of the model's loopback */

typedef enum fs_link_policy { FS_LINK_SHARED = 0, FS_LINK_FATPIPE = 1 } fs_link_policy;

typedef struct fs_network fs_network;

/* An empty network holding only the loopback link; NULL with err set when
 * out of memory. */
fs_network *fs_network_new(fs_error *err);
void fs_network_free(fs_network *n);

/* A host (name unique, speed in flop/s > 0, cores >= 1): its id, or -1
 * with err set. */
int32_t fs_network_add_host(fs_network *n, const char *name, double speed, int32_t cores,
                            fs_error *err);
/* A link (name unique, bandwidth > 0 B/s, latency >= 0 s): its id, or -1. */
int32_t fs_network_add_link(fs_network *n, const char *name, double bandwidth, double latency,
                            fs_link_policy policy, fs_error *err);
/* Declares the route src -> dst (host ids) of a network built here
 * (routing Full): links[0..count) in order; symmetrical also declares
 * dst -> src with the list reversed (a builder has no split links to
 * swap). A pair without a declared route has none (fs_network_route fails),
 * except a host to itself, which takes the loopback. 0, or -1 with err. */
int fs_network_add_route(fs_network *n, int32_t src, int32_t dst, const int32_t *links,
                         int32_t count, int symmetrical, fs_error *err);

int32_t fs_network_hosts(const fs_network *n);
const char *fs_network_host_name(const fs_network *n, int32_t host);
double fs_network_host_speed(const fs_network *n, int32_t host);
int32_t fs_network_host_cores(const fs_network *n, int32_t host);
/* Host id of name, or -1. */
int32_t fs_network_host_by_name(const fs_network *n, const char *name);

int32_t fs_network_links(const fs_network *n);
const char *fs_network_link_name(const fs_network *n, int32_t link);
double fs_network_link_bandwidth(const fs_network *n, int32_t link);
double fs_network_link_latency(const fs_network *n, int32_t link);
fs_link_policy fs_network_link_policy(const fs_network *n, int32_t link);

/* The route from host src to host dst: writes min(count, cap) link ids to
 * links, the route's length to *count and its latency (s) to *latency.
 * Returns 0 (check *count <= cap), or -1 with err set when the network has
 * no route between them ("no route from HOST to HOST"). */
int fs_network_route(const fs_network *n, int32_t src, int32_t dst, int32_t *links, int32_t cap,
                     int32_t *count, double *latency, fs_error *err);

/* Puts `ranks` ranks on the hosts: host_of_rank[r] for r in [0, ranks).
 * Sequential fills each host's cores in host order (rank r on host r when
 * every host has one core); round-robin deals one rank to each host in
 * turn, skipping hosts whose cores are full. More ranks than cores in all
 * is an error naming both counts. 0, or -1 with err set. */
int fs_network_map(const fs_network *n, fs_mapping mapping, int32_t ranks, int32_t *host_of_rank,
                   fs_error *err);

/* The bytes the network holds (for memory limits and reports). */
int64_t fs_network_bytes(const fs_network *n);

#endif
