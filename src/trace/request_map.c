/* request_map.c: see request_map.h. Closing shifts the later entries of a
 * probe run back instead of leaving tombstones, so lookups stay short
 * however many requests a rank opens and closes. */
#include "trace/request_map.h"

#include <stdlib.h>

static uint64_t hash_address(uint64_t address) {
  address ^= address >> 33;
  address *= UINT64_C(0xff51afd7ed558ccd);
  return address ^ (address >> 33);
}

static int64_t slot_of(const fs_request_map *m, uint64_t address) {
  int64_t mask = m->capacity - 1, i = (int64_t)(hash_address(address) & (uint64_t)mask);
  while (m->id[i] >= 0 && m->address[i] != address) i = (i + 1) & mask;
  return i;
}

int32_t fs_request_map_find(const fs_request_map *m, uint64_t address) {
  return m->capacity ? m->id[slot_of(m, address)] : -1;
}

static int grow(fs_request_map *m) {
  int64_t capacity = m->capacity ? m->capacity * 2 : 64;
  fs_request_map bigger = {malloc((size_t)capacity * sizeof(uint64_t)),
                           malloc((size_t)capacity * sizeof(int32_t)), capacity, m->used};
  if (!bigger.address || !bigger.id) {
    free(bigger.address);
    free(bigger.id);
    return -1;
  }
  for (int64_t i = 0; i < capacity; i++) bigger.id[i] = -1;
  for (int64_t i = 0; i < m->capacity; i++)
    if (m->id[i] >= 0) {
      int64_t slot = slot_of(&bigger, m->address[i]);
      bigger.address[slot] = m->address[i];
      bigger.id[slot] = m->id[i];
    }
  free(m->address);
  free(m->id);
  *m = bigger;
  return 0;
}

int fs_request_map_open(fs_request_map *m, uint64_t address, int32_t id) {
  if ((m->used + 1) * 2 > m->capacity && grow(m)) return -1;
  int64_t slot = slot_of(m, address);
  if (m->id[slot] < 0) m->used++;
  m->address[slot] = address;
  m->id[slot] = id;
  return 0;
}

/* Removes an address, shifting later entries of its probe run back. */
void fs_request_map_close(fs_request_map *m, uint64_t address) {
  if (!m->capacity) return;
  int64_t mask = m->capacity - 1, hole = slot_of(m, address);
  if (m->id[hole] < 0) return;
  m->id[hole] = -1;
  m->used--;
  for (int64_t i = (hole + 1) & mask; m->id[i] >= 0; i = (i + 1) & mask) {
    int64_t home = (int64_t)(hash_address(m->address[i]) & (uint64_t)mask);
    /* the entry may move to the hole when its home is not in (hole, i] */
    if ((i > hole && (home <= hole || home > i)) || (i < hole && home <= hole && home > i)) {
      m->address[hole] = m->address[i];
      m->id[hole] = m->id[i];
      m->id[i] = -1;
      hole = i;
    }
  }
}

void fs_request_map_clear(fs_request_map *m) {
  m->used = 0;
  for (int64_t i = 0; i < m->capacity; i++) m->id[i] = -1;
}

void fs_request_map_free(fs_request_map *m) {
  free(m->address);
  free(m->id);
  *m = (fs_request_map){0};
}
