/* model_catalog.h: what each built-in model takes, for `run --help`: its
 * --param keys with their defaults and meaning. Kept beside the registry
 * (model_registry.c); tests/test_cli_help.c checks that every key a model
 * reads is listed here and every listed key is read, so the help cannot
 * drift from the code. */
#ifndef FS_MODEL_CATALOG_H
#define FS_MODEL_CATALOG_H

#include <stdio.h>

typedef struct fs_model_key {
  const char *key;
  const char *help; /* "(1260ns) latency" */
} fs_model_key;

typedef struct fs_model_info {
  const char *names;   /* "hockney", or "lognp, log3p" for one model under two names */
  int compute;         /* 1: a --compute model, 0: a --model network model */
  const char *summary; /* one line */
  const fs_model_key *keys;
  int key_count;
} fs_model_info;

/* Every built-in network then compute model. */
const fs_model_info *fs_model_catalog(int *count);
/* The catalog as `run --help` shows it: per model its keys, defaults, units. */
void fs_model_catalog_print(FILE *out);

#endif
