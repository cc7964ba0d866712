/* request_map.h: the open requests of the rank a trace reader is reading,
 * by the address of their MPI_Request variable (liballprof records that
 * address, not the handle): address -> request id, open addressing with
 * linear probing, so a lookup costs no allocation. */
#ifndef FS_REQUEST_MAP_H
#define FS_REQUEST_MAP_H

#include <stdint.h>

typedef struct fs_request_map {
  uint64_t *address;
  int32_t *id;            /* -1: empty slot */
  int64_t capacity, used; /* capacity: 0 or a power of two */
} fs_request_map;

/* The id open at address, -1 when none. */
int32_t fs_request_map_find(const fs_request_map *m, uint64_t address);
/* Opens (or reopens) address as id; -1 when out of memory. */
int fs_request_map_open(fs_request_map *m, uint64_t address, int32_t id);
/* Closes address (nothing when it is not open). */
void fs_request_map_close(fs_request_map *m, uint64_t address);
/* Closes all, keeping the memory for the next rank. */
void fs_request_map_clear(fs_request_map *m);
void fs_request_map_free(fs_request_map *m);

#endif
