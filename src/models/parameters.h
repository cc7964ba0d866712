/* parameters.h: the `--param key=value` settings a model is built from
 * (also a model file's parameters): typed reading of each key, and the
 * check that every key given was used by one of the models. */
#ifndef FS_PARAMETERS_H
#define FS_PARAMETERS_H

#include <stddef.h>

#include "core/error.h"
#include "core/units.h"
#include "io/text_input.h"

typedef struct fs_parameter {
  const char *key;
  const char *value;
  int used;
  /* Inline text (a model file's <table>), NULL for an ordinary key=value;
   * then value names where the text comes from in messages. */
  const char *text;
  size_t text_length;
} fs_parameter;

#define FS_PARAMETERS_MAX_ASKED 64

/* Start from a zeroed struct: (fs_parameters){.items = ..., .count = ...}. */
typedef struct fs_parameters {
  fs_parameter *items;
  int count;
  /* The keys the models asked for (fs_parameter_take), in order, once
   * each: an unknown key's message lists them. asked[network_from ..
   * network_to) are the network model's, [compute_from .. compute_to)
   * the compute model's; network and compute name them (NULL: not built). */
  const char *asked[FS_PARAMETERS_MAX_ASKED];
  int asked_count, network_from, network_to, compute_from, compute_to;
  const char *network, *compute;
} fs_parameters;

/* The parameter named key (marked used), or NULL; key is recorded in
 * params->asked, so it must outlive params (the models pass literals). */
/* Records that a model asked for key (no-op once recorded or when asked is
 * full); key must outlive params. */
void fs_parameters_asked(fs_parameters *params, const char *key);
fs_parameter *fs_parameter_take(fs_parameters *params, const char *key);
/* Reads a parameter of each kind into *out when present; 0 when absent or
 * read, -1 (err set) when malformed. */
int fs_parameter_time(fs_parameters *params, const char *key, int allow_negative, fs_time *out,
                      fs_error *err);
int fs_parameter_per_byte(fs_parameters *params, const char *key, fs_per_byte *out, fs_error *err);
/* The parameter's inline text (named by value in messages) or else the
 * file named by value; NULL with err set. */
fs_text_input *fs_parameter_open_text(const fs_parameter *p, fs_error *err);
/* Fails naming the first parameter no model used, the keys each model
 * takes and the closest of them: "--param alpa: no parameter of that name:
 * hockney takes alpha, beta; fixed takes compute_time; did you mean alpha?"
 * (the platform's keys nodes, cores, mapping, platform are left out of the
 * lists: they have options of their own). */
int fs_parameters_check_used(const fs_parameters *params, fs_error *err);

/* Whether parameter key=value names a file (platform=, the tables, file=;
 * not pipelined's table=archer|none), which the command line looks up
 * in its search path and a model file beside itself (model_xml.h). */
int fs_parameter_names_file(const char *key, const char *value);

#endif
