/* platform_options.c: see platform_options.h. */
#include "cli/platform_options.h"

#include <string.h>

#include "core/units.h"
#include "cli/options.h"
#include "platform/platform_xml.h"
#include "platform/simgrid_platform.h"

static const char *const option_names[4] = {"--nodes", "--cores", "--mapping", "--platform"};
static const char *const keys[4] = {"nodes", "cores", "mapping", "platform"};

static int check_mapping(const char *value, fs_error *err) {
  fs_mapping kind = fs_mapping_from_name(value, strlen(value));
  if (kind == FS_MAPPING_SEQUENTIAL || kind == FS_MAPPING_ROUND_ROBIN) return 0;
  return fs_error_set(err,
                      "--mapping %s: expected seq or rr (sequential or round-robin; an "
                      "explicit mapping goes in a --platform file)",
                      value);
}

int fs_platform_text_option(int argc, char **argv, int *i, fs_platform_text *t, fs_error *err) {
  const char **slots[4] = {&t->nodes, &t->cores, &t->mapping, &t->file};
  for (int k = 0; k < 4; k++) {
    const char *v;
    int m = fs_option(argc, argv, i, option_names[k], &v, err);
    if (m == 0) continue;
    if (m < 0) return -1;
    *slots[k] = v;
    if (k == 0)
      return fs_option_count("--nodes", v, 1, FS_PLATFORM_OPTION_MAX, &t->node_count, err) ? -1 : 1;
    if (k == 1)
      return fs_option_count("--cores", v, 1, FS_PLATFORM_OPTION_MAX, &t->core_count, err) ? -1 : 1;
    if (k == 2) return check_mapping(v, err) ? -1 : 1;
    if (!*v) return fs_error_set(err, "--platform needs a file name");
    return 1;
  }
  return 0;
}

int fs_platform_text_given(const fs_platform_text *t) {
  return t->nodes || t->cores || t->mapping || t->file;
}

int fs_platform_text_check(const fs_platform_text *t, fs_error *err) {
  /* a SimGrid platform lists hosts, not how ranks go on them */
  int simgrid = t->file && fs_simgrid_platform_file(t->file);
  if (t->file && (t->nodes || t->cores || (t->mapping && !simgrid)))
    return fs_error_set(err,
                        "--platform replaces --nodes, --cores and --mapping: give one or the "
                        "other%s",
                        t->mapping ? " (--mapping goes with a SimGrid platform only)" : "");
  return 0;
}

/* The options as typed ("--platform p.xml", "--nodes 2 --cores 4"). */
static char *describe_typed(const fs_platform_text *t, char *out, size_t size) {
  const char *values[4] = {t->nodes, t->cores, t->mapping, t->file};
  size_t at = 0;
  if (size) out[0] = 0;
  for (int k = 0; k < 4 && at < size; k++) {
    if (!values[k]) continue;
    int n = snprintf(out + at, size - at, "%s%s %s", at ? " " : "", option_names[k], values[k]);
    if (n < 0) break;
    at += (size_t)n;
  }
  return out;
}

int fs_platform_text_params(const fs_platform_text *t, fs_parameters *params, fs_error *err) {
  const char *values[4] = {t->nodes, t->cores, t->mapping, t->file};
  for (int k = 0; k < 4; k++)
    if (values[k] && fs_option_param_pair(params, keys[k], values[k], err)) return -1;
  return 0;
}

fs_platform *fs_platform_text_build(const fs_platform_text *t, int64_t ranks, fs_error *err) {
  if (t->file && t->mapping) { /* a SimGrid platform (fs_platform_text_check) */
    fs_platform *p = fs_platform_read_xml(t->file, ranks, err);
    fs_mapping kind = fs_mapping_from_name(t->mapping, strlen(t->mapping));
    if (p && kind == FS_MAPPING_ROUND_ROBIN && fs_platform_map_round_robin(p, p->ranks, err))
      fs_platform_free(p), p = NULL;
    return p;
  }
  if (t->file) return fs_platform_read_xml(t->file, ranks, err);
  if (!fs_platform_text_given(t)) return NULL;
  int64_t nodes = t->node_count ? t->node_count : 1;
  int64_t cores = t->core_count ? t->core_count : ranks ? (ranks + nodes - 1) / nodes : 1;
  return fs_platform_from_options(nodes, cores, t->mapping ? t->mapping : "seq",
                                  ranks ? ranks : nodes * cores, err);
}

static int has_concurrent(const fs_program *p) {
  for (int32_t task = 0; task < p->tasks; task++)
    if (p->kind[task] >= FS_SLEEP && (p->flags[task] & FS_CONCURRENT)) return 1;
  return 0;
}

int fs_platform_params_taken(fs_parameters *params) {
  int taken = 0;
  for (int i = 0; i < params->count; i++)
    for (int k = 0; k < 4; k++)
      if (strcmp(params->items[i].key, keys[k]) == 0)
        taken |= params->items[i].used, params->items[i].used = 1;
  return taken;
}

int fs_platform_text_note(FILE *out, const fs_platform_text *t, int taken, const char *model,
                          const fs_program *program) {
  if (taken || !fs_platform_text_given(t) || (program && has_concurrent(program))) return 0;
  char typed[600];
  fprintf(out,
          "fennelsim: note: %s ignores the platform (%s); models that use it: taulop, and "
          "the compute model gamma (concurrent=1 tasks use it under every model)\n",
          model, describe_typed(t, typed, sizeof typed));
  return 1;
}
