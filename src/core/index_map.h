/* index_map.h: a fixed-size open-addressing map from non-negative int32
 * keys (ranks, node ids) to dense indices 0, 1, ... in the order keys were
 * added: per-key state of the keys a run uses, however large the key
 * range. Memory: 8 bytes per slot, 2 to 4 slots per key. */
#ifndef FS_INDEX_MAP_H
#define FS_INDEX_MAP_H

#include <stdint.h>

#include "core/error.h"

typedef struct fs_index_map {
  int32_t *keys; /* -1: empty */
  int32_t *values;
  uint32_t mask; /* slots - 1 (a power of two) */
  int32_t count; /* keys added */
} fs_index_map;

/* Room for up to `keys` keys; 0, or -1 with err set (fs_allocate's
 * messages, naming `what`). */
int fs_index_map_init(fs_index_map *m, int64_t keys, const char *what, fs_error *err);
void fs_index_map_free(fs_index_map *m);
/* The key's index, adding it (as the next index) when new. At most the
 * `keys` given to init may be added. */
int32_t fs_index_map_add(fs_index_map *m, int32_t key);
int64_t fs_index_map_bytes(const fs_index_map *m);

static inline uint32_t fs_index_map_hash(const fs_index_map *m, int32_t key) {
  return (uint32_t)(((uint64_t)(uint32_t)key * 0x9e3779b97f4a7c15ull) >> 32) & m->mask;
}

/* The key's index, or -1 when it was never added. */
static inline int32_t fs_index_map_find(const fs_index_map *m, int32_t key) {
  for (uint32_t i = fs_index_map_hash(m, key);; i = (i + 1) & m->mask) {
    if (m->keys[i] == key) return m->values[i];
    if (m->keys[i] < 0) return -1;
  }
}

#endif
