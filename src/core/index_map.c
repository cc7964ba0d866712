/* index_map.c: see index_map.h. Linear probing in a table at most half
 * full, so a lookup ends after a few probes. */
#include "core/index_map.h"

#include <stdlib.h>
#include <string.h>

int fs_index_map_init(fs_index_map *m, int64_t keys, const char *what, fs_error *err) {
  memset(m, 0, sizeof *m);
  int64_t slots = 2;
  while (slots < 2 * keys) slots *= 2; /* keys <= 2^31: slots <= 2^33 */
  if (slots > ((int64_t)1 << 32))
    return fs_error_too_large(err, what, slots * 8, fs_memory_limit());
  m->keys = fs_allocate(slots, sizeof *m->keys, what, err);
  m->values = m->keys ? fs_allocate(slots, sizeof *m->values, what, err) : NULL;
  if (!m->values) {
    fs_index_map_free(m);
    return -1;
  }
  memset(m->keys, 0xff, (size_t)slots * sizeof *m->keys);
  m->mask = (uint32_t)(slots - 1);
  return 0;
}

void fs_index_map_free(fs_index_map *m) {
  free(m->keys);
  free(m->values);
  m->keys = m->values = NULL;
  m->mask = 0;
  m->count = 0;
}

int32_t fs_index_map_add(fs_index_map *m, int32_t key) {
  uint32_t i = fs_index_map_hash(m, key);
  while (m->keys[i] >= 0) {
    if (m->keys[i] == key) return m->values[i];
    i = (i + 1) & m->mask;
  }
  m->keys[i] = key;
  m->values[i] = m->count;
  return m->count++;
}

int64_t fs_index_map_bytes(const fs_index_map *m) {
  return m->keys ? ((int64_t)m->mask + 1) * 8 : 0;
}
