/* study_meta.h: the configuration of a Monte-Carlo study, kept beside its
 * samples CSV in the sidecar FILE.csv.meta, so that `fennelsim merge` can
 * refuse the shards of different studies, and the CSV itself stays plain
 * (pandas.read_csv reads it without options).
 *
 * A sidecar is text, one "KEY: VALUE" per line after the first:
 *
 *   fennelsim-samples 1
 *   input: allreduce.dag
 *   input_fnv1a64: 7f5a3c0e9b1d2a44
 *   network: hockney {"alpha_ns": 1260, "beta_ns_per_byte": 0.098039}
 *   compute: fixed {"compute_time_ns": 0}
 *   noise: net=lognormal:mu=0,sigma=0.2
 *   seeds: 1-100
 *   ranks: 8
 *   shard: 0/4
 *
 * input_fnv1a64 is the 64-bit FNV-1a hash of the input's bytes (a
 * directory: of each regular file's name and bytes, in name order), in
 * hexadecimal, or "unknown" (stdin, unreadable). Two sidecars belong to the
 * same study when every key but shard has the same value. Limits: lines of
 * at most FS_STUDY_META_LINE_MAX bytes, at most FS_STUDY_META_KEYS keys. */
#ifndef FS_STUDY_META_H
#define FS_STUDY_META_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define FS_STUDY_META_MAGIC "fennelsim-samples 1"
#define FS_STUDY_META_KEYS 32
#define FS_STUDY_META_LINE_MAX 16384

#define FS_FNV1A64_INIT UINT64_C(0xcbf29ce484222325)
uint64_t fs_fnv1a64(uint64_t hash, const void *data, size_t length);
/* The hash of a regular file's bytes, or of a directory's regular files
 * (name, then bytes, in name order); streamed. 0, or -1 when unreadable. */
int fs_fnv1a64_path(const char *path, uint64_t *hash);

/* Writes text (a whole sidecar) beside samples; nothing for "-". 0, or -1
 * with err set. */
int fs_study_meta_write(const char *samples, const char *text, fs_error *err);

typedef struct fs_study_meta {
  int count;
  char *key[FS_STUDY_META_KEYS], *value[FS_STUDY_META_KEYS];
  char *text; /* the whole sidecar, keys and values point into a copy */
  char *path;
} fs_study_meta;

/* Reads the sidecar of samples: 1 when read, 0 when there is none (a file
 * of fennelsim before issue 16, stdin), -1 with err set ("FILE:LINE:COLUMN:
 * expected ...") when it is malformed. */
int fs_study_meta_read(const char *samples, fs_study_meta *meta, fs_error *err);
/* The value of key, or NULL. */
const char *fs_study_meta_get(const fs_study_meta *meta, const char *key);
/* The first key (in a's order, then b's) whose values differ, shard
 * excepted, with the values ("none" for an absent key); 0 when they are of
 * the same study, 1 when not. */
int fs_study_meta_differ(const fs_study_meta *a, const fs_study_meta *b, const char **key,
                         const char **value_a, const char **value_b);
void fs_study_meta_free(fs_study_meta *meta);

#endif
