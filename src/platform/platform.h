/* platform.h: the machine a schedule runs on: M nodes of Q cores, an
 * optional tree of levels above the nodes, channels named by level, and the
 * rank -> node mapping.
 *
 * Levels follow the SMP-clusters thesis's kappa-NUMA tree (docs/FORMATS.md,
 * "Platform files"): level 0 is inside a node (shared memory), level 1
 * joins nodes. Listed levels are numbered 1, 2, ... bottom-up; a level-l
 * group holds fanout(1) * ... * fanout(l) consecutive nodes (nodes 0..M-1),
 * and M must be a multiple of that, so every group is complete. Two ranks
 * are at level 0 on the same node, else at the lowest listed level whose
 * group holds both nodes, else at top_level: the machine as a whole. With
 * no listed level, every pair of nodes is at level 1 (the tau-Lop thesis's
 * flat network).
 *
 * Channels are kept as names and levels only (a model gives them meaning):
 * at most one channel per level, level in [0, top_level]. Without any,
 * fs_platform_default_channels adds "shm" at 0 and "net" at 1.
 *
 * Mappings (the tau-Lop thesis): sequential puts rank i on node
 * i div Q, round-robin on node i mod M, explicit takes a list. Every node
 * holds at most Q ranks: oversubscription is rejected, since a core is the
 * unit the contention models count and nothing shares one core between
 * ranks. Fewer ranks than M * Q is fine.
 *
 * Memory: the struct (fixed arrays for levels and channels), plus one
 * int32 per rank for an explicit mapping (the file lists them); sequential
 * and round-robin mappings are computed, so a platform far larger than its
 * ranks costs nothing per node or per rank. Limits: nodes and cores up to
 * 2^31-1, ranks up to 2^31-1 and at most nodes x cores. */
#ifndef FS_PLATFORM_H
#define FS_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define FS_PLATFORM_MAX_LEVELS 16 /* listed levels above the nodes */
#define FS_PLATFORM_MAX_CHANNELS 16
#define FS_PLATFORM_NAME_MAX 63 /* bytes; names are [A-Za-z][A-Za-z0-9_.-]* */

typedef enum fs_mapping {
  FS_MAPPING_NONE = 0, /* not mapped yet */
  FS_MAPPING_SEQUENTIAL,
  FS_MAPPING_ROUND_ROBIN,
  FS_MAPPING_EXPLICIT
} fs_mapping;

typedef struct fs_platform_level {
  char name[FS_PLATFORM_NAME_MAX + 1];
  int32_t fanout;      /* groups of the level below per group */
  int32_t group_nodes; /* nodes per group of this level */
} fs_platform_level;

typedef struct fs_platform_channel {
  char name[FS_PLATFORM_NAME_MAX + 1];
  int32_t level;
} fs_platform_channel;

typedef struct fs_platform {
  int32_t nodes;  /* M */
  int32_t cores;  /* Q, per node */
  int32_t levels; /* listed levels; level[i] is tree level i + 1 */
  fs_platform_level level[FS_PLATFORM_MAX_LEVELS];
  int32_t top_level; /* the level between the farthest two nodes; >= 1 */
  int32_t channels;
  fs_platform_channel channel[FS_PLATFORM_MAX_CHANNELS];
  fs_mapping mapping;
  int32_t ranks;      /* P, once mapped */
  int32_t used_nodes; /* once mapped: 1 + the highest node a rank is on */
  int32_t *node;      /* node of each rank of an explicit mapping; else NULL */
} fs_platform;

/* A platform with nodes >= 1 and cores >= 1 and no levels, channels or
 * mapping; NULL with err set on bad counts or when out of memory. */
fs_platform *fs_platform_new(int64_t nodes, int64_t cores, fs_error *err);
void fs_platform_free(fs_platform *p);

/* Adds the next level up (fanout >= 2, a unique name); the group must
 * divide the nodes. Only before channels are added. 0 or -1 with err. */
int fs_platform_add_level(fs_platform *p, const char *name, size_t length, int64_t fanout,
                          fs_error *err);
/* Adds a channel (unique name, unique level in [0, top_level]). */
int fs_platform_add_channel(fs_platform *p, const char *name, size_t length, int64_t level,
                            fs_error *err);
/* "shm" at level 0 and "net" at level 1, when no channel was added. */
int fs_platform_default_channels(fs_platform *p, fs_error *err);
/* Index of the channel at level, or -1. */
int fs_platform_channel_at(const fs_platform *p, int32_t level);

/* Each mapping replaces the previous one; 0, or -1 with err set (the old
 * mapping is then kept). ranks >= 1. */
int fs_platform_map_sequential(fs_platform *p, int64_t ranks, fs_error *err);
int fs_platform_map_round_robin(fs_platform *p, int64_t ranks, fs_error *err);
/* nodes[0..ranks) is copied; each in [0, M), at most Q ranks per node. */
int fs_platform_map_explicit(fs_platform *p, int64_t ranks, const int32_t *nodes, fs_error *err);

/* Rank in [0, ranks) of a mapped platform. */
static inline int32_t fs_platform_node_of(const fs_platform *p, int32_t rank) {
  if (p->mapping == FS_MAPPING_SEQUENTIAL) return rank / p->cores;
  if (p->mapping == FS_MAPPING_ROUND_ROBIN) return rank % p->nodes;
  return p->node[rank];
}
/* Level between two nodes, or two ranks: 0 same node, 1..levels the lowest
 * listed level whose group holds both, else top_level. */
int32_t fs_platform_level_between_nodes(const fs_platform *p, int32_t node_a, int32_t node_b);
static inline int32_t fs_platform_level_between(const fs_platform *p, int32_t rank_a,
                                                int32_t rank_b) {
  return fs_platform_level_between_nodes(p, fs_platform_node_of(p, rank_a),
                                         fs_platform_node_of(p, rank_b));
}

/* "seq"/"sequential", "rr"/"round-robin", "explicit"; FS_MAPPING_NONE if
 * none of them. */
fs_mapping fs_mapping_from_name(const char *text, size_t length);
const char *fs_mapping_name(fs_mapping mapping); /* "sequential", ... */

/* The command line's --nodes M --cores Q --mapping seq|rr for ranks ranks:
 * default channels, no levels. NULL with err set ("--mapping: expected
 * ..."). mapping NULL means seq. */
fs_platform *fs_platform_from_options(int64_t nodes, int64_t cores, const char *mapping,
                                      int64_t ranks, fs_error *err);

#endif
