/* name_index.h: private to the readers and writers of formats/: a hash
 * table from a string to an int32 id, by open addressing with linear
 * probing. The strings themselves live elsewhere (the program's name pool or
 * label table) and are fetched through a callback, so a slot is 8 bytes and
 * nothing is allocated per entry. Header-only: the functions are small and
 * used in a few places. */
#ifndef FS_NAME_INDEX_H
#define FS_NAME_INDEX_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fs_name_slot {
  uint32_t hash;
  int32_t id; /* -1: empty */
} fs_name_slot;

typedef struct fs_name_index {
  fs_name_slot *slots;
  uint64_t mask; /* capacity - 1; capacity is a power of two */
  uint64_t count;
} fs_name_index;

/* The NUL-terminated string of id, as stored by the owner. */
typedef const char *(*fs_name_of)(const void *owner, int32_t id);

static inline uint64_t fs_name_mix(uint64_t h) {
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9u;
  return h ^ (h >> 29);
}

/* Eight bytes at a time: names are short and this runs once per line. */
static inline uint32_t fs_name_hash(const char *text, size_t length) {
  uint64_t h = 0x9e3779b97f4a7c15u ^ length, word;
  for (; length >= 8; text += 8, length -= 8) {
    memcpy(&word, text, 8);
    h = fs_name_mix((h ^ word) * 0x94d049bb133111ebu);
  }
  /* the tail by shifts: a byte-wise copy into a word read back at once
   * stalls store-to-load forwarding */
  word = 0;
  for (size_t i = 0; i < length; i++) word |= (uint64_t)(unsigned char)text[i] << (8 * i);
  h = fs_name_mix((h ^ word) * 0x94d049bb133111ebu);
  return (uint32_t)(h ^ (h >> 32));
}

static inline void fs_name_index_free(fs_name_index *index) {
  free(index->slots);
  index->slots = NULL;
  index->mask = index->count = 0;
}

/* Rebuilds with `capacity` slots from the stored hashes alone. */
static inline int fs_name_index_resize(fs_name_index *index, uint64_t capacity) {
  fs_name_slot *slots = malloc(capacity * sizeof *slots);
  if (!slots) return -1;
  for (uint64_t i = 0; i < capacity; i++) slots[i].id = -1;
  for (uint64_t i = 0; index->slots && i <= index->mask; i++) {
    if (index->slots[i].id < 0) continue;
    uint64_t at = index->slots[i].hash & (capacity - 1);
    while (slots[at].id >= 0) at = (at + 1) & (capacity - 1);
    slots[at] = index->slots[i];
  }
  free(index->slots);
  index->slots = slots;
  index->mask = capacity - 1;
  return 0;
}

/* Empties the index for reuse: a small table is kept (clearing it is
 * cheaper than allocating again), a large one freed so that one big batch
 * of names does not make every later clear slow. */
static inline void fs_name_index_clear(fs_name_index *index, uint64_t keep_capacity) {
  if (!index->slots || index->mask + 1 > keep_capacity) {
    fs_name_index_free(index);
    return;
  }
  for (uint64_t i = 0; i <= index->mask; i++) index->slots[i].id = -1;
  index->count = 0;
}

/* Starts loading the slot of hash into the cache, to be probed later. */
static inline void fs_name_index_prefetch(const fs_name_index *index, uint32_t hash) {
#if defined(__GNUC__)
  if (index->slots) __builtin_prefetch(&index->slots[hash & index->mask]);
#else
  (void)index, (void)hash;
#endif
}

/* The id whose string is text[0..length), or -1. */
static inline int32_t fs_name_index_find(const fs_name_index *index, uint32_t hash,
                                         const char *text, size_t length, fs_name_of name_of,
                                         const void *owner) {
  if (!index->slots) return -1;
  for (uint64_t at = hash & index->mask;; at = (at + 1) & index->mask) {
    const fs_name_slot *slot = &index->slots[at];
    if (slot->id < 0) return -1;
    if (slot->hash != hash) continue;
    const char *name = name_of(owner, slot->id);
    /* strncmp stops at the stored string's end; text holds no NUL */
    if (strncmp(name, text, length) == 0 && name[length] == 0) return slot->id;
  }
}

/* Adds id (whose string must not be in the index yet); keeps the load under
 * 0.7 so that probes stay short. */
static inline int fs_name_index_add(fs_name_index *index, uint32_t hash, int32_t id) {
  uint64_t capacity = index->slots ? index->mask + 1 : 0;
  if ((index->count + 1) * 10 > capacity * 7 &&
      fs_name_index_resize(index, capacity ? capacity * 2 : 1024))
    return -1;
  uint64_t at = hash & index->mask;
  while (index->slots[at].id >= 0) at = (at + 1) & index->mask;
  index->slots[at].hash = hash;
  index->slots[at].id = id;
  index->count++;
  return 0;
}

#endif
