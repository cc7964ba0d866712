/* parameters.c: the `--param key=value` list models read their settings
 * from, and the check that every key given was asked for. */
#include "models/parameters.h"

#include <stdio.h>
#include <string.h>

#include "core/suggest.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

void fs_parameters_asked(fs_parameters *params, const char *key) {
  for (int i = 0; i < params->asked_count; i++)
    if (strcmp(params->asked[i], key) == 0) return;
  if (params->asked_count < FS_PARAMETERS_MAX_ASKED) params->asked[params->asked_count++] = key;
}

fs_parameter *fs_parameter_take(fs_parameters *params, const char *key) {
  fs_parameter *found = NULL;
  if (params) fs_parameters_asked(params, key);
  for (int i = 0; params && i < params->count; i++)
    if (strcmp(params->items[i].key, key) == 0) found = &params->items[i], found->used = 1;
  return found; /* the last one given wins */
}

int fs_parameter_time(fs_parameters *params, const char *key, int allow_negative, fs_time *out,
                      fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (!p) return 0;
  int status = fs_parse_time(p->value, strlen(p->value), allow_negative, out);
  if (status == FS_PAST_LIMIT)
    return fs_error_set(err, "--param %s=%s: expected a time within the limit of %s%s", key,
                        p->value, allow_negative ? "+-" : "", FS_TIME_LIMIT_TEXT);
  if (status != 0)
    return fs_error_set(err, "--param %s=%s: expected a %stime with a unit (ps, ns, us, ms, s)",
                        key, p->value, allow_negative ? "" : "non-negative ");
  return 0;
}

int fs_parameter_per_byte(fs_parameters *params, const char *key, fs_per_byte *out, fs_error *err) {
  fs_parameter *p = fs_parameter_take(params, key);
  if (!p) return 0;
  int status = fs_parse_per_byte(p->value, strlen(p->value), out);
  if (status == FS_PAST_LIMIT)
    return fs_error_set(err, "--param %s=%s: expected a time per byte up to %s", key, p->value,
                        FS_PER_BYTE_LIMIT_TEXT);
  if (status != 0)
    return fs_error_set(err,
                        "--param %s=%s: expected a time per byte (\"0.4ns\") or a bandwidth "
                        "(\"10GB/s\")",
                        key, p->value);
  return 0;
}

static int is_platform_key(const char *key) {
  return strcmp(key, "nodes") == 0 || strcmp(key, "cores") == 0 || strcmp(key, "mapping") == 0 ||
         strcmp(key, "platform") == 0;
}

/* "; NAME takes k1, k2" for asked[from..to) into text at *at. */
static void list_keys(const fs_parameters *params, const char *name, int from, int to, char *text,
                      size_t size, size_t *at) {
  if (!name || *at >= size) return;
  int n = snprintf(text + *at, size - *at, "%s%s takes", *at ? "; " : "", name), listed = 0;
  for (int i = from; n > 0 && i < to; i++)
    if (!is_platform_key(params->asked[i]) && (size_t)n < size - *at)
      n += snprintf(text + *at + n, size - *at - (size_t)n, "%s %s", listed++ ? "," : "",
                    params->asked[i]);
  if (n > 0 && !listed && (size_t)n < size - *at)
    n += snprintf(text + *at + n, size - *at - (size_t)n, " no parameters");
  if (n > 0) *at += (size_t)n;
}

int fs_parameters_check_used(const fs_parameters *params, fs_error *err) {
  for (int i = 0; params && i < params->count; i++) {
    if (params->items[i].used) continue;
    const char *key = params->items[i].key;
    char keys[700] = "", mean[300];
    size_t at = 0;
    list_keys(params, params->network, params->network_from, params->network_to, keys, sizeof keys,
              &at);
    list_keys(params, params->compute, params->compute_from, params->compute_to, keys, sizeof keys,
              &at);
    fs_suggest_text(mean, sizeof mean, key, params->asked, params->asked_count);
    if (!keys[0]) /* no model recorded its keys (a caller that built none) */
      return fs_error_set(err, "--param %s: no parameter of that name in the chosen models", key);
    return fs_error_set(err, "--param %s: no parameter of that name: %s%s%s", key, keys,
                        mean[0] ? "; " : "", mean);
  }
  return 0;
}

fs_text_input *fs_parameter_open_text(const fs_parameter *p, fs_error *err) {
  if (!p->text) return fs_text_input_open_file(p->value, err);
  fs_text_input *in = fs_text_input_open_memory(p->text, p->text_length, p->value);
  if (!in) fs_error_set(err, "out of memory");
  return in;
}

int fs_parameter_names_file(const char *key, const char *value) {
  static const char *const keys[] = {"platform", "table",       "shm_table", "net_table",
                                     "mw_table", "gamma_table", "file"};
  if (strcmp(key, "table") == 0 && (strcmp(value, "archer") == 0 || strcmp(value, "none") == 0))
    return 0; /* pipelined's built-in tables */
  for (size_t i = 0; i < COUNT(keys); i++)
    if (strcmp(key, keys[i]) == 0) return 1;
  return 0;
}
