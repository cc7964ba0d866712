/* platform_parameters.c: see platform_parameters.h. */
#include "models/platform_parameters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform_xml.h"
#include "platform/simgrid_platform.h"

static int read_count(fs_parameters *params, const char *key, int64_t *out, fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (p && fs_parse_count(p->value, strlen(p->value), 1, 1 << 24, out))
    return fs_error_set(err, "--param %s=%s: expected a whole number from 1 to 16777216", key,
                        p->value);
  return 0;
}

int fs_platform_parameters_read(fs_parameters *params, fs_platform_parameters *out, fs_error *err) {
  memset(out, 0, sizeof *out);
  fs_parameter *platform = fs_parameter_take(params, "platform");
  fs_parameter *mapping = fs_parameter_take(params, "mapping");
  if (read_count(params, "nodes", &out->nodes, err) ||
      read_count(params, "cores", &out->cores, err))
    return -1;
  if (platform) snprintf(out->file, sizeof out->file, "%s", platform->value);
  if (mapping) {
    fs_mapping kind = fs_mapping_from_name(mapping->value, strlen(mapping->value));
    if (kind != FS_MAPPING_SEQUENTIAL && kind != FS_MAPPING_ROUND_ROBIN)
      return fs_error_set(err,
                          "--mapping %s: expected seq or rr (or an explicit list in a "
                          "--platform file)",
                          mapping->value);
    snprintf(out->mapping, sizeof out->mapping, "%s", mapping->value);
  }
  if (platform && (out->nodes || out->cores || (mapping && !fs_simgrid_platform_file(out->file))))
    return fs_error_set(err, "--param platform= and nodes/cores/mapping exclude each other "
                             "(mapping= goes with a SimGrid platform only)");
  return 0;
}

fs_platform *fs_platform_parameters_build(const fs_platform_parameters *pp, int32_t ranks,
                                          fs_error *err) {
  if (pp->file[0]) {
    fs_platform *p = fs_platform_read_xml(pp->file, ranks, err);
    fs_mapping kind = fs_mapping_from_name(pp->mapping, strlen(pp->mapping));
    if (p && kind == FS_MAPPING_ROUND_ROBIN && fs_platform_map_round_robin(p, p->ranks, err))
      fs_platform_free(p), p = NULL;
    return p;
  }
  int64_t nodes = pp->nodes ? pp->nodes : 1;
  int64_t cores = pp->cores ? pp->cores : (ranks + nodes - 1) / nodes;
  return fs_platform_from_options(nodes, cores, pp->mapping[0] ? pp->mapping : "seq", ranks, err);
}

static int has_concurrent(const fs_program *p) {
  for (int32_t t = 0; t < p->tasks; t++)
    if (fs_task_kind_of(p, t) >= FS_SLEEP && (fs_task_flags(p, t) & FS_CONCURRENT)) return 1;
  return 0;
}

/* The platform the parameters name, when the program has concurrent tasks;
 * else NULL with *failed 0. */
static fs_platform *platform_for(fs_parameters *params, const fs_program *program, fs_error *err,
                                 int *failed) {
  fs_platform_parameters pp;
  *failed = fs_platform_parameters_read(params, &pp, err) != 0;
  if (*failed || (!pp.file[0] && !pp.nodes && !pp.cores && !pp.mapping[0]) ||
      !has_concurrent(program))
    return NULL;
  fs_platform *platform = fs_platform_parameters_build(&pp, program->ranks, err);
  *failed = !platform;
  return platform;
}

int fs_platform_parameters_place(fs_parameters *params, fs_engine *engine, fs_error *err) {
  int failed;
  fs_platform *platform = platform_for(params, fs_engine_program(engine), err, &failed);
  if (!platform) return failed ? -1 : 0;
  const fs_program *program = fs_engine_program(engine);
  int32_t *node_of_slot = malloc((size_t)program->slots * sizeof *node_of_slot + 1);
  int status = -1;
  if (!node_of_slot) {
    fs_error_set(err, "out of memory for the nodes of %d ranks", program->slots);
  } else {
    for (int32_t s = 0; s < program->slots; s++)
      node_of_slot[s] = fs_platform_node_of(platform, fs_program_slot_rank(program, s));
    status = fs_engine_set_cores(engine, node_of_slot, platform->cores, err);
  }
  free(node_of_slot);
  fs_platform_free(platform);
  return status;
}
