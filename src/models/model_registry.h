/* model_registry.h: finding a network or compute model by name and building
 * it from `--param key=value` settings. Every parameter given must be used
 * by one of the two models, so a typo is an error, not a silent default. */
#ifndef FS_MODEL_REGISTRY_H
#define FS_MODEL_REGISTRY_H

#include "core/error.h"
#include "core/model.h"
#include "models/parameters.h"

/* name is a built-in model, a model file (NAME.xml) or models/NAME.xml
 * (model_xml.h): the model of its kind with its parameters, params
 * overriding them. */
int fs_network_model_create(const char *name, fs_parameters *params, fs_network_model *out,
                            fs_error *err);
int fs_compute_model_create(const char *name, fs_parameters *params, fs_compute_model *out,
                            fs_error *err);
void fs_network_model_destroy(fs_network_model *model);
void fs_compute_model_destroy(fs_compute_model *model);
/* Whether name is a built-in network model (not a model file). */
int fs_network_model_built_in(const char *name);
/* The names of the built-in network and compute models, for help and errors. */
const char *fs_network_model_names(void);
const char *fs_compute_model_names(void);

/* Constructors behind the registry (one file each). */
int fs_hockney_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_pipelined_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_loggops_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_taulop_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_flow_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_flow_lv08_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_hetero_hockney_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_lmo_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_nccl_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_lognp_create(fs_parameters *params, fs_network_model *out, fs_error *err);
int fs_fixed_compute_create(fs_parameters *params, fs_compute_model *out, fs_error *err);
int fs_rate_compute_create(fs_parameters *params, fs_compute_model *out, fs_error *err);
int fs_gamma_compute_create(fs_parameters *params, fs_compute_model *out, fs_error *err);

#endif
