/* model_registry.c: the table of built-in models and parameter reading. */
#include "model_registry.h"

#include <string.h>

static const struct {
  const char *name;
  int (*create)(fs_parameters *, fs_network_model *, fs_error *);
} network_models[] = {
    {"hockney", fs_hockney_create},
    {"pipelined", fs_pipelined_create},
    {"loggops", fs_loggops_create},
    {"taulop", fs_taulop_create},
    {"hetero-hockney", fs_hetero_hockney_create}, {"lmo", fs_lmo_create},
};

static const struct {
  const char *name;
  int (*create)(fs_parameters *, fs_compute_model *, fs_error *);
} compute_models[] = {
    {"fixed", fs_fixed_compute_create},
    {"rate", fs_rate_compute_create},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *fs_network_model_names(void) { return "hockney, pipelined, loggops, hetero-hockney, lmo, taulop"; }
const char *fs_compute_model_names(void) { return "fixed, rate"; }

fs_parameter *fs_parameter_take(fs_parameters *params, const char *key) {
  fs_parameter *found = NULL;
  for (int i = 0; params && i < params->count; i++)
    if (strcmp(params->items[i].key, key) == 0) found = &params->items[i], found->used = 1;
  return found; /* the last one given wins */
}

int fs_parameter_time(fs_parameters *params, const char *key, int allow_negative, fs_time *out,
                      fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (!p) return 0;
  if (fs_parse_time(p->value, strlen(p->value), allow_negative, out) != 0)
    return fs_error_set(err, "--param %s=%s: expected a %stime with a unit (ps, ns, us, ms, s)",
                        key, p->value, allow_negative ? "" : "non-negative ");
  return 0;
}

int fs_parameter_per_byte(fs_parameters *params, const char *key, fs_per_byte *out,
                          fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (!p) return 0;
  if (fs_parse_per_byte(p->value, strlen(p->value), out) != 0)
    return fs_error_set(err, "--param %s=%s: expected a time per byte (\"0.4ns\") or a bandwidth "
                        "(\"10GB/s\")", key, p->value);
  return 0;
}

int fs_parameters_check_used(const fs_parameters *params, fs_error *err) {
  for (int i = 0; params && i < params->count; i++)
    if (!params->items[i].used)
      return fs_error_set(err, "--param %s: no parameter of that name in the chosen models",
                          params->items[i].key);
  return 0;
}

int fs_network_model_create(const char *name, fs_parameters *params, fs_network_model *out,
                            fs_error *err) {
  for (size_t i = 0; i < COUNT(network_models); i++)
    if (strcmp(name, network_models[i].name) == 0) return network_models[i].create(params, out, err);
  return fs_error_set(err, "unknown network model '%s' (known: %s)", name, fs_network_model_names());
}

int fs_compute_model_create(const char *name, fs_parameters *params, fs_compute_model *out,
                            fs_error *err) {
  for (size_t i = 0; i < COUNT(compute_models); i++)
    if (strcmp(name, compute_models[i].name) == 0) return compute_models[i].create(params, out, err);
  return fs_error_set(err, "unknown compute model '%s' (known: %s)", name, fs_compute_model_names());
}

void fs_network_model_destroy(fs_network_model *model) {
  if (model && model->destroy) model->destroy(model->state);
  if (model) memset(model, 0, sizeof *model);
}

void fs_compute_model_destroy(fs_compute_model *model) {
  if (model && model->destroy) model->destroy(model->state);
  if (model) memset(model, 0, sizeof *model);
}
