/* simgrid_platform.h: reads a SimGrid platform file (XML, version 4.0 or
 * 4.1) into a routed network (network.h), routing as SimGrid 3.32 does.
 *
 * Read: <platform version>; <zone id routing="Full|Floyd|Dijkstra|
 * DijkstraCache"> nested to any depth; <host id speed core>; <link id
 * bandwidth latency sharing_policy="SHARED|FATPIPE|SPLITDUPLEX"> (and
 * FULLDUPLEX, SimGrid's old name of SPLITDUPLEX); <router id>; <route src
 * dst symmetrical> and <zoneRoute src dst gw_src gw_dst symmetrical> with
 * <link_ctn id direction="UP|DOWN|NONE">; <cluster> with topology FLAT,
 * TORUS, FAT_TREE or DRAGONFLY and its attributes. <prop> is skipped
 * anywhere (it holds user properties, no cost). Everything else is refused
 * with FILE:LINE and what was expected, including <config> (set model
 * parameters with --param instead), trace and profile files, and bypass
 * routes.
 *
 * Units (SimGrid's, case-sensitive; the number is read as a double and
 * multiplied by the unit's factor): bandwidths Bps or bps (x 0.125) with
 * prefixes k M G T P E Z Y (x 1000 each) or Ki Mi Gi Ti Pi Ei Zi Yi (x 1024
 * each); times w d h m (minutes) s ms us ns ps; speeds f with prefixes k M G
 * T P E Z Y, or flops, kiloflops ... yottaflops (zetaflops). A bare number
 * takes the base unit (B/s, s, flop/s).
 *
 * The standard `<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">`
 * line is accepted and its DTD never read or fetched; a DOCTYPE with an
 * internal subset is refused. Limits: FS_SIMGRID_MAX_BYTES of XML,
 * FS_SIMGRID_MAX_ELEMENTS elements, network.h's limits on hosts, links and
 * route length, FS_NETWORK_MAX_GRAPH_VERTICES points per Floyd or Dijkstra
 * zone, clusters of up to 2^24 hosts. */
#ifndef FS_SIMGRID_PLATFORM_H
#define FS_SIMGRID_PLATFORM_H

#include <stddef.h>

#include "core/error.h"
#include "platform/network.h"

#define FS_SIMGRID_MAX_BYTES ((size_t)64 << 20)
#define FS_SIMGRID_MAX_ELEMENTS 1000000

/* The network, or NULL with err set ("FILE:LINE: expected ..."). */
fs_network *fs_simgrid_platform_read(const char *path, fs_error *err);
/* The same from data[0..length); name stands for the file in messages. */
fs_network *fs_simgrid_platform_read_memory(const char *data, size_t length, const char *name,
                                            fs_error *err);
/* Whether data looks like a SimGrid platform rather than fennelsim's own
 * platform format: its <platform> root has a version attribute. */
int fs_simgrid_platform_sniff(const char *data, size_t length);
/* Whether the file at path does (0 when it cannot be read). */
int fs_simgrid_platform_file(const char *path);

#endif
