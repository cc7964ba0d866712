/* model_registry.c: the table of built-in models; a name or model file to a model. */
#include "models/model_registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "models/model_xml.h"

/* The built-in models, in the order users see them (the "known:" lists of
 * messages, suggestions): each list makes both its table and its names. */
/* One model per line: */
/* clang-format off */
#define NETWORK_MODELS(X)                             \
  X("hockney", fs_hockney_create)                     \
  X("pipelined", fs_pipelined_create)                 \
  X("loggops", fs_loggops_create)                     \
  X("hetero-hockney", fs_hetero_hockney_create)       \
  X("lmo", fs_lmo_create)                             \
  X("taulop", fs_taulop_create)                       \
  X("lognp", fs_lognp_create)                         \
  X("log3p", fs_lognp_create)                         \
  X("flow", fs_flow_create)                           \
  X("flow-lv08", fs_flow_lv08_create)                 \
  X("nccl", fs_nccl_create)
#define COMPUTE_MODELS(X)                             \
  X("fixed", fs_fixed_compute_create)                 \
  X("rate", fs_rate_compute_create)                   \
  X("gamma", fs_gamma_compute_create)
/* clang-format on */
#define ROW(name, create) {name, create},
#define LISTED(name, create) ", " name /* one literal: ", hockney, pipelined, ..." */

static const struct {
  const char *name;
  int (*create)(fs_parameters *, fs_network_model *, fs_error *);
} network_models[] = {NETWORK_MODELS(ROW)};

static const struct {
  const char *name;
  int (*create)(fs_parameters *, fs_compute_model *, fs_error *);
} compute_models[] = {COMPUTE_MODELS(ROW)};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The lists without their leading ", ". */
const char *fs_network_model_names(void) { return &NETWORK_MODELS(LISTED)[2]; }
const char *fs_compute_model_names(void) { return &COMPUTE_MODELS(LISTED)[2]; }

typedef int (*network_constructor)(fs_parameters *, fs_network_model *, fs_error *);

static network_constructor built_in_network(const char *name) {
  for (size_t i = 0; i < COUNT(network_models); i++)
    if (strcmp(name, network_models[i].name) == 0) return network_models[i].create;
  return NULL;
}

/* The file's parameters, then params (the last one given wins); marks
 * back into params which of them the model used. */
static int create_merged(network_constructor create, fs_model_file *file, fs_parameters *params,
                         fs_network_model *out, fs_error *err) {
  int given = params ? params->count : 0;
  fs_parameters merged = {
      .items = calloc((size_t)(file->params.count + given) + 1, sizeof(fs_parameter))};
  if (!merged.items) return fs_error_set(err, "out of memory");
  for (int i = 0; i < file->params.count; i++) merged.items[merged.count++] = file->params.items[i];
  for (int i = 0; i < given; i++) merged.items[merged.count++] = params->items[i];
  int status = create(&merged, out, err);
  for (int i = 0; i < file->params.count; i++) file->params.items[i].used = merged.items[i].used;
  for (int i = 0; i < given; i++) params->items[i].used = merged.items[file->params.count + i].used;
  for (int i = 0; params && i < merged.asked_count; i++)
    fs_parameters_asked(params, merged.asked[i]);
  free(merged.items);
  return status;
}

/* Fails naming the file's first parameter the model did not use. */
static int check_file_used(const fs_model_file *file, fs_error *err) {
  for (int i = 0; i < file->params.count; i++)
    if (!file->params.items[i].used)
      return fs_error_set(err, "%s:%d: %s: no parameter of that name in model %s", file->name,
                          file->lines[i], file->params.items[i].key, file->kind);
  return 0;
}

/* "PATH: " in front of a constructor's message unless it names PATH. */
static int from_file(const char *path, const fs_error *why, fs_error *err) {
  size_t n = strlen(path);
  if (strncmp(why->message, path, n) == 0 && why->message[n] == ':')
    return fs_error_set(err, "%s", why->message);
  return fs_error_set(err, "%s: %s", path, why->message);
}

static int create_from_file(const char *path, fs_parameters *params, fs_network_model *out,
                            fs_error *err) {
  fs_model_file *file = fs_model_file_read(path, err);
  if (!file) return -1;
  network_constructor create = built_in_network(file->kind);
  fs_error why;
  int status = !create ? fs_error_set(err, "%s:%d: expected kind= one of %s (got \"%.64s\")", path,
                                      file->kind_line, fs_network_model_names(), file->kind)
               : create_merged(create, file, params, out, &why) ? from_file(path, &why, err)
                                                                : check_file_used(file, err);
  if (status) {
    if (create && out->destroy) fs_network_model_destroy(out);
    fs_model_file_free(file);
    return -1;
  }
  out->source = file;
  return 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

int fs_network_model_create(const char *name, fs_parameters *params, fs_network_model *out,
                            fs_error *err) {
  memset(out, 0, sizeof *out);
  if (!name) return fs_error_set(err, "no network model named");
  if (params) params->network = name; /* its keys: those asked before the compute model's */
  network_constructor create = built_in_network(name);
  if (create) return create(params, out, err);
  if (ends_with(name, ".xml")) return create_from_file(name, params, out, err);
  char path[4096];
  snprintf(path, sizeof path, "models/%s.xml", name);
  FILE *f = strchr(name, '/') ? NULL : fopen(path, "rb");
  if (!f) {
    char mean[200];
    const char *names[COUNT(network_models)];
    for (size_t i = 0; i < COUNT(network_models); i++) names[i] = network_models[i].name;
    fs_suggest_text(mean, sizeof mean, name, names, (int)COUNT(network_models));
    return fs_error_set(err,
                        "unknown network model '%s' (known: %s, or a models/NAME.xml file)%s%s",
                        name, fs_network_model_names(), mean[0] ? "; " : "", mean);
  }
  fclose(f);
  return create_from_file(path, params, out, err);
}

int fs_compute_model_create(const char *name, fs_parameters *params, fs_compute_model *out,
                            fs_error *err) {
  if (params)
    params->compute = name, params->network_to = params->compute_from = params->asked_count;
  int status = -2;
  for (size_t i = 0; i < COUNT(compute_models) && status == -2; i++)
    if (strcmp(name, compute_models[i].name) == 0)
      status = compute_models[i].create(params, out, err);
  if (params) params->compute_to = params->asked_count;
  if (status != -2) return status;
  char mean[200];
  const char *names[COUNT(compute_models)];
  for (size_t i = 0; i < COUNT(compute_models); i++) names[i] = compute_models[i].name;
  fs_suggest_text(mean, sizeof mean, name, names, (int)COUNT(compute_models));
  return fs_error_set(err, "unknown compute model '%s' (known: %s)%s%s", name,
                      fs_compute_model_names(), mean[0] ? "; " : "", mean);
}

void fs_network_model_destroy(fs_network_model *model) {
  if (model && model->destroy) model->destroy(model->state);
  if (model) fs_model_file_free(model->source);
  if (model) memset(model, 0, sizeof *model);
}

void fs_compute_model_destroy(fs_compute_model *model) {
  if (model && model->destroy) model->destroy(model->state);
  if (model) memset(model, 0, sizeof *model);
}

int fs_network_model_built_in(const char *name) { return built_in_network(name) != NULL; }
