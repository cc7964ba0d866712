/* options.c: option matching and the clock for the subcommands. */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/units.h"

int fs_option(int argc, char **argv, int *i, const char *name, const char **value, fs_error *err) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return 0;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return 1;
  }
  if (arg[n] != 0) return 0;
  if (*i + 1 >= argc) return fs_error_set(err, "%s needs a value", name);
  *value = argv[++*i];
  return 1;
}

int fs_option_count(const char *name, const char *value, int64_t min, int64_t max, int64_t *out,
                    fs_error *err) {
  if (fs_parse_count(value, strlen(value), min, max, out) != 0)
    return fs_error_set(err, "%s %s: expected a whole number from %lld to %lld", name, value,
                        (long long)min, (long long)max);
  return 0;
}

double fs_seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int fs_option_param(fs_parameters *params, const char *text, fs_error *err) {
  const char *equals = strchr(text, '=');
  if (!equals || equals == text || !equals[1])
    return fs_error_set(err, "--param %s: expected KEY=VALUE", text);
  fs_parameter *items = realloc(params->items, (size_t)(params->count + 1) * sizeof *items);
  if (!items) return fs_error_set(err, "out of memory");
  params->items = items;
  char *copy = strdup(text);
  if (!copy) return fs_error_set(err, "out of memory");
  size_t key_length = (size_t)(equals - text);
  copy[key_length] = 0;
  items[params->count++] = (fs_parameter){.key = copy, .value = copy + key_length + 1, .used = 0};
  return 0;
}

void fs_option_params_free(fs_parameters *params) {
  for (int i = 0; i < params->count; i++) free((char *)params->items[i].key);
  free(params->items);
  params->items = NULL, params->count = 0;
}

int fs_option_param_pair(fs_parameters *params, const char *key, const char *value, fs_error *err) {
  char text[1200];
  snprintf(text, sizeof text, "%s=%s", key, value);
  return fs_option_param(params, text, err);
}

int fs_exit_status_for(const fs_error *err, int otherwise) {
  return fs_error_is_too_large(err) ? FS_EXIT_USAGE : otherwise;
}

int fs_option_platform(int argc, char **argv, int *i, fs_parameters *params, int *which,
                       const char **value, fs_error *err) {
  static const char *const names[][2] = {{"--nodes", "nodes"}, {"--cores", "cores"},
                                         {"--mapping", "mapping"}, {"--platform", "platform"}};
  for (int k = 0; k < 4; k++) {
    int m = fs_option(argc, argv, i, names[k][0], value, err);
    if (m == 0) continue;
    if (m < 0) return -1;
    *which = k;
    return fs_option_param_pair(params, names[k][1], *value, err) ? -1 : 1;
  }
  return 0;
}

int fs_wants_help(int argc, char **argv, const char *usage) {
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 1;
    }
  return 0;
}
